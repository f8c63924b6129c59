"""The two plots of the Audit workspace, drawn from an audit *summary*.

A summary is ``jsonable(AuditResult.to_dict())`` — the dict a run record keeps — so a
recorded audit and a fresh one look alike. An unbounded claim is ``"epsilon_claimed":
null`` with ``"epsilon_claimed_reason"``; an unknown ε_tight is ``null``.

* :class:`EpsilonBarsPlot`: ε_lb ≤ ε_tight ≤ ε_claimed as three bars with their values,
  the claim as a dashed line across; an unbounded claim is a hatched bar running off the
  top with an arrow and "unbounded" with the reason; an unknown ε_tight says so in its
  slot. A violation (ε_lb > ε_claimed) paints ε_lb in the error colour.
* :class:`RocPlot`: the attack's ROC on the evaluation split, the diagonal (a test that
  learns nothing), the boundary every test must stay under if the claimed (ε, δ) holds
  (TPR ≤ min(δ + e^ε·FPR, 1 − e^{−ε}(1 − δ − FPR))), and the attack's chosen
  threshold.

Both have a legend and pyqtgraph's right-click menu: Export… writes PNG or CSV (the bars'
CSV is the point series of the finite bar tops only: an unknown ε_tight or an unbounded
claim is absent, never 0 or a display height). SVG export fails in pyqtgraph 0.14 with Qt
6.11 for every plot of the app (pyqtgraph issue #3485), not only these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from gui.shell.plots import add_legend, place_legend, style_plot
from gui.shell.style import ERROR_COLOUR, OKABE_ITO, PRIVATE_ACCENT

__all__ = ["EpsilonBarsPlot", "RocPlot", "claimed_epsilon", "claim_boundary", "BAR_KEYS",
           "BAR_COLOURS", "fmt_eps"]

BAR_KEYS = ("epsilon_lb", "epsilon_tight", "epsilon_claimed")
BAR_COLOURS = {"epsilon_lb": OKABE_ITO["blue"], "epsilon_tight": OKABE_ITO["green"],
               "epsilon_claimed": "#9A9A9A"}
TICKS = {"epsilon_lb": "ε_lb (attack)", "epsilon_tight": "ε_tight (exact)",
         "epsilon_claimed": "ε_claimed"}
_WIDTH = 0.62


def claimed_epsilon(s: Mapping[str, Any]) -> float:
    """The claimed ε of a summary: a float, ``math.inf`` when unbounded (null in JSON)."""
    v = s.get("epsilon_claimed")
    return math.inf if v is None else float(v)


def fmt_eps(x: float | None, digits: int = 4) -> str:
    """ε as text: a number, "unbounded" (∞) or "unknown" (None); never "inf".

    >>> fmt_eps(0.61834), fmt_eps(math.inf), fmt_eps(None)
    ('0.6183', 'unbounded', 'unknown')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "unknown"
    if math.isinf(x):
        return "unbounded"
    return f"{x:.{digits}g}"


def claim_boundary(epsilon: float, delta: float, n: int = 201) -> tuple[np.ndarray, np.ndarray]:
    """The largest TPR any test can reach at each FPR against an (ε, δ)-DP mechanism.

    (ε, δ)-DP gives FPR + e^ε·FNR ≥ 1 − δ and e^ε·FPR + FNR ≥ 1 − δ (Kairouz et al.),
    so TPR = 1 − FNR ≤ min(δ + e^ε·FPR, 1 − e^{−ε}(1 − δ − FPR), 1).

    >>> f, t = claim_boundary(0.0, 0.0, 3)
    >>> t.tolist()  # ε = 0, δ = 0: no test beats the diagonal
    [0.0, 0.5, 1.0]
    """
    fpr = np.linspace(0.0, 1.0, n)
    e = math.exp(epsilon)
    tpr = np.minimum.reduce([delta + e * fpr, 1.0 - (1.0 - delta - fpr) / e,
                             np.ones_like(fpr)])
    return fpr, np.clip(tpr, 0.0, 1.0)


def _style(plot: pg.PlotWidget, title: str, bottom: str, left: str) -> None:
    style_plot(plot, title, bottom, left, grid_x=False, min_size=(280, 210))


class _Bar(pg.BarGraphItem):
    """A bar drawn for the eye only: it does not offer its (x, height) to the CSV export
    (an unbounded claim's bar has a display height, an unknown ε_tight none), so the
    exported numbers are the ``tops`` series alone."""

    def implements(self, interface: str | None = None) -> Any:
        return [] if interface is None else False


class EpsilonBarsPlot(pg.PlotWidget):
    """ε_lb ≤ ε_tight ≤ ε_claimed as bars (see the module docstring)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        _style(self, "ε_lb ≤ ε_tight ≤ ε_claimed", "", "ε (privacy loss)")
        item = self.getPlotItem()
        item.getAxis("bottom").setTicks([[(i, TICKS[k]) for i, k in enumerate(BAR_KEYS)]])
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        # the legend sits in a band above the bars that _fit_band keeps free (no corner of
        # a bar chart is empty, so it is not moved about)
        self.legend = add_legend(self, "top-left", spacing=-6, avoid_data=False)
        self.bars: dict[str, pg.BarGraphItem] = {}
        for i, key in enumerate(BAR_KEYS):
            bar = _Bar(x=[i], height=[0.0], width=_WIDTH,
                                  brush=pg.mkBrush(BAR_COLOURS[key]),
                                  pen=pg.mkPen("#333333", width=1))
            self.addItem(bar)
            self.bars[key] = bar
        self.unbounded_bar = _Bar(
            x=[2], height=[0.0], width=_WIDTH, pen=pg.mkPen("#222222", width=1.2),
            brush=QBrush(QColor("#444444"), Qt.BrushStyle.BDiagPattern))
        self.addItem(self.unbounded_bar)
        self.arrow = pg.ArrowItem(angle=90, headLen=16, tipAngle=40, tailLen=0,
                                  brush=pg.mkBrush("#222222"), pen=None)
        self.addItem(self.arrow)
        # the finite bar tops as a point series: the data behind CSV export (not in the
        # legend, which is filled by hand)
        self.tops = pg.PlotDataItem([], [], pen=None, symbol="_", symbolSize=1,
                                    name="finite ε (x: 0 = ε_lb, 1 = ε_tight, 2 = ε_claimed; "
                                         "absent = unknown or unbounded)")
        self.addItem(self.tops)
        self.claim_line = pg.InfiniteLine(angle=0, movable=False,
                                          pen=pg.mkPen("#222222", width=1.3,
                                                       style=Qt.PenStyle.DashLine))
        self.addItem(self.claim_line, ignoreBounds=True)
        self.labels = {key: pg.TextItem("", color="#111111", anchor=(0.5, 1.0))
                       for key in BAR_KEYS}
        for label in self.labels.values():
            self.addItem(label)
        self.reason_label = pg.TextItem("", color="#222222", anchor=(0.5, 0.0),
                                        fill=pg.mkBrush(255, 255, 255, 230))
        self.reason_label.textItem.setTextWidth(170)
        self.addItem(self.reason_label)
        self.values: dict[str, float | None] = {}
        self._top: tuple[float, bool] | None = None  # (highest finite ε, claim unbounded)
        item.getViewBox().sigResized.connect(self._fit_band)
        self.clear_result()

    # ------------------------------------------------------------------ drawing
    def clear_result(self) -> None:
        """Empty bars (the empty state)."""
        for bar in self.bars.values():
            bar.setOpts(height=[0.0])
        self.unbounded_bar.hide()
        self.arrow.hide()
        self.claim_line.hide()
        self.tops.setData([], [])
        for label in self.labels.values():
            label.setText("")
        self.reason_label.setText("")
        self.reason_label.hide()
        self.legend.clear()
        self.values = {}
        self._top = None
        self.setYRange(0, 1, padding=0)
        self.setXRange(-0.6, 2.6, padding=0)

    def set_summary(self, s: Mapping[str, Any]) -> None:
        lb = float(s["epsilon_lb"])
        tight = None if s.get("epsilon_tight") is None else float(s["epsilon_tight"])
        claimed = claimed_epsilon(s)
        violation = s.get("verdict") == "violation"
        self.values = {"epsilon_lb": lb, "epsilon_tight": tight, "epsilon_claimed": claimed}
        finite = [v for v in (lb, tight, claimed) if v is not None and math.isfinite(v)]
        top = max(finite + [0.0])
        unbounded = not math.isfinite(claimed)
        conf = float(s.get("confidence", 0.95))
        self.legend.clear()
        colour_lb = ERROR_COLOUR if violation else BAR_COLOURS["epsilon_lb"]
        self.bars["epsilon_lb"].setOpts(height=[lb], brush=pg.mkBrush(colour_lb))
        self.legend.addItem(self.bars["epsilon_lb"],
                            f"ε_lb = {fmt_eps(lb)} (attack, {100 * conf:g} %)")
        self.bars["epsilon_tight"].setOpts(  # unknown: no bar at all (not a bar of 0)
            height=[0.0 if tight is None else tight],
            pen=pg.mkPen(None) if tight is None else pg.mkPen("#333333", width=1))
        self.legend.addItem(self.bars["epsilon_tight"],
                            f"ε_tight = {fmt_eps(tight)}" + ("" if tight is not None
                                                             else " (densities unknown)"))
        if unbounded:
            self.bars["epsilon_claimed"].setOpts(height=[0.0])
            h = max(top, 0.25) * 1.3  # above every finite bar
            self.unbounded_bar.setOpts(height=[h])
            self.unbounded_bar.show()
            self.arrow.setPos(2, h)
            self.arrow.show()
            self.claim_line.hide()
            self.legend.addItem(self.unbounded_bar, "ε_claimed unbounded (no finite bound)")
            reason = str(s.get("epsilon_claimed_reason") or "no finite bound")
            self.reason_label.setHtml(
                "<div style='text-align:center; font-size:8pt'><b>unbounded</b><br>"
                f"{_html(reason)}</div>")
            self.reason_label.setPos(2, h * 0.62)
            self.reason_label.show()
        else:
            self.bars["epsilon_claimed"].setOpts(height=[claimed])
            self.unbounded_bar.hide()
            self.arrow.hide()
            self.reason_label.hide()
            self.claim_line.setValue(claimed)
            self.claim_line.show()
            self.legend.addItem(self.bars["epsilon_claimed"],
                                f"ε_claimed = {fmt_eps(claimed)}, δ = "
                                f"{float(s.get('delta_claimed', 0.0)):.3g}")
        xs = [i for i, k in enumerate(BAR_KEYS)
              if (v := self.values[k]) is not None and math.isfinite(v)]
        self.tops.setData(np.array(xs, float),
                          np.array([self.values[BAR_KEYS[i]] for i in xs], float))
        for i, key in enumerate(BAR_KEYS):
            v = self.values[key]
            label = self.labels[key]
            if key == "epsilon_claimed" and unbounded:
                label.setText("")
                continue
            if v is None:
                label.setText("unknown")
                label.setColor("#555555")
                label.setPos(i, 0.1 * max(top, 0.25))
                continue
            label.setText(fmt_eps(v))
            label.setColor(ERROR_COLOUR if (key == "epsilon_lb" and violation) else "#111111")
            label.setPos(i, v)
        self._top = (h if unbounded else max(top, 0.25), unbounded)
        self.setXRange(-0.6, 2.6, padding=0)
        self._fit_band()

    def _fit_band(self, *args: object) -> None:
        """The y range: the bars and their value labels below, the legend's band above
        (measured now: the legend's height and the plot's change with entries and size)."""
        if self._top is None:
            return
        top, _unbounded = self._top
        vb = self.getPlotItem().getViewBox()
        vb_h = vb.height() if vb.height() > 1 else 200.0
        band = self.legend.boundingRect().height() + 8.0 + 18.0  # legend, gap, value label
        usable = max(vb_h - band, 0.35 * vb_h)
        y_max = top * vb_h / usable
        self.setYRange(-0.012 * y_max, y_max, padding=0)


class RocPlot(pg.PlotWidget):
    """The attack's ROC with the diagonal and the claim's boundary (module docstring)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        _style(self, "Attack ROC (evaluation split)", "false-positive rate (FPR)",
                "true-positive rate")
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setAspectLocked(False)
        self.legend = add_legend(self, "bottom-right", spacing=-6)  # the ROC bends away
        self.roc = self.plot([], [], pen=pg.mkPen(OKABE_ITO["blue"], width=2.2),
                             name="attack ROC")
        self.boundary = self.plot([], [], pen=pg.mkPen(PRIVATE_ACCENT, width=1.8,
                                                       style=Qt.PenStyle.DashLine),
                                  name="limit if the claim holds")
        self.diagonal = self.plot([0.0, 1.0], [0.0, 1.0],
                                  pen=pg.mkPen("#777777", width=1.2, style=Qt.PenStyle.DotLine),
                                  name="chance (ε = 0)")
        self.point = self.plot([], [], pen=None, symbol="o", symbolSize=9,
                               symbolBrush=pg.mkBrush(OKABE_ITO["vermillion"]),
                               symbolPen=pg.mkPen("#000000", width=1),
                               name="chosen threshold")
        self.setXRange(0, 1, padding=0.02)
        self.setYRange(0, 1, padding=0.02)
        self._entries = [(self.roc, "attack ROC"), (self.boundary, "limit if the claim holds"),
                         (self.diagonal, "chance (ε = 0)"), (self.point, "chosen threshold")]
        self.clear_result()

    def clear_result(self) -> None:
        self.roc.setData([], [])
        self.boundary.setData([], [])
        self.point.setData([], [])
        self._set_legend([(self.diagonal, "chance (ε = 0)")])

    def set_summary(self, s: Mapping[str, Any]) -> None:
        pts = [(float(f), float(t)) for f, t in (s.get("roc") or [])]
        f = np.array([p[0] for p in pts], float)
        t = np.array([p[1] for p in pts], float)
        self.roc.setData(f, t)
        shown = [(self.roc, "attack ROC")]
        eps = claimed_epsilon(s)
        delta = float(s.get("delta_claimed", 0.0) or 0.0)
        if math.isfinite(eps):
            bf, bt = claim_boundary(eps, delta)
            self.boundary.setData(bf, bt)
            shown.append((self.boundary, f"limit if ({fmt_eps(eps)}, {delta:.3g})-DP holds"))
        else:
            self.boundary.setData([], [])
        shown.append((self.diagonal, "chance (ε = 0)"))
        att = s.get("attack") or {}
        if att.get("fpr") is not None and att.get("fnr") is not None:
            self.point.setData([float(att["fpr"])], [1.0 - float(att["fnr"])])
            shown.append((self.point, "chosen threshold (gives ε_lb)"))
        else:
            self.point.setData([], [])
        self.setXRange(0, 1, padding=0.02)
        self.setYRange(0, 1, padding=0.02)
        self._set_legend(shown)

    def _set_legend(self, shown: list[tuple[pg.PlotDataItem, str]]) -> None:
        """The legend's entries, then its place: after the data it must not cover."""
        self.legend.clear()
        for it, name in shown:
            self.legend.addItem(it, name)
        place_legend(self, self.legend, prefer="bottom-right")


def _html(text: str) -> str:
    import html

    return html.escape(text)
