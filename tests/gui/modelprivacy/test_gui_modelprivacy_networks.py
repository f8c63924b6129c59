"""The Model privacy workspace's network victims (the optional deep extra)."""

from __future__ import annotations

import pytest

from core.modelprivacy.records import RUN_KIND, TABLE_KIND
from gui.modelprivacy.network_runner import NETWORK_ITEMS
from gui.modelprivacy.panel import ModelPrivacyPanel


@pytest.fixture
def panel(qtbot, example_doc):
    p = ModelPrivacyPanel(example_doc)
    qtbot.addWidget(p)
    p.show()
    yield p
    p.shutdown()


def _keys(panel):
    return [panel.victim_combo.itemData(i) for i in range(panel.victim_combo.count())]


def test_network_victims_are_offered_exactly_when_jax_is_installed(panel):
    from core.deep import available

    nets = [k for k, _ in NETWORK_ITEMS]
    keys = _keys(panel)
    assert keys[:3] == ["ffnn", "rnn", "tabular"]
    assert (keys[3:] == nets) if available() else (keys == ["ffnn", "rnn", "tabular"])


def test_a_gru_victim_is_studied_recorded_and_compared(qtbot, panel, example_doc):
    pytest.importorskip("jax")
    panel.set_parameters(data="wine", victim="gru", defense="dpsgd", epsilon=4.0, seed=2,
                         shadows=1)
    n_ledger = len(example_doc.project.ledger)
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run()
    assert panel.run_problem == ""
    s = panel.summary
    assert s["victim"] == "gru" and s["defense"] == "dpsgd" and s["epsilon"] <= 4.0
    assert example_doc.project.runs[-1].kind == RUN_KIND
    assert len(example_doc.project.ledger) == n_ledger + 1
    # Compare victims: the numpy victims and the chosen network on one split
    panel.set_parameters(defense="none")
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run_victims()
    rec = example_doc.project.runs[-1]
    assert rec.kind == TABLE_KIND
    assert [r.get("victim") for r in rec.summary["rows"]] == ["ffnn", "rnn", "gru"]


def test_without_jax_no_network_victim_is_offered_and_a_network_is_refused(qtbot, example_doc,
                                                                         monkeypatch):
    import core.deep
    import core.deep.extra
    from gui.modelprivacy.network_runner import networks_for

    monkeypatch.setattr(core.deep.extra, "missing", lambda: ["jax"])  # where available() looks
    p = ModelPrivacyPanel(example_doc)
    qtbot.addWidget(p)
    try:
        assert _keys(p) == ["ffnn", "rnn", "tabular"]
        assert networks_for("ffnn") is None
        with pytest.raises(core.deep.DeepUnavailable, match=r"privplan\[deep\]"):
            networks_for("gru")
        from gui.modelprivacy.network_runner import victim_kind

        with pytest.raises(core.deep.DeepUnavailable, match=r"privplan\[deep\]"):
            victim_kind("lstm", None)
    finally:
        p.shutdown()


def test_population_attacks_on_a_network_victim_are_shown_not_recorded(qtbot, panel,
                                                                       example_doc):
    pytest.importorskip("jax")
    n_runs, n_ledger = len(example_doc.project.runs), len(example_doc.project.ledger)
    panel.set_parameters(data="wine", victim="mlp", defense="dpsgd", epsilon=2.0,
                         attack="population", seed=2)
    with qtbot.waitSignal(panel.runner.finished, timeout=300_000):
        assert panel.run()
    assert panel.run_problem == ""
    s = panel.summary
    assert s["protocol"] == "population" and s["victim"] == "mlp" and s["models"] == 8
    assert s["kind"]["backend"] == "jax" and s["epsilon"] <= 2.0
    assert set(s["attacks"]) == {"lira-online", "lira-offline", "loss", "shadow"}
    assert panel.table.rowCount() == 4
    assert len(example_doc.project.runs) == n_runs            # releases nothing
    assert len(example_doc.project.ledger) == n_ledger


def test_a_network_population_study_stops_within_an_epoch_of_cancel():
    """The worker's cancel reaches a network's training once per epoch (the progress callback
    raises Cancelled; the population study itself reports only once per model)."""
    pytest.importorskip("jax")
    from core.common.progress import Cancelled
    from core.modelprivacy.release import MiaParameters
    from gui.modelprivacy import jobs

    calls = []

    def progress(fraction, message=""):
        calls.append(fraction)
        if len(calls) >= 3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        jobs.release(MiaParameters("wine", victim="gru", epochs=60, seed=1,
                                   **jobs.ATTACK_PARAMETERS["population"]), None,
                     progress=progress)
    assert calls == [0.0, 0.0, 0.0]   # three epochs of the first model, not three models
