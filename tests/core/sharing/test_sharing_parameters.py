"""SharingParameters: valid values build and round-trip through to_dict/from_dict (the keys a
run record keeps); each invalid field is refused with an InputError naming it; the command
line and the window both run the one entry point."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.sharing.learning import STUDENTS, SharingSetup
from core.sharing.records import SharingParameters, parse_teacher, sharing_params

ROOT = Path(__file__).resolve().parents[3]

#: the run record's params keys, in their order (old projects must still load)
RECORD_KEYS = ["env", "teacher", "temperature", "k0", "coef", "eta", "lb", "tau", "delta",
               "bound", "lambda", "beta", "kappa", "lr", "budget", "iterations", "draws",
               "rollout", "steps", "after_budget", "reward_scale", "gradient", "episodes",
               "penalty_weight", "nonprivate_target", "students", "seeds", "seeded", "seed"]

finite = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)


@st.composite
def setups(draw) -> SharingSetup:
    fixed_tau = draw(st.booleans())
    bound = draw(st.sampled_from(("paper", "tight") if fixed_tau
                                 else ("profile", "paper", "tight")))
    return SharingSetup(
        k0=draw(finite), coef=draw(st.floats(min_value=1e-3, max_value=1.0)),
        eta=draw(st.floats(min_value=1e-4, max_value=0.5)),
        lb=draw(st.floats(min_value=0.0, max_value=1.0)),
        tau=draw(st.floats(min_value=1e-9, max_value=0.5)) if fixed_tau else None,
        delta=None if fixed_tau else draw(st.floats(min_value=1e-9, max_value=0.5)),
        bound=bound, lam=draw(st.floats(min_value=0.0, max_value=10.0)),
        beta=draw(st.floats(min_value=1e-3, max_value=0.999)),
        kappa=draw(st.floats(min_value=0.0, max_value=100.0)),
        lr=draw(st.floats(min_value=0.0, max_value=100.0)),
        budget=(draw(st.floats(min_value=0.0, max_value=1e6)),
                draw(st.floats(min_value=0.0, max_value=0.99))),
        iterations=draw(st.integers(1, 100_000)), draws=draw(st.integers(1000, 100_000)),
        rollout=draw(st.sampled_from(("exact", "sample"))),
        steps=draw(st.integers(1, 1_000_000)),
        after_budget=draw(st.sampled_from(("stop", "random"))),
        reward_scale=draw(st.sampled_from(("max", "none"))),
        gradient=draw(st.sampled_from(("exact", "sampled"))),
        episodes=draw(st.integers(2, 10_000)),
        penalty_weight=draw(st.sampled_from(("visits", "occupancy"))),
        nonprivate_target=draw(st.sampled_from(("teacher", "mixed"))))


@st.composite
def parameters(draw) -> SharingParameters:
    teacher = draw(st.sampled_from(("optimal", "softmax", "softmax:T", "run:run-2", "ppo")))
    temperature = draw(st.floats(min_value=1e-3, max_value=1e3))
    if teacher == "softmax:T":
        teacher = f"softmax:{temperature!r}"
    students = draw(st.lists(st.sampled_from(STUDENTS), min_size=1, max_size=4, unique=True))
    return SharingParameters(
        env=draw(st.sampled_from(("mdp:m1", "gym:FrozenLake-v1", "file:a b.json"))),
        setup=draw(setups()), students=tuple(students), seeds=draw(st.integers(1, 10_000)),
        seed=draw(st.none() | st.integers(0, 2**63 - 1)), teacher=teacher,
        temperature=temperature)


@settings(max_examples=60, deadline=None)
@given(parameters())
def test_valid_parameters_round_trip_through_strict_json(p: SharingParameters) -> None:
    d = p.to_dict()
    assert list(d) == RECORD_KEYS
    back = SharingParameters.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert back == p and back.to_dict() == d
    assert d["seeded"] is (p.seed is not None)
    kind, _, run = parse_teacher(p.teacher)
    assert p.teacher_kind == kind and p.teacher_run == run


@settings(max_examples=30, deadline=None)
@given(parameters())
def test_sharing_params_is_to_dict(p: SharingParameters) -> None:
    assert sharing_params(p.setup, env=p.env, students=list(p.students), seeds=p.seeds,
                          seed=p.seed, teacher=p.teacher, temperature=p.temperature
                          ) == p.to_dict()


#: (record key, a refused value, the field the error names)
BAD = [("env", "x", "env"), ("env", None, "env"), ("teacher", "best", "teacher"),
       ("teacher", "softmax:x", "teacher"), ("temperature", math.nan, "temperature"),
       ("k0", 0.0, "k0"), ("k0", math.inf, "k0"), ("coef", 1.5, "coef"),
       ("bound", "loose", "bound"), ("beta", 1.0, "beta"), ("kappa", -1.0, "kappa"),
       ("lr", math.nan, "lr"), ("budget", [1.0, 1.0], "budget"), ("budget", [1.0], "budget"),
       ("iterations", 0, "iterations"), ("iterations", 2.5, "iterations"),
       ("rollout", "some", "rollout"), ("steps", 0, "steps"),
       ("after_budget", "go", "after_budget"), ("reward_scale", "min", "reward_scale"),
       ("gradient", "adam", "gradient"), ("episodes", 1, "episodes"),
       ("penalty_weight", "x", "penalty_weight"),
       ("nonprivate_target", "x", "nonprivate_target"),
       ("students", ["aware", "expert"], "students"), ("students", [], "students"),
       ("students", "aware", "students"), ("seeds", 0, "seeds"), ("seeds", 2.0, "seeds"),
       ("seeds", True, "seeds"), ("seed", -1, "seed"), ("seed", 1.5, "seed"),
       ("k0", "5", "k0"), ("surprise", 1, "surprise")]


@settings(max_examples=40, deadline=None)
@given(parameters(), st.sampled_from(BAD))
def test_each_invalid_field_is_refused_naming_it(p: SharingParameters, bad) -> None:
    key, value, field = bad
    data = p.to_dict()
    data[key] = value
    if key == "seed":
        data["seeded"] = True
    with pytest.raises(InputError) as info:
        SharingParameters.from_dict(data)
    assert info.value.field == field


@pytest.mark.parametrize("tau, delta, bound, field", [
    (None, None, "paper", "tau"), (1e-3, 1e-3, "paper", "tau"),
    (1e-3, None, "profile", "tau"), (None, 1.5, "paper", "delta")])
def test_the_threshold_and_the_target_delta_are_one_or_the_other(tau, delta, bound, field):
    with pytest.raises(InputError) as info:
        SharingParameters("mdp:m", SharingSetup(tau=tau, delta=delta, bound=bound))
    assert info.value.field == field


def test_a_softmax_temperature_is_positive_and_agrees_with_softmax_t() -> None:
    with pytest.raises(InputError, match="must be > 0, got -1.0") as info:
        SharingParameters("mdp:m", teacher="softmax:-1", temperature=-1.0)
    assert info.value.field == "teacher"
    with pytest.raises(InputError) as info:
        SharingParameters("mdp:m", teacher="softmax:0.5", temperature=2.0)
    assert info.value.field == "temperature"
    # an optimal teacher keeps the window's temperature field without using it
    assert SharingParameters("mdp:m", temperature=0.1).temperature == 0.1


def test_seeded_must_agree_with_the_seed() -> None:
    d = SharingParameters("mdp:m", seed=3).to_dict()
    d["seeded"] = False
    with pytest.raises(InputError) as info:
        SharingParameters.from_dict(d)
    assert info.value.field == "seeded"


def test_an_older_record_without_the_protocol_keys_loads_with_the_defaults() -> None:
    d = SharingParameters("mdp:m", SharingSetup(iterations=7), seeds=2).to_dict()
    for key in ("after_budget", "reward_scale", "gradient", "episodes", "penalty_weight",
                "nonprivate_target", "steps", "rollout"):
        del d[key]
    p = SharingParameters.from_dict(d)
    assert p.setup == replace(SharingSetup(), iterations=7) and p.seeds == 2


def test_students_are_kept_once_each_in_the_given_order() -> None:
    p = SharingParameters("mdp:m", students=("aware", "none", "aware"))
    assert p.students == ("aware", "none")


def test_the_cli_and_the_window_run_the_one_entry_point() -> None:
    cli = (ROOT / "core/cli/sharing.py").read_text()
    window = (ROOT / "gui/sharing/drawing.py").read_text()
    panel = (ROOT / "gui/sharing/panel.py").read_text()
    for text in (cli, window):
        assert "sharing_release(params" in text
        assert "run_sharing(" not in text and "sharing_study(" not in text
    assert "sharing_run_record(" in cli and "sharing_run_record(" in window
    assert "study_task" in panel and "sharing_study," not in panel
