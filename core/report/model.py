"""The report's content model: sections of paragraphs, key/values, tables and figures.

A run kind contributes its section through one function registered with :func:`reporter`;
the small formatters here (numbers, an unbounded ε with its reason, times, the randomness
mode) are shared by every section so that each reads the same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.common.errors import InputError
from core.common.quantities import REAL, QuantityRange, band_around, clip_band

__all__ = ["REPORT_MAX_STATES", "Paragraph", "KeyValues", "Table", "Series", "Figure",
           "GridImage", "Block", "Section", "Report", "Reporter", "REPORTERS", "reporter",
           "UNBOUNDED_TEXT", "footnote_unbounded"]


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
    """One plotted series, with an optional band (``low``/``high``: the interval's ends).

    ``limits`` is what the quantity can physically be, declared where the series is
    defined (``core.logistics.records.BENCH_RANGES``, …); the band is clipped to it here
    (:func:`core.common.quantities.clip_band`), so no renderer draws a success rate above
    1 or a length below 0. ``markers`` draws points without a joining line (a map's
    locations).

    >>> s = Series("success", (1.0,), (0.97,), low=(0.9,), high=(1.04,),
    ...            limits=QuantityRange(0.0, 1.0))
    >>> s.low, s.high
    ((0.9,), (1.0,))
    """

    name: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    dashed: bool = False
    colour: str | None = None  # from core.common.palette, as the app draws it
    segments: bool = False  # points pair up into separate segments (a map's routes)
    low: tuple[float, ...] | None = None
    high: tuple[float, ...] | None = None
    limits: QuantityRange = REAL
    markers: bool = False  # points only, no line (a map's locations)
    symbol: str = "o"  # marker shape: "o" circle, "s" square, "t" triangle, "d" diamond

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None):
            raise InputError("a band needs both ends", field="low" if self.low is None
                             else "high")
        if self.low is not None and self.high is not None:
            if not len(self.low) == len(self.high) == len(self.y):
                raise InputError("a band needs one low and one high per point", field="low")
            lo, hi = clip_band(self.low, self.high, self.limits)
            object.__setattr__(self, "low", tuple(float(v) for v in lo))
            object.__setattr__(self, "high", tuple(float(v) for v in hi))

    @classmethod
    def around(cls, name: str, x: tuple[float, ...], y: tuple[float, ...],
               half: tuple[float, ...] | None, limits: QuantityRange, **kw: Any) -> Series:
        """A series with the band ``y ± half`` (NaN half-widths: no band at that point)."""
        if half is None:
            return cls(name, x, y, limits=limits, **kw)
        lo, hi = band_around(y, half, limits)
        return cls(name, x, y, low=tuple(float(v) for v in lo),
                   high=tuple(float(v) for v in hi), limits=limits, **kw)


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


@dataclass(frozen=True)
class GridImage:
    """Grid maps drawn as coloured cells, side by side (a DP-DRL map and its recovery).

    ``panels`` are ``(label, rows)`` with one character per cell; ``legend`` maps a
    character to ``(colour, meaning)``. HTML draws it as SVG, the PDF as an image — never
    as rows of characters.
    """

    id: str
    title: str
    panels: tuple[tuple[str, tuple[str, ...]], ...]
    legend: tuple[tuple[str, str, str], ...]  # (character, colour, meaning)
    caption: str = ""


Block = Paragraph | KeyValues | Table | Figure | GridImage


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

    def figures(self) -> list[Figure | GridImage]:
        """Every drawn block (plots and grid maps), in report order."""
        return [b for s in self.sections for b in s.blocks
                if isinstance(b, (Figure, GridImage))]


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

    ``None`` is the JSON form of an unbounded ε (``docs/formats-and-cli.md`` §5), so it reads
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


_UNBOUNDED_CELL = re.compile(r"^(.*?)\b" + UNBOUNDED_TEXT + r" \((.+)\)(.*)$", re.S)


def footnote_unbounded(table: Table) -> Table:
    """``table`` with every "unbounded (long reason)" cell shortened to "unbounded [n]".

    Each distinct reason becomes one numbered footnote in the table's note, so a reason
    is printed once however many cells share it and a narrow ε column stays narrow.

    >>> t = footnote_unbounded(Table(("a", "ε"), (("x", "unbounded (raw)"),
    ...                                          ("y", "unbounded (raw)"), ("z", "1"))))
    >>> [r[1] for r in t.rows], t.note
    (['unbounded [1]', 'unbounded [1]', '1'], '[1] raw.')
    """
    notes: dict[str, int] = {}

    def short(cell: str) -> str:
        m = _UNBOUNDED_CELL.match(cell)
        if m is None:
            return cell
        reason = m.group(2).strip()
        n = notes.setdefault(reason, len(notes) + 1)
        return f"{m.group(1)}{UNBOUNDED_TEXT} [{n}]{m.group(3)}"

    rows = tuple(tuple(short(c) for c in r) for r in table.rows)
    if not notes:
        return table
    text = " ".join(f"[{n}] {r.rstrip('.')}." for r, n in notes.items())
    note = f"{table.note} {text}" if table.note else text
    return Table(table.columns, rows, table.title, note, table.widths)
