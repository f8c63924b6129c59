"""MdpView: the drawing follows the document; large models stay readable."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent

from core.examples import example2, random_mdp
from core.project import Project
from gui.commands import ReplaceMdpCommand
from gui.document import ProjectDocument
from gui.editors.mdp_view import MAX_EDGES, MIN_PROBABILITY, MdpView


def _view(qtbot, doc, mdp_id):
    v = MdpView(doc, mdp_id)
    qtbot.addWidget(v)
    v.resize(800, 500)
    v.show()
    qtbot.waitExposed(v)
    return v


def test_four_startups_items(qtbot, example_doc):
    v = _view(qtbot, example_doc, "four-startups")
    mdp = example_doc.mdp_entry("four-startups").mdp
    counts = v.item_counts()
    assert counts["states"] == 3
    assert counts["actions"] == 6  # acquire_1..4 in start, stay in success and failure
    assert counts["edges"] == int((mdp.P[mdp.mask] >= MIN_PROBABILITY).sum()) == 18
    # the initial state has the thick outline
    widths = {s: item.pen().widthF() for s, item in v.state_items.items()}
    assert widths[mdp.initial_state] > max(w for s, w in widths.items() if s != 0)
    assert "probability" in v.legend_text()


def test_example2_is_thinned_and_says_so(qtbot, example_doc):
    v = _view(qtbot, example_doc, "example-2")
    counts = v.item_counts()
    assert counts["states"] == 20
    assert counts["actions"] == 100
    assert 0 < counts["edges"] <= MAX_EDGES
    assert "most probable" in v.legend_text()
    assert v.hidden_edges == 2000 - counts["edges"]


def test_items_follow_the_document(qtbot, example_doc):
    doc = example_doc
    v = _view(qtbot, doc, "four-startups")
    doc.push(ReplaceMdpCommand(doc, "four-startups", example2()))
    assert v.item_counts()["states"] == 20
    assert v.item_counts()["actions"] == 100
    doc.undo_stack.undo()
    assert v.item_counts()["states"] == 3
    assert v.item_counts()["actions"] == 6


def test_empty_project_shows_how_to_start(qtbot):
    doc = ProjectDocument(Project(name="empty"))
    v = _view(qtbot, doc, None)
    assert v.item_counts() == {"states": 0, "actions": 0, "edges": 0}
    assert "no MDP" in v.empty_text()
    assert "File ▸ Open" in v.empty_text()


def test_large_model_compact_mode(qtbot):
    doc = ProjectDocument(Project(name="big"))
    doc.project.add_mdp(random_mdp(50, 3, 5, seed=1))
    v = _view(qtbot, doc, "mdp-1")
    counts = v.item_counts()
    assert counts["states"] == 50
    assert counts["actions"] == 0
    assert counts["edges"] <= 50
    assert "Compact view" in v.legend_text()


def test_layout_without_positions_uses_networkx(qtbot):
    doc = ProjectDocument(Project(name="random"))
    doc.project.add_mdp(random_mdp(6, 2, 3, seed=3))
    v = _view(qtbot, doc, "mdp-1")
    xs = [item.pos().x() for item in v.state_items.values()]
    ys = [item.pos().y() for item in v.state_items.values()]
    assert np.ptp(xs) > 100 and np.ptp(ys) > 100  # spread out, not stacked


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
