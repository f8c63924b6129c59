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

A :class:`gui.shell.tool_panel.ToolPanel` (its worker, progress, cancel, refusals, recording
and run-recorded signal): Run (F5; Esc cancels) runs in its worker a single run
(:func:`core.advising.release.advise_release`, as ``advise …`` does) or an experiment
over many seeds (:func:`core.advising.experiments.run_experiment`; the thesis's
Experiments 1–3, the three strategies on this set-up, or an ε sweep; ``min(2, CPUs)``
processes by default). Each finished run is recorded as a :class:`core.project.model.RunRecord`
(kind ``advise`` or ``advise-experiment``, target ``advising-1``) with its ledger entries.

Below, :class:`gui.advising.results.AdvisingResultsView`: learning curves with 95 % CI
bands, the ε sweep, the advice timeline, budgets, the privacy ledger (basic / advanced /
RDP, accountants named), the thesis-claims table and Tables 3.1–3.4. The run parameters
(what to run, seed, seeds, processes, ε list, δ) are the tab's ``info_panel`` (the right
dock of the main window).

Layout of the package: the panel keeps construction, the public API and the Workspace
protocol, and is composed of two parts that are given only what they use — never the panel:
``panel.editor``, a :class:`gui.advising.setup.SetupEditor` (set-up edits and their refresh),
and ``panel.runs``, a :class:`gui.advising.running.AdvisingRunner` (the Run panel, the runner's
results, the claims). Each gets its widgets as a frozen bundle of
:mod:`gui.advising.views` and callables for the panel's signals; the set-up shown is a
:class:`gui.advising.views.ShownSetup` the editor writes and the fields and runner read.
Texts, presets and small widgets are :mod:`gui.advising.parts`.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt
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
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from core.advising import (
    DEFAULT_DELTA,
    EXP3_EPSILONS,
    AdviseBenchParameters,
    AdviseParameters,
    AdvisingParams,
    AdvisingSetup,
    ExperimentResult,
    worked_example,
)
from gui.advising.models import ActionSetModel, RewardModel
from gui.advising.parts import (
    FIELD_LABELS,
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
from gui.advising.views import RunWidgets, SetupWidgets, ShownSetup
from gui.shell.bindings import set_tooltips
from gui.shell.document import ProjectDocument
from gui.shell.param_field import FieldWithError, ParamField
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool

__all__ = ["AdvisingPanel", "preview"]

class AdvisingPanel(ToolPanel):
    """The DP-advising tool tab (see the module docstring)."""

    status_name = "DP advising"
    log_name = "DP advising"
    undo_key = "advising"
    refusal_prefix = ""  # the reason is the whole message under Run
    run_kinds = ("advise", "advise-experiment")

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self._shown = ShownSetup()  # the set-up shown: the editor writes it, fields read it
        self._closed = False
        self.setObjectName("advising_panel")

        # Run/Cancel sit on the editor's bar, the progress in the Run panel (info_panel)
        self.run_controls = RunControls(
            self._runner, self, run=self.run, cancel=self.cancel,
            run_tip="Run what the Run panel says (single run or experiment) in the background.",
            running_text="starting…", cancelled_text="cancelled — nothing was recorded",
            clear_on_finish=False, progress_width=None)
        self.info_panel, run_widgets = self._build_info_panel()
        self._run_widgets = run_widgets
        top, setup_widgets = self._build_editor()
        set_tooltips((*run_widgets.bindings(), *setup_widgets.bindings()))  # fields' help
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

        # the parts, each given what it uses (never the panel)
        self.editor = SetupEditor(document, self._shown, setup_widgets,
                                  log=self.message_logged.emit,
                                  refreshed=self._on_editor_refreshed)
        self.runs = AdvisingRunner(document, run_widgets, self.results, self._runner,
                                   self._shown, setup_problems=self.editor.problems,
                                   log=self.message_logged.emit,
                                   running_changed=self.running_changed.emit,
                                   record=lambda r, e: self.record(r, e, self.run_controls))
        self.run_message = self.run_error_label
        self.connect_runner()
        self._connect_parts()
        self.runs.on_kind_combo_changed()

        self.results.show_worked_example(worked_example())
        self.editor.ensure_setup()
        self.editor.refresh()
        self.runs.update_running(False)
        self.runs.show_latest_record()

    def _connect_parts(self) -> None:
        """The widgets' and the document's signals to the parts' slots."""
        ed, runs, doc = self.editor, self.runs, self._document
        for button, slot in ((self.add_agent_button, ed.on_add_agent),
                             (self.remove_agent_button, ed.on_remove_agent),
                             (self.add_server_button, ed.on_add_server),
                             (self.remove_server_button, ed.on_remove_server),
                             (self.add_task_button, ed.on_add_task),
                             (self.remove_task_button, ed.on_remove_task)):
            button.clicked.connect(slot)
        self.strategy_combo.activated.connect(ed.on_strategy_combo_activated)
        self.variant_combo.activated.connect(ed.on_variant_combo_activated)
        for f in self.fields.values():
            f.committed.connect(ed.on_field_committed)
            f.refused.connect(ed.on_field_refused)
        self.guard_check.clicked.connect(ed.on_guard_check_clicked)
        self.kind_combo.currentIndexChanged.connect(runs.on_kind_combo_changed)
        self.seeded_check.toggled.connect(runs.on_seeded_check_toggled)
        # the "Next run" line states the seeds that will be used, as they are typed
        self.seed_spin.valueChanged.connect(runs.update_mode_label)
        self.seeds_spin.valueChanged.connect(runs.update_mode_label)
        self.run_controls.running_changed.connect(runs.update_running)
        doc.advising_changed.connect(ed.on_document_advising_changed)
        doc.project_replaced.connect(self._on_document_project_replaced)
        doc.run_removed.connect(runs.on_document_run_removed)

    def _on_editor_refreshed(self) -> None:
        self.runs.update_mode_label()

    def _on_document_project_replaced(self) -> None:
        self.runs.forget_session()
        self.editor.clear_all_errors()
        self.editor.ensure_setup()
        self.editor.refresh()
        self.runs.show_latest_record()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.editor.balance_editor()

    # ------------------------------------------------------------------ construction
    def _build_editor(self) -> tuple[QWidget, SetupWidgets]:
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
        # the grids' edits go to the editor, made below
        self.action_model = ActionSetModel(
            lambda agent, server, on: self.editor.commit_action(agent, server, on), self)
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
                                                  "agent's servers)", w)
        self.remove_agent_button = tool_button("−", "Remove the current agent (or the "
                                                     "last)", w)
        self.add_server_button = tool_button("+", "Add a server (reward 0 everywhere, "
                                                   "used by nobody)", w)
        self.remove_server_button = tool_button("−", "Remove the current server (or "
                                                      "the last)", w)
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
        self.reward_model = RewardModel(
            lambda task, server, value: self.editor.commit_reward(task, server, value), self)
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
                                                 "rewards)", w)
        self.remove_task_button = tool_button("−", "Remove the current task (or the "
                                                    "last)", w)
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
        compact_combo(self.strategy_combo, 10)
        self.variant_combo = QComboBox(box_p)
        for v, text in (("sound", "sound (strict S)"), ("thesis", "thesis (S = 1)"),
                        ("custom", "custom")):
            self.variant_combo.addItem(text, v)
        model = self.variant_combo.model()
        if isinstance(model, QStandardItemModel):
            model.item(2).setEnabled(False)
        compact_combo(self.variant_combo, 10)
        # each bound to its parameter of the set-up's AdvisingParams (values, checks, messages)
        self.fields: dict[str, ParamField] = {}
        for name in ("epsilon", "distance_threshold", "ask_budget", "give_budget", "epochs",
                     "alpha", "xi"):
            f = ParamField(name, self._shown.params, box_p, label=FIELD_LABELS.get(name))
            self.fields[name] = f
        self.guard_check = QCheckBox("direction guard", box_p)
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
        return w, SetupWidgets(
            title_label=self.title_label, error_label=self.setup_error_label,
            action_model=self.action_model, action_view=self.action_view,
            action_message=self.action_message, reward_model=self.reward_model,
            reward_view=self.reward_view, reward_message=self.reward_message,
            strategy_combo=self.strategy_combo, variant_combo=self.variant_combo,
            fields=self.fields, guard_check=self.guard_check,
            sensitivity_label=self.sensitivity_label, splitter=grids,
            grid_boxes=self.grid_boxes)

    def _build_info_panel(self) -> tuple[QWidget, RunWidgets]:
        # a hidden child until the main window puts it in its Run parameters dock
        w = QWidget(self)
        w.hide()
        w.setObjectName("advising_run_panel")
        head = QLabel("<b>DP advising — run</b>", w)
        self.kind_combo = QComboBox(w)
        for key, text in RUN_KINDS:
            self.kind_combo.addItem(text, key)
        compact_combo(self.kind_combo, 14)
        self.kind_help = QLabel(w)
        self.kind_help.setWordWrap(True)
        self.kind_help.setTextFormat(Qt.TextFormat.RichText)
        self.kind_help.setStyleSheet("QLabel { color: #333; font-size: 8.5pt; }")
        self.seeded_check = QCheckBox("seeded experiment", w)
        self.seeded_check.setChecked(True)
        self.seeded_check.setToolTip(TOOLTIPS["seeded"])
        self.seed_spin = QSpinBox(w)
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setValue(0)
        self.seeds_spin = QSpinBox(w)
        self.seeds_spin.setRange(1, 1000)
        self.seeds_spin.setValue(20)
        self.workers_spin = QSpinBox(w)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(min(2, os.cpu_count() or 1))
        self.epsilons_field = FieldWithError("epsilons", w)
        self.epsilons_field.edit.setText(", ".join(f"{e:g}" for e in EXP3_EPSILONS))
        self.delta_field = FieldWithError("delta", w)
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
        return w, RunWidgets(
            kind_combo=self.kind_combo, kind_help=self.kind_help,
            seeded_check=self.seeded_check, seed_spin=self.seed_spin, seeds_spin=self.seeds_spin,
            workers_spin=self.workers_spin, epsilons_field=self.epsilons_field,
            delta_field=self.delta_field, run_button=self.side_run_button,
            cancel_button=self.side_cancel_button, progress_label=self.progress_label,
            mode_label=self.mode_label, error_label=self.run_error_label)

    # ------------------------------------------------------------------ public API
    def current_params(self) -> AdvisingParams:
        """The parameters of the set-up shown (the defaults when it is invalid)."""
        return self._shown.params()

    @property
    def setup(self) -> AdvisingSetup | None:
        """The validated set-up shown (``Project.advising[0]``), or None if it is invalid."""
        return self._shown.setup

    @property
    def request(self) -> RunRequest | None:
        """The run started last (None before the first)."""
        return self.runs.request

    @property
    def shown_run(self) -> str | None:
        """The id of the recorded run shown, or None."""
        return self.runs.shown_run

    @property
    def session_experiments(self) -> dict[str, ExperimentResult]:
        return dict(self.runs.session)

    @property
    def run_kind(self) -> str:
        return self._run_widgets.kind

    def randomness_label(self) -> str:
        """The words for the randomness mode of the next run (never ambiguous)."""
        return self._run_widgets.randomness_label()

    def set_run_options(self, **options: Any) -> None:
        """Set the run parameters (:meth:`gui.advising.views.RunWidgets.set_options`: kind,
        seeded, seed, seeds, workers, epsilons, delta) for screenshots and tests."""
        self.runs.set_options(**options)

    def show_parameters(self, params: AdviseParameters | AdviseBenchParameters) -> None:
        """Show a run's parameters in the Run panel; the set-up stays the project's."""
        self.runs.show_parameters(params)

    def load_preset(self, name: str) -> bool:
        """Replace the set-up by a preset (one undoable command); True if it changed."""
        variant = self.editor.preset_variant()
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
            return self.refuse(str(exc))
        self.clear_problem()
        self.runs.start(request)
        return True

    def refuse(self, text: str) -> bool:
        self.progress_label.setText("not started")
        return super().refuse(text)

    def cancel(self) -> None:
        self.runs.cancel()

    def shutdown(self) -> None:
        """Stop the worker (the main window calls this when the tab or window closes)."""
        self._closed = True
        super().shutdown()

    def show_run(self, run_id: str) -> bool:  # type: ignore[override]
        """Show a recorded advising run from its summary (curves, tables, ledger)."""
        return self.runs.show_run(run_id)

    def show_record(self, kind: str, summary: dict[str, Any], run_id: str | None) -> None:
        if not self.runs.finishing and run_id is not None:  # a fresh run draws itself
            self.runs.show_run(run_id)

    def _on_runner_succeeded(self, result: object) -> None:
        self.runs.on_runner_succeeded(result)

register_tool(ToolSpec(
    "advising", "DP Advising",
    lambda window: AdvisingPanel(window.document, window.tabs, status_bar=window.statusBar()),
    "Differentially private advising between learning agents (thesis Ch. 3): set-up grids, "
    "Experiments 1–3, learning curves, ε sweep, advice timeline, budgets and the ledger."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: AdvisingPanel(example_document()), exec_=exec_,
                       title="DP Advising", size=(1250, 900))


if __name__ == "__main__":
    preview()
