"""Unit tests of core.advising.accounting: per-teacher composition of Laplace releases.

The expected totals are recomputed here from the closed forms the module's docstring
cites (basic: k·ε; advanced: Dwork–Rothblum–Vadhan; RDP: Mironov 2017 Prop. 6 and 3),
written out independently with :mod:`math`, not by calling the module's helpers.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.advising.accounting import (
    ACCOUNTANTS,
    ADJACENCY,
    DEFAULT_DELTA,
    AgentPrivacy,
    account_advising,
    odometer_delta,
    unbounded_reason,
)
from core.common.errors import InputError


def adv_closed_form(eps: float, k: int, delta: float) -> float:
    """Advanced composition of k releases of ε each, capped by k·ε."""
    if k == 0:
        return 0.0
    raw = math.sqrt(2 * math.log(1 / delta) * k * eps * eps) + k * eps * math.expm1(eps)
    return min(raw, k * eps)


def laplace_rdp_ref(alpha: float, eps: float) -> float:
    """Mironov 2017, Prop. 6, evaluated directly (fine for the moderate α, ε used here)."""
    inner = (alpha / (2 * alpha - 1) * math.exp((alpha - 1) * eps)
             + (alpha - 1) / (2 * alpha - 1) * math.exp(-alpha * eps))
    return math.log(inner) / (alpha - 1)


def rdp_bound_ref(k: int, eps: float, delta: float, alpha: float) -> float:
    return k * laplace_rdp_ref(alpha, eps) + math.log(1 / delta) / (alpha - 1)


def acc1(k: int, *, eps: float = 0.1, noise: float = 1.0, strict: float = 1.0,
         delta: float = 1e-5, unprotected: int = 0, km=None, unbounded=None):
    return account_advising(["t"], [k], [unprotected], epsilon=eps, noise_sensitivity=noise,
                            strict_sensitivity=strict, delta=delta,
                            max_releases=None if km is None else [km],
                            unbounded=None if unbounded is None else [unbounded])


# ------------------------------------------------------------------ odometer_delta
@pytest.mark.parametrize(("delta", "km", "want"), [
    (0.01, None, 0.01), (0.01, 0, 0.01), (0.01, 4, 0.002), (1e-5, 99, 1e-7)])
def test_odometer_delta_union_bound(delta, km, want):
    assert odometer_delta(delta, km) == pytest.approx(want, rel=1e-12)


def test_odometer_delta_huge_count_stays_positive():
    d = odometer_delta(1e-5, 10**12)
    assert 0 < d == pytest.approx(1e-17, rel=1e-9)


# ------------------------------------------------------------------ unbounded_reason
def test_unbounded_reason_empty_and_zero_counts():
    assert unbounded_reason("x", {}) == ""
    assert unbounded_reason("x", {"raw_q": 0, "raw_policy": 0}) == ""


def test_unbounded_reason_singular_plural_and_order():
    r = unbounded_reason("u", {"raw_policy": 1, "raw_visits": 2})
    assert r == ("u released its raw policy (advice drawn from it) 1 time; its raw visit "
                 "counts (direction guard) 2 times without noise: no finite epsilon")


def test_unbounded_reason_unknown_kind_is_named_verbatim():
    assert "mystery 5 times" in unbounded_reason("ü-teacher", {"mystery": 5})
    assert unbounded_reason("ü-teacher", {"mystery": 5}).startswith("ü-teacher released")


# ------------------------------------------------------------------ totals against closed forms
@pytest.mark.parametrize(("k", "eps"), [(0, 0.1), (1, 0.1), (10, 0.1), (100, 0.1),
                                        (1000, 0.01), (5, 2.0)])
def test_basic_and_advanced_match_closed_forms(k, eps):
    a = acc1(k, eps=eps).agents[0]
    assert a.basic == pytest.approx(k * eps, rel=1e-12, abs=0)
    assert a.advanced == pytest.approx(adv_closed_form(eps, k, 1e-5), rel=1e-9, abs=1e-12)
    assert a.nominal_basic == pytest.approx(k * eps)


def test_rdp_falls_back_to_basic_when_the_conversion_costs_more():
    # 10 releases of 0.1: ln(1/δ)/(α-1) alone exceeds k·ε = 1 at every useful order
    a = acc1(10, eps=0.1).agents[0]
    assert a.rdp == a.basic == pytest.approx(1.0) and math.isinf(a.rdp_order)
    assert all(rdp_bound_ref(10, 0.1, 1e-5, al) > 1.0 for al in (2.0, 4.0, 12.0, 32.0))


@pytest.mark.parametrize(("k", "eps"), [(1000, 0.01), (100, 0.1), (400, 0.05)])
def test_rdp_is_its_formula_at_the_order_and_no_worse_than_grid_points(k, eps):
    a = acc1(k, eps=eps).agents[0]
    assert math.isfinite(a.rdp_order) and a.rdp_order > 1
    assert a.rdp == pytest.approx(rdp_bound_ref(k, eps, 1e-5, a.rdp_order), rel=1e-9)
    # 2, 4 and 32 are on the accountant's grid of orders: the minimum is at most those
    for alpha in (2.0, 4.0, 32.0):
        assert a.rdp <= rdp_bound_ref(k, eps, 1e-5, alpha) + 1e-9
    assert a.rdp <= a.basic


def test_rdp_beats_advanced_for_many_small_releases():
    a = acc1(100, eps=0.1).agents[0]
    assert a.rdp < a.advanced < a.basic
    assert a.tightest[0] == "rdp"


def test_single_release_everything_capped_at_basic():
    a = acc1(1, eps=0.5).agents[0]
    assert a.basic == 0.5
    assert a.advanced <= 0.5 and a.rdp <= 0.5
    # one release: the RDP conversion cannot beat pure ε, so it falls back to k·ε, order ∞
    assert a.rdp == 0.5 and math.isinf(a.rdp_order)
    assert a.tightest == ("basic", 0.5)  # ties go to the δ-free basic


def test_zero_releases_cost_nothing():
    a = acc1(0).agents[0]
    assert (a.basic, a.advanced, a.rdp, a.nominal_basic) == (0.0, 0.0, 0.0, 0.0)
    assert a.protected and a.reason == ""


def test_true_epsilon_scales_with_strict_over_noise_sensitivity():
    acc = acc1(10, eps=0.5, noise=1.0, strict=2.0)
    a = acc.agents[0]
    assert acc.epsilon_per_release == 1.0 == a.epsilon_per_release
    assert a.nominal_epsilon_per_release == 0.5
    assert a.basic == 10.0 and a.nominal_basic == 5.0
    assert a.advanced == pytest.approx(adv_closed_form(1.0, 10, 1e-5))


def test_max_releases_uses_union_bound_delta():
    fixed = acc1(50, eps=0.1).agents[0]
    adaptive = acc1(50, eps=0.1, km=99).agents[0]
    assert adaptive.max_releases == 99 and fixed.max_releases is None
    assert adaptive.advanced == pytest.approx(adv_closed_form(0.1, 50, 1e-7), rel=1e-9)
    assert adaptive.rdp == pytest.approx(
        rdp_bound_ref(50, 0.1, 1e-7, adaptive.rdp_order), rel=1e-9)
    # a smaller δ per count can only cost more
    assert adaptive.advanced > fixed.advanced and adaptive.rdp > fixed.rdp
    assert adaptive.basic == fixed.basic


@given(st.integers(0, 300), st.floats(0.001, 2.0), st.floats(1e-9, 0.5))
@settings(max_examples=30, deadline=None)
def test_totals_ordering_invariants(k, eps, delta):
    a = acc1(k, eps=eps, delta=delta).agents[0]
    assert 0 <= a.advanced <= a.basic + 1e-12
    assert 0 <= a.rdp <= a.basic + 1e-12
    assert a.basic == pytest.approx(k * eps, rel=1e-12, abs=0)
    assert a.tightest[1] == min(a.basic, a.advanced, a.rdp)


@given(st.integers(1, 200), st.floats(0.01, 1.0))
@settings(max_examples=30, deadline=None)
def test_totals_monotone_in_release_count(k, eps):
    a, b = acc1(k, eps=eps).agents[0], acc1(k + 1, eps=eps).agents[0]
    assert b.basic > a.basic
    assert b.advanced >= a.advanced - 1e-12
    assert b.rdp >= a.rdp - 1e-9


# ------------------------------------------------------------------ unbounded releases
def test_any_raw_release_makes_every_total_infinite():
    a = acc1(10, unprotected=1).agents[0]
    assert a.basic == a.advanced == a.rdp == math.inf and math.isinf(a.rdp_order)
    assert not a.protected
    assert a.unbounded == {"raw_q": 1}  # the count alone is taken as raw Q-values
    assert a.reason == "t released raw Q-values 1 time without noise: no finite epsilon"
    # the thesis's figure still counts noisy releases only: it is not a bound
    assert a.nominal_basic == pytest.approx(1.0)


def test_unbounded_kinds_kept_and_zero_kinds_dropped():
    a = acc1(3, unprotected=4, unbounded={"raw_policy": 3, "raw_visits": 1,
                                          "raw_q": 0}).agents[0]
    assert a.unbounded == {"raw_policy": 3, "raw_visits": 1}
    assert "raw policy" in a.reason and "visit counts" in a.reason


def test_agent_privacy_reason_falls_back_to_raw_q_when_kinds_missing():
    a = AgentPrivacy(agent="z", releases=0, unprotected_releases=2, epsilon_per_release=1,
                     nominal_epsilon_per_release=1, basic=math.inf, advanced=math.inf,
                     rdp=math.inf, rdp_order=math.inf, nominal_basic=0)
    assert a.reason == "z released raw Q-values 2 times without noise: no finite epsilon"


# ------------------------------------------------------------------ AdvisingAccounting
@pytest.fixture
def mixed():
    return account_advising(["a", "b", "c"], [10, 0, 4], [0, 3, 2], epsilon=1.0,
                            noise_sensitivity=1.0, strict_sensitivity=2.0,
                            unbounded=[{}, {"raw_q": 3}, {"raw_policy": 2}],
                            max_releases=[20, 20, 20])


def test_totals_per_accountant(mixed):
    np.testing.assert_array_equal(mixed.totals("basic"), [20.0, np.inf, np.inf])
    np.testing.assert_array_equal(mixed.totals(), mixed.totals("basic"))
    np.testing.assert_array_equal(mixed.totals("nominal"), [10.0, 0.0, 4.0])
    adv = mixed.totals("advanced")
    assert adv[0] == pytest.approx(adv_closed_form(2.0, 10, DEFAULT_DELTA / 21))
    assert np.isinf(adv[1:]).all() and np.isinf(mixed.totals("rdp")[1:]).all()
    assert mixed.totals("rdp").dtype == np.float64


@pytest.mark.parametrize("bad", ["", "Basic", "zcdp", "nominal_basic_x"])
def test_totals_unknown_accountant_names_field(mixed, bad):
    with pytest.raises(InputError) as ei:
        mixed.totals(bad)
    assert ei.value.field == "accountant"


def test_counts_and_kinds(mixed):
    assert mixed.unprotected == 5 and not mixed.bounded
    assert mixed.unbounded_by_kind() == {"raw_q": 3, "raw_policy": 2}
    assert mixed.reasons()[0] is None
    assert mixed.reasons()[1].startswith("b released raw Q-values 3 times")


def test_statement_mentions_nominal_claim_and_unbounded(mixed):
    s = mixed.statement()
    assert "1/1" in s and "2-DP" in s  # scale S/ε and true ε per release
    assert "claims 1, which is not a bound" in s
    assert "3 raw Q-values" in s and "2 raw policy" in s
    assert ADJACENCY in s


def test_statement_without_mismatch_or_raw_releases():
    acc = acc1(3, eps=0.5, noise=2.0, strict=2.0)
    s = acc.statement()
    assert "not a bound" not in s and "Unbounded" not in s
    assert acc.bounded and acc.unbounded_by_kind() == {}


def test_to_dict_is_strict_json_with_nulls_and_reasons(mixed):
    d = mixed.to_dict()
    text = json.dumps(d, allow_nan=False)  # no inf/nan leaks into the JSON
    back = json.loads(text)
    assert back["basic"] == [20.0, None, None]
    assert back["basic_reason"][0] is None and "raw policy" in back["basic_reason"][2]
    assert back["epsilon_per_release"] == 2.0 and back["delta"] == DEFAULT_DELTA
    assert back["accountants"] == ACCOUNTANTS
    assert back["releases"] == [10, 0, 4] and back["unprotected_releases"] == [0, 3, 2]
    assert back["nominal_basic"] == [10.0, 0.0, 4.0]


def test_to_dict_bounded_run_has_no_reason_keys():
    d = acc1(5).to_dict()
    assert not any(k.endswith("_reason") for k in d)
    assert d["basic"] == [pytest.approx(0.5)]


def test_agent_to_dict_round_numbers_and_nulls(mixed):
    ok, raw = mixed.agents[0].to_dict(), mixed.agents[1].to_dict()
    json.dumps([ok, raw], allow_nan=False)
    assert ok["protected"] and ok["basic"] == 20.0 and "basic_reason" not in ok
    assert ok["max_releases"] == 20 and ok["tightest"] in ("basic", "advanced", "rdp")
    assert raw["basic"] is None and raw["rdp"] is None and raw["rdp_order"] is None
    assert raw["basic_reason"] == raw["advanced_reason"] == raw["rdp_reason"]
    assert raw["unbounded_releases"] == {"raw_q": 3} and not raw["protected"]


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-9, float("nan"), 2.0])
def test_bad_delta_names_field(bad):
    with pytest.raises(InputError) as ei:
        acc1(3, delta=bad)
    assert ei.value.field == "delta"


def test_empty_teacher_list():
    acc = account_advising([], [], [], epsilon=1.0, noise_sensitivity=1.0,
                           strict_sensitivity=1.0)
    assert acc.agents == () and acc.bounded and acc.totals("rdp").shape == (0,)
    assert json.loads(json.dumps(acc.to_dict(), allow_nan=False))["basic"] == []


def test_unicode_agent_names_survive():
    acc = account_advising(["教師", "Ωmega"], [1, 2], [0, 0], epsilon=0.1,
                           noise_sensitivity=1.0, strict_sensitivity=1.0)
    assert [a.agent for a in acc.agents] == ["教師", "Ωmega"]
    assert json.loads(json.dumps(acc.agents[0].to_dict()))["agent"] == "教師"


def test_counts_for_fewer_teachers_than_agents_are_refused() -> None:
    """One count per teacher: a shorter list would silently drop a teacher (and its
    releases) from every total."""
    from core.advising.accounting import account_advising

    with pytest.raises(ValueError, match="one entry per teacher"):
        account_advising(["a", "b"], [10], [0, 3], epsilon=1.0, noise_sensitivity=1.0,
                         strict_sensitivity=1.0)
