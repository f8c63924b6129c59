"""core.common.stats and core.common.timestamps: the shared confidence limits are the textbook
ones, and record timestamps are UTC ISO 8601 to the second."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
from scipy import stats as sps

from core.common.stats import cp_upper, t_half_width
from core.common.timestamps import now_iso


@pytest.mark.parametrize("k,n,level", [(0, 10, 0.95), (3, 50, 0.975), (49, 50, 0.9)])
def test_cp_upper_is_the_exact_binomial_tail(k: int, n: int, level: float) -> None:
    u = float(cp_upper(k, n, level))
    assert k / n < u < 1.0
    assert sps.binom.cdf(k, n, u) == pytest.approx(1.0 - level, rel=1e-6)


def test_cp_upper_zero_successes_closed_form_and_full_count() -> None:
    assert float(cp_upper(0, 200, 0.95)) == pytest.approx(1 - 0.05 ** (1 / 200))
    assert float(cp_upper(10, 10, 0.95)) == 1.0
    assert float(cp_upper(12.5, 10, 0.95)) == 1.0  # a projected count past n


def test_cp_upper_broadcasts_and_is_monotone_in_count() -> None:
    u = cp_upper(np.arange(0, 11), 10, 0.95)
    assert u.shape == (11,)
    assert np.all(np.diff(u) >= 0) and u[-1] == 1.0
    both = cp_upper(np.array([[1.0, 1.0], [2.0, 2.0]]), np.array([10.0, 20.0]), 0.95)
    assert both.shape == (2, 2)
    assert both[0, 1] < both[0, 0]  # more trials, same count: a lower limit
    fractional = float(cp_upper(2.5, 10, 0.95))
    assert float(cp_upper(2, 10, 0.95)) < fractional < float(cp_upper(3, 10, 0.95))


def test_t_half_width_matches_the_student_interval() -> None:
    x = np.array([2.0, 4.0, 4.0, 5.0, 7.0, 9.0])
    expected = sps.t.ppf(0.975, 5) * x.std(ddof=1) / math.sqrt(6)
    assert t_half_width(x) == pytest.approx(expected)
    cols = np.stack([x, 2 * x], axis=1)
    w = t_half_width(cols, axis=0)
    assert np.asarray(w) == pytest.approx([expected, 2 * expected])
    assert t_half_width(np.ones(5)) == 0.0


def test_t_half_width_coverage_on_normal_samples() -> None:
    # 4,000 samples of 8 normals: the 95 % interval covers the mean 95 % of the time, up to
    # 4 binomial sd (1.4 %)
    rng = np.random.default_rng(3)
    x = rng.normal(1.0, 2.0, size=(4000, 8))
    half = np.asarray(t_half_width(x, axis=1))
    cover = np.mean(np.abs(x.mean(axis=1) - 1.0) <= half)
    assert abs(cover - 0.95) < 4 * math.sqrt(0.95 * 0.05 / 4000)


def test_now_iso_is_utc_to_the_second() -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    stamp = now_iso()
    after = dt.datetime.now(dt.timezone.utc)
    parsed = dt.datetime.fromisoformat(stamp)
    assert stamp.endswith("+00:00") and len(stamp) == 25 and "." not in stamp
    assert parsed.utcoffset() == dt.timedelta(0)
    assert before <= parsed <= after
