"""The strategy API of a planning session: approaches are functions
``(session, task) -> PlanResult`` that use the session's public API only."""

from __future__ import annotations

import ast
import inspect

import pytest

import core.logistics.baselines as baselines
from core.logistics.examples import FIG41_TASK, fig41
from core.logistics.model import Task
from core.logistics.planner import APPROACHES, STRATEGIES, PlanningSession
from core.logistics.strategy import MessageCount, PlanResult, StrategySession


def _private_uses(module) -> list[str]:
    """Attribute names starting with one underscore read off anything but ``self``."""
    tree = ast.parse(inspect.getsource(module))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not \
                node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                out.append(node.attr)
    return out


def test_baselines_use_no_private_member_and_do_not_import_the_planner():
    assert _private_uses(baselines) == []
    imported = set()
    for node in ast.walk(ast.parse(inspect.getsource(baselines))):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module)
            assert not any(a.name.startswith("_") for a in node.names), node.module
    assert "core.logistics.planner" not in imported


def test_every_approach_has_a_strategy():
    assert set(APPROACHES) <= set(STRATEGIES)


def test_a_strategy_written_against_the_protocol_runs_in_a_session(monkeypatch):
    """A new approach needs nothing private: here, 'hand it to the goal agent at the first
    shared center, if there is one' (one message)."""
    seen: list[StrategySession] = []

    def direct(s: StrategySession, task: Task) -> PlanResult:
        seen.append(s)
        msgs = s.new_messages()
        a = s.world.agent_of(task.origin)
        s.tick(0, (task.origin,))
        shared = [c for c in s.world.agent_centers[a] if task.goal_agent in s.world.members[c]]
        if not shared:
            return s.fail(task, "fail_no_route", msgs)
        if not s.send(a, msgs, "handover"):
            return s.fail(task, "fail_budget", msgs)
        return s.finish(task, [(a, task.origin, shared[0]),
                               (task.goal_agent, shared[0], task.goal)], msgs)

    monkeypatch.setitem(STRATEGIES, "direct", direct)
    s = PlanningSession(fig41(), approach="direct", rng=0)
    ok = s.plan(Task("a3", "b", "b2"))  # a and b share A
    assert ok.success and ok.centers == ("A",) and ok.messages == 1
    assert isinstance(seen[0], PlanningSession)
    far = s.plan(FIG41_TASK)  # a and f share no center
    assert far.status == "fail_no_route" and far.messages == 0
    assert s.comm["a"].sent == 1


def test_message_count():
    m = MessageCount()
    m.add("bcast", 4)
    m.add("bcast")
    assert (m.total, m.kinds) == (5, {"bcast": 5})


@pytest.mark.parametrize("approach", APPROACHES)
def test_fig41_through_the_table(approach):
    r = PlanningSession(fig41(), approach=approach, rng=0).plan(FIG41_TASK)
    assert r.success and r.approach == approach
