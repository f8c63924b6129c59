"""The teacher's mechanism: Dir_k ∘ f on policies, and its (ε, δ) by Theorem 1 of [KS].

Size: the teacher's mechanism and its accounting (Theorem 1 of [KS]): ε, δ (closed form and
Monte Carlo), the radius and the curves all read the same γ split.

A teacher shares its policy π = f(X) ∈ Δ_{m,η} at the student's observation X as one
Dirichlet draw Dir_k(π) (spec §1.3, ``docs/reference-values.md`` K). Two observations are
neighbours when ‖X − X′‖₂ ≤ b; with f L-Lipschitz the shared policies differ by at most
``lb`` = L·b in ℓ2 (the "policy-space" adjacency of spec F1, where the user gives L·b).

Theorem 1 (probabilistic DP, Def. 3) with a threshold τ:

* δ = P(min_i x_i < τ) for x ~ Dir_k(vertex of Δ_{m,η}) — eq. 6; no closed form in general:
  Monte Carlo with a one-sided Clopper–Pearson upper bound (:func:`delta_mc`); closed forms
  for m = 2 and for the uniform case k = m, η = 1/m (:func:`delta_closed_form`, the tests'
  oracles);
* ε = √m·L·b·k·ln(1/τ) + G(k, m, η), G = (m−1)lnΓ(kη) + lnΓ(k(1−(m−1)η)) − m·lnΓ(k/m)
  — eq. 12 (:func:`theorem1_epsilon`). ``bound="tight"`` halves the first term (spec §1.3:
  Σ(π_i − π′_i) = 0 and ln z_i ∈ [ln τ, 0]); the default is the paper's.

Facts the tool shows (spec §1.3–1.5): G ≥ 0 and G → −(m−1)ln η − m ln m − ln(1−(m−1)η)
as k → 0, while δ → 1: Theorem 1 does *not* get stronger as k shrinks. Lemma 1's radius
α = √(ln(1/β)/(2(k+1))) is **not** a valid 1−β confidence radius (counterexample m = 2,
k = 100, β = 0.05: the tail is 0.0835); :func:`radius_quantile` is the Monte Carlo
replacement, and α_λ = λ·α (eq. 15) stays only as the student's loss radius.

Examples
--------
>>> round(gamma_split(5.0, 6, 0.1), 6)                     # spec B1
2.419646
>>> round(theorem1_epsilon(5.0, 6, 0.1, 1e-3, 0.01), 6)    # spec B3
3.26567
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betainc, gammaln, logsumexp

from core.common.errors import InputError
from core.common.stats import cp_upper
from core.common.validation import RandomSource, as_random_source
from core.privacy.dirichlet import dirichlet_rows

__all__ = ["BOUNDS", "ACCOUNTANTS", "LEMMA_1_WARNING", "DeltaEstimate", "gamma_split",
           "gamma_split_limit", "theorem1_epsilon", "vertex", "delta_closed_form", "delta_mc",
           "tau_for_delta",
           "alpha_lambda", "ignore_threshold", "radius_quantile", "lemma1_tail_m2",
           "check_sharing", "teacher_policy_in_domain", "MC_DRAWS", "MC_LEVEL",
           "PrivacyCurve", "privacy_curve", "RadiusCurve", "radius_curve", "RowPrivacyL2",
           "row_privacy_l2", "neighbour_pairs", "tight_epsilon_curve"]

BOUNDS = ("paper", "tight")
#: The accountants of a shared policy: the certified exact profile
#: (:mod:`core.sharing.profile`; needs a target δ) and Theorem 1's two forms.
ACCOUNTANTS = ("profile",) + BOUNDS
MC_DRAWS = 200_000
MC_LEVEL = 0.95
LEMMA_1_WARNING = (
    "Lemma 1 of the paper is false as stated: the radius sqrt(ln(1/beta)/(2(k+1))) is not a "
    "1-beta confidence radius of ||Dir_k(pi) - pi||_2 (m = 2, k = 100, beta = 0.05: the tail "
    "is 0.0835 > 0.05). alpha_lambda is kept as the student's loss radius only; the Monte "
    "Carlo quantile is the calibrated radius.")


def check_sharing(m: int, eta: float, *, k: float | None = None, tau: float | None = None,
                  lb: float | None = None) -> None:
    """Refuse parameters outside Theorem 1's domain, naming the field.

    Parameters
    ----------
    m : int
        Number of actions (>= 2).
    eta : float
        η in (0, 1/m]: every shared policy entry is at least η.
    k : float, optional
        Concentration (> 0).
    tau : float, optional
        Threshold τ in (0, 1/m).
    lb : float, optional
        L·b >= 0 (the ℓ2 radius of neighbouring shared policies).

    Raises
    ------
    InputError
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise InputError(f"must be an integer >= 2 (actions), got {m!r}", field="m")
    if not (isinstance(eta, (int, float)) and math.isfinite(eta) and 0 < eta <= 1.0 / m):
        raise InputError(f"must lie in (0, 1/m] = (0, {1.0 / m:.6g}] for m = {m}, got {eta!r}"
                         " (the restricted simplex is empty above 1/m)", field="eta")
    if k is not None and not (isinstance(k, (int, float)) and math.isfinite(k) and k > 0):
        raise InputError(f"must be > 0, got {k!r}", field="k")
    if tau is not None and not (isinstance(tau, (int, float)) and 0 < tau < 1.0 / m):
        raise InputError(f"must lie in (0, 1/m) = (0, {1.0 / m:.6g}), got {tau!r}", field="tau")
    if lb is not None and not (isinstance(lb, (int, float)) and math.isfinite(lb) and lb >= 0):
        raise InputError(f"must be finite and >= 0, got {lb!r}", field="lb")


def gamma_split(k: float, m: int, eta: float) -> float:
    """G(k, m, η) = (m−1)·lnΓ(kη) + lnΓ(k(1−(m−1)η)) − m·lnΓ(k/m): the part of eq. 12
    that does not scale with L·b (>= 0, 0 at η = 1/m).

    Parameters
    ----------
    k : float
        Concentration.
    m : int
        Actions.
    eta : float
        η.

    Returns
    -------
    float
    """
    check_sharing(m, eta, k=k)
    terms = _gamma_terms(k, m, eta)
    return max(math.fsum(terms), 0.0)  # >= 0 in exact arithmetic; rounding may dip below


def _gamma_terms(k: float, m: int, eta: float) -> tuple[float, float, float]:
    return ((m - 1) * float(gammaln(k * eta)), float(gammaln(k * (1.0 - (m - 1) * eta))),
            -m * float(gammaln(k / m)))


def gamma_split_limit(m: int, eta: float) -> float:
    """lim_{k→0} G(k, m, η) = −(m−1)ln η − m ln m − ln(1−(m−1)η) (the ln k terms cancel).

    Parameters
    ----------
    m : int
        Actions.
    eta : float
        η.

    Returns
    -------
    float
    """
    check_sharing(m, eta)
    return -(m - 1) * math.log(eta) - m * math.log(m) - math.log1p(-(m - 1) * eta)


def theorem1_epsilon(k: float, m: int, eta: float, tau: float, lb: float, *,
                     bound: str = "paper") -> float:
    """ε of Theorem 1 (eq. 12) for one shared policy.

    Parameters
    ----------
    k : float
        Concentration (> 0).
    m : int
        Actions.
    eta : float
        η (shared policies lie in Δ_{m,η}).
    tau : float
        The threshold τ of the partition (δ is :func:`delta_mc` at the same τ).
    lb : float
        L·b, the ℓ2 radius of neighbouring shared policies.
    bound : {"paper", "tight"}
        ``paper``: √m·L·b·k·ln(1/τ) + G (eq. 12); ``tight``: half the first term (spec §1.3,
        derived: the linear term is at most ‖π − π′‖₁/2 · ln(1/τ) <= √m·L·b/2 · ln(1/τ)).

    Returns
    -------
    float
    """
    check_sharing(m, eta, k=k, tau=tau, lb=lb)
    if bound not in BOUNDS:
        raise InputError(f"must be one of {BOUNDS}, got {bound!r}", field="bound")
    linear = math.sqrt(m) * lb * k * math.log(1.0 / tau)
    if bound == "tight":
        linear /= 2.0
    terms = _gamma_terms(k, m, eta)
    # a proven upper bound: G is a difference of large lnΓ values (8e4 at k = 1e4), so
    # allow for the rounding of each term (gammaln is accurate to a few ulp)
    allowance = 16 * 2.0**-52 * (abs(linear) + sum(abs(t) for t in terms))
    return linear + max(math.fsum(terms), 0.0) + allowance


def vertex(m: int, eta: float) -> np.ndarray:
    """The vertex (η, …, η, 1 − (m−1)η) of Δ_{m,η}, where δ of eq. 6 is evaluated.

    Parameters
    ----------
    m : int
        Actions.
    eta : float
        η.

    Returns
    -------
    numpy.ndarray
    """
    check_sharing(m, eta)
    v = np.full(m, float(eta))
    v[-1] = 1.0 - (m - 1) * eta
    return v


def delta_closed_form(k: float, m: int, eta: float, tau: float) -> float | None:
    """δ of eq. 6 where it has a closed form, else None (the tests' oracles, spec B5–B6).

    * m = 2: I_τ(kη, k(1−η)) + I_τ(k(1−η), kη) (τ < ½);
    * k = m and η = 1/m (the uniform Dirichlet): 1 − (1 − mτ)^{m−1}.

    Parameters
    ----------
    k : float
        Concentration.
    m : int
        Actions.
    eta : float
        η.
    tau : float
        τ.

    Returns
    -------
    float or None
    """
    check_sharing(m, eta, k=k, tau=tau)
    if m == 2:
        return float(betainc(k * eta, k * (1 - eta), tau) + betainc(k * (1 - eta), k * eta, tau))
    if math.isclose(k, m, rel_tol=0, abs_tol=1e-12) and math.isclose(eta, 1.0 / m,
                                                                     rel_tol=1e-12):
        return 1.0 - (1.0 - m * tau) ** (m - 1)
    return None


@dataclass(frozen=True)
class DeltaEstimate:
    """A Monte Carlo δ: the point estimate and its one-sided Clopper–Pearson upper bound
    (the value the ledger uses), with how it was drawn."""

    estimate: float
    upper: float
    misses: int
    draws: int
    level: float
    mode: str
    seed: int | None

    @property
    def text(self) -> str:
        return (f"δ ≤ {self.upper:.4g} ({self.level:.0%} Clopper–Pearson upper bound; "
                f"estimate {self.estimate:.4g} from {self.draws:,} draws, "
                + (f"seed {self.seed})" if self.seed is not None else f"{self.mode})"))


def _estimate(misses: int, draws: int, level: float, src: RandomSource) -> DeltaEstimate:
    """δ from ``misses`` of ``draws``: the estimate and its one-sided CP upper bound."""
    return DeltaEstimate(estimate=misses / draws, upper=float(cp_upper(misses, draws, level)),
                         misses=misses, draws=draws, level=level, mode=src.mode, seed=src.seed)


def _vertex_log_minima(k: float, m: int, eta: float, draws: int, src: RandomSource,
                       block: int = 100_000) -> np.ndarray:
    """ln(min_i x_i) of ``draws`` samples of Dir_k(vertex), exactly in log space.

    Entries with shape a = kπ_i < 1 are drawn as ln G_{a+1} + ln(U)/a (no underflow), and
    ln x_i = ln G_i − logsumexp(ln G): at tiny k the minimum is far below the smallest
    double (e^-10⁴ is common), and a floored sample would make δ = P(min x < τ) look small
    where it is in fact close to 1.
    """
    a = k * vertex(m, eta)
    small = a < 1.0
    shape = np.where(small, a + 1.0, a)
    gen = src.generator
    out = np.empty(draws)
    for start in range(0, draws, block):
        n = min(block, draws - start)
        logg = np.log(gen.standard_gamma(np.broadcast_to(shape, (n, m)).copy()))
        if small.any():
            u = 1.0 - gen.random((n, m))  # (0, 1]
            logg += np.where(small, np.log(u) / a, 0.0)
        out[start:start + n] = logg.min(axis=1) - logsumexp(logg, axis=1)
    return out


def delta_mc(k: float, m: int, eta: float, tau: float, *, draws: int = MC_DRAWS,
             rng: "np.random.Generator | int | RandomSource | None" = 0,
             level: float = MC_LEVEL) -> DeltaEstimate:
    """δ of eq. 6 by Monte Carlo at the vertex: misses/N and the one-sided CP upper bound.

    Parameters
    ----------
    k, m, eta, tau :
        As in :func:`theorem1_epsilon`.
    draws : int
        Samples N.
    rng : int, Generator, RandomSource or None
        A seed (reproducible) or None (the OS's CSPRNG).
    level : float
        Confidence of the upper bound.

    Returns
    -------
    DeltaEstimate
    """
    check_sharing(m, eta, k=k, tau=tau)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 100:
        raise InputError(f"must be an integer >= 100, got {draws!r}", field="draws")
    src = as_random_source(rng)
    log_minima = _vertex_log_minima(k, m, eta, int(draws), src)
    s = int((log_minima < math.log(tau)).sum())
    return _estimate(s, int(draws), level, src)


def tau_for_delta(k: float, m: int, eta: float, delta: float, *, draws: int = MC_DRAWS,
                  rng: "np.random.Generator | int | RandomSource | None" = 0,
                  level: float = MC_LEVEL) -> tuple[float, DeltaEstimate]:
    """The largest τ whose Monte Carlo δ upper bound is <= ``delta`` (a target δ per query).

    With the draws fixed, δ̂(τ) counts the minima below τ, so τ is the (f+1)-th smallest
    minimum, f the largest miss count whose CP upper bound is <= δ.

    Parameters
    ----------
    k, m, eta :
        As in :func:`theorem1_epsilon`.
    delta : float
        The target δ in (0, 1).
    draws, rng, level :
        As in :func:`delta_mc`.

    Returns
    -------
    (float, DeltaEstimate)
        τ and the δ estimate at τ (from the same draws).

    Raises
    ------
    InputError
        ``delta`` cannot be shown with this many draws, or no τ in (0, 1/m) reaches it.
    """
    check_sharing(m, eta, k=k)
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
    src = as_random_source(rng)
    log_minima = np.sort(_vertex_log_minima(k, m, eta, int(draws), src))
    lo, hi = -1, int(draws)
    while hi - lo > 1:  # largest f with cp_upper(f) <= delta
        mid = (lo + hi) // 2
        if float(cp_upper(mid, draws, level)) <= delta:
            lo = mid
        else:
            hi = mid
    if lo < 0:
        raise InputError(f"{draws:,} Monte Carlo draws cannot show delta <= {delta:g}; use more "
                         "draws or a larger delta", field="delta")
    # τ = the (f+1)-th smallest minimum; below the smallest normal double it cannot be
    # represented (nor would ln(1/τ) leave a useful ε): then no τ reaches δ here
    tau = min(math.exp(float(log_minima[lo])), (1.0 / m) * (1 - 1e-12))
    if not tau > 2.2250738585072014e-308:
        raise InputError(f"no tau in (0, 1/m) gives delta <= {delta:g} at k = {k:g} (the "
                         "Dirichlet mass sits on the vertices): raise k or delta",
                         field="delta")
    s = int(np.searchsorted(log_minima, math.log(tau), side="left"))
    return tau, _estimate(s, int(draws), level, src)


def alpha_lambda(k: float, lam: float, beta: float) -> float:
    """α_λ = λ·√(ln(1/β)/(2(k+1))) (eq. 15): the student's loss radius (not a confidence
    radius: :data:`LEMMA_1_WARNING`).

    Parameters
    ----------
    k : float
        Concentration (>= 0; 0 is the stopped teacher).
    lam : float
        λ >= 0.
    beta : float
        β in (0, 1).

    Returns
    -------
    float
    """
    _check_student(lam, beta)
    if not (math.isfinite(k) and k >= 0):
        raise InputError(f"must be >= 0, got {k!r}", field="k")
    return lam * math.sqrt(math.log(1.0 / beta) / (2.0 * (k + 1.0)))


def ignore_threshold(lam: float, beta: float) -> float:
    """k* = λ²·ln(1/β)/4 − 1: for k below it α_λ >= √2 = max ‖π_θ − π^t‖₂, and the student
    ignores every demonstration (spec §1.5; negative: never).

    Parameters
    ----------
    lam : float
        λ.
    beta : float
        β.

    Returns
    -------
    float
    """
    _check_student(lam, beta)
    return lam * lam * math.log(1.0 / beta) / 4.0 - 1.0


def _check_student(lam: float, beta: float) -> None:
    if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam >= 0):
        raise InputError(f"must be >= 0, got {lam!r}", field="lambda")
    if not (isinstance(beta, (int, float)) and 0 < beta < 1):
        raise InputError(f"must lie in (0, 1), got {beta!r}", field="beta")


def radius_quantile(k: float, pi: np.ndarray, beta: float, *, draws: int = 50_000,
                    rng: "np.random.Generator | int | RandomSource | None" = 0) -> float:
    """The Monte Carlo 1−β quantile of ‖Dir_k(π) − π‖₂: the radius Lemma 1 should have given.

    Parameters
    ----------
    k : float
        Concentration.
    pi : numpy.ndarray
        The policy (all entries > 0).
    beta : float
        β in (0, 1).
    draws : int
        Samples.
    rng : int, Generator, RandomSource or None
        Seed or generator.

    Returns
    -------
    float
    """
    pi = np.asarray(pi, dtype=np.float64)
    if pi.ndim != 1 or pi.size < 2 or not np.all(pi > 0) or abs(pi.sum() - 1) > 1e-9:
        raise InputError("must be a probability vector with every entry > 0", field="pi")
    if not 0 < beta < 1:
        raise InputError(f"must lie in (0, 1), got {beta!r}", field="beta")
    src = as_random_source(rng)
    x = dirichlet_rows(np.tile(pi, (int(draws), 1)), k, src)
    return float(np.quantile(np.linalg.norm(x - pi, axis=1), 1.0 - beta))


def lemma1_tail_m2(k: float, beta: float) -> tuple[float, float]:
    """Lemma 1's radius and the exact tail P(‖Dir_k(½, ½) − (½, ½)‖₂ >= radius) (m = 2).

    ‖x − π‖₂ = √2·|x₁ − ½| with x₁ ~ Beta(k/2, k/2), so the tail is
    2·(1 − I_{½ + r/√2}(k/2, k/2)). Spec B8: k = 100, β = 0.05 → (0.121780, 0.083472).

    Parameters
    ----------
    k : float
        Concentration.
    beta : float
        β.

    Returns
    -------
    (float, float)
        The radius and the exact tail (compare with β).
    """
    r = math.sqrt(math.log(1.0 / beta) / (2.0 * (k + 1.0)))
    u = 0.5 + r / math.sqrt(2.0)
    tail = 0.0 if u >= 1 else 2.0 * (1.0 - float(betainc(k / 2.0, k / 2.0, u)))
    return r, tail


def teacher_policy_in_domain(policy: np.ndarray, eta: float) -> np.ndarray:
    """π̃ = (1 − mη)·π + η·1: any policy mapped into Δ_{m,η} (spec F1; contracts
    neighbouring policies by 1 − mη, so L·b may be scaled by it).

    Parameters
    ----------
    policy : numpy.ndarray
        (..., m) probability vectors.
    eta : float
        η in (0, 1/m].

    Returns
    -------
    numpy.ndarray
    """
    p = np.asarray(policy, dtype=np.float64)
    m = p.shape[-1]
    check_sharing(m, eta)
    if np.any(p < -1e-12) or np.any(np.abs(p.sum(axis=-1) - 1.0) > 1e-9):
        raise InputError("every row must be a probability vector", field="policy")
    result: np.ndarray = (1.0 - m * eta) * np.clip(p, 0.0, None) + eta
    return result


@dataclass(frozen=True, eq=False)
class PrivacyCurve:
    """ε(k) and δ(k) of Theorem 1 on a grid of k (the panel the issue asks for): ε of eq. 12
    split into its L·b part and G, δ as a Monte Carlo point and its CP upper bound."""

    k: np.ndarray
    epsilon: np.ndarray
    epsilon_linear: np.ndarray
    gamma_part: np.ndarray
    delta: np.ndarray
    delta_upper: np.ndarray
    tau: float
    draws: int


def privacy_curve(ks: "np.ndarray | list[float]", m: int, eta: float, tau: float, lb: float, *,
                  bound: str = "paper", draws: int = 10_000,
                  rng: "np.random.Generator | int | RandomSource | None" = 0) -> PrivacyCurve:
    """ε(k), its split, and the Monte Carlo δ(k) with CP upper bounds at a fixed τ.

    δ is not monotone in k (→ 1 as k → 0 and as k → ∞ stays small): the curve shows it.

    Parameters
    ----------
    ks : sequence of float
        Concentrations.
    m, eta, tau, lb, bound :
        As in :func:`theorem1_epsilon`.
    draws : int
        Monte Carlo draws per k.
    rng : int, Generator, RandomSource or None
        Seed (the same draws' stream for every k).

    Returns
    -------
    PrivacyCurve
    """
    ks_arr = np.asarray(ks, dtype=np.float64)
    bound = bound if bound in BOUNDS else "paper"  # the curve is eq. 12's (the profile: beside)
    eps = np.array([theorem1_epsilon(float(k), m, eta, tau, lb, bound=bound) for k in ks_arr])
    g = np.array([gamma_split(float(k), m, eta) for k in ks_arr])
    src = as_random_source(rng)
    d = [delta_mc(float(k), m, eta, tau, draws=draws, rng=src) for k in ks_arr]
    return PrivacyCurve(k=ks_arr, epsilon=eps, epsilon_linear=eps - g, gamma_part=g,
                        delta=np.array([x.estimate for x in d]),
                        delta_upper=np.array([x.upper for x in d]), tau=float(tau),
                        draws=int(draws))


@dataclass(frozen=True, eq=False)
class RadiusCurve:
    """α_λ(k) (eq. 15, the loss radius) against radii that hold: the Monte Carlo 1−β quantile
    of ‖Dir_k(π) − π‖₂ (worst of the uniform point and a vertex of Δ_{m,η}) and Chebyshev's
    √((1 − 1/m)/((k+1)β)); Lemma 1's λ = 1 radius for comparison."""

    k: np.ndarray
    alpha_lambda: np.ndarray
    lemma1: np.ndarray
    quantile: np.ndarray
    chebyshev: np.ndarray
    ignore_below: float
    warning: str = LEMMA_1_WARNING


def radius_curve(ks: "np.ndarray | list[float]", m: int, eta: float, lam: float, beta: float, *,
                 draws: int = 20_000,
                 rng: "np.random.Generator | int | RandomSource | None" = 0) -> RadiusCurve:
    """The student's loss radius next to the concentration radii that are true.

    Parameters
    ----------
    ks : sequence of float
        Concentrations.
    m, eta :
        Actions and η.
    lam, beta :
        λ and β of eq. 15.
    draws : int
        Monte Carlo draws per k and point.
    rng : int, Generator, RandomSource or None
        Seed.

    Returns
    -------
    RadiusCurve
    """
    check_sharing(m, eta)
    ks_arr = np.asarray(ks, dtype=np.float64)
    src = as_random_source(rng)
    points = [np.full(m, 1.0 / m), vertex(m, eta)]
    q = np.array([max(radius_quantile(float(k), p, beta, draws=draws, rng=src) for p in points)
                  for k in ks_arr])
    a = np.array([alpha_lambda(float(k), lam, beta) for k in ks_arr])
    l1 = np.array([alpha_lambda(float(k), 1.0, beta) for k in ks_arr])
    cheb = np.sqrt((1.0 - 1.0 / m) / ((ks_arr + 1.0) * beta))
    return RadiusCurve(k=ks_arr, alpha_lambda=a, lemma1=l1, quantile=q, chebyshev=cheb,
                       ignore_below=ignore_threshold(lam, beta))


@dataclass(frozen=True)
class RowPrivacyL2:
    """(ε, δ) of one privatised probability row under the [KS] all-entries ℓ2 adjacency
    (spec F2): the row is the identity query on Δ_{n,η} (L = 1), neighbours differ by at most
    ``b`` in ℓ2 in any of their entries; ε of eq. 12, δ of eq. 6 by Monte Carlo."""

    epsilon: float
    delta: float
    delta_estimate: float
    tau: float
    k: float
    n: int
    eta: float
    b: float
    bound: str
    draws: int
    seed: int | None
    epsilon_eq12: float | None = None  # Theorem 1 beside the profile
    epsilon_lower: float | None = None
    adjacency: str = ("two rows of the simplex restricted to entries >= eta that differ by at "
                      "most b in l2, in any of their entries ([KS] Theorem 1 with L = 1); a "
                      "record-level change (one of n_sa transition samples replaced) moves two "
                      "entries by 1/n_sa: b = sqrt(2)/n_sa here, b = 2/n_sa in l1 for the "
                      "two-entry analysis")

    def to_dict(self) -> dict[str, Any]:
        if self.bound == "profile":
            return {"epsilon": self.epsilon, "delta": self.delta, "gamma": None,
                    "gamma_reason": "the exact profile needs no threshold set",
                    "epsilon_approx": None,
                    "epsilon_approx_reason": "Lemma 1.7 belongs to the two-entry l1 analysis",
                    "delta_method": "profile", "adjacency": "l2-all",
                    "adjacency_text": self.adjacency, "k": self.k, "n": self.n,
                    "eta": self.eta, "b": self.b, "bound": "profile",
                    "epsilon_lower": self.epsilon_lower, "epsilon_eq12": self.epsilon_eq12,
                    "epsilon_eq12_reason": None if self.epsilon_eq12 is not None else
                    "eq. 12 needs its threshold tau, solved by Monte Carlo (give --bound paper)",
                    "warnings": []}
        return {"epsilon": self.epsilon, "delta": self.delta, "gamma": self.tau,
                "tau": self.tau, "delta_estimate": self.delta_estimate,
                "epsilon_approx": None,
                "epsilon_approx_reason": "Lemma 1.7 belongs to the two-entry l1 analysis",
                "delta_method": "mc", "adjacency": "l2-all", "adjacency_text": self.adjacency,
                "k": self.k, "n": self.n, "eta": self.eta, "b": self.b, "bound": self.bound,
                "draws": self.draws, "seed": self.seed,
                "warnings": ["delta is a 95 % one-sided Clopper-Pearson upper bound from "
                             f"{self.draws:,} Monte Carlo draws: a statistical bound"]}


def row_privacy_l2(k: float, n: int, eta: float, b: float, *, delta: float | None = None,
                   tau: float | None = None, bound: str = "profile", draws: int = MC_DRAWS,
                   rng: "np.random.Generator | int | RandomSource | None" = 0) -> RowPrivacyL2:
    """The F2 adjacency switch: a Dirichlet-privatised row under all-entries ℓ2 adjacency.

    Parameters
    ----------
    k : float
        Concentration.
    n : int
        Entries of the row (its support size).
    eta : float
        η: every entry at least η (<= 1/n).
    b : float
        The ℓ2 radius of neighbouring rows.
    delta, tau : float
        A target δ (τ solved by Monte Carlo) or a fixed τ; exactly one.
    bound : {"profile", "paper", "tight"}
        The certified exact profile (default; needs a target δ), or eq. 12 as printed, or
        with the halved first term.
    draws : int
        Monte Carlo draws.
    rng : int, Generator, RandomSource or None
        Seed.

    Returns
    -------
    RowPrivacyL2
    """
    if (delta is None) == (tau is None):
        raise InputError("give exactly one of delta (a target) and tau", field="delta")
    check_sharing(n, eta, k=k, tau=tau, lb=b)
    if bound == "profile":
        if delta is None:
            raise InputError("the exact profile needs a target delta (a fixed tau belongs to "
                             "eq. 12: --bound paper)", field="tau")
        from core.sharing.profile import l2_profile

        prof = l2_profile(float(k), int(n), float(eta), float(b), delta=float(delta))
        return RowPrivacyL2(epsilon=prof.epsilon, delta=float(delta),
                            delta_estimate=float(delta), tau=math.nan, k=float(k), n=int(n),
                            eta=float(eta), b=float(b), bound="profile", draws=0, seed=None,
                            epsilon_lower=prof.epsilon_lower)
    if bound not in BOUNDS:
        raise InputError(f"must be one of {ACCOUNTANTS}, got {bound!r}", field="bound")
    src = as_random_source(rng)
    if tau is None:
        assert delta is not None
        tau, est = tau_for_delta(k, n, eta, delta, draws=draws, rng=src)
    else:
        est = delta_mc(k, n, eta, tau, draws=draws, rng=src)
    eps = theorem1_epsilon(k, n, eta, tau, b, bound=bound)
    return RowPrivacyL2(epsilon=eps, delta=est.upper, delta_estimate=est.estimate, tau=tau,
                        k=float(k), n=int(n), eta=float(eta), b=float(b), bound=bound,
                        draws=int(draws), seed=src.seed)


def neighbour_pairs(m: int, eta: float, lb: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Candidate worst pairs (spec F3): the vertex of Δ_{m,η} and the uniform point, each
    against itself moved by ``lb`` (ℓ2) along e_i − e_j, where that stays in the domain.

    Parameters
    ----------
    m, eta, lb :
        Actions, η and L·b.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
    """
    check_sharing(m, eta, lb=lb)
    step = lb / math.sqrt(2.0)
    out = []
    for p in (vertex(m, eta), np.full(m, 1.0 / m)):
        for i, j in ((m - 1, 0), (0, m - 1), (0, 1)):
            q = p.copy()
            q[i] += step
            q[j] -= step
            if q.min() >= eta - 1e-15 and not np.allclose(p, q):
                out.append((p, q))
    return out


def tight_epsilon_curve(ks: "np.ndarray | list[float]", m: int, eta: float, lb: float,
                        deltas: "np.ndarray | list[float]", *, draws: int = 4000,
                        rng: "np.random.Generator | int | None" = 0) -> np.ndarray:
    """An estimate of the mechanism's true ε at each k and δ: the largest Monte Carlo
    ε_tight(δ) over :func:`neighbour_pairs` (the Audit capability's Dirichlet profile). A
    lower estimate of the true ε, for comparison with eq. 12 (NaN where δ is not in
    (1e-6, 0.5)).

    Parameters
    ----------
    ks : sequence of float
        Concentrations.
    m, eta, lb :
        Actions, η and L·b.
    deltas : sequence of float
        δ per k (the curve's).
    draws : int
        Draws per side and pair.
    rng : int, Generator or None
        Seed.

    Returns
    -------
    numpy.ndarray
    """
    from core.audit.dirichlet import epsilon_tight_mc

    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    pairs = neighbour_pairs(m, eta, lb)
    out = np.full(len(ks), np.nan)
    for i, (k, d) in enumerate(zip(ks, deltas)):
        if not 1e-6 < d < 0.5 or not pairs:
            continue
        out[i] = max(epsilon_tight_mc(p, q, float(k), float(d), draws, gen) for p, q in pairs)
    return out
