"""Report sections of logistics planning: one planned task and the benchmarks."""

from __future__ import annotations

import math
from typing import Any

from core.common.palette import cycle_colour
from core.report.model import (
    Figure,
    KeyValues,
    Paragraph,
    Section,
    Series,
    Table,
    _eps,
    _fmt,
    _mode_text,
    _time,
    reporter,
)

__all__: list[str] = []


@reporter("plan")
def _plan_section(project: Any, run: Any) -> Section:
    """DP multi-agent route planning (``summary`` = the ``plan --json`` object)."""
    s = run.summary
    task = s.get("task", {}) or {}
    sec = Section(f"Route planning {task.get('origin', '?')} → agent "
                  f"{task.get('goal_agent', '?')} ({run.id})", id=f"run-{run.id}")
    sec.blocks.append(KeyValues((
        ("map", run.target), ("randomness", _mode_text(run)),
        ("approach", str(s.get("approach", ""))), ("preset", _fmt(s.get("preset"))),
        ("ε per agent", _fmt(s.get("epsilon"))),
        ("message budget per agent", _fmt(s.get("comm_budget"))), ("created", _time(run.created)),
    ), "Parameters"))
    ok = bool(s.get("success"))
    sec.blocks.append(KeyValues((
        ("outcome", "delivered" if ok else f"failed: {s.get('failure') or s.get('status')}"),
        ("route", " → ".join(map(str, s.get("route", []))) or "–"),
        ("length", _fmt(s.get("length"))), ("shortest length", _fmt(s.get("shortest_length"))),
        ("stretch", _fmt(s.get("stretch"))), ("messages", _fmt(s.get("messages"))),
    ), "Result"))
    spent = s.get("epsilon_spent", {}) or {}
    if spent:
        why = s.get("epsilon_spent_reason", {}) or {}
        sent = s.get("messages_sent", s.get("messages_by_agent", {})) or {}
        sec.blocks.append(Table(
            ("agent", "ε proven", "messages sent"),
            tuple((str(a), _eps(spent[a], why.get(a, "")), _fmt(sent.get(a)))
                  for a in sorted(spent)), "Privacy per agent (basic composition)"))
    fig = _route_figure(project, run)
    if fig is not None:
        sec.blocks.append(fig)
    for key in ("caveats", "thesis_flaws"):
        for n in s.get(key, []) or []:
            sec.blocks.append(Paragraph(str(n), "note"))
    return sec


def _route_figure(project: Any, run: Any) -> Figure | None:
    """The map of a plan run with its route drawn over the routes (None without positions)."""
    entry = next((m for m in getattr(project, "maps", []) if m.id == run.target), None)
    if entry is None:
        return None
    g = entry.world.graph
    pos = {v: d.get("pos") for v, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        return None
    xs: list[float] = []
    ys: list[float] = []
    for u, v in g.edges():
        xs += [pos[u][0], pos[v][0]]
        ys += [-pos[u][1], -pos[v][1]]  # the map's y grows downwards, as on screen
    route = [str(n) for n in run.summary.get("route", []) or [] if str(n) in pos]
    series = [Series("routes", tuple(xs), tuple(ys), colour="#BBBBBB", segments=True)]
    if len(route) >= 2:
        series.append(Series("planned route", tuple(pos[n][0] for n in route),
                             tuple(-pos[n][1] for n in route), colour=cycle_colour(0)))
    return Figure(f"{run.id}-route", f"Route on {entry.label}", "x", "y", tuple(series),
                  caption="The map as drawn in PrivPlan; the planned route is the blue line.")


@reporter("plan-bench")
def _plan_bench_section(project: Any, run: Any) -> Section:
    """A logistics benchmark (``summary`` = :func:`core.logistics.records.bench_summary`)."""
    from core.common.palette import APPROACH_COLOURS
    from core.logistics.records import APPROACH_NAMES, BENCH_METRICS, BENCH_PARAM_LABELS

    s = run.summary
    cfg = s.get("config", {}) or {}
    param = str(cfg.get("parameter", ""))
    sec = Section(f"Benchmark {s.get('benchmark', '?')}: {s.get('title', '')} ({run.id})",
                  id=f"run-{run.id}")
    sec.blocks.append(KeyValues((
        ("randomness", _mode_text(run)), ("worlds per point", _fmt(s.get("worlds"))),
        ("swept", BENCH_PARAM_LABELS.get(param, param)),
        ("values", ", ".join(_fmt(v) for v in cfg.get("values", []))),
        ("approaches", ", ".join(str(a) for a in cfg.get("approaches", []))),
        ("thesis figure", _fmt(s.get("thesis_figure"))), ("created", _time(run.created)),
    ), "Parameters"))
    rows = [r for r in s.get("rows", []) or [] if isinstance(r, dict)]

    def num(v: Any) -> float:
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    for key, title, ylabel in BENCH_METRICS:
        series = []
        for a in cfg.get("approaches", []):
            pts = sorted((r for r in rows if r.get("approach") == a),
                         key=lambda r: num(r.get(param)))
            if not pts:
                continue
            lo = [num(r.get(f"{key}_ci_low")) for r in pts]
            hi = [num(r.get(f"{key}_ci_high")) for r in pts]
            err = tuple(0.0 if math.isnan(h - lo_) else (h - lo_) / 2 for lo_, h in zip(lo, hi))
            series.append(Series(APPROACH_NAMES.get(a, str(a)),
                                 tuple(num(r.get(param)) for r in pts),
                                 tuple(num(r.get(key)) for r in pts), err,
                                 dashed=(a == "dp-thesis"), colour=APPROACH_COLOURS.get(a)))
        if series:
            sec.blocks.append(Figure(f"{run.id}-{key}", f"{title} (mean ± 95 % CI)",
                                     BENCH_PARAM_LABELS.get(param, param), ylabel,
                                     tuple(series)))
    checks = [c for c in s.get("checks", []) or [] if isinstance(c, dict)]
    if checks:
        sec.blocks.append(Table(("claim", "holds", "observed"), tuple(
            (str(c.get("claim", "")), "yes" if c.get("holds") else "no",
             str(c.get("observed", ""))) for c in checks), "Trend checks"))
    return sec
