"""After Cancel, no tab leaves a stale status: from Cancel until the task stops the tab and
the window's status line say "cancelling", no late progress message overwrites that, and
once it has stopped neither shows the run's progress any more."""

from __future__ import annotations

import threading
import time

import pytest

from gui.shell.run_controls import CANCELLING_TEXT, RunControls
from gui.shell.tools import TOOLS, load_tools
from gui.shell.workers import TaskRunner

load_tools()


def _slow(release: threading.Event, progress):
    """A task that reports progress three times, then works for up to 1 s without a
    cancellation point (a long chunk), then reports again (where a cancel stops it)."""
    for i in range(3):
        progress(i / 100, f"step {i}")
    release.wait(1.0)
    progress(0.5, "step 50")
    return "done"


def test_run_controls_say_cancelling_until_the_task_stops_and_then_cancelled(qtbot):
    from PySide6.QtWidgets import QWidget

    box = QWidget()
    qtbot.addWidget(box)
    runner = TaskRunner(box)
    rc = RunControls(runner, box, run=lambda: None, cancel=runner.cancel)
    release = threading.Event()
    runner.start(_slow, release)
    qtbot.waitUntil(lambda: rc.status.startswith("step"), timeout=5000)
    with qtbot.waitSignal(runner.cancelling, timeout=1000):
        runner.cancel()
    assert rc.status == CANCELLING_TEXT and not rc.cancel_button.isEnabled()
    qtbot.wait(100)  # progress queued before the cancel does not overwrite it
    assert rc.status == CANCELLING_TEXT
    qtbot.waitUntil(lambda: not runner.is_running, timeout=5000)
    assert rc.status == "cancelled"
    assert rc.progress.format() == "%p%" and not rc.progress.isVisible()
    runner.shutdown()


@pytest.mark.parametrize("key", [k for k in TOOLS if k not in ("ledger", "calculator")])
def test_a_cancelled_tool_leaves_no_progress_in_the_status_line(qtbot, window, key):
    ws = window.open_tool(key)
    bar = window.statusBar()
    if not hasattr(ws, "runner"):
        pytest.skip(f"{key} has no background runner")
    release = threading.Event()
    with qtbot.waitSignal(ws.runner.progress_changed, timeout=30_000):
        ws.runner.start(_slow, release)  # the tab's own runner, with a task that waits
    controls = [c for c in ws.findChildren(RunControls) if c.runner is ws.runner]
    window.cancel_current()  # Esc
    if "step" in bar.currentMessage() or "cancelling" in bar.currentMessage().lower():
        assert "cancelling" in bar.currentMessage().lower()  # the tab's progress was there
    assert all(c.status.lower().startswith("cancelling") for c in controls), [
        c.status for c in controls]
    deadline = time.monotonic() + 30  # a busy machine; the check is the text, not the time
    while ws.runner.is_running and time.monotonic() < deadline:
        qtbot.wait(20)
    assert not ws.runner.is_running
    qtbot.wait(50)
    message = bar.currentMessage()
    assert "step" not in message and "%" not in message, (key, message)
    assert message == "" or "cancelled" in message, (key, message)
    assert all("step" not in c.status for c in controls), [c.status for c in controls]
