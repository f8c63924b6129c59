"""core.report.sections.ledger: the report's ledger tables total each protected dataset by
the accountant they name, keep seeded experiments apart (listed, not spent), and give every
unbounded total its reason once."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from core.privacy.ledger import PrivacyLedger
from core.report.model import Paragraph, Table
from core.report.sections.ledger import (
    _dataset_label,
    _family,
    _ledger_entries_section,
    _ledger_section,
    dataset_totals,
    ledger_totals,
    release_groups,
    unbounded_reasons,
)


def _ledger() -> PrivacyLedger:
    led = PrivacyLedger()
    led.record(dataset="agent:a", mechanism="laplace", epsilon=0.5, source="run-1:plan",
               adjacency="one edge")
    led.record(dataset="agent:a", mechanism="laplace", epsilon=0.25, source="run-1:plan",
               count=2)
    led.record(dataset="agent:b", mechanism="laplace", epsilon=1.0, source="run-1:plan")
    led.record(dataset="mdp:m1", mechanism="dirichlet", epsilon=math.inf,
               reason="a row has one possible next state missing", source="run-2")
    led.record(dataset="mdp:m1", mechanism="dirichlet", epsilon=2.0, delta=1e-3,
               mode="experiment", seed=7, source="run-3", count=5)
    led.set_budget("agent:a", 1.5, 0.0)
    led.set_budget("agent:b", 0.5, 0.0)
    return led


def test_family_and_dataset_labels() -> None:
    assert _family("advising:exp1:u3") == "advising:exp1" and _family("agent") == "agent"
    assert _dataset_label(["agent:a"]) == "agent:a"
    assert _dataset_label(["agent:a", "agent:b"]) == "agent:{a, b} (2)"
    many = [f"agent:{c}" for c in "abcdef"]
    assert _dataset_label(many) == "agent:{a … f} (6)"


def test_unbounded_reasons_name_each_entry_and_its_mode() -> None:
    led = _ledger()
    assert unbounded_reasons(led) == [
        "rel-4 (dirichlet, mdp:m1): a row has one possible next state missing"]
    assert unbounded_reasons(led, "agent:a") == []
    led.record(dataset="mdp:m1", mechanism="dirichlet", epsilon=math.inf, mode="experiment",
               seed=1, reason="why", count=3)
    line = unbounded_reasons(led, "mdp:m1", modes=("experiment",))[0]
    assert "3 uses" in line and "[seeded experiment, not spent]" in line and line.endswith(
        ": why")


def test_release_groups_total_per_dataset_and_footnote_unbounded_once() -> None:
    table, notes = release_groups(_ledger())
    rows = {(r[0], r[2], r[3].split(" ")[0]): r for r in table.rows}
    agents = rows[("run-1", "laplace", "release")]
    assert agents[1] == "agent:{a, b} (2)"
    assert agents[4] == "3 / 4"  # three entries, four uses
    # the largest dataset's total: agent:a spent 0.5 + 2 x 0.25 = 1.0 = agent:b's 1.0
    assert agents[5] == "1" and agents[7].endswith("per dataset, largest")
    unbounded = rows[("run-2", "dirichlet", "release")]
    assert unbounded[5] == "unbounded [1]" and unbounded[7] == "–"
    seeded = rows[("run-3", "dirichlet", "experiment")]
    assert seeded[3] == "experiment (seed 7)" and seeded[5] == "10"  # basic: 5 x 2
    assert seeded[7] == "basic"
    assert notes == ["[1] a row has one possible next state missing."]
    assert notes[0] in table.note


def test_dataset_totals_spend_releases_only_and_check_budgets() -> None:
    table = dataset_totals(_ledger())
    rows = {r[0]: r for r in table.rows}
    assert rows["agent:a"][1] == "3" and rows["agent:a"][2] == "(1, 0)"
    assert rows["agent:a"][4] == "(1.5, 0) within"
    assert rows["agent:b"][4] == "(0.5, 0) EXCEEDED"
    assert rows["mdp:m1"][2] == "unbounded [1]" and rows["mdp:m1"][5] == "5"
    assert "[1] a row has one possible next state missing." in table.note
    assert rows["agent:a"][5] == "–"


def test_ledger_totals_split_releases_from_seeded_experiments() -> None:
    table, assumptions = ledger_totals(_ledger())
    labels = [(r[0], r[1]) for r in table.rows]
    assert ("mdp:m1", "seeded experiments (not spent)") in labels
    assert ("agent:a", "releases (spent)") in labels
    assert all(isinstance(a, tuple) and len(a) == 2 for a in assumptions)
    assert {name for name, _ in assumptions} >= {"basic"}


def test_sections_on_an_empty_and_a_full_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    full, empty = _ledger(), PrivacyLedger()
    monkeypatch.setattr(PrivacyLedger, "from_project",
                        classmethod(lambda cls, p: p.led))  # type: ignore[arg-type]
    sec = _ledger_section(SimpleNamespace(led=empty))
    assert [b.text.startswith("No releases are recorded") for b in sec.blocks
            if isinstance(b, Paragraph)] == [True]
    sec = _ledger_section(SimpleNamespace(led=full))
    titles = [b.title for b in sec.blocks if isinstance(b, Table)]
    assert titles == ["Releases by group", "Adjacency assumed"]
    assert any(isinstance(b, Paragraph) and "not counted as spent" in b.text
               for b in sec.blocks)
    app = _ledger_entries_section(SimpleNamespace(led=full))
    entries = next(b for b in app.blocks if isinstance(b, Table) and b.title == "Entries")
    assert len(entries.rows) == 5
    assert entries.rows[4][6] == "experiment (seed 7)" and entries.rows[3][3].startswith(
        "unbounded")


def test_an_unreadable_ledger_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(cls, project):  # type: ignore[no-untyped-def]
        raise ValueError("entry 3 has no dataset")

    monkeypatch.setattr(PrivacyLedger, "from_project", classmethod(broken))
    sec = _ledger_section(SimpleNamespace())
    assert isinstance(sec.blocks[0], Paragraph)
    assert sec.blocks[0].text == "The ledger could not be read: entry 3 has no dataset"
