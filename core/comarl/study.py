"""Co-MARL as a many-seed study: team reward over seeds with intervals.

:func:`team_arm` is one training run: its seed draws the map, the starts and goals, the
exploration and the secure-sum shares. Arms that share a seed share the map (paired): PE-VDN
against central VDN (the same algorithm without secure summation: equal up to the
fixed-point encoding), and VDN against independent Q-learners (IQL, the baseline).

Examples
--------
>>> r = team_arm(1, agents=2, algorithm="iql", episodes=20)
>>> sorted(r)
['arrived', 'q_max', 'team_return']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.comarl.vdn import VdnSetup, team_grid, train_vdn
from core.study.claims import Claim
from core.study.runner import Arm, Study

__all__ = ["team_arm", "comarl_claims_study", "comarl_claims"]


def team_arm(seed: int, *, agents: int = 3, algorithm: str = "vdn", central: bool = False,
             episodes: int = 400, size: int = 7, lr: float = 0.2) -> dict[str, float]:
    """One run: ``team_return`` (mean over the last 10 % of episodes), ``arrived`` (1 when
    every agent reached its goal in the last episode) and ``q_max`` (max |Q|: bounded runs
    stay within the returns' range)."""
    team = team_grid(agents, rows=size, cols=size, seed=seed)
    r = train_vdn(team, VdnSetup(episodes=episodes, algorithm=algorithm, lr=lr), seed=seed,
                  central=central)
    last = r.returns[-1]
    # every agent arrived: return N − 0.05·steps ≥ N − 0.05·max_steps; one missing: at most
    # N − 1 − 0.05·max_steps
    arrived = float(last > agents - 0.05 * r.setup.max_steps - 0.5)
    return {"team_return": r.team_return, "arrived": arrived,
            "q_max": float(np.abs(r.q).max())}


def comarl_claims_study(agents: Sequence[int] = (2, 3), *, n: int = 20,
                        master_seed: int | None = 2028, **params: float) -> Study:
    """PE-VDN, central VDN and IQL at each team size, paired by seed."""
    arms = [Arm("pe-vdn", team_arm, {"algorithm": "vdn", **params}),
            Arm("central-vdn", team_arm, {"algorithm": "vdn", "central": True, **params}),
            Arm("iql", team_arm, {"algorithm": "iql", "central": True, **params})]
    return Study("Co-MARL team reward (one map per seed)", arms, n=n, master_seed=master_seed,
                 points=[{"agents": int(a)} for a in agents])


def comarl_claims(agents: Sequence[int] = (2, 3)) -> list[Claim]:
    """The dissertation's claim (PE-VDN learns as VDN does) and VDN against IQL."""
    out = []
    for i, a in enumerate(agents):
        out += [Claim(f"N = {a}: PE-VDN's team return equals central VDN's (±0.05)",
                      "team_return", "pe-vdn", "central-vdn", "=", point=i, margin=0.05),
                Claim(f"N = {a}: VDN beats independent learners (IQL)", "team_return",
                      "central-vdn", "iql", ">", point=i)]
    return out
