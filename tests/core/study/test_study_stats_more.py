"""core.study.stats, cross-checked independently: Holm against a brute-force definition, the
median interval's coverage against an enumeration of the binomial, the Student-t and TOST
numbers against scipy's intervals and one-sided tests, the sign test against a direct binomial
sum, and invariants a paired test must have (swapping the arms, shifting both, scaling)."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from core.study.stats import (
    Comparison,
    Equivalence,
    clopper_pearson,
    equivalence_test,
    holm,
    median_interval,
    paired_test,
    signed_rank,
    summarize,
)


# ------------------------------------------------------------------ Holm
def _holm_brute(p: list[float]) -> list[float]:
    """The textbook definition: adj(i) = max over j with p_j <= p_i (in sorted order up to i)
    of min(1, (m − rank_j) p_j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    out = [0.0] * m
    for r, i in enumerate(order):
        out[i] = max(min(1.0, (m - s) * p[order[s]]) for s in range(r + 1))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12))
def test_holm_matches_its_textbook_definition(p: list[float]) -> None:
    assert holm(p).tolist() == pytest.approx(_holm_brute(p), abs=1e-15)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=10),
       st.randoms(use_true_random=False))
def test_holm_does_not_depend_on_the_order_of_the_family(p: list[float], r) -> None:
    perm = list(range(len(p)))
    r.shuffle(perm)
    adj = holm(p)
    adj_perm = holm([p[i] for i in perm])
    assert adj_perm.tolist() == pytest.approx([adj[i] for i in perm])
    assert np.all(adj >= np.asarray(p)) and np.all(adj <= 1.0)


def test_holm_rejects_at_least_what_bonferroni_rejects() -> None:
    p = np.array([0.001, 0.012, 0.02, 0.04, 0.3])
    bonf = np.minimum(1.0, p * p.size)
    adj = holm(p)
    assert np.all(adj <= bonf)
    assert int((adj < 0.05).sum()) >= int((bonf < 0.05).sum())
    assert holm([0.02]).tolist() == [0.02]  # a family of one is not adjusted


# ------------------------------------------------------------------ median interval
@pytest.mark.parametrize("n", [6, 7, 8, 9, 11, 12])
def test_median_interval_coverage_by_enumerating_the_binomial(n: int) -> None:
    """The population median lies in [x(j), x(n−j+1)] exactly when between j and n − j of the
    values fall below it: count that over all 2^n below/above patterns."""
    lo, _ = median_interval(np.arange(1.0, n + 1))
    j = int(lo)
    hits = sum(1 for bits in product((0, 1), repeat=n) if j <= sum(bits) <= n - j)
    assert hits / 2 ** n >= 0.95
    tighter = sum(1 for bits in product((0, 1), repeat=n) if j + 1 <= sum(bits) <= n - j - 1)
    assert tighter / 2 ** n < 0.95


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=6, max_size=60))
def test_median_interval_brackets_the_sample_median(x: list[float]) -> None:
    v = np.array(x)
    lo, hi = median_interval(v)
    med = float(np.median(v))
    assert lo <= med <= hi
    assert lo in v and hi in v  # the limits are order statistics, not interpolations


def test_median_interval_ignores_input_order_and_does_not_sort_in_place() -> None:
    x = np.array([5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 6.0, 0.0])
    before = x.copy()
    assert median_interval(x) == median_interval(np.sort(x))
    assert np.array_equal(x, before)


def test_median_interval_widens_with_the_level() -> None:
    x = np.arange(40.0)
    widths = [np.subtract(*median_interval(x, lv)[::-1]) for lv in (0.5, 0.8, 0.95, 0.999)]
    assert widths == sorted(widths)


# ------------------------------------------------------------------ summarize
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=2, max_size=40))
def test_the_mean_interval_is_scipys_student_t_interval(x: list[float]) -> None:
    v = np.array(x)
    s = summarize(v)
    if s.sd == 0.0:
        assert (s.mean_lo, s.mean_hi) == (s.mean, s.mean)
        return
    lo, hi = sps.t.interval(0.95, v.size - 1, loc=v.mean(), scale=sps.sem(v))
    assert s.mean_lo == pytest.approx(lo, rel=1e-9, abs=1e-9)
    assert s.mean_hi == pytest.approx(hi, rel=1e-9, abs=1e-9)
    assert s.minimum <= s.median <= s.maximum


def test_summarize_treats_integers_lists_and_2d_input_as_one_column() -> None:
    s = summarize([[1, 2], [3, 4]])  # type: ignore[arg-type]
    assert (s.n, s.mean, s.median) == (4, 2.5, 2.5)
    assert isinstance(s.mean, float)


def test_a_rate_of_all_zeros_or_all_ones_has_a_one_sided_interval() -> None:
    zeros = summarize(np.zeros(20))
    assert zeros.rate_lo == 0.0 and zeros.rate_hi == pytest.approx(1 - 0.025 ** (1 / 20))
    ones = summarize(np.ones(20))
    assert ones.rate_hi == 1.0 and ones.rate_lo == pytest.approx(0.025 ** (1 / 20))


def test_summarize_keeps_huge_values_exact_enough() -> None:
    x = np.array([1e300, 1e300, 1e300, 1e300, 1e300, 1e300])
    s = summarize(x)
    assert s.median == 1e300 and s.mean == 1e300 and s.sd == 0.0
    assert (s.median_lo, s.median_hi) == (1e300, 1e300)


def test_summarize_with_other_levels() -> None:
    x = np.random.default_rng(4).normal(size=30)
    s90, s99 = summarize(x, 0.90), summarize(x, 0.99)
    assert s90.level == 0.90
    assert s99.mean_lo < s90.mean_lo < s90.mean < s90.mean_hi < s99.mean_hi
    assert s99.median_lo <= s90.median_lo and s90.median_hi <= s99.median_hi


# ------------------------------------------------------------------ Clopper–Pearson
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_clopper_pearson_is_symmetric_in_successes_and_failures(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = clopper_pearson(k, n)
    lo2, hi2 = clopper_pearson(n - k, n)
    assert lo == pytest.approx(1 - hi2, abs=1e-12)
    assert hi == pytest.approx(1 - lo2, abs=1e-12)


def test_clopper_pearson_for_a_huge_trial_count() -> None:
    lo, hi = clopper_pearson(10 ** 9, 2 * 10 ** 9)
    assert lo < 0.5 < hi and hi - lo < 1e-4


# ------------------------------------------------------------------ paired tests
def test_sign_test_p_is_the_two_sided_binomial_sum() -> None:
    d = np.array([1.0, 2.0, 0.5, -1.0, 3.0, 0.0, 4.0, 2.0, 1.5, -0.2])
    c = paired_test(d, np.zeros_like(d), test="sign")
    pos, nz = 7, 9  # the zero is dropped
    tail = sum(math.comb(nz, k) for k in range(pos, nz + 1)) / 2 ** nz
    assert c.p == pytest.approx(min(1.0, 2 * tail), rel=1e-12)
    assert c.statistic == pos and c.n_nonzero == nz and c.n == 10


@pytest.mark.parametrize("test", ["wilcoxon", "t", "sign"])
def test_swapping_the_arms_keeps_p_and_flips_the_verdict(test: str) -> None:
    rng = np.random.default_rng(9)
    a = rng.normal(0.6, 1.0, 30)
    b = rng.normal(0.0, 1.0, 30)
    ab, ba = paired_test(a, b, test=test), paired_test(b, a, test=test)
    assert ab.p == pytest.approx(ba.p, rel=1e-12)
    assert ab.diff_mean == pytest.approx(-ba.diff_mean)
    assert ab.diff_median == pytest.approx(-ba.diff_median)
    assert (ab.diff_mean_lo, ab.diff_mean_hi) == pytest.approx((-ba.diff_mean_hi,
                                                                -ba.diff_mean_lo))
    flip = {"a > b": "a < b", "a < b": "a > b",
            "no significant difference": "no significant difference"}
    assert ba.verdict() == flip[ab.verdict()]


@pytest.mark.parametrize("test", ["wilcoxon", "t", "sign"])
def test_a_common_shift_and_a_positive_scale_do_not_change_p(test: str) -> None:
    rng = np.random.default_rng(10)
    a, b = rng.normal(0.3, 1, 25), rng.normal(0, 1, 25)
    base = paired_test(a, b, test=test)
    moved = paired_test(4 * a + 100.0, 4 * b + 100.0, test=test)
    assert moved.p == pytest.approx(base.p, rel=1e-9)
    assert moved.diff_mean == pytest.approx(4 * base.diff_mean, rel=1e-9)


def test_a_wilcoxon_on_a_large_sample_uses_scipys_normal_approximation() -> None:
    rng = np.random.default_rng(12)
    d = np.round(rng.normal(0.2, 1, 80), 1)  # ties, n > 50
    stat, p = signed_rank(d)
    r = sps.wilcoxon(d, zero_method="wilcox")
    assert (stat, p) == (float(r.statistic), float(r.pvalue))


def test_the_verdict_falls_back_to_the_mean_when_the_median_difference_is_zero() -> None:
    c = Comparison("m", "x", "y", 10, 0, 4, 0.0, 0.0, 0.0, 0.5, 0.1, 0.9, "wilcoxon", 1.0,
                   0.01, 0.95)
    assert c.verdict() == "a > b" and c.named_verdict() == "x > y"
    neg = Comparison("m", "x", "y", 10, 0, 4, 0.0, 0.0, 0.0, -0.5, -0.9, -0.1, "sign", 1.0,
                     0.01, 0.95)
    assert neg.named_verdict() == "x < y"
    assert neg.verdict(alpha=0.005) == "no significant difference"
    # a t-test decides by the mean even when the median points the other way
    t = Comparison("m", "x", "y", 10, 0, 10, -0.1, -1, 1, 0.4, 0.1, 0.7, "t", 3.0, 0.01, 0.95)
    assert t.verdict() == "a > b"


def test_a_nan_p_is_never_significant() -> None:
    c = Comparison("m", "a", "b", 0, 3, 0, math.nan, math.nan, math.nan, math.nan, math.nan,
                   math.nan, "t", math.nan, math.nan, 0.95)
    assert c.verdict(alpha=1.0) == "no significant difference"
    assert c.p_used != c.p_used  # NaN passes through


# ------------------------------------------------------------------ TOST
def test_tost_t_p_is_the_larger_of_two_one_sided_t_tests() -> None:
    rng = np.random.default_rng(13)
    a = rng.normal(size=30)
    b = a + rng.normal(0.02, 0.1, 30)
    d, m = a - b, 0.1
    t1 = (d.mean() + m) / sps.sem(d)  # H0: mean <= −m
    t2 = (d.mean() - m) / sps.sem(d)  # H0: mean >= +m
    p_manual = max(sps.t.sf(t1, d.size - 1), sps.t.cdf(t2, d.size - 1))
    e = equivalence_test(a, b, m)
    assert e.p == pytest.approx(p_manual, rel=1e-9)
    assert e.diff_mean == pytest.approx(d.mean())
    lo, hi = sps.t.interval(0.90, d.size - 1, loc=d.mean(), scale=sps.sem(d))
    assert (e.diff_mean_lo, e.diff_mean_hi) == pytest.approx((lo, hi))


def test_tost_at_005_agrees_with_the_90_percent_interval_inside_the_margin() -> None:
    """The TOST duality: p < 0.05 exactly when the 90 % t-interval lies within ±margin."""
    rng = np.random.default_rng(14)
    for shift in (0.0, 0.03, 0.06, 0.09, 0.12):
        x = rng.normal(size=25)
        y = x + rng.normal(shift, 0.1, 25)
        e = equivalence_test(x, y, 0.1)
        inside = -0.1 < e.diff_mean_lo and e.diff_mean_hi < 0.1
        assert (e.p < 0.05) == inside, shift


def test_tost_drops_incomplete_pairs_and_records_names() -> None:
    a = np.array([1.0, 2.0, np.nan, 4.0, 5.0])
    e = equivalence_test(a, a + 0.01, 0.5, names=("new", "old"), metric="m")
    assert e.n == 4 and (e.a, e.b, e.metric) == ("new", "old", "m")
    assert isinstance(e, Equivalence) and e.to_json()["margin"] == 0.5
    assert e.verdict() == "equivalent within ±0.5"


@pytest.mark.parametrize("margin", [-1.0, math.nan])
def test_tost_refuses_a_margin_that_is_not_positive(margin: float) -> None:
    with pytest.raises(ValueError, match="margin"):
        equivalence_test(np.ones(5), np.ones(5), margin)


def test_wider_margins_never_make_equivalence_harder() -> None:
    rng = np.random.default_rng(15)
    x = rng.normal(size=30)
    y = x + rng.normal(0.05, 0.2, 30)
    ps = [equivalence_test(x, y, m).p for m in (0.05, 0.1, 0.2, 0.4, 0.8)]
    assert ps == sorted(ps, reverse=True)
    pw = [equivalence_test(x, y, m, test="wilcoxon").p for m in (0.05, 0.1, 0.2, 0.4, 0.8)]
    assert pw == sorted(pw, reverse=True)
