"""Confidence limits the core shares (the one Clopper–Pearson limit of the project)."""

from __future__ import annotations

import numpy as np
from scipy.stats import beta as beta_dist

__all__ = ["cp_upper"]


def cp_upper(count: "np.ndarray | float", n: "np.ndarray | float", level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper limit of a binomial rate at ``level`` (e.g. 0.975).

    ``count`` may be fractional (a projected count); ``count >= n`` gives 1.

    Examples
    --------
    >>> round(float(cp_upper(0, 100, 0.95)), 12) == round(1 - 0.05 ** (1 / 100), 12)
    True
    """
    k = np.asarray(count, dtype=np.float64)
    m = np.broadcast_to(np.asarray(n, dtype=np.float64), k.shape)
    full = k >= m
    with np.errstate(invalid="ignore", divide="ignore"):
        u = beta_dist.ppf(level, k + 1.0, np.where(full, 1.0, m - k))
    return np.where(full, 1.0, np.clip(u, 0.0, 1.0))
