"""The Privacy plan workspace: budget a whole study before the first release.

Top — the plan (its name, dataset and total (ε, δ)), Open plan… / Save plan…, the
allocations (Split by weights, Optimise), Execute into the open project, and Compose (F5)
with Cancel (Esc) and progress. Middle — the releases as rows (:mod:`gui.plan.rows`): name,
kind, key public parameters, the budget share as a slider and the forecast as a bar beside
it. Bottom — the verdict and the composed budget as a gauge (:mod:`gui.plan.gauge`): PLD
composition with basic composition beside it, against the plan's total; a plan that does not
fit names the first release that takes it past the budget and cannot be executed.

Every number comes from the core (``docs/privacy-plan.md``): the sliders' positions are
:func:`core.plan.release_options` (the allocation's grid), the gauge and the forecasts
:func:`core.plan.evaluate_plan`, the allocations :func:`core.plan.allocate`, and Execute is
:func:`core.plan.plan_execution_release` (as ``budget --execute`` runs it), recorded through
the merging writer (:func:`core.plan.save_plan_execution`); the run and its ledger entries
are then added to the window's document outside the undo history, as every recorded run is.
All of it runs in the tab's :class:`~gui.shell.workers.TaskRunner` (:mod:`gui.plan.jobs`);
while a slider moves, the composition is debounced.

The plan lives in the project's ``plans`` section once it is edited (a share moved, an
allocation, Open plan…, Execute): each edit is one undoable step on the tab's stack
(:class:`gui.plan.commands.SetPlanCommand`) and is written when the project is saved. The
tab opens the project's first plan, or else the example ``study-feasible.plan.json``
(shown, not stored, until it is edited).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.plan import (
    RUN_KIND,
    Option,
    Plan,
    PlanBudget,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    resolve_models,
)
from gui.plan.commands import PLAN_STACK, SetPlanCommand
from gui.plan.files import ask_plan_path, write_plan
from gui.plan.gauge import BudgetGauge
from gui.plan.jobs import (
    Allocated,
    Composed,
    Executed,
    Prepared,
    allocate_plan,
    compose_plan,
    execute_into,
    execute_problem,
    options_key,
    prepare_plan,
    project_snapshot,
)
from gui.plan.rows import ReleaseRows
from gui.plan.texts import BUTTONS, EMPTY_TEXT, INFO_HTML, TOOLTIPS, fmt_eps, knob_text
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument
from gui.shell.resources import asset_path
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR, OKABE_ITO
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import info_panel, vertical_scroll

__all__ = ["PlanPanel", "DEFAULT_PLAN", "DEBOUNCE_MS"]

#: The plan the tab opens when the project has none (assets/examples).
DEFAULT_PLAN = ("examples", "study-feasible.plan.json")
#: How long a slider must rest before the plan is recomposed.
DEBOUNCE_MS = 250


class PlanPanel(ToolPanel):
    """The Privacy plan tool tab (see the module docstring)."""

    budget_shown = Signal()  # a fresh evaluation was drawn
    status_name = "Privacy plan"
    log_name = "privacy plan"
    undo_key = PLAN_STACK
    refusal_prefix = ""
    run_kinds = (RUN_KIND,)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None, open_default: bool = True) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.setObjectName("plan")
        self._name = ""  # the plan's key in the project's plans
        self._example: Plan | None = None  # read from a file, not stored (yet)
        self._base_dir: str | None = None  # the plan file's folder (model files)
        self._models: dict[str, Any] | None = None
        self._models_key: tuple[Any, ...] = ()
        self._options: dict[str, tuple[Option, ...]] = {}
        self._known: dict[tuple[Any, ...], tuple[Option, ...]] = {}
        self._budget: PlanBudget | None = None
        self._budget_of: dict[str, Any] | None = None  # plan_to_dict of the plan evaluated
        self._pending: Plan | None = None  # the plan while a slider moves
        self._job = ""
        self._job_plan: Plan | None = None
        self._build()
        self.info_panel = info_panel(INFO_HTML)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounce_timeout)
        self.run_controls.running_changed.connect(self._update_buttons)
        self.connect_runner()
        document.plans_changed.connect(self._on_document_plans_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.ledger_changed.connect(self._update_buttons)
        if open_default:
            self._open_initial()

    # ================================================================== building
    def _build(self) -> None:
        title = QLabel("<b>Privacy plan</b> — budget a whole study before the first "
                       "release: each release's share of the total (ε, δ), its forecast, "
                       "and whether the composition fits.", self)
        title.setWordWrap(True)
        self.plan_combo = QComboBox(self)
        self.plan_combo.setToolTip("The project's plans (and the plan file shown, until it "
                                   "is edited and so stored in the project).")
        self.plan_combo.setMinimumContentsLength(14)
        self.plan_combo.activated.connect(self._on_plan_combo_activated)
        self.budget_label = QLabel(self)
        self.budget_label.setToolTip(f"{TOOLTIPS['epsilon']}\n{TOOLTIPS['delta']}")
        self.open_button = self._button("open", self.open_dialog)
        self.save_button = self._button("save", self.save_dialog)
        self.weights_button = self._button("weights", lambda: self.allocate("weights"))
        self.optimise_button = self._button("optimise", lambda: self.allocate("optimise"))
        self.execute_button = self._button("execute", self.execute)
        self.estimates_check = QCheckBox("Estimates", self)
        self.estimates_check.setToolTip(BUTTONS["estimates"][1])
        self.estimates_check.toggled.connect(lambda *_: self.run())
        self.run_message = QLabel(self)
        self.run_message.setWordWrap(True)
        self.run_message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.run_message.hide()
        self.run_controls = RunControls(
            self._runner, self, run=self.run, cancel=self.cancel, run_text="▶ Compose (F5)",
            run_tip="Compose the plan and forecast its releases again (F5)",
            running_text="composing…", clear_on_finish=False)
        self.rows = ReleaseRows(self)
        self.rows.share_moved.connect(self._on_rows_share_moved)
        self.rows.share_committed.connect(self._on_rows_share_committed)
        self.verdict = QLabel(EMPTY_TEXT, self)
        self.verdict.setWordWrap(True)
        self.verdict.setObjectName("plan_verdict")
        self.gauge = BudgetGauge(self)
        bottom = QWidget(self)
        blay = QVBoxLayout(bottom)
        blay.setContentsMargins(0, 0, 0, 0)
        blay.addWidget(self.verdict, 0)
        blay.addWidget(self.gauge, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.rows_area = vertical_scroll(self.rows, self.splitter)
        self.rows_area.setMinimumHeight(120)
        self.splitter.addWidget(self.rows_area)
        self.splitter.addWidget(bottom)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        head = QHBoxLayout()
        head.addWidget(QLabel("Plan:", self))
        head.addWidget(self.plan_combo)
        head.addWidget(self.budget_label, 1)
        head.addWidget(self.open_button)
        head.addWidget(self.save_button)
        actions = QHBoxLayout()
        for w in (self.weights_button, self.optimise_button, self.execute_button,
                  self.estimates_check):
            actions.addWidget(w)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(title)
        layout.addLayout(head)
        layout.addLayout(actions)
        layout.addLayout(self.run_controls.layout_row())
        layout.addWidget(self.run_message)
        layout.addWidget(self.splitter, 1)

    def _button(self, key: str, slot: Any) -> QPushButton:
        b = QPushButton(BUTTONS[key][0], self)
        b.setToolTip(BUTTONS[key][1])
        b.clicked.connect(lambda *_: slot())
        return b

    # ================================================================== public API
    @property
    def budget(self) -> PlanBudget | None:
        """The evaluation shown (None before the first one)."""
        return self._budget

    @property
    def plan_name(self) -> str:
        return self._name

    @property
    def options(self) -> Mapping[str, tuple[Option, ...]]:
        """Each adjustable release's slider choices."""
        return dict(self._options)

    def plan(self) -> Plan | None:
        """The plan shown: the project's plan of that name, else the file read."""
        doc = self._document.plan_document(self._name) if self._name else None
        if doc is None:
            return self._example
        try:
            return plan_from_dict(doc)
        except InputError as exc:
            self.refuse(f"plans[{self._name}].{exc.field}: {exc.problem}")
            return self._example

    def is_stored(self) -> bool:
        """True when the plan shown is in the project's plans."""
        return bool(self._name) and self._document.plan_document(self._name) is not None

    def is_current(self) -> bool:
        """True when the evaluation shown is of the plan shown."""
        plan = self.plan()
        return plan is not None and self._budget_of == plan_to_dict(plan)

    def randomness_label(self) -> str:
        return ""

    def open_plan(self, path: str | os.PathLike[str], *, store: bool = True) -> bool:
        """Show the plan file ``path`` (stored in the project's plans, undoably, unless
        ``store`` is False); False, with the reason shown, if it cannot be read."""
        try:
            plan = load_plan(path)
        except (InputError, OSError) as exc:
            return self.refuse(f"cannot open the plan: {exc}")
        name = plan.name or plan.dataset
        self._example = plan
        self._name = name
        self._base_dir = os.path.dirname(os.path.abspath(os.fspath(path)))
        self._budget = self._budget_of = None
        self.clear_problem()
        if store and plan_to_dict(plan) != self._stored_dict(name):
            self._document.push(SetPlanCommand(self._document, name, plan,
                                               f"Open plan {name}"), PLAN_STACK)
        else:
            self._show_plan()
        self.message_logged.emit("INFO", f"privacy plan {name!r} opened from {path}")
        return True

    def open_dialog(self) -> bool:
        path = ask_plan_path(self, self._base_dir or "", save=False)
        return bool(path) and self.open_plan(path)

    def save_plan(self, path: str | os.PathLike[str]) -> bool:
        """Write the plan shown to ``path`` as a ``*.plan.json`` file."""
        plan = self.plan()
        if plan is None:
            return self.refuse("no plan to save")
        try:
            write_plan(plan, path)
        except OSError as exc:
            return self.refuse(f"cannot write {path}: {exc}")
        self.message_logged.emit("INFO", f"privacy plan saved to {path}")
        return True

    def save_dialog(self) -> bool:
        path = ask_plan_path(self, f"{self._name or 'plan'}.plan.json", save=True)
        return bool(path) and self.save_plan(path)

    def run(self) -> bool:
        """Compose the plan again (F5): its releases' choices first where they are new."""
        plan = self.plan()
        if plan is None:
            return self.refuse("open a plan first")
        models = self._resolved(plan)
        if models is None:
            return False
        estimates = self.estimates_check.isChecked()
        if any(options_key(plan, r, models.get(r.name)) not in self._known
               for r in plan.releases if not r.fixed):
            return self._start("prepare", plan, prepare_plan, plan, models,
                               known=dict(self._known), estimates=estimates)
        self._options = {r.name: self._known[options_key(plan, r, models.get(r.name))]
                         for r in plan.releases if not r.fixed}
        return self._start("compose", plan, compose_plan, plan, models, estimates=estimates)

    def allocate(self, method: str) -> bool:
        """Split by weights or Optimise in the worker; the result is stored (undoable)."""
        plan = self.plan()
        if plan is None:
            return self.refuse("open a plan first")
        models = self._resolved(plan)
        if models is None:
            return False
        return self._start(method, plan, allocate_plan, plan, method, models,
                           estimates=self.estimates_check.isChecked())

    def execute(self) -> bool:
        """Record the plan's releases in the open project's file (worker), then show the
        run and its ledger entries in the window."""
        plan = self.plan()
        problem = self._execute_problem(plan)
        if problem:
            return self.refuse(problem)
        assert plan is not None
        models = self._resolved(plan)
        if models is None:
            return False
        if not self.is_stored():  # the executed plan is one of the project's
            self._document.push(SetPlanCommand(self._document, self._name, plan,
                                               f"Store plan {self._name}"), PLAN_STACK)
        path = str(self._document.path)
        snapshot = project_snapshot(self._document.project, plan)
        return self._start("execute", plan, execute_into, path, snapshot, plan, models)

    def show_run(self, run_id: str) -> None:
        """Show the plan an executed run recorded (not stored until edited)."""
        rec = self._document.run(run_id)
        try:
            plan = plan_from_dict(rec.params["plan"])
        except (InputError, KeyError) as exc:
            self.refuse(f"{run_id} holds no readable plan ({exc})")
            return
        self._example, self._name = plan, str(rec.params.get("name") or plan.dataset)
        self._shown_run = run_id
        self._show_plan()

    def show_record(self, kind: str, summary: dict[str, Any], run_id: str | None) -> None:
        if run_id is not None:
            self.show_run(run_id)

    # ================================================================== internals
    def _open_initial(self) -> None:
        names = [str(p.get("name")) for p in self._document.project.plans if p.get("name")]
        if names:
            self._name, self._example = names[0], None
            self._show_plan()
        else:
            self.open_plan(asset_path(*DEFAULT_PLAN), store=False)

    def _stored_dict(self, name: str) -> dict[str, Any] | None:
        doc = self._document.plan_document(name)
        if doc is None:
            return None
        try:
            return plan_to_dict(plan_from_dict(doc))
        except InputError:
            return None

    def _resolved(self, plan: Plan) -> dict[str, Any] | None:
        """The models of the plan's mdp releases (a project's model first), kept while the
        references do not change (the slider choices depend on them)."""
        key = tuple((r.name, r.params["mdp"]) for r in plan.releases if r.kind == "mdp")
        if self._models is None or key != self._models_key:
            try:
                self._models = resolve_models(plan, project=self._document.project,
                                              base_dir=self._base_dir)
            except InputError as exc:
                self.refuse(f"{exc.field}: {exc.problem}")
                return None
            self._models_key = key
        return self._models

    def _start(self, job: str, plan: Plan, fn: Any, *args: Any, **kwargs: Any) -> bool:
        self.clear_problem()
        self._debounce.stop()
        self._job, self._job_plan = job, plan
        self._runner.start(fn, *args, **kwargs)
        return True

    def _execute_problem(self, plan: Plan | None) -> str:
        """Why Execute may not run now ("" when it may)."""
        budget = self._budget if self.is_current() else None
        return execute_problem(plan, self._document.path, budget,
                               self._document.project.ledger,
                               str(asset_path("examples", "builtin.privplan.json")))

    def _show_plan(self) -> None:
        """Show the plan (rows, sliders, budget line), then compose it (debounced)."""
        plan = self.plan()
        self._refresh_combo()
        if plan is None:
            self.verdict.setText(EMPTY_TEXT)
            return
        self.budget_label.setText(
            f"dataset <b>{plan.dataset}</b> · total ε = {plan.epsilon:g}, δ = {plan.delta:g}"
            + ("" if self.is_stored() else " · <i>not in the project until edited</i>"))
        current = self._budget if self.is_current() else None
        self.rows.show_plan(plan, self._options, current)
        self.rows_area.setMinimumHeight(min(self.rows.sizeHint().height() + 4, 230))
        if current is not None:
            self._show_budget(current)
        else:
            self._debounce.start()
        self._update_buttons()

    def _refresh_combo(self) -> None:
        stored = [str(p.get("name")) for p in self._document.project.plans if p.get("name")]
        names = stored + ([self._name] if self._name and self._name not in stored else [])
        was = self.plan_combo.blockSignals(True)
        self.plan_combo.clear()
        for n in names:
            self.plan_combo.addItem(n if n in stored else f"{n} (file)", n)
        self.plan_combo.setCurrentIndex(names.index(self._name) if self._name in names else -1)
        self.plan_combo.blockSignals(was)

    def _show_budget(self, budget: PlanBudget) -> None:
        self.rows.show_budget(budget)
        self.gauge.show_budget(budget)
        pld, basic = fmt_eps(budget.composed_epsilon), fmt_eps(budget.basic_epsilon)
        if budget.feasible:
            text = (f"<span style='color:{OKABE_ITO['green']}'><b>Fits</b></span>: composed "
                    f"ε = {pld} (PLD) of {budget.plan.epsilon:g}, "
                    f"{fmt_eps(budget.remaining_epsilon)} left; basic composition Σε = "
                    f"{basic}.")
        else:
            text = (f"<span style='color:{ERROR_COLOUR}'><b>Does not fit</b></span>: release "
                    f"<b>{budget.breaking}</b> takes the composed ε past the total "
                    f"{budget.plan.epsilon:g} (PLD ε = {pld}; basic Σε = {basic}). "
                    "Lower its share, Optimise, or raise the total.")
        self.verdict.setText(text)
        self.verdict.setToolTip("\n".join(budget.notes) or TOOLTIPS["gauge"])
        self._update_buttons()
        self.budget_shown.emit()

    def _update_buttons(self, *_: object) -> None:
        running = self._runner.is_running
        plan = self.plan() if self._name or self._example is not None else None
        for b in (self.open_button, self.weights_button, self.optimise_button):
            b.setEnabled(not running or self._job in ("compose", "prepare"))
        self.save_button.setEnabled(plan is not None)
        problem = self._execute_problem(plan)
        self.execute_button.setEnabled(not running and not problem)
        self.execute_button.setToolTip((problem + "\n\n" if problem else "")
                                        + BUTTONS["execute"][1])
        busy = running and self._job in ("weights", "optimise", "execute")
        self.rows.setEnabled(not busy)

    # ================================================================== slots
    def _on_plan_combo_activated(self, index: int) -> None:
        name = self.plan_combo.itemData(index)
        if name and name != self._name:
            self._name = str(name)
            if self._document.plan_document(self._name) is not None:
                self._example = None
            self._show_plan()

    def _on_rows_share_moved(self, name: str, position: int) -> None:
        release = self.rows.preview_option(name, position)
        plan = self.plan()
        if release is None or plan is None:
            return
        self._pending = plan.with_releases([release if r.name == name else r
                                            for r in plan.releases])
        self._debounce.start()

    def _on_rows_share_committed(self, name: str, position: int) -> None:
        plan = self.plan()
        opts = self._options.get(name, ())
        if plan is None or not 0 <= position < len(opts):
            return
        release = opts[position].release
        new = plan.with_releases([release if r.name == name else r for r in plan.releases])
        self._pending = None
        if plan_to_dict(new) != plan_to_dict(plan):
            self._document.push(SetPlanCommand(
                self._document, self._name, new,
                f"Share of {name}: {knob_text(release)}"), PLAN_STACK)

    def shutdown(self) -> None:
        self._debounce.stop()  # no recomposition after the tab closed
        super().shutdown()

    def _on_debounce_timeout(self) -> None:
        plan = self._pending if self._pending is not None else self.plan()
        if plan is None or (self._pending is None and self.is_current()):
            return
        if self._pending is not None:
            models = self._resolved(plan)
            if models is not None:
                self._start("compose", plan, compose_plan, plan, models,
                            estimates=self.estimates_check.isChecked())
            return
        self.run()

    def _on_document_plans_changed(self, name: str) -> None:
        if name == self._name:
            self._show_plan()
        else:
            self._refresh_combo()

    def _on_document_project_replaced(self) -> None:
        self._runner.cancel()
        self._models = None
        self._budget = self._budget_of = None
        self._open_initial()

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if any(ref == mdp_id for _, ref in self._models_key):
            self._models = None  # the project's model changed: resolved again
            self._budget_of = None
            self._debounce.start()

    def _on_runner_succeeded(self, result: object) -> None:
        plan = self._job_plan
        if isinstance(result, Prepared):
            self._known.update({result.keys[n]: o for n, o in result.options.items()})
            self._options = dict(result.options)
        if isinstance(result, (Prepared, Composed)) and plan is not None:
            self._set_budget(result.budget, plan)
            self.run_controls.set_status(f"composed: ε = {fmt_eps(result.budget.composed_epsilon)}"
                                         f" of {result.budget.plan.epsilon:g}")
        elif isinstance(result, Allocated):
            self._apply_allocation(result)
        elif isinstance(result, Executed):
            self._apply_execution(result)

    def _set_budget(self, budget: PlanBudget, plan: Plan) -> None:
        self._budget, self._budget_of = budget, plan_to_dict(plan)
        if self._pending is not None and plan_to_dict(self._pending) != self._budget_of:
            return  # a slider moved on meanwhile: its composition follows
        shown = self.plan()
        if self._pending is None and shown is not None and plan_to_dict(shown) == \
                self._budget_of:
            self.rows.show_plan(shown, self._options, budget)
        self._show_budget(budget)

    def _apply_allocation(self, result: Allocated) -> None:
        budget = result.budget
        new = budget.plan
        label = "Split by weights" if result.method == "weights" else "Optimise"
        self._budget, self._budget_of = budget, plan_to_dict(new)
        self._document.push(SetPlanCommand(self._document, self._name, new,
                                           f"{label} plan {self._name}"), PLAN_STACK)
        self._show_plan()
        self.run_controls.set_status(
            f"{label.lower()}: composed ε = {fmt_eps(budget.composed_epsilon)} of "
            f"{new.epsilon:g}" + ("" if budget.objective is None
                                  else f", objective {budget.objective:.3f}"))
        self.message_logged.emit("INFO", f"privacy plan {self._name!r}: {label.lower()} — "
                                 + "; ".join(budget.notes[-1:]))

    def _apply_execution(self, result: Executed) -> None:
        rec, entries = result.record, list(result.entries)
        doc = self._document
        if any(r.id == rec.id for r in doc.project.runs):
            # id taken by an unsaved run: the next save merges the file's run and entries in
            note = f"recorded in {result.path} as {rec.id}; it appears here when you save"
        else:
            doc.push(AddRunCommand(doc, rec, ledger_entries=entries,
                                   text=f"Execute plan {self._name}"), PLAN_STACK)
            self._shown_run = rec.id
            self.run_recorded.emit(rec.id)
            note = f"recorded as {rec.id} with {len(entries)} ledger entries"
        self.run_controls.set_status(f"executed: {note}")
        self.message_logged.emit("INFO", f"privacy plan {self._name!r} executed: {note}")
        self._update_buttons()

    def _on_runner_failed(self, exc: object) -> None:
        super()._on_runner_failed(exc)
        self._update_buttons()


def _factory(window: Any) -> PlanPanel:
    return PlanPanel(window.document, window.tabs, status_bar=window.statusBar())


register_tool(ToolSpec(
    "plan", "Privacy plan", _factory,
    "Budget a whole study before the first release: each release's share of the total "
    "(ε, δ), its forecast, the composed budget, Optimise and Execute.\nDouble-click to open."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: PlanPanel(example_document()), exec_=exec_,
                       title="Privacy plan", size=(1100, 720))


if __name__ == "__main__":
    preview()
