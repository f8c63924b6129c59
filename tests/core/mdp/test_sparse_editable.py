"""A large editable model keeps sparse rows: edits, validation, structure changes, files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.editable import MdpModel
from core.mdp.examples import four_startups, sparse_random_mdp
from core.mdp.rows import SparseRows
from core.project.files import load_project, save_project
from core.project.model import Project


@pytest.fixture
def big() -> MdpModel:
    return MdpModel.from_mdp(sparse_random_mdp(3000, 3, 4, 3, seed=2))


def test_from_mdp_shares_the_rows_and_round_trips(big: MdpModel) -> None:
    m = sparse_random_mdp(3000, 3, 4, 3, seed=2)
    assert MdpModel.from_mdp(m).P.base is m.transitions  # the rows are shared, not copied
    assert big.is_sparse
    back = big.to_mdp()
    assert back.transitions.equal(m.transitions) and np.array_equal(back.R, m.R)
    assert big.nnz == m.nnz and big.is_valid
    assert big.digest() == big.copy().digest()


def test_edits_on_sparse_rows_match_a_dense_model(big: MdpModel) -> None:
    dense = big.copy()
    dense.P = big.P.base.to_dense()  # the same model with a dense array
    aid = big.action_ids[5][1]
    tgt = big.state_ids[7]
    for m in (big, dense):
        m.set_probability(aid, tgt, 0.25)
    s, j = big.action_index(aid)
    assert big.P[s, j, 7] == 0.25 and big.row(aid)[tgt] == 0.25
    problems = big.problems()
    assert [p.message for p in problems] == [p.message for p in dense.problems()]
    assert "sum to" in problems[0].message and problems[0].action == aid
    for m in (big, dense):
        m.normalise_row(aid)
    assert abs(big.row_sums()[s, j] - 1) < 1e-12 and big.is_valid
    assert np.array_equal(dense.P, big.dense_P())


def test_structure_edits_on_sparse_rows(big: MdpModel) -> None:
    ref = big.dense_P()
    sid = big.state_ids[10]
    big.remove_state(sid)
    keep = [i for i in range(3000) if i != 10]
    assert np.array_equal(big.dense_P(), ref[keep][:, :, keep])
    new = big.add_state("fresh")
    a = big.add_action(new, "stay", row={new: 1.0})
    assert big.dense_P()[-1, 0, -1] == 1.0 and big.row(a) == {new: 1.0}
    before = big.dense_P()
    big.remove_action(big.action_ids[0][0])
    assert len(big.action_ids[0]) == 2
    assert np.array_equal(big.dense_P()[0, :2], before[0, 1:3])
    assert big.P.shape == (3000, 3, 3000)


def test_problems_of_a_large_model_are_found_without_visiting_every_row(big: MdpModel) -> None:
    aid = big.action_ids[2999][2]
    s, j = big.action_index(aid)
    big.P[s, j, 0] = float("nan")
    big.set_state_label(big.state_ids[3], "")
    msgs = [p.message for p in big.problems()]
    assert any("empty name" in m for m in msgs)
    assert any(f"action {big.action_labels[s][j]!r}: a probability is not finite" in m
               for m in msgs)
    with pytest.raises(InputError):
        big.to_mdp()


@pytest.mark.parametrize("states, sidecar", [(5000, True), (3000, False)])
def test_a_project_keeps_a_large_model_sparse(states: int, sidecar: bool,
                                              tmp_path: Path) -> None:
    """More than 50,000 transitions: a sparse sidecar; fewer: inline, read back sparse."""
    big = MdpModel.from_mdp(sparse_random_mdp(states, 3, 4, 3, seed=2))
    p = Project(name="scale")
    p.add_mdp(big)
    p.add_mdp(four_startups())
    path = tmp_path / "p.privplan.json"
    save_project(p, path)
    sidecars = list(tmp_path.glob("*.npz"))  # content-addressed: arrays.<digest>.npz
    assert len(sidecars) == int(sidecar)
    if sidecar:
        with np.load(sidecars[0]) as z:
            assert "P" not in z.files and "P_data" in z.files
    back = load_project(path)
    model = back.mdps[0].model
    assert isinstance(model.P, SparseRows)
    assert model.to_mdp().transitions.equal(big.to_mdp().transitions)
    assert back.mdps[1].model.P.shape == (3, 4, 3) and not back.mdps[1].model.is_sparse
