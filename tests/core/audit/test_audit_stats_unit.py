"""core.audit.stats against independent computations: brute-force hockey-stick sums, the
randomized-response trade-off (where the F3 bound is tight), the Laplace mechanism's closed
form privacy profile, and Clopper–Pearson coverage simulated with a fixed seed.

The central invariant: no test of any pair of output distributions can certify more than the
pair's tight ε — F3 at every point of the Neyman–Pearson ROC stays at or below
``discrete_epsilon_tight``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats  # noqa: F401 - its ~4 s import is paid at collection, not in one test
from hypothesis import given, settings
from hypothesis import strategies as st

from core.audit.stats import (
    bisect_epsilon,
    cp_upper,
    discrete_delta,
    discrete_epsilon_tight,
    discrete_roc,
    epsilon_lb,
    f3_epsilon,
    mc_delta,
    mc_epsilon_tight,
    projected_epsilon_lb,
    thin_roc,
)


def _rr(eps: float) -> tuple[dict[int, float], dict[int, float]]:
    """Randomized response: the extreme ε-DP pair."""
    p = math.exp(eps) / (1 + math.exp(eps))
    return {0: p, 1: 1 - p}, {0: 1 - p, 1: p}


def _brute_delta(p: dict, q: dict, eps: float) -> float:
    keys = set(p) | set(q)
    d1 = sum(max(0.0, p.get(k, 0.0) - math.exp(eps) * q.get(k, 0.0)) for k in keys)
    d2 = sum(max(0.0, q.get(k, 0.0) - math.exp(eps) * p.get(k, 0.0)) for k in keys)
    return max(d1, d2)


_dist = st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6).map(
    lambda w: {i: x / sum(w) for i, x in enumerate(w)})


# ---------------------------------------------------------------- F3


def test_f3_is_tight_on_randomized_response() -> None:
    for eps in (0.1, 1.0, 3.0):
        a = 1 / (1 + math.exp(eps))  # the optimal test: α = β = 1/(1 + e^ε)
        assert f3_epsilon(a, a, 0.0) == pytest.approx(eps, rel=1e-12)


def test_f3_is_symmetric_and_vectorised() -> None:
    a = np.array([0.05, 0.1, 0.3])
    b = np.array([0.2, 0.4, 0.1])
    assert np.allclose(f3_epsilon(a, b, 0.01), f3_epsilon(b, a, 0.01))
    out = f3_epsilon(a, b, 0.0)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert isinstance(f3_epsilon(0.1, 0.1, 0.0), float)


def test_f3_zero_rate_with_power_is_infinite_and_useless_tests_give_zero() -> None:
    assert f3_epsilon(0.0, 0.5, 0.0) == math.inf
    assert f3_epsilon(0.5, 0.0, 0.0) == math.inf
    assert f3_epsilon(0.0, 1.0, 0.0) == 0.0   # never rejects: no evidence
    assert f3_epsilon(0.6, 0.6, 0.0) == 0.0   # worse than chance
    assert f3_epsilon(0.1, 0.1, 1.0) == 0.0   # δ = 1 allows anything


@settings(max_examples=50)
@given(st.floats(0.001, 0.999), st.floats(0.001, 0.999), st.floats(0.001, 0.2),
       st.floats(0.0, 0.1))
def test_f3_decreases_with_either_error_rate(a: float, b: float, step: float,
                                             d: float) -> None:
    base = f3_epsilon(a, b, d)
    assert f3_epsilon(min(a + step, 1.0), b, d) <= base + 1e-12
    assert f3_epsilon(a, min(b + step, 1.0), d) <= base + 1e-12
    assert base >= 0.0


@settings(max_examples=40)
@given(_dist, st.floats(0.0, 0.05))
def test_no_test_certifies_more_than_the_tight_epsilon(p: dict, delta: float) -> None:
    q = {k: v for k, v in zip(p, reversed(list(p.values())))}
    tight = discrete_epsilon_tight(p, q, delta)
    fpr, tpr = discrete_roc(p, q)
    lbs = np.asarray(f3_epsilon(fpr, 1.0 - tpr, delta))
    finite = lbs[np.isfinite(lbs)]
    assert np.all(finite <= tight + 1e-6)


# ---------------------------------------------------------------- Clopper-Pearson, ε_lb


def test_epsilon_lb_is_below_the_point_estimate() -> None:
    fp = np.array([5, 50, 100])
    fn = np.array([80, 20, 100])
    lb = np.asarray(epsilon_lb(fp, 1000, fn, 1000, 0.0, 0.95))
    point = np.asarray(f3_epsilon(fp / 1000, fn / 1000, 0.0))
    assert np.all(lb <= point) and np.all(lb >= 0)


def test_epsilon_lb_grows_with_samples_at_fixed_rates() -> None:
    vals = [float(epsilon_lb(0.05 * n, n, 0.05 * n, n, 0.0, 0.95)) for n in (100, 1000, 10000)]
    assert vals[0] < vals[1] < vals[2] < math.log(0.95 / 0.05)


def test_epsilon_lb_covers_the_truth_on_randomized_response() -> None:
    """Simulated: on an exactly ε-DP mechanism ε_lb exceeds ε in at most 1 − c of the runs
    (the bound is conservative, so much less); 4000 runs, fixed seed, binomial tolerance."""
    eps, n, reps, conf = 1.0, 500, 4000, 0.9
    a = 1 / (1 + math.exp(eps))
    rng = np.random.default_rng(7)
    fp = rng.binomial(n, a, size=reps)
    fn = rng.binomial(n, a, size=reps)
    lb = np.asarray(epsilon_lb(fp, n, fn, n, 0.0, conf))
    miss = float((lb > eps).mean())
    c = 1 - conf
    assert miss <= c + 4 * math.sqrt(c * (1 - c) / reps)
    assert np.median(lb) > 0.5 * eps  # and it has power: not a vacuous bound


def test_cp_upper_full_and_fractional_counts() -> None:
    assert cp_upper(10, 10, 0.95).tolist() == 1.0
    assert cp_upper(11.5, 10, 0.95).tolist() == 1.0
    a, b = float(cp_upper(2.0, 10, 0.95)), float(cp_upper(2.5, 10, 0.95))
    assert 0.2 < a < b < 1.0
    arr = cp_upper(np.array([0, 5, 10]), 10, 0.9)
    assert arr.shape == (3,) and np.all(np.diff(arr) > 0)


def test_projected_epsilon_lb_picks_the_best_point() -> None:
    fpr = np.array([0.0, 0.05, 0.2, 1.0])
    tpr = np.array([0.0, 0.5, 0.9, 1.0])
    val, i = projected_epsilon_lb(fpr, tpr, 2000, 0.0, 0.95)
    each = [float(epsilon_lb(f * 2000, 2000, (1 - t) * 2000, 2000, 0.0, 0.95))
            for f, t in zip(fpr, tpr)]
    assert i == int(np.argmax(each)) and val == pytest.approx(max(each))
    assert projected_epsilon_lb(np.array([]), np.array([]), 10, 0.0, 0.95) == (0.0, -1)


# ---------------------------------------------------------------- discrete profiles


@settings(max_examples=50)
@given(_dist, _dist, st.floats(0.0, 5.0))
def test_discrete_delta_matches_a_brute_force_sum(p: dict, q: dict, eps: float) -> None:
    assert discrete_delta(p, q, eps) == pytest.approx(_brute_delta(p, q, eps), abs=1e-12)


def test_discrete_delta_at_zero_is_total_variation() -> None:
    p = {"a": 0.5, "b": 0.3, "c": 0.2}
    q = {"a": 0.2, "b": 0.3, "d": 0.5}
    tv = 0.5 * sum(abs(p.get(k, 0) - q.get(k, 0)) for k in "abcd")
    assert discrete_delta(p, q, 0.0) == pytest.approx(tv)


def test_discrete_delta_huge_epsilon_leaves_only_unmatched_mass() -> None:
    p = {0: 0.9, 1: 0.1}
    q = {0: 1.0}
    assert discrete_delta(p, q, 800.0) == pytest.approx(0.1)
    assert discrete_delta(q, p, 800.0) == pytest.approx(0.1)


@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0, 6.0])
def test_discrete_epsilon_tight_on_randomized_response_is_epsilon(eps: float) -> None:
    p, q = _rr(eps)
    assert discrete_epsilon_tight(p, q, 0.0) == pytest.approx(eps, abs=1e-8)


@settings(max_examples=40)
@given(_dist, _dist, st.floats(0.0, 0.3))
def test_discrete_epsilon_tight_is_the_smallest_valid_epsilon(p: dict, q: dict,
                                                              delta: float) -> None:
    e = discrete_epsilon_tight(p, q, delta)
    if math.isinf(e):
        assert _brute_delta(p, q, 700.0) > delta
        return
    assert _brute_delta(p, q, e) <= delta + 1e-9
    if e > 1e-6:
        assert _brute_delta(p, q, e - 1e-6) > delta - 1e-12


def test_discrete_epsilon_tight_edge_cases() -> None:
    same = {0: 0.25, 1: 0.75}
    assert discrete_epsilon_tight(same, same, 0.0) == 0.0
    disjoint_p, disjoint_q = {0: 1.0}, {1: 1.0}
    assert discrete_epsilon_tight(disjoint_p, disjoint_q, 0.5) == math.inf
    assert discrete_epsilon_tight(disjoint_p, disjoint_q, 1.0) == 0.0
    # unmatched mass 0.01 covered by δ = 0.02: the rest of the pair decides
    p = {0: 0.49, 1: 0.5, 2: 0.01}
    q = {0: 0.5, 1: 0.5}
    e = discrete_epsilon_tight(p, q, 0.02)
    assert math.isfinite(e) and _brute_delta(p, q, e) <= 0.02 + 1e-9


def test_discrete_roc_is_the_concave_neyman_pearson_curve() -> None:
    p = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}
    q = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.05, "e": 0.05}
    fpr, tpr = discrete_roc(p, q)
    assert (fpr[0], tpr[0]) == (0.0, 0.0)
    assert fpr[-1] == pytest.approx(1.0) and tpr[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    # the outcome only q can produce comes first: power at zero false positives
    assert fpr[1] == 0.0 and tpr[1] == pytest.approx(0.05)
    slopes = np.diff(tpr)[1:] / np.diff(fpr)[1:]
    assert np.all(np.diff(slopes) <= 1e-12)


# ---------------------------------------------------------------- bisection and Monte Carlo


def test_bisect_epsilon_inverts_a_known_curve() -> None:
    assert bisect_epsilon(lambda e: math.exp(-e), 1e-3) == pytest.approx(math.log(1e3),
                                                                         abs=1e-8)
    assert bisect_epsilon(lambda e: 0.01, 0.05) == 0.0
    assert bisect_epsilon(lambda e: 0.5, 0.1, max_hi=100.0) == math.inf


def _laplace_losses(eps0: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """L = ln p_a − ln p_b for Laplace(0, 1) against Laplace(ε0, 1), at draws from each."""
    rng = np.random.default_rng(seed)
    xa = rng.laplace(0.0, 1.0, n)
    xb = rng.laplace(eps0, 1.0, n)

    def loss(x: np.ndarray) -> np.ndarray:
        return np.abs(x - eps0) - np.abs(x)

    return loss(xa), loss(xb)


@pytest.mark.parametrize("eps", [0.0, 0.3, 0.8])
def test_mc_delta_matches_the_laplace_closed_form(eps: float) -> None:
    eps0 = 1.0
    la, lb = _laplace_losses(eps0, 100_000, 3)
    est, se = mc_delta(la, lb, eps)
    exact = 1 - math.exp((eps - eps0) / 2)
    assert se > 0 and abs(est - exact) < 5 * se


def test_mc_epsilon_tight_matches_the_laplace_closed_form() -> None:
    eps0, delta, n = 1.0, 0.05, 100_000
    la, lb = _laplace_losses(eps0, n, 4)
    exact = eps0 + 2 * math.log(1 - delta)
    got = mc_epsilon_tight(la, lb, delta)
    # δ'(ε) = −½ e^{(ε−ε0)/2}: an error of one standard error in δ moves ε by se / |δ'|
    _, se = mc_delta(la, lb, exact)
    slope = 0.5 * math.exp((exact - eps0) / 2)
    assert abs(got - exact) < 5 * se / slope


# ---------------------------------------------------------------- thin_roc


def test_thin_roc_adds_the_corners_and_sorts() -> None:
    pts = thin_roc(np.array([0.5, 0.2]), np.array([0.9, 0.6]))
    assert pts == [(0.0, 0.0), (0.2, 0.6), (0.5, 0.9), (1.0, 1.0)]


def test_thin_roc_keeps_at_most_points_with_both_ends() -> None:
    f = np.linspace(0, 1, 1000)
    pts = thin_roc(f, np.sqrt(f), points=25)
    assert len(pts) <= 25 and pts[0] == (0.0, 0.0) and pts[-1] == (1.0, 1.0)
    assert all(a[0] <= b[0] for a, b in zip(pts, pts[1:]))
    assert all(isinstance(x, float) for pt in pts for x in pt)
