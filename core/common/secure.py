"""Release-mode randomness from the operating system's CSPRNG.

numpy's generators are fine for reproducible experiments but are not cryptographic.
For a real release, PrivPlan draws its uniforms from :func:`os.urandom` and builds the
other variates from them (Box–Muller normals, Marsaglia–Tsang gammas). Laplace and
exponential-mechanism noise go through OpenDP instead (see ``core.privacy.laplace``).

Examples
--------
>>> g = SecureRandom()
>>> x = g.random(1000)
>>> bool(((x > 0) & (x < 1)).all())
True
>>> k = g.integers(0, 6, size=1000)
>>> bool(((k >= 0) & (k < 6)).all())
True
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["SecureRandom"]

_TWO_M52 = 2.0**-52


class SecureRandom:
    """The subset of ``numpy.random.Generator`` that PrivPlan uses, from ``os.urandom``."""

    def random(self, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """Uniform doubles in the *open* interval (0, 1): (j + ½)·2⁻⁵² for 52 random bits j.

        Every such value is an exact double, from 2⁻⁵³ to 1 − 2⁻⁵³ (with 53 bits the top
        value (2⁵³ − ½)·2⁻⁵³ would round to 1.0).
        """
        shape = () if size is None else size
        n = int(np.prod(shape, dtype=np.int64))
        raw = np.frombuffer(os.urandom(8 * max(n, 1)), dtype=np.uint64)[:n]
        u = ((raw >> np.uint64(12)).astype(np.float64) + 0.5) * _TWO_M52
        return u.reshape(shape)

    def integers(self, low: int, high: int | None = None,
                 size: int | tuple[int, ...] | None = None) -> np.ndarray:
        """Uniform integers in ``[low, high)`` (``[0, low)`` with one argument), exactly
        uniform: 64 random bits each, redrawn when they fall in the biased top remainder.
        """
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        span = hi - lo
        if span <= 0:
            raise ValueError("high must be > low")
        shape = () if size is None else size
        n = int(np.prod(shape, dtype=np.int64))
        limit = (2**64 // span) * span  # draws >= limit would favour the small residues
        out = np.empty(n, dtype=np.int64)
        filled = 0
        while filled < n:
            raw = np.frombuffer(os.urandom(8 * (n - filled)), dtype=np.uint64)
            good = raw[raw < np.uint64(limit)] if limit < 2**64 else raw
            take = good[: n - filled]
            out[filled:filled + take.size] = (take % np.uint64(span)).astype(np.int64) + lo
            filled += take.size
        return out.reshape(shape)

    def standard_exponential(self, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        out: np.ndarray = -np.log(self.random(size))
        return out

    def standard_normal(self, size: int | tuple[int, ...] | None = None) -> np.ndarray:
        shape = () if size is None else size
        n = int(np.prod(shape, dtype=np.int64))
        m = (n + 1) // 2
        u1, u2 = self.random(m), self.random(m)
        r = np.sqrt(-2.0 * np.log(u1))
        z = np.concatenate([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)])[:n]
        return z.reshape(shape)

    def standard_gamma(self, shape: "np.ndarray | float") -> np.ndarray:
        """Gamma(shape, 1) variates by Marsaglia–Tsang (boosted for shape < 1)."""
        a = np.asarray(shape, dtype=np.float64)
        if np.any(~(a > 0)):
            raise ValueError("gamma shape must be > 0")
        flat = a.ravel()
        small = flat < 1.0
        work = np.where(small, flat + 1.0, flat)
        d = work - 1.0 / 3.0
        c = 1.0 / np.sqrt(9.0 * d)
        out = np.empty_like(work)
        todo = np.arange(work.size)
        while todo.size:
            z = self.standard_normal(todo.size)
            v = (1.0 + c[todo] * z) ** 3
            u = self.random(todo.size)
            dd = d[todo]
            log_v = np.log(np.where(v > 0, v, 1.0))
            ok = (v > 0) & (np.log(u) < 0.5 * z * z + dd - dd * v + dd * log_v)
            out[todo[ok]] = d[todo[ok]] * v[ok]
            todo = todo[~ok]
        if small.any():
            out[small] *= self.random(int(small.sum())) ** (1.0 / flat[small])
        return out.reshape(a.shape)
