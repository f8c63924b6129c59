"""The Dirichlet mechanism Dir_k(p): moments, simplex, tiny concentrations, zeros, modes, seeds.

Statistical checks use a fixed seed and tolerances derived from the sampling variance:

* x_i ~ Beta(a, b) with a = k·p_i, b = k(1 − p_i) (spec §1.2, marginal of Dir(k·p)), so
  Var x_i = σ² = p_i(1 − p_i)/(k + 1) (spec §3, Lemma 1.8).
* The sample mean of N draws has standard error σ/√N. We require |mean − p_i| ≤ 5 SE
  (a two-sided normal tail of 5.7e-7 per coordinate, at a fixed seed).
* The sample variance s² has Var(s²) = σ⁴ (2/(N − 1) + κ/N), κ the excess kurtosis of
  Beta(a, b): κ = 6[(a − b)²(a + b + 1) − ab(a + b + 2)] / [ab(a + b + 2)(a + b + 3)].
  We require |s² − σ²| ≤ 5 sd(s²).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.common.errors import InputError
from core.common.secure import SecureRandom
from core.common.validation import RandomSource, as_random_source
from core.mdp.model import MDP
from core.mdp.privatize import privatize_mdp
from core.privacy.dirichlet import dirichlet_rows

TINY = np.finfo(float).tiny  # smallest positive *normal* double
N_MOMENTS = 1_000_000


def beta_excess_kurtosis(a: float, b: float) -> float:
    return 6.0 * ((a - b) ** 2 * (a + b + 1) - a * b * (a + b + 2)) / (
        a * b * (a + b + 2) * (a + b + 3))


def check_moments(x: np.ndarray, p: np.ndarray, k: float, z: float = 5.0) -> None:
    N = x.shape[0]
    var = p * (1 - p) / (k + 1)
    mean_se = np.sqrt(var / N)
    kappa = np.array([beta_excess_kurtosis(k * pi, k * (1 - pi)) for pi in p])
    var_sd = var * np.sqrt(2.0 / (N - 1) + kappa / N)
    np.testing.assert_array_less(np.abs(x.mean(axis=0) - p), z * mean_se)
    np.testing.assert_array_less(np.abs(x.var(axis=0, ddof=1) - var), z * var_sd)


@pytest.fixture(scope="module")
def moments_sample():
    p = np.array([0.2, 0.3, 0.5])
    return p, dirichlet_rows(np.tile(p, (N_MOMENTS, 1)), 10.0, rng=20240607)


def test_mechanism_moments_oracle(moments_sample):
    """Spec §10 test 7: p = (0.2, 0.3, 0.5), k = 10, 10⁶ draws."""
    p, x = moments_sample
    check_moments(x, p, 10.0)
    # The spec's own tolerances (±0.001 on the mean, ±2 % on the variance) are looser than
    # 5 SE at N = 10⁶: SE ≤ √(0.0227/10⁶) = 1.5e-4 and sd(s²)/σ² ≤ 1.6e-3.
    np.testing.assert_allclose(x.mean(axis=0), p, atol=1e-3)
    np.testing.assert_allclose(x.var(axis=0), [0.014545, 0.019091, 0.022727], rtol=0.02)


def test_mechanism_covariance(moments_sample):
    """Cov(x_i, x_j) = −p_i p_j/(k + 1). The sd of the sample covariance is estimated by
    the plug-in sd of the products (x_i − p_i)(x_j − p_j), divided by √N."""
    p, x = moments_sample
    d = x - p
    for i, j in ((0, 1), (0, 2), (1, 2)):
        prod = d[:, i] * d[:, j]
        se = prod.std() / math.sqrt(len(prod))
        assert abs(prod.mean() + p[i] * p[j] / 11.0) < 5 * se


@pytest.mark.parametrize("i", [0, 1, 2])
def test_marginals_are_beta(moments_sample, i):
    """(Dir_k(p))_i ~ Beta(k p_i, k(1 − p_i)); KS test on 10⁶ draws at a fixed seed."""
    p, x = moments_sample
    res = stats.kstest(x[:, i], stats.beta(10 * p[i], 10 * (1 - p[i])).cdf)
    assert res.pvalue > 1e-3


def test_small_concentrations_have_beta_marginals():
    """k·p_i < 1 goes through the boosted log-gamma path: still exactly Beta."""
    p = np.array([0.02, 0.05, 0.93])  # k·p = (0.2, 0.5, 9.3)
    x = dirichlet_rows(np.tile(p, (200_000, 1)), 10.0, rng=7)
    check_moments(x, p, 10.0)
    for i in range(3):
        assert stats.kstest(x[:, i], stats.beta(10 * p[i], 10 * (1 - p[i])).cdf).pvalue > 1e-3


def test_vanishing_concentration_is_a_fair_vertex_draw():
    """k → 0: Dir(k/2, k/2) puts mass ~½ near each vertex; P(x₀ > ½) = ½ by symmetry.
    The count is Binomial(N, ½): 5 SE = 5·√(N/4)."""
    N = 100_000
    x = dirichlet_rows(np.full((N, 2), 0.5), 1e-6, rng=11)
    assert np.isfinite(x).all() and (x >= TINY).all()
    assert abs((x[:, 0] > 0.5).sum() - N / 2) < 5 * math.sqrt(N / 4)
    assert (np.abs(x - 0.5) > 0.49).mean() > 0.99


@pytest.mark.parametrize("k", [1e-3, 0.5, 1.0, 10.0, 1e3, 1e8, 1e15])
def test_every_sample_is_in_the_simplex(k):
    rng = np.random.default_rng(int(k * 1000) % 2**32)
    p = rng.dirichlet(np.full(7, 0.7), size=3000)
    p[rng.uniform(size=p.shape) < 0.2] = 0.0
    p[p.sum(axis=1) == 0, 0] = 1.0
    p /= p.sum(axis=1, keepdims=True)
    x = dirichlet_rows(p, k, rng=5)
    assert x.shape == p.shape and np.isfinite(x).all()
    assert (x >= 0).all()
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert ((x == 0) == (p == 0)).all()  # zeros exactly where p is zero, nowhere else
    positive = x[x > 0]
    assert positive.min() >= TINY


@pytest.mark.parametrize("kp", [1e-8, 1e-200])
def test_tiny_concentration_gives_no_zeros_nan_or_denormals(kp):
    k = 10.0
    p = np.array([kp / k, 0.25, 0.75 - kp / k])
    assert p[0] > 0 and p.sum() == pytest.approx(1.0)
    x = dirichlet_rows(np.tile(p, (20_000, 1)), k, rng=3)
    assert not np.isnan(x).any() and np.isfinite(x).all()
    assert (x > 0).all(), "no exact zeros on the support"
    assert (x >= TINY).all(), "no denormal numbers"
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_all_entries_tiny():
    p = np.array([[1e-201, 1 - 2e-201, 1e-201], [0.5, 0.5, 0.0]])
    x = dirichlet_rows(p, 1e-100, rng=2)
    assert np.isfinite(x).all() and (x[0] >= TINY).all() and x[1, 2] == 0.0
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_same_seed_same_output():
    p = np.random.default_rng(0).dirichlet(np.ones(5), size=50)
    a = dirichlet_rows(p, 20.0, rng=123)
    b = dirichlet_rows(p, 20.0, rng=123)
    c = dirichlet_rows(p, 20.0, rng=124)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(dirichlet_rows(p, 20.0, rng=g1), dirichlet_rows(p, 20.0, rng=g2))


# ----------------------------------------------------------------------------- privatize_mdp
def mdp_with_zeros() -> MDP:
    P = np.zeros((3, 2, 3))
    P[0, 0] = (0.2, 0.0, 0.8)   # structural zero
    P[0, 1] = (0.0, 1.0, 0.0)   # deterministic row
    P[1, 0] = (0.3, 0.3, 0.4)
    P[2, 0] = (0.1, 0.6, 0.3)
    P[2, 1] = (0.0, 0.0, 1.0)   # deterministic row
    mask = np.array([[True, True], [True, False], [True, True]])
    return MDP(P=P, R=np.ones((3, 2)), mask=mask, horizon=2)


def test_support_mode_keeps_structural_zeros_and_warns():
    m = mdp_with_zeros()
    r = privatize_mdp(m, 5.0, rng=1)
    assert r.zeros == "support" and r.smoothing == 0.0 and r.rows == 5
    P = r.mdp.P
    assert ((P == 0) == (m.P == 0)).all()
    assert P[0, 1].tolist() == [0.0, 1.0, 0.0] and P[2, 1].tolist() == [0.0, 0.0, 1.0]
    assert not np.array_equal(P[1, 0], m.P[1, 0])
    assert any("support" in w and "disclosed" in w for w in r.warnings)
    assert any(w.startswith("2 deterministic row") for w in r.warnings)
    assert r.mdp.mask.tolist() == m.mask.tolist() and np.array_equal(r.mdp.R, m.R)


def test_interior_model_has_no_warnings():
    from core.mdp.examples import example2

    r = privatize_mdp(example2(), 50.0, rng=0, domain_rule="refuse", eta=1e-6)
    assert r.warnings == ()
    assert (r.mdp.P > 0).all()


def test_smoothing_mode_has_no_zeros_and_warns():
    m = mdp_with_zeros()
    r = privatize_mdp(m, 5.0, rng=1, zeros="smoothing", smoothing=0.05)
    assert r.zeros == "smoothing" and r.smoothing == 0.05
    rows = r.mdp.P[m.mask]
    assert (rows >= TINY).all()
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (r.mdp.P[~m.mask] == 0).all()  # unavailable actions stay empty
    assert any("smoothed" in w and "0.05" in w for w in r.warnings)


def test_smoothing_centres_on_the_mixed_row():
    """E[Dir_k(p')] = p' = (1 − λ)p + λ/n for a row with zeros (5 SE on 2·10⁵ runs of
    one row; σ² = p'(1 − p')/(k + 1))."""
    P = np.zeros((2, 1, 2))
    P[0, 0] = (1.0, 0.0)
    P[1, 0] = (0.5, 0.5)
    m = MDP(P=P, R=np.zeros((2, 1)), horizon=1)
    lam, k, N = 0.1, 4.0, 200_000
    rows = np.tile(m.P[0, 0], (N, 1))
    mixed = (1 - lam) * rows + lam / 2
    x = dirichlet_rows(mixed, k, rng=8)
    check_moments(x, mixed[0], k)
    r = privatize_mdp(m, k, rng=8, zeros="smoothing", smoothing=lam)
    assert r.mdp.P[0, 0, 1] > 0


def test_release_mode_records_no_seed():
    r = privatize_mdp(mdp_with_zeros(), 10.0, rng=None)
    assert r.mode == "release" and r.seed is None
    assert "release" in r.mode_label
    np.testing.assert_allclose(r.mdp.P[r.mdp.mask].sum(axis=1), 1.0, atol=1e-12)


def test_experiment_mode_records_the_seed():
    r = privatize_mdp(mdp_with_zeros(), 10.0, rng=42)
    assert r.mode == "experiment" and r.seed == 42 and "42" in r.mode_label
    g = privatize_mdp(mdp_with_zeros(), 10.0, rng=np.random.default_rng(42))
    assert g.mode == "experiment" and g.seed is None
    assert np.array_equal(r.mdp.P, g.mdp.P)  # an int seed is default_rng(seed)
    again = privatize_mdp(mdp_with_zeros(), 10.0, rng=42)
    assert np.array_equal(r.mdp.P, again.mdp.P)


def test_random_source_normalisation():
    assert as_random_source(5).seed == 5 and as_random_source(np.int64(5)).seed == 5
    src = as_random_source(None)
    assert src.mode == "release" and isinstance(src.generator, SecureRandom)
    assert as_random_source(src) is src
    for bad, field in ((-1, "seed"), (True, "rng"), (1.5, "rng"), ("7", "rng")):
        with pytest.raises(InputError) as info:
            as_random_source(bad)
        assert info.value.field == field
    assert RandomSource(None, "experiment", None).label.startswith("seeded experiment")


@pytest.mark.parametrize("kwargs, field", [
    ({"k": 0.0}, "k"), ({"k": -1.0}, "k"), ({"k": float("nan")}, "k"), ({"k": float("inf")}, "k"),
    ({"k": 5.0, "zeros": "drop"}, "zeros"),
    ({"k": 5.0, "zeros": "smoothing", "smoothing": 0.0}, "smoothing"),
    ({"k": 5.0, "zeros": "smoothing", "smoothing": 1.0}, "smoothing"),
])
def test_privatize_rejects_bad_input(kwargs, field):
    with pytest.raises(InputError) as info:
        privatize_mdp(mdp_with_zeros(), rng=0, **kwargs)
    assert info.value.field == field and "\n" not in str(info.value)


def test_draws_do_not_depend_on_the_block_size(monkeypatch):
    """rows are drawn and normalised a block at a time, in place; the generator is
    called as by one whole-array draw, so the block size changes nothing (bit for bit)."""
    import core.privacy.dirichlet as dirichlet

    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(9, 0.4), size=50)
    p[p < 0.05] = 0.0
    p /= p.sum(axis=1, keepdims=True)
    for k in (1e-3, 2.0, 300.0):  # boosted (k·p < 1), mixed, and plain gamma draws
        whole = dirichlet_rows(p, k, rng=8)
        monkeypatch.setattr(dirichlet, "_BLOCK_ELEMS", 7)   # one row per block
        blocked = dirichlet_rows(p, k, rng=8)
        monkeypatch.undo()
        np.testing.assert_array_equal(whole, blocked)
        out = np.full(p.shape, np.nan)
        assert dirichlet_rows(p, k, rng=8, out=out) is out
        np.testing.assert_array_equal(out, whole)
        assert ((out > 0) == (p > 0)).all()
    with pytest.raises(ValueError, match="out"):
        dirichlet_rows(p, 2.0, rng=1, out=np.empty((3, 9)))
