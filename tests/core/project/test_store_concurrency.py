"""Nothing lost: two writers at once, copied and symlinked projects,
kills during a save, and the window's save over a file a command recorded into.

Before the project store, two ``--record`` runs into one project lost one run in 19 of 20
trials (last writer wins), recording into a copy deleted the sidecar the original named, and
recording through a symlink replaced the link.
"""

from __future__ import annotations

import io
import json
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from core.cli.main import run_cli
from core.mdp.examples import example2
from core.mdp.model import MDP
from core.privacy.ledger import LedgerEntry
from core.project import files as project_files
from core.project.files import load_project, named_sidecars, save_project
from core.project.model import Project, RunRecord
from core.project.store import ProjectChanged, record_and_save, save_document

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
TRIALS = 20
ENTRIES = 10  # ledger entries per run (an unseeded advising run records 10)


def _entries(tag: str, source: str) -> list[LedgerEntry]:
    return [LedgerEntry(id="", dataset=f"agent:{i}", mechanism="laplace", epsilon=0.5,
                        released=f"{tag} advice {i}", source=source) for i in range(ENTRIES)]


def _writer(paths: list[str], tag: str, barrier: object) -> None:
    """One recording process: for every trial, wait for the other, then record one run."""
    for path in paths:
        project = load_project(path)  # read before the "run", like a command does
        barrier.wait()  # type: ignore[attr-defined]
        record = RunRecord(project.new_run_id(), "advise", "team", {"tag": tag}, {},
                           "release", None)
        record_and_save(path, project, record, _entries(tag, record.id))


def test_two_recording_processes_at_once_lose_no_run_and_no_ledger_entry(tmp_path):
    paths = []
    for t in range(TRIALS):
        p = tmp_path / f"t{t}.privplan.json"
        shutil.copy(BUILTIN, p)
        paths.append(str(p))
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(paths, tag, barrier)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    for path in paths:
        project = load_project(path)
        tags = sorted(r.params["tag"] for r in project.runs)
        assert tags == ["a", "b"], path  # every run of both writers, in every trial
        assert len(project.ledger) == 2 * ENTRIES
        assert len({e.id for e in project.ledger}) == 2 * ENTRIES
        for run in project.runs:  # each run's entries point at it, and only at it
            mine = [e for e in project.ledger if e.source == run.id]
            assert len(mine) == ENTRIES
            assert {e.released.split()[0] for e in mine} == {run.params["tag"]}


def test_two_real_advise_record_commands_at_once_keep_both_runs(tmp_path):
    """The issue's reproduction: unseeded advising runs (10 ledger entries each) recorded by
    two processes at the same time (twice: the 20 trials above are the many)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    for trial in range(2):
        path = tmp_path / f"p{trial}.privplan.json"
        shutil.copy(BUILTIN, path)
        argv = [sys.executable, "-m", "core.cli", "advise", "--preset", "exp2", "--epochs",
                "3", "--record", str(path), "--json", "--summary"]
        procs = [subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [o[1][-500:] for o in outs]
        recorded = [json.loads(o[0])["recorded"] for o in outs]
        project = load_project(path)
        assert len(project.runs) == 2
        assert sorted(r["run"] for r in recorded) == sorted(r.id for r in project.runs)
        assert len(project.ledger) == sum(r["ledger_entries"] for r in recorded) == 20
        assert all(r.mode == "release" for r in project.runs)


# ------------------------------------------------------------------------- copies and links
def _big_project(folder: Path, name: str = "big.privplan.json") -> Path:
    path = folder / name
    p = Project(name="big")
    p.add_mdp(example2(), "ex")
    save_project(p, path)
    return path


def _record(path: Path, tag: str) -> None:
    project = load_project(path)
    rec = RunRecord(project.new_run_id(), "audit", "laplace", {"tag": tag}, {}, "experiment", 1)
    record_and_save(path, project, rec)


def test_recording_into_a_copied_project_leaves_the_original_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    original = _big_project(tmp_path)
    copy = tmp_path / "copy.privplan.json"
    shutil.copy(original, copy)
    _record(copy, "copy")
    for path in (original, copy):
        assert load_project(path).mdps[0].mdp == example2()
    # a changed model in the copy: a new sidecar; the original's is kept (it still names it)
    project = load_project(copy)
    m = example2()
    P = np.array(m.P)
    P[0, 0] = np.roll(P[0, 0], 1)
    project.mdps[0].mdp = MDP(P=P, R=m.R, R_T=m.R_T, mask=m.mask, horizon=m.horizon,
                              discount=m.discount, initial_state=m.initial_state)
    save_document(project, copy)
    assert load_project(original).mdps[0].mdp == example2()
    assert np.array_equal(load_project(copy).mdps[0].mdp.P, P)
    assert named_sidecars(original) != named_sidecars(copy)


def test_a_copy_of_a_project_from_before_content_addressing_keeps_the_originals_sidecar(
        tmp_path, monkeypatch):
    """The issue's case exactly: the original names ``big.<id>.<digest>.npz`` (older
    PrivPlan); recording into ``cp big copy`` must not remove it."""
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    original = _big_project(tmp_path)
    (new_name,) = named_sidecars(original)
    old_name = f"big.ex.{project_files.arrays_digest(example2().P)}.npz"
    os.rename(tmp_path / new_name, tmp_path / old_name)
    original.write_text(original.read_text().replace(new_name, old_name))
    copy = tmp_path / "copy.privplan.json"
    shutil.copy(original, copy)
    _record(copy, "copy")
    assert (tmp_path / old_name).is_file()
    assert load_project(original).mdps[0].mdp == example2()
    assert load_project(copy).mdps[0].mdp == example2()


def test_recording_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = _big_project(real_dir)
    other = tmp_path / "elsewhere"
    other.mkdir()
    link = other / "link.privplan.json"
    link.symlink_to(target)
    _record(link, "via link")
    assert link.is_symlink() and os.readlink(link) == str(target)
    project = load_project(target)
    assert [r.params["tag"] for r in project.runs] == ["via link"]
    assert project.mdps[0].mdp == example2()
    assert load_project(link).runs[0].params["tag"] == "via link"
    assert not list(other.glob("*.npz"))  # the arrays stay beside the real file
    save_project(load_project(link), link)  # a plain save through the link as well
    assert link.is_symlink()


# ------------------------------------------------------------------------- orphans
def test_orphaned_sidecars_are_collected_only_when_no_project_names_them_and_old(
        tmp_path, monkeypatch):
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    path = _big_project(tmp_path)
    (named,) = named_sidecars(path)
    # a killed save left an orphan (written, never named); a copy names the same arrays
    orphan = tmp_path / ("arrays." + "ab" * 12 + ".npz")
    np.savez(orphan, P=np.zeros((2, 2, 2)))
    shutil.copy(path, tmp_path / "copy.privplan.json")
    assert project_files.collect_sidecars(tmp_path) == []  # young: kept (a writer may need it)
    old = time.time() - 2 * project_files.SIDECAR_GRACE_S
    os.utime(orphan, (old, old))
    os.utime(tmp_path / named, (old, old))
    assert project_files.collect_sidecars(tmp_path) == [orphan.name]
    assert (tmp_path / named).is_file()  # named by both project files


# ------------------------------------------------------------------------- kills
KILLER_CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from core.privacy.ledger import LedgerEntry
    from core.project import files
    from core.project.files import load_project
    from core.project.model import RunRecord
    from core.project.store import record_and_save

    files.SIDECAR_NNZ = 100
    path = sys.argv[1]
    print("ready", flush=True)
    while True:
        project = load_project(path)
        rec = RunRecord(project.new_run_id(), "advise", "team", {{}}, {{}}, "release", None)
        entries = [LedgerEntry(id="", dataset="agent:%d" % i, mechanism="laplace",
                               epsilon=0.5, source=rec.id) for i in range(5)]
        record_and_save(path, project, rec, entries)
""")


def test_a_writer_killed_at_random_moments_leaves_a_readable_project(tmp_path, monkeypatch):
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    path = _big_project(tmp_path)
    child = tmp_path / "child.py"
    child.write_text(KILLER_CHILD.format(root=str(ROOT)))
    rng = np.random.default_rng(24)
    runs = 0
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, str(child), str(path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(float(rng.uniform(0.05, 0.6)))
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        project = load_project(path)  # never unreadable, never a torn pair
        assert project.mdps[0].mdp == example2()
        assert len(project.runs) >= runs
        runs = len(project.runs)
        assert len(project.ledger) == 5 * runs  # a run and its entries land together
        assert {e.source for e in project.ledger} == {r.id for r in project.runs}
    assert runs > 0


# ------------------------------------------------------------------------- the window's save
def test_the_windows_save_keeps_what_a_command_recorded_meanwhile(tmp_path):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    window = load_project(path)
    code = run_cli(["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples",
                    "2000", "--seed", "1", "--record", str(path), "--json"],
                   out=io.StringIO(), err=io.StringIO())
    assert code == 0
    window.notes = "edited in the window"
    window.runs.append(RunRecord(window.new_run_id(), "audit", "exponential", {}, {},
                                 "experiment", 3))
    report = save_document(window, path)
    after = load_project(path)
    assert sorted(r.target for r in after.runs) == ["exponential", "laplace"]
    assert after.notes == "edited in the window"
    assert report.merged_runs and report.merged_runs[0] in {r.id for r in window.runs}


def test_the_windows_save_refuses_to_overwrite_a_section_another_writer_changed(tmp_path):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    window = load_project(path)
    other = load_project(path)
    other.notes = "changed by another window"
    other.ledger.append(LedgerEntry(id="rel-1", dataset="d", mechanism="m", epsilon=1.0))
    save_document(other, path)
    window.notes = "changed here"
    before = path.read_bytes()
    with pytest.raises(ProjectChanged, match="the notes"):
        save_document(window, path)
    assert path.read_bytes() == before  # nothing written
    save_document(window, path, overwrite=True)  # the user chose to overwrite
    after = load_project(path)
    assert after.notes == "changed here"
    assert [e.dataset for e in after.ledger] == ["d"]  # the other writer's release is kept


def test_duplicate_model_ids_are_refused(tmp_path):
    doc = json.loads(BUILTIN.read_text())
    mdps = doc["project"]["mdps"]
    mdps[1]["id"] = mdps[0]["id"]
    path = tmp_path / "dup.privplan.json"
    path.write_text(json.dumps(doc))
    err = io.StringIO()
    code = run_cli(["report", str(path), "-o", str(tmp_path / "r.html")], io.StringIO(), err)
    assert code == 2 and err.getvalue().count("\n") == 1
    assert "duplicate model id" in err.getvalue()
    assert not (tmp_path / "r.html").exists()
