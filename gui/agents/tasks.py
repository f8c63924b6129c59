"""What the Private agents workspace runs in its worker (Qt-free functions of the core, with
the worker's ``progress``)."""

from __future__ import annotations

from typing import Any

from core.gridworld import GridMap

__all__ = ["train_task", "sweep_task", "team_task"]


def train_task(grid: GridMap, setup: Any, attack: bool, generations: int, seed: int | None, *,
           progress: Any) -> Any:
    from core.common import sub_progress
    from core.gridworld import AttackSetup, recover_map, train_agent

    res = train_agent(grid, setup, seed=seed, progress=sub_progress(progress, 0, 0.6
                                                                     if attack else 1.0))
    att = None
    if attack:
        att = recover_map(grid, res.policy(), AttackSetup(generations=generations),
                          seed=0 if seed is None else seed + 1,
                          progress=sub_progress(progress, 0.6, 1.0))
    return res, att


def sweep_task(grid: GridMap, setup: Any, generations: int, seed: int | None, *,
           progress: Any) -> Any:
    from core.gridworld import AttackSetup, defense_sweep

    return defense_sweep(grid, setup, attack=AttackSetup(generations=generations),
                         seed=0 if seed is None else seed, progress=progress)


def team_task(agents: int, setup: Any, seed: int | None, *, progress: Any) -> Any:
    from core.comarl import team_grid, train_vdn
    from core.common import sub_progress

    team = team_grid(agents, seed=0 if seed is None else seed)
    pe = train_vdn(team, setup, seed=seed, progress=sub_progress(progress, 0, 0.7))
    central = train_vdn(team, setup, seed=seed, central=True,
                        progress=sub_progress(progress, 0.7, 1.0))
    pe.central_seconds = central.seconds
    return pe, central
