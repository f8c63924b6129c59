"""Reference arms (module level, so a process pool can run them): the runner's own tests
and doctests use them, and they show the shape every arm has.

Examples
--------
>>> shifted_normal(5, shift=1.0) == shifted_normal(5, shift=1.0)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["shifted_normal", "coin"]


def shifted_normal(seed: int, shift: float = 0.0, noise: float = 0.3, size: int = 1,
                   stream: int = 0) -> dict[str, float]:
    """A paired toy experiment: a per-seed baseline (shared by every arm with this seed,
    like an environment draw) plus the arm's ``shift`` plus the arm's own noise.

    Parameters
    ----------
    seed : int
        The replicate seed.
    shift : float
        The arm's true effect.
    noise : float
        Standard deviation of the arm's own noise.
    size : int
        Draws averaged per run.
    stream : int
        Which of the seed's independent noise streams the arm draws (arms with the same
        stream and shift give the same value).

    Returns
    -------
    dict
        ``{"x": value, "baseline": the seed's shared part}``.
    """
    rng = np.random.default_rng(seed)
    base = float(rng.normal())  # the same for every arm on this seed
    own = np.random.default_rng([int(seed), 1 + int(stream)])
    x = base + float(shift) + float(own.normal(0.0, noise, size=int(size)).mean())
    return {"x": x, "baseline": base}


def coin(seed: int, p: float = 0.5) -> dict[str, float]:
    """One Bernoulli(``p``) outcome per run (a 0/1 metric, e.g. "converged").

    Parameters
    ----------
    seed : int
        The replicate seed.
    p : float
        Success probability.

    Returns
    -------
    dict
        ``{"success": 0.0 or 1.0}``.
    """
    return {"success": float(np.random.default_rng(seed).random() < p)}
