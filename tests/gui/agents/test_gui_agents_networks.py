"""The Private agents workspace's learner choice (the optional deep extra): a DQN
under DP-DRL and PE-VDN with networks, run, recorded and accounted like the tables."""

from __future__ import annotations

import pytest

from gui.agents.panel import AgentsPanel


@pytest.fixture
def panel(qtbot, example_doc):
    p = AgentsPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1400, 900)
    p.show()
    yield p
    p.shutdown()


def _keys(combo):
    return [combo.itemData(i) for i in range(combo.count())]


def test_learners_offer_networks_exactly_when_jax_is_installed(panel):
    from core.deep import available

    assert _keys(panel.agent_combo) == (["tabular", "dqn"] if available() else ["tabular"])
    assert _keys(panel.team_agent) == (["tabular", "net"] if available() else ["tabular"])


@pytest.mark.slow  # two JAX trainings (19 s): make test-slow; tests/deep records them too
def test_dqn_run_and_network_team_are_recorded_like_the_tables(qtbot, panel, example_doc):
    pytest.importorskip("jax")
    panel.size_spin.setValue(7)
    panel.add_random_grid()
    panel.agent_combo.setCurrentIndex(1)
    panel.episodes_spin.setValue(20)
    panel.generations_spin.setValue(3)
    n = len(example_doc.project.ledger)
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run()
    assert panel.run_problem == ""
    rec = example_doc.project.runs[-1]
    assert rec.kind == "drl" and rec.params["agent"] == "dqn"
    assert rec.summary["epsilon_total"] is None and 0 <= rec.summary["nrr"] <= 1
    assert len(example_doc.project.ledger) == n + 1
    # while it runs the learner cannot change; afterwards it can
    assert panel.agent_combo.isEnabled()
    panel.tabs.setCurrentIndex(1)
    panel.team_agent.setCurrentIndex(1)
    panel.agents_spin.setValue(2)
    panel.team_episodes_spin.setValue(10)
    panel.dp_check.setChecked(True)
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run()
    rec = example_doc.project.runs[-1]
    assert rec.kind == "comarl" and rec.params["agent"] == "net" and rec.summary["epsilon"] > 0
    assert rec.summary["pe_vs_central_max_diff"] <= rec.summary["pe_vs_central_bound"]


def test_without_jax_only_the_tables_are_offered(qtbot, example_doc, monkeypatch):
    import core.deep
    import core.deep.extra

    monkeypatch.setattr(core.deep.extra, "missing", lambda: ["jax"])  # where available() looks
    p = AgentsPanel(example_doc)
    qtbot.addWidget(p)
    try:
        assert _keys(p.agent_combo) == ["tabular"] and _keys(p.team_agent) == ["tabular"]
    finally:
        p.shutdown()
