"""The DP-DRL comparison in the shape of the thesis's Tables 5.1 and 5.3: no defense, fixed ε
(strict preset) and the thesis's dynamic ε, each trained on the same map and seed and attacked
with the same GA."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.common.progress import Progress, no_progress, sub_progress
from core.gridworld.attack import AttackResult, AttackSetup, recover_map
from core.gridworld.dpdrl import DrlResult, DrlSetup, train_agent
from core.gridworld.maps import GridMap

__all__ = ["SweepRow", "defense_sweep", "sweep_plan", "DEFAULT_EPSILONS"]

DEFAULT_EPSILONS = (1.0, 0.7, 0.4, 0.1)


@dataclass
class SweepRow:
    label: str
    train: DrlResult
    attack: AttackResult

    def to_json(self) -> dict[str, Any]:
        t = self.train
        r = t.rewards
        init = slice(min(len(r) // 5, len(r) - 1), max(len(r) * 2 // 3, 1))
        return {"label": self.label, "defense": t.setup.defense, "preset": t.setup.preset,
                "epsilon": t.setup.epsilon if t.setup.defense == "dpdrl" else None,
                "epsilon_mean_used": t.epsilon_mean, "grr": self.attack.grr,
                "nrr": self.attack.nrr, "baseline_nrr": self.attack.baseline_nrr,
                "reward_initial": float(np.mean(r[init])),
                "steps_initial": float(np.mean(t.steps[init])),
                "reward_final": t.reward_final, "steps_final": t.steps_final,
                "success_final": float(t.reached[t.final_slice].mean()),
                "converged": t.convergence.converged,
                "eval_success": t.convergence.eval_success,
                "time_per_step_s": t.time_per_step_s,
                "obfuscation_s_per_step": (t.obfuscation_s_per_step
                                           if t.setup.defense == "dpdrl" else None),
                "recovered": self.attack.recovered.to_rows()}


def sweep_plan(base: DrlSetup | None = None, *,
               epsilons: tuple[float, ...] = DEFAULT_EPSILONS, dynamic: bool = True
               ) -> list[tuple[str, DrlSetup]]:
    """The rows :func:`defense_sweep` trains, (label, set-up) each: ``base`` without the
    defense (its preset kept), with each fixed ε (strict preset) and, if ``dynamic``, with
    the thesis preset.

    Examples
    --------
    >>> [label for label, _ in sweep_plan(epsilons=(1.0, 0.5))]
    ['No defense', 'ε = 1', 'ε = 0.5', 'Dynamic ε (thesis)']
    """
    base = DrlSetup() if base is None else base
    plan = [("No defense", replace(base, defense="none", epsilon=None))]
    plan += [(f"ε = {e:g}", replace(base, defense="dpdrl", preset="strict", epsilon=e))
             for e in epsilons]
    if dynamic:
        plan.append(("Dynamic ε (thesis)", replace(base, defense="dpdrl", preset="thesis",
                                                  epsilon=None)))
    return plan


def defense_sweep(grid: GridMap, base: DrlSetup | None = None, *,
                  epsilons: tuple[float, ...] = DEFAULT_EPSILONS, dynamic: bool = True,
                  attack: AttackSetup | None = None, seed: int = 0,
                  progress: Progress = no_progress,
                  cancelled: Callable[[], bool] | None = None) -> list[SweepRow]:
    """Train and attack: no defense, each fixed ε, and (``dynamic``) the thesis preset.

    Parameters
    ----------
    grid : GridMap
        The map.
    base : DrlSetup
        Episodes and learning parameters (its defense and ε are replaced per row).
    epsilons : tuple of float
        The fixed-ε rows (strict preset).
    dynamic : bool
        Add the thesis preset's dynamic ε.
    attack : AttackSetup
        The GA.
    seed : int
        The same seed for every row (training and attack).
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    list of SweepRow
    """
    attack = AttackSetup() if attack is None else attack
    plan = sweep_plan(base, epsilons=epsilons, dynamic=dynamic)
    rows = []
    n = len(plan)
    for i, (label, setup) in enumerate(plan):
        p_train = sub_progress(progress, i / n, (i + 0.6) / n)
        p_att = sub_progress(progress, (i + 0.6) / n, (i + 1) / n)
        t = train_agent(grid, setup, seed=seed, progress=p_train, cancelled=cancelled)
        a = recover_map(grid, t.policy(), attack, seed=seed + 1, progress=p_att,
                        cancelled=cancelled)
        rows.append(SweepRow(label, t, a))
    return rows
