"""The privacy designer in the window: Analysis ▸ Design for a Target ε…."""

from __future__ import annotations

import pytest

from core.mdp.design import design
from gui.mdp.analysis_panel import AnalysisPanel
from gui.mdp.design_dialog import COLUMNS, DesignDialog
from gui.shell.workers import TaskRunner


@pytest.fixture
def dialog(qtbot, example_doc):
    runner = TaskRunner()
    panel = AnalysisPanel(example_doc, "four-startups", runner)
    qtbot.addWidget(panel)
    d = DesignDialog(example_doc, "four-startups", panel)
    qtbot.addWidget(d)
    yield example_doc, panel, d
    runner.shutdown()


def _run(qtbot, d) -> None:
    with qtbot.waitSignal(d.runner.succeeded, timeout=60_000):
        assert d.run()


def test_designer_shows_the_frontier_and_its_recommendation(qtbot, dialog):
    doc, panel, d = dialog
    d.epsilon_spin.setValue(1.0)
    _run(qtbot, d)
    ref = design(doc.mdp_entry("four-startups").mdp, epsilon=1.0, delta=0.05)
    res = d.design_result
    assert [p.to_dict() for p in res.frontier] == [p.to_dict() for p in ref.frontier]
    assert d.table.columnCount() == len(COLUMNS)
    assert d.table.rowCount() == len(ref.frontier) + len(ref.infeasible)
    assert d.table.item(0, 0) is not None
    stars = [d.table.item(i, 0).text() for i in range(len(ref.frontier))]
    assert sum(t.startswith("★") for t in stars) == 1
    assert "Recommended" in d.summary.text() and "costs no privacy" in d.summary.text()
    x, y = d.star.getData()
    assert len(x) == 1 and y[0] == pytest.approx(ref.recommended.cost_bound)
    # the recommendation goes into the workspace's run parameters
    assert d.use_recommendation()
    assert panel._eta() == ref.recommended.eta
    assert panel.bounds_k_spin.value() == pytest.approx(ref.recommended.k, rel=1e-4)


def test_recording_a_private_selection_charges_the_ledger_and_undoes(qtbot, dialog):
    doc, _, d = dialog
    d.selection_combo.setCurrentIndex(d.selection_combo.findData("exponential"))
    assert d.selection_eps_spin.isEnabled()
    d.selection_eps_spin.setValue(0.5)
    _run(qtbot, d)
    assert "exponential mechanism" in d.summary.text()
    n_runs, n_ledger = len(doc.project.runs), len(doc.project.ledger)
    assert d.record()
    run = doc.project.runs[-1]
    assert run.kind == "design" and len(doc.project.runs) == n_runs + 1
    entry = doc.project.ledger[-1]
    assert len(doc.project.ledger) == n_ledger + 1
    assert (entry.mechanism, entry.epsilon, entry.source) == ("exponential", 0.5, run.id)
    from gui.shell.document import mdp_stack_key

    doc.stack(mdp_stack_key("four-startups")).undo()  # not on the stack
    assert len(doc.project.runs) == n_runs + 1 and len(doc.project.ledger) == n_ledger + 1


def test_an_unreachable_target_says_why(qtbot, dialog):
    _, _, d = dialog
    d.epsilon_spin.setValue(0.01)
    d.delta_spin.setValue(1e-9)
    _run(qtbot, d)
    assert d.design_result.recommended is None
    assert "raise the target" in d.summary.text() and not d.use_button.isEnabled()


def test_the_window_opens_the_designer_on_the_current_mdp(qtbot, window):
    window.open_workspace("four-startups")
    dlg = window.open_designer()
    assert isinstance(dlg, DesignDialog)
    assert window.design_action.shortcut().toString() == "Ctrl+Shift+D"
    dlg.close()


def test_a_typed_negative_target_is_refused_in_sight_not_turned_positive(qtbot, dialog):
    """Typing "-1" for ε used to leave "1" in the box with no word of the refusal (the note
    was only a fleeting tooltip): now the note under the box says what was refused."""
    from PySide6.QtCore import Qt

    _doc, _panel, d = dialog
    spin = d.epsilon_spin
    d.show()
    spin.setValue(2.0)
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "-1")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert spin.value() == 2.0  # the value before the edit, not 1
    assert spin.note.isVisible() and not spin.note.isHidden()
    assert "target ε = -1 refused" in spin.note.text() and "kept 2" in spin.note.text()
