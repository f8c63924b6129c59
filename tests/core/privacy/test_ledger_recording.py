"""Ledger recording of MDP privatisations, experiments vs releases, budgets in the project."""

from __future__ import annotations

import json
import logging
import math

import pytest

from core.common.errors import InputError
from core.mdp.accounting import mdp_dataset, mdp_privacy, record_privatization
from core.mdp.examples import four_startups
from core.privacy.ledger import (
    BudgetExceeded,
    LedgerEntry,
    PrivacyLedger,
    budgets_from_dict,
    budgets_to_dict,
    compose,
)
from core.project.files import dumps_project, load_project, project_from_dict, save_project
from core.project.model import Project


def test_record_privatization_makes_one_dirichlet_entry():
    led = PrivacyLedger()
    priv = mdp_privacy(four_startups(), 100, b=0.1, delta_target=0.05, eta=0.01)
    e = record_privatization(led, mdp_id="four-startups", privacy=priv, k=100,
                             mode="release", seed=None, source="run-3")
    assert e is led.entries[0]
    assert (e.dataset, e.mechanism, e.mode, e.count) == ("mdp:four-startups", "dirichlet",
                                                         "release", 1)
    assert (e.epsilon, e.delta) == (priv.epsilon, priv.delta)
    assert "one transition row" in e.adjacency and e.source == "run-3"
    assert e.parameters["k"] == 100 and e.parameters["rows_without_guarantee"] == 0
    assert "privatised transition rows" in e.released
    assert mdp_dataset("x") == "mdp:x"


def test_experiments_are_listed_but_not_spent():
    led = PrivacyLedger()
    priv = mdp_privacy(four_startups(), 10)
    record_privatization(led, mdp_id="m", privacy=priv, k=10, mode="experiment", seed=7,
                         source="run-1", count=50)
    e = led.entries[0]
    assert not e.is_release and e.count == 50 and e.released.startswith("nothing")
    assert led.spent("mdp:m") == (0.0, 0.0)
    assert led.total("mdp:m")[0] == pytest.approx(50 * priv.epsilon)
    led.set_budget("mdp:m", 1.0, 0.1)
    assert led.would_exceed("mdp:m", 0.5, 0.0) == ""  # experiments do not use the budget
    assert "exceeds the budget" in led.would_exceed("mdp:m", 2.0, 0.0)
    with pytest.raises(BudgetExceeded):
        led.record(dataset="mdp:m", mechanism="dirichlet", epsilon=0.6, delta=0.01, count=2,
                   enforce_budget=True)


def test_count_weighs_like_separate_entries():
    many = [LedgerEntry(id=str(i), dataset="d", mechanism="dirichlet", epsilon=0.3,
                        delta=0.001) for i in range(7)]
    one = [LedgerEntry(id="x", dataset="d", mechanism="dirichlet", epsilon=0.3, delta=0.001,
                       count=7)]
    for a, b in zip(compose(many), compose(one)):
        assert (a.method, a.applicable) == (b.method, b.applicable)
        assert a.epsilon == pytest.approx(b.epsilon) and a.delta == pytest.approx(b.delta)


def test_no_guarantee_is_recorded_as_unbounded():
    """A release without a finite guarantee is never free: it is an unbounded entry."""
    from dataclasses import replace

    priv = replace(mdp_privacy(four_startups(), 10), epsilon=math.inf, delta=1.0)
    led = PrivacyLedger()
    e = record_privatization(led, mdp_id="m", privacy=priv, k=10, mode="release",
                             seed=None, source="x")
    assert led.entries == [e] and e.unbounded and e.reason
    assert led.spent("mdp:m")[0] == math.inf
    d = e.to_dict()
    assert d["epsilon"] is None and d["epsilon_reason"] == e.reason
    back = LedgerEntry.from_dict(d)
    assert back.unbounded and back.reason == e.reason
    led.set_budget("mdp:m", 100.0, 0.5)
    assert "unbounded" in led.would_exceed("mdp:m", 0.1)
    with pytest.raises(InputError, match="reason"):
        led.record(dataset="d", mechanism="laplace", epsilon=math.inf)
    with pytest.raises(InputError):
        record_privatization(led, mdp_id="m", privacy=priv, k=10, mode="what-if", seed=None,
                             source="x")


def test_extend_gives_fresh_ids_and_ids_never_repeat():
    led = PrivacyLedger()
    led.record(dataset="a", mechanism="laplace", epsilon=0.1)
    other = PrivacyLedger()
    other.record(dataset="agent:b", mechanism="laplace", epsilon=0.2)
    other.record(dataset="agent:b", mechanism="laplace", epsilon=0.2)
    added = led.extend(other.entries)
    assert [e.id for e in led.entries] == ["rel-1", "rel-2", "rel-3"]
    assert [e.id for e in added] == ["rel-2", "rel-3"]
    del led.entries[1]
    assert led.record(dataset="a", mechanism="laplace", epsilon=0.1).id == "rel-4"


def test_entries_round_trip_and_bad_entries_are_named():
    led = PrivacyLedger()
    led.record(dataset="a", mechanism="laplace", epsilon=0.5, count=3, mode="experiment")
    led.record(dataset="a", mechanism="laplace", epsilon=0.5)
    items = led.to_list()
    assert "count" not in items[1] and items[0]["count"] == 3
    assert PrivacyLedger.from_list(items).entries == led.entries
    with pytest.raises(InputError, match=r"ledger\[x\]"):
        LedgerEntry.from_dict({"id": "x", "dataset": "a", "mechanism": "m", "epsilon": -1})
    with pytest.raises(InputError, match="count"):
        LedgerEntry.from_dict({"id": "x", "dataset": "a", "mechanism": "m", "epsilon": 1,
                               "count": 0})
    with pytest.raises(InputError):
        PrivacyLedger.from_list([3])


def test_budgets_dict_round_trip_and_validation():
    b = {"mdp:m": (2.0, 0.1), "agent:a": (1.0, 0.0)}
    d = budgets_to_dict(b)
    assert list(d) == ["agent:a", "mdp:m"] and d["mdp:m"] == {"epsilon": 2.0, "delta": 0.1}
    assert budgets_from_dict(d) == b
    for bad in ({"x": {"epsilon": 0}}, {"x": {"delta": 0.1}}, {"x": 3}, [],
                {"x": {"epsilon": 1, "delta": 1.0}}, {"x": {"epsilon": True}}):
        with pytest.raises(InputError):
            budgets_from_dict(bad)


def test_budgets_persist_in_the_project_file(tmp_path, caplog):
    p = Project(name="b")
    p.add_mdp(four_startups(), "m")
    led = PrivacyLedger()
    led.set_budget("mdp:m", 3.0, 0.05)
    record_privatization(led, mdp_id="m", privacy=mdp_privacy(four_startups(), 10), k=10,
                         mode="release", seed=None, source="x", time="2026-01-01T00:00:00+00:00")
    p.ledger, p.budgets = led.entries, budgets_to_dict(led.budgets)
    path = tmp_path / "b.privplan.json"
    save_project(p, path)
    with caplog.at_level(logging.WARNING):
        q = load_project(path)
    assert not caplog.records  # a known key: no warning
    assert q == p and PrivacyLedger.from_project(q) == led
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["project"]["budgets"] == {"mdp:m": {"epsilon": 3.0, "delta": 0.05}}
    assert doc["schema_version"] == 2  # an optional key: no schema bump


def test_projects_without_budgets_are_saved_as_before():
    p = Project(name="plain")
    assert "budgets" not in json.loads(dumps_project(p))["project"]


def test_a_damaged_budget_is_refused_with_its_field():
    doc = json.loads(dumps_project(Project(name="x")))
    doc["project"]["budgets"] = {"mdp:m": {"epsilon": -1}}
    with pytest.raises(InputError, match=r"budgets\[mdp:m\]"):
        project_from_dict(doc)
