"""MiaCompareParameters: a comparison of shadow-model studies (the Model privacy tab's Compare
defenses / Compare victims, ``mia --compare``), validated once.

Valid values build and round-trip through to_dict/from_dict (strict JSON, a ``mia-table``
record's keys first); each invalid field raises an InputError naming it; a recorded
comparison's parameters read back; the record function refuses rows of another comparison;
the command line runs it and records what the window records.
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cli.main import run_cli
from core.common.errors import InputError
from core.modelprivacy.models import NETWORK_VICTIMS
from core.modelprivacy.release import (
    RECORD_KEYS,
    MiaCompareParameters,
    MiaParameters,
    mia_compare_release,
)
from core.modelprivacy.study import DEFAULT_TABLE_EPSILONS, DEFAULT_TABLE_KS
from core.project.files import load_project
from core.project.model import Project
from core.project.recording import mia_compare_run_record

_counts = st.integers(1, 200)
#: the keys a mia-table record keeps, in their order
TABLE_KEYS = (*RECORD_KEYS, "compare", "rows")
#: the smallest studies that run in about a second on wine
FAST = dict(shadows=1, hidden=4, epochs=2, sensitivity_samples=3)


@st.composite
def compare_params(draw):
    compare = draw(st.sampled_from(("defenses", "victims")))
    if compare == "defenses":
        defense, data = "none", draw(st.sampled_from(("digits", "wine", "mdp:x.json", "d.csv")))
        victims = ("ffnn", "rnn", "tabular") + NETWORK_VICTIMS
    else:
        defense, data = draw(st.sampled_from(("none", "dpsgd", "gpm", "oneparam"))), \
            draw(st.sampled_from(("digits", "wine", "d.csv")))
        victims = ("ffnn", "rnn") + NETWORK_VICTIMS + (() if defense == "dpsgd"
                                                         else ("tabular",))
    eps = None if defense == "none" else draw(st.none() | st.floats(1e-3, 100.0))
    delta = draw(st.none() | st.floats(1e-12, 0.5)) if defense in ("dpsgd", "gpm") else None
    study = MiaParameters(
        data=data, victim=draw(st.sampled_from(victims)), defense=defense, epsilon=eps,
        delta=delta, shadows=draw(st.integers(1, 32)),
        train_size=draw(st.none() | st.integers(10, 5000)), hidden=draw(_counts),
        epochs=draw(_counts), batch=draw(_counts), lr=draw(st.none() | st.floats(1e-4, 10.0)),
        sensitivity_samples=draw(_counts), granularity=draw(st.integers(1, 20)),
        preset=draw(st.sampled_from(("sound", "thesis"))), k=draw(st.floats(1e-2, 1e6)),
        b=draw(st.floats(1e-6, 1.0)), seed=draw(st.none() | st.integers(0, 2**63 - 1)))
    return MiaCompareParameters(study, compare)


@settings(max_examples=150, deadline=None)
@given(compare_params())
def test_valid_parameters_round_trip_through_strict_json(p):
    d = p.to_dict()
    assert tuple(d)[:len(TABLE_KEYS)] == TABLE_KEYS
    assert d["compare"] == p.compare and d["rows"] == [list(r) for r in p.plan()]
    assert d["defense"] == ("table" if p.compare == "defenses" else p.study.defense)
    text = json.dumps(d, allow_nan=False)
    assert MiaCompareParameters.from_dict(json.loads(text)) == p


@settings(max_examples=80, deadline=None)
@given(compare_params())
def test_the_plan_is_every_defense_or_every_victim(p):
    plan = p.plan()
    s = p.study
    if p.compare == "victims":
        assert [r[0] for r in plan][:2] == ["ffnn", "rnn"]
        assert len(plan) == 2 + (s.victim in NETWORK_VICTIMS)
        assert {(d, e, k) for _, d, e, k in plan} == {(s.defense, s.epsilon, None)}
        return
    assert plan[0] == (s.victim, "none", None, None)
    tabular = s.victim == "tabular"
    want = (sum(len(v) for d, v in DEFAULT_TABLE_EPSILONS.items()
                if not (tabular and d == "dpsgd")) + 1
            + (len(DEFAULT_TABLE_KS) if tabular else 0))
    assert len(plan) == want and all(r[0] == s.victim for r in plan)


_WINE = MiaParameters("wine", seed=1)


@pytest.mark.parametrize("make, field", [
    (lambda: MiaCompareParameters(_WINE, "epsilons"), "compare"),
    (lambda: MiaCompareParameters(_WINE, 3), "compare"),
    (lambda: MiaCompareParameters({"data": "wine"}, "defenses"), "study"),
    (lambda: MiaCompareParameters(MiaParameters("wine", attack="lira"), "defenses"), "attack"),
    (lambda: MiaCompareParameters(MiaParameters("wine", attack="canary"), "victims"), "attack"),
    (lambda: MiaCompareParameters(MiaParameters("wine", defense="gpm"), "defenses"),
     "defense"),
    (lambda: MiaCompareParameters(MiaParameters("mdp:m.json", victim="tabular",
                                                defense="dirichlet"), "victims"), "victim"),
    (lambda: MiaCompareParameters(MiaParameters("mdp:m.json"), "victims"), "victim"),
])
def test_each_invalid_field_is_named(make, field):
    with pytest.raises(InputError) as exc:
        make()
    assert exc.value.field == field


@pytest.mark.parametrize("change, field", [
    ({"rows": [["ffnn", "none", None, None]]}, "rows"),
    ({"compare": "epsilons"}, "compare"),
    ({"unknown": 1}, "unknown"),
    ({"seeded": False}, "seeded"),
    ({"shadows": 0}, "shadows"),
])
def test_from_dict_refuses_naming_the_key(change, field):
    d = dict(MiaCompareParameters(_WINE, "defenses").to_dict(), **change)
    with pytest.raises(InputError) as exc:
        MiaCompareParameters.from_dict(d)
    assert exc.value.field == field
    with pytest.raises(InputError) as exc:
        MiaCompareParameters.from_dict({"data": "wine"})
    assert exc.value.field == "compare"
    with pytest.raises(InputError) as exc:
        MiaCompareParameters.from_dict([("data", "wine")])
    assert exc.value.field == "params"


def test_a_recorded_comparison_reads_back_and_keeps_its_keys():
    study = MiaParameters("wine", defense="oneparam", epsilon=0.7, seed=3, **FAST)
    p = MiaCompareParameters(study, "victims")
    rows = mia_compare_release(p)
    assert [r.result.victim for r in rows] == ["ffnn", "rnn"]
    rec, entries = mia_compare_run_record(Project(), rows, p)
    assert rec.kind == "mia-table" and tuple(rec.params) == TABLE_KEYS
    assert rec.params["rows"] == p.to_dict()["rows"] and rec.summary["compare"] == "victims"
    assert len(entries) == 2 and all(e.source == rec.id for e in entries)
    back = MiaCompareParameters.from_dict(rec.params)
    assert back.plan() == p.plan() and back.study.seed == 3
    # rows of another comparison (or seed) are not recorded under these parameters
    other = MiaCompareParameters(MiaParameters("wine", defense="oneparam", epsilon=1.4,
                                               seed=3, **FAST), "victims")
    with pytest.raises(ValueError):
        mia_compare_run_record(Project(), rows, other)
    with pytest.raises(ValueError):
        mia_compare_run_record(Project(), rows[:1], p)


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run_cli(list(argv), out, err), out.getvalue(), err.getvalue()


def test_mia_compare_on_the_command_line_records_what_the_window_records(tmp_path):
    path = tmp_path / "p.privplan.json"
    from core.project.files import save_project

    save_project(Project(), str(path))
    flags = ("--data", "wine", "--defense", "oneparam", "--epsilon", "0.7", "--shadows", "1",
             "--hidden", "4", "--epochs", "2", "--seed", "3")
    rc, out, _ = _cli("mia", *flags, "--compare", "victims", "--record", str(path), "--json")
    assert rc == 0
    js = json.loads(out)
    assert js["compare"] == "victims" and [r["victim"] for r in js["rows"]] == ["ffnn", "rnn"]
    (rec,) = load_project(str(path)).runs
    p = MiaCompareParameters(MiaParameters("wine", defense="oneparam", epsilon=0.7, seed=3,
                                           shadows=1, hidden=4, epochs=2), "victims")
    made, _ = mia_compare_run_record(Project(), mia_compare_release(p), p)
    assert rec.params == made.params and js["recorded"]["run"] == rec.id
    assert [r["attack_accuracy"] for r in rec.summary["rows"]] == \
        [r["attack_accuracy"] for r in made.summary["rows"]]


@pytest.mark.parametrize("argv, flag", [
    (("--compare", "defenses", "--defense", "dpsgd"), "--defense"),
    (("--compare", "victims", "--attack", "lira"), "--attack"),
    (("--compare", "defenses", "--shadows", "0"), "--shadows"),
])
def test_mia_compare_refusals_name_the_flag(argv, flag):
    rc, out, err = _cli("mia", "--data", "wine", "--seed", "1", *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"privplan mia: {flag}:")
