"""The analysis panel's π̄ choice: the softmax (stochastic) policy in the sweep and in F6."""

from __future__ import annotations

import numpy as np
import pytest

from core.mdp.sweep import privacy_sweep
from gui.mdp.analysis_panel import AnalysisPanel
from gui.mdp.drawing import bounds_overlay
from gui.mdp.plot_panel import CostOfPrivacyPanel
from gui.shell.workers import TaskRunner


@pytest.fixture
def panel(qtbot, example_doc):
    runner = TaskRunner()
    p = AnalysisPanel(example_doc, "four-startups", runner)
    qtbot.addWidget(p)
    yield example_doc, p, runner
    runner.shutdown()


def test_greedy_by_default_and_tau_only_for_softmax(panel) -> None:
    _, p, _ = panel
    assert p.policy_choice.temperature() is None and not p.policy_choice.tau_spin.isEnabled()
    assert p.parameters().policy_source == "greedy" and p.bounds_parameters().temperature is None
    p.policy_choice.set_temperature(0.25)
    assert p.policy_choice.tau_spin.isEnabled()
    assert p.bounds_parameters().temperature == 0.25
    sp = p.parameters()
    assert (sp.policy_source, sp.temperature) == ("softmax", 0.25)
    assert "Theorems 2.4/2.6" in p.policy_choice.toolTip()


def test_softmax_sweep_records_the_stochastic_cost_of_privacy(qtbot, panel) -> None:
    doc, p, runner = panel
    p.set_parameters(ks="50, 5000", runs=3, workers=1, seed=4)
    p.policy_choice.set_temperature(0.1)
    with qtbot.waitSignal(runner.succeeded, timeout=60000):
        assert p.run()
    record = doc.project.runs[-1]
    assert record.kind == "sweep"
    assert record.params["policy_source"] == "softmax" and record.params["temperature"] == 0.1
    assert record.summary["policy_source"] == "softmax"
    # the recorded numbers are the core's softmax sweep with the same parameters
    mdp = doc.mdp_entry("four-startups").mdp
    want = privacy_sweep(mdp, (50.0, 5000.0), **p.parameters().sweep_kwargs())
    np.testing.assert_array_equal(record.summary["cost_bound_mean"],
                                  want.to_dict()["cost_bound_mean"])
    greedy = privacy_sweep(mdp, (50.0, 5000.0),
                           **{**p.parameters().sweep_kwargs(), "temperature": None})
    assert record.summary["v_private_mean"] != greedy.to_dict()["v_private_mean"]
    plots = CostOfPrivacyPanel(doc, "four-startups")
    qtbot.addWidget(plots)
    plots.show_run(record.id)
    assert "softmax τ = 0.1" in plots.caption.text()


def test_f6_with_softmax_records_the_table_and_draws_its_likeliest_actions(qtbot, panel
                                                                           ) -> None:
    doc, p, runner = panel
    p.bounds_k_spin.setValue(200)
    p.policy_choice.set_temperature(0.2)
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert p.run_bounds()
    record = doc.project.runs[-1]
    s = record.summary
    assert record.kind == "bounds" and s["policy_source"] == "softmax" and s["stochastic"]
    assert "policy" not in s  # never a deterministic-looking policy
    probs = np.array(s["policy_probs"])
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-12)
    lo, vp, hi = (np.array(s[k]) for k in ("v_lower", "v_private", "v_upper"))
    assert (lo <= vp + 1e-12).all() and (vp <= hi + 1e-12).all()
    overlay = bounds_overlay(doc, record.id, "four-startups", 0)
    assert overlay is not None and all(v["action"] is not None
                                       for v in overlay["states"].values())
    assert "softmax" in p.status_label.text()
