"""LiRA, the loss attack and the shadow-model attack on the JAX networks beside the numpy
victims, as a paired many-seed study (README, "Networks on JAX").

One replicate of an arm is one population study on digits: 8 models of the arm's kind, each
on a random half of 448 records (224 members, 224 non-members per victim), every model a
victim in turn with the other 7 as its reference models; LiRA online and offline, the loss
attack and Shokri's shadow-model attack on the same victims. Arms (paired: one seed draws the
same population and halves for every arm; master seed 2028 is the numpy study's, so the
ffnn and rnn replicates are those of ``bench/mia_claims.py``): numpy ffnn and rnn, the JAX
MLP (2 x 32), CNN, GRU (32), LSTM (32), and ffnn, MLP and GRU under DP-SGD at epsilon = 4.
Then canary audits (500 canaries, one run each) of ffnn, MLP and GRU without a defense and at
epsilon = 4.

Usage::

    nice -n 10 .venv/bin/python bench/deep_attack_claims.py [--n 10] [--canary-n 10]
        [--arms ffnn,rnn,mlp,gru,...] [--no-numpy-canaries] [--json OUT]

With master seed 2028 the numpy arms (ffnn, rnn, ffnn-dpsgd) and the numpy canary audits are
the replicates of ``bench/mia_claims.py`` (the same seeds, the same numbers), so the README's
network rows were run with ``--arms mlp,cnn,gru,lstm,mlp-dpsgd,gru-dpsgd
--no-numpy-canaries`` and sit beside those.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, print_canary_table, run_claims  # noqa: E402

from core.deep.claims import (  # noqa: E402
    DEEP_ARMS,
    deep_attack_claims,
    deep_attack_study,
    deep_canary_study,
)

METRICS = ("auc_lira_online", "auc_lira_offline", "auc_loss", "auc_shadow",
           "tpr01_lira_online", "gap", "test_accuracy")


def main() -> int:
    ap = parser(__doc__, n=10, master_seed=2028, second_seed=7)
    ap.add_argument("--canary-n", type=int, default=10, help="canary audits per arm (0: skip)")
    ap.add_argument("--models", type=int, default=8)
    ap.add_argument("--arms", default=",".join(DEEP_ARMS))
    ap.add_argument("--no-numpy-canaries", action="store_true",
                    help="audit the networks only (the numpy rows are bench/mia_claims.py's)")
    args = ap.parse_args()
    arms = [a for a in args.arms.split(",") if a]
    study = deep_attack_study(n=args.n, master_seed=args.master_seed, models=args.models,
                              arms=arms)
    run_claims(study, deep_attack_claims(arms), args, metrics=METRICS)
    if args.canary_n > 0:
        print_canary_table(deep_canary_study(n=args.canary_n, master_seed=args.master_seed,
                                             numpy=not args.no_numpy_canaries), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
