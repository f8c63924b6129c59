"""A large sparse model in the editor: matrix, summary, support histogram, search,
neighbourhood; the Inspector edits its sparse rows; F6 runs on it in the worker."""

from __future__ import annotations

import numpy as np
import pytest

from core.mdp.examples import sparse_random_mdp
from core.project.model import Project
from gui.mdp.editor import MdpEditor
from gui.mdp.scale_panel import NEIGHBOURS, support_histogram
from gui.shell.commands import SetProbabilityCommand
from gui.shell.document import ProjectDocument, mdp_stack_key


@pytest.fixture
def doc() -> ProjectDocument:
    d = ProjectDocument(Project(name="scale"))
    d.project.add_mdp(sparse_random_mdp(20_000, 3, 4, 3, seed=4), "big")
    return d


def test_a_large_model_opens_as_matrix_with_the_scale_panel(qtbot, doc) -> None:  # noqa: ANN001
    ed = MdpEditor(doc, "big")
    qtbot.addWidget(ed)
    assert ed.view == "matrix" and ed.scale_panel is not None
    model = doc.model("big")
    assert model.is_sparse
    text = ed.scale_panel.summary.text()
    assert "20,000" in text and "60,000" in text and "240,000" in text and "valid" in text
    sizes, counts = support_histogram(model)
    assert sizes.tolist() == [4] and counts.tolist() == [60_000]
    assert len(ed.scale_panel.histogram.getPlotItem().listDataItems()) + len(
        ed.scale_panel.histogram.getPlotItem().items) > 0


def test_find_selects_the_state_and_draws_its_neighbourhood(qtbot, doc) -> None:  # noqa: ANN001
    ed = MdpEditor(doc, "big")
    qtbot.addWidget(ed)
    panel = ed.scale_panel
    panel.search.setText("s12345")
    sid = panel.find_state()
    model = doc.model("big")
    assert sid == model.state_ids[12345]
    sel = ed.selection()
    assert sel.actions and all(model.state_of(a) == sid for a in sel.actions)
    # the neighbourhood: the state, 3 action dots, 4 next states each (<= NEIGHBOURS)
    targets = panel.neighbourhood._targets
    assert 0 < len(targets) <= 3 * NEIGHBOURS
    cols, _ = model.row_entries(12345, 0)
    assert set(model.state_ids[int(c)] for c in cols) <= set(targets.values())
    panel.search.setText("no such state")
    assert panel.find_state() is None and "no state" in panel.status.text()


def test_editing_a_sparse_row_is_undoable_and_revalidates(qtbot, doc) -> None:  # noqa: ANN001
    ed = MdpEditor(doc, "big")
    qtbot.addWidget(ed)
    model = doc.model("big")
    aid, tgt = model.action_ids[7][0], model.state_ids[0]
    before = model.row(aid)
    doc.push(SetProbabilityCommand(doc, "big", aid, tgt, 0.5), mdp_stack_key("big"))
    assert model.row(aid)[tgt] == 0.5
    assert "invalid" in ed.scale_panel.summary.text()
    doc.stack(mdp_stack_key("big")).undo()
    assert model.row(aid) == before
    assert np.isclose(model.row_sums()[7, 0], 1.0)
