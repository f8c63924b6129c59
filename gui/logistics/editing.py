"""Editing the logistics map: the edits of the canvas and the Inspector of the map tab.

The map-editing half of :class:`gui.logistics.panel.LogisticsPanel`, split off along the
seam the panel already marked ("editing", "inspector"). :class:`MapEditing` is a mixin:
its methods run on the panel and use the widgets the panel builds (``canvas``, the
inspector fields, ``message_label``) and its document. Every edit is a pure function of
:mod:`core.logistics.edits` applied through one undoable
:class:`gui.logistics.commands.SetMapCommand`; a refused edit turns the field red with the
reason and leaves the document untouched.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import (
    QMenu,
    QWidget,
)

from core.common.errors import InputError
from core.logistics import edits as E
from gui.logistics.commands import SetMapCommand
from gui.logistics.map_view import BASE_RADIUS
from gui.shell.widgets import show_field_error

__all__ = ["MapEditing"]


class MapEditing:
    """The map-editing methods of :class:`gui.logistics.panel.LogisticsPanel` (a mixin)."""

    # ================================================================== editing
    def _hide_messages(self) -> None:
        self.message_label.hide()
        self.inspector_message.hide()
        for w in (self.base_id_edit, self.center_id_edit, self.center_agents_edit,
                  self.edge_length_edit, self.map_name_edit, self.base_agent_combo,
                  self.center_capacity_spin):
            w.setStyleSheet("")

    def _refuse(self, text: str, widget: QWidget | None = None) -> bool:
        self.message_label.setText(f"<b>Not applied:</b> {html.escape(text)}")
        self.message_label.show()
        self.message_label.setToolTip(text)
        if widget is not None:
            show_field_error(widget, text)
            self.inspector_message.setText(text)
            self.inspector_message.show()
        self.message_logged.emit("WARNING", f"logistics map: {text}")
        return False

    @property
    def message(self) -> str:
        """The current inline refusal (empty when the last edit was applied)."""
        return "" if self.message_label.isHidden() else self.message_label.toolTip()

    def apply_edit(self, build: Callable[[dict[str, Any]], dict[str, Any]], text: str,
                   widget: QWidget | None = None) -> bool:
        """Build the edited map from the current one, validate it, push it (or refuse)."""
        d = self.current_map()
        if d is None:
            return False
        try:
            new = E.checked(build(d))
        except InputError as exc:
            self._refuse(str(exc), widget)
            self._update_inspector(keep_message=True)
            return False
        self._hide_messages()
        if new == d:
            return True
        self._document.push(SetMapCommand(self._document, self.current_index, new, text),
                            "logistics")
        return True

    def _on_canvas_nodes_moved(self, moved: dict) -> None:
        n = len(moved)
        ok = self.apply_edit(lambda d: E.move_nodes(d, moved),
                             f"Move {next(iter(moved)) if n == 1 else f'{n} nodes'}")
        if not ok:
            self.canvas.set_map(self.current_map())

    def connect_nodes(self, u: str, v: str, length: float | None = None) -> bool:
        return self.apply_edit(lambda d: E.connect(d, u, v, length), f"Connect {u}–{v}")

    def _on_canvas_connect_requested(self, u: str, v: str) -> None:
        if self.connect_nodes(u, v):
            self.canvas.select(edges=[(u, v)])

    def _on_connect_clicked(self) -> None:
        nodes = self.canvas.selected_nodes()
        if len(nodes) == 2:
            self._on_canvas_connect_requested(nodes[0], nodes[1])

    def delete_selection(self) -> bool:
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        if not nodes and not edges:
            return False
        names = nodes + [f"{u}–{v}" for u, v in edges]
        text = "Delete " + (", ".join(names) if len(names) <= 3 else f"{len(names)} items")
        return self.apply_edit(lambda d: E.remove_items(d, nodes, edges), text)

    def delete_items(self, nodes=(), edges=()) -> bool:
        self.canvas.select(nodes, edges)
        return self.delete_selection()

    def set_edge_length(self, u: str, v: str, value: Any) -> bool:
        try:
            x = float(str(value).strip())
        except ValueError:
            return self._refuse(f"edge {u}-{v}: length must be a number > 0, got {value!r}",
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
            self.canvas.select([new])
        return ok

    def add_base(self, agent: str, pos: tuple[float, float] | None,
                 link_to: str | None = None) -> str | None:
        made: list[str] = []

        def build(d: dict[str, Any]) -> dict[str, Any]:
            out, bid = E.add_base(d, agent, pos, link_to=link_to)
            made.append(bid)
            return out

        if self.apply_edit(build, f"Add base of agent {agent}"):
            self.canvas.select(made)
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
            self.canvas.select(made)
            return made[0]
        return None

    def _free_pos_near(self, node_id: str) -> tuple[float, float]:
        """A spot near ``node_id`` that keeps a new base and its label clear of every node."""
        p = self.canvas.node_position(node_id)
        taken = [self.canvas.node_position(n) for n in self.canvas.node_items]
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
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if len(nodes) != 1 or d is None:
            return
        n = E.node(d, nodes[0])
        agent = n.get("agent") if n.get("kind") == "base" else (n.get("agents") or [None])[0]
        if agent:
            self.add_base(str(agent), self._free_pos_near(nodes[0]), link_to=nodes[0])

    def _selected_base_links(self) -> dict[str, str]:
        d = self.current_map()
        links: dict[str, str] = {}
        if d is None:
            return links
        for nid in self.canvas.selected_nodes():
            n = E.node(d, nid)
            if n.get("kind") == "base":
                links.setdefault(str(n.get("agent")), nid)
        return links

    def _on_add_center_clicked(self) -> None:
        links = self._selected_base_links()
        if len(links) < 2:
            self._refuse("select bases of at least two agents to join them with a new center")
            return
        pts = [self.canvas.node_position(n) for n in links.values()]
        self.add_center(links, (sum(p.x() for p in pts) / len(pts),
                                sum(p.y() for p in pts) / len(pts)))

    def _nearest_nodes(self, p: QPointF) -> list[tuple[float, str, str]]:
        """(distance, agent, node) of each agent's nearest node (bases, then its centers)."""
        d = self.current_map()
        if d is None:
            return []
        best: dict[str, tuple[float, str]] = {}
        for n in d.get("nodes", ()):
            q = self.canvas.node_position(n["id"])
            dist = math.dist((p.x(), p.y()), (q.x(), q.y()))
            owners = [n.get("agent")] if n.get("kind") == "base" else []
            for a in owners:
                if a is not None and (a not in best or dist < best[a][0]):
                    best[str(a)] = (dist, n["id"])
        return sorted((dist, a, nid) for a, (dist, nid) in best.items())

    def _on_canvas_context_menu_requested(self, pos: QPointF, node_id: str) -> None:
        menu = self._context_menu(pos, node_id)
        if menu is not None:
            menu.exec(self.canvas.mapToGlobal(self.canvas.mapFromScene(pos)))

    def _context_menu(self, pos: QPointF, node_id: str) -> QMenu | None:
        d = self.current_map()
        if d is None:
            return None
        menu = QMenu(self)
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
                        sub.addAction(other, lambda o=other: self.set_base_agent(node_id, o))
                new = E.new_agent_name(d)
                sub.addAction(f"new agent {new}", lambda: self.set_base_agent(node_id, new))
            else:
                for a in n.get("agents", ()):
                    menu.addAction(f"Add base of {a} linked to {node_id}",
                                   lambda a=a: self.add_base(str(a),
                                                             self._free_pos_near(node_id),
                                                             node_id))
            sel = self.canvas.selected_nodes()
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
                          lambda a=a, nid=nid: self.add_base(a, p, nid))
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
        menu.addAction("Fit view (F)", self.canvas.fit_to_view)
        return menu

    def _on_canvas_edge_activated(self, u: str, v: str) -> None:
        self.canvas.select(edges=[(u, v)])
        self.edge_length_edit.setFocus()
        self.edge_length_edit.selectAll()

    def _on_canvas_node_activated(self, nid: str) -> None:
        self.canvas.select([nid])
        w = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_agents_edit
        w.setFocus()

    def _on_lengths_toggled(self, on: bool) -> None:
        self.canvas.set_show_lengths(on)

    def _on_route_toggled(self, on: bool) -> None:
        self._sync_route_overlay()

    def _on_fit_clicked(self) -> None:
        self.canvas.fit_to_view()

    # ------------------------------------------------------------------ inspector
    def _on_canvas_selection_changed(self) -> None:
        self._hide_messages()
        self._update_inspector()
        self._update_edit_buttons()

    def _update_edit_buttons(self) -> None:
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        has = self.current_map() is not None
        self.add_base_button.setEnabled(has and len(nodes) == 1)
        self.add_center_button.setEnabled(has and len(self._selected_base_links()) >= 2)
        self.connect_button.setEnabled(has and len(nodes) == 2)
        self.delete_button.setEnabled(has and bool(nodes or edges))
        self.export_button.setEnabled(has)
        self.remove_map_button.setEnabled(has)

    def _update_inspector(self, keep_message: bool = False) -> None:
        d = self.current_map()
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        self._syncing = True
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
            self._syncing = False
        if not keep_message:
            self.inspector_message.hide()

    def _on_map_name_edited(self) -> None:
        d = self.current_map()
        if self._syncing or d is None or self.map_name_edit.text() == E.map_label(d):
            return
        name = self.map_name_edit.text().strip()
        self.apply_edit(lambda m: E.set_name(m, name), f"Rename map to “{name}”",
                        self.map_name_edit)

    def _on_node_id_edited(self) -> None:
        nodes = self.canvas.selected_nodes()
        if self._syncing or len(nodes) != 1:
            return
        edit = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_id_edit
        new = edit.text().strip()
        if new != nodes[0]:
            self.rename_node(nodes[0], new)

    def _on_base_agent_edited(self, *args: object) -> None:
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if self._syncing or len(nodes) != 1 or d is None:
            return
        agent = self.base_agent_combo.currentText().strip()
        if agent and agent != E.node(d, nodes[0]).get("agent"):
            self.set_base_agent(nodes[0], agent)

    def _on_center_agents_edited(self) -> None:
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if self._syncing or len(nodes) != 1 or d is None:
            return
        text = self.center_agents_edit.text()
        cur = list(E.node(d, nodes[0]).get("agents", ()))
        new = sorted({a.strip() for a in text.replace(";", ",").split(",") if a.strip()})
        if new != sorted(cur):
            self.set_center_agents(nodes[0], new)

    def _on_center_capacity_changed(self, value: int) -> None:
        nodes = self.canvas.selected_nodes()
        if self._syncing or len(nodes) != 1:
            return
        self.set_center_capacity(nodes[0], value)

    def _on_edge_length_edited(self) -> None:
        edges = self.canvas.selected_edges()
        d = self.current_map()
        if self._syncing or len(edges) != 1 or d is None:
            return
        u, v = edges[0]
        text = self.edge_length_edit.text().strip()
        try:
            same = float(text) == E.edge_length(d, u, v)
        except ValueError:
            same = False
        if not same:
            self.set_edge_length(u, v, text)
