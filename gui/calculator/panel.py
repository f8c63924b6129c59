"""The Privacy Calculator workspace: (ε, δ) of the Dirichlet mechanism, what-if.

Parameters on top (a spin box and a slider each, one-sentence tooltips), the result and
accuracy figures beside them, and four live plots below:

1. ε against δ — ε of Theorem 1.6 with δ by the union bound (proven: the default), ε with
   δ by the source's vertex reduction ([D] Lemma 1.2, whose printed proof has a gap:
   numerically supported, not proven) as a second series, and Lemma 1.7's approximation.
   The second series is Figure 1.1 of the dissertation (three buttons set its
   configurations; "compare all three" overlays them);
2. ε against k at the chosen δ̂ (or γ), with the chosen δ method;
3. δ against γ: the union bound (proven), the vertex reduction (Lemma 1.2) and Monte Carlo
   if chosen;
4. the accuracy of Dir_k against k: variance bound, E‖x − p‖² and the radius α.

Every change is validated at once on the UI thread (cheap). A bad value turns its field
red, with the reason in its tooltip and beside it, and the plots keep their last valid
state. Valid changes are rate-limited (a single-shot timer, :data:`THROTTLE_MS`) and
computed by :func:`core.privacy.calculator.evaluate_calculator` in a
:class:`gui.shell.workers.TaskRunner`; while a computation runs, newer parameters wait and
replace one another, so a dragged slider redraws at the speed of the computation (with a
coarser curve while the handle is held). ε against k, slower, has its own runner and is
recomputed only when a parameter other than k changes.

Nothing here is a release: the calculator never touches the project or the ledger.

Layout of the package: texts, parameter specs and the parameter row are
:mod:`gui.calculator.parts`, the memoised worker tasks :mod:`gui.calculator.compute`, the
result box and the plots :mod:`gui.calculator.drawing` (a mixin of the panel).
Over 600 lines: the panel's construction and its throttled update pipeline (slider drags, draft and
full computations in three runners) belong together.
"""

from __future__ import annotations

import html
import time
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.common.errors import InputError
from core.privacy.calculator import (
    FIGURE_1_1,
    CalculatorInputs,
    CalculatorResult,
    EpsilonDeltaCurve,
    EpsilonVsK,
    default_k_grid,
    k_for_epsilon,
)
from gui.calculator.compute import (
    epsilon_vs_k_task,
    evaluate_task,
)
from gui.calculator.drawing import CalculatorDrawing
from gui.calculator.parts import (
    DRAFT_POINTS,
    FIGURE_COLOURS,
    LEFT_COLUMN,
    LEMMA_NOTE,
    METHODS,
    N_POINTS,
    PARAMETERS,
    RIGHT_COLUMN,
    THROTTLE_MS,
    TOOLTIPS,
    WARNING_COLOUR,
    ParameterRow,
)
from gui.shell.document import ProjectDocument
from gui.shell.plots import add_legend, make_plot, pen
from gui.shell.style import ERROR_COLOUR, INVALID_STYLE, OKABE_ITO, PRIVATE_ACCENT, pretty_message
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, info_panel
from gui.shell.workers import TaskRunner

__all__ = ["PrivacyCalculatorPanel", "preview"]

class PrivacyCalculatorPanel(CalculatorDrawing, QWidget):
    """The Privacy Calculator workspace (a main-window tab)."""

    result_applied = Signal()  # the point result and the fast curves were redrawn
    k_curve_applied = Signal()  # the ε-vs-k curve was redrawn
    message_logged = Signal(str, str)  # level, text (the Log dock listens)
    running_changed = Signal(bool)  # never emitted: the calculator recomputes as you type
    can_run = False  # Workspace protocol: nothing for F5 to start

    def __init__(self, document: ProjectDocument | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self._k_runner = TaskRunner(self)
        self._fig_runner = TaskRunner(self)
        # Figure 1.1 by configuration: the figure's own curves (vertex reduction of
        # Lemma 1.2) and the proven union-bound curves of the same configurations
        self.figure_curves: dict[str, EpsilonDeltaCurve] = {}
        self.figure_union_curves: dict[str, EpsilonDeltaCurve] = {}
        # (inputs, γ-grid size, time of the change that asked for them)
        self._pending: tuple[CalculatorInputs, int, float | None] | None = None
        self._running_points = 0
        self._running_since: float | None = None
        self._last_valid: CalculatorInputs | None = None
        self._result: CalculatorResult | None = None
        self._k_result: EpsilonVsK | None = None
        self._k_key_wanted: tuple[Any, ...] | None = None
        self._k_key_running: tuple[Any, ...] | None = None
        self._k_key_applied: tuple[Any, ...] | None = None
        self._result_points = 0
        self.last_latency_s: float | None = None
        self.latencies_s: list[float] = []
        self._closed = False
        self.setObjectName("privacy_calculator")

        self._last_w = int(PARAMETERS["w"].default)
        self._throttle = QTimer(self)
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(THROTTLE_MS)
        self._throttle.timeout.connect(self._on_throttle_timeout)

        self._build_parameters()
        self._build_results()
        self._build_plots()
        self.info_panel = self._build_info_panel()

        title = QLabel("<b>Privacy Calculator</b> — (ε, δ) of the Dirichlet mechanism Dir<sub>k"
                       "</sub>: the exact privacy profile, with Theorem 1.6 beside it. "
                       "<i>What-if only: nothing here is recorded or released.</i>", self)
        title.setWordWrap(True)
        self.preset_buttons: dict[str, QPushButton] = {}
        presets = QHBoxLayout()
        presets.setSpacing(4)
        presets.addWidget(QLabel("Figure 1.1:", self))
        for name, cfg in FIGURE_1_1.items():
            button = QPushButton(name, self)
            button.setToolTip(f"Figure 1.1 {name}: k = {cfg['k']:g}, η = η̄ = {cfg['eta']:g}, "
                              f"|W| = {cfg['w']}, b = {cfg['b']:g} (target-δ mode: the headline "
                              "is the exact profile; the figure's own values, from the vertex "
                              "reduction of "
                              "Lemma 1.2, and the union bound are shown beside it).")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, n=name: self.apply_preset(n))
            self.preset_buttons[name] = button
            presets.addWidget(button)
        self.compare_check = QCheckBox("compare all three", self)
        self.compare_check.setToolTip(
            "Overlay the ε–δ curves of the three Figure 1.1 configurations as in the "
            "dissertation's figure (solid: ε of Theorem 1.6 with δ by the vertex reduction of "
            "Lemma 1.2, whose printed proof has a gap; dashed: Lemma 1.7), with the proven "
            "union-bound curves dotted.")
        self.compare_check.toggled.connect(self._on_compare_check_toggled)
        presets.addWidget(self.compare_check)
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addLayout(presets)

        top = QWidget(self)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.parameters_box, 11)
        top_layout.addWidget(self.results_box, 9)
        plots = QWidget(self)
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        grid.addWidget(self.eps_delta_plot, 0, 0)
        grid.addWidget(self.eps_k_plot, 0, 1)
        grid.addWidget(self.delta_gamma_plot, 1, 0)
        grid.addWidget(self.accuracy_plot, 1, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(top)
        self.splitter.addWidget(plots)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.status_label = QLabel(self)
        self.status_label.setStyleSheet("color: #555;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.status_label)

        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.finished.connect(self._on_runner_finished)
        self._k_runner.succeeded.connect(self._on_k_runner_succeeded)
        self._k_runner.failed.connect(self._on_k_runner_failed)
        self._k_runner.finished.connect(self._on_k_runner_finished)
        self._fig_runner.succeeded.connect(self._on_fig_runner_succeeded)
        self._fig_runner.failed.connect(self._on_fig_runner_failed)
        self._parameters_changed()
        if self._pending is not None:  # the first computation is not a user's change
            self._pending = (self._pending[0], self._pending[1], None)

    # ------------------------------------------------------------------ construction
    def _build_parameters(self) -> None:
        box = QGroupBox("Parameters", self)
        grid = QGridLayout(box)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        self.rows: dict[str, ParameterRow] = {}
        self.mode_group = QButtonGroup(self)
        self.delta_radio = QRadioButton("target δ", box)
        self.gamma_radio = QRadioButton("γ", box)
        self.delta_radio.setChecked(True)
        self.mode_group.addButton(self.delta_radio)
        self.mode_group.addButton(self.gamma_radio)
        self.method_combo = QComboBox(box)
        for key, text in METHODS:
            self.method_combo.addItem(text, key)
        self.method_combo.setToolTip(TOOLTIPS["delta_method"])
        self.method_message = QLabel(box)
        self.method_message.setTextFormat(Qt.TextFormat.PlainText)
        self.method_message.setWordWrap(True)
        self.method_message.hide()
        for col, keys in enumerate((LEFT_COLUMN, RIGHT_COLUMN)):
            c0 = col * 4
            for i, key in enumerate(keys):
                r = 2 * i
                if key == "delta_method":
                    label = QLabel("δ method", box)
                    label.setToolTip(TOOLTIPS[key])
                    grid.addWidget(label, r, c0)
                    grid.addWidget(self.method_combo, r, c0 + 1, 1, 2)
                    grid.addWidget(self.method_message, r + 1, c0, 1, 3)
                    continue
                label_widget: QLabel | QRadioButton
                if key == "delta":
                    label_widget = self.delta_radio
                elif key == "gamma":
                    label_widget = self.gamma_radio
                else:
                    label_widget = QLabel(PARAMETERS[key].label, box)
                row = ParameterRow(key, box, label_widget)
                self.rows[key] = row
                grid.addWidget(label_widget, r, c0)
                grid.addWidget(row.spin, r, c0 + 1)
                grid.addWidget(row.slider, r, c0 + 2)
                grid.addWidget(row.message, r + 1, c0, 1, 3)
        self.delta_radio.setToolTip("Solve for the best γ given a target δ (the corrected "
                                    "problem (1.23)). " + TOOLTIPS["delta"])
        self.gamma_radio.setToolTip("Fix γ and compute the δ it gives. " + TOOLTIPS["gamma"])
        spacer = QFrame(box)
        spacer.setFixedWidth(10)
        grid.addWidget(spacer, 0, 3)
        grid.setColumnStretch(2, 1)
        grid.setColumnStretch(6, 1)
        self.parameters_box = box

        for row in self.rows.values():
            row.spin.valueChanged.connect(self._on_parameter_changed)
            row.slider.sliderReleased.connect(self._on_slider_released)
        self.method_combo.currentIndexChanged.connect(self._on_parameter_changed)
        self.delta_radio.toggled.connect(self._on_mode_toggled)
        self._on_mode_toggled(True)

    def _build_results(self) -> None:
        box = QGroupBox("Result (what-if)", self)
        form = QFormLayout(box)
        form.setVerticalSpacing(2)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.result_labels: dict[str, QLabel] = {}
        self.result_names: dict[str, QLabel] = {}
        rows = (
            ("profile", "ε (exact profile)", "The default accountant: the smallest ε whose "
                                             "hockey-stick divergence at the worst "
                                             "neighbouring pair (found exactly: shapes kη, "
                                             "the largest move) is at most the target δ. "
                                             "Tight — a neighbouring pair attains it — and "
                                             "certified; no threshold γ. Smaller is more "
                                             "private."),
            ("epsilon", "ε (Theorem 1.6)", "The paper's statement: the privacy loss bound on "
                                           "Ω₁ (a threshold set), with δ below. Proven but "
                                           "loose; smaller is more private."),
            ("delta", "δ", "Probability that the output falls outside Ω₁, where ε is not "
                           "guaranteed: smaller is more private. By default (auto) it is the "
                           "union bound |W|·I_γ(kη, k(1−η)), proven for every input; 'exact' "
                           "is the source's vertex reduction (Lemma 1.2), whose printed proof "
                           "has a gap: numerically supported, not proven."),
            ("gamma", "γ", "The Ω₁ threshold used: γ* (the largest γ with δ ≤ the target) or the "
                           "fixed γ."),
            ("compare", "ε, other δ", "The same statement with the other δ method: with the "
                                      "proven union bound, the source's vertex reduction of "
                                      "Lemma 1.2 (the method of Figure 1.1 and of the spec's "
                                      "reference values; unproven), and the other way round."),
            ("epsilon_approx", "ε (Lemma 1.7)", "The simplified ε of Lemma 1.7: ε plus a "
                                                "constant offset (needs k·η > 1 etc.)."),
            ("variance", "Var[xᵢ] ≤", "Lemma 1.8: Var[xᵢ] = pᵢ(1−pᵢ)/(k+1) ≤ 1/(4(k+1))."),
            ("sq_error", "E‖x − p‖²", "Expected squared error (1 − ‖p‖²)/(k+1) at the "
                                      "uniform p of length n."),
            ("alpha", "α", "Radius with P(‖x − p‖∞ ≥ α) ≤ β: Lemma 2.2 as published "
                               "(paper) and a rigorous union bound over the n entries."),
        )
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
        self.target_button.clicked.connect(self.find_k_for_target)
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
            "eps_delta": add_legend(self.eps_delta_plot, "top-right", columns=2),
            "eps_k": add_legend(self.eps_k_plot, "top-left"),
            "delta_gamma": add_legend(self.delta_gamma_plot, "bottom-right"),
            "accuracy": add_legend(self.accuracy_plot, "bottom-left", columns=2),
        }
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

    def _build_info_panel(self) -> QWidget:
        return info_panel(
            "<b>Privacy Calculator</b><p>A what-if tool: set the parameters of the Dirichlet "
            "mechanism Dir<sub>k</sub> and see its (ε, δ), its accuracy and how they trade "
            "off. Nothing here is recorded in the project or counted as a release.</p>"
            "<p><b>How the numbers are made.</b> The headline ε (black curve, star) is the "
            "<i>exact privacy profile</i>: the hockey-stick curve of the worst neighbouring "
            "pair — two Beta laws with shapes kη and the largest move — evaluated with "
            "certified numerics. It is tight: that pair needs exactly this ε. The other curves "
            "are the paper's Theorem 1.6 with the corrected v₂; γ* "
            "for a target δ is the <i>largest</i> γ with δ(γ) ≤ target (the corrected problem "
            "(1.23)). Its δ is by default the union bound |W|·I<sub>γ</sub>(kη, k(1−η)), "
            "proven for every input. The δ method <i>exact</i> (|W| ≤ 3) is the source's "
            "vertex reduction: a certified quadrature at the domain's vertices, which are the "
            "worst inputs only if Lemma 1.2 holds — and the lemma's printed proof has a gap "
            "(the density is not jointly log-concave in (x, p)), so it is numerically "
            "supported, not proven. Monte Carlo is an estimate at the vertices (95% upper "
            "confidence limit). The result always says which.</p>"
            "<p><b>Figure 1.1</b>: the three buttons set the dissertation's configurations "
            "(|W| = 3, b = 0.1). The top-left plot shows the exact profile, the proven (union) "
            "curve and the figure's own curve (vertex reduction of Lemma 1.2); the result box "
            "gives them at the target (Figure 1.1 left at δ = 0.05: 0.599 exact profile, "
            "2.516 by Lemma 1.2, 2.521 by the union bound). <i>Find k</i> gives the largest k "
            "whose exact profile meets a target ε.</p>"
            "<p>Hover any parameter for what it means and which way is more private. A red "
            "field says why beside it; the plots then keep the last valid state.</p>")

    # ------------------------------------------------------------------ public API
    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def k_runner(self) -> TaskRunner:
        return self._k_runner

    @property
    def result(self) -> CalculatorResult | None:
        """The result shown (the last valid one)."""
        return self._result

    @property
    def k_result(self) -> EpsilonVsK | None:
        return self._k_result

    @property
    def is_busy(self) -> bool:
        """True while anything is still to be computed or drawn."""
        return (self._throttle.isActive() or self._pending is not None
                or self._runner.is_running or self._k_runner.is_running
                or self._fig_runner.is_running or self._figure_curves_wanted()
                or (self._k_key_wanted is not None and self._k_key_wanted != self._k_key_shown()))

    def inputs(self) -> CalculatorInputs:
        """The parameters in the widgets (not yet validated)."""
        v = {key: row.value() for key, row in self.rows.items()}
        in_delta_mode = self.delta_radio.isChecked()
        return CalculatorInputs(
            k=v["k"], eta=v["eta"], eta_bar=v["eta_bar"], w=int(v["w"]), b=v["b"],
            delta_target=v["delta"] if in_delta_mode else None,
            gamma=None if in_delta_mode else v["gamma"],
            delta_method=str(self.method_combo.currentData()), beta=v["beta"], n=int(v["n"]))

    def find_k_for_target(self) -> float | None:
        """Set k to the largest k whose exact-profile ε meets the target ε (and say so)."""
        inp = self.inputs()
        target = float(self.target_spin.value())
        if inp.delta_target is None:
            self.target_label.setText("Give a target δ (not a fixed γ): the exact profile "
                                      "has no threshold.")
            return None
        try:
            spec = PARAMETERS["k"]  # the calculator's own range of k
            k = k_for_epsilon(target, inp.eta, inp.eta_bar, inp.w, inp.b,
                              delta=inp.delta_target, k_range=(spec.minimum, spec.maximum))
        except InputError as exc:
            self.target_label.setText(f"<span style='color:{ERROR_COLOUR}'>"
                                      f"{html.escape(pretty_message(str(exc)))}</span>")
            return None
        if k is None:
            self.target_label.setText(
                f"<span style='color:{ERROR_COLOUR}'>No k in [{PARAMETERS['k'].minimum:g}, "
                f"{PARAMETERS['k'].maximum:g}] reaches ε = {target:g} at δ = "
                f"{inp.delta_target:g} with these η, b: raise η or lower b.</span>")
            return None
        self.set_parameters(k=k)
        self.target_label.setText(f"k = {k:.4g} is the largest k with ε ≤ {target:g} at δ = "
                                  f"{inp.delta_target:g} (exact profile); set.")
        return k

    def set_parameters(self, **values: Any) -> None:
        """Set several parameters at once and request one update.

        Keys: the :data:`PARAMETERS` names, ``mode`` ("delta" or "gamma") and
        ``delta_method``.
        """
        mode = values.pop("mode", None)
        method = values.pop("delta_method", None)
        unknown = set(values) - set(self.rows)
        if unknown:
            raise KeyError(f"unknown calculator parameters: {sorted(unknown)}")
        blocked = [w.blockSignals(True) for w in self._signal_sources()]
        try:
            for key, value in values.items():
                self.rows[key].set_value(value)
            if mode is not None:
                (self.delta_radio if mode == "delta" else self.gamma_radio).setChecked(True)
            if method is not None:
                self.method_combo.setCurrentIndex(self.method_combo.findData(method))
        finally:
            for w, was in zip(self._signal_sources(), blocked):
                w.blockSignals(was)
        if "w" in values and "n" not in values:
            self._follow_w()
        self._last_w = int(self.rows["w"].value())
        for row in self.rows.values():  # sliders follow (their signals were blocked too)
            row.slider._sync_from_spin()
        self._on_mode_toggled(self.delta_radio.isChecked())

    def apply_preset(self, name: str) -> None:
        """Set a Figure 1.1 configuration (δ̂ mode, δ method auto) in one step."""
        cfg = FIGURE_1_1[name]
        self.set_parameters(k=cfg["k"], eta=cfg["eta"], eta_bar=cfg["eta_bar"], w=cfg["w"],
                            b=cfg["b"], n=int(cfg["w"]) + 1, mode="delta",
                            delta_method="auto")

    # ------------------------------------------------------------------ Workspace protocol
    # A what-if tool recomputes as you type; there is no run to start: the window's Run (F5)
    # and Cancel (Esc) do nothing here.
    @property
    def is_running(self) -> bool:
        return False

    def randomness_label(self) -> str:
        return ""

    def run(self) -> bool:
        return False

    def cancel(self) -> None:
        pass

    def shutdown(self) -> None:
        """Stop the timers and workers (the main window calls this when closing)."""
        self._closed = True
        self._throttle.stop()
        self._pending = None
        self._runner.shutdown()
        self._k_runner.shutdown()
        self._fig_runner.shutdown()

    # ------------------------------------------------------------------ update pipeline
    def _signal_sources(self) -> list[QWidget]:
        return ([r.spin for r in self.rows.values()] + [r.slider for r in self.rows.values()]
                + [self.method_combo, self.delta_radio, self.gamma_radio])

    def _drafting(self) -> bool:
        return any(r.slider.isSliderDown() for r in self.rows.values())

    def _parameters_changed(self) -> None:
        """Validate now; if valid, request a computation (rate-limited)."""
        if self._closed:
            return
        t_changed = time.perf_counter()
        inputs = self.inputs()
        try:
            warnings = inputs.check()
        except InputError as exc:
            self._show_validation(exc, ())
            self._pending = None
            if self._result is not None:
                self.results_box.setTitle("Result (what-if) — for the last valid parameters")
            self.status_label.setText(
                f"<span style='color:{ERROR_COLOUR}'>Fix the red field: "
                f"{html.escape(self._error_text(exc))}.</span> The plots keep the last valid "
                "parameters.")
            return
        self._show_validation(None, warnings)
        self._last_valid = inputs
        self._instant_readout(inputs)
        n_points = DRAFT_POINTS if self._drafting() else N_POINTS
        if (self._result is not None and inputs == self._result.inputs
                and self._result_points == n_points and not self._runner.is_running):
            self._pending = None  # already shown
            self._show_result_warnings(self._result)
            return
        self._pending = (inputs, n_points, t_changed)
        if not self._throttle.isActive():
            self._throttle.start()

    def _on_throttle_timeout(self) -> None:
        self._start_pending()
        # ε vs k waits for the point result and the fast curves (the user sees those first)
        if self._pending is None and not self._drafting() and not self._runner.is_running:
            self._start_k_curve()

    def _start_pending(self) -> None:
        if self._pending is None or self._runner.is_running or self._closed:
            return
        inputs, n_points, since = self._pending
        self._pending = None
        self._running_points = n_points
        self._running_since = since
        if self._result is None or inputs != self._result.inputs or n_points == N_POINTS:
            self.status_label.setText("Computing…")
        self._runner.start(evaluate_task, inputs, n_points=n_points)

    def _k_curve_key(self, inputs: CalculatorInputs) -> tuple[Any, ...]:
        ks = tuple(default_k_grid(inputs.k).tolist())
        return (inputs.eta, inputs.eta_bar, inputs.w, inputs.b, inputs.delta_target,
                inputs.gamma, inputs.delta_method, ks)

    def _k_key_shown(self) -> tuple[Any, ...] | None:
        return self._k_key_applied

    def _start_k_curve(self) -> None:
        inputs = self._last_valid
        if inputs is None or self._closed:
            return
        key = self._k_curve_key(inputs)
        self._k_key_wanted = key
        if key == self._k_key_shown() or key == self._k_key_running:
            return
        self._k_key_running = key
        self._set_k_title(updating=True)
        self._k_runner.start(epsilon_vs_k_task, key)

    # ------------------------------------------------------------------ validation display
    def _error_text(self, exc: InputError) -> str:
        field = exc.field or ""
        label = PARAMETERS[field].label if field in PARAMETERS else pretty_message(field)
        return f"{label}: {pretty_message(exc.problem)}" if label else pretty_message(str(exc))

    def _show_validation(self, exc: InputError | None,
                         warnings: tuple[tuple[str, str], ...]) -> None:
        field = exc.field if exc is not None else None
        if field == "gamma" and self.delta_radio.isChecked():
            field = "delta"
        for key, row in self.rows.items():
            if key == field:
                row.show_message(error=self._error_text(exc))  # type: ignore[arg-type]
            else:
                row.show_message(**self._warning_texts(key, warnings))
        if field == "delta_method":
            self.method_combo.setStyleSheet(INVALID_STYLE)
            self.method_message.setText(f"✖ {self._error_text(exc)}")
            self.method_message.setStyleSheet(f"color: {ERROR_COLOUR};")
            self.method_message.show()
            self.method_combo.setToolTip(f"{self._error_text(exc)}\n\n"
                                         f"{TOOLTIPS['delta_method']}")
        else:
            self.method_combo.setStyleSheet("")
            self.method_combo.setToolTip(TOOLTIPS["delta_method"])
            lemma = [t for f, t in warnings if f == "delta_method"]
            self.method_message.setText(LEMMA_NOTE if lemma else "")
            self.method_message.setToolTip(pretty_message(lemma[0]) if lemma else "")
            self.method_message.setStyleSheet(f"color: {WARNING_COLOUR};")
            self.method_message.setVisible(bool(lemma))
        if exc is not None and field not in self.rows and field != "delta_method":
            self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>"
                                      f"{html.escape(self._error_text(exc))}</span>")

    def field_error(self, key: str) -> str:
        """The error shown beside parameter ``key`` ('' if none)."""
        if key == "delta_method":
            text = self.method_message.text() if self.method_message.isVisibleTo(self) else ""
            return text if text.startswith("✖") else ""
        return self.rows[key].error

    def field_warning(self, key: str) -> str:
        """The warning shown beside parameter ``key`` ('' if none)."""
        if key == "delta_method":
            text = self.method_message.text() if self.method_message.isVisibleTo(self) else ""
            return text if text.startswith("⚠") else ""
        return self.rows[key].warning

    # ------------------------------------------------------------------ slots
    def _on_parameter_changed(self, *args: object) -> None:
        self._follow_w()
        self._parameters_changed()

    def _follow_w(self) -> None:
        """n follows |W| + 1 (the smallest n) unless the user chose a larger n."""
        w = int(self.rows["w"].value())
        n_row = self.rows["n"]
        if w != self._last_w and (int(n_row.value()) == self._last_w + 1
                                  or int(n_row.value()) < w + 1):
            was = n_row.spin.blockSignals(True)
            n_row.set_value(w + 1)
            n_row.spin.blockSignals(was)
            n_row.slider._sync_from_spin()
        self._last_w = w

    def _on_mode_toggled(self, checked: bool) -> None:
        in_delta = self.delta_radio.isChecked()
        self.rows["delta"].set_enabled(in_delta)
        self.rows["gamma"].set_enabled(not in_delta)
        self._parameters_changed()

    def _on_slider_released(self) -> None:
        # the held-down slider produced coarse curves: redo at full resolution
        self._parameters_changed()

    def _on_runner_succeeded(self, result: object) -> None:
        assert isinstance(result, CalculatorResult)
        self._result_points = self._running_points
        self._apply_result(result)
        latency = ""
        if self._running_since is not None:  # from the change to the redraw
            self.last_latency_s = time.perf_counter() - self._running_since
            self.latencies_s.append(self.last_latency_s)
            latency = f"; redrawn {self.last_latency_s:.2f} s after the change"
        points = result.curve.gamma.size
        self.status_label.setText(f"Computed in {result.elapsed_s:.2f} s ({points} points on "
                                  f"the ε–δ curve{latency}). What-if only: nothing is recorded.")
        self.result_applied.emit()

    def _on_runner_failed(self, exc: object) -> None:
        if isinstance(exc, InputError):
            self._show_validation(exc, ())
            self.status_label.setText(
                f"<span style='color:{ERROR_COLOUR}'>{html.escape(self._error_text(exc))}"
                "</span> The plots keep the last valid parameters.")
        else:
            self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>Computation failed: "
                                      f"{html.escape(type(exc).__name__)}: "
                                      f"{html.escape(str(exc))}</span>")
            self.message_logged.emit("ERROR", f"privacy calculator: {type(exc).__name__}: {exc}")

    def _on_runner_finished(self) -> None:
        self._running_since = None
        if self._pending is not None and not self._throttle.isActive():
            self._start_pending()
        self._start_figure_curves()
        if self._pending is None and not self._runner.is_running and not self._drafting():
            self._start_k_curve()

    def _on_k_runner_succeeded(self, result: object) -> None:
        assert isinstance(result, EpsilonVsK)
        key = self._k_key_running
        self._k_key_running = None
        self._k_key_applied = key
        self._apply_k_result(result)
        self.k_curve_applied.emit()

    def _on_k_runner_failed(self, exc: object) -> None:
        self._k_key_running = None
        self._k_key_wanted = None  # nothing more to wait for; the last curve stays
        self.message_logged.emit("WARNING", f"privacy calculator, ε vs k: {exc}")

    def _on_k_runner_finished(self) -> None:
        if self._k_key_running is not None and not self._k_runner.is_running:
            self._k_key_running = None  # cancelled
        if self._k_key_wanted is not None and self._k_key_wanted != self._k_key_shown() \
                and not self._drafting() and self._pending is None:
            self._start_k_curve()
        else:
            self._set_k_title(updating=False)


register_tool(ToolSpec(
    "calculator", "Privacy Calculator",
    lambda window: PrivacyCalculatorPanel(window.document, window.tabs),
    "(ε, δ) of the Dirichlet mechanism and its accuracy, with the Figure 1.1 "
    "configurations: what-if, nothing is recorded.\nDouble-click to open (Ctrl+Shift+P)."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: PrivacyCalculatorPanel(example_document()), exec_=exec_,
                       title="Privacy Calculator", size=(1250, 820))


if __name__ == "__main__":
    preview()
