"""DP-DRL's claims as a paired many-seed study (README, Private learning agents).

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
    python bench/drl_claims.py --sizes 12x11 --epsilons 0.1,16 --n 8
    python bench/drl_claims.py --tables-from A.json,B.json   # re-print saved results
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import claims_rows, parser, run_claims, tost_95_note  # noqa: E402

from core.gridworld.study import choice_table, drl_claims, drl_claims_study  # noqa: E402
from core.study import (  # noqa: E402
    Stability,
    StudyResult,
    evaluate_claims,
    stability_table,
    summary_table,
)
from core.study.tables import format_interval  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__, n=20, master_seed=2029, second_seed=8)
    ap.add_argument("--sizes", default="7x7", help="map sizes, e.g. 7x7,9x9,12x11 (12x11: "
                                                   "the fixed stand-in)")
    ap.add_argument("--epsilons", default="0.1,1,4,16")
    ap.add_argument("--episodes", type=int, default=1500)
    ap.add_argument("--max-steps", type=int, default=200)
    ap.add_argument("--population", type=int, default=50, help="GA population")
    ap.add_argument("--generations", type=int, default=100, help="GA generations")
    ap.add_argument("--tables-from", default=None, metavar="A.json[,B.json]",
                    help="no runs: print the tables and claims of results this script wrote "
                         "(one file per master seed; the first is the main one)")
    args = ap.parse_args(argv)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    eps = sorted(float(e) for e in args.epsilons.split(","))
    print("The strict choice's reach (every map: S = N − 1)\n")
    print(choice_table())
    print()
    if args.tables_from:
        return reprint([Path(f) for f in args.tables_from.split(",")])
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


def reprint(files: list[Path]) -> int:
    """The tables and claims of saved results (``--json`` of earlier runs, one per master
    seed), evaluated with the current claims; the first file's study is the main one."""
    results = []
    for f in files:
        data = json.loads(f.read_text())
        results.append(StudyResult.from_json(data["study"]))
        if data.get("second"):
            results.append(StudyResult.from_json(data["second"]))
    first = results[0]
    sizes = [str(p["size"]) for p in first.points]
    eps = sorted(float(a.split("=", 1)[1]) for a in first.arms if a.startswith("eps="))
    claims = drl_claims(sizes, eps)
    runs = tuple(evaluate_claims(r, claims) for r in results)
    print(f"## {first.name}: n = {first.n} per arm, master seeds "
          f"{[r.master_seed for r in results]}\n")
    for metric, center in ((("nrr",), "median"), (("nrr_converged",), "median"),
                           (("nrr_failed",), "median"), (("nrr", "nrr_converged"), "mean"),
                           (("converged",), "rate"), (("choice_p_max",), "median")):
        for r in results:
            print(summary_table(r, metric, center=center))
            print()
    print(stability_table(Stability(tuple(r.master_seed for r in results), runs,
                                    tuple(results))))
    print()
    print(readme_rows(first, runs, tuple(results)))
    return 0


def _cell(r: StudyResult, metric: str, arm: str, p: int, center: str) -> str:
    s = r.summary(metric, arm, p)
    if s.n == 0:
        return "—"
    c, lo, hi = s.interval(center)
    if center == "rate":
        k = int(round(c * s.n))
        return f"{k}/{s.n} [{lo:.2f}, {hi:.2f}]"
    text = format_interval(c, lo, hi)
    return text if s.n == r.n else f"{text} (n = {s.n})"


def readme_rows(first: StudyResult, runs: "tuple[tuple[Any, ...], ...]",
                results: "tuple[StudyResult, ...] | None" = None) -> str:
    """docs/claims.md's tables of one map: per arm (the main master seed's run), and per
    claim with n, the interval's kind and level, the test, the Holm family and the verdict
    under every master seed; with ``results``, the TOST rows' 95 % intervals too."""
    lv = f"{100 * first.level:g} %"
    lines = [f"Master seed {first.master_seed}, n = {first.n} seeds per arm:", "",
             f"| map | defense | n | NRR median [{lv} order-statistic] | NRR mean [{lv} t] | "
             f"converged [{lv} Clopper–Pearson] | NRR, converged runs (median) | "
             "NRR, failed runs (median) |", "|---|---|---|---|---|---|---|---|"]
    for p, point in enumerate(first.points):
        for arm in first.arms:
            lines.append("| " + " | ".join([
                str(point["size"]), "none" if arm == "none" else f"DP-DRL ε = {arm[4:]}",
                str(first.n), _cell(first, "nrr", arm, p, "median"),
                _cell(first, "nrr", arm, p, "mean"), _cell(first, "converged", arm, p, "rate"),
                _cell(first, "nrr_converged", arm, p, "median"),
                _cell(first, "nrr_failed", arm, p, "median")]) + " |")
    sizes = sorted({str(pt["size"]) for pt in first.points})
    family = f"the {len(runs[0])} claims of the {', '.join(sizes)} run"
    lines += ["", claims_rows(runs, family)]
    if results is not None:
        note = tost_95_note(results, runs)
        if note:
            lines += ["", note]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
