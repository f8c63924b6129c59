"""Benchmark: DP multi-agent route planning (performance targets).

1. One ``plan`` (sound preset, ε = 0.5, seeded) on a generated 50-center world
   (250 bases): target under 1 s. Timed: a fresh :class:`PlanningSession` and its first
   task, i.e. Step 1, the Step-2 publication of every intermediate agent (Alg 7 + Alg 8
   + release), Step 3 and execution. World generation and imports are not timed. The
   median and the maximum over several origin/goal pairs are printed.
2. The full B2 size sweep (5 sizes × 4 approaches × 50 worlds, spec §8.3) on 2 worker
   processes: target under 5 minutes. Timed end to end, including the process pool start.
   Then the sweep's findings, fairly compared: delivery rates per approach, and route
   lengths on *paired tasks* (tasks both DP and the other approach delivered; each
   approach's mean over its own deliveries would favour the one that fails on long
   tasks), with the unpaired figure beside it for reference; and what each approach
   proves (ε per agent, or none).

Usage::

    python bench/logistics.py            # both targets (about 3 minutes on 2 cores)
    python bench/logistics.py --quick    # 5 worlds per size for the sweep
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.logistics.examples import generate_world  # noqa: E402
from core.logistics.experiments import run_benchmark  # noqa: E402
from core.logistics.model import Task  # noqa: E402
from core.logistics.planner import PlannerParams, PlanningSession  # noqa: E402


def bench_plan(repeats: int) -> list[float]:
    w = generate_world(50, seed=2020)
    rng = np.random.default_rng(1)
    times = []
    for i in range(repeats):
        a, g = rng.choice(len(w.agents), size=2, replace=False)
        task = Task(w.bases[w.agents[int(a)]][0], w.agents[int(g)])
        t0 = time.perf_counter()
        s = PlanningSession(w, approach="dp", params=PlannerParams(epsilon=0.5), rng=i)
        r = s.plan(task)
        times.append(time.perf_counter() - t0)
        print(f"  plan {i + 1:2d}: {task.origin} -> {task.goal_agent}: {times[-1] * 1e3:7.1f} ms, "
              f"{r.status}, {len(s.published)} maps published, {r.messages} messages")
    return times


def report_b2(res) -> None:
    """Delivery rates, paired route-length comparisons and the privacy of each approach."""
    cfg = res.config
    succ = res.mean("success")
    print("  privacy (proven per agent):")
    for ap, g in res.privacy().items():
        print(f"    {ap:>10}: " + (f"epsilon <= {g['epsilon']:g}" if g["epsilon"] is not None
                                   else f"none ({g['epsilon_reason']})"))
    print("  delivery rate (delivered / packages):")
    print(f"    {'N':>4} " + "".join(f"{a:>11}" for a in cfg.approaches))
    for i, v in enumerate(cfg.values):
        print(f"    {v:>4g} " + "".join(f"{100 * succ[i, j]:>10.1f}%"
                                       for j in range(len(cfg.approaches))))
    if "dp" not in cfg.approaches:
        return
    k = cfg.approaches.index("dp")
    print("  route length, DP vs each approach on paired tasks (both delivered); "
          "+ = DP shorter:")
    for j, a in enumerate(cfg.approaches):
        if j == k:
            continue
        for i, v in enumerate(cfg.values):
            pr = res.paired_route(i, j)
            own = res.mean("route_length")
            unpaired = 100.0 * (own[i, j] - own[i, k]) / own[i, j]
            if pr["dp_advantage_percent"] is None:
                print(f"    {a:>10} N={v:g}: no paired tasks")
                continue
            ci = (f" [{pr['ci_low']:+.1f}, {pr['ci_high']:+.1f}]"
                  if pr["ci_low"] is not None else "")
            print(f"    {a:>10} N={v:g}: paired {pr['dp_advantage_percent']:+.1f} %{ci} on "
                  f"{pr['paired_tasks']} tasks (DP {pr['length_ref']:.1f} vs "
                  f"{pr['length']:.1f}); unpaired {unpaired:+.1f} %")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 worlds per size in the sweep")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    print("PrivPlan benchmark: DP multi-agent route planning")
    print(f"  python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPU(s) visible, sweep workers {args.workers}")
    print("1) one plan on a 50-center world (250 bases), sound preset, epsilon 0.5")
    times = bench_plan(args.repeats)
    med, worst = statistics.median(times), max(times)
    print(f"  median {med * 1e3:.1f} ms, max {worst * 1e3:.1f} ms over {len(times)} plans")
    worlds = 5 if args.quick else 50
    print(f"2) B2 size sweep: sizes 10-50 x 4 approaches x {worlds} worlds, "
          f"{args.workers} workers")
    t0 = time.perf_counter()
    res = run_benchmark("B2", worlds=worlds, seed=2020, workers=args.workers)
    sweep = time.perf_counter() - t0
    print(f"  {sweep:.1f} s ({len(res.config.values)} sizes x {len(res.config.approaches)} "
          f"approaches x {worlds} worlds)")
    report_b2(res)
    print("Targets")
    print(f"  [{'PASS' if worst < 1.0 else 'MISS'}] one plan on 50 centers under 1 s: "
          f"max {worst * 1e3:.1f} ms (median {med * 1e3:.1f} ms)")
    label = "full B2 sweep" if not args.quick else "B2 sweep (--quick, not the target size)"
    print(f"  [{'PASS' if sweep < 300 else 'MISS'}] {label} under 5 minutes on "
          f"{args.workers} cores: {sweep:.1f} s")


if __name__ == "__main__":
    main()
