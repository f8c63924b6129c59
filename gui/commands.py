"""Undoable edits of the project: every change a user makes is one of these commands.

Each command calls :class:`gui.document.ProjectDocument` mutation methods in ``redo``
and their inverse in ``undo``; nothing else in the GUI mutates a project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from core.mdp import MDP
from core.project import RunRecord

if TYPE_CHECKING:
    from gui.document import ProjectDocument

__all__ = ["RenameProjectCommand", "AddRunCommand", "RemoveRunCommand", "ReplaceMdpCommand"]


class RenameProjectCommand(QUndoCommand):
    def __init__(self, document: "ProjectDocument", name: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Rename project to “{name}”", parent)
        self._document = document
        self._old = document.project.name
        self._new = name

    def redo(self) -> None:
        self._document.set_project_name(self._new)

    def undo(self) -> None:
        self._document.set_project_name(self._old)


class AddRunCommand(QUndoCommand):
    """Record a finished analysis run (its parameters and summary) in the project."""

    def __init__(self, document: "ProjectDocument", record: RunRecord,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Record {record.kind} {record.id}", parent)
        self._document = document
        self._record = record

    @property
    def record(self) -> RunRecord:
        return self._record

    def redo(self) -> None:
        self._document.add_run(self._record)

    def undo(self) -> None:
        self._document.remove_run(self._record.id)


class RemoveRunCommand(QUndoCommand):
    def __init__(self, document: "ProjectDocument", run_id: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Remove run {run_id}", parent)
        self._document = document
        self._run_id = run_id
        self._index: int | None = None
        self._record: RunRecord | None = None

    def redo(self) -> None:
        self._index, self._record = self._document.remove_run(self._run_id)

    def undo(self) -> None:
        assert self._record is not None
        self._document.add_run(self._record, self._index)


class ReplaceMdpCommand(QUndoCommand):
    """Swap the model of one MDP entry (the later MDP editor builds on this)."""

    def __init__(self, document: "ProjectDocument", mdp_id: str, mdp: MDP,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or f"Change MDP {mdp_id}", parent)
        self._document = document
        self._mdp_id = mdp_id
        self._new = mdp
        self._old: MDP = document.mdp_entry(mdp_id).mdp

    def redo(self) -> None:
        self._document.set_mdp(self._mdp_id, self._new)

    def undo(self) -> None:
        self._document.set_mdp(self._mdp_id, self._old)
