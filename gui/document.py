"""The open project as seen by the GUI: a :class:`core.project.Project` plus undo and signals.

Views connect to the signals and read ``document.project``; they never keep their own
authoritative copy. The mutation methods below are called by the commands in
:mod:`gui.commands` (pushed on :attr:`ProjectDocument.undo_stack`), which is how every
user edit becomes undoable. :meth:`ProjectDocument.replace_project` (File ▸ New / Open)
is the one non-undoable change: it starts a fresh history.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from core.mdp import MDP
from core.project import MdpEntry, Project, RunRecord

__all__ = ["ProjectDocument"]


class ProjectDocument(QObject):
    """Wraps a :class:`Project` with a :class:`QUndoStack`, its file path and a dirty flag."""

    project_replaced = Signal()
    dirty_changed = Signal(bool)
    path_changed = Signal(str)
    name_changed = Signal(str)
    run_added = Signal(str)
    run_removed = Signal(str)
    mdp_changed = Signal(str)

    def __init__(self, project: Project | None = None, path: str | Path | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project if project is not None else Project()
        self._path = str(path) if path else None
        self._undo_stack = QUndoStack(self)
        self._dirty = False
        self._undo_stack.cleanChanged.connect(self._on_undo_stack_clean_changed)

    # ------------------------------------------------------------------ read access
    @property
    def project(self) -> Project:
        """The project. Read it freely; change it only through commands."""
        return self._project

    @property
    def undo_stack(self) -> QUndoStack:
        return self._undo_stack

    @property
    def path(self) -> str | None:
        """The ``*.privplan.json`` file this project was loaded from or saved to, if any."""
        return self._path

    @property
    def is_dirty(self) -> bool:
        return self._dirty

    @property
    def display_name(self) -> str:
        return self._project.name or "Untitled"

    def has_mdp(self, mdp_id: str) -> bool:
        return any(e.id == mdp_id for e in self._project.mdps)

    def mdp_entry(self, mdp_id: str) -> MdpEntry:
        for e in self._project.mdps:
            if e.id == mdp_id:
                return e
        raise KeyError(mdp_id)

    def run(self, run_id: str) -> RunRecord:
        for r in self._project.runs:
            if r.id == run_id:
                return r
        raise KeyError(run_id)

    # ------------------------------------------------------------------ whole-document changes
    def push(self, command: QUndoCommand) -> None:
        """Do ``command`` and put it on the undo stack."""
        self._undo_stack.push(command)

    def replace_project(self, project: Project, path: str | Path | None = None) -> None:
        """Swap in another project (New/Open). Clears the undo history; not undoable."""
        self._undo_stack.clear()
        self._project = project
        self._set_path(str(path) if path else None)
        self._undo_stack.setClean()
        self._set_dirty(False)
        self.project_replaced.emit()

    def mark_saved(self, path: str | Path) -> None:
        """Record a successful save to ``path``: the current state becomes the clean one."""
        self._set_path(str(path))
        self._undo_stack.setClean()
        self._set_dirty(False)

    # ------------------------------------------------------------------ mutations (commands only)
    def set_project_name(self, name: str) -> None:
        self._project.name = name
        self.name_changed.emit(name)

    def add_run(self, record: RunRecord, index: int | None = None) -> None:
        if any(r.id == record.id for r in self._project.runs):
            raise ValueError(f"run id {record.id!r} already exists")
        if index is None:
            self._project.runs.append(record)
        else:
            self._project.runs.insert(index, record)
        self.run_added.emit(record.id)

    def remove_run(self, run_id: str) -> tuple[int, RunRecord]:
        for i, r in enumerate(self._project.runs):
            if r.id == run_id:
                del self._project.runs[i]
                self.run_removed.emit(run_id)
                return i, r
        raise KeyError(run_id)

    def set_mdp(self, mdp_id: str, mdp: MDP) -> MDP:
        """Replace the model stored under ``mdp_id``; returns the previous one."""
        entry = self.mdp_entry(mdp_id)
        old, entry.mdp = entry.mdp, mdp
        self.mdp_changed.emit(mdp_id)
        return old

    # ------------------------------------------------------------------ internals
    def _set_path(self, path: str | None) -> None:
        if path != self._path:
            self._path = path
            self.path_changed.emit(path or "")

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    def _on_undo_stack_clean_changed(self, clean: bool) -> None:
        self._set_dirty(not clean)
