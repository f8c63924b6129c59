"""The window's Save after opening a project: what opening added (state positions, the
advising tab's default set-up) is not the window's edit, so another program's change of
those sections is taken without a conflict; and an undo step that edited a section the
save took from the file is dropped, never undone onto the file's newer value.

The overwrite dialog is replaced in every test: a conflict fails the test instead of
opening a modal box."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.advising import preset
from core.project.files import load_project
from core.project.store import save_document
from gui.shell import saving
from gui.shell.commands import RenameProjectCommand, SetMdpSettingsCommand
from gui.shell.document import PROJECT_STACK, mdp_stack_key

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"


def _no_conflict(parent, conflict):
    raise AssertionError(f"asked to overwrite: {conflict.sections}")


@pytest.fixture
def opened(window, tmp_path, monkeypatch):
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    monkeypatch.setattr(saving, "ask_overwrite", _no_conflict)
    assert window.open_path(path, background=False)
    return window, path


def test_a_model_another_program_changed_or_removed_is_taken_not_a_conflict(qtbot, opened):
    window, path = opened
    doc = window.document
    ids = [e.id for e in doc.project.mdps]
    assert doc.project.mdps[0].model.positions is not None  # laid out on opening
    other = load_project(path)
    other.mdps[0].model.set_settings(name="changed elsewhere")
    del other.mdps[-1]
    save_document(other, path)
    doc.push(RenameProjectCommand(doc, "renamed in the window"))
    removed: list[str] = []
    doc.mdp_removed.connect(removed.append)
    assert window.save_to(path)
    on_disk = load_project(path)
    assert [e.id for e in on_disk.mdps] == [e.id for e in doc.project.mdps] == ids[:-1]
    assert on_disk.mdps[0].model.name == doc.project.mdps[0].model.name == "changed elsewhere"
    assert on_disk.name == "renamed in the window"
    assert removed == [ids[-1]] and not doc.is_dirty
    assert "taken from the file" in window.statusBar().currentMessage()


def test_the_advising_tabs_default_set_up_is_not_an_edit(qtbot, opened):
    window, path = opened
    doc = window.document
    assert doc.project.advising == []
    window.open_tool("advising")
    assert len(doc.project.advising) == 1 and not doc.is_dirty  # the tab's default
    other = load_project(path)
    theirs = preset("exp1")
    other.advising.append(theirs)
    save_document(other, path)
    doc.project.notes = "notes of the window"
    doc.mark_unsaved()
    assert window.save_to(path)
    on_disk = load_project(path)
    assert on_disk.advising == doc.project.advising == [theirs]
    assert on_disk.notes == "notes of the window"


def test_a_rename_undone_after_the_name_was_taken_keeps_the_files_name(qtbot, opened):
    window, path = opened
    doc = window.document
    doc.push(RenameProjectCommand(doc, "B"))
    doc.push(RenameProjectCommand(doc, "X"))
    doc.stack(PROJECT_STACK).undo()  # "X" waits on the redo side
    mdp_id = doc.project.mdps[0].id
    doc.push(SetMdpSettingsCommand(doc, mdp_id, horizon=7), mdp_stack_key(mdp_id))
    assert window.save_to(path)
    other = load_project(path)
    other.name = "C"
    save_document(other, path)
    assert window.save_to(path)  # takes "C": the window's name was still the saved "B"
    assert doc.project.name == load_project(path).name == "C"
    assert "2 earlier edits" in window.statusBar().currentMessage()
    stack = doc.stack(PROJECT_STACK)
    stack.undo()  # the rename to "B": dropped, not undone onto "C"
    assert doc.project.name == "C" and not stack.canUndo()
    stack.redo()  # the rename to "X" (undone before the save): dropped, not redone
    assert doc.project.name == "C" and stack.count() == 0
    models = doc.stack(mdp_stack_key(mdp_id))  # the model's edit is not the name's
    assert models.count() == 1 and models.canUndo()
    models.undo()
    assert doc.model(mdp_id).horizon != 7
