"""core.mdp.records: the parameters of a sweep and of a bounds run refuse every bad value
naming its field, normalise what they accept, and record what the docstrings say; a sweep's
and a bounds run's ledger entries carry the privatisation's (ε, δ), count and mode."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.examples import four_startups
from core.mdp.private_policy import bounds_release
from core.mdp.records import (
    POLICY_SOURCES,
    BoundsParameters,
    SweepParameters,
    bounds_entries,
    sweep_entries,
)
from core.mdp.sweep import privacy_sweep

_SWEEP = dict(ks=(10.0, 100.0), runs=3, beta=0.05, alpha_mode="paper", seeded=True, seed=7,
              workers=1)


def _sweep(**change: Any) -> SweepParameters:
    return SweepParameters(**{**_SWEEP, **change})


@pytest.mark.parametrize("change, field", [
    ({"ks": "10"}, "k"),
    ({"ks": 10.0}, "k"),
    ({"ks": ()}, "k"),
    ({"ks": (10.0, -1.0)}, "k"),
    ({"ks": (math.inf,)}, "k"),
    ({"ks": (2e12,)}, "k"),
    ({"runs": 0}, "runs"),
    ({"runs": 2.0}, "runs"),
    ({"runs": True}, "runs"),
    ({"beta": 0.0}, "beta"),
    ({"beta": 1.0}, "beta"),
    ({"alpha_mode": "loose"}, "alpha"),
    ({"seeded": 1}, "seeded"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"workers": 0}, "workers"),
    ({"b": 0.0}, "b"),
    ({"b": 1.5}, "b"),
    ({"delta_target": 1.0}, "delta_target"),
    ({"adjacency": "two-rows"}, "adjacency"),
    ({"eta": 1.0}, "eta"),
    ({"eta": "1/n"}, "eta"),
    ({"domain_rule": "clip"}, "domain_rule"),
    ({"delta_method": "guess"}, "delta_method"),
    ({"policy_source": "random"}, "policy_source"),
    ({"policy_source": "softmax"}, "temperature"),
    ({"policy_source": "softmax", "temperature": 0.0}, "temperature"),
    ({"temperature": 1.0}, "temperature"),
    ({"policy_file": "pi.csv"}, "policy_file"),
    ({"policy_source": "table", "policy_file": 3}, "policy_file"),
])
def test_sweep_parameters_refuse_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        _sweep(**change)
    assert info.value.field == field


def test_sweep_parameters_normalise_what_they_accept() -> None:
    p = _sweep(ks=[np.int64(10), 250], seed=np.int64(3), eta=" 0.3/n", delta_target=0.01)
    assert p.ks == (10.0, 250.0) and all(type(k) is float for k in p.ks)
    assert p.seed == 3 and type(p.seed) is int and p.eta == "0.3/n"
    assert _sweep(eta="AUTO").eta == "auto" and _sweep(eta="0.2").eta == 0.2
    assert _sweep(seed=None).sweep_kwargs()["seed"] is None


def test_sweep_parameters_record_only_what_a_non_greedy_sweep_adds() -> None:
    greedy = _sweep().to_dict()
    assert "policy_source" not in greedy and "temperature" not in greedy
    assert greedy["ks"] == [10.0, 100.0] and json.loads(json.dumps(greedy)) == greedy
    soft = _sweep(policy_source="softmax", temperature=0.5)
    d = soft.to_dict()
    assert d["policy_source"] == "softmax" and d["temperature"] == 0.5
    assert soft.sweep_kwargs()["temperature"] == 0.5
    table = _sweep(policy_source="table", policy_file="pi.csv").to_dict()
    assert table["policy_file"] == "pi.csv"


def test_sweep_kwargs_are_exactly_privacy_sweep_arguments() -> None:
    import inspect

    accepted = set(inspect.signature(privacy_sweep).parameters)
    assert set(_sweep().sweep_kwargs()) <= accepted
    with pytest.raises(InputError):
        replace(_sweep(), runs=0)


@pytest.mark.parametrize("kw, field", [
    ({"k": 0.0}, "k"),
    ({"k": "a"}, "k"),
    ({"beta": 1.5}, "beta"),
    ({"alpha_mode": "x"}, "alpha"),
    ({"seeded": "yes"}, "seeded"),
    ({"release": 1}, "release"),
    ({"seed": -2}, "seed"),
    ({"release": True, "seed": 3}, "seed"),
    ({"temperature": -1.0}, "temperature"),
    ({"temperature": 1.0, "policy_table": np.ones((2, 2))}, "policy"),
    ({"synthesis": "simplex"}, "synthesis"),
    ({"synthesis": "lp", "temperature": 1.0}, "synthesis"),
    ({"synthesis": "lp", "policy_table": np.ones((2, 2))}, "synthesis"),
    ({"adjacency": "x"}, "adjacency"),
    ({"b": 2.0}, "b"),
    ({"delta_method": "x"}, "delta_method"),
])
def test_bounds_parameters_refuse_naming_the_field(kw: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        BoundsParameters(**{"k": 100.0, **kw})
    assert info.value.field == field


@pytest.mark.parametrize("kw, source", [
    ({}, "greedy"), ({"temperature": 0.5}, "softmax"), ({"synthesis": "lp"}, "lp"),
    ({"policy_table": np.full((4, 2), 0.5)}, "table"),
])
def test_bounds_policy_source_and_record(kw: dict, source: str) -> None:
    p = BoundsParameters(k=100.0, seed=4, **kw)
    assert p.policy_source == source and source in (*POLICY_SOURCES, "lp")
    rec = p.record_params()
    assert rec["k"] == 100.0 and rec["seed"] == 4 and rec["seeded"] is True
    assert ("policy_source" in rec) == (source != "greedy")
    assert ("temperature" in rec) == (source == "softmax")
    assert json.loads(json.dumps(rec)) == rec


def test_bounds_parameters_of_a_release_record_no_seed() -> None:
    p = BoundsParameters(k=50, seeded=False, release=True)
    assert p.record_params()["seed"] is None and p.k == 50.0
    assert p.accounting() == {"b": 0.1, "delta_target": 0.05, "adjacency": "one-row",
                              "eta": "auto", "domain_rule": "mix", "delta_method": "auto"}


def test_sweep_entries_are_experiments_one_per_k_counting_the_runs() -> None:
    res = privacy_sweep(four_startups(), [1.0, 100.0], runs=2, seed=3, workers=1,
                        delta_method="union")
    entries = sweep_entries("m1", res, source="run-9", time="2026-01-01T00:00:00+00:00")
    assert len(entries) == 2
    for e, priv in zip(entries, res.privacy):
        assert e.dataset == "mdp:m1" and e.mode == "experiment" and not e.is_release
        assert e.count == 2 and e.seed == 3 and e.source == "run-9"
        assert e.time == "2026-01-01T00:00:00+00:00"
        if math.isfinite(priv.epsilon):
            assert e.epsilon == pytest.approx(priv.epsilon)
        else:
            assert e.unbounded and e.reason  # never silently free
    assert entries[0].unbounded  # k = 1 has no finite guarantee
    assert len({e.id for e in entries}) == 2


def test_bounds_entries_of_a_seeded_run_and_of_a_release() -> None:
    m = four_startups()
    seeded = bounds_release(m, BoundsParameters(k=100.0, seed=5))
    (e,) = bounds_entries("m", seeded, source="run-1")
    assert e.mode == "experiment" and e.seed == 5 and e.count == 1
    assert e.epsilon == pytest.approx(seeded.privacy.epsilon) and e.dataset == "mdp:m"
    released = bounds_release(m, BoundsParameters(k=100.0, seeded=False, release=True))
    (r,) = bounds_entries("m", released, source="run-2")
    assert r.mode == "release" and r.is_release and r.seed is None
    assert r.epsilon == pytest.approx(e.epsilon)  # same k, same public accounting
