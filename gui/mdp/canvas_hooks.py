"""What the parts of the MDP canvas are given: the canvas widget and callables.

The canvas (:class:`gui.mdp.view.MdpView`) keeps the mode, the selection, connecting and the
Qt events; its parts — :class:`gui.mdp.drawing.SceneDrawing` (builds the scene and the
labels over it, :class:`gui.mdp.legend.CanvasLabels`) and
:class:`gui.mdp.canvas_edits.CanvasEdits` (every edit and the context menu) — are handed the
canvas as the Qt widget they draw on and map through (a ``QGraphicsView``: its scene,
viewport and coordinates), with callables for what they ask of it (its model, the
selection, a hint for the status bar, …), as a frozen bundle: they never see the
:class:`~gui.mdp.view.MdpView` itself.

* :class:`Selection` — what is selected, by id.
* :class:`CanvasHooks` — what both parts ask; :class:`DrawingHooks` and :class:`EditHooks`
  add what each one alone asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView

from core.mdp import MdpModel
from gui.mdp.items import StateItem

__all__ = ["Selection", "CanvasHooks", "DrawingHooks", "EditHooks"]


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


@dataclass(frozen=True)
class CanvasHooks:
    """The canvas widget and what both parts ask of it."""

    canvas: QGraphicsView  # its scene, viewport and coordinates; the parent of labels, menus
    mdp_id: Callable[[], str | None]  # the MDP drawn (None: none)
    model: Callable[[], MdpModel | None]  # the document's model drawn, or None
    selection: Callable[[], Selection]
    select_ids: Callable[..., None]  # (ids, transitions=()): select exactly these


@dataclass(frozen=True)
class DrawingHooks(CanvasHooks):
    """What the drawing asks besides: to drop a transition being drawn (the scene is
    cleared)."""

    cancel_connect: Callable[[], None]


@dataclass(frozen=True)
class EditHooks(CanvasHooks):
    """What the edits ask besides."""

    state_items: Mapping[str, StateItem]  # the states drawn, by id (where they were dragged)
    item_at: Callable[[QPoint], QGraphicsItem | None]  # the state, dot or edge under a point
    say: Callable[[str], None]  # a short hint for the status bar
    fit: Callable[[], None]  # fit the whole drawing (F)
    set_auto_fit: Callable[[bool], None]  # fit the drawing as it changes (or stay put)
    rename_selection: Callable[[], object]  # F2
    select_all: Callable[[], None]
    set_mode: Callable[[str], None]  # select, add_state or connect
    start_connect: Callable[[str], None]  # a transition drawn from this action's dot
