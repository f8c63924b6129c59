"""The Dirichlet mechanism: privatise probability vectors with Dir(k·p).

Sampling goes through log-gamma variates so that tiny concentrations k·p_i never
produce exact zeros, NaN or denormal numbers: for a < 1 we use
``log G_a = log G_{a+1} + log(U)/a`` (Marsaglia–Tsang boosting), take the boost
``exp(log(U)/a − M)`` relative to its row maximum M (so no row underflows as a whole), and
floor at a small *normal* number before renormalising.

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

import numpy as np

from core.common.validation import RandomSource, as_random_source

__all__ = ["dirichlet_rows"]

_FLOOR = 1e-300  # far above the smallest normal double (2.2e-308): renormalising keeps it normal

#: Rows are normalised in blocks of about this many entries, so the temporaries stay small
#: (about 1 MB each) whatever the size of the model.
_BLOCK_ELEMS = 1 << 17


def _blocks(m: int, n: int) -> range:
    return range(0, m, max(1, _BLOCK_ELEMS // max(n, 1)))


def dirichlet_rows(p: np.ndarray, k: float, rng: "np.random.Generator | int | RandomSource | None",
                   *, out: np.ndarray | None = None) -> np.ndarray:
    """Draw Dir(k·p) for every row of ``p`` (shape (m, n)); zero entries stay exactly zero.

    The boosted draws of entries with k·p < 1 are kept in log space (module docstring)
    and every row is normalised in place (no log-sum-exp temporaries). The generator is
    called exactly as by one whole-array draw (every gamma variate, then every uniform of
    the boosted entries, in row order), so a seed gives the same draws whatever the block size; the
    temporaries are a few blocks of about a megabyte, and the result is the only array
    of the size of ``p`` that is made (none with ``out``).

    Parameters
    ----------
    p : ndarray
        Rows of probabilities (each sums to 1).
    k : float
        The concentration k > 0.
    rng : Generator, int, RandomSource or None
        A seed or generator: seeded experiment; None: release mode (OS CSPRNG).
    out : ndarray, optional
        A float64 array of the shape of ``p`` (C-contiguous rows) to write the draws into.

    Returns
    -------
    ndarray
        One Dir(k·p) draw per row: every positive entry is a normal float >= 1e-300 and rows
        sum to 1 (``out`` when given).
    """
    src = as_random_source(rng)
    gen = src.generator
    p = np.atleast_2d(np.asarray(p, dtype=np.float64))
    m, n = p.shape
    if out is None:
        out = np.empty((m, n))
    elif out.shape != (m, n) or out.dtype != np.float64:
        raise ValueError(f"out must be a float64 array of shape {(m, n)}")
    blocks = _blocks(m, n)
    step = blocks.step
    any_small = False
    # 1. every gamma variate, in row order: G ~ Gamma(k·p) (shape k·p + 1 where k·p < 1;
    #    entries off the support draw Gamma(1) and are discarded, as in a whole-array draw)
    for i in blocks:
        shape = p[i:i + step] * k
        shape[p[i:i + step] <= 0] = 1.0
        small = shape < 1.0
        if small.any():
            any_small = True
            shape[small] += 1.0
        out[i:i + step] = gen.standard_gamma(shape)
    # 2. boosting, G_a = G_{a+1}·U^{1/a} for a = k·p < 1 (uniforms in row order), kept in
    #    log space where it can underflow: L = log(U)/a, and with M = max L over the row's
    #    support, G_a ∝ G_{a+1}·exp(L − M) (the largest boost is exp(0) = 1: no row
    #    underflows as a whole); then each row is normalised, floored at a normal number
    #    off zero and normalised again
    for i in blocks:
        blk = out[i:i + step]
        rows = p[i:i + step]
        support = rows > 0
        if any_small:
            a = rows * k
            a[~support] = 1.0
            u = gen.random(a.shape)
            small = a < 1.0
            np.subtract(1.0, u, out=u)  # (0, 1]: log is finite
            np.log(u, out=u)
            np.divide(u, a, out=u)
            u[~small] = 0.0
            u[~support] = -np.inf
            u -= u.max(axis=1, keepdims=True)
            np.exp(u, out=u)
            blk *= u
        else:
            blk[~support] = 0.0
        blk /= blk.sum(axis=1, keepdims=True)
        np.maximum(blk, _FLOOR, out=blk, where=support)
        blk /= blk.sum(axis=1, keepdims=True)
    return out
