"""Tick labels that never overlap: pyqtgraph's axis, decluttered by priority.

pyqtgraph decides whether to label a tick level by the *total* height of its labels against
the axis length. On a log axis that spans about one decade the minor level (2·10ⁿ … 9·10ⁿ)
passes that test while its labels bunch up below each power of ten, so "0.9" is printed over
"1" and "0.06" over "0.05" (the calculator's δ–γ plot at k = 0.1 and k = 1). This module
keeps pyqtgraph's choice of ticks and drops, after it, every label that would touch one
already kept, in order of priority: the labels of the coarser level first, and on a log
axis powers of ten, then 2·10ⁿ and 5·10ⁿ, then the rest.

:func:`declutter_tick_labels` installs this on one axis (:func:`gui.shell.plots.style_axes`
does it for every plot of the app); :func:`tick_label_rects` returns the label rectangles an
axis draws now, which the tests compare.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF

__all__ = ["declutter_tick_labels", "tick_label_rects", "label_priority", "GAP_PX"]

#: Pixels kept free between two tick labels.
GAP_PX = 2.0


def label_priority(text: str) -> int:
    """0 for a power of ten (``1``, ``0.01``, ``10⁻⁶``), 1 for 2·10ⁿ and 5·10ⁿ, 2 otherwise
    (log-axis labels as pyqtgraph writes them)."""
    digits = [c for c in text.split("·")[0] if c.isdigit() and c != "0"]
    if "·" not in text and text.startswith("10"):
        return 0  # 10ⁿ written as a power
    if not digits:
        return 2
    lead = digits[0]
    return 0 if lead == "1" else 1 if lead in "25" else 2


def _kept(specs: list[tuple[QRectF, Any, str]], log: bool) -> list[tuple[QRectF, Any, str]]:
    """The specs of the labels drawn: greedy in priority order, none touching another."""
    order = sorted(range(len(specs)),
                   key=lambda i: (label_priority(specs[i][2]) if log else 0, i))
    kept: list[int] = []
    for i in order:
        rect = specs[i][0].adjusted(-GAP_PX / 2, -GAP_PX / 2, GAP_PX / 2, GAP_PX / 2)
        if not any(rect.intersects(specs[j][0]) for j in kept):
            kept.append(i)
    return [specs[i] for i in sorted(kept)]


def declutter_tick_labels(axis: Any) -> None:
    """Make ``axis`` (a ``pg.AxisItem``) drop tick labels that would overlap another one.

    Idempotent; the ticks themselves stay (only their labels go).
    """
    if getattr(axis, "_declutter_installed", False):
        return
    plain = axis.generateDrawSpecs

    def generate(painter: Any) -> Any:
        specs = plain(painter)
        if specs is None:
            return specs
        axis_spec, tick_specs, text_specs = specs
        return axis_spec, tick_specs, _kept(list(text_specs), bool(axis.logMode))

    axis.generateDrawSpecs = generate
    axis._declutter_installed = True


def tick_label_rects(axis: Any) -> list[tuple[QRectF, str]]:
    """The rectangles and texts of the tick labels ``axis`` draws at its present size."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(max(1, int(axis.width())), max(1, int(axis.height())),
                   QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    if axis.style.get("tickFont"):
        painter.setFont(axis.style["tickFont"])  # as AxisItem.paint does
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    if specs is None:
        return []
    return [(rect, text) for rect, _flags, text in specs[2]]
