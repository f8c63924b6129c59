"""The RL high-level solver (thesis §4.5.3) in the planner and its learning curve."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from core.logistics.examples import fig41
from core.logistics.model import Task
from core.logistics.planner import PlannerParams, plan_task
from core.report.html import Figure, build_report
from gui.logistics.panel import LogisticsPanel
from gui.logistics.result_parts import TABS
from gui.shell.document import ProjectDocument


@pytest.fixture
def fig_panel(qtbot):
    doc = ProjectDocument()
    p = LogisticsPanel(doc)
    qtbot.addWidget(p)
    p.resize(1200, 850)
    p.show()
    qtbot.waitExposed(p)
    assert p.load_fig41() == "map-1"
    yield p
    p.shutdown()


def _run(qtbot, panel) -> None:
    with qtbot.waitSignal(panel.runner.finished, timeout=30000):
        assert panel.run()


def _lines(tab):
    return [it for it in tab.plot.getPlotItem().listDataItems() if it.name()]


def test_rl_solver_plans_and_shows_its_learning_curve_recorded_and_reported(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a1", "f")
    p.planner.set_plan_options(approach="dp", epsilon="0.5", seeded=True, seed=5, solver="rl")
    _run(qtbot, p)
    (rec,) = p._document.project.runs
    assert rec.params["planner"]["high_level_solver"] == "rl"
    # the same plan in the core, same seed: the same curve
    params = PlannerParams.preset_params("sound", epsilon=0.5, high_level_solver="rl")
    expected, session = plan_task(fig41(), Task("a1", "f"), approach="dp", params=params, rng=5)
    want = session.learning_curves[-1]
    tab = p.results.learning
    p.results.show_tab("learning")
    assert p.results.tabs.currentWidget() is tab and TABS[-1] == "learning"
    walks, learned = _lines(tab)
    x, y = learned.xData, learned.yData  # (as given: getData is log10 on a log axis)
    assert len(x) == len(want.greedy_cost) > 0
    assert np.allclose(y, [np.nan if not np.isfinite(v) else v for v in want.greedy_cost],
                       equal_nan=True)
    assert any(isinstance(it, pg.InfiniteLine) and (10 ** it.value() if tab.log_y else
                                                    it.value()) == pytest.approx(want.optimum)
               for it in tab.plot.getPlotItem().items)
    assert f"{len(want.episode_cost)} episodes" in tab.caption.text()
    assert "no privacy cost" in tab.caption.text()
    # recorded: a reloaded run (summary only) redraws the curve, the report draws it
    assert rec.summary["learning_curve"] == want.to_dict()
    p.state.runs.clear()
    p.results.learning.clear()
    assert p.show_run(rec.id)
    assert p.planner.solver_combo.currentData() == "rl"
    assert np.allclose(_lines(tab)[1].yData, y, equal_nan=True)
    rep = build_report(p._document.project)
    (sec,) = [s for s in rep.sections if s.id == f"run-{rec.id}"]
    (fig,) = [b for b in sec.blocks if isinstance(b, Figure) and b.id.endswith("-learning")]
    assert len(fig.series[1].y) == len(want.greedy_cost)


def test_dijkstra_plan_leaves_the_curve_tab_with_its_explanation(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a1", "f")
    p.planner.set_plan_options(approach="dp", seeded=True, seed=5, solver="dijkstra")
    _run(qtbot, p)
    tab = p.results.learning
    assert tab.curve is None and _lines(tab) == []
    assert "RL (§4.5.3)" in tab.caption.text()
    assert "learning_curve" not in p._document.project.runs[0].summary
