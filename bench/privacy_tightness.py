"""How tight is what PrivPlan states? (measured)

For the Dirichlet row mechanism over a grid of (k, η, b, δ) and for the shared-policy
mechanism over a grid of (k, m, η, L·b, δ), this prints the stated ε (the default
accountant: the exact privacy profile), the empirical tight ε of the Audit capability
(the exact ε of the worst neighbouring pair its search finds, at the same δ), their ratio,
and the older statements beside them (Theorem 1.6 with the union bound; eq. 12).

Goals: stated <= 1.25 × tight for the Dirichlet row mechanism, <= 1.5 × for the
shared-policy mechanism, at every grid point.

    python bench/privacy_tightness.py          # the full grid (a few minutes)
    python bench/privacy_tightness.py --quick  # a third of it
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.audit import dirichlet as audit_dirichlet  # noqa: E402
from core.privacy.dirichlet_accounting import support_privacy  # noqa: E402
from core.sharing import audit_target as audit_sharing  # noqa: E402
from core.sharing.mechanism import row_privacy_l2  # noqa: E402


def _tight(module, variant) -> float:
    best = 0.0
    for _, a, b in module.candidate_pairs(None, variant):
        best = max(best, module.tight_epsilon(a, b, variant.delta, None, variant)[0])
    return best


def dirichlet_rows(quick: bool) -> list[tuple]:
    ks = (5.0, 20.0, 100.0, 1000.0) if not quick else (5.0, 100.0)
    etas = (0.02, 0.05, 0.1)
    bs = (0.02, 0.1, 0.3) if not quick else (0.1,)
    deltas = (1e-2, 1e-5)
    out = []
    for k, eta, b, delta in itertools.product(ks, etas, bs, deltas):
        n = 3
        if n * eta + b / 2 > 1:
            continue
        stated = support_privacy(k, eta, n, b, delta_target=delta).epsilon
        try:
            union = support_privacy(k, eta, n, b, delta_target=delta,
                                    delta_method="union").epsilon
        except Exception:  # noqa: BLE001 - no finite union statement: shown as such
            union = math.inf
        v = audit_dirichlet.DirichletVariant(k=k, eta=eta, eta_bar=None, w=n, b=b,
                                             delta=delta, analysis="support")
        tight = _tight(audit_dirichlet, v)
        out.append((k, eta, b, delta, stated, tight, union))
    return out


def sharing_rows(quick: bool) -> list[tuple]:
    grid = [(5.0, 4, 0.05, 0.05), (5.0, 4, 0.1, 0.05), (20.0, 4, 0.05, 0.1),
            (5.0, 6, 0.05, 0.05), (1.0, 4, 0.05, 0.05), (50.0, 3, 0.1, 0.1)]
    if quick:
        grid = grid[:3]
    out = []
    for (k, m, eta, lb), delta in itertools.product(grid, (1e-3,)):
        stated = row_privacy_l2(k, m, eta, lb, delta=delta).epsilon
        eq12 = row_privacy_l2(k, m, eta, lb, delta=delta, bound="paper", draws=50_000).epsilon
        v = audit_sharing.SharingVariant(k=k, m=m, eta=eta, lb=lb, delta=delta)
        tight = _tight(audit_sharing, v)
        out.append((k, m, eta, lb, delta, stated, tight, eq12))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = dirichlet_rows(args.quick)
    print("Dirichlet row mechanism (support of 3, two-entry adjacency), goal stated/tight <= "
          "1.25")
    print(f"{'k':>7} {'eta':>5} {'b':>5} {'delta':>7} {'stated':>9} {'tight':>9} "
          f"{'ratio':>6} {'union (old)':>12}")
    worst = 0.0
    for k, eta, b, delta, stated, tight, union in rows:
        ratio = stated / tight if tight > 0 else (1.0 if stated == 0 else math.inf)
        worst = max(worst, ratio)
        print(f"{k:>7g} {eta:>5g} {b:>5g} {delta:>7.0e} {stated:>9.4g} {tight:>9.4g} "
              f"{ratio:>6.3f} {union:>12.4g}")
    ok_d = worst <= 1.25
    print(f"worst ratio {worst:.3f}: {'meets' if ok_d else 'MISSES'} the goal 1.25\n")
    srows = sharing_rows(args.quick)
    print("Shared-policy mechanism (l2 adjacency), goal stated/tight <= 1.5")
    print(f"{'k':>6} {'m':>3} {'eta':>5} {'L·b':>5} {'delta':>7} {'stated':>8} {'tight':>8} "
          f"{'ratio':>6} {'eq. 12 (old)':>13}")
    worst_s = 0.0
    for k, m, eta, lb, delta, stated, tight, eq12 in srows:
        ratio = stated / tight if tight > 0 else math.inf
        worst_s = max(worst_s, ratio)
        print(f"{k:>6g} {m:>3} {eta:>5g} {lb:>5g} {delta:>7.0e} {stated:>8.4g} {tight:>8.4g} "
              f"{ratio:>6.3f} {eq12:>13.4g}")
    ok_s = worst_s <= 1.5
    print(f"worst ratio {worst_s:.3f}: {'meets' if ok_s else 'MISSES'} the goal 1.5")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0 if ok_d and ok_s else 1


if __name__ == "__main__":
    raise SystemExit(main())
