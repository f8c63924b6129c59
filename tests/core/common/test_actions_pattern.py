"""Every user action follows one pattern, and the command line and the window share it.

An action a user runs from both the command line and the window (``bounds`` and F6,
``sweep`` and F5, ``audit`` and the Audit tab's Run, …) has

* a frozen, validated parameters object in the core (checked once when built; each
  refusal names its field);
* one entry point taking that object (``…_release``), which both the CLI command and the
  window's worker call — neither calls the computation beneath it (:attr:`Action.inner`)
  with hand-spelt keywords;
* one record function in :mod:`core.project.recording` (``…_run_record``) that both use.

:data:`ACTIONS` lists them; the checks read the sources with ``ast`` (no Qt needed) and
import only core modules. Every ``…_run_record`` of :mod:`core.project.recording` must
belong to a listed action or to :data:`PENDING` (actions still being moved onto the
pattern), a list that may only shrink: a new action cannot record runs without following it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[3]


class Action(NamedTuple):
    params: str  # dotted path of the frozen parameters class
    release: str  # dotted path of the one entry point
    record: str  # name of the record function in core.project.recording
    cli: str  # the command's module (repository path)
    gui: str  # the window's package (repository path) that runs it
    inner: tuple[str, ...] = ()  # what only the entry point calls


ACTIONS: dict[str, Action] = {
    "bounds": Action("core.mdp.records.BoundsParameters", "core.mdp.private_policy.bounds_release",
                     "bounds_run_record", "core/cli/mdp.py", "gui/mdp",
                     ("private_policy",)),
    "sweep": Action("core.mdp.records.SweepParameters", "core.mdp.sweep.sweep_release",
                    "sweep_run_record", "core/cli/mdp.py", "gui/mdp", ("privacy_sweep",)),
    "audit": Action("core.audit.records.AuditParameters", "core.audit.run.audit_release",
                    "audit_run_record", "core/cli/audit.py", "gui/audit",
                    ("audit_module", "run_audit")),
    "advise": Action("core.advising.release.AdviseParameters",
                     "core.advising.release.advise_release", "advise_run_record",
                     "core/cli/advising.py", "gui/advising", ("run_advising",)),
    "plan": Action("core.logistics.release.PlanParameters", "core.logistics.release.plan_release",
                   "plan_run_record", "core/cli/logistics.py", "gui/logistics",
                   ("PlanningSession",)),
    "mia": Action("core.modelprivacy.release.MiaParameters",
                  "core.modelprivacy.release.mia_release", "mia_run_record",
                  "core/cli/modelprivacy.py", "gui/modelprivacy", ("run_mia",)),
    "share": Action("core.sharing.records.SharingParameters",
                    "core.sharing.learning.sharing_release", "sharing_run_record",
                    "core/cli/sharing.py", "gui/sharing", ("run_sharing",)),
    "mia-compare": Action("core.modelprivacy.release.MiaCompareParameters",
                          "core.modelprivacy.release.mia_compare_release",
                          "mia_compare_run_record", "core/cli/modelprivacy.py",
                          "gui/modelprivacy", ("defense_table", "victim_table")),
    "drl": Action("core.gridworld.release.DrlParameters", "core.gridworld.release.drl_release",
                  "drl_run_record", "core/cli/agents.py", "gui/agents", ("train_agent",)),
    "drl-table": Action("core.gridworld.release.DrlTableParameters",
                        "core.gridworld.release.drl_table_release", "drl_table_run_record",
                        "core/cli/agents.py", "gui/agents", ("defense_sweep",)),
    "comarl": Action("core.comarl.release.ComarlParameters",
                     "core.comarl.release.comarl_release", "comarl_run_record",
                     "core/cli/agents.py", "gui/agents", ("train_vdn",)),
    "design": Action("core.mdp.design.DesignParameters", "core.mdp.design.design_release",
                     "design_run_record", "core/cli/design.py", "gui/mdp", ("design",)),
    "advise-bench": Action("core.advising.bench.AdviseBenchParameters",
                           "core.advising.bench.advise_bench_release", "advise_bench_run_record",
                           "core/cli/advising.py", "gui/advising",
                           ("run_experiment", "experiment_arms")),
    "plan-execute": Action("core.plan.release.PlanExecutionParameters",
                           "core.plan.release.plan_execution_release",
                           "plan_execution_run_record", "core/cli/plan.py", "gui/plan",
                           ("run_releases", "record_and_save")),
    "plan-bench": Action("core.logistics.bench_release.BenchParameters",
                         "core.logistics.bench_release.bench_release", "bench_run_record",
                         "core/cli/logistics.py", "gui/logistics", ("run_benchmark",)),
    "plan-packet": Action("core.logistics.bench_release.PacketParameters",
                          "core.logistics.bench_release.packet_release", "packet_run_record",
                          "core/cli/logistics.py", "gui/logistics",
                          ("run_packet_experiment", "run_study", "packet_study")),
}

#: record functions of actions not yet on the pattern; only shrinks
PENDING: set[str] = set()

#: modules outside core/project that still build a RunRecord themselves (each a run no
#: command records yet, so not an action of the table); only shrinks. A ``preview``
#: function (a developer's look at a panel) may build one anywhere.
OWN_RECORDS: dict[str, str] = {}


def _obj(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _annotations(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside type annotations (a name there runs nothing)."""
    roots: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.arg) and n.annotation is not None:
            roots.append(n.annotation)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            roots.append(n.returns)
        elif isinstance(n, ast.AnnAssign):
            roots.append(n.annotation)
    return {id(m) for r in roots for m in ast.walk(r)}


def _names(path: Path) -> set[str]:
    """Every name the module's code uses (``x`` and ``….x``), strings, comments and type
    annotations aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _annotations(tree)
    out: set[str] = set()
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _calls(path: Path) -> set[str]:
    """The names the module's code calls (``f(…)``, ``x.f(…)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            out.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute)
                    else "")
    return out


def _builds(path: Path, cls: str) -> bool:
    """Whether the module's code makes a ``cls``: ``cls(…)`` or ``cls.from_dict(…)`` (any
    of its class methods)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id == cls:
                return True
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == cls):
                return True
    return False


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_parameters_are_a_frozen_dataclass_the_entry_point_takes(name: str) -> None:
    a = ACTIONS[name]
    cls = _obj(a.params)
    assert dataclasses.is_dataclass(cls), f"{a.params} is not a dataclass"
    assert cls.__dataclass_params__.frozen, f"{a.params} is not frozen"  # type: ignore[attr-defined]
    release = _obj(a.release)
    hints = [str(p.annotation) for p in inspect.signature(release).parameters.values()]  # type: ignore[arg-type]
    assert any(cls.__name__ in h for h in hints), (  # type: ignore[attr-defined]
        f"{a.release} takes no {cls.__name__}")  # type: ignore[attr-defined]
    recording = importlib.import_module("core.project.recording")
    assert callable(getattr(recording, a.record, None)), f"no core.project.recording.{a.record}"


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_command_builds_the_parameters_and_calls_the_entry_point(name: str) -> None:
    a = ACTIONS[name]
    path = ROOT / a.cli
    calls, names = _calls(path), _names(path)
    cls, release = a.params.rpartition(".")[2], a.release.rpartition(".")[2]
    assert _builds(path, cls), f"{a.cli} never builds {cls}"
    assert release in calls, f"{a.cli} never calls {release}"
    assert a.record in calls, f"{a.cli} never calls {a.record}"
    below = sorted(set(a.inner) & names)
    assert not below, f"{a.cli} uses {below} itself instead of {release}"


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_window_builds_the_parameters_and_runs_the_entry_point(name: str) -> None:
    a = ACTIONS[name]
    cls, release = a.params.rpartition(".")[2], a.release.rpartition(".")[2]
    modules = sorted((ROOT / a.gui).glob("*.py"))
    runners = [p for p in modules if release in _names(p)]
    assert runners, f"no module of {a.gui} runs {release}"
    assert any(_builds(p, cls) for p in modules), f"{a.gui} never builds {cls}"
    assert any(a.record in _calls(p) for p in modules), f"{a.gui} never calls {a.record}"
    for p in runners:  # the module that runs the action does not also run what is beneath it
        below = sorted(set(a.inner) & _names(p))
        assert not below, f"{p.relative_to(ROOT)} uses {below} beside {release}"


def test_every_run_record_belongs_to_an_action_on_the_pattern_or_is_pending() -> None:
    recording = importlib.import_module("core.project.recording")
    records = {n for n, f in vars(recording).items()
               if n.endswith("_run_record") and inspect.isfunction(f)
               and f.__module__ == recording.__name__}
    listed = {a.record for a in ACTIONS.values()}
    assert not (listed & PENDING), f"on the pattern: remove {sorted(listed & PENDING)} from PENDING"
    assert PENDING <= records, f"PENDING names what does not exist: {sorted(PENDING - records)}"
    assert records <= listed | PENDING, (
        f"record functions of actions not on the pattern: {sorted(records - listed - PENDING)}")


def _builds_records(path: Path) -> bool:
    """Whether the module's code (outside a ``preview`` function) calls ``RunRecord(…)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {id(m) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "preview"
            for m in ast.walk(n)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "RunRecord" and id(n) not in skip for n in ast.walk(tree))


def test_run_records_are_built_by_the_record_functions() -> None:
    """A run record is made by a record function of core.project.recording (so the window
    and the command line leave the same one), not by a command or a panel."""
    builders = {str(p.relative_to(ROOT)) for top in ("core", "gui")
                for p in sorted((ROOT / top).rglob("*.py"))
                if not str(p.relative_to(ROOT)).startswith("core/project/")
                and _builds_records(p)}
    assert builders <= set(OWN_RECORDS), (
        f"build their own RunRecord: {sorted(builders - set(OWN_RECORDS))} — add a "
        "…_run_record to core/project/recording.py")
    assert set(OWN_RECORDS) <= builders, (
        f"no longer build one: remove {sorted(set(OWN_RECORDS) - builders)} from OWN_RECORDS")
