"""Packet routing with dynamics: Figs 4.9, 4.10 and 4.11 (thesis §4.7.1) as studies.

Packet routing is the logistics engine on a network whose nodes leave and join while a
packet is planned and forwarded (:class:`core.logistics.routing.Dynamics`): before each of
Steps 1–3 and before execution every node leaves with probability ``p`` and
Binomial(nodes, ``p``) nodes join (the thesis: "a probability of 0.1 that an existing node
will leave the network and a probability of 0.1 that a new node will join"), the degree cap
and the network's connectivity are kept, and an access area may split. A route whose leg
broke is re-planned from where the packet is (its messages are charged, the announcement
is recorded in the ledger as a release without a finite bound); Best-first and Greedy
restart their finding process.

The three figures are :class:`core.study.Study` objects over one arm,
:func:`packet_arm` (one seeded world, one round of packets, one approach), so every number
comes with an interval and every comparison is paired by seed (the same world, packets
and dynamics streams for every approach and every grid point):

* ``fig49``: the approaches against the network size, packet routing (dynamics 0.1) beside
  logistics (dynamics 0) — the thesis: "similar trends … but … worse on the packet routing
  scenario … due to the dynamism";
* ``fig410``: DP-based against ε (0.2–0.8, 10 access points), packet routing beside
  logistics, panels (a) route length, (b) messages, (c) success;
* ``fig411``: the approaches against the dynamism (0.05–0.2, 10 access points), with the
  static network (0) as the reference point.

:func:`packet_claims` states what the thesis expects as :class:`core.study.Claim` s
(dynamism lowers success and raises messages, for every approach).

Examples
--------
>>> m = packet_arm(3, approach="dp", n_centers=4, dynamics=0.1)
>>> sorted(m)
['broken', 'messages', 'replans', 'route_length', 'success']
>>> 0.0 <= m["success"] <= 1.0
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.logistics.examples import generate_tasks, generate_world
from core.logistics.planner import PlannerParams, PlanningSession
from core.logistics.routing import CONNECTIVITY, DYNAMICS_PER, Dynamics

__all__ = ["EXPERIMENTS", "PACKET_METRICS", "packet_arm", "packet_study", "packet_claims",
           "experiment_approaches"]

#: the experiments of ``plan-bench --experiment``
EXPERIMENTS = ("fig49", "fig410", "fig411")
PACKET_METRICS = ("success", "route_length", "messages", "replans", "broken")
#: the four approaches of the thesis's figures
FOUR = ("dp", "noprivacy", "bestfirst", "greedy")


def packet_arm(seed: int, *, approach: str, n_centers: int = 10, epsilon: float = 0.5,
               dynamics: float = 0.0, per: str = "node", connectivity: str = "network",
               p_package: float = 0.2, preset: str = "sound", solver: str = "dijkstra",
               budget: float | None = None) -> dict[str, float]:
    """One replicate: a generated world, one round of packets, one approach.

    Parameters
    ----------
    seed : int
        The replicate seed: it draws the world, the packets and the run's randomness
        (noise, exploration, dynamics), so two approaches with one seed share world and
        packets (common random numbers).
    approach : str
        ``dp`` (sound preset), ``dp-thesis``, ``noprivacy``, ``bestfirst``, ``greedy`` or
        ``simplified``.
    n_centers : int
        Access points (the network size).
    epsilon : float
        The privacy budget per agent.
    dynamics : float
        p_leave = p_join (0: a static network, the logistics scenario).
    per, connectivity : str
        The dynamics model (:class:`core.logistics.routing.Dynamics`).
    p_package : float
        Probability that a node holds a packet.
    preset : str
        ``sound`` or ``thesis`` (for ``dp``; ``dp-thesis`` forces ``thesis``).
    solver : str
        The high-level solver of Step 3 (``dijkstra`` or ``rl``).
    budget : float, optional
        Messages per agent (default N + 30).

    Returns
    -------
    dict
        ``success`` (delivered / packets), ``route_length`` (mean true length of the
        delivered ones; NaN if none), ``messages`` (per packet), ``replans`` (re-plans or
        restarts per packet), ``broken`` (fraction of packets whose route broke at least
        once).
    """
    root = np.random.SeedSequence(int(seed))
    s_world, s_tasks, s_run = root.spawn(3)
    world = generate_world(int(n_centers), seed=np.random.Generator(np.random.PCG64(s_world)))
    tasks = generate_tasks(world, p_package=p_package,
                           rng=np.random.Generator(np.random.PCG64(s_tasks)))
    if approach == "dp-thesis":
        approach, preset = "dp", "thesis"
    kw: dict[str, Any] = {"epsilon": epsilon, "comm_budget": budget}
    if solver != "dijkstra":
        kw["high_level_solver"] = solver
    params = PlannerParams.preset_params(preset, **kw)
    dyn = (Dynamics(dynamics, dynamics, per=per, connectivity=connectivity)
           if dynamics > 0 else None)
    sess = PlanningSession(world, approach=approach, params=params,
                           rng=np.random.Generator(np.random.PCG64(s_run)), dynamics=dyn)
    res = sess.run(tasks)
    if not res:
        nan = math.nan
        return {"success": nan, "route_length": nan, "messages": nan, "replans": nan,
                "broken": nan}
    ok = [r for r in res if r.success]
    return {"success": len(ok) / len(res),
            "route_length": float(np.mean([r.length for r in ok])) if ok else math.nan,
            "messages": float(np.mean([r.messages for r in res])),
            "replans": float(np.mean([r.restarts for r in res])),
            "broken": float(np.mean([r.restarts > 0 for r in res]))}


def experiment_approaches(simplified: bool = True) -> tuple[str, ...]:
    """The approaches every packet experiment compares (the thesis's four, plus the
    simplified approach of §4.5.4 when available)."""
    from core.logistics.planner import STRATEGIES

    extra = ("simplified",) if simplified and "simplified" in STRATEGIES else ()
    return FOUR + extra


def packet_study(name: str, *, n: int = 20, master_seed: int | None = None,
                 values: Sequence[float] | None = None,
                 approaches: Sequence[str] | None = None, per: str = "node",
                 connectivity: str = "network", dynamics: float = 0.1,
                 solver: str = "dijkstra") -> Any:
    """The study of Fig 4.9, 4.10 or 4.11.

    Parameters
    ----------
    name : {"fig49", "fig410", "fig411"}
    n : int
        Seeds (worlds) per arm and point.
    master_seed : int, optional
        None: drawn from the operating system and recorded.
    values : sequence of float, optional
        The swept values: network sizes (fig49, default 10–50), ε (fig410, 0.2–0.8) or
        dynamism (fig411, 0.05–0.2; the static point 0 is always added as the reference).
    approaches : sequence of str, optional
        The arms (fig410: default ``dp`` only).
    per, connectivity : str
        The dynamics model.
    dynamics : float
        The packet-routing dynamism of fig49 and fig410 (the thesis: 0.1).
    solver : str
        The high-level solver.

    Returns
    -------
    core.study.Study
    """
    from core.study import Arm, Study

    if name not in EXPERIMENTS:
        raise InputError(f"must be one of {', '.join(EXPERIMENTS)}, got {name!r}",
                         field="experiment")
    if per not in DYNAMICS_PER:
        raise InputError(f"must be one of {', '.join(DYNAMICS_PER)}, got {per!r}",
                         field="dynamics_per")
    if connectivity not in CONNECTIVITY:
        raise InputError(f"must be one of {', '.join(CONNECTIVITY)}, got {connectivity!r}",
                         field="connectivity")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"must be an integer >= 2, got {n!r}", field="seeds")
    if not 0.0 < float(dynamics) <= 1.0:
        raise InputError(f"must lie in (0, 1], got {dynamics!r}", field="dynamics")
    default_aps = ("dp",) if name == "fig410" else experiment_approaches()
    aps = tuple(approaches) if approaches else default_aps
    known = experiment_approaches() + ("dp-thesis",)
    for a in aps:
        if a not in known:
            raise InputError(f"unknown approach {a!r} (known: {', '.join(known)})",
                             field="approaches")
    common = {"per": per, "connectivity": connectivity, "solver": solver}
    arms = [Arm(a, packet_arm, {"approach": a, **common}) for a in aps]
    vals = [float(v) for v in values] if values else None
    if name == "fig49":
        sizes = [int(v) for v in (vals or (10, 20, 30, 40, 50))]
        if any(s < 2 for s in sizes):
            raise InputError(f"network sizes must be >= 2, got {sizes}", field="values")
        points = [{"n_centers": s, "dynamics": d} for s in sizes for d in (0.0, dynamics)]
        title = "Fig 4.9: approaches vs network size, packet routing beside logistics"
    elif name == "fig410":
        eps = vals or [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
        if any(not e > 0 for e in eps):
            raise InputError(f"epsilon values must be > 0, got {eps}", field="values")
        points = [{"epsilon": e, "dynamics": d} for e in eps for d in (0.0, dynamics)]
        title = "Fig 4.10: DP-based vs epsilon, packet routing beside logistics"
    else:
        dyn = vals or [0.05, 0.10, 0.15, 0.20]
        if any(not 0.0 < d <= 1.0 for d in dyn):
            raise InputError(f"dynamism values must lie in (0, 1], got {dyn}", field="values")
        points = [{"dynamics": d} for d in [0.0] + sorted(dyn)]
        title = "Fig 4.11: approaches vs dynamism (10 access points)"
    return Study(f"{title} ({per}-wise churn, {connectivity} kept connected)", arms, n=int(n),
                 master_seed=master_seed, points=points)


def packet_claims(study: Any) -> list[Any]:
    """The thesis's expectations for ``study`` as paired claims (Holm-adjusted together).

    For every approach: packet routing delivers less and sends more messages than logistics
    (fig49 at every size, fig410 at every ε; fig411: the largest dynamism against the
    static network), and fig411's re-plans rise with the dynamism.
    """
    from core.study import Claim

    out: list[Any] = []
    pts: list[Mapping[str, Any]] = list(study.points)
    for arm in study.arms:
        a = arm.name
        if "n_centers" in pts[0] or "epsilon" in pts[0]:
            key = "n_centers" if "n_centers" in pts[0] else "epsilon"
            for p in pts:
                if p["dynamics"] == 0.0:
                    continue
                q = {key: p[key], "dynamics": 0.0}
                where = f"{key} {p[key]:g}"
                out.append(Claim(f"{a}, {where}: packet routing delivers less than logistics",
                                 "success", a, a, "<", point=p, b_point=q))
                out.append(Claim(f"{a}, {where}: packet routing sends more messages",
                                 "messages", a, a, ">", point=p, b_point=q))
        else:
            hi = max(pts, key=lambda p: p["dynamics"])
            lo = min(pts, key=lambda p: p["dynamics"])
            where = f"dynamism {hi['dynamics']:g} vs {lo['dynamics']:g}"
            out.append(Claim(f"{a}: success falls ({where})", "success", a, a, "<",
                             point=hi, b_point=lo))
            out.append(Claim(f"{a}: messages rise ({where})", "messages", a, a, ">",
                             point=hi, b_point=lo))
    return out
