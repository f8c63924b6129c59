"""Benchmark: policy synthesis by the occupancy-measure LP (HiGHS) against backward induction /
value iteration, and the bounds of a stochastic (softmax) π̄ against a deterministic one.

For each model: the time of :func:`core.mdp.synthesis.synthesize` (induction; value
iteration + policy iteration for an infinite horizon) and of
:func:`core.mdp.lp_synthesis.synthesize_lp`, their ratio, and the largest difference of
the values (the LP's duals against induction's values; both should be ≤ 1e-9). Then the
bounds of Theorems 2.4/2.6 on a privatised model (k = 100, β = 0.05): the greedy π̄
(:func:`core.mdp.robust.robust_bounds`) against the softmax π̄ at τ = 0.1
(:func:`core.mdp.robust.robust_bounds_stochastic`, which bounds every row the policy uses),
with their cost-of-privacy bounds at s₀. Times are the best of ``--repeat`` runs.

Usage::

    python bench/synthesis.py           # about a minute
    python bench/synthesis.py --quick   # smaller models, a few seconds
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.mdp.examples import example2, four_startups, random_mdp  # noqa: E402
from core.mdp.lp_synthesis import synthesize_lp  # noqa: E402
from core.mdp.privatize import privatize_mdp  # noqa: E402
from core.mdp.robust import alpha_radius, robust_bounds, robust_bounds_stochastic  # noqa: E402
from core.mdp.stochastic import softmax_policy  # noqa: E402
from core.mdp.synthesis import synthesize  # noqa: E402


def best(fn, repeat: int) -> tuple[float, object]:  # noqa: ANN001
    out, t = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    sizes = [(50, 5, 20), (50, 5, None)] if args.quick else \
        [(100, 5, 20), (100, 5, None), (200, 5, 10), (300, 5, None)]
    models = [("four startups", four_startups()), ("Example 2", example2())] + [
        (f"random {S}x{A}x{'inf' if T is None else T}", random_mdp(S, A, T, seed=29 + S))
        for S, A, T in sizes]
    print("LP synthesis (HiGHS dual simplex) vs induction")
    print(f"{'model':<22}{'induction s':>14}{'LP s':>12}{'LP/induction':>14}"
          f"{'max |dv|':>12}{'same policy':>13}")
    worst = 0.0
    for name, m in models:
        ti, ind = best(lambda m=m: synthesize(m), args.repeat)
        tl, lp = best(lambda m=m: synthesize_lp(m), args.repeat)
        dv = float(np.max(np.abs(lp.values - ind.values)))
        worst = max(worst, dv)
        same = bool(np.array_equal(lp.policy, ind.policy))
        print(f"{name:<22}{ti:>14.4g}{tl:>12.4g}{tl / ti:>14.1f}{dv:>12.2e}{str(same):>13}")
    print(f"largest value difference {worst:.2e} ({'PASS' if worst <= 1e-9 else 'MISS'}: "
          "target <= 1e-9)\n")
    print("bounds at k = 100, beta = 0.05: greedy pi vs softmax pi (tau = 0.1)")
    print(f"{'model':<22}{'greedy s':>12}{'softmax s':>12}{'ratio':>8}"
          f"{'cost greedy':>13}{'cost softmax':>14}")
    for name, m in models:
        rng = np.random.default_rng(0)
        private = privatize_mdp(m, 100.0, rng=rng).mdp
        alpha = alpha_radius(100.0, 0.05, n=m.n_states)
        plan = synthesize(private)
        soft = softmax_policy(private, 0.1)
        tg, g = best(lambda p=private, pl=plan: robust_bounds(p, pl.policy, alpha=alpha,
                                                              beta=0.05), args.repeat)
        ts, s = best(lambda p=private, sf=soft: robust_bounds_stochastic(
            p, sf.policy, alpha=alpha, beta=0.05), args.repeat)
        s0 = m.initial_state

        def cost(vb) -> float:  # noqa: ANN001
            lo, hi = (vb.v_lower[0], vb.v_upper[0]) if m.horizon is not None else \
                (vb.v_lower, vb.v_upper)
            return float(hi[s0] - lo[s0])

        print(f"{name:<22}{tg:>12.4g}{ts:>12.4g}{ts / tg:>8.1f}{cost(g):>13.4g}"
              f"{cost(s):>14.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
