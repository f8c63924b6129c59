"""Unit tests of core.sharing.mechanism's closed forms and checks and core.sharing.gym_import,
each against an independent computation (scipy's Beta and Dirichlet, math.lgamma, a brute
transition-table walk).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from core.common.errors import InputError
from core.sharing import gym_import
from core.sharing.gym_import import (
    GYM_FAMILIES,
    GYM_IDS,
    family_of,
    gym_actions,
    gym_environments,
    import_gym,
    parse_gym_id,
    resolve_gym_id,
)
from core.sharing.mechanism import (
    alpha_lambda,
    check_sharing,
    delta_closed_form,
    gamma_split,
    gamma_split_limit,
    ignore_threshold,
    lemma1_tail_m2,
    teacher_policy_in_domain,
    theorem1_epsilon,
    vertex,
)

m_eta = st.integers(min_value=2, max_value=8).flatmap(
    lambda m: st.tuples(st.just(m), st.floats(min_value=1e-3, max_value=1.0 / m)))


def _G(k, m, eta):
    return ((m - 1) * math.lgamma(k * eta) + math.lgamma(k * (1 - (m - 1) * eta))
            - m * math.lgamma(k / m))


# --- check_sharing -----------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, field", [
    ((1, 0.1), {}, "m"), ((True, 0.1), {}, "m"), ((2.0, 0.1), {}, "m"),
    ((3, 0.0), {}, "eta"), ((3, 0.4), {}, "eta"), ((3, math.nan), {}, "eta"),
    ((3, "0.1"), {}, "eta"),
    ((3, 0.1), {"k": 0.0}, "k"), ((3, 0.1), {"k": math.inf}, "k"),
    ((3, 0.1), {"tau": 0.0}, "tau"), ((3, 0.1), {"tau": 1 / 3}, "tau"),
    ((3, 0.1), {"lb": -0.1}, "lb"), ((3, 0.1), {"lb": math.inf}, "lb")])
def test_check_sharing_names_the_field(args, kwargs, field):
    with pytest.raises(InputError) as err:
        check_sharing(*args, **kwargs)
    assert err.value.field == field


def test_check_sharing_accepts_the_domain_edges():
    assert check_sharing(4, 0.25, k=1e-9, tau=0.2499, lb=0.0) is None
    assert check_sharing(np.int64(2), 0.5) is None


# --- the gamma split ---------------------------------------------------------------------------

@settings(max_examples=30)
@given(m_eta, st.floats(min_value=0.05, max_value=200.0))
def test_gamma_split_matches_lgamma_and_is_non_negative(me, k):
    m, eta = me
    g = gamma_split(k, m, eta)
    assert g >= 0.0
    assert g == pytest.approx(max(_G(k, m, eta), 0.0), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("m", [2, 3, 5])
@pytest.mark.parametrize("k", [0.5, 3.0, 40.0])
def test_gamma_split_vanishes_at_the_uniform_eta(m, k):
    assert gamma_split(k, m, 1.0 / m) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("m, eta", [(2, 0.1), (3, 0.05), (6, 0.1), (4, 0.2)])
def test_gamma_split_approaches_its_small_k_limit(m, eta):
    lim = gamma_split_limit(m, eta)
    assert lim == pytest.approx(-(m - 1) * math.log(eta) - m * math.log(m)
                                - math.log(1 - (m - 1) * eta))
    assert gamma_split(1e-7, m, eta) == pytest.approx(lim, abs=1e-4)


# --- Theorem 1's epsilon --------------------------------------------------------------------------

@settings(max_examples=30)
@given(m_eta, st.floats(min_value=0.1, max_value=50.0), st.floats(min_value=0.0, max_value=1.0),
       st.floats(min_value=0.01, max_value=0.99))
def test_theorem1_epsilon_is_eq12_plus_a_tiny_rounding_allowance(me, k, lb, tau_frac):
    m, eta = me
    tau = tau_frac / m
    want = math.sqrt(m) * lb * k * math.log(1 / tau) + max(_G(k, m, eta), 0.0)
    eps = theorem1_epsilon(k, m, eta, tau, lb)
    assert eps >= want - 1e-9
    assert eps == pytest.approx(want, rel=1e-9, abs=1e-9)
    tight = theorem1_epsilon(k, m, eta, tau, lb, bound="tight")
    assert tight <= eps + 1e-12
    assert eps - tight == pytest.approx(math.sqrt(m) * lb * k * math.log(1 / tau) / 2,
                                        rel=1e-9, abs=1e-9)


def test_theorem1_epsilon_refuses_an_unknown_bound():
    with pytest.raises(InputError) as err:
        theorem1_epsilon(1.0, 2, 0.1, 0.1, 0.1, bound="loose")
    assert err.value.field == "bound"


# --- vertex and the closed-form delta ------------------------------------------------------------

@settings(max_examples=30)
@given(m_eta)
def test_vertex_is_a_point_of_the_restricted_simplex(me):
    m, eta = me
    v = vertex(m, eta)
    assert v.shape == (m,) and v.sum() == pytest.approx(1.0)
    assert (v >= eta - 1e-15).all() and v[-1] == pytest.approx(1 - (m - 1) * eta)


@pytest.mark.parametrize("k, eta, tau", [(2.0, 0.1, 0.05), (10.0, 0.3, 0.2), (0.5, 0.5, 0.4)])
def test_delta_for_two_actions_is_the_two_beta_tails(k, eta, tau):
    # x ~ Dir_k(eta, 1 - eta): x_1 ~ Beta(k eta, k (1 - eta)); min < tau: x_1 < tau or x_2 < tau
    a, b = k * eta, k * (1 - eta)
    want = sps.beta.cdf(tau, a, b) + sps.beta.sf(1 - tau, a, b)
    assert delta_closed_form(k, 2, eta, tau) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("m, tau", [(3, 0.1), (4, 0.05), (5, 0.15)])
def test_delta_for_the_uniform_dirichlet_matches_a_monte_carlo(m, tau):
    want = delta_closed_form(float(m), m, 1.0 / m, tau)
    assert want == pytest.approx(1 - (1 - m * tau) ** (m - 1))
    x = np.random.default_rng(0).dirichlet(np.ones(m), size=20_000)
    hat = float((x.min(axis=1) < tau).mean())
    sd = math.sqrt(want * (1 - want) / 20_000)
    assert abs(hat - want) < 5 * sd


def test_delta_has_no_closed_form_elsewhere():
    assert delta_closed_form(2.0, 3, 0.1, 0.05) is None
    assert delta_closed_form(3.0, 3, 0.2, 0.05) is None


# --- the student's radius ---------------------------------------------------------------------

@pytest.mark.parametrize("k, lam, beta", [(0.0, 1.0, 0.05), (10.0, 2.0, 0.1), (99.0, 0.5, 0.5)])
def test_alpha_lambda_closed_form(k, lam, beta):
    assert alpha_lambda(k, lam, beta) == pytest.approx(
        lam * math.sqrt(math.log(1 / beta) / (2 * (k + 1))))


@pytest.mark.parametrize("lam, beta", [(1.0, 0.05), (3.0, 0.01), (10.0, 0.2)])
def test_ignore_threshold_is_where_alpha_reaches_sqrt2(lam, beta):
    k_star = ignore_threshold(lam, beta)
    assert k_star == pytest.approx(lam * lam * math.log(1 / beta) / 4 - 1)
    if k_star >= 0:
        assert alpha_lambda(k_star, lam, beta) == pytest.approx(math.sqrt(2))


@pytest.mark.parametrize("call, field", [
    (lambda: alpha_lambda(1.0, -1.0, 0.1), "lambda"),
    (lambda: alpha_lambda(1.0, math.inf, 0.1), "lambda"),
    (lambda: alpha_lambda(1.0, 1.0, 0.0), "beta"),
    (lambda: alpha_lambda(1.0, 1.0, 1.0), "beta"),
    (lambda: alpha_lambda(-1.0, 1.0, 0.5), "k"),
    (lambda: alpha_lambda(math.nan, 1.0, 0.5), "k"),
    (lambda: ignore_threshold(1.0, 2.0), "beta")])
def test_student_parameter_refusals(call, field):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.field == field


@pytest.mark.parametrize("k, beta", [(100.0, 0.05), (10.0, 0.1), (1.0, 0.3)])
def test_lemma1_tail_matches_the_beta_distribution(k, beta):
    r, tail = lemma1_tail_m2(k, beta)
    assert r == pytest.approx(math.sqrt(math.log(1 / beta) / (2 * (k + 1))))
    # ||x - pi||_2 = sqrt(2)|x_1 - 1/2| with x_1 ~ Beta(k/2, k/2): symmetric two-sided tail
    d = r / math.sqrt(2)
    want = sps.beta.cdf(0.5 - d, k / 2, k / 2) + sps.beta.sf(0.5 + d, k / 2, k / 2)
    assert tail == pytest.approx(want, rel=1e-7, abs=1e-12)


def test_lemma1_tail_is_zero_when_the_radius_leaves_the_simplex():
    r, tail = lemma1_tail_m2(0.0, 1e-6)
    assert r / math.sqrt(2) >= 0.5 and tail == 0.0


# --- teacher policy in the domain ----------------------------------------------------------------

@settings(max_examples=30)
@given(st.integers(min_value=2, max_value=6).flatmap(
    lambda m: st.tuples(st.lists(st.floats(min_value=0, max_value=1), min_size=m, max_size=m),
                        st.floats(min_value=1e-3, max_value=1.0 / m))))
def test_teacher_policy_lands_in_the_restricted_simplex_and_contracts(args):
    w, eta = args
    m = len(w)
    p = np.array(w) + 1e-9
    p /= p.sum()
    q = np.roll(p, 1)
    tp, tq = teacher_policy_in_domain(np.stack([p, q]), eta)
    for t in (tp, tq):
        assert t.sum() == pytest.approx(1.0) and (t >= eta - 1e-12).all()
    assert np.linalg.norm(tp - tq) == pytest.approx((1 - m * eta) * np.linalg.norm(p - q),
                                                    abs=1e-12)


@pytest.mark.parametrize("bad", [[0.5, 0.6], [-0.2, 1.2], [0.3, 0.3]])
def test_teacher_policy_refuses_a_non_probability_row(bad):
    with pytest.raises(InputError) as err:
        teacher_policy_in_domain(np.array(bad), 0.1)
    assert err.value.field == "policy"


def test_teacher_policy_refuses_an_eta_outside_the_domain():
    with pytest.raises(InputError) as err:
        teacher_policy_in_domain(np.array([0.25] * 4), 0.3)
    assert err.value.field == "eta"


# --- gym import ----------------------------------------------------------------------------------

@pytest.mark.parametrize("gid, fam", [("FrozenLake-v1", "FrozenLake"), ("Taxi-v3", "Taxi"),
                                      ("CliffWalking-v9", "CliffWalking")])
def test_family_of(gid, fam):
    assert family_of(gid) == fam


@pytest.mark.parametrize("bad", ["CartPole-v1", "Taxi", "taxi-v3", "Taxi-v", "Taxi-v3 ", ""])
def test_family_of_refuses_naming_env(bad):
    with pytest.raises(InputError) as err:
        family_of(bad)
    assert err.value.field == "env"
    assert all(f in err.value.problem for f in GYM_FAMILIES)


@pytest.mark.parametrize("text, want", [
    ("gym:FrozenLake-v1", ("FrozenLake-v1", None)),
    ("gym:FrozenLake-v1:8x8", ("FrozenLake-v1", "8x8")),
    ("Taxi-v3", ("Taxi-v3", None))])
def test_parse_gym_id(text, want):
    assert parse_gym_id(text) == want


@pytest.mark.parametrize("text", ["gym:Taxi-v3:4x4", "gym:FrozenLake-v1:5x5", "gym:Pong-v0"])
def test_parse_gym_id_refusals(text):
    with pytest.raises(InputError) as err:
        parse_gym_id(text)
    assert err.value.field == "env"


@pytest.mark.parametrize("gid, n", [("FrozenLake-v1", 4), ("CliffWalking-v0", 4),
                                    ("Taxi-v3", 6)])
def test_gym_actions_counts(gid, n):
    acts = gym_actions(gid)
    assert len(acts) == n and len(set(acts)) == n


def test_without_gymnasium_every_id_is_unavailable_with_the_reason(monkeypatch):
    monkeypatch.setattr(gym_import, "gym_available", lambda: False)
    with pytest.raises(InputError) as err:
        resolve_gym_id("Taxi-v3")
    assert err.value.field == "env" and "privplan[gym]" in err.value.problem
    rows = gym_environments()
    assert [r["id"] for r in rows] == list(GYM_IDS)
    assert all(not r["available"] and r["resolves_to"] is None and "not installed" in r["note"]
               for r in rows)


@pytest.fixture
def gym():
    """gymnasium (the ``gym`` extra), or skip the test."""
    return pytest.importorskip("gymnasium")


def test_resolve_gym_id_falls_back_to_the_newest_registered_version(monkeypatch, gym):
    monkeypatch.setattr(gym_import, "_registered",
                        lambda fam: [(3, "Taxi-v3"), (7, "Taxi-v7")])
    assert resolve_gym_id("Taxi-v7") == ("Taxi-v7", None)
    to, note = resolve_gym_id("Taxi-v5")
    assert to == "Taxi-v7" and "Taxi-v5 is not registered" in note
    monkeypatch.setattr(gym_import, "_registered", lambda fam: [])
    with pytest.raises(InputError) as err:
        resolve_gym_id("Taxi-v3")
    assert err.value.field == "env" and "registers no Taxi" in err.value.problem


def test_frozenlake_import_matches_the_transition_table(gym):
    mdp = import_gym("gym:FrozenLake-v1")
    env = gym.make("FrozenLake-v1", is_slippery=True)
    table = env.unwrapped.P
    env.close()
    S = 16
    assert mdp.P.shape == (S, 4, S)
    np.testing.assert_allclose(mdp.P.sum(axis=2), 1.0)
    terminal = {int(n) for s in range(S) for a in range(4) for _, n, _, d in table[s][a] if d}
    assert terminal == {5, 7, 11, 12, 15}
    for s in range(S):
        for a in range(4):
            if s in terminal:
                assert mdp.P[s, a, s] == 1.0 and mdp.R[s, a] == 0.0
                continue
            want = np.zeros(S)
            r = 0.0
            for p, n, rew, _ in table[s][a]:
                want[int(n)] += p
                r += p * rew
            np.testing.assert_allclose(mdp.P[s, a], want)
            assert mdp.R[s, a] == pytest.approx(r)
    assert mdp.initial_state == 0 and mdp.state_names[0] == "S0,0"
    assert mdp.state_names[15] == "G3,3" and mdp.state_names[5] == "H1,1"
    assert mdp.name == "FrozenLake-v1 (gymnasium)"


def test_frozenlake_8x8_variant_and_discount(gym):
    mdp = import_gym("gym:FrozenLake-v1:8x8", discount=0.9)
    assert mdp.P.shape == (64, 4, 64)
    assert mdp.discount == 0.9 and mdp.horizon is None
    assert mdp.name == "FrozenLake-v1:8x8 (gymnasium)"


def test_a_gymnasium_failure_is_one_line_naming_env(monkeypatch, gym):
    def broken(*a, **k):
        raise RuntimeError("no\nsuch   thing")
    monkeypatch.setattr(gym, "make", broken)
    with pytest.raises(InputError) as err:
        import_gym("gym:Taxi-v3")
    assert err.value.field == "env"
    assert "RuntimeError: no such thing" in err.value.problem and "\n" not in str(err.value)
