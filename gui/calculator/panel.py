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
computed by :func:`core.privacy.calculator.evaluate_calculator` in the worker of
:class:`gui.shell.tool_panel.ToolPanel` (a background computation, not a run); while a
computation runs, newer parameters wait and replace one another, so a dragged slider
redraws at the speed of the computation (with a coarser curve while the handle is held).
ε against k, slower, has its own runner and is recomputed only when a parameter other than
k changes.

Nothing here is a release: the calculator never touches the project or the ledger.

The widgets build the core's parameters object :class:`core.privacy.CalculatorInputs`
through a table of (parameter row, field) pairs (:data:`gui.calculator.parts.FIELDS`); the core
validates it (:meth:`CalculatorInputs.check`), the panel only shows what it said.

Layout of the package: texts, parameter specs and the parameter row are
:mod:`gui.calculator.parts`, the memoised worker tasks :mod:`gui.calculator.compute`; the
panel keeps the layout and the throttled update pipeline (slider drags, draft and full
computations in three runners) and has two objects that take ``(document, view)``: the
parameter fields, :class:`gui.calculator.form.CalculatorForm`, and the result box and plots,
:class:`gui.calculator.drawing.CalculatorPlots`.
"""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.privacy import (
    FIGURE_1_1,
    CalculatorInputs,
    CalculatorResult,
    EpsilonVsK,
    default_k_grid,
    k_for_epsilon,
)
from gui.calculator.compute import (
    epsilon_vs_k_task,
    evaluate_task,
)
from gui.calculator.drawing import CalculatorPlots
from gui.calculator.form import CalculatorForm
from gui.calculator.parts import (
    DRAFT_POINTS,
    INFO_HTML,
    N_POINTS,
    PARAMETERS,
    THROTTLE_MS,
    ParameterRow,
)
from gui.calculator.views import FormHooks, PlotHooks
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR, pretty_message
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import info_panel
from gui.shell.workers import TaskRunner

__all__ = ["PrivacyCalculatorPanel", "preview"]

class PrivacyCalculatorPanel(ToolPanel):
    """The Privacy Calculator workspace (a main-window tab).

    A :class:`~gui.shell.tool_panel.ToolPanel` with nothing for F5 to start (``can_run``
    False: it recomputes as you type). The base's worker computes the point result (its
    ``running_changed`` is never emitted: that work is not a run); two more workers draw ε
    against k and Figure 1.1's curves.
    """

    result_applied = Signal()  # the point result and the fast curves were redrawn
    k_curve_applied = Signal()  # the ε-vs-k curve was redrawn
    can_run = False  # Workspace protocol: nothing for F5 to start
    status_name = "Privacy Calculator"
    log_name = "privacy calculator"

    def __init__(self, document: ProjectDocument | None = None,
                 parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        # what-if only: the document is never read or changed (an empty one without)
        super().__init__(document if document is not None else ProjectDocument(), parent,
                         status_bar=status_bar)
        self._k_runner = TaskRunner(self)
        self._fig_runner = TaskRunner(self)
        # (inputs, γ-grid size, time of the change that asked for them)
        self._pending: tuple[CalculatorInputs, int, float | None] | None = None
        self._running_points = 0
        self._running_since: float | None = None
        self._last_valid: CalculatorInputs | None = None
        self._k_key_wanted: tuple[Any, ...] | None = None
        self._k_key_running: tuple[Any, ...] | None = None
        self._k_key_applied: tuple[Any, ...] | None = None
        self._result_points = 0
        self.last_latency_s: float | None = None
        self.latencies_s: list[float] = []
        self._closed = False
        self.setObjectName("privacy_calculator")

        self._throttle = QTimer(self)
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(THROTTLE_MS)
        self._throttle.timeout.connect(self._on_throttle_timeout)

        self.form = CalculatorForm(FormHooks(
            self, self._on_parameter_changed, self._on_slider_released, self._on_mode_toggled,
            self.inputs, lambda text: self.status_label.setText(text)))
        self.plots = CalculatorPlots(PlotHooks(
            self, self.inputs, lambda: self._last_valid, self.form.show_result_warnings,
            self._k_runner, self._fig_runner, self._idle, self.find_k_for_target,
            self.message_logged.emit, lambda: self.compare_check.isChecked(),
            lambda on: self.compare_check.setChecked(on)))
        self.form.build()
        self.plots.build()
        plots_ = self.plots  # the widgets it builds, under the names tests and callers use
        self.results_box, self.result_labels = plots_.results_box, plots_.result_labels
        self.target_spin, self.target_label = plots_.target_spin, plots_.target_label
        self.eps_delta_plot, self.eps_k_plot = plots_.eps_delta_plot, plots_.eps_k_plot
        self.delta_gamma_plot, self.accuracy_plot = plots_.delta_gamma_plot, plots_.accuracy_plot
        self.curves, self.legends = plots_.curves, plots_.legends
        self.result_names, self.k_line = plots_.result_names, plots_.k_line
        self.alpha_note = plots_.alpha_note
        self.info_panel = info_panel(INFO_HTML)

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
        self.compare_check.toggled.connect(self.plots.on_compare_toggled)
        presets.addWidget(self.compare_check)
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addLayout(presets)

        top = QWidget(self)
        top_layout = QHBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.form.parameters_box, 11)
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

        # not connect_runner(): its status-bar progress and "cancelled — nothing was
        # recorded" are a run's; a what-if computation shows itself in status_label
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.finished.connect(self._on_runner_finished)
        self._k_runner.succeeded.connect(self._on_k_runner_succeeded)
        self._k_runner.failed.connect(self._on_k_runner_failed)
        self._k_runner.finished.connect(self._on_k_runner_finished)
        self._fig_runner.succeeded.connect(self.plots.on_fig_runner_succeeded)
        self._fig_runner.failed.connect(self.plots.on_fig_runner_failed)
        self._parameters_changed()
        if self._pending is not None:  # the first computation is not a user's change
            self._pending = (self._pending[0], self._pending[1], None)

    # ------------------------------------------------------------------ construction
    # ------------------------------------------------------------------ public API
    @property
    def k_runner(self) -> TaskRunner:
        return self._k_runner

    @property
    def result(self) -> CalculatorResult | None:
        """The result shown (the last valid one)."""
        return self.plots.result

    @property
    def k_result(self) -> EpsilonVsK | None:
        return self.plots.k_result

    @property
    def is_busy(self) -> bool:
        """True while anything is still to be computed or drawn."""
        return (self._throttle.isActive() or self._pending is not None
                or self._runner.is_running or self._k_runner.is_running
                or self._fig_runner.is_running or self.plots.figure_curves_wanted()
                or (self._k_key_wanted is not None and self._k_key_wanted != self._k_key_shown()))

    def inputs(self) -> CalculatorInputs:
        """The core's parameters object as the widgets hold it (not yet validated)."""
        return self.form.inputs()

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
            self.form.follow_w()
        self.form.last_w = int(self.rows["w"].value())
        for row in self.rows.values():  # sliders follow (their signals were blocked too)
            row.slider._sync_from_spin()
        self._on_mode_toggled(self.delta_radio.isChecked())

    @property
    def rows(self) -> dict[str, ParameterRow]:
        """The parameter rows by key (spin box, slider, message)."""
        return self.form.rows

    @property
    def delta_radio(self) -> QRadioButton:
        return self.form.delta_radio

    @property
    def gamma_radio(self) -> QRadioButton:
        return self.form.gamma_radio

    @property
    def method_combo(self) -> QComboBox:
        return self.form.method_combo

    @property
    def method_message(self) -> QLabel:
        return self.form.method_message

    def field_error(self, key: str) -> str:
        """The error shown beside parameter ``key`` ('' if none)."""
        return self.form.field_error(key)

    def field_warning(self, key: str) -> str:
        """The warning shown beside parameter ``key`` ('' if none)."""
        return self.form.field_warning(key)

    @property
    def figure_curves(self) -> dict[str, Any]:
        """Figure 1.1's own curves by configuration (once computed)."""
        return self.plots.figure_curves

    def set_compare(self, on: bool) -> None:
        """Overlay the three Figure 1.1 configurations (the 'compare all three' box)."""
        self.plots.set_compare(on)

    def apply_preset(self, name: str) -> None:
        """Set a Figure 1.1 configuration (δ̂ mode, δ method auto) in one step."""
        cfg = FIGURE_1_1[name]
        self.set_parameters(k=cfg["k"], eta=cfg["eta"], eta_bar=cfg["eta_bar"], w=cfg["w"],
                            b=cfg["b"], n=int(cfg["w"]) + 1, mode="delta",
                            delta_method="auto")

    # Workspace protocol: ToolPanel's for a tab with nothing to run (F5 and Esc do nothing)
    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        QTimer.singleShot(0, self._fit_top)

    def _fit_top(self) -> None:
        """The top pane (parameters, result) as tall as its wrapped texts need at this
        width (squeezed, the result rows were drawn over each other); at most half."""
        top = self.splitter.widget(0)
        if top is not None and not self._closed and top.hasHeightForWidth():
            top.setMinimumHeight(min(top.heightForWidth(top.width()), self.height() // 2))

    def shutdown(self) -> None:
        """Stop the timers and workers (the main window calls this when closing)."""
        self._closed = True
        self._throttle.stop()
        self._pending = None
        super().shutdown()
        self._k_runner.shutdown()
        self._fig_runner.shutdown()

    # ------------------------------------------------------------------ update pipeline
    def _signal_sources(self) -> list[QWidget]:
        return ([r.spin for r in self.rows.values()] + [r.slider for r in self.rows.values()]
                + [self.method_combo, self.delta_radio, self.gamma_radio])

    def _idle(self) -> bool:
        """The point result's worker idle, nothing waiting for it, the tab open."""
        return not self._runner.is_running and self._pending is None and not self._closed

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
            self.form.show_validation(exc, ())
            self._pending = None
            if self.plots.result is not None:
                self.results_box.setTitle("Result (what-if) — for the last valid parameters")
            self.status_label.setText(
                f"<span style='color:{ERROR_COLOUR}'>Fix the red field: "
                f"{html.escape(self.form.error_text(exc))}.</span> The plots keep the last valid "
                "parameters.")
            return
        self.form.show_validation(None, warnings)
        self._last_valid = inputs
        self.plots.instant_readout(inputs)
        n_points = DRAFT_POINTS if self._drafting() else N_POINTS
        if (self.plots.result is not None and inputs == self.plots.result.inputs
                and self._result_points == n_points and not self._runner.is_running):
            self._pending = None  # already shown
            self.form.show_result_warnings(self.plots.result)
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
        if self.plots.result is None or inputs != self.plots.result.inputs or n_points == N_POINTS:
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
        self.plots.set_k_title(updating=True)
        self._k_runner.start(epsilon_vs_k_task, key)

    # ------------------------------------------------------------------ validation display
    # ------------------------------------------------------------------ slots
    def _on_parameter_changed(self, *args: object) -> None:
        self.form.follow_w()
        self._parameters_changed()

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
        self.plots.apply_result(result)
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
            self.form.show_validation(exc, ())
            self.status_label.setText(
                f"<span style='color:{ERROR_COLOUR}'>{html.escape(self.form.error_text(exc))}"
                "</span> The plots keep the last valid parameters.")
        else:
            self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>Computation failed: "
                                      f"{html.escape(type(exc).__name__)}: "
                                      f"{html.escape(str(exc))}</span>")
            self.message_logged.emit("ERROR", f"{self.log_name}: {type(exc).__name__}: {exc}")

    def _on_runner_finished(self) -> None:
        self._running_since = None
        if self._pending is not None and not self._throttle.isActive():
            self._start_pending()
        self.plots.start_figure_curves()
        if self._pending is None and not self._runner.is_running and not self._drafting():
            self._start_k_curve()

    def _on_k_runner_succeeded(self, result: object) -> None:
        assert isinstance(result, EpsilonVsK)
        key = self._k_key_running
        self._k_key_running = None
        self._k_key_applied = key
        self.plots.apply_k_result(result)
        self.k_curve_applied.emit()

    def _on_k_runner_failed(self, exc: object) -> None:
        self._k_key_running = None
        self._k_key_wanted = None  # nothing more to wait for; the last curve stays
        self.message_logged.emit("WARNING", f"{self.log_name}, ε vs k: {exc}")

    def _on_k_runner_finished(self) -> None:
        if self._k_key_running is not None and not self._k_runner.is_running:
            self._k_key_running = None  # cancelled
        if self._k_key_wanted is not None and self._k_key_wanted != self._k_key_shown() \
                and not self._drafting() and self._pending is None:
            self._start_k_curve()
        else:
            self.plots.set_k_title(updating=False)


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
