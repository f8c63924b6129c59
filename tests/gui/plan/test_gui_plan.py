"""The Privacy plan tab: shares move forecasts and the gauge, Optimise, Execute, an
infeasible plan, and cancel (pytest-qt, offscreen)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from core.plan import evaluate_plan, load_plan, resolve_models
from core.project import Project, load_project, save_project
from gui.plan.commands import PLAN_STACK
from gui.plan.panel import PlanPanel
from gui.shell.document import ProjectDocument

ROOT = Path(__file__).resolve().parents[3]
FEASIBLE = ROOT / "assets" / "examples" / "study-feasible.plan.json"
INFEASIBLE = ROOT / "assets" / "examples" / "study.plan.json"
WAIT_MS = 180_000  # the first composition imports and warms the accountants


def _settled(panel: PlanPanel) -> bool:
    return not panel.is_running and panel.budget is not None and panel.is_current()


@pytest.fixture
def temp_doc(tmp_path):
    path = tmp_path / "study.privplan.json"
    save_project(Project(name="study"), path)
    return ProjectDocument(load_project(path), path)


def _panel(qtbot, document) -> PlanPanel:
    panel = PlanPanel(document)
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitUntil(lambda: _settled(panel), timeout=WAIT_MS)
    return panel


def test_the_tab_opens_the_feasible_example_as_budget_composes_it(qtbot, example_doc):
    panel = _panel(qtbot, example_doc)
    assert panel.objectName() == "plan" and panel.plan_name == "study-feasible"
    plan = load_plan(FEASIBLE)
    want = evaluate_plan(plan, resolve_models(plan, base_dir=str(FEASIBLE.parent)))
    assert panel.budget.composed_epsilon == pytest.approx(want.composed_epsilon, rel=1e-9)
    assert panel.gauge.values["pld"] == pytest.approx(want.composed_epsilon, rel=1e-9)
    assert panel.gauge.values["basic"] == pytest.approx(want.basic_epsilon, rel=1e-9)
    assert [r.name for r in panel.rows.rows()] == ["counts", "means", "net", "model"]
    # not stored in the project until it is edited
    assert example_doc.project.plans == [] and not example_doc.is_dirty
    panel.shutdown()


def test_moving_a_share_updates_the_forecast_bar_and_the_gauge(qtbot, example_doc):
    panel = _panel(qtbot, example_doc)
    row = panel.rows.row("counts")
    bar0, pld0 = row.bar.value(), panel.gauge.values["pld"]
    start = row.slider.value()
    # a drag: the bar follows at once, nothing is stored until the slider is let go
    row.slider.setSliderDown(True)
    row.slider.setValue(start - 12)
    assert row.bar.value() < bar0  # less ε, a less accurate count
    assert example_doc.stack(PLAN_STACK).count() == 0
    row.slider.setSliderDown(False)  # emits sliderReleased: one undoable step
    assert example_doc.stack(PLAN_STACK).count() == 1
    option = panel.options["counts"][start - 12]
    assert panel.plan().release("counts").params["epsilon"] == option.release.params["epsilon"]
    assert example_doc.plan_document("study-feasible") is not None
    qtbot.waitUntil(lambda: _settled(panel) and panel.gauge.values["pld"] < pld0 - 1e-6,
                    timeout=WAIT_MS)
    rb = {r.release.name: r for r in panel.budget.releases}["counts"]
    assert rb.epsilon == pytest.approx(option.epsilon, rel=1e-9)
    assert row.bar.value() == round(1000 * rb.forecast.utility)
    # undo puts the share (and the slider) back and takes the plan out of the project
    example_doc.stack(PLAN_STACK).undo()
    assert panel.plan().release("counts").params["epsilon"] == 0.7
    assert row.slider.value() == start
    assert example_doc.plan_document("study-feasible") is None
    qtbot.waitUntil(lambda: _settled(panel)
                    and panel.gauge.values["pld"] == pytest.approx(pld0, rel=1e-9),
                    timeout=WAIT_MS)
    panel.shutdown()


def test_optimise_keeps_the_plan_feasible_and_changes_shares(qtbot, example_doc):
    panel = _panel(qtbot, example_doc)
    before = panel.plan()
    positions = {r.name: r.slider.value() for r in panel.rows.rows()}
    assert panel.allocate("optimise")
    qtbot.waitUntil(lambda: _settled(panel) and panel.budget.allocation == "optimise",
                    timeout=WAIT_MS)
    after = panel.plan()
    assert panel.budget.feasible and panel.budget.composed_epsilon <= after.epsilon + 1e-9
    changed = [r.name for r, s in zip(after.releases, before.releases) if r.params != s.params]
    assert changed, "Optimise changed no release"
    moved = [r.name for r in panel.rows.rows() if r.slider.value() != positions[r.name]]
    assert moved
    assert "Fits" in panel.verdict.text()
    assert example_doc.stack(PLAN_STACK).count() == 1  # one undoable step
    panel.shutdown()


def test_execute_records_exactly_the_planned_releases(qtbot, temp_doc):
    from gui.shell.saving import save_document_to

    panel = _panel(qtbot, temp_doc)
    assert panel.execute_button.isEnabled()
    budget = panel.budget
    assert panel.execute()
    qtbot.waitUntil(lambda: not panel.is_running and panel.shown_run is not None,
                    timeout=WAIT_MS)
    on_disk = load_project(temp_doc.path)
    (run,) = on_disk.runs
    assert run.kind == "privacy-plan" and run.params["name"] == "study-feasible"
    assert [e.parameters["release"] for e in on_disk.ledger] == \
        ["counts", "means", "net", "model"]
    for e, rb in zip(on_disk.ledger, budget.releases):
        assert e.dataset == "study" and e.source == run.id
        assert e.epsilon == pytest.approx(rb.epsilon, rel=1e-12) and e.delta == rb.delta
    # the window shows the run and its entries, and cannot execute the plan twice
    assert [r.id for r in temp_doc.project.runs] == [run.id]
    assert len(temp_doc.project.ledger) == 4
    assert not panel.execute_button.isEnabled()
    assert temp_doc.plan_document("study-feasible") is not None
    # saving the window neither duplicates the run nor its spend, and keeps the plan
    assert save_document_to(panel, temp_doc, temp_doc.path)
    saved = load_project(temp_doc.path)
    assert len(saved.runs) == 1 and len(saved.ledger) == 4
    assert [p["name"] for p in saved.plans] == ["study-feasible"]
    panel.shutdown()


def test_an_infeasible_plan_names_the_breaking_release_and_disables_execute(qtbot, temp_doc):
    panel = _panel(qtbot, temp_doc)
    assert panel.open_plan(INFEASIBLE, store=False)
    qtbot.waitUntil(lambda: _settled(panel) and panel.plan_name == "study", timeout=WAIT_MS)
    assert not panel.budget.feasible and panel.budget.breaking == "model"
    assert "model" in panel.verdict.text() and "Does not fit" in panel.verdict.text()
    assert "⚠" in panel.rows.row("model").name_label.text()
    assert "⚠" not in panel.rows.row("counts").name_label.text()
    assert panel.gauge.values["pld"] > panel.gauge.values["budget"]
    assert not panel.execute_button.isEnabled()
    assert not panel.execute() and "model" in panel.run_problem
    assert load_project(temp_doc.path).ledger == []
    panel.shutdown()


def test_cancel_stops_a_running_composition(qtbot, example_doc):
    panel = _panel(qtbot, example_doc)
    shown = panel.budget
    with qtbot.waitSignal(panel.runner.cancelled, timeout=WAIT_MS):
        assert panel.allocate("weights")  # seconds of composition: cancelled at once
        assert panel.is_running
        panel.cancel()
    assert not panel.is_running
    assert panel.budget is shown and math.isfinite(shown.composed_epsilon)
    assert panel.run_controls.status == "cancelled"
    assert example_doc.stack(PLAN_STACK).count() == 0  # nothing applied
    panel.shutdown()


def test_the_window_opens_the_plan_tool(qtbot, window):
    panel = window.open_tool("plan")
    assert isinstance(panel, PlanPanel) and panel.objectName() == "plan"
    assert window.tabs.tabText(window.tabs.indexOf(panel)) == "Privacy plan"


def test_app_refuses_an_unknown_tool(capsys):
    from gui.shell.app import run_gui

    assert run_gui(["--tool", "no-such-tool", "--screenshot", "unused.png"]) == 2
    assert "--tool: no tool 'no-such-tool'" in capsys.readouterr().err
