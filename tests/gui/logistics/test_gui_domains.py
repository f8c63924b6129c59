"""The air and rover examples: opened from the project tree's Examples,
drawn with the domain's icons, words and legend, and planned on like any map."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from core.logistics.io import map_from_dict
from gui.logistics.domain_style import ICON_ROLE, domain_of, node_words


def _example_item(window, key):
    tree = window.project_panel.tree
    stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        if item.data(0, 0x0100 + 1) == key and item.data(0, 0x0100) == "example":
            return item
        stack += [item.child(i) for i in range(item.childCount())]
    raise AssertionError(f"no example {key!r} in the project tree")


def _marks(canvas, kind):
    return [it for it in canvas.graphics_scene.items() if it.data(ICON_ROLE) == kind]


def test_the_tree_lists_every_engine_example(window):
    ids = window.project_panel.item_ids("example")
    assert ids == ["logistics:fig41", "logistics:generated30", "logistics:air",
                   "logistics:rover"]


@pytest.mark.parametrize("domain, words, legend", [
    ("air", ("boundary airport", "refuelling airport", "airport"), "fuel range 600 km"),
    ("rover", ("hand-over location", "target location", "location"), "300 m driven"),
])
def test_double_clicking_a_domain_example_opens_it(qtbot, window, domain, words, legend):
    maps_before = len(window.document.project.maps)
    item = _example_item(window, f"logistics:{domain}")
    window.project_panel.tree.itemActivated.emit(item, 0)
    panel = window.tools()["logistics"]
    assert window.tabs.currentWidget() is panel
    maps = window.document.project.maps
    assert len(maps) == maps_before + 1 and maps[-1].world.domain == domain
    d = panel.current_map()
    assert domain_of(d) == domain and map_from_dict(dict(d)).domain == domain
    canvas = panel.canvas
    icons = _marks(canvas, "icon")
    assert len(icons) == len(d["nodes"])  # one glyph per node, a child of the node
    assert all(isinstance(i, QGraphicsSimpleTextItem) and i.parentItem() is not None
               for i in icons)
    (leg,) = _marks(canvas, "legend")
    assert legend in leg.text()
    tips = [canvas.node_items[n["id"]].toolTip() for n in d["nodes"]]
    for w in words:
        assert any(t.startswith(w + " ") for t in tips), w
    assert all("logistic center" not in t and not t.startswith("base ") for t in tips)
    assert node_words(domain, d["nodes"][0]) in tips[0]
    # undoable like any added map
    window.document.stack("logistics").undo()
    assert len(window.document.project.maps) == maps_before


def test_a_logistics_map_is_drawn_without_domain_marks(qtbot, window):
    window.project_panel.tree.itemActivated.emit(_example_item(window, "logistics:fig41"), 0)
    canvas = window.tools()["logistics"].canvas
    assert not _marks(canvas, "icon") and not _marks(canvas, "legend")
    assert canvas.node_items["A"].toolTip().startswith("logistic center A")


def test_planning_on_the_rover_example_shows_the_hand_overs(qtbot, window):
    window.open_example("logistics:rover")
    panel = window.tools()["logistics"]
    w = window.document.project.maps[-1].world
    t = w.tasks[0]
    panel.planner.set_task(t.origin, t.goal_agent)
    panel.planner.set_plan_options(epsilon="0.5", seed=1)
    with qtbot.waitSignal(panel.runner.finished, timeout=30000):
        assert panel.run()
    assert panel.shown_run
    route = panel.canvas.route_ids()
    assert route[0] == t.origin and w.agent_of(route[-1]) == t.goal_agent
    # the route's icons survive the overlay (it is drawn on top, not rebuilt)
    assert len(_marks(panel.canvas, "icon")) == w.graph.number_of_nodes()


def test_a_sample_cannot_start_at_a_location_that_is_not_a_target(qtbot, window):
    window.open_example("logistics:rover")
    panel = window.tools()["logistics"]
    w = window.document.project.maps[-1].world
    loc = next(v for v, d in w.graph.nodes(data=True) if d.get("role") == "location")
    other = next(a for a in w.agents if a != w.agent_of(loc))
    panel.planner.set_task(loc, other)
    assert not panel.run()  # refused before any work: nothing released, nothing recorded
    assert "samples start at target nodes" in panel.run_problem
    assert not window.document.project.runs or all(
        r.kind != "plan" for r in window.document.project.runs)


@pytest.mark.parametrize("domain", ["air", "rover"])
def test_generate_world_with_a_domain(qtbot, domain):
    from core.logistics.domains import domain_tasks, generate_domain_world
    from core.logistics.io import map_to_dict
    from gui.logistics.panel import GenerateWorldDialog, LogisticsPanel
    from gui.shell.document import ProjectDocument

    dlg = GenerateWorldDialog()
    qtbot.addWidget(dlg)
    assert [dlg.domain_combo.itemData(i) for i in range(dlg.domain_combo.count())] == [
        "logistics", "air", "rover"]
    doc = ProjectDocument()
    panel = LogisticsPanel(doc)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.runner.finished, timeout=30000):
        assert panel.generate_world(6, 3, tasks=True, domain=domain)
    (entry,) = doc.project.maps
    want = generate_domain_world(domain, 6, seed=3)
    assert entry.world.domain == domain
    assert [n for n in map_to_dict(entry.world)["nodes"]] == map_to_dict(want)["nodes"]
    assert entry.world.tasks == domain_tasks(want, rng=3)
    assert _marks(panel.canvas, "legend")
    panel.shutdown()


def test_a_second_example_opens_on_its_map_without_the_last_ones_route(qtbot, window):
    """Opening an example used to leave the sub-tab the user was on (Experiments, Packet
    routing) and the previous example's route and result showing."""
    window.open_example("logistics:rover")
    panel = window.tools()["logistics"]
    w = window.document.project.maps[-1].world
    t = w.tasks[0]
    panel.planner.set_task(t.origin, t.goal_agent)
    panel.planner.set_plan_options(epsilon="0.5", seed=1)
    with qtbot.waitSignal(panel.runner.finished, timeout=30000):
        assert panel.run()
    assert panel.shown_run and panel.canvas.route_ids()
    panel.pages.setCurrentIndex(2)  # the packet-routing sub-tab
    window.open_example("logistics:air")
    assert panel.pages.currentIndex() == 0
    assert not panel.shown_run and not panel.canvas.route_ids()
