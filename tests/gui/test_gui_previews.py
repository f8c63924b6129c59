"""Every panel and editor module builds its preview offscreen (pyqtgraph test_examples)."""

from __future__ import annotations

import importlib

import pytest
from PySide6.QtWidgets import QWidget

MODULES = ["gui.editors.mdp_view", "gui.editors.inspector", "gui.editors.matrix_view",
           "gui.editors.mdp_editor", "gui.editors.items", "gui.panels.analysis_panel",
           "gui.panels.plot_panel",
           "gui.panels.privacy_panel", "gui.dialogs.privacy_rows_dialog",
           "gui.panels.advising_panel", "gui.panels.ledger_panel",
           "gui.panels.log_panel", "gui.panels.project_panel", "gui.workspace",
           "gui.main_window"]


@pytest.mark.parametrize("name", MODULES)
def test_preview_builds(qtbot, name):
    module = importlib.import_module(name)
    widget = module.preview(exec_=False)
    assert isinstance(widget, QWidget)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(10)
