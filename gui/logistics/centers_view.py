"""The centers tab of a plan result (thesis Fig 4.6): the center graph the origin planned on,
its estimated crossing lengths and the route it chose."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QVBoxLayout,
    QWidget,
)

from gui.logistics.map_view import (
    CENTER_FILL,
    CENTER_HALF,
    NodeItem,
    TextItem,
    ZoomView,
    arrow_head,
)
from gui.logistics.result_parts import (
    ACCENT,
    GOAL,
    GREY,
    ORIGIN,
    RatioSplitter,
    chosen_arcs,
    column,
    fmt_estimate,
    make_cell,
    make_table,
    rich_label,
    world_positions,
)
from gui.shell.style import PRIVATE_ACCENT

__all__ = ["CenterGraphTab"]


class CenterGraphTab(QWidget):
    """Fig 4.6: the origin's center graph with estimated crossing lengths."""

    EMPTY = ("The center graph the origin searches in Step 3 (Fig 4.6) appears here after a "
             "DP-based or No-privacy run: centers joined by crossing lengths — exact on the "
             "origin's own map, estimated from the released probabilities elsewhere.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ZoomView(self)
        self.view.show_empty(self.EMPTY)
        self.table = make_table(("from", "to", "agent", "estimate", "source", "chosen"), self)
        self.caption = rich_label(self)
        split = RatioSplitter(Qt.Orientation.Horizontal, 0.64, self)
        split.addWidget(self.view)
        split.addWidget(column(self, self.caption, self.table))
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
            self.view.show_empty(self._no_graph_text(result))
            self.caption.setText("")
            return
        self.chosen = chosen_arcs(result)
        graph = _CenterGraph.of(world, result, arcs, set(self.chosen))
        pos = _node_positions(world, result, arcs)
        scene = self.view.graphics_scene
        self.view.hide_empty()
        scene.clear()
        for s, t, ag, w in arcs:
            _draw_arc(scene, graph, pos[s], pos[t], (s, t, ag, w))
        for n, p in pos.items():
            _draw_node(scene, graph, colours, n, p)
        self._fill_table(graph)
        self.caption.setText(graph.caption())
        self.view.fit_to_view()

    def _no_graph_text(self, result: Any) -> str:
        """Why a result has no center graph to draw."""
        if result.approach in ("dp", "noprivacy") and not result.success:
            return self.EMPTY
        if result.approach not in ("dp", "noprivacy"):
            return (f"The {html.escape(result.approach)} approach builds no center graph "
                    "with lengths (Greedy plans by hop count, Best-first hop by hop).")
        return "No center graph: Step 1 did not reach the goal agent."

    def _fill_table(self, graph: "_CenterGraph") -> None:
        """One row per arc: the chosen arcs first (bold), then by estimate."""
        chosen = graph.chosen
        rows = sorted(graph.arcs, key=lambda a: ((a[0], a[1], a[2]) not in chosen, a[3]))
        for s, t, ag, w in rows:
            r = self.table.rowCount()
            self.table.insertRow(r)
            on = (s, t, ag) in chosen
            vals = (graph.name(s), graph.name(t), ag, fmt_estimate(w),
                    graph.source(s, t, ag, w), "✓" if on else "")
            for col, text in enumerate(vals):
                self.table.setItem(r, col, make_cell(text, bold=on, align_right=col == 3))


@dataclass(frozen=True)
class _CenterGraph:
    """What drawing one center graph shares: the result, its arcs and chosen arcs, the
    origin's agent and the scale ``far`` above which an estimate is explained."""

    result: Any
    arcs: list[tuple[str, str, str, float]]
    chosen: set[tuple[str, str, str]]
    origin_agent: str
    far: float

    @classmethod
    def of(cls, world: Any, result: Any, arcs: list[Any],
           chosen: set[tuple[str, str, str]]) -> "_CenterGraph":
        origin_agent = world.agent_of(result.task.origin)
        # the origin's exact lengths: the scale against which an estimate is read
        exact = [w for s, t, ag, w in arcs if ag == origin_agent and t != GOAL and w > 0]
        far = 100 * max(exact) if exact else math.inf
        return cls(result, arcs, chosen, origin_agent, far)

    def name(self, n: str) -> str:
        return CenterGraphTab._name(n, self.result)

    def estimated(self, t: str, ag: str) -> bool:
        """Whether an arc's length is estimated from another agent's release."""
        return ag != self.origin_agent and self.result.approach == "dp" and t != GOAL

    def source(self, s: str, t: str, ag: str, w: float = 0.0) -> str:
        """Where an arc's length comes from (the table's "source" column and tooltips)."""
        approach = self.result.approach
        if t == GOAL:
            return ("exact goal leg (No-privacy)" if approach == "noprivacy" else
                    "goal leg unknown to the origin: 0")
        if ag == self.origin_agent:
            return "exact, on the origin's own map"
        if approach == "noprivacy":
            return "exact crossing shared by " + ag
        return (f"estimated from {ag}'s released probabilities"
                + ("; over 100× the origin's longest exact arc: a walk on the noisy "
                   "probabilities rarely gets there" if w > self.far else ""))

    def caption(self) -> str:
        """The caption under the graph: the legend, the chosen route's estimate and, when
        some estimates are far above any true length, how to read them."""
        result, arcs = self.result, self.arcs
        est = result.estimated_length
        n_far = sum(1 for s, t, ag, w in arcs if ag != self.origin_agent and t != GOAL
                    and w > self.far and result.approach == "dp")
        return (
            f"<b>Center graph of {html.escape(self.origin_agent)}</b> (Fig 4.6): {len(arcs)} "
            f"arcs; <span style='color:{PRIVATE_ACCENT}'>orange dashed</span> = estimated from "
            "released probabilities (in units of the origin's mean route length), dark = exact "
            "on its own map, dotted = the goal leg (unknown to the origin). The chosen route "
            f"is bold (estimated total {fmt_estimate(est) if est is not None else '–'}"
            + (f"; its true length is {result.length:g}" if result.success else "") + ")."
            + (" <i>How to read an estimate:</i> it is computed from the released (noisy) "
               "route probabilities alone — by default the expected number of steps of a "
               "walk that follows them from one center to the next, times the origin's mean "
               "road length. Noise can make that walk wander, "
               "so an estimate may be many orders of magnitude above any true length "
               f"({n_far} here are over 100× the origin's longest exact arc); the origin "
               "only compares totals, and the smallest wins." if n_far else ""))


def _node_positions(world: Any, result: Any, arcs: list[Any]) -> dict[str, QPointF]:
    """Scene positions of the graph's nodes: centers where they are on the map, the origin
    at its base, the goal at its base or at the mean of the goal agent's bases."""
    wpos = world_positions(world)
    pos: dict[str, QPointF] = {}
    for s, t, _ag, _w in arcs:
        for n in (s, t):
            if n not in pos:
                pos[n] = _node_position(world, result, wpos, n)
    return pos


def _node_position(world: Any, result: Any, wpos: Mapping[str, QPointF], n: str) -> QPointF:
    if n == ORIGIN:
        return wpos[result.task.origin]
    if n != GOAL:
        return wpos[n]
    if result.task.goal:
        return wpos[result.task.goal]
    bs = world.bases[result.task.goal_agent]
    return QPointF(sum(wpos[b].x() for b in bs) / len(bs),
                   sum(wpos[b].y() for b in bs) / len(bs))


def _arc_pen(on: bool, estimated: bool, to_goal: bool) -> QPen:
    """Bold black when chosen; accent and dashed when estimated, grey dotted to the goal."""
    colour = ACCENT if estimated else (GREY if to_goal else QColor("#333333"))
    pen = QPen(QColor("#000000") if on else colour, 3.6 if on else 1.3)
    if estimated and not on:
        pen.setStyle(Qt.PenStyle.DashLine)
    if to_goal and not on:
        pen.setStyle(Qt.PenStyle.DotLine)
    return pen


def _draw_arc(scene: Any, graph: _CenterGraph, p0: QPointF, p2: QPointF,
              arc: tuple[str, str, str, float]) -> None:
    """One arc: a bent curve from ``p0`` stopping short of ``p2``, its arrow head and its
    "agent: length" label."""
    s, t, ag, w = arc
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
    on = (s, t, ag) in graph.chosen
    estimated = graph.estimated(t, ag)
    pen = _arc_pen(on, estimated, t == GOAL)
    item = QGraphicsPathItem(path)
    item.setPen(pen)
    item.setZValue(2 if on else 0)
    item.setToolTip(f"{graph.name(s)} → {graph.name(t)} via {ag}: "
                    f"{fmt_estimate(w)} ({graph.source(s, t, ag, w)})")
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


def _draw_node(scene: Any, graph: _CenterGraph, colours: Mapping[str, QColor], n: str,
               p: QPointF) -> None:
    """One node and its label: the origin and goal as bases in their agent's colour with a
    caption below, a center as a square with its name on it."""
    result = graph.result
    end_point = n in (ORIGIN, GOAL)
    if end_point:
        ag = graph.origin_agent if n == ORIGIN else result.task.goal_agent
        fill = QColor(colours.get(ag, QColor("#BBBBBB")))
        item = NodeItem(n, "base", fill, movable=False, radius=11.0)
    else:
        item = NodeItem(n, "center", CENTER_FILL, movable=False)
    item.setPos(p)
    item.setToolTip(graph.name(n))
    scene.addItem(item)
    lab = TextItem(graph.name(n) if end_point else n,
                   point_size=7.5, bold=True,
                   background=None if not end_point else QColor(255, 255, 255, 220))
    lab.setZValue(12)
    if end_point:
        r = lab.boundingRect()
        lab.setPos(p.x() - r.width() / 2, p.y() + 13)
    else:
        lab.center_on(p)
    scene.addItem(lab)


# ---------------------------------------------------------------------------- ledger
