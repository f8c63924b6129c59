"""Edit ▸ Settings…: the Computing page (dask scheduler) and the autosave interval."""

from __future__ import annotations

import functools

import pytest
from PySide6.QtCore import QTimer

from core.common.cluster import run_on_scheduler
from gui.shell.settings import Settings, on_backend
from gui.shell.settings_dialog import SettingsDialog


@pytest.fixture
def dialog(qtbot):
    d = SettingsDialog(Settings())
    qtbot.addWidget(d)
    d.show()
    yield d
    d.reject()


def test_a_malformed_address_is_refused_and_nothing_is_saved(dialog, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    if not dialog.available:
        pytest.skip("dask.distributed is not installed")
    dialog.scheduler_edit.setText("localhost:8786")
    dialog.accept()
    assert dialog.isVisible()  # stays open
    assert "not a scheduler address" in dialog.status_label.text()
    assert Settings().scheduler_address == ""


def test_test_button_reports_an_unreachable_scheduler(qtbot, dialog):
    if not dialog.available:
        pytest.skip("dask.distributed is not installed")
    dialog.scheduler_edit.setText("tcp://127.0.0.1:9")
    assert dialog.test_connection()
    assert not dialog.test_button.isEnabled()  # one test at a time; the window stays live
    qtbot.waitUntil(lambda: "no dask scheduler answered" in dialog.status_label.text(),
                    timeout=20_000)
    assert dialog.test_button.isEnabled()


def test_ok_stores_the_address_and_long_runs_go_there(dialog, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    if not dialog.available:
        pytest.skip("dask.distributed is not installed")
    dialog.scheduler_edit.setText(" tcp://10.0.0.5:8786 ")
    dialog.autosave_spin.setValue(30)
    dialog.accept()
    s = Settings()
    assert s.scheduler_address == "tcp://10.0.0.5:8786" and s.autosave_interval_s == 30

    def experiment(*args, **kwargs):
        return args, kwargs

    wrapped = on_backend(experiment, s)
    assert isinstance(wrapped, functools.partial)
    assert wrapped.func is run_on_scheduler and wrapped.args == (experiment,
                                                                 "tcp://10.0.0.5:8786")
    s.scheduler_address = ""
    assert on_backend(experiment, s) is experiment  # empty: this computer's processes
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.0.0.6:8786")
    assert Settings().scheduler_address == "tcp://10.0.0.6:8786"  # the variable is the default


def test_menu_action_opens_the_dialog_and_applies_the_interval(qtbot, window, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)

    def fill_and_ok() -> None:
        d = window.settings_dialog
        d.autosave_spin.setValue(17)
        d.accept()

    QTimer.singleShot(200, fill_and_ok)
    assert window.open_settings()
    assert window.autosave.interval_s == 17
    assert window.settings_action in window.edit_menu.actions()


def test_a_sweep_from_the_window_runs_on_the_scheduler_with_the_same_numbers(
        qtbot, example_doc, monkeypatch):
    """End to end: Settings names a real LocalCluster; F5's sweep runs there (the backend
    says so) and gives the in-process numbers bit for bit."""
    distributed = pytest.importorskip("distributed")
    import numpy as np

    from core.mdp.sweep import privacy_sweep
    from gui.mdp.analysis_panel import AnalysisPanel
    from gui.shell.workers import TaskRunner

    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster:
        Settings().scheduler_address = cluster.scheduler_address
        runner = TaskRunner()
        panel = AnalysisPanel(example_doc, "four-startups", runner)
        qtbot.addWidget(panel)
        panel.set_parameters(ks="10, 1000", runs=4, workers=1, seed=11)
        with qtbot.waitSignal(runner.succeeded, timeout=60_000) as blocker:
            assert panel.run()
        result = blocker.args[0]
        runner.shutdown()
    assert result.backend == f"dask cluster at {cluster.scheduler_address} (2 threads)"
    mdp = example_doc.mdp_entry("four-startups").mdp
    local = privacy_sweep(mdp, [10.0, 1000.0], runs=4, seed=11, workers=1)
    for name in ("v_lower", "v_private", "v_true", "v_upper"):
        np.testing.assert_array_equal(getattr(result, name), getattr(local, name))
    record = example_doc.project.runs[-1]
    assert record.summary["backend"].startswith("dask cluster at ")
