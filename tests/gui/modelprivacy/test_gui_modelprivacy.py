"""The Model privacy workspace, GUI side: run, record, show again, refuse, cancel."""

from __future__ import annotations

import pytest

from core.modelprivacy.records import RUN_KIND, TABLE_KIND
from gui.modelprivacy.panel import ModelPrivacyPanel


@pytest.fixture
def panel(qtbot, example_doc):
    p = ModelPrivacyPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1300, 820)
    p.show()
    yield p
    p.shutdown()


def _wait(qtbot, panel, start, timeout=120_000):
    with qtbot.waitSignal(panel.runner.finished, timeout=timeout):
        assert start()


def test_empty_state_then_a_dpsgd_study_is_recorded_with_its_ledger_entry(qtbot, panel,
                                                                          example_doc):
    assert panel.summary is None and panel.empty_label.isVisible()
    panel.set_parameters(data="wine", victim="ffnn", defense="dpsgd", epsilon=2.0, seed=3,
                         shadows=2)
    assert panel.randomness_label() == "study as a seeded experiment (seed 3)"
    n_ledger = len(example_doc.project.ledger)
    _wait(qtbot, panel, panel.run)
    assert panel.run_problem == ""
    s = panel.summary
    assert s["defense"] == "dpsgd" and s["epsilon"] <= 2.0 and s["accuracy_cap"] is not None
    rec = example_doc.project.runs[-1]
    assert rec.kind == RUN_KIND and panel.shown_run == rec.id
    assert len(example_doc.project.ledger) == n_ledger + 1
    assert example_doc.project.ledger[-1].mechanism == "dpsgd"
    assert "DP-SGD" in panel.table.item(0, 0).text()
    html = panel.summary_view.toHtml()
    assert "Guarantee" in html and "seed 3" in html
    # wine's victim has 22 non-members: neither TPR at FPR 0.1 % nor 1 % is resolved
    assert s["tpr_at_fpr"] == {"0.001": None, "0.01": None}
    assert panel.summary_view.toPlainText().count("not resolved (an FPR of") == 2
    # undo leaves the run and its ledger entry (a release is not un-spent)
    example_doc.stack("model privacy").undo()
    assert len(example_doc.project.ledger) == n_ledger + 1 and panel.summary is not None


@pytest.mark.slow  # 1,000 trainings for GPM (20 s): make test-slow; the victims table stays
def test_comparison_table_and_show_again(qtbot, panel, example_doc):
    panel.set_parameters(data="wine", victim="ffnn", seed=1, shadows=2)
    # GPM's sensitivity from the paper's 500 pairs (1,000 trainings, shared by its 3 rows)
    _wait(qtbot, panel, panel.run_table, timeout=400_000)
    rec = example_doc.project.runs[-1]
    assert rec.kind == TABLE_KIND
    labels = [panel.table.item(i, 0).text() for i in range(panel.table.rowCount())]
    assert labels[0] == "No defense" and any("One-parameter" in t for t in labels)
    assert panel.table.rowCount() == 1 + 3 + 3 + 4
    panel._show_latest()
    panel.show_run(rec.id)
    assert panel.shown_run == rec.id


def test_refusals_name_the_field(qtbot, panel):
    panel.set_parameters(data="digits", victim="tabular", seed=1)
    _wait(qtbot, panel, panel.run)      # refused by the core against the data, in the worker
    assert "victim" in panel.run_problem and "MDP" in panel.run_problem
    assert panel.summary is None
    panel.set_parameters(victim="tabular", defense="dpsgd")  # refused when the parameters
    assert panel.run() is False                                # are made, before any work
    assert panel.run_problem.startswith("defense:") and "DP-SGD" in panel.run_problem
    panel.set_parameters(defense="none")
    panel.set_parameters(data="wine", victim="ffnn", shadows=30, seed=1)
    _wait(qtbot, panel, panel.run)
    assert "shadows" in panel.run_problem and panel.summary is None


def test_cancel_records_nothing(qtbot, panel, example_doc):
    n = len(example_doc.project.runs)
    panel.set_parameters(data="digits", victim="rnn", defense="gpm", seed=1)
    with qtbot.waitSignal(panel.runner.finished, timeout=60_000):
        assert panel.run()
        panel.cancel()
    assert len(example_doc.project.runs) == n


def test_compare_victims_side_by_side(qtbot, panel, example_doc):
    panel.set_parameters(data="wine", defense="none", seed=2, shadows=2)
    _wait(qtbot, panel, panel.run_victims)
    rec = example_doc.project.runs[-1]
    assert rec.kind == TABLE_KIND and rec.summary["compare"] == "victims"
    labels = [panel.table.item(i, 0).text() for i in range(panel.table.rowCount())]
    assert labels == ["ffnn: No defense", "rnn: No defense"]
    assert "feed-forward and recurrent" in panel.summary_view.toHtml()


def test_tabular_dirichlet_on_a_project_mdp(qtbot, panel, example_doc):
    mdp_id = example_doc.project.mdps[0].id
    panel.set_parameters(data=f"mdp:{mdp_id}", victim="tabular", defense="dirichlet", k=100,
                         seed=1, shadows=2)
    assert panel.k_spin.isEnabled() and not panel.epsilon_spin.isEnabled()
    _wait(qtbot, panel, panel.run)
    assert panel.run_problem == ""
    s = panel.summary
    assert s["defense"] == "dirichlet" and "policy_value" in s
    assert example_doc.project.ledger[-1].mechanism == "dirichlet-rows"


def test_a_release_past_the_budget_asks_and_no_records_and_shows_nothing(qtbot, panel,
                                                                         example_doc,
                                                                         monkeypatch):
    """the window asks before recording a release past the data set's
    budget (the command line refuses without --over-budget); no records and shows nothing."""
    import gui.shell.ledger as gl

    panel.set_parameters(data="wine", victim="ffnn", defense="dpsgd", epsilon=2.0, shadows=2)
    panel.mode_combo.setCurrentIndex(panel.mode_combo.findData("release"))
    asked = []
    monkeypatch.setattr(gl, "ask_exceed_budget", lambda parent, r: asked.append(r) or False)
    n_runs, n_ledger = len(example_doc.project.runs), len(example_doc.project.ledger)
    # the study's release is charged to its data set: a budget far below it
    original = gl.approve_entries

    def with_budget(parent, document, entries):
        entries = list(entries)
        for e in entries:
            if e.is_release:
                gl.set_budget(document, e.dataset, (0.5, 0.1))
        return original(parent, document, entries)

    monkeypatch.setattr("gui.shell.tool_panel.approve_entries", with_budget)
    _wait(qtbot, panel, panel.run)
    assert asked and "exceeds the budget" in asked[0]
    assert len(example_doc.project.runs) == n_runs
    assert len(example_doc.project.ledger) == n_ledger
    assert panel.summary is None  # nothing shown


def test_population_attacks_and_canary_audit_are_shown_not_recorded(qtbot, panel, example_doc):
    n_runs, n_ledger = len(example_doc.project.runs), len(example_doc.project.ledger)
    panel.set_parameters(data="wine", victim="ffnn", defense="none", attack="population",
                         seed=2)
    _wait(qtbot, panel, panel.run)
    assert panel.run_problem == ""
    s = panel.summary
    assert s["protocol"] == "population" and s["models"] == 8
    assert set(s["attacks"]) == {"lira-online", "lira-offline", "loss", "shadow"}
    assert panel.table.horizontalHeaderItem(0).text() == "Attack"
    assert panel.table.rowCount() == 4
    # 8 victims x 22 non-members: FPR 0.1 % is not resolved and says so
    assert panel.table.item(0, 4).text() == "not resolved"
    assert "population study" in panel.summary_view.toPlainText()
    assert len(example_doc.project.runs) == n_runs
    assert len(example_doc.project.ledger) == n_ledger
    panel.set_parameters(attack="canary", defense="dpsgd", epsilon=2.0)
    _wait(qtbot, panel, panel.run)
    assert panel.summary["protocol"] == "canary audit (one run)"
    assert panel.summary["epsilon_lb"] <= panel.summary["epsilon"]
    assert "ε_lb" in panel.summary_view.toPlainText()
    panel.set_parameters(attack="population", defense="gpm")
    assert panel.run() is False       # refused by MiaParameters, naming the field
    assert panel.run_problem.startswith("defense:") and "none or dpsgd" in panel.run_problem


def test_the_roc_is_whole_in_a_1366x768_window(qtbot, window):
    """after a study at 1366×768 the ROC was cut at the right by the tab's
    scroll area (no 1.0 tick, legend "One-parameter defe"): the page was wider than its tab."""
    from gui.shell.plots import readability_problems

    window.resize(1366, 768)
    panel = window.open_tool("modelprivacy")
    panel.set_parameters(data="wine", victim="ffnn", defense="dpsgd", epsilon=2.0, seed=3,
                         shadows=2)
    _wait(qtbot, panel, panel.run)
    qtbot.wait(50)
    area = window.tabs.scroll_area(window.tabs.indexOf(panel))
    viewport = area.viewport()
    for plot in (panel.roc_plot, panel.eps_plot):
        right = plot.mapTo(viewport, plot.rect().topRight()).x()
        assert right <= viewport.width(), (plot, right, viewport.width())
        assert not [p for p in readability_problems(plot) if "title" in p]


def test_the_summary_says_a_tpr_is_not_resolved_and_why():
    """The workspace's result text: a null TPR (or one stored before the rule, unresolvable
    at 224 non-members) reads "not resolved" with the reason, never as a number."""
    from gui.modelprivacy.texts import study_html

    base = {"victim": "ffnn", "data": "digits", "defense": "none", "members": 224,
            "epsilon": None, "epsilon_reason": "no defense", "guarantee": "none", "seed": 1}
    for tpr in ({"0.001": None, "0.01": 0.0134}, {"0.001": 0.008928571428571428,
                                                  "0.01": 0.0134}):
        html = study_html(dict(base, tpr_at_fpr=tpr), "mia", "run-1")
        assert ("0.001: not resolved (an FPR of 0.001 needs at least 1,000 non-members for "
                "one false positive; the study has 224)") in html
        assert "0.01: 0.013" in html and "0.00893" not in html
