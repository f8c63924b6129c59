"""DrlTableParameters: the DP-DRL comparison (the Agents tab's Compare ε, ``drl --table``),
validated once: valid values round-trip through to_dict → JSON → from_dict with a
``drl-table`` record's keys first; every invalid field is named; the record function refuses
rows of another comparison; the command line records what the window records."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cli.main import run_cli
from core.common.errors import InputError
from core.gridworld.experiments import DEFAULT_EPSILONS
from core.gridworld.maps import example_12x11
from core.gridworld.release import DrlParameters, DrlTableParameters, drl_table_release
from core.project.files import load_project, save_project
from core.project.model import Project
from core.project.recording import drl_table_run_record

#: the keys a drl-table record keeps, in their order
TABLE_KEYS = ("grid", "episodes", "rows", "seeded", "seed")


@st.composite
def valid(draw: Any) -> DrlTableParameters:
    defense = draw(st.sampled_from(("none", "dpdrl")))
    preset = draw(st.sampled_from(("strict", "thesis")))
    eps = (draw(st.none() | st.floats(1e-6, 1e6)) if (defense, preset) == ("dpdrl", "strict")
           else None)
    training = DrlParameters(
        defense=defense, preset=preset, epsilon=eps, episodes=draw(st.integers(1, 2000)),
        max_steps=draw(st.integers(1, 300)), agent=draw(st.sampled_from(("tabular", "dqn"))),
        attack=draw(st.booleans()), population=draw(st.integers(3, 500)),
        generations=draw(st.integers(1, 500)),
        seed=draw(st.none() | st.integers(0, 2**63 - 1)))
    grid = draw(st.sampled_from(("example", "random", "grid-1", "my map")))
    return DrlTableParameters(training, grid)


@settings(max_examples=120, deadline=None)
@given(valid())
def test_valid_parameters_round_trip_through_strict_json(p):
    d = p.to_dict()
    assert tuple(d)[:len(TABLE_KEYS)] == TABLE_KEYS
    assert d["rows"] == p.rows() and len(p.rows()) == len(DEFAULT_EPSILONS) + 2
    # no release mode: the comparison always runs a seed (0 when none was given)
    assert d["seeded"] is True and isinstance(d["seed"], int) and p.training.seed == d["seed"]
    text = json.dumps(d, allow_nan=False)
    assert DrlTableParameters.from_dict(json.loads(text)) == p


def test_release_mode_runs_seed_zero():
    p = DrlTableParameters(DrlParameters(episodes=5, seed=None), "example")
    assert p.training.seed == 0 and p == DrlTableParameters(DrlParameters(episodes=5, seed=0))


@pytest.mark.parametrize("make, field", [
    (lambda: DrlTableParameters({"episodes": 5}), "training"),
    (lambda: DrlTableParameters(DrlParameters(), ""), "grid"),
    (lambda: DrlTableParameters(DrlParameters(), 3), "grid"),
    # the GA always runs in the comparison: its generations are checked without --attack
    (lambda: DrlTableParameters(DrlParameters(generations=0)), "generations"),
    (lambda: DrlTableParameters(DrlParameters(generations=2.5)), "generations"),
])
def test_each_invalid_field_is_named(make, field):
    with pytest.raises(InputError) as exc:
        make()
    assert exc.value.field == field


@pytest.mark.parametrize("change, field", [
    ({"rows": ["No defense"]}, "rows"),
    ({"unknown": 1}, "unknown"),
    ({"seeded": False}, "seeded"),
    ({"episodes": 0}, "episodes"),
    ({"grid": ""}, "grid"),
])
def test_from_dict_refuses_naming_the_key(change, field):
    d = dict(DrlTableParameters(DrlParameters(episodes=5, seed=1)).to_dict(), **change)
    with pytest.raises(InputError) as exc:
        DrlTableParameters.from_dict(d)
    assert exc.value.field == field


def test_the_record_function_refuses_rows_of_another_comparison():
    p = DrlTableParameters(DrlParameters(episodes=5, generations=1, seed=1), "example")
    rows = drl_table_release(p, grid=example_12x11())
    rec, entries = drl_table_run_record(Project(), rows, p)
    assert tuple(rec.params) == TABLE_KEYS and len(entries) == len(rows)
    with pytest.raises(ValueError):
        drl_table_run_record(Project(), rows[1:], p)
    with pytest.raises(ValueError):
        drl_table_run_record(Project(), rows, DrlTableParameters(
            DrlParameters(episodes=5, generations=1, seed=2), "example"))


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_drl_table_on_the_command_line_records_what_the_window_records(tmp_path):
    path = tmp_path / "p.privplan.json"
    save_project(Project(), str(path))
    rc, out, _ = _cli("drl", "example", "--table", "--episodes", "5", "--generations", "1",
                      "--seed", "4", "--record", str(path), "--json")
    assert rc == 0
    js = json.loads(out)
    p = DrlTableParameters(DrlParameters(episodes=5, generations=1, seed=4), "example")
    assert [r["label"] for r in js["rows"]] == p.rows() and js["seed"] == 4
    (rec,) = load_project(str(path)).runs
    made, _ = drl_table_run_record(Project(), drl_table_release(p, grid=example_12x11()), p)
    assert rec.kind == "drl-table" and rec.params == made.params
    assert [r["nrr"] for r in rec.summary["rows"]] == [r["nrr"] for r in made.summary["rows"]]


@pytest.mark.parametrize("argv, flag", [
    (("--agent", "dqn"), "--agent"),
    (("--generations", "0"), "--generations"),
    (("--episodes", "0"), "--episodes"),
])
def test_drl_table_refusals_name_the_flag(argv, flag):
    rc, out, err = _cli("drl", "example", "--table", *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"privplan drl: {flag}:")
