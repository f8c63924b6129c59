"""Legends keep out of the data, and markers at the edge of the data are not clipped."""

from __future__ import annotations

import numpy as np

from gui.shell.plots import DATA_PADDING, add_legend, make_plot, place_legend


def test_the_legend_moves_to_the_corner_with_the_least_data(qtbot):
    plot = make_plot("t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(500, 350)
    plot.show()
    qtbot.waitExposed(plot)
    legend = add_legend(plot, "top-right")
    # a rising curve: its data crowd the top-right and bottom-left corners
    x = np.linspace(0, 10, 200)
    plot.plot(x, x, name="rising")
    plot.plot(x, x + 0.5, name="rising too")
    qtbot.wait(50)
    corner = place_legend(plot, legend, prefer="top-right")
    assert corner in ("top-left", "bottom-right")
    vb = plot.getPlotItem().getViewBox()
    rect = vb.mapSceneToView(legend.sceneBoundingRect()).boundingRect()
    inside = ((x >= rect.left()) & (x <= rect.right()) & (x >= rect.top())
              & (x <= rect.bottom()))
    assert not inside.any()  # no point of the first curve under the legend


def test_markers_at_the_data_edge_keep_a_margin(qtbot):
    plot = make_plot("t", "x", "y")
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    plot.plot([0.0, 1.0], [0.0, 1.0], symbol="o")
    qtbot.wait(50)
    (x0, x1), (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    assert x0 < -0.5 * DATA_PADDING and x1 > 1 + 0.5 * DATA_PADDING
    assert y0 < -0.5 * DATA_PADDING and y1 > 1 + 0.5 * DATA_PADDING
