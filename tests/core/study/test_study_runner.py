"""The study runner: seeds, paired designs, intervals, paired tests, claims,
the executor seam, JSON and tables."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

from core.common.jsonable import dumps
from core.common.progress import Cancelled
from core.study import (
    Arm,
    Claim,
    Study,
    StudyResult,
    claims_table,
    derive_seeds,
    evaluate_claims,
    interval_series,
    median_interval,
    paired_test,
    run_study,
    summarize,
    summary_table,
    verdict_stability,
)
from core.study.toy import coin, shifted_normal


def _two_arms(shift: float, n: int = 20, master: int = 1, **kw) -> Study:
    return Study("toy", (Arm("a", shifted_normal, {"shift": shift, "stream": 1}),
                         Arm("b", shifted_normal, {"shift": 0.0, "stream": 2})),
                 n=n, master_seed=master, **kw)


def test_seeds_are_recorded_prefix_stable_and_distinct():
    assert derive_seeds(5, 10) == derive_seeds(5, 30)[:10]
    assert derive_seeds(5, 10) != derive_seeds(6, 10)
    s = derive_seeds(123, 5000)
    assert len(set(s)) == 5000 and all(0 <= x < 2**32 for x in s)
    res = run_study(_two_arms(0.5, n=8, master=9))
    assert res.seeds == derive_seeds(9, 8) and res.master_seed == 9
    assert res.seed_source == "given"


def test_release_mode_draws_and_records_the_master_seed():
    res = run_study(_two_arms(0.5, n=3, master=None))
    assert res.seed_source == "drawn from the operating system"
    again = run_study(_two_arms(0.5, n=3, master=res.master_seed))
    np.testing.assert_array_equal(res.column("x", "a"), again.column("x", "a"))


def test_the_same_seed_drives_every_arm_and_every_point():
    study = Study("grid", (Arm("a", shifted_normal, {"stream": 1}),
                           Arm("b", shifted_normal, {"stream": 2})),
                  n=12, master_seed=4, points=({"shift": 0.0}, {"shift": 2.0}))
    res = run_study(study)
    base = res.column("baseline", "a", 0)
    for arm in ("a", "b"):
        for p in (0, 1):
            np.testing.assert_array_equal(res.column("baseline", arm, p), base)
    # each replicate's value is what the arm gives on that seed
    for i, s in enumerate(res.seeds):
        assert res.column("x", "b", 1)[i] == shifted_normal(s, shift=2.0, stream=2)["x"]


def test_a_real_difference_holds_under_a_second_master_seed():
    # d = shift + N(0, 0.3·√2): with shift 0.5 and n = 20 the power is above 0.999
    claim = Claim("a beats b", "x", "a", "b", ">")
    st = verdict_stability(_two_arms(0.5), [claim], master_seeds=[101, 202])
    assert st.stable
    assert [r[0].holds for r in st.runs] == [True, True]
    assert all(r[0].p < 1e-3 for r in st.runs)
    assert st.results[0].seeds != st.results[1].seeds
    from core.study import stability_table

    table = stability_table(st)
    row = table.splitlines()[2]
    assert row.startswith("| a beats b |") and "master seed 202" in table.splitlines()[0]
    assert row.rstrip(" |").endswith("yes | yes") and "FLIPS" not in table


@pytest.mark.parametrize("test", ["wilcoxon", "t", "sign"])
def test_a_null_difference_is_called_at_most_at_the_stated_rate(test):
    # 300 independent null studies of n = 20: the count of p < 0.05 is Binomial(300, ≤ 0.05);
    # its 99.9 % quantile at exactly 0.05 bounds it (the exact Wilcoxon and sign tests are
    # conservative, so they sit below)
    studies, alpha = 300, 0.05
    hits = 0
    for ms in range(studies):
        res = run_study(_two_arms(0.0, n=20, master=10_000 + ms, test=test))
        hits += res.compare("x", "a", "b").p < alpha
    assert hits <= sps.binom.ppf(0.999, studies, alpha)
    assert hits >= sps.binom.ppf(0.001, studies, alpha / 4)  # the test is not dead either


def test_summary_intervals_cover_at_their_level():
    rng = np.random.default_rng(0)
    reps, n = 2000, 20
    x = rng.normal(3.0, 2.0, size=(reps, n))
    cover_med = cover_mean = 0
    for row in x:
        s = summarize(row)
        cover_med += s.median_lo <= 3.0 <= s.median_hi
        cover_mean += s.mean_lo <= 3.0 <= s.mean_hi
    # order statistics with n = 20 reach 95.9 %; the t interval is exact for normals
    for cov, level in ((cover_med, 0.9586), (cover_mean, 0.95)):
        sd = math.sqrt(level * (1 - level) / reps)
        assert abs(cov / reps - level) < 4 * sd, (cov, level)


def test_median_interval_needs_six_values_at_95_percent():
    assert all(math.isnan(v) for v in median_interval(np.arange(5.0)))
    assert median_interval(np.arange(6.0)) == (0.0, 5.0)


def test_bootstrap_interval_is_seeded_by_the_master_seed():
    res = run_study(_two_arms(0.5, n=25, master=3, bootstrap=999))
    s1, s2 = res.summary("x", "a"), res.summary("x", "a")
    assert (s1.median_lo, s1.median_hi) == (s2.median_lo, s2.median_hi)
    assert "bootstrap" in s1.median_method
    assert s1.median_lo <= s1.median <= s1.median_hi


def test_rates_get_clopper_pearson_intervals():
    res = run_study(Study("coin", (Arm("c", coin, {"p": 0.3}),), n=40, master_seed=2))
    s = res.summary("success", "c")
    k = int(res.column("success", "c").sum())
    assert s.rate_lo == pytest.approx(sps.beta.ppf(0.025, k, 40 - k + 1))
    assert s.rate_hi == pytest.approx(sps.beta.ppf(0.975, k + 1, 40 - k))


def test_paired_test_edges():
    z = np.zeros(10)
    c = paired_test(z, z)
    assert c.p == 1.0 and c.verdict() == "no significant difference"
    c = paired_test(z + 1, z, test="t")
    assert c.p == 0.0 and c.verdict() == "a > b" and "same non-zero" in c.note
    c = paired_test(np.array([1.0, np.nan, 3.0]), np.array([0.0, 1.0, np.inf]))
    assert c.n == 1 and c.n_dropped == 2
    with pytest.raises(ValueError, match="test must be one of"):
        paired_test(z, z, test="mann-whitney")


def test_equivalence_claim_and_holm_family():
    res = run_study(Study("eq", (Arm("a", shifted_normal, {"stream": 1, "noise": 0.05}),
                                 Arm("b", shifted_normal, {"stream": 2, "noise": 0.05}),
                                 Arm("c", shifted_normal, {"shift": 1.0, "stream": 3})),
                          n=30, master_seed=8))
    out = evaluate_claims(res, [Claim("a = b", "x", "a", "b", "=", margin=0.1),
                                Claim("c > a", "x", "c", "a", ">"),
                                Claim("a < c (wrong way round is a failed claim)", "x", "c",
                                      "a", "<")])
    assert [r.holds for r in out] == [True, True, False]
    assert all(r.p_adjusted >= r.p for r in out)
    with pytest.raises(ValueError, match="needs a margin"):
        Claim("x", "x", "a", "b", "=")


def test_missing_values_are_counted_not_dropped_in_silence():
    res = run_study(Study("nan", (Arm("f", _sometimes_nan),), n=20, master_seed=5))
    s = res.summary("v", "f")
    assert s.n + s.n_missing == 20 and s.n_missing > 0
    assert "missing" in summary_table(res, ["v"])


def _sometimes_nan(seed: int) -> dict[str, float]:
    return {"v": math.nan if seed % 3 == 0 else float(seed % 7)}


def _changing_keys(seed: int) -> dict[str, float]:
    return {"v": 1.0} if seed % 2 else {"w": 1.0}


def test_bad_arms_and_studies_are_refused_with_their_names():
    with pytest.raises(ValueError, match="arm 'k'"):
        run_study(Study("keys", (Arm("k", _changing_keys),), n=10, master_seed=1))
    with pytest.raises(TypeError, match="arm 'lam'.*module level"):
        run_study(Study("l", (Arm("lam", lambda seed: {"v": 1.0}),), n=2, master_seed=1),
                  workers=2)
    with pytest.raises(ValueError, match="both set"):
        Study("c", (Arm("a", shifted_normal, {"shift": 1.0}),), points=({"shift": 2.0},))
    with pytest.raises(ValueError, match="distinct"):
        Study("d", (Arm("a", coin), Arm("a", coin)))


def test_progress_reports_and_cancel_stops():
    seen = []
    run_study(_two_arms(0.1, n=5), progress=lambda f, m="": seen.append(f))
    assert seen[-1] == 1.0 and seen == sorted(seen)

    def cancel(f: float, m: str = "") -> None:
        if f > 0.3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_study(_two_arms(0.1, n=5), progress=cancel)


def test_process_pool_gives_the_inline_numbers():
    study = _two_arms(0.3, n=9, master=77)
    inline = run_study(study)
    pool = run_study(study, workers=2, chunk_size=2)
    for arm in ("a", "b"):
        np.testing.assert_array_equal(inline.column("x", arm), pool.column("x", arm))


def test_json_round_trip_is_strict_and_keeps_the_statistics():
    res = run_study(Study("nan", (Arm("f", _sometimes_nan), Arm("g", coin)), n=12,
                          master_seed=5))
    text = dumps(res.to_json())
    data = json.loads(text)
    assert data["seeds"] == list(res.seeds) and data["arms"][0]["function"].endswith(
        ":_sometimes_nan")
    assert None in data["values"][0]["f"]["v"] and "v_reason" in data["values"][0]["f"]
    back = StudyResult.from_json(data)
    assert back.summary("v", "f") == res.summary("v", "f")
    with pytest.raises(ValueError, match="not a study result"):
        StudyResult.from_json({"seeds": []})


def test_tables_and_series_show_intervals():
    study = Study("grid", (Arm("a", shifted_normal, {"stream": 1}),
                           Arm("b", shifted_normal, {"stream": 2})),
                  n=20, master_seed=4, points=({"shift": 0.0}, {"shift": 2.0}))
    res = run_study(study)
    table = summary_table(res, ["x"])
    assert "shift=2.0" in table and "[" in table and "n = 20 seeds" in table
    series = interval_series(res, "x", "shift")
    assert series["a"]["x"].tolist() == [0.0, 2.0]
    assert np.all(series["a"]["lo"] <= series["a"]["center"])
    assert np.all(series["a"]["center"] <= series["a"]["hi"])
    rows = evaluate_claims(res, [Claim("shift raises x", "x", "a", "a", ">", point=1,
                                       b_point=0)])
    assert rows[0].holds
    t = claims_table(rows)
    assert "Wilcoxon" in t and "| 20 |" in t and "yes" in t


def test_a_dask_cluster_gives_the_inline_numbers():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from core.common.cluster import ClusterExecutor

    study = _two_arms(0.3, n=6, master=78)
    inline = run_study(study)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None, silence_logs=40) as c, Client(c) as client:
        ex = ClusterExecutor(client)
        remote = run_study(study, executor=ex, workers=ex.n_workers)
    for arm in ("a", "b"):
        np.testing.assert_array_equal(inline.column("x", arm), remote.column("x", arm))


def test_a_claim_can_compare_two_metrics_of_the_same_runs():
    # x − baseline = shift + own noise, on the same runs (two attacks on the same victims)
    res = run_study(_two_arms(0.5, n=20, master=5))
    c = Claim("x above its baseline", "x", "a", "a", ">", b_metric="baseline")
    (r,) = evaluate_claims(res, [c])
    assert r.holds and r.comparison.diff_median == pytest.approx(
        float(np.median(res.column("x", "a") - res.column("baseline", "a"))))
    assert r.to_json()["b_metric"] == "baseline"
    (r0,) = evaluate_claims(res, [Claim("b above its baseline", "x", "b", "b", ">",
                                        b_metric="baseline")])
    assert not r0.holds                      # b's shift is 0
