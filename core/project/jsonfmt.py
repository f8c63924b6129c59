"""Diffable, compact JSON: indented structure, small objects and lists on one line.

Examples
--------
>>> print(dumps({"a": [1, 2], "b": [{"x": 1}, {"x": 2}]}, width=12))
{
  "a": [1, 2],
  "b": [
    {"x": 1},
    {"x": 2}
  ]
}
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps"]


def dumps(obj: Any, *, indent: int = 2, width: int = 100) -> str:
    """``json.dumps`` with ``allow_nan=False``, collapsing any value that fits ``width``.

    Parameters
    ----------
    obj : Any
        JSON-able data (finite numbers only).
    indent : int
        Spaces per level.
    width : int
        The line width a collapsed value must fit.

    Returns
    -------
    str
    """
    return _dump(obj, 0, indent, width)


def _dump(obj: Any, level: int, indent: int, width: int) -> str:
    flat = json.dumps(obj, allow_nan=False, ensure_ascii=False)
    if len(flat) + level * indent <= width or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad, inner = " " * (level * indent), " " * ((level + 1) * indent)
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: "
                 f"{_dump(v, level + 1, indent, width)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _dump(v, level + 1, indent, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"
