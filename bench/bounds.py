"""Benchmark: cost-of-privacy bounds, exact greedy versus the papers' LP (HiGHS).

Times one *run* of the bound computation — ``core.mdp.robust.robust_bounds`` on a privatised
model P̄ with its synthesised policy π̄ (both prepared beforehand, not timed) — with
``method="greedy"`` (the closed form of spec §6.5) and ``method="lp"`` (the LP (P) of
[D] §2.6.1, one HiGHS solve per state, stage and bound). The papers report 4.88 s, 9.34 s
and 9.68 s per k for the three Example 2 variants with an LP solver.

Greedy times are the best of several repetitions. An LP run is timed in full when a
sample of rows predicts it fits the budget (``--lp-budget``, default 60 s); otherwise the
time per row is measured on a sample of rows and scaled up, and labelled "estimated".

Usage::

    python bench/bounds.py            # full run (a few minutes: the LP is slow)
    python bench/bounds.py --quick    # smaller sizes, smoke run (~15 s)

It prints a table and PASS/MISS for two targets: greedy ≥ 1000× faster than the LP on
Example 2, and a 1000-state × 10-action × T = 50 run under 2 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import timeit
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import scipy  # noqa: E402

from core.mdp.examples import EXAMPLE2_SEED, example2, random_mdp  # noqa: E402
from core.mdp.model import MDP  # noqa: E402
from core.mdp.privatize import privatize_mdp  # noqa: E402
from core.mdp.robust import alpha_radius, inner_lp, robust_bounds  # noqa: E402
from core.mdp.synthesis import synthesize  # noqa: E402

K = 100.0           # Dirichlet concentration of the privatised models
BETA = 0.05         # the default β of the tool
NOISE_SEED = 0      # privatisation seed
RANDOM_SEED = 2020  # core.mdp.examples.random_mdp seed for the |A| = 10 and scaling models
PAPER = {"ex2": 4.88, "ex2_T20": 9.34, "ex2_A10": 9.68}  # s per k, LP, 3.5 GHz desktop


@dataclass
class Case:
    key: str
    label: str
    mdp: MDP
    lp: bool = True


@dataclass
class Row:
    case: Case
    greedy_s: float
    greedy_reps: int
    lp_s: float | None
    lp_note: str
    lp_err: float | None

    @property
    def shape(self) -> str:
        m = self.case.mdp
        return f"{m.n_states}x{m.n_actions}x{m.horizon}"


def prepare(mdp: MDP) -> tuple[MDP, np.ndarray, float]:
    # mix: dense random rows have entries below the default declared eta (refuse would stop)
    private = privatize_mdp(mdp, K, rng=NOISE_SEED, domain_rule="mix").mdp
    return private, synthesize(private).policy, alpha_radius(K, BETA)


def time_greedy(private: MDP, policy: np.ndarray, alpha: float, repeat: int
                ) -> tuple[float, int]:
    timer = timeit.Timer(lambda: robust_bounds(private, policy, alpha=alpha, beta=BETA))
    number, _ = timer.autorange()  # enough calls for >= 0.2 s per measurement
    return min(timer.repeat(repeat=repeat, number=number)) / number, repeat * number


def lp_per_row(private: MDP, policy: np.ndarray, alpha: float, v_lo: np.ndarray,
               v_hi: np.ndarray, n_rows: int) -> float:
    """Seconds for the two LPs (min and max) of one row at a middle stage, averaged."""
    S, T = private.n_states, private.horizon
    rng = np.random.default_rng(1)
    t = T // 2
    states = rng.choice(S, size=min(n_rows, S), replace=False)
    rows = private.P[states, policy[t, states]]
    t0 = time.perf_counter()
    for row in rows:
        inner_lp(row, v_lo[t + 1], alpha=alpha, beta=BETA, sense="min")
        inner_lp(row, v_hi[t + 1], alpha=alpha, beta=BETA, sense="max")
    return (time.perf_counter() - t0) / len(rows)


def measure(case: Case, *, repeat: int, lp_budget: float, sample_rows: int) -> Row:
    private, policy, alpha = prepare(case.mdp)
    greedy_s, reps = time_greedy(private, policy, alpha, repeat)
    if not case.lp:
        return Row(case, greedy_s, reps, None, "not run (greedy only)", None)
    vb = robust_bounds(private, policy, alpha=alpha, beta=BETA)
    lo, hi = vb.v_lower, vb.v_upper
    n_rows = sample_rows if private.n_states <= 200 else max(2, sample_rows // 2)
    per_row = lp_per_row(private, policy, alpha, lo, hi, n_rows)
    estimate = per_row * private.n_states * private.horizon
    if estimate > lp_budget:
        return Row(case, greedy_s, reps, estimate, f"estimated from {n_rows} rows", None)
    t0 = time.perf_counter()
    lp = robust_bounds(private, policy, alpha=alpha, beta=BETA, method="lp")
    lp_lo, lp_hi = lp.v_lower, lp.v_upper
    lp_s = time.perf_counter() - t0
    err = float(max(np.abs(lp_lo - lo).max(), np.abs(lp_hi - hi).max()))
    return Row(case, greedy_s, reps, lp_s, "measured (1 run)", err)


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    if x < 1e-3:
        return f"{x * 1e6:.0f} us"
    if x < 1:
        return f"{x * 1e3:.2f} ms"
    return f"{x:.2f} s"


def environment() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    env = {k: v for k, v in sorted(os.environ.items())
           if k.startswith(("OPENBLAS", "OMP_", "MKL_", "GOTO", "BLIS", "VECLIB", "NUMEXPR"))}
    return [f"python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__} (HiGHS via scipy.optimize.linprog)",
            f"CPU: {cpu}, {cores} core(s) usable",
            "BLAS/threading env: " + (", ".join(f"{k}={v}" for k, v in env.items())
                                       or "none set (left as found)")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    ap.add_argument("--lp-budget", type=float, default=None,
                    help="longest LP run timed in full, seconds (default 60; 3 with --quick)")
    ap.add_argument("--repeat", type=int, default=None, help="greedy repetitions (best of)")
    args = ap.parse_args(argv)
    quick = args.quick
    budget = args.lp_budget if args.lp_budget is not None else (3.0 if quick else 60.0)
    repeat = args.repeat or (3 if quick else 7)
    sample_rows = 4 if quick else 8
    sizes, T_scale = ((50, 100), 10) if quick else ((50, 200, 1000), 50)

    ex2 = example2()
    cases = [
        Case("ex2", "Example 2", ex2),
        Case("ex2_T20", "Example 2, T=20", random_mdp(20, 5, 20, seed=EXAMPLE2_SEED)),
        Case("ex2_A10", "Example 2 shape, |A|=10", random_mdp(20, 10, 10, seed=RANDOM_SEED)),
    ]
    for S in sizes:
        cases.append(Case(f"dense{S}", f"dense |S|={S}", random_mdp(S, 10, T_scale,
                                                                   seed=RANDOM_SEED + S),
                          lp=(S == sizes[0]) or not quick))

    print("PrivPlan benchmark: cost-of-privacy bounds, greedy (closed form) vs LP (HiGHS)")
    for line in environment():
        print("  " + line)
    print(f"  k = {K:g}, beta = {BETA}, alpha = {alpha_radius(K, BETA):.6f} (paper mode); "
          f"privatisation seed {NOISE_SEED}; timed: robust_bounds only (one run)")
    print("  LPs per run: 2·T·|S| (π̄ deterministic: only its action per state; the paper "
          "likely solved 2·T·|S|·|A|)")
    if quick:
        print("  --quick: reduced sizes and LP budget; targets that need full sizes are n/a")
    print()

    rows: list[Row] = []
    for case in cases:
        row = measure(case, repeat=repeat, lp_budget=budget, sample_rows=sample_rows)
        rows.append(row)
        if sys.stderr.isatty():
            print(f"  done: {case.label} ({row.shape})", file=sys.stderr, flush=True)

    head = (f"{'case':<26}{'S x A x T':>13}{'LPs/run':>9}{'greedy':>11}{'LP (HiGHS)':>12}"
            f"{'LP/greedy':>11}{'paper LP':>10}{'paper/greedy':>14}  LP timing")
    print(head)
    print("-" * len(head))
    for r in rows:
        m = r.case.mdp
        ratio = f"{r.lp_s / r.greedy_s:,.0f}x" if r.lp_s else "-"
        paper = PAPER.get(r.case.key)
        pratio = f"{paper / r.greedy_s:,.0f}x" if paper else "-"
        note = r.lp_note + (f"; max|LP-greedy| = {r.lp_err:.1e}" if r.lp_err is not None else "")
        print(f"{r.case.label:<26}{r.shape:>13}{2 * m.n_states * m.horizon:>9}"
              f"{fmt_s(r.greedy_s):>11}{fmt_s(r.lp_s):>12}{ratio:>11}"
              f"{(f'{paper:.2f} s' if paper else '-'):>10}{pratio:>14}  {note}")
    print(f"\ngreedy: best of {repeat} repetitions (each of >= 0.2 s worth of calls); "
          "LP: single run or estimate.")

    print("\nTargets")
    by_key = {r.case.key: r for r in rows}
    ex = by_key["ex2"]
    speedup = ex.lp_s / ex.greedy_s if ex.lp_s else float("nan")
    print(f"  [{'PASS' if speedup >= 1000 else 'MISS'}] greedy >= 1000x faster than the LP on "
          f"Example 2: {speedup:,.0f}x ({fmt_s(ex.greedy_s)} vs {fmt_s(ex.lp_s)}, "
          f"{ex.lp_note}); vs the paper's 4.88 s: {PAPER['ex2'] / ex.greedy_s:,.0f}x")
    big = by_key.get("dense1000")
    if big is None:
        print("  [n/a ] 1000x10x50 greedy under 2 s: not run with --quick")
    else:
        ok = big.greedy_s < 2.0
        print(f"  [{'PASS' if ok else 'MISS'}] 1000x10x50 greedy under 2 s: "
              f"{fmt_s(big.greedy_s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
