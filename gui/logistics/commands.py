"""Undoable edits of the project's logistics maps.

``Project.maps`` is a list of :class:`core.logistics.document.MapEntry` (a stable id and a
validated map; edits are pure functions on its dict, :mod:`core.logistics.edits`).
:class:`SetMapCommand` replaces, creates or removes one map; with :func:`store_map` it is
the only code that writes ``Project.maps``, and every change is announced by
:attr:`gui.shell.document.ProjectDocument.map_changed`.
Plan and benchmark runs are recorded with the one :class:`gui.shell.commands.AddRunCommand`
(a plan run with its agents' ledger entries, in the same undo step).

The document's dirty flag follows its undo stack, so pushing any of these marks it dirty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand

from core.logistics import MapEntry
from gui.shell.commands import DocumentCommand

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["store_map", "new_map_id", "map_index", "SetMapCommand"]


def new_map_id(document: "ProjectDocument") -> str:
    return document.project.new_map_id()


def map_index(document: "ProjectDocument", map_id: str) -> int:
    """Index of the map with ``map_id`` in ``Project.maps`` (-1 if none)."""
    for i, m in enumerate(document.project.maps):
        if m.id == map_id:
            return i
    return -1


def store_map(document: "ProjectDocument", index: int, data: MapEntry | None,
              *, insert: bool = False) -> None:
    """Write ``Project.maps[index]`` (``insert``: a new entry there; ``None`` removes) and
    notify. Only the commands below call this."""
    maps = document.project.maps
    if data is None:
        del maps[index]
    elif insert:
        maps.insert(index, data)
    else:
        maps[index] = data
    document.map_changed.emit(index)


class SetMapCommand(DocumentCommand):
    """Replace ``Project.maps[index]`` by ``data``; create it (``index == len``) or, with
    ``data=None``, remove it. Undo restores the previous state exactly.

    ``data`` is a :class:`MapEntry` or a map dict with its ``"id"`` (validated here:
    InputError naming the problem, and nothing is changed).
    """

    section = "maps"

    def __init__(self, document: "ProjectDocument", index: int,
                 data: MapEntry | Mapping[str, Any] | None,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or "Edit map", parent)
        maps = document.project.maps
        if not 0 <= index <= len(maps) or (index == len(maps) and data is None):
            raise IndexError(f"no map {index} (the project has {len(maps)})")
        self._document = document
        self._index = index
        self._old = maps[index] if index < len(maps) else None
        self._new = (data if data is None or isinstance(data, MapEntry)
                     else MapEntry.from_dict(data))

    @property
    def index(self) -> int:
        return self._index

    def redo(self) -> None:
        if self._old is None:
            store_map(self._document, self._index, self._new, insert=True)
        else:
            store_map(self._document, self._index, self._new)

    def undo(self) -> None:
        if self._new is None:
            store_map(self._document, self._index, self._old, insert=True)
        else:
            store_map(self._document, self._index, self._old)
