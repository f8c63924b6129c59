"""BenchParameters and PacketParameters: valid values build and round-trip through their
dicts, each bad field is refused by name, and ``plan-bench --record`` writes the record the
window writes (same kind, same parameter keys) that loads back."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.logistics.bench_release import (
    BENCH_RECORD_KEYS,
    PACKET_RECORD_KEYS,
    BenchParameters,
    PacketParameters,
    bench_release,
    packet_release,
)
from core.logistics.experiments import APPROACH_LABELS, BENCHMARKS, benchmark_config
from core.logistics.packet import experiment_approaches
from core.project.files import load_project
from core.project.model import Project
from core.project.recording import bench_run_record, packet_run_record

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"

#: the keys the Experiments page has always recorded for a benchmark
GUI_BENCH_KEYS = {"benchmark", "values", "approaches", "worlds", "seed", "workers", "seeded"}
#: ... and the Packet routing page for a study (summary["params"] and seeded)
GUI_PACKET_KEYS = {"experiment", "worlds", "values", "approaches", "dynamics_per",
                   "connectivity", "dynamics", "solver", "sizes", "workers", "seeded"}

seeds = st.none() | st.integers(0, 2**63 - 1)
workers = st.none() | st.integers(1, 64)


@st.composite
def bench_params(draw: st.DrawFn) -> BenchParameters:
    name = draw(st.sampled_from(BENCHMARKS))
    param = benchmark_config(name).parameter
    values = None
    if param == "epsilon":
        values = draw(st.none() | st.lists(st.floats(0.01, 10.0), min_size=1, max_size=4))
    elif param == "n_centers":
        values = draw(st.none() | st.lists(st.integers(2, 60).map(float), min_size=1,
                                           max_size=4))
    elif param in ("budget_factor", "dynamics"):
        values = draw(st.none() | st.lists(st.floats(0.05, 1.0), min_size=1, max_size=4))
    approaches = draw(st.none() | st.lists(st.sampled_from(tuple(APPROACH_LABELS)),
                                           min_size=1, max_size=3, unique=True))
    domain = "logistics" if name == "B3" else draw(st.sampled_from(("logistics", "air",
                                                                     "rover")))
    return BenchParameters(name, values=None if values is None else tuple(values),
                           approaches=None if approaches is None else tuple(approaches),
                           worlds=draw(st.integers(1, 500)), seed=draw(seeds),
                           workers=draw(workers), domain=domain)


@st.composite
def packet_params(draw: st.DrawFn) -> PacketParameters:
    name = draw(st.sampled_from(("fig49", "fig410", "fig411")))
    if name == "fig49":
        values = draw(st.none() | st.lists(st.integers(2, 60).map(float), min_size=1,
                                           max_size=3))
    elif name == "fig410":
        values = draw(st.none() | st.lists(st.floats(0.01, 5.0), min_size=1, max_size=3))
    else:
        values = draw(st.none() | st.lists(st.floats(0.01, 1.0), min_size=1, max_size=3))
    known = experiment_approaches() + ("dp-thesis",)
    approaches = draw(st.none() | st.lists(st.sampled_from(known), min_size=1, max_size=3,
                                           unique=True))
    return PacketParameters(
        name, worlds=draw(st.integers(2, 500)), seed=draw(seeds),
        values=None if values is None else tuple(values),
        approaches=None if approaches is None else tuple(approaches),
        dynamics_per=draw(st.sampled_from(("node", "agent"))),
        connectivity=draw(st.sampled_from(("network", "area"))),
        dynamics=draw(st.floats(0.001, 1.0)), solver=draw(st.sampled_from(("dijkstra", "rl"))),
        sizes=None if name == "fig49" else draw(st.none() | st.integers(2, 200)),
        workers=draw(workers))


@settings(max_examples=60, deadline=None)
@given(bench_params())
def test_bench_parameters_round_trip_through_strict_json(p: BenchParameters) -> None:
    d = p.to_dict()
    assert BenchParameters.from_dict(json.loads(json.dumps(d, allow_nan=False))) == p
    assert set(d) - {"domain"} == GUI_BENCH_KEYS and set(d) <= set(BENCH_RECORD_KEYS)
    assert ("domain" in d) == (p.domain != "logistics")
    assert d["seeded"] is (p.seed is not None)


@settings(max_examples=60, deadline=None)
@given(packet_params())
def test_packet_parameters_round_trip_and_the_record_keeps_the_windows_keys(
        p: PacketParameters) -> None:
    d = p.to_dict()
    assert PacketParameters.from_dict(json.loads(json.dumps(d, allow_nan=False))) == p
    rec = p.record_params()
    assert set(rec) == GUI_PACKET_KEYS == set(PACKET_RECORD_KEYS)
    # a record's params and its own seed give the parameters back
    assert PacketParameters.from_dict(rec, seed=p.seed) == p


BAD_BENCH = [
    ({"benchmark": "B9"}, "benchmark"),
    ({"values": ()}, "values"),
    ({"values": (float("nan"),)}, "values"),
    ({"values": (0.5, 0.0)}, "values"),  # B1: epsilon > 0
    ({"benchmark": "B2", "values": (1.5,)}, "values"),  # N whole and >= 2
    ({"approaches": ()}, "approaches"),
    ({"approaches": ("astar",)}, "approaches"),
    ({"worlds": 0}, "worlds"),
    ({"worlds": 2.0}, "worlds"),
    ({"seed": -1}, "seed"),
    ({"workers": 0}, "workers"),
    ({"domain": "sea"}, "domain"),
    ({"benchmark": "B3", "domain": "air"}, "domain"),
]


@pytest.mark.parametrize("change, field", BAD_BENCH)
def test_each_bad_benchmark_field_is_named(change: dict, field: str) -> None:
    kw = {"benchmark": "B1", "values": (0.5,), "worlds": 2, "seed": 1, **change}
    with pytest.raises(InputError) as e:
        BenchParameters(**kw)
    assert e.value.field == field


BAD_PACKET = [
    ({"experiment": "fig12"}, "experiment"),
    ({"worlds": 1}, "worlds"),
    ({"values": ()}, "values"),
    ({"values": (float("inf"),)}, "values"),
    ({"values": (2.0,)}, "values"),  # fig411: dynamism in (0, 1]
    ({"experiment": "fig49", "values": (4.5,), "sizes": None}, "values"),
    ({"experiment": "fig49", "values": (4.0,), "sizes": 5}, "sizes"),
    ({"sizes": 1}, "sizes"),
    ({"approaches": ()}, "approaches"),
    ({"approaches": ("astar",)}, "approaches"),
    ({"dynamics_per": "edge"}, "dynamics_per"),
    ({"connectivity": "all"}, "connectivity"),
    ({"dynamics": 0.0}, "dynamics"),
    ({"dynamics": "x"}, "dynamics"),
    ({"solver": "astar"}, "solver"),
    ({"seed": -2}, "seed"),
    ({"workers": 0}, "workers"),
]


@pytest.mark.parametrize("change, field", BAD_PACKET)
def test_each_bad_study_field_is_named(change: dict, field: str) -> None:
    kw = {"experiment": "fig411", "values": (0.2,), "worlds": 2, "seed": 1, "sizes": 4,
          **change}
    with pytest.raises(InputError) as e:
        PacketParameters(**kw)
    assert e.value.field == field


@pytest.mark.parametrize("data, field", [
    ({"values": [0.5]}, "benchmark"),  # required
    ({"benchmark": "B1", "colour": 1}, "colour"),  # unknown key
    ({"benchmark": "B1", "seed": None, "seeded": True}, "seeded"),
    ([1, 2], "params"),
])
def test_a_bad_benchmark_record_is_refused_by_name(data: object, field: str) -> None:
    with pytest.raises(InputError) as e:
        BenchParameters.from_dict(data)
    assert e.value.field == field


def test_a_study_record_must_say_seeded() -> None:
    d = PacketParameters("fig411", worlds=2, seed=1, values=(0.2,)).record_params()
    with pytest.raises(InputError) as e:
        PacketParameters.from_dict({**d, "seeded": False})
    assert e.value.field == "seeded"


def test_the_benchmark_record_keeps_what_the_run_used() -> None:
    p = BenchParameters("B1", approaches=("noprivacy",), worlds=1, seed=None, workers=1,
                        values=(0.5,))
    res = bench_release(p)
    rec = bench_run_record(Project(), res, p)
    assert rec.kind == "plan-bench" and rec.target == "logistics" and rec.mode == "experiment"
    assert set(rec.params) == GUI_BENCH_KEYS
    assert rec.params["seed"] == res.seed == rec.seed and rec.params["seeded"] is True
    again = BenchParameters.from_dict(rec.params)  # the drawn seed reproduces the run
    assert again.seed == res.seed and again.values == (0.5,)
    assert "per_world" not in rec.summary and rec.summary["benchmark"] == "B1"


def _plan_bench(argv: list[str], tmp_path: Path) -> tuple[int, dict, Path]:
    from core.cli.main import run_cli

    project = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, project)
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["plan-bench", *argv, "--record", str(project), "--json"], out=out, err=err)
    return code, json.loads(out.getvalue()), project


def test_plan_bench_record_writes_the_windows_benchmark_record(tmp_path: Path) -> None:
    code, payload, project = _plan_bench(
        ["B1", "--worlds", "1", "--values", "0.5", "--approaches", "noprivacy", "--workers",
         "1", "--seed", "3"], tmp_path)
    assert code == 0
    runs = load_project(project).runs
    rec = runs[-1]
    assert payload["recorded"] == {"project": str(project), "run": rec.id,
                                   "ledger_entries": 0}
    assert rec.kind == "plan-bench" and set(rec.params) == GUI_BENCH_KEYS
    assert rec.params["seed"] == 3 and rec.params["values"] == [0.5]
    # the window's record of the same run: same kind, params and summary (timings aside)
    p = BenchParameters("B1", values=(0.5,), approaches=("noprivacy",), worlds=1, seed=3,
                        workers=1)
    window = bench_run_record(Project(), bench_release(p), p)
    assert window.kind == rec.kind and window.params == rec.params
    assert window.summary["checks"] == rec.summary["checks"]
    assert BenchParameters.from_dict(rec.params) == p


def test_plan_bench_experiment_record_writes_the_windows_study_record(tmp_path: Path) -> None:
    code, payload, project = _plan_bench(
        ["--experiment", "fig411", "--worlds", "2", "--values", "0.2", "--approaches",
         "bestfirst", "--workers", "1", "--seed", "4"], tmp_path)
    assert code == 0
    rec = load_project(project).runs[-1]
    assert payload["recorded"]["run"] == rec.id and payload["recorded"]["ledger_entries"] == 0
    assert rec.kind == "plan-packet" and rec.seed == 4 and set(rec.params) == GUI_PACKET_KEYS
    p = PacketParameters.from_dict(rec.params, seed=rec.seed)
    window = packet_run_record(Project(), packet_release(p), p)
    assert window.kind == rec.kind and window.params == rec.params
    assert window.summary["claims"] == rec.summary["claims"]
    assert window.summary["rows"] == rec.summary["rows"]
