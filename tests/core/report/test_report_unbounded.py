"""Reports show releases without a finite ε as "unbounded" with the reason.

Never "inf"/"∞", never 0, never a dropped row: the entry row, the totals, the overview's
"Privacy spent" and the budget all say so.
"""

from __future__ import annotations

import datetime as dt
import math

from core.privacy.ledger import PrivacyLedger
from core.project.model import Project, RunRecord
from core.report.html import build_report, ledger_totals, to_html, unbounded_reasons

NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
WHY = "raw Q-values released (thesis variant)"


def project_with_an_unbounded_release() -> Project:
    led = PrivacyLedger()
    led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, released="noisy Q",
               time="2026-01-01T00:00:00+00:00")
    led.record(dataset="agent:a", mechanism="raw", epsilon=math.inf, reason=WHY,
               released="raw Q", count=3, time="2026-01-01T00:00:00+00:00")
    led.record(dataset="agent:b", mechanism="laplace", epsilon=0.25, released="noisy Q",
               time="2026-01-01T00:00:00+00:00")
    led.record(dataset="agent:c", mechanism="raw", epsilon=math.inf, reason="seeded test",
               mode="experiment", seed=3, time="2026-01-01T00:00:00+00:00")
    led.set_budget("agent:a", 10.0, 0.0)
    led.set_budget("agent:b", 1.0, 0.0)
    p = Project(name="unbounded")
    p.ledger = led.entries
    assert p.ledger[1].to_dict()["epsilon"] is None
    assert p.ledger[1].to_dict()["epsilon_reason"] == WHY
    p.budgets = {ds: {"epsilon": e, "delta": d} for ds, (e, d) in led.budgets.items()}
    return p


def _section(rep, sid):
    return next(s for s in rep.sections if s.id == sid)


def _table(sec, title):
    return next(b for b in sec.blocks if getattr(b, "title", "") == title)


def test_entries_table_keeps_the_row_and_says_why():
    rep = build_report(project_with_an_unbounded_release(), now=NOW,
                       include=["ledger-entries"])
    entries = _table(_section(rep, "ledger-entries"), "Entries")
    assert len(entries.rows) == 4  # nothing dropped
    raw = next(r for r in entries.rows if r[0] == "rel-2")
    assert raw[3] == "unbounded [1]" and raw[5] == "3" and f"[1] {WHY}." in entries.note
    finite = next(r for r in entries.rows if r[0] == "rel-1")
    assert finite[3] == "0.5"


def test_totals_are_unbounded_and_the_budget_exceeded():
    rep = build_report(project_with_an_unbounded_release(), now=NOW,
                       include=["ledger-entries"])
    totals = _table(_section(rep, "ledger-entries"), "Totals per protected dataset")
    rows = {(r[0], r[1]): r for r in totals.rows}
    a = rows[("agent:a", "releases (spent)")]
    assert a[2] == "4"  # 1 + 3 uses
    assert a[3] == "(unbounded, 0)" and a[4].startswith("(unbounded,")  # PLD too
    assert a[5].startswith("(unbounded,")
    assert a[6] == "not applicable"  # a raw release is not pure DP
    assert a[7].endswith("EXCEEDED")
    b = rows[("agent:b", "releases (spent)")]
    assert b[3] == "(0.25, 0)" and b[7].endswith("within")  # other datasets unaffected
    c = rows[("agent:c", "seeded experiments (not spent)")]
    assert c[3] == "(unbounded, 0)"
    assert WHY in totals.note and "rel-2" in totals.note and "seeded test" in totals.note


def test_overview_privacy_spent_is_unbounded_with_the_reason():
    rep = build_report(project_with_an_unbounded_release(), now=NOW)
    spent = _table(_section(rep, "overview"), "Privacy spent per protected dataset")
    rows = {r[0]: r for r in spent.rows}
    assert rows["agent:a"][1:4] == ("4", "unbounded [1]", "unbounded [1]")
    assert rows["agent:a"][4].endswith("EXCEEDED")
    assert rows["agent:b"][2] == "(0.25, 0)" and rows["agent:b"][4].endswith("within")
    # the seeded experiment is not spent: its uses are counted apart
    assert rows["agent:c"][1:3] == ("0", "nothing released") and rows["agent:c"][5] == "1"
    assert f"[1] {WHY}." in spent.note and "seeded test" not in spent.note
    # the ledger's release groups: one row per run/mechanism/mode, each reason once
    groups = _table(_section(rep, "ledger"), "Releases by group")
    raw = next(r for r in groups.rows if r[2] == "raw" and r[3] == "release")
    assert raw[5].startswith("unbounded [") and groups.note.count(WHY) == 1


def test_html_never_prints_inf_or_infinity():
    html = to_html(build_report(project_with_an_unbounded_release(), now=NOW))
    assert "unbounded" in html and WHY in html
    for bad in ("inf,", "(inf", "Infinity", "∞", "nan"):
        assert bad not in html, bad


def test_unbounded_reasons_by_dataset_and_mode():
    led = PrivacyLedger.from_project(project_with_an_unbounded_release())
    assert unbounded_reasons(led, "agent:b") == []
    (line,) = unbounded_reasons(led, "agent:a")
    assert line == f"rel-2 (raw, agent:a, 3 uses): {WHY}"
    assert len(unbounded_reasons(led)) == 2
    assert unbounded_reasons(led, modes=("release",)) == [line]
    table, _ = ledger_totals(led)
    assert table.note.count("rel-") == 2


def test_sweep_and_advise_sections_show_unbounded_not_a_dash():
    p = Project(name="runs")
    p.runs.append(RunRecord(
        id="run-1", kind="sweep", target="m", params={}, mode="experiment", seed=1,
        created="2026-01-01",
        summary={"k": [0.5, 100.0], "epsilon": [None, 12.5],
                 "epsilon_reason": ["3 of 8 rows have no DP guarantee", None],
                 "delta": [0.05, 0.05], "alpha": [0.1, 0.1],
                 **{f"{q}_{m}": [0.0, 0.0] for q in ("v_lower", "v_private", "v_true",
                                                    "v_upper", "cost_bound", "cost_empirical")
                    for m in ("mean", "sd")}}))
    p.runs.append(RunRecord(
        id="run-2", kind="advise", target="advising", params={}, mode="experiment", seed=1,
        created="2026-01-01",
        summary={"agents": ["a", "b"], "privacy": {
            "releases": [4, 2], "unprotected": [2, 0], "basic": [None, 0.5],
            "basic_reason": [WHY, None], "advanced": [None, 0.6],
            "advanced_reason": [WHY, None], "rdp": [None, 0.4], "rdp_reason": [WHY, None]}}))
    rep = build_report(p, now=NOW)
    sweep = _section(rep, "run-run-1")
    priv = next(b for b in sweep.blocks if getattr(b, "title", "").startswith("Privacy of"))
    assert priv.rows[0][1] == "unbounded [1]"
    assert "[1] 3 of 8 rows have no DP guarantee." in priv.note
    assert priv.rows[1][1] == "12.5"
    adv = _table(_section(rep, "run-run-2"), "Privacy per teacher (true ε)")
    assert adv.rows[0][3:] == ("unbounded [1]",) * 3 and adv.note.count(WHY) == 1
    assert adv.rows[1][3] == "0.5"


def test_a_membership_study_s_unresolved_tpr_reads_not_resolved_with_the_reason():
    """The report's TPR at FPR 0.1 % of a 224-non-member study is not a number (one false
    positive needs 1,000 non-members) — in a new record (null + reason) and in one written
    before the rule (the value 0.0089 stored)."""
    why = "an FPR of 0.001 needs at least 1,000 non-members for one false positive; " \
          "the study has 224"
    base = {"members": 224, "shadows": 4, "epsilon": None, "epsilon_reason": "no defense",
            "defense": "none", "attack_accuracy": 0.52, "auc": 0.53, "roc": []}
    for tpr, reasons in (({"0.001": None, "0.01": 0.0134}, {"0.001": why}),
                         ({"0.001": 0.008928571428571428, "0.01": 0.0134}, None)):
        summary = dict(base, tpr_at_fpr=tpr)
        if reasons:
            summary["tpr_at_fpr_reason"] = reasons
        p = Project(name="mia")
        p.runs.append(RunRecord(id="run-1", kind="mia", target="digits",
                                params={"victim": "ffnn", "defense": "none"},
                                summary=summary, mode="experiment", seed=1))
        text = to_html(build_report(p, now=NOW))
        assert f"TPR@FPR 0.001: not resolved ({why})" in text
        assert "TPR@FPR 0.01: 0.0134" in text and "0.008929" not in text
