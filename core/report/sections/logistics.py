"""Report sections of logistics planning: one planned task and the benchmarks."""

from __future__ import annotations

import math
from typing import Any

from core.common.palette import cycle_colour
from core.common.quantities import REAL
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
    s, prm = run.summary, run.params or {}
    task = s.get("task", {}) or {}
    sec = Section(f"Route planning {task.get('origin', '?')} → agent "
                  f"{task.get('goal_agent', '?')} ({run.id})", id=f"run-{run.id}")
    sec.blocks.append(KeyValues((
        ("map", run.target), ("randomness", _mode_text(run)),
        ("approach", str(s.get("approach", prm.get("approach", "")))),
        ("preset", _fmt(s.get("preset", prm.get("preset")))),
        ("ε per agent", _fmt(s.get("epsilon", prm.get("epsilon")))),
        ("message budget per agent", _fmt(s.get("comm_budget", prm.get("comm_budget")))),
        ("created", _time(run.created)),
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
    curve = s.get("learning_curve")
    if isinstance(curve, dict) and curve.get("greedy_cost"):
        sec.blocks.append(_learning_figure(run.id, curve))
    for key in ("caveats", "thesis_flaws"):
        for n in s.get(key, []) or []:
            sec.blocks.append(Paragraph(str(n), "note"))
    return sec


#: How the route figure marks a location, by its role: (colour, marker), after the map
#: editor's glyphs (● a base, ■ a center, ◆ another role); the task's ends on top.
_NODE_STYLE = {"base": ("#56B4E9", "o"), "center": ("#009E73", "s"), "role": ("#CC79A7", "d")}
_ORIGIN_STYLE = ("#000000", "t")
_GOAL_STYLE = ("#D55E00", "d")


def _route_figure(project: Any, run: Any) -> Figure | None:
    """The map of a plan run: its routes in grey, its locations as markers by role (bases,
    centers, other roles; the task's origin and destination), the planned route over them.

    A map without stored positions is laid out as the map editor draws it
    (:func:`core.logistics.layout_positions`), so a plan run always has its figure.
    """
    from core.logistics import layout_positions, map_to_dict, profile

    entry = next((m for m in getattr(project, "maps", []) if m.id == run.target), None)
    if entry is None:
        return None
    g = entry.world.graph
    pos = layout_positions(map_to_dict(entry.world))
    xs: list[float] = []
    ys: list[float] = []
    for u, v in g.edges():
        xs += [pos[u][0], pos[v][0]]
        ys += [-pos[u][1], -pos[v][1]]  # the map's y grows downwards, as on screen
    series = [Series("routes", tuple(xs), tuple(ys), colour="#BBBBBB", segments=True)]
    route = [str(n) for n in run.summary.get("route", []) or [] if str(n) in pos]
    if len(route) >= 2:
        series.append(Series("planned route", tuple(pos[n][0] for n in route),
                             tuple(-pos[n][1] for n in route), colour=cycle_colour(0)))
    prof = profile(getattr(entry.world, "domain", "logistics") or "logistics")
    groups: dict[tuple[str, str], list[str]] = {}
    for v, d in g.nodes(data=True):
        kind = str(d.get("kind", "base"))
        role = str(d.get("role") or "") if kind == "base" else ""
        groups.setdefault((kind, role), []).append(str(v))
    for (kind, role), nodes in sorted(groups.items()):
        name = _plural(prof, kind, role)
        other_role = bool(role and prof.roles and role != prof.roles[0])
        colour, symbol = _NODE_STYLE["center" if kind == "center" else
                                     "role" if other_role else "base"]
        series.append(Series(name, tuple(pos[n][0] for n in nodes),
                             tuple(-pos[n][1] for n in nodes), colour=colour, markers=True,
                             symbol=symbol))
    task = run.summary.get("task", {}) or {}
    ends = [("origin", task.get("origin"), _ORIGIN_STYLE),
            ("destination", route[-1] if len(route) >= 2 else task.get("goal"), _GOAL_STYLE)]
    for label, node, (colour, symbol) in ends:
        if node is not None and str(node) in pos:
            p = pos[str(node)]
            series.append(Series(f"{label} {node}", (p[0],), (-p[1],), colour=colour,
                                 markers=True, symbol=symbol))
    drawn = "as drawn in PrivPlan" if _positions_stored(entry) else \
        "laid out automatically (the map stores no positions)"
    return Figure(f"{run.id}-route", f"Route on {entry.label}", "x", "y", tuple(series),
                  caption=f"The map {drawn}: routes in grey, locations marked by role; the "
                          "planned route is the blue line.")


def _positions_stored(entry: Any) -> bool:
    """Whether every location of a map entry has a stored position."""
    return all(d.get("pos") is not None for _, d in entry.world.graph.nodes(data=True))


def _plural(prof: Any, kind: str, role: str) -> str:
    """The legend's name of a group of locations, in the map's domain's words."""
    v = prof.vocabulary
    if kind == "center":
        return str(v.centers)
    if role and prof.roles and role != prof.roles[0]:
        return f"{prof.label(kind, role)}s"
    return str(v.bases)


def _learning_figure(run_id: str, curve: dict[str, Any]) -> Figure:
    """The RL high-level solver's learning curve (thesis §4.5.3) of a plan run."""
    def num(v: Any) -> float:
        return float(v) if isinstance(v, (int, float)) else math.nan

    greedy = [num(v) for v in curve.get("greedy_cost", [])]
    walks = [num(v) for v in curve.get("episode_cost", [])]
    xs = tuple(float(i + 1) for i in range(len(greedy)))
    series = [Series("sampled walk", xs[:len(walks)], tuple(walks), colour="#AAAAAA"),
              Series("learned route", xs, tuple(greedy), colour=cycle_colour(0))]
    opt = curve.get("optimum")
    if opt is not None and xs:
        series.append(Series("Dijkstra's optimum", (xs[0], xs[-1]), (float(opt), float(opt)),
                             dashed=True, colour="#333333"))
    return Figure(f"{run_id}-learning", "RL high-level solver: learning curve", "episode",
                  "route cost on the center graph", tuple(series),
                  caption="Thesis §4.5.3: the cost of each episode's walk and of the route "
                          "the learned probabilities choose, against Dijkstra's optimum.")


@reporter("plan-bench")
def _plan_bench_section(project: Any, run: Any) -> Section:
    """A logistics benchmark (``summary`` = :func:`core.logistics.records.bench_summary`)."""
    from core.common.palette import APPROACH_COLOURS
    from core.logistics.records import (
        APPROACH_NAMES,
        BENCH_METRICS,
        BENCH_PARAM_LABELS,
        BENCH_RANGES,
    )

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
            # the interval's own ends (clipped to the metric's range by Series), not
            # mean ± half its width: that drew success rates above 1
            series.append(Series(APPROACH_NAMES.get(a, str(a)),
                                 tuple(num(r.get(param)) for r in pts),
                                 tuple(num(r.get(key)) for r in pts),
                                 dashed=(a == "dp-thesis"), colour=APPROACH_COLOURS.get(a),
                                 low=tuple(num(r.get(f"{key}_ci_low")) for r in pts),
                                 high=tuple(num(r.get(f"{key}_ci_high")) for r in pts),
                                 limits=BENCH_RANGES.get(key, REAL)))
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


@reporter("plan-packet")
def _plan_packet_section(project: Any, run: Any) -> Section:
    """A packet-routing study, Figs 4.9–4.11 (``summary`` =
    :func:`core.logistics.packet_records.run_packet_experiment`)."""
    from core.common.palette import APPROACH_COLOURS
    from core.logistics.packet_records import (
        PACKET_PLOTS,
        PACKET_RANGES,
        PACKET_TITLES,
        packet_series,
    )
    from core.logistics.records import APPROACH_NAMES

    s = run.summary
    name = str(s.get("experiment", "?"))
    prm = s.get("params", {}) or {}
    x = str(s.get("x", ""))
    x_label = {"n_centers": "network size (access points)", "epsilon": "ε per agent",
               "dynamics": "dynamism p (leave = join, per step)"}.get(x, x)
    sec = Section(f"Packet routing {PACKET_TITLES.get(name, name)} ({run.id})",
                  id=f"run-{run.id}")
    values = prm.get("values")
    sec.blocks.append(KeyValues((
        ("randomness", f"{_mode_text(run)}; master seed {s.get('seed_source', '')}"),
        ("worlds per approach and point", _fmt(s.get("n"))),
        ("swept", x_label),
        ("values", ", ".join(_fmt(v) for v in values) if values else "the thesis's"),
        ("approaches", ", ".join(APPROACH_NAMES.get(a, str(a))
                                 for a in s.get("approaches", []) or [])),
        ("dynamics", f"p = {_fmt(prm.get('dynamics'))} (fig49/fig410), "
                     f"{prm.get('dynamics_per', '')}-wise churn, "
                     f"{prm.get('connectivity', '')} kept connected"),
        ("access points", _fmt(prm.get("sizes")) if prm.get("sizes") else "as the figure"),
        ("high-level solver", str(prm.get("solver", ""))),
        ("created", _time(run.created)),
    ), "Parameters"))
    two = name != "fig411"
    for key, title, ylabel in PACKET_PLOTS:
        series = []
        for ser in packet_series(s, key):
            a, scen = ser["arm"], ser["scenario"]
            label = APPROACH_NAMES.get(a, a) + ({"packet": " (packet)",
                                                 "logistics": " (logistics)"}.get(scen, ""))
            series.append(Series(label, tuple(ser["x"]), tuple(ser["mean"]),
                                 dashed=scen == "logistics", colour=APPROACH_COLOURS.get(a),
                                 low=tuple(ser["lo"]), high=tuple(ser["hi"]),
                                 limits=PACKET_RANGES.get(key, REAL)))
        if series:
            sec.blocks.append(Figure(
                f"{run.id}-{key}", f"{title} (mean ± 95 % CI)", x_label, ylabel,
                tuple(series),
                caption="Solid: packet routing; dashed: logistics (static network)." if two
                else "The static network (dynamism 0) is the reference point."))
    claims = [c for c in s.get("claims", []) or [] if isinstance(c, dict)]
    if claims:
        def est(c: dict[str, Any]) -> str:
            lo, hi = (list(c.get("interval") or []) + [None, None])[:2]
            return (_fmt(c.get("estimate")) + ("" if lo is None or hi is None else
                                               f" [{_fmt(lo)}, {_fmt(hi)}]"))

        sec.blocks.append(Table(
            ("the thesis expects", "holds", "verdict", "paired estimate [95 % CI]",
             "p (Holm)"),
            tuple((str(c.get("claim", "")), "yes" if c.get("holds") else "no",
                   str(c.get("verdict", "")), est(c), _fmt(c.get("p_adjusted")))
                  for c in claims),
            f"Claims: {s.get('claims_hold', 0)} of {s.get('claims_total', 0)} hold "
            "(paired tests on the same seeds, Holm-adjusted, α = 0.05)"))
    priv = s.get("privacy", {}) or {}
    if priv:
        sec.blocks.append(Table(
            ("approach", "ε per agent under the dynamics"),
            tuple((APPROACH_NAMES.get(a, a), _eps(g.get("epsilon"), g.get("epsilon_reason", "")))
                  for a, g in priv.items()),
            f"What a real run proves under dynamism {_fmt(s.get('privacy_dynamics'))}"))
    sec.blocks.append(Paragraph("A seeded experiment on generated worlds: nothing private is "
                                "released and nothing enters the ledger.", "note"))
    return sec
