"""The composed budget as a gauge: the plan's ε spent by PLD composition, basic composition
beside it (stacked by release), and the plan's total ε as a dashed line.

Drawn from a :class:`core.plan.PlanBudget` only (the core's numbers, never recomputed).
An unbounded composition is a hatched bar running past the total, labelled "unbounded".
Right-click the plot for Export… (PNG, CSV: the series ``composed ε`` holds the two totals,
PLD at y = 1 and basic composition at y = 0).
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from core.plan import PlanBudget
from gui.plan.texts import TOOLTIPS, fmt_eps
from gui.shell.plots import style_plot
from gui.shell.style import ERROR_COLOUR, OKABE_ITO

__all__ = ["BudgetGauge", "RELEASE_COLOURS"]

#: One colour per release, in plan order (Okabe–Ito, colour-blind safe).
RELEASE_COLOURS = [OKABE_ITO[k] for k in ("orange", "sky_blue", "green", "yellow", "purple")]
_HEIGHT = 0.56


class _Bar(pg.BarGraphItem):
    """A bar for the eye only (the CSV export takes the ``totals`` series)."""

    def implements(self, interface: str | None = None) -> Any:
        return [] if interface is None else False


class BudgetGauge(pg.PlotWidget):
    """The plan's composed ε against its total (module docstring)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("plan_gauge")
        style_plot(self, "Composed budget", "ε (privacy loss; smaller is more private)", "",
                   min_size=(300, 150))
        self.setToolTip(TOOLTIPS["gauge"])
        item = self.getPlotItem()
        item.getAxis("left").setTicks([[(1, "PLD"), (0, "basic Σε")]])
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self.pld_bar = _Bar(x0=[0.0], y=[1.0], width=[0.0], height=_HEIGHT,
                            brush=pg.mkBrush(OKABE_ITO["blue"]), pen=pg.mkPen("#333333"))
        self.unbounded_bar = _Bar(x0=[0.0], y=[1.0], width=[0.0], height=_HEIGHT,
                                  pen=pg.mkPen("#222222"),
                                  brush=QBrush(QColor("#444444"), Qt.BrushStyle.BDiagPattern))
        self.addItem(self.pld_bar)
        self.addItem(self.unbounded_bar)
        self.segments: list[_Bar] = []
        self.totals = pg.PlotDataItem([], [], pen=None, symbol="|", symbolSize=1,
                                      name="composed ε (y 1 = PLD, y 0 = basic)")
        self.addItem(self.totals)
        self.budget_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(
            ERROR_COLOUR, width=1.6, style=Qt.PenStyle.DashLine))
        self.addItem(self.budget_line, ignoreBounds=True)
        self.pld_label = pg.TextItem("", color="#111111", anchor=(0.0, 0.5))
        self.basic_label = pg.TextItem("", color="#111111", anchor=(0.0, 0.5))
        self.budget_label = pg.TextItem("", color=ERROR_COLOUR, anchor=(0.0, 0.0))
        for label in (self.pld_label, self.basic_label, self.budget_label):
            self.addItem(label, ignoreBounds=True)
        #: what is drawn: {"pld": ε, "basic": ε, "budget": ε} (empty before a result)
        self.values: dict[str, float] = {}
        self.clear_result()

    def clear_result(self) -> None:
        self.pld_bar.setOpts(width=[0.0])
        self.unbounded_bar.hide()
        self._set_segments([], [])
        self.totals.setData([], [])
        self.budget_line.hide()
        for label in (self.pld_label, self.basic_label, self.budget_label):
            label.setText("")
        self.values = {}
        self.setXRange(0, 1, padding=0)
        self.setYRange(-0.45, 1.95, padding=0)

    def show_budget(self, budget: PlanBudget) -> None:
        """Draw ``budget``'s composed and basic ε against the plan's total."""
        total = budget.plan.epsilon
        pld, basic = budget.composed_epsilon, budget.basic_epsilon
        finite = [v for v in (pld, basic, total) if math.isfinite(v)]
        right = max(finite) * 1.18
        colour = OKABE_ITO["blue"] if budget.feasible else ERROR_COLOUR
        if math.isfinite(pld):
            self.pld_bar.setOpts(width=[pld], brush=pg.mkBrush(colour))
            self.unbounded_bar.hide()
        else:
            self.pld_bar.setOpts(width=[0.0])
            self.unbounded_bar.setOpts(width=[right])
            self.unbounded_bar.show()
        own = [rb.epsilon if math.isfinite(rb.epsilon) else 0.0 for rb in budget.releases]
        self._set_segments(own, [rb.release.name for rb in budget.releases])
        self.totals.setData([v if math.isfinite(v) else math.nan for v in (pld, basic)],
                            [1.0, 0.0])
        self.budget_line.setPos(total)
        self.budget_line.show()
        self.values = {"pld": pld, "basic": basic, "budget": total}
        verdict = "fits" if budget.feasible else "over"
        self.pld_label.setText(f" {fmt_eps(pld)} ({verdict})" if math.isfinite(pld)
                               else " unbounded")
        self.pld_label.setPos(min(pld, right) if math.isfinite(pld) else 0.0, 1.0)
        self.basic_label.setText(f" {fmt_eps(basic)}" if math.isfinite(basic)
                                 else " unbounded")
        self.basic_label.setPos(min(basic, right) if math.isfinite(basic) else 0.0, 0.0)
        self.budget_label.setText(f" total ε = {fmt_eps(total)}, δ = {budget.plan.delta:.2g}")
        self.budget_label.setPos(total, 1.95)
        # room on the right for the value labels
        self.setXRange(0, right * 1.12, padding=0)
        self.setYRange(-0.45, 1.95, padding=0)

    def _set_segments(self, widths: list[float], names: list[str]) -> None:
        for seg in self.segments:
            self.removeItem(seg)
        self.segments = []
        x0 = 0.0
        for i, (w, name) in enumerate(zip(widths, names)):
            seg = _Bar(x0=[x0], y=[0.0], width=[w], height=_HEIGHT,
                       brush=pg.mkBrush(RELEASE_COLOURS[i % len(RELEASE_COLOURS)]),
                       pen=pg.mkPen("#333333"))
            seg.setToolTip(f"{name}: own ε = {fmt_eps(w)}")
            self.addItem(seg)
            self.segments.append(seg)
            x0 += w
