"""Unit tests of core.modelprivacy.data: the sequence view, standardisation, CSV files and their
refusals, the synthetic text task and next-state records of an MDP.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sklearn.datasets  # noqa: F401  (imported at collection: load_dataset's first call)
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.model import MDP
from core.modelprivacy import data
from core.modelprivacy.data import as_sequences, csv_dataset, load_dataset, mdp_dataset


def _write_csv(tmp_path, lines, name="d.csv"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(p)


def _rows(n=40, labels=("a", "b")):
    return [f"{i},{(i * 7) % 5},{labels[i % len(labels)]}" for i in range(n)]


# --- sequence view and standardisation ----------------------------------------------------------

@settings(max_examples=30)
@given(st.integers(min_value=1, max_value=300))
def test_seq_shape_is_the_smallest_near_square_that_holds_d(d):
    steps, feats = data._seq_shape(d)
    assert steps * feats >= d
    assert steps == math.ceil(math.sqrt(d))
    assert steps * (feats - 1) < d        # one column fewer would not fit


@settings(max_examples=30)
@given(st.integers(min_value=1, max_value=5), st.integers(min_value=1, max_value=30))
def test_as_sequences_pads_with_zeros_and_keeps_the_order(n, d):
    X = np.arange(n * d, dtype=float).reshape(n, d) + 1
    shape = data._seq_shape(d)
    seq = as_sequences(X, shape)
    assert seq.shape == (n, *shape)
    flat = seq.reshape(n, -1)
    np.testing.assert_array_equal(flat[:, :d], X)
    assert (flat[:, d:] == 0).all()


def test_standardise_gives_zero_mean_unit_sd_and_leaves_constant_columns_centred():
    X = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [5.0, 5.0, 9.0]])
    Z = data._standardise(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[:, [0, 2]].std(axis=0), 1.0)
    assert (Z[:, 1] == 0).all()


def test_standardise_survives_huge_columns():
    X = np.array([[1e300, 1.0], [-1e300, 2.0], [0.0, 3.0]])
    Z = data._standardise(X)
    assert np.isfinite(Z).all()
    np.testing.assert_allclose(Z[:, 0], [math.sqrt(1.5), -math.sqrt(1.5), 0.0])


# --- CSV files --------------------------------------------------------------------------------

def test_csv_with_a_header_and_text_labels(tmp_path):
    path = _write_csv(tmp_path, ["x,y,label"] + _rows())
    d = csv_dataset(path)
    assert d.n == 40 and d.X.shape == (40, 2) and d.classes == 2
    assert d.name == "d.csv" and "standardised" in d.notes[0]
    # labels a, b alternate and are numbered in sorted order
    np.testing.assert_array_equal(d.y, np.arange(40) % 2)
    np.testing.assert_allclose(d.X.mean(axis=0), 0.0, atol=1e-12)
    assert d.seq_shape == (2, 1)


def test_csv_without_a_header_and_with_blank_lines(tmp_path):
    path = _write_csv(tmp_path, _rows()[:20] + ["", "  ,  "] + _rows()[20:])
    d = csv_dataset(path)
    assert d.n == 40


def test_load_dataset_routes_a_csv_path(tmp_path):
    path = _write_csv(tmp_path, _rows(), name="records.CSV")
    assert load_dataset(path).name == "records.CSV"


@pytest.mark.parametrize("lines, words", [
    ([], "is empty"),
    (["x,y,label"], "has a header and no records"),
    (["label"] + ["a"] * 5, "needs at least one feature column"),
    (["1,2,a", "1,a"] + _rows(), "row 2 has 2 columns, the first has 3"),
    (["1,2,a"] + ["1,zz,b"] + _rows(), "row 2: 'zz' is not a number"),
    (["1,nan,a"] + _rows(), "non-finite feature"),
    (_rows(labels=("a",)), "one class only ('a')"),
    (_rows(n=39), "has 39 records; the lab needs at least 40"),
])
def test_csv_refusals_name_the_file(tmp_path, lines, words):
    path = _write_csv(tmp_path, lines)
    with pytest.raises(InputError) as err:
        csv_dataset(path)
    assert err.value.file == path
    assert words in err.value.problem


def test_csv_that_is_not_utf8_is_refused(tmp_path):
    p = tmp_path / "bin.csv"
    p.write_bytes(b"\xff\xfe\x00\x01,2,a\n")
    with pytest.raises(InputError) as err:
        csv_dataset(str(p))
    assert err.value.file == str(p) and "cannot read" in err.value.problem


def test_unknown_dataset_names_data():
    with pytest.raises(InputError) as err:
        load_dataset("imagenet")
    assert err.value.field == "data" and "digits" in err.value.problem


# --- built-in sets ----------------------------------------------------------------------------

def test_text_dataset_is_one_hot_balanced_and_fixed():
    d = data.text_dataset(records=80, length=6, letters=5, languages=4)
    assert d.X.shape == (80, 30) and d.seq_shape == (6, 5) and d.classes == 4
    seq = as_sequences(d.X, d.seq_shape)
    np.testing.assert_array_equal(seq.sum(axis=2), 1.0)   # one character per step
    np.testing.assert_array_equal(np.bincount(d.y), [20] * 4)
    again = data.text_dataset(records=80, length=6, letters=5, languages=4)
    np.testing.assert_array_equal(d.X, again.X)


def test_text_languages_differ_in_their_letter_frequencies():
    d = data.text_dataset(records=400, length=20, letters=12, languages=4)
    freq = as_sequences(d.X, d.seq_shape).sum(axis=1)          # (n, letters)
    means = np.stack([freq[d.y == c].mean(axis=0) for c in range(4)])
    # a language separated from another by a total-variation gap well above noise
    gaps = [np.abs(means[a] - means[b]).sum() / 20 for a in range(4) for b in range(a + 1, 4)]
    assert min(gaps) > 0.05


def test_wine_is_standardised_and_labelled():
    d = load_dataset("wine")
    assert d.X.shape == (178, 13) and d.classes == 3
    np.testing.assert_allclose(d.X.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(d.X.std(axis=0), 1.0, atol=1e-9)
    assert d.y.min() == 0 and d.y.max() == 2


# --- MDP records ------------------------------------------------------------------------------

def _chain(horizon=None):
    """Three states on a ring: action 0 steps forward, action 1 stays (deterministic)."""
    S, A = 3, 2
    P = np.zeros((S, A, S))
    for s in range(S):
        P[s, 0, (s + 1) % S] = 1.0
        P[s, 1, s] = 1.0
    return MDP(P=P, R=np.zeros((S, A)), horizon=horizon, discount=0.9, initial_state=0,
               name="ring")


def test_mdp_records_are_two_consecutive_steps_and_the_next_state():
    d = mdp_dataset(_chain(), trajectories=20, length=5, seed=1)
    S, A = 3, 2
    assert d.seq_shape == (2, S + A) and d.mdp_dims == (S, A) and d.classes == 3
    assert d.n == 20 * 4 and d.name == "mdp:ring"
    seq = as_sequences(d.X, d.seq_shape)
    for rec, label in zip(seq, d.y):
        s1, a1 = int(rec[1, :S].argmax()), int(rec[1, S:].argmax())
        s0, a0 = int(rec[0, :S].argmax()), int(rec[0, S:].argmax())
        # the deterministic ring: the step after (s0, a0) is s1, after (s1, a1) the label
        assert s1 == ((s0 + 1) % S if a0 == 0 else s0)
        assert label == ((s1 + 1) % S if a1 == 0 else s1)
        np.testing.assert_array_equal(rec.sum(axis=1), [2.0, 2.0])


def test_mdp_records_are_capped_by_the_horizon_and_refuse_a_one_step_one():
    d = mdp_dataset(_chain(horizon=3), trajectories=25, length=8)
    assert d.n == 25 * 2
    with pytest.raises(InputError) as err:
        mdp_dataset(_chain(horizon=1), trajectories=50)
    assert err.value.field == "data"


def test_mdp_records_with_one_next_state_are_refused():
    P = np.zeros((2, 1, 2))
    P[:, 0, 1] = 1.0                   # every step lands on state 1
    mdp = MDP(P=P, R=np.zeros((2, 1)), horizon=None, discount=0.9, initial_state=0)
    with pytest.raises(InputError) as err:
        mdp_dataset(mdp, trajectories=30)
    assert err.value.field == "data" and "one class only" in err.value.problem
