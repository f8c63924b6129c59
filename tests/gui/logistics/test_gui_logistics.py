"""The Logistics map tool: map editor (undoable, validated edits), planning, figures, ledger."""

from __future__ import annotations

import copy
import math

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from core.logistics import edits as E
from core.logistics.examples import fig41
from core.logistics.io import map_from_dict, map_to_dict
from core.logistics.model import Task
from core.logistics.planner import PlannerParams, plan_task
from gui.logistics.panel import LogisticsPanel
from gui.logistics.results import GOAL, ORIGIN
from gui.shell.document import ProjectDocument


@pytest.fixture
def panel(qtbot):
    doc = ProjectDocument()
    p = LogisticsPanel(doc)
    qtbot.addWidget(p)
    p.resize(1200, 850)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.shutdown()


@pytest.fixture
def fig_panel(panel):
    assert panel.load_fig41() == "map-1"
    return panel


def _run(qtbot, panel) -> bool:
    with qtbot.waitSignal(panel.runner.finished, timeout=20000):
        assert panel.run()
    return True


def _drag(view, start: QPointF, end: QPointF, modifiers=Qt.KeyboardModifier.NoModifier):
    vp = view.viewport()
    p0, p1 = view.mapFromScene(start), view.mapFromScene(end)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, modifiers, p0)
    for k in (1, 2, 3):
        p = p0 + (p1 - p0) * k / 3
        ev = QMouseEvent(QEvent.Type.MouseMove, QPointF(p), QPointF(vp.mapToGlobal(p)),
                         Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton, modifiers)
        QApplication.sendEvent(vp, ev)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, modifiers, p1)


# ---------------------------------------------------------------------------- opening
def test_tab_opens_from_the_window_with_a_teaching_empty_state(window, qtbot):
    w = window.open_tool("logistics")
    assert isinstance(w, LogisticsPanel)
    assert window.tabs.tabText(window.tabs.indexOf(w)) == "Logistics map"
    assert w.map_stack.currentIndex() == 0  # no map yet: the empty state with its buttons
    assert w.empty_fig41_button.text() == "fig41 (reconstruction)"
    assert window.params_stack.currentWidget() is w.info_panel
    w.empty_fig41_button.click()
    assert w.map_stack.currentIndex() == 1
    assert window.document.is_dirty
    window.close_tool("logistics")


def test_add_a_map_first_clears_once_a_map_exists(panel):
    """the refusal "add a map first" did not go away after a map was added."""
    assert not panel.run()
    assert "add a map first" in panel.planner.run_problem
    assert not panel.planner.run_message.isHidden()
    panel.empty_fig41_button.click()  # the empty state's button adds the map
    assert panel.current_entry() is not None
    assert panel.planner.run_problem == ""
    assert panel.planner.run_message.isHidden()


def test_fig41_is_added_by_an_undoable_command(panel):
    doc = panel._document
    assert panel.load_fig41() == "map-1"
    assert len(doc.project.maps) == 1 and doc.is_dirty
    d = doc.project.maps[0]
    assert d.id == "map-1" and d.world.agents == ("a", "b", "c", "d", "e", "f")
    doc.undo_stack.undo()
    assert doc.project.maps == [] and not doc.is_dirty
    assert panel.map_stack.currentIndex() == 0
    doc.undo_stack.redo()
    assert len(doc.project.maps) == 1 and panel.canvas.item_counts()["bases"] == 29


def test_scene_items_follow_the_map(fig_panel):
    p = fig_panel
    assert p.canvas.item_counts() == {"bases": 29, "centers": 6, "edges": 44, "areas": 6}
    assert p.editor.connect_nodes("a1", "a3")
    assert p.canvas.item_counts()["edges"] == 45
    assert E.edge_length(p.current_map(), "a1", "a3") > 0
    bid = p.editor.add_base("a", (0.0, 250.0), link_to="a1")
    assert bid == "a6"
    assert p.canvas.item_counts()["bases"] == 30 and p.canvas.item_counts()["edges"] == 46
    cid = p.editor.add_center({"a": "a6", "c": "c1"}, (60.0, 300.0))
    assert cid == "G" and p.canvas.item_counts()["centers"] == 7
    assert E.node(p.current_map(), "G")["agents"] == ["a", "c"]
    for _ in range(3):
        p._document.undo_stack.undo()
    assert p.canvas.item_counts() == {"bases": 29, "centers": 6, "edges": 44, "areas": 6}


def test_inspector_edits_are_commands(fig_panel):
    p = fig_panel
    doc = p._document
    n0 = doc.undo_stack.count()
    p.canvas.select(edges=[("a1", "a2")])
    assert p.editor.inspector_stack.currentIndex() == 3 and p.editor.edge_length_edit.text() == "40"
    p.editor.edge_length_edit.setText("42.5")
    p.editor.edge_length_edit.editingFinished.emit()
    assert E.edge_length(p.current_map(), "a1", "a2") == 42.5
    p.canvas.select(["E"])
    assert p.editor.center_agents_edit.text() == "c, d, e"
    p.editor.center_capacity_spin.setValue(5)
    assert E.node(p.current_map(), "E")["capacity"] == 5
    p.canvas.select(["a5"])
    assert p.editor.base_agent_combo.currentText() == "a"
    assert p.editor.rename_node("a5", "a55")
    assert "a55" in {n["id"] for n in p.current_map()["nodes"]}
    assert doc.undo_stack.count() == n0 + 3
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert p.current_map() == E.with_id(map_to_dict(fig41()), "map-1")


@pytest.mark.parametrize("edit, words", [
    (lambda p: p.editor.delete_items(edges=[("a4", "A")]), ("agent a", "disconnected")),
    (lambda p: p.editor.set_center_agents("A", "a"), ("node A", "at least 2 agents")),
    (lambda p: p.editor.set_center_capacity("E", 2), ("node E", "capacity")),
    (lambda p: p.editor.set_edge_length("a1", "a2", "-3"), ("edge a1-a2", "> 0")),
    (lambda p: p.editor.set_edge_length("a1", "a2", "long"), ("edge a1-a2", "number")),
    (lambda p: p.editor.connect_nodes("a1", "b1"), ("edge a1-b1", "areas meet only at centers")),
    (lambda p: p.editor.set_base_agent("b1", "zz"), ("zz",)),
    (lambda p: p.editor.delete_items(["f1", "f2", "f3", "f4", "f5"]), ("node F",)),
])
def test_invalid_edits_are_refused_and_leave_the_document_untouched(fig_panel, edit, words):
    p = fig_panel
    doc = p._document
    before = copy.deepcopy(doc.project.maps)
    n = doc.undo_stack.count()
    assert not edit(p)
    assert doc.project.maps == before
    assert doc.undo_stack.count() == n
    assert p.editor.message and all(w in p.editor.message for w in words), p.editor.message
    assert not p.message_label.isHidden()
    assert p.canvas.item_counts()["edges"] == 44


def test_drag_moves_a_node_in_one_command_and_delete_key_deletes(fig_panel, qtbot):
    p = fig_panel
    doc = p._document
    n = doc.undo_stack.count()
    start = p.canvas.node_position("a1")
    _drag(p.canvas, start, start + QPointF(30, 25))
    assert doc.undo_stack.count() == n + 1
    pos = E.positions(p.current_map())["a1"]
    assert pos != (start.x(), start.y())
    assert abs(pos[0] - start.x() - 30) < 3 and abs(pos[1] - start.y() - 25) < 3
    doc.undo_stack.undo()
    assert E.positions(p.current_map())["a1"] == (start.x(), start.y())
    # Shift+drag from a node to another connects them
    _drag(p.canvas, p.canvas.node_position("a1"), p.canvas.node_position("a3"),
          Qt.KeyboardModifier.ShiftModifier)
    assert E.has_edge(p.current_map(), "a1", "a3")
    # Delete deletes the selected route
    p.canvas.select(edges=[("a2", "a5")])
    p.canvas.setFocus()
    QTest.keyClick(p.canvas, Qt.Key.Key_Delete)
    assert not E.has_edge(p.current_map(), "a2", "a5")
    assert p.canvas.item_counts()["edges"] == 44


# ---------------------------------------------------------------------------- planning
def test_seeded_plan_on_fig41_draws_plan_tasks_route_and_records_run_and_ledger(fig_panel,
                                                                             qtbot):

    p = fig_panel
    doc = p._document
    heard: list[int] = []
    doc.ledger_changed.connect(lambda: heard.append(1))
    p.planner.set_task("a1", "f")
    p.planner.set_plan_options(approach="dp", preset="sound", epsilon="0.5", seeded=True, seed=5)
    _run(qtbot, p)
    assert heard  # the ledger panel refreshes
    expected, session = plan_task(fig41(), Task("a1", "f"), approach="dp",
                                  params=PlannerParams.preset_params("sound", epsilon=0.5),
                                  rng=5)
    assert expected.success
    assert p.canvas.route_ids() == list(expected.route)
    assert p.results.route_tab.canvas.route_ids() == list(expected.route)
    assert "Delivered" in p.results.banner.text()
    # the run record
    (rec,) = doc.project.runs
    assert rec.kind == "plan" and rec.target == "map-1" and rec.seed == 5
    assert rec.mode == "experiment"
    assert rec.params["task"] == {"origin": "a1", "goal_agent": "f"}
    assert rec.params["approach"] == "dp" and rec.params["epsilon"] == 0.5
    assert rec.summary["route"] == list(expected.route)
    assert rec.summary["success"] is True and rec.summary["messages"] == expected.messages
    assert set(rec.summary["ledger"]) == {a for a in session.ledgers
                                          if session.ledgers[a].entries}
    # the ledger entries, in the same undo step
    n_entries = sum(len(led.entries) for led in session.ledgers.values())
    assert len(doc.project.ledger) == n_entries == rec.summary["ledger_entries"]
    ids = [e.id for e in doc.project.ledger]
    assert len(set(ids)) == len(ids)
    assert all(e.dataset.startswith("agent:") and e.source.startswith(rec.id)
               and e.mode == "experiment" and e.seed == 5 for e in doc.project.ledger)
    assert {e.dataset for e in doc.project.ledger} == {
        f"agent:{a}" for a in rec.summary["ledger"]}
    doc.undo_stack.undo()  # the run and its spend are not undone
    assert len(doc.project.runs) == 1 and len(doc.project.ledger) == n_entries
    p.show_run(rec.id)  # (the undo took back the map edit before the run)
    assert p.shown_run == rec.id


def test_figure_views_show_the_runs_artefacts(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a2", "f")
    p.planner.set_plan_options(seed=1)
    _run(qtbot, p)
    r, s = p.results.result, p.results.session
    # Fig 4.3: the agents the query reached
    assert set(p.results.agent_map.agent_items) == set(r.discovery.known)
    assert p.results.agent_map.edge_count > 0
    # Fig 4.4: a published agent's obfuscated map, fakes counted
    obf = p.results.obfuscation
    pub = sorted(s.published)
    assert pub and obf.current_agent() == pub[0]
    pm = s.published[pub[0]]
    assert obf.obf_node_ids == sorted(pm.obfuscated.graph.nodes)
    assert obf.fake_nodes == sum(1 for _, d in pm.obfuscated.graph.nodes(data=True)
                                 if d.get("fake"))
    for mode in ("rl", "released"):
        obf.label_combo.setCurrentIndex(obf.label_combo.findData(mode))
    # a what-if preview of a non-publishing agent records nothing
    n_ledger = len(p._document.project.ledger)
    obf.select_agent("a")
    assert obf.published_map() is None and obf.preview_button.isEnabled()
    assert obf.preview() is not None and obf.obf_node_ids
    assert len(p._document.project.ledger) == n_ledger and "a" not in s.published
    # Fig 4.6: every arc of the center graph, the chosen route from origin to goal
    cg = p.results.center_graph
    assert cg.arc_count == len(r.center_graph) == cg.table.rowCount()
    assert cg.chosen[0][0] == ORIGIN and cg.chosen[-1][1] == GOAL
    assert [a for _f, _t, a in cg.chosen][-1] == "f"
    # estimates far above any true length (a noisy walk) are explained
    origin = fig41().agent_of("a2")
    exact = [w for _f, t, a, w in r.center_graph if a == origin and t != GOAL and w > 0]
    far = [w for _f, t, a, w in r.center_graph
           if a != origin and t != GOAL and w > 100 * max(exact)]
    caption = " ".join(cg.caption.text().split())
    assert far, "this seeded plan has estimates far above the true lengths (as in the issue)"
    assert "How to read an estimate" in caption and f"{len(far)} here are over 100×" in caption
    sources = [cg.table.item(i, 4).text() for i in range(cg.table.rowCount())]
    assert sum("rarely gets there" in x for x in sources) == len(far)
    # the ledger: one row per agent, roles and ε by mechanism
    rows = {row["agent"]: row for row in p.results.ledger.rows}
    assert set(rows) == set(fig41().agents)
    assert rows["a"]["role"].startswith("origin") and "goal" in rows["f"]["role"]
    for a in pub:
        assert rows[a]["eps_topology"] == pytest.approx(0.25)
        assert rows[a]["eps_total"] == pytest.approx(0.5)
        assert rows[a]["messages"] == s.comm[a].sent
    assert "Caveats" in p.results.ledger.notes.toPlainText()
    # the headline is the proven bound (sound preset: ε per agent)
    assert "Privacy: ε ≤ 0.5 per agent" in p.results.banner.text()
    assert "Proven:" in p.results.ledger.notes.toPlainText()
    # what the origin receives: the release only, in its (random) release order
    obf.select_agent(pub[0])
    obf.label_combo.setCurrentIndex(obf.label_combo.findData("received"))
    assert obf.received_ids == list(pm.released.nodes)
    assert obf.fake_nodes == 0 and obf.fake_edges == 0 and "receives" in obf.obf_title.text()
    real = set(fig41().local(pub[0]).nodes) - set(fig41().center_ids)
    assert not real & set(obf.received_ids)
    for key in ("route", "agents", "obfuscation", "centers", "ledger"):
        p.results.show_tab(key)


def test_a_task_that_cannot_be_planned_is_a_result_with_its_reason(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a1", "f")
    p.planner.set_plan_options(budget=0, seed=2)
    _run(qtbot, p)
    r = p.results.result
    assert not r.success and r.failure
    assert "Not delivered" in p.results.banner.text() and r.failure in p.results.banner.text()
    (rec,) = p._document.project.runs
    assert rec.summary["success"] is False and rec.summary["failure"] == r.failure
    assert p.canvas.route_ids() == []


@pytest.mark.parametrize("eps", ["0", "-1", "abc", "inf"])
def test_bad_epsilon_is_refused_inline(fig_panel, eps):
    p = fig_panel
    p.planner.set_plan_options(epsilon=eps)
    assert not p.run()
    assert "ε" in p.run_problem and not p.is_running
    assert p._document.project.runs == []
    assert p.planner.epsilon_edit.styleSheet()


def test_bad_task_is_refused_inline(fig_panel):
    p = fig_panel
    p.planner.origin_combo.addItem("A (a center)", "A")
    p.planner.origin_combo.setCurrentIndex(p.planner.origin_combo.count() - 1)
    assert not p.run()
    assert "origin" in p.run_problem and "not a base" in p.run_problem
    p.planner.set_task("a1", "f")
    p.planner.goal_agent_combo.addItem("zz", "zz")
    p.planner.goal_agent_combo.setCurrentIndex(p.planner.goal_agent_combo.count() - 1)
    assert not p.run()
    assert "unknown agent" in p.run_problem


def test_other_approaches_and_thesis_preset_run(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a2", "f", "f4")
    for approach in ("noprivacy", "greedy", "bestfirst"):
        p.planner.set_plan_options(approach=approach, seed=3)
        _run(qtbot, p)
        assert p.results.result.approach == approach
    assert p.results.result.discovery is None and "no Step 1" in \
        p.results.agent_map.empty_text()
    p.planner.set_plan_options(approach="dp", preset="thesis")
    _run(qtbot, p)
    assert p.results.session.params.preset == "thesis"
    assert "F1" in p.results.ledger.notes.toPlainText()
    # the thesis preset proves no bound: the headline and the ledger say so (never 0.5)
    assert "no proven bound" in p.results.banner.text()
    rows = {row["agent"]: row for row in p.results.ledger.rows}
    assert math.isinf(rows["b"]["eps_total"]) and "F5" in rows["b"]["reason"]
    assert rows["b"]["eps_nominal"] == pytest.approx(1.5)
    (rec,) = [r for r in p._document.project.runs if r.params.get("preset") == "thesis"
              and r.params.get("approach") == "dp"]
    assert rec.summary["epsilon_spent"]["b"] is None
    assert "F4" in rec.summary["epsilon_spent_reason"]["b"]
    assert rec.summary["guarantee"]["epsilon"] is None
    assert "F5" in p.planner.preset_combo.toolTip()
    assert len(p._document.project.runs) == 4


def test_generate_world_runs_in_the_worker_and_is_undoable(panel, qtbot):
    with qtbot.waitSignal(panel.runner.finished, timeout=20000):
        assert panel.generate_world(8, 2, tasks=True)
    doc = panel._document
    (d,) = doc.project.maps
    w = d.world
    assert len(w.center_ids) == 8 and w.n_bases == 40 and "N = 8" in w.name
    assert panel.canvas.item_counts()["centers"] == 8
    assert panel.planner.stored_task_combo.count() == len(w.tasks) + 1
    doc.undo_stack.undo()
    assert doc.project.maps == []


def test_generated30_world_plans(panel, qtbot):
    panel.load_generated30()
    w = map_from_dict(panel.current_map())
    assert len(w.center_ids) == 30
    panel.planner.set_plan_options(seed=1)
    _run(qtbot, panel)
    r = panel.results.result
    assert r.task == w.tasks[0] and r.success
    assert len(panel.results.ledger.rows) == 30


# ---------------------------------------------------------------------------- experiments
def test_short_experiment_finishes_and_plots_curves(panel, qtbot):
    ex = panel.experiments
    panel.pages.setCurrentIndex(1)
    assert panel.info_panel.currentIndex() == 1
    assert ex.worlds_spin.value() == 20 and "50" in ex.worlds_spin.toolTip()
    ex.set_options(benchmark="B2", values=[6, 8], worlds=2, seed=1, workers=1)
    with qtbot.waitSignal(ex.runner.finished, timeout=30000):
        assert ex.run()
    for key in ("route_length", "messages", "success", "stretch"):
        assert set(ex.curves[key]) == {"dp", "noprivacy", "bestfirst", "greedy", "simplified"}
        for curve in ex.curves[key].values():
            x, y = curve.getData()
            assert len(x) == 2
    (rec,) = panel._document.project.runs
    assert rec.kind == "plan-bench" and rec.params["benchmark"] == "B2"
    assert ex.checks_table.rowCount() == len(rec.summary["checks"]) > 0
    verdicts = {ex.checks_table.item(i, 0).text() for i in range(ex.checks_table.rowCount())}
    assert "not testable" in verdicts  # two sizes cannot show a rank trend
    assert ex.gaps_table.rowCount() > 0
    # route lengths are compared on paired tasks; each approach states what it proves
    metrics = {ex.gaps_table.item(i, 1).text() for i in range(ex.gaps_table.rowCount())}
    assert "route_length (paired tasks)" in metrics
    cap = ex.caption.text()
    assert "DP-based (sound): ε ≤ 0.5 per agent (proven)" in cap
    assert "no proven bound" in cap and "nothing private released" in cap
    assert rec.summary["privacy"]["noprivacy"]["epsilon"] is None
    panel._document.undo_stack.undo()  # a recorded run stays
    assert [r.id for r in panel._document.project.runs] == [rec.id] and ex.summary is not None


def test_experiment_refuses_bad_values(panel):
    ex = panel.experiments
    ex.set_options(benchmark="B1", values=[0.5, 0.0])
    assert not ex.run() and "epsilon must be > 0" in ex.controls_message.text()
    ex.set_options(benchmark="B2", values=[])
    ex.values_edit.setText("ten")
    assert not ex.run() and not ex.is_running


# ---------------------------------------------------------------------------- edits, preview
def test_map_edit_functions_name_ids_in_the_maps_style():
    d = E.with_id(map_to_dict(fig41()), "map-1")
    assert E.new_agent_name(d) == "g" and E.new_center_id(d) == "G"
    assert E.new_base_id(d, "a") == "a6" and E.new_base_id(d, "new") == "new1"
    d2, cid = E.add_center(d, {"a": "a1", "b": "b2"}, (0, 0))
    assert E.checked(d2)["id"] == "map-1"
    assert d == E.with_id(map_to_dict(fig41()), "map-1")  # the argument is left alone


@pytest.mark.parametrize("name", ["gui.logistics.panel", "gui.logistics.map_view",
                                  "gui.logistics.experiments"])
def test_preview_builds(qtbot, name):
    import importlib

    w = importlib.import_module(name).preview(exec_=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    for child in w.findChildren(LogisticsPanel):
        child.shutdown()
    from gui.logistics.experiments import ExperimentsPage

    for child in w.findChildren(ExperimentsPage):
        child.shutdown()


def test_show_run_of_a_reloaded_project_restores_the_task(fig_panel, qtbot):
    p = fig_panel
    p.planner.set_task("a3", "e")
    p.planner.set_plan_options(seed=4, epsilon="0.8")
    _run(qtbot, p)
    rid = p.shown_run
    p.state.runs.clear()  # as after reloading the project: only the summary is kept
    p.planner.set_task("a1", "f")
    p.planner.set_plan_options(epsilon="0.3")
    assert p.show_run(rid)
    assert p.planner.origin_combo.currentData() == "a3"
    assert p.planner.goal_agent_combo.currentData() == "e"
    assert p.planner.epsilon_edit.text() == "0.8" and p.planner.seed_spin.value() == 4
    assert rid in p.results.banner.text()
    assert p.canvas.route_ids() == p._document.run(rid).summary["route"]


def test_context_menus_add_bases_and_centers(fig_panel):
    p = fig_panel

    def trigger(menu, text):
        for act in menu.actions():
            if act.menu() is not None:
                if trigger(act.menu(), text):
                    return True
            elif act.text().startswith(text):
                act.trigger()
                return True
        return False

    menu = p.editor._context_menu(QPointF(900.0, 400.0), "")
    assert trigger(menu, "of a new agent g")
    assert E.node(p.current_map(), "g1")["agent"] == "g"
    # a center between the new agent and its nearest neighbour
    menu = p.editor._context_menu(QPointF(880.0, 300.0), "")
    assert trigger(menu, "Add center here joining")
    (cid,) = [n for n in E.nodes_of_kind(p.current_map(), "center") if n == "G"]
    assert "g" in E.node(p.current_map(), cid)["agents"]
    menu = p.editor._context_menu(QPointF(0.0, 0.0), "b1")  # b1 is at the degree cap 4
    assert trigger(menu, "Add base of b linked to b1")
    assert "degree cap 4" in p.editor.message and "node b1" in p.editor.message
    menu = p.editor._context_menu(QPointF(0.0, 0.0), "b4")
    assert trigger(menu, "Add base of b linked to b4")
    assert "b6" in E.nodes_of_kind(p.current_map(), "base")
    menu = p.editor._context_menu(QPointF(0.0, 0.0), "b6")
    assert trigger(menu, "Delete b6")
    assert "b6" not in E.nodes_of_kind(p.current_map(), "base")
    assert p.editor.message == ""


def test_f5_runs_the_logistics_tab_in_the_window(window, qtbot):
    w = window.open_tool("logistics")
    w.load_fig41()
    w.planner.set_task("a1", "f")
    window.activateWindow()
    w.canvas.setFocus()
    with qtbot.waitSignal(w.runner.finished, timeout=20000):
        QTest.keyClick(w.canvas, Qt.Key.Key_F5)
    assert w.shown_run == "run-1"
    window.close_tool("logistics")


def test_map_labels_are_readable_and_never_overlap(qtbot, fig_panel):
    """Issue: logistics labels were ≈ 5 px at normal size and edge labels collided."""
    from gui.shell.canvas import MAX_BOOST, READABLE_PX, LodTextItem, declutter_labels

    canvas = fig_panel.canvas
    canvas.fit_to_view()
    qtbot.wait(20)
    shown, hidden = declutter_labels(canvas)
    assert shown > 20  # the node names are there
    scale = canvas.transform().m11()
    labels = [it for it in canvas.scene().items() if isinstance(it, LodTextItem)
              and it.isVisible() and not it.crowded and it.text()]
    for lab in labels:  # readable: at least READABLE_PX high, unless already at the cap
        px = lab._height * scale * lab.boost
        assert px >= READABLE_PX - 1e-6 or lab.boost == MAX_BOOST, (lab.text(), px)
    rects = [lab.mapRectToScene(lab.boundingRect()) for lab in labels]
    for i, a in enumerate(rects):
        assert not any(a.intersects(b) for b in rects[i + 1:]), labels[i].text()
    # node names win over route lengths when they collide
    names = set(canvas.node_items)
    kept = {lab.text() for lab in labels}
    assert len(names & kept) >= 0.9 * len(names)


def test_a_new_base_is_placed_clear_of_every_node(qtbot, fig_panel):
    import math

    from gui.logistics.map_view import BASE_RADIUS

    before = set(fig_panel.canvas.node_items)
    fig_panel.canvas.select(["a1"], [])
    fig_panel.editor._on_add_base_clicked()
    (new,) = set(fig_panel.canvas.node_items) - before
    p = fig_panel.canvas.node_position(new)
    for n in before:
        q = fig_panel.canvas.node_position(n)
        assert math.dist((p.x(), p.y()), (q.x(), q.y())) > 4 * BASE_RADIUS, n
