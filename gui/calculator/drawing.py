"""The Privacy Calculator's result box and its four live plots, and how a result is drawn.

:class:`CalculatorPlots` is a part of :class:`gui.calculator.panel.PrivacyCalculatorPanel`:
it builds the result box and the plots, which the panel lays out, keeps the curves, legends
and the results drawn, and asks the panel for the parameters, runners and the compare box
through a :class:`gui.calculator.views.PlotHooks`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
)

from core.common import InputError
from core.privacy import (
    FIGURE_1_1,
    CalculatorInputs,
    CalculatorResult,
    EpsilonDeltaCurve,
    EpsilonVsK,
    dirichlet_privacy,
)
from gui.calculator.compute import figure_curves
from gui.calculator.parts import (
    FIGURE_COLOURS,
    METHOD_SHORT,
    RESULT_ROWS,
    WARNING_COLOUR,
    fmt_value,
    gamma_marker,
)
from gui.calculator.views import PlotHooks
from gui.shell.plots import add_legend, make_plot, pen, place_legend
from gui.shell.style import OKABE_ITO, PRIVATE_ACCENT, pretty_message
from gui.shell.widgets import SciSpinBox

__all__ = ["CalculatorPlots", "warning_texts"]

_GREY = "<span style='color:#555'>"


def _epsilon_html(p: Any) -> str:
    """The ε readout: the value, then its two parts v₁ and v₂."""
    return (f"<b>{fmt_value(p.epsilon)}</b> {_GREY}&nbsp; v₁ = {fmt_value(p.v1, 4)}, "
            f"v₂ = {fmt_value(p.v2, 4)}</span>")


def _profile_html(r: CalculatorResult) -> str:
    """The exact-profile readout: ε at the target δ and the worst pair; '–' at a fixed γ."""
    q = r.profile
    if q is None:
        return (f"– {_GREY}a fixed γ belongs to Theorem 1.6; give a target δ for the exact "
                "profile</span>")
    return (f"<b>{fmt_value(q.epsilon)}</b> {_GREY}at δ = {q.delta:g} — tight (the worst "
            "pair attains it)</span>")


def _delta_html(p: Any) -> str:
    """The δ readout: the value and how it was bounded."""
    return f"<b>{fmt_value(p.delta)}</b> {_GREY}— {METHOD_SHORT[p.delta_method]}</span>"


def warning_texts(inp: CalculatorInputs, key: str, warnings: tuple[tuple[str, str], ...]
                  ) -> dict[str, str]:
    """A short inline text for the warnings about ``key`` (at inputs ``inp``) and the full
    text."""
    texts = [pretty_message(t) for f, t in warnings if f == key]
    if not texts:
        return {}
    if key == "k":
        low = [f"k·{s} = {inp.k * v:.3g}" for s, v in (("η", inp.eta),
                                                       ("η̄", inp.eta_bar))
               if inp.k * v < 1]
        short = (f"{' and '.join(low) or 'k·η'} < 1: below the premise of Lemma 1.2, so no "
                 "vertex reduction (exact) — δ is the union bound")
    elif key == "b":
        short = ("η + b/2 > (1 − η̄)/2: the corrected v₂ is used (the source's (1.21) "
                 "would under-state ε)")
    else:
        short = texts[0]
    return {"warning": short, "detail": "\n".join(texts)}


class CalculatorPlots:
    """The result box and the four plots of the calculator, and how a result is drawn.

    Takes the :class:`~gui.calculator.views.PlotHooks` of what it asks of the panel. It
    builds :attr:`results_box` and the four plots (the panel lays them out) and owns the
    curves, the legends and the last result drawn.
    """

    def __init__(self, hooks: PlotHooks) -> None:
        self._hooks = hooks
        # Figure 1.1 by configuration: the figure's own curves (vertex reduction of
        # Lemma 1.2) and the proven union-bound curves of the same configurations
        self.figure_curves: dict[str, EpsilonDeltaCurve] = {}
        self.figure_union_curves: dict[str, EpsilonDeltaCurve] = {}
        self._result: CalculatorResult | None = None
        self._k_result: EpsilonVsK | None = None

    def build(self) -> None:
        """Build the result box and the plots (after the panel's parameter fields, so that
        the tab order follows the layout)."""
        self._build_results()
        self._build_plots()

    @property
    def result(self) -> CalculatorResult | None:
        """The point result drawn last (None before the first)."""
        return self._result

    @property
    def k_result(self) -> EpsilonVsK | None:
        """The ε-vs-k curve drawn last (None before the first)."""
        return self._k_result

    def _build_results(self) -> None:
        box = QGroupBox("Result (what-if)", self._hooks.parent)
        form = QFormLayout(box)
        form.setVerticalSpacing(2)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.result_labels: dict[str, QLabel] = {}
        self.result_names: dict[str, QLabel] = {}
        rows = RESULT_ROWS
        for key, text, tip in rows:
            label = QLabel(text, box)
            label.setToolTip(tip)
            value = QLabel("–", box)
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.RichText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setToolTip(tip)
            value.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            self.result_labels[key] = value
            self.result_names[key] = label
            form.addRow(label, value)
        self._delta_tip = rows[2][2]
        self._compare_tip = rows[4][2]
        self._approx_tip = rows[5][2]
        self.alpha_note = QLabel("<span style='color:#555'>Lemma 2.2 (the paper's α) can "
                                 "fail (e.g. n = 20, k = 5); the rigorous α always holds."
                                 "</span>", box)
        self.alpha_note.setWordWrap(True)
        form.addRow(self.alpha_note)
        # reach a target: the largest k whose exact-profile ε meets it at the current δ
        target = QHBoxLayout()
        self.target_spin = SciSpinBox(box, minimum=1e-3, maximum=1e4, value=1.0,
                                      log_step=10 ** 0.1)
        self.target_spin.setToolTip("A target ε: 'Find k' gives the largest k whose exact "
                                    "profile meets it at the current δ, η, η̄, |W| and b.")
        self.target_button = QPushButton("Find k", box)
        self.target_button.setToolTip(self.target_spin.toolTip())
        self.target_button.clicked.connect(self._hooks.find_k)
        target.addWidget(self.target_spin, 1)
        target.addWidget(self.target_button)
        self.target_label = QLabel(box)
        self.target_label.setWordWrap(True)
        form.addRow("target ε", target)
        form.addRow(self.target_label)
        self.results_box = box

    def _build_plots(self) -> None:
        c = OKABE_ITO
        self.eps_delta_plot = make_plot("ε vs δ (Figure 1.1)", "δ", "ε", log_x=True,
                                         log_y=False)
        self.eps_k_plot = make_plot("ε vs k", "k (Dirichlet concentration)", "ε", log_x=True,
                                     log_y=True)
        self.delta_gamma_plot = make_plot("δ vs γ", "γ (Ω₁ threshold)", "δ", log_x=True,
                                           log_y=True)
        self.accuracy_plot = make_plot("Accuracy vs k", "k (Dirichlet concentration)",
                                        "variance, squared error, α", log_x=True, log_y=True)
        self.legends = {
            "eps_delta": add_legend(self.eps_delta_plot, "top-right"),
            "eps_k": add_legend(self.eps_k_plot, "top-left"),
            "delta_gamma": add_legend(self.delta_gamma_plot, "bottom-right"),
            "accuracy": add_legend(self.accuracy_plot, "bottom-left", columns=2),
        }
        self._plots_by_legend = {
            "eps_delta": (self.eps_delta_plot, "top-right"), "eps_k": (self.eps_k_plot, "top-left"),
            "delta_gamma": (self.delta_gamma_plot, "bottom-right"),
            "accuracy": (self.accuracy_plot, "bottom-left")}
        marker = dict(symbol="star", symbolSize=13, symbolBrush=pg.mkBrush(PRIVATE_ACCENT),
                      symbolPen=pg.mkPen("#000000", width=1), pen=None)
        p1, p2 = self.eps_delta_plot, self.eps_k_plot
        p3, p4 = self.delta_gamma_plot, self.accuracy_plot
        self.curves: dict[str, pg.PlotDataItem] = {
            "profile": p1.plot([], [], pen=pen(c["black"], width=2.4),
                               name="ε, exact profile (default)"),
            "epsilon": p1.plot([], [], pen=pen(c["blue"]), name="ε, Thm 1.6 union δ"),
            "epsilon_exact": p1.plot([], [], pen=pen(c["sky_blue"], dashdot=True),
                                     name="ε, Lemma 1.2 δ (Fig. 1.1; unproven)"),
            "epsilon_mc": p1.plot([], [], pen=pen(c["purple"], dotted=True),
                                  name="ε, Monte Carlo δ (estimate)"),
            "epsilon_approx": p1.plot([], [], pen=pen(c["vermillion"], dashed=True),
                                      name="ε simplified (Lemma 1.7)"),
            "point": p1.plot([], [], name="current (δ, ε)", **marker),
            "k_epsilon": p2.plot([], [], pen=pen(c["blue"]), symbol="o", symbolSize=5,
                                 symbolBrush=pg.mkBrush(c["blue"]), symbolPen=None,
                                 name="ε", connect="finite"),
            "k_epsilon_approx": p2.plot([], [], pen=pen(c["vermillion"], dashed=True),
                                        name="ε (Lemma 1.7)", connect="finite"),
            "k_point": p2.plot([], [], name="current k", **marker),
            "delta_exact": p3.plot([], [], pen=pen(c["sky_blue"], dashdot=True),
                                   name="δ vertex reduction (Lemma 1.2, unproven)"),
            "delta_union": p3.plot([], [], pen=pen(c["blue"]),
                                   name="δ union bound (proven)"),
            "delta_mc": p3.plot([], [], pen=pen(c["purple"], dotted=True),
                                name="δ Monte Carlo (95% upper)"),
            "gamma_point": p3.plot([], [], name="current (γ, δ)", **marker),
            "variance": p4.plot([], [], pen=pen(c["blue"]), name="Var bound 1/(4(k+1))"),
            "sq_error": p4.plot([], [], pen=pen(c["green"]), name="E‖x−p‖², p uniform"),
            "alpha_paper": p4.plot([], [], pen=pen(c["vermillion"], dashed=True),
                                   name="α paper (Lemma 2.2)"),
            "alpha_rigorous": p4.plot([], [], pen=pen(c["black"], dashed=True),
                                      name="α rigorous"),
        }
        self.curves["k_marker"] = p4.plot([], [], pen=pg.mkPen(PRIVATE_ACCENT, width=1.5),
                                          name="current k")
        self.k_line = pg.InfiniteLine(angle=90, movable=False,
                                      pen=pg.mkPen(PRIVATE_ACCENT, width=1.5))
        p4.addItem(self.k_line, ignoreBounds=True)
        self.k_line.hide()
        for name, colour in FIGURE_COLOURS.items():
            cfg = FIGURE_1_1[name]
            self.curves[f"fig_{name}"] = p1.plot(
                [], [], pen=pen(colour, width=1.6),
                name=f"{name}: k = {cfg['k']:g}, η = η̄ = {cfg['eta']:g}")
            self.curves[f"fig_{name}_approx"] = p1.plot([], [], pen=pen(colour, dashed=True,
                                                                         width=1.6))
            self.curves[f"fig_{name}_union"] = p1.plot([], [], pen=pen(colour, dotted=True,
                                                                        width=1.6))
        # a legend key only (no data): what the dotted Figure 1.1 curves are
        self.curves["fig_union_key"] = p1.plot([], [], pen=pen("#555555", dotted=True,
                                                                width=1.6),
                                               name="dotted: union δ (proven)")
        self.curves["delta_exact"].setZValue(2)  # above the (nearly equal) union bound
        self.curves["epsilon_exact"].setZValue(2)
        # the ε–δ legend sits in a band above the data; the others fit in empty corners
        self._bands = {"eps_delta": (p1, "top"), "accuracy": (p4, "bottom")}
        self._legend_entries = {
            key: [(sample.item, label.text) for sample, label in legend.items]
            for key, legend in self.legends.items()}
        self._plot_y: dict[str, np.ndarray] = {}
        self._legend_hidden: dict[str, set[int]] = {}
        for plot, _ in self._bands.values():
            plot.getPlotItem().getViewBox().sigResized.connect(self._on_view_box_resized)

    # ------------------------------------------------------------------ drawing
    def apply_result(self, r: CalculatorResult) -> None:
        self._result = r
        p = r.point
        inp = r.inputs
        for key, method in (("epsilon", "union"), ("epsilon_exact", "exact"),
                            ("epsilon_mc", "mc")):
            c = r.curves.get(method)
            self.curves[key].setData(*((c.delta, c.epsilon) if c is not None else ([], [])))
        if r.curve.epsilon_approx is not None:
            self.curves["epsilon_approx"].setData(r.curve.delta, r.curve.epsilon_approx)
        else:
            self.curves["epsilon_approx"].setData([], [])
        pc = r.profile_curve
        self.curves["profile"].setData(*((pc.delta, pc.epsilon) if pc is not None else ([], [])))
        head = r.profile if r.profile is not None else p
        self.curves["point"].setData([head.delta], [head.epsilon])
        self._draw_comparison()
        dg = r.delta_gamma
        self.curves["delta_union"].setData(dg.gamma, dg.union)
        if dg.exact is not None:
            self.curves["delta_exact"].setData(dg.gamma, dg.exact)
        else:
            self.curves["delta_exact"].setData([], [])
        self.curves["delta_mc"].setData(*((dg.gamma, dg.mc) if dg.mc is not None else ([], [])))
        self._set_legend_visible(self.legends["delta_gamma"], self.curves["delta_mc"],
                                 dg.mc is not None)
        self._set_legend_visible(self.legends["delta_gamma"], self.curves["delta_exact"],
                                 dg.exact is not None)
        self.curves["gamma_point"].setData(*gamma_marker(dg, p.gamma, p.delta, p.delta_method))
        acc = r.accuracy
        self.curves["variance"].setData(acc.k, acc.variance_bound)
        self.curves["sq_error"].setData(acc.k, acc.expected_sq_error)
        self.curves["alpha_paper"].setData(acc.k, acc.alpha_paper)
        self.curves["alpha_rigorous"].setData(acc.k, acc.alpha_rigorous)
        self.k_line.setValue(math.log10(inp.k))
        self.k_line.show()
        self.curves["k_point"].setData([inp.k], [head.epsilon])
        self._plot_y["delta_gamma"] = np.concatenate(
            [dg.union] + [a for a in (dg.exact, dg.mc) if a is not None])
        self._plot_y["accuracy"] = np.concatenate(
            [acc.variance_bound, acc.expected_sq_error, acc.alpha_paper, acc.alpha_rigorous])
        self._fit_ranges()
        self._fill_results(r)
        self._hooks.show_warnings(r)
        self.set_k_title(updating=self._hooks.k_runner.is_running)

    def _preset_of(self, inp: CalculatorInputs) -> str | None:
        return next((name for name, cfg in FIGURE_1_1.items()
                     if all(getattr(inp, key) == value for key, value in cfg.items())), None)

    def _draw_comparison(self) -> None:
        """Plot 1: the current curves (union δ, proven; Lemma 1.2 δ, as in Figure 1.1; MC
        if chosen), or the three Figure 1.1 curves (compare mode)."""
        r = self._result
        compare = self._hooks.compare_on()
        current = self._preset_of(r.inputs) if r is not None else None
        show_current = r is not None and not (compare and current is not None)
        legend = self.legends["eps_delta"]
        for name in FIGURE_COLOURS:
            c = self.figure_curves.get(name) if compare else None
            u = self.figure_union_curves.get(name) if compare else None
            self.curves[f"fig_{name}"].setData(*((c.delta, c.epsilon) if c else ([], [])))
            self.curves[f"fig_{name}_approx"].setData(
                *((c.delta, c.epsilon_approx) if c and c.epsilon_approx is not None
                  else ([], [])))
            self.curves[f"fig_{name}_union"].setData(*((u.delta, u.epsilon) if u
                                                       else ([], [])))
            self._set_legend_visible(legend, self.curves[f"fig_{name}"], c is not None)
        self._set_legend_visible(legend, self.curves["fig_union_key"],
                                 compare and bool(self.figure_union_curves))
        for key in ("epsilon", "epsilon_exact", "epsilon_mc", "epsilon_approx"):
            self.curves[key].setVisible(show_current)
        has_profile = r is not None and r.profile_curve is not None
        self.curves["profile"].setVisible(has_profile)  # the headline: always shown
        self._set_legend_visible(legend, self.curves["profile"], has_profile)
        has_approx = r is not None and r.curve.epsilon_approx is not None
        available = set(r.curves) if r is not None else set()
        for key, method in (("epsilon", "union"), ("epsilon_exact", "exact"),
                            ("epsilon_mc", "mc")):
            self._set_legend_visible(legend, self.curves[key],
                                     show_current and method in available)
        self._set_legend_visible(legend, self.curves["epsilon_approx"],
                                 show_current and has_approx)
        ys: list[np.ndarray] = []
        if r is not None:
            ys.append(np.array([r.point.epsilon]))
            if show_current:
                ys += [c.epsilon for c in r.curves.values()]
                if has_approx:
                    ys.append(r.curve.epsilon_approx)  # type: ignore[arg-type]
            if r.profile_curve is not None:
                ys.append(r.profile_curve.epsilon)
        if compare:
            for c in [*self.figure_curves.values(), *self.figure_union_curves.values()]:
                ys.append(c.epsilon)
                if c.epsilon_approx is not None:
                    ys.append(c.epsilon_approx)
        self._plot_y["eps_delta"] = np.concatenate(ys) if ys else np.array([])
        if compare:
            title = "ε vs δ, Fig. 1.1 (solid: Lemma 1.2; dashed: 1.7)"
        elif current:
            title = f"ε vs δ (Figure 1.1 {current})"
        else:
            title = "ε vs δ (as in Figure 1.1)"
        self.eps_delta_plot.getPlotItem().setTitle(title, size="9.5pt")
        self._fit_ranges()

    def set_compare(self, on: bool) -> None:
        """Overlay the three Figure 1.1 configurations in the ε–δ plot (or not)."""
        self._hooks.set_compare(on)

    def on_compare_toggled(self, on: bool) -> None:
        self.start_figure_curves()
        self._draw_comparison()

    def figure_curves_wanted(self) -> bool:
        return self._hooks.compare_on() and len(self.figure_curves) < len(FIGURE_1_1)

    def start_figure_curves(self) -> None:
        """Compute the three Figure 1.1 curves once, when the main runner is idle."""
        h = self._hooks
        if self.figure_curves_wanted() and not h.fig_runner.is_running and h.idle():
            h.fig_runner.start(figure_curves)

    def on_fig_runner_succeeded(self, curves: object) -> None:
        assert isinstance(curves, dict)
        self.figure_curves = curves["exact"]
        self.figure_union_curves = curves["union"]
        self._draw_comparison()

    def on_fig_runner_failed(self, exc: object) -> None:
        self._hooks.log("ERROR", f"privacy calculator, Figure 1.1 curves: {exc}")
        self._hooks.set_compare(False)

    def _set_legend_visible(self, legend: pg.LegendItem, item: pg.PlotDataItem,
                            visible: bool) -> None:
        """Show or drop ``item``'s legend entry (hidden entries would still take a cell)."""
        key = next(k for k, v in self.legends.items() if v is legend)
        hidden = self._legend_hidden.setdefault(key, set())
        before = set(hidden)
        (hidden.discard if visible else hidden.add)(id(item))
        if hidden == before and legend.items:
            return
        legend.clear()
        for entry, name in self._legend_entries[key]:
            if id(entry) not in hidden:
                legend.addItem(entry, name)
        plot, corner = self._plots_by_legend[key]
        place_legend(plot, legend, prefer=corner)  # its size changed: anchor it again

    def _fit_ranges(self) -> None:
        """Fit each plot to its data, leaving a band for the legend (top or bottom)."""
        for key, (plot, band) in self._bands.items():
            ys = self._plot_y.get(key)
            if ys is None or ys.size == 0:
                continue
            item = plot.getPlotItem()
            log_y = item.ctrl.logYCheck.isChecked()
            y = ys[np.isfinite(ys) & ((ys > 0) if log_y else True)]
            if y.size == 0:
                continue
            y = np.log10(y) if log_y else y
            lo, hi = float(y.min()), float(y.max())
            if key == "eps_delta":
                lo = min(lo, 0.0)  # ε >= 0: show the axis from 0
            span = max(hi - lo, 0.5 if log_y else 1e-3)
            lo, hi = lo - 0.04 * span, hi + 0.04 * span
            vb = item.getViewBox()
            legend = self.legends[key]
            f = min(0.6, (legend.boundingRect().height() + 10.0) / vb.height()) \
                if vb.height() > 1 else 0.35
            full = (hi - lo) / (1.0 - f)
            item.setYRange(lo, lo + full, padding=0) if band == "top" else \
                item.setYRange(hi - full, hi, padding=0)
            if key == "eps_delta":
                item.setXRange(-6.05, 0.05, padding=0)

    def _on_view_box_resized(self, *args: object) -> None:
        self._fit_ranges()

    def instant_readout(self, inp: CalculatorInputs) -> None:
        """ε and δ of the proven (union) method at once, on the UI thread: the point costs
        well under a millisecond, while the curves (and the exact method's overlay) follow
        from the worker. Other methods wait for the worker."""
        L = getattr(self, "result_labels", None)
        if L is None or inp.delta_method not in ("auto", "union"):
            return  # (not built yet, or a method that needs the worker)
        try:
            p = dirichlet_privacy(inp.k, inp.eta, inp.eta_bar, inp.w, inp.b, gamma=inp.gamma,
                                  delta_target=inp.delta_target, delta_method="union")
        except (InputError, ValueError, ArithmeticError):
            return  # the worker reports it with the rest
        L["epsilon"].setText(_epsilon_html(p))
        L["delta"].setText(_delta_html(p))

    def _fill_results(self, r: CalculatorResult) -> None:
        p = r.point
        inp = r.inputs
        L = self.result_labels
        grey = "<span style='color:#555'>"
        L["profile"].setText(_profile_html(r))
        if r.profile is not None and r.profile.worst_pair is not None:
            x, y, d = r.profile.worst_pair
            L["profile"].setToolTip(f"The worst neighbouring pair: t = xᵢ/(xᵢ+xⱼ) is "
                                    f"Beta({x + d:.4g}, {y:.4g}) under one row and "
                                    f"Beta({x:.4g}, {y + d:.4g}) under the other; its "
                                    "hockey-stick divergence at this ε is the target δ.")
        L["epsilon"].setText(_epsilon_html(p))
        details = [p.delta_label]
        if p.delta_vertex_A is not None and p.delta_vertex_B is not None:
            details.append(f"vertex A: {p.delta_vertex_A:.6g}, vertex B: {p.delta_vertex_B:.6g}")
        if p.delta_estimate is not None:
            details.append(f"Monte Carlo point estimate: {p.delta_estimate:.6g}")
        warn = [pretty_message(t) for f, t in r.warnings if f == "delta"]
        lemma = [pretty_message(t) for f, t in r.warnings if f == "delta_method"]
        text = _delta_html(p)
        if warn:
            text += f" <span style='color:{WARNING_COLOUR}'>⚠ vertex B minimises</span>"
            details += warn
        details += lemma
        L["delta"].setText(text)
        L["delta"].setToolTip("\n".join(details) + f"\n\n{self._delta_tip}")
        self._fill_compare(r)
        if inp.delta_target is not None:
            L["gamma"].setText(f"{fmt_value(p.gamma)} {grey}— γ*, the largest γ with "
                               f"δ ≤ {inp.delta_target:g}</span>")
        else:
            L["gamma"].setText(f"{fmt_value(p.gamma)} {grey}— fixed (γ < 1/|W| = {1 / inp.w:.4g})"
                               "</span>")
        why = [pretty_message(t) for f, t in r.warnings if f == "epsilon_approx"]
        if p.epsilon_approx is not None:
            L["epsilon_approx"].setText(
                f"{fmt_value(p.epsilon_approx)} {grey}— ε + "
                f"{fmt_value(p.epsilon_approx - p.epsilon, 6)} for every δ</span>")
            L["epsilon_approx"].setToolTip(self._approx_tip)
        else:
            L["epsilon_approx"].setText(f"<span style='color:{WARNING_COLOUR}'>⚠ not available "
                                        "for these parameters</span>")
            L["epsilon_approx"].setToolTip("\n".join(why) + f"\n\n{self._approx_tip}")
        k = inp.k
        n = inp.n_entries
        L["variance"].setText(f"{fmt_value(1.0 / (4.0 * (k + 1.0)), 4)} {grey}= 1/(4(k+1)), "
                              "worst case pᵢ = ½</span>")
        L["sq_error"].setText(f"{fmt_value((1.0 - 1.0 / n) / (k + 1.0), 4)} {grey}— p uniform, "
                              f"n = {n}</span>")
        a_paper = math.sqrt(math.log(1.0 / inp.beta) / (2.0 * (k + 1.0)))
        a_rig = math.sqrt(math.log(2.0 * n / inp.beta) / (2.0 * (k + 1.0)))
        L["alpha"].setText(f"paper {fmt_value(a_paper, 4)} · rigorous {fmt_value(a_rig, 4)}")
        self.result_names["alpha"].setText(f"α (β = {inp.beta:g})")
        self.results_box.setTitle("Result (what-if)")

    def _fill_compare(self, r: CalculatorResult) -> None:
        """The 'other δ method' row: the exact (Lemma 1.2) ε beside the proven one, or the
        proven (union) ε beside the exact one; the Figure 1.1 values come from here."""
        p, inp = r.point, r.inputs
        grey = "<span style='color:#555'>"
        name, value = self.result_names["compare"], self.result_labels["compare"]
        at = (f"at δ ≤ {inp.delta_target:g}" if inp.delta_target is not None
              else f"at γ = {inp.gamma:g}")
        other = "exact" if p.delta_method != "exact" else "union"
        q = r.points.get(other)
        if other == "exact":
            name.setText("ε, Lemma 1.2 δ")
            if q is None:
                why = (f"|W| = {inp.w} > 3" if inp.w > 3
                       else "k·η or k·η̄ < 1 (premise of Lemma 1.2)")
                value.setText(f"– {grey}no vertex reduction here: {why}</span>")
                value.setToolTip(self._compare_tip)
                return
            preset = self._preset_of(inp)
            source = (f"the value of Figure 1.1 {preset} (dissertation; spec §4.3)" if preset
                      else "the method of Figure 1.1")
            value.setText(f"{fmt_value(q.epsilon)} {grey}{at} (δ = {fmt_value(q.delta)}, γ = "
                          f"{fmt_value(q.gamma)}) — {source}: vertex reduction of Lemma 1.2, "
                          "unproven</span>")
            value.setToolTip(f"{q.delta_label}\n\n{self._compare_tip}")
        else:
            name.setText("ε, union δ")
            assert q is not None  # the union bound always applies
            value.setText(f"{fmt_value(q.epsilon)} {grey}{at} (δ = {fmt_value(q.delta)}, γ = "
                          f"{fmt_value(q.gamma)}) — the proven union bound</span>")
            value.setToolTip(f"{q.delta_label}\n\n{self._compare_tip}")

    def apply_k_result(self, r: EpsilonVsK) -> None:
        self._k_result = r
        self.curves["k_epsilon"].setData(r.k, r.epsilon)
        self.curves["k_epsilon_approx"].setData(r.k, r.epsilon_approx)
        self._set_legend_visible(self.legends["eps_k"], self.curves["k_epsilon_approx"],
                                 bool(np.isfinite(r.epsilon_approx).any()))
        self._plot_y["eps_k"] = np.concatenate([r.epsilon, r.epsilon_approx])
        self._fit_ranges()
        self.set_k_title(updating=False)

    def set_k_title(self, *, updating: bool) -> None:
        inp = self._hooks.last_valid()
        if inp is None:
            return
        at = (f"target δ = {inp.delta_target:g}" if inp.delta_target is not None
              else f"γ = {inp.gamma:g}")
        r = self._k_result
        if r is not None:
            at = (f"target δ = {r.delta_target:g}" if r.delta_target is not None
                  else f"γ = {r.fixed_gamma:g}")
        method = r.delta_method if r is not None else self._method_of(inp)
        how = {"profile": "exact profile", "union": "Thm 1.6, union δ",
               "exact": "Lemma 1.2 δ, unproven", "mc": "Monte Carlo δ"}[method]
        suffix = " <span style='color:#888'>(updating…)</span>" if updating else ""
        self.eps_k_plot.getPlotItem().setTitle(f"ε vs k at {at} ({how}){suffix}",
                                               size="9.5pt")

    @staticmethod
    def _method_of(inp: CalculatorInputs) -> str:
        if inp.delta_method == "auto":
            return "profile" if inp.delta_target is not None else "union"
        return inp.delta_method
