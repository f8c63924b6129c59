"""Executing a privacy plan as one user action: its parameters, its entry point, its writer.

``budget PLAN --execute PROJECT`` and the Privacy plan tab's Execute both

1. build a :class:`PlanExecutionParameters` (the plan, how its budget is allocated, whether
   the simulated kinds are forecast, whether the project's own budget may be passed, whether
   the project's models are privatised) — validated once, here;
2. call :func:`plan_execution_release`, which evaluates the plan (or allocates it), refuses
   an infeasible plan or one executed before, and runs what can be run
   (:func:`core.plan.execute.run_releases`) — nothing is written yet;
3. build the run and its ledger entries with
   :func:`core.project.recording.plan_execution_run_record`;
4. append both with :func:`save_plan_execution` through the merging writer
   (:func:`core.project.store.record_and_save`): all of them or, on a refusal under the
   project's lock, none.

``budget`` without ``--execute`` evaluates the same parameters with :func:`plan_budget`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar

from core.common.errors import InputError
from core.common.progress import Cancelled, no_progress, sub_progress
from core.common.validation import check_choice, check_flag, check_record_params
from core.plan.budget import ALLOCATIONS, PlanBudget, allocate, evaluate_plan
from core.plan.document import Plan, PlannedRelease, plan_from_dict, plan_to_dict
from core.plan.execute import RUN_KIND, plan_entries, plan_problems, run_releases
from core.privacy.ledger import LedgerEntry, PrivacyLedger, budgets_from_dict

__all__ = ["PlanExecutionParameters", "PlanExecution", "InfeasiblePlan", "plan_budget",
           "plan_execution_release", "save_plan_execution"]

_RECORD_KEYS = ("plan", "name", "allocate", "estimates", "over_budget", "run")


def _checked_plan(plan: Any) -> Plan:
    """``plan`` (a :class:`Plan` or its document) through the plan's own validation
    (:func:`core.plan.document.plan_from_dict`); its errors are named under ``plan.``."""
    if isinstance(plan, Plan):
        if not all(isinstance(r, PlannedRelease) and isinstance(r.params, dict)
                   for r in plan.releases):
            raise InputError("each release must be a PlannedRelease", field="plan.releases")
        doc: Any = plan_to_dict(plan)
    elif isinstance(plan, Mapping):
        doc = dict(plan)
    else:
        raise InputError(f"must be a plan or a plan document, got {type(plan).__name__}",
                         field="plan")
    try:
        return plan_from_dict(doc)
    except InputError as exc:
        where = "plan" if exc.field in (None, "plan") else f"plan.{exc.field}"
        raise InputError(exc.problem, field=where) from None


@dataclass(frozen=True)
class PlanExecutionParameters:
    """What executing a plan means (``budget PLAN --execute PROJECT``, the Privacy plan tab's
    Execute): the plan, its allocation, the forecasts, the project's budget and the runs.

    Validated once, here; every :class:`InputError` names its field (``plan.…`` for the
    plan's own fields, as :func:`core.plan.document.plan_from_dict` names them, then
    ``allocate``, ``estimates``, ``over_budget``, ``run``). The plan's dataset and its
    total (ε, δ) are the plan's.

    Attributes
    ----------
    plan : Plan
        The plan (a :class:`Plan`, or its document, read by ``plan_from_dict``).
    allocate : {None, "weights", "optimise"}
        Set the releases' parameters first (public: reads no private data); None keeps them.
    estimates : bool
        Also forecast the simulated kinds (logistics, advising, sharing).
    over_budget : bool
        Record even past the project's own budget for the dataset.
    run : bool
        Privatise the project's models the ``mdp`` releases name; False records the
        planned costs only.

    Examples
    --------
    >>> doc = {"format": "privplan-plan", "version": 1, "name": "s",
    ...        "budget": {"epsilon": 1.0, "delta": 1e-6},
    ...        "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.5}]}
    >>> p = PlanExecutionParameters(doc, allocate="weights")
    >>> p.name, p.plan.dataset, PlanExecutionParameters.from_dict(p.to_dict()) == p
    ('s', 'study', True)
    >>> PlanExecutionParameters(doc, allocate="evenly")
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: allocate: must be one of ('weights', 'optimise'), got 'evenly'
    """

    plan: Plan
    allocate: str | None = None
    estimates: bool = False
    over_budget: bool = False
    run: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "plan", _checked_plan(self.plan))
        if self.allocate is not None:
            check_choice(self.allocate, ALLOCATIONS, "allocate")
        for name in ("estimates", "over_budget", "run"):
            check_flag(getattr(self, name), name)

    @property
    def name(self) -> str:
        """The plan's name in the ledger (``parameters.plan``): its name, else its dataset."""
        return self.plan.name or self.plan.dataset

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: ``plan`` (its document) and ``name`` — the keys a run record of an
        execution keeps — then ``allocate``, ``estimates``, ``over_budget`` and ``run``."""
        return {"plan": plan_to_dict(self.plan), "name": self.name,
                "allocate": self.allocate, "estimates": self.estimates,
                "over_budget": self.over_budget, "run": self.run}

    @classmethod
    def from_dict(cls, data: Any) -> "PlanExecutionParameters":
        """The parameters of :meth:`to_dict`, or of an execution's run record (``plan``, the
        plan as executed — allocated already — and ``name``; the rest takes its default).

        Parameters
        ----------
        data : mapping
            ``plan`` and optionally ``name`` (which must be the plan's), ``allocate``,
            ``estimates``, ``over_budget`` and ``run``.

        Returns
        -------
        PlanExecutionParameters
        """
        check_record_params(data, _RECORD_KEYS, "a plan execution's parameters",
                            required=("plan",))
        out = cls(plan=data["plan"], allocate=data.get("allocate"),
                  estimates=data.get("estimates", False),
                  over_budget=data.get("over_budget", False), run=data.get("run", True))
        if "name" in data and data["name"] != out.name:
            raise InputError(f"is {data['name']!r} but the plan's name is {out.name!r}",
                             field="name")
        return out


@dataclass(frozen=True)
class PlanExecution:
    """What an execution computed before anything is written: the plan evaluated (as
    allocated) and, per release run, its privatisation (release name ->
    :class:`core.mdp.private_policy.BoundsRelease`)."""

    #: the run kind of an executed privacy plan (:data:`core.plan.execute.RUN_KIND`)
    kind: ClassVar[str] = RUN_KIND

    budget: PlanBudget
    executed: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "executed", MappingProxyType(dict(self.executed)))

    def ledger_entries(self, run_id: str) -> list[LedgerEntry]:
        """One entry per planned release (:func:`core.plan.execute.plan_entries`), those
        run marked ``executed: "privatised"`` and saying where π̄ and its bounds are."""
        entries = plan_entries(self.budget, run_id=run_id)
        for i, e in enumerate(entries):
            if str(e.parameters.get("release")) in self.executed:
                entries[i] = replace(
                    e, parameters={**e.parameters, "executed": "privatised"},
                    released=f"the privatised model {e.parameters['mdp']!r} (planned release "
                             f"{e.parameters['release']!r}, π̄ and its bounds in {run_id})")
        return entries


class InfeasiblePlan(InputError):
    """The plan does not fit its budget: the refusal names the release that breaks it and
    carries the evaluation that shows why (``budget``; ``partial`` its JSON)."""

    def __init__(self, budget: PlanBudget, suffix: str = "") -> None:
        super().__init__(f"the plan does not fit its budget: {budget.reason}{suffix}",
                         field=f"releases[{budget.breaking}]")
        self.budget = budget
        self.partial = budget.to_dict()


def plan_budget(params: PlanExecutionParameters, models: Mapping[str, Any] | None = None, *,
                progress: Callable[..., None] | None = None) -> PlanBudget:
    """The plan of ``params`` evaluated, or allocated first when ``params.allocate`` says so
    (:func:`core.plan.budget.allocate`, :func:`core.plan.budget.evaluate_plan`).

    Parameters
    ----------
    params : PlanExecutionParameters
        The plan and how to evaluate it.
    models : mapping, optional
        Release name -> MDP (:func:`core.plan.models.resolve_models`).
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    PlanBudget
    """
    progress = progress or no_progress
    if params.allocate:
        return allocate(params.plan, params.allocate, models, estimates=params.estimates,
                        progress=progress)
    return evaluate_plan(params.plan, models, estimates=params.estimates, progress=progress)


def plan_execution_release(params: PlanExecutionParameters,
                           progress: Callable[..., None] | None = None,
                           cancelled: Callable[[], bool] | None = None, *,
                           project: Any, models: Mapping[str, Any] | None = None
                           ) -> PlanExecution:
    """Execute the plan of ``params`` in ``project``, up to the writing: the one entry point
    of the command line's ``budget --execute`` and of the window's Execute.

    The plan is evaluated (:func:`plan_budget`); an infeasible plan is refused
    (:class:`InfeasiblePlan`, naming the release that breaks the budget), so is a plan of
    the same name executed in the project before (:func:`core.plan.execute.plan_problems`);
    then, with ``params.run``, each ``mdp`` release on a model of the project is privatised
    (:func:`core.plan.execute.run_releases`). Record the result with
    :func:`core.project.recording.plan_execution_run_record` and
    :func:`save_plan_execution`.

    Parameters
    ----------
    params : PlanExecutionParameters
        What to execute (validated when it was made).
    progress : callable, optional
        ``progress(fraction, message)``: the evaluation is its first 30 %.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled before the releases run; True raises
        :class:`core.common.progress.Cancelled`.
    project : Project
        The project as read (its ledger, its models).
    models : mapping, optional
        Release name -> MDP for the plan's ``mdp`` releases.

    Returns
    -------
    PlanExecution

    Raises
    ------
    InputError
        An infeasible plan (:class:`InfeasiblePlan`), a plan executed before or deviating
        (field ``--execute``), a privatisation that would deviate from the plan.
    """
    progress = progress or no_progress
    budget = plan_budget(params, models, progress=sub_progress(progress, 0.0, 0.3))
    if not budget.feasible:
        raise InfeasiblePlan(budget, "; nothing was recorded")
    problems = plan_problems(project.ledger, budget)
    if problems:  # before anything runs; checked again under the lock
        raise InputError("; ".join(problems) + " - nothing was recorded", field="--execute")
    if cancelled is not None and cancelled():
        raise Cancelled()
    executed = (run_releases(project, budget, progress=sub_progress(progress, 0.3, 1.0))
                if params.run else {})
    return PlanExecution(budget, executed)


def save_plan_execution(path: str | os.PathLike[str], project: Any, params:
                        PlanExecutionParameters, result: PlanExecution, record: Any,
                        entries: list[LedgerEntry]) -> tuple[Any, list[LedgerEntry]]:
    """Append the run and the entries of an execution to the project file at ``path``
    through the merging writer, all or none: under the project's lock the plan is checked
    again against the ledger as it is then, and (unless ``params.over_budget``) the
    project's own budget for the dataset.

    Parameters
    ----------
    path : str or PathLike
        The project file.
    project : Project
        The project as read before (its runs and ledger become the merged ones).
    params : PlanExecutionParameters
        What was executed.
    result : PlanExecution
        :func:`plan_execution_release` of ``params``.
    record, entries : RunRecord, list of LedgerEntry
        :func:`core.project.recording.plan_execution_run_record` of the result.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        As stored.

    Raises
    ------
    InputError
        The plan executed meanwhile, or the project's budget exceeded (field
        ``--execute``); nothing is written.
    """
    from core.project.store import record_and_save

    def check(now: Any) -> None:
        problems = plan_problems(now.ledger, result.budget)
        if not params.over_budget:
            led = PrivacyLedger(entries=list(now.ledger))
            led.budgets = budgets_from_dict(now.budgets)
            problems += led.release_problems(entries)
        if problems:
            raise InputError("; ".join(problems) + " - nothing was recorded",
                             field="--execute")

    return record_and_save(os.fspath(path), project, record, entries, check=check)
