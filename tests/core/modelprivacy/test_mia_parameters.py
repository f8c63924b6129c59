"""MiaParameters: what one membership-inference run means, validated once.

Valid values build and round-trip through to_dict/from_dict (strict JSON, a run record's keys
first); each invalid field raises an InputError naming it; a recorded study's parameters read
back; the command line and the window both run the one entry point and record function.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.modelprivacy.models import NETWORK_VICTIMS
from core.modelprivacy.release import RECORD_KEYS, MiaParameters, mia_release

ROOT = Path(__file__).resolve().parents[3]

_counts = st.integers(1, 200)
_pos = st.floats(1e-3, 100.0)


@st.composite
def shadow_params(draw):
    defense = draw(st.sampled_from(("none", "dpsgd", "gpm", "oneparam", "dirichlet")))
    victims = {"dirichlet": ("tabular",), "dpsgd": ("ffnn", "rnn") + NETWORK_VICTIMS}.get(
        defense, ("ffnn", "rnn", "tabular") + NETWORK_VICTIMS)
    eps = (None if defense in ("none", "dirichlet")
           else draw(st.none() | _pos))
    delta = (draw(st.none() | st.floats(1e-12, 0.5)) if defense in ("dpsgd", "gpm", "dirichlet")
             else None)
    return MiaParameters(
        data=draw(st.sampled_from(("digits", "wine", "mdp:x.json", "data.csv"))),
        victim=draw(st.sampled_from(victims)), defense=defense, epsilon=eps, delta=delta,
        shadows=draw(st.integers(1, 32)), train_size=draw(st.none() | st.integers(10, 5000)),
        hidden=draw(_counts), epochs=draw(_counts), batch=draw(_counts),
        lr=draw(st.none() | st.floats(1e-4, 10.0)), clip=draw(_pos),
        sensitivity_samples=draw(_counts), granularity=draw(st.integers(1, 20)),
        preset=draw(st.sampled_from(("sound", "thesis"))), k=draw(st.floats(1e-2, 1e6)),
        b=draw(st.floats(1e-6, 1.0)), seed=draw(st.none() | st.integers(0, 2**63 - 1)))


@st.composite
def population_params(draw):
    defense = draw(st.sampled_from(("none", "dpsgd")))
    dp = defense == "dpsgd"
    return MiaParameters(
        data="wine", attack=draw(st.sampled_from(("lira", "loss", "all", "canary"))),
        victim=draw(st.sampled_from(("ffnn", "rnn") + NETWORK_VICTIMS)), defense=defense,
        epsilon=draw(st.none() | _pos) if dp else None,
        delta=draw(st.none() | st.floats(1e-12, 0.5)) if dp else None,
        models=draw(st.integers(2, 64)), canaries=draw(st.none() | st.integers(10, 1000)),
        seed=draw(st.none() | st.integers(0, 2**31)))


@settings(max_examples=150, deadline=None)
@given(st.one_of(shadow_params(), population_params()))
def test_valid_parameters_round_trip_through_strict_json(p):
    d = p.to_dict()
    assert tuple(d)[:len(RECORD_KEYS)] == RECORD_KEYS
    assert d["seeded"] is (p.seed is not None)
    text = json.dumps(d, allow_nan=False)
    assert MiaParameters.from_dict(json.loads(text)) == p


# (field, a value it refuses, the other fields that make the value reach its check)
_BAD = [
    ("data", 3, {}), ("attack", "lira-online", {}), ("victim", "svm", {}),
    ("defense", "laplace", {}), ("seed", -1, {}), ("seed", 1.5, {}),
    ("epsilon", 0.0, {"defense": "dpsgd"}), ("epsilon", -1.0, {"defense": "gpm"}),
    ("epsilon", math.nan, {"defense": "oneparam"}), ("epsilon", math.inf, {"defense": "dpsgd"}),
    ("epsilon", "1", {"defense": "dpsgd"}), ("epsilon", 1.0, {"defense": "none"}),
    ("delta", 0.0, {"defense": "dpsgd"}), ("delta", 1.0, {"defense": "gpm"}),
    ("delta", math.nan, {"defense": "dpsgd"}), ("delta", 0.1, {"defense": "oneparam"}),
    ("shadows", 0, {}), ("shadows", 1.5, {}), ("shadows", True, {}),
    ("train_size", 9, {}), ("train_size", 10.5, {}), ("hidden", 0, {}), ("epochs", 0, {}),
    ("batch", -3, {}), ("sensitivity_samples", 0, {}), ("granularity", 0, {}),
    ("hidden", math.inf, {}), ("epochs", "60", {}),
    ("lr", 0.0, {}), ("lr", -0.1, {}), ("lr", math.nan, {}), ("clip", 0.0, {}),
    ("clip", math.inf, {}), ("preset", "loose", {}), ("k", 0.0, {}), ("k", math.nan, {}),
    ("b", 0.0, {}), ("b", 1.5, {}), ("models", 2.5, {}), ("models", "16", {}),
    ("canaries", 10.0, {}),
    # pairings: the victim and its defense, the population study's victims
    ("defense", "dirichlet", {"victim": "ffnn"}), ("defense", "dpsgd", {"victim": "tabular"}),
    ("defense", "gpm", {"attack": "lira"}), ("victim", "tabular", {"attack": "canary"}),
    ("delta", 1e-5, {"attack": "loss"}), ("epsilon", 1.0, {"attack": "all"}),
]


@settings(max_examples=len(_BAD) * 3, deadline=None)
@given(st.sampled_from(_BAD), st.none() | st.integers(0, 2**31))
def test_each_invalid_field_is_refused_naming_it(case, seed):
    name, bad, context = case
    values = dict(context, **{name: bad})
    if name != "seed":
        values["seed"] = seed
    with pytest.raises(InputError) as info:
        MiaParameters(**{"data": "wine", **values})
    assert info.value.field == name


@settings(max_examples=60, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not 0 < x < math.inf),
       st.sampled_from(("dpsgd", "gpm", "oneparam")))
def test_no_positive_finite_epsilon_is_accepted(eps, defense):
    with pytest.raises(InputError) as info:
        MiaParameters("wine", defense=defense, epsilon=eps)
    assert info.value.field == "epsilon"


def test_from_dict_refuses_unknown_keys_and_a_seeded_flag_that_disagrees():
    with pytest.raises(InputError) as info:
        MiaParameters.from_dict({"data": "wine", "shadow": 3})
    assert info.value.field == "shadow"
    with pytest.raises(InputError) as info:
        MiaParameters.from_dict({"data": "wine", "seed": None, "seeded": True})
    assert info.value.field == "seeded"
    with pytest.raises(InputError) as info:
        MiaParameters.from_dict(["wine"])
    assert info.value.field == "params"


def test_a_recorded_study_keeps_the_record_keys_and_reads_back():
    from core.modelprivacy.data import load_dataset
    from core.project import Project
    from core.project.recording import mia_run_record

    p = MiaParameters("wine", defense="dpsgd", epsilon=4.0, train_size=20, shadows=1,
                      hidden=4, epochs=2, seed=5)
    res = mia_release(p)
    rec, entries = mia_run_record(Project(), res, p)
    assert tuple(rec.params) == RECORD_KEYS and rec.seed == 5 and len(entries) == 1
    back = MiaParameters.from_dict(rec.params)   # the study's values, defaults filled in
    assert (back.delta, back.train_size, back.lr) == (1e-5, 20, 0.1)
    again = back.setup().validated(load_dataset("wine"))
    study_keys = [k for k in RECORD_KEYS if k not in ("data", "seeded", "seed")]
    assert [getattr(again, k) for k in study_keys] == [getattr(res.setup, k) for k in study_keys]
    with pytest.raises(ValueError):
        mia_run_record(Project(), res, MiaParameters("wine", attack="loss", seed=5))
    with pytest.raises(ValueError):
        mia_run_record(Project(), res, MiaParameters("wine", defense="gpm", seed=5))


def test_the_command_line_and_the_window_run_the_one_entry_point():
    cli = (ROOT / "core/cli/modelprivacy.py").read_text(encoding="utf-8")
    jobs = (ROOT / "gui/modelprivacy/jobs.py").read_text(encoding="utf-8")
    panel = (ROOT / "gui/modelprivacy/panel.py").read_text(encoding="utf-8")
    for src in (cli, jobs):
        assert "mia_release(" in src
        assert "run_mia(" not in src and "attack_study(" not in src and "canary_audit(" not in src
    for src in (cli, panel):
        assert "mia_run_record(project, res" in src or "mia_run_record(project, result" in src
        assert "MiaParameters(" in src


def test_the_study_fields_take_mia_setups_defaults():
    import dataclasses

    from core.modelprivacy.study import MiaSetup

    setup = {f.name: f.default for f in dataclasses.fields(MiaSetup)}
    study = {f.name: f.default for f in dataclasses.fields(MiaParameters) if f.name in setup}
    assert len(study) == 16 and all(study[k] == setup[k] for k in study)
    assert MiaParameters("wine").setup() == MiaSetup()
