"""Unit tests of the command line's pure helpers: core.cli.grammar, core.cli.common and
core.cli.guard (no whole commands are run here)."""

from __future__ import annotations

import argparse
import io
import json
import math
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cli import grammar
from core.cli.common import Parser, Progress, UsageError, emit, flag_error, mode_line, parse_k_list
from core.cli.guard import (
    RULES,
    SEED_MAX,
    SIGMA_MAX,
    Count,
    Range,
    check_batch,
    check_flags,
    one_line,
)
from core.common.errors import InputError
from core.common.validation import B_MIN, K_MAX

# ------------------------------------------------------------------------------ grammar


def test_canonical_command_maps_both_spellings_and_passes_unknown_names() -> None:
    assert grammar.canonical_command("privatise") == "privatize"
    assert grammar.canonical_command("synthesize") == "synthesise"
    assert grammar.canonical_command("privatize") == "privatize"
    assert grammar.canonical_command("no-such") == "no-such"


def test_suggest_command_finds_a_near_name_and_resolves_aliases() -> None:
    names = ["bounds", "privatize", "privatise", "synthesise", "sweep"]
    assert grammar.suggest_command("bound", names) == "bounds"
    assert grammar.suggest_command("BOUNDS", names) == "bounds"  # lower-cased first
    # the alias is the nearer match, but the canonical name is what is suggested
    assert grammar.suggest_command("privatisee", names) in ("privatize",)
    assert grammar.suggest_command("xyzzy", names) is None
    assert grammar.suggest_command("bounds", []) is None


@pytest.mark.parametrize("word, expected", [
    ("bounds", True), ("plan-bench", True), ("a_b9", True), ("B", True),
    ("9lives", False), ("-x", False), ("model.json", False), ("a b", False), ("", False),
    ("ünïcode", False), ("dir/file", False),
])
def test_looks_like_command_is_a_bare_word(word: str, expected: bool, tmp_path,
                                           monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert grammar.looks_like_command(word) is expected


def test_an_existing_file_named_like_a_command_is_not_a_command(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bounds").write_text("x")
    assert grammar.looks_like_command("bounds") is False
    assert grammar.looks_like_command("sweep") is True


@pytest.mark.parametrize("argv, expected", [
    ([], False), (["bounds", "--json"], True), (["--json"], True),
    (["bounds", "--", "--json"], False), (["--jsonx"], False), (["--json=1"], False),
    (["a", "--json", "--"], True),
])
def test_wants_json_stops_at_the_double_dash(argv: list[str], expected: bool) -> None:
    assert grammar.wants_json(argv) is expected


@pytest.mark.parametrize("message, field", [
    ("argument --k: invalid float value: 'x'", "--k"),
    ("argument -o/--out: expected one argument", "--out"),
    ("the following arguments are required: model, --k", "model"),
    ("unrecognized arguments: --kk 3", "--kk"),
    ("argument command: invalid choice: 'x'", "command"),
    ("something else entirely", None),
])
def test_usage_field_names_the_flag_of_an_argparse_message(message: str,
                                                           field: str | None) -> None:
    assert grammar.usage_field(message) == field


def test_usage_field_of_a_real_argparse_error() -> None:
    p = Parser(prog="x")
    p.add_argument("--k", type=float)
    with pytest.raises(UsageError) as exc:
        p.parse_args(["--k", "abc"])
    assert str(exc.value).startswith("x: ")
    assert grammar.usage_field(str(exc.value)) == "--k"


def test_write_json_error_is_one_parseable_line_with_null_field() -> None:
    out = io.StringIO()
    grammar.write_json_error(out, 2, "bad ünïcode\nvalue", None)
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    doc = json.loads(text)
    assert doc == {"error": {"exit": 2, "message": "bad ünïcode\nvalue", "field": None}}


def test_write_json_error_with_file_and_extra_keys_and_non_finite_extra() -> None:
    out = io.StringIO()
    grammar.write_json_error(out, 3, "failed", "--k", file="m.json",
                             extra={"partial": [1.0, math.inf]})
    doc = json.loads(out.getvalue())  # strict JSON: no Infinity token
    assert doc["error"] == {"exit": 3, "message": "failed", "field": "--k", "file": "m.json"}
    assert doc["partial"][0] == 1.0 and doc["partial"][1] is None
    assert "Infinity" not in out.getvalue()


def test_an_empty_file_name_is_not_written() -> None:
    out = io.StringIO()
    grammar.write_json_error(out, 2, "m", "f", file="")
    assert "file" not in json.loads(out.getvalue())["error"]


def _parser_with_alias() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("--budget", type=float, choices=[1.0, 2.5])
    grammar.add_alias(p, "--message-budget", "--budget", " here")
    grammar.add_old_option(p, "--project", dest="project")
    return p


def test_old_spellings_are_hidden_and_recognised() -> None:
    p = _parser_with_alias()
    olds = sorted(a.option_strings[0] for a in p._actions if grammar.is_old_spelling(a))
    assert olds == ["--message-budget", "--project"]
    assert all(a.help == argparse.SUPPRESS for a in p._actions if grammar.is_old_spelling(a))
    assert not any(grammar.is_old_spelling(a) for a in p._actions
                   if "--budget" in a.option_strings)
    assert "--message-budget" not in p.format_help()


def test_typed_flag_and_take_notes_without_old_spellings() -> None:
    ns = argparse.Namespace(x=1)
    assert grammar.typed_flag(ns, "--k") == "--k"
    assert grammar.typed_flag(None, "--k") == "--k"
    assert grammar.typed_flag(ns, None) is None
    assert grammar.take_notes(ns) == []
    assert vars(ns) == {"x": 1}


def test_an_alias_records_a_note_and_the_typed_spelling() -> None:
    p = _parser_with_alias()
    ns = p.parse_args(["--message-budget", "2.5"])
    assert ns.budget == 2.5
    assert grammar.typed_flag(ns, "--budget") == "--message-budget"
    notes = grammar.take_notes(ns)
    assert notes == ["warning: --message-budget is deprecated here: write --budget"]
    assert grammar.take_notes(ns) == []  # removed from the namespace
    plain = p.parse_args(["--budget", "1"])
    assert grammar.typed_flag(plain, "--budget") == "--budget"
    assert grammar.take_notes(plain) == []


def test_an_alias_keeps_the_type_and_choices_of_the_new_flag() -> None:
    p = _parser_with_alias()
    p.exit_on_error = False
    with pytest.raises((SystemExit, argparse.ArgumentError)):
        p.parse_args(["--message-budget", "3"])  # not among the choices


def test_an_old_option_stores_silently() -> None:
    ns = _parser_with_alias().parse_args(["--project", "x.privplan"])
    assert ns.project == "x.privplan" and grammar.take_notes(ns) == []


def _record_parser(reads: str | None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("project")
    grammar.add_record_option(p, "record it", reads=reads)
    return p


def test_record_option_without_reads_needs_a_value_and_resolve_does_nothing() -> None:
    p = _record_parser(None)
    ns = p.parse_args(["a.json", "--record", "b.json"])
    grammar.resolve_record(ns)
    assert ns.record == "b.json"
    with pytest.raises(SystemExit):
        p.parse_args(["a.json", "--record"])


def test_resolve_record_no_flag_bare_flag_and_same_file(tmp_path) -> None:
    proj = tmp_path / "p.privplan"
    proj.write_text("{}")
    p = _record_parser("project")
    ns = p.parse_args([str(proj)])
    grammar.resolve_record(ns)
    assert ns.record is False
    ns = p.parse_args([str(proj), "--record"])
    grammar.resolve_record(ns)
    assert ns.record is True
    (note,) = grammar.take_notes(ns)
    assert "deprecated" in note and str(proj) in note
    # the same file under another spelling of its path
    other = tmp_path / "sub" / ".." / "p.privplan"
    (tmp_path / "sub").mkdir()
    ns = p.parse_args([str(proj), "--record", str(other)])
    grammar.resolve_record(ns)
    assert ns.record is True and grammar.take_notes(ns) == []


def test_resolve_record_refuses_another_project_naming_the_flag(tmp_path) -> None:
    p = _record_parser("project")
    ns = p.parse_args([str(tmp_path / "a.privplan"), "--record", str(tmp_path / "b.privplan")])
    with pytest.raises(InputError) as exc:
        grammar.resolve_record(ns)
    assert exc.value.field == "--record"
    assert "PROJECT" in exc.value.problem


def test_resolve_record_for_a_gym_environment() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("env")
    p.add_argument("--project", default=None)
    grammar.add_record_option(p, "record", reads="env")
    ns = p.parse_args(["gym:CartPole", "--record", "x.privplan"])
    grammar.resolve_record(ns)
    assert ns.record is True and ns.project == "x.privplan"
    ns = p.parse_args(["gym:CartPole", "--record"])
    with pytest.raises(InputError) as exc:
        grammar.resolve_record(ns)
    assert exc.value.field == "--record" and "gym:CartPole" in exc.value.problem
    ns = p.parse_args(["gym:CartPole", "--record", "--project", "y.privplan"])
    grammar.resolve_record(ns)
    assert ns.record is True
    (note,) = grammar.take_notes(ns)
    assert "--project" in note


# ------------------------------------------------------------------------------ common


@pytest.mark.parametrize("text, values", [
    ("10", [10.0]), ("10,100,1000", [10.0, 100.0, 1000.0]), ("1;2 3", [1.0, 2.0, 3.0]),
    (" 5 ,, 6 ", [5.0, 6.0]), ("1e-3", [0.001]), ("3,1,2", [3.0, 1.0, 2.0]),
    (f"{K_MAX:g}", [K_MAX]),
])
def test_parse_k_list_keeps_the_order_given(text: str, values: list[float]) -> None:
    assert parse_k_list(text) == values


@pytest.mark.parametrize("text, words", [
    ("", "at least one"), (" ,; ", "at least one"), ("abc", "not a number"),
    ("1,x", "'x'"), ("0", "> 0"), ("-5", "> 0"), ("nan", "finite"), ("inf", "finite"),
    ("1e400", "finite"),
])
def test_parse_k_list_errors_name_the_flag(text: str, words: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_k_list(text)
    assert exc.value.field == "--k"
    assert words in exc.value.problem


def test_parse_k_list_refuses_k_beyond_k_max() -> None:
    with pytest.raises(InputError) as exc:
        parse_k_list(f"{K_MAX * 10:g}")
    assert exc.value.field == "--k"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(min_value=1e-6, max_value=1e9), min_size=1, max_size=6),
       st.sampled_from([",", ";", " "]))
def test_parse_k_list_round_trips_repr(values: list[float], sep: str) -> None:
    assert parse_k_list(sep.join(repr(v) for v in values)) == values


def test_flag_error_renames_only_known_fields_without_a_file() -> None:
    e = InputError("must be > 0", field="k")
    renamed = flag_error(e, {"k": "--k"})
    assert renamed is not e and renamed.field == "--k" and renamed.problem == "must be > 0"
    other = InputError("bad", field="beta")
    assert flag_error(other, {"k": "--k"}) is other
    with_file = InputError("bad", field="k", file="m.json")
    assert flag_error(with_file, {"k": "--k"}) is with_file
    none = InputError("bad")
    assert flag_error(none, {"k": "--k"}) is none


def test_mode_line_says_seeded_or_release() -> None:
    assert "seed 0" in mode_line(0) and "not for real releases" in mode_line(0)
    assert "seed 12345678901234567890" in mode_line(12345678901234567890)
    assert mode_line(None).startswith("mode: release")


def test_emit_json_is_strict_and_text_is_lazy() -> None:
    calls: list[int] = []

    def text() -> str:
        calls.append(1)
        return "human"

    out = io.StringIO()
    emit(argparse.Namespace(json=True), {"eps": math.inf, "name": "ü"}, text, out)
    doc = json.loads(out.getvalue())
    assert doc["eps"] is None and doc["name"] == "ü" and calls == []
    out = io.StringIO()
    emit(argparse.Namespace(json=False), {"eps": 1.0}, text, out)
    assert out.getvalue() == "human\n" and calls == [1]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_silent_off_a_terminal_and_draws_once_per_percent() -> None:
    quiet = io.StringIO()
    Progress(quiet, "x")(0.5, "half")
    assert quiet.getvalue() == ""
    tty = _Tty()
    bar = Progress(tty, "run")
    bar(0.5, "m")
    once = tty.getvalue()
    bar(0.501, "again")  # the same percent: nothing drawn
    assert tty.getvalue() == once
    assert "50%" in once and "#" * 12 + "-" * 13 in once
    bar(1.0, "done")
    assert tty.getvalue().endswith("\n") and "100%" in tty.getvalue()


def test_parser_errors_are_usage_errors_not_exits() -> None:
    p = Parser(prog="privplan bounds")
    p.add_argument("model")
    with pytest.raises(UsageError) as exc:
        p.parse_args([])
    assert "privplan bounds:" in str(exc.value)
    assert grammar.usage_field(str(exc.value)) == "model"


# ------------------------------------------------------------------------------ guard


@pytest.mark.parametrize("text, expected", [
    ("plain", "plain"), ("a\nb", "a\\nb"), ("a\r\tb", "a\\r\\tb"), ("\x00\x1b", "\\x00\\x1b"),
    ("ünïcode ok", "ünïcode ok"), ("x\u2028y", "x\\u2028y"), ("\u202eevil", "\\u202eevil"),
    ("\ufeffbom", "\\ufeffbom"), ("\x7f", "\\x7f"), ("\x85", "\\x85"),
])
def test_one_line_escapes_breaks_controls_and_bidi(text: str, expected: str) -> None:
    assert one_line(text) == expected


@settings(max_examples=30, deadline=None)
@given(st.text(max_size=40))
def test_one_line_never_leaves_a_line_break(text: str) -> None:
    out = one_line(text)
    assert len(out.splitlines()) <= 1
    assert not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in out)
    assert "\u202e" not in out and "\ufeff" not in out


def test_one_line_leaves_printable_text_alone() -> None:
    s = "Café ∞ ε=0.5, δ=1e-6 — 日本"
    assert one_line(s) == s
    assert one_line(42) == "42"  # type: ignore[arg-type]


def test_range_open_and_closed_ends() -> None:
    r = Range(0.0, 1.0)
    r("--x", 1.0)
    r("--x", 1e-300)
    for bad in (0.0, -1.0, 1.0000001, math.nan, math.inf):
        with pytest.raises(InputError) as exc:
            r("--x", bad)
        assert exc.value.field == "--x" and "(0, 1]" in exc.value.problem
    closed = Range(0.0, 1.0, low_open=False, why="because")
    closed("--y", 0.0)
    with pytest.raises(InputError) as exc:
        closed("--y", -0.1)
    assert "[0, 1]" in exc.value.problem and "(because)" in exc.value.problem


def test_count_checks_integer_ranges() -> None:
    c = Count(1, 10)
    c("--runs", 1)
    c("--runs", 10)
    for bad in (0, 11, -3):
        with pytest.raises(InputError) as exc:
            c("--runs", bad)
        assert exc.value.field == "--runs"


def test_rules_cover_k_and_b_with_their_documented_ranges() -> None:
    for command in ("dirichlet", "privatize", "bounds", "audit", "mia"):
        RULES[(command, "k")]("--k", K_MAX)
        with pytest.raises(InputError):
            RULES[(command, "k")]("--k", 0.0)
        with pytest.raises(InputError):
            RULES[(command, "k")]("--k", K_MAX * 1.01)
    RULES[("bounds", "b")]("--b", B_MIN)
    with pytest.raises(InputError):
        RULES[("bounds", "b")]("--b", B_MIN / 2)
    RULES[("accountant", "sigma")]("--sigma", SIGMA_MAX)
    with pytest.raises(InputError):
        RULES[("accountant", "sigma")]("--sigma", SIGMA_MAX * 2)


def test_check_flags_names_the_first_flag_out_of_range() -> None:
    ok = argparse.Namespace(command="bounds", k=10.0, b=0.5, seed=3, workers=2, json=True)
    check_flags(ok)
    with pytest.raises(InputError) as exc:
        check_flags(argparse.Namespace(command="bounds", k=-1.0, b=0.5))
    assert exc.value.field == "--k"
    with pytest.raises(InputError) as exc:
        check_flags(argparse.Namespace(command="anything", seed=-1))
    assert exc.value.field == "--seed"
    check_flags(argparse.Namespace(command="anything", seed=SEED_MAX))
    with pytest.raises(InputError) as exc:
        check_flags(argparse.Namespace(command="anything", seed=SEED_MAX + 1))
    assert exc.value.field == "--seed"


def test_check_flags_checks_every_item_of_a_list_and_skips_none_and_bools() -> None:
    check_flags(argparse.Namespace(command="bounds", k=None, b=True, seed=False))
    with pytest.raises(InputError) as exc:
        check_flags(argparse.Namespace(command="bounds", k=[1.0, 2.0, math.nan]))
    assert exc.value.field == "--k" and "nan" in exc.value.problem


def test_check_flags_uses_dashes_for_underscores_and_ignores_unknown_commands_rules() -> None:
    # k of a command without a rule for k is not checked
    check_flags(argparse.Namespace(command="plan", k=-5.0))
    with pytest.raises(InputError) as exc:
        check_flags(argparse.Namespace(command="share", k0=0.0))
    assert exc.value.field == "--k0"


def test_advise_sensitivity_accepts_strict() -> None:
    rule = RULES[("advise", "sensitivity")]
    rule("--sensitivity", "strict")
    rule("--sensitivity", 1.0)
    with pytest.raises(InputError):
        rule("--sensitivity", 0.0)


def test_check_batch_passes_small_work_and_refuses_huge_work_naming_the_field() -> None:
    check_batch(10, 0.01, "--runs", workers=1, what="runs")
    check_batch(0, 1e9, "--runs", workers=None, what="runs")
    with pytest.raises(InputError) as exc:
        check_batch(1e12, 1.0, "--worlds", workers=4, what="planning runs")
    assert exc.value.field == "--worlds"
    assert "4 worker(s)" in exc.value.problem
    # workers=0 is the default (the CPU count), never a division by zero
    with pytest.raises(InputError) as exc:
        check_batch(1e12, 1.0, "--runs", workers=0, what="runs")
    assert "runs on" in exc.value.problem and " 0 worker" not in exc.value.problem


# ------------------------------------------------------------------------------ help epilogs


def _toy_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="privplan")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("bounds", prog="privplan bounds")
    audit = sub.add_parser("audit", prog="privplan audit", aliases=["au"])
    inner = audit.add_subparsers(dest="kind")
    inner.add_parser("laplace", prog="privplan audit laplace")
    sub.add_parser("no-example", prog="privplan no-example")
    return p


def test_finish_parser_gives_nested_parsers_their_examples_and_formatter() -> None:
    p = _toy_parser()
    grammar.finish_parser(p, "privplan")
    subs = {sp.prog: sp for sp in grammar._subparsers(p)}
    assert sorted(subs) == ["privplan audit", "privplan bounds", "privplan no-example"]
    assert p.epilog.startswith("Examples:\n  privplan bounds")  # two lines: plural
    assert subs["privplan bounds"].epilog.startswith("Examples:\n")
    assert subs["privplan no-example"].epilog is None
    laplace = grammar._subparsers(subs["privplan audit"])[0]
    assert laplace.epilog == "Example:\n  " + grammar.EXAMPLES["audit laplace"]
    assert laplace.formatter_class is grammar.HelpFormatter


def test_example_epilogs_keep_their_long_lines() -> None:
    p = _toy_parser()
    grammar.finish_parser(p, "privplan")
    laplace = grammar._subparsers(grammar._subparsers(p)[1])[0]
    text = laplace.format_help()
    assert "  " + grammar.EXAMPLES["audit laplace"] + "\n" in text  # not wrapped
    plain = argparse.ArgumentParser(prog="x", epilog="word " * 40,
                                    formatter_class=grammar.HelpFormatter)
    assert max(len(line) for line in plain.format_help().splitlines()) < 100  # wrapped


def test_every_example_line_starts_with_privplan_and_its_command() -> None:
    for key, text in grammar.EXAMPLES.items():
        for line in text.splitlines():
            assert line.startswith("privplan ")
            if key:
                assert line.split()[1] == key.split()[0]
