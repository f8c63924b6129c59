"""The JAX network victims in the Model privacy workspace (the optional ``deep`` extra).

The only module of this workspace that imports :mod:`core.deep` (an import-linter contract
allows ``gui.*.network_runner`` and nothing else), and only inside its functions: without JAX
the victim list simply has no network entries and the panel works as before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NETWORK_ITEMS", "add_network_victims", "networks_for"]

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
