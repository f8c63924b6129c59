"""GUI test set-up: offscreen Qt, isolated QSettings, no blocking dialogs."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# JAX's persistent compilation cache (the deep extra's networks): a network compiled once is
# read back, not compiled again, by the other xdist worker, by the next suite of the same
# `make test` (GUI, then deep) and by the next run; compiling, not training, is most of a
# small network test's time (a DQN run on a 7x7 grid: 11 s of CPU cold, 2 s from the cache).
# Entries are keyed by the computation, JAX's version and the XLA flags, so a changed network
# is compiled afresh. Set JAX_COMPILATION_CACHE_DIR to use another folder. (The same lines
# are in tests/deep/conftest.py.)
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(
    tempfile.gettempdir(), f"privplan-jax-cache-{getattr(os, 'getuid', lambda: 'user')()}"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")

import pytest  # noqa: E402

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import pyqtgraph as pg  # noqa: E402
import PySide6  # noqa: E402,F401  (before pyqtgraph)
from PySide6.QtCore import QCoreApplication, QSettings  # noqa: E402

from gui.shell.compat import binding_problem  # noqa: E402

_PROBLEM = binding_problem()
if _PROBLEM:  # fail loudly and clearly instead of aborting the interpreter half-way through
    pytest.exit(f"GUI tests not run: {_PROBLEM}", returncode=3)

# The offscreen platform plugin cannot resize native windows to their size hints and says
# so with a Qt warning whenever a top-level window with a minimum size is shown. That is a
# limitation of the test platform, not a PrivPlan problem.
OFFSCREEN_NOISE = r"This plugin does not support propagateSizeHints\(\)"


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def isolated_settings(qapp, tmp_path):
    """Every test gets its own empty QSettings folder (glue redirects CFG_DIR the same way)."""
    folder = tmp_path / "qsettings"
    folder.mkdir()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(folder))
    QCoreApplication.setOrganizationName("PrivPlanTests")
    QCoreApplication.setApplicationName("PrivPlanTests")
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    yield folder


@pytest.fixture(autouse=True)
def recovery_dir(tmp_path, monkeypatch):
    """Autosave copies go to a folder of the test's own (gui.shell.autosave.recovery_folder)."""
    folder = tmp_path / "recovery"
    monkeypatch.setenv("PRIVPLAN_RECOVERY_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def no_save_prompt(monkeypatch):
    """Closing a window with unsaved changes must not block on a dialog."""
    from PySide6.QtWidgets import QMessageBox

    import gui.shell.file_actions

    answers: list[str] = []

    def discard(parent, name):
        answers.append(name)
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(gui.shell.file_actions, "ask_save_changes", discard)
    return answers


@pytest.fixture
def example_doc():
    from gui.shell.preview import example_document

    return example_document()


@pytest.fixture
def window(qtbot, example_doc):
    from gui.shell.main_window import MainWindow

    w = MainWindow(example_doc)
    qtbot.addWidget(w)
    w.resize(1300, 850)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.discard_and_close()
