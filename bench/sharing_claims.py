"""The kickstarting paper's claims against the tabular version, as a paired many-seed study
(README, Policy sharing).

One replicate is one deployment: a teacher (the optimal policy, η-mixed), one student that
explores (REINFORCE from 8 sampled roll-outs per iteration, 200 iterations), and the
teacher's budget for that student, given as the 40 roll-outs it can afford at k₀ = 5,
c = 0.95, η = 0.1, a target δ of 10⁻⁵ per query (the exact profile, basic composition). Arms
(paired: one seed drives every arm of a replicate): no teacher, the non-private teacher (its
own policy π_T, conventional kickstarting; ``--nonprivate-target mixed`` imitates the η-mixed
π̃_T the private draws centre on instead), and
privacy-aware (λ = 0.5) and -unaware students under PrivPlan's rule (the teacher stops after
its budget) and the paper's (random policies after it). Metric: the student's value J
averaged over the 200 iterations (how fast it learns; "mean"), and J at the end ("final").
The teacher's penalty is weighed by the student's discounted visits (``penalty_weight=
"visits"``, the default; ``--penalty-weight occupancy`` re-runs the old weighting, under which
the teacher does not matter on CliffWalking and Taxi).

Usage::

    python bench/sharing_claims.py [--n 30] [--envs "FrozenLake 4x4,CliffWalking"]
                                   [--penalty-weight visits|occupancy]
                                   [--nonprivate-target teacher|mixed] [--json OUT]

Cost per student run with one BLAS thread (measured, unloaded): FrozenLake and CliffWalking
about 0.3–1 s, Taxi (500 states) about 4 s, plus about 20 s once per worker for Taxi's ledger.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# one BLAS thread per worker: on a shared 2-core machine OpenBLAS's own threads made Taxi's
# 500-state solves 25 times slower (0.29 s against 0.011 s each, measured)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.sharing.learning import SharingSetup  # noqa: E402
from core.sharing.study import ENVIRONMENTS, deployment, sharing_claims, sharing_claims_study  # noqa: E402

DEFAULT_ENVS = ("FrozenLake 4x4", "FrozenLake 8x8", "CliffWalking", "Taxi", "corridor")
PARAMS = dict(iterations=200, rollouts=40, coef=0.95, k0=5.0, eta=0.1, delta=1e-5, lr=5.0,
              episodes=8, steps=100)


def main() -> int:
    ap = parser(__doc__, n=30, master_seed=2028, second_seed=7)
    ap.add_argument("--envs", default=",".join(DEFAULT_ENVS),
                    help=f"comma-separated, of: {', '.join(ENVIRONMENTS)}")
    ap.add_argument("--metric", default="mean", choices=("mean", "final"))
    ap.add_argument("--penalty-weight", default="visits", choices=("visits", "occupancy"),
                    help="how the teacher's penalty is weighed per state (default visits)")
    ap.add_argument("--nonprivate-target", default="teacher", choices=("teacher", "mixed"),
                    help="what the non-private student imitates: the teacher's own policy "
                         "(default) or the eta-mixed one the Dirichlet draws centre on")
    args = ap.parse_args()
    params = {**PARAMS, "penalty_weight": args.penalty_weight,
              "nonprivate_target": args.nonprivate_target}
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    budgets = {}
    for e in envs:  # the budget each deployment's 40 roll-outs cost (reported)
        setup = SharingSetup(k0=PARAMS["k0"], coef=PARAMS["coef"], eta=PARAMS["eta"],
                             delta=PARAMS["delta"], iterations=PARAMS["iterations"])
        _, _, led, jt, rho, _ = deployment(ENVIRONMENTS[e], setup, PARAMS["rollouts"])
        budgets[e] = {"epsilon": led.budget[0], "delta": led.budget[1],
                      "queries_per_rollout": led.queries_per_rollout,
                      "teacher_value": jt, "reward_scale": rho}
        print(f"{e}: teacher J = {jt:.4g}, reward scale {rho:g}; budget of one deployment "
              f"({led.budget[0]:.4g}, {led.budget[1]:.3g}) = 40 roll-outs of "
              f"{led.queries_per_rollout} queries", flush=True)
    print()
    study = sharing_claims_study(envs, n=args.n, master_seed=args.master_seed, **params)
    return run_claims(study, sharing_claims(envs, args.metric), args,
                      metrics=("mean", "final"), extra={"budgets": budgets,
                                                         "params": params})


if __name__ == "__main__":
    sys.exit(main())
