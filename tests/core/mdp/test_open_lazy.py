"""Opening a large model builds no per-state name lists, and gives back the MDP it read.

:meth:`MdpModel.from_mdp` keeps a large model's names in the MDP's compact form and makes
the four name lists only when something reads them; :meth:`MdpModel.to_mdp` of a model
nobody changed hands back the validated MDP (no second validation). Every answer must be
the one the spelled-out lists give.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.editable import _LAZY, MdpModel
from core.mdp.examples import sparse_random_mdp
from core.mdp.model import MDP
from core.mdp.names import ActionNames, Names
from core.mdp.sparse import Transitions


def _spelled_out(m: MdpModel) -> MdpModel:
    """The same model with its four lists made and the version moved (the slow path)."""
    c = m.copy()
    for name in _LAZY:
        getattr(c, name)
    c._touch()
    return c


def _ragged(S: int = 600) -> MDP:
    """Some states with fewer actions (some not first), repeated and odd action names."""
    base = sparse_random_mdp(S, 3, 3, 4, seed=5)
    mask = np.ones((S, 3), dtype=bool)
    mask[::7, 2] = False
    mask[3::11, 0] = False  # an unavailable action before an available one
    t = base.transitions
    keep = np.repeat(mask.reshape(-1), np.diff(t.indptr))
    counts = np.where(mask.reshape(-1), np.diff(t.indptr), 0)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    codes = np.tile(np.array([2, 0, 1], dtype=np.int32), (S, 1))
    codes[5] = [1, 2, 0]
    names = ActionNames(codes, ["stay", "left", "right"])
    return MDP(transitions=Transitions(S, 3, indptr, t.indices[keep], t.data[keep]),
               R=np.where(mask, 1.0, 0.0), mask=mask, horizon=4, action_names=names,
               state_names=[f"room {i}" for i in range(S)])


@pytest.mark.parametrize("make", [lambda: sparse_random_mdp(3000, 4, 3, 5, seed=1), _ragged])
def test_opening_makes_no_lists_and_to_mdp_matches_the_spelled_out_model(make) -> None:
    mdp = make()
    m = MdpModel.from_mdp(mdp)
    assert not any(name in m.__dict__ for name in _LAZY)
    back = m.to_mdp()
    assert m.is_valid and not any(name in m.__dict__ for name in _LAZY)
    ref = _spelled_out(m).to_mdp()
    assert back == ref
    assert back.action_names.vocabulary == ref.action_names.vocabulary
    assert np.array_equal(back.action_names.codes, ref.action_names.codes)
    assert list(back.state_names) == list(ref.state_names)
    assert back.transitions.equal(ref.transitions) and np.array_equal(back.mask, ref.mask)
    assert m.summary() == _spelled_out(m).summary()


def test_the_lists_read_later_are_the_ones_from_mdp_made_before() -> None:
    mdp = _ragged()
    m = MdpModel.from_mdp(mdp)
    counts = mdp.mask.sum(axis=1)
    assert m.state_ids == [f"st-{i + 1}" for i in range(mdp.n_states)]
    assert m.state_labels == list(mdp.state_names)
    assert [len(a) for a in m.action_ids] == counts.tolist()
    assert m.action_ids[1] == [f"ac-{int(counts[0]) + k + 1}" for k in range(counts[1])]
    visible = [[n for n, ok in zip(row, mk) if ok]
               for row, mk in zip(mdp.action_names, mdp.mask.tolist())]
    assert m.action_labels == visible


def test_lookups_answer_without_the_lists_and_refuse_what_is_not_an_id() -> None:
    mdp = _ragged()
    m = MdpModel.from_mdp(mdp)
    ref = _spelled_out(m)
    for aid in ("ac-1", "ac-8", f"ac-{int(mdp.mask.sum())}"):
        assert m.action_index(aid) == ref.action_index(aid)
        assert m.label(aid) == ref.label(aid) and m.state_of(aid) == ref.state_of(aid)
        assert m.row(aid) == ref.row(aid)
    assert m.label("st-6") == "room 5" and m.state_index("st-600") == 599
    for bad in ("st-0", "st-01", "st-601", "st-x", 7, "ac-1"):
        with pytest.raises(InputError):
            m.state_index(bad)  # type: ignore[arg-type]
    for bad in ("ac-0", f"ac-{int(mdp.mask.sum()) + 1}", "st-1", "ac-+1"):
        with pytest.raises(InputError):
            m.action_index(bad)
    assert not any(name in m.__dict__ for name in _LAZY)


def test_edits_after_opening_reach_the_mdp_and_undo_restores_it() -> None:
    mdp = sparse_random_mdp(2000, 3, 3, 4, seed=3)
    m = MdpModel.from_mdp(mdp)
    before = m.copy()
    m.set_reward("ac-4", 7.5)
    assert m.to_mdp().R[1, 0] == 7.5 and m.to_mdp() != mdp
    m.set_state_label("st-2", "renamed")
    assert m.to_mdp().state_names[1] == "renamed" and "state_labels" in m.__dict__
    m.restore(before)
    again = m.to_mdp()
    assert again == mdp and again.R[1, 0] == mdp.R[1, 0]
    assert m.state_labels == list(mdp.state_names)  # the snapshot's lists, not the edited


@pytest.mark.parametrize("names, message", [
    (["go", "", "stay", "wait"], "the action has no name"),
    (["go", "go", "stay", "wait"], "has two actions with the same name"),
])
def test_bad_action_names_are_found_on_the_codes(names, message) -> None:
    base = sparse_random_mdp(800, 3, 3, 4, seed=4)
    codes = np.tile(np.array([0, 2, 3], dtype=np.int32), (800, 1))
    codes[17] = [0, 1, 2]  # only state 17 (id st-18) has the bad name
    mdp = base.replace(action_names=ActionNames(codes, names))
    m = MdpModel.from_mdp(mdp)
    problems = m.errors()
    ref = _spelled_out(m).errors()
    assert [p.message for p in problems] == [p.message for p in ref]
    assert message in problems[0].message and problems[0].state == "st-18"
    with pytest.raises(InputError, match=message):
        m.to_mdp()


def test_an_empty_state_name_is_still_refused() -> None:
    names = [f"s{i}" for i in range(700)]
    names[3] = " "
    mdp = sparse_random_mdp(700, 2, 3, 4, seed=6).replace(state_names=Names(names))
    m = MdpModel.from_mdp(mdp)
    assert m.errors()[0].message == "state 'st-4' has an empty name"


@pytest.mark.parametrize("where, value, message", [
    (5, 600, "next states must lie in [0, 600)"),  # inside a row: the rows are not sorted
    (-1, 600, "next states must lie in [0, 600)"),  # the last entry of a sorted row
    (7, -1, "next states must lie in [0, 600)"),
    (1, None, "next states must be sorted and distinct within each row"),  # = entry 0
])
def test_npz_rows_out_of_range_or_order_are_refused_naming_the_array(tmp_path, where, value,
                                                                      message) -> None:
    from core.mdp.files import load_mdp, npz_arrays

    arrays = {k: np.array(v, copy=True) for k, v in npz_arrays(
        sparse_random_mdp(600, 2, 3, 4, seed=1)).items()}
    idx = arrays["P_indices"]
    idx[where] = idx[0] if value is None else value
    path = tmp_path / "e.mdp.npz"
    np.savez(path, **arrays)
    with pytest.raises(InputError, match="P_indices") as err:
        load_mdp(path)
    assert str(err.value).endswith(message)
