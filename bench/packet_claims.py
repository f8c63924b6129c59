"""Figs 4.9–4.11 (packet routing with dynamics) and their claims: the README rows.

Runs the three studies of ``core.logistics.packet`` with the settings of the README
(master seed 2029; fig411: dynamism 0, 0.05, 0.1, 0.2, 12 seeds; fig410: ε 0.2, 0.5, 0.8,
12 seeds; fig49: 10 and 20 access points, 10 seeds), prints each table of means with 95 %
intervals and the Holm-adjusted paired claims, re-evaluated under a second master seed
(verdict stability). Each figure is its own study and Holm family (``--figure``; all three
by default). The same numbers come from
``python app.py plan-bench --experiment fig411 --values 0.05,0.1,0.2 --worlds 12 --seed 2029``
and so on.

Usage::

    python bench/packet_claims.py [--figure fig411|fig410|fig49|all] [--n N] [--quick]
        [--workers 2] [--master-seed 2029] [--second-seed 7] [--json OUT.json]

``--n`` replaces every figure's own n (``--quick``: 3, a smoke run); ``--json OUT`` (one
figure only) writes every replicate's values and seeds and the claims, in the format
``bench/claims.py`` saves and checks (families ``packet_fig411``, ``packet_fig410`` and
``packet_fig49``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.logistics.packet import PACKET_METRICS, packet_claims, packet_study  # noqa: E402

MASTER_SEEDS = (2029, 7)
#: each figure's swept values and replicates per arm and point
SETTINGS = {"fig411": {"values": [0.05, 0.1, 0.2], "n": 12},
            "fig410": {"values": [0.2, 0.5, 0.8], "n": 12},
            "fig49": {"values": [10, 20], "n": 10}}


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.split("\n\n")[0], n=None, master_seed=MASTER_SEEDS[0],
                second_seed=MASTER_SEEDS[1])
    ap.add_argument("--quick", action="store_true", help="3 seeds per point (a smoke run)")
    ap.add_argument("--figure", choices=(*SETTINGS, "all"), default="all",
                    help="which figure's study (each is its own Holm family)")
    args = ap.parse_args(argv)
    if args.quick:
        args.n = 3
    names = list(SETTINGS) if args.figure == "all" else [args.figure]
    if args.json and len(names) > 1:
        ap.error("--json writes one study: give --figure fig411, fig410 or fig49")
    for name in names:
        kw = SETTINGS[name]
        study = packet_study(name, n=kw["n"] if args.n is None else args.n,
                             master_seed=args.master_seed, values=kw["values"])
        run_claims(study, packet_claims(study), args, metrics=list(PACKET_METRICS),
                   center="mean")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
