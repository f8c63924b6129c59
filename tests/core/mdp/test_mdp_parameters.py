"""The MDP run parameter objects (SweepParameters, BoundsParameters) accept every valid value
and refuse every invalid one with an InputError naming the field, on construction: the window,
the command line and a plan share these checks instead of repeating them."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.validation import B_MIN, K_MAX
from core.mdp.records import POLICY_SOURCES, BoundsParameters, SweepParameters

SWEEP = SweepParameters(ks=(10.0, 100.0), runs=5, beta=0.05, alpha_mode="paper", seeded=True,
                        seed=7, workers=1)
BOUNDS = BoundsParameters(k=100.0, seed=7)

# the field name an error states, where it is not the attribute's own name
SHOWN = {"alpha_mode": "alpha", "ks": "k"}

# --------------------------------------------------------------------- value strategies
junk = st.sampled_from([None, "x", "", [], {}, object()])
nonfinite = st.sampled_from([math.nan, math.inf, -math.inf])
unit_open = st.floats(min_value=1e-9, max_value=1 - 1e-9)  # beta, delta
not_unit_open = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), nonfinite,
                          junk)
good_k = st.floats(min_value=1e-6, max_value=K_MAX)
bad_k = st.one_of(st.floats(max_value=0.0), st.floats(min_value=K_MAX * 1.0001), nonfinite,
                  junk)
good_b = st.floats(min_value=B_MIN, max_value=1.0)
bad_b = st.one_of(st.floats(max_value=B_MIN / 2), st.floats(min_value=1.0, exclude_min=True),
                  nonfinite, junk, st.just(True))
good_count = st.integers(min_value=1, max_value=10**6)
bad_count = st.one_of(st.integers(max_value=0), st.floats(min_value=1, max_value=100),
                      st.booleans(), junk)
good_seed = st.one_of(st.none(), st.integers(min_value=0, max_value=2**63))
bad_seed = st.one_of(st.integers(max_value=-1), st.floats(min_value=0, max_value=9),
                     st.booleans(), st.sampled_from(["7", [], {}]))
bad_flag = st.one_of(st.integers(), st.none(), st.sampled_from(["yes", "true", 1.0]))
good_eta = st.one_of(st.floats(min_value=1e-6, max_value=0.99), st.just("auto"),
                     st.sampled_from(["0.3/n", "0.5/n"]))
bad_eta = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), nonfinite,
                    st.sampled_from(["sometimes", "2/n", "-1/n", ""]))


def choice(names: tuple[str, ...]) -> tuple[Any, Any]:
    """(valid, invalid) strategies of a field that takes one of ``names``."""
    wrong = st.one_of(st.text(max_size=8).filter(lambda s: s not in names),
                      st.sampled_from([None, 1, [names[0]]]))
    return st.sampled_from(names), wrong


ALPHA = choice(("paper", "rigorous"))
DOMAIN = choice(("refuse", "mix"))
ADJ = choice(("one-row", "all-rows"))
DMETHOD = choice(("auto", "union", "exact", "mc"))
SYNTH = choice(("induction", "lp"))

#: field: (valid values, invalid values) — shared by both parameter objects
SHARED = {
    "beta": (unit_open, not_unit_open),
    "alpha_mode": ALPHA,
    "seeded": (st.booleans(), bad_flag),
    "b": (good_b, bad_b),
    "delta_target": (unit_open, not_unit_open),
    "adjacency": ADJ,
    "eta": (good_eta, bad_eta),
    "domain_rule": DOMAIN,
    "delta_method": DMETHOD,
}
SWEEP_FIELDS = {
    **SHARED,
    "ks": (st.lists(good_k, min_size=1, max_size=5).map(tuple),
           st.one_of(st.just(()), st.lists(bad_k, min_size=1, max_size=3).map(tuple),
                     st.sampled_from(["10", 10.0, None]))),
    "runs": (good_count, bad_count),
    "seed": (good_seed, bad_seed),
    "workers": (good_count, bad_count),
}
BOUNDS_FIELDS = {
    **SHARED,
    "k": (good_k, bad_k),
    "seed": (good_seed, bad_seed),
    "release": (st.just(False), bad_flag),
    "synthesis": SYNTH,
}


def _case(fields: dict[str, tuple[Any, Any]], which: int) -> Any:
    return st.sampled_from(sorted(fields)).flatmap(
        lambda name: st.tuples(st.just(name), fields[name][which]))


def _refused(base: Any, name: str, value: Any) -> InputError:
    with pytest.raises(InputError) as info:
        dataclasses.replace(base, **{name: value})
    return info.value


# --------------------------------------------------------------------- SweepParameters
@given(_case(SWEEP_FIELDS, 0))
def test_sweep_parameters_accept_every_valid_value(case: tuple[str, Any]) -> None:
    name, value = case
    p = dataclasses.replace(SWEEP, **{name: value})
    # normalised, not just passed through: numbers are floats, k a tuple of floats
    assert isinstance(p.b, float) and isinstance(p.beta, float)
    assert all(isinstance(k, float) for k in p.ks)
    assert p.sweep_kwargs()["runs"] == p.runs


@given(_case(SWEEP_FIELDS, 1))
def test_sweep_parameters_refuse_every_invalid_value_naming_the_field(
        case: tuple[str, Any]) -> None:
    name, value = case
    exc = _refused(SWEEP, name, value)
    assert exc.field == SHOWN.get(name, name), (name, value, str(exc))


@given(st.floats(min_value=1e-6, max_value=1e6))
def test_a_softmax_sweep_needs_its_temperature_and_only_it_has_one(tau: float) -> None:
    p = dataclasses.replace(SWEEP, policy_source="softmax", temperature=tau)
    assert p.sweep_kwargs()["temperature"] == tau
    assert p.to_dict()["policy_source"] == "softmax"
    assert _refused(SWEEP, "policy_source", "softmax").field == "temperature"
    for source in ("greedy", "table"):
        exc = _refused(SWEEP, "temperature", tau) if source == "greedy" else _refused(
            dataclasses.replace(SWEEP, policy_source="table"), "temperature", tau)
        assert exc.field == "temperature"


@pytest.mark.parametrize("tau", [0.0, -1.0, math.nan, math.inf, "hot"])
def test_a_softmax_sweep_refuses_a_bad_temperature(tau: Any) -> None:
    with pytest.raises(InputError) as info:
        dataclasses.replace(SWEEP, policy_source="softmax", temperature=tau)
    assert info.value.field == "temperature"


def test_policy_source_and_file() -> None:
    assert POLICY_SOURCES == ("greedy", "softmax", "table")
    table = dataclasses.replace(SWEEP, policy_source="table", policy_file="pi.csv")
    assert table.to_dict()["policy_file"] == "pi.csv"
    assert table.sweep_kwargs()["temperature"] is None  # the table itself is passed beside
    assert _refused(SWEEP, "policy_source", "lp").field == "policy_source"
    assert _refused(SWEEP, "policy_file", "pi.csv").field == "policy_file"  # greedy: no file
    assert _refused(table, "policy_file", 3).field == "policy_file"


def test_the_checks_normalise_numpy_and_int_values() -> None:
    p = dataclasses.replace(SWEEP, ks=[np.float32(10), 100], runs=np.int64(3), b=1,
                            workers=np.int32(2), eta="0.30/n")
    assert p.ks == (10.0, 100.0) and type(p.runs) is int and p.runs == 3
    assert p.b == 1.0 and type(p.workers) is int and p.eta == "0.3/n"
    assert p == dataclasses.replace(p)  # frozen and idempotent
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.b = 0.5  # type: ignore[misc]


def test_the_b_message_states_the_range_and_why() -> None:
    exc = _refused(SWEEP, "b", 0.0)
    assert str(exc).startswith("b: must lie in [1e-12, 1], got 0 ")
    assert "precision of a probability row" in str(exc)


# --------------------------------------------------------------------- BoundsParameters
@given(_case(BOUNDS_FIELDS, 0))
def test_bounds_parameters_accept_every_valid_value(case: tuple[str, Any]) -> None:
    name, value = case
    p = dataclasses.replace(BOUNDS, **{name: value})
    assert isinstance(p.k, float) and isinstance(p.b, float)
    assert p.accounting()["b"] == p.b and p.record_params()["k"] == p.k


@given(_case(BOUNDS_FIELDS, 1))
def test_bounds_parameters_refuse_every_invalid_value_naming_the_field(
        case: tuple[str, Any]) -> None:
    name, value = case
    exc = _refused(BOUNDS, name, value)
    assert exc.field == SHOWN.get(name, name), (name, value, str(exc))


def test_bounds_parameters_refuse_inconsistent_choices() -> None:
    assert _refused(BOUNDS, "release", True).field == "seed"  # a release takes no seed
    released = dataclasses.replace(BOUNDS, seed=None, release=True)
    assert released.seed is None and released.record_params()["seed"] is None
    soft = dataclasses.replace(BOUNDS, temperature=0.5)
    assert soft.policy_source == "softmax"
    assert _refused(soft, "synthesis", "lp").field == "synthesis"
    assert _refused(soft, "policy_table", np.full((2, 2), 0.5)).field == "policy"
    assert dataclasses.replace(BOUNDS, synthesis="lp").policy_source == "lp"
