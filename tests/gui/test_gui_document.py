"""ProjectDocument + commands: push, undo, redo, with the signals they emit."""

from __future__ import annotations

import pytest

from core.examples import example2, four_startups
from core.project import Project, RunRecord
from gui.commands import AddRunCommand, RemoveRunCommand, RenameProjectCommand, ReplaceMdpCommand
from gui.document import ProjectDocument


def _record(doc: ProjectDocument, target: str = "four-startups") -> RunRecord:
    return RunRecord(id=doc.project.new_run_id(), kind="sweep", target=target,
                     params={"ks": [10.0]}, summary={"k": [10.0]}, mode="experiment", seed=7)


def test_rename_push_undo_redo(qtbot, example_doc):
    doc = example_doc
    old = doc.project.name
    assert not doc.is_dirty
    names, dirty = [], []
    doc.name_changed.connect(names.append)
    doc.dirty_changed.connect(dirty.append)
    with qtbot.waitSignals([doc.name_changed, doc.dirty_changed]):
        doc.push(RenameProjectCommand(doc, "Renamed"))
    assert doc.project.name == "Renamed"
    assert doc.is_dirty
    assert names == ["Renamed"] and dirty == [True]
    with qtbot.waitSignal(doc.name_changed) as blocker:
        doc.undo_stack.undo()
    assert blocker.args == [old]
    assert doc.project.name == old
    assert not doc.is_dirty  # back at the clean state
    with qtbot.waitSignal(doc.name_changed):
        doc.undo_stack.redo()
    assert doc.project.name == "Renamed"
    assert doc.undo_stack.undoText() == "Rename project to “Renamed”"


def test_add_run_is_undoable(qtbot, example_doc):
    doc = example_doc
    record = _record(doc)
    with qtbot.waitSignal(doc.run_added) as blocker:
        doc.push(AddRunCommand(doc, record))
    assert blocker.args == [record.id]
    assert [r.id for r in doc.project.runs] == [record.id]
    with qtbot.waitSignal(doc.run_removed) as blocker:
        doc.undo_stack.undo()
    assert blocker.args == [record.id]
    assert doc.project.runs == []
    with qtbot.waitSignal(doc.run_added):
        doc.undo_stack.redo()
    assert doc.run(record.id) is record


def test_remove_run_restores_position(qtbot, example_doc):
    doc = example_doc
    first, second = _record(doc), None
    doc.push(AddRunCommand(doc, first))
    second = _record(doc)
    doc.push(AddRunCommand(doc, second))
    doc.push(RemoveRunCommand(doc, first.id))
    assert [r.id for r in doc.project.runs] == [second.id]
    doc.undo_stack.undo()
    assert [r.id for r in doc.project.runs] == [first.id, second.id]


def test_duplicate_run_id_is_refused(example_doc):
    record = _record(example_doc)
    example_doc.add_run(record)
    with pytest.raises(ValueError):
        example_doc.add_run(record)


def test_replace_mdp_command(qtbot, example_doc):
    doc = example_doc
    with qtbot.waitSignal(doc.mdp_changed) as blocker:
        doc.push(ReplaceMdpCommand(doc, "four-startups", example2()))
    assert blocker.args == ["four-startups"]
    assert doc.mdp_entry("four-startups").mdp.n_states == 20
    doc.undo_stack.undo()
    assert doc.mdp_entry("four-startups").mdp == four_startups()


def test_replace_project_clears_history(qtbot, example_doc):
    doc = example_doc
    doc.push(RenameProjectCommand(doc, "x"))
    assert doc.undo_stack.count() == 1 and doc.is_dirty
    with qtbot.waitSignals([doc.project_replaced, doc.dirty_changed]):
        doc.replace_project(Project(name="fresh"))
    assert doc.undo_stack.count() == 0
    assert not doc.is_dirty
    assert doc.path is None
    assert doc.display_name == "fresh"


def test_mark_saved(qtbot, example_doc, tmp_path):
    doc = example_doc
    doc.push(RenameProjectCommand(doc, "x"))
    target = tmp_path / "p.privplan.json"
    with qtbot.waitSignals([doc.dirty_changed, doc.path_changed]):
        doc.mark_saved(target)
    assert not doc.is_dirty and doc.path == str(target)
    doc.undo_stack.undo()
    assert doc.is_dirty
