"""DP multi-agent route planning for logistic-like problems (thesis Chapter 4, spec
``dp-logistics-planning.md``).

Modules: :mod:`~core.logistics.model` (world, tasks, validation), :mod:`~core.logistics.io`
(``*.map.json``), :mod:`~core.logistics.examples` (fig41 reconstruction, generator),
:mod:`~core.logistics.obfuscation` (Alg 7, Eq. 4.2), :mod:`~core.logistics.route_rl`
(Alg 8, crossing estimates), :mod:`~core.logistics.planner` (the three steps, sessions),
:mod:`~core.logistics.strategy` (the public strategy API a session offers its approaches:
results, message counts, the session protocol), :mod:`~core.logistics.baselines`
(Best-first, Greedy), :mod:`~core.logistics.routing`
(packet-routing dynamics), :mod:`~core.logistics.experiments` (B1–B5),
:mod:`~core.cli.logistics` (``plan``, ``plan-bench``), :mod:`~core.logistics.randomness`
(the release-mode CSPRNG for the choices that shape a released map).

The common names are re-exported lazily (importing this package stays cheap, so the
command line starts fast).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LogisticsWorld", "Task", "load_map", "save_map", "fig41", "generate_world",
           "generate_tasks", "PlannerParams", "PlanningSession", "PlanResult", "plan_task",
           "Dynamics", "run_benchmark"]

_WHERE = {"LogisticsWorld": "model", "Task": "model", "load_map": "io", "save_map": "io",
          "fig41": "examples", "generate_world": "examples", "generate_tasks": "examples",
          "PlannerParams": "planner", "PlanningSession": "planner", "PlanResult": "planner",
          "plan_task": "planner", "Dynamics": "routing", "run_benchmark": "experiments"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"core.logistics.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'core.logistics' has no attribute {name!r}")
