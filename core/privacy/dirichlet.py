"""The Dirichlet mechanism: privatise probability vectors with Dir(k·p).

Sampling goes through log-gamma variates so that tiny concentrations k·p_i never
produce exact zeros, NaN or denormal numbers: for a < 1 we use
``log G_a = log G_{a+1} + log(U)/a`` (Marsaglia–Tsang boosting), normalise in log space
(log-sum-exp) and floor at a small *normal* number before renormalising.

This module holds the mechanism on plain probability rows; the MDP pipeline (zero
handling, the declared domain η, Algorithm 1 step 1) is :mod:`core.mdp.privatize`.

Randomness: an int seed or a numpy Generator gives *seeded experiment* mode; ``None``
gives *release* mode with variates built from the operating system's CSPRNG.

References
----------
Gohari, *Engineering AI Systems for Privacy*, ch. 1 (the Dirichlet mechanism) and
Algorithm 1 of ch. 2.

Examples
--------
>>> import numpy as np
>>> x = dirichlet_rows(np.array([[0.2, 0.3, 0.5]]), k=10.0, rng=np.random.default_rng(1))
>>> x.shape, bool(abs(x.sum() - 1) < 1e-12)
((1, 3), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from core.common.validation import RandomSource, as_random_source

__all__ = ["dirichlet_rows"]

_FLOOR = 1e-300  # far above the smallest normal double (2.2e-308): renormalising keeps it normal


def _log_gamma_variates(alpha: np.ndarray, gen: Any) -> np.ndarray:
    """log G with G ~ Gamma(alpha, 1), accurate even for alpha ≪ 1 (no underflow)."""
    small = alpha < 1.0
    g = gen.standard_gamma(np.where(small, alpha + 1.0, alpha))
    logg = np.log(g)
    if small.any():
        u = 1.0 - gen.random(alpha.shape)  # (0, 1]: log is finite
        logg = logg + np.where(small, np.log(u) / np.where(small, alpha, 1.0), 0.0)
    return logg


def dirichlet_rows(p: np.ndarray, k: float, rng: "np.random.Generator | int | RandomSource | None"
                   ) -> np.ndarray:
    """Draw Dir(k·p) for every row of ``p`` (shape (m, n)); zero entries stay exactly zero.

    Parameters
    ----------
    p : ndarray
        Rows of probabilities (each sums to 1).
    k : float
        The concentration k > 0.
    rng : Generator, int, RandomSource or None
        A seed or generator: seeded experiment; None: release mode (OS CSPRNG).

    Returns
    -------
    ndarray
        One Dir(k·p) draw per row: every positive entry is a normal float >= 1e-300 and rows
        sum to 1.
    """
    src = as_random_source(rng)
    p = np.atleast_2d(np.asarray(p, dtype=np.float64))
    alpha = k * p
    support = p > 0
    logg = _log_gamma_variates(np.where(support, alpha, 1.0), src.generator)
    logg = np.where(support, logg, -np.inf)
    x = np.exp(logg - logsumexp(logg, axis=1, keepdims=True))
    x = np.where(support, np.maximum(x, _FLOOR), 0.0)
    return x / x.sum(axis=1, keepdims=True)
