"""Unit tests of core.sharing.learning's exact-learning helpers and core.sharing.rollouts'
random policies: each checked against an independent computation (finite differences,
forward summation of the discounted visits, a brute-force reachability walk).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.examples import random_mdp
from core.mdp.model import MDP
from core.sharing.learning import (
    actions_policy,
    curve_ks,
    curve_tau,
    evaluate_softmax,
    horizon_weight,
    policy_value,
    reachable_states,
    reward_scale,
    run_policy,
    softmax_policy,
)
from core.sharing.rollouts import _pick, random_policies


def _mdp_with_mask(horizon, seed=0, S=4, A=3):
    base = random_mdp(S, A, horizon, seed=seed)
    mask = np.ones((S, A), dtype=bool)
    mask[1, 0] = mask[2, 2] = False
    return MDP(P=base.P, R=base.R, R_T=base.R_T, mask=mask, horizon=horizon,
               discount=0.9 if horizon is None else 0.95, initial_state=0)


def _value_by_rollout_sum(mdp, pi):
    """J(π) by summing the expected discounted reward of each step (forward in time)."""
    rho = np.zeros(mdp.n_states)
    rho[mdp.initial_state] = 1.0
    Ppi = np.einsum("sa,sat->st", pi, mdp.P)
    rpi = (pi * mdp.R).sum(axis=1)
    steps = mdp.horizon if mdp.horizon is not None else 600
    total = 0.0
    for t in range(steps):
        total += mdp.discount ** t * rho @ rpi
        rho = rho @ Ppi
    if mdp.horizon is not None:
        total += mdp.discount ** steps * rho @ mdp.R_T
    return total


# --- softmax policies --------------------------------------------------------------------------

@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=10_000))
def test_softmax_policy_is_a_distribution_on_the_available_actions(seed):
    rng = np.random.default_rng(seed)
    theta = rng.normal(scale=5, size=(5, 4))
    mask = rng.random((5, 4)) < 0.7
    mask[np.arange(5), rng.integers(4, size=5)] = True
    pi = softmax_policy(theta, mask)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0)
    assert (pi[~mask] == 0).all()
    for s in range(5):
        e = np.exp(theta[s][mask[s]] - theta[s][mask[s]].max())
        np.testing.assert_allclose(pi[s][mask[s]], e / e.sum())


def test_softmax_policy_is_shift_invariant_and_survives_huge_preferences():
    theta = np.array([[1000.0, 999.0, -1000.0]])
    mask = np.ones((1, 3), dtype=bool)
    pi = softmax_policy(theta, mask)
    np.testing.assert_allclose(pi, softmax_policy(theta - 1000.0, mask))
    assert np.isfinite(pi).all()
    assert pi[0, 0] == pytest.approx(1 / (1 + math.exp(-1)))


# --- values and gradients ------------------------------------------------------------------------

@pytest.mark.parametrize("horizon", [None, 4])
def test_policy_value_matches_a_forward_sum_and_evaluate_softmax(horizon):
    mdp = _mdp_with_mask(horizon)
    pi = softmax_policy(np.random.default_rng(1).normal(size=(4, 3)), mdp.mask)
    want = _value_by_rollout_sum(mdp, pi)
    assert policy_value(mdp, pi) == pytest.approx(want, rel=1e-9)
    J, _, d = evaluate_softmax(mdp, pi)
    assert J == pytest.approx(want, rel=1e-9)
    assert d.sum() == pytest.approx(1.0) and (d >= 0).all()


@pytest.mark.parametrize("horizon", [None, 3])
def test_policy_gradient_matches_finite_differences(horizon):
    mdp = _mdp_with_mask(horizon, seed=2)
    theta = np.random.default_rng(3).normal(size=(4, 3))
    _, grad, _ = evaluate_softmax(mdp, softmax_policy(theta, mdp.mask))
    h = 1e-6
    for s in range(4):
        for a in range(3):
            if not mdp.mask[s, a]:
                assert grad[s, a] == 0.0
                continue
            tp, tm = theta.copy(), theta.copy()
            tp[s, a] += h
            tm[s, a] -= h
            fd = (policy_value(mdp, softmax_policy(tp, mdp.mask))
                  - policy_value(mdp, softmax_policy(tm, mdp.mask))) / (2 * h)
            assert grad[s, a] == pytest.approx(fd, abs=1e-6)


def test_occupancy_is_the_normalised_discounted_visits():
    mdp = _mdp_with_mask(5, seed=4)
    pi = softmax_policy(np.zeros((4, 3)), mdp.mask)
    _, _, d = evaluate_softmax(mdp, pi)
    rho = np.zeros(4)
    rho[0] = 1.0
    Ppi = np.einsum("sa,sat->st", pi, mdp.P)
    w = np.zeros(4)
    for t in range(5):
        w += mdp.discount ** t * rho
        rho = rho @ Ppi
    np.testing.assert_allclose(d, w / w.sum())
    assert w.sum() == pytest.approx(horizon_weight(mdp))


# --- horizon weight, reward scale, curve helpers ---------------------------------------------

@pytest.mark.parametrize("horizon, discount", [(None, 0.9), (None, 0.5), (7, 0.8), (7, 1.0),
                                               (1, 0.3)])
def test_horizon_weight_is_the_sum_of_discounts(horizon, discount):
    mdp = MDP(P=np.ones((2, 1, 2)) / 2, R=np.zeros((2, 1)), horizon=horizon,
              discount=discount)
    want = (1 / (1 - discount) if horizon is None
            else sum(discount ** t for t in range(horizon)))
    assert horizon_weight(mdp) == pytest.approx(want)


def test_reward_scale_ignores_unavailable_actions_and_counts_terminal_rewards():
    P = np.ones((2, 2, 2)) / 2
    R = np.array([[0.5, -9.0], [-0.25, 0.1]])
    mask = np.array([[True, False], [True, True]])
    mdp = MDP(P=P, R=R, R_T=np.array([0.0, -0.7]), mask=mask, horizon=3)
    assert reward_scale(mdp) == pytest.approx(0.7)
    assert reward_scale(mdp, "none") == 1.0
    zero = MDP(P=P, R=np.zeros((2, 2)), horizon=3)
    assert reward_scale(zero) == 1.0


@pytest.mark.parametrize("k0", [0.5, 10.0, 1234.0])
def test_curve_ks_spans_three_decades_below_and_one_above(k0):
    ks = curve_ks(k0)
    assert ks.size == 15
    assert ks[0] == pytest.approx(k0 / 1000) and ks[-1] == pytest.approx(10 * k0)
    ratios = ks[1:] / ks[:-1]
    np.testing.assert_allclose(ratios, ratios[0])


@pytest.mark.parametrize("tau, m, want", [(0.1, 4, 0.1), (0.0, 4, 1e-300), (-1.0, 2, 1e-300)])
def test_curve_tau_clamps_into_the_open_interval(tau, m, want):
    assert curve_tau(tau, m) == want


def test_curve_tau_clamps_below_one_over_m():
    t = curve_tau(0.9, 3)
    assert t < 1 / 3 and t == pytest.approx(1 / 3)


# --- deterministic teachers ----------------------------------------------------------------------

def test_actions_policy_is_one_hot_on_the_given_actions():
    mdp = _mdp_with_mask(None)
    pi = actions_policy(mdp, [2, 1, 0, 1])
    np.testing.assert_array_equal(pi.argmax(axis=1), [2, 1, 0, 1])
    np.testing.assert_array_equal(pi.sum(axis=1), np.ones(4))


@pytest.mark.parametrize("acts, words", [
    ([0, 1, 2], "one action index per state"), ([0.0, 1.0, 1.0, 1.0], "one action index"),
    ([0, 0, 1, 1], "does not have"), ([0, 1, 2, 3], "does not have"),
    ([0, 1, 1, -1], "does not have")])
def test_actions_policy_refusals_name_teacher(acts, words):
    with pytest.raises(InputError) as err:
        actions_policy(_mdp_with_mask(None), acts)
    assert err.value.field == "teacher" and words in err.value.problem


class _Run:
    def __init__(self, kind, summary, rid="r1"):
        self.kind, self.summary, self.id = kind, summary, rid


def test_run_policy_reads_the_first_stage_or_a_stationary_policy():
    assert run_policy(_Run("bounds", {"policy": [[1, 0, 2], [0, 0, 0]]})) == [1, 0, 2]
    assert run_policy(_Run("bounds", {"policy": [2, 2, 1]})) == [2, 2, 1]


@pytest.mark.parametrize("run, words", [
    (_Run("bounds", {"policy": [0], "policy_probs": [[1.0]]}), "stochastic policy"),
    (_Run("evaluate", {"policy": [0]}), "is not a Synthesise & bound run"),
    (_Run("bounds", {}), "is not a Synthesise & bound run")])
def test_run_policy_refusals_name_teacher(run, words):
    with pytest.raises(InputError) as err:
        run_policy(run)
    assert err.value.field == "teacher" and words in err.value.problem
    assert "'r1'" in err.value.problem


# --- reachability -----------------------------------------------------------------------------

def _brute_reach(P, mask, s0):
    seen = {s0}
    changed = True
    while changed:
        changed = False
        for s in list(seen):
            for a in range(P.shape[1]):
                if not mask[s, a]:
                    continue
                for t in range(P.shape[2]):
                    if P[s, a, t] > 0 and t not in seen:
                        seen.add(t)
                        changed = True
    return seen


@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=10_000))
def test_reachable_states_match_a_brute_force_walk(seed):
    rng = np.random.default_rng(seed)
    S, A = 6, 2
    P = (rng.random((S, A, S)) < 0.2).astype(float)
    P[np.arange(S), :, np.arange(S)] += 1.0   # every row has mass
    P /= P.sum(axis=2, keepdims=True)
    mask = rng.random((S, A)) < 0.7
    mask[:, 0] = True
    s0 = int(rng.integers(S))
    mdp = MDP(P=P, R=np.zeros((S, A)), mask=mask, horizon=None, discount=0.9,
              initial_state=s0)
    got = reachable_states(mdp)
    assert set(np.flatnonzero(got).tolist()) == _brute_reach(P, mask, s0)


# --- sampling helpers --------------------------------------------------------------------------

@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=10_000))
def test_pick_is_the_inverse_cdf(seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(5), size=8)
    cum = np.cumsum(p, axis=1)
    u = rng.random(8)
    got = _pick(cum, u)
    for i in range(8):
        brute = next((j for j in range(5) if cum[i, j] > u[i]), 4)
        assert got[i] == brute


def test_random_policies_are_uniform_on_each_rows_simplex():
    mask = np.array([[True, True, False, True], [False, True, False, False]])
    rows = np.tile(mask, (2000, 1))          # the two rows alternate
    p = random_policies(rows, np.random.default_rng(0))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p[~rows] == 0).all()
    first = p[::2][:, [0, 1, 3]]
    # Dir(1,1,1): each coordinate ~ Beta(1, 2): mean 1/3, variance 2/36
    sd = math.sqrt((2 / 36) / 2000)
    assert (np.abs(first.mean(axis=0) - 1 / 3) < 5 * sd).all()
    assert (p[1::2, 1] == 1.0).all()
