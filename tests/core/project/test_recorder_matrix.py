"""Every recorder against every recorder, as real processes: nothing lost, every entry on
its own run.

Each command that can record into a project (``sweep``, ``bounds``, ``design``, ``audit``,
``plan``, ``advise``, ``advise-bench``, ``share``, ``mia``, ``drl``, ``comarl``,
``plan-bench`` (a run without ledger entries), and ``share gym:… --agent ppo`` where
gymnasium and JAX are installed) runs in a group of 2 or 4 processes recording into one
project at once.
One command of each group is slowed (``recorder_worker.py``): it reads the project and
computes, then waits until the others have recorded before it records itself — so it always
records over a file that changed since it read it, and its run id is always taken (it is
renumbered). The others run freely at the same time. Afterwards the project must hold:

* the runs and entries it had before, unchanged;
* one run per command, with the id the command printed, of the command's kind;
* exactly the ledger entries each command releases (the same as when it runs alone), each
  linked to its own run by its ``source`` — ``run-N`` or ``run-N: …`` — including the run
  that was renumbered.

Before the one writer, ``bounds --record`` and ``share --agent ppo --record`` replaced the
file with the copy they had read (the runs and entries others recorded meanwhile were lost),
and a renumbered ``plan`` run left its entries (``run-N: logistics: …``) on another run.

Cost: the commands run with their smallest arguments, and each worker process runs its jobs
one after another (one interpreter start per worker, not per command): the 2-process matrix
is every unordered pair (66), the 4-process one a covering set of 11 groups, each command
slowed in at least one.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from core.privacy.ledger import LedgerEntry
from core.project.files import load_project, run_dict, save_project
from core.project.model import Project, RunRecord

ROOT = Path(__file__).resolve().parents[3]
WORKER = Path(__file__).with_name("recorder_worker.py")
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
P = "{project}"  # replaced by each group's project file

#: Every recorder with its smallest arguments (seeded: the same entries every time).
RECORDERS: dict[str, tuple[str, list[str]]] = {  # name: (run kind, argv)
    "sweep": ("sweep", ["sweep", P, "--mdp", "four-startups", "--k", "100", "--runs", "1",
                        "--seed", "1", "--workers", "1", "--record"]),
    "bounds": ("bounds", ["bounds", P, "--mdp", "four-startups", "--k", "100", "--beta",
                          "0.05", "--seed", "1", "--record"]),
    "design": ("design", ["design", P, "--mdp", "four-startups", "--epsilon", "1", "--delta",
                          "0.05", "--selection", "exponential", "--selection-epsilon", "0.5",
                          "--seed", "2", "--record"]),
    "audit": ("audit", ["audit", "laplace", "--epsilon", "1", "--sensitivity", "1",
                        "--samples", "2000", "--seed", "3", "--record", P]),
    "plan": ("plan", ["plan", P, "--map", "map-1", "--origin", "a2", "--goal-agent", "f",
                      "--epsilon", "0.5", "--seed", "4", "--record"]),
    "advise": ("advise", ["advise", "--preset", "exp2", "--epochs", "3", "--seed", "5",
                          "--record", P, "--summary"]),
    "advise-bench": ("advise-experiment", ["advise-bench", "--experiment", "exp2", "--seeds",
                                           "1", "--epochs", "3", "--seed", "11", "--workers",
                                           "1", "--record", P]),
    "share": ("sharing", ["share", P, "--mdp", "four-startups", "--k0", "20", "--coef", "0.9",
                          "--eta", "0.1", "--delta", "0.01", "--budget", "1e6,0.9", "--seeds",
                          "1", "--students", "aware", "--iterations", "3", "--draws", "200",
                          "--seed", "6", "--record"]),
    "mia": ("mia", ["mia", "--data", "wine", "--train-size", "40", "--shadows", "1",
                    "--epochs", "5", "--seed", "7", "--record", P]),
    "drl": ("drl", ["drl", "example", "--episodes", "30", "--max-steps", "50", "--seed", "9",
                    "--record", P]),
    "comarl": ("comarl", ["comarl", "--agents", "2", "--size", "5", "--episodes", "20",
                          "--seed", "10", "--record", P]),
    "plan-bench": ("plan-bench", ["plan-bench", "B1", "--worlds", "1", "--values", "0.5",
                                  "--approaches", "noprivacy", "--workers", "1", "--seed",
                                  "11", "--record", P]),
}
PPO = ("sharing", ["share", "gym:CartPole-v1", "--agent", "ppo", "--iterations", "1",
                   "--seeds", "1", "--teacher-iterations", "1", "--ppo-envs", "2",
                   "--ppo-steps", "8", "--students", "aware", "--budget", "1e6,0.5",
                   "--delta", "1e-6", "--k0", "5", "--coef", "0.5", "--seed", "8",
                   "--project", P, "--record"])
NAMES = list(RECORDERS)


def entry_run(source: str, run_ids: Any) -> str | None:
    """The run an entry is linked to: its ``source`` is the run's id, or the id, ``": "``
    and what in the run released it (``docs/formats-and-cli.md`` §4). Stated here again,
    not imported, so that the test does not take the rule from the code it checks."""
    head = source.partition(": ")[0]
    return source if source in run_ids else head if head in run_ids else None


def relink(source: str, old: str, new: str) -> str:
    return new + source[len(old):] if entry_run(source, {old}) == old else source


def _have_ppo() -> str | None:
    """Why the PPO recorder cannot run here (None when it can)."""
    import importlib.util

    missing = [m for m in ("gymnasium", "jax", "equinox", "optax")
               if importlib.util.find_spec(m) is None]
    return (f"share --agent ppo needs {', '.join(missing)} (the gym and deep extras)"
            if missing else None)


def _argv(name: str, project: Path) -> list[str]:
    argv = PPO[1] if name == "ppo" else RECORDERS[name][1]
    return [str(project) if a == P else a for a in argv] + ["--json"]


def _kind(name: str) -> str:
    return PPO[0] if name == "ppo" else RECORDERS[name][0]


def base_project(folder: Path) -> Path:
    """The built-in example with a logistics map, and one run with two ledger entries of
    its own (``run-1``: the recorders' runs start at ``run-2`` and must leave it alone)."""
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41

    shutil.copy(BUILTIN, folder / "base.privplan.json")
    path = folder / "base.privplan.json"
    p: Project = load_project(path)
    p.maps.append(MapEntry("map-1", fig41()))
    p.runs.append(RunRecord("run-1", "audit", "laplace", {"tag": "before"}, {}, "experiment",
                            1))
    p.ledger.extend(LedgerEntry(id=f"rel-{i}", dataset="mdp:four-startups",
                                mechanism="laplace", epsilon=0.25, mode="experiment", seed=1,
                                source=src) for i, src in ((1, "run-1"), (2, "run-1: before")))
    save_project(p, path)
    return path


def _signature(entries: list[LedgerEntry], run: str) -> Counter[str]:
    """The entries as a multiset, without what differs between two identical runs (their
    project ids, the time, the run's id in the source and in the released text — any
    other run id left there is a stale link and does not match)."""
    out: Counter[str] = Counter()
    for e in entries:
        d = e.to_dict()
        d.pop("id")
        d.pop("time")
        d["source"] = relink(d["source"], run, "RUN")
        d["released"] = re.sub(rf"(?<![\w-]){re.escape(run)}(?!\d)", "RUN", d["released"])
        out[json.dumps(d, sort_keys=True, default=str)] += 1
    return out


def _run_workers(job_lists: list[list[dict[str, Any]]], tmp: Path,
                 prefix: list[str] | None = None) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore",
               JAX_PLATFORMS="cpu", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PRIVPLAN_DEBUG", None)
    procs = []
    for i, jobs in enumerate(job_lists):
        f = tmp / f"jobs-{i}.json"
        f.write_text(json.dumps(jobs))
        procs.append(subprocess.Popen([*(prefix or []), sys.executable, str(WORKER), str(f)],
                                      env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=1200)
        assert p.returncode == 0, err[-2000:]


def _result(job: dict[str, Any]) -> dict[str, Any]:
    return json.loads(Path(job["result"]).read_text())


def _groups_jobs(groups: list[tuple[str, ...]], base: Path, tmp: Path
                 ) -> tuple[list[list[dict[str, Any]]], list[tuple[Path, list[dict]]]]:
    """Worker job lists for ``groups`` (member 0 slowed) and, per group, its project and
    jobs. Worker ``i`` runs member ``i`` of every group, in the same order."""
    size = len(groups[0])
    workers: list[list[dict[str, Any]]] = [[] for _ in range(size)]
    base_runs = len(load_project(base).runs)
    made = []
    for g, names in enumerate(groups):
        folder = tmp / f"g{g}"
        folder.mkdir()
        project = folder / "p.privplan.json"
        shutil.copy(base, project)
        ready = str(folder / "slow-ready")
        jobs = []
        for i, name in enumerate(names):
            job: dict[str, Any] = {"name": name, "argv": _argv(name, project),
                                   "result": str(folder / f"result-{i}.json")}
            if i == 0:
                job["slow"] = {"ready": ready, "project": str(project),
                               "runs": base_runs + size - 1}
            else:
                job["after"] = ready
            jobs.append(job)
            workers[i].append(job)
        made.append((project, jobs))
    return workers, made


def _baselines(names: set[str], base: Path, tmp: Path) -> list[dict[str, Any]]:
    jobs = []
    for name in sorted(names):
        folder = tmp / f"solo-{name}"
        folder.mkdir()
        shutil.copy(base, folder / "p.privplan.json")
        jobs.append({"name": name, "argv": _argv(name, folder / "p.privplan.json"),
                     "result": str(folder / "result.json"), "project": str(folder)})
    return jobs


def _expected(solo: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    out = {}
    for job in solo:
        res = _result(job)
        assert res["code"] == 0, (job["name"], res["err"])
        project = load_project(Path(job["project"]) / "p.privplan.json")
        run = json.loads(res["out"])["recorded"]["run"]
        ids = {r.id for r in project.runs}
        out[job["name"]] = _signature(
            [e for e in project.ledger if entry_run(e.source, ids) == run], run)
    return out


def _check_group(project: Path, jobs: list[dict[str, Any]], base: Project,
                 expected: dict[str, Counter[str]]) -> list[str]:
    """What went wrong in one group's project (empty: nothing lost, every entry linked)."""
    names = [j["name"] for j in jobs]
    problems = []
    after = load_project(project)
    results = [_result(j) for j in jobs]
    for name, res in zip(names, results):
        if res["code"] != 0:
            problems.append(f"{name} exited {res['code']}: {res['err'].strip()}")
    if problems:
        return problems
    printed = [json.loads(r["out"])["recorded"]["run"] for r in results]
    runs = {r.id: r for r in after.runs}
    if len(after.runs) != len(base.runs) + len(jobs) or len(runs) != len(after.runs):
        problems.append(f"{len(base.runs) + len(jobs)} runs expected, the file holds "
                        f"{[r.id for r in after.runs]} (printed {printed})")
    if [run_dict(r) for r in after.runs[:len(base.runs)]] != [run_dict(r) for r in base.runs]:
        problems.append("the runs recorded before were changed")
    if [e.to_dict() for e in after.ledger[:len(base.ledger)]] != \
            [e.to_dict() for e in base.ledger]:
        problems.append("the ledger entries recorded before were changed")
    counts = [_count(name, res) for name, res in zip(names, results)]
    want_total = len(base.ledger) + sum(counts)
    if len(after.ledger) != want_total:
        problems.append(f"{want_total} ledger entries expected, the file holds "
                        f"{len(after.ledger)}")
    if len({e.id for e in after.ledger}) != len(after.ledger):
        problems.append("two ledger entries share an id")
    for name, run, count in zip(names, printed, counts):
        if run not in runs or runs[run].kind != _kind(name):
            problems.append(f"{name} printed {run}, the file has "
                            f"{runs[run].kind if run in runs else 'no such run'}")
            continue
        mine = [e for e in after.ledger if entry_run(e.source, runs) == run]
        if name in expected:  # exactly what it records when it runs alone
            ok = _signature(mine, run) == expected[name]
        else:  # PPO (no solo run: JAX is slow to start): its count and its dataset
            ok = len(mine) == count and {e.dataset for e in mine} == {"gym:CartPole-v1"}
        if not ok:
            problems.append(f"{name} ({run}): {len(mine)} ledger entries linked to it, "
                            f"{count} expected (sources "
                            f"{sorted({e.source.split(': ')[0] for e in mine})})")
    return problems


def _count(name: str, result: dict[str, Any]) -> int:
    """How many ledger entries the command said it recorded (a count or a list of ids)."""
    n = json.loads(result["out"])["recorded"]["ledger_entries"]
    return len(n) if isinstance(n, list) else int(n)


def _matrix(groups: list[tuple[str, ...]], tmp: Path) -> None:
    base = base_project(tmp)
    workers, made = _groups_jobs(groups, base, tmp)
    solo = _baselines({n for g in groups for n in g} - {"ppo"}, base, tmp)
    workers[-1] = solo + workers[-1]  # the last worker runs the solo baselines first
    _run_workers(workers, tmp)
    expected = _expected(solo)
    before = load_project(base)
    failures = {f"{g} (slowed: {g[0]})": probs for g, (project, jobs) in zip(groups, made)
                if (probs := _check_group(project, jobs, before, expected))}
    assert not failures, json.dumps(failures, indent=1)


def pairs() -> list[tuple[str, str]]:
    """Every unordered pair of recorders (a recorder with itself too); in each, the slowed
    one (first) alternates so that every recorder is slowed against some and not others."""
    out = []
    for (i, a), (j, b) in itertools.combinations_with_replacement(enumerate(NAMES), 2):
        out.append((a, b) if (i + j) % 2 == 0 else (b, a))
    return out


def quads() -> list[tuple[str, ...]]:
    """Groups of 4 in which every recorder is slowed once and meets 3 others each time."""
    n = len(NAMES)
    return [tuple(NAMES[(k + d) % n] for d in (0, 1, 3, 5)) for k in range(n)]


def test_the_matrix_covers_every_recorder_and_pair() -> None:
    assert {frozenset(p) for p in pairs()} == {
        frozenset(p) for p in itertools.combinations_with_replacement(NAMES, 2)}
    assert {p[0] for p in pairs() if p[0] != p[1]} == set(NAMES)  # each one slowed
    assert {p[1] for p in pairs() if p[0] != p[1]} == set(NAMES)  # each one free
    assert {q[0] for q in quads()} == set(NAMES) and all(len(set(q)) == 4 for q in quads())
    # every command of the CLI that takes --record is in the matrix
    from core.cli.main import build_parser

    def records(parser: Any) -> bool:  # it, or one of its own subcommands, takes --record
        subs = [a.choices for a in parser._actions if isinstance(a.choices, dict)]
        return any("--record" in a.option_strings for a in parser._actions) or any(
            records(p) for choices in subs for p in choices.values())

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {name for name, sp in sub.choices.items() if records(sp)} == set(NAMES)


@pytest.mark.slow  # every pair (66 groups): make test-slow (CI); make test runs the groups of 4
def test_two_recorders_at_once_lose_nothing_and_link_every_entry(tmp_path: Path) -> None:
    _matrix(pairs(), tmp_path)


def test_four_recorders_at_once_lose_nothing_and_link_every_entry(tmp_path: Path) -> None:
    _matrix(quads(), tmp_path)


def ppo_groups() -> list[tuple[str, ...]]:
    """The PPO recorder's groups (run by ``tests/deep/test_ppo_record_matrix.py``, where
    JAX is installed): slowed against plan (whose entries carry ``run-N: …``) and bounds,
    and free against a slowed sweep."""
    return [("ppo", "plan", "bounds"), ("sweep", "ppo", "advise")]


def run_ppo_matrix(tmp: Path) -> None:
    """The PPO recorder against others (skipped, saying why, without gymnasium and JAX)."""
    why = _have_ppo()
    if why:
        pytest.skip(why)
    _matrix(ppo_groups(), tmp)
