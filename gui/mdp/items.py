"""Graphics items of the MDP canvas: states, action nodes, transition edges, labels.

Items are *views*: each knows the id of what it shows (``state_id``, ``action_id``,
``(action_id, target_id)``) and nothing else; the canvas rebuilds them from the document.
A :class:`StateItem` is movable: while it is dragged it tells the canvas (which redraws the
attached action nodes and edges), and when the drag ends the canvas pushes one
:class:`gui.shell.commands.MoveStatesCommand`.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
)

from gui.shell.canvas import LodTextItem, plain_style_option
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT

__all__ = ["StateItem", "ActionItem", "EdgeItem", "SELECTION_COLOUR"]

SELECTION_COLOUR = QColor("#2F7FD8")


class StateItem(QGraphicsEllipseItem):
    """A state: a labelled circle; movable and selectable."""

    def __init__(self, state_id: str, radius: float, *, on_moved: Callable[["StateItem"], None]
                 | None = None) -> None:
        super().__init__(QRectF(-radius, -radius, 2 * radius, 2 * radius))
        self.state_id = state_id
        self.radius = radius
        self.problem = ""
        self._on_moved = on_moved
        self._hover = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def itemChange(self, change, value):  # noqa: N802 (Qt)
        if (change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged
                and self._on_moved is not None):
            self._on_moved(self)
        return super().itemChange(change, value)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 (Qt)
        self._hover = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 (Qt)
        self._hover = False
        self.update()
        super().hoverLeaveEvent(event)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        return super().boundingRect().adjusted(-5, -5, 5, 5)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        if self.isSelected() or self._hover:
            colour = QColor(SELECTION_COLOUR)
            colour.setAlpha(255 if self.isSelected() else 110)
            painter.setPen(QPen(colour, 4.0 if self.isSelected() else 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(self.rect().adjusted(-3.5, -3.5, 3.5, 3.5))
        if self.problem:
            painter.setPen(QPen(QColor(ERROR_COLOUR), 2.0, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(self.rect().adjusted(-1.5, -1.5, 1.5, 1.5))
        super().paint(painter, plain_style_option(option), widget)


class ActionItem(QGraphicsEllipseItem):
    """An action node: a small dot attached to its state; selectable, the start of a
    transition drag."""

    def __init__(self, action_id: str, state_id: str, radius: float) -> None:
        super().__init__(QRectF(-radius, -radius, 2 * radius, 2 * radius))
        self.action_id = action_id
        self.state_id = state_id
        self.radius = radius
        self.problem = ""
        self.chosen = False  # the private policy's action (results overlay)
        self._hover = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(4)
        self.setCursor(Qt.CursorShape.CrossCursor)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 (Qt)
        self._hover = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 (Qt)
        self._hover = False
        self.update()
        super().hoverLeaveEvent(event)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        return super().boundingRect().adjusted(-6, -6, 6, 6)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addEllipse(self.rect().adjusted(-4, -4, 4, 4))  # easier to hit
        return path

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        r = self.rect()
        if self.chosen:
            painter.setPen(QPen(QColor(PRIVATE_ACCENT), 3.0))
            painter.setBrush(QBrush(QColor(PRIVATE_ACCENT)))
            painter.drawEllipse(r.adjusted(-3, -3, 3, 3))
        if self.problem:
            painter.setPen(QPen(QColor(ERROR_COLOUR), 2.2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(r.adjusted(-3.5, -3.5, 3.5, 3.5))
        if self.isSelected() or self._hover:
            colour = QColor(SELECTION_COLOUR)
            colour.setAlpha(255 if self.isSelected() else 120)
            painter.setPen(QPen(colour, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(r.adjusted(-5.5, -5.5, 5.5, 5.5))
        super().paint(painter, plain_style_option(option), widget)


class EdgeItem(QGraphicsPathItem):
    """A transition from an action node to a next state; selectable (Delete removes it)."""

    def __init__(self, action_id: str, target_id: str, path: QPainterPath, pen: QPen) -> None:
        super().__init__(path)
        self.action_id = action_id
        self.target_id = target_id
        self.setPen(pen)
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0)
        self._shape: QPainterPath | None = None

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(max(10.0, self.pen().widthF() + 6.0))
            self._shape = stroker.createStroke(self.path())
        return self._shape

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        return super().boundingRect().adjusted(-6, -6, 6, 6)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        if self.isSelected():
            halo = QPen(SELECTION_COLOUR, self.pen().widthF() + 5.0)
            halo.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(halo)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self.path())
        super().paint(painter, plain_style_option(option), widget)


def preview(exec_: bool = True):
    """A state, an action node and an edge, selected and with a problem, on a scene."""
    from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

    from gui.shell.preview import run_preview

    def build():
        scene = QGraphicsScene()
        a, b = StateItem("s", 30.0), StateItem("t", 30.0)
        a.setPos(0, 0)
        b.setPos(220, 0)
        b.problem = "state 't' has no actions"
        dot = ActionItem("go", "s", 5.5)
        dot.setPos(80, 0)
        dot.setBrush(QBrush(QColor("#2B2B2B")))
        path = QPainterPath(QPointF(80, 0))
        path.lineTo(QPointF(188, 0))
        edge = EdgeItem("go", "t", path, QPen(QColor("#4A4A4A"), 2.0))
        for item in (a, b, dot, edge):
            scene.addItem(item)
        for item, text in ((a, "s"), (b, "t")):
            LodTextItem(text, item, background=None).center_on(QPointF(0, 0))
        dot.setSelected(True)
        view = QGraphicsView(scene)
        view.setRenderHints(QPainter.RenderHint.Antialiasing)
        return view

    return run_preview(build, exec_=exec_, title="MDP canvas items", size=(420, 200))


if __name__ == "__main__":
    preview()
