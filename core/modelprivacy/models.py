"""The lab's victims: a feed-forward network and an Elman recurrent network in numpy, with
exact hand-derived gradients (checked against finite differences in the tests) and
per-example clipping for DP-SGD.

scikit-learn's ``MLPClassifier`` has no per-example gradients, which DP-SGD needs, so the
victims are written here (small: one hidden layer each); scikit-learn trains the attack
models and the inversion network (``core.modelprivacy.attack``).

Parameters live in one flat vector θ (what the Gaussian post-training mechanism perturbs and
the SensitivitySampler measures).

* ``ffnn``: softmax(relu(x W₁ + b₁) W₂ + b₂) on the flat record.
* ``rnn``: h_t = tanh(x_t W_x + h_{t−1} W_h + b), h₀ = 0, softmax(h_T W_o + b_o) on the
  record's sequence view (digits: 8 rows of 8 pixels).

DP-SGD (Abadi et al.; the RNN paper's eq. 7–8): each step samples every training record with
probability q (Poisson), clips each per-example gradient to ℓ2 norm C, adds N(0, σ²C²) to the
sum of the clipped gradients and divides by the expected batch q·n; ε from
:mod:`core.privacy.dpsgd` (add/remove-one adjacency). Momentum and weight decay are
post-processing of the noisy gradient and data-independent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core.common.errors import InputError
from core.common.progress import Cancelled

if TYPE_CHECKING:
    from core.common.secure import SecureRandom

__all__ = ["Network", "TrainConfig", "DpSgd", "train", "VICTIMS", "NETWORK_VICTIMS", "Victim",
           "NetworkFactory"]

VICTIMS = ("ffnn", "rnn")
#: victims that are real networks on JAX (the optional ``deep`` extra, :mod:`core.deep`):
#: the lab never imports them itself; the caller passes a :data:`NetworkFactory`
NETWORK_VICTIMS = ("mlp", "cnn", "gru", "lstm")


class Victim(Protocol):
    """What the lab needs of a gradient-trained victim (numpy :class:`Network` here, the
    JAX networks of :mod:`core.deep.victims`): parameters in one flat vector θ, confidence
    vectors for records, and its training algorithm (plain SGD or DP-SGD)."""

    kind: str
    size: int

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """A fresh θ."""

    def predict_proba(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Confidence vectors (n, classes)."""

    def fit(self, X: np.ndarray, y: np.ndarray, cfg: "TrainConfig", *,
            rng: np.random.Generator, dp: "DpSgd | None" = None, noise: Any = None,
            cancelled: Callable[[], bool] | None = None) -> np.ndarray:
        """The trained θ (DP-SGD when ``dp`` is given)."""


#: ``factory(kind, data, hidden) -> Victim`` for the :data:`NETWORK_VICTIMS`
NetworkFactory = Callable[[str, Any, int], Victim]


@dataclass(frozen=True)
class DpSgd:
    """DP-SGD's public parameters: noise multiplier σ and clip norm C.

    ``public_n`` (optional) fixes the schedule from a public training-set size instead of
    the actual one: sampling rate q = batch/public_n, ``epochs·ceil(public_n/batch)`` steps
    and the normaliser q·public_n, whatever the actual number of records — so adding or
    removing a record (the canary audit's neighbours) changes nothing but the data, and
    the accountant's (q, T) is exactly what ran.
    """

    sigma: float
    clip: float = 1.0
    public_n: int | None = None


@dataclass(frozen=True)
class TrainConfig:
    """Mini-batch SGD with momentum (the same for every victim, shadow and DP run)."""

    epochs: int = 60
    batch: int = 32
    lr: float = 0.1
    momentum: float = 0.9
    l2: float = 0.0


#: what the forward pass keeps for the backward one: (z1, h) of the ffnn, the hidden
#: states (T + 1, n, hidden) of the rnn
_Cache = tuple[np.ndarray, np.ndarray] | np.ndarray


class Network:
    """One victim architecture with θ in a flat vector.

    Parameters
    ----------
    kind : {"ffnn", "rnn"}
        The architecture.
    in_shape : tuple
        ``(d,)`` for ffnn; ``(steps, features)`` for rnn.
    classes : int
        Output classes.
    hidden : int
        Hidden units.
    """

    def __init__(self, kind: str, in_shape: tuple[int, ...], classes: int, hidden: int = 32):
        if kind not in VICTIMS:
            raise InputError(f"must be one of {', '.join(VICTIMS)}, got {kind!r}",
                             field="victim")
        self.kind, self.in_shape, self.classes, self.hidden = kind, tuple(in_shape), classes, \
            hidden
        H, K = hidden, classes
        if kind == "ffnn":
            (d,) = self.in_shape
            self.shapes = {"W1": (d, H), "b1": (H,), "W2": (H, K), "b2": (K,)}
        else:
            _, F = self.in_shape
            self.shapes = {"Wx": (F, H), "Wh": (H, H), "b": (H,), "Wo": (H, K), "bo": (K,)}
        self.slices: dict[str, slice] = {}
        off = 0
        for name, shp in self.shapes.items():
            size = int(np.prod(shp))
            self.slices[name] = slice(off, off + size)
            off += size
        self.size = off

    def fit(self, X: np.ndarray, y: np.ndarray, cfg: "TrainConfig", *,
            rng: np.random.Generator, dp: "DpSgd | None" = None, noise: Any = None,
            cancelled: Callable[[], bool] | None = None) -> np.ndarray:
        """:func:`train` this architecture (the :class:`Victim` interface)."""
        return train(self, X, y, cfg, rng=rng, dp=dp, noise=noise, cancelled=cancelled)

    def unpack(self, theta: np.ndarray) -> dict[str, np.ndarray]:
        """Views of θ by parameter name."""
        return {k: theta[s].reshape(self.shapes[k]) for k, s in self.slices.items()}

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """Glorot-uniform weights, zero biases."""
        theta = np.zeros(self.size)
        p = self.unpack(theta)
        for k, shp in self.shapes.items():
            if len(shp) == 2:
                lim = math.sqrt(6.0 / (shp[0] + shp[1]))
                p[k][...] = rng.uniform(-lim, lim, size=shp)
        return theta

    # --- forward ----------------------------------------------------------------------------
    def _forward(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, _Cache]:
        logits, cache = self._logits(theta, X)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True), cache

    def _logits(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, _Cache]:
        p = self.unpack(theta)
        if self.kind == "ffnn":
            z1 = X @ p["W1"] + p["b1"]
            h = np.maximum(z1, 0.0)
            logits = h @ p["W2"] + p["b2"]
            cache: _Cache = (z1, h)
        else:
            n, T, _ = X.shape
            hs = np.zeros((T + 1, n, self.hidden))
            for t in range(T):
                hs[t + 1] = np.tanh(X[:, t] @ p["Wx"] + hs[t] @ p["Wh"] + p["b"])
            logits = hs[T] @ p["Wo"] + p["bo"]
            cache = hs
        return logits, cache

    def logits(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """The pre-softmax outputs (n, classes)."""
        out = np.empty((X.shape[0], self.classes))
        for i in range(0, X.shape[0], 2048):
            out[i:i + 2048] = self._logits(theta, X[i:i + 2048])[0]
        return out

    def predict_proba(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Confidence vectors (n, classes), rows summing to 1."""
        out = np.empty((X.shape[0], self.classes))
        for i in range(0, X.shape[0], 2048):
            out[i:i + 2048] = self._forward(theta, X[i:i + 2048])[0]
        return out

    def loss(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Mean cross-entropy."""
        prob = self.predict_proba(theta, X)
        return float(-np.mean(np.log(np.maximum(prob[np.arange(y.size), y], 1e-300))))

    # --- gradients ----------------------------------------------------------------------------
    def grad_sum(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray,
                 clip: float | None = None) -> np.ndarray:
        """Σ over the batch of the per-example cross-entropy gradients, each first clipped
        to ℓ2 norm ``clip`` when given.

        Parameters
        ----------
        theta : numpy.ndarray
            Parameters.
        X, y : numpy.ndarray
            The batch.
        clip : float, optional
            Per-example clip norm C.

        Returns
        -------
        numpy.ndarray
            A flat gradient of θ's size.
        """
        prob, cache = self._forward(theta, X)
        n = X.shape[0]
        dl = prob.copy()
        dl[np.arange(n), y] -= 1.0
        p = self.unpack(theta)
        g = np.zeros(self.size)
        gp = self.unpack(g)
        if self.kind == "ffnn":
            z1, h = cache
            dh = (dl @ p["W2"].T) * (z1 > 0)
            if clip is not None:
                sq = ((np.einsum("ij,ij->i", h, h) + 1.0) * np.einsum("ij,ij->i", dl, dl)
                      + (np.einsum("ij,ij->i", X, X) + 1.0) * np.einsum("ij,ij->i", dh, dh))
                c = np.minimum(1.0, clip / np.maximum(np.sqrt(sq), 1e-300))
                dl, dh = dl * c[:, None], dh * c[:, None]
            gp["W2"][...] = h.T @ dl
            gp["b2"][...] = dl.sum(axis=0)
            gp["W1"][...] = X.T @ dh
            gp["b1"][...] = dh.sum(axis=0)
            return g
        hs = cache
        T = X.shape[1]
        H = self.hidden
        if clip is None:
            gp["Wo"][...] = hs[T].T @ dl
            gp["bo"][...] = dl.sum(axis=0)
            dh = dl @ p["Wo"].T
            for t in range(T - 1, -1, -1):
                da = dh * (1.0 - hs[t + 1] ** 2)
                gp["Wx"][...] += X[:, t].T @ da
                gp["Wh"][...] += hs[t].T @ da
                gp["b"][...] += da.sum(axis=0)
                dh = da @ p["Wh"].T
            return g
        # per-example gradients, then clip and sum
        F = X.shape[2]
        gWx = np.zeros((n, F, H))
        gWh = np.zeros((n, H, H))
        gb = np.zeros((n, H))
        dh = dl @ p["Wo"].T
        for t in range(T - 1, -1, -1):
            da = dh * (1.0 - hs[t + 1] ** 2)
            gWx += X[:, t, :, None] * da[:, None, :]
            gWh += hs[t][:, :, None] * da[:, None, :]
            gb += da
            dh = da @ p["Wh"].T
        sq = ((np.einsum("ij,ij->i", hs[T], hs[T]) + 1.0) * np.einsum("ij,ij->i", dl, dl)
              + np.einsum("ijk,ijk->i", gWx, gWx) + np.einsum("ijk,ijk->i", gWh, gWh)
              + np.einsum("ij,ij->i", gb, gb))
        c = np.minimum(1.0, clip / np.maximum(np.sqrt(sq), 1e-300))
        dlc = dl * c[:, None]
        gp["Wo"][...] = hs[T].T @ dlc
        gp["bo"][...] = dlc.sum(axis=0)
        gp["Wx"][...] = np.einsum("i,ijk->jk", c, gWx)
        gp["Wh"][...] = np.einsum("i,ijk->jk", c, gWh)
        gp["b"][...] = c @ gb
        return g


def train(net: Network, X: np.ndarray, y: np.ndarray, cfg: TrainConfig, *,
          rng: np.random.Generator, dp: DpSgd | None = None,
          noise: np.random.Generator | SecureRandom | None = None,
          theta0: np.ndarray | None = None,
          cancelled: Callable[[], bool] | None = None) -> np.ndarray:
    """Train ``net`` on (X, y); DP-SGD when ``dp`` is given.

    Parameters
    ----------
    net : Network
        The architecture.
    X, y : numpy.ndarray
        Training records (in the network's input shape) and labels.
    cfg : TrainConfig
        Epochs, batch, learning rate, momentum, weight decay.
    rng : numpy.random.Generator
        Initialisation, batch order / Poisson sampling (seeded experiment randomness).
    dp : DpSgd, optional
        DP-SGD's σ and C. Steps: ``epochs · ceil(n / batch)``, each a Poisson sample with
        q = batch / n.
    noise : Generator or SecureRandom, optional
        Source of the Gaussian noise (default ``rng``); release mode passes the OS CSPRNG.
    theta0 : numpy.ndarray, optional
        Initial parameters (default: a fresh ``net.init(rng)``).
    cancelled : callable, optional
        Polled once per epoch; raises :class:`~core.common.progress.Cancelled`.

    Returns
    -------
    numpy.ndarray
        The trained θ.
    """
    n = X.shape[0]
    theta = net.init(rng) if theta0 is None else theta0.copy()
    vel = np.zeros_like(theta)
    sched_n = dp.public_n if dp is not None and dp.public_n is not None else n
    steps_per_epoch = max(1, math.ceil(sched_n / cfg.batch))
    noise = rng if noise is None else noise
    q = min(1.0, cfg.batch / sched_n)
    for _ep in range(cfg.epochs):
        if cancelled is not None and cancelled():
            raise Cancelled()
        order = rng.permutation(n) if dp is None else None
        for s in range(steps_per_epoch):
            if dp is None:
                idx = order[s * cfg.batch:(s + 1) * cfg.batch]  # type: ignore[index]
                if idx.size == 0:
                    continue
                g = net.grad_sum(theta, X[idx], y[idx]) / idx.size
            else:
                idx = np.flatnonzero(rng.random(n) < q)
                g = (net.grad_sum(theta, X[idx], y[idx], clip=dp.clip) if idx.size
                     else np.zeros_like(theta))
                g = (g + dp.sigma * dp.clip * noise.standard_normal(theta.size)) / (q * sched_n)
            if cfg.l2:
                g = g + cfg.l2 * theta
            vel = cfg.momentum * vel - cfg.lr * g
            theta = theta + vel
    return theta


def train_steps(n: int, cfg: TrainConfig) -> int:
    """DP-SGD steps of :func:`train` on ``n`` records."""
    return cfg.epochs * max(1, math.ceil(n / cfg.batch))
