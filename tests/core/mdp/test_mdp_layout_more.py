"""More unit tests of the automatic drawing layout (core.mdp.layout): spacing, the
orientation promises (initial state on the left, long axis horizontal), the circle of dense
and large models, and filling in only the missing positions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mdp.editable import MdpModel
from core.mdp.layout import DENSE_STATES, auto_layout, default_spacing, fill_missing_positions


def _chain(n: int, *, initial: int = 0, dense: bool = False) -> MdpModel:
    """States s0 … s(n-1); action 'go' of s_i moves to s_(i+1) (the last stays), or to
    every state with equal probability when ``dense``."""
    m = MdpModel()
    ids = [m.add_state(f"s{i}") for i in range(n)]
    for i, sid in enumerate(ids):
        row = {t: 1.0 / n for t in ids} if dense else {ids[min(i + 1, n - 1)]: 1.0}
        m.add_action(sid, "go", row=row)
    m.initial_state = ids[initial]
    return m


def _nearest(pos: np.ndarray) -> np.ndarray:
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


@pytest.mark.parametrize("n, spacing", [
    (0, 300.0), (1, 300.0), (6, 300.0), (7, 304.0), (10, 280.0), (16, 232.0), (17, 230.0),
    (DENSE_STATES, 230.0), (DENSE_STATES + 1, 90.0), (10**6, 90.0),
])
def test_default_spacing(n: int, spacing: float) -> None:
    assert default_spacing(n) == spacing


def test_empty_and_one_state_models() -> None:
    assert auto_layout(MdpModel()).shape == (0, 2)
    one = _chain(1)
    assert auto_layout(one).tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("n", [2, 3])
def test_tiny_models_put_the_initial_state_on_the_left(n: int) -> None:
    pos = auto_layout(_chain(n), spacing=100.0)
    assert pos.shape == (n, 2)
    assert pos[0, 0] == pos[:, 0].min() and pos[0, 0] < 0
    assert np.median(_nearest(pos)) == pytest.approx(100.0, abs=0.2)
    assert np.abs(pos.mean(axis=0)).max() < 0.2  # centred (up to the rounding to 0.1)


@pytest.mark.parametrize("n, initial", [(5, 0), (7, 6)])
def test_sparse_chains_are_horizontal_with_the_initial_state_left(n: int,
                                                                  initial: int) -> None:
    pos = auto_layout(_chain(n, initial=initial), spacing=150.0)
    assert np.isfinite(pos).all()
    assert np.median(_nearest(pos)) == pytest.approx(150.0, rel=1e-3)
    var = pos.var(axis=0)
    assert var[0] >= var[1]  # the long axis is horizontal
    assert pos[initial, 0] <= 0.0
    assert (pos == np.round(pos, 1)).all()


def test_dense_models_sit_on_a_circle() -> None:
    pos = auto_layout(_chain(6, dense=True), spacing=200.0)
    r = np.hypot(pos[:, 0], pos[:, 1])
    assert r.max() - r.min() < 0.5  # one radius (rounding to 0.1 aside)
    # six points evenly on a circle: neighbours one radius apart
    assert np.median(_nearest(pos)) == pytest.approx(200.0, abs=0.2)
    assert r.mean() == pytest.approx(200.0, abs=0.5)


def test_large_models_use_a_circle_and_the_default_spacing() -> None:
    n = DENSE_STATES + 5
    pos = auto_layout(_chain(n))
    r = np.hypot(pos[:, 0], pos[:, 1])
    assert r.max() - r.min() < 0.5
    assert np.median(_nearest(pos)) == pytest.approx(default_spacing(n), abs=0.2)


def test_models_without_any_transition_still_spread_out() -> None:
    m = MdpModel()
    for i in range(5):
        m.add_state(f"lonely {i}")
    pos = auto_layout(m, spacing=50.0)
    assert _nearest(pos).min() > 0
    assert np.median(_nearest(pos)) == pytest.approx(50.0, abs=0.2)


def test_auto_layout_is_deterministic() -> None:
    m = _chain(5)
    assert np.array_equal(auto_layout(m), auto_layout(m))


def test_fill_missing_keeps_every_given_position() -> None:
    m = _chain(4)
    m.positions = np.array([[0.0, 0.0], [10.0, 5.0], [20.0, 0.0], [-3.0, 1e6]])
    assert np.array_equal(fill_missing_positions(m), m.positions)


def test_fill_missing_places_new_states_in_rows_below() -> None:
    m = _chain(7)
    m.positions = np.array([[0.0, 0.0], [100.0, 40.0]] + [[np.nan, np.nan]] * 5)
    pos = fill_missing_positions(m, spacing=10.0)
    assert pos[:2].tolist() == [[0.0, 0.0], [100.0, 40.0]]
    new = pos[2:]
    # five new states: rows of ceil(sqrt(5)) = 3, starting one spacing below the lowest row
    expected = [[0.0 + 10.0 * (k % 3), 50.0 + 10.0 * (k // 3)] for k in range(5)]
    assert new.tolist() == expected
    assert len({tuple(p) for p in pos.tolist()}) == 7


def test_fill_missing_with_no_position_is_the_auto_layout() -> None:
    m = _chain(5, dense=True)
    m.positions = np.full((5, 2), np.nan)
    assert np.array_equal(fill_missing_positions(m, spacing=80.0), auto_layout(m, spacing=80.0))
    m.positions = np.zeros((0, 2))  # wrong length: treated as none given
    assert np.array_equal(fill_missing_positions(m, spacing=80.0), auto_layout(m, spacing=80.0))


def test_a_half_given_position_counts_as_missing() -> None:
    m = _chain(3)
    m.positions = np.array([[0.0, 0.0], [5.0, np.nan], [np.inf, 1.0]])
    pos = fill_missing_positions(m, spacing=7.0)
    assert np.isfinite(pos).all()
    assert pos[0].tolist() == [0.0, 0.0]
    assert pos[1].tolist() == [0.0, 7.0] and pos[2].tolist() == [7.0, 7.0]
    assert math.isfinite(float(pos.sum()))
