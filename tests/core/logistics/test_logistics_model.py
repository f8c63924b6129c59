"""Logistics world: validation with named errors, *.map.json I/O, examples, generator."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import networkx as nx
import pytest

from core.common.errors import InputError
from core.logistics.examples import fig41, generate_tasks, generate_world
from core.logistics.io import dumps_map, load_map, map_from_dict, map_to_dict, save_map
from core.logistics.model import LogisticsWorld, Task, validate_task

ROOT = Path(__file__).resolve().parents[3]
ASSETS = ROOT / "assets" / "examples"


def fig41_dict() -> dict:
    return map_to_dict(fig41())


def test_fig41_reconstruction_facts():
    w = fig41()
    assert w.agents == ("a", "b", "c", "d", "e", "f")
    assert {c: w.members[c] for c in w.center_ids} == {
        "A": ("a", "b"), "B": ("b", "e"), "C": ("a", "c"), "D": ("a", "d"),
        "E": ("c", "d", "e"), "F": ("e", "f")}
    assert w.total_capacity == 13
    assert [len(w.bases[a]) for a in w.agents] == [5, 5, 5, 5, 4, 5]
    g = w.graph
    assert nx.shortest_path_length(g, "a2", "f4", weight="length") == 550
    assert nx.shortest_path(g, "a2", "f4", weight="length") == [
        "a2", "a3", "a4", "A", "b1", "B", "e1", "E", "e2", "e3", "F", "f1", "f2", "f4"]
    assert nx.shortest_path_length(g, "a3", "e2", weight="length") == 300
    assert "reconstruction" in w.note.lower() and "reconstruction" in w.name
    b = w.local("b")
    assert (b.number_of_nodes(), b.number_of_edges(), max(d for _, d in b.degree())) == (7, 9, 4)
    assert all(nx.is_connected(w.local(a)) for a in w.agents)


def test_map_round_trip_and_links_key(tmp_path):
    w = fig41()
    p = tmp_path / "m.map.json"
    save_map(w, p)
    w2 = load_map(p)
    assert map_to_dict(w2) == map_to_dict(w)
    assert w2.tasks == w.tasks
    d = json.loads(p.read_text())
    d["links"] = d.pop("edges")  # the older node-link key
    assert map_to_dict(map_from_dict(d)) == map_to_dict(w)
    # networkx reads the file directly
    g = nx.node_link_graph(json.loads(p.read_text()), edges="edges")
    assert g.number_of_edges() == w.graph.number_of_edges()


def _err(d: dict) -> InputError:
    with pytest.raises(InputError) as ei:
        map_from_dict(d)
    return ei.value


def test_disconnected_area_is_named():
    d = fig41_dict()
    d["edges"] = [e for e in d["edges"] if {e["source"], e["target"]} != {"b3", "b4"}
                  and {e["source"], e["target"]} != {"b5", "B"}]
    e = _err(d)
    assert e.field == "agent b" and "disconnected" in str(e) and "b4" in str(e)


def test_center_with_one_agent_is_named():
    d = fig41_dict()
    for n in d["nodes"]:
        if n["id"] == "F":
            n["agents"] = ["e"]
    d["edges"] = [e for e in d["edges"] if "F" not in (e["source"], e["target"]) or
                  e["source"].startswith("e") or e["target"].startswith("e")]
    e = _err(d)
    assert e.field == "node F" and "at least 2 agents" in str(e)


@pytest.mark.parametrize("length", [0, -3, "x", None])
def test_non_positive_length_is_named(length):
    d = fig41_dict()
    d["edges"][0]["length"] = length
    e = _err(d)
    assert e.field.startswith("edge ") and "length" in str(e)


def test_degree_cap_and_cross_area_edges():
    d = fig41_dict()
    d["edges"].append({"source": "b1", "target": "b5", "length": 10.0})  # b1 degree 5
    e = _err(d)
    assert e.field == "node b1" and "degree cap 4" in str(e)
    d = fig41_dict()
    d["edges"].append({"source": "a1", "target": "b1", "length": 10.0})
    assert "areas meet only at centers" in str(_err(d))
    d = fig41_dict()
    d["edges"].append({"source": "c1", "target": "A", "length": 10.0})
    assert "does not share center" in str(_err(d))


def test_bad_format_and_version():
    d = fig41_dict()
    d["graph"]["version"] = 2
    assert _err(d).field == "graph.version"
    d = fig41_dict()
    d["graph"]["format"] = "other"
    assert _err(d).field == "graph.format"


def test_task_validation_names_fields():
    w = fig41()
    with pytest.raises(InputError) as ei:
        validate_task(w, Task("A", "f"))
    assert ei.value.field == "origin" and "not a base" in str(ei.value)
    with pytest.raises(InputError) as ei:
        validate_task(w, Task("a1", "zz"))
    assert ei.value.field == "goal_agent"
    with pytest.raises(InputError) as ei:
        validate_task(w, Task("a1", "f", "e2"))
    assert ei.value.field == "goal"
    d = fig41_dict()
    d["graph"]["tasks"] = [{"origin": "nope", "goal_agent": "f"}]
    assert _err(d).field == "graph.tasks[0].origin"


def test_load_map_errors_name_the_file(tmp_path):
    p = tmp_path / "bad.map.json"
    p.write_text("{nope")
    with pytest.raises(InputError) as ei:
        load_map(p)
    assert str(p) in str(ei.value) and "JSON" in str(ei.value)
    with pytest.raises(InputError):
        load_map(tmp_path / "missing.map.json")


@pytest.mark.parametrize("n", [10, 30, 50])
def test_generator_matches_spec(n):
    w = generate_world(n, seed=n)
    assert len(w.center_ids) == n and len(w.agents) == n and w.n_bases == 5 * n
    assert all(len(m) >= 2 for m in w.members.values())
    assert max(d for a in w.agents for _, d in w.local(a).degree()) <= 4
    assert all(nx.is_connected(w.local(a)) for a in w.agents)
    assert nx.is_connected(w.graph)  # agents connected through the centers
    lengths = [d["length"] for *_, d in w.graph.edges(data=True)]
    assert min(lengths) >= 5 and 35 <= sum(lengths) / len(lengths) <= 55
    three = sum(len(m) == 3 for m in w.members.values())
    assert 0 < three < n  # some three-way centers (p = 0.3)
    assert map_to_dict(generate_world(n, seed=n)) == map_to_dict(w)  # seeded


def test_tasks_generator():
    w = generate_world(20, seed=2)
    ts = generate_tasks(w, p_package=0.2, rng=5)
    assert ts == generate_tasks(w, p_package=0.2, rng=5)
    assert 5 <= len(ts) <= 40  # Binomial(100, 0.2): mean 20, sd 4
    for t in ts:
        assert validate_task(w, t) == t and t.goal_agent != w.agent_of(t.origin)


def test_world_is_frozen_copy():
    g = nx.Graph(fig41().graph)
    w = LogisticsWorld(g)
    g.add_node("zz", kind="base", agent="a")
    assert "zz" not in w.graph
    with pytest.raises(nx.NetworkXError):
        w.graph.add_node("yy")


# --------------------------------------------------------- committed example maps
@pytest.fixture(scope="module")
def generated(tmp_path_factory, run_tool):
    return run_tool("make_map_examples", tmp_path_factory.mktemp("maps"))


def test_committed_maps_are_current(generated):
    names = sorted(p.name for p in generated.iterdir())
    assert names == sorted(p.name for p in ASSETS.glob("*.map.json"))
    for name in names:
        assert (ASSETS / name).read_bytes() == (generated / name).read_bytes(), (
            f"assets/examples/{name} is stale: run tools/make_map_examples.py")
        w = load_map(ASSETS / name)
        assert dumps_map(w) == (ASSETS / name).read_text()


def test_committed_generated_world_has_tasks():
    w = load_map(ASSETS / "generated30.map.json")
    assert len(w.center_ids) == 30 and len(w.tasks) > 10
    assert copy.deepcopy(map_to_dict(w)) == map_to_dict(w)
