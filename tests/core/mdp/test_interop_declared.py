"""Import refuses a header's declared sizes before allocating anything of their size."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from core.cli.main import run_cli
from core.common.errors import InputError
from core.mdp.interop import read_drn

_DRN = ("@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n{S}\n@nr_choices\n{C}\n"
        "{extra}@model\nstate 0 init\n\taction go\n\t\t0 : 0.5\n\t\t1 : 0.5\n"
        "state 1\n\taction go\n\t\t1 : 1\n")


def _cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run_cli(list(argv), io.StringIO(), err)
    return code, err.getvalue()


def test_a_600_byte_drn_declaring_a_billion_states_is_refused_from_its_header(tmp_path):
    text = _DRN.format(S=1_000_000_000, C=2, extra="")
    path = tmp_path / "big.drn"
    path.write_text(text + "// " + "x" * (600 - len(text) - 4) + "\n")
    assert path.stat().st_size == 600
    code, err = _cli("import", str(path), "-o", str(tmp_path / "m.mdp.json"))
    assert code in (2, 3) and err.count("\n") == 1
    assert "@nr_states declares 1,000,000,000 states" in err
    assert "out of memory" not in err
    assert not (tmp_path / "m.mdp.json").exists()


@pytest.mark.parametrize("header, word", [("@nr_choices", "choices"),
                                          ("@nr_transitions", "transitions")])
def test_other_declared_sizes_the_file_cannot_hold_are_refused(tmp_path, header, word):
    extra = "@nr_transitions\n3\n"
    text = _DRN.format(S=2, C=2, extra=extra)
    text = text.replace(f"{header}\n{2 if word == 'choices' else 3}\n",
                        f"{header}\n500000000000\n")
    path = tmp_path / "m.drn"
    path.write_text(text)
    with pytest.raises(InputError, match=f"{header} declares 500,000,000,000 {word}"):
        read_drn(path)


def test_nr_transitions_is_read_and_checked(tmp_path):
    good = tmp_path / "good.drn"
    good.write_text(_DRN.format(S=2, C=2, extra="@nr_transitions\n3\n"))
    assert read_drn(good).mdp.n_states == 2
    bad = tmp_path / "bad.drn"
    bad.write_text(_DRN.format(S=2, C=2, extra="@nr_transitions\n4\n"))
    with pytest.raises(InputError, match="@nr_transitions declares 4 transitions, the model "
                                         "has 3"):
        read_drn(bad)


def test_a_prism_header_declaring_more_than_memory_is_refused_from_its_first_line(tmp_path):
    tra = tmp_path / "big.tra"
    tra.write_text("1000000000 1 1\n0 0 0 1\n")
    code, err = _cli("import", str(tra), "-o", str(tmp_path / "m.mdp.json"))
    assert code in (2, 3) and err.count("\n") == 1
    assert "line 1:" in err and "the model the header declares needs" in err


def test_a_prism_header_declaring_more_transitions_than_the_file_holds(tmp_path):
    tra = tmp_path / "m.tra"
    tra.write_text("2 2 90000000\n0 0 1 1\n1 0 1 1\n")
    code, err = _cli("import", str(tra), "-o", str(tmp_path / "m.mdp.json"))
    assert code == 2 and "declares 90,000,000 transitions, the file has 2" in err


def test_files_within_their_declared_sizes_still_import(tmp_path: Path):
    tra = tmp_path / "m.tra"
    tra.write_text("2 2 2\n0 0 1 1\n1 0 1 1\n")
    code, err = _cli("import", str(tra), "-o", str(tmp_path / "m.mdp.json"))
    assert code == 0, err


def _both(path, monkeypatch):
    """read_drn with the bulk transition reading, and with the line-by-line one."""
    from core.mdp.interop import drn

    fast = drn.read_drn(path)
    orig = drn._read_body
    monkeypatch.setattr(drn, "_read_body", lambda *a, bulk: orig(*a, bulk=False))
    slow = drn.read_drn(path)
    return fast, slow


def test_bulk_transitions_read_the_model_the_line_by_line_reader_reads(tmp_path, monkeypatch):
    from core.mdp.examples import sparse_random_mdp
    from core.mdp.interop import write_drn

    write_drn(sparse_random_mdp(50, 3, 4, 5, seed=4), tmp_path / "r")
    fast, slow = _both(tmp_path / "r.drn", monkeypatch)
    assert fast.mdp == slow.mdp and fast.warnings == slow.warnings
    hand = tmp_path / "h.drn"
    hand.write_text("@type: MDP\n@parameters\n\n@reward_models\nr\n@nr_states\n2\n@model\n"
                    "state 0 init [1]\n// start\n\taction go [2]\n\t\t0 : 1/3\n"
                    "// a comment between transitions\n\n\t\t1:2/3\n\taction __NOLABEL__\n"
                    "\t\t1 : 1\nstate 1 \"done\"\n\taction stay\n\t\t1 : 1.0\n")
    fast, slow = _both(hand, monkeypatch)
    assert fast.mdp == slow.mdp
    assert fast.mdp.transitions.data.tolist() == [1 / 3, 2 / 3, 1.0, 1.0]


@pytest.mark.parametrize("body, match", [
    ("state 0 init\n\t\t0 : 1\n", "line 10: a transition before the first action"),
    ("state 0 init\n\taction go\n\t\t0 : x\n", "line 11: probability 'x' is not a number"),
    ("state 0 init\n\taction go\n\t\t7 : 1\n", "line 11: target state 7 is outside"),
    ("state 0 init\n\taction go\n\t\t0 1\n", "line 11: expected 'target : probability'"),
])
def test_an_irregular_transition_is_named_by_its_line(tmp_path, body, match):
    path = tmp_path / "bad.drn"
    path.write_text("@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\n"
                    + body)
    with pytest.raises(InputError, match=match):
        read_drn(path)


def _prism_both(files, monkeypatch):
    """read_prism with the bulk reading of .tra/.trew lines, and with the line-by-line one
    (each result, or the message of the InputError it raises)."""
    from core.mdp.interop import prism

    def run():
        try:
            return prism.read_prism(files, horizon=2)
        except InputError as exc:
            return str(exc)

    fast = run()

    def irregular(*a, **k):
        raise prism._Irregular

    monkeypatch.setattr(prism, "_bulk_tra", irregular)
    slow = run()
    monkeypatch.undo()
    return fast, slow


_TREW = "# Reward structure \"r\"\n# Transition rewards\n2 3 3\n0 0 1 2\n0 1 0 1\n1 0 1 4\n"


@pytest.mark.parametrize("tra, trew", [
    # PRISM's own layout: one blank between fields, every line labelled
    ("2 3 4\n0 0 1 1 go\n0 1 0 0.5 b\n0 1 1 0.5 b\n1 0 1 1 stay\n", _TREW),
    # some lines labelled, some not; tabs, runs of blanks, a comment, a fraction
    ("2 3 4\n0 0 1 1\n0\t1 0  1/2 b\n# note\n0 1 1 0.5\n1 0 1 1 stay\n", _TREW),
    # a ';' inside a label (the bulk reading's line separator) and as a label
    ("2 3 4\n0 0 1 1 a;b\n0 1 0 0.5 ;\n0 1 1 0.5 ;\n1 0 1 1 stay\n", _TREW),
    # integers int() reads but the bulk reading leaves to the line-by-line one
    ("2 3 4\n+0 0 1 1 go\n0 1 0 0.5 b\n0 1 1 0.5 b\n1 0 1_0 1 stay\n", _TREW),
    ("2 3 4\n0 0 1 1 go\n0 1 0 0.5 b\n0 1 1 0.5 b\n1 99999999999999999999 1 1\n", _TREW),
    ("2 3 4\n0 0 1 1 go\n0 1 0 0.5 b\n0 1 1 0.5 b\n2 0 1 1 stay\n", _TREW),  # no state 2
    ("2 3 4\n0 0 1 1 go\n0 1.0 0 0.5 b\n0 1 1 0.5 b\n1 0 1 1\n", _TREW),
    ("2 3 4\n0 0 1 1 go\n0 1 0 0.5 b c\n0 1 1 0.5 b\n1 0 1 1\n", _TREW),
    # a reward given twice, one on a missing transition, one with a label
    ("2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n", _TREW + "0 0 1 3\n"),
    ("2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n", _TREW.replace("0 1 0 1", "0 0 0 1")),
    ("2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n", _TREW.replace("1 0 1 4", "1 0 1 4 x")),
])
def test_bulk_prism_reading_reads_what_the_line_by_line_reading_reads(tmp_path, monkeypatch,
                                                                        tra, trew):
    files = [tmp_path / "m.tra", tmp_path / "m.trew"]
    files[0].write_text(tra)
    files[1].write_text(trew)
    fast, slow = _prism_both(files, monkeypatch)
    if isinstance(slow, str):
        assert fast == slow
    else:
        assert fast.mdp == slow.mdp and fast.warnings == slow.warnings


def test_bulk_prism_reading_of_a_written_model_is_the_line_by_line_one(tmp_path, monkeypatch):
    from core.mdp.examples import sparse_random_mdp
    from core.mdp.interop import write_prism

    files, _ = write_prism(sparse_random_mdp(60, 3, 4, 5, seed=6), tmp_path / "w")
    fast, slow = _prism_both(files, monkeypatch)
    assert not isinstance(fast, str) and fast.mdp == slow.mdp
    rs = fast.mdp.annotations.rewards["r"]
    assert rs.transition is not None and rs.transition.size == fast.mdp.transitions.nnz
