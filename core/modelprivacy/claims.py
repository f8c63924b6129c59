"""The model privacy lab as many-seed studies: arms for :mod:`core.study`.

:func:`population_arm` is one replicate of the population study
(:func:`core.modelprivacy.attacks.attack_study`): its seed draws the population, the halves,
every model's initialisation, batch order and DP noise, and the shadow attack's MLP. Arms
that share a seed share the population and the halves (a paired design: "rnn − ffnn" is
measured on the same records). :func:`canary_arm` is one canary audit
(:func:`core.modelprivacy.canary.canary_audit`).

The README's claims (:func:`mia_claims`): the RNN leaks more than the feed-forward network —
also against a feed-forward network whose generalisation gap is larger than the RNN's (the
confound the issue names); LiRA beats the loss and the shadow-model attacks on the same
victims; DP-SGD lowers what LiRA finds.

Examples
--------
>>> r = population_arm(1, data="wine", victim="ffnn", train_size=30, models=4, epochs=5,
...                    attacks=("loss",))
>>> sorted(r)
['auc_loss', 'gap', 'test_accuracy', 'tpr01_loss', 'train_accuracy']
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from core.modelprivacy.attacks import ATTACKS, attack_study
from core.modelprivacy.canary import canary_audit
from core.modelprivacy.data import Dataset, load_dataset
from core.modelprivacy.victim import NumpyVictimKind, VictimKind
from core.study.claims import Claim
from core.study.runner import Arm, Study

__all__ = ["population_arm", "population_metrics", "canary_arm", "canary_metrics",
           "metric_name", "mia_claims_study", "mia_claims", "canary_study"]


@lru_cache(maxsize=8)
def _data(spec: str) -> Dataset:
    return load_dataset(spec)


def metric_name(attack: str, what: str = "auc") -> str:
    """``auc_lira_online`` etc.: the metric of ``attack`` (``what``: ``auc`` or ``tpr01``)."""
    return f"{what}_{attack.replace('-', '_')}"


def population_arm(seed: int, *, data: str = "digits", victim: str = "ffnn",
                   defense: str = "none", epsilon: float | None = None,
                   delta: float | None = None, train_size: int = 224, models: int = 8,
                   hidden: int = 32, epochs: int = 60, lr: float | None = None,
                   attacks: Sequence[str] = ATTACKS) -> dict[str, float]:
    """One population study; its metrics.

    Parameters
    ----------
    seed : int
        The replicate's seed (all of the study's randomness).
    data, victim, defense, epsilon, delta, train_size, models, hidden, epochs, lr
        As in :class:`core.modelprivacy.victim.NumpyVictimKind` and
        :func:`core.modelprivacy.attacks.attack_study`.
    attacks : sequence of str
        The attacks run.

    Returns
    -------
    dict
        ``auc_<attack>`` (median AUC over the victims), ``tpr01_<attack>`` (pooled TPR at
        FPR 1 %, NaN where the non-members do not resolve it), ``gap`` (median
        generalisation gap: train − test accuracy), ``train_accuracy``, ``test_accuracy``.
    """
    d = _data(data)
    kind = NumpyVictimKind(victim, d, hidden=hidden, epochs=epochs, lr=lr, defense=defense,
                           epsilon=epsilon, delta=delta, n_train=train_size)
    return population_metrics(kind, d, seed, train_size=train_size, models=models,
                              attacks=attacks)


def population_metrics(kind: VictimKind, d: Dataset, seed: int, *, train_size: int,
                       models: int, attacks: Sequence[str] = ATTACKS) -> dict[str, float]:
    """:func:`population_arm`'s metrics for any :class:`~core.modelprivacy.victim.VictimKind`
    (the JAX networks' arms of :mod:`core.deep.claims` call it with theirs)."""
    st = attack_study(kind, d, train_size=train_size, models=models, attacks=tuple(attacks),
                      seed=seed, fprs=(0.01,))
    out: dict[str, float] = {"gap": st.generalisation_gap.median,
                             "train_accuracy": st.train_accuracy.median,
                             "test_accuracy": st.test_accuracy.median}
    for a, m in st.attacks.items():
        out[metric_name(a)] = m.auc.median
        t = m.tpr[0]
        out[metric_name(a, "tpr01")] = float(t["tpr"]) if t["resolved"] else float("nan")
    return out


def canary_arm(seed: int, *, data: str = "digits", victim: str = "ffnn",
               defense: str = "none", epsilon: float | None = None,
               delta: float | None = None, train_size: int = 224, canaries: int = 500,
               hidden: int = 32, epochs: int = 60) -> dict[str, float]:
    """One canary audit: ``epsilon_lb``, the accountant's ``epsilon`` (NaN without DP) and
    ``canary_auc``."""
    d = _data(data)
    kind = NumpyVictimKind(victim, d, hidden=hidden, epochs=epochs, defense=defense,
                           epsilon=epsilon, delta=delta, n_train=train_size + canaries // 2)
    return canary_metrics(kind, d, seed, train_size=train_size, canaries=canaries)


def canary_metrics(kind: VictimKind, d: Dataset, seed: int, *, train_size: int,
                   canaries: int) -> dict[str, float]:
    """:func:`canary_arm`'s metrics for any :class:`~core.modelprivacy.victim.VictimKind`."""
    a = canary_audit(kind, d, train_size=train_size, canaries=canaries, seed=seed)
    return {"epsilon_lb": a.epsilon_lb,
            "epsilon": a.epsilon if a.epsilon is not None else float("nan"),
            "canary_auc": a.auc}


#: The README study's victims: (arm, parameters). ``ffnn-h8`` is the feed-forward network
#: with 8 hidden units: its generalisation gap on digits is larger than the RNN's (a claim
#: checks it; the 32-unit network's is smaller), so "rnn leaks more than ffnn-h8" cannot be
#: the gap's doing.
MIA_ARMS: dict[str, dict[str, Any]] = {
    "ffnn": {"victim": "ffnn"},
    "ffnn-h8": {"victim": "ffnn", "hidden": 8},
    "rnn": {"victim": "rnn"},
    "ffnn-dpsgd": {"victim": "ffnn", "defense": "dpsgd", "epsilon": 4.0, "delta": 1e-5},
}


def mia_claims_study(*, n: int = 10, master_seed: int | None = 2028, data: str = "digits",
                     **params: Any) -> Study:
    """The README's membership-inference study: the victims of :data:`MIA_ARMS`, paired.

    Parameters
    ----------
    n : int
        Replicates (each trains ``models`` models per arm).
    master_seed : int or None
        The master seed.
    data : str
        The data set.
    **params
        Passed to every arm (e.g. ``models=8``, ``train_size=224``).

    Returns
    -------
    Study
    """
    arms = [Arm(name, population_arm, {"data": data, **p, **params})
            for name, p in MIA_ARMS.items()]
    return Study(f"membership inference on {data} (population study per replicate)", arms,
                 n=n, master_seed=master_seed)


def mia_claims() -> list[Claim]:
    """The lab's claims on :func:`mia_claims_study` (paired by seed)."""
    lo = metric_name("lira-online")
    return [
        Claim("RNNs leak more than feed-forward networks (LiRA online AUC)", lo, "rnn", "ffnn"),
        Claim("... also against a feed-forward network with a larger generalisation gap "
              "(8 hidden units)", lo, "rnn", "ffnn-h8"),
        Claim("that network's generalisation gap is larger than the RNN's", "gap",
              "ffnn-h8", "rnn", ">"),
        Claim("LiRA (online) beats the loss attack on the same victims (ffnn)", lo, "ffnn",
              "ffnn", b_metric=metric_name("loss")),
        Claim("LiRA (online) beats the shadow-model attack on the same victims (ffnn)", lo,
              "ffnn", "ffnn", b_metric=metric_name("shadow")),
        Claim("LiRA offline beats the loss attack (ffnn)", metric_name("lira-offline"),
              "ffnn", "ffnn", b_metric=metric_name("loss")),
        Claim("DP-SGD (epsilon = 4) lowers LiRA's AUC (ffnn)", lo, "ffnn", "ffnn-dpsgd"),
    ]


def canary_study(*, n: int = 10, master_seed: int | None = 2028, data: str = "digits",
                 **params: Any) -> Study:
    """Canary audits of the feed-forward network without a defense and under DP-SGD at
    ε = 1, 4 and 8 (the accountant's ε beside ε_lb)."""
    arms = [Arm("no defense", canary_arm, {"data": data, **params})]
    for eps in (1.0, 4.0, 8.0):
        arms.append(Arm(f"DP-SGD eps={eps:g}", canary_arm,
                        {"data": data, "defense": "dpsgd", "epsilon": eps, "delta": 1e-5,
                         **params}))
    return Study(f"canary audits on {data}", arms, n=n, master_seed=master_seed)
