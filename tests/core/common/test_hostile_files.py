"""Each hostile input the fuzzing review found, refused with a message naming the field —
through the loader and through the command line (exit 2, one line)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.common.errors import InputError
from core.common.jsonfile import read_json
from core.logistics.io import load_map, map_from_dict
from core.mdp.files import load_mdp

ROOT = Path(__file__).resolve().parents[3]
EX = ROOT / "assets" / "examples"
FIG41 = json.loads((EX / "fig41.map.json").read_text())


def one_line_exit_2(*argv: object) -> str:
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    return err


# ---------------------------------------------------------------------------- any JSON file
@pytest.mark.parametrize("data, words", [
    (b"\x89PNG\r\n\x1a\n" + bytes(40), "it looks like a PNG image"),
    (b"%PDF-1.7\n" + bytes(40), "it looks like a PDF document"),
    (bytes(range(200, 256)) * 3, "binary data"),
    (b"", "the file is empty"),
    (b"[" * 100_000 + b"]" * 100_000, "nested more than 200 levels"),
    (b'{"a": 1e309}', "1e309 at line 1, column 7 is not a valid number"),
    (b'{"a": [1, NaN]}', "NaN at line 1, column 11 is not a valid number"),
    (b'{"a": -Infinity}', "Infinity"),
    (b'{"a": 1' + b"0" * 400 + b"}", "is not a valid number"),
    (b'{"a": ', "malformed JSON at line 1"),
])
def test_read_json_names_what_is_wrong(tmp_path: Path, data: bytes, words: str) -> None:
    p = tmp_path / "x.privplan.json"
    p.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_json(p)
    assert words in info.value.problem and info.value.file == str(p)


def test_a_truncated_json_file_is_told_in_whole_sentences(tmp_path: Path) -> None:
    """a truncated file's message ended mid-sentence ("… Unterminated string
    starting at"). Cut the built-in project at many places: every message ends with a full
    stop, never with " at", and says the text ends early."""
    full = (Path(__file__).resolve().parents[3] / "assets" / "examples"
            / "builtin.privplan.json").read_bytes()
    cuts = range(40, len(full) - 2, max(1, len(full) // 97))
    seen = set()
    for cut in cuts:
        p = tmp_path / "cut.privplan.json"
        p.write_bytes(full[:cut])
        with pytest.raises(InputError) as info:
            read_json(p)
        problem = info.value.problem
        assert problem.endswith(".") and not problem.rstrip(".").endswith(" at"), problem
        assert "truncated file?" in problem, problem
        seen.add(problem.split(": ", 1)[1].split(";")[0])
    assert any("never closed" in s for s in seen)  # the string cut in the middle was met


@pytest.mark.parametrize("command", [
    ["report", "{p}", "-o", "{d}/r.html"],
    ["bounds", "{p}", "--k", "10", "--beta", "0.1"],
    ["plan", "{p}", "--origin", "a1", "--goal-agent", "f", "--epsilon", "1"],
    ["advise", "--setup", "{p}", "--epochs", "3", "--seed", "1"],
])
def test_every_loader_refuses_an_image_in_one_line(tmp_path: Path, command) -> None:
    p = tmp_path / "photo.json"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
    err = one_line_exit_2(*[c.format(p=p, d=tmp_path) for c in command])
    assert "not a PrivPlan project, MDP, map or set-up file: it looks like a PNG image" in err


# ---------------------------------------------------------------------------- MDP files
def _npz(tmp_path: Path, **change: object) -> Path:
    with np.load(EX / "example2.mdp.npz") as z:
        arrays = {k: z[k] for k in z.files}
    for k, v in change.items():
        if v is None:
            del arrays[k]
        else:
            arrays[k] = np.asarray(v)
    p = tmp_path / "m.mdp.npz"
    np.savez(p, **arrays)
    return p


@pytest.mark.parametrize("change, field, words", [
    ({"horizon": np.nan}, "horizon", "finite number"),
    ({"horizon": "x"}, "horizon", "dtype"),
    ({"horizon": [3, 4]}, "horizon", "single number"),
    ({"horizon": 2.5}, "horizon", "must be an integer"),
    ({"horizon": 10**9}, "horizon", "at most 1,000,000"),
    ({"initial_state": 2.5}, "initial_state", "must be an integer"),
    ({"discount": np.inf}, "discount", "finite number"),
    ({"P": np.zeros((2, 2, 2), dtype=np.complex128)}, "P", "dtype complex128"),
    ({"R": np.full((12, 4), 1e308)}, "rewards", "overflow"),
])
def test_npz_scalars_and_arrays_are_checked(tmp_path: Path, change, field, words) -> None:
    with np.load(EX / "example2.mdp.npz") as z:
        if "R" in change:
            change["R"] = np.full(z["R"].shape, 1e308)
    p = _npz(tmp_path, **change)
    with pytest.raises(InputError) as info:
        load_mdp(p)
    assert info.value.field == field and words in info.value.problem, info.value


def test_json_rewards_that_overflow_values_are_refused(tmp_path: Path) -> None:
    d = json.loads((EX / "four_startups.mdp.json").read_text())
    d["horizon"] = 10
    first = next(iter(d["rewards"]))
    act = next(iter(d["rewards"][first]))
    d["rewards"][first][act] = -1e308
    p = tmp_path / "m.mdp.json"
    p.write_text(json.dumps(d))
    err = one_line_exit_2("bounds", p, "--k", "10", "--beta", "0.1")
    assert "rewards" in err and "overflow" in err


# ---------------------------------------------------------------------------- maps
def _map(mutate) -> dict:
    d = copy.deepcopy(FIG41)
    mutate(d)
    return d


def _node(d: dict, nid: str) -> dict:
    return next(n for n in d["nodes"] if n["id"] == nid)


@pytest.mark.parametrize("mutate, words", [
    (lambda d: _node(d, "A").__setitem__("pos", "xy"), "pos must be [x, y]"),
    (lambda d: _node(d, "a1").__setitem__("pos", [1]), "pos must be [x, y]"),
    (lambda d: _node(d, "a1").__setitem__("pos", [None, None]), "pos must be [x, y]"),
    (lambda d: _node(d, "a1").__setitem__("pos", [float("nan"), 1.0]), "pos must be [x, y]"),
    (lambda d: d["edges"][0].__setitem__("source", ["A"]), "source must be a node id"),
    (lambda d: _node(d, "A").__setitem__("capacity", float("nan")), "capacity must be"),
    (lambda d: _node(d, "A").__setitem__("capacity", float("inf")), "capacity must be"),
    (lambda d: [e.__setitem__("length", 1e308) for e in d["edges"]], "at most"),
    (lambda d: d["edges"][0].__setitem__("length", "50"), "length must be a number"),
    (lambda d: d["edges"][0].__setitem__("length", True), "length must be a number"),
    (lambda d: d["nodes"].append(dict(d["nodes"][-1])), "is used twice"),
    (lambda d: d["edges"].append({"source": d["edges"][0]["target"],
                                  "target": d["edges"][0]["source"], "length": 9.0}),
     "listed twice"),
])
def test_map_values_of_the_wrong_kind_are_refused(mutate, words) -> None:
    with pytest.raises(InputError) as info:
        map_from_dict(_map(mutate))
    assert words in info.value.problem, info.value


def test_a_task_across_unconnected_parts_is_refused(tmp_path: Path) -> None:
    """Two separate maps in one file: a task from one to the other cannot be planned."""
    d = copy.deepcopy(FIG41)
    other = copy.deepcopy(FIG41)
    for n in other["nodes"]:
        n["id"] = "x" + n["id"]
        if n["kind"] == "base":
            n["agent"] = "x" + n["agent"]
        else:
            n["agents"] = ["x" + a for a in n["agents"]]
    for e in other["edges"]:
        e["source"], e["target"] = "x" + e["source"], "x" + e["target"]
        if "agent" in e:
            e["agent"] = "x" + e["agent"]
    d["nodes"] += other["nodes"]
    d["edges"] += other["edges"]
    d["graph"]["tasks"] = []
    p = tmp_path / "two.map.json"
    p.write_text(json.dumps(d))
    load_map(p)  # the map itself is valid
    err = one_line_exit_2("plan", p, "--origin", "a1", "--goal-agent", "xf", "--epsilon", "1",
                          "--seed", "1")
    assert "cannot be reached from 'a1'" in err and "2 unconnected parts" in err


def test_map_nan_tokens_are_refused(tmp_path: Path) -> None:
    p = tmp_path / "m.map.json"
    p.write_text(json.dumps(FIG41).replace('"length": 50.0', '"length": NaN', 1))
    err = one_line_exit_2("plan", p, "--origin", "a1", "--goal-agent", "f", "--epsilon", "1")
    assert "NaN at line 1" in err


# ---------------------------------------------------------------------------- projects
@pytest.mark.parametrize("key, value, words", [
    ("maps", [{"id": "map-1", "nodes": "x"}], "maps[map-1]"),
    ("maps", ["garbage"], "each map must be an object"),
    ("advising", [{"servers": 3}], "advising[0]"),
    ("ledger", [{"id": "rel-1"}], "ledger[0]"),
])
def test_project_garbage_entries_are_refused(tmp_path: Path, key, value, words) -> None:
    d = json.loads((EX / "builtin.privplan.json").read_text())
    d["project"][key] = value
    p = tmp_path / "p.privplan.json"
    p.write_text(json.dumps(d))
    err = one_line_exit_2("report", p, "-o", tmp_path / "r.html")
    assert words in err


def test_list_valued_references_are_unknown_ids_not_crashes(tmp_path: Path) -> None:
    d = json.loads((EX / "builtin.privplan.json").read_text())
    d["project"]["mdps"][0]["transitions"][0]["target"] = ["s0"]
    p = tmp_path / "p.privplan.json"
    p.write_text(json.dumps(d))
    err = one_line_exit_2("report", p, "-o", tmp_path / "r.html")
    assert "unknown state id" in err and "transitions[0].target" in err


# ---------------------------------------------------------------------------- advising
def test_advising_values_that_would_overflow_are_refused(tmp_path: Path) -> None:
    """Issue: ``--xi 1e308`` or rewards ±1e308 gave NaN results with exit 0."""
    from core.advising.presets import preset

    err = one_line_exit_2("advise", "--preset", "exp2", "--epochs", "5", "--seed", "1",
                          "--xi", "1e308")
    assert "--xi" in err and "1e+06" in err
    d = preset("exp2", epochs=5).to_dict()
    d["rewards"][0][0] = -1e308
    p = tmp_path / "set.json"
    p.write_text(json.dumps(d))
    err = one_line_exit_2("advise", "--setup", p, "--epochs", "5", "--seed", "1")
    assert "rewards[0][0]" in err and "-1e+308" in err


def test_tiny_epsilon_is_refused_everywhere() -> None:
    for argv in (["advise", "--preset", "exp2", "--epochs", "5", "--seed", "1", "--epsilon",
                  "1e-300"],
                 ["plan", EX / "fig41.map.json", "--origin", "a1", "--goal-agent", "f",
                  "--epsilon", "1e-300", "--seed", "1"],
                 ["audit", "laplace", "--epsilon", "1e-300", "--sensitivity", "1"]):
        err = one_line_exit_2(*argv)
        assert "at least 1e-09" in err, argv


def test_the_thesis_preset_at_tiny_epsilon_is_refused_from_public_parameters() -> None:
    err = one_line_exit_2("plan", EX / "fig41.map.json", "--origin", "a1", "--goal-agent", "f",
                          "--epsilon", "0.001", "--preset", "thesis", "--seed", "1")
    assert "PrivPlan builds up to 5,000" in err and "use epsilon >=" in err


def test_sizes_that_cannot_fit_are_refused_with_the_estimate(monkeypatch) -> None:
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "2000")  # the same answer on any machine
    err = one_line_exit_2("advise", "--preset", "exp2", "--epochs", "1000000000", "--seed",
                          "1")
    assert "--epochs" in err and "GiB of memory" in err
    err = one_line_exit_2("advise-bench", "--seeds", "100000000", "--epochs", "5")
    assert "--seeds" in err and "GiB of memory" in err
    err = one_line_exit_2("advise-bench", "--experiment", ",", "--epochs", "5")
    assert "names no experiment" in err
