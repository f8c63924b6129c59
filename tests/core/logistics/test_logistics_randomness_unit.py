"""Unit tests of core.logistics.randomness.SecureGenerator.

The generator draws from the OS CSPRNG, so it cannot be seeded: the statistical checks
use enough draws that a chi-square or mean test with a variance-derived tolerance (about
5-6 standard deviations) fails with probability below 1e-7 for a correct generator, while
an off-by-one range or a biased shuffle moves the statistic far past it.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from scipy import stats

from core.logistics.randomness import SecureGenerator


@pytest.fixture
def g() -> SecureGenerator:
    return SecureGenerator()


# ------------------------------------------------------------------ integers
def test_integers_scalar_is_int64_in_range(g):
    for _ in range(200):
        x = g.integers(3, 7)
        assert isinstance(x, np.int64) and 3 <= x < 7
    assert all(0 <= g.integers(5) < 5 for _ in range(100))


def test_integers_shapes(g):
    assert g.integers(0, 10, size=4).shape == (4,)
    a = g.integers(0, 10, size=(2, 3))
    assert a.shape == (2, 3) and a.dtype == np.int64
    assert g.integers(0, 10, size=0).shape == (0,)


def test_integers_one_value_range_is_constant(g):
    assert set(g.integers(5, 6, size=50).tolist()) == {5}


def test_integers_negative_and_huge_bounds(g):
    a = g.integers(-3, -1, size=100)
    assert set(a.tolist()) <= {-3, -2}
    big = g.integers(2**62, 2**62 + 10)
    assert 2**62 <= int(big) < 2**62 + 10


@pytest.mark.parametrize(("low", "high"), [(5, 5), (6, 5), (0, None)])
def test_integers_empty_range_raises(g, low, high):
    with pytest.raises(ValueError):
        g.integers(low, high)


def test_integers_uniform_chi_square(g):
    n, k = 6000, 6
    counts = np.bincount(g.integers(0, k, size=n), minlength=k)
    assert counts.sum() == n and len(counts) == k  # nothing outside [0, k)
    p = stats.chisquare(counts).pvalue
    assert p > 1e-7


# ------------------------------------------------------------------ floats
def test_random_open_unit_interval(g):
    a = g.random(5000)
    assert a.shape == (5000,) and ((a > 0) & (a < 1)).all()
    x = g.random()
    assert isinstance(x, float) and 0 < x < 1


def test_random_mean_within_variance_tolerance(g):
    n = 20000
    a = g.random(n)
    sd = math.sqrt(1 / 12 / n)  # std of the mean of n U(0,1)
    assert abs(a.mean() - 0.5) < 6 * sd
    # and the spread: variance of U(0,1) is 1/12
    assert abs(a.var() - 1 / 12) < 0.01


def test_random_2d_shape(g):
    assert g.random((3, 4)).shape == (3, 4)


def test_uniform_range_and_mean(g):
    n = 10000
    a = g.uniform(2.0, 3.0, size=n)
    assert ((a >= 2.0) & (a < 3.0)).all()
    assert abs(a.mean() - 2.5) < 6 * math.sqrt(1 / 12 / n)
    x = g.uniform(-1.0, 1.0)
    assert -1.0 <= x < 1.0
    assert 0.0 < g.uniform() < 1.0


def test_uniform_reversed_bounds_maps_into_interval(g):
    a = g.uniform(5.0, 1.0, size=100)
    assert ((a > 1.0) & (a <= 5.0)).all()


# ------------------------------------------------------------------ shuffle / permutation
def test_shuffle_in_place_keeps_multiset(g):
    x = list("abcdefgh")
    g.shuffle(x)
    assert sorted(x) == list("abcdefgh")
    arr = np.arange(10)
    g.shuffle(arr)
    assert sorted(arr.tolist()) == list(range(10))


def test_shuffle_empty_and_single(g):
    x: list[int] = []
    g.shuffle(x)
    assert x == []
    y = [7]
    g.shuffle(y)
    assert y == [7]


def test_permutation_all_orders_equally_likely(g):
    """Fisher-Yates must give each of the 3! orders probability 1/6 (chi-square)."""
    n = 3000
    counts = Counter(tuple(g.permutation(3).tolist()) for _ in range(n))
    assert set(counts) == set(permutations(range(3)))
    assert stats.chisquare(list(counts.values())).pvalue > 1e-7


def test_permutation_of_sequence_copies(g):
    src = np.array([10, 20, 30, 40])
    out = g.permutation(src)
    assert sorted(out.tolist()) == [10, 20, 30, 40]
    assert src.tolist() == [10, 20, 30, 40]  # argument untouched
    assert g.permutation(["x"]).tolist() == ["x"]
    assert g.permutation(0).shape == (0,)
    assert g.permutation([]).shape == (0,)


def test_permutation_numpy_integer_argument(g):
    assert sorted(g.permutation(np.int64(4)).tolist()) == [0, 1, 2, 3]


# ------------------------------------------------------------------ choice
def test_choice_without_replacement_is_a_sample(g):
    out = g.choice(10, size=4, replace=False)
    assert out.shape == (4,) and len(set(out.tolist())) == 4
    assert set(out.tolist()) <= set(range(10))
    with pytest.raises(ValueError, match="larger sample"):
        g.choice(3, size=4, replace=False)


def test_choice_scalar_and_pool_values(g):
    x = g.choice(["u", "v"])
    assert x in ("u", "v")
    a = g.choice([5, 6, 7], size=(2, 2))
    assert a.shape == (2, 2) and set(a.ravel().tolist()) <= {5, 6, 7}


def test_choice_with_replacement_uniform(g):
    n = 6000
    counts = np.bincount(g.choice(4, size=n), minlength=4)
    assert len(counts) == 4 and stats.chisquare(counts).pvalue > 1e-7


def test_choice_weighted_follows_p(g):
    n = 8000
    p = np.array([0.1, 0.0, 0.6, 0.3])
    counts = np.bincount(g.choice(4, size=n, p=p), minlength=4)
    assert counts[1] == 0  # zero-probability item never drawn
    keep = p > 0
    assert stats.chisquare(counts[keep], n * p[keep]).pvalue > 1e-7


def test_choice_weighted_unnormalised_weights_are_normalised(g):
    n = 6000
    counts = np.bincount(g.choice(2, size=n, p=[1.0, 3.0]), minlength=2)
    sd = math.sqrt(n * 0.25 * 0.75)
    assert abs(counts[1] - 0.75 * n) < 6 * sd


def test_choice_weighted_without_replacement_not_supported(g):
    with pytest.raises(NotImplementedError):
        g.choice(3, size=2, replace=False, p=[0.2, 0.3, 0.5])


def test_two_generators_are_not_in_lockstep():
    """No hidden shared seed: two generators disagree on a long draw."""
    a = SecureGenerator().integers(0, 2**62, size=8)
    b = SecureGenerator().integers(0, 2**62, size=8)
    assert a.tolist() != b.tolist()
