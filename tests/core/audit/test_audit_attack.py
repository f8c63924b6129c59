"""core.audit.attack: the three-split distinguishing attack is sound (its ε lower bound stays
below the mechanism's true ε) and finds most of a real gap, on continuous and discrete outputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.audit.attack import SPLITS, run_attack, split_sizes


@pytest.mark.parametrize("n", [10, 1000, 40_001])
def test_split_sizes_are_disjoint_and_cover_every_sample(n: int) -> None:
    na, nb, nc = split_sizes(n)
    assert na + nb + nc == n
    assert na == int(n * SPLITS[0]) and nb == int(n * SPLITS[1])
    assert nc >= n // 2  # the evaluation split gets (at least) half
    assert sum(SPLITS) == pytest.approx(1.0)


def test_laplace_shift_lower_bound_is_below_its_epsilon_and_close() -> None:
    # Laplace(0, 1) vs Laplace(1, 1): the pair's privacy loss is exactly ε = 1
    g = np.random.default_rng(4)
    r = run_attack(g.laplace(0, 1, (40_000, 1)), g.laplace(1, 1, (40_000, 1)), delta=0.0,
                   confidence=0.95)
    assert 0.75 < r.epsilon_lb <= 1.0
    assert r.epsilon_point >= r.epsilon_lb  # the point estimate has no confidence correction
    assert r.kind == "continuous" and r.features == "output"
    assert (r.n_fit, r.n_select, r.n_eval) == split_sizes(40_000)
    assert r.fpr <= r.fpr_upper and r.fnr <= r.fnr_upper
    # the ROC is descriptive: rates in [0, 1]
    assert all(0.0 <= f <= 1.0 and 0.0 <= t <= 1.0 for f, t in r.roc)


def test_a_reversed_shift_is_found_with_the_score_turned_round() -> None:
    g = np.random.default_rng(5)
    r = run_attack(g.laplace(1, 1, (20_000, 1)), g.laplace(0, 1, (20_000, 1)), delta=0.0,
                   confidence=0.95)
    assert 0.6 < r.epsilon_lb <= 1.0


def test_identical_distributions_give_no_real_lower_bound() -> None:
    g = np.random.default_rng(6)
    r = run_attack(g.normal(size=(20_000, 3)), g.normal(size=(20_000, 3)), delta=0.0,
                   confidence=0.95)
    assert r.epsilon_lb < 0.05
    assert r.features == "logistic regression"


def test_randomized_response_discrete_bound_is_sound() -> None:
    # randomized response with ε = ln 3: P(report truth) = 3/4
    eps = math.log(3.0)
    g = np.random.default_rng(7)
    n = 30_000
    a = (g.random(n) >= 0.75).astype(np.int64)  # truth 0
    b = (g.random(n) < 0.75).astype(np.int64)  # truth 1
    r = run_attack(a, b, delta=0.0, confidence=0.95)
    assert r.kind == "discrete" and r.features.startswith("empirical likelihood")
    assert 0.8 * eps < r.epsilon_lb <= eps
    assert r.threshold > 0  # reject when the outcome is the one b favours


def test_delta_lowers_the_bound() -> None:
    g = np.random.default_rng(8)
    a, b = g.laplace(0, 1, (20_000, 1)), g.laplace(1, 1, (20_000, 1))
    pure = run_attack(a, b, delta=0.0, confidence=0.95)
    approx = run_attack(a, b, delta=0.05, confidence=0.95)
    assert approx.epsilon_lb < pure.epsilon_lb
