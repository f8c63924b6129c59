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

The view owns two parts that take the document and a bundle of the canvas widget and
callables (:mod:`gui.mdp.canvas_hooks`), never the view: ``view.drawing``, a
:class:`gui.mdp.drawing.SceneDrawing` (builds the scene and the labels over it), and
``view.edits``, a :class:`gui.mdp.canvas_edits.CanvasEdits` (every edit and the context
menu). This module keeps the view's mode, selection, connecting and the Qt events.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from core.mdp import MdpModel
from gui.mdp.canvas_edits import CanvasEdits
from gui.mdp.canvas_hooks import DrawingHooks, EditHooks, Selection
from gui.mdp.canvas_parts import MODE_HINTS, MODES, bounds_overlay, to_point
from gui.mdp.drawing import SceneDrawing
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.shell.canvas import fit_rect, schedule_declutter, wheel_zoom
from gui.shell.document import ProjectDocument

__all__ = ["MdpView", "Selection"]


def _same_overlay(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two results overlays draw the same (the same record object and values)."""
    if a is None or b is None:
        return a is b
    return a["record"] is b["record"] and all(a[k] == b[k] for k in a if k != "record")


class MdpView(QGraphicsView):
    """The editable drawing of the MDP ``mdp_id`` of ``document``."""

    selection_changed = Signal()
    mode_changed = Signal(str)
    rename_requested = Signal(str)  # id of the state or action to rename
    message = Signal(str)  # a short hint for the status bar

    def __init__(self, document: ProjectDocument, mdp_id: str | None,
                 parent: QWidget | None = None, *, results_run: str | None = None) -> None:
        """``results_run``: a "bounds" run to overlay from the first drawing on (drawing it
        without, then again with it, doubled a workspace's opening time)."""
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
        self.auto_fit = True  # fit the drawing when it changes, until the user zooms or pans
        self._pan_from: QPointF | None = None
        self._connect_from: str | None = None  # action id a transition starts at
        self._connect_line: QGraphicsPathItem | None = None
        self._press_action: tuple[str, QPointF] | None = None
        mdp = (self, lambda: self._mdp_id, self.model, self.selection, self.select_ids)
        # builds the scene, keeps the items; every edit, one command each
        self.drawing = SceneDrawing(document, DrawingHooks(*mdp, self.cancel_connect))
        self.drawing.results_run = results_run
        self.edits = CanvasEdits(document, EditHooks(
            *mdp, self.drawing.state_items, self.item_at, self.message.emit, self.fit_to_view,
            self._set_auto_fit, self.rename_selection, self.select_all, self.set_mode,
            self.start_connect))

        self._scene.selectionChanged.connect(self._on_scene_selection_changed)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        document.states_moved.connect(self._on_document_states_moved)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.mdp_removed.connect(self._on_document_mdp_removed)
        document.mdp_added.connect(self._on_document_mdp_added)
        document.run_removed.connect(self._on_document_run_removed)
        self._apply_mode()
        self.rebuild()

    # ------------------------------------------------------------------ public: drawing
    @property
    def state_items(self) -> dict[str, StateItem]:
        return self.drawing.state_items

    @property
    def action_items(self) -> dict[str, ActionItem]:
        return self.drawing.action_items

    @property
    def edge_items(self) -> list[EdgeItem]:
        return self.drawing.edge_items

    @property
    def hidden_edges(self) -> int:
        return self.drawing.hidden_edges

    @property
    def notice(self) -> str:
        return self.drawing.notice

    def rebuild(self) -> None:
        """Redraw everything from the document (keeps the selection and the zoom)."""
        if self.drawing.rebuild():
            self._update_scene_rect()
            if self.auto_fit:
                QTimer.singleShot(0, self, self._fit_if_auto)

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
        self.cancel_connect()
        if mode != self._mode:
            self._mode = mode
            self._apply_mode()
            self.mode_changed.emit(mode)

    def item_counts(self) -> dict[str, int]:
        return {"states": len(self.state_items), "actions": len(self.action_items),
                "edges": len(self.edge_items)}

    def legend_text(self) -> str:
        return self.drawing.labels.legend_text()

    def empty_text(self) -> str:
        return self.drawing.labels.empty_text()

    def hint_text(self) -> str:
        return self.drawing.labels.hint_text()

    @property
    def overlay(self) -> dict[str, Any] | None:
        """The results shown on the drawing (see :func:`bounds_overlay`), or None."""
        return self.drawing.overlay

    def model(self) -> MdpModel | None:
        """The document's model drawn here, or None (no such MDP)."""
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
        model = self.model()
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
            for sid, state in self.state_items.items():
                state.setSelected(sid in wanted)
            for aid, action in self.action_items.items():
                action.setSelected(aid in wanted)
            for edge in self.edge_items:
                edge.setSelected((edge.action_id, edge.target_id) in wanted_t)
        finally:
            self._scene.blockSignals(blocked)
        self.selection_changed.emit()

    def select_all(self) -> None:
        self.select_ids([*self.state_items, *self.action_items])

    # ------------------------------------------------------------------ public: edits
    # (see gui.mdp.canvas_edits.CanvasEdits; the window's actions and the tests call these)
    def add_state_at(self, pos: QPointF | tuple[float, float]) -> str | None:
        return self.edits.add_state_at(pos)

    def add_state_at_cursor(self) -> str | None:
        return self.edits.add_state_at_cursor()

    def add_action_to_selection(self) -> list[str]:
        return self.edits.add_action_to_selection()

    def delete_selection(self) -> bool:
        return self.edits.delete_selection()

    def connect_action(self, action_id: str, target_id: str) -> bool:
        # not named ``connect``: that would hide QObject.connect
        return self.edits.connect_action(action_id, target_id)

    def set_initial(self, state_id: str) -> None:
        self.edits.set_initial(state_id)

    def auto_layout(self) -> None:
        self.edits.auto_layout()

    def rename_selection(self) -> bool:
        """``F2``: ask to rename the (first) selected state or action."""
        ids = self.selection().ids()
        if not ids:
            return False
        self.rename_requested.emit(ids[0])
        return True

    # ------------------------------------------------------------------ public: results
    def show_results(self, run_id: str | None, stage: int = 0) -> None:
        """Overlay a "bounds" run (π̄ and values at ``stage``), or nothing."""
        d = self.drawing
        overlay = (bounds_overlay(self._document, run_id, self._mdp_id, stage)
                   if run_id is not None and self._mdp_id is not None else None)
        same = ((run_id, int(stage)) == (d.results_run, d.results_stage)
                and _same_overlay(overlay, d.overlay))
        d.results_run, d.results_stage, d.overlay = run_id, int(stage), overlay
        if not same or d.decorate_pending:  # the same overlay on the same drawing: as drawn
            d.decorate()

    @property
    def results_run(self) -> str | None:
        return self.drawing.results_run if self.drawing.overlay is not None else None

    # ------------------------------------------------------------------ view
    def fit_to_view(self) -> None:
        """Fit the whole drawing (``F``); small drawings are not blown up past 1.4×."""
        self.auto_fit = True
        fit_rect(self, self._drawing_rect(), margin=24.0, max_scale=1.4)

    def _set_auto_fit(self, on: bool) -> None:
        self.auto_fit = on

    def _fit_if_auto(self) -> None:
        if self.auto_fit:
            self.fit_to_view()

    def _update_scene_rect(self) -> None:
        rect = self._drawing_rect()
        if rect.isEmpty():
            rect = QRectF(-400, -300, 800, 600)
        self._scene.setSceneRect(rect.adjusted(-3000, -3000, 3000, 3000))

    def _apply_mode(self) -> None:
        if self._mode == "select":
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            self.viewport().unsetCursor()
        else:
            self.setDragMode(QGraphicsView.DragMode.NoDrag)
            self.viewport().setCursor(Qt.CursorShape.CrossCursor)
        self.drawing.labels.set_hint(MODE_HINTS[self._mode])

    def _drawing_rect(self) -> QRectF:
        rect = QRectF()
        for item in self._scene.items():
            if item is self._connect_line or not item.isVisible():
                continue
            rect = rect.united(item.sceneBoundingRect())
        return rect

    # ------------------------------------------------------------------ connecting
    def start_connect(self, action_id: str) -> None:
        self.cancel_connect()
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

    def cancel_connect(self) -> None:
        self._connect_from = None
        if self._connect_line is not None:
            if self._connect_line.scene() is self._scene:
                self._scene.removeItem(self._connect_line)
            self._connect_line = None

    def _finish_connect(self, scene_pos: QPointF) -> bool:
        source = self._connect_from
        target = self._state_at(scene_pos)
        self.cancel_connect()
        if source is None or target is None:
            return False
        return self.connect_action(source, target)

    def item_at(self, view_pos) -> QGraphicsItem | None:
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

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt)
        self.edits.context_menu(event)

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
        self.drawing.labels.place()
        self._fit_if_auto()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.drawing.labels.place()
        self._fit_if_auto()

    def wheelEvent(self, event) -> None:  # noqa: N802
        if wheel_zoom(self, event, lo=0.03, hi=12.0):
            self.auto_fit = False

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
            self.auto_fit = False
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
        if event.button() == Qt.MouseButton.LeftButton and self.model() is not None:
            item = self.item_at(event.position().toPoint())
            scene_pos = self.mapToScene(event.position().toPoint())
            if self._connect_from is not None:  # second click of click-click connect
                if isinstance(item, ActionItem):
                    self.start_connect(item.action_id)
                    self._update_connect(scene_pos)
                else:
                    self._finish_connect(scene_pos)
                event.accept()
                return
            if isinstance(item, ActionItem) and self._mode in ("select", "connect"):
                # a drag from an action dot draws a transition; a click selects the action
                self._press_action = (item.action_id, event.position())
                self.start_connect(item.action_id)
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
            self.auto_fit = False
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
                    self.cancel_connect()  # select mode: a click only selects
                # connect mode: the line now follows the pointer until the next click
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.edits.commit_moves()

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton or self.model() is None:
            super().mouseDoubleClickEvent(event)
            return
        item = self.item_at(event.position().toPoint())
        if item is None:
            self.add_state_at(self.mapToScene(event.position().toPoint()))
        elif isinstance(item, StateItem):
            self.select_ids([item.state_id])
            self.rename_requested.emit(item.state_id)
        elif isinstance(item, ActionItem):
            self.cancel_connect()
            self.select_ids([item.action_id])
            self.rename_requested.emit(item.action_id)
        event.accept()

    # ------------------------------------------------------------------ slots
    def _on_scene_selection_changed(self) -> None:
        if not self.drawing.rebuilding:
            self.selection_changed.emit()

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self.rebuild()

    def _on_document_states_moved(self, mdp_id: str, state_ids: list) -> None:
        if mdp_id != self._mdp_id:
            return
        model = self.model()
        if model is None or len(self.state_items) != model.n_states:
            self.rebuild()
            return
        pos = self.drawing.display_positions(model)
        self.drawing.rebuilding = True
        try:
            for s, sid in enumerate(model.state_ids):
                item = self.state_items.get(sid)
                if item is not None and (item.pos().x(), item.pos().y()) != tuple(pos[s]):
                    item.setPos(to_point(pos[s]))
        finally:
            self.drawing.rebuilding = False
        self.drawing.decorate()
        self._update_scene_rect()

    def _on_document_project_replaced(self) -> None:
        self.auto_fit = True
        self.drawing.results_run = None
        self.drawing.overlay = None
        self.rebuild()

    def _on_document_mdp_removed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id or self._mdp_id is None:
            self.rebuild()

    def _on_document_mdp_added(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id or self._mdp_id is None:
            self.auto_fit = True
            self.rebuild()

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self.drawing.results_run:
            self.drawing.overlay = None
            self.drawing.decorate()


def preview(exec_: bool = True, mdp_id: str = "four-startups") -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: MdpView(example_document(), mdp_id), exec_=exec_,
                       title=f"MDP canvas: {mdp_id}", size=(900, 600))


if __name__ == "__main__":
    import sys

    preview(mdp_id=sys.argv[1] if len(sys.argv) > 1 else "four-startups")
