"""The Model privacy workspace's worker functions (run in its TaskRunner, Qt-free; a network
victim on JAX through :mod:`gui.modelprivacy.network_runner`)."""

from __future__ import annotations

from typing import Any

from gui.modelprivacy.network_runner import NETWORK_ITEMS, networks_for, victim_kind

__all__ = ["study", "table", "victims", "attacks", "ATTACK_MODES", "POPULATION_MODELS"]

#: The workspace's attack choices: the single-victim shadow study (recorded, as before),
#: the population study (LiRA online/offline, loss, shadow on the same victims) and the
#: canary audit.
ATTACK_MODES = {"shadow": "shadow model (one victim, recorded)",
                "population": "LiRA + loss + shadow (8 victims)",
                "canary": "canary audit of the training (ε_lb)"}
POPULATION_MODELS = 8


def _data(data_spec: str, mdp: Any, seed: int | None) -> Any:
    from core.modelprivacy.data import load_dataset, mdp_dataset

    return mdp_dataset(mdp, seed=seed or 0) if mdp is not None else load_dataset(data_spec)


def study(data_spec: str, mdp: Any, setup: Any, seed: int | None, *, progress: Any) -> Any:
    from core.modelprivacy.study import run_mia

    return run_mia(_data(data_spec, mdp, seed), setup, seed=seed, progress=progress,
                   networks=networks_for(setup.victim))


def table(data_spec: str, mdp: Any, setup: Any, seed: int | None, *, progress: Any) -> Any:
    from core.modelprivacy.study import defense_table

    return defense_table(_data(data_spec, mdp, seed), setup, seed=seed, progress=progress,
                         networks=networks_for(setup.victim))


def victims(data_spec: str, mdp: Any, setup: Any, seed: int | None, *, progress: Any) -> Any:
    from core.modelprivacy.data import load_dataset
    from core.modelprivacy.study import victim_table

    net = networks_for(setup.victim)   # a chosen network joins the numpy victims
    return victim_table(load_dataset(data_spec), setup, seed=seed, progress=progress,
                        victims=("ffnn", "rnn") + ((setup.victim,) if net else ()), networks=net)


def attacks(data_spec: str, mdp: Any, setup: Any, seed: int | None, *, progress: Any,
            mode: str = "population") -> Any:
    """The population study (every attack on 8 victims) or one canary audit, with the
    CLI's sizes: members = min(500, records/8); canaries = min(500, what is left). The
    victims are the numpy ffnn/rnn or a JAX network (whose training checks the cancel once
    per epoch)."""
    from core.common.errors import InputError
    from core.modelprivacy.attacks import attack_study
    from core.modelprivacy.canary import canary_audit

    if mdp is not None or setup.victim not in ("ffnn", "rnn", *(k for k, _ in NETWORK_ITEMS)) \
            or setup.defense not in ("none", "dpsgd"):
        raise InputError("LiRA, the loss attack and the canary audit train feed-forward, "
                         "recurrent or network victims on a data set of records, without a "
                         "defense or with DP-SGD", field="attack")
    data = _data(data_spec, None, seed)
    n = min(500, data.n // 8)
    m = min(500, data.n - n)
    public_n = n + (m // 2 if mode == "canary" else 0)
    last = [0.0]

    def tracked(fraction: float, message: str = "") -> None:
        last[0] = fraction
        progress(fraction, message)

    def poll() -> bool:
        progress(last[0])        # raises Cancelled once cancel was asked (shows nothing new)
        return False

    kind = victim_kind(setup.victim, data, cancelled=poll, defense=setup.defense,
                       epsilon=setup.epsilon, delta=setup.delta, n_train=public_n)
    if mode == "canary":
        return canary_audit(kind, data, train_size=n, canaries=m, seed=seed,
                            progress=tracked)
    return attack_study(kind, data, train_size=n, models=POPULATION_MODELS, seed=seed,
                        progress=tracked)
