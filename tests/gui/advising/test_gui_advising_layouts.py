"""The advising workspace's layout presets (one different action; cases 2 and 3) and
Experiment 1 on its own layout."""

from __future__ import annotations

import numpy as np
import pytest

from core.advising.experiments import run_experiment
from core.advising.presets import experiment_arms, layout_action_sets, preset
from core.project.model import Project
from gui.advising.panel import AdvisingPanel
from gui.advising.parts import KIND_TITLES
from gui.shell.document import ProjectDocument


@pytest.fixture
def panel(qtbot):
    doc = ProjectDocument(Project(name="layouts"))
    p = AdvisingPanel(doc)
    qtbot.addWidget(p)
    p.resize(1200, 850)
    yield doc, p
    p.shutdown()


@pytest.mark.parametrize("name", ["one-different", "nested"])
def test_layout_presets_load_their_sets(panel, name) -> None:
    doc, p = panel
    assert name in p.preset_buttons
    p.preset_buttons[name].click()
    got = [list(a) for a in doc.project.advising[0].action_sets]
    assert got == layout_action_sets(name)
    assert doc.project.advising[0] == preset(name, strategy="dp")


def test_experiment1_on_its_own_layout(qtbot, panel) -> None:
    doc, p = panel
    p.load_preset("exp1")
    f = p.fields["epochs"]
    f.edit.setText("30")
    f.edit.editingFinished.emit()
    p.set_run_options(kind="exp1-one-different", seeded=True, seed=2, seeds=3, workers=1)
    with qtbot.waitSignal(p.runner.finished, timeout=30000):
        assert p.run(), p.run_error_label.text()
    rec = doc.project.runs[-1]
    assert rec.params["run"] == "exp1-one-different"
    assert rec.params["experiment"] == KIND_TITLES["exp1-one-different"]
    layouts = [a["layout"] for a in rec.params["arms"]]
    assert layouts == ["same", "same", "one-different"]
    want = run_experiment(experiment_arms("exp1", layout="one-different", epochs=30), seeds=3,
                          seed=2, workers=1)
    x, y = p.results.curve_items["dp"].getData()
    assert np.allclose(y, 100 * want.mean_ci("convergence")[0][2], atol=1e-12)
    ids = {c["id"]: c for c in rec.summary["claims"]}
    assert "one-different" in ids["exp1-equal-traditional"]["ours"]
