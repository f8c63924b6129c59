"""a Tools menu with every tool and its shortcut, the tab order a project
reopens with, and no stale progress message on another tab."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from gui.shell.tools import TOOL_MODULES
from gui.shell.tools_menu import ordered_tools


def test_the_tools_menu_lists_every_tool_with_a_shortcut(window):
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    assert list(menus)[-2:] == ["&Tools", "&Help"]
    items = [a for a in menus["&Tools"].actions() if a.text()]
    assert [a.text() for a in items] == [t.title for t in ordered_tools()]
    assert [t.factory.__module__ for t in ordered_tools()] == TOOL_MODULES
    assert "Audit" in [a.text() for a in items]  # the README's "Tools ▸ Audit"
    shortcuts = [a.shortcut().toString() for a in items]
    assert all(shortcuts) and len(set(shortcuts)) == len(shortcuts)
    # no other action of the window has one of these keys (an ambiguous key fires nothing)
    others = {a.shortcut().toString() for a in window.findChildren(type(items[0]))
              if a not in items and not a.shortcut().isEmpty()}
    assert not others & set(shortcuts)
    window.tools_menu.actions["audit"].trigger()
    assert window.tabs.currentWidget() is window.tools()["audit"]
    assert window.tools_menu.actions["ledger"].shortcut() == QKeySequence("Ctrl+3")


def test_a_tab_change_clears_a_tools_progress_message(window):
    window.open_tool("ledger")
    window.statusBar().showMessage("Private agents: 99 % — episode 381")
    window.open_tool("audit")
    assert window.statusBar().currentMessage() == ""


def test_a_reopened_project_gets_its_tabs_back_in_order(qtbot, window, tmp_path):
    from gui.shell.main_window import MainWindow

    path = tmp_path / "tabs.privplan.json"
    assert window.save_to(path)
    window.open_tool("ledger")
    window.open_tool("calculator")
    bar = window.tabs.tabBar()
    keys = window.tools_menu.tab_keys()
    bar.moveTab(keys.index("tool:calculator"), 0)  # the user drags the calculator first
    window.tabs.setCurrentIndex(window.tools_menu.tab_keys().index("tool:ledger"))
    want = window.tools_menu.tab_keys()
    assert want[0] == "tool:calculator"
    window.discard_and_close()

    from gui.shell.document import ProjectDocument

    other = MainWindow(ProjectDocument())
    qtbot.addWidget(other)
    other.open_path(str(path), background=False)
    assert other.tools_menu.tab_keys() == want
    assert other.tabs.currentWidget() is other.tools()["ledger"]
    other.discard_and_close()
