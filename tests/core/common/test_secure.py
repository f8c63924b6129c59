"""Release-mode randomness (core/common/secure.py): distributions built from os.urandom.

To make the statistical checks reproducible, ``os.urandom`` is replaced by a seeded byte
stream: that tests the transformations (bits → uniforms → normals/gammas), which is
what our code does; the entropy itself is the OS's job. One smoke test uses the real
``os.urandom`` with a loose bound.

Tolerances (N draws, 5 standard errors, i.e. a two-sided normal tail of 5.7e-7):

* mean: SE = σ/√N;
* variance: Var(s²) ≈ (μ₄ − σ⁴)/N, with μ₄ the fourth central moment.
  U(0, 1): σ² = 1/12, μ₄ = 1/80. Gamma(a, 1): σ² = a, μ₄ = 3a² + 6a, so Var(s²) ≈ (2a² + 6a)/N.
  N(0, 1): μ₄ = 3, Var(s²) ≈ 2/N.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.common import secure
from core.common.secure import SecureRandom
from core.privacy.dirichlet import dirichlet_rows

N = 200_000
Z = 5.0


@pytest.fixture
def seeded_urandom(monkeypatch):
    stream = np.random.default_rng(314159)
    monkeypatch.setattr(secure.os, "urandom", lambda n: stream.bytes(n))
    return stream


def check_mean_var(x, mean, var, mu4):
    se_mean = math.sqrt(var / len(x))
    se_var = math.sqrt((mu4 - var**2) / len(x))
    assert abs(x.mean() - mean) < Z * se_mean, (x.mean(), mean, se_mean)
    assert abs(x.var(ddof=1) - var) < Z * se_var, (x.var(ddof=1), var, se_var)


def test_uniform_moments(seeded_urandom):
    u = SecureRandom().random(N)
    assert u.shape == (N,) and ((u > 0) & (u < 1)).all()
    check_mean_var(u, 0.5, 1 / 12, 1 / 80)
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_uniform_endpoints_are_excluded(monkeypatch):
    g = SecureRandom()
    monkeypatch.setattr(secure.os, "urandom", lambda n: b"\x00" * n)
    assert g.random(4).tolist() == [2.0**-53] * 4
    monkeypatch.setattr(secure.os, "urandom", lambda n: b"\xff" * n)
    assert g.random(4).tolist() == [1.0 - 2.0**-53] * 4  # not rounded up to 1.0
    assert g.standard_exponential(2).min() > 0


def test_shapes(seeded_urandom):
    g = SecureRandom()
    assert g.random().shape == () and g.random(3).shape == (3,)
    assert g.random((2, 3)).shape == (2, 3) and g.random(0).shape == (0,)
    assert g.standard_normal((4, 5)).shape == (4, 5) and g.standard_normal(3).shape == (3,)
    assert g.standard_exponential((2, 2)).shape == (2, 2)
    a = np.array([[0.5, 1.0, 2.0], [3.0, 0.1, 7.0]])
    assert g.standard_gamma(a).shape == (2, 3) and g.standard_gamma(2.0).shape == ()


def test_normal_moments(seeded_urandom):
    z = SecureRandom().standard_normal(N)
    check_mean_var(z, 0.0, 1.0, 3.0)
    assert stats.kstest(z, "norm").pvalue > 1e-3


def test_exponential_moments(seeded_urandom):
    e = SecureRandom().standard_exponential(N)
    assert (e > 0).all() and np.isfinite(e).all()
    check_mean_var(e, 1.0, 1.0, 9.0)  # Exp(1): μ₄ = 9


@pytest.mark.parametrize("a", [0.3, 1.0, 5.0])
def test_gamma_moments(seeded_urandom, a):
    g = SecureRandom().standard_gamma(np.full(N, a))
    assert (g > 0).all() and np.isfinite(g).all()
    check_mean_var(g, a, a, 3 * a * a + 6 * a)
    assert stats.kstest(g, stats.gamma(a).cdf).pvalue > 1e-3


def test_gamma_mixed_shapes(seeded_urandom):
    shapes = np.tile([0.3, 1.0, 5.0], N // 3)
    g = SecureRandom().standard_gamma(shapes)
    for a in (0.3, 1.0, 5.0):
        check_mean_var(g[shapes == a], a, a, 3 * a * a + 6 * a)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_gamma_rejects_bad_shapes(bad):
    with pytest.raises(ValueError):
        SecureRandom().standard_gamma(np.array([1.0, bad]))


def test_release_mode_dirichlet_moments(seeded_urandom):
    """Dir_k(p) through the secure source: mean and variance as in test_dirichlet.py."""
    p, k, n = np.array([0.2, 0.3, 0.5]), 10.0, 100_000
    x = dirichlet_rows(np.tile(p, (n, 1)), k, rng=None)
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    var = p * (1 - p) / (k + 1)
    assert (np.abs(x.mean(axis=0) - p) < Z * np.sqrt(var / n)).all()
    for i in range(3):
        assert stats.kstest(x[:, i], stats.beta(k * p[i], k * (1 - p[i])).cdf).pvalue > 1e-3


def test_real_urandom_smoke():
    """Unseeded (the real CSPRNG): 10 SE bounds, a false alarm has probability < 1e-22."""
    u = SecureRandom().random(50_000)
    assert ((u > 0) & (u < 1)).all() and len(np.unique(u)) == len(u)
    assert abs(u.mean() - 0.5) < 10 * math.sqrt(1 / 12 / len(u))
    g = SecureRandom().standard_gamma(np.full(50_000, 0.3))
    assert abs(g.mean() - 0.3) < 10 * math.sqrt(0.3 / len(g))
