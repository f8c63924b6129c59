"""Domain profiles: airplane transport and rover exploration (thesis
§4.7.2–4.7.3) on the one planning engine: constraints, generators, metrics, files, CLI."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from cli_run import cli

from core.common.errors import InputError
from core.logistics.domains import (
    DEFAULT_FUEL_RANGE,
    check_world,
    domain_tasks,
    generate_domain_world,
    plan_metrics,
    profile,
    route_handovers,
)
from core.logistics.examples import generate_tasks, generate_world
from core.logistics.experiments import benchmark_config, run_benchmark
from core.logistics.io import load_map, map_from_dict, map_to_dict
from core.logistics.model import LogisticsWorld, Task, validate_task
from core.logistics.planner import PlannerParams, PlanningSession

ROOT = Path(__file__).resolve().parents[3]
AIR = ROOT / "assets" / "examples" / "air.map.json"
ROVER = ROOT / "assets" / "examples" / "rover.map.json"
FIG41 = ROOT / "assets" / "examples" / "fig41.map.json"
APPROACHES = ("dp", "noprivacy", "bestfirst", "greedy", "simplified")


def _run_all(world: LogisticsWorld, tasks, seed: int = 1):
    params = PlannerParams.preset_params("sound", epsilon=0.5)
    for ap in APPROACHES:
        sess = PlanningSession(world, approach=ap, params=params, rng=seed)
        yield ap, sess.run(tasks)


# ----------------------------------------------------------------------- generators
@pytest.mark.parametrize("domain", ["air", "rover"])
def test_generators_are_deterministic_per_seed(domain):
    a = generate_domain_world(domain, 12, seed=5)
    b = generate_domain_world(domain, 12, seed=5)
    c = generate_domain_world(domain, 12, seed=6)
    assert map_to_dict(a) == map_to_dict(b) != map_to_dict(c)
    assert domain_tasks(a, rng=9) == domain_tasks(b, rng=9)
    g1 = generate_domain_world(domain, 8, seed=np.random.default_rng(3))
    g2 = generate_domain_world(domain, 8, seed=np.random.default_rng(3))
    assert map_to_dict(g1) == map_to_dict(g2)
    assert a.domain == domain and len(a.center_ids) == 12 and len(a.agents) == 12


def test_logistics_profile_is_the_existing_generator_bit_for_bit():
    w = generate_domain_world("logistics", 10, seed=3)
    assert map_to_dict(w) == map_to_dict(generate_world(10, seed=3))
    assert domain_tasks(w, rng=4) == generate_tasks(w, rng=4)
    assert w.domain == "logistics" and w.domain_params == {}
    d = map_to_dict(w)
    assert "domain" not in d["graph"] and all("role" not in n for n in d["nodes"])
    assert benchmark_config("B2").domain == "logistics"
    plain = run_benchmark("B1", values=[0.5], worlds=2, seed=3, workers=1)
    named = run_benchmark("B1", values=[0.5], worlds=2, seed=3, workers=1, domain="logistics")
    for m in plain.metrics:
        if m != "plan_ms":
            np.testing.assert_array_equal(plain.data[m], named.data[m])
    assert plain.metrics == named.metrics and "sample_value" not in plain.metrics


# ----------------------------------------------------------------------- air
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_air_generator_splits_every_hop_above_the_fuel_range(seed):
    w = generate_domain_world("air", 10, seed=seed)
    rng = w.domain_params["fuel_range"]
    assert rng == DEFAULT_FUEL_RANGE
    lens = [d["length"] for *_, d in w.graph.edges(data=True)]
    assert max(lens) <= rng
    stops = [v for v, d in w.graph.nodes(data=True) if d.get("role") == "stop"]
    assert stops, "the km lengths (mean 450) must produce hops above 600 km to split"
    for s in stops:  # a refuelling airport is a private base on a chain of two legs
        assert w.graph.nodes[s]["kind"] == "base" and w.graph.degree(s) == 2


def test_no_plan_of_any_approach_flies_a_leg_above_the_fuel_range():
    for seed in (1, 2):
        w = generate_domain_world("air", 10, seed=seed)
        tasks = domain_tasks(w, p_package=0.4, rng=seed)
        assert tasks
        rng = w.domain_params["fuel_range"]
        delivered = 0
        for ap, results in _run_all(w, tasks, seed):
            for r in results:
                if not r.success:
                    assert plan_metrics(w, r) == {"legs": None, "longest_leg": None}
                    continue
                delivered += 1
                hops = list(zip(r.route, r.route[1:]))
                assert all(w.graph.has_edge(u, v) for u, v in hops), ap
                assert max(w.graph.edges[u, v]["length"] for u, v in hops) <= rng, ap
                m = plan_metrics(w, r)
                assert m["legs"] == len(hops) and m["longest_leg"] <= rng
                assert r.task.origin in w.graph and \
                    w.graph.nodes[r.task.origin]["role"] == "airport"
        assert delivered > 10


def test_an_air_map_with_a_leg_beyond_the_fuel_range_is_refused(tmp_path):
    d = map_to_dict(load_map(AIR))
    e = next(e for e in d["edges"] if e["length"] > 300)
    e["length"] = 601.0
    with pytest.raises(InputError) as exc:
        map_from_dict(copy.deepcopy(d))
    assert exc.value.field == f"edge {e['source']}-{e['target']}"
    assert "longer than the fuel range 600 km" in exc.value.problem
    d2 = map_to_dict(load_map(AIR))
    d2["graph"]["domain_params"]["fuel_range"] = 100.0  # a shorter range refuses the map
    with pytest.raises(InputError, match="fuel range 100"):
        map_from_dict(d2)
    bad = tmp_path / "bad.map.json"
    bad.write_text(json.dumps(d))
    code, out, err = cli("plan", bad, "--origin", "area02.ap1", "--goal-agent", "area01",
                         "--epsilon", "0.5", "--seed", "1")
    assert code == 2 and out == "" and err.count("\n") == 1 and "fuel range" in err


def test_passengers_start_and_end_at_airports_not_refuelling_stops():
    w = load_map(AIR)
    stop = next(v for v, d in w.graph.nodes(data=True) if d.get("role") == "stop")
    other = next(a for a in w.agents if a != w.agent_of(stop))
    with pytest.raises(InputError) as exc:
        validate_task(w, Task(stop, other))
    assert exc.value.field == "origin" and "airport" in exc.value.problem
    port = next(b for b in w.bases[other] if w.graph.nodes[b]["role"] == "airport")
    src = next(b for b in w.bases[w.agent_of(stop)] if w.graph.nodes[b]["role"] == "airport")
    same = [b for b in w.bases[w.agent_of(stop)] if w.graph.nodes[b]["role"] == "stop"]
    validate_task(w, Task(src, other, port))
    with pytest.raises(InputError) as exc:
        validate_task(w, Task(port, w.agent_of(stop), same[0]))
    assert exc.value.field == "goal"


# ----------------------------------------------------------------------- rover
def test_rover_hand_overs_only_at_two_rover_locations_and_value_decays():
    w = generate_domain_world("rover", 12, seed=4)
    assert all(len(a) == 2 for a in w.members.values())
    hl = w.domain_params["half_life"]
    tasks = domain_tasks(w, p_package=0.5, rng=4)
    assert tasks and all(w.graph.nodes[t.origin]["role"] == "target" for t in tasks)
    seen = 0
    for ap, results in _run_all(w, tasks, 4):
        for r in results:
            m = plan_metrics(w, r)
            if not r.success:
                assert m["sample_value"] == 0.0
                continue
            hand = route_handovers(w, r.route)  # raises on a change outside a center
            for before, after, node in hand:
                assert w.kind(node) == "center" and set(w.members[node]) == {before, after}
            assert [a for a, _, _ in hand] + [hand[-1][1] if hand else r.agents[0]] == \
                [a for i, a in enumerate(r.agents) if i == 0 or a != r.agents[i - 1]], ap
            assert m["sample_value"] == pytest.approx(2.0 ** (-r.length / hl), rel=1e-12)
            assert m["handovers"] == len(hand)
            seen += 1
    assert seen > 10


def test_route_handovers_catches_a_change_of_rover_away_from_a_hand_over():
    w = load_map(ROVER)
    c = w.center_ids[0]
    a, b = w.members[c]
    pa = next(v for v in w.local(a).neighbors(c))
    pb = next(v for v in w.local(b).neighbors(c))
    assert route_handovers(w, [pa, c, pb]) == [(a, b, c)]
    g = nx.Graph(w.graph)
    g.add_edge(pa, pb, length=1.0, agent=b)  # a forged link: the change is at a location
    forged = copy.copy(w)
    object.__setattr__(forged, "graph", g)
    with pytest.raises(ValueError, match="not a center"):
        route_handovers(forged, [c, pa, pb])  # a carries to pa, then b: not at a center
    with pytest.raises(ValueError, match="not joined"):
        route_handovers(w, [pa, pb])


def test_rover_targets_are_private_facts_the_release_does_not_depend_on():
    w = generate_domain_world("rover", 8, seed=2)
    tasks = domain_tasks(w, p_package=0.6, rng=2)
    g = nx.Graph(w.graph)
    for _v, d in g.nodes(data=True):
        if d["kind"] == "base":
            d["role"] = "target"  # every location a target: other private facts
    w2 = LogisticsWorld(g, name=w.name, domain="rover", domain_params=w.domain_params)
    params = PlannerParams.preset_params("sound", epsilon=0.5)
    s1 = PlanningSession(w, approach="dp", params=params, rng=7)
    s2 = PlanningSession(w2, approach="dp", params=params, rng=7)
    r1, r2 = s1.run(tasks), s2.run(tasks)
    assert [r.to_dict() for r in r1] == [r.to_dict() for r in r2]
    def released(sess, a):  # every ledger entry but its wall-clock time
        return [{k: v for k, v in e.to_dict().items() if k != "time"}
                for e in sess.ledgers[a].entries]

    assert any(s1.ledgers[a].entries for a in w.agents)
    for a in w.agents:
        assert released(s1, a) == released(s2, a)


def test_rover_rules_are_checked():
    w = load_map(ROVER)
    loc = next(v for v, d in w.graph.nodes(data=True) if d.get("role") == "location")
    other = next(a for a in w.agents if a != w.agent_of(loc))
    with pytest.raises(InputError) as exc:
        validate_task(w, Task(loc, other))
    assert exc.value.field == "origin" and "target" in exc.value.problem
    d = map_to_dict(w)
    c = next(n for n in d["nodes"] if n["kind"] == "center")
    third = next(a for a in w.agents if a not in c["agents"])
    c["agents"] = c["agents"] + [third]
    c["capacity"] = 3
    base = next(n["id"] for n in d["nodes"] if n.get("agent") == third)
    d["edges"].append({"source": c["id"], "target": base, "length": 10.0})
    with pytest.raises(InputError, match="exactly two rovers"):
        map_from_dict(d)


# ----------------------------------------------------------------------- files
@pytest.mark.parametrize("path", [AIR, ROVER])
def test_example_maps_round_trip_with_domain_params_and_roles(path):
    w = load_map(path)
    d = map_to_dict(w)
    assert d["graph"]["domain"] == w.domain and d["graph"]["domain_params"]
    assert map_to_dict(map_from_dict(copy.deepcopy(d))) == d
    assert {n.get("role") for n in d["nodes"] if n["kind"] == "base"} == set(
        profile(w.domain).roles)
    assert len(w.tasks) >= 5
    assert check_world(w) == w.domain_params


@pytest.mark.parametrize("patch, field", [
    ({"domain": "sea"}, "graph.domain"),
    ({"domain": 3}, "graph.domain"),
    ({"domain_params": {"fuel_range": -1}}, "graph.domain_params.fuel_range"),
    ({"domain_params": {"half_life": 5}}, "graph.domain_params.half_life"),
    ({"domain_params": []}, "graph.domain_params"),
])
def test_bad_domain_fields_are_named(patch, field):
    d = map_to_dict(load_map(AIR))
    d["graph"].update(patch)
    with pytest.raises(InputError) as exc:
        map_from_dict(d)
    assert exc.value.field == field


def test_a_role_the_domain_does_not_know_is_refused():
    d = map_to_dict(load_map(AIR))
    n = next(n for n in d["nodes"] if n["kind"] == "base")
    n["role"] = "target"
    with pytest.raises(InputError, match="not one of a air airport's roles|roles"):
        map_from_dict(d)


# ----------------------------------------------------------------------- CLI
def test_plan_on_the_air_example_reports_the_domain():
    w = load_map(AIR)
    t = w.tasks[0]
    code, out, err = cli("plan", AIR, "--origin", t.origin, "--goal-agent", t.goal_agent,
                         "--epsilon", "0.5", "--seed", "1", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["domain"] == "air" and d["domain_details"]["params"]["fuel_range"] == 600.0
    assert d["domain_details"]["vocabulary"]["center"] == "boundary airport"
    assert "domain_metrics" in d["evaluator_keys"]
    if d["success"]:
        assert 0 < d["domain_metrics"]["longest_leg"] <= 600.0
    code, out, _ = cli("plan", AIR, "--origin", t.origin, "--goal-agent", t.goal_agent,
                       "--epsilon", "0.5", "--seed", "1", "--domain", "air")
    assert code == 0 and "boundary airports" in out and "fuel range 600 km" in out


def test_plan_on_the_rover_example_reports_the_sample_value():
    w = load_map(ROVER)
    t = w.tasks[0]
    code, out, err = cli("plan", ROVER, "--origin", t.origin, "--goal-agent", t.goal_agent,
                         "--goal", t.goal, "--epsilon", "0.5", "--seed", "2", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["domain"] == "rover"
    v = d["domain_metrics"]["sample_value"]
    assert v == (pytest.approx(2 ** (-d["length"] / 300.0)) if d["success"] else 0.0)
    static = json.loads(cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f",
                            "--epsilon", "0.5", "--seed", "3", "--json")[1])
    assert static["domain"] == "logistics" and static["domain_details"] is None


@pytest.mark.parametrize("argv, flag", [
    (["plan", AIR, "--origin", "area02.ap1", "--goal-agent", "area01", "--epsilon", "0.5",
      "--domain", "rover"], "--domain"),
    (["plan", AIR, "--origin", "area02.ap1", "--goal-agent", "area01", "--epsilon", "0.5",
      "--domain", "packet"], "--domain"),
    (["plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5",
      "--domain", "air"], "--domain"),
    (["plan", AIR, "--origin", "area02.ap1", "--goal-agent", "area01", "--epsilon", "0.5",
      "--domain", "sea"], "--domain"),
    (["plan-bench", "B3", "--domain", "air", "--worlds", "2"], "--domain"),
    (["plan-bench", "B1", "--domain", "sea"], "--domain"),
    (["plan-bench", "--experiment", "fig411", "--domain", "rover"], "--domain"),
])
def test_bad_domain_flag_exit_2_one_line(argv, flag):
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err
    assert "Traceback" not in err


def test_plan_bench_domain_json(tmp_path):
    code, out, err = cli("plan-bench", "B2", "--domain", "rover", "--values", "6,8",
                         "--worlds", "2", "--seed", "4", "--workers", "1", "--approaches",
                         "dp,greedy", "-o", tmp_path, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["domain"] == "rover" and d["config"]["domain"] == "rover"
    assert all(0.0 <= r["sample_value"] <= 1.0 for r in d["rows"])
    assert "sample_value" in d["per_world"]
    assert json.loads((tmp_path / "B2.json").read_text())["domain"] == "rover"


def test_air_benchmark_checks_the_fuel_range_and_counts_legs():
    r = run_benchmark("B2", values=[6, 8], worlds=2, seed=1, workers=1, domain="air",
                      approaches=["dp", "greedy"])
    assert r.metrics[-2:] == ("legs", "longest_leg")
    assert np.nanmax(r.data["longest_leg"]) <= DEFAULT_FUEL_RANGE
    fuel = [c for c in r.checks if "fuel range" in c["claim"]]
    assert len(fuel) == 1 and fuel[0]["holds"]
    assert all(math.isnan(x) or x >= 1 for x in r.data["legs"].ravel())


def test_benchmark_domain_params_are_checked_and_used():
    cfg = benchmark_config("B2", domain="air", domain_params={"fuel_range": 250})
    assert cfg.domain_params == (("fuel_range", 250),)
    assert cfg.to_dict()["domain_params"] == {"fuel_range": 250}
    with pytest.raises(InputError) as exc:
        benchmark_config("B2", domain="rover", domain_params={"fuel_range": 250})
    assert exc.value.field == "domain_params"
    r = run_benchmark(
        "B2", values=[6], worlds=1, seed=2, workers=1, approaches=["noprivacy"], domain="air",
        domain_params={"fuel_range": 250})
    assert np.nanmax(r.data["longest_leg"]) <= 250
    assert [c["holds"] for c in r.checks if "fuel range (250 km)" in c["claim"]] == [True]


def test_split_leg_never_exceeds_the_range_even_after_rounding():
    from core.logistics.domains import split_leg

    # 2099 / 7 = 299.857: rounded-down legs of 299.8 leave a last leg of 300.2 > 300
    assert max(split_leg(2099, 300)) <= 300 and len(split_leg(2099, 300)) == 8
    for length in range(1, 3000, 7):
        for rng in (250.0, 300.0, 600.0):
            parts = split_leg(length, rng)
            assert max(parts) <= rng and sum(parts) == pytest.approx(length, abs=1e-6)
            assert len(parts) <= math.ceil(length / rng) + 1
    for seed in range(4):  # a tight range over many hops: the generator stays valid
        w = generate_domain_world("air", 20, seed=seed, params={"fuel_range": 300.0})
        assert max(d["length"] for *_, d in w.graph.edges(data=True)) <= 300.0


def test_a_tiny_fuel_range_is_refused_not_built():
    with pytest.raises(InputError) as exc:
        generate_domain_world("air", 10, seed=1, params={"fuel_range": 0.01})
    assert exc.value.field == "fuel_range" and "refuelling airports" in exc.value.problem
