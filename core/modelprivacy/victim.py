"""The victim interface the membership-inference attacks consume (model-agnostic).

An attack sees a victim only through two small protocols, so any model family plugs in
unchanged — the lab's numpy networks (:class:`NumpyVictimKind`), or an outside family such
as JAX networks (MLP/CNN/GRU/LSTM) that implements them:

* :class:`Victim` — a trained model, black-box: ``predict_proba(X) -> (n, classes)``
  confidence vectors on the given records (rows sum to 1). Optionally ``logits(X)``; when a
  victim has it, the attacks use it for numerically stable scores (LiRA's logit-scaled
  confidence), otherwise they derive everything from the probabilities.
* :class:`VictimKind` — the attacker's knowledge of the training algorithm (Kerckhoffs):
  ``train(X, y, seed) -> Victim`` trains a model of the same kind, with the same
  hyperparameters and defense, on the given records; ``name`` says what it is. Optional
  attributes: ``privacy`` — ``(epsilon, delta)`` of every trained model when the kind is
  differentially private (the attacks then print the DP bounds TPR ≤ e^ε·FPR + δ and the
  accuracy cap beside what they measure), ``guarantee`` — the statement as text.

``X`` is always the flat (n, d) record array of a :class:`core.modelprivacy.data.Dataset`;
a kind that needs another view (the recurrent network's sequences) makes it itself.
Everything an attack derives per record comes from :func:`confidences`, :func:`losses` and
:func:`logit_confidence`.

Examples
--------
>>> from core.modelprivacy.data import load_dataset
>>> d = load_dataset("wine")
>>> kind = NumpyVictimKind("ffnn", d, epochs=5)
>>> v = kind.train(d.X[:40], d.y[:40], seed=1)
>>> p = confidences(v, d.X[:3])
>>> p.shape, bool(np.allclose(p.sum(axis=1), 1.0))
((3, 3), True)
>>> bool(np.all(losses(v, d.X[:3], d.y[:3]) > 0))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from core.common.errors import InputError
from core.modelprivacy.data import Dataset, as_sequences
from core.modelprivacy.models import DpSgd, Network, TrainConfig, train, train_steps

__all__ = ["Victim", "VictimKind", "confidences", "losses", "logit_confidence",
           "NumpyVictim", "NumpyVictimKind", "ATTACK_DEFENSES", "DpCalibration",
           "dpsgd_calibration", "ScheduledVictimKind"]

#: The defenses a :class:`NumpyVictimKind` trains with (the model-level ones).
ATTACK_DEFENSES = ("none", "dpsgd")


@runtime_checkable
class Victim(Protocol):
    """A trained model as an attack sees it: confidence vectors on given records."""

    def predict_proba(self, X: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class VictimKind(Protocol):
    """How to train a model of the victim's kind (the attacker knows the algorithm)."""

    name: str

    def train(self, X: np.ndarray, y: np.ndarray, seed: int) -> Victim: ...


def confidences(victim: Victim, X: np.ndarray) -> np.ndarray:
    """``victim.predict_proba(X)`` checked: (n, classes), finite, rows summing to 1.

    Raises
    ------
    ValueError
        The victim returned something else (named).
    """
    p = np.asarray(victim.predict_proba(X), dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != X.shape[0] or not np.all(np.isfinite(p)) \
            or not np.allclose(p.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError(f"{type(victim).__name__}.predict_proba must return finite "
                         f"(n, classes) rows summing to 1, got shape {p.shape}")
    return p


def losses(victim: Victim, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-record cross-entropy −ln p_y (from ``logits`` when the victim has them)."""
    z = _logits(victim, X)
    if z is not None:
        zmax = z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z - zmax).sum(axis=1)) + zmax[:, 0]
        result: np.ndarray = lse - z[np.arange(y.size), y]
        return result
    p = confidences(victim, X)
    result = -np.log(np.clip(p[np.arange(y.size), y], 1e-300, 1.0))
    return result


def logit_confidence(victim: Victim, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """LiRA's statistic φ = ln(p_y / (1 − p_y)) per record (Carlini et al. 2022).

    From logits: z_y − logsumexp(z_{≠y}), stable where p_y rounds to 1; from probabilities:
    ln p_y − ln Σ_{j≠y} p_j, with the sum floored at 1e-300.
    """
    z = _logits(victim, X)
    n = y.size
    if z is not None:
        others = z.copy()
        others[np.arange(n), y] = -np.inf
        om = others.max(axis=1, keepdims=True)
        lse = np.log(np.exp(others - om).sum(axis=1)) + om[:, 0]
        result: np.ndarray = z[np.arange(n), y] - lse
        return result
    p = confidences(victim, X)
    py = p[np.arange(n), y]
    rest = np.clip(p.sum(axis=1) - py, 1e-300, None)
    result = np.log(np.clip(py, 1e-300, None)) - np.log(rest)
    return result


def _logits(victim: Victim, X: np.ndarray) -> np.ndarray | None:
    fn = getattr(victim, "logits", None)
    if fn is None:
        return None
    z = np.asarray(fn(X), dtype=np.float64)
    if z.ndim != 2 or z.shape[0] != X.shape[0] or not np.all(np.isfinite(z)):
        raise ValueError(f"{type(victim).__name__}.logits must return finite (n, classes)")
    return z


@dataclass(frozen=True)
class DpCalibration:
    """DP-SGD's noise calibrated to a target (ε, δ) from public parameters only."""

    sigma: float
    sample_rate: float
    steps: int
    privacy: tuple[float, float]
    guarantee: str


def dpsgd_calibration(epsilon: float | None, delta: float | None, n_train: int | None,
                      cfg: TrainConfig) -> DpCalibration:
    """σ for a victim kind trained by DP-SGD with schedule ``cfg`` on ``n_train`` records
    (public): q = batch/n_train, ``train_steps(n_train, cfg)`` steps, σ the smallest noise
    multiplier whose ε (``dp-accounting`` RDP, add/remove-one) meets the target. Every
    victim kind that trains with DP-SGD (the numpy networks here, the JAX networks of the
    ``deep`` extra) calibrates through this one function, so its numbers are those of
    ``accountant dpsgd``.

    Parameters
    ----------
    epsilon, delta : float, optional
        The target (default 1 and 1e-5).
    n_train : int
        The public training-set size (fixes q and the steps).
    cfg : TrainConfig
        DP-SGD's schedule (epochs, batch).

    Returns
    -------
    DpCalibration

    Raises
    ------
    InputError
        ``n_train`` missing or < 1 (field ``train_size``).
    """
    from core.privacy.dpsgd import dpsgd_epsilon, noise_for_epsilon

    eps = 1.0 if epsilon is None else float(epsilon)
    dlt = 1e-5 if delta is None else float(delta)
    if n_train is None or int(n_train) < 1:
        raise InputError("DP-SGD needs the training-set size", field="train_size")
    q = min(1.0, cfg.batch / int(n_train))
    steps = train_steps(int(n_train), cfg)
    sigma = noise_for_epsilon(eps, q, steps, dlt)
    acc = dpsgd_epsilon(sigma, q, steps, dlt)
    assert acc.epsilon is not None and math.isfinite(acc.epsilon)
    return DpCalibration(
        sigma=float(sigma), sample_rate=q, steps=steps, privacy=(float(acc.epsilon), dlt),
        guarantee=(f"({acc.epsilon:.3g}, {dlt:g})-DP for every trained model (DP-SGD, sigma "
                   f"{sigma:.4g}, q {q:.4g}, {steps} steps, dp-accounting RDP; "
                   f"{acc.adjacency})"))


class ScheduledVictimKind:
    """Base of the victim kinds that train networks (:class:`NumpyVictimKind`, the JAX
    kinds of :class:`core.deep.victims.NetworkVictimKind`): the plain or the DP-SGD
    schedule, with DP-SGD's σ calibrated once by :func:`dpsgd_calibration` from public
    parameters only, so every such kind states the same (ε, δ) for the same parameters.
    """

    cfg: TrainConfig
    privacy: tuple[float, float] | None
    guarantee: str
    sigma: float | None
    clip: float
    n_train: int | None
    #: DP-SGD's q and number of steps (set only with ``defense="dpsgd"``)
    sample_rate: float
    steps: int

    def _set_schedule(self, defense: str, plain_lr: float, *, epochs: int, batch: int,
                      lr: float | None, epsilon: float | None, delta: float | None,
                      n_train: int | None, clip: float, dp_epochs: int, dp_batch: int,
                      dp_lr: float) -> None:
        """Set :attr:`cfg`, the clip norm and the public ``n_train``; with ``"dpsgd"`` also
        σ, (ε, δ), the guarantee, q and the steps. ``lr`` None: ``dp_lr`` with DP-SGD,
        ``plain_lr`` without a defense."""
        self.privacy = None
        self.guarantee = "none (no defense)"
        self.sigma = None
        self.clip = float(clip)
        self.n_train = None if n_train is None else int(n_train)
        if defense == "dpsgd":
            self.cfg = TrainConfig(epochs=int(dp_epochs), batch=int(dp_batch),
                                   lr=float(lr if lr is not None else dp_lr), momentum=0.0)
            cal = dpsgd_calibration(epsilon, delta, n_train, self.cfg)
            self.sigma, self.privacy, self.guarantee = cal.sigma, cal.privacy, cal.guarantee
            self.sample_rate, self.steps = cal.sample_rate, cal.steps
        else:
            self.cfg = TrainConfig(epochs=int(epochs), batch=int(batch),
                                   lr=float(lr if lr is not None else plain_lr))


@dataclass(frozen=True, eq=False)
class NumpyVictim:
    """A trained numpy network (:class:`core.modelprivacy.models.Network` and its θ)."""

    net: Network
    theta: np.ndarray
    seq_shape: tuple[int, int] | None = None

    def _view(self, X: np.ndarray) -> np.ndarray:
        return as_sequences(X, self.seq_shape) if self.seq_shape is not None else X

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.net.predict_proba(self.theta, self._view(X))

    def logits(self, X: np.ndarray) -> np.ndarray:
        return self.net.logits(self.theta, self._view(X))


class NumpyVictimKind(ScheduledVictimKind):
    """The lab's numpy victims as a :class:`VictimKind`: ``ffnn`` or ``rnn``, trained with
    mini-batch SGD, or with DP-SGD calibrated to (ε, δ) for ``n_train`` records.

    Parameters
    ----------
    kind : {"ffnn", "rnn"}
        The architecture.
    data : Dataset
        Fixes the input shape, the classes and the recurrent view.
    hidden, epochs, batch, lr : int, int, int, float
        Plain training (lr default: 0.1 ffnn, 0.05 rnn).
    defense : {"none", "dpsgd"}
        DP-SGD needs ``epsilon``, ``delta`` and ``n_train`` (σ is calibrated once, from
        public parameters only).
    epsilon, delta : float, optional
        DP-SGD's target.
    n_train : int, optional
        The public training-set size (DP-SGD's schedule: q = batch/n_train, the steps and the
        normaliser are fixed by it whatever the actual number of records, so the
        accountant's (q, T) is what runs; :class:`core.modelprivacy.models.DpSgd`).
    clip, dp_epochs, dp_batch, dp_lr : float, int, int, float
        DP-SGD's clip norm and schedule.
    """

    def __init__(self, kind: str, data: Dataset, *, hidden: int = 32, epochs: int = 60,
                 batch: int = 32, lr: float | None = None, defense: str = "none",
                 epsilon: float | None = None, delta: float | None = None,
                 n_train: int | None = None, clip: float = 1.0, dp_epochs: int = 20,
                 dp_batch: int = 64, dp_lr: float = 0.5):
        if kind not in ("ffnn", "rnn"):
            raise InputError(f"the attacks train ffnn or rnn victims, got {kind!r}",
                             field="victim")
        if defense not in ATTACK_DEFENSES:
            raise InputError(f"the LiRA and loss attacks support the defenses "
                             f"{', '.join(ATTACK_DEFENSES)}, got {defense!r}", field="defense")
        self.kind, self.defense = kind, defense
        self.seq_shape = data.seq_shape if kind == "rnn" else None
        in_shape = (self.seq_shape if self.seq_shape is not None else (data.X.shape[1],))
        self.net = Network(kind, tuple(in_shape), data.classes, int(hidden))
        self._set_schedule(defense, 0.1 if kind == "ffnn" else 0.05, epochs=epochs,
                           batch=batch, lr=lr, epsilon=epsilon, delta=delta, n_train=n_train,
                           clip=clip, dp_epochs=dp_epochs, dp_batch=dp_batch, dp_lr=dp_lr)
        self.name = f"{kind} ({'DP-SGD' if defense == 'dpsgd' else 'no defense'})"

    def train(self, X: np.ndarray, y: np.ndarray, seed: int) -> NumpyVictim:
        """Train one model on (X, y) with ``seed`` for initialisation, order and noise."""
        rng = np.random.default_rng(int(seed))
        Xv = as_sequences(X, self.seq_shape) if self.seq_shape is not None else X
        dp = (DpSgd(self.sigma, self.clip, public_n=self.n_train) if self.sigma is not None
              else None)
        theta = train(self.net, Xv, np.asarray(y), self.cfg, rng=rng, dp=dp)
        return NumpyVictim(self.net, theta, self.seq_shape)

    def describe(self) -> dict[str, Any]:
        """The kind's parameters (JSON)."""
        return {"name": self.name, "victim": self.kind, "defense": self.defense,
                "hidden": self.net.hidden, "epochs": self.cfg.epochs, "batch": self.cfg.batch,
                "lr": self.cfg.lr, "sigma": self.sigma,
                "epsilon": self.privacy[0] if self.privacy else None,
                "delta": self.privacy[1] if self.privacy else None}
