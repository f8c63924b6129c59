"""core.privacy.ledger: what a ledger entry accepts (each refusal naming its field), how
budgets are checked at their edges, which modes count as spent, and the composition
totals' invariants (every tighter accountant at most basic composition, the PLD read at
the δ the docstring promises, an unbounded entry making every total unbounded).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from dp_accounting.pld import privacy_loss_distribution  # noqa: F401 - slow import, at collection

from core.common.errors import InputError
from core.privacy.ledger import (
    BudgetExceeded,
    LedgerEntry,
    PrivacyLedger,
    budgets_from_dict,
    budgets_to_dict,
    compose,
    release_modes,
)


def _entry(**kw: Any) -> dict[str, Any]:
    base = {"id": "rel-1", "dataset": "mdp:x", "mechanism": "laplace", "epsilon": 0.5}
    base.update(kw)
    return base


# ---------------------------------------------------------------- entries


@pytest.mark.parametrize("bad, words", [
    ({"id": "  "}, "non-empty"),
    ({"released": 3}, "released must be a string"),
    ({"mode": None}, "mode must be a string"),
    ({"time": 12}, "time must be a string"),
    ({"parameters": []}, "parameters must be an object"),
    ({"seed": True}, "seed must be an integer"),
    ({"seed": 1.5}, "seed must be an integer"),
    ({"epsilon": "0.5"}, "epsilon must be a number"),
    ({"delta": False}, "delta must be a number"),
    ({"epsilon": -0.1}, "invalid (epsilon, delta)"),
    ({"epsilon": math.nan}, "invalid (epsilon, delta)"),
    ({"delta": 1.5}, "invalid (epsilon, delta)"),
    ({"count": 0}, "count must be an integer >= 1"),
    ({"count": 2.0}, "count must be an integer >= 1"),
    ({"count": True}, "count must be an integer >= 1"),
])
def test_from_dict_refuses_each_bad_field_naming_the_entry(bad: dict, words: str) -> None:
    with pytest.raises(InputError) as info:
        LedgerEntry.from_dict(_entry(**bad))
    assert words in info.value.problem
    assert info.value.field in ("ledger[rel-1]", "ledger.id")


@pytest.mark.parametrize("d, words", [
    ([1, 2], "an object is needed, got list"),
    ({"id": "x"}, "missing dataset, mechanism, epsilon"),
    (_entry(dataset=5), "must be strings"),
    (_entry(unknown_key=1, id=3), "must be strings"),
])
def test_from_dict_refuses_malformed_entries(d: Any, words: str) -> None:
    with pytest.raises(InputError) as info:
        LedgerEntry.from_dict(d)
    assert info.value.field == "ledger" and words in info.value.problem


def test_from_dict_ignores_unknown_keys_and_keeps_the_rest() -> None:
    e = LedgerEntry.from_dict(_entry(future_field="x", seed=7, count=3, mode="experiment"))
    assert (e.seed, e.count, e.mode, e.is_release) == (7, 3, "experiment", False)


def test_unbounded_entries_round_trip_through_json() -> None:
    e = LedgerEntry(id="rel-9", dataset="d", mechanism="raw", epsilon=math.inf,
                    reason="raw Q-values released", time="2026-01-01T00:00:00+00:00")
    d = e.to_dict()
    assert d["epsilon"] is None and d["epsilon_reason"] == "raw Q-values released"
    text = json.dumps(d, allow_nan=False)  # strict JSON
    back = LedgerEntry.from_dict(json.loads(text))
    assert back.unbounded and back.reason == "raw Q-values released" and back == e


def test_null_epsilon_without_any_reason_gets_a_generic_one() -> None:
    e = LedgerEntry.from_dict(_entry(epsilon=None))
    assert e.unbounded and e.reason == "no finite bound"


def test_to_dict_leaves_out_defaults_that_older_files_lack() -> None:
    d = LedgerEntry(id="a", dataset="d", mechanism="m", epsilon=1.0).to_dict()
    assert "count" not in d and "reason" not in d and "epsilon_reason" not in d
    d2 = LedgerEntry(id="a", dataset="d", mechanism="m", epsilon=1.0, count=4).to_dict()
    assert d2["count"] == 4


def test_record_refuses_bad_numbers_naming_epsilon_and_unbounded_without_reason() -> None:
    led = PrivacyLedger()
    for eps, delta in ((math.nan, 0.0), (-1.0, 0.0), (1.0, -0.1), (1.0, 2.0)):
        with pytest.raises(InputError) as info:
            led.record(dataset="d", mechanism="m", epsilon=eps, delta=delta)
        assert info.value.field == "epsilon"
    with pytest.raises(InputError, match="needs a reason"):
        led.record(dataset="d", mechanism="m", epsilon=math.inf)
    assert led.entries == []


def test_ids_continue_after_the_largest_and_ignore_foreign_ones() -> None:
    led = PrivacyLedger.from_list([_entry(id="rel-7"), _entry(id="imported-x")])
    assert led.next_id() == "rel-8"
    led2 = PrivacyLedger.from_list([_entry(id="a"), _entry(id="b"), _entry(id="c")])
    assert led2.next_id() == "rel-4"  # never below the number of entries
    e = led2.record(dataset="d", mechanism="m", epsilon=0.1)
    assert e.id == "rel-4" and len({x.id for x in led2.entries}) == 4


def test_from_list_refuses_a_non_list() -> None:
    with pytest.raises(InputError) as info:
        PrivacyLedger.from_list({"id": "x"})  # type: ignore[arg-type]
    assert info.value.field == "ledger"


# ---------------------------------------------------------------- modes and budgets


def test_release_modes_count_every_non_experiment_mode() -> None:
    es = [LedgerEntry(id=str(i), dataset="d", mechanism="m", epsilon=1.0, mode=m)
          for i, m in enumerate(["experiment", "import", "release"])]
    assert release_modes(es) == ("import", "release")
    assert release_modes([]) == ("release",)
    led = PrivacyLedger(entries=es)
    assert led.spent("d") == (2.0, 0.0) and led.total("d") == (3.0, 0.0)
    assert led.total("d", modes=("experiment",)) == (1.0, 0.0)
    assert [e.mode for e in led.select(modes=("import",))] == ["import"]


def test_totals_weigh_counts_and_cap_delta_at_one() -> None:
    led = PrivacyLedger()
    led.record(dataset="d", mechanism="m", epsilon=0.1, delta=0.3, count=5)
    assert led.total("d") == (pytest.approx(0.5), 1.0)
    assert led.total("other") == (0.0, 0.0)


def test_would_exceed_allows_an_exact_fit_and_refuses_a_hair_more() -> None:
    led = PrivacyLedger()
    led.set_budget("d", 1.0, 1e-5)
    led.record(dataset="d", mechanism="m", epsilon=0.3)
    led.record(dataset="d", mechanism="m", epsilon=0.3, mode="experiment", count=100)
    assert led.would_exceed("d", 0.7) == ""          # 0.3 + 0.7 = 1.0: fits
    assert led.would_exceed("d", 0.7, 1e-5) == ""
    assert "exceeds the budget (1, 1e-05)" in led.would_exceed("d", 0.7 + 1e-9)
    assert led.would_exceed("d", 0.1, 2e-5) != ""    # δ alone can exceed
    assert led.would_exceed("no-budget", 1e9) == ""


def test_would_exceed_names_an_unbounded_spend() -> None:
    led = PrivacyLedger()
    led.set_budget("d", 5.0)
    led.record(dataset="d", mechanism="raw", epsilon=math.inf, reason="raw data")
    msg = led.would_exceed("d", 0.1)
    assert "spent (unbounded, 0)" in msg


def test_enforced_record_counts_the_entrys_count() -> None:
    led = PrivacyLedger()
    led.set_budget("d", 1.0)
    with pytest.raises(BudgetExceeded) as info:
        led.record(dataset="d", mechanism="m", epsilon=0.3, count=4, enforce_budget=True)
    assert info.value.field == "budget" and led.entries == []
    # a seeded experiment is never refused: it spends nothing
    led.record(dataset="d", mechanism="m", epsilon=30.0, mode="experiment",
               enforce_budget=True)
    assert len(led.entries) == 1


def test_release_problems_sum_releases_per_dataset() -> None:
    led = PrivacyLedger(budgets={"a": (1.0, 0.0), "b": (1.0, 0.0)})
    new = [LedgerEntry(id="", dataset="a", mechanism="m", epsilon=0.6),
           LedgerEntry(id="", dataset="a", mechanism="m", epsilon=0.6),   # 1.2 > 1
           LedgerEntry(id="", dataset="b", mechanism="m", epsilon=0.6),
           LedgerEntry(id="", dataset="b", mechanism="m", epsilon=9.0, mode="experiment"),
           LedgerEntry(id="", dataset="c", mechanism="m", epsilon=99.0)]  # no budget
    problems = led.release_problems(new)
    assert len(problems) == 1 and problems[0].startswith("a: ")
    assert "this release (1.2, 0)" in problems[0]


@pytest.mark.parametrize("eps, delta", [(0.0, 0.0), (-1.0, 0.0), (math.inf, 0.0),
                                        (math.nan, 0.0), (1.0, 1.0), (1.0, -0.1)])
def test_set_budget_refuses_naming_budget(eps: float, delta: float) -> None:
    with pytest.raises(InputError) as info:
        PrivacyLedger().set_budget("d", eps, delta)
    assert info.value.field == "budget"


def test_clear_budget_and_datasets_include_budgets_without_entries() -> None:
    led = PrivacyLedger()
    led.set_budget("only-budget", 2.0)
    led.record(dataset="z", mechanism="m", epsilon=0.1)
    assert led.datasets() == ["only-budget", "z"] and led.mechanisms() == ["m"]
    led.clear_budget("only-budget")
    led.clear_budget("never-had-one")
    assert led.datasets() == ["z"]


def test_budgets_dict_round_trip_is_sorted() -> None:
    b = {"zeta": (2.0, 0.0), "alpha": (0.5, 1e-6)}
    d = budgets_to_dict(b)
    assert list(d) == ["alpha", "zeta"]
    assert budgets_from_dict(json.loads(json.dumps(d))) == b
    assert budgets_from_dict({"x": {"epsilon": 1}}) == {"x": (1.0, 0.0)}


@pytest.mark.parametrize("d, field", [
    ([], "budgets"),
    ({"ds": 1.0}, "budgets[ds]"),
    ({"ds": {"delta": 0.1}}, "budgets[ds]"),
    ({"ds": {"epsilon": "1"}}, "budgets[ds]"),
    ({"ds": {"epsilon": True}}, "budgets[ds]"),
    ({"ds": {"epsilon": 1.0, "delta": None}}, "budgets[ds]"),
    ({"ds": {"epsilon": 0.0}}, "budgets[ds]"),
    ({"ds": {"epsilon": math.inf}}, "budgets[ds]"),
    ({"ds": {"epsilon": 1.0, "delta": 1.0}}, "budgets[ds]"),
])
def test_budgets_from_dict_names_the_dataset(d: Any, field: str) -> None:
    with pytest.raises(InputError) as info:
        budgets_from_dict(d)
    assert info.value.field == field


# ---------------------------------------------------------------- compositions


def _laplace(eps: list[float], count: int = 1) -> list[LedgerEntry]:
    return [LedgerEntry(id=str(i), dataset="d", mechanism="laplace", epsilon=e, count=count)
            for i, e in enumerate(eps)]


def test_compose_of_nothing_is_basic_zero_only() -> None:
    out = compose([])
    assert [(c.method, c.epsilon, c.delta) for c in out] == [("basic", 0.0, 0.0)]


@pytest.mark.parametrize("slack", [0.0, 1.0, -1e-6, 2.0])
def test_compose_refuses_a_bad_slack(slack: float) -> None:
    with pytest.raises(InputError) as info:
        compose(_laplace([0.1]), delta_slack=slack)
    assert info.value.field == "delta_slack"


@pytest.mark.parametrize("eps, count", [([0.34375], 1), ([0.05, 0.3], 10), ([1.5, 0.2], 3)])
def test_every_accountant_is_at_most_basic_up_to_the_grid(eps: list[float], count: int) -> None:
    basic, pld, adv, zcdp = compose(_laplace(eps, count))
    assert basic.epsilon == pytest.approx(count * sum(eps))
    assert zcdp.applicable and pld.applicable
    # the PLD rounds every loss up to its grid (h >= 1e-4 per release): it may sit above
    # basic composition by at most one grid step per release, never more
    releases = count * len(eps)
    h = max(1e-4, max(eps) / 4096)
    assert pld.epsilon <= basic.epsilon + releases * h
    # and it is never above the other two accountants (read at the same δ')
    assert pld.epsilon <= min(adv.epsilon, zcdp.epsilon) + releases * h


def test_pld_is_read_at_basic_delta_at_slack_or_at_the_largest_delta() -> None:
    pure = compose(_laplace([0.2, 0.3]), delta_slack=1e-7)
    assert pure[1].delta == 1e-7
    approx = [LedgerEntry(id="a", dataset="d", mechanism="dirichlet", epsilon=1.0,
                          delta=1e-4, count=3)]
    assert compose(approx)[1].delta == pytest.approx(3e-4)
    saturated = [LedgerEntry(id="a", dataset="d", mechanism="x", epsilon=1.0, delta=0.4),
                 LedgerEntry(id="b", dataset="d", mechanism="x", epsilon=1.0, delta=0.7)]
    comps = compose(saturated)
    assert comps[0].delta == 1.0 and comps[1].delta == 0.7
    assert compose(_laplace([0.2]), delta=0.01)[1].delta == 0.01


def test_compositions_read_the_pld_at_the_budget_delta() -> None:
    led = PrivacyLedger()
    for _ in range(3):
        led.record(dataset="d", mechanism="laplace", epsilon=0.5)
    led.set_budget("d", 10.0, 1e-3)
    assert led.compositions("d")[1].delta == 1e-3
    assert led.compositions("d", delta=1e-2)[1].delta == 1e-2
    led.set_budget("d", 10.0, 0.0)  # δ = 0 budget: the default rule applies
    assert led.compositions("d", delta_slack=1e-8)[1].delta == 1e-8


def test_an_unbounded_entry_makes_every_total_unbounded() -> None:
    es = _laplace([0.1, 0.2]) + [LedgerEntry(id="x", dataset="d", mechanism="laplace",
                                             epsilon=math.inf, reason="raw")]
    basic, pld, adv, zcdp = compose(es)
    assert basic.epsilon == pld.epsilon == adv.epsilon == zcdp.epsilon == math.inf


def test_zcdp_needs_every_entry_pure() -> None:
    mixed = _laplace([0.1]) + [LedgerEntry(id="g", dataset="d", mechanism="gaussian",
                                           epsilon=0.1)]
    assert not compose(mixed)[3].applicable
    exp = [LedgerEntry(id="e", dataset="d", mechanism="exponential", epsilon=0.1)]
    assert compose(exp)[3].applicable
    with_delta = [LedgerEntry(id="l", dataset="d", mechanism="laplace", epsilon=0.1,
                              delta=1e-9)]
    assert not compose(with_delta)[3].applicable


@pytest.mark.parametrize("eps, count, delta", [
    (0.1, 1, 0.0), (1.0, 1, 1e-5), (0.3, 3, 1e-6), (0.2, 1, 1e-3), (0.05, 3, 0.0)])
def test_the_pld_total_never_sits_above_basic_composition_where_both_hold(
        eps: float, count: int, delta: float) -> None:
    """Basic composition is (Σε, Σδ)-DP; the PLD total is read at a δ ≥ Σδ, where basic
    holds too, so the smaller of the two is reported (an (ε, δ) release read at exactly its
    δ used to total to an unbounded PLD ε beside a finite basic one)."""
    mech = "laplace" if delta == 0 else "gaussian"
    es = [LedgerEntry(id="x", dataset="d", mechanism=mech, epsilon=eps, delta=delta,
                      count=count)]
    basic, pld = compose(es)[:2]
    assert pld.method == "PLD" and pld.applicable and basic.delta <= pld.delta
    assert pld.epsilon <= basic.epsilon
    if delta > 0:  # these read unbounded before: the cap says where it comes from
        assert pld.epsilon == basic.epsilon and "capped at basic" in pld.assumption


def test_the_pld_total_read_below_basics_delta_is_not_capped() -> None:
    """At a δ smaller than Σδ basic composition says nothing: the PLD total stays as read
    (here unbounded), never replaced by a Σε that is not a bound at that δ."""
    es = [LedgerEntry(id="x", dataset="d", mechanism="gaussian", epsilon=1.0, delta=1e-5,
                      count=2)]
    basic, pld = compose(es, delta=1e-6)[:2]
    assert basic.delta == 2e-5 and pld.delta == 1e-6
    assert pld.epsilon > basic.epsilon and "capped" not in pld.assumption
