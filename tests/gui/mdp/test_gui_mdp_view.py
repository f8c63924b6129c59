"""The MDP canvas: items follow the document; mouse and keyboard edits are commands."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from core.mdp.editable import MdpModel
from core.mdp.examples import example2, random_mdp
from core.project.model import Project
from gui.mdp.canvas_parts import MAX_EDGES
from gui.mdp.items import ActionItem, EdgeItem, StateItem
from gui.mdp.view import MdpView
from gui.shell.commands import ReplaceMdpCommand, SetProbabilityCommand
from gui.shell.document import ProjectDocument


def _view(qtbot, doc, mdp_id, size=(900, 600)):
    v = MdpView(doc, mdp_id)
    qtbot.addWidget(v)
    v.resize(*size)
    v.show()
    qtbot.waitExposed(v)
    return v


def _mouse(view, kind, scene_pos, *, button=Qt.MouseButton.LeftButton, buttons=None,
           modifiers=Qt.KeyboardModifier.NoModifier):
    vp = view.viewport()
    p = QPointF(view.mapFromScene(QPointF(*scene_pos)))
    if buttons is None:
        buttons = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else button
    ev = QMouseEvent(kind, p, QPointF(vp.mapToGlobal(p.toPoint())), button, buttons, modifiers)
    QApplication.sendEvent(vp, ev)


def _drag(view, start, end, steps=6):
    _mouse(view, QEvent.Type.MouseButtonPress, start)
    for i in range(1, steps + 1):
        t = i / steps
        _mouse(view, QEvent.Type.MouseMove,
               (start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1])),
               button=Qt.MouseButton.NoButton, buttons=Qt.MouseButton.LeftButton)
    _mouse(view, QEvent.Type.MouseButtonRelease, end)


@pytest.fixture
def blank():
    project = Project(name="drawing")
    project.add_mdp(MdpModel(name="blank", horizon=2), "m")
    return ProjectDocument(project)


def test_four_startups_items(qtbot, example_doc):
    v = _view(qtbot, example_doc, "four-startups")
    model = example_doc.model("four-startups")
    assert v.item_counts() == {"states": 3, "actions": 6, "edges": 18}
    widths = {s: item.pen().widthF() for s, item in v.state_items.items()}
    assert widths[model.initial_state] > max(w for s, w in widths.items()
                                             if s != model.initial_state)
    assert "probability" in v.legend_text() and "N state" in v.legend_text()
    # positions are the model's, not a transformed copy
    assert v.state_items["st-2"].pos() == QPointF(320.0, -140.0)


def test_example2_is_thinned_and_says_so(qtbot, example_doc):
    v = _view(qtbot, example_doc, "example-2")
    counts = v.item_counts()
    assert counts["states"] == 20 and counts["actions"] == 100
    assert 0 < counts["edges"] <= MAX_EDGES
    assert "most probable" in v.legend_text()
    assert v.hidden_edges == 2000 - counts["edges"]


def test_items_follow_the_document(qtbot, example_doc):
    doc = example_doc
    v = _view(qtbot, doc, "four-startups")
    doc.push(ReplaceMdpCommand(doc, "four-startups", example2()))
    assert v.item_counts()["states"] == 20 and v.item_counts()["actions"] == 100
    doc.undo_stack.undo()
    assert v.item_counts() == {"states": 3, "actions": 6, "edges": 18}


def test_empty_project_and_empty_model_teach(qtbot, blank):
    v = _view(qtbot, ProjectDocument(Project(name="empty")), None)
    assert v.item_counts() == {"states": 0, "actions": 0, "edges": 0}
    assert "no MDP" in v.empty_text() and "New MDP" in v.empty_text()
    w = _view(qtbot, blank, "m")
    assert "no states yet" in w.empty_text() and "press N" in w.empty_text()
    w.add_state_at((0.0, 0.0))
    assert w.empty_text() == ""


def test_add_states_actions_and_transitions_with_keys_and_mouse(qtbot, blank):
    doc = blank
    v = _view(qtbot, doc, "m")
    v.setFocus()
    a = v.add_state_at((0.0, 0.0))
    b = v.add_state_at((300.0, 0.0))
    assert v.selection().states == (b,)  # a new state is selected
    qtbot.keyClick(v, Qt.Key.Key_A)  # an action on the selected state
    model = doc.model("m")
    (stay,) = model.action_ids[1]
    assert v.selection().actions == (stay,)
    v.select_ids([a])
    qtbot.keyClick(v, Qt.Key.Key_A)
    (go,) = model.action_ids[0]
    assert v.item_counts()["actions"] == 2
    # drag from the action dot of "go" to state b: a transition with what the row misses
    start = v.action_items[go].pos()
    _drag(v, (start.x(), start.y()), (300.0, 0.0))
    assert model.row(go) == {b: 1.0}
    assert doc.undo_stack.undoText() == "Connect “a0” → “s1”"
    assert v.selection().transitions == ((go, b),)
    # click-click in Connect mode
    qtbot.keyClick(v, Qt.Key.Key_C)
    assert v.mode == "connect" and "Connect" in v.hint_text()
    p = v.action_items[stay].pos()
    _mouse(v, QEvent.Type.MouseButtonPress, (p.x(), p.y()))
    _mouse(v, QEvent.Type.MouseButtonRelease, (p.x(), p.y()))
    _mouse(v, QEvent.Type.MouseButtonPress, (300.0, 0.0))
    _mouse(v, QEvent.Type.MouseButtonRelease, (300.0, 0.0))
    assert model.row(stay) == {b: 1.0}
    qtbot.keyClick(v, Qt.Key.Key_Escape)  # leaves the mode
    assert v.mode == "select" and v.hint_text() == ""
    assert doc.is_valid("m")
    assert v.item_counts() == {"states": 2, "actions": 2, "edges": 2}


def test_add_state_mode_and_double_click(qtbot, blank):
    doc = blank
    v = _view(qtbot, doc, "m")
    v.set_mode("add_state")
    _mouse(v, QEvent.Type.MouseButtonPress, (50.0, 60.0))
    _mouse(v, QEvent.Type.MouseButtonRelease, (50.0, 60.0))
    _mouse(v, QEvent.Type.MouseButtonPress, (400.0, 60.0))
    _mouse(v, QEvent.Type.MouseButtonRelease, (400.0, 60.0))
    model = doc.model("m")
    assert model.n_states == 2 and model.position(model.state_ids[0]) == (50.0, 60.0)
    v.set_mode("select")
    _mouse(v, QEvent.Type.MouseButtonDblClick, (200.0, 300.0))
    assert model.n_states == 3
    renamed = []
    v.rename_requested.connect(renamed.append)
    _mouse(v, QEvent.Type.MouseButtonDblClick, (50.0, 60.0))
    assert renamed == [model.state_ids[0]]


def test_n_key_adds_a_state_and_delete_removes_the_selection(qtbot, blank):
    doc = blank
    v = _view(qtbot, doc, "m")
    qtbot.keyClick(v, Qt.Key.Key_N)
    qtbot.keyClick(v, Qt.Key.Key_N)
    model = doc.model("m")
    assert model.n_states == 2
    p0, p1 = (model.position(s) for s in model.state_ids)
    assert p0 != p1  # the second one does not land on the first
    qtbot.keyClick(v, Qt.Key.Key_A)
    v.select_all()
    assert len(v.selection().ids()) == 3
    qtbot.keyClick(v, Qt.Key.Key_Delete)
    assert model.n_states == 0 and doc.undo_stack.undoText().startswith("Delete 2 states")
    doc.undo_stack.undo()
    assert model.n_states == 2 and len(model.all_action_ids()) == 1


def test_a_drag_moves_the_selection_as_one_command(qtbot, example_doc):
    doc = example_doc
    v = _view(qtbot, doc, "four-startups")
    model = doc.model("four-startups")
    v.select_ids(["st-2", "st-3"])
    count = doc.undo_stack.count()
    _drag(v, (320.0, -140.0), (420.0, -100.0), steps=8)
    assert doc.undo_stack.count() == count + 1
    assert doc.undo_stack.undoText() == "Move 2 states"
    assert model.position("st-2") == pytest.approx((420.0, -100.0), abs=1.0)
    assert model.position("st-3") == pytest.approx((420.0, 180.0), abs=1.0)
    assert model.position("st-1") == (0.0, 0.0)
    # the attached action dots followed
    assert v.action_items["ac-5"].pos().x() > 420.0
    doc.undo_stack.undo()
    assert model.position("st-2") == (320.0, -140.0)
    assert v.state_items["st-2"].pos() == QPointF(320.0, -140.0)


def test_rubber_band_selects_and_edges_can_be_deleted(qtbot, example_doc):
    doc = example_doc
    v = _view(qtbot, doc, "four-startups")
    _drag(v, (250.0, -250.0), (450.0, 250.0))  # around success and failure
    sel = v.selection()
    assert set(sel.states) == {"st-2", "st-3"} and "st-1" not in sel.states
    edge = next(e for e in v.edge_items if (e.action_id, e.target_id) == ("ac-1", "st-2"))
    v.select_ids([], [(edge.action_id, edge.target_id)])
    assert v.delete_selection()
    assert "st-2" not in doc.model("four-startups").row("ac-1")
    assert not doc.is_valid("four-startups")  # the row lost its mass: flagged
    item = v.action_items["ac-1"]
    assert item.problem and "deficit" in item.toolTip()


def test_invalid_state_is_flagged_on_the_canvas(qtbot, blank):
    doc = blank
    v = _view(qtbot, doc, "m")
    sid = v.add_state_at((0.0, 0.0))
    assert "no actions" in v.state_items[sid].problem
    assert "no actions" in v.state_items[sid].toolTip()


def test_rebuild_keeps_selection_and_zoom(qtbot, example_doc):
    doc = example_doc
    v = _view(qtbot, doc, "four-startups")
    v.select_ids(["ac-2"])
    v.scale(1.5, 1.5)
    v.auto_fit = False
    zoom = v.transform().m11()
    doc.push(SetProbabilityCommand(doc, "four-startups", "ac-2", "st-1", 0.02))
    assert v.selection().actions == ("ac-2",)
    assert v.transform().m11() == pytest.approx(zoom)


def test_large_model_compact_mode(qtbot):
    doc = ProjectDocument(Project(name="big"))
    doc.project.add_mdp(random_mdp(50, 3, 5, seed=1))
    v = _view(qtbot, doc, "mdp-1")
    counts = v.item_counts()
    assert counts["states"] == 50 and counts["actions"] == 0
    assert "Compact view" in v.legend_text()
    assert all(isinstance(i, StateItem) for i in v.state_items.values())


def test_too_large_to_draw(qtbot):
    doc = ProjectDocument(Project(name="big"))
    doc.project.add_mdp(random_mdp(301, 1, 1, seed=1))
    v = _view(qtbot, doc, "mdp-1")
    assert v.item_counts()["states"] == 0 and "matrix" in v.empty_text()


def test_layout_without_positions_and_auto_layout(qtbot):
    doc = ProjectDocument(Project(name="random"))
    doc.project.add_mdp(random_mdp(6, 2, 3, seed=3))
    v = _view(qtbot, doc, "mdp-1")
    xs = [item.pos().x() for item in v.state_items.values()]
    ys = [item.pos().y() for item in v.state_items.values()]
    assert np.ptp(xs) > 100 and np.ptp(ys) > 100  # spread out, not stacked
    v.auto_layout()
    model = doc.model("mdp-1")
    assert all(model.position(s) is not None for s in model.state_ids)
    assert doc.undo_stack.undoText() == "Automatic layout"


def test_zoom_and_fit(qtbot, example_doc):
    v = _view(qtbot, example_doc, "four-startups")
    v.fit_to_view()
    fitted = v.transform().m11()
    centre = QPointF(v.viewport().rect().center())
    event = QWheelEvent(centre, v.viewport().mapToGlobal(centre), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    v.wheelEvent(event)
    assert v.transform().m11() > fitted * 1.2
    qtbot.keyClick(v, Qt.Key.Key_F)
    assert abs(v.transform().m11() - fitted) < 1e-6


def test_item_types(qtbot, example_doc):
    v = _view(qtbot, example_doc, "four-startups")
    assert all(isinstance(i, ActionItem) for i in v.action_items.values())
    assert all(isinstance(e, EdgeItem) for e in v.edge_items)


def test_adding_states_does_not_move_the_view(qtbot, example_doc):
    """Issue: the view jumped after each added state (it refitted the drawing)."""
    v = _view(qtbot, example_doc, "four-startups")
    v.fit_to_view()
    qtbot.wait(20)
    before = (v.transform().m11(), v.mapToScene(v.viewport().rect().center()))
    for i in range(3):  # far outside the drawing: a refit would zoom out
        v.add_state_at((2000.0 + 300 * i, 1500.0))
    qtbot.wait(20)
    after = (v.transform().m11(), v.mapToScene(v.viewport().rect().center()))
    assert after[0] == pytest.approx(before[0])
    assert (after[1] - before[1]).manhattanLength() < 1.0


def test_action_dots_stay_put_after_a_transition_edit(qtbot, example_doc):
    """A transition edit used to re-aim the edited action's dot (and its neighbours'), so
    the next click on it landed on empty canvas; the dots move only with their state."""
    from gui.shell.commands import MoveStatesCommand

    v = _view(qtbot, example_doc, "four-startups")
    before = {aid: item.pos() for aid, item in v.action_items.items()}
    # send most of acquire 1 to success: the dot was drawn toward failure
    example_doc.push(SetProbabilityCommand(example_doc, "four-startups", "ac-1", "st-2", 0.95))
    example_doc.push(SetProbabilityCommand(example_doc, "four-startups", "ac-1", "st-3", 0.04))
    qtbot.wait(50)
    after = {aid: item.pos() for aid, item in v.action_items.items()}
    assert after == before
    # the item under the old place is still that action's dot
    hit = [i for i in v.scene().items(before["ac-1"]) if isinstance(i, ActionItem)]
    assert hit and hit[0].action_id == "ac-1"
    # moving its state moves the dots with it
    moved = MoveStatesCommand(example_doc, "four-startups", {"st-1": (-200.0, 40.0)})
    example_doc.push(moved)
    qtbot.wait(50)
    assert v.action_items["ac-1"].pos() != before["ac-1"]
