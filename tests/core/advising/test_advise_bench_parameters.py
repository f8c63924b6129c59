"""The parameters of an advising experiment over many seeds: :class:`AdviseBenchParameters`
(what ``advise-bench …`` and the DP Advising tab's experiments both build). Every valid value
is accepted and survives to_dict → JSON → from_dict; every invalid field is refused on
construction with an InputError naming that field; ``advise-bench --record`` writes the run
record the window writes (kind, target, the ``params`` keys below, the summary, the ledger
entries), and the record loads back into the same parameters."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_run import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from core.advising import (
    BENCH_RUNS,
    RUN_TARGET,
    AdviseBenchParameters,
    advise_bench_release,
    preset,
)
from core.advising.claims import check_claims
from core.common.errors import InputError
from core.common.progress import Cancelled
from core.project.files import load_project, save_project
from core.project.model import Project
from core.project.recording import advise_bench_run_record

#: The ``params`` keys of the window's experiment records (gui/advising/running.py wrote them
#: itself before it recorded through advise_bench_run_record): old projects hold these.
RECORD_KEYS = ["run", "experiment", "setup", "variant", "epsilon", "epsilons", "epochs",
               "distance_threshold", "ask_budget", "give_budget", "seeded", "seed", "seeds",
               "seed_drawn", "workers", "delta", "arms"]
ARM_KEYS = ["label", "strategy", "epsilon", "layout", "variant"]

SETUPS = ("table35", "exp1", "exp2", "exp3", "fig32")
eps = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)


@st.composite
def valid(draw: Any) -> AdviseBenchParameters:
    run = draw(st.sampled_from(sorted(BENCH_RUNS)))
    name = draw(st.sampled_from(SETUPS))
    setup = preset(name, variant=draw(st.sampled_from(("sound", "thesis"))),
                   epsilon=draw(eps), epochs=draw(st.integers(1, 10**4)),
                   distance_threshold=draw(st.floats(min_value=0.0, max_value=1e3)),
                   ask_budget=draw(st.integers(0, 100)), give_budget=draw(st.integers(0, 100)))
    sweeps = run in ("sweep", "exp3")
    epsilons = draw(st.lists(eps, min_size=1 if sweeps else 0, max_size=4, unique=True))
    layout = None
    if run == "exp1":
        layout = draw(st.sampled_from((None, "sunflower", "one-different")))
    elif run in ("exp2", "exp3"):
        layout = draw(st.sampled_from((None, "mixed", "nested", "same")))
    return AdviseBenchParameters(
        run, setup, seed=draw(st.one_of(st.none(), st.integers(0, 2**31))),
        seeds=draw(st.integers(1, 1000)), workers=draw(st.one_of(st.none(), st.integers(1, 64))),
        epsilons=tuple(epsilons), delta=draw(st.floats(min_value=1e-12, max_value=0.5)),
        layout=layout)


@settings(max_examples=60, deadline=None)
@given(valid())
def test_valid_parameters_build_and_round_trip_through_json(p: AdviseBenchParameters) -> None:
    d = p.to_dict()
    text = json.dumps(d, allow_nan=False)  # strict JSON
    assert list(d) == RECORD_KEYS + (["layout"] if p.layout is not None else [])
    assert all(list(a) == ARM_KEYS for a in d["arms"])
    assert [a["label"] for a in d["arms"]] == [a.label for a in p.arms()]
    assert AdviseBenchParameters.from_dict(json.loads(text)) == p  # a preset: rebuilt by name
    assert AdviseBenchParameters.from_dict(json.loads(text), setup=p.setup) == p
    assert (d["seeded"], d["seed_drawn"], d["seeds"]) == (p.seed is not None, p.seed is None,
                                                          p.seeds)


def _base(**changes: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {"run": "exp3", "setup": preset("exp3", epochs=3), "seed": 1,
                          "seeds": 2, "workers": 1, "epsilons": (0.5, 1.0), "delta": 1e-5,
                          "layout": None}
    kw.update(changes)
    return kw


#: field → values it refuses (each alone, the others valid)
INVALID: dict[str, list[Any]] = {
    "run": ["exp4", "single", "", None, 3],
    "setup": [None, "exp3", {"name": "exp3"}],
    "seed": [-1, 1.5, True, "3"],
    "seeds": [0, -2, 2.0, True, None],
    "workers": [0, -1, 1.0, False],
    "epsilons": [(), (0.0,), (-1.0,), (math.inf,), (math.nan,), ("x",), "0.5", 0.5, ({},)],
    "delta": [0.0, 1.0, -1e-5, math.nan, "x"],
    "layout": ["bogus", "fig32", 3],
}


@pytest.mark.parametrize("name,value", [(n, v) for n, vs in INVALID.items() for v in vs])
def test_each_invalid_field_is_refused_naming_it(name: str, value: Any) -> None:
    with pytest.raises(InputError) as exc:
        AdviseBenchParameters(**_base(**{name: value}))
    assert exc.value.field == name


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(("strategies", "sweep", "exp1-one-different")),
       st.sampled_from(("sunflower", "mixed", "same")))
def test_a_layout_only_applies_to_the_thesis_experiments(run: str, layout: str) -> None:
    with pytest.raises(InputError) as exc:
        AdviseBenchParameters(**_base(run=run, setup=preset("table35", epochs=3),
                                      layout=layout))
    assert exc.value.field == "layout"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(("seeded", "seed_drawn", "seeds", "run", "setup", "variant")))
def test_a_bad_record_is_refused_naming_the_field(field: str) -> None:
    d = AdviseBenchParameters(**_base()).to_dict()
    bad: dict[str, Any] = {"seeded": False, "seed_drawn": True, "seeds": [], "run": "nope",
                           "setup": "my own set-up", "variant": "custom"}
    d[field] = bad[field]
    if field == "seeded":  # (with seed_drawn False as well, either may be the wrong one)
        del d["seed_drawn"]
    with pytest.raises(InputError) as exc:
        AdviseBenchParameters.from_dict(d)
    assert exc.value.field == field


def test_the_entry_point_runs_the_arms_and_stops_when_cancelled() -> None:
    p = AdviseBenchParameters("sweep", preset("table35", epochs=4), seed=7, seeds=2,
                              workers=1, epsilons=(0.5, 2.0))
    r = advise_bench_release(p)
    assert r.labels == ("no advice", "dp eps=0.5", "dp eps=2")
    assert r.seeds.tolist() == [7, 8] and not r.seed_drawn and r.name == "sweep"
    with pytest.raises(Cancelled):
        advise_bench_release(p, cancelled=lambda: True)
    drawn = advise_bench_release(AdviseBenchParameters("strategies", preset("fig32", epochs=2),
                                                       seeds=1, workers=1))
    assert drawn.seed_drawn and drawn.seed is not None


def test_the_record_keeps_the_parameters_and_what_the_run_made() -> None:
    p = AdviseBenchParameters("exp2", preset("exp2", epochs=5), seeds=2, workers=1)
    r = advise_bench_release(p)
    claims = [c for c in check_claims({"exp2": r}) if c.claim.experiment == "exp2"]
    rec, entries = advise_bench_run_record(Project(), r, p, claims=claims)
    assert (rec.kind, rec.target, rec.mode, rec.seed) == (
        "advise-experiment", RUN_TARGET, "experiment", r.seed)
    assert list(rec.params) == RECORD_KEYS
    assert rec.params["seeds"] == r.seeds.tolist() and rec.params["seed"] == r.seed
    assert rec.params["seed_drawn"] is True and rec.params["seeded"] is False
    assert {c["experiment"] for c in rec.summary["claims"]} == {"exp2"}
    assert entries and {e.source for e in entries} == {rec.id}
    assert {e.mode for e in entries} == {"experiment"}
    back = AdviseBenchParameters.from_dict(rec.params)
    assert back == p  # the drawn seed is not a seed asked for
    with pytest.raises(ValueError):  # the result of other parameters
        advise_bench_run_record(Project(), r, AdviseBenchParameters(
            "exp2", preset("exp2", epochs=5), seed=r.seed, seeds=2, workers=1))


def test_advise_bench_record_writes_the_windows_record_and_it_loads_back(tmp_path: Path
                                                                         ) -> None:
    path = tmp_path / "p.privplan.json"
    save_project(Project(name="p"), path)
    code, out, err = cli("advise-bench", "--experiment", "exp1", "--seeds", "2", "--seed", "4",
                         "--epochs", "6", "--workers", "1", "--record", str(path), "--json")
    assert code == 0, err
    d = json.loads(out)
    project = load_project(path)
    [rec] = project.runs
    assert d["recorded"] == {"project": str(path), "run": rec.id,
                             "ledger_entries": len(project.ledger)}
    assert len(project.ledger) > 0 and {e.source for e in project.ledger} == {rec.id}
    assert (rec.kind, rec.target, rec.mode, rec.seed) == (
        "advise-experiment", RUN_TARGET, "experiment", 4)
    assert list(rec.params) == RECORD_KEYS
    asked = AdviseBenchParameters("exp1", preset("exp1", epochs=6), seed=4, seeds=2, workers=1)
    assert AdviseBenchParameters.from_dict(rec.params) == asked
    # the record the window's record function makes of the same run
    r = advise_bench_release(asked)
    claims = [c for c in check_claims({"exp1": r}) if c.claim.experiment == "exp1"]
    want, entries = advise_bench_run_record(Project(), r, asked, claims=claims)
    assert rec.params == want.params
    assert _timeless(rec.summary) == _timeless(want.summary)
    assert len(entries) == len(project.ledger)
    assert d["experiments"]["sound"]["exp1"]["seeds"] == [4, 5]
    # the text form says where it went
    code, out, err = cli("advise-bench", "--experiment", "exp2", "--seeds", "1", "--epochs",
                         "3", "--workers", "1", "--record", str(path))
    assert code == 0, err
    assert "recorded in" in out and load_project(path).runs[-1].params["seed_drawn"] is True


def _timeless(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _timeless(v) for k, v in x.items() if k != "elapsed_s"}
    if isinstance(x, list):
        return [_timeless(v) for v in x]
    return x


@pytest.mark.parametrize("argv", [["--experiment", "exp1,exp2"], ["--variant", "both",
                                                                  "--experiment", "exp2"],
                                  ["--experiment", "all"]])
def test_record_takes_one_experiment(tmp_path: Path, argv: list[str]) -> None:
    path = tmp_path / "p.privplan.json"
    save_project(Project(name="p"), path)
    code, _, err = cli("advise-bench", *argv, "--seeds", "1", "--epochs", "2", "--record",
                       str(path))
    assert code == 2 and err.count("\n") == 1 and "--record" in err
    assert load_project(path).runs == []
