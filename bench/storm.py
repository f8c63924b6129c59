"""Benchmark: PrivPlan's robust bounds against Storm's interval value iteration.

For sparse chains (one action per state, 10 successors, horizon 10, k = 100, β = 0.05), in
one process:

1. privatise the model; export the robust set of the private model as a Storm interval
   model (``STEM.drn``, ``@value_type: double-interval``: the hull of P̂_{α,β} on each row's
   support, what ``privplan export --format drn-interval`` writes);
2. **Storm**: ``R{"r"}min=? [C<=10]`` and ``R{"r"}max=? [C<=10]`` with cooperative
   uncertainty (nature minimises, resp. maximises the reward) — interval value iteration;
   the time of the two ``model_checking`` calls (the model is built before the clock);
3. **PrivPlan, same semantics**: ``interval_value_bounds`` on the same intervals (both
   bounds at once): the values must agree to 1e-9, and the ratio of times is printed;
4. **PrivPlan's own bounds**: ``robust_bounds`` over P̂_{α,β} (the papers' robust set,
   off-support mass included): a different set, so different values, the time is what a
   user pays for PrivPlan's bound; the ratio to Storm's time is printed too.

Without stormpy (``pip install 'privplan[interop]'``; a PyPI wheel for Linux x86-64 with
glibc >= 2.34) the benchmark says so and stops.

Usage: ``python bench/storm.py [--quick]`` (``--quick``: 10⁴ states only).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.mdp import robust_kernels  # noqa: E402
from core.mdp.examples import sparse_random_mdp  # noqa: E402
from core.mdp.interop.drn import write_drn_interval  # noqa: E402
from core.mdp.interop.interval import interval_value_bounds, robust_intervals  # noqa: E402
from core.mdp.privatize import privatize_mdp  # noqa: E402
from core.mdp.robust import alpha_radius, robust_bounds  # noqa: E402

K, BETA, T, N = 100.0, 0.05, 10, 10


def best(fn, repeat: int = 3) -> tuple[float, object]:  # noqa: ANN001
    out = None
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="10^4 states only")
    args = p.parse_args(argv)
    try:
        import stormpy
    except ImportError as exc:
        print(f"stormpy is not installed here ({exc}): the comparison with Storm was not run. "
              "Install the optional extra: pip install 'privplan[interop]' (stormpy ships "
              "PyPI wheels for Linux x86-64 with glibc >= 2.34).")
        return 0
    print("PrivPlan vs Storm: robust bounds of a private chain (horizon 10, k = 100, "
          f"beta = 0.05); stormpy {getattr(stormpy, '__version__', '?')}, numba kernels "
          f"{'on' if robust_kernels.AVAILABLE else 'off'}; best of 3")
    print(f"{'states':>9} {'entries':>10} {'Storm VI':>9} {'PrivPlan VI':>12} {'max |diff|':>11} "
          f"{'Storm/PrivPlan':>15} {'PrivPlan P-hat':>15} {'Storm/P-hat':>12}")
    sizes = (10_000,) if args.quick else (10_000, 100_000)
    results = []
    folder = Path(tempfile.mkdtemp(prefix="privplan-storm-"))
    coop = stormpy.UncertaintyResolutionMode.COOPERATIVE
    for S in sizes:
        m = sparse_random_mdp(S, 1, N, T, seed=1)
        m = m.replace(R_T=np.zeros(S))  # C<=T sums the step rewards only
        private = privatize_mdp(m, K, rng=1).mdp
        lo, hi, alpha, _ = robust_intervals(private, k=K, beta=BETA)
        files, _ = write_drn_interval(private, folder / f"chain{S}", lo, hi)
        model = stormpy.build_model_from_drn[stormpy.Interval](files[0])
        props = [stormpy.parse_properties(f'R{{"r"}}{d}=? [C<={T}]')[0] for d in ("min", "max")]

        def storm() -> list[np.ndarray]:
            out = []
            for prop in props:
                res = stormpy.model_checking(model, prop, uncertainty_resolution_mode=coop)
                out.append(res)
            return out

        policy = np.zeros((T, S), dtype=np.int64)
        interval_value_bounds(private, lo, hi, policy)  # warm-up (loads the kernels)
        t_storm, res = best(storm)
        t_pp, vb = best(lambda: interval_value_bounds(private, lo, hi, policy))
        s_lo = np.array([res[0].get_value(i) for i in range(S)])
        s_hi = np.array([res[1].get_value(i) for i in range(S)])
        diff = max(float(np.abs(s_lo - vb.v_lower[0]).max()),
                   float(np.abs(s_hi - vb.v_upper[0]).max()))
        t_phat, _ = best(lambda: robust_bounds(private, policy, alpha=alpha_radius(K, BETA),
                                               beta=BETA))
        results.append((S, t_storm, t_pp, diff, t_phat))
        print(f"{S:>9,} {private.nnz:>10,} {t_storm * 1e3:>7.1f}ms {t_pp * 1e3:>10.1f}ms "
              f"{diff:>11.1e} {t_storm / t_pp:>14.2f}x {t_phat * 1e3:>13.1f}ms "
              f"{t_storm / t_phat:>11.2f}x")
    print("\nGoals")
    for S, t_storm, t_pp, diff, t_phat in results:
        print(f"  [{'PASS' if diff <= 1e-9 else 'MISS'}] {S:,} states: same values to 1e-9 "
              f"(max |diff| {diff:.1e})")
        ok = t_storm / t_pp >= 10
        print(f"  [{'PASS' if ok else 'MISS'}] {S:,} states: bounds >= 10x faster than Storm's "
              f"interval value iteration: {t_storm / t_pp:.2f}x (P-hat bounds: "
              f"{t_storm / t_phat:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
