"""Curves of the Privacy Calculator: ε vs δ, ε vs k, δ vs γ and accuracy vs k.

Size: the Privacy Calculator's curves and inputs: each curve is a few functions over the same
accountant grid (γ, δ on it), and the calculator's entry point evaluates them together.

Everything here is a "what-if" evaluation of the Dirichlet mechanism's accountant
(:mod:`core.privacy.dirichlet_accounting`): nothing is released and nothing is recorded.

* :func:`epsilon_delta_curve` is the ε–δ trade-off. It is computed *parametrically*: on a
  log-spaced grid of the Ω₁ threshold γ in (0, 1/|W|), δ(γ) comes from one vectorised
  evaluation and ε(γ) from the closed form of Theorem 1.6. Because δ increases with γ,
  the point at δ(γ) is exactly the corrected problem (1.23) solved for δ̂ = δ(γ): the
  curve is ε*(δ̂). ε of Lemma 1.7 is ε plus a constant offset (spec §2.7).
  By default (``delta_method="auto"``) δ is the union bound |W|·I_γ(kη, k(1−η)), which is
  proven at every input. Figure 1.1 of [D] is the curve with ``delta_method="exact"``:
  the source's vertex reduction (certified vertex values), which rests on [D] Lemma 1.2,
  whose printed proof has a gap (see :mod:`core.privacy.dirichlet_accounting`) —
  numerically supported, not proven. The spec §4.3 values (ε = 2.5161, 1.6940, 1.2007 at
  δ̂ = 0.05) are that curve's; under the union default they are 2.5208, 1.6972, 1.2030.
* :func:`epsilon_vs_k` gives ε for each k at a fixed δ̂ — by default the exact privacy
  profile (:mod:`core.privacy.dirichlet_profile`) — or at a fixed γ (Theorem 1.6).
* :func:`profile_curve` is the exact privacy profile's ε–δ curve (the default accountant:
  the hockey-stick curve of the worst neighbouring pair; no threshold γ).
* :func:`delta_vs_gamma` gives δ(γ) by the union bound, the vertex reduction (``exact``)
  and, optionally, Monte Carlo.
* :func:`accuracy_vs_k` gives the variance bound, E‖x − p‖² and the radius α (paper
  and rigorous) of Dir_k (spec §3).
* :func:`evaluate_calculator` is what the GUI's worker runs: the single-point result by
  the chosen method and by the other two-way comparison (union and exact), the ε–δ curves
  of both and the δ–γ curves (sharing the δ evaluations) and the accuracy curves.

References
----------
Gohari, dissertation, ch. 1 (Theorem 1.6, Lemma 1.7, problem (1.23), Figure 1.1);
``docs/reference-values.md`` chapter D, §2–§4.

Examples
--------
>>> c = epsilon_delta_curve(**FIGURE_1_1["left"], n_points=40)  # union δ: proven
>>> c.delta_method, round(c.epsilon_at(0.05), 3), round(c.approx_offset, 6)
('union', 2.521, 2.527472)
>>> f = epsilon_delta_curve(**FIGURE_1_1["left"], n_points=40, delta_method="exact")
>>> f.delta_method, round(f.epsilon_at(0.05), 3)  # Figure 1.1 (vertex reduction, Lemma 1.2)
('exact', 2.516)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.special import betainc, betaincinv
from core.common.stats import cp_upper
from core.common.validation import check_beta, check_k
from core.privacy.dirichlet_accounting import (
    CURVE_RTOL,
    DEFAULT_RTOL,
    EXACT_MAX_W,
    LEMMA_1_2_WARNING,
    DirichletPrivacy,
    certified_delta,
    dirichlet_epsilon,
    dirichlet_privacy,
    resolve_delta_method,
    union_certified,
    validate_parameters,
    vertex_parameters,
    vertex_premise,
)

__all__ = [
    "FIGURE_1_1",
    "DELTA_RANGE",
    "GAMMA_FLOOR",
    "EpsilonDeltaCurve",
    "EpsilonVsK",
    "DeltaGammaCurve",
    "AccuracyCurve",
    "CalculatorInputs",
    "CalculatorResult",
    "gamma_grid",
    "delta_on_grid",
    "epsilon_delta_curve",
    "epsilon_vs_k",
    "delta_vs_gamma",
    "accuracy_vs_k",
    "default_k_grid",
    "evaluate_calculator",
    "warning_field",
    "ProfileCurve",
    "profile_curve",
    "k_for_epsilon",
]

#: Figure 1.1 of [D] (caption: |W| = 3 and (η, η̄, k); body text: b = 0.1; spec §4.1).
FIGURE_1_1: dict[str, dict[str, float | int]] = {
    "left": {"k": 6.7, "eta": 0.15, "eta_bar": 0.15, "w": 3, "b": 0.1},
    "middle": {"k": 5.1, "eta": 0.20, "eta_bar": 0.20, "w": 3, "b": 0.1},
    "right": {"k": 4.1, "eta": 0.25, "eta_bar": 0.25, "w": 3, "b": 0.1},
}

#: The ε–δ curve keeps the points with δ in this open interval.
DELTA_RANGE = (1e-6, 0.999)
#: Smallest γ of the grids (δ there is far below the curve's range anyway).
GAMMA_FLOOR = 1e-12
_MC_DRAWS = 200_000


# --------------------------------------------------------------------------- results
def _frozen(arr: object) -> np.ndarray:
    a = np.array(arr, dtype=np.float64, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class EpsilonDeltaCurve:
    """ε against δ for one configuration, parametrised by γ (ascending γ, ascending δ).

    ``epsilon_approx`` is Lemma 1.7's simplified ε (``epsilon + approx_offset``), or None
    where the lemma does not apply.
    """

    gamma: np.ndarray
    delta: np.ndarray
    epsilon: np.ndarray
    epsilon_approx: np.ndarray | None
    approx_offset: float | None
    delta_method: str
    k: float
    eta: float
    eta_bar: float
    w: int
    b: float

    def __post_init__(self) -> None:
        for name in ("gamma", "delta", "epsilon"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        if self.epsilon_approx is not None:
            object.__setattr__(self, "epsilon_approx", _frozen(self.epsilon_approx))

    def epsilon_at(self, delta: float) -> float:
        """ε at ``delta`` by linear interpolation in log δ (NaN outside the curve)."""
        if self.delta.size < 2 or not self.delta[0] <= delta <= self.delta[-1]:
            return math.nan
        return float(np.interp(math.log(delta), np.log(self.delta), self.epsilon))


@dataclass(frozen=True, eq=False)
class EpsilonVsK:
    """ε (and γ, δ) against k at a fixed δ̂ — or at a fixed γ. NaN where not available."""

    k: np.ndarray
    epsilon: np.ndarray
    epsilon_approx: np.ndarray
    gamma: np.ndarray
    delta: np.ndarray
    delta_target: float | None
    fixed_gamma: float | None
    delta_method: str
    reasons: tuple[str, ...]  # "" where the k is valid, else why it has no value

    def __post_init__(self) -> None:
        for name in ("k", "epsilon", "epsilon_approx", "gamma", "delta"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def valid(self) -> np.ndarray:
        result: np.ndarray = np.isfinite(self.epsilon)
        return result


@dataclass(frozen=True, eq=False)
class DeltaGammaCurve:
    """δ against γ: exact (|W| <= 3 only), the rigorous union bound, and optionally MC."""

    gamma: np.ndarray
    union: np.ndarray
    exact: np.ndarray | None = None
    mc: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("gamma", "union", "exact", "mc"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True, eq=False)
class AccuracyCurve:
    """Accuracy of Dir_k against k (spec §3) for vectors of length n."""

    k: np.ndarray
    variance_bound: np.ndarray  # 1 / (4 (k + 1)), Lemma 1.8
    expected_sq_error: np.ndarray | None  # (1 - ||p||²) / (k + 1) at the given p
    alpha_paper: np.ndarray  # Lemma 2.2 as published (can fail)
    alpha_rigorous: np.ndarray  # sub-Gaussian tails + union bound over n
    n: int
    beta: float

    def __post_init__(self) -> None:
        for name in ("k", "variance_bound", "expected_sq_error", "alpha_paper",
                     "alpha_rigorous"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _frozen(getattr(self, name)))


# --------------------------------------------------------------------------- curves
def gamma_grid(k: float, eta: float, eta_bar: float, w: int, *, n_points: int = 40,
               delta_range: tuple[float, float] = DELTA_RANGE) -> np.ndarray:
    """A γ grid in (0, 1/|W|), ascending, whose δ(γ) is about log-spaced over ``delta_range``.

    With u(γ) := I_γ(kη, k(1−η)), the probability that one W-entry at vertex A falls
    below γ, every δ satisfies u(γ) <= δ(γ) <= |W|·u(γ) (one entry failing; the union
    bound). The grid is γ = u⁻¹(u) for u log-spaced from δ_min/|W| to δ_max, so δ is
    log-spaced up to a factor |W| and the ends bracket ``delta_range``. For kη near 1 this
    is close to log-spaced γ; for large kη (δ rising steeply in γ) it still resolves the
    curve. γ is kept >= 1e-12 (GAMMA_FLOOR) and below 1/|W|.

    Parameters
    ----------
    k : float
        The concentration.
    eta, eta_bar : float
        η and η̄.
    w : int
        |W|.
    n_points : int
        Grid size.
    delta_range : (float, float)
        The δ range the grid should span.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> g = gamma_grid(6.7, 0.15, 0.15, 3, n_points=5)
    >>> g.size, bool(np.all(np.diff(g) > 0)), bool(g[0] > 0), bool(g[-1] < 1 / 3)
    (5, True, True, True)
    """
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) \
            or n_points < 2:
        raise InputError(f"must be an integer >= 2, got {n_points!r}", field="n_points")
    a, c = k * eta, k * (1.0 - eta)
    top = (1.0 / w) * (1.0 - 1e-9)
    u_lo = max(delta_range[0] / w, float(betainc(a, c, GAMMA_FLOOR)))
    u_hi = min(delta_range[1], float(betainc(a, c, top)))
    if not u_hi > u_lo:  # degenerate (the whole range is squeezed below the floor)
        return np.geomspace(GAMMA_FLOOR, top, int(n_points))
    g = betaincinv(a, c, np.geomspace(u_lo, u_hi, int(n_points)))
    g = np.clip(g, GAMMA_FLOOR, top)
    return np.maximum.accumulate(g)


def _gammas_to_reach(grid: np.ndarray, gamma: float | None, n_between: int = 8
                     ) -> np.ndarray:
    """γ values to add to the ascending ``grid`` so that it holds ``gamma``: ``gamma``
    itself, and when it lies outside the grid, log-spaced points between it and the grid's
    nearer end (the curve is then drawn through computed values, not a long chord)."""
    if gamma is None or not (math.isfinite(gamma) and gamma > 0.0) or grid.size == 0 \
            or gamma in grid:
        return np.empty(0)
    if gamma < grid[0]:
        return np.geomspace(gamma, grid[0], n_between + 1)[:-1]
    if gamma > grid[-1]:
        return np.geomspace(grid[-1], gamma, n_between + 1)[1:]
    return np.array([gamma])


def _mc_delta_grid(k: float, eta: float, eta_bar: float, w: int, gammas: np.ndarray,
                   draws: int, seed: int) -> np.ndarray:
    """Monte Carlo δ (one-sided 95 % Clopper–Pearson upper limit, worst vertex) on a grid.

    The same draws as :func:`core.privacy.dirichlet_accounting.dirichlet_delta` with
    ``method="mc"`` and the same seed, evaluated for every γ at once.
    """
    rng = np.random.default_rng(seed)
    worst = np.zeros(gammas.shape)
    for a_w, a_r in vertex_parameters(k, eta, eta_bar, w).values():
        m = np.sort(rng.dirichlet(np.array([*a_w, a_r]), size=draws)[:, :w].min(axis=1))
        fails = np.searchsorted(m, gammas, side="left")
        worst = np.maximum(worst, cp_upper(fails, draws, 0.95))
    return worst


def delta_on_grid(k: float, eta: float, eta_bar: float, w: int, gammas: "np.ndarray",
                  method: str, *, mc_draws: int = _MC_DRAWS, mc_seed: int = 0,
                  rtol: float = DEFAULT_RTOL) -> np.ndarray:
    """δ(γ) for every γ of ``gammas`` by one method (``exact``, ``union`` or ``mc``).

    ``union`` is the proven bound, with the same floating-point allowance as the
    accountant's. ``exact`` (|W| <= 3) is the accountant's vertex reduction: a certified
    bound of the vertex value per vertex type, vectorised over the grid (the union bound
    where kη < 1 or kη̄ < 1); that the vertices are the worst inputs is [D] Lemma 1.2, whose
    printed proof has a gap. ``mc`` estimates the vertex value (same caveat).

    Parameters
    ----------
    k : float
        The concentration.
    eta, eta_bar : float
        η and η̄.
    w : int
        |W|.
    gammas : numpy.ndarray
        γ values.
    method : str
        ``"exact"``, ``"union"`` or ``"mc"``.
    mc_draws, mc_seed : int
        The Monte Carlo method's draws and seed.
    rtol : float
        Bracket width of ``exact`` (:func:`core.privacy.dirichlet_accounting.certified_delta`).

    Returns
    -------
    numpy.ndarray
        δ per γ.

    Examples
    --------
    >>> d = delta_on_grid(6.7, 0.15, 0.15, 3, np.array([0.01]), "exact")
    >>> round(float(d[0]), 6)
    0.156845
    """
    g = np.asarray(gammas, dtype=np.float64)
    if method == "union":
        return np.asarray(union_certified(k, eta, w, g), dtype=np.float64)
    if method == "mc":
        if not vertex_premise(k, eta, eta_bar):  # MC evaluates the vertices: unproven
            return np.asarray(union_certified(k, eta, w, g), dtype=np.float64)
        return _mc_delta_grid(k, eta, eta_bar, w, g, mc_draws, mc_seed)
    if method == "exact":
        if w > EXACT_MAX_W:
            raise InputError(f"exact is available for |W| <= {EXACT_MAX_W}; use union or mc "
                             f"(|W| = {w})", field="delta_method")
        return certified_delta(k, eta, eta_bar, w, g, rtol=rtol)
    raise InputError(f"must be one of exact, union, mc; got {method!r}", field="delta_method")


def _resolve_method(method: str, w: int, premise: bool = True) -> str:
    """The γ-analysis δ method actually used (``auto`` is the proven union bound);
    ``premise``: kη >= 1 and kη̄ >= 1 (Lemma 1.2), without which exact and MC (vertex
    evaluations) give way to the union bound, as in the accountant."""
    if method == "profile":
        method = "auto"  # the γ panels show Theorem 1.6 beside the profile
    method = resolve_delta_method(method)
    if method == "exact" and w > EXACT_MAX_W:
        raise InputError(f"exact is available for |W| <= {EXACT_MAX_W}; use union or mc "
                         f"(|W| = {w})", field="delta_method")
    return method if premise else "union"


def _epsilon_grid(k: float, eta: float, eta_bar: float, w: int, b: float,
                  gammas: np.ndarray) -> np.ndarray:
    return np.array([dirichlet_epsilon(k, eta, eta_bar, w, b, float(g)) for g in gammas])


def _approx_offset(k: float, eta: float, eta_bar: float, w: int, b: float) -> float | None:
    """ε_approx − ε of Lemma 1.7: independent of γ (spec §2.7), or None if not applicable."""
    r = dirichlet_privacy(k, eta, eta_bar, w, b, gamma=0.5 / w, delta_method="union")
    return None if r.epsilon_approx is None else r.epsilon_approx - r.epsilon


def _monotone(gammas: np.ndarray, delta: np.ndarray, eps: np.ndarray,
              delta_range: tuple[float, float]) -> np.ndarray:
    """Indices of the points in range whose δ rises strictly and ε falls strictly."""
    keep: list[int] = []
    for i in range(gammas.size):
        if not (delta_range[0] < delta[i] < delta_range[1]) or not math.isfinite(eps[i]):
            continue
        if keep and (delta[i] <= delta[keep[-1]] or eps[i] >= eps[keep[-1]]):
            continue
        keep.append(i)
    return np.array(keep, dtype=np.intp)


def _curve_from(k: float, eta: float, eta_bar: float, w: int, b: float, gammas: np.ndarray,
                delta: np.ndarray, method: str,
                delta_range: tuple[float, float] = DELTA_RANGE) -> EpsilonDeltaCurve:
    eps = _epsilon_grid(k, eta, eta_bar, w, b, gammas)
    idx = _monotone(gammas, delta, eps, delta_range)
    offset = _approx_offset(k, eta, eta_bar, w, b)
    return EpsilonDeltaCurve(
        gamma=gammas[idx], delta=delta[idx], epsilon=eps[idx],
        epsilon_approx=None if offset is None else eps[idx] + offset, approx_offset=offset,
        delta_method=method, k=k, eta=eta, eta_bar=eta_bar, w=w, b=b)


def epsilon_delta_curve(k: float, eta: float, eta_bar: float, w: int, b: float, *,
                        n_points: int = 40, delta_method: str = "auto",
                        mc_draws: int = _MC_DRAWS, mc_seed: int = 0,
                        rtol: float = CURVE_RTOL) -> EpsilonDeltaCurve:
    """The ε–δ trade-off of Dir_k (Figure 1.1): ε*(δ̂) with γ* of the corrected (1.23).

    Parameters
    ----------
    k, eta, eta_bar, w, b :
        As in :func:`core.privacy.dirichlet_accounting.dirichlet_privacy`.
    n_points : int
        Size of the log-spaced γ grid (:func:`gamma_grid`); the curve keeps the points
        with δ in (1e-6, 0.999) along which δ rises and ε falls.
    delta_method : {"auto", "exact", "union", "mc"}
        How δ(γ) is bounded: ``auto`` = ``union`` (proven); ``exact`` = the vertex
        reduction of [D] Lemma 1.2, |W| <= 3 (Figure 1.1 itself; unproven lemma).
    rtol : float
        Bracket width of ``exact`` (default :data:`CURVE_RTOL`, as for every plotted curve:
        δ stays a certified upper bound, so the curve can only sit slightly higher).

    Returns
    -------
    EpsilonDeltaCurve
        Arrays ``gamma``, ``delta``, ``epsilon`` and ``epsilon_approx`` (Lemma 1.7, or
        None), in ascending δ.

    Examples
    --------
    >>> c = epsilon_delta_curve(6.7, 0.15, 0.15, 3, 0.1, n_points=20)
    >>> bool(np.all(np.diff(c.delta) > 0) and np.all(np.diff(c.epsilon) < 0))
    True
    """
    k, eta, eta_bar, w, b, _ = validate_parameters(k, eta, eta_bar, w, b)
    method = _resolve_method(delta_method, w, vertex_premise(k, eta, eta_bar))
    gammas = gamma_grid(k, eta, eta_bar, w, n_points=n_points)
    delta = delta_on_grid(k, eta, eta_bar, w, gammas, method, rtol=rtol, mc_draws=mc_draws,
                          mc_seed=mc_seed)
    return _curve_from(k, eta, eta_bar, w, b, gammas, delta, method)


def delta_vs_gamma(k: float, eta: float, eta_bar: float, w: int, *,
                   gammas: "np.ndarray | None" = None, n_points: int = 40,
                   methods: Sequence[str] = ("exact", "union"), mc_draws: int = _MC_DRAWS,
                   mc_seed: int = 0) -> DeltaGammaCurve:
    """δ(γ) by several methods on one γ grid (default :func:`gamma_grid`).

    The union bound (proven) is always included; ``exact`` (the vertex reduction of
    Lemma 1.2, unproven) is skipped (left None) when |W| > 3.

    Parameters
    ----------
    k : float
        The concentration.
    eta, eta_bar : float
        η and η̄.
    w : int
        |W|.
    gammas : numpy.ndarray, optional
        γ values (default :func:`gamma_grid`).
    n_points : int
        Size of the default grid.
    methods : sequence of str
        Methods besides ``union``.
    mc_draws, mc_seed : int
        The Monte Carlo method's draws and seed.

    Returns
    -------
    DeltaGammaCurve

    Examples
    --------
    >>> d = delta_vs_gamma(6.7, 0.15, 0.15, 3, gammas=np.array([0.01]))
    >>> round(float(d.exact[0]), 6), round(float(d.union[0]), 6)
    (0.156845, 0.164226)
    """
    k, eta, eta_bar, w, _, _ = validate_parameters(k, eta, eta_bar, w, 1.0)
    g = gamma_grid(k, eta, eta_bar, w, n_points=n_points) if gammas is None \
        else np.asarray(gammas, dtype=np.float64)
    if g.size and not (np.all(g > 0) and np.all(g < 1.0 / w)):
        raise InputError(f"every gamma must lie in (0, 1/|W|) = (0, {1.0 / w:.6g})",
                         field="gamma")
    exact = delta_on_grid(k, eta, eta_bar, w, g, "exact") \
        if "exact" in methods and w <= EXACT_MAX_W else None
    mc = delta_on_grid(k, eta, eta_bar, w, g, "mc", mc_draws=mc_draws, mc_seed=mc_seed) \
        if "mc" in methods else None
    return DeltaGammaCurve(gamma=g, union=delta_on_grid(k, eta, eta_bar, w, g, "union"),
                           exact=exact, mc=mc)


def epsilon_vs_k(ks: Sequence[float], eta: float, eta_bar: float, w: int, b: float, *,
                 delta_target: float | None = None, gamma: float | None = None,
                 delta_method: str = "auto", progress: Progress = no_progress,
                 rtol: float | None = None) -> EpsilonVsK:
    """ε against k at a fixed δ̂ (γ* solved per k), or at a fixed γ.

    A k for which the accountant has no answer (e.g. no γ reaches δ̂ because kη is tiny)
    gets NaN and its reason in ``reasons``; parameter errors that do not depend on k
    raise :class:`InputError`. ``progress`` is called after every k (and may cancel).

    Parameters
    ----------
    ks : sequence of float
        Concentrations.
    eta, eta_bar : float
        η and η̄.
    w : int
        |W|.
    b : float
        The L1 distance of neighbouring rows.
    delta_target : float, optional
        δ̂ (γ* solved per k).
    gamma : float, optional
        A fixed γ instead.
    delta_method : str
        ``"auto"`` (the exact profile at a δ̂, the union bound at a fixed γ), ``"profile"``,
        ``"union"``, ``"exact"`` or ``"mc"``.
    progress : callable
        Called after every k.
    rtol : float, optional
        Bracket width of the ``exact`` method
        (:func:`core.privacy.dirichlet_accounting.dirichlet_privacy`); the calculator's plot
        passes :data:`~core.privacy.dirichlet_accounting.CURVE_RTOL` (3× faster; δ stays a
        certified upper bound, so ε can only come out slightly larger).

    Returns
    -------
    EpsilonVsK

    Examples
    --------
    >>> r = epsilon_vs_k([6.7, 10, 20], 0.15, 0.15, 3, 0.1, delta_target=0.05)
    >>> r.delta_method, [round(float(e), 3) for e in r.epsilon]  # the exact profile
    ('profile', [0.599, 0.748, 1.161])
    >>> r = epsilon_vs_k([6.7, 10, 20], 0.15, 0.15, 3, 0.1, delta_target=0.05,
    ...                  delta_method="union")  # Theorem 1.6, union bound
    >>> [round(float(e), 3) for e in r.epsilon]
    [2.521, 3.127, 4.948]
    >>> r = epsilon_vs_k([6.7, 10, 20], 0.15, 0.15, 3, 0.1, delta_target=0.05,
    ...                  delta_method="exact")  # spec §4.3 (vertex reduction, Lemma 1.2)
    >>> [round(float(e), 3) for e in r.epsilon]
    [2.516, 3.122, 4.943]
    """
    ks = [check_k(k, "k") for k in ks]
    if not ks:
        raise InputError("needs at least one value", field="k")
    if (gamma is None) == (delta_target is None):
        raise InputError("give exactly one of gamma and delta (the target)", field="gamma")
    validate_parameters(ks[0], eta, eta_bar, w, b)
    method = resolve_delta_method(delta_method, fixed_gamma=gamma is not None)
    if method != "profile":
        method = _resolve_method(delta_method, int(w))
    n = len(ks)
    eps, approx, gam, dels = (np.full(n, np.nan) for _ in range(4))
    reasons: list[str] = []
    for i, k in enumerate(ks):
        try:
            r = dirichlet_privacy(k, eta, eta_bar, w, b, gamma=gamma, delta_target=delta_target,
                                  delta_method=delta_method,
                                  rtol=DEFAULT_RTOL if rtol is None else rtol)
        except InputError as exc:
            reasons.append(str(exc))
        else:
            eps[i], dels[i] = r.epsilon, r.delta
            gam[i] = np.nan if r.gamma is None else r.gamma
            approx[i] = np.nan if r.epsilon_approx is None else r.epsilon_approx
            reasons.append("")
        progress((i + 1) / n, f"k = {k:g}")
    return EpsilonVsK(k=np.array(ks), epsilon=eps, epsilon_approx=approx, gamma=gam,
                      delta=dels, delta_target=delta_target, fixed_gamma=gamma,
                      delta_method=method, reasons=tuple(reasons))


@dataclass(frozen=True, eq=False)
class ProfileCurve:
    """The exact privacy profile as ε against δ (ascending δ), with its worst pair."""

    delta: np.ndarray
    epsilon: np.ndarray
    worst_pair: tuple[float, float, float]
    exact: bool

    def __post_init__(self) -> None:
        for name in ("delta", "epsilon"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def epsilon_at(self, delta: float) -> float:
        """ε at ``delta`` by interpolation in log δ (NaN outside the curve)."""
        if self.delta.size < 2 or not self.delta[0] <= delta <= self.delta[-1]:
            return math.nan
        return float(np.interp(math.log(delta), np.log(self.delta), self.epsilon))


def profile_curve(k: float, eta: float, eta_bar: float, w: int, b: float, *,
                  n_points: int = 60, delta_range: tuple[float, float] = DELTA_RANGE
                  ) -> ProfileCurve:
    """ε(δ) of the exact privacy profile (Theorem 1.6's domain; no threshold γ).

    The certified δ(ε) of the worst pair is evaluated on an ε grid (one vectorised call),
    which gives the curve parametrically: every point (δ(ε), ε) is a valid statement.

    Parameters
    ----------
    k, eta, eta_bar, w, b :
        As in :func:`core.privacy.dirichlet_accounting.dirichlet_privacy`.
    n_points : int
        Points of the ε grid.
    delta_range : (float, float)
        The δ range kept.

    Returns
    -------
    ProfileCurve

    Examples
    --------
    >>> c = profile_curve(**FIGURE_1_1["left"])
    >>> round(c.epsilon_at(0.05), 2), c.exact
    (0.6, True)
    """
    from core.privacy.dirichlet_profile import w_profile

    k, eta, eta_bar, w, b, _ = validate_parameters(k, eta, eta_bar, w, b)
    prof = w_profile(k, eta, eta_bar, w, b)
    w_ = prof.witness
    if w_.d <= 0:  # a single-point domain: neighbours are identical, ε = 0 for every δ
        return ProfileCurve(delta=np.geomspace(*delta_range, 8), epsilon=np.zeros(8),
                            worst_pair=(w_.x, w_.y, w_.d), exact=True)
    top = prof.epsilon(delta_range[0])
    eps = np.linspace(0.0, max(top, 1e-9), int(n_points))
    dl = prof.delta(eps)
    keep = (dl > delta_range[0] * 0.999) & (dl < delta_range[1])
    order = np.argsort(dl[keep])
    return ProfileCurve(delta=dl[keep][order], epsilon=eps[keep][order],
                        worst_pair=(w_.x, w_.y, w_.d), exact=prof.exact)


def k_for_epsilon(epsilon: float, eta: float, eta_bar: float, w: int, b: float, *,
                  delta: float, k_range: tuple[float, float] = (1e-3, 1e7)) -> float | None:
    """The largest k (to 0.1 %) whose exact-profile ε at δ is at most ``epsilon``.

    Bisection in log k; the returned k is verified (its ε meets the target). None when even
    the smallest k of ``k_range`` misses the target (raise η or lower b).

    Parameters
    ----------
    epsilon : float
        The target ε.
    eta, eta_bar, w, b :
        As in :func:`core.privacy.dirichlet_accounting.dirichlet_privacy`.
    delta : float
        The target δ.
    k_range : (float, float)
        The k searched.

    Returns
    -------
    float or None

    Examples
    --------
    >>> k = k_for_epsilon(1.0, 0.15, 0.15, 3, 0.1, delta=0.05)
    >>> 10 < k < 20
    True
    """
    from core.privacy.dirichlet_profile import w_profile

    if not (math.isfinite(epsilon) and epsilon > 0):
        raise InputError(f"must be a finite number > 0, got {epsilon!r}", field="epsilon")
    validate_parameters(k_range[0], eta, eta_bar, w, b)

    def eps(k: float) -> float:
        return w_profile(k, eta, eta_bar, w, b).epsilon(delta)

    lo, hi = math.log(k_range[0]), math.log(k_range[1])
    if eps(math.exp(lo)) > epsilon:
        return None
    if eps(math.exp(hi)) <= epsilon:
        return math.exp(hi)
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        if eps(math.exp(mid)) <= epsilon:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


def accuracy_vs_k(ks: "Sequence[float] | np.ndarray", *, n: int, p: "np.ndarray | None" = None,
                  beta: float = 0.05) -> AccuracyCurve:
    """Variance bound, E‖x − p‖² (at ``p``) and α (paper, rigorous) against k (spec §3).

    Parameters
    ----------
    ks : sequence of float
        Concentrations.
    n : int
        Vector length.
    p : numpy.ndarray, optional
        A vector for E‖x − p‖².
    beta : float
        β of α.

    Returns
    -------
    AccuracyCurve

    Examples
    --------
    >>> a = accuracy_vs_k([24.0], n=2, p=np.array([0.5, 0.5]), beta=math.exp(-2))
    >>> a.variance_bound.tolist(), a.expected_sq_error.tolist(), a.alpha_paper.round(12).tolist()
    ([0.01], [0.02], [0.2])
    """
    ks_ = np.array([check_k(k, "k") for k in ks], dtype=np.float64)
    beta = check_beta(beta)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"must be an integer >= 2, got {n!r}", field="n")
    esq = None
    if p is not None:
        p = np.asarray(p, dtype=np.float64)
        if p.shape != (n,) or np.any(p < 0) or abs(float(p.sum()) - 1.0) > 1e-9:
            raise InputError(f"must be a probability vector of length n = {n}", field="p")
        esq = (1.0 - float((p ** 2).sum())) / (ks_ + 1.0)
    return AccuracyCurve(
        k=ks_, variance_bound=1.0 / (4.0 * (ks_ + 1.0)), expected_sq_error=esq,
        alpha_paper=np.sqrt(math.log(1.0 / beta) / (2.0 * (ks_ + 1.0))),
        alpha_rigorous=np.sqrt(math.log(2.0 * n / beta) / (2.0 * (ks_ + 1.0))),
        n=int(n), beta=beta)


def default_k_grid(k: float | None = None, *, per_decade: int = 3) -> np.ndarray:
    """Log-spaced k from 1 to 10⁴ (widened by whole decades to include ``k``).

    Parameters
    ----------
    k : float, optional
        A k the grid must include.
    per_decade : int
        Points per decade.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> default_k_grid()[[0, 3, -1]].tolist()
    [1.0, 10.0, 10000.0]
    """
    lo, hi = 0, 4
    if k is not None and k > 0:
        lo, hi = min(lo, math.floor(math.log10(k))), max(hi, math.ceil(math.log10(k)))
    return np.logspace(lo, hi, per_decade * (hi - lo) + 1)


# --------------------------------------------------------------------------- warnings
_WARNING_FIELDS = (
    (re.compile(r"printed proof"), "delta_method"),  # exact / mc rest on Lemma 1.2
    (re.compile(r"Lemma 1\.2"), "k"),  # k·eta or k·eta_bar < 1
    (re.compile(r"\(1\.21\)|corrected v2"), "b"),  # eta + b/2 > (1 - eta_bar)/2
    (re.compile(r"Lemma 1\.7"), "epsilon_approx"),
    (re.compile(r"vertex B"), "delta"),
)


def warning_field(message: str) -> str:
    """Which parameter (or result) a warning of the accountant concerns.

    ``"delta_method"`` (the method rests on Lemma 1.2, unproven), ``"k"`` (kη, kη̄ < 1),
    ``"b"`` (the corrected v₂), ``"epsilon_approx"`` (Lemma 1.7 not applicable),
    ``"delta"`` (vertex B minimises) or ``""`` if unknown.

    Parameters
    ----------
    message : str
        A warning of :func:`~core.privacy.dirichlet_accounting.dirichlet_privacy`.

    Returns
    -------
    str

    Examples
    --------
    >>> r = dirichlet_privacy(3.0, 0.15, 0.15, 3, 0.1, gamma=0.01)
    >>> [warning_field(w) for w in r.warnings]
    ['k', 'epsilon_approx']
    """
    for pattern, name in _WARNING_FIELDS:
        if pattern.search(message):
            return name
    return ""


# --------------------------------------------------------------------------- calculator
@dataclass(frozen=True)
class CalculatorInputs:
    """One set of calculator parameters (a snapshot handed to a worker).

    Exactly one of ``delta_target`` (solve γ*) and ``gamma`` (fixed) is set. ``beta``
    and ``n`` (default |W| + 1) only enter the accuracy figures.
    """

    k: float
    eta: float
    eta_bar: float
    w: int
    b: float
    delta_target: float | None = 0.05
    gamma: float | None = None
    delta_method: str = "auto"
    beta: float = 0.05
    n: int | None = None

    @property
    def n_entries(self) -> int:
        return self.n if self.n is not None else self.w + 1

    def check(self) -> tuple[tuple[str, str], ...]:
        """Validate cheaply (no δ evaluation); return the warnings as (field, text).

        Raises :class:`InputError` naming the parameter and its admissible range.

        Examples
        --------
        >>> CalculatorInputs(6.7, 0.15, 0.15, 3, 0.1).check()
        ()
        >>> CalculatorInputs(6.7, 0.6, 0.5, 3, 0.1).check()
        Traceback (most recent call last):
        ...
        core.common.errors.InputError: eta_bar: eta + eta_bar must be < 1, got 1.1
        """
        k, eta, eta_bar, w, b, warns = validate_parameters(self.k, self.eta, self.eta_bar,
                                                           self.w, self.b)
        if _resolve_method(self.delta_method, w, vertex_premise(k, eta, eta_bar)) != "union":
            warns.append(LEMMA_1_2_WARNING)  # exact / mc: the vertex reduction, unproven
        if (self.gamma is None) == (self.delta_target is None):
            raise InputError("give exactly one of gamma and delta (the target)", field="gamma")
        if self.gamma is not None and not 0 < self.gamma < 1.0 / w:
            raise InputError(f"must lie in (0, 1/|W|) = (0, {1.0 / w:.6g}), got {self.gamma:g}",
                             field="gamma")
        if self.delta_target is not None and not 0 < self.delta_target < 1:
            raise InputError(f"must lie in (0, 1), got {self.delta_target:g}", field="delta")
        check_beta(self.beta)
        if self.n is not None and self.n < w + 1:
            raise InputError(f"must be >= |W| + 1 = {w + 1} (W is a subset of the first "
                             f"n - 1 entries), got {self.n}", field="n")
        return tuple((warning_field(m), m) for m in warns)


@dataclass(frozen=True, eq=False)
class CalculatorResult:
    """Everything the calculator shows for one :class:`CalculatorInputs`.

    ``point`` and ``curve`` use the chosen δ method. ``points`` and ``curves`` hold the
    same by method: ``"union"`` (proven) always, ``"exact"`` (the vertex reduction of
    Lemma 1.2, as in Figure 1.1; unproven) where it applies (|W| <= 3, kη >= 1, kη̄ >= 1),
    and ``"mc"`` when chosen — so the proven statement and the source's can be compared.
    """

    inputs: CalculatorInputs
    point: DirichletPrivacy
    curve: EpsilonDeltaCurve
    delta_gamma: DeltaGammaCurve
    accuracy: AccuracyCurve
    warnings: tuple[tuple[str, str], ...] = field(default=())
    elapsed_s: float = 0.0
    points: dict[str, DirichletPrivacy] = field(default_factory=dict)
    curves: dict[str, EpsilonDeltaCurve] = field(default_factory=dict)
    # the default accountant: ε at δ̂ of the exact privacy profile and its ε–δ curve
    # (None at a fixed γ: the profile has no threshold)
    profile: DirichletPrivacy | None = None
    profile_curve: ProfileCurve | None = None


def evaluate_calculator(inputs: CalculatorInputs, *, n_points: int = 40,
                        ks: "Sequence[float] | None" = None,
                        progress: Progress = no_progress) -> CalculatorResult:
    """The calculator's point results, ε–δ and δ–γ curves and accuracy curves.

    δ(γ) is evaluated once per method on one grid and shared by the ε–δ curves and the
    δ–γ plot. ``ks`` is the k grid of the accuracy curves (default :func:`default_k_grid`
    with 10 points per decade). ``progress`` is called between the stages (and may cancel).

    Parameters
    ----------
    inputs : CalculatorInputs
        k, η, η̄, |W|, b, δ̂ or γ, and the δ method.
    n_points : int
        Points of the curves.
    ks : sequence of float, optional
        The accuracy curves' k grid.
    progress : callable
        Called between stages.

    Returns
    -------
    CalculatorResult

    Examples
    --------
    >>> r = evaluate_calculator(CalculatorInputs(**FIGURE_1_1["left"]), n_points=12)
    >>> round(r.profile.epsilon, 4), round(r.point.epsilon, 4), r.point.delta_method
    (0.5994, 2.5208, 'union')
    >>> sorted(r.curves)
    ['exact', 'union']
    >>> round(r.points["exact"].epsilon, 4)  # Figure 1.1 / spec §4.3 (Lemma 1.2, unproven)
    2.5161
    """
    import time

    t0 = time.perf_counter()
    inputs.check()
    progress(0.0, "ε, δ at the chosen γ")
    def at(method: str, rtol: float = DEFAULT_RTOL) -> DirichletPrivacy:
        return dirichlet_privacy(inputs.k, inputs.eta, inputs.eta_bar, inputs.w, inputs.b,
                                 gamma=inputs.gamma, delta_target=inputs.delta_target,
                                 delta_method=method, rtol=rtol)

    point = at("union" if inputs.delta_method in ("auto", "profile") else inputs.delta_method)
    method = point.delta_method
    prof = prof_curve = None
    if inputs.delta_target is not None:
        prof = at("profile")
        prof_curve = profile_curve(inputs.k, inputs.eta, inputs.eta_bar, inputs.w, inputs.b)
    k, eta, eta_bar, w, b = point.k, point.eta, point.eta_bar, point.w, point.b
    has_exact = w <= EXACT_MAX_W and vertex_premise(k, eta, eta_bar)
    points = {method: point}
    for other in ("union", "exact") if has_exact else ("union",):
        if other not in points:  # the comparison row: curve precision (conservative)
            points[other] = at(other, CURVE_RTOL)
    progress(0.25, "δ(γ) on the grid")
    gammas = gamma_grid(k, eta, eta_bar, w, n_points=n_points)
    deltas: dict[str, np.ndarray] = {"union": delta_on_grid(k, eta, eta_bar, w, gammas,
                                                             "union")}
    if w <= EXACT_MAX_W:
        deltas["exact"] = delta_on_grid(k, eta, eta_bar, w, gammas, "exact", rtol=CURVE_RTOL)
    progress(0.8, "ε(γ)")
    if method == "mc":
        deltas["mc"] = delta_on_grid(k, eta, eta_bar, w, gammas, "mc")
    curves = {m: _curve_from(k, eta, eta_bar, w, b, gammas, deltas[m], m)
              for m in points}
    curve = curves[method]
    # the δ–γ plot passes through the chosen γ (which may lie below the grid's floor, e.g.
    # γ* ~ 1e-114 at k = 0.1), so that its marker sits on the curve, not beside it
    extra = _gammas_to_reach(gammas, point.gamma)
    if extra.size:
        order = np.argsort(np.concatenate([gammas, extra]), kind="stable")
        dg_gamma = np.concatenate([gammas, extra])[order]
        dg_delta = {m: np.concatenate([d, delta_on_grid(k, eta, eta_bar, w, extra, m,
                                                        rtol=CURVE_RTOL)])[order]
                    for m, d in deltas.items()}
    else:
        dg_gamma, dg_delta = gammas, deltas
    dg = DeltaGammaCurve(gamma=dg_gamma, union=dg_delta["union"], exact=dg_delta.get("exact"),
                         mc=dg_delta.get("mc"))
    grid = default_k_grid(k, per_decade=10) if ks is None else ks
    n = inputs.n_entries
    acc = accuracy_vs_k(grid, n=n, p=np.full(n, 1.0 / n), beta=inputs.beta)
    progress(1.0, "done")
    return CalculatorResult(inputs=inputs, point=point, curve=curve, delta_gamma=dg,
                            accuracy=acc,
                            warnings=tuple((warning_field(m), m) for m in point.warnings),
                            elapsed_s=time.perf_counter() - t0, points=points, curves=curves,
                            profile=prof, profile_curve=prof_curve)
