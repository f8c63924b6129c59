"""The privacy ledger: entries, budgets and the three composition accountants."""

from __future__ import annotations

import math

import pytest

from core.common.errors import InputError
from core.privacy.ledger import BudgetExceeded, LedgerEntry, PrivacyLedger, compose


def test_totals_are_the_sum_of_entries_per_dataset():
    led = PrivacyLedger()
    for eps in (0.1, 0.2, 0.3):
        led.record(dataset="a", mechanism="laplace", epsilon=eps, released="q")
    led.record(dataset="b", mechanism="dirichlet", epsilon=2.0, delta=0.05, released="rows")
    assert led.total("a") == (pytest.approx(0.6), 0.0)
    assert led.total("b") == (2.0, 0.05)
    assert led.datasets() == ["a", "b"]
    assert [e.id for e in led.entries] == ["rel-1", "rel-2", "rel-3", "rel-4"]


def test_budget_warns_before_and_refuses_when_enforced():
    led = PrivacyLedger()
    led.set_budget("a", 1.0)
    led.record(dataset="a", mechanism="laplace", epsilon=0.75)
    assert led.would_exceed("a", 0.2) == ""
    msg = led.would_exceed("a", 0.5)
    assert "a:" in msg and "exceeds the budget" in msg
    with pytest.raises(BudgetExceeded):
        led.record(dataset="a", mechanism="laplace", epsilon=0.5, enforce_budget=True)
    assert led.total("a")[0] == 0.75  # the refused release was not recorded
    with pytest.raises(InputError):
        led.set_budget("a", 0.0)


def test_round_trip_through_plain_dicts():
    led = PrivacyLedger()
    led.record(dataset="a", mechanism="exponential", epsilon=0.5, parameters={"sensitivity": 1},
               adjacency="node", released="route", mode="release", source="run-1")
    again = PrivacyLedger.from_list(led.to_list())
    assert again.entries == led.entries
    with pytest.raises(InputError):
        LedgerEntry.from_dict({"id": "x"})


def _entries(eps, delta=0.0, mechanism="laplace"):
    return [LedgerEntry(id=str(i), dataset="d", mechanism=mechanism, epsilon=e, delta=delta)
            for i, e in enumerate(eps)]


def test_advanced_and_zcdp_match_their_formulas():
    eps = [0.05] * 400
    basic, pld, adv, zcdp = compose(_entries(eps), delta_slack=1e-5)
    s2 = sum(e * e for e in eps)
    # the PLD total (at δ' for pure releases) is the tightest of all
    assert pld.method == "PLD" and pld.delta == 1e-5 and pld.epsilon < zcdp.epsilon
    assert basic.epsilon == pytest.approx(20.0)
    assert adv.epsilon == pytest.approx(math.sqrt(2 * math.log(1e5) * s2)
                                        + sum(e * math.expm1(e) for e in eps))
    assert adv.delta == pytest.approx(1e-5)
    rho = s2 / 2
    assert zcdp.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    assert zcdp.applicable and zcdp.epsilon < adv.epsilon < basic.epsilon


def test_zcdp_does_not_apply_to_approximate_dp_releases():
    comps = compose(_entries([1.0, 1.0], delta=0.01, mechanism="dirichlet"))
    assert [c.method for c in comps] == ["basic", "PLD", "advanced", "zCDP"]
    assert not comps[3].applicable
    assert comps[2].delta == pytest.approx(0.02 + 1e-6)
    # PLD at basic's δ = 0.02: the canonical (ε, δ) pairs compose to less than 2
    assert comps[1].delta == pytest.approx(0.02) and comps[1].epsilon < 2.0


def test_huge_epsilons_do_not_overflow():
    basic, pld, adv, _ = compose(_entries([800.0]))
    assert basic.epsilon == 800.0 and adv.epsilon == math.inf
    assert not pld.applicable and "exceeds" in pld.assumption
