"""Undoable edits of the project's advising set-ups and advising run records.

``Project.advising`` is a list of set-up dicts (:meth:`core.advising.model.AdvisingSetup.to_dict`);
the DP-advising workspace edits entry 0. :class:`gui.shell.document.ProjectDocument` has no
advising-specific mutation method or signal yet, so this module provides both:

* :func:`advising_hub` returns the document's :class:`AdvisingHub` (a child QObject created
  on first use) whose ``setup_changed(int)`` signal fires after every change of
  ``Project.advising[index]``; views connect to it;
* :class:`SetAdvisingSetupCommand` replaces (or creates) one set-up; it is the only code that
  writes ``Project.advising``;
* :class:`AddAdvisingRunCommand` records a finished advising run (a :class:`RunRecord` of kind
  ``advise`` or ``advise-experiment``) through :meth:`ProjectDocument.add_run`.

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

__all__ = ["AdvisingHub", "advising_hub", "SetAdvisingSetupCommand", "AddAdvisingRunCommand",
           "store_setup"]

_HUB_NAME = "advising_hub"


class AdvisingHub(QObject):
    """Signals about the project's advising set-ups (one per document)."""

    setup_changed = Signal(int)  # index into Project.advising (created, replaced or removed)


def advising_hub(document: "ProjectDocument") -> AdvisingHub:
    """The :class:`AdvisingHub` of ``document`` (created as its child on first use)."""
    hub = document.findChild(AdvisingHub, _HUB_NAME)
    if hub is None:
        hub = AdvisingHub(document)
        hub.setObjectName(_HUB_NAME)
    return hub


def store_setup(document: "ProjectDocument", index: int, setup: dict[str, Any] | None) -> None:
    """Write ``Project.advising[index]`` (append at the end; ``None`` removes) and notify.

    Only the commands below call this.
    """
    entries = document.project.advising
    if setup is None:
        del entries[index]
    elif index == len(entries):
        entries.append(copy.deepcopy(setup))
    else:
        entries[index] = copy.deepcopy(setup)
    advising_hub(document).setup_changed.emit(index)


class SetAdvisingSetupCommand(QUndoCommand):
    """Replace ``Project.advising[index]`` by ``setup`` (a set-up dict), or create it.

    ``index == len(project.advising)`` creates a new entry; undo removes it again.
    """

    def __init__(self, document: "ProjectDocument", index: int, setup: dict[str, Any],
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or "Edit advising set-up", parent)
        entries = document.project.advising
        if not 0 <= index <= len(entries):
            raise IndexError(f"no advising set-up {index} (the project has {len(entries)})")
        self._document = document
        self._index = index
        self._old = copy.deepcopy(entries[index]) if index < len(entries) else None
        self._new = copy.deepcopy(setup)

    @property
    def index(self) -> int:
        return self._index

    @property
    def creates(self) -> bool:
        return self._old is None

    def redo(self) -> None:
        store_setup(self._document, self._index, self._new)

    def undo(self) -> None:
        store_setup(self._document, self._index, self._old)


class AddAdvisingRunCommand(QUndoCommand):
    """Record a finished advising run (parameters and a small summary) in the project."""

    def __init__(self, document: "ProjectDocument", record: RunRecord,
                 parent: QUndoCommand | None = None) -> None:
        what = "advising experiment" if record.kind == "advise-experiment" else "advising run"
        super().__init__(f"Record {what} {record.id}", parent)
        self._document = document
        self._record = record

    @property
    def record(self) -> RunRecord:
        return self._record

    def redo(self) -> None:
        self._document.add_run(self._record)

    def undo(self) -> None:
        self._document.remove_run(self._record.id)
