"""More unit tests of the robust bounds (core.mdp.robust): the inner problem against an LP
over the L∞ box written out here (HiGHS), its symmetries (shift, scale, sign), the limits
α → 0, α ≥ 1, β → 0, β → 1, one-state and zero-reward models, and the errors naming their
field."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.results import Status
from core.mdp.model import MDP
from core.mdp.robust import (
    BoundResult,
    alpha_radius,
    alpha_shift_note,
    centre_shift_bound,
    cost_of_privacy,
    fill_width,
    inner_extremes,
    robust_bounds,
    robust_bounds_stochastic,
)
from core.mdp.synthesis import evaluate_policy, synthesize


def _box_lp(row: np.ndarray, v: np.ndarray, alpha: float, sense: str) -> float:
    """min (or max) of q·v over the simplex ∩ {‖q − row‖_∞ <= α}, by HiGHS."""
    from scipy.optimize import linprog

    n = row.size
    bounds = list(zip(np.maximum(row - alpha, 0.0), np.minimum(row + alpha, 1.0)))
    sign = 1.0 if sense == "min" else -1.0
    res = linprog(sign * v, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=bounds, method="highs")
    assert res.status == 0
    return float(sign * res.fun)


def _rows_and_v(seed: int, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.full(n, 0.7), size=m)
    return rows, rng.normal(scale=3.0, size=n)


# ----------------------------------------------------------------------- the inner problem


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6),
       alpha=st.sampled_from([0.0, 0.01, 0.1, 0.3, 0.9]),
       beta=st.sampled_from([0.01, 0.05, 0.5, 0.99]))
def test_inner_extremes_equal_the_mixture_of_the_box_lp(seed: int, n: int, alpha: float,
                                                        beta: float) -> None:
    rows, v = _rows_and_v(seed, 1, n)
    lo, hi = inner_extremes(rows, v, alpha=alpha, beta=beta)
    for i, row in enumerate(rows):
        want_lo = beta * v.min() + (1 - beta) * _box_lp(row, v, alpha, "min")
        want_hi = beta * v.max() + (1 - beta) * _box_lp(row, v, alpha, "max")
        assert lo[i] == pytest.approx(want_lo, abs=1e-8)
        assert hi[i] == pytest.approx(want_hi, abs=1e-8)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8), alpha=st.floats(0.0, 2.0),
       beta=st.floats(1e-6, 1 - 1e-6))
def test_inner_extremes_bracket_the_centre_and_stay_in_the_range_of_v(
        seed: int, n: int, alpha: float, beta: float) -> None:
    rows, v = _rows_and_v(seed, 5, n)
    lo, hi = inner_extremes(rows, v, alpha=alpha, beta=beta)
    centre = rows @ v
    tol = 1e-12 * (1 + np.abs(v).max())
    assert (lo <= centre + tol).all() and (centre <= hi + tol).all()
    assert (lo >= v.min() - tol).all() and (hi <= v.max() + tol).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7), shift=st.floats(-100, 100),
       scale=st.floats(0.01, 100))
def test_inner_extremes_commute_with_shifts_and_scales(seed: int, n: int, shift: float,
                                                       scale: float) -> None:
    rows, v = _rows_and_v(seed, 3, n)
    kw = {"alpha": 0.15, "beta": 0.1}
    lo, hi = inner_extremes(rows, v, **kw)
    lo2, hi2 = inner_extremes(rows, scale * v + shift, **kw)
    tol = 1e-9 * (1 + abs(shift) + scale * np.abs(v).max())
    assert np.abs(lo2 - (scale * lo + shift)).max() < tol
    assert np.abs(hi2 - (scale * hi + shift)).max() < tol
    # negating v swaps the min and the max
    nlo, nhi = inner_extremes(rows, -v, **kw)
    assert np.abs(nlo + hi).max() < 1e-9 * (1 + np.abs(v).max())
    assert np.abs(nhi + lo).max() < 1e-9 * (1 + np.abs(v).max())


def test_inner_extremes_limits_in_alpha_and_beta() -> None:
    rows, v = _rows_and_v(4, 6, 5)
    centre = rows @ v
    # α >= 1 frees the row: the extremes of v whatever β
    for beta in (0.01, 0.5):
        lo, hi = inner_extremes(rows, v, alpha=1.0, beta=beta)
        assert lo == pytest.approx(np.full(6, v.min())) and hi == pytest.approx(
            np.full(6, v.max()))
    # α = 0 keeps the row: only β's mixture moves it
    lo, hi = inner_extremes(rows, v, alpha=0.0, beta=0.2)
    assert lo == pytest.approx(0.2 * v.min() + 0.8 * centre, abs=1e-12)
    assert hi == pytest.approx(0.2 * v.max() + 0.8 * centre, abs=1e-12)
    # β → 1: the extremes of v
    lo, hi = inner_extremes(rows, v, alpha=0.0, beta=1 - 1e-15)
    assert lo == pytest.approx(np.full(6, v.min()), abs=1e-12)


def test_inner_extremes_of_constant_values_and_one_entry_rows() -> None:
    rows, _ = _rows_and_v(1, 4, 3)
    lo, hi = inner_extremes(rows, np.full(3, 7.5), alpha=0.3, beta=0.2)
    assert lo == pytest.approx(np.full(4, 7.5), abs=1e-12)
    assert hi == pytest.approx(np.full(4, 7.5), abs=1e-12)
    lo, hi = inner_extremes(np.ones((2, 1)), np.array([-3.0]), alpha=0.5, beta=0.5)
    assert lo.tolist() == [-3.0, -3.0] and hi.tolist() == [-3.0, -3.0]


def test_inner_extremes_with_a_caller_given_order_equal_the_default() -> None:
    rows, v = _rows_and_v(6, 5, 9)
    a = inner_extremes(rows, v, alpha=0.05, beta=0.05)
    b = inner_extremes(rows, v, alpha=0.05, beta=0.05, order=np.argsort(v, kind="stable"))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_inner_extremes_of_a_hand_worked_row() -> None:
    # row (0.6, 0.4), v = (0, 10), α = 0.1: the min moves 0.1 onto v = 0, the max onto 10
    lo, hi = inner_extremes(np.array([[0.6, 0.4]]), np.array([0.0, 10.0]), alpha=0.1,
                            beta=0.5)
    assert lo[0] == pytest.approx(0.5 * 0.0 + 0.5 * 3.0)
    assert hi[0] == pytest.approx(0.5 * 10.0 + 0.5 * 5.0)


@pytest.mark.parametrize("alpha, n, width", [
    (0.5, 10, 4), (1.0, 10, 3), (2.0, 10, 3), (0.1, 100, 12), (0.1, 5, 5), (0.0, 7, 7),
    (1e-320, 7, 7), (np.array([0.5, 0.25]), 100, 6),
])
def test_fill_width(alpha: float, n: int, width: int) -> None:
    assert fill_width(alpha, n) == width


# ------------------------------------------------------------------------ radii and shifts


@settings(max_examples=30, deadline=None)
@given(k=st.floats(1e-3, 1e9), beta=st.floats(1e-6, 0.999), n=st.integers(1, 10**6))
def test_alpha_radius_formulas_and_order(k: float, beta: float, n: int) -> None:
    paper = alpha_radius(k, beta)
    rig = alpha_radius(k, beta, mode="rigorous", n=n)
    assert paper == pytest.approx(math.sqrt(math.log(1 / beta) / (2 * (k + 1))), rel=1e-12)
    assert rig == pytest.approx(math.sqrt(math.log(2 * n / beta) / (2 * (k + 1))), rel=1e-12)
    assert rig > paper  # the union bound over n >= 1 coordinates costs at least log 2
    assert alpha_radius(2 * k + 1, beta) < paper


def test_alpha_radius_errors_name_their_field() -> None:
    with pytest.raises(InputError) as exc:
        alpha_radius(10, 0.05, mode="rigorous", n=0)
    assert exc.value.field == "n"
    with pytest.raises(InputError) as exc:
        alpha_radius(10, 0.05, mode="Paper")
    assert exc.value.field == "alpha"
    with pytest.raises(InputError) as exc:
        alpha_radius(10, 1.0)
    assert exc.value.field == "beta"


def test_centre_shift_bound_clips_the_contraction_and_ignores_single_entries() -> None:
    out = centre_shift_bound([1, 2, 4, 4, 4], [0.0, 0.5, 1.5, -1.0, 0.75])
    assert out.tolist() == pytest.approx([0.0, 0.25, 0.0, 0.75, 0.25 * 0.75])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 8), kappa=st.floats(0.0, 1.0))
def test_centre_shift_bound_bounds_the_move_towards_uniform(seed: int, n: int,
                                                            kappa: float) -> None:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(n, 0.3))
    P[rng.integers(n)] += 5.0  # near a vertex: close to the supremum
    P /= P.sum()
    moved = kappa * P + (1 - kappa) / n
    bound = float(centre_shift_bound([n], [kappa])[0])
    assert np.abs(moved - P).max() <= bound + 1e-12


def test_alpha_shift_note_is_empty_without_a_shift() -> None:
    assert alpha_shift_note(0.0) == "" and alpha_shift_note(-1.0) == ""
    assert alpha_shift_note(math.nan) == ""
    note = alpha_shift_note(0.0125)
    assert "0.0125" in note and "alpha_shift" in note


# --------------------------------------------------------------------------- the recursions


def _model(seed: int, S: int, A: int, horizon: int | None, g: float) -> MDP:
    rng = np.random.default_rng(seed)
    return MDP(P=rng.dirichlet(np.ones(S), size=(S, A)), R=rng.normal(size=(S, A)),
               R_T=rng.normal(size=S), horizon=horizon, discount=g)


@pytest.mark.parametrize("horizon, g", [(3, 1.0), (None, 0.9)])
def test_bounds_shrink_to_the_value_as_alpha_and_beta_vanish(horizon: int | None,
                                                             g: float) -> None:
    m = _model(2, 5, 2, horizon, g)
    pol = synthesize(m).policy
    v = evaluate_policy(m, pol)  # by a direct solve / recursion
    b = robust_bounds(m, pol, alpha=0.0, beta=1e-12)
    assert np.abs(b.v_lower - v).max() < 1e-9 and np.abs(b.v_upper - v).max() < 1e-9


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 4), alpha=st.floats(0.0, 0.5),
       horizon=st.sampled_from([None, 2]))
def test_bounds_sandwich_every_model_inside_the_set(seed: int, S: int, alpha: float,
                                                    horizon: int | None) -> None:
    """A model whose rows lie within α of P̄ has its value between v̲ and v̄ (β's part is the
    mixture with any distribution, so P itself, at weight 1, is inside for every β)."""
    g = 1.0 if horizon else 0.8
    m = _model(seed, S, 2, horizon, g)
    rng = np.random.default_rng(seed + 7)
    # a nearby model: move mass within α entry by entry, keeping rows on the simplex
    other = (1 - min(alpha, 1.0)) * m.P + min(alpha, 1.0) * rng.dirichlet(np.ones(S),
                                                                            size=(S, 2))
    assert np.abs(other - m.P).max() <= alpha + 1e-12
    near = m.replace(P=other)
    pol = synthesize(m).policy
    b = robust_bounds(m, pol, alpha=alpha, beta=0.05)
    v = evaluate_policy(near, pol)
    tol = 1e-8 * (1 + np.abs(v).max())
    assert (b.v_lower <= v + tol).all() and (v <= b.v_upper + tol).all()


def test_one_state_bounds_are_exact_for_any_radius() -> None:
    m = MDP(P=np.ones((1, 2, 1)), R=np.array([[1.0, 2.0]]), R_T=np.zeros(1), horizon=None,
            discount=0.75)
    b = robust_bounds(m, np.array([1]), alpha=0.9, beta=0.5)
    assert b.v_lower[0] == pytest.approx(8.0) and b.v_upper[0] == pytest.approx(8.0)
    c = cost_of_privacy(m, k=10, beta=0.05)
    assert c.cost_bound == pytest.approx(0.0, abs=1e-9)
    assert c.policy.tolist() == [1]


def test_zero_rewards_give_zero_bounds() -> None:
    m = _model(3, 4, 2, 3, 1.0).replace(R=np.zeros((4, 2)), R_T=np.zeros(4))
    b = robust_bounds(m, np.zeros((3, 4), dtype=int), alpha=0.4, beta=0.3)
    assert not b.v_lower.any() and not b.v_upper.any()
    assert b.status is Status.SUCCESS and b.n_iter == 3


def test_one_stage_bounds_are_the_inner_extremes_of_the_terminal_values() -> None:
    m = _model(5, 4, 3, 1, 0.5)
    pol = np.array([[2, 0, 1, 1]])
    b = robust_bounds(m, pol, alpha=0.2, beta=0.1)
    rows = m.P[np.arange(4), pol[0]]
    lo, hi = inner_extremes(rows, m.R_T, alpha=0.2, beta=0.1)
    r = m.R[np.arange(4), pol[0]]
    assert b.v_lower[0] == pytest.approx(r + 0.5 * lo, abs=1e-12)
    assert b.v_upper[0] == pytest.approx(r + 0.5 * hi, abs=1e-12)
    assert np.array_equal(b.v_lower[1], m.R_T)


@pytest.mark.parametrize("horizon, g", [(3, 1.0), (None, 0.85)])
def test_bounds_widen_with_beta(horizon: int | None, g: float) -> None:
    m = _model(9, 5, 2, horizon, g)
    pol = synthesize(m).policy
    prev = None
    for beta in (0.01, 0.1, 0.5, 0.9):
        b = robust_bounds(m, pol, alpha=0.05, beta=beta)
        if prev is not None:
            assert (b.v_lower <= prev.v_lower + 1e-9).all()
            assert (b.v_upper >= prev.v_upper - 1e-9).all()
        prev = b


def test_per_row_radii_equal_to_a_scalar_give_the_same_bounds() -> None:
    m = _model(10, 4, 3, None, 0.9)
    pol = synthesize(m).policy
    a = robust_bounds(m, pol, alpha=0.07, beta=0.05)
    b = robust_bounds(m, pol, alpha=np.full((4, 3), 0.07), beta=0.05)
    assert np.abs(a.v_lower - b.v_lower).max() < 1e-12
    assert np.abs(a.v_upper - b.v_upper).max() < 1e-12
    # a larger radius on rows the policy never uses changes nothing
    radii = np.full((4, 3), 0.07)
    radii[np.arange(4), (pol + 1) % 3] = 0.9
    c = robust_bounds(m, pol, alpha=radii, beta=0.05)
    assert np.abs(c.v_lower - a.v_lower).max() < 1e-12


@pytest.mark.parametrize("alpha, words", [
    (np.full((2, 2), 0.1), "shape"), (np.full((4, 2), -0.1), ">= 0"),
    (np.full((4, 2), np.nan), "finite"), (-0.5, ">= 0"), (math.inf, "finite"),
])
def test_bad_radii_name_alpha(alpha: object, words: str) -> None:
    m = _model(1, 4, 2, None, 0.9)
    with pytest.raises(InputError) as exc:
        robust_bounds(m, np.zeros(4, dtype=int), alpha=alpha, beta=0.05)
    assert exc.value.field == "alpha" and words in exc.value.problem
    with pytest.raises(InputError) as exc:
        robust_bounds_stochastic(m, np.full((4, 2), 0.5), alpha=alpha, beta=0.05)
    assert exc.value.field == "alpha"


def test_bad_method_and_beta_name_their_fields() -> None:
    m = _model(1, 3, 2, 2, 1.0)
    with pytest.raises(InputError) as exc:
        robust_bounds(m, np.zeros((2, 3), dtype=int), alpha=0.1, beta=0.05, method="simplex")
    assert exc.value.field == "method"
    with pytest.raises(InputError) as exc:
        robust_bounds(m, np.zeros((2, 3), dtype=int), alpha=0.1, beta=math.nan)
    assert exc.value.field == "beta"
    with pytest.raises(InputError) as exc:
        cost_of_privacy(m, k=10, policy_table=np.full((3, 2), 0.5), temperature=1.0)
    assert exc.value.field == "policy"


def test_a_stochastic_table_of_one_action_equals_the_deterministic_bounds() -> None:
    m = _model(13, 4, 2, None, 0.8)
    pol = synthesize(m).policy
    table = np.zeros((4, 2))
    table[np.arange(4), pol] = 1.0
    a = robust_bounds(m, pol, alpha=0.1, beta=0.05)
    b = robust_bounds_stochastic(m, table, alpha=0.1, beta=0.05)
    assert np.abs(a.v_lower - b.v_lower).max() < 1e-9
    assert np.abs(a.v_upper - b.v_upper).max() < 1e-9


def test_cost_of_privacy_result_is_consistent() -> None:
    m = _model(14, 5, 2, 4, 1.0)
    r = cost_of_privacy(m, k=50, beta=0.05)
    s0 = m.initial_state
    assert r.cost_bound == pytest.approx(r.v_upper[0, s0] - r.v_lower[0, s0])
    assert (r.v_lower <= r.v_private + 1e-12).all() and (r.v_private <= r.v_upper + 1e-12).all()
    assert r.alpha == pytest.approx(alpha_radius(50, 0.05))
    assert r.alpha_shift == 0.0 and r.alpha_shift_note == "" and not r.stochastic
    soft = cost_of_privacy(m, k=50, beta=0.05, temperature=0.5)
    assert soft.stochastic and soft.temperature == 0.5
    assert (soft.v_lower <= soft.v_private + 1e-9).all()
    assert (soft.v_private <= soft.v_upper + 1e-9).all()


def test_bound_result_properties_with_shifts_and_copies() -> None:
    shifts = np.array([[0.0, 0.02], [0.01, 0.0]])
    v = np.array([1.0, 2.0])
    r = BoundResult(policy=np.array([0, 1]), v_private=v, v_lower=v - 1, v_upper=v + 2,
                    alpha=0.1, beta=0.05, alpha_mode="paper", method="greedy",
                    initial_state=1, alpha_shifts=shifts,
                    policy_probs=np.array([[1.0, 0.0], [0.0, 1.0]]))
    shifts[0, 1] = 5.0
    assert r.alpha_shift == 0.02 and "0.02" in r.alpha_shift_note
    assert r.cost_bound == 3.0 and not r.stochastic
    empty = BoundResult(policy=np.array([], dtype=int), v_private=np.zeros(0),
                        v_lower=np.zeros(0), v_upper=np.zeros(0), alpha=0.1, beta=0.05,
                        alpha_mode="paper", method="greedy", initial_state=0,
                        alpha_shifts=np.zeros((0, 0)))
    assert empty.alpha_shift == 0.0
