"""Benchmark: one privatise + synthesise + bound run on sparse models of 10⁵ and 10⁶ states.

For each size (S states × 4 actions × 10 successors per row, horizon 10, k = 100,
β = 0.05, domain rule ``mix``), in one process:

* **run**: ``privatize_mdp`` (the pre-processed rows made beforehand, as a sweep does),
  ``synthesize`` on the private model and ``cost_of_privacy`` (the robust bounds with the
  centre shift) — the time of one run;
* **floor**: what no run can avoid, measured the same way: one gamma variate per non-zero
  (``Generator.standard_gamma`` of k·p) plus one backward induction over the CSR rows
  (``synthesize`` of the true model);
* **peak / CSR**: the run's peak allocation (tracemalloc: every numpy array) over the bytes
  of the model's CSR arrays; and the process's peak RSS;
* the bounds alone with the compiled kernels and with the numpy reference
  (``PRIVPLAN_NO_NUMBA``'s path), which is why numba is a dependency.

It also re-measures the small-model path (Example 2, 20 × 5 × 10: greedy against the LP,
as ``bench/bounds.py``). Prints PASS/MISS for the issue's goals: 10⁵ < 1 s and <= 2× its
floor; 10⁶ < 10 s with peak <= 3× CSR; Example 2 greedy >= 1000× the LP.

Usage: ``python bench/scale.py [--quick]`` (``--quick``: 10⁴ and 10⁵ states).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from core.mdp import robust_kernels  # noqa: E402
from core.mdp.examples import sparse_random_mdp  # noqa: E402
from core.mdp.privatize import mechanism_rows, privatize_mdp  # noqa: E402
from core.mdp.robust import alpha_radius, centre_shift, cost_of_privacy, robust_bounds  # noqa: E402
from core.mdp.synthesis import synthesize  # noqa: E402

K, BETA, T, A, N = 100.0, 0.05, 10, 4, 10


def fmt(x: float) -> str:
    return f"{x * 1e3:.0f} ms" if x < 1 else f"{x:.2f} s"


def measure(S: int) -> dict[str, float]:
    m = sparse_random_mdp(S, A, N, T, seed=1)
    csr = m.transitions.nbytes
    prep = mechanism_rows(m, domain_rule="mix")
    shift = centre_shift(prep, (S, A))
    # warm-up (compiles or loads the numba kernels; not timed)
    small = sparse_random_mdp(2000, 2, 3, 2, seed=2)
    cost_of_privacy(privatize_mdp(small, K, rng=0, domain_rule="mix").mdp, k=K, beta=BETA)
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    private = privatize_mdp(m, K, rng=1, prepared=prep).mdp
    t1 = time.perf_counter()
    plan = synthesize(private)
    t2 = time.perf_counter()
    res = cost_of_privacy(private, k=K, beta=BETA, plan=plan, centre_shift=shift)
    t3 = time.perf_counter()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # floor: the gamma draws of every non-zero and one backward induction
    shape = prep.rows.data * K
    rng = np.random.default_rng(1)
    f0 = time.perf_counter()
    rng.standard_gamma(shape)
    f1 = time.perf_counter()
    synthesize(m)
    f2 = time.perf_counter()
    del shape
    # the bounds alone: compiled kernels and the numpy reference
    alpha = alpha_radius(K, BETA) + shift
    b0 = time.perf_counter()
    robust_bounds(private, plan.policy, alpha=alpha, beta=BETA)
    b1 = time.perf_counter()
    saved = robust_kernels.AVAILABLE
    robust_kernels.AVAILABLE = False
    try:
        robust_bounds(private, plan.policy, alpha=alpha, beta=BETA)
    finally:
        robust_kernels.AVAILABLE = saved
    b2 = time.perf_counter()
    return {"S": S, "nnz": m.nnz, "csr_mb": csr / 2**20, "privatise": t1 - t0,
            "synthesise": t2 - t1, "bounds": t3 - t2, "run": t3 - t0, "gamma": f1 - f0,
            "induction": f2 - f1, "floor": f2 - f0, "peak_over_csr": peak / csr,
            "bounds_numba": b1 - b0, "bounds_numpy": b2 - b1, "cost": res.cost_bound,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def example2_ratio() -> tuple[float, float]:
    """Example 2 (20 × 5 × 10): greedy time and LP time per run (bench/bounds.py)."""
    import bounds as bb

    from core.mdp.examples import example2

    case = bb.Case("ex2", "Example 2", example2())
    row = bb.measure(case, repeat=5, lp_budget=30.0, sample_rows=20)
    return row.greedy_s, float(row.lp_s or float("nan"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="10^4 and 10^5 states only")
    args = p.parse_args(argv)
    sizes = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
    print("PrivPlan benchmark: sparse models, one privatise + synthesise + bounds run")
    print(f"  {A} actions x {N} successors per row, T = {T}, k = {K:g}, beta = {BETA:g}, "
          f"domain rule mix; numba kernels {'on' if robust_kernels.AVAILABLE else 'OFF'}; "
          f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'} "
          "core(s)")
    print(f"{'states':>10} {'non-zeros':>12} {'CSR':>8} {'privatise':>10} {'synthesise':>11} "
          f"{'bounds':>8} {'run':>8} {'floor':>8} {'run/floor':>9} {'peak/CSR':>9} "
          f"{'bounds numpy':>13}")
    rows = []
    for S in sizes:
        r = measure(S)
        rows.append(r)
        print(f"{S:>10,} {r['nnz']:>12,} {r['csr_mb']:>6.0f}MB {fmt(r['privatise']):>10} "
              f"{fmt(r['synthesise']):>11} {fmt(r['bounds']):>8} {fmt(r['run']):>8} "
              f"{fmt(r['floor']):>8} {r['run'] / r['floor']:>8.2f}x "
              f"{r['peak_over_csr']:>8.2f}x {fmt(r['bounds_numpy']):>13}")
        gc.collect()
    greedy, lp = example2_ratio()
    print(f"\nExample 2 (20x5x10): greedy {greedy * 1e6:.0f} us, LP {fmt(lp)}: "
          f"{lp / greedy:,.0f}x")
    print("\nGoals")
    first, last = rows[0], rows[-1]
    goals = [
        (f"{first['S']:,} states: one run < 1 s", first["run"] < 1.0,
         fmt(first["run"])),
        (f"{first['S']:,} states: run <= 2x its floor", first["run"] <= 2 * first["floor"],
         f"{first['run'] / first['floor']:.2f}x ({fmt(first['run'])} vs {fmt(first['floor'])})"),
    ]
    if not args.quick:
        goals += [(f"{last['S']:,} states: one run < 10 s", last["run"] < 10.0,
                   fmt(last["run"])),
                  (f"{last['S']:,} states: peak <= 3x CSR", last["peak_over_csr"] <= 3.0,
                   f"{last['peak_over_csr']:.2f}x of {last['csr_mb']:.0f} MB")]
    goals.append(("Example 2: greedy >= 1000x the LP", lp / greedy >= 1000,
                  f"{lp / greedy:,.0f}x"))
    for text, ok, value in goals:
        print(f"  [{'PASS' if ok else 'MISS'}] {text}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
