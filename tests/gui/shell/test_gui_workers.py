"""TaskRunner: results on the UI thread, progress throttling, cancel, stale results."""

from __future__ import annotations

import threading
import time

import pytest

from core.common.progress import Cancelled
from gui.shell.workers import TaskRunner


@pytest.fixture
def runner(qapp):
    r = TaskRunner()
    yield r
    r.shutdown()
    r.deleteLater()


def double(x, *, progress):
    progress(0.5, "half")
    return 2 * x


def slow(tag, *, progress, steps=400, delay=0.005):
    for i in range(steps):
        progress(i / steps, f"step {i}")
        time.sleep(delay)
    return tag


def test_succeeded_on_the_ui_thread(qtbot, runner):
    seen_threads, order = [], []
    runner.succeeded.connect(lambda r: seen_threads.append(threading.current_thread()))
    runner.started.connect(lambda: order.append("started"))
    runner.succeeded.connect(lambda r: order.append(r))
    runner.finished.connect(lambda: order.append("finished"))
    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.start(double, 21)
    assert order == ["started", 42, "finished"]
    assert seen_threads == [threading.main_thread()]
    assert not runner.is_running


def test_progress_is_throttled(qtbot, runner):
    fractions = []
    runner.progress_changed.connect(lambda f, m: fractions.append(f))

    def many(*, progress):
        for i in range(5001):
            progress(i / 5000, "")
        return "done"

    with qtbot.waitSignal(runner.succeeded, timeout=5000):
        runner.start(many)
    qtbot.wait(20)
    assert 50 <= len(fractions) <= 102
    assert fractions[-1] == 1.0


def test_failed_carries_the_exception(qtbot, runner):
    def boom(*, progress):
        raise ValueError("bad input")

    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.start(boom)
    assert isinstance(blocker.args[0], ValueError)
    assert str(blocker.args[0]) == "bad input"


def test_cancel_stops_a_slow_task(qtbot, runner):
    succeeded = []
    runner.succeeded.connect(succeeded.append)
    def very_slow(tag, *, progress):  # 40 s if it ran to the end
        return slow(tag, progress=progress, steps=8000)

    with qtbot.waitSignal(runner.progress_changed, timeout=5000):
        runner.start(very_slow, "slow")
    assert runner.is_running
    t0 = time.perf_counter()
    with qtbot.waitSignal(runner.cancelled, timeout=20000):
        runner.cancel()
    # cooperative: stops at the next progress call, long before the 40 s the task would take
    assert time.perf_counter() - t0 < 10.0
    assert succeeded == []
    assert not runner.is_running


def test_task_raising_cancelled_itself_counts_as_cancelled(qtbot, runner):
    def gives_up(*, progress):
        raise Cancelled()

    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        runner.start(gives_up)


def test_start_twice_only_the_second_result_arrives(qtbot, runner):
    results, cancels = [], []
    runner.succeeded.connect(results.append)
    runner.cancelled.connect(lambda: cancels.append(1))
    runner.start(slow, "first")
    runner.start(slow, "second", steps=3, delay=0.0)
    with qtbot.waitSignal(runner.succeeded, timeout=5000):
        pass
    qtbot.wait(50)  # let any stale signal arrive (it must be dropped)
    assert results == ["second"]
    assert cancels == []


def test_stale_progress_is_dropped(qtbot, runner):
    messages = []
    runner.progress_changed.connect(lambda f, m: messages.append(m))
    runner.start(slow, "first", steps=50, delay=0.002)
    runner.start(lambda *, progress: progress(1.0, "second task") or "ok")
    with qtbot.waitSignal(runner.succeeded, timeout=5000):
        pass
    qtbot.wait(50)
    assert "second task" in messages
    assert all(not m.startswith("step") for m in messages[messages.index("second task"):])


def test_shutdown_refuses_new_work(qapp):
    r = TaskRunner()
    r.shutdown()
    with pytest.raises(RuntimeError):
        r.start(double, 1)


def test_a_task_without_cancel_points_delivers_no_result_once_cancelled(qtbot, runner):
    """A reader that never calls progress finishes anyway; its result must not be applied."""
    gate = threading.Event()
    succeeded = []
    runner.succeeded.connect(succeeded.append)

    def deaf(*, progress):
        gate.wait(5)
        return "read"

    runner.start(deaf)
    runner.cancel()
    gate.set()
    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        pass
    assert succeeded == [] and not runner.is_running
