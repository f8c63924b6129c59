"""Cost-of-privacy bounds: the spec §10 oracles 4, 5, 6 and 8, greedy = LP, α, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.common.progress import Cancelled
from core.common.results import Status
from core.mdp.examples import four_startups, random_mdp
from core.mdp.model import MDP
from core.mdp.privatize import privatize_mdp
from core.mdp.robust import alpha_radius, cost_of_privacy, inner_extremes, inner_lp, robust_bounds
from core.mdp.synthesis import synthesize

E2 = math.exp(-2.0)


def two_state(horizon=1, discount=1.0, R=(0.0, 0.0), R_T=(0.0, 1.0)) -> MDP:
    """Spec §10 tests 5 and 6: P̄ rows (0.5, 0.5), one action."""
    return MDP(P=np.full((2, 1, 2), 0.5), R=np.array(R, dtype=float)[:, None],
               R_T=np.array(R_T, dtype=float), horizon=horizon, discount=discount)


# ----------------------------------------------------------------------------- test 4
def test_inner_problem_exact_values():
    """Spec §10 test 4: P̄ = (0.5, 0.3, 0.2), v = (1, 2, 3), α = β = 0.1."""
    row, v = np.array([0.5, 0.3, 0.2]), np.array([1.0, 2.0, 3.0])
    lo, hi = inner_extremes(row[None], v, alpha=0.1, beta=0.1)
    assert lo[0] == pytest.approx(1.45, abs=1e-14)
    assert hi[0] == pytest.approx(2.01, abs=1e-14)
    assert row @ v == pytest.approx(1.7) and lo[0] < row @ v < hi[0]
    # the optimum splits as β·(vertex at argmin/argmax v) + (1 − β)·P₂* with the spec's P₂*
    assert 0.1 * v.min() + 0.9 * (np.array([0.6, 0.3, 0.1]) @ v) == pytest.approx(1.45)
    assert 0.1 * v.max() + 0.9 * (np.array([0.4, 0.3, 0.3]) @ v) == pytest.approx(2.01)
    assert inner_lp(row, v, alpha=0.1, beta=0.1, sense="min") == pytest.approx(1.45, abs=1e-9)
    assert inner_lp(row, v, alpha=0.1, beta=0.1, sense="max") == pytest.approx(2.01, abs=1e-9)


def test_inner_extremes_vectorised_over_rows():
    rng = np.random.default_rng(4)
    rows = rng.dirichlet(np.ones(9), size=30)
    v = rng.normal(size=9)
    lo, hi = inner_extremes(rows, v, alpha=0.07, beta=0.2)
    for i, row in enumerate(rows):
        one_lo, one_hi = inner_extremes(row[None], v, alpha=0.07, beta=0.2)
        assert lo[i] == pytest.approx(one_lo[0], abs=1e-14)
        assert hi[i] == pytest.approx(one_hi[0], abs=1e-14)
    lo2, hi2 = inner_extremes(rows, v, alpha=0.07, beta=0.2, order=np.argsort(v))
    np.testing.assert_array_equal(lo, lo2)
    np.testing.assert_array_equal(hi, hi2)


@st.composite
def inner_instances(draw):
    n = draw(st.integers(2, 20))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    row = rng.dirichlet(np.full(n, draw(st.sampled_from([0.2, 1.0, 5.0]))))
    zeros = draw(st.sampled_from([0.0, 0.3, 0.7]))
    row[rng.uniform(size=n) < zeros] = 0.0
    if row.sum() == 0:
        row[rng.integers(n)] = 1.0
    row /= row.sum()
    if draw(st.booleans()):
        v = rng.uniform(-10, 10, size=n)
    else:  # many ties
        v = rng.integers(-3, 4, size=n).astype(float)
    alpha = draw(st.one_of(st.floats(1e-9, 1.5), st.floats(1e-9, 0.05)))
    beta = draw(st.floats(1e-3, 1 - 1e-3))
    return row, v, alpha, beta


@settings(max_examples=150)
@given(inner_instances())
def test_greedy_equals_the_lp(inst):
    """Spec §6.5 / §10 test 4: the closed form equals HiGHS on (P) to 1e-9.

    Rows with entries below 1e-7 (Dirichlet(0.2) rows, α = 0) need HiGHS's feasibility
    tolerances tightened from the default 1e-7 (core.mdp.robust._HIGHS_OPTIONS); with the
    defaults the LP was off by ~1e-8. α = 0 exactly (never used: α > 0 for every k and
    β < 1) pins P₂ = P̄ with zero slack and HiGHS may call it infeasible, so α = 0 is
    checked against its closed form in the next test instead.
    """
    row, v, alpha, beta = inst
    lo, hi = inner_extremes(row[None], v, alpha=alpha, beta=beta)
    assert abs(lo[0] - inner_lp(row, v, alpha=alpha, beta=beta, sense="min")) < 1e-9
    assert abs(hi[0] - inner_lp(row, v, alpha=alpha, beta=beta, sense="max")) < 1e-9
    # Lemma 2.3: P̄ itself is in P̂, so its value lies between the extremes
    assert lo[0] <= row @ v + 1e-12 and row @ v <= hi[0] + 1e-12
    assert v.min() - 1e-12 <= lo[0] and hi[0] <= v.max() + 1e-12


@settings(max_examples=60)
@given(inner_instances())
def test_inner_extremes_at_alpha_zero(inst):
    """α = 0: L = {P̄}, so the extremes are β·min v + (1 − β)·P̄ᵀv and β·max v + (1 − β)·P̄ᵀv."""
    row, v, _, beta = inst
    lo, hi = inner_extremes(row[None], v, alpha=0.0, beta=beta)
    assert lo[0] == pytest.approx(beta * v.min() + (1 - beta) * (row @ v), abs=1e-12)
    assert hi[0] == pytest.approx(beta * v.max() + (1 - beta) * (row @ v), abs=1e-12)


@settings(max_examples=60)
@given(inner_instances(), st.floats(0.0, 0.5))
def test_inner_extremes_widen_with_alpha(inst, extra):
    row, v, alpha, beta = inst
    lo1, hi1 = inner_extremes(row[None], v, alpha=alpha, beta=beta)
    lo2, hi2 = inner_extremes(row[None], v, alpha=alpha + extra, beta=beta)
    assert lo2[0] <= lo1[0] + 1e-12 and hi1[0] <= hi2[0] + 1e-12


# ----------------------------------------------------------------------------- test 5
@pytest.mark.parametrize("method", ["greedy", "lp"])
def test_finite_horizon_hand_values(method):
    """Spec §10 test 5: k = 24, β = e⁻² give α = 0.2 exactly."""
    b = cost_of_privacy(two_state(), k=24, beta=E2, method=method)
    assert b.alpha == pytest.approx(0.2, abs=1e-15)
    np.testing.assert_allclose(b.v_lower[0], [0.3 * (1 - E2)] * 2, atol=1e-12)
    np.testing.assert_allclose(b.v_private[0], [0.5, 0.5], atol=1e-15)
    np.testing.assert_allclose(b.v_upper[0], [0.7 + 0.3 * E2] * 2, atol=1e-12)
    assert b.cost_bound == pytest.approx(0.4 + 0.6 * E2, abs=1e-12)
    # the printed decimals of the spec
    assert round(float(b.v_lower[0, 0]), 7) == 0.2593994
    assert round(float(b.v_upper[0, 0]), 7) == 0.7406006
    assert round(b.cost_bound, 7) == 0.4812012
    np.testing.assert_array_equal(b.v_lower[1], [0.0, 1.0])  # stage T is R_T
    assert b.policy.shape == (1, 2) and b.status is Status.SUCCESS and b.method == method


# ----------------------------------------------------------------------------- test 6
LOWER_INF = 0.9 * 0.3 * (1 - E2) / 0.1 + np.array([0.0, 1.0])
UPPER_INF = 6.3 + 2.7 * E2 + np.array([0.0, 1.0])  # x = 0.9(x + 0.7 + 0.3β)  ⇒  x = 6.3 + 2.7β


@pytest.mark.parametrize("method", ["greedy", "lp"])
def test_infinite_horizon_fixed_points(method):
    """Spec §10 test 6: r = (0, 1), γ = 0.9, α = 0.2, β = e⁻²."""
    m = two_state(horizon=None, discount=0.9, R=(0.0, 1.0))
    b = cost_of_privacy(m, k=24, beta=E2, method=method)
    np.testing.assert_allclose(b.v_private, [4.5, 5.5], atol=1e-12)
    np.testing.assert_allclose(b.v_lower, LOWER_INF, atol=1e-9)
    np.testing.assert_allclose(b.v_upper, UPPER_INF, atol=1e-9)
    np.testing.assert_allclose(b.v_lower, [2.3345947, 3.3345947], atol=5e-8)
    np.testing.assert_allclose(b.v_upper, [6.6654053, 7.6654053], atol=5e-8)
    assert b.status is Status.SUCCESS
    # the fixed points: applying one more operator step changes nothing (residual)
    lo, hi = inner_extremes(m.P[:, 0], b.v_lower, alpha=b.alpha, beta=E2)[0], \
        inner_extremes(m.P[:, 0], b.v_upper, alpha=b.alpha, beta=E2)[1]
    np.testing.assert_allclose(m.R[:, 0] + 0.9 * lo, b.v_lower, atol=1e-9)
    np.testing.assert_allclose(m.R[:, 0] + 0.9 * hi, b.v_upper, atol=1e-9)


def test_each_iteration_contracts_by_gamma():
    """‖v⁽ⁱ⁺¹⁾ − v*‖∞ ≤ 0.9‖v⁽ⁱ⁾ − v*‖∞ for 𝓛₁ and 𝓛₁⁺, read off robust_bounds(max_iter=i)."""
    m = two_state(horizon=None, discount=0.9, R=(0.0, 1.0))
    alpha = alpha_radius(24, E2)
    policy = np.zeros(2, dtype=int)
    err_lo = [np.max(np.abs(np.array([4.5, 5.5]) - LOWER_INF))]  # iteration 0 starts at V̄
    err_hi = [np.max(np.abs(np.array([4.5, 5.5]) - UPPER_INF))]
    for i in range(1, 40):
        vb = robust_bounds(m, policy, alpha=alpha, beta=E2, max_iter=i)
        lo, hi, status, it = vb.v_lower, vb.v_upper, vb.status, vb.n_iter
        assert it == i and status is Status.MAX_ITER
        err_lo.append(np.max(np.abs(lo - LOWER_INF)))
        err_hi.append(np.max(np.abs(hi - UPPER_INF)))
    for errs in (err_lo, err_hi):
        for before, after in zip(errs, errs[1:]):
            assert after <= 0.9 * before + 1e-12
        assert errs[-1] < 0.9**39 * errs[0] + 1e-12


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(2, 8), discount=st.floats(0.1, 0.99),
       alpha=st.floats(0.0, 0.5), beta=st.floats(0.01, 0.99))
def test_operators_are_monotone_gamma_contractions(random_mdp_factory, seed, S, discount, alpha,
                                                   beta):
    """Lemma 2.5: 𝓛₁ (min) and 𝓛₁⁺ (max) are γ-contractions in ‖·‖∞, and monotone."""
    rng = np.random.default_rng(seed)
    m = random_mdp_factory(rng, S, 2, None, discount=discount, zeros=0.3)
    pol = synthesize(m).policy
    rows, r = m.P[np.arange(S), pol], m.R[np.arange(S), pol]

    def ops(v):
        lo, hi = inner_extremes(rows, v, alpha=alpha, beta=beta)
        return r + discount * lo, r + discount * hi

    v1, v2 = rng.normal(size=S) * 5, rng.normal(size=S) * 5
    gap = np.max(np.abs(v1 - v2))
    for a, b in zip(ops(v1), ops(v2)):
        assert np.max(np.abs(a - b)) <= discount * gap * (1 + 1e-12) + 1e-12
    hi_v = np.maximum(v1, v2)
    for a, b in zip(ops(v1), ops(hi_v)):
        assert (a <= b + 1e-12).all()


# ----------------------------------------------------------------------------- test 8
@settings(max_examples=50)
@given(seed=st.integers(0, 2**32 - 1), S=st.integers(1, 12), A=st.integers(1, 4),
       horizon=st.one_of(st.none(), st.integers(1, 12)),
       k=st.floats(0.05, 1e6), beta=st.floats(1e-3, 0.999),
       alpha_mode=st.sampled_from(["paper", "rigorous"]))
def test_sandwich_on_random_mdps(random_mdp_factory, seed, S, A, horizon, k, beta, alpha_mode):
    """Spec §10 test 8: v̲_t ≤ V̄_t^π̄ ≤ v̄_t for all t and s, any k, β, α mode."""
    rng = np.random.default_rng(seed)
    true = random_mdp_factory(rng, S, A, horizon, zeros=0.2)
    private = privatize_mdp(true, k, rng=rng).mdp
    b = cost_of_privacy(private, k=k, beta=beta, alpha_mode=alpha_mode)
    scale = 1e-9 * (1 + np.abs(b.v_private).max())
    assert (b.v_lower <= b.v_private + scale).all()
    assert (b.v_private <= b.v_upper + scale).all()
    assert b.cost_bound >= -scale
    if horizon is None:
        assert b.status is Status.SUCCESS


def test_rigorous_alpha_gives_wider_bounds():
    private = privatize_mdp(random_mdp(10, 3, 5, seed=2), 100.0, rng=1).mdp
    paper = cost_of_privacy(private, k=100, beta=0.05)
    rig = cost_of_privacy(private, k=100, beta=0.05, alpha_mode="rigorous")
    assert rig.alpha > paper.alpha and rig.alpha_mode == "rigorous"
    assert (rig.v_lower <= paper.v_lower + 1e-12).all()
    assert (rig.v_upper >= paper.v_upper - 1e-12).all()
    assert rig.cost_bound > paper.cost_bound


@pytest.mark.parametrize("horizon", [4, None])
def test_lp_path_equals_greedy_on_a_small_mdp(horizon):
    true = four_startups() if horizon else random_mdp(5, 3, None, seed=8, discount=0.8)
    private = privatize_mdp(true, 30.0, rng=6).mdp
    g = cost_of_privacy(private, k=30, beta=0.1, method="greedy")
    lp = cost_of_privacy(private, k=30, beta=0.1, method="lp")
    np.testing.assert_array_equal(g.policy, lp.policy)
    np.testing.assert_allclose(lp.v_lower, g.v_lower, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lp.v_upper, g.v_upper, rtol=0, atol=1e-9)
    assert abs(lp.cost_bound - g.cost_bound) < 1e-9


def test_plan_can_be_passed_in():
    private = privatize_mdp(four_startups(), 30.0, rng=6).mdp
    plan = synthesize(private)
    a = cost_of_privacy(private, k=30, plan=plan)
    b = cost_of_privacy(private, k=30)
    np.testing.assert_array_equal(a.v_lower, b.v_lower)
    assert a.elapsed_s >= 0 and a.at_start(a.v_upper).shape == (3,)
    with pytest.raises(ValueError):
        a.v_upper[0, 0] = 1.0


def test_progress_and_cancel():
    private = privatize_mdp(random_mdp(6, 2, 5, seed=1), 30.0, rng=1).mdp
    pol = synthesize(private).policy
    seen = []
    robust_bounds(private, pol, alpha=0.1, beta=0.1, progress=lambda f, m="": seen.append(f))
    assert seen == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])

    def stop(fraction, message=""):
        raise Cancelled

    with pytest.raises(Cancelled):
        robust_bounds(private, pol, alpha=0.1, beta=0.1, progress=stop)
    inf = private.replace(horizon=None, discount=0.9)
    with pytest.raises(Cancelled):
        robust_bounds(inf, synthesize(inf).policy, alpha=0.1, beta=0.1, progress=stop)


# ----------------------------------------------------------------------------- α and validation
def test_alpha_radius_values():
    assert alpha_radius(24, E2) == pytest.approx(0.2, abs=1e-15)
    for k, beta in ((10, 0.05), (0.5, 0.9), (1e6, 1e-6)):
        assert alpha_radius(k, beta) == pytest.approx(math.sqrt(math.log(1 / beta) / (2 * (k + 1))))
        assert alpha_radius(k, beta, mode="rigorous", n=20) == pytest.approx(
            math.sqrt(math.log(40 / beta) / (2 * (k + 1))))
    # rigorous ≥ paper for every n ≥ 1 (2n/β > 1/β); α decreases in k
    assert alpha_radius(5, 0.05, mode="rigorous", n=1) > alpha_radius(5, 0.05)
    assert alpha_radius(100, 0.05) < alpha_radius(10, 0.05)


@pytest.mark.parametrize("beta", [0.0, 1.0, 1.5, -0.1, float("nan"), float("inf"), None, [0.5]])
def test_alpha_radius_rejects_bad_beta(beta):
    with pytest.raises(InputError) as info:
        alpha_radius(10, beta)
    assert info.value.field == "beta" and "\n" not in str(info.value)


@pytest.mark.parametrize("k", [0.0, -5.0, float("nan"), float("inf"), None, [10]])
def test_alpha_radius_rejects_bad_k(k):
    with pytest.raises(InputError) as info:
        alpha_radius(k, 0.05)
    assert info.value.field == "k"


def test_alpha_radius_rejects_bad_mode_and_n():
    with pytest.raises(InputError) as info:
        alpha_radius(10, 0.05, mode="loose")
    assert info.value.field == "alpha"
    for n in (None, 0):
        with pytest.raises(InputError) as info:
            alpha_radius(10, 0.05, mode="rigorous", n=n)
        assert info.value.field == "n"


def test_bounds_reject_bad_input():
    m = two_state()
    pol = np.zeros((1, 2), dtype=int)
    cases = [({"alpha": 0.1, "beta": 0.1, "method": "simplex"}, "method"),
             ({"alpha": -0.1, "beta": 0.1}, "alpha"),
             ({"alpha": float("nan"), "beta": 0.1}, "alpha"),
             ({"alpha": 0.1, "beta": 1.0}, "beta")]
    for kwargs, field in cases:
        with pytest.raises(InputError) as info:
            robust_bounds(m, pol, **kwargs)
        assert info.value.field == field
    with pytest.raises(InputError) as info:
        cost_of_privacy(m, k=0, beta=0.1)
    assert info.value.field == "k"
    with pytest.raises(InputError) as info:
        cost_of_privacy(m, k=10, beta=0.0)
    assert info.value.field == "beta"


def test_rigorous_alpha_covers_the_tail_empirically():
    """P(‖Dir_k(p) − p‖∞ ≥ α) ≤ β. For α_rig this is proven (sub-Gaussian tails and a union
    bound, spec §3); for the paper's α the spec found it holds when k·p_i ≥ 1 and β ≤ 0.1
    (≈ 0.014 at n = 20, k = 20, β = 0.05) but fails at k = 5 (≈ 0.054), so only that regime
    is asserted. The count of exceedances is Binomial(N, q): we require q̂ ≤ β − 5·SE with
    SE = √(β(1 − β)/N) — i.e. the true q is clearly below β, not just within noise."""
    from core.privacy.dirichlet import dirichlet_rows

    N, n, beta = 100_000, 20, 0.05
    se = math.sqrt(beta * (1 - beta) / N)
    p = np.full(n, 1.0 / n)
    for k, mode in ((5.0, "rigorous"), (20.0, "rigorous"), (20.0, "paper")):
        x = dirichlet_rows(np.tile(p, (N, 1)), k, rng=17)
        alpha = alpha_radius(k, beta, mode=mode, n=n)
        q = (np.abs(x - p).max(axis=1) >= alpha).mean()
        assert q <= beta - 5 * se, (k, mode, q)


# ----------------------------------------------------------------------------- centre shift
# The public pre-processing (domain rule 'mix', zeros='smoothing') centres the noise on
# T(P) = κ·P + (1 − κ)·u_support, not on P; core.mdp.robust derives the public bound
# ‖T(P) − P‖_∞ <= (1 − κ)(1 − 1/n) and widens each row's radius by it.
def _hand_model() -> MDP:
    """Rows with support sizes 3, 2, 1, 1, 3, 2 (hand-checkable shifts)."""
    P = np.array([[[0.90, 0.05, 0.05], [0.50, 0.50, 0.00]],
                  [[0.00, 0.00, 1.00], [1.00, 0.00, 0.00]],
                  [[0.20, 0.30, 0.50], [0.25, 0.75, 0.00]]])
    return MDP(P=P, R=np.zeros((3, 2)), R_T=np.array([0.0, 1.0, 0.0]), horizon=2)


def test_centre_shift_equals_the_hand_derived_bound():
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift, centre_shift_bound

    m = _hand_model()
    eta, lam = 0.02, 0.1
    # mix alone: λ = n·eta, shift = n·eta·(1 − 1/n) = (n − 1)·eta; n = 1 rows do not move
    prep = mechanism_rows(m, eta=eta, domain_rule="mix")
    want = np.array([[2 * eta, eta], [0.0, 0.0], [2 * eta, eta]])
    np.testing.assert_allclose(centre_shift(prep, (3, 2)), want, rtol=1e-12, atol=0)
    # smoothing (λ = 0.1 on rows with a zero, support becomes all 3 states) then mix:
    # κ = (1 − λ)(1 − 3·eta) = 0.846 on smoothed rows, 0.94 on the others. Which rows had a
    # zero is not public (every row of P̄ has full support), so the public shift takes every
    # full-support row as smoothed: (1 − 0.846)(1 − 1/3) everywhere
    prep = mechanism_rows(m, eta=eta, domain_rule="mix", zeros="smoothing", smoothing=lam)
    sm = (1 - 0.846) * (2 / 3)  # = 0.10266…
    np.testing.assert_allclose(centre_shift(prep, (3, 2)), np.full((3, 2), sm), rtol=1e-12)
    own = centre_shift_bound(prep.support, prep.contraction)  # each row's own κ
    np.testing.assert_allclose(own, [2 * eta, sm, sm, sm, 2 * eta, sm], rtol=1e-12)
    # smoothing alone (refuse): λ·(1 − 1/N) = 0.0666…
    prep_r = mechanism_rows(m, eta=0.01, domain_rule="refuse", zeros="smoothing", smoothing=lam)
    np.testing.assert_allclose(centre_shift(prep_r, (3, 2)), np.full((3, 2), lam * 2 / 3),
                               rtol=1e-12)
    np.testing.assert_allclose(centre_shift_bound(prep_r.support, prep_r.contraction),
                               [0, lam * 2 / 3, lam * 2 / 3, lam * 2 / 3, 0, lam * 2 / 3],
                               rtol=1e-12, atol=0)
    # support mode with mix: the public shift and each row's own bound coincide
    prep_m = mechanism_rows(m, eta=eta, domain_rule="mix")
    np.testing.assert_array_equal(centre_shift(prep_m, (3, 2))[m.mask],
                                  centre_shift_bound(prep_m.support, prep_m.contraction))
    # it bounds the actual move of every row, and is attained by a vertex (row (1, 0, 0),
    # smoothed): |T(P)_0 − 1| = (1 − κ)(1 − 1/3)
    moved = np.abs(prep.rows - m.P[m.mask]).max(axis=1)
    bound = centre_shift_bound(prep.support, prep.contraction)
    assert (moved <= bound + 1e-15).all()
    assert moved[3] == pytest.approx(sm, rel=1e-12) and moved[2] == pytest.approx(sm, rel=1e-12)
    # under mix alone the bound is the supremum: a row near a vertex moves almost by it
    t = 1e-9
    near = MDP(P=np.array([[[1 - 2 * t, t, t]]] * 3), R=np.zeros((3, 1)), horizon=1)
    p = mechanism_rows(near, eta=eta, domain_rule="mix")
    assert np.abs(p.rows[0] - near.P[0, 0]).max() == pytest.approx(2 * eta, abs=1e-9)
    # n <= 1 never moves, whatever κ says; κ outside [0, 1] is clipped
    assert centre_shift_bound([1, 0], [0.2, 0.2]).tolist() == [0.0, 0.0]


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), eta_frac=st.floats(0.01, 0.99),
       zeros=st.sampled_from(["support", "smoothing"]), lam=st.floats(1e-3, 0.999))
def test_centre_shift_bounds_the_move_of_any_row(seed, n, eta_frac, zeros, lam):
    """‖T(P) − P‖_∞ <= shift for every row, including boundary rows (vertices, zeros)."""
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift_bound

    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.full(n, 0.3), size=6)
    rows[rng.random(rows.shape) < 0.3] = 0.0
    rows[0] = 0.0
    rows[0, 0] = 1.0  # a vertex
    rows[rows.sum(axis=1) == 0, 0] = 1.0
    rows /= rows.sum(axis=1, keepdims=True)
    m = MDP(P=np.zeros((n, 1, n)) + rows[np.arange(n) % 6][:, None, :], R=np.zeros((n, 1)),
            horizon=1)
    eta = eta_frac / n
    prep = mechanism_rows(m, eta=eta, domain_rule="mix", zeros=zeros, smoothing=lam)
    moved = np.abs(prep.rows - m.P[m.mask]).max(axis=1)
    assert (moved <= centre_shift_bound(prep.support, prep.contraction) + 1e-14).all()


def test_release_centre_shift_from_the_released_supports():
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift, centre_shift_bound, release_centre_shift

    m = _hand_model()
    prep = mechanism_rows(m, eta=0.02, domain_rule="mix")
    private = privatize_mdp(m, 1e3, rng=1, prepared=prep).mdp
    # support mode: P̄'s supports are the centres' supports, so the shift is the same
    np.testing.assert_array_equal(
        release_centre_shift(private, eta=0.02, domain_rule="mix"),
        centre_shift(prep, (3, 2)))
    assert not release_centre_shift(private, eta=0.02, domain_rule="refuse").any()
    # smoothing is invisible in P̄: every full-support row is taken as smoothed (>= truth)
    prep_s = mechanism_rows(m, eta=0.02, domain_rule="mix", zeros="smoothing", smoothing=0.1)
    private_s = privatize_mdp(m, 1e3, rng=1, prepared=prep_s).mdp
    rel = release_centre_shift(private_s, eta=0.02, domain_rule="mix", zeros="smoothing",
                               smoothing=0.1)
    own = np.zeros((3, 2))
    own[m.mask] = centre_shift_bound(prep_s.support, prep_s.contraction)
    assert (rel >= own - 1e-15).all() and (rel > own + 1e-3).any()  # conservative
    np.testing.assert_allclose(rel, (1 - 0.846) * 2 / 3, rtol=1e-12)
    np.testing.assert_array_equal(rel, centre_shift(prep_s, (3, 2)))


def _skewed_mdp() -> MDP:
    """3 states × 2 actions, every row with full support n = 3 and one heavy entry."""
    P = np.array([[[0.05, 0.90, 0.05], [0.10, 0.10, 0.80]],
                  [[0.05, 0.90, 0.05], [0.90, 0.05, 0.05]],
                  [[0.80, 0.10, 0.10], [0.05, 0.05, 0.90]]])
    R = np.array([[0.0, 0.1], [0.5, 0.0], [0.0, 0.2]])
    return MDP(P=P, R=R, R_T=np.array([0.0, 1.0, 0.0]), horizon=3)


@pytest.mark.parametrize("alpha_mode", ["rigorous", "paper"])
def test_sandwich_for_the_true_model_holds_only_with_the_inflation(alpha_mode):
    """k = 10⁴, mix with eta = 0.02 (n = 3: λ = 0.06, shift = 2·eta = 0.04 per row), β = 0.01.

    Claim with the inflation: let E be "some row has ‖P̄ − T(P)‖_∞ >= α". Off E every true
    row P lies within α + shift of P̄, hence in P̂ (P₁ = P₂ = P), and monotonicity of the
    robust recursion gives v̲_t <= V_t^π̄(true) <= v̄_t for every t and s. Lemma 2.2 per row
    and a union bound over the m = 6 rows give P(E) <= m·β = 0.06 (proven for α_rig; for
    the paper's α only empirically, in this regime k·p_i >= 1, β <= 0.1, spec §3). The
    number F of violating runs out of N is Binomial(N, q) with q <= m·β, so we require
    F/N <= m·β + 3·√(m·β(1 − m·β)/N) (one-sided 3σ).
    Without the inflation the true heavy entries (0.9 → T = 0.866) sit 0.034 > α ≈ 0.015
    (paper) / 0.018 (rigorous) away from the centre, and the sandwich fails in most runs:
    we require F/N >= 0.5, far above the m·β the bound claims. Fixed seed."""
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift
    from core.mdp.synthesis import evaluate_policy

    m = _skewed_mdp()
    k, beta, N = 1e4, 0.01, 300
    prep = mechanism_rows(m, eta=0.02, domain_rule="mix")
    shift = centre_shift(prep, (3, 2))
    np.testing.assert_allclose(shift, 0.04, rtol=1e-12)
    rows = int(m.mask.sum())
    q_max = rows * beta
    tol = 3 * math.sqrt(q_max * (1 - q_max) / N)
    rng = np.random.default_rng(20240610)
    fail_with = fail_without = 0
    for _ in range(N):
        private = privatize_mdp(m, k, rng=rng, prepared=prep).mdp
        plan = synthesize(private)
        for shifted in (True, False):
            b = cost_of_privacy(private, k=k, beta=beta, alpha_mode=alpha_mode, plan=plan,
                                centre_shift=shift if shifted else None)
            v = evaluate_policy(m, b.policy)  # oracle view: π̄ on the true model
            out = bool(((v < b.v_lower - 1e-12) | (v > b.v_upper + 1e-12)).any())
            if shifted:
                fail_with += out
                assert b.alpha_shift == pytest.approx(0.04) and "inflated" in b.alpha_shift_note
            else:
                fail_without += out
    assert fail_with / N <= q_max + tol, (fail_with, N)
    assert fail_without / N >= 0.5, (fail_without, N)


def test_per_row_radii_greedy_equals_lp_and_scalar():
    """Per-row radii: the greedy matches HiGHS row by row; a constant array is the scalar."""
    private = privatize_mdp(random_mdp(5, 3, 3, seed=4), 40.0, rng=2).mdp
    pol = synthesize(private).policy
    radii = np.random.default_rng(3).uniform(0.0, 0.3, size=(5, 3))
    g = robust_bounds(private, pol, alpha=radii, beta=0.1)
    lp = robust_bounds(private, pol, alpha=radii, beta=0.1, method="lp")
    np.testing.assert_allclose(lp.v_lower, g.v_lower, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lp.v_upper, g.v_upper, rtol=0, atol=1e-9)
    s = robust_bounds(private, pol, alpha=0.2, beta=0.1)
    c = robust_bounds(private, pol, alpha=np.full((5, 3), 0.2), beta=0.1)
    np.testing.assert_array_equal(s.v_lower, c.v_lower)
    np.testing.assert_array_equal(s.v_upper, c.v_upper)
    assert not s.v_lower.flags.writeable  # a frozen result with read-only arrays
    for bad in (np.full((5, 2), 0.1), np.full((5, 3), -0.1), np.full((5, 3), np.nan)):
        with pytest.raises(InputError) as info:
            robust_bounds(private, pol, alpha=bad, beta=0.1)
        assert info.value.field == "alpha"
    with pytest.raises(InputError) as info:
        cost_of_privacy(private, k=40.0, centre_shift=np.zeros((2, 2)))
    assert info.value.field == "centre_shift"


def test_refuse_without_smoothing_changes_nothing():
    """domain_rule='refuse', zeros='support': the shift is 0 everywhere and the bounds are
    bit-identical to the unshifted ones (finite and infinite horizon, greedy and LP)."""
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import centre_shift, release_centre_shift

    for true in (four_startups(), random_mdp(6, 2, None, seed=2, discount=0.9)):
        prep = mechanism_rows(true, eta=1e-6, domain_rule="refuse")
        shift = centre_shift(prep, true.P.shape[:2])
        assert not shift.any()
        private = privatize_mdp(true, 100.0, rng=5, prepared=prep).mdp
        assert not release_centre_shift(private, eta=1e-6, domain_rule="refuse").any()
        # (the LP path only on the finite model: value iteration with HiGHS is slow)
        for method in ("greedy", "lp") if true.is_finite else ("greedy",):
            a = cost_of_privacy(private, k=100.0, beta=0.05, method=method)
            b = cost_of_privacy(private, k=100.0, beta=0.05, method=method, centre_shift=shift)
            for name in ("policy", "v_private", "v_lower", "v_upper"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
            assert a.alpha == b.alpha and b.alpha_shift == 0.0 and b.alpha_shift_note == ""
            assert b.alpha_shifts is None


def test_bounds_cli_states_and_applies_the_shift(tmp_path):
    """``bounds`` reads the release metadata: a 'mix' release gets α + (n − 1)·eta per row
    and says so; a 'refuse' release is bounded exactly as before."""
    import io
    import json

    from core.cli.main import run_cli
    from core.mdp.files import save_mdp
    from core.mdp.robust import release_centre_shift

    def cli_json(*argv):
        out, err = io.StringIO(), io.StringIO()
        assert run_cli([str(a) for a in argv] + ["--json"], out=out, err=err) == 0, err.getvalue()
        return json.loads(out.getvalue())

    src = tmp_path / "four.mdp.json"
    save_mdp(four_startups(), src)
    for rule, eta in (("mix", 0.01), ("refuse", 0.005)):
        rel = tmp_path / f"{rule}.mdp.json"
        cli_json("privatize", src, "--k", "200", "--seed", "3", "--eta", eta, "--domain-rule",
                 rule, "-o", rel)
        r = cli_json("bounds", rel, "--k", "200", "--beta", "0.05")
        from core.mdp.files import load_mdp

        private = load_mdp(rel)
        shift = release_centre_shift(private, eta=eta, domain_rule=rule)
        ref = cost_of_privacy(private, k=200, beta=0.05, centre_shift=shift)
        assert r["v_lower"] == ref.v_lower[0].tolist() and r["v_upper"] == ref.v_upper[0].tolist()
        assert r["alpha"] == ref.alpha and r["alpha_shift"] == ref.alpha_shift
        if rule == "mix":
            assert r["alpha_shift"] == pytest.approx(2 * eta, rel=1e-12)  # n = 3 everywhere
            assert "alpha inflated" in r["alpha_shift_note"]
        else:
            plain = cost_of_privacy(private, k=200, beta=0.05)
            assert r["alpha_shift"] == 0.0 and r["alpha_shift_note"] == ""
            assert r["v_lower"] == plain.v_lower[0].tolist()
            assert r["v_upper"] == plain.v_upper[0].tolist()


@pytest.mark.parametrize("alpha", [0.02, 0.1, 0.3, 0.6, 1.2])
def test_truncated_fill_equals_the_full_greedy_and_the_lp(alpha, monkeypatch):
    """the greedy visits only the first ⌈1/min(α, 1)⌉ + 2 entries of its order.

    Rows of 60 entries with one entry near 1 (room 1 − (P̄ − α), the smallest possible),
    sparse rows and spread rows: the truncated fill equals the fill over every entry to
    1e-14, and HiGHS's LP to 1e-9.
    """
    import core.mdp.robust as robust

    rng = np.random.default_rng(16)
    n = 60
    rows = rng.dirichlet(np.full(n, 0.3), size=12)
    rows[0] = 0.0
    rows[0, 7] = 1.0                       # a vertex
    rows[1] = 0.01 / (n - 1)
    rows[1, 3] = 0.99                      # an entry above 1 − α
    rows[2, rng.uniform(size=n) < 0.7] = 0.0
    rows[2] /= rows[2].sum()
    v = rng.uniform(-5, 5, size=n)
    v[::5] = v[0]                          # ties
    assert robust.fill_width(alpha, n) < n
    lo, hi = inner_extremes(rows, v, alpha=alpha, beta=0.05)
    monkeypatch.setattr(robust, "fill_width", lambda a, m: m)
    lo_full, hi_full = inner_extremes(rows, v, alpha=alpha, beta=0.05)
    np.testing.assert_allclose(lo, lo_full, rtol=0, atol=1e-14)
    np.testing.assert_allclose(hi, hi_full, rtol=0, atol=1e-14)
    for i in range(len(rows)):
        assert abs(lo[i] - inner_lp(rows[i], v, alpha=alpha, beta=0.05, sense="min")) < 1e-9
        assert abs(hi[i] - inner_lp(rows[i], v, alpha=alpha, beta=0.05, sense="max")) < 1e-9


def test_fill_width_edges():
    from core.mdp.robust import fill_width

    assert fill_width(0.0, 50) == 50 and fill_width(5e-324, 50) == 50   # α = 0, denormal
    assert fill_width(0.1, 50) == 12 and fill_width(2.0, 50) == 3
    assert fill_width(np.array([0.5, 0.1]), 50) == 12                   # the smallest radius
    assert fill_width(0.1, 5) == 5


def test_cost_bounds_many_equal_one_pass_each_bit_for_bit():
    """The designer's joint pass (several radii, two groups of problems) gives each bound
    exactly as cost_of_privacy does alone, on a sparse model with per-row centre shifts."""
    from core.mdp.examples import sparse_random_mdp
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import _cost_bounds_many, centre_shift
    from core.mdp.synthesis import synthesize

    m = sparse_random_mdp(3000, 3, 6, 5, seed=11)
    assert not m.is_dense
    plan = synthesize(m)
    ks = [0.5, 3.0, 20.0, 150.0, 2000.0]
    shifts = [None if i == 2 else centre_shift(mechanism_rows(m, eta=eta, domain_rule="mix"),
                                                (m.n_states, m.n_actions))
              for i, eta in enumerate(("auto", 0.01, None, "0.2/n", "0.5/n"))]
    joint = _cost_bounds_many(m, plan, ks=ks, beta=0.05, alpha_mode="paper",
                              centre_shifts=shifts)
    alone = [cost_of_privacy(m, k=k, beta=0.05, plan=plan, centre_shift=s).cost_bound
             for k, s in zip(ks, shifts)]
    assert joint == alone
    assert len(set(joint)) == len(joint)  # five different bounds, not one repeated
