"""What a logistics run records: a planning run's summary, parameters and ledger entries,
and a benchmark's summary. The window (:mod:`gui.logistics.planning`) and ``plan --record``
build them here, so both record a run the same way.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from core.common.quantities import AT_LEAST_ONE, NON_NEGATIVE, PROBABILITY, QuantityRange
from core.logistics.experiments import BenchResult
from core.privacy.ledger import LedgerEntry

__all__ = ["bench_summary", "PLAN_KIND", "plan_ledger_entries", "plan_summary", "plan_params",
           "BENCH_PARAM_LABELS", "BENCH_METRICS", "BENCH_RANGES", "APPROACH_NAMES",
           "EVALUATOR_KEYS",
           "EVALUATOR_VIEW"]

#: Keys of a planning result computed on the true maps by the experimenter (not released).
EVALUATOR_KEYS = ("route", "length", "shortest_length", "stretch", "segments")
EVALUATOR_VIEW = ("evaluator's view (computed by the experimenter on the true maps: not "
                  "released by any agent, and outside the privacy statement)")

#: A benchmark's swept parameter -> axis label.
BENCH_PARAM_LABELS = {"epsilon": "ε (privacy budget per agent)",
                      "n_centers": "N (logistic centers)",
                      "dynamics": "p(leave) = p(join) per step", "budget_factor": "C / Σ lc",
                      "round": "round"}
#: metric -> (plot title, y label), in the order the app and the report show them.
BENCH_METRICS = (("route_length", "Average route length", "length"),
                 ("messages", "Messages per plan", "messages"),
                 ("success", "Success rate", "delivered / packages"),
                 ("stretch", "Stretch (length / true shortest)", "stretch"))
#: metric -> what it can physically be: every band of it is clipped to this
#: (core.common.quantities.clip_band), on screen and in the report.
BENCH_RANGES: dict[str, QuantityRange] = {
    "route_length": NON_NEGATIVE, "messages": NON_NEGATIVE, "success": PROBABILITY,
    "stretch": AT_LEAST_ONE}  # no route is shorter than the true shortest one
#: approach -> legend label.
APPROACH_NAMES = {"dp": "DP-based (sound)", "dp-thesis": "DP-based (thesis preset)",
                  "noprivacy": "No-privacy", "bestfirst": "Best-first",
                  "greedy": "Greedy (GPPP)", "simplified": "Simplified (public crossings)"}

#: RunRecord.kind of one planning task (its target is the map's id).
PLAN_KIND = "plan"


def plan_ledger_entries(session: Any, *, source: str) -> list[LedgerEntry]:
    """Every release of a planning session, each agent's in turn, sourced to the run.

    Parameters
    ----------
    session : PlanningSession
        The session that planned (its per-agent ledgers).
    source : str
        The run id; each entry's ``source`` becomes ``"<run>: <what in the run>"``.

    Returns
    -------
    list of LedgerEntry
        Unbounded releases included; ids are given by the project when recorded.
    """
    out = []
    for a in session.world.agents:
        for e in session.ledgers[a].entries:
            out.append(replace(e, source=f"{source}: {e.source or 'logistics'}"))
    return out


def plan_summary(result: Any, session: Any, *, map_label: str, ledger_entries: int
                 ) -> dict[str, Any]:
    """The run summary of one planning task (what the Project tree and the report show).

    Parameters
    ----------
    result : PlanResult
        The outcome.
    session : PlanningSession
        Its session (spent ε, guarantee, messages).
    map_label : str
        The map's name for lists.
    ledger_entries : int
        How many ledger entries the run records.

    Returns
    -------
    dict
        JSON-able apart from non-finite numbers, which are None with a reason beside them.
    """
    summary: dict[str, Any] = result.to_dict()
    summary.pop("plan_view", None)
    # the oracle mark: the executed route is the evaluator's view on the true maps
    summary["oracle_keys"] = [k for k in EVALUATOR_KEYS if k in summary]
    summary["oracle_view"] = EVALUATOR_VIEW
    spent = session.epsilon_spent()
    reasons = session.epsilon_reasons()
    nominal = session.epsilon_nominal()
    by_agent: dict[str, Any] = {}
    for a in session.world.agents:
        es = session.ledgers[a].entries
        if not es:
            continue
        mech: dict[str, float | None] = {}
        for e in es:
            key = "topology (Alg 7)" if "Alg 7" in e.source else \
                f"route probabilities ({e.mechanism})"
            prev = mech.get(key, 0.0)
            tot = math.inf if prev is None else prev + e.epsilon * e.count
            mech[key] = None if math.isinf(tot) else tot
        by_agent[a] = {"entries": len(es),
                       "epsilon": None if math.isinf(spent[a]) else spent[a],
                       "epsilon_nominal": None if math.isinf(nominal[a]) else nominal[a],
                       "by_mechanism": mech}
        if a in reasons:
            by_agent[a]["epsilon_reason"] = reasons[a]
    summary.update({
        "map_name": map_label,
        "epsilon_spent": {a: (None if math.isinf(v) else v) for a, v in spent.items()
                          if v > 0},
        "epsilon_spent_reason": dict(reasons),
        "guarantee": session.guarantee().to_dict(),
        "messages_by_agent": {a: c.sent for a, c in session.comm.items() if c.sent},
        "comm_budget": (None if math.isinf(session.comm_budget) else session.comm_budget),
        "ledger": by_agent, "ledger_entries": ledger_entries,
        "published": sorted(session.published), "elapsed_s": result.elapsed_s,
        "preset_notes": list(session.flaws() or session.caveats()),
    })
    curves = getattr(session, "learning_curves", None) or []
    if curves:  # the RL high-level solver (§4.5.3): its last curve (re-plans add more)
        summary["learning_curve"] = curves[-1].to_dict()
        summary["learning_curves"] = len(curves)
    if result.discovery is not None:
        disc = result.discovery
        summary["discovery"] = {"posts": disc.posts, "replies": disc.replies,
                                "goal_level": disc.goal_level,
                                "candidates": list(disc.candidates)}
    return summary


def plan_params(params: Any, session: Any, *, map_id: str) -> dict[str, Any]:
    """The run parameters of one planning task (enough to run it again).

    Parameters
    ----------
    params : PlanParameters
        What was asked (:class:`core.logistics.release.PlanParameters`).
    session : PlanningSession
        The session that planned it (the budget C it resolved: N_centers + 30 by default).
    map_id : str
        The project's id of the map.

    Returns
    -------
    dict
        ``map``, ``task``, ``approach``, ``preset``, ``epsilon``, ``comm_budget`` (the one
        used, null when unlimited), ``seeded`` and ``planner`` (every planner parameter);
        the seed is the record's own.
    """
    d = params.to_dict()
    d.pop("seed")
    d["comm_budget"] = None if math.isinf(session.comm_budget) else session.comm_budget
    return {"map": map_id, **d}


def bench_summary(res: BenchResult) -> dict[str, Any]:
    """The summary a ``plan-bench`` RunRecord keeps: rows of means and CIs, checks, gaps.

    Parameters
    ----------
    res : BenchResult
        The benchmark.

    Returns
    -------
    dict
        ``res.to_dict()`` without the per-world table (large; rerun with the seed).
    """
    d = res.to_dict()
    d.pop("per_world", None)
    return d
