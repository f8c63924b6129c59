"""The Dirichlet-mechanism privacy accountant (spec §1–§2, oracle tests §4.3 and §10).

Covers ``core.privacy.dirichlet_accounting``: the exact δ (certified brackets, and the
Gauss–Legendre estimate ``prob_all_above``) against closed forms, an independent nested
``scipy.integrate.quad`` reference and Monte Carlo (the rigour of the certified δ has its
own file, ``test_dirichlet_rigor.py``), the within-support analysis ``support_privacy``, ε of
Theorem 1.6 with the corrected v₂, γ* of the corrected problem (1.23), the union and
Monte Carlo δ, input validation, and the privacy loss itself: the log density ratio of
b-adjacent inputs never exceeds the ε the accountant reports.

The default δ method is the union bound (proven); the spec's reference values (§4.3, §10)
were computed with the source's vertex reduction, so the tests of those values ask for
``delta_method="exact"`` explicitly (the vertex reduction rests on [D] Lemma 1.2, whose
printed proof has a gap — see ``test_dirichlet_rigor.py`` for the default and the gap).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import betainc, betaln, gammaln
from scipy.stats import dirichlet as dirichlet_dist

from core.common.errors import InputError
from core.privacy.dirichlet_accounting import (
    LEMMA_1_2_WARNING,
    DirichletPrivacy,
    dirichlet_delta,
    dirichlet_epsilon,
    dirichlet_privacy,
    prob_all_above,
    support_delta,
    support_privacy,
    union_delta,
    validate_parameters,
    vertex_parameters,
)

FIG_LEFT = (6.7, 0.15, 0.15, 3, 0.1)    # (k, eta, eta_bar, |W|, b): Figure 1.1 left
FIG_MIDDLE = (5.1, 0.20, 0.20, 3, 0.1)
FIG_RIGHT = (4.1, 0.25, 0.25, 3, 0.1)
EXACT = {"delta_method": "exact"}  # the vertex reduction (Lemma 1.2): the spec's values


# =============================================================================== oracle 1
@pytest.mark.parametrize("gamma, expected", [(0.01, 0.087327), (0.1, 0.657)])
def test_oracle1_uniform_dirichlet_delta_closed_form(gamma: float, expected: float) -> None:
    # k = 4, eta = eta_bar = 1/4, |W| = 3: the domain is the single point (1/4, ..., 1/4),
    # every aggregated parameter is 1, and delta(gamma) = 1 - (1 - 3 gamma)^3 exactly.
    r = dirichlet_privacy(4, 0.25, 0.25, 3, 0.1, gamma=gamma, **EXACT)
    assert r.delta_method == "exact"
    assert r.delta == pytest.approx(1 - (1 - 3 * gamma) ** 3, abs=1e-8)
    assert r.delta == pytest.approx(expected, abs=1e-6)  # the rounded spec value
    assert r.delta_vertex_A == pytest.approx(r.delta_vertex_B, abs=1e-12)  # same point


@pytest.mark.parametrize("m", [1, 2, 3])
def test_prob_all_above_uniform_closed_form_on_a_grid(m: int) -> None:
    # Uniform Dirichlet with m + 1 components: P[x_i >= g for i <= m] = (1 - m g)^m
    # (zero once m g >= 1). Vectorised over gamma, including gamma at and past 1/m.
    g = np.concatenate([np.geomspace(1e-9, 1e-2, 8), np.linspace(0.02, 1.0 / m, 25),
                        [1.0 / m + 1e-3, 1.5]])
    got = prob_all_above((1.0,) * m, 1.0, g)
    want = np.clip(1.0 - m * g, 0.0, None) ** m
    assert got.shape == g.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8)
    assert got[-1] == 0.0


# =============================================================================== oracle 2
def test_oracle2_figure_left_epsilon_and_delta_at_gamma_001() -> None:
    r = dirichlet_privacy(*FIG_LEFT, gamma=0.01, **EXACT)
    assert isinstance(r, DirichletPrivacy)
    assert r.v2 == pytest.approx(0.578227919, abs=1e-8)
    assert r.epsilon == pytest.approx(2.114192024, abs=1e-8)
    assert r.epsilon_approx - r.epsilon == pytest.approx(2.527472, abs=1e-6)
    assert r.epsilon_approx == pytest.approx(4.641664, abs=1e-6)
    assert r.delta == pytest.approx(0.156845, abs=2e-5)
    assert r.delta_vertex_A == pytest.approx(0.156845, abs=2e-5)
    assert r.delta_vertex_B == pytest.approx(0.106994, abs=2e-5)
    # vertex A is the minimiser of P[Omega_1], i.e. it gives the larger delta
    assert r.delta == r.delta_vertex_A > r.delta_vertex_B
    assert r.delta_method == "exact" and "Lemma 1.2" in r.delta_label
    assert "not proven" in r.delta_label and "certified quadrature" in r.delta_label
    assert r.warnings == (LEMMA_1_2_WARNING,)  # what the exact method rests on
    # v1 = (k b / 2) log((1 - (|W|-1) gamma) / gamma); eps = v1 + v2 (Theorem 1.6)
    assert r.v1 == pytest.approx(6.7 * 0.1 / 2 * math.log(0.98 / 0.01), rel=1e-14)
    assert r.epsilon == pytest.approx(r.v1 + r.v2, rel=1e-14)
    assert dirichlet_epsilon(6.7, 0.15, 0.15, 3, 0.1, 0.01) == pytest.approx(r.epsilon,
                                                                              rel=1e-14)


def test_v2_equals_source_formula_1_21_in_the_normal_regime() -> None:
    k, eta, eb, _, b = FIG_LEFT
    source = betaln(k * eta, k * (1 - eb - eta)) - betaln(k * (eta + b / 2),
                                                          k * (1 - eb - eta - b / 2))
    assert dirichlet_privacy(*FIG_LEFT, gamma=0.01).v2 == pytest.approx(source, rel=1e-13)


@pytest.mark.parametrize("gamma", [1e-5, 1e-3, 0.003, 0.01, 0.05, 0.2, 0.3])
def test_oracle2_lemma_1_7_offset_is_independent_of_gamma(gamma: float) -> None:
    r = dirichlet_privacy(*FIG_LEFT, gamma=gamma)
    assert r.epsilon_approx - r.epsilon == pytest.approx(2.527472, abs=1e-6)
    # and the closed form of the offset (spec §2.7), computed here independently
    k, eta, eb, _, _ = FIG_LEFT
    a, c = k * eta, k * (1 - eb - eta)
    offset = (math.log(a + c - 1) - math.log(2 * a - 1) - math.log(2 * c - 1)
              - (2 - k * (1 - eb)) - r.v2)
    assert r.epsilon_approx - r.epsilon == pytest.approx(offset, abs=1e-12)


@pytest.mark.parametrize("config, v2, offset, d_a, d_b, eps", [
    (FIG_LEFT, 0.578227919, 2.527472, 0.156845, 0.106994, 2.1141920),
    (FIG_MIDDLE, 0.320678, 1.211877, 0.109191, 0.074340, 1.489844),
    (FIG_RIGHT, 0.159017, 0.465752, 0.081571, 0.081571, 1.098935),
])
def test_spec_4_3_first_table(config, v2, offset, d_a, d_b, eps) -> None:
    r = dirichlet_privacy(*config, gamma=0.01, **EXACT)
    assert r.v2 == pytest.approx(v2, abs=1e-6)
    assert r.epsilon_approx - r.epsilon == pytest.approx(offset, abs=1e-6)
    assert r.delta_vertex_A == pytest.approx(d_a, abs=2e-6)
    assert r.delta_vertex_B == pytest.approx(d_b, abs=2e-6)
    assert r.epsilon == pytest.approx(eps, abs=1e-6)
    assert r.delta == max(r.delta_vertex_A, r.delta_vertex_B)


# =============================================================================== oracle 3
GAMMA_STAR_TABLE = {  # spec §4.3 "Optimal gamma* from the corrected (1.23)"
    # (eta, k): {delta_hat: (gamma*, eps, eps_approx)}
    (0.15, 6.7): {0.01: (6.0569e-4, 3.0599, 5.5874), 0.05: (3.0555e-3, 2.5161, 5.0436),
                  0.10: (6.2251e-3, 2.2755, 4.8030), 0.20: (1.3004e-2, 2.0241, 4.5516)},
    (0.20, 5.1): {0.01: (9.2278e-4, 2.1022, 3.3141), 0.05: (4.5405e-3, 1.6940, 2.9059),
                  0.10: (9.1396e-3, 1.5132, 2.7251), 0.20: (1.8818e-2, 1.3240, 2.5359)},
    (0.25, 4.1): {0.01: (1.2585e-3, 1.5275, 1.9932), 0.05: (6.1344e-3, 1.2007, 1.6665),
                  0.10: (1.2280e-2, 1.0559, 1.5216), 0.20: (2.5078e-2, 0.9041, 1.3698)},
}


@pytest.mark.parametrize("eta, k, delta_hat", [
    (eta, k, d) for (eta, k), row in GAMMA_STAR_TABLE.items() for d in row])
def test_oracle3_optimal_gamma_table(eta: float, k: float, delta_hat: float) -> None:
    g_star, eps, eps_approx = GAMMA_STAR_TABLE[(eta, k)][delta_hat]
    r = dirichlet_privacy(k, eta, eta, 3, 0.1, delta_target=delta_hat, **EXACT)
    assert r.gamma == pytest.approx(g_star, rel=2e-4)
    assert r.epsilon == pytest.approx(eps, abs=2e-4)
    assert r.epsilon_approx == pytest.approx(eps_approx, abs=2e-4)
    assert r.delta_target == delta_hat
    # gamma* is the largest feasible gamma: delta(gamma*) = delta_hat (never above it)
    assert r.delta <= delta_hat
    assert r.delta == pytest.approx(delta_hat, rel=1e-8)
    # ... and a slightly larger gamma is infeasible
    assert dirichlet_delta(k, eta, eta, 3, r.gamma * (1 + 1e-6), method="exact")["delta"] \
        > delta_hat
    assert r.delta == r.delta_vertex_A >= r.delta_vertex_B  # vertex A is the minimiser
    # the default (the proven union bound) gives a smaller gamma*, hence a larger epsilon
    u = dirichlet_privacy(k, eta, eta, 3, 0.1, delta_target=delta_hat, delta_method="union")
    assert u.delta_method == "union" and u.delta <= delta_hat
    assert u.gamma < r.gamma and u.epsilon > r.epsilon


@pytest.mark.parametrize("gamma, expected", [
    (0.005, 0.080918), (0.01, 0.156845), (0.02, 0.293647), (0.05, 0.600109),
    (0.1, 0.866919)])
def test_oracle3_more_delta_values(gamma: float, expected: float) -> None:
    d = dirichlet_delta(6.7, 0.15, 0.15, 3, gamma, method="exact")
    assert d["delta"] == pytest.approx(expected, abs=1e-6)
    assert d["delta"] == d["delta_vertex_A"] > d["delta_vertex_B"]


def test_oracle3_epsilon_strictly_increasing_in_k() -> None:
    table = [(6.7, 2.516, 0.00306), (10, 3.122, 0.00936), (20, 4.943, 0.0291),
             (50, 10.14, 0.0613), (100, 18.40, 0.0831)]
    eps = []
    for k, e, g in table:
        r = dirichlet_privacy(k, 0.15, 0.15, 3, 0.1, delta_target=0.05, **EXACT)
        assert r.epsilon == pytest.approx(e, abs=6e-3 if e > 10 else 6e-4)
        assert r.gamma == pytest.approx(g, rel=2e-3)
        eps.append(r.epsilon)
    assert all(b > a for a, b in zip(eps, eps[1:]))


def test_oracle3_union_bound_dominates_the_exact_delta() -> None:
    exact = dirichlet_privacy(*FIG_LEFT, gamma=0.01, **EXACT)
    union = dirichlet_privacy(*FIG_LEFT, gamma=0.01, delta_method="union")
    assert union.delta_method == "union" and "union" in union.delta_label
    assert union.delta == pytest.approx(0.164226, abs=1e-6)
    assert union.delta >= exact.delta
    assert union.epsilon == exact.epsilon  # epsilon does not depend on the delta method
    # union gamma* for delta_hat = 0.05 (spec §2.5): smaller than the exact 3.0555e-3
    u = dirichlet_privacy(*FIG_LEFT, delta_target=0.05, delta_method="union")
    assert u.gamma == pytest.approx(0.003013, rel=2e-4)
    assert u.gamma < dirichlet_privacy(*FIG_LEFT, delta_target=0.05, **EXACT).gamma
    assert u.delta <= 0.05
    # the bound is the closed form |W| I_gamma(k eta, k (1 - eta)), capped at 1
    g = np.array([1e-4, 1e-3, 0.01, 0.1, 0.3])
    np.testing.assert_allclose(union_delta(6.7, 0.15, 3, g),
                               np.minimum(1, 3 * betainc(6.7 * 0.15, 6.7 * 0.85, g)), rtol=1e-14)
    # and dominates the exact delta on a grid of gamma
    for gi in g[:-1]:
        assert union_delta(6.7, 0.15, 3, gi) >= dirichlet_delta(6.7, 0.15, 0.15, 3, gi,
                                                                method="exact")["delta"]


@pytest.mark.parametrize("b, eps", [(0.1, 70.6), (0.02, 15.1)])
def test_spec_2_9_mdp_row_example_union(b: float, eps: float) -> None:
    # |W| = 19, eta = eta_bar = 0.01, k = 100, delta_hat = 0.05: auto picks the union bound
    r = dirichlet_privacy(100, 0.01, 0.01, 19, b, delta_target=0.05, delta_method="union")
    assert r.delta_method == "union"
    assert r.epsilon == pytest.approx(eps, abs=0.05)
    assert r.delta <= 0.05
    assert r.epsilon_approx is None  # k eta = 1: Lemma 1.7 needs shapes > 1
    assert any("Lemma 1.7" in w for w in r.warnings)


# The returned delta never exceeds the target, for every method.
_CONFIGS = st.tuples(
    st.floats(2.0, 300.0), st.floats(0.02, 0.3), st.floats(0.02, 0.5), st.integers(2, 3),
    st.floats(0.01, 1.0), st.floats(1e-3, 0.5))


@settings(max_examples=40)
@given(_CONFIGS)
def test_returned_delta_never_exceeds_the_target_exact(cfg) -> None:
    k, eta, eb, w, b, target = cfg
    assume(w * eta + eb <= 1 and eta + eb < 1 and k * eta >= 0.5)
    r = dirichlet_privacy(k, eta, eb, w, b, delta_target=target, **EXACT)
    assert 0 < r.gamma < 1 / w
    assert r.delta <= target
    assert r.delta == pytest.approx(target, rel=1e-6) or r.gamma > (1 / w) * (1 - 1e-9)


@settings(max_examples=40)
@given(st.floats(2.0, 1e4), st.floats(1e-3, 0.05), st.integers(2, 200), st.floats(1e-4, 0.5))
def test_returned_delta_never_exceeds_the_target_union(k, eta, w, target) -> None:
    assume(w * eta + 0.01 <= 1)
    try:
        r = dirichlet_privacy(k, eta, 0.01, w, 0.1, delta_target=target, delta_method="union")
    except InputError as exc:  # k eta so small that no gamma reaches the target
        assert exc.field == "delta"
        return
    assert r.delta <= target
    assert r.delta == pytest.approx(target, rel=1e-6)


@pytest.mark.parametrize("config", [FIG_LEFT, (100, 0.01, 0.01, 19, 0.1),
                                    (20, 0.1, 0.1, 2, 0.1), (1000, 0.1, 0.5, 4, 0.1)])
@pytest.mark.parametrize("target", [0.01, 0.05])
def test_returned_delta_never_exceeds_the_target_monte_carlo(config, target) -> None:
    r = dirichlet_privacy(*config, delta_target=target, delta_method="mc", mc_draws=20_000,
                          mc_seed=3)
    assert r.delta_method == "mc" and "estimated" in r.delta_label
    assert r.delta <= target  # the Clopper-Pearson upper limit, not only the estimate
    assert r.delta_estimate <= r.delta
    # gamma* is the largest such gamma for these draws: a little more fails the target
    bigger = dirichlet_delta(*config[:4], r.gamma * (1 + 1e-9), method="mc", mc_draws=20_000,
                             mc_seed=3)
    assert bigger["delta"] > target or r.gamma >= (1 / config[3]) * (1 - 1e-9)


def test_monte_carlo_target_beyond_the_resolution_of_the_draws_is_an_input_error() -> None:
    # With N draws and no failure the 95% upper limit is 1 - 0.05^(1/N) ~ 3/N.
    with pytest.raises(InputError) as ei:
        dirichlet_privacy(*FIG_LEFT, delta_target=1e-5, delta_method="mc", mc_draws=20_000)
    assert ei.value.field == "delta"


@settings(max_examples=25)
@given(st.floats(2.0, 200.0), st.floats(0.05, 0.3), st.integers(2, 3),
       st.sampled_from(["auto", "exact"]))
def test_delta_increases_and_epsilon_decreases_in_gamma(k, eta, w, method) -> None:
    assume(w * eta + eta <= 1)
    gs = np.geomspace(1e-4, 0.9 / w, 9)
    rs = [dirichlet_privacy(k, eta, eta, w, 0.1, gamma=g, delta_method=method) for g in gs]
    d = [r.delta for r in rs]
    e = [r.epsilon for r in rs]
    assert all(b >= a - 1e-9 for a, b in zip(d, d[1:]))
    assert all(b < a for a, b in zip(e, e[1:]))


# =============================================================================== quadrature
# Independent reference: adaptive nested scipy.integrate.quad (tolerance 1e-12).
_TOL = 1e-12


def _ref_raw_w2(a1: float, a2: float, ar: float, g: float) -> float:
    """|W| = 2 straight from the Dirichlet density: a double integral over
    {x1 >= g, x2 >= g, x1 + x2 <= 1} of x1^(a1-1) x2^(a2-1) (1-x1-x2)^(ar-1) / B(a)."""
    log_b = gammaln(a1) + gammaln(a2) + gammaln(ar) - gammaln(a1 + a2 + ar)

    def density(x2: float, x1: float) -> float:
        r = 1.0 - x1 - x2
        if r <= 0:
            return 0.0
        return math.exp((a1 - 1) * math.log(x1) + (a2 - 1) * math.log(x2)
                        + (ar - 1) * math.log(r) - log_b)

    def inner(x1: float) -> float:
        return integrate.quad(density, g, 1.0 - x1, args=(x1,), epsabs=_TOL, epsrel=_TOL,
                              limit=200)[0]

    return integrate.quad(inner, g, 1.0 - g, epsabs=_TOL, epsrel=_TOL, limit=200)[0]


def _ref_w2(a1: float, a2: float, ar: float, g: float) -> float:
    """|W| = 2 by conditioning: x1 ~ Beta(a1, a2 + ar) and, given x1,
    x2 / (1 - x1) ~ Beta(a2, ar), so P[x2 >= g | x1] = I_{1 - g/(1-x1)}(ar, a2)."""
    b1 = a2 + ar

    def f(x: float) -> float:
        return math.exp((a1 - 1) * math.log(x) + (b1 - 1) * math.log1p(-x) - betaln(a1, b1)) \
            * betainc(ar, a2, 1.0 - g / (1.0 - x))

    return integrate.quad(f, g, 1.0 - g, epsabs=_TOL, epsrel=_TOL, limit=500)[0]


def _ref_w3(a1: float, a2: float, a3: float, ar: float, g: float) -> float:
    """|W| = 3: (x1, x2, x3 + r) ~ Dir(a1, a2, a3 + ar) integrated over x1, x2 with nested
    quad; given them, x3 / (x3 + r) ~ Beta(a3, ar)."""
    log_b = gammaln(a1) + gammaln(a2) + gammaln(a3 + ar) - gammaln(a1 + a2 + a3 + ar)

    def f(x2: float, x1: float) -> float:
        s = 1.0 - x1 - x2
        if s <= g:
            return 0.0
        return math.exp((a1 - 1) * math.log(x1) + (a2 - 1) * math.log(x2)
                        + (a3 + ar - 1) * math.log(s) - log_b) * betainc(ar, a3, 1.0 - g / s)

    def inner(x1: float) -> float:
        hi = 1.0 - x1 - g
        if hi <= g:
            return 0.0
        return integrate.quad(f, g, hi, args=(x1,), epsabs=_TOL, epsrel=_TOL, limit=200)[0]

    return integrate.quad(inner, g, 1.0 - 2 * g, epsabs=_TOL, epsrel=_TOL, limit=200)[0]


def test_reference_quadratures_agree_with_each_other() -> None:
    # the conditioning identity of _ref_w2 against the raw double integral, and the
    # uniform closed form (1 - m g)^m for both references
    for a, g in [((2.0, 3.0, 4.0), 0.05), ((1.005, 1.005, 4.69), 0.01), ((5.0, 1.5, 1.2), 0.1)]:
        assert _ref_w2(*a, g) == pytest.approx(_ref_raw_w2(*a, g), abs=1e-9)
    assert _ref_w2(1, 1, 1, 0.1) == pytest.approx(0.8 ** 2, abs=1e-11)
    assert _ref_w3(1, 1, 1, 1, 0.1) == pytest.approx(0.7 ** 3, abs=1e-11)


# (k, eta, eta_bar, gamma) with k eta >= 1. eta_bar = 0.1 with small k puts the remainder
# parameter of vertex B (k eta_bar) below 1 — its singular endpoint is the hard case.
_GRID_W2 = [(k, eta, eb, g) for k in (4.1, 6.7, 20.0, 200.0) for eta in (0.15, 0.25)
            for eb in (0.1, 0.25) for g in (1e-3, 0.01, 0.1) if k * eta >= 1]
_GRID_W3 = [(6.7, 0.15, 0.15, 0.01), (6.7, 0.15, 0.1, 0.1), (4.1, 0.25, 0.1, 0.01),
            (20.0, 0.15, 0.25, 0.1), (20.0, 0.2, 0.2, 1e-3), (200.0, 0.25, 0.1, 0.1)]


def test_exact_quadrature_matches_nested_quad_w2() -> None:
    worst = 0.0
    for k, eta, eb, g in _GRID_W2:
        for a_w, a_r in vertex_parameters(k, eta, eb, 2).values():
            got = float(prob_all_above(a_w, a_r, g)[0])
            worst = max(worst, abs(got - _ref_w2(*a_w, a_r, g)))
    assert worst < 1e-7


def test_exact_quadrature_matches_nested_quad_w3() -> None:
    worst = 0.0
    for k, eta, eb, g in _GRID_W3:
        for a_w, a_r in vertex_parameters(k, eta, eb, 3).values():
            got = float(prob_all_above(a_w, a_r, g)[0])
            worst = max(worst, abs(got - _ref_w3(*a_w, a_r, g)))
    assert worst < 1e-7


@pytest.mark.parametrize("a_w, a_r, g", [
    ((1.0, 0.3), 0.05, 1e-6), ((300.0, 1.0), 0.7, 0.01), ((3.0, 30.0), 0.3, 0.01),
    ((0.5, 0.5), 2.0, 1e-3),  # k eta < 1 (outside the Lemma 1.2 premise): still exact
])
def test_exact_quadrature_with_shape_parameters_below_one(a_w, a_r, g) -> None:
    assert float(prob_all_above(a_w, a_r, g)[0]) == pytest.approx(_ref_w2(*a_w, a_r, g),
                                                                   abs=1e-7)


def test_vertex_parameters() -> None:
    v = vertex_parameters(6.7, 0.15, 0.1, 3)
    assert v["A"][0] == pytest.approx((1.005, 1.005, 1.005)) and v["A"][1] == pytest.approx(
        6.7 * 0.55)
    assert v["B"][0] == pytest.approx((6.7 * 0.6, 1.005, 1.005)) and v["B"][1] == pytest.approx(
        0.67)
    for a_w, a_r in v.values():  # both aggregate to a Dirichlet with total k
        assert sum(a_w) + a_r == pytest.approx(6.7)


@pytest.mark.parametrize("config, gamma", [(FIG_LEFT, 0.01), (FIG_MIDDLE, 0.02)])
def test_exact_delta_matches_monte_carlo_at_vertex_a(config, gamma: float) -> None:
    # P[Omega_2] at vertex A by sampling the aggregated Dirichlet. The failure count is
    # Binomial(N, delta): standard error sqrt(delta (1 - delta) / N) = 8.1e-4 for
    # delta = 0.157, N = 2e5. Four standard errors: a false alarm has probability 6e-5,
    # and the fixed seed makes the test deterministic.
    n_draws = 200_000
    k, eta, eb, w, _ = config
    a_w, a_r = vertex_parameters(k, eta, eb, w)["A"]
    x = np.random.default_rng(20240611).dirichlet([*a_w, a_r], size=n_draws)
    p_hat = float((x[:, :w] < gamma).any(axis=1).mean())
    exact = dirichlet_delta(k, eta, eb, w, gamma, method="exact")["delta_vertex_A"]
    se = math.sqrt(exact * (1 - exact) / n_draws)
    assert abs(p_hat - exact) < 4 * se


def test_monte_carlo_delta_method_brackets_the_exact_delta() -> None:
    # the MC method reports the one-sided 95% Clopper-Pearson upper limit at the worse
    # vertex; with 2e5 draws its estimate is within 4 standard errors (8.1e-4) of exact
    r = dirichlet_privacy(*FIG_LEFT, gamma=0.01, delta_method="mc", mc_draws=200_000,
                          mc_seed=7)
    assert abs(r.delta_estimate - 0.156845) < 4 * 8.1e-4
    assert r.delta > r.delta_estimate
    assert r.delta - r.delta_estimate < 1.645 * 8.1e-4 * 1.1  # ~ one-sided 95% margin


# =============================================================================== privacy loss
def _sample_domain(rng: np.random.Generator, n: int, w: int, eta: float, eta_bar: float
                   ) -> np.ndarray:
    """A random p in Δ_{n,W}^{(eta, eta_bar)} with W = the first w indices (W ⊆ [n-1])."""
    slack = max(0.0, 1.0 - eta_bar - w * eta)
    e = rng.dirichlet(np.ones(w + 1))
    p = np.empty(n)
    p[:w] = eta + slack * e[:w]
    p[w:] = (eta_bar + slack * e[w]) * rng.dirichlet(np.ones(n - w))
    return p


def _adjacent(rng: np.random.Generator, p: np.ndarray, w: int, eta: float, b: float
              ) -> tuple[np.ndarray, int, int]:
    """q b-adjacent to p (Definition 1.1): entries i, j in W move by -+d, |d| <= b/2,
    both stay >= eta; half the time d is at an end of its feasible interval."""
    i, j = rng.choice(w, size=2, replace=False)
    d_lo, d_hi = max(-b / 2, eta - p[i]), min(b / 2, p[j] - eta)
    u = rng.uniform()
    d = d_lo if u < 0.25 else d_hi if u < 0.5 else rng.uniform(d_lo, d_hi)
    q = p.copy()
    q[i] += d
    q[j] -= d
    return q, int(i), int(j)


def _log_ratio(k: float, p: np.ndarray, q: np.ndarray, i: int, j: int, x: np.ndarray
               ) -> np.ndarray:
    """log f_p(x) - log f_q(x) for Dirichlet densities differing in entries i, j (1.14):
    sum over l in {i, j} of log Γ(k q_l) - log Γ(k p_l) + k (p_l - q_l) log x_l."""
    out = np.zeros(x.shape[:-1])
    for idx in (i, j):
        out += gammaln(k * q[idx]) - gammaln(k * p[idx]) + k * (p[idx] - q[idx]) * np.log(
            x[..., idx])
    return out


_LOSS_CONFIGS = [  # (k, eta, eta_bar, |W|, b, n, how gamma is chosen)
    (*FIG_LEFT, 4, {"delta_target": 0.05}),
    (*FIG_LEFT, 7, {"gamma": 0.01}),
    (*FIG_MIDDLE, 5, {"delta_target": 0.05}),
    (*FIG_RIGHT, 4, {"delta_target": 0.05}),   # a one-point domain: only d = 0
    (20.0, 0.1, 0.1, 2, 0.2, 3, {"gamma": 0.02}),
    (50.0, 0.05, 0.05, 10, 0.1, 12, {"delta_target": 0.05}),  # union bound
    (20.0, 0.3, 0.1, 2, 0.4, 3, {"gamma": 0.1}),  # the corrected-v2 regime
]


@pytest.mark.parametrize("k, eta, eb, w, b, n, how", _LOSS_CONFIGS)
def test_privacy_loss_of_adjacent_inputs_never_exceeds_epsilon(k, eta, eb, w, b, n, how
                                                               ) -> None:
    r = dirichlet_privacy(k, eta, eb, w, b, **{"delta_method": "union", **how})
    gamma, eps = r.gamma, r.epsilon
    rng = np.random.default_rng(12345)
    worst_random = worst_sup = -np.inf
    checked_scipy = 0
    for _ in range(120):
        p = _sample_domain(rng, n, w, eta, eb)
        q, i, j = _adjacent(rng, p, w, eta, b)
        assert (p[:w] >= eta - 1e-12).all() and (q[:w] >= eta - 1e-12).all()
        assert p[:w].sum() <= 1 - eb + 1e-12 and q[:w].sum() <= 1 - eb + 1e-12
        assert abs(p - q).sum() <= b + 1e-12 and p.sum() == pytest.approx(q.sum(), abs=1e-15)
        # x ~ Dir(k p) conditioned on Omega_1 (x_i >= gamma for i in W), by rejection
        x = rng.dirichlet(k * p, size=400)
        x = x[(x[:, :w] >= gamma).all(axis=1)]
        if len(x):
            lr = _log_ratio(k, p, q, i, j, x)
            worst_random = max(worst_random, float(np.abs(lr).max()))  # both directions
            if checked_scipy < 5 and (x[0] > 1e-200).all():  # the formula is the density
                full = (dirichlet_dist.logpdf(x[0] / x[0].sum(), k * p)
                        - dirichlet_dist.logpdf(x[0] / x[0].sum(), k * q))
                assert full == pytest.approx(lr[0], abs=1e-8)
                checked_scipy += 1
        # the sup over x in Omega_1 for this pair: put x_i/x_j at its extreme in the
        # direction of the sign of p_i - q_i (x_i = 1 - (|W|-1) gamma, x_j = gamma)
        hi, lo = 1 - (w - 1) * gamma, gamma
        for xi, xj in ((hi, lo), (lo, hi)):
            xe = np.zeros(n)
            xe[i], xe[j] = xi, xj
            worst_sup = max(worst_sup, float(_log_ratio(k, p, q, i, j, xe)))
    assert worst_random <= eps
    assert worst_sup <= eps + 1e-12


@pytest.mark.parametrize("k, eta, eb, b, gamma", [
    (20.0, 0.1, 0.1, 0.2, 0.02), (6.7, 0.15, 0.15, 0.1, 0.0030555), (50.0, 0.05, 0.3, 0.1, 0.2)])
def test_theorem_1_6_is_attained_for_two_changing_entries(k, eta, eb, b, gamma) -> None:
    # |W| = 2: the extreme points (1.20) with p_i + p_j = 1 - eta_bar are in the domain, and
    # x = (1 - gamma, gamma, 0, ...) is in Omega_1, so the bound is tight.
    w = 2
    eps = dirichlet_privacy(k, eta, eb, w, b, gamma=gamma).epsilon
    c = 1 - eb
    rest = np.array([eb / 2, eb / 2])
    losses = []
    for p_i, q_i in ((eta + b / 2, eta), (c - eta - b / 2, c - eta), (eta, eta + b / 2),
                     (c - eta, c - eta - b / 2)):
        p = np.concatenate([[p_i, c - p_i], rest])
        q = np.concatenate([[q_i, c - q_i], rest])
        for xi in (1 - gamma, gamma):
            x = np.array([xi, 1 - xi, 0.0, 0.0])
            losses.append(float(_log_ratio(k, p, q, 0, 1, x)))
    assert max(losses) <= eps + 1e-12
    assert max(losses) == pytest.approx(eps, abs=1e-9)


def test_privacy_loss_at_extreme_points_for_three_changing_entries() -> None:
    # |W| = 3: p_i + p_j <= 1 - eta_bar - eta (the third entry is >= eta), so the bound
    # is not attained, but the adversarial pair and x must stay below it.
    for k, eta, eb, w, b in (FIG_LEFT, FIG_MIDDLE):
        r = dirichlet_privacy(k, eta, eb, w, b, delta_target=0.05, delta_method="union")
        top = 1 - eb - (w - 1) * eta
        p = np.array([eta + b / 2, top - b / 2, eta, eb])
        q = np.array([eta, top, eta, eb])
        x = np.array([1 - 2 * r.gamma, r.gamma, r.gamma, 0.0])
        loss = float(_log_ratio(k, p, q, 0, 1, x))
        assert 0 < loss <= r.epsilon
        assert loss > r.v1  # the adversarial x alone already spends all of v1


def test_corrected_v2_matters_when_eta_plus_half_b_passes_the_midpoint() -> None:
    # k = 20, eta = 0.3, eta_bar = 0.1, |W| = 2, b = 0.4: eta + b/2 = 0.5 > (1-eta_bar)/2.
    k, eta, eb, w, b = 20.0, 0.3, 0.1, 2, 0.4
    assert eta + b / 2 > (1 - eb) / 2
    r = dirichlet_privacy(k, eta, eb, w, b, gamma=0.49)
    assert any("corrected v2" in m for m in r.warnings)
    source_v2 = betaln(k * eta, k * (1 - eb - eta)) - betaln(k * (eta + b / 2),
                                                             k * (1 - eb - eta - b / 2))
    # an adjacent pair inside the domain: p_(i,j) = ((1-eb)/2, (1-eb)/2), q = (eta, 1-eb-eta)
    p = np.array([(1 - eb) / 2, (1 - eb) / 2, eb])
    q = np.array([eta, 1 - eb - eta, eb])
    assert abs(p - q).sum() <= b and (q[:2] >= eta).all() and p[:2].sum() <= 1 - eb + 1e-15
    gamma_term = float(gammaln(k * q[0]) + gammaln(k * q[1]) - gammaln(k * p[0])
                       - gammaln(k * p[1]))
    assert gamma_term > source_v2 + 0.1  # the source's (1.21) under-states it
    assert gamma_term <= r.v2 + 1e-12  # the corrected v2 does not
    # and the whole privacy loss at the adversarial x beats the source's epsilon too
    x = np.array([1 - r.gamma, r.gamma, 0.0])
    loss = float(_log_ratio(k, p, q, 0, 1, x))
    assert loss == pytest.approx(gamma_term + r.v1 * (p[0] - q[0]) / (b / 2), rel=1e-12)
    assert loss > source_v2 + r.v1  # the source's epsilon is violated ...
    assert loss <= r.epsilon  # ... the corrected one is not


# =============================================================================== oracle 10
def _field(call) -> InputError:
    with pytest.raises(InputError) as ei:
        call()
    return ei.value


@pytest.mark.parametrize("kwargs, field, text", [
    (dict(k=10, eta=0.5, eta_bar=0.5, w=2, b=0.1), "eta_bar", "< 1"),
    (dict(k=10, eta=0.6, eta_bar=0.5, w=2, b=0.1), "eta_bar", "< 1"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=1, b=0.1), "w", ">= 2"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=0, b=0.1), "w", ">= 2"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=2.5, b=0.1), "w", ">= 2"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=True, b=0.1), "w", ">= 2"),
    (dict(k=10, eta=0.3, eta_bar=0.2, w=3, b=0.1), "eta", "eta <= 0.266667"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=2, b=0.0), "b", "[1e-12, 1]"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=2, b=-0.1), "b", "[1e-12, 1]"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=2, b=1.5), "b", "[1e-12, 1]"),
    (dict(k=10, eta=0.1, eta_bar=0.1, w=2, b=5e-324), "b", "[1e-12, 1]"),
    (dict(k=0, eta=0.1, eta_bar=0.1, w=2, b=0.1), "k", "> 0"),
    (dict(k=-3, eta=0.1, eta_bar=0.1, w=2, b=0.1), "k", "> 0"),
    (dict(k=float("nan"), eta=0.1, eta_bar=0.1, w=2, b=0.1), "k", "finite"),
    (dict(k="ten", eta=0.1, eta_bar=0.1, w=2, b=0.1), "k", "number"),
    (dict(k=10, eta=0.0, eta_bar=0.1, w=2, b=0.1), "eta", "(0, 1)"),
    (dict(k=10, eta=0.1, eta_bar=0.0, w=2, b=0.1), "eta_bar", "(0, 1)"),
    (dict(k=10, eta=0.1, eta_bar=float("inf"), w=2, b=0.1), "eta_bar", "finite"),
])
def test_oracle10_parameter_validation(kwargs, field, text) -> None:
    e = _field(lambda: dirichlet_privacy(**kwargs, gamma=0.01))
    assert e.field == field and text in str(e) and str(e).startswith(field + ":")
    e2 = _field(lambda: validate_parameters(**kwargs))
    assert e2.field == field


@pytest.mark.parametrize("extra, field, text", [
    (dict(gamma=1 / 3), "gamma", "(0, 1/|W|)"),
    (dict(gamma=0.4), "gamma", "(0, 1/|W|)"),
    (dict(gamma=0.0), "gamma", "(0, 1/|W|)"),
    (dict(gamma=-0.01), "gamma", "(0, 1/|W|)"),
    (dict(gamma=float("nan")), "gamma", "finite"),
    (dict(delta_target=0.0), "delta", "(0, 1)"),
    (dict(delta_target=1.0), "delta", "(0, 1)"),
    (dict(delta_target=1.5), "delta", "(0, 1)"),
    (dict(delta_target=-0.1), "delta", "(0, 1)"),
    (dict(), "gamma", "exactly one"),
    (dict(gamma=0.01, delta_target=0.05), "gamma", "exactly one"),
    (dict(gamma=0.01, delta_method="bogus"), "delta_method", "auto, profile, exact, union, mc"),
])
def test_oracle10_gamma_delta_and_method_validation(extra, field, text) -> None:
    e = _field(lambda: dirichlet_privacy(*FIG_LEFT, **extra))
    assert e.field == field and text in str(e)


def test_oracle10_exact_method_is_limited_to_three_changing_entries() -> None:
    e = _field(lambda: dirichlet_privacy(20, 0.05, 0.05, 4, 0.1, gamma=0.01,
                                         delta_method="exact"))
    assert e.field == "delta_method" and "|W| <= 3" in str(e) and "union" in str(e)
    assert dirichlet_privacy(20, 0.05, 0.05, 4, 0.1, gamma=0.01).delta_method == "union"


def test_validation_accepts_the_boundaries() -> None:
    # b = 1 is allowed; |W| eta + eta_bar = 1 exactly (a one-point domain) is allowed
    assert dirichlet_privacy(10, 0.1, 0.1, 2, 1.0, gamma=0.01).b == 1.0
    assert dirichlet_privacy(4.1, 0.25, 0.25, 3, 0.1, gamma=0.01).delta > 0
    assert issubclass(InputError, ValueError)


def test_oracle10_k_eta_below_one_is_a_warning_not_an_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning either: it is in the result
        r = dirichlet_privacy(5, 0.15, 0.15, 3, 0.1, gamma=0.01)
    assert any("Lemma 1.2" in m and "0.75" in m for m in r.warnings)
    assert 0 < r.delta < 1 and math.isfinite(r.epsilon)
    r2 = dirichlet_privacy(20, 0.1, 0.02, 3, 0.1, gamma=0.01)  # k eta_bar = 0.4 < 1
    assert any("Lemma 1.2" in m for m in r2.warnings)
    ok = dirichlet_privacy(*FIG_LEFT, gamma=0.01)  # k eta = 1.005: no warning
    assert not any("Lemma 1.2" in m for m in ok.warnings)


def test_corrected_v2_warning_only_in_its_regime() -> None:
    r = dirichlet_privacy(20, 0.3, 0.1, 2, 0.4, gamma=0.01)
    assert any("corrected v2" in m for m in r.warnings)
    assert r.v2 > betaln(6, 12) - betaln(10, 8)  # larger than the source's (1.21)
    assert not any("corrected v2" in m for m in dirichlet_privacy(*FIG_LEFT,
                                                                   gamma=0.01).warnings)


def test_result_to_dict_round_trips_the_fields() -> None:
    r = dirichlet_privacy(*FIG_LEFT, delta_target=0.05, delta_method="union")
    d = r.to_dict()
    for key in ("epsilon", "delta", "gamma", "epsilon_approx", "delta_method", "v1", "v2",
                "delta_target", "delta_vertex_A", "delta_vertex_B"):
        assert d[key] == getattr(r, key)
    assert d["warnings"] == [] and d["w"] == 3


def test_exact_delta_never_exceeds_the_union_bound_even_for_tiny_gamma() -> None:
    """Regression: with k·eta < 1 and gamma ~ 1e-24 the quadrature lost accuracy and reported
    more than the (rigorous) union bound, and gamma* then broke its delta target."""
    for gamma in (1e-40, 1e-24, 1e-12):
        d = dirichlet_delta(1.0, 0.15, 0.15, 3, gamma, method="exact")
        assert d["delta"] <= float(union_delta(1.0, 0.15, 3, gamma)) * (1 + 1e-12)
    r = dirichlet_privacy(1.0, 0.15, 0.15, 3, 0.1, delta_target=1e-3, **EXACT)
    assert r.delta <= 1e-3 and r.gamma > 0


# =============================================================================== support
# support_privacy: the within-support analysis for MDP rows. Domain: all n support entries
# >= eta; neighbours move <= b/2 between ANY two support entries (the last included);
# Omega_1 = {all n coordinates >= gamma}.
@pytest.mark.parametrize("k, eta, tau, expected", [
    (5, 0.25, 0.05, 0.104865), (20, 0.1, 0.01, 0.015274)])
def test_support_n2_closed_form_oracle_b5(k, eta, tau, expected) -> None:
    # spec kickstarting §5 B5: delta = I_tau(k eta, k(1-eta)) + I_tau(k(1-eta), k eta)
    r = support_privacy(k, eta, 2, 0.1, gamma=tau, **EXACT)
    assert r.delta_method == "exact" and r.analysis == "support" and r.w == 2
    assert r.warnings == (LEMMA_1_2_WARNING,)
    closed = betainc(k * eta, k * (1 - eta), tau) + betainc(k * (1 - eta), k * eta, tau)
    assert r.delta == pytest.approx(closed, rel=1e-11)
    assert r.delta >= closed  # certified: never below the closed form
    assert r.delta == pytest.approx(expected, abs=1e-6)
    # the default is the union bound 2·I_tau(k eta, k(1-eta)), proven, >= the vertex value
    u = support_privacy(k, eta, 2, 0.1, gamma=tau)
    assert u.delta_method == "union" and u.warnings == ()
    assert u.delta == pytest.approx(2 * betainc(k * eta, k * (1 - eta), tau), rel=1e-11)
    assert u.delta >= r.delta


def test_support_n2_k_eta_below_one_is_the_union_bound() -> None:
    # B5's (k=5, eta=0.1, tau=0.01) -> 0.230125 is the two-vertex value, but k eta = 0.5 < 1
    # leaves the vertex reduction unproven: the reported delta is 2 I_tau(0.5, 4.5)
    r = support_privacy(5, 0.1, 2, 0.1, gamma=0.01)
    assert r.delta_method == "union" and any("Lemma 1.2" in m for m in r.warnings)
    assert r.delta == pytest.approx(2 * betainc(0.5, 4.5, 0.01), rel=1e-11)
    assert r.delta >= 0.230125


@pytest.mark.parametrize("n, tau, expected", [(3, 0.05, 0.2775), (2, 0.1, 0.2),
                                              (4, 0.01, 1 - 0.96 ** 3)])
def test_support_uniform_closed_form(n, tau, expected) -> None:
    # k = n, eta = 1/n: one point, all shapes 1, P[all n >= tau] = (1 - n tau)^(n-1)
    # (spec kickstarting B6: m = 3, tau = 0.05 -> 0.2775). b must be 0 for this one-point
    # domain (n eta + b/2 <= 1), so the delta is checked through support_delta.
    d = support_delta(n, 1.0 / n, n, tau, method="exact")
    assert d["delta"] == pytest.approx(1 - (1 - n * tau) ** (n - 1), rel=1e-9)
    assert d["delta"] == pytest.approx(expected, abs=1e-6)
    # n = 6 (B6: 0.266096) is beyond the exact method: the union bound dominates it
    assert support_delta(6, 1 / 6, 6, 0.01, method="union")["delta"] >= 0.266096


def test_support_epsilon_by_hand() -> None:
    k, eta, n, b, g = 20.0, 0.1, 4, 0.1, 0.01
    r = support_privacy(k, eta, n, b, gamma=g)
    c_max = 1 - (n - 2) * eta
    v2 = betaln(k * eta, k * (c_max - eta)) - betaln(k * (eta + b / 2),
                                                     k * (c_max - eta - b / 2))
    v1 = (k * b / 2) * math.log((1 - (n - 1) * g) / g)
    assert r.v1 == pytest.approx(v1, rel=1e-13) and r.v2 == pytest.approx(v2, rel=1e-12)
    assert r.epsilon == pytest.approx(v1 + v2, rel=1e-13)
    assert r.eta_bar == pytest.approx((n - 2) * eta) and r.w == n
    assert r.to_dict()["analysis"] == "support"
    # the corrected v2 when eta + b/2 passes c_max / 2 (n = 2, c_max = 1)
    r2 = support_privacy(10, 0.4, 2, 0.4, gamma=0.01)
    assert r2.v2 == pytest.approx(betaln(4, 6) - betaln(5, 5), rel=1e-12)


def _support_pair(rng: np.random.Generator, n: int, eta: float, b: float
                  ) -> tuple[np.ndarray, np.ndarray, int, int]:
    """p in the support domain and a neighbour q: any two entries i, j (the last one
    included) exchange d with |d| <= b/2, both staying >= eta; half the time d is extreme."""
    p = eta + (1 - n * eta) * rng.dirichlet(np.ones(n))
    i, j = rng.choice(n, size=2, replace=False)
    d_lo, d_hi = max(-b / 2, eta - p[i]), min(b / 2, p[j] - eta)
    u = rng.uniform()
    d = d_lo if u < 0.25 else d_hi if u < 0.5 else rng.uniform(d_lo, d_hi)
    q = p.copy()
    q[i] += d
    q[j] -= d
    return p, q, int(i), int(j)


@pytest.mark.parametrize("k, eta, n, b, how", [
    (20.0, 0.1, 3, 0.1, {"delta_target": 0.05}), (10.0, 0.2, 4, 0.2, {"gamma": 0.02}),
    (20.0, 0.3, 2, 0.4, {"gamma": 0.05}), (50.0, 0.02, 6, 0.1, {"delta_target": 0.05})])
def test_support_privacy_loss_never_exceeds_epsilon(k, eta, n, b, how) -> None:
    r = support_privacy(k, eta, n, b, delta_method="union", **how)
    rng = np.random.default_rng(99)
    worst = -np.inf
    for _ in range(150):
        p, q, i, j = _support_pair(rng, n, eta, b)
        assert (q >= eta - 1e-12).all() and abs(p - q).sum() <= b + 1e-12
        x = rng.dirichlet(k * p, size=300)
        x = x[(x >= r.gamma).all(axis=1)]  # Omega_1: all n coordinates >= gamma
        if len(x):
            worst = max(worst, float(np.abs(_log_ratio(k, p, q, i, j, x)).max()))
        hi, lo = 1 - (n - 1) * r.gamma, r.gamma  # the extreme x in Omega_1
        for xi, xj in ((hi, lo), (lo, hi)):
            xe = np.full(n, r.gamma)
            xe[i], xe[j] = xi, xj
            worst = max(worst, float(_log_ratio(k, p, q, i, j, xe)))
    assert worst <= r.epsilon + 1e-12


def test_support_epsilon_is_attained_for_two_entries() -> None:
    # n = 2: c = 1 always, the (1.20) pair and x = (1 - gamma, gamma) are feasible: tight
    k, eta, b, g = 20.0, 0.1, 0.2, 0.02
    r = support_privacy(k, eta, 2, b, gamma=g)
    p, q = np.array([eta + b / 2, 1 - eta - b / 2]), np.array([eta, 1 - eta])
    loss = float(_log_ratio(k, p, q, 0, 1, np.array([1 - g, g])))
    assert loss == pytest.approx(r.epsilon, abs=1e-9)


def test_issue_row_with_mass_moved_into_the_last_entry_is_covered() -> None:
    # (0.49, 0.49, 0.02) and (0.49, 0.44, 0.07) differ in entries 1 and 2
    # (the last one): outside Theorem 1.6's W, inside the support analysis (eta = 0.02)
    k, eta, b = 10.0, 0.02, 0.1
    p, q = np.array([0.49, 0.49, 0.02]), np.array([0.49, 0.44, 0.07])
    r = support_privacy(k, eta, 3, b, delta_target=0.05, delta_method="union")
    assert r.delta_method == "union"  # k eta = 0.2 < 1
    x = np.random.default_rng(3).dirichlet(k * p, size=200_000)
    x = x[(x >= r.gamma).all(axis=1)]
    assert len(x) > 1000
    assert np.abs(_log_ratio(k, p, q, 1, 2, x)).max() <= r.epsilon
    # both rows' failure probability at the reported gamma is below delta: Binomial with
    # N = 2e5, p <= 0.05, standard error <= 4.9e-4; 5 standard errors of slack
    for row in (p, q):
        y = np.random.default_rng(4).dirichlet(k * row, size=200_000)
        assert float((y.min(axis=1) < r.gamma).mean()) <= r.delta + 5 * 4.9e-4


def test_support_delta_matches_monte_carlo_at_the_vertex() -> None:
    # standard error sqrt(0.1 (0.9) / 2e5) = 6.7e-4; 4 of them (false alarm ~6e-5)
    k, eta, n, g = 20.0, 0.1, 4, 0.01
    d = support_privacy(k, eta, n, 0.1, gamma=g, **EXACT).delta
    x = np.random.default_rng(11).dirichlet([k * eta] * (n - 1) + [k * (1 - (n - 1) * eta)],
                                            size=200_000)
    p_hat = float((x.min(axis=1) < g).mean())
    assert abs(p_hat - d) < 4 * math.sqrt(d * (1 - d) / 200_000)


def test_support_against_the_w_analysis() -> None:
    """What is implied, for n entries against |W| = n - 1, eta_bar = eta (same domain):
    at a fixed gamma the support analysis has a *smaller* epsilon (v1 uses 1-(n-1)gamma
    instead of 1-(n-2)gamma; v2 uses c_max = 1-(n-2)eta <= 1-eta) but a larger delta (Omega_1
    also constrains the last entry). So at a fixed target delta_hat its gamma* is smaller,
    and neither epsilon dominates the other in general: 'support epsilon >= W epsilon' is
    NOT implied (it holds in the first example at the end and fails in the second)."""
    for k, eta, n in [(20.0, 0.1, 3), (10.0, 0.15, 4), (50.0, 0.05, 4)]:
        for g in (1e-4, 0.01, 0.05):
            s = support_privacy(k, eta, n, 0.1, gamma=g, **EXACT)
            w = dirichlet_privacy(k, eta, eta, n - 1, 0.1, gamma=g, **EXACT)
            assert s.epsilon < w.epsilon and s.v2 <= w.v2 + 1e-12
            assert s.delta >= w.delta_lower  # true support delta >= true W delta
        s5 = support_privacy(k, eta, n, 0.1, delta_target=0.05, **EXACT)
        w5 = dirichlet_privacy(k, eta, eta, n - 1, 0.1, delta_target=0.05, **EXACT)
        assert s5.gamma <= w5.gamma * (1 + 1e-9)
    # (4, 0.3, 3): 0.8579 > 0.8448; (20, 0.1, 3): 6.3246 < 6.3380 (delta_hat = 0.05)
    a = (support_privacy(4, 0.3, 3, 0.1, delta_target=0.05, **EXACT),
         dirichlet_privacy(4, 0.3, 0.3, 2, 0.1, delta_target=0.05, **EXACT))
    b = (support_privacy(20, 0.1, 3, 0.1, delta_target=0.05, **EXACT),
         dirichlet_privacy(20, 0.1, 0.1, 2, 0.1, delta_target=0.05, **EXACT))
    assert a[0].epsilon > a[1].epsilon
    assert b[0].epsilon < b[1].epsilon


@pytest.mark.parametrize("kwargs, field, text", [
    (dict(k=10, eta=0.1, n=1, b=0.1), "n", ">= 2"),
    (dict(k=10, eta=0.1, n=2.0, b=0.1), "n", ">= 2"),
    (dict(k=10, eta=0.4, n=3, b=0.1), "eta", "domain is empty"),
    (dict(k=10, eta=0.3, n=3, b=0.4), "b", "eta + b/2"),
    (dict(k=0, eta=0.1, n=3, b=0.1), "k", "> 0"),
    (dict(k=10, eta=0.0, n=3, b=0.1), "eta", "(0, 1)"),
    (dict(k=10, eta=0.1, n=3, b=0.0), "b", "[1e-12, 1]"),
])
def test_support_validation(kwargs, field, text) -> None:
    e = _field(lambda: support_privacy(**kwargs, gamma=0.01))
    assert e.field == field and text in str(e)


@pytest.mark.parametrize("extra, field", [
    (dict(gamma=1 / 3), "gamma"), (dict(delta_target=1.0), "delta"), (dict(), "gamma"),
    (dict(gamma=0.01, delta_method="exact"), None)])
def test_support_gamma_delta_and_method_validation(extra, field) -> None:
    if field is None:  # exact is limited to n <= 4
        e = _field(lambda: support_privacy(20, 0.05, 5, 0.1, **extra))
        assert e.field == "delta_method" and "union" in str(e)
        assert support_privacy(20, 0.05, 5, 0.1, gamma=0.01).delta_method == "union"
        return
    e = _field(lambda: support_privacy(20, 0.1, 3, 0.1, **extra))
    assert e.field == field


def test_support_target_never_exceeded_for_every_method() -> None:
    for method in ("exact", "union"):
        for n in (2, 3, 4):
            r = support_privacy(20, 0.1, n, 0.1, delta_target=0.01, delta_method=method)
            assert r.delta <= 0.01 and r.delta == pytest.approx(0.01, rel=1e-6)
    m = support_privacy(20, 0.1, 3, 0.1, delta_target=0.05, delta_method="mc",
                        mc_draws=20_000, mc_seed=1)
    assert m.delta_method == "mc" and m.delta <= 0.05 and m.delta_estimate <= m.delta
