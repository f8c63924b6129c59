"""The MDP canvas: draw and edit an MDP with the mouse and the keyboard.

What it shows (the usual MDP diagram):

* states are labelled circles; the initial state s₀ has a thick outline and an incoming
  arrow; the terminal reward ``R_T`` is written beside each state;
* every action is a small dot near its state (a fan pointing where the action leads),
  labelled with its name and one-step reward ``r``; a short stem joins it to its state;
* arrows go from an action dot to each next state, labelled with the probability;
* problems show where they are: a dashed red ring around a state without actions, a red
  ring around an action whose probabilities do not sum to 1 (its tooltip says by how much);
* after a "Synthesise & bound" run, the action π̄ chooses at the selected stage is drawn
  in the private accent colour and every state shows v̲ ≤ V̄ ≤ v̄.

How it edits (every edit is one command on the document's undo stack):

* **Select** (default): click or rubber-band to select; drag states to move them (one
  undoable move per drag); drag from an action dot to a state to add a transition;
  double-click empty space to add a state there, double-click an item to rename it.
* **Add state** mode: every click on empty space adds a state there.
* **Connect** mode: click (or drag from) an action dot, then click the next state.
* Keys: ``N`` new state at the cursor, ``A`` new action on the selected state(s), ``C``
  connect mode, ``Delete`` deletes the selection, ``F2`` renames, ``F`` fits, ``Esc``
  leaves a mode; the wheel zooms, the middle button pans.

Positions live in the model (``MdpModel.positions``); the items are rebuilt from the
document whenever it changes and hold no state of their own. Models with more than
:data:`MATRIX_STATES` states are not drawn (the workspace shows the matrix view).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QCursor,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QMenu,
    QWidget,
)

from core.mdp.editable import MdpModel
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.shell.canvas import LodTextItem, wheel_zoom
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR, PRIVATE_ACCENT, fmt_num

__all__ = ["MdpView", "Selection", "MIN_PROBABILITY", "MAX_EDGES", "COMPACT_STATES",
           "MATRIX_STATES", "LodTextItem", "MODES", "bounds_overlay"]

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

_STATE_FILL = QColor("#F3F5F9")
_STATE_PEN = QColor("#2B2B2B")
_DOT_FILL = QColor("#2B2B2B")
_DOT_FADED = QColor("#9A9A9A")
_EDGE_COLOUR = QColor("#4A4A4A")


@dataclass(frozen=True)
class Selection:
    """What is selected on a canvas or in a matrix view, by id."""

    states: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()
    transitions: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def is_empty(self) -> bool:
        return not (self.states or self.actions or self.transitions)

    def ids(self) -> list[str]:
        return [*self.states, *self.actions]


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


def _pt(v: np.ndarray) -> QPointF:
    return QPointF(float(v[0]), float(v[1]))


def _clean_rows(model: MdpModel) -> np.ndarray:
    """P with NaN and negative entries as 0 (drawing only; the problems list names them)."""
    if not model.P.size:
        return np.zeros((model.n_states, 0, model.n_states))
    return np.clip(np.nan_to_num(model.P, nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)


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


class MdpView(QGraphicsView):
    """The editable drawing of the MDP ``mdp_id`` of ``document``."""

    selection_changed = Signal()
    mode_changed = Signal(str)
    rename_requested = Signal(str)  # id of the state or action to rename
    message = Signal(str)  # a short hint for the status bar

    def __init__(self, document: ProjectDocument, mdp_id: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setBackgroundBrush(QBrush(QColor("#FFFFFF")))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumHeight(160)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setMouseTracking(True)
        self._mode = "select"
        self._auto_fit = True
        self._pan_from: QPointF | None = None
        self._connect_from: str | None = None  # action id a transition starts at
        self._connect_line: QGraphicsPathItem | None = None
        self._press_action: tuple[str, QPointF] | None = None
        self._decorate_pending = False
        self._rebuilding = False
        self._results_run: str | None = None
        self._results_stage = 0
        self._overlay: dict[str, Any] | None = None
        self.state_items: dict[str, StateItem] = {}
        self.action_items: dict[str, ActionItem] = {}
        self.edge_items: list[EdgeItem] = []
        self._decorations: list[QGraphicsItem] = []
        self.hidden_edges = 0
        self.notice = ""
        self._compact = False
        self._top_per_action: int | None = None
        self._n_nonzero = 0

        self._legend = QLabel(self)
        self._legend.setWordWrap(True)
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._legend.setStyleSheet("QLabel { background: #F7F7F7; color: #333;"
                                   " border-top: 1px solid #D8D8D8; padding: 3px 8px; }")
        self._empty = QLabel(self.viewport())
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setStyleSheet("QLabel { color: #666; font-size: 11pt; }")
        self._empty.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._hint = QLabel(self.viewport())
        self._hint.setStyleSheet("QLabel { background: #FFF4D6; color: #5A4100; "
                                 "border: 1px solid #E6C66A; border-radius: 3px; "
                                 "padding: 2px 6px; }")
        self._hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._hint.hide()

        self._scene.selectionChanged.connect(self._on_scene_selection_changed)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.states_moved.connect(self._on_document_states_moved)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.mdp_removed.connect(self._on_document_mdp_removed)
        document.mdp_added.connect(self._on_document_mdp_added)
        document.run_removed.connect(self._on_document_run_removed)
        self._apply_mode()
        self.rebuild()

    # ------------------------------------------------------------------ public: state
    @property
    def mdp_id(self) -> str | None:
        return self._mdp_id

    @property
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        """``"select"``, ``"add_state"`` or ``"connect"``."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self._cancel_connect()
        if mode != self._mode:
            self._mode = mode
            self._apply_mode()
            self.mode_changed.emit(mode)

    def item_counts(self) -> dict[str, int]:
        return {"states": len(self.state_items), "actions": len(self.action_items),
                "edges": len(self.edge_items)}

    def legend_text(self) -> str:
        return self._legend.text()

    def empty_text(self) -> str:
        return self._empty.text() if self._empty.isVisibleTo(self) else ""

    def hint_text(self) -> str:
        return self._hint.text() if self._hint.isVisibleTo(self) else ""

    @property
    def overlay(self) -> dict[str, Any] | None:
        """The results shown on the drawing (see :func:`bounds_overlay`), or None."""
        return self._overlay

    def _model(self) -> MdpModel | None:
        if self._mdp_id is None or not self._document.has_mdp(self._mdp_id):
            return None
        return self._document.model(self._mdp_id)

    # ------------------------------------------------------------------ public: selection
    def selection(self) -> Selection:
        states, actions, transitions = [], [], []
        for item in self._scene.selectedItems():
            if isinstance(item, StateItem):
                states.append(item.state_id)
            elif isinstance(item, ActionItem):
                actions.append(item.action_id)
            elif isinstance(item, EdgeItem):
                transitions.append((item.action_id, item.target_id))
        model = self._model()
        if model is not None:  # model order, not scene order
            states.sort(key=lambda s: model.state_ids.index(s) if s in model.state_ids else 0)
        return Selection(tuple(states), tuple(actions), tuple(transitions))

    def select_ids(self, ids: list[str] | tuple[str, ...],
                   transitions: list[tuple[str, str]] | tuple[tuple[str, str], ...] = ()
                   ) -> None:
        """Select exactly these states/actions (and transitions)."""
        wanted = set(ids)
        wanted_t = set(transitions)
        blocked = self._scene.blockSignals(True)
        try:
            self._scene.clearSelection()
            for sid, item in self.state_items.items():
                item.setSelected(sid in wanted)
            for aid, item in self.action_items.items():
                item.setSelected(aid in wanted)
            for item in self.edge_items:
                item.setSelected((item.action_id, item.target_id) in wanted_t)
        finally:
            self._scene.blockSignals(blocked)
        self.selection_changed.emit()

    def select_all(self) -> None:
        self.select_ids([*self.state_items, *self.action_items])

    # ------------------------------------------------------------------ public: edits
    def add_state_at(self, pos: QPointF | tuple[float, float]) -> str | None:
        """Add a state at scene position ``pos`` and select it."""
        from gui.shell.commands import AddStateCommand

        model = self._model()
        if model is None or self._compact_threshold_exceeded(model):
            return None
        xy = (pos.x(), pos.y()) if isinstance(pos, QPointF) else pos
        cmd = AddStateCommand(self._document, self._mdp_id, (round(xy[0], 1), round(xy[1], 1)))
        self._document.push(cmd)
        self.select_ids([cmd.state_id])
        return cmd.state_id

    def add_state_at_cursor(self) -> str | None:
        """``N``: a new state under the mouse pointer (or in the middle of the view)."""
        p = self.viewport().mapFromGlobal(QCursor.pos())
        if not self.viewport().rect().contains(p):
            p = self.viewport().rect().center()
        scene = self.mapToScene(p)
        model = self._model()
        if model is not None and model.n_states and self._free_spot(scene) is not None:
            scene = self._free_spot(scene)
        return self.add_state_at(scene)

    def _free_spot(self, p: QPointF) -> QPointF | None:
        """``p`` or a nearby point not on top of an existing state."""
        taken = [item.pos() for item in self.state_items.values()]
        step = 2.4 * STATE_RADIUS
        for k in range(12):
            q = QPointF(p.x() + step * k, p.y()) if k else p
            if all(math.hypot(q.x() - t.x(), q.y() - t.y()) > step for t in taken):
                return q
        return p

    def add_action_to_selection(self) -> list[str]:
        """``A``: a new action on every selected state (or the state of a selected action)."""
        from gui.shell.commands import AddActionCommand

        model = self._model()
        if model is None:
            return []
        sel = self.selection()
        states = list(sel.states) or list(dict.fromkeys(model.state_of(a) for a in sel.actions))
        if not states:
            self.message.emit("Select a state first, then press A to give it an action.")
            return []
        stack = self._document.undo_stack
        added = []
        if len(states) > 1:
            stack.beginMacro(f"Add an action to {len(states)} states")
        try:
            for sid in states:
                cmd = AddActionCommand(self._document, self._mdp_id, sid)
                self._document.push(cmd)
                added.append(cmd.action_id)
        finally:
            if len(states) > 1:
                stack.endMacro()
        self.select_ids(added)
        return added

    def delete_selection(self) -> bool:
        """``Delete``: remove the selected states, actions and transitions (one command)."""
        from gui.shell.commands import RemoveItemsCommand

        sel = self.selection()
        if sel.is_empty or self._model() is None:
            return False
        self._document.push(RemoveItemsCommand(self._document, self._mdp_id, sel.states,
                                               sel.actions, sel.transitions))
        return True

    def rename_selection(self) -> bool:
        """``F2``: ask to rename the (first) selected state or action."""
        sel = self.selection()
        ids = sel.ids()
        if not ids:
            return False
        self.rename_requested.emit(ids[0])
        return True

    def connect(self, action_id: str, target_id: str) -> bool:
        """Add the transition ``action_id`` → ``target_id`` (p: what the row misses)."""
        from gui.shell.commands import SetProbabilityCommand, connect_probability

        model = self._model()
        if model is None:
            return False
        s, j = model.action_index(action_id)
        t = model.state_index(target_id)
        if model.P[s, j, t] > 0:
            self.message.emit(f"“{model.action_labels[s][j]}” already leads to "
                              f"“{model.state_labels[t]}”: edit its probability in the "
                              "Inspector.")
            self.select_ids([action_id], [(action_id, target_id)])
            return False
        p = connect_probability(model, action_id, target_id)
        self._document.push(SetProbabilityCommand(
            self._document, self._mdp_id, action_id, target_id, p,
            text=f"Connect “{model.action_labels[s][j]}” → “{model.state_labels[t]}”"))
        self.select_ids([action_id], [(action_id, target_id)])
        return True

    def set_initial(self, state_id: str) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        model = self._model()
        if model is not None and model.initial_state != state_id:
            self._document.push(SetMdpSettingsCommand(self._document, self._mdp_id,
                                                      initial_state=state_id))

    def auto_layout(self) -> None:
        """Place every state with networkx (one undoable move)."""
        from core.mdp.layout import auto_layout
        from gui.shell.commands import MoveStatesCommand

        model = self._model()
        if model is None or not model.n_states:
            return
        pos = auto_layout(model)
        self._auto_fit = True
        self._document.push(MoveStatesCommand(
            self._document, self._mdp_id,
            {sid: (float(x), float(y)) for sid, (x, y) in zip(model.state_ids, pos)},
            text="Automatic layout"))
        self.fit_to_view()

    # ------------------------------------------------------------------ public: results
    def show_results(self, run_id: str | None, stage: int = 0) -> None:
        """Overlay a "bounds" run (π̄ and values at ``stage``), or nothing."""
        self._results_run = run_id
        self._results_stage = int(stage)
        self._overlay = (bounds_overlay(self._document, run_id, self._mdp_id, stage)
                         if run_id is not None and self._mdp_id is not None else None)
        self._decorate()

    @property
    def results_run(self) -> str | None:
        return self._results_run if self._overlay is not None else None

    # ------------------------------------------------------------------ view
    def fit_to_view(self) -> None:
        """Fit the whole drawing (``F``); small drawings are not blown up past 1.4×."""
        self._auto_fit = True
        rect = self._drawing_rect()
        if rect.isEmpty():
            self.resetTransform()
            return
        margin = 24.0
        self.fitInView(rect.adjusted(-margin, -margin, margin, margin),
                       Qt.AspectRatioMode.KeepAspectRatio)
        s = self.transform().m11()
        if s > 1.4:
            self.scale(1.4 / s, 1.4 / s)
        self.centerOn(rect.center())

    def _drawing_rect(self) -> QRectF:
        rect = QRectF()
        for item in self._scene.items():
            if item is self._connect_line or not item.isVisible():
                continue
            rect = rect.united(item.sceneBoundingRect())
        return rect

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
                item.setPos(_pt(pos[s]))
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
        item.setBrush(QBrush(_STATE_FILL))
        item.setPen(QPen(_STATE_PEN, (3.2 if initial else 1.4) if not self._compact
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
        P = _clean_rows(model)
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
                away_dir = _unit(away) if away.any() else np.array([1.0, 0.0])
            desired = []
            for j in range(n):
                v = np.zeros(2)
                for t in np.flatnonzero(P[s, j]):
                    if t != s:
                        v += P[s, j, t] * _unit(pos[t] - pos[s])
                # toward where the action leads; away from the rest when it mostly stays
                d = away_dir if P[s, j, s] > 0.5 or np.hypot(*v) < 0.05 else _unit(v)
                desired.append(math.atan2(d[1], d[0]))
            angles = _spread_angles(desired, math.radians(30))
            dist = DOT_DISTANCE if n > 1 else DOT_DISTANCE * 0.7
            if n >= 3 and S <= 6:
                dist += 26.0
            mean = sum((_angle_dir(t) for t in angles), np.zeros(2))
            fan = _unit(mean) if np.hypot(*mean) > 1e-6 else away_dir
            fan_dir[s] = fan
            fan_angle = math.atan2(fan[1], fan[0])
            for j, theta in enumerate(angles):
                dot_pos[(s, j)] = pos[s] + dist * _angle_dir(theta)
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
        path = QPainterPath(_pt(tail))
        path.lineTo(_pt(tip))
        line = QGraphicsPathItem(path)
        line.setPen(QPen(_STATE_PEN, 2.2))
        line.setZValue(1)
        self._add(line)
        self._add(self._arrow_head(tip, _unit(tip - tail), _STATE_PEN, 11.0))
        lab = LodTextItem("s₀", None, point_size=9.0, bold=True, background=None)
        lab.center_on(_pt(tail + d * 12))
        self._add(lab)

    def _add_action(self, model: MdpModel, s: int, j: int, c: np.ndarray, p: np.ndarray,
                    back: float | None = None, *, problem: str = "", chosen: bool = False,
                    faded: bool = False) -> None:
        aid = model.action_ids[s][j]
        stem = QPainterPath(_pt(c + _unit(p - c) * STATE_RADIUS))
        stem.lineTo(_pt(p))
        stem_item = QGraphicsPathItem(stem)
        stem_colour = QColor(PRIVATE_ACCENT) if chosen else QColor(_DOT_FADED if faded
                                                                  else _DOT_FILL)
        stem_item.setPen(QPen(stem_colour, 3.2 if chosen else 1.6))
        stem_item.setZValue(1)
        self._add(stem_item)
        dot = ActionItem(aid, model.state_ids[s], DOT_RADIUS)
        dot.setPos(_pt(p))
        dot.setBrush(QBrush(_DOT_FADED if faded else _DOT_FILL))
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
        out = _unit(p - c)
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
            label.setPos(_pt(p + d * x0 + n * y0))
            label.setZValue(5)
            self._add(label)

    def _add_edge(self, model: MdpModel, s: int, j: int, t: int, pos: np.ndarray,
                  dot: np.ndarray, p: float, side_sign: float = 1.0, *, hug: bool = False,
                  faded: bool = False, accent: bool = False) -> None:
        colour = QColor(PRIVATE_ACCENT) if accent else QColor(_EDGE_COLOUR)
        colour.setAlpha(int((40 if faded else 95) + (90 if faded else 160) * min(1.0, p)))
        pen = QPen(colour, 0.8 + 2.2 * min(1.0, p))
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
        label = LodTextItem(f"{p:.3g}", None, point_size=9.5,
                            colour="#333333" if not faded else "#999999")
        label.center_on(_pt(label_at))
        label.setZValue(3)
        self._add(label)

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
        item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        return item

    # ------------------------------------------------------------------ compact drawing
    def _decorate_compact(self, model: MdpModel, pos: np.ndarray) -> None:
        S = model.n_states
        P = _clean_rows(model)
        strength = P.max(axis=1) if P.shape[1] else np.zeros((S, S))
        np.fill_diagonal(strength, 0.0)
        r = COMPACT_RADIUS
        overlay = self._overlay
        for s in range(S):
            t = int(np.argmax(strength[s]))
            p = float(strength[s, t])
            if p <= 0:
                continue
            end = pos[t] + _unit(pos[s] - pos[t]) * (r + 1)
            path = QPainterPath(_pt(pos[s]))
            path.lineTo(_pt(end))
            colour = QColor(_EDGE_COLOUR)
            colour.setAlpha(int(70 + 185 * min(1.0, p)))
            line = QGraphicsPathItem(path)
            line.setPen(QPen(colour, 0.8 + 1.5 * min(1.0, p)))
            line.setToolTip(f"{html.escape(model.state_labels[s])} → "
                            f"{html.escape(model.state_labels[t])}: "
                            f"max over actions p = {p:.3g}")
            line.setZValue(0)
            self._add(line)
            self._add(self._arrow_head(end, _unit(end - pos[s]), colour, 6.0))
            if overlay is not None and (info := overlay["states"].get(model.state_ids[s])):
                lab = LodTextItem(f"V\u0304 {fmt_num(info['values'][1], 3)}", None,
                                  point_size=5.5, colour="#8A5300", min_px=5.0)
                lab.center_on(_pt(pos[s] + np.array([0.0, r + 6])))
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

    # ------------------------------------------------------------------ connecting
    def _start_connect(self, action_id: str) -> None:
        self._cancel_connect()
        self._connect_from = action_id
        line = QGraphicsPathItem()
        pen = QPen(QColor("#2F7FD8"), 2.0, Qt.PenStyle.DashLine)
        line.setPen(pen)
        line.setZValue(10)
        self._scene.addItem(line)
        self._connect_line = line

    def _update_connect(self, scene_pos: QPointF) -> None:
        if self._connect_line is None or self._connect_from not in self.action_items:
            return
        start = self.action_items[self._connect_from].pos()
        path = QPainterPath(start)
        path.lineTo(scene_pos)
        self._connect_line.setPath(path)

    def _cancel_connect(self) -> None:
        self._connect_from = None
        if self._connect_line is not None:
            if self._connect_line.scene() is self._scene:
                self._scene.removeItem(self._connect_line)
            self._connect_line = None

    def _finish_connect(self, scene_pos: QPointF) -> bool:
        source = self._connect_from
        target = self._state_at(scene_pos)
        self._cancel_connect()
        if source is None or target is None:
            return False
        return self.connect(source, target)

    def _item_at(self, view_pos) -> QGraphicsItem | None:
        for item in self.items(view_pos):
            if isinstance(item, (StateItem, ActionItem, EdgeItem)):
                return item
        return None

    def _state_at(self, scene_pos: QPointF) -> str | None:
        for item in self._scene.items(scene_pos):
            if isinstance(item, StateItem):
                return item.state_id
        # generous: within 1.6 radii of a state centre
        best, best_d = None, math.inf
        for sid, item in self.state_items.items():
            d = math.hypot(item.pos().x() - scene_pos.x(), item.pos().y() - scene_pos.y())
            if d < 1.6 * item.radius and d < best_d:
                best, best_d = sid, d
        return best

    def _commit_moves(self) -> None:
        from gui.shell.commands import MoveStatesCommand

        model = self._model()
        if model is None:
            return
        moved = {}
        for sid, item in self.state_items.items():
            old = model.position(sid)
            new = (round(item.pos().x(), 1), round(item.pos().y(), 1))
            if old is None or abs(old[0] - new[0]) > 0.05 or abs(old[1] - new[1]) > 0.05:
                moved[sid] = new
        if not moved:
            return
        if any(model.position(sid) is None for sid in model.state_ids):
            # some positions were only computed for display: store them all with this move,
            # or the unplaced states would jump when the layout is filled in again
            n_moved = len(moved)
            for sid, item in self.state_items.items():
                moved.setdefault(sid, (round(item.pos().x(), 1), round(item.pos().y(), 1)))
            text = "Move state" + ("s" if n_moved > 1 else "")
            self._document.push(MoveStatesCommand(self._document, self._mdp_id, moved,
                                                  text=text))
            return
        self._document.push(MoveStatesCommand(self._document, self._mdp_id, moved))

    # ------------------------------------------------------------------ context menu
    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt)
        model = self._model()
        if model is None or model.n_states > MATRIX_STATES:
            return
        item = self._item_at(event.pos())
        scene_pos = self.mapToScene(event.pos())
        if item is not None and not item.isSelected():
            if isinstance(item, StateItem):
                self.select_ids([item.state_id])
            elif isinstance(item, ActionItem):
                self.select_ids([item.action_id])
            elif isinstance(item, EdgeItem):
                self.select_ids([], [(item.action_id, item.target_id)])
        menu = QMenu(self)
        sel = self.selection()
        if isinstance(item, StateItem):
            menu.addAction("Add Action (A)", self.add_action_to_selection)
            menu.addAction("Rename… (F2)", self.rename_selection)
            a = menu.addAction("Make Initial State",
                               lambda sid=item.state_id: self.set_initial(sid))
            a.setEnabled(model.initial_state != item.state_id)
        elif isinstance(item, ActionItem):
            menu.addAction("Connect from Here…", lambda aid=item.action_id: (
                self.set_mode("connect"), self._start_connect(aid)))
            menu.addAction("Rename… (F2)", self.rename_selection)
            if any(p.action == item.action_id and p.deficit is not None
                   for p in self._document.problems(self._mdp_id)):  # type: ignore[arg-type]
                from gui.shell.commands import NormaliseRowsCommand

                menu.addAction("Normalise Probabilities", lambda aid=item.action_id:
                               self._document.push(NormaliseRowsCommand(
                                   self._document, self._mdp_id, [aid])))
        if not sel.is_empty:
            menu.addAction("Delete (Del)", self.delete_selection)
        if item is None:
            menu.addAction("Add State Here (N)", lambda p=scene_pos: self.add_state_at(p))
            menu.addAction("Select All (Ctrl+A)", self.select_all)
            menu.addSeparator()
            menu.addAction("Automatic Layout", self.auto_layout)
            menu.addAction("Fit to View (F)", self.fit_to_view)
        menu.exec(event.globalPos())

    # ------------------------------------------------------------------ Qt events
    def event(self, event) -> bool:  # noqa: N802 (Qt)
        if event.type() == QEvent.Type.ShortcutOverride:
            key = event.key()
            if key == Qt.Key.Key_Escape and (self._mode != "select"
                                             or self._connect_from is not None):
                event.accept()  # Esc leaves the mode here instead of cancelling a run
                return True
        return super().event(event)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._place_overlays()
        self._fit_if_auto()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_overlays()
        self._fit_if_auto()

    def wheelEvent(self, event) -> None:  # noqa: N802
        if wheel_zoom(self, event, lo=0.03, hi=12.0):
            self._auto_fit = False

    def keyPressEvent(self, event) -> None:  # noqa: N802
        key = event.key()
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        plain = mods == Qt.KeyboardModifier.NoModifier
        if key == Qt.Key.Key_Escape and (self._mode != "select" or self._connect_from):
            self.set_mode("select")
        elif key == Qt.Key.Key_F and plain:
            self.fit_to_view()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal, Qt.Key.Key_Minus):
            f = 1.25 if key != Qt.Key.Key_Minus else 0.8
            self._auto_fit = False
            self.scale(f, f)
        elif key == Qt.Key.Key_N and plain:
            self.add_state_at_cursor()
        elif key == Qt.Key.Key_A and plain:
            self.add_action_to_selection()
        elif key == Qt.Key.Key_A and mods == Qt.KeyboardModifier.ControlModifier:
            self.select_all()
        elif key == Qt.Key.Key_C and plain:
            self.set_mode("connect")
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and plain:
            self.delete_selection()
        elif key == Qt.Key.Key_F2:
            self.rename_selection()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and self._model() is not None:
            item = self._item_at(event.position().toPoint())
            scene_pos = self.mapToScene(event.position().toPoint())
            if self._connect_from is not None:  # second click of click-click connect
                if isinstance(item, ActionItem):
                    self._start_connect(item.action_id)
                    self._update_connect(scene_pos)
                else:
                    self._finish_connect(scene_pos)
                event.accept()
                return
            if isinstance(item, ActionItem) and self._mode in ("select", "connect"):
                # a drag from an action dot draws a transition; a click selects the action
                self._press_action = (item.action_id, event.position())
                self._start_connect(item.action_id)
                self._update_connect(scene_pos)
                event.accept()
                return
            if item is None and self._mode == "add_state":
                self.add_state_at(scene_pos)
                event.accept()
                return
            if item is None and self._mode == "connect":
                self.message.emit("Connect: start at an action dot (the small dot beside a "
                                  "state).")
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
        if self._connect_from is not None:
            self._update_connect(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self._apply_mode()
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and self._press_action is not None:
            aid, start = self._press_action
            self._press_action = None
            moved = (event.position() - start).manhattanLength() > 6
            if moved:
                self._finish_connect(self.mapToScene(event.position().toPoint()))
            else:
                additive = event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                                | Qt.KeyboardModifier.ShiftModifier)
                if additive and aid in self.action_items:
                    self.action_items[aid].setSelected(True)
                else:
                    self.select_ids([aid])
                if self._mode != "connect":
                    self._cancel_connect()  # select mode: a click only selects
                # connect mode: the line now follows the pointer until the next click
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self._commit_moves()

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton or self._model() is None:
            super().mouseDoubleClickEvent(event)
            return
        item = self._item_at(event.position().toPoint())
        if item is None:
            self.add_state_at(self.mapToScene(event.position().toPoint()))
        elif isinstance(item, StateItem):
            self.select_ids([item.state_id])
            self.rename_requested.emit(item.state_id)
        elif isinstance(item, ActionItem):
            self._cancel_connect()
            self.select_ids([item.action_id])
            self.rename_requested.emit(item.action_id)
        event.accept()

    # ------------------------------------------------------------------ slots
    def _on_state_item_moved(self, item: StateItem) -> None:
        if not self._rebuilding:
            self._schedule_decorate()

    def _on_scene_selection_changed(self) -> None:
        if not self._rebuilding:
            self.selection_changed.emit()

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self.rebuild()

    def _on_document_states_moved(self, mdp_id: str, state_ids: list) -> None:
        if mdp_id != self._mdp_id:
            return
        model = self._model()
        if model is None or len(self.state_items) != model.n_states:
            self.rebuild()
            return
        pos = self._display_positions(model)
        self._rebuilding = True
        try:
            for s, sid in enumerate(model.state_ids):
                item = self.state_items.get(sid)
                if item is not None and (item.pos().x(), item.pos().y()) != tuple(pos[s]):
                    item.setPos(_pt(pos[s]))
        finally:
            self._rebuilding = False
        self._decorate()
        self._update_scene_rect()

    def _on_document_project_replaced(self) -> None:
        self._auto_fit = True
        self._results_run = None
        self._overlay = None
        self.rebuild()

    def _on_document_mdp_removed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id or self._mdp_id is None:
            self.rebuild()

    def _on_document_mdp_added(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id or self._mdp_id is None:
            self._auto_fit = True
            self.rebuild()

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self._results_run:
            self._overlay = None
            self._decorate()


def preview(exec_: bool = True, mdp_id: str = "four-startups") -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: MdpView(example_document(), mdp_id), exec_=exec_,
                       title=f"MDP canvas: {mdp_id}", size=(900, 600))


if __name__ == "__main__":
    import sys

    preview(mdp_id=sys.argv[1] if len(sys.argv) > 1 else "four-startups")
