"""The obfuscation tab of a plan result (thesis Fig 4.4): each agent's released map beside its
true map, with the noisy degree histogram and the route probabilities it published."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import networkx as nx
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.logistics.map_view import (
    BASE_RADIUS,
    CENTER_FILL,
    NodeItem,
    TextItem,
    ZoomView,
    text_colour_on,
)
from gui.logistics.result_parts import (
    ACCENT,
    RatioSplitter,
    column,
    rich_label,
    route_handovers,
    world_positions,
)
from gui.shell.style import PRIVATE_ACCENT

__all__ = ["AgentMapView", "ObfuscationTab"]


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
        level, pos = _agent_layout(disc)
        route_pairs = route_handovers(result)
        for (u, v), cs in _shared_centers(disc, pos).items():
            on_route = any((u, v, c) in route_pairs for c in cs)
            self._draw_edge(pos, level, u, v, cs, on_route)
        origin, goal, cands = world.agent_of(result.task.origin), result.task.goal_agent, \
            set(disc.candidates)
        for a, p in pos.items():
            self._draw_agent(a, p, _agent_role(a, origin, goal, cands), level[a], colours)
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

    def _draw_edge(self, pos: Mapping[str, QPointF], level: Mapping[str, int], u: str, v: str,
                   cs: list[str], on_route: bool) -> None:
        """Agents ``u`` and ``v`` share centers ``cs``: bold when the route crosses one."""
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

    def _draw_agent(self, a: str, p: QPointF, role: str, level: int,
                    colours: Mapping[str, QColor]) -> None:
        """An agent's node (grey dashed when not needed), its name and its role below."""
        fill = QColor(colours.get(a, QColor("#BBBBBB")))
        dashed = role == "reached, not needed"
        if dashed:
            fill = QColor("#F2F2F2")
        item = NodeItem(a, "base", fill, movable=False, radius=20.0, dashed=dashed,
                        outline=QColor("#000000"))
        item.setPos(p)
        item.setToolTip(f"agent {a}: {role} (query level {level})")
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


def _agent_role(a: str, origin: str, goal: str, candidates: set[str]) -> str:
    """An agent's role on the high-level map of Step 1."""
    return ("origin" if a == origin else "goal" if a == goal else
            "intermediate" if a in candidates else "reached, not needed")


def _agent_layout(disc: Any) -> tuple[dict[str, int], dict[str, QPointF]]:
    """Each known agent's query level and position: a column per level, in name order."""
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
    return level, pos


def _shared_centers(disc: Any, pos: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """The centers each pair of placed agents shares, pairs in name order."""
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
    return pairs



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
        self.true_title = rich_label(self)
        self.obf_title = rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.45, self)
        split.addWidget(column(self, self.true_title, self.true_view))
        split.addWidget(column(self, self.obf_title, self.obf_view))
        self.info = rich_label(self, selectable=True)
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
        self._pos = world_positions(world)
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
        from core.logistics import PlanningSession

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
