"""``import`` and ``export`` on the command line, and every MDP command on what ``import``
writes (docs/formats-and-cli.md: exit 2 with one line naming the file and line; JSON keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import cli

from core.mdp.files import load_mdp

TRA = "4 5 7\n0 0 1 1 a\n1 0 2 0.5 c\n1 0 3 0.5 c\n1 1 0 0.7 b\n1 1 1 0.3 b\n2 0 2 1 a\n" \
      "3 0 3 1 a\n"
TREW = '# Reward structure "r"\n# Transition rewards\n4 5 4\n1 0 2 6\n1 0 3 6\n1 1 0 5\n1 1 1 5\n'
LAB = '0="init" 1="deadlock" 2="heads" 3="end"\n0: 0\n2: 2 3\n3: 3\n'


def cli_json(*argv: object) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def prism(tmp_path: Path) -> list[Path]:
    files = []
    for suffix, text in ((".tra", TRA), (".trew", TREW), (".lab", LAB)):
        p = tmp_path / f"lec{suffix}"
        p.write_text(text)
        files.append(p)
    return files


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_import_then_every_mdp_command(prism: list[Path], tmp_path: Path, suffix: str) -> None:
    model = tmp_path / f"lec{suffix}"
    d = cli_json("import", *prism, "-o", model, "--horizon", "2")
    assert {k: d[k] for k in ("output", "states", "choices", "transitions")} == {
        "output": str(model), "states": 4, "choices": 5, "transitions": 7}
    assert d["labels"] == ["deadlock", "end", "heads", "init"] and d["reward_used"] == "r"
    assert load_mdp(model).horizon == 2
    private = tmp_path / f"lecp{suffix}"
    d = cli_json("privatize", model, "--k", "500", "--seed", "1", "-o", private)
    assert d["output"] == str(private)
    d = cli_json("bounds", private, "--k", "500", "--beta", "0.05")
    assert d["v_lower"][1] <= d["v_private"][1] <= d["v_upper"][1]
    d = cli_json("sweep", model, "--k", "100,1000", "--runs", "3", "--seed", "2",
                 "--workers", "1")
    assert len(d["v_lower_mean"]) == 2
    d = cli_json("export", private, "--format", "prism-interval", "--k", "500", "--beta",
                 "0.05", "-o", tmp_path / "robust")
    assert d["files"][0].endswith("robust.tra") and d["alpha"] > 0 and d["interval_note"]
    assert "[" in Path(d["files"][0]).read_text().splitlines()[1]


def test_export_round_trip(prism: list[Path], tmp_path: Path) -> None:
    model = tmp_path / "m.mdp.json"
    cli_json("import", *prism, "-o", model, "--horizon", "2")
    d = cli_json("export", model, "--format", "prism", "-o", tmp_path / "out")
    assert [Path(f).name for f in d["files"]] == ["out.tra", "out.lab", "out.trew"]
    assert Path(d["files"][0]).read_text() == TRA
    d = cli_json("export", model, "--format", "drn", "-o", tmp_path / "out")
    again = tmp_path / "again.mdp.json"
    cli_json("import", d["files"][0], "-o", again, "--horizon", "2")
    assert load_mdp(again).transitions.equal(load_mdp(model).transitions)


def test_import_errors_are_one_line_naming_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tra"
    bad.write_text("2 1 1\n0 0 1 0.x\n")
    code, out, err = cli("import", bad, "-o", tmp_path / "m.mdp.json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(bad) in err and "line 2" in err
    assert not (tmp_path / "m.mdp.json").exists()


@pytest.mark.parametrize("argv, flag", [
    (["--horizon", "0"], "--horizon"),
    (["--discount", "1.5"], "--discount"),
    (["--reward", "nope"], "--reward"),
])
def test_import_flag_errors(prism: list[Path], tmp_path: Path, argv: list[str],
                            flag: str) -> None:
    code, _, err = cli("import", *prism, "-o", tmp_path / "m.mdp.json", *argv)
    assert code == 2 and flag in err and err.count("\n") == 1


def test_export_needs_k_and_beta_for_intervals(prism: list[Path], tmp_path: Path) -> None:
    model = tmp_path / "m.mdp.json"
    cli_json("import", *prism, "-o", model, "--horizon", "2")
    code, _, err = cli("export", model, "--format", "drn-interval", "-o", tmp_path / "x")
    assert code == 2 and "--k" in err
    code, _, err = cli("export", model, "--format", "prism", "--k", "3", "-o", tmp_path / "x")
    assert code == 2 and "interval formats" in err
