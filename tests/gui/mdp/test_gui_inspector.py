"""The Inspector: fields of the selection and the model, validated as you type."""

from __future__ import annotations

import pytest
from mdp_drawing import set_probability, type_into
from PySide6.QtCore import Qt

from core.mdp.editable import MdpModel
from core.project.model import Project
from gui.mdp.inspector import MdpInspector, parse_number
from gui.mdp.view import Selection
from gui.shell.document import ProjectDocument


@pytest.fixture
def inspector(qtbot, example_doc):
    w = MdpInspector(example_doc, "four-startups")
    qtbot.addWidget(w)
    w.resize(340, 700)
    w.show()
    return w


def test_nothing_selected_shows_the_model(inspector):
    assert "Nothing selected" in inspector.title.text()
    assert inspector.model_name.text().startswith("four startups")
    assert inspector.finite_check.isChecked() and inspector.horizon_spin.value() == 3
    assert inspector.initial_combo.currentText() == "start"
    assert "model valid" in inspector.validity_label.text()
    assert not inspector.problems_list.isVisibleTo(inspector)


def test_state_fields_push_commands(inspector, example_doc):
    doc = example_doc
    inspector.set_selection(Selection(states=("st-2",)))
    assert inspector.pages.currentWidget() is inspector.state_page
    assert inspector.state_name.text() == "success" and inspector.terminal_edit.text() == "1"
    assert inspector.actions_list.count() == 1
    assert "Σp = 1 ✓" in inspector.actions_list.item(0).text()
    type_into(inspector.state_name, "won")
    assert doc.model("four-startups").label("st-2") == "won"
    type_into(inspector.terminal_edit, "2.5")
    assert doc.model("four-startups").terminal_reward("st-2") == 2.5
    type_into(inspector.terminal_edit, "1/4")
    assert doc.model("four-startups").terminal_reward("st-2") == 0.25
    inspector.initial_check.setChecked(True)
    assert doc.model("four-startups").initial_state == "st-2"
    assert doc.undo_stack.count() == 4
    doc.undo_stack.undo()
    assert inspector.initial_check.isChecked() is False


def test_bad_text_is_red_and_pushes_nothing(inspector, example_doc):
    inspector.set_selection(Selection(actions=("ac-1",)))
    count = example_doc.undo_stack.count()
    inspector.reward_edit.setFocus()
    inspector.reward_edit.setText("abc")
    inspector.reward_edit.textEdited.emit("abc")
    assert "is not a number" in inspector.reward_edit.toolTip()
    assert inspector.reward_edit.styleSheet()
    inspector.reward_edit.setModified(True)
    inspector.reward_edit.editingFinished.emit()
    assert example_doc.undo_stack.count() == count
    assert "is not a number" in inspector.message.text()
    type_into(inspector.reward_edit, "-0.1")
    assert example_doc.model("four-startups").reward("ac-1") == -0.1
    assert inspector.reward_edit.styleSheet() == ""


def test_action_table_edits_probabilities_and_normalises(inspector, example_doc):
    doc = example_doc
    model = doc.model("four-startups")
    inspector.set_selection(Selection(actions=("ac-1",)))
    assert inspector.pages.currentWidget() is inspector.action_page
    assert inspector.table_model.rowCount() == 3  # every state is a possible next state
    assert "Σp = 1 ✓" in inspector.row_label.text()
    assert not inspector.normalise_button.isEnabled()
    assert set_probability(inspector, "success", "0.5")
    assert model.row("ac-1")["st-2"] == 0.5
    assert "deficit" in inspector.row_label.text() and inspector.normalise_button.isEnabled()
    assert "1 problem" in inspector.validity_label.text()
    assert inspector.problems_list.count() == 1
    rejected = []
    inspector.table_model.rejected.connect(rejected.append)
    assert not set_probability(inspector, "failure", "1.5")  # never a probability
    assert not set_probability(inspector, "failure", "x")
    assert len(rejected) == 2 and "[0, 1]" in rejected[0]
    inspector.normalise_button.click()
    assert doc.is_valid("four-startups")
    assert sum(model.row("ac-1").values()) == pytest.approx(1.0)
    assert set_probability(inspector, "start", "")  # an empty cell removes the transition
    assert "st-1" not in model.row("ac-1")


def test_problem_click_selects_and_normalise_all(inspector, example_doc):
    doc = example_doc
    from gui.shell.commands import SetProbabilityCommand

    doc.push(SetProbabilityCommand(doc, "four-startups", "ac-2", "st-1", 0.5))
    doc.push(SetProbabilityCommand(doc, "four-startups", "ac-3", "st-1", 0.5))
    assert inspector.problems_list.count() == 2
    asked = []
    inspector.select_requested.connect(asked.append)
    inspector.problems_list.itemClicked.emit(inspector.problems_list.item(0))
    assert asked == [["ac-2"]]
    assert inspector.normalise_all_button.isVisibleTo(inspector)
    inspector.normalise_all_button.click()
    assert doc.is_valid("four-startups") and doc.undo_stack.undoText() == "Normalise 2 rows"


def test_model_settings(inspector, example_doc):
    doc = example_doc
    model = doc.model("four-startups")
    inspector.horizon_spin.setValue(5)
    assert model.horizon == 5
    inspector.finite_check.setChecked(False)
    assert model.horizon is None and model.discount == 0.95  # infinite needs γ < 1
    type_into(inspector.discount_edit, "1.5")
    assert model.discount == 0.95 and "(0, 1]" in inspector.message.text()
    type_into(inspector.discount_edit, "0.9")
    assert model.discount == 0.9
    inspector.initial_combo.activated.emit(2)
    assert model.initial_state == "st-3"
    type_into(inspector.model_name, "mine")
    assert model.name == "mine"
    doc.undo_stack.undo()
    assert model.name.startswith("four startups")


def test_multi_selection_and_focus_name(inspector, example_doc):
    inspector.set_selection(Selection(states=("st-1", "st-2"), actions=("ac-5",)))
    assert "2 states, 1 action selected" in inspector.title.text()
    inspector.focus_name("ac-3")
    assert inspector.pages.currentWidget() is inspector.action_page
    assert inspector.action_name.hasFocus() or inspector.action_name.selectedText() == "acquire_3"


def test_large_model_lists_only_nonzero_targets(qtbot):
    from core.mdp.examples import random_mdp

    doc = ProjectDocument(Project())
    doc.project.add_mdp(MdpModel.from_mdp(random_mdp(80, 2, 2, seed=1)), "big")
    model = doc.model("big")
    model.P[0, 0, 5:] = 0.0
    model.version += 1
    w = MdpInspector(doc, "big")
    qtbot.addWidget(w)
    w.set_selection(Selection(actions=(model.action_ids[0][0],)))
    assert w.table_model.rowCount() == 5
    assert w.add_target_combo.isVisibleTo(w) and w.add_target_combo.count() == 76
    w.add_target_combo.activated.emit(1)
    assert w.table_model.rowCount() == 6


def test_parse_number():
    assert parse_number("3/4") == 0.75
    for bad in ("", "1/0", "inf", "nan", "two"):
        with pytest.raises(ValueError):
            parse_number(bad)


def test_table_header(inspector):
    inspector.set_selection(Selection(actions=("ac-1",)))
    m = inspector.table_model
    assert m.headerData(1, Qt.Orientation.Horizontal) == "p(s′ | s, a)"


def test_typing_a_probability_in_the_table_gives_no_qt_warning(inspector, example_doc, qtbot,
                                                               qtlog):
    """Issue: ``QAbstractItemView::commitData`` warnings on every probability edit (the edit
    reset the table model while the view was still committing its editor)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLineEdit, QWidget

    inspector.set_selection(Selection(actions=("ac-1",)))
    view, model = inspector.table, inspector.table_model
    for row, text in ((1, "0.5"), (2, "0.49")):  # typed, as a user would: F2, text, Return
        index = model.index(row, 1)
        view.setFocus()
        view.setCurrentIndex(index)
        qtbot.keyClick(view, Qt.Key.Key_F2)
        editor = view.indexWidget(index) or view.findChild(QLineEdit)
        editor.selectAll()
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.wait(1)  # the event loop runs between a user's keystrokes
    other = QWidget()  # the focus leaves (where the stale editor used to commit again)
    qtbot.addWidget(other)
    other.show()
    other.setFocus()
    qtbot.wait(10)
    assert example_doc.model("four-startups").row("ac-1") == {"st-1": 0.01, "st-2": 0.5,
                                                              "st-3": 0.49}
    assert not [r.message for r in qtlog.records if "commitData" in r.message]
