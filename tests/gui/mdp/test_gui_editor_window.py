"""The main window as an MDP editor: new, draw, undo, save/open, autosave, import/export."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from mdp_drawing import draw_three_states
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core.mdp.examples import four_startups, random_mdp
from core.mdp.files import load_mdp, save_mdp
from core.project.autosave import list_recoverable


@pytest.fixture
def criticals(monkeypatch):
    shown = []

    def fake(parent, title, text, *args, **kwargs):
        shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(fake))
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(fake))
    return shown


@pytest.fixture
def drawing(window):
    window.new_action.trigger()
    ws = window.active_workspace()
    assert ws is not None and ws.mdp_id == "mdp-1"
    return window, ws


def test_new_project_opens_an_empty_drawing(drawing):
    window, ws = drawing
    assert window.tabs.count() == 1 and window.document.project.name == "Untitled"
    assert "no states yet" in ws.mdp_view.empty_text()
    assert window.inspector_stack.currentWidget() is ws.inspector
    assert "model invalid" in window.validity_label.text()
    assert not window.document.is_dirty


def test_draw_three_states_and_undo_everything(qtbot, drawing):
    window, ws = drawing
    doc = window.document
    ids = draw_three_states(ws)
    model = doc.model("mdp-1")
    assert doc.is_valid("mdp-1"), doc.summary("mdp-1")
    assert model.row(ids["go"]) == pytest.approx({ids["b"]: 0.75, ids["c"]: 0.25})
    assert model.reward(ids["go"]) == -1.0 and model.terminal_reward(ids["b"]) == 10.0
    assert model.horizon == 2 and model.initial_state == ids["a"]
    assert "model valid ✓ (3 states, 3 state–action pairs)" in window.validity_label.text()
    assert window.isWindowModified()
    n = doc.undo_stack.count()
    assert n >= 15
    while doc.undo_stack.canUndo():
        window.undo_action.trigger()
    assert model.n_states == 0 and not doc.is_dirty
    while doc.undo_stack.canRedo():
        window.redo_action.trigger()
    assert doc.is_valid("mdp-1") and model.row(ids["go"])[ids["b"]] == 0.75


def test_window_edit_actions_and_shortcuts(qtbot, drawing):
    window, ws = drawing
    doc = window.document
    keys = {a.text().replace("&", ""): a.shortcut().toString() for a in window.editor_actions}
    assert keys["Add State"] == "N" and keys["Add Action"] == "A" and keys["Rename…"] == "F2"
    assert keys["Delete"] == "Del" and keys["Fit Drawing to View"] == "F"
    assert all(a.shortcutContext() == Qt.ShortcutContext.WidgetWithChildrenShortcut
               for a in window.editor_actions)
    window.add_state_action.trigger()
    window.add_action_action.trigger()
    model = doc.model("mdp-1")
    assert model.n_states == 1 and len(model.all_action_ids()) == 1
    window.mode_actions["connect"].trigger()
    assert ws.mdp_view.mode == "connect"
    window.mode_actions["select"].trigger()
    ws.mdp_view.setFocus()
    qtbot.keyClick(ws.mdp_view, Qt.Key.Key_N)
    assert model.n_states == 2
    window.select_all_action.trigger()
    window.delete_action.trigger()
    assert model.n_states == 0
    window.rename_item_action.trigger()  # nothing selected: nothing happens
    ws.mdp_view.add_state_at((0.0, 0.0))
    window.rename_item_action.trigger()
    assert ws.inspector.pages.currentWidget() is ws.inspector.state_page


def test_invalid_model_is_refused_with_the_reason(qtbot, drawing):
    window, ws = drawing
    ws.mdp_view.add_state_at((0.0, 0.0))
    assert window.run_analysis() is False
    assert window.run_bounds() is False
    text = ws.analysis_panel.status_label.text()
    assert "not valid" in text and "has no actions" in text
    assert not ws.runner.is_running
    assert any("has no actions" in m for _, m in window.log_panel.messages())


def test_save_and_reopen_a_drawing(qtbot, drawing, tmp_path):
    window, ws = drawing
    doc = window.document
    ids = draw_three_states(ws)
    ws.mdp_view.select_ids([ids["b"]])
    before = doc.model("mdp-1").to_dict()
    target = tmp_path / "drawn.privplan.json"
    assert window.save_to(target)
    assert not doc.is_dirty and str(target) in window._settings.recent_files[0]
    saved = json.loads(target.read_text())
    assert saved["schema_version"] == 2 and saved["format"] == "privplan-project"
    window.new_action.trigger()
    assert window.open_path(target)
    assert doc.model("mdp-1").to_dict() == before  # ids, names, positions, numbers
    assert doc.path == str(target) and not doc.is_dirty


def test_damaged_files_leave_the_document_alone(qtbot, window, tmp_path, criticals):
    doc = window.document
    before = doc.project
    bad = tmp_path / "bad.privplan.json"
    bad.write_text(json.dumps({"format": "privplan-project", "schema_version": 2,
                               "project": {"mdps": [{"id": "m", "states": "nope"}]}}))
    assert window.open_path(bad) is False
    assert doc.project is before and "states" in criticals[-1][1]
    assert window.open_path(bad, background=True)  # the worker path reports the same way
    with qtbot.waitSignal(window.open_failed, timeout=10000):
        pass
    assert doc.project is before and not window.is_loading
    assert window.tabs.isEnabled()


def test_large_file_opens_in_the_background(qtbot, window, tmp_path):
    path = tmp_path / "big.mdp.npz"
    save_mdp(random_mdp(350, 2, 3, seed=4), path)
    with qtbot.waitSignal(window.file_opened, timeout=30000):
        assert window.open_path(path, background=True)
        assert window.is_loading and not window.tabs.isEnabled()
    ws = window.active_workspace()
    assert ws.editor.view == "matrix" and ws.editor.matrix.matrix.rowCount() == 700
    assert window.document.is_valid("mdp-1") and window.tabs.isEnabled()


def test_autosave_and_recovery_after_a_crash(qtbot, drawing, tmp_path, recovery_dir,
                                             monkeypatch):
    import gui.shell.file_actions
    from gui.shell.main_window import MainWindow
    from gui.shell.preview import example_document

    window, ws = drawing
    target = tmp_path / "p.privplan.json"
    assert window.save_to(target)
    draw_three_states(ws)
    with qtbot.waitSignal(window.autosave.runner.succeeded, timeout=10000):
        assert window.autosave.autosave_now()
    assert not window.autosave.autosave_now()  # nothing new since
    (rec,) = list_recoverable(recovery_dir)
    assert rec.original == str(target)
    # the app "crashes": the copy stays; a new session offers it
    other = MainWindow(example_document())
    qtbot.addWidget(other)
    assert [r.path for r in other.autosave.recoverable()] == [rec.path]
    asked = []
    monkeypatch.setattr(gui.shell.file_actions, "ask_recover",
                        lambda parent, r: asked.append(r.name) or "recover")
    assert other.offer_recovery()
    assert asked == ["Untitled"]
    doc = other.document
    assert doc.is_dirty and doc.path == str(target)
    assert doc.is_valid("mdp-1") and doc.model("mdp-1").n_states == 3
    assert other.save_to(target)  # a normal save removes the copy
    assert list_recoverable(recovery_dir) == [] and os.listdir(recovery_dir) == []
    other.discard_and_close()


def test_recovery_can_be_discarded_and_close_cleans_up(qtbot, drawing, recovery_dir,
                                                       monkeypatch):
    import gui.shell.file_actions
    from gui.shell.main_window import MainWindow
    from gui.shell.preview import example_document

    window, ws = drawing
    ws.mdp_view.add_state_at((0.0, 0.0))
    with qtbot.waitSignal(window.autosave.runner.succeeded, timeout=10000):
        window.autosave.autosave_now()
    assert len(list_recoverable(recovery_dir)) == 1
    other = MainWindow(example_document())
    qtbot.addWidget(other)
    monkeypatch.setattr(gui.shell.file_actions, "ask_recover", lambda parent, r: "later")
    assert not other.offer_recovery() and len(list_recoverable(recovery_dir)) == 1
    monkeypatch.setattr(gui.shell.file_actions, "ask_recover", lambda parent, r: "discard")
    assert not other.offer_recovery() and list_recoverable(recovery_dir) == []
    other.discard_and_close()
    ws.mdp_view.add_state_at((100.0, 0.0))
    with qtbot.waitSignal(window.autosave.runner.succeeded, timeout=10000):
        window.autosave.autosave_now()
    assert window.autosave.copy_path() and os.path.exists(window.autosave.copy_path())
    window.discard_and_close()  # a normal close: no copy is left behind
    assert not os.path.exists(recovery_dir) or os.listdir(recovery_dir) == []


def test_recent_files(qtbot, window, tmp_path, criticals):
    path = tmp_path / "four.mdp.json"
    save_mdp(four_startups(), path)
    assert window.open_path(path)
    assert window._settings.recent_files == [str(path)]
    window._fill_recent_menu()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert texts[0] == "&1 four.mdp.json" and "Clear Recent Files" in texts
    path.unlink()
    assert window.open_recent(str(path)) is False
    assert window._settings.recent_files == [] and "not found" in criticals[-1][1]


def test_import_and_export(qtbot, window, tmp_path, criticals):
    doc = window.document
    out_json, out_npz = tmp_path / "fs.mdp.json", tmp_path / "fs.mdp.npz"
    assert window.export_mdp("four-startups", str(out_json))
    assert window.export_mdp("four-startups", str(out_npz))
    assert load_mdp(out_json) == four_startups()
    assert np.array_equal(load_mdp(out_npz).P, four_startups().P)
    new_id = window.import_mdp(str(out_json))
    assert doc.has_mdp(new_id) and window.active_workspace().mdp_id == new_id
    assert doc.mdp_entry(new_id).mdp == four_startups()
    assert doc.undo_stack.undoText().startswith("Import MDP")
    window.undo_action.trigger()
    assert not doc.has_mdp(new_id) and new_id not in window.workspaces()
    from gui.shell.commands import SetProbabilityCommand

    doc.push(SetProbabilityCommand(doc, "four-startups", "ac-1", "st-1", 0.5))
    assert window.export_mdp("four-startups", str(tmp_path / "x.mdp.json")) is False
    assert "not valid" in criticals[-1][1]


def test_project_tree_manages_mdps(qtbot, window):
    doc = window.document
    panel = window.project_panel
    new_id = window.new_mdp()
    assert window.active_workspace().mdp_id == new_id and "⚠" in panel.tree.topLevelItem(0) \
        .child(0).child(2).text(0)
    copy_id = panel.duplicate_mdp("four-startups")
    assert doc.model(copy_id).name.endswith("(copy)")
    panel.rename_mdp(copy_id, "renamed")
    assert window.tabs.tabText(window.tabs.indexOf(window.workspaces()[copy_id])) == "renamed"
    panel.delete_mdp(copy_id)
    assert copy_id not in window.workspaces()
    window.undo_action.trigger()
    assert copy_id in window.workspaces()


def test_enter_in_a_name_field_returns_to_the_canvas(qtbot, drawing):
    window, ws = drawing
    window.activateWindow()
    ws.mdp_view.add_state_at((0.0, 0.0))
    ws.mdp_view.rename_selection()
    assert window.inspector_dock.isVisible()
    with qtbot.waitSignal(ws.inspector.done_editing):
        ws.inspector.state_name.returnPressed.emit()


def test_single_keys_go_through_the_window_actions(qtbot, window):
    window.activateWindow()
    qtbot.waitActive(window)
    ws = window.active_workspace()
    ws.mdp_view.setFocus()
    fired = []
    window.add_state_action.triggered.connect(lambda: fired.append("N"))
    n = window.document.model(ws.mdp_id).n_states
    qtbot.keyClick(ws.mdp_view, Qt.Key.Key_N)
    assert fired == ["N"] and window.document.model(ws.mdp_id).n_states == n + 1
    window.mode_actions["connect"].trigger()
    assert window.mode_actions["connect"].isChecked()
    qtbot.keyClick(ws.mdp_view, Qt.Key.Key_Escape)  # leaves the mode, cancels nothing
    assert ws.mdp_view.mode == "select" and window.mode_actions["select"].isChecked()
    ws.inspector.model_name.setFocus()
    qtbot.keyClick(ws.inspector.model_name, Qt.Key.Key_N)  # typing, not a new state
    assert window.document.model(ws.mdp_id).n_states == n + 1
