"""The learner choice of the Private agents workspace: tables, or networks on JAX (the
optional ``deep`` extra: a DQN under DP-DRL, PE-VDN with per-agent networks).

The only module of this workspace that imports :mod:`core.deep` (an import-linter contract
allows ``gui.*.network_runner`` and nothing else), and only inside the worker functions:
without JAX the learner lists hold the tabular entry alone and the workspace works as before.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QWidget

from gui.agents.tasks import team_task, train_task

__all__ = ["learner_combo", "train_runner", "team_runner", "train_dqn_task", "team_net_task"]

_ITEMS = {"drl": (("tabular", "tabular Q-learning"), ("dqn", "DQN, 2 x 64 (JAX)")),
          "team": (("tabular", "Q-tables"), ("net", "networks, 32 tanh units per agent (JAX)"))}
_TIPS = {"drl": "The navigation agent: tabular Q-learning, or a DQN (replay, target network) "
                "on the same obfuscated observations (the optional 'deep' extra). The attack "
                "and the privacy statement are the same. Compare ε always uses the tables.",
         "team": "The team's learners: Q-tables, or per-agent networks whose coupling term "
                 "goes through the same secure summation, with DP-SGD on the networks under "
                 "the same replay-window accountant (the optional 'deep' extra)."}


def learner_combo(form: QFormLayout, parent: QWidget, kind: str, running_changed: Any
                  ) -> QComboBox:
    """A "learner" row in ``form`` (``kind``: ``drl`` or ``team``); the network entry only
    when JAX is installed; disabled while the workspace runs."""
    from core.deep import available

    combo = QComboBox(parent)
    for key, text in _ITEMS[kind][: 2 if available() else 1]:
        combo.addItem(text, key)
    combo.setToolTip(_TIPS[kind])
    running_changed.connect(lambda running: combo.setEnabled(not running))
    form.addRow("learner", combo)
    return combo


def train_runner(agent: str) -> Any:
    """The worker function of a DP-DRL run for the learner ``agent`` (``DrlParameters.agent``)."""
    return train_dqn_task if agent == "dqn" else train_task


def team_runner(agent: str) -> Any:
    """The worker function of a team run for the learners ``agent``
    (``ComarlParameters.agent``)."""
    return team_net_task if agent == "net" else team_task


def train_dqn_task(params: Any, grid: Any, *, progress: Any) -> Any:
    """:func:`gui.agents.tasks.train_task` with a DQN (``drl --agent dqn``): the same entry
    point, given the deep extra's trainer."""
    from core.deep import require

    require("learner")
    from core.deep.dqn import train_dqn
    from core.gridworld.release import drl_release

    return drl_release(params, progress, grid=grid, trainer=train_dqn)


def team_net_task(params: Any, *, progress: Any) -> Any:
    """:func:`gui.agents.tasks.team_task` with networks (``comarl --agent net``): the same
    entry point, given the deep extra's trainer (plain VDN's networks beside them)."""
    from core.deep import require

    require("learner")
    from core.comarl.release import comarl_release
    from core.deep.vdn import train_vdn_net

    return comarl_release(params, progress, trainer=train_vdn_net)
