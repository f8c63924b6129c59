"""Do the logistics trends carry over to the air and rover domains (thesis §4.7.2–4.7.3)?

The thesis ran its experiments on the air-travel and rover scenarios too and says only:
"As the results present a similar trend to logistics, they are not discussed here." This
script measures it: the B1 ε sweep and the B2 size sweep of ``core.logistics.experiments``
on the worlds of each domain's generator (``run_benchmark(..., domain=...)``), the same
master seed for every domain, and for every trend of the logistics README table the
per-domain verdict, with 95 % t-intervals over worlds (paired differences: the same worlds
and tasks for every approach).

Usage::

    python bench/domain_trends.py [--worlds N] [--seed S] [--workers W] [--sizes 10,20,...]
        [--domains logistics,air,rover] [-o DIR]

The same numbers come from ``python app.py plan-bench B2 --domain air --worlds N --seed S``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.common.stats import t_half_width  # noqa: E402
from core.logistics.experiments import BenchResult, run_benchmark  # noqa: E402


def _paired(res: BenchResult, metric: str, i: int, a: str, b: str, *, pct: bool = False,
            pp: bool = False) -> tuple[float, float, float, int]:
    """Mean of a − b over worlds at value index i with its 95 % t-interval (paired)."""
    aps = res.config.approaches
    x = res.data[metric][i, aps.index(a)]
    y = res.data[metric][i, aps.index(b)]
    ok = np.isfinite(x) & np.isfinite(y)
    if pct:
        ok &= y > 0
    d = x[ok] - y[ok]
    if pct:
        d = 100.0 * d / y[ok]
    if pp:
        d = 100.0 * d
    if d.size < 2:
        return (math.nan, math.nan, math.nan, int(d.size))
    h = t_half_width(d)
    return (float(d.mean()), float(d.mean() - h), float(d.mean() + h), int(d.size))


def _fmt(t: tuple[float, float, float, int], unit: str = "") -> str:
    m, lo, hi, _ = t
    if not math.isfinite(m):
        return "n/a"
    return f"{m:+.1f}{unit} [{lo:+.1f}, {hi:+.1f}]"


def _paired_length(res: BenchResult, i: int, a: str) -> tuple[float, float, float, int]:
    """% by which ``a``'s routes are longer than DP's on the tasks both delivered
    (per world, then the mean over worlds and its t-interval); > 0: DP shorter."""
    j = res.config.approaches.index(a)
    x, y = res.data["paired_length"][i, j], res.data["paired_length_ref"][i, j]
    ok = np.isfinite(x) & np.isfinite(y) & (y > 0)
    d = 100.0 * (x[ok] - y[ok]) / y[ok]
    if d.size < 2:
        return (math.nan, math.nan, math.nan, int(d.size))
    h = t_half_width(d)
    return (float(d.mean()), float(d.mean() - h), float(d.mean() + h), int(d.size))


def summarise(domain: str, b1: BenchResult, b2: BenchResult) -> dict[str, Any]:
    sizes = [int(v) for v in b2.config.values]
    aps = b2.config.approaches
    mean = {m: b2.mean(m) for m in b2.metrics}
    out: dict[str, Any] = {"domain": domain, "sizes": sizes, "worlds": b2.worlds,
                           "seed": b2.seed, "elapsed_s": b1.elapsed_s + b2.elapsed_s}
    out["success"] = {a: [float(v) for v in mean["success"][:, j]] for j, a in enumerate(aps)}
    out["messages"] = {a: [float(v) for v in mean["messages"][:, j]]
                       for j, a in enumerate(aps)}
    out["route_length"] = {a: [float(v) for v in mean["route_length"][:, j]]
                           for j, a in enumerate(aps)}
    if "sample_value" in mean:
        out["sample_value"] = {a: [float(v) for v in mean["sample_value"][:, j]]
                               for j, a in enumerate(aps)}
    if "legs" in mean:
        out["legs"] = {a: [float(v) for v in mean["legs"][:, j]] for j, a in enumerate(aps)}
        out["longest_leg_km"] = float(np.nanmax(b2.data["longest_leg"]))
    out["checks_b2"] = [dict(c) for c in b2.checks]
    out["checks_b1"] = [dict(c) for c in b1.checks]
    rel: dict[str, Any] = {}
    for a in ("noprivacy", "greedy", "bestfirst"):
        rel[a] = {
            "length_pct": [_paired_length(b2, i, a) for i in range(len(sizes))],
            "messages_pct": [_paired(b2, "messages", i, "dp", a, pct=True)
                             for i in range(len(sizes))],
            "success_pp": [_paired(b2, "success", i, "dp", a, pp=True)
                           for i in range(len(sizes))],
        }
        if "sample_value" in mean:
            rel[a]["value_pp"] = [_paired(b2, "sample_value", i, "dp", a, pp=True)
                                  for i in range(len(sizes))]
    out["dp_vs"] = rel
    # B1: the slope of DP's success and stretch per unit of epsilon, with its interval
    from core.logistics.experiments import _slope_ci

    j = b1.config.approaches.index("dp")
    out["b1_dp_slope"] = {m: _slope_ci(b1, m, j) for m in ("success", "stretch", "messages")}
    out["b1_dp_means"] = {m: [float(v) for v in b1.mean(m)[:, j]]
                          for m in ("success", "stretch", "messages")}
    return out


def report(s: dict[str, Any]) -> str:
    lines = [f"## {s['domain']} ({s['worlds']} worlds per point, seed {s['seed']}, "
             f"{s['elapsed_s']:.0f} s)", ""]
    sizes = s["sizes"]
    lines.append("success " + "; ".join(
        f"{a} " + " -> ".join(f"{v:.2f}" for v in vs) for a, vs in s["success"].items()))
    if "sample_value" in s:
        lines.append("sample value " + "; ".join(
            f"{a} " + " -> ".join(f"{v:.3f}" for v in vs)
            for a, vs in s["sample_value"].items()))
    if "legs" in s:
        lines.append("legs " + "; ".join(
            f"{a} " + " -> ".join(f"{v:.1f}" for v in vs) for a, vs in s["legs"].items())
            + f"; longest leg flown {s['longest_leg_km']:g} km")
    for a, rel in s["dp_vs"].items():
        for key, unit in (("length_pct", "%"), ("messages_pct", "%"), ("success_pp", " pp"),
                          ("value_pp", " pp")):
            if key in rel:
                lines.append(f"dp vs {a} {key}: " + "; ".join(
                    f"N={n}: {_fmt(t, unit)}" for n, t in zip(sizes, rel[key])))
    for m, (b, lo, hi) in s["b1_dp_slope"].items():
        lines.append(f"B1 dp {m} per unit epsilon: {b:+.3g} [{lo:+.3g}, {hi:+.3g}]; means "
                     + ", ".join(f"{v:.3g}" for v in s["b1_dp_means"][m]))
    lines.append("")
    for c in s["checks_b2"] + s["checks_b1"]:
        lines.append(f"[{'holds' if c['holds'] else 'DOES NOT HOLD'}] {c['claim']}: "
                     f"{c['observed']}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2020)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sizes", default="10,20,30,40,50")
    ap.add_argument("--domains", default="logistics,air,rover")
    ap.add_argument("--fuel-range", type=float, default=None,
                    help="air: the fuel range in km (default 600)")
    ap.add_argument("-o", "--output", default=None)
    args = ap.parse_args()
    sizes = [float(x) for x in args.sizes.split(",")]
    domains = args.domains.split(",")
    # refused up front when the declared work passes the time limit (PRIVPLAN_TIME_LIMIT_S),
    # saying how long it would take: B2 (5 approaches) and B1 (7 points x 3) per domain
    from core.cli.guard import PLAN_RUN_S, check_batch
    from core.common.errors import InputError

    runs = float(args.worlds) * len(domains) * (len(sizes) * 5 + 7 * 3)
    try:
        check_batch(runs, PLAN_RUN_S, "--worlds", workers=args.workers,
                    what=f"planning runs ({args.worlds:,} worlds x {len(domains)} domains)")
    except InputError as exc:
        print(f"domain_trends: {exc}", file=sys.stderr)
        return 2
    out_dir = Path(args.output) if args.output else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    for domain in domains:
        t0 = time.perf_counter()
        extra = ({"domain_params": {"fuel_range": args.fuel_range}}
                 if domain == "air" and args.fuel_range else {})
        b2 = run_benchmark("B2", values=sizes, worlds=args.worlds, seed=args.seed,
                           workers=args.workers, domain=domain, **extra)
        b1 = run_benchmark("B1", worlds=args.worlds, seed=args.seed, workers=args.workers,
                           domain=domain, **extra)
        s = summarise(domain, b1, b2)
        if extra:
            domain = f"air-{args.fuel_range:g}km"
            s["domain"] = domain
        text = report(s)
        print(text, flush=True)
        print(f"({domain}: {time.perf_counter() - t0:.0f} s wall)\n", flush=True)
        if out_dir:
            (out_dir / f"{domain}.md").write_text(text, encoding="utf-8")
            (out_dir / f"{domain}.json").write_text(
                json.dumps({"summary": s, "B1": b1.to_dict(), "B2": b2.to_dict()},
                           default=float) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
