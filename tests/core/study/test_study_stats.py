"""core.study.stats: the intervals have the coverage they state, the paired tests decide in the
direction of the difference, missing replicates are counted, and Holm's adjustment is the
step-down one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from core.study.stats import (
    TESTS,
    clopper_pearson,
    equivalence_test,
    holm,
    median_interval,
    paired_test,
    summarize,
)


# ------------------------------------------------------------------ Clopper–Pearson
@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 40), (1, 1000)])
def test_clopper_pearson_limits_are_the_exact_binomial_tails(k: int, n: int) -> None:
    lo, hi = clopper_pearson(k, n, 0.95)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    # the definition: P(X >= k | lo) = 2.5 % and P(X <= k | hi) = 2.5 % (edges excepted)
    if k > 0:
        assert sps.binom.sf(k - 1, n, lo) == pytest.approx(0.025, rel=1e-6)
    else:
        assert lo == 0.0
    if k < n:
        assert sps.binom.cdf(k, n, hi) == pytest.approx(0.025, rel=1e-6)
    else:
        assert hi == 1.0


def test_clopper_pearson_narrows_with_n_and_widens_with_level() -> None:
    w = [np.subtract(*clopper_pearson(n // 4, n)[::-1]) for n in (20, 80, 320)]
    assert w[0] > w[1] > w[2]
    lo90, hi90 = clopper_pearson(5, 20, 0.90)
    lo99, hi99 = clopper_pearson(5, 20, 0.99)
    assert lo99 < lo90 and hi90 < hi99


@pytest.mark.parametrize("k,n", [(-1, 5), (6, 5), (0, 0)])
def test_clopper_pearson_refuses_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson(k, n)


# ------------------------------------------------------------------ median interval
@pytest.mark.parametrize("n", [6, 10, 25, 60])
def test_median_interval_is_order_statistics_with_at_least_the_level(n: int) -> None:
    x = np.random.default_rng(n).permutation(np.arange(1.0, n + 1))
    lo, hi = median_interval(x, 0.95)
    j = int(lo)  # the values are 1..n, so the limits are their own ranks
    assert hi == n - j + 1
    cover = 1 - 2 * sps.binom.cdf(j - 1, n, 0.5)
    assert cover >= 0.95
    # and it is the narrowest such: one rank further in falls below the level
    assert 1 - 2 * sps.binom.cdf(j, n, 0.5) < 0.95


def test_median_interval_coverage_on_simulated_samples() -> None:
    # 2,000 samples of 15 exponentials: the interval covers the true median log 2 in at
    # least 95 % of them up to sampling error (3 sd of a binomial proportion: 1.5 %)
    rng = np.random.default_rng(11)
    hits = 0
    trials = 2000
    for _ in range(trials):
        lo, hi = median_interval(rng.exponential(size=15))
        hits += lo <= math.log(2) <= hi
    coverage = hits / trials
    exact = 1 - 2 * sps.binom.cdf(3, 15, 0.5)  # j = 4 for n = 15
    sd = math.sqrt(exact * (1 - exact) / trials)
    assert abs(coverage - exact) < 4 * sd


def test_median_interval_too_few_values_gives_nan() -> None:
    assert all(math.isnan(v) for v in median_interval(np.arange(5.0)))
    assert all(math.isnan(v) for v in median_interval(np.array([])))
    assert median_interval(np.arange(5.0), level=0.9) == (0.0, 4.0)  # 93.75 % >= 90 %


# ------------------------------------------------------------------ summarize
def test_summarize_counts_missing_values_and_ignores_them() -> None:
    x = np.array([1.0, 2.0, np.nan, 3.0, np.inf, 4.0, -np.inf, 5.0, 6.0])
    s = summarize(x)
    assert (s.n, s.n_missing) == (6, 3)
    assert s.median == 3.5 and s.mean == 3.5
    assert s.minimum == 1.0 and s.maximum == 6.0
    assert s.sd == pytest.approx(np.std([1, 2, 3, 4, 5, 6], ddof=1))
    half = sps.t.ppf(0.975, 5) * s.sd / math.sqrt(6)
    assert (s.mean_lo, s.mean_hi) == pytest.approx((3.5 - half, 3.5 + half))
    assert s.interval("mean") == (s.mean, s.mean_lo, s.mean_hi)
    assert math.isnan(s.rate_lo)  # not a 0/1 metric


def test_summarize_all_missing_and_single_value() -> None:
    empty = summarize(np.array([np.nan, np.nan]))
    assert (empty.n, empty.n_missing, empty.median_method) == (0, 2, "none")
    assert math.isnan(empty.mean)
    one = summarize(np.array([4.0]))
    assert one.mean == 4.0 and math.isnan(one.sd) and math.isnan(one.mean_lo)


def test_summarize_constant_values_have_a_point_interval() -> None:
    s = summarize(np.full(10, 2.5))
    assert (s.mean_lo, s.mean_hi) == (2.5, 2.5)
    assert (s.median_lo, s.median_hi) == (2.5, 2.5)


def test_summarize_a_rate_gets_its_clopper_pearson_interval() -> None:
    x = np.array([1.0] * 7 + [0.0] * 13)
    s = summarize(x)
    assert s.mean == pytest.approx(0.35)
    assert (s.rate_lo, s.rate_hi) == clopper_pearson(7, 20)
    assert s.interval("rate") == (s.mean, s.rate_lo, s.rate_hi)
    with pytest.raises(ValueError, match="center"):
        s.interval("mode")


def test_summarize_bootstrap_is_seeded_and_needs_a_generator() -> None:
    x = np.random.default_rng(3).normal(size=40)
    a = summarize(x, bootstrap=500, rng=np.random.default_rng(5))
    b = summarize(x, bootstrap=500, rng=np.random.default_rng(5))
    assert (a.median_lo, a.median_hi) == (b.median_lo, b.median_hi)
    assert a.median_lo < a.median < a.median_hi
    assert a.median_method.startswith("percentile bootstrap (500")
    with pytest.raises(ValueError, match="rng"):
        summarize(x, bootstrap=10)
    flat = summarize(np.ones(5), bootstrap=10, rng=np.random.default_rng(0))
    assert (flat.median_lo, flat.median_hi) == (1.0, 1.0)
    assert summarize(x).to_json()["n"] == 40


# ------------------------------------------------------------------ paired tests
@pytest.mark.parametrize("test", sorted(TESTS))
def test_paired_test_finds_a_shift_in_its_direction(test: str) -> None:
    rng = np.random.default_rng(21)
    base = rng.normal(size=40)
    up = paired_test(base + 0.8, base + rng.normal(0, 0.2, 40), test=test,
                     names=("new", "old"), metric="reward")
    assert up.verdict() == "a > b" and up.named_verdict() == "new > old"
    assert up.p < 1e-4 and up.n == 40 and up.metric == "reward"
    down = paired_test(base, base + 0.8 + rng.normal(0, 0.2, 40), test=test)
    assert down.verdict() == "a < b"
    same = paired_test(base, base.copy(), test=test)
    assert same.verdict() == "no significant difference" and same.p == 1.0


def test_paired_test_p_values_match_scipy() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.3, 1, 25), rng.normal(0, 1, 25)
    d = a - b
    assert paired_test(a, b, test="t").p == pytest.approx(sps.ttest_rel(a, b).pvalue)
    assert paired_test(a, b).p == pytest.approx(sps.wilcoxon(d).pvalue)
    pos = int((d > 0).sum())
    assert paired_test(a, b, test="sign").p == pytest.approx(
        sps.binomtest(pos, 25, 0.5).pvalue)
    assert paired_test(a, b, test="sign").statistic == pos


def test_paired_test_drops_and_counts_incomplete_pairs() -> None:
    a = np.array([1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 7.0])
    b = np.array([0.0, 1.0, 1.0, np.inf, 4.0, 5.0, 6.0])
    c = paired_test(a, b)
    assert (c.n, c.n_dropped, c.n_nonzero) == (5, 2, 5)
    assert c.diff_median == 1.0 and c.diff_mean == 1.0
    nothing = paired_test(np.array([np.nan]), np.array([1.0]))
    assert nothing.n == 0 and math.isnan(nothing.p) and "no replicate" in nothing.note
    assert nothing.verdict() == "no significant difference"


def test_paired_t_with_constant_differences_is_certain() -> None:
    c = paired_test(np.arange(5.0) + 2, np.arange(5.0), test="t")
    assert c.p == 0.0 and c.statistic == math.inf and "same non-zero" in c.note
    assert c.verdict() == "a > b"
    one = paired_test(np.array([1.0]), np.array([0.0]), test="t")
    assert math.isnan(one.p) and "two pairs" in one.note


def test_paired_test_refuses_unknown_tests_and_unpaired_arms() -> None:
    with pytest.raises(ValueError, match="test must be"):
        paired_test(np.ones(3), np.ones(3), test="anova")
    with pytest.raises(ValueError, match="same replicates"):
        paired_test(np.ones(3), np.ones(4))


def test_the_adjusted_p_value_decides_when_there_is_one() -> None:
    from dataclasses import replace

    c = paired_test(np.arange(10.0) + 1, np.arange(10.0) + np.linspace(0, 0.1, 10), test="t")
    assert c.p_used == c.p and c.verdict() == "a > b"
    adjusted = replace(c, p_adjusted=0.2)
    assert adjusted.p_used == 0.2 and adjusted.verdict() == "no significant difference"
    assert adjusted.to_json()["p_adjusted"] == 0.2


# ------------------------------------------------------------------ equivalence (TOST)
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_equivalence_is_shown_only_within_the_margin(test: str) -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(size=60)
    close = equivalence_test(x, x + rng.normal(0, 0.05, 60), 0.1, test=test)
    assert close.verdict() == "equivalent within ±0.1" and close.p < 0.05
    far = equivalence_test(x, x + 0.3 + rng.normal(0, 0.05, 60), 0.1, test=test)
    assert far.verdict() == "equivalence not shown" and far.p > 0.5


def test_equivalence_edge_cases() -> None:
    x = np.arange(10.0)
    # differences exactly constant (halves are exact in binary): no variance, certain
    assert equivalence_test(x, x + 0.5, 1.0).p == 0.0  # inside the margin
    assert equivalence_test(x, x + 2.0, 1.0).p == 1.0  # outside
    assert math.isnan(equivalence_test(x[:1], x[:1], 0.1).p)
    with pytest.raises(ValueError, match="margin"):
        equivalence_test(x, x, 0.0)
    with pytest.raises(ValueError, match="'t' or 'wilcoxon'"):
        equivalence_test(x, x + np.linspace(0, 1, 10), 0.1, test="sign")
    # equal arms: d ± margin all one sign, the exact signed-rank p of 10 pairs is 2^-10
    assert equivalence_test(x, x, 0.1, test="wilcoxon").p == pytest.approx(0.5 ** 10)


# ------------------------------------------------------------------ Holm
def test_holm_is_step_down_and_monotone() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    adj = holm(p)
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, then a running maximum
    assert adj.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)
    assert np.all(adj >= np.asarray(p))


def test_holm_ignores_nan_and_caps_at_one() -> None:
    adj = holm(np.array([0.5, np.nan, 0.6]))
    assert math.isnan(adj[1])
    assert adj[0] == 1.0 and adj[2] == 1.0  # 2 x 0.5 capped; running max
    assert np.all(np.isnan(holm([math.nan, math.nan])))
    assert holm([]).size == 0


@pytest.mark.parametrize("d", [
    [1.0, 1.0, 2.0, -0.5, 0.0, 3.0],                    # a tie and a zero
    [0.5, -0.5, 0.5, 1.0, -1.0, 2.0, 0.0, 0.0, 2.0],    # ties across signs, two zeros
    [0.1, 0.2, 0.2, 0.3, 0.3, 0.3, -0.1, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],  # n = 13, ties
    [-2.0, -2.0, -1.0, -3.0, 0.0],                       # every non-zero difference negative
    [1.0, 2.0, 3.0, -4.0, 5.0],                          # no ties, no zeros: scipy's own path
])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_signed_rank_counts_the_permutation_distribution_scipy_enumerates(d, alternative):
    """The counted null distribution gives scipy's exact permutation p-value (n <= 13 with
    ties or zeros) and its statistic; a wrong midrank, a missing zero or a one-sided tail off
    by one atom would move the p-value by at least 2**-13."""
    from scipy import stats as sps

    from core.study.stats import signed_rank

    x = np.array(d)
    r = sps.wilcoxon(x, zero_method="wilcox", alternative=alternative)
    stat, p = signed_rank(x, alternative)
    assert stat == float(r.statistic)
    assert p == pytest.approx(float(r.pvalue), rel=1e-12, abs=1e-15)
