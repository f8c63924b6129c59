"""Packet-routing dynamics: per-node churn, areas that may split, re-plans
from a broken crossing with their messages, and the privacy they cost."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from core.common.errors import InputError
from core.logistics.baselines import RESTART_REASON
from core.logistics.examples import FIG41_TASK, fig41, generate_tasks, generate_world
from core.logistics.planner import (
    BROKEN_REASON,
    LEG_DONE_RELEASE,
    PlannerParams,
    PlanningSession,
    preset_guarantee,
)
from core.logistics.routing import Dynamics, LiveWorld, path_is_valid

UNLIMITED = math.inf


@pytest.mark.parametrize("kw, field", [({"per": "tick"}, "dynamics_per"),
                                       ({"connectivity": "none"}, "connectivity"),
                                       ({"p_leave": 1.5}, "p_leave"),
                                       ({"p_join": True}, "p_join")])
def test_bad_dynamics_name_the_field(kw, field):
    with pytest.raises(InputError) as e:
        Dynamics(**kw)
    assert e.value.field == field


def _churn(per, conn, ticks=60, p=0.3, seed=0):
    w = generate_world(10, seed=4)
    live = LiveWorld(w)
    rng = np.random.default_rng(seed)
    most = 0
    splits = 0
    for _ in range(ticks):
        before = {a: len(live.bases(a)) for a in w.agents}
        live.tick(Dynamics(p, p, per=per, connectivity=conn), rng)
        for a in w.agents:
            g = live.local(a)
            assert max(d for _, d in g.degree()) <= w.degree_cap  # the cap is kept
            assert set(w.agent_centers[a]) <= set(g)  # access points never leave
            most = max(most, before[a] - len(live.bases(a)))
            splits += not nx.is_connected(g)
        assert nx.is_connected(live.union_graph())  # the network stays connected
    return most, splits


def test_per_agent_churn_is_at_most_one_leave_per_agent_and_tick():
    most, splits = _churn("agent", "area")
    assert most <= 1 and splits == 0


def test_per_node_churn_scales_with_the_area_and_areas_stay_connected():
    most, splits = _churn("node", "area")
    assert most >= 2 and splits == 0


def test_network_connectivity_lets_areas_split_but_keeps_the_network():
    _most, splits = _churn("node", "network")
    assert splits > 0


def _broken_b(session, cut_step=3):
    """Cut b's area between A and B right before execution (the tick before execution of
    the first route: 3 for the DP pipeline, 1 for simplified)."""
    real = session.tick

    def tick(step, protect):
        real(step, protect)
        if step == cut_step and "b1" in session.live.local("b"):
            g = session.live.local("b")
            g.remove_nodes_from(["b1", "b3"])  # A-b2 | b4-b5-B: b cannot cross A -> B
            session.live.version += 1
    session.tick = tick


@pytest.mark.parametrize("approach, seed", [("dp", 6), ("noprivacy", 3), ("simplified", 3)])
def test_a_broken_crossing_is_re_planned_and_charged(approach, seed):
    dyn = Dynamics(0.0001, 0.0, per="node", connectivity="network")
    s = PlanningSession(fig41(), approach=approach, rng=seed, dynamics=dyn,
                        params=PlannerParams(comm_budget=UNLIMITED))
    first = PlanningSession(fig41(), approach=approach, rng=seed,
                            params=PlannerParams(comm_budget=UNLIMITED)).plan(FIG41_TASK)
    assert first.agents[:2] == ("a", "b")  # the static plan goes through b (A -> B)
    _broken_b(s, 1 if approach == "simplified" else 3)
    r = s.plan(FIG41_TASK)
    assert r.success and r.restarts == 1
    assert path_is_valid(s.live.union_graph(), r.route)
    assert r.route[0] == "a2" and r.route[-1] == "f4" and "b1" not in r.route
    # the re-plan costs messages (DP-based and No-privacy: b floods a query of its own;
    # simplified: the new plan is sent to the centers on its path)
    assert r.messages > first.messages
    kind = "plan" if approach == "simplified" else "query"
    assert r.message_kinds[kind] > first.message_kinds[kind]
    # b announced the break: an unbounded entry in its ledger, and the run proves nothing
    broken = [e for e in s.ledgers["b"].entries if e.reason == BROKEN_REASON
              and e.released != LEG_DONE_RELEASE]
    assert len(broken) == 1 and broken[0].unbounded
    assert math.isinf(s.epsilon_spent()["b"])
    g = s.guarantee()
    assert not g.bounded and BROKEN_REASON in g.reason
    assert g.to_dict()["epsilon"] is None and g.to_dict()["epsilon_reason"]
    # every agent that carried a leg released "my leg did not break"
    for ag in r.agents:
        assert any(e.released == LEG_DONE_RELEASE for e in s.ledgers[ag].entries)


def test_the_a_priori_statement_does_not_depend_on_what_happened():
    """Under splitting dynamics a run whose legs never broke proves nothing either: the
    absence of an announcement is a function of the topology too."""
    dyn = Dynamics(0.0001, 0.0, per="node", connectivity="network")
    s = PlanningSession(fig41(), approach="dp", rng=3, dynamics=dyn)
    r = s.plan(FIG41_TASK)
    assert r.restarts == 0
    assert not s.guarantee().bounded
    assert not preset_guarantee(PlannerParams(), "dp", dynamics=dyn).bounded
    # with areas that stay connected DP re-plans locally and silently: epsilon stays proven
    quiet = PlanningSession(fig41(), approach="dp", rng=3,
                            dynamics=Dynamics(0.3, 0.3, per="node", connectivity="area"))
    quiet.run([FIG41_TASK] * 3)
    assert quiet.guarantee().epsilon == pytest.approx(0.5)


def test_greedy_under_dynamics_proves_nothing():
    w = generate_world(10, seed=21)
    tasks = generate_tasks(w, p_package=0.4, rng=2)
    s = PlanningSession(w, approach="greedy", rng=5, dynamics=Dynamics(0.5, 0.5),
                        params=PlannerParams(comm_budget=UNLIMITED))
    res = s.run(tasks)
    assert sum(r.restarts for r in res) > 0
    assert not s.guarantee().bounded and RESTART_REASON in s.guarantee().reason
    static = PlanningSession(w, approach="greedy", rng=5,
                             params=PlannerParams(comm_budget=UNLIMITED))
    static.run(tasks)
    assert static.guarantee().epsilon == 0.0


def test_area_connectivity_never_needs_a_re_plan_for_dp():
    w = generate_world(10, seed=8)
    tasks = generate_tasks(w, p_package=0.4, rng=8)
    for per in ("agent", "node"):
        s = PlanningSession(w, approach="dp", rng=1,
                            dynamics=Dynamics(0.3, 0.3, per=per, connectivity="area"),
                            params=PlannerParams(comm_budget=UNLIMITED))
        res = s.run(tasks)
        assert all(r.restarts == 0 for r in res)
        assert all(r.success for r in res)
        assert all(e.reason != BROKEN_REASON for led in s.ledgers.values()
                   for e in led.entries)


def test_splitting_dynamics_cost_dp_re_plans_and_deliveries():
    """Over a seeded run with areas that may split DP re-plans and delivers less."""
    w = generate_world(10, seed=8)
    tasks = generate_tasks(w, p_package=0.4, rng=8)
    s = PlanningSession(w, approach="dp", rng=1,
                        dynamics=Dynamics(0.2, 0.2, per="node", connectivity="network"),
                        params=PlannerParams(comm_budget=UNLIMITED))
    res = s.run(tasks)
    assert sum(r.restarts for r in res) > 0
    for r in res:
        if r.success:  # a delivered package took a valid walk on the network of its time
            assert r.route[0] == r.task.origin and r.route[-1] == r.task.goal
