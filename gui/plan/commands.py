"""The Privacy plan tab's one edit: a plan of the project's ``plans`` section set.

Moving a share, an allocation (Split by weights, Optimise) and Open plan… each replace the
plan stored under its name (:meth:`gui.shell.document.ProjectDocument.set_plan`) in one
undoable step on the tab's own stack (``"plan"``); undoing the first one takes the plan out
of the project again. Executing a plan records a run and ledger entries, which are not
edits (:meth:`ProjectDocument.record`): Ctrl+Z never un-spends a release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand

from core.plan import Plan, plan_to_dict
from gui.shell.commands import DocumentCommand

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["SetPlanCommand", "PLAN_STACK"]

#: The tab's undo stack.
PLAN_STACK = "plan"


class SetPlanCommand(DocumentCommand):
    """Store ``plan`` under ``name`` in the project's ``plans`` (undo: what was there)."""

    section = "plans"

    def __init__(self, document: "ProjectDocument", name: str, plan: Plan, text: str,
                 parent: QUndoCommand | None = None) -> None:
        super().__init__(text, parent)
        self._document = document
        self._name = name
        self._new = plan_to_dict(plan)
        old = document.plan_document(name)
        self._old: dict[str, Any] | None = None if old is None else dict(old)

    @property
    def name(self) -> str:
        return self._name

    def redo(self) -> None:
        self._document.set_plan(self._name, self._new)

    def undo(self) -> None:
        self._document.set_plan(self._name, self._old)
