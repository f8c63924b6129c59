"""A plan's composed budget, per-release costs and forecasts, and its allocation.

:func:`evaluate_plan` composes every planned release's privacy-loss distribution at the
budget's δ (:func:`core.privacy.pld.compose`, tight up to a pessimistic discretisation)
beside basic composition (Σε at each release's own δ, Σδ), says what is left, forecasts each
release (:mod:`core.plan.forecast`) and, when the plan does not fit, names the first release
(in plan order) whose addition takes the composition past the budget.

:func:`allocate` sets each adjustable release's knob (Laplace ε, Gaussian or DP-SGD σ, MDP
k, a declared kind's ε) on a grid of :data:`GRID` options per release:

* ``"weights"``: each release's own ε proportional to its ``weight``, scaled up as far as
  the composed ε stays within the budget (bisection on the scale);
* ``"optimise"``: the feasible choice maximising Σ weight × utility, each utility normalised
  to the release without privacy — a greedy ascent by marginal utility per unit of composed
  ε, then pairwise exchanges until no exchange improves. Releases without a forecast keep
  their planned parameters.

Both read only the plan's public parameters and public proxies: the allocation reads no
private data, so it costs no privacy.

Examples
--------
>>> from core.plan.document import plan_from_dict
>>> p = plan_from_dict({"format": "privplan-plan", "version": 1,
...     "budget": {"epsilon": 1.0, "delta": 1e-6},
...     "releases": [{"name": "a", "kind": "laplace", "epsilon": 0.4},
...                  {"name": "b", "kind": "laplace", "epsilon": 0.4}]})
>>> r = evaluate_plan(p)
>>> r.feasible, round(r.basic_epsilon, 6), r.composed_epsilon <= 0.8 + 1e-9
(True, 0.8, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.plan.accounting import (
    gaussian_sigma_for,
    plan_deltas,
    release_epsilon,
    release_terms,
    resolve_release,
)
from core.plan.document import KNOBS, Plan, PlannedRelease
from core.plan.forecast import Forecast, forecast_release
from core.privacy.pld import PLD_LABEL, PldTerm, compose

__all__ = ["ReleaseBudget", "PlanBudget", "evaluate_plan", "allocate", "Option",
           "release_options", "ALLOCATIONS", "GRID", "ALLOCATION_NOTE", "adjacency_of",
           "plan_discretization"]

ALLOCATIONS = ("weights", "optimise")
#: Options per adjustable release in an allocation.
GRID = 40
ALLOCATION_NOTE = ("the allocation is public: it reads only the plan's public parameters "
                   "and public proxies, never the private data, and costs no privacy")
_TOL = 1e-9


def adjacency_of(release: PlannedRelease) -> str:
    """What neighbouring inputs differ in, for ``release``'s guarantee."""
    p = release.params
    if release.kind == "dpsgd":
        return ("replace-one buffer entry (replay window)" if p.get("window")
                else "add/remove one record")
    if release.kind == "mdp":
        return f"{p['adjacency']}: rows differ by at most b = {p['b']:g} in L1"
    if release.kind in ("laplace", "gaussian"):
        return f"one person's change moves the answer by at most {p['sensitivity']:g}"
    return f"as the {release.kind} run states it"


@dataclass(frozen=True)
class ReleaseBudget:
    """One release in the plan's budget: its own (ε, δ), its parameters and forecast."""

    release: PlannedRelease
    epsilon: float
    delta: float
    forecast: Forecast
    cumulative_epsilon: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.release.name, "kind": self.release.kind,
                             "epsilon": self.epsilon if math.isfinite(self.epsilon) else None,
                             "delta": self.delta,
                             "parameters": {k: v for k, v in self.release.params.items()
                                            if v is not None},
                             "adjacency": adjacency_of(self.release),
                             "weight": self.release.weight,
                             "forecast": self.forecast.to_dict()}
        if not math.isfinite(self.epsilon):
            d["epsilon_reason"] = "no finite epsilon at this delta"
        return d


@dataclass(frozen=True)
class PlanBudget:
    """The plan evaluated before any release (module docstring)."""

    plan: Plan
    releases: tuple[ReleaseBudget, ...]
    composed_epsilon: float
    composed_delta: float
    basic_epsilon: float
    basic_delta: float
    feasible: bool
    breaking: str | None = None
    reason: str = ""
    discretization: float = 0.0
    allocation: str | None = None
    objective: float | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def remaining_epsilon(self) -> float:
        return self.plan.epsilon - self.composed_epsilon

    def to_dict(self) -> dict[str, Any]:
        from core.common.jsonable import jsonable_dict
        from core.plan.document import plan_to_dict

        def num(x: float) -> float | None:
            return x if math.isfinite(x) else None

        d: dict[str, Any] = {
            "dataset": self.plan.dataset,
            "budget": {"epsilon": self.plan.epsilon, "delta": self.plan.delta},
            "composed": {"epsilon": num(self.composed_epsilon), "delta": self.composed_delta,
                         "method": PLD_LABEL, "discretization": self.discretization},
            "basic": {"epsilon": num(self.basic_epsilon), "delta": self.basic_delta,
                      "method": "basic composition: the sum of each release's epsilon at "
                                "its own delta, and of the deltas"},
            "remaining": {"epsilon": num(self.remaining_epsilon),
                          "delta": max(self.plan.delta - self.composed_delta, 0.0)},
            "feasible": self.feasible, "infeasible_release": self.breaking,
            "releases": [r.to_dict() for r in self.releases],
            "allocation": self.allocation, "objective": self.objective,
            "notes": list(self.notes), "plan": plan_to_dict(self.plan)}
        if not math.isfinite(self.composed_epsilon):
            d["composed"]["epsilon_reason"] = self.reason or "a release is unbounded"
            d["remaining"]["epsilon_reason"] = d["composed"]["epsilon_reason"]
        if not math.isfinite(self.basic_epsilon):
            d["basic"]["epsilon_reason"] = "a release has no finite epsilon at its delta"
        if self.reason:
            d["reason"] = self.reason
        return jsonable_dict(d)


def _models_for(plan: Plan, models: Mapping[str, Any] | None) -> dict[str, Any]:
    out = dict(models or {})
    for r in plan.releases:
        if r.kind == "mdp" and out.get(r.name) is None:
            raise InputError(f"model {r.params['mdp']!r} was not resolved",
                             field=f"releases[{r.name}].mdp")
    return out


def _compose_eps(terms: Sequence[PldTerm], delta: float, h: float | None) -> tuple[float, str]:
    if not terms:
        return 0.0, ""
    if delta <= 0:  # only pure releases have a finite epsilon at delta 0
        if all(t.kind == "laplace" or (t.kind == "eps-delta" and t.params[1] == 0)
               or t.kind == "identity" for t in terms):
            return math.fsum(t.params[1] / t.params[0] if t.kind == "laplace" else
                             t.params[0] if t.kind == "eps-delta" else 0.0 for t in terms), ""
        return math.inf, "an approximate-DP release cannot fit a budget with delta = 0"
    c = compose(terms, delta, discretization=h)
    return c.epsilon, c.reason


def plan_discretization(terms: Sequence[PldTerm]) -> float:
    """The loss grid :func:`core.privacy.pld.compose` would choose for ``terms``."""
    ranges = [t.loss_range() for t in terms if t.kind != "identity" and t.bounded]
    return max(1e-4, max(ranges, default=1e-3) / 4096)


def evaluate_plan(plan: Plan, models: Mapping[str, Any] | None = None, *,
                  allocation: str | None = None, objective: float | None = None,
                  estimates: bool = False, progress: Progress = no_progress) -> PlanBudget:
    """Compose, cost and forecast every release of ``plan`` (module docstring).

    Parameters
    ----------
    plan : Plan
        The plan.
    models : mapping, optional
        Release name -> MDP for its ``mdp`` releases (:func:`core.plan.models.resolve_models`).
    allocation : str, optional
        How the plan's parameters were allocated (recorded in the result).
    objective : float, optional
        The allocation's objective.
    estimates : bool
        Run the simulated kinds' forecasts (logistics, advising, sharing:
        :mod:`core.plan.simulate`, a second or more each); without, they are None,
        computed on demand.
    progress : callable
        ``progress(fraction, message)``.

    Returns
    -------
    PlanBudget
    """
    mods = _models_for(plan, models)
    deltas = plan_deltas(plan)
    resolved = [resolve_release(r, deltas[r.name], mods.get(r.name)) for r in plan.releases]
    plan = plan.with_releases(resolved)
    per: list[list[PldTerm]] = []
    items: list[ReleaseBudget] = []
    for i, r in enumerate(resolved):
        progress(i / (len(resolved) + 1), f"release {r.name}")
        terms = release_terms(r, deltas[r.name], mods.get(r.name))
        per.append(terms)
        eps = release_epsilon(r, terms, deltas[r.name], mods.get(r.name))
        items.append(ReleaseBudget(r, eps, deltas[r.name],
                                   forecast_release(r, eps, mods.get(r.name),
                                                    estimates=estimates)))
    every = [t for ts in per for t in ts]
    h = plan_discretization(every)
    progress(len(resolved) / (len(resolved) + 1), "composing")
    composed, reason = _compose_eps(every, plan.delta, h)
    basic_e = math.fsum(it.epsilon for it in items)
    basic_d = min(1.0, math.fsum(it.delta for it in items))
    composed = min(composed, basic_e) if basic_d <= plan.delta + _TOL else composed
    feasible = composed <= plan.epsilon + _TOL
    breaking = None
    if not feasible:
        for i in range(len(per)):
            e, _ = _compose_eps([t for ts in per[:i + 1] for t in ts], plan.delta, h)
            if not e <= plan.epsilon + _TOL:
                breaking = resolved[i].name
                break
        breaking = breaking or resolved[-1].name
        reason = reason or (f"release {breaking!r} takes the composed epsilon past the "
                            f"budget {plan.epsilon:g}")
    adj = {adjacency_of(r).split(":")[0] for r in resolved}
    notes = []
    if len(adj) > 1:
        notes.append("the releases state their guarantees under different neighbouring "
                     "relations; the composed statement holds for datasets that are "
                     "neighbours under every one of them")
    progress(1.0, "plan evaluated")
    return PlanBudget(plan, tuple(items), composed, plan.delta, basic_e, basic_d, feasible,
                      breaking, reason, h, allocation, objective, tuple(notes))


@dataclass(frozen=True)
class Option:
    """One choice of a release's knob: the resolved release, its own ε, terms and utility."""

    release: PlannedRelease
    epsilon: float
    terms: tuple[PldTerm, ...]
    utility: float | None


def _knob_values(release: PlannedRelease, delta: float, budget: float, n: int,
                 model: Any) -> list[PlannedRelease]:
    p, kind = release.params, release.kind
    eps_grid = np.geomspace(budget / 200, budget, n)
    if kind in ("laplace", "logistics", "advising", "sharing"):
        return [release.with_params(epsilon=float(e)) for e in eps_grid]
    if kind == "gaussian":
        return [release.with_params(sigma=gaussian_sigma_for(float(e), delta,
                                                             p["sensitivity"]), epsilon=None)
                for e in eps_grid]
    if kind == "dpsgd":
        return [release.with_params(sigma=float(s))
                for s in np.geomspace(0.4, 40.0, max(8, n // 2))]
    if kind == "mdp":
        return [release.with_params(k=float(k), epsilon=None)
                for k in np.geomspace(0.5, 1e6, n)]
    raise InputError(f"unknown kind {kind!r}", field=f"releases[{release.name}].kind")


def release_options(release: PlannedRelease, delta: float, budget: float, model: Any = None,
                    n: int = GRID) -> list[Option]:
    """The allocation's choices for ``release``: own ε <= ``budget``, sorted by ε.

    Parameters
    ----------
    release : PlannedRelease
        The release.
    delta : float
        Its own δ.
    budget : float
        The plan's ε (no single option may exceed it).
    model : MDP, optional
        The model of an ``mdp`` release.
    n : int
        Grid size.

    Returns
    -------
    list of Option
    """
    out = []
    for r in _knob_values(release, delta, budget, n, model):
        terms = release_terms(r, delta, model)
        eps = release_epsilon(r, terms, delta, model)
        if eps <= budget + _TOL:
            out.append(Option(r, eps, tuple(terms), forecast_release(r, eps, model).utility))
    out.sort(key=lambda o: o.epsilon)
    return out


class _Search:
    """The allocation's feasibility oracle over option indices (fixed loss grid)."""

    def __init__(self, plan: Plan, fixed: list[list[PldTerm]], options: list[list[Option]],
                 weights: list[float]) -> None:
        self.plan, self.fixed, self.options, self.weights = plan, fixed, options, weights
        every = [t for ts in fixed for t in ts] + [t for opts in options for o in opts
                                                   for t in o.terms]
        self.h = plan_discretization(every)
        self.cache: dict[tuple[int, ...], float] = {}

    def epsilon(self, idx: Sequence[int]) -> float:
        key = tuple(idx)
        if key not in self.cache:
            terms = [t for ts in self.fixed for t in ts] + [
                t for opts, i in zip(self.options, idx) for t in opts[i].terms]
            self.cache[key] = _compose_eps(terms, self.plan.delta, self.h)[0]
        return self.cache[key]

    def feasible(self, idx: Sequence[int]) -> bool:
        return self.epsilon(idx) <= self.plan.epsilon + _TOL

    def value(self, idx: Sequence[int]) -> float:
        return math.fsum(w * (opts[i].utility or 0.0)
                         for w, opts, i in zip(self.weights, self.options, idx))


def _by_weights(s: _Search) -> list[int]:
    """Each release's ε proportional to its weight (its smallest option where its share is
    below it), scaled up as far as the composition fits."""
    total = sum(s.weights)
    share = [w / total for w in s.weights]

    def pick(scale: float) -> list[int]:
        return [max([i for i, o in enumerate(opts) if o.epsilon <= scale * sh + _TOL],
                    default=0) for opts, sh in zip(s.options, share)]

    if not s.feasible(pick(0.0)):
        raise InputError("no allocation fits the budget: the smallest option of every "
                         "adjustable release, with the fixed ones, already exceeds it",
                         field="budget")
    lo, hi = 0.0, s.plan.epsilon * len(share) / min(share)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if s.feasible(pick(mid)) else (lo, mid)
    return pick(lo)


def _local_search(s: _Search, idx: list[int]) -> list[int]:
    n = len(idx)
    improved = True
    while improved:
        improved = False
        for i in range(n):
            for j in [*range(n), None]:
                if j == i:
                    continue
                for step in (1, 2, 4, 8):
                    cand = list(idx)
                    cand[i] = min(cand[i] + step, len(s.options[i]) - 1)
                    if cand[i] == idx[i]:
                        break
                    while j is not None and not s.feasible(cand) and cand[j] > 0:
                        cand[j] -= 1
                    if s.feasible(cand) and s.value(cand) > s.value(idx) + 1e-12:
                        idx, improved = cand, True
    return idx


def _optimise(s: _Search) -> list[int]:
    idx = [0] * len(s.options)
    if not s.feasible(idx):
        raise InputError("no allocation fits the budget: the smallest option of every "
                         "adjustable release, with the fixed ones, already exceeds it",
                         field="budget")
    while True:  # greedy: the best marginal utility per unit of composed epsilon
        base_e, best, best_gain = s.epsilon(idx), None, 0.0
        for i, opts in enumerate(s.options):
            if idx[i] + 1 >= len(opts):
                continue
            cand = list(idx)
            cand[i] += 1
            if not s.feasible(cand):
                continue
            du = s.weights[i] * ((opts[cand[i]].utility or 0.0) - (opts[idx[i]].utility or 0.0))
            gain = du / max(s.epsilon(cand) - base_e, 1e-9)
            if best is None or gain > best_gain:
                best, best_gain = cand, gain
        if best is None:
            break
        idx = best
    return _local_search(s, idx)


def allocate(plan: Plan, method: str, models: Mapping[str, Any] | None = None, *,
             grid: int = GRID, estimates: bool = False,
             progress: Progress = no_progress) -> PlanBudget:
    """Allocate the budget among the plan's adjustable releases (module docstring).

    Parameters
    ----------
    plan : Plan
        The plan (its budget and releases; ``fixed`` releases keep their parameters).
    method : {"weights", "optimise"}
        Split by the releases' weights, or maximise the weighted forecast utility.
    models : mapping, optional
        Release name -> MDP for its ``mdp`` releases.
    grid : int
        Options per adjustable release.
    estimates : bool
        Forecast the simulated kinds of the allocated plan (they are never re-simulated on
        the grid: under ``optimise`` they keep their parameters).
    progress : callable
        ``progress(fraction, message)``.

    Returns
    -------
    PlanBudget
        The allocated plan evaluated (:func:`evaluate_plan`), with ``allocation`` set.
    """
    if method not in ALLOCATIONS:
        raise InputError(f"must be one of {', '.join(ALLOCATIONS)}, got {method!r}",
                         field="allocate")
    mods = _models_for(plan, models)
    deltas = plan_deltas(plan)
    adjustable, fixed_terms = [], []
    options: list[list[Option]] = []
    for n, r in enumerate(plan.releases):
        progress(0.5 * n / len(plan.releases), f"options of {r.name}")
        opts = [] if r.fixed else release_options(r, deltas[r.name], plan.epsilon,
                                                  mods.get(r.name), grid)
        if method == "optimise" and opts and opts[0].utility is None:
            opts = []  # no forecast: nothing to optimise, the release keeps its parameters
        if opts:
            adjustable.append(r.name)
            options.append(opts)
        else:
            rr = resolve_release(r, deltas[r.name], mods.get(r.name))
            fixed_terms.append(release_terms(rr, deltas[r.name], mods.get(r.name)))
    if not options:
        raise InputError("no release can be adjusted (all fixed, or none has a forecast to "
                         "optimise)", field="releases")
    s = _Search(plan, fixed_terms, options,
                [plan.release(name).weight for name in adjustable])
    progress(0.5, "searching")
    idx = _by_weights(s) if method == "weights" else _optimise(s)
    chosen = {name: opts[i].release for name, opts, i in zip(adjustable, options, idx)}
    new = plan.with_releases([chosen.get(r.name, r) for r in plan.releases])
    res = evaluate_plan(new, mods, allocation=method, objective=s.value(idx),
                        estimates=estimates)
    return PlanBudget(**{**res.__dict__, "notes": res.notes + (
        ALLOCATION_NOTE, f"{method}: {len(adjustable)} release(s) adjusted "
        f"({', '.join(f'{n}: {KNOBS[plan.release(n).kind]}' for n in adjustable)}) on a "
        f"grid of {grid} options each")})

