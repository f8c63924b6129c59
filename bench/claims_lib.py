"""Shared driver of the ``bench/*_claims.py`` scripts: run a study (core.study) under a
master seed and a second one, test its claims, print the README's tables and write the
whole result as JSON.

Every README claim row states n, the paired difference with its interval, the test and the
(Holm-adjusted) p, and the verdict under the second master seed beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.common.jsonable import dumps  # noqa: E402
from core.study import Claim, Study, run_study, stability_table, summary_table, verdict_stability  # noqa: E402
from core.study.claims import ClaimResult  # noqa: E402
from core.study.runner import StudyResult, point_label  # noqa: E402
from core.study.stats import Equivalence, summarize  # noqa: E402
from core.study.tables import format_interval, format_p  # noqa: E402


def parser(doc: str, *, n: int | None, master_seed: int, second_seed: int
           ) -> argparse.ArgumentParser:
    """The common flags: --n, --master-seed, --second-seed, --workers, --json OUT.

    ``n=None``: the script's studies each have their own default n."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=n, help="replicates per arm (default "
                    + ("each study's own" if n is None else str(n)) + ")")
    ap.add_argument("--master-seed", type=int, default=master_seed)
    ap.add_argument("--second-seed", type=int, default=second_seed,
                    help="re-run every claim under this master seed too (-1: skip)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default=None, metavar="OUT", help="write the results here")
    return ap


def stderr_progress(name: str) -> Callable[[float, str], None]:
    t0 = time.perf_counter()
    last = [0.0]

    def progress(f: float, msg: str = "") -> None:
        now = time.perf_counter()
        if now - last[0] > 10 or f >= 1.0:
            last[0] = now
            print(f"[{name}] {f:5.1%} {now - t0:7.0f} s  {msg}", file=sys.stderr, flush=True)

    return progress


def run_claims(study: Study, claims: Sequence[Claim], args: argparse.Namespace, *,
               metrics: Sequence[str], labels: dict[str, str] | None = None,
               center: str = "median", extra: dict[str, Any] | None = None,
               more_tables: Sequence[tuple[Sequence[str], str]] = ()) -> int:
    """Run, print the summary and stability tables, write JSON; exit status 0.

    ``more_tables``: further summary tables as ``(metrics, center)`` pairs (e.g. a 0/1
    metric's rate with its Clopper–Pearson interval, or means with t intervals)."""
    seeds = [args.master_seed] + ([args.second_seed] if args.second_seed >= 0 else [])
    t0 = time.perf_counter()
    st = verdict_stability(study.with_seed(args.master_seed), claims, seeds,
                           workers=args.workers, progress=stderr_progress(study.name))
    elapsed = time.perf_counter() - t0
    first = st.results[0]
    print(f"## {study.name}: n = {first.n} per arm, master seeds {seeds}, "
          f"{elapsed:.0f} s on {args.workers} workers\n")
    print(summary_table(first, metrics, center=center, labels=labels))
    print()
    for more, how in more_tables:
        print(summary_table(first, more, center=how, labels=labels))
        print()
    print(stability_table(st))
    if args.json:
        payload = {"study": first.to_json(),
                   "second": st.results[1].to_json() if len(st.results) > 1 else None,
                   "claims": st.to_json(), "elapsed_s": elapsed, **(extra or {})}
        Path(args.json).write_text(dumps(payload, indent=1))
    return 0


def run_one(study: Study, args: argparse.Namespace):
    """A study under --master-seed alone (for tables without claims)."""
    return run_study(study.with_seed(args.master_seed), workers=args.workers,
                     progress=stderr_progress(study.name))


def print_canary_table(study: Study, args: argparse.Namespace) -> None:
    """Run a canary-audit study under --master-seed and print ε_lb beside the accountant's ε
    (``args.canary_n`` audits per arm)."""
    res = run_one(study, args)
    print()
    print(f"## {study.name}: n = {args.canary_n} audits per arm, master seed "
          f"{args.master_seed}\n")
    print(summary_table(res, ("epsilon_lb", "epsilon", "canary_auc")))


def _pct(level: float) -> str:
    return f"{100 * level:g} %"


def interval_label(c: ClaimResult) -> str:
    """What a claim row's interval is, as computed: the estimate and the interval's level
    and kind (a TOST reads a 90 % t interval of the mean; the Wilcoxon and sign rows a
    distribution-free order-statistic interval of the median at the study's level)."""
    comp = c.comparison
    if isinstance(comp, Equivalence):
        return f"mean [{_pct(comp.level)} {'t' if comp.test == 't' else 'order-statistic'}]"
    if comp.test == "t":
        return f"mean [{_pct(comp.level)} t]"
    return f"median [{_pct(comp.level)} order-statistic]"


def test_label(c: ClaimResult) -> str:
    """The test of a claim row, short."""
    comp = c.comparison
    if isinstance(comp, Equivalence):
        return f"TOST, {'paired t' if comp.test == 't' else 'Wilcoxon'}, ±{comp.margin:g}"
    return {"wilcoxon": "Wilcoxon signed-rank, two-sided", "t": "paired t, two-sided",
            "sign": "sign test, two-sided"}.get(comp.test, comp.test)


ANECDOTAL_N = 5


def verdict_word(c: ClaimResult) -> str:
    """**holds**, **contradicted** (significant the other way) or not shown; below
    ``ANECDOTAL_N`` pairs *anecdotal*, no verdict."""
    if c.n == 0:
        return "no pairs: no verdict"
    if c.n < ANECDOTAL_N:
        return f"*anecdotal* (n = {c.n}): no verdict"
    if c.holds:
        return "**holds**"
    if c.claim.expect != "=" and c.verdict != "no significant difference":
        return f"**contradicted** ({c.verdict})"
    return "not shown"


def _seed_cell(c: ClaimResult) -> str:
    est, lo, hi, _ = c.estimate()
    return (f"n = {c.n}: {format_interval(est, lo, hi)}; p {format_p(c.p_adjusted)}; "
            f"{verdict_word(c)}")


def _both(cells: "list[ClaimResult]") -> str:
    small = [str(c.master_seed) for c in cells if c.n < ANECDOTAL_N]
    if small:
        return (f"no verdict (n < {ANECDOTAL_N} under master seed{'s' if len(small) > 1 else ''}"
                f" {', '.join(small)})")
    holds = [c.holds for c in cells]
    if len(cells) == 1:
        return ("holds" if holds[0] else "not shown") + " (one master seed only)"
    if all(holds):
        return "holds under " + ("both" if len(cells) == 2 else "every master seed")
    if not any(holds):
        return "not under " + ("either" if len(cells) == 2 else "any master seed")
    yes = ", ".join(str(c.master_seed) for c in cells if c.holds)
    return f"**differs between master seeds**: holds under {yes} only"


def claims_rows(runs: "Sequence[Sequence[ClaimResult]]", holm_family: str) -> str:
    """The claims table of docs/claims.md: per claim the test, the interval's kind and level,
    the Holm family, and under every master seed n, a − b with its interval, the
    Holm-adjusted p and the verdict; the last column says whether the verdicts agree."""
    seeds = [run[0].master_seed for run in runs]
    lines = ["| claim | test | estimate [interval] | Holm family | "
             + " | ".join(f"master seed {s}: n, a − b, p (Holm), verdict" for s in seeds)
             + " | verdict |",
             "|---|---|---|---|" + "---|" * len(seeds) + "---|"]
    for i, c in enumerate(runs[0]):
        cells = [run[i] for run in runs]
        lines.append("| " + " | ".join([c.claim.text, test_label(c), interval_label(c),
                                        holm_family] + [_seed_cell(x) for x in cells]
                                       + [_both(cells)]) + " |")
    return "\n".join(lines)


def tost_95_note(results: "Sequence[StudyResult]", runs: "Sequence[Sequence[ClaimResult]]"
                 ) -> str:
    """The TOST rows' mean differences with 95 % t intervals too (the TOST's verdict reads
    the 90 % one; the 95 % one is what a two-sided test at α = 0.05 would read)."""
    out = []
    for i, c in enumerate(runs[0]):
        if not isinstance(c.comparison, Equivalence):
            continue
        parts = []
        for res, run in zip(results, runs):
            cl = run[i].claim
            a = res.column(cl.metric, cl.a, cl.point)
            b = res.column(cl.metric, cl.b, cl.point if cl.b_point is None else cl.b_point)
            ok = np.isfinite(a) & np.isfinite(b)
            s = summarize(a[ok] - b[ok], 0.95)
            parts.append(f"{format_interval(s.mean, s.mean_lo, s.mean_hi)} "
                         f"(master seed {res.master_seed})")
        out.append(f"- {c.claim.text}: " + "; ".join(parts))
    if not out:
        return ""
    return ("The same mean differences with **95 %** t intervals (the TOST above reads the "
            "90 % ones):\n\n" + "\n".join(out))


def claims_from_saved(saved_run: "Sequence[dict[str, Any]]", result: StudyResult
                      ) -> list[Claim]:
    """The claims a saved run tested (the ``claims`` part of a ``--json`` file: one entry
    per claim), rebuilt as :class:`Claim` on ``result``'s points, so that a family whose
    claims are not otherwise known is re-tested from its values."""
    labels = [point_label(p) for p in result.points]
    out = []
    for d in saved_run:
        where = str(d["point"]).split(" vs ")
        point = labels.index(where[0])
        b_point = labels.index(where[1]) if len(where) > 1 else None
        comp = d.get("comparison", {})
        eq = d["expect"] == "="
        b_metric = d.get("b_metric")
        out.append(Claim(d["claim"], d["metric"], d["a"], d["b"], d["expect"], point=point,
                         b_point=b_point, margin=float(comp["margin"]) if eq else math.nan,
                         test=comp.get("test"), alpha=float(d.get("alpha", 0.05)),
                         b_metric=None if b_metric in (None, d["metric"]) else b_metric))
    return out


__all__ = ["parser", "run_claims", "run_one", "print_canary_table", "stderr_progress", "json",
           "claims_rows", "tost_95_note", "claims_from_saved", "interval_label", "test_label",
           "verdict_word"]
