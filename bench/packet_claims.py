"""Figs 4.9–4.11 (packet routing with dynamics) and their claims: the README rows.

Runs the three studies of ``core.logistics.packet`` with the settings of the README
(master seed 2029; fig411: dynamism 0, 0.05, 0.1, 0.2, 12 seeds; fig410: ε 0.2, 0.5, 0.8,
12 seeds; fig49: 10 and 20 access points, 10 seeds), prints each table of means with 95 %
intervals and the Holm-adjusted paired claims, and re-evaluates the claims under a second
master seed (verdict stability). About 10 min of CPU on 2 cores (an hour on a loaded
machine); the same numbers come from
``python app.py plan-bench --experiment fig411 --values 0.05,0.1,0.2 --worlds 12 --seed 2029``
and so on.

Usage::

    python bench/packet_claims.py [--quick] [--workers W]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.logistics.packet import PACKET_METRICS, packet_claims, packet_study  # noqa: E402
from core.study import (  # noqa: E402
    claims_table,
    evaluate_claims,
    run_study,
    summary_table,
    verdict_stability,
)

SETTINGS = {"fig411": {"values": [0.05, 0.1, 0.2], "n": 12},
            "fig410": {"values": [0.2, 0.5, 0.8], "n": 12},
            "fig49": {"values": [10, 20], "n": 10}}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 seeds per point (a smoke run)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--second-seed", type=int, default=7, help="verdict stability re-run")
    args = ap.parse_args()
    for name, kw in SETTINGS.items():
        n = 3 if args.quick else kw["n"]
        study = packet_study(name, n=n, master_seed=2029, values=kw["values"])
        res = run_study(study, workers=args.workers)
        claims = packet_claims(study)
        print(f"## {study.name}\n")
        print(summary_table(res, list(PACKET_METRICS), center="mean"))
        print()
        print(claims_table(evaluate_claims(res, claims)))
        stab = verdict_stability(study, claims, [2029, args.second_seed],
                                 workers=args.workers)
        print(f"\nverdicts stable under master seeds 2029 and {args.second_seed}: "
              f"{stab.stable}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
