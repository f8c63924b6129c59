"""Undoable edits of the project's logistics maps, plan runs and their ledger entries.

``Project.maps`` is a list of map dicts (:func:`core.logistics.io.map_to_dict` plus a stable
``"id"``, see :mod:`core.logistics.edits`). :class:`gui.shell.document.ProjectDocument` has no
map-specific method or signal yet, so this module provides both, as
:mod:`gui.advising.commands` does for advising:

* :func:`logistics_hub` returns the document's :class:`LogisticsHub` (a child QObject created
  on first use): ``map_changed(int)`` fires after every change of ``Project.maps[index]``
  (created, replaced or removed);
* :class:`SetMapCommand` replaces, creates or removes one map; with :func:`store_map` it is
  the only code that writes ``Project.maps``;
* :class:`AddPlanRunCommand` records a finished planning run (a :class:`RunRecord` of kind
  ``plan``) through :meth:`ProjectDocument.add_run` **and** appends the agents' privacy
  ledger entries to ``Project.ledger`` (through :mod:`gui.shell.ledger`, so the ledger panel
  follows) in the same step; undo removes both;
* :class:`AddBenchRunCommand` records a finished benchmark (kind ``plan-bench``).

The document's dirty flag follows its undo stack, so pushing any of these marks it dirty.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand

from core.project.model import RunRecord

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["LogisticsHub", "logistics_hub", "store_map", "new_map_id", "map_index",
           "SetMapCommand", "AddPlanRunCommand", "AddBenchRunCommand"]

_HUB_NAME = "logistics_hub"


class LogisticsHub(QObject):
    """Signals about the project's logistics maps and ledger (one per document)."""

    map_changed = Signal(int)  # index into Project.maps (created, replaced or removed)


def logistics_hub(document: "ProjectDocument") -> LogisticsHub:
    """The :class:`LogisticsHub` of ``document`` (created as its child on first use)."""
    hub = document.findChild(LogisticsHub, _HUB_NAME)
    if hub is None:
        hub = LogisticsHub(document)
        hub.setObjectName(_HUB_NAME)
    return hub


def new_map_id(document: "ProjectDocument") -> str:
    taken = {str(m.get("id")) for m in document.project.maps if isinstance(m, dict)}
    i = 1
    while f"map-{i}" in taken:
        i += 1
    return f"map-{i}"


def map_index(document: "ProjectDocument", map_id: str) -> int:
    """Index of the map with ``map_id`` in ``Project.maps`` (-1 if none)."""
    for i, m in enumerate(document.project.maps):
        if isinstance(m, dict) and m.get("id") == map_id:
            return i
    return -1


def store_map(document: "ProjectDocument", index: int, data: dict[str, Any] | None,
              *, insert: bool = False) -> None:
    """Write ``Project.maps[index]`` (``insert``: a new entry there; ``None`` removes) and
    notify. Only the commands below call this."""
    maps = document.project.maps
    if data is None:
        del maps[index]
    elif insert:
        maps.insert(index, copy.deepcopy(data))
    else:
        maps[index] = copy.deepcopy(data)
    logistics_hub(document).map_changed.emit(index)


class SetMapCommand(QUndoCommand):
    """Replace ``Project.maps[index]`` by ``data``; create it (``index == len``) or, with
    ``data=None``, remove it. Undo restores the previous state exactly."""

    def __init__(self, document: "ProjectDocument", index: int, data: dict[str, Any] | None,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or "Edit map", parent)
        maps = document.project.maps
        if not 0 <= index <= len(maps) or (index == len(maps) and data is None):
            raise IndexError(f"no map {index} (the project has {len(maps)})")
        self._document = document
        self._index = index
        self._old = copy.deepcopy(maps[index]) if index < len(maps) else None
        self._new = copy.deepcopy(data) if data is not None else None

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


class AddPlanRunCommand(QUndoCommand):
    """Record a planning run and append its privacy-ledger entries (one undo step).

    The entries go through :class:`gui.shell.ledger.AddLedgerEntriesCommand` (fresh ``rel-N``
    ids, and the ledger panel hears ``ledger_changed``), which this command owns and drives
    itself (not a Qt child command: PySide and parented QUndoCommands do not mix well when
    the stack is garbage-collected); the run record through
    :meth:`ProjectDocument.add_run`.
    """

    def __init__(self, document: "ProjectDocument", record: RunRecord,
                 ledger_entries: list[dict[str, Any]],
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Record planning run {record.id}", parent)
        from gui.shell.ledger import AddLedgerEntriesCommand

        self._document = document
        self._record = record
        self._ledger = (AddLedgerEntriesCommand(document, ledger_entries)
                        if ledger_entries else None)

    @property
    def record(self) -> RunRecord:
        return self._record

    @property
    def ledger_entries(self) -> list[dict[str, Any]]:
        """The entries as stored (with their project-ledger ids)."""
        return [] if self._ledger is None else [e.to_dict() for e in self._ledger.entries]

    def redo(self) -> None:
        if self._ledger is not None:
            self._ledger.redo()
        self._document.add_run(self._record)

    def undo(self) -> None:
        self._document.remove_run(self._record.id)
        if self._ledger is not None:
            self._ledger.undo()


class AddBenchRunCommand(QUndoCommand):
    """Record a finished logistics benchmark (parameters, means, CIs and trend checks)."""

    def __init__(self, document: "ProjectDocument", record: RunRecord,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(f"Record benchmark {record.params.get('benchmark', '')} {record.id}",
                         parent)
        self._document = document
        self._record = record

    @property
    def record(self) -> RunRecord:
        return self._record

    def redo(self) -> None:
        self._document.add_run(self._record)

    def undo(self) -> None:
        self._document.remove_run(self._record.id)
