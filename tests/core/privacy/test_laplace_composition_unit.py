"""core.privacy.laplace, .composition and .pld, checked against independent computations:
the exponential mechanism's probabilities against the formula, its samples against those
probabilities (variance-derived tolerances, fixed seeds), Laplace noise against its known
moments, Rényi divergences against numerical integration, and the PLD accountant against the
closed-form privacy profiles of the Laplace mechanism and of k-fold pure ε-DP (Kairouz, Oh &
Viswanath's randomized-response extreme).
"""

from __future__ import annotations

import math

import numpy as np
import opendp.prelude  # noqa: F401 - release mode's ~5 s import, paid at collection
import pytest
from dp_accounting.pld import privacy_loss_distribution  # noqa: F401 - slow import, at collection
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import comb

from core.common.errors import InputError
from core.common.validation import RandomSource
from core.privacy.composition import (
    accuracy_cap,
    advanced_composition,
    advanced_epsilon,
    basic_composition,
    check_delta,
    laplace_rdp,
    rdp_composition,
    zcdp_epsilon,
)
from core.privacy.dirichlet_profile import BetaPair
from core.privacy.laplace import (
    MIN_EPSILON,
    check_epsilon,
    exponential_mechanism,
    exponential_probabilities,
    laplace_release,
    laplace_scale,
)
from core.privacy.pld import (
    PldTerm,
    compose,
    dirichlet_term,
    eps_delta_term,
    laplace_term,
    profile_spec_terms,
)

# ---------------------------------------------------------------- check_epsilon, scale


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, None, "x", [], MIN_EPSILON / 2])
def test_check_epsilon_refuses_naming_the_field(bad: object) -> None:
    with pytest.raises(InputError) as info:
        check_epsilon(bad, "eps_per_step")
    assert info.value.field == "eps_per_step"


def test_check_epsilon_accepts_its_lower_end_and_numeric_strings() -> None:
    assert check_epsilon(MIN_EPSILON) == MIN_EPSILON
    assert check_epsilon("0.5") == 0.5
    assert check_epsilon(np.float32(2.0)) == 2.0


def test_laplace_scale_is_sensitivity_over_epsilon() -> None:
    assert laplace_scale(0.5, 2.0) == 4.0
    assert laplace_scale(1e-9, 1.0) == pytest.approx(1e9)


@pytest.mark.parametrize("bad", [0.0, -2.0, math.inf, math.nan, "abc", None])
def test_laplace_scale_refuses_bad_sensitivity_naming_it(bad: object) -> None:
    with pytest.raises(InputError) as info:
        laplace_scale(1.0, bad)  # type: ignore[arg-type]
    assert info.value.field == "sensitivity"


# ---------------------------------------------------------------- laplace_release


def test_laplace_release_seeded_is_reproducible_and_keeps_shape() -> None:
    x = np.arange(6.0).reshape(2, 3)
    a = laplace_release(x, epsilon=1.0, sensitivity=1.0, rng=5)
    b = laplace_release(x, epsilon=1.0, sensitivity=1.0, rng=5)
    c = laplace_release(x, epsilon=1.0, sensitivity=1.0, rng=6)
    assert a.shape == (2, 3) and np.array_equal(a, b) and not np.array_equal(a, c)


def test_laplace_release_seeded_noise_has_the_laplace_moments() -> None:
    n, eps, sens = 40_000, 0.5, 3.0
    b = sens / eps
    noise = laplace_release(np.zeros(n), epsilon=eps, sensitivity=sens, rng=2024)
    # E|X| = b, Var|X| = b²;  E X = 0, Var X = 2b²  (5 standard errors each)
    assert abs(np.abs(noise).mean() - b) < 5 * b / math.sqrt(n)
    assert abs(noise.mean()) < 5 * math.sqrt(2) * b / math.sqrt(n)
    # P(X > b) = e^{-1}/2
    p = math.exp(-1) / 2
    assert abs((noise > b).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_laplace_release_uses_the_callers_generator() -> None:
    gen = np.random.default_rng(3)
    expected = np.random.default_rng(3).laplace(0.0, 2.0, size=4) + 1.0
    got = laplace_release(np.ones(4), epsilon=0.5, sensitivity=1.0, rng=gen)
    assert np.allclose(got, expected)


@pytest.mark.parametrize("value", [[1.0, math.nan], math.inf, [[0.0, -math.inf]]])
def test_laplace_release_refuses_non_finite_values(value: object) -> None:
    with pytest.raises(InputError) as info:
        laplace_release(value, epsilon=1.0, sensitivity=1.0, rng=0)  # type: ignore[arg-type]
    assert info.value.field == "value"


def test_laplace_release_checks_epsilon_before_drawing() -> None:
    with pytest.raises(InputError) as info:
        laplace_release(np.zeros(2), epsilon=-1.0, sensitivity=1.0, rng=0)
    assert info.value.field == "epsilon"


def test_laplace_release_release_mode_scalar_and_vector() -> None:
    scalar = laplace_release(3.0, epsilon=1.0, sensitivity=1.0, rng=None)
    assert scalar.shape == () and math.isfinite(float(scalar))
    n, b = 1000, 2.0
    vec = laplace_release(np.zeros((n // 2, 2)), epsilon=0.5, sensitivity=1.0, rng=None)
    assert vec.shape == (n // 2, 2)
    # not seeded, but the scale must be right: E|X| = b within 6 standard errors
    assert abs(np.abs(vec).mean() - b) < 6 * b / math.sqrt(n)


# ---------------------------------------------------------------- exponential mechanism


def _em_formula(u: list[float], eps: float, sens: float, monotonic: bool) -> np.ndarray:
    w = np.array([math.exp(eps * x / ((1 if monotonic else 2) * sens)) for x in u])
    return w / w.sum()


@pytest.mark.parametrize("monotonic", [False, True])
def test_exponential_probabilities_match_the_formula(monotonic: bool) -> None:
    u = [0.0, 1.0, 2.5, -1.0]
    got = exponential_probabilities(u, epsilon=0.8, sensitivity=1.5, monotonic=monotonic)
    assert np.allclose(got, _em_formula(u, 0.8, 1.5, monotonic), rtol=1e-12)


def test_exponential_probabilities_monotone_equals_twice_epsilon() -> None:
    u = [3.0, 1.0, 0.0]
    a = exponential_probabilities(u, epsilon=0.7, sensitivity=1.0, monotonic=True)
    b = exponential_probabilities(u, epsilon=1.4, sensitivity=1.0)
    assert np.allclose(a, b, rtol=1e-14)


def test_exponential_probabilities_do_not_overflow_on_huge_utilities() -> None:
    p = exponential_probabilities([1e6, 1e6 - 1.0, -1e6], epsilon=2.0, sensitivity=1.0)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0)
    assert p[0] / p[1] == pytest.approx(math.e)
    assert p[2] == 0.0


def test_exponential_probabilities_single_candidate() -> None:
    assert exponential_probabilities([42.0], epsilon=1.0, sensitivity=1.0).tolist() == [1.0]


@settings(max_examples=40)
@given(st.lists(st.floats(-50, 50), min_size=2, max_size=6), st.floats(0.01, 5.0),
       st.data())
def test_exponential_probabilities_are_epsilon_dp(u: list[float], eps: float,
                                                   data: st.DataObject) -> None:
    """Neighbouring utilities (each moved by at most Δ = 1) change each probability by at
    most a factor e^ε, and shifting every utility by a constant changes nothing."""
    shift = data.draw(st.lists(st.floats(-1, 1), min_size=len(u), max_size=len(u)))
    p = exponential_probabilities(u, epsilon=eps, sensitivity=1.0)
    q = exponential_probabilities([a + d for a, d in zip(u, shift)], epsilon=eps,
                                  sensitivity=1.0)
    assert np.all(p <= math.exp(eps) * q * (1 + 1e-9))
    assert np.allclose(exponential_probabilities([a + 7.0 for a in u], epsilon=eps,
                                                 sensitivity=1.0), p, rtol=1e-9)


def test_exponential_mechanism_samples_follow_its_probabilities() -> None:
    u = [0.0, 1.0, 2.0, 0.5]
    eps, n = 1.5, 6_000
    gen = np.random.default_rng(11)
    src = RandomSource(gen, "experiment", 11)
    counts = np.zeros(len(u))
    for _ in range(n):
        counts[exponential_mechanism(u, epsilon=eps, sensitivity=1.0, rng=src)] += 1
    p = _em_formula(u, eps, 1.0, False)
    tol = 5 * np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(counts / n - p) < tol)


def test_exponential_mechanism_seed_is_reproducible() -> None:
    u = np.linspace(0, 1, 20)
    picks = [exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, rng=s) for s in range(30)]
    again = [exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, rng=s) for s in range(30)]
    assert picks == again and all(0 <= i < 20 for i in picks) and len(set(picks)) > 1


@pytest.mark.parametrize("u", [[], [[1.0, 2.0]], [1.0, math.nan], [math.inf]])
def test_exponential_mechanism_refuses_bad_utilities(u: object) -> None:
    with pytest.raises(InputError) as info:
        exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, rng=0)  # type: ignore[arg-type]
    assert info.value.field == "utilities"


def test_exponential_mechanism_single_candidate_and_release_mode() -> None:
    assert exponential_mechanism([5.0], epsilon=1.0, sensitivity=1.0, rng=0) == 0
    # other candidates have probability ~e^-500: release mode (OpenDP) must pick index 2
    assert exponential_mechanism([0.0, 0.0, 1000.0], epsilon=1.0, sensitivity=1.0,
                                 rng=None) == 2


# ---------------------------------------------------------------- composition


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, math.nan, None, "x"])
def test_check_delta_refuses_outside_the_open_interval(bad: object) -> None:
    with pytest.raises(InputError) as info:
        check_delta(bad)  # type: ignore[arg-type]
    assert info.value.field == "delta"


def test_basic_composition_is_an_exact_sum() -> None:
    assert basic_composition([0.1] * 10) == 1.0  # fsum: no rounding drift
    assert basic_composition([]) == 0.0
    assert basic_composition(np.array([0.5, 0.25])) == 0.75


def test_advanced_epsilon_matches_the_theorem() -> None:
    eps, k, d = 0.2, 50, 1e-6
    expected = math.sqrt(2 * k * math.log(1 / d)) * eps + k * eps * (math.exp(eps) - 1)
    assert advanced_epsilon([eps] * k, delta_slack=d) == pytest.approx(expected, rel=1e-12)


@given(st.lists(st.tuples(st.floats(0.0, 3.0), st.integers(1, 5)), min_size=1, max_size=5),
       st.floats(1e-9, 0.5))
@settings(max_examples=40)
def test_counts_mean_repetition(pairs: list[tuple[float, int]], d: float) -> None:
    eps = [e for e, _ in pairs]
    counts = [c for _, c in pairs]
    flat = [e for e, c in pairs for _ in range(c)]
    assert advanced_epsilon(eps, counts, delta_slack=d) == pytest.approx(
        advanced_epsilon(flat, delta_slack=d), rel=1e-12, abs=1e-15)
    assert zcdp_epsilon(eps, counts, delta=d) == pytest.approx(
        zcdp_epsilon(flat, delta=d), rel=1e-12, abs=1e-15)


def test_advanced_epsilon_overflow_is_infinite() -> None:
    assert advanced_epsilon([800.0], delta_slack=1e-5) == math.inf


def test_advanced_composition_is_capped_by_basic_and_validates_delta() -> None:
    assert advanced_composition([], delta=0.5) == 0.0
    assert advanced_composition([60.0, 1.0], delta=1e-5) == 61.0  # the overflow guard
    small = [0.01] * 1000
    assert advanced_composition(small, delta=1e-5) < basic_composition(small)
    with pytest.raises(InputError) as info:
        advanced_composition([0.1], delta=0.0)
    assert info.value.field == "delta"


@given(st.lists(st.floats(0.0, 10.0), max_size=20), st.floats(1e-12, 0.9))
@settings(max_examples=40)
def test_advanced_composition_never_exceeds_basic(eps: list[float], d: float) -> None:
    assert advanced_composition(eps, delta=d) <= basic_composition(eps) + 1e-12


def test_zcdp_epsilon_matches_bun_steinke() -> None:
    rho = 100 * 0.1 ** 2 / 2
    expected = rho + 2 * math.sqrt(rho * math.log(1e6))
    assert zcdp_epsilon([0.1] * 100, delta=1e-6) == pytest.approx(expected, rel=1e-12)
    assert zcdp_epsilon([], delta=1e-6) == 0.0


def test_zcdp_epsilon_decreases_as_delta_grows() -> None:
    vals = [zcdp_epsilon([0.3] * 20, delta=d) for d in (1e-9, 1e-6, 1e-3, 0.1)]
    assert all(a > b for a, b in zip(vals, vals[1:]))


def _renyi_numeric(alpha: float, eps: float) -> float:
    """D_α(Lap(0, 1) ‖ Lap(ε, 1)) by quadrature, split at the kinks 0 and ε."""
    def f(x: float) -> float:
        # p^α q^(1−α) in log space (each factor alone overflows far out in the tails)
        return 0.5 * math.exp(-alpha * abs(x) - (1 - alpha) * abs(x - eps))

    total = sum(integrate.quad(f, a, b, epsabs=1e-13, epsrel=1e-12)[0]
                for a, b in ((-math.inf, 0.0), (0.0, eps), (eps, math.inf)))
    return math.log(total) / (alpha - 1)


@pytest.mark.parametrize("alpha, eps", [(1.5, 0.5), (2.0, 1.0), (8.0, 0.3), (32.0, 2.0)])
def test_laplace_rdp_matches_numerical_integration(alpha: float, eps: float) -> None:
    assert laplace_rdp(alpha, eps) == pytest.approx(_renyi_numeric(alpha, eps), rel=1e-7)


def test_laplace_rdp_is_monotone_in_order_and_at_most_epsilon() -> None:
    a = np.array([1.001, 1.5, 2.0, 5.0, 50.0, 1e4])
    r = laplace_rdp(a, 0.7)
    assert isinstance(r, np.ndarray) and r.shape == a.shape
    assert np.all(np.diff(r) >= -1e-12) and np.all(r <= 0.7 + 1e-12)


@pytest.mark.parametrize("order", [1.0, 0.5, [2.0, 1.0]])
def test_laplace_rdp_refuses_orders_at_most_one(order: object) -> None:
    with pytest.raises(InputError) as info:
        laplace_rdp(order, 1.0)  # type: ignore[arg-type]
    assert info.value.field == "order"


def test_rdp_composition_is_the_minimum_over_the_given_orders() -> None:
    k, eps, d = 40, 0.2, 1e-6
    orders = np.linspace(1.5, 60.0, 200)
    got, best = rdp_composition(k, eps, delta=d, orders=orders)
    brute = [(k * _renyi_closed(a, eps) + math.log(1 / d) / (a - 1), a) for a in orders]
    e_min, a_min = min(brute)
    assert got == pytest.approx(e_min, rel=1e-10) and best == a_min
    assert got < k * eps


def _renyi_closed(a: float, eps: float) -> float:
    return math.log(a / (2 * a - 1) * math.exp((a - 1) * eps)
                    + (a - 1) / (2 * a - 1) * math.exp(-a * eps)) / (a - 1)


def test_rdp_composition_falls_back_to_basic() -> None:
    assert rdp_composition(0, 1.0, delta=1e-5) == (0.0, math.inf)
    assert rdp_composition(-3, 1.0, delta=1e-5) == (0.0, math.inf)
    assert rdp_composition(2, 5.0, delta=1e-9) == (10.0, math.inf)
    with pytest.raises(InputError):
        rdp_composition(3, 1.0, delta=2.0)


@pytest.mark.parametrize("eps, delta, cap", [
    (0.0, 0.0, 0.5),
    (math.log(3.0), 0.0, 0.75),
    (1.0, 1.0, 1.0),
    (math.inf, 0.0, 1.0),
    (701.0, 0.0, 1.0),
])
def test_accuracy_cap(eps: float, delta: float, cap: float) -> None:
    assert accuracy_cap(eps, delta) == pytest.approx(cap, rel=1e-12)


@pytest.mark.parametrize("eps, delta", [(-0.1, 0.0), (math.nan, 0.0), (1.0, -0.1), (1.0, 1.1),
                                        (1.0, math.nan)])
def test_accuracy_cap_refuses_outside_its_domain(eps: float, delta: float) -> None:
    with pytest.raises(ValueError):
        accuracy_cap(eps, delta)


@given(st.floats(0, 20), st.floats(0, 20), st.floats(0, 1))
@settings(max_examples=40)
def test_accuracy_cap_is_monotone_in_epsilon(a: float, b: float, d: float) -> None:
    lo, hi = min(a, b), max(a, b)
    assert 0.5 <= accuracy_cap(lo, d) <= accuracy_cap(hi, d) <= 1.0


# ---------------------------------------------------------------- PLD composition


def _pure_dp_k_fold_epsilon(eps: float, k: int, delta: float) -> float:
    """The exact ε at δ of k-fold ε-DP composition: the hockey-stick curve of k copies of the
    randomized-response pair (Kairouz, Oh & Viswanath 2015), inverted by bisection."""
    p = math.exp(eps) / (1 + math.exp(eps))

    def delta_at(e: float) -> float:
        return sum(comb(k, i) * p ** (k - i) * (1 - p) ** i
                   * max(0.0, 1 - math.exp(e - (k - 2 * i) * eps)) for i in range(k + 1))

    lo, hi = 0.0, k * eps
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_at(mid) > delta else (lo, mid)
    return hi


def test_compose_one_laplace_release_matches_its_closed_form() -> None:
    # Laplace with ε = Δ/b = 1: δ(ε') = 1 − e^{(ε' − ε)/2}, so ε'(δ) = ε + 2 ln(1 − δ)
    delta = 0.05
    exact = 1.0 + 2 * math.log(1 - delta)
    c = compose([laplace_term(scale=2.0, sensitivity=2.0)], delta)
    assert c.bounded and c.terms == 1
    assert exact - 1e-9 <= c.epsilon <= exact + 0.01  # pessimistic, by about the grid step


@pytest.mark.parametrize("eps, k, delta", [(0.5, 10, 1e-5), (0.1, 40, 1e-6), (1.0, 3, 0.01)])
def test_compose_pure_dp_matches_the_optimal_composition(eps: float, k: int,
                                                         delta: float) -> None:
    exact = _pure_dp_k_fold_epsilon(eps, k, delta)
    c = compose([eps_delta_term(eps, 0.0, count=k)], delta)
    assert exact - 1e-6 <= c.epsilon <= exact + 0.02
    assert c.epsilon <= k * eps + 1e-9


def test_compose_splits_counts_like_separate_terms() -> None:
    a = compose([eps_delta_term(0.3, 0.0, count=6)], 1e-5).epsilon
    b = compose([eps_delta_term(0.3, 0.0, count=2), eps_delta_term(0.3, 0.0, count=4)],
                1e-5).epsilon
    assert a == pytest.approx(b, abs=0.01)


def test_compose_unbounded_identity_and_empty() -> None:
    c = compose([eps_delta_term(math.inf, 0.0, label="raw Q"), laplace_term(1, 1)], 1e-5)
    assert c.epsilon == math.inf and not c.bounded and "1 release(s)" in c.reason
    assert compose([], 1e-5).epsilon == 0.0
    assert compose([PldTerm("identity", (), 5), eps_delta_term(0, 0)], 1e-5).epsilon == 0.0
    zero = compose([eps_delta_term(math.inf, 0.0, count=0)], 1e-5)
    assert zero.epsilon == 0.0 and zero.terms == 0


def test_compose_a_loss_beyond_floating_point_is_not_applicable() -> None:
    c = compose([eps_delta_term(600.0, 0.0)], 1e-5)
    assert c.epsilon == math.inf and not c.applicable and "basic composition" in c.reason


@pytest.mark.parametrize("delta", [0, 1, -0.5, math.nan, "0.1", None, True])
def test_compose_refuses_bad_delta(delta: object) -> None:
    with pytest.raises(InputError) as info:
        compose([laplace_term(1, 1)], delta)  # type: ignore[arg-type]
    assert info.value.field == "delta"


def test_compose_refuses_a_delta_below_its_numerical_slack() -> None:
    with pytest.raises(InputError) as info:
        compose([laplace_term(1, 1, count=9)], 5e-12)  # slack 1e-12 × 10
    assert info.value.field == "delta" and "slack" in info.value.problem


def test_compose_reports_slack_and_discretisation() -> None:
    c = compose([laplace_term(1.0, 1.0, count=3)], 1e-3)
    assert c.slack == pytest.approx(4e-12) and c.discretization >= 1e-4
    assert c.delta == 1e-3


def test_terms_record_their_parameters() -> None:
    t = eps_delta_term(1, 0, count=3, label="q")
    assert (t.kind, t.params, t.count, t.label, t.bounded) == ("eps-delta", (1.0, 0.0), 3, "q",
                                                               True)
    assert not eps_delta_term(math.inf, 0).bounded
    lt = laplace_term(2, 1)
    assert lt.params == (2.0, 1.0) and lt.loss_range() == pytest.approx(15.0)
    assert eps_delta_term(1e-6, 0).loss_range() == 1e-3


def test_unknown_term_kind_is_refused_naming_profile() -> None:
    with pytest.raises(InputError) as info:
        PldTerm("gaussian", (1.0,)).pld(1e-3)
    assert info.value.field == "profile"


def test_dirichlet_term_without_loss_is_the_identity() -> None:
    assert dirichlet_term([]).kind == "identity"
    assert dirichlet_term([BetaPair(1.0, 2.0, 0.0)], count=4).kind == "identity"
    t = dirichlet_term([BetaPair(2.0, 1.0, 0.1), BetaPair(1.0, 2.0, 0.2),
                        BetaPair(2.0, 1.0, 0.1)])
    assert t.kind == "dirichlet" and t.params == ((1.0, 2.0, 0.2), (2.0, 1.0, 0.1))


def test_profile_spec_terms_falls_back_to_the_entrys_own_statement() -> None:
    for spec in (None, {}, {"kind": "laplace"}, {"kind": "laplace", "scale": "x",
                                                  "sensitivity": 1},
                 {"kind": "dirichlet", "groups": [[3, 0.1, 0.2, 1]]}, "laplace"):
        terms = profile_spec_terms(spec, 4, 0.5, 1e-6)
        assert terms == [eps_delta_term(0.5, 1e-6, 4)]
    lap = profile_spec_terms({"kind": "laplace", "scale": 2, "sensitivity": 1}, 3, 9.0, 0.0)
    assert lap == [laplace_term(2.0, 1.0, 3)]
