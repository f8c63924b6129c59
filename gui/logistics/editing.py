"""Editing the logistics map: the edits of the canvas and the Inspector of the map tab.

:class:`MapEditor` is a part of :class:`gui.logistics.panel.LogisticsPanel`: given the map
page's state (:class:`gui.logistics.views.MapState`, which says the map shown), the edit
bar, canvas and banner (:class:`gui.logistics.views.EditWidgets`) and callables for what it
asks of the panel, it builds the Inspector (its fields are its own) and connects the edit
buttons and the canvas to the edits. Every edit is
a pure function of :mod:`core.logistics.edits` applied through one undoable
:class:`gui.logistics.commands.SetMapCommand`; a refused edit turns the field red with the
reason and leaves the document untouched.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.logistics import edits as E
from gui.logistics.commands import SetMapCommand
from gui.logistics.map_view import BASE_RADIUS
from gui.logistics.views import EditWidgets, MapState
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import show_field_error

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["MapEditor"]


class MapEditor:
    """The edits of the map canvas and the Inspector (see the module docstring)."""

    def __init__(self, document: ProjectDocument, state: MapState, widgets: EditWidgets, *,
                 log: Callable[[str, str], None], sync_route: Callable[[], None],
                 menu_parent: QWidget) -> None:
        self._document = document
        self._state = state
        self._w = widgets
        self._log = log
        self._sync_route = sync_route
        self._menu_parent = menu_parent  # the context menu's parent

    def connect(self) -> None:
        """Connect the edit buttons and the canvas to the edits (after the Inspector)."""
        v = self._w
        v.add_base_button.clicked.connect(self._on_add_base_clicked)
        v.add_center_button.clicked.connect(self._on_add_center_clicked)
        v.connect_button.clicked.connect(self._on_connect_clicked)
        v.delete_button.clicked.connect(self.delete_selection)
        v.lengths_check.toggled.connect(self._on_lengths_toggled)
        v.route_check.toggled.connect(self._on_route_toggled)
        v.fit_button.clicked.connect(self._on_fit_clicked)
        v.canvas.selection_changed.connect(self._on_canvas_selection_changed)
        v.canvas.nodes_moved.connect(self._on_canvas_nodes_moved)
        v.canvas.connect_requested.connect(self._on_canvas_connect_requested)
        v.canvas.delete_requested.connect(self.delete_selection)
        v.canvas.context_menu_requested.connect(self._on_canvas_context_menu_requested)
        v.canvas.edge_activated.connect(self._on_canvas_edge_activated)
        v.canvas.node_activated.connect(self._on_canvas_node_activated)

    def build_inspector(self) -> QWidget:
        """The map Inspector (also exposed as ``inspector_panel`` for a window that docks
        tool inspectors; by default it sits beside the canvas)."""
        box = QGroupBox("Inspector")
        box.setObjectName("logistics_inspector")
        box.setMinimumWidth(200)
        bl = QVBoxLayout(box)
        bl.setContentsMargins(6, 6, 6, 6)
        self.inspector_title = QLabel(box)
        self.inspector_title.setWordWrap(True)
        self.inspector_title.setTextFormat(Qt.TextFormat.RichText)
        bl.addWidget(self.inspector_title)
        self.inspector_stack = QStackedWidget(box)
        # map form
        mf = QWidget()
        fl = QFormLayout(mf)
        fl.setContentsMargins(0, 0, 0, 0)
        self.map_name_edit = QLineEdit(mf)
        self.map_name_edit.editingFinished.connect(self._on_map_name_edited)
        fl.addRow("name", self.map_name_edit)
        self.map_info = QLabel(mf)
        self.map_info.setWordWrap(True)
        fl.addRow(self.map_info)
        # base form
        bf = QWidget()
        fb = QFormLayout(bf)
        fb.setContentsMargins(0, 0, 0, 0)
        self.base_id_edit = QLineEdit(bf)
        self.base_id_edit.editingFinished.connect(self._on_node_id_edited)
        self.base_agent_combo = QComboBox(bf)
        self.base_agent_combo.setEditable(True)
        self.base_agent_combo.setToolTip("The agent owning this base. Type a new name to give "
                                         "it to a new agent (its routes must then fit).")
        self.base_agent_combo.activated.connect(self._on_base_agent_edited)
        agent_edit = self.base_agent_combo.lineEdit()
        assert agent_edit is not None  # the combo is editable
        agent_edit.editingFinished.connect(self._on_base_agent_edited)
        fb.addRow("id", self.base_id_edit)
        fb.addRow("agent", self.base_agent_combo)
        # center form
        cf = QWidget()
        fc = QFormLayout(cf)
        fc.setContentsMargins(0, 0, 0, 0)
        self.center_id_edit = QLineEdit(cf)
        self.center_id_edit.editingFinished.connect(self._on_node_id_edited)
        self.center_agents_edit = QLineEdit(cf)
        self.center_agents_edit.setToolTip("The agents sharing this center, comma separated "
                                           "(at least two; each must have a route to it).")
        self.center_agents_edit.editingFinished.connect(self._on_center_agents_edited)
        self.center_capacity_spin = QSpinBox(cf)
        self.center_capacity_spin.setRange(1, 99)
        self.center_capacity_spin.setToolTip("Capacity lc: the most agents that may share this "
                                             "center (public; ≥ the agents sharing it). Σ lc "
                                             "bounds the Step-1 query messages (Thm 4.5).")
        self.center_capacity_spin.valueChanged.connect(self._on_center_capacity_changed)
        fc.addRow("id", self.center_id_edit)
        fc.addRow("agents", self.center_agents_edit)
        fc.addRow("capacity lc", self.center_capacity_spin)
        # edge form
        ef = QWidget()
        fe = QFormLayout(ef)
        fe.setContentsMargins(0, 0, 0, 0)
        self.edge_label = QLabel(ef)
        self.edge_length_edit = QLineEdit(ef)
        self.edge_length_edit.setToolTip("Route length (> 0): private to the agent owning the "
                                         "route; never sent to other agents.")
        self.edge_length_edit.editingFinished.connect(self._on_edge_length_edited)
        fe.addRow(self.edge_label)
        fe.addRow("length", self.edge_length_edit)
        # several
        sf = QLabel("Delete removes the selection (one undo step).")
        sf.setWordWrap(True)
        for page in (mf, bf, cf, ef, sf):
            self.inspector_stack.addWidget(page)
        bl.addWidget(self.inspector_stack)
        self.inspector_message = QLabel(box)
        self.inspector_message.setWordWrap(True)
        self.inspector_message.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.inspector_message.hide()
        bl.addWidget(self.inspector_message)
        bl.addStretch(1)
        return box


    # ================================================================== editing
    def hide_messages(self) -> None:
        self._w.message_label.hide()
        self.inspector_message.hide()
        for w in (self.base_id_edit, self.center_id_edit, self.center_agents_edit,
                  self.edge_length_edit, self.map_name_edit, self.base_agent_combo,
                  self.center_capacity_spin):
            w.setStyleSheet("")

    def refuse(self, text: str, widget: QWidget | None = None) -> bool:
        self._w.message_label.setText(f"<b>Not applied:</b> {html.escape(text)}")
        self._w.message_label.show()
        self._w.message_label.setToolTip(text)
        if widget is not None:
            show_field_error(widget, text)
            self.inspector_message.setText(text)
            self.inspector_message.show()
        self._log("WARNING", f"logistics map: {text}")
        return False

    @property
    def message(self) -> str:
        """The current inline refusal (empty when the last edit was applied)."""
        return "" if self._w.message_label.isHidden() else self._w.message_label.toolTip()

    def apply_edit(self, build: Callable[[dict[str, Any]], dict[str, Any]], text: str,
                   widget: QWidget | None = None) -> bool:
        """Build the edited map from the current one, validate it, push it (or refuse)."""
        d = self._state.map_dict()
        if d is None:
            return False
        try:
            new = E.checked(build(d))
        except InputError as exc:
            self.refuse(str(exc), widget)
            self.update_inspector(keep_message=True)
            return False
        self.hide_messages()
        if new == d:
            return True
        self._document.push(SetMapCommand(self._document, self._state.index, new, text),
                            "logistics")
        return True

    def _on_canvas_nodes_moved(self, moved: dict) -> None:
        n = len(moved)
        ok = self.apply_edit(lambda d: E.move_nodes(d, moved),
                             f"Move {next(iter(moved)) if n == 1 else f'{n} nodes'}")
        if not ok:
            self._w.canvas.set_map(self._state.map_dict())

    def connect_nodes(self, u: str, v: str, length: float | None = None) -> bool:
        return self.apply_edit(lambda d: E.connect(d, u, v, length), f"Connect {u}–{v}")

    def _on_canvas_connect_requested(self, u: str, v: str) -> None:
        if self.connect_nodes(u, v):
            self._w.canvas.select(edges=[(u, v)])

    def _on_connect_clicked(self) -> None:
        nodes = self._w.canvas.selected_nodes()
        if len(nodes) == 2:
            self._on_canvas_connect_requested(nodes[0], nodes[1])

    def delete_selection(self) -> bool:
        nodes, edges = self._w.canvas.selected_nodes(), self._w.canvas.selected_edges()
        if not nodes and not edges:
            return False
        names = nodes + [f"{u}–{v}" for u, v in edges]
        text = "Delete " + (", ".join(names) if len(names) <= 3 else f"{len(names)} items")
        return self.apply_edit(lambda d: E.remove_items(d, nodes, edges), text)

    def delete_items(self, nodes=(), edges=()) -> bool:
        self._w.canvas.select(nodes, edges)
        return self.delete_selection()

    def set_edge_length(self, u: str, v: str, value: Any) -> bool:
        try:
            x = float(str(value).strip())
        except ValueError:
            return self.refuse(f"edge {u}-{v}: length must be a number > 0, got {value!r}",
                                self.edge_length_edit)
        return self.apply_edit(lambda d: E.set_length(d, u, v, x),
                               f"Length of {u}–{v} = {x:g}", self.edge_length_edit)

    def set_center_agents(self, center: str, agents: Any) -> bool:
        ags = [a.strip() for a in str(agents).replace(";", ",").split(",") if a.strip()] \
            if isinstance(agents, str) else list(agents)
        return self.apply_edit(lambda d: E.set_center(d, center, agents=ags),
                               f"Agents of {center} = {', '.join(ags)}", self.center_agents_edit)

    def set_center_capacity(self, center: str, capacity: int) -> bool:
        return self.apply_edit(lambda d: E.set_center(d, center, capacity=capacity),
                               f"Capacity of {center} = {capacity}", self.center_capacity_spin)

    def set_base_agent(self, base: str, agent: str) -> bool:
        return self.apply_edit(lambda d: E.set_base_agent(d, base, agent),
                               f"Assign {base} to agent {agent}", self.base_agent_combo)

    def rename_node(self, old: str, new: str) -> bool:
        ok = self.apply_edit(lambda d: E.rename_node(d, old, new), f"Rename {old} → {new}",
                             self.base_id_edit if self.inspector_stack.currentIndex() == 1
                             else self.center_id_edit)
        if ok:
            self._w.canvas.select([new])
        return ok

    def add_base(self, agent: str, pos: tuple[float, float] | None,
                 link_to: str | None = None) -> str | None:
        made: list[str] = []

        def build(d: dict[str, Any]) -> dict[str, Any]:
            out, bid = E.add_base(d, agent, pos, link_to=link_to)
            made.append(bid)
            return out

        if self.apply_edit(build, f"Add base of agent {agent}"):
            self._w.canvas.select(made)
            return made[0]
        return None

    def add_center(self, links: Mapping[str, str], pos: tuple[float, float] | None
                   ) -> str | None:
        made: list[str] = []

        def build(d: dict[str, Any]) -> dict[str, Any]:
            out, cid = E.add_center(d, links, pos)
            made.append(cid)
            return out

        if self.apply_edit(build, f"Add center joining {', '.join(sorted(links))}"):
            self._w.canvas.select(made)
            return made[0]
        return None

    def _assign_slot(self, base: str, agent: str) -> Callable[[], object]:
        """A menu action's slot giving ``base`` to ``agent`` (the values of this call, not the
        last ones of the loop that builds the menu)."""
        return lambda: self.set_base_agent(base, agent)

    def _add_base_slot(self, agent: str, link_to: str, pos: tuple[float, float] | None = None
                       ) -> Callable[[], object]:
        """A menu action's slot adding a base of ``agent`` linked to ``link_to``, at ``pos``
        or, without one, at a free spot beside ``link_to`` found when the action fires."""
        def add() -> object:
            return self.add_base(agent, pos if pos is not None else self._free_pos_near(link_to),
                                 link_to)
        return add

    def _free_pos_near(self, node_id: str) -> tuple[float, float]:
        """A spot near ``node_id`` that keeps a new base and its label clear of every node."""
        p = self._w.canvas.node_position(node_id)
        taken = [self._w.canvas.node_position(n) for n in self._w.canvas.node_items]
        clear = 4.5 * BASE_RADIUS  # circle plus its label, with a gap
        for k in range(60):
            ang = 0.7 + k * 2.4  # a golden-angle spiral outwards
            r = 50 + 7 * k
            q = QPointF(p.x() + r * math.cos(ang), p.y() + r * math.sin(ang))
            if all(math.dist((q.x(), q.y()), (t.x(), t.y())) > clear for t in taken):
                return (q.x(), q.y())
        far = max((t.x() for t in taken), default=p.x())
        return (far + 2 * clear, p.y())

    def _on_add_base_clicked(self) -> None:
        nodes = self._w.canvas.selected_nodes()
        d = self._state.map_dict()
        if len(nodes) != 1 or d is None:
            return
        n = E.node(d, nodes[0])
        agent = n.get("agent") if n.get("kind") == "base" else (n.get("agents") or [None])[0]
        if agent:
            self.add_base(str(agent), self._free_pos_near(nodes[0]), link_to=nodes[0])

    def _selected_base_links(self) -> dict[str, str]:
        d = self._state.map_dict()
        links: dict[str, str] = {}
        if d is None:
            return links
        for nid in self._w.canvas.selected_nodes():
            n = E.node(d, nid)
            if n.get("kind") == "base":
                links.setdefault(str(n.get("agent")), nid)
        return links

    def _on_add_center_clicked(self) -> None:
        links = self._selected_base_links()
        if len(links) < 2:
            self.refuse("select bases of at least two agents to join them with a new center")
            return
        pts = [self._w.canvas.node_position(n) for n in links.values()]
        self.add_center(links, (sum(p.x() for p in pts) / len(pts),
                                sum(p.y() for p in pts) / len(pts)))

    def _nearest_nodes(self, p: QPointF) -> list[tuple[float, str, str]]:
        """(distance, agent, node) of each agent's nearest node (bases, then its centers)."""
        d = self._state.map_dict()
        if d is None:
            return []
        best: dict[str, tuple[float, str]] = {}
        for n in d.get("nodes", ()):
            q = self._w.canvas.node_position(n["id"])
            dist = math.dist((p.x(), p.y()), (q.x(), q.y()))
            owners = [n.get("agent")] if n.get("kind") == "base" else []
            for a in owners:
                if a is not None and (a not in best or dist < best[a][0]):
                    best[str(a)] = (dist, n["id"])
        return sorted((dist, a, nid) for a, (dist, nid) in best.items())

    def _on_canvas_context_menu_requested(self, pos: QPointF, node_id: str) -> None:
        menu = self._context_menu(pos, node_id)
        if menu is not None:
            menu.exec(self._w.canvas.mapToGlobal(self._w.canvas.mapFromScene(pos)))

    def _context_menu(self, pos: QPointF, node_id: str) -> QMenu | None:
        d = self._state.map_dict()
        if d is None:
            return None
        menu = QMenu(self._menu_parent)
        p = (round(pos.x(), 1), round(pos.y(), 1))
        if node_id:
            n = E.node(d, node_id)
            if n.get("kind") == "base":
                a = str(n.get("agent"))
                menu.addAction(f"Add base of {a} linked to {node_id}",
                               lambda: self.add_base(a, self._free_pos_near(node_id), node_id))
                sub = menu.addMenu("Assign to agent")
                for other in E.agents_of(d):
                    if other != a:
                        sub.addAction(other, self._assign_slot(node_id, other))
                new = E.new_agent_name(d)
                sub.addAction(f"new agent {new}", lambda: self.set_base_agent(node_id, new))
            else:
                for a in n.get("agents", ()):
                    menu.addAction(f"Add base of {a} linked to {node_id}",
                                   self._add_base_slot(str(a), node_id))
            sel = self._w.canvas.selected_nodes()
            if len(sel) == 2 and node_id in sel:
                u, v = sel
                menu.addAction(f"Connect {u}–{v}", lambda: self._on_canvas_connect_requested(u, v))
            menu.addSeparator()
            menu.addAction(f"Delete {node_id}", lambda: self.delete_items([node_id]))
            return menu
        near = self._nearest_nodes(pos)
        sub = menu.addMenu("Add base here")
        for _dist, a, nid in near[:8]:
            sub.addAction(f"of agent {a} (linked to {nid})",
                          self._add_base_slot(a, nid, p))
        new = E.new_agent_name(d)
        sub.addAction(f"of a new agent {new}", lambda: self.add_base(new, p, None))
        links = self._selected_base_links()
        if len(links) >= 2:
            menu.addAction(f"Add center here joining the selected bases "
                           f"({', '.join(sorted(links.values()))})",
                           lambda: self.add_center(links, p))
        if len(near) >= 2:
            (_d1, a1, n1), (_d2, a2, n2) = near[0], near[1]
            menu.addAction(f"Add center here joining {a1} and {a2} (via {n1}, {n2})",
                           lambda: self.add_center({a1: n1, a2: n2}, p))
        menu.addSeparator()
        menu.addAction("Fit view (F)", self._w.canvas.fit_to_view)
        return menu

    def _on_canvas_edge_activated(self, u: str, v: str) -> None:
        self._w.canvas.select(edges=[(u, v)])
        self.edge_length_edit.setFocus()
        self.edge_length_edit.selectAll()

    def _on_canvas_node_activated(self, nid: str) -> None:
        self._w.canvas.select([nid])
        w = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_agents_edit
        w.setFocus()

    def _on_lengths_toggled(self, on: bool) -> None:
        self._w.canvas.set_show_lengths(on)

    def _on_route_toggled(self, on: bool) -> None:
        self._sync_route()

    def _on_fit_clicked(self) -> None:
        self._w.canvas.fit_to_view()

    # ------------------------------------------------------------------ inspector
    def _on_canvas_selection_changed(self) -> None:
        self.hide_messages()
        self.update_inspector()
        self.update_edit_buttons()

    def update_edit_buttons(self) -> None:
        nodes, edges = self._w.canvas.selected_nodes(), self._w.canvas.selected_edges()
        has = self._state.map_dict() is not None
        self._w.add_base_button.setEnabled(has and len(nodes) == 1)
        self._w.add_center_button.setEnabled(has and len(self._selected_base_links()) >= 2)
        self._w.connect_button.setEnabled(has and len(nodes) == 2)
        self._w.delete_button.setEnabled(has and bool(nodes or edges))
        self._w.export_button.setEnabled(has)
        self._w.remove_map_button.setEnabled(has)

    def update_inspector(self, keep_message: bool = False) -> None:
        d = self._state.map_dict()
        nodes, edges = self._w.canvas.selected_nodes(), self._w.canvas.selected_edges()
        self._state.syncing = True
        try:
            if d is None:
                self.inspector_title.setText("<i>No map.</i>")
                self.inspector_stack.setCurrentIndex(0)
                self.map_name_edit.setText("")
                self.map_info.setText("")
                return
            if len(nodes) + len(edges) == 0:
                try:
                    w = E.world_of(d)
                    info = (f"{len(w.agents)} agents, {len(w.center_ids)} centers "
                            f"(Σ lc = {w.total_capacity}), {w.n_bases} bases, "
                            f"{w.graph.number_of_edges()} routes; degree cap {w.degree_cap}; "
                            f"{len(w.tasks)} stored task(s).")
                    if w.note:
                        info += "\n" + w.note
                except InputError as exc:
                    info = f"Invalid: {exc}"
                self.inspector_title.setText(f"<b>Map</b> {html.escape(str(d.get('id')))} — "
                                             "nothing selected")
                self.map_name_edit.setText(E.map_label(d))
                self.map_info.setText(info)
                self.inspector_stack.setCurrentIndex(0)
            elif len(nodes) == 1 and not edges:
                n = E.node(d, nodes[0])
                if n.get("kind") == "base":
                    self.inspector_title.setText(f"<b>Base</b> {html.escape(nodes[0])} "
                                                 "(private to its agent)")
                    self.base_id_edit.setText(nodes[0])
                    self.base_agent_combo.clear()
                    self.base_agent_combo.addItems(E.agents_of(d))
                    self.base_agent_combo.setCurrentText(str(n.get("agent")))
                    self.inspector_stack.setCurrentIndex(1)
                else:
                    self.inspector_title.setText(f"<b>Center</b> {html.escape(nodes[0])} "
                                                 "(public)")
                    self.center_id_edit.setText(nodes[0])
                    self.center_agents_edit.setText(", ".join(n.get("agents", ())))
                    self.center_capacity_spin.setValue(int(n.get("capacity", 2)))
                    self.inspector_stack.setCurrentIndex(2)
            elif len(edges) == 1 and not nodes:
                u, v = edges[0]
                self.inspector_title.setText(f"<b>Route</b> {html.escape(u)}–{html.escape(v)}")
                kinds = {n["id"]: n for n in d["nodes"]}
                from gui.logistics.map_view import edge_owner

                e = next(e for e in d["edges"] if E.edge_key(e["source"], e["target"]) ==
                         (u, v))
                owner = edge_owner(d, kinds, e)
                self.edge_label.setText(f"owned by agent {owner}: its length is private")
                self.edge_length_edit.setText(f"{float(e['length']):g}")
                self.inspector_stack.setCurrentIndex(3)
            else:
                self.inspector_title.setText(f"<b>{len(nodes)} nodes, {len(edges)} routes "
                                             "selected</b>")
                self.inspector_stack.setCurrentIndex(4)
        finally:
            self._state.syncing = False
        if not keep_message:
            self.inspector_message.hide()

    def _on_map_name_edited(self) -> None:
        d = self._state.map_dict()
        if self._state.syncing or d is None or self.map_name_edit.text() == E.map_label(d):
            return
        name = self.map_name_edit.text().strip()
        self.apply_edit(lambda m: E.set_name(m, name), f"Rename map to “{name}”",
                        self.map_name_edit)

    def _on_node_id_edited(self) -> None:
        nodes = self._w.canvas.selected_nodes()
        if self._state.syncing or len(nodes) != 1:
            return
        edit = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_id_edit
        new = edit.text().strip()
        if new != nodes[0]:
            self.rename_node(nodes[0], new)

    def _on_base_agent_edited(self, *args: object) -> None:
        nodes = self._w.canvas.selected_nodes()
        d = self._state.map_dict()
        if self._state.syncing or len(nodes) != 1 or d is None:
            return
        agent = self.base_agent_combo.currentText().strip()
        if agent and agent != E.node(d, nodes[0]).get("agent"):
            self.set_base_agent(nodes[0], agent)

    def _on_center_agents_edited(self) -> None:
        nodes = self._w.canvas.selected_nodes()
        d = self._state.map_dict()
        if self._state.syncing or len(nodes) != 1 or d is None:
            return
        text = self.center_agents_edit.text()
        cur = list(E.node(d, nodes[0]).get("agents", ()))
        new = sorted({a.strip() for a in text.replace(";", ",").split(",") if a.strip()})
        if new != sorted(cur):
            self.set_center_agents(nodes[0], new)

    def _on_center_capacity_changed(self, value: int) -> None:
        nodes = self._w.canvas.selected_nodes()
        if self._state.syncing or len(nodes) != 1:
            return
        self.set_center_capacity(nodes[0], value)

    def _on_edge_length_edited(self) -> None:
        edges = self._w.canvas.selected_edges()
        d = self._state.map_dict()
        if self._state.syncing or len(edges) != 1 or d is None:
            return
        u, v = edges[0]
        text = self.edge_length_edit.text().strip()
        try:
            same = float(text) == E.edge_length(d, u, v)
        except ValueError:
            same = False
        if not same:
            self.set_edge_length(u, v, text)
