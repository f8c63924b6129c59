"""The privacy ledger in the GUI: undoable recording, budgets, the budget check, the panel."""

from __future__ import annotations

import csv

import pytest
from PySide6.QtGui import QUndoCommand

from core.common.errors import InputError
from core.mdp.sweep import privacy_sweep
from core.privacy.ledger import LedgerEntry, PrivacyLedger
from gui.ledger.panel import COLUMNS, EMPTY_TEXT, LedgerPanel
from gui.shell import ledger as gl


@pytest.fixture(scope="module")
def sweep():
    from core.project.files import load_project
    from gui.shell.resources import BUILTIN_PROJECT, asset_path

    mdp = load_project(asset_path(*BUILTIN_PROJECT)).mdps[0].mdp
    # eta = 0.01: a declared domain the four-startups rows meet (finite ε at these k)
    return privacy_sweep(mdp, [10, 100, 1000], runs=3, seed=7, workers=1, eta=0.01)


@pytest.fixture
def panel(qtbot, example_doc):
    p = LedgerPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1200, 760)
    p.show()
    return p


def test_record_sweep_is_recorded_outside_the_undo_history_with_a_signal(qtbot, example_doc, sweep):
    doc = example_doc
    events = doc  # the document announces ledger changes itself
    with qtbot.waitSignal(events.ledger_changed, timeout=1000):
        added = gl.record_sweep(doc, "four-startups", sweep, source="run-9")
    assert [e.id for e in added] == ["rel-1", "rel-2", "rel-3"]
    assert all(e.mode == "experiment" and e.count == 3 and e.seed == 7 for e in added)
    assert [e.parameters["k"] for e in added] == [10.0, 100.0, 1000.0]
    assert len(doc.project.ledger) == 3 and doc.is_dirty
    assert not doc.undo_stack.canUndo()  # a recorded use is not an edit
    doc.undo_stack.undo()
    assert [d.id for d in doc.project.ledger] == ["rel-1", "rel-2", "rel-3"]
    led = gl.project_ledger(doc)
    assert led.spent("mdp:four-startups") == (0.0, 0.0)  # experiments are not spent


def test_entries_from_elsewhere_get_fresh_ids(example_doc):
    doc = example_doc
    other = PrivacyLedger()
    other.record(dataset="agent:b", mechanism="laplace", epsilon=0.5, mode="release")
    gl.record_entries(doc, other.entries)
    gl.record_entries(doc, [e.to_dict() for e in other.entries])
    assert [d.id for d in doc.project.ledger] == ["rel-1", "rel-2"]


def test_budgets_are_undoable_and_checked(qtbot, example_doc, sweep, monkeypatch):
    doc = example_doc
    events = doc
    priv = sweep.privacy[1]  # k = 100: ε ≈ 22 (exact profile, η = 0.01)
    cap = round(1.5 * priv.epsilon, 3)  # one release fits, a second does not
    with qtbot.waitSignal(events.budgets_changed, timeout=1000):
        gl.set_budget(doc, "mdp:four-startups", (cap, 0.1))
    assert doc.project.budgets == {"mdp:four-startups": {"epsilon": cap, "delta": 0.1}}
    assert gl.mdp_release_check(doc, "four-startups", priv) == ""
    gl.record_mdp_release(doc, "four-startups", priv, k=100, seed=None, source="rel-a")
    reason = gl.privacy_budget_check(doc, "mdp:four-startups", priv.epsilon, priv.delta)
    assert "exceeds the budget" in reason and "mdp:four-startups" in reason
    asked = []
    monkeypatch.setattr(gl, "ask_exceed_budget", lambda parent, r: asked.append(r) or False)
    assert not gl.confirm_release(None, doc, "mdp:four-startups", priv.epsilon, priv.delta)
    assert asked == [reason]
    assert gl.confirm_release(None, doc, "mdp:four-startups", 1.0, 0.0)  # fits: no question
    # the budget is the ledger tab's history; the release is on no stack (cannot be un-spent)
    assert not doc.stack("mdp:four-startups").canUndo()
    doc.stack("ledger").undo()
    assert doc.project.budgets == {} and len(doc.project.ledger) == 1
    with pytest.raises(InputError):
        gl.set_budget(doc, "x", (0.0, 0.0))


def test_empty_ledger_says_what_will_appear(panel):
    assert panel.entries_stack.currentWidget() is panel.empty_label
    assert panel.empty_label.text() == EMPTY_TEXT
    assert "Privacy Calculator" in EMPTY_TEXT and "seeded experiments" in EMPTY_TEXT.lower()
    assert panel.totals.rowCount() == 0 and not panel.export_button.isEnabled()


def test_panel_shows_entries_totals_filters_and_budget_bar(qtbot, panel, example_doc, sweep):
    doc = example_doc
    gl.record_sweep(doc, "four-startups", sweep, source="run-1")
    gl.record_mdp_release(doc, "four-startups", sweep.privacy[0], k=10, seed=None,
                          source="release-1")
    other = PrivacyLedger()
    for _ in range(4):
        other.record(dataset="agent:b", mechanism="laplace", epsilon=0.25, mode="release")
    gl.record_entries(doc, other.entries)
    assert panel.entries_stack.currentWidget() is panel.table
    assert panel.proxy.rowCount() == 8 and panel.proxy.columnCount() == len(COLUMNS)

    totals = {(panel.totals.item(r, 0).text(), panel.totals.item(r, 1).text()):
              [panel.totals.item(r, c).text() for c in range(panel.totals.columnCount())]
              for r in range(panel.totals.rowCount())}
    rel = totals[("mdp:four-startups", "releases (spent)")]
    assert rel[2] == "1" and rel[3].startswith(f"({sweep.privacy[0].epsilon:.4g},")
    assert rel[6] == "not applicable"  # Dirichlet releases are not pure DP
    assert rel[4].startswith("(")  # the tight (PLD) total
    exp = totals[("mdp:four-startups", "seeded experiments (not spent)")]
    assert exp[2] == "9"
    agent = totals[("agent:b", "releases (spent)")]
    assert agent[3] == "(1, 0)" and agent[6].startswith("(")  # zCDP applies to Laplace

    panel.set_filters(dataset="agent:b")
    assert panel.proxy.rowCount() == 4 and panel.totals.rowCount() == 1
    panel.set_filters(mechanism="dirichlet")
    assert panel.proxy.rowCount() == 4
    panel.set_filters(mode="release")
    assert panel.proxy.rowCount() == 5
    panel.set_filters(mechanism="dirichlet", mode="experiment")
    assert [e.id for e in panel.visible_entries()] == ["rel-1", "rel-2", "rel-3"]
    panel.set_filters()
    assert panel.proxy.rowCount() == 8

    panel.budget_dataset.setCurrentText("agent:b")
    panel.budget_eps.setValue(2.0)
    panel.budget_delta.setValue(0.0)
    panel.set_budget_button.click()
    assert doc.project.budgets["agent:b"] == {"epsilon": 2.0, "delta": 0.0}
    bar = panel.bars["agent:b"]
    assert bar.value() == 500 and "ε 1 of 2" in bar.format()
    panel.budget_eps.setValue(0.5)
    panel.set_budget_button.click()
    assert panel.bars["agent:b"].value() == 1000
    assert "EXCEEDED" in panel.bars["agent:b"].toolTip()
    doc.undo_stack.undo()
    assert panel.bars["agent:b"].value() == 500
    panel.clear_budget_button.click()
    assert "agent:b" not in doc.project.budgets and not panel.bars


def test_csv_export_writes_the_rows_shown(panel, example_doc, sweep, tmp_path):
    gl.record_sweep(example_doc, "four-startups", sweep, source="run-1")
    panel.set_filters(mode="experiment")
    out = tmp_path / "ledger.csv"
    assert panel.export_csv(str(out)) == 3
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["id"] for r in rows] == ["rel-1", "rel-2", "rel-3"]
    assert float(rows[0]["epsilon"]) == sweep.privacy[0].epsilon and rows[0]["count"] == "3"


def test_panel_follows_entries_written_by_other_commands(qtbot, panel, example_doc):
    doc = example_doc

    class Foreign(QUndoCommand):  # like a planning run that appends its own entries
        def redo(self):
            doc.project.ledger.append(LedgerEntry(id="rel-1", dataset="agent:c",
                                                  mechanism="laplace", epsilon=0.5))

        def undo(self):
            doc.project.ledger.pop()

    doc.push(Foreign())
    assert panel.proxy.rowCount() == 1 and panel.dataset_combo.findData("agent:c") > 0
    doc.undo_stack.undo()
    assert panel.proxy.rowCount() == 0


def test_damaged_budgets_are_explained(qtbot, example_doc):
    # a damaged ledger is refused when the file is read (tests/core/project); budgets set
    # by a script can still be wrong, and the tab says so instead of showing totals
    example_doc.project.budgets = {"d": {"epsilon": -3}}
    p = LedgerPanel(example_doc)
    qtbot.addWidget(p)
    assert "could not be read" in p.empty_label.text() and "budgets[d]" in p.problem


def test_ledger_is_a_tool_tab(window):
    from gui.shell.tools import TOOLS

    assert TOOLS["ledger"].title == "Privacy Ledger"
    w = window.open_tool("ledger")
    assert isinstance(w, LedgerPanel) and window.tabs.currentWidget() is w


def test_preview_builds(qtbot):
    from gui.ledger import panel as ledger_panel

    w = ledger_panel.preview(exec_=False)
    qtbot.addWidget(w)
    w.show()
    assert w.proxy.rowCount() == 7 and set(w.bars) == {"agent:b", "mdp:four-startups"}


def test_spent_text_for_the_status_bar(example_doc, sweep):
    doc = example_doc
    assert gl.spent_text(doc, "mdp:four-startups") == ""
    gl.set_budget(doc, "mdp:four-startups", (20.0, 0.1))
    assert gl.spent_text(doc, "mdp:four-startups") == "ε spent 0 of 20"
    assert sweep.privacy[1].epsilon > 20  # k = 100: ε ≈ 22
    gl.record_mdp_release(doc, "four-startups", sweep.privacy[1], k=100, seed=None, source="r")
    assert gl.spent_text(doc, "mdp:four-startups").endswith("of 20 — over budget")


def test_status_bar_shows_privacy_spent_against_the_budget(qtbot, tmp_path):
    """docs/conventions.md §8: the status bar shows the privacy spent vs the budget of the
    active dataset."""
    from core.mdp.accounting import mdp_dataset
    from core.project.files import load_project
    from gui.shell.document import ProjectDocument
    from gui.shell.ledger import record_entries, set_budget
    from gui.shell.main_window import MainWindow
    from gui.shell.resources import BUILTIN_PROJECT, asset_path

    doc = ProjectDocument(load_project(asset_path(*BUILTIN_PROJECT)), None)
    window = MainWindow(doc, use_settings=False)
    qtbot.addWidget(window)
    mdp_id = window.active_workspace().mdp_id
    assert "ε spent" not in window.mode_label.text()  # no budget: nothing to show
    set_budget(doc, mdp_dataset(mdp_id), (10.0, 0.1))
    record_entries(doc, [{"dataset": mdp_dataset(mdp_id), "mechanism": "dirichlet",
                          "epsilon": 4.0, "delta": 0.01, "mode": "release", "id": "x"}])
    assert "ε spent 4 of 10" in window.mode_label.text()
    doc.stack("project").undo()  # a recorded spend is not on any undo stack
    assert "ε spent 4 of 10" in window.mode_label.text()
    window.discard_and_close()
