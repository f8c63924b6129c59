"""Undoable edits of the project's advising set-ups.

``Project.advising`` is a list of validated :class:`core.advising.model.AdvisingSetup`
(immutable, so commands hold them without copying); the DP-advising workspace edits
entry 0. :class:`SetAdvisingSetupCommand` replaces (or creates) one set-up; it is the only
code that writes ``Project.advising``, and every change is announced by
:attr:`gui.shell.document.ProjectDocument.advising_changed`. Runs are recorded with the one
:class:`gui.shell.commands.AddRunCommand`.

The document's dirty flag follows its undo stack, so pushing any of these marks it dirty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from core.advising import AdvisingSetup
from gui.shell.commands import DocumentCommand

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["SetAdvisingSetupCommand", "store_setup"]


def store_setup(document: "ProjectDocument", index: int, setup: AdvisingSetup | None) -> None:
    """Write ``Project.advising[index]`` (append at the end; ``None`` removes) and notify.

    Only the commands below call this, and the advising tab when it gives a project its
    default set-up (opening a tab is not an edit).
    """
    entries = document.project.advising
    if setup is None:
        del entries[index]
    elif index == len(entries):
        entries.append(setup)
    else:
        entries[index] = setup
    document.advising_changed.emit(index)


class SetAdvisingSetupCommand(DocumentCommand):
    """Replace ``Project.advising[index]`` by ``setup``, or create it.

    ``index == len(project.advising)`` creates a new entry; undo removes it again.
    """

    section = "advising"

    def __init__(self, document: "ProjectDocument", index: int, setup: AdvisingSetup,
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        super().__init__(text or "Edit advising set-up", parent)
        entries = document.project.advising
        if not 0 <= index <= len(entries):
            raise IndexError(f"no advising set-up {index} (the project has {len(entries)})")
        self._document = document
        self._index = index
        self._old = entries[index] if index < len(entries) else None
        if not isinstance(setup, AdvisingSetup):
            raise TypeError(f"an AdvisingSetup is needed, got {type(setup).__name__}")
        self._new = setup

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
