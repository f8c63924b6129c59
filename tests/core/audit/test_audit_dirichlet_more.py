"""core.audit.dirichlet, cross-checked independently: the privacy loss against scipy's
Dirichlet log-density, the exact δ(ε) against a numerical integral over the Beta law of
u = z_i/(z_i + z_j), ε_tight as its inverse and below the accountant's claim, every candidate
pair inside the claimed adjacency, and the ROC against scipy's Beta survival function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy import stats as sps

from core.audit.dirichlet import (
    DirichletVariant,
    candidate_pairs,
    claimed,
    delta_tight_exact,
    delta_tight_mc,
    epsilon_tight_exact,
    exact_roc,
    parameters,
    privacy_loss,
    sample_outputs,
    tight_epsilon,
)
from core.common.errors import InputError

V = DirichletVariant(k=10.0, eta=0.15, eta_bar=0.15, w=2, b=0.1, delta=0.05)
P = np.array([0.2, 0.4, 0.4])
Q = np.array([0.25, 0.35, 0.4])  # 0.05 moved from entry 1 into entry 0


def test_privacy_loss_is_the_difference_of_scipys_log_densities() -> None:
    k = 7.0
    z = np.random.default_rng(1).dirichlet(k * P, size=50)
    want = [sps.dirichlet.logpdf(x, k * P) - sps.dirichlet.logpdf(x, k * Q) for x in z]
    assert privacy_loss(np.log(z), P, Q, k) == pytest.approx(want, rel=1e-9, abs=1e-9)


def _delta_by_integral(p: np.ndarray, q: np.ndarray, k: float, eps: float) -> float:
    """δ(ε) from the Beta laws of u = z_0/(z_0 + z_1) (the loss depends on u alone)."""
    def beta_pdf(a: float, b: float):  # plain math: quad calls it thousands of times
        c = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        return lambda u: math.exp(c + (a - 1) * math.log(u) + (b - 1) * math.log1p(-u)) \
            if 0 < u < 1 else 0.0

    fa = beta_pdf(k * p[0], k * p[1])
    fb = beta_pdf(k * q[0], k * q[1])
    e = math.exp(eps)
    d1, _ = integrate.quad(lambda u: max(0.0, fa(u) - e * fb(u)), 0, 1, limit=400,
                           epsabs=1e-12)
    d2, _ = integrate.quad(lambda u: max(0.0, fb(u) - e * fa(u)), 0, 1, limit=400,
                           epsabs=1e-12)
    return max(d1, d2)


@pytest.mark.parametrize("k,eps", [(10.0, 0.0), (10.0, 0.3), (40.0, 0.5), (5.0, 1.0)])
def test_exact_delta_matches_a_numerical_integral(k: float, eps: float) -> None:
    want = _delta_by_integral(P, Q, k, eps)
    assert delta_tight_exact(P, Q, k, eps) == pytest.approx(want, rel=1e-5, abs=1e-9)


def test_exact_delta_is_symmetric_in_the_pair_and_non_increasing() -> None:
    ds = [delta_tight_exact(P, Q, 10.0, e) for e in (0.0, 0.1, 0.3, 0.6, 1.0, 2.0)]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    for e in (0.0, 0.2, 0.7):
        assert delta_tight_exact(P, Q, 10.0, e) == pytest.approx(delta_tight_exact(Q, P, 10.0,
                                                                                   e))
    assert delta_tight_exact(P, Q, 10.0, 800.0) == 0.0


def test_exact_delta_agrees_with_monte_carlo_within_its_error() -> None:
    est, se = delta_tight_mc(P, Q, 10.0, 0.2, 20_000, np.random.default_rng(4))
    assert abs(est - delta_tight_exact(P, Q, 10.0, 0.2)) < 4 * se


@pytest.mark.parametrize("delta", [1e-4, 0.01, 0.05])
def test_epsilon_tight_is_the_inverse_of_delta(delta: float) -> None:
    eps = epsilon_tight_exact(P, Q, 10.0, delta)
    assert delta_tight_exact(P, Q, 10.0, eps) <= delta + 1e-12
    assert delta_tight_exact(P, Q, 10.0, eps * (1 - 1e-6) - 1e-9) > delta


def test_pairs_differing_in_other_than_two_entries_are_refused() -> None:
    with pytest.raises(ValueError, match="exactly two entries"):
        delta_tight_exact(P, P, 10.0, 0.1)
    with pytest.raises(ValueError, match="exactly two entries"):
        delta_tight_exact(np.array([0.2, 0.3, 0.5]), np.array([0.3, 0.25, 0.45]), 10.0, 0.1)


# ------------------------------------------------------------------ claim and pairs
def test_every_candidate_pair_is_inside_the_claimed_adjacency() -> None:
    v = DirichletVariant(k=20.0, eta=0.05, eta_bar=0.1, w=4, b=0.2, delta=1e-3)
    pairs = candidate_pairs(None, v)
    assert len(pairs) > 5
    for desc, p, q in pairs:
        assert p.size == q.size == v.w + 1  # W plus the lumped remainder
        assert p.sum() == pytest.approx(1.0) and q.sum() == pytest.approx(1.0)
        diff = np.flatnonzero(np.abs(p - q) > 1e-15)
        assert diff.tolist() == [0, 1]  # two entries of W move
        assert np.abs(p - q).sum() <= v.b + 1e-12
        assert np.all(p[:v.w] >= v.eta - 1e-12) and np.all(q[:v.w] >= v.eta - 1e-12)
        assert p[v.w] >= v.eta_bar_value - 1e-12 and p[v.w] == q[v.w]
        assert desc["coordinates"] == [0, 1] and desc["moved"] <= v.b / 2 + 1e-12


def test_no_pair_is_more_private_than_the_accountant_claims() -> None:
    eps_claim, delta_claim, adj = claimed(None, V)
    assert 0 < delta_claim <= V.delta and "Theorem 1.6" in adj
    worst = max(tight_epsilon(p, q, delta_claim, None, V)[0]
                for _, p, q in candidate_pairs(None, V))
    assert 0 < worst <= eps_claim


def test_parameters_report_the_accountant() -> None:
    d = parameters(None, V)
    assert (d["k"], d["eta"], d["eta_bar"], d["w"], d["b"]) == (10.0, 0.15, 0.15, 2, 0.1)
    assert d["delta_target"] == 0.05 and d["analysis"] == "W"
    assert isinstance(d["accountant_warnings"], list)


def test_an_unknown_analysis_is_named() -> None:
    with pytest.raises(InputError) as info:
        DirichletVariant(k=10.0, eta=0.1, eta_bar=None, w=2, b=0.1, delta=0.05,
                         analysis="rows")
    assert info.value.field == "analysis"
    v = DirichletVariant(k=10.0, eta=0.1, eta_bar=None, w=3, b=0.1, delta=0.05)
    assert v.eta_bar_value == 0.1 and v.n == 4


# ------------------------------------------------------------------ samples and ROC
def test_samples_are_log_dirichlet_draws_with_the_right_means() -> None:
    n = 20_000
    x = sample_outputs(P, n, np.random.default_rng(9), None, V)
    assert x.shape == (n, 3)
    z = np.exp(x)
    assert np.allclose(z.sum(axis=1), 1.0)
    var = P * (1 - P) / (V.k + 1)  # Var of a Dirichlet coordinate
    assert np.all(np.abs(z.mean(axis=0) - P) < 4 * np.sqrt(var / n))


def test_the_roc_is_scipys_beta_survival_pair() -> None:
    fpr, tpr = exact_roc(P, Q, None, V)
    assert np.all((0 <= fpr) & (fpr <= 1)) and np.all((0 <= tpr) & (tpr <= 1))
    assert np.all(tpr >= fpr - 1e-12)  # mass moved into entry 0: u is larger under q
    # reconstruct thresholds from the FPR and check the TPR at them
    a = sps.beta(V.k * P[0], V.k * P[1])
    b = sps.beta(V.k * Q[0], V.k * Q[1])
    mid = (fpr > 1e-6) & (fpr < 1 - 1e-6)
    t = a.isf(fpr[mid])
    assert np.allclose(tpr[mid], b.sf(t), atol=1e-7)
