"""The calculator: its tick labels never overlap (the δ–γ axis at k = 0.1
printed 0.9 over 1 and 0.06 over 0.05) and the star of the chosen point sits on the
plotted δ–γ curve (at k = 0.1 γ* ~ 1e-114 lay far left of a grid that stopped at 1e-12)."""

from __future__ import annotations

import numpy as np
import pytest

from gui.calculator.panel import PrivacyCalculatorPanel
from gui.shell.axes import label_priority, tick_label_rects

TIMEOUT = 30_000
KS = [0.1, 1.0, 6.7, 100.0]


@pytest.fixture
def calc(qtbot, example_doc):
    panel = PrivacyCalculatorPanel(example_doc)
    qtbot.addWidget(panel)
    panel.resize(1366, 700)
    panel.show()
    qtbot.waitUntil(lambda: not panel.is_busy, timeout=TIMEOUT)
    yield panel
    panel.shutdown()


def _at(qtbot, calc, **values):
    calc.set_parameters(**values)
    want = {k: v for k, v in values.items() if k != "mode"}
    qtbot.waitUntil(lambda: not calc.is_busy and calc.result is not None
                    and all(getattr(calc.result.inputs, k) == v for k, v in want.items()),
                    timeout=TIMEOUT)
    qtbot.wait(150)  # the axes repaint after the ranges settle


def _overlaps(axis):
    rects = tick_label_rects(axis)
    return [(a, b) for i, (ra, a) in enumerate(rects) for rb, b in rects[i + 1:]
            if ra.intersects(rb)]


@pytest.mark.parametrize("k", KS)
def test_no_tick_label_overlaps_another(qtbot, calc, k):
    _at(qtbot, calc, k=k)
    for plot in (calc.eps_delta_plot, calc.eps_k_plot, calc.delta_gamma_plot,
                 calc.accuracy_plot):
        for side in ("left", "bottom"):
            axis = plot.getPlotItem().getAxis(side)
            texts = [t for _, t in tick_label_rects(axis)]
            assert texts, (k, side)  # decluttered, not emptied
            assert not _overlaps(axis), (k, plot.getPlotItem().titleLabel.text, side)
    # the δ–γ axis keeps its powers of ten: a label goes by priority, not at random
    left = [t for _, t in tick_label_rects(calc.delta_gamma_plot.getPlotItem().getAxis("left"))]
    assert any(label_priority(t) == 0 for t in left), left


def test_the_plain_axis_did_overlap_at_k_0_1(qtbot, calc):
    """The check above can fail: pyqtgraph's own choice of labels overlaps here."""
    _at(qtbot, calc, k=0.1)
    axis = calc.delta_gamma_plot.getPlotItem().getAxis("left")
    plain = type(axis).generateDrawSpecs.__get__(axis)
    from PySide6.QtGui import QImage, QPainter

    image = QImage(int(axis.width()), int(axis.height()), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.setFont(axis.style["tickFont"])
    rects = [r for r, _f, _t in plain(painter)[2]]
    painter.end()
    assert any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])


@pytest.mark.parametrize("values", [{"k": 0.1}, {"k": 1.0}, {"k": 6.7}, {"k": 100.0},
                                    {"k": 6.7, "delta_method": "exact"},
                                    {"k": 0.1, "mode": "gamma", "gamma": 1e-10},
                                    {"k": 6.7, "mode": "gamma", "gamma": 0.01}])
def test_the_star_sits_on_the_delta_gamma_curve(qtbot, calc, values):
    _at(qtbot, calc, **values)
    p = calc.result.point
    method = p.delta_method if p.delta_method in ("union", "exact", "mc") else "union"
    curve = {"union": "delta_union", "exact": "delta_exact", "mc": "delta_mc"}[method]
    item = calc.delta_gamma_plot.getPlotItem()
    # in view coordinates, i.e. after the log-axis mapping the user sees
    sx, sy = calc.curves["gamma_point"].getData()
    cx, cy = calc.curves[curve].getData()
    assert len(sx) == 1 and np.isfinite(cx).sum() >= 2
    assert sx[0] == pytest.approx(np.log10(p.gamma))  # at the chosen γ
    assert cx.min() <= sx[0] <= cx.max(), "the curve reaches the chosen γ"
    on = np.interp(sx[0], cx, cy)
    assert sy[0] == pytest.approx(on, abs=1e-9)
    assert 10 ** sy[0] == pytest.approx(p.delta, rel=2e-3)  # and it is the point's δ
    # inside the shown range, in pixels within one of the line
    vb = item.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x0 <= sx[0] <= x1 and y0 <= sy[0] <= y1
    star = vb.mapViewToScene(_point(sx[0], sy[0]))
    line = vb.mapViewToScene(_point(sx[0], on))
    assert abs(star.y() - line.y()) < 1.0


def _point(x, y):
    from PySide6.QtCore import QPointF

    return QPointF(float(x), float(y))
