"""Stochastic policies: tables, exact values, softmax synthesis, and Theorems 2.4/2.6 for a
stochastic π̄ against an LP reference written here from the papers' problem (P).

The reference solves (P) — variables (P₁, P₂, p), P₁, P₂ in the simplex, |P₂ − P̄| <= α,
p = βP₁ + (1 − β)P₂ — with scipy's HiGHS for every row a policy uses, and averages over the
policy's actions. For an infinite horizon one
reference step at the computed bounds certifies them (the operator is a γ-contraction:
‖v − v*‖ <= ‖Tv − v‖/(1 − γ)). The reference shares no code with :mod:`core.mdp.robust`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

import core.mdp.sparse as sparse_mod
from core.common.errors import InputError
from core.mdp.examples import four_startups
from core.mdp.model import MDP
from core.mdp.robust import cost_of_privacy, robust_bounds_stochastic
from core.mdp.stochastic import (
    check_policy_table,
    deterministic_actions,
    evaluate_stochastic,
    is_stochastic,
    load_policy,
    one_hot,
    softmax_policy,
)
from core.mdp.synthesis import evaluate_policy, synthesize

E2 = math.exp(-2.0)


# ------------------------------------------------------------------------- random models
def random_model(rng: np.random.Generator, S: int, A: int, horizon: int | None, *,
                 density: float = 1.0, discount: float = 1.0) -> MDP:
    P = rng.random((S, A, S)) * (rng.random((S, A, S)) < density)
    for s in range(S):
        for a in range(A):
            if P[s, a].sum() == 0:
                P[s, a, rng.integers(S)] = 1.0
    P /= P.sum(axis=2, keepdims=True)
    mask = rng.random((S, A)) < 0.75
    mask[:, 0] = True
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), mask=mask,
               horizon=horizon, discount=discount)


def random_table(rng: np.random.Generator, m: MDP) -> np.ndarray:
    shape = ((m.horizon,) if m.horizon is not None else ()) + (m.n_states, m.n_actions)
    x = rng.random(shape) * (rng.random(shape) < 0.7) * m.mask
    x[..., 0] += x.sum(axis=-1) == 0  # action 0 is always available
    return x / x.sum(axis=-1, keepdims=True)


# ------------------------------------------------------------------------- the reference
def reference_inner(row: np.ndarray, v: np.ndarray, alpha: float, beta: float,
                    sense: str) -> float:
    """Problem (P) of [D] §2.6.1 for one row, built from scratch and solved with HiGHS."""
    n = row.size
    sign = 1.0 if sense == "min" else -1.0
    c = np.concatenate([np.zeros(2 * n), sign * v])
    a_eq = np.zeros((3 + n, 3 * n))
    a_eq[0, :n] = 1.0                  # 1ᵀP₁ = 1
    a_eq[1, n:2 * n] = 1.0             # 1ᵀP₂ = 1
    a_eq[2, 2 * n:] = 1.0              # 1ᵀp = 1
    for j in range(n):                 # βP₁ + (1 − β)P₂ − p = 0
        a_eq[3 + j, j] = beta
        a_eq[3 + j, n + j] = 1.0 - beta
        a_eq[3 + j, 2 * n + j] = -1.0
    b_eq = np.concatenate([np.ones(3), np.zeros(n)])
    bounds = [(0, None)] * n + [(max(0.0, x - alpha), x + alpha) for x in row] + \
        [(0, None)] * n
    res = linprog(c, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0, res.message
    return float(sign * res.fun)


def reference_step(m: MDP, pi: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray,
                   radii: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray]:
    S, A = pi.shape
    P = m.P
    lo, hi = np.zeros(S), np.zeros(S)
    for s in range(S):
        for a in range(A):
            if pi[s, a] > 0:
                lo[s] += pi[s, a] * (m.R[s, a] + m.discount * reference_inner(
                    P[s, a], v_lo, radii[s, a], beta, "min"))
                hi[s] += pi[s, a] * (m.R[s, a] + m.discount * reference_inner(
                    P[s, a], v_hi, radii[s, a], beta, "max"))
    return lo, hi


def reference_bounds(m: MDP, table: np.ndarray, radii: np.ndarray, beta: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Finite horizon: the T reference steps from R_T."""
    lo = hi = m.R_T
    for t in range(m.horizon - 1, -1, -1):
        lo, hi = reference_step(m, table[t], lo, hi, radii, beta)
    return lo, hi


def assert_reference_fixed_point(m: MDP, table: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                                 radii: np.ndarray, beta: float, tol: float = 1e-9) -> None:
    """Infinite horizon: the reference operator is a γ-contraction with fixed points v̲*, v̄*,
    so ‖v − v*‖ <= ‖T v − v‖ / (1 − γ); one reference step certifies ‖v − v*‖ < tol."""
    t_lo, t_hi = reference_step(m, table, lo, hi, radii, beta)
    slack = tol * (1.0 - m.discount)
    assert np.abs(t_lo - lo).max() < slack and np.abs(t_hi - hi).max() < slack


def start(a: np.ndarray) -> np.ndarray:
    return a[0] if a.ndim == 2 else a


# ------------------------------------------------------------------------- tables
def test_table_validation_names_stage_state_and_action() -> None:
    m = four_startups()  # T = 3; 'success' and 'failure' have one action
    S, A = m.n_states, m.n_actions
    good = one_hot(synthesize(m).policy, A)
    assert check_policy_table(m, good).shape == (3, S, A)
    assert check_policy_table(m, good[0]).shape == (3, S, A)  # stationary, every stage
    cases = [
        (good[:2], "shape"),
        ([[[0.5, 0.5]]], "shape"),
        ("x", "array"),
        ([[[1, 2], [3]]], "rectangular"),
    ]
    for table, words in cases:
        with pytest.raises(InputError, match=words) as exc:
            check_policy_table(m, table)
        assert exc.value.field == "policy"
    bad = good.copy()
    bad[1, 0] = 0.0
    bad[1, 0, 0] = 0.9
    with pytest.raises(InputError, match=r"stage 1, state 'start': probabilities sum to 0\.9"):
        check_policy_table(m, bad)
    bad = good.copy()
    bad[2, 1, :] = 0.0
    bad[2, 1, 0] = 0.5
    bad[2, 1, 1] = 0.5
    with pytest.raises(InputError, match="stage 2, state 'success'.*action 1.*does not have"):
        check_policy_table(m, bad)
    bad = good.copy()
    bad[0, 0, :] = 0.0
    bad[0, 0, :2] = (1.5, -0.5)
    with pytest.raises(InputError, match="negative"):
        check_policy_table(m, bad)
    bad[0, 0, :2] = (np.nan, 1.0)
    with pytest.raises(InputError, match="not a finite"):
        check_policy_table(m, bad)


def test_policy_file_errors_name_the_file(tmp_path) -> None:
    m = four_startups()
    p = tmp_path / "pi.json"
    p.write_text('{"pi": []}')
    with pytest.raises(InputError) as exc:
        load_policy(p, m)
    assert exc.value.file == str(p) and "policy" in exc.value.problem
    p.write_text('{"policy": [[0.5, 0.5]]}')
    with pytest.raises(InputError, match="shape") as exc:
        load_policy(p, m)
    assert exc.value.file == str(p)


def test_one_hot_round_trip_and_stochastic_flags() -> None:
    pol = np.array([[0, 2, 1], [1, 1, 0]])
    t = one_hot(pol, 3)
    np.testing.assert_array_equal(deterministic_actions(t), pol)
    assert not is_stochastic(t)
    t[0, 0] = (0.5, 0.5, 0.0)
    assert deterministic_actions(t) is None and is_stochastic(t)


# ------------------------------------------------------------------------- exact values
@pytest.mark.parametrize("horizon, discount", [(4, 1.0), (None, 0.9)])
def test_evaluation_is_the_average_bellman_recursion(horizon, discount) -> None:
    rng = np.random.default_rng(3)
    m = random_model(rng, 7, 3, horizon, discount=discount)
    pi = random_table(rng, m)
    v = evaluate_stochastic(m, pi)
    if horizon is not None:  # explicit loops
        ref = m.R_T.copy()
        for t in range(horizon - 1, -1, -1):
            ref = np.array([sum(pi[t, s, a] * (m.R[s, a] + discount * m.P[s, a] @ ref)
                                for a in range(3)) for s in range(7)])
        np.testing.assert_allclose(v[0], ref, atol=1e-12)
    else:  # the fixed point: one more step changes nothing
        step = (pi * (m.R + discount * (m.P @ v))).sum(axis=1)
        np.testing.assert_allclose(step, v, atol=1e-12)
    # a one-hot table has the deterministic policy's value
    plan = synthesize(m)
    np.testing.assert_allclose(evaluate_stochastic(m, one_hot(plan.policy, 3)),
                               evaluate_policy(m, plan.policy), atol=1e-12)


# ------------------------------------------------------------------------- hand oracle
def test_two_action_finite_horizon_hand_values() -> None:
    """Spec §10 test 5 with a second action (row (0.2, 0.8)) and π = (½, ½).

    α = 0.2, β = e⁻², v = R_T = (0, 1): row (0.5, 0.5) gives min (0.7, 0.3)·v = 0.3 and max
    0.7; row (0.2, 0.8) gives min (0.4, 0.6)·v = 0.6 and max (0, 1)·v = 1. So
    v̲ = (1 − β)(0.3 + 0.6)/2 and v̄ = β + (1 − β)(0.7 + 1)/2; V̄ = (0.5 + 0.8)/2.
    """
    P = np.array([[[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]]])
    m = MDP(P=P, R=np.zeros((2, 2)), R_T=np.array([0.0, 1.0]), horizon=1)
    pi = np.full((1, 2, 2), 0.5)
    for method in ("greedy", "lp"):
        vb = robust_bounds_stochastic(m, pi, alpha=0.2, beta=E2, method=method)
        assert vb.v_lower[0, 0] == pytest.approx((1 - E2) * 0.45, abs=1e-12)
        assert vb.v_upper[0, 0] == pytest.approx(E2 + (1 - E2) * 0.85, abs=1e-12)
    b = cost_of_privacy(m, k=24, beta=E2, policy_table=pi)  # k = 24, β = e⁻²: α = 0.2
    assert b.v_private[0, 0] == pytest.approx(0.65, abs=1e-15)
    assert b.cost_bound == pytest.approx(E2 + (1 - E2) * 0.4, abs=1e-12)
    assert b.stochastic and b.policy.tolist() == [[0, 0]]


# ------------------------------------------------------------------------- vs the LP reference
@pytest.mark.parametrize("seed, S, A, horizon, discount", [
    (0, 5, 3, 1, 1.0), (1, 6, 2, 3, 1.0), (2, 8, 4, 5, 0.95), (3, 6, 3, None, 0.5),
    (4, 7, 3, None, 0.9), (5, 5, 4, None, 0.97),
])
def test_stochastic_bounds_equal_the_lp_reference(seed, S, A, horizon, discount) -> None:
    rng = np.random.default_rng(seed)
    m = random_model(rng, S, A, horizon, discount=discount, density=0.7)
    pi = random_table(rng, m)
    alpha, beta = float(rng.uniform(0.0, 0.3)), float(rng.uniform(0.01, 0.3))
    radii = alpha + rng.uniform(0.0, 0.05, size=(S, A))  # per-row radii too
    for rad in (alpha, radii):
        full = np.broadcast_to(rad, (S, A))
        # the LP path solves every row's LP at every iteration: kept to short iterations
        methods = ("greedy", "lp") if horizon is not None or discount <= 0.5 else ("greedy",)
        for method in methods:
            vb = robust_bounds_stochastic(m, pi, alpha=rad, beta=beta, method=method)
            if horizon is not None:
                ref_lo, ref_hi = reference_bounds(m, pi, full, beta)
                assert np.abs(vb.v_lower[0] - ref_lo).max() < 1e-9, method
                assert np.abs(vb.v_upper[0] - ref_hi).max() < 1e-9, method
            else:
                assert_reference_fixed_point(m, pi, vb.v_lower, vb.v_upper, full, beta)
        v = evaluate_stochastic(m, pi)  # the sandwich of (2.5) / (2.10)
        assert (vb.v_lower <= v + 1e-9).all() and (v <= vb.v_upper + 1e-9).all()


@pytest.mark.parametrize("horizon, discount", [(3, 1.0), (None, 0.6)])
def test_sparse_models_give_the_dense_bounds(horizon, discount, monkeypatch) -> None:
    rng = np.random.default_rng(9)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    sp = random_model(rng, 25, 3, horizon, discount=discount, density=0.15)
    assert not sp.is_dense
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 1 << 18)
    dn = MDP(P=sp.P, R=sp.R, R_T=sp.R_T, mask=sp.mask, horizon=horizon, discount=discount)
    assert dn.is_dense
    pi = random_table(rng, sp)
    full = np.full((25, 3), 0.06)
    for method in ("greedy", "lp") if horizon is not None else ("greedy",):
        a = robust_bounds_stochastic(sp, pi, alpha=0.06, beta=0.05, method=method)
        if horizon is not None:
            ref_lo, ref_hi = reference_bounds(dn, pi, full, 0.05)
            assert np.abs(a.v_lower[0] - ref_lo).max() < 1e-9
            assert np.abs(a.v_upper[0] - ref_hi).max() < 1e-9
        else:
            assert_reference_fixed_point(dn, pi, a.v_lower, a.v_upper, full, 0.05)
    np.testing.assert_allclose(evaluate_stochastic(sp, pi), evaluate_stochastic(dn, pi),
                               atol=1e-10)


# ------------------------------------------------------------------------- one-hot: exactly today
@pytest.mark.parametrize("horizon, discount, sparse", [(4, 1.0, False), (None, 0.9, False),
                                                        (3, 1.0, True), (None, 0.8, True)])
def test_one_hot_gives_todays_bounds_exactly(horizon, discount, sparse, monkeypatch) -> None:
    rng = np.random.default_rng(21)
    if sparse:
        monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    m = random_model(rng, 12, 3, horizon, discount=discount, density=0.3 if sparse else 1.0)
    assert m.is_dense is not sparse
    today = cost_of_privacy(m, k=80.0, beta=0.05)
    table = one_hot(today.policy, m.n_actions)
    given = cost_of_privacy(m, k=80.0, beta=0.05, policy_table=table)
    for key in ("policy", "v_private", "v_lower", "v_upper"):
        np.testing.assert_array_equal(getattr(given, key), getattr(today, key), err_msg=key)
    assert given.cost_bound == today.cost_bound and not given.stochastic
    # another deterministic policy: its own value, bounded by the deterministic path
    other = np.zeros_like(today.policy)
    b = cost_of_privacy(m, k=80.0, beta=0.05, policy_table=one_hot(other, m.n_actions))
    np.testing.assert_array_equal(b.v_private, evaluate_policy(m, other))


# ------------------------------------------------------------------------- softmax
@pytest.mark.parametrize("horizon, discount", [(5, 1.0), (None, 0.9)])
def test_softmax_is_the_soft_bellman_solution(horizon, discount) -> None:
    rng = np.random.default_rng(5)
    m = random_model(rng, 6, 3, horizon, discount=discount)
    tau = 0.3
    r = softmax_policy(m, tau)
    pi, w = r.policy, r.soft_values
    np.testing.assert_allclose(pi.sum(axis=-1), 1.0, atol=1e-12)
    assert (pi[..., ~m.mask] == 0).all() if horizon is None else (pi[:, ~m.mask] == 0).all()
    # W = τ log Σ exp(Q/τ) with Q = r + γ P W_next, and π ∝ exp(Q/τ)
    nxt = w[1] if horizon is not None else w
    q = m.R + discount * (m.P @ nxt)
    z = np.where(m.mask, q / tau, -np.inf)
    w0 = tau * np.log(np.exp(z).sum(axis=1))
    np.testing.assert_allclose(start(w), w0, atol=1e-9)
    pi0 = pi[0] if horizon is not None else pi
    np.testing.assert_allclose(pi0, np.exp(z - (w0 / tau)[:, None]), atol=1e-9)
    # the policy's values: its expected rewards, below the entropy-regularised ones
    np.testing.assert_allclose(r.values, evaluate_stochastic(m, pi), atol=0)
    assert (start(r.values) <= start(w) + 1e-12).all()
    assert is_stochastic(pi)


def test_softmax_tends_to_greedy_and_to_uniform() -> None:
    rng = np.random.default_rng(8)
    m = random_model(rng, 6, 3, 4)
    cold = softmax_policy(m, 1e-6)
    np.testing.assert_allclose(cold.values, synthesize(m).values, atol=1e-9)
    hot = softmax_policy(m, 1e6)  # the last stage (no entropy to come) becomes uniform
    uniform = m.mask / m.mask.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(hot.policy[-1], uniform, atol=1e-5)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(InputError) as exc:
            softmax_policy(m, bad)
        assert exc.value.field == "temperature"


def test_softmax_bounds_sandwich_the_private_value() -> None:
    rng = np.random.default_rng(2)
    m = random_model(rng, 10, 4, None, discount=0.9)
    b = cost_of_privacy(m, k=200.0, beta=0.05, temperature=0.1)
    assert b.stochastic and b.temperature == 0.1
    assert (b.v_lower <= b.v_private + 1e-9).all() and (b.v_private <= b.v_upper + 1e-9).all()
    with pytest.raises(InputError, match="not both"):
        cost_of_privacy(m, k=200.0, temperature=0.1, policy_table=b.policy_probs)
