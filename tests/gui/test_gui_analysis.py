"""Run parameters → TaskRunner → RunRecord → plots, end to end (workers=1, small sizes)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core._validation import InputError
from core.experiments import QUANTITIES
from gui.panels.analysis_panel import (
    DEFAULT_K_TEXT,
    TOOLTIPS,
    AnalysisPanel,
    parse_k_list,
    run_summary,
)
from gui.panels.plot_panel import _DODGE, COST_KEYS, VALUE_KEYS, CostOfPrivacyPanel
from gui.style import fmt_num, pretty_message
from gui.workers import TaskRunner


@pytest.fixture
def warnings_shown(monkeypatch):
    shown = []

    def fake_warning(parent, title, text, *args, **kwargs):
        shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(fake_warning))
    return shown


@pytest.fixture
def panels(qtbot, example_doc):
    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "four-startups", runner)
    plots = CostOfPrivacyPanel(example_doc, "four-startups")
    for w in (panel, plots):
        qtbot.addWidget(w)
    yield example_doc, panel, plots, runner
    runner.shutdown()


def test_parse_k_list():
    assert parse_k_list("1000, 10 ,10; 2.5e1") == (10.0, 25.0, 1000.0)
    assert parse_k_list(DEFAULT_K_TEXT)[0] == 10.0 and len(parse_k_list(DEFAULT_K_TEXT)) == 10
    for bad in ("", "10, abc", "10, -5", "0", "nan", "inf"):
        with pytest.raises(InputError) as err:
            parse_k_list(bad)
        assert err.value.field == "k"


def test_defaults_and_tooltips(panels):
    _, panel, _, _ = panels
    p = panel.parameters()
    assert p.runs == 50 and p.beta == 0.05 and p.alpha_mode == "paper"
    assert p.seeded and p.seed == 7 and 1 <= p.workers <= 2
    assert len(p.ks) == 10
    for key in ("k", "beta", "alpha", "runs", "seed"):
        assert TOOLTIPS[key].count(".") >= 1
    assert "Lemma 2.2 may fail" in panel.alpha_combo.toolTip()
    assert "less" in panel.k_edit.toolTip() and "private" in panel.k_edit.toolTip()
    assert panel.randomness_label() == "seeded experiment (seed 7)"
    panel.set_parameters(seeded=False)
    assert "release" not in panel.randomness_label().replace("not a release", "")
    assert "fresh OS seed" in panel.randomness_label()


def test_sweep_end_to_end(qtbot, panels):
    doc, panel, plots, runner = panels
    assert plots.is_empty and "F5" in plots.empty_label.text()
    panel.set_parameters(ks="10, 1000", runs=3, workers=1, seed=11)
    with qtbot.waitSignal(runner.succeeded, timeout=30000) as blocker:
        assert panel.run()
    result = blocker.args[0]
    # recorded through an undoable command
    assert len(doc.project.runs) == 1 and doc.is_dirty
    record = doc.project.runs[0]
    assert (record.kind, record.target, record.seed, record.mode) == (
        "sweep", "four-startups", 11, "experiment")
    assert record.params["ks"] == [10.0, 1000.0] and record.params["runs"] == 3
    # the record keeps the small summary: no per-row privacy table
    full = result.to_dict()
    assert "privacy_rows" in full and "privacy_rows" not in record.summary
    assert record.summary == run_summary(result)
    assert {k: v for k, v in record.summary.items()
            if not k.startswith("privacy_rows")} == {k: v for k, v in full.items()
                                                     if k != "privacy_rows"}
    assert record.summary["privacy_rows_total"] == [6, 6]
    assert record.summary["privacy_rows_without_guarantee"] == [0, 0]
    assert (record.params["b"], record.params["delta_target"], record.params["adjacency"]) \
        == (0.1, 0.05, "one-row")
    # the plots show exactly the means of the result
    assert plots.run_id == record.id
    for key in QUANTITIES:
        x, y = plots.curves[key].getOriginalDataset()
        np.testing.assert_array_equal(y, result.mean(key))
        np.testing.assert_allclose(x / 10 ** _DODGE[key], [10.0, 1000.0])
        np.testing.assert_array_equal(plots.curves[key].getData()[1], result.mean(key))
    np.testing.assert_array_equal(plots.curves["cost_bound"].getData()[1],
                                  result.mean("cost_bound"))
    np.testing.assert_array_equal(plots.curves["cost_empirical"].getData()[1],
                                  result.mean("cost_empirical"))
    assert plots.table.rowCount() == 2
    assert plots.table.item(1, 0).text() == "1000"
    assert plots.table.horizontalHeaderItem(2).text().startswith("ε")
    assert plots.table.horizontalHeaderItem(3).text().startswith("δ")
    caption = plots.caption.text()
    assert "seeded experiment (seed 11)" in caption and "3 runs per k" in caption
    assert "β = 0.05" in caption and "oracle view" in caption.lower()
    # legend labels
    legend_labels = [label.text for _, label in plots.values_legend.items]
    assert any("oracle view" in t for t in legend_labels)
    assert len(legend_labels) == len(VALUE_KEYS)
    assert len(plots.cost_legend.items) == len(COST_KEYS)
    # the privatisations are in the ledger: one seeded-experiment entry per k, from this run
    ledger = doc.project.ledger
    assert [(e["source"], e["mechanism"], e["mode"]) for e in ledger] == [
        (record.id, "dirichlet", "experiment")] * 2
    assert [e["epsilon"] for e in ledger] == pytest.approx(result.to_dict()["epsilon"])
    # undo removes the run and its ledger entries in one step; redo brings both back
    doc.undo_stack.undo()
    assert doc.project.runs == [] and plots.is_empty and doc.project.ledger == []
    doc.undo_stack.redo()
    assert plots.run_id == record.id and len(doc.project.ledger) == 2
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_bad_k_starts_nothing(qtbot, panels, warnings_shown):
    doc, panel, plots, runner = panels
    panel.set_parameters(ks="10, -1, abc")
    assert "border" in panel.k_edit.styleSheet()
    assert "-1" in panel.k_edit.toolTip()
    started = []
    runner.started.connect(lambda: started.append(1))
    assert panel.run() is False
    assert not runner.is_running and started == []
    assert len(warnings_shown) == 1 and "k" in warnings_shown[0][1]
    assert panel.k_error.isVisibleTo(panel) and panel.k_error.text()
    assert doc.project.runs == []
    panel.set_parameters(ks="10")
    assert panel.k_edit.styleSheet() == "" and not panel.k_error.isVisibleTo(panel)


def test_unseeded_run_records_the_fresh_seed(qtbot, panels):
    doc, panel, plots, runner = panels
    panel.set_parameters(ks="10", runs=2, workers=1, seeded=False)
    assert not panel.seed_spin.isEnabled()
    with qtbot.waitSignal(runner.succeeded, timeout=30000) as blocker:
        panel.run()
    record = doc.project.runs[0]
    assert record.params["seeded"] is False and record.params["seed"] is None
    assert record.seed == blocker.args[0].seed is not None
    assert "fresh OS seed" in plots.caption.text()


def test_cancel_records_nothing(qtbot, example_doc):
    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "example-2", runner)
    qtbot.addWidget(panel)
    panel.set_parameters(ks="10, 20, 50, 100", runs=400, workers=1)
    with qtbot.waitSignal(runner.started, timeout=5000):
        panel.run()
    assert panel.cancel_button.isEnabled() and not panel.run_button.isEnabled()
    with qtbot.waitSignal(runner.cancelled, timeout=30000):
        panel.cancel()
    assert example_doc.project.runs == []
    assert "Cancelled" in panel.status_label.text()
    runner.shutdown()


def test_plot_export_writes_png(qtbot, panels, tmp_path):
    import pyqtgraph.exporters

    doc, panel, plots, runner = panels
    panel.set_parameters(ks="10, 100", runs=2, workers=1)
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        panel.run()
    plots.resize(900, 500)
    plots.show()
    out = tmp_path / "values.png"
    pyqtgraph.exporters.ImageExporter(plots.values_plot.getPlotItem()).export(str(out))
    assert out.stat().st_size > 1000
    # the context menu (with Export…) stays enabled
    assert plots.values_plot.getPlotItem().getViewBox().menuEnabled()


def test_privacy_parameters_and_columns(qtbot, panels):
    """b, target δ and the adjacency reach privacy_sweep; the table shows the composed
    (ε, δ) of mdp_privacy for each k, and the statement of the k in focus."""
    from core.privacy.mdp_accounting import ADJACENCY_TEXT, mdp_privacy

    doc, panel, plots, runner = panels
    assert panel.b_spin.value() == 0.1 and panel.delta_spin.value() == 0.05
    assert panel.adjacency_combo.currentData() == "one-row"
    assert "parallel composition" in panel.adjacency_combo.itemData(
        0, Qt.ItemDataRole.ToolTipRole)
    assert "more private" in TOOLTIPS["delta"] and "larger ε" in TOOLTIPS["b"]
    panel.set_parameters(ks="10, 100", runs=2, workers=1, b=0.05, delta_target=0.01,
                         adjacency="all-rows")
    assert "every transition row" in panel.adjacency_label.text()
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert panel.run()
    record = doc.project.runs[0]
    s = record.summary
    assert (s["b"], s["delta_target"], s["adjacency"]) == (0.05, 0.01, "all-rows")
    mdp = doc.mdp_entry("four-startups").mdp
    for row, k in enumerate((10.0, 100.0)):
        ref = mdp_privacy(mdp, k, b=0.05, delta_target=0.01, adjacency="all-rows")
        assert s["epsilon"][row] == ref.epsilon and s["delta"][row] == ref.delta
        assert plots.table.item(row, 2).text() == fmt_num(ref.epsilon)
        assert plots.table.item(row, 3).text() == fmt_num(ref.delta, 3)
        assert plots.table.item(row, 2).toolTip().startswith(ref.statement)
    assert "k = 10" in plots.privacy_label.text()
    assert ADJACENCY_TEXT["all-rows"] in plots.privacy_label.text()
    assert "all-rows" in plots.caption.text() and "b = 0.05" in plots.caption.text()
    plots.table.selectRow(1)
    assert "k = 100" in plots.privacy_label.text() and plots.focus_index() == 1
    assert plots.rows_button.isEnabled()


def test_bad_privacy_parameter_is_refused(panels):
    _, panel, _, _ = panels
    panel.delta_spin.setValue(0.0)  # clamps to its minimum > 0
    assert panel.parameters().delta_target > 0
    with pytest.raises(ValueError):
        panel.set_parameters(adjacency="some-rows")


def test_per_row_dialog_lists_rows_without_guarantee(qtbot, example_doc):
    """Example 2 has rows with fewer than three next states: no guarantee, with the reason."""
    from core.privacy.mdp_accounting import mdp_privacy
    from gui.dialogs.privacy_rows_dialog import NO_GUARANTEE_BRUSH, PrivacyRowsDialog

    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "example-2", runner)
    plots = CostOfPrivacyPanel(example_doc, "example-2")
    for w in (panel, plots):
        qtbot.addWidget(w)
    panel.set_parameters(ks="10, 100", runs=1, workers=1)
    with qtbot.waitSignal(runner.succeeded, timeout=60000):
        panel.run()
    runner.shutdown()
    s = example_doc.project.runs[0].summary
    assert s["privacy_rows_without_guarantee"][0] > 0
    assert "rows have no guarantee" in plots.privacy_label.text()
    assert plots.table.item(0, 2).text().endswith("*")
    plots.show_row_privacy()
    dialog = plots.rows_dialog
    assert isinstance(dialog, PrivacyRowsDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=30000)
    ref = mdp_privacy(example_doc.mdp_entry("example-2").mdp, 10.0)
    assert dialog.table.rowCount() == len(ref.rows) == 100
    shown_missing = [i for i in range(dialog.table.rowCount())
                     if dialog.table.item(i, 6).text() == "no guarantee"]
    assert len(shown_missing) == len(ref.not_applicable) == s["privacy_rows_without_guarantee"][0]
    i = shown_missing[0]
    assert dialog.table.item(i, 10).text() == pretty_message(ref.rows[i].reason) != ""
    assert dialog.table.item(i, 0).background() == NO_GUARANTEE_BRUSH
    ok = next(j for j in range(100) if j not in shown_missing)
    assert dialog.table.item(ok, 6).text() == fmt_num_dialog(ref.rows[ok].result.epsilon)
    assert "without a guarantee" in dialog.status.text() and "changed" not in dialog.status.text()
    # another k: recomputed for that k
    with qtbot.waitSignal(dialog.runner.succeeded, timeout=30000):
        dialog.k_combo.setCurrentIndex(1)
    assert dialog.result.k == 100.0
    dialog.close()
    qtbot.waitUntil(lambda: plots.rows_dialog is None, timeout=5000)


def fmt_num_dialog(x):
    from gui.dialogs.privacy_rows_dialog import _num

    return _num(x)
