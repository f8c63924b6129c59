"""DrlParameters, the one parameters object of a DP-DRL run (``drl`` and the Agents tab's
Train both build it): every valid value is accepted and survives to_dict → JSON → from_dict;
every invalid field is refused on construction with an InputError naming that field; the run
record keeps its params keys, and from_dict reads a record back."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.gridworld.maps import random_map
from core.gridworld.release import DrlParameters, drl_release
from core.project.model import Project
from core.project.recording import drl_run_record

FAST = settings(max_examples=60, deadline=None)


@st.composite
def valid(draw: Any) -> dict[str, Any]:
    defense = draw(st.sampled_from(("none", "dpdrl")))
    preset = draw(st.sampled_from(("strict", "thesis")))
    epsilon = None
    if defense == "dpdrl" and preset == "strict":
        epsilon = draw(st.one_of(st.none(), st.floats(min_value=1e-6, max_value=1e6)))
    elif defense == "dpdrl":
        epsilon = draw(st.one_of(st.none(), st.floats(min_value=1e-6, max_value=10.0)))
    return {"defense": defense, "preset": preset, "epsilon": epsilon,
            "episodes": draw(st.integers(1, 2000)), "max_steps": draw(st.integers(1, 300)),
            "agent": draw(st.sampled_from(("tabular", "dqn"))),
            "attack": draw(st.booleans()), "population": draw(st.integers(3, 500)),
            "generations": draw(st.integers(1, 500)),
            "seed": draw(st.one_of(st.none(), st.integers(0, 2**63 - 1)))}


@FAST
@given(valid())
def test_valid_parameters_build_and_round_trip_through_json(kw: dict[str, Any]) -> None:
    p = DrlParameters(**kw)
    d = p.to_dict()
    assert list(d) == ["defense", "preset", "epsilon", "episodes", "max_steps", "attack",
                       "population", "generations", "seeded", "seed", "agent"]
    assert DrlParameters.from_dict(json.loads(json.dumps(d, allow_nan=False))) == p
    assert d["seeded"] is (kw["seed"] is not None)
    if kw["defense"] == "dpdrl" and kw["preset"] == "strict":
        # the strict preset's epsilon: 1 when not given, as the command line has always said
        assert p.epsilon == (1.0 if kw["epsilon"] is None else kw["epsilon"])


# field -> values that must be refused naming it (with everything else valid)
BAD: dict[str, list[Any]] = {
    "episodes": [0, -3, 2.5, True, "10", math.nan],
    "max_steps": [0, 1.5, None],
    "defense": ["dp", None, 1],
    "preset": ["loose", None],
    "agent": ["ppo", None],
    "attack": [1, "yes", None],
    "population": [0, 1, 2.5],
    "generations": [0, -1, 1.5],
    "seed": [-1, 1.5, "3"],
}


@FAST
@given(st.sampled_from(sorted(BAD)).flatmap(
    lambda f: st.tuples(st.just(f), st.sampled_from(BAD[f]))))
def test_each_invalid_field_is_refused_naming_it(case: tuple[str, Any]) -> None:
    field, value = case
    base: dict[str, Any] = {"defense": "dpdrl", "preset": "strict", "episodes": 10,
                            "attack": True, "population": 10, "generations": 2, "seed": 1}
    with pytest.raises(InputError) as info:
        DrlParameters(**{**base, field: value})
    assert info.value.field == field


@FAST
@given(st.one_of(st.floats(max_value=0.0), st.just(math.inf), st.just(math.nan)))
def test_strict_epsilon_must_be_positive_and_finite(eps: float) -> None:
    with pytest.raises(InputError) as info:
        DrlParameters(defense="dpdrl", epsilon=eps)
    assert info.value.field == "epsilon"


def test_epsilon_without_the_defense_and_too_long_a_training_are_refused() -> None:
    with pytest.raises(InputError, match="needs --defense dpdrl") as info:
        DrlParameters(epsilon=1.0)
    assert info.value.field == "epsilon"
    with pytest.raises(InputError) as info:
        DrlParameters(episodes=10**9, max_steps=10**4)
    assert info.value.field == "episodes"
    # the attack's settings are read only when the attack runs (as ``drl`` without --attack)
    assert DrlParameters(population=0).population == 0


def test_from_dict_refuses_unknown_keys_and_a_wrong_seeded() -> None:
    with pytest.raises(InputError) as info:
        DrlParameters.from_dict({"episodes": 5, "speed": 1})
    assert info.value.field == "speed"
    with pytest.raises(InputError) as info:
        DrlParameters.from_dict({"seed": 3, "seeded": False})
    assert info.value.field == "seeded"
    with pytest.raises(InputError):
        DrlParameters.from_dict([1, 2])


def test_the_record_keeps_the_old_keys_and_reads_back() -> None:
    m = random_map(6, 6, np.random.default_rng(0))
    params = DrlParameters(defense="dpdrl", episodes=6, max_steps=10, seed=2)
    run = drl_release(params, grid=m)
    assert run.attack is None and run.train.setup.epsilon == 1.0
    rec, entries = drl_run_record(Project(), run, params, "random")
    assert rec.params == {"grid": "random", "defense": "dpdrl", "preset": "strict",
                          "epsilon": 1.0, "episodes": 6, "max_steps": 10, "attack": False,
                          "seeded": True, "seed": 2, "agent": "tabular"}
    assert DrlParameters.from_dict(rec.params) == params
    assert entries[0].count == run.train.obfuscated_steps


def test_the_networks_need_their_trainer() -> None:
    m = random_map(6, 6, np.random.default_rng(0))
    with pytest.raises(ValueError, match="trainer"):
        drl_release(DrlParameters(agent="dqn", episodes=2, max_steps=2, seed=0), grid=m)
