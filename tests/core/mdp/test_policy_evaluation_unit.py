"""Evaluating policies, against independent computations: a stochastic policy's finite-
horizon value against the sum over every trajectory of a tiny model, its discounted value
against a linear solve and a long simulation of the Bellman recursion, the sparse
stationary solver against a dense solve, and the iteration cap against the scalar worst
case it is derived from. Policy tables are validated naming stage, state and action."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy.sparse import csr_array

from core.common.errors import InputError
from core.mdp.model import MDP
from core.mdp.stochastic import (
    check_policy_table,
    check_temperature,
    deterministic_actions,
    evaluate_stochastic,
    is_stochastic,
    most_likely,
    one_hot,
)
from core.mdp.synthesis import check_sweeps, evaluate_policy, solve_stationary, sweep_cap


def _random_table(rng: np.random.Generator, mdp: MDP, stages: int | None) -> np.ndarray:
    shape = (mdp.n_states, mdp.n_actions) if stages is None else (stages, mdp.n_states,
                                                                   mdp.n_actions)
    w = rng.uniform(size=shape) * mdp.mask
    return w / w.sum(axis=-1, keepdims=True)


def _by_trajectories(mdp: MDP, pi: np.ndarray, s0: int) -> float:
    """E[Σ_t γ^t r(s_t, a_t) + γ^T R_T(s_T)] summed over every (a, s') sequence."""
    S, A, T, g = mdp.n_states, mdp.n_actions, mdp.horizon, mdp.discount
    assert T is not None
    total = 0.0
    for steps in itertools.product(range(A), range(S), repeat=T):
        prob, value, s = 1.0, 0.0, s0
        for t in range(T):
            a, nxt = steps[2 * t], steps[2 * t + 1]
            prob *= pi[t, s, a] * mdp.P[s, a, nxt]
            if prob == 0.0:
                break
            value += g ** t * mdp.R[s, a]
            s = nxt
        else:
            total += prob * (value + g ** T * mdp.R_T[s])
    return total


@pytest.mark.parametrize("seed", range(4))
def test_finite_horizon_value_is_the_sum_over_trajectories(
        seed: int, random_mdp_factory: Callable[..., MDP]) -> None:
    rng = np.random.default_rng(seed)
    m = random_mdp_factory(rng, 3, 2, 3, discount=0.9 if seed % 2 else 1.0, zeros=0.3)
    pi = _random_table(rng, m, 3)
    values = evaluate_stochastic(m, check_policy_table(m, pi))
    assert values.shape == (4, 3) and np.array_equal(values[3], m.R_T)
    for s0 in range(3):
        assert values[0, s0] == pytest.approx(_by_trajectories(m, pi, s0), abs=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_discounted_value_solves_the_bellman_equation(
        seed: int, random_mdp_factory: Callable[..., MDP]) -> None:
    rng = np.random.default_rng(seed)
    m = random_mdp_factory(rng, 5, 3, None, zeros=0.3)
    pi = _random_table(rng, m, None)
    v = evaluate_stochastic(m, check_policy_table(m, pi))
    r = (pi * m.R).sum(axis=1)
    Ppi = np.einsum("sa,sat->st", pi, m.P)
    assert np.allclose(v, r + m.discount * Ppi @ v, atol=1e-10)
    it = np.zeros(5)  # the recursion itself, run to convergence
    for _ in range(2000):
        it = r + m.discount * Ppi @ it
    assert np.allclose(v, it, atol=1e-8)


def test_a_one_hot_table_is_evaluated_like_the_deterministic_policy(
        random_mdp_factory: Callable[..., MDP]) -> None:
    rng = np.random.default_rng(9)
    for horizon in (4, None):
        m = random_mdp_factory(rng, 4, 3, horizon, masked=False)
        shape = (4,) if horizon is None else (horizon, 4)
        policy = rng.integers(0, 3, size=shape)
        table = one_hot(policy, 3)
        assert np.array_equal(deterministic_actions(table), policy)
        assert np.allclose(evaluate_stochastic(m, check_policy_table(m, table)),
                           evaluate_policy(m, policy), atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_solve_stationary_matches_a_dense_solve(seed: int) -> None:
    rng = np.random.default_rng(seed)
    S = 40
    dense = rng.uniform(size=(S, S)) * (rng.uniform(size=(S, S)) < 0.1)
    dense[np.arange(S), rng.integers(S, size=S)] += 0.5
    dense /= dense.sum(axis=1, keepdims=True)
    r = rng.normal(size=S)
    g = 0.97
    want = np.linalg.solve(np.eye(S) - g * dense, r)
    got = solve_stationary(csr_array(dense), r, g)
    assert np.allclose(got, want, atol=1e-9 * (1 + np.abs(want).max()))
    again = solve_stationary(csr_array(dense), r, g, start=want + 1.0)
    assert np.allclose(again, want, atol=1e-9 * (1 + np.abs(want).max()))


@pytest.mark.parametrize("rmax, g, tol", [(1.0, 0.9, 1e-8), (50.0, 0.99, 1e-6),
                                          (1e-3, 0.5, 1e-10), (3.0, 0.999, 1e-4),
                                          (0.0, 0.9, 1e-8)])
def test_sweep_cap_bounds_the_scalar_worst_case(rmax: float, g: float, tol: float) -> None:
    n = sweep_cap(rmax, g, tol)
    assert n >= 1
    # v_{k+1} = rmax + γ v_k from 0: the k-th step moves by rmax·γ^(k−1), the most a
    # γ-contraction started within rmax/(1−γ) of its fixed point can move at that sweep
    assert rmax * g ** (n - 1) < tol * (1 - g) / (2 * g)
    # a cap grows with the accuracy asked for and with the discount
    assert sweep_cap(rmax, g, tol / 10) >= n and sweep_cap(rmax, min(0.9999, g + (1 - g) / 2),
                                                           tol) >= n


def test_check_sweeps_refuses_past_the_time_limit(monkeypatch: pytest.MonkeyPatch,
                                                  random_mdp_factory: Callable[..., MDP]
                                                  ) -> None:
    m = random_mdp_factory(np.random.default_rng(0), 3, 2, 2)
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "1")
    check_sweeps(10, m, "horizon", "10 stages")
    with pytest.raises(InputError) as info:
        check_sweeps(1e9, m, "discount", "1e9 sweeps")
    assert info.value.field == "discount" and info.value.problem.startswith("1e9 sweeps")


# ---------------------------------------------------------------- policy tables


@pytest.fixture()
def model() -> MDP:
    P = np.zeros((2, 2, 2))
    P[:, :, 0] = 1.0
    mask = np.array([[True, True], [True, False]])
    return MDP(P=P, R=np.zeros((2, 2)), mask=mask, horizon=2,
               state_names=["home", "away"], action_names=[["go", "stay"], ["go", "x"]])


def test_a_stationary_table_is_used_at_every_stage(model: MDP) -> None:
    t = check_policy_table(model, [[0.25, 0.75], [1.0, 0.0]])
    assert t.shape == (2, 2, 2) and np.array_equal(t[0], t[1])
    assert not t.flags.writeable


@pytest.mark.parametrize("table, words", [
    ("pi", "must be an array"),
    ({"a": 1}, "must be an array"),
    ([[1.0], [1.0, 0.0]], "rectangular"),
    (np.ones((3, 2, 2)) / 2, "must have shape (T, S, A) = (2, 2, 2)"),
    ([[[0.5, 0.5], [1, 0]], [[0.5, 0.5], [1, math.nan]]],
     "stage 1, state 'away', action 'x': nan is not a finite number"),
    ([[1.5, -0.5], [1, 0]], "state 'home', action 'stay': probability -0.5 is negative"),
    ([[0.5, 0.5], [0.5, 0.5]], "state 'away': gives probability 0.5 to action 1"),
    ([[0.5, 0.4], [1, 0]], "state 'home': probabilities sum to 0.9"),
])
def test_bad_tables_are_refused_naming_where(model: MDP, table: object, words: str) -> None:
    with pytest.raises(InputError) as info:
        check_policy_table(model, table, field="--policy")
    assert info.value.field == "--policy" and words in info.value.problem


def test_table_queries() -> None:
    det = np.array([[0.0, 1.0], [1.0, 0.0]])
    mixed = np.array([[0.5, 0.5], [0.0, 1.0]])
    assert deterministic_actions(det).tolist() == [1, 0]
    assert deterministic_actions(mixed) is None
    assert deterministic_actions(np.array([[0.9999999, 0.0000001]])) is None
    assert not is_stochastic(det) and is_stochastic(mixed)
    assert most_likely(mixed).tolist() == [0, 1]  # ties: the lowest index
    assert one_hot([[2, 0]], 3).tolist() == [[[0, 0, 1], [1, 0, 0]]]


@pytest.mark.parametrize("tau", [0, -1.0, math.inf, math.nan, "x", None, True])
def test_check_temperature_refuses(tau: object) -> None:
    with pytest.raises(InputError) as info:
        check_temperature(tau, "tau")
    assert info.value.field == "tau"


def test_check_temperature_accepts_numbers_and_numeric_text() -> None:
    assert check_temperature(0.5) == 0.5 and check_temperature("2") == 2.0
