"""The special functions the accountants evaluate, without the import cost of ``scipy.special``.

Importing the package ``scipy.special`` builds its array-API dispatch layer, which touches
every lazy submodule of numpy (``numpy.testing``, ``numpy.f2py``, ``numpy.ma``, ...): about
0.4 s of CPU, more than numpy's own import, paid by every command that accounts for
privacy, however small its model. The functions themselves (Boost's incomplete beta, the
log-gamma, ...) are numpy ufuncs in the compiled module ``scipy.special._ufuncs``; for
numpy input the names in ``scipy.special`` *are* these objects (a test checks identity), so
the numbers do not change in any bit.

:func:`_load_ufuncs` therefore loads that compiled module under its own name with the
package ``scipy.special`` in place but not yet run: a :class:`_Deferred` module object with
the package's spec and path, so that the compiled module's imports of its siblings resolve.
The first time anything asks that package for a name it does not yet hold (``import
scipy.special`` elsewhere, then ``scipy.special.gamma``; ``from scipy.special import ...``;
``dir``), it runs the package's own ``__init__`` in place, once, under a lock: from then on
it is the package as scipy made it (the same names, tested against a plain import). This is
done only while the process has a single thread, and if anything about scipy's layout
differs the package is simply imported.

:func:`logsumexp` is scipy's algorithm for real input (the maximum term kept out of the
sum, ``log1p`` of the rest, the direct formula where that is not finite), written with numpy
only because scipy's version lives in the package layer; a test compares the two bit for
bit.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

import numpy as np

__all__ = ["betainc", "betaincc", "betaincinv", "betaln", "expit", "gammaln", "logsumexp"]

_NAME = "scipy.special"


_LOCK = threading.RLock()
_RUNNING: list[bool] = [False]  # the package's __init__ is running (in the thread holding _LOCK)


class _Deferred(types.ModuleType):
    """``scipy.special`` before its ``__init__`` has run: it holds the compiled modules loaded
    so far; a name it lacks runs the ``__init__`` in place first (see the module docstring)."""

    def __getattr__(self, name: str) -> Any:
        _complete(self)
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None

    def __dir__(self) -> list[str]:
        _complete(self)
        return sorted(self.__dict__)


def _complete(module: types.ModuleType) -> None:
    """Run the package's own ``__init__`` in ``module`` (once; other threads wait for it)."""
    with _LOCK:
        if type(module) is not _Deferred or _RUNNING[0]:
            return
        _RUNNING[0] = True
        try:
            spec = module.__spec__
            assert spec is not None and spec.loader is not None
            spec.loader.exec_module(module)
            module.__class__ = types.ModuleType  # type: ignore[assignment]
        finally:
            _RUNNING[0] = False


def _load_ufuncs() -> Any:
    """``scipy.special._ufuncs``, loaded without the package ``__init__`` where that is safe."""
    loaded = sys.modules.get(_NAME + "._ufuncs")
    if loaded is not None:
        return loaded
    if _NAME in sys.modules or threading.active_count() != 1:
        return importlib.import_module(_NAME + "._ufuncs")
    import scipy

    spec = importlib.util.find_spec(_NAME)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return importlib.import_module(_NAME + "._ufuncs")  # pragma: no cover - unknown layout
    package = _Deferred(_NAME)
    package.__spec__, package.__loader__ = spec, spec.loader
    package.__file__, package.__package__ = spec.origin, _NAME
    setattr(package, "__cached__", spec.cached)  # noqa: B010 (not in ModuleType's stub)
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules[_NAME] = package
    try:
        ufuncs = importlib.import_module(_NAME + "._ufuncs")
    except ImportError:  # pragma: no cover - a scipy whose compiled modules need the package
        _complete(package)
        ufuncs = importlib.import_module(_NAME + "._ufuncs")
    scipy.special = package  # as an import would set it
    return ufuncs


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
