"""Benchmarks B1–B5: worker-count invariance, cancellation, outputs, trend checks."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from core._validation import InputError
from core.logistics.experiments import BENCHMARKS, METRICS, benchmark_config, run_benchmark
from core.progress import Cancelled


def test_results_do_not_depend_on_workers_or_chunking():
    a = run_benchmark("B2", values=[4, 6], worlds=4, seed=11, workers=1)
    with ThreadPoolExecutor(2) as ex:
        b = run_benchmark("B2", values=[4, 6], worlds=4, seed=11, executor=ex)
    for m in METRICS[:-1]:  # plan_ms is a wall-clock time
        assert np.array_equal(a.metric(m), b.metric(m), equal_nan=True), m
    c = run_benchmark("B2", values=[4, 6], worlds=4, seed=12, workers=1)
    assert not np.array_equal(a.metric("route_length"), c.metric("route_length"),
                              equal_nan=True)


def test_cancel_through_progress():
    calls = []

    def progress(f, msg=""):
        calls.append(f)
        if f > 0:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_benchmark("B3", values=[0.1], worlds=3, seed=1, workers=1, progress=progress)
    assert calls[0] == 0.0 and len(calls) == 2


def test_every_benchmark_runs_small_and_reports():
    for name in BENCHMARKS:
        cfg = benchmark_config(name)
        kw = {}
        if name == "B2":
            kw["values"] = [4, 5]
        elif name == "B4":
            kw["n_centers"] = 6
        elif name in ("B1", "B3"):
            kw["values"] = list(cfg.values[:2])
        r = run_benchmark(name, worlds=2, seed=3, workers=1, **kw)
        d = r.to_dict()
        assert d["benchmark"] == name and d["worlds"] == 2 and d["thesis_figure"] == cfg.figure
        assert len(d["rows"]) == len(r.config.values) * len(r.config.approaches)
        assert all(isinstance(c["holds"], bool) for c in d["checks"])
        succ = r.metric("success")
        assert np.all((succ[np.isfinite(succ)] >= 0) & (succ[np.isfinite(succ)] <= 1))
        lo, hi = r.ci("success")
        mean = r.mean("success")
        ok = np.isfinite(lo)
        assert np.all(lo[ok] <= mean[ok] + 1e-12) and np.all(mean[ok] <= hi[ok] + 1e-12)
        assert r.to_csv().count("\n") == 1 + len(d["rows"])


def test_b5_memo_rounds_share_one_session():
    r = run_benchmark("B5", worlds=3, seed=2, workers=1, n_centers=8)
    m = r.mean("messages")
    assert r.config.values == (1.0, 2.0, 3.0, 4.0, 5.0)
    assert np.all(m[1:] < m[0])  # after round 1 the memo and cached maps cut messages


def test_config_validation():
    with pytest.raises(InputError) as ei:
        benchmark_config("B7")
    assert ei.value.field == "benchmark"
    with pytest.raises(InputError) as ei:
        run_benchmark("B1", worlds=0)
    assert ei.value.field == "worlds"
    with pytest.raises(InputError):
        benchmark_config("B1", approaches=["dp", "teleport"])
    assert math.isinf(benchmark_config("B5").comm_budget)
