"""MainWindow: layout, actions, open/save, undo, status bar, closing."""

from __future__ import annotations

import json

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from core import __version__
from core.project.files import load_project
from gui.shell.commands import RenameProjectCommand
from gui.shell.resources import asset_path


@pytest.fixture
def criticals(monkeypatch):
    shown = []

    def fake(parent, title, text, *args, **kwargs):
        shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(fake))
    return shown


def test_layout(window):
    doc = window.document
    assert window.tabs.count() == 2
    assert window.active_workspace().mdp_id == "four-startups"
    assert window.project_dock.isVisible() and window.params_dock.isVisible()
    assert not window.log_dock.isVisible()  # hidden by default
    assert doc.display_name in window.windowTitle()
    assert "model valid ✓" in window.validity_label.text()
    assert "seeded experiment (seed 7)" in window.mode_label.text()
    assert window.params_stack.currentWidget() is window.active_workspace().analysis_panel
    ws = window.active_workspace()
    assert ws.banner.isVisible() and "not the paper's model" in ws.banner.text()
    assert ws.results.is_empty
    window.tabs.setCurrentIndex(1)
    assert not window.active_workspace().banner.isVisibleTo(window)
    assert window.params_stack.currentWidget() is window.active_workspace().analysis_panel


def test_shortcuts(window):
    def keys(action):
        return [k.toString() for k in action.shortcuts()]

    assert "F5" in keys(window.run_action)
    assert "Esc" in keys(window.cancel_action)
    assert "Ctrl+O" in keys(window.open_action)
    assert "Ctrl+S" in keys(window.save_action)
    assert "Ctrl+Shift+S" in keys(window.save_as_action)
    assert QKeySequence(QKeySequence.StandardKey.Undo).toString() in keys(window.undo_action)
    assert "Ctrl+Shift+Z" in keys(window.redo_action)
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "Edit", "View", "Analysis", "Tools", "Help"]


def test_run_from_the_window_logs_and_ctrl_z_keeps_it(qtbot, window):
    """Ctrl+Z right after a run does not silently remove the run and its
    ledger entries — a recorded run is not on the edit stack (recorded spend stays)."""
    ws = window.active_workspace()
    ws.analysis_panel.set_parameters(ks="10, 100", runs=2, workers=1)
    with qtbot.waitSignal(ws.runner.succeeded, timeout=30000):
        assert window.run_analysis()
    doc = window.document
    assert len(doc.project.runs) == 1
    n_ledger = len(doc.project.ledger)
    assert n_ledger == 2  # one seeded-experiment entry per k
    assert any("run-1 recorded" in m for _, m in window.log_panel.messages())
    assert "Record sweep" not in window.undo_action.text()
    assert window.isWindowModified()
    assert window.project_panel.item_ids("run") == ["run-1"]
    window.undo_action.trigger()  # Ctrl+Z
    assert [r.id for r in doc.project.runs] == ["run-1"] and not ws.results.is_empty
    assert len(doc.project.ledger) == n_ledger
    assert window.isWindowModified()


def test_open_malformed_file_keeps_the_document(qtbot, window, tmp_path, criticals,
                                                monkeypatch):
    bad = tmp_path / "broken.privplan.json"
    bad.write_text('{"format": "privplan-project", "schema_version": 1, "project": {')
    doc = window.document
    before = doc.project
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(bad), "")))
    window.open_action.trigger()
    assert doc.project is before
    assert window.tabs.count() == 2
    assert len(criticals) == 1 and "malformed JSON" in criticals[0][1]
    assert str(bad) in criticals[0][1]
    assert any(level == "ERROR" for level, _ in window.log_panel.messages())


def test_open_invalid_mdp_names_the_problem(window, tmp_path, criticals):
    bad = tmp_path / "bad.mdp.json"
    bad.write_text(json.dumps({"format": "privplan-mdp", "version": 1, "states": ["a"],
                               "transitions": {"a": {"go": {"a": 0.5}}}, "horizon": 1}))
    before = window.document.project
    assert window.open_path(bad) is False
    assert window.document.project is before
    assert "sum to 0.5" in criticals[0][1]


def test_open_mdp_file_wraps_it(window):
    assert window.open_path(asset_path("examples", "four_startups.mdp.json"))
    doc = window.document
    assert doc.path is None  # an MDP file is not a project file: Save asks where
    assert window.tabs.count() == 1
    assert window.active_workspace().banner.isVisible()  # placeholder named in the model


def test_save_and_save_as(window, tmp_path, monkeypatch):
    doc = window.document
    doc.push(RenameProjectCommand(doc, "Saved project"))
    assert doc.is_dirty
    target = tmp_path / "mine"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    assert window.save_as()
    saved = tmp_path / "mine.privplan.json"
    assert saved.exists() and not doc.is_dirty and doc.path == str(saved)
    assert load_project(saved).name == "Saved project"
    assert not list(tmp_path.glob(".*.tmp"))  # atomic save leaves no temp file
    doc.push(RenameProjectCommand(doc, "Again"))
    window.save_action.trigger()  # has a path now: no dialog
    assert load_project(saved).name == "Again" and not doc.is_dirty


def test_new_project_shows_empty_canvas(window):
    window.new_action.trigger()
    assert window.tabs.count() == 1  # one empty MDP, ready to draw
    ws = window.active_workspace()
    assert "no states yet" in ws.mdp_view.empty_text()
    assert window.validity_label.text().startswith("model invalid: the model has no states")
    window.close_workspace(ws.mdp_id)
    assert window.central.currentWidget() is window.closed_label
    assert not window.run_action.isEnabled()
    assert window.validity_label.text() == "no model open"


def test_empty_project_view_teaches(window):
    from core.project.model import Project

    window.document.replace_project(Project(name="nothing"))
    assert window.tabs.count() == 0
    assert window.central.currentWidget() is window.empty_view
    assert "no MDP" in window.empty_view.empty_text()


def test_tree_double_click_reopens_workspace(window):
    window.close_workspace("example-2")
    assert window.tabs.count() == 1
    window.project_panel.mdp_activated.emit("example-2")
    assert window.tabs.count() == 2
    assert window.active_workspace().mdp_id == "example-2"
    window.project_panel.mdp_activated.emit("four-startups")
    assert window.tabs.count() == 2
    assert window.active_workspace().mdp_id == "four-startups"


def test_close_asks_about_unsaved_changes(qtbot, window, monkeypatch):
    import gui.shell.file_actions

    doc = window.document
    doc.push(RenameProjectCommand(doc, "changed"))
    monkeypatch.setattr(gui.shell.file_actions, "ask_save_changes",
                        lambda parent, name: QMessageBox.StandardButton.Cancel)
    assert window.close() is False
    assert window.isVisible()
    monkeypatch.setattr(gui.shell.file_actions, "ask_save_changes",
                        lambda parent, name: QMessageBox.StandardButton.Discard)
    assert window.close() is True


def test_about_mentions_version_and_privacy(window, monkeypatch):
    seen = []
    monkeypatch.setattr(QMessageBox, "about", staticmethod(lambda p, t, text: seen.append(text)))
    window.about_action.trigger()
    assert __version__ in seen[0] and "Privacy note" in seen[0] and "oracle view" in seen[0]


def test_rename_via_dialog(window, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("New name", True)))
    window.rename_action.trigger()
    assert window.document.project.name == "New name"
    assert "New name" in window.windowTitle()
    window.undo_action.trigger()
    assert window.document.project.name != "New name"


@pytest.mark.parametrize("name, content, words", [
    ("deep.privplan.json", b"[" * 100_000 + b"]" * 100_000, "nested more than 200 levels"),
    ("photo.privplan.json", b"\x89PNG\r\n\x1a\n" + bytes(64), "it looks like a PNG image"),
    ("big.privplan.json", b'{"format": "privplan-project", "schema_version": 2, '
                          b'"project": {"notes": 1e309}}', "1e309"),
    ("garbage.privplan.json", b'{"format": "privplan-project", "schema_version": 2, '
                              b'"project": {"maps": ["x"]}}', "each map must be an object"),
    ("forged.mdp.npz", None, "truncated or forged"),
])
def test_every_hostile_file_gets_a_dialog_and_the_document_is_kept(
        window, tmp_path, criticals, name, content, words):
    import sys
    from pathlib import Path

    if content is None:  # an NPZ declaring 8000 x 4 x 8000 in a few KB
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "core" / "fuzz"))
        from mutants import _bomb

        content = _bomb((8000, 4, 8000))
    bad = tmp_path / name
    bad.write_bytes(content)
    doc = window.document
    before = doc.project
    opener = window.import_mdp if name.endswith(".npz") else window.open_path
    opener(str(bad))
    assert doc.project is before and not doc.is_dirty
    assert len(criticals) == 1 and words in criticals[0][1], criticals


def test_a_hostile_map_gets_a_dialog_and_the_maps_are_kept(window, tmp_path, criticals):
    panel = window.open_tool("logistics")
    bad = tmp_path / "deep.map.json"
    bad.write_bytes(b'{"nodes": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    maps = list(window.document.project.maps)
    assert panel.import_map_path(str(bad)) is None
    assert window.document.project.maps == maps
    assert len(criticals) == 1 and "nested more than 200 levels" in criticals[0][1]


def test_undo_never_crosses_tabs(window):
    """Issue: Ctrl+Z on the MDP canvas used to undo an edit made in another tab."""
    doc = window.document
    ws = window.active_workspace()
    n_states = doc.model(ws.mdp_id).n_states
    ws.editor.canvas.add_state_at((400.0, 400.0))  # an edit in the MDP tab
    panel = window.open_tool("logistics")
    panel.load_fig41()  # then one in the logistics tab
    assert len(doc.project.maps) == 1 and doc.model(ws.mdp_id).n_states == n_states + 1
    # in the logistics tab, Undo takes back the map, not the MDP edit
    assert window.undo_action.text().startswith("&Undo Add map")
    window.undo_action.trigger()
    assert doc.project.maps == [] and doc.model(ws.mdp_id).n_states == n_states + 1
    assert not window.undo_action.isEnabled()  # nothing more to undo in this tab
    # back on the MDP tab, Undo takes back its own edit only
    window.tabs.setCurrentWidget(ws)
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert doc.model(ws.mdp_id).n_states == n_states and doc.project.maps == []
    assert not doc.is_dirty  # every stack is back at its clean state
    window.tabs.setCurrentWidget(panel)
    window.redo_action.trigger()
    assert len(doc.project.maps) == 1 and doc.is_dirty


def test_one_inspector_and_one_run_follow_the_active_tab(window):
    """Issue: tool tabs showed the MDP Inspector ("nothing to show") beside their own, and
    the toolbar's Run/Cancel stayed grey while the tab said "press Run (F5)"."""
    assert window.inspector_dock.isVisible()
    ws = window.active_workspace()
    tool = window.open_tool("audit")
    assert not window.inspector_dock.isVisible()  # the tool inspects in its own panel
    assert window.run_action.isEnabled() and window.current_tool() is tool
    window.tabs.setCurrentWidget(ws)
    assert window.inspector_dock.isVisible()  # back as the user left it
    window.inspector_dock.hide()  # the user closes it on an MDP tab ...
    window.tabs.setCurrentWidget(tool)
    window.tabs.setCurrentWidget(ws)
    assert not window.inspector_dock.isVisible()  # ... and it stays closed


def test_no_menu_has_two_items_on_one_alt_key(window):
    """Issue: duplicated Alt keys in the File menu (Alt+E went to the first of two)."""
    window.open_tool("logistics")  # tools and extensions add their own entries
    for top in window.menuBar().actions():
        keys = [a.text().replace("&&", "") for a in top.menu().actions() if a.text()]
        marked = [t[t.index("&") + 1].lower() for t in keys if "&" in t]
        assert len(marked) == len(set(marked)), (top.text(), keys)
