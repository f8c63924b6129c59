"""The privacy-loss distribution of every planned release, from public parameters only.

Each release becomes :class:`core.privacy.pld.PldTerm` s, so a plan composes with
:func:`core.privacy.pld.compose` (dp-accounting, pessimistic discretisation):

* ``laplace``: dp-accounting's Laplace PLD (scale Δ/ε);
* ``gaussian``: its Gaussian PLD (standard deviation σ, sensitivity Δ); with ``epsilon``
  instead of ``sigma``, σ is the smallest noise (bisection) whose own ε at the release's δ
  is at most ``epsilon``;
* ``dpsgd``: ``steps`` Poisson-subsampled Gaussian steps (add/remove-one), or with a
  replay ``window`` the replace-one steps Theorem 4.2 counts (:mod:`core.privacy.dpsgd`);
* ``mdp``: the Dirichlet privatisation's certified profile
  (:func:`core.mdp.accounting.mdp_privacy`, exact profile, which reads only the model's
  supports); with ``epsilon`` instead of ``k``, k is the designer's largest k meeting it;
* ``logistics``, ``advising``, ``sharing``: their accountants compose many internal steps
  whose count depends on the run, so the plan states the (ε, δ) the run is configured to
  stay within and composes it through the canonical pair that dominates every (ε, δ)-DP
  mechanism (always valid, never tight).

Every term's ``count`` is 1: repeated steps are composed inside the term and cached, so an
allocation that composes the same release many times builds its distribution once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.common.errors import InputError
from core.privacy.pld import PldTerm, compose, eps_delta_term, laplace_term

__all__ = ["GaussianTerm", "release_terms", "release_delta", "plan_deltas", "term_epsilon",
           "DECLARED", "gaussian_sigma_for", "resolve_release", "model_memo", "release_epsilon"]

#: Kinds whose (ε, δ) the plan states and their run must respect.
DECLARED = ("logistics", "advising", "sharing")
_NEEDS_DELTA = ("gaussian", "dpsgd", "mdp")


@dataclass(frozen=True)
class GaussianTerm(PldTerm):
    """A Gaussian term: params ``(sigma, sensitivity, sample_rate, steps, replace_one)``.

    ``sigma`` is the noise's standard deviation in units of the query (for DP-SGD the noise
    multiplier, with sensitivity 1); ``sample_rate`` 1 is no subsampling.
    """

    def loss_range(self) -> float:
        sigma, sens, q, steps, replace = self.params
        mu = (2.0 if replace else 1.0) * float(sens) / float(sigma)
        return max(mu * mu / 2 + 12 * mu, 1e-3)

    def pld(self, h: float) -> Any:
        return _gaussian_pld(self.params, h)


@lru_cache(maxsize=512)
def _gaussian_pld(params: tuple[Any, ...], h: float) -> Any:
    from dp_accounting import privacy_accountant
    from dp_accounting.pld import privacy_loss_distribution as pldm

    sigma, sens, q, steps, replace = params
    relation = (privacy_accountant.NeighboringRelation.REPLACE_ONE if replace else
                privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE)
    one = pldm.from_gaussian_mechanism(float(sigma), sensitivity=float(sens),
                                       sampling_prob=float(q),
                                       value_discretization_interval=h,
                                       neighboring_relation=relation)
    return one.self_compose(int(steps)) if steps > 1 else one


def plan_deltas(plan: Any) -> dict[str, float]:
    """The δ each release is stated at on its own (its ``delta``, else an even share).

    The releases that need a δ (Gaussian, DP-SGD, MDP) and give none share what the budget's
    δ leaves after the given ones; Laplace releases take 0 and declared kinds their
    ``delta`` (default 0). Basic composition adds these δ's.

    Parameters
    ----------
    plan : Plan
        The plan.

    Returns
    -------
    dict
        Release name -> δ.
    """
    given = math.fsum(r.delta for r in plan.releases if r.delta is not None)
    open_ = [r for r in plan.releases if r.delta is None and r.kind in _NEEDS_DELTA]
    share = max(plan.delta - given, 0.0) / len(open_) if open_ else 0.0
    return {r.name: (r.delta if r.delta is not None else
                     share if r.kind in _NEEDS_DELTA else 0.0) for r in plan.releases}


def release_delta(plan: Any, release: Any) -> float:
    """The δ ``release`` of ``plan`` is stated at (:func:`plan_deltas`)."""
    return plan_deltas(plan)[release.name]


def gaussian_sigma_for(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ (to 1e-6 relative) whose exact Gaussian ε at ``delta`` is <= ``epsilon``.

    Uses the analytic Gaussian mechanism's exact privacy profile (Balle and Wang, 2018):
    δ(ε) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ).

    Parameters
    ----------
    epsilon, delta : float
        The target (δ in (0, 1)).
    sensitivity : float
        L2 sensitivity Δ.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gaussian_sigma_for(1.0, 1e-5), 3)
    3.731
    """
    from scipy.stats import norm

    if not 0 < delta < 1:
        raise InputError(f"a Gaussian release needs a delta in (0, 1), got {delta!r}",
                         field="delta")

    def delta_of(sigma: float) -> float:
        a = sensitivity / (2 * sigma)
        b = epsilon * sigma / sensitivity
        return float(norm.cdf(a - b) - math.exp(epsilon) * norm.cdf(-a - b))

    lo, hi = 1e-6 * sensitivity, sensitivity
    while delta_of(hi) > delta:
        hi *= 2
    while hi / lo > 1 + 1e-6:
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if delta_of(mid) > delta else (lo, mid)
    return hi


def model_memo(fn: Any) -> Any:
    """Cache ``fn(model, *args)`` by the model's identity (an MDP is not hashable); each
    entry holds its model, so a freed model's address is never taken for another."""
    store: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    def wrapped(model: Any, *args: Any) -> Any:
        key = (id(model), *args)
        hit = store.get(key)
        if hit is None or hit[0] is not model:
            if len(store) > 2048:
                store.clear()
            hit = (model, fn(model, *args))
            store[key] = hit
        return hit[1]

    return wrapped


@model_memo
def _mdp_k_for(model: Any, epsilon: float, delta: float, eta: Any, b: float,
               adjacency: str) -> float:
    from core.mdp.design import design

    res = design(model, epsilon=epsilon, delta=delta, b=b, adjacency=adjacency, etas=[eta])
    if not res.frontier:
        why = res.infeasible[0][1] if res.infeasible else "no k found"
        raise InputError(f"no concentration k meets epsilon = {epsilon:g}: {why}",
                         field="epsilon")
    return float(res.frontier[0].k)


def resolve_release(release: Any, delta: float, model: Any = None) -> Any:
    """The release with its knob computed where the plan gives an ε instead (σ, k).

    Parameters
    ----------
    release : PlannedRelease
        The release.
    delta : float
        Its own δ.
    model : MDP, optional
        The model of an ``mdp`` release.

    Returns
    -------
    PlannedRelease
    """
    p = release.params
    try:
        if release.kind == "gaussian" and p.get("sigma") is None:
            return release.with_params(sigma=gaussian_sigma_for(p["epsilon"], delta,
                                                                p["sensitivity"]),
                                       epsilon=None)
        if release.kind == "mdp" and p.get("k") is None:
            return release.with_params(k=_mdp_k_for(model, float(p["epsilon"]), delta,
                                                    p["eta"], p["b"], p["adjacency"]),
                                       epsilon=None)
    except InputError as exc:
        raise InputError(exc.problem, field=f"releases[{release.name}].{exc.field}") from None
    return release


@model_memo
def _mdp_privacy(model: Any, k: float, delta: float, eta: Any, b: float,
                 adjacency: str) -> Any:
    from core.mdp.accounting import mdp_privacy

    return mdp_privacy(model, k, b=b, delta_target=delta, adjacency=adjacency, eta=eta,
                       domain_rule="mix")


def release_terms(release: Any, delta: float, model: Any = None) -> list[PldTerm]:
    """The privacy-loss terms of one (resolved) release (module docstring).

    Parameters
    ----------
    release : PlannedRelease
        The release, its σ or k given (:func:`resolve_release`).
    delta : float
        Its own δ (the δ̂ the Dirichlet envelope is refined at; the declared kinds' δ).
    model : MDP, optional
        The model of an ``mdp`` release.

    Returns
    -------
    list of PldTerm
    """
    p, kind, label = release.params, release.kind, release.name
    if kind == "laplace":
        return [laplace_term(p["sensitivity"] / p["epsilon"], p["sensitivity"], 1, label)]
    if kind == "gaussian":
        return [GaussianTerm("gaussian", (p["sigma"], p["sensitivity"], 1.0, 1, False), 1,
                             label)]
    if kind == "dpsgd":
        steps = int(p["steps"])
        window = p.get("window")
        counted = steps if window is None else min(steps, int(window) * int(
            p["updates_per_entry"]))
        return [GaussianTerm("gaussian", (p["sigma"], 1.0, p["sample_rate"], counted,
                                          window is not None), 1, label)]
    if kind == "mdp":
        from core.privacy.pld import dirichlet_rows_terms

        priv = _mdp_privacy(model, float(p["k"]), delta, p["eta"], p["b"], p["adjacency"])
        spec = priv.profile_spec()
        if not priv.bounded or spec is None:
            return [eps_delta_term(math.inf, 1.0, 1, label)]
        return dirichlet_rows_terms(float(p["k"]), spec["groups"], p["adjacency"], delta, 1)
    if kind in DECLARED:
        return [eps_delta_term(p["epsilon"], delta, 1, label)]
    raise InputError(f"unknown kind {kind!r}", field=f"releases[{label}].kind")


def term_epsilon(terms: list[PldTerm], delta: float, discretization: float | None = None
                 ) -> float:
    """ε at ``delta`` of ``terms`` alone (``math.inf`` when unbounded or δ is 0 for an
    approximate-DP release)."""
    if all(t.kind == "laplace" for t in terms):
        return math.fsum(t.params[1] / t.params[0] for t in terms)
    if all(t.kind == "eps-delta" for t in terms) and len(terms) == 1:
        return terms[0].params[0] if terms[0].params[1] <= delta else math.inf
    if not 0 < delta < 1:
        return math.inf
    return compose(terms, delta, discretization=discretization).epsilon


def release_epsilon(release: Any, terms: list[PldTerm], delta: float, model: Any = None
                    ) -> float:
    """A release's own ε at its δ: for an ``mdp`` release the certified ε that
    ``privatize`` and ``bounds`` state for the same (k, η, b, δ, adjacency)
    (:func:`core.mdp.accounting.mdp_privacy`, exact profile), so the plan shows the same
    number; for the others :func:`term_epsilon` of its terms."""
    if release.kind == "mdp":
        p = release.params
        priv = _mdp_privacy(model, float(p["k"]), delta, p["eta"], p["b"], p["adjacency"])
        return float(priv.epsilon) if priv.bounded else math.inf
    return term_epsilon(terms, delta)
