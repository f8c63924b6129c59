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
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.advising.accounting import DEFAULT_DELTA
from core.advising.claims import check_claims
from core.advising.experiments import ExperimentResult, run_experiment
from core.advising.framework import AdvisingResult, run_advising
from core.advising.model import VARIANT_KNOBS, AdvisingParams, AdvisingSetup
from core.advising.presets import (
    EXP3_EPSILONS,
    ExperimentArm,
    experiment_arms,
    preset,
    table35_params,
    worked_example,
)
from core.advising.records import (
    experiment_ledger_entries,
    experiment_summary,
    randomness_text,
    rounded_json,
    single_ledger_entries,
    single_summary,
)
from core.common.errors import InputError
from core.privacy.composition import advanced_composition
from core.privacy.laplace import check_epsilon
from core.project.model import RunRecord
from gui.advising.commands import SetAdvisingSetupCommand
from gui.advising.models import (
    ActionSetModel,
    RewardModel,
    edit_add_agent,
    edit_add_server,
    edit_add_task,
    edit_remove_agent,
    edit_remove_server,
    edit_remove_task,
    edit_reward,
    edit_toggle_server,
    parse_number,
)
from gui.advising.results import AdvisingResultsView
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import show_field_error
from gui.shell.workers import TaskRunner

__all__ = ["AdvisingPanel", "TOOLTIPS", "PRESET_BUTTONS", "RUN_KINDS", "SENSITIVITY_TEXT",
           "TARGET", "preview"]

#: RunRecord.target of runs on Project.advising[0].
TARGET = "advising-1"
SETUP_INDEX = 0

PRESET_BUTTONS = (
    ("table35", "Table 3.5", "The Table 3.5 parameters (10 users, 12 servers, 10 tasks, "
     "rewards 2/0, ε = 1, d = 0.7, budgets 30, 700 epochs) on the 'mixed' layout, DP advising."),
    ("exp1", "Experiment 1", "Experiment 1: each agent has one different server (the "
     "'sunflower' layout, A B C + one of D…L); the run compares no advice, traditional "
     "advising among identical sets and DP advising."),
    ("exp2", "Experiment 2", "Experiment 2: agents 1–4 share A B C D, agents 5–10 differ by "
     "one server ('mixed'); the three strategies in the same setting."),
    ("exp3", "Experiment 3", "Experiment 3: the 'mixed' layout, DP advising at "
     "ε ∈ {0.1, 0.4, 0.7, 1, 2} against no advice."),
    ("fig32", "Fig. 3.2", "The motivating example of Fig. 3.2: users a, b, c, d; a = {A,B,C,D} "
     "and c = {B,C,D,E} can advise each other only with DP advising."),
    ("worked", "Worked example", "Tables 3.1–3.4 instantiated: two agents whose converged "
     "Q-tables differ in one record (neighbouring datasets)."),
)

RUN_KINDS = (
    ("single", "Single run of this set-up"),
    ("strategies", "Strategies on this set-up (no advice / traditional / DP)"),
    ("sweep", "ε sweep on this set-up"),
    ("exp1", "Experiment 1 (thesis arms)"),
    ("exp2", "Experiment 2 (thesis arms)"),
    ("exp3", "Experiment 3 (thesis arms, ε sweep)"),
)
_KIND_TITLES = dict(RUN_KINDS)
_KIND_HELP = {
    "single": "One run of the set-up above with its strategy. Seeded: a reproducible "
              "experiment (numpy noise). Unticked: <b>release mode</b> — Laplace noise from "
              "OpenDP and OS-seeded sampling, not reproducible.",
    "strategies": "No advice, traditional advising and DP advising on the set-up above, over "
                  "the same seeds (paired comparison), with 95 % confidence intervals.",
    "sweep": "No advice, then DP advising at each ε below, on the set-up above.",
    "exp1": "The thesis's Experiment 1: no advice and traditional advising with identical "
            "sets ('same': A B C D for everyone), DP advising with one different server per "
            "agent ('sunflower'). The parameters above apply (ε, d, budgets, epochs, variant, "
            "α, ξ); the preset's layouts and Table 3.5 rewards are used, not grid edits.",
    "exp2": "The thesis's Experiment 2: the three strategies on the 'mixed' layout (agents "
            "1–4 share A B C D, 5–10 differ by one server). The parameters above apply; the "
            "preset's layout and rewards are used, not grid edits.",
    "exp3": "The thesis's Experiment 3: no advice, then DP advising at each ε below on the "
            "'mixed' layout (thesis: 0.1, 0.4, 0.7, 1, 2). Other parameters as above.",
}

SENSITIVITY_TEXT = (
    "<b>Two sensitivities.</b> A teacher's Q-values get Laplace noise of scale S/ε before a "
    "student sees them. The thesis fixes <b>S = 1</b> (“the maximum value of a percentage is "
    "1”), but the noise is added to Q-values, which lie in [r<sub>min</sub>, r<sub>max</sub>]: "
    "one differing Q-record moves a coordinate by up to <b>S = r<sub>max</sub> − "
    "r<sub>min</sub></b> (the strict sensitivity; 2 with rewards 2/0). With S = 1 each release "
    "is therefore only (r<sub>max</sub> − r<sub>min</sub>)·ε-DP. <i>sound</i> calibrates the "
    "noise to the strict S, so the ε you set holds, noises advice between identical action "
    "sets too, and draws the advised action from the noisy Q-values alone — each advice query "
    "is then ε-DP for the teacher (one Q-table entry differs). <i>thesis</i> keeps S = 1, sends "
    "raw Q-values between identical sets and draws the advice from the teacher's raw policy: "
    "no finite ε covers those releases, and the ledger says <b>unbounded</b>.")

TOOLTIPS = {
    "strategy": "How agents learn: ‘none’ = independent learners (the thesis's traditional "
                "RL); ‘traditional’ = advice only between agents with identical server sets, "
                "no noise; ‘dp’ = advice also between agents whose sets differ by one server "
                "(neighbours), with Laplace noise on the teacher's Q-values.",
    "variant": "sound: noise calibrated to the strict sensitivity S = r_max − r_min, every DP "
               "release noised, the advised action drawn from the noisy Q-values alone — "
               "each advice query is ε-DP for the teacher. thesis: S = 1, raw Q-values between "
               "identical sets and advice drawn from the teacher's raw policy, as in the "
               "thesis — its ε is unbounded (raw data leaves). custom: other settings.",
    "epsilon": "ε, the privacy budget of one release: every time a teacher's Q-values are "
               "shown to a student, Laplace noise of scale S/ε is added. Smaller ε = more "
               "noise = more private (and usually worse advice). Must be > 0.",
    "distance_threshold": "d: advice is given only if the squared Euclidean distance between "
                          "the teacher's (noisy) and the student's Q-values exceeds d — the "
                          "knowledge gap (Eq. 3.1). Must be ≥ 0; Table 3.5: 0.7.",
    "ask_budget": "b_ask: how many times each agent may receive advice (Table 3.5: 30). Each "
                  "advice costs the student 1.",
    "give_budget": "b_give: how many times each agent may give advice (Table 3.5: 30). Each "
                   "advice costs the teacher 1. Fewer advice events also means fewer "
                   "releases of the teacher's Q-values.",
    "epochs": "Number of epochs; in each, every agent gets a random task and picks a server "
              "(Table 3.5: 700).",
    "alpha": "α, the Q learning rate: Q(s,a) ← (1−α)Q(s,a) + α·r. In (0, 1]; default 0.5 "
             "(not given in the thesis).",
    "xi": "ξ, the policy learning rate of Algorithm 3: π(s,a) ← π(s,a) + ξ(Q(s,a) − r̄). "
          "≥ 0; default 0.1 (not given in the thesis).",
    "direction_guard": "Only teachers that met the task more often than the student may "
                       "advise (spec A10). Off = the thesis: the neighbour with the largest "
                       "distance advises, even a less experienced one. The guard compares "
                       "raw visit counts, which no ε covers: with it on, every compared "
                       "teacher's ε spent is unbounded.",
    "sensitivity": "S, the sensitivity the noise is calibrated to (scale S/ε). Strict S = "
                   "r_max − r_min bounds how far one differing Q-record moves a coordinate; "
                   "the thesis's S = 1 under-calibrates the noise when r_max − r_min > 1.",
    "run_kind": "What Run (F5) does: a single run of the set-up, or an experiment over many "
                "seeds (means with 95 % confidence intervals).",
    "seeded": "Ticked: a reproducible seeded experiment with the seed shown (numpy noise — "
              "for studying the method, not for real releases). Unticked: a single run is a "
              "release (OpenDP noise, not reproducible); an experiment draws a fresh seed "
              "from the OS and records it.",
    "seed": "Seed of the run (experiments use seed, seed+1, … for their runs; every arm uses "
            "the same seeds, so arms are compared seed by seed).",
    "seeds": "Runs per arm of an experiment (the spec's protocol: 20). More seeds = narrower "
             "confidence bands.",
    "workers": "Worker processes for an experiment's runs (the window stays responsive).",
    "epsilons": "The ε values of an ε sweep / Experiment 3, separated by commas. Each must "
                "be > 0.",
    "delta": "δ of the advanced-composition and Rényi-DP totals in the ledger, in (0, 1). "
             "Basic composition needs no δ. Smaller δ = stronger guarantee, larger ε.",
}

_FIELD_LABELS = {"epsilon": "ε", "distance_threshold": "d", "ask_budget": "b_ask",
                 "give_budget": "b_give", "epochs": "epochs", "alpha": "α", "xi": "ξ"}
_INT_FIELDS = ("ask_budget", "give_budget", "epochs")


def _compact(combo: QComboBox, chars: int) -> None:
    """Let a combo box shrink (its popup still shows the full texts)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)


def _fit_grid(view: QTableView, max_w: int = 400, max_h: int = 230) -> None:
    """Size a grid to show every cell when that is reasonable (else it scrolls)."""
    model = view.model()
    vh, hh = view.verticalHeader(), view.horizontalHeader()
    frame = 2 * view.frameWidth() + 2
    w = vh.sizeHint().width() + hh.defaultSectionSize() * model.columnCount() + frame
    h = hh.sizeHint().height() + vh.defaultSectionSize() * model.rowCount() + frame
    view.setMinimumWidth(min(w, max_w))
    view.setMinimumHeight(min(max(h, 80), max_h))


def _problem(exc: InputError) -> str:
    return exc.problem if getattr(exc, "problem", None) else str(exc)


def _setup_title(setup: AdvisingSetup) -> tuple[str, str]:
    return (f"Set-up “{setup.name}”: {setup.n_agents} agents × {setup.n_servers} servers × "
            f"{setup.n_tasks} tasks", setup.description or "custom")


class _ElidedLabel(QLabel):
    """One line: a bold head and a description elided to the width (full text as tooltip)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._head, self._text = "", ""
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def set_parts(self, head: str, text: str) -> None:
        self._head, self._text = head, text
        self.setToolTip(f"{head} — {text}" if text else head)
        self._relayout()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._relayout()

    def _relayout(self) -> None:
        fm = self.fontMetrics()
        bold = self.font()
        bold.setBold(True)
        from PySide6.QtGui import QFontMetrics

        used = QFontMetrics(bold).horizontalAdvance(self._head + " — ")
        rest = fm.elidedText(self._text, Qt.TextElideMode.ElideRight,
                             max(40, self.width() - used - 8))
        tail = f" — {html.escape(rest)}" if self._text else ""
        self.setText(f"<b>{html.escape(self._head)}</b>{tail}")


def worked_example_setup(variant: str = "sound") -> AdvisingSetup:
    """Tables 3.1–3.4 as a runnable set-up: i = {A,B,C,D}, j = {A,B,C,E}, one task."""
    return AdvisingSetup.from_labels(
        servers=list("ABCDE"), tasks=["s"],
        agents={"i": ["A", "B", "C", "D"], "j": ["A", "B", "C", "E"]},
        rewards=[[2.0, 0.0, 0.0, 0.0, 0.0]], params=table35_params(variant, epochs=60),
        name="worked", description="Tables 3.1–3.4: teacher i and student j differ in one "
                                   "server (D vs E)")


def preset_setup(name: str, variant: str = "sound") -> AdvisingSetup:
    """The set-up a preset button loads."""
    if name == "worked":
        return worked_example_setup(variant)
    return preset(name, variant=variant, strategy="dp")


class _Field(QWidget):
    """A line edit with an inline error message under it."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.edit = QLineEdit(self)
        self.edit.setToolTip(TOOLTIPS.get(name, ""))
        self.edit.setObjectName(f"field_{name}")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; font-size: 8pt; }}")
        self.error.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.edit)
        lay.addWidget(self.error)

    @property
    def has_error(self) -> bool:
        return not self.error.isHidden()

    def set_error(self, message: str) -> None:
        show_field_error(self.edit, f"Not applied: {message}", TOOLTIPS.get(self.name, ""),
                         message=self.error, prefix="", selector="QLineEdit")

    def clear_error(self) -> None:
        show_field_error(self.edit, "", TOOLTIPS.get(self.name, ""), message=self.error)


@dataclass
class _Request:
    kind: str
    setup: AdvisingSetup
    seeded: bool
    seed: int | None
    n_seeds: int = 1
    workers: int = 1
    delta: float = DEFAULT_DELTA
    epsilons: tuple[float, ...] = ()
    arms: list[ExperimentArm] = field(default_factory=list)

    @property
    def is_experiment(self) -> bool:
        return self.kind != "single"


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
        self._setup: AdvisingSetup | None = None
        self._setup_error = ""
        self._request: _Request | None = None
        self._session: dict[str, ExperimentResult] = {}  # exp1/exp2/exp3 of this session
        self._shown_run: str | None = None
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

        self.run_controls.running_changed.connect(self._update_running)
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.cancelled.connect(self._on_runner_cancelled)
        document.advising_changed.connect(self._on_document_advising_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.run_removed.connect(self._on_document_run_removed)

        self.results.show_worked_example(worked_example())
        self._ensure_setup()
        self._refresh()
        self._update_running(False)
        self._show_latest_record()

    # ------------------------------------------------------------------ construction
    def _build_editor(self) -> QWidget:
        w = QWidget(self)
        self.title_label = _ElidedLabel(w)
        self.preset_buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        bar.setSpacing(4)
        bar.addWidget(QLabel("Presets:", w))
        for key, text, tip in PRESET_BUTTONS:
            b = QPushButton(text, w)
            b.setToolTip(tip)
            b.setObjectName(f"preset_{key}")
            b.clicked.connect(lambda _=False, k=key: self.load_preset(k))
            self.preset_buttons[key] = b
            bar.addWidget(b)
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
        self.action_model = ActionSetModel(self._commit_action, self)
        self.action_view = self._grid_view(self.action_model, w)
        self.action_view.setToolTip("Tick a cell to let the agent (row) use the server "
                                    "(column). Hover an agent for its neighbours under DP and "
                                    "traditional advising.")
        self.action_message = self._message_label(w)
        box_a = QGroupBox("Who may use which server (agents × servers)", w)
        box_a.setToolTip(self.action_view.toolTip())
        la = QVBoxLayout(box_a)
        la.setContentsMargins(4, 4, 4, 4)
        la.setSpacing(2)
        la.addWidget(self.action_view, 1)
        row = QHBoxLayout()
        row.setSpacing(2)
        self.add_agent_button = self._tool_button("+", "Add an agent (a copy of the last "
                                                  "agent's servers)", self._on_add_agent, w)
        self.remove_agent_button = self._tool_button("−", "Remove the current agent (or the "
                                                     "last)", self._on_remove_agent, w)
        self.add_server_button = self._tool_button("+", "Add a server (reward 0 everywhere, "
                                                   "used by nobody)", self._on_add_server, w)
        self.remove_server_button = self._tool_button("−", "Remove the current server (or "
                                                      "the last)", self._on_remove_server, w)
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
        self.reward_model = RewardModel(self._commit_reward, self)
        self.reward_view = self._grid_view(self.reward_model, w, 24)
        self.reward_view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                         | QAbstractItemView.EditTrigger.EditKeyPressed
                                         | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.reward_view.setToolTip("R(task, server): what a server earns on a task (higher is "
                                    "better). Bold green: the best server of the task.")
        self.reward_message = self._message_label(w)
        box_r = QGroupBox("Rewards R(task, server) — tasks × servers", w)
        lr = QVBoxLayout(box_r)
        lr.setContentsMargins(4, 4, 4, 4)
        lr.setSpacing(2)
        lr.addWidget(self.reward_view, 1)
        row = QHBoxLayout()
        row.setSpacing(2)
        self.add_task_button = self._tool_button("+", "Add a task (copies the last task's "
                                                 "rewards)", self._on_add_task, w)
        self.remove_task_button = self._tool_button("−", "Remove the current task (or the "
                                                    "last)", self._on_remove_task, w)
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
        self.strategy_combo = QComboBox(box_p)
        for s, text in (("none", "none (no advice)"), ("traditional", "traditional advising"),
                        ("dp", "DP advising")):
            self.strategy_combo.addItem(text, s)
        self.strategy_combo.setToolTip(TOOLTIPS["strategy"])
        _compact(self.strategy_combo, 10)
        self.strategy_combo.activated.connect(self._on_strategy_combo_activated)
        self.variant_combo = QComboBox(box_p)
        for v, text in (("sound", "sound (strict S)"), ("thesis", "thesis (S = 1)"),
                        ("custom", "custom")):
            self.variant_combo.addItem(text, v)
        model = self.variant_combo.model()
        if isinstance(model, QStandardItemModel):
            model.item(2).setEnabled(False)
        self.variant_combo.setToolTip(TOOLTIPS["variant"])
        _compact(self.variant_combo, 10)
        self.variant_combo.activated.connect(self._on_variant_combo_activated)
        self.fields: dict[str, _Field] = {}
        for name in ("epsilon", "distance_threshold", "ask_budget", "give_budget", "epochs",
                     "alpha", "xi"):
            f = _Field(name, box_p)
            f.edit.editingFinished.connect(lambda n=name: self._on_field_editing_finished(n))
            f.edit.textEdited.connect(lambda _t, n=name: self._on_field_text_edited(n))
            self.fields[name] = f
        self.guard_check = QCheckBox("direction guard", box_p)
        self.guard_check.setToolTip(TOOLTIPS["direction_guard"])
        self.guard_check.clicked.connect(self._on_guard_check_clicked)
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
        self._grid_boxes = (box_a, box_r)

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

    @staticmethod
    def _grid_view(model: Any, parent: QWidget, width: int = 22) -> QTableView:
        v = QTableView(parent)
        v.setModel(model)
        v.horizontalHeader().setMinimumSectionSize(16)  # before the default (it clamps)
        v.horizontalHeader().setDefaultSectionSize(width)
        v.verticalHeader().setMinimumSectionSize(14)
        v.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        v.verticalHeader().setDefaultSectionSize(17)
        v.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        v.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        v.setMinimumHeight(120)
        return v

    @staticmethod
    def _message_label(parent: QWidget) -> QLabel:
        lab = QLabel(parent)
        lab.setWordWrap(True)
        lab.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; font-size: 8.5pt; }}")
        lab.hide()
        return lab

    @staticmethod
    def _tool_button(text: str, tip: str, slot: Any, parent: QWidget) -> QToolButton:
        b = QToolButton(parent)
        b.setText(text)
        b.setMinimumWidth(24)
        b.setToolTip(tip)
        b.clicked.connect(slot)
        return b

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
        _compact(self.kind_combo, 14)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_combo_changed)
        self.kind_help = QLabel(w)
        self.kind_help.setWordWrap(True)
        self.kind_help.setTextFormat(Qt.TextFormat.RichText)
        self.kind_help.setStyleSheet("QLabel { color: #333; font-size: 8.5pt; }")
        self.seeded_check = QCheckBox("seeded experiment", w)
        self.seeded_check.setChecked(True)
        self.seeded_check.setToolTip(TOOLTIPS["seeded"])
        self.seeded_check.toggled.connect(self._on_seeded_check_toggled)
        self.seed_spin = QSpinBox(w)
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setValue(0)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.seeds_spin = QSpinBox(w)
        self.seeds_spin.setRange(1, 1000)
        self.seeds_spin.setValue(20)
        self.seeds_spin.setToolTip(TOOLTIPS["seeds"])
        self.workers_spin = QSpinBox(w)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(min(2, os.cpu_count() or 1))
        self.workers_spin.setToolTip(TOOLTIPS["workers"])
        self.epsilons_field = _Field("epsilons", w)
        self.epsilons_field.edit.setText(", ".join(f"{e:g}" for e in EXP3_EPSILONS))
        self.delta_field = _Field("delta", w)
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
        self._on_kind_combo_changed()
        return w

    # ------------------------------------------------------------------ public API
    @property
    def document(self) -> ProjectDocument:
        return self._document

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def setup(self) -> AdvisingSetup | None:
        """The validated set-up shown (``Project.advising[0]``), or None if it is invalid."""
        return self._setup

    @property
    def is_running(self) -> bool:
        return self._runner.is_running

    @property
    def session_experiments(self) -> dict[str, ExperimentResult]:
        return dict(self._session)

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
        self._update_mode_label()

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
        self._clear_all_errors()
        changed = self._push_setup(setup.to_dict(), f"Load advising preset {title}")
        self.message_logged.emit("INFO", f"advising: preset {title} loaded ({variant} variant)")
        return changed

    def run(self) -> bool:
        """Start what the run panel says; False (with the reason shown) if it cannot."""
        if self._closed or self.is_running:
            return False
        try:
            request = self._build_request()
        except _Refused as exc:
            self._show_run_error(str(exc))
            return False
        self.run_error_label.hide()
        self._request = request
        if request.kind == "single":
            self._runner.start(run_advising, request.setup,
                               rng=request.seed if request.seeded else None,
                               delta=request.delta, detail=True)
        else:
            self._runner.start(run_experiment, request.arms, seeds=request.n_seeds,
                               seed=request.seed if request.seeded else None,
                               workers=request.workers, delta=request.delta,
                               name=request.kind)
        self.message_logged.emit("INFO", f"advising: {_KIND_TITLES[request.kind]} started "
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
        self.results.show_summary(s, self._stamp(record, s))
        self.results.show_details_unavailable()
        self._shown_run = run_id
        self._update_claims()
        return True

    # ------------------------------------------------------------------ set-up edits
    def _ensure_setup(self) -> None:
        if not self._document.project.advising:
            d = preset("table35").to_dict()
            self._document.push(SetAdvisingSetupCommand(
                self._document, SETUP_INDEX, d, "Create advising set-up (Table 3.5 preset)"))

    def _push_setup(self, new: dict[str, Any], text: str) -> bool:
        entries = self._document.project.advising
        if entries and entries[SETUP_INDEX] == new:
            return False
        index = SETUP_INDEX if entries else len(entries)
        self._document.push(SetAdvisingSetupCommand(self._document, index, new, text))
        return True

    def _validated(self, new: dict[str, Any]) -> AdvisingSetup:
        return AdvisingSetup.from_dict(new)

    def _current_dict(self) -> dict[str, Any] | None:
        return None if self._setup is None else self._setup.to_dict()

    def _try_edit(self, new: dict[str, Any], text: str, where: QLabel) -> str | None:
        """Validate ``new`` and push it; the error message (shown in ``where``) or None."""
        try:
            valid = self._validated(new)
        except InputError as exc:
            msg = f"Not applied: {exc}"
            where.setText(msg)
            where.show()
            self.message_logged.emit("WARNING", f"advising set-up: {exc}")
            return str(exc)
        where.hide()
        self._push_setup(valid.to_dict(), text)
        return None

    def _commit_action(self, agent: int, server: int, on: bool) -> bool:
        d = self._current_dict()
        if d is None:
            return False
        s = self._setup
        assert s is not None
        verb = "Allow" if on else "Forbid"
        text = f"{verb} server {s.servers[server]} for {s.agents[agent]}"
        return self._try_edit(edit_toggle_server(d, agent, server, on), text,
                              self.action_message) is None

    def _commit_reward(self, task: int, server: int, value: Any) -> str | None:
        d = self._current_dict()
        if d is None:
            return "the set-up is invalid"
        s = self._setup
        assert s is not None
        where = f"R(task {s.tasks[task]}, server {s.servers[server]})"
        try:
            x = parse_number(value)
        except ValueError as exc:
            msg = f"{where} {exc}"
            self.reward_message.setText(f"Not applied: {msg}")
            self.reward_message.show()
            self.message_logged.emit("WARNING", f"advising set-up: {msg}")
            return msg
        return self._try_edit(edit_reward(d, task, server, x), f"Set {where} = {x:g}",
                              self.reward_message)

    def _structural_edit(self, fn: Any, text: str, where: QLabel, *args: Any) -> None:
        d = self._current_dict()
        if d is None:
            return
        self._try_edit(fn(d, *args), text, where)

    def _current_row(self, view: QTableView, count: int) -> int:
        ix = view.currentIndex()
        return ix.row() if ix.isValid() else count - 1

    def _current_col(self, view: QTableView, count: int) -> int:
        ix = view.currentIndex()
        return ix.column() if ix.isValid() else count - 1

    def _on_add_agent(self) -> None:
        self._structural_edit(edit_add_agent, "Add an agent", self.action_message)

    def _on_remove_agent(self) -> None:
        if self._setup is None:
            return
        j = self._current_row(self.action_view, self._setup.n_agents)
        self._structural_edit(edit_remove_agent, f"Remove agent {self._setup.agents[j]}",
                              self.action_message, j)

    def _on_add_server(self) -> None:
        self._structural_edit(edit_add_server, "Add a server", self.action_message)

    def _on_remove_server(self) -> None:
        if self._setup is None:
            return
        k = self._current_col(self.action_view, self._setup.n_servers)
        self._structural_edit(edit_remove_server, f"Remove server {self._setup.servers[k]}",
                              self.action_message, k)

    def _on_add_task(self) -> None:
        self._structural_edit(edit_add_task, "Add a task", self.reward_message)

    def _on_remove_task(self) -> None:
        if self._setup is None:
            return
        t = self._current_row(self.reward_view, self._setup.n_tasks)
        self._structural_edit(edit_remove_task, f"Remove task {self._setup.tasks[t]}",
                              self.reward_message, t)

    def _commit_params(self, changes: dict[str, Any], text: str, fld: _Field | None) -> bool:
        d = self._current_dict()
        if d is None:
            return False
        new = dict(d)
        new["params"] = {**d["params"], **changes}
        try:
            valid = self._validated(new)
        except InputError as exc:
            name = next(iter(changes))
            target = fld or self.fields.get(exc.field or "") or self.fields.get(name)
            sym = _FIELD_LABELS.get(exc.field or name, exc.field or name)
            msg = f"{sym} {_problem(exc)}"
            if target is not None:
                target.set_error(msg)
            else:
                self.setup_error_label.setText(f"Not applied: {msg}")
                self.setup_error_label.show()
            self.message_logged.emit("WARNING", f"advising parameters: {exc}")
            return False
        if fld is not None:
            fld.clear_error()
        self._push_setup(valid.to_dict(), text)
        return True

    def _on_field_text_edited(self, name: str) -> None:
        # validated as you type: show the problem at once, apply on Enter / leaving the field
        f = self.fields[name]
        err = self._field_problem(name, f.edit.text())
        if err:
            f.set_error(err)
        else:
            f.clear_error()

    def _field_value(self, name: str, text: str) -> Any:
        x = parse_number(text)
        if name in _INT_FIELDS and float(x).is_integer():
            return int(x)
        return x

    def _field_problem(self, name: str, text: str) -> str | None:
        sym = _FIELD_LABELS.get(name, name)
        try:
            value = self._field_value(name, text)
        except ValueError as exc:
            return f"{sym} {exc}"
        if self._setup is None:
            return None
        try:
            self._setup.params.replace(**{name: value})
        except InputError as exc:
            return f"{sym} {_problem(exc)}"
        return None

    def _on_field_editing_finished(self, name: str) -> None:
        if self._setup is None:
            return
        f = self.fields[name]
        text = f.edit.text()
        sym = _FIELD_LABELS.get(name, name)
        try:
            value = self._field_value(name, text)
        except ValueError as exc:
            f.set_error(f"{sym} {exc}")
            self.message_logged.emit("WARNING", f"advising parameters: {sym} {exc}")
            return
        if getattr(self._setup.params, name) == value:
            f.clear_error()
            return
        self._commit_params({name: value}, f"Set {sym} = {value:g}", f)

    def _on_strategy_combo_activated(self, index: int) -> None:
        s = str(self.strategy_combo.itemData(index))
        if self._setup is not None and s != self._setup.params.strategy:
            self._commit_params({"strategy": s}, f"Set strategy {s}", None)

    def _on_variant_combo_activated(self, index: int) -> None:
        v = str(self.variant_combo.itemData(index))
        if self._setup is None or v == self._setup.params.variant or v == "custom":
            self._refresh_params()
            return
        p = {k: val for k, val in self._setup.params.to_dict().items()
             if k not in VARIANT_KNOBS[v]}
        params = AdvisingParams.for_variant(v, **p)
        self._commit_params({k: getattr(params, k) for k in VARIANT_KNOBS[v]},
                            f"Use the {v} variant", None)

    def _on_guard_check_clicked(self, checked: bool) -> None:
        if self._setup is not None:
            self._commit_params({"direction_guard": bool(checked)},
                                "Direction guard " + ("on" if checked else "off"), None)

    # ------------------------------------------------------------------ refresh
    def _on_document_advising_changed(self, index: int) -> None:
        if index == SETUP_INDEX:
            self._refresh()

    def _on_document_project_replaced(self) -> None:
        self._session.clear()
        self._shown_run = None
        self.results.clear()
        self.results.clear_sweep()
        self._clear_all_errors()
        self._ensure_setup()
        self._refresh()
        self._show_latest_record()

    def _show_latest_record(self) -> None:
        """Show the project's latest advising run (if any), and the recorded claims."""
        runs = [r for r in self._document.project.runs
                if r.kind in ("advise", "advise-experiment") and r.target == TARGET]
        if runs:
            try:
                self.show_run(runs[-1].id)
                return
            except (KeyError, TypeError, ValueError) as exc:  # a damaged record: say so
                self.results.clear()
                self.message_logged.emit("WARNING", f"advising: cannot show {runs[-1].id} "
                                                    f"({exc})")
        self._update_claims()

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self._shown_run:
            self.results.caption.setText(self.results.caption.text()
                                         + " <i>— its run record was removed (undo)</i>")
            self._shown_run = None

    def _clear_all_errors(self) -> None:
        for f in self.fields.values():
            f.clear_error()
        for lab in (self.action_message, self.reward_message, self.setup_error_label):
            lab.hide()

    def _refresh(self) -> None:
        entries = self._document.project.advising
        self._setup, self._setup_error = None, ""
        if entries:
            try:
                self._setup = AdvisingSetup.from_dict(entries[SETUP_INDEX])
            except InputError as exc:
                self._setup_error = str(exc)
        if self._setup is None:
            why = self._setup_error or "the project has no advising set-up"
            self.setup_error_label.setText(f"The stored advising set-up cannot be used: {why}. "
                                           "Load a preset to replace it.")
            self.setup_error_label.show()
            self.title_label.set_parts("No usable advising set-up", "")
        else:
            self.setup_error_label.hide()
            self.title_label.set_parts(*_setup_title(self._setup))
        self.action_model.set_setup(self._setup)
        self.reward_model.set_setup(self._setup)
        for view in (self.action_view, self.reward_view):
            _fit_grid(view)
        self._balance_editor()
        for lab in (self.action_message, self.reward_message):
            lab.hide()
        self._refresh_params()
        self._update_mode_label()

    def _balance_editor(self) -> None:
        """Grids as wide as their cells need, the parameters get the rest."""
        total = sum(self.editor_splitter.sizes())
        if total <= 0:
            return
        widths = [b.minimumSizeHint().width() for b in self._grid_boxes]
        self.editor_splitter.setSizes([*widths, max(200, total - sum(widths))])

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._balance_editor()

    def _refresh_params(self) -> None:
        s = self._setup
        enabled = s is not None
        for w in (self.strategy_combo, self.variant_combo, self.guard_check,
                  *self.fields.values()):
            w.setEnabled(enabled)
        if s is None:
            return
        p = s.params
        self.strategy_combo.setCurrentIndex(self.strategy_combo.findData(p.strategy))
        self.variant_combo.setCurrentIndex(self.variant_combo.findData(p.variant))
        for name, f in self.fields.items():
            v = getattr(p, name)
            f.edit.setText(f"{v:g}" if isinstance(v, float) else str(v))
            f.clear_error()
        self.guard_check.setChecked(p.direction_guard)
        strict = s.strict_sensitivity
        noise = s.noise_sensitivity
        if abs(noise - strict) < 1e-12:
            text = (f"S = {noise:g} (strict, r<sub>max</sub> − r<sub>min</sub>): each release "
                    f"is {p.epsilon:g}-DP")
        else:
            text = (f"S = {noise:g} (thesis); strict S = {strict:g}: each release is really "
                    f"<b style='color:{ERROR_COLOUR}'>{s.true_epsilon_per_release:g}-DP</b>, "
                    f"not {p.epsilon:g}")
        raw = []
        if p.strategy == "dp" and not p.noise_on_identical_sets:
            raw.append("advice between identical sets is <b>not noised</b>")
        if p.strategy == "traditional" or (p.strategy == "dp" and p.advice_prior == "teacher"):
            raw.append("advice is drawn from the teacher's <b>raw policy</b>")
        if p.strategy != "none" and p.direction_guard:
            raw.append("the direction guard compares <b>raw visit counts</b>")
        if raw:
            text += ("; " + "; ".join(raw) + f" — <b style='color:{ERROR_COLOUR}'>ε spent is "
                     "unbounded</b> for the teachers concerned")
        elif p.strategy == "dp":
            text += "; advice built from the noisy Q-values alone"
        self.sensitivity_label.setText(text)

    # ------------------------------------------------------------------ run parameters
    def _on_kind_combo_changed(self, *args: Any) -> None:
        kind = self.run_kind
        self.kind_help.setText(_KIND_HELP.get(kind, ""))
        experiment = kind != "single"
        self.seeds_spin.setEnabled(experiment)
        self.workers_spin.setEnabled(experiment)
        self.epsilons_field.setEnabled(kind in ("sweep", "exp3"))
        self.seeded_check.setText("seeded experiment" if experiment or
                                  self.seeded_check.isChecked() else
                                  "seeded experiment (unticked: release mode)")
        self._update_mode_label()

    def _on_seeded_check_toggled(self, checked: bool) -> None:
        self.seed_spin.setEnabled(checked)
        self._on_kind_combo_changed()

    def _update_mode_label(self) -> None:
        text = html.escape(self.randomness_label())
        if self.run_kind == "single" and not self.seeded_check.isChecked():
            self.mode_label.setText(f"<b style='color:{ERROR_COLOUR}'>{text}</b>: a private "
                                    "release; its ε is spent for real.")
        else:
            self.mode_label.setText(f"Next run: <b>{text}</b> — for studying the method, "
                                    "not a private release.")

    def _parse_epsilons(self) -> tuple[float, ...]:
        text = self.epsilons_field.edit.text()
        parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise InputError("needs at least one value", field="epsilons")
        vals = []
        for p in parts:
            vals.append(check_epsilon(p.strip(), "epsilons"))
        return tuple(sorted(set(vals)))

    def _build_request(self) -> "_Request":
        if self._setup is None:
            raise _Refused("No usable set-up: load a preset first.")
        problems = [f.error.text() for f in self.fields.values() if f.has_error]
        if self.reward_model.invalid_cells:
            (t, k), (txt, why) = next(iter(self.reward_model.invalid_cells.items()))
            problems.append(f"reward cell (task {self._setup.tasks[t]}, server "
                            f"{self._setup.servers[k]}) shows a refused value {txt!r}")
        if problems:
            raise _Refused("Fix the red fields first (refused values are not applied): "
                           + "; ".join(problems))
        kind = self.run_kind
        seeded = self.seeded_check.isChecked()
        try:
            delta = float(parse_number(self.delta_field.edit.text()))
            advanced_composition([], delta=delta)  # validates 0 < δ < 1
        except (ValueError, InputError) as exc:
            msg = _problem(exc) if isinstance(exc, InputError) else str(exc)
            self.delta_field.set_error(f"δ {msg}")
            raise _Refused(f"δ {msg}") from None
        self.delta_field.clear_error()
        req = _Request(kind=kind, setup=self._setup, seeded=seeded,
                       seed=self.seed_spin.value() if seeded else None,
                       n_seeds=self.seeds_spin.value(), workers=self.workers_spin.value(),
                       delta=delta)
        if kind in ("sweep", "exp3"):
            try:
                req.epsilons = self._parse_epsilons()
            except InputError as exc:
                self.epsilons_field.set_error(f"ε values: {_problem(exc)}")
                raise _Refused(f"ε values: {_problem(exc)}") from None
            self.epsilons_field.clear_error()
        s = self._setup
        try:
            if kind == "strategies":
                req.arms = [ExperimentArm("no advice", s.with_params(strategy="none")),
                            ExperimentArm("traditional", s.with_params(strategy="traditional")),
                            ExperimentArm("dp", s.with_params(strategy="dp"))]
            elif kind == "sweep":
                req.arms = [ExperimentArm("no advice", s.with_params(strategy="none"))] + [
                    ExperimentArm(f"dp eps={e:g}", s.with_params(strategy="dp", epsilon=e))
                    for e in req.epsilons]
            elif kind in ("exp1", "exp2", "exp3"):
                overrides = {k: v for k, v in s.params.to_dict().items() if k != "strategy"}
                extra: dict[str, Any] = {"epsilons": req.epsilons} if kind == "exp3" else {}
                req.arms = experiment_arms(kind, variant="sound", **extra, **overrides)
        except InputError as exc:
            raise _Refused(f"cannot build the experiment: {exc}") from None
        return req

    def _show_run_error(self, message: str) -> None:
        self.run_error_label.setText(message)
        self.run_error_label.show()
        self.progress_label.setText("not started")
        self.message_logged.emit("WARNING", f"advising run not started: {message}")

    # ------------------------------------------------------------------ runner slots
    def _update_running(self, running: bool) -> None:
        # the Run panel's copies of the buttons (RunControls keeps the page's)
        self.side_run_button.setEnabled(not running)
        self.side_cancel_button.setEnabled(running)
        self.running_changed.emit(running)

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", "advising run cancelled")

    def _on_runner_failed(self, exc: object) -> None:
        self._show_run_error(f"The run failed: {exc}")
        self.message_logged.emit("ERROR", f"advising run failed: {type(exc).__name__}: {exc}")

    def _on_runner_succeeded(self, result: object) -> None:
        req = self._request
        if req is None:
            return
        if isinstance(result, AdvisingResult):
            self._finish_single(req, result)
        elif isinstance(result, ExperimentResult):
            self._finish_experiment(req, result)

    def _finish_single(self, req: _Request, result: AdvisingResult) -> None:
        s = result.setup
        p = s.params
        stored = rounded_json(single_summary(result))
        record = RunRecord(
            id=self._document.project.new_run_id(), kind="advise", target=TARGET,
            params=rounded_json({
                "run": "single", "setup": s.name, "strategy": p.strategy, "variant": p.variant,
                "epsilon": p.epsilon, "epochs": p.epochs,
                "distance_threshold": p.distance_threshold, "ask_budget": p.ask_budget,
                "give_budget": p.give_budget, "noise_sensitivity": s.noise_sensitivity,
                "strict_sensitivity": s.strict_sensitivity, "delta": req.delta,
                "seeded": req.seeded, "seed": result.seed, "agents": s.n_agents,
                "servers": s.n_servers, "tasks": s.n_tasks, "params": p.to_dict()}),
            summary=stored, mode=result.mode, seed=result.seed)
        self._record(record, single_ledger_entries(result, source=record.id))
        full = single_summary(result, full=True)
        self.results.show_summary(full, self._stamp(record, full))
        self.results.show_single_details(result)
        self._shown_run = record.id
        self.progress_label.setText(f"done in {result.elapsed_s:.2f} s — recorded as "
                                    f"{record.id}")
        self.message_logged.emit(
            "INFO", f"advising: {record.id} recorded — {p.strategy}, ε = {p.epsilon:g}, "
                    f"{result.epochs} epochs, {result.advice_total} advice events, "
                    f"{randomness_text(result.mode, result.seed)}")
        self.run_recorded.emit(record.id)

    def _finish_experiment(self, req: _Request, result: ExperimentResult) -> None:
        claims: list[Any] = []
        if req.kind in ("exp1", "exp2", "exp3"):
            self._session[req.kind] = result
            claims = [c for c in check_claims(self._session)
                      if c.claim.experiment == req.kind]
        first = req.arms[0].setup.params
        stored = rounded_json(experiment_summary(result, delta=req.delta, claims=claims))
        record = RunRecord(
            id=self._document.project.new_run_id(), kind="advise-experiment", target=TARGET,
            params=rounded_json({
                "run": req.kind, "experiment": _KIND_TITLES[req.kind], "setup": req.setup.name,
                "variant": first.variant, "epsilon": req.setup.params.epsilon,
                "epsilons": list(req.epsilons), "epochs": result.epochs,
                "distance_threshold": first.distance_threshold,
                "ask_budget": first.ask_budget, "give_budget": first.give_budget,
                "seeded": req.seeded, "seed": result.seed, "seeds": result.seeds.tolist(),
                "seed_drawn": result.seed_drawn, "workers": result.workers,
                "delta": req.delta,
                "arms": [{"label": a.label, "strategy": a.setup.params.strategy,
                          "epsilon": a.setup.params.epsilon, "layout": su.layout,
                          "variant": a.setup.params.variant}
                         for a, su in zip(req.arms, result.summaries())]}),
            summary=stored, mode="experiment", seed=result.seed)
        self._record(record, experiment_ledger_entries(result, source=record.id))
        full = experiment_summary(result, full=True, delta=req.delta, claims=claims)
        self.results.show_summary(full, self._stamp(record, full))
        self.results.show_experiment_details(result)
        self._shown_run = record.id
        self._update_claims()
        self.progress_label.setText(f"done in {result.elapsed_s:.1f} s — recorded as "
                                    f"{record.id}")
        self.message_logged.emit(
            "INFO", f"advising: {record.id} recorded — {_KIND_TITLES[req.kind]}, "
                    f"{len(result.labels)} arms × {result.n_seeds} seeds, "
                    f"{result.epochs} epochs, {full['randomness']}")
        self.run_recorded.emit(record.id)

    def _record(self, record: RunRecord, entries: list[Any]) -> None:
        """The run record and its privacy-ledger entries, as one undoable step."""
        what = "advising experiment" if record.kind == "advise-experiment" else "advising run"
        self._document.push(AddRunCommand(self._document, record, text=f"Record {what} "
                                          f"{record.id}", ledger_entries=entries))

    def _stamp(self, record: RunRecord, s: dict[str, Any]) -> str:
        rnd = html.escape(str(s.get("randomness", "")))
        if s.get("mode") == "release":
            rnd = f"<b style='color:{ERROR_COLOUR}'>{rnd}</b>"
        else:
            rnd = f"<b>{rnd}</b>"
        p = record.params
        if record.kind == "advise":
            what = (f"<b>Single run</b> of <i>{html.escape(str(p.get('setup')))}</i> · strategy "
                    f"{p.get('strategy')} · ε = {p.get('epsilon')} · variant {p.get('variant')}")
        else:
            what = (f"<b>{html.escape(str(p.get('experiment')))}</b> · variant "
                    f"{p.get('variant')} · arms: "
                    + html.escape(", ".join(str(a["label"]) for a in p.get("arms", []))))
        return (f"{what} · {s.get('epochs')} epochs · {rnd} · recorded as "
                f"<b>{record.id}</b> ({float(s.get('elapsed_s', 0.0)):.1f} s)")

    # ------------------------------------------------------------------ claims
    def _update_claims(self) -> None:
        checks = [c.to_dict() for c in check_claims(self._session)]
        used = sorted(self._session)
        from_records: list[str] = []
        # claims of experiments not run in this session: the latest recorded verdicts
        latest: dict[str, tuple[str, dict[str, Any]]] = {}
        for r in self._document.project.runs:
            if r.kind == "advise-experiment" and r.target == TARGET:
                for c in r.summary.get("claims", []) or []:
                    latest[c["id"]] = (r.id, c)
        for i, c in enumerate(checks):
            if c["verdict"] == "not run" and c["id"] in latest:
                rid, old = latest[c["id"]]
                checks[i] = {**old, "ours": f"{old.get('ours', '')} [{rid}]"}
                if rid not in from_records:
                    from_records.append(rid)
        parts = []
        if used:
            parts.append("runs of this session: " + ", ".join(
                f"{k} ({self._session[k].n_seeds} seeds, {self._session[k].epochs} epochs, "
                f"{self._session[k].setups[-1].params.variant} variant)"
                for k in used))
        if from_records:
            parts.append("recorded runs " + ", ".join(from_records))
        note = ("<b>Thesis claims (§3.6)</b> — from " + ("; ".join(parts) or "no runs") +
                ". Claims that spec §10.5 says must not be pass/fail tests (the 92 % "
                "asymptote, DP ≥ traditional in Exp. 1, the ~7 % gain, ε = 0.1 worse than no "
                "advice, budgets out near epoch 300) are reported, never asserted. Hover a row "
                "for how it is tested.")
        self.results.show_claims(checks, note)


class _Refused(Exception):
    """The run cannot start (the message says why)."""


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
