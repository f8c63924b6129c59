"""The Audit workspace, GUI side: run, verdict, bars, ROC, cancel, errors."""

from __future__ import annotations

import dataclasses
import math

import pytest

from core.audit import AuditParameters, AuditResult
from core.audit.records import RUN_KIND
from core.common import InputError
from gui.audit.panel import EMPTY_TEXT, AuditPanel
from gui.audit.plots import claim_boundary
from gui.shell.style import ERROR_COLOUR

# 20 000 outputs per side: about a second for the Laplace audit, and enough power that
# ε_lb is well above 0 at ε = 1 (the core's own tests check the power at full size).
FAST = 20_000


@pytest.fixture
def panel(qtbot, example_doc):
    p = AuditPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1300, 820)
    p.show()
    yield p
    p.shutdown()


def _run(qtbot, panel, timeout=60_000):
    with qtbot.waitSignal(panel.runner.finished, timeout=timeout):
        assert panel.run()


#: what _violated() claims to have audited
_LAPLACE = AuditParameters("laplace", {"epsilon": 1.0, "sensitivity": 1.0}, samples=5000,
                           seed=4)


def _violated() -> AuditResult:
    return AuditResult(
        mechanism="laplace", epsilon_claimed=1.0, epsilon_claimed_reason=None,
        delta_claimed=0.0, adjacency="answers at L1 distance <= 1", epsilon_lb=1.8,
        confidence=0.95, epsilon_tight=None, pair={"a": 0.0, "b": 1.0, "description": "x"},
        samples=5000, verdict="violation", roc=((0.0, 0.0), (0.05, 0.6), (1.0, 1.0)),
        parameters={"epsilon": 1.0, "sensitivity": 1.0}, mode="experiment", elapsed_s=0.1,
        seed=4, attack={"fpr": 0.05, "fnr": 0.4, "fpr_upper": 0.06, "fnr_upper": 0.42})


def test_empty_state_teaches(panel):
    assert panel.results_stack.currentIndex() == 0 and panel.summary is None
    assert panel.empty_label.text() == EMPTY_TEXT and "Run (F5)" in EMPTY_TEXT
    assert panel.bars_plot.values == {}


def test_a_laplace_audit_runs_in_the_worker_and_is_recorded(qtbot, panel, example_doc):
    panel.set_parameters("laplace", epsilon=1.0, sensitivity=1.0, samples=FAST, seed=11)
    assert panel.randomness_label() == "audit as a seeded experiment (seed 11)"
    _run(qtbot, panel)
    assert panel.run_problem == ""
    s = panel.summary
    assert s is not None and s["mechanism"] == "laplace" and s["samples"] == FAST
    assert s["verdict"] == "consistent" and s["mode"] == "experiment" and s["seed"] == 11
    assert 0.3 < s["epsilon_lb"] <= 1.0 and s["epsilon_tight"] == 1.0
    # the bars are the result's numbers
    bars = panel.bars_plot
    assert bars.values == {"epsilon_lb": s["epsilon_lb"], "epsilon_tight": 1.0,
                           "epsilon_claimed": 1.0}
    heights = {k: float(b.opts["height"][0]) for k, b in bars.bars.items()}
    assert heights == pytest.approx(bars.values)
    assert bars.labels["epsilon_lb"].textItem.toPlainText() == f"{s['epsilon_lb']:.4g}"
    assert bars.claim_line.isVisible() and bars.claim_line.value() == 1.0
    assert not bars.unbounded_bar.isVisible()
    # the verdict banner
    text = panel.verdict_label.text()
    assert "CONSISTENT" in text and f"{s['epsilon_lb']:.4g}" in text
    assert panel.verdict_label.property("verdict") == "consistent"
    # the ROC and the claim's limit
    x, y = panel.roc_plot.roc.getData()
    assert len(x) == len(s["roc"]) >= 3 and x[0] == 0.0 and y[-1] == 1.0
    bx, by = panel.roc_plot.boundary.getData()
    ex, ey = claim_boundary(1.0, 0.0)
    assert list(by) == pytest.approx(list(ey))
    # recorded in the project (undoable), stamped with parameters and seed
    (rec,) = [r for r in example_doc.project.runs if r.kind == RUN_KIND]
    assert panel.shown_run == rec.id and rec.target == "laplace" and rec.seed == 11
    assert rec.summary["epsilon_lb"] == s["epsilon_lb"] and rec.mode == "experiment"
    assert "seed 11" in panel.stamp_label.text() and rec.id in panel.stamp_label.text()
    assert "scalar answers" in panel.details.toPlainText()
    # the report has a section for it
    from core.report.html import build_report

    rep = build_report(example_doc.project)
    assert any(sec.title.startswith("Privacy audit") for sec in rep.sections)
    # a recorded run is not an edit — Ctrl+Z leaves it and the tab shows it
    example_doc.undo_stack.undo()
    assert [r.id for r in example_doc.project.runs if r.kind == RUN_KIND] == [rec.id]
    assert panel.summary is not None and panel.shown_run == rec.id


def test_a_violation_shows_the_red_verdict(panel):
    r = _violated()
    assert r.epsilon_lb > r.epsilon_claimed
    panel.show_result(r)
    assert panel.verdict_label.property("verdict") == "violation"
    assert "VIOLATION" in panel.verdict_label.text()
    assert ERROR_COLOUR.lower() in panel.verdict_label.styleSheet().lower()
    bar = panel.bars_plot.bars["epsilon_lb"]
    assert bar.opts["brush"].color().name().lower() == ERROR_COLOUR.lower()
    assert panel.bars_plot.labels["epsilon_tight"].textItem.toPlainText() == "unknown"
    assert panel.shown_run is None and "not recorded" in panel.stamp_label.text()
    # the attack's point lies above the (1, 0)-DP limit: the ROC shows the breach
    (px,), (py,) = panel.roc_plot.point.getData()
    assert py > min(math.e * px, 1 - (1 - px) / math.e)


def test_an_unbounded_claim_is_a_hatched_bar_with_the_reason(panel):
    r = dataclasses.replace(_violated(), epsilon_claimed=math.inf, verdict="consistent",
                            epsilon_claimed_reason="raw Q-values are released")
    panel.show_result(r)
    bars = panel.bars_plot
    assert bars.unbounded_bar.isVisible() and bars.arrow.isVisible()
    assert not bars.claim_line.isVisible()
    assert "raw Q-values are released" in bars.reason_label.textItem.toPlainText()
    assert "unbounded" in bars.reason_label.textItem.toPlainText()
    assert panel.verdict_label.property("verdict") == "unbounded"
    assert "raw Q-values are released" in panel.verdict_label.text()
    assert len(panel.roc_plot.boundary.getData()[0] or []) == 0  # no limit to draw
    assert "inf" not in panel.details.toPlainText().replace("info", "")


def test_cancel_stops_the_audit_and_records_nothing(qtbot, panel, example_doc):
    panel.set_parameters("laplace", epsilon=1.0, samples=20_000_000, seed=1)
    with qtbot.waitSignal(panel.runner.cancelled, timeout=30_000):
        assert panel.run()
        assert panel.is_running and panel.cancel_button.isEnabled()
        assert not panel.run_button.isEnabled() and not panel.run()  # one at a time
        panel.cancel()
    qtbot.waitUntil(lambda: not panel.is_running, timeout=10_000)
    assert "cancelled" in panel.progress_label.text()
    assert not [r for r in example_doc.project.runs if r.kind == RUN_KIND]
    assert panel.summary is None and panel.run_button.isEnabled()


def test_a_bad_parameter_is_shown_and_nothing_else_changes(qtbot, panel, example_doc):
    panel.set_parameters("laplace", epsilon=1.0, sensitivity=2.0, samples=FAST, seed=3)
    _run(qtbot, panel)
    before = dict(panel.summary)
    n_runs = len(example_doc.project.runs)
    panel.set_parameters(epsilon=0.0)
    assert not panel.run() and not panel.is_running  # refused before the worker starts
    assert panel.field_error("epsilon")  # beside the field, and in its tooltip
    assert panel.field("epsilon").message.isVisibleTo(panel)
    assert panel.field_error("epsilon") in panel.field("epsilon").editor.toolTip()
    assert "Not audited" in panel.run_message.text()
    assert panel.summary == before and panel.results_stack.currentIndex() == 1
    assert len(example_doc.project.runs) == n_runs
    assert panel.parameters() == {"epsilon": 0.0, "sensitivity": 2.0}  # state kept
    # too few samples: the samples field says so
    panel.set_parameters(epsilon=1.0, samples=50)
    assert not panel.run()
    assert panel.field_error("samples") and not panel.field_error("epsilon")
    assert panel.summary == before


def test_the_tool_tab_opens_and_shows_a_recorded_audit(qtbot, window):
    from gui.shell.tools import TOOLS

    assert TOOLS["audit"].title == "Audit"
    panel = window.open_tool("audit")
    assert isinstance(panel, AuditPanel) and window.tabs.currentWidget() is panel
    assert "seeded experiment" in window.mode_label.text()
    panel.show_result(_violated(), record=_LAPLACE)
    run_id = panel.shown_run
    assert run_id is not None and window.document.run(run_id).kind == RUN_KIND
    panel._show_empty()
    window._on_project_panel_run_activated(run_id)  # a double-click in the project tree
    assert panel.shown_run == run_id and "VIOLATION" in panel.verdict_label.text()


def test_plots_export_csv(panel, tmp_path):
    from pyqtgraph.exporters import CSVExporter

    panel.show_result(_violated())
    out = tmp_path / "bars.csv"
    CSVExporter(panel.bars_plot.getPlotItem()).export(str(out))
    rows = out.read_text().splitlines()
    assert rows[1:] == ["0.,1.8", "2.,1."]  # ε_tight is unknown: absent, not 0
    # an unbounded claim's bar has only a display height: it is not exported as a number
    panel.show_result(dataclasses.replace(_violated(), epsilon_claimed=math.inf,
                                          epsilon_claimed_reason="raw", verdict="consistent"))
    CSVExporter(panel.bars_plot.getPlotItem()).export(str(out))
    assert out.read_text().splitlines()[1:] == ["0.,1.8"]
    out2 = tmp_path / "roc.csv"
    CSVExporter(panel.roc_plot.getPlotItem()).export(str(out2))
    assert "attack ROC_x" in out2.read_text()


def test_f5_runs_and_esc_cancels_in_the_window(qtbot, window):
    from PySide6.QtCore import Qt

    panel = window.open_tool("audit")
    panel.set_parameters("laplace", epsilon=1.0, samples=20_000_000, seed=2)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=3000)
    with qtbot.waitSignal(panel.runner.started, timeout=5000):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    assert panel.is_running
    with qtbot.waitSignal(panel.runner.cancelled, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not panel.is_running, timeout=5000)


def test_a_saved_audit_comes_back_with_the_project(qtbot, panel, example_doc, tmp_path):
    from core.project.files import load_project, save_project
    from gui.shell.document import ProjectDocument

    raw = dataclasses.replace(_violated(), epsilon_claimed=math.inf, verdict="consistent",
                              epsilon_claimed_reason="raw data released")
    panel.show_result(raw, record=_LAPLACE)
    path = tmp_path / "audit.privplan.json"
    save_project(example_doc.project, path)  # the JSON has null + reason, never Infinity
    text = path.read_text(encoding="utf-8")
    assert "Infinity" not in text and '"epsilon_claimed_reason": "raw data released"' in text
    other = AuditPanel(ProjectDocument(load_project(path)))
    qtbot.addWidget(other)
    assert other.summary is not None and other.summary["epsilon_claimed"] is None
    assert other.bars_plot.unbounded_bar.isVisible() or not other.isVisible()
    assert other.bars_plot.values["epsilon_claimed"] == math.inf
    assert "raw data released" in other.verdict_label.text()


def test_preview_builds(qtbot):
    from gui.audit import panel as audit_panel

    w = audit_panel.preview(exec_=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert isinstance(w, AuditPanel) and w.results_stack.currentIndex() == 0
    w.shutdown()


def test_screenshot_script_writes_a_png(qtbot, tmp_path):
    from gui.audit import screenshot

    out = tmp_path / "audit.png"
    assert screenshot.main([str(out), "--samples", "4000", "--size", "1200x800"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dirichlet_audit_with_the_public_domain(qtbot, panel):
    panel.set_parameters("dirichlet", k=10.0, eta=0.15, eta_bar=None, w=2, b=0.1,
                         delta=0.05, analysis="W", samples=5000, seed=5)
    assert panel.parameters() == {"k": 10.0, "eta": 0.15, "eta_bar": None, "w": 2, "b": 0.1,
                                  "delta": 0.05, "analysis": "W"}
    assert not panel.field("eta_bar").editor.isEnabled()  # unticked: η̄ = η
    _run(qtbot, panel)
    s = panel.summary
    assert panel.run_problem == "" and s["mechanism"] == "dirichlet"
    # ε_tight is exact here (betainc) and, like ε_lb, below the accountant's claim
    assert s["epsilon_tight"] is not None
    assert s["epsilon_lb"] <= s["epsilon_tight"] + 1e-9 <= s["epsilon_claimed"] + 1e-9
    assert panel.bars_plot.values["epsilon_tight"] == s["epsilon_tight"]
    assert "η̄ = 0.15" in panel.stamp_label.text()


def test_shared_policy_audit_from_the_workspace(qtbot, panel):
    """the shared-policy mechanism is an audit target in the app, not only in
    tests; its claim is the certified exact profile and the worst pair comes close to it."""
    panel.set_parameters("sharing", k=5.0, m=4, eta=0.05, lb=0.05, delta=1e-3,
                         bound="profile", samples=5000, seed=5)
    assert panel.parameters() == {"k": 5.0, "m": 4, "eta": 0.05, "lb": 0.05, "delta": 1e-3,
                                  "bound": "profile"}
    _run(qtbot, panel, timeout=120_000)
    s = panel.summary
    assert panel.run_problem == "" and s["mechanism"] == "sharing"
    assert s["epsilon_lb"] <= s["epsilon_tight"] <= s["epsilon_claimed"]
    assert s["epsilon_claimed"] <= 1.5 * s["epsilon_tight"]


@pytest.mark.parametrize("values", [
    {"samples": 3000, "seed": 17, "confidence": 0.9},
    {"samples": 500, "seed": None, "confidence": 0.99},
])
def test_the_run_bindings_go_both_ways(panel, values):
    """samples, seed (None: release mode) and confidence, shown through the run's binding
    table, are what the parameters object built from the widgets holds."""
    panel.set_parameters("laplace", **values)
    params = panel.audit_parameters()
    assert {k: getattr(params, k) for k in values} == values
    assert panel.mode_combo.currentData() == ("release" if values["seed"] is None
                                              else "experiment")
    assert {b.name for b in panel.run_bindings()} == set(values)


def test_a_refused_run_value_names_its_field(panel):
    """The core refuses what the widgets can hold but the parameters do not take."""
    panel.set_parameters("laplace")
    panel.samples_spin.setMinimum(0)
    panel.samples_spin.setValue(0)
    with pytest.raises(InputError) as err:
        panel.audit_parameters()
    assert err.value.field == "samples"
