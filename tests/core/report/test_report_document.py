"""The report as a document: footnoted unbounded reasons, the ledger grouped,
the full ledger on request, DP-DRL maps drawn as images, route plans with their preset."""

from __future__ import annotations

import datetime as dt
import math

from core.privacy.ledger import PrivacyLedger
from core.project.model import Project, RunRecord
from core.report.build import _all_ids
from core.report.html import GridImage, Table, build_report, section_titles, to_html
from core.report.model import footnote_unbounded

NOW = dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc)


def ledger_project() -> Project:
    led = PrivacyLedger()
    for agent in "abcd":  # one run releasing to four agents, one reason for all
        led.record(dataset=f"agent:{agent}", mechanism="raw", epsilon=math.inf,
                   reason="the softmax is deterministic", source="run-1: plan")
        led.record(dataset=f"agent:{agent}", mechanism="laplace", epsilon=0.25, count=2,
                   source="run-1: plan")
    for i in range(30):
        led.record(dataset="mdp:m", mechanism="dirichlet", epsilon=1.0 + i, delta=1e-3,
                   mode="experiment", seed=4, source="run-2: sweep")
    p = Project(name="doc")
    p.ledger = led.entries
    return p


def test_footnotes_print_each_reason_once_and_keep_other_cells():
    t = footnote_unbounded(Table(("a", "ε"), (("x", "unbounded (why (nested))"),
                                              ("y", "(unbounded, 0)"), ("z", "unbounded (other)"),
                                              ("w", "unbounded (why (nested))")), note="n."))
    assert [r[1] for r in t.rows] == ["unbounded [1]", "(unbounded, 0)", "unbounded [2]",
                                      "unbounded [1]"]
    assert t.note == "n. [1] why (nested). [2] other."


def test_the_ledger_is_one_row_per_release_group_with_reasons_as_footnotes():
    rep = build_report(ledger_project(), now=NOW)
    (ledger,) = [s for s in rep.sections if s.id == "ledger"]
    groups = next(b for b in ledger.blocks if getattr(b, "title", "") == "Releases by group")
    rows = {(r[0], r[2]): r for r in groups.rows}
    assert len(groups.rows) == 3  # 38 entries -> three groups
    raw = rows[("run-1", "raw")]
    assert raw[1] == "agent:{a, b, c, d} (4)" and raw[4] == "4 / 4"
    assert raw[5] == "unbounded [1]" and groups.note.count("deterministic") == 1
    lap = rows[("run-1", "laplace")]
    # four datasets, each 2 uses of 0.25: one dataset's total, never the sum over datasets
    assert lap[4] == "4 / 8" and float(lap[5]) <= 0.5 + 1e-9 and "per dataset" in lap[7]
    sweep = rows[("run-2", "dirichlet")]
    assert sweep[3] == "experiment (seed 4)" and sweep[5] == f"{sum(range(1, 31)):.4g}"
    assert sweep[7] == "basic"
    assert all("rel-" not in " ".join(r) for r in groups.rows)  # no per-entry rows


def test_the_full_ledger_is_an_appendix_on_request():
    p = ledger_project()
    default = build_report(p, now=NOW)
    assert "ledger-entries" not in [s.id for s in default.sections]
    full = build_report(p, now=NOW, include=["ledger", "ledger-entries"])
    (app,) = [s for s in full.sections if s.id == "ledger-entries"]
    entries = next(b for b in app.blocks if getattr(b, "title", "") == "Entries")
    assert len(entries.rows) == len(p.ledger)
    assert entries.note.count("deterministic") == 1  # four unbounded rows, one footnote
    # the titles listed for the export dialog match the sections a full report builds
    built = build_report(p, now=NOW, include=_all_ids(p))
    assert section_titles(p) == [(s.id, s.title) for s in built.sections]


def test_the_summary_lists_spent_per_dataset_under_basic_and_tight():
    led = PrivacyLedger()
    led.record(dataset="agent:a", mechanism="laplace", epsilon=0.1, count=100)
    led.set_budget("agent:a", 20.0, 1e-5)
    p = Project(name="s")
    p.ledger = led.entries
    p.budgets = {"agent:a": {"epsilon": 20.0, "delta": 1e-5}}
    (overview,) = [s for s in build_report(p, now=NOW).sections if s.id == "overview"]
    spent = next(b for b in overview.blocks if isinstance(b, Table))
    (row,) = spent.rows
    assert row[:3] == ("agent:a", "100", "(10, 0)")
    eps_tight = float(row[3].split(",")[0].strip("("))
    assert eps_tight < 10 and row[3].endswith("PLD") and row[4].endswith("within")


def test_dp_drl_maps_are_drawn_not_printed_as_hashes():
    truth = ["#####", "#S..#", "#.#.#", "#..G#", "#####"]
    got = ["#####", "#S#.#", "#...#", "#..G#", "#####"]
    p = Project(name="drl")
    p.runs.append(RunRecord(
        id="run-1", kind="drl", target="example", params={"defense": "dpdrl", "preset": "strict"},
        summary={"map": "example", "size": [5, 5], "epsilon_total_reason": "seven true bits",
                 "grr": 0.9, "nrr": 0.5, "baseline_nrr": 0.3, "truth": truth, "recovered": got},
        mode="experiment", seed=1, created="2026-01-01"))
    rep = build_report(p, now=NOW)
    (sec,) = [s for s in rep.sections if s.id == "run-run-1"]
    (grid,) = [b for b in sec.blocks if isinstance(b, GridImage)]
    assert dict(grid.panels)["true map"] == tuple(truth) and len(grid.panels) == 2
    assert not any(isinstance(b, Table) and any("#####" in c for r in b.rows for c in r)
                   for b in sec.blocks)
    assert grid in rep.figures()
    html = to_html(rep)
    assert "#####" not in html and html.count("<rect") >= 2 * 25


def test_a_route_plan_names_its_preset_and_epsilon_from_its_parameters():
    p = Project(name="plan")
    p.runs.append(RunRecord(
        id="run-1", kind="plan", target="map-1",
        params={"preset": "sound", "epsilon": 0.5, "comm_budget": 36.0, "approach": "dp"},
        summary={"task": {"origin": "a2", "goal_agent": "f"}, "success": True},
        mode="release", seed=None, created="2026-01-01"))
    (sec,) = [s for s in build_report(p, now=NOW).sections if s.id == "run-run-1"]
    kv = dict(sec.blocks[0].items)
    assert (kv["preset"], kv["ε per agent"], kv["message budget per agent"]) == (
        "sound", "0.5", "36")
