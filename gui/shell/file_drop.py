"""Files dropped on the main window: a project opens, a model is imported.

A ``*.privplan.json`` dropped on the window opens as File ▸ Open does (asking about unsaved
changes first); model files — ``*.mdp.json``, ``*.mdp.npz``, PRISM's explicit files or a
Storm ``.drn`` — are imported as File ▸ Import Model… does (several files dropped together
are one PRISM model). A drag carrying no such file is refused, so the cursor says so before
the drop. Installed on every main window as a window extension (:func:`install_file_drop`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from gui.shell.model_import import is_importable, is_project_file
from gui.shell.tools import register_window_extension

__all__ = ["dropped_files", "install_file_drop", "FileDrop"]


def dropped_files(event: QDropEvent | QDragEnterEvent) -> list[str]:
    """The local files of a drag that the window can open or import (others left out)."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    files = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
    return [f for f in files if is_project_file(f) or is_importable(f)]


class FileDrop(QObject):
    """The window's drop handler (an event filter on the window)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if dropped_files(event):  # type: ignore[arg-type]
                event.acceptProposedAction()  # type: ignore[attr-defined]
            else:
                event.ignore()
            return True
        if kind == QEvent.Type.Drop:
            files = dropped_files(event)  # type: ignore[arg-type]
            if files:
                event.acceptProposedAction()  # type: ignore[attr-defined]
                self.open(files)
            else:
                event.ignore()
            return True
        return False

    def open(self, files: list[str]) -> object:
        """Open a dropped project, or import the dropped model files; what was done."""
        window = self._window
        projects = [f for f in files if is_project_file(f)]
        if projects:
            if len(files) > 1:
                window.statusBar().showMessage("Drop one project at a time; opened "
                                               f"{projects[0]}", 8000)
            if not window.file_actions.maybe_save():
                return None
            return window.open_path(projects[0])
        return window.import_mdp(files)


def install_file_drop(window: Any) -> FileDrop:
    """Let ``window`` take dropped project and model files."""
    handler = FileDrop(window)
    window.setAcceptDrops(True)
    window.installEventFilter(handler)
    window.file_drop = handler
    return handler


register_window_extension(install_file_drop)
