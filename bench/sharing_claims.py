"""The kickstarting paper's claims against the tabular version (README, Policy sharing).

For each environment and vanishing coefficient c: the teacher's ledger total (over every noisy
student run: the budget is the teacher's) and stop, and the
iterations until each student's median J reaches half of J(π_T) ("none" is the same learner
without a teacher: the teacher learning from scratch). Seed 1, 10 seeds × 300 iterations;
about a minute. Needs gymnasium (the gym extra) for the FrozenLake rows.

Usage::

    python bench/sharing_claims.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.mdp.examples import corridor  # noqa: E402
from core.sharing.gym_import import gym_available, import_gym  # noqa: E402
from core.sharing.learning import SharingSetup, run_sharing  # noqa: E402


def first(curve: np.ndarray, level: float) -> int | None:
    idx = np.flatnonzero(curve >= level)
    return int(idx[0]) if idx.size else None


def main() -> int:
    envs = [("corridor 12", corridor(12), 2.0)]
    if gym_available():
        envs = [("FrozenLake 4x4", import_gym("gym:FrozenLake-v1"), 5.0), *envs,
                ("FrozenLake 8x8", import_gym("gym:FrozenLake-v1:8x8"), 5.0)]
    for name, mdp, lr in envs:
        for c in (0.1, 0.3, 0.9):
            st = SharingSetup(k0=5.0, coef=c, eta=0.1, delta=1e-3, budget=(1e4, 0.9),
                              iterations=300, lr=lr, draws=50_000)
            r = run_sharing(mdp, st, seeds=10, seed=1)
            med = {k: np.median(v, axis=0) for k, v in r.curves.items()}
            its = {k: first(m, 0.5 * r.teacher_value) for k, m in med.items()}
            e, d = r.ledger.totals
            print(f"{name}, c = {c}: ledger ({e:.4g}, {d:.3g}), stop {r.ledger.stopped_at}; "
                  "iterations to half of J(pi_T): "
                  + ", ".join(f"{k} {v if v is not None else 'never'}" for k, v in its.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
