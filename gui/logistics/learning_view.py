"""The RL high-level solver's learning curve (thesis §4.5.3): a tab of a plan result.

With the solver "RL (§4.5.3)" Step 3 learns route probabilities on the origin's center
graph (:func:`core.logistics.center_rl.rl_center_route`) instead of running Dijkstra.
:class:`LearningCurveTab` plots what it learned, episode by episode: the cost of each
episode's sampled walk (grey points; walks that did not reach the goal are left out and
counted), the cost of the route the probabilities choose after the episode (the line;
missing while the most likely arcs do not lead to the goal yet) and Dijkstra's optimum on
the same graph (dashed). Right-click ▸ Export gives PNG, SVG or CSV like every plot.

It draws from :meth:`core.logistics.center_rl.LearningCurve.to_dict`, which a plan run's
record keeps (``summary["learning_curve"]``), so a reloaded run shows its curve too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.common.palette import APPROACH_COLOURS
from gui.shell.plots import add_legend, make_plot

__all__ = ["LearningCurveTab"]

EMPTY = ("Choose the high-level solver <b>RL (§4.5.3)</b> in the Run panel and plan a task "
         "(DP-based or No-privacy): the route-probability learner's curve appears here, "
         "episode by episode, against Dijkstra's optimum on the same center graph.")


def _arr(values: Any) -> np.ndarray:
    return np.array([math.nan if v is None else float(v) for v in values or ()], dtype=float)


class LearningCurveTab(QWidget):
    """The learning curve of the RL solver of one plan (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = make_plot("RL high-level solver: learning curve", "episode",
                              "route cost on the center graph", parent=self,
                              min_size=(0, 160))
        self.plot.setToolTip("Right-click ▸ Export for PNG, SVG or CSV.")
        self.legend = add_legend(self.plot, "top-right")
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.caption)
        lay.addWidget(self.plot, 1)
        self.curve: dict[str, Any] | None = None
        self.clear()

    def clear(self, text: str = "") -> None:
        self.curve = None
        self.plot.clear()
        self.legend.clear()
        self.plot.setLogMode(y=False)
        self.log_y = False
        self.caption.setText(f"<span style='color:#555'>{text or EMPTY}</span>")

    def show_curve(self, curve: "Mapping[str, Any] | Any | None", *, plans: int = 1) -> None:
        """Plot a learning curve (``LearningCurve`` or its ``to_dict()``); None clears."""
        if curve is None:
            self.clear()
            return
        d = dict(curve.to_dict() if hasattr(curve, "to_dict") else curve)
        self.clear()
        self.curve = d
        ep = _arr(d.get("episode_cost"))
        gr = _arr(d.get("greedy_cost"))
        opt = d.get("optimum")
        x = np.arange(1, len(ep) + 1, dtype=float)
        colour = APPROACH_COLOURS.get("dp", "#0072B2")
        ok = np.isfinite(ep)
        vals = np.concatenate([ep[ok], gr[np.isfinite(gr)],
                               [float(opt)] if opt is not None else []])
        # costs estimated from released maps can span many decades: a log axis then
        self.log_y = bool(len(vals) and vals.min() > 0 and vals.max() / vals.min() > 1e3)
        self.plot.setLogMode(y=self.log_y)
        self.plot.plot(x[ok], ep[ok], pen=None, symbol="o", symbolSize=3,
                       symbolBrush=pg.mkBrush(150, 150, 150, 140), symbolPen=None,
                       name="sampled walk (episode)")
        self.plot.plot(x, gr, pen=pg.mkPen(colour, width=2), connect="finite",
                       name="learned route (most likely arcs)")
        if opt is not None:
            line = pg.InfiniteLine(pos=math.log10(float(opt)) if self.log_y else float(opt),
                                   angle=0,
                                   pen=pg.mkPen("#333333", width=1.5,
                                                style=Qt.PenStyle.DashLine))
            self.plot.addItem(line)
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(
                "#333333", width=1.5, style=Qt.PenStyle.DashLine)), "Dijkstra's optimum")
        last = float(gr[-1]) if len(gr) else math.nan
        at = None
        if opt is not None and math.isfinite(last) and abs(last - float(opt)) <= 1e-9 * max(
                1.0, abs(float(opt))):
            k = len(gr)
            while k > 0 and math.isfinite(gr[k - 1]) and abs(gr[k - 1] - float(opt)) <= \
                    1e-9 * max(1.0, abs(float(opt))):
                k -= 1
            at = k + 1
        lost = int((~ok).sum())
        best = float(ep[ok].min()) if ok.any() else math.nan
        optimum = f" (Dijkstra's optimum {float(opt):.4g})" if opt is not None else ""
        if math.isfinite(last):
            head = (f"{len(ep)} episodes; the learned route costs <b>{last:.4g}</b>{optimum}"
                    + (f"; at the optimum from episode {at} on" if at is not None else
                       "; <b>not at the optimum</b> at the end" if opt is not None else ""))
        else:
            head = (f"{len(ep)} episodes; the most likely arcs <b>do not lead to the goal</b> "
                    "at the end, so the solver takes the cheapest complete walk it sampled"
                    + (f": cost <b>{best:.4g}</b>{optimum}" if math.isfinite(best) else
                       f": none{optimum}"))
        self.caption.setText(
            head
            + (f"; {lost} sampled walk(s) did not reach the goal (not drawn)" if lost else "")
            + (f". This task planned {plans} times (re-plans); the last curve is shown"
               if plans > 1 else "")
            + ". Post-processing of what the origin holds: no privacy cost.")
