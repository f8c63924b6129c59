"""Results of one planning run, side by side with the map editor (thesis Fig 4.1–4.6).

:class:`PlanResultsView` holds a banner (delivered, or the failure reason in red) over six
tabs, all drawn from the run's :class:`~core.logistics.planner.PlanResult` and the
:class:`~core.logistics.planner.PlanningSession` the worker returned:

* **Route** — the true map (read-only) with the executed route, each leg in the colour of
  the agent that carried it, hand-over centers ringed; a table of the legs: who carried
  what, and what the others learn (only the hand-over centers);
* **Agent map (Fig 4.3)** — the origin's high-level map from Step 1: agents as nodes
  (laid out by query level), shared centers as edges; origin, goal and the intermediate
  agents marked; the agents on the route joined in bold;
* **True vs obfuscated (Fig 4.4)** — pick an agent: its true local map with lengths (private)
  beside what it released, drawn in the accent colour: the obfuscated topology (fake nodes
  and routes dashed), with edge labels showing the private lengths, the RL probabilities
  (4.4c) or the released probabilities (4.4d) towards a chosen center; the histogram and
  noise figures below. Agents that did not publish in this run can be previewed (a
  what-if on a fresh session: nothing is recorded);
* **Center graph (Fig 4.6)** — the origin's center graph with the estimated crossing
  lengths (exact on its own map, estimated from released probabilities elsewhere, 0 for the
  unknown goal leg) and the chosen center route in bold, plus the same arcs as a table;
* **Ledger** — per agent: its role, the ε each release *proves* by mechanism (topology /
  route probabilities; ∞ with the reason where it proves none), the thesis's nominal ε
  beside it (not a guarantee), messages sent, the budget C and what is left, and what it
  released; below, the preset's caveats (sound) or the thesis flaws (thesis);
* **RL learning curve** — with the RL high-level solver (§4.5.3): the cost of each episode's
  walk and of the learned route against Dijkstra's optimum
  (:mod:`gui.logistics.learning_view`).

The banner states the run's headline privacy figure: the largest per-agent ε proven, or
"no proven bound" with the reason (never a nominal figure). The Fig 4.4 tab can show an
agent's release *as received* by the origin: opaque ids in release order, no lengths, no
real names, no fake flags, laid out from the released graph alone.

The tabs live one family per module: the route and ledger tabs and the view here, the
obfuscation tab (Fig 4.4) in :mod:`gui.logistics.obfuscation_view`, the centers tab (Fig 4.6)
in :mod:`gui.logistics.centers_view`; colours, formatting and table cells they share in
:mod:`gui.logistics.result_parts`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.logistics.centers_view import CenterGraphTab
from gui.logistics.learning_view import LearningCurveTab
from gui.logistics.map_view import (
    MapCanvas,
)
from gui.logistics.obfuscation_view import AgentMapView, ObfuscationTab
from gui.logistics.result_parts import (
    GOAL,
    ORIGIN,
    TABS,
    RatioSplitter,
    chosen_arcs,
    column,
    eps_text,
    fmt_estimate,
    guarantee_text,
    make_cell,
    make_table,
    rich_label,
    world_colours,
)
from gui.shell.style import ERROR_COLOUR, fmt_num
from gui.shell.widgets import header_item

__all__ = ["PlanResultsView", "RouteTab", "AgentMapView", "ObfuscationTab", "CenterGraphTab",
           "LedgerTab", "world_colours", "chosen_arcs", "ledger_rows", "fmt_estimate",
           "guarantee_text",
           "ORIGIN", "GOAL", "TABS"]


class RouteTab(QWidget):
    """The true map with the executed route, and the legs as a table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = MapCanvas(self, editable=False)
        self.canvas.show_empty("Run a task (F5) to see its route on the true map here.")
        self.table = make_table(("agent", "from", "to", "leg length", "what the others learn"),
                                self)
        self.table.setMinimumWidth(260)
        self.plan_label = rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.6, self)
        split.addWidget(self.canvas)
        split.addWidget(column(self, self.plan_label, self.table))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(split)

    def clear(self) -> None:
        self.canvas.set_route(None)
        self.canvas.set_map(None)
        self.canvas.show_empty("Run a task (F5) to see its route on the true map here.")
        self.table.setRowCount(0)
        self.plan_label.setText("")

    def show_result(self, world: Any, map_dict: Mapping[str, Any], result: Any) -> None:
        self.canvas.set_route(result.route if result.success else None, result.segments)
        self.canvas.set_map(map_dict)
        self.table.setRowCount(0)
        if not result.success:
            self.plan_label.setText("<i>No route was executed.</i>")
            return
        g = world.graph
        route = list(result.route)
        i = 0
        origin_agent = world.agent_of(result.task.origin)
        for ag, f, t in result.segments:
            j = route.index(t, i)
            leg = route[i:j + 1]
            i = j
            length = sum(float(g.edges[a, b]["length"]) for a, b in zip(leg, leg[1:]))
            if ag == origin_agent:
                learn = "nothing: the origin's own leg on its own map"
            elif t == route[-1]:
                learn = f"only that {ag} took the package at {f} (the goal base stays private)"
            else:
                learn = f"only the hand-over centers {f} → {t}; the path inside stays private"
            r = self.table.rowCount()
            self.table.insertRow(r)
            tip = " → ".join(leg)
            for c, text in enumerate((ag, f, t, f"{length:g}", learn)):
                self.table.setItem(r, c, make_cell(text, tip, align_right=c == 3))
        view = " → ".join(result.plan_view)
        self.plan_label.setText(
            f"<b>The plan as the origin {html.escape(origin_agent)} knows it</b> "
            f"(Alg 6 line 10): {html.escape(view)}<br>"
            f"<span style='color:#555'>Executed: {len(route)} nodes, length "
            f"{result.length:g}.</span>")


# ---------------------------------------------------------------------------- Fig 4.3


def ledger_rows(world: Any, result: Any, session: Any) -> list[dict[str, Any]]:
    """Per agent of ``world``: role, ε by mechanism, messages, budget, what it released."""
    origin = world.agent_of(result.task.origin)
    goal = result.task.goal_agent
    cands = set(result.discovery.candidates) if result.discovery is not None else set()
    carried = {s[0]: (s[1], s[2]) for s in result.segments}
    spent = session.epsilon_spent()
    nominal = session.epsilon_nominal()
    reasons = session.epsilon_reasons()
    rows = []
    for a in world.agents:
        roles = []
        if a == origin:
            roles.append("origin")
        if a == goal:
            roles.append("goal")
        if a in cands:
            roles.append("intermediate")
        if a in carried and a not in (origin, goal):
            f, t = carried[a]
            roles.append(f"carried {f}→{t}")
        entries = session.ledgers[a].entries
        topo = sum(e.epsilon * e.count for e in entries if "Alg 7" in e.source)
        probs = sum(e.epsilon * e.count for e in entries if "Alg 7" not in e.source)
        mechs = sorted({e.mechanism for e in entries})
        released = "; ".join(e.released for e in entries) or "nothing"
        comm = session.comm[a]
        budget = comm.budget
        rows.append({
            "agent": a, "role": ", ".join(roles) or "—",
            "eps_topology": topo, "eps_probabilities": probs, "eps_total": spent[a],
            "eps_nominal": nominal[a], "reason": reasons.get(a, ""), "mechanisms": mechs,
            "messages": comm.sent, "budget": budget,
            "left": (math.inf if math.isinf(budget) else budget - comm.sent),
            "eps_comm_left": comm.epsilon - comm.epsilon_used,
            "released": released, "entries": len(entries)})
    return rows


class LedgerTab(QWidget):
    """Per-agent ledger of one run, with the preset's caveats or the thesis flaws."""

    HEADERS = ("agent", "role in this task", "ε topology\n(proven, Alg 7)",
               "ε route probabilities\n(proven)", "ε proven\n(basic)",
               "nominal ε\n(thesis accounting)", "messages\nsent", "budget C", "messages\nleft",
               "ε − ε·sent/C\n(bookkeeping)", "what it released")
    TIPS = (
        "", "", "ε proven for the agent's released topology (the noisy 1K degree histogram, "
        "realised as a map). ∞: no finite ε covers it (overlap rewiring keeps real routes, "
        "F4; or d_max is the map's own maximum degree, F3).",
        "ε proven for the route probabilities the agent released (sound: Laplace noise, "
        "computed on the fake map; ∞ for the thesis's deterministic Eq. 4.2 softmax, F5).",
        "Σ ε of this run's releases by the agent (basic sequential composition): what this "
        "run proves for the agent's map. ∞: nothing is proven (hover for the reason).",
        "What the preset's parameters nominally spend (the thesis's own accounting, e.g. "
        "ε per step). Not a guarantee: see “ε proven”.",
        "Messages this agent sent (queries, replies, map requests and replies, hand-overs).",
        "Communication budget C per agent (messages); the thesis counts ε/C per message.",
        "C minus messages sent: when it reaches 0 the agent stops communicating.",
        "The thesis's per-message bookkeeping: ε·(1 − sent/C) of the agent's ε is left "
        "(not noise).", "Each release, as recorded in the privacy ledger.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = make_table(self.HEADERS, self)
        for i, tip in enumerate(self.TIPS):
            if tip:
                header_item(self.table, i).setToolTip(tip)
        self.table.horizontalHeader().setSectionResizeMode(
            len(self.HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        self.notes = QTextBrowser(self)
        self.notes.setOpenExternalLinks(False)
        self.notes.setMaximumHeight(150)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.notes)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.rows: list[dict[str, Any]] = []
        self.clear()

    def clear(self) -> None:
        self.rows = []
        self.table.setRowCount(0)
        self.notes.setHtml("<p style='color:#666'>After a run, this table says, for every "
                           "agent, what it released (a noisy topology and route "
                           "probabilities; never lengths), the ε each release cost, the "
                           "messages it sent and how much of its budget is left.</p>")

    def show_result(self, world: Any, result: Any, session: Any, *, run_id: str = "") -> None:
        self.rows = ledger_rows(world, result, session)
        self.table.setRowCount(0)
        for row in self.rows:
            r = self.table.rowCount()
            self.table.insertRow(r)
            vals = (row["agent"], row["role"], eps_text(row["eps_topology"]),
                    eps_text(row["eps_probabilities"]), eps_text(row["eps_total"]),
                    eps_text(row["eps_nominal"]), str(row["messages"]),
                    "∞" if math.isinf(row["budget"]) else f"{row['budget']:g}",
                    "∞" if math.isinf(row["left"]) else f"{row['left']:g}",
                    fmt_num(row["eps_comm_left"], 3), row["released"])
            for c, text in enumerate(vals):
                tip = row["released"] if c == 10 else (
                    f"no proven bound: {row['reason']}" if 2 <= c <= 4 and text == "∞" else "")
                it = make_cell(text, tip, bold=c == 0 and row["role"] != "—",
                           align_right=2 <= c <= 9)
                if 2 <= c <= 4 and text == "∞":
                    it.setForeground(QBrush(QColor(ERROR_COLOUR)))
                if c == 8 and not math.isinf(row["left"]) and row["left"] <= 0:
                    it.setForeground(QBrush(QColor(ERROR_COLOUR)))
                self.table.setItem(r, c, it)
        s = session
        if s.mode == "experiment":
            mode = (f"Seeded experiment (seed {s.seed}): the noise is reproducible from the "
                    "seed, so these releases are listed in the project ledger as "
                    "<i>experiment</i> entries — shown, but not spent against budgets.")
        else:
            mode = ("Release mode: secure noise; these releases are recorded in the project "
                    "ledger and spent against each agent's budget.")
        p = s.params
        g = s.guarantee()
        head = (f"<p><b>Proven:</b> {html.escape(guarantee_text(s))}</p>")
        if p.preset == "thesis":
            items = "".join(f"<li>{html.escape(f)}</li>" for f in s.flaws())
            extra = (f"{head}<p><b>Thesis preset</b>: nominal ε = {p.epsilon:g} per agent by "
                     f"the thesis's own accounting — not a guarantee: the Laplace and "
                     f"exponential steps each use ε (F1), and the release proves no finite ε "
                     f"at all (F3, F4, F5). The thesis's flaws:</p><ul>{items}</ul>")
        else:
            items = "".join(f"<li>{html.escape(c)}</li>" for c in s.caveats())
            extra = (f"{head}<p><b>Sound preset</b>: ε = {p.epsilon:g} per agent, split "
                     f"ε<sub>L</sub> = {p.epsilon_laplace:g} (topology) + "
                     f"ε<sub>E</sub> = {p.epsilon_exponential:g} (route probabilities); "
                     f"{html.escape(g.adjacency)}. Caveats:</p><ul>{items}</ul>")
        ref = f" Recorded as {html.escape(run_id)}." if run_id else ""
        self.notes.setHtml(f"<p>{mode}{ref}</p>{extra}")


# ---------------------------------------------------------------------------- the whole view


class PlanResultsView(QWidget):
    """The banner and the six result tabs of one planning run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.banner = rich_label(self, selectable=True)
        self.tabs = QTabWidget(self)
        self.route_tab = RouteTab(self)
        self.agent_map = AgentMapView(self)
        self.obfuscation = ObfuscationTab(self)
        self.center_graph = CenterGraphTab(self)
        self.ledger = LedgerTab(self)
        self.learning = LearningCurveTab(self)
        self.tabs.addTab(self.route_tab, "Route (true map)")
        self.tabs.addTab(self.agent_map, "Agent map (Fig 4.3)")
        self.tabs.addTab(self.obfuscation, "True vs obfuscated (Fig 4.4)")
        self.tabs.addTab(self.center_graph, "Center graph (Fig 4.6)")
        self.tabs.addTab(self.ledger, "Ledger")
        self.tabs.addTab(self.learning, "RL learning curve")
        tips = ("The executed route on the true map: who carried which leg, hand-overs ringed.",
                "Step 1: the agents the origin's query reached and the centers they share.",
                "An agent's true map beside what it released (accent colour).",
                "Step 3: the origin's center graph with estimated crossing lengths.",
                "Per agent: ε spent by mechanism, messages, budget left, what it released.",
                "Step 3 with the RL solver (§4.5.3): its learning curve against Dijkstra.")
        for i, tip in enumerate(tips):
            self.tabs.setTabToolTip(i, tip)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.banner)
        lay.addWidget(self.tabs, 1)
        self.world: Any = None
        self.result: Any = None
        self.session: Any = None
        self.clear()

    def clear(self, text: str = "") -> None:
        self.world = self.result = self.session = None
        self.banner.setStyleSheet("QLabel { color: #555; padding: 4px; }")
        self.banner.setText(text or "Pick a task (origin base and goal agent) and press "
                            "<b>Run (F5)</b>. The route, the figures of each step and the "
                            "per-agent ledger appear here.")
        for t in (self.route_tab, self.agent_map, self.obfuscation, self.center_graph,
                  self.ledger, self.learning):
            t.clear()

    def show_tab(self, key: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(key))

    def show_result(self, world: Any, map_dict: Mapping[str, Any], result: Any, session: Any,
                    *, run_id: str = "", mode_text: str = "") -> None:
        self.world, self.result, self.session = world, result, session
        colours = world_colours(world)
        r = result
        where = f" · {html.escape(mode_text)}" if mode_text else ""
        rid = f" · {html.escape(run_id)}" if run_id else ""
        if r.success:
            stretch = f", stretch {r.stretch:.2f}" if r.stretch is not None else ""
            self.banner.setStyleSheet("QLabel { background: #EAF5EE; border: 1px solid #9BC8A8;"
                                      " border-radius: 3px; padding: 4px 8px; }")
            self.banner.setText(
                f"<b>✓ Delivered</b> {html.escape(r.task.origin)} → "
                f"{html.escape(r.route[-1])} (agent {html.escape(r.task.goal_agent)}): length "
                f"<b>{r.length:g}</b> (true shortest {r.shortest_length:g}{stretch}), "
                f"<b>{r.messages}</b> messages, carried by "
                f"{' → '.join(html.escape(a) for a in r.agents)} via centers "
                f"{', '.join(html.escape(c) for c in r.centers) or '—'}"
                f" · {html.escape(r.approach)}{where}{rid}"
                f"<br>Privacy: {html.escape(guarantee_text(session))}")
        else:
            self.banner.setStyleSheet(
                f"QLabel {{ background: #FDECE6; border: 2px solid {ERROR_COLOUR}; "
                "border-radius: 3px; padding: 6px 8px; font-size: 11pt; }")
            self.banner.setText(
                f"<b style='color:{ERROR_COLOUR}'>✗ Not delivered: "
                f"{html.escape(r.failure or r.status)}</b> ({html.escape(r.status)}) — task "
                f"{html.escape(r.task.origin)} → agent {html.escape(r.task.goal_agent)}, "
                f"{r.messages} messages sent · {html.escape(r.approach)}{where}{rid}. "
                "A task that cannot be planned is a result, not an error."
                f"<br>Privacy: {html.escape(guarantee_text(session))}")
        self.route_tab.show_result(world, map_dict, r)
        self.agent_map.show_result(world, r, colours)
        self.obfuscation.show_result(world, r, session, colours)
        self.center_graph.show_result(world, r, colours)
        self.ledger.show_result(world, r, session, run_id=run_id)
        curves = getattr(session, "learning_curves", None) or []
        self.learning.show_curve(curves[-1] if curves else None, plans=len(curves))
