"""Benchmark: one run of the privacy sweep (Figure 2.1) against the work it cannot avoid.

A sweep run privatises every row of the model (Dirichlet), synthesises π̄ on the private model
(backward induction), evaluates it on the true model and bounds it (Theorem 1). The
*unavoidable* work of a run, measured here in the same process, is

* the gamma draws for every entry of P (``Generator.standard_gamma`` on k·p), and
* one backward induction on a model of the same size (``core.mdp.synthesis.synthesize``);

everything else (normalising the draws, checks, the bounds, the evaluation, bookkeeping)
is overhead to be driven down. The table prints the time per run, that floor and their
ratio (the goal: ≤ 2× the floor), and the run's peak memory over the size of P.

Usage::

    python bench/sweep.py            # 20×5×10, 300×10×20 and 2000×4×20 (about a minute)
    python bench/sweep.py --quick    # the two small sizes (a few seconds)
    python bench/sweep.py --pool     # also: a worker's own memory in a 2-process pool (Linux)

The sweep runs in-process (``workers=1``), so the times are those of one core. With
``--pool``, a 2000 × 4 × 5 sweep also runs on two worker processes, and each worker reports
its private memory (``/proc/self/smaps_rollup``) before and at the peak of a run, next to the
shared memory it maps: the model's arrays are mapped from shared memory once for all workers
(``core.common.shm``), so a worker's own share should be its private model and temporaries.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.mdp.examples import random_mdp  # noqa: E402
from core.mdp.sweep import privacy_sweep  # noqa: E402
from core.mdp.synthesis import synthesize  # noqa: E402

SIZES = ((20, 5, 10), (300, 10, 20), (2000, 4, 20))
K = 100.0


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(S: int, A: int, T: int, runs: int, repeat: int) -> dict[str, float]:
    mdp = random_mdp(S, A, T, seed=1)
    rng = np.random.default_rng(0)
    alpha = K * np.asarray(mdp.P)[np.asarray(mdp.mask)]  # every entry of every row

    def gamma() -> None:
        rng.standard_gamma(alpha)

    def induction() -> None:
        synthesize(mdp)

    floor = _best(gamma, repeat) + _best(induction, repeat)

    eta = min(1e-3, 0.1 / S)  # the mix rule needs n·η < 1 on dense rows

    def sweep() -> None:
        privacy_sweep(mdp, [K], runs=runs, seed=3, workers=1, eta=eta)

    per_run = _best(sweep, repeat) / runs
    tracemalloc.start()
    privacy_sweep(mdp, [K], runs=1, seed=3, workers=1, eta=eta)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"per_run": per_run, "floor": floor, "ratio": per_run / floor,
            "peak_over_P": peak / float(np.asarray(mdp.P).nbytes)}


def _rollup() -> dict[str, float]:
    out = {}
    with open("/proc/self/smaps_rollup") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 3 and parts[0].endswith(":"):
                out[parts[0][:-1]] = int(parts[1]) / 1024.0
    return out


def _worker_chunk(mdp, prepared, k, alpha, i):  # noqa: ANN001 - runs in a worker
    """One sweep run in a worker, with the worker's memory before and after (MB)."""
    import resource

    from core.mdp.sweep import _run_chunk

    before = _rollup()
    _run_chunk(mdp, prepared, None, k, alpha, 0.05, 1, 0, i, i + 1)
    after = _rollup()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return before, after, peak


def measure_pool(S: int = 2000, A: int = 4, T: int = 5) -> list[dict[str, float]]:
    from core.common.parallel import run_chunks
    from core.mdp.privatize import mechanism_rows
    from core.mdp.robust import alpha_radius

    mdp = random_mdp(S, A, T, seed=1)
    prepared = mechanism_rows(mdp, eta=min(1e-3, 0.1 / S))
    out: list = []
    run_chunks(_worker_chunk, [(0,), (1,)],
               lambda t: (K, alpha_radius(K, 0.05, n=S), t[0]),
               lambda t, r: out.append(r), inline=False, workers=2, shared=(mdp, prepared))
    size = float(mdp.P.nbytes) / 2**20
    rows = []
    for before, after, peak in out:
        shared = after.get("Shared_Clean", 0.0) + after.get("Shared_Dirty", 0.0)
        rows.append({"P_MB": size, "private_before": before["Private_Dirty"],
                     "private_after": after["Private_Dirty"], "shared": shared,
                     "peak_rss": peak,
                     "own_peak_over_P": (peak - shared - before["Private_Dirty"]) / size})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="only the two small sizes")
    p.add_argument("--repeat", type=int, default=3, help="repetitions (the best is kept)")
    p.add_argument("--pool", action="store_true",
                   help="also measure a worker's own memory in a 2-process pool (Linux)")
    args = p.parse_args(argv)
    sizes = SIZES[:2] if args.quick else SIZES
    print(f"privacy sweep, one run at k = {K:g}, in-process — {platform.processor() or ''} "
          f"{platform.python_version()}")
    print(f"{'S × A × T':>16} {'per run':>10} {'floor':>10} {'ratio':>7} {'peak/P':>7}")
    for S, A, T in sizes:
        runs = 20 if S <= 300 else 2
        r = measure(S, A, T, runs, args.repeat if S <= 300 else 1)
        print(f"{f'{S} × {A} × {T}':>16} {r['per_run'] * 1e3:>8.1f}ms {r['floor'] * 1e3:>8.1f}ms "
              f"{r['ratio']:>6.2f}× {r['peak_over_P']:>6.1f}×")
    print("floor = gamma draws for every entry of P + one backward induction (same size); "
          "target ratio ≤ 2×, peak ≤ 3× P")
    if args.pool:
        print("\npool of 2 workers, 2000 × 4 × 5 (MB; the model is mapped from shared memory)")
        print(f"{'P':>8} {'private before':>15} {'after':>8} {'shared':>8} {'peak RSS':>9} "
              f"{'own peak / P':>13}")
        for r in measure_pool():
            print(f"{r['P_MB']:>8.1f} {r['private_before']:>15.1f} {r['private_after']:>8.1f} "
                  f"{r['shared']:>8.1f} {r['peak_rss']:>9.1f} {r['own_peak_over_P']:>12.2f}×")
        print("own peak = peak RSS − shared mappings − the worker's memory before the run "
              "(interpreter and imports): the run's own memory, target ≤ 3× P")
    return 0


if __name__ == "__main__":
    sys.exit(main())
