"""Drawing an MDP on the canvas: constants, geometry and the building of the scene.

The drawing half of :class:`gui.mdp.view.MdpView`, split off along the seams the view
already marked ("building", "full drawing", "compact drawing", "legend and overlays").
:class:`Drawing` is a mixin: its methods run on the view and build its scene from the
document's model (the model is the truth; items are rebuilt from it, never read back).

A little over 600 lines: the full and compact drawings share the geometry helpers above.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
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
    QGraphicsView,
)

from core.mdp.editable import MdpModel
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.shell.canvas import LodTextItem, schedule_declutter
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT, fmt_num

__all__ = ["Drawing", "bounds_overlay", "MIN_PROBABILITY", "MAX_EDGES", "COMPACT_STATES",
           "MATRIX_STATES", "MODES", "MODE_HINTS", "STATE_RADIUS", "COMPACT_RADIUS", "DOT_RADIUS",
           "DOT_DISTANCE", "STATE_FILL", "STATE_PEN", "DOT_FILL", "DOT_FADED", "EDGE_COLOUR",
           "unit", "angle_dir", "spread_angles", "to_point", "clean_rows"]

MIN_PROBABILITY = 0.005   # when edges must be thinned, these go first
MAX_EDGES = 160           # above this, keep only the top next states of each action
COMPACT_STATES = 40       # above this, draw states and their strongest successors only
MATRIX_STATES = 300       # above this, the canvas draws nothing (the matrix view takes over)

MODES = ("select", "add_state", "connect")
MODE_HINTS = {
    "select": "",
    "add_state": "Add state: click where the new state goes (Esc: back to Select).",
    "connect": "Connect: click or drag from an action dot, then click the next state "
               "(Esc: back to Select).",
}

STATE_RADIUS = 34.0
COMPACT_RADIUS = 11.0
DOT_RADIUS = 5.5
DOT_DISTANCE = STATE_RADIUS + 84.0

STATE_FILL = QColor("#F3F5F9")
STATE_PEN = QColor("#2B2B2B")
DOT_FILL = QColor("#2B2B2B")
DOT_FADED = QColor("#9A9A9A")
EDGE_COLOUR = QColor("#4A4A4A")


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 1e-12 else np.zeros(2)


def angle_dir(theta: float) -> np.ndarray:
    return np.array([math.cos(theta), math.sin(theta)])


def spread_angles(angles: list[float], min_sep: float) -> list[float]:
    """Directions (radians) moved as little as possible so neighbours are ``min_sep`` apart.

    The circle is cut at its widest gap; the rest is isotonic regression (pool adjacent
    violators) of ``angle_i - i * sep``, which keeps the order and centres each cluster.

    >>> [round(math.degrees(a)) for a in spread_angles([0.0, 0.0, 0.0], math.radians(30))]
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


def to_point(v: np.ndarray) -> QPointF:
    return QPointF(float(v[0]), float(v[1]))


def clean_rows(model: MdpModel) -> np.ndarray:
    """P with NaN and negative entries as 0 (drawing only; the problems list names them)."""
    if not model.P.size:
        return np.zeros((model.n_states, 0, model.n_states))
    return np.clip(np.nan_to_num(model.dense_P(), nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)


def bounds_overlay(document: ProjectDocument, run_id: str, mdp_id: str, stage: int
                   ) -> dict[str, Any] | None:
    """What a "bounds" run shows on the drawing at ``stage``: per state id, the chosen
    action id and (v_lower, v_private, v_upper); plus whether the model changed since."""
    try:
        record = document.run(run_id)
    except KeyError:
        return None
    s = record.summary
    if record.kind != "bounds" or record.target != mdp_id or not document.has_mdp(mdp_id):
        return None
    kept = int(s.get("stages_kept", 0))
    t = min(max(int(stage), 0), max(kept - 1, 0))

    def at(key: str) -> list[Any]:
        arr = s.get(key, [])
        return arr[t] if kept else arr

    state_ids = s.get("state_ids", [])
    policy_ids = at("policy_ids") if s.get("policy_ids") else []
    lo, vp, hi = at("v_lower"), at("v_private"), at("v_upper")
    per_state = {}
    for i, sid in enumerate(state_ids):
        per_state[sid] = {"action": policy_ids[i] if i < len(policy_ids) else None,
                          "values": (float(lo[i]), float(vp[i]), float(hi[i]))}
    stale = record.params.get("model_digest") != document.digest(mdp_id)
    return {"record": record, "stage": t, "stages": kept, "states": per_state,
            "stale": stale}


class Drawing:
    """The scene-building methods of :class:`gui.mdp.view.MdpView` (a mixin)."""

    # ------------------------------------------------------------------ building
    def _compact_threshold_exceeded(self, model: MdpModel) -> bool:
        return model.n_states > MATRIX_STATES

    def rebuild(self) -> None:
        """Redraw everything from the document (keeps the selection and the zoom)."""
        keep = self.selection()
        self._rebuilding = True
        try:
            self._cancel_connect()
            self._scene.clear()
            self.state_items.clear()
            self.action_items.clear()
            self.edge_items.clear()
            self._decorations.clear()
            self.hidden_edges = 0
            self.notice = ""
            model = self._model()
            if self._results_run is not None and self._mdp_id is not None:
                self._overlay = bounds_overlay(self._document, self._results_run, self._mdp_id,
                                               self._results_stage)
            if model is None:
                self._show_empty("This project has no MDP yet.\n\nFile ▸ New MDP "
                                 "(Ctrl+Shift+N) starts a drawing; File ▸ Open… or "
                                 "File ▸ Import MDP… loads one (*.mdp.json, *.mdp.npz, "
                                 "*.privplan.json).")
                return
            if model.n_states > MATRIX_STATES:
                self.notice = (f"This model has {model.n_states} states — too many to draw. "
                               "It is shown as a matrix (state × action rows); analyses "
                               "work as usual.")
                self._show_empty(self.notice)
                return
            if model.n_states == 0:
                self._show_empty("This MDP has no states yet.\n\nDouble-click here (or press "
                                 "N) to add the first state. Then select it and press A to "
                                 "give it an action, and drag from the action's dot to a "
                                 "state to add a transition; the Inspector on the right "
                                 "edits probabilities and rewards.")
            else:
                self._empty.hide()
            self._compact = model.n_states > COMPACT_STATES
            pos = self._display_positions(model)
            radius = COMPACT_RADIUS if self._compact else STATE_RADIUS
            problems = self._document.problems(self._mdp_id)  # type: ignore[arg-type]
            state_problem = {p.state: p.message for p in problems
                             if p.state is not None and p.action is None}
            for s, sid in enumerate(model.state_ids):
                item = StateItem(sid, radius, on_moved=self._on_state_item_moved)
                item.setPos(to_point(pos[s]))
                item.problem = state_problem.get(sid, "")
                self._style_state(model, s, item)
                self._scene.addItem(item)
                self.state_items[sid] = item
            self._decorate()
            self.select_ids([i for i in keep.ids() if i in self.state_items
                             or i in self.action_items],
                            [t for t in keep.transitions])
        finally:
            self._rebuilding = False
        self._update_scene_rect()
        if self._auto_fit:
            QTimer.singleShot(0, self, self._fit_if_auto)

    def _display_positions(self, model: MdpModel) -> np.ndarray:
        from core.mdp.layout import fill_missing_positions

        pos = np.array(model.positions, dtype=float).reshape(-1, 2)
        if len(pos) != model.n_states or not np.isfinite(pos).all():
            pos = fill_missing_positions(model)
        return pos

    def _style_state(self, model: MdpModel, s: int, item: StateItem) -> None:
        sid = model.state_ids[s]
        initial = sid == model.initial_state
        item.setBrush(QBrush(STATE_FILL))
        item.setPen(QPen(STATE_PEN, (3.2 if initial else 1.4) if not self._compact
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
        if self._compact:
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
        self._decorations.append(item)
        return item

    def _decorate(self) -> None:
        """(Re)draw everything attached to the states: actions, edges, labels, results."""
        self._decorate_pending = False
        schedule_declutter(self)  # labels readable and out of each other's way
        keep_actions = [a for a, item in self.action_items.items() if item.isSelected()]
        keep_edges = [(e.action_id, e.target_id) for e in self.edge_items if e.isSelected()]
        blocked = self._scene.blockSignals(True)
        try:
            for item in self._decorations:
                if item.scene() is self._scene:
                    self._scene.removeItem(item)
            self._decorations.clear()
            self.action_items.clear()
            self.edge_items.clear()
            model = self._model()
            if model is None or not self.state_items:
                self._update_legend(model)
                return
            pos = self._current_positions(model)
            if self._compact:
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
        self._update_legend(model)

    def _schedule_decorate(self) -> None:
        if not self._decorate_pending:
            self._decorate_pending = True
            QTimer.singleShot(0, self, self._decorate_if_pending)

    def _decorate_if_pending(self) -> None:
        if self._decorate_pending:
            self._decorate()

    # ------------------------------------------------------------------ full drawing
    def _edges_to_show(self, model: MdpModel, P: np.ndarray) -> dict[tuple[int, int], list[int]]:
        pairs = [(s, j) for s in range(model.n_states) for j in range(len(model.action_ids[s]))]
        nonzero = {(s, j): [int(t) for t in np.argsort(-P[s, j], kind="stable") if P[s, j, t] > 0]
                   for (s, j) in pairs}
        self._n_nonzero = sum(len(v) for v in nonzero.values())
        self._top_per_action = None
        if self._n_nonzero <= MAX_EDGES:
            self.hidden_edges = 0
            return nonzero
        candidates = {k: [t for t in v if P[k[0], k[1], t] >= MIN_PROBABILITY]
                      for k, v in nonzero.items()}
        if sum(len(v) for v in candidates.values()) > MAX_EDGES:
            m = max(1, MAX_EDGES // max(len(pairs), 1))
            self._top_per_action = m
            candidates = {k: v[:m] for k, v in candidates.items()}
        self.hidden_edges = self._n_nonzero - sum(len(v) for v in candidates.values())
        return candidates

    def _decorate_full(self, model: MdpModel, pos: np.ndarray) -> None:
        S = model.n_states
        P = clean_rows(model)
        centroid = pos.mean(axis=0)
        shown = self._edges_to_show(model, P)
        overlay = self._overlay
        chosen = {}
        if overlay is not None:
            chosen = {sid: v["action"] for sid, v in overlay["states"].items()}
        problems = self._document.problems(self._mdp_id)  # type: ignore[arg-type]
        action_problem = {p.action: p.message for p in problems if p.action is not None}
        dot_pos: dict[tuple[int, int], np.ndarray] = {}
        fan_dir: dict[int, np.ndarray] = {}
        fan_side: dict[tuple[int, int], float] = {}
        for s in range(S):
            n = len(model.action_ids[s])
            away = pos[s] - centroid
            if abs(away[0]) > 1e-9 and S <= 6:
                away_dir = np.array([math.copysign(1.0, away[0]), 0.0])  # sideways if possible
            else:
                away_dir = unit(away) if away.any() else np.array([1.0, 0.0])
            desired = []
            for j in range(n):
                v = np.zeros(2)
                for t in np.flatnonzero(P[s, j]):
                    if t != s:
                        v += P[s, j, t] * unit(pos[t] - pos[s])
                # toward where the action leads; away from the rest when it mostly stays
                d = away_dir if P[s, j, s] > 0.5 or np.hypot(*v) < 0.05 else unit(v)
                desired.append(math.atan2(d[1], d[0]))
            angles = spread_angles(desired, math.radians(30))
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
        overlay = self._overlay
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
            label = LodTextItem(text, None, point_size=9.5, bold=above, background=None,
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
        overlay = self._overlay
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
        self.hidden_edges = int((P > 0).sum()) - sum(1 for it in self._decorations
                                                     if isinstance(it, QGraphicsPathItem))
        self.notice = (f"Large model ({S} states): action nodes are hidden and each state "
                       "shows only its most probable next state over all actions; select a "
                       "state to edit its actions in the Inspector.")

    # ------------------------------------------------------------------ legend and overlays
    def _update_legend(self, model: MdpModel | None) -> None:
        if model is None or not model.n_states or model.n_states > MATRIX_STATES:
            self._legend.hide()
            self._place_overlays()
            return
        if self._compact:
            text = f"<b>Compact view.</b> {self.notice}"
        else:
            parts = ["<b>○</b> state (R_T terminal reward) &nbsp; <b>●</b> action "
                     "(r reward, ↺ back to its state) &nbsp; → next state, probability"]
            if self._top_per_action:
                parts.append(f"<br>Large model: each action shows only its "
                             f"{self._top_per_action} most probable next state"
                             f"{'s' if self._top_per_action > 1 else ''} "
                             f"({len(self.edge_items)} of {self._n_nonzero} edges); "
                             "hover a dot for its full row.")
            elif self.hidden_edges:
                parts.append(f"<br>{self.hidden_edges} edge(s) with p &lt; {MIN_PROBABILITY} "
                             "hidden; hover a dot for its full row.")
            text = "".join(parts)
        overlay = self._overlay
        if overlay is not None:
            r = overlay["record"]
            s = r.summary
            stage = (f"stage {overlay['stage']} of {int(s.get('horizon') or 0) - 1}"
                     if overlay["stages"] else "stationary")
            seed = (f"seeded experiment (seed {r.seed})" if r.params.get("seeded", True)
                    else f"experiment, fresh OS seed {r.seed} (recorded)")
            text += (f"<br><span style='color:{PRIVATE_ACCENT}'><b>●</b></span> action of the "
                     f"private policy π̄ ({stage}) · under each state v\u0332 ≤ V\u0304 ≤ "
                     "v\u0304: pessimistic, private, optimistic value")
            self.setToolTip(f"{r.id}: k = {float(s.get('k', 0)):g}, β = "
                            f"{float(s.get('beta', 0)):g}, α {s.get('alpha_mode')}, {seed}")
            if overlay["stale"]:
                text += (f" <span style='color:{ERROR_COLOUR}'>⚠ The model changed after this "
                         "run: these are the old results (Synthesise &amp; bound again to "
                         "update them).</span>")
        text += ("<br><span style='color:#777'>N state · A action · drag dot → state: "
                 "transition · Del · F2 rename · wheel zoom · middle-drag pan · F fit</span>")
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
        self._hint.adjustSize()
        self._hint.move(8, 8)

    def _update_scene_rect(self) -> None:
        rect = self._drawing_rect()
        if rect.isEmpty():
            rect = QRectF(-400, -300, 800, 600)
        self._scene.setSceneRect(rect.adjusted(-3000, -3000, 3000, 3000))

    def _fit_if_auto(self) -> None:
        if self._auto_fit:
            self.fit_to_view()

    def _apply_mode(self) -> None:
        if self._mode == "select":
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            self.viewport().unsetCursor()
        else:
            self.setDragMode(QGraphicsView.DragMode.NoDrag)
            self.viewport().setCursor(Qt.CursorShape.CrossCursor)
        hint = MODE_HINTS[self._mode]
        self._hint.setText(hint)
        self._hint.setVisible(bool(hint))
        self._place_overlays()
