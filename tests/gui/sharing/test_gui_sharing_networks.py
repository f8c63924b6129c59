"""The Policy sharing workspace's PPO networks (the optional deep extra): a PPO
teacher and students run in the worker, are recorded with the teacher's ledger, and drawn."""

from __future__ import annotations

import numpy as np
import pytest

from gui.sharing import network_runner
from gui.sharing.panel import SharingPanel


@pytest.fixture
def panel(qtbot, example_doc):
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1300, 850)
    p.show()
    yield p
    p.shutdown()


def _keys(panel):
    return [panel.env_combo.itemData(i) for i in range(panel.env_combo.count())]


def test_ppo_environments_are_offered_exactly_when_jax_is_installed(panel, qtbot,
                                                                    example_doc, monkeypatch):
    from core.deep import available

    ppo = [f"ppo:{e}" for e in network_runner.PPO_ENVS]
    assert all(k in _keys(panel) for k in ppo) == available()
    import core.deep
    import core.deep.extra

    monkeypatch.setattr(core.deep.extra, "missing", lambda: ["jax"])  # where available() looks
    p = SharingPanel(example_doc)
    qtbot.addWidget(p)
    try:
        assert not any(network_runner.is_ppo(k) for k in _keys(p))
    finally:
        p.shutdown()


@pytest.mark.slow  # a JAX PPO run (10 s): make test-slow; tests/deep records PPO sharing too
def test_a_ppo_run_is_recorded_with_its_ledger_and_drawn(qtbot, panel, example_doc,
                                                        monkeypatch):
    pytest.importorskip("jax")
    from core.deep.ppo import PpoConfig

    # a short run: the teacher's 2 roll-outs of 2 x 16 steps (the mechanics, not learning)
    monkeypatch.setattr(network_runner, "PPO_OPTIONS",
                        {"teacher_iterations": 2, "cfg": PpoConfig(envs=2, steps=16)})
    panel.set_parameters(env="ppo:CartPole-v1", iterations=3, seeds=1, seed=4, coef=0.5,
                         budget_e=1e6, budget_d=0.5, students=["aware", "none"],
                         after_budget="random")
    n_runs, n_ledger = len(example_doc.project.runs), len(example_doc.project.ledger)
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run()
    assert len(example_doc.project.runs) == n_runs + 1
    rec = example_doc.project.runs[-1]
    assert rec.kind == "sharing" and rec.params["agent"] == "ppo"
    # the protocol's after-the-budget rule reaches the PPO students (and their record)
    assert rec.summary["after_budget"] == rec.params["after_budget"] == "random"
    assert rec.params["nonprivate_target"] == "teacher"
    # the η-mixed target is the tabular learner's: refused for PPO, beside the message
    panel.set_parameters(nonprivate_target="mixed")
    assert not panel.run()
    assert "teacher network's own policy" in panel.message.text()
    assert len(example_doc.project.runs) == n_runs + 1
    assert rec.target == "gym:CartPole-v1" and panel.last_recorded == rec.id
    assert rec.summary["teacher_return"] > 0 and rec.summary["lipschitz"]["proven"]
    entries = example_doc.project.ledger[n_ledger:]
    assert entries and all(e.source == rec.id for e in entries)
    # the curves drawn are the recorded medians
    med = np.asarray(rec.summary["curves"]["aware"]["median"])
    np.testing.assert_allclose(panel.curves["aware"].getData()[1], med)
    assert "PPO teacher" in panel.summary_label.text()
