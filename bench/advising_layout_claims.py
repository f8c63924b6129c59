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
20 replicates, 700 epochs; about 8 minutes on one core.

Usage::

    python bench/advising_layout_claims.py [--n 20] [--workers 1] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.advising.layout_study import EXP1_ONE_DIFFERENT, arm  # noqa: E402
from core.study import (  # noqa: E402
    Arm,
    Claim,
    Study,
    claims_table,
    summary_table,
    verdict_stability,
)

MASTER_SEEDS = (2029, 7)
VARIANTS = ({"variant": "sound"}, {"variant": "thesis"})
# Experiment 1 also at ε = 10 (noise scale S/ε a tenth of the thesis's): is the gap the noise?
EXP1_POINTS = VARIANTS + ({"variant": "sound", "epsilon": 10.0},
                          {"variant": "thesis", "epsilon": 10.0})
NESTED = {"no advice": {"strategy": "none", "layout": "nested"},
          "traditional": {"strategy": "traditional", "layout": "nested"},
          "dp": {"strategy": "dp", "layout": "nested"}}


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = {}
    for title, arms, points in (
            ("Experiment 1, one-different layout", EXP1_ONE_DIFFERENT, EXP1_POINTS),
            ("nested layout (cases 2 and 3)", NESTED, VARIANTS)):
        study = Study(title, arms=tuple(Arm(k, arm, p) for k, p in arms.items()), n=args.n,
                      master_seed=MASTER_SEEDS[0], points=points)
        stab = verdict_stability(study, claims(points), MASTER_SEEDS, workers=args.workers)
        first = stab.results[0]
        print(f"## {title}\n")
        print(summary_table(first, ("auc200", "cr_final", "advice"), center="mean"))
        print()
        print(claims_table(stab.runs[0]))
        print(f"\nverdicts under master seeds {MASTER_SEEDS}: "
              f"{'stable' if stab.stable else 'NOT stable'}")
        for seed, run in zip(stab.master_seeds[1:], stab.runs[1:]):
            print(f"  master seed {seed}: "
                  + "; ".join(f"{r.claim.text}: {'holds' if r.holds else 'does not hold'}"
                              for r in run))
        print()
        out[title] = {"stability": stab.to_json(), "result": first.to_json()}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
