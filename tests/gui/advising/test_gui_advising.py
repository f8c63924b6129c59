"""The DP-advising workspace: set-up editing (undoable, validated), runs, results, records."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from core.advising.experiments import run_experiment
from core.advising.framework import run_advising
from core.advising.presets import experiment_arms, preset
from core.project.files import dumps_project
from core.project.model import Project
from gui.advising.panel import AdvisingPanel
from gui.advising.parts import TARGET, worked_example_setup
from gui.shell.document import ProjectDocument

CHECKED = Qt.CheckState.Checked.value
UNCHECKED = Qt.CheckState.Unchecked.value
EDIT = Qt.ItemDataRole.EditRole
CHECK = Qt.ItemDataRole.CheckStateRole


@pytest.fixture
def doc():
    return ProjectDocument(Project(name="advising test"))


@pytest.fixture
def panel(qtbot, doc):
    p = AdvisingPanel(doc)
    qtbot.addWidget(p)
    p.resize(1200, 850)
    yield p
    p.shutdown()


def commit(panel: AdvisingPanel, name: str, text: str) -> None:
    """Type into a parameter field and leave it (Enter)."""
    f = panel.fields[name]
    f.edit.setText(text)
    f.edit.editingFinished.emit()


def run_and_wait(qtbot, panel: AdvisingPanel, timeout: int = 20000) -> None:
    with qtbot.waitSignal(panel.runner.finished, timeout=timeout):
        assert panel.run(), panel.run_error_label.text()


# ---------------------------------------------------------------------------- opening
def test_tab_opens_with_table35_preset(panel, doc):
    assert doc.project.advising == [preset("table35")]
    # opening a tab is not an edit: no undo step, the project stays unmodified
    assert doc.undo_stack.count() == 0
    assert not doc.is_dirty
    s = panel.setup
    assert (s.name, s.n_agents, s.n_servers, s.n_tasks) == ("table35", 10, 12, 10)
    m = panel.action_model
    assert (m.rowCount(), m.columnCount()) == (10, 12)
    for j in range(10):
        for k in range(12):
            want = Qt.CheckState.Checked if k in s.action_sets[j] else Qt.CheckState.Unchecked
            assert m.data(m.index(j, k), CHECK) == want
    r = panel.reward_model
    assert r.data(r.index(0, 0), Qt.ItemDataRole.DisplayRole) == "2"
    assert r.data(r.index(0, 1), Qt.ItemDataRole.DisplayRole) == "0"
    assert panel.fields["epsilon"].edit.text() == "1"
    assert panel.strategy_combo.currentData() == "dp"
    assert panel.variant_combo.currentData() == "sound"
    # the empty results teach; the worked example is always there
    assert panel.results.curves_page.is_empty
    assert panel.results.worked_tables["3.1"].rowCount() == 4
    # there is nothing to undo: the preset is what an unedited project shows
    assert not doc.undo_stack.canUndo()
    assert panel.setup.name == "table35"


def test_tool_opens_in_main_window(window):
    from gui.shell.tools import TOOLS

    assert TOOLS["advising"].title == "DP Advising"
    w = window.open_tool("advising")
    assert isinstance(w, AdvisingPanel)
    assert window.tabs.tabText(window.tabs.currentIndex()) == "DP Advising"
    assert window.document.project.advising[0].name == "table35"
    assert window.params_stack.currentWidget() is w.info_panel
    assert w.info_panel.isVisible() and w.kind_combo.isVisible()
    # one Run/Cancel that follows the active tab (Workspace protocol): F5 runs this tab
    assert window.current_tool() is w
    assert window.run_action.isEnabled() and not window.cancel_action.isEnabled()
    assert window.run_action.shortcut().toString() == "F5"


# ---------------------------------------------------------------------------- presets
@pytest.mark.parametrize("name", ["exp1", "exp2", "exp3", "fig32", "table35"])
def test_presets_set_the_grids(qtbot, panel, doc, name):
    if name == "table35":
        panel.load_preset("exp1")
    with qtbot.waitSignal(doc.advising_changed):
        panel.preset_buttons[name].click()
    want = preset(name, strategy="dp")
    assert doc.project.advising[0] == want
    s = panel.setup
    assert s.action_sets == want.action_sets
    assert np.array_equal(s.rewards, want.rewards)
    m = panel.action_model
    assert (m.rowCount(), m.columnCount()) == (want.n_agents, want.n_servers)
    for j in range(want.n_agents):
        on = [k for k in range(want.n_servers)
              if m.data(m.index(j, k), CHECK) == Qt.CheckState.Checked]
        assert sorted(on) == sorted(want.action_sets[j])
    r = panel.reward_model
    shown = [[float(r.data(r.index(t, k), Qt.ItemDataRole.DisplayRole))
              for k in range(want.n_servers)] for t in range(want.n_tasks)]
    assert np.array_equal(shown, want.rewards)
    if name in ("exp1", "exp2", "exp3"):
        assert panel.run_kind == name
    else:
        assert panel.run_kind == "single"
    if name == "exp1":  # DP advising in Exp. 1: each agent one different server (sunflower)
        assert [s.servers[k] for k in s.action_sets[1]] == ["A", "B", "C", "E"]
    doc.undo_stack.undo()
    assert doc.project.advising[0].name != name or name == "table35"


def test_worked_example_button(panel, doc):
    panel.preset_buttons["worked"].click()
    assert doc.project.advising[0] == worked_example_setup()
    res = panel.results
    assert res.tabs.currentWidget() is res.worked_page
    assert [res.worked_tables[k].rowCount() for k in ("3.1", "3.2", "3.3", "3.4")] == [4] * 4
    assert res.worked_tables["3.2"].item(3, 0).text() == "E"
    assert "neighbouring datasets" in res.worked_label.text()


# ---------------------------------------------------------------------------- bad input
def test_bad_reward_cell_refused(panel, doc):
    before = copy.deepcopy(doc.project.advising)
    count = doc.undo_stack.count()
    r = panel.reward_model
    ix = r.index(0, 1)  # task 1, server B
    assert not r.setData(ix, "abc", EDIT)
    assert doc.project.advising == before
    assert doc.undo_stack.count() == count
    assert r.data(ix, Qt.ItemDataRole.DisplayRole) == "abc"
    assert r.data(ix, Qt.ItemDataRole.BackgroundRole) is not None
    assert "must be a number" in r.data(ix, Qt.ItemDataRole.ToolTipRole)
    assert not panel.reward_message.isHidden()
    assert "Not applied" in panel.reward_message.text()
    assert "must be a number" in panel.reward_message.text()
    # the run refuses while a refused value is shown
    assert not panel.run()
    assert "reward cell" in panel.run_error_label.text()
    # a number the core refuses: task 1's only rewarding server set to 0
    assert not r.setData(r.index(0, 0), "0", EDIT)
    assert doc.project.advising == before
    assert "no server with reward > 0" in panel.reward_message.text()
    # non-finite numbers are refused too
    assert not r.setData(r.index(0, 2), "inf", EDIT)
    assert doc.project.advising == before
    # a valid value is applied (one undoable command) and clears the red cells
    assert r.setData(ix, "0.5", EDIT)
    assert doc.undo_stack.count() == count + 1
    assert doc.project.advising[0].rewards[0][1] == 0.5
    assert r.invalid_cells == {}
    assert panel.reward_message.isHidden()


@pytest.mark.parametrize("name,text,words", [
    ("epsilon", "0", "> 0"), ("epsilon", "-1", "> 0"), ("epsilon", "abc", "must be a number"),
    ("distance_threshold", "-0.1", ">= 0"), ("epochs", "0", ">= 1"),
    ("ask_budget", "2.5", "integer"), ("alpha", "1.5", "(0, 1]")])
def test_bad_parameter_refused_inline(panel, doc, name, text, words):
    before = copy.deepcopy(doc.project.advising)
    count = doc.undo_stack.count()
    commit(panel, name, text)
    f = panel.fields[name]
    assert f.has_error
    assert "Not applied" in f.error.text() and words in f.error.text()
    assert doc.project.advising == before
    assert doc.undo_stack.count() == count
    assert not panel.run()
    assert "red fields" in panel.run_error_label.text()
    # fixing it applies the value and clears the message
    good = {"epsilon": "0.5", "distance_threshold": "0.2", "epochs": "50",
            "ask_budget": "3", "alpha": "0.25"}[name]
    commit(panel, name, good)
    assert not f.has_error
    assert doc.undo_stack.count() == count + 1
    assert float(doc.project.advising[0].to_dict()["params"][name]) == float(good)


def test_validated_as_you_type(panel):
    f = panel.fields["epsilon"]
    f.edit.setText("-2")
    f.edit.textEdited.emit("-2")
    assert f.has_error and "ε" in f.error.text()
    f.edit.setText("2")
    f.edit.textEdited.emit("2")
    assert not f.has_error


def test_empty_action_set_refused(panel, doc):
    panel.load_preset("worked")  # i = [A, B, C, D], j = [A, B, C, E], only A rewards
    m = panel.action_model
    for k in (1, 2, 3):  # forbid B, C, D for agent i: still valid
        assert m.setData(m.index(0, k), UNCHECKED, CHECK)
    assert panel.setup.action_sets[0] == (0,)
    before = copy.deepcopy(doc.project.advising)
    assert not m.setData(m.index(0, 0), UNCHECKED, CHECK)  # the last server
    assert doc.project.advising == before
    assert "empty" in panel.action_message.text()
    assert m.data(m.index(0, 0), CHECK) == Qt.CheckState.Checked


# ---------------------------------------------------------------------------- undo / redo
def test_undo_redo_of_grid_and_parameter_edits(qtbot, panel, doc):
    m = panel.action_model
    ix = m.index(0, 4)  # u1, server E
    assert m.data(ix, CHECK) == Qt.CheckState.Unchecked
    with qtbot.waitSignal(doc.advising_changed):
        assert m.setData(ix, CHECKED, CHECK)
    assert panel.setup.action_sets[0] == (0, 1, 2, 3, 4)
    assert m.data(ix, CHECK) == Qt.CheckState.Checked
    assert "Allow server E for u1" == doc.undo_stack.undoText()
    doc.undo_stack.undo()
    assert panel.setup.action_sets[0] == (0, 1, 2, 3)
    assert m.data(ix, CHECK) == Qt.CheckState.Unchecked
    doc.undo_stack.redo()
    assert m.data(ix, CHECK) == Qt.CheckState.Checked
    # reward edit
    r = panel.reward_model
    assert r.setData(r.index(2, 5), "1.5", EDIT)
    assert r.data(r.index(2, 5), Qt.ItemDataRole.DisplayRole) == "1.5"
    doc.undo_stack.undo()
    assert r.data(r.index(2, 5), Qt.ItemDataRole.DisplayRole) == "0"
    # parameter, strategy and variant edits
    commit(panel, "epsilon", "0.25")
    assert panel.setup.params.epsilon == 0.25
    doc.undo_stack.undo()
    assert panel.setup.params.epsilon == 1.0
    assert panel.fields["epsilon"].edit.text() == "1"
    panel.variant_combo.setCurrentIndex(panel.variant_combo.findData("thesis"))
    panel.variant_combo.activated.emit(panel.variant_combo.currentIndex())
    p = panel.setup.params
    assert (p.sensitivity, p.noise_on_identical_sets, p.variant) == (1.0, False, "thesis")
    assert "2-DP" in panel.sensitivity_label.text()
    doc.undo_stack.undo()
    assert panel.setup.params.variant == "sound"
    assert panel.variant_combo.currentData() == "sound"
    panel.strategy_combo.setCurrentIndex(panel.strategy_combo.findData("none"))
    panel.strategy_combo.activated.emit(panel.strategy_combo.currentIndex())
    assert panel.setup.params.strategy == "none"


def test_add_and_remove_agents_servers_tasks(panel, doc):
    panel.add_agent_button.click()
    assert panel.setup.n_agents == 11 and panel.setup.agents[-1] == "u11"
    panel.add_server_button.click()
    assert panel.setup.n_servers == 13 and panel.setup.servers[-1] == "M"
    panel.add_task_button.click()
    assert panel.setup.n_tasks == 11
    panel.remove_task_button.click()
    panel.remove_server_button.click()
    panel.remove_agent_button.click()
    assert doc.project.advising[0] == preset("table35")
    for _ in range(6):
        doc.undo_stack.undo()
    assert doc.project.advising[0] == preset("table35")


# ---------------------------------------------------------------------------- runs
def test_single_run_matches_core_and_is_recorded(qtbot, panel, doc):
    commit(panel, "epochs", "40")
    panel.set_run_options(kind="single", seeded=True, seed=5)
    assert "seeded experiment (seed 5)" in panel.randomness_label()
    run_and_wait(qtbot, panel)
    expected = run_advising(panel.setup, rng=5)
    res = panel.results
    label = "dp (ε = 1)"
    x, y = res.curve_items[label].getData()
    assert np.array_equal(x, np.arange(1, 41))
    assert np.allclose(y, 100 * expected.convergence, rtol=0, atol=1e-12)
    # the record: kind, target, seed, mode, small summary; undoable
    rec = doc.project.runs[-1]
    assert (rec.kind, rec.target, rec.mode, rec.seed) == ("advise", TARGET, "experiment", 5)
    assert rec.params["seeded"] is True and rec.params["variant"] == "sound"
    assert np.allclose(rec.summary["convergence"], expected.convergence, atol=1e-6)
    assert rec.summary["advice_total"] == expected.advice_total
    assert rec.summary["privacy"]["basic"] == pytest.approx(expected.epsilon_spent.tolist())
    assert "seeded experiment" in res.caption.text() and rec.id in res.caption.text()
    json.loads(dumps_project(doc.project))  # JSON-safe (no NaN, no numpy)
    # ledger, timeline and budgets of the fresh run
    assert res.ledger_table.rowCount() == 10
    assert res.ledger_table.horizontalHeaderItem(7).text().startswith("ε RDP")
    assert "basic" in res.ledger_table.horizontalHeaderItem(5).toolTip()
    n_events = sum(len(item.getData()[0]) for item in res.timeline_items.values())
    assert n_events == expected.advice_total
    assert res.events_table.rowCount() == expected.advice_total
    assert len(res.budget_items) == 30
    # sound: every ε finite, the ledger statement gives ε per advice query
    assert "ε per advice query (per candidate teacher): <b>1</b>" in res.ledger_statement.text()
    assert all(res.ledger_table.item(r, 5).text() != "unbounded" for r in range(10))
    # the project's privacy ledger: one entry per teacher, count = its noisy releases
    entries = doc.project.ledger
    assert len(entries) == 10
    assert [e.count for e in entries] == [
        a.releases for a in expected.accounting.agents]
    e0 = entries[0]
    assert (e0.dataset, e0.mechanism, e0.mode, e0.seed, e0.source) == (
        "advising:table35:u1", "laplace", "experiment", 5, rec.id)
    assert e0.epsilon == pytest.approx(expected.accounting.epsilon_per_release)
    # Ctrl+Z leaves the record and its spend; show_run re-draws a recorded run
    rid = rec.id
    doc.undo_stack.undo()
    assert any(r.id == rid for r in doc.project.runs)
    assert len(doc.project.ledger) == 10
    res.clear()
    assert panel.show_run(rid)
    x2, y2 = res.curve_items[label].getData()
    assert np.allclose(y2, 100 * expected.convergence, atol=1e-4)
    assert res.timeline_page.is_empty


def test_thesis_variant_shows_unbounded_epsilon_with_the_reason(qtbot, panel, doc):
    """raw releases (identical sets share raw Q-values; advice drawn from
    the teacher's raw policy) make a teacher's ε unbounded — shown as "unbounded" with the
    reason, in the ledger table, the budget table and the project ledger, never 0."""
    idx = panel.variant_combo.findData("thesis")
    panel.variant_combo.setCurrentIndex(idx)
    panel.variant_combo.activated.emit(idx)
    assert panel.setup.params.variant == "thesis"
    assert panel.setup.params.advice_prior == "teacher"
    assert "unbounded" in panel.sensitivity_label.text()
    commit(panel, "epochs", "40")
    panel.set_run_options(kind="single", seeded=True, seed=2)
    run_and_wait(qtbot, panel)
    expected = run_advising(panel.setup, rng=2)
    res = panel.results
    assert np.isinf(expected.epsilon_spent).all()
    for r in range(10):
        for c in (5, 6, 7):
            assert res.ledger_table.item(r, c).text() == "unbounded"
        assert "no finite epsilon" in res.ledger_table.item(r, 5).toolTip()
        assert res.budget_table.item(r, 7).text() == "unbounded"
        assert res.budget_table.item(r, 7).toolTip() == expected.epsilon_spent_reasons[r]
    assert "unbounded" in res.ledger_statement.text()
    rec = doc.project.runs[-1]
    assert rec.summary["privacy"]["basic"] == [None] * 10
    assert rec.summary["privacy"]["basic_reason"] == expected.epsilon_spent_reasons
    raw = [e for e in doc.project.ledger if e.unbounded]
    assert sum(e.count for e in raw) == expected.unprotected_per_epoch.sum() > 0
    assert {e.parameters["kind"] for e in raw} == {"raw_q", "raw_policy"}
    json.loads(dumps_project(doc.project))
    # a recorded run re-draws the same "unbounded" cells from its stored summary
    res.clear()
    assert panel.show_run(rec.id)
    assert res.ledger_table.item(0, 5).text() == "unbounded"


def test_release_mode_single_run(qtbot, panel, doc):
    commit(panel, "epochs", "15")
    panel.set_run_options(kind="single", seeded=False)
    assert panel.randomness_label().startswith("release mode")
    assert "release" in panel.mode_label.text()
    run_and_wait(qtbot, panel)
    rec = doc.project.runs[-1]
    assert (rec.mode, rec.seed, rec.params["seeded"]) == ("release", None, False)
    assert doc.project.ledger and all(e.mode == "release" for e in doc.project.ledger)
    assert "release mode" in panel.results.caption.text()
    assert "release mode" in panel.results.ledger_statement.text()


def test_experiment_run_curves_ci_and_claims(qtbot, panel, doc):
    panel.load_preset("exp2")
    commit(panel, "epochs", "30")
    panel.set_run_options(kind="exp2", seeded=True, seed=3, seeds=3, workers=1)
    run_and_wait(qtbot, panel)
    want = run_experiment(experiment_arms("exp2", epochs=30), seeds=3, seed=3, workers=1)
    m, h = want.mean_ci("convergence")
    res = panel.results
    assert list(res.curve_items) == ["no advice", "traditional", "dp"]
    for a, label in enumerate(want.labels):
        x, y = res.curve_items[label].getData()
        assert np.allclose(y, 100 * m[a], atol=1e-12)
    assert "dp" in res.bands and isinstance(res.bands["dp"], object)
    lo, hi = res.bands["dp"].curves[0].getData()[1], res.bands["dp"].curves[1].getData()[1]
    # the 95 % CI, clipped to what a convergence ratio can be (at most 100 %)
    assert np.allclose(lo, 100 * (m[2] - h[2]), atol=1e-9)
    assert np.allclose(hi, np.minimum(100 * (m[2] + h[2]), 100.0), atol=1e-9)
    assert set(res.delta_items) == {"traditional", "dp"}
    rec = doc.project.runs[-1]
    assert rec.kind == "advise-experiment" and rec.mode == "experiment" and rec.seed == 3
    assert rec.params["seeds"] == [3, 4, 5] and rec.params["run"] == "exp2"
    assert [a["label"] for a in rec.summary["arms"]] == list(want.labels)
    assert {c["experiment"] for c in rec.summary["claims"]} == {"exp2"}
    # seeded experiments are listed in the ledger (mode "experiment"): the DP arm's noisy
    # releases, and traditional advising's raw ones as unbounded entries (never free)
    noisy = [e for e in doc.project.ledger if not e.unbounded]
    raw = [e for e in doc.project.ledger if e.unbounded]
    assert sum(e.count for e in noisy) == int(want.releases[2].sum())
    assert sum(e.count for e in raw) == int(want.unprotected.sum()) > 0
    assert all(e.reason for e in raw)
    assert {e.mode for e in doc.project.ledger} == {"experiment"}
    json.loads(dumps_project(doc.project))
    # the traditional arm's worst teacher is unbounded (with the reason), never 0
    row = list(want.labels).index("traditional")
    assert res.ledger_table.item(row, 7).text() == "unbounded"
    assert "raw" in res.ledger_table.item(row, 7).toolTip()
    assert res.ledger_table.item(list(want.labels).index("dp"), 7).text() != "unbounded"
    arm = rec.summary["arms"][row]
    assert arm["privacy"]["worst_basic"] is None and arm["privacy"]["worst_basic_reason"]
    # the claims table: exp2 claims have verdicts, the others are "not run"
    verdicts = [res.claims_table.item(r, 4).text() for r in range(res.claims_table.rowCount())]
    assert len(verdicts) == 12
    assert verdicts.count("not run") == 9
    assert set(verdicts) - {"not run"} <= {"reproduced", "partly", "not reproduced"}
    assert not res.claims_page.is_empty
    assert res.ledger_table.rowCount() == 3
    assert "seeds 3–5" in res.caption.text()


def test_exp3_fills_the_epsilon_sweep(qtbot, panel, doc):
    panel.load_preset("exp3")
    commit(panel, "epochs", "25")
    panel.set_run_options(kind="exp3", seeded=True, seed=0, seeds=2, workers=1,
                          epsilons="2, 0.5")
    run_and_wait(qtbot, panel)
    res = panel.results
    assert not res.sweep_page.is_empty
    item = res.sweep_items["auc200"]
    assert np.allclose(item.xData, [0.5, 2.0])  # log-x axis: displayed at log10(ε)
    assert np.allclose(item.getData()[0], np.log10([0.5, 2.0]))
    want = run_experiment(experiment_arms("exp3", epochs=25, epsilons=(0.5, 2.0)), seeds=2,
                          seed=0, workers=1)
    assert np.allclose(item.yData, 100 * want.auc(25).mean(axis=1)[1:], atol=1e-9)
    rec = doc.project.runs[-1]
    assert rec.params["epsilons"] == [0.5, 2.0]
    assert [a["label"] for a in rec.summary["arms"]] == ["no advice", "dp eps=0.5", "dp eps=2"]


def test_epsilon_list_and_delta_validated_before_running(panel, doc):
    panel.set_run_options(kind="sweep", epsilons="0.5, -1")
    assert not panel.run()
    assert panel.epsilons_field.has_error
    panel.set_run_options(epsilons="0.5, 1", delta=2.0)
    assert not panel.run()
    assert panel.delta_field.has_error
    assert doc.project.runs == []


def test_cancel_stops_the_run(qtbot, panel, doc, monkeypatch):
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "1e6")  # a run long enough to cancel
    commit(panel, "epochs", "300000")
    panel.set_run_options(kind="single", seeded=True, seed=1)
    with qtbot.waitSignal(panel.runner.progress_changed, timeout=10000):
        assert panel.run()
    assert panel.is_running
    assert not panel.run_button.isEnabled() and panel.cancel_button.isEnabled()
    with qtbot.waitSignal(panel.runner.cancelled, timeout=10000):
        panel.cancel()
    qtbot.waitUntil(lambda: not panel.is_running, timeout=5000)
    assert doc.project.runs == []
    assert "cancelled" in panel.progress_label.text()
    assert panel.run_button.isEnabled()


def test_experiment_in_worker_processes(qtbot, panel, doc):
    panel.load_preset("exp1")
    commit(panel, "epochs", "20")
    panel.set_run_options(kind="exp1", seeded=True, seed=0, seeds=2, workers=2)
    run_and_wait(qtbot, panel, timeout=60000)
    rec = doc.project.runs[-1]
    assert rec.params["workers"] == 2
    want = run_experiment(experiment_arms("exp1", epochs=20), seeds=2, seed=0, workers=1)
    m, _ = want.mean_ci("convergence")
    _, y = panel.results.curve_items["dp"].getData()
    assert np.allclose(y, 100 * m[2], atol=1e-12)


# ---------------------------------------------------------------------------- document life
def test_project_replaced_and_invalid_stored_setup(panel, doc, tmp_path):
    # a damaged stored set-up is refused when the file is read, naming the field ...
    from core.common.errors import InputError
    from core.project.files import load_project, project_to_dict

    bad = project_to_dict(Project(name="other", advising=[preset("table35")]))
    bad["project"]["advising"][0]["agents"][0]["servers"] = ["A", "Z"]  # unknown server
    path = tmp_path / "bad.privplan.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputError, match="unknown server") as info:
        load_project(path)
    assert info.value.field.startswith("advising[0]")
    # ... and a project without one gets the Table 3.5 preset (not an edit: no undo step)
    doc.replace_project(Project(name="other"))
    assert panel.setup.name == "table35" and doc.project.advising[0].name == "table35"
    assert doc.undo_stack.count() == 0 and not doc.is_dirty
    panel.load_preset("exp2")
    assert panel.setup.name == "exp2" and doc.is_dirty
    doc.undo_stack.undo()
    assert panel.setup.name == "table35" and not doc.is_dirty
    assert panel.results.curves_page.is_empty


def test_preview_builds(qtbot):
    import gui.advising.panel as module

    w = module.preview(exec_=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.shutdown()


def test_f5_runs_and_esc_cancels_in_the_window(qtbot, window, monkeypatch):
    monkeypatch.setenv("PRIVPLAN_TIME_LIMIT_S", "1e6")  # a run long enough to cancel
    w = window.open_tool("advising")
    w.fields["epochs"].edit.setText("300000")
    w.fields["epochs"].edit.editingFinished.emit()
    w.set_run_options(kind="single", seeded=True, seed=2)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=3000)
    with qtbot.waitSignal(w.runner.started, timeout=5000):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    assert w.is_running
    with qtbot.waitSignal(w.runner.cancelled, timeout=10000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.is_running, timeout=5000)


def test_reopened_project_shows_its_latest_advising_run(qtbot, panel, doc, tmp_path):
    from core.project.files import load_project, save_project

    commit(panel, "epochs", "12")
    panel.set_run_options(kind="single", seeded=True, seed=4)
    run_and_wait(qtbot, panel)
    rid = doc.project.runs[-1].id
    path = tmp_path / "adv.privplan.json"
    save_project(doc.project, path)
    other = ProjectDocument(load_project(path))
    p2 = AdvisingPanel(other)
    qtbot.addWidget(p2)
    assert other.undo_stack.count() == 0  # the stored set-up is used as it is
    assert p2.setup.params.epochs == 12
    assert rid in p2.results.caption.text()
    assert "dp (ε = 1)" in p2.results.curve_items
    assert p2.results.timeline_page.is_empty  # per-epoch details are not stored
    p2.shutdown()


def test_next_run_line_follows_the_seeds_as_typed(panel):
    """Issue: the "Next run" line ignored the seeds actually set."""
    panel.set_run_options(kind="exp2", seeded=True)
    panel.seed_spin.setValue(40)
    panel.seeds_spin.setValue(5)
    assert "seeds 40–44" in panel.mode_label.text()
    panel.set_run_options(kind="single")
    panel.seed_spin.setValue(7)
    assert "seed 7)" in panel.mode_label.text()
