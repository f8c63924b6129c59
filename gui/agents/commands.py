"""Undoable edits of the project's grid worlds (``Project.grids``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from core.gridworld import GridEntry
from gui.shell.commands import DocumentCommand

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["SetGridCommand", "new_grid_id", "grid_index"]


def new_grid_id(document: "ProjectDocument") -> str:
    return document.project.new_grid_id()


def grid_index(document: "ProjectDocument", grid_id: str) -> int:
    """Index of the grid with ``grid_id`` in ``Project.grids`` (-1 if none)."""
    for i, g in enumerate(document.project.grids):
        if g.id == grid_id:
            return i
    return -1


class SetGridCommand(DocumentCommand):
    """Replace ``Project.grids[index]`` by ``entry``; create it (``index == len``) or, with
    ``entry=None``, remove it. Undo restores the previous state exactly."""

    section = "grids"

    def __init__(self, document: "ProjectDocument", index: int, entry: GridEntry | None,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or "Edit grid", parent)
        grids = document.project.grids
        if not 0 <= index <= len(grids) or (index == len(grids) and entry is None):
            raise IndexError(f"no grid {index} (the project has {len(grids)})")
        self._document = document
        self._index = index
        self._old = grids[index] if index < len(grids) else None
        self._new = entry

    def _store(self, entry: GridEntry | None, *, insert: bool) -> None:
        grids = self._document.project.grids
        if entry is None:
            del grids[self._index]
        elif insert:
            grids.insert(self._index, entry)
        else:
            grids[self._index] = entry
        self._document.grid_changed.emit(self._index)

    def redo(self) -> None:
        self._store(self._new, insert=self._old is None)

    def undo(self) -> None:
        self._store(self._old, insert=self._new is None)
