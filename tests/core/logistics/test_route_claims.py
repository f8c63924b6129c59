"""The logistics route comparisons as a study (core.logistics.route_claims): one approach on
one seeded world, its lengths paired with DP-based's on the tasks both delivered, and the
thesis's claims with DP − other as the one sign convention."""

from __future__ import annotations

import importlib
import math

import pytest

from core.common.errors import InputError
from core.study import evaluate_claims, run_study

# the module (the package re-exports its function route_claims under the same name)
rc = importlib.import_module("core.logistics.route_claims")


def test_arm_is_reproducible_without_its_cache():
    a = rc.route_arm(11, approach="greedy", n_centers=6)
    rc._run.cache_clear()
    assert rc.route_arm(11, approach="greedy", n_centers=6) == a
    assert set(a) == set(rc.ROUTE_METRICS)


def test_dp_pairs_with_itself_and_others_pair_on_fewer_tasks():
    dp = rc.route_arm(4, approach="dp", n_centers=8)
    assert dp["success"] > 0
    assert dp["paired_length"] == dp["paired_length_dp"] == pytest.approx(dp["route_length"])
    for other in ("noprivacy", "greedy", "bestfirst"):
        m = rc.route_arm(4, approach=other, n_centers=8)
        # both delivered: at most what either delivered (the same packages)
        assert m["paired_tasks"] <= dp["paired_tasks"]
        if m["paired_tasks"] == 0:
            assert math.isnan(m["paired_length"]) and math.isnan(m["paired_length_dp"])
    # no-privacy plans shortest routes: never longer than DP's on the same tasks
    npv = rc.route_arm(4, approach="noprivacy", n_centers=8)
    assert npv["paired_length"] <= npv["paired_length_dp"] + 1e-9


def test_domain_metrics_only_in_their_domain():
    air = rc.route_arm(2, approach="dp", n_centers=6, domain="air")
    rover = rc.route_arm(2, approach="dp", n_centers=6, domain="rover")
    log = rc.route_arm(2, approach="dp", n_centers=6)
    assert air["longest_leg"] <= 600 and math.isnan(air["sample_value"])
    assert 0.0 <= rover["sample_value"] <= 1.0 and math.isnan(rover["legs"])
    assert math.isnan(log["legs"]) and math.isnan(log["sample_value"])


@pytest.mark.parametrize("kw, field", [({"n": 1}, "worlds"), ({"domains": ["sea"]}, "domains"),
                                       ({"sizes": [1]}, "sizes"),
                                       ({"epsilons": [0.2]}, "epsilons")])
def test_bad_study_settings_name_the_field(kw, field):
    with pytest.raises(InputError) as e:
        rc.route_study(**kw)
    assert e.value.field == field


def test_claims_read_dp_minus_other():
    st = rc.route_study(n=3, sizes=[6, 8], domains=["logistics", "rover"])
    claims = rc.route_claims(st)
    # per domain: 2 sizes x 6 rows (+ 2 sample-value rows on rover) + 2 epsilon rows
    assert len(claims) == 2 * 6 + 2 + 2 * 8 + 2
    for c in claims:
        if c.metric == "paired_length_dp":      # DP's length on the other arm's pairs
            assert c.b_metric == "paired_length" and c.a == c.b != "dp"
        elif c.expect != "=":
            assert c.a == "dp" and c.b != "dp"
    assert [c.expect for c in claims[:6]] == [">", "<", "<", "<", ">", ">"]


def test_a_small_study_runs_and_its_claims_have_p_values():
    st = rc.route_study(n=3, master_seed=5, sizes=[6], epsilons=[])
    res = run_study(st, workers=1)
    out = evaluate_claims(res, rc.route_claims(st))
    assert len(out) == 6 and all(c.n <= 3 for c in out)
    assert all(math.isfinite(c.p) for c in out if c.n > 0)
