"""Compiled (numba) pass of :func:`core.privacy.dirichlet_sparse.dirichlet_csr`: the gamma
shapes of a block of entries in one pass.

The numpy version makes the shapes with up to five whole-block passes (the centres
``p·scale + shift``, times k, the minimum, the positions below 1, one added there); this
loop does the same operations on each entry in the same order (so the same bits) while the
entry is in a register. It is compiled (:func:`core.common.jit.compile_loops`) the first
time a model of at least :data:`COMPILE_FROM` entries is privatised, so that numba is not
loaded by the commands on small models, whose numpy passes take less time than its import.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.common.jit import NUMBA, compile_loops

__all__ = ["AVAILABLE", "COMPILE_FROM", "gamma_shapes"]

#: Whether the compiled pass can be used (numba is installed and not disabled by
#: ``PRIVPLAN_NO_NUMBA``); found without importing numba.
AVAILABLE: bool = NUMBA
#: Entries of a model from which :func:`~core.privacy.dirichlet_sparse.dirichlet_csr` uses
#: the compiled pass (below, loading numba would cost more than it saves).
COMPILE_FROM = 1 << 16
_COMPILED: dict[str, Any] = {}


def _shapes(p: np.ndarray, scale: float, shift: float, affine: bool, k: float,
            out: np.ndarray, small: np.ndarray) -> int:
    n = 0
    for i in range(p.size):
        x = p[i]
        if affine:
            x = x * scale
            x = x + shift
        x = x * k
        if x < 1.0:
            small[n] = i
            n += 1
            x = x + 1.0
        out[i] = x
    return n


def gamma_shapes(p: np.ndarray, k: float, affine: tuple[float, float] | None,
                 out: np.ndarray, small: np.ndarray) -> int:
    """Write the gamma shapes of the entries ``p`` into ``out``: c·k with c = p, or
    c = p·scale + shift when ``affine`` is (scale, shift), and c·k + 1 where c·k < 1.

    Parameters
    ----------
    p : numpy.ndarray
        (n,) float64 values.
    k : float
        The concentration.
    affine : (float, float) or None
        The rows' pre-processing, when ``p`` are the values before it.
    out : numpy.ndarray
        (n,) float64: the shapes.
    small : numpy.ndarray
        (n,) int64 scratch: its first (returned) count entries are the positions with
        c·k < 1, ascending.

    Returns
    -------
    int
        How many shapes had 1 added.
    """
    scale, shift = affine if affine is not None else (1.0, 0.0)
    if not _COMPILED:
        _COMPILED.update(compile_loops([(_shapes, {"cache": True, "nogil": True})]))
    shapes = _COMPILED["_shapes"]
    return int(shapes(p, float(scale), float(shift), affine is not None, float(k), out, small))
