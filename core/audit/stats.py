"""Statistics of the empirical privacy audit: Clopper–Pearson limits, the F3 lower bound,
tight (ε, δ) profiles and ROC curves.

The lower bound (spec F3, ``docs/reference-values.md`` K). A test that rejects "the
output came from input a" on a set S has false-positive rate α = P_a[S] and false-negative
rate β = P_b[S^c]. If the mechanism is (ε, δ)-DP then 1 − β ≤ e^ε α + δ and
1 − α ≤ e^ε β + δ, so

    ε ≥ max( ln((1 − δ − β)/α), ln((1 − δ − α)/β) ).

With α_u, β_u the one-sided Clopper–Pearson upper limits of α and β, each at level
1 − c/2 (c = 1 − confidence), both limits hold together with probability ≥ 1 − c (union
bound), and then the right-hand side with (α_u, β_u) is at most the one with (α, β):
ε_lb is a lower bound on the mechanism's ε with that confidence, *provided the test and
S were chosen without the evaluation samples* (the attack uses separate splits).

Tight profiles (known densities). For the privacy-loss L = ln p_a − ln p_b of one pair,

    δ(ε) = max{ P_a[L > ε] − e^ε P_b[L > ε],  P_b[−L > ε] − e^ε P_a[−L > ε] }

is the smallest δ for which that pair satisfies (ε, δ)-DP (the hockey-stick divergence),
and ε_tight(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ}, found by bisection (δ(ε) is non-increasing). For
discrete outputs δ(ε) = max over the two directions of Σ_o max(0, P(o) − e^ε Q(o)).

Examples
--------
>>> round(f3_epsilon(0.1, 0.2, 0.0), 6)          # spec B17 (point estimates)
2.079442
>>> round(discrete_epsilon_tight({0: 0.75, 1: 0.25}, {0: 0.25, 1: 0.75}, 0.0), 6)
1.098612
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from core.common.stats import cp_upper

__all__ = ["cp_upper", "f3_epsilon", "epsilon_lb", "projected_epsilon_lb", "bisect_epsilon",
           "discrete_delta", "discrete_epsilon_tight", "discrete_roc", "mc_delta",
           "mc_epsilon_tight", "thin_roc"]


def f3_epsilon(fpr: "np.ndarray | float", fnr: "np.ndarray | float", delta: float
               ) -> "np.ndarray | float":
    """max(ln((1−δ−β)/α), ln((1−δ−α)/β)), floored at 0 (a lower bound on ε is >= 0).

    Parameters
    ----------
    fpr, fnr : float or numpy.ndarray
        False positive and false negative rates α, β.
    delta : float
        δ.

    Returns
    -------
    float or numpy.ndarray
    """
    a = np.asarray(fpr, dtype=np.float64)
    b = np.asarray(fnr, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where((1 - delta - b > 0) & (a > 0), np.log((1 - delta - b) / a), -np.inf)
        t2 = np.where((1 - delta - a > 0) & (b > 0), np.log((1 - delta - a) / b), -np.inf)
        # α = 0 (or β = 0) with positive power would be infinite: only reachable with
        # point estimates, never with Clopper–Pearson limits (those are > 0)
        t1 = np.where((a <= 0) & (1 - delta - b > 0), np.inf, t1)
        t2 = np.where((b <= 0) & (1 - delta - a > 0), np.inf, t2)
    out = np.maximum(np.maximum(t1, t2), 0.0)
    return out if out.ndim else float(out)


def epsilon_lb(fp: "np.ndarray | float", n_neg: float, fn: "np.ndarray | float", n_pos: float,
               delta: float, confidence: float) -> "np.ndarray | float":
    """F3 with Clopper–Pearson upper limits of FPR and FNR, each at 1 − c/2.

    Parameters
    ----------
    fp : float or numpy.ndarray
        False positives among ``n_neg`` negatives.
    n_neg : float
        Negatives.
    fn : float or numpy.ndarray
        False negatives among ``n_pos`` positives.
    n_pos : float
        Positives.
    delta : float
        δ.
    confidence : float
        Joint confidence c of the two limits.

    Returns
    -------
    float or numpy.ndarray
        ε_lb, a lower bound on ε that holds with probability >= c.
    """
    level = 1.0 - (1.0 - confidence) / 2.0
    return f3_epsilon(cp_upper(fp, n_neg, level), cp_upper(fn, n_pos, level), delta)


def projected_epsilon_lb(fpr: np.ndarray, tpr: np.ndarray, n_eval: int, delta: float,
                         confidence: float) -> tuple[float, int]:
    """The best ε_lb an evaluation split of ``n_eval`` per side would give at these rates.

    Used only to *rank* pairs and tests (expected counts, not data): the reported bound
    always comes from fresh evaluation samples. Returns (value, index of the best point).

    Parameters
    ----------
    fpr, tpr : numpy.ndarray
        Points of a ROC.
    n_eval : int
        Evaluation samples per side.
    delta : float
        δ.
    confidence : float
        Joint confidence.

    Returns
    -------
    (float, int)
    """
    fpr = np.asarray(fpr, dtype=np.float64)
    tpr = np.asarray(tpr, dtype=np.float64)
    if fpr.size == 0:
        return 0.0, -1
    vals = np.asarray(epsilon_lb(fpr * n_eval, n_eval, (1.0 - tpr) * n_eval, n_eval, delta,
                                 confidence))
    i = int(np.argmax(vals))
    return float(vals[i]), i


def bisect_epsilon(delta_of: Callable[[float], float], delta: float, *, hi: float = 1.0,
                   tol: float = 1e-10, max_hi: float = 1e4) -> float:
    """inf{ε >= 0 : δ(ε) <= delta} for a non-increasing δ(ε); ``math.inf`` if never.

    Parameters
    ----------
    delta_of : callable
        δ(ε), non-increasing.
    delta : float
        The δ to reach.
    hi : float
        The first upper bracket (doubled until δ(hi) <= delta).
    tol : float
        Absolute tolerance on ε.
    max_hi : float
        Where doubling stops (then ``math.inf``).

    Returns
    -------
    float
    """
    if delta_of(0.0) <= delta:
        return 0.0
    lo = 0.0
    while delta_of(hi) > delta:
        lo, hi = hi, hi * 2.0
        if hi > max_hi:
            return math.inf
    while hi - lo > tol * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if delta_of(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- discrete
def _aligned(p: Mapping[Any, float], q: Mapping[Any, float]) -> tuple[np.ndarray, np.ndarray]:
    keys = list(dict.fromkeys([*p.keys(), *q.keys()]))
    return (np.array([float(p.get(o, 0.0)) for o in keys]),
            np.array([float(q.get(o, 0.0)) for o in keys]))


def discrete_delta(p: Mapping[Any, float], q: Mapping[Any, float], epsilon: float) -> float:
    """max over both directions of Σ_o max(0, P(o) − e^ε Q(o)).

    Parameters
    ----------
    p, q : Mapping
        ``{outcome: probability}`` of the two sides.
    epsilon : float
        ε.

    Returns
    -------
    float
    """
    a, b = _aligned(p, q)
    # e^ε·Q(o) as exp(ε + ln Q(o)): finite wherever the product is (a tiny Q(o) against a
    # large ε), where e^ε alone would overflow and call every such outcome covered
    with np.errstate(divide="ignore", over="ignore"):
        eb = np.exp(epsilon + np.log(b))
        ea = np.exp(epsilon + np.log(a))
    d1 = np.where(b > 0, np.maximum(0.0, a - eb), a).sum()
    d2 = np.where(a > 0, np.maximum(0.0, b - ea), b).sum()
    return float(max(d1, d2))


def discrete_epsilon_tight(p: Mapping[Any, float], q: Mapping[Any, float], delta: float
                           ) -> float:
    """Smallest ε with Σ_o max(0, P(o) − e^ε Q(o)) <= δ both ways (inf if none).

    Parameters
    ----------
    p, q : Mapping
        ``{outcome: probability}`` of the two sides.
    delta : float
        δ.

    Returns
    -------
    float
    """
    a, b = _aligned(p, q)
    if discrete_delta(p, q, 1e6) > delta:  # mass where the other side has none
        return math.inf
    both = (a > 0) & (b > 0)
    top = float(np.abs(np.log(a[both]) - np.log(b[both])).max()) if both.any() else 0.0
    return bisect_epsilon(lambda e: discrete_delta(p, q, e), delta, hi=max(top, 1e-6) + 1e-9,
                          max_hi=max(2 * top, 1.0) + 1.0)


def discrete_roc(p: Mapping[Any, float], q: Mapping[Any, float]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The Neyman–Pearson ROC of p (negative) against q (positive): (FPR, TPR) arrays.

    Rejection sets are the outcomes in decreasing order of q/p (no randomisation).

    Parameters
    ----------
    p, q : Mapping
        ``{outcome: probability}`` of the negative and the positive side.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
    """
    a, b = _aligned(p, q)
    with np.errstate(divide="ignore"):
        ratio = np.where(a > 0, b / np.where(a > 0, a, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    fpr = np.concatenate([[0.0], np.cumsum(a[order])])
    tpr = np.concatenate([[0.0], np.cumsum(b[order])])
    return np.clip(fpr, 0, 1), np.clip(tpr, 0, 1)


# --------------------------------------------------------------------------- Monte Carlo
def mc_delta(loss_a: np.ndarray, loss_b: np.ndarray, epsilon: float) -> tuple[float, float]:
    """MC δ(ε) and its standard error from privacy-loss samples L = ln p_a − ln p_b.

    ``loss_a`` are L at draws from a, ``loss_b`` at draws from b. The returned standard
    error is that of the larger direction (for variance-derived test tolerances).

    Parameters
    ----------
    loss_a, loss_b : numpy.ndarray
        Privacy-loss samples at draws from a and from b.
    epsilon : float
        ε.

    Returns
    -------
    (float, float)
        δ(ε) and its standard error.
    """
    la, lb = np.asarray(loss_a), np.asarray(loss_b)
    e = math.exp(epsilon)
    out = []
    for x, y in ((la > epsilon, lb > epsilon), (-lb > epsilon, -la > epsilon)):
        m1, m2 = x.mean(), y.mean()
        se = math.sqrt(m1 * (1 - m1) / x.size + e * e * m2 * (1 - m2) / y.size)
        out.append((float(m1 - e * m2), se))
    return max(out)


def mc_epsilon_tight(loss_a: np.ndarray, loss_b: np.ndarray, delta: float) -> float:
    """ε_tight(δ) from privacy-loss samples (bisection on the MC δ(ε)).

    Parameters
    ----------
    loss_a, loss_b : numpy.ndarray
        Privacy-loss samples at draws from a and from b.
    delta : float
        δ.

    Returns
    -------
    float
    """
    hi = float(max(np.abs(loss_a).max(), np.abs(loss_b).max(), 1e-6))
    return bisect_epsilon(lambda e: mc_delta(loss_a, loss_b, e)[0], delta, hi=hi,
                          max_hi=2 * hi + 1)


# --------------------------------------------------------------------------- ROC
def thin_roc(fpr: np.ndarray, tpr: np.ndarray, points: int = 60) -> list[tuple[float, float]]:
    """At most ``points`` (fpr, tpr) pairs for display, sorted, with (0, 0) and (1, 1).

    Parameters
    ----------
    fpr, tpr : numpy.ndarray
        A ROC.
    points : int
        The most points kept.

    Returns
    -------
    list of (float, float)
    """
    f = np.concatenate([[0.0], np.asarray(fpr, float), [1.0]])
    t = np.concatenate([[0.0], np.asarray(tpr, float), [1.0]])
    order = np.lexsort((t, f))
    f, t = f[order], t[order]
    if f.size > points:
        idx = np.unique(np.linspace(0, f.size - 1, points).round().astype(int))
        f, t = f[idx], t[idx]
    return [(float(a), float(b)) for a, b in zip(f, t)]
