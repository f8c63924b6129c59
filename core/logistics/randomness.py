"""Release-mode randomness for the logistics releases: a secure stand-in for numpy's Generator.

What an obfuscated map reveals through its *form* — which opaque id each node gets, the
order nodes and routes are listed in, which real bases are dropped, where fake nodes and
routes go — is decided by random choices. In a seeded experiment they come from the
session's numpy streams (reproducible). In release mode they must not be predictable from
anything an observer sees, so they come from :class:`SecureGenerator`, which draws every
integer with :func:`secrets.randbelow` (exactly uniform, OS CSPRNG) and every float from
:class:`core.common.secure.SecureRandom` (``os.urandom``).

Only the subset of ``numpy.random.Generator`` that the obfuscation code uses is provided:
``integers``, ``random``, ``uniform``, ``permutation``, ``shuffle`` and ``choice``.

Examples
--------
>>> g = SecureGenerator()
>>> sorted(g.permutation(5).tolist())
[0, 1, 2, 3, 4]
>>> 0 <= int(g.integers(10)) < 10 and 2.0 <= g.uniform(2.0, 3.0) < 3.0
True
>>> len(set(g.choice(6, size=6, replace=False).tolist()))
6
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from core.common.secure import SecureRandom

__all__ = ["SecureGenerator"]


def _count(size: "int | tuple[int, ...] | None") -> int:
    if size is None:
        return 1
    return int(np.prod(size, dtype=np.int64))


class SecureGenerator:
    """The parts of ``numpy.random.Generator`` the logistics release uses, from the OS CSPRNG."""

    def __init__(self) -> None:
        self._floats = SecureRandom()

    def integers(self, low: int, high: int | None = None,
                 size: "int | tuple[int, ...] | None" = None) -> Any:
        """Uniform integers in [low, high) (``integers(n)``: [0, n)), exactly uniform."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if high <= low:
            raise ValueError("high <= low")
        span = high - low
        if size is None:
            return np.int64(low + secrets.randbelow(span))
        vals = [low + secrets.randbelow(span) for _ in range(_count(size))]
        return np.asarray(vals, dtype=np.int64).reshape(size)

    def random(self, size: "int | tuple[int, ...] | None" = None) -> Any:
        """Uniform floats in the open interval (0, 1)."""
        if size is None:
            return float(self._floats.random(1)[0])
        return self._floats.random(size)

    def uniform(self, low: float = 0.0, high: float = 1.0,
                size: "int | tuple[int, ...] | None" = None) -> Any:
        u = self.random(size)
        return low + (high - low) * u

    def shuffle(self, x: "list[Any] | np.ndarray") -> None:
        """Fisher–Yates in place."""
        for i in range(len(x) - 1, 0, -1):
            j = secrets.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def permutation(self, x: "int | Sequence[Any] | np.ndarray") -> np.ndarray:
        arr = np.arange(int(x)) if isinstance(x, (int, np.integer)) else np.array(x, copy=True)
        idx = list(range(len(arr)))
        self.shuffle(idx)
        return arr[np.asarray(idx, dtype=np.int64)] if len(arr) else arr

    def choice(self, a: "int | Sequence[Any] | np.ndarray", size: "int | None" = None,
               replace: bool = True, p: "Sequence[float] | np.ndarray | None" = None) -> Any:
        pool = np.arange(int(a)) if isinstance(a, (int, np.integer)) else np.asarray(a)
        n = len(pool)
        k = _count(size)
        if p is not None:
            if not replace:
                raise NotImplementedError("weighted choice without replacement")
            cdf = np.cumsum(np.asarray(p, dtype=np.float64))
            cdf /= cdf[-1]
            idx = np.minimum(np.searchsorted(cdf, self._floats.random(k), side="right"), n - 1)
        elif replace:
            idx = np.asarray([secrets.randbelow(n) for _ in range(k)], dtype=np.int64)
        else:
            if k > n:
                raise ValueError("cannot take a larger sample than the population without "
                                 "replacement")
            idx = self.permutation(n)[:k]
        out = pool[idx]
        return out[0] if size is None else out.reshape(size)
