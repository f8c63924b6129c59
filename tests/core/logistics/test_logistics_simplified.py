"""The simplified approach (§4.5.4) and the RL high-level solver (§4.5.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.common.errors import InputError
from core.logistics.center_rl import rl_center_route
from core.logistics.examples import FIG41_TASK, fig41, generate_tasks, generate_world
from core.logistics.planner import PlannerParams, PlanningSession, preset_guarantee
from core.logistics.routing import path_is_valid


def test_simplified_on_fig41_finds_the_exact_shortest_route_with_one_message_per_center():
    s = PlanningSession(fig41(), approach="simplified", rng=1)
    r = s.plan(FIG41_TASK)
    assert r.success and r.length == r.shortest_length  # exact crossings: optimal
    assert r.route[0] == "a2" and r.route[-1] == "f4"
    assert path_is_valid(s.live.union_graph(), r.route)
    hand_offs = len(r.agents) - 1  # a center between every two consecutive agents
    assert r.message_kinds == {"plan": hand_offs} and r.messages == hand_offs
    assert s.guarantee().epsilon == 0.0 and "crossing lengths" in s.guarantee().adjacency
    assert all(not led.entries for led in s.ledgers.values())


def test_simplified_is_optimal_on_generated_worlds():
    """Exact public crossings + Dijkstra: every delivered route is a true shortest path."""
    for k in range(3):
        w = generate_world(8, seed=40 + k)
        tasks = generate_tasks(w, p_package=0.3, rng=k)
        s = PlanningSession(w, approach="simplified", rng=k,
                            params=PlannerParams(comm_budget=math.inf))
        for r in s.run(tasks):
            assert r.success
            assert r.length == pytest.approx(r.shortest_length)


def test_simplified_uses_fewer_messages_than_dp():
    w = generate_world(10, seed=3)
    tasks = generate_tasks(w, p_package=0.3, rng=3)
    m = {}
    for ap in ("simplified", "dp"):
        s = PlanningSession(w, approach=ap, rng=2, params=PlannerParams(comm_budget=math.inf))
        m[ap] = sum(r.messages for r in s.run(tasks))
    assert m["simplified"] < m["dp"]


def test_simplified_guarantee_from_public_parameters():
    g = preset_guarantee(PlannerParams(), "simplified")
    assert g.epsilon == 0.0 and g.bounded


def test_rl_solver_is_selectable_and_learns_the_optimum_on_fig41():
    s = PlanningSession(fig41(), approach="simplified", rng=1,
                        params=PlannerParams(high_level_solver="rl", rl_route_episodes=400))
    r = s.plan(FIG41_TASK)
    assert r.success and len(s.learning_curves) == 1
    c = s.learning_curves[0]
    assert len(c.episode_cost) == 400
    assert c.greedy_cost[-1] == pytest.approx(c.optimum)  # converged to Dijkstra's optimum
    assert c.converged_at() is not None and c.converged_at() > 1  # it had to learn
    assert r.length == pytest.approx(r.shortest_length)


def test_rl_curve_improves_over_random_graphs():
    """Mean sampled-walk cost over the last 50 episodes is below the first 50 (fixed seeds,
    10 random center graphs)."""
    better = 0
    for k in range(10):
        rng = np.random.default_rng(k)
        n = 8
        arcs = [(str(i), str(j), "x", float(rng.integers(1, 20)))
                for i in range(n) for j in range(n) if i != j and rng.random() < 0.4]
        arcs += [(str(i), str(i + 1), "y", 25.0) for i in range(n - 1)]
        r = rl_center_route(arcs, "0", str(n - 1), rng=np.random.default_rng(100 + k),
                            episodes=300)
        assert r is not None and r.cost >= r.curve.optimum - 1e-9
        first = np.mean([x for x in r.curve.episode_cost[:50] if math.isfinite(x)])
        last = np.mean([x for x in r.curve.episode_cost[-50:] if math.isfinite(x)])
        better += last < first
    assert better >= 8


@pytest.mark.parametrize("kw, field", [({"high_level_solver": "astar"}, "high_level_solver"),
                                       ({"rl_route_episodes": 0}, "rl_route_episodes")])
def test_bad_solver_settings_name_the_field(kw, field):
    with pytest.raises(InputError) as e:
        PlannerParams(**kw)
    assert e.value.field == field
