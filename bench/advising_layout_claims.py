"""Advising layouts as studies with claims: Experiment 1 on the thesis's
own layout (every agent one different action) and the nested layout (cases 2 and 3).

Thesis §3.6.1 expects DP advising on ``one-different`` to perform "the same" as traditional
advising among identical sets. The study runs the three arms of
:data:`core.advising.layout_study.EXP1_ONE_DIFFERENT` (and the same three strategies on
``nested``) on paired seeds, at both privacy variants (grid points), and tests:

* DP = traditional (AUC200 within ±1 pp, TOST) — the thesis's expectation;
* DP > no advice and DP < traditional (paired Wilcoxon, Holm-adjusted);

Experiment 1 is also run at ε = 10 (the noise a tenth of the thesis's ε = 1) to show where
the gap to traditional advising comes from;

then repeats the verdicts under a second master seed (:func:`core.study.verdict_stability`).
Each layout is its own study and Holm family (``--part exp1`` or ``--part nested``; both by
default). 20 replicates, 700 epochs; about 8 minutes on one core for both layouts and both
master seeds.

Usage::

    python bench/advising_layout_claims.py [--part exp1|nested|both] [--n 20] [--workers 1]
        [--master-seed 2029] [--second-seed 7] [--json OUT.json]

``--json OUT`` (one part only) writes every replicate's values and seeds and the claims, in
the format ``bench/claims.py`` saves and checks (families ``advising_layout_exp1`` and
``advising_layout_nested``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.advising.layout_study import EXP1_ONE_DIFFERENT, arm  # noqa: E402
from core.study import Arm, Claim, Study  # noqa: E402

MASTER_SEEDS = (2029, 7)
VARIANTS = ({"variant": "sound"}, {"variant": "thesis"})
# Experiment 1 also at ε = 10 (noise scale S/ε a tenth of the thesis's): is the gap the noise?
EXP1_POINTS = VARIANTS + ({"variant": "sound", "epsilon": 10.0},
                          {"variant": "thesis", "epsilon": 10.0})
NESTED = {"no advice": {"strategy": "none", "layout": "nested"},
          "traditional": {"strategy": "traditional", "layout": "nested"},
          "dp": {"strategy": "dp", "layout": "nested"}}
#: each part: its study's title, arms and grid points
PARTS = {"exp1": ("Experiment 1, one-different layout", EXP1_ONE_DIFFERENT, EXP1_POINTS),
         "nested": ("nested layout (cases 2 and 3)", NESTED, VARIANTS)}


def claims(points: tuple[dict, ...]) -> list[Claim]:
    out = []
    for i, v in enumerate(points):
        name = v["variant"] + (f" ε = {v['epsilon']:g}" if "epsilon" in v else "")
        out += [Claim(f"{name}: DP = traditional (AUC200, ±1 pp)", "auc200", "dp",
                      "traditional", "=", point=i, margin=0.01),
                Claim(f"{name}: DP > no advice (AUC200)", "auc200", "dp", "no advice", ">",
                      point=i),
                Claim(f"{name}: DP < traditional (AUC200)", "auc200", "dp", "traditional", "<",
                      point=i)]
    return out


def part_study(part: str, n: int, master_seed: int) -> Study:
    """The study of one layout (``exp1`` or ``nested``)."""
    title, arms, points = PARTS[part]
    return Study(title, arms=tuple(Arm(k, arm, p) for k, p in arms.items()), n=n,
                 master_seed=master_seed, points=points)


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.split("\n\n")[0], n=20, master_seed=MASTER_SEEDS[0],
                second_seed=MASTER_SEEDS[1])
    ap.set_defaults(workers=1)
    ap.add_argument("--part", choices=(*PARTS, "both"), default="both",
                    help="which layout's study (each is its own Holm family)")
    args = ap.parse_args(argv)
    parts = list(PARTS) if args.part == "both" else [args.part]
    if args.json and len(parts) > 1:
        ap.error("--json writes one study: give --part exp1 or --part nested")
    for part in parts:
        study = part_study(part, args.n, args.master_seed)
        run_claims(study, claims(PARTS[part][2]), args, metrics=("auc200", "cr_final", "advice"),
                   center="mean")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
