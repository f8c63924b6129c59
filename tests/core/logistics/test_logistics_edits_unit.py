"""Unit tests of core.logistics.edits: pure edits of a map dict.

Each edit must return a new dict and leave its argument alone; invalid edits raise
InputError naming the node, edge or agent. Expected values are derived by hand from the
small maps built here (or from the fig41 coordinates printed in the map file).
"""

from __future__ import annotations

import copy
import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.logistics import edits as E
from core.logistics.examples import fig41
from core.logistics.io import map_to_dict


def tiny() -> dict:
    """Two agents meeting at one center X: a1-a2-X-b1 (lengths 10, 20, 5)."""
    return {
        "id": "map-7",
        "directed": False, "multigraph": False,
        "graph": {"format": "privplan-map", "version": 1, "name": "tiny", "tasks": [
            {"origin": "a1", "goal_agent": "b", "goal": "b1"}]},
        "nodes": [
            {"id": "X", "kind": "center", "agents": ["a", "b"], "capacity": 2,
             "pos": [0.0, 0.0]},
            {"id": "a1", "kind": "base", "agent": "a", "pos": [-20.0, 0.0]},
            {"id": "a2", "kind": "base", "agent": "a", "pos": [-10.0, 0.0]},
            {"id": "b1", "kind": "base", "agent": "b", "pos": [5.0, 0.0]},
        ],
        "edges": [
            {"source": "a1", "target": "a2", "length": 10.0},
            {"source": "X", "target": "a2", "length": 20.0},
            {"source": "X", "target": "b1", "length": 5.0},
        ],
    }


@pytest.fixture(scope="module")
def fig() -> dict:
    return E.with_id(map_to_dict(fig41()), "map-1")


# ------------------------------------------------------------------ reading helpers
def test_with_id_puts_id_first_and_deep_copies():
    d = tiny()
    out = E.with_id(d, "map-99")
    assert list(out)[0] == "id" and out["id"] == "map-99"
    out["nodes"][0]["pos"][0] = 123.0
    assert d["nodes"][0]["pos"][0] == 0.0
    assert d["id"] == "map-7"


def test_with_id_on_dict_without_id():
    d = tiny()
    del d["id"]
    out = E.with_id(d, "m")
    assert out["id"] == "m" and set(out) == set(d) | {"id"}


def test_checked_keeps_id_and_returns_canonical_form():
    d = tiny()
    out = E.checked(d)
    assert out["id"] == "map-7"
    # canonical order: centers first, then bases by agent
    assert [n["id"] for n in out["nodes"]] == ["X", "a1", "a2", "b1"]
    # edges canonicalised so the earlier node (in node order) is the source
    pairs = [(e["source"], e["target"]) for e in out["edges"]]
    assert ("X", "a2") in pairs and ("a1", "a2") in pairs and ("X", "b1") in pairs
    assert d == tiny()  # argument untouched


def test_checked_without_id_has_no_id_key():
    d = tiny()
    del d["id"]
    assert "id" not in E.checked(d)


def test_checked_is_idempotent(fig):
    once = E.checked(fig)
    assert E.checked(once) == once


def test_world_of_names_bad_edge():
    d = tiny()
    d["edges"][0]["length"] = -1
    with pytest.raises(InputError) as ei:
        E.world_of(d)
    assert ei.value.field == "edge a1-a2"


def test_map_label_falls_back_name_id_map():
    d = tiny()
    assert E.map_label(d) == "tiny"
    d["graph"]["name"] = ""
    assert E.map_label(d) == "map-7"
    del d["id"]
    assert E.map_label(d) == "map"
    assert E.map_label({}) == "map"
    assert E.map_label({"graph": None, "id": "m2"}) == "m2"


def test_node_returns_the_inner_dict_not_a_copy():
    d = tiny()
    n = E.node(d, "a2")
    assert n is d["nodes"][2]


def test_node_unknown_names_node():
    with pytest.raises(InputError) as ei:
        E.node(tiny(), "zz")
    assert ei.value.field == "node zz"


def test_nodes_of_kind_in_file_order():
    d = tiny()
    assert E.nodes_of_kind(d, "base") == ["a1", "a2", "b1"]
    assert E.nodes_of_kind(d, "center") == ["X"]
    assert E.nodes_of_kind(d, "other") == []
    assert E.nodes_of_kind({}, "base") == []


def test_agents_of_includes_center_only_agents_sorted():
    d = tiny()
    d["nodes"][0]["agents"] = ["z", "a", "b"]
    assert E.agents_of(d) == ["a", "b", "z"]
    assert E.agents_of({}) == []


def test_agents_of_fig41(fig):
    assert E.agents_of(fig) == list("abcdef")


@given(st.text(max_size=4), st.text(max_size=4))
@settings(max_examples=30, deadline=None)
def test_edge_key_is_sorted_and_symmetric(u, v):
    k = E.edge_key(u, v)
    assert k == E.edge_key(v, u)
    assert k[0] <= k[1] and sorted(k) == sorted((u, v))


def test_has_edge_and_edge_length_either_direction():
    d = tiny()
    assert E.has_edge(d, "a2", "X") and E.has_edge(d, "X", "a2")
    assert not E.has_edge(d, "a1", "X")
    assert E.edge_length(d, "a2", "X") == E.edge_length(d, "X", "a2") == 20.0


def test_edge_length_missing_names_edge():
    with pytest.raises(InputError) as ei:
        E.edge_length(tiny(), "a1", "b1")
    assert ei.value.field == "edge a1-b1"


def test_edges_read_from_legacy_links_key():
    d = tiny()
    d["links"] = d.pop("edges")
    assert E.has_edge(d, "a1", "a2")
    assert E.edge_length(d, "X", "b1") == 5.0


def test_positions_skips_missing_and_malformed():
    d = tiny()
    del d["nodes"][1]["pos"]
    d["nodes"][2]["pos"] = [1.0]  # malformed: left out
    pos = E.positions(d)
    assert pos == {"X": (0.0, 0.0), "b1": (5.0, 0.0)}
    assert all(isinstance(c, float) for p in pos.values() for c in p)


def test_layout_positions_returns_stored_when_complete():
    d = tiny()
    assert E.layout_positions(d) == E.positions(d)


def test_layout_positions_keeps_fixed_and_fills_missing_deterministically():
    d = tiny()
    del d["nodes"][1]["pos"]
    del d["nodes"][3]["pos"]
    p1 = E.layout_positions(d)
    p2 = E.layout_positions(copy.deepcopy(d))
    assert p1 == p2  # seeded
    assert set(p1) == {"X", "a1", "a2", "b1"}
    assert p1["X"] == (0.0, 0.0) and p1["a2"] == (-10.0, 0.0)
    assert all(math.isfinite(c) for p in p1.values() for c in p)


def test_layout_positions_without_any_pos_spans_about_400():
    d = tiny()
    for n in d["nodes"]:
        del n["pos"]
    pos = E.layout_positions(d)
    assert set(pos) == {"X", "a1", "a2", "b1"}
    biggest = max(abs(c) for p in pos.values() for c in p)
    # networkx rescales the layout so that the largest coordinate is the scale
    assert biggest == pytest.approx(400.0, rel=1e-6)


# ------------------------------------------------------------------ suggest_length
def test_suggest_length_uses_median_ratio():
    d = tiny()
    # ratios: a1-a2 10/10 = 1, X-a2 20/10 = 2, X-b1 5/5 = 1 -> median 1
    # a1-b1 drawn distance 25 -> 25
    assert E.suggest_length(d, "a1", "b1") == 25.0


def test_suggest_length_independent_median_on_fig41(fig):
    pos = E.positions(fig)
    ratios = [e["length"] / math.dist(pos[e["source"]], pos[e["target"]])
              for e in fig["edges"]]
    want = max(1, round(statistics.median(ratios) * math.dist(pos["a1"], pos["f5"])))
    assert E.suggest_length(fig, "a1", "f5") == float(want)


def test_suggest_length_defaults():
    d = tiny()
    assert E.suggest_length(d, "a1", "nowhere") == E.DEFAULT_LENGTH
    # coincident points: default
    assert E.suggest_length(d, "a1", "a1") == E.DEFAULT_LENGTH
    # no routes with positions: default
    d["edges"] = []
    assert E.suggest_length(d, "a1", "b1") == E.DEFAULT_LENGTH


def test_suggest_length_override_positions_and_floor_of_one():
    d = tiny()
    got = E.suggest_length(d, "a1", "b1", pos={"a1": (0, 0), "b1": (0.1, 0),
                                                "X": (0, 0), "a2": (10, 0)})
    # ratios with those positions: a1-a2 1.0, X-a2 2.0; X-b1 5/0.1 = 50 -> median 2
    # 2 * 0.1 = 0.2 rounds to 0, floored at 1
    assert got == 1.0


# ------------------------------------------------------------------ naming
@pytest.mark.parametrize(("agents", "want"), [
    ([], "a"),
    (["a"], "b"),
    (["a", "b", "d"], "c"),
    (["a07"], "a08"),
    (["a00", "a29"], "a30"),
    (["x9"], "x10"),
    (["a07", "b"], "a"),  # mixed style: the first free letter
])
def test_new_agent_name(agents, want):
    d = {"nodes": [{"id": f"{a}.1", "kind": "base", "agent": a} for a in agents]}
    assert E.new_agent_name(d) == want
    assert want not in agents


def test_new_agent_name_after_all_letters():
    d = {"nodes": [{"id": f"{c}1", "kind": "base", "agent": c}
                   for c in "abcdefghijklmnopqrstuvwxyz"]}
    assert E.new_agent_name(d) == "agent1"
    d["nodes"].append({"id": "q", "kind": "center", "agents": ["agent1"]})
    assert E.new_agent_name(d) == "agent2"


def test_new_base_id_styles(fig):
    assert E.new_base_id(fig, "a") == "a6"
    assert E.new_base_id(fig, "zz") == "zz1"
    d = {"nodes": [{"id": "a03.4", "kind": "base", "agent": "a03"}]}
    assert E.new_base_id(d, "a03") == "a03.5"
    assert E.new_base_id({"nodes": []}, "a03") == "a03.1"  # digit-ended: dot separator


def test_new_base_id_skips_taken_ids():
    d = {"nodes": [{"id": "a1", "kind": "base", "agent": "a"},
                   {"id": "a2", "kind": "center", "agents": ["a", "b"]}]}
    assert E.new_base_id(d, "a") == "a3"


@given(st.sets(st.integers(1, 40), max_size=8))
@settings(max_examples=30, deadline=None)
def test_new_base_id_is_never_taken(nums):
    d = {"nodes": [{"id": f"a{k}", "kind": "base", "agent": "a"} for k in sorted(nums)]}
    new = E.new_base_id(d, "a")
    assert new not in {n["id"] for n in d["nodes"]}
    assert new == f"a{max(nums, default=0) + 1}"


def test_new_center_id_styles(fig):
    assert E.new_center_id(fig) == "G"
    assert E.new_center_id({"nodes": []}) == "A"
    d = {"nodes": [{"id": "C29", "kind": "center"}, {"id": "C03", "kind": "center"}]}
    assert E.new_center_id(d) == "C30"
    d = {"nodes": [{"id": "C09", "kind": "center"}, {"id": "C10", "kind": "base"}]}
    assert E.new_center_id(d) == "C11"  # C10 is a base's id: skipped


def test_new_center_id_after_all_letters():
    d = {"nodes": [{"id": c, "kind": "center"} for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]}
    d["nodes"].append({"id": "C1", "kind": "base"})
    assert E.new_center_id(d) == "C2"


# ------------------------------------------------------------------ edits leave input alone
def _snapshot(d):
    return copy.deepcopy(d)


def test_every_edit_leaves_argument_untouched(fig):
    before = _snapshot(fig)
    E.add_base(fig, "a", (1, 2), link_to="a1", length=3)
    E.add_center(fig, {"a": "a1", "f": "f5"}, (5, 5))
    E.connect(fig, "a1", "a3", 7)
    E.remove_items(fig, nodes=["a5"], edges=[("a1", "a2")])
    E.move_nodes(fig, {"a1": (0, 0)})
    E.set_length(fig, "a1", "a2", 1)
    E.set_base_agent(fig, "a1", "b")
    E.set_center(fig, "A", agents=["a", "b", "c"], capacity=5)
    E.rename_node(fig, "a1", "zz")
    E.set_name(fig, "new")
    assert fig == before


# ------------------------------------------------------------------ add_base
def test_add_base_linked_validates(fig):
    out, bid = E.add_base(fig, "a", (10.04, 20.06), link_to="a1", length=12)
    assert bid == "a6"
    assert E.node(out, "a6") == {"id": "a6", "kind": "base", "agent": "a",
                                 "pos": [10.0, 20.1]}
    assert E.edge_length(out, "a6", "a1") == 12.0
    w = E.world_of(out)
    assert "a6" in w.bases["a"]


def test_add_base_default_length_is_suggested(fig):
    out, bid = E.add_base(fig, "a", (40.0, 200.0), link_to="a1")
    assert E.edge_length(out, bid, "a1") == E.suggest_length(out, bid, "a1")


def test_add_base_strips_agent_and_rejects_empty():
    out, bid = E.add_base(tiny(), "  b ", None)
    assert E.node(out, bid)["agent"] == "b" and "pos" not in E.node(out, bid)
    with pytest.raises(InputError) as ei:
        E.add_base(tiny(), "   ", None)
    assert ei.value.field == "agent"


def test_add_base_taken_id_names_node():
    with pytest.raises(InputError) as ei:
        E.add_base(tiny(), "a", None, base_id="X")
    assert ei.value.field == "node X"


@pytest.mark.parametrize("bad", [0, -3, float("nan"), float("inf"), "abc", 10**400])
def test_add_base_bad_length_names_edge(bad):
    with pytest.raises(InputError) as ei:
        E.add_base(tiny(), "a", None, link_to="a1", length=bad, base_id="a9")
    assert ei.value.field == "edge a9-a1"


def test_add_base_new_agent_is_disconnected_until_linked():
    out, bid = E.add_base(tiny(), "c", (0, 5))
    assert bid == "c1"
    # a lone base of a new agent is its own connected area: valid
    w = E.world_of(out)
    assert w.bases["c"] == ("c1",) or list(w.bases["c"]) == ["c1"]


# ------------------------------------------------------------------ add_center
def test_add_center_default_capacity_and_owner(fig):
    out, cid = E.add_center(fig, {"f": "f5", "a": "a3"}, (300, 300),
                            lengths={"a": 11, "f": 22})
    assert cid == "G"
    c = E.node(out, "G")
    assert c["agents"] == ["a", "f"] and c["capacity"] == 2 and c["pos"] == [300.0, 300.0]
    assert E.edge_length(out, "a3", "G") == 11 and E.edge_length(out, "f5", "G") == 22
    w = E.world_of(out)
    assert w.members["G"] == ("a", "f")


def test_add_center_linked_through_a_shared_center_names_owner(fig):
    # agent a joins the new center from center A (which a shares); b from b3
    out, cid = E.add_center(fig, {"a": "A", "b": "b3"}, None, capacity=4,
                            lengths={"a": 5, "b": 6})
    e = next(e for e in out["edges"] if E.edge_key(e["source"], e["target"])
             == E.edge_key("A", cid))
    assert e["agent"] == "a"
    assert E.node(out, cid)["capacity"] == 4 and "pos" not in E.node(out, cid)
    E.world_of(out)  # validates


def test_add_center_taken_id_and_bad_length():
    with pytest.raises(InputError) as ei:
        E.add_center(tiny(), {"a": "a1", "b": "b1"}, None, center_id="a1")
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.add_center(tiny(), {"a": "a1", "b": "b1"}, None, center_id="Y",
                     lengths={"a": -1})
    assert ei.value.field == "edge Y-a1"


def test_add_center_single_agent_fails_validation():
    out, cid = E.add_center(tiny(), {"a": "a1"}, None, lengths={"a": 3})
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field == f"node {cid}"


# ------------------------------------------------------------------ connect
def test_connect_adds_route_and_validates():
    out = E.connect(tiny(), "a1", "X", 9)
    assert E.edge_length(out, "X", "a1") == 9.0
    assert E.checked(out)["id"] == "map-7"


def test_connect_default_length_suggested():
    d = tiny()
    out = E.connect(d, "a1", "X")
    assert E.edge_length(out, "a1", "X") == E.suggest_length(d, "a1", "X") == 20.0


def test_connect_refusals_name_their_field():
    d = tiny()
    with pytest.raises(InputError) as ei:
        E.connect(d, "a1", "a1")
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.connect(d, "a1", "nope")
    assert ei.value.field == "node nope"
    with pytest.raises(InputError) as ei:
        E.connect(d, "a2", "a1")
    assert ei.value.field == "edge a2-a1"
    with pytest.raises(InputError) as ei:
        E.connect(d, "a1", "X", "long")
    assert ei.value.field == "edge a1-X"


def test_connect_two_centers_without_common_agent():
    d = tiny()
    d["nodes"].append({"id": "Y", "kind": "center", "agents": ["c", "d"], "capacity": 2})
    with pytest.raises(InputError) as ei:
        E.connect(d, "X", "Y", 5)
    assert ei.value.field == "edge X-Y"


def test_connect_two_centers_picks_first_common_agent():
    d = tiny()
    d["nodes"].append({"id": "Y", "kind": "center", "agents": ["b", "a"], "capacity": 2})
    out = E.connect(d, "X", "Y", 5)
    e = out["edges"][-1]
    assert e == {"source": "X", "target": "Y", "length": 5.0, "agent": "a"}


def test_connect_across_agents_fails_validation_naming_edge():
    out = E.connect(tiny(), "a1", "b1", 3)
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field == "edge a1-b1"


def test_connect_on_legacy_links_key_writes_edges():
    d = tiny()
    d["links"] = d.pop("edges")
    out = E.connect(d, "a1", "X", 4)
    assert "links" not in out and len(out["edges"]) == 4


# ------------------------------------------------------------------ remove_items
def test_remove_node_drops_its_routes_and_tasks():
    out = E.remove_items(tiny(), nodes=["a1"])
    assert E.nodes_of_kind(out, "base") == ["a2", "b1"]
    assert not any("a1" in (e["source"], e["target"]) for e in out["edges"])
    assert out["graph"]["tasks"] == []  # the task's origin was a1
    E.checked(out)


def test_remove_goal_base_drops_task():
    d = tiny()
    d["nodes"].append({"id": "b2", "kind": "base", "agent": "b"})
    d["edges"].append({"source": "b1", "target": "b2", "length": 1.0})
    out = E.remove_items(d, nodes=["b1"])
    assert out["graph"]["tasks"] == []


def test_remove_edge_either_direction_keeps_tasks():
    d = tiny()
    d["edges"].append({"source": "a1", "target": "X", "length": 30.0})
    out = E.remove_items(d, edges=[("a2", "a1")])
    assert not E.has_edge(out, "a1", "a2") and E.has_edge(out, "a1", "X")
    assert out["graph"]["tasks"] == d["graph"]["tasks"]
    E.checked(out)


def test_remove_bridge_fails_naming_agent():
    out = E.remove_items(tiny(), edges=[("X", "a2")])
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field == "agent a"


def test_remove_nothing_is_identity_up_to_copy():
    d = tiny()
    out = E.remove_items(d)
    assert out == d and out is not d


def test_prune_keeps_task_without_goal_and_drops_junk():
    d = tiny()
    d["graph"]["tasks"] = [{"origin": "a1", "goal_agent": "b"}, "junk",
                           {"origin": "X", "goal_agent": "b"},
                           {"origin": "a1", "goal_agent": "zz"}]
    out = E.remove_items(d)
    assert out["graph"]["tasks"] == [{"origin": "a1", "goal_agent": "b"}]


# ------------------------------------------------------------------ move / length / name
def test_move_nodes_rounds_to_one_decimal_and_ignores_unknown():
    out = E.move_nodes(tiny(), {"a1": (1.26, -3.04), "ghost": (0, 0)})
    assert E.node(out, "a1")["pos"] == [1.3, -3.0]
    assert E.nodes_of_kind(out, "base") == ["a1", "a2", "b1"]


def test_move_nodes_adds_pos_to_node_without_one():
    d = tiny()
    del d["nodes"][3]["pos"]
    out = E.move_nodes(d, {"b1": (7, 8)})
    assert E.positions(out)["b1"] == (7.0, 8.0)


def test_set_length_accepts_numeric_text():
    out = E.set_length(tiny(), "a2", "a1", "12.5")
    assert E.edge_length(out, "a1", "a2") == 12.5


@pytest.mark.parametrize("bad", ["", "x", 0, -1e-9, float("nan"), float("-inf"), [1]])
def test_set_length_bad_values_name_edge(bad):
    with pytest.raises(InputError) as ei:
        E.set_length(tiny(), "a1", "a2", bad)
    assert ei.value.field == "edge a1-a2"


def test_set_length_huge_integer_is_refused_naming_edge():
    # 10**400 cannot become a float: refused like any other bad length
    with pytest.raises(InputError) as ei:
        E.set_length(tiny(), "a1", "a2", 10**400)
    assert ei.value.field == "edge a1-a2"


def test_set_length_missing_route():
    with pytest.raises(InputError) as ei:
        E.set_length(tiny(), "a1", "b1", 3)
    assert ei.value.field == "edge a1-b1"


def test_set_length_above_model_maximum_fails_validation():
    out = E.set_length(tiny(), "a1", "a2", 1e300)
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field in ("edge a1-a2", "edge a2-a1")


def test_set_name_unicode_round_trips_through_checked():
    out = E.checked(E.set_name(tiny(), "Zürich – 東京"))
    assert out["graph"]["name"] == "Zürich – 東京"
    assert E.map_label(out) == "Zürich – 東京"


def test_set_name_creates_graph_object():
    d = tiny()
    del d["graph"]
    assert E.set_name(d, 5)["graph"] == {"name": "5"}


# ------------------------------------------------------------------ set_base_agent
def test_set_base_agent_prunes_tasks_with_stale_goal():
    d = tiny()
    d["nodes"].append({"id": "b2", "kind": "base", "agent": "b"})
    d["edges"].append({"source": "b1", "target": "b2", "length": 1.0})
    # move b1 to agent a: the task's goal b1 is no longer agent b's
    out = E.set_base_agent(d, "b1", "a")
    assert E.node(out, "b1")["agent"] == "a"
    assert out["graph"]["tasks"] == []


def test_set_base_agent_refusals():
    with pytest.raises(InputError) as ei:
        E.set_base_agent(tiny(), "a1", " ")
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.set_base_agent(tiny(), "X", "a")
    assert ei.value.field == "node X"
    with pytest.raises(InputError) as ei:
        E.set_base_agent(tiny(), "ghost", "a")
    assert ei.value.field == "node ghost"


def test_set_base_agent_crossing_route_fails_validation():
    out = E.set_base_agent(tiny(), "a1", "b")
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field == "edge a1-a2"


# ------------------------------------------------------------------ set_center
def test_set_center_agents_sorted_stripped_and_capacity_raised():
    d = tiny()
    d["nodes"].append({"id": "c1", "kind": "base", "agent": "c"})
    d["edges"].append({"source": "c1", "target": "X", "length": 2.0})
    out = E.set_center(d, "X", agents=[" c", "b", "a", "", "a"])
    c = E.node(out, "X")
    assert c["agents"] == ["a", "b", "c"] and c["capacity"] == 3
    E.checked(out)


def test_set_center_capacity_kept_when_large_enough():
    d = tiny()
    d["nodes"][0]["capacity"] = 9
    out = E.set_center(d, "X", agents=["a", "b"])
    assert E.node(out, "X")["capacity"] == 9


@pytest.mark.parametrize(("cap", "want"), [(5, 5), (5.0, 5), (2, 2)])
def test_set_center_capacity_integers(cap, want):
    out = E.set_center(tiny(), "X", capacity=cap)
    assert E.node(out, "X")["capacity"] == want
    assert type(E.node(out, "X")["capacity"]) is int


@pytest.mark.parametrize("cap", [2.5, "x", "3", [2], float("nan"), float("inf")])
def test_set_center_capacity_non_integers_name_center(cap):
    with pytest.raises(InputError) as ei:
        E.set_center(tiny(), "X", capacity=cap)
    assert ei.value.field == "node X"


def test_set_center_capacity_below_agents_fails_validation():
    out = E.set_center(tiny(), "X", capacity=1)
    with pytest.raises(InputError) as ei:
        E.checked(out)
    assert ei.value.field == "node X"


def test_set_center_on_a_base_or_unknown():
    with pytest.raises(InputError) as ei:
        E.set_center(tiny(), "a1", capacity=3)
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.set_center(tiny(), "Q", capacity=3)
    assert ei.value.field == "node Q"


# ------------------------------------------------------------------ rename_node
def test_rename_follows_routes_and_tasks():
    out = E.rename_node(tiny(), "a1", "start")
    assert "a1" not in {n["id"] for n in out["nodes"]}
    assert E.edge_length(out, "start", "a2") == 10.0
    assert out["graph"]["tasks"][0]["origin"] == "start"
    out = E.rename_node(out, "b1", "end")
    assert out["graph"]["tasks"][0]["goal"] == "end"
    c = E.checked(out)
    assert c["graph"]["tasks"] == [{"origin": "start", "goal_agent": "b", "goal": "end"}]


def test_rename_unicode_id_validates():
    out = E.checked(E.rename_node(tiny(), "X", "Zentrum-Ω"))
    assert E.nodes_of_kind(out, "center") == ["Zentrum-Ω"]


def test_rename_same_id_is_a_copy_and_strips():
    d = tiny()
    out = E.rename_node(d, "a1", " a1 ")
    assert out == d and out is not d


def test_rename_refusals():
    with pytest.raises(InputError) as ei:
        E.rename_node(tiny(), "a1", "  ")
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.rename_node(tiny(), "a1", "b1")
    assert ei.value.field == "node a1"
    with pytest.raises(InputError) as ei:
        E.rename_node(tiny(), "ghost", "new")
    assert ei.value.field == "node ghost"


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzÄÖΩ_-0123456789", min_size=1, max_size=8))
@settings(max_examples=30, deadline=None)
def test_rename_then_back_is_identity(new):
    d = tiny()
    if new in {"X", "a1", "a2", "b1"}:
        return
    there = E.rename_node(d, "a2", new)
    back = E.rename_node(there, new, "a2")
    assert back == d
    assert E.world_of(there).kind(new) == "base"


# ------------------------------------------------------------------ property: random edit chains
_OPS = st.lists(st.sampled_from(["add", "connect", "move", "length", "rename", "remove"]),
                min_size=1, max_size=6)


@given(_OPS, st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_valid_edits_keep_world_invariants(ops, salt):
    """Chains of edits that pass checked() always give maps whose world agrees with the
    dict: the same node ids, routes and lengths."""
    d = E.checked(tiny())
    for i, op in enumerate(ops):
        try:
            if op == "add":
                cand, _ = E.add_base(d, "a", (i, salt % 50), link_to="a1", length=1 + i)
            elif op == "connect":
                cand = E.connect(d, "a1", "X", 3 + i)
            elif op == "move":
                cand = E.move_nodes(d, {"X": (salt % 7, i)})
            elif op == "length":
                cand = E.set_length(d, "X", "b1", 1 + (salt + i) % 90)
            elif op == "rename":
                cand = E.rename_node(d, E.nodes_of_kind(d, "base")[0], f"n{i}x{salt}")
            else:
                cand = E.remove_items(d, edges=[("a1", "X")])
            cand = E.checked(cand)
        except InputError:
            continue
        d = cand
    w = E.world_of(d)
    assert set(w.graph.nodes) == {n["id"] for n in d["nodes"]}
    for e in d["edges"]:
        assert w.graph.edges[e["source"], e["target"]]["length"] == e["length"]
    assert w.graph.number_of_edges() == len(d["edges"])
    assert d["id"] == "map-7"
