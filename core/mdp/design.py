"""The privacy designer: reach a target (ε, δ) at the least cost of privacy.

A planner asks "what does ε = 1 cost me on my model?". For every declared η of a public
grid the designer finds the largest concentration k whose proven ε (the exact profile of
:mod:`core.privacy.dirichlet_profile`, under the chosen adjacency) is at most the target at
the target δ, and bounds the cost of privacy at that (k, η) — the robust bound
v̄(s₀) − v̲(s₀) of Theorem 2 with radius α(k, β) plus the public centre shift of the domain
rule 'mix' (:func:`core.mdp.robust.cost_of_privacy`). Larger k means less noise, so for a
fixed η the largest feasible k is the best; across η the trade-off is real: a larger η
lowers ε (a larger k fits the target) but moves every row's centre by up to n·η (the bound
widens). The frontier is these points; the recommendation is the one with the least bound.

What the designer may look at. The published k (and η) would leak whatever chose them, so:

* ``selection="public"`` (default): the (ε, δ) depend only on the rows' support sizes —
  disclosed by the release anyway — and the bound is computed on a *public proxy*: by
  default the model with every row uniform on its support and the model's rewards (the
  rewards and the supports are treated as public), or a proxy model the user supplies. No
  transition probability of the private model enters, so the choice costs nothing.
* ``selection="exponential"``: the bound is also computed on the private model itself and
  the point is chosen by the exponential mechanism over the frontier, with utility −bound.
  The bound lies in [0, U] for every model (U: the value range of the rewards over the
  horizon), so its sensitivity is at most U, and the choice is ``selection_epsilon``-DP
  under any adjacency of the models; it is charged as its own release (mechanism
  ``exponential``). The private bounds are never output: the frontier shows the proxy's.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> d = design(four_startups(), epsilon=1.0, delta=0.05)
>>> d.selection, d.selection_epsilon, d.recommended is not None
('public', 0.0, True)
>>> all(p.epsilon <= 1.0 for p in d.frontier)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.common.validation import (
    RandomSource,
    as_random_source,
    check_b,
    check_beta,
    check_seed,
)
from core.mdp.accounting import (
    ADJACENCIES,
    DEFAULT_B,
    profile_epsilon,
    profile_epsilon_at_most,
)
from core.mdp.model import MDP, with_transitions
from core.mdp.privatize import ETA_AUTO, eta_label, mechanism_rows, parse_eta, row_etas
from core.mdp.robust import _check_bound_sweeps, _cost_bounds_many, _public_shift
from core.mdp.synthesis import synthesize
from core.privacy.laplace import check_epsilon, exponential_mechanism

__all__ = ["DesignPoint", "DesignResult", "DesignParameters", "design", "design_release",
           "public_proxy", "value_range", "DESIGN_ETAS", "SELECTIONS", "K_RANGE"]

#: The public grid of declared η the designer tries: the default rule 'auto' and the
#: per-row rules η = λ/n (every row mixed with weight λ, whatever its support size).
DESIGN_ETAS: tuple["float | str", ...] = (ETA_AUTO, "0.02/n", "0.05/n", "0.1/n", "0.2/n",
                                          "0.35/n", "0.5/n", "0.7/n")
SELECTIONS = ("public", "exponential")
#: The k searched: from nearly no information to nearly none hidden.
K_RANGE = (1e-3, 1e7)
_K_RTOL = 0.01  # the largest feasible k is found to 1 % (and verified feasible)


def _checked_target(epsilon: Any, delta: Any, adjacency: Any, beta: Any, selection: Any,
                    selection_epsilon: Any) -> tuple[float, float, float, float | None]:
    """The designer's target and choice, each checked once (:class:`DesignParameters` and
    :func:`design` both call it): (ε, δ, β, the selection's ε or None); InputError naming
    the field."""
    target = check_epsilon(epsilon)
    if isinstance(delta, bool) or not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
    if adjacency not in ADJACENCIES:
        raise InputError(f"must be one of {', '.join(ADJACENCIES)}, got {adjacency!r}",
                         field="adjacency")
    beta = check_beta(beta)
    if selection not in SELECTIONS:
        raise InputError(f"must be one of {', '.join(SELECTIONS)}, got {selection!r}",
                         field="selection")
    if selection == "exponential":
        if selection_epsilon is None:
            raise InputError("the exponential selection needs its own epsilon",
                             field="selection_epsilon")
        return target, float(delta), beta, check_epsilon(selection_epsilon, "selection_epsilon")
    if selection_epsilon is not None:
        raise InputError("only the exponential selection has its own epsilon",
                         field="selection_epsilon")
    return target, float(delta), beta, None


@dataclass(frozen=True)
class DesignParameters:
    """What one design means (``design MDP …``, the Design dialog's Run): the target (ε, δ)
    under an adjacency of radius b, β of the cost bound, and how the point is chosen.

    Validated once, here (:func:`_checked_target` and :func:`core.common.validation.check_b`);
    every :class:`InputError` names its field. ``seed`` None: an exponential selection draws
    in release mode (a public selection draws nothing). :func:`design_release` runs it;
    :meth:`to_dict` is what the run record keeps.

    Examples
    --------
    >>> p = DesignParameters(epsilon=1.0, delta=1e-3)
    >>> p.to_dict()["selection"], DesignParameters.from_dict(p.to_dict()) == p
    ('public', True)
    >>> try:
    ...     DesignParameters(epsilon=1.0, delta=1e-3, selection="exponential")
    ... except InputError as exc:
    ...     print(exc.field)
    selection_epsilon
    """

    epsilon: float
    delta: float
    b: float = DEFAULT_B
    adjacency: str = "one-row"
    beta: float = 0.05
    selection: str = "public"
    selection_epsilon: float | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        eps, delta, beta, sel = _checked_target(self.epsilon, self.delta, self.adjacency,
                                                self.beta, self.selection,
                                                self.selection_epsilon)
        for name, value in (("epsilon", eps), ("delta", delta), ("beta", beta),
                            ("selection_epsilon", sel), ("b", check_b(self.b)),
                            ("seed", check_seed(self.seed))):
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """The run record's ``params``: epsilon, delta, b, adjacency, beta, selection and
        selection_epsilon (0 for a public selection), in that order."""
        return {"epsilon": self.epsilon, "delta": self.delta, "b": self.b,
                "adjacency": self.adjacency, "beta": self.beta, "selection": self.selection,
                "selection_epsilon": self.selection_epsilon or 0.0}

    @classmethod
    def from_dict(cls, data: Any, *, seed: int | None = None) -> "DesignParameters":
        """The parameters of :meth:`to_dict` (a record's ``params``; its seed is the
        record's own, given as ``seed``)."""
        if not isinstance(data, dict):
            raise InputError(f"must be a JSON object, got {type(data).__name__}",
                             field="params")
        d = dict(data)
        if d.get("selection", "public") == "public" and not d.get("selection_epsilon"):
            d["selection_epsilon"] = None
        known = ("epsilon", "delta", "b", "adjacency", "beta", "selection", "selection_epsilon")
        missing = [k for k in ("epsilon", "delta") if k not in d]
        if missing:
            raise InputError("is required", field=missing[0])
        return cls(**{k: d[k] for k in known if k in d}, seed=seed)


@dataclass(frozen=True)
class DesignPoint:
    """One point of the frontier: the largest k at this η meeting the target."""

    k: float
    eta: "float | str"
    epsilon: float
    delta: float
    cost_bound: float

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "eta": self.eta, "epsilon": self.epsilon, "delta": self.delta,
                "cost_bound": self.cost_bound}


@dataclass(frozen=True)
class DesignResult:
    """The frontier, the recommendation and how it was chosen (module docstring)."""

    epsilon_target: float
    delta_target: float
    b: float
    adjacency: str
    beta: float
    frontier: tuple[DesignPoint, ...]
    recommended: DesignPoint | None
    selection: str
    selection_epsilon: float
    proxy: str
    infeasible: tuple[tuple[str, str], ...] = ()  # (η, why) for η without a feasible k
    mode: str = "experiment"
    seed: int | None = None
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "frontier": [p.to_dict() for p in self.frontier],
            "recommended": None if self.recommended is None else self.recommended.to_dict(),
            "selection": self.selection, "selection_epsilon": self.selection_epsilon,
            "epsilon_target": self.epsilon_target, "delta_target": self.delta_target,
            "b": self.b, "adjacency": self.adjacency, "beta": self.beta, "proxy": self.proxy,
            "infeasible": [{"eta": e, "reason": r} for e, r in self.infeasible],
            "mode": self.mode, "seed": self.seed, "notes": list(self.notes)}
        if self.recommended is None:
            d["recommended_reason"] = ("no declared eta of the grid reaches the target: "
                                       "raise the target epsilon or delta, or lower b")
        return d


def design_release(mdp: MDP, params: DesignParameters, progress: Progress = no_progress, *,
                   proxy: MDP | None = None) -> DesignResult:
    """Design ``mdp``'s release for ``params``: the one entry point of a design.

    ``design MDP …`` calls it and the Design dialog runs it in its worker; both record the
    result with :func:`core.project.recording.design_run_record`.

    Parameters
    ----------
    mdp : MDP
        The model to be released.
    params : DesignParameters
        The target, β and the selection (validated when made).
    progress : callable
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    proxy : MDP, optional
        A public proxy with the model's supports (default :func:`public_proxy`).

    Returns
    -------
    DesignResult

    Examples
    --------
    >>> from core.mdp.examples import four_startups
    >>> r = design_release(four_startups(), DesignParameters(epsilon=50.0, delta=1e-3))
    >>> r.selection, r.recommended is not None
    ('public', True)
    """
    return design(mdp, epsilon=params.epsilon, delta=params.delta, b=params.b,
                  adjacency=params.adjacency, beta=params.beta, proxy=proxy,
                  selection=params.selection, selection_epsilon=params.selection_epsilon,
                  rng=params.seed, progress=progress)


def public_proxy(mdp: MDP) -> MDP:
    """The model with every row uniform on its support (supports and rewards kept).

    Parameters
    ----------
    mdp : MDP
        The private model (only its supports and rewards are read).

    Returns
    -------
    MDP
    """
    t = mdp.transitions  # CSR rows: no dense array, whatever the model's size
    counts = np.diff(t.indptr)
    share = np.divide(1.0, counts, out=np.zeros(counts.shape), where=counts > 0)
    return with_transitions(mdp, t.with_data(np.repeat(share, counts)),
                            name=(mdp.name + " (public proxy)").strip())


def _same_supports(a: MDP, b: MDP) -> bool:
    ta, tb = a.transitions, b.transitions
    return (np.array_equal(ta.indptr, tb.indptr) and np.array_equal(ta.indices, tb.indices)
            and np.array_equal(np.asarray(a.mask), np.asarray(b.mask)))


def value_range(mdp: MDP) -> float:
    """U with every value (and every cost-of-privacy bound) in an interval of length U.

    Parameters
    ----------
    mdp : MDP
        The model.

    Returns
    -------
    float
        T·(r_max − r_min) + (R_T max − R_T min), or (r_max − r_min)/(1 − γ).
    """
    r = np.asarray(mdp.R)[np.asarray(mdp.mask)]
    spread = float(r.max() - r.min()) if r.size else 0.0
    if mdp.horizon is None:
        return spread / (1.0 - float(mdp.discount))
    rt = np.asarray(mdp.R_T)
    return float(mdp.horizon) * spread + float(rt.max() - rt.min())


@dataclass(frozen=True)
class _Profile:
    """The public facts the accounting of one η reads, made once per η and reused for
    every k of the search: the distinct support sizes, their contraction c after the mix
    and how many rows have each (the guarantee depends on nothing else)."""

    support: np.ndarray
    contraction: np.ndarray
    counts: np.ndarray

    def epsilon(self, k: float, eta: "float | str", *, b: float, delta: float,
                adjacency: str) -> float:
        return profile_epsilon(self.support, self.counts, k, contraction=self.contraction,
                               b=b, delta_target=delta, adjacency=adjacency, eta=eta)

    def meets(self, k: float, eta: "float | str", target: float, *, b: float, delta: float,
              adjacency: str) -> bool:
        """``self.epsilon(k, …) <= target``, asked with fewer accountant evaluations
        (:func:`core.mdp.accounting.profile_epsilon_at_most`)."""
        return profile_epsilon_at_most(self.support, self.counts, k,
                                       contraction=self.contraction, b=b, delta_target=delta,
                                       adjacency=adjacency, eta=eta, bound=target)


def _support_histogram(model: MDP) -> tuple[np.ndarray, np.ndarray]:
    """(distinct support sizes, rows with each) over the available rows."""
    sizes = np.diff(model.transitions.indptr)[np.asarray(model.mask).reshape(-1)]
    return np.unique(sizes, return_counts=True)


def _profile(model: MDP, eta: "float | str", hist: tuple[np.ndarray, np.ndarray]) -> _Profile:
    """The class profile of ``model``'s rows under the domain rule 'mix' at ``eta``: the
    contraction 1 − n·η(n) that :func:`mechanism_rows` gives a row of n >= 2 next states (1
    for one), computed once per distinct n. An η whose mix weight reaches 1 for some row is
    refused by :func:`mechanism_rows` itself (its message names the row)."""
    sizes, counts = hist
    eta = parse_eta(eta)
    etas = row_etas(eta, sizes)
    lam = sizes * etas
    multi = sizes >= 2
    if (multi & (lam >= 1.0)).any():
        mechanism_rows(model, eta=eta, domain_rule="mix")  # raises InputError naming the row
    contraction = np.ones(sizes.size)
    contraction *= 1.0 - np.where(multi, lam, 0.0)
    return _Profile(sizes.astype(np.int64), contraction, counts.astype(np.int64))


def _largest_k(profile: _Profile, eta: "float | str", target: float, *, b: float,
               delta: float, adjacency: str) -> tuple[float, float] | None:
    """(k, ε(k)) with the largest k found whose ε <= target (bisection in log k), or None.

    Each probe asks only whether ε <= target (:meth:`_Profile.meets`, which stops the ε
    search as soon as it knows); ε itself is computed once, at the k found. The probes and
    their answers are those of comparing each probe's full ε, so the k and ε are too.
    """
    lo_k, hi_k = K_RANGE
    kw: dict[str, Any] = {"b": b, "delta": delta, "adjacency": adjacency}
    if not profile.meets(lo_k, eta, target, **kw):
        return None
    if profile.meets(hi_k, eta, target, **kw):
        return hi_k, profile.epsilon(hi_k, eta, **kw)
    best = lo_k
    a, z = math.log(lo_k), math.log(hi_k)
    while z - a > _K_RTOL:
        mid = 0.5 * (a + z)
        if profile.meets(math.exp(mid), eta, target, **kw):
            a, best = mid, math.exp(mid)
        else:
            z = mid
    return best, profile.epsilon(best, eta, **kw)


class _Costs:
    """The robust cost-of-privacy bound of one model at (k, η): what does not depend on
    (k, η) — its optimal plan, its rows' supports and (state, action) — is made once."""

    def __init__(self, model: MDP, beta: float, alpha_mode: str) -> None:
        self.model, self.beta, self.alpha_mode = model, beta, alpha_mode
        mask = np.asarray(model.mask)
        self.index = np.argwhere(mask)
        self.support = np.diff(model.transitions.indptr)[mask.reshape(-1)].astype(int)
        self._plan: Any = None

    def __call__(self, k: float, eta: "float | str") -> float:
        """The bound at one (k, η)."""
        return self.many([(k, eta)])[0]

    def many(self, found: Sequence[tuple[float, "float | str"]],
             progress: Progress = no_progress) -> list[float]:
        """The bound at every (k, η) of ``found``, in one backward pass on a large model
        (:func:`core.mdp.robust._cost_bounds_many`; each the float
        :func:`~core.mdp.robust.cost_of_privacy` gives)."""
        if not found:
            return []
        if self._plan is None:  # as cost_of_privacy: the bounds' sweeps checked first
            _check_bound_sweeps(self.model)
            self._plan = synthesize(self.model)
        m = self.model
        # centre_shift of mechanism_rows(model, eta, "mix"), which reads only these facts
        shifts = [_public_shift(self.support, self.index, (m.n_states, m.n_actions),
                                eta=parse_eta(eta), domain_rule="mix", zeros="support",
                                smoothing=0.0) for _, eta in found]
        return _cost_bounds_many(m, self._plan, ks=[k for k, _ in found], beta=self.beta,
                                 alpha_mode=self.alpha_mode, centre_shifts=shifts,
                                 progress=progress)


def design(mdp: MDP, *, epsilon: float, delta: float, b: float = DEFAULT_B,
           adjacency: str = "one-row", beta: float = 0.05, alpha_mode: str = "paper",
           etas: Sequence["float | str"] | None = None, proxy: MDP | None = None,
           selection: str = "public", selection_epsilon: float | None = None,
           rng: "np.random.Generator | int | RandomSource | None" = None,
           progress: Progress = no_progress) -> DesignResult:
    """The frontier of (k, η) meeting a target (ε, δ), and the point with the least bound.

    Parameters
    ----------
    mdp : MDP
        The model to be released.
    epsilon, delta : float
        The target (ε > 0, δ in (0, 1)) of the release, under ``adjacency``.
    b : float
        The adjacency radius (L1, within one row).
    adjacency : str
        ``"one-row"`` or ``"all-rows"``.
    beta : float
        β of the cost-of-privacy bound (its confidence 1 − β).
    alpha_mode : str
        ``"paper"`` or ``"rigorous"`` (the radius α).
    etas : sequence, optional
        The declared η to try (default :data:`DESIGN_ETAS`; each must keep the mix weight
        below 1 for every row, else it is reported infeasible).
    proxy : MDP, optional
        A public proxy of the model with the same supports (default :func:`public_proxy`).
    selection : {"public", "exponential"}
        How the point is chosen (module docstring).
    selection_epsilon : float, optional
        ε of the exponential mechanism (required with ``selection="exponential"``).
    rng : int, Generator, RandomSource or None
        Randomness of the exponential mechanism (None: release mode, OpenDP).
    progress : callable
        ``progress(fraction, message)``.

    Returns
    -------
    DesignResult
    """
    target, delta, beta, selection_epsilon = _checked_target(
        epsilon, delta, adjacency, beta, selection,
        selection_epsilon if selection == "exponential" else None)
    if proxy is not None and not _same_supports(proxy, mdp):
        raise InputError("the proxy must have the model's supports (the same possible next "
                         "states in every row)", field="proxy")
    public = proxy if proxy is not None else public_proxy(mdp)
    grid = list(DESIGN_ETAS if etas is None else etas)
    points: list[DesignPoint] = []
    private_costs: list[float] = []
    infeasible: list[tuple[str, str]] = []
    hist = _support_histogram(public)
    public_cost = _Costs(public, beta, alpha_mode)
    private_cost = _Costs(mdp, beta, alpha_mode) if selection == "exponential" else None
    found: list[tuple["float | str", float, float]] = []  # (η, k, ε) of each feasible η
    for i, eta in enumerate(grid):
        progress(0.1 * i / max(1, len(grid)), f"eta = {eta_label(eta)}")
        try:
            profile = _profile(public, eta, hist)
        except InputError as exc:
            infeasible.append((str(eta), exc.problem))
            continue
        k_eps = _largest_k(profile, eta, target, b=b, delta=float(delta), adjacency=adjacency)
        if k_eps is None:
            infeasible.append((str(eta), f"even k = {K_RANGE[0]:g} gives epsilon above "
                                         f"{target:g} at this eta"))
            continue
        found.append((eta, k_eps[0], k_eps[1]))
    # every feasible η's bound in one pass over the model (the public proxy's, and the
    # private model's for the exponential selection: a utility, never shown)
    pairs = [(k, eta) for eta, k, _ in found]
    costs = public_cost.many(pairs, sub_progress(progress, 0.1, 0.55 if private_cost else 1.0))
    if private_cost is not None:
        private_costs = private_cost.many(pairs, sub_progress(progress, 0.55, 1.0))
    for (eta, k, eps), cost in zip(found, costs):
        points.append(DesignPoint(k=float(k), eta=eta, epsilon=float(eps), delta=float(delta),
                                  cost_bound=float(cost)))
    progress(1.0, "frontier done")
    src = as_random_source(rng) if selection == "exponential" else None
    recommended: DesignPoint | None = None
    notes: list[str] = []
    if points and selection == "public":
        recommended = min(points, key=lambda p: (p.cost_bound, -p.k))
    elif points:
        assert src is not None and selection_epsilon is not None
        span = max(value_range(mdp), 1e-12)
        idx = exponential_mechanism([-c for c in private_costs], epsilon=selection_epsilon,
                                    sensitivity=span, rng=src)
        recommended = points[idx]
        notes.append(f"chosen by the exponential mechanism (epsilon = {selection_epsilon:g}, "
                     f"utility -cost bound on the private model, sensitivity {span:.4g} = the "
                     "value range); the frontier's bounds shown are the public proxy's")
    sizes = mdp.transitions.support_sizes()[np.asarray(mdp.mask)]
    if any(p.eta == ETA_AUTO for p in points):
        notes.append(f"eta auto = {eta_label(ETA_AUTO, sizes)}")
    return DesignResult(
        epsilon_target=target, delta_target=float(delta), b=float(b), adjacency=adjacency,
        beta=beta, frontier=tuple(points), recommended=recommended, selection=selection,
        selection_epsilon=float(selection_epsilon or 0.0),
        proxy=("user-supplied public proxy" if proxy is not None else
               "public proxy: every row uniform on its support, the model's rewards"),
        infeasible=tuple(infeasible),
        mode=src.mode if src is not None else "experiment",
        seed=src.seed if src is not None else None, notes=tuple(notes))

