"""Composition of differentially private releases: one module for every accountant.

* **basic** (sequential) composition: k releases of εᵢ-DP (δᵢ) mechanisms are
  (Σ εᵢ, Σ δᵢ)-DP — always valid;
* **advanced** composition (Dwork, Rothblum & Vadhan 2010, Thm III.3, heterogeneous
  form): ε' = √(2 ln(1/δ') Σ εᵢ²) + Σ εᵢ(e^{εᵢ} − 1), with δ' added to Σ δᵢ;
* **zCDP** (Bun & Steinke 2016, Prop. 1.4 and Lemma 3.5): a pure εᵢ-DP release is
  (εᵢ²/2)-zCDP, ρ adds up, and ρ-zCDP gives (ρ + 2√(ρ ln(1/δ')), δ')-DP;
* **RDP** of the Laplace mechanism (Mironov 2017, Prop. 6) and its conversion to (ε, δ).

The privacy ledger (:func:`core.privacy.ledger.compose`) and the advising accountant
(:mod:`core.advising.accounting`) both use these functions.

Examples
--------
>>> round(advanced_epsilon([0.1] * 100, delta_slack=1e-6), 3)
6.308
>>> round(zcdp_epsilon([0.1] * 100, delta=1e-6), 3)
5.757
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.common.errors import InputError

__all__ = ["accuracy_cap", "check_delta", "basic_composition", "advanced_epsilon",
           "advanced_composition",
           "zcdp_epsilon", "laplace_rdp", "rdp_composition"]


def advanced_epsilon(epsilons: Sequence[float], counts: Sequence[int] | None = None, *,
                     delta_slack: float) -> float:
    """ε' of advanced composition (Dwork, Rothblum & Vadhan), without the basic cap.

    Parameters
    ----------
    epsilons : sequence of float
        The εᵢ of the releases.
    counts : sequence of int, optional
        How many times each εᵢ was released (default: once each).
    delta_slack : float
        δ' in (0, 1), added to the releases' Σ δᵢ by the caller.

    Returns
    -------
    float
        √(2 ln(1/δ') Σ cᵢεᵢ²) + Σ cᵢεᵢ(e^{εᵢ} − 1); ``inf`` when e^{εᵢ} overflows.
    """
    cs = [1] * len(epsilons) if counts is None else list(counts)
    log_inv = math.log(1.0 / delta_slack)
    try:
        return math.sqrt(2 * log_inv * math.fsum(c * x * x for c, x in zip(cs, epsilons))) + (
            math.fsum(c * x * math.expm1(x) for c, x in zip(cs, epsilons)))
    except OverflowError:
        return math.inf


def zcdp_epsilon(epsilons: Sequence[float], counts: Sequence[int] | None = None, *,
                 delta: float) -> float:
    """ε at ``delta`` of pure εᵢ-DP releases composed in zCDP (Bun & Steinke).

    Parameters
    ----------
    epsilons : sequence of float
        The εᵢ of pure-DP releases (Laplace, exponential mechanism).
    counts : sequence of int, optional
        How many times each εᵢ was released (default: once each).
    delta : float
        The δ of the conversion, in (0, 1).

    Returns
    -------
    float
        ρ + 2√(ρ ln(1/δ)) with ρ = Σ cᵢ εᵢ²/2.
    """
    cs = [1] * len(epsilons) if counts is None else list(counts)
    rho = math.fsum(c * x * x / 2 for c, x in zip(cs, epsilons))
    return rho + 2 * math.sqrt(rho * math.log(1.0 / delta))


#: Rényi orders searched by :func:`rdp_composition`.
_ORDERS = np.unique(np.concatenate([1.0 + np.logspace(-4, 0, 80), np.linspace(2.0, 64.0, 125),
                                    np.logspace(np.log10(64.0), 6, 60)]))


def check_delta(delta: float) -> float:
    """``delta`` as a float in (0, 1), or an :class:`InputError` naming the field ``delta``.

    Parameters
    ----------
    delta : float
        The value to check.

    Returns
    -------
    float
        δ.
    """
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise InputError(f"must be a number in (0, 1), got {delta!r}", field="delta") from None
    if not 0.0 < d < 1.0:
        raise InputError(f"must lie strictly between 0 and 1, got {delta!r}", field="delta")
    return d


def basic_composition(epsilons: Sequence[float]) -> float:
    """Σ ε_i: k releases of ε_i-DP mechanisms are (Σ ε_i)-DP.

    Parameters
    ----------
    epsilons : sequence of float
        The ε_i.

    Returns
    -------
    float
        Σ ε_i (fsum).

    Examples
    --------
    >>> basic_composition([1.0, 0.25])
    1.25
    """
    return math.fsum(float(e) for e in epsilons)


def advanced_composition(epsilons: Sequence[float], *, delta: float) -> float:
    """ε′ of advanced composition, capped by basic composition ((ε′, δ)-DP).

    ε′ = √(2 ln(1/δ) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1).

    Parameters
    ----------
    epsilons : sequence of float
        The ε_i of pure-DP releases.
    delta : float
        The slack δ in (0, 1).

    Returns
    -------
    float
        min(ε′, Σ ε_i).

    References
    ----------
    C. Dwork, G. Rothblum, S. Vadhan, "Boosting and differential privacy", FOCS 2010;
    C. Dwork, A. Roth, *The Algorithmic Foundations of DP*, 2014, Theorem 3.20.

    Examples
    --------
    >>> advanced_composition([], delta=1e-5)
    0.0
    >>> advanced_composition([2.0] * 10, delta=1e-5)   # large epsilon: basic is tighter
    20.0
    """
    delta = check_delta(delta)
    e = np.asarray(list(epsilons), dtype=np.float64)
    if e.size == 0:
        return 0.0
    basic = basic_composition(e.tolist())
    if float(e.max()) > 50.0:  # e^ε overflows long before; basic is far tighter anyway
        return basic
    return min(advanced_epsilon(e.tolist(), delta_slack=delta), basic)


def laplace_rdp(order: "float | np.ndarray", epsilon: float) -> "float | np.ndarray":
    """Rényi divergence of order α between Laplace(0, b) and Laplace(Δ, b), with ε = Δ/b.

    ε(α) = 1/(α−1) · log[ α/(2α−1) e^{(α−1)ε} + (α−1)/(2α−1) e^{−αε} ], for α > 1
    (Mironov 2017, Prop. 6); computed in log space.

    Parameters
    ----------
    order : float or ndarray
        Rényi orders α > 1.
    epsilon : float
        ε = Δ/b of the Laplace release.

    Returns
    -------
    float or ndarray
        ε(α), shaped like ``order``.

    References
    ----------
    I. Mironov, "Rényi differential privacy", IEEE CSF 2017.

    Examples
    --------
    >>> round(float(laplace_rdp(1e6, 1.0)), 4)   # alpha -> infinity: pure epsilon
    1.0
    >>> round(float(laplace_rdp(1.0 + 1e-9, 0.5)), 6) == round(0.5 + math.exp(-0.5) - 1, 6)
    True
    """
    a = np.asarray(order, dtype=np.float64)
    if (a <= 1).any():
        raise InputError("Renyi orders must be > 1", field="order")
    t1 = np.log(a / (2 * a - 1)) + (a - 1) * epsilon
    t2 = np.log((a - 1) / (2 * a - 1)) - a * epsilon
    out = np.logaddexp(t1, t2) / (a - 1)
    return float(out) if out.ndim == 0 else out


def rdp_composition(k: int, epsilon: float, *, delta: float,
                    orders: "np.ndarray | None" = None) -> tuple[float, float]:
    """(ε, best order) of k Laplace releases of true ε each, via RDP; capped by k·ε.

    Parameters
    ----------
    k : int
        Number of releases.
    epsilon : float
        ε of each release.
    delta : float
        δ of the conversion to (ε, δ)-DP, in (0, 1).
    orders : ndarray, optional
        Rényi orders searched (default: a fixed grid from 1 + 1e-4 to 1e6).

    Returns
    -------
    (float, float)
        ε at δ, and the order that gives it (∞ when basic composition k·ε is tighter).

    Examples
    --------
    >>> rdp_composition(0, 1.0, delta=1e-5)
    (0.0, inf)
    >>> e, a = rdp_composition(1, 1.0, delta=1e-5)
    >>> e   # one release: basic composition is exact
    1.0
    """
    delta = check_delta(delta)
    if k <= 0:
        return 0.0, math.inf
    a = _ORDERS if orders is None else np.asarray(orders, dtype=np.float64)
    bound = k * np.asarray(laplace_rdp(a, epsilon)) + math.log(1.0 / delta) / (a - 1.0)
    best = int(np.argmin(bound))
    eps = float(bound[best])
    if eps >= k * epsilon:
        return float(k * epsilon), math.inf
    return eps, float(a[best])


def accuracy_cap(epsilon: float, delta: float) -> float:
    """The best accuracy any membership (or any binary) inference can reach on a balanced
    prior against an (ε, δ)-DP release: (e^ε + δ)/(1 + e^ε), capped at 1.

    Parameters
    ----------
    epsilon : float
        ε >= 0 (``inf``: no cap).
    delta : float
        δ in [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> round(accuracy_cap(2.90, 4.9e-4), 6), accuracy_cap(0.0, 0.0)   # spec B16
    (0.947872, 0.5)
    """
    if not (epsilon >= 0 and 0 <= delta <= 1):
        raise ValueError(f"need epsilon >= 0 and delta in [0, 1], got ({epsilon}, {delta})")
    if math.isinf(epsilon) or epsilon > 700:
        return 1.0
    e = math.exp(epsilon)
    return min(1.0, (e + delta) / (1.0 + e))
