"""Every band the workspaces draw is clipped to what its quantity can be: a success rate's
95 % interval that runs past 1 is shaded up to 1, a length's never below 0 — through
gui.shell.plots.add_band / add_error_bars and the ranges declared with the series."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from core.common import NON_NEGATIVE, PROBABILITY
from gui.shell.plots import add_band, add_error_bars


def _bar_ends(bars: pg.ErrorBarItem) -> tuple[np.ndarray, np.ndarray]:
    o = bars.opts
    return np.asarray(o["y"]) - np.asarray(o["bottom"]), np.asarray(o["y"]) + np.asarray(o["top"])


def test_a_band_whose_interval_exceeds_1_is_shaded_within_0_and_1(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    x = np.array([1.0, 2.0, 3.0])
    band = add_band(w, x, [0.9, -0.05, 0.4], [1.06, 0.1, 0.6], "#0072B2", PROBABILITY)
    lo, hi = (c.getData()[1] for c in band.curves)
    assert np.allclose(lo, [0.9, 0.0, 0.4]) and np.allclose(hi, [1.0, 0.1, 0.6])
    assert band in w.getPlotItem().items


def test_length_error_bars_never_reach_below_0(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    bars = add_error_bars(w, [1.0, 2.0], [0.3, 5.0], [-0.4, 4.0], [1.0, 6.0], "#000000",
                          NON_NEGATIVE)
    lo, hi = _bar_ends(bars)
    assert np.allclose(lo, [0.0, 4.0]) and np.allclose(hi, [1.0, 6.0])


def _bench_summary():
    row = {"approach": "dp", "epsilon": 1.0,
           "success": 0.97, "success_ci_low": 0.90, "success_ci_high": 1.04,
           "route_length": 0.3, "route_length_ci_low": -0.2, "route_length_ci_high": 0.8,
           "messages": 2.0, "messages_ci_low": -1.0, "messages_ci_high": 5.0,
           "stretch": 1.02, "stretch_ci_low": 0.97, "stretch_ci_high": 1.07}
    return {"benchmark": "B1", "title": "t", "worlds": 3, "checks": [], "gaps": [],
            "config": {"parameter": "epsilon", "values": [1.0, 2.0], "approaches": ["dp"]},
            "rows": [row, {**row, "epsilon": 2.0}]}


def test_the_benchmark_page_clips_its_error_bars(qtbot):
    from gui.logistics.experiments import ExperimentsPage
    from gui.shell.document import ProjectDocument

    page = ExperimentsPage(ProjectDocument())
    qtbot.addWidget(page)
    page.show_summary(_bench_summary())
    lo, hi = _bar_ends(page.error_bars["success"]["dp"])
    assert np.allclose(hi, 1.0) and np.allclose(lo, 0.90)
    for key in ("route_length", "messages"):
        lo, _ = _bar_ends(page.error_bars[key]["dp"])
        assert np.all(lo == 0.0), key
    lo, _ = _bar_ends(page.error_bars["stretch"]["dp"])
    assert np.allclose(lo, 1.0)  # no route is shorter than the shortest


def test_the_packet_page_clips_its_bands(qtbot):
    from gui.logistics.packet_experiments import PacketExperimentsPage
    from gui.shell.document import ProjectDocument

    page = PacketExperimentsPage(ProjectDocument())
    qtbot.addWidget(page)
    s = {"arm": "dp", "scenario": "packet", "x": [4.0, 6.0, 8.0], "mean": [0.97, 0.9, 0.99],
         "lo": [0.9, 0.8, 0.95], "hi": [1.04, 1.0, 1.03]}
    page._draw_series("success", s)
    (band,) = [it for it in page.items["success"] if isinstance(it, pg.FillBetweenItem)]
    lo, hi = (c.getData()[1] for c in band.curves)
    assert np.allclose(hi, [1.0, 1.0, 1.0]) and np.allclose(lo, [0.9, 0.8, 0.95])
    page._draw_series("messages", {**s, "mean": [0.5], "lo": [-0.5], "hi": [1.5],
                                   "x": [4.0]})
    (bars,) = [it for it in page.items["messages"] if isinstance(it, pg.ErrorBarItem)]
    lo, _ = _bar_ends(bars)
    assert np.allclose(lo, 0.0)  # one point: an error bar, never below 0 messages


def test_the_sweeps_cost_of_privacy_bars_never_reach_below_0(qtbot):
    from core.mdp import QUANTITY_RANGES
    from gui.mdp.plot_panel import LogErrorBarItem

    bars = LogErrorBarItem()
    bars.set_values(np.array([10.0, 100.0]), np.array([0.1, 0.5]), np.array([0.3, 0.1]),
                    QUANTITY_RANGES["cost_bound"])
    lo, hi = _bar_ends(bars)
    assert np.allclose(lo, [0.0, 0.4]) and np.allclose(hi, [0.4, 0.6])
    bars.set_values(np.array([10.0]), np.array([-1.0]), np.array([0.5]),
                    QUANTITY_RANGES["v_lower"])  # a value at s₀ has no limit
    lo, hi = _bar_ends(bars)
    assert np.allclose(lo, [-1.5]) and np.allclose(hi, [-0.5])
