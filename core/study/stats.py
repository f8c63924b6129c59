"""Per-point summaries and paired tests of a study.

* :func:`summarize`: the median with its distribution-free confidence interval (order
  statistics of the binomial, exact coverage ≥ the level for any continuous distribution;
  a seeded percentile bootstrap on request), the mean with its Student-t interval, and for
  a 0/1 metric the rate with its Clopper–Pearson interval.
* :func:`paired_test`: the paired differences ``a − b`` over the replicates where both are
  finite, their median and mean with intervals, and a two-sided paired test — the Wilcoxon
  signed-rank test (default; ``scipy.stats.wilcoxon``, zero differences dropped, exact null
  distribution for n ≤ 50 without ties), the paired t-test (``scipy.stats.ttest_rel``) or
  the sign test (``scipy.stats.binomtest``). The verdict is "a > b" / "a < b" when p < α,
  in the direction of the median difference, else "no significant difference".
* :func:`equivalence_test`: two one-sided tests (TOST) that the paired difference lies
  within ±margin; the only way a study may claim that two arms are *the same*.
* :func:`holm`: Holm's step-down adjustment of a family of p-values.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> base = rng.normal(size=30)
>>> c = paired_test(base + 1.0, base + rng.normal(0, 0.1, size=30))
>>> c.verdict(), c.n, c.p < 1e-6
('a > b', 30, True)
>>> s = summarize(np.arange(20.0))
>>> (s.median, s.median_lo, s.median_hi)
(9.5, 5.0, 14.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as sps

__all__ = ["Summary", "Comparison", "Equivalence", "TESTS", "summarize", "median_interval",
           "paired_test", "equivalence_test", "holm", "clopper_pearson"]

#: The paired tests :func:`paired_test` knows, with the text a table prints for each.
TESTS = {
    "wilcoxon": "Wilcoxon signed-rank (two-sided, paired)",
    "t": "paired t-test (two-sided)",
    "sign": "sign test (two-sided, paired)",
}


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of a binomial rate ``k / n``.

    Parameters
    ----------
    k : int
        Successes, 0 ≤ k ≤ n.
    n : int
        Trials (> 0).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (float, float)
        The limits (0 and 1 at the edges).

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100)
    >>> lo, round(hi, 4)
    (0.0, 0.0362)
    """
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    a = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else float(sps.beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(sps.beta.ppf(1.0 - a, k + 1, n - k))
    return lo, hi


def median_interval(x: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval of the median from order statistics.

    The interval [x₍ⱼ₎, x₍ₙ₋ⱼ₊₁₎] with the largest j such that
    P(j ≤ Binom(n, ½) ≤ n − j) ≥ ``level``; it covers the population median with at least
    that probability for every continuous distribution. Fewer than 6 values cannot reach
    95 %: the limits are then NaN.

    Parameters
    ----------
    x : ndarray
        Finite values.
    level : float
        Confidence level.

    Returns
    -------
    (float, float)
        The limits (NaN, NaN) when ``x`` is too small for ``level``.

    Examples
    --------
    >>> median_interval(np.arange(1.0, 11.0))  # n = 10: x(2), x(9), coverage 97.9 %
    (2.0, 9.0)
    """
    v = np.sort(np.asarray(x, dtype=np.float64))
    n = v.size
    if n == 0:
        return math.nan, math.nan
    best = _order_rank(n, float(level))
    if best == 0:
        return math.nan, math.nan
    return float(v[best - 1]), float(v[n - best])


@lru_cache(maxsize=1024)
def _order_rank(n: int, level: float) -> int:
    """The largest 1-based j with P(j ≤ Binom(n, ½) ≤ n − j) ≥ level (0: none)."""
    j = np.arange(1, n // 2 + 1)
    cover = 1.0 - 2.0 * sps.binom.cdf(j - 1, n, 0.5)
    ok = np.flatnonzero(cover >= level)
    return int(j[ok[-1]]) if ok.size else 0


@dataclass(frozen=True)
class Summary:
    """One metric of one arm at one point over its replicates.

    ``n`` counts the finite values the summary uses, ``n_missing`` the replicates whose
    value was NaN or infinite (a failed run reports NaN: it is counted, never dropped in
    silence). ``median_lo``/``median_hi`` is the ``median_method`` interval, ``mean_lo``/
    ``mean_hi`` the Student-t interval; ``rate_lo``/``rate_hi`` the Clopper–Pearson interval
    when every value is 0 or 1 (NaN otherwise). Limits are NaN when ``n`` is too small.
    """

    n: int
    n_missing: int
    median: float
    median_lo: float
    median_hi: float
    mean: float
    mean_lo: float
    mean_hi: float
    sd: float
    minimum: float
    maximum: float
    level: float
    median_method: str
    rate_lo: float = math.nan
    rate_hi: float = math.nan

    def interval(self, center: str = "median") -> tuple[float, float, float]:
        """``(center, lo, hi)`` for ``center`` in {"median", "mean", "rate"}."""
        if center == "median":
            return self.median, self.median_lo, self.median_hi
        if center == "mean":
            return self.mean, self.mean_lo, self.mean_hi
        if center == "rate":
            return self.mean, self.rate_lo, self.rate_hi
        raise ValueError(f"center must be 'median', 'mean' or 'rate', got {center!r}")

    def to_json(self) -> dict[str, object]:
        """The summary as a dict (non-finite values stay floats; see core.common.jsonable)."""
        return dict(self.__dict__)


def summarize(x: np.ndarray, level: float = 0.95, *, bootstrap: int = 0,
              rng: np.random.Generator | None = None) -> Summary:
    """Summarise one column of replicate values.

    Parameters
    ----------
    x : ndarray
        The replicate values (NaN/±∞ count as missing).
    level : float
        Confidence level of every interval.
    bootstrap : int
        0 (default): the distribution-free order-statistic interval of the median; a
        positive number: a percentile bootstrap of the median with that many resamples
        (``scipy.stats.bootstrap``) drawn from ``rng``.
    rng : numpy.random.Generator, optional
        The bootstrap's generator (required with ``bootstrap > 0``).

    Returns
    -------
    Summary
    """
    raw = np.asarray(x, dtype=np.float64).ravel()
    ok = np.isfinite(raw)
    v = raw[ok]
    n = int(v.size)
    nan = math.nan
    if n == 0:
        return Summary(0, int(raw.size), nan, nan, nan, nan, nan, nan, nan, nan, nan, level,
                       "none")
    med = float(np.median(v))
    mean = float(v.mean())
    sd = float(v.std(ddof=1)) if n >= 2 else nan
    if n >= 2:
        if sd == 0.0:
            mlo = mhi = mean
        else:
            half = float(sps.t.ppf(0.5 + level / 2.0, n - 1)) * sd / math.sqrt(n)
            mlo, mhi = mean - half, mean + half
    else:
        mlo = mhi = nan
    if bootstrap > 0:
        if rng is None:
            raise ValueError("bootstrap needs rng")
        method = f"percentile bootstrap ({bootstrap} resamples)"
        if n < 2:
            lo, hi = nan, nan
        elif float(v.max()) == float(v.min()):
            lo = hi = med
        else:
            res = sps.bootstrap((v,), np.median, confidence_level=level, n_resamples=bootstrap,
                                method="percentile", random_state=rng, vectorized=True)
            lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    else:
        method = "order statistics (distribution-free)"
        lo, hi = median_interval(v, level)
    rlo = rhi = nan
    if np.all((v == 0.0) | (v == 1.0)):
        rlo, rhi = clopper_pearson(int(v.sum()), n, level)
    return Summary(n, int(raw.size) - n, med, lo, hi, mean, mlo, mhi, sd, float(v.min()),
                   float(v.max()), level, method, rlo, rhi)


@dataclass(frozen=True)
class Comparison:
    """A paired comparison of arm ``a`` against arm ``b`` on one metric.

    ``n`` counts the replicates where both values are finite (``n_dropped`` the others);
    ``n_nonzero`` those whose difference is not 0 (the Wilcoxon and sign tests use only
    these). ``diff_*`` describe ``a − b``; ``p`` is the two-sided p-value of ``test``
    (``p_adjusted`` after a family adjustment, else equal to ``p``).
    """

    metric: str
    a: str
    b: str
    n: int
    n_dropped: int
    n_nonzero: int
    diff_median: float
    diff_median_lo: float
    diff_median_hi: float
    diff_mean: float
    diff_mean_lo: float
    diff_mean_hi: float
    test: str
    statistic: float
    p: float
    level: float
    p_adjusted: float = math.nan
    note: str = ""

    @property
    def p_used(self) -> float:
        """The adjusted p-value when there is one, else ``p``."""
        return self.p if math.isnan(self.p_adjusted) else self.p_adjusted

    def verdict(self, alpha: float = 0.05) -> str:
        """"a > b", "a < b" (p < ``alpha``, direction of the median difference, or of the
        mean for the t-test) or "no significant difference"."""
        if not self.p_used < alpha:
            return "no significant difference"
        d = self.diff_mean if self.test == "t" else self.diff_median
        if d == 0.0 or math.isnan(d):
            d = self.diff_mean
        return "a > b" if d > 0 else "a < b"

    def named_verdict(self, alpha: float = 0.05) -> str:
        """:meth:`verdict` with the arm names in place of a and b."""
        v = self.verdict(alpha)
        if v == "a > b":
            return f"{self.a} > {self.b}"
        if v == "a < b":
            return f"{self.a} < {self.b}"
        return v

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


def _pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired arms need the same replicates, got {x.size} and {y.size}")
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok] - y[ok], int((~ok).sum())


def paired_test(a: np.ndarray, b: np.ndarray, *, test: str = "wilcoxon", level: float = 0.95,
                metric: str = "", names: tuple[str, str] = ("a", "b")) -> Comparison:
    """Paired comparison of two arms run on the same seeds.

    Parameters
    ----------
    a, b : ndarray
        The replicate values of the two arms, replicate i of ``a`` paired with replicate i
        of ``b`` (the same seed). Pairs with a non-finite value are dropped and counted.
    test : {"wilcoxon", "t", "sign"}
        The two-sided paired test.
    level : float
        Confidence level of the difference's intervals.
    metric : str
        The metric's name (recorded).
    names : (str, str)
        The arms' names (recorded).

    Returns
    -------
    Comparison
        With p = 1 when every difference is 0; with p = 0 and a note when every difference
        is the same non-zero constant under the t-test (no variance: the sign is certain).

    Raises
    ------
    ValueError
        Unknown ``test`` or arms of different lengths.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {sorted(TESTS)}, got {test!r}")
    d, dropped = _pairs(a, b)
    n = int(d.size)
    nz = int(np.count_nonzero(d))
    s = summarize(d, level)
    note = ""
    if n == 0:
        stat, p = math.nan, math.nan
        note = "no replicate has both values"
    elif nz == 0:
        stat, p = 0.0, 1.0
        note = "every paired difference is 0"
    elif test == "wilcoxon":
        stat, p = signed_rank(d, "two-sided")
    elif test == "sign":
        pos = int((d > 0).sum())
        r = sps.binomtest(pos, nz, 0.5, alternative="two-sided")
        stat, p = float(pos), float(r.pvalue)
    else:
        if n < 2:
            stat, p = math.nan, math.nan
            note = "the t-test needs two pairs"
        elif float(d.std(ddof=1)) == 0.0:
            stat, p = math.copysign(math.inf, float(d.mean())), 0.0
            note = "every paired difference is the same non-zero value"
        else:
            r = sps.ttest_1samp(d, 0.0, alternative="two-sided")
            stat, p = float(r.statistic), float(r.pvalue)
    return Comparison(metric, names[0], names[1], n, dropped, nz, s.median, s.median_lo,
                      s.median_hi, s.mean, s.mean_lo, s.mean_hi, test, stat, p, level,
                      note=note)


@dataclass(frozen=True)
class Equivalence:
    """Two one-sided tests that the paired difference ``a − b`` lies in (−margin, margin).

    ``p`` is the larger of the two one-sided p-values; equivalence is shown when p < α.
    ``level`` is the level of the interval ``diff_mean_lo``…``diff_mean_hi`` (0.90 by
    default: the interval a TOST at α = 0.05 reads).
    """

    metric: str
    a: str
    b: str
    n: int
    margin: float
    diff_mean: float
    diff_mean_lo: float
    diff_mean_hi: float
    test: str
    p: float
    level: float = 0.90

    def verdict(self, alpha: float = 0.05) -> str:
        """"equivalent within ±margin" or "equivalence not shown"."""
        return (f"equivalent within ±{self.margin:g}" if self.p < alpha
                else "equivalence not shown")

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


def equivalence_test(a: np.ndarray, b: np.ndarray, margin: float, *, test: str = "t",
                     level: float = 0.90, metric: str = "",
                     names: tuple[str, str] = ("a", "b")) -> Equivalence:
    """TOST: is the paired difference within ±``margin``?

    Parameters
    ----------
    a, b : ndarray
        Paired replicate values.
    margin : float
        The equivalence margin (> 0), in the metric's units.
    test : {"t", "wilcoxon"}
        The one-sided tests: paired t on d (default) or Wilcoxon signed-rank on d ∓ margin.
    level : float
        Level of the reported interval of the mean difference (0.90 matches a TOST at
        α = 0.05).
    metric : str
        Recorded.
    names : (str, str)
        Recorded.

    Returns
    -------
    Equivalence

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=40)
    >>> equivalence_test(x, x + rng.normal(0, 0.05, 40), 0.1).verdict()
    'equivalent within ±0.1'
    """
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    d, _ = _pairs(a, b)
    n = int(d.size)
    s = summarize(d, level)
    if n < 2:
        p = math.nan
    elif test == "t":
        if float(d.std(ddof=1)) == 0.0:
            p = 0.0 if abs(float(d.mean())) < margin else 1.0
        else:
            p1 = float(sps.ttest_1samp(d, -margin, alternative="greater").pvalue)
            p2 = float(sps.ttest_1samp(d, margin, alternative="less").pvalue)
            p = max(p1, p2)
    elif test == "wilcoxon":
        p = max(_signed_rank_one_sided(d + margin, "greater"),
                _signed_rank_one_sided(d - margin, "less"))
    else:
        raise ValueError(f"test must be 't' or 'wilcoxon', got {test!r}")
    return Equivalence(metric, names[0], names[1], n, float(margin), s.mean, s.mean_lo,
                       s.mean_hi, test, p, float(level))


def _signed_rank_one_sided(x: np.ndarray, alternative: str) -> float:
    if not np.any(x != 0):
        return 1.0
    return signed_rank(x, alternative)[1]


#: Up to this many pairs, scipy's ``wilcoxon`` (method "auto") answers a sample with ties or
#: zeros by an exact permutation test over all 2**n sign flips.
_PERMUTATION_N = 13


def signed_rank(d: np.ndarray, alternative: str = "two-sided") -> tuple[float, float]:
    """The Wilcoxon signed-rank test of the paired differences ``d`` (zeros dropped, Wilcoxon's
    rule), as ``scipy.stats.wilcoxon(d, zero_method="wilcox", alternative=...)`` computes it:
    (statistic, p-value).

    Where scipy runs its exact permutation test (n ≤ 13 with tied or zero differences) this
    computes the same null distribution by counting instead of enumerating the 2**n sign
    flips: the statistic is the sum of the (mid)ranks of the positive differences, each sign
    is +/− with probability 1/2 under the null hypothesis, and twice a midrank is an integer,
    so the distribution is a convolution over integers (exact; about 10³ times faster, which
    is what keeps ``bench/claims.py --check`` within its budget). Elsewhere it calls scipy.

    Examples
    --------
    >>> d = np.array([1.0, 1.0, 2.0, -0.5, 0.0, 3.0])   # a tie and a zero
    >>> signed_rank(d)[1] == float(sps.wilcoxon(d).pvalue)
    True
    """
    d = np.asarray(d, dtype=float)
    nonzero = d[d != 0]
    ties = np.unique(np.abs(nonzero)).size < nonzero.size
    if d.size > _PERMUTATION_N or not (ties or nonzero.size < d.size) or nonzero.size == 0:
        r = sps.wilcoxon(d, zero_method="wilcox", alternative=alternative)
        return float(r.statistic), float(r.pvalue)
    twice = np.rint(2 * sps.rankdata(np.abs(nonzero))).astype(np.int64)
    counts = np.zeros(int(twice.sum()) + 1)
    counts[0] = 1.0
    for r2 in twice:  # convolve with "adds r2 or not", each with probability 1/2
        counts[r2:] = counts[r2:] + counts[: counts.size - r2]
    counts /= 2.0 ** twice.size
    plus = int(twice[nonzero > 0].sum())
    minus = int(twice.sum()) - plus
    less, greater = float(counts[: plus + 1].sum()), float(counts[plus:].sum())
    if alternative == "less":
        return plus / 2, less
    if alternative == "greater":
        return plus / 2, greater
    return min(plus, minus) / 2, min(1.0, 2 * min(less, greater))


def holm(pvalues: "list[float] | np.ndarray") -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control, any dependence).

    Parameters
    ----------
    pvalues : sequence of float
        The family's raw p-values (NaN stays NaN and is not counted in the family).

    Returns
    -------
    ndarray
        The adjusted p-values, in the input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, math.nan)
    idx = np.flatnonzero(np.isfinite(p))
    m = idx.size
    if m == 0:
        return out
    order = idx[np.argsort(p[idx], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p[i])))
        out[i] = running
    return out
