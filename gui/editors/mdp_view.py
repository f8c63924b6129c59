"""A read-only drawing of an MDP: states, action nodes, probability edges, rewards.

* States are labelled circles; the initial state s₀ has a thick outline and an incoming
  arrow. The terminal reward ``R_T`` is written under each state.
* Every available action is a small filled dot near its state (a fan pointing toward
  where the action leads), labelled with its name and one-step reward ``r``; a short
  line joins it to its state.
* Arrows go from an action dot to each next state, labelled with the probability (two
  decimals). Probabilities below :data:`MIN_PROBABILITY` are hidden, and large models
  keep only the most probable next states of each action; the legend says what is hidden.
* Positions come from ``mdp.layout`` when present, else a networkx layout of the state
  graph. Positions are derived from the model each time: the items hold no state.

Mouse wheel zooms, left or middle drag pans, ``F`` fits the drawing to the view.
Text too small to read at the current zoom is not painted (it reappears as you zoom in).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QLabel,
    QWidget,
)

from gui.document import ProjectDocument

if TYPE_CHECKING:
    from core.mdp import MDP

__all__ = ["MdpView", "MIN_PROBABILITY", "MAX_EDGES", "COMPACT_STATES", "LodTextItem"]

MIN_PROBABILITY = 0.005   # edges below this are never drawn
MAX_EDGES = 160           # above this, keep only the top next states of each action
COMPACT_STATES = 40       # above this, draw states and their strongest successors only
MAX_DRAWN_STATES = 600    # above this, draw nothing but a notice

STATE_RADIUS = 34.0
DOT_RADIUS = 5.5
DOT_DISTANCE = STATE_RADIUS + 84.0

_STATE_FILL = QColor("#F3F5F9")
_STATE_PEN = QColor("#2B2B2B")
_DOT_FILL = QColor("#2B2B2B")
_EDGE_COLOUR = QColor("#4A4A4A")
_LABEL_BG = QColor(255, 255, 255, 215)


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 1e-12 else np.zeros(2)


def _angle_dir(theta: float) -> np.ndarray:
    return np.array([math.cos(theta), math.sin(theta)])


def _spread_angles(angles: list[float], min_sep: float) -> list[float]:
    """Directions (radians) moved as little as possible so neighbours are ``min_sep`` apart.

    The circle is cut at its widest gap; the rest is isotonic regression (pool adjacent
    violators) of ``angle_i - i * sep``, which keeps the order and centres each cluster.

    >>> [round(math.degrees(a)) for a in _spread_angles([0.0, 0.0, 0.0], math.radians(30))]
    [-30, 0, 30]
    """
    n = len(angles)
    if n <= 1:
        return list(angles)
    sep = min(min_sep, 2 * math.pi / n)
    tau = 2 * math.pi
    order = sorted(range(n), key=lambda i: (angles[i] % tau, i))
    a = [angles[i] % tau for i in order]
    gaps = [a[k + 1] - a[k] for k in range(n - 1)] + [a[0] + tau - a[-1]]
    start = (max(range(n), key=lambda k: gaps[k]) + 1) % n
    idx = [(start + m) % n for m in range(n)]
    x = [a[idx[0]]]
    for m in range(1, n):
        v = a[idx[m]]
        while v < x[-1]:
            v += tau
        x.append(v)
    blocks: list[list[float]] = []  # [sum, count]
    for m, v in enumerate(x):
        blocks.append([v - m * sep, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    fitted = [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]
    out = [0.0] * n
    for m in range(n):
        theta = fitted[m] + m * sep
        out[order[idx[m]]] = (theta + math.pi) % tau - math.pi
    return out


def _median_nearest(pos: np.ndarray) -> float:
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def _pt(v: np.ndarray) -> QPointF:
    return QPointF(float(v[0]), float(v[1]))


class LodTextItem(QGraphicsSimpleTextItem):
    """Text that is not painted when it would be smaller than ``min_px`` on screen."""

    def __init__(self, text: str, parent: QGraphicsItem | None = None, *, point_size: float = 9.0,
                 bold: bool = False, colour: QColor | str = "#1A1A1A", min_px: float = 6.0,
                 background: QColor | None = _LABEL_BG) -> None:
        super().__init__(text, parent)
        font = QFont()
        font.setPointSizeF(point_size)
        font.setBold(bold)
        self.setFont(font)
        self.setBrush(QBrush(QColor(colour)))
        self._min_px = min_px
        self._background = background
        self._height = QFontMetricsF(font).height()

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self._height * lod < self._min_px:
            return
        if self._background is not None:
            painter.fillRect(self.boundingRect().adjusted(-1.5, 0, 1.5, 0), self._background)
        super().paint(painter, option, widget)

    def center_on(self, p: QPointF) -> None:
        r = self.boundingRect()
        self.setPos(p.x() - r.width() / 2, p.y() - r.height() / 2)


class MdpView(QGraphicsView):
    """Draws the MDP ``mdp_id`` of ``document``; redraws when the document changes."""

    def __init__(self, document: ProjectDocument, mdp_id: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setBackgroundBrush(QBrush(QColor("#FFFFFF")))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumHeight(160)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip("")
        self._auto_fit = True
        self._pan_from: QPointF | None = None
        self.state_items: dict[int, QGraphicsEllipseItem] = {}
        self.action_items: dict[tuple[int, int], QGraphicsEllipseItem] = {}
        self.edge_items: list[QGraphicsPathItem] = []
        self.hidden_edges = 0
        self.notice = ""

        self._legend = QLabel(self)
        self._legend.setWordWrap(True)
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._legend.setStyleSheet("QLabel { background: #F7F7F7; color: #333;"
                                   " border-top: 1px solid #D8D8D8; padding: 3px 8px; }")
        self._empty = QLabel(self.viewport())
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setStyleSheet("QLabel { color: #666; font-size: 11pt; }")

        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        self.rebuild()

    # ------------------------------------------------------------------ public
    @property
    def mdp_id(self) -> str | None:
        return self._mdp_id

    def item_counts(self) -> dict[str, int]:
        return {"states": len(self.state_items), "actions": len(self.action_items),
                "edges": len(self.edge_items)}

    def legend_text(self) -> str:
        return self._legend.text()

    def empty_text(self) -> str:
        return self._empty.text() if self._empty.isVisibleTo(self) else ""

    def fit_to_view(self) -> None:
        """Fit the whole drawing (``F``); small drawings are not blown up past 1.4×."""
        self._auto_fit = True
        rect = self._scene.itemsBoundingRect()
        if rect.isEmpty():
            return
        margin = 24.0
        self.fitInView(rect.adjusted(-margin, -margin, margin, margin),
                       Qt.AspectRatioMode.KeepAspectRatio)
        s = self.transform().m11()
        if s > 1.4:
            self.scale(1.4 / s, 1.4 / s)
        self.centerOn(rect.center())

    def rebuild(self) -> None:
        """Redraw from the document."""
        self._scene.clear()
        self.state_items.clear()
        self.action_items.clear()
        self.edge_items.clear()
        self.hidden_edges = 0
        self.notice = ""
        mdp = self._current_mdp()
        if mdp is None:
            self._show_empty("This project has no MDP to draw yet.\n\nOpen an MDP file with "
                             "File ▸ Open… (*.mdp.json, *.mdp.npz, *.privplan.json).\n"
                             "The MDP editor (add states and actions here) comes in a "
                             "later version.")
            return
        self._empty.hide()
        if mdp.n_states > MAX_DRAWN_STATES:
            self.notice = (f"This model has {mdp.n_states} states — too many to draw. "
                           "The analysis still works.")
            self._show_empty(self.notice)
            self._legend.hide()
            return
        pos = self._state_positions(mdp)
        if mdp.n_states > COMPACT_STATES:
            self._draw_compact(mdp, pos)
        else:
            self._draw_full(mdp, pos)
        self._update_legend(mdp)
        self._scene.setSceneRect(self._scene.itemsBoundingRect().adjusted(-400, -400, 400, 400))
        QTimer.singleShot(0, self, self._fit_if_auto)

    # ------------------------------------------------------------------ layout
    def _current_mdp(self) -> "MDP | None":
        if self._mdp_id is None or not self._document.has_mdp(self._mdp_id):
            return None
        return self._document.mdp_entry(self._mdp_id).mdp

    @staticmethod
    def _state_positions(mdp: "MDP") -> np.ndarray:
        S = mdp.n_states
        if S == 1:
            return np.zeros((1, 2))
        names = mdp.state_names
        layout = mdp.layout or {}
        if all(n in layout for n in names):
            pos = np.array([layout[n] for n in names], dtype=float)
            nn = _median_nearest(pos)
            if not np.isfinite(nn) or nn < 1e-9:  # degenerate stored layout
                pos = MdpView._auto_layout(mdp)
        else:
            pos = MdpView._auto_layout(mdp)
        nn = _median_nearest(pos) or 1.0
        # normalise spacing so the action fans fit between states
        if S > COMPACT_STATES:
            target = 90.0
        else:
            target = 300.0 if S <= 6 else max(230.0, 360.0 - 8.0 * S)
        return (pos - pos.mean(axis=0)) * (target / nn)

    @staticmethod
    def _auto_layout(mdp: "MDP") -> np.ndarray:
        import networkx as nx

        S = mdp.n_states
        if S == 1:
            return np.zeros((1, 2))
        strength = np.where(mdp.mask[:, :, None], mdp.P, 0.0).max(axis=1)
        np.fill_diagonal(strength, 0.0)
        g = nx.Graph()
        g.add_nodes_from(range(S))
        for s, t in zip(*np.nonzero(strength >= MIN_PROBABILITY), strict=True):
            w = max(strength[s, t], strength[t, s])
            g.add_edge(int(s), int(t), weight=float(w))
        density = g.number_of_edges() / (S * (S - 1) / 2)
        if density > 0.5 or S <= 3 or S > COMPACT_STATES:
            if S <= 3:
                layout = {i: (math.cos(2 * math.pi * i / S), math.sin(2 * math.pi * i / S))
                          for i in range(S)}
            else:
                layout = nx.circular_layout(g)
        else:
            layout = nx.kamada_kawai_layout(g, weight=None)
        pos = np.array([layout[i] for i in range(S)], dtype=float)
        # turn the long axis horizontal: views are wider than tall
        centred = pos - pos.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        return centred @ vt.T

    # ------------------------------------------------------------------ drawing
    def _draw_full(self, mdp: "MDP", pos: np.ndarray) -> None:
        S = mdp.n_states
        centroid = pos.mean(axis=0)
        shown = self._edges_to_show(mdp)
        dot_pos: dict[tuple[int, int], np.ndarray] = {}
        fan_dir: dict[int, np.ndarray] = {}
        fan_side: dict[tuple[int, int], float] = {}
        for s in range(S):
            acts = mdp.available_actions(s)
            away = pos[s] - centroid
            if abs(away[0]) > 1e-9 and S <= 6:
                away_dir = np.array([math.copysign(1.0, away[0]), 0.0])  # sideways if possible
            else:
                away_dir = _unit(away) if away.any() else np.array([1.0, 0.0])
            desired = []
            for a in acts:
                v = np.zeros(2)
                for t in np.flatnonzero(mdp.P[s, a]):
                    if t != s:
                        v += mdp.P[s, a, t] * _unit(pos[t] - pos[s])
                # toward where the action leads; away from the rest when it mostly stays
                d = away_dir if mdp.P[s, a, s] > 0.5 or np.hypot(*v) < 0.05 else _unit(v)
                desired.append(math.atan2(d[1], d[0]))
            n = len(acts)
            angles = _spread_angles(desired, math.radians(30))
            dist = DOT_DISTANCE if n > 1 else DOT_DISTANCE * 0.7
            if n >= 3 and S <= 6:
                dist += 26.0
            mean = sum(_angle_dir(t) for t in angles)
            fan = _unit(mean) if np.hypot(*mean) > 1e-6 else away_dir
            fan_dir[s] = fan
            fan_angle = math.atan2(fan[1], fan[0])
            for a, theta in zip(acts, angles, strict=True):
                dot_pos[(s, a)] = pos[s] + dist * _angle_dir(theta)
                rel = (theta - fan_angle + math.pi) % (2 * math.pi) - math.pi
                fan_side[(s, a)] = 1.0 if rel >= 0 else -1.0

        # edges first (under everything)
        returns: dict[tuple[int, int], float] = {}
        for (s, a), targets in shown.items():
            for t in targets:
                hug = t == s and len(mdp.available_actions(s)) > 1
                self._add_edge(mdp, s, a, t, pos, dot_pos[(s, a)], float(mdp.P[s, a, t]),
                               fan_side[(s, a)], hug=hug)
                if hug:
                    returns[(s, a)] = float(mdp.P[s, a, t])
        # states
        for s in range(S):
            self._add_state(mdp, s, pos[s], fan_dir[s])
        # action dots with stems and labels
        for (s, a), p in dot_pos.items():
            self._add_action(mdp, s, a, pos[s], p, returns.get((s, a)))

    def _edges_to_show(self, mdp: "MDP") -> dict[tuple[int, int], list[int]]:
        pairs = [(s, a) for s in range(mdp.n_states) for a in mdp.available_actions(s)]
        candidates = {(s, a): [int(t) for t in np.argsort(-mdp.P[s, a], kind="stable")
                               if mdp.P[s, a, t] >= MIN_PROBABILITY] for (s, a) in pairs}
        n_visible = sum(len(v) for v in candidates.values())
        n_nonzero = int((mdp.P[mdp.mask] > 0).sum())
        self._top_per_action: int | None = None
        if n_visible > MAX_EDGES:
            m = max(1, MAX_EDGES // max(len(pairs), 1))
            self._top_per_action = m
            candidates = {k: v[:m] for k, v in candidates.items()}
        self._n_nonzero = n_nonzero
        self.hidden_edges = n_nonzero - sum(len(v) for v in candidates.values())
        return candidates

    def _add_state(self, mdp: "MDP", s: int, c: np.ndarray, fan: np.ndarray) -> None:
        r = STATE_RADIUS
        initial = s == mdp.initial_state
        item = QGraphicsEllipseItem(QRectF(-r, -r, 2 * r, 2 * r))
        item.setPos(_pt(c))
        item.setBrush(QBrush(_STATE_FILL))
        item.setPen(QPen(_STATE_PEN, 3.2 if initial else 1.4))
        item.setZValue(2)
        name = mdp.state_names[s]
        rt = float(mdp.R_T[s])
        acts = ", ".join(mdp.action_names[s][a] for a in mdp.available_actions(s))
        item.setToolTip(f"<b>{name}</b>{' (initial state s₀)' if initial else ''}<br>"
                        f"terminal reward R_T = {rt:g}<br>actions: {acts}")
        self._scene.addItem(item)
        self.state_items[s] = item
        shown = name if len(name) <= 9 else name[:8] + "…"
        if mdp.n_states <= 6:
            label = LodTextItem(shown, item, point_size=12.0, bold=initial, background=None)
            label.center_on(QPointF(0, 0))
        else:
            # many states: names keep their screen size, so the overview stays readable
            label = LodTextItem(shown, item, point_size=8.0, bold=initial, min_px=0.0)
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            b = label.boundingRect()
            label.setPos(0, 0)
            label.setTransform(QTransform.fromTranslate(-b.width() / 2, -b.height() / 2))
        rt_label = LodTextItem(f"R_T = {rt:.3g}", item, point_size=10.0, colour="#444444")
        b = rt_label.boundingRect()
        # under the state, or above it when the action fan points down
        below = fan[1] < 0.6
        x = -b.width() / 2
        if abs(fan[0]) > 0.3:  # keep clear of a sideways action fan
            x = 8.0 - b.width() if fan[0] > 0 else -8.0
        rt_label.setPos(x, r + 3 if below else -r - 3 - b.height())
        if initial:
            self._add_start_marker(c, fan)

    def _add_start_marker(self, c: np.ndarray, fan: np.ndarray) -> None:
        d = -fan if fan.any() else np.array([-1.0, 0.0])
        tip = c + d * (STATE_RADIUS + 2)
        tail = c + d * (STATE_RADIUS + 40)
        path = QPainterPath(_pt(tail))
        path.lineTo(_pt(tip))
        line = QGraphicsPathItem(path)
        line.setPen(QPen(_STATE_PEN, 2.2))
        line.setZValue(1)
        self._scene.addItem(line)
        self._scene.addItem(self._arrow_head(tip, _unit(tip - tail), _STATE_PEN, 11.0))
        lab = LodTextItem("s₀", None, point_size=9.0, bold=True, background=None)
        lab.center_on(_pt(tail + d * 12))
        self._scene.addItem(lab)

    def _add_action(self, mdp: "MDP", s: int, a: int, c: np.ndarray, p: np.ndarray,
                    back: float | None = None) -> None:
        stem = QPainterPath(_pt(c + _unit(p - c) * STATE_RADIUS))
        stem.lineTo(_pt(p))
        stem_item = QGraphicsPathItem(stem)
        stem_item.setPen(QPen(QColor("#2B2B2B"), 1.6))
        stem_item.setZValue(1)
        self._scene.addItem(stem_item)
        r = DOT_RADIUS
        dot = QGraphicsEllipseItem(QRectF(-r, -r, 2 * r, 2 * r))
        dot.setPos(_pt(p))
        dot.setBrush(QBrush(_DOT_FILL))
        dot.setPen(QPen(Qt.PenStyle.NoPen))
        dot.setZValue(4)
        name = mdp.action_names[s][a]
        reward = float(mdp.R[s, a])
        row = ", ".join(f"{mdp.state_names[t]} {mdp.P[s, a, t]:.3f}"
                        for t in np.argsort(-mdp.P[s, a], kind="stable") if mdp.P[s, a, t] > 0)
        dot.setToolTip(f"<b>{name}</b> in state {mdp.state_names[s]}<br>"
                       f"reward r = {reward:g}<br>next state: {row}")
        self._scene.addItem(dot)
        self.action_items[(s, a)] = dot
        # name above the stem, reward below it, both along the stem and ending at the dot
        out = _unit(p - c)
        angle = math.degrees(math.atan2(out[1], out[0]))
        flip = out[0] < -1e-9
        rot = angle + 180.0 if flip else angle
        below = f"r={reward:.3g}" + (f"  ↺{back:.2f}" if back is not None else "")
        for text, above in ((name, True), (below, False)):
            label = LodTextItem(text, None, point_size=9.5, colour="#1A1A1A",
                                bold=above, background=None)
            b = label.boundingRect()
            # local frame: x along the (upright) text direction, y down
            x0 = -b.width() - DOT_RADIUS - 3 if not flip else DOT_RADIUS + 3
            y0 = -b.height() - 1 if above else 1
            label.setTransformOriginPoint(0, 0)
            label.setRotation(rot)
            d = np.array([math.cos(math.radians(rot)), math.sin(math.radians(rot))])
            n = np.array([-d[1], d[0]])
            label.setPos(_pt(p + d * x0 + n * y0))
            label.setZValue(5)
            self._scene.addItem(label)

    def _add_edge(self, mdp: "MDP", s: int, a: int, t: int, pos: np.ndarray, dot: np.ndarray,
                  p: float, side_sign: float = 1.0, *, hug: bool = False) -> None:
        colour = QColor(_EDGE_COLOUR)
        colour.setAlpha(int(95 + 160 * min(1.0, p)))
        pen = QPen(colour, 0.8 + 2.2 * p)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        if hug:
            # back to its own state, hugging the stem on the reward-label side (the ↺ value)
            c = pos[s]
            out = _unit(dot - c)
            side = np.array([-out[1], out[0]])
            end = c + _unit(out + side * 0.45) * STATE_RADIUS
            reach = float(np.hypot(*(dot - c)))
            ctrl = c + out * (reach * 0.45) + side * 16.0
            path = QPainterPath(_pt(dot))
            path.quadTo(_pt(ctrl), _pt(end))
            label_at = None
            head_dir = _unit(end - ctrl)
        elif t == s:
            # back to its own state: a loop that leaves the dot and re-enters beside the stem
            c = pos[s]
            out = _unit(dot - c)
            side = np.array([-out[1], out[0]]) * side_sign
            end = c + _unit(out + side * 0.9) * STATE_RADIUS
            reach = float(np.hypot(*(dot - c)))
            ctrl = c + out * (reach * 0.75) + side * (reach * 0.55)
            path = QPainterPath(_pt(dot))
            path.quadTo(_pt(ctrl), _pt(end))
            label_at = 0.25 * dot + 0.5 * ctrl + 0.25 * end
            head_dir = _unit(end - ctrl)
        else:
            c = pos[t]
            end = c + _unit(dot - c) * (STATE_RADIUS + 1.5)
            path = QPainterPath(_pt(dot))
            path.lineTo(_pt(end))
            length = float(np.hypot(*(end - dot)))
            label_at = dot + _unit(end - dot) * min(0.42 * length, 78.0)
            head_dir = _unit(end - dot)
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(0)
        item.setToolTip(f"{mdp.action_names[s][a]} in {mdp.state_names[s]} → "
                        f"{mdp.state_names[t]}: p = {p:.4f}")
        self._scene.addItem(item)
        self.edge_items.append(item)
        head_colour = QColor(colour)
        self._scene.addItem(self._arrow_head(end, head_dir, head_colour, 7.0 + 4.0 * p))
        if label_at is None:
            return
        label = LodTextItem(f"{p:.2f}", None, point_size=9.5, colour="#333333")
        label.center_on(_pt(label_at))
        label.setZValue(3)
        self._scene.addItem(label)

    @staticmethod
    def _arrow_head(tip: np.ndarray, direction: np.ndarray, colour: QColor,
                    size: float) -> QGraphicsPolygonItem:
        d = direction if direction.any() else np.array([1.0, 0.0])
        n = np.array([-d[1], d[0]])
        base = tip - d * size
        poly = QPolygonF([_pt(tip), _pt(base + n * size * 0.45), _pt(base - n * size * 0.45)])
        item = QGraphicsPolygonItem(poly)
        item.setBrush(QBrush(colour))
        item.setPen(QPen(Qt.PenStyle.NoPen))
        item.setZValue(1)
        return item

    def _draw_compact(self, mdp: "MDP", pos: np.ndarray) -> None:
        S = mdp.n_states
        strength = np.where(mdp.mask[:, :, None], mdp.P, 0.0).max(axis=1)
        np.fill_diagonal(strength, 0.0)
        r = 11.0
        for s in range(S):
            t = int(np.argmax(strength[s]))
            p = float(strength[s, t])
            if p < MIN_PROBABILITY:
                continue
            end = pos[t] + _unit(pos[s] - pos[t]) * (r + 1)
            path = QPainterPath(_pt(pos[s]))
            path.lineTo(_pt(end))
            colour = QColor(_EDGE_COLOUR)
            colour.setAlpha(int(70 + 185 * p))
            item = QGraphicsPathItem(path)
            item.setPen(QPen(colour, 0.8 + 1.5 * p))
            item.setToolTip(f"{mdp.state_names[s]} → {mdp.state_names[t]}: "
                            f"max over actions p = {p:.3f}")
            self._scene.addItem(item)
            self.edge_items.append(item)
            self._scene.addItem(self._arrow_head(end, _unit(end - pos[s]), colour, 6.0))
        for s in range(S):
            initial = s == mdp.initial_state
            item = QGraphicsEllipseItem(QRectF(-r, -r, 2 * r, 2 * r))
            item.setPos(_pt(pos[s]))
            item.setBrush(QBrush(_STATE_FILL))
            item.setPen(QPen(_STATE_PEN, 2.6 if initial else 1.0))
            item.setZValue(2)
            item.setToolTip(f"{mdp.state_names[s]}{' (s₀)' if initial else ''}: "
                            f"R_T = {mdp.R_T[s]:g}")
            self._scene.addItem(item)
            self.state_items[s] = item
            label = LodTextItem(mdp.state_names[s], item, point_size=6.5, background=None)
            label.center_on(QPointF(0, 0))
        self.hidden_edges = int((mdp.P[mdp.mask] > 0).sum()) - len(self.edge_items)
        self.notice = (f"Large model ({S} states): action nodes are hidden and each state shows "
                       "only its most probable next state over all actions.")

    def _update_legend(self, mdp: "MDP") -> None:
        if self.notice:
            text = f"<b>Compact view.</b> {self.notice}"
        else:
            parts = ["<b>○</b> state (R_T = terminal reward) &nbsp; <b>●</b> action "
                     "(r = one-step reward, ↺ = probability of returning to its state) &nbsp; "
                     "→ next state with its probability"]
            top = getattr(self, "_top_per_action", None)
            if top:
                parts.append(f"<br>Large model: each action shows only its {top} most probable "
                             f"next state{'s' if top > 1 else ''} "
                             f"({len(self.edge_items)} of {self._n_nonzero} edges); "
                             "hover a dot for its full row.")
            elif self.hidden_edges:
                parts.append(f"<br>{self.hidden_edges} edge(s) with p &lt; {MIN_PROBABILITY} "
                             "hidden; hover a dot for its full row.")
            text = "".join(parts)
        text += ("<br><span style='color:#777'>wheel: zoom · drag: pan · F: fit · "
                 "labels too small to read appear as you zoom in</span>")
        self._legend.setText(text)
        self._legend.show()
        self._place_overlays()

    def _show_empty(self, text: str) -> None:
        self._empty.setText(text)
        self._empty.show()
        self._legend.hide()
        self._place_overlays()

    def _place_overlays(self) -> None:
        frame = self.frameWidth()
        if self._legend.isVisibleTo(self):
            width = max(120, self.width() - 2 * frame)
            self._legend.setMinimumSize(0, 0)
            self._legend.setMaximumSize(16777215, 16777215)
            height = self._legend.heightForWidth(width)
            self._legend.setFixedSize(width, max(height, 18))
            self.setViewportMargins(0, 0, 0, self._legend.height())
            self._legend.move(frame, self.height() - frame - self._legend.height())
        else:
            self.setViewportMargins(0, 0, 0, 0)
        self._empty.setGeometry(self.viewport().rect().adjusted(24, 24, -24, -24))

    def _fit_if_auto(self) -> None:
        if self._auto_fit:
            self.fit_to_view()

    # ------------------------------------------------------------------ Qt events
    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._place_overlays()
        self._fit_if_auto()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_overlays()
        self._fit_if_auto()

    def wheelEvent(self, event) -> None:  # noqa: N802
        delta = event.angleDelta().y()
        if not delta:
            return
        factor = 1.0015 ** delta
        s = self.transform().m11()
        factor = min(max(factor, 0.03 / s), 12.0 / s)
        self._auto_fit = False
        self.scale(factor, factor)
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_F:
            self.fit_to_view()
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Plus, Qt.Key.Key_Equal, Qt.Key.Key_Minus):
            f = 1.25 if event.key() != Qt.Key.Key_Minus else 0.8
            self._auto_fit = False
            self.scale(f, f)
            event.accept()
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._pan_from is not None:
            d = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
            self._auto_fit = False
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # ------------------------------------------------------------------ slots
    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self._auto_fit = True
            self.rebuild()

    def _on_document_project_replaced(self) -> None:
        self._auto_fit = True
        self.rebuild()


def preview(exec_: bool = True, mdp_id: str = "four-startups") -> QWidget:
    from gui.preview import example_document, run_preview

    return run_preview(lambda: MdpView(example_document(), mdp_id), exec_=exec_,
                       title=f"MDP view: {mdp_id}", size=(900, 600))


if __name__ == "__main__":
    import sys

    preview(mdp_id=sys.argv[1] if len(sys.argv) > 1 else "four-startups")
