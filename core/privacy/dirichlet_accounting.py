"""(ε, δ) of the Dirichlet mechanism: Theorem 1.6 with the spec's corrections.

Size: one proof's computation (Theorem 1.6): ε, the three δ bounds, the certified γ search and
their caches; apart, a bound would sit away from the lemma it relies on.

ε (Theorem 1.6 / Lemma 1.4) with the corrected v₂ of spec §2.6:
``v₂ = g(η) − g(min(η + b/2, (1−η̄)/2))``, ``g(x) = log B(kx, k(1−η̄−x))``;
``v₁ = (kb/2)·log((1−(|W|−1)γ)/γ)``; ``ε = v₁ + v₂``.

δ must bound P[Dir_k(p) ∈ Ω₂] = 1 − P[Dir_k(p) ∈ Ω₁] for *every* p of the domain
(eq. 1.13). Three ways to bound it; the result always says which (``delta_method``,
``delta_label``), and ``"auto"`` — the default everywhere — is the union bound:

* ``"union"`` (the default, any |W|; **proven**): P[Ω₂] <= Σ_{i∈W} P[x_i < γ] =
  Σ_i I_γ(kp_i, k(1−p_i)) <= |W|·I_γ(kη, k(1−η)), because the marginal x_i is
  Beta(kp_i, k(1−p_i)), Beta(a, k−a) is stochastically increasing in a, and p_i >= η on
  the domain. It holds at every input, for every k and η, with no lemma (plus a 1e-12
  relative allowance for the floating-point error of ``betainc``).
* ``"exact"`` (|W| <= 3; **rests on an unproven lemma**): the source's *vertex reduction*,
  δ = 1 − min over the domain's vertices of P[Dir_k(p) ∈ Ω₁]. Only two vertex types exist
  (spec §2.4): A (all W-entries at η) and B (one W-entry at 1−η̄−(|W|−1)η). Its value is a
  certified upper bound of the *vertex* probability (the upper end of a rigorous bracket:
  inclusion–exclusion over corner probabilities, each bracketed by Jensen/chord bounds on
  exact incomplete-beta panel weights, with an explicit floating-point allowance; see the
  "certified δ" section below). What is not proven is that the vertices are the worst
  inputs. That is [D] Lemma 1.2: P[Dir_k(p) ∈ Ω₁] is log-concave in p (for kη, kη̄ >= 1),
  hence quasi-concave, hence minimal at a vertex of the polytope. Its printed proof applies
  Prékopa's theorem (a marginal of a *jointly* log-concave function is log-concave) to
  f(x, p) = Π_{i∈W} x_i^{kp_i−1}·(1−Σ_W x)^{k(1−Σ_W p)−1} / B(kp̃_W). But f is not jointly
  log-concave in (x, p): in the (p_i, x_i) block of the Hessian of log f, ∂²/∂x_i² =
  −(kp_i−1)/x_i², ∂²/∂p_i² = −k²ψ₁(kp_i), ∂²/∂x_i∂p_i = k/x_i, with determinant
  (k/x_i)²·((kp_i−1)·ψ₁(kp_i) − 1) < 0 for every kp_i > 0 (ψ₁(a) < 1/(a−1) for a > 1).
  With the remainder coordinate r = 1 − Σ_W x (shape kp_r) the minor becomes
  (k/x_i)²·((kp_i−1)(ψ₁(kp_i) + ψ₁(kp_r)) − 1) + O(1/x_i) as x_i → 0, still negative
  whenever kp_i is near 1, as on Figure 1.1's domains (kη = 1.005 … 1.025): at Figure 1.1
  left's vertex A (k = 6.7, p_W = (0.15, 0.15, 0.15)) and x_i = 0.01 it is ≈ −4.5e5 (the
  other two x's anywhere in [0.01, 0.3]). So the Hessian has a positive direction, the
  premise of Prékopa's theorem fails, and the lemma is left without a proof (its
  conclusion may still be true). No counterexample is known: random interior points never
  beat the vertex numerically (tests/core/privacy/test_dirichlet_rigor.py), but numerically
  supported is not proven. So ``exact`` is a named option, kept to reproduce the source
  (Figure 1.1, spec §4.3), and its result carries that as a warning. It needs the
  lemma's premise kη >= 1 and kη̄ >= 1; without it the union bound is reported.
* ``"mc"``: Monte Carlo at both vertices with a one-sided 95 % Clopper–Pearson upper
  limit, labelled "estimated"; it evaluates the vertices only, so it rests on Lemma 1.2
  as well (and carries the same warning).

γ* for a target δ̂ solves the corrected problem (1.23): the *largest* γ with
δ(γ) <= δ̂, on the same δ that is reported (closed form via ``betaincinv`` for the union
bound; root-finding in log γ on the certified vertex value for ``exact``), and verified
(δ(γ*) <= δ̂ always holds for the value returned). Any δ̂ in (0, 1) works or is refused
with an InputError (targets below 1e-299, or unreachable when kη is tiny).

:func:`support_privacy` is the within-support analysis used for MDP rows: every support
entry (the last one included) may change, all of them are >= η, Ω₁ constrains all of
them; its docstring has the derivation. Its default δ is the union bound over the n
entries, n·I_γ(kη, k(1−η)), proven the same way.

:func:`prob_all_above` (composite Gauss–Legendre quadrature of 1 − δ) is kept as a fast
*estimate* only; no reported δ uses it.

References
----------
Gohari, *Engineering AI Systems for Privacy*, ch. 1 (Theorem 1.6, Lemmas 1.1–1.7,
problem 1.23); Prékopa (1973), Theorem 3; ``docs/reference-values.md``
chapter D, §2.

Examples
--------
>>> r = dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, gamma=0.01)  # default: proven
>>> round(r.epsilon, 6), round(r.delta, 6), r.delta_method
(2.114192, 0.164226, 'union')
>>> e = dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, gamma=0.01, delta_method="exact")
>>> round(e.delta, 6), e.delta_method, e.warnings == (LEMMA_1_2_WARNING,)
(0.156845, 'exact', True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from core.common.errors import InputError
from core.common.special import betainc, betaincinv, betaln, gammaln, logsumexp
from core.common.stats import cp_upper
from core.common.validation import B_MIN, check_b
from core.privacy.dirichlet_profile import PROFILE_LABEL, RowProfile, support_profile, w_profile

__all__ = ["DELTA_METHODS", "PROFILE_METHOD", "DEFAULT_DELTA_METHOD", "DELTA_LABELS",
           "LEMMA_1_2_WARNING", "DirichletPrivacy", "dirichlet_privacy", "dirichlet_epsilon",
           "dirichlet_delta", "prob_all_above", "vertex_parameters", "union_delta",
           "clear_caches", "support_privacy", "support_delta", "certified_delta",
           "union_certified", "vertex_premise", "resolve_delta_method", "CURVE_RTOL",
           "DEFAULT_RTOL", "B_MIN", "support_epsilon_at_most"]

DELTA_METHODS = ("auto", "profile", "exact", "union", "mc")
#: The exact privacy profile (:mod:`core.privacy.dirichlet_profile`): what ``"auto"`` resolves
#: to for a target δ̂. It has no threshold γ; with a fixed γ, ``"auto"`` is the union bound.
PROFILE_METHOD = "profile"
#: What ``"auto"`` resolves to at a fixed γ (the γ-partition analyses): the union bound, the
#: only one of them with a proof at every input.
DEFAULT_DELTA_METHOD = "union"
EXACT_MAX_W = 3
_QUANTILES = np.array([1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85,
                       0.95, 0.99, 0.999, 1 - 1e-4, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])
_GRADE = 2.0 ** -np.arange(1, 7)
_GRADE_FINE = 2.0 ** -np.arange(1, 41, 1.5)
# 6-point Gauss-Legendre per panel: worst |error| 3e-8 against nested adaptive quadrature
# (tol 1e-13) over k in [4.1, 1e4], |W| in {2, 3}, gamma in [1e-8, 0.3], both vertices.
@lru_cache(maxsize=1)  # on first use: numpy does not import numpy.polynomial (7 ms of a start)
def _gauss_legendre() -> tuple[np.ndarray, np.ndarray]:
    """The 6-point Gauss-Legendre nodes and weights on [-1, 1]."""
    t, w = np.polynomial.legendre.leggauss(6)
    return t, w

_GAP = ("the lemma's printed proof has a gap — numerically supported, not proven")
DELTA_LABELS = {
    "profile": PROFILE_LABEL,
    "exact": f"vertex reduction of [D] Lemma 1.2 (certified quadrature; {_GAP})",
    "union": "proven upper bound (union bound over W: |W|·I_gamma(k·eta, k(1-eta)), "
             "holds at every input)",
    "mc": "estimated (Monte Carlo at the vertices, 95% Clopper-Pearson upper limit; rests on "
          f"the vertex reduction of [D] Lemma 1.2: {_GAP})",
}
#: The warning every result of the ``exact`` and ``mc`` methods carries.
LEMMA_1_2_WARNING = (
    "delta rests on the vertex reduction of [D] Lemma 1.2 (the worst input is a vertex of the "
    "domain): the lemma's printed proof applies Prekopa's theorem to a density that is not "
    "jointly log-concave in (x, p), so the reduction is numerically supported but not "
    "proven; the default union bound (delta_method 'union' or 'auto') is proven")


def resolve_delta_method(method: str, *, fixed_gamma: bool = True) -> str:
    """The method ``method`` stands for.

    ``"auto"`` is the exact privacy profile for a target δ̂ (``fixed_gamma=False``) and the
    proven union bound at a fixed threshold γ (the profile has no γ).

    Parameters
    ----------
    method : str
        ``"auto"``, ``"profile"``, ``"union"``, ``"exact"`` or ``"mc"``.
    fixed_gamma : bool
        Whether the caller fixes γ (then ``"profile"`` does not apply).

    Returns
    -------
    str
    """
    if method not in DELTA_METHODS:
        raise InputError(f"must be one of {', '.join(DELTA_METHODS)}, got {method!r}",
                         field="delta_method")
    if method == "auto":
        return DEFAULT_DELTA_METHOD if fixed_gamma else PROFILE_METHOD
    if method == PROFILE_METHOD and fixed_gamma:
        raise InputError("the exact privacy profile has no threshold gamma: give a target "
                         "delta, or choose delta_method union, exact or mc", field="gamma")
    return method


# --------------------------------------------------------------------------- δ numerics
def prob_all_above(a_w: tuple[float, ...], a_r: float, gamma: "np.ndarray | float") -> np.ndarray:
    """P[x_i ≥ γ for all i ≤ m] for (x_1..x_m, r) ~ Dir(a_w, a_r); vectorised over γ.

    Parameters
    ----------
    a_w : tuple of float
        Dirichlet parameters of the W entries.
    a_r : float
        The parameter of the aggregated rest.
    gamma : float or numpy.ndarray
        The threshold(s) γ.

    Returns
    -------
    numpy.ndarray
        One probability per γ.

    Examples
    --------
    >>> round(float(prob_all_above((1.0, 1.0, 1.0), 1.0, 0.1)[0]), 12)  # uniform: (1 − 3γ)³
    0.343
    """
    g = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    return _prob(tuple(float(a) for a in a_w), float(a_r), g)


@lru_cache(maxsize=64)
def _breaks(a: float, b: float) -> np.ndarray:
    result: np.ndarray = betaincinv(a, b, _QUANTILES)
    return result


def _prob(a_w: tuple[float, ...], a_r: float, g: np.ndarray, rest: bool = False
          ) -> np.ndarray:
    """``rest``: the remainder coordinate must also be >= γ (the support analysis)."""
    m = len(a_w)
    out = np.zeros_like(g)
    if m == 1:
        if rest:
            ok = g < 0.5
            out[ok] = betainc(a_r, a_w[0], 1.0 - g[ok]) - betainc(a_r, a_w[0], g[ok])
            result: np.ndarray = np.clip(out, 0.0, 1.0)
            return result
        ok = g < 1.0
        out[ok] = betainc(a_r, a_w[0], 1.0 - g[ok])
        return out
    a1 = a_w[0]
    b1 = sum(a_w) + a_r - a1
    upper = 1.0 - (m - 1 + int(rest)) * g
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
    gl_t, gl_w = _gauss_legendre()
    x = lo[:, :, None] + half * (gl_t + 1.0)
    x = np.clip(x, 1e-300, 1.0 - 1e-16)
    logpdf = (a1 - 1.0) * np.log(x) + (b1 - 1.0) * np.log1p(-x) - betaln(a1, b1)
    inner = _prob(a_w[1:], a_r, (lo_lim[:, :, None] / (1.0 - x)).ravel(), rest
                  ).reshape(x.shape)
    out[ok] = (np.exp(logpdf) * inner * half * gl_w).sum(axis=(1, 2))
    result = np.clip(out, 0.0, 1.0)
    return result


# --------------------------------------------------------------------------- certified δ
# Every δ the accountant reports for the "exact" method is the upper end of a rigorous
# bracket [lo, hi] of P[some constrained coordinate < γ] at a vertex. (That bound on the
# vertex value is certified; that the vertices are the worst inputs is [D] Lemma 1.2, whose
# printed proof has a gap: see the module docstring.) How it is built:
#
# 1. Inclusion–exclusion. δ = Σ_{∅≠S⊆C} (−1)^{|S|+1} T_S(γ) with the "corner" probabilities
#    T_S(g) = P[x_s < g for all s ∈ S] (C: the constrained coordinates). Every T_S lives on
#    the small box [0, g]^S, so no 1 − (something close to 1) is ever formed; singletons are
#    closed forms (regularised incomplete beta), T_S = 0 when S is every component.
# 2. Scaling. By the aggregation property (x_S, 1 − Σx_S) ~ Dir(a_S, c), c := A − Σa_S, so
#    T_S(g) = g^{Σa_S} ψ_S(0) ψ̃_S(g) with ψ_S(0) = Π(1/a_s)/B(a_S, c) and
#    ψ̃_S(g) = ∫_{[0,1]^S} Π t_s^{a_s−1} (1 − gΣt)^{c−1} dt / ∫ Π t_s^{a_s−1} dt.
#    Differentiating under the integral: ψ̃_S is decreasing in g for c > 1 (increasing for
#    c < 1, constant for c = 1) and convex for (c−1)(c−2) >= 0, concave for 1 < c < 2.
#    Since Σt ∈ [0, |S|], ψ̃_S(g) lies between 1 and (1 − |S|g)^{c−1} (the a-priori bracket).
# 3. Recursion (stick-breaking). Peeling x_1 ~ Beta(a_1, ·) gives
#    ψ̃_S(g) = ψ̃_{a_1}(g) · E[ψ̃_{S∖1}(g/(1−x))], x ~ Beta(a_1, c) conditioned on [0, g],
#    with ψ̃_{a_1}(g) = I_g(a_1, c)·a_1·B(a_1, c)/g^{a_1} in closed form. The expectation is
#    bracketed on panels with exact weights ΔI (betainc differences): where the integrand
#    is convex in the integration variable, Jensen at the panel's conditional mean (also
#    exact, via betainc with a shifted shape) is a lower bound and the chord an upper bound;
#    where it is concave, the other way round. The variable is u = g/(1−x) for c > 1
#    (there ψ̃ is convex or concave in u; the mean of u uses Beta(a_1, c−1)) and x for c <= 1
#    (ψ̃ increasing and convex in u, u convex increasing in x). The gap is second order in
#    the panel width; the number of panels doubles until the term's bracket is narrower
#    than its share of _RTOL·δ, or a cap is reached (then the bracket is simply wider).
#    Inner values are themselves brackets, used on the conservative side.
# 4. Floating point. Assumption: one scipy.special.betainc evaluation has relative error
#    <= _RHO = 1e-12 (Boost's ibeta, which scipy uses, is documented and tested to a few
#    hundred ulp ≈ 1e-13). Every difference of two betainc values carries the absolute
#    error _RHO·(|I_j| + |I_{j+1}|); every exp(log …) a relative 16·ulp·(1 + |argument|);
#    each level and each sum a further relative _SLACK = 1e-13. Values below 1e-290 are
#    treated as unknown (their a-priori bracket is used). The final δ_hi is at most the
#    vertex's own union bound Σ_s I_γ(a_s, A − a_s)·(1 + _RHO) and at most 1.
_RHO = 1e-12
_SLACK = 1e-13
_RTOL = 1e-7
DEFAULT_RTOL = _RTOL  # the public name of the default bracket width
#: The coarser bracket width of plotted curves (ε against k): δ is the certified upper end
#: either way; at 1e-3 the plotted ε moves by ~1e-6 and a curve costs a third of the time.
CURVE_RTOL = 1e-3
_EPS = float(np.finfo(np.float64).eps)
_TINY = 1e-290
_DELTA_FLOOR = 1e-300  # the smallest δ the accountant certifies
_N_START = 4
_N_CAP = {2: 2048, 3: 64}


def _ap_bracket(s: int, c: float, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A-priori bracket of log ψ̃_S(u): between 0 and (c − 1)·log(1 − s·u)."""
    su = np.minimum(s * u, 1.0 - 1e-16)
    f = (c - 1.0) * np.log1p(-su)
    slack = _SLACK + 16 * _EPS * np.abs(f)
    return np.minimum(0.0, f) - slack, np.maximum(0.0, f) + slack


def _psi1(a: float, c: float, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bracket of log ψ̃_a(u), ψ̃_a(u) = I_u(a, c)·a·B(a, c)/u^a (one coordinate)."""
    lo, hi = _ap_bracket(1, c, u)
    i = betainc(a, c, u)
    ok = (i > _TINY) & np.isfinite(i)
    if ok.any():
        log_i = np.log(i[ok])
        a_log_u = a * np.log(u[ok])
        const = math.log(a) + float(betaln(a, c))
        val = log_i - a_log_u + const
        rel = 2 * _RHO + 16 * _EPS * (1.0 + np.abs(log_i) + np.abs(a_log_u) + abs(const))
        lo[ok] = np.maximum(lo[ok], val - rel)
        hi[ok] = np.minimum(hi[ok], val + rel)
    return lo, hi


def _psi(a_s: tuple[float, ...], c: float, u: np.ndarray, n: int
         ) -> tuple[np.ndarray, np.ndarray]:
    """Rigorous bracket of log ψ̃_S(u) for (x_S, rest) ~ Dir(a_S, c), vectorised over u.

    Logarithms throughout: with large shapes ψ̃ spans hundreds of orders of magnitude.
    """
    with np.errstate(all="ignore"):  # non-finite intermediates are masked out below
        lo, hi = _psi_impl(a_s, c, u, n)
        # The argument u was computed with a few roundings (<= 4 ulp relative). Since
        # |d log ψ̃_S / d log u| <= |c − 1|·s·u/(1 − s·u), widen by that much.
        s = len(a_s)
        su = np.minimum(s * u, 1.0 - 1e-16)
        arg = 8 * _EPS * abs(c - 1.0) * su / (1.0 - su)
        return lo - arg, hi + arg


def _log_chord(lam: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """log((1 − λ)·e^left + λ·e^right)."""
    result: np.ndarray = np.logaddexp(np.log1p(-lam) + left, np.log(lam) + right)
    return result


def _psi_impl(a_s: tuple[float, ...], c: float, u: np.ndarray, n: int
              ) -> tuple[np.ndarray, np.ndarray]:
    s = len(a_s)
    if s == 1:
        return _psi1(a_s[0], c, u)
    lo, hi = _ap_bracket(s, c, u)
    need = (hi - lo) > 1e-11
    if not need.any():
        return lo, hi
    uu = u[need]
    a1, a_in = a_s[0], a_s[1:]
    b_lo, b_hi = _psi1(a1, c, uu)
    t = np.arange(n + 1, dtype=np.float64) / n  # uniform: graded meshes tested worse
    col = uu[:, None]
    if c > 1.0:  # integrate in u = g/(1-x): ψ̃ convex (c >= 2) or concave (1 < c < 2) in u
        v = col + (col / (1.0 - col) - col) * t
        x = 1.0 - col / v
        j_a, j_b, k_j = a1, c - 1.0, (a1 + c - 1.0) / (c - 1.0)
    else:  # integrate in x: ψ̃(g/(1-x)) increasing and convex in x
        x = col * t
        j_a, j_b, k_j = a1 + 1.0, c, a1 / (a1 + c)
    x[:, 0] = 0.0
    x[:, -1] = uu
    if c <= 1.0:
        v = x
    else:
        v[:, 0], v[:, -1] = uu, uu / (1.0 - uu)
    ends = col / (1.0 - x)  # inner thresholds at the panel ends
    ii = betainc(a1, c, x)
    jj = betainc(j_a, j_b, x)
    d_i, d_j = np.diff(ii, axis=1), np.diff(jj, axis=1)
    e_i = _RHO * (ii[:, :-1] + ii[:, 1:])
    e_j = _RHO * (jj[:, :-1] + jj[:, 1:])
    v0, v1 = v[:, :-1], v[:, 1:]
    mean = k_j * d_j / d_i
    if c > 1.0:
        mean = mean * col
    e = e_i / d_i + e_j / d_j + 64 * _EPS
    bad = ~((d_i > 0) & (d_j > 0) & np.isfinite(e) & (e < 0.25) & np.isfinite(mean))
    m_lo = np.clip(np.where(bad, v0, mean * (1.0 - e)), v0, v1)
    m_hi = np.clip(np.where(bad, v1, mean * (1.0 + e)), v0, v1)
    if c > 1.0:
        t_lo, t_hi = m_lo, m_hi
    else:
        t_lo, t_hi = col / (1.0 - m_lo), col / (1.0 - m_hi)
    shape_e, shape_m = ends.shape, m_lo.shape
    p_lo, p_hi = _psi(a_in, c, np.concatenate([ends.ravel(), t_lo.ravel(), t_hi.ravel()]), n)
    ne, nm = ends.size, m_lo.size
    end_lo, end_hi = p_lo[:ne].reshape(shape_e), p_hi[:ne].reshape(shape_e)
    at_mlo_lo, at_mlo_hi = p_lo[ne:ne + nm].reshape(shape_m), p_hi[ne:ne + nm].reshape(shape_m)
    at_mhi_lo = p_lo[ne + nm:].reshape(shape_m)
    width = v1 - v0
    lam_lo = np.clip(np.where(width > 0, (m_lo - v0) / width, 0.0), 0.0, 1.0)
    lam_hi = np.clip(np.where(width > 0, (m_hi - v0) / width, 1.0), 0.0, 1.0)
    if c <= 1.0 or c >= 2.0:  # convex: Jensen below (at the mean's worse end), chord above
        low = at_mlo_lo if c <= 1.0 else at_mhi_lo  # increasing in x / decreasing in u
        up = np.maximum(_log_chord(lam_lo, end_hi[:, :-1], end_hi[:, 1:]),
                        _log_chord(lam_hi, end_hi[:, :-1], end_hi[:, 1:]))
    else:  # concave and decreasing in u: chord below, Jensen above
        up = at_mlo_hi
        low = np.minimum(_log_chord(lam_lo, end_lo[:, :-1], end_lo[:, 1:]),
                         _log_chord(lam_hi, end_lo[:, :-1], end_lo[:, 1:]))
    log_total = np.log(ii[:, -1])[:, None]
    lw_lo = np.log(np.maximum(d_i - e_i, 0.0)) - log_total - 2 * _RHO
    lw_hi = np.log(d_i + e_i) - log_total + 2 * _RHO
    e_lo = logsumexp(lw_lo + low, axis=1)
    e_hi = logsumexp(lw_hi + up, axis=1)
    mag = np.max(np.abs(np.where(np.isfinite(up), up, 0.0)), axis=1)
    round_err = _SLACK + 16 * n * _EPS * (1.0 + mag)
    e_lo, e_hi = e_lo - round_err, e_hi + round_err
    # ψ̃_{S∖1} is monotone, so its average lies between its values at the two ends
    e_lo = np.maximum(e_lo, np.minimum(end_lo[:, 0], end_lo[:, -1]))
    e_hi = np.minimum(e_hi, np.maximum(end_hi[:, 0], end_hi[:, -1]))
    valid = (ii[:, -1] > _TINY) & ~np.isnan(e_lo) & ~np.isnan(e_hi)
    r_lo = np.where(valid, b_lo + e_lo - _SLACK, -np.inf)
    r_hi = np.where(valid, b_hi + e_hi + _SLACK, np.inf)
    lo[need] = np.maximum(lo[need], r_lo)
    hi[need] = np.minimum(hi[need], r_hi)
    return lo, hi


def _log_psi0(a_s: tuple[float, ...], c: float) -> tuple[float, float]:
    """log ψ_S(0) = −Σ log a_s − log B(a_S, c), and the sum of magnitudes (for rounding)."""
    parts = [-math.log(a) for a in a_s] + [-float(gammaln(a)) for a in a_s] + [
        -float(gammaln(c)), float(gammaln(sum(a_s) + c))]
    return math.fsum(parts), sum(abs(p) for p in parts)


def _corner(a_s: tuple[float, ...], c: float, g: np.ndarray, atol: np.ndarray,
            cap: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bracket of T_S(g) = P[x_s < g ∀ s ∈ S], (x_S, rest) ~ Dir(a_S, c), to about ``atol``.

    ``cap`` is a known upper bound (e.g. the smallest one-coordinate probability).
    """
    s = len(a_s)
    if s == 1:
        i = betainc(a_s[0], c, g)
        return i * (1.0 - _RHO), i * (1.0 + _RHO)
    log_p0, mag = _log_psi0(a_s, c)
    a_log_g = sum(a_s) * np.log(g)
    expo = a_log_g + log_p0
    rel = 16 * _EPS * (1.0 + np.abs(expo) + np.abs(a_log_g) + mag)

    def scaled(p_lo: np.ndarray, p_hi: np.ndarray, e: np.ndarray, r: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(over="ignore"):
            return np.exp(e + p_lo - r), np.exp(e + p_hi + r)

    lo, hi = scaled(*_ap_bracket(s, c, g), expo, rel)
    if cap is not None:
        hi = np.minimum(hi, cap)
    todo = (hi - lo) > atol
    n = _N_START
    while todo.any() and n <= _N_CAP.get(s, 16):
        t_lo, t_hi = scaled(*_psi(a_s, c, g[todo], n), expo[todo], rel[todo])
        lo[todo] = np.maximum(lo[todo], t_lo)
        hi[todo] = np.minimum(hi[todo], t_hi)
        todo = (hi - lo) > atol
        n *= 2
    return lo, hi


def _failure_bracket(a_con: tuple[float, ...], a_free: float, g: np.ndarray,
                     rtol: float = _RTOL) -> tuple[np.ndarray, np.ndarray]:
    """Certified [lo, hi] of P[min over the constrained coordinates < g].

    (x_con, x_free) ~ Dir(a_con, a_free); ``a_free = 0`` means there is no free coordinate
    (every component is constrained, as in the support analysis).
    """
    g_in = np.atleast_1d(np.asarray(g, dtype=np.float64))
    m = len(a_con)
    empty = g_in * m >= 1.0  # Ω₁ is empty (or null): δ = 1
    if empty.all():
        return np.ones_like(g_in), np.ones_like(g_in)
    if empty.any():
        lo, hi = _failure_bracket(a_con, a_free, g_in[~empty], rtol)
        out_lo, out_hi = np.ones_like(g_in), np.ones_like(g_in)
        out_lo[~empty], out_hi[~empty] = lo, hi
        return out_lo, out_hi
    g = g_in
    total = math.fsum(a_con) + a_free
    n_comp = m + (1 if a_free > 0 else 0)
    singles = [_corner((a,), total - a, g, np.zeros_like(g)) for a in a_con]
    s1_lo = np.sum([s[0] for s in singles], axis=0)
    s1_hi = np.sum([s[1] for s in singles], axis=0) * (1.0 + 4 * m * _EPS)
    scale = np.max([s[0] for s in singles], axis=0)  # <= δ
    groups: dict[tuple[tuple[float, ...], float], int] = {}
    for size in range(2, m + 1):
        if size >= n_comp:  # all components below g < 1/n_comp: impossible
            continue
        for sub in combinations(range(m), size):
            a_s = tuple(sorted(a_con[i] for i in sub))
            key = (a_s, total - math.fsum(a_s))
            groups[key] = groups.get(key, 0) + 1
    lo, hi = s1_lo.copy(), s1_hi.copy()
    mag = s1_hi.copy()
    n_terms = sum(groups.values())
    if n_terms:
        atol = rtol * scale / n_terms
        for (a_s, c), count in groups.items():
            cap = np.min([singles[a_con.index(a)][1] for a in a_s], axis=0)
            t_lo, t_hi = _corner(a_s, c, g, atol, cap)
            mag += count * t_hi
            if len(a_s) % 2:
                lo += count * t_lo
                hi += count * t_hi
            else:
                lo -= count * t_hi
                hi -= count * t_lo
    rounding = 8 * (n_terms + m) * _EPS * mag
    # values below _DELTA_FLOOR are not resolved (betainc underflows): reported as the floor
    hi = np.maximum(np.minimum(np.minimum(hi + rounding, s1_hi), 1.0), _DELTA_FLOOR)
    lo = np.maximum(np.maximum(lo - rounding, scale), 0.0)
    return lo, hi


def vertex_parameters(k: float, eta: float, eta_bar: float, w: int
                      ) -> dict[str, tuple[tuple[float, ...], float]]:
    """Aggregated Dirichlet parameters (a_W, a_rest) at vertex types A and B (spec §2.4).

    Parameters
    ----------
    k : float
        The concentration of Dir_k.
    eta : float
        η, the declared lower bound of the rows' entries.
    eta_bar : float
        η̄, the declared lower bound of the mass outside W.
    w : int
        |W|, the entries a neighbour may change.

    Returns
    -------
    dict
        ``{"A": (a_W, a_rest), "B": (a_W, a_rest)}``.
    """
    a = ((k * eta,) * w, k * (1.0 - w * eta))
    b = ((k * (1.0 - eta_bar - (w - 1) * eta),) + (k * eta,) * (w - 1), k * eta_bar)
    return {"A": a, "B": b}


def union_delta(k: float, eta: float, w: int, gamma: "np.ndarray | float") -> np.ndarray:
    """The rigorous union bound δ ≤ |W|·I_γ(kη, k(1−η)) (spec §2.5 (a)).

    Parameters
    ----------
    k : float
        The concentration.
    eta : float
        η.
    w : int
        |W|.
    gamma : float or numpy.ndarray
        γ.

    Returns
    -------
    numpy.ndarray
        δ, capped at 1.
    """
    result: np.ndarray = np.minimum(1.0, w * betainc(k * eta, k * (1.0 - eta),
                                                     np.asarray(gamma, float)))
    return result


@lru_cache(maxsize=16)
def _mc_minima(k: float, eta: float, eta_bar: float, w: int, draws: int, seed: int
               ) -> tuple[np.ndarray, ...]:
    """min over W of every draw, per vertex (A, B): the same draws for every γ (memoised:
    solving γ* and reporting δ at it use the same draws; read-only arrays)."""
    rng = np.random.default_rng(seed)
    out = []
    for a_w, a_r in vertex_parameters(k, eta, eta_bar, w).values():
        m = rng.dirichlet(np.array([*a_w, a_r]), size=draws)[:, :w].min(axis=1)
        m.setflags(write=False)
        out.append(m)
    return tuple(out)


def _cp_upper(fails: int, draws: int) -> float:
    """One-sided 95% Clopper–Pearson upper limit of a failure probability."""
    return float(cp_upper(fails, draws, 0.95))


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
                    method: str = "union", mc_draws: int = 200_000, mc_seed: int = 0,
                    rtol: float = _RTOL) -> dict[str, float]:
    """δ(γ) by one method (no validation; default the proven union bound); for ``exact``
    (the vertex reduction of Lemma 1.2) also the two vertex values (memoised).

    Parameters
    ----------
    k : float
        The concentration of Dir_k.
    eta : float
        η, the declared lower bound of the rows' entries.
    eta_bar : float
        η̄, the declared lower bound of the mass outside W.
    w : int
        |W|, the entries a neighbour may change.
    gamma : float
        The threshold γ.
    method : str
        ``"union"`` (proven), ``"exact"`` (vertex reduction) or ``"mc"``.
    mc_draws, mc_seed : int
        The Monte Carlo method's draws and seed.
    rtol : float
        Relative width of ``exact``'s certified vertex brackets. δ is always the bracket's
        upper end, so a coarser ``rtol`` gives a slightly larger (never a smaller) δ; the
        calculator's ε-vs-k curve uses :data:`CURVE_RTOL`.

    Returns
    -------
    dict
        ``{"delta": δ}``, and for ``exact`` the vertex values too.
    """
    return dict(_delta_cached(float(k), float(eta), float(eta_bar), int(w), float(gamma),
                              method, int(mc_draws), int(mc_seed), float(rtol)))


@lru_cache(maxsize=256)
def _delta_cached(k: float, eta: float, eta_bar: float, w: int, gamma: float, method: str,
                  mc_draws: int, mc_seed: int, rtol: float = _RTOL
                  ) -> tuple[tuple[str, float], ...]:
    return tuple(_delta(k, eta, eta_bar, w, gamma, method, mc_draws, mc_seed, rtol).items())


def _delta(k: float, eta: float, eta_bar: float, w: int, gamma: float, method: str,
           mc_draws: int, mc_seed: int, rtol: float = _RTOL) -> dict[str, float]:
    if method == "union":
        return {"delta": _union_certified(k, eta, w, gamma)}
    if method == "mc":
        est, upper = _mc_delta(k, eta, eta_bar, w, gamma, mc_draws, mc_seed)
        return {"delta": upper, "delta_estimate": est}
    if not vertex_premise(k, eta, eta_bar):
        # Lemma 1.2 (log-concavity) needs every Dirichlet shape >= 1: without it the vertex
        # reduction is unproven and only the union bound is a guarantee.
        ub = _union_certified(k, eta, w, gamma)
        return {"delta": ub, "delta_lower": 0.0}
    ub = _union_certified(k, eta, w, gamma)
    (lo_a, hi_a), (lo_b, hi_b) = (_vertex_bracket(k, eta, eta_bar, w, v, gamma, rtol)
                                  for v in ("A", "B"))
    da, db = min(hi_a, ub), min(hi_b, ub)
    return {"delta": max(da, db), "delta_vertex_A": da, "delta_vertex_B": db,
            "delta_lower": max(lo_a, lo_b)}


def vertex_premise(k: float, eta: float, eta_bar: float) -> bool:
    """k·η >= 1 and k·η̄ >= 1: every Dirichlet shape on the domain is >= 1 (Lemma 1.2).

    Parameters
    ----------
    k : float
        The concentration.
    eta, eta_bar : float
        η and η̄.

    Returns
    -------
    bool
    """
    return k * eta >= 1.0 and k * eta_bar >= 1.0


def _union_certified(k: float, eta: float, w: int, gamma: float) -> float:
    """The union bound with its floating-point allowance (one betainc: relative _RHO)."""
    return float(union_certified(k, eta, w, gamma))


@lru_cache(maxsize=1024)
def _vertex_bracket(k: float, eta: float, eta_bar: float, w: int, vertex: str, gamma: float,
                    rtol: float = _RTOL) -> tuple[float, float]:
    """Certified [lo, hi] of 1 − P[Dir ∈ Ω₁] at one vertex type (memoised)."""
    a_w, a_r = vertex_parameters(k, eta, eta_bar, w)[vertex]
    lo, hi = _failure_bracket(a_w, a_r, np.array([gamma]), rtol)
    return float(lo[0]), float(hi[0])


def union_certified(k: float, eta: float, w: int, gammas: "np.ndarray | float") -> np.ndarray:
    """The union bound as the accountant reports it (floating-point allowance, floor, cap).

    Parameters
    ----------
    k : float
        The concentration.
    eta : float
        η.
    w : int
        |W|.
    gammas : float or numpy.ndarray
        γ values.

    Returns
    -------
    numpy.ndarray
        δ per γ: the union bound times (1 + ρ) for floating-point error, at least the floor,
        at most 1.
    """
    g = np.asarray(gammas, dtype=np.float64)
    return np.maximum(np.minimum(1.0, union_delta(k, eta, w, g) * (1.0 + _RHO)), _DELTA_FLOOR)


def certified_delta(k: float, eta: float, eta_bar: float, w: int, gammas: "np.ndarray | float",
                    *, rtol: float = _RTOL) -> np.ndarray:
    """δ(γ) of the ``exact`` method on a grid (vectorised): the vertex reduction.

    The larger of the two vertex brackets' upper ends (a certified bound of the vertex
    value), never above the union bound; the union bound alone where the Lemma 1.2 premise
    (kη >= 1, kη̄ >= 1) fails. That the vertices are the worst inputs is [D] Lemma 1.2,
    whose printed proof has a gap (module docstring): numerically supported, not proven.
    The proven δ is :func:`union_certified`.

    Parameters
    ----------
    k : float
        The concentration of Dir_k.
    eta : float
        η, the declared lower bound of the rows' entries.
    eta_bar : float
        η̄, the declared lower bound of the mass outside W.
    w : int
        |W|, the entries a neighbour may change.
    gammas : float or numpy.ndarray
        γ values.
    rtol : float
        Relative width of the brackets (their upper ends are returned: a coarser width
        gives a slightly larger δ, never a smaller one).

    Returns
    -------
    numpy.ndarray
        δ per γ.
    """
    g = np.atleast_1d(np.asarray(gammas, dtype=np.float64))
    ub = union_certified(k, eta, w, g)
    if not vertex_premise(k, eta, eta_bar):
        return ub
    his = [_failure_bracket(a_w, a_r, g, rtol)[1]
           for a_w, a_r in vertex_parameters(k, eta, eta_bar, w).values()]
    result: np.ndarray = np.minimum(np.maximum(*his), ub)
    return result


def clear_caches() -> None:
    """Forget memoised δ evaluations and quadrature breakpoints (for benchmarks)."""
    for fn in (_delta_cached, _vertex_bracket, _breaks, _support_delta_cached, _mc_minima):
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
    """ε of Theorem 1.6 with the corrected v₂ (no validation; see :func:`dirichlet_privacy`).

    Parameters
    ----------
    k : float
        The concentration of Dir_k.
    eta : float
        η, the declared lower bound of the rows' entries.
    eta_bar : float
        η̄, the declared lower bound of the mass outside W.
    w : int
        |W|, the entries a neighbour may change.
    b : float
        The L1 distance of neighbouring rows.
    gamma : float
        The threshold γ.

    Returns
    -------
    float
        ε = v₂ + v₁.
    """
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
    gamma: float | None  # None for the exact profile (it has no threshold set)
    epsilon_approx: float | None
    delta_method: str
    delta_label: str
    v1: float | None
    v2: float | None
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
    # "W": Theorem 1.6 (entries in W change, the remainder is fixed);
    # "support": :func:`support_privacy` (any two of the w = n support entries change).
    analysis: str = "W"
    # certified lower bound of the worst vertex's δ (exact method): [delta_lower, delta]
    # brackets the exact vertex value; 0.0 when the union bound is reported.
    delta_lower: float | None = None
    # the exact profile: a certified lower value of the true ε (the bracket's lower end)
    # and the worst neighbouring pair (x, y, d) of :mod:`core.privacy.dirichlet_profile`
    epsilon_lower: float | None = None
    worst_pair: tuple[float, float, float] | None = None
    profile: RowProfile | None = None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {
            "epsilon": self.epsilon, "delta": self.delta, "gamma": self.gamma,
            "epsilon_approx": self.epsilon_approx, "delta_method": self.delta_method,
            "delta_label": self.delta_label, "v1": self.v1, "v2": self.v2, "k": self.k,
            "eta": self.eta, "eta_bar": self.eta_bar, "w": self.w, "b": self.b,
            "delta_target": self.delta_target, "delta_vertex_A": self.delta_vertex_A,
            "delta_vertex_B": self.delta_vertex_B, "delta_estimate": self.delta_estimate,
            "analysis": self.analysis, "delta_lower": self.delta_lower,
            "warnings": list(self.warnings)}
        if self.delta_method == PROFILE_METHOD:
            for key in ("v1", "v2", "delta_vertex_A", "delta_vertex_B", "delta_estimate",
                        "delta_lower"):
                del d[key]  # parts of Theorem 1.6's threshold analysis
            d["gamma_reason"] = ("the exact privacy profile needs no threshold set: delta is "
                                 "the hockey-stick divergence of the worst neighbouring pair")
            d["epsilon_lower"] = self.epsilon_lower
            d["worst_pair"] = None if self.worst_pair is None else {
                "k_q_i": self.worst_pair[0], "k_p_j": self.worst_pair[1],
                "k_moved": self.worst_pair[2]}
            if self.epsilon_approx is None:
                d["epsilon_approx_reason"] = "Lemma 1.7 belongs to Theorem 1.6's threshold analysis"
        return d


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
    if not 0 < eta_ < 1 or eta_ < 1e-12:
        raise InputError(f"must lie in (0, 1) and be >= 1e-12 (a smaller eta underflows the "
                         f"privacy loss), got {eta_:g}", field="eta")
    if not 0 < eb_ < 1:
        raise InputError(f"must lie in (0, 1), got {eb_:g}", field="eta_bar")
    if eta_ + eb_ >= 1:
        raise InputError(f"eta + eta_bar must be < 1, got {eta_ + eb_:g}", field="eta_bar")
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or int(w) < 2:
        raise InputError(f"|W| must be an integer >= 2, got {w!r}", field="w")
    w_ = int(w)
    b_ = check_b(b_)
    if w_ * eta_ + eb_ > 1 + 1e-12:
        raise InputError(f"the domain is empty: |W|·eta + eta_bar = {w_ * eta_ + eb_:g} > 1 "
                         f"(need eta <= {(1 - eb_) / w_:.6g})", field="eta")
    warnings = []
    if k_ * eta_ < 1 or k_ * eb_ < 1:
        warnings.append(f"k·eta = {k_ * eta_:.4g} and k·eta_bar = {k_ * eb_:.4g} should both be "
                        ">= 1 (premise of Lemma 1.2): below it the vertex reduction (delta "
                        "methods exact and mc) does not apply, so delta is the union bound, "
                        "proven at every input")
    if eta_ + b_ / 2 > (1 - eb_) / 2:
        warnings.append("eta + b/2 > (1 - eta_bar)/2: the source's formula (1.21) would "
                        "under-state epsilon here; the corrected v2 is used")
    return k_, eta_, eb_, w_, b_, warnings


def dirichlet_privacy(k: float, eta: float, eta_bar: float, w: int, b: float, *,
                      gamma: float | None = None, delta_target: float | None = None,
                      delta_method: str = "auto", mc_draws: int = 200_000, mc_seed: int = 0,
                      rtol: float = _RTOL) -> DirichletPrivacy:
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
        ``auto`` (the default) is ``union``, |W|·I_γ(kη, k(1−η)): proven at every input.
        ``exact`` (|W| <= 3) is the source's vertex reduction with a certified vertex value;
        it rests on [D] Lemma 1.2, whose printed proof has a gap (module docstring), and
        its result carries :data:`LEMMA_1_2_WARNING`; it reproduces Figure 1.1 and spec
        §4.3. ``mc`` is a Monte Carlo estimate at the vertices (same caveat).
    rtol : float
        Relative width of ``exact``'s certified brackets (:func:`dirichlet_delta`): coarser
        is faster and only ever makes δ (and so ε at a target δ̂) slightly larger.
    """
    if not 1e-12 <= rtol <= 1e-2:
        raise InputError(f"must lie in [1e-12, 1e-2], got {rtol!r}", field="rtol")
    k, eta, eta_bar, w, b, warnings = validate_parameters(k, eta, eta_bar, w, b)
    if (gamma is None) == (delta_target is None):
        raise InputError("give exactly one of gamma and delta (the target)", field="gamma")
    method = resolve_delta_method(delta_method, fixed_gamma=gamma is not None)
    if method == PROFILE_METHOD:
        if delta_target is None:
            raise InputError("give a target delta (the exact profile has no threshold gamma)",
                             field="delta")
        return _profile_result(w_profile(k, eta, eta_bar, w, b), delta_target, k=k, eta=eta,
                               eta_bar=eta_bar, w=w, b=b, analysis="W",
                               warnings=[x for x in warnings if "Lemma 1.2" not in x
                                         and "(1.21)" not in x])
    if method == "exact" and w > EXACT_MAX_W:
        raise InputError(f"exact is available for |W| <= {EXACT_MAX_W}; use union or mc "
                         f"(|W| = {w})", field="delta_method")
    if method != "union" and not vertex_premise(k, eta, eta_bar):
        method = "union"  # exact and MC evaluate the vertices: unproven below the premise
    if method != "union":
        warnings.append(LEMMA_1_2_WARNING)
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
        gamma = _solve_gamma(k, eta, eta_bar, w, delta_target, method, mc_draws, mc_seed,
                             rtol)
    d = dirichlet_delta(k, eta, eta_bar, w, gamma, method=method, mc_draws=mc_draws,
                        mc_seed=mc_seed, rtol=rtol)
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
        delta_estimate=d.get("delta_estimate"), warnings=tuple(warnings),
        delta_lower=d.get("delta_lower"))


def _solve_gamma(k: float, eta: float, eta_bar: float, w: int, target: float, method: str,
                 mc_draws: int, mc_seed: int, rtol: float = _RTOL) -> float:
    """γ* = sup{γ ∈ (0, 1/|W|) : δ(γ) <= δ̂}, δ the certified value the result reports."""
    if method == "mc":  # a step function of γ: solved on the draws themselves
        _union_root(k, eta, w, target)  # the same refusal for unreachable targets
        return _mc_root(k, eta, eta_bar, w, target, mc_draws, mc_seed)

    def delta_of(g: float) -> float:
        return dirichlet_delta(k, eta, eta_bar, w, g, method=method, mc_draws=mc_draws,
                               mc_seed=mc_seed, rtol=rtol)["delta"]

    # a plotted curve's brackets (rtol > the default) need no 1e-10 precision in γ either:
    # γ* stays verified feasible, it only lands a little lower (ε a little higher)
    return _solve_certified(delta_of, _union_root(k, eta, w, target), 1.0 / w, target,
                            exact=method == "exact",
                            g_single=_single_root(k, eta, target, 1.0 / w),
                            tol=1e-10 if rtol <= _RTOL else 1e-6)


def _single_root(k: float, eta: float, target: float, top: float) -> float:
    """A γ where one coordinate alone, I_γ(kη, k(1−η)), already exceeds δ̂ (or ``top``).

    At every vertex some constrained coordinate has shape kη, so the certified δ there is
    at least this probability: γ* lies below the returned value.
    """
    g = float(betaincinv(k * eta, k * (1.0 - eta), min(target * (1.0 + 1e-6), 1.0)))
    return min(g * (1.0 + 1e-6), top * (1.0 - 1e-12)) if g > 0 else top * (1.0 - 1e-12)


def _solve_certified(delta_of: Callable[[float], float], g_union: float, top: float,
                     target: float, *, exact: bool, g_single: float | None = None,
                     tol: float = 1e-10) -> float:
    """Largest γ found with delta_of(γ) <= target, starting from the feasible union root.

    ``delta_of`` is increasing up to the width of its certified bracket; the result is
    always verified (delta_of(γ*) <= δ̂), and lies within ~1e-10 (relative, in γ) of the
    crossing. Regula falsi (Illinois) on logit δ against log γ, which is nearly linear,
    between the union root (feasible) and ``g_single`` (where a single coordinate's
    failure probability alone exceeds δ̂).
    """
    t_ok = math.log(g_union)
    if not exact:
        return g_union
    f_ok = delta_of(g_union)
    if f_ok > target:  # cannot happen (exact <= union), kept as a guard
        raise InputError(f"no gamma could be verified for delta <= {target:g}", field="delta")
    t_top = math.log(top * (1.0 - 1e-12))
    t_bad = min(math.log(g_single), t_top) if g_single else t_top
    f_bad = delta_of(math.exp(t_bad))
    if f_bad <= target:  # feasible up there already (e.g. δ̂ close to 1): try the top
        t_ok, f_ok = t_bad, f_bad
        if t_bad >= t_top:
            return math.exp(t_ok)
        t_bad, f_bad = t_top, delta_of(math.exp(t_top))
        if f_bad <= target:
            return math.exp(t_top)
    if t_bad <= t_ok:
        return math.exp(t_ok)
    def logit(p: float) -> float:  # ≈ log p for small p, resolves p near 1 as well
        p = min(max(p, 1e-320), 1.0 - 1e-16)
        return math.log(p) - math.log1p(-p)

    h_ok, h_bad = logit(f_ok) - logit(target), logit(f_bad) - logit(target)
    side = 0
    for _ in range(60):
        if t_bad - t_ok <= tol * max(1.0, abs(t_ok)):
            break
        if h_bad > h_ok:
            t = t_ok - h_ok * (t_bad - t_ok) / (h_bad - h_ok)
        else:
            t = 0.5 * (t_ok + t_bad)
        span = t_bad - t_ok
        t = min(max(t, t_ok + 1e-3 * span), t_bad - 1e-3 * span)
        f = delta_of(math.exp(t))
        h = logit(f) - logit(target)
        if f <= target:
            t_ok, h_ok = t, h
            if side == -1:
                h_bad /= 2.0  # Illinois: halve the stale end
            side = -1
        else:
            t_bad, h_bad = t, h
            if side == 1:
                h_ok /= 2.0
            side = 1
    return math.exp(t_ok)


def _union_root(k: float, eta: float, w: int, target: float) -> float:
    """Largest γ (up to ~1e-12 relative) with the certified union bound <= δ̂.

    Closed form via the inverse incomplete beta, then verified against the certified value
    and moved down until it holds. Refuses (InputError) targets that cannot be certified.
    """
    if target < _DELTA_FLOOR * 10:
        raise InputError(f"targets below {_DELTA_FLOOR * 10:g} cannot be certified in "
                         f"floating point, got {target:g}", field="delta")
    top = (1.0 / w) * (1.0 - 1e-12)
    g = float(min(betaincinv(k * eta, k * (1.0 - eta), target / (w * (1.0 + 4 * _RHO))), top))
    if not (g > 0 and math.isfinite(g)):  # betaincinv gives up for tiny targets: bisect
        lo_t, hi_t = -708.0, math.log(top)
        if _union_certified(k, eta, w, math.exp(lo_t)) <= target:
            for _ in range(80):
                mid = 0.5 * (lo_t + hi_t)
                if _union_certified(k, eta, w, math.exp(mid)) <= target:
                    lo_t = mid
                else:
                    hi_t = mid
            g = math.exp(lo_t)
    for i in range(50):
        if not (g > 1e-300 and math.isfinite(g)):
            break
        if _union_certified(k, eta, w, g) <= target:
            return g
        g *= 1.0 - min(0.5, 1e-12 * 2.0 ** i)
    raise InputError(f"no gamma in (0, 1/|W|) with a certified delta <= {target:g} "
                     f"(k·eta = {k * eta:.3g} is too small for this target)", field="delta")


def _profile_result(profile: RowProfile, delta_target: object, *, k: float, eta: float,
                    eta_bar: float, w: int, b: float, analysis: str, warnings: list[str]
                    ) -> DirichletPrivacy:
    """The exact-profile statement (ε at the target δ̂, certified) as a DirichletPrivacy."""
    target = _finite(delta_target, "delta")
    if not 0 < target < 1:
        raise InputError(f"must lie in (0, 1), got {target:g}", field="delta")
    lo, eps, worst = profile.epsilon_bracket(target)
    if not math.isfinite(eps):
        raise InputError(f"no finite epsilon reaches delta = {target:g} (the worst pair's "
                         "privacy loss is too large)", field="delta")
    notes = list(warnings)
    if not profile.exact:
        notes.append(f"worst pair found by certified branch and bound ({profile.description}); "
                     f"the true epsilon lies in [{lo:.6g}, {eps:.6g}]")
    return DirichletPrivacy(
        epsilon=eps, delta=target, gamma=None, epsilon_approx=None,
        delta_method=PROFILE_METHOD, delta_label=PROFILE_LABEL, v1=None, v2=None, k=k,
        eta=eta, eta_bar=eta_bar, w=w, b=b, delta_target=target, warnings=tuple(notes),
        analysis=analysis, epsilon_lower=lo, worst_pair=(worst.x, worst.y, worst.d),
        profile=profile)


# --------------------------------------------------------------------------- support analysis
SUPPORT_EXACT_MAX_N = 4
SUPPORT_DELTA_LABELS = {
    "profile": PROFILE_LABEL,
    "exact": f"vertex reduction of [D] Lemma 1.2 (certified quadrature; {_GAP})",
    "union": "proven upper bound (union bound over the n support entries: "
             "n·I_gamma(k·eta, k(1-eta)), holds at every input)",
    "mc": "estimated (Monte Carlo at the domain's vertex, 95% Clopper-Pearson upper limit; "
          f"rests on the vertex reduction of [D] Lemma 1.2: {_GAP})",
}


def _validate_support(k: object, eta: object, n: object, b: object, *,
                      strict_move: bool = True) -> tuple[float, float, int, float, list[str]]:
    k_, eta_, b_ = _finite(k, "k"), _finite(eta, "eta"), _finite(b, "b")
    if k_ <= 0:
        raise InputError(f"must be > 0, got {k_:g}", field="k")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 2:
        raise InputError(f"the support size must be an integer >= 2, got {n!r}", field="n")
    n_ = int(n)
    if not 0 < eta_ < 1 or eta_ < 1e-12:
        raise InputError(f"must lie in (0, 1) and be >= 1e-12 (a smaller eta underflows the "
                         f"privacy loss), got {eta_:g}", field="eta")
    b_ = check_b(b_)
    if n_ * eta_ > 1 + 1e-12:
        raise InputError(f"the domain is empty: n·eta = {n_ * eta_:g} > 1 (need eta <= "
                         f"{1.0 / n_:.6g} for a support of {n_})", field="eta")
    if strict_move and n_ * eta_ + b_ / 2 > 1 + 1e-12:
        raise InputError(f"b/2 = {b_ / 2:g} exceeds the free mass 1 - n·eta = "
                         f"{1 - n_ * eta_:g}: need eta + b/2 <= 1 - (n-1)·eta "
                         "(lower eta or b)", field="b")
    warnings = []
    if k_ * eta_ < 1:
        warnings.append(f"k·eta = {k_ * eta_:.4g} < 1 (premise of Lemma 1.2): the vertex "
                        "reduction (delta methods exact and mc) does not apply, so delta is "
                        "the union bound n·I_gamma(k·eta, k(1-eta)), proven at every input")
    return k_, eta_, n_, b_, warnings


def support_delta(k: float, eta: float, n: int, gamma: float, *, method: str = "union",
                  mc_draws: int = 200_000, mc_seed: int = 0) -> dict[str, float]:
    """δ(γ) of :func:`support_privacy` by one method (no validation; default the proven
    union bound; ``exact`` is the vertex reduction of Lemma 1.2).

    Parameters
    ----------
    k : float
        The concentration.
    eta : float
        η, the lower bound of every support entry.
    n : int
        The support size.
    gamma : float
        The threshold γ.
    method : str
        ``"union"``, ``"exact"`` or ``"mc"``.
    mc_draws, mc_seed : int
        The Monte Carlo method's draws and seed.

    Returns
    -------
    dict
        ``{"delta": δ}`` (and the vertex values for ``exact``).
    """
    return dict(_support_delta_cached(float(k), float(eta), int(n), float(gamma), method,
                                      int(mc_draws), int(mc_seed)))


@lru_cache(maxsize=1024)
def _support_delta_cached(k: float, eta: float, n: int, gamma: float, method: str,
                          mc_draws: int, mc_seed: int) -> tuple[tuple[str, float], ...]:
    ub = _union_certified(k, eta, n, gamma)
    if method == "union" or k * eta < 1.0:
        return (("delta", ub),)
    a = (k * eta,) * (n - 1) + (k * (1.0 - (n - 1) * eta),)
    if method == "mc":
        rng = np.random.default_rng(mc_seed)
        x = rng.dirichlet(np.array(a), size=mc_draws)
        fails = int((x.min(axis=1) < gamma).sum())
        return (("delta", _cp_upper(fails, mc_draws)), ("delta_estimate", fails / mc_draws))
    lo, hi = _failure_bracket(a, 0.0, np.array([gamma]))
    return (("delta", min(float(hi[0]), ub)), ("delta_lower", float(lo[0])))


def support_privacy(k: float, eta: float, n: int, b: float, *, gamma: float | None = None,
                    delta_target: float | None = None, delta_method: str = "auto",
                    mc_draws: int = 200_000, mc_seed: int = 0) -> DirichletPrivacy:
    """(ε, δ) of Dir_k for a row p on a support of size n, neighbours within the support.

    Analysis ("within-support", the one MDP rows need):

    * **Domain.** p lies on its support of n >= 2 entries and *every* support entry is
      >= η (η declared and public). Non-empty iff n·η <= 1; its vertices are the n
      permutations of (η, …, η, 1−(n−1)η).
    * **Adjacency.** q is a neighbour of p if it has the same support, lies in the same
      domain, and differs from p in two entries i, j by at most b in L1 (|p_i − q_i| <= b/2)
      — *any* two of the n entries, the last one included (mass may move into or out of
      any support entry).
    * **Threshold set.** Ω₁ = {x : x_i >= γ for all n coordinates}, γ ∈ (0, 1/n).
    * **ε.** Log-ratio (1.14): log Γ(kq_i)Γ(kq_j)/(Γ(kp_i)Γ(kp_j)) + k(p_i−q_i)·log(x_i/x_j).
      On Ω₁, x_i, x_j ∈ [γ, 1−(n−1)γ], so the x-term is at most
      v₁ = (kb/2)·log((1−(n−1)γ)/γ). For the Γ-term let c = p_i + p_j = q_i + q_j; the n−2
      other entries are each >= η, so c <= c_max = 1 − (n−2)η. By Lemma 1.5 the ratio
      (taken WLOG with p_i > q_i, the term is symmetric in i, j) increases in c, and raising
      c keeps a feasible (p_i, q_i) feasible, so c = c_max. With
      g(x) = log B(kx, k(c_max − x)) — convex and symmetric about c_max/2 — the maximum of
      g(q_i) − g(p_i) over |p_i − q_i| <= b/2, p_i, q_i ∈ [η, c_max − η] is
      v₂ = g(η) − g(min(η + b/2, c_max/2)) (spec §2.6 with η̄ := (n−2)η). This needs
      η + b/2 <= c_max − η, i.e. n·η + b/2 <= 1 (else InputError on b). ε = v₁ + v₂.
    * **δ** must bound 1 − P[Dir_k(p) ∈ Ω₁] at every p of the domain.
      *Default (``"auto"`` = ``"union"``, proven):* δ = n·I_γ(kη, k(1−η)) >=
      Σ_i P[x_i < γ] >= P[min_i x_i < γ] at *every* domain point, for every k and η: the
      marginal x_i ~ Beta(kp_i, k(1−p_i)) has its CDF at γ largest at p_i = η.
      *``"exact"`` (n <= 4; the vertex reduction, unproven):* if P[Ω₁] were log-concave in
      p ([D] Lemma 1.2, applied to this domain; it needs kη >= 1 so that every Dirichlet
      parameter is >= 1), it would be quasi-concave and minimal at a vertex; all vertices
      give the same value by symmetry: δ = P[min_i x_i < γ] for
      x ~ Dir(kη, …, kη, k(1−(n−1)η)) (n = 2 in closed form,
      δ = I_γ(kη, k(1−η)) + I_γ(k(1−η), kη); n = 3, 4 by the certified recursion with the
      remainder also constrained >= γ). The lemma's printed proof has a gap (the density
      is not jointly log-concave in (x, p); module docstring), so this is a named option
      that carries :data:`LEMMA_1_2_WARNING`; the vertex value is certified, the reduction
      is numerically supported only. If kη < 1 it gives way to the union bound (warning).

    n = 1 is not handled here: a one-outcome row is deterministic within its support and
    releases nothing, (0, 0).

    The result is a :class:`DirichletPrivacy` with ``analysis = "support"``, ``w = n`` and
    ``eta_bar = (n−2)·η`` (the mass the other n−2 entries are guaranteed, so that v₂ is
    spec §2.6's formula with this η̄; for n = 2 it is 0).

    Parameters
    ----------
    k : float
        The concentration.
    eta : float
        η.
    n : int
        The support size (>= 2).
    b : float
        The L1 distance of neighbouring rows.
    gamma : float, optional
        A fixed threshold γ (else solved from ``delta_target``).
    delta_target : float, optional
        The δ to reach.
    delta_method : str
        ``"auto"`` (the proven union bound), ``"union"``, ``"exact"`` or ``"mc"``.
    mc_draws, mc_seed : int
        The Monte Carlo method's draws and seed.

    Returns
    -------
    DirichletPrivacy
        ε, δ, γ and warnings.

    Raises
    ------
    InputError
        Naming the parameter outside the analysis's domain (n·η > 1, b too large, …).

    Examples
    --------
    >>> r = support_privacy(20, 0.1, 2, 0.1, gamma=0.01)  # the default: 2·I_γ(2, 18)
    >>> round(r.delta, 6), r.delta_method, r.analysis
    (0.030548, 'union', 'support')
    >>> e = support_privacy(20, 0.1, 2, 0.1, gamma=0.01, delta_method="exact")
    >>> round(e.delta, 6), e.delta_method  # the vertex: I_γ(2, 18) + I_γ(18, 2)
    (0.015274, 'exact')
    >>> support_privacy(5, 0.1, 2, 0.1, gamma=0.01, delta_method="exact").delta_method
    'union'
    """
    if (gamma is None) == (delta_target is None):
        raise InputError("give exactly one of gamma and delta (the target)", field="gamma")
    method = resolve_delta_method(delta_method, fixed_gamma=gamma is not None)
    k, eta, n, b, warnings = _validate_support(k, eta, n, b,
                                               strict_move=method != PROFILE_METHOD)
    if method == PROFILE_METHOD:
        if delta_target is None:
            raise InputError("give a target delta (the exact profile has no threshold gamma)",
                             field="delta")
        return _profile_result(support_profile(k, eta, n, b), delta_target, k=k, eta=eta,
                               eta_bar=(n - 2) * eta, w=n, b=b, analysis="support",
                               warnings=[x for x in warnings if "Lemma 1.2" not in x])
    if method == "exact" and n > SUPPORT_EXACT_MAX_N:
        raise InputError(f"exact is available for a support of <= {SUPPORT_EXACT_MAX_N}; use "
                         f"union or mc (n = {n})", field="delta_method")
    if k * eta < 1 and method != "union":
        method = "union"  # the vertex reduction (exact and MC) needs kη >= 1
    if method != "union":
        warnings.append(LEMMA_1_2_WARNING)
    gamma, delta_target = _support_threshold(k, eta, n, gamma, delta_target, method,
                                             mc_draws, mc_seed)
    d = support_delta(k, eta, n, gamma, method=method, mc_draws=mc_draws, mc_seed=mc_seed)
    eta_bar = (n - 2) * eta
    v1, v2 = _v1(k, b, n, gamma), _v2(k, eta, eta_bar, b)
    return DirichletPrivacy(
        epsilon=v1 + v2, delta=d["delta"], gamma=gamma, epsilon_approx=None,
        delta_method=method, delta_label=SUPPORT_DELTA_LABELS[method], v1=v1, v2=v2, k=k, eta=eta,
        eta_bar=eta_bar, w=n, b=b, delta_target=delta_target,
        delta_estimate=d.get("delta_estimate"), warnings=tuple(warnings), analysis="support",
        delta_lower=d.get("delta_lower"))


def support_epsilon_at_most(k: float, eta: float, n: int, b: float, *, delta_target: float,
                            bound: float) -> bool:
    """Whether the exact profile's ε of :func:`support_privacy` (``delta_method`` "auto" or
    "profile", a target δ̂) is at most ``bound``: the same validation and the same InputError,
    then :meth:`~core.privacy.dirichlet_profile.RowProfile.epsilon_at_most`, which stops the
    ε bisection once the answer is known and skips the lower value (the designer's search
    over k asks only this).

    Parameters
    ----------
    k, eta, n, b, delta_target
        As :func:`support_privacy`.
    bound : float
        The ε to compare with.

    Returns
    -------
    bool
        ``support_privacy(k, eta, n, b, delta_target=delta_target).epsilon <= bound``
        (false where the profile has no finite ε, which that call refuses).

    Examples
    --------
    >>> e = support_privacy(20, 0.05, 3, 0.1, delta_target=1e-3).epsilon
    >>> support_epsilon_at_most(20, 0.05, 3, 0.1, delta_target=1e-3, bound=e)
    True
    >>> support_epsilon_at_most(20, 0.05, 3, 0.1, delta_target=1e-3, bound=0.999 * e)
    False
    """
    k, eta, n, b, _ = _validate_support(k, eta, n, b, strict_move=False)
    target = _finite(delta_target, "delta")
    if not 0 < target < 1:
        raise InputError(f"must lie in (0, 1), got {target:g}", field="delta")
    return support_profile(k, eta, n, b).epsilon_at_most(target, bound)


def _support_threshold(k: float, eta: float, n: int, gamma: float | None,
                       delta_target: float | None, method: str, mc_draws: int, mc_seed: int
                       ) -> tuple[float, float | None]:
    """The threshold γ of :func:`support_privacy` and the target δ: the given γ, in
    (0, 1/n), or the γ solved for the target δ, in (0, 1)."""
    top = 1.0 / n
    if gamma is not None:
        gamma = _finite(gamma, "gamma")
        if not 0 < gamma < top:
            raise InputError(f"must lie in (0, 1/n) = (0, {top:.6g}), got {gamma:g}",
                             field="gamma")
        return gamma, delta_target
    delta_target = _finite(delta_target, "delta")
    if not 0 < delta_target < 1:
        raise InputError(f"must lie in (0, 1), got {delta_target:g}", field="delta")
    return _solve_support_gamma(k, eta, n, delta_target, method, mc_draws, mc_seed), \
        delta_target


def _solve_support_gamma(k: float, eta: float, n: int, target: float, method: str,
                         mc_draws: int, mc_seed: int) -> float:
    """γ* = sup{γ ∈ (0, 1/n) : δ(γ) <= δ̂} against the reported (certified or MC) δ."""
    g_union = _union_root(k, eta, n, target)

    def delta_of(g: float) -> float:
        return support_delta(k, eta, n, g, method=method, mc_draws=mc_draws,
                             mc_seed=mc_seed)["delta"]

    if method != "mc":
        return _solve_certified(delta_of, g_union, 1.0 / n, target, exact=method == "exact",
                                g_single=_single_root(k, eta, target, 1.0 / n))
    # Monte Carlo: a step function of γ (fixed draws); bisect to the last feasible point
    lo, hi = math.log(g_union), math.log((1.0 / n) * (1 - 1e-12))
    if delta_of(math.exp(lo)) > target:
        raise InputError(f"{mc_draws} Monte Carlo draws cannot show delta <= {target:g}; use "
                         "more draws or the union bound", field="delta")
    if delta_of(math.exp(hi)) <= target:
        return math.exp(hi)
    while hi - lo > 1e-12 * max(1.0, abs(lo)):
        mid = 0.5 * (lo + hi)
        if delta_of(math.exp(mid)) <= target:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)
