"""The seeds of a study, derived from one master seed and recorded with its results.

Replicate ``i`` of a study gets the seed :func:`replicate_seed` ``(master, i)``: the first
32-bit word of ``numpy.random.SeedSequence(master, spawn_key=(i,))``. Every arm and every
grid point of a study receives the same seed for replicate ``i`` (a paired design: compared
arms see the same exploration, the same data draw and the same mechanism noise stream), and
seeds do not depend on ``n``, so a study extended from 20 to 40 replicates keeps its first 20
runs bit for bit. Seeds are 32-bit so that every consumer accepts them
(``numpy.random.default_rng``, the legacy ``RandomState``, scikit-learn's ``random_state``).

Examples
--------
>>> derive_seeds(7, 3) == derive_seeds(7, 5)[:3]
True
>>> len(set(derive_seeds(7, 1000)))
1000
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["derive_seeds", "replicate_seed", "draw_master_seed", "auxiliary_rng"]

# spawn keys at and above this value are reserved for the study's own randomness (bootstrap)
_AUX_KEY = 2**31


def replicate_seed(master_seed: int, index: int) -> int:
    """The 32-bit seed of replicate ``index`` under ``master_seed``.

    Parameters
    ----------
    master_seed : int
        The study's master seed (≥ 0).
    index : int
        The replicate (≥ 0).

    Returns
    -------
    int
        A seed in [0, 2³²).
    """
    ss = np.random.SeedSequence(int(master_seed), spawn_key=(int(index),))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def derive_seeds(master_seed: int, n: int) -> tuple[int, ...]:
    """``n`` distinct replicate seeds from ``master_seed`` (a prefix-stable sequence).

    A replicate whose seed repeats an earlier one (probability about n²/2³³) is skipped,
    so the result is always ``n`` distinct seeds.

    Parameters
    ----------
    master_seed : int
        The study's master seed (≥ 0).
    n : int
        How many replicates (≥ 1).

    Returns
    -------
    tuple of int
        The seeds, replicate 0 first.

    Raises
    ------
    ValueError
        ``master_seed`` < 0 or ``n`` < 1.
    """
    if int(master_seed) < 0:
        raise ValueError(f"master_seed must be >= 0, got {master_seed!r}")
    if int(n) < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    out: list[int] = []
    seen: set[int] = set()
    i = 0
    while len(out) < int(n):
        s = replicate_seed(master_seed, i)
        i += 1
        if s not in seen:
            seen.add(s)
            out.append(s)
    return tuple(out)


def draw_master_seed() -> int:
    """A master seed from the operating system's CSPRNG (63 bits; recorded with the result).

    Returns
    -------
    int
        A seed in [0, 2⁶³).
    """
    return int.from_bytes(os.urandom(8), "little") >> 1


def auxiliary_rng(master_seed: int, *key: int) -> np.random.Generator:
    """A generator for the study's own randomness (bootstrap resamples), disjoint from the
    replicate streams and fixed by ``master_seed`` and ``key``.

    Parameters
    ----------
    master_seed : int
        The study's master seed.
    *key : int
        Further spawn-key words (e.g. the point, arm and metric index).

    Returns
    -------
    numpy.random.Generator
    """
    ss = np.random.SeedSequence(int(master_seed), spawn_key=(_AUX_KEY, *map(int, key)))
    return np.random.default_rng(ss)
