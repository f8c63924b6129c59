"""One command-line grammar (docs/formats-and-cli.md §5.1): help screens with examples and
help on every option, --record PROJECT everywhere with the old spellings warned, one meaning
per flag name, --json errors, unknown commands, command aliases, PDF reports, the RL line."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli.grammar import EXAMPLES, is_old_spelling
from core.cli.main import COMMANDS, SUBCOMMANDS, build_parser, run_cli
from core.project.files import load_project

ROOT = Path(__file__).resolve().parents[3]
FOUR = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")
FIG41 = str(ROOT / "assets" / "examples" / "fig41.map.json")
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _parsers(p: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield p
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            seen: set[int] = set()
            for sp in a.choices.values():
                if id(sp) not in seen:
                    seen.add(id(sp))
                    yield from _parsers(sp)


# ---------------------------------------------------------------------------- help screens
def test_every_help_ends_with_an_example_naming_its_command() -> None:
    parsers = list(_parsers(build_parser()))
    assert len(parsers) >= len(COMMANDS) + 1
    for p in parsers:
        words = p.prog.split()  # "privplan audit laplace"
        help_text = p.format_help()
        assert p.epilog and p.epilog.startswith("Example"), p.prog
        assert help_text.rstrip().endswith(p.epilog.splitlines()[-1].rstrip()), p.prog
        lines = [ln.split() for ln in p.epilog.splitlines()[1:]]
        assert lines, p.prog
        for ln in lines:
            if len(words) == 1:  # the program's own help: any command
                assert ln[0] == "privplan" and ln[1] in COMMANDS
            else:
                assert ln[:len(words)] == words, (p.prog, ln)


def test_every_option_has_help_and_hidden_ones_are_old_spellings() -> None:
    for p in _parsers(build_parser()):
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._VersionAction,
                              argparse._SubParsersAction)):
                continue
            assert a.help, (p.prog, a.option_strings or a.dest)
            if a.help == argparse.SUPPRESS:
                assert is_old_spelling(a), (p.prog, a.option_strings)


def test_examples_cover_exactly_the_commands() -> None:
    keys = {p.prog.split(" ", 1)[1] if " " in p.prog else "" for p in _parsers(build_parser())}
    assert keys == set(EXAMPLES)


def test_help_prints_the_example(capsys) -> None:
    assert run_cli(["bounds", "--help"]) == 0
    text = capsys.readouterr().out
    assert text.rstrip().endswith("--record project.privplan.json")
    assert "(default 0.05)" in text  # --beta states its default


def test_app_help_lists_the_window_flags_and_the_commands(capsys) -> None:
    pytest.importorskip("PySide6")
    from app import help_text, main

    text = help_text()
    for flag in ("--screenshot", "--size", "FILE", "--calculator"):
        assert flag in text
    for command in ("bounds", "plan", "report", "synthesise"):
        assert command in text
    assert main(["--help"]) == 0 and capsys.readouterr().out == text


# ---------------------------------------------------------------------------- commands
@pytest.mark.parametrize("typed, near", [("privatse", "privatize"), ("synthesiz", "synthesise"),
                                          ("nosuchcommand", None)])
def test_an_unknown_command_says_so_and_suggests(typed: str, near: str | None) -> None:
    code, out, err = cli(typed, "--k", "3")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"unknown command {typed!r}" in err
    assert (f"did you mean {near!r}" in err) if near else "did you mean" not in err
    code, out, _ = cli(typed, "--json")
    assert code == 2 and json.loads(out)["error"]["exit"] == 2


def test_app_names_an_unknown_command_instead_of_opening_it(capsys) -> None:
    from app import main

    assert main(["nosuchcommand"]) == 2
    assert "unknown command 'nosuchcommand'" in capsys.readouterr().err


def test_privatise_and_synthesize_are_aliases(tmp_path: Path) -> None:
    a, b = tmp_path / "a.mdp.json", tmp_path / "b.mdp.json"
    assert cli("privatize", FOUR, "--k", "50", "--seed", "3", "-o", a)[0] == 0
    assert cli("privatise", FOUR, "--k", "50", "--seed", "3", "-o", b)[0] == 0
    same = [json.loads(f.read_text()) for f in (a, b)]
    for doc in same:  # the release metadata's time stamp may cross a second
        doc.get("release", {}).pop("created", None)
    assert same[0] == same[1]
    one, two = cli("synthesise", FOUR, "--json")[1], cli("synthesize", FOUR, "--json")[1]
    assert json.loads(one)["policy"] == json.loads(two)["policy"]


# ---------------------------------------------------------------------------- --json errors
def test_json_errors_are_one_object_on_stdout() -> None:
    code, out, err = cli("bounds", FOUR, "--k", "10", "--beta", "1.5", "--json")
    assert code == 2 and err.count("\n") == 1 and "--beta" in err
    assert json.loads(out)["error"]["exit"] == 2
    assert json.loads(out)["error"]["field"] == "--beta"
    assert "--beta" not in json.loads(out)["error"]["message"]  # the field has its own key
    code, out, _ = cli("bounds", FOUR, "--k", "x", "--json")  # a usage error
    assert code == 2 and json.loads(out) == {"error": {
        "exit": 2, "field": "--k", "message": "argument --k: invalid float value: 'x'"}}
    code, out, _ = cli("bounds", "/no/such.mdp.json", "--k", "10", "--json")
    assert code == 2 and json.loads(out)["error"]["file"] == "/no/such.mdp.json"
    assert cli("bounds", FOUR, "--k", "x")[1] == ""  # without --json: nothing on stdout


def test_json_error_for_a_run_failure_and_an_internal_error(monkeypatch) -> None:
    from core.common.errors import RunFailure

    def dies(args, out, err):
        raise RunFailure("a worker process died twice")

    monkeypatch.setitem(SUBCOMMANDS, "synthesise", dies)
    code, out, err = cli("synthesise", FOUR, "--json")
    assert code == 3 and err.count("\n") == 1
    assert json.loads(out) == {"error": {"exit": 3, "field": None,
                                         "message": "a worker process died twice"}}

    def bug(args, out, err):
        raise ZeroDivisionError("oops")

    monkeypatch.setitem(SUBCOMMANDS, "synthesise", bug)
    monkeypatch.delenv("PRIVPLAN_DEBUG", raising=False)
    code, out, _ = cli("synthesise", FOUR, "--json")
    assert code == 1 and json.loads(out)["error"]["exit"] == 1
    assert "ZeroDivisionError" in json.loads(out)["error"]["message"]


# ---------------------------------------------------------------------------- --record
@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    return path


def _sweep(project: Path, *record: object) -> tuple[int, str, str]:
    mdp_id = load_project(project).mdps[0].id
    return cli("sweep", project, "--mdp", mdp_id, "--k", "10", "--runs", "2", "--seed", "1",
               "--workers", "1", *record, "--json")


def test_record_project_names_the_project(project: Path) -> None:
    runs = len(load_project(project).runs)
    code, out, err = _sweep(project, "--record", project)
    assert code == 0 and "deprecated" not in err, err
    assert json.loads(out)["recorded"]["run"]
    assert len(load_project(project).runs) == runs + 1


def test_bare_record_still_works_and_warns_once(project: Path) -> None:
    runs = len(load_project(project).runs)
    code, out, err = _sweep(project, "--record")
    assert code == 0 and json.loads(out)["recorded"]["run"]
    assert len(load_project(project).runs) == runs + 1
    lines = [ln for ln in err.splitlines() if "deprecated" in ln]
    assert lines == [f"warning: --record without PROJECT is deprecated: write --record "
                     f"{project}"]


def test_record_of_another_project_is_refused(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.privplan.json"
    shutil.copy(BUILTIN, other)
    text = project.read_text()
    code, out, err = _sweep(project, "--record", other)
    assert code == 2 and err.count("\n") == 1 and "--record" in err
    assert json.loads(out)["error"]["field"] == "--record"
    assert project.read_text() == text and other.read_text() == BUILTIN.read_text()


def test_plan_record_project(tmp_path: Path) -> None:
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.project.files import save_project
    from core.project.model import Project

    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", fig41()))
    path = tmp_path / "routes.privplan.json"
    save_project(p, path)
    code, out, err = cli("plan", path, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", "--seed", "4", "--record", path, "--json")
    assert code == 0 and json.loads(out)["recorded"]["run"], err
    assert len(load_project(path).runs) == 1


def test_share_gym_bare_record_needs_a_project() -> None:
    code, out, err = cli("share", "gym:FrozenLake-v1", "--record", "--seed", "1", "--json")
    assert code == 2 and err.count("\n") == 1 and "--record PROJECT" in err
    assert json.loads(out)["error"]["field"] == "--record"


def test_share_project_alias_is_hidden_and_resolved() -> None:
    import argparse as ap

    from core.cli.grammar import resolve_record

    args = ap.Namespace(env="gym:CartPole-v1", record="\0record-into-the-input",
                        project="p.privplan.json", _grammar_reads="env")
    resolve_record(args)
    assert args.record is True and args.project == "p.privplan.json"
    assert "--record --project PROJECT is deprecated" in args._grammar_notes["--record"]
    new = ap.Namespace(env="gym:CartPole-v1", record="q.privplan.json", project=None,
                       _grammar_reads="env")
    resolve_record(new)
    assert new.record is True and new.project == "q.privplan.json"


# ---------------------------------------------------------------------------- one meaning
ADVISE = ("advise", "--preset", "exp2", "--epochs", "3", "--seed", "2", "--json", "--summary")


@pytest.mark.parametrize("old, new, value", [("--alpha", "--q-lr", "0.3"),
                                             ("--gamma", "--discount", "0.2"),
                                             ("--budget", "--advice-budget", "4")])
def test_advise_old_flags_are_warned_aliases_of_the_new(old: str, new: str, value: str) -> None:
    code, out_new, err_new = cli(*ADVISE, new, value)
    assert code == 0 and "deprecated" not in err_new
    code, out_old, err_old = cli(*ADVISE, old, value)
    assert code == 0
    assert [ln for ln in err_old.splitlines() if "deprecated" in ln] == [
        f"warning: {old} is deprecated in advise "
        f"{err_old.split(f'{old} is deprecated in advise ', 1)[1].splitlines()[0]}"]
    assert f"write {new}" in err_old
    a, b = json.loads(out_new), json.loads(out_old)
    a.pop("elapsed_s", None), b.pop("elapsed_s", None)
    assert a == b
    base = json.loads(cli(*ADVISE)[1])
    base.pop("elapsed_s", None)
    assert base != a  # the flag changed the run


def test_an_error_names_the_spelling_typed() -> None:
    code, _, err = cli(*ADVISE, "--alpha", "2")
    assert code == 2 and "--alpha" in err and err.count("\n") == 1
    code, _, err = cli(*ADVISE, "--q-lr", "2")
    assert code == 2 and "--q-lr" in err and "--alpha" not in err


def test_plan_message_budget_and_its_old_spelling() -> None:
    argv = ("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5",
            "--seed", "1", "--json")
    code, new, err = cli(*argv, "--message-budget", "2")
    assert code == 0 and "deprecated" not in err
    code, old, err = cli(*argv, "--budget", "2")
    assert code == 0 and "warning: --budget is deprecated in plan" in err
    assert json.loads(new)["comm_budget"] == json.loads(old)["comm_budget"] == 2
    assert cli(*argv, "--message-budget", "-1")[0] == 2


def test_beta_defaults_to_005_in_bounds() -> None:
    d = json.loads(cli("bounds", FOUR, "--k", "30", "--json")[1])
    e = json.loads(cli("bounds", FOUR, "--k", "30", "--beta", "0.05", "--json")[1])
    f = json.loads(cli("bounds", FOUR, "--k", "30", "--beta", "0.2", "--json")[1])
    assert d["v_lower"] == e["v_lower"] and d["v_lower"] != f["v_lower"]


# ---------------------------------------------------------------------------- report PDF
def test_report_pdf_from_core_cli_with_qt(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("PySide6")
    import core.cli.report as report

    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setattr(report, "PDF_RENDERER", None)  # nothing registered beforehand
    out = tmp_path / "r.pdf"
    code, text, err = cli("report", BUILTIN, "-o", out, "--json")
    assert code == 0, err
    assert out.read_bytes().startswith(b"%PDF") and json.loads(text)["pages"] >= 1


def test_report_pdf_without_qt_says_so(tmp_path: Path, monkeypatch) -> None:
    import importlib.util

    import core.cli.report as report

    real = importlib.util.find_spec
    monkeypatch.setattr(report, "PDF_RENDERER", None)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "PySide6" else real(name, *a))
    code, out, err = cli("report", BUILTIN, "-o", tmp_path / "r.pdf", "--json")
    assert code == 2 and "PySide6" in err and "not installed" in err
    assert json.loads(out)["error"]["field"] == "-o"
    assert not (tmp_path / "r.pdf").exists()


def test_core_cli_imports_no_qt_at_module_level() -> None:
    import subprocess
    import sys

    code = ("import sys, core.cli.main, core.cli.report; "
            "print(any(m.startswith(('PySide6', 'gui')) for m in sys.modules))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""}, check=True)
    assert res.stdout.strip() == "False"


# ---------------------------------------------------------------------------- plan --solver rl
def test_plan_rl_says_plainly_what_the_solver_learned() -> None:
    code, out, err = cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", "--seed", "1", "--solver", "rl")
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("RL high-level solver"))
    assert "inf" not in line and "optimum" not in line and "e+" not in line
    assert "does not reach the goal" in line or "Dijkstra's route" in line
