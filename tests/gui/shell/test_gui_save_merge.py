"""The window's Save never erases what a command recorded into the open project:
the runs and ledger entries are merged in and shown; an edit another program made to a part
this window changed too is overwritten only when the user says so."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from core.cli.main import run_cli
from core.project.files import load_project, save_project
from gui.shell import saving

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def _record_audit(path: Path) -> None:
    code = run_cli(["audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples",
                    "2000", "--seed", "1", "--record", str(path), "--json"],
                   out=io.StringIO(), err=io.StringIO())
    assert code == 0


def _record_advise(path: Path) -> None:
    code = run_cli(["advise", "--preset", "exp2", "--epochs", "3", "--seed", "5", "--record",
                    str(path), "--json", "--summary"], out=io.StringIO(), err=io.StringIO())
    assert code == 0


def test_save_merges_runs_and_ledger_entries_a_command_recorded_meanwhile(qtbot, window,
                                                                         tmp_path):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    assert window.open_path(path, background=False)
    doc = window.document
    added: list[str] = []
    doc.run_added.connect(added.append)
    _record_advise(path)  # another process records while the window is open
    from gui.shell.commands import RenameProjectCommand

    doc.push(RenameProjectCommand(doc, "renamed in the window"))
    with qtbot.waitSignal(doc.ledger_changed, timeout=5000):
        assert window.save_to(path)
    on_disk = load_project(path)
    assert on_disk.name == "renamed in the window"
    assert [r.kind for r in on_disk.runs] == ["advise"]
    assert len(on_disk.ledger) > 0
    assert [r.id for r in doc.project.runs] == [r.id for r in on_disk.runs] == added
    assert len(doc.project.ledger) == len(on_disk.ledger)
    assert not doc.is_dirty


def test_save_asks_before_overwriting_a_part_another_program_changed(qtbot, window, tmp_path,
                                                                     monkeypatch):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    assert window.open_path(path, background=False)
    doc = window.document
    from gui.shell.commands import RenameProjectCommand

    other = load_project(path)  # another window renames it and saves
    other.name = "renamed elsewhere"
    save_project(other, path)
    _record_audit(path)
    doc.push(RenameProjectCommand(doc, "renamed here"))
    asked: list[str] = []
    monkeypatch.setattr(saving, "ask_overwrite",
                        lambda parent, conflict: asked.append(conflict.problem) or False)
    before = path.read_bytes()
    assert not window.save_to(path)
    assert asked and "name" in asked[0] and path.read_bytes() == before and doc.is_dirty
    monkeypatch.setattr(saving, "ask_overwrite", lambda parent, conflict: True)
    assert window.save_to(path)
    on_disk = load_project(path)
    assert on_disk.name == "renamed here"
    assert [r.kind for r in on_disk.runs] == ["audit"]  # the command's run is kept


def test_save_takes_a_part_only_another_program_changed_and_shows_it(qtbot, window, tmp_path,
                                                                     monkeypatch):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    assert window.open_path(path, background=False)
    doc = window.document
    other = load_project(path)  # another window renames it, sets a budget and saves
    other.name = "renamed elsewhere"
    other.budgets = {"patients": {"epsilon": 2.0, "delta": 1e-6}}
    from core.project.store import save_document

    save_document(other, path)

    def no_conflict(parent, conflict):
        raise AssertionError(f"asked to overwrite: {conflict.sections}")

    monkeypatch.setattr(saving, "ask_overwrite", no_conflict)
    names: list[str] = []
    doc.name_changed.connect(names.append)
    doc.project.notes = "notes of the window"
    doc.mark_unsaved()
    with qtbot.waitSignal(doc.budgets_changed, timeout=5000):
        assert window.save_to(path)
    on_disk = load_project(path)
    assert on_disk.name == doc.project.name == "renamed elsewhere"
    assert on_disk.budgets == doc.project.budgets == other.budgets
    assert on_disk.notes == "notes of the window"
    assert names == ["renamed elsewhere"]
    assert not doc.is_dirty
