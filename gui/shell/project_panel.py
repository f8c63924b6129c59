"""The Project dock: a tree of the project's MDPs and recorded runs, and the tools.

Double-click an MDP to open (or bring forward) its workspace tab; double-click a run to
show it in its MDP's workspace; double-click "Privacy Calculator" to open the calculator;
double-click an example (the logistics, airplane-transport and rover maps) to add it to the
project and open it in its tool.
Right-click an MDP to rename, duplicate, export or delete it, or add a new one; right-click
a run to show or delete it. Every change is an undoable command.
The tree is rebuilt from the document on every change: it never holds state of its own.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QMenu, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from gui.shell.document import PROJECT_STACK, ProjectDocument, mdp_stack_key

__all__ = ["ProjectPanel"]

_KIND_ROLE = Qt.ItemDataRole.UserRole
_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ProjectPanel(QWidget):
    mdp_activated = Signal(str)
    run_activated = Signal(str)
    rename_requested = Signal()
    tool_activated = Signal(str)  # key of a registered tool tab
    example_activated = Signal(str)  # key of a registered example
    new_mdp_requested = Signal()
    export_requested = Signal(str)  # mdp id

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 tools: Callable[[], list[tuple[str, str, str]]] | None = None,
                 examples: Callable[[], list[tuple[str, str, str]]] | None = None) -> None:
        super().__init__(parent)
        self._document = document
        # (key, label, tooltip) of the tool tabs to list under "Tools"
        self._tools = tools or (lambda: [])
        self._examples = examples or (lambda: [])  # (key, label, tooltip) under "Examples"
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setExpandsOnDoubleClick(False)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_tree_context_menu_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        for sig in (document.project_replaced, document.run_added, document.run_removed,
                    document.mdp_changed, document.name_changed, document.mdp_added,
                    document.mdp_removed):
            sig.connect(self._on_document_changed)
        self.rebuild()

    # ------------------------------------------------------------------ content
    def rebuild(self) -> None:
        project = self._document.project
        self.tree.clear()
        root = QTreeWidgetItem([project.name or "Untitled"])
        root.setData(0, _KIND_ROLE, "project")
        root.setToolTip(0, "The project. Right-click to rename.")
        font = root.font(0)
        font.setBold(True)
        root.setFont(0, font)
        self.tree.addTopLevelItem(root)
        mdps = QTreeWidgetItem(root, [f"MDPs ({len(project.mdps)})"])
        mdps.setData(0, _KIND_ROLE, "group")
        if not project.mdps:
            hint = QTreeWidgetItem(mdps, ["(none — File ▸ New MDP, or Open… a file)"])
            hint.setDisabled(True)
        for e in project.mdps:
            m = e.model
            horizon = (f"T = {m.horizon}" if m.horizon is not None
                       else f"γ = {m.discount:g}, infinite")
            valid = self._document.is_valid(e.id)
            item = QTreeWidgetItem(mdps, [(m.name or e.id) + ("" if valid else "  ⚠")])
            item.setData(0, _KIND_ROLE, "mdp")
            item.setData(0, _ID_ROLE, e.id)
            pairs = sum(len(a) for a in m.action_ids)
            tip = (f"{e.id}: {m.n_states} states, {pairs} state–action pairs, "
                   f"{horizon}.\n{self._document.summary(e.id)}\n"
                   "Double-click to open its workspace; right-click for more.")
            if e.note:
                tip += f"\n\n{e.note}"
            item.setToolTip(0, tip)
        runs = QTreeWidgetItem(root, [f"Runs ({len(project.runs)})"])
        runs.setData(0, _KIND_ROLE, "group")
        if not project.runs:
            hint = QTreeWidgetItem(runs, ["(none yet — F5 runs the analysis)"])
            hint.setDisabled(True)
        for r in project.runs:
            seed = f"seed {r.seed}" if r.seed is not None else "no seed"
            item = QTreeWidgetItem(runs, [f"{r.id} · {r.kind} · {r.target}"])
            item.setData(0, _KIND_ROLE, "run")
            item.setData(0, _ID_ROLE, r.id)
            item.setToolTip(0, f"{r.kind} on {r.target}, {r.mode}, {seed}\ncreated {r.created}"
                               "\nDouble-click to show it.")
        tools = QTreeWidgetItem(root, ["Tools"])
        tools.setData(0, _KIND_ROLE, "group")
        for key, label, tip in self._tools():
            item = QTreeWidgetItem(tools, [label])
            item.setData(0, _KIND_ROLE, "tool")
            item.setData(0, _ID_ROLE, key)
            item.setToolTip(0, tip)
        examples = QTreeWidgetItem(root, ["Examples"])
        examples.setData(0, _KIND_ROLE, "group")
        examples.setToolTip(0, "Built-in examples: double-click one to add it to the project "
                               "and open it.")
        for key, label, tip in self._examples():
            item = QTreeWidgetItem(examples, [label])
            item.setData(0, _KIND_ROLE, "example")
            item.setData(0, _ID_ROLE, key)
            item.setToolTip(0, tip + "\nDouble-click to add it to the project and open it.")
        for it in (root, mdps, runs, tools, examples):
            it.setExpanded(True)

    def item_ids(self, kind: str) -> list[str]:
        """Ids of the tree items of ``kind`` ("mdp" or "run"), in display order."""
        out: list[str] = []
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            item = stack.pop(0)
            assert item is not None  # every index is below its count
            if item.data(0, _KIND_ROLE) == kind:
                out.append(item.data(0, _ID_ROLE))
            stack[0:0] = [item.child(i) for i in range(item.childCount())]
        return out

    # ------------------------------------------------------------------ actions
    def rename_mdp(self, mdp_id: str, name: str | None = None) -> None:
        from PySide6.QtWidgets import QInputDialog

        from gui.shell.commands import SetMdpSettingsCommand

        old = self._document.model(mdp_id).name
        if name is None:
            name, ok = QInputDialog.getText(self, "Rename MDP", "MDP name:", text=old)
            if not ok:
                return
        name = name.strip()
        if name and name != old:
            key = mdp_stack_key(mdp_id)
            self._document.push(SetMdpSettingsCommand(self._document, mdp_id, name=name,
                                                      text=f"Rename MDP to “{name}”"), key)
            self._document.set_active_stack(key)  # Ctrl+Z here undoes what was just done

    def duplicate_mdp(self, mdp_id: str) -> str:
        from gui.shell.commands import AddMdpCommand

        entry = self._document.mdp_entry(mdp_id)
        model = entry.model.copy()
        model.name = f"{model.name or mdp_id} (copy)"
        cmd = AddMdpCommand(self._document, model, f"{mdp_id}-copy", entry.note,
                            text=f"Duplicate MDP “{entry.model.name or mdp_id}”")
        self._document.push(cmd)
        self._document.set_active_stack(PROJECT_STACK)
        return cmd.mdp_id

    def delete_mdp(self, mdp_id: str) -> None:
        from gui.shell.commands import RemoveMdpCommand

        self._document.push(RemoveMdpCommand(self._document, mdp_id))
        self._document.set_active_stack(PROJECT_STACK)

    def delete_run(self, run_id: str) -> None:
        from gui.shell.commands import RemoveRunCommand

        # on the stack that recorded it, so its own undo can never meet a missing run
        key = self._document.run_stack_key(run_id)
        self._document.push(RemoveRunCommand(self._document, run_id), key)
        self._document.set_active_stack(key)

    # ------------------------------------------------------------------ slots
    def _on_document_changed(self, *args: object) -> None:
        self.rebuild()

    def _on_tree_item_activated(self, item: QTreeWidgetItem, column: int) -> None:
        kind = item.data(0, _KIND_ROLE)
        if kind == "mdp":
            self.mdp_activated.emit(item.data(0, _ID_ROLE))
        elif kind == "run":
            self.run_activated.emit(item.data(0, _ID_ROLE))
        elif kind == "project":
            self.rename_requested.emit()
        elif kind == "tool":
            self.tool_activated.emit(item.data(0, _ID_ROLE))
        elif kind == "example":
            self.example_activated.emit(item.data(0, _ID_ROLE))

    def _on_tree_context_menu_requested(self, pos) -> None:
        item = self.tree.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        kind = item.data(0, _KIND_ROLE)
        if kind == "project":
            menu.addAction("Rename project…", self.rename_requested.emit)
        elif kind == "mdp":
            mdp_id = item.data(0, _ID_ROLE)
            menu.addAction("Open workspace", lambda: self.mdp_activated.emit(mdp_id))
            menu.addAction("Rename…", lambda: self.rename_mdp(mdp_id))
            menu.addAction("Duplicate", lambda: self.duplicate_mdp(mdp_id))
            menu.addAction("Export…", lambda: self.export_requested.emit(mdp_id))
            menu.addSeparator()
            menu.addAction("Delete", lambda: self.delete_mdp(mdp_id))
        elif kind == "group" and item.text(0).startswith("MDPs"):
            menu.addAction("New MDP", self.new_mdp_requested.emit)
        elif kind == "run":
            run_id = item.data(0, _ID_ROLE)
            menu.addAction("Show results", lambda: self.run_activated.emit(run_id))
            menu.addAction("Delete run", lambda: self.delete_run(run_id))
        elif kind == "tool":
            key = item.data(0, _ID_ROLE)
            menu.addAction(f"Open {item.text(0)}", lambda: self.tool_activated.emit(key))
        elif kind == "example":
            key = item.data(0, _ID_ROLE)
            menu.addAction("Add to the project and open",
                           lambda: self.example_activated.emit(key))
        if not menu.isEmpty():
            menu.exec(self.tree.viewport().mapToGlobal(pos))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: ProjectPanel(example_document()), exec_=exec_,
                       title="Project", size=(280, 400))


if __name__ == "__main__":
    preview()
