"""The run plumbing every tool tab that runs core work shares: :class:`ToolPanel`.

A workspace that runs something (the audit, the model privacy lab, the private agents, policy
sharing, …) subclasses :class:`ToolPanel` and keeps only what is its own: its form, the core
function it starts in :attr:`runner`, and how it shows a result. The base gives it

* the :class:`~gui.shell.workspace.Workspace` protocol's signals and plumbing
  (``message_logged``, ``running_changed``, ``is_running``, ``cancel``, ``shutdown``) and
  ``run_recorded`` / ``shown_run`` / ``run_problem`` / ``summary``;
* the runner's slots: progress into the status bar, a failure shown with its reason,
  a cancellation logged;
* :meth:`refuse` — a run that did not start says why in the tab and the log;
* :meth:`record` — a finished run's record and ledger entries checked against the budgets
  (:func:`gui.shell.ledger.approve_entries`: declined past a budget → nothing recorded or
  shown), recorded by one :class:`~gui.shell.commands.AddRunCommand` (outside the undo
  history: Ctrl+Z never un-spends a release), shown and announced.

A subclass sets the class attributes :attr:`status_name`, :attr:`log_name` and
:attr:`undo_key`, builds ``run_message`` (the label under the form that says why a run did
not start), calls :meth:`connect_runner` after building its widgets, and implements
:meth:`show_record` and ``_on_runner_succeeded``.

A tab with nothing for F5 to start (the ledger views and edits budgets; the calculator
recomputes as you type) sets :attr:`can_run` to False and keeps the rest: the document, the
Log dock's signal, the status bar, its worker for background work. The base then answers the
Workspace protocol for it: :meth:`run` starts nothing, :meth:`randomness_label` is empty and
:attr:`is_running` stays False and :meth:`cancel` stops nothing (its worker's background
work is not a run: the window's Run and Cancel do not follow it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from core.common import InputError
from gui.shell.commands import AddRunCommand
from gui.shell.ledger import OVER_BUDGET_TEXT, approve_entries
from gui.shell.workers import TaskRunner

if TYPE_CHECKING:
    from core.privacy import LedgerEntry
    from core.project import RunRecord
    from gui.shell.document import ProjectDocument
    from gui.shell.run_controls import RunControls

__all__ = ["ToolPanel"]


class ToolPanel(QWidget):
    """Base of a tool tab that runs core work in a worker (see the module docstring)."""

    message_logged = Signal(str, str)  # level, text (the Log dock listens)
    running_changed = Signal(bool)  # Workspace protocol
    run_recorded = Signal(str)  # id of the RunRecord just added
    can_run = True  # Workspace protocol: F5 runs this tab

    #: the tab's name in the status bar while it runs ("Audit: 40 % — …")
    status_name: str = ""
    #: the tab's name in log lines ("audit not run: …")
    log_name: str = ""
    #: the undo stack its records are pushed on (``document.push(command, undo_key)``)
    undo_key: str = ""
    #: what :meth:`refuse` puts before the reason in ``run_message``
    refusal_prefix: str = "Not run — "
    #: the ``RunRecord.kind`` values this tab shows (``_on_run_added`` shows a new one)
    run_kinds: tuple[str, ...] = ()

    #: built by the subclass: says why a run did not start
    run_message: QLabel
    #: shown in the right-hand dock while the tab is current (None: the dock's placeholder)
    info_panel: QWidget | None = None

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._status_bar = status_bar
        self._runner = TaskRunner(self)
        self._shown_run: str | None = None
        self._problem = ""
        self._summary: dict[str, Any] | None = None
        self._runner_was_cancelled = False  # the run that just ended was cancelled

    def connect_runner(self) -> None:
        """Connect the runner's signals to the slots (after the widgets exist)."""
        self._runner.progress_changed.connect(self._on_runner_progress_changed)
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.cancelled.connect(self._on_runner_cancelled)
        self._runner.cancelling.connect(self._on_runner_cancelling)
        self._runner.started.connect(lambda: setattr(self, "_runner_was_cancelled", False))
        self._runner.cancelled.connect(lambda: setattr(self, "_runner_was_cancelled", True))
        self._runner.finished.connect(self._on_runner_finished_status)

    # ------------------------------------------------------------------ protocol
    @property
    def document(self) -> ProjectDocument:
        return self._document

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def is_running(self) -> bool:
        # a tab with nothing to run never reports running (its worker recomputes as you type)
        return self.can_run and self._runner.is_running

    def run(self) -> bool:
        """F5: a tab that runs something overrides this; one that does not starts nothing."""
        if self.can_run:
            raise NotImplementedError
        return False

    def randomness_label(self) -> str:
        """The randomness the next run uses ("" here: a tab that runs something says it)."""
        return ""

    @property
    def summary(self) -> dict[str, Any] | None:
        """The summary shown (``None`` in the empty state)."""
        return self._summary

    @property
    def shown_run(self) -> str | None:
        """Id of the run record shown (None for a result that is not recorded)."""
        return self._shown_run

    @property
    def run_problem(self) -> str:
        """Why the last Run failed or was refused ("" if it did not)."""
        return self._problem

    def cancel(self) -> None:
        if self.can_run:  # a tab that runs nothing: its background work is not Esc's to stop
            self._runner.cancel()

    def shutdown(self) -> None:
        self._runner.shutdown()

    # ------------------------------------------------------------------ plumbing
    def refuse(self, text: str) -> bool:
        """Say in the tab and the log why a run did not start; returns False."""
        self._problem = text
        self.run_message.setText(f"{self.refusal_prefix}{text}")
        self.run_message.show()
        self.message_logged.emit("WARNING", f"{self.log_name} not run: {text}")
        return False

    def clear_problem(self) -> None:
        """Before a new run: no reason shown."""
        self._problem = ""
        self.run_message.hide()

    def record(self, record: RunRecord, entries: list[LedgerEntry],
               controls: RunControls) -> bool:
        """Record a finished run with its ledger entries (not undoable), show and announce it.

        Past a budget the user is asked first; declined, nothing is recorded or shown and
        ``controls`` says so. Returns True if the run was recorded.
        """
        if not approve_entries(self, self._document, entries):
            controls.set_status(OVER_BUDGET_TEXT)
            return False
        self._document.push(AddRunCommand(self._document, record, ledger_entries=entries),
                            self.undo_key)
        self._shown_run = record.id
        self.show_record(record.kind, record.summary, record.id)
        controls.set_status(f"done — recorded as {record.id}")
        self.run_recorded.emit(record.id)
        return True

    def show_record(self, kind: str, summary: dict[str, Any], run_id: str | None) -> None:
        """Show a run's summary (a subclass draws it)."""
        raise NotImplementedError

    def show_run(self, run_id: str) -> None:
        """Show a recorded run of this tab (double-click in the project tree)."""
        raise NotImplementedError

    def _on_run_added(self, run_id: str) -> None:
        """A run of this tab's kinds added elsewhere (a redo, a merge) is shown."""
        try:
            rec = self._document.run(run_id)
        except KeyError:
            return
        if rec.kind in self.run_kinds and run_id != self._shown_run:
            self.show_run(run_id)

    # ------------------------------------------------------------------ runner slots
    def _on_runner_progress_changed(self, fraction: float, message: str) -> None:
        if self._status_bar is not None and self.isVisible():
            self._status_bar.showMessage(
                f"{self.status_name}: {100 * fraction:.0f} % — {message}")

    def _on_runner_cancelling(self) -> None:
        if self._status_bar is not None and self.isVisible():
            self._status_bar.showMessage(f"{self.status_name}: cancelling…")

    def _on_runner_finished_status(self) -> None:
        """The window's status line no longer shows this tab's progress once the run ends
        (it said "Audit: 40 % — …" long after a cancel); a cancel says so for a while."""
        bar = self._status_bar
        if bar is None or not bar.currentMessage().startswith(f"{self.status_name}: "):
            return
        if self._runner_was_cancelled:
            bar.showMessage(f"{self.status_name}: cancelled — nothing was recorded", 5000)
        else:
            bar.clearMessage()

    def _on_runner_succeeded(self, result: object) -> None:
        raise NotImplementedError

    def _on_runner_failed(self, exc: object) -> None:
        if isinstance(exc, InputError):
            self.refuse(f"{exc.field or exc.file or 'input'}: {exc.problem}")
        else:
            self.refuse(f"the run failed: {type(exc).__name__}: {exc}")
            self.message_logged.emit("ERROR", f"{self.log_name} failed: {exc}")

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", f"{self.log_name}: cancelled — nothing was recorded")
