"""More unit tests of reading hand-written PRISM explicit files (core.mdp.interop.prism):
fractions, labels, state valuations as names, state and transition rewards (the expectation
when a reward depends on the next state, with its warning), the choice of a structure, and
errors naming the file, the line or the flag."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.interop import read_prism, write_prism

TRA = """3 4 6
0 0 1 1/3 go
0 0 2 2/3 go
0 1 0 1 wait
1 0 2 0.25 on
1 0 1 .75 on
2 0 2 1
"""
LAB = '0="init" 1="deadlock" 2="goal"\n0: 0\n2: 2\n'
STA = "(x,y)\n0:(0,0)\n1:(1,0)\n2:(1,1)\n"
SREW = '# Reward structure "cost"\n# State rewards\n3 1\n1 2.5\n'
TREW = ('# Reward structure "cost"\n# Transition rewards\n3 4 2\n'
        '0 0 1 3\n0 0 2 6\n')


def _write(tmp_path: Path, **files: str) -> list[str]:
    out = []
    for suffix, text in files.items():
        p = tmp_path / f"m.{suffix}"
        p.write_text(text, encoding="utf-8")
        out.append(str(p))
    return out


def test_a_hand_written_model_reads_as_written(tmp_path: Path) -> None:
    r = read_prism(_write(tmp_path, tra=TRA, lab=LAB, sta=STA), horizon=2)
    m = r.mdp
    assert m.n_states == 3 and m.n_actions == 2 and r.n_choices == 4
    assert m.P[0, 0].tolist() == [0.0, 1 / 3, 2 / 3]  # fractions read exactly
    assert m.P[1, 0].tolist() == [0.0, 0.75, 0.25]
    assert m.mask.tolist() == [[True, True], [True, False], [True, False]]
    assert m.action_names.name(0, 0) == "go" and m.action_names.name(0, 1) == "wait"
    assert m.initial_state == 0
    assert list(m.state_names) == ["(0,0)", "(1,0)", "(1,1)"]  # the valuations
    assert m.annotations is not None
    assert m.annotations.labels["goal"].tolist() == [2]
    assert m.horizon == 2 and m.discount == 1.0
    assert not m.R.any()  # no reward files: zero rewards


def test_state_valuations_become_distinct_names_that_mention_the_values(
        tmp_path: Path) -> None:
    m = read_prism(_write(tmp_path, tra=TRA, sta=STA), discount=0.9).mdp
    names = list(m.state_names)
    assert len(set(names)) == 3
    for name, (x, y) in zip(names, [(0, 0), (1, 0), (1, 1)]):
        assert str(x) in name and str(y) in name


def test_state_and_next_state_dependent_rewards(tmp_path: Path) -> None:
    r = read_prism(_write(tmp_path, tra=TRA, srew=SREW, trew=TREW), discount=0.9)
    m = r.mdp
    # r(0, go) = state reward 0 + E[transition reward] = 1/3·3 + 2/3·6 = 5
    assert m.R[0, 0] == pytest.approx(5.0)
    assert m.R[0, 1] == 0.0
    assert m.R[1, 0] == 2.5  # a state reward counts for every choice of the state
    assert m.R[2, 0] == 0.0
    assert any("depend on the next state" in w for w in r.warnings)


def test_the_reward_flag_must_name_a_structure(tmp_path: Path) -> None:
    files = _write(tmp_path, tra=TRA, srew=SREW)
    with pytest.raises(InputError) as exc:
        read_prism(files, discount=0.9, reward="time")
    assert exc.value.field == "--reward" and "'cost'" in exc.value.problem
    assert read_prism(files, discount=0.9, reward="cost").mdp.R[1, 0] == 2.5


def test_a_transition_reward_on_a_missing_transition_names_the_structure(
        tmp_path: Path) -> None:
    bad = '# Reward structure "cost"\n# Transition rewards\n3 4 1\n1 0 0 3\n'
    with pytest.raises(InputError) as exc:
        read_prism(_write(tmp_path, tra=TRA, trew=bad), discount=0.9)
    assert "'cost'" in str(exc.value) and "not a transition" in str(exc.value)


@pytest.mark.parametrize("tra, words", [
    ("3 4 6\n0 0 1 1/0 go\n0 0 2 1 go\n0 1 0 1\n1 0 2 1\n2 0 2 1\n",
     "m.tra: line 2: probability '1/0'"),
    ("3 4 5\n0 0 1 0.5\n0 0 2 0.4\n0 1 0 1\n1 0 2 1\n2 0 2 1\n",
     "choice 0 of state 0 (lines 2-3) sum to 0.9"),
    ("3 4 6\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 2 1\n2 0 2 1\n",
     "m.tra: line 1: the header declares 6 transitions, the file has 5"),
    ("3 4 4\n0 0 9 1\n0 1 0 1\n1 0 2 1\n2 0 2 1\n", "m.tra: line 2: target state 9"),
    ("three 4 5\n", "m.tra: line 1: count 'three'"),
])
def test_bad_transition_files_name_the_file(tmp_path: Path, tra: str, words: str) -> None:
    with pytest.raises(InputError) as exc:
        read_prism(_write(tmp_path, tra=tra), discount=0.9)
    assert words in str(exc.value)


def test_a_lab_file_naming_a_missing_state_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        read_prism(_write(tmp_path, tra=TRA, lab='0="init"\n7: 0\n'), discount=0.9)
    assert "m.lab: line 2: state 7" in str(exc.value)


def test_a_dtmc_reads_as_one_choice_per_state(tmp_path: Path) -> None:
    dtmc = "2 3\n0 0 1/2\n0 1 1/2\n1 1 1\n"
    m = read_prism(_write(tmp_path, tra=dtmc), horizon=1).mdp
    assert m.n_actions == 1 and m.P[:, 0].tolist() == [[0.5, 0.5], [0.0, 1.0]]


def test_the_hand_written_model_survives_writing_and_reading_again(tmp_path: Path) -> None:
    first = read_prism(_write(tmp_path, tra=TRA, lab=LAB, srew=SREW), discount=0.9).mdp
    out = tmp_path / "out"
    out.mkdir()
    files, _ = write_prism(first, out / "again")
    again = read_prism(files, discount=0.9).mdp
    assert np.array_equal(again.P, first.P) and np.array_equal(again.R, first.R)
    assert np.array_equal(again.mask, first.mask)
    assert again.annotations is not None
    assert again.annotations.labels["goal"].tolist() == [2]


def test_the_models_own_state_names_are_not_dropped_silently(tmp_path: Path) -> None:
    """PRISM's files number the states: a model's own names cannot be written, so the
    export says so (the CLI prints it on stderr); numbered names and a model read with a
    .sta (its names are the valuations written back) give no such warning."""
    import io

    from core.cli.main import run_cli
    from core.mdp.examples import four_startups
    from core.mdp.files import save_mdp

    named = four_startups()
    assert not named.state_names.is_default("s")
    _, warnings = write_prism(named, tmp_path / "named")
    (w,) = [w for w in warnings if "state names" in w]
    assert f"the {named.n_states} state names ({named.state_names[0]!r}" in w
    assert "export --format drn keeps them" in w
    plain = read_prism(_write(tmp_path, tra=TRA, lab=LAB), discount=0.9).mdp
    assert not any("state names" in w for w in write_prism(plain, tmp_path / "plain")[1])
    with_sta = read_prism(_write(tmp_path, tra=TRA, lab=LAB, sta=STA), discount=0.9).mdp
    assert not any("state names" in w for w in write_prism(with_sta, tmp_path / "sta")[1])
    model = tmp_path / "named.mdp.json"
    save_mdp(named, model)
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["export", str(model), "--format", "prism", "-o", str(tmp_path / "cli")],
                   out=out, err=err)
    assert code == 0
    assert [ln for ln in err.getvalue().splitlines() if "state names" in ln][0].startswith(
        "warning: the ")
