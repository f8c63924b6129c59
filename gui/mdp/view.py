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

The scene is built by :mod:`gui.mdp.drawing` (a mixin of :class:`MdpView` with the drawing
constants and geometry); this module keeps the view's state, selection, edits, connecting,
context menu and Qt events. Over 600 lines: the Qt event handlers (mouse modes, drags,
keys) are one section that reads best whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QCursor,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QMenu,
    QWidget,
)

from core.mdp.editable import MdpModel
from gui.mdp.drawing import (
    MATRIX_STATES,
    MODES,
    STATE_RADIUS,
    Drawing,
    bounds_overlay,
    to_point,
)
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.shell.canvas import fit_rect, schedule_declutter, wheel_zoom
from gui.shell.document import ProjectDocument, mdp_stack_key

__all__ = ["MdpView", "Selection"]


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


class MdpView(Drawing, QGraphicsView):
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

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

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
        self._auto_fit = False  # the user places states: the view stays where it is
        cmd = AddStateCommand(self._document, self._mdp_id, (round(xy[0], 1), round(xy[1], 1)))
        self._document.push(cmd, self._stack_key)
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
        stack = self._document.stack(self._stack_key)
        added = []
        if len(states) > 1:
            stack.beginMacro(f"Add an action to {len(states)} states")
        try:
            for sid in states:
                cmd = AddActionCommand(self._document, self._mdp_id, sid)
                self._document.push(cmd, self._stack_key)
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
                                               sel.actions, sel.transitions), self._stack_key)
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
            text=f"Connect “{model.action_labels[s][j]}” → “{model.state_labels[t]}”"),
            self._stack_key)
        self.select_ids([action_id], [(action_id, target_id)])
        return True

    def set_initial(self, state_id: str) -> None:
        from gui.shell.commands import SetMdpSettingsCommand

        model = self._model()
        if model is not None and model.initial_state != state_id:
            self._document.push(SetMdpSettingsCommand(self._document, self._mdp_id,
                                                      initial_state=state_id), self._stack_key)

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
            text="Automatic layout"), self._stack_key)
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
        fit_rect(self, self._drawing_rect(), margin=24.0, max_scale=1.4)

    def _drawing_rect(self) -> QRectF:
        rect = QRectF()
        for item in self._scene.items():
            if item is self._connect_line or not item.isVisible():
                continue
            rect = rect.united(item.sceneBoundingRect())
        return rect

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
                                                  text=text), self._stack_key)
            return
        self._document.push(MoveStatesCommand(self._document, self._mdp_id, moved), self._stack_key)

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
                                   self._document, self._mdp_id, [aid]), self._stack_key))
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
            schedule_declutter(self)
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
                    item.setPos(to_point(pos[s]))
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
