"""Privacy plans: budget a whole study before the first release (``docs/privacy-plan.md``).

A plan (:mod:`core.plan.document`) gives a dataset's total (ε, δ) and its planned releases;
:mod:`core.plan.budget` composes them (PLD beside basic composition), forecasts each from
public inputs and allocates the budget; :mod:`core.plan.execute` records the releases in a
project's ledger against the plan.
"""

from __future__ import annotations

from core.plan.budget import ALLOCATIONS, PlanBudget, ReleaseBudget, allocate, evaluate_plan
from core.plan.document import (
    KINDS,
    PLAN_FORMAT,
    Plan,
    PlannedRelease,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    project_plan,
)
from core.plan.models import resolve_models

__all__ = ["ALLOCATIONS", "KINDS", "PLAN_FORMAT", "Plan", "PlanBudget", "PlannedRelease",
           "ReleaseBudget", "allocate", "evaluate_plan", "load_plan", "plan_from_dict",
           "plan_to_dict", "project_plan", "resolve_models"]
