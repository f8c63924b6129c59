"""The project's privacy ledger as the GUI changes it: undoable commands, signals, checks.

Workspaces record what they release through this module, never by editing
``project.ledger`` themselves:

* :func:`record_entries` pushes an :class:`AddLedgerEntriesCommand` (undoable; fresh
  ``rel-N`` ids) — e.g. the entries of an advising run (``AdvisingResult.ledger()``)
  or of a planning session;
* :func:`record_sweep` records the privatisations of a privacy sweep (one entry per k,
  mode ``"experiment"``, ``count`` = runs per k: listed, not spent);
* :func:`record_mdp_release` records one real release of a privatised MDP;
* before a release, :func:`confirm_release` (or the pure
  :func:`privacy_budget_check`) warns when it would take the dataset past its budget;
* :func:`set_budget` pushes a :class:`SetBudgetCommand`.

The commands change ``document.project.ledger`` / ``document.project.budgets`` and then
emit the document's :attr:`~gui.shell.document.ProjectDocument.ledger_changed` /
:attr:`~gui.shell.document.ProjectDocument.budgets_changed` (the ledger panel listens; a
replaced project emits both too).

What is recorded: releases of private data (privatised MDP rows, obfuscated maps and
route probabilities, advising Q-values; raw releases too, as unbounded entries) and the
seeded experiments that privatise data
(so a reader sees every use); the Privacy Calculator's what-ifs never.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QMessageBox, QWidget

from core.mdp import mdp_dataset, record_privatization, sweep_entries
from core.privacy import LedgerEntry, PrivacyLedger, budgets_from_dict, budgets_to_dict
from gui.shell.commands import DocumentCommand
from gui.shell.document import mdp_stack_key

if TYPE_CHECKING:
    from core.mdp import MdpPrivacy, SweepResult
    from gui.shell.document import ProjectDocument

__all__ = ["project_ledger", "AddLedgerEntriesCommand",
           "SetBudgetCommand", "record_entries", "record_sweep", "record_mdp_release",
           "set_budget", "privacy_budget_check", "confirm_release",
           "ask_exceed_budget", "mdp_release_check", "spent_text", "approve_entries",
           "OVER_BUDGET_TEXT"]

def project_ledger(document_or_project: Any) -> PrivacyLedger:
    """The ledger (entries and budgets) of a document or project."""
    project = getattr(document_or_project, "project", document_or_project)
    return PrivacyLedger.from_project(project)


# --------------------------------------------------------------------------- commands
class AddLedgerEntriesCommand(DocumentCommand):
    """Append entries to the project's ledger (ids are made fresh when the command is built)."""

    def __init__(self, document: "ProjectDocument", entries: Iterable[LedgerEntry | dict],
                 text: str = "", parent: QUndoCommand | None = None) -> None:
        led = project_ledger(document)
        items = [e if isinstance(e, LedgerEntry) else LedgerEntry.from_dict(e)
                 for e in entries]
        self._entries = led.extend(items)
        n = len(self._entries)
        super().__init__(text or f"Record {n} privacy ledger entr{'y' if n == 1 else 'ies'}",
                         parent)
        self._document = document

    @property
    def entries(self) -> list[LedgerEntry]:
        return list(self._entries)

    def redo(self) -> None:
        self._document.project.ledger.extend(self._entries)
        self._document.ledger_changed.emit()

    def undo(self) -> None:
        ids = {e.id for e in self._entries}
        ledger = self._document.project.ledger
        ledger[:] = [e for e in ledger if e.id not in ids]
        self._document.ledger_changed.emit()


class SetBudgetCommand(DocumentCommand):
    """Set (or with ``budget=None`` clear) the privacy budget of one dataset."""

    section = "budgets"

    def __init__(self, document: "ProjectDocument", dataset: str,
                 budget: tuple[float, float] | None, parent: QUndoCommand | None = None
                 ) -> None:
        current = budgets_from_dict(document.project.budgets)
        self._old = current.get(dataset)
        if budget is not None:
            probe = PrivacyLedger()
            probe.set_budget(dataset, *budget)  # validates (InputError names the problem)
            budget = probe.budgets[dataset]
        self._new = budget
        text = (f"Clear the budget of {dataset}" if budget is None else
                f"Set the budget of {dataset} to (ε {budget[0]:g}, δ {budget[1]:g})")
        super().__init__(text, parent)
        self._document = document
        self._dataset = dataset

    def _apply(self, budget: tuple[float, float] | None) -> None:
        current = budgets_from_dict(self._document.project.budgets)
        if budget is None:
            current.pop(self._dataset, None)
        else:
            current[self._dataset] = budget
        self._document.project.budgets = budgets_to_dict(current)
        self._document.budgets_changed.emit()

    def redo(self) -> None:
        self._apply(self._new)

    def undo(self) -> None:
        self._apply(self._old)


# --------------------------------------------------------------------------- recording API
def record_entries(document: "ProjectDocument", entries: Iterable[LedgerEntry | dict], *,
                   text: str = "", parent: QUndoCommand | None = None,
                   key: str = "project") -> list[LedgerEntry]:
    """Record ``entries`` in the project's ledger as one undoable step; returns them.

    With ``parent`` the command becomes part of that (macro) command and is not pushed.
    """
    cmd = AddLedgerEntriesCommand(document, entries, text, parent)
    if parent is None and cmd.entries:
        document.push(cmd, key)
    return cmd.entries


def record_sweep(document: "ProjectDocument", mdp_id: str, result: "SweepResult", *,
                 source: str, parent: QUndoCommand | None = None) -> list[LedgerEntry]:
    """Record the privatisations of a sweep (see :func:`sweep_entries`); returns the entries.

    Call it right after the run record is added (``source`` = the run id), e.g. both in
    one ``undo_stack.beginMacro`` / ``endMacro`` or with ``parent``.
    """
    return record_entries(document, sweep_entries(mdp_id, result, source=source),
                          text=f"Record the privatisations of {source} in the ledger",
                          parent=parent, key=mdp_stack_key(mdp_id))


def record_mdp_release(document: "ProjectDocument", mdp_id: str, privacy: "MdpPrivacy", *,
                       k: float, seed: int | None, source: str, mode: str = "release",
                       zeros: str = "support", parent: QUndoCommand | None = None
                       ) -> LedgerEntry | None:
    """Record one privatised MDP (a release unless ``mode="experiment"``).

    A privatisation without a finite guarantee is recorded all the same, as an unbounded
    entry with the reason (:func:`core.mdp.accounting.record_privatization`). None only if
    nothing was recorded.
    """
    probe = PrivacyLedger()
    e = record_privatization(probe, mdp_id=mdp_id, privacy=privacy, k=k, mode=mode, seed=seed,
                             source=source, zeros=zeros)
    if e is None:
        return None
    return record_entries(document, [e], text=f"Record the release {source} of {mdp_id}",
                          parent=parent, key=mdp_stack_key(mdp_id))[0]


def set_budget(document: "ProjectDocument", dataset: str,
               budget: tuple[float, float] | None) -> None:
    """Set (or clear, with None) a dataset's budget as one undoable step."""
    document.push(SetBudgetCommand(document, dataset, budget), "ledger")


# --------------------------------------------------------------------------- budget check
def privacy_budget_check(ledger: Any, dataset: str, epsilon: float, delta: float = 0.0) -> str:
    """Empty if a release of (ε, δ) on ``dataset`` fits its budget, else a one-line reason.

    ``ledger`` is a :class:`PrivacyLedger`, a project or a document. Releases count by
    basic composition; seeded experiments are not spent (:mod:`core.privacy.ledger`).
    """
    led = ledger if isinstance(ledger, PrivacyLedger) else project_ledger(ledger)
    return led.would_exceed(dataset, float(epsilon), float(delta))


def ask_exceed_budget(parent: QWidget | None, reason: str) -> bool:
    """Ask whether to go on with a release past the budget (tests replace this function)."""
    answer = QMessageBox.warning(
        parent, "Privacy budget exceeded",
        f"This release would exceed the privacy budget.\n\n{reason}.\n\nContinue anyway? "
        "The release will be recorded in the ledger and the budget shown as exceeded.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def confirm_release(parent: QWidget | None, document: "ProjectDocument", dataset: str,
                    epsilon: float, delta: float = 0.0) -> bool:
    """True if the release may run: it fits the budget, or the user chose to continue."""
    reason = privacy_budget_check(document, dataset, epsilon, delta)
    return not reason or ask_exceed_budget(parent, reason)


#: What a workspace says when the user declined a release past the budget.
OVER_BUDGET_TEXT = "not released: over the privacy budget — nothing was recorded or shown"


def approve_entries(parent: QWidget | None, document: "ProjectDocument",
                    entries: Iterable[LedgerEntry]) -> bool:
    """True if ``entries`` may be recorded: their releases fit every budget (basic
    composition; seeded experiments are not spent), or the user chose to continue — as the
    command line's ``--record`` refuses without ``--over-budget``."""
    problems = project_ledger(document).release_problems(list(entries))
    return not problems or ask_exceed_budget(parent, "; ".join(problems))


def spent_text(document: "ProjectDocument", dataset: str) -> str:
    """"ε spent 59.3 of 100" for a status bar ("" when the dataset has no budget).

    A release without a finite ε makes it "ε spent unbounded of 100 — over budget".
    """
    try:
        led = project_ledger(document)
    except ValueError:
        return ""
    if dataset not in led.budgets:
        return ""
    spent, _ = led.spent(dataset)
    budget, _ = led.budgets[dataset]
    over = " — over budget" if led.would_exceed(dataset, 0.0, 0.0) else ""
    shown = "unbounded" if math.isinf(spent) else f"{spent:.3g}"
    return f"ε spent {shown} of {budget:.3g}{over}"


def mdp_release_check(document: "ProjectDocument", mdp_id: str, privacy: "MdpPrivacy") -> str:
    """:func:`privacy_budget_check` for privatising MDP ``mdp_id`` with ``privacy``."""
    return privacy_budget_check(document, mdp_dataset(mdp_id), privacy.epsilon, privacy.delta)

