"""experiments on a dask cluster give the process pool's numbers bit for bit, and
faults (an unreachable scheduler, a worker that dies) end in one clear line, never a hang."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from core.cli.main import run_cli
from core.common.cluster import check_address, cluster_executor, scheduler_address
from core.common.errors import InputError, RunFailure, WriteFailure
from core.common.parallel import run_chunks
from core.mdp.examples import random_mdp
from core.mdp.files import save_mdp
from core.mdp.sweep import privacy_sweep

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """A real LocalCluster on this machine: two worker processes, one thread each."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as c:
        yield c.scheduler_address


def test_scheduler_address_from_flag_or_environment():
    assert scheduler_address("tcp://a:1", environ={"DASK_SCHEDULER_ADDRESS": "tcp://b:2"}) \
        == "tcp://a:1"
    assert scheduler_address(None, environ={"DASK_SCHEDULER_ADDRESS": " tcp://b:2 "}) \
        == "tcp://b:2"
    assert scheduler_address("", environ={}) is None
    for bad in ("localhost:8786", "http://x:1", "tcp://", "tcp://a b:1"):
        with pytest.raises(InputError, match="not a scheduler address"):
            check_address(bad)


def test_unreachable_scheduler_is_one_line_and_quick():
    t0 = time.perf_counter()
    with pytest.raises(InputError) as info:
        with cluster_executor("tcp://127.0.0.1:9", timeout=2.0):
            pass
    assert time.perf_counter() - t0 < 15
    assert "no dask scheduler answered at tcp://127.0.0.1:9 within 2 s" in str(info.value)
    assert "\n" not in str(info.value)


def test_sweep_on_a_local_cluster_equals_the_process_pool(cluster, monkeypatch):
    import core.mdp.sweep as sweep

    monkeypatch.setattr(sweep, "SMALL_WORK", 0)  # a real pool, whatever the size
    mdp = random_mdp(12, 3, 5, seed=4)
    pool = privacy_sweep(mdp, [10.0, 300.0], runs=7, seed=11, workers=2)
    with cluster_executor(cluster) as ex:
        assert ex.n_workers == 2
        on_cluster = privacy_sweep(mdp, [10.0, 300.0], runs=7, seed=11, workers=ex.n_workers,
                                   executor=ex)
    inline = privacy_sweep(mdp, [10.0, 300.0], runs=7, seed=11, workers=1)
    for name in ("v_lower", "v_private", "v_true", "v_upper"):
        np.testing.assert_array_equal(getattr(pool, name), getattr(on_cluster, name))
        np.testing.assert_array_equal(getattr(pool, name), getattr(inline, name))


def test_cli_sweep_with_scheduler_flag_and_environment(cluster, tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    save_mdp(random_mdp(8, 2, 4, seed=1), path)
    base = ["sweep", str(path), "--k", "10,100", "--runs", "4", "--seed", "5", "--json"]

    def run(extra: list[str]) -> dict:
        out, err = io.StringIO(), io.StringIO()
        assert run_cli(base + extra, out, err) == 0, err.getvalue()
        d = json.loads(out.getvalue())
        d.pop("elapsed_s")
        return d

    monkeypatch.setenv("PRIVPLAN_SMALL_WORK", "0")  # a real pool for the local run
    local = run(["--workers", "2"])
    assert local.pop("backend") == "2 local worker processes"
    on_cluster = run(["--scheduler", cluster])
    assert on_cluster.pop("backend") == f"dask cluster at {cluster} (2 threads)"
    assert on_cluster == local
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster)
    from_env = run([])
    assert from_env.pop("backend").startswith("dask cluster at ")
    assert from_env == local
    # both flags, and a scheduler nobody runs: exit 2, one line naming the flag
    for extra, want in ((["--scheduler", cluster, "--workers", "2"], "not both"),
                        (["--scheduler", "tcp://127.0.0.1:9"], "no dask scheduler answered")):
        err = io.StringIO()
        assert run_cli(base + extra, io.StringIO(), err) == 2
        line = err.getvalue()
        assert line.count("\n") == 1 and "--scheduler" in line and want in line, line


def test_advising_experiment_on_the_cluster_equals_the_pool(cluster):
    from core.advising.experiments import run_experiment
    from core.advising.presets import experiment_arms

    arms = experiment_arms("exp2", epochs=40)
    pool = run_experiment(arms, seeds=4, seed=2, workers=2)
    with cluster_executor(cluster) as ex:
        dask = run_experiment(arms, seeds=4, seed=2, workers=ex.n_workers, executor=ex)
    for name in ("convergence", "advice", "ask_budget"):
        np.testing.assert_array_equal(getattr(pool, name), getattr(dask, name))


# ---------------------------------------------------------------- a worker that dies

def _die_once(marker: str, x: int) -> int:
    """Kill this worker process the first time any chunk with x == 2 runs."""
    if x == 2 and not os.path.exists(marker):
        Path(marker).write_text("died")
        os._exit(9)
    return x * x


def _always_die(x: int) -> int:
    if x == 2:
        os._exit(9)
    return x * x


def test_a_worker_that_dies_once_is_retried(tmp_path):
    got: dict[int, int] = {}
    marker = str(tmp_path / "died")
    run_chunks(_die_once, [(i,) for i in range(6)], lambda t: t,
               lambda t, r: got.__setitem__(t[0], r), inline=False, workers=2, shared=(marker,))
    assert got == {i: i * i for i in range(6)} and os.path.exists(marker)


def test_a_worker_that_keeps_dying_names_what_is_missing():
    got: dict[int, int] = {}
    with pytest.raises(RunFailure) as info:
        run_chunks(_always_die, [(i,) for i in range(6)], lambda t: t,
                   lambda t, r: got.__setitem__(t[0], r), inline=False, workers=2,
                   describe=lambda t: f"chunk {t[0]}")
    msg = str(info.value)
    assert msg.startswith("a worker process died twice") and "chunk 2" in msg, msg
    assert "\n" not in msg and info.value.missing >= 1
    assert all(got[i] == i * i for i in got)  # what finished stays recorded


def test_a_full_disk_is_one_line_and_keeps_the_old_file(tmp_path, monkeypatch):
    from core.common import atomic

    target = tmp_path / "out.json"
    target.write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(WriteFailure, match="No space left on device; the previous file is "
                                           "untouched") as info:
        atomic.atomic_write_text(target, "new")
    assert isinstance(info.value, OSError) and info.value.errno == 28
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary left


def test_cli_exit_3_on_a_full_disk(tmp_path, monkeypatch):
    """A full disk while writing results: exit 3, one line naming the file."""
    from core.common import atomic

    path = tmp_path / "m.json"
    save_mdp(random_mdp(4, 2, 3, seed=1), path)

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    err = io.StringIO()
    code = run_cli(["privatize", str(path), "--k", "50", "--seed", "1", "-o",
                    str(tmp_path / "p.json")], io.StringIO(), err)
    assert code == 3 and err.getvalue().count("\n") == 1, err.getvalue()
    assert "p.json" in err.getvalue() and "No space left on device" in err.getvalue()
    assert not (tmp_path / "p.json").exists()


def test_a_sweep_that_fails_midway_keeps_what_finished(tmp_path, monkeypatch):
    """A worker that keeps dying: exit 3 with one line on stderr; with --json the runs that
    finished come out as a partial result (complete: false, null + reason where a k has none)."""
    import core.mdp.sweep as sweep

    full = privacy_sweep(random_mdp(5, 2, 3, seed=2), [10.0, 100.0], runs=3, seed=4, workers=1)
    real = sweep.run_chunks

    def dies_after_three(fn, tasks, args, record, **kw):
        def guarded(task, result):
            if task[0] == 1 and task[1] >= 1:  # k = 100 runs 2.. are lost
                return
            record(task, result)
        kw["inline"] = True
        real(fn, tasks, args, guarded, **kw)
        raise RunFailure("a worker process died twice: 3 of 6 chunks finished, missing: "
                         "k = 100 runs 2-2; k = 100 runs 3-3", missing=2)

    monkeypatch.setattr(sweep, "run_chunks", dies_after_three)
    path = tmp_path / "m.json"
    save_mdp(random_mdp(5, 2, 3, seed=2), path)
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["sweep", str(path), "--k", "10,100", "--runs", "3", "--seed", "4", "--json",
                    "--workers", "1"], out, err)
    assert code == 3 and err.getvalue().count("\n") == 1
    assert "missing: k = 100 runs 2-2" in err.getvalue()
    partial = json.loads(out.getvalue())
    assert partial["complete"] is False and partial["runs_finished"] == [3, 1]
    assert partial["v_lower_mean"][0] == pytest.approx(float(full.v_lower[0].mean()), abs=0)
    assert partial["v_upper_mean"][1] == pytest.approx(float(full.v_upper[1, 0]), abs=0)


def test_partial_summary_says_null_and_why_where_no_run_finished():
    from core.mdp.sweep import partial_summary

    values = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4)
    finished = np.array([[True, True, False], [False, False, False]])
    p = partial_summary([10.0, 100.0], values, finished, seed=1, runs=3, missing="x")
    assert p["runs_finished"] == [2, 0] and p["complete"] is False and p["missing"] == "x"
    assert p["v_lower_mean"] == [2.0, None]           # runs 0 and 1 of k = 10: (0 + 4) / 2
    assert p["v_lower_mean_reason"] == [None, "no run of this k finished"]
    json.dumps(p, allow_nan=False)                    # strict JSON


def test_policy_sharing_seeds_on_the_cluster_equal_in_process(cluster):
    from core.mdp.examples import four_startups
    from core.sharing.learning import SharingSetup, run_sharing

    setup = SharingSetup(iterations=6, draws=20_000)
    local = run_sharing(four_startups(), setup, seeds=4, seed=3)
    with cluster_executor(cluster) as ex:
        dask = run_sharing(four_startups(), setup, seeds=4, seed=3, workers=ex.n_workers,
                           executor=ex)
    for kind in local.curves:
        np.testing.assert_array_equal(local.curves[kind], dask.curves[kind])
