"""Benchmark: one run of the privacy sweep (Figure 2.1) against the work it cannot avoid.

A sweep run privatises every row of the model (Dirichlet), synthesises π̄ on the private model
(backward induction), evaluates it on the true model and bounds it (Theorem 1). The
*unavoidable* work of a run, measured here in the same process, is

* the gamma draws for every entry of P (``Generator.standard_gamma`` on k·p), and
* one backward induction on a model of the same size (``core.mdp.synthesis.synthesize``);

everything else (normalising the draws, checks, the bounds, the evaluation, bookkeeping)
is overhead to be driven down. The table prints the time per run, that floor and their
ratio (issue 16 targets ≤ 2× the floor), and the run's peak memory over the size of P.

Usage::

    python bench/sweep.py            # 20×5×10, 300×10×20 and 2000×4×20 (about a minute)
    python bench/sweep.py --quick    # the two small sizes (a few seconds)

The sweep runs in-process (``workers=1``), so the times are those of one core.
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="only the two small sizes")
    p.add_argument("--repeat", type=int, default=3, help="repetitions (the best is kept)")
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
          "target ratio ≤ 2×, peak ≤ 3× P (issue 16)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
