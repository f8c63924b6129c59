"""Drawing an MDP on the canvas: the building of the scene from the document's model.

:class:`SceneDrawing` is a part of :class:`gui.mdp.view.MdpView` that takes
``(document, hooks)`` (:class:`gui.mdp.canvas_hooks.DrawingHooks`: the canvas widget and
what the drawing asks of the view): it builds the view's scene from the document's model
(the model is the truth; items are rebuilt from it, never read back), in full or, for large
models, compact; it keeps the items drawn, the results overlay and the labels over the
canvas (:class:`gui.mdp.legend.CanvasLabels`). Constants and geometry are
:mod:`gui.mdp.canvas_parts`.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
)

from core.mdp import MdpModel
from gui.mdp.canvas_hooks import DrawingHooks
from gui.mdp.canvas_parts import (
    COMPACT_RADIUS,
    COMPACT_STATES,
    DOT_DISTANCE,
    DOT_FADED,
    DOT_FILL,
    DOT_RADIUS,
    EDGE_COLOUR,
    MATRIX_STATES,
    MAX_EDGES,
    MIN_PROBABILITY,
    STATE_FILL,
    STATE_PEN,
    STATE_RADIUS,
    angle_dir,
    bounds_overlay,
    clean_rows,
    spread_angles,
    to_point,
    unit,
)
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.mdp.legend import CanvasLabels
from gui.shell.canvas import LodTextItem, schedule_declutter
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT, fmt_num

__all__ = ["SceneDrawing"]


class SceneDrawing:
    """Builds the scene of an :class:`gui.mdp.view.MdpView` from ``document`` (see the
    module docstring); holds the items drawn and what the legend says about them."""

    def __init__(self, document: ProjectDocument, hooks: DrawingHooks) -> None:
        self._document = document
        self._hooks = hooks
        self._scene = hooks.canvas.scene()
        self.labels = CanvasLabels(hooks.canvas)
        self.state_items: dict[str, StateItem] = {}
        self.action_items: dict[str, ActionItem] = {}
        self.edge_items: list[EdgeItem] = []
        self.decorations: list[QGraphicsItem] = []
        self.hidden_edges = 0  # edges not drawn (thinned out, or a compact drawing)
        self.notice = ""  # why the drawing is compact or empty
        self.compact = False
        self.top_per_action: int | None = None
        self.n_nonzero = 0
        self.decorate_pending = False
        self.rebuilding = False  # items move while the scene is rebuilt: not a user's move
        self.results_run: str | None = None  # the "bounds" run drawn on the model, if any
        self.results_stage = 0
        self.overlay: dict[str, Any] | None = None  # see bounds_overlay
        # each state's action-dot angles, kept while the states' positions and its actions
        # stay the same: a transition edit must not move the dot the user clicks next
        self._dot_angles: dict[str, tuple[tuple[bytes, tuple[str, ...]], list[float]]] = {}

    # ------------------------------------------------------------------ building
    def rebuild(self) -> bool:
        """Redraw everything from the document (keeps the selection); False if nothing
        could be drawn (no model, or too many states: the empty text says why)."""
        h = self._hooks
        keep = h.selection()
        self.rebuilding = True
        try:
            h.cancel_connect()
            self._scene.clear()
            self.state_items.clear()
            self.action_items.clear()
            self.edge_items.clear()
            self.decorations.clear()
            self.hidden_edges = 0
            self.notice = ""
            model, mdp_id = h.model(), h.mdp_id()
            if self.results_run is not None and mdp_id is not None:
                self.overlay = bounds_overlay(self._document, self.results_run, mdp_id,
                                              self.results_stage)
            if model is None:
                self.labels.show_empty("This project has no MDP yet.\n\nFile ▸ New MDP "
                                 "(Ctrl+Shift+N) starts a drawing; File ▸ Open… or "
                                 "File ▸ Import Model… loads one (*.mdp.json, *.mdp.npz, "
                                 "*.privplan.json, PRISM .tra, Storm .drn), or drop the "
                                 "file on the window.")
                return False
            if model.n_states > MATRIX_STATES:
                self.notice = (f"This model has {model.n_states} states — too many to draw. "
                               "It is shown as a matrix (state × action rows); analyses "
                               "work as usual.")
                self.labels.show_empty(self.notice)
                return False
            if model.n_states == 0:
                self.labels.show_empty("This MDP has no states yet.\n\nDouble-click here (or press "
                                 "N) to add the first state. Then select it and press A to "
                                 "give it an action, and drag from the action's dot to a "
                                 "state to add a transition; the Inspector on the right "
                                 "edits probabilities and rewards.")
            else:
                self.labels.hide_empty()
            self.compact = model.n_states > COMPACT_STATES
            pos = self.display_positions(model)
            radius = COMPACT_RADIUS if self.compact else STATE_RADIUS
            problems = self._document.problems(mdp_id)  # type: ignore[arg-type]
            state_problem = {p.state: p.message for p in problems
                             if p.state is not None and p.action is None}
            for s, sid in enumerate(model.state_ids):
                item = StateItem(sid, radius, on_moved=self._on_state_item_moved)
                item.setPos(to_point(pos[s]))
                item.problem = state_problem.get(sid, "")
                self._style_state(model, s, item)
                self._scene.addItem(item)
                self.state_items[sid] = item
            self.decorate()
            h.select_ids([i for i in keep.ids() if i in self.state_items
                          or i in self.action_items], [t for t in keep.transitions])
        finally:
            self.rebuilding = False
        return True

    def display_positions(self, model: MdpModel) -> np.ndarray:
        from core.mdp import fill_missing_positions

        pos = np.array(model.positions, dtype=float).reshape(-1, 2)
        if len(pos) != model.n_states or not np.isfinite(pos).all():
            pos = fill_missing_positions(model)
        return pos

    def _style_state(self, model: MdpModel, s: int, item: StateItem) -> None:
        sid = model.state_ids[s]
        initial = sid == model.initial_state
        item.setBrush(QBrush(STATE_FILL))
        item.setPen(QPen(STATE_PEN, (3.2 if initial else 1.4) if not self.compact
                         else (2.6 if initial else 1.0)))
        name = model.state_labels[s]
        rt = float(model.R_T[s])
        acts = ", ".join(model.action_labels[s]) or "none yet (press A)"
        tip = (f"<b>{html.escape(name)}</b>{' (initial state s₀)' if initial else ''}<br>"
               f"terminal reward R_T = {rt:g}<br>actions: {html.escape(acts)}")
        if item.problem:
            tip += f"<br><span style='color:{ERROR_COLOUR}'>⚠ {html.escape(item.problem)}</span>"
        item.setToolTip(tip)
        shown = name if len(name) <= 9 else name[:8] + "…"
        if self.compact:
            label = LodTextItem(shown, item, point_size=6.5, bold=initial, background=None)
            label.center_on(QPointF(0, 0))
        elif model.n_states <= 6:
            label = LodTextItem(shown, item, point_size=12.0, bold=initial, background=None)
            label.center_on(QPointF(0, 0))
        else:
            # many states: names keep their screen size, so the overview stays readable
            label = LodTextItem(shown, item, point_size=8.0, bold=initial, min_px=0.0)
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            b = label.boundingRect()
            label.setPos(0, 0)
            label.setTransform(QTransform.fromTranslate(-b.width() / 2, -b.height() / 2))

    def _current_positions(self, model: MdpModel) -> np.ndarray:
        pos = np.zeros((model.n_states, 2))
        for s, sid in enumerate(model.state_ids):
            item = self.state_items.get(sid)
            if item is not None:
                pos[s] = (item.pos().x(), item.pos().y())
        return pos

    def _add(self, item: QGraphicsItem) -> QGraphicsItem:
        self._scene.addItem(item)
        self.decorations.append(item)
        return item

    def decorate(self) -> None:
        """(Re)draw everything attached to the states: actions, edges, labels, results."""
        self.decorate_pending = False
        schedule_declutter(self._hooks.canvas)  # labels readable and out of each other's way
        keep_actions = [a for a, item in self.action_items.items() if item.isSelected()]
        keep_edges = [(e.action_id, e.target_id) for e in self.edge_items if e.isSelected()]
        blocked = self._scene.blockSignals(True)
        try:
            for item in self.decorations:
                if item.scene() is self._scene:
                    self._scene.removeItem(item)
            self.decorations.clear()
            self.action_items.clear()
            self.edge_items.clear()
            model = self._hooks.model()
            if model is None or not self.state_items:
                self.labels.update_legend(model, self)
                return
            pos = self._current_positions(model)
            if self.compact:
                self._decorate_compact(model, pos)
            else:
                self._decorate_full(model, pos)
            for aid in keep_actions:
                if aid in self.action_items:
                    self.action_items[aid].setSelected(True)
            for e in self.edge_items:
                if (e.action_id, e.target_id) in keep_edges:
                    e.setSelected(True)
        finally:
            self._scene.blockSignals(blocked)
        self.labels.update_legend(model, self)

    def schedule_decorate(self) -> None:
        if not self.decorate_pending:
            self.decorate_pending = True
            QTimer.singleShot(0, self._hooks.canvas, self._decorate_if_pending)

    def _decorate_if_pending(self) -> None:
        if self.decorate_pending:
            self.decorate()

    def _on_state_item_moved(self, item: StateItem) -> None:
        if not self.rebuilding:  # a drag: the actions and edges follow the state
            self.schedule_decorate()

    # ------------------------------------------------------------------ full drawing
    def _edges_to_show(self, model: MdpModel, P: np.ndarray) -> dict[tuple[int, int], list[int]]:
        pairs = [(s, j) for s in range(model.n_states) for j in range(len(model.action_ids[s]))]
        nonzero = {(s, j): [int(t) for t in np.argsort(-P[s, j], kind="stable") if P[s, j, t] > 0]
                   for (s, j) in pairs}
        self.n_nonzero = sum(len(v) for v in nonzero.values())
        self.top_per_action = None
        if self.n_nonzero <= MAX_EDGES:
            self.hidden_edges = 0
            return nonzero
        candidates = {k: [t for t in v if P[k[0], k[1], t] >= MIN_PROBABILITY]
                      for k, v in nonzero.items()}
        if sum(len(v) for v in candidates.values()) > MAX_EDGES:
            m = max(1, MAX_EDGES // max(len(pairs), 1))
            self.top_per_action = m
            candidates = {k: v[:m] for k, v in candidates.items()}
        self.hidden_edges = self.n_nonzero - sum(len(v) for v in candidates.values())
        return candidates

    def _decorate_full(self, model: MdpModel, pos: np.ndarray) -> None:
        S = model.n_states
        P = clean_rows(model)
        centroid = pos.mean(axis=0)
        shown = self._edges_to_show(model, P)
        overlay = self.overlay
        chosen = {}
        if overlay is not None:
            chosen = {sid: v["action"] for sid, v in overlay["states"].items()}
        problems = self._document.problems(self._hooks.mdp_id())  # type: ignore[arg-type]
        action_problem = {p.action: p.message for p in problems if p.action is not None}
        dot_pos: dict[tuple[int, int], np.ndarray] = {}
        fan_dir: dict[int, np.ndarray] = {}
        fan_side: dict[tuple[int, int], float] = {}
        layout_key = pos.tobytes()  # the states' positions: dots move only when these do
        for s in range(S):
            n = len(model.action_ids[s])
            kept = self._dot_angles.get(model.state_ids[s])
            if kept is not None and kept[0] == (layout_key, tuple(model.action_ids[s])):
                angles = kept[1]  # a transition edit leaves the dots where they were
            else:
                angles = self._dot_fan(model, P, pos, s, centroid)
                self._dot_angles[model.state_ids[s]] = ((layout_key,
                                                         tuple(model.action_ids[s])), angles)
            away = pos[s] - centroid
            away_dir = (np.array([math.copysign(1.0, away[0]), 0.0])
                        if abs(away[0]) > 1e-9 and S <= 6
                        else unit(away) if away.any() else np.array([1.0, 0.0]))
            dist = DOT_DISTANCE if n > 1 else DOT_DISTANCE * 0.7
            if n >= 3 and S <= 6:
                dist += 26.0
            mean = sum((angle_dir(t) for t in angles), np.zeros(2))
            fan = unit(mean) if np.hypot(*mean) > 1e-6 else away_dir
            fan_dir[s] = fan
            fan_angle = math.atan2(fan[1], fan[0])
            for j, theta in enumerate(angles):
                dot_pos[(s, j)] = pos[s] + dist * angle_dir(theta)
                rel = (theta - fan_angle + math.pi) % (2 * math.pi) - math.pi
                fan_side[(s, j)] = 1.0 if rel >= 0 else -1.0
        self._decorate_edges(model, P, pos, shown, chosen, action_problem, dot_pos, fan_dir,
                             fan_side)

    def _dot_fan(self, model: MdpModel, P: np.ndarray, pos: np.ndarray, s: int,
                 centroid: np.ndarray) -> list[float]:
        """The angles of state ``s``'s action dots: each toward where its action leads,
        away from the rest when it mostly stays."""
        away = pos[s] - centroid
        if abs(away[0]) > 1e-9 and model.n_states <= 6:
            away_dir = np.array([math.copysign(1.0, away[0]), 0.0])  # sideways if possible
        else:
            away_dir = unit(away) if away.any() else np.array([1.0, 0.0])
        desired = []
        for j in range(len(model.action_ids[s])):
            v = np.zeros(2)
            for t in np.flatnonzero(P[s, j]):
                if t != s:
                    v += P[s, j, t] * unit(pos[t] - pos[s])
            d = away_dir if P[s, j, s] > 0.5 or np.hypot(*v) < 0.05 else unit(v)
            desired.append(math.atan2(d[1], d[0]))
        return list(spread_angles(desired, math.radians(30)))

    def _decorate_edges(self, model: MdpModel, P: np.ndarray, pos: np.ndarray,
                        shown: dict, chosen: dict, action_problem: dict, dot_pos: dict,
                        fan_dir: dict, fan_side: dict) -> None:
        S = model.n_states
        returns: dict[tuple[int, int], float] = {}
        for (s, j), targets in shown.items():
            aid = model.action_ids[s][j]
            picked = chosen.get(model.state_ids[s])
            faded = bool(chosen) and picked is not None and picked != aid
            for t in targets:
                hug = t == s and len(model.action_ids[s]) > 1
                self._add_edge(model, s, j, t, pos, dot_pos[(s, j)], float(P[s, j, t]),
                               fan_side[(s, j)], hug=hug, faded=faded,
                               accent=bool(chosen) and picked == aid)
                if hug:
                    returns[(s, j)] = float(P[s, j, t])
        for s in range(S):
            self._add_state_labels(model, s, pos[s], fan_dir[s])
        for (s, j), p in dot_pos.items():
            aid = model.action_ids[s][j]
            picked = chosen.get(model.state_ids[s])
            self._add_action(model, s, j, pos[s], p, returns.get((s, j)),
                             problem=action_problem.get(aid, ""),
                             chosen=bool(chosen) and picked == aid,
                             faded=bool(chosen) and picked is not None and picked != aid)

    def _add_state_labels(self, model: MdpModel, s: int, c: np.ndarray, fan: np.ndarray) -> None:
        r = STATE_RADIUS
        rt = float(model.R_T[s])
        below = fan[1] < 0.6  # under the state, or above it when the action fan points down
        lines = [(f"R_T = {rt:.3g}", "#444444", False)]
        overlay = self.overlay
        if overlay is not None:
            info = overlay["states"].get(model.state_ids[s])
            if info is not None:
                lo, vp, hi = info["values"]
                lines.append((f"v\u0332 {fmt_num(lo, 3)}  V\u0304 {fmt_num(vp, 3)}  "
                              f"v\u0304 {fmt_num(hi, 3)}",
                              "#8A5300" if not overlay["stale"] else "#888888", True))
        y = c[1] + (r + 3 if below else -r - 3)
        for text, colour, bold in (lines if below else reversed(lines)):
            label = LodTextItem(text, None, point_size=10.0 if not bold else 9.5,
                                colour=colour, bold=bold)
            b = label.boundingRect()
            x = c[0] - b.width() / 2
            if abs(fan[0]) > 0.3:  # keep clear of a sideways action fan
                x = c[0] + (8.0 - b.width() if fan[0] > 0 else -8.0)
            label.setPos(x, y if below else y - b.height())
            y += (b.height() + 1) if below else -(b.height() + 1)
            label.setZValue(3)
            self._add(label)
        if model.state_ids[s] == model.initial_state:
            self._add_start_marker(c, fan)

    def _add_start_marker(self, c: np.ndarray, fan: np.ndarray) -> None:
        d = -fan if fan.any() else np.array([-1.0, 0.0])
        tip = c + d * (STATE_RADIUS + 2)
        tail = c + d * (STATE_RADIUS + 40)
        path = QPainterPath(to_point(tail))
        path.lineTo(to_point(tip))
        line = QGraphicsPathItem(path)
        line.setPen(QPen(STATE_PEN, 2.2))
        line.setZValue(1)
        self._add(line)
        self._add(self._arrow_head(tip, unit(tip - tail), STATE_PEN, 11.0))
        lab = LodTextItem("s₀", None, point_size=9.0, bold=True, background=None)
        lab.center_on(to_point(tail + d * 12))
        self._add(lab)

    def _add_action(self, model: MdpModel, s: int, j: int, c: np.ndarray, p: np.ndarray,
                    back: float | None = None, *, problem: str = "", chosen: bool = False,
                    faded: bool = False) -> None:
        aid = model.action_ids[s][j]
        stem = QPainterPath(to_point(c + unit(p - c) * STATE_RADIUS))
        stem.lineTo(to_point(p))
        stem_item = QGraphicsPathItem(stem)
        stem_colour = QColor(PRIVATE_ACCENT) if chosen else QColor(DOT_FADED if faded
                                                                  else DOT_FILL)
        stem_item.setPen(QPen(stem_colour, 3.2 if chosen else 1.6))
        stem_item.setZValue(1)
        self._add(stem_item)
        dot = ActionItem(aid, model.state_ids[s], DOT_RADIUS)
        dot.setPos(to_point(p))
        dot.setBrush(QBrush(DOT_FADED if faded else DOT_FILL))
        dot.setPen(QPen(Qt.PenStyle.NoPen))
        dot.problem = problem
        dot.chosen = chosen
        name = model.action_labels[s][j]
        reward = float(model.R[s, j])
        row = ", ".join(f"{html.escape(model.state_labels[t])} {model.P[s, j, t]:.4g}"
                        for t in np.argsort(-np.nan_to_num(model.P[s, j]), kind="stable")
                        if model.P[s, j, t] != 0)
        tip = (f"<b>{html.escape(name)}</b> in state {html.escape(model.state_labels[s])}<br>"
               f"reward r = {reward:g}<br>next state: {row or 'none yet (drag to a state)'}")
        if chosen:
            tip += "<br><span style='color:#8A5300'>chosen by the private policy π̄</span>"
        if problem:
            tip += f"<br><span style='color:{ERROR_COLOUR}'>⚠ {html.escape(problem)}</span>"
        dot.setToolTip(tip)
        self._add(dot)
        self.action_items[aid] = dot
        # name above the stem, reward below it, both along the stem and ending at the dot
        out = unit(p - c)
        angle = math.degrees(math.atan2(out[1], out[0]))
        flip = out[0] < -1e-9
        rot = angle + 180.0 if flip else angle
        below = f"r={reward:.3g}" + (f"  ↺{back:.2f}" if back is not None else "")
        colour = "#1A1A1A" if not faded else "#8A8A8A"
        for text, above in ((name, True), (below, False)):
            # every action's name and reward are kept before probabilities (priority 0):
            # a crowded one moves beside its dot (right, left, over/under) before it hides
            label = LodTextItem(text, None, point_size=9.5, bold=above, background=None,
                                priority=3 if above else 2,
                                colour=(PRIVATE_ACCENT if chosen and above else
                                        ERROR_COLOUR if problem and not above else colour))
            b = label.boundingRect()
            x0 = -b.width() - DOT_RADIUS - 3 if not flip else DOT_RADIUS + 3
            y0 = -b.height() - 1 if above else 1
            label.setTransformOriginPoint(0, 0)
            label.setRotation(rot)
            d = np.array([math.cos(math.radians(rot)), math.sin(math.radians(rot))])
            n = np.array([-d[1], d[0]])
            label.setPos(to_point(p + d * x0 + n * y0))
            w, h, r0 = b.width(), b.height(), DOT_RADIUS + 3
            yy = p[1] - h - 1 if above else p[1] + 1
            label.placements = [(label.pos(), rot)] + [
                (QPointF(x, y), 0.0) for x, y in (
                    (p[0] + r0, yy), (p[0] - r0 - w, yy),
                    (p[0] - w / 2, p[1] - r0 - h if above else p[1] + r0),
                    (p[0] + r0, yy - h if above else yy + h),
                    (p[0] - r0 - w, yy - h if above else yy + h))]
            label.setZValue(5)
            self._add(label)

    def _add_edge(self, model: MdpModel, s: int, j: int, t: int, pos: np.ndarray,
                  dot: np.ndarray, p: float, side_sign: float = 1.0, *, hug: bool = False,
                  faded: bool = False, accent: bool = False) -> None:
        colour = QColor(PRIVATE_ACCENT) if accent else QColor(EDGE_COLOUR)
        colour.setAlpha(int((40 if faded else 95) + (90 if faded else 160) * min(1.0, p)))
        pen = QPen(colour, 0.8 + 2.2 * min(1.0, p))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        if hug:
            # back to its own state, hugging the stem on the reward-label side (the ↺ value)
            c = pos[s]
            out = unit(dot - c)
            side = np.array([-out[1], out[0]])
            end = c + unit(out + side * 0.45) * STATE_RADIUS
            reach = float(np.hypot(*(dot - c)))
            ctrl = c + out * (reach * 0.45) + side * 16.0
            path = QPainterPath(to_point(dot))
            path.quadTo(to_point(ctrl), to_point(end))
            label_at = None
            head_dir = unit(end - ctrl)
        elif t == s:
            # back to its own state: a loop that leaves the dot and re-enters beside the stem
            c = pos[s]
            out = unit(dot - c)
            side = np.array([-out[1], out[0]]) * side_sign
            end = c + unit(out + side * 0.9) * STATE_RADIUS
            reach = float(np.hypot(*(dot - c)))
            ctrl = c + out * (reach * 0.75) + side * (reach * 0.55)
            path = QPainterPath(to_point(dot))
            path.quadTo(to_point(ctrl), to_point(end))
            label_at = 0.25 * dot + 0.5 * ctrl + 0.25 * end
            head_dir = unit(end - ctrl)
        else:
            c = pos[t]
            end = c + unit(dot - c) * (STATE_RADIUS + 1.5)
            path = QPainterPath(to_point(dot))
            path.lineTo(to_point(end))
            length = float(np.hypot(*(end - dot)))
            label_at = dot + unit(end - dot) * min(0.42 * length, 78.0)
            head_dir = unit(end - dot)
        aid = model.action_ids[s][j]
        item = EdgeItem(aid, model.state_ids[t], path, pen)
        item.setToolTip(f"{html.escape(model.action_labels[s][j])} in "
                        f"{html.escape(model.state_labels[s])} → "
                        f"{html.escape(model.state_labels[t])}: p = {p:.4g}<br>"
                        "click to select · Delete removes this transition")
        self._add(item)
        self.edge_items.append(item)
        self._add(self._arrow_head(end, head_dir, QColor(colour), 7.0 + 4.0 * min(1.0, p)))
        if label_at is None:
            return
        label = LodTextItem(f"{p:.3g}", None, point_size=9.5, priority=0,
                            colour="#333333" if not faded else "#999999")
        label.center_on(to_point(label_at))
        label.setZValue(3)
        self._add(label)

    @staticmethod
    def _arrow_head(tip: np.ndarray, direction: np.ndarray, colour: QColor,
                    size: float) -> QGraphicsPolygonItem:
        d = direction if direction.any() else np.array([1.0, 0.0])
        n = np.array([-d[1], d[0]])
        base = tip - d * size
        poly = QPolygonF([to_point(tip), to_point(base + n * size * 0.45),
                          to_point(base - n * size * 0.45)])
        item = QGraphicsPolygonItem(poly)
        item.setBrush(QBrush(colour))
        item.setPen(QPen(Qt.PenStyle.NoPen))
        item.setZValue(1)
        item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        return item

    # ------------------------------------------------------------------ compact drawing
    def _decorate_compact(self, model: MdpModel, pos: np.ndarray) -> None:
        S = model.n_states
        P = clean_rows(model)
        strength = P.max(axis=1) if P.shape[1] else np.zeros((S, S))
        np.fill_diagonal(strength, 0.0)
        r = COMPACT_RADIUS
        overlay = self.overlay
        for s in range(S):
            t = int(np.argmax(strength[s]))
            p = float(strength[s, t])
            if p <= 0:
                continue
            end = pos[t] + unit(pos[s] - pos[t]) * (r + 1)
            path = QPainterPath(to_point(pos[s]))
            path.lineTo(to_point(end))
            colour = QColor(EDGE_COLOUR)
            colour.setAlpha(int(70 + 185 * min(1.0, p)))
            line = QGraphicsPathItem(path)
            line.setPen(QPen(colour, 0.8 + 1.5 * min(1.0, p)))
            line.setToolTip(f"{html.escape(model.state_labels[s])} → "
                            f"{html.escape(model.state_labels[t])}: "
                            f"max over actions p = {p:.3g}")
            line.setZValue(0)
            self._add(line)
            self._add(self._arrow_head(end, unit(end - pos[s]), colour, 6.0))
            if overlay is not None and (info := overlay["states"].get(model.state_ids[s])):
                lab = LodTextItem(f"V\u0304 {fmt_num(info['values'][1], 3)}", None,
                                  point_size=5.5, colour="#8A5300", min_px=5.0)
                lab.center_on(to_point(pos[s] + np.array([0.0, r + 6])))
                self._add(lab)
        self.hidden_edges = int((P > 0).sum()) - sum(1 for it in self.decorations
                                                     if isinstance(it, QGraphicsPathItem))
        self.notice = (f"Large model ({S} states): action nodes are hidden and each state "
                       "shows only its most probable next state over all actions; select a "
                       "state to edit its actions in the Inspector.")
