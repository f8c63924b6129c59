"""The JAX networks as victims of the model privacy lab.

Two interfaces, one per kind of study:

* :func:`network_victim` is the factory :func:`core.modelprivacy.study.run_mia` takes as
  ``networks=`` (the lab's :class:`~core.modelprivacy.models.Victim`): the shadow-model
  study — split, shadow models trained with the victim's algorithm and defense, the attack,
  the inversion network, DP-SGD calibrated by ``dp-accounting``, GPM with the
  SensitivitySampler — runs on these victims unchanged. A victim keeps one compiled trainer
  per training configuration, so the shadows reuse the victim's compiled functions.
* :class:`NetworkVictimKind` is a :class:`~core.modelprivacy.victim.VictimKind` (the
  attacker's knowledge of the training algorithm): LiRA online and offline, the loss
  attack, the population shadow attack (:func:`core.modelprivacy.attacks.attack_study`) and
  the canary audit (:func:`core.modelprivacy.canary.canary_audit`) train these networks
  through it unchanged, with DP-SGD calibrated exactly as for the numpy victims
  (:func:`core.modelprivacy.victim.dpsgd_calibration`: the same σ, q and steps for the same
  public parameters, the numbers of ``accountant dpsgd``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.deep.dpsgd import DpTrainer
from core.deep.nets import NETWORKS, FlatNet
from core.modelprivacy.models import DpSgd, TrainConfig
from core.modelprivacy.victim import ATTACK_DEFENSES, ScheduledVictimKind

__all__ = ["NetworkVictim", "network_victim", "NetworkModel", "NetworkVictimKind",
           "NETWORK_LR"]

#: plain SGD's default learning rate per network (the shadow study's, ``mia --model``)
NETWORK_LR = {"mlp": 0.1, "cnn": 0.05, "gru": 0.1, "lstm": 0.1}


class NetworkVictim:
    """A :class:`~core.deep.nets.FlatNet` with its training algorithm (SGD or DP-SGD).

    Parameters
    ----------
    net : FlatNet
        The network.
    """

    def __init__(self, net: FlatNet):
        self.net = net
        self.kind = net.kind
        self.size = net.size
        self._trainers: dict[tuple[TrainConfig, DpSgd | None], DpTrainer] = {}

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """A fresh θ (float64 view of the float32 parameters)."""
        return self.net.init(rng).astype(np.float64)

    def predict_proba(self, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Confidence vectors (n, classes)."""
        return self.net.predict_proba(theta, X)

    def trainer(self, cfg: TrainConfig, dp: DpSgd | None) -> DpTrainer:
        """The compiled trainer of one configuration (cached)."""
        key = (cfg, dp)
        if key not in self._trainers:
            self._trainers[key] = DpTrainer(self.net, cfg, dp)
        return self._trainers[key]

    def fit(self, X: np.ndarray, y: np.ndarray, cfg: TrainConfig, *,
            rng: np.random.Generator, dp: DpSgd | None = None, noise: Any = None,
            cancelled: Callable[[], bool] | None = None) -> np.ndarray:
        """Train on (X, y): SGD with momentum, or DP-SGD when ``dp`` is given.

        Parameters
        ----------
        X, y : numpy.ndarray
            Flat records and labels.
        cfg : TrainConfig
            The schedule.
        rng : numpy.random.Generator
            Initialisation and batch sampling.
        dp : DpSgd, optional
            σ and C.
        noise : Generator or SecureRandom, optional
            Source of the DP noise.
        cancelled : callable, optional
            Polled per epoch.

        Returns
        -------
        numpy.ndarray
            θ.
        """
        return self.trainer(cfg, dp).fit(X, y, rng=rng, noise=noise, cancelled=cancelled)


def network_victim(kind: str, data: Any, hidden: int) -> NetworkVictim:
    """``networks=`` of :func:`core.modelprivacy.study.run_mia`: the network ``kind``
    (one of ``mlp``, ``cnn``, ``gru``, ``lstm``) for the data set.

    Parameters
    ----------
    kind : str
        The architecture.
    data : Dataset
        The lab's data set (flat size, 2-D view, classes).
    hidden : int
        Hidden units.

    Returns
    -------
    NetworkVictim
    """
    assert kind in NETWORKS
    return _victim(kind, int(data.X.shape[1]), tuple(data.seq_shape), int(data.classes),
                   int(hidden))


@lru_cache(maxsize=16)
def _victim(kind: str, d: int, seq_shape: tuple[int, int], classes: int, hidden: int
            ) -> NetworkVictim:
    """One victim per architecture and data shape: its compiled trainers are reused by every
    study of the process (a victim holds no trained state)."""
    return NetworkVictim(FlatNet(kind, d, seq_shape, classes, hidden))


class NetworkModel:
    """One trained network as the attacks see it (:class:`~core.modelprivacy.victim.Victim`):
    confidence vectors and logits on flat records.

    Parameters
    ----------
    net : FlatNet
        The architecture.
    theta : numpy.ndarray
        Its trained parameters.
    """

    def __init__(self, net: FlatNet, theta: np.ndarray):
        self.net, self.theta = net, theta

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Confidence vectors (n, classes), float64."""
        return self.net.predict_proba(self.theta, X)

    def logits(self, X: np.ndarray) -> np.ndarray:
        """Class logits (n, classes), float64 (LiRA's and the loss attack's stable scores)."""
        return self.net.logits(self.theta, X)


class NetworkVictimKind(ScheduledVictimKind):
    """The JAX networks as a :class:`~core.modelprivacy.victim.VictimKind`: ``mlp``, ``cnn``,
    ``gru`` or ``lstm``, trained with mini-batch SGD with momentum, or with DP-SGD
    (per-example clipping, Poisson subsampling, Gaussian noise; :mod:`core.deep.dpsgd`)
    calibrated to (ε, δ) for ``n_train`` records.

    The parameters and their defaults are those of
    :class:`core.modelprivacy.victim.NumpyVictimKind` (plain lr: :data:`NETWORK_LR`), and
    DP-SGD's σ comes from the same :func:`~core.modelprivacy.victim.dpsgd_calibration`: for
    the same public parameters a network kind and a numpy kind state the same (ε, δ).

    Parameters
    ----------
    kind : {"mlp", "cnn", "gru", "lstm"}
        The architecture.
    data : Dataset
        Fixes the flat size, the 2-D view and the classes.
    hidden, epochs, batch, lr : int, int, int, float
        Plain training.
    defense : {"none", "dpsgd"}
        DP-SGD needs ``n_train`` (σ is calibrated once, from public parameters only).
    epsilon, delta : float, optional
        DP-SGD's target (default 1 and 1e-5).
    n_train : int, optional
        The public training-set size: DP-SGD's q = batch/n_train, its steps and normaliser
        (:class:`~core.modelprivacy.models.DpSgd` ``public_n``).
    clip, dp_epochs, dp_batch, dp_lr : float, int, int, float
        DP-SGD's clip norm and schedule.
    cancelled : callable, optional
        Polled once per epoch of every training (the GUI's cancel); True stops it with
        :class:`~core.common.progress.Cancelled`.
    """

    def __init__(self, kind: str, data: Any, *, hidden: int = 32, epochs: int = 60,
                 batch: int = 32, lr: float | None = None, defense: str = "none",
                 epsilon: float | None = None, delta: float | None = None,
                 n_train: int | None = None, clip: float = 1.0, dp_epochs: int = 20,
                 dp_batch: int = 64, dp_lr: float = 0.5,
                 cancelled: Callable[[], bool] | None = None):
        if kind not in NETWORKS:
            raise InputError(f"the attacks train the networks {', '.join(NETWORKS)}, got "
                             f"{kind!r}", field="model")
        if defense not in ATTACK_DEFENSES:
            raise InputError(f"the LiRA and loss attacks support the defenses "
                             f"{', '.join(ATTACK_DEFENSES)}, got {defense!r}", field="defense")
        for name, v in (("hidden", hidden), ("epochs", epochs), ("batch", batch)):
            if isinstance(v, bool) or int(v) != v or v < 1:
                raise InputError(f"must be a whole number >= 1, got {v!r}", field=name)
        if lr is not None and not (math.isfinite(lr) and lr > 0):
            raise InputError(f"must be finite and > 0, got {lr!r}", field="lr")
        if not (math.isfinite(clip) and clip > 0):
            raise InputError(f"must be finite and > 0, got {clip!r}", field="clip")
        self.kind, self.defense, self.cancelled = kind, defense, cancelled
        self.victim = network_victim(kind, data, int(hidden))
        self._set_schedule(defense, NETWORK_LR[kind], epochs=epochs, batch=batch, lr=lr,
                           epsilon=epsilon, delta=delta, n_train=n_train, clip=clip,
                           dp_epochs=dp_epochs, dp_batch=dp_batch, dp_lr=dp_lr)
        self.name = f"{kind} ({'DP-SGD' if defense == 'dpsgd' else 'no defense'}, JAX)"

    def train(self, X: np.ndarray, y: np.ndarray, seed: int) -> NetworkModel:
        """Train one network on (X, y) (flat records) with ``seed`` for initialisation,
        batch order and noise (the numpy kinds' convention: experiment randomness)."""
        rng = np.random.default_rng(int(seed))
        dp = (DpSgd(self.sigma, self.clip, public_n=self.n_train) if self.sigma is not None
              else None)
        theta = self.victim.fit(np.asarray(X), np.asarray(y), self.cfg, rng=rng, dp=dp,
                                cancelled=self.cancelled)
        return NetworkModel(self.victim.net, theta)

    def describe(self) -> dict[str, Any]:
        """The kind's parameters (JSON: the numpy kinds' keys, plus ``backend``)."""
        return {"name": self.name, "victim": self.kind, "defense": self.defense,
                "hidden": self.victim.net.hidden, "epochs": self.cfg.epochs,
                "batch": self.cfg.batch, "lr": self.cfg.lr, "sigma": self.sigma,
                "epsilon": self.privacy[0] if self.privacy else None,
                "delta": self.privacy[1] if self.privacy else None, "backend": "jax"}
