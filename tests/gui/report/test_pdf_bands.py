"""The PDF's figures (pyqtgraph) draw bands as the report model keeps them, clipped to the
quantity's range."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from core.common import PROBABILITY
from core.report.model import Figure, Series
from gui.report.export import figure_plot


def test_a_success_rate_band_is_drawn_up_to_1_not_past_it(qapp):
    s = Series("dp", (1.0, 2.0), (0.97, 0.5), low=(0.9, 0.4), high=(1.04, 0.6),
               limits=PROBABILITY)
    widget = figure_plot(Figure("f", "Success rate", "ε", "rate", (s,)))
    try:
        (bars,) = [it for it in widget.getPlotItem().items if isinstance(it, pg.ErrorBarItem)]
        y = np.asarray(bars.opts["y"])
        assert np.allclose(y + bars.opts["top"], [1.0, 0.6])
        assert np.allclose(y - bars.opts["bottom"], [0.9, 0.4])
    finally:
        widget.deleteLater()
