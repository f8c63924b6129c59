"""The logistics map canvas (Fig 4.1): bases, centers, routes, agent areas, a route overlay.

:class:`ZoomView` is the shared zoomable view (wheel zoom under the mouse, middle-drag pan,
``F`` fits, ``+``/``-``, an empty-state text) used by every logistics drawing.

:class:`MapCanvas` draws one map dict of ``Project.maps`` (see :mod:`core.logistics.edits`):

* bases are circles filled with their agent's colour, centers are squares (public, grey
  with the ids of the agents sharing them in the tooltip), each route is a line labelled
  with its length;
* each agent's **area** (its bases, the centers it shares and its routes) is tinted in its
  colour (:func:`agent_colours`: Paul Tol's colour-blind-safe "muted" palette, neighbouring
  agents get different colours; the orange accent stays reserved for private/obfuscated
  artefacts);
* after a run, :meth:`MapCanvas.set_route` overlays the executed route, each leg in the
  colour of the agent that carried it, and marks the hand-over centers.

The canvas is a *view*: it never changes the map. In edit mode it emits what the user
asked for — ``nodes_moved`` once per drag, ``connect_requested`` (Shift+drag from a node to
another), ``delete_requested`` (Delete), ``context_menu_requested`` — and the map editor
turns those into undoable commands; the canvas redraws when the document says the map
changed (:meth:`MapCanvas.set_map`). Item positions are never read back as the model.

Over 600 lines: the map items (bases, centers, routes), the zoomable view and the editing
canvas are drawn together; shared canvas pieces are in :mod:`gui.shell.canvas`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QStyle,
    QWidget,
)

from core.logistics import layout_positions
from gui.logistics.domain_style import decorate_domain
from gui.shell.canvas import (
    LodTextItem,
    fit_rect,
    plain_style_option,
    schedule_declutter,
    wheel_zoom,
)

__all__ = ["AGENT_PALETTE", "agent_colours", "display_positions", "edge_owner", "ZoomView",
           "TextItem", "NodeItem", "EdgeItem", "MapCanvas", "BASE_RADIUS", "CENTER_HALF",
           "SELECTION_COLOUR", "text_colour_on", "preview"]

#: Paul Tol's "muted" qualitative scheme: colour-blind safe, and free of the orange accent.
AGENT_PALETTE = ("#88CCEE", "#CC6677", "#DDCC77", "#117733", "#332288", "#AA4499", "#44AA99",
                 "#999933", "#882255")
SELECTION_COLOUR = QColor("#2F7FD8")
LABEL_BG = QColor(255, 255, 255, 220)
BASE_RADIUS = 10.0
CENTER_HALF = 12.0
AREA_WIDTH = 38.0
CENTER_FILL = QColor("#E4E4E4")


def text_colour_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    lum = 0.299 * colour.red() + 0.587 * colour.green() + 0.114 * colour.blue()
    return QColor("#000000") if lum > 140 else QColor("#FFFFFF")


def edge_owner(d: Mapping[str, Any], kinds: Mapping[str, Mapping[str, Any]],
               e: Mapping[str, Any]) -> str | None:
    """The agent owning route ``e`` of map dict ``d`` (a base's agent, or ``e["agent"]``)."""
    for end in ("source", "target"):
        n = kinds.get(e[end])
        if n is not None and n.get("kind") == "base":
            return str(n.get("agent"))
    a = e.get("agent")
    return None if a is None else str(a)


def agent_colours(agents: Sequence[str],
                  neighbours: Iterable[tuple[str, str]] = ()) -> dict[str, QColor]:
    """A colour per agent from :data:`AGENT_PALETTE`.

    Up to 9 agents get distinct colours in order; more agents are coloured greedily so that
    neighbours (agents sharing a center) differ.
    """
    agents = list(agents)
    if len(agents) <= len(AGENT_PALETTE):
        return {a: QColor(AGENT_PALETTE[i]) for i, a in enumerate(agents)}
    g = nx.Graph()
    g.add_nodes_from(agents)
    g.add_edges_from((u, v) for u, v in neighbours if u in g and v in g and u != v)
    k = len(AGENT_PALETTE)
    used = [0] * k
    col: dict[str, int] = {}
    # balanced greedy colouring: neighbours differ, and every palette colour gets used
    for a in sorted(agents, key=lambda x: (-g.degree(x), x)):
        taken = {col[b] for b in g[a] if b in col}
        free = [i for i in range(k) if i not in taken] or list(range(k))
        c = min(free, key=lambda i: (used[i], i))
        col[a] = c
        used[c] += 1
    return {a: QColor(AGENT_PALETTE[col[a]]) for a in agents}


def map_agent_colours(d: Mapping[str, Any]) -> dict[str, QColor]:
    """:func:`agent_colours` for the agents of map dict ``d``."""
    agents: set[str] = set()
    pairs = []
    for n in d.get("nodes", ()):
        if n.get("kind") == "base":
            agents.add(str(n.get("agent")))
        elif n.get("kind") == "center":
            ags = sorted(str(a) for a in n.get("agents", ()))
            agents.update(ags)
            pairs += [(u, v) for i, u in enumerate(ags) for v in ags[i + 1:]]
    return agent_colours(sorted(agents), pairs)


def display_positions(d: Mapping[str, Any]) -> dict[str, QPointF]:
    """Where to draw each node: its stored ``pos``, or a seeded spring layout for the rest
    (:func:`core.logistics.layout_positions`, which the report's route figures use too)."""
    return {k: QPointF(x, y) for k, (x, y) in layout_positions(d).items()}


# ---------------------------------------------------------------------------- items
class TextItem(LodTextItem):
    """Map labels: the editor's level-of-detail label with the map's smaller defaults."""

    def __init__(self, text: str, parent: QGraphicsItem | None = None, *, point_size: float = 8.0,
                 min_px: float = 5.0, background: QColor | None = LABEL_BG, **kwargs: Any
                 ) -> None:
        super().__init__(text, parent, point_size=point_size, min_px=min_px,
                         background=background, **kwargs)


class NodeItem(QGraphicsItem):
    """A base (circle) or a center (square). Knows only its id and how it looks."""

    def __init__(self, node_id: str, kind: str, fill: QColor, *, movable: bool,
                 outline: QColor | None = None, dashed: bool = False,
                 canvas: "MapCanvas | None" = None, radius: float | None = None) -> None:
        super().__init__()
        self.node_id = node_id
        self.kind = kind
        self._fill = QColor(fill)
        self._outline = QColor(outline) if outline is not None else QColor("#202020")
        self._dashed = dashed
        self._canvas = canvas
        self._r = radius if radius is not None else (BASE_RADIUS if kind == "base"
                                                     else CENTER_HALF)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, movable)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges, movable)
        self.setAcceptHoverEvents(True)
        self.setZValue(10)
        self.setCursor(Qt.CursorShape.PointingHandCursor if not movable
                       else Qt.CursorShape.SizeAllCursor)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        m = self._r + 5
        return QRectF(-m, -m, 2 * m, 2 * m)

    def shape(self) -> QPainterPath:
        p = QPainterPath()
        r = self._r + 2
        if self.kind == "base":
            p.addEllipse(QPointF(0, 0), r, r)
        else:
            p.addRect(QRectF(-r, -r, 2 * r, 2 * r))
        return p

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        r = self._r
        if selected:
            painter.setPen(QPen(SELECTION_COLOUR, 3.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            if self.kind == "base":
                painter.drawEllipse(QPointF(0, 0), r + 3.5, r + 3.5)
            else:
                painter.drawRect(QRectF(-r - 3.5, -r - 3.5, 2 * r + 7, 2 * r + 7))
        pen = QPen(self._outline, 1.6 if self.kind == "base" else 2.2)
        if self._dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(QBrush(self._fill))
        if self.kind == "base":
            painter.drawEllipse(QPointF(0, 0), r, r)
        else:
            painter.drawRect(QRectF(-r, -r, 2 * r, 2 * r))

    def itemChange(self, change, value):  # noqa: N802 (Qt)
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and \
                self._canvas is not None:
            self._canvas._on_node_item_moving(self)
        return super().itemChange(change, value)


class EdgeItem(QGraphicsLineItem):
    """A route between two nodes (selectable; a wide invisible shape makes it easy to hit)."""

    def __init__(self, u: str, v: str, pen: QPen) -> None:
        super().__init__()
        self.u, self.v = u, v
        self.setPen(pen)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        self.setZValue(0)
        self.label: TextItem | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.u, self.v) if self.u <= self.v else (self.v, self.u)

    def shape(self) -> QPainterPath:
        p = QPainterPath()
        ln = self.line()
        p.moveTo(ln.p1())
        p.lineTo(ln.p2())
        s = QPainterPathStroker()
        s.setWidth(10.0)
        return s.createStroke(p)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        return super().boundingRect().adjusted(-6, -6, 6, 6)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: N802 (Qt)
        if option.state & QStyle.StateFlag.State_Selected:
            painter.setPen(QPen(SELECTION_COLOUR, self.pen().widthF() + 4.0))
            painter.drawLine(self.line())
        super().paint(painter, plain_style_option(option), widget)


def arrow_head(tip: QPointF, direction: QPointF, size: float = 9.0) -> QPolygonF:
    """A triangle pointing along ``direction`` with its tip at ``tip``."""
    n = math.hypot(direction.x(), direction.y()) or 1.0
    ux, uy = direction.x() / n, direction.y() / n
    bx, by = tip.x() - ux * size, tip.y() - uy * size
    px, py = -uy * size * 0.5, ux * size * 0.5
    return QPolygonF([tip, QPointF(bx + px, by + py), QPointF(bx - px, by - py)])


# ---------------------------------------------------------------------------- views
class ZoomView(QGraphicsView):
    """A zoomable, pannable view with ``F`` = fit and an empty-state text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setBackgroundBrush(QBrush(QColor("#FFFFFF")))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setMinimumSize(120, 100)
        self._auto_fit = True
        self._pan_from: QPointF | None = None
        self._empty = QLabel(self.viewport())
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setTextFormat(Qt.TextFormat.RichText)
        self._empty.setStyleSheet("QLabel { color: #666; font-size: 10.5pt; }")
        self._empty.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._empty.hide()

    @property
    def graphics_scene(self) -> QGraphicsScene:
        return self._scene

    def empty_text(self) -> str:
        return self._empty.text() if self._empty.isVisibleTo(self) else ""

    def show_empty(self, text: str) -> None:
        self._scene.clear()
        self._empty.setText(text)
        self._empty.show()
        self._place_empty()

    def hide_empty(self) -> None:
        self._empty.hide()

    def _place_empty(self) -> None:
        self._empty.setGeometry(self.viewport().rect().adjusted(16, 16, -16, -16))

    def drawing_rect(self) -> QRectF:
        return self._scene.itemsBoundingRect()

    def fit_to_view(self) -> None:
        """Fit the whole drawing (``F``); small drawings are not blown up past 1.5×."""
        self._auto_fit = True
        rect = self.drawing_rect()
        if not rect.isEmpty():
            self._scene.setSceneRect(rect.adjusted(-2000, -2000, 2000, 2000))
        fit_rect(self, rect, margin=16.0, max_scale=1.5)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        self._place_empty()
        if self._auto_fit:
            self.fit_to_view()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().showEvent(event)
        if self._auto_fit:
            self.fit_to_view()

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt)
        if wheel_zoom(self, event, lo=0.02, hi=20.0):
            self._auto_fit = False

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        key = event.key()
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if key == Qt.Key.Key_F and mods == Qt.KeyboardModifier.NoModifier:
            self.fit_to_view()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal, Qt.Key.Key_Minus):
            f = 1.25 if key != Qt.Key.Key_Minus else 0.8
            self._auto_fit = False
            self.scale(f, f)
            schedule_declutter(self)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt)
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt)
        if self._pan_from is not None:
            d = event.position() - self._pan_from
            self._pan_from = event.position()
            self._auto_fit = False
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt)
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)


class MapCanvas(ZoomView):
    """Draws one map dict; in edit mode emits the user's edit requests (see the module doc)."""

    selection_changed = Signal()
    nodes_moved = Signal(dict)  # node id -> (x, y): once per drag
    connect_requested = Signal(str, str)
    delete_requested = Signal()
    context_menu_requested = Signal(QPointF, str)  # scene position, node id under it or ""
    edge_activated = Signal(str, str)  # double-click on a route
    node_activated = Signal(str)  # double-click on a node

    EMPTY_TEXT = ("<b>No map yet.</b><br><br>Load the built-in example (the reconstruction of "
                  "the thesis's Fig 4.1) or generate a random world with the buttons above.")

    def __init__(self, parent: QWidget | None = None, *, editable: bool = True) -> None:
        super().__init__(parent)
        self._editable = editable
        self._map: dict[str, Any] | None = None
        self._pos: dict[str, QPointF] = {}
        self._colours: dict[str, QColor] = {}
        self._show_lengths = True
        self._route: list[str] = []
        self._segments: list[tuple[str, str, str]] = []
        self._route_items: list[QGraphicsItem] = []
        self._connect_from: str | None = None
        self._connect_line: QGraphicsLineItem | None = None
        self._rebuilding = False
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: dict[tuple[str, str], EdgeItem] = {}
        self.area_items: dict[str, QGraphicsPathItem] = {}
        self._labels: dict[str, TextItem] = {}
        self._scene.selectionChanged.connect(self._on_scene_selection_changed)
        self.setMinimumSize(240, 180)
        self.show_empty(self.EMPTY_TEXT)

    # ------------------------------------------------------------------ public
    @property
    def editable(self) -> bool:
        return self._editable

    def colours(self) -> dict[str, QColor]:
        return dict(self._colours)

    def item_counts(self) -> dict[str, int]:
        return {"bases": sum(1 for i in self.node_items.values() if i.kind == "base"),
                "centers": sum(1 for i in self.node_items.values() if i.kind == "center"),
                "edges": len(self.edge_items), "areas": len(self.area_items)}

    def set_show_lengths(self, show: bool) -> None:
        self._show_lengths = bool(show)
        for e in self.edge_items.values():
            if e.label is not None:
                e.label.setVisible(self._show_lengths)

    def selected_nodes(self) -> list[str]:
        return sorted(i.node_id for i in self._scene.selectedItems() if isinstance(i, NodeItem))

    def selected_edges(self) -> list[tuple[str, str]]:
        return sorted(i.key for i in self._scene.selectedItems() if isinstance(i, EdgeItem))

    def select(self, nodes: Iterable[str] = (), edges: Iterable[tuple[str, str]] = ()) -> None:
        self._scene.blockSignals(True)
        self._scene.clearSelection()
        for n in nodes:
            if n in self.node_items:
                self.node_items[n].setSelected(True)
        for u, v in edges:
            k = (u, v) if u <= v else (v, u)
            if k in self.edge_items:
                self.edge_items[k].setSelected(True)
        self._scene.blockSignals(False)
        self.selection_changed.emit()

    def node_position(self, node_id: str) -> QPointF:
        return QPointF(self._pos[node_id])

    def route_ids(self) -> list[str]:
        """The node ids of the drawn route overlay (empty if none)."""
        return list(self._route)

    def set_map(self, d: Mapping[str, Any] | None) -> None:
        """Draw map dict ``d`` (``None``: the empty state). Keeps the selection by id."""
        keep_nodes, keep_edges = self.selected_nodes(), self.selected_edges()
        self._rebuilding = True
        self._scene.blockSignals(True)
        self._scene.clear()
        self._cancel_connect()
        self.node_items, self.edge_items, self.area_items, self._labels = {}, {}, {}, {}
        self._route_items = []
        self._map = None if d is None else dict(d)
        if d is None or not d.get("nodes"):
            self._scene.blockSignals(False)
            self._rebuilding = False
            self.show_empty(self.EMPTY_TEXT if d is None else
                            "<b>This map has no nodes.</b><br>Right-click to add a base.")
            self.selection_changed.emit()
            return
        self.hide_empty()
        self._pos = display_positions(d)
        self._colours = map_agent_colours(d)
        kinds = {n["id"]: n for n in d["nodes"]}
        edges = list(d.get("edges", d.get("links", [])))
        self._draw_areas(d, kinds, edges)
        for e in edges:
            self._add_edge(kinds, e)
        for n in d["nodes"]:
            self._add_node(n)
        decorate_domain(self, d)  # air and rover maps: the domain's icons, words and legend
        if self._route:
            self._draw_route()
        self._scene.blockSignals(False)
        self._rebuilding = False
        self.select(keep_nodes, keep_edges)
        self._scene.setSceneRect(self.drawing_rect().adjusted(-2000, -2000, 2000, 2000))
        if self._auto_fit:
            self.fit_to_view()
        schedule_declutter(self)

    def set_route(self, route: Sequence[str] | None,
                  segments: Sequence[Sequence[str]] = ()) -> None:
        """Overlay the executed route (``None`` removes it); ``segments`` are the result's
        (agent, from, to) legs, drawn in the carrying agent's colour."""
        for it in self._route_items:
            if it.scene() is self._scene:
                self._scene.removeItem(it)
        self._route_items = []
        self._route = list(route or [])
        self._segments = [(s[0], s[1], s[2]) for s in segments]  # (agent, from, to)
        if self._route and self._map is not None:
            self._draw_route()

    # ------------------------------------------------------------------ drawing
    def _draw_areas(self, d: Mapping[str, Any], kinds: Mapping[str, Any],
                    edges: list[dict[str, Any]]) -> None:
        paths: dict[str, QPainterPath] = {}
        for e in edges:
            a = edge_owner(d, kinds, e)
            if a is None or e["source"] not in self._pos or e["target"] not in self._pos:
                continue
            p = paths.setdefault(a, QPainterPath())
            p.moveTo(self._pos[e["source"]])
            p.lineTo(self._pos[e["target"]])
        for n in d["nodes"]:
            if n.get("kind") == "base":
                p = paths.setdefault(str(n.get("agent")), QPainterPath())
                p.addEllipse(self._pos[n["id"]], 1.0, 1.0)
        stroker = QPainterPathStroker()
        stroker.setWidth(AREA_WIDTH)
        stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
        stroker.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        for a, p in sorted(paths.items()):
            # one stroked path filled with the winding rule: the union of the capsules is
            # tinted once (no simplified(): too slow on large maps; hence no outline pen)
            area = stroker.createStroke(p)
            area.setFillRule(Qt.FillRule.WindingFill)
            c = QColor(self._colours.get(a, QColor("#BBBBBB")))
            item = QGraphicsPathItem(area)
            fill = QColor(c)
            fill.setAlpha(80)
            item.setBrush(QBrush(fill))
            item.setPen(QPen(Qt.PenStyle.NoPen))
            item.setZValue(-10)
            item.setToolTip(f"agent {a}'s local area: its bases, routes and the centers it "
                            "shares (its bases, routes and lengths are private to it)")
            item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self._scene.addItem(item)
            self.area_items[a] = item

    def _add_edge(self, kinds: Mapping[str, Any], e: Mapping[str, Any]) -> None:
        u, v = str(e["source"]), str(e["target"])
        if u not in self._pos or v not in self._pos:
            return
        owner = edge_owner(self._map or {}, kinds, e)
        pen = QPen(QColor("#4A4A4A"), 1.6)
        item = EdgeItem(u, v, pen)
        item.setLine(QLineF(self._pos[u], self._pos[v]))
        length = e["length"]  # every route has one (f"{length:g}" needs a number)
        item.setToolTip(f"route {u}–{v}, length {length:g}" + (
            f" — private to agent {owner} (the length is never sent; only route "
            "probabilities are)" if owner else "") + (
            "\nDouble-click to edit the length; select and press Delete to remove."
            if self._editable else ""))
        self._scene.addItem(item)
        label = TextItem(f"{float(length):g}", point_size=6.5, colour="#333333", priority=0)
        label.setZValue(4)
        label.setVisible(self._show_lengths)
        self._scene.addItem(label)
        item.label = label
        self._place_edge_label(item)
        self.edge_items[item.key] = item

    def _place_edge_label(self, item: EdgeItem) -> None:
        if item.label is not None:
            item.label.center_on(item.line().center())

    def _add_node(self, n: Mapping[str, Any]) -> None:
        nid = str(n["id"])
        kind = str(n.get("kind"))
        if kind == "base":
            fill = QColor(self._colours.get(str(n.get("agent")), QColor("#BBBBBB")))
            tip = (f"base {nid} of agent {n.get('agent')} — private: only {n.get('agent')} "
                   "knows it exists")
        else:
            fill = CENTER_FILL
            ags = ", ".join(str(a) for a in n.get("agents", ()))
            tip = (f"logistic center {nid} — public; shared by {ags}; capacity lc = "
                   f"{n.get('capacity', len(n.get('agents', ())))}")
        item = NodeItem(nid, kind, fill, movable=self._editable, canvas=self)
        item.setPos(self._pos[nid])
        item.setToolTip(tip + ("\nDrag to move, Shift+drag to another node to connect, "
                               "double-click to edit." if self._editable else ""))
        self._scene.addItem(item)
        self.node_items[nid] = item
        short = kind == "center" and len(nid) <= 3
        label = TextItem(nid, point_size=7.5 if short else 7.0, bold=kind == "center",
                         background=None if short else LABEL_BG,
                         colour="#000000" if short or kind == "center" else "#1A1A1A",
                         priority=2)
        label.setZValue(12)
        self._scene.addItem(label)
        self._labels[nid] = label
        self._place_node_label(nid)

    def _place_node_label(self, nid: str) -> None:
        item, label = self.node_items[nid], self._labels[nid]
        p = item.pos()
        r = label.boundingRect()
        if item.kind == "center" and len(nid) <= 3:
            label.center_on(p)
        elif item.kind == "center":
            label.setPos(p.x() - r.width() / 2, p.y() + CENTER_HALF + 1)
        else:
            label.setPos(p.x() + BASE_RADIUS - 1, p.y() + BASE_RADIUS - 4)

    def _draw_route(self) -> None:
        pts = [self._pos[v] for v in self._route if v in self._pos]
        if len(pts) < 2:
            return
        # legs per carrying agent
        legs: list[tuple[str | None, list[str]]] = []
        i = 0
        for carrier, _f, t in self._segments:
            try:
                j = self._route.index(t, i)
            except ValueError:
                legs = []
                break
            legs.append((carrier, self._route[i:j + 1]))
            i = j
        if not legs:
            legs = [(None, self._route)]
        for ag, nodes in legs:
            path = QPainterPath(self._pos[nodes[0]])
            for v in nodes[1:]:
                path.lineTo(self._pos[v])
            outline = QGraphicsPathItem(path)
            outline.setPen(QPen(QColor(0, 0, 0, 200), 9.0, Qt.PenStyle.SolidLine,
                                Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
            outline.setZValue(5)
            inner = QGraphicsPathItem(path)
            c = QColor(self._colours.get(ag, QColor("#FFFFFF"))) if ag else QColor("#FFFFFF")
            inner.setPen(QPen(c, 5.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                              Qt.PenJoinStyle.RoundJoin))
            inner.setZValue(6)
            tip = (f"leg carried by agent {ag}: {' → '.join(nodes)}" if ag
                   else "executed route")
            for it in (outline, inner):
                it.setToolTip(tip)
                self._scene.addItem(it)
                self._route_items.append(it)
            # direction arrows in the middle of long hops
            for a, b in zip(nodes, nodes[1:]):
                pa, pb = self._pos[a], self._pos[b]
                if math.dist((pa.x(), pa.y()), (pb.x(), pb.y())) < 30:
                    continue
                mid = (pa + pb) / 2
                head = QGraphicsPathItem()
                hp = QPainterPath()
                hp.addPolygon(arrow_head(mid + (pb - pa) * 0.06, pb - pa, 10.0))
                hp.closeSubpath()
                head.setPath(hp)
                head.setBrush(QBrush(QColor("#000000")))
                head.setPen(QPen(Qt.PenStyle.NoPen))
                head.setZValue(7)
                self._scene.addItem(head)
                self._route_items.append(head)
        # hand-over centers, origin and destination
        for (a1, _f1, t1), (a2, _f2, _t2) in zip(self._segments, self._segments[1:]):
            if t1 in self._pos:
                ring = QGraphicsPathItem()
                rp = QPainterPath()
                rp.addEllipse(self._pos[t1], CENTER_HALF + 9, CENTER_HALF + 9)
                ring.setPath(rp)
                ring.setPen(QPen(QColor("#000000"), 2.6, Qt.PenStyle.DashLine))
                ring.setZValue(9)
                ring.setToolTip(f"hand-over at center {t1}: agent {a1} gives the package to "
                                f"agent {a2}")
                self._scene.addItem(ring)
                self._route_items.append(ring)
                lab = TextItem(f"{a1} → {a2}", point_size=7.5, bold=True, colour="#000000",
                               priority=3)
                lab.setZValue(13)
                r = lab.boundingRect()
                p = self._pos[t1]
                lab.setPos(p.x() - r.width() / 2, p.y() - CENTER_HALF - 11 - r.height())
                self._scene.addItem(lab)
                self._route_items.append(lab)
        for nid, text in ((self._route[0], "origin"), (self._route[-1], "destination")):
            if nid in self._pos:
                lab = TextItem(text, point_size=7.5, bold=True, colour="#000000", priority=3)
                lab.setZValue(13)
                r = lab.boundingRect()
                p = self._pos[nid]
                lab.setPos(p.x() - r.width() / 2, p.y() - BASE_RADIUS - 6 - r.height())
                self._scene.addItem(lab)
                self._route_items.append(lab)

    # ------------------------------------------------------------------ interaction
    def _on_node_item_moving(self, item: NodeItem) -> None:
        if self._rebuilding:
            return
        nid = item.node_id
        for e in self.edge_items.values():
            if nid in (e.u, e.v):
                e.setLine(QLineF(self.node_items[e.u].pos(), self.node_items[e.v].pos()))
                self._place_edge_label(e)
        self._place_node_label(nid)

    def _on_scene_selection_changed(self) -> None:
        if not self._rebuilding:
            self.selection_changed.emit()

    def _node_at(self, view_pos) -> NodeItem | None:
        for it in self.items(view_pos):
            if isinstance(it, NodeItem):
                return it
        return None

    def _edge_at(self, view_pos) -> EdgeItem | None:
        for it in self.items(view_pos):
            if isinstance(it, EdgeItem):
                return it
        return None

    def _cancel_connect(self) -> None:
        if self._connect_line is not None and self._connect_line.scene() is self._scene:
            self._scene.removeItem(self._connect_line)
        self._connect_line = None
        self._connect_from = None

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt)
        if (self._editable and event.button() == Qt.MouseButton.LeftButton
                and event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            item = self._node_at(event.position().toPoint())
            if item is not None:
                self._connect_from = item.node_id
                line = QGraphicsLineItem(QLineF(item.pos(), item.pos()))
                line.setPen(QPen(SELECTION_COLOUR, 2.0, Qt.PenStyle.DashLine))
                line.setZValue(20)
                self._scene.addItem(line)
                self._connect_line = line
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt)
        if self._connect_line is not None and self._connect_from is not None:
            p = self.mapToScene(event.position().toPoint())
            self._connect_line.setLine(QLineF(self.node_items[self._connect_from].pos(), p))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt)
        if self._connect_from is not None and event.button() == Qt.MouseButton.LeftButton:
            src = self._connect_from
            target = self._node_at(event.position().toPoint())
            self._cancel_connect()
            if target is not None and target.node_id != src:
                self.connect_requested.emit(src, target.node_id)
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if self._editable and event.button() == Qt.MouseButton.LeftButton:
            moved = {}
            for nid, item in self.node_items.items():
                p, q = item.pos(), self._pos.get(nid)
                if q is not None and (abs(p.x() - q.x()) > 0.05 or abs(p.y() - q.y()) > 0.05):
                    moved[nid] = (round(p.x(), 1), round(p.y(), 1))
            if moved:
                self.nodes_moved.emit(moved)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 (Qt)
        pos = event.position().toPoint()
        node = self._node_at(pos)
        if node is not None:
            self.node_activated.emit(node.node_id)
            event.accept()
            return
        edge = self._edge_at(pos)
        if edge is not None:
            self.edge_activated.emit(edge.u, edge.v)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt)
        if not self._editable:
            super().contextMenuEvent(event)
            return
        node = self._node_at(event.pos())
        if node is not None and not node.isSelected():
            self.select([node.node_id])
        self.context_menu_requested.emit(self.mapToScene(event.pos()),
                                         node.node_id if node is not None else "")
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        key = event.key()
        if key == Qt.Key.Key_Escape and self._connect_from is not None:
            self._cancel_connect()
            event.accept()
            return
        if self._editable and key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_requested.emit()
            event.accept()
            return
        if key == Qt.Key.Key_A and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.select(self.node_items, self.edge_items)
            event.accept()
            return
        super().keyPressEvent(event)


def preview(exec_: bool = True) -> QWidget:
    """The canvas on the fig41 reconstruction (read-write, nothing is stored)."""
    from core.logistics import fig41, map_to_dict
    from gui.shell.preview import run_preview

    def build() -> QWidget:
        canvas = MapCanvas(editable=True)
        canvas.set_map(map_to_dict(fig41()))
        return canvas

    return run_preview(build, exec_=exec_, title="Logistics map canvas", size=(900, 520))


if __name__ == "__main__":
    preview()
