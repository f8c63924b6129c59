"""core.project.store, single-process: two copies of one project file (a window and a
command) interleave their saves; nothing either recorded is lost, ids are renumbered with
the entries following their run, a section both changed is a conflict naming it, and the
fresh run id, the writability check and adopting a recovered copy do what they say."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from core.common.errors import InputError
from core.privacy.ledger import LedgerEntry
from core.project.files import load_project, save_project
from core.project.locks import project_lock
from core.project.model import Project, RunRecord
from core.project.store import (
    ProjectChanged,
    _fresh_run_id,
    adopt_file,
    check_writable,
    record_and_save,
    save_document,
)


def _rec(rid: str, target: str, seed: int = 1) -> RunRecord:
    return RunRecord(rid, "audit", target, {"k": seed}, {"eps": 0.5}, "experiment", seed,
                     "2026-01-01T00:00:00Z")


def _entry(eid: str, source: str, eps: float = 0.1) -> LedgerEntry:
    return LedgerEntry(eid, "patients", "laplace", eps, source=source,
                       released=f"count ({source})", time="2026-01-01T00:00:00Z")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "shared ü.privplan.json"
    save_project(Project(name="shared"), p)
    return p


@pytest.mark.parametrize("taken,want", [
    (set(), "run-1"), ({"run-1", "run-2"}, "run-3"), ({"run-7"}, "run-8"),
    ({"a", "b", "c"}, "run-4"), ({"run-2", "x"}, "run-3"), ({"run-01"}, "run-2"),
])
def test_a_fresh_run_id_is_past_every_number_and_never_taken(taken: set, want: str) -> None:
    got = _fresh_run_id(taken)
    assert got == want and got not in taken


def test_a_command_records_into_a_file_a_window_has_open(path: Path) -> None:
    window = load_project(path)
    cmd = load_project(path)
    rec, stored = record_and_save(path, cmd, _rec("run-1", "a"), [_entry("", "run-1")])
    assert rec.id == "run-1" and len(stored) == 1 and stored[0].source == "run-1"
    assert stored[0].id  # an id was assigned
    # the window records its own run-1 meanwhile and saves: both runs are kept
    window.runs.append(_rec("run-1", "b", seed=2))
    window.ledger.append(_entry("w1", "run-1", 0.2))
    report = save_document(window, path)
    disk = load_project(path)
    assert sorted((r.id, r.target) for r in disk.runs) == [("run-1", "b"), ("run-2", "a")]
    assert report.merged_runs == ["run-2"] and len(report.merged_entries) == 1
    # the command's entry followed its run to run-2, the window's stayed with run-1
    by_eps = {e.epsilon: e for e in disk.ledger}
    assert by_eps[0.1].source == "run-2" and by_eps[0.1].released == "count (run-2)"
    assert by_eps[0.2].source == "run-1"
    assert len({e.id for e in disk.ledger}) == 2


def test_recording_twice_renumbers_the_second_run(path: Path) -> None:
    a, b = load_project(path), load_project(path)
    r1, _ = record_and_save(path, a, _rec("run-1", "x"))
    r2, e2 = record_and_save(path, b, _rec("run-1", "y"), [_entry("", "run-1: part 1")])
    assert (r1.id, r2.id) == ("run-1", "run-2")
    assert e2[0].source == "run-2: part 1"
    assert [r.id for r in b.runs] == ["run-1", "run-2"]  # the copy sees the merged file


def test_a_section_both_sides_changed_is_a_conflict_naming_it(path: Path) -> None:
    window, other = load_project(path), load_project(path)
    other.notes = "theirs"
    save_document(other, path)
    window.notes = "ours"
    with pytest.raises(ProjectChanged) as info:
        save_document(window, path)
    assert info.value.sections == ["notes"] and "nothing was saved" in str(info.value)
    assert load_project(path).notes == "theirs"
    report = save_document(window, path, overwrite=True)
    assert report.overwritten == ["notes"] and load_project(path).notes == "ours"


def test_the_same_change_on_both_sides_is_no_conflict(path: Path) -> None:
    window, other = load_project(path), load_project(path)
    other.notes = window.notes = "same ✓"
    save_document(other, path)
    assert save_document(window, path).overwritten == []


def test_a_section_only_another_writer_changed_survives_the_windows_save(path: Path) -> None:
    window, other = load_project(path), load_project(path)
    other.name = "renamed elsewhere"
    save_document(other, path)
    window.notes = "window notes"
    report = save_document(window, path)
    disk = load_project(path)
    assert disk.notes == "window notes"
    assert disk.name == "renamed elsewhere"
    assert report.adopted == ["name"] and report.overwritten == []
    assert window.name == "renamed elsewhere"  # the open document shows the other's change
    # the next save of the window starts from what it wrote: no conflict, nothing adopted
    window.notes = "again"
    assert save_document(window, path).adopted == []
    assert load_project(path).name == "renamed elsewhere"


# one change per section kind, made by "another writer" on its copy of the project
def _grid(key: str = "grid-1") -> object:
    from core.gridworld.maps import GridEntry, example_12x11

    return GridEntry(key, example_12x11())


def _advising(name: str = "exp2") -> object:
    from core.advising.presets import preset

    return preset(name, strategy="dp")


def _map() -> object:
    from core.logistics.document import MapEntry

    root = Path(__file__).resolve().parents[3]
    import json

    doc = json.loads((root / "assets" / "examples" / "rover.map.json").read_text("utf-8"))
    return MapEntry.from_dict(dict(doc.get("map", doc), id="map-9"))


SECTION_EDITS = {
    "name": lambda p: setattr(p, "name", "theirs ✓"),
    "notes": lambda p: setattr(p, "notes", "their notes\nline two"),
    "mdps": lambda p: p.mdps.pop(),
    "maps": lambda p: p.maps.append(_map()),
    "advising": lambda p: p.advising.append(_advising()),
    "grids": lambda p: p.grids.append(_grid()),
    "budgets": lambda p: setattr(p, "budgets", {"patients": {"epsilon": 2.0, "delta": 1e-6}}),
    "plans": lambda p: p.plans.append({"format": "privplan-plan", "version": 1, "name": "p1",
                                       "budget": {"epsilon": 1.0}, "releases": []}),
}


# another change of the same section, made in the window
WINDOW_EDITS = {
    "name": lambda p: setattr(p, "name", "the window's ✎"),
    "notes": lambda p: setattr(p, "notes", "the window's ✎"),
    "mdps": lambda p: p.mdps.pop(0),
    "maps": lambda p: p.maps.clear(),
    "advising": lambda p: p.advising.append(_advising("exp1")),
    "grids": lambda p: p.grids.append(_grid("grid-2")),
    "budgets": lambda p: setattr(p, "budgets", {"staff": {"epsilon": 1.0, "delta": 0.0}}),
    "plans": lambda p: p.plans.append({"format": "privplan-plan", "version": 1, "name": "p2",
                                       "budget": {"epsilon": 3.0}, "releases": []}),
}


def _tour(tmp_path: Path) -> Path:
    """A project with models and a map (its sections are not all empty)."""
    root = Path(__file__).resolve().parents[3]
    p = tmp_path / "tour.privplan.json"
    save_project(load_project(root / "assets" / "examples" / "tour.privplan.json"), p)
    return p


@pytest.mark.parametrize("section", sorted(SECTION_EDITS))
def test_every_section_kind_another_writer_changed_is_taken_not_overwritten(
        tmp_path: Path, section: str) -> None:
    path = _tour(tmp_path)
    window, other = load_project(path), load_project(path)
    SECTION_EDITS[section](other)
    save_document(other, path)
    expected = getattr(load_project(path), section)
    assert expected != getattr(window, section)  # the edit changed what the file holds
    # the window changes another section (the notes, or the name when notes is the one)
    mine = "name" if section == "notes" else "notes"
    setattr(window, mine, "the window's ✎")
    window.runs.append(_rec("run-1", "window"))
    record_and_save(path, load_project(path), _rec("run-1", "command"), [_entry("", "run-1")])
    report = save_document(window, path)
    disk = load_project(path)
    assert report.adopted == [section] and report.overwritten == []
    assert getattr(disk, section) == expected == getattr(window, section)
    assert getattr(disk, mine) == "the window's ✎"
    assert sorted(r.target for r in disk.runs) == ["command", "window"]
    assert [e.source for e in disk.ledger] == [r.id for r in disk.runs if r.target == "command"]


@pytest.mark.parametrize("section", sorted(SECTION_EDITS))
def test_every_section_kind_both_changed_is_a_conflict_named(tmp_path: Path,
                                                            section: str) -> None:
    path = _tour(tmp_path)
    window, other = load_project(path), load_project(path)
    SECTION_EDITS[section](other)
    save_document(other, path)
    WINDOW_EDITS[section](window)
    before = path.read_bytes()
    with pytest.raises(ProjectChanged) as info:
        save_document(window, path)
    assert info.value.sections == [section] and path.read_bytes() == before
    report = save_document(window, path, overwrite=True)
    assert report.overwritten == [section] and report.adopted == []
    assert getattr(load_project(path), section) == getattr(window, section)


def test_a_run_another_writer_removed_is_a_conflict_not_a_silent_drop(path: Path) -> None:
    cmd = load_project(path)
    record_and_save(path, cmd, _rec("run-1", "x"))
    window, other = load_project(path), load_project(path)
    other.runs = []
    save_document(other, path)
    with pytest.raises(ProjectChanged) as info:
        save_document(window, path)
    assert info.value.sections == ["runs"]


def test_a_removed_file_and_an_unwritable_folder_are_named(path: Path, tmp_path: Path) -> None:
    cmd = load_project(path)
    os.remove(path)
    with pytest.raises(InputError) as info:
        record_and_save(path, cmd, _rec("run-1", "x"))
    assert info.value.field == "--record" and "removed" in info.value.problem
    with pytest.raises(InputError) as info:
        check_writable(tmp_path / "no-such-dir" / "p.privplan.json", field="--record")
    assert info.value.field == "--record" and "cannot write" in info.value.problem
    check_writable(tmp_path / "fine.privplan.json")  # a writable folder passes
    assert not any(n.endswith(".tmp") for n in os.listdir(tmp_path))


def test_the_budget_check_sees_the_file_as_it_is_now(path: Path) -> None:
    a = load_project(path)
    record_and_save(path, load_project(path), _rec("run-1", "x"), [_entry("", "run-1", 0.7)])
    seen: list[float] = []

    def check(now: object) -> None:
        spent = sum(e.epsilon for e in now.ledger)  # type: ignore[attr-defined]
        seen.append(spent)
        if spent + 0.5 > 1.0:
            raise InputError("over budget", field="--record")

    with pytest.raises(InputError, match="over budget"):
        record_and_save(path, a, _rec("run-1", "y"), [_entry("", "run-1", 0.5)], check=check)
    assert seen == [pytest.approx(0.7)]
    assert [r.target for r in load_project(path).runs] == ["x"]  # nothing was written


def test_adopting_a_file_merges_its_runs_at_the_next_save(path: Path, tmp_path: Path) -> None:
    record_and_save(path, load_project(path), _rec("run-1", "recorded-while-dead"),
                    [_entry("", "run-1")])
    recovered = Project(name="recovered copy")
    recovered.runs = [_rec("run-1", "from the copy")]
    adopt_file(recovered, path)
    assert recovered.origin is not None and sum(recovered.origin.runs.values()) == 0
    report = save_document(recovered, path)
    disk = load_project(path)
    assert sorted(r.target for r in disk.runs) == ["from the copy", "recorded-while-dead"]
    assert disk.name == "recovered copy" and report.merged_runs == ["run-2"]
    assert disk.ledger[0].source == "run-2"
    fresh = Project()
    adopt_file(fresh, tmp_path / "none.privplan.json")
    assert fresh.origin is None


# ------------------------------------------------------------------ a slow writer, raced
def _slowed_writes(monkeypatch: pytest.MonkeyPatch, thread: str,
                   entered: threading.Event) -> None:
    """Slow the project write of the thread named ``thread`` (under the project lock: it
    has read the file and merged, and not yet written) — the rest write at once."""
    import core.project.store as store

    real = store.write_project

    def slow(project: Project, p: str) -> None:
        if threading.current_thread().name == thread:
            entered.set()
            time.sleep(0.3)
        real(project, p)

    monkeypatch.setattr(store, "write_project", slow)


@pytest.mark.parametrize("section", sorted(SECTION_EDITS))
@pytest.mark.parametrize("first", ["other writer", "window"])
def test_a_slow_writer_raced_against_the_windows_save_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, section: str, first: str) -> None:
    """Another window (slowed under the lock) changes ``section`` and records a run while
    this window saves its own edit of another section and its own run, in either order; a
    command's ``--record`` (slowed the same way, by its budget check) races both."""
    path = _tour(tmp_path)
    window, other, cmd = load_project(path), load_project(path), load_project(path)
    SECTION_EDITS[section](other)
    expected = getattr(other, section)
    other.runs.append(_rec("run-1", "other"))
    other.ledger.append(_entry("o1", "run-1", 0.3))
    mine = "name" if section == "notes" else "notes"
    setattr(window, mine, "the window's ✎")
    window.runs.append(_rec("run-1", "window"))
    window.ledger.append(_entry("w1", "run-1", 0.2))
    entered = threading.Event()
    _slowed_writes(monkeypatch, "other", entered)
    errors: list[BaseException] = []

    def run(target: object) -> None:
        try:
            target()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001 — reported by the test below
            errors.append(exc)

    def slow_check(now: object) -> None:
        time.sleep(0.2)

    threads = [
        threading.Thread(target=run, name="other",
                         args=(lambda: save_document(other, path),)),
        threading.Thread(target=run, name="cmd", args=(lambda: record_and_save(
            path, cmd, _rec("run-1", "command"), [_entry("", "run-1", 0.1)],
            check=slow_check),))]
    if first == "other writer":
        threads[0].start()
        assert entered.wait(30)
        threads[1].start()
        save_document(window, path)  # waits for the other writer's lock
    else:
        with project_lock(path):  # the window's save comes first: the others wait
            for t in threads:
                t.start()
            report = save_document(window, path)
            assert report.adopted == [] and report.merged_runs == []
    for t in threads:
        t.join(60)
    assert not errors
    disk = load_project(path)
    assert getattr(disk, section) == expected
    assert getattr(disk, mine) == "the window's ✎"
    assert sorted(r.target for r in disk.runs) == ["command", "other", "window"]
    by_run = {r.id: r.target for r in disk.runs}
    assert sorted((by_run[e.source], e.epsilon) for e in disk.ledger) == [
        ("command", 0.1), ("other", 0.3), ("window", 0.2)]
    assert len({e.id for e in disk.ledger}) == 3
