"""The matrix view (large models) and the editor that switches between drawing and matrix."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.mdp.editable import MdpModel
from core.mdp.examples import random_mdp
from core.project.model import Project
from gui.mdp.canvas_parts import MATRIX_STATES
from gui.mdp.editor import MdpEditor
from gui.mdp.matrix_view import COLUMNS, MdpMatrixView
from gui.shell.document import ProjectDocument


@pytest.fixture
def big_doc():
    doc = ProjectDocument(Project(name="big"))
    doc.project.add_mdp(random_mdp(MATRIX_STATES + 20, 3, 4, seed=2), "big")
    return doc


def _cell(view, row, name):
    m = view.matrix
    return m.data(m.index(row, m.columns().index(name)))


def test_rows_are_state_action_pairs(qtbot, big_doc):
    v = MdpMatrixView(big_doc, "big")
    qtbot.addWidget(v)
    m = v.matrix
    assert m.rowCount() == 320 * 3 and m.columns() == COLUMNS
    assert _cell(v, 0, "state") == "s0 (s₀)" and _cell(v, 1, "state") == ""
    assert _cell(v, 1, "action") == "a1" and _cell(v, 0, "Σp") == "1 ✓"
    assert "(+" in _cell(v, 0, "next states (largest p)")  # dense rows are summarised
    assert _cell(v, 0, "R_T") != "" and _cell(v, 1, "R_T") == ""


def test_edits_are_commands_and_deficits_show(qtbot, big_doc):
    doc = big_doc
    v = MdpMatrixView(doc, "big")
    qtbot.addWidget(v)
    m = v.matrix
    r_col = m.columns().index("r")
    assert m.flags(m.index(0, r_col)) & Qt.ItemFlag.ItemIsEditable
    assert m.setData(m.index(4, r_col), "2.5")
    model = doc.model("big")
    assert model.R[1, 1] == 2.5 and doc.undo_stack.count() == 1
    assert not m.setData(m.index(4, r_col), "oops")
    assert m.setData(m.index(3, m.columns().index("R_T")), "-1")
    assert model.R_T[1] == -1.0
    from gui.shell.commands import SetProbabilityCommand

    doc.push(SetProbabilityCommand(doc, "big", model.action_ids[0][0], "st-2", 0.0))
    assert "(" in _cell(v, 0, "Σp")  # the deficit
    bg = m.data(m.index(0, 0), Qt.ItemDataRole.BackgroundRole)
    assert bg is not None and bg.name() == "#fdece6"


def test_selection_round_trip(qtbot, big_doc):
    v = MdpMatrixView(big_doc, "big")
    qtbot.addWidget(v)
    model = big_doc.model("big")
    aid = model.action_ids[10][2]
    with qtbot.waitSignal(v.selection_changed):
        v.select_ids([aid])
    assert v.selection().actions == (aid,)


def test_editor_uses_the_matrix_for_large_models(qtbot, big_doc):
    e = MdpEditor(big_doc, "big")
    qtbot.addWidget(e)
    assert e.view == "matrix" and not e.drawing_button.isEnabled()
    e.set_view("canvas")  # refused: too large to draw
    assert e.view == "matrix"
    model = big_doc.model("big")
    e.select_ids([model.state_ids[3]])
    (aid,) = e.add_action()
    assert aid in model.action_ids[3]
    sid = e.add_state()
    assert model.position(sid) is None and model.n_states == 321


def test_editor_switches_small_models(qtbot, example_doc):
    e = MdpEditor(example_doc, "four-startups")
    qtbot.addWidget(e)
    assert e.view == "canvas" and e.matrix is None
    e.select_ids(["ac-2"])
    e.set_view("matrix")
    assert e.view == "matrix" and e.selection().actions == ("ac-2",)
    e.set_view("canvas")
    assert e.selection().actions == ("ac-2",)


def test_state_without_actions_has_a_row(qtbot):
    doc = ProjectDocument(Project())
    m = MdpModel()
    m.add_state("lonely")
    doc.project.add_mdp(m, "x")
    v = MdpMatrixView(doc, "x")
    qtbot.addWidget(v)
    assert v.matrix.rowCount() == 1 and _cell(v, 0, "action") == "(no actions)"
    v.select_ids(["st-1"])
    assert v.selection().states == ("st-1",)


@pytest.mark.parametrize("column", ["r", "R_T"])
def test_typing_a_reward_gives_no_qt_warning(qtbot, example_doc, qtlog, column):
    """Issue: ``commitData called with an editor that does not belong to this view`` after
    every edit (the edit reset the model under the editor being committed)."""
    from PySide6.QtWidgets import QLineEdit, QWidget

    v = MdpMatrixView(example_doc, "four-startups")
    qtbot.addWidget(v)
    v.resize(900, 500)
    v.show()
    m = v.matrix
    index = m.index(0, m.columns().index(column))
    v.setFocus()
    v.setCurrentIndex(index)
    qtbot.keyClick(v, Qt.Key.Key_F2)
    editor = v.indexWidget(index) or v.findChild(QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, "0.25")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.wait(1)  # the event loop runs between a user's keystrokes
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    other.setFocus()
    qtbot.wait(10)
    assert float(m.data(index)) == 0.25
    assert not [r.message for r in qtlog.records if "commitData" in r.message]
