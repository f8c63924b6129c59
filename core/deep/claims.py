"""The attacks on the JAX networks as a many-seed study, beside the numpy victims
(LiRA, the loss and the shadow attack run on the networks unchanged).

:func:`network_population_arm` is one replicate of the population study
(:func:`core.modelprivacy.attacks.attack_study`) with a
:class:`~core.deep.victims.NetworkVictimKind`, returning the metrics of
:func:`core.modelprivacy.claims.population_arm`; :func:`network_canary_arm` one canary audit.
:func:`deep_attack_study` puts the numpy arms (``ffnn``, ``rnn``) and the network arms in one
paired study: a replicate's seed draws the same population and halves for every arm, so
"GRU − MLP" is measured on the same records. :func:`deep_attack_claims` are the [RNN] paper's
claims as the networks can test them. ``bench/deep_attack_claims.py`` prints the README's
tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from core.deep.victims import NetworkVictimKind
from core.modelprivacy.attacks import ATTACKS
from core.modelprivacy.claims import (
    canary_arm,
    canary_metrics,
    metric_name,
    population_arm,
    population_metrics,
)
from core.modelprivacy.data import Dataset, load_dataset
from core.study.claims import Claim
from core.study.runner import Arm, Study

__all__ = ["network_population_arm", "network_canary_arm", "DEEP_ARMS", "deep_attack_study",
           "deep_attack_claims", "deep_canary_study"]


@lru_cache(maxsize=8)
def _data(spec: str) -> Dataset:
    return load_dataset(spec)


def network_population_arm(seed: int, *, data: str = "digits", victim: str = "mlp",
                           defense: str = "none", epsilon: float | None = None,
                           delta: float | None = None, train_size: int = 224,
                           models: int = 8, hidden: int = 32, epochs: int = 60,
                           lr: float | None = None,
                           attacks: Sequence[str] = ATTACKS) -> dict[str, float]:
    """One population study of network victims (``victim``: mlp, cnn, gru, lstm); the
    metrics of :func:`core.modelprivacy.claims.population_arm`.

    Parameters
    ----------
    seed : int
        The replicate's seed (all of the study's randomness).
    data, victim, defense, epsilon, delta, train_size, models, hidden, epochs, lr
        As in :class:`core.deep.victims.NetworkVictimKind` and
        :func:`core.modelprivacy.attacks.attack_study`.
    attacks : sequence of str
        The attacks run.

    Returns
    -------
    dict
        ``auc_<attack>``, ``tpr01_<attack>``, ``gap``, ``train_accuracy``, ``test_accuracy``.
    """
    d = _data(data)
    kind = NetworkVictimKind(victim, d, hidden=hidden, epochs=epochs, lr=lr, defense=defense,
                             epsilon=epsilon, delta=delta, n_train=train_size)
    return population_metrics(kind, d, seed, train_size=train_size, models=models,
                              attacks=attacks)


def network_canary_arm(seed: int, *, data: str = "digits", victim: str = "mlp",
                       defense: str = "none", epsilon: float | None = None,
                       delta: float | None = None, train_size: int = 224,
                       canaries: int = 500, hidden: int = 32,
                       epochs: int = 60) -> dict[str, float]:
    """One canary audit of a network victim: ``epsilon_lb``, ``epsilon``, ``canary_auc``."""
    d = _data(data)
    kind = NetworkVictimKind(victim, d, hidden=hidden, epochs=epochs, defense=defense,
                             epsilon=epsilon, delta=delta,
                             n_train=train_size + canaries // 2)
    return canary_metrics(kind, d, seed, train_size=train_size, canaries=canaries)


_DP4: dict[str, Any] = {"defense": "dpsgd", "epsilon": 4.0, "delta": 1e-5}

#: The study's arms: (name, numpy or network, parameters); the DP-SGD arms at ε = 4 as in
#: the numpy study of the README.
DEEP_ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    "ffnn": ("numpy", {"victim": "ffnn"}),
    "rnn": ("numpy", {"victim": "rnn"}),
    "mlp": ("network", {"victim": "mlp"}),
    # 2 x 8 units: a larger generalisation gap than the GRU's (a claim checks it), so "the
    # GRU leaks more than mlp-h8" cannot be the gap's doing (the numpy study's ffnn-h8)
    "mlp-h8": ("network", {"victim": "mlp", "hidden": 8}),
    "cnn": ("network", {"victim": "cnn"}),
    "gru": ("network", {"victim": "gru"}),
    "lstm": ("network", {"victim": "lstm"}),
    "ffnn-dpsgd": ("numpy", {"victim": "ffnn", **_DP4}),
    "mlp-dpsgd": ("network", {"victim": "mlp", **_DP4}),
    "gru-dpsgd": ("network", {"victim": "gru", **_DP4}),
}


def deep_attack_study(*, n: int = 10, master_seed: int | None = 2028, data: str = "digits",
                      arms: Sequence[str] | None = None, **params: Any) -> Study:
    """The numpy and the network victims under the same attacks, paired by seed.

    Parameters
    ----------
    n : int
        Replicates per arm.
    master_seed : int or None
        The master seed (2028: the numpy study's, so its ffnn and rnn replicates are the
        README's).
    data : str
        The data set.
    arms : sequence of str, optional
        Names from :data:`DEEP_ARMS` (default all).
    **params
        Passed to every arm (``models=8``, ``train_size=224``, ``attacks=...``).

    Returns
    -------
    Study
    """
    names = list(arms) if arms is not None else list(DEEP_ARMS)
    out = []
    for name in names:
        family, p = DEEP_ARMS[name]
        fn = population_arm if family == "numpy" else network_population_arm
        out.append(Arm(name, fn, {"data": data, **p, **params}))
    return Study(f"membership inference on {data}, numpy and JAX victims (population study "
                 "per replicate)", out, n=n, master_seed=master_seed)


def deep_attack_claims(arms: Sequence[str] | None = None) -> list[Claim]:
    """The [RNN] paper's claims as the networks test them (those whose arms are present)."""
    lo = metric_name("lira-online")
    have = set(arms) if arms is not None else set(DEEP_ARMS)
    claims = [
        Claim("a GRU leaks more than an MLP (LiRA online AUC, gru - mlp)", lo, "gru", "mlp"),
        Claim("an LSTM leaks more than an MLP (LiRA online AUC, lstm - mlp)", lo, "lstm",
              "mlp"),
        Claim("... also than an MLP with a larger generalisation gap (2 x 8 units; gru - "
              "mlp-h8)", lo, "gru", "mlp-h8"),
        Claim("that MLP's generalisation gap is larger than the GRU's (mlp-h8 - gru)", "gap",
              "mlp-h8", "gru"),
        Claim("a GRU leaks more than a CNN (LiRA online AUC, gru - cnn)", lo, "gru", "cnn"),
        Claim("LiRA online beats the loss attack on the same victims (mlp)", lo, "mlp", "mlp",
              b_metric=metric_name("loss")),
        Claim("LiRA online beats the loss attack on the same victims (gru)", lo, "gru", "gru",
              b_metric=metric_name("loss")),
        Claim("DP-SGD (epsilon = 4) lowers LiRA online's AUC (mlp - mlp DP-SGD)", lo, "mlp",
              "mlp-dpsgd"),
        Claim("DP-SGD (epsilon = 4) lowers LiRA online's AUC (gru - gru DP-SGD)", lo, "gru",
              "gru-dpsgd"),
        Claim("at epsilon = 4 the GRU loses more test accuracy than the MLP (mlp DP-SGD - "
              "gru DP-SGD)", "test_accuracy", "mlp-dpsgd", "gru-dpsgd"),
    ]
    return [c for c in claims if c.a in have and c.b in have]


def deep_canary_study(*, n: int = 10, master_seed: int | None = 2028, data: str = "digits",
                      victims: Sequence[str] = ("mlp", "gru"), numpy: bool = True,
                      **params: Any) -> Study:
    """Canary audits of network victims without a defense and under DP-SGD at ε = 4, beside
    the numpy feed-forward network's unless ``numpy`` is False (ε_lb beside the
    accountant's ε)."""
    arms = ([Arm("ffnn", canary_arm, {"data": data, **params}),
             Arm("ffnn DP-SGD eps=4", canary_arm, {"data": data, **_DP4, **params})]
            if numpy else [])
    for v in victims:
        arms.append(Arm(v, network_canary_arm, {"data": data, "victim": v, **params}))
        arms.append(Arm(f"{v} DP-SGD eps=4", network_canary_arm,
                        {"data": data, "victim": v, **_DP4, **params}))
    return Study(f"canary audits on {data}, numpy and JAX victims", arms, n=n,
                 master_seed=master_seed)
