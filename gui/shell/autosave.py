"""Periodic autosave and crash recovery for the open project (the Qt side).

:class:`AutosaveController` writes a recovery copy of the document every
:attr:`interval_s` seconds while it has unsaved changes (and something changed since the
last copy), through :mod:`core.project.autosave`, in a worker thread (a snapshot of the project
is taken on the UI thread first). A normal save or close deletes the copy; what is left
after a crash is offered by :meth:`gui.shell.main_window.MainWindow.offer_recovery` at the next
start.

The recovery folder is ``QStandardPaths.AppDataLocation/recovery``, or the folder named by
the environment variable ``PRIVPLAN_RECOVERY_DIR`` (tests point it at a temporary folder).
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import os
import uuid
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from core.project import (
    RECOVERY_SUFFIX,
    MdpEntry,
    Project,
    Recovery,
    discard_for,
    list_recoverable,
    recovery_stem,
    write_recovery,
)
from gui.shell.document import ProjectDocument
from gui.shell.workers import TaskRunner

__all__ = ["AutosaveController", "recovery_folder", "snapshot_project", "DEFAULT_INTERVAL_S"]

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S = 60


def recovery_folder() -> str:
    """Where recovery copies go (``PRIVPLAN_RECOVERY_DIR`` overrides the default)."""
    override = os.environ.get("PRIVPLAN_RECOVERY_DIR")
    if override:
        return override
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return os.path.join(base or os.path.expanduser("~/.privplan"), "recovery")


def snapshot_project(project: Project) -> Project:
    """An independent copy of ``project`` for a worker (models copied, caches dropped)."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(project):
        value = getattr(project, f.name)
        if f.name == "mdps":
            changes[f.name] = [MdpEntry(e.id, e.model.copy(), e.note) for e in value]
        else:
            changes[f.name] = copy.deepcopy(value)
    return dataclasses.replace(project, **changes)


def _write(project: Project, folder: str, project_path: str | None, key: str, *,
           progress=None) -> Recovery:
    return write_recovery(project, folder, project_path=project_path, key=key)


class AutosaveController(QObject):
    """Autosaves ``document`` while it is dirty; cleans up after saves and closes."""

    saved = Signal(str)  # path of the recovery copy written
    failed = Signal(str)

    def __init__(self, document: ProjectDocument, *, folder: str | None = None,
                 interval_s: int = DEFAULT_INTERVAL_S, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._folder = folder or recovery_folder()
        self._key = uuid.uuid4().hex[:12]  # names the copy of a project never saved
        self._written_for: tuple[object, int] | None = None  # (project, undo index) copied
        self._copy: tuple[str | None, str] | None = None  # (project path, key) of our copy
        self._generation = 0  # bumped by discard(): a write started before is obsolete
        self._pending: tuple[object, int, str | None, str, int] | None = None
        self._runner = TaskRunner(self)
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._timer = QTimer(self)
        self._timer.setInterval(max(1, int(interval_s)) * 1000)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()
        document.project_replaced.connect(self._on_document_project_replaced)

    # ------------------------------------------------------------------ public
    @property
    def folder(self) -> str:
        return self._folder

    @property
    def interval_s(self) -> int:
        return self._timer.interval() // 1000

    def set_interval(self, seconds: int) -> None:
        self._timer.setInterval(max(1, int(seconds)) * 1000)

    @property
    def is_writing(self) -> bool:
        return self._runner.is_running

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    def copy_path(self) -> str | None:
        """The recovery copy this session keeps (None if none was written)."""
        if self._copy is None:
            return None
        return os.path.join(self._folder, recovery_stem(*self._copy) + RECOVERY_SUFFIX)

    def needs_autosave(self) -> bool:
        doc = self._document
        return doc.is_dirty and self._written_for != (doc.project, doc.history_version())

    def autosave_now(self) -> bool:
        """Start writing a recovery copy if there are unsaved changes not yet copied."""
        if not self.needs_autosave() or self._runner.is_running:
            return False
        doc = self._document
        snapshot = snapshot_project(doc.project)
        if self._copy is not None and self._copy != (doc.path, self._key):
            self._remove(*self._copy)  # the project was saved elsewhere since the last copy
            self._copy = None
        self._pending = (doc.project, doc.history_version(), doc.path, self._key,
                         self._generation)
        self._runner.start(_write, snapshot, self._folder, doc.path, self._key)
        return True

    def discard(self) -> None:
        """Delete this session's recovery copy (after a save, a close, another project)."""
        self._generation += 1
        if self._copy is not None:
            self._remove(*self._copy)
        self._copy = None
        self._written_for = None

    def recoverable(self) -> list[Recovery]:
        """Copies left by earlier sessions (not this session's own)."""
        own = self.copy_path()
        return list_recoverable(self._folder, exclude={own} if own else set())

    def adopt(self, recovery: Recovery) -> None:
        """Keep autosaving a recovered project into the copy it came from."""
        stem = os.path.basename(recovery.path)[: -len(RECOVERY_SUFFIX)]
        if recovery.original is None and stem.startswith("untitled-"):
            self._key = stem[len("untitled-"):]
        self._copy = (recovery.original, self._key)

    def shutdown(self) -> None:
        self._timer.stop()
        self._runner.shutdown()

    def _remove(self, project_path: str | None, key: str) -> None:
        try:
            discard_for(self._folder, project_path=project_path, key=key)
        except OSError as exc:
            log.warning("cannot remove the recovery copy: %s", exc)

    # ------------------------------------------------------------------ slots
    def _on_timer_timeout(self) -> None:
        self.autosave_now()

    def _on_runner_succeeded(self, recovery: object) -> None:
        assert isinstance(recovery, Recovery) and self._pending is not None
        project, index, path, key, generation = self._pending
        self._pending = None
        if generation != self._generation or self._document.project is not project:
            self._remove(path, key)  # saved, closed or replaced while it was written
            return
        self._copy = (path, key)
        self._written_for = (project, index)
        self.saved.emit(recovery.path)

    def _on_runner_failed(self, exc: object) -> None:
        self._pending = None
        self.failed.emit(f"autosave failed: {exc}")

    def _on_document_project_replaced(self) -> None:
        # the previous project was saved or discarded on purpose: its copy is not needed
        self.discard()
        self._key = uuid.uuid4().hex[:12]
