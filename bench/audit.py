"""Benchmark: the empirical privacy audit (core.audit) of every mechanism.

For each mechanism PrivPlan releases through, one audit at the default N per side (or
``--samples``), printing ε_claimed, ε_tight (the exact ε of the worst pair searched,
where densities are known), ε_lb (95 % Clopper–Pearson lower bound from the attack), the
verdict and the wall time. Two targets are printed as PASS/MISS:

1. power: the Laplace mechanism at ε = 1 reaches ε_lb >= 0.5 within a minute, in seeded
   experiment mode and in release mode (OpenDP sampling: what ``privplan audit laplace
   --epsilon 1 --sensitivity 1`` runs without ``--seed``);
2. soundness: no audit of a true claim reports a violation, and ε_lb <= ε_tight <=
   ε_claimed wherever ε_tight is known;

plus the deliberately broken Laplace (half the noise scale, claim ε = 1), which must be
caught (verdict "violation").

Usage::

    python bench/audit.py           # full run (about 1-2 minutes on 2 cores)
    python bench/audit.py --quick   # N = 20 000 per side, no release-mode runs
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import scipy  # noqa: E402

from core.audit import available, run_audit  # noqa: E402

CASES = [
    ("laplace", {"epsilon": 1.0, "sensitivity": 1.0}),
    ("laplace", {"epsilon": 0.5, "sensitivity": 2.0}),
    ("exponential", {"epsilon": 1.0}),
    ("exponential", {"epsilon": 1.0, "monotonic": True}),
    ("dirichlet", {"k": 10.0, "eta": 0.15, "w": 2, "b": 0.1, "delta": 0.05}),
    ("dirichlet", {"k": 6.7, "eta": 0.15, "w": 3, "b": 0.1, "delta": 0.05}),
    ("dirichlet", {"k": 50.0, "eta": 0.05, "w": 3, "b": 0.1, "delta": 0.01}),
    ("dirichlet", {"k": 10.0, "eta": 0.02, "w": 3, "b": 0.1, "delta": 0.05,
                   "analysis": "support"}),
    ("sharing", {"k": 5.0, "m": 4, "eta": 0.05, "lb": 0.05, "delta": 1e-3}),
    ("gaussian", {"mu": 1.0, "delta": 1e-4}),
    ("advising", {"epsilon": 1.0, "variant": "sound"}),
    ("advising", {"epsilon": 1.0, "variant": "thesis"}),
    ("logistics", {"epsilon": 1.0, "preset": "sound"}),
    ("logistics", {"epsilon": 1.0, "preset": "thesis"}),
]


def _g(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if not math.isfinite(x) else f"{x:.4f}"


def _params(p: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in p.items())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--samples", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    samples = args.samples or (20_000 if args.quick else None)
    print("PrivPlan benchmark: empirical privacy audit (core.audit)")
    print(f"  python {platform.python_version()}, numpy {np.__version__}, scipy "
          f"{scipy.__version__}; {os.cpu_count()} core(s); seed {args.seed}; samples per side "
          f"{samples or 'mechanism default'}")
    head = (f"{'mechanism':<12} {'parameters':<52} {'N':>7} {'eps_claim':>9} {'eps_tight':>9} "
            f"{'eps_lb':>7} {'verdict':<11} {'time':>7}")
    print(head)
    print("-" * len(head))
    sound_ok = True
    for mech, params in CASES:
        if not available(mech):
            print(f"{mech:<12} {_params(params):<52} (module core/audit/{mech}.py not there)")
            continue
        t0 = time.perf_counter()
        r = run_audit(mech, samples=samples, seed=args.seed, **params)
        dt = time.perf_counter() - t0
        print(f"{mech:<12} {_params(params):<52} {r.samples:>7} {_g(r.epsilon_claimed):>9} "
              f"{_g(r.epsilon_tight):>9} {r.epsilon_lb:>7.4f} {r.verdict:<11} {dt:>6.2f}s")
        chain = r.epsilon_tight is None or (r.epsilon_lb <= r.epsilon_tight <= (
            r.epsilon_claimed * (1 + 1e-9)))
        sound_ok &= r.verdict == "consistent" and chain
    t0 = time.perf_counter()
    broken = run_audit("laplace", samples=samples, seed=args.seed, epsilon=1.0,
                       sensitivity=1.0, noise_factor=0.5)
    print(f"{'laplace':<12} {'BROKEN: half the noise scale, claim eps=1':<52} "
          f"{broken.samples:>7} {_g(broken.epsilon_claimed):>9} {_g(broken.epsilon_tight):>9} "
          f"{broken.epsilon_lb:>7.4f} {broken.verdict:<11} {time.perf_counter() - t0:>6.2f}s")
    print()
    power = []
    modes = [args.seed] if args.quick else [args.seed, None]
    for seed in modes:
        t0 = time.perf_counter()
        r = run_audit("laplace", samples=None, seed=seed, epsilon=1.0, sensitivity=1.0)
        dt = time.perf_counter() - t0
        ok = r.epsilon_lb >= 0.5 and dt < 60
        power.append(ok)
        print(f"target 1 (power, {r.mode} mode, N = {r.samples}): Laplace eps = 1 -> eps_lb = "
              f"{r.epsilon_lb:.4f} in {dt:.1f} s (need >= 0.5 within 60 s): "
              f"{'PASS' if ok else 'MISS'}")
    print(f"target 2 (soundness): no violation of a true claim, eps_lb <= eps_tight <= "
          f"eps_claimed: {'PASS' if sound_ok else 'MISS'}")
    print(f"broken Laplace caught: {'PASS' if broken.verdict == 'violation' else 'MISS'}")
    return 0 if all(power) and sound_ok and broken.verdict == "violation" else 1


if __name__ == "__main__":
    sys.exit(main())
