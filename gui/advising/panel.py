"""The DP-advising workspace (thesis Ch. 3): set-up editor on top, results below.

Top, the set-up stored in the project (``Project.advising[0]``, an
:meth:`~core.advising.model.AdvisingSetup.to_dict`; created from the Table 3.5 preset by an
undoable command when the project has none):

* one-click presets — Table 3.5, Experiments 1–3, Fig. 3.2 and the worked example of
  Tables 3.1–3.4;
* the agents × servers grid (who may use which server), the tasks × servers reward grid
  (a value that is not a number, or that the core refuses, is not applied: the cell turns
  red and says why), and the parameters — strategy, variant (sound / thesis: the strict
  sensitivity S = r_max − r_min against the thesis's S = 1, explained beside it), ε, d,
  budgets, epochs, α, ξ and the direction guard. Every accepted edit is one
  :class:`~gui.advising.commands.SetAdvisingSetupCommand` on the document's undo stack; a
  refused value leaves the document untouched and shows its reason next to the field.

Run (F5, or the Run buttons; Esc cancels) executes in this panel's
:class:`~gui.shell.workers.TaskRunner`, with progress and cancel: a single run
(:func:`core.advising.framework.run_advising`, seeded or in release mode) or an experiment
over many seeds (:func:`core.advising.experiments.run_experiment`; the thesis's
Experiments 1–3, the three strategies on this set-up, or an ε sweep; ``min(2, CPUs)``
processes by default). Each finished run is recorded as a :class:`core.project.model.RunRecord`
(kind ``advise`` or ``advise-experiment``, target ``advising-1``) by an undoable command.

Below, :class:`gui.advising.results.AdvisingResultsView`: learning curves with 95 % CI
bands, the ε sweep, the advice timeline, budgets, the privacy ledger (basic / advanced /
RDP, accountants named), the thesis-claims table and Tables 3.1–3.4. The run parameters
(what to run, seed, seeds, processes, ε list, δ) are the tab's ``info_panel`` (the right
dock of the main window).

Layout of the package: the panel keeps construction, the public API and the Workspace
protocol; it owns two objects that take ``(document, view)``: ``panel.editor``, a
:class:`gui.advising.setup.SetupEditor` (set-up edits and their refresh), and ``panel.runs``,
a :class:`gui.advising.running.AdvisingRunner` (the Run panel, the runner's results, the
claims); texts, presets and small widgets are :mod:`gui.advising.parts`.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.advising import (
    DEFAULT_DELTA,
    EXP3_EPSILONS,
    AdvisingParams,
    AdvisingSetup,
    ExperimentResult,
    run_advising,
    run_experiment,
    worked_example,
)
from gui.advising.models import ActionSetModel, RewardModel
from gui.advising.parts import (
    FIELD_LABELS,
    KIND_TITLES,
    PRESET_BUTTONS,
    RUN_KINDS,
    SENSITIVITY_TEXT,
    TOOLTIPS,
    Refused,
    RunRequest,
    TitleLabel,
    compact_combo,
    grid_view,
    message_label,
    preset_setup,
    tool_button,
)
from gui.advising.results import AdvisingResultsView
from gui.advising.running import AdvisingRunner
from gui.advising.setup import SetupEditor
from gui.shell.document import ProjectDocument
from gui.shell.param_field import FieldWithError, ParamField
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.workers import TaskRunner

__all__ = ["AdvisingPanel", "preview"]

class AdvisingPanel(QWidget):
    """The DP-advising tool tab (see the module docstring)."""

    message_logged = Signal(str, str)  # level, text (the Log dock listens)
    running_changed = Signal(bool)  # the window's Run/Cancel follow it (Workspace protocol)
    can_run = True  # Workspace protocol: F5 runs this tab
    run_recorded = Signal(str)  # id of the RunRecord just added

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self.editor = SetupEditor(document, self)  # the set-up edits
        self.runs = AdvisingRunner(document, self)  # the Run panel, results and claims
        # the validated set-up shown (``Project.advising[0]``), or None if it is invalid
        self.setup: AdvisingSetup | None = None
        self.setup_error = ""
        self.request: RunRequest | None = None
        self.session: dict[str, ExperimentResult] = {}  # exp1/exp2/exp3 of this session
        self.shown_run: str | None = None
        self._closed = False
        self.setObjectName("advising_panel")

        # Run/Cancel sit on the editor's bar, the progress in the Run panel (info_panel)
        self.run_controls = RunControls(
            self._runner, self, run=self.run, cancel=self.cancel,
            run_tip="Run what the Run panel says (single run or experiment) in the background.",
            running_text="starting…", cancelled_text="cancelled — nothing was recorded",
            clear_on_finish=False, progress_width=None)
        self.info_panel = self._build_info_panel()
        top = self._build_editor()
        self.results = AdvisingResultsView(self)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(self.results)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([320, 530])
        split.setChildrenCollapsible(False)
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)

        self.run_controls.running_changed.connect(self.runs.update_running)
        self._runner.succeeded.connect(self.runs.on_runner_succeeded)
        self._runner.failed.connect(self.runs.on_runner_failed)
        self._runner.cancelled.connect(self.runs.on_runner_cancelled)
        document.advising_changed.connect(self.editor.on_document_advising_changed)
        document.project_replaced.connect(self.editor.on_document_project_replaced)
        document.run_removed.connect(self.editor.on_document_run_removed)

        self.results.show_worked_example(worked_example())
        self.editor.ensure_setup()
        self.editor.refresh()
        self.runs.update_running(False)
        self.editor.show_latest_record()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.editor.balance_editor()

    # ------------------------------------------------------------------ construction
    def _build_editor(self) -> QWidget:
        w = QWidget(self)
        self.title_label = TitleLabel(w)
        self.preset_buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        bar.setSpacing(4)
        bar.addWidget(QLabel("Presets:", w))
        grid = QGridLayout()  # two rows: one row of eight was wider than a laptop's tab
        bar.addLayout(grid)
        for i, (key, text, tip) in enumerate(PRESET_BUTTONS):
            b = QPushButton(text, w)
            b.setToolTip(tip)
            b.setObjectName(f"preset_{key}")
            b.clicked.connect(lambda _=False, k=key: self.load_preset(k))
            self.preset_buttons[key] = b
            grid.addWidget(b, i // 4, i % 4)
        bar.addStretch(1)
        self.run_button = self.run_controls.run_button
        self.cancel_button = self.run_controls.cancel_button
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        self.setup_error_label = QLabel(w)
        self.setup_error_label.setWordWrap(True)
        self.setup_error_label.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.setup_error_label.hide()

        # agents × servers
        self.action_model = ActionSetModel(self.editor.commit_action, self)
        self.action_view = grid_view(self.action_model, w)
        self.action_view.setToolTip("Tick a cell to let the agent (row) use the server "
                                    "(column). Hover an agent for its neighbours under DP and "
                                    "traditional advising.")
        self.action_message = message_label(w)
        box_a = QGroupBox("Who may use which server (agents × servers)", w)
        box_a.setToolTip(self.action_view.toolTip())
        la = QVBoxLayout(box_a)
        la.setContentsMargins(4, 4, 4, 4)
        la.setSpacing(2)
        la.addWidget(self.action_view, 1)
        row = QHBoxLayout()
        row.setSpacing(2)
        self.add_agent_button = tool_button("+", "Add an agent (a copy of the last "
                                                  "agent's servers)", self.editor.on_add_agent, w)
        self.remove_agent_button = tool_button("−", "Remove the current agent (or the "
                                                     "last)", self.editor.on_remove_agent, w)
        self.add_server_button = tool_button("+", "Add a server (reward 0 everywhere, "
                                                   "used by nobody)", self.editor.on_add_server, w)
        self.remove_server_button = tool_button("−", "Remove the current server (or "
                                                      "the last)", self.editor.on_remove_server, w)
        row.addWidget(QLabel("agents", w))
        row.addWidget(self.add_agent_button)
        row.addWidget(self.remove_agent_button)
        row.addSpacing(10)
        row.addWidget(QLabel("servers", w))
        row.addWidget(self.add_server_button)
        row.addWidget(self.remove_server_button)
        row.addStretch(1)
        la.addLayout(row)
        la.addWidget(self.action_message)

        # tasks × servers rewards
        self.reward_model = RewardModel(self.editor.commit_reward, self)
        self.reward_view = grid_view(self.reward_model, w, 24)
        self.reward_view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                         | QAbstractItemView.EditTrigger.EditKeyPressed
                                         | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.reward_view.setToolTip("R(task, server): what a server earns on a task (higher is "
                                    "better). Bold green: the best server of the task.")
        self.reward_message = message_label(w)
        box_r = QGroupBox("Rewards R(task, server) — tasks × servers", w)
        lr = QVBoxLayout(box_r)
        lr.setContentsMargins(4, 4, 4, 4)
        lr.setSpacing(2)
        lr.addWidget(self.reward_view, 1)
        row = QHBoxLayout()
        row.setSpacing(2)
        self.add_task_button = tool_button("+", "Add a task (copies the last task's "
                                                 "rewards)", self.editor.on_add_task, w)
        self.remove_task_button = tool_button("−", "Remove the current task (or the "
                                                    "last)", self.editor.on_remove_task, w)
        row.addWidget(QLabel("tasks", w))
        row.addWidget(self.add_task_button)
        row.addWidget(self.remove_task_button)
        row.addStretch(1)
        lr.addLayout(row)
        lr.addWidget(self.reward_message)

        # parameters
        box_p = QGroupBox("Parameters", w)
        form = QFormLayout()
        form.setContentsMargins(4, 4, 4, 4)
        form.setVerticalSpacing(3)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a field too wide beside its label goes below it: no sideways scroll on a laptop
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.strategy_combo = QComboBox(box_p)
        for s, text in (("none", "none (no advice)"), ("traditional", "traditional advising"),
                        ("dp", "DP advising")):
            self.strategy_combo.addItem(text, s)
        self.strategy_combo.setToolTip(TOOLTIPS["strategy"])
        compact_combo(self.strategy_combo, 10)
        self.strategy_combo.activated.connect(self.editor.on_strategy_combo_activated)
        self.variant_combo = QComboBox(box_p)
        for v, text in (("sound", "sound (strict S)"), ("thesis", "thesis (S = 1)"),
                        ("custom", "custom")):
            self.variant_combo.addItem(text, v)
        model = self.variant_combo.model()
        if isinstance(model, QStandardItemModel):
            model.item(2).setEnabled(False)
        self.variant_combo.setToolTip(TOOLTIPS["variant"])
        compact_combo(self.variant_combo, 10)
        self.variant_combo.activated.connect(self.editor.on_variant_combo_activated)
        # each bound to its parameter of the set-up's AdvisingParams (values, checks, messages)
        self.fields: dict[str, ParamField] = {}
        for name in ("epsilon", "distance_threshold", "ask_budget", "give_budget", "epochs",
                     "alpha", "xi"):
            f = ParamField(name, self.current_params, box_p, label=FIELD_LABELS.get(name),
                           tooltip=TOOLTIPS.get(name, ""))
            f.committed.connect(self.editor.on_field_committed)
            f.refused.connect(self.editor.on_field_refused)
            self.fields[name] = f
        self.guard_check = QCheckBox("direction guard", box_p)
        self.guard_check.setToolTip(TOOLTIPS["direction_guard"])
        self.guard_check.clicked.connect(self.editor.on_guard_check_clicked)
        self.sensitivity_label = QLabel(box_p)
        self.sensitivity_label.setWordWrap(True)
        self.sensitivity_label.setTextFormat(Qt.TextFormat.RichText)
        self.sensitivity_label.setToolTip(
            "<p>" + TOOLTIPS["sensitivity"] + "</p><p>" + SENSITIVITY_TEXT + "</p>")

        def label(text: str, key: str) -> QLabel:
            lab = QLabel(text, box_p)
            lab.setToolTip(TOOLTIPS[key])
            return lab

        form.addRow(label("strategy", "strategy"), self.strategy_combo)
        form.addRow(label("variant", "variant"), self.variant_combo)
        form.addRow(label("ε per release", "epsilon"), self.fields["epsilon"])
        form.addRow(label("sensitivity S", "sensitivity"), self.sensitivity_label)
        form.addRow(label("d (threshold)", "distance_threshold"),
                    self.fields["distance_threshold"])
        budgets = QWidget(box_p)
        hb = QHBoxLayout(budgets)
        hb.setContentsMargins(0, 0, 0, 0)
        hb.addWidget(self.fields["ask_budget"])
        hb.addWidget(label("b_give", "give_budget"))
        hb.addWidget(self.fields["give_budget"])
        form.addRow(label("b_ask", "ask_budget"), budgets)
        form.addRow(label("epochs", "epochs"), self.fields["epochs"])
        rates = QWidget(box_p)
        hr = QHBoxLayout(rates)
        hr.setContentsMargins(0, 0, 0, 0)
        hr.addWidget(self.fields["alpha"])
        hr.addWidget(label("ξ", "xi"))
        hr.addWidget(self.fields["xi"])
        form.addRow(label("α", "alpha"), rates)
        form.addRow("", self.guard_check)
        lp = QVBoxLayout(box_p)
        lp.setContentsMargins(2, 2, 2, 2)
        inner = QWidget(box_p)
        li = QVBoxLayout(inner)
        li.setContentsMargins(0, 0, 0, 0)
        li.addLayout(form)
        li.addStretch(1)
        scroll = QScrollArea(box_p)
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        lp.addWidget(scroll)
        self._params_box = box_p
        self.grid_boxes = (box_a, box_r)

        grids = QSplitter(Qt.Orientation.Horizontal, w)
        grids.addWidget(box_a)
        grids.addWidget(box_r)
        grids.addWidget(box_p)
        grids.setChildrenCollapsible(False)
        for i, stretch in enumerate((0, 0, 1)):  # extra width goes to the parameters
            grids.setStretchFactor(i, stretch)
        self.editor_splitter = grids
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addLayout(bar)
        lay.addWidget(self.title_label)
        lay.addWidget(self.setup_error_label)
        lay.addWidget(grids, 1)
        return w

    def _build_info_panel(self) -> QWidget:
        # a hidden child until the main window puts it in its Run parameters dock
        w = QWidget(self)
        w.hide()
        w.setObjectName("advising_run_panel")
        head = QLabel("<b>DP advising — run</b>", w)
        self.kind_combo = QComboBox(w)
        for key, text in RUN_KINDS:
            self.kind_combo.addItem(text, key)
        self.kind_combo.setToolTip(TOOLTIPS["run_kind"])
        compact_combo(self.kind_combo, 14)
        self.kind_combo.currentIndexChanged.connect(self.runs.on_kind_combo_changed)
        self.kind_help = QLabel(w)
        self.kind_help.setWordWrap(True)
        self.kind_help.setTextFormat(Qt.TextFormat.RichText)
        self.kind_help.setStyleSheet("QLabel { color: #333; font-size: 8.5pt; }")
        self.seeded_check = QCheckBox("seeded experiment", w)
        self.seeded_check.setChecked(True)
        self.seeded_check.setToolTip(TOOLTIPS["seeded"])
        self.seeded_check.toggled.connect(self.runs.on_seeded_check_toggled)
        self.seed_spin = QSpinBox(w)
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setValue(0)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.seeds_spin = QSpinBox(w)
        self.seeds_spin.setRange(1, 1000)
        self.seeds_spin.setValue(20)
        self.seeds_spin.setToolTip(TOOLTIPS["seeds"])
        # the "Next run" line states the seeds that will be used, as they are typed
        self.seed_spin.valueChanged.connect(self.runs.update_mode_label)
        self.seeds_spin.valueChanged.connect(self.runs.update_mode_label)
        self.workers_spin = QSpinBox(w)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(min(2, os.cpu_count() or 1))
        self.workers_spin.setToolTip(TOOLTIPS["workers"])
        self.epsilons_field = FieldWithError("epsilons", w, tooltip=TOOLTIPS["epsilons"])
        self.epsilons_field.edit.setText(", ".join(f"{e:g}" for e in EXP3_EPSILONS))
        self.delta_field = FieldWithError("delta", w, tooltip=TOOLTIPS["delta"])
        self.delta_field.edit.setText(f"{DEFAULT_DELTA:g}")
        self.side_run_button = QPushButton("▶ Run (F5)", w)
        self.side_run_button.clicked.connect(self.run)
        self.side_cancel_button = QPushButton("■ Cancel (Esc)", w)
        self.side_cancel_button.clicked.connect(self.cancel)
        self.progress_bar = self.run_controls.progress
        self.progress_label = self.run_controls.progress_label
        self.progress_label.setWordWrap(True)
        self.progress_label.setStyleSheet("QLabel { color: #444; font-size: 8.5pt; }")
        self.mode_label = QLabel(w)
        self.mode_label.setWordWrap(True)
        self.mode_label.setTextFormat(Qt.TextFormat.RichText)
        self.run_error_label = QLabel(w)
        self.run_error_label.setWordWrap(True)
        self.run_error_label.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.run_error_label.hide()
        self.sensitivity_note = QLabel(SENSITIVITY_TEXT, w)
        self.sensitivity_note.setWordWrap(True)
        self.sensitivity_note.setTextFormat(Qt.TextFormat.RichText)
        self.sensitivity_note.setStyleSheet(
            "QLabel { color: #333; font-size: 8.5pt; background: #F6F6F2; padding: 4px; "
            "border: 1px solid #DDD; }")
        self.sensitivity_note.setToolTip(TOOLTIPS["sensitivity"])

        form = QFormLayout()
        form.setVerticalSpacing(4)
        form.addRow("run", self.kind_combo)
        form.addRow(self.kind_help)
        form.addRow("", self.seeded_check)
        lab = QLabel("seed", w)
        lab.setToolTip(TOOLTIPS["seed"])
        form.addRow(lab, self.seed_spin)
        lab = QLabel("seeds per arm", w)
        lab.setToolTip(TOOLTIPS["seeds"])
        form.addRow(lab, self.seeds_spin)
        lab = QLabel("processes", w)
        lab.setToolTip(TOOLTIPS["workers"])
        form.addRow(lab, self.workers_spin)
        lab = QLabel("ε values", w)
        lab.setToolTip(TOOLTIPS["epsilons"])
        form.addRow(lab, self.epsilons_field)
        lab = QLabel("δ (ledger)", w)
        lab.setToolTip(TOOLTIPS["delta"])
        form.addRow(lab, self.delta_field)
        buttons = QHBoxLayout()
        buttons.addWidget(self.side_run_button)
        buttons.addWidget(self.side_cancel_button)
        lay = QVBoxLayout(w)
        lay.addWidget(head)
        lay.addLayout(form)
        lay.addLayout(buttons)
        lay.addWidget(self.progress_bar)
        lay.addWidget(self.progress_label)
        lay.addWidget(self.mode_label)
        lay.addWidget(self.run_error_label)
        lay.addSpacing(6)
        lay.addWidget(self.sensitivity_note)
        lay.addStretch(1)
        self.runs.on_kind_combo_changed()
        return w

    # ------------------------------------------------------------------ public API
    @property
    def document(self) -> ProjectDocument:
        return self._document

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    def current_params(self) -> AdvisingParams:
        """The parameters of the set-up shown (the defaults when it is invalid)."""
        return self.setup.params if self.setup is not None else AdvisingParams()

    @property
    def is_running(self) -> bool:
        return self._runner.is_running

    @property
    def session_experiments(self) -> dict[str, ExperimentResult]:
        return dict(self.session)

    @property
    def run_kind(self) -> str:
        return str(self.kind_combo.currentData())

    def randomness_label(self) -> str:
        """The words for the randomness mode of the next run (never ambiguous)."""
        seeded = self.seeded_check.isChecked()
        if self.run_kind == "single":
            return (f"seeded experiment (seed {self.seed_spin.value()})" if seeded else
                    "release mode (OpenDP noise, not reproducible)")
        if seeded:
            n = self.seeds_spin.value()
            s0 = self.seed_spin.value()
            return f"seeded experiment (seeds {s0}–{s0 + n - 1})"
        return "experiment with a fresh OS seed (recorded; not a release)"

    def set_run_options(self, *, kind: str | None = None, seeded: bool | None = None,
                        seed: int | None = None, seeds: int | None = None,
                        workers: int | None = None, epsilons: str | None = None,
                        delta: float | None = None) -> None:
        """Set the run parameters (screenshots, tests, later a command line)."""
        if kind is not None:
            i = self.kind_combo.findData(kind)
            if i < 0:
                raise ValueError(f"unknown run kind {kind!r}")
            self.kind_combo.setCurrentIndex(i)
        if seeded is not None:
            self.seeded_check.setChecked(seeded)
        if seed is not None:
            self.seed_spin.setValue(seed)
        if seeds is not None:
            self.seeds_spin.setValue(seeds)
        if workers is not None:
            self.workers_spin.setMaximum(max(self.workers_spin.maximum(), workers))
            self.workers_spin.setValue(workers)
        if epsilons is not None:
            self.epsilons_field.edit.setText(epsilons)
        if delta is not None:
            self.delta_field.edit.setText(f"{delta:g}")
        self.runs.update_mode_label()

    def load_preset(self, name: str) -> bool:
        """Replace the set-up by a preset (one undoable command); True if it changed."""
        variant = str(self.variant_combo.currentData())
        if variant not in ("sound", "thesis"):
            variant = "sound"
        setup = preset_setup(name, variant)
        title = next((t for k, t, _ in PRESET_BUTTONS if k == name), name)
        if name in ("exp1", "exp2", "exp3"):
            self.set_run_options(kind=name)
        elif self.run_kind in ("exp1", "exp2", "exp3"):
            self.set_run_options(kind="single")
        if name == "worked":
            self.results.tabs.setCurrentWidget(self.results.worked_page)
        self.editor.clear_all_errors()
        changed = self.editor.push_setup(setup, f"Load advising preset {title}")
        self.message_logged.emit("INFO", f"advising: preset {title} loaded ({variant} variant)")
        return changed

    def run(self) -> bool:
        """Start what the run panel says; False (with the reason shown) if it cannot."""
        if self._closed or self.is_running:
            return False
        try:
            request = self.runs.build_request()
        except Refused as exc:
            self.runs.show_run_error(str(exc))
            return False
        self.run_error_label.hide()
        self.request = request
        if request.kind == "single":
            self._runner.start(run_advising, request.setup,
                               rng=request.seed if request.seeded else None,
                               delta=request.delta, detail=True)
        else:
            from gui.shell.settings import on_backend

            self._runner.start(on_backend(run_experiment), request.arms, seeds=request.n_seeds,
                               seed=request.seed if request.seeded else None,
                               workers=request.workers, delta=request.delta,
                               name=request.kind)
        self.message_logged.emit("INFO", f"advising: {KIND_TITLES[request.kind]} started "
                                         f"({self.randomness_label()})")
        return True

    def cancel(self) -> None:
        if self.is_running:
            self._runner.cancel()
            self.progress_label.setText("cancelling…")

    def shutdown(self) -> None:
        """Stop the worker (the main window calls this when the tab or window closes)."""
        self._closed = True
        self._runner.shutdown()

    def show_run(self, run_id: str) -> bool:
        """Show a recorded advising run from its summary (curves, tables, ledger)."""
        try:
            record = self._document.run(run_id)
        except KeyError:
            return False
        if record.kind not in ("advise", "advise-experiment"):
            return False
        s = record.summary
        self.results.show_summary(s, self.runs.stamp(record, s))
        self.results.show_details_unavailable()
        self.shown_run = run_id
        self.runs.update_claims()
        return True

register_tool(ToolSpec(
    "advising", "DP Advising",
    lambda window: AdvisingPanel(window.document, window.tabs),
    "Differentially private advising between learning agents (thesis Ch. 3): set-up grids, "
    "Experiments 1–3, learning curves, ε sweep, advice timeline, budgets and the ledger."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: AdvisingPanel(example_document()), exec_=exec_,
                       title="DP Advising", size=(1250, 900))


if __name__ == "__main__":
    preview()
