"""core.study.claims and core.study.tables: a claim holds exactly when its (Holm-adjusted) test
agrees with it, a verdict's stability is checked across master seeds, and the tables print
each value with its interval, its n and the seeds it came from."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.study.claims import Claim, evaluate_claims, verdict_stability
from core.study.runner import Arm, Study, run_study
from core.study.tables import (
    claims_table,
    format_interval,
    format_p,
    interval_series,
    stability_table,
    summary_rows,
    summary_table,
)
from core.study.toy import coin, shifted_normal


def _study(seed: int = 3, n: int = 24) -> Study:
    return Study("toy", (Arm("high", shifted_normal, {"shift": 1.0}),
                         Arm("low", shifted_normal, {"shift": 0.0, "stream": 1}),
                         Arm("twin", shifted_normal, {"shift": 0.0, "stream": 2})),
                 n=n, master_seed=seed)


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return run_study(_study(), inline=True)


CLAIMS = [Claim("high beats low", "x", "high", "low", ">"),
          Claim("low below high", "x", "low", "high", "<"),
          Claim("low is its twin", "x", "low", "twin", "=", margin=0.5),
          Claim("wrong way", "x", "low", "high", ">")]


def test_claims_hold_exactly_when_the_test_agrees(result) -> None:  # type: ignore[no-untyped-def]
    r = evaluate_claims(result, CLAIMS)
    assert [c.holds for c in r] == [True, True, True, False]
    assert r[0].verdict == "high > low" and r[1].verdict == "low < high"
    assert r[2].verdict == "low = twin within ±0.5"
    assert r[3].verdict == "low < high"  # the test disagrees with the claim: it fails
    assert all(c.n == 24 and c.master_seed == 3 for c in r)
    assert r[0].estimate()[3] == "median difference"
    assert r[2].estimate()[3] == "mean difference" and r[2].test_text.startswith("TOST")
    est, lo, hi, _ = r[0].estimate()
    assert lo < est < hi and lo > 0.5  # the true shift is 1


def test_holm_adjusts_over_the_family(result) -> None:  # type: ignore[no-untyped-def]
    holm = evaluate_claims(result, CLAIMS)
    raw = evaluate_claims(result, CLAIMS, adjust="none")
    assert [c.p for c in holm] == [c.p for c in raw]
    assert all(h.p_adjusted >= h.p for h in holm)
    assert all(c.p_adjusted == c.p for c in raw)
    smallest = min(range(4), key=lambda i: holm[i].p)
    assert holm[smallest].p_adjusted == pytest.approx(min(1.0, 4 * holm[smallest].p))
    with pytest.raises(ValueError, match="adjust"):
        evaluate_claims(result, CLAIMS, adjust="bonferroni")


def test_claim_json_states_everything_the_table_prints(result) -> None:  # type: ignore[no-untyped-def]
    j = evaluate_claims(result, CLAIMS[:1])[0].to_json()
    assert j["claim"] == "high beats low" and j["expect"] == ">" and j["holds"] is True
    assert j["n"] == 24 and j["b_metric"] == "x" and j["interval"][0] < j["estimate"]
    assert j["comparison"]["test"] == "wilcoxon"


@pytest.mark.parametrize("kwargs,match", [
    ({"expect": ">="}, "expect"), ({"expect": "="}, "margin"),
    ({"test": "anova"}, "test"), ({"alpha": 1.0}, "alpha")])
def test_claims_refuse_bad_definitions(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Claim("c", "x", "a", "b", **kwargs)


def test_verdicts_are_stable_across_master_seeds() -> None:
    s = verdict_stability(_study(n=16), CLAIMS[:2], [1, 2], inline=True)
    assert s.master_seeds == (1, 2) and s.stable
    assert [r.master_seed for r in s.runs[1]] == [2, 2]
    assert s.to_json()["stable"] is True
    table = stability_table(s)
    assert "master seed 2" in table and "**FLIPS**" not in table
    assert "Master seeds 1, 2" in table
    with pytest.raises(ValueError, match="at least one"):
        verdict_stability(_study(), CLAIMS, [])


def test_a_coin_flip_verdict_can_flip() -> None:
    # two fair coins: "a > b" holds under no seed, so it is stable (never holds)
    study = Study("coins", (Arm("a", coin, {"p": 0.5}), Arm("b", coin, {"p": 0.5})), n=12,
                  master_seed=1)
    s = verdict_stability(study, [Claim("a wins", "success", "a", "b", ">")], [1, 2, 3],
                          inline=True)
    assert not any(r.holds for run in s.runs for r in run) and s.stable


# ------------------------------------------------------------------ formatting
def test_format_interval_and_p() -> None:
    assert format_interval(0.5, 0.25, 0.75) == "0.5 [0.25, 0.75]"
    assert format_interval(math.nan, 0, 1) == "n/a"
    assert format_interval(2.0, math.nan, 3.0) == "2 [n too small]"
    assert format_interval(1 / 3, 0.1, 0.9, ".2f") == "0.33 [0.10, 0.90]"
    assert (format_p(math.nan), format_p(1e-7), format_p(0.04567)) == ("n/a", "< 1e-6",
                                                                        "0.0457")


def test_summary_table_rows_and_caption(result) -> None:  # type: ignore[no-untyped-def]
    rows = summary_rows(result, ["x", "missing"])
    assert [r["arm"] for r in rows] == ["high", "low", "twin"]
    assert "missing" not in rows[0] and rows[0]["x"]["n"] == 24
    assert rows[0]["x"]["lo"] < rows[0]["x"]["center"] < rows[0]["x"]["hi"]
    table = summary_table(result, ["x"], labels={"x": "value"})
    lines = table.splitlines()
    assert lines[0] == "| point | arm | n | value |"
    assert lines[2].startswith("| ") and "| high | 24 |" in lines[2]
    assert "n = 24 seeds per arm and point" in table and "master seed 3" in table
    assert "order statistics" in table
    assert "Student-t" in summary_table(result, ["x"], center="mean")


def test_claims_table_marks_a_failing_claim(result) -> None:  # type: ignore[no-untyped-def]
    table = claims_table(evaluate_claims(result, CLAIMS))
    lines = table.splitlines()
    assert len(lines) == 2 + len(CLAIMS)
    assert lines[-1].endswith("| **no** |") and lines[2].endswith("| yes |")
    assert "(raw " in lines[2]  # the adjusted p differs from the raw one


def test_interval_series_per_arm(result) -> None:  # type: ignore[no-untyped-def]
    series = interval_series(result, "x")
    assert set(series) == {"high", "low", "twin"}
    high = series["high"]
    assert np.all(high["lo"] <= high["center"]) and np.all(high["center"] <= high["hi"])
    assert high["n"].tolist() == [24] and high["x"].tolist() == [0]
