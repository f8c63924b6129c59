"""DesignParameters (the designer's one parameters object) accepts every valid value, refuses
every invalid one with an InputError naming the field, and round-trips through the run
record's ``params``; the entry point and the record function keep what it asked."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.validation import B_MIN
from core.mdp.design import SELECTIONS, DesignParameters, design, design_release
from core.mdp.examples import four_startups
from core.project.model import Project
from core.project.recording import design_run_record

BASE = DesignParameters(epsilon=50.0, delta=1e-3)

junk = st.sampled_from([None, "x", "", [], {}])
nonfinite = st.sampled_from([math.nan, math.inf, -math.inf])
good_eps = st.floats(min_value=1e-3, max_value=1e6)
bad_eps = st.one_of(st.floats(max_value=0.0), nonfinite, st.sampled_from(["x", [], True]))
good_delta = st.floats(min_value=1e-12, max_value=1 - 1e-9)
bad_delta = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), nonfinite, junk,
                      st.just(True))
good_beta = st.floats(min_value=1e-9, max_value=1 - 1e-9)
bad_beta = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), nonfinite, junk)
good_b = st.floats(min_value=B_MIN, max_value=1.0)
bad_b = st.one_of(st.floats(max_value=B_MIN / 2), st.floats(min_value=1.0, exclude_min=True),
                  nonfinite, junk, st.just(True))
good_seed = st.one_of(st.none(), st.integers(min_value=0, max_value=2**63))
bad_seed = st.one_of(st.integers(max_value=-1), st.floats(min_value=0, max_value=9),
                     st.booleans(), st.sampled_from(["7", [], {}]))


@st.composite
def valid(draw: Any) -> dict[str, Any]:
    selection = draw(st.sampled_from(SELECTIONS))
    return {"epsilon": draw(good_eps), "delta": draw(good_delta), "b": draw(good_b),
            "adjacency": draw(st.sampled_from(("one-row", "all-rows"))),
            "beta": draw(good_beta), "selection": selection,
            "selection_epsilon": draw(good_eps) if selection == "exponential" else None,
            "seed": draw(good_seed)}


@settings(max_examples=60, deadline=None)
@given(valid())
def test_valid_values_build_and_round_trip_through_the_record(kw: dict[str, Any]) -> None:
    p = DesignParameters(**kw)
    assert (p.epsilon, p.delta, p.b, p.beta) == (kw["epsilon"], kw["delta"], kw["b"],
                                                 kw["beta"])
    d = json.loads(json.dumps(p.to_dict(), allow_nan=False))  # strict JSON
    assert list(d) == ["epsilon", "delta", "b", "adjacency", "beta", "selection",
                       "selection_epsilon"]
    assert DesignParameters.from_dict(d, seed=p.seed) == p
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.epsilon = 1.0  # type: ignore[misc]


BAD = {"epsilon": bad_eps, "delta": bad_delta, "beta": bad_beta, "b": bad_b,
       "adjacency": st.one_of(st.text(max_size=6).filter(
           lambda s: s not in ("one-row", "all-rows")), st.just(None)),
       "selection": st.one_of(st.text(max_size=6).filter(lambda s: s not in SELECTIONS),
                              st.just(None)),
       "seed": bad_seed}


@pytest.mark.parametrize("field", sorted(BAD))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_each_invalid_field_is_refused_naming_it(field: str, data: Any) -> None:
    bad = data.draw(BAD[field])
    with pytest.raises(InputError) as exc:
        dataclasses.replace(BASE, **{field: bad})
    assert exc.value.field == field


@settings(max_examples=25, deadline=None)
@given(bad_eps)
def test_a_bad_selection_epsilon_names_its_own_field(bad: Any) -> None:
    with pytest.raises(InputError) as exc:
        DesignParameters(epsilon=1.0, delta=1e-3, selection="exponential",
                         selection_epsilon=bad)
    assert exc.value.field == "selection_epsilon"


@pytest.mark.parametrize("kw", [{"selection": "exponential"},
                                {"selection": "public", "selection_epsilon": 1.0}])
def test_the_selection_and_its_epsilon_go_together(kw: dict[str, Any]) -> None:
    with pytest.raises(InputError) as exc:
        DesignParameters(epsilon=1.0, delta=1e-3, **kw)
    assert exc.value.field == "selection_epsilon"


def test_the_entry_point_gives_what_design_gives_and_the_record_keeps_the_parameters(
        ) -> None:
    mdp = four_startups()
    p = DesignParameters(epsilon=50.0, delta=1e-3, selection="exponential",
                         selection_epsilon=0.5, seed=3)
    r = design_release(mdp, p)
    ref = design(mdp, epsilon=50.0, delta=1e-3, selection="exponential",
                 selection_epsilon=0.5, rng=3)
    assert r.to_dict() == ref.to_dict()
    project = Project()
    mdp_id = project.add_mdp(mdp, "startups")
    record, entries = design_run_record(project, mdp_id, r, p)
    assert record.kind == "design" and record.params == p.to_dict()
    assert DesignParameters.from_dict(record.params, seed=record.seed) == p
    assert [(e.mechanism, e.epsilon, e.source) for e in entries] == [
        ("exponential", 0.5, record.id)]
    public = DesignParameters(epsilon=50.0, delta=1e-3)
    assert design_run_record(project, mdp_id, design_release(mdp, public), public)[1] == []
    with pytest.raises(ValueError):  # a result recorded with another design's parameters
        design_run_record(project, mdp_id, r, public)
