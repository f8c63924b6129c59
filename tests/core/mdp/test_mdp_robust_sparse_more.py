"""More unit tests of the sparse inner problems (core.mdp.robust_sparse): the CSR greedy
against the dense closed form (:func:`core.mdp.robust.inner_extremes`), the interval step
against an LP over each row's intervals (HiGHS), and the interval hull's hand values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.mdp.robust import inner_extremes
from core.mdp.robust_sparse import csr_extremes, interval_extremes, interval_hull, policy_extremes
from core.mdp.sparse import Transitions


def _csr(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ptr = np.concatenate([[0], np.cumsum((rows > 0).sum(axis=1))]).astype(np.int64)
    r, c = np.nonzero(rows)
    return ptr, c.astype(np.int64), rows[r, c]


def _sparse_rows(seed: int, m: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(m, n)) * (rng.uniform(size=(m, n)) < 0.5)
    u[np.arange(m), rng.integers(n, size=m)] += 0.1
    return u / u.sum(axis=1, keepdims=True)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 6), n=st.integers(1, 9),
       alpha=st.sampled_from([0.0, 0.02, 0.2, 0.7, 1.5]), beta=st.floats(0.001, 0.9),
       per_row=st.booleans())
def test_csr_greedy_equals_the_dense_closed_form(seed: int, m: int, n: int, alpha: float,
                                                 beta: float, per_row: bool) -> None:
    rows = _sparse_rows(seed, m, n)
    rng = np.random.default_rng(seed + 1)
    v_lo, v_hi = rng.normal(size=n), rng.normal(size=n)
    radii = rng.uniform(0, alpha, size=m) if per_row else alpha
    ptr, cols, vals = _csr(rows)
    lo, hi = csr_extremes(ptr, cols, vals, v_lo, v_hi, alpha=radii, beta=beta)
    want_lo = np.empty(m)
    want_hi = np.empty(m)
    for i in range(m):
        a = float(radii[i]) if per_row else alpha
        want_lo[i] = inner_extremes(rows[i:i + 1], v_lo, alpha=a, beta=beta)[0][0]
        want_hi[i] = inner_extremes(rows[i:i + 1], v_hi, alpha=a, beta=beta)[1][0]
    assert np.abs(lo - want_lo).max() < 1e-12 * (1 + np.abs(v_lo).max())
    assert np.abs(hi - want_hi).max() < 1e-12 * (1 + np.abs(v_hi).max())


def test_policy_extremes_are_the_csr_extremes_of_the_chosen_rows() -> None:
    S, A = 7, 3
    rng = np.random.default_rng(5)
    P = _sparse_rows(5, S * A, S).reshape(S, A, S)
    t = Transitions.from_dense(P)
    actions = rng.integers(A, size=S)
    v_lo, v_hi = rng.normal(size=S), rng.normal(size=S)
    lo, hi = policy_extremes(t.indptr, t.indices, t.data, A, actions, v_lo, v_hi,
                             alpha=0.1, beta=0.05)
    ptr, cols, vals = _csr(P[np.arange(S), actions])
    want = csr_extremes(ptr, cols, vals, v_lo, v_hi, alpha=0.1, beta=0.05)
    assert np.abs(lo - want[0]).max() < 1e-13 and np.abs(hi - want[1]).max() < 1e-13


def _box_lp(low: np.ndarray, up: np.ndarray, v: np.ndarray, sense: str) -> float:
    from scipy.optimize import linprog

    sign = 1.0 if sense == "min" else -1.0
    res = linprog(sign * v, A_eq=np.ones((1, v.size)), b_eq=[1.0],
                  bounds=list(zip(low, up)), method="highs")
    assert res.status == 0
    return float(sign * res.fun)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 7), width=st.floats(0.0, 0.5))
def test_interval_step_equals_an_lp_over_the_intervals(seed: int, n: int,
                                                       width: float) -> None:
    rows = _sparse_rows(seed, 1, n)
    ptr, cols, vals = _csr(rows)
    low = np.maximum(vals - width, 0.0)
    up = np.minimum(vals + width, 1.0)
    v = np.random.default_rng(seed).normal(size=n)
    lo, hi = interval_extremes(ptr, cols, low, up, v, v)
    vs = v[cols]
    assert lo[0] == pytest.approx(_box_lp(low, up, vs, "min"), abs=1e-9)
    assert hi[0] == pytest.approx(_box_lp(low, up, vs, "max"), abs=1e-9)


def test_interval_step_of_point_intervals_is_the_dot_product() -> None:
    rows = _sparse_rows(3, 5, 6)
    ptr, cols, vals = _csr(rows)
    v = np.linspace(-2, 3, 6)
    lo, hi = interval_extremes(ptr, cols, vals, vals, v, v + 1.0)
    assert np.abs(lo - rows @ v).max() < 1e-12
    assert np.abs(hi - rows @ (v + 1.0)).max() < 1e-12


def test_interval_step_with_whole_unit_intervals_reaches_the_support_extremes() -> None:
    ptr = np.array([0, 3, 4])
    cols = np.array([0, 2, 3, 1])
    v = np.array([5.0, -1.0, 2.0, 9.0])
    lo, hi = interval_extremes(ptr, cols, np.zeros(4), np.ones(4), v, v)
    # only the support counts: row 0 may not reach v[1] = -1
    assert lo.tolist() == [2.0, -1.0] and hi.tolist() == [9.0, -1.0]


def test_interval_hull_hand_values() -> None:
    vals = np.array([0.5, 0.5, 1.0, 0.95, 0.05])
    rows = np.array([0, 0, 1, 2, 2])
    low, up = interval_hull(vals, rows, 0.1, 0.2)
    assert low[:2] == pytest.approx([0.8 * 0.4, 0.8 * 0.4])
    assert up[:2] == pytest.approx([0.2 + 0.8 * 0.6, 0.2 + 0.8 * 0.6])
    assert (low[2], up[2]) == (1.0, 1.0)  # one next state: certain
    assert up[3] == 1.0 and low[4] == 0.0  # clipped at the simplex's ends
    per = interval_hull(vals, rows, np.array([0.0, 0.3, 0.0]), 0.5)
    assert per[0][:2] == pytest.approx([0.25, 0.25]) and per[1][:2] == pytest.approx(
        [0.75, 0.75])


def test_interval_hull_of_no_entries() -> None:
    low, up = interval_hull(np.zeros(0), np.zeros(0, dtype=np.int64), 0.1, 0.1)
    assert low.size == 0 and up.size == 0
