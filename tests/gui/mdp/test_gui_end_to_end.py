"""A 3-state MDP drawn in the GUI, analysed from the GUI, results on the drawing, kept."""

from __future__ import annotations

import pytest
from mdp_drawing import draw_three_states, set_probability

from core.project.model import Project


def test_drawn_mdp_analysed_end_to_end(qtbot, window, tmp_path):
    window.new_action.trigger()
    ws = window.active_workspace()
    ids = draw_three_states(ws)
    doc = window.document
    panel = ws.analysis_panel
    panel.set_parameters(ks="10, 1000", runs=3, workers=1, seed=11)
    with qtbot.waitSignal(ws.runner.succeeded, timeout=30000):
        assert window.run_analysis()
    (sweep,) = doc.project.runs
    assert sweep.kind == "sweep" and not ws.results.is_empty
    # one private model at k = 100: π̄ and per-state bounds on the drawing
    panel.bounds_k_spin.setValue(100.0)
    with qtbot.waitSignal(ws.runner.succeeded, timeout=30000):
        assert window.run_bounds()
    bounds = doc.project.runs[-1]
    assert bounds.kind == "bounds" and bounds.seed == 11 and bounds.mode == "experiment"
    s = bounds.summary
    assert s["state_ids"] == [ids["a"], ids["b"], ids["c"]]
    assert s["policy_ids"][0] == [ids["go"], ids["stay_b"], ids["stay_c"]]
    assert len(s["v_lower"]) == 2 and s["stages_kept"] == 2
    assert bounds.params["k"] == 100.0 and bounds.params["model_digest"] == doc.digest("mdp-1")
    for t in range(2):
        lo, vp, hi = (s[k][t] for k in ("v_lower", "v_private", "v_upper"))
        assert all(lo[i] <= vp[i] + 1e-9 <= hi[i] + 2e-9 for i in range(3))
    view = ws.mdp_view
    overlay = view.overlay
    assert overlay is not None and not overlay["stale"] and overlay["stage"] == 0
    assert view.action_items[ids["go"]].chosen
    assert "private policy" in view.legend_text()
    assert ws.editor.stage_slider.isVisibleTo(ws) and ws.editor.stage_slider.maximum() == 1
    ws.editor.set_stage(1)
    assert view.overlay["stage"] == 1
    assert any("run-2 recorded: bounds" in m for _, m in window.log_panel.messages())
    # kept with the project, not recomputed
    path = tmp_path / "drawn.privplan.json"
    assert window.save_to(path)
    window.new_action.trigger()
    assert window.open_path(path)
    ws = window.active_workspace()
    assert [r.kind for r in doc.project.runs] == ["sweep", "bounds"]
    assert ws.mdp_view.overlay is not None and ws.mdp_view.overlay["record"].id == "run-2"
    assert ws.mdp_view.action_items[ids["go"]].chosen and not ws.results.is_empty
    # an edit after the run: the overlay says it is stale instead of recomputing
    ws.editor.select_ids([ids["go"]])
    set_probability(ws.inspector, "b", "0.7")
    set_probability(ws.inspector, "c", "0.3")
    assert doc.is_valid("mdp-1") and ws.mdp_view.overlay["stale"]
    assert "model changed" in ws.mdp_view.legend_text()
    assert len(doc.project.runs) == 2
    window.undo_action.trigger()
    window.undo_action.trigger()
    assert not ws.mdp_view.overlay["stale"]


def test_bounds_of_a_large_model_keep_stage_zero(qtbot):
    from core.mdp.examples import random_mdp
    from core.mdp.private_policy import ALL_STAGES_MAX_CELLS
    from gui.shell.document import ProjectDocument
    from gui.shell.main_window import MainWindow

    project = Project(name="big")
    S = 320
    T = ALL_STAGES_MAX_CELLS // S + 1
    project.add_mdp(random_mdp(S, 2, T, seed=1), "big")
    w = MainWindow(ProjectDocument(project), use_settings=False)
    qtbot.addWidget(w)
    ws = w.active_workspace()
    # many of its entries are below the default eta = 1e-3: the panel's default rule 'mix'
    # covers them (under 'refuse' the run would stop)
    assert ws.analysis_panel.parameters().domain_rule == "mix"
    with qtbot.waitSignal(ws.runner.succeeded, timeout=60000):
        assert w.run_bounds()
    s = w.document.project.runs[-1].summary
    assert s["stages_kept"] == 1 and len(s["policy"]) == 1 and len(s["policy"][0]) == S
    m = ws.editor.matrix.matrix
    assert m.columns()[-4:] == ("π̄", "v\u0332", "V\u0304", "v\u0304")
    stars = sum(m.data(m.index(r, m.columns().index("π̄"))) == "★" for r in range(2 * S))
    assert stars == S
    w.discard_and_close()


@pytest.mark.parametrize("kind", ["sweep", "bounds"])
def test_project_tree_shows_runs_of_each_kind(qtbot, window, kind):
    ws = window.active_workspace()
    ws.analysis_panel.set_parameters(ks="10", runs=2, workers=1)
    with qtbot.waitSignal(ws.runner.succeeded, timeout=30000):
        assert (window.run_analysis() if kind == "sweep" else window.run_bounds())
    run_id = window.document.project.runs[-1].id
    ws.editor.show_results(None)
    window.project_panel.run_activated.emit(run_id)
    if kind == "bounds":
        assert ws.editor.results_run == run_id
    else:
        assert ws.results.run_id == run_id
