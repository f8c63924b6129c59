"""The report's content model: sections of paragraphs, key/values, tables and figures.

A run kind contributes its section through one function registered with :func:`reporter`;
the small formatters here (numbers, an unbounded ε with its reason, times, the randomness
mode) are shared by every section so that each reads the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["REPORT_MAX_STATES", "Paragraph", "KeyValues", "Table", "Series", "Figure", "Block",
           "Section", "Report", "Reporter", "REPORTERS", "reporter", "UNBOUNDED_TEXT"]


REPORT_MAX_STATES = 500


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "text"  # "text" | "note" | "warning"


@dataclass(frozen=True)
class KeyValues:
    items: tuple[tuple[str, str], ...]
    title: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    note: str = ""
    widths: tuple[int, ...] = ()  # optional column widths in percent (a layout hint)


@dataclass(frozen=True)
class Series:
    name: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    err: tuple[float, ...] | None = None
    dashed: bool = False
    colour: str | None = None  # from core.common.palette, as the app draws it
    segments: bool = False  # points pair up into separate segments (a map's routes)


@dataclass(frozen=True)
class Figure:
    """A line plot: the GUI renders it with pyqtgraph, HTML with :func:`svg_plot`."""

    id: str
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    log_x: bool = False
    log_y: bool = False
    caption: str = ""


Block = Paragraph | KeyValues | Table | Figure


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)
    id: str = ""


@dataclass
class Report:
    title: str
    metadata: dict[str, str]
    sections: list[Section]

    def figures(self) -> list[Figure]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Figure)]


Reporter = Callable[[Any, Any], Section]


REPORTERS: dict[str, Reporter] = {}


def reporter(kind: str) -> Callable[[Reporter], Reporter]:
    """Register ``fn(project, run) -> Section`` for run records of ``kind``.

    Parameters
    ----------
    kind : str
        The ``RunRecord.kind`` the decorated function reports (``"sweep"``, ``"plan"``, …).

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.
    """

    def register(fn: Reporter) -> Reporter:
        REPORTERS[kind] = fn
        return fn

    return register


def _fmt(x: Any, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return f"{x:.{digits}g}"
    return str(x)


UNBOUNDED_TEXT = "unbounded"


def _eps(x: Any, reason: Any = "") -> str:
    """An ε for display: a number, or "unbounded" with its reason (never ∞, 0 or blank).

    ``None`` is the JSON form of an unbounded ε (``formats-and-cli.md`` §5), so it reads
    as unbounded too.

    >>> _eps(1.25), _eps(math.inf, "raw Q-values released"), _eps(None)
    ('1.25', 'unbounded (raw Q-values released)', 'unbounded')
    """
    if x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)
                     and math.isinf(x) and x > 0):
        return f"{UNBOUNDED_TEXT} ({reason})" if reason else UNBOUNDED_TEXT
    return _fmt(x)


def _reason_at(reasons: Any, i: int) -> str:
    """The ``i``-th entry of a ``<key>_reason`` list (or the one string), else ""."""
    if isinstance(reasons, str):
        return reasons
    if isinstance(reasons, (list, tuple)) and i < len(reasons) and reasons[i]:
        return str(reasons[i])
    return ""


def _pair(eps: float, delta: float) -> str:
    return f"({_eps(eps)}, {_fmt(delta, 3)})"


def _time(iso: str) -> str:
    """``2026-01-02T03:04:05+00:00`` -> ``2026-01-02 03:04:05 UTC`` (wraps at spaces)."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def _mode_text(run: Any) -> str:
    return ("seeded experiment (seed %s) — reproducible, not a release" % run.seed
            if run.mode == "experiment" else "release mode (secure noise)")


def _short_time(iso: str) -> str:
    """``2026-11-25 02:46`` from an ISO time (as it is, if it is not one)."""
    text = _time(iso)
    return text[:16] if len(text) >= 16 and text[4] == "-" else text
