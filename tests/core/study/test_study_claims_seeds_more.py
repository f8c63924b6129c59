"""core.study.seeds and core.study.claims, further: huge master seeds, the replicate seeds'
uniformity (a chi-square bound from the seeds' own count), a claim's own α and test, an
equivalence claim through the Wilcoxon TOST, and the stability table marking a verdict that
flips between master seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from core.study.claims import Claim, ClaimResult, Stability, evaluate_claims
from core.study.runner import Arm, Study, run_study
from core.study.seeds import auxiliary_rng, derive_seeds, replicate_seed
from core.study.stats import paired_test
from core.study.tables import claims_table, stability_table
from core.study.toy import shifted_normal


@pytest.mark.parametrize("master", [0, 2 ** 63 - 1, 2 ** 64 + 5, 2 ** 128 + 1])
def test_huge_master_seeds_give_valid_distinct_seeds(master: int) -> None:
    seeds = derive_seeds(master, 50)
    assert len(set(seeds)) == 50 and all(0 <= s < 2 ** 32 for s in seeds)
    assert seeds[0] == replicate_seed(master, 0)
    rng = auxiliary_rng(master, 3)
    assert 0.0 <= rng.random() < 1.0


def test_replicate_seeds_are_uniform_over_32_bits() -> None:
    """4,000 seeds in 16 bins of the top 4 bits: the chi-square statistic stays below its
    0.999 quantile (fixed master seed: a deterministic check with a stated false-alarm
    rate)."""
    seeds = np.array(derive_seeds(2026, 4000), dtype=np.uint64)
    counts = np.bincount((seeds >> np.uint64(28)).astype(int), minlength=16)
    expected = 4000 / 16
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < sps.chi2.ppf(0.999, 15)
    # and the low bit is a fair coin within 4 binomial sd
    ones = int((seeds & np.uint64(1)).sum())
    assert abs(ones - 2000) < 4 * math.sqrt(4000 * 0.25)


def test_neighbouring_master_seeds_share_no_replicate_seed() -> None:
    a, b = set(derive_seeds(100, 300)), set(derive_seeds(101, 300))
    # two independent samples of 300 from 2^32 collide with probability ~1e-5
    assert not a & b


# ------------------------------------------------------------------ claims
@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    arms = (Arm("big", shifted_normal, {"shift": 0.25}),
            Arm("base", shifted_normal, {"shift": 0.0, "stream": 1}),
            Arm("same", shifted_normal, {"shift": 0.0, "stream": 2}))
    return run_study(Study("c", arms, n=30, master_seed=9))


def test_a_claims_own_alpha_decides_it(result) -> None:  # type: ignore[no-untyped-def]
    c = paired_test(result.column("x", "big"), result.column("x", "base"))
    assert 0.0 < c.p < 0.5
    strict = Claim("big > base (strict)", "x", "big", "base", ">", alpha=c.p * 0.99)
    loose = Claim("big > base (loose)", "x", "big", "base", ">", alpha=min(0.99, c.p * 1.01))
    r = evaluate_claims(result, [strict, loose], adjust="none")
    assert [x.holds for x in r] == [False, True]
    assert r[0].verdict == "no significant difference" and r[1].verdict == "big > base"
    assert r[0].to_json()["alpha"] == strict.alpha


def test_a_claims_own_test_is_used(result) -> None:  # type: ignore[no-untyped-def]
    r = evaluate_claims(result, [Claim("t", "x", "big", "base", ">", test="t"),
                                 Claim("sign", "x", "big", "base", ">", test="sign")],
                        adjust="none")
    a, b = result.column("x", "big"), result.column("x", "base")
    assert r[0].p == pytest.approx(sps.ttest_rel(a, b).pvalue)
    assert r[0].estimate()[3] == "mean difference"
    assert r[1].p == pytest.approx(paired_test(a, b, test="sign").p)
    assert r[1].test_text.startswith("sign test")


def test_an_equivalence_claim_with_the_wilcoxon_tost(result) -> None:  # type: ignore[no-untyped-def]
    r = evaluate_claims(result, [Claim("base = same", "x", "base", "same", "=", margin=0.5,
                                       test="wilcoxon")])
    assert r[0].holds and r[0].test_text == "TOST (Wilcoxon, ±0.5)"
    tight = evaluate_claims(result, [Claim("base = big", "x", "base", "big", "=",
                                           margin=0.01)])
    assert not tight[0].holds and tight[0].verdict == "equivalence not shown"


def _flipping() -> Stability:
    """Two runs of one claim whose verdict differs (built from real comparisons)."""
    claim = Claim("a > b", "x", "a", "b", ">")
    rng = np.random.default_rng(3)
    base = rng.normal(size=20)
    yes = paired_test(base + 1.0, base, metric="x", names=("a", "b"))
    no = paired_test(base, base + rng.normal(0, 0.1, 20), metric="x", names=("a", "b"))
    runs = tuple((ClaimResult(claim, c, c.p, c.p, c.named_verdict(),
                              c.verdict() == "a > b", seed, "all"),)
                 for c, seed in ((yes, 1), (no, 2)))
    return Stability((1, 2), runs, ())


def test_a_flipping_verdict_is_marked_in_the_stability_table() -> None:
    s = _flipping()
    assert not s.stable
    table = stability_table(s)
    row = table.splitlines()[2]
    assert row.endswith("| yes | **FLIPS** |")
    assert ", no" in row  # the second master seed's p and holds
    assert s.to_json()["stable"] is False


def test_claims_table_prints_raw_p_only_when_it_differs(result) -> None:  # type: ignore[no-untyped-def]
    claims = [Claim("big > base", "x", "big", "base", ">")]
    one = claims_table(evaluate_claims(result, claims))
    assert "(raw " not in one  # a family of one: Holm changes nothing
    two = claims_table(evaluate_claims(result, claims + [Claim("same > base", "x", "same",
                                                               "base", ">")]))
    assert "(raw " in two
