"""core.study.runner (with its tables and claims on grids): every stored value is what the arm
returns when called directly with that replicate's seed, bad studies and arms are refused
with their names, results are read-only and survive JSON (NaN included), and grid points,
two-point comparisons and missing metrics read as documented."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from core.study.claims import Claim, evaluate_claims
from core.study.runner import Arm, Study, StudyResult, arm_reference, point_label, run_study
from core.study.seeds import derive_seeds
from core.study.tables import interval_series, summary_table
from core.study.toy import coin, shifted_normal


# module-level arms (the runner's contract), each deterministic in its seed
def linear(seed: int, a: float = 1.0, b: float = 0.0) -> dict[str, float]:
    return {"y": a * (seed % 1000) + b, "seed_mod": float(seed % 7)}


def flaky(seed: int) -> dict[str, float]:
    return {"v": math.nan if seed % 3 == 0 else float(seed % 5), "ok": seed % 2 == 0}


def moody(seed: int) -> dict[str, float]:
    return {"a": 1.0} if seed % 2 else {"b": 1.0}


def not_a_mapping(seed: int) -> list[float]:
    return [1.0]


def only_x(seed: int, noise: float = 0.0) -> dict[str, float]:
    return {"x": float(seed % 11)}


# ------------------------------------------------------------------ definitions
@pytest.mark.parametrize("kwargs,match", [
    ({"arms": ()}, "at least one arm"),
    ({"arms": (Arm("a", linear), Arm("a", linear))}, "distinct"),
    ({"n": 0}, "n must be >= 1"),
    ({"master_seed": -1}, "master_seed"),
    ({"level": 1.0}, "level"),
    ({"level": 0.0}, "level"),
    ({"test": "anova"}, "test must be"),
    ({"points": ()}, "at least one point"),
    ({"arms": (Arm("a", linear, {"a": 2.0}),), "points": ({"a": 1.0},)},
     "arm 'a' and point 'a=1.0' both set \\['a'\\]"),
])
def test_a_bad_study_is_refused_saying_what(kwargs: dict, match: str) -> None:
    base: dict[str, Any] = {"name": "s", "arms": (Arm("a", linear),), "n": 3, "master_seed": 1}
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Study(**base)


def test_a_bad_arm_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty name"):
        Arm("", linear)
    with pytest.raises(TypeError, match="must be callable"):
        Arm("a", 3)  # type: ignore[arg-type]


def test_arm_and_point_parameters_are_frozen_copies() -> None:
    params = {"a": 2.0}
    arm = Arm("x", linear, params)
    params["a"] = 5.0
    assert arm.params["a"] == 2.0
    with pytest.raises(TypeError):
        arm.params["a"] = 3.0  # type: ignore[index]
    s = Study("s", [arm], n=2, master_seed=0, points=[{"b": 1.0}])
    assert isinstance(s.arms, tuple) and isinstance(s.points, tuple)
    with pytest.raises(TypeError):
        s.points[0]["b"] = 2.0  # type: ignore[index]


def test_with_seed_changes_only_the_seed() -> None:
    s = Study("s", (Arm("a", linear),), n=4, master_seed=1, points=({"b": 1.0},),
              level=0.9, test="t", bootstrap=10)
    t = s.with_seed(99)
    assert t.master_seed == 99
    assert (t.name, t.arms, t.n, t.points, t.level, t.test, t.bootstrap) == \
        (s.name, s.arms, s.n, s.points, s.level, s.test, s.bootstrap)


def test_point_labels_and_arm_references() -> None:
    assert point_label({"eps": 0.5, "map": "ü"}) == "eps=0.5, map=ü"
    assert point_label({}) == "all"
    assert arm_reference(linear) == f"{__name__}:linear"


# ------------------------------------------------------------------ running
def test_every_value_is_the_arm_called_with_its_replicate_seed() -> None:
    points = ({"b": 0.0}, {"b": 10.0})
    s = Study("grid", (Arm("one", linear, {"a": 1.0}), Arm("two", linear, {"a": -2.0})),
              n=7, master_seed=42, points=points)
    r = run_study(s)
    seeds = derive_seeds(42, 7)
    assert r.seeds == seeds and r.n == 7 and r.seed_source == "given"
    for p, point in enumerate(points):
        for arm in s.arms:
            want = [linear(sd, **arm.params, **point)["y"] for sd in seeds]
            assert r.column("y", arm.name, p).tolist() == want
            assert r.column("y", arm.name, dict(point)).tolist() == want
    assert r.metrics == ("y", "seed_mod")
    assert r.arm_functions == (f"{__name__}:linear",) * 2
    assert r.elapsed_s >= 0


def test_booleans_are_read_as_zero_one_and_nan_is_kept() -> None:
    r = run_study(Study("f", (Arm("f", flaky),), n=30, master_seed=5))
    ok = r.column("ok", "f")
    assert set(ok.tolist()) <= {0.0, 1.0}
    v = r.column("v", "f")
    seeds = np.array(r.seeds)
    assert np.array_equal(np.isnan(v), seeds % 3 == 0)
    s = r.summary("v", "f")
    assert s.n_missing == int((seeds % 3 == 0).sum()) and s.n + s.n_missing == 30


def test_results_are_read_only() -> None:
    r = run_study(Study("s", (Arm("a", linear),), n=3, master_seed=1))
    col = r.column("y", "a")
    with pytest.raises(ValueError):
        col[0] = 5.0
    with pytest.raises(TypeError):
        r.values[0]["a"] = {}  # type: ignore[index]


def test_an_arm_that_changes_its_metrics_or_returns_a_list_is_refused() -> None:
    with pytest.raises(ValueError, match="returned metrics"):
        run_study(Study("m", (Arm("moody", moody),), n=6, master_seed=1))
    with pytest.raises(TypeError, match="not a mapping"):
        run_study(Study("m", (Arm("list", not_a_mapping),), n=2, master_seed=1))


def test_workers_must_be_positive_and_local_functions_cannot_go_to_a_pool() -> None:
    s = Study("s", (Arm("a", linear),), n=2, master_seed=1)
    with pytest.raises(ValueError, match="workers"):
        run_study(s, workers=0)

    def local(seed: int) -> dict[str, float]:
        return {"y": 1.0}

    with pytest.raises(TypeError, match="module level"):
        run_study(Study("s", (Arm("loc", local),), n=2, master_seed=1), workers=2)


def test_a_drawn_master_seed_is_recorded_and_reproduces_the_run() -> None:
    r = run_study(Study("s", (Arm("a", linear),), n=4))
    assert r.seed_source == "drawn from the operating system"
    again = run_study(Study("s", (Arm("a", linear),), n=4, master_seed=r.master_seed))
    assert again.column("y", "a").tolist() == r.column("y", "a").tolist()


def test_progress_reaches_one_and_counts_runs() -> None:
    seen: list[tuple[float, str]] = []
    run_study(Study("p", (Arm("a", linear), Arm("b", linear)), n=5, master_seed=1,
                    points=({"b": 0.0}, {"b": 1.0})),
              progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == pytest.approx(1.0)
    assert fractions == sorted(fractions)
    assert "20 runs" in seen[0][1] and "20 of 20 runs" in seen[-1][1]


# ------------------------------------------------------------------ reading a result
@pytest.fixture(scope="module")
def grid() -> StudyResult:
    arms = (Arm("hi", shifted_normal, {"shift": 1.0}),
            Arm("lo", shifted_normal, {"shift": 0.0, "stream": 1}),
            Arm("only", only_x))
    return run_study(Study("g", arms, n=12, master_seed=8,
                           points=({"noise": 0.1}, {"noise": 0.5})))


def test_look_ups_name_what_is_missing(grid: StudyResult) -> None:
    with pytest.raises(KeyError, match="out of range 0..1"):
        grid.point_index(2)
    with pytest.raises(KeyError, match="no point 'noise=9'"):
        grid.point_index({"noise": 9})
    with pytest.raises(KeyError, match="no arm 'zz'"):
        grid.column("x", "zz")
    with pytest.raises(KeyError, match="did not report 'baseline'"):
        grid.column("baseline", "only")
    assert grid.point_index({"noise": 0.5}) == 1


def test_comparisons_across_points_and_metrics_are_named(grid: StudyResult) -> None:
    c = grid.compare("x", "hi", "hi", {"noise": 0.1}, b_point={"noise": 0.5})
    assert (c.a, c.b) == ("hi@noise=0.1", "hi@noise=0.5")
    assert c.n == 12
    d = grid.compare("x", "hi", "hi", 0, b_metric="baseline")
    assert (d.a, d.b) == ("hi:x", "hi:baseline")
    # x − baseline is the arm's shift plus its own noise: the median difference is near 1
    assert d.diff_median == pytest.approx(1.0, abs=0.2)
    e = grid.equivalence("x", "lo", "lo", 0.5, 0, b_point=1)
    assert e.n == 12 and (e.a, e.b) == ("lo", "lo")


def test_claims_across_points_say_both_points(grid: StudyResult) -> None:
    r = evaluate_claims(grid, [Claim("hi beats lo", "x", "hi", "lo", ">", point=0,
                                     b_point=1)], adjust="none")
    assert r[0].point_text == "noise=0.1 vs noise=0.5"


def test_json_round_trip_keeps_every_value_and_nan(grid: StudyResult) -> None:
    flaky_r = run_study(Study("f", (Arm("f", flaky),), n=9, master_seed=2))
    for res in (grid, flaky_r):
        text = json.dumps(res.to_json(), allow_nan=False)
        back = StudyResult.from_json(json.loads(text))
        assert back.seeds == res.seeds and back.arms == res.arms
        assert [dict(p) for p in back.points] == [dict(p) for p in res.points]
        for p in range(len(res.points)):
            for arm in res.arms:
                for m, col in res.values[p][arm].items():
                    assert np.array_equal(back.column(m, arm, p), col, equal_nan=True)
        assert back.summary(res.metrics[0], res.arms[0]) == res.summary(res.metrics[0],
                                                                        res.arms[0])


def test_from_json_refuses_short_columns_and_missing_keys(grid: StudyResult) -> None:
    doc = grid.to_json()
    doc["values"][0]["hi"]["x"] = doc["values"][0]["hi"]["x"][:-1]
    with pytest.raises(ValueError, match="hi/x: 11 values, 12 seeds"):
        StudyResult.from_json(doc)
    with pytest.raises(ValueError, match="not a study result"):
        StudyResult.from_json({"name": "x"})


def test_unserialisable_parameters_are_recorded_by_their_repr() -> None:
    r = run_study(Study("s", (Arm("a", linear, {"a": 2.0}),), n=2, master_seed=1,
                        points=({"b": 1.0},)))
    doc = r.to_json()
    assert doc["arms"][0]["params"] == {"a": 2.0} and doc["points"] == [{"b": 1.0}]
    obj = object()
    doc2 = StudyResult(**{**r.__dict__, "arm_params": ({"thing": obj},)}).to_json()
    assert doc2["arms"][0]["params"]["thing"] == repr(obj)


# ------------------------------------------------------------------ tables on a grid
def test_summary_table_marks_missing_values_and_absent_metrics(grid: StudyResult) -> None:
    table = summary_table(grid, ["x", "baseline"])
    only_rows = [ln for ln in table.splitlines() if "| only |" in ln]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in only_rows]
    assert len(cells) == 2 and all(c[-1] == "—" and c[-2] != "—" for c in cells)
    flaky_r = run_study(Study("f", (Arm("f", flaky),), n=9, master_seed=2))
    missing = int(np.isnan(flaky_r.column("v", "f")).sum())
    assert missing > 0
    assert f"({missing} missing)" in summary_table(flaky_r, ["v"])
    assert "Clopper–Pearson" in summary_table(flaky_r, ["ok"], center="rate")


def test_interval_series_reads_x_from_the_point(grid: StudyResult) -> None:
    s = interval_series(grid, "baseline", x="noise")
    assert set(s) == {"hi", "lo"}  # "only" does not report it
    assert s["hi"]["x"].tolist() == [0.1, 0.5]
    # the baseline is shared by every arm on a seed: the same centre for both arms
    assert s["hi"]["center"].tolist() == s["lo"]["center"].tolist()
    assert interval_series(grid, "x", arms=["only"])["only"]["n"].tolist() == [12, 12]


def test_a_coin_rate_summary_uses_clopper_pearson_bounds() -> None:
    r = run_study(Study("c", (Arm("c", coin, {"p": 0.3}),), n=40, master_seed=4))
    s = r.summary("success", "c")
    k = int(r.column("success", "c").sum())
    from scipy import stats as sps

    assert s.rate_lo == pytest.approx(sps.beta.ppf(0.025, k, 40 - k + 1))
    assert s.rate_hi == pytest.approx(sps.beta.ppf(0.975, k + 1, 40 - k))
