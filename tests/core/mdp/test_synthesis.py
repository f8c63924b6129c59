"""Policy synthesis: backward induction / value + policy iteration against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.results import Status
from core.mdp.examples import example2, four_startups, random_mdp
from core.mdp.model import MDP
from core.mdp.synthesis import evaluate_policy, greedy, policy_rows, synthesize


def all_stationary_policies(m: MDP):
    return itertools.product(*(m.available_actions(s) for s in range(m.n_states)))


def brute_force_finite(m: MDP) -> np.ndarray:
    """max over every deterministic Markov policy (one action per state and stage) of V_0."""
    stage_choices = list(all_stationary_policies(m))
    best = np.full(m.n_states, -np.inf)
    for pol in itertools.product(stage_choices, repeat=m.horizon):
        best = np.maximum(best, evaluate_policy(m, np.array(pol))[0])
    return best


def brute_force_infinite(m: MDP) -> np.ndarray:
    best = np.full(m.n_states, -np.inf)
    for pol in all_stationary_policies(m):
        best = np.maximum(best, evaluate_policy(m, np.array(pol)))
    return best


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(1, 3), A=st.integers(1, 3),
       T=st.integers(1, 3), holes=st.booleans())
def test_backward_induction_equals_brute_force(random_mdp_factory, seed, S, A, T, holes):
    rng = np.random.default_rng(seed)
    m = random_mdp_factory(rng, S, A, T, holes=holes, zeros=0.3,
                           discount=float(rng.choice([1.0, 0.9])))
    if (np.prod(m.mask.sum(axis=1))) ** T > 800:  # keep the enumeration small
        m = m.replace(horizon=1)
    r = synthesize(m)
    assert r.policy.shape == (m.horizon, S) and r.values.shape == (m.horizon + 1, S)
    np.testing.assert_allclose(r.values[0], brute_force_finite(m), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(r.values[-1], m.R_T)
    assert m.mask[np.arange(S), r.policy].all()  # masked actions are never chosen
    np.testing.assert_allclose(evaluate_policy(m, r.policy), r.values, rtol=0, atol=1e-12)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(1, 4), A=st.integers(1, 3),
       discount=st.sampled_from([0.5, 0.9, 0.99]), holes=st.booleans())
def test_infinite_horizon_is_the_bellman_fixed_point(random_mdp_factory, seed, S, A, discount,
                                                     holes):
    m = random_mdp_factory(np.random.default_rng(seed), S, A, None, discount=discount,
                           holes=holes, zeros=0.3)
    r = synthesize(m)
    assert r.status is Status.SUCCESS and r.policy.shape == (S,) and r.values.shape == (S,)
    Q = m.R + m.discount * (m.P @ r.values)
    bellman = np.where(m.mask, Q, -np.inf).max(axis=1)
    assert np.max(np.abs(bellman - r.values)) < 1e-8
    np.testing.assert_allclose(r.values, brute_force_infinite(m), rtol=0, atol=1e-8)
    assert m.mask[np.arange(S), r.policy].all()
    # the policy is greedy for its own value, lowest index among (near-)ties
    np.testing.assert_allclose(Q[np.arange(S), r.policy], bellman, rtol=0, atol=1e-9)
    np.testing.assert_allclose(evaluate_policy(m, r.policy), r.values, rtol=0, atol=1e-12)


def test_large_infinite_horizon_residual():
    m = random_mdp(60, 6, None, seed=3, discount=0.99)
    r = synthesize(m)
    Q = m.R + m.discount * (m.P @ r.values)
    assert np.max(np.abs(Q.max(axis=1) - r.values)) < 1e-8
    assert r.status is Status.SUCCESS and r.n_iter >= 1


def test_ties_go_to_the_lowest_action_index():
    P = np.zeros((2, 4, 2))
    P[:, :] = (0.5, 0.5)
    R = np.array([[1.0, 1.0, 0.5, 1.0], [0.0, 2.0, 2.0, 2.0]])
    for horizon, discount in ((3, 1.0), (None, 0.9)):
        r = synthesize(MDP(P=P, R=R, horizon=horizon, discount=discount))
        pol = r.policy if horizon is None else r.policy[0]
        assert pol.tolist() == [0, 1]
    # identical actions everywhere: every stage picks action 0
    same = MDP(P=np.full((3, 3, 3), 1 / 3), R=np.ones((3, 3)), horizon=4)
    assert (synthesize(same).policy == 0).all()
    assert (synthesize(same.replace(horizon=None, discount=0.5)).policy == 0).all()


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1))
def test_ties_with_duplicated_actions(seed):
    """Duplicate an action at a higher index: the copy is never preferred."""
    base = random_mdp(4, 3, 3, seed=seed % 10_000)
    P = np.concatenate([base.P, base.P[:, :1]], axis=1)
    R = np.concatenate([base.R, base.R[:, :1]], axis=1)
    for m in (MDP(P=P, R=R, R_T=base.R_T, horizon=3),
              MDP(P=P, R=R, R_T=base.R_T, horizon=None, discount=0.8)):
        assert (synthesize(m).policy != 3).all()


def test_greedy_masks_and_ties():
    Q = np.array([[5.0, 1.0, 1.0], [-3.0, -2.0, -2.0], [0.0, 0.0, 0.0]])
    mask = np.array([[False, True, True], [True, True, True], [False, False, True]])
    assert greedy(Q, mask).tolist() == [1, 1, 2]


def test_masked_actions_are_never_chosen_even_if_they_look_best():
    """Unavailable actions have Q = 0 after zeroing; available ones are all negative here."""
    P = np.zeros((2, 3, 2))
    P[:, 1] = P[:, 2] = (0.5, 0.5)
    mask = np.array([[False, True, True], [False, True, True]])
    R = np.array([[0.0, -2.0, -1.0], [0.0, -1.0, -3.0]])
    for horizon, discount in ((2, 1.0), (None, 0.9)):
        r = synthesize(MDP(P=P, R=R, mask=mask, horizon=horizon, discount=discount))
        assert (np.asarray(r.policy) != 0).all()
        stages = r.values if horizon is None else r.values[:-1]  # the last row is R_T = 0
        assert (stages < 0).all()


def test_known_values():
    # four startups: from start, acquire_4 (0.8·0.99 success for cost 0.7) vs acquire_3 ...
    m = four_startups()
    r = synthesize(m)
    q = r.values[1]  # one stage later
    expected0 = max(-c + m.P[0, a] @ q for a, c in enumerate((0.05, 0.2, 0.4, 0.7)))
    assert r.values[0, 0] == pytest.approx(expected0, abs=1e-15)
    assert r.value_at(0) == r.values[0, 0]
    two_state = MDP(P=np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]),
                    R=np.array([[0.0, 0.0], [1.0, 1.0]]), horizon=None, discount=0.5)
    r = synthesize(two_state)
    # state 1 earns 1 forever: 1/(1 − 0.5) = 2; state 0 moves there: 0 + 0.5·2 = 1
    np.testing.assert_allclose(r.values, [1.0, 2.0], atol=1e-12)
    assert r.policy.tolist() == [1, 0] and r.value_at(1) == pytest.approx(2.0)


def test_evaluate_policy_matches_simulation_free_recursions():
    m = example2()
    rng = np.random.default_rng(0)
    pol = rng.integers(m.n_actions, size=(m.horizon, m.n_states))
    v = evaluate_policy(m, pol)
    # stage by stage: v_t = r_π + γ P_π v_{t+1}
    for t in range(m.horizon):
        rows = policy_rows(m.P, pol[t])
        np.testing.assert_allclose(v[t], m.R[np.arange(20), pol[t]] + rows @ v[t + 1], atol=1e-12)
    inf = m.replace(horizon=None, discount=0.9)
    stat = rng.integers(m.n_actions, size=m.n_states)
    vi = evaluate_policy(inf, stat)
    rows = policy_rows(inf.P, stat)
    np.testing.assert_allclose(vi, inf.R[np.arange(20), stat] + 0.9 * rows @ vi, atol=1e-12)
    # the infinite value is the limit of long finite horizons with zero terminal reward
    long = inf.replace(horizon=400, R_T=np.zeros(20))
    np.testing.assert_allclose(evaluate_policy(long, np.tile(stat, (400, 1)))[0], vi, atol=1e-9)


def test_evaluate_policy_rejects_wrong_shapes():
    m = four_startups()
    with pytest.raises(ValueError):
        evaluate_policy(m, np.zeros(3, dtype=int))
    with pytest.raises(ValueError):
        evaluate_policy(m.replace(horizon=None, discount=0.9), np.zeros((3, 3), dtype=int))


def test_result_arrays_are_read_only():
    r = synthesize(four_startups())
    with pytest.raises(ValueError):
        r.values[0, 0] = 1.0
    with pytest.raises(ValueError):
        r.policy[0, 0] = 1
    assert r.message == "converged"


def test_max_iter_is_reported():
    m = random_mdp(5, 2, None, seed=1, discount=0.99)
    r = synthesize(m, max_iter=2)
    assert r.status is Status.MAX_ITER and r.n_iter == 2
    assert "iteration limit" in r.message
    # policy iteration still polishes to the optimum
    np.testing.assert_allclose(r.values, brute_force_infinite(m), atol=1e-8)
