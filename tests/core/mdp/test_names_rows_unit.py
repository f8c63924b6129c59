"""core.mdp.names and core.mdp.rows against the plain structures they stand in for.

:class:`Names` must behave exactly like the tuple of its strings whichever way it stores
them (generated, a tuple, a packed byte buffer); :class:`ActionNames` like the tuple of
rows; :class:`SparseRows`, after any sequence of edits, like the dense (S, A, S) array
given the same edits.
"""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.mdp.names import PACK_AT, ActionNames, Names
from core.mdp.rows import SparseRows, from_sidecar, sidecar_arrays, sidecar_digest_bytes

# ---------------------------------------------------------------- Names


def _packed(items: list[str]) -> Names:
    pad = [f"pad{i}" for i in range(PACK_AT)]
    return Names(items + pad)


_names = st.lists(st.text(max_size=6), max_size=12)


@settings(max_examples=25)
@given(_names)
def test_names_behave_like_their_tuple(items: list[str]) -> None:
    n = Names(items)
    t = tuple(items)
    assert len(n) == len(t) and tuple(n) == t and n == t and n == list(t)
    for i in range(-len(t), len(t)):
        assert n[i] == t[i]
    assert n[::2] == t[::2] and n[1:-1] == t[1:-1] and n[::-1] == t[::-1]
    for s in t:
        assert n.index(s) == t.index(s) and s in n
    assert n.unique() == (len(set(t)) == len(t))
    dup = n.first_duplicate()
    assert (dup is None) == n.unique()
    if dup is not None:
        assert t.count(dup) >= 2


@settings(max_examples=8)
@given(_names)
def test_packed_names_behave_like_their_tuple(items: list[str]) -> None:
    n = _packed(items)
    t = tuple(items) + tuple(f"pad{i}" for i in range(PACK_AT))
    assert n.prefix is None and not n.is_generated
    assert len(n) == len(t) and n == t
    for i in (0, len(items) // 2, len(t) - 1, -1):
        if -len(t) <= i < len(t):
            assert n[i] == t[i]
    for s in items:
        assert n.index(s) == t.index(s)
    assert n.unique() == (len(set(t)) == len(t))
    assert n.nbytes == len("".join(t).encode()) + 8 * (len(t) + 1)


def test_names_out_of_range_and_absent() -> None:
    for n in (Names(["a", "b"]), Names.generated("s", 2), _packed(["a", "b"])):
        with pytest.raises(IndexError):
            n[len(n)]
        with pytest.raises(IndexError):
            n[-len(n) - 1]
        with pytest.raises(ValueError):
            n.index("zzz")
        assert "zzz" not in n and 3 not in n and None not in n


def test_unicode_names_survive_packing_and_pickling() -> None:
    items = ["Zürich", "東京", "ε-δ", "", "😀"]
    for n in (Names(items), _packed(items)):
        assert tuple(n[:5]) == tuple(items)
        back = pickle.loads(pickle.dumps(n))
        assert back == n and len(back) == len(n) and back[1] == "東京"
        assert n.index("😀") == 4 and n.to_array()[:5].tolist() == items


def test_generated_names_are_stored_as_prefix_and_count() -> None:
    n = Names.generated("s", 12)
    assert n.is_generated and n.prefix == "s" and n.nbytes == 0
    assert list(n) == [f"s{i}" for i in range(12)]
    assert n == Names([f"s{i}" for i in range(12)]) and n.is_default() and n.unique()
    assert not n.is_default("t") and n.first_duplicate() is None
    assert repr(n) == "Names.generated('s', 12)"
    assert pickle.loads(pickle.dumps(n)) == n and pickle.loads(pickle.dumps(n)).is_generated


@pytest.mark.parametrize("name", ["s3", "s0", "s11"])
def test_generated_index_finds_names(name: str) -> None:
    assert Names.generated("s", 12).index(name) == int(name[1:])


@pytest.mark.parametrize("name", ["s12", "s03", "s00", "s", "s-1", "s+1", " s1", "s1 ", "t1",
                                  "s\u0663", "s\u00b2", "s\uff13"])
def test_generated_index_refuses_what_is_not_a_name(name: str) -> None:
    """Only the exact spelling prefix + decimal index (ASCII, no leading zero) is a name;
    the spelled-out tuple of the same names agrees on every probe."""
    gen = Names.generated("s", 12)
    spelled = Names([f"s{i}" for i in range(12)])
    with pytest.raises(ValueError, match="is not a name"):
        gen.index(name)
    assert (name in gen) is (name in spelled) is False


def test_generated_names_with_start_stop_fall_back_to_tuple_index() -> None:
    n = Names.generated("a", 6)
    assert n.index("a4", 2) == 4 and n.index("a2", 1, 3) == 2
    with pytest.raises(ValueError):
        n.index("a1", 2)


def test_empty_names() -> None:
    for n in (Names(), Names.generated("s", 0), Names.generated("x", 0)):
        assert len(n) == 0 and list(n) == [] and n == () and n.unique()
        assert n.to_array().shape == (0,) and n.first_duplicate() is None
    assert Names.generated("s", 0) == Names.generated("t", 0)
    assert Names.generated("s", 0).is_default("t")


def test_names_equality_across_storage_kinds() -> None:
    items = [f"s{i}" for i in range(PACK_AT + 3)]
    packed = Names(items)
    gen = Names.generated("s", PACK_AT + 3)
    assert packed == gen and gen == packed and packed == Names(items)
    other = list(items)
    other[-1] = "changed"
    assert packed != Names(other) and packed != tuple(other)
    assert Names(["a"]) != Names(["a", "b"]) and Names(["a"]) != ("b",)
    assert Names.generated("s", 3) != Names.generated("t", 3)
    assert Names(["a"]).__eq__(42) is NotImplemented


def test_names_are_unhashable_and_of_returns_the_same_object() -> None:
    n = Names(["a"])
    with pytest.raises(TypeError):
        hash(n)
    assert Names.of(n) is n and Names.of(["a"]) == n


def test_names_convert_items_to_strings() -> None:
    assert tuple(Names([1, 2.5, None])) == ("1", "2.5", "None")  # type: ignore[list-item]


def test_names_repr_shows_the_first_four() -> None:
    assert repr(Names(["a", "b"])) == "Names(['a', 'b'] (2))"
    assert repr(Names("abcdef")).endswith(", …] (6))")


# ---------------------------------------------------------------- ActionNames


_rows = st.integers(0, 4).flatmap(lambda w: st.lists(
    st.lists(st.sampled_from(["go", "stay", "left", "ü"]), min_size=w, max_size=w),
    min_size=1, max_size=6))


@settings(max_examples=40)
@given(_rows)
def test_action_names_behave_like_their_rows(rows: list[list[str]]) -> None:
    a = ActionNames.from_rows(rows)
    t = tuple(tuple(r) for r in rows)
    assert len(a) == len(t) and tuple(a) == t and a == t and a == list(t)
    assert a.shape == (len(t), len(t[0]))
    for s, row in enumerate(t):
        assert a[s] == row
        for j, name in enumerate(row):
            assert a.name(s, j) == name
    assert a[1:] == t[1:]
    assert list(a.vocabulary) == list(dict.fromkeys(x for r in t for x in r))
    assert a.shared_row() == (t[0] if len(set(t)) == 1 else None)
    assert pickle.loads(pickle.dumps(a)) == a


def test_action_names_equal_across_vocabulary_orders() -> None:
    a = ActionNames.from_rows([("go", "stay"), ("stay", "go")])
    b = ActionNames(np.array([[1, 0], [0, 1]]), ["stay", "go"])
    assert a == b and b == a
    c = ActionNames(np.array([[1, 1], [0, 1]]), ["stay", "go"])
    assert a != c
    assert a != ActionNames.from_rows([("go", "stay")])
    assert a.__eq__("go") is NotImplemented


def test_action_names_shared_and_generated() -> None:
    g = ActionNames.generated(3, 2)
    assert tuple(g) == (("a0", "a1"),) * 3 and g.shared_row() == ("a0", "a1")
    s = ActionNames.shared(["x", "y", "x"], 2)
    assert s.vocabulary == ("x", "y") and s[1] == ("x", "y", "x")
    assert s.codes.flags.writeable is False
    assert ActionNames.generated(0, 2).shared_row() == ()


def test_action_names_refuse_ragged_rows_and_bad_codes() -> None:
    with pytest.raises(ValueError, match="same number"):
        ActionNames.from_rows([("a", "b"), ("a",)])
    with pytest.raises(ValueError, match=r"\(S, A\)"):
        ActionNames(np.array([0, 1]), ["a", "b"])


def test_action_names_copy_their_codes() -> None:
    codes = np.array([[0, 1]], dtype=np.int64)
    a = ActionNames(codes, ["p", "q"])
    codes[0, 0] = 1
    assert a[0] == ("p", "q")
    with pytest.raises(ValueError):
        a.codes[0, 0] = 1


def test_action_names_of_and_empty_rows() -> None:
    a = ActionNames.of([("a",)])
    assert ActionNames.of(a) is a
    e = ActionNames.from_rows([])
    assert len(e) == 0 and e.shape == (0, 0) and tuple(e) == ()


# ---------------------------------------------------------------- SparseRows


def _random_P(rng: np.random.Generator, S: int, A: int, zeros: float = 0.5) -> np.ndarray:
    u = rng.uniform(size=(S, A, S)) * (rng.uniform(size=(S, A, S)) > zeros)
    u[..., 0] += 1e-3
    return u / u.sum(axis=2, keepdims=True)


def _check_same(rows: SparseRows, P: np.ndarray) -> None:
    assert rows.shape == P.shape and rows.size == P.size and rows.ndim == 3
    assert np.array_equal(rows.dense(), P, equal_nan=True)
    assert np.array_equal(rows.to_transitions().to_dense(), P, equal_nan=True)
    assert rows.nnz == int(np.count_nonzero(P))
    assert np.allclose(rows.row_sums(), P.sum(axis=2), equal_nan=True)
    nonfinite, negative = rows.bad_rows()
    assert np.array_equal(nonfinite, ~np.isfinite(P).all(axis=2))
    assert np.array_equal(negative, (P < 0).any(axis=2))
    S, A, _ = P.shape
    for s in range(S):
        for a in range(A):
            assert np.array_equal(rows[s, a], P[s, a], equal_nan=True)
            cols, vals = rows.row(s, a)
            assert np.all(np.diff(cols) > 0)
            assert np.array_equal(cols, np.flatnonzero(P[s, a]))


_edit = st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(-1, 3),
                  st.sampled_from([0.0, 0.25, 1.0, -0.5, float("nan"), 0.7]))


@settings(max_examples=25)
@given(st.integers(0, 2 ** 31), st.lists(_edit, max_size=12), st.booleans())
def test_sparse_rows_track_a_dense_array_through_edits(seed: int, edits: list[tuple],
                                                       compact_midway: bool) -> None:
    rng = np.random.default_rng(seed)
    P = _random_P(rng, 4, 2)
    rows = SparseRows.from_dense(P)
    for i, (s, a, t, v) in enumerate(edits):
        if t < 0:  # a whole row
            vec = rng.uniform(size=4) * (rng.uniform(size=4) > 0.5)
            vec[rng.integers(4)] = v
            rows[s, a] = vec
            P[s, a] = vec
        else:
            rows[s, a, t] = v
            P[s, a, t] = v
        assert rows[s, a, max(t, 0)] == pytest.approx(P[s, a, max(t, 0)], nan_ok=True)
        if compact_midway and i == len(edits) // 2:
            rows.compact()
            assert rows.edits == {}
    _check_same(rows, P)


def test_sparse_rows_whole_row_assignment_broadcasts_a_scalar() -> None:
    rows = SparseRows.from_dense(np.full((2, 1, 2), 0.5))
    rows[1, 0] = 0.0
    assert rows[1, 0].tolist() == [0.0, 0.0] and rows.nnz == 2
    rows[0, 0] = 0.25
    assert rows[0, 0].tolist() == [0.25, 0.25]


def test_sparse_rows_unedited_to_transitions_is_the_base() -> None:
    rows = SparseRows.from_dense(_random_P(np.random.default_rng(0), 3, 2))
    assert rows.to_transitions() is rows.base
    rows.compact()
    assert rows.edits == {}


def test_sparse_rows_index_errors() -> None:
    rows = SparseRows.from_dense(np.full((2, 1, 2), 0.5))
    for key in [(2, 0), (0, 1), (-1, 0), (0, -1)]:
        with pytest.raises(IndexError, match="outside 2 x 1"):
            rows[key]
        with pytest.raises(IndexError):
            rows[key] = np.zeros(2)
    for bad in [0, (0,), (0, 0, 0, 0), "x"]:
        with pytest.raises(TypeError):
            rows[bad]
        with pytest.raises(TypeError):
            rows[bad] = 1.0


def test_sparse_rows_deepcopy_is_independent() -> None:
    rows = SparseRows.from_dense(np.full((2, 1, 2), 0.5))
    rows[0, 0, 0] = 0.1
    dup = rows.copy()
    dup[0, 0, 0] = 0.9
    dup[1, 0] = np.array([1.0, 0.0])
    assert rows[0, 0, 0] == 0.1 and rows[1, 0].tolist() == [0.5, 0.5]
    assert copy.deepcopy(rows).base is rows.base  # the read-only base is shared


def test_sparse_rows_remap_matches_fancy_indexing() -> None:
    rng = np.random.default_rng(5)
    S, A = 4, 2
    P = _random_P(rng, S, A)
    rows = SparseRows.from_dense(P)
    rows[2, 1, 3] = 0.0
    P[2, 1, 3] = 0.0
    # drop state 1: rows of state 1 go, column 1 goes, states 2, 3 shift down
    keep = np.array([0, 2, 3])
    col_map = np.array([0, -1, 1, 2])
    row_map = np.full(S * A, -1)
    for new_s, old_s in enumerate(keep):
        for a in range(A):
            row_map[old_s * A + a] = new_s * A + a
    out = rows.remap(3, A, row_map, col_map)
    expected = P[keep][:, :, keep]
    assert out.shape == (3, A, 3)
    assert np.allclose(out.dense(), expected)


@pytest.mark.parametrize("sparse", [False, True])
def test_sidecar_round_trip(sparse: bool) -> None:
    P = _random_P(np.random.default_rng(9), 3, 2)
    src: np.ndarray | SparseRows = P
    if sparse:
        rows = SparseRows.from_dense(P)
        rows[0, 1] = np.array([0.0, 0.0, 1.0])
        P = P.copy()
        P[0, 1] = [0.0, 0.0, 1.0]
        src = rows
    buf = io.BytesIO()
    np.savez(buf, **sidecar_arrays(src))
    buf.seek(0)
    with np.load(buf) as z:
        back = from_sidecar(z)
        assert isinstance(back, SparseRows) is sparse
        dense = back.dense() if isinstance(back, SparseRows) else back
    assert np.array_equal(dense, P)
    assert sidecar_digest_bytes(back) == sidecar_digest_bytes(src)


def test_sidecar_digest_tells_models_apart() -> None:
    P = _random_P(np.random.default_rng(1), 2, 1)
    rows = SparseRows.from_dense(P)
    before = b"".join(sidecar_digest_bytes(rows))
    rows[0, 0, 0] = float(P[0, 0, 0]) + 1e-12
    assert b"".join(sidecar_digest_bytes(rows)) != before
    assert sidecar_digest_bytes(P) != sidecar_digest_bytes(P.transpose(0, 1, 2) * 0.5)
