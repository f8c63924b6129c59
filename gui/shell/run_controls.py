"""Run, Cancel, a progress bar and a status line for one workspace, bound to its TaskRunner.

Every workspace that runs work used to copy the same six slots (runner started, progress,
succeeded, failed, cancelled, finished) and the same button/bar bookkeeping. A
:class:`RunControls` owns them once:

* the **Run** and **Cancel** buttons (their texts and tooltips are the workspace's) call the
  workspace's ``run`` and ``cancel``; while a task runs, Run is disabled, Cancel enabled and
  the bar visible;
* the **status line** shows the running text, then each progress message, then ``failed``
  or the cancel text; a run that ends otherwise clears it, unless the workspace wrote its
  own result text (``clear_on_finish=False``);
* :attr:`running_changed` tells the workspace to enable or disable its other inputs.

What a result *means* stays with the workspace: it connects to the runner's
``succeeded``/``failed``/``cancelled`` signals itself (they fire before ``finished``).

Examples
--------
>>> from PySide6.QtWidgets import QApplication, QWidget
>>> app = QApplication.instance() or QApplication([])
>>> from gui.shell.workers import TaskRunner
>>> box = QWidget(); runner = TaskRunner(box)
>>> rc = RunControls(runner, box, run=lambda: None, cancel=runner.cancel)
>>> rc.run_button.isEnabled(), rc.cancel_button.isEnabled()
(True, False)
>>> runner.shutdown()
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from core.common import time_left_text
from gui.shell.workers import TaskRunner

__all__ = ["RunControls", "PROGRESS_STEPS", "CANCELLING_TEXT"]

PROGRESS_STEPS = 1000  # the bar's range: 0.1 % resolution
CANCELLING_TEXT = "Cancelling…"  # from Cancel until the task has stopped


class RunControls(QObject):
    """The Run/Cancel buttons, progress bar and status label of one workspace.

    Parameters
    ----------
    runner : TaskRunner
        The workspace's runner; the controls follow its signals.
    parent : QWidget
        Parent of the widgets.
    run, cancel : callable
        What the buttons call (the workspace's ``run`` and ``cancel``).
    run_text, run_tip, cancel_text, cancel_tip : str
        Button texts and tooltips.
    running_text : str or callable
        The status shown when a task starts (a callable is asked each time, for workspaces
        whose runs differ).
    cancelled_text, failed_text : str
        The status after a cancelled or failed task.
    clear_on_finish : bool
        Clear the status when a task ends other than by failing or being cancelled.
    progress_width : int or None
        Maximum width of the bar in pixels (None: as wide as its layout makes it).
    progress_text : callable, optional
        ``progress_text(fraction, message)`` is the status during a run (default: the
        message alone).
    show_bar : bool
        Show the bar while a task runs (False where the window's status bar shows it).
    """

    running_changed = Signal(bool)

    def __init__(self, runner: TaskRunner, parent: QWidget, *, run: Callable[[], object],
                 cancel: Callable[[], object], run_text: str = "▶ Run (F5)",
                 run_tip: str = "Run in the background (F5)",
                 cancel_text: str = "■ Cancel (Esc)", cancel_tip: str = "Stop the run (Esc)",
                 running_text: str | Callable[[], str] = "running…",
                 cancelled_text: str = "cancelled", failed_text: str = "failed",
                 clear_on_finish: bool = True, progress_width: int | None = 160,
                 progress_text: Callable[[float, str], str] | None = None,
                 show_bar: bool = True) -> None:
        super().__init__(parent)
        self._runner = runner
        self._running_text = running_text
        self._cancelled_text = cancelled_text
        self._failed_text = failed_text
        self._clear_on_finish = clear_on_finish
        self._progress_text = progress_text
        self._started_at = time.monotonic()
        self._show_bar = show_bar
        self.run_button = QPushButton(run_text, parent)
        self.run_button.setToolTip(run_tip)
        self.run_button.clicked.connect(lambda *_: run())
        self.cancel_button = QPushButton(cancel_text, parent)
        self.cancel_button.setToolTip(cancel_tip)
        self.cancel_button.clicked.connect(lambda *_: cancel())
        self.progress = QProgressBar(parent)
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setFormat("%p%")
        if progress_width is not None:
            self.progress.setMaximumWidth(progress_width)
        self.progress_label = QLabel(parent)
        self.progress_label.setStyleSheet("color: #555;")
        # a long status ("done — recorded as run-12 …") wraps instead of widening the page
        # past a 1366×768 window
        self.progress_label.setWordWrap(True)
        runner.started.connect(self._on_runner_started)
        runner.progress_changed.connect(self._on_runner_progress_changed)
        runner.failed.connect(self._on_runner_failed)
        runner.cancelled.connect(self._on_runner_cancelled)
        runner.cancelling.connect(self._on_runner_cancelling)
        runner.finished.connect(self._on_runner_finished)
        self._set_running(False)

    # ------------------------------------------------------------------ public API
    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def status(self) -> str:
        """The text of the status line."""
        return self.progress_label.text()

    def set_status(self, text: str) -> None:
        """Write the status line (e.g. a result summary after a run)."""
        self.progress_label.setText(text)

    def layout_row(self, *, stretch_label: bool = True) -> QHBoxLayout:
        """A new row with the buttons, the bar and the status line, in that order."""
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress)
        row.addWidget(self.progress_label, 1 if stretch_label else 0)
        return row

    # ------------------------------------------------------------------ slots
    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running and self._show_bar)
        self.running_changed.emit(running)

    def _on_runner_started(self) -> None:
        self._started_at = time.monotonic()
        self.progress.setValue(0)
        text = self._running_text
        self.progress_label.setText(text() if callable(text) else text)
        self._set_running(True)

    def _on_runner_progress_changed(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(PROGRESS_STEPS * fraction)))
        text = (self._progress_text(fraction, message) if self._progress_text is not None
                else message)
        left = time_left_text(time.monotonic() - self._started_at, fraction)
        self.progress_label.setText(f"{text} · {left}" if left else text)

    def _on_runner_failed(self, exc: object) -> None:
        self.progress_label.setText(self._failed_text)

    def _on_runner_cancelling(self) -> None:
        self.progress_label.setText(CANCELLING_TEXT)
        self.progress.setFormat(f"{CANCELLING_TEXT} %p%")
        self.cancel_button.setEnabled(False)

    def _on_runner_cancelled(self) -> None:
        self.progress_label.setText(self._cancelled_text)

    def _on_runner_finished(self) -> None:
        self.progress.setFormat("%p%")
        self._set_running(False)
        if self._clear_on_finish and self.progress_label.text() not in (
                self._cancelled_text, self._failed_text):
            self.progress_label.setText("")
