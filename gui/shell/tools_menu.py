"""The Tools menu, the tab order a project reopens with, and a status bar without stale news.

:class:`ToolsMenu` takes the main window and adds, by composition:

* **Tools ▸ …** — every registered tool tab (the workspaces besides the MDP tabs) with its
  shortcut, Ctrl+1 … Ctrl+9 in the order of ``gui.shell.tools.TOOL_MODULES`` (the README's
  "Tools ▸ Audit"); the MDP workspaces open from the Project tree;
* **the tab order** — the open tabs of a saved project (MDP workspaces and tools, in their
  order, and the current one) are kept in the user's settings per project file and restored
  when the project is opened again (never in the project file);
* **stale messages** — a tab change clears the status bar's temporary message (a tool's
  "Private agents: 99 % — episode 381" belongs to its own tab; the tool shows it again on its
  next progress).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence

from gui.shell.tools import TOOL_MODULES, TOOLS, ToolSpec

if TYPE_CHECKING:
    from gui.shell.main_window import MainWindow

__all__ = ["ToolsMenu", "ordered_tools"]


def ordered_tools() -> list[ToolSpec]:
    """The registered tools in the order of ``TOOL_MODULES`` (not the order their modules
    happened to be imported in), so each keeps its shortcut."""
    def rank(spec: ToolSpec) -> int:
        module = getattr(spec.factory, "__module__", "")
        return TOOL_MODULES.index(module) if module in TOOL_MODULES else len(TOOL_MODULES)

    return sorted(TOOLS.values(), key=rank)


class ToolsMenu:
    """Tools menu, persistent tab order and status clearing for ``window``."""

    def __init__(self, window: "MainWindow", *, use_settings: bool = True) -> None:
        self._window = window
        self._use_settings = use_settings
        self._restoring = False
        self._suspended = False
        self.menu = window.menuBar().addMenu("&Tools")
        help_menu = next((a for a in window.menuBar().actions() if a.text() == "&Help"), None)
        if help_menu is not None:  # Tools before Help, as applications put it
            window.menuBar().insertMenu(help_menu, self.menu)
        self.actions: dict[str, QAction] = {}
        for i, spec in enumerate(ordered_tools(), 1):
            a = QAction(spec.title, window)
            if i <= 9:
                a.setShortcut(QKeySequence(f"Ctrl+{i}"))
            tip = spec.tooltip.split(":")[0] if spec.tooltip else spec.title
            a.setStatusTip(tip)
            a.setToolTip(f"{spec.title} ({a.shortcut().toString()})" if i <= 9 else spec.title)
            a.triggered.connect(lambda _=False, key=spec.key: window.open_tool(key))
            self.menu.addAction(a)
            self.actions[spec.key] = a
        tabs = window.tabs
        tabs.currentChanged.connect(self._on_current_changed)
        tabs.tabBar().tabMoved.connect(lambda *_: self.remember())
        doc = window.document
        # opening a project sets its path, closes the old tabs, opens the new ones: the tabs
        # are not remembered in between (that would overwrite the order being restored)
        doc.path_changed.connect(self._on_path_changed)
        doc.project_replaced.connect(self.restore)  # after the window opened its MDP tabs

    # ------------------------------------------------------------------ tab order
    def tab_keys(self) -> list[str]:
        """The open tabs in order: ``mdp:ID`` for an MDP workspace, ``tool:KEY`` for a tool."""
        w = self._window
        mdps = {id(ws): k for k, ws in w.workspaces().items()}
        tools = {id(t): k for k, t in w.tools().items()}
        out = []
        for i in range(w.tabs.count()):
            tab = w.tabs.widget(i)
            if id(tab) in mdps:
                out.append(f"mdp:{mdps[id(tab)]}")
            elif id(tab) in tools:
                out.append(f"tool:{tools[id(tab)]}")
        return out

    def _current_key(self) -> str:
        keys = self.tab_keys()
        i = self._window.tabs.currentIndex()
        return keys[i] if 0 <= i < len(keys) else ""

    def remember(self) -> None:
        """Store the open tabs of a saved project (nothing for an unsaved one)."""
        path = self._window.document.path
        if (self._restoring or self._suspended or not self._use_settings or not path
                or not self._window.isVisible()):  # a closing window removes its tabs
            return
        self._window._settings.set_tab_order(str(path), self.tab_keys(), self._current_key())

    def restore(self) -> None:
        """Reopen the tabs the project had, in their order, and bring its current one up."""
        w = self._window
        path = w.document.path
        self._suspended = False
        if not self._use_settings or not path:
            return
        keys, current = w._settings.tab_order(str(path))
        if not keys:
            self.remember()
            return
        self._restoring = True
        try:
            mdp_ids = {e.id for e in w.document.project.mdps}
            for key in keys:
                kind, _, name = key.partition(":")
                if kind == "mdp" and name in mdp_ids:
                    w.open_workspace(name)
                elif kind == "tool" and name in TOOLS:
                    w.open_tool(name)
            bar = w.tabs.tabBar()
            present = [k for k in keys if k in self.tab_keys()]
            for target, key in enumerate(present):
                bar.moveTab(self.tab_keys().index(key), target)
            if current in self.tab_keys():
                w.tabs.setCurrentIndex(self.tab_keys().index(current))
        finally:
            self._restoring = False
        self.remember()

    def _on_path_changed(self, *_: object) -> None:
        from PySide6.QtCore import QTimer

        path = self._window.document.path
        if not path or not self._use_settings or not self._window._settings.tab_order(
                str(path))[0]:
            self.remember()  # Save As to a new file: its tabs are the ones open now
            return
        self._suspended = True  # until the project is replaced, or the next turn
        QTimer.singleShot(0, self._resume)

    def _resume(self) -> None:
        if self._suspended:
            self._suspended = False
            self.remember()

    def _on_current_changed(self, _index: int) -> None:
        self._window.statusBar().clearMessage()  # a message of the tab left behind
        self.remember()


def install(window: Any) -> ToolsMenu:
    """Add the Tools menu (and the rest of :class:`ToolsMenu`) to ``window``."""
    return ToolsMenu(window, use_settings=window._use_settings)
