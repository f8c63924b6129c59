"""DP-SGD on JAX: per-example gradients by ``jax.vmap``, clipping, Poisson subsampling and
Gaussian noise — the mechanism :mod:`core.privacy.dpsgd` accounts for.

One step (Abadi et al.; the RNN paper's eq. 7–8; the same as the numpy victims'
:func:`core.modelprivacy.models.train`):

1. every training record joins the batch independently with probability q = batch / n
   (Poisson subsampling: the batch size is random, Binomial(n, q));
2. each member's gradient g_i = ∇_θ ℓ(θ; x_i, y_i) is computed separately
   (``vmap(grad(ℓ))`` over the batch, compiled once) and clipped to ℓ2 norm C:
   ḡ_i = g_i · min(1, C/‖g_i‖₂);
3. the update direction is (Σ_i ḡ_i + σC·ξ) / (q·n) with ξ ~ N(0, I) over every parameter
   (σ = the noise multiplier), then SGD with momentum and weight decay (post-processing).

A step's output depends on any one record only through its clipped gradient, whose norm is
at most C: the Poisson-subsampled Gaussian mechanism with noise multiplier σ, which
``dp-accounting`` composes over the steps (:func:`core.privacy.dpsgd.dpsgd_epsilon`, the
numbers ``accountant dpsgd`` prints; add/remove-one record). The noise ξ is drawn on the host
from the caller's source: a seeded generator in experiment mode, the OS CSPRNG in release
mode.

Batches are processed in fixed-size chunks padded with masked rows, so each function is
compiled once whatever the Poisson batch size (a masked row contributes exactly zero).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from core.common.progress import Cancelled
from core.deep.backend import jax, jnp
from core.deep.nets import FlatNet
from core.modelprivacy.models import DpSgd, TrainConfig

__all__ = ["per_example_grads", "clip_rows", "DpTrainer", "chunk_size", "poisson_batch",
           "mlp_example_norms", "gaussian_noise"]


def per_example_grads(net: FlatNet, theta: np.ndarray, X: np.ndarray, y: np.ndarray
                      ) -> np.ndarray:
    """The gradient of each record's loss, one row per record (``vmap`` of ``grad``).

    Parameters
    ----------
    net : FlatNet
        The network.
    theta : numpy.ndarray
        Flat parameters.
    X, y : numpy.ndarray
        Records (flat) and labels.

    Returns
    -------
    numpy.ndarray
        (n, size) float32.
    """
    f = jax.jit(jax.vmap(jax.grad(net.loss_one), in_axes=(None, 0, 0)))
    return np.asarray(f(jnp.asarray(theta, jnp.float32), net.prepare(X),
                        jnp.asarray(y, jnp.int32)))


def clip_rows(G: Any, clip: float) -> Any:
    """Scale each row of G to ℓ2 norm at most ``clip`` (rows within it are unchanged).

    Parameters
    ----------
    G : array
        (n, size) per-example gradients (numpy or JAX).
    clip : float
        C > 0.

    Returns
    -------
    array
        The clipped rows, same type.

    Examples
    --------
    >>> np.round(np.asarray(clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)), 6).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    xp = jnp if isinstance(G, jax.Array) else np
    norms = xp.sqrt((G * G).sum(axis=1))
    scale = xp.minimum(1.0, clip / xp.maximum(norms, 1e-30))
    return G * scale[:, None]


def poisson_batch(rng: np.random.Generator, n: int, q: float) -> np.ndarray:
    """Poisson subsampling: the indices of the records that join this step's batch, each
    independently with probability q.

    >>> poisson_batch(np.random.default_rng(0), 10, 1.0).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """
    return np.flatnonzero(rng.random(n) < q)


def chunk_size(n: int, q: float) -> int:
    """The compiled chunk of a Poisson batch: its mean plus three standard deviations,
    rounded up to a multiple of 8 (a larger batch takes two chunks; nothing is dropped).

    >>> chunk_size(1000, 0.064)
    96
    """
    mean = n * q
    return max(8, int(math.ceil((mean + 3.0 * math.sqrt(mean * (1 - q)) + 1) / 8.0)) * 8)


def _mlp_errors(net: FlatNet, theta: Any, X: Any, y: Any) -> tuple[list[Any], list[Any], Any]:
    """One forward and one backward pass of an MLP over a batch, by hand: each dense layer's
    input a_l and back-propagated error δ_l (the gradient of a record's loss with respect to
    the layer's output), per record."""
    layers = net.model(theta).net.layers
    a = X[:, : net.d]
    acts, pre = [], []
    for i, lay in enumerate(layers):
        acts.append(a)
        z = a @ lay.weight.T + lay.bias
        pre.append(z)
        a = jax.nn.relu(z) if i < len(layers) - 1 else z
    delta = jax.nn.softmax(pre[-1], axis=-1) - jax.nn.one_hot(y, pre[-1].shape[-1])
    errors = [delta]
    for i in range(len(layers) - 1, 0, -1):
        delta = (delta @ layers[i].weight) * (pre[i - 1] > 0)
        errors.insert(0, delta)
    return layers, acts, errors


def mlp_example_norms(net: FlatNet, theta: Any, X: Any, y: Any) -> Any:
    """The ℓ2 norm of each record's loss gradient for an MLP, without forming the gradients
    ("ghost norms", Goodfellow 2015; Opacus' ghost clipping): a dense layer's weight gradient
    for one record is the outer product δ·aᵀ of the back-propagated error and the layer's
    input, so its squared norm is ‖δ‖²·‖a‖², and the bias adds ‖δ‖².

    Parameters
    ----------
    net : FlatNet
        An ``mlp``.
    theta : array
        Flat parameters.
    X, y : array
        Prepared records and labels.

    Returns
    -------
    array
        (n,) norms, equal to those of :func:`per_example_grads` (tested).
    """
    _, acts, errors = _mlp_errors(net, theta, X, y)
    sq = sum(jnp.sum(e * e, axis=1) * (jnp.sum(a * a, axis=1) + 1.0)
             for a, e in zip(acts, errors))
    return jnp.sqrt(sq)


def _mlp_clipped_sum(net: FlatNet, theta: Any, X: Any, y: Any, mask: Any, clip: Any) -> Any:
    """Σ_i clip(g_i, C) for an MLP from one hand-written forward/backward pass: the norms as
    in :func:`mlp_example_norms`, then each layer's clipped weight gradient Σ_i c_i δ_i a_iᵀ
    as one matrix product, placed into the flat θ layout (the gradient of a linear map)."""
    layers, acts, errors = _mlp_errors(net, theta, X, y)
    sq = sum(jnp.sum(e * e, axis=1) * (jnp.sum(a * a, axis=1) + 1.0)
             for a, e in zip(acts, errors))
    c = jnp.minimum(1.0, clip / jnp.maximum(jnp.sqrt(sq), 1e-30)) * mask
    gw = [(e * c[:, None]).T @ a for a, e in zip(acts, errors)]
    gb = [c @ e for e in errors]

    def place(th: Any) -> Any:
        lays = net.model(th).net.layers
        return sum(jnp.sum(lay.weight * w) + jnp.sum(lay.bias * b)
                   for lay, w, b in zip(lays, gw, gb))

    return jax.grad(place)(theta)


def gaussian_noise(noise: Any, size: int) -> np.ndarray:
    """ξ ~ N(0, I) of ``size`` float32 coordinates from the caller's source: a numpy Generator
    (seeded experiment mode) draws float32 directly; the OS CSPRNG source (release mode) by
    its own Box–Muller."""
    if isinstance(noise, np.random.Generator):
        return noise.standard_normal(size, dtype=np.float32)
    return np.asarray(noise.standard_normal(size), dtype=np.float32)


class DpTrainer:
    """Mini-batch SGD (with momentum and weight decay) or DP-SGD of a :class:`FlatNet`.

    Parameters
    ----------
    net : FlatNet
        The network.
    cfg : TrainConfig
        Epochs, batch, learning rate, momentum, weight decay (the numpy victims' config).
    dp : DpSgd, optional
        σ and C: DP-SGD with Poisson rate q = batch / n, ``epochs · ceil(n / batch)`` steps
        (n = ``dp.public_n`` when given, else the number of records).
    clipping : {"auto", "vmap"}
        How the clipped sum is formed: ``auto`` uses the MLP's closed-form per-example norms
        (:func:`mlp_example_norms`) and ``vmap`` of ``grad`` for every other network;
        ``vmap`` forces the general path (the same numbers, tested; for the benchmark).
    """

    def __init__(self, net: FlatNet, cfg: TrainConfig, dp: DpSgd | None = None, *,
                 clipping: str = "auto"):
        self.net, self.cfg, self.dp = net, cfg, dp
        loss = net.loss_one
        per_ex = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))

        def clipped_sum_vmap(theta: Any, X: Any, y: Any, mask: Any, clip: Any) -> Any:
            G = per_ex(theta, X, y)
            norms = jnp.sqrt(jnp.sum(G * G, axis=1))
            scale = jnp.minimum(1.0, clip / jnp.maximum(norms, 1e-30)) * mask
            return scale @ G

        def clipped_sum_ghost(theta: Any, X: Any, y: Any, mask: Any, clip: Any) -> Any:
            return _mlp_clipped_sum(net, theta, X, y, mask, clip)

        # the MLP: per-example norms and the clipped sum from one hand-written forward and
        # backward pass (equal to the vmap path, tested; bench/deep.py: the cost); every
        # other network: vmap of grad
        ghost = net.kind == "mlp" and clipping == "auto"
        clipped_sum = clipped_sum_ghost if ghost else clipped_sum_vmap

        def mean_grad(theta: Any, X: Any, y: Any, mask: Any) -> Any:
            def batch_loss(th: Any) -> Any:
                ls = jax.vmap(loss, in_axes=(None, 0, 0))(th, X, y)
                return jnp.sum(ls * mask) / jnp.maximum(jnp.sum(mask), 1.0)
            return jax.grad(batch_loss)(theta)

        def apply(theta: Any, vel: Any, g: Any, lr: Any, momentum: Any, l2: Any
                  ) -> tuple[Any, Any]:
            g = g + l2 * theta
            vel = momentum * vel - lr * g
            return theta + vel, vel

        def plain_step(theta: Any, vel: Any, X: Any, y: Any, mask: Any, lr: Any,
                       momentum: Any, l2: Any) -> tuple[Any, Any]:
            return apply(theta, vel, mean_grad(theta, X, y, mask), lr, momentum, l2)

        def dp_step(theta: Any, vel: Any, gsum: Any, noise: Any, scale: Any, denom: Any,
                    lr: Any, momentum: Any, l2: Any) -> tuple[Any, Any]:
            return apply(theta, vel, (gsum + scale * noise) / denom, lr, momentum, l2)

        def dp_fused(theta: Any, vel: Any, X: Any, y: Any, mask: Any, clip: Any, noise: Any,
                     scale: Any, denom: Any, lr: Any, momentum: Any, l2: Any
                     ) -> tuple[Any, Any]:
            gsum = clipped_sum(theta, X, y, mask, clip)
            return dp_step(theta, vel, gsum, noise, scale, denom, lr, momentum, l2)

        self._clipped_sum = jax.jit(clipped_sum)
        self._dp_fused = jax.jit(dp_fused)
        self._plain_step = jax.jit(plain_step)
        self._dp_step = jax.jit(dp_step)

    # ------------------------------------------------------------------------ one step
    def clipped_sum(self, theta: Any, X: np.ndarray, y: np.ndarray, chunk: int) -> Any:
        """Σ_i clip(g_i, C) over the records (X, y), in padded chunks of ``chunk``."""
        assert self.dp is not None
        total = jnp.zeros(self.net.size, jnp.float32)
        n = X.shape[0]
        for i in range(0, max(n, 1), chunk):
            Xc, yc = X[i:i + chunk], y[i:i + chunk]
            m = Xc.shape[0]
            if m == 0:
                break
            mask = np.zeros(chunk, np.float32)
            mask[:m] = 1.0
            if m < chunk:
                Xc = np.pad(Xc, ((0, chunk - m), (0, 0)))
                yc = np.pad(yc, (0, chunk - m))
            total = total + self._clipped_sum(theta, Xc, yc, mask,
                                              jnp.float32(self.dp.clip))
        return total

    def noisy_gradient(self, theta: Any, X: np.ndarray, y: np.ndarray, *, expected: float,
                       noise: Any, chunk: int) -> np.ndarray:
        """DP-SGD's update direction (Σ_i ḡ_i + σC·ξ) / expected for one sampled batch.

        Parameters
        ----------
        theta : array
            Flat parameters.
        X, y : numpy.ndarray
            The sampled batch (prepared records, labels).
        expected : float
            q·n, the expected batch size (the divisor; it does not depend on the sample).
        noise : numpy Generator or SecureRandom
            Source of ξ.
        chunk : int
            Compiled chunk size.

        Returns
        -------
        numpy.ndarray
            float32 (size,).
        """
        assert self.dp is not None
        gsum = self.clipped_sum(jnp.asarray(theta, jnp.float32), X, y, chunk)
        xi = gaussian_noise(noise, self.net.size)
        return np.asarray((gsum + self.dp.sigma * self.dp.clip * xi) / expected)

    # ------------------------------------------------------------------------ training
    def fit(self, X: np.ndarray, y: np.ndarray, *, rng: np.random.Generator,
            noise: Any = None, theta0: np.ndarray | None = None,
            cancelled: Callable[[], bool] | None = None,
            on_epoch: Callable[[int], None] | None = None) -> np.ndarray:
        """Train on (X, y) (flat records, labels); DP-SGD when ``dp`` was given.

        Parameters
        ----------
        X, y : numpy.ndarray
            Training records and labels.
        rng : numpy.random.Generator
            Initialisation, batch order / Poisson sampling (seeded experiment randomness).
        noise : numpy Generator or SecureRandom, optional
            Source of the Gaussian noise (default ``rng``); release mode passes the OS CSPRNG.
        theta0 : numpy.ndarray, optional
            Initial parameters (default a fresh ``net.init(rng)``).
        cancelled : callable, optional
            Polled once per epoch; raises :class:`~core.common.progress.Cancelled`.
        on_epoch : callable, optional
            Called with the finished epoch's index.

        Returns
        -------
        numpy.ndarray
            The trained θ (float64, flat).
        """
        cfg, net = self.cfg, self.net
        Xp = net.prepare(X)
        yp = np.asarray(y, dtype=np.int32)
        n = Xp.shape[0]
        theta = jnp.asarray(net.init(rng) if theta0 is None else theta0, jnp.float32)
        vel = jnp.zeros_like(theta)
        # DP-SGD with a public size: q, the steps and the normaliser come from it, whatever
        # the actual number of records (DpSgd.public_n; the numpy victims' train does the same)
        sched_n = (self.dp.public_n if self.dp is not None and self.dp.public_n is not None
                   else n)
        steps_per_epoch = max(1, math.ceil(sched_n / cfg.batch))
        noise = rng if noise is None else noise
        lr, mom, l2 = (jnp.float32(cfg.lr), jnp.float32(cfg.momentum), jnp.float32(cfg.l2))
        q = min(1.0, cfg.batch / sched_n)
        chunk = chunk_size(n, q)
        if self.dp is not None:
            scale = jnp.float32(self.dp.sigma * self.dp.clip)
            denom = jnp.float32(q * sched_n)
        for ep in range(cfg.epochs):
            if cancelled is not None and cancelled():
                raise Cancelled()
            if self.dp is None:
                order = rng.permutation(n)
                for s in range(steps_per_epoch):
                    idx = order[s * cfg.batch:(s + 1) * cfg.batch]
                    m = idx.size
                    if m == 0:
                        continue
                    Xb, yb = Xp[idx], yp[idx]
                    mask = np.ones(cfg.batch, np.float32)
                    if m < cfg.batch:
                        mask[m:] = 0.0
                        Xb = np.pad(Xb, ((0, cfg.batch - m), (0, 0)))
                        yb = np.pad(yb, (0, cfg.batch - m))
                    theta, vel = self._plain_step(theta, vel, Xb, yb, mask, lr, mom, l2)
            else:
                clip = jnp.float32(self.dp.clip)
                for _s in range(steps_per_epoch):
                    idx = poisson_batch(rng, n, q)
                    xi = gaussian_noise(noise, net.size)
                    if idx.size <= chunk:   # the usual case: one compiled call per step
                        m = idx.size
                        Xc = np.zeros((chunk, Xp.shape[1]), np.float32)
                        yc = np.zeros(chunk, np.int32)
                        mask = np.zeros(chunk, np.float32)
                        Xc[:m], yc[:m], mask[:m] = Xp[idx], yp[idx], 1.0
                        theta, vel = self._dp_fused(theta, vel, Xc, yc, mask, clip, xi, scale,
                                                    denom, lr, mom, l2)
                        continue
                    gsum = self.clipped_sum(theta, Xp[idx], yp[idx], chunk)
                    theta, vel = self._dp_step(theta, vel, gsum, xi, scale, denom, lr, mom, l2)
            if on_epoch is not None:
                on_epoch(ep)
        out = np.asarray(theta, dtype=np.float64)
        if not np.isfinite(out).all():
            from core.common.errors import RunFailure

            raise RunFailure(f"{net.kind} training diverged (non-finite parameters): lower "
                             "the learning rate")
        return out
