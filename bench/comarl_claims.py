"""Co-MARL's claims as a paired many-seed study (README, Private learning agents).

One replicate is one training run of 400 episodes on a random 7×7 map (the seed draws the
map, the starts and goals, exploration and the secure-sum shares). Arms, paired by seed:
PE-VDN (secure summation), central VDN (the same update computed centrally) and independent
Q-learners on the team reward (IQL), for 2 and 3 agents. Metric: the team return over the
last 10 % of episodes.

Usage::

    python bench/comarl_claims.py [--n 20] [--agents 2,3] [--json OUT]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.comarl.study import comarl_claims, comarl_claims_study  # noqa: E402


def main() -> int:
    ap = parser(__doc__, n=20, master_seed=2028, second_seed=7)
    ap.add_argument("--agents", default="2,3")
    ap.add_argument("--episodes", type=int, default=400)
    args = ap.parse_args()
    agents = [int(a) for a in args.agents.split(",")]
    study = comarl_claims_study(agents, n=args.n, master_seed=args.master_seed,
                                episodes=args.episodes)
    return run_claims(study, comarl_claims(agents), args,
                      metrics=("team_return", "arrived", "q_max"))


if __name__ == "__main__":
    sys.exit(main())
