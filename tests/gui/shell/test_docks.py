"""The Run parameters dock shows the whole form of its current page at 1366×768.

Before :class:`gui.shell.docks.PageSizedStack`, the MDP workspace's form asked for 412 px in a
320 px dock whose scroll area had no horizontal scroll bar: the fields, the seed and the
Run/Cancel buttons were cut off on the right.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget

from gui.shell.docks import PageSizedStack, fit_dock_width, minimum_width
from gui.shell.tools import TOOLS, load_tools

load_tools()


def _viewport_width(window) -> int:
    scroll = window.params_dock.widget()
    assert isinstance(scroll, QScrollArea)
    return scroll.viewport().width()


@pytest.mark.parametrize("key", ["mdp", *TOOLS])
def test_the_run_parameters_page_fits_its_dock_at_1366x768(qtbot, window, key):
    window.resize(1366, 768)
    if key == "mdp":
        window.open_workspace(window.document.project.mdps[0].id)
    else:
        window.open_tool(key)
    qtbot.wait(100)
    page = window.params_stack.currentWidget()
    if not window.params_dock.isVisible():
        pytest.skip(f"{key}: no Run parameters dock")
    need = minimum_width(page)
    assert _viewport_width(window) >= need, (key, _viewport_width(window), need)
    assert window.width() <= 1366


def test_the_stack_asks_only_for_its_current_page(qtbot):
    stack = PageSizedStack()
    qtbot.addWidget(stack)
    narrow, wide = QLabel("narrow"), QWidget()
    wide.setMinimumWidth(900)
    stack.addWidget(narrow)
    stack.addWidget(wide)
    stack.setCurrentWidget(narrow)
    assert stack.minimumSizeHint().width() < 900
    stack.setCurrentWidget(wide)
    assert stack.minimumSizeHint().width() >= 900


def test_a_dock_is_never_widened_past_its_share_of_the_window(qtbot, window):
    window.resize(1366, 768)
    window.open_workspace(window.document.project.mdps[0].id)
    qtbot.wait(50)
    assert window.params_dock.isVisible()
    page = QWidget()
    page.setMinimumWidth(2000)
    asked = fit_dock_width(window, window.params_dock, page)
    assert 0 < asked <= int(1366 * 0.4)
