"""tools/build_four_startups.py draws the example by hand through the GUI, exactly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from core.mdp.examples import four_startups

TOOL = Path(__file__).resolve().parents[3] / "tools" / "build_four_startups.py"


def _tool():
    spec = importlib.util.spec_from_file_location("build_four_startups", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_can_be_drawn_by_hand(qtbot, window):
    ws = _tool().draw_four_startups(window)
    doc = window.document
    mdp, ref = doc.mdp_entry(ws.mdp_id).mdp, four_startups()
    assert mdp.state_names == ref.state_names and mdp.horizon == 3 and mdp.discount == 1.0
    assert np.array_equal(mdp.P, ref.P) and np.array_equal(mdp.R, ref.R)
    assert np.array_equal(mdp.R_T, ref.R_T) and mdp.initial_state == 0
    assert mdp.action_names[0] == ref.action_names[0]
    assert "model valid" in window.validity_label.text()
    assert doc.project.name == "Four startups"
    # every step was an undoable edit
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert doc.model(ws.mdp_id).n_states == 0
