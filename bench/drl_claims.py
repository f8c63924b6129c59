"""DP-DRL's claims as a paired many-seed study (README, Private learning agents; issue 28 §4).

One replicate is one run of ``drl --random SIZE --seed S --attack`` (or ``drl example`` for the
12×11 stand-in, a fixed map): the seed draws the map, the exploration, the mechanism's
roulette wheel and the convergence evaluation; ``S + 1`` drives the GA. Arms, paired by seed:
no defense and DP-DRL (strict preset, S = N − 1) at each ε. ε runs past the thesis's range
(0.1–1, where the choice is within 0.08–0.19 of uniform 1/8 for every Q-table) to 4 and 16,
where the choice can be far from uniform (one bit up to 0.51 and 0.998).

Every run reports whether it converged (≥ 90 % of 20 greedy evaluation episodes reach the
goal within twice the shortest path); NRR is shown over all runs, over converged runs and
over failed runs, and the failure rate with its Clopper–Pearson interval.

Usage::

    python bench/drl_claims.py [--n 20] [--sizes 7x7] [--epsilons 0.1,1,4,16] [--json OUT]
    python bench/drl_claims.py --sizes 12x11 --epsilons 0.1,16 --n 12
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.gridworld.study import choice_table, drl_claims, drl_claims_study  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__, n=20, master_seed=2029, second_seed=8)
    ap.add_argument("--sizes", default="7x7", help="map sizes, e.g. 7x7,9x9,12x11 (12x11: "
                                                   "the fixed stand-in)")
    ap.add_argument("--epsilons", default="0.1,1,4,16")
    ap.add_argument("--episodes", type=int, default=1500)
    ap.add_argument("--max-steps", type=int, default=200)
    ap.add_argument("--population", type=int, default=50, help="GA population")
    ap.add_argument("--generations", type=int, default=100, help="GA generations")
    args = ap.parse_args(argv)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    eps = sorted(float(e) for e in args.epsilons.split(","))
    print("The strict choice's reach (every map: S = N − 1)\n")
    print(choice_table())
    print()
    study = drl_claims_study(sizes, epsilons=eps, n=args.n, master_seed=args.master_seed,
                             episodes=args.episodes, max_steps=args.max_steps,
                             population=args.population, generations=args.generations)
    return run_claims(study, drl_claims(sizes, eps), args,
                      metrics=("nrr",),
                      more_tables=[(("nrr_converged",), "median"),
                                   (("nrr_failed",), "median"),
                                   (("nrr", "nrr_converged"), "mean"),
                                   (("converged",), "rate"),
                                   (("choice_p_max",), "median")],
                      extra={"sizes": sizes, "epsilons": eps, "episodes": args.episodes,
                             "population": args.population,
                             "generations": args.generations})


if __name__ == "__main__":
    sys.exit(main())
