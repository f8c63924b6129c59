"""The special functions the accountants evaluate, without the import cost of ``scipy.special``.

Importing the package ``scipy.special`` builds its array-API dispatch layer, which touches
every lazy submodule of numpy (``numpy.testing``, ``numpy.f2py``, ``numpy.ma``, ...): about
0.4 s of CPU, more than numpy's own import, paid by every command that accounts for
privacy, however small its model. The functions themselves (Boost's incomplete beta, the
log-gamma, ...) are numpy ufuncs in the compiled module ``scipy.special._ufuncs``; for
numpy input the names in ``scipy.special`` *are* these objects (a test checks identity), so
the numbers do not change in any bit.

:func:`_load_ufuncs` therefore loads that compiled module under its own name without running
the package's ``__init__``: for the moment of the load, a bare package object stands in
for ``scipy.special`` (so the module's relative imports of its sibling compiled modules
resolve), and is removed afterwards. A later ``import scipy.special`` (the audit, the
plots) runs the package's ``__init__`` as usual and finds the compiled modules already
loaded. It is done only while the process has a single thread (no other thread can import
``scipy.special`` while the stand-in is in place); in any other case, and if anything about
scipy's layout differs, the package is simply imported.

:func:`logsumexp` is scipy's algorithm for real input (the maximum term kept out of the
sum, ``log1p`` of the rest, the direct formula where that is not finite), written with numpy
only because scipy's version lives in the package layer; a test compares the two bit for
bit.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import types
from typing import Any

import numpy as np

__all__ = ["betainc", "betaincc", "betaincinv", "betaln", "expit", "gammaln", "logsumexp"]

_NAME = "scipy.special"


def _load_ufuncs() -> Any:
    """``scipy.special._ufuncs``, loaded without the package ``__init__`` where that is safe."""
    loaded = sys.modules.get(_NAME + "._ufuncs")
    if loaded is not None:
        return loaded
    if _NAME in sys.modules or threading.active_count() != 1:
        return importlib.import_module(_NAME)
    try:
        import scipy

        folder = os.path.join(os.path.dirname(scipy.__file__), "special")
        if not os.path.isdir(folder):  # pragma: no cover - an unknown layout
            raise ImportError(folder)
        stand_in = types.ModuleType(_NAME)
        stand_in.__path__ = [folder]
        stand_in.__package__ = _NAME
        sys.modules[_NAME] = stand_in
        try:
            return importlib.import_module(_NAME + "._ufuncs")
        finally:
            if sys.modules.get(_NAME) is stand_in:
                del sys.modules[_NAME]
    except ImportError:  # pragma: no cover - a scipy whose package __init__ is needed
        for name in [n for n in sys.modules if n.startswith(_NAME + ".")]:
            del sys.modules[name]
        return importlib.import_module(_NAME)


_ufuncs = _load_ufuncs()

betainc: np.ufunc = _ufuncs.betainc
betaincc: np.ufunc = _ufuncs.betaincc
betaincinv: np.ufunc = _ufuncs.betaincinv
betaln: np.ufunc = _ufuncs.betaln
expit: np.ufunc = _ufuncs.expit
gammaln: np.ufunc = _ufuncs.gammaln


def logsumexp(a: Any, axis: int | None = None) -> Any:
    """``log(sum(exp(a), axis))`` for real ``a``, as ``scipy.special.logsumexp`` computes it.

    Parameters
    ----------
    a : array_like of float
        The exponents.
    axis : int, optional
        The axis summed over (all of them when omitted).

    Returns
    -------
    numpy.ndarray or numpy.float64
        The logarithm of the sum; a scalar when every axis is summed.
    """
    x = np.asarray(a, dtype=np.result_type(np.asarray(a).dtype, np.float64))
    x = np.atleast_1d(x)
    axes = tuple(range(x.ndim)) if axis is None else axis
    if x.size == 0:
        shape = list(x.shape)
        for ax in (axes if isinstance(axes, tuple) else (axes,)):
            shape[ax] = 1
        out = np.full(shape, -np.inf)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out_inf = np.log(np.sum(np.exp(x), axis=axes, keepdims=True))
        with np.errstate(divide="ignore", invalid="ignore"):
            a_max = np.max(x, axis=axes, keepdims=True)
            at_max = x == a_max
            rest = np.where(at_max, -np.inf, x)
            m = np.sum(at_max.astype(x.dtype), axis=axes, keepdims=True, dtype=x.dtype)
            s = np.sum(np.exp(rest - a_max), axis=axes, keepdims=True, dtype=x.dtype)
            s = np.where(s == 0, s, s / m)
            sign = np.sign(s + 1) * np.sign(m)
            s = np.where(s < -1, -s - 2, s)
            out = np.log1p(s) + np.log(np.abs(m)) + a_max
            out[sign < 0] = np.nan
        out = np.where(np.isfinite(out), out, out_inf)
    out = np.squeeze(out, axis=axes)
    return out[()] if out.ndim == 0 else out
