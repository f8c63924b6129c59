"""core.audit.stats, cross-checked: the F3 bound against its two inequalities, ε_lb against
scipy's beta quantiles, the discrete δ(ε) and ε_tight against a brute-force loop and known
closed forms (randomised response), the ROC against an enumeration of rejection sets, the
Monte-Carlo δ(ε) against the exact Gaussian profile with a variance-derived tolerance, and the
display thinning's promises."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from core.audit.stats import (
    bisect_epsilon,
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

# ------------------------------------------------------------------ F3
_rate = st.floats(min_value=1e-6, max_value=1.0, allow_nan=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rate, _rate, st.floats(min_value=0.0, max_value=0.5))
def test_f3_is_the_smallest_epsilon_both_inequalities_allow(a: float, b: float,
                                                            delta: float) -> None:
    """With ε = f3(α, β, δ) both 1 − β ≤ e^ε α + δ and 1 − α ≤ e^ε β + δ hold, and when ε > 0
    one of them is tight (any smaller ε breaks it)."""
    eps = f3_epsilon(a, b, delta)
    assert eps >= 0.0
    e = math.exp(eps)
    assert 1 - b <= e * a + delta + 1e-9
    assert 1 - a <= e * b + delta + 1e-9
    if eps > 1e-9:
        smaller = math.exp(eps * (1 - 1e-6) - 1e-12)
        assert (1 - b > smaller * a + delta) or (1 - a > smaller * b + delta)


def test_f3_is_symmetric_and_vectorised() -> None:
    a = np.array([0.01, 0.1, 0.3, 0.5])
    b = np.array([0.2, 0.05, 0.3, 0.6])
    v = f3_epsilon(a, b, 1e-3)
    assert isinstance(v, np.ndarray) and v.shape == (4,)
    assert np.array_equal(v, f3_epsilon(b, a, 1e-3))
    for i in range(4):
        assert v[i] == f3_epsilon(float(a[i]), float(b[i]), 1e-3)
    assert isinstance(f3_epsilon(0.1, 0.2, 0.0), float)


def test_f3_edges_zero_rates_and_powerless_tests() -> None:
    assert f3_epsilon(0.0, 0.5, 0.0) == math.inf  # perfect test, positive power
    assert f3_epsilon(0.0, 1.0, 0.0) == 0.0        # rejects nothing: no evidence
    assert f3_epsilon(0.6, 0.6, 0.0) == 0.0        # worse than chance: floored at 0
    assert f3_epsilon(0.1, 0.2, 0.95) == 0.0       # δ covers everything
    assert f3_epsilon(1.0, 1.0, 0.0) == 0.0


def test_f3_falls_as_delta_grows() -> None:
    vals = [f3_epsilon(0.05, 0.1, d) for d in (0.0, 0.01, 0.1, 0.5, 0.9)]
    assert all(x >= y for x, y in zip(vals, vals[1:]))
    assert vals[0] > vals[-1] == 0.0


# ------------------------------------------------------------------ ε_lb
@pytest.mark.parametrize("fp,n_neg,fn,n_pos,conf", [(0, 500, 0, 500, 0.95),
                                                    (3, 1000, 50, 1000, 0.9),
                                                    (20, 200, 20, 200, 0.99)])
def test_epsilon_lb_uses_one_sided_limits_at_half_the_miss(fp: int, n_neg: int, fn: int,
                                                           n_pos: int, conf: float) -> None:
    level = 1 - (1 - conf) / 2
    au = sps.beta.ppf(level, fp + 1, n_neg - fp)
    bu = sps.beta.ppf(level, fn + 1, n_pos - fn)
    want = max(math.log((1 - bu) / au), math.log((1 - au) / bu), 0.0)
    assert float(epsilon_lb(fp, n_neg, fn, n_pos, 0.0, conf)) == pytest.approx(want,
                                                                               rel=1e-10)


def test_epsilon_lb_is_below_the_point_estimate_and_rises_with_samples() -> None:
    point = f3_epsilon(0.02, 0.3, 0.0)
    lbs = [float(epsilon_lb(0.02 * n, n, 0.3 * n, n, 0.0, 0.95)) for n in (100, 1000, 10_000)]
    assert all(lb < point for lb in lbs)
    assert lbs == sorted(lbs)
    gaps = [point - lb for lb in lbs]
    # the limits' width shrinks like 1/sqrt(n): the gap at 100x the samples is well under half
    assert gaps[2] < 0.5 * gaps[0]


def test_epsilon_lb_falls_as_confidence_rises() -> None:
    lbs = [float(epsilon_lb(5, 1000, 100, 1000, 0.0, c)) for c in (0.5, 0.9, 0.99, 0.999)]
    assert lbs == sorted(lbs, reverse=True)


def test_epsilon_lb_holds_with_its_confidence_for_randomised_response() -> None:
    """Randomised response at ε = 1: each side answers truthfully with e/(1+e). Over many
    seeded audits of 300 samples per side, ε_lb ≤ 1 in at least 95 % of them (checked to the
    binomial sd of 400 trials)."""
    rng = np.random.default_rng(2026)
    p_true = math.e / (1 + math.e)
    trials, n = 400, 300
    fp = rng.binomial(n, 1 - p_true, size=trials)  # the test says "b" on a's samples
    fn = rng.binomial(n, 1 - p_true, size=trials)
    lbs = np.asarray(epsilon_lb(fp, n, fn, n, 0.0, 0.95))
    covered = float(np.mean(lbs <= 1.0))
    assert covered >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / trials)
    assert float(np.median(lbs)) > 0.5  # and it is not vacuous


# ------------------------------------------------------------------ projected ε_lb
def test_projected_lb_picks_the_best_point_and_says_which() -> None:
    fpr = np.array([0.0, 0.01, 0.2, 0.5, 1.0])
    tpr = np.array([0.0, 0.3, 0.7, 0.9, 1.0])
    val, i = projected_epsilon_lb(fpr, tpr, 1000, 0.0, 0.95)
    each = [float(epsilon_lb(f * 1000, 1000, (1 - t) * 1000, 1000, 0.0, 0.95))
            for f, t in zip(fpr, tpr)]
    assert i == int(np.argmax(each)) and val == pytest.approx(max(each))
    assert projected_epsilon_lb(np.array([]), np.array([]), 100, 0.0, 0.95) == (0.0, -1)


# ------------------------------------------------------------------ bisection
def test_bisect_finds_the_crossing_of_a_known_curve() -> None:
    # δ(ε) = e^{−ε}: δ = 0.01 is reached at ε = ln 100
    eps = bisect_epsilon(lambda e: math.exp(-e), 0.01, tol=1e-12)
    assert eps == pytest.approx(math.log(100), abs=1e-9)
    assert math.exp(-eps) <= 0.01


def test_bisect_edges() -> None:
    assert bisect_epsilon(lambda e: 0.5, 0.5) == 0.0  # already met at 0
    assert bisect_epsilon(lambda e: 0.5, 0.1) == math.inf  # never met
    assert bisect_epsilon(lambda e: 1.0 if e < 5000 else 0.0, 0.1, max_hi=1e3) == math.inf
    step = bisect_epsilon(lambda e: 1.0 if e < 3.0 else 0.0, 0.1, tol=1e-12)
    assert step == pytest.approx(3.0, abs=1e-9) and step >= 3.0


# ------------------------------------------------------------------ discrete profiles
def _brute_delta(p: dict, q: dict, eps: float) -> float:
    def scaled(x: float) -> float:  # e^ε·x without overflowing where the product is finite
        return 0.0 if x == 0.0 else math.exp(min(eps + math.log(x), 700.0))

    keys = set(p) | set(q)
    d1 = sum(max(0.0, p.get(k, 0.0) - scaled(q.get(k, 0.0))) for k in keys)
    d2 = sum(max(0.0, q.get(k, 0.0) - scaled(p.get(k, 0.0))) for k in keys)
    return max(d1, d2)


_dist = st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=2, max_size=6).map(
    lambda w: w if sum(w) > 1e-3 else [1.0, *w])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dist, _dist, st.floats(min_value=0.0, max_value=5.0))
def test_discrete_delta_matches_a_brute_force_sum(wp: list, wq: list, eps: float) -> None:
    p = {i: w / sum(wp) for i, w in enumerate(wp)}
    q = {i: w / sum(wq) for i, w in enumerate(wq)}
    assert discrete_delta(p, q, eps) == pytest.approx(_brute_delta(p, q, eps), abs=1e-12)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.5])
def test_randomised_response_is_pure_dp_at_its_epsilon(eps: float) -> None:
    t = math.exp(eps) / (1 + math.exp(eps))
    p, q = {"yes": t, "no": 1 - t}, {"yes": 1 - t, "no": t}
    assert discrete_epsilon_tight(p, q, 0.0) == pytest.approx(eps, abs=1e-8)
    assert discrete_delta(p, q, eps) == pytest.approx(0.0, abs=1e-12)
    # at ε = 0 the δ is the total variation distance
    assert discrete_delta(p, q, 0.0) == pytest.approx(2 * t - 1)


def test_disjoint_supports_are_unbounded_and_identical_ones_free() -> None:
    assert discrete_epsilon_tight({0: 1.0}, {1: 1.0}, 0.5) == math.inf
    assert discrete_epsilon_tight({0: 0.9, 1: 0.1}, {0: 1.0}, 0.05) == math.inf
    # ... unless δ covers the uncovered mass
    assert discrete_epsilon_tight({0: 0.9, 1: 0.1}, {0: 1.0}, 0.1) < math.inf
    same = {"a": 0.2, "b": 0.8}
    assert discrete_epsilon_tight(same, dict(same), 0.0) == 0.0
    assert discrete_delta(same, same, 0.0) == 0.0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dist, _dist, st.floats(min_value=0.0, max_value=0.3))
def test_epsilon_tight_is_the_smallest_epsilon_meeting_delta(wp: list, wq: list,
                                                             delta: float) -> None:
    p = {i: w / sum(wp) for i, w in enumerate(wp)}
    q = {i: w / sum(wq) for i, w in enumerate(wq)}
    eps = discrete_epsilon_tight(p, q, delta)
    if math.isinf(eps):
        assert _brute_delta(p, q, 50.0) > delta
    else:
        assert _brute_delta(p, q, eps) <= delta + 1e-9
        if eps > 1e-6:
            assert _brute_delta(p, q, eps * (1 - 1e-4)) > delta - 1e-12


def test_outcome_keys_of_any_type_align() -> None:
    p = {("x", 1): 0.5, None: 0.5}
    q = {None: 0.25, ("x", 1): 0.75}
    assert discrete_delta(p, q, 0.0) == pytest.approx(0.25)
    assert discrete_epsilon_tight(p, q, 0.0) == pytest.approx(math.log(2), abs=1e-8)


# ------------------------------------------------------------------ ROC
def test_discrete_roc_is_the_upper_envelope_of_all_rejection_sets() -> None:
    """Every deterministic test's (FPR, TPR) lies on or below the Neyman–Pearson ROC's
    piecewise-linear curve (brute force over the 2^4 rejection sets)."""
    p = {0: 0.4, 1: 0.3, 2: 0.2, 3: 0.1}
    q = {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4}
    fpr, tpr = discrete_roc(p, q)
    assert fpr[0] == tpr[0] == 0.0 and fpr[-1] == pytest.approx(1.0)
    assert tpr[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    for mask in range(16):
        s = [k for k in range(4) if mask >> k & 1]
        a, b = sum(p[k] for k in s), sum(q[k] for k in s)
        assert b <= np.interp(a, fpr, tpr) + 1e-12


def test_discrete_roc_puts_outcomes_only_q_can_give_first() -> None:
    fpr, tpr = discrete_roc({0: 0.5, 1: 0.5}, {0: 0.5, 2: 0.5})
    assert (fpr[1], tpr[1]) == (0.0, 0.5)  # outcome 2 rejects with no false positive
    assert tpr[-1] == pytest.approx(1.0) and fpr[-1] == pytest.approx(1.0)


# ------------------------------------------------------------------ Monte Carlo
def test_mc_delta_matches_the_exact_gaussian_profile_within_its_error() -> None:
    """N(0, 1) against N(μ, 1): L = μx − μ²/2 style loss; exact δ(ε) from the analytic
    Gaussian profile with Δ/σ = μ."""
    mu, eps, n = 1.0, 0.5, 40_000
    rng = np.random.default_rng(7)
    xa, xb = rng.normal(0, 1, n), rng.normal(mu, 1, n)

    def loss(x: np.ndarray) -> np.ndarray:  # ln N(x; 0, 1) − ln N(x; μ, 1)
        return -x * mu + mu * mu / 2

    est, se = mc_delta(loss(xa), loss(xb), eps)
    exact = sps.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * sps.norm.cdf(-mu / 2 - eps / mu)
    assert se > 0 and abs(est - exact) < 4 * se
    tight = mc_epsilon_tight(loss(xa), loss(xb), exact)
    assert tight == pytest.approx(eps, abs=0.1)


def test_mc_delta_of_identical_samples_is_at_most_zero() -> None:
    x = np.random.default_rng(1).normal(size=1000)
    d, se = mc_delta(x, x, 0.0)
    # the two directions of the same sample cancel: P[L > 0] − P[L > 0] = 0
    assert d == pytest.approx(0.0, abs=1e-12) and se >= 0.0


# ------------------------------------------------------------------ display thinning
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=300),
       st.integers(min_value=2, max_value=80))
def test_thin_roc_keeps_its_promises(pts: list, points: int) -> None:
    f = np.array([a for a, _ in pts])
    t = np.array([b for _, b in pts])
    out = thin_roc(f, t, points)
    assert len(out) <= max(points, 2)
    assert out[0] == (0.0, 0.0) and out[-1] == (1.0, 1.0)
    assert out == sorted(out)
    assert all(isinstance(a, float) and isinstance(b, float) for a, b in out)


def test_thin_roc_keeps_a_short_curve_whole() -> None:
    out = thin_roc(np.array([0.5, 0.2]), np.array([0.8, 0.6]))
    assert out == [(0.0, 0.0), (0.2, 0.6), (0.5, 0.8), (1.0, 1.0)]


def test_a_tiny_probability_against_a_large_epsilon_is_not_called_covered() -> None:
    """P(1) = 0.5 against Q(1) = 5e-324: the pair needs ε = ln(0.5) − ln(5e-324) ≈ 743.7 at
    δ = 0. e^ε overflows from ε ≈ 709 on; discrete_delta used to take e^ε·Q(1) as infinite
    there and return ε_tight = 700."""
    p, q = {0: 0.5, 1: 0.5}, {0: 1.0, 1: 5e-324}
    want = math.log(0.5) - math.log(5e-324)
    assert discrete_delta(p, q, 720.0) == pytest.approx(0.5 - math.exp(720.0 + math.log(5e-324)))
    assert discrete_epsilon_tight(p, q, 0.0) == pytest.approx(want, rel=1e-9)
    assert discrete_delta(p, q, want + 1e-6) == 0.0
