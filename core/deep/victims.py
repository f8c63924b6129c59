"""The JAX networks as victims of the model privacy lab (the lab's
:class:`~core.modelprivacy.models.Victim` interface).

:func:`network_victim` is the factory :func:`core.modelprivacy.study.run_mia` takes as
``networks=``: the lab's study — split, shadow models trained with the victim's algorithm and
defense, the attack, the inversion network, DP-SGD calibrated by ``dp-accounting``, GPM with
the SensitivitySampler — runs on these victims unchanged. A victim keeps one compiled trainer
per training configuration, so the shadows reuse the victim's compiled functions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from core.deep.dpsgd import DpTrainer
from core.deep.nets import NETWORKS, FlatNet
from core.modelprivacy.models import DpSgd, TrainConfig

__all__ = ["NetworkVictim", "network_victim"]


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
