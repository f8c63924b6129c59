"""The Ledger workspace shows releases without a finite ε as "unbounded" with the reason.

never "inf", never 0, never a dropped row; the totals they enter
are unbounded and the budget bar of their dataset is full and marked exceeded.
"""

from __future__ import annotations

import csv
import math

import pytest
from PySide6.QtCore import Qt

from core.privacy.ledger import PrivacyLedger
from gui.ledger.panel import COLUMNS, LedgerPanel
from gui.shell import ledger as gl

WHY = "raw Q-values released (thesis variant)"


@pytest.fixture
def panel(qtbot, example_doc):
    p = LedgerPanel(example_doc)
    qtbot.addWidget(p)
    p.resize(1200, 760)
    p.show()
    return p


def _record(doc):
    led = PrivacyLedger()
    led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, mode="release")
    led.record(dataset="agent:a", mechanism="raw", epsilon=math.inf, reason=WHY, count=2,
               mode="release", released="raw Q-values")
    led.record(dataset="agent:b", mechanism="laplace", epsilon=0.25, mode="release")
    return gl.record_entries(doc, led.entries)


def _cell(panel, row, column, role=Qt.ItemDataRole.DisplayRole):
    return panel.proxy.data(panel.proxy.index(row, COLUMNS.index(column)), role)


def test_the_row_says_unbounded_and_why(panel, example_doc):
    _record(example_doc)
    assert panel.proxy.rowCount() == 3  # nothing dropped
    texts = [_cell(panel, r, "ε") for r in range(3)]
    assert texts == ["0.5", "unbounded", "0.25"]
    tip = _cell(panel, 1, "ε", Qt.ItemDataRole.ToolTipRole)
    assert WHY in tip and "unbounded" in tip
    assert WHY in _cell(panel, 1, "released", Qt.ItemDataRole.ToolTipRole)
    for r in range(3):
        for c in COLUMNS:
            text = str(_cell(panel, r, c) or "")
            assert "inf" not in text.lower() and "∞" not in text


def test_totals_are_unbounded_with_the_reason_below(panel, example_doc):
    _record(example_doc)
    totals = {panel.totals.item(r, 0).text(): [panel.totals.item(r, c).text()
                                               for c in range(panel.totals.columnCount())]
              for r in range(panel.totals.rowCount())}
    assert totals["agent:a"][3] == "(unbounded, 0)" and totals["agent:a"][2] == "3"
    assert totals["agent:b"][3] == "(0.25, 0)"
    view = panel.reasons_view
    assert view.isVisibleTo(panel)
    (line,) = view.lines()  # one line per reason, its entries on demand
    assert WHY in line and "1 entry" in line
    top = view.topLevelItem(0)
    assert not top.isExpanded() and top.child(0).text(0).startswith("rel-2: ")
    assert "rel-2" in top.toolTip(0)
    panel.set_filters(dataset="agent:b")  # the note follows the dataset filter
    assert not view.isVisibleTo(panel)
    panel.set_filters(dataset="agent:a")
    assert view.isVisibleTo(panel)


def test_totals_and_budgets_come_first_and_thirty_reasons_take_one_line(panel, example_doc):
    """the tab was buried under a paragraph of "Unbounded: rel-35 …" reasons and
    its totals table showed one row of thirty."""
    import math

    from core.privacy.ledger import LedgerEntry

    entries = [LedgerEntry(id=f"rel-{i}", dataset=f"agent:u{i}", mechanism="none (raw policy)",
                           epsilon=math.inf, reason="the advice was drawn from the raw policy",
                           time="2026-01-01T00:00:00+00:00") for i in range(1, 31)]
    gl.record_entries(example_doc, entries)
    panel.resize(1000, 700)
    panel.show()
    assert panel.splitter.widget(0).isAncestorOf(panel.totals)  # totals/budgets on top
    assert panel.splitter.widget(1).isAncestorOf(panel.table)
    assert panel.reasons_view.lines() == [
        "Unbounded, 30 entries (30 datasets): the advice was drawn from the raw policy"]
    assert panel.reasons_view.height() < 60
    shown = panel.totals.viewport().height() // panel.totals.rowHeight(0)
    assert panel.totals.rowCount() == 30 and shown >= 5


def test_budget_bar_is_full_and_exceeded(panel, example_doc):
    gl.set_budget(example_doc, "agent:a", (100.0, 0.0))
    gl.set_budget(example_doc, "agent:b", (1.0, 0.0))
    assert panel.bars["agent:a"].value() == 0
    _record(example_doc)
    bar = panel.bars["agent:a"]
    assert bar.value() == 1000
    assert bar.format().startswith("ε unbounded of 100 (exceeded)")
    assert "EXCEEDED" in bar.toolTip() and WHY in bar.toolTip()
    assert "inf" not in bar.format().lower()
    assert panel.bars["agent:b"].value() == 250  # the other dataset is unaffected
    assert gl.spent_text(example_doc, "agent:a") == "ε spent unbounded of 100 — over budget"
    assert gl.spent_text(example_doc, "agent:b") == "ε spent 0.25 of 1"
    reason = gl.privacy_budget_check(example_doc, "agent:a", 0.1)
    assert "unbounded" in reason and "inf" not in reason


def test_csv_writes_unbounded_and_the_reason(panel, example_doc, tmp_path):
    _record(example_doc)
    out = tmp_path / "ledger.csv"
    assert panel.export_csv(str(out)) == 3
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["epsilon"] for r in rows] == ["0.5", "unbounded", "0.25"]
    assert [r["epsilon_reason"] for r in rows] == ["", WHY, ""]
    assert "inf" not in out.read_text(encoding="utf-8").lower()


def test_an_unbounded_privatisation_is_recorded(example_doc):
    """record_mdp_release keeps a privatisation without a guarantee (it was dropped)."""
    from types import SimpleNamespace

    priv = SimpleNamespace(epsilon=math.inf, delta=0.05, not_applicable=[(0, "a")],
                           n_not_applicable=1, rows=[1, 2, 3], n_rows=3, b=0.1,
                           delta_target=0.05, adjacency="one_row",
                           epsilon_reason="row s0/a has 2 outcomes")
    from core.mdp.accounting import ADJACENCY_TEXT

    if "one_row" not in ADJACENCY_TEXT:  # the accountant's adjacency names
        priv.adjacency = next(iter(ADJACENCY_TEXT))
    e = gl.record_mdp_release(example_doc, "four-startups", priv, k=1.0, seed=None,
                              source="r-1")
    assert e is not None and e.unbounded and e.reason == "row s0/a has 2 outcomes"
    assert example_doc.project.ledger[-1].unbounded
