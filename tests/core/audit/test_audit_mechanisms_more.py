"""The Laplace, Gaussian and exponential audit targets and the attack, cross-checked: the
closed-form ε_tight against a numerical hockey-stick integral (scipy.integrate), the Gaussian
profile against scipy's normal, the samplers' moments and frequencies against their laws with
variance-derived tolerances, the exact ROCs against scipy's survival functions, and the
attack's counts against a direct recount on the evaluation split."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy import stats as sps

from core.audit import exponential as expo
from core.audit import gaussian as gauss
from core.audit import laplace as lap
from core.audit.attack import SPLITS, run_attack, split_sizes
from core.audit.stats import discrete_epsilon_tight, epsilon_lb
from core.common.errors import InputError


# ------------------------------------------------------------------ Laplace
def _laplace_hockey(mu: float, eps: float) -> float:
    """∫ max(0, p(x) − e^ε q(x)) dx for Laplace(0, 1) against Laplace(μ, 1), numerically."""
    def f(x: float) -> float:
        return max(0.0, 0.5 * math.exp(-abs(x)) - math.exp(eps) * 0.5 * math.exp(-abs(x - mu)))
    kink = (mu - eps) / 2  # where p = e^ε q: the integrand's corner
    val, _ = integrate.quad(f, -60, 60, points=sorted({0.0, kink, mu}), limit=400,
                            epsabs=1e-14, epsrel=1e-12)
    return val


@pytest.mark.parametrize("mu,delta", [(1.0, 1e-3), (1.0, 0.1), (2.5, 0.05), (0.5, 0.2)])
def test_laplace_tight_epsilon_inverts_the_numerical_hockey_stick(mu: float,
                                                                  delta: float) -> None:
    v = lap.LaplaceVariant(sensitivity=1.0)
    eps, how = lap.tight_epsilon(0.0, mu, delta, 1.0, v)  # scale Δ/ε = 1
    assert "closed form" in how
    assert _laplace_hockey(mu, eps) == pytest.approx(delta, rel=1e-6, abs=1e-9)
    if eps > 0:
        assert _laplace_hockey(mu, eps - 1e-3) > delta


def test_laplace_pure_dp_pairs_and_vector_pairs_use_the_l1_distance() -> None:
    v = lap.LaplaceVariant(sensitivity=2.0)
    # δ = 0: the pair's ε is d/s; here s = Δ/ε = 2/0.5 = 4 and d = 2
    assert lap.tight_epsilon(0.0, 2.0, 0.0, 0.5, v)[0] == pytest.approx(0.5)
    assert lap.tight_epsilon((0.0, 0.0), (1.0, 1.0), 0.1, 0.5, v)[0] == pytest.approx(0.5)
    # a δ large enough covers the whole pair: ε = 0
    assert lap.tight_epsilon(0.0, 0.1, 0.99, 1.0, lap.LaplaceVariant())[0] == 0.0


def test_laplace_noise_factor_shrinks_the_sampled_scale_but_not_the_claim() -> None:
    v = lap.LaplaceVariant(sensitivity=1.0, noise_factor=0.5)
    assert lap.claimed(1.0, v)[:2] == (1.0, 0.0)
    p = lap.parameters(1.0, v)
    assert p["scale"] == pytest.approx(0.5) and p["noise_factor"] == 0.5
    assert "noise_factor" not in lap.parameters(1.0, lap.LaplaceVariant())
    # the pair's ε doubles: the audit can catch the broken mechanism
    assert lap.tight_epsilon(0.0, 1.0, 0.0, 1.0, v)[0] == pytest.approx(2.0)


@pytest.mark.parametrize("factor", [0.0, -1.0, math.nan, math.inf, "1"])
def test_laplace_variant_refuses_a_bad_noise_factor(factor: object) -> None:
    with pytest.raises(InputError) as info:
        lap.LaplaceVariant(noise_factor=factor)  # type: ignore[arg-type]
    assert info.value.field == "noise_factor"


def test_laplace_samples_have_the_laws_mean_and_variance() -> None:
    v = lap.LaplaceVariant(sensitivity=1.0)
    n, eps = 40_000, 0.5
    x = lap.sample_outputs(3.0, n, np.random.default_rng(5), eps, v)
    assert x.shape == (n, 1)
    s = 1.0 / eps
    var = 2 * s * s
    assert abs(x.mean() - 3.0) < 4 * math.sqrt(var / n)
    # Var of the sample variance of a Laplace law: (μ4 − σ⁴)/n with μ4 = 24 s⁴
    assert abs(x.var() - var) < 4 * math.sqrt((24 * s ** 4 - var ** 2) / n)
    two = lap.sample_outputs((0.0, 1.0), 10, np.random.default_rng(1), eps, v)
    assert two.shape == (10, 2)


def test_laplace_roc_is_scipys_survival_function_pair() -> None:
    v = lap.LaplaceVariant(sensitivity=1.0)
    fpr, tpr = lap.exact_roc(1.0, 0.0, 2.0, v)  # type: ignore[misc]
    assert np.all(np.diff(fpr) <= 1e-15) and np.all(np.diff(tpr) <= 1e-15)
    assert np.all(tpr >= fpr - 1e-15)  # the higher input rejects more often
    s = 0.5  # scale Δ/ε
    # reconstruct the thresholds from FPR and check TPR there
    thr = np.where(fpr < 0.5, -s * np.log(2 * np.clip(fpr, 1e-300, None)),
                   s * np.log(2 * (1 - fpr)))
    assert np.allclose(tpr, sps.laplace.sf(thr, 1.0, s), atol=1e-9)
    assert lap.exact_roc((0.0, 0.0), (1.0, 1.0), 1.0, v) is None


def test_laplace_candidate_pairs_are_within_the_sensitivity() -> None:
    v = lap.LaplaceVariant(sensitivity=3.0)
    for desc, a, b in lap.candidate_pairs(1.0, v):
        d = np.abs(np.atleast_1d(a) - np.atleast_1d(b)).sum()
        assert d <= 3.0 + 1e-12
        assert desc["description"]
    assert max(np.abs(np.atleast_1d(a) - np.atleast_1d(b)).sum()
               for _, a, b in lap.candidate_pairs(1.0, v)) == 3.0


# ------------------------------------------------------------------ Gaussian
@pytest.mark.parametrize("eps,mu", [(0.0, 1.0), (0.5, 1.0), (1.0, 0.5), (2.0, 3.0),
                                    (4.0, 1.0)])
def test_gaussian_delta_is_the_balle_wang_profile(eps: float, mu: float) -> None:
    want = sps.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * sps.norm.cdf(-eps / mu - mu / 2)
    assert gauss.delta_of(eps, mu) == pytest.approx(want, rel=1e-9, abs=1e-15)


def test_gaussian_delta_at_zero_epsilon_is_the_total_variation() -> None:
    for mu in (0.1, 1.0, 3.0):
        assert gauss.delta_of(0.0, mu) == pytest.approx(2 * sps.norm.cdf(mu / 2) - 1)


def test_gaussian_delta_stays_finite_and_non_negative_far_out() -> None:
    for eps in (50.0, 200.0, 700.0):
        d = gauss.delta_of(eps, 1.0)
        assert 0.0 <= d < 1e-20 and math.isfinite(d)


@pytest.mark.parametrize("delta,mu", [(1e-5, 1.0), (1e-3, 0.5), (0.1, 2.0)])
def test_gaussian_epsilon_of_is_the_inverse(delta: float, mu: float) -> None:
    eps = gauss.epsilon_of(delta, mu)
    assert gauss.delta_of(eps, mu) <= delta
    assert gauss.delta_of(eps - 1e-6, mu) > delta


def test_gaussian_claim_is_the_worst_pair() -> None:
    v = gauss.GaussianVariant(mu=1.5, delta=1e-4)
    eps_claim, delta_claim, _ = gauss.claimed(None, v)
    assert delta_claim == 1e-4
    pairs = gauss.candidate_pairs(None, v)
    tights = [gauss.tight_epsilon(a, b, 1e-4, None, v)[0] for _, a, b in pairs]
    assert tights[0] == pytest.approx(eps_claim) and tights[1] < tights[0]


@pytest.mark.parametrize("kw,field", [({"mu": 0.0}, "mu"), ({"mu": -1.0}, "mu"),
                                      ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta")])
def test_gaussian_variant_names_its_bad_field(kw: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        gauss.GaussianVariant(**kw)
    assert info.value.field == field


def test_gaussian_sampler_needs_a_generator_and_has_unit_noise() -> None:
    v = gauss.GaussianVariant()
    with pytest.raises(InputError) as info:
        gauss.sample_outputs(0.0, 5, None, None, v)
    assert info.value.field == "rng"
    x = gauss.sample_outputs(2.0, 20_000, np.random.default_rng(3), None, v)
    assert x.shape == (20_000, 1)
    assert abs(x.mean() - 2.0) < 4 / math.sqrt(20_000)
    assert abs(x.var() - 1.0) < 4 * math.sqrt(2 / 20_000)


def test_gaussian_roc_is_the_normal_survival_pair() -> None:
    fpr, tpr = gauss.exact_roc(1.0, 0.0, None, gauss.GaussianVariant())
    t = np.linspace(-8, 9, 600)
    assert np.allclose(fpr, sps.norm.sf(t, 0.0)) and np.allclose(tpr, sps.norm.sf(t, 1.0))


# ------------------------------------------------------------------ exponential
@pytest.mark.parametrize("monotonic", [False, True])
def test_exponential_pairs_never_exceed_the_claim_and_approach_it(monotonic: bool) -> None:
    v = expo.ExponentialVariant(sensitivity=1.0, monotonic=monotonic)
    eps = 1.0
    tights = []
    for _, a, b in expo.candidate_pairs(eps, v):
        assert max(abs(x - y) for x, y in zip(a, b)) <= 1.0 + 1e-12
        if monotonic:
            assert all(y >= x for x, y in zip(a, b))
        p, q = expo.exact_distribution(a, eps, v), expo.exact_distribution(b, eps, v)
        assert sum(p.values()) == pytest.approx(1.0) and sum(q.values()) == pytest.approx(1.0)
        tights.append(discrete_epsilon_tight(p, q, 0.0))
    assert max(tights) <= eps + 1e-9
    assert max(tights) > 0.9 * eps  # the grid's far end is close to the worst case
    # the closed form of the module docstring: P[0]/P'[0] = (1 + e^{x+ε}) / (1 + e^x)
    x = 6.0
    assert max(tights) == pytest.approx(math.log((1 + math.exp(x + eps)) / (1 + math.exp(x))),
                                        rel=1e-6)


def test_exponential_probabilities_are_the_softmax_of_the_scaled_utilities() -> None:
    u = (0.0, 1.0, 3.0)
    for monotonic, factor in ((False, 2.0), (True, 1.0)):
        v = expo.ExponentialVariant(sensitivity=2.0, monotonic=monotonic)
        p = expo.exact_distribution(u, 1.5, v)
        w = np.exp(np.array(u) * 1.5 / (factor * 2.0))
        assert [p[i] for i in range(3)] == pytest.approx(list(w / w.sum()), rel=1e-12)


def test_exponential_seeded_sampler_matches_its_law() -> None:
    v = expo.ExponentialVariant()
    u = (0.0, 1.0, 2.0)
    n = 30_000
    codes = expo.sample_outputs(u, n, np.random.default_rng(11), 2.0, v)
    assert codes.dtype == np.int64 and codes.shape == (n,)
    p = expo.exact_distribution(u, 2.0, v)
    for i in range(3):
        f = float(np.mean(codes == i))
        assert abs(f - p[i]) < 4 * math.sqrt(p[i] * (1 - p[i]) / n)


def test_exponential_claim_text_says_monotone_only_when_it_is() -> None:
    assert "monotone" in expo.claimed(1.0, expo.ExponentialVariant(monotonic=True))[2]
    assert "monotone" not in expo.claimed(1.0, expo.ExponentialVariant())[2]
    assert expo.tight_epsilon(0, 1, 0.0, 1.0, None) is None
    assert expo.exact_roc(0, 1, 1.0, None) is None


# ------------------------------------------------------------------ the attack
@pytest.mark.parametrize("n", [10, 99, 1000, 12345])
def test_split_sizes_partition_the_samples(n: int) -> None:
    na, nb, nc = split_sizes(n)
    assert na + nb + nc == n
    assert na == int(n * SPLITS[0]) and nb == int(n * SPLITS[1])
    assert nc >= n // 2


def test_the_attack_counts_are_a_recount_on_the_evaluation_split() -> None:
    rng = np.random.default_rng(21)
    n = 4000
    xa = rng.normal(0.0, 1.0, (n, 1))
    xb = rng.normal(1.5, 1.0, (n, 1))
    r = run_attack(xa, xb, delta=0.0, confidence=0.95)
    na, nb, nc = split_sizes(n)
    assert (r.n_fit, r.n_select, r.n_eval) == (na, nb, nc)
    fp = int((xa[na + nb:, 0] >= r.threshold).sum())
    fn = int((xb[na + nb:, 0] < r.threshold).sum())
    assert (r.fpr, r.fnr) == (fp / nc, fn / nc)
    assert r.epsilon_lb == pytest.approx(float(epsilon_lb(fp, nc, fn, nc, 0.0, 0.95)))
    assert r.epsilon_lb <= r.epsilon_point
    # a Gaussian pair at distance 1.5 with δ = 0 is not pure DP; the attack finds evidence
    assert r.epsilon_lb > 1.0 and r.kind == "continuous" and r.features == "output"
    assert r.fpr_upper >= r.fpr and r.fnr_upper >= r.fnr


def test_the_attack_orients_itself_when_b_is_lower() -> None:
    rng = np.random.default_rng(22)
    xa = rng.normal(1.5, 1.0, (3000, 1))
    xb = rng.normal(0.0, 1.0, (3000, 1))
    assert run_attack(xa, xb, delta=0.0, confidence=0.95).epsilon_lb > 1.0


def test_the_attack_finds_nothing_between_identical_laws() -> None:
    rng = np.random.default_rng(23)
    xa = rng.normal(size=(3000, 1))
    xb = rng.normal(size=(3000, 1))
    r = run_attack(xa, xb, delta=0.0, confidence=0.95)
    assert r.epsilon_lb < 0.2
    codes_a = rng.integers(0, 3, 3000)
    codes_b = rng.integers(0, 3, 3000)
    d = run_attack(codes_a, codes_b, delta=0.0, confidence=0.95)
    assert d.kind == "discrete" and d.epsilon_lb < 0.2


def test_the_attack_on_randomised_response_stays_below_its_epsilon() -> None:
    eps = 1.0
    t = math.exp(eps) / (1 + math.exp(eps))
    rng = np.random.default_rng(24)
    n = 6000
    a = (rng.random(n) > t).astype(np.int64)   # true answer 0, flipped with 1 − t
    b = (rng.random(n) < t).astype(np.int64)   # true answer 1
    r = run_attack(a, b, delta=0.0, confidence=0.95)
    assert 0.6 < r.epsilon_lb <= eps
    assert r.roc[0] == (0.0, 0.0) and r.roc[-1] == (1.0, 1.0)


def test_the_attack_uses_only_the_shorter_side() -> None:
    rng = np.random.default_rng(25)
    r = run_attack(rng.normal(size=(1000, 1)), rng.normal(2, 1, size=(1500, 1)), delta=0.0,
                   confidence=0.9)
    assert r.n_fit + r.n_select + r.n_eval == 1000
