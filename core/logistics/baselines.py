"""The baselines of spec §6.2: Best-first and Greedy (GPPP). No-privacy is the planner's
``approach="noprivacy"`` (same steps and messages as DP-based, exact information).

Both are strategies (:mod:`core.logistics.strategy`): they run inside a
:class:`core.logistics.planner.PlanningSession` through its public strategy API only, so
they share its world, communication ledgers, dynamics and random streams with the other
approaches (common random numbers).

* **Best-first** (forward search as in MAFS-style planners): the origin carries the
  package to its nearest center (preferring one shared with the goal agent). At each
  center the holder broadcasts the state to all m − 1 other agents (m − 1 messages) and
  every agent sharing the center replies. The goal agent takes the package if it is
  there; otherwise the "nearest" agent — the one whose exact local distance from this
  center to one of its *unvisited* other centers is smallest (or to a visited one if it
  has no other) — carries it there. A repeated (center, holder) state or more than
  2·N_centers hops is ``fail_loop``.
* **Greedy** (GPPP): a global best-first search over the public center graph with unit
  cost per crossing (hop count, ties by id); expanding a center costs 2·(members − 1)
  messages (GP_EXPAND and GP_REPLY); then one plan message per route agent; local legs
  are exact. No memo.
* Privacy: every Best-first reply carries exact local distances, so each is an unbounded
  entry in the replying agent's ledger (``PlanningSession.record_raw``); Greedy sends
  nothing private (the public center graph and hop counts), so it records nothing.
* Broken routes (packet routing): a planned leg whose node or route has left triggers a
  new finding process from the current center (messages charged again), at most 3 times,
  then ``fail_broken``.

Examples
--------
>>> from core.logistics.examples import fig41, FIG41_TASK
>>> from core.logistics.planner import PlanningSession
>>> r = PlanningSession(fig41(), approach="greedy", rng=0).plan(FIG41_TASK)
>>> r.success, r.centers, r.length
(True, ('A', 'B', 'E', 'F'), 550.0)
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from core.logistics.model import Task
from core.logistics.routing import path_is_valid
from core.logistics.strategy import MessageCount, PlanResult, StrategySession

__all__ = ["best_first", "greedy", "MAX_RESTARTS", "RESTART_RELEASE", "RESTART_REASON"]

MAX_RESTARTS = 3

RESTART_RELEASE = "a new finding process announcing that its planned leg broke"
RESTART_REASON = ("under dynamics a broken leg is announced by a new finding process: "
                  "whether an agent's planned leg broke depends on its private topology "
                  "(no finite bound)")


def _result(s: StrategySession, task: Task, route: list[str], total: float,
            segs: list[tuple[str, str, str]], msgs: MessageCount, restarts: int) -> PlanResult:
    centers = tuple(v for v in route if s.world.graph.has_node(v) and
                    s.world.kind(v) == "center")
    merged: list[tuple[str, str, str]] = []
    for seg in segs:
        if merged and merged[-1][0] == seg[0]:
            merged[-1] = (seg[0], merged[-1][1], seg[2])
        else:
            merged.append(seg)
    first = [v for v in route[:route.index(centers[0]) + 1]] if centers else list(route)
    view = tuple(first) + centers[1:]
    return PlanResult(task=task, approach=s.approach, status="ok", route=tuple(route),
                      length=total, centers=centers, agents=tuple(m[0] for m in merged),
                      segments=tuple(merged), plan_view=view, messages=msgs.total,
                      message_kinds=dict(msgs.kinds), restarts=restarts)


@dataclass
class _Walk:
    """Best-first's package so far: the executed route, its length, the legs (agent,
    from, to), the restarts and the dynamics clock."""

    route: list[str]
    total: float = 0.0
    segs: list[tuple[str, str, str]] = field(default_factory=list)
    restarts: int = 0
    tick: int = 0

    def advance(self, s: StrategySession, protect: tuple[str, ...]) -> None:
        """One step of the dynamics (the package's ends protected)."""
        s.tick(self.tick, protect)
        self.tick += 1

    def extend(self, path: list[str], length: float, seg: tuple[str, str, str]) -> None:
        """Carry the package along ``path`` (the leg ``seg``)."""
        self.route += path[1:]
        self.total += length
        self.segs.append(seg)

    def leg_holds(self, s: StrategySession, agent: str, path: list[str],
                  protect: tuple[str, ...]) -> bool:
        """After one step of the dynamics, whether ``agent``'s planned leg still exists;
        if not, the agent announces a new finding process (a raw release) and it counts
        as a restart."""
        self.advance(s, protect)
        if path_is_valid(s.live.local(agent), path):
            return True
        s.record_raw(agent, "none (an announcement)", RESTART_RELEASE, RESTART_REASON)
        self.restarts += 1
        return False


def _legs(s: StrategySession, a: str, origin: str, centers: list[str]
          ) -> list[tuple[tuple[list[str], float], str]]:
    """Agent ``a``'s reachable legs ((path, length), center) from ``origin`` to ``centers``."""
    legs = [(s.live.shortest(a, origin, c), c) for c in centers]
    return [(lg, c) for lg, c in legs if lg is not None]


def _origin_leg(s: StrategySession, task: Task, st: _Walk, a: str, g: str,
                protect: tuple[str, ...]) -> tuple[list[str], float, str] | str:
    """The origin agent's leg to its nearest own center (one shared with ``g`` if it can
    reach one), re-planned while dynamics break it: (path, length, center), or the
    failure status."""
    w = s.world
    while True:
        st.advance(s, protect)
        loc = s.live.local(a)
        own = list(w.agent_centers[a])
        pool = [c for c in own if g in w.members[c]] or own
        # a split area: the shared centers may be out of reach
        found = _legs(s, a, task.origin, pool) or _legs(s, a, task.origin, own)
        if not found:
            return "fail_no_route"
        (path, d), c = min(found, key=lambda x: (x[0][1], x[1]))
        st.advance(s, protect)
        if path_is_valid(loc, path):
            return path, d, c
        st.restarts += 1
        if st.restarts > MAX_RESTARTS:
            return "fail_broken"


def _responders(s: StrategySession, holder: str, here: str, msgs: MessageCount
                ) -> list[str] | str:
    """The holder broadcasts to the m − 1 other agents; the agents sharing center ``here``
    reply with exact local distances (each a raw release). The repliers, or the failure
    status."""
    w = s.world
    if not s.send(holder, msgs, "bcast", len(w.agents) - 1):
        return "fail_budget"
    responders = [y for y in w.members[here] if y != holder and s.send(y, msgs, "bcast_reply")]
    for y in responders:  # each reply carries exact local distances: a raw release
        s.record_raw(y, "none (exact values)", "exact local distances from a center to "
                     "its other centers, in best-first replies",
                     "Best-first baseline: replies carry exact local distances")
    if not responders:
        return "fail_budget" if len(w.members[here]) > 1 else "fail_no_route"
    return responders


def _best_crossing(s: StrategySession, responders: list[str], here: str, visited: set[str]
                   ) -> tuple[float, str, str, list[str]] | None:
    """The "nearest" responder's crossing from ``here``: unvisited centers first, then the
    shortest exact local distance, ties by agent and center id. (length, agent, center,
    path), or None."""
    best: tuple[int, float, str, str, list[str]] | None = None
    for y in sorted(responders):
        for c2 in s.world.agent_centers[y]:
            if c2 == here:
                continue
            cand = s.live.shortest(y, here, c2)
            if cand is None:
                continue
            key = (1 if c2 in visited else 0, cand[1], y, c2, cand[0])
            if best is None or key[:4] < best[:4]:
                best = key
    return None if best is None else best[1:]


def best_first(s: StrategySession, task: Task) -> PlanResult:
    """Best-first forward search (spec §6.2) for one task in session ``s``.

    Parameters
    ----------
    s : StrategySession
        The session (its world, budget, ledgers and messages).
    task : Task
        The task.

    Returns
    -------
    PlanResult
        The route, or the failure with its status.
    """
    w = s.world
    a, g = w.agent_of(task.origin), task.goal_agent
    msgs = s.new_messages()
    protect = (task.origin,) + ((task.goal,) if task.goal else ())
    if a == g:
        s.tick(0, protect)
        return s.finish(task, [(a, task.origin, task.goal)], msgs)
    st = _Walk([task.origin])
    first = _origin_leg(s, task, st, a, g, protect)
    if isinstance(first, str):
        return s.fail(task, first, msgs, restarts=st.restarts)
    path, d, c = first
    st.extend(path, d, (a, task.origin, c))
    holder, here = a, c
    visited = {c}
    states: set[tuple[str, str]] = set()
    hops = 0
    while True:
        if (here, holder) in states or hops > 2 * len(w.center_ids):
            return s.fail(task, "fail_loop", msgs, restarts=st.restarts)
        states.add((here, holder))
        responders = _responders(s, holder, here, msgs)
        if isinstance(responders, str):
            return s.fail(task, responders, msgs, restarts=st.restarts)
        leg_g = s.live.shortest(g, here, task.goal) if g in responders else None
        if leg_g is not None:
            if st.leg_holds(s, g, leg_g[0], protect):
                st.extend(leg_g[0], leg_g[1], (g, here, leg_g[0][-1]))
                return _result(s, task, st.route, st.total, st.segs, msgs, st.restarts)
        else:
            best = _best_crossing(s, responders, here, visited)
            if best is None:
                return s.fail(task, "fail_no_route", msgs, restarts=st.restarts)
            d, y, c2, path = best
            if st.leg_holds(s, y, path, protect):
                st.extend(path, d, (y, here, c2))
                holder, here = y, c2
                visited.add(c2)
                hops += 1
                continue
        if st.restarts > MAX_RESTARTS:
            return s.fail(task, "fail_broken", msgs, restarts=st.restarts)
        states.discard((here, holder))


def _global_search(s: StrategySession, starts: list[tuple[str, str]], g: str,
                   goal: str | None, msgs: MessageCount
                   ) -> tuple[list[tuple[str, str, str]] | None, bool]:
    """Best-first over centers with unit crossing cost; returns (chain, blocked).

    ``starts`` are (center, agent holding the package there). The chain is a list of
    (agent, from center, to center) crossings ending at a center the goal agent shares.
    """
    w = s.world
    heap = [(0, c, holder) for c, holder in starts]
    heapq.heapify(heap)
    parent: dict[str, tuple[str, str] | None] = {c: None for c, _ in starts}
    expanded: set[str] = set()
    blocked = False
    while heap:
        cost, c, holder = heapq.heappop(heap)
        if c in expanded:
            continue
        expanded.add(c)
        others = [y for y in w.members[c] if y != holder]
        if not s.send(holder, msgs, "gp_expand", len(others)):
            blocked = True
            continue
        repliers = [y for y in others if s.send(y, msgs, "gp_reply")]
        blocked = blocked or len(repliers) < len(others)
        if (g in repliers or holder == g) and s.live.shortest(g, c, goal) is not None:
            chain: list[tuple[str, str, str]] = []
            v = c
            while parent[v] is not None:
                u, ag = parent[v]  # type: ignore[misc]
                chain.append((ag, u, v))
                v = u
            return chain[::-1] + [(g, c, "")], blocked
        for y in sorted(repliers):
            for c2 in w.agent_centers[y]:
                # an agent offers the centers its area connects to c (all of them unless
                # the area has split)
                if c2 not in parent and s.live.center_reachable(y, c, c2):
                    parent[c2] = (c, y)
                    heapq.heappush(heap, (cost + 1, c2, y))
    return None, blocked


def greedy(s: StrategySession, task: Task) -> PlanResult:
    """GPPP-style Greedy (spec §6.2) for one task in session ``s``.

    Parameters
    ----------
    s : StrategySession
        The session (its world, budget, ledgers and messages).
    task : Task
        The task.

    Returns
    -------
    PlanResult
        The route, or the failure with its status.
    """
    w = s.world
    a, g = w.agent_of(task.origin), task.goal_agent
    msgs = s.new_messages()
    protect = (task.origin,) + ((task.goal,) if task.goal else ())
    if a == g:
        s.tick(0, protect)
        return s.finish(task, [(a, task.origin, task.goal)], msgs)
    route: list[str] = [task.origin]
    total = 0.0
    segs: list[tuple[str, str, str]] = []
    restarts = 0
    tick = 0
    here: str | None = None  # None: still at the origin base
    holder = a
    while True:
        s.tick(tick, protect)
        tick += 1
        starts = [(c, a) for c in w.agent_centers[a] if s.live.center_reachable(
            a, task.origin, c)] if here is None else [(here, holder)]
        chain, blocked = _global_search(s, starts, g, task.goal, msgs)
        if chain is None:
            return s.fail(task, "fail_budget" if blocked else "fail_not_found", msgs,
                           restarts=restarts)
        plan: list[tuple[str, str, str | None]] = []
        if here is None:
            plan.append((a, task.origin, chain[0][1]))
        plan += [(ag, f, t) for ag, f, t in chain[:-1]]
        plan.append((g, chain[-1][1], task.goal))
        merged: list[tuple[str, str, str | None]] = []
        for seg in plan:
            if merged and merged[-1][0] == seg[0]:
                merged[-1] = (seg[0], merged[-1][1], seg[2])
            else:
                merged.append(seg)
        n_plan = len({m[0] for m in merged} - {a})
        sender = a if here is None else holder
        if not s.send(sender, msgs, "plan", n_plan):
            return s.fail(task, "fail_budget", msgs, restarts=restarts)
        legs = [s.live.shortest(ag, f, t) for ag, f, t in merged]
        s.tick(tick, protect)
        tick += 1
        broken_at = None
        for i, ((ag, f, _t), lg) in enumerate(zip(merged, legs)):
            # a leg out of reach (a split area) or one that lost a node or route
            if lg is None or not path_is_valid(s.live.local(ag), lg[0]):
                broken_at = i
                break
            route += lg[0][1:]
            total += lg[1]
            segs.append((ag, f, lg[0][-1]))
        if broken_at is None:
            return _result(s, task, route, total, segs, msgs, restarts)
        s.record_raw(merged[broken_at][0], "none (an announcement)", RESTART_RELEASE,
                     RESTART_REASON)
        restarts += 1
        if restarts > MAX_RESTARTS:
            return s.fail(task, "fail_broken", msgs, restarts=restarts)
        ag, f, _t = merged[broken_at]
        if f == task.origin:
            here, holder = None, a
        else:
            here, holder = f, ag
