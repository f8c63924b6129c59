"""The logistics route comparisons of the thesis (Fig 4.7/4.8, §4.7.2–4.7.3) as studies.

:func:`route_arm` runs one approach on one generated world (one round of packages) and
reports its delivery rate, messages and route lengths, and its lengths on the tasks that it
*and* DP-based delivered (each approach's mean over its own deliveries would favour the one
that fails on long tasks; :mod:`core.logistics.experiments` pairs tasks the same way).
:func:`route_study` is a :class:`core.study.Study` whose arms are the approaches and whose
points are the map sizes (and, for the domain study, the domains), paired by world seed;
:func:`route_claims` states the thesis's comparisons as :class:`core.study.Claim` s, every
one DP-based relative to the other approach (``a − b`` = DP − other), so a claims table
reads with one sign convention.

Examples
--------
>>> m = route_arm(3, approach="greedy", n_centers=4)
>>> sorted(m)[:4]
['legs', 'longest_leg', 'messages', 'paired_length']
>>> 0.0 <= m["success"] <= 1.0
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.logistics.experiments import (
    BENCH_DOMAINS,
    approach_rounds,
    benchmark_config,
    paired_lengths,
    world_and_tasks,
)

__all__ = ["ROUTE_APPROACHES", "ROUTE_METRICS", "route_arm", "route_study", "route_claims",
           "EPSILON_MARGINS"]

#: the arms, DP-based first (the other arms pair their tasks with its runs)
ROUTE_APPROACHES = ("dp", "noprivacy", "greedy", "bestfirst")
ROUTE_METRICS = ("success", "messages", "route_length", "stretch", "paired_tasks",
                 "paired_length", "paired_length_dp", "sample_value", "legs", "longest_leg")
#: TOST margins of "ε does not change DP-based": the smallest effects the thesis reports
#: (5 points of success between DP and Greedy; DP's routes 2–3 % above No-privacy's)
EPSILON_MARGINS = {"success": 0.05, "stretch": 0.03}


@functools.lru_cache(maxsize=512)
def _run(seed: int, approach: str, n_centers: int, epsilon: float, domain: str,
         p_package: float) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
    """One approach on the world of ``seed``: its metric row and each task's length (None:
    not delivered). Deterministic in its arguments, so it is cached: run inline, every
    arm at a point reuses DP-based's run of the same world instead of repeating it."""
    cfg = benchmark_config("B2", values=(n_centers,), approaches=(approach,),
                           domain=domain, epsilon=epsilon, p_package=p_package)
    s_world, s_tasks, s_run = np.random.SeedSequence(int(seed)).spawn(3)
    world, tasks = world_and_tasks(cfg, n_centers, s_world, s_tasks)
    rows, lengths = approach_rounds(cfg, world, tasks, approach, float(n_centers), s_run,
                                    cfg.comm_budget)
    return tuple(float(v) for v in rows[0]), tuple(lengths[0])


def route_arm(seed: int, *, approach: str, n_centers: int = 10, epsilon: float = 0.5,
              domain: str = "logistics", p_package: float = 0.2) -> dict[str, float]:
    """One replicate: a generated world of ``domain``, one round of packages, one approach.

    Parameters
    ----------
    seed : int
        The replicate seed: it draws the world, the packages and the run's randomness, so
        every approach with one seed plans on the same world and packages.
    approach : str
        ``dp`` (sound preset), ``noprivacy``, ``greedy`` or ``bestfirst``.
    n_centers : int
        Centers (the map size N).
    epsilon : float
        The privacy budget per agent (DP-based).
    domain : str
        ``logistics``, ``air`` or ``rover`` (:mod:`core.logistics.domains`).
    p_package : float
        Probability that a base holds a package.

    Returns
    -------
    dict
        ``success`` (delivered / packages), ``messages`` (per package), ``route_length``
        and ``stretch`` (means over its own deliveries), ``paired_tasks`` (packages it and
        DP-based both delivered), ``paired_length`` and ``paired_length_dp`` (its and DP's
        mean length on those; NaN if none), ``sample_value`` (rover), ``legs`` and
        ``longest_leg`` (air; NaN in the other domains).
    """
    from core.logistics.experiments import METRICS

    args = (int(seed), int(n_centers), float(epsilon), str(domain), float(p_package))
    row, lengths = _run(args[0], approach, *args[1:])
    ref = lengths if approach == "dp" else _run(args[0], "dp", *args[1:])[1]
    by_name = dict(zip(METRICS, row))
    extra = dict(zip(_extra_names(domain), row[len(METRICS):]))
    tasks, mine, dp = paired_lengths(lengths, ref)
    nan = math.nan
    return {"success": by_name["success"], "messages": by_name["messages"],
            "route_length": by_name["route_length"], "stretch": by_name["stretch"],
            "paired_tasks": float(tasks), "paired_length": mine, "paired_length_dp": dp,
            "sample_value": extra.get("sample_value", nan), "legs": extra.get("legs", nan),
            "longest_leg": extra.get("longest_leg", nan)}


def _extra_names(domain: str) -> tuple[str, ...]:
    from core.logistics.experiments import DOMAIN_METRICS

    return DOMAIN_METRICS.get(domain, ())


def route_study(*, n: int = 20, master_seed: int | None = None,
                sizes: Sequence[int] = (10, 30, 50), epsilons: Sequence[float] = (0.2, 0.8),
                domains: Sequence[str] = ("logistics",)) -> Any:
    """The approaches at every map size of every domain, and DP-based at two ε.

    Parameters
    ----------
    n : int
        Worlds per arm and point (the same world seeds at every point).
    master_seed : int, optional
        None: drawn from the operating system and recorded.
    sizes : sequence of int
        The map sizes N (ε = 0.5, the thesis's).
    epsilons : sequence of float
        Two further ε at the smallest N (the "ε changes nothing" claims); empty: none.
    domains : sequence of str
        ``logistics``, ``air``, ``rover``.

    Returns
    -------
    core.study.Study
    """
    from core.study import Arm, Study

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"must be an integer >= 2, got {n!r}", field="worlds")
    for d in domains:
        if d not in BENCH_DOMAINS:
            raise InputError(f"must be one of {', '.join(BENCH_DOMAINS)}, got {d!r}",
                             field="domains")
    if not sizes or any(int(s) < 2 for s in sizes):
        raise InputError(f"map sizes must be >= 2, got {list(sizes)}", field="sizes")
    if len(epsilons) not in (0, 2) or any(not float(e) > 0 for e in epsilons):
        raise InputError(f"needs two epsilon values > 0 or none, got {list(epsilons)}",
                         field="epsilons")
    points: list[dict[str, Any]] = []
    for d in domains:
        points += [{"domain": d, "n_centers": int(s), "epsilon": 0.5} for s in sizes]
        points += [{"domain": d, "n_centers": int(min(sizes)), "epsilon": float(e)}
                   for e in epsilons]
    arms = [Arm(a, route_arm, {"approach": a}) for a in ROUTE_APPROACHES]
    where = ", ".join(domains)
    return Study(f"Logistics routes ({where}): the approaches vs map size, DP-based vs ε",
                 arms, n=int(n), master_seed=master_seed, points=points)


def route_claims(study: Any) -> list[Any]:
    """The thesis's comparisons on ``study``'s points, DP-based relative to the other
    approach (Holm-adjusted together).

    At every size of every domain: DP's routes longer than No-privacy's and shorter than
    Greedy's and Best-first's (on the tasks both delivered), fewer messages than Greedy,
    more deliveries than Greedy and Best-first; rover: more sample value than Greedy and
    Best-first. Per domain: success and stretch at the two further ε equivalent within
    :data:`EPSILON_MARGINS`.
    """
    from core.study import Claim

    pts: list[Mapping[str, Any]] = [dict(p) for p in study.points]
    domains = list(dict.fromkeys(p["domain"] for p in pts))
    one = len(domains) == 1
    out: list[Any] = []
    for d in domains:
        mine = [p for p in pts if p["domain"] == d]
        sized = [p for p in mine if p["epsilon"] == 0.5]
        for p in sized:
            where = ("" if one else f"{d}, ") + f"N = {p['n_centers']}"
            out += _size_claims(Claim, where, p, d == "rover")
        eps = [p for p in mine if p["epsilon"] != 0.5]
        if len(eps) == 2:
            lo, hi = sorted(eps, key=lambda p: p["epsilon"])
            where = ("" if one else f"{d}, ") + f"N = {lo['n_centers']}"
            for m, margin in EPSILON_MARGINS.items():
                out.append(Claim(f"{where}: DP's {m} at ε {hi['epsilon']:g} equals ε "
                                 f"{lo['epsilon']:g} within ±{margin:g}", m, "dp", "dp", "=",
                                 point=hi, b_point=lo, margin=margin))
    return out


def _size_claims(claim: Any, where: str, p: Mapping[str, Any], rover: bool) -> list[Any]:
    """The claims at one size: DP − other on every row."""
    def length(other: str, expect: str, thesis: str) -> Any:
        word = "longer" if expect == ">" else "shorter"
        return claim(f"{where}: DP's routes {word} than {other}'s (thesis: {thesis}; tasks "
                     "both delivered)", "paired_length_dp", other, other, expect, point=p,
                     b_metric="paired_length")

    out = [length("noprivacy", ">", "2–3 % longer"),
           length("greedy", "<", "15 % shorter"),
           length("bestfirst", "<", "25 % shorter"),
           claim(f"{where}: DP sends fewer messages than greedy (thesis: 10 % fewer)",
                 "messages", "dp", "greedy", "<", point=p),
           claim(f"{where}: DP delivers more than greedy (thesis: 5 points more)",
                 "success", "dp", "greedy", ">", point=p),
           claim(f"{where}: DP delivers more than bestfirst (thesis: 10 points more)",
                 "success", "dp", "bestfirst", ">", point=p)]
    if rover:
        out += [claim(f"{where}: DP keeps more sample value than {o}", "sample_value", "dp",
                      o, ">", point=p) for o in ("greedy", "bestfirst")]
    return out
