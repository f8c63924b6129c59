"""Benchmark: private policy sharing on FrozenLake 8×8.

* one experiment: 4 student types × 10 seeds × 300 iterations (the teacher's ledger
  included), in-process, against the issue's target of 10 s on 2 cores;
* the live ε/δ(k) panel the workspace redraws on every parameter change
  (:func:`core.sharing.learning.live_privacy`: τ solved at k₀ for the target δ, then ε of
  eq. 12 and the Monte Carlo δ at 15 values of k) and the live radius panel
  (:func:`~core.sharing.learning.live_radius`), against the target of 100 ms per change.

Usage::

    python bench/sharing.py          # needs gymnasium (the gym extra)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from core.sharing.gym_import import gym_available, import_gym  # noqa: E402
from core.sharing.learning import SharingSetup, live_privacy, live_radius, run_sharing  # noqa: E402  # noqa: E402


def main() -> int:
    if not gym_available():
        print("gymnasium is not installed (pip install 'privplan[gym]'): skipped")
        return 0
    mdp = import_gym("gym:FrozenLake-v1:8x8")
    # the budget covers all 20 noisy runs (aware and unaware, 10 seeds each): large enough,
    # with a target delta of 1e-4 per query, for the teacher to demonstrate a few roll-outs
    setup = SharingSetup(eta=0.1, delta=1e-4, coef=0.9, budget=(2e5, 0.9), iterations=300)
    t0 = time.perf_counter()
    res = run_sharing(mdp, setup, seeds=10, seed=1)
    t = time.perf_counter() - t0
    print(f"FrozenLake 8x8, 4 student types x 10 seeds x 300 iterations: {t:.2f} s "
          f"(target < 10 s; ledger stopped at roll-out {res.ledger.stopped_at})")
    for kind in res.curves:
        med, lo, hi = res.band(kind)
        print(f"  {kind:<11} final J {med[-1]:.4f} [{lo[-1]:.4f}, {hi[-1]:.4f}]")
    for name, fn in (("live epsilon/delta(k) panel (tau solved for delta = 1e-3, then 6,000 "
                      "draws per k)",
                      lambda rep: live_privacy(5.0, 4, 0.1, 0.05, "paper", None, 1e-3, rep)),
                     ("live radius panel (3,000 draws per k and point)",
                      lambda rep: live_radius(5.0, 4, 0.1, 0.5, 0.05, rep))):
        times = []
        for rep in range(3):
            t0 = time.perf_counter()
            fn(rep)
            times.append(time.perf_counter() - t0)
        print(f"{name}: {min(times) * 1e3:.0f} ms (target < 100 ms per change)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
