"""core.mdp.sparse: the CSR transition rows every large model keeps, against the dense
(S, A, S) array and plain Python loops.

Checked: the helpers (segment_sum, gather_rows, adopt, uses_dense), construction from dense
and COO input (sorting, dropped zeros, duplicate entries named), the structural checks
(field ``transitions``), every query against the dense array, products against numpy and
scipy, read-only storage and pickling.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.sparse import (
    DENSE_MAX_ENTRIES,
    DENSE_MAX_FULL,
    Transitions,
    adopt,
    gather_rows,
    segment_sum,
    uses_dense,
)

# ---------------------------------------------------------------- helpers


@settings(max_examples=40)
@given(st.lists(st.integers(0, 4), max_size=10), st.integers(0, 2 ** 31))
def test_segment_sum_matches_a_loop(lengths: list[int], seed: int) -> None:
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = np.random.default_rng(seed).normal(size=int(indptr[-1]))
    got = segment_sum(values, indptr)
    want = [values[indptr[i]:indptr[i + 1]].sum() for i in range(len(lengths))]
    assert got.shape == (len(lengths),)
    assert np.allclose(got, want, atol=1e-12)


def test_segment_sum_edge_cases() -> None:
    assert segment_sum(np.zeros(0), np.array([0])).shape == (0,)
    assert segment_sum(np.zeros(0), np.array([0, 0, 0])).tolist() == [0.0, 0.0]
    # empty segments first, in the middle and last
    out = segment_sum(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 2, 2, 3, 3]))
    assert out.tolist() == [0.0, 3.0, 0.0, 4.0, 0.0]
    # integer values sum as floats; NaN stays in its own segment
    assert segment_sum(np.array([1, 2, 3]), np.array([0, 1, 3])).dtype == np.float64
    nan = segment_sum(np.array([1.0, np.nan, 5.0]), np.array([0, 1, 2, 3]))
    assert nan[0] == 1.0 and np.isnan(nan[1]) and nan[2] == 5.0


@settings(max_examples=40)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.data())
def test_gather_rows_matches_concatenated_ranges(lengths: list[int],
                                                 data: st.DataObject) -> None:
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    rows = np.array(data.draw(st.lists(st.integers(0, len(lengths) - 1), max_size=10)),
                    dtype=np.int64)
    pos, ptr = gather_rows(indptr, rows)
    want = [p for r in rows for p in range(indptr[r], indptr[r + 1])]
    assert pos.tolist() == want
    assert ptr.tolist() == [0, *np.cumsum([lengths[r] for r in rows]).tolist()]


def test_adopt_keeps_a_read_only_array_and_copies_anything_else() -> None:
    ro = np.arange(3.0)
    ro.setflags(write=False)
    assert adopt(ro) is ro
    rw = np.arange(3.0)
    out = adopt(rw)
    assert out is not rw and not out.flags.writeable and out.tolist() == [0.0, 1.0, 2.0]
    assert adopt(ro, np.int64).dtype == np.int64
    assert adopt(2.5).shape == () and not adopt(2.5).flags.writeable


def test_uses_dense_thresholds() -> None:
    # entries are S·A·S
    assert uses_dense(512, 1) and not uses_dense(513, 1)   # 512² = 2^18, the edge
    assert uses_dense(256, 4) and not uses_dense(257, 4)   # 256²·4 = 2^18
    big = 20_000  # 4e8 entries > DENSE_MAX_FULL = 2^27: sparse even when full
    assert big * big > DENSE_MAX_FULL and not uses_dense(big, 1, nnz=big * big)
    mid = 4_000  # 1.6e7 entries: dense only when at least half full
    entries = mid * mid
    assert DENSE_MAX_ENTRIES < entries <= DENSE_MAX_FULL
    assert uses_dense(mid, 1, nnz=entries // 2)
    assert not uses_dense(mid, 1, nnz=entries // 2 - 1)
    assert not uses_dense(mid, 1)


# ---------------------------------------------------------------- construction


def _random_P(seed: int, S: int, A: int, zeros: float = 0.6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(S, A, S)) * (rng.uniform(size=(S, A, S)) > zeros)
    u[..., int(rng.integers(S))] += 0.1
    return u / u.sum(axis=2, keepdims=True)


@settings(max_examples=20)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(0, 2 ** 31))
def test_from_dense_round_trips_and_answers_like_the_array(S: int, A: int, seed: int) -> None:
    P = _random_P(seed, S, A)
    t = Transitions.from_dense(P)
    assert t.shape == (S, A, S) and t.n_rows == S * A and t.nnz == np.count_nonzero(P)
    assert np.array_equal(t.to_dense(), P)
    assert np.array_equal(t.support_sizes(), np.count_nonzero(P, axis=2))
    assert np.allclose(t.row_sums(), P.sum(axis=2))
    assert t.row_of_entry().tolist() == [r for r in range(S * A)
                                         for _ in range(np.count_nonzero(P.reshape(-1, S)[r]))]
    for s in range(S):
        for a in range(A):
            cols, vals = t.row(s, a)
            assert cols.tolist() == np.flatnonzero(P[s, a]).tolist()
            assert np.array_equal(vals, P[s, a][cols])
            assert np.array_equal(t.row_dense(s, a), P[s, a])
    v = np.random.default_rng(seed + 1).normal(size=S)
    assert np.allclose(t.dot(v), P @ v)
    actions = np.random.default_rng(seed + 2).integers(A, size=S)
    chosen = P[np.arange(S), actions]
    ptr, cols, vals = t.policy_rows(actions)
    dense_rows = np.zeros((S, S))
    for s in range(S):
        dense_rows[s, cols[ptr[s]:ptr[s + 1]]] = vals[ptr[s]:ptr[s + 1]]
    assert np.array_equal(dense_rows, chosen)
    assert np.allclose(t.policy_matrix(actions).toarray(), chosen)
    assert np.allclose(t.matrix.toarray(), P.reshape(S * A, S))


def test_from_dense_keeps_nan_as_an_entry() -> None:
    P = np.array([[[np.nan, 0.0]], [[0.0, 1.0]]])
    t = Transitions.from_dense(P)
    assert t.nnz == 2 and np.isnan(t.data[0]) and np.isnan(t.row_sums()[0, 0])


def test_storage_is_read_only_with_compact_indices() -> None:
    t = Transitions.from_dense(_random_P(0, 4, 2))
    assert t.indptr.dtype == np.int64 and t.indices.dtype == np.int32
    for arr in (t.indptr, t.indices, t.data):
        with pytest.raises(ValueError):
            arr[0] = 1
    assert t.nbytes == t.indptr.nbytes + t.indices.nbytes + t.data.nbytes
    assert t.dense_nbytes == 8.0 * 4 * 2 * 4


def test_from_coo_sorts_and_drops_zeros() -> None:
    rows = np.array([3, 0, 0, 1, 3])
    cols = np.array([0, 1, 0, 1, 1])
    vals = np.array([0.5, 0.75, 0.25, 0.0, 0.5])
    t = Transitions.from_coo(2, 2, rows, cols, vals)
    assert t.indptr.tolist() == [0, 2, 2, 2, 4]
    assert t.indices.tolist() == [0, 1, 0, 1]
    assert t.data.tolist() == [0.25, 0.75, 0.5, 0.5]
    dense = np.zeros((2, 2, 2))
    dense[0, 0] = [0.25, 0.75]
    dense[1, 1] = [0.5, 0.5]
    assert np.array_equal(t.to_dense(), dense)


def test_from_coo_names_a_duplicate_entry() -> None:
    with pytest.raises(InputError) as info:
        Transitions.from_coo(3, 2, np.array([5, 5]), np.array([2, 2]), np.array([0.5, 0.5]),
                             what="edge")
    assert info.value.field == "transitions"
    assert "edge from state 2, choice 1 to state 2 is given twice" in info.value.problem


def test_a_duplicate_that_is_zero_is_dropped_not_refused() -> None:
    t = Transitions.from_coo(1, 1, np.array([0, 0]), np.array([0, 0]), np.array([1.0, 0.0]))
    assert t.nnz == 1 and t.data.tolist() == [1.0]


def test_from_coo_empty_model() -> None:
    t = Transitions.from_coo(2, 1, np.zeros(0), np.zeros(0), np.zeros(0))
    assert t.nnz == 0 and t.indptr.tolist() == [0, 0, 0]
    assert np.array_equal(t.dot(np.ones(2)), np.zeros((2, 1)))
    assert np.array_equal(t.to_dense(), np.zeros((2, 1, 2)))


@pytest.mark.parametrize("indptr, indices, data, words", [
    ([0, 1], [0], [1.0], "S·A + 1 = 3 entries"),
    ([1, 1, 2], [0], [1.0], "starting at 0"),
    ([0, 1, 2], [0], [1.0, 1.0], "declares 2 entries, but there are 1 columns and 2 values"),
    ([0, 1, 2], [0, 1], [1.0], "1 values"),
])
def test_structural_errors_name_the_transitions(indptr: list[int], indices: list[int],
                                                data: list[float], words: str) -> None:
    with pytest.raises(InputError) as info:
        Transitions(2, 1, np.array(indptr), np.array(indices), np.array(data))
    assert info.value.field == "transitions" and words in info.value.problem


def test_with_data_adopts_the_values_and_keeps_the_structure() -> None:
    t = Transitions.from_dense(_random_P(3, 3, 2))
    new = np.full(t.nnz, 0.5)
    u = t.with_data(new)
    assert u.data is new and not new.flags.writeable
    assert u.indptr is t.indptr and u.indices is t.indices
    assert not u.equal(t) and u.equal(Transitions(3, 2, t.indptr, t.indices, np.full(t.nnz, .5)))
    with pytest.raises(InputError):
        t.with_data(np.ones(t.nnz + 1))


def test_equal_compares_shape_structure_and_values() -> None:
    P = _random_P(4, 3, 2)
    a, b = Transitions.from_dense(P), Transitions.from_dense(P.copy())
    assert a.equal(b)
    Q = P.copy()
    Q[0, 0] = np.roll(Q[0, 0], 1)
    assert not a.equal(Transitions.from_dense(Q))
    assert not a.equal(Transitions.from_dense(P.reshape(3, 2, 3)[:, :1].copy()))


def test_pickling_drops_the_cached_matrix() -> None:
    t = Transitions.from_dense(_random_P(6, 4, 2))
    _ = t.matrix
    assert "matrix" in t._cache
    back = pickle.loads(pickle.dumps(t))
    assert back._cache == {} and back.equal(t)
    v = np.arange(4.0)
    assert np.allclose(back.dot(v), t.dot(v))
    assert t.matrix is t.matrix  # cached
