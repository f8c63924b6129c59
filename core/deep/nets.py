"""Classifier networks of the model privacy lab on JAX/equinox: MLP, CNN, GRU and LSTM.

Every network maps one record to class logits. Records arrive flat (``d`` features, as the
lab's :class:`~core.modelprivacy.data.Dataset` holds them) and each network takes its own
view: the MLP the flat vector, the CNN the record's 2-D view ``seq_shape`` as a one-channel
image (digits: 8×8 pixels), the GRU and LSTM the same view as a sequence of ``steps`` rows of
``features`` (digits: 8 rows of 8 pixels, as the numpy Elman victim reads them; a text
record: one one-hot token per step).

Parameters live in one flat float32 vector θ (:class:`FlatNet`): what DP-SGD's per-example
gradients, the GPM's noise and the SensitivitySampler's distances act on, as for the numpy
victims.

* ``mlp``: two hidden layers of ``hidden`` ReLU units (the paper's teacher is 2 × 64);
* ``cnn``: conv 3×3 (16) → ReLU → conv 3×3 (32) → ReLU → max-pool 2 → linear;
* ``gru`` / ``lstm``: one recurrent layer of ``hidden`` units over the steps, the last hidden
  state → linear (the RNN paper's victims are GRU/LSTM classifiers of this shape).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.deep.backend import eqx, jax, jnp, ravel_pytree

__all__ = ["NETWORKS", "FlatNet", "build_network"]

NETWORKS = ("mlp", "cnn", "gru", "lstm")


class _Mlp(eqx.Module):
    net: Any
    d: int = eqx.field(static=True)

    def __init__(self, d: int, classes: int, hidden: int, key: Any):
        self.d = d
        self.net = eqx.nn.MLP(d, classes, hidden, 2, activation=jax.nn.relu, key=key)

    def __call__(self, x: Any) -> Any:
        return self.net(x[: self.d])   # the record itself, without the 2-D view's padding


class _Cnn(eqx.Module):
    conv1: Any
    conv2: Any
    out: Any
    shape: tuple[int, int] = eqx.field(static=True)

    def __init__(self, shape: tuple[int, int], classes: int, hidden: int, key: Any):
        k1, k2, k3 = jax.random.split(key, 3)
        h, w = shape
        self.shape = (h, w)
        self.conv1 = eqx.nn.Conv2d(1, 16, 3, padding=1, key=k1)
        self.conv2 = eqx.nn.Conv2d(16, 32, 3, padding=1, key=k2)
        self.out = eqx.nn.Linear(32 * max(h // 2, 1) * max(w // 2, 1), classes, key=k3)

    def __call__(self, x: Any) -> Any:
        h, w = self.shape
        z = x[: h * w].reshape(1, h, w)
        z = jax.nn.relu(self.conv1(z))
        z = jax.nn.relu(self.conv2(z))
        if h >= 2 and w >= 2:
            z = z[:, : (h // 2) * 2, : (w // 2) * 2]
            z = z.reshape(32, h // 2, 2, w // 2, 2).max(axis=(2, 4))
        return self.out(z.reshape(-1))


class _Recurrent(eqx.Module):
    cell: Any
    out: Any
    shape: tuple[int, int] = eqx.field(static=True)
    lstm: bool = eqx.field(static=True)

    def __init__(self, shape: tuple[int, int], classes: int, hidden: int, key: Any,
                 lstm: bool):
        k1, k2 = jax.random.split(key)
        steps, feats = shape
        self.shape = (steps, feats)
        self.lstm = lstm
        self.cell = (eqx.nn.LSTMCell(feats, hidden, key=k1) if lstm
                     else eqx.nn.GRUCell(feats, hidden, key=k1))
        self.out = eqx.nn.Linear(hidden, classes, key=k2)

    def __call__(self, x: Any) -> Any:
        steps, feats = self.shape
        seq = x[: steps * feats].reshape(steps, feats)
        hidden = self.cell.hidden_size
        h0 = jnp.zeros(hidden)
        init = (h0, h0) if self.lstm else h0

        def step(carry: Any, xt: Any) -> tuple[Any, None]:
            return self.cell(xt, carry), None

        last, _ = jax.lax.scan(step, init, seq)
        return self.out(last[0] if self.lstm else last)


class FlatNet:
    """A network with its parameters in one flat float32 vector.

    Parameters
    ----------
    kind : {"mlp", "cnn", "gru", "lstm"}
        The architecture.
    d : int
        Flat record length.
    seq_shape : (int, int)
        The record's 2-D view (image rows × columns; sequence steps × features), with
        ``steps · features >= d`` (the flat record is zero-padded to it).
    classes : int
        Output classes.
    hidden : int
        Hidden units (MLP width; recurrent state size); the CNN's channels are fixed.
    seed : int
        Seed of the architecture's template (the initial θ is drawn by :meth:`init`).
    """

    def __init__(self, kind: str, d: int, seq_shape: tuple[int, int], classes: int,
                 hidden: int = 32, seed: int = 0):
        if kind not in NETWORKS:
            raise InputError(f"must be one of {', '.join(NETWORKS)}, got {kind!r}",
                             field="model")
        steps, feats = (int(v) for v in seq_shape)
        if steps * feats < d:
            raise InputError(f"the 2-D view {steps}x{feats} is smaller than the record "
                             f"({d} features)", field="data")
        self.kind, self.d, self.seq_shape = kind, int(d), (steps, feats)
        self.classes, self.hidden = int(classes), int(hidden)
        key = jax.random.PRNGKey(seed)
        if kind == "mlp":
            model: Any = _Mlp(d, classes, hidden, key)
        elif kind == "cnn":
            model = _Cnn((steps, feats), classes, hidden, key)
        else:
            model = _Recurrent((steps, feats), classes, hidden, key, lstm=kind == "lstm")
        params, self._static = eqx.partition(model, eqx.is_array)
        flat, self._unravel = ravel_pytree(params)
        self.size = int(flat.size)
        self._template = params
        self._pad = steps * feats - d

    # ------------------------------------------------------------------------ structure
    def model(self, theta: Any) -> Any:
        """The equinox module with parameters θ (inside traced code)."""
        return eqx.combine(self._unravel(theta), self._static)

    def prepare(self, X: np.ndarray) -> np.ndarray:
        """Flat records as float32, zero-padded to the 2-D view's size."""
        X = np.asarray(X, dtype=np.float32)
        if self._pad:
            X = np.pad(X, ((0, 0), (0, self._pad)))
        return X

    def logits_one(self, theta: Any, x: Any) -> Any:
        """Logits of one (prepared) record."""
        return self.model(theta)(x)

    def loss_one(self, theta: Any, x: Any, y: Any) -> Any:
        """Cross-entropy of one record."""
        z = self.logits_one(theta, x)
        return -jax.nn.log_softmax(z)[y]

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """A fresh θ: the architecture's default initialisation (equinox: uniform fan-in
        scaled weights) keyed from ``rng``, biases included.

        Parameters
        ----------
        rng : numpy.random.Generator
            Seeded experiment randomness (initialisation is not a privacy mechanism).

        Returns
        -------
        numpy.ndarray
            float32, shape ``(size,)``.
        """
        key = jax.random.PRNGKey(int(rng.integers(2**31)))
        leaves, treedef = jax.tree_util.tree_flatten(self._template)
        keys = jax.random.split(key, len(leaves))
        fresh = []
        for leaf, k in zip(leaves, keys):
            fan_in = int(np.prod(leaf.shape[1:])) if leaf.ndim > 1 else max(leaf.shape[0], 1)
            lim = 1.0 / math.sqrt(max(fan_in, 1))
            fresh.append(jax.random.uniform(k, leaf.shape, leaf.dtype, -lim, lim))
        flat, _ = ravel_pytree(jax.tree_util.tree_unflatten(treedef, fresh))
        return np.asarray(flat, dtype=np.float32)

    # ------------------------------------------------------------------------ compiled
    def batch_logits(self) -> Callable[[Any, Any], Any]:
        """``f(θ, X) -> logits`` over a batch, compiled once per batch shape."""
        f: Callable[[Any, Any], Any] = jax.jit(jax.vmap(self.logits_one, in_axes=(None, 0)))
        return f

    def predict_proba(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Confidence vectors (n, classes) in float64, rows summing to 1 (batches of 512)."""
        return self._batched(self._proba_fn(), theta, X, normalise=True)

    def logits(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Class logits (n, classes) in float64 (batches of 512): the attacks' stable scores
        where a float32 softmax rounds p_y to 1."""
        if not hasattr(self, "_logits"):
            self._logits = self.batch_logits()
        return self._batched(self._logits, theta, X, normalise=False)

    def _batched(self, f: Callable[[Any, Any], Any], theta: np.ndarray, X: np.ndarray, *,
                 normalise: bool) -> np.ndarray:
        Xp = self.prepare(X)
        n = Xp.shape[0]
        out = np.empty((n, self.classes))
        th = jnp.asarray(theta, dtype=jnp.float32)
        step = 512
        for i in range(0, n, step):
            chunk = Xp[i:i + step]
            m = chunk.shape[0]
            if m < step and n > step:  # one compiled shape: pad the last chunk
                chunk = np.pad(chunk, ((0, step - m), (0, 0)))
            p = np.asarray(f(th, chunk), dtype=np.float64)[:m]
            out[i:i + m] = p / p.sum(axis=1, keepdims=True) if normalise else p
        return out

    def _proba_fn(self) -> Callable[[Any, Any], Any]:
        if not hasattr(self, "_proba"):
            logits = jax.vmap(self.logits_one, in_axes=(None, 0))
            self._proba: Callable[[Any, Any], Any] = jax.jit(
                lambda th, X: jax.nn.softmax(logits(th, X), axis=-1))
        return self._proba

    def loss(self, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Mean cross-entropy."""
        prob = self.predict_proba(theta, X)
        return float(-np.mean(np.log(np.maximum(prob[np.arange(y.size), y], 1e-300))))


def build_network(kind: str, data: Any, hidden: int = 32) -> FlatNet:
    """The network ``kind`` for a lab data set (its flat size, 2-D view and classes).

    Parameters
    ----------
    kind : {"mlp", "cnn", "gru", "lstm"}
        The architecture.
    data : Dataset
        The lab's data set.
    hidden : int
        Hidden units.

    Returns
    -------
    FlatNet
    """
    return FlatNet(kind, int(data.X.shape[1]), tuple(data.seq_shape), int(data.classes),
                   hidden)
