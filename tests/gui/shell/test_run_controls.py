"""RunControls: the one Run/Cancel/progress/status seam every workspace uses."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QWidget

from gui.shell.run_controls import PROGRESS_STEPS, RunControls
from gui.shell.workers import TaskRunner


@pytest.fixture
def box(qtbot):
    w = QWidget()
    qtbot.addWidget(w)
    runner = TaskRunner(w)
    yield w, runner
    runner.shutdown()


def gated(gate: threading.Event, *, progress):
    progress(0.25, "a quarter")
    gate.wait(5)
    progress(0.5, "half")
    return "ok"


def boom(*, progress):
    raise RuntimeError("broken")


def test_buttons_bar_and_status_follow_the_runner(qtbot, box):
    w, runner = box
    states = []
    rc = RunControls(runner, w, run=lambda: None, cancel=runner.cancel, running_text="going…")
    rc.running_changed.connect(states.append)
    w.show()
    assert rc.run_button.isEnabled() and not rc.cancel_button.isEnabled()
    assert not rc.progress.isVisible()
    gate = threading.Event()
    with qtbot.waitSignal(runner.progress_changed, timeout=5000):
        runner.start(gated, gate)
    assert not rc.run_button.isEnabled() and rc.cancel_button.isEnabled()
    assert rc.progress.isVisible()
    qtbot.waitUntil(lambda: rc.status == "a quarter", timeout=5000)
    assert rc.progress.value() == PROGRESS_STEPS // 4
    with qtbot.waitSignal(runner.finished, timeout=5000):
        gate.set()
    assert rc.run_button.isEnabled() and not rc.cancel_button.isEnabled()
    assert not rc.progress.isVisible()
    assert rc.status == ""  # clear_on_finish
    assert states == [True, False]


def test_cancel_and_failure_texts_stay(qtbot, box):
    w, runner = box
    rc = RunControls(runner, w, run=lambda: None, cancel=runner.cancel,
                     cancelled_text="stopped — nothing recorded", failed_text="broke")
    gate = threading.Event()
    with qtbot.waitSignal(runner.progress_changed, timeout=5000):
        runner.start(gated, gate)
    with qtbot.waitSignal(runner.finished, timeout=5000):
        rc.cancel_button.click()
        gate.set()
    assert rc.status == "stopped — nothing recorded"
    with qtbot.waitSignal(runner.finished, timeout=5000):
        runner.start(boom)
    assert rc.status == "broke"


def test_result_text_kept_and_custom_progress_text(qtbot, box):
    w, runner = box
    rc = RunControls(runner, w, run=lambda: None, cancel=runner.cancel, clear_on_finish=False,
                     show_bar=False, progress_text=lambda f, m: f"{f:.0%} {m}")
    runner.succeeded.connect(lambda r: rc.set_status(f"done: {r}"))
    w.show()
    gate = threading.Event()
    with qtbot.waitSignal(runner.progress_changed, timeout=5000):
        runner.start(gated, gate)
    qtbot.waitUntil(lambda: rc.status == "25% a quarter", timeout=5000)
    assert not rc.progress.isVisible()  # the window's status bar shows it instead
    with qtbot.waitSignal(runner.finished, timeout=5000):
        gate.set()
    assert rc.status == "done: ok"


def test_the_buttons_call_the_workspace(qtbot, box):
    w, runner = box
    calls = []
    rc = RunControls(runner, w, run=lambda: calls.append("run"),
                     cancel=lambda: calls.append("cancel"))
    rc.run_button.click()
    assert calls == ["run"]
    rc.cancel_button.setEnabled(True)
    rc.cancel_button.click()
    assert calls == ["run", "cancel"]


def test_status_says_how_long_is_left(box, monkeypatch):
    """Issue: a long sweep sat at 0 % for seconds with no idea of the time left."""
    from gui.shell import run_controls

    w, runner = box
    rc = RunControls(runner, w, run=lambda: None, cancel=runner.cancel)
    clock = iter([100.0, 101.0, 104.0])
    monkeypatch.setattr(run_controls.time, "monotonic", lambda: next(clock))
    runner.started.emit()
    runner.progress_changed.emit(0.001, "k = 10: 1 of 1000 runs")  # too early to say
    assert rc.status == "k = 10: 1 of 1000 runs"
    runner.progress_changed.emit(0.25, "k = 100: 250 of 1000 runs")  # 4 s for a quarter
    assert rc.status == "k = 100: 250 of 1000 runs · about 12 s left"
