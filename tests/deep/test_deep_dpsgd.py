"""DP-SGD on JAX: per-example gradients, clipping, Poisson sampling and the noisy update."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.deep.dpsgd import DpTrainer, clip_rows, per_example_grads, poisson_batch
from core.deep.nets import NETWORKS, FlatNet
from core.modelprivacy.models import DpSgd, TrainConfig


def _records(n: int, d: int, classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)).astype(np.float32), rng.integers(classes, size=n)


@pytest.mark.parametrize("kind", NETWORKS)
def test_per_example_gradients_equal_a_loop_over_examples(kind):
    """vmap(grad) row i equals grad of record i's loss alone (each network kind)."""
    import jax

    net = FlatNet(kind, 11, (4, 3), 3, hidden=5)   # 11 < 12: the view is padded
    theta = net.init(np.random.default_rng(1))
    X, y = _records(5, 11, 3)
    G = per_example_grads(net, theta, X, y)
    assert G.shape == (5, net.size)
    single = jax.jit(jax.grad(net.loss_one))
    Xp = net.prepare(X)
    loop = np.stack([np.asarray(single(theta, Xp[i], int(y[i]))) for i in range(5)])
    np.testing.assert_allclose(G, loop, rtol=1e-4, atol=1e-6)
    # and the gradients differ between records (the rows are not one broadcast value)
    assert np.abs(G[0] - G[1]).max() > 1e-4


def test_mlp_per_example_gradient_matches_finite_differences():
    net = FlatNet("mlp", 6, (2, 3), 3, hidden=4)
    theta = net.init(np.random.default_rng(2)).astype(np.float64)
    X, y = _records(1, 6, 3, seed=3)
    g = per_example_grads(net, theta, X, y)[0].astype(np.float64)
    import jax.numpy as jnp

    def loss(th):
        return float(net.loss_one(jnp.asarray(th, jnp.float32), net.prepare(X)[0], int(y[0])))

    for j in np.random.default_rng(0).choice(net.size, 8, replace=False):
        e = np.zeros(net.size)
        e[j] = 1e-2
        fd = (loss(theta + e) - loss(theta - e)) / 2e-2
        assert abs(fd - g[j]) < 2e-3 + 2e-2 * abs(g[j])


def test_clipping_caps_norms_and_keeps_short_rows():
    rng = np.random.default_rng(0)
    G = rng.normal(size=(50, 7)) * rng.uniform(0.01, 5, size=(50, 1))
    C = 1.3
    out = clip_rows(G, C)
    norms = np.linalg.norm(G, axis=1)
    new = np.linalg.norm(out, axis=1)
    assert (new <= C * (1 + 1e-12)).all()
    np.testing.assert_allclose(out[norms <= C], G[norms <= C])
    np.testing.assert_allclose(new[norms > C], C)
    # direction kept
    cos = (out * G).sum(axis=1) / (new * norms)
    np.testing.assert_allclose(cos, 1.0)


def test_poisson_subsampling_has_the_binomial_mean_and_variance():
    rng = np.random.default_rng(7)
    n, q, draws = 400, 0.05, 20_000
    sizes = np.array([poisson_batch(rng, n, q).size for _ in range(draws)])
    mean, var = n * q, n * q * (1 - q)
    # the sample mean's sd is sqrt(var / draws); the sample variance's about var*sqrt(2/draws)
    assert abs(sizes.mean() - mean) < 4 * math.sqrt(var / draws)
    assert abs(sizes.var(ddof=1) - var) < 4 * var * math.sqrt(2 / draws)


def test_noisy_update_matches_its_definition_in_distribution():
    """(Σ clip(g_i) + σC·ξ)/(qn): the mean over draws is the clipped sum / (qn), every
    coordinate's variance (σC/(qn))², independent standard normal noise; tolerances from the
    sampling distributions of the mean and the variance (fixed seed)."""
    net = FlatNet("mlp", 8, (2, 4), 3, hidden=4)
    theta = net.init(np.random.default_rng(3))
    X, y = _records(6, 8, 3, seed=4)
    sigma, C, expected = 0.7, 0.5, 4.0
    tr = DpTrainer(net, TrainConfig(epochs=1, batch=4), DpSgd(sigma, C))
    G = clip_rows(per_example_grads(net, theta, X, y).astype(np.float64), C)
    target = G.sum(axis=0) / expected
    assert (np.linalg.norm(G, axis=1) <= C * (1 + 1e-5)).all()
    noise = np.random.default_rng(11)
    draws = 3000
    U = np.stack([tr.noisy_gradient(theta, net.prepare(X), y.astype(np.int32),
                                    expected=expected, noise=noise, chunk=8)
                  for _ in range(draws)]).astype(np.float64)
    sd = sigma * C / expected
    z = (U.mean(axis=0) - target) / (sd / math.sqrt(draws))
    # P coordinates: a Bonferroni bound at 1e-4 overall
    from scipy.stats import norm

    assert np.abs(z).max() < norm.isf(1e-4 / (2 * net.size))
    ratio = U.var(axis=0, ddof=1).mean() / sd ** 2
    tol = 5 * math.sqrt(2 / (draws - 1)) / math.sqrt(net.size)
    assert abs(ratio - 1) < tol
    # the noise is independent across coordinates (empirical correlation of two coordinates)
    r = np.corrcoef(U[:, 0], U[:, 1])[0, 1]
    assert abs(r) < 5 / math.sqrt(draws)
    # a record outside the batch changes nothing; removing one moves the mean by <= C/(qn)
    U2 = np.stack([tr.noisy_gradient(theta, net.prepare(X[:5]), y[:5].astype(np.int32),
                                     expected=expected, noise=np.random.default_rng(11),
                                     chunk=8) for _ in range(3)])
    U1 = np.stack([tr.noisy_gradient(theta, net.prepare(X), y.astype(np.int32),
                                     expected=expected, noise=np.random.default_rng(11),
                                     chunk=8) for _ in range(3)])
    shift = np.linalg.norm(U1 - U2, axis=1)
    assert (shift <= C / expected * (1 + 1e-4)).all() and (shift > 0).all()


def test_chunks_give_the_same_clipped_sum_as_one_batch():
    net = FlatNet("gru", 12, (4, 3), 3, hidden=4)
    theta = net.init(np.random.default_rng(5))
    X, y = _records(11, 12, 3, seed=6)
    tr = DpTrainer(net, TrainConfig(epochs=1, batch=4), DpSgd(1.0, 0.3))
    a = np.asarray(tr.clipped_sum(theta, net.prepare(X), y.astype(np.int32), 16))
    b = np.asarray(tr.clipped_sum(theta, net.prepare(X), y.astype(np.int32), 4))
    ref = clip_rows(per_example_grads(net, theta, X, y), 0.3).sum(axis=0)
    np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(b, ref, rtol=1e-4, atol=1e-6)


def test_training_learns_and_dp_training_is_reproducible():
    from core.modelprivacy.data import load_dataset

    d = load_dataset("digits")
    X, y = d.X[:400], d.y[:400]
    net = FlatNet("mlp", 64, (8, 8), 10, hidden=32)
    tr = DpTrainer(net, TrainConfig(epochs=5, batch=32, lr=0.1))
    th = tr.fit(X, y, rng=np.random.default_rng(0))
    acc = (net.predict_proba(th, d.X[1000:1300]).argmax(1) == d.y[1000:1300]).mean()
    assert acc > 0.8
    dp = DpTrainer(net, TrainConfig(epochs=2, batch=32, lr=0.5, momentum=0.0), DpSgd(1.0, 1.0))
    a = dp.fit(X, y, rng=np.random.default_rng(1))
    b = dp.fit(X, y, rng=np.random.default_rng(1))
    c = dp.fit(X, y, rng=np.random.default_rng(1), noise=np.random.default_rng(2))
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - c).max() > 0


def test_mlp_ghost_norms_and_clipped_sum_equal_the_vmap_path():
    """The MLP's closed-form per-example norms (no per-example gradients formed) and its
    weighted backward pass give the vmap path's norms and clipped sum; masked rows add 0."""
    import jax.numpy as jnp

    from core.deep.dpsgd import mlp_example_norms

    net = FlatNet("mlp", 11, (4, 3), 3, hidden=6)   # the view pads 11 -> 12 features
    theta = net.init(np.random.default_rng(8))
    X, y = _records(13, 11, 3, seed=9)
    X[3] *= 40.0                                     # a record far outside the clip
    G = per_example_grads(net, theta, X, y).astype(np.float64)
    norms = np.asarray(mlp_example_norms(net, jnp.asarray(theta), jnp.asarray(net.prepare(X)),
                                         jnp.asarray(y)))
    np.testing.assert_allclose(norms, np.linalg.norm(G, axis=1), rtol=1e-5)
    tr = DpTrainer(net, TrainConfig(epochs=1, batch=4), DpSgd(1.0, 0.4))
    ref = clip_rows(G, 0.4).sum(axis=0)
    for chunk in (16, 5):                            # one padded chunk, or three
        got = np.asarray(tr.clipped_sum(theta, net.prepare(X), y.astype(np.int32), chunk))
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6)


def test_release_mode_noise_comes_from_the_secure_source():
    """gaussian_noise: float32 N(0, 1) from a seeded Generator and from the OS CSPRNG source
    (mean and variance within 5 standard errors); a DP fit with the secure source differs
    from run to run although the seeded sampling is the same."""
    from core.common.secure import SecureRandom
    from core.deep.dpsgd import gaussian_noise

    n = 40_000
    for src in (np.random.default_rng(3), SecureRandom()):
        z = gaussian_noise(src, n)
        assert z.dtype == np.float32 and z.shape == (n,)
        assert abs(z.mean()) < 5 / math.sqrt(n)
        assert abs(z.var() - 1) < 5 * math.sqrt(2 / n)
    net = FlatNet("mlp", 6, (2, 3), 3, hidden=4)
    X, y = _records(40, 6, 3, seed=12)
    tr = DpTrainer(net, TrainConfig(epochs=1, batch=8, lr=0.1), DpSgd(1.0, 1.0))
    a = tr.fit(X, y, rng=np.random.default_rng(5), noise=SecureRandom())
    b = tr.fit(X, y, rng=np.random.default_rng(5), noise=SecureRandom())
    assert np.abs(a - b).max() > 0
