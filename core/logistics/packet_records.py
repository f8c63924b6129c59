"""What a packet-routing study (Figs 4.9–4.11) records, and the run that produces it.

:func:`run_packet_experiment` runs one study of :mod:`core.logistics.packet` on the shared
study runner, tests the thesis's claims (:func:`core.logistics.packet.packet_claims`,
Holm-adjusted) and states what each approach proves under the dynamics; it returns the
*summary* a project's :class:`~core.project.model.RunRecord` of kind :data:`PACKET_KIND`
keeps (strict JSON: means with 95 % Student-t intervals per arm and point, the claims with
their paired estimates, p-values and verdicts, the parameters and the master seed), so
the window redraws a recorded study and the report lays it out from the record alone.

The study is a seeded experiment on generated worlds: nothing private is released, so it
adds nothing to the ledger (like the benchmarks B1–B5); the per-approach privacy statement
says what a real run under the same dynamics would prove.

Examples
--------
>>> s = run_packet_experiment("fig411", n=2, master_seed=3, values=[0.2],
...                           approaches=["bestfirst"], sizes=4)
>>> s["experiment"], s["x"], [r["x"] for r in s["rows"]]
('fig411', 'dynamics', [0.0, 0.2])
>>> sorted(s["rows"][0]["success"])
['hi', 'lo', 'mean', 'n']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.common.jsonable import jsonable, jsonable_dict
from core.common.progress import Progress, no_progress
from core.common.quantities import NON_NEGATIVE, PROBABILITY, QuantityRange
from core.logistics.packet import PACKET_METRICS

__all__ = ["PACKET_KIND", "PACKET_X", "PACKET_PLOTS", "PACKET_RANGES", "PACKET_TITLES",
           "run_packet_experiment", "packet_summary",
           "packet_privacy", "packet_series"]

#: RunRecord.kind of a packet-routing study (target ``"logistics"``)
PACKET_KIND = "plan-packet"
#: experiment -> the point parameter on the x axis
PACKET_X = {"fig49": "n_centers", "fig410": "epsilon", "fig411": "dynamics"}
#: experiment -> short title
PACKET_TITLES = {"fig49": "Fig 4.9: approaches vs network size (packet routing vs logistics)",
                 "fig410": "Fig 4.10 (a–c): DP-based vs ε (packet routing vs logistics)",
                 "fig411": "Fig 4.11: approaches vs dynamism (10 access points)"}
#: metric -> (plot title, y label), in the order the window and the report show them
PACKET_PLOTS = (("route_length", "Route length (delivered packets)", "length"),
                ("messages", "Messages per packet", "messages"),
                ("success", "Success rate", "delivered / packets"),
                ("replans", "Re-plans per packet", "re-plans"))
#: metric -> what it can physically be: every band of it is clipped to this
#: (core.common.quantities.clip_band), on screen and in the report.
PACKET_RANGES: dict[str, QuantityRange] = {
    "route_length": NON_NEGATIVE, "messages": NON_NEGATIVE, "success": PROBABILITY,
    "replans": NON_NEGATIVE, "broken": PROBABILITY}


def packet_privacy(approaches: Sequence[str], dynamics: float, *, per: str = "node",
                   connectivity: str = "network") -> dict[str, dict[str, Any]]:
    """What each approach proves per agent under these dynamics (public parameters only).

    Parameters
    ----------
    approaches : sequence of str
        The study's arms.
    dynamics : float
        p_leave = p_join (0: a static network).
    per, connectivity : str
        The dynamics model.

    Returns
    -------
    dict
        approach -> :meth:`core.logistics.planner.Guarantee.to_dict` (``epsilon`` None with
        ``epsilon_reason`` when no finite bound is proven).
    """
    from core.logistics.planner import PlannerParams, preset_guarantee
    from core.logistics.routing import Dynamics

    dyn = Dynamics(dynamics, dynamics, per=per, connectivity=connectivity) if dynamics > 0 \
        else None
    out: dict[str, dict[str, Any]] = {}
    for ap in approaches:
        preset = "thesis" if ap == "dp-thesis" else "sound"
        name = "dp" if ap.startswith("dp") else ap
        g = preset_guarantee(PlannerParams.preset_params(preset), name, dynamics=dyn)
        out[ap] = jsonable(g.to_dict())
    return out


def run_packet_experiment(name: str, *, n: int = 20, master_seed: int | None = None,
                          values: Sequence[float] | None = None,
                          approaches: Sequence[str] | None = None, per: str = "node",
                          connectivity: str = "network", dynamics: float = 0.1,
                          solver: str = "dijkstra", workers: int = 1,
                          sizes: int | None = None, executor: Any = None,
                          progress: Progress = no_progress) -> dict[str, Any]:
    """Run Fig 4.9, 4.10 or 4.11 and return the summary a run record keeps: the keyword
    form of :func:`core.logistics.bench_release.packet_release` (which the command and the
    window call with a :class:`~core.logistics.bench_release.PacketParameters`).

    Parameters
    ----------
    name : {"fig49", "fig410", "fig411"}
        The experiment.
    n : int
        Worlds (replicate seeds) per arm and point (≥ 2).
    master_seed : int, optional
        None: drawn from the operating system and recorded.
    values, approaches, per, connectivity, dynamics, solver
        As :func:`core.logistics.packet.packet_study`.
    workers : int
        Processes (1: in this thread).
    executor : concurrent.futures.Executor, optional
        A pool or cluster executor to run on (left open; the GUI's Settings ▸ Computing).
    sizes : int, optional
        fig410/fig411: the network size (access points) instead of the thesis's 10 (for
        quick checks; recorded).
    progress : callable
        ``progress(fraction, message)``; may raise ``Cancelled``.

    Returns
    -------
    dict
        :func:`packet_summary`.

    Raises
    ------
    core.common.errors.InputError
        A parameter is invalid (naming the field of
        :class:`~core.logistics.bench_release.PacketParameters`).
    """
    from core.logistics.bench_release import PacketParameters, packet_release

    params = PacketParameters(name, worlds=n, seed=master_seed,
                              values=None if values is None else tuple(values),
                              approaches=None if approaches is None else tuple(approaches),
                              dynamics_per=per,
                              connectivity=connectivity, dynamics=dynamics, solver=solver,
                              sizes=sizes, workers=workers)
    return packet_release(params, progress, executor=executor).summary


def packet_summary(params: Any, result: Any, claims: Sequence[Any]) -> dict[str, Any]:
    """The summary a ``plan-packet`` run record keeps of a study.

    Parameters
    ----------
    params : PacketParameters
        What was run (:class:`core.logistics.bench_release.PacketParameters`).
    result : core.study.StudyResult
        The study's result.
    claims : sequence of ClaimResult
        Its claims as tested (:func:`core.study.evaluate_claims`).

    Returns
    -------
    dict
        Strict JSON: ``experiment``, ``title``, ``x``, ``approaches``, ``metrics``,
        ``rows`` (per arm and point: ``arm``, ``x``, ``dynamics``, ``scenario`` —
        ``packet`` / ``logistics`` for fig49/fig410, ``""`` for fig411 — and per metric
        ``{"mean", "lo", "hi", "n"}``), ``claims``, ``claims_hold``, ``claims_total``,
        ``privacy``, ``params``, ``master_seed``, ``seed_source``, ``n``, ``elapsed_s``.
    """
    from core.study import summary_rows

    name = params.experiment
    x = PACKET_X[name]
    two_scenarios = name != "fig411"
    rows = []
    for row, point in zip(summary_rows(result, PACKET_METRICS, center="mean"),
                          [p for p in result.points for _ in result.arms]):
        d = float(point.get("dynamics", 0.0))
        out: dict[str, Any] = {
            "arm": row["arm"], "x": float(point.get(x, 10 if x == "n_centers" else 0.0)),
            "dynamics": d,
            "scenario": ("packet" if d > 0 else "logistics") if two_scenarios else ""}
        for m in PACKET_METRICS:
            if m in row:
                c = row[m]
                out[m] = {"mean": c["center"], "lo": c["lo"], "hi": c["hi"], "n": c["n"]}
        rows.append(out)
    dmax = max(float(p.get("dynamics", 0.0)) for p in result.points)
    aps = list(result.arms)
    prm = params.record_params(aps)
    prm.pop("seeded")
    summary = {
        "experiment": name, "title": PACKET_TITLES[name], "study": result.name, "x": x,
        "approaches": aps, "metrics": list(PACKET_METRICS), "rows": rows,
        "claims": [{k: c.to_json()[k] for k in ("claim", "metric", "a", "expect", "point",
                                                 "n", "estimate", "interval", "estimate_kind",
                                                 "level", "test", "p", "p_adjusted",
                                                 "verdict", "holds")} for c in claims],
        "claims_hold": sum(bool(c.holds) for c in claims), "claims_total": len(claims),
        "privacy": packet_privacy(aps, dmax, per=params.dynamics_per,
                                  connectivity=params.connectivity),
        "privacy_dynamics": dmax,
        "params": prm,
        "master_seed": result.master_seed, "seed_source": result.seed_source,
        "n": result.n, "level": result.level,
        "elapsed_s": result.elapsed_s if math.isfinite(result.elapsed_s) else None,
    }
    return jsonable_dict(summary)


def packet_series(summary: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """The plotted series of a recorded study: one per (arm, scenario), sorted by x.

    Parameters
    ----------
    summary : dict
        :func:`run_packet_experiment`'s summary (or a record's).
    metric : str
        One of its metrics.

    Returns
    -------
    list of dict
        ``{"arm", "scenario", "x", "mean", "lo", "hi"}`` with lists of floats (NaN where a
        cell has no value, e.g. no packet delivered).
    """
    def num(v: Any) -> float:
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in summary.get("rows", []) or []:
        if isinstance(r, dict) and isinstance(r.get(metric), dict):
            groups.setdefault((str(r.get("arm")), str(r.get("scenario") or "")), []).append(r)
    out = []
    for arm in summary.get("approaches", []) or []:
        for scen in ("packet", "logistics", ""):
            pts = sorted(groups.get((str(arm), scen), []), key=lambda r: num(r.get("x")))
            if pts:
                out.append({"arm": str(arm), "scenario": scen,
                            "x": [num(r.get("x")) for r in pts],
                            "mean": [num(r[metric].get("mean")) for r in pts],
                            "lo": [num(r[metric].get("lo")) for r in pts],
                            "hi": [num(r[metric].get("hi")) for r in pts]})
    return out
