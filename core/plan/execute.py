"""Execute a plan: its releases recorded, in order, in a project's ledger against the plan.

Execution charges the dataset's ledger with one entry per planned release (its own (ε, δ) at
its δ, its public parameters, ``plan`` and ``release`` naming where it comes from) and adds
one run record of kind ``"plan"`` holding the plan and its evaluation, so the report can set
what was planned beside what was spent. Everything is checked before anything is written:

* the plan must be feasible (else the release that breaks the budget is named);
* every ``mdp`` release must name a model of the project, a model file or an example;
* a plan of the same name already executed in the project is refused — identical, it would
  spend twice; different, the release that deviates is named (edit the plan: give it a new
  name to plan a new study);
* the project's own budget for the dataset (if any) must hold, checked under the project's
  lock against the ledger as it is then.

Then the run and its entries are appended with :func:`core.project.store.record_and_save`
(the merging writer): all of them or, on any refusal, none.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from core.common.errors import InputError
from core.privacy.ledger import LedgerEntry, PrivacyLedger

__all__ = ["plan_entries", "plan_record", "execute_plan", "plan_problems", "MECHANISMS"]

#: The ledger mechanism of each release kind.
MECHANISMS = {"laplace": "laplace", "gaussian": "gaussian", "dpsgd": "dp-sgd",
              "mdp": "dirichlet", "logistics": "logistics", "advising": "advising",
              "sharing": "policy-sharing"}


def plan_name(budget: Any) -> str:
    return budget.plan.name or budget.plan.dataset


def plan_entries(budget: Any, *, run_id: str, mode: str = "release") -> list[LedgerEntry]:
    """One ledger entry per release of an evaluated, feasible plan.

    Parameters
    ----------
    budget : PlanBudget
        The evaluated plan (:func:`core.plan.budget.evaluate_plan`).
    run_id : str
        The run that records them.
    mode : str
        ``"release"`` (spent) or ``"experiment"``.

    Returns
    -------
    list of LedgerEntry
    """
    from core.plan.budget import adjacency_of

    name = plan_name(budget)
    out = []
    for rb in budget.releases:
        r = rb.release
        eps = rb.epsilon
        params = {k: v for k, v in r.params.items() if v is not None}
        params.update(plan=name, release=r.name, kind=r.kind)
        out.append(LedgerEntry(
            id="", dataset=budget.plan.dataset, mechanism=MECHANISMS[r.kind],
            epsilon=eps, delta=rb.delta, parameters=params, adjacency=adjacency_of(r),
            released=f"planned release {r.name!r} of plan {name!r}", mode=mode,
            source=run_id, reason="" if math.isfinite(eps) else "no finite epsilon"))
    return out


def plan_problems(ledger: Sequence[LedgerEntry], budget: Any) -> list[str]:
    """Why the plan may not be executed against ``ledger`` (empty when it may).

    Parameters
    ----------
    ledger : sequence of LedgerEntry
        The project's ledger as it is now.
    budget : PlanBudget
        The evaluated plan.

    Returns
    -------
    list of str
    """
    name = plan_name(budget)
    done = {e.parameters.get("release"): e for e in ledger
            if e.dataset == budget.plan.dataset and e.parameters.get("plan") == name}
    if not done:
        return []
    for rb in budget.releases:
        e = done.get(rb.release.name)
        want = {k: v for k, v in rb.release.params.items() if v is not None}
        got = {k: v for k, v in e.parameters.items()
               if k not in ("plan", "release", "kind")} if e is not None else None
        if e is not None and got != want:
            return [f"release {rb.release.name!r} deviates from plan {name!r} as executed "
                    f"({e.id}); edit the plan (a new name) to change it"]
    return [f"plan {name!r} was already executed in this project ({len(done)} release(s) "
            "recorded); executing it again would spend its budget twice"]


def plan_record(budget: Any, run_id: str) -> Any:
    """The run record of an execution (kind ``"plan"``, target the dataset)."""
    from core.project.model import RunRecord

    summary = budget.to_dict()
    return RunRecord(id=run_id, kind="plan", target=budget.plan.dataset,
                     params={"plan": summary.pop("plan"), "name": plan_name(budget)},
                     summary=summary, mode="release", seed=None)


def execute_plan(path: str | os.PathLike[str], project: Any, budget: Any, *,
                 over_budget: bool = False) -> tuple[Any, list[LedgerEntry]]:
    """Record every release of ``budget``'s plan in the project at ``path`` (module docstring).

    Parameters
    ----------
    path : str or PathLike
        The project file.
    project : Project
        The project as read before.
    budget : PlanBudget
        The evaluated plan.
    over_budget : bool
        Record even past the project's own budget for the dataset.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        As stored.

    Raises
    ------
    InputError
        Infeasible plan (field ``releases[NAME]``), a plan already executed or deviating, or
        the project's budget exceeded; nothing is written.
    """
    from core.project.store import record_and_save

    if not budget.feasible:
        raise InputError(f"the plan does not fit its budget: {budget.reason}; nothing was "
                         "recorded", field=f"releases[{budget.breaking}]")
    run_id = project.new_run_id()
    entries = plan_entries(budget, run_id=run_id)
    record = plan_record(budget, run_id)

    def check(now: Any) -> None:
        problems = plan_problems(now.ledger, budget)
        if not over_budget:
            led = PrivacyLedger(entries=list(now.ledger))
            from core.privacy.ledger import budgets_from_dict

            led.budgets = budgets_from_dict(now.budgets)
            problems += led.release_problems(entries)
        if problems:
            raise InputError("; ".join(problems) + " - nothing was recorded",
                             field="--execute")

    return record_and_save(path, project, record, entries, check=check)
