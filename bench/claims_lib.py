"""Shared driver of the ``bench/*_claims.py`` scripts: run a study (core.study) under a
master seed and a second one, test its claims, print the README's tables and write the
whole result as JSON.

Every README claim row states n, the paired difference with its interval, the test and the
(Holm-adjusted) p, and the verdict under the second master seed beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.common.jsonable import dumps  # noqa: E402
from core.study import Claim, Study, run_study, stability_table, summary_table, verdict_stability  # noqa: E402


def parser(doc: str, *, n: int, master_seed: int, second_seed: int) -> argparse.ArgumentParser:
    """The common flags: --n, --master-seed, --second-seed, --workers, --json OUT."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=n, help=f"replicates per arm (default {n})")
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


__all__ = ["parser", "run_claims", "run_one", "print_canary_table", "stderr_progress", "json"]
