"""A grid-world canvas: draws a map (walls, free cells, start S, goal G, optionally the cells
that differ from a reference) and reports clicks; the workspace turns clicks into undoable
edits."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from core.gridworld import GridMap

__all__ = ["GridView"]

_WALL, _FREE, _START, _GOAL, _WRONG = "#3B3B3B", "#F4F4F0", "#2CA02C", "#D62728", "#FF9F1C"


class GridView(QWidget):
    """Paints a :class:`GridMap`; ``cell_clicked(row, col, button, modifiers)``."""

    cell_clicked = Signal(int, int, object, object)

    def __init__(self, parent: QWidget | None = None, *, editable: bool = False,
                 title: str = "") -> None:
        super().__init__(parent)
        self._map: GridMap | None = None
        self._reference: np.ndarray | None = None
        self._title = title
        self.editable = editable
        self.setMinimumSize(130, 130)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        if editable:
            self.setToolTip("Click: wall ↔ free.  Shift+click: start.  Ctrl+click: goal.\n"
                            "Edits are undoable (Ctrl+Z).")

    def sizeHint(self) -> QSize:
        return QSize(320, 320)

    @property
    def title(self) -> str:
        return self._title

    def _title_metrics(self) -> QFontMetrics:
        f = QFont(self.font())
        f.setBold(True)
        return QFontMetrics(f)

    def _title_rect(self) -> QRect:
        """Where the bold title goes: word-wrapped to the width (two lines when narrow)."""
        if not self._title:
            return QRect()
        flags = int(Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap)
        return self._title_metrics().boundingRect(QRect(0, 0, self.width(), 1000), flags,
                                                  self._title)

    def title_cut(self) -> bool:
        """Whether the title is wider than the map (a word longer than the width)."""
        return self._title_rect().width() > self.width()

    def set_map(self, grid: GridMap | None, reference: np.ndarray | None = None,
                title: str | None = None) -> None:
        """Show ``grid``; cells differing from ``reference`` (the truth) get an orange frame."""
        self._map, self._reference = grid, reference
        if title is not None:
            self._title = title
        self.update()

    @property
    def grid(self) -> GridMap | None:
        return self._map

    def _geometry(self) -> tuple[float, float, float]:
        assert self._map is not None
        H, W = self._map.shape
        top = float(self._title_rect().height() + 2) if self._title else 0.0
        size = min(self.width() / W, (self.height() - top) / H)
        x0 = (self.width() - size * W) / 2
        return size, x0, top

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if self._title:
            p.setPen(QColor("#222"))
            f = QFont(self.font())
            f.setBold(True)
            p.setFont(f)
            p.drawText(QRectF(0, 0, self.width(), self._title_rect().height()),
                       Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap, self._title)
        if self._map is None:
            p.end()
            return
        size, x0, top = self._geometry()
        H, W = self._map.shape
        for r in range(H):
            for c in range(W):
                rect = QRectF(x0 + c * size, top + r * size, size, size)
                colour = _FREE if self._map.cells[r, c] else _WALL
                if (r, c) == self._map.start:
                    colour = _START
                elif (r, c) == self._map.goal:
                    colour = _GOAL
                p.fillRect(rect, QColor(colour))
                p.setPen(QPen(QColor("#BBBBBB"), 0.5))
                p.drawRect(rect)
                if self._reference is not None and self._reference[r, c] != self._map.cells[r, c]:
                    p.setPen(QPen(QColor(_WRONG), max(2.0, size / 8)))
                    p.drawRect(rect.adjusted(2, 2, -2, -2))
        p.setPen(QColor("white"))
        for cell, text in ((self._map.start, "S"), (self._map.goal, "G")):
            rect = QRectF(x0 + cell[1] * size, top + cell[0] * size, size, size)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        if not self.editable or self._map is None:
            return
        size, x0, top = self._geometry()
        pos = event.position()
        c = int((pos.x() - x0) // size)
        r = int((pos.y() - top) // size)
        H, W = self._map.shape
        if 0 <= r < H and 0 <= c < W:
            self.cell_clicked.emit(r, c, event.button(), event.modifiers())
