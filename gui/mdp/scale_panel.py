"""Beside the matrix of a model too large to draw: its summary, a search and a neighbourhood.

A model with a million states cannot be drawn, and a table of four million rows is only
useful with a way in. :class:`ScalePanel` shows

* the **summary**: states, choices (available state–action pairs), transitions, the memory of
  its sparse rows, whether it is valid (the status the matrix colours row by row);
* the **support histogram**: how many rows have 1, 2, 3, … possible next states (the public
  part of every privatised row, and what the (ε, δ) of a row depends on);
* a **search** by state name (whole name first, then a part of it): the matrix scrolls to
  the state and selects its rows;
* the **neighbourhood** of the state selected in the matrix (or found): the state, each
  of its actions, and their most probable next states with the probabilities — a drawing of
  the few states around one instead of all of them. Clicking a next state moves there.

Everything it computes is a pass over arrays (the support sizes, the rows of one state), so
it stays instant at a million states.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.common import format_bytes
from gui.shell.document import ProjectDocument
from gui.shell.plots import make_plot
from gui.shell.style import ERROR_COLOUR

__all__ = ["ScalePanel", "NeighbourhoodView", "support_histogram", "NEIGHBOURS"]

#: Next states drawn per action (the most probable ones; the rest are counted).
NEIGHBOURS = 4


def support_histogram(model) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """(support sizes, number of available rows with that many next states)."""
    mask = model.mask()
    if model.is_sparse:
        t = model.P.to_transitions()
        sizes = np.diff(t.indptr).reshape(t.n_states, t.n_actions)
    elif model.P.size:
        sizes = np.count_nonzero(model.P, axis=2)
    else:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    counts = np.bincount(sizes[mask].astype(np.int64))
    nz = np.flatnonzero(counts)
    return nz, counts[nz]


class NeighbourhoodView(QGraphicsView):
    """One state, its actions and their most probable next states."""

    state_clicked = Signal(str)  # id of a next state that was clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setMinimumHeight(220)
        self._targets: dict[object, str] = {}

    def show_state(self, model, s: int | None) -> None:  # noqa: ANN001
        """Draw state ``s`` of ``model`` (nothing when None)."""
        self._scene.clear()
        self._targets.clear()
        if model is None or s is None or not 0 <= s < model.n_states:
            self._scene.addText("Select a state in the matrix, or find one by name.")
            return
        font = QFont()
        font.setPointSizeF(11.0)
        acts = model.action_ids[s]
        # a tree from left to right: the state, its actions, their likeliest next states
        rows = [model.row_entries(s, j) for j in range(len(acts))]
        shown = [np.argsort(-np.nan_to_num(v), kind="stable")[:NEIGHBOURS] for _, v in rows]
        heights = [max(1, len(o)) for o in shown]
        gap, band = 26.0, 10.0
        total = sum(h * gap + band for h in heights)
        centre = QPointF(0, 0)
        self._state(centre, model.state_labels[s], 24.0, font, bold=True)
        y = -total / 2
        for j, (order, (cols, vals)) in enumerate(zip(shown, rows)):
            h = heights[j] * gap + band
            dot = QPointF(150, y + h / 2)
            y += h
            self._line(centre, dot, QColor("#888888"))
            self._scene.addEllipse(QRectF(dot.x() - 5, dot.y() - 5, 10, 10),
                                   QPen(QColor("#333333")), QBrush(QColor("#333333")))
            label = QGraphicsSimpleTextItem(f"{model.action_labels[s][j]}  r = "
                                            f"{model.R[s, j]:.3g}")
            label.setFont(font)
            label.setPos(dot + QPointF(-70, -26))
            self._scene.addItem(label)
            k = len(order)
            for i, e in enumerate(order):
                t = int(cols[e])
                pos = QPointF(340, dot.y() + (i - (k - 1) / 2) * gap)
                self._line(dot, pos, QColor("#4C72B0"))
                prob = QGraphicsSimpleTextItem(f"{vals[e]:.3g}")
                prob.setFont(font)
                prob.setBrush(QBrush(QColor("#4C72B0")))
                prob.setPos(QPointF(250, dot.y() + (pos.y() - dot.y()) * 0.62 - 16))
                self._scene.addItem(prob)
                item = self._state(pos, model.state_labels[t], 11.0, font, right=True)
                self._targets[item] = model.state_ids[t]
            if len(cols) > k:
                more = QGraphicsSimpleTextItem(f"+{len(cols) - k} more next states")
                more.setFont(font)
                more.setPos(QPointF(330, dot.y() + (k - 1) / 2 * gap + 10))
                self._scene.addItem(more)
        self.fitInView(self._scene.itemsBoundingRect().adjusted(-20, -20, 20, 20),
                       Qt.AspectRatioMode.KeepAspectRatio)

    def _line(self, a: QPointF, b: QPointF, colour: QColor) -> None:
        path = QPainterPath(a)
        path.lineTo(b)
        item = QGraphicsPathItem(path)
        item.setPen(QPen(colour, 1.2))
        self._scene.addItem(item)

    def _state(self, pos: QPointF, text: str, radius: float, font: QFont, *,
               bold: bool = False, right: bool = False) -> QGraphicsEllipseItem:
        item = self._scene.addEllipse(QRectF(pos.x() - radius, pos.y() - radius, 2 * radius,
                                             2 * radius),
                                      QPen(QColor("#222222"), 2.0 if bold else 1.0),
                                      QBrush(QColor("#FFFFFF")))
        label = QGraphicsSimpleTextItem(text if len(text) <= 24 else text[:23] + "…")
        label.setFont(font)
        rect = label.boundingRect()
        if right:  # beside the circle (a column of next states)
            label.setPos(pos.x() + radius + 4, pos.y() - rect.height() / 2)
        else:
            label.setPos(pos.x() - rect.width() / 2, pos.y() + radius + 2)
        self._scene.addItem(label)
        item.setToolTip(text)
        item.setCursor(Qt.CursorShape.PointingHandCursor)
        return item

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802
        item = self.itemAt(event.position().toPoint())
        if item in self._targets:
            self.state_clicked.emit(self._targets[item])
            return
        super().mousePressEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802
        super().resizeEvent(event)
        if self._scene.items():
            self.fitInView(self._scene.itemsBoundingRect().adjusted(-20, -20, 20, 20),
                           Qt.AspectRatioMode.KeepAspectRatio)


class ScalePanel(QWidget):
    """Summary, support histogram, search and neighbourhood of one large MDP."""

    find_requested = Signal(str)  # id of the state found

    def __init__(self, document: ProjectDocument, mdp_id: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._state: int | None = None
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.histogram = make_plot("Possible next states per row", "next states", "rows",
                                   parent=self)
        self.histogram.setMinimumHeight(110)
        self.histogram.setMaximumHeight(150)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find a state by name…")
        self.search.setClearButtonEnabled(True)
        self.find_button = QPushButton("Find", self)
        self.status = QLabel(self)
        self.neighbourhood = NeighbourhoodView(self)
        row = QHBoxLayout()
        row.addWidget(self.search, 1)
        row.addWidget(self.find_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.histogram)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.neighbourhood, 1)
        self.search.returnPressed.connect(self.find_state)
        self.find_button.clicked.connect(self.find_state)
        self.neighbourhood.state_clicked.connect(self._go_to)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        self.refresh()

    def _model(self):  # noqa: ANN202
        return self._document.model(self._mdp_id) if self._document.has_mdp(self._mdp_id) \
            else None

    def refresh(self) -> None:
        """Summary and histogram of the model as it is now."""
        model = self._model()
        if model is None:
            self.summary.setText("")
            return
        mask = model.mask()
        problems = model.problems()
        errors = [p for p in problems if p.severity == "error"]
        valid = ("<b>valid</b> ✓" if not errors else
                 f"<b style='color:{ERROR_COLOUR}'>invalid</b>: "
                 f"{html.escape(errors[0].message)}"
                 + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""))
        store = (f"sparse rows, {format_bytes(model.P.to_transitions().nbytes)}"
                 if model.is_sparse else
                 f"dense array, {format_bytes(8.0 * model.P.size)}")
        self.summary.setText(
            f"<b>{model.n_states:,}</b> states · <b>{int(mask.sum()):,}</b> choices · "
            f"<b>{model.nnz:,}</b> transitions<br>{store}; horizon "
            f"{model.horizon if model.horizon is not None else '∞'}, discount "
            f"{model.discount:g}<br>{valid}")
        sizes, counts = support_histogram(model)
        self.histogram.clear()
        if sizes.size:
            self.histogram.addItem(pg.BarGraphItem(x=sizes, height=counts, width=0.8,
                                                   brush=pg.mkBrush("#4C72B0")))
        self.show_state(self._state)

    def show_state(self, s: int | None) -> None:
        """Centre the neighbourhood on state index ``s``."""
        self._state = s
        self.neighbourhood.show_state(self._model(), s)

    def show_state_id(self, state_id: str) -> None:
        model = self._model()
        if model is not None and state_id in model.state_ids:
            self.show_state(model.state_ids.index(state_id))

    def find_state(self) -> str | None:
        """Find the state named in the search field; returns its id (None if absent)."""
        model = self._model()
        text = self.search.text().strip()
        if model is None or not text:
            return None
        labels = model.state_labels
        try:
            s = labels.index(text)
        except ValueError:
            low = text.lower()
            s = next((i for i, lab in enumerate(labels) if low in lab.lower()), -1)
        if s < 0:
            self.status.setText(f"no state named like {text!r}")
            return None
        sid = model.state_ids[s]
        self.status.setText(f"{labels[s]!r}: state {s:,} of {model.n_states:,}")
        self.show_state(s)
        self.find_requested.emit(sid)
        return sid

    def _go_to(self, state_id: str) -> None:
        self.show_state_id(state_id)
        self.find_requested.emit(state_id)

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self.refresh()
