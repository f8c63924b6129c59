"""Confidence limits the core shares: the one Clopper–Pearson limit and t-interval."""

from __future__ import annotations

import math

import numpy as np

# scipy.stats takes ~1.5 s to import: each function imports it when called, so a command that
# only imports this module (through the privacy accountants) does not pay for it.

__all__ = ["cp_upper", "t_half_width"]


def cp_upper(count: "np.ndarray | float", n: "np.ndarray | float", level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper limit of a binomial rate at ``level`` (e.g. 0.975).

    ``count`` may be fractional (a projected count); ``count >= n`` gives 1.

    Parameters
    ----------
    count : ndarray or float
        Successes (≥ 0).
    n : ndarray or float
        Trials (> 0).
    level : float
        One-sided confidence level in (0, 1).

    Returns
    -------
    ndarray
        The upper limits, broadcast over ``count`` and ``n``.

    Examples
    --------
    >>> round(float(cp_upper(0, 100, 0.95)), 12) == round(1 - 0.05 ** (1 / 100), 12)
    True
    """
    from scipy.stats import beta as beta_dist

    k = np.asarray(count, dtype=np.float64)
    m = np.broadcast_to(np.asarray(n, dtype=np.float64), k.shape)
    full = k >= m
    with np.errstate(invalid="ignore", divide="ignore"):
        u = beta_dist.ppf(level, k + 1.0, np.where(full, 1.0, m - k))
    return np.where(full, 1.0, np.clip(u, 0.0, 1.0))


def t_half_width(x: "np.ndarray", axis: int | None = None) -> "np.ndarray | float":
    """Half-width of the two-sided 95 % Student-t interval of the mean (n >= 2 values).

    Parameters
    ----------
    x : ndarray
        The sample.
    axis : int, optional
        Along which axis (default: the flattened array).

    Returns
    -------
    ndarray or float
        t(0.975, n − 1) · s / √n.

    Examples
    --------
    >>> round(float(t_half_width(np.array([1.0, 2.0, 3.0]))), 6)  # t(0.975, 2)·1/√3
    2.484138
    """
    from scipy.stats import t as student_t

    x = np.asarray(x, dtype=np.float64)
    n = x.size if axis is None else x.shape[axis]
    half: np.ndarray | float = (float(student_t.ppf(0.975, n - 1)) * x.std(axis=axis, ddof=1)
                                / math.sqrt(n))
    return half
