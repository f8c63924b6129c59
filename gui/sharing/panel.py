"""The Policy sharing workspace: a teacher kickstarts students through the Dirichlet mechanism.

Left — the set-up, every privacy parameter with a tooltip that says what it means and which
way is more private: the environment (an MDP of the project, or a gymnasium toy-text
environment when the ``gym`` extra is installed; with the ``deep`` extra CartPole-v1 and
Acrobot-v1 with a PPO teacher and PPO students, :mod:`gui.sharing.network_runner`), the teacher
(optimal, or softmax with a temperature), the mechanism (k₀, the vanishing coefficient c, η,
L·b, a target δ per query or a fixed τ, eq. 12's bound), the students (λ, β, κ, learning rate,
which types, seeds, iterations), the teacher's budget (E, D), the randomness (seeded
experiment or release) and the protocol (:mod:`gui.sharing.protocol`). Run (F5) works in this
tab's :class:`~gui.shell.workers.TaskRunner` (:func:`core.sharing.learning.sharing_release`,
the command line's entry point, on the :class:`core.sharing.SharingParameters` the fields
make; the core checks them and a refusal turns its field red); Esc cancels.

Right — four plots and the ledger: the learning curves (median and the 85th-percentile band
over seeds, as the paper plots them, with J(π_T)); ε(k) of eq. 12 split into its L·b part and
G, with δ(k) by Monte Carlo and its Clopper–Pearson bound on a second axis, and the ledger's
roll-outs marked; the student's loss radius α_λ(k) against the radii that hold (the Monte
Carlo 1−β quantile and Chebyshev) with Lemma 1's erratum and the threshold k* below which
demonstrations are ignored; and the ledger table per roll-out with its stop. Each finished run
is recorded in the project (kind ``"sharing"``) with one privacy-ledger entry per live roll-out
of the teacher (``count`` = its queries × the noisy student runs), as one undoable step;
double-click the run in the project tree to show it again.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStatusBar,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.privacy import PrivacyLedger
from core.sharing import (
    GYM_IDS,
    STUDENTS,
    SharingParameters,
    SharingSetup,
    SharingStudy,
    check_sharing_model,
    gym_available,
    mechanism_curves,
    sharing_summary,
)
from gui.sharing.drawing import LivePreview, SharingPlots, record_study, study_task
from gui.sharing.network_runner import PpoParts, add_ppo_envs, is_ppo, show_ppo, start_ppo
from gui.sharing.protocol import ProtocolBox
from gui.sharing.texts import INFO_HTML, STUDENT_LABELS, TOOLTIPS, WARNING_COLOUR
from gui.sharing.views import PlotWidgets, RecordOutlet, SetupFields
from gui.shell.document import ProjectDocument
from gui.shell.plots import add_legend, make_plot
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, info_panel, show_field_error, vertical_scroll

__all__ = ["SharingPanel", "TOOLTIPS", "STUDENT_LABELS"]

class SharingPanel(ToolPanel):
    """The Policy sharing tool tab (see the module docstring)."""

    result_shown = Signal()
    status_name = "Policy sharing"
    log_name = "policy sharing"
    undo_key = "sharing"

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.setObjectName("sharing_panel")
        self.study: SharingStudy | None = None
        self._request: tuple[SharingParameters, Any] | None = None  # what Run started
        self._pending_run: Any = None
        self.last_recorded: str | None = None

        title = QLabel("<b>Policy sharing</b> — a teacher shares its policy with a student "
                       "through the Dirichlet mechanism; the teacher's observations stay "
                       "(ε, δ)-private (Theorem 1 of [KS]) and it stops when its budget is "
                       "spent.", self)
        title.setWordWrap(True)
        setup = self._build_setup()
        self.inputs = SetupFields(self.env_combo, self.fields, self.tau_check, self.bound_combo,
                                  self.iter_spin, self.rollout_combo, self.mode_combo,
                                  self.seed_spin, self.protocol, self.teacher_combo,
                                  self.temperature_spin, self.student_checks, self.seeds_spin)
        for combo in setup.findChildren(QComboBox):  # elided, not as wide as the longest item
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            longest = max((len(combo.itemText(i)) for i in range(combo.count())), default=10)
            combo.setMinimumContentsLength(min(10, max(1, longest)))
        scroll = vertical_scroll(setup, self)
        scroll.setMinimumWidth(270)  # with the plots at 210: the page fits 1366×768's middle
        # the plots and the ledger scroll on their own: the page fits 768 px, Run in sight
        results = vertical_scroll(self._build_results(), self, frame=False)
        self.plots = SharingPlots(PlotWidgets(
            self.curve_plot, self.eps_plot, self.delta_plot, self.radius_plot,
            self.ternary_plot, self.badge, self.summary_label, self.ledger_table,
            self.result_shown.emit))
        self.ppo_parts = PpoParts(document, self._runner, self.inputs, self.plots,
                                  RecordOutlet(self, self._say, self.message_logged.emit),
                                  self._show_error, self._set_recorded, self.randomness_label)
        left = QWidget(self)  # Run stays in sight below the form
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(scroll, 1)
        column.addLayout(self.run_controls.layout_row())
        column.addWidget(self.message)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(results)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        split.setSizes([335, 1200])  # the form's minimum (314 px) beside its scroll bar
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(title)
        layout.addWidget(split, 1)
        self.info_panel = info_panel(INFO_HTML)
        self.run_controls.running_changed.connect(self._set_running)
        self.connect_runner()
        for sig in (document.mdp_added, document.mdp_removed, document.project_replaced):
            sig.connect(lambda *_: self._fill_envs())
        for sig in (document.run_added, document.run_removed):
            sig.connect(lambda *_: self._fill_teachers())
        self.env_combo.currentIndexChanged.connect(lambda _: self._fill_teachers())
        self._fill_teachers()
        self.live = LivePreview(document, self, self.inputs, self.plots)
        for w in self.fields.values():
            w.valueChanged.connect(lambda *_: self.live.schedule())
        for sig in (self.bound_combo.currentIndexChanged, self.tau_check.toggled,
                    self.env_combo.currentIndexChanged):
            sig.connect(lambda *_: self.live.schedule())
        self.live.schedule()
        self._show_empty()

    # ------------------------------------------------------------------ construction
    def _spin(self, key: str, value: float, lo: float, hi: float, *, log: bool = False,
              label: str = "") -> Any:
        w = SciSpinBox(self, minimum=lo, maximum=hi, value=value, name=label or key,
                       log_step=2.0 if log else None, step=0.01 if hi <= 1 else 0.1)
        w.setToolTip(TOOLTIPS[key])
        return w

    def _build_setup(self) -> QWidget:
        box = QWidget(self)
        outer = QVBoxLayout(box)
        env_box = QGroupBox("Environment and teacher", box)
        f = QFormLayout(env_box)
        self.env_combo = QComboBox(env_box)
        self.env_combo.setToolTip(TOOLTIPS["env"])
        self.env_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.env_combo.setMinimumContentsLength(16)
        f.addRow("environment", self.env_combo)
        self.add_env_button = QPushButton("Add to project", env_box)
        self.add_env_button.setToolTip("Import this gymnasium environment into the project as a "
                                       "normal MDP (editable, saveable, undoable).")
        self.add_env_button.clicked.connect(self.add_environment_to_project)
        self.env_combo.currentIndexChanged.connect(
            lambda _: self.add_env_button.setEnabled(
                str(self.env_combo.currentData() or "").startswith("gym:")))
        f.addRow("", self.add_env_button)
        row = QHBoxLayout()
        self.teacher_combo = QComboBox(env_box)
        self.teacher_combo.addItem("optimal", "optimal")
        self.teacher_combo.addItem("softmax", "softmax")
        self.teacher_combo.setToolTip(TOOLTIPS["teacher"])
        self.temperature_spin = SciSpinBox(env_box, minimum=1e-3, maximum=1e3, value=0.1,
                                           log_step=2.0)
        self.temperature_spin.setToolTip("Softmax temperature T > 0.")
        self.temperature_spin.setEnabled(False)
        self.teacher_combo.currentIndexChanged.connect(
            lambda _: self.temperature_spin.setEnabled(self.teacher_combo.currentData()
                                                       == "softmax"))
        row.addWidget(self.teacher_combo)
        row.addWidget(QLabel("T", env_box))
        row.addWidget(self.temperature_spin)
        f.addRow("teacher", row)
        outer.addWidget(env_box)

        mech = QGroupBox("Mechanism (Theorem 1)", box)
        g = QFormLayout(mech)
        self.fields: dict[str, Any] = {}
        for key, label, value, lo, hi, log in (
                ("k0", "k₀", 5.0, 1e-3, 1e6, True), ("coef", "c (vanishing)", 0.9, 1e-3, 1.0,
                                                         False),
                ("eta", "η", 0.1, 1e-6, 1.0, True), ("lb", "L·b", 0.05, 0.0, 10.0, False),
                ("delta", "target δ / query", 1e-3, 1e-12, 0.5, True),
                ("tau", "fixed τ", 1e-3, 1e-300, 0.5, True)):
            w = self._spin(key, value, lo, hi, log=log, label=label)
            self.fields[key] = w
            lab: QWidget
            if key == "tau":
                self.tau_check = QCheckBox(label, mech)
                self.tau_check.setToolTip(TOOLTIPS["tau"])
                self.tau_check.toggled.connect(w.setEnabled)
                self.tau_check.toggled.connect(lambda on: self.fields["delta"].setEnabled(not on))
                w.setEnabled(False)
                lab = self.tau_check
            else:
                lab = QLabel(label, mech)
                lab.setToolTip(TOOLTIPS[key])
            g.addRow(lab, w.with_note())
        self.bound_combo = QComboBox(mech)
        self.bound_combo.addItem("exact profile (certified)", "profile")
        self.bound_combo.addItem("eq. 12 (paper)", "paper")
        self.bound_combo.addItem("tight (halved L·b term)", "tight")
        self.bound_combo.setToolTip(TOOLTIPS["bound"])
        g.addRow("ε bound", self.bound_combo)
        outer.addWidget(mech)

        stud = QGroupBox("Students and budget", box)
        h = QFormLayout(stud)
        for key, label, value, lo, hi, log in (
                ("lam", "λ", 0.5, 0.0, 100.0, False), ("beta", "β", 0.05, 1e-9, 0.999, True),
                ("kappa", "κ", 1.0, 0.0, 1e3, False), ("lr", "learning rate", 5.0, 0.0, 1e4,
                                                        False),
                ("budget_e", "budget E", 1e4, 0.0, 1e9, True),
                ("budget_d", "budget D", 0.9, 0.0, 0.999999, False)):
            w = self._spin(key, value, lo, hi, log=log, label=label)
            self.fields[key] = w
            lab = QLabel(label, stud)
            lab.setToolTip(TOOLTIPS[key])
            h.addRow(lab, w.with_note())
        self.student_checks: dict[str, QCheckBox] = {}
        grid = QGridLayout()
        for i, kind in enumerate(STUDENTS):
            c = QCheckBox(STUDENT_LABELS[kind], stud)
            c.setChecked(True)
            c.setToolTip(f"Run the {STUDENT_LABELS[kind]} student.")
            self.student_checks[kind] = c
            grid.addWidget(c, i, 0)  # one column: the form fits a 300-px column
        h.addRow(grid)
        self.seeds_spin = QSpinBox(stud)
        self.seeds_spin.setRange(1, 1000)
        self.seeds_spin.setValue(10)
        self.seeds_spin.setToolTip(TOOLTIPS["seeds"])
        self.iter_spin = QSpinBox(stud)
        self.iter_spin.setRange(1, 100_000)
        self.iter_spin.setValue(300)
        self.iter_spin.setToolTip(TOOLTIPS["iterations"])
        self.rollout_combo = QComboBox(stud)
        self.rollout_combo.addItem("exact (every reachable state)", "exact")
        self.rollout_combo.addItem("sampled roll-outs", "sample")
        self.rollout_combo.setToolTip("Exact: the teacher answers at every state the student can "
                                      "reach, each iteration. Sampled: only at the states one "
                                      "sampled roll-out visits (the ledger still counts every "
                                      "reachable state: conservative).")
        h.addRow("roll-outs", self.rollout_combo)
        h.addRow("seeds", self.seeds_spin)
        h.addRow("iterations", self.iter_spin)
        self.mode_combo = QComboBox(stud)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release mode (secure)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.seed_spin = QSpinBox(stud)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(1)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.mode_combo.currentIndexChanged.connect(
            lambda _: self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment"))
        h.addRow("randomness", self.mode_combo)
        h.addRow("seed", self.seed_spin)
        outer.addWidget(stud)
        self.protocol = ProtocolBox(box)  # after the budget, rewards, gradient, penalty
        outer.addWidget(self.protocol)

        self.run_controls = RunControls(
            self._runner, box, run=self.run, cancel=self.cancel,
            run_text="▶ Run (F5)", run_tip="Run the teacher and the students (F5)",
            cancel_tip="Stop (Esc)", running_text="sharing…", clear_on_finish=False)
        self.message = QLabel(box)  # with Run, under the scrolled form (__init__)
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.message.hide()
        outer.addStretch(1)
        self._fill_envs()
        return box

    def _build_results(self) -> QWidget:
        box = QWidget(self)
        grid = QGridLayout(box)
        self.curve_plot = make_plot("Learning, 85 % band",
                                    "iteration (roll-out)", "J(π) at s₀", parent=box,
                                    min_size=(210, 180))
        self.curve_legend = add_legend(self.curve_plot, "bottom-right")
        self.eps_plot = make_plot("ε per query (eq. 12)", "k", "ε", parent=box,
                                  min_size=(210, 180))
        self.eps_plot.setLogMode(x=True, y=False)
        self.eps_legend = add_legend(self.eps_plot, "top-left")
        self.delta_plot = make_plot("δ per query (MC, eq. 6)", "k", "δ", parent=box,
                                    min_size=(210, 180))
        self.delta_plot.setLogMode(x=True, y=False)
        self.delta_legend = add_legend(self.delta_plot, "top-right")
        self.radius_plot = make_plot("Loss radius vs radii", "k", "‖Dir_k(π) − π‖₂",
                                     parent=box, min_size=(210, 180))
        self.radius_plot.setLogMode(x=True, y=False)
        self.radius_legend = add_legend(self.radius_plot, "top-right")
        self.ternary_plot = make_plot("Shared policies (m = 3)", "", "", parent=box)
        self.ternary_plot.setAspectLocked(True)
        self.ternary_plot.hideAxis("bottom")
        self.ternary_plot.hideAxis("left")
        self.ternary_legend = add_legend(self.ternary_plot, "top-right", avoid_data=False)
        self.ternary_plot.hide()
        for p in (self.curve_plot, self.eps_plot, self.delta_plot, self.radius_plot):
            p.setMinimumHeight(180)
        grid.addWidget(self.curve_plot, 0, 0)
        grid.addWidget(self.eps_plot, 0, 1)
        grid.addWidget(self.delta_plot, 1, 0)
        grid.addWidget(self.radius_plot, 1, 1)
        grid.addWidget(self.ternary_plot, 0, 2, 2, 1)
        self.badge = QLabel(box)
        self.badge.setWordWrap(True)
        self.badge.setStyleSheet(f"color: {WARNING_COLOUR};")
        grid.addWidget(self.badge, 2, 0, 1, 2)
        self.summary_label = QLabel(box)
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        grid.addWidget(self.summary_label, 3, 0, 1, 2)
        self.ledger_table = QTableWidget(0, 9, box)
        self.ledger_table.setHorizontalHeaderLabels(
            ["roll-out", "k", "ε / query", "δ / query", "τ", "queries", "ε total (all runs)",
             "δ total (all runs)", "ε advanced"])
        self.ledger_table.setToolTip("The teacher's ledger per roll-out, over every noisy "
                                     "student run (each receives its own draws): basic "
                                     "composition (the stop rule, with what the project "
                                     "already spent on the teacher's data) and advanced "
                                     "composition (an extra, slack D/2).")
        self.ledger_table.setMinimumHeight(120)
        self.ledger_table.verticalHeader().setVisible(False)
        grid.addWidget(self.ledger_table, 4, 0, 1, 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 3)
        grid.setRowStretch(4, 2)
        return box

    def add_environment_to_project(self) -> str | None:
        """Import the chosen gymnasium environment as a project MDP (undoable); its id."""
        from core.mdp import MAX_LAYOUT_STATES, MdpModel, fill_missing_positions
        from core.sharing import import_gym
        from gui.shell.commands import AddMdpCommand

        key = str(self.env_combo.currentData() or "")
        if not key.startswith("gym:"):
            return None
        try:
            mdp = import_gym(key)
        except InputError as exc:
            self._show_error(exc)
            return None
        model = MdpModel.from_mdp(mdp)
        if model.n_states <= MAX_LAYOUT_STATES:
            model.positions = fill_missing_positions(model)
        cmd = AddMdpCommand(self._document, model, text=f"Import “{mdp.name}”")
        self._document.push(cmd)
        self._fill_envs()
        self.set_parameters(env=f"mdp:{cmd.mdp_id}")
        self.message_logged.emit("INFO", f"{mdp.name} added to the project as {cmd.mdp_id}")
        return cmd.mdp_id

    def _fill_teachers(self) -> None:
        """optimal, softmax, and π̄ of every Synthesise & bound run of the chosen MDP."""
        current = self.teacher_combo.currentData()
        self.teacher_combo.blockSignals(True)
        while self.teacher_combo.count() > 2:
            self.teacher_combo.removeItem(2)
        env = self.env_combo.currentData() or ""
        for r in self._document.project.runs:
            if r.kind == "bounds" and env == f"mdp:{r.target}" and "policy" in r.summary:
                self.teacher_combo.addItem(f"π̄ of {r.id} (k = {r.params.get('k')})",
                                           f"run:{r.id}")
        i = self.teacher_combo.findData(current)
        self.teacher_combo.setCurrentIndex(max(i, 0))
        self.teacher_combo.blockSignals(False)
        self.temperature_spin.setEnabled(self.teacher_combo.currentData() == "softmax")

    def _fill_envs(self) -> None:
        current = self.env_combo.currentData()
        self.env_combo.clear()
        for e in self._document.project.mdps:
            self.env_combo.addItem(f"{e.mdp.name or e.id} (project)", f"mdp:{e.id}")
        add_ppo_envs(self.env_combo)   # the deep extra's PPO environments, when installed
        if gym_available():
            for gid in GYM_IDS:
                if gid == "CliffWalking-v1":
                    continue
                self.env_combo.addItem(f"{gid} (gymnasium)", f"gym:{gid}")
                if gid == "FrozenLake-v1":
                    self.env_combo.addItem("FrozenLake-v1 8×8 (gymnasium)", "gym:FrozenLake-v1:8x8")
        i = self.env_combo.findData(current)
        if i >= 0:
            self.env_combo.setCurrentIndex(i)

    # ------------------------------------------------------------------ workspace protocol
    @property
    def curves(self) -> dict[str, Any]:
        """The plotted items by name (tests read their data back)."""
        return self.plots.curves

    @property
    def live_shown(self) -> Any:
        """(PrivacyCurve, RadiusCurve) drawn by the live panels, None before."""
        return self.live.shown

    def randomness_label(self) -> str:
        seed = self.seed()
        return ("policy sharing in release mode (secure noise)" if seed is None
                else f"policy sharing as a seeded experiment (seed {seed})")

    def seed(self) -> int | None:
        return self.inputs.seed()

    def setup(self) -> SharingSetup:
        """The parameters as typed (checked by the core when run)."""
        return self.inputs.setup()

    def set_parameters(self, **values: Any) -> None:
        """Set fields by name (``env``, ``k0``, ``coef``, …, ``seeds``, ``iterations``,
        ``seed``, ``students``; the names of :meth:`SetupFields.bindings`): for tests,
        previews and screenshots."""
        self.inputs.show(**values)

    def _environment(self) -> Any:
        key = self.env_combo.currentData()
        if key is None:
            raise InputError("the project has no MDP and gymnasium is not installed: draw an "
                             "MDP first", field="env")
        if key.startswith("gym:"):
            from core.sharing import import_gym

            return import_gym(key)
        return self._document.mdp_entry(key[4:]).mdp

    def run(self) -> bool:
        """Start the study (F5); False with the reason shown if the set-up is refused."""
        if self._runner.is_running:
            return False
        self._clear_errors()
        key = self.env_combo.currentData()
        if is_ppo(key):
            return start_ppo(self.ppo_parts)
        try:
            mdp = self._environment()
            params = self.inputs.parameters(str(key))
            check_sharing_model(mdp, params.setup)  # η <= 1/m of this model
            actions = self._teacher_actions(params)
        except InputError as exc:
            self._show_error(exc)
            return False
        self._request = (params, mdp)
        self.message_logged.emit("INFO", f"policy sharing started on {mdp.name} "
                                         f"({self.randomness_label()})")
        # the teacher's budget covers what the project already spent on its data
        spent = PrivacyLedger.from_project(self._document.project).spent(params.env)
        self._runner.start(study_task, params, mdp=mdp, teacher_actions=actions, spent=spent)
        return True

    def _teacher_actions(self, params: SharingParameters) -> list[int] | None:
        """The policy of a ``run:ID`` teacher (None for the others)."""
        run_id = params.teacher_run
        if run_id is None:
            return None
        from core.sharing import run_policy

        try:
            return run_policy(self._document.run(run_id))
        except KeyError:
            raise InputError(f"no run {run_id!r}", field="teacher") from None

    def _set_recorded(self, run_id: str) -> None:
        self.last_recorded = run_id

    def shutdown(self) -> None:
        self.live.shutdown()
        super().shutdown()

    # ------------------------------------------------------------------ results
    def _clear_errors(self) -> None:
        self.message.hide()
        for key, w in self.fields.items():
            show_field_error(w, "", TOOLTIPS[key])

    def _show_error(self, exc: InputError) -> None:
        # the first number field bound to the refused key (budget: E)
        field = next((b.name for b in self.inputs.bindings()
                      if b.field == exc.field and b.name in self.fields), "")
        if field:
            show_field_error(self.fields[field], str(exc.problem), TOOLTIPS[field])
        self._say(str(exc))

    def _say(self, text: str) -> None:
        """Show ``text`` in red under Run."""
        self.message.setText(text)
        self.message.show()

    def _set_running(self, running: bool) -> None:
        self.running_changed.emit(running)

    def _on_runner_failed(self, exc: object) -> None:
        if isinstance(exc, InputError):
            self._show_error(exc)
        else:
            self._say(f"The run failed: {exc}")
        self.message_logged.emit("ERROR", f"policy sharing: {exc}")

    def _on_runner_succeeded(self, study: object) -> None:
        if isinstance(study, tuple):  # the curves of a recorded run (show_run)
            return self._on_curves(study)
        if not isinstance(study, SharingStudy):  # a PPO run (the deep extra)
            return show_ppo(self.ppo_parts, study)
        self.show_study(study)
        self.message_logged.emit("INFO", "policy sharing finished")

    def _show_empty(self) -> None:
        self.summary_label.setText("<i>Run (F5) to see the students' learning curves, the "
                                   "teacher's ε and δ per query, the loss radius against the "
                                   "radii that hold, and the teacher's ledger.</i>")
        self.badge.setText("")

    def show_study(self, study: SharingStudy) -> None:
        """Draw ``study`` (fresh from the worker), record it in the project, and show it."""
        res = study.result
        outlet = RecordOutlet(self, self._say, self.message_logged.emit)
        params, mdp = self._request if self._request is not None else (None, None)
        recorded = record_study(self._document, outlet, params, res, study, mdp)
        if recorded is None:  # over the budget and declined: nothing shown
            return
        self.last_recorded = recorded
        self.study = study
        summary = sharing_summary(res)
        self.plots.draw(summary, study.privacy, study.radius, study.model_name, study.m,
                   tight=study.tight, robust=study.robust)
        self.plots.draw_ternary(study.ternary)

    def show_run(self, run_id: str) -> None:
        """Show a recorded run again: its curves and ledger from the record; the mechanism's
        curves are recomputed from its public parameters in the worker (a fraction of a
        second)."""
        record = self._document.run(run_id)
        p = record.params
        self._runner.start(mechanism_curves, float(p["k0"]), int(record.summary.get("m") or 2),
                           float(p["eta"]), float(p["lb"]), float(p["lambda"]),
                           float(p["beta"]), str(p.get("bound", "paper")),
                           float(record.summary.get("curve_tau") or 1e-3), record.seed)
        self._pending_run = record

    def _on_curves(self, curves: object) -> None:
        record = getattr(self, "_pending_run", None)
        if record is None or not isinstance(curves, tuple):
            return
        self._pending_run = None
        s = record.summary
        self.plots.draw(s, curves[0], curves[1], str(record.params.get("env", record.target)),
                   int(s.get("m") or 2), recorded=record.id, tight=curves[2])
        self.plots.draw_ternary(None)  # the draws are not recorded



register_tool(ToolSpec(
    "sharing", "Policy sharing",
    lambda window: SharingPanel(window.document, window.tabs, status_bar=window.statusBar()),
    "Private policy sharing: a teacher kickstarts students through the Dirichlet mechanism "
    "(Theorem 1 of [KS]).\nDouble-click to open."))
