"""Logistics routes (thesis Fig 4.7/4.8) and the air and rover domains (§4.7.2–4.7.3):
the claims of docs/claims.md, paired by world seed, Holm-adjusted per study.

``--study routes``: logistics at N = 10, 30, 50 (ε = 0.5) and DP-based at ε 0.2 and 0.8
(N = 10), the four approaches on the same worlds and packages. ``--study domains``: the
same on the air (fuel range 600 km) and rover worlds; under the same master seed the air
world of a replicate is the logistics world of that replicate with its long hops split.
Every claim is DP-based relative to the other approach (``a − b`` = DP − other; lengths on
the tasks both delivered); :func:`percent_table` adds the same comparisons as shares of the
other approach (lengths, messages) and in points (success), means over worlds with 95 % t
intervals, and the delivery rates per size.

Usage::

    python bench/logistics_claims.py [--study routes|domains] [--n 25] [--workers 1]
        [--master-seed 2020] [--second-seed 7] [--json OUT.json]

``--json OUT`` writes every replicate's values and seeds and the claims, in the format
``bench/claims.py`` saves and checks (families ``logistics_routes`` and ``domain_trends``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claims_lib import parser, run_claims  # noqa: E402

from core.common.stats import t_half_width  # noqa: E402
from core.logistics.route_claims import route_claims, route_study  # noqa: E402
from core.study.runner import StudyResult  # noqa: E402

MASTER_SEEDS = (2020, 7)
STUDIES = {"routes": ("logistics",), "domains": ("air", "rover")}
OTHERS = ("noprivacy", "greedy", "bestfirst")


def _mean_t(d: np.ndarray) -> str:
    d = d[np.isfinite(d)]
    if d.size < 2:
        return "n/a"
    h = t_half_width(d)
    return f"{d.mean():+.1f} [{d.mean() - h:+.1f}, {d.mean() + h:+.1f}]"


def _shares(res: StudyResult, p: int, other: str) -> tuple[str, str, str]:
    """DP relative to ``other`` at point ``p``, per world then the mean with its 95 % t
    interval: length % of the other's (tasks both delivered), messages % of the other's,
    success in points."""
    x, y = res.column("paired_length_dp", other, p), res.column("paired_length", other, p)
    ok = np.isfinite(x) & np.isfinite(y) & (y > 0)
    length = 100.0 * (x[ok] - y[ok]) / y[ok]
    md, mo = res.column("messages", "dp", p), res.column("messages", other, p)
    ok = np.isfinite(md) & np.isfinite(mo) & (mo > 0)
    msgs = 100.0 * (md[ok] - mo[ok]) / mo[ok]
    succ = 100.0 * (res.column("success", "dp", p) - res.column("success", other, p))
    return (f"{_mean_t(length)} ({length.size} worlds)", _mean_t(msgs), _mean_t(succ))


def _where(point: Any) -> str:
    return f"{point['domain']}, N = {point['n_centers']}"


def percent_table(results: Sequence[StudyResult]) -> str:
    """DP relative to each other approach at every size, as shares and points, under every
    master seed; then each approach's delivery rate per size (no test: descriptive)."""
    lines = ["| where | DP vs | " + " | ".join(
        f"master seed {r.master_seed}: length % [95 % t] (worlds), messages %, success points"
        for r in results) + " |", "|---|---|" + "---|" * len(results)]
    first = results[0]
    sized = [i for i, p in enumerate(first.points) if p["epsilon"] == 0.5]
    for i in sized:
        for other in OTHERS:
            cells = ["; ".join(_shares(r, i, other)) for r in results]
            lines.append(f"| {_where(first.points[i])} | {other} | " + " | ".join(cells)
                         + " |")
    lines += ["", "Delivered (mean share of packages over the worlds), N = "
              + " → ".join(str(first.points[i]["n_centers"]) for i in sized[:3]) + ":", ""]
    domains = list(dict.fromkeys(first.points[i]["domain"] for i in sized))
    for d in domains:
        idx = [i for i in sized if first.points[i]["domain"] == d]
        for r in results:
            parts = []
            for arm in first.arms:
                vals = [float(np.nanmean(r.column("success", arm, i))) for i in idx]
                parts.append(f"{arm} " + " → ".join(f"{100 * v:.0f} %" for v in vals))
            lines.append(f"- {d}, master seed {r.master_seed} (n = {r.n} worlds): "
                         + "; ".join(parts))
    return "\n".join(lines)


def longest_leg(results: Sequence[StudyResult]) -> float:
    """The longest flight leg of any delivered air plan in any saved run (km)."""
    out = -math.inf
    for r in results:
        for i, p in enumerate(r.points):
            if p["domain"] == "air":
                for arm in r.arms:
                    v = r.column("longest_leg", arm, i)
                    if np.isfinite(v).any():
                        out = max(out, float(np.nanmax(v)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = parser(__doc__.split("\n\n")[0], n=25, master_seed=MASTER_SEEDS[0],
                second_seed=MASTER_SEEDS[1])
    ap.add_argument("--study", choices=tuple(STUDIES), default="routes",
                    help="logistics (routes) or the air and rover worlds (domains)")
    args = ap.parse_args(argv)
    study = route_study(n=args.n, master_seed=args.master_seed, domains=STUDIES[args.study])
    return run_claims(study, route_claims(study), args,
                      metrics=("success", "messages", "route_length", "paired_tasks"),
                      center="mean")


if __name__ == "__main__":
    raise SystemExit(main())
