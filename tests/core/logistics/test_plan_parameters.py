"""PlannerParams and PlanParameters: valid values build and round-trip through to_dict and
from_dict; each invalid field raises an InputError naming that field; the CLI and the
window run the one entry point."""

from __future__ import annotations

import ast
import json
import math
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.logistics.planner import APPROACHES, PLANNER_CHECKS, PRESETS, PlannerParams
from core.logistics.release import PlanParameters

ROOT = Path(__file__).resolve().parents[3]

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
unit = st.floats(min_value=0.0, max_value=1.0)
positive = st.floats(min_value=1e-6, max_value=1e6)
budget = st.one_of(st.none(), st.just(math.inf), st.floats(min_value=0.0, max_value=1e4),
                   st.integers(0, 10_000))

planner_params = st.builds(
    lambda preset, **kw: PlannerParams.preset_params(preset, **kw),
    st.sampled_from(PRESETS), epsilon=positive, rho_laplace=st.floats(0.01, 0.99),
    comm_budget=budget, p_explore=unit, rl_alpha=unit, rl_gamma=unit,
    slack_levels=st.integers(0, 5), rl_route_episodes=st.integers(1, 1000),
    rl_episodes=st.integers(0, 1000), d_max=st.one_of(st.none(), st.integers(2, 20)),
    goal_bonus=finite, high_level_solver=st.sampled_from(("dijkstra", "rl")),
    memo=st.booleans())
names = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=6)
plan_parameters = st.builds(PlanParameters, names, names, st.one_of(st.none(), names),
                            approach=st.sampled_from(APPROACHES), planner=planner_params,
                            seed=st.one_of(st.none(), st.integers(0, 2 ** 63 - 1)))


@settings(max_examples=60, deadline=None)
@given(planner_params)
def test_valid_planner_params_round_trip(p):
    d = p.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d  # strict JSON
    assert PlannerParams.from_dict(d) == p


@settings(max_examples=60, deadline=None)
@given(plan_parameters)
def test_valid_plan_parameters_round_trip(p):
    d = p.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert PlanParameters.from_dict(d) == p
    assert d["seeded"] == (p.seed is not None) and d["preset"] == p.planner.preset


def test_every_planner_field_has_one_check():
    assert set(PLANNER_CHECKS) == {f.name for f in fields(PlannerParams)}


#: a value each field refuses
BAD = {"preset": "paper", "high_level_solver": "astar", "rl_route_episodes": 0,
       "epsilon": 0.0, "eps_split": "half", "rho_laplace": 1.0, "delta_s": -1.0,
       "laplace_sensitivity": "none", "dmax_mode": "global", "d_max": 1, "rewire": "keep",
       "bin_clip": 0, "fake_len_low": 0.0, "fake_len_high": -1.0, "rl_alpha": 1.5,
       "rl_gamma": -0.1, "rl_zeta": 2.0, "rl_episodes": -1, "rl_max_steps_factor": 0,
       "rl_reward_mode": "bonus", "reward_const": math.inf, "q_init_const": math.nan,
       "terminal_at_dest": 1, "goal_bonus": "x", "pi_floor": 1.5, "em_mode": "gumbel",
       "em_split": "per_map", "delta_u": 0.0, "split_eps_over_destinations": "yes",
       "crossing_estimator": "bfs", "goal_leg_mode": "random", "slack_levels": -1,
       "comm_budget": -1.0, "memo": None, "p_explore": 1.01}


def test_every_field_has_a_refused_value():
    assert set(BAD) == set(PLANNER_CHECKS)


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_invalid_planner_field_is_named(name):
    with pytest.raises(InputError) as e:
        replace(PlannerParams(), **{name: BAD[name]})
    assert e.value.field == name


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(BAD)), planner_params)
def test_an_invalid_field_is_named_whatever_the_rest(name, p):
    bad = BAD[name]
    if name == "fake_len_high":
        bad = p.fake_len_low / 2  # also below fake_len_low
    with pytest.raises(InputError) as e:
        replace(p, **{name: bad})
    assert e.value.field == name


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.1, max_value=10.0), st.floats(min_value=0.0, max_value=0.99))
def test_fake_lengths_below_the_low_one_name_the_high_one(low, frac):
    with pytest.raises(InputError) as e:
        PlannerParams(fake_len_low=low, fake_len_high=low * frac if frac else 0.0)
    assert e.value.field == "fake_len_high"


@pytest.mark.parametrize("kw, field", [
    ({"approach": "astar"}, "approach"), ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
    ({"origin": ""}, "origin"), ({"goal_agent": None}, "goal_agent"), ({"goal": 3}, "goal"),
    ({"planner": {"epsilon": 1.0}}, "planner")])
def test_each_invalid_plan_field_is_named(kw, field):
    base = {"origin": "a2", "goal_agent": "f"}
    with pytest.raises(InputError) as e:
        PlanParameters(**{**base, **kw})
    assert e.value.field == field


def test_unknown_keys_are_named():
    d = PlannerParams().to_dict()
    with pytest.raises(InputError) as e:
        PlannerParams.from_dict({**d, "epsilonn": 1.0})
    assert e.value.field == "epsilonn"


@pytest.mark.parametrize("task, field", [({"origin": "A", "goal_agent": "f"}, "origin"),
                                         ({"origin": "a2", "goal_agent": "zz"}, "goal_agent"),
                                         ({"origin": "a2", "goal_agent": "f", "goal": "a1"},
                                          "goal")])
def test_the_task_is_checked_against_the_map(task, field):
    from core.logistics.examples import fig41
    from core.logistics.release import plan_release

    p = PlanParameters(task["origin"], task["goal_agent"], task.get("goal"), seed=1)
    with pytest.raises(InputError) as e:
        plan_release(p, world=fig41())
    assert e.value.field == field


def test_a_cancelled_run_stops_before_planning():
    from core.common.progress import Cancelled
    from core.logistics.examples import fig41
    from core.logistics.release import plan_release

    with pytest.raises(Cancelled):
        plan_release(PlanParameters("a2", "f", seed=1), cancelled=lambda: True, world=fig41())


def _calls(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(tree)
            if isinstance(n, (ast.Name, ast.Attribute))}


def test_the_cli_and_the_window_run_the_one_entry_point():
    for path in ("core/cli/logistics.py", "gui/logistics/planning.py"):
        used = _calls(path)
        assert {"PlanParameters", "plan_release", "plan_run_record"} <= used, path
    for path, fn in (("core/cli/logistics.py", "def cmd_plan("),
                     ("gui/logistics/planning.py", "def run_plan(")):
        body = (ROOT / path).read_text(encoding="utf-8").split(fn)[1].split("\n    def ")[0]
        assert "PlanningSession(" not in body and "validate_task(" not in body, path
