"""Cancel (Esc, the toolbar's Cancel) while a large file opens in the background.

The window opens a large file in a worker (:meth:`gui.shell.main_window.MainWindow.open_path`)
and disables the project while it does. Cancel gives the window back at once: the document is
left as it was, the status bar says so, and the file's contents are dropped when the reader
finishes (:class:`gui.shell.workers.TaskRunner` never delivers a result that was cancelled).
The readers themselves have no cancel points yet, so the worker thread finishes reading in
the background. Installed on every main window as a window extension
(:func:`install_load_cancel`).
"""

from __future__ import annotations

from typing import Any

from gui.shell.tools import register_window_extension

__all__ = ["install_load_cancel", "cancel_loading"]


def cancel_loading(window: Any) -> bool:
    """Stop waiting for the file being opened (if any); True if there was one."""
    path = window._loading
    if path is None:
        return False
    window._loader.cancel()
    window._loading = None
    window._set_loading(False)
    window.statusBar().showMessage(f"Stopped opening {path}; the project is unchanged.", 8000)
    window.log_panel.info(f"opening {path} cancelled")
    return True


def install_load_cancel(window: Any) -> None:
    """Enable Cancel while a file opens, and let it stop the opening."""
    window._loader.started.connect(lambda: window.cancel_action.setEnabled(True))
    window.cancel_action.triggered.connect(lambda: cancel_loading(window))


register_window_extension(install_load_cancel)
