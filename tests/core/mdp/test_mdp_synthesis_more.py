"""More unit tests of policy synthesis (induction and the occupancy LP) and of stochastic
policies (core.mdp.synthesis, core.mdp.lp_synthesis, core.mdp.stochastic), each checked
against an independent computation: enumeration of every deterministic policy with
numpy.linalg.solve, the Bellman LP written out here and solved with HiGHS, and closed forms
of one-state models."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.mdp.sparse as sparse_mod
from core.common.errors import InputError
from core.common.results import Status
from core.mdp.lp_synthesis import lp_size, synthesize_lp
from core.mdp.model import MDP
from core.mdp.stochastic import (
    check_policy_table,
    deterministic_actions,
    evaluate_stochastic,
    is_stochastic,
    load_policy,
    most_likely,
    one_hot,
    softmax_policy,
)
from core.mdp.synthesis import (
    PolicyResult,
    evaluate_policy,
    greedy,
    policy_rows,
    solve_stationary,
    sweep_cap,
    synthesize,
)


def _random(seed: int, S: int, A: int, horizon: int | None, discount: float,
            zeros: float = 0.0) -> MDP:
    """A random model with every action available (independent of the conftest helper)."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(S, A, S))
    if zeros:
        u = np.where(rng.uniform(size=u.shape) < zeros, 0.0, u)
        u[np.arange(S), :, np.arange(S)] += 0.5  # every row keeps its self-loop
    P = u / u.sum(axis=2, keepdims=True)
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), horizon=horizon,
               discount=discount)


def _all_policies(S: int, A: int):
    return (np.array(p) for p in itertools.product(range(A), repeat=S))


def _direct_value(P: np.ndarray, R: np.ndarray, g: float, pol: np.ndarray) -> np.ndarray:
    S = P.shape[0]
    idx = np.arange(S)
    return np.linalg.solve(np.eye(S) - g * P[idx, pol], R[idx, pol])


# ----------------------------------------------------------------- closed forms, one state


@pytest.mark.parametrize("g", [0.1, 0.5, 0.99])
def test_one_state_one_action_discounted_value_is_the_geometric_series(g: float) -> None:
    m = MDP(P=np.ones((1, 1, 1)), R=np.array([[2.5]]), R_T=np.zeros(1), horizon=None,
            discount=g)
    r = synthesize(m)
    assert r.policy.tolist() == [0]
    assert r.value_at(0) == pytest.approx(2.5 / (1 - g), rel=1e-10)
    assert synthesize_lp(m).value_at(0) == pytest.approx(2.5 / (1 - g), rel=1e-9)


@pytest.mark.parametrize("T, g", [(1, 1.0), (5, 1.0), (7, 0.5)])
def test_one_state_finite_horizon_value_sums_the_rewards_and_the_terminal(T: int,
                                                                          g: float) -> None:
    m = MDP(P=np.ones((1, 2, 1)), R=np.array([[1.0, 3.0]]), R_T=np.array([10.0]), horizon=T,
            discount=g)
    r = synthesize(m)
    # the better action every stage: 3 per stage, then the terminal reward, all discounted
    expected = [sum(3.0 * g ** j for j in range(T - t)) + g ** (T - t) * 10.0
                for t in range(T + 1)]
    assert r.values[:, 0] == pytest.approx(expected, rel=1e-12)
    assert (r.policy == 1).all()
    assert r.values.shape == (T + 1, 1) and r.policy.shape == (T, 1)
    lp = synthesize_lp(m)
    assert lp.values[:, 0] == pytest.approx(expected, rel=1e-9)
    assert (lp.policy == 1).all()


def test_zero_rewards_give_zero_values_and_the_lowest_actions() -> None:
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(4), size=(4, 3))
    for horizon, g in ((3, 1.0), (None, 0.9)):
        m = MDP(P=P, R=np.zeros((4, 3)), R_T=np.zeros(4), horizon=horizon, discount=g)
        r = synthesize(m)
        assert not np.any(r.values)
        assert not np.any(r.policy)  # every action ties: the lowest index
        assert r.status is Status.SUCCESS


def test_absorbing_goal_state_values() -> None:
    # state 1 absorbs with reward 1 per step; state 0 either stays (reward 0) or moves
    P = np.zeros((2, 2, 2))
    P[0, 0, 0] = 1.0
    P[0, 1, 1] = 1.0
    P[1, :, 1] = 1.0
    R = np.array([[0.0, 0.0], [1.0, 1.0]])
    g = 0.9
    m = MDP(P=P, R=R, R_T=np.zeros(2), horizon=None, discount=g)
    r = synthesize(m)
    assert r.policy.tolist() == [1, 0]
    assert r.values == pytest.approx([g / (1 - g), 1 / (1 - g)], rel=1e-10)


# --------------------------------------------------------------- brute force and linear solve


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 3), A=st.integers(1, 3),
       g=st.sampled_from([0.3, 0.7, 0.95]))
def test_discounted_optimum_dominates_every_deterministic_policy(seed: int, S: int, A: int,
                                                                 g: float) -> None:
    m = _random(seed, S, A, None, g)
    values = np.array([_direct_value(m.P, m.R, g, p) for p in _all_policies(S, A)])
    best = values.max(axis=0)  # an optimal stationary policy is optimal in every state
    r = synthesize(m)
    scale = 1 + np.abs(best).max()
    assert np.abs(r.values - best).max() < 1e-9 * scale
    assert np.abs(_direct_value(m.P, m.R, g, r.policy) - best).max() < 1e-9 * scale
    lp = synthesize_lp(m)
    assert np.abs(lp.values - best).max() < 1e-8 * scale


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 4), A=st.integers(1, 3),
       g=st.sampled_from([0.5, 0.9]))
def test_values_equal_the_bellman_lp_solved_independently(seed: int, S: int, A: int,
                                                          g: float) -> None:
    from scipy.optimize import linprog

    m = _random(seed, S, A, None, g)
    # min Σ v  s.t.  v(s) >= R(s, a) + γ P(s, a)·v  for every (s, a)
    rows = []
    rhs = []
    for s in range(S):
        for a in range(A):
            row = g * m.P[s, a].copy()
            row[s] -= 1.0
            rows.append(row)
            rhs.append(-m.R[s, a])
    res = linprog(np.ones(S), A_ub=np.array(rows), b_ub=np.array(rhs), bounds=(None, None),
                  method="highs")
    assert res.status == 0
    assert np.abs(synthesize(m).values - res.x).max() < 1e-7 * (1 + np.abs(res.x).max())


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 3), A=st.integers(1, 2),
       T=st.integers(1, 3))
def test_finite_horizon_lp_matches_enumeration_of_markov_policies(seed: int, S: int, A: int,
                                                                  T: int) -> None:
    m = _random(seed, S, A, T, 1.0)
    best = np.full(S, -np.inf)
    per_stage = list(_all_policies(S, A))
    for seq in itertools.product(per_stage, repeat=T):
        v = m.R_T.copy()
        for t in reversed(range(T)):
            a = seq[t]
            v = m.R[np.arange(S), a] + m.P[np.arange(S), a] @ v
        best = np.maximum(best, v)
    assert np.abs(synthesize(m).values[0] - best).max() < 1e-10
    assert np.abs(synthesize_lp(m).values[0] - best).max() < 1e-8


# ------------------------------------------------------------------------ sparse = dense


@pytest.mark.parametrize("horizon, g", [(3, 1.0), (None, 0.8)])
def test_sparse_paths_equal_the_dense_paths(horizon: int | None, g: float,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    dense = _random(5, 30, 3, horizon, g, zeros=0.9)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    sparse = MDP(P=dense.P, R=dense.R, R_T=dense.R_T, horizon=horizon, discount=g)
    assert dense.is_dense and not sparse.is_dense
    a, b = synthesize(dense), synthesize(sparse)
    assert np.array_equal(a.policy, b.policy)
    assert np.abs(a.values - b.values).max() < 1e-9 * (1 + np.abs(a.values).max())
    assert np.abs(evaluate_policy(sparse, a.policy) - a.values).max() < 1e-9 * (
        1 + np.abs(a.values).max())
    with pytest.raises(ValueError, match="shape"):
        evaluate_policy(sparse, np.zeros(7, dtype=int))


def test_solve_stationary_is_the_fixed_point_from_any_start() -> None:
    from scipy.sparse import csr_array

    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(6), size=6)
    r = rng.normal(size=6)
    g = 0.97
    exact = np.linalg.solve(np.eye(6) - g * P, r)
    for start in (None, np.full(6, 1e6), exact):
        v = solve_stationary(csr_array(P), r, g, start)
        assert np.abs(v - exact).max() < 1e-9 * (1 + np.abs(exact).max())


# ----------------------------------------------------------------- small helpers and results


def test_greedy_and_policy_rows() -> None:
    Q = np.array([[1.0, 5.0, 5.0], [2.0, 2.0, -1.0], [-np.inf, -3.0, 0.0]])
    mask = np.array([[True, True, True], [False, True, True], [True, True, False]])
    assert greedy(Q, mask).tolist() == [1, 1, 1]
    P = np.arange(2 * 3 * 2, dtype=float).reshape(2, 3, 2)
    assert policy_rows(P, np.array([2, 0])).tolist() == [P[0, 2].tolist(), P[1, 0].tolist()]


@pytest.mark.parametrize("rmax, g, tol", [(1.0, 0.9, 1e-10), (100.0, 0.99, 1e-6),
                                          (0.0, 0.5, 1e-10), (1e300, 0.999, 1e-12),
                                          (1e-300, 0.3, 1e-3)])
def test_sweep_cap_reaches_the_threshold_and_no_more_than_one_extra(rmax: float, g: float,
                                                                    tol: float) -> None:
    n = sweep_cap(rmax, g, tol)
    assert n >= 1
    span = max(rmax / (1 - g), 1e-300)
    # sweeps needed for g^(n-1)·2·span <= tol·(1-g), written in logarithms (no overflow)
    need = (math.log(2) + math.log(span) - math.log(tol) - math.log(1 - g)) / -math.log(g)
    assert n - 1 >= need - 1e-9
    assert n - 2 < max(need, 1)


def test_values_near_the_largest_accepted_value_do_not_overflow_the_sweep_count() -> None:
    # 4e299 / (1 - 0.5) = 8e299 < MAX_VALUE: a valid model; 2·8e299 / (1e-10 · 0.5)
    # overflows a float, the sweep count must not
    m = MDP(P=np.ones((1, 1, 1)), R=np.array([[4e299]]), R_T=np.zeros(1), horizon=None,
            discount=0.5)
    r = synthesize(m)
    assert r.value_at(0) == pytest.approx(8e299, rel=1e-12)
    assert math.isinf(2 * 8e299 / (1e-10 * 0.5))  # the ratio the count was once made from
    assert r.status is Status.SUCCESS and r.n_iter <= sweep_cap(4e299, 0.5, 1e-10)
    s = softmax_policy(m, 1.0)
    assert s.values[0] == pytest.approx(8e299, rel=1e-12)


def test_policy_result_copies_writable_input_and_is_read_only() -> None:
    pol = np.array([0, 1])
    vals = np.array([1.0, 2.0])
    r = PolicyResult(pol, vals)
    pol[0] = 5
    vals[1] = -1.0
    assert r.policy.tolist() == [0, 1] and r.values.tolist() == [1.0, 2.0]
    assert not r.policy.flags.writeable and not r.values.flags.writeable
    assert r.value_at(1) == 2.0 and r.message == Status.SUCCESS.message
    fin = PolicyResult(np.zeros((2, 2), dtype=int), np.array([[3.0, 4.0], [0, 0], [0, 0]]))
    assert fin.value_at(1) == 4.0  # stage 0


def test_max_iter_one_still_returns_an_exact_value_of_its_policy() -> None:
    m = _random(12, 4, 2, None, 0.95)
    r = synthesize(m, max_iter=1)
    assert r.status is Status.MAX_ITER and r.n_iter == 1
    # policy iteration polishes anyway: the value is that policy's exact value
    assert np.abs(r.values - _direct_value(m.P, m.R, 0.95, r.policy)).max() < 1e-10


def test_lp_size_counts_pairs_and_entries() -> None:
    P = np.zeros((3, 2, 3))
    P[:, 0, 0] = 1.0
    P[0, 1, :] = [0.5, 0.5, 0.0]
    mask = np.array([[True, True], [True, False], [True, False]])
    inf = MDP(P=P, R=np.zeros((3, 2)), R_T=np.zeros(3), mask=mask, horizon=None,
              discount=0.9)
    assert lp_size(inf) == (4, 4 + 5)
    fin = inf.replace(horizon=3, discount=1.0)
    assert lp_size(fin) == (12, 3 * 9)


def test_lp_policy_uses_only_available_actions_with_masked_tempting_rewards() -> None:
    P = np.zeros((2, 3, 2))
    P[:, :, 1] = 1.0
    R = np.array([[0.0, 1.0, 100.0], [0.5, 0.0, 0.0]])
    mask = np.array([[True, True, False], [True, False, False]])
    m = MDP(P=P, R=R, R_T=np.zeros(2), mask=mask, horizon=None, discount=0.5)
    for r in (synthesize(m), synthesize_lp(m)):
        assert r.policy.tolist() == [1, 0]
        assert r.values == pytest.approx([1.0 + 0.5 * 1.0, 1.0], rel=1e-9)


# ------------------------------------------------------------------------ stochastic policies


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 4), A=st.integers(1, 3),
       horizon=st.sampled_from([None, 1, 3]))
def test_no_stochastic_policy_beats_the_optimum(seed: int, S: int, A: int,
                                                horizon: int | None) -> None:
    m = _random(seed, S, A, horizon, 0.8 if horizon is None else 1.0)
    rng = np.random.default_rng(seed + 1)
    shape = (S, A) if horizon is None else (horizon, S, A)
    table = check_policy_table(m, rng.dirichlet(np.ones(A), size=shape[:-1]))
    v = evaluate_stochastic(m, table)
    best = synthesize(m).values
    assert (v <= best + 1e-9 * (1 + np.abs(best).max())).all()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 4), A=st.integers(2, 3))
def test_stationary_stochastic_value_solves_the_averaged_linear_system(seed: int, S: int,
                                                                       A: int) -> None:
    m = _random(seed, S, A, None, 0.9)
    pi = np.random.default_rng(seed).dirichlet(np.ones(A), size=S)
    Ppi = sum(pi[:, a, None] * m.P[:, a, :] for a in range(A))
    r = (pi * m.R).sum(axis=1)
    exact = np.linalg.solve(np.eye(S) - 0.9 * Ppi, r)
    assert np.abs(evaluate_stochastic(m, check_policy_table(m, pi)) - exact).max() < 1e-10


def test_one_stage_value_is_linear_in_the_mixing_weight() -> None:
    m = _random(21, 3, 2, 1, 1.0)
    a0, a1 = one_hot(np.zeros((1, 3), int), 2), one_hot(np.ones((1, 3), int), 2)
    v0, v1 = evaluate_stochastic(m, a0)[0], evaluate_stochastic(m, a1)[0]
    for w in (0.0, 0.25, 0.5, 1.0):
        mix = evaluate_stochastic(m, (1 - w) * a0 + w * a1)[0]
        assert mix == pytest.approx((1 - w) * v0 + w * v1, abs=1e-12)


def test_one_hot_evaluation_equals_deterministic_on_a_sparse_model(monkeypatch) -> None:
    dense = _random(9, 25, 2, None, 0.85, zeros=0.9)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    sparse = MDP(P=dense.P, R=dense.R, R_T=dense.R_T, horizon=None, discount=0.85)
    assert not sparse.is_dense
    pol = synthesize(dense).policy
    exact = _direct_value(dense.P, dense.R, 0.85, pol)
    v = evaluate_stochastic(sparse, one_hot(pol, 2))
    assert np.abs(v - exact).max() < 1e-9 * (1 + np.abs(exact).max())
    pi = np.full((25, 2), 0.5)
    assert np.abs(evaluate_stochastic(sparse, pi) - evaluate_stochastic(dense, pi)).max() < 1e-9


@pytest.mark.parametrize("table, words", [
    ("abc", "array of probabilities"), (True, "array of probabilities"),
    ({"a": 1}, "array of probabilities"), ([[1.0, 0.0], [1.0]], "rectangular"),
    ([[0.5, 0.5]], "shape"),
])
def test_policy_table_type_errors_name_the_given_field(table: object, words: str) -> None:
    m = _random(1, 2, 2, None, 0.9)
    with pytest.raises(InputError) as exc:
        check_policy_table(m, table, field="--policy")
    assert exc.value.field == "--policy" and words in exc.value.problem


def test_policy_table_value_errors_name_stage_state_and_action() -> None:
    m = MDP(P=np.ones((2, 2, 2)) / 2, R=np.zeros((2, 2)), R_T=np.zeros(2), horizon=2,
            state_names=["héllo", "∞"], mask=np.array([[True, True], [True, False]]))
    good = np.array([[0.5, 0.5], [1.0, 0.0]])
    t = check_policy_table(m, good)
    assert t.shape == (2, 2, 2) and not t.flags.writeable  # stationary: every stage
    bad = np.stack([good, good])
    bad[1, 1] = [0.5, 0.5]
    with pytest.raises(InputError) as exc:
        check_policy_table(m, bad)
    assert "stage 1" in exc.value.problem and "'∞'" in exc.value.problem
    assert "action 1" in exc.value.problem
    nan = np.stack([good, good])
    nan[0, 0, 1] = math.nan
    with pytest.raises(InputError, match="stage 0, state 'héllo'.*not a finite"):
        check_policy_table(m, nan)
    off = np.stack([good, good])
    off[1, 0] = [0.5, 0.4999]
    with pytest.raises(InputError, match="sum to 0.9999"):
        check_policy_table(m, off)
    within = np.stack([good, good])
    within[1, 0] = [0.5, 0.5 + 1e-12]
    check_policy_table(m, within)


def test_load_policy_round_trip_and_refusals(tmp_path) -> None:
    m = _random(2, 2, 2, None, 0.9)
    path = tmp_path / "pi.json"
    path.write_text(json.dumps({"policy": [[0.25, 0.75], [1, 0]]}))
    t = load_policy(path, m)
    assert t.tolist() == [[0.25, 0.75], [1.0, 0.0]]
    path.write_text(json.dumps({"policy": [[0.25, 0.75], [True, False]]}))
    with pytest.raises(InputError) as exc:
        load_policy(path, m)
    assert exc.value.field == "policy" and exc.value.file == str(path)
    path.write_text(json.dumps([[1, 0], [1, 0]]))
    with pytest.raises(InputError) as exc:
        load_policy(path, m)
    assert exc.value.file == str(path)
    path.write_text(json.dumps({"policy": [[2, -1], [1, 0]]}))
    with pytest.raises(InputError) as exc:
        load_policy(path, m)
    assert exc.value.field == "policy" and "negative" in exc.value.problem


def test_table_queries_on_edge_rows() -> None:
    assert deterministic_actions(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist() == [1, 0]
    assert deterministic_actions(np.array([[0.5, 0.5]])) is None
    assert deterministic_actions(np.array([[1.0, 1.0]])) is None
    assert deterministic_actions(np.array([[1.0, 1e-300]])) is None
    assert not is_stochastic(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert is_stochastic(np.array([[1.0, 0.0], [1e-300, 1.0]]))
    assert most_likely(np.array([[0.4, 0.4, 0.2], [0.1, 0.3, 0.6]])).tolist() == [0, 2]
    assert one_hot(np.zeros((2, 3), int), 4).shape == (2, 3, 4)
    assert one_hot([], 2).shape == (0, 2)


@pytest.mark.parametrize("horizon", [None, 2])
def test_softmax_soft_values_bound_the_optimum(horizon: int | None) -> None:
    g = 0.8 if horizon is None else 1.0
    m = _random(31, 4, 3, horizon, g)
    best = synthesize(m).values
    tau = 0.3
    r = softmax_policy(m, tau)
    # entropy adds between 0 and τ·log A per stage
    stages = horizon if horizon is not None else None
    bonus = tau * math.log(3) * (stages if stages is not None else 1 / (1 - g))
    w0 = r.soft_values[0] if horizon is not None else r.soft_values
    b0 = best[0] if horizon is not None else best
    assert (w0 >= b0 - 1e-9).all() and (w0 <= b0 + bonus + 1e-9).all()
    assert (r.values <= best + 1e-9).all()
    assert np.allclose(r.policy.sum(axis=-1), 1.0) and (r.policy > 0).all()


def test_softmax_gives_masked_actions_zero_and_one_action_is_greedy() -> None:
    P = np.full((2, 3, 2), 0.5)
    mask = np.array([[True, True, False], [True, False, False]])
    P[~mask] = 0.0
    m = MDP(P=P, R=np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]), R_T=np.zeros(2), mask=mask,
            horizon=None, discount=0.5)
    r = softmax_policy(m, 1.0)
    assert r.policy[0, 2] == 0.0 and r.policy[1].tolist() == [1.0, 0.0, 0.0]
    # state 0: probabilities ∝ exp(Q/τ), and Q differs by the reward only (same rows)
    assert r.policy[0, 1] / r.policy[0, 0] == pytest.approx(math.e, rel=1e-9)
    assert r.status is Status.SUCCESS and r.temperature == 1.0


# ------------------------------------------------------------------- masks and trajectories


def _masked(seed: int, S: int, A: int, horizon: int | None, g: float) -> MDP:
    rng = np.random.default_rng(seed)
    mask = rng.uniform(size=(S, A)) < 0.6
    mask[np.arange(S), rng.integers(A, size=S)] = True
    P = rng.dirichlet(np.ones(S), size=(S, A)) * mask[:, :, None]
    return MDP(P=P, R=rng.normal(size=(S, A)) * 10, R_T=rng.normal(size=S), mask=mask,
               horizon=horizon, discount=g)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 4), A=st.integers(1, 3),
       horizon=st.sampled_from([None, 1, 3]), g=st.sampled_from([0.5, 0.9]))
def test_lp_and_induction_agree_with_holes_in_the_action_sets(seed: int, S: int, A: int,
                                                              horizon: int | None,
                                                              g: float) -> None:
    m = _masked(seed, S, A, horizon, g)
    ind, lp = synthesize(m), synthesize_lp(m)
    scale = 1 + np.abs(ind.values).max()
    assert np.abs(lp.values - ind.values).max() < 1e-8 * scale
    pol = lp.policy if lp.policy.ndim == 2 else lp.policy[None]
    assert m.mask[np.arange(S)[None, :], pol].all()
    ipol = ind.policy if ind.policy.ndim == 2 else ind.policy[None]
    assert m.mask[np.arange(S)[None, :], ipol].all()


def test_finite_horizon_stochastic_value_is_the_sum_over_trajectories() -> None:
    S, A, T, g = 3, 2, 3, 0.9
    m = _random(40, S, A, T, g)
    rng = np.random.default_rng(41)
    pi = rng.dirichlet(np.ones(A), size=(T, S))
    v = evaluate_stochastic(m, check_policy_table(m, pi))
    for s0 in range(S):
        total = 0.0
        # every trajectory s0 a0 s1 a1 s2 a2 s3 with its probability and discounted return
        for steps in itertools.product(range(A), range(S), repeat=T):
            prob, ret, s = 1.0, 0.0, s0
            for t in range(T):
                a, nxt = steps[2 * t], steps[2 * t + 1]
                prob *= pi[t, s, a] * m.P[s, a, nxt]
                ret += g ** t * m.R[s, a]
                s = nxt
            total += prob * (ret + g ** T * m.R_T[s])
        assert v[0, s0] == pytest.approx(total, abs=1e-10)
