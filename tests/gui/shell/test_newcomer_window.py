"""Smaller things a new user met in the window: opening a tool tab is not an edit, the
Save dialog starts in the user's folders, the Run-parameters dock steps aside on a tab
without parameters, the Export Report dialog fits the screen."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from gui.shell.tools import TOOLS, load_tools

load_tools()


def test_opening_any_tool_tab_leaves_the_project_unmodified(qtbot, window):
    assert not window.document.is_dirty
    for key in TOOLS:
        window.open_tool(key)
        qtbot.wait(20)
        assert not window.document.is_dirty, key
        assert not window.isWindowModified(), key


def test_the_save_dialog_starts_in_the_users_folder_not_the_programs(window, monkeypatch,
                                                                     tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # the program's folder
    window.document.replace_project(window.document.project, None)  # never saved
    asked: list[str] = []

    def fake_dialog(parent, title, start, *args, **kwargs):
        asked.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake_dialog)
    assert not window.save_as()
    folder = Path(asked[0]).parent
    assert folder != tmp_path and folder != Path(os.getcwd())
    assert folder.is_dir() and (folder == home or home in folder.parents), folder
    # once a file was opened or saved somewhere, the dialogs start there
    there = tmp_path / "projects"
    there.mkdir()
    window.settings.last_dir = str(there)
    asked.clear()
    window.save_as()
    assert Path(asked[0]).parent == there


def test_the_run_parameters_dock_steps_aside_on_a_tab_without_parameters(qtbot, window):
    assert window.params_dock.isVisible()
    ledger = window.open_tool("ledger")
    qtbot.wait(20)
    assert ledger.info_panel is None and not window.params_dock.isVisible()
    window.open_workspace(window.document.project.mdps[0].id)
    qtbot.wait(20)
    assert window.params_dock.isVisible()
    assert window.params_stack.currentWidget() is window.active_workspace().analysis_panel
    # a dock the user closed stays closed
    window.params_dock.hide()
    window.open_tool("ledger")
    window.open_workspace(window.document.project.mdps[0].id)
    qtbot.wait(20)
    assert not window.params_dock.isVisible()


def test_the_export_report_dialog_fits_the_screen(qtbot, window):
    from gui.report.export_dialog import ExportDialog

    dialog = ExportDialog(window.document, window)
    qtbot.addWidget(dialog)
    available = window.screen().availableGeometry()
    assert dialog.height() + 30 <= available.height()
    assert dialog.width() <= available.width()
    assert dialog.minimumSizeHint().height() <= 600


def test_cancel_gives_the_window_back_while_a_large_file_opens(qtbot, window, monkeypatch,
                                                              tmp_path):
    """Opening a large file had no Cancel: the project stayed disabled until it was read."""
    import threading
    import time

    import gui.shell.main_window as mw

    release = threading.Event()
    real = mw._open_in_worker

    def slow_reader(path, *, progress=None):
        release.wait(10)  # a reader without cancel points, still reading
        return real(path, progress=progress)

    monkeypatch.setattr(mw, "_open_in_worker", slow_reader)
    path = tmp_path / "other.privplan.json"
    from core.project.files import save_project
    from core.project.model import Project

    save_project(Project(name="other"), path)
    before = window.document.project
    assert window.open_path(path, background=True) and window.is_loading
    assert window.cancel_action.isEnabled() and not window.tabs.isEnabled()
    t0 = time.perf_counter()
    window.cancel_action.trigger()
    assert time.perf_counter() - t0 < 2.0
    assert not window.is_loading and window.tabs.isEnabled()
    assert "Stopped opening" in window.statusBar().currentMessage()
    release.set()  # the reader finishes: its project is dropped
    with qtbot.waitSignal(window._loader.finished, timeout=10000):
        pass
    assert window.document.project is before
