"""Pieces shared by the drawing canvases (the MDP editor and the logistics map).

* :class:`LodTextItem` — a label that is not painted when it would be unreadably small;
* :func:`declutter_labels` — labels keep a readable size on screen (enlarged up to
  :data:`MAX_BOOST`× when the view is zoomed out) and avoid each other (a label that would
  cover one of higher priority is hidden until the view zooms in); :func:`wheel_zoom` and
  :func:`fit_rect` run it after every zoom, canvases after every rebuild;
* :func:`plain_style_option` — a style option without Qt's selection/focus state (the
  canvases draw their own selection halo);
* :func:`wheel_zoom` — zoom a view about the mouse by the wheel, within scale limits;
* :func:`fit_rect` — fit a drawing into a view without blowing small drawings up.
"""

from __future__ import annotations

import math
import weakref

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QWheelEvent
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QStyle,
    QStyleOptionGraphicsItem,
)

__all__ = ["LABEL_BG", "LodTextItem", "plain_style_option", "wheel_zoom", "fit_rect",
           "WHEEL_BASE", "declutter_labels", "schedule_declutter", "READABLE_PX", "MAX_BOOST"]

#: Smallest on-screen height of a label's text (pixels) while it can be enlarged.
READABLE_PX = 10.0
#: The most a label is enlarged beyond its drawing size to stay readable.
MAX_BOOST = 2.5

LABEL_BG = QColor(255, 255, 255, 215)
WHEEL_BASE = 1.0015  # zoom factor per wheel angle unit (one notch of 120 ≈ 1.2×)


class LodTextItem(QGraphicsSimpleTextItem):
    """Text that is not painted when it would be smaller than ``min_px`` on screen."""

    def __init__(self, text: str, parent: QGraphicsItem | None = None, *, point_size: float = 9.0,
                 bold: bool = False, colour: QColor | str = "#1A1A1A", min_px: float = 6.0,
                 background: QColor | None = LABEL_BG, priority: int = 1) -> None:
        super().__init__(text, parent)
        self.priority = priority  # declutter_labels keeps higher ones when labels collide
        #: other places (position, rotation) declutter_labels may move the label to before it
        #: hides it; the first is where it was put (empty: it only stays or hides)
        self.placements: list[tuple[QPointF, float]] = []
        self._boost = 1.0
        self._crowded = False  # hidden by declutter_labels (never by setVisible: others own it)
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

    @property
    def boost(self) -> float:
        """How much the label is enlarged beyond its drawing size (1 = not at all)."""
        return self._boost

    def set_boost(self, boost: float) -> None:
        """Draw the text ``boost`` times larger, about its centre (see declutter_labels)."""
        boost = max(1.0, float(boost))
        if abs(boost - self._boost) > 1e-3:
            self.prepareGeometryChange()
            self._boost = boost

    def _plain_rect(self) -> QRectF:
        return super().boundingRect()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        r = super().boundingRect()
        if self._boost == 1.0:
            return r
        c = r.center()
        w, h = r.width() * self._boost, r.height() * self._boost
        return QRectF(c.x() - w / 2, c.y() - h / 2, w, h)

    @property
    def crowded(self) -> bool:
        """True while :func:`declutter_labels` keeps this label out of another's way."""
        return self._crowded

    def set_crowded(self, crowded: bool) -> None:
        if crowded != self._crowded:
            self._crowded = crowded
            self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        if self._crowded:
            return
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self._height * lod * self._boost < self._min_px:
            return
        painter.save()
        if self._boost != 1.0:
            c = self._plain_rect().center()
            painter.translate(c)
            painter.scale(self._boost, self._boost)
            painter.translate(-c)
        if self._background is not None:
            painter.fillRect(self._plain_rect().adjusted(-1.5, 0, 1.5, 0), self._background)
        super().paint(painter, option, widget)
        painter.restore()

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
    schedule_declutter(view)
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
    schedule_declutter(view)


def declutter_labels(view: QGraphicsView) -> tuple[int, int]:
    """Give every label of ``view`` a readable size and hide those that would collide.

    Each :class:`LodTextItem` is enlarged so its text is at least :data:`READABLE_PX`
    high on screen (at most :data:`MAX_BOOST` times its drawing size); then, from the
    highest priority down (then larger text first), a label that would overlap one already
    kept moves to the first of its other :attr:`LodTextItem.placements` that is free, or
    else is hidden. Zooming in gives the hidden ones room again.

    Parameters
    ----------
    view : QGraphicsView
        The canvas.

    Returns
    -------
    (int, int)
        Labels shown and labels hidden.
    """
    scene = view.scene()
    if scene is None:
        return 0, 0
    scale = abs(view.transform().m11()) or 1.0
    labels = [it for it in scene.items() if isinstance(it, LodTextItem) and it.isVisible()]
    for lab in labels:
        px = lab._height * scale
        lab.set_boost(min(MAX_BOOST, max(1.0, READABLE_PX / px)) if px > 0 else 1.0)
    labels.sort(key=lambda it: (-it.priority, -it._height, it.zValue()))
    kept = _RectGrid()
    shown = hidden = 0
    for lab in labels:
        if not lab.text():
            continue
        rect = None
        for pos, rot in lab.placements or [(lab.pos(), lab.rotation())]:
            lab.setPos(pos)
            lab.setRotation(rot)
            r = lab.mapRectToScene(lab.boundingRect())
            if not kept.hits(r):
                rect = r
                break
        if rect is None:  # nowhere free: back where it was put, hidden until zoomed in
            if lab.placements:
                lab.setPos(lab.placements[0][0])
                lab.setRotation(lab.placements[0][1])
            lab.set_crowded(True)
            hidden += 1
            continue
        lab.set_crowded(False)
        kept.add(rect)
        shown += 1
    return shown, hidden


class _RectGrid:
    """Rectangles filed by the cells of a uniform grid they cover: whether a new one
    intersects any is asked of those sharing a cell with it (two rectangles that intersect
    share a cell), not of all; the answer is the same as a scan of all of them."""

    def __init__(self) -> None:
        self._cell = 0.0  # side of a cell, set from the first rectangle (a typical label)
        self._cells: dict[tuple[int, int], list[QRectF]] = {}
        self._large: list[QRectF] = []  # covering too many cells: asked every time

    def _keys(self, r: QRectF) -> list[tuple[int, int]] | None:
        if self._cell <= 0.0:
            self._cell = max(r.width(), r.height(), 1e-9)
        c = self._cell
        x0, x1 = math.floor(r.left() / c), math.floor(r.right() / c)
        y0, y1 = math.floor(r.top() / c), math.floor(r.bottom() / c)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 64:
            return None
        return [(i, j) for i in range(x0, x1 + 1) for j in range(y0, y1 + 1)]

    def hits(self, r: QRectF) -> bool:
        if any(r.intersects(k) for k in self._large):
            return True
        keys = self._keys(r)
        if keys is None:  # a large one: against all
            return any(r.intersects(k) for cell in self._cells.values() for k in cell)
        return any(r.intersects(k) for key in keys for k in self._cells.get(key, ()))

    def add(self, r: QRectF) -> None:
        keys = self._keys(r)
        if keys is None:
            self._large.append(r)
        for key in keys or ():
            self._cells.setdefault(key, []).append(r)


def schedule_declutter(view: QGraphicsView) -> None:
    """Run :func:`declutter_labels` on ``view`` once the current events are done (many
    calls in one burst — a zoom, a rebuild — make one pass)."""
    timer = getattr(view, "_declutter_timer", None)
    if timer is None:
        timer = QTimer(view)
        timer.setSingleShot(True)
        timer.setInterval(0)
        ref = weakref.ref(view)

        def run() -> None:
            v = ref()
            if v is not None:
                declutter_labels(v)

        timer.timeout.connect(run)
        view._declutter_timer = timer  # type: ignore[attr-defined]
    timer.start()

