"""The exact privacy profile of the Dirichlet mechanism under two-entry adjacency.

Size: one certified computation — the worst pair's profile, its ε search and the
"ε at most a target?" questions the designer asks share the same bracketing and error
accounting; split, each part would re-derive the certified margins of the others.

This is PrivPlan's default accountant for Dir_k (``delta_method="profile"``). It replaces the
γ-partition analysis of Theorem 1.6 (a union of a tail bound and a worst-case log-ratio on
a threshold set) by the hockey-stick divergence of the *worst neighbouring pair*, computed
exactly and certified. The derivation, step by step (``docs/privacy-profile.md`` has it with
pictures of the region):

1. **One pair is a pair of Beta laws.** Neighbours p, q of one row differ in two entries
   i, j only: q_i = p_i − Δ, q_j = p_j + Δ. The ratio of the Dirichlet densities is
   ``B(kq)/B(kp) · (x_i/x_j)^{kΔ}``, a function of t = x_i/(x_i + x_j) alone, so t is a
   sufficient statistic of the pair and, by the aggregation property of the Dirichlet,
   t ~ Beta(kp_i, kp_j) under p and Beta(kq_i, kq_j) under q. Writing x := kq_i,
   y := kp_j, d := kΔ the pair is

       P = Beta(x + d, y),   Q = Beta(x, y + d),   L(t) = c₀ + d·logit(t),
       c₀ = lnΓ(x) + lnΓ(y + d) − lnΓ(x + d) − lnΓ(y),

   and its hockey-stick divergence H_{e^ε}(P‖Q) = sup_S P(S) − e^ε·Q(S) (the smallest δ
   with P(S) <= e^ε Q(S) + δ for every S) is attained on the threshold set S = {L > ε} =
   {t > τ}: ``δ(ε) = I_{1−τ}(y, x + d) − e^ε·I_{1−τ}(y + d, x)``, τ = σ((ε − c₀)/d) —
   two regularised incomplete beta values, no union bound.
2. **Reverse direction.** H(Q‖P) of the pair (x, y, d) equals, after t ↦ 1 − t,
   H(P′‖Q′) of the pair (y, x, d). Every region below is symmetric in x ↔ y, so one
   direction covers both.
3. **Smaller shapes are worse (post-processing).** Draw S ~ Gamma(x + y + d) independently
   (the same law under P and Q), set G₁ = tS, G₂ = (1 − t)S (independent Gamma(x + d),
   Gamma(y) under P; Gamma(x), Gamma(y + d) under Q), add an independent Gamma(e) to G₁
   and output G₁′/(G₁′ + G₂). This maps the pair (x, y, d) to (x + e, y, d) by a
   randomisation that does not depend on which of P, Q is true, so by the data-processing
   inequality H_{e^ε} can only fall, for every ε. The same holds for y.
4. **A larger move is worse (stochastic order).** For d′ > d, Beta(x + d′, y) is
   stochastically larger than Beta(x + d, y) and Beta(x, y + d′) smaller than
   Beta(x, y + d). With τ the optimal threshold of the pair d,
   δ_d(ε) = P_d(t > τ) − e^ε Q_d(t > τ) <= P_{d′}(t > τ) − e^ε Q_{d′}(t > τ) <= δ_{d′}(ε).
5. **The worst pair.** So over a region {x, y >= kη, d <= d_max, x + y + d <= k·s_max}
   the supremum of δ(ε), for every ε at once, is the pair (kη, kη, d*) with
   d* = min(d_max, k·s_max − 2kη) — a feasible pair, so the profile is *exact* (tight: a
   neighbouring pair attains it). This covers the within-support analysis for n >= 3
   (s_max = 1 − (n − 2)η) and Theorem 1.6's W-analysis (s_max = 1 − η̄ − (|W| − 2)η).
   For a support of n = 2 the entries sum to 1 (x + y + d = k), the corner is not
   feasible, and by 4 the move is d_max: the worst case is a one-dimensional search over
   x, which is certified by branch and bound (a cell [x₀, x₁] is dominated, by 3, by the
   pair (x₀, k − d − x₁, d); the supremum is the largest cell bound, and cells are split
   until that is within a relative 1e-6 of a feasible pair's value).

Numerics. δ(ε) is certified from above: c₀ carries the rounding of ``gammaln``; the
optimal threshold is bracketed [τ₋, τ₊] and δ <= P(t > τ₋) − e^ε·Q(t > τ₊); every
``betainc`` value carries a relative error ρ = 1e-12 (Boost's ibeta, the same allowance
as :mod:`core.privacy.dirichlet_accounting`); the pair's shapes are rounded down and the
move up by a few ulp (3 and 4 make that conservative). ε(δ̂) is found by bisection and the
returned ε is verified (δ₊(ε) <= δ̂). A certified *lower* value (any threshold gives
P(S) − e^ε Q(S) <= δ) brackets the truth; tests check the bracket is narrow.

For composition (all rows at once, several k, ledger totals) a profile becomes a
privacy-loss distribution for Google's dp-accounting with the pessimistic
"connect-the-dots" discretisation (Doroshenko et al. 2022) of its certified envelope,
after taking the greatest convex minorant in e^ε (the true curve is convex in e^ε and
below the envelope, so the minorant still dominates it): :meth:`RowProfile.pld`.

Examples
--------
>>> prof = support_profile(10.0, 0.02, 3, 0.1 * (1 - 3 * 0.02))
>>> round(prof.epsilon(0.05), 4)
5.9166
>>> prof.exact, prof.witness.x == prof.witness.y == 10.0 * 0.02
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.special import betainc, betaincc, betaln, expit, gammaln

__all__ = ["BetaPair", "RowProfile", "pair_delta", "pair_delta_lower", "pair_epsilon",
           "support_profile", "w_profile", "PROFILE_LABEL", "RHO", "DELTA_FLOOR",
           "convex_minorant", "upper_tail", "pair_epsilon_at_most"]

#: Relative error allowed for one ``scipy.special.betainc`` value.
RHO = 1e-12
#: The smallest δ certified (below it betainc underflows): smaller targets are refused.
DELTA_FLOOR = 1e-300
_EPS = float(np.finfo(np.float64).eps)
_TAIL = 1e-13           # the envelope's δ at the top of a PLD grid (the rest goes to ∞)
_EPS_CAP = 700.0        # e^ε stays finite below this
_Z_CUT = 700.0          # beyond |logit t| = 700 the thresholds σ(∓z) underflow
_BB_RTOL = 1e-6
_BB_MAX_CELLS = 400

PROFILE_LABEL = ("exact privacy profile: hockey-stick divergence of the worst neighbouring "
                 "pair (two regularised incomplete beta values; certified upper bound)")


# --------------------------------------------------------------------------- one pair
@dataclass(frozen=True)
class BetaPair:
    """P = Beta(x + d, y) against Q = Beta(x, y + d): one neighbouring pair (module docstring).

    ``x`` is k times the entry that gives mass, after the move; ``y`` k times the entry that
    receives it, before; ``d`` k times the moved mass.
    """

    x: float
    y: float
    d: float

    def conservative(self) -> "BetaPair":
        """Shapes rounded down and the move up by 4 ulp: a pair that dominates this one."""
        f = 4 * _EPS
        return BetaPair(self.x * (1 - f), self.y * (1 - f), self.d * (1 + f))

    def to_list(self) -> list[float]:
        return [self.x, self.y, self.d]


def _loss_offset(x: float, y: float, d: float) -> tuple[float, float]:
    """c₀ and a bound on its rounding error."""
    terms = (float(gammaln(x)), float(gammaln(y + d)), -float(gammaln(x + d)),
             -float(gammaln(y)))
    c0 = math.fsum(terms)
    return c0, 16 * _EPS * (1.0 + sum(abs(t) for t in terms))


def upper_tail(alpha: float, beta: float, z: np.ndarray) -> np.ndarray:
    """P(logit t > z) for t ~ Beta(α, β), accurate over all of ℝ (no 1 − x cancellation).

    For |z| < 700 the threshold σ(±z) is representable: the regularised incomplete beta of
    the *smaller* side (``betainc`` above the median threshold, ``betaincc`` below). Beyond
    that σ(∓z) underflows while tiny shapes can still hold real mass there (Beta(1e-5, ·)
    puts ~99 % of its mass within 1e-300 of 0), so the leading term of the series
    I_u(a, b) = u^a (1−u)^b ₂F₁(a+b, 1; a+1; u)/(a·B(a, b)) is used in logs: for
    u <= e^-700 its relative error is below (a + b)·u, far under :data:`RHO`.

    Parameters
    ----------
    alpha, beta : float
        The Beta shapes.
    z : numpy.ndarray
        Thresholds on logit t.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> float(upper_tail(1e-5, 1e-5, np.array([2000.0]))[0]) > 0.49  # mass near t = 1
    True
    """
    z = np.asarray(z, dtype=np.float64)
    if z.shape == (1,) and not math.isnan(float(z[0])):  # the ε searches: one threshold,
        zf = float(z[0])  # a branch on it rather than four masks (a third of the time)
        part = 0 if zf <= -_Z_CUT else 1 if zf <= 0 else 2 if zf < _Z_CUT else 3
        out = _tail_part(alpha, beta, z, part)
    else:
        out = np.empty_like(z)
        lo, hi = z <= -_Z_CUT, z >= _Z_CUT
        for part, where in enumerate((lo, (~lo) & (z <= 0), (~hi) & (z > 0), hi)):
            if where.any():
                out[where] = _tail_part(alpha, beta, z[where], part)
    result: np.ndarray = np.clip(out, 0.0, 1.0)
    return result


def _tail_part(alpha: float, beta: float, z: np.ndarray, part: int) -> np.ndarray:
    """:func:`upper_tail` (before clipping) of thresholds all in one range: ``part`` 0 for
    z <= −700, 1 for −700 < z <= 0, 2 for 0 < z < 700, 3 for z >= 700."""
    if part == 0:  # 1 − I_τ(α, β), τ = σ(z) <= e^-700
        log_low = alpha * z - math.log(alpha) - float(betaln(alpha, beta))
        low: np.ndarray = -np.expm1(np.minimum(log_low, 0.0))
        return low
    if part == 3:  # I_u(β, α), u = σ(−z) <= e^-700
        log_up = -beta * z - math.log(beta) - float(betaln(beta, alpha))
        up: np.ndarray = np.exp(np.minimum(log_up, 0.0))
        return up
    mid: np.ndarray = (betaincc(alpha, beta, expit(z)) if part == 1
                       else betainc(beta, alpha, expit(-z)))
    return mid


def _tails(pair: BetaPair, eps: np.ndarray, shift: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(t > τ′), Q(t > τ″) and ε, for the thresholds moved by ∓/± ``shift`` in logit."""
    x, y, d = pair.x, pair.y, pair.d
    c0, err = _loss_offset(x, y, d)
    z = (eps - c0) / d
    wide = shift * ((err + 4 * _EPS * (np.abs(eps) + abs(c0))) / d + 4 * _EPS * np.abs(z)
                    + 1e-300)
    # the optimal set {L > ε} = {logit t > z}; widened so the true z lies in [z−w, z+w]
    tp = upper_tail(x + d, y, z - wide)
    tq = upper_tail(x, y + d, z + wide)
    return tp, tq, eps


def _hockey(tp: np.ndarray, tq: np.ndarray, eps: np.ndarray, upper: bool) -> np.ndarray:
    """P(S)·(1 ± ρ) − e^ε·Q(S)·(1 ∓ ρ), clipped to [0, 1]; an upper value is never below
    :data:`DELTA_FLOOR` (betainc underflows below it, so smaller values are not certified)."""
    r = RHO if upper else -RHO
    if tp.shape == tq.shape == eps.shape == (1,):  # the ε searches: one value, no masks
        return np.array([_hockey_one(float(tp[0]), float(tq[0]), float(eps[0]), upper)])
    p = tp * (1 + r)
    q = tq * (1 - r)
    with np.errstate(divide="ignore"):
        logq = np.log(q)
    term = np.where(q > 0, np.exp(np.minimum(eps + logq, 700.0)), 0.0)
    term = term * (1 - 8 * _EPS) if upper else term * (1 + 8 * _EPS)
    out = np.clip(p - term, 0.0, 1.0)
    return np.maximum(out, DELTA_FLOOR) if upper else out


def _hockey_one(tp: float, tq: float, eps: float, upper: bool) -> float:
    """:func:`_hockey` of one (P(S), Q(S), ε) in floats: the same operations in the same
    order (a product, sum or comparison of two doubles is the same in Python and numpy;
    log and exp are numpy's), with the masks and clips as branches that keep their NaN and
    signed-zero results (``np.clip`` returns x unless x < 0 or x > 1)."""
    r = RHO if upper else -RHO
    p = tp * (1 + r)
    q = tq * (1 - r)
    term = 0.0
    if q > 0:
        v = eps + float(np.log(q))
        term = float(np.exp(700.0 if v > 700.0 else v))
    term = term * (1 - 8 * _EPS) if upper else term * (1 + 8 * _EPS)
    out = p - term
    out = 0.0 if out < 0.0 else 1.0 if out > 1.0 else out
    return (DELTA_FLOOR if out < DELTA_FLOOR else out) if upper else out


def pair_delta(pair: BetaPair, eps: "np.ndarray | float") -> np.ndarray:
    """Certified upper bound of H_{e^ε}(P‖Q) for the pair, vectorised over ε (any real ε).

    Parameters
    ----------
    pair : BetaPair
        The pair.
    eps : float or numpy.ndarray
        ε values.

    Returns
    -------
    numpy.ndarray
        δ(ε) from above (module docstring, "Numerics").

    Examples
    --------
    >>> float(pair_delta(BetaPair(1.0, 1.0, 0.0), 0.0)[0])
    0.0
    """
    e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    if pair.d <= 0:
        return np.maximum(0.0, -np.expm1(e)) + 0.0  # identical laws: H = (1 − e^ε)_+
    tp, tq, _ = _tails(pair, e, 1.0)
    return _hockey(tp, tq, e, upper=True)


def pair_delta_lower(pair: BetaPair, eps: "np.ndarray | float") -> np.ndarray:
    """A certified lower bound of H_{e^ε}(P‖Q) (any threshold set gives one).

    Parameters
    ----------
    pair : BetaPair
        The pair.
    eps : float or numpy.ndarray
        ε values.

    Returns
    -------
    numpy.ndarray
    """
    e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    if pair.d <= 0:
        return np.maximum(0.0, -np.expm1(e)) + 0.0
    tp, tq, _ = _tails(pair, e, 0.0)
    return _hockey(tp, tq, e, upper=False)


def _solve_epsilon(delta_of: Callable[[float], float], target: float, tol: float = 1e-10,
                   bound: float | None = None) -> float:
    """Smallest ε >= 0 found with ``delta_of(ε) <= target`` (verified; bisection).

    With ``bound`` the search stops as soon as it knows on which side of ``bound`` its
    result falls, and returns a value on that same side (an ε found verified <= ``bound``,
    or ``math.inf``): every ε where δ was found above target lies strictly below the result
    (``lo``), every verified ε lies at or above it (``hi``), whatever the shape of
    ``delta_of``, so the answer to "result <= bound?" is the full search's.
    """
    if delta_of(0.0) <= target:
        return 0.0
    hi = 1.0
    while delta_of(hi) > target:
        if bound is not None and hi >= bound:
            return math.inf  # the result exceeds this failing ε
        hi *= 2.0
        if hi > 1e6:
            return math.inf
    lo = 0.0 if hi == 1.0 else hi / 2.0
    while hi - lo > tol * max(1.0, hi):
        if bound is not None and (hi <= bound or lo >= bound):
            return hi if hi <= bound else math.inf
        mid = 0.5 * (lo + hi)
        if delta_of(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def _check_delta(delta: float) -> float:
    if not (isinstance(delta, (int, float, np.floating)) and 0 < delta < 1):
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
    if delta < 10 * DELTA_FLOOR:
        raise InputError(f"targets below {10 * DELTA_FLOOR:g} cannot be certified in floating "
                         f"point, got {delta:g}", field="delta")
    return float(delta)


@lru_cache(maxsize=4096)
def _pair_eps_cached(x: float, y: float, d: float, delta: float, upper: bool) -> float:
    pair = BetaPair(x, y, d)
    fn = pair_delta if upper else pair_delta_lower
    if upper:
        return _solve_epsilon(lambda e: float(fn(pair, e)[0]), delta)
    # the largest ε with a lower δ still above target: the truth lies above it
    if float(fn(pair, 0.0)[0]) <= delta:
        return 0.0
    hi = _solve_epsilon(lambda e: float(fn(pair, e)[0]), delta)
    return hi if not math.isfinite(hi) else max(0.0, hi * (1 - 1e-9) - 1e-12)


def pair_epsilon_at_most(pair: BetaPair, delta: float, bound: float) -> bool:
    """Whether the certified ε(δ̂) of the pair (``pair_epsilon(pair, delta)``) is at most
    ``bound``, found with fewer δ evaluations: the bisection stops once the answer is known.

    Parameters
    ----------
    pair : BetaPair
        The pair.
    delta : float
        δ̂ in (0, 1).
    bound : float
        The ε to compare with.

    Returns
    -------
    bool
        ``pair_epsilon(pair, delta) <= bound``, the same answer (the same δ evaluations in
        the same order, stopped early).

    Examples
    --------
    >>> pair = BetaPair(10.0, 10.0, 1.0)
    >>> e = pair_epsilon(pair, 1e-3)
    >>> pair_epsilon_at_most(pair, 1e-3, e), pair_epsilon_at_most(pair, 1e-3, e * (1 - 1e-9))
    (True, False)
    """
    delta = _check_delta(delta)
    if pair.d <= 0:
        return 0.0 <= bound
    return _solve_epsilon(lambda e: float(pair_delta(pair, e)[0]), delta, bound=bound) <= bound


def pair_epsilon(pair: BetaPair, delta: float, *, upper: bool = True) -> float:
    """ε(δ̂) of one pair: the certified ε (``upper``) or a certified lower value.

    Parameters
    ----------
    pair : BetaPair
        The pair.
    delta : float
        δ̂ in (0, 1).
    upper : bool
        True: the smallest ε found with the certified δ <= δ̂ (a valid ε). False: a value
        below the true ε(δ̂).

    Returns
    -------
    float
    """
    delta = _check_delta(delta)
    if pair.d <= 0:
        return 0.0
    return _pair_eps_cached(pair.x, pair.y, pair.d, delta, upper)


# --------------------------------------------------------------------------- convex hull
def convex_minorant(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The greatest convex minorant of the points (x, y) (x increasing), evaluated at x.

    Parameters
    ----------
    x, y : numpy.ndarray
        Abscissae (strictly increasing) and values.

    Returns
    -------
    numpy.ndarray
        Values of the lower convex hull at ``x`` (<= y, convex).

    Examples
    --------
    >>> convex_minorant(np.array([0., 1., 2.]), np.array([0., 2., 1.])).tolist()
    [0.0, 0.5, 1.0]
    """
    hull: list[int] = []
    for i in range(len(x)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # drop b if it lies on or above the chord a–i
            if (y[b] - y[a]) * (x[i] - x[a]) >= (y[i] - y[a]) * (x[b] - x[a]):
                hull.pop()
            else:
                break
        hull.append(i)
    result: np.ndarray = np.interp(x, x[hull], y[hull])
    return result


# --------------------------------------------------------------------------- one row
@dataclass(frozen=True)
class RowProfile:
    """The privacy profile of one Dirichlet-privatised row over its declared domain.

    ``pairs`` dominate every neighbouring pair of the domain (their pointwise maximum is
    the certified envelope); ``witness`` is a feasible neighbouring pair. ``exact`` when the
    envelope is the witness's own curve (one pair, attained); otherwise ε is refined by
    branch and bound (n = 2).
    """

    k: float
    eta: float
    n: int
    radius: float
    pairs: tuple[BetaPair, ...]
    witness: BetaPair
    exact: bool
    line: tuple[float, float, float] | None = None  # (x_min, x_max, d) of the n = 2 search
    description: str = ""
    # ("eps", δ) → epsilon_bracket's triple, ("cells", δ) → envelope_pairs' pairs
    _cache: dict[tuple[str, float], Any] = field(default_factory=dict, compare=False, repr=False)

    def delta(self, eps: "np.ndarray | float") -> np.ndarray:
        """Certified δ(ε): the maximum over the dominating pairs (both directions)."""
        e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
        result: np.ndarray = np.max([pair_delta(p, e) for p in self.pairs], axis=0)
        return result

    def epsilon(self, delta: float) -> float:
        """The certified ε at δ̂ (refined by branch and bound where the profile is a search)."""
        return self.epsilon_bracket(delta)[1]

    def epsilon_at_most(self, delta: float, bound: float) -> bool:
        """``self.epsilon(delta) <= bound``: for one dominating pair without the lower value
        and with the bisection stopped once the answer is known (:func:`pair_epsilon_at_most`;
        the designer's search over k asks only this); a branch-and-bound profile is refined
        in full."""
        delta = _check_delta(delta)
        if self.line is not None or ("eps", delta) in self._cache:
            return self.epsilon(delta) <= bound
        return pair_epsilon_at_most(self.pairs[0], delta, bound)

    def epsilon_bracket(self, delta: float) -> tuple[float, float, BetaPair]:
        """(a certified lower value, the certified ε, the worst feasible pair found)."""
        delta = _check_delta(delta)
        key = ("eps", delta)
        if key not in self._cache:
            if self.line is None:
                w = self.witness
                self._cache[key] = (pair_epsilon(w, delta, upper=False),
                                    pair_epsilon(self.pairs[0], delta), w)
            else:
                self._cache[key] = _line_search(*self.line, delta)
        bracket: tuple[float, float, BetaPair] = self._cache[key]
        return bracket

    def envelope_pairs(self, delta: float | None = None) -> tuple[BetaPair, ...]:
        """Dominating pairs for composition: the refined cells of the n = 2 search at δ̂."""
        if self.line is None or delta is None:
            return self.pairs
        key = ("cells", _check_delta(delta))
        if key not in self._cache:
            self._cache[key] = _line_cells(*self.line, delta)
        pairs: tuple[BetaPair, ...] = self._cache[key]
        return pairs

    def loss_range(self, pairs: Sequence[BetaPair] | None = None) -> float:
        """E with envelope δ(E) <= 1e-13 (capped at 700): the PLD grid is [−E, E]."""
        ps = tuple(pairs) if pairs is not None else self.pairs
        e = 1.0
        while e < _EPS_CAP and float(np.max([pair_delta(p, e)[0] for p in ps])) > _TAIL:
            e *= 2.0
        return min(e, _EPS_CAP)

    def pld(self, discretization: float, *, delta: float | None = None,
            points: int = 4096) -> Any:
        """This profile as a pessimistic dp-accounting PrivacyLossDistribution.

        Parameters
        ----------
        discretization : float
            The PLD's loss grid h (every composed PLD must share it).
        delta : float, optional
            For an n = 2 row: the δ̂ at which the dominating cells were refined.
        points : int
            At most this many connect-the-dots points on [−E, E].

        Returns
        -------
        dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        """
        from dp_accounting.pld import pld_pmf
        from dp_accounting.pld import privacy_loss_distribution as pldm

        pairs = self.envelope_pairs(delta)
        if all(p.d <= 0 for p in pairs):
            return pldm.identity(value_discretization_interval=discretization)
        top = self.loss_range(pairs)
        n_top = max(1, int(math.ceil(top / discretization)))
        step = max(1, int(math.ceil(2 * n_top / points)))
        idx = np.arange(-n_top, n_top + step, step, dtype=np.int64)
        eps = idx * discretization
        dl = np.max([pair_delta(p, eps) for p in pairs], axis=0)
        dl = np.minimum.accumulate(np.minimum(dl, 1.0))
        xs = np.exp(np.minimum(eps, _EPS_CAP))
        dl = np.maximum(convex_minorant(xs, dl), 0.0)
        pmf = pld_pmf.create_pmf_pessimistic_connect_dots(discretization, idx, dl)
        return pldm.PrivacyLossDistribution(pmf)


def _line_cells(x_min: float, x_max: float, d: float, delta: float,
                cells: int = 16) -> tuple[BetaPair, ...]:
    return tuple(c[2] for c in _bb(x_min, x_max, d, delta, cells)[0])


#: a branch-and-bound cell: (x₀, x₁, its dominating pair, that pair's ε, the cell's best
#: feasible pair, that pair's lower ε)
_Cell = tuple[float, float, BetaPair, float, BetaPair, float]


def _bb(x_min: float, x_max: float, d: float, delta: float, cells: int = 16
        ) -> tuple[list[tuple[float, float, BetaPair]], list[_Cell]]:
    """Branch and bound over x ∈ [x_min, x_max] on the line x + y + d = k (n = 2).

    A cell [x₀, x₁] holds pairs (x, k − d − x, d); by step 3 of the module docstring all of
    them are dominated by (x₀, k − d − x₁, d), and its end pairs are feasible.
    """
    total = x_max + x_min  # y = total − x keeps y >= x_min ⇔ x <= x_max
    edges = np.linspace(x_min, x_max, cells + 1)

    def cell(lo: float, hi: float) -> _Cell:
        dom = BetaPair(lo, total - hi, d).conservative()
        ub = pair_epsilon(dom, delta)
        w_lo, w_hi = BetaPair(lo, total - lo, d), BetaPair(hi, total - hi, d)
        lb_lo, lb_hi = (pair_epsilon(w, delta, upper=False) for w in (w_lo, w_hi))
        w, lb = (w_lo, lb_lo) if lb_lo >= lb_hi else (w_hi, lb_hi)
        return lo, hi, dom, ub, w, lb

    work = [cell(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:])]
    while len(work) < _BB_MAX_CELLS:
        best_lb = max(c[5] for c in work)
        i = int(np.argmax([c[3] for c in work]))
        lo, hi, _, ub, _, _ = work[i]
        if ub <= best_lb * (1 + _BB_RTOL) + 1e-12 or hi - lo <= 1e-12 * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        work[i:i + 1] = [cell(lo, mid), cell(mid, hi)]
    return [(c[0], c[1], c[2]) for c in work], work


def _line_search(x_min: float, x_max: float, d: float, delta: float
                 ) -> tuple[float, float, BetaPair]:
    _, work = _bb(x_min, x_max, d, delta)
    upper = max(c[3] for c in work)
    best = max(work, key=lambda c: c[5])
    return best[5], upper, best[4]


# --------------------------------------------------------------------------- domains
def support_profile(k: float, eta: float, n: int, radius: float) -> RowProfile:
    """The profile of a row on a support of ``n`` entries, all >= η, neighbours moving at
    most ``radius``/2 between any two entries (the within-support analysis of MDP rows;
    ``radius`` is the L1 distance after the public pre-processing, c·b).

    Parameters
    ----------
    k : float
        The concentration.
    eta : float
        η, the declared lower bound of every support entry.
    n : int
        The support size (>= 2).
    radius : float
        The L1 radius of neighbouring rows (> 0).

    Returns
    -------
    RowProfile

    Raises
    ------
    InputError
        When the domain is empty (n·η > 1).
    """
    k, eta, radius = float(k), float(eta), float(radius)
    if n < 2:
        raise InputError(f"the support size must be >= 2, got {n}", field="n")
    if n * eta > 1 + 1e-12:
        raise InputError(f"the domain is empty: n·eta = {n * eta:g} > 1 (need eta <= "
                         f"{1.0 / n:.6g} for a support of {n})", field="eta")
    room = max(0.0, 1.0 - n * eta)  # the most a move can carry while both stay >= η
    d = k * min(radius / 2.0, room)
    if n >= 3:
        w = BetaPair(k * eta, k * eta, d)
        return RowProfile(k=k, eta=eta, n=n, radius=radius, pairs=(w.conservative(),),
                          witness=w, exact=True,
                          description=(f"worst pair: mass {d / k:.4g} moved into an entry at "
                                       f"eta = {eta:g} from one left at eta (exact)"))
    x_min, x_max = k * eta, k - d - k * eta
    if x_max <= x_min or d <= 0:
        w = BetaPair(x_min, max(x_max, x_min), d)
        return RowProfile(k=k, eta=eta, n=n, radius=radius, pairs=(w.conservative(),),
                          witness=w, exact=True, description="the domain is a single point")
    # the n = 2 envelope before refinement: 16 cells' dominating pairs
    total = x_min + x_max
    edges = np.linspace(x_min, x_max, 17)
    cells = tuple(BetaPair(float(lo), float(total - hi), d).conservative()
                  for lo, hi in zip(edges[:-1], edges[1:]))
    return RowProfile(k=k, eta=eta, n=n, radius=radius, pairs=cells,
                      witness=BetaPair(x_max, x_min, d), exact=False, line=(x_min, x_max, d),
                      description=("two-outcome row: worst pair found by certified branch "
                                   "and bound over the line p_i + p_j = 1"))


def w_profile(k: float, eta: float, eta_bar: float, w: int, b: float) -> RowProfile:
    """The profile of Theorem 1.6's setting: entries of W (|W| = w) >= η, the rest summing to
    >= η̄ and fixed, neighbours moving <= b/2 between two entries of W.

    Parameters
    ----------
    k, eta, eta_bar : float
        Concentration and the domain's lower bounds.
    w : int
        |W| (>= 2).
    b : float
        The L1 radius.

    Returns
    -------
    RowProfile
        Exact (the corner pair (kη, kη, k·min(b/2, 1 − η̄ − |W|η)) is feasible).
    """
    k, eta, eta_bar, b = float(k), float(eta), float(eta_bar), float(b)
    room = max(0.0, 1.0 - eta_bar - w * eta)
    d = k * min(b / 2.0, room)
    pair = BetaPair(k * eta, k * eta, d)
    return RowProfile(k=k, eta=eta, n=w, radius=b, pairs=(pair.conservative(),),
                      witness=pair, exact=True,
                      description=(f"worst pair: mass {d / k:.4g} moved between two entries "
                                   f"of W at eta = {eta:g} (exact)"))
