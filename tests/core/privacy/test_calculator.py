"""The Privacy Calculator's curves (``core.privacy.calculator``) against spec §4.3 / §10.

The spec's reference values were computed with the source's vertex reduction, so they are
tests of ``delta_method="exact"`` (which rests on [D] Lemma 1.2, whose printed proof has a
gap); the default curves use the proven union bound and lie above them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.common.errors import InputError
from core.common.progress import Cancelled
from core.mdp.accounting import dirichlet_accuracy
from core.privacy.calculator import (
    DELTA_RANGE,
    FIGURE_1_1,
    GAMMA_FLOOR,
    CalculatorInputs,
    accuracy_vs_k,
    default_k_grid,
    delta_on_grid,
    delta_vs_gamma,
    epsilon_delta_curve,
    epsilon_vs_k,
    evaluate_calculator,
    gamma_grid,
    warning_field,
)
from core.privacy.dirichlet_accounting import (
    LEMMA_1_2_WARNING,
    dirichlet_delta,
    dirichlet_privacy,
)

# spec §4.3: (ε, ε_approx) at δ̂ = 0.01, 0.05, 0.10, 0.20 and the Lemma 1.7 offset
SPEC_4_3 = {
    "left": ({0.01: 3.0599, 0.05: 2.5161, 0.10: 2.2755, 0.20: 2.0241}, 2.527472),
    "middle": ({0.01: 2.1022, 0.05: 1.6940, 0.10: 1.5132, 0.20: 1.3240}, 1.211877),
    "right": ({0.01: 1.5275, 0.05: 1.2007, 0.10: 1.0559, 0.20: 0.9041}, 0.465752),
}


# the default (union δ, proven) at δ̂ = 0.05: the README's Figure 1.1 numbers
UNION_AT_0_05 = {"left": (3.01299e-3, 2.5208), "middle": (4.48394e-3, 1.6972),
                 "right": (6.06698e-3, 1.2030)}


@pytest.fixture(scope="module")
def curves():
    """Figure 1.1 itself: the vertex reduction of Lemma 1.2 (the spec's values)."""
    return {name: epsilon_delta_curve(**cfg, delta_method="exact")
            for name, cfg in FIGURE_1_1.items()}


@pytest.fixture(scope="module")
def union_curves():
    return {name: epsilon_delta_curve(**cfg) for name, cfg in FIGURE_1_1.items()}


def test_figure_1_1_configurations():
    assert FIGURE_1_1["left"] == {"k": 6.7, "eta": 0.15, "eta_bar": 0.15, "w": 3, "b": 0.1}
    assert (FIGURE_1_1["middle"]["k"], FIGURE_1_1["middle"]["eta"]) == (5.1, 0.20)
    assert (FIGURE_1_1["right"]["k"], FIGURE_1_1["right"]["eta"]) == (4.1, 0.25)
    for cfg in FIGURE_1_1.values():
        assert cfg["w"] == 3 and cfg["b"] == 0.1 and cfg["eta"] == cfg["eta_bar"]
        assert cfg["k"] * cfg["eta"] >= 1  # chosen just above the Lemma 1.2 premise


@pytest.mark.parametrize("name", ["left", "middle", "right"])
def test_curve_passes_through_spec_values(curves, name):
    c = curves[name]
    table, offset = SPEC_4_3[name]
    for delta, eps in table.items():
        assert c.epsilon_at(delta) == pytest.approx(eps, abs=1e-2)
    # Lemma 1.7: ε_approx − ε is one constant along the whole curve
    np.testing.assert_allclose(c.epsilon_approx - c.epsilon, offset, atol=1e-6)
    assert c.approx_offset == pytest.approx(offset, abs=1e-6)
    assert c.delta_method == "exact"


def test_left_curve_at_delta_0_05_tight(curves):
    assert curves["left"].epsilon_at(0.05) == pytest.approx(2.5161, abs=1e-3)


@pytest.mark.parametrize("name", ["left", "middle", "right"])
def test_default_curve_is_the_union_bound_above_the_figure(curves, union_curves, name):
    u, e = union_curves[name], curves[name]
    assert u.delta_method == "union"
    g_star, eps = UNION_AT_0_05[name]
    assert u.epsilon_at(0.05) == pytest.approx(eps, abs=2e-3)
    r = dirichlet_privacy(**FIGURE_1_1[name], delta_target=0.05, delta_method="union")
    assert r.delta_method == "union" and r.gamma == pytest.approx(g_star, rel=1e-5)
    assert r.epsilon == pytest.approx(eps, abs=1e-4)
    # at every γ the union δ is >= the exact δ, so at every δ the proven ε is >= the figure's
    for d in (1e-5, 1e-3, 0.01, 0.1, 0.5):
        assert u.epsilon_at(d) >= e.epsilon_at(d)


def test_curve_is_monotone_and_in_range(curves):
    for c in curves.values():
        assert c.gamma.size >= 30  # most of the 40 grid points are kept
        assert np.all(np.diff(c.gamma) > 0)
        assert np.all(np.diff(c.delta) > 0)
        assert np.all(np.diff(c.epsilon) < 0)  # ε falls as δ grows
        assert DELTA_RANGE[0] < c.delta[0] and c.delta[-1] < DELTA_RANGE[1]
        assert c.delta[0] < 1e-5 and c.delta[-1] > 0.9  # spans the range
        assert not c.gamma.flags.writeable


def test_curve_points_are_the_accountant_at_gamma(curves):
    """Each point is dirichlet_privacy at its γ; and at δ̂ = δ(γ) the root is that γ."""
    c = curves["left"]
    for i in (3, len(c.gamma) // 2, len(c.gamma) - 4):
        r = dirichlet_privacy(**FIGURE_1_1["left"], gamma=float(c.gamma[i]),
                              delta_method="exact")
        assert r.epsilon == pytest.approx(c.epsilon[i], rel=1e-12)
        assert r.delta == pytest.approx(c.delta[i], abs=1e-9)
        assert r.epsilon_approx == pytest.approx(c.epsilon_approx[i], rel=1e-12)
    mid = len(c.gamma) // 2
    r = dirichlet_privacy(**FIGURE_1_1["left"], delta_target=float(c.delta[mid]),
                          delta_method="exact")
    assert r.gamma == pytest.approx(c.gamma[mid], rel=1e-6)


def test_union_curve_points_are_the_accountant_at_gamma(union_curves):
    c = union_curves["left"]
    for i in (3, len(c.gamma) // 2, len(c.gamma) - 4):
        r = dirichlet_privacy(**FIGURE_1_1["left"], gamma=float(c.gamma[i]))
        assert r.epsilon == pytest.approx(c.epsilon[i], rel=1e-12)
        assert r.delta == pytest.approx(c.delta[i], rel=1e-12)


def test_union_and_mc_curves():
    left = FIGURE_1_1["left"]
    exact = epsilon_delta_curve(**left, n_points=20, delta_method="exact")
    union = epsilon_delta_curve(**left, n_points=20, delta_method="union")
    assert exact.delta_method == "exact"
    assert union.delta_method == "union"
    # the union bound is a larger δ, so at the same δ it needs a smaller γ: ε is larger
    assert union.epsilon_at(0.05) >= exact.epsilon_at(0.05) - 1e-9
    mc = epsilon_delta_curve(**left, n_points=20, delta_method="mc", mc_draws=20_000)
    assert mc.delta_method == "mc" and mc.gamma.size >= 5
    assert np.all(np.diff(mc.delta) > 0)


def test_mc_grid_matches_the_accountant():
    """The vectorised Monte Carlo δ reuses exactly the accountant's draws."""
    g = np.array([0.004, 0.01, 0.05])
    grid = delta_on_grid(6.7, 0.15, 0.15, 3, g, "mc", mc_draws=20_000, mc_seed=3)
    for gi, d in zip(g, grid):
        one = dirichlet_delta(6.7, 0.15, 0.15, 3, float(gi), method="mc", mc_draws=20_000,
                              mc_seed=3)
        assert d == pytest.approx(one["delta"], rel=1e-12)


def test_large_w_uses_union_and_exact_is_refused():
    c = epsilon_delta_curve(30, 0.02, 0.1, 10, 0.05)
    assert c.delta_method == "union" and c.gamma.size > 10
    with pytest.raises(InputError) as err:
        epsilon_delta_curve(30, 0.02, 0.1, 10, 0.05, delta_method="exact")
    assert err.value.field == "delta_method"


def test_steep_curve_for_large_k():
    """kη = 150: δ rises within a narrow γ window, which the grid still resolves."""
    c = epsilon_delta_curve(1000, 0.15, 0.15, 3, 0.1)
    assert c.gamma.size >= 30
    r = dirichlet_privacy(1000, 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="union")
    assert c.epsilon_at(0.05) == pytest.approx(r.epsilon, rel=1e-3)


def test_gamma_grid_brackets_the_range():
    g = gamma_grid(6.7, 0.15, 0.15, 3, n_points=40)
    assert g.size == 40 and np.all(np.diff(g) > 0) and 0 < g[0] and g[-1] < 1 / 3
    d = delta_on_grid(6.7, 0.15, 0.15, 3, g, "exact")
    assert d[0] <= DELTA_RANGE[0] and d[-1] >= DELTA_RANGE[1]
    # δ is about log-spaced along the grid (within the factor |W| of the construction)
    steps = np.diff(np.log10(d[d < 0.9]))
    assert steps.min() > 0 and steps.max() < 0.35
    for bad in (1, 2.5, True):
        with pytest.raises(InputError):
            gamma_grid(6.7, 0.15, 0.15, 3, n_points=bad)


def test_gamma_grid_respects_the_floor_for_tiny_k_eta():
    """kη << 1: δ cannot reach 1e-6 for γ >= 1e-12; the curve starts where it can."""
    g = gamma_grid(0.5, 0.15, 0.15, 3)
    assert g[0] == pytest.approx(GAMMA_FLOOR, rel=1e-9)
    c = epsilon_delta_curve(0.5, 0.15, 0.15, 3, 0.1)
    assert c.gamma[0] >= GAMMA_FLOOR and c.delta[0] > 1e-3 and c.epsilon_approx is None
    assert np.all(np.diff(c.epsilon) < 0)


@pytest.mark.parametrize("bad, field", [
    (dict(eta=0.6, eta_bar=0.5), "eta_bar"),
    (dict(w=1), "w"),
    (dict(b=0.0), "b"),
    (dict(eta=0.4), "eta"),  # |W|·η + η̄ > 1: empty domain
    (dict(k=-1.0), "k"),
])
def test_bad_parameters_name_the_field(bad, field):
    cfg = dict(FIGURE_1_1["left"], **bad)
    with pytest.raises(InputError) as err:
        epsilon_delta_curve(**cfg)
    assert err.value.field == field


def test_delta_vs_gamma_oracles():
    d = delta_vs_gamma(6.7, 0.15, 0.15, 3, gammas=np.array([0.005, 0.01, 0.02, 0.05, 0.1]))
    np.testing.assert_allclose(d.exact, [0.080918, 0.156845, 0.293647, 0.600109, 0.866919],
                               atol=2e-5)
    assert d.union[1] == pytest.approx(0.164226, abs=1e-5)
    assert np.all(d.union >= d.exact - 1e-12)  # the union bound is an upper bound
    assert d.mc is None
    # uniform Dirichlet (spec §10.1): δ = 1 − (1 − 3γ)³
    u = delta_vs_gamma(4.0, 0.25, 0.25, 3, gammas=np.array([0.01, 0.1]))
    np.testing.assert_allclose(u.exact, [1 - 0.97 ** 3, 0.657], atol=1e-8)
    big = delta_vs_gamma(30, 0.02, 0.1, 10, n_points=8)
    assert big.exact is None and big.union.shape == (8,)
    with pytest.raises(InputError) as err:
        delta_vs_gamma(6.7, 0.15, 0.15, 3, gammas=np.array([0.4]))
    assert err.value.field == "gamma"


def test_epsilon_vs_k_increases_in_k():
    ks = [6.7, 10, 20, 50, 100]
    r = epsilon_vs_k(ks, 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="exact")
    np.testing.assert_allclose(r.epsilon, [2.516, 3.122, 4.943, 10.14, 18.40], atol=5e-3)
    np.testing.assert_allclose(r.gamma, [0.00306, 0.00936, 0.0291, 0.0613, 0.0831], rtol=5e-3)
    assert np.all(np.diff(r.epsilon) > 0) and r.valid.all()
    assert np.all(r.delta <= 0.05 + 1e-12) and r.delta_method == "exact"
    assert r.reasons == ("",) * 5
    # at a fixed γ the closed form is increasing in k too
    g = epsilon_vs_k(ks, 0.15, 0.15, 3, 0.1, gamma=0.01)
    assert np.all(np.diff(g.epsilon) > 0) and g.fixed_gamma == 0.01
    # the union bound: larger ε at every k, still increasing in k
    u = epsilon_vs_k(ks, 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="union")
    assert u.delta_method == "union" and np.all(u.epsilon > r.epsilon)
    assert np.all(np.diff(u.epsilon) > 0) and np.all(u.delta <= 0.05)
    assert g.epsilon[0] == pytest.approx(dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1,
                                                           gamma=0.01).epsilon)


def test_epsilon_vs_k_marks_invalid_k_and_cancels():
    # η = 1e-3: at k = 0.01 (kη = 1e-5) no γ > 0 reaches δ̂ = 0.01 in floating point
    r = epsilon_vs_k([0.01, 100.0], 1e-3, 0.1, 3, 0.1, delta_target=0.01, delta_method="union")
    assert math.isnan(r.epsilon[0]) and "delta" in r.reasons[0]
    assert r.valid.tolist() == [False, True]
    with pytest.raises(InputError) as err:
        epsilon_vs_k([10], 0.6, 0.5, 3, 0.1, delta_target=0.05)
    assert err.value.field == "eta_bar"

    def stop(fraction, message=""):
        if fraction > 0.3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        epsilon_vs_k([5, 10, 20], 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="union",
                     progress=stop)


def test_accuracy_formulas():
    ks = np.array([1.0, 10.0, 24.0, 1000.0])
    p = np.array([0.2, 0.3, 0.5])
    a = accuracy_vs_k(ks, n=3, p=p, beta=0.05)
    np.testing.assert_allclose(a.variance_bound, 1 / (4 * (ks + 1)))
    np.testing.assert_allclose(a.expected_sq_error, (1 - (p ** 2).sum()) / (ks + 1))
    np.testing.assert_allclose(a.alpha_paper, np.sqrt(np.log(1 / 0.05) / (2 * (ks + 1))))
    np.testing.assert_allclose(a.alpha_rigorous, np.sqrt(np.log(2 * 3 / 0.05) / (2 * (ks + 1))))
    assert np.all(a.alpha_rigorous > a.alpha_paper)
    for i, k in enumerate(ks):  # the same numbers as the accountant's accuracy figures
        ref = dirichlet_accuracy(float(k), n=3, p=p, beta=0.05)
        assert a.variance_bound[i] == pytest.approx(ref.variance_bound)
        assert a.expected_sq_error[i] == pytest.approx(ref.expected_sq_error)
        assert a.alpha_paper[i] == pytest.approx(ref.alpha_paper)
        assert a.alpha_rigorous[i] == pytest.approx(ref.alpha_rigorous)
    assert accuracy_vs_k(ks, n=3, beta=0.05).expected_sq_error is None
    for kwargs, field in ((dict(n=1), "n"), (dict(n=3, beta=1.0), "beta"),
                          (dict(n=3, p=np.array([0.5, 0.5])), "p")):
        with pytest.raises(InputError) as err:
            accuracy_vs_k(ks, **kwargs)
        assert err.value.field == field


def test_default_k_grid():
    g = default_k_grid()
    assert g[0] == 1 and g[-1] == 1e4 and g.size == 13
    assert default_k_grid(0.3)[0] == pytest.approx(0.1)
    assert default_k_grid(5e4)[-1] == pytest.approx(1e5)


def test_warning_fields_follow_the_accountant_messages():
    low_k = dirichlet_privacy(3.0, 0.15, 0.15, 3, 0.1, gamma=0.01)
    assert [warning_field(m) for m in low_k.warnings] == ["k", "epsilon_approx"]
    wide_b = dirichlet_privacy(50, 0.15, 0.15, 3, 0.6, gamma=0.01)
    assert "b" in [warning_field(m) for m in wide_b.warnings]
    assert warning_field("something else") == ""


def test_calculator_inputs_check():
    ok = CalculatorInputs(**FIGURE_1_1["left"])
    assert ok.check() == () and ok.n_entries == 4
    assert CalculatorInputs(3.0, 0.15, 0.15, 3, 0.1).check()[0][0] == "k"
    # the named methods resting on Lemma 1.2 say so (where the lemma's premise holds)
    for method in ("exact", "mc"):
        warns = CalculatorInputs(**FIGURE_1_1["left"], delta_method=method).check()
        assert warns == (("delta_method", LEMMA_1_2_WARNING),)
    assert CalculatorInputs(3.0, 0.15, 0.15, 3, 0.1, delta_method="exact").check()[0][0] == "k"
    assert warning_field(LEMMA_1_2_WARNING) == "delta_method"
    cases = [
        (dict(eta=0.6, eta_bar=0.5), "eta_bar", "< 1"),
        (dict(delta_target=None, gamma=0.34), "gamma", "(0, 0.333333)"),
        (dict(delta_target=None, gamma=None), "gamma", "exactly one"),
        (dict(delta_target=1.0), "delta", "(0, 1)"),
        (dict(n=3), "n", ">= |W| + 1 = 4"),
        (dict(beta=0.0), "beta", "between 0 and 1"),
        (dict(w=4, delta_method="exact"), "delta_method", "|W| <= 3"),
        (dict(delta_method="best"), "delta_method", "one of"),
    ]
    for change, field, text in cases:
        cfg = dict(FIGURE_1_1["left"], **change)
        if cfg["w"] == 4:
            cfg["eta"] = cfg["eta_bar"] = 0.1
        with pytest.raises(InputError) as err:
            CalculatorInputs(**cfg).check()
        assert err.value.field == field and text in str(err.value)


def test_evaluate_calculator_shares_one_delta_evaluation():
    r = evaluate_calculator(CalculatorInputs(**FIGURE_1_1["left"]), n_points=40)
    # the point: the proven union bound; the figure's value beside it (spec §4.3)
    assert r.point.delta_method == "union" and r.points["union"] is r.point
    assert r.point.epsilon == pytest.approx(2.5208, abs=1e-4)
    assert r.point.gamma == pytest.approx(3.01299e-3, rel=1e-5)
    assert r.points["exact"].epsilon == pytest.approx(2.5161, abs=1e-3)
    assert r.points["exact"].gamma == pytest.approx(3.0555e-3, rel=1e-3)
    ref = epsilon_delta_curve(**FIGURE_1_1["left"], n_points=40)
    np.testing.assert_array_equal(r.curve.delta, ref.delta)
    np.testing.assert_array_equal(r.curve.epsilon, ref.epsilon)
    assert r.curves["union"] is r.curve and sorted(r.curves) == ["exact", "union"]
    fig = epsilon_delta_curve(**FIGURE_1_1["left"], n_points=40, delta_method="exact")
    np.testing.assert_array_equal(r.curves["exact"].delta, fig.delta)
    np.testing.assert_array_equal(r.curves["exact"].epsilon, fig.epsilon)
    # the δ–γ plot uses the whole grid: the curve's points are a subset of it
    assert set(r.curve.gamma.tolist()) <= set(r.delta_gamma.gamma.tolist())
    assert r.delta_gamma.exact is not None and r.delta_gamma.mc is None
    assert r.accuracy.n == 4 and r.accuracy.expected_sq_error is not None
    assert r.warnings == () and r.elapsed_s > 0
    fixed = evaluate_calculator(CalculatorInputs(**FIGURE_1_1["left"], delta_target=None,
                                                 gamma=0.01), n_points=10)
    assert fixed.point.epsilon == pytest.approx(2.114192024, abs=1e-8)
    assert fixed.point.delta == pytest.approx(0.164226, abs=1e-6)  # union
    assert fixed.points["exact"].delta == pytest.approx(0.156845, abs=2e-5)  # spec §10.2
    assert fixed.points["exact"].epsilon == fixed.point.epsilon  # ε does not depend on it
    low = evaluate_calculator(CalculatorInputs(3.0, 0.15, 0.15, 3, 0.1), n_points=10)
    assert [f for f, _ in low.warnings] == ["k", "epsilon_approx"]
    assert low.curve.epsilon_approx is None
    assert sorted(low.points) == ["union"]  # no vertex reduction below Lemma 1.2's premise
    # the exact method chosen: its point, the Lemma 1.2 warning, and the union beside it
    ex = evaluate_calculator(CalculatorInputs(**FIGURE_1_1["left"], delta_method="exact"),
                             n_points=10)
    assert ex.point.delta_method == "exact" and ex.curve is ex.curves["exact"]
    assert ("delta_method", LEMMA_1_2_WARNING) in ex.warnings
    assert ex.points["union"].epsilon > ex.point.epsilon
    big = evaluate_calculator(CalculatorInputs(30, 0.02, 0.1, 10, 0.05), n_points=10)
    assert sorted(big.points) == ["union"] and sorted(big.curves) == ["union"]


def test_plotted_curve_brackets_are_coarser_but_never_optimistic():
    """the calculator's ε-vs-k curve uses CURVE_RTOL for the exact method; δ is
    the certified upper end of the bracket either way, so ε can only come out larger, and
    only by a little."""
    from core.privacy.dirichlet_accounting import CURVE_RTOL, clear_caches, dirichlet_privacy

    ks = [6.7, 20.0, 100.0, 500.0]
    clear_caches()
    fine = epsilon_vs_k(ks, 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="exact")
    clear_caches()
    coarse = epsilon_vs_k(ks, 0.15, 0.15, 3, 0.1, delta_target=0.05, delta_method="exact",
                          rtol=CURVE_RTOL)
    assert np.all(coarse.epsilon >= fine.epsilon)
    np.testing.assert_allclose(coarse.epsilon, fine.epsilon, rtol=1e-3)
    assert np.all(coarse.delta <= 0.05)  # still within the target, certified
    with pytest.raises(InputError, match="rtol"):
        dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, delta_target=0.05, rtol=0.5)


@pytest.mark.parametrize("bad", [True, False])
def test_a_flag_is_not_an_epsilon(bad: bool) -> None:
    """``float(True)`` is 1.0: ε given as a flag (a JSON ``true``) is refused, naming the field."""
    from core.common.errors import InputError
    from core.privacy.laplace import check_epsilon

    with pytest.raises(InputError) as exc:
        check_epsilon(bad, "epsilon")
    assert exc.value.field == "epsilon"
