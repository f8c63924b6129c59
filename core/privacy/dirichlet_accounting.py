"""(ε, δ) of the Dirichlet mechanism: Theorem 1.6 with the spec's corrections.

ε (Theorem 1.6 / Lemma 1.4) with the corrected v₂ of spec §2.6:
``v₂ = g(η) − g(min(η + b/2, (1−η̄)/2))``, ``g(x) = log B(kx, k(1−η̄−x))``;
``v₁ = (kb/2)·log((1−(|W|−1)γ)/γ)``; ``ε = v₁ + v₂``.

δ (eq. 1.13) = 1 − min over the domain's vertices of P[Dir_k(p) ∈ Ω₁]. Only two vertex
types exist (spec §2.4): A (all W-entries at η) and B (one W-entry at 1−η̄−(|W|−1)η).
Three ways to compute it, and the result always says which:

* ``"exact"`` (|W| ≤ 3): the Dirichlet stick-breaking recursion of spec §2.5, integrated
  by composite Gauss–Legendre quadrature whose panels sit at fixed quantiles of each
  level's Beta marginal (vectorised; validated against nested adaptive quadrature);
* ``"union"`` (any |W|): the rigorous bound ``|W|·I_γ(kη, k(1−η))``;
* ``"mc"``: Monte Carlo at both vertices with a one-sided 95 % Clopper–Pearson upper
  limit, labelled "estimated".

γ* for a target δ̂ solves the corrected problem (1.23): the *largest* γ with
δ(γ) ≤ δ̂, by root-finding in log γ.

References
----------
Gohari, *Engineering AI Systems for Privacy*, ch. 1 (Theorem 1.6, Lemmas 1.1–1.7,
problem 1.23); PrivPlan spec ``dirichlet-and-policy-synthesis.md`` §2.

Examples
--------
>>> r = dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, gamma=0.01)
>>> round(r.epsilon, 6), round(r.delta, 6), r.delta_method
(2.114192, 0.156845, 'exact')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import betainc, betaincinv, betaln
from scipy.stats import beta as beta_dist

from core._validation import InputError

__all__ = ["DELTA_METHODS", "DirichletPrivacy", "dirichlet_privacy", "dirichlet_epsilon",
           "dirichlet_delta", "prob_all_above", "vertex_parameters", "union_delta",
           "clear_caches"]

DELTA_METHODS = ("auto", "exact", "union", "mc")
EXACT_MAX_W = 3
_QUANTILES = np.array([1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85,
                       0.95, 0.99, 0.999, 1 - 1e-4, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])
_GRADE = 2.0 ** -np.arange(1, 7)
_GRADE_FINE = 2.0 ** -np.arange(1, 41, 1.5)
# 6-point Gauss-Legendre per panel: worst |error| 3e-8 against nested adaptive quadrature
# (tol 1e-13) over k in [4.1, 1e4], |W| in {2, 3}, gamma in [1e-8, 0.3], both vertices.
_GL_T, _GL_W = np.polynomial.legendre.leggauss(6)

DELTA_LABELS = {
    "exact": "exact (nested quadrature at both vertex types)",
    "union": "rigorous upper bound (union bound over W)",
    "mc": "estimated (Monte Carlo, 95% Clopper-Pearson upper limit)",
}


# --------------------------------------------------------------------------- δ numerics
def prob_all_above(a_w: tuple[float, ...], a_r: float, gamma: "np.ndarray | float") -> np.ndarray:
    """P[x_i ≥ γ for all i ≤ m] for (x_1..x_m, r) ~ Dir(a_w, a_r); vectorised over γ.

    Examples
    --------
    >>> round(float(prob_all_above((1.0, 1.0, 1.0), 1.0, 0.1)[0]), 12)  # uniform: (1 − 3γ)³
    0.343
    """
    g = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    return _prob(tuple(float(a) for a in a_w), float(a_r), g)


@lru_cache(maxsize=64)
def _breaks(a: float, b: float) -> np.ndarray:
    return betaincinv(a, b, _QUANTILES)


def _prob(a_w: tuple[float, ...], a_r: float, g: np.ndarray) -> np.ndarray:
    m = len(a_w)
    out = np.zeros_like(g)
    if m == 1:
        ok = g < 1.0
        out[ok] = betainc(a_r, a_w[0], 1.0 - g[ok])
        return out
    a1 = a_w[0]
    b1 = sum(a_w) + a_r - a1
    upper = 1.0 - (m - 1) * g
    ok = upper > g
    if not ok.any():
        return out
    lo_lim, hi_lim = g[ok][:, None], upper[ok][:, None]
    span = hi_lim - lo_lim
    grade_lo = _GRADE_FINE if a1 < 1.0 else _GRADE
    # At the last level the inner factor I_{1-g/(1-x)}(a_r, a_2) behaves like
    # (upper - x)^{a_r} at the upper limit: grade finely there when a_r < 1.
    grade_hi = _GRADE_FINE if m == 2 and a_r < 1.0 else _GRADE
    br = np.concatenate([lo_lim, hi_lim, np.clip(_breaks(a1, b1)[None, :], lo_lim, hi_lim),
                         hi_lim - span * grade_hi[None, :], lo_lim + span * grade_lo[None, :]],
                        axis=1)
    br.sort(axis=1)
    lo, hi = br[:, :-1], br[:, 1:]
    half = (hi - lo)[:, :, None] / 2.0
    x = lo[:, :, None] + half * (_GL_T + 1.0)
    x = np.clip(x, 1e-300, 1.0 - 1e-16)
    logpdf = (a1 - 1.0) * np.log(x) + (b1 - 1.0) * np.log1p(-x) - betaln(a1, b1)
    inner = _prob(a_w[1:], a_r, (lo_lim[:, :, None] / (1.0 - x)).ravel()).reshape(x.shape)
    out[ok] = (np.exp(logpdf) * inner * half * _GL_W).sum(axis=(1, 2))
    return np.clip(out, 0.0, 1.0)


def vertex_parameters(k: float, eta: float, eta_bar: float, w: int
                      ) -> dict[str, tuple[tuple[float, ...], float]]:
    """Aggregated Dirichlet parameters (a_W, a_rest) at vertex types A and B (spec §2.4)."""
    a = ((k * eta,) * w, k * (1.0 - w * eta))
    b = ((k * (1.0 - eta_bar - (w - 1) * eta),) + (k * eta,) * (w - 1), k * eta_bar)
    return {"A": a, "B": b}


def union_delta(k: float, eta: float, w: int, gamma: "np.ndarray | float") -> np.ndarray:
    """The rigorous union bound δ ≤ |W|·I_γ(kη, k(1−η)) (spec §2.5 (a))."""
    return np.minimum(1.0, w * betainc(k * eta, k * (1.0 - eta), np.asarray(gamma, float)))


def _mc_minima(k: float, eta: float, eta_bar: float, w: int, draws: int, seed: int
               ) -> list[np.ndarray]:
    """min over W of every draw, per vertex (A, B): the same draws for every γ."""
    rng = np.random.default_rng(seed)
    return [rng.dirichlet(np.array([*a_w, a_r]), size=draws)[:, :w].min(axis=1)
            for a_w, a_r in vertex_parameters(k, eta, eta_bar, w).values()]


def _cp_upper(fails: int, draws: int) -> float:
    """One-sided 95% Clopper–Pearson upper limit of a failure probability."""
    return 1.0 if fails >= draws else float(beta_dist.ppf(0.95, fails + 1, draws - fails))


def _mc_delta(k: float, eta: float, eta_bar: float, w: int, gamma: float, draws: int,
              seed: int) -> tuple[float, float]:
    """(point estimate, one-sided 95% Clopper–Pearson upper limit), worst vertex."""
    worst = (0.0, 0.0)
    for m in _mc_minima(k, eta, eta_bar, w, draws, seed):
        fails = int((m < gamma).sum())
        upper = _cp_upper(fails, draws)
        if upper > worst[1]:
            worst = (fails / draws, upper)
    return worst


def _mc_root(k: float, eta: float, eta_bar: float, w: int, target: float, draws: int,
             seed: int) -> float:
    """Largest γ whose Monte Carlo δ (the Clopper–Pearson upper limit) is <= δ̂.

    The draws are the same at every γ (fixed seed), so a vertex fails #{draws with
    min_W x < γ} times: γ* is the (f+1)-th smallest minimum, f the largest failure count
    whose upper limit is <= δ̂, taken at both vertices.
    """
    lo, hi = -1, draws  # _cp_upper(lo) <= δ̂ < _cp_upper(hi), with lo = -1 meaning none
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _cp_upper(mid, draws) <= target:
            lo = mid
        else:
            hi = mid
    if lo < 0:
        raise InputError(f"{draws} Monte Carlo draws cannot show delta <= {target:g}; use more "
                         "draws or the union bound", field="delta")
    g = min(float(np.partition(m, lo)[lo]) for m in _mc_minima(k, eta, eta_bar, w, draws, seed))
    g = min(g, (1.0 / w) * (1 - 1e-12))
    if not g > 0:
        raise InputError(f"no gamma in (0, 1/|W|) gives delta <= {target:g} (Monte Carlo)",
                         field="delta")
    return g


def dirichlet_delta(k: float, eta: float, eta_bar: float, w: int, gamma: float, *,
                    method: str = "exact", mc_draws: int = 200_000, mc_seed: int = 0
                    ) -> dict[str, float]:
    """δ(γ) by one method; for ``exact`` also the two vertex values (memoised)."""
    return dict(_delta_cached(float(k), float(eta), float(eta_bar), int(w), float(gamma),
                              method, int(mc_draws), int(mc_seed)))


@lru_cache(maxsize=256)
def _delta_cached(k: float, eta: float, eta_bar: float, w: int, gamma: float, method: str,
                  mc_draws: int, mc_seed: int) -> tuple[tuple[str, float], ...]:
    return tuple(_delta(k, eta, eta_bar, w, gamma, method, mc_draws, mc_seed).items())


def _delta(k: float, eta: float, eta_bar: float, w: int, gamma: float, method: str,
           mc_draws: int, mc_seed: int) -> dict[str, float]:
    if method == "union":
        return {"delta": float(union_delta(k, eta, w, gamma))}
    if method == "mc":
        est, upper = _mc_delta(k, eta, eta_bar, w, gamma, mc_draws, mc_seed)
        return {"delta": upper, "delta_estimate": est}
    # Every exact δ is at most the rigorous union bound; where quadrature loses accuracy
    # (γ far below 1e-12 with kη < 1) the bound keeps the reported δ valid.
    ub = float(union_delta(k, eta, w, gamma))
    da, db = (min(_vertex_delta(k, eta, eta_bar, w, v, gamma), ub) for v in ("A", "B"))
    return {"delta": max(da, db), "delta_vertex_A": da, "delta_vertex_B": db}


@lru_cache(maxsize=512)
def _vertex_delta(k: float, eta: float, eta_bar: float, w: int, vertex: str, gamma: float
                  ) -> float:
    """1 − P[Dir ∈ Ω₁] at one vertex type (memoised: γ* solves and δ share evaluations)."""
    a_w, a_r = vertex_parameters(k, eta, eta_bar, w)[vertex]
    return 1.0 - float(prob_all_above(a_w, a_r, gamma)[0])


def clear_caches() -> None:
    """Forget memoised δ evaluations and quadrature breakpoints (for benchmarks)."""
    for fn in (_delta_cached, _vertex_delta, _breaks):
        fn.cache_clear()


# --------------------------------------------------------------------------- ε
def _v2(k: float, eta: float, eta_bar: float, b: float) -> float:
    def g(x: float) -> float:
        return float(betaln(k * x, k * (1.0 - eta_bar - x)))

    return g(eta) - g(min(eta + b / 2.0, (1.0 - eta_bar) / 2.0))


def _v1(k: float, b: float, w: int, gamma: float) -> float:
    return (k * b / 2.0) * math.log((1.0 - (w - 1) * gamma) / gamma)


def dirichlet_epsilon(k: float, eta: float, eta_bar: float, w: int, b: float, gamma: float
                      ) -> float:
    """ε of Theorem 1.6 with the corrected v₂ (no validation; see :func:`dirichlet_privacy`)."""
    return _v2(k, eta, eta_bar, b) + _v1(k, b, w, gamma)


def _epsilon_approx(k: float, eta: float, eta_bar: float, b: float, v1: float) -> float | None:
    a, c = k * eta, k * (1.0 - eta_bar - eta)
    if min(a, c, k * (eta + b / 2.0), k * (1.0 - eta_bar - eta - b / 2.0)) <= 1.0:
        return None
    return (math.log(a + c - 1) - math.log(2 * a - 1) - math.log(2 * c - 1)) \
        - (2.0 - k * (1.0 - eta_bar)) + v1


# --------------------------------------------------------------------------- result
@dataclass(frozen=True)
class DirichletPrivacy:
    """The (ε, δ) guarantee of Dir_k for b-adjacent inputs in Δ_{n,W}^{(η,η̄)}."""

    epsilon: float
    delta: float
    gamma: float
    epsilon_approx: float | None
    delta_method: str
    delta_label: str
    v1: float
    v2: float
    k: float
    eta: float
    eta_bar: float
    w: int
    b: float
    delta_target: float | None = None
    delta_vertex_A: float | None = None
    delta_vertex_B: float | None = None
    delta_estimate: float | None = None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"epsilon": self.epsilon, "delta": self.delta, "gamma": self.gamma,
                "epsilon_approx": self.epsilon_approx, "delta_method": self.delta_method,
                "delta_label": self.delta_label, "v1": self.v1, "v2": self.v2, "k": self.k,
                "eta": self.eta, "eta_bar": self.eta_bar, "w": self.w, "b": self.b,
                "delta_target": self.delta_target, "delta_vertex_A": self.delta_vertex_A,
                "delta_vertex_B": self.delta_vertex_B, "delta_estimate": self.delta_estimate,
                "warnings": list(self.warnings)}


def _finite(x: object, name: str) -> float:
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {x!r}", field=name) from None
    if not math.isfinite(v):
        raise InputError(f"must be finite, got {x!r}", field=name)
    return v


def validate_parameters(k: object, eta: object, eta_bar: object, w: object, b: object
                        ) -> tuple[float, float, float, int, float, list[str]]:
    """Spec §2.9 checks: errors name the parameter and its admissible range."""
    k_, eta_, eb_, b_ = (_finite(k, "k"), _finite(eta, "eta"), _finite(eta_bar, "eta_bar"),
                         _finite(b, "b"))
    if k_ <= 0:
        raise InputError(f"must be > 0, got {k_:g}", field="k")
    if not 0 < eta_ < 1:
        raise InputError(f"must lie in (0, 1), got {eta_:g}", field="eta")
    if not 0 < eb_ < 1:
        raise InputError(f"must lie in (0, 1), got {eb_:g}", field="eta_bar")
    if eta_ + eb_ >= 1:
        raise InputError(f"eta + eta_bar must be < 1, got {eta_ + eb_:g}", field="eta_bar")
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or int(w) < 2:
        raise InputError(f"|W| must be an integer >= 2, got {w!r}", field="w")
    w_ = int(w)
    if not 0 < b_ <= 1:
        raise InputError(f"must lie in (0, 1], got {b_:g}", field="b")
    if w_ * eta_ + eb_ > 1 + 1e-12:
        raise InputError(f"the domain is empty: |W|·eta + eta_bar = {w_ * eta_ + eb_:g} > 1 "
                         f"(need eta <= {(1 - eb_) / w_:.6g})", field="eta")
    warnings = []
    if k_ * eta_ < 1 or k_ * eb_ < 1:
        warnings.append(f"k·eta = {k_ * eta_:.4g} and k·eta_bar = {k_ * eb_:.4g} should both be "
                        ">= 1 (premise of Lemma 1.2): below it the vertex minimisation for delta "
                        "is unproven")
    if eta_ + b_ / 2 > (1 - eb_) / 2:
        warnings.append("eta + b/2 > (1 - eta_bar)/2: the source's formula (1.21) would "
                        "under-state epsilon here; the corrected v2 is used")
    return k_, eta_, eb_, w_, b_, warnings


def dirichlet_privacy(k: float, eta: float, eta_bar: float, w: int, b: float, *,
                      gamma: float | None = None, delta_target: float | None = None,
                      delta_method: str = "auto", mc_draws: int = 200_000, mc_seed: int = 0
                      ) -> DirichletPrivacy:
    """(ε, δ) of the Dirichlet mechanism at a given γ, or at the best γ* for a target δ̂.

    Parameters
    ----------
    k : float
        Concentration; larger k is more accurate and *less* private.
    eta, eta_bar : float
        Lower bounds: every entry in W is >= eta; the entries outside W sum to >= eta_bar.
    w : int
        |W|, the number of entries that may change (>= 2).
    b : float
        Adjacency radius in (0, 1]: neighbours differ by at most b in L1.
    gamma : float, optional
        The Ω₁ threshold in (0, 1/|W|). Give exactly one of ``gamma`` and ``delta_target``.
    delta_target : float, optional
        δ̂ in (0, 1): γ* = max{γ : δ(γ) <= δ̂}.
    delta_method : {"auto", "exact", "union", "mc"}
        ``auto`` is exact for |W| <= 3, else the union bound.
    """
    k, eta, eta_bar, w, b, warnings = validate_parameters(k, eta, eta_bar, w, b)
    if delta_method not in DELTA_METHODS:
        raise InputError(f"must be one of {', '.join(DELTA_METHODS)}, got {delta_method!r}",
                         field="delta_method")
    method = delta_method if delta_method != "auto" else (
        "exact" if w <= EXACT_MAX_W else "union")
    if method == "exact" and w > EXACT_MAX_W:
        raise InputError(f"exact is available for |W| <= {EXACT_MAX_W}; use union or mc "
                         f"(|W| = {w})", field="delta_method")
    if (gamma is None) == (delta_target is None):
        raise InputError("give exactly one of gamma and delta (the target)", field="gamma")
    if gamma is not None:
        gamma = _finite(gamma, "gamma")
        if not 0 < gamma < 1.0 / w:
            raise InputError(f"must lie in (0, 1/|W|) = (0, {1.0 / w:.6g}), got {gamma:g}",
                             field="gamma")
    else:
        delta_target = _finite(delta_target, "delta")
        if not 0 < delta_target < 1:
            raise InputError(f"must lie in (0, 1), got {delta_target:g}", field="delta")
        gamma = _solve_gamma(k, eta, eta_bar, w, delta_target, method, mc_draws, mc_seed)
    d = dirichlet_delta(k, eta, eta_bar, w, gamma, method=method, mc_draws=mc_draws,
                        mc_seed=mc_seed)
    v1, v2 = _v1(k, b, w, gamma), _v2(k, eta, eta_bar, b)
    approx = _epsilon_approx(k, eta, eta_bar, b, v1)
    if approx is None:
        warnings.append("Lemma 1.7's simplified epsilon needs k·eta, k(1-eta_bar-eta) and the "
                        "shifted shapes > 1; not available here")
    if method == "exact" and d["delta_vertex_B"] > d["delta_vertex_A"] + 1e-12:
        warnings.append("vertex B is the minimiser here (vertex A usually is)")
    return DirichletPrivacy(
        epsilon=v1 + v2, delta=d["delta"], gamma=gamma, epsilon_approx=approx,
        delta_method=method, delta_label=DELTA_LABELS[method], v1=v1, v2=v2, k=k, eta=eta,
        eta_bar=eta_bar, w=w, b=b, delta_target=delta_target,
        delta_vertex_A=d.get("delta_vertex_A"), delta_vertex_B=d.get("delta_vertex_B"),
        delta_estimate=d.get("delta_estimate"), warnings=tuple(warnings))


def _solve_gamma(k: float, eta: float, eta_bar: float, w: int, target: float, method: str,
                 mc_draws: int, mc_seed: int) -> float:
    """γ* = sup{γ ∈ (0, 1/|W|) : δ(γ) <= δ̂}: δ increases from 0 to 1 on that interval."""
    top = 1.0 / w

    def f(t: float) -> float:
        return dirichlet_delta(k, eta, eta_bar, w, math.exp(t), method=method,
                               mc_draws=mc_draws, mc_seed=mc_seed)["delta"] - target

    # The union bound has a closed-form root; it is >= every exact δ, so for the exact
    # method its root is the lower end of the bracket (an MC upper limit may exceed it).
    g_union = _union_root(k, eta, w, target)
    # betaincinv returns the smallest normal float when the root underflows (k·eta << 1)
    if not g_union > 0 or union_delta(k, eta, w, g_union) > target * (1 + 1e-6):
        raise InputError(f"no gamma in (0, 1/|W|) gives delta <= {target:g}: k·eta = "
                         f"{k * eta:.3g} is too small", field="delta")
    lo = math.log(g_union)
    if method == "union":
        t = lo
    elif method == "mc":  # a step function of γ: solved on the draws themselves
        return _mc_root(k, eta, eta_bar, w, target, mc_draws, mc_seed)
    else:
        # δ = max(δ_A, δ_B), both increasing in γ, so γ* = min(root_A, root_B): solve at
        # vertex A (the usual maximiser) and check B once, which halves the work.
        # Secant steps on log δ against log γ (nearly linear: δ ~ C·γ^{kη} for small γ),
        # from the union-bound root; a bracket is kept so brentq can finish if needed.
        def at(vertex: str) -> Callable[[float], float]:
            return lambda u: _vertex_delta(k, eta, eta_bar, w, vertex, math.exp(u)) - target

        t = _secant_root(at("A"), lo, math.log(top * (1 - 1e-12)), target)
        if at("B")(t) > 0:  # vertex B binds first: its root lies below A's
            t = _secant_root(at("B"), lo, t, target)
    for _ in range(60):  # the root may sit a rounding error above δ̂: step just inside
        if f(t) <= 0:
            return math.exp(t)
        t -= 1e-12 * max(1.0, abs(t))
    # Not verified (numerical trouble): the union root is valid for every method but MC,
    # since exact δ <= union bound <= target there.
    t = lo
    while f(t) > 0:
        t -= 1e-9 * max(1.0, abs(t))
        if t < -745:
            raise InputError(f"no gamma could be verified for delta <= {target:g}",
                             field="delta")
    return math.exp(t)


def _secant_root(f: Callable[[float], float], lo: float, hi: float, target: float) -> float:
    f_lo = f(lo)
    if f_lo >= 0:  # the bound and the exact value agree to roundoff
        return lo
    t0, h0 = lo, math.log(f_lo + target) - math.log(target)
    t1 = min(lo + 0.1, (lo + hi) / 2)
    for _ in range(8):
        f1 = f(t1)
        if f1 >= 0:
            hi = min(hi, t1)
        else:
            lo = max(lo, t1)
        if abs(f1) <= 1e-12 * target:
            return t1
        h1 = math.log(max(f1 + target, 1e-300)) - math.log(target)
        if h1 == h0 or not math.isfinite(h1):
            break
        t_next = t1 - h1 * (t1 - t0) / (h1 - h0)
        t0, h0 = t1, h1
        if abs(t_next - t1) < 1e-9:
            return t_next
        t1 = t_next if lo < t_next < hi else (lo + hi) / 2
    return float(brentq(f, lo, hi, xtol=1e-11, rtol=1e-11))


def _union_root(k: float, eta: float, w: int, target: float) -> float:
    """γ where the union bound equals δ̂ (closed form via the inverse incomplete beta)."""
    return float(min(betaincinv(k * eta, k * (1.0 - eta), target / w), (1.0 / w) * (1 - 1e-12)))
