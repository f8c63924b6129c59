"""A plan on the 30-center map stops within 2 s of Esc (the session's checkpoints), records
nothing, and says so; the tab's run plumbing is the ToolPanel's."""

from __future__ import annotations

import time

import pytest

from gui.logistics.panel import LogisticsPanel
from gui.shell.document import ProjectDocument
from gui.shell.tool_panel import ToolPanel


@pytest.fixture
def panel(qtbot):
    p = LogisticsPanel(ProjectDocument())
    qtbot.addWidget(p)
    p.show()
    yield p
    p.shutdown()


def test_the_logistics_tab_is_a_tool_panel(panel):
    assert isinstance(panel, ToolPanel) and panel.run_message is panel.planner.run_message


def test_cancel_stops_a_plan_within_two_seconds(panel, qtbot):
    assert panel.load_generated30()
    panel.planner.set_task("a28.3", "a29", "a29.1")
    panel.planner.set_plan_options(solver="rl", seed=7)
    logs = []
    panel.message_logged.connect(lambda level, text: logs.append(text))
    assert panel.run()
    qtbot.wait(300)
    assert panel.is_running
    t0 = time.perf_counter()
    with qtbot.waitSignal(panel.runner.cancelled, timeout=5000):
        panel.cancel()
    assert time.perf_counter() - t0 < 2.0
    assert not panel.is_running and panel.document.project.runs == []
    assert any("cancelled" in t and "nothing was recorded" in t for t in logs)


def test_a_refused_field_is_named_by_the_core(panel):
    panel.load_fig41()
    panel.planner.set_plan_options(epsilon="nan")
    assert not panel.run()
    assert panel.run_problem.startswith("ε:") and "finite" in panel.run_problem
