"""Results of one planning run, side by side with the map editor (thesis Fig 4.1–4.6).

:class:`PlanResultsView` holds a banner (delivered, or the failure reason in red) over five
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
  released; below, the preset's caveats (sound) or the thesis flaws (thesis).

The banner states the run's headline privacy figure: the largest per-agent ε proven, or
"no proven bound" with the reason (never a nominal figure). The Fig 4.4 tab can show an
agent's release *as received* by the origin: opaque ids in release order, no lengths, no
real names, no fake flags, laid out from the released graph alone.

Over 600 lines: one module per figure family of the thesis would scatter the shared map
colours and estimate formatting; the tabs are independent classes (route, agents,
obfuscation, centers, ledger), so splitting one out later is a move, not a rewrite.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.logistics.planner import center_route
from gui.logistics.map_view import (
    BASE_RADIUS,
    CENTER_FILL,
    CENTER_HALF,
    MapCanvas,
    NodeItem,
    TextItem,
    ZoomView,
    agent_colours,
    arrow_head,
    text_colour_on,
)
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT, fmt_num

__all__ = ["PlanResultsView", "RouteTab", "AgentMapView", "ObfuscationTab", "CenterGraphTab",
           "LedgerTab", "world_colours", "chosen_arcs", "ledger_rows", "fmt_estimate",
           "guarantee_text",
           "ORIGIN", "GOAL", "TABS"]

ORIGIN, GOAL = "\x00origin", "\x00goal"  # the center graph's two virtual nodes (planner)
TABS = ("route", "agents", "obfuscation", "centers", "ledger")
ACCENT = QColor(PRIVATE_ACCENT)
GREY = QColor("#8A8A8A")


def world_colours(world: Any) -> dict[str, QColor]:
    """The agent colours of a world (same rule as the map canvas)."""
    pairs = [(u, v) for c in world.center_ids for i, u in enumerate(world.members[c])
             for v in world.members[c][i + 1:]]
    return agent_colours(list(world.agents), pairs)


def fmt_estimate(x: float) -> str:
    """Crossing estimates span decades (released probabilities can be near-uniform)."""
    if x is None or not math.isfinite(x):
        return "∞"
    if abs(x) >= 1e5:
        return f"{x:.2e}"
    return f"{x:.0f}" if abs(x) >= 10 else f"{x:.1f}"


def chosen_arcs(result: Any) -> list[tuple[str, str, str]]:
    """The (from, to, agent) arcs of the center route the origin chose (Step 3)."""
    arcs = list(getattr(result, "center_graph", ()) or ())
    if not arcs:
        return []
    found = center_route(arcs, ORIGIN, GOAL)  # the planner's own tie-breaking
    return [] if found is None else [tuple(h) for h in found[1]]


def _eps_text(x: float) -> str:
    """An ε for a table cell: ∞ when nothing is proven."""
    return "∞" if x is None or math.isinf(x) else fmt_num(x, 3)


def guarantee_text(session: Any) -> str:
    """The run's headline privacy figure: the largest per-agent ε proven, or why none."""
    g = session.guarantee()
    if not any(session.ledgers[a].entries for a in session.world.agents):
        return "nothing private was released (ε = 0)"
    if not g.bounded:
        return f"no proven bound (ε = ∞): {g.reason}"
    return f"ε ≤ {g.epsilon:.4g} per agent, δ = 0 ({g.adjacency.split(':')[0]})"


def _table(headers: Sequence[str], parent: QWidget) -> QTableWidget:
    t = QTableWidget(0, len(headers), parent)
    t.setHorizontalHeaderLabels(list(headers))
    t.verticalHeader().hide()
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setAlternatingRowColors(True)
    t.setWordWrap(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def _cell(text: str, tip: str = "", *, bold: bool = False,
          align_right: bool = False) -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    if tip:
        it.setToolTip(tip)
    if bold:
        f = it.font()
        f.setBold(True)
        it.setFont(f)
    if align_right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return it


def _rich_label(parent: QWidget, *, selectable: bool = False) -> QLabel:
    """A word-wrapped rich-text label (captions and notes beside the figures)."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _column(parent: QWidget, top: QWidget, main: QWidget) -> QWidget:
    """``top`` above ``main`` (which takes the extra space), without margins."""
    w = QWidget(parent)
    lay = QVBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(top)
    lay.addWidget(main, 1)
    return w


class RatioSplitter(QSplitter):
    """A splitter that keeps its first pane at ``ratio`` of the space until the user drags."""

    def __init__(self, orientation: Qt.Orientation, ratio: float,
                 parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._ratio = ratio
        self._user = False
        self.setChildrenCollapsible(False)
        self.splitterMoved.connect(self._on_splitter_moved)

    def _on_splitter_moved(self, *args: object) -> None:
        self._user = True

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        if not self._user and self.count() == 2:
            total = (self.width() if self.orientation() == Qt.Orientation.Horizontal
                     else self.height()) - self.handleWidth()
            first = int(total * self._ratio)
            self.blockSignals(True)
            self.setSizes([first, max(1, total - first)])
            self.blockSignals(False)


def _world_pos(world: Any) -> dict[str, QPointF]:
    from core.logistics.io import map_to_dict
    from gui.logistics.map_view import display_positions

    return display_positions(map_to_dict(world))


# ---------------------------------------------------------------------------- route
class RouteTab(QWidget):
    """The true map with the executed route, and the legs as a table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.canvas = MapCanvas(self, editable=False)
        self.canvas.show_empty("Run a task (F5) to see its route on the true map here.")
        self.table = _table(("agent", "from", "to", "leg length", "what the others learn"), self)
        self.table.setMinimumWidth(260)
        self.plan_label = _rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.6, self)
        split.addWidget(self.canvas)
        split.addWidget(_column(self, self.plan_label, self.table))
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
                self.table.setItem(r, c, _cell(text, tip, align_right=c == 3))
        view = " → ".join(result.plan_view)
        self.plan_label.setText(
            f"<b>The plan as the origin {html.escape(origin_agent)} knows it</b> "
            f"(Alg 6 line 10): {html.escape(view)}<br>"
            f"<span style='color:#555'>Executed: {len(route)} nodes, length "
            f"{result.length:g}.</span>")


# ---------------------------------------------------------------------------- Fig 4.3
class AgentMapView(ZoomView):
    """Fig 4.3: the origin's high-level map (agents as nodes, shared centers as edges)."""

    EMPTY = ("The high-level agent map of Step 1 (Fig 4.3) appears here after a DP-based or "
             "No-privacy run: the agents the origin's query reached, joined by the centers "
             "they share.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.agent_items: dict[str, NodeItem] = {}
        self.edge_count = 0
        self.show_empty(self.EMPTY)

    def clear(self) -> None:
        self.agent_items = {}
        self.edge_count = 0
        self.show_empty(self.EMPTY)

    def show_result(self, world: Any, result: Any, colours: Mapping[str, QColor]) -> None:
        disc = result.discovery
        self._scene.clear()
        self.agent_items = {}
        self.edge_count = 0
        if disc is None:
            self.show_empty(f"The {html.escape(result.approach)} approach has no Step 1 "
                            "(no high-level map): Best-first broadcasts at every hop and "
                            "Greedy searches the public center graph.")
            return
        self.hide_empty()
        origin = world.agent_of(result.task.origin)
        goal = result.task.goal_agent
        known = list(disc.known)
        level = {a: disc.level.get(a, 0) for a in known}
        by_level: dict[int, list[str]] = {}
        for a in sorted(known, key=lambda x: (level[x], x)):
            by_level.setdefault(level[a], []).append(a)
        pos: dict[str, QPointF] = {}
        for lv, ags in by_level.items():
            n = len(ags)
            for k, a in enumerate(ags):
                pos[a] = QPointF(170.0 * lv, 70.0 * (k - (n - 1) / 2))
        by_center: dict[str, list[str]] = {}
        for a, c in disc.incidences:
            if a in pos:
                by_center.setdefault(c, []).append(a)
        pairs: dict[tuple[str, str], list[str]] = {}
        for c, ags in sorted(by_center.items()):
            ags = sorted(set(ags))
            for i, u in enumerate(ags):
                for v in ags[i + 1:]:
                    pairs.setdefault((u, v), []).append(c)
        route_pairs = set()
        if result.success:
            for (a1, _f, t), (a2, _f2, _t2) in zip(result.segments, result.segments[1:]):
                route_pairs.add((min(a1, a2), max(a1, a2), t))
        for (u, v), cs in pairs.items():
            on_route = any((u, v, c) in route_pairs for c in cs)
            mid = (pos[u] + pos[v]) / 2
            if level[u] == level[v]:  # same level: bulge sideways, clear of the captions
                ctrl = mid + QPointF(75.0, 0.0)
                mid = pos[u] * 0.25 + ctrl * 0.5 + pos[v] * 0.25
            else:
                ctrl = mid
            path = QPainterPath(pos[u])
            path.quadTo(ctrl, pos[v])
            line = QGraphicsPathItem(path)
            line.setPen(QPen(QColor("#000000") if on_route else QColor("#777777"),
                             4.0 if on_route else 1.4))
            line.setZValue(0)
            line.setToolTip(f"agents {u} and {v} share center(s) {', '.join(cs)}")
            self._scene.addItem(line)
            self.edge_count += 1
            lab = TextItem(", ".join(cs), point_size=7.5, bold=on_route, colour="#222222")
            lab.setZValue(3)
            lab.center_on(mid)
            self._scene.addItem(lab)
        cands = set(disc.candidates)
        for a, p in pos.items():
            role = ("origin" if a == origin else "goal" if a == goal else
                    "intermediate" if a in cands else "reached, not needed")
            fill = QColor(colours.get(a, QColor("#BBBBBB")))
            dashed = role == "reached, not needed"
            if dashed:
                fill = QColor("#F2F2F2")
            item = NodeItem(a, "base", fill, movable=False, radius=20.0, dashed=dashed,
                            outline=QColor("#000000"))
            item.setPos(p)
            item.setToolTip(f"agent {a}: {role} (query level {level[a]})")
            self._scene.addItem(item)
            self.agent_items[a] = item
            lab = TextItem(a, point_size=9.0, bold=True, background=None,
                           colour=text_colour_on(fill))
            lab.setZValue(12)
            lab.center_on(p)
            self._scene.addItem(lab)
            if role != "reached, not needed":
                cap = TextItem(role, point_size=7.0, colour="#333333")
                cap.setZValue(12)
                r = cap.boundingRect()
                cap.setPos(p.x() - r.width() / 2, p.y() + 23)
                self._scene.addItem(cap)
        legend = TextItem(
            f"Step 1: {disc.posts} query posts (≤ Σ lc = {world.total_capacity}), "
            f"{disc.replies} replies; goal found at level {disc.goal_level}; intermediate "
            f"agents: {', '.join(disc.candidates) or 'none'}"
            + (" (route memo reused)" if result.memo_hit else ""),
            point_size=8.0, colour="#333333")
        lo = min(p.y() for p in pos.values())
        legend.setPos(-40, lo - 70)
        self._scene.addItem(legend)
        self.fit_to_view()


# ---------------------------------------------------------------------------- Fig 4.4
class ObfuscationTab(QWidget):
    """Fig 4.4: an agent's true local map beside what it released (accent colour)."""

    LABEL_MODES = (("lengths", "lengths (private; never sent)"),
                   ("rl", "RL probabilities π (Fig 4.4c, private)"),
                   ("released", "released probabilities π̃ (Fig 4.4d, sent)"),
                   ("received", "as received by the origin (only what is sent)"))

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._world: Any = None
        self._session: Any = None
        self._result: Any = None
        self._pos: dict[str, QPointF] = {}
        self._colours: dict[str, QColor] = {}
        self._previews: dict[str, Any] = {}
        self._layouts: dict[tuple[str, int], dict[str, QPointF]] = {}
        self.agent_combo = QComboBox(self)
        self.agent_combo.setToolTip("The agent whose map to inspect. Agents marked “published” "
                                    "released their obfuscated map in this run.")
        self.label_combo = QComboBox(self)
        for key, text in self.LABEL_MODES:
            self.label_combo.addItem(text, key)
        self.label_combo.setToolTip(
            "What the edge labels of the obfuscated map show. “As received” draws the release "
            "exactly as the origin gets it: opaque ids in release order, no lengths, no real "
            "names, nothing that marks a node or route as fake.")
        self.dest_combo = QComboBox(self)
        self.dest_combo.setToolTip("Destination center of the probabilities (one policy per "
                                   "destination: spec F7).")
        self.preview_button = QPushButton("Preview (what-if)", self)
        self.preview_button.setToolTip(
            "Build this agent's obfuscated map on a fresh session with the same parameters "
            "and seed. A what-if: nothing is released or recorded in the ledger.")
        self.preview_button.clicked.connect(self._on_preview_button_clicked)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Agent:", self))
        bar.addWidget(self.agent_combo)
        bar.addSpacing(8)
        bar.addWidget(QLabel("Edge labels:", self))
        bar.addWidget(self.label_combo)
        bar.addWidget(QLabel("towards", self))
        bar.addWidget(self.dest_combo)
        bar.addWidget(self.preview_button)
        bar.addStretch(1)
        self.true_view = ZoomView(self)
        self.obf_view = ZoomView(self)
        self.true_title = _rich_label(self)
        self.obf_title = _rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.45, self)
        split.addWidget(_column(self, self.true_title, self.true_view))
        split.addWidget(_column(self, self.obf_title, self.obf_view))
        self.info = _rich_label(self, selectable=True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(split, 1)
        lay.addWidget(self.info)
        self.agent_combo.currentIndexChanged.connect(self._on_agent_combo_changed)
        self.label_combo.currentIndexChanged.connect(self._redraw)
        self.dest_combo.currentIndexChanged.connect(self._redraw)
        self.obf_node_ids: list[str] = []
        self.received_ids: list[str] = []
        self.fake_nodes = 0
        self.fake_edges = 0
        self.clear()

    # -------------------------------------------------------------- public
    def clear(self) -> None:
        self._world = self._session = self._result = None
        self._previews = {}
        self._layouts = {}
        self.agent_combo.blockSignals(True)
        self.agent_combo.clear()
        self.agent_combo.blockSignals(False)
        self.dest_combo.clear()
        self.preview_button.setEnabled(False)
        self.true_view.show_empty("Each intermediate agent's true local map (Fig 4.4a) "
                                  "appears here after a run.")
        self.obf_view.show_empty("… beside what it released: its obfuscated topology with "
                                 "fake nodes and routes (Fig 4.4b) and its route probabilities "
                                 "(Fig 4.4c/d), drawn in the accent colour.")
        self.true_title.setText("")
        self.obf_title.setText("")
        self.info.setText("")

    def show_result(self, world: Any, result: Any, session: Any,
                    colours: Mapping[str, QColor]) -> None:
        self._world, self._result, self._session = world, result, session
        self._colours = dict(colours)
        self._previews = {}
        self._layouts = {}
        self._pos = _world_pos(world)
        published = set(getattr(session, "published", {}) or {})
        self.agent_combo.blockSignals(True)
        self.agent_combo.clear()
        first = None
        for a in world.agents:
            tag = " (published)" if a in published else ""
            self.agent_combo.addItem(f"{a}{tag}", a)
            if first is None and a in published:
                first = self.agent_combo.count() - 1
        self.agent_combo.setCurrentIndex(first if first is not None else 0)
        self.agent_combo.blockSignals(False)
        self._on_agent_combo_changed()

    def select_agent(self, agent: str) -> None:
        i = self.agent_combo.findData(agent)
        if i >= 0:
            self.agent_combo.setCurrentIndex(i)

    def current_agent(self) -> str | None:
        return self.agent_combo.currentData()

    def published_map(self) -> Any:
        a = self.current_agent()
        if a is None or self._session is None:
            return None
        pm = (getattr(self._session, "published", {}) or {}).get(a)
        return pm if pm is not None else self._previews.get(a)

    def preview(self, agent: str | None = None) -> Any:
        """Build the what-if obfuscation of ``agent`` (default: the current one)."""
        a = agent or self.current_agent()
        if a is None or self._session is None or self._world is None:
            return None
        from core.logistics.planner import PlanningSession

        s = self._session
        fresh = PlanningSession(self._world, approach="dp", params=s.params,
                                rng=s.seed if s.mode == "experiment" else None)
        pm = fresh.publish(a)
        self._previews[a] = pm
        self._redraw()
        return pm

    # -------------------------------------------------------------- drawing
    def _on_preview_button_clicked(self) -> None:
        self.preview()

    def _on_agent_combo_changed(self, *args: object) -> None:
        pm = self.published_map()
        self.dest_combo.blockSignals(True)
        self.dest_combo.clear()
        if pm is not None:
            for t in sorted(pm.policy):
                self.dest_combo.addItem(t, t)
        self.dest_combo.blockSignals(False)
        self._redraw()

    def _redraw(self, *args: object) -> None:
        a = self.current_agent()
        if a is None or self._world is None:
            return
        self._draw_true(a)
        pm = self.published_map()
        published = a in (getattr(self._session, "published", {}) or {})
        self.preview_button.setEnabled(not published)
        if pm is None:
            self.obf_node_ids = []
            self.fake_nodes = self.fake_edges = 0
            why = ("it was not an intermediate agent of this task" if self._result is not None
                   and self._result.approach == "dp" else
                   f"the {self._result.approach} approach does not obfuscate maps"
                   if self._result is not None else "")
            self.obf_title.setText(f"<b>Released by {html.escape(a)}:</b> nothing in this run "
                                   f"({html.escape(why)}).")
            self.obf_view.show_empty("Press “Preview (what-if)” to see what this agent "
                                     "would release with these parameters (nothing is "
                                     "recorded).")
            self.info.setText("")
            return
        if self.label_combo.currentData() == "received":
            self._draw_received(a, pm, preview=not published)
        else:
            self._draw_obfuscated(a, pm, preview=not published)

    def _draw_received(self, a: str, pm: Any, *, preview: bool) -> None:
        """The release as the origin receives it, laid out from the released graph alone."""
        rel = pm.released
        g = rel.graph()
        v = self.obf_view
        v.hide_empty()
        v.graphics_scene.clear()
        self.received_ids = list(rel.nodes)
        self.obf_node_ids = sorted(g.nodes)
        self.fake_nodes = self.fake_edges = 0  # nothing in the release says which are fake
        lay = nx.kamada_kawai_layout(g) if g.number_of_nodes() > 2 else nx.circular_layout(g)
        ls = [math.dist(lay[x], lay[y]) for x, y in g.edges]
        k = 70.0 / (sum(ls) / len(ls)) if ls and sum(ls) > 0 else 70.0
        pos = {n: QPointF(float(x) * k, float(y) * k) for n, (x, y) in lay.items()}
        dest = self.dest_combo.currentData()
        for x, y in rel.edges:
            line = QGraphicsLineItem(pos[x].x(), pos[x].y(), pos[y].x(), pos[y].y())
            line.setPen(QPen(ACCENT, 2.0))
            line.setToolTip(f"released route {x} – {y} (no length is sent)")
            v.graphics_scene.addItem(line)
        pol = rel.policy.get(dest, {}) if dest is not None else {}
        for x, outs in pol.items():
            if len(outs) < 2:
                continue
            for y, p in outs.items():
                lab = TextItem(f"{p:.2f}", point_size=6.5, colour="#7A4A00")
                lab.setZValue(4)
                lab.center_on(pos[x] + (pos[y] - pos[x]) * 0.3)
                v.graphics_scene.addItem(lab)
        centers = set(rel.centers)
        for i, n in enumerate(rel.nodes):
            is_c = n in centers
            item = NodeItem(n, "center" if is_c else "base",
                            CENTER_FILL if is_c else QColor(ACCENT).lighter(135),
                            movable=False, outline=ACCENT)
            item.setPos(pos[n])
            item.setToolTip(f"released id {n} (position {i + 1} of {len(rel.nodes)} in the "
                            "message)")
            v.graphics_scene.addItem(item)
            lab = TextItem(n if is_c else n.split(":")[-1], point_size=7.0, bold=is_c)
            lab.setZValue(12)
            if is_c:
                lab.center_on(pos[n])
            else:
                lab.setPos(pos[n].x() + BASE_RADIUS - 1, pos[n].y() + BASE_RADIUS - 4)
            v.graphics_scene.addItem(lab)
        origin = (self._world.agent_of(self._result.task.origin)
                  if self._result is not None else "the origin")
        self.obf_title.setText(
            f"<b style='color:{PRIVATE_ACCENT}'>{'What-if: ' if preview else ''}What "
            f"{html.escape(origin)} receives from {html.escape(a)}</b>: {g.number_of_nodes()} "
            f"nodes, {g.number_of_edges()} routes and the route probabilities"
            + (f" towards {html.escape(dest)}" if dest else "") + " — opaque ids in a random "
            "order; no lengths, no real names, nothing marks a node or route as fake."
            + (" — <i>preview, not part of the run, nothing recorded</i>" if preview else ""))
        shown = ", ".join(self.received_ids[:14]) + (" …" if len(self.received_ids) > 14 else "")
        self.info.setText(
            f"Nodes in the order they are sent: {html.escape(shown)}. Routes are sent in a "
            "random order too; the drawing is laid out from the released graph alone (the "
            "true positions would give the real bases away).")
        v.fit_to_view()

    def _draw_true(self, a: str) -> None:
        v = self.true_view
        v.hide_empty()
        v.graphics_scene.clear()
        loc = self._world.local(a)
        colour = self._colours.get(a, QColor("#BBBBBB"))
        for x, y, d in loc.edges(data=True):
            line = QGraphicsLineItem(self._pos[x].x(), self._pos[x].y(), self._pos[y].x(),
                                     self._pos[y].y())
            line.setPen(QPen(QColor("#444444"), 1.6))
            v.graphics_scene.addItem(line)
            lab = TextItem(f"{d['length']:g}", point_size=7.0, colour="#222222")
            lab.setZValue(4)
            lab.center_on((self._pos[x] + self._pos[y]) / 2)
            v.graphics_scene.addItem(lab)
        for n in loc.nodes:
            kind = self._world.kind(n)
            item = NodeItem(n, kind, colour if kind == "base" else CENTER_FILL, movable=False)
            item.setPos(self._pos[n])
            item.setToolTip(f"{'base' if kind == 'base' else 'center'} {n} (degree "
                            f"{loc.degree(n)})")
            v.graphics_scene.addItem(item)
            lab = TextItem(n, point_size=7.0, bold=kind == "center",
                           background=None if kind == "center" else None)
            lab.setZValue(12)
            if kind == "center":
                lab.center_on(self._pos[n])
            else:
                lab.setPos(self._pos[n].x() + BASE_RADIUS - 1, self._pos[n].y() + BASE_RADIUS - 4)
            v.graphics_scene.addItem(lab)
        self.true_title.setText(
            f"<b>True local map of {html.escape(a)}</b> (Fig 4.4a; private): "
            f"{loc.number_of_nodes()} nodes, {loc.number_of_edges()} routes with lengths")
        v.fit_to_view()

    def _obf_positions(self, a: str, pm: Any) -> dict[str, QPointF]:
        key = (a, id(pm))
        if key not in self._layouts:
            self._layouts[key] = self._compute_obf_positions(a, pm)
        return self._layouts[key]

    def _compute_obf_positions(self, a: str, pm: Any) -> dict[str, QPointF]:
        obf = pm.obfuscated
        g = obf.graph
        inverse = {o: r for r, o in obf.relabel.items()}
        known: dict[str, tuple[float, float]] = {}
        for n in g.nodes:
            real = n if g.nodes[n].get("kind") == "center" else inverse.get(n)
            if real is not None and real in self._pos:
                p = self._pos[real]
                known[n] = (p.x(), p.y())
        loc = self._world.local(a)
        dists = [math.dist((self._pos[x].x(), self._pos[x].y()),
                           (self._pos[y].x(), self._pos[y].y())) for x, y in loc.edges]
        k = (sum(dists) / len(dists)) if dists else 60.0
        missing = [n for n in g.nodes if n not in known]
        if not missing:
            return {n: QPointF(x, y) for n, (x, y) in known.items()}
        # fake nodes: lay the whole released graph out (Kamada-Kawai from the true
        # positions), then scale it so routes are as long as on the true drawing and put
        # the real nodes' centroid where it is on the true map
        if known:
            cx = sum(p[0] for p in known.values()) / len(known)
            cy = sum(p[1] for p in known.values()) / len(known)
        else:
            cx = cy = 0.0
        init = dict(known)
        for i, n in enumerate(sorted(missing)):
            ang = 2 * math.pi * i / max(1, len(missing))
            init[n] = (cx + 2 * k * math.cos(ang), cy + 2 * k * math.sin(ang))
        span = max(1.0, max(max(abs(x - cx), abs(y - cy)) for x, y in init.values()))
        unit = {n: ((x - cx) / span, (y - cy) / span) for n, (x, y) in init.items()}
        lay = nx.kamada_kawai_layout(g, pos=unit)
        ls = [math.dist(lay[x], lay[y]) for x, y in g.edges]
        scale = k / (sum(ls) / len(ls)) if ls and sum(ls) > 0 else k
        pts = {n: (float(x) * scale, float(y) * scale) for n, (x, y) in lay.items()}
        ref = list(known) or list(pts)
        mx = sum(pts[n][0] for n in ref) / len(ref)
        my = sum(pts[n][1] for n in ref) / len(ref)
        return {n: QPointF(x - mx + cx, y - my + cy) for n, (x, y) in pts.items()}

    def _draw_obfuscated(self, a: str, pm: Any, *, preview: bool) -> None:
        obf = pm.obfuscated
        g = obf.graph
        v = self.obf_view
        v.hide_empty()
        v.graphics_scene.clear()
        pos = self._obf_positions(a, pm)
        inverse = {o: r for r, o in obf.relabel.items()}
        mode = self.label_combo.currentData()
        dest = self.dest_combo.currentData()
        self.fake_nodes = sum(1 for _, d in g.nodes(data=True) if d.get("fake"))
        self.fake_edges = sum(1 for *_e, d in g.edges(data=True) if d.get("fake"))
        for x, y, d in g.edges(data=True):
            pen = QPen(ACCENT, 2.0)
            if d.get("fake"):
                pen.setStyle(Qt.PenStyle.DashLine)
            line = QGraphicsLineItem(pos[x].x(), pos[x].y(), pos[y].x(), pos[y].y())
            line.setPen(pen)
            line.setToolTip(("FAKE route" if d.get("fake") else "real route") +
                            f", private length {d.get('length', float('nan')):g}")
            v.graphics_scene.addItem(line)
            if mode == "lengths":
                lab = TextItem(f"{d.get('length', float('nan')):g}", point_size=7.0,
                               colour="#7A4A00")
                lab.setZValue(4)
                lab.center_on((pos[x] + pos[y]) / 2)
                v.graphics_scene.addItem(lab)
        if mode in ("rl", "released") and dest is not None:
            pol = (pm.rl_policy if mode == "rl" else pm.policy).get(dest, {})
            for x, outs in pol.items():
                if x not in pos or len(outs) < 2:
                    continue
                for y, p in outs.items():
                    if y not in pos:
                        continue
                    at = pos[x] + (pos[y] - pos[x]) * 0.3
                    lab = TextItem(f"{p:.2f}", point_size=6.5, colour="#7A4A00")
                    lab.setZValue(4)
                    lab.center_on(at)
                    v.graphics_scene.addItem(lab)
        self.obf_node_ids = sorted(g.nodes)
        for n, d in g.nodes(data=True):
            kind = d.get("kind")
            fake = bool(d.get("fake"))
            if kind == "center":
                fill, outline = CENTER_FILL, ACCENT
            elif fake:
                fill, outline = QColor("#FFFFFF"), ACCENT
            else:
                fill, outline = QColor(ACCENT).lighter(135), QColor("#7A4A00")
            item = NodeItem(n, "center" if kind == "center" else "base", fill, movable=False,
                            outline=outline, dashed=fake)
            item.setPos(pos[n])
            real = n if kind == "center" else inverse.get(n)
            item.setToolTip(f"released id {n}" + ("" if kind == "center" else
                            (" — FAKE node" if fake else f" — real base {real}")))
            v.graphics_scene.addItem(item)
            text = n if kind == "center" else ("fake" if fake else str(real))
            lab = TextItem(text, point_size=7.0, bold=kind == "center",
                           colour="#7A4A00" if fake else "#000000",
                           background=None if kind == "center" else None)
            lab.setZValue(12)
            if kind == "center":
                lab.center_on(pos[n])
            else:
                lab.setPos(pos[n].x() + BASE_RADIUS - 1, pos[n].y() + BASE_RADIUS - 4)
            v.graphics_scene.addItem(lab)
        what = {"lengths": "labels: private lengths (the owner's annotation; never sent)",
                "rl": f"labels: RL probabilities towards {dest} before redistribution "
                      "(Fig 4.4c; private)",
                "released": f"labels: released probabilities towards {dest} (Fig 4.4d; this "
                            "and the topology are all that is sent)"}[mode]
        self.obf_title.setText(
            f"<b style='color:{PRIVATE_ACCENT}'>{'What-if: ' if preview else ''}Released by "
            f"{html.escape(a)}</b> (Fig 4.4b–d): {g.number_of_nodes()} nodes "
            f"({self.fake_nodes} fake, dashed), {g.number_of_edges()} routes "
            f"({self.fake_edges} fake, dashed); {html.escape(what)}"
            + (" — <i>preview, not part of the run, nothing recorded</i>" if preview else ""))
        hist = ", ".join(str(x) for x in obf.histogram)
        noisy = ", ".join(f"{x:.1f}" for x in obf.noisy)
        target = ", ".join(str(x) for x in obf.target)
        real = ", ".join(str(x) for x in obf.realised)
        dropped = ", ".join(obf.dropped) or "none"
        notes = "; ".join(obf.notes)
        self.info.setText(
            f"1K degree histogram P(k), k = 1…{obf.dmax}: true ({hist}) → noisy ({noisy}) → "
            f"target ({target}) → realised ({real}). Laplace scale {obf.scale:.3g} "
            f"(sensitivity {obf.sensitivity:g}, ε<sub>L</sub> = {obf.epsilon:.3g}; "
            f"{html.escape(obf.rewire)} rewiring); route probabilities at ε = "
            f"{pm.epsilon_per_destination:.3g} per destination. Real bases dropped: "
            f"{html.escape(dropped)}." + (f" <i>{html.escape(notes)}</i>" if notes else ""))
        v.fit_to_view()


# ---------------------------------------------------------------------------- Fig 4.6
class CenterGraphTab(QWidget):
    """Fig 4.6: the origin's center graph with estimated crossing lengths."""

    EMPTY = ("The center graph the origin searches in Step 3 (Fig 4.6) appears here after a "
             "DP-based or No-privacy run: centers joined by crossing lengths — exact on the "
             "origin's own map, estimated from the released probabilities elsewhere.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ZoomView(self)
        self.view.show_empty(self.EMPTY)
        self.table = _table(("from", "to", "agent", "estimate", "source", "chosen"), self)
        self.caption = _rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.64, self)
        split.addWidget(self.view)
        split.addWidget(_column(self, self.caption, self.table))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.arc_count = 0
        self.chosen: list[tuple[str, str, str]] = []

    def clear(self) -> None:
        self.view.show_empty(self.EMPTY)
        self.table.setRowCount(0)
        self.caption.setText("")
        self.arc_count = 0
        self.chosen = []

    @staticmethod
    def _name(n: str, result: Any) -> str:
        if n == ORIGIN:
            return f"origin {result.task.origin}"
        if n == GOAL:
            return (f"goal {result.task.goal}" if result.task.goal else
                    f"any base of {result.task.goal_agent}")
        return n

    def show_result(self, world: Any, result: Any, colours: Mapping[str, QColor]) -> None:
        arcs = list(result.center_graph or ())
        self.table.setRowCount(0)
        self.arc_count = len(arcs)
        if not arcs:
            self.chosen = []
            self.view.show_empty(
                self.EMPTY if result.approach in ("dp", "noprivacy") and not result.success
                else f"The {html.escape(result.approach)} approach builds no center graph "
                     "with lengths (Greedy plans by hop count, Best-first hop by hop)."
                if result.approach not in ("dp", "noprivacy") else
                "No center graph: Step 1 did not reach the goal agent.")
            self.caption.setText("")
            return
        self.chosen = chosen_arcs(result)
        chosen = set(self.chosen)
        origin_agent = world.agent_of(result.task.origin)
        wpos = _world_pos(world)
        pos: dict[str, QPointF] = {}
        for s, t, _ag, _w in arcs:
            for n in (s, t):
                if n in pos:
                    continue
                if n == ORIGIN:
                    pos[n] = wpos[result.task.origin]
                elif n == GOAL:
                    if result.task.goal:
                        pos[n] = wpos[result.task.goal]
                    else:
                        bs = world.bases[result.task.goal_agent]
                        pos[n] = QPointF(sum(wpos[b].x() for b in bs) / len(bs),
                                         sum(wpos[b].y() for b in bs) / len(bs))
                else:
                    pos[n] = wpos[n]

        def source(s: str, t: str, ag: str) -> str:
            if t == GOAL:
                return ("exact goal leg (No-privacy)" if result.approach == "noprivacy" else
                        "goal leg unknown to the origin: 0")
            if ag == origin_agent:
                return "exact, on the origin's own map"
            return ("exact crossing shared by " + ag if result.approach == "noprivacy" else
                    f"estimated from {ag}'s released probabilities")

        scene = self.view.graphics_scene
        self.view.hide_empty()
        scene.clear()
        for s, t, ag, w in arcs:
            p0, p2 = pos[s], pos[t]
            dx, dy = p2.x() - p0.x(), p2.y() - p0.y()
            dist = math.hypot(dx, dy) or 1.0
            nx_, ny_ = -dy / dist, dx / dist
            bend = 0.18 * dist
            c = QPointF((p0.x() + p2.x()) / 2 + nx_ * bend, (p0.y() + p2.y()) / 2 + ny_ * bend)
            # stop short of the target square
            end = p2 - (p2 - c) * (CENTER_HALF + 3) / max(1.0, math.hypot(
                (p2 - c).x(), (p2 - c).y()))
            path = QPainterPath(p0)
            path.quadTo(c, end)
            on = (s, t, ag) in chosen
            estimated = ag != origin_agent and result.approach == "dp" and t != GOAL
            colour = ACCENT if estimated else (GREY if t == GOAL else QColor("#333333"))
            pen = QPen(QColor("#000000") if on else colour, 3.6 if on else 1.3)
            if estimated and not on:
                pen.setStyle(Qt.PenStyle.DashLine)
            if t == GOAL and not on:
                pen.setStyle(Qt.PenStyle.DotLine)
            item = QGraphicsPathItem(path)
            item.setPen(pen)
            item.setZValue(2 if on else 0)
            item.setToolTip(f"{self._name(s, result)} → {self._name(t, result)} via {ag}: "
                            f"{fmt_estimate(w)} ({source(s, t, ag)})")
            scene.addItem(item)
            head = QGraphicsPathItem()
            hp = QPainterPath()
            hp.addPolygon(arrow_head(end, end - c, 9.0 if on else 7.0))
            hp.closeSubpath()
            head.setPath(hp)
            head.setBrush(QBrush(pen.color()))
            head.setPen(QPen(Qt.PenStyle.NoPen))
            head.setZValue(item.zValue())
            scene.addItem(head)
            mid = p0 * 0.25 + c * 0.5 + p2 * 0.25
            lab = TextItem(f"{ag}: {fmt_estimate(w)}", point_size=7.5 if on else 6.5, bold=on,
                           colour="#000000" if on else "#7A4A00" if estimated else "#333333")
            lab.setZValue(5 if on else 3)
            lab.center_on(mid)
            scene.addItem(lab)
        for n, p in pos.items():
            if n in (ORIGIN, GOAL):
                ag = origin_agent if n == ORIGIN else result.task.goal_agent
                fill = QColor(colours.get(ag, QColor("#BBBBBB")))
                item = NodeItem(n, "base", fill, movable=False, radius=11.0)
            else:
                item = NodeItem(n, "center", CENTER_FILL, movable=False)
            item.setPos(p)
            item.setToolTip(self._name(n, result))
            scene.addItem(item)
            lab = TextItem(self._name(n, result) if n in (ORIGIN, GOAL) else n,
                           point_size=7.5, bold=True,
                           background=None if n not in (ORIGIN, GOAL) else
                           QColor(255, 255, 255, 220))
            lab.setZValue(12)
            if n in (ORIGIN, GOAL):
                r = lab.boundingRect()
                lab.setPos(p.x() - r.width() / 2, p.y() + 13)
            else:
                lab.center_on(p)
            scene.addItem(lab)
        # table: chosen arcs first, then by estimate
        rows = sorted(arcs, key=lambda a: ((a[0], a[1], a[2]) not in chosen, a[3]))
        for s, t, ag, w in rows:
            r = self.table.rowCount()
            self.table.insertRow(r)
            on = (s, t, ag) in chosen
            vals = (self._name(s, result), self._name(t, result), ag, fmt_estimate(w),
                    source(s, t, ag), "✓" if on else "")
            for col, text in enumerate(vals):
                self.table.setItem(r, col, _cell(text, bold=on, align_right=col == 3))
        est = result.estimated_length
        self.caption.setText(
            f"<b>Center graph of {html.escape(origin_agent)}</b> (Fig 4.6): {len(arcs)} arcs; "
            f"<span style='color:{PRIVATE_ACCENT}'>orange dashed</span> = estimated from "
            "released probabilities (in units of the origin's mean route length), dark = exact "
            "on its own map, dotted = the goal leg (unknown to the origin). The chosen route "
            f"is bold (estimated total {fmt_estimate(est) if est is not None else '–'}"
            + (f"; its true length is {result.length:g}" if result.success else "") + ").")
        self.view.fit_to_view()


# ---------------------------------------------------------------------------- ledger
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
        self.table = _table(self.HEADERS, self)
        for i, tip in enumerate(self.TIPS):
            if tip:
                self.table.horizontalHeaderItem(i).setToolTip(tip)
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
            vals = (row["agent"], row["role"], _eps_text(row["eps_topology"]),
                    _eps_text(row["eps_probabilities"]), _eps_text(row["eps_total"]),
                    _eps_text(row["eps_nominal"]), str(row["messages"]),
                    "∞" if math.isinf(row["budget"]) else f"{row['budget']:g}",
                    "∞" if math.isinf(row["left"]) else f"{row['left']:g}",
                    fmt_num(row["eps_comm_left"], 3), row["released"])
            for c, text in enumerate(vals):
                tip = row["released"] if c == 10 else (
                    f"no proven bound: {row['reason']}" if 2 <= c <= 4 and text == "∞" else "")
                it = _cell(text, tip, bold=c == 0 and row["role"] != "—",
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
    """The banner and the five result tabs of one planning run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.banner = _rich_label(self, selectable=True)
        self.tabs = QTabWidget(self)
        self.route_tab = RouteTab(self)
        self.agent_map = AgentMapView(self)
        self.obfuscation = ObfuscationTab(self)
        self.center_graph = CenterGraphTab(self)
        self.ledger = LedgerTab(self)
        self.tabs.addTab(self.route_tab, "Route (true map)")
        self.tabs.addTab(self.agent_map, "Agent map (Fig 4.3)")
        self.tabs.addTab(self.obfuscation, "True vs obfuscated (Fig 4.4)")
        self.tabs.addTab(self.center_graph, "Center graph (Fig 4.6)")
        self.tabs.addTab(self.ledger, "Ledger")
        tips = ("The executed route on the true map: who carried which leg, hand-overs ringed.",
                "Step 1: the agents the origin's query reached and the centers they share.",
                "An agent's true map beside what it released (accent colour).",
                "Step 3: the origin's center graph with estimated crossing lengths.",
                "Per agent: ε spent by mechanism, messages, budget left, what it released.")
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
                  self.ledger):
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

