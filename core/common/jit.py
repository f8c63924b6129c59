"""Compiled loops on demand: kernels written as plain Python, compiled by numba only when an
input is large enough to pay for loading it.

Importing numba costs about twice numpy's own import (and loading a cached kernel a little
more), which a command on a small model does not recover: its loops over a few hundred
entries take less time in plain Python. So a kernel module defines its loops as ordinary
functions (no decorator, so importing it does not import numba) and asks
:func:`compile_loops` for their compiled versions the first time a large input comes. The
two run the same operations in the same order on IEEE doubles (numba compiles without
fast-math, so it neither reorders nor fuses a multiply and an add): a kernel that uses only
``+ - * /``, comparisons and integer conversions gives the same bits either way (each
kernel module's tests compare the two with ``==``).

``PRIVPLAN_NO_NUMBA`` (any non-empty value) makes :data:`NUMBA` false, as when numba is not
installed: the callers then use their numpy versions.
"""

from __future__ import annotations

import importlib.util
import os
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["NUMBA", "compile_loops"]


def _numba_installed() -> bool:
    """Whether numba can be imported (found, not imported) and is not disabled."""
    if os.environ.get("PRIVPLAN_NO_NUMBA"):
        return False
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


#: Whether numba is installed and not disabled by ``PRIVPLAN_NO_NUMBA`` (found without
#: importing it).
NUMBA: bool = _numba_installed()


def compile_loops(loops: Sequence[tuple[Callable[..., Any], Mapping[str, Any]]],
                  replace: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """numba-compiled versions of plain-Python functions of one module.

    Each function is compiled with ``numba.njit(**options)``; inside the compiled functions,
    a global name of the module that names one of ``loops`` refers to its compiled version
    (so a loop may call a helper loop by name, as the plain version does), and a name of
    ``replace`` to that object (e.g. a numba intrinsic standing in for a plain no-op). The
    module itself is not changed: its plain functions stay plain.

    Parameters
    ----------
    loops : sequence of (function, options)
        The functions (all from the same module) and their ``njit`` options
        (``cache=True`` keeps the machine code between processes, next to the module).
    replace : mapping, optional
        Global names to give other values in the compiled functions.

    Returns
    -------
    dict
        Function name -> compiled function (compiled on its first call, or loaded from
        numba's cache).

    Raises
    ------
    ImportError
        When numba is not installed.
    """
    from numba import njit

    if not loops:
        return {}
    namespace = dict(loops[0][0].__globals__)
    namespace.update(replace or {})
    compiled: dict[str, Any] = {}
    for fn, options in loops:
        if fn.__globals__ is not loops[0][0].__globals__:
            raise ValueError(f"{fn.__qualname__} is not in the module of the other loops")
        copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        copy.__qualname__ = fn.__qualname__
        copy.__module__ = fn.__module__
        copy.__doc__ = fn.__doc__
        compiled[fn.__name__] = njit(**options)(copy)
    namespace.update(compiled)
    return compiled
