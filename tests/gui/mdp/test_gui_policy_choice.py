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


# ---------------------------------------------------------------------------- a policy file
def _policy_file(tmp_path, doc, tau=0.5, name="pi.json"):
    import json

    from core.mdp.stochastic import softmax_policy

    table = softmax_policy(doc.mdp_entry("four-startups").mdp, tau).policy
    path = tmp_path / name
    path.write_text(json.dumps({"policy": table.tolist()}))
    return path, table


def _load(qtbot, p, path):
    with qtbot.waitSignal(p.policy_choice.runner.finished, timeout=20000):
        p.policy_choice.load_file(str(path))


def test_a_loaded_policy_file_is_bounded_in_the_worker_as_the_cli_bounds_it(qtbot, panel,
                                                                           tmp_path) -> None:
    import io
    import json

    from core.cli.main import run_cli
    from core.project.files import save_project

    doc, p, runner = panel
    path, table = _policy_file(tmp_path, doc)
    _load(qtbot, p, path)
    pc = p.policy_choice
    assert pc.source() == "table" and pc.path == str(path)
    np.testing.assert_array_equal(pc.table, table)
    assert "stochastic" in pc.file_label.text() and pc.load_button.isVisible() is not None
    with pytest.raises(Exception, match="Synthesise & bound"):  # the sweep synthesises π̄
        p.parameters()
    p.bounds_k_spin.setValue(300)
    p.set_parameters(seed=11)
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert p.run_bounds()
    rec = doc.project.runs[-1]
    assert rec.kind == "bounds" and rec.params["policy_source"] == "table"
    assert rec.params["policy_file"] == str(path)
    s = rec.summary
    np.testing.assert_array_equal(np.array(s["policy_probs"]), table)
    # the command line on the same project, k, seed and file gives the same numbers
    proj = tmp_path / "p.privplan"
    save_project(doc.project, proj)
    out, err = io.StringIO(), io.StringIO()
    argv = ["bounds", str(proj), "--mdp", "four-startups", "--k", "300", "--seed", "11",
            "--beta", "0.05", "--policy", str(path), "--json"]
    assert run_cli(argv, out=out, err=err) == 0, err.getvalue()
    cli = json.loads(out.getvalue())
    assert cli["policy_source"] == "table" and cli["policy_file"] == str(path)
    for key in ("v_lower", "v_private", "v_upper"):
        got = np.array(s[key])
        got = got[0] if got.ndim == 2 else got
        np.testing.assert_allclose(got, cli[key], rtol=0, atol=1e-12)
    assert s["cost_bound"] == pytest.approx(cli["cost_bound"], abs=1e-12)


@pytest.mark.parametrize("content, words", [
    ("{not json", "JSON"),
    ('{"pi": []}', '{"policy"'),
    ('{"policy": [[1, 0]]}', "shape"),
    (None, "sum to 1"),
])
def test_a_bad_policy_file_gets_a_dialog_naming_it_and_changes_nothing(
        qtbot, panel, tmp_path, monkeypatch, content, words) -> None:
    import copy
    import json

    from PySide6.QtWidgets import QMessageBox

    doc, p, runner = panel
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning",
                        staticmethod(lambda parent, title, text, *a: shown.append(text)))
    path = tmp_path / "bad.json"
    if content is None:  # the right shape, one row not summing to 1
        _, table = _policy_file(tmp_path, doc)
        t = table.copy()
        t[(0,) * (t.ndim - 1)] *= 0.5
        path.write_text(json.dumps({"policy": t.tolist()}))
    else:
        path.write_text(content)
    before = (copy.deepcopy([r.id for r in doc.project.runs]), len(doc.project.ledger),
              doc.undo_stack.count())
    p.policy_choice.set_temperature(0.3)  # the choice before
    _load(qtbot, p, path)
    assert len(shown) == 1 and str(path) in shown[0] and words in shown[0]
    assert p.policy_choice.source() == "softmax" and p.policy_choice.table is None
    assert ([r.id for r in doc.project.runs], len(doc.project.ledger),
            doc.undo_stack.count()) == before


def test_a_file_that_no_longer_fits_the_model_is_refused_at_f6(qtbot, panel, tmp_path) -> None:
    doc, p, runner = panel
    path, table = _policy_file(tmp_path, doc)
    _load(qtbot, p, path)
    p.policy_choice.table = table[..., :1]  # as if the model had gained actions since
    assert not p.run_bounds() and not runner.is_running
    assert str(path) in p.status_label.text() and "shape" in p.status_label.text()


def test_f6_with_the_lp_synthesis_records_its_optimum_and_the_cross_check(qtbot, panel
                                                                          ) -> None:
    from core.mdp.private_policy import private_policy

    doc, p, runner = panel
    pc = p.policy_choice
    pc.combo.setCurrentIndex(pc.combo.findData("lp"))
    assert pc.source() == "lp" and not pc.tau_spin.isEnabled()
    with pytest.raises(Exception, match="Synthesise & bound"):
        p.parameters()
    p.bounds_k_spin.setValue(150)
    p.set_parameters(seed=5)
    with qtbot.waitSignal(runner.succeeded, timeout=30000):
        assert p.run_bounds()
    rec = doc.project.runs[-1]
    s = rec.summary
    assert rec.params["policy_source"] == "lp" and s["policy_source"] == "lp"
    assert s["synthesis_check"] <= 1e-9 and "agree" in p.status_label.text()
    want = private_policy(doc.mdp_entry("four-startups").mdp, 150.0, seed=5, synthesis="lp")
    np.testing.assert_array_equal(np.array(s["v_lower"]), want.v_lower)
    np.testing.assert_array_equal(np.array(s["policy"]), want.policy)


def test_choosing_from_a_file_asks_for_it_and_a_cancelled_dialog_goes_back(
        qtbot, panel, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from core.common.errors import InputError

    doc, p, runner = panel
    pc = p.policy_choice
    asked: list[int] = []

    def cancel(*a, **k):
        asked.append(1)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(cancel))
    pc.combo.setCurrentIndex(pc.combo.findData("table"))
    assert asked == [1] and pc.source() == "greedy" and pc.table is None
    # a file chosen in the dialog is read in the worker
    path, table = _policy_file(tmp_path, doc)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    with qtbot.waitSignal(pc.loaded, timeout=20000):
        pc.combo.setCurrentIndex(pc.combo.findData("table"))
    assert pc.source() == "table" and pc.path == str(path)
    # a model that is not valid cannot check a file: a dialog, nothing loaded
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning",
                        staticmethod(lambda parent, title, text, *a: shown.append(text)))

    def invalid():
        raise InputError("row (s, a) sums to 0.5", field="P")

    monkeypatch.setattr(pc, "_mdp", invalid)
    pc.load_file(str(tmp_path / "other.json"))
    assert len(shown) == 1 and "not valid" in shown[0] and "other.json" in shown[0]
    assert pc.path == str(path)  # the file loaded before stays
