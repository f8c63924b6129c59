"""Forecasts of the simulated kinds: on demand, seeded, from public stand-ins only."""

from __future__ import annotations

import math

from core.plan import evaluate_plan, plan_from_dict
from core.plan.simulate import logistics_estimate, sharing_estimate


def _plan(releases):
    return plan_from_dict({"format": "privplan-plan", "version": 1,
                           "budget": {"epsilon": 4.0, "delta": 1e-5}, "releases": releases})


ROUTE = {"name": "route", "kind": "logistics", "map": "fig41", "epsilon": 0.5}
POLICY = {"name": "policy", "kind": "sharing", "k0": 5, "c": 0.95, "rollouts": 5,
          "epsilon": 1.0, "delta": 1e-6}


def test_simulated_forecasts_are_null_until_asked():
    res = evaluate_plan(_plan([ROUTE, POLICY]))
    for rb in res.releases:
        d = rb.forecast.to_dict()
        assert d["value"] is None and "on demand" in d["value_reason"]


def test_sharing_estimate_is_seeded_and_normalised():
    res = evaluate_plan(_plan([POLICY]), estimates=True)
    fc = res.releases[0].forecast
    direct = sharing_estimate(5.0, 0.95, 5)
    assert fc.value == direct["return"]
    # the student with a teacher learns faster than the one without: a positive utility
    assert direct["return_none"] < fc.value and 0.0 < fc.utility <= 1.0
    assert fc.to_dict()["estimate"].startswith("simulation")


def test_logistics_estimate_measures_overhead_and_messages():
    r = logistics_estimate(0.5)
    # stretch is a delivered route's length over the true shortest path: never below 1
    assert r["stretch"] >= 1.0 and r["route_overhead"] == r["stretch"] - 1.0
    assert r["messages"] > 0 and 0 < r["success"] <= 1
    assert r["stretch_nonprivate"] <= r["stretch"] + 1e-9
    assert 0.0 <= r["utility"] <= 1.0 and math.isfinite(r["utility"])
    res = evaluate_plan(_plan([ROUTE]), estimates=True)
    assert res.releases[0].forecast.value == r["route_overhead"]
