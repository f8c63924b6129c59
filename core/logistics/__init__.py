"""DP multi-agent route planning for logistic-like problems (thesis Chapter 4;
``docs/reference-values.md`` chapter L).

Modules: :mod:`~core.logistics.model` (world, tasks, validation), :mod:`~core.logistics.io`
(``*.map.json``), :mod:`~core.logistics.examples` (fig41 reconstruction, generator),
:mod:`~core.logistics.obfuscation` (Alg 7, Eq. 4.2), :mod:`~core.logistics.route_rl`
(Alg 8, crossing estimates), :mod:`~core.logistics.planner` (the three steps, sessions),
:mod:`~core.logistics.strategy` (the public strategy API a session offers its approaches:
results, message counts, the session protocol), :mod:`~core.logistics.baselines`
(Best-first, Greedy), :mod:`~core.logistics.routing`
(packet-routing dynamics), :mod:`~core.logistics.domains` (the domain profiles of §4.7:
logistics, packet, air, rover), :mod:`~core.logistics.experiments` (B1–B5),
:mod:`~core.cli.logistics` (``plan``, ``plan-bench``), :mod:`~core.logistics.randomness`
(the release-mode CSPRNG for the choices that shape a released map).

The common names are re-exported lazily (importing this package stays cheap, so the
command line starts fast).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41, generate_tasks, generate_world
    from core.logistics.experiments import (
        APPROACH_LABELS,
        BENCHMARKS,
        BenchResult,
        benchmark_config,
        run_benchmark,
    )
    from core.logistics.io import load_map, map_to_dict, save_map
    from core.logistics.model import LogisticsWorld, Task, validate_task
    from core.logistics.planner import (
        APPROACHES,
        THESIS_FLAWS,
        PlannerParams,
        PlanningSession,
        PlanResult,
        center_route,
        plan_task,
    )
    from core.logistics.records import (
        APPROACH_NAMES,
        BENCH_METRICS,
        BENCH_PARAM_LABELS,
        bench_summary,
    )
    from core.logistics.routing import Dynamics

__all__ = [
    "LogisticsWorld",
    "Task",
    "load_map",
    "save_map",
    "fig41",
    "generate_world",
    "generate_tasks",
    "PlannerParams",
    "PlanningSession",
    "PlanResult",
    "plan_task",
    "Dynamics",
    "run_benchmark",
    "APPROACHES",
    "APPROACH_LABELS",
    "APPROACH_NAMES",
    "BENCHMARKS",
    "BENCH_METRICS",
    "BENCH_PARAM_LABELS",
    "BenchResult",
    "MapEntry",
    "THESIS_FLAWS",
    "bench_summary",
    "benchmark_config",
    "center_route",
    "map_to_dict",
    "validate_task",
]

_WHERE = {
    "LogisticsWorld": "model",
    "Task": "model",
    "load_map": "io",
    "save_map": "io",
    "fig41": "examples",
    "generate_world": "examples",
    "generate_tasks": "examples",
    "PlannerParams": "planner",
    "PlanningSession": "planner",
    "PlanResult": "planner",
    "plan_task": "planner",
    "Dynamics": "routing",
    "run_benchmark": "experiments",
    "MapEntry": "document",
    "APPROACH_LABELS": "experiments",
    "BENCHMARKS": "experiments",
    "BenchResult": "experiments",
    "benchmark_config": "experiments",
    "APPROACH_NAMES": "records",
    "BENCH_METRICS": "records",
    "BENCH_PARAM_LABELS": "records",
    "bench_summary": "records",
    "map_to_dict": "io",
    "THESIS_FLAWS": "planner",
    "validate_task": "model",
    "APPROACHES": "planner",
    "center_route": "planner",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"core.logistics.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'core.logistics' has no attribute {name!r}")
