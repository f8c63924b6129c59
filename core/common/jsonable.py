"""The one place where a non-finite number becomes JSON ``null`` with a reason.

The command-line contract (``docs/formats-and-cli.md`` §5): a quantity with no finite value (an
ε without a guarantee, a value that diverged) is written as ``null`` with a sibling
``<key>_reason`` string (a list of strings, aligned with the values, for list-valued keys),
never ``Infinity`` or ``NaN``. Producers that know *why* a value is unbounded put the reason
there themselves; :func:`jsonable` fills in a generic one only where none was given, so a
non-finite value can never reach ``json.dumps(allow_nan=False)`` and crash the command.

Examples
--------
>>> import math
>>> jsonable({"epsilon": math.inf, "delta": 0.05})
{'epsilon': None, 'delta': 0.05, 'epsilon_reason': 'no finite bound (unbounded)'}
>>> jsonable({"epsilon": math.inf, "epsilon_reason": "raw Q-values released"})
{'epsilon': None, 'epsilon_reason': 'raw Q-values released'}
>>> jsonable({"v": [1.0, math.nan]})
{'v': [1.0, None], 'v_reason': [None, 'not a number (undefined)']}
>>> dumps({"x": [math.inf]})
'{"x": [null], "x_reason": ["no finite bound (unbounded)"]}'
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

__all__ = ["jsonable", "jsonable_dict", "dumps", "finite_or_none", "UNBOUNDED", "UNDEFINED"]

UNBOUNDED = "no finite bound (unbounded)"
UNDEFINED = "not a number (undefined)"


def _why(x: float) -> str:
    return UNDEFINED if math.isnan(x) else UNBOUNDED


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` if it is finite, else None.

    Parameters
    ----------
    x : Any
        A number (numpy scalars too).

    Returns
    -------
    float or None
        None for ±∞ and NaN (JSON ``null``).
    """
    v = float(x)
    return v if math.isfinite(v) else None


def _is_bad(x: Any) -> bool:
    return isinstance(x, (float, np.floating)) and not math.isfinite(float(x))


def _scalar(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    return x


def _plain(v: Any) -> bool:
    """A value ``json.dumps(allow_nan=False)`` takes as it is: text, a bool, an int, a finite
    float or None (``v - v`` is 0 only for a finite float)."""
    t = type(v)
    return t is str or t is int or v is None or t is bool or (t is float and v - v == 0.0)


def jsonable(obj: Any) -> Any:
    """A copy of ``obj`` that ``json.dumps(allow_nan=False)`` accepts (see module docstring).

    numpy arrays and scalars become lists and Python numbers; tuples become lists.

    Parameters
    ----------
    obj : Any
        Nested dicts, lists, tuples, numbers and arrays.

    Returns
    -------
    Any
        The same structure with every non-finite number replaced by None and a sibling
        ``<key>_reason`` (a string, or a list aligned with a list value) saying why.
    """
    obj = _scalar(obj)
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        reasons: dict[str, Any] = {}
        for key, value in obj.items():
            value = _scalar(value)
            if isinstance(value, np.ndarray):
                value = value.tolist()
            if _is_bad(value):
                out[key] = None
                reasons[f"{key}_reason"] = _why(float(value))
            elif isinstance(value, (list, tuple)) and any(_is_bad(_scalar(v)) for v in value):
                vals = [_scalar(v) for v in value]
                out[key] = [None if _is_bad(v) else jsonable(v) for v in vals]
                reasons[f"{key}_reason"] = [_why(float(v)) if _is_bad(v) else None
                                            for v in vals]
            else:
                out[key] = jsonable(value)
        for rk, rv in reasons.items():
            if out.get(rk) is None:  # a producer's own reason wins
                out[rk] = rv
        return out
    if isinstance(obj, (list, tuple)):
        if all(map(_plain, obj)):  # the common case (a model's numbers): a plain copy
            return list(obj)
        return [None if _is_bad(_scalar(v)) else jsonable(v) for v in obj]
    if _is_bad(obj):
        return None
    return obj


def jsonable_dict(obj: dict[str, Any]) -> dict[str, Any]:
    """:func:`jsonable` of a dict, typed as the dict it returns (a run summary, a payload).

    Parameters
    ----------
    obj : dict
        String keys; values as for :func:`jsonable`.

    Returns
    -------
    dict
        The strict-JSON copy (a dict comes back a dict).
    """
    out: dict[str, Any] = jsonable(obj)
    return out


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps(jsonable(obj), allow_nan=False, **kwargs)``: strict JSON text.

    Parameters
    ----------
    obj : Any
        What to encode.
    **kwargs
        Passed to :func:`json.dumps` (e.g. ``indent``).

    Returns
    -------
    str
        The JSON text.
    """
    return json.dumps(jsonable(obj), allow_nan=False, **kwargs)
