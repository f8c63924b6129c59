"""Smaller things a new user met in the window: opening a tool tab is not an edit, the
Save dialog starts in the user's folders, the Run-parameters dock steps aside on a tab
without parameters, the Export Report dialog fits the screen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
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


@pytest.fixture(scope="module")
def large_drn(tmp_path_factory):
    """A Storm model of 10⁵ states (6·10⁵ transitions, about 12 MB): read in the background."""
    from core.mdp.examples import sparse_random_mdp
    from core.mdp.interop.drn import write_drn

    folder = tmp_path_factory.mktemp("drn")
    write_drn(sparse_random_mdp(100_000, 2, 3, 5, seed=3), folder / "big")
    return folder / "big.drn"


def test_a_large_import_runs_in_the_background_with_a_moving_bar(qtbot, window, large_drn):
    """Import of a large Storm file froze the window until it was read; now it is read in
    the loader, the bar moves, and the model is added (undoably) at the end."""
    before = len(window.document.project.mdps)
    seen: list[float] = []
    window._loader.progress_changed.connect(lambda f, m: seen.append(f))
    assert window.import_mdp(str(large_drn)) is None and window.is_loading
    assert not window.tabs.isEnabled() and window.cancel_action.isEnabled()
    with qtbot.waitSignal(window.file_opened, timeout=120_000):
        pass
    assert len(window.document.project.mdps) == before + 1
    assert window.document.project.mdps[-1].model.n_states == 100_000
    assert len(seen) >= 3 and seen == sorted(seen), seen
    assert window.tabs.isEnabled() and not window.is_loading


def test_cancel_stops_a_large_import_within_2_s_and_changes_nothing(qtbot, window, large_drn):
    """Cancel used to leave the reader running to its end in the background; the readers
    now stop at their next progress call."""
    import time

    before = window.document.project
    n_before = len(before.mdps)
    with qtbot.waitSignal(window._loader.progress_changed, timeout=60_000):
        window.import_mdp(str(large_drn))
    t0 = time.perf_counter()
    window.cancel_action.trigger()  # Esc
    assert not window.is_loading and window.tabs.isEnabled()
    with qtbot.waitSignal(window._loader.finished, timeout=10_000):
        pass
    assert time.perf_counter() - t0 < 2.0, "the reader went on after Cancel"
    assert window.document.project is before and len(before.mdps) == n_before
    assert "Stopped opening" in window.statusBar().currentMessage()
