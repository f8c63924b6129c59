"""Unit tests of core.logistics.io (``*.map.json``) and the checks of core.logistics.model.

Every refusal must name its field (``InputError.field``); the file helpers must round-trip
(write, read, write gives the same text). Expected values come from the small maps built
here by hand, or from brute-force recomputation (networkx components, sums of lengths).
"""

from __future__ import annotations

import copy
import json
import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.logistics.examples import fig41, generate_world
from core.logistics.io import (
    MAP_FORMAT,
    MAP_VERSION,
    dumps_map,
    load_map,
    map_from_dict,
    map_to_dict,
    save_map,
)
from core.logistics.model import (
    DEFAULT_DEGREE_CAP,
    MAX_CAPACITY,
    MAX_LENGTH,
    LogisticsWorld,
    Task,
    local_graph,
    local_graphs,
    mean_length,
    validate_task,
)


def tiny() -> dict:
    return {
        "directed": False, "multigraph": False,
        "graph": {"format": MAP_FORMAT, "version": MAP_VERSION, "name": "tiny"},
        "nodes": [
            {"id": "X", "kind": "center", "agents": ["a", "b"], "capacity": 2},
            {"id": "a1", "kind": "base", "agent": "a"},
            {"id": "a2", "kind": "base", "agent": "a"},
            {"id": "b1", "kind": "base", "agent": "b"},
        ],
        "edges": [
            {"source": "a1", "target": "a2", "length": 10.0},
            {"source": "X", "target": "a2", "length": 20.0},
            {"source": "X", "target": "b1", "length": 5.0},
        ],
    }


def err(d) -> InputError:
    with pytest.raises(InputError) as ei:
        map_from_dict(d)
    return ei.value


# ------------------------------------------------------------------ header
@pytest.mark.parametrize("bad", [[], "map", 3, None])
def test_not_an_object(bad):
    assert err(bad).field == "map"


def test_header_defaults_are_accepted():
    d = tiny()
    d["graph"] = {}
    w = map_from_dict(d)
    assert w.name == "" and w.degree_cap == DEFAULT_DEGREE_CAP and w.tasks == ()
    del d["graph"]
    assert map_from_dict(d).agents == ("a", "b")


@pytest.mark.parametrize(("patch", "field"), [
    ({"graph": [1]}, "graph"),
    ({"graph": {"format": "other"}}, "graph.format"),
    ({"graph": {"version": 2}}, "graph.version"),
    ({"graph": {"version": "1"}}, "graph.version"),
    ({"directed": True}, "map"),
    ({"multigraph": True}, "map"),
    ({"graph": {"tasks": {}}}, "graph.tasks"),
    ({"graph": {"domain": 5}}, "graph.domain"),
    ({"graph": {"domain_params": []}}, "graph.domain_params"),
    ({"graph": {"domain": "submarine"}}, "graph.domain"),
    ({"graph": {"degree_cap": 1}}, "degree_cap"),
    ({"graph": {"degree_cap": True}}, "degree_cap"),
    ({"graph": {"degree_cap": 2.5}}, "degree_cap"),
])
def test_header_errors_name_field(patch, field):
    d = tiny()
    d.update(patch)
    assert err(d).field == field


# ------------------------------------------------------------------ nodes and edges
@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d.update(nodes={}), "map"),
    (lambda d: d.update(edges="x"), "map"),
    (lambda d: d["nodes"].append({"kind": "base"}), "nodes[4]"),
    (lambda d: d["nodes"].append("a3"), "nodes[4]"),
    (lambda d: d["edges"].append({"source": "a1"}), "edges[3]"),
    (lambda d: d["nodes"].__setitem__(1, {"id": "", "kind": "base", "agent": "a"}),
     "nodes[1]"),
    (lambda d: d["nodes"].__setitem__(1, {"id": 7, "kind": "base", "agent": "a"}),
     "nodes[1]"),
    (lambda d: d["nodes"].append({"id": "a1", "kind": "base", "agent": "a"}), "nodes[4]"),
    (lambda d: d["edges"].append({"source": "a1", "target": 3}), "edges[3]"),
    (lambda d: d["edges"].append({"source": "a1", "target": "zz", "length": 1}),
     "edge a1-zz"),
    (lambda d: d["edges"].append({"source": "a2", "target": "a1", "length": 1}),
     "edge a2-a1"),
])
def test_node_link_errors_name_field(mutate, field):
    d = tiny()
    mutate(d)
    assert err(d).field == field


def test_legacy_links_key_is_read_and_its_errors_name_it():
    d = tiny()
    d["links"] = d.pop("edges")
    assert map_from_dict(d).graph.number_of_edges() == 3
    d["links"].append({"source": "a1"})
    assert err(d).field == "links[3]"


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d["nodes"][1].update(kind="depot"), "node a1"),
    (lambda d: d["nodes"][1].update(agent=""), "node a1"),
    (lambda d: d["nodes"][1].update(agent=None), "node a1"),
    (lambda d: d["nodes"][0].update(agents="ab"), "node X"),
    (lambda d: d["nodes"][0].update(agents=["a"]), "node X"),
    (lambda d: d["nodes"][0].update(agents=["a", "a"]), "node X"),
    (lambda d: d["nodes"][0].update(agents=["a", "b", "q"]), "node X"),
    (lambda d: d["nodes"][0].update(capacity=1), "node X"),
    (lambda d: d["nodes"][0].update(capacity=2.5), "node X"),
    (lambda d: d["nodes"][0].update(capacity=True), "node X"),
    (lambda d: d["nodes"][0].update(capacity=MAX_CAPACITY + 1), "node X"),
    (lambda d: d["nodes"][0].update(capacity="2"), "node X"),
    (lambda d: d["nodes"][1].update(pos=[1.0]), "node a1"),
    (lambda d: d["nodes"][1].update(pos=[1.0, True]), "node a1"),
    (lambda d: d["nodes"][1].update(pos=[0.0, 1e16]), "node a1"),
    (lambda d: d["nodes"][1].update(pos="0,0"), "node a1"),
    (lambda d: d["nodes"][1].update(pos=[10**400, 0]), "node a1"),
    (lambda d: d["nodes"][1].update(pos=[float("nan"), 0]), "node a1"),
    (lambda d: d["nodes"][0].update(capacity=10**400), "node X"),
    (lambda d: d["nodes"][0].update(capacity=float("inf")), "node X"),
])
def test_node_errors_name_node(mutate, field):
    d = tiny()
    mutate(d)
    assert err(d).field == field


def test_capacity_limits_are_inclusive():
    d = tiny()
    d["nodes"][0]["capacity"] = MAX_CAPACITY
    assert map_from_dict(d).centers["X"].capacity == MAX_CAPACITY
    d["nodes"][0]["capacity"] = 3.0  # an integral float is an integer
    c = map_from_dict(d).centers["X"]
    assert c.capacity == 3 and type(c.capacity) is int


def test_map_without_bases():
    d = tiny()
    d["nodes"] = [n for n in d["nodes"] if n["kind"] != "base"]
    d["edges"] = []
    assert err(d).field == "X" or err(d).field in ("nodes", "node X")


@pytest.mark.parametrize(("length", "ok"), [
    (1e-300, True), (MAX_LENGTH, True), (MAX_LENGTH * 1.0000001, False), (0, False),
    (-1, False), (True, False), ("10", False), (None, False)])
def test_edge_length_bounds(length, ok):
    d = tiny()
    d["edges"][0]["length"] = length
    if ok:
        assert map_from_dict(d).graph.edges["a1", "a2"]["length"] == float(length)
    else:
        assert err(d).field == "edge a1-a2"


def test_edge_between_agents_and_unshared_center():
    d = tiny()
    d["edges"].append({"source": "a1", "target": "b1", "length": 1.0})
    e = err(d)
    assert e.field == "edge a1-b1" and "areas meet only at centers" in e.problem
    d = tiny()
    d["nodes"].append({"id": "c1", "kind": "base", "agent": "c"})
    d["nodes"].append({"id": "Y", "kind": "center", "agents": ["a", "c"], "capacity": 2})
    d["edges"] += [{"source": "c1", "target": "Y", "length": 1.0},
                   {"source": "a1", "target": "Y", "length": 1.0},
                   {"source": "c1", "target": "X", "length": 1.0}]
    assert err(d).field in ("edge c1-X", "edge X-c1")


def test_center_center_edge_needs_shared_agent():
    d = tiny()
    d["nodes"].append({"id": "Y", "kind": "center", "agents": ["a", "b"], "capacity": 2})
    d["edges"].append({"source": "b1", "target": "Y", "length": 2.0})
    d["edges"].append({"source": "X", "target": "Y", "length": 3.0})
    assert err(d).field == "edge X-Y"
    d["edges"][-1]["agent"] = "q"  # q shares neither center
    assert err(d).field == "edge X-Y"
    d["edges"][-1]["agent"] = "a"
    w = map_from_dict(d)
    assert w.graph.edges["X", "Y"]["agent"] == "a"
    # the owner of a center-center edge is written out again (and only there)
    out = map_to_dict(w)
    owned = [e for e in out["edges"] if "agent" in e]
    assert owned == [{"source": "X", "target": "Y", "length": 3.0, "agent": "a"}]
    assert map_to_dict(map_from_dict(out)) == out


def test_disconnected_area_names_agent_and_smallest_part():
    d = tiny()
    d["nodes"].append({"id": "a3", "kind": "base", "agent": "a"})
    e = err(d)
    assert e.field == "agent a" and "{a3}" in e.problem


def test_degree_cap_names_node():
    d = tiny()
    for i in range(3, 6):
        d["nodes"].append({"id": f"a{i}", "kind": "base", "agent": "a"})
        d["edges"].append({"source": "a1", "target": f"a{i}", "length": 1.0})
    d["graph"]["degree_cap"] = 3  # a1 now has 4 routes (a2, a3, a4, a5)
    assert err(d).field == "node a1"
    d["graph"]["degree_cap"] = 4
    assert map_from_dict(d).degree_cap == 4


# ------------------------------------------------------------------ tasks
def test_task_errors_are_prefixed_with_their_index():
    d = tiny()
    d["graph"]["tasks"] = [{"origin": "a1", "goal_agent": "b"},
                           {"origin": "a1", "goal_agent": "b", "goal": "a2"}]
    assert err(d).field == "graph.tasks[1].goal"
    d["graph"]["tasks"] = [{"goal_agent": "b"}]
    assert err(d).field == "graph.tasks[0].tasks"
    d["graph"]["tasks"] = [{"origin": "X", "goal_agent": "b"}]
    assert err(d).field == "graph.tasks[0].origin"
    d["graph"]["tasks"] = [{"origin": "a1", "goal_agent": "nobody"}]
    assert err(d).field == "graph.tasks[0].goal_agent"


def test_validate_task_accepts_dict_and_task():
    w = map_from_dict(tiny())
    assert validate_task(w, {"origin": "a1", "goal_agent": "b"}) == Task("a1", "b")
    assert validate_task(w, {"origin": "a1", "goal_agent": "b", "goal": None}).goal is None
    assert validate_task(w, Task("a2", "b", "b1")) == Task("a2", "b", "b1")
    with pytest.raises(InputError) as ei:
        validate_task(w, ("a1", "b"))
    assert ei.value.field == "tasks"


def test_task_to_dict_omits_missing_goal():
    assert Task("a1", "b").to_dict() == {"origin": "a1", "goal_agent": "b"}
    assert Task("a1", "b", "b1").to_dict() == {"origin": "a1", "goal_agent": "b",
                                               "goal": "b1"}


# ------------------------------------------------------------------ world accessors
def test_world_accessors_on_tiny():
    w = map_from_dict(tiny())
    assert w.agents == ("a", "b") and w.center_ids == ("X",)
    assert w.bases == {"a": ("a1", "a2"), "b": ("b1",)}
    assert w.n_bases == 3 and w.total_capacity == 2
    assert w.kind("X") == "center" and w.agent_of("a2") == "a"
    assert w.neighbours("a") == {"b": ("X",)} and w.neighbours("b") == {"a": ("X",)}
    assert sorted(w.local("a").nodes) == ["X", "a1", "a2"]
    with pytest.raises(InputError) as ei:
        w.local("zz")
    assert ei.value.field == "agent"


def test_world_does_not_alias_callers_graph():
    g = nx.Graph()
    g.add_node("a1", kind="base", agent="a")
    w = LogisticsWorld(g)
    g.add_node("b1", kind="base", agent="b")
    assert w.agents == ("a",)
    with pytest.raises(nx.NetworkXError):
        w.graph.add_node("z")  # frozen


def test_fig41_totals_against_brute_force():
    w = fig41()
    assert w.n_bases == sum(1 for _, d in w.graph.nodes(data=True) if d["kind"] == "base")
    assert w.total_capacity == sum(d["capacity"] for _, d in w.graph.nodes(data=True)
                                   if d["kind"] == "center")
    lengths = [d["length"] for _, _, d in w.graph.edges(data=True)]
    assert mean_length(w.graph) == pytest.approx(sum(lengths) / len(lengths))
    for a in w.agents:
        nb = w.neighbours(a)
        for b, cs in nb.items():
            assert all(a in w.members[c] and b in w.members[c] for c in cs)


def test_mean_length_empty_graph_is_zero():
    assert mean_length(nx.Graph()) == 0.0


def test_local_graphs_equal_local_graph_per_agent():
    w = fig41()
    many = local_graphs(w.graph, list(w.agents) + ["ghost"])
    assert set(many) == set(w.agents) | {"ghost"}
    assert many["ghost"].number_of_nodes() == 0
    for a in w.agents:
        one = local_graph(w.graph, a)
        assert list(one.nodes(data=True)) == list(many[a].nodes(data=True))
        assert sorted(map(sorted, one.edges())) == sorted(map(sorted, many[a].edges()))
        assert nx.is_connected(one)


# ------------------------------------------------------------------ to_dict / files
def test_map_to_dict_canonical_order_and_optional_keys():
    d = tiny()
    d["nodes"].reverse()
    out = map_to_dict(map_from_dict(d))
    assert [n["id"] for n in out["nodes"]] == ["X", "a1", "a2", "b1"]
    assert "note" not in out["graph"] and "degree_cap" not in out["graph"]
    assert "domain" not in out["graph"]
    assert out["graph"]["tasks"] == []
    assert all("pos" not in n for n in out["nodes"])
    # sources come before targets in node order; list sorted by that order
    order = {n["id"]: i for i, n in enumerate(out["nodes"])}
    keys = [(order[e["source"]], order[e["target"]]) for e in out["edges"]]
    assert all(s <= t for s, t in keys) and keys == sorted(keys)


def test_map_to_dict_keeps_note_cap_and_positions():
    d = tiny()
    d["graph"].update(note="ünïcode note", degree_cap=6)
    d["nodes"][1]["pos"] = [1, 2]
    out = map_to_dict(map_from_dict(d))
    assert out["graph"]["note"] == "ünïcode note" and out["graph"]["degree_cap"] == 6
    assert out["nodes"][1]["pos"] == [1.0, 2.0]


def test_dict_round_trip_fig41():
    d = map_to_dict(fig41())
    assert map_to_dict(map_from_dict(copy.deepcopy(d))) == d


@given(st.integers(2, 5), st.integers(0, 50))
@settings(max_examples=6, deadline=None)
def test_generated_worlds_round_trip_through_text(n_centers, seed):
    w = generate_world(n_centers, seed=seed)
    text = dumps_map(w)
    w2 = map_from_dict(json.loads(text))
    assert dumps_map(w2) == text
    assert w2.agents == w.agents and w2.bases == w.bases and w2.members == w.members
    assert sorted(map(sorted, w2.graph.edges())) == sorted(map(sorted, w.graph.edges()))


def test_dumps_map_is_strict_json_with_newline():
    text = dumps_map(fig41())
    assert text.endswith("}\n") and text.startswith("{\n  ")
    assert "NaN" not in text and "Infinity" not in text


def test_save_and_load_round_trip(tmp_path):
    w = fig41()
    p = tmp_path / "Zürich map.map.json"
    save_map(w, p)
    assert p.read_text(encoding="utf-8") == dumps_map(w)
    w2 = load_map(str(p))
    assert dumps_map(w2) == dumps_map(w)
    assert w2.tasks == w.tasks and w2.name == w.name


def test_load_map_errors_name_file_and_field(tmp_path):
    d = tiny()
    d["edges"][0]["length"] = -5
    p = tmp_path / "bad.map.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_map(p)
    assert ei.value.field == "edge a1-a2" and ei.value.file == str(p)


def test_load_map_refuses_non_finite_numbers(tmp_path):
    p = tmp_path / "nan.map.json"
    p.write_text(json.dumps(tiny()).replace("10.0", "NaN"), encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_map(p)
    assert str(p) in str(ei.value)


def test_huge_integer_length_in_dict_is_refused():
    d = tiny()
    d["edges"][0]["length"] = 10**400
    e = None
    try:
        map_from_dict(d)
    except InputError as exc:
        e = exc
    except OverflowError:  # pragma: no cover - this is what the test guards against
        pytest.fail("an integer too large for a float escaped as OverflowError")
    assert e is not None and e.field == "edge a1-a2"


def test_unicode_ids_and_names_survive():
    d = tiny()
    d["graph"]["name"] = "地図 – Ω"
    text = json.dumps(d).replace('"a1"', '"Ä-1"')
    w = map_from_dict(json.loads(text))
    assert "Ä-1" in w.bases["a"] and w.name == "地図 – Ω"
    assert json.loads(dumps_map(w))["graph"]["name"] == "地図 – Ω"


def test_positions_are_floats_and_finite():
    d = tiny()
    d["nodes"][2]["pos"] = [-1e15, 1e15]
    w = map_from_dict(d)
    pos = w.graph.nodes["a2"]["pos"]
    assert pos == (-1e15, 1e15) and all(math.isfinite(c) for c in pos)
