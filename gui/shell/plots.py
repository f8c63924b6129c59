"""The one pyqtgraph plot factory of the app: every workspace's plots look alike.

* :func:`make_plot` — a plot widget with title, axis labels, grid, log axes and the app's
  axis style (:func:`style_axes`); :func:`style_plot` applies the same to an existing one
  (e.g. a ``pg.PlotWidget`` subclass);
* :func:`add_legend` — a legend in a named corner, on a translucent white box, above the
  curves;
* :func:`pen` — a cosmetic pen of one of the line styles the plots use;
* :func:`add_band` and :func:`add_error_bars` — a confidence band or error bars clipped to
  what the quantity can physically be (:mod:`core.common.quantities`: the range declared
  with the series), so no plot shows a success rate above 1 or a length below 0.

Colours come from :mod:`gui.shell.style` (the Okabe–Ito palette and the private accent).
Right-click any plot for pyqtgraph's Export… (PNG, CSV).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QWidget

from core.common import QuantityRange, clip_band
from gui.shell.axes import declutter_tick_labels

__all__ = ["make_plot", "style_plot", "style_axes", "add_legend", "place_legend", "pen",
           "CORNERS", "DATA_PADDING", "readability_problems", "add_band", "add_error_bars"]

#: Room around the data (a fraction of the range), so markers at the edge are not clipped.
DATA_PADDING = 0.06

#: Legend offsets (pixels from the plot's corner) by corner name.
CORNERS = {"top-right": (-6, 4), "top-left": (6, 4), "bottom-left": (6, -6),
           "bottom-right": (-6, -6)}


def style_axes(item: Any, point_size: float = 8.5) -> None:
    """The app's one look for a plot's left and bottom axes (tick font, pens, no SI prefix)."""
    font = QFont()
    font.setPointSizeF(point_size)
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        axis.setTickFont(font)
        axis.setTextPen(pg.mkPen("#222222"))
        axis.setPen(pg.mkPen("#555555"))
        axis.enableAutoSIPrefix(False)
        declutter_tick_labels(axis)  # no tick label over another (log axes: by priority)


def style_plot(plot: pg.PlotWidget, title: str, bottom: str, left: str, *,
               log_x: bool = False, log_y: bool = False, grid_x: bool = True,
               title_size: str = "9.5pt", tick_size: float = 8.5,
               min_size: tuple[int, int] = (260, 190), right_margin: int | None = None) -> None:
    """Title, labels, grid, log axes, axis style and minimum size of ``plot``.

    Parameters
    ----------
    plot : pg.PlotWidget
        The plot to style.
    title, bottom, left : str
        The title and the axis labels.
    log_x, log_y : bool
        Logarithmic axes.
    grid_x : bool
        Draw vertical grid lines too (horizontal ones always).
    title_size : str
        Font size of the title.
    tick_size : float
        Point size of the tick labels.
    min_size : (int, int)
        Minimum width and height in pixels.
    right_margin : int, optional
        Room on the right for the last x tick label.
    """
    item = plot.getPlotItem()
    item.setTitle(title, size=title_size)
    item.setLabel("bottom", bottom)
    item.setLabel("left", left)
    item.showGrid(x=grid_x, y=True, alpha=0.25)
    item.setLogMode(x=log_x, y=log_y)
    if right_margin is not None:
        item.setContentsMargins(2, 2, right_margin, 2)
    item.getViewBox().setDefaultPadding(DATA_PADDING)
    style_axes(item, tick_size)
    # room for what the plot says: the left axis must be at least as tall as its label
    # (rotated), plus the title and the bottom axis (a clipped label was unreadable)
    from PySide6.QtGui import QFontMetrics

    label_px = QFontMetrics(QFont()).horizontalAdvance(left) + 12
    plot.setMinimumSize(min_size[0], max(min_size[1], label_px + 80))


def make_plot(title: str, bottom: str, left: str, *, parent: QWidget | None = None,
              **style: Any) -> pg.PlotWidget:
    """A new plot widget styled by :func:`style_plot` (keyword arguments as there)."""
    w = pg.PlotWidget(parent)
    style_plot(w, title, bottom, left, **style)
    return w


def add_legend(plot: pg.PlotWidget, corner: str = "top-right", *, columns: int = 1,
               text_size: str = "8pt", spacing: int = -7, alpha: int = 225,
               avoid_data: bool = True) -> pg.LegendItem:
    """A legend in ``corner`` (a key of :data:`CORNERS`), drawn above every curve.

    With ``avoid_data`` the legend moves, whenever the plot's range or size changes (and
    when its owner calls :func:`place_legend` after changing the data), to the corner
    where it covers no data (``corner`` when several are free), or — when every corner
    covers data — outside the axes on the right (:func:`place_legend`).
    """
    legend = plot.getPlotItem().addLegend(offset=CORNERS[corner], labelTextSize=text_size,
                                          verSpacing=spacing, colCount=columns,
                                          brush=pg.mkBrush(255, 255, 255, alpha),
                                          pen=pg.mkPen("#BBBBBB"))
    legend.setZValue(100)
    if avoid_data:
        vb = plot.getPlotItem().getViewBox()
        vb.sigRangeChanged.connect(lambda *_: place_legend(plot, legend, prefer=corner))
        vb.sigResized.connect(lambda *_: place_legend(plot, legend, prefer=corner))
    return legend


_ANCHORS = {"top-right": (1, 0), "top-left": (0, 0), "bottom-left": (0, 1),
            "bottom-right": (1, 1)}


def _covered(plot: pg.PlotWidget, legend: pg.LegendItem, corner: str) -> int:
    """Data points the legend would cover in ``corner``."""
    from PySide6.QtCore import QRectF

    vb = plot.getPlotItem().getViewBox()
    area = vb.sceneBoundingRect()
    size = legend.sceneBoundingRect()
    ax, ay = _ANCHORS[corner]
    dx, dy = CORNERS[corner]
    x = area.left() + ax * (area.width() - size.width()) + dx
    y = area.top() + ay * (area.height() - size.height()) + dy
    return _points_under(plot, QRectF(x, y, size.width(), size.height()))


def _points_under(plot: pg.PlotWidget, scene_rect: Any) -> int:
    """Data under ``scene_rect``: the points of every shown curve, points along the lines
    drawn between them (not for a marker-only series), and the bars of bar charts."""
    import numpy as np

    vb = plot.getPlotItem().getViewBox()
    scene_rect = scene_rect.intersected(vb.sceneBoundingRect())
    if scene_rect.isEmpty():
        return 0
    rect = vb.mapSceneToView(scene_rect).boundingRect()
    n = 0
    for item in plot.getPlotItem().listDataItems():
        if not item.isVisible():
            continue
        xs, ys = item.getData()
        if xs is None or ys is None or len(xs) == 0:
            continue
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        if _draws_lines(item):
            xs, ys = _densified(xs, ys)
        n += int(np.count_nonzero((xs >= rect.left()) & (xs <= rect.right())
                                  & (ys >= rect.top()) & (ys <= rect.bottom())))
    for item in plot.getPlotItem().items:
        if isinstance(item, pg.BarGraphItem) and item.isVisible():
            n += sum(1 for bar in _bar_rects(item) if bar.intersects(rect))
    return n


def _draws_lines(item: Any) -> bool:
    """Whether a data item joins its points with a line (a marker-only series does not)."""
    p = item.opts.get("pen") if hasattr(item, "opts") else None
    if p is None:
        return False
    return pg.mkPen(p).style() != Qt.PenStyle.NoPen


def _bar_rects(item: pg.BarGraphItem) -> list[Any]:
    """The rectangles (view coordinates) of the non-empty bars of ``item``."""
    import numpy as np
    from PySide6.QtCore import QRectF

    o = item.opts
    height = o.get("height")
    x = o.get("x") if o.get("x") is not None else o.get("x0")
    if height is None or x is None:
        return []
    height, x = np.atleast_1d(np.asarray(height, float)), np.atleast_1d(np.asarray(x, float))
    width = np.broadcast_to(np.asarray(o.get("width") or 0.0, float), x.shape)
    y0 = np.broadcast_to(np.asarray(o.get("y0") if o.get("y0") is not None else 0.0, float),
                         height.shape)
    left = x - width / 2 if o.get("x") is not None else x
    return [QRectF(float(l_), float(min(b, b + h)), float(w), float(abs(h)))
            for l_, b, h, w in zip(left, y0, height, width) if h != 0 and w > 0]


def _densified(xs: Any, ys: Any, per_segment: int = 12) -> tuple[Any, Any]:
    """The points of a curve and points along its segments (a line under a legend counts,
    not only its markers)."""
    import numpy as np

    ok = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[ok], ys[ok]
    if len(xs) < 2 or len(xs) > 5000:
        return xs, ys
    t = np.linspace(0.0, 1.0, per_segment, endpoint=False)
    dx = (xs[1:] - xs[:-1])[:, None] * t
    dy = (ys[1:] - ys[:-1])[:, None] * t
    return (np.concatenate([(xs[:-1, None] + dx).ravel(), xs[-1:]]),
            np.concatenate([(ys[:-1, None] + dy).ravel(), ys[-1:]]))


def readability_problems(plot: pg.PlotWidget) -> list[str]:
    """What makes ``plot`` hard to read as it is drawn now (empty: nothing).

    Checks the title and the axis labels fit their room (not clipped) and that no legend
    covers data (points and the lines between them).

    Parameters
    ----------
    plot : pg.PlotWidget
        A shown plot.

    Returns
    -------
    list of str
        One line per problem, naming the plot by its title.
    """
    item = plot.getPlotItem()
    title = item.titleLabel
    name = title.text or plot.objectName() or "plot"
    out = []
    if title.isVisible() and title.text:
        need = title.item.boundingRect().width()
        if need > item.boundingRect().width() + 1:
            room = item.boundingRect().width()
            out.append(f"{name}: title clipped ({need:.0f} px in {room:.0f})")
    for side in ("bottom", "left"):
        axis = item.getAxis(side)
        if not axis.isVisible() or not axis.labelText:
            continue
        need = axis.label.boundingRect().width()
        room = axis.boundingRect().width() if side == "bottom" else axis.boundingRect().height()
        if need > room + 1:
            out.append(f"{name}: {side} axis label clipped ({need:.0f} px in {room:.0f})")
    legend = item.legend
    if legend is not None and legend.isVisible() and legend.items:
        if _points_under(plot, legend.sceneBoundingRect()):
            out.append(f"{name}: legend covers data")
        shown = item.mapRectToScene(item.boundingRect())
        if not shown.adjusted(-1, -1, 1, 1).contains(legend.sceneBoundingRect()):
            out.append(f"{name}: legend clipped (it runs past the plot)")
    return out


def _move_outside(plot: pg.PlotWidget, legend: pg.LegendItem, side: str = "right") -> None:
    """Put ``legend`` beside the axes (``side`` "right") or under them ("below"): the plot
    item keeps a margin as wide (tall) as the legend and the legend sits in it (every corner
    inside covered data)."""
    item = plot.getPlotItem()
    if legend.parentItem() is not item:
        legend.setParentItem(item)
    left, top, right, bottom = item.layout.getContentsMargins()
    if side == "below":
        height = legend.boundingRect().height() + 4
        item.layout.setContentsMargins(left, top, right, height)
        # the axes keep the height the factory gave them (their labels need it)
        base = getattr(plot, "_min_height_without_legend", None)
        if base is None:
            base = plot._min_height_without_legend = plot.minimumHeight()
        plot.setMinimumHeight(int(base + height))
        legend.anchor(itemPos=(0.5, 1), parentPos=(0.5, 1), offset=(0, -2))
    else:
        item.layout.setContentsMargins(left, top, legend.boundingRect().width() + 8, bottom)
        legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-2, 28))
    legend._outside = side


def place_legend(plot: pg.PlotWidget, legend: pg.LegendItem, *, prefer: str = "top-right"
                 ) -> str:
    """Move ``legend`` to the corner where it covers the fewest data points.

    Parameters
    ----------
    plot : pg.PlotWidget
        The plot.
    legend : pg.LegendItem
        Its legend.
    prefer : str
        The corner kept on a tie.

    Returns
    -------
    str
        The corner chosen.
    """
    if not legend.isVisible() or legend.sceneBoundingRect().isEmpty():
        return prefer
    side = str(getattr(legend, "_outside", "") or "")
    if side:
        _move_outside(plot, legend, side)  # its size may have changed with its entries
        return "outside"
    order = [prefer] + [c for c in CORNERS if c != prefer]
    counts = {c: _covered(plot, legend, c) for c in order}
    best = min(order, key=lambda c: counts[c])  # the first (preferred) wins a tie
    area = plot.getPlotItem().getViewBox().sceneBoundingRect()
    size = legend.boundingRect()
    if counts[best] > 0 and size.width() < 0.4 * area.width():
        _move_outside(plot, legend)  # no corner is free: outside the axes, on the right
        return "outside"
    if counts[best] > 0:
        _move_outside(plot, legend, "below")  # too wide for the right: under the axes
        return "outside"
    anchor = _ANCHORS[best]
    legend.anchor(itemPos=anchor, parentPos=anchor, offset=CORNERS[best])
    return best


def pen(colour: str, *, dashed: bool = False, dotted: bool = False, dashdot: bool = False,
        width: float = 2.0) -> Any:
    """A pen of ``colour``: solid, or dashed, dotted or dash-dotted."""
    style = (Qt.PenStyle.DashLine if dashed else Qt.PenStyle.DotLine if dotted
             else Qt.PenStyle.DashDotLine if dashdot else Qt.PenStyle.SolidLine)
    return pg.mkPen(colour, width=width, style=style)


def add_band(plot: Any, x: Any, low: Any, high: Any, colour: str, limits: QuantityRange, *,
             fill_alpha: int = 55, edge_alpha: int = 90) -> pg.FillBetweenItem:
    """Shade the band between ``low`` and ``high`` over ``x``, clipped to ``limits``.

    Parameters
    ----------
    plot : pg.PlotWidget or pg.PlotItem
        Where to draw.
    x, low, high : array_like
        The points and the interval's ends at each (a 95 % CI, a percentile band).
    colour : str
        The series' colour.
    limits : QuantityRange
        What the quantity can physically be, declared with the series
        (``core.logistics.records.BENCH_RANGES``, …): the band is clipped to it by
        :func:`core.common.quantities.clip_band`.
    fill_alpha, edge_alpha : int
        Opacity (0–255) of the shading and of the band's two edge lines (0: no edges).

    Returns
    -------
    pg.FillBetweenItem
        The band; ``band.curves`` are its lower and upper edges (their data are the
        clipped ends).
    """
    import numpy as np
    from PySide6.QtGui import QColor

    lo, hi = clip_band(low, high, limits)
    xs = np.asarray(x, dtype=float)
    c = QColor(colour)
    edge = pg.mkPen(QColor(c.red(), c.green(), c.blue(), edge_alpha), width=0.8)
    lower = pg.PlotDataItem(xs, lo, pen=edge)
    upper = pg.PlotDataItem(xs, hi, pen=edge)
    plot.addItem(lower)
    plot.addItem(upper)
    band = pg.FillBetweenItem(lower, upper,
                              brush=pg.mkBrush(c.red(), c.green(), c.blue(), fill_alpha))
    plot.addItem(band)
    return band


def add_error_bars(plot: Any, x: Any, y: Any, low: Any, high: Any, colour: str,
                   limits: QuantityRange, *, beam: float = 0.0, width: float = 1.2
                   ) -> pg.ErrorBarItem:
    """Error bars from ``low`` to ``high`` at ``(x, y)``, clipped to ``limits`` (as
    :func:`add_band`; a band of one point, or points too far apart to shade between)."""
    import numpy as np

    lo, hi = clip_band(low, high, limits)
    ys = np.asarray(y, dtype=float)
    bars = pg.ErrorBarItem(x=np.asarray(x, dtype=float), y=ys,
                           top=np.maximum(hi - ys, 0.0), bottom=np.maximum(ys - lo, 0.0),
                           beam=beam, pen=pg.mkPen(colour, width=width))
    plot.addItem(bars)
    return bars
