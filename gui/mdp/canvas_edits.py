"""Edits on the MDP canvas: add, connect, delete, move, lay out, and the context menu.

:class:`CanvasEdits` is a part of :class:`gui.mdp.view.MdpView` that takes
``(document, hooks)`` (:class:`gui.mdp.canvas_hooks.EditHooks`: the canvas widget and what
the edits ask of the view): each edit is one command on the model's undo stack of
``document`` (:mod:`gui.shell.commands`); the view's keys, mouse and menu call these methods,
and the view keeps thin public ones of the same names for the window and the tests.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPointF
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QMenu

from core.mdp import auto_layout as layout_positions
from gui.mdp.canvas_hooks import EditHooks
from gui.mdp.canvas_parts import MATRIX_STATES, STATE_RADIUS
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.shell.commands import (
    AddActionCommand,
    AddStateCommand,
    MoveStatesCommand,
    NormaliseRowsCommand,
    RemoveItemsCommand,
    SetMdpSettingsCommand,
    SetProbabilityCommand,
    connect_probability,
)
from gui.shell.document import ProjectDocument, mdp_stack_key

__all__ = ["CanvasEdits"]


class CanvasEdits:
    """The edits of an MDP canvas (see the module docstring)."""

    def __init__(self, document: ProjectDocument, hooks: EditHooks) -> None:
        self._document = document
        self._hooks = hooks

    @property
    def _mdp_id(self) -> str:
        # every edit first checks that the view has a model, so there is an MDP id
        return str(self._hooks.mdp_id())

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._hooks.mdp_id()))

    def add_state_at(self, pos: QPointF | tuple[float, float]) -> str | None:
        """Add a state at scene position ``pos`` and select it."""
        h = self._hooks
        model = h.model()
        if model is None or model.n_states > MATRIX_STATES:
            return None
        xy = (pos.x(), pos.y()) if isinstance(pos, QPointF) else pos
        h.set_auto_fit(False)  # the user places states: the view stays where it is
        cmd = AddStateCommand(self._document, self._mdp_id, (round(xy[0], 1), round(xy[1], 1)))
        self._document.push(cmd, self._stack_key)
        sid = cmd.state_id
        assert sid is not None  # pushing ran redo(), which made the state
        h.select_ids([sid])
        return sid

    def add_state_at_cursor(self) -> str | None:
        """``N``: a new state under the mouse pointer (or in the middle of the view)."""
        h = self._hooks
        p = h.canvas.viewport().mapFromGlobal(QCursor.pos())
        if not h.canvas.viewport().rect().contains(p):
            p = h.canvas.viewport().rect().center()
        scene = h.canvas.mapToScene(p)
        model = h.model()
        if model is not None and model.n_states:
            scene = self.free_spot(scene)
        return self.add_state_at(scene)

    def free_spot(self, p: QPointF) -> QPointF:
        """``p`` or a nearby point not on top of an existing state."""
        h = self._hooks
        taken = [item.pos() for item in h.state_items.values()]
        step = 2.4 * STATE_RADIUS
        for k in range(12):
            q = QPointF(p.x() + step * k, p.y()) if k else p
            if all(math.hypot(q.x() - t.x(), q.y() - t.y()) > step for t in taken):
                return q
        return p

    def add_action_to_selection(self) -> list[str]:
        """``A``: a new action on every selected state (or the state of a selected action)."""
        h = self._hooks
        model = h.model()
        if model is None:
            return []
        sel = h.selection()
        states = list(sel.states) or list(dict.fromkeys(model.state_of(a) for a in sel.actions))
        if not states:
            h.say("Select a state first, then press A to give it an action.")
            return []
        stack = self._document.stack(self._stack_key)
        added = []
        if len(states) > 1:
            stack.beginMacro(f"Add an action to {len(states)} states")
        try:
            for sid in states:
                cmd = AddActionCommand(self._document, self._mdp_id, sid)
                self._document.push(cmd, self._stack_key)
                assert cmd.action_id is not None  # pushing ran redo(), which made the action
                added.append(cmd.action_id)
        finally:
            if len(states) > 1:
                stack.endMacro()
        h.select_ids(added)
        return added

    def delete_selection(self) -> bool:
        """``Delete``: remove the selected states, actions and transitions (one command)."""
        h = self._hooks
        sel = h.selection()
        if sel.is_empty or h.model() is None:
            return False
        self._document.push(RemoveItemsCommand(self._document, self._mdp_id, sel.states,
                                               sel.actions, sel.transitions), self._stack_key)
        return True

    def connect_action(self, action_id: str, target_id: str) -> bool:
        """Add the transition ``action_id`` → ``target_id`` (p: what the row misses)."""
        h = self._hooks
        model = h.model()
        if model is None:
            return False
        s, j = model.action_index(action_id)
        t = model.state_index(target_id)
        if model.P[s, j, t] > 0:
            h.say(f"“{model.action_labels[s][j]}” already leads to "
                  f"“{model.state_labels[t]}”: edit its probability in the "
                  "Inspector.")
            h.select_ids([action_id], [(action_id, target_id)])
            return False
        p = connect_probability(model, action_id, target_id)
        self._document.push(SetProbabilityCommand(
            self._document, self._mdp_id, action_id, target_id, p,
            text=f"Connect “{model.action_labels[s][j]}” → “{model.state_labels[t]}”"),
            self._stack_key)
        h.select_ids([action_id], [(action_id, target_id)])
        return True

    def set_initial(self, state_id: str) -> None:
        """Make ``state_id`` the initial state s₀ (one command)."""
        h = self._hooks
        model = h.model()
        if model is not None and model.initial_state != state_id:
            self._document.push(SetMdpSettingsCommand(self._document, self._mdp_id,
                                                      initial_state=state_id), self._stack_key)

    def auto_layout(self) -> None:
        """Place every state with networkx (one undoable move)."""
        h = self._hooks
        model = h.model()
        if model is None or not model.n_states:
            return
        pos = layout_positions(model)
        h.set_auto_fit(True)
        self._document.push(MoveStatesCommand(
            self._document, self._mdp_id,
            {sid: (float(x), float(y)) for sid, (x, y) in zip(model.state_ids, pos)},
            text="Automatic layout"), self._stack_key)
        h.fit()

    def commit_moves(self) -> None:
        """Store where the states were dragged to (one undoable move)."""
        h = self._hooks
        model = h.model()
        if model is None:
            return
        moved = {}
        for sid, item in h.state_items.items():
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
            for sid, item in h.state_items.items():
                moved.setdefault(sid, (round(item.pos().x(), 1), round(item.pos().y(), 1)))
            text = "Move state" + ("s" if n_moved > 1 else "")
            self._document.push(MoveStatesCommand(self._document, self._mdp_id, moved,
                                                  text=text), self._stack_key)
            return
        self._document.push(MoveStatesCommand(self._document, self._mdp_id, moved), self._stack_key)

    def context_menu(self, event: Any) -> None:
        """The canvas's right-click menu (what it offers depends on the item under it)."""
        h = self._hooks
        model = h.model()
        if model is None or model.n_states > MATRIX_STATES:
            return
        item = h.item_at(event.pos())
        scene_pos = h.canvas.mapToScene(event.pos())
        if item is not None and not item.isSelected():
            if isinstance(item, StateItem):
                h.select_ids([item.state_id])
            elif isinstance(item, ActionItem):
                h.select_ids([item.action_id])
            elif isinstance(item, EdgeItem):
                h.select_ids([], [(item.action_id, item.target_id)])
        menu = QMenu(h.canvas)
        sel = h.selection()
        if isinstance(item, StateItem):
            menu.addAction("Add Action (A)", self.add_action_to_selection)
            menu.addAction("Rename… (F2)", h.rename_selection)
            sid = item.state_id
            a = menu.addAction("Make Initial State", lambda: self.set_initial(sid))
            a.setEnabled(model.initial_state != item.state_id)
        elif isinstance(item, ActionItem):
            aid = item.action_id

            def connect_from_here() -> None:
                h.set_mode("connect")
                h.start_connect(aid)

            menu.addAction("Connect from Here…", connect_from_here)
            menu.addAction("Rename… (F2)", h.rename_selection)
            if any(p.action == aid and p.deficit is not None
                   for p in self._document.problems(self._mdp_id)):
                menu.addAction("Normalise Probabilities", lambda: self._document.push(
                    NormaliseRowsCommand(self._document, self._mdp_id, [aid]), self._stack_key))
        if not sel.is_empty:
            menu.addAction("Delete (Del)", self.delete_selection)
        if item is None:
            menu.addAction("Add State Here (N)", lambda: self.add_state_at(scene_pos))
            menu.addAction("Select All (Ctrl+A)", h.select_all)
            menu.addSeparator()
            menu.addAction("Automatic Layout", self.auto_layout)
            menu.addAction("Fit to View (F)", h.fit)
        menu.exec(event.globalPos())

