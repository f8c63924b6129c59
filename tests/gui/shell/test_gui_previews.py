"""Every panel and editor module builds its preview offscreen (pyqtgraph test_examples)."""

from __future__ import annotations

import importlib

import pytest
from PySide6.QtWidgets import QWidget

MODULES = ["gui.mdp.view", "gui.mdp.inspector", "gui.mdp.matrix_view",
           "gui.mdp.editor", "gui.mdp.items", "gui.mdp.analysis_panel",
           "gui.mdp.plot_panel",
           "gui.calculator.panel", "gui.mdp.privacy_rows_dialog",
           "gui.advising.panel", "gui.ledger.panel",
           "gui.shell.log_panel", "gui.shell.project_panel", "gui.mdp.workspace",
           "gui.shell.main_window", "gui.plan.panel"]


@pytest.mark.parametrize("name", MODULES)
def test_preview_builds(qtbot, name):
    module = importlib.import_module(name)
    widget = module.preview(exec_=False)
    assert isinstance(widget, QWidget)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(10)
