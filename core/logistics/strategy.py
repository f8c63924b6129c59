"""The strategy API of a planning session: results, message counts and the session protocol.

An *approach* (DP-based, No-privacy, Best-first, Greedy, …) is a **strategy**: a function
``strategy(session, task) -> PlanResult`` that plans and executes one task inside a
:class:`core.logistics.planner.PlanningSession`, using only the session's public strategy
API (:class:`StrategySession`): the world as it is now (``live``), the dynamics tick
(``tick``), messages charged to an agent's budget (``new_messages`` and ``send``), raw
releases recorded in an agent's ledger (``record_raw``), exact execution (``finish``) and
failures (``fail``). The session dispatches on its approach through its table of strategies
(``core.logistics.planner.STRATEGIES``), so a baseline never reaches into the session's
internals and this module sits below both (no import cycle).

Examples
--------
>>> m = MessageCount()
>>> m.add("query", 3); m.add("reply")
>>> m.total, m.kinds
(4, {'query': 3, 'reply': 1})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from core.logistics.model import LogisticsWorld, Task
from core.logistics.routing import LiveWorld

__all__ = ["STATUSES", "MessageCount", "Discovery", "PlanResult", "StrategySession",
           "Strategy"]

#: status code -> reason shown to the user (a failed task is a result, not an error)
STATUSES = {
    "ok": "delivered",
    "fail_not_found": "goal agent not found (query cap reached or no connection)",
    "fail_budget": "communication budget exhausted",
    "fail_no_route": "no route between the origin and the goal agent's centers",
    "fail_loop": "the package went round in a loop (best-first)",
    "fail_broken": "route broken by leaving nodes too often",
}


@dataclass(frozen=True, eq=False)
class Discovery:
    """Step 1's outcome: the high-level map H (Fig 4.3) and the message counts."""

    found: bool
    level: dict[str, int]
    parent: dict[str, tuple[str, str] | None]
    known: tuple[str, ...]
    incidences: tuple[tuple[str, str], ...]
    goal_level: int | None
    candidates: tuple[str, ...]
    posts: int
    replies: int
    budget_blocked: bool
    cap_reached: bool

    def tree_path(self, agent: str) -> list[str]:
        """Agents from the origin to ``agent`` along the BFS tree."""
        path = [agent]
        while self.parent.get(path[-1]) is not None:
            path.append(self.parent[path[-1]][0])  # type: ignore[index]
        return path[::-1]


@dataclass(frozen=True, eq=False)
class PlanResult:
    """One planned and executed task (a failed task is a result with its ``failure``)."""

    task: Task
    approach: str
    status: str
    route: tuple[str, ...]
    length: float | None
    centers: tuple[str, ...]
    agents: tuple[str, ...]
    segments: tuple[tuple[str, str, str], ...]
    plan_view: tuple[str, ...]
    messages: int
    message_kinds: dict[str, int]
    estimated_length: float | None = None
    shortest_length: float | None = None
    memo_hit: bool = False
    restarts: int = 0
    discovery: Discovery | None = None
    center_graph: tuple[tuple[str, str, str, float], ...] = ()
    elapsed_s: float = 0.0

    @property
    def success(self) -> bool:
        return self.status == "ok"

    @property
    def failure(self) -> str | None:
        return None if self.status == "ok" else STATUSES[self.status]

    @property
    def stretch(self) -> float | None:
        if self.length is None or not self.shortest_length:
            return None
        return self.length / self.shortest_length

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "status": self.status, "failure": self.failure,
                "route": list(self.route), "length": self.length,
                "centers": list(self.centers), "agents": list(self.agents),
                "segments": [list(s) for s in self.segments],
                "plan_view": list(self.plan_view), "messages": self.messages,
                "message_kinds": dict(self.message_kinds),
                "estimated_length": self.estimated_length,
                "shortest_length": self.shortest_length, "stretch": self.stretch,
                "memo_hit": self.memo_hit, "restarts": self.restarts,
                "task": self.task.to_dict(), "approach": self.approach}


class MessageCount:
    """The messages of one task, by kind (``query``, ``reply``, ``handover``, …)."""

    __slots__ = ("kinds",)

    def __init__(self) -> None:
        self.kinds: dict[str, int] = {}

    def add(self, kind: str, n: int = 1) -> None:
        """Count ``n`` messages of ``kind``."""
        self.kinds[kind] = self.kinds.get(kind, 0) + n

    @property
    def total(self) -> int:
        """All messages counted so far."""
        return sum(self.kinds.values())


class StrategySession(Protocol):
    """What a strategy may use of its :class:`~core.logistics.planner.PlanningSession`."""

    world: LogisticsWorld
    live: LiveWorld
    approach: str

    def tick(self, step: int, protect: Iterable[str]) -> None:
        """One round of dynamics events (packet routing; nothing without dynamics)."""

    def new_messages(self) -> MessageCount:
        """A fresh message count for one task."""

    def send(self, agent: str, msgs: MessageCount, kind: str, n: int = 1) -> bool:
        """Charge ``n`` messages to ``agent``; False (nothing sent) if over its budget."""

    def record_raw(self, agent: str, mechanism: str, released: str, reason: str) -> None:
        """Record an unbounded (exact) release by ``agent`` in its ledger."""

    def fail(self, task: Task, status: str, msgs: MessageCount, **kw: Any) -> "PlanResult":
        """A failed result with ``status`` (a key of :data:`STATUSES`)."""

    def finish(self, task: Task, segs: list[tuple[str, str, str | None]], msgs: MessageCount,
               **kw: Any) -> "PlanResult":
        """Execute the segments' exact legs on the current maps and return the result."""


#: a strategy plans and executes one task in a session
Strategy = Callable[[Any, Task], PlanResult]
