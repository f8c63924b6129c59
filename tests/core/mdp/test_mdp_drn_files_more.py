"""More unit tests of reading hand-written Storm DRN files (core.mdp.interop.drn): reward
models (state and action rewards), labels, names from the comment after a state, a DTMC,
interval files, and errors naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.interop.drn import read_drn, write_drn, write_drn_interval

DRN = """// a hand-written model
@type: MDP
@parameters

@reward_models
time cost
@nr_states
3
@nr_choices
4
@model
state 0 [1, 0] init
//départ
\taction go [0, 2]
\t\t1 : 0.25
\t\t2 : 0.75
\taction __NOLABEL__ [0, 5]
\t\t0 : 1
state 1 [0, 0] goal
//milieu
\taction stay [0, 0]
\t\t1 : 1
state 2 [0, 1]
//fin
\taction stay [0, 0]
\t\t2 : 1
"""


def _file(tmp_path: Path, text: str, name: str = "m.drn") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_a_hand_written_drn_reads_as_written(tmp_path: Path) -> None:
    r = read_drn(_file(tmp_path, DRN), horizon=3)
    m = r.mdp
    assert m.n_states == 3 and r.n_choices == 4
    assert m.P[0, 0].tolist() == [0.0, 0.25, 0.75] and m.P[0, 1].tolist() == [1.0, 0, 0]
    assert list(m.state_names) == ["départ", "milieu", "fin"]
    assert m.action_names.name(0, 0) == "go"
    assert m.action_names.name(0, 1) == "choice 1"  # __NOLABEL__: unlabelled
    assert m.initial_state == 0
    assert m.annotations is not None and m.annotations.labels["goal"].tolist() == [1]
    # r(s, a) from the first reward model, "time": its state reward plus its action reward
    assert m.R.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    assert m.name == "m"


def test_a_drn_with_another_reward_model_chosen(tmp_path: Path) -> None:
    m = read_drn(_file(tmp_path, DRN), horizon=3, reward="cost").mdp
    assert m.R.tolist() == [[2.0, 5.0], [0.0, 0.0], [1.0, 0.0]]
    with pytest.raises(InputError) as exc:
        read_drn(_file(tmp_path, DRN), horizon=3, reward="money")
    assert exc.value.field == "--reward"


def test_the_hand_written_drn_survives_writing_and_reading(tmp_path: Path) -> None:
    first = read_drn(_file(tmp_path, DRN), horizon=3).mdp
    (path,), warnings = write_drn(first, tmp_path / "again")
    again = read_drn(path, horizon=3).mdp
    assert np.array_equal(again.P, first.P) and np.array_equal(again.R, first.R)
    assert list(again.state_names) == list(first.state_names)
    assert again.action_names.name(0, 1) == "choice 1"
    assert again.annotations is not None
    assert set(again.annotations.rewards) >= {"time", "cost"}


def test_a_dtmc_reads_as_one_choice_per_state(tmp_path: Path) -> None:
    text = ("@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@model\n"
            "state 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1\n\taction 0\n"
            "\t\t1 : 1\n")
    m = read_drn(_file(tmp_path, text), horizon=1).mdp
    assert m.n_actions == 1 and m.P[:, 0].tolist() == [[0.5, 0.5], [0.0, 1.0]]


@pytest.mark.parametrize("body, words", [
    ("\t\t1 : 0.25\n\t\t2 : 0.7\n", "sum"),
    ("\t\t7 : 1\n", "7"),
    ("\t\t1 : x\n", "'x'"),
])
def test_bad_transitions_name_the_file_and_line(tmp_path: Path, body: str,
                                                words: str) -> None:
    text = ("@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n3\n@nr_choices\n3\n"
            "@model\nstate 0 init\n\taction go\n" + body
            + "state 1\n\taction s\n\t\t1 : 1\nstate 2\n\taction s\n\t\t2 : 1\n")
    with pytest.raises(InputError) as exc:
        read_drn(_file(tmp_path, text, "bad.drn"), discount=0.9)
    msg = str(exc.value)
    assert "bad.drn" in msg and "line" in msg and words in msg


def test_missing_state_count_is_refused(tmp_path: Path) -> None:
    text = "@type: MDP\n@parameters\n\n@reward_models\n\n@model\nstate 0\n"
    with pytest.raises(InputError) as exc:
        read_drn(_file(tmp_path, text, "none.drn"))
    assert "@nr_states" in str(exc.value) and "none.drn" in str(exc.value)


def test_interval_export_states_the_given_intervals(tmp_path: Path) -> None:
    m = read_drn(_file(tmp_path, DRN), horizon=3).mdp
    p = m.transitions.data
    lower, upper = np.maximum(p - 0.125, 0.0), np.minimum(p + 0.125, 1.0)
    (path,), _ = write_drn_interval(m, tmp_path / "iv", lower, upper)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert "@value_type: double-interval" in lines
    assert "\t\t1 : [0.125, 0.375]" in lines and "\t\t2 : [0.625, 0.875]" in lines
    assert "\t\t0 : [0.875, 1]" in lines
