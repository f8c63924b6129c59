"""Run parameters → TaskRunner → RunRecord → plots, end to end (workers=1, small sizes)."""

from __future__ import annotations

import html

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core.common.errors import InputError
from core.mdp.records import sweep_summary
from core.mdp.sweep import QUANTITIES
from gui.mdp.analysis_panel import DEFAULT_K_TEXT, TOOLTIPS, AnalysisPanel, parse_k_list
from gui.mdp.plot_panel import _DODGE, COST_KEYS, VALUE_KEYS, CostOfPrivacyPanel
from gui.shell.style import fmt_num, pretty_message
from gui.shell.workers import TaskRunner


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
    # the default declared domain (eta 1e-3, rule 'mix'): finite at k = 10 and 1000
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
    assert record.summary == sweep_summary(result)
    assert {k: v for k, v in record.summary.items()
            if not k.startswith(("privacy_rows", "oracle_"))} == {
        k: v for k, v in full.items() if k != "privacy_rows"}
    assert "v_true_mean" in record.summary["oracle_keys"]  # marked as the oracle view
    assert record.summary["privacy_rows_total"] == [6, 6]
    assert record.summary["privacy_rows_without_guarantee"] == [0, 0]
    assert (record.params["b"], record.params["delta_target"], record.params["adjacency"]) \
        == (0.1, 0.05, "one-row")
    assert (record.params["eta"], record.params["domain_rule"]) == ("auto", "mix")
    assert (record.summary["eta"], record.summary["domain_rule"]) == ("auto", "mix")
    assert record.summary["accountant"].startswith("exact privacy profile")
    assert record.summary["composed"]["epsilon"] <= record.summary["composed"]["epsilon_basic"]
    assert all(e is not None for e in record.summary["epsilon"])
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
    assert [(e.source, e.mechanism, e.mode) for e in ledger] == [
        (record.id, "dirichlet", "experiment")] * 2
    assert [e.epsilon for e in ledger] == pytest.approx(result.to_dict()["epsilon"])
    # Ctrl+Z right after the run leaves the run and its ledger entries
    doc.undo_stack.undo()
    assert [r.id for r in doc.project.runs] == [record.id] and len(doc.project.ledger) == 2
    assert plots.run_id == record.id
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
    from core.mdp.accounting import ADJACENCY_TEXT, mdp_privacy

    doc, panel, plots, runner = panels
    assert panel.b_spin.value() == 0.1 and panel.delta_spin.value() == 0.05
    assert panel.adjacency_combo.currentData() == "one-row"
    assert "parallel composition" in panel.adjacency_combo.itemData(
        0, Qt.ItemDataRole.ToolTipRole)
    assert "more private" in TOOLTIPS["delta"] and "larger ε" in TOOLTIPS["b"]
    panel.set_parameters(ks="10, 100", runs=2, workers=1, b=0.05, delta_target=0.01,
                         adjacency="all-rows", eta=0.01)
    assert "every transition row" in panel.adjacency_label.text()
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert panel.run()
    record = doc.project.runs[0]
    s = record.summary
    assert (s["b"], s["delta_target"], s["adjacency"]) == (0.05, 0.01, "all-rows")
    mdp = doc.mdp_entry("four-startups").mdp
    for row, k in enumerate((10.0, 100.0)):
        ref = mdp_privacy(mdp, k, b=0.05, delta_target=0.01, adjacency="all-rows", eta=0.01)
        assert s["epsilon"][row] == ref.epsilon and s["delta"][row] == ref.delta
        assert plots.table.item(row, 2).text() == fmt_num(ref.epsilon)
        assert plots.table.item(row, 3).text() == fmt_num(ref.delta, 3)
        assert plots.table.item(row, 2).toolTip().startswith(ref.statement)
    assert "k = 10" in plots.privacy_label.text()
    assert html.escape(ADJACENCY_TEXT["all-rows"]) in plots.privacy_label.text()
    assert "all-rows" in plots.caption.text() and "b = 0.05" in plots.caption.text()
    assert "η = 0.01 (mix)" in plots.caption.text()
    plots.table.selectRow(1)
    assert "k = 100" in plots.privacy_label.text() and plots.focus_index() == 1
    assert plots.rows_button.isEnabled()


def test_bad_privacy_parameter_is_refused(panels):
    _, panel, _, _ = panels
    panel.delta_spin.setValue(0.0)  # clamps to its minimum > 0
    assert panel.parameters().delta_target > 0
    with pytest.raises(ValueError):
        panel.set_parameters(adjacency="some-rows")


@pytest.mark.parametrize("spin,value,field", [("b_spin", 0.0, "b"), ("b_spin", 1.5, "b"),
                                               ("beta_spin", 1.0, "beta"),
                                               ("delta_spin", 0.0, "delta_target")])
def test_run_parameters_are_checked_by_the_core_and_shown_in_the_dialog(
        panels, warnings_shown, monkeypatch, spin, value, field):
    """The Run parameters panel does not check b, β or δ itself: SweepParameters does (the
    command line's check), and its InputError, naming the field, is what the dialog shows.
    (The spin boxes clamp to their ranges; a value past them stands in for any that slips
    through.)"""
    _, panel, _, runner = panels
    monkeypatch.setattr(getattr(panel, spin), "value", lambda: value)
    with pytest.raises(InputError) as info:
        panel.parameters()
    assert info.value.field == field
    assert panel.run() is False and not runner.is_running
    (title, text) = warnings_shown[-1]
    assert title == "Cannot run the privacy sweep" and str(info.value) in text


def test_per_row_dialog_lists_rows_without_guarantee(qtbot, example_doc):
    """Example 2 at the default η ('mix') under the union bound (a named accountant): at
    k = 3 no row has a guarantee (k·η too small), so the release is unbounded and every row
    says why; at k = 10⁴ every row of 20 next states has the same finite guarantee."""
    from core.mdp.accounting import mdp_privacy
    from gui.mdp.privacy_rows_dialog import NO_GUARANTEE_BRUSH, ROW_COLUMNS, PrivacyRowsDialog

    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "example-2", runner)
    plots = CostOfPrivacyPanel(example_doc, "example-2")
    for w in (panel, plots):
        qtbot.addWidget(w)
    panel.set_parameters(ks="3, 10000", runs=1, workers=1, delta_method="union")
    with qtbot.waitSignal(runner.succeeded, timeout=60000):
        panel.run()
    runner.shutdown()
    s = example_doc.project.runs[0].summary
    assert s["privacy_rows_without_guarantee"] == [100, 0]
    assert s["epsilon"][0] is None and "too small" in s["epsilon_reason"][0]
    assert "unbounded" in plots.privacy_label.text() and "too small" in plots.privacy_label.text()
    assert plots.table.item(0, 2).text() == "unbounded" and plots.table.item(0, 3).text() == "–"
    assert "too small" in plots.table.item(0, 2).toolTip()
    assert plots.table.item(1, 2).text() == fmt_num(s["epsilon"][1])
    plots.show_row_privacy()
    dialog = plots.rows_dialog
    assert isinstance(dialog, PrivacyRowsDialog)
    qtbot.waitUntil(lambda: dialog.privacy_result is not None, timeout=30000)
    ref = mdp_privacy(example_doc.mdp_entry("example-2").mdp, 3.0, delta_method="union")
    eps_col, notes_col = ROW_COLUMNS.index("ε"), ROW_COLUMNS.index("notes")
    assert dialog.table.rowCount() == len(ref.rows) == 100
    shown_missing = [i for i in range(dialog.table.rowCount())
                     if dialog.table.item(i, eps_col).text() == "no guarantee"]
    assert len(shown_missing) == len(ref.not_applicable) == 100
    assert dialog.table.item(0, notes_col).text() == pretty_message(ref.rows[0].reason) != ""
    assert dialog.table.item(0, 0).background() == NO_GUARANTEE_BRUSH
    assert dialog.table.item(0, ROW_COLUMNS.index("next states")).text() == "20"
    assert "without a guarantee" in dialog.status.text() and "unbounded" in dialog.status.text()
    assert "changed" not in dialog.status.text()
    assert "η = auto (min(0.001, 1/(2n))" in dialog.assumption.text()
    assert "never on its probabilities" in dialog.assumption.text()
    assert "(1 - n·eta)·b" in dialog.assumption.text()
    # another k: recomputed for that k; every row the same public guarantee
    with qtbot.waitSignal(dialog.runner.succeeded, timeout=30000):
        dialog.k_combo.setCurrentIndex(1)
    assert dialog.privacy_result.k == 10000.0 and dialog.privacy_result.bounded
    texts = {dialog.table.item(i, eps_col).text() for i in range(100)}
    assert texts == {fmt_num_dialog(dialog.privacy_result.epsilon)}
    assert "changed" not in dialog.status.text()
    dialog.close()
    qtbot.waitUntil(lambda: plots.rows_dialog is None, timeout=5000)


def test_declared_domain_fields_reach_the_sweep(qtbot, panels, warnings_shown):
    """η and the domain rule are editable, explained, recorded, and drive both the
    privatisation and the accounting: refuse stops on a row below η, mix covers it."""
    from core.mdp.accounting import DEFAULT_DOMAIN_RULE, DEFAULT_ETA, mdp_privacy

    doc, panel, plots, runner = panels
    assert (DEFAULT_ETA, DEFAULT_DOMAIN_RULE) == ("auto", "mix")
    assert panel._eta() == DEFAULT_ETA and panel.domain_combo.currentData() == "mix"
    assert panel.eta_edit.currentText() == "auto"
    eta_tip, rule_tip = panel.eta_edit.toolTip(), panel.domain_combo.toolTip()
    for text in ("without looking at any data", "built-in", "Default ‘auto’",
                 "default domain rule ‘mix’", "finite"):
        assert text in eta_tip, text
    assert "‘mix’ (default)" in rule_tip and "‘refuse’: rows are privatised as they are" \
        in rule_tip and "n·η" in rule_tip
    for tip in (eta_tip, rule_tip):  # nothing left of the old defaults
        for stale in ("1e-06", "5000", "‘refuse’ (default)", "unbounded ε below"):
            assert stale not in tip, stale
    assert "never on the model's probabilities" in panel.public_label.text()
    p = panel.parameters()
    assert (p.eta, p.domain_rule) == (DEFAULT_ETA, "mix")
    assert p.sweep_kwargs()["eta"] == DEFAULT_ETA
    assert p.sweep_kwargs()["domain_rule"] == "mix"
    # 'refuse' and a row below eta: refused, with the row named, nothing recorded
    panel.set_parameters(ks="50", runs=1, workers=1, eta=0.02, domain_rule="refuse")
    with qtbot.waitSignal(runner.failed, timeout=30000):
        assert panel.run()
    assert doc.project.runs == []
    assert "P(start, acquire_1)" in panel.status_label.text()
    # mix: every row is mixed, the guarantee is finite and recorded with its parameters
    panel.set_parameters(domain_rule="mix")
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert panel.run()
    s = doc.project.runs[0].summary
    want = mdp_privacy(doc.mdp_entry("four-startups").mdp, 50, eta=0.02, domain_rule="mix")
    assert s["epsilon"] == [want.epsilon] and s["domain_rule"] == "mix"
    assert "η = 0.02 (mix)" in plots.caption.text()
    assert "(1 - n·η)·b".replace("η", "eta") in plots.privacy_label.text()
    with pytest.raises(ValueError):
        panel.set_parameters(domain_rule="clip")


def test_bounds_record_states_its_guarantee(qtbot, panels):
    doc, panel, plots, runner = panels
    panel.set_parameters(eta=0.01)
    panel.bounds_k_spin.setValue(50)
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert panel.run_bounds()
    record = doc.project.runs[0]
    priv = record.summary["privacy"]
    assert record.kind == "bounds" and (record.params["eta"], priv["eta"]) == (0.01, 0.01)
    for key in ("epsilon", "delta", "adjacency_text", "k", "b", "delta_target", "domain_rule"):
        assert key in priv, key
    assert priv["epsilon"] is not None and priv["k"] == 50
    entry = doc.project.ledger[-1]
    assert entry.parameters["eta"] == 0.01 and entry.parameters["domain_rule"] == "mix"
    assert record.params["domain_rule"] == priv["domain_rule"] == "mix"


def fmt_num_dialog(x):
    from gui.mdp.privacy_rows_dialog import _num

    return _num(x)


def test_rows_dialog_describes_older_runs_as_they_were_run():
    """A run recorded before η was declared privatised its rows as they were: the per-row
    dialog must not credit it with the default rule 'mix' (radius (1 − n·η)·b), but
    describe it under 'refuse'; recorded parameters are used as they are."""
    from core.mdp.accounting import DEFAULT_ETA
    from gui.mdp.privacy_rows_dialog import _run_parameters

    older = _run_parameters({"k": [10.0], "b": 0.1, "delta_target": 0.05})
    assert (older["eta"], older["domain_rule"]) == (1e-3, "refuse")  # the then default
    assert older["delta_method"] == "union"  # stated before the exact profile existed
    assert DEFAULT_ETA == "auto"
    recorded = _run_parameters({"k": [10.0], "eta": 0.02, "domain_rule": "refuse"})
    assert (recorded["eta"], recorded["domain_rule"]) == (0.02, "refuse")
    new = _run_parameters({"k": [10.0], "eta": 0.001, "domain_rule": "mix"})
    assert (new["eta"], new["domain_rule"]) == (0.001, "mix")
    # a record with eta but no rule (cannot be written today): today's default rule
    assert _run_parameters({"k": [10.0], "eta": 0.001})["domain_rule"] == "mix"


def test_the_invalid_model_message_goes_when_undo_makes_the_model_valid(panels):
    """Issue: the Run panel kept "the model is not valid" after undo made it valid."""
    from gui.shell.commands import SetProbabilityCommand
    from gui.shell.document import mdp_stack_key

    doc, panel, _plots, _runner = panels
    doc.push(SetProbabilityCommand(doc, "four-startups", "ac-1", "st-1", 0.5),
             mdp_stack_key("four-startups"))  # the row no longer sums to 1
    assert not panel.run()
    assert "not valid" in panel.status_label.text()
    doc.stack(mdp_stack_key("four-startups")).undo()
    assert "not valid" not in panel.status_label.text()
    assert "valid again" in panel.status_label.text()
