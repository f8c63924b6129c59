"""core.plan.budget and core.plan.execute on pure-DP plans, where every number has a closed
form (ε's add): the composed ε, the first release that breaks the budget, the remaining
budget, the weights split (checked against the grid it picks from), the refusals naming their
field, and the ledger entries and execution checks of an evaluated plan."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from core.common.errors import InputError
from core.plan.budget import (
    ALLOCATION_NOTE,
    GRID,
    adjacency_of,
    allocate,
    evaluate_plan,
    release_options,
)
from core.plan.document import PlannedRelease, plan_from_dict
from core.plan.execute import MECHANISMS, plan_entries, plan_name, plan_problems
from core.plan.forecast import Forecast
from core.privacy.ledger import LedgerEntry


def _plan(eps: list[float], budget: float = 1.0, delta: float = 0.0, **rel: object):
    return plan_from_dict({
        "format": "privplan-plan", "version": 1, "name": "study-ü", "dataset": "patients",
        "budget": {"epsilon": budget, "delta": delta},
        "releases": [{"name": f"r{i}", "kind": "laplace", "epsilon": e, **rel}
                     for i, e in enumerate(eps)]})


# ------------------------------------------------------------------ evaluation
def test_pure_releases_compose_by_adding_their_epsilons() -> None:
    b = evaluate_plan(_plan([0.1, 0.25, 0.3]))
    assert b.composed_epsilon == pytest.approx(0.65, rel=1e-12)
    assert b.basic_epsilon == pytest.approx(0.65, rel=1e-12)
    assert b.feasible and b.breaking is None and b.reason == ""
    assert b.remaining_epsilon == pytest.approx(0.35)
    assert [r.epsilon for r in b.releases] == pytest.approx([0.1, 0.25, 0.3])
    assert (b.composed_delta, b.basic_delta) == (0.0, 0.0)


@pytest.mark.parametrize("eps,breaking", [([0.5, 0.4, 0.2], "r2"), ([1.2, 0.1], "r0"),
                                          ([0.3, 0.3, 0.3, 0.3], "r3")])
def test_the_breaking_release_is_the_first_whose_prefix_exceeds(eps: list[float],
                                                                breaking: str) -> None:
    b = evaluate_plan(_plan(eps))
    prefix = np.cumsum(eps)
    assert breaking == f"r{int(np.argmax(prefix > 1.0 + 1e-9))}"
    assert not b.feasible and b.breaking == breaking
    assert f"release {breaking!r}" in b.reason and "budget 1" in b.reason
    assert b.remaining_epsilon == pytest.approx(1.0 - sum(eps))


def test_exactly_the_budget_is_feasible() -> None:
    assert evaluate_plan(_plan([0.5, 0.25, 0.25])).feasible


def test_an_approximate_release_cannot_fit_a_zero_delta_budget() -> None:
    p = plan_from_dict({"format": "privplan-plan", "version": 1,
                        "budget": {"epsilon": 5.0, "delta": 0.0},
                        "releases": [{"name": "c", "kind": "laplace", "epsilon": 0.5},
                                     {"name": "g", "kind": "gaussian", "sigma": 2.0}]})
    b = evaluate_plan(p)
    assert math.isinf(b.composed_epsilon) and not b.feasible
    assert "delta = 0" in b.reason and b.breaking == "g"
    d = b.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["composed"]["epsilon"] is None and "delta = 0" in d["composed"]["epsilon_reason"]
    assert d["remaining"]["epsilon"] is None
    g = next(r for r in d["releases"] if r["name"] == "g")
    assert g["epsilon"] is None and g["epsilon_reason"]


def test_the_budget_dict_is_strict_json_and_states_the_plan() -> None:
    d = evaluate_plan(_plan([0.2, 0.3])).to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text) == d
    assert d["budget"] == {"epsilon": 1.0, "delta": 0.0} and d["dataset"] == "patients"
    assert d["composed"]["epsilon"] == pytest.approx(0.5)
    assert d["remaining"] == {"epsilon": pytest.approx(0.5), "delta": 0.0}
    assert [r["name"] for r in d["releases"]] == ["r0", "r1"]
    assert d["releases"][0]["parameters"] == {"epsilon": 0.2, "sensitivity": 1.0}
    assert d["plan"]["name"] == "study-ü" and d["feasible"] is True


def test_releases_under_different_adjacencies_get_a_note() -> None:
    same = evaluate_plan(_plan([0.1, 0.2]))
    assert same.notes == ()
    p = plan_from_dict({"format": "privplan-plan", "version": 1,
                        "budget": {"epsilon": 5.0, "delta": 0.0},
                        "releases": [{"name": "c", "kind": "laplace", "epsilon": 0.5},
                                     {"name": "s", "kind": "advising", "epsilon": 0.5}]})
    notes = evaluate_plan(p).notes
    assert len(notes) == 1 and "different neighbouring relations" in notes[0]


def test_progress_runs_from_zero_to_one() -> None:
    seen: list[float] = []
    evaluate_plan(_plan([0.1, 0.2, 0.3]), progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


def test_an_unresolved_model_is_named() -> None:
    p = plan_from_dict({"format": "privplan-plan", "version": 1,
                        "budget": {"epsilon": 5.0, "delta": 1e-6},
                        "releases": [{"name": "m", "kind": "mdp", "mdp": "corridor",
                                      "k": 10.0}]})
    with pytest.raises(InputError) as info:
        evaluate_plan(p, {})
    assert info.value.field == "releases[m].mdp"


@pytest.mark.parametrize("release,text", [
    (PlannedRelease("n", "dpsgd", {"window": 3}), "replace-one buffer entry (replay window)"),
    (PlannedRelease("n", "dpsgd", {"window": None}), "add/remove one record"),
    (PlannedRelease("m", "mdp", {"adjacency": "all-rows", "b": 0.25}),
     "all-rows: rows differ by at most b = 0.25 in L1"),
    (PlannedRelease("c", "laplace", {"sensitivity": 2.0}),
     "one person's change moves the answer by at most 2"),
    (PlannedRelease("s", "sharing", {}), "as the sharing run states it"),
])
def test_adjacency_texts(release: PlannedRelease, text: str) -> None:
    assert adjacency_of(release) == text


# ------------------------------------------------------------------ allocation
def test_release_options_are_sorted_and_within_the_budget() -> None:
    r = PlannedRelease("c", "laplace", {"epsilon": 0.5, "sensitivity": 1.0, "tolerance": None})
    opts = release_options(r, 0.0, 2.0)
    eps = [o.epsilon for o in opts]
    assert eps == sorted(eps) and len(opts) == GRID
    assert eps[0] == pytest.approx(2.0 / 200) and eps[-1] == pytest.approx(2.0)
    utils = [o.utility for o in opts]
    assert utils == sorted(utils)  # more ε, more utility for Laplace


def test_the_weights_split_follows_the_weights_on_its_grid() -> None:
    p = plan_from_dict({"format": "privplan-plan", "version": 1,
                        "budget": {"epsilon": 1.0, "delta": 0.0},
                        "releases": [{"name": "a", "kind": "laplace", "epsilon": 0.1,
                                      "weight": 3.0},
                                     {"name": "b", "kind": "laplace", "epsilon": 0.1,
                                      "weight": 1.0}]})
    b = allocate(p, "weights")
    ea, eb = (r.epsilon for r in b.releases)
    grid = np.geomspace(1.0 / 200, 1.0, GRID)
    step = grid[1] / grid[0]
    assert any(math.isclose(ea, g) for g in grid) and any(math.isclose(eb, g) for g in grid)
    assert ea + eb <= 1.0 + 1e-9 and b.feasible
    assert ea / eb == pytest.approx(3.0, rel=step - 1)  # within one grid step of 3:1
    assert ea + eb > 1.0 / step  # and the budget is nearly used up
    assert b.allocation == "weights" and ALLOCATION_NOTE in b.notes


def test_fixed_releases_keep_their_parameters_in_an_allocation() -> None:
    p = plan_from_dict({"format": "privplan-plan", "version": 1,
                        "budget": {"epsilon": 1.0, "delta": 0.0},
                        "releases": [{"name": "a", "kind": "laplace", "epsilon": 0.4,
                                      "fixed": True},
                                     {"name": "b", "kind": "laplace", "epsilon": 0.1}]})
    b = allocate(p, "weights")
    assert b.releases[0].epsilon == pytest.approx(0.4)
    assert 0.5 <= b.releases[1].epsilon <= 0.6 + 1e-9
    assert "1 release(s) adjusted (b: epsilon)" in b.notes[-1]


def test_allocation_refusals_name_their_field() -> None:
    with pytest.raises(InputError) as info:
        allocate(_plan([0.1]), "greedy")
    assert info.value.field == "allocate"
    with pytest.raises(InputError) as info:
        allocate(_plan([0.1, 0.2], fixed=True), "weights")
    assert info.value.field == "releases"
    over = plan_from_dict({"format": "privplan-plan", "version": 1,
                           "budget": {"epsilon": 1.0, "delta": 0.0},
                           "releases": [{"name": "a", "kind": "laplace", "epsilon": 1.5,
                                         "fixed": True},
                                        {"name": "b", "kind": "laplace", "epsilon": 0.1}]})
    with pytest.raises(InputError) as info:
        allocate(over, "weights")
    assert info.value.field == "budget"


# ------------------------------------------------------------------ execution records
def test_plan_entries_are_one_per_release_with_where_they_come_from() -> None:
    b = evaluate_plan(_plan([0.1, 0.2]))
    entries = plan_entries(b, run_id="run-3")
    assert len(entries) == 2
    for e, rb in zip(entries, b.releases):
        assert e.dataset == "patients" and e.mechanism == MECHANISMS["laplace"]
        assert e.epsilon == rb.epsilon and e.delta == 0.0 and e.source == "run-3"
        assert e.parameters["plan"] == "study-ü" and e.parameters["release"] == rb.release.name
        assert e.parameters["kind"] == "laplace" and e.mode == "release"
        assert e.reason == ""
    assert plan_entries(b, run_id="r", mode="experiment")[0].mode == "experiment"
    assert set(MECHANISMS) == {"laplace", "gaussian", "dpsgd", "mdp", "logistics",
                               "advising", "sharing"}


def test_a_plan_without_a_name_is_named_by_its_dataset() -> None:
    p = plan_from_dict({"format": "privplan-plan", "version": 1, "dataset": "d",
                        "budget": {"epsilon": 1.0},
                        "releases": [{"name": "c", "kind": "laplace", "epsilon": 0.5}]})
    assert plan_name(evaluate_plan(p)) == "d"


def _as_executed(b, run_id: str = "run-1") -> list[LedgerEntry]:
    return [LedgerEntry(**{**e.__dict__, "id": f"e{i}"})
            for i, e in enumerate(plan_entries(b, run_id=run_id))]


def test_plan_problems_refuse_a_second_execution_and_name_a_deviation() -> None:
    b = evaluate_plan(_plan([0.1, 0.2]))
    assert plan_problems([], b) == []
    done = _as_executed(b)
    (again,) = plan_problems(done, b)
    assert "already executed" in again and "2 release(s)" in again
    changed = evaluate_plan(_plan([0.1, 0.3]))
    (dev,) = plan_problems(done, changed)
    assert "release 'r1' deviates" in dev and "(e1)" in dev
    other = [LedgerEntry(**{**e.__dict__, "dataset": "elsewhere"}) for e in done]
    assert plan_problems(other, b) == []


def test_a_forecast_without_a_value_says_why_in_both_places() -> None:
    f = Forecast("m", None, None, "no proxy")
    assert f.to_dict() == {"metric": "m", "value": None, "utility": None,
                           "value_reason": "no proxy", "utility_reason": "no proxy"}
    g = Forecast("m", 0.5, None, "no base", details=(("k", 1),))
    assert g.to_dict() == {"metric": "m", "value": 0.5, "utility": None,
                           "utility_reason": "no base", "k": 1}
