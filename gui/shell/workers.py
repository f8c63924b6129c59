"""Run core computations off the UI thread: one :class:`TaskRunner` per panel.

The pattern follows Orange's concurrent widget helper and ``TaskState`` (docs/conventions.md §4):

* ``start(fn, *args, **kwargs)`` cancels the previous task and submits
  ``fn(*args, progress=callback, **kwargs)`` to a single-thread executor;
* the progress callback is throttled (about 1 % steps) and raises
  :class:`core.common.progress.Cancelled` once :meth:`cancel` was called, so core code stops
  cooperatively;
* results come back through queued signals, so every slot runs on the UI thread;
* the result of a superseded task is dropped (stale-result suppression), and so is the
  result of a task cancelled before it finished (one without cancel points, e.g. a file
  reader): it ends with ``cancelled``.

Workers get snapshots (frozen core objects), never the document or a widget.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal

from core.common import Cancelled

__all__ = ["TaskRunner"]

PROGRESS_STEP = 0.01


class TaskRunner(QObject):
    """Run one task at a time in a worker thread, with progress, cancel and queued results."""

    started = Signal()
    progress_changed = Signal(float, str)
    succeeded = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    cancelling = Signal()  # cancel asked of a running task; cancelled follows when it stops
    finished = Signal()  # after any of succeeded / failed / cancelled

    # emitted from the pool thread; delivered on the runner's (UI) thread
    _progress = Signal(int, float, str)
    _done = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="privplan-task")
        self._id = 0
        self._event: threading.Event | None = None
        self._future: Future[Any] | None = None
        self._closed = False
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)

    # ------------------------------------------------------------------ public API
    @property
    def is_running(self) -> bool:
        """True from :meth:`start` until the task's final signal was emitted."""
        return self._future is not None

    @property
    def is_cancelling(self) -> bool:
        """True from :meth:`cancel` until the cancelled task has stopped."""
        return self._event is not None and self._event.is_set()

    def start(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        """Cancel the current task (if any) and run ``fn(*args, progress=..., **kwargs)``."""
        if self._closed:
            raise RuntimeError("this TaskRunner was shut down")
        self.cancel()
        self._id += 1
        task_id, event, last = self._id, threading.Event(), [-1.0]

        def progress(fraction: float, message: str = "") -> None:
            if event.is_set():
                raise Cancelled()
            if fraction - last[0] >= PROGRESS_STEP or fraction >= 1.0:
                last[0] = fraction
                self._progress.emit(task_id, float(fraction), str(message))

        self._event = event
        self._future = self._pool.submit(fn, *args, progress=progress, **kwargs)
        self._future.add_done_callback(lambda f: self._done.emit(task_id, f))
        self.started.emit()

    def cancel(self) -> None:
        """Ask the running task to stop at its next progress call (and drop a queued one);
        ``cancelling`` says so at once, ``cancelled`` once it has stopped."""
        if self._event is not None and not self._event.is_set():
            self._event.set()
            if self._future is not None and not self._future.done():
                self.cancelling.emit()
        if self._future is not None:
            self._future.cancel()

    def shutdown(self) -> None:
        """Cancel and wait for the worker thread (call from ``closeEvent``)."""
        self.cancel()
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------------ slots
    def _on_progress(self, task_id: int, fraction: float, message: str) -> None:
        if task_id == self._id and not self.is_cancelling:  # no progress shown once cancelling
            self.progress_changed.emit(fraction, message)

    def _on_done(self, task_id: int, future: Future[Any]) -> None:
        if task_id != self._id:
            return  # stale result of a superseded task
        cancel_requested = self._event is not None and self._event.is_set()
        self._event = self._future = None
        if future.cancelled() or cancel_requested:  # a cancelled task's result is dropped
            self.cancelled.emit()
        else:
            exc = future.exception()
            if isinstance(exc, Cancelled):
                self.cancelled.emit()
            elif exc is not None:
                self.failed.emit(exc)
            else:
                self.succeeded.emit(future.result())
        self.finished.emit()
