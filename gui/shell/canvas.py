"""Pieces shared by the drawing canvases (the MDP editor and the logistics map).

* :class:`LodTextItem` — a label that is not painted when it would be unreadably small;
* :func:`plain_style_option` — a style option without Qt's selection/focus state (the
  canvases draw their own selection halo);
* :func:`wheel_zoom` — zoom a view about the mouse by the wheel, within scale limits;
* :func:`fit_rect` — fit a drawing into a view without blowing small drawings up.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QWheelEvent
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QStyle,
    QStyleOptionGraphicsItem,
)

__all__ = ["LABEL_BG", "LodTextItem", "plain_style_option", "wheel_zoom", "fit_rect",
           "WHEEL_BASE"]

LABEL_BG = QColor(255, 255, 255, 215)
WHEEL_BASE = 1.0015  # zoom factor per wheel angle unit (one notch of 120 ≈ 1.2×)


class LodTextItem(QGraphicsSimpleTextItem):
    """Text that is not painted when it would be smaller than ``min_px`` on screen."""

    def __init__(self, text: str, parent: QGraphicsItem | None = None, *, point_size: float = 9.0,
                 bold: bool = False, colour: QColor | str = "#1A1A1A", min_px: float = 6.0,
                 background: QColor | None = LABEL_BG) -> None:
        super().__init__(text, parent)
        font = QFont()
        font.setPointSizeF(point_size)
        font.setBold(bold)
        self.setFont(font)
        self.setBrush(QBrush(QColor(colour)))
        self._min_px = min_px
        self._background = background
        self._height = QFontMetricsF(font).height()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self._height * lod < self._min_px:
            return
        if self._background is not None:
            painter.fillRect(self.boundingRect().adjusted(-1.5, 0, 1.5, 0), self._background)
        super().paint(painter, option, widget)

    def center_on(self, p: QPointF) -> None:
        r = self.boundingRect()
        self.setPos(p.x() - r.width() / 2, p.y() - r.height() / 2)


def plain_style_option(option: QStyleOptionGraphicsItem) -> QStyleOptionGraphicsItem:
    """A copy of ``option`` without the selected/focus state (we draw our own halo)."""
    plain = QStyleOptionGraphicsItem(option)
    plain.state &= ~(QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_HasFocus)
    return plain


def wheel_zoom(view: QGraphicsView, event: QWheelEvent, *, lo: float, hi: float) -> bool:
    """Zoom ``view`` by the wheel's angle, keeping its scale within ``[lo, hi]``.

    Parameters
    ----------
    view : QGraphicsView
        The view (its transformation anchor decides the zoom centre).
    event : QWheelEvent
        The wheel event; it is accepted when the view zoomed.
    lo, hi : float
        The smallest and largest scale (``transform().m11()``) allowed.

    Returns
    -------
    bool
        True if the view zoomed (the caller then stops fitting automatically).
    """
    delta = event.angleDelta().y()
    if not delta:
        return False
    s = view.transform().m11()
    factor = min(max(WHEEL_BASE ** delta, lo / s), hi / s)
    view.scale(factor, factor)
    event.accept()
    return True


def fit_rect(view: QGraphicsView, rect: QRectF, *, margin: float, max_scale: float) -> None:
    """Show ``rect`` (plus ``margin``) whole in ``view``, centred, at most ``max_scale``×.

    An empty ``rect`` resets the view's transform.
    """
    if rect.isEmpty():
        view.resetTransform()
        return
    view.fitInView(rect.adjusted(-margin, -margin, margin, margin),
                   Qt.AspectRatioMode.KeepAspectRatio)
    s = view.transform().m11()
    if s > max_scale:
        view.scale(max_scale / s, max_scale / s)
    view.centerOn(rect.center())

