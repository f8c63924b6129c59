"""The thesis's §3.6 claims on DP advising (Experiments 1–3) as studies with claims.

Two studies, each its own Holm family (``--part exp12`` or ``--part exp3``; both by default),
on paired seeds, in both privacy variants (grid points ``thesis`` and ``sound``):

* ``exp12``: the three strategies (:data:`core.advising.thesis_study.EXP12_ARMS`) in
  Experiments 1 and 2. Claims: in Experiment 1 DP and traditional advising end at the final
  convergence ratio of no advice (TOST ±0.5 pp), DP is faster than no advice and than
  traditional advising over epochs 1–250 (AUC250, Wilcoxon), and after epoch 400 DP stays
  within 0.5 pp of no advice (mean CR over epochs 401–700, TOST); in Experiment 2 DP beats
  traditional advising (AUC200), traditional advising is close to no advice (TOST ±1 pp of
  AUC200) and DP gives more advice than traditional advising (advice events).
* ``exp3``: no advice and DP at each ε of Figs 3.8–3.9
  (:data:`core.advising.thesis_study.EXP3_ARMS`). Claims: DP at ε = 2 beats DP at ε = 0.1
  (the ends of "performance rises with ε"; AUC200) and DP at ε = 0.1 is below no advice.

The claims that compare no two arms — the ≈ 92 % asymptote, the ≈ 7 pp size, the monotone
trend over all five ε, budgets running out near epoch 300 — are not tested: :func:`untested`
draws what the saved runs measure for them, with n, under docs/claims.md's claims table
(``bench/claims.py`` renders both from ``bench/data``).
20 replicates, 700 epochs; about 0.3 s of CPU per run, 240 runs per part and master seed.

Usage::

    python bench/advising_claims.py [--part exp12|exp3|both] [--n 20] [--workers 1]
        [--master-seed 2029] [--second-seed 7] [--json OUT.json]

``--json OUT`` (one part only) writes every replicate's values and seeds and the claims, in
the format ``bench/claims.py`` saves and checks (families ``advising_36_exp12`` and
``advising_36_exp3``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from claims_lib import parser, run_claims  # noqa: E402

from core.advising.experiments import spearman  # noqa: E402
from core.advising.thesis_study import (  # noqa: E402
    EXP3_ARMS,
    EXP3_POINTS,
    EXP12_ARMS,
    EXP12_POINTS,
    arm,
)
from core.study import Arm, Claim, Study  # noqa: E402
from core.study.runner import StudyResult  # noqa: E402
from core.study.stats import median_interval, summarize  # noqa: E402

MASTER_SEEDS = (2029, 7)
#: each part: its study's title, arms and grid points
PARTS = {"exp12": ("thesis §3.6, Experiments 1 and 2", EXP12_ARMS, EXP12_POINTS),
         "exp3": ("thesis §3.6, Experiment 3 (ε sweep)", EXP3_ARMS, EXP3_POINTS)}
#: "the same final value" and "drops within 0.5 %": ±0.5 pp of the convergence ratio
FINAL_MARGIN = 0.005
#: "very close" (traditional advising to no advice in Experiment 2): ±1 pp of AUC200, the
#: margin of "a same performance" in core.advising.claims
CLOSE_MARGIN = 0.01


def _point(points: Sequence[dict], experiment: str, variant: str) -> int:
    return next(i for i, p in enumerate(points)
                if p["experiment"] == experiment and p["variant"] == variant)


def claims(part: str) -> list[Claim]:
    """The tested §3.6 claims of one part, thesis variant first."""
    points = PARTS[part][2]
    out: list[Claim] = []
    for v in ("thesis", "sound"):
        if part == "exp3":
            i = _point(points, "exp3", v)
            out += [Claim(f"{v}: Exp 3, DP at ε = 2 > DP at ε = 0.1 (AUC200)", "auc200",
                          "dp eps=2", "dp eps=0.1", ">", point=i),
                    Claim(f"{v}: Exp 3, DP at ε = 0.1 < no advice (AUC200)", "auc200",
                          "dp eps=0.1", "no advice", "<", point=i)]
            continue
        e1, e2 = _point(points, "exp1", v), _point(points, "exp2", v)
        out += [Claim(f"{v}: Exp 1, DP = no advice (final CR, ±0.5 pp)", "cr_final", "dp",
                      "no advice", "=", point=e1, margin=FINAL_MARGIN),
                Claim(f"{v}: Exp 1, traditional = no advice (final CR, ±0.5 pp)", "cr_final",
                      "traditional", "no advice", "=", point=e1, margin=FINAL_MARGIN),
                Claim(f"{v}: Exp 1, DP > no advice (AUC250)", "auc250", "dp", "no advice",
                      ">", point=e1),
                Claim(f"{v}: Exp 1, DP > traditional (AUC250)", "auc250", "dp",
                      "traditional", ">", point=e1),
                Claim(f"{v}: Exp 1, DP = no advice after epoch 400 (mean CR 401–700, "
                      "±0.5 pp)", "cr_late", "dp", "no advice", "=", point=e1,
                      margin=FINAL_MARGIN),
                Claim(f"{v}: Exp 2, DP > traditional (AUC200)", "auc200", "dp", "traditional",
                      ">", point=e2),
                Claim(f"{v}: Exp 2, traditional = no advice (AUC200, ±1 pp)", "auc200",
                      "traditional", "no advice", "=", point=e2, margin=CLOSE_MARGIN),
                Claim(f"{v}: Exp 2, DP gives more advice than traditional (advice events)",
                      "advice", "dp", "traditional", ">", point=e2)]
    return out


def part_study(part: str, n: int, master_seed: int) -> Study:
    """The study of one part (``exp12`` or ``exp3``)."""
    title, arms, points = PARTS[part]
    return Study(title, arms=tuple(Arm(k, arm, p) for k, p in arms.items()), n=n,
                 master_seed=master_seed, points=points)


# ------------------------------------------------------------------- claims not tested
def _pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def _pp_interval(d: np.ndarray) -> str:
    s = summarize(d[np.isfinite(d)], 0.95)
    return f"{100 * s.mean:+.2f} pp [{100 * s.mean_lo:+.2f}, {100 * s.mean_hi:+.2f}]"


def _exp12_cells(res: StudyResult, v: str) -> tuple[str, str]:
    e1 = _point(res.points, "exp1", v)
    final = ", ".join(f"{a} {_pct(float(np.mean(res.column('cr_final', a, e1))))}"
                      for a in res.arms)
    gain = res.column("auc200", "dp", e1) - res.column("auc200", "no advice", e1)
    return final, _pp_interval(gain)


def _exp3_cells(res: StudyResult, v: str) -> tuple[str, str]:
    p = _point(res.points, "exp3", v)
    dp = [a for a in res.arms if a.startswith("dp eps=")]
    eps = [float(a.split("=", 1)[1]) for a in dp]
    means = [float(np.mean(res.column("auc200", a, p))) for a in dp]
    trend = (", ".join(f"ε = {e:g}: {m:.4f}" for e, m in zip(eps, means))
             + f"; Spearman ρ = {spearman(eps, means):.2f}")
    closed = res.column("closed_epoch", "dp eps=1", p)
    ok = closed[np.isfinite(closed)]
    if ok.size == 0:
        return trend, "advice possible until the end in every run"
    lo, hi = median_interval(ok, 0.95)
    where = " [n too small]" if math.isnan(lo) else f" [{lo:g}, {hi:g}]"
    return trend, (f"median epoch {float(np.median(ok)):g}{where}"
                   f" ({ok.size} of {closed.size} runs closed)")


#: per part: (claim, thesis's value, what the cell shows) of the claims not tested
UNTESTED = {
    "exp12": (("Exp 1: all strategies converge to ≈ 92 %", "≈ 92 %",
               "mean final CR per strategy"),
              ("Exp 1: ≈ 7 % gain over no advice, epochs 0–200", "≈ 7 pp",
               "DP − no advice, AUC200: mean [95 % t]")),
    "exp3": (("Exp 3: performance rises with ε (all five ε)", "monotone",
              "mean AUC200 per ε; Spearman ρ of the five means"),
             ("Exp 3: budgets run out ≈ epoch 300 (DP, ε = 1)", "≈ 300",
              "epoch after which no advice was possible: median [95 % order-statistic]")),
}


def untested(part: str, results: Sequence[StudyResult]) -> str:
    """The part's claims that compare no two arms, as measured under every master seed:
    a Markdown table (no test, no verdict)."""
    cells = _exp12_cells if part == "exp12" else _exp3_cells
    seeds = [r.master_seed for r in results]
    lines = ["| Thesis claim (§3.6), not tested | thesis | variant | what is shown | "
             + " | ".join(f"master seed {s} (n = {r.n})" for s, r in zip(seeds, results))
             + " |", "|---|---|---|---|" + "---|" * len(results)]
    for k, (text, thesis, what) in enumerate(UNTESTED[part]):
        for v in ("thesis", "sound"):
            lines.append(f"| {text} | {thesis} | {v} | {what} | "
                         + " | ".join(cells(r, v)[k] for r in results) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.split("\n\n")[0], n=20, master_seed=MASTER_SEEDS[0],
                second_seed=MASTER_SEEDS[1])
    ap.set_defaults(workers=1)
    ap.add_argument("--part", choices=(*PARTS, "both"), default="both",
                    help="which study (each is its own Holm family)")
    args = ap.parse_args(argv)
    parts = list(PARTS) if args.part == "both" else [args.part]
    if args.json and len(parts) > 1:
        ap.error("--json writes one study: give --part exp12 or --part exp3")
    for part in parts:
        study = part_study(part, args.n, args.master_seed)
        run_claims(study, claims(part), args,
                   metrics=("auc200", "auc250", "cr_final", "cr_late", "advice"),
                   center="mean")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
