"""The one pyqtgraph plot factory of the app: every workspace's plots look alike.

* :func:`make_plot` — a plot widget with title, axis labels, grid, log axes and the app's
  axis style (:func:`style_axes`); :func:`style_plot` applies the same to an existing one
  (e.g. a ``pg.PlotWidget`` subclass);
* :func:`add_legend` — a legend in a named corner, on a translucent white box, above the
  curves;
* :func:`pen` — a cosmetic pen of one of the line styles the plots use.

Colours come from :mod:`gui.shell.style` (the Okabe–Ito palette and the private accent).
Right-click any plot for pyqtgraph's Export… (PNG, CSV).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QWidget

__all__ = ["make_plot", "style_plot", "style_axes", "add_legend", "place_legend", "pen",
           "CORNERS", "DATA_PADDING"]

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
    plot.setMinimumSize(*min_size)


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

    With ``avoid_data`` the legend moves, whenever the plot's range changes, to the corner
    where it covers the fewest data points (``corner`` when no corner is better).
    """
    legend = plot.getPlotItem().addLegend(offset=CORNERS[corner], labelTextSize=text_size,
                                          verSpacing=spacing, colCount=columns,
                                          brush=pg.mkBrush(255, 255, 255, alpha),
                                          pen=pg.mkPen("#BBBBBB"))
    legend.setZValue(100)
    if avoid_data:
        vb = plot.getPlotItem().getViewBox()
        vb.sigRangeChanged.connect(lambda *_: place_legend(plot, legend, prefer=corner))
    return legend


_ANCHORS = {"top-right": (1, 0), "top-left": (0, 0), "bottom-left": (0, 1),
            "bottom-right": (1, 1)}


def _covered(plot: pg.PlotWidget, legend: pg.LegendItem, corner: str) -> int:
    """Data points the legend would cover in ``corner``."""
    import numpy as np
    from PySide6.QtCore import QRectF

    vb = plot.getPlotItem().getViewBox()
    area = vb.sceneBoundingRect()
    size = legend.sceneBoundingRect()
    ax, ay = _ANCHORS[corner]
    dx, dy = CORNERS[corner]
    x = area.left() + ax * (area.width() - size.width()) + dx
    y = area.top() + ay * (area.height() - size.height()) + dy
    rect = vb.mapSceneToView(QRectF(x, y, size.width(), size.height())).boundingRect()
    n = 0
    for item in plot.getPlotItem().listDataItems():
        xs, ys = item.getData()
        if xs is None or ys is None or len(xs) == 0:
            continue
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        n += int(np.count_nonzero((xs >= rect.left()) & (xs <= rect.right())
                                  & (ys >= rect.top()) & (ys <= rect.bottom())))
    return n


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
    order = [prefer] + [c for c in CORNERS if c != prefer]
    counts = {c: _covered(plot, legend, c) for c in order}
    best = min(order, key=lambda c: counts[c])  # the first (preferred) wins a tie
    anchor = _ANCHORS[best]
    legend.anchor(itemPos=anchor, parentPos=anchor, offset=CORNERS[best])
    return best


def pen(colour: str, *, dashed: bool = False, dotted: bool = False, dashdot: bool = False,
        width: float = 2.0) -> Any:
    """A pen of ``colour``: solid, or dashed, dotted or dash-dotted."""
    style = (Qt.PenStyle.DashLine if dashed else Qt.PenStyle.DotLine if dotted
             else Qt.PenStyle.DashDotLine if dashdot else Qt.PenStyle.SolidLine)
    return pg.mkPen(colour, width=width, style=style)
