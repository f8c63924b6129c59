"""Result types shared across the core (frozen dataclasses, read-only arrays)."""

from __future__ import annotations

from enum import Enum

import numpy as np

__all__ = ["Status", "readonly"]


class Status(Enum):
    SUCCESS = 0
    MAX_ITER = 1

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_MESSAGES = {
    Status.SUCCESS: "converged",
    Status.MAX_ITER: "iteration limit reached before the tolerance was met",
}


def readonly(a: "np.ndarray | float") -> np.ndarray:
    """A read-only float copy (used in ``__post_init__`` of frozen results).

    Parameters
    ----------
    a : ndarray or float
        The values.

    Returns
    -------
    ndarray
        A float64 copy with ``writeable`` False.
    """
    arr = np.array(a, dtype=np.float64, copy=True)
    arr.setflags(write=False)
    return arr
