"""The model privacy lab's claims as a paired many-seed study (the guide's Model privacy
lab page).

One replicate of an arm is one population study on digits: 8 models of the arm's kind, each
on a random half of 448 records (224 members, 224 non-members per victim), every model a
victim in turn with the other 7 as its reference models; LiRA online and offline, the loss
attack and Shokri's shadow-model attack on the same victims. Arms (paired: one seed draws
the same population and halves for every arm): ffnn (32 hidden units), ffnn-h8 (8 units: its
generalisation gap is larger than the RNN's), rnn, ffnn under DP-SGD at ε = 4. Then canary
audits (500 canaries, one run each) without a defense and under DP-SGD at ε = 1, 4, 8:
ε_lb beside the accountant's ε.

Usage::

    python bench/mia_claims.py [--n 10] [--canary-n 10] [--json OUT]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, print_canary_table, run_claims  # noqa: E402

from core.modelprivacy.claims import canary_study, mia_claims, mia_claims_study  # noqa: E402

METRICS = ("auc_lira_online", "auc_lira_offline", "auc_loss", "auc_shadow",
           "tpr01_lira_online", "gap", "test_accuracy")


def main() -> int:
    ap = parser(__doc__, n=10, master_seed=2028, second_seed=7)
    ap.add_argument("--canary-n", type=int, default=10, help="canary audits per arm (0: skip)")
    ap.add_argument("--models", type=int, default=8)
    args = ap.parse_args()
    study = mia_claims_study(n=args.n, master_seed=args.master_seed, models=args.models)
    run_claims(study, mia_claims(), args, metrics=METRICS)
    if args.canary_n > 0:
        print_canary_table(canary_study(n=args.canary_n, master_seed=args.master_seed), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
