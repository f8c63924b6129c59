"""One planning task as a user action: its parameters, its one entry point, its outcome.

``plan MAP …`` and the Logistics tab's Run both build a :class:`PlanParameters` (the task,
the approach, the seed and the planner's :class:`~core.logistics.planner.PlannerParams`)
and call :func:`plan_release` with the map; both record the :class:`PlanRelease` with
:func:`core.project.recording.plan_run_record`. The parameters are checked once, when they
are made (each :class:`InputError` naming its field); the task against the map by
:meth:`PlanParameters.task_on`, which :func:`plan_release` calls first (and the window
before it starts its worker, so a bad task is refused before any work).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.common.errors import InputError
from core.common.progress import Cancelled
from core.common.validation import check_choice, check_seed
from core.logistics.model import LogisticsWorld, Task, validate_task
from core.logistics.planner import APPROACHES, PlannerParams, PlanningSession
from core.logistics.routing import Dynamics
from core.logistics.strategy import PlanResult

__all__ = ["PlanParameters", "PlanRelease", "plan_release"]


def _check_node(value: Any, name: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value:
        raise InputError(f"must be a node or agent name, got {value!r}", field=name)


@dataclass(frozen=True)
class PlanParameters:
    """What one planning task means (``plan``, the Logistics tab's Run).

    ``origin`` is the base holding the package, ``goal_agent`` the agent whose area is the
    destination and ``goal`` its base (None: the one nearest to the hand-over); ``approach``
    one of :data:`~core.logistics.planner.APPROACHES`; ``seed`` an int for a seeded
    experiment or None for release mode (secure noise); ``planner`` every knob of the
    method. Validated once, here (the names' existence on a map by :meth:`task_on`).

    Examples
    --------
    >>> p = PlanParameters("a2", "f", planner=PlannerParams.preset_params(epsilon=0.5), seed=1)
    >>> PlanParameters.from_dict(p.to_dict()) == p, p.to_dict()["seeded"]
    (True, True)
    >>> PlanParameters("a2", "f", approach="astar")
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: approach: must be one of ('dp', 'noprivacy', 'bestfirst', \
'greedy', 'simplified'), got 'astar'
    """

    origin: str
    goal_agent: str
    goal: str | None = None
    approach: str = "dp"
    planner: PlannerParams = PlannerParams()
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.planner, PlannerParams):
            raise InputError(f"must be PlannerParams, got {self.planner!r}", field="planner")
        check_choice(self.approach, APPROACHES, "approach")
        check_seed(self.seed)
        _check_node(self.origin, "origin")
        _check_node(self.goal_agent, "goal_agent")
        _check_node(self.goal, "goal", optional=True)

    @property
    def seeded(self) -> bool:
        """True for a seeded experiment (reproducible, not for real releases)."""
        return self.seed is not None

    @property
    def task(self) -> Task:
        return Task(self.origin, self.goal_agent, self.goal)

    def task_on(self, world: LogisticsWorld) -> Task:
        """The task checked against ``world`` (an :class:`InputError` naming ``origin``,
        ``goal_agent`` or ``goal`` if a name is not on it, or the domain refuses it)."""
        return validate_task(world, self.task)

    def to_dict(self) -> dict[str, Any]:
        """The keys a run record's ``params`` keeps (``task``, ``approach``, ``preset``,
        ``epsilon``, ``comm_budget``, ``seeded``, ``planner``) and the ``seed``; strict JSON
        (an unlimited budget is ``"unlimited"`` in ``planner`` and null at the top)."""
        p = self.planner
        budget = p.comm_budget
        return {"task": self.task.to_dict(), "approach": self.approach, "preset": p.preset,
                "epsilon": p.epsilon,
                "comm_budget": None if budget is None or math.isinf(budget) else budget,
                "seeded": self.seeded, "seed": self.seed, "planner": p.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any], seed: int | None = None) -> "PlanParameters":
        """Read back :meth:`to_dict` or a recorded run's ``params`` (``seed`` from the
        record when ``d`` has none; ``preset``, ``epsilon`` and ``comm_budget`` are read
        from ``planner``, which holds them all)."""
        if not isinstance(d, dict):
            raise InputError(f"must be an object, got {d!r}", field="params")
        task = d.get("task")
        if not isinstance(task, dict):
            raise InputError(f"must be an object with origin and goal_agent, got {task!r}",
                             field="task")
        return cls(task.get("origin", ""), task.get("goal_agent", ""), task.get("goal"),
                   approach=d.get("approach", "dp"),
                   planner=PlannerParams.from_dict(d.get("planner") or {}),
                   seed=d.get("seed", seed))


@dataclass(frozen=True)
class PlanRelease:
    """The outcome of :func:`plan_release`: the task's result and the session that planned
    it (its agents' ledgers, published maps, guarantee and messages)."""

    result: PlanResult
    session: PlanningSession


def plan_release(params: PlanParameters, progress: Callable[..., None] | None = None,
                 cancelled: Callable[[], bool] | None = None, *, world: LogisticsWorld,
                 dynamics: Dynamics | None = None) -> PlanRelease:
    """Plan and execute the task of ``params`` on ``world``: the one entry point of a
    planning run.

    ``plan`` calls it and the Logistics tab runs it in its worker; both record the release
    with :func:`core.project.recording.plan_run_record`.

    Parameters
    ----------
    params : PlanParameters
        The task, approach, seed and planner parameters (validated when made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled before the session starts and before each agent's
        Step 2 (its obfuscated map and route probabilities); True stops the run by raising
        :class:`core.common.progress.Cancelled`.
    world : LogisticsWorld
        The map planned on.
    dynamics : Dynamics, optional
        Packet routing: nodes leave and join while the package travels (None: a static map).

    Returns
    -------
    PlanRelease

    Examples
    --------
    >>> from core.logistics.examples import fig41
    >>> rel = plan_release(PlanParameters("a2", "f", "f4", seed=1), world=fig41())
    >>> rel.result.success, rel.session.mode, rel.session.seed
    (True, 'experiment', 1)
    """
    def check() -> None:
        if cancelled is not None and cancelled():
            raise Cancelled()
        if progress is not None:
            progress(0.0, "planning")  # a runner's progress raises Cancelled once cancelled

    task = params.task_on(world)
    check()
    session = PlanningSession(world, approach=params.approach, params=params.planner,
                              rng=params.seed, dynamics=dynamics)
    session.checkpoint = check
    result = session.plan(task)
    if progress is not None:
        progress(1.0, "done")
    return PlanRelease(result, session)
