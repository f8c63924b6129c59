"""The report's ledger tables on pure-DP entries, where every total is a sum computed here:
spent per dataset (uses counted n times, seeded experiments listed and not spent), budgets
within or exceeded, release groups per run, mechanism, mode and family of datasets, and each
unbounded reason footnoted once."""

from __future__ import annotations

import math

import pytest

from core.privacy.ledger import LedgerEntry, PrivacyLedger
from core.report.sections.ledger import (
    _dataset_label,
    _family,
    dataset_totals,
    ledger_totals,
    release_groups,
    unbounded_reasons,
)

T = "2026-01-01T00:00:00Z"


def _e(eid: str, ds: str, eps: float, **kw: object) -> LedgerEntry:
    return LedgerEntry(eid, ds, kw.pop("mechanism", "laplace"), eps, time=T, **kw)  # type: ignore[arg-type]


def _row(table, first: str) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    (row,) = [r for r in table.rows if r[0] == first]
    return row


def test_spent_per_dataset_is_the_sum_of_released_uses() -> None:
    led = PrivacyLedger([
        _e("a", "patients", 0.25, source="run-1"),
        _e("b", "patients", 0.5, count=3, source="run-2"),
        _e("c", "patients", 2.0, mode="experiment", seed=4, source="run-3"),
        _e("d", "visits", 0.125, source="run-1"),
    ], budgets={"patients": (2.0, 0.0), "visits": (0.1, 0.0), "unused": (1.0, 0.0)})
    t = dataset_totals(led)
    p = _row(t, "patients")
    assert p[1] == "4"                       # 1 + 3 released uses; the experiment is not
    assert p[2] == "(1.75, 0)"               # 0.25 + 3 x 0.5
    # the tight column is basic, or PLD where its ε (at its own δ) is smaller
    assert p[3] == "(1.75, 0) basic" or (p[3].endswith(" PLD")
                                         and float(p[3][1:].split(",")[0]) <= 1.75)
    assert p[4] == "(2, 0) within" and p[5] == "1"
    v = _row(t, "visits")
    assert v[2] == "(0.125, 0)" and v[4] == "(0.1, 0) EXCEEDED" and v[5] == "–"
    u = _row(t, "unused")
    assert u[1] == "0" and u[2] == "nothing released" and u[4] == "(1, 0) within"


def test_unbounded_entries_make_their_dataset_unbounded_with_one_footnote() -> None:
    led = PrivacyLedger([
        _e("a", "d1", math.inf, reason="raw Q-values released"),
        _e("b", "d1", math.inf, reason="raw Q-values released"),
        _e("c", "d2", math.inf, reason="no noise"),
        _e("d", "d3", 0.5),
    ])
    t = dataset_totals(led)
    assert _row(t, "d1")[2] == "unbounded [1]" and _row(t, "d1")[3] == "unbounded [1]"
    assert _row(t, "d2")[2] == "unbounded [2]"
    assert _row(t, "d3")[2] == "(0.5, 0)"
    assert t.note.endswith("[1] raw Q-values released. [2] no noise.")
    lines = unbounded_reasons(led)
    assert lines == ["a (laplace, d1): raw Q-values released",
                     "b (laplace, d1): raw Q-values released",
                     "c (laplace, d2): no noise"]
    assert unbounded_reasons(led, "d2") == ["c (laplace, d2): no noise"]


def test_unbounded_reasons_say_uses_and_seeded_experiments() -> None:
    led = PrivacyLedger([_e("x", "d", math.inf, count=4, mode="experiment", seed=1)])
    assert unbounded_reasons(led) == [
        "x (laplace, d, 4 uses) [seeded experiment, not spent]: no finite bound"]
    assert unbounded_reasons(led, modes=("release",)) == []


def test_release_groups_split_by_run_mechanism_mode_and_family() -> None:
    led = PrivacyLedger([
        _e("a", "agent:b", 0.5, source="run-1: agent b"),
        _e("b", "agent:c", 0.75, source="run-1: agent c"),
        _e("c", "agent:c", 0.25, source="run-1: agent c again"),
        _e("d", "patients", 0.5, source="run-1", mechanism="gaussian-free"),
        _e("e", "patients", 1.0, source="run-2", mode="experiment", seed=7),
        _e("f", "patients", 1.0, source="", mode="experiment", seed=3),
    ])
    table, notes = release_groups(led)
    assert notes == []
    rows = {(r[0], r[2], r[3]): r for r in table.rows}
    agents = rows[("run-1", "laplace", "release")]
    assert agents[1] == "agent:{b, c} (2)"
    assert agents[4] == "3 / 3"
    # per dataset: b spent 0.5, c spent 0.75 + 0.25 = 1; the largest is shown
    assert agents[5] == "1" and agents[7] == "basic per dataset, largest"
    assert rows[("run-2", "laplace", "experiment (seed 7)")][5] == "1"
    assert ("–", "laplace", "experiment (seed 3)") in rows
    assert rows[("run-1", "gaussian-free", "release")][1] == "patients"


def test_a_group_of_unbounded_entries_cites_each_reason_once() -> None:
    led = PrivacyLedger([_e("a", "d", math.inf, reason="why 1", source="run-1"),
                         _e("b", "d", math.inf, reason="why 2", source="run-1"),
                         _e("c", "e", math.inf, reason="why 1", source="run-2")])
    table, notes = release_groups(led)
    assert [r[5] for r in table.rows] == ["unbounded [1][2]", "unbounded [1]"]
    assert notes == ["[1] why 1.", "[2] why 2."]
    assert all(r[7] == "–" for r in table.rows)


@pytest.mark.parametrize("datasets,label", [
    (["patients"], "patients"),
    (["agent:a", "agent:b"], "agent:{a, b} (2)"),
    ([f"agent:{c}" for c in "abcdef"], "agent:{a … f} (6)"),
    (["advising:exp1:u1", "advising:exp1:u2"], "advising:exp1:{u1, u2} (2)"),
])
def test_dataset_labels_name_the_family_and_the_members(datasets: list, label: str) -> None:
    assert _dataset_label(datasets) == label


def test_family_drops_only_the_last_part() -> None:
    assert _family("advising:exp1:u3") == "advising:exp1"
    assert _family("agent:b") == "agent" and _family("plain") == "plain"


def test_ledger_totals_list_releases_and_experiments_separately() -> None:
    led = PrivacyLedger([_e("a", "d", 0.5), _e("b", "d", 0.25, count=2),
                         _e("c", "d", 3.0, mode="experiment", seed=1)],
                        budgets={"d": (0.9, 0.0)})
    table, assumptions = ledger_totals(led)
    spent = [r for r in table.rows if r[1] == "releases (spent)"]
    seeded = [r for r in table.rows if r[1] == "seeded experiments (not spent)"]
    assert len(spent) == 1 and len(seeded) == 1
    assert spent[0][2] == "3" and spent[0][3] == "(1, 0)"          # 0.5 + 2 x 0.25
    assert spent[0][-1] == "(0.9, 0) — EXCEEDED"
    assert seeded[0][2] == "1" and seeded[0][3] == "(3, 0)" and seeded[0][-1] == "–"
    assert [k for k, _ in assumptions][0] == "basic"
    assert table.note == ""  # nothing unbounded
