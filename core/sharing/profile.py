"""A tight, certified accountant for the shared-policy mechanism ([KS] Theorem 1's setting).

The teacher releases x ~ Dir(k·π) for a policy π ∈ Δ_{m,η} (every entry >= η); two
policies are neighbours when ‖π − π′‖₂ <= r (r = L·b). Eq. 12 bounds the privacy loss on a
threshold set and is very loose (ε ≈ 23 where the worst pair needs ≈ 5). This module
computes the privacy profile of the worst neighbouring pair itself, certified:

1. **Exact pair, as a product.** With G_i ~ Gamma(kπ_i) independent and S = ΣG_i, the
   vector x = G/S is Dir(kπ) and independent of S ~ Gamma(k), whose law is the same under
   π and π′ (Σ kπ_i = Σ kπ′_i = k). So (x, S) ↔ G is a bijection that adds nothing, and
   H_{e^ε}(Dir(kπ) ‖ Dir(kπ′)) = H_{e^ε}(⊗_i Gamma(kπ_i) ‖ ⊗_i Gamma(kπ′_i)): a
   *composition* of one-dimensional Gamma pairs, one per entry that moves.
2. **Each coordinate is dominated at the smallest base.** A coordinate with
   min(π_i, π′_i) = β_i and |π_i − π′_i| = Δ_i is the pair Gamma(k(β_i + Δ_i)) vs
   Gamma(kβ_i) (or the reverse). Adding an independent Gamma(e) to both is a
   post-processing that raises the base, so a smaller base dominates (every ε, both
   directions), and a larger move dominates by stochastic order (the likelihood ratio is
   monotone in G). Products of dominated pairs are dominated. Hence every neighbouring pair
   is dominated by the product with every base at kη (a relaxation: the bases of a real
   pair sum to k(1 − D), D the moved mass) and the same moves.
3. **The moves.** What remains is a supremum over move vectors Δ with ΣΔ = 0 and
   ‖Δ‖₂ <= r, grouped by the number of entries gaining (p) and losing (q) mass. For each
   (p, q) the magnitudes (g ∈ [0, r]^p, l ∈ [0, r]^q, Σg = Σl, ‖g‖² + ‖l‖² <= r², sorted
   by symmetry) are searched by branch and bound: a box is dominated (step 2) by its
   upper corner, whose product pair is evaluated; boxes that cannot hold a feasible point
   are dropped; the largest box bound is a certified ε at any time, and boxes are split
   until it is within ``rtol`` of the best feasible pair found (or a box budget runs out —
   the result then says so and stays certified, only looser).
4. **Numerics.** Each coordinate's privacy loss L = c + s·kΔ·ln G is monotone in G, so its
   distribution under the first law is discretised *pessimistically* from the exact Gamma
   CDF (``gammainc``): every loss rounded up to the grid, the mass beyond the grid's top
   sent to +∞, the mass below its bottom to the bottom. The product's PLD is composed with
   dp-accounting and ε read at δ̂ − s, with a slack s = 1e-10·(1 + m) for the rounding of
   ``gammainc`` and of the FFT convolution.

The result is ε(δ̂) of the whole mechanism for one query, proven for the stated adjacency,
from public parameters (k, m, η, r, δ̂) only. It composes over queries with the same PLD
through the canonical (ε, δ) pair (:mod:`core.privacy.pld`), below basic composition.

Examples
--------
>>> r = l2_profile(5.0, 4, 0.05, 0.05, delta=1e-3)
>>> 4.8 < r.epsilon_lower <= r.epsilon < 5.3   # eq. 12 states 23.7 here
True
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.special import gammainc, gammaincc, gammaln
from scipy.special import gammaincinv as _ginv

from core.common.errors import InputError

__all__ = ["L2Profile", "l2_profile", "product_epsilon", "PROFILE_L2_LABEL"]

PROFILE_L2_LABEL = ("exact privacy profile of the worst neighbouring pair (a product of "
                    "Gamma pairs, certified by branch and bound over the moves)")
_TAIL = 1e-15
_SLACK = 1e-10
_BOX_BUDGET = 400
_RTOL = 0.02
_GRID_POINTS = 1 << 13
_COARSE = 1 << 10


def _check(k: float, m: int, eta: float, r: float, delta: float) -> None:
    if not (math.isfinite(k) and k > 0):
        raise InputError(f"must be > 0, got {k!r}", field="k")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise InputError(f"must be an integer >= 2 (actions), got {m!r}", field="m")
    if not (math.isfinite(eta) and 0 < eta <= 1.0 / m):
        raise InputError(f"must lie in (0, 1/m] = (0, {1.0 / m:.6g}], got {eta!r}",
                         field="eta")
    if not (math.isfinite(r) and r >= 0):
        raise InputError(f"must be finite and >= 0, got {r!r}", field="lb")
    if not (0 < delta < 1):
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")


# --------------------------------------------------------------------------- one coordinate
def _loss_range(a: float, d: float, gainer: bool) -> tuple[float, float]:
    """Where one coordinate's loss lives (its 1e-15 and 1 − 1e-15 quantiles)."""
    shape = a + d if gainer else a
    lo_g, hi_g = (float(_ginv(shape, q)) for q in (_TAIL, 1 - _TAIL))
    c = float(gammaln(a) - gammaln(a + d)) if gainer else float(gammaln(a + d) - gammaln(a))
    s = d if gainer else -d
    ends = sorted((c + s * math.log(max(lo_g, 1e-300)), c + s * math.log(max(hi_g, 1e-300))))
    return ends[0], ends[1]


@lru_cache(maxsize=1024)
def _coord_pmf(a: float, d: float, gainer: bool, h: float, pessimistic: bool = True
               ) -> tuple[int, np.ndarray, float]:
    """(first index, masses on the grid h·index, mass at +∞) of one coordinate's loss.

    P = Gamma(a + d) vs Q = Gamma(a) for a gainer (L = c + d ln G, increasing in G), the
    reverse for a loser (L = c − d ln G, decreasing); masses from the exact CDF. Pessimistic:
    each loss rounded up, the mass above the grid at +∞ (δ over-stated). Optimistic: each
    loss rounded down, the mass below the grid dropped (δ under-stated: a lower bound).
    """
    lo, hi = _loss_range(a, d, gainer)
    i0, i1 = int(math.floor(lo / h)), int(math.ceil(hi / h))
    idx = np.arange(i0, i1 + 1)
    ell = idx * h
    if gainer:
        c = float(gammaln(a) - gammaln(a + d))
        g = np.exp(np.minimum((ell - c) / d, 700.0))
        cdf = gammainc(a + d, g)           # P(L <= ℓ) = P(G <= g(ℓ))
    else:
        c = float(gammaln(a + d) - gammaln(a))
        g = np.exp(np.clip((c - ell) / d, -745.0, 700.0))  # exp(700): Q(a, g) = 0 already
        cdf = gammaincc(a, g)              # P(L <= ℓ) = P(G >= g(ℓ))
    cdf = np.maximum.accumulate(np.clip(cdf, 0.0, 1.0))
    if pessimistic:  # (ℓ_{j−1}, ℓ_j] → ℓ_j; the lowest bin also takes the mass below
        probs = np.diff(np.concatenate(([0.0], cdf)))
        return i0, probs, float(max(0.0, 1.0 - cdf[-1]))
    # (ℓ_j, ℓ_{j+1}] → ℓ_j; the mass above the top goes to the top; below i0: dropped
    probs = np.diff(np.concatenate((cdf, [1.0])))
    return i0, probs, 0.0


def _product_pld(pmfs: "list[tuple[int, np.ndarray, float]]", h: float,
                 pessimistic: bool = True) -> Any:
    """The composed PLD of the coordinates' discretised losses (:func:`_coord_pmf`)."""
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as pldm

    total = None
    for i0, probs, inf in pmfs:
        keep = probs > 0
        pmf = pld_pmf.create_pmf(dict(zip((np.arange(probs.size) + i0)[keep].tolist(),
                                          probs[keep].tolist())), h, inf, pessimistic)
        p = pldm.PrivacyLossDistribution(pmf)
        total = p if total is None else total.compose(p)
    return total


def _grid_step(moves: tuple[tuple[float, float, bool], ...], k: float,
               points: int = 1 << 13) -> float:
    span = 0.0
    for base, mag, gainer in moves:
        if mag > 0:
            lo, hi = _loss_range(k * base, k * mag, gainer)
            span += hi - lo
    if not (math.isfinite(span) and span > 0):
        # k so small that both of a coordinate's quantiles underflow (k ≈ 1e-20 at η = 0.1):
        # the pessimistic discretisation stays sound on any grid (mass it cannot place goes
        # to the lowest bin or to +∞), so the finest step is used
        return 1e-3
    # a power of two, so coarse and fine grids share points (and the PLD cache hits)
    return max(1e-3, 2.0 ** math.ceil(math.log2(span / points)))


def product_epsilon(moves: "list[tuple[float, bool]] | tuple[tuple[float, bool], ...]",
                    k: float, eta: float, delta: float, *, points: int = _GRID_POINTS,
                    bases: "list[float] | None" = None, pessimistic: bool = True) -> float:
    """ε(δ) of a product of Gamma pairs: coordinate i moves ``moves[i]`` on base
    ``bases[i]`` (default η for all: the relaxation of step 2), certified from above
    (``pessimistic``) or below.

    Parameters
    ----------
    moves : sequence of (magnitude, gainer)
        |Δ_i| and whether entry i gains mass under the first law.
    k, eta : float
        Concentration and the domain's lower bound.
    delta : float
        δ̂.
    points : int
        Grid points the loss range is cut into.
    bases : list of float, optional
        min(π_i, π′_i) per entry (default η).
    pessimistic : bool
        True: an upper bound of ε(δ̂); False: a lower bound.

    Returns
    -------
    float
    """
    bs = [eta] * len(moves) if bases is None else list(bases)
    mv = tuple(sorted(((float(b), float(x), bool(g)) for (x, g), b in zip(moves, bs) if x > 0),
                      reverse=True))
    if not mv:
        return 0.0
    h = _grid_step(mv, k, points)
    slack = _SLACK * (1 + len(mv))
    target = max(delta - slack, 1e-300) if pessimistic else min(delta + slack, 1.0)
    pmfs = [_coord_pmf(k * b, k * x, g, h, pessimistic) for b, x, g in mv]
    if pessimistic and 1.0 - math.prod(1.0 - inf for _, _, inf in pmfs) >= target:
        # the product's loss is +∞ with probability >= δ̂ (at very small k a coordinate's
        # whole law sits beyond the float range): no finite ε holds
        return math.inf
    if not all((probs > 0).any() for _, probs, _ in pmfs):
        return 0.0  # a lower bound only: the grid dropped a whole coordinate
    pld = _product_pld(pmfs, h, pessimistic)
    eps = float(pld.get_epsilon_for_delta(target))
    return max(0.0, eps if pessimistic else eps - h * len(mv))


# --------------------------------------------------------------------------- the search
@dataclass(frozen=True)
class L2Profile:
    """ε(δ̂) of one query of the shared-policy mechanism, certified (module docstring)."""

    epsilon: float
    epsilon_lower: float
    delta: float
    k: float
    m: int
    eta: float
    lb: float
    worst_moves: tuple[float, ...]  # signed moves of the worst pair found (gains > 0)
    certified: bool  # False when the box budget ran out (ε is still a valid bound)
    boxes: int
    label: str = PROFILE_L2_LABEL

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "epsilon_lower": self.epsilon_lower,
                "delta": self.delta, "k": self.k, "m": self.m, "eta": self.eta,
                "lb": self.lb, "worst_moves": list(self.worst_moves),
                "search_converged": self.certified, "boxes": self.boxes,
                "accountant": self.label}


def _feasible_box(glo: np.ndarray, ghi: np.ndarray, llo: np.ndarray, lhi: np.ndarray,
                  r2: float) -> bool:
    if float((glo ** 2).sum() + (llo ** 2).sum()) > r2 * (1 + 1e-12):
        return False
    if glo.sum() > lhi.sum() + 1e-15 or llo.sum() > ghi.sum() + 1e-15:
        return False
    # sorted magnitudes (symmetry): some point with g_1 >= g_2 >= … must fit
    for lo, hi in ((glo, ghi), (llo, lhi)):
        if lo.size > 1 and np.any(hi[:-1] < lo[1:] - 1e-15):
            return False
    return True


#: a search box: lower and upper corners of the gains, then of the losses
_Box = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _corner(glo: np.ndarray, ghi: np.ndarray, llo: np.ndarray, lhi: np.ndarray, r2: float,
            cap: float) -> tuple[np.ndarray, np.ndarray]:
    """The box's upper corner, each magnitude capped by what any feasible point of the box
    allows: x_i² <= r² − Σ_{others} lo², a gain <= Σ l_hi − Σ_{other gains} lo (balance),
    a loss likewise, and the total gain <= ``cap``. Every feasible point of the box lies
    below the returned corner, which is all the monotone bound needs."""
    base = float((glo ** 2).sum() + (llo ** 2).sum())
    g = np.minimum(ghi, np.sqrt(np.maximum(r2 - (base - glo ** 2), 0.0)))
    lo = np.minimum(lhi, np.sqrt(np.maximum(r2 - (base - llo ** 2), 0.0)))
    g = np.minimum(g, np.minimum(lhi.sum(), cap) - (glo.sum() - glo))
    lo = np.minimum(lo, np.minimum(ghi.sum(), cap) - (llo.sum() - llo))
    return np.maximum(g, glo), np.maximum(lo, llo)


def _equal_shares(p: int, q: int, r: float, cap: float) -> tuple[np.ndarray, np.ndarray]:
    """The feasible point with equal gains and equal losses on the sphere ‖Δ‖₂ = r."""
    x = r / math.sqrt(p + p * p / q)
    y = p * x / q
    scale = min(1.0, cap / (p * x)) if p * x > 0 else 1.0
    return np.full(p, x * scale), np.full(q, y * scale)


def _witness_lower(moves: tuple[float, ...], k: float, eta: float, m: int, delta: float
                   ) -> float:
    """A lower bound of the worst ε: the found moves on a feasible pair of the domain."""
    if not moves:
        return 0.0
    gains = [x for x in moves if x > 0]
    excess = 1.0 - m * eta - sum(gains)
    bases = [eta] * len(moves) + [eta] * (m - len(moves))
    if len(moves) < m:
        bases[-1] += excess  # an entry that does not move takes the excess: exact
    else:
        j = int(np.argmin([x if x > 0 else math.inf for x in moves]))
        bases[j] += excess
    return product_epsilon([(abs(x), x > 0) for x in moves], k, eta, delta,
                           bases=bases[:len(moves)], pessimistic=False)


def l2_profile(k: float, m: int, eta: float, lb: float, *, delta: float,
               rtol: float = _RTOL, budget: int = _BOX_BUDGET) -> L2Profile:
    """ε(δ̂) of Dir_k on Δ_{m,η} under ‖π − π′‖₂ <= lb, by certified branch and bound.

    Parameters
    ----------
    k : float
        Concentration.
    m : int
        Number of actions (entries).
    eta : float
        Every entry of a shared policy is >= η.
    lb : float
        The ℓ2 radius of neighbouring policies (L·b).
    delta : float
        δ̂ per query.
    rtol : float
        Stop when the best box bound is within this relative gap of a feasible pair.
    budget : int
        Most boxes evaluated.

    Returns
    -------
    L2Profile
    """
    _check(float(k), m, float(eta), float(lb), float(delta))
    k, eta, r = float(k), float(eta), float(lb)
    cap = max(0.0, 1.0 - m * eta)  # the most mass that can move (bases at η)
    if r == 0 or cap == 0:
        return L2Profile(0.0, 0.0, float(delta), k, m, eta, r, (), True, 0)
    r2 = r * r
    best_lo, best_moves = 0.0, ()
    heap: list[tuple[float, int, _Box]] = []
    count = 0
    top = min(r, cap)

    def evaluate(g: np.ndarray, lw: np.ndarray, points: int = _COARSE) -> float:
        return product_epsilon([(x, True) for x in g] + [(x, False) for x in lw], k, eta,
                               delta, points=points)

    def bound(box: _Box) -> float:
        glo, ghi, llo, lhi = box
        return evaluate(*_corner(glo, ghi, llo, lhi, r2, cap))

    for p in range(1, m):
        for q in range(1, m - p + 1):
            g, lw = _equal_shares(p, q, r, cap)
            e = evaluate(g, lw)
            if e > best_lo:
                best_lo, best_moves = e, tuple(g.tolist()) + tuple((-lw).tolist())
            box = (np.zeros(p), np.full(p, top), np.zeros(q), np.full(q, top))
            ub = bound(box)
            count += 1
            heapq.heappush(heap, (-ub, count, box))
    evaluated = count
    while heap and evaluated < budget:
        neg_ub, _, box = heap[0]
        if -neg_ub <= best_lo * (1 + rtol) + 1e-9:
            break
        heapq.heappop(heap)
        glo, ghi, llo, lhi = box
        widths = np.concatenate([ghi - glo, lhi - llo])
        j = int(np.argmax(widths))
        for half in (0, 1):
            nglo, nghi, nllo, nlhi = (a.copy() for a in box)
            if j < glo.size:
                mid = 0.5 * (glo[j] + ghi[j])
                (nghi if half == 0 else nglo)[j] = mid
            else:
                jj = j - glo.size
                mid = 0.5 * (llo[jj] + lhi[jj])
                (nlhi if half == 0 else nllo)[jj] = mid
            if not _feasible_box(nglo, nghi, nllo, nlhi, r2):
                continue
            ub = bound((nglo, nghi, nllo, nlhi))
            evaluated += 1
            count += 1
            heapq.heappush(heap, (-ub, count, (nglo, nghi, nllo, nlhi)))
            # a feasible point inside: the box centre rescaled onto the sphere, balanced
            gc, lc = 0.5 * (nglo + nghi), 0.5 * (nllo + nlhi)
            if gc.sum() > 0 and lc.sum() > 0:
                lc = lc * (gc.sum() / lc.sum())
                norm = math.sqrt(float((gc ** 2).sum() + (lc ** 2).sum()))
                s = min(r / norm, cap / gc.sum()) if norm > 0 else 0.0
                gc, lc = gc * s, lc * s
                if np.all(gc >= nglo - 1e-12) and np.all(gc <= nghi + 1e-12) and \
                        np.all(lc >= nllo - 1e-12) and np.all(lc <= nlhi + 1e-12):
                    e = evaluate(gc, lc)
                    evaluated += 1
                    if e > best_lo:
                        best_lo, best_moves = e, tuple(gc.tolist()) + tuple((-lc).tolist())
    # the coarse grid's bounds are valid but looser: re-bound the leading boxes finely
    # (also valid) and keep the largest of all
    heap.sort()
    fine = [evaluate(*_corner(b[0], b[1], b[2], b[3], r2, cap), points=_GRID_POINTS)
            for _, _, b in heap[:6]]
    rest = [-h[0] for h in heap[6:]]
    # the best pair found is a real neighbouring pair only with its bases in the domain
    # summing to 1 − its moved mass; put the excess on a gaining entry: a proven lower
    # bound of the worst case (optimistic discretisation)
    lower = _witness_lower(best_moves, k, eta, m, delta)
    upper = max(fine + rest + [lower])
    converged = not heap or upper <= max(lower, 1e-12) * (1 + 3 * rtol) + 1e-9
    best_lo = lower
    return L2Profile(epsilon=float(upper), epsilon_lower=float(best_lo), delta=float(delta),
                     k=k, m=int(m), eta=eta, lb=r, worst_moves=best_moves,
                     certified=bool(converged), boxes=int(evaluated))

