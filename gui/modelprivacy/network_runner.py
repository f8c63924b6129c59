"""The JAX network victims in the Model privacy workspace (the optional ``deep`` extra).

The only module of this workspace that imports :mod:`core.deep` (an import-linter contract
allows ``gui.*.network_runner`` and nothing else), and only inside its functions: without JAX
the victim list simply has no network entries and the panel works as before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NETWORK_ITEMS", "add_network_victims", "networks_for", "victim_kind"]

#: the victim combo's network entries: key, text
NETWORK_ITEMS = (("mlp", "MLP 2 x hidden (JAX)"), ("cnn", "CNN (JAX)"),
                 ("gru", "GRU (JAX)"), ("lstm", "LSTM (JAX)"))


def add_network_victims(combo: Any) -> bool:
    """Append the network victims to ``combo`` when the ``deep`` extra is installed.

    Parameters
    ----------
    combo : QComboBox
        The victim combo (items: text, key).

    Returns
    -------
    bool
        True when the entries were added.
    """
    from core.deep import available

    if not available():
        return False
    for key, text in NETWORK_ITEMS:
        combo.addItem(text, key)
    return True


def networks_for(victim: str) -> Any:
    """``networks=`` of :func:`core.modelprivacy.study.run_mia` for ``victim`` (None for the
    numpy and tabular victims; raises the one-line :class:`~core.deep.DeepUnavailable`
    naming the extra when a network is asked for without JAX)."""
    if victim not in {k for k, _ in NETWORK_ITEMS}:
        return None
    from core.deep import require

    require("victim")
    from core.deep.victims import network_victim

    return network_victim


def victim_kind(victim: str, data: Any, *, cancelled: Any = None, **params: Any) -> Any:
    """The :class:`~core.modelprivacy.victim.VictimKind` of the population study and the
    canary audit: the numpy kind for ``ffnn``/``rnn``, the JAX network kind for a network
    (the one-line :class:`~core.deep.DeepUnavailable` without JAX), whose training polls
    ``cancelled`` once per epoch.

    Parameters
    ----------
    victim : str
        ffnn, rnn, mlp, cnn, gru or lstm.
    data : Dataset
        The data set.
    cancelled : callable, optional
        Polled per epoch by a network's training (the numpy kinds train in well under the
        task's progress step).
    **params
        The kind's parameters (defense, epsilon, delta, n_train).

    Returns
    -------
    VictimKind
    """
    if victim not in {k for k, _ in NETWORK_ITEMS}:
        from core.modelprivacy.victim import NumpyVictimKind

        return NumpyVictimKind(victim, data, **params)
    from core.deep import require

    require("victim")
    from core.deep.victims import NetworkVictimKind

    return NetworkVictimKind(victim, data, cancelled=cancelled, **params)
