"""What the Private agents workspace runs in its worker (Qt-free functions of the core, with
the worker's ``progress``): the one entry point of each action, as the command line calls it."""

from __future__ import annotations

from typing import Any

from core.comarl.release import ComarlParameters, ComarlRun, comarl_release
from core.gridworld import GridMap
from core.gridworld.release import (
    DrlParameters,
    DrlRun,
    DrlTableParameters,
    drl_release,
    drl_table_release,
)

__all__ = ["train_task", "sweep_task", "team_task"]


def train_task(params: DrlParameters, grid: GridMap, *, progress: Any) -> DrlRun:
    """``drl``: train on ``grid`` (tables) and attack, as ``params`` asks."""
    return drl_release(params, progress, grid=grid)


def sweep_task(params: DrlTableParameters, grid: GridMap, *, progress: Any) -> Any:
    """Compare ε (no defense and every ε of Tables 5.1/5.3) on ``grid``, as ``params``
    asks."""
    return drl_table_release(params, progress, grid=grid)


def team_task(params: ComarlParameters, *, progress: Any) -> ComarlRun:
    """``comarl``: PE-VDN and plain VDN with Q-tables, as ``params`` asks."""
    return comarl_release(params, progress)
