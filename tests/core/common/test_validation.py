"""core.common.validation: every check accepts exactly its range, returns the value normalised,
and refuses anything else with an InputError naming the field it was given."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.validation import (
    B_MIN,
    K_MAX,
    SENSITIVITY_RANGE,
    RandomSource,
    as_random_source,
    check_b,
    check_beta,
    check_choice,
    check_int,
    check_k,
    check_positive,
    check_seed,
    check_sensitivity,
    fresh_seed,
)

JUNK = [None, "x", "", [], {}, object(), math.nan, math.inf, -math.inf]


def _refused(check: Any, value: Any, *args: Any) -> InputError:
    with pytest.raises(InputError) as info:
        check(value, *args)
    return info.value


@given(st.floats(min_value=1e-300, max_value=1e300))
def test_check_positive_accepts_finite_positive_numbers(x: float) -> None:
    assert check_positive(x, "w") == x


@given(st.one_of(st.floats(max_value=0.0), st.sampled_from(JUNK)))
def test_check_positive_refuses_the_rest_naming_the_field(x: Any) -> None:
    assert _refused(check_positive, x, "w").field == "w"


@given(st.floats(min_value=1e-12, max_value=K_MAX))
def test_check_k_accepts_its_range(k: float) -> None:
    assert check_k(k) == k


@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=K_MAX, exclude_min=True),
                 st.sampled_from(JUNK)))
def test_check_k_refuses_outside_naming_the_field(k: Any) -> None:
    assert _refused(check_k, k, "k_list").field == "k_list"


def test_check_k_says_why_large_k_is_refused() -> None:
    assert "double precision" in _refused(check_k, 2 * K_MAX).problem


@given(st.floats(min_value=SENSITIVITY_RANGE[0], max_value=SENSITIVITY_RANGE[1]))
def test_check_sensitivity_accepts_its_range(s: float) -> None:
    assert check_sensitivity(s) == s


@pytest.mark.parametrize("s", [0.0, 5e-324, 1e-101, 1e101, -1.0, math.nan, "a"])
def test_check_sensitivity_refuses_outside(s: Any) -> None:
    exc = _refused(check_sensitivity, s)
    assert exc.field == "sensitivity" and "rescale" in exc.problem


@given(st.floats(min_value=1e-15, max_value=1 - 1e-15))
def test_check_beta_accepts_the_open_unit_interval(b: float) -> None:
    assert check_beta(b, "delta") == b


@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.sampled_from(JUNK)))
def test_check_beta_refuses_the_rest(b: Any) -> None:
    exc = _refused(check_beta, b, "delta")
    assert exc.field == "delta" and "strictly between 0 and 1" in exc.problem


@given(st.floats(min_value=B_MIN, max_value=1.0))
def test_check_b_accepts_its_closed_range(b: float) -> None:
    assert check_b(b) == b and isinstance(check_b(b), float)


@given(st.one_of(st.floats(max_value=B_MIN, exclude_max=True),
                 st.floats(min_value=1.0, exclude_min=True), st.sampled_from(JUNK),
                 st.booleans(), st.just("0.5")))
def test_check_b_refuses_the_rest_naming_the_field(b: Any) -> None:
    exc = _refused(check_b, b, "radius")
    assert exc.field == "radius" and exc.problem.startswith(f"must lie in [{B_MIN:g}, 1]")


def test_check_b_edges_and_numpy_values() -> None:
    assert check_b(1) == 1.0 and check_b(np.float32(0.5)) == 0.5 and check_b(B_MIN) == B_MIN
    assert "got 0 (" in _refused(check_b, 0).problem
    assert "got 'x'" in _refused(check_b, "x").problem


@pytest.mark.parametrize("value", ["mix", "refuse"])
def test_check_choice_accepts_its_names(value: str) -> None:
    assert check_choice(value, ("refuse", "mix"), "domain_rule") == value


@pytest.mark.parametrize("value", ["Mix", "", None, 1, ["mix"], "mix "])
def test_check_choice_refuses_the_rest_listing_the_choices(value: Any) -> None:
    exc = _refused(check_choice, value, ("refuse", "mix"), "domain_rule")
    assert exc.field == "domain_rule" and "('refuse', 'mix')" in exc.problem


@given(st.integers(min_value=3, max_value=10**18))
def test_check_int_accepts_integers_from_its_minimum(n: int) -> None:
    assert check_int(n, "runs", minimum=3) == n
    assert type(check_int(np.int64(3), "runs", minimum=3)) is int


@given(st.one_of(st.integers(max_value=2), st.floats(), st.booleans(),
                 st.sampled_from([None, "5", [5]])))
def test_check_int_refuses_the_rest(n: Any) -> None:
    exc = _refused(check_int, n, "runs", 3)
    assert exc.field == "runs" and "integer >= 3" in exc.problem


def test_check_seed_takes_none_or_a_non_negative_integer() -> None:
    assert check_seed(None) is None and check_seed(0) == 0 and check_seed(np.uint32(7)) == 7
    for bad in (-1, 1.0, True, "7"):
        assert _refused(check_seed, bad).field == "seed"
    assert _refused(check_seed, -3, "master_seed").field == "master_seed"


def test_as_random_source_modes() -> None:
    seeded = as_random_source(7)
    assert (seeded.mode, seeded.seed) == ("experiment", 7)
    assert "seed 7" in seeded.label
    again = as_random_source(7)
    assert seeded.generator.random() == again.generator.random()  # reproducible
    g = np.random.default_rng(1)
    from_gen = as_random_source(g)
    assert from_gen.generator is g and from_gen.seed is None
    assert "caller's generator" in from_gen.label
    assert as_random_source(seeded) is seeded
    release = as_random_source(None)
    assert release.mode == "release" and release.seed is None
    assert release.label == "release mode (secure noise)"
    assert 0.0 <= float(release.generator.random()) < 1.0
    assert isinstance(release, RandomSource)


@pytest.mark.parametrize("bad,field", [(-1, "seed"), (True, "rng"), (1.5, "rng"),
                                       ("7", "rng")])
def test_as_random_source_refuses_other_values(bad: Any, field: str) -> None:
    assert _refused(as_random_source, bad).field == field


def test_fresh_seeds_are_63_bit_and_differ() -> None:
    seeds = {fresh_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(0 <= s < 2**63 for s in seeds)
