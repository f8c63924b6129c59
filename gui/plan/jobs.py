"""What the Privacy plan tab runs in its worker, each a call of the core on a snapshot.

Every job takes frozen inputs built on the UI thread (the plan, the resolved models, a copy
of the project for Execute) and returns a frozen result the panel applies in its
``succeeded`` slot; the accounting, the forecasts and the recording are the core's
(:func:`core.plan.evaluate_plan`, :func:`core.plan.release_options`,
:func:`core.plan.allocate`, :func:`core.plan.plan_execution_release`), never restated here.

* :func:`prepare_plan` — each adjustable release's choices (the slider's positions: the
  allocation's grid of its knob, sorted by the release's own ε) and the plan evaluated;
* :func:`compose_plan` — the plan evaluated again after a share moved;
* :func:`allocate_plan` — Split by weights / Optimise;
* :func:`execute_into` — the plan executed as ``budget --execute`` executes it (the same
  parameters object, entry point and record function) and its releases recorded in the
  project file through the merging writer.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.common import Progress, no_progress, sub_progress
from core.plan import (
    KNOBS,
    Option,
    Plan,
    PlanBudget,
    PlanExecutionParameters,
    PlannedRelease,
    allocate,
    evaluate_plan,
    plan_deltas,
    plan_execution_release,
    plan_problems,
    release_options,
    save_plan_execution,
)
from core.project.recording import plan_execution_run_record

__all__ = ["Prepared", "Composed", "Allocated", "Executed", "options_key", "prepare_plan",
           "compose_plan", "allocate_plan", "execute_into", "project_snapshot", "execute_problem"]


@dataclass(frozen=True)
class Prepared:
    """The slider positions of every adjustable release and the plan evaluated."""

    budget: PlanBudget
    options: Mapping[str, tuple[Option, ...]]
    keys: Mapping[str, tuple[Any, ...]]


@dataclass(frozen=True)
class Composed:
    """The plan evaluated (after a share moved, or F5)."""

    budget: PlanBudget


@dataclass(frozen=True)
class Allocated:
    """The plan as an allocation set it, evaluated."""

    budget: PlanBudget
    method: str


@dataclass(frozen=True)
class Executed:
    """The run and the ledger entries as the project file now holds them."""

    record: Any
    entries: tuple[Any, ...]
    budget: PlanBudget
    path: str


def options_key(plan: Plan, release: PlannedRelease, model: Any) -> tuple[Any, ...]:
    """What a release's choices depend on: everything but its knob (and ε, which a
    Gaussian or MDP release may give instead of it), its δ, the plan's ε and the model."""
    skip = {KNOBS[release.kind], "epsilon"}
    rest = repr(sorted((k, v) for k, v in release.params.items() if k not in skip))
    return (release.name, release.kind, rest, plan_deltas(plan)[release.name], plan.epsilon,
            id(model))


def prepare_plan(plan: Plan, models: Mapping[str, Any], *,
                 known: Mapping[tuple[Any, ...], tuple[Option, ...]] | None = None,
                 estimates: bool = False, progress: Progress = no_progress) -> Prepared:
    """The choices of each adjustable release (``known`` ones reused), then the evaluation."""
    known = known or {}
    deltas = plan_deltas(plan)
    todo = [r for r in plan.releases if not r.fixed]
    options: dict[str, tuple[Option, ...]] = {}
    keys: dict[str, tuple[Any, ...]] = {}
    for i, r in enumerate(todo):
        progress(0.8 * i / max(len(todo), 1), f"choices of {r.name}")
        key = options_key(plan, r, models.get(r.name))
        opts = known.get(key)
        if opts is None:
            opts = tuple(release_options(r, deltas[r.name], plan.epsilon, models.get(r.name)))
        options[r.name], keys[r.name] = opts, key
    budget = evaluate_plan(plan, models, estimates=estimates,
                           progress=sub_progress(progress, 0.8, 1.0))
    return Prepared(budget, options, keys)


def compose_plan(plan: Plan, models: Mapping[str, Any], *, estimates: bool = False,
                 progress: Progress = no_progress) -> Composed:
    """The plan composed, costed and forecast (:func:`core.plan.evaluate_plan`)."""
    return Composed(evaluate_plan(plan, models, estimates=estimates, progress=progress))


def allocate_plan(plan: Plan, method: str, models: Mapping[str, Any], *,
                  estimates: bool = False, progress: Progress = no_progress) -> Allocated:
    """Split by weights or optimise (:func:`core.plan.allocate`)."""
    return Allocated(allocate(plan, method, models, estimates=estimates, progress=progress),
                     method)


def project_snapshot(project: Any, plan: Plan) -> Any:
    """A copy of ``project`` a worker may use for :func:`execute_into`: its own lists of
    runs and ledger entries (the writer replaces them) and copies of the models the plan's
    ``mdp`` releases name (the window may edit its own meanwhile)."""
    names = {r.params.get("mdp") for r in plan.releases if r.kind == "mdp"}
    snap = copy.copy(project)
    snap.runs = list(project.runs)
    snap.ledger = list(project.ledger)
    snap.mdps = [copy.deepcopy(e) for e in project.mdps if e.id in names]
    snap.plans = [dict(p) for p in project.plans]
    return snap


def execute_into(path: str, project: Any, plan: Plan, models: Mapping[str, Any], *,
                 progress: Progress = no_progress,
                 cancelled: Callable[[], bool] | None = None) -> Executed:
    """Execute ``plan`` into the project file at ``path``: its parameters
    (:class:`core.plan.PlanExecutionParameters`: as planned, no allocation, the project's
    budget kept), :func:`core.plan.plan_execution_release` (checked first), the run
    (:func:`core.project.recording.plan_execution_run_record`) and
    :func:`core.plan.save_plan_execution` (all of it or none)."""
    params = PlanExecutionParameters(plan)
    result = plan_execution_release(params, progress, cancelled, project=project,
                                    models=models)
    record, entries = plan_execution_run_record(project, result, params)
    record, stored = save_plan_execution(os.fspath(path), project, params, result, record,
                                         entries)
    return Executed(record, tuple(stored), result.budget, os.fspath(path))


def execute_problem(plan: Plan | None, path: str | None, budget: PlanBudget | None,
                    ledger: Any, builtin: str) -> str:
    """Why the plan may not be executed into the project file ``path`` now ("" when it
    may): no plan, no file, the read-only built-in example ``builtin``, no evaluation of
    this plan (``budget`` None), an infeasible plan, or one executed before
    (:func:`core.plan.plan_problems`)."""
    if plan is None:
        return "open a plan first"
    if not path:
        return "save the project first: Execute records into its file"
    if os.path.realpath(path) == os.path.realpath(builtin):
        return ("the built-in example project is read-only: save it as a project of your "
                "own (File ▸ Save As…) first")
    if budget is None:
        return "the plan is not composed yet (F5)"
    if not budget.feasible:
        return (f"the plan does not fit its budget: release {budget.breaking!r} takes it "
                "past the total")
    return "; ".join(plan_problems(ledger, budget))
