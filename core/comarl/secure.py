"""Secure summation by additive secret sharing (dissertation ch. 4, §4.3; spec §3.3), vectorised.

Field Z_p with p = 2³¹ − 1 (the dissertation's code), fixed-point encoding with PRECISION = 5:
``enc(x) = int(10⁵·x) mod p`` (truncation toward zero, as Python's ``int``) and
``dec(v) = v/10⁵`` if v ≤ p/2, else (v − p)/10⁵. A secret s is split into r₁…r_{n−1} uniform
in Z_p and r_n = p − (Σ_{i<n} r_i mod p) + s (not reduced mod p: erratum 5, harmless).

Protocol (3 steps): every party shares its secret and sends one share to each party; each
party sums the shares it received and broadcasts that sum; everyone adds the broadcasts.

What it hides and what it does not: party i learns Σ_{j≠i} m_j = Σ m − m_i. **With two
parties the partner's message is revealed exactly.** The revealed sums are not covered by any
DP noise. The encoding is exact only while |Σ m|·10⁵ < p/2, i.e. |Σ m| < 10737.41823.

Randomness: shares come from the OS CSPRNG unless a numpy Generator is given (seeded
experiments).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np

from core.common.errors import InputError

__all__ = ["P", "PRECISION", "SCALE", "MAX_ABS_SUM", "enc", "dec", "share", "secure_sum",
           "Transcript"]

P = 2**31 - 1
PRECISION = 5
SCALE = 10**PRECISION
#: the largest |Σ m| the encoding represents: (p/2)/10⁵
MAX_ABS_SUM = (P // 2) / SCALE


def enc(x: "np.ndarray | float") -> np.ndarray:
    """``int(10⁵·x) mod p`` elementwise (int64).

    >>> int(enc(1.5)), int(enc(-1.5))
    (150000, 2147333647)
    """
    v = np.trunc(np.asarray(x, dtype=np.float64) * SCALE).astype(np.int64)
    result: np.ndarray = np.mod(v, P)
    return result


def dec(v: "np.ndarray | int") -> np.ndarray:
    """Decode a field element to a float (negative above p/2).

    >>> float(dec(2147333647))
    -1.5
    """
    a = np.asarray(v, dtype=np.int64)
    result: np.ndarray = np.where(a <= P // 2, a, a - P).astype(np.float64) / SCALE
    return result


def _uniform(shape: tuple[int, ...], rng: np.random.Generator | None) -> np.ndarray:
    if rng is not None:
        result: np.ndarray = rng.integers(0, P, size=shape, dtype=np.int64)
        return result
    # rejection sampling from 31-bit words: exactly uniform on Z_p
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        raw = np.frombuffer(os.urandom(4 * (n - out.size) + 64), dtype=np.uint32)
        w = (raw & np.uint32(0x7FFFFFFF)).astype(np.int64)
        out = np.concatenate([out, w[w < P]])
    return out[:n].reshape(shape)


def share(secret: np.ndarray, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """Split encoded secrets (any shape) into ``n`` additive shares: shape (n, *secret.shape).

    Parameters
    ----------
    secret : numpy.ndarray
        Field elements (``enc`` of the messages).
    n : int
        Number of parties, ≥ 2.
    rng : numpy.random.Generator, optional
        Seeded experiment; None draws from the OS CSPRNG.
    """
    s = np.asarray(secret, dtype=np.int64)
    r = _uniform((n - 1, *s.shape), rng)
    last = P - np.mod(r.sum(axis=0), P) + s
    return np.concatenate([r, last[None]], axis=0)


@dataclass(frozen=True)
class Transcript:
    """What each party saw in one secure summation (for the leakage inspector)."""

    received: np.ndarray     # (n, n, …): party j's share of party i's secret at [i, j]
    broadcasts: np.ndarray   # (n, …): party j's sum of received shares mod p
    total: np.ndarray        # the decoded sum everyone learns


@overload
def secure_sum(messages: np.ndarray, rng: np.random.Generator | None = None, *,
               transcript: Literal[False] = False) -> np.ndarray: ...


@overload
def secure_sum(messages: np.ndarray, rng: np.random.Generator | None = None, *,
               transcript: Literal[True]) -> tuple[np.ndarray, Transcript]: ...


def secure_sum(messages: np.ndarray, rng: np.random.Generator | None = None, *,
               transcript: bool = False) -> np.ndarray | tuple[np.ndarray, Transcript]:
    """The 3-step protocol over ``n`` parties' messages (shape (n, …)); returns the decoded sum
    (and the transcript when asked).

    Parameters
    ----------
    messages : numpy.ndarray
        Real messages, party index first.
    rng : numpy.random.Generator, optional
        Seeded experiment; None: the OS CSPRNG.
    transcript : bool
        Also return the :class:`Transcript`.

    Examples
    --------
    >>> m = np.array([[1.25, -3.5], [2.0, 0.75], [-0.5, 1.0]])
    >>> secure_sum(m, np.random.default_rng(0)).tolist()
    [2.75, -1.75]
    """
    m = np.asarray(messages, dtype=np.float64)
    n = m.shape[0]
    if n < 2:
        raise InputError(f"secure summation needs at least 2 parties, got {n}", field="agents")
    if not np.isfinite(m).all():
        raise InputError("messages must be finite", field="messages")
    e = enc(m)
    shares = np.stack([share(e[i], n, rng) for i in range(n)])      # [i, j, …]
    broadcasts = np.mod(shares.sum(axis=0), P)                        # party j's partial sum
    total = dec(np.mod(broadcasts.sum(axis=0), P))
    if np.abs(m.sum(axis=0)).max(initial=0.0) >= MAX_ABS_SUM:
        raise InputError(f"|sum| must stay below {MAX_ABS_SUM:.5f} for the fixed-point "
                         "encoding", field="messages")
    if transcript:
        return total, Transcript(shares, broadcasts, total)
    return total
