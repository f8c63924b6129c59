"""Planning a task on the logistics map: the task picker, the run and its record.

:class:`TaskPlanner` is a part of :class:`gui.logistics.panel.LogisticsPanel`: given the
map page's state, its widgets (:class:`gui.logistics.views.PlanWidgets`), the panel's runner
and callables for what it asks of the panel, it builds the task picker and the Run controls
of the right-hand dock (their fields are its own), runs in the runner and answers the
panel's Workspace protocol for the map page (the experiments page runs its own benchmark). A
run builds :class:`core.logistics.release.PlanParameters` from the widgets (the core checks
them, once) and runs :func:`core.logistics.release.plan_release` in the worker, as ``plan``
does; the result is recorded by :func:`core.project.recording.plan_run_record` with its
agents' ledger entries, in one undoable :class:`gui.shell.commands.AddRunCommand`.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.logistics import APPROACHES, PlannerParams, PlanningSession
from core.logistics import edits as E
from core.logistics.packet_records import PACKET_KIND
from core.logistics.release import PlanParameters, PlanRelease, plan_release
from core.project import plan_run_record
from gui.logistics.jobs import APPROACH_TEXT, AUTO_BUDGET, TOOLTIPS, map_structure
from gui.logistics.views import MapState, PlanWidgets
from gui.shell.bindings import (
    Binding,
    combo_binding,
    read_bindings,
    set_tooltips,
    show_bindings,
    show_fields,
)
from gui.shell.ledger import OVER_BUDGET_TEXT
from gui.shell.param_field import ParamField
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import show_field_error

if TYPE_CHECKING:
    from core.privacy import LedgerEntry
    from core.project import RunRecord
    from gui.shell.document import ProjectDocument
    from gui.shell.workers import TaskRunner

__all__ = ["TaskPlanner"]


#: why Run was refused without a map (cleared as soon as a map exists)
NO_MAP_TEXT = "add a map first (fig41 or Generate world…)"
SOLVER_TIP = ("Step 3's high-level solver on the center graph: Dijkstra (exact), or the "
              "route-probability RL of thesis §4.5.3, whose learning curve is shown in the "
              "results (tab RL learning curve). Post-processing: no privacy cost.")
SEED_TIP = "Seed of the experiment: the same seed gives the same noise and the same route."

class TaskPlanner:
    """The task picker, the planning run and its record (see the module docstring)."""

    def __init__(self, document: ProjectDocument, state: MapState, widgets: PlanWidgets,
                 runner: TaskRunner, *, log: Callable[[str, str], None],
                 running_changed: Callable[[bool], None], refuse: Callable[[str], bool],
                 clear_problem: Callable[[], None],
                 record: Callable[[RunRecord, list[LedgerEntry], RunControls], bool],
                 select_map: Callable[[str], None], sync_route: Callable[[], None]) -> None:
        self._document = document
        self._state = state
        self._w = widgets
        self._runner = runner
        self._log = log
        self._running_changed = running_changed
        self._refuse = refuse  # ToolPanel.refuse: the reason in run_message and the log
        self._clear_problem = clear_problem
        self._record = record  # ToolPanel.record: budgets asked, recorded, shown, announced
        self._select_map = select_map
        self._sync_route = sync_route

    def connect(self) -> None:
        """Follow the runner, the pages and the document (after the side is built)."""
        w = self._w
        self.run_controls.running_changed.connect(self.update_running)
        w.experiments.run_controls.running_changed.connect(self.emit_running_changed)
        w.packet.run_controls.running_changed.connect(self.emit_running_changed)
        w.pages.currentChanged.connect(self.emit_running_changed)
        self._document.run_removed.connect(self._on_document_run_removed)
        self._document.run_added.connect(self._on_document_run_added)

    def build_side(self) -> QWidget:
        w = QWidget()
        w.setObjectName("logistics_map_side")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(4, 4, 4, 4)
        tbox = QGroupBox("Task and run", w)
        tf = QFormLayout(tbox)
        self.stored_task_combo = QComboBox(tbox)
        self.stored_task_combo.setToolTip("Tasks stored with the map (e.g. the thesis's "
                                          "running task a2 → f4).")
        self.stored_task_combo.activated.connect(self._on_stored_task_activated)
        tf.addRow("stored task", self.stored_task_combo)
        self.origin_combo = QComboBox(tbox)
        self.goal_agent_combo = QComboBox(tbox)
        self.goal_agent_combo.currentIndexChanged.connect(self._on_goal_agent_changed)
        self.goal_combo = QComboBox(tbox)
        tf.addRow("origin base", self.origin_combo)
        tf.addRow("goal agent", self.goal_agent_combo)
        tf.addRow("goal base", self.goal_combo)
        self.approach_combo = QComboBox(tbox)
        for a in APPROACHES:
            self.approach_combo.addItem(APPROACH_TEXT[a][0], a)
            self.approach_combo.setItemData(self.approach_combo.count() - 1,
                                            APPROACH_TEXT[a][1], Qt.ItemDataRole.ToolTipRole)
        tf.addRow("approach", self.approach_combo)
        self.preset_combo = QComboBox(tbox)
        self.preset_combo.addItem("sound (recommended)", "sound")
        self.preset_combo.addItem("thesis (faithful, flawed)", "thesis")
        tf.addRow("preset", self.preset_combo)
        self.solver_combo = QComboBox(tbox)
        self.solver_combo.addItem("Dijkstra", "dijkstra")
        self.solver_combo.addItem("RL (§4.5.3)", "rl")
        tf.addRow("solver", self.solver_combo)
        # bound to PlannerParams.epsilon: its default and its check are the core's
        self.epsilon_field = ParamField(
            "epsilon", lambda: PlannerParams.preset_params(self.preset_combo.currentData()),
            tbox, label="ε", tooltip=TOOLTIPS["epsilon"])
        self.epsilon_edit = self.epsilon_field.edit
        eps_label = QLabel("ε", tbox)
        eps_label.setToolTip(TOOLTIPS["epsilon"])
        tf.addRow(eps_label, self.epsilon_field)
        self.budget_spin = QSpinBox(tbox)
        self.budget_spin.setRange(AUTO_BUDGET, 100000)
        self.budget_spin.setSpecialValueText("auto (N + 30)")
        self.budget_spin.setValue(AUTO_BUDGET)
        c_label = QLabel("budget C", tbox)
        c_label.setToolTip(TOOLTIPS["budget"])
        tf.addRow(c_label, self.budget_spin)
        self.mode_combo = QComboBox(tbox)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release mode (secure noise)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.mode_combo.currentIndexChanged.connect(self._on_mode_changed)
        tf.addRow("randomness", self.mode_combo)
        self.seed_spin = QSpinBox(tbox)
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(1)
        tf.addRow("seed", self.seed_spin)
        self._plan_fields, self._planner_fields = self._bindings()
        set_tooltips((*self._plan_fields, *self._planner_fields))
        self.run_message = QLabel(tbox)
        self.run_message.setWordWrap(True)
        self.run_message.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.run_message.hide()
        tf.addRow(self.run_message)
        self.run_controls = RunControls(
            self._runner, tbox, run=self.run_plan, cancel=self._runner.cancel,
            run_tip="Plan and execute this task in the background.",
            running_text=lambda: ("planning…" if (self._state.job or {}).get("kind") == "plan"
                                  else "generating…"), progress_width=None)
        self.run_button = self.run_controls.run_button
        self.cancel_button = self.run_controls.cancel_button
        self.progress = self.run_controls.progress
        self.progress_label = self.run_controls.progress_label
        self.progress_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        tf.addRow(row)
        tf.addRow(self.progress)
        tf.addRow(self.progress_label)
        for c in (self.stored_task_combo, self.origin_combo, self.goal_agent_combo,
                  self.goal_combo, self.approach_combo, self.preset_combo, self.mode_combo,
                  self.solver_combo):
            c.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            c.setMinimumContentsLength(8)
        lay.addWidget(tbox)
        lay.addStretch(1)
        return w


    # ================================================================== task picker
    def fill_task_picker(self) -> None:
        d = self._state.map_dict()
        if d is not None and self.run_problem == NO_MAP_TEXT:  # a stale refusal: a map exists
            self._clear_problem()
            self.run_message.setText("")
        keep = (self.origin_combo.currentData(), self.goal_agent_combo.currentData(),
                self.goal_combo.currentData())
        self._state.syncing = True
        for c in (self.origin_combo, self.goal_agent_combo, self.stored_task_combo):
            c.clear()
        try:
            if d is None:
                return
            bases = E.nodes_of_kind(d, "base")
            agent_of = {n["id"]: n.get("agent") for n in d["nodes"] if n.get("kind") == "base"}
            for b in sorted(bases, key=lambda x: (str(agent_of[x]), x)):
                self.origin_combo.addItem(f"{b}  (agent {agent_of[b]})", b)
            for a in E.agents_of(d):
                self.goal_agent_combo.addItem(a, a)
            self.stored_task_combo.addItem("(custom)", None)
            for t in (d.get("graph") or {}).get("tasks", []):
                label = f"{t['origin']} → {t['goal_agent']}" + (
                    f" (goal {t['goal']})" if t.get("goal") else "")
                self.stored_task_combo.addItem(label, dict(t))
        finally:
            self._state.syncing = False
        o = self.origin_combo.findData(keep[0])
        g = self.goal_agent_combo.findData(keep[1])
        if o >= 0 and g >= 0:
            self.origin_combo.setCurrentIndex(o)
            self.goal_agent_combo.setCurrentIndex(g)
            self._fill_goal_bases(keep[2])
        elif self.stored_task_combo.count() > 1:
            self.stored_task_combo.setCurrentIndex(1)
            self._on_stored_task_activated(1)
        else:
            self._fill_goal_bases(None)

    def _fill_goal_bases(self, keep: str | None) -> None:
        d = self._state.map_dict()
        self.goal_combo.clear()
        self.goal_combo.addItem("any (nearest to the hand-over)", None)
        ga = self.goal_agent_combo.currentData()
        if d is None or ga is None:
            return
        for n in d["nodes"]:
            if n.get("kind") == "base" and n.get("agent") == ga:
                self.goal_combo.addItem(n["id"], n["id"])
        i = self.goal_combo.findData(keep) if keep is not None else 0
        self.goal_combo.setCurrentIndex(max(0, i))

    def _on_goal_agent_changed(self, *args: object) -> None:
        if not self._state.syncing:
            self._fill_goal_bases(None)

    def _on_stored_task_activated(self, index: int) -> None:
        t = self.stored_task_combo.itemData(index)
        if not t:
            return
        self.set_task(t["origin"], t["goal_agent"], t.get("goal"))
        self.stored_task_combo.setCurrentIndex(index)

    def set_task(self, origin: str, goal_agent: str, goal: str | None = None) -> None:
        """Pick a task (origin base, goal agent, optional goal base)."""
        show_bindings(self._plan_fields, {"origin": origin, "goal_agent": goal_agent,
                                          "goal": goal})
        self.stored_task_combo.setCurrentIndex(0)

    def set_plan_options(self, *, seeded: bool | None = None, **values: Any) -> None:
        """Set the run parameters by the names of :meth:`_bindings` (``approach``,
        ``preset``, ``epsilon``, ``budget``, ``seed``, ``solver``; None leaves a field as it
        is; ``seeded`` False: release mode): tests, the screenshot script, a recorded run."""
        show_bindings((*self._plan_fields, *self._planner_fields),
                      {k: v for k, v in values.items() if v is not None})
        if seeded is not None:
            self.mode_combo.setCurrentIndex(0 if seeded else 1)

    def show_parameters(self, params: PlanParameters) -> None:
        """Show every field of ``params`` the task picker and the Run controls edit (an
        unlimited budget as the budget box's largest value)."""
        show_fields(self._plan_fields, params)
        show_fields(self._planner_fields, params.planner)
        self.stored_task_combo.setCurrentIndex(0)

    def _bindings(self) -> tuple[tuple[Binding, ...], tuple[Binding, ...]]:
        """The fields of :class:`PlanParameters` and of its :class:`PlannerParams` that the
        widgets edit: (name, read, show, widget, tooltip[, field]) — the one place a widget
        meets its field. The checks are the core's; ``set_plan_options`` takes the names."""
        approach_tip = "\n".join(f"{t}: {d}" for t, d in APPROACH_TEXT.values())
        plan = (
            Binding("origin", self.origin_combo.currentData,
                    lambda v: self._pick(self.origin_combo, v), self.origin_combo,
                    TOOLTIPS["origin"]),
            Binding("goal_agent", self.goal_agent_combo.currentData,
                    lambda v: self._pick(self.goal_agent_combo, v), self.goal_agent_combo,
                    TOOLTIPS["goal_agent"]),
            Binding("goal", self.goal_combo.currentData, self._fill_goal_bases,
                    self.goal_combo, TOOLTIPS["goal"]),
            combo_binding("approach", self.approach_combo, approach_tip),
            Binding("seed", self._seed, self._show_seed, self.seed_spin, SEED_TIP))
        planner = (
            combo_binding("preset", self.preset_combo, TOOLTIPS["preset"]),
            Binding("epsilon", self._epsilon, lambda v: self.epsilon_edit.setText(str(v)),
                    self.epsilon_edit, TOOLTIPS["epsilon"]),
            Binding("budget", self._budget, self._show_budget, self.budget_spin,
                    TOOLTIPS["budget"], key="comm_budget"),
            combo_binding("solver", self.solver_combo, SOLVER_TIP, key="high_level_solver"))
        return plan, planner

    def _pick(self, combo: QComboBox, value: Any) -> None:
        """Select a task's name (the first item if it is not there), quietly."""
        self._state.syncing = True
        combo.setCurrentIndex(max(0, combo.findData(value)))
        self._state.syncing = False

    def _seed(self) -> int | None:
        return self.seed_spin.value() if self.mode_combo.currentData() == "experiment" else None

    def _show_seed(self, seed: int | None) -> None:
        self.mode_combo.setCurrentIndex(0 if seed is not None else 1)
        if seed is not None:
            self.seed_spin.setValue(int(seed))

    def _epsilon(self) -> Any:
        try:
            return self.epsilon_field.value()
        except ValueError as exc:
            raise InputError(f"ε {exc}", field="epsilon") from None

    def _budget(self) -> float | None:
        budget = self.budget_spin.value()
        return None if budget == AUTO_BUDGET else float(budget)

    def _show_budget(self, budget: float | None) -> None:
        self.budget_spin.setValue(AUTO_BUDGET if budget is None
                                  else int(min(budget, self.budget_spin.maximum())))

    def _on_mode_changed(self, *args: object) -> None:
        self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment")

    # ================================================================== running
    def run(self) -> bool:
        """Run the current page's work (F5): plan the task, or the benchmark."""
        page = self._study_page()
        return self.run_plan() if page is None else page.run()

    def cancel(self) -> None:
        """Cancel the current page's work (Esc)."""
        page = self._study_page()
        if page is not None:
            page.cancel()
        else:
            self._runner.cancel()

    def _study_page(self) -> Any:
        """The experiments page shown (benchmarks or packet routing), None on the map."""
        return {1: self._w.experiments, 2: self._w.packet}.get(self._w.pages.currentIndex())

    @property
    def is_running(self) -> bool:
        """True while the work of the current page runs (planning, or the benchmark)."""
        page = self._study_page()
        return bool(self._runner.is_running if page is None else page.is_running)

    def randomness_label(self) -> str:
        """For the status bar: the randomness of the next plan (or benchmark)."""
        if self._study_page() is not None:
            return "benchmark as a seeded experiment"
        if self.mode_combo.currentData() == "release":
            return "planning in release mode (secure noise)"
        return f"planning as a seeded experiment (seed {self.seed_spin.value()})"

    def emit_running_changed(self, *args: object) -> None:
        self._running_changed(self.is_running)

    def _refuse_run(self, text: str, widget: QWidget | None = None) -> bool:
        if widget is not None:
            show_field_error(widget, text)
        return self._refuse(text)

    @property
    def run_problem(self) -> str:
        """Why the last Run was refused (empty if it started)."""
        return "" if self.run_message.isHidden() else self.run_message.text()

    def _params(self) -> PlanParameters:
        """The run's parameters from the widgets, read through :meth:`_bindings` (an
        InputError naming a field if one is refused: the core's check, made once)."""
        planner = read_bindings(self._planner_fields)
        preset = planner.pop("preset")
        return PlanParameters(**read_bindings(self._plan_fields),
                              planner=PlannerParams.preset_params(preset, **planner))

    def run_plan(self) -> bool:
        """Plan the picked task in the worker; False (with an inline reason) if refused."""
        if self._runner.is_running:
            return False
        self._clear_problem()
        self.run_message.setText("")
        self.epsilon_field.clear_error()
        entry = self._state.entry()
        if entry is None:
            return self._refuse_run(NO_MAP_TEXT)
        world = entry.world  # validated when it entered the project
        try:
            params = self._params()
            task = params.task_on(world)  # refused here, before any work
        except InputError as exc:
            if exc.field == "epsilon":
                self.epsilon_field.set_error(exc.problem)
                return self._refuse_run(str(exc).replace("epsilon", "ε"), self.epsilon_edit)
            return self._refuse_run(str(exc))
        self._state.job = {"kind": "plan", "world": world, "params": params,
                           "map_id": self._state.map_id, "map": dict(entry.to_dict())}
        self._log("INFO", f"logistics: planning {task.origin} → agent "
                  f"{task.goal_agent} ({params.approach}, ε = {params.planner.epsilon:g}, "
                  + (f"seed {params.seed})" if params.seeded else "release mode)"))
        self._runner.start(plan_release, params, world=world)
        return True

    def shutdown(self) -> None:
        self._runner.shutdown()
        self._w.experiments.shutdown()
        self._w.packet.shutdown()

    def update_running(self, running: bool) -> None:
        self.emit_running_changed()
        for b in self._w.start_buttons:
            b.setEnabled(not running)

    # ------------------------------------------------------------------ recording
    def record_plan(self, job: dict[str, Any], release: PlanRelease) -> None:
        """Record a finished plan (the panel's :meth:`ToolPanel.record`) and show it."""
        result, session = release.result, release.session
        record, entries = plan_run_record(self._document.project, release, job["params"],
                                          map_id=str(job["map_id"]),
                                          map_label=E.map_label(job["map"]))
        rid = record.id
        self._state.runs[rid] = {"world": job["world"], "map": job["map"],
                                 "map_id": job["map_id"], "structure": map_structure(job["map"]),
                                 "result": result, "session": session, "run_id": rid}
        if not self._record(record, entries, self.run_controls):
            del self._state.runs[rid]
            self._log("WARNING", f"plan {rid}: {OVER_BUDGET_TEXT}")
            return
        status = "delivered" if result.success else f"not delivered ({result.failure})"
        self._log(
            "INFO", f"{rid} recorded: plan {result.task.origin} → agent "
            f"{result.task.goal_agent} on {job['map_id']}, {session.approach}, {status}, "
            f"{result.messages} messages, {len(entries)} ledger entries")

    def show_recorded(self, run_id: str) -> None:
        """Show a plan of this session just recorded (its live figures)."""
        if run_id in self._state.runs:
            self._show_run(run_id)

    def _mode_text(self, session: PlanningSession) -> str:
        return (f"seeded experiment (seed {session.seed})" if session.mode == "experiment"
                else "release mode")

    def _show_run(self, run_id: str) -> None:
        s = self._state.runs[run_id]
        self._state.shown = s
        self._w.results.show_result(s["world"], s["map"], s["result"], s["session"],
                                    run_id=run_id, mode_text=self._mode_text(s["session"]))
        self._sync_route()

    def _on_document_run_removed(self, run_id: str) -> None:
        if self._state.shown is not None and self._state.shown["run_id"] == run_id:
            self._state.shown = None
            self._w.results.clear(f"The planning run {html.escape(run_id)} was undone.")
            self._sync_route()

    def _on_document_run_added(self, run_id: str) -> None:
        shown = self._state.shown
        if run_id in self._state.runs and (shown is None or shown["run_id"] != run_id):
            self._show_run(run_id)

    def show_run(self, run_id: str) -> bool:
        """Show a recorded run (``plan`` or ``plan-bench``), e.g. picked in the Project tree.

        A plan run of this session is shown in full. A plan run loaded from a file keeps
        only its summary: its task and parameters are put back in the task picker and its
        outcome in the banner; Run recomputes the figures (the same seed gives the same
        plan)."""
        try:
            rec = self._document.run(run_id)
        except KeyError:
            return False
        if rec.kind == "plan-bench":
            self._w.pages.setCurrentIndex(1)
            self._w.experiments.show_summary(rec.summary, run_id=rec.id)
            return True
        if rec.kind == PACKET_KIND:
            self._w.pages.setCurrentIndex(2)
            self._w.packet.show_summary(rec.summary, run_id=rec.id)
            return True
        if rec.kind != "plan":
            return False
        self._w.pages.setCurrentIndex(0)
        if run_id in self._state.runs:
            s = self._state.runs[run_id]
            if s["map_id"] != self._state.map_id and any(
                    m.id == s["map_id"] for m in self._document.project.maps):
                self._select_map(s["map_id"])
            self._show_run(run_id)
            return True
        if any(m.id == rec.target for m in self._document.project.maps):
            self._select_map(rec.target)
        p = rec.params
        t = p.get("task") or {}
        if t:
            self.set_task(str(t.get("origin")), str(t.get("goal_agent")), t.get("goal"))
        self.set_plan_options(approach=p.get("approach"), preset=p.get("preset"),
                              epsilon=p.get("epsilon"), seeded=rec.mode == "experiment",
                              seed=rec.seed if rec.seed is not None else None,
                              solver=(p.get("planner") or {}).get("high_level_solver",
                                                                  "dijkstra"))
        s = rec.summary
        outcome = (f"delivered, length {s.get('length')}" if s.get("success") else
                   f"not delivered: {s.get('failure')}")
        self._state.shown = None
        self._w.results.clear(
            f"<b>{html.escape(rec.id)}</b> (recorded {html.escape(rec.created)}): "
            f"{html.escape(str(t.get('origin')))} → agent {html.escape(str(t.get('goal_agent')))}"
            f", {html.escape(str(p.get('approach')))}, ε = {p.get('epsilon')}: "
            f"{html.escape(outcome)}, {s.get('messages')} messages. The project keeps the "
            "summary only; press <b>Run (F5)</b> to recompute the figures with the same "
            "parameters" + (f" and seed {rec.seed}" if rec.mode == "experiment" else "") + ".")
        self._w.results.learning.show_curve(s.get("learning_curve"))
        if (s.get("success") and rec.target == self._state.map_id
                and self._w.route_check.isChecked()):
            self._w.canvas.set_route(s.get("route"), s.get("segments", ()))
        return True
