"""A run stopped by the message budget says so (``fail_budget``), never ``fail_no_route``."""

from __future__ import annotations

import random

from core.logistics.examples import fig41, generate_world
from core.logistics.model import Task
from core.logistics.planner import PlannerParams, PlanningSession


def _plan(world, task, approach, budget, seed):
    params = PlannerParams.preset_params("sound", epsilon=1.0, comm_budget=budget)
    return PlanningSession(world, approach=approach, params=params, rng=seed).plan(task)


def test_budget_failures_are_labelled_fail_budget():
    rng = random.Random(5)
    seen_budget = 0
    for world in (fig41(), generate_world(12, seed=3)):
        for _ in range(12):
            a0 = rng.choice(world.agents)
            goal = rng.choice([a for a in world.agents if a != a0])
            task = Task(rng.choice(world.bases[a0]), goal, None)
            budget, seed = float(rng.randint(0, 12)), rng.randrange(100)
            for approach in ("dp", "noprivacy", "greedy"):
                free = _plan(world, task, approach, float("inf"), seed)
                limited = _plan(world, task, approach, budget, seed)
                if free.status == "ok" and limited.status != "ok":
                    assert limited.status == "fail_budget", (approach, task, budget)
                    seen_budget += 1
    assert seen_budget > 10  # the sample does exercise the budget
