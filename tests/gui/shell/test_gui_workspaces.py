"""Every tool tab implements the Workspace protocol; the window's Run/Cancel follow the tab."""

from __future__ import annotations

import pytest

from gui.shell.tools import TOOLS, mdp_workspace_spec, window_extensions
from gui.shell.workspace import Workspace


def test_registries_are_filled_by_the_workspace_packages(window):
    assert {"calculator", "advising", "ledger", "logistics", "audit"} <= set(TOOLS)
    assert mdp_workspace_spec().factory.__module__ == "gui.mdp.workspace"
    assert [f.__module__ for f in window_extensions()] == [
        "gui.report.export", "gui.shell.compact", "gui.shell.screen_fit", "gui.shell.file_drop",
        "gui.shell.load_cancel"]
    assert window.findChild(type(window.run_action), "export_report_action") is not None


@pytest.mark.parametrize("key", ["calculator", "advising", "ledger", "logistics", "audit"])
def test_each_tool_is_a_workspace_and_drives_run(window, key):
    tool = window.open_tool(key)
    assert isinstance(tool, Workspace)
    assert window.current_tool() is tool
    assert window.run_action.isEnabled() is bool(tool.can_run)
    assert not window.cancel_action.isEnabled()
    assert isinstance(tool.randomness_label(), str)
    window.close_tool(key)
    assert window.current_tool() is None


def test_a_widget_that_is_not_a_workspace_is_refused(window):
    from PySide6.QtWidgets import QLabel

    with pytest.raises(TypeError, match="Workspace"):
        window.open_tool("not-a-workspace", "Plain", QLabel)
