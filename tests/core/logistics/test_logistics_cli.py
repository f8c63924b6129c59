"""The ``plan`` and ``plan-bench`` command-line contract (docs/formats-and-cli.md §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import cli

from core.logistics.examples import fig41
from core.logistics.io import map_to_dict

ROOT = Path(__file__).resolve().parents[3]
FIG41 = str(ROOT / "assets" / "examples" / "fig41.map.json")


def plan_json(*extra: str) -> dict:
    code, out, err = cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", *extra, "--json")
    assert code == 0, err
    # stderr is empty but for the one-line warning of an old spelling (--budget)
    assert out.count("\n") == 1
    assert all(ln.startswith("warning: --budget is deprecated") for ln in err.splitlines()), err
    return json.loads(out)


def test_plan_json_keys_and_values():
    d = plan_json("--seed", "3", "--approach", "noprivacy", "--goal", "f4")
    for k in ("success", "route", "length", "messages", "epsilon_spent", "failure", "preset",
              "approach", "seed", "mode", "ledger", "thesis_flaws"):
        assert k in d
    assert d["success"] is True and d["failure"] is None and d["length"] == 550.0
    assert d["route"][0] == "a2" and d["route"][-1] == "f4" and d["messages"] == 24
    assert d["mode"] == "experiment" and d["seed"] == 3 and d["approach"] == "noprivacy"
    assert set(d["epsilon_spent"]) == set("abcdef")
    # No-privacy sends exact crossing lengths: unbounded, null with the reason, in the ledger
    assert d["epsilon_spent"]["b"] is None and "exact" in d["epsilon_spent_reason"]["b"]
    assert d["epsilon_spent"]["a"] == 0.0 and "a" not in d["epsilon_spent_reason"]
    assert d["guarantee"]["epsilon"] is None and d["guarantee"]["epsilon_reason"]
    assert all(e["epsilon"] is None and e["epsilon_reason"] for e in d["ledger"])


def test_plan_dp_sound_and_thesis():
    d = plan_json("--seed", "1")
    assert d["preset"] == "sound" and d["thesis_flaws"] == [] and d["caveats"]
    assert d["epsilon_spent"]["b"] == pytest.approx(0.5)
    assert "epsilon_spent_reason" not in d
    g = d["guarantee"]
    assert g["epsilon"] == pytest.approx(0.5) and g["delta"] == 0.0
    assert "node adjacency" in g["adjacency"] and g["public_parameters"]["d_max"] == 4
    assert {e["agent"] for e in d["ledger"]} == {"b", "c", "d", "e"}
    assert all({"mechanism", "epsilon", "parameters", "released", "mode"} <= set(e)
               for e in d["ledger"])
    t = plan_json("--seed", "1", "--preset", "thesis")
    assert t["preset"] == "thesis" and any(f.startswith("F1") for f in t["thesis_flaws"])
    # the thesis preset proves no bound: null + reason, never its nominal 0.5 per agent
    assert t["epsilon_spent"]["b"] is None and "F5" in t["epsilon_spent_reason"]["b"]
    assert t["guarantee"]["epsilon"] is None and "F4" in t["guarantee"]["epsilon_reason"]
    assert t["epsilon_nominal"]["b"] == pytest.approx(1.5)
    again = plan_json("--seed", "1")
    assert again["route"] == d["route"] and again["ledger"] == d["ledger"]


def test_plan_text_headline_is_the_proven_bound():
    base = ("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5",
            "--seed", "1")
    code, out, err = cli(*base, "--preset", "thesis")
    assert code == 0
    head = [ln for ln in out.splitlines() if ln.startswith("privacy:")]
    assert len(head) == 1 and "NO proven bound" in head[0] and "0.5" not in head[0]
    assert "NOT a guarantee" in out
    code, out, err = cli(*base)
    head = [ln for ln in out.splitlines() if ln.startswith("privacy:")]
    assert len(head) == 1 and "epsilon <= 0.5 per agent" in head[0]
    code, out, err = cli(*base, "--approach", "greedy")
    assert "nothing private was released" in out


def test_plan_release_mode_says_so():
    d = plan_json()
    assert d["mode"] == "release" and d["seed"] is None
    assert all(e["mode"] == "release" for e in d["ledger"])
    code, out, err = cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "1")
    assert code == 0 and "mode: release" in out and "OpenDP" in out


def test_unplannable_task_is_a_result():
    d = plan_json("--seed", "1", "--budget", "2")
    assert d["success"] is False and d["failure"] and d["status"] == "fail_budget"
    assert d["route"] == [] and d["length"] is None
    d = plan_json("--seed", "1", "--budget", "unlimited")
    assert d["comm_budget"] is None and d["comm_budget_reason"] == "unlimited"
    code, out, err = cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", "--seed", "1", "--budget", "0")
    assert code == 0 and "not delivered" in out


def _write(tmp_path: Path, d: dict) -> str:
    p = tmp_path / "bad.map.json"
    p.write_text(json.dumps(d))
    return str(p)


@pytest.mark.parametrize("case", ["disconnected", "one_agent", "origin_center", "goal_agent",
                                  "epsilon", "negative_epsilon", "bad_goal", "missing"])
def test_bad_input_exit_2_one_line(tmp_path, case):
    d = map_to_dict(fig41())
    args = ["--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5"]
    path = FIG41
    expect = ""
    if case == "disconnected":
        d["edges"] = [e for e in d["edges"] if {e["source"], e["target"]} not in
                      ({"b3", "b4"}, {"b5", "B"})]
        path, expect = _write(tmp_path, d), "agent b: local area is disconnected"
    elif case == "one_agent":
        for n in d["nodes"]:
            if n["id"] == "F":
                n["agents"] = ["e"]
        d["edges"] = [e for e in d["edges"] if not (e["source"] == "F" and
                                                   e["target"].startswith("f"))]
        path, expect = _write(tmp_path, d), "node F"
    elif case == "origin_center":
        args[1], expect = "A", "--origin: 'A' is a center, not a base"
    elif case == "goal_agent":
        args[3], expect = "zz", "--goal-agent: unknown agent 'zz'"
    elif case == "epsilon":
        args[5], expect = "0", "--epsilon"
    elif case == "negative_epsilon":
        args[5], expect = "-1", "--epsilon"
    elif case == "bad_goal":
        args += ["--goal", "e2"]
        expect = "--goal"
    else:
        path, expect = str(tmp_path / "nope.map.json"), "file not found"
    code, out, err = cli("plan", path, *args, "--seed", "1", "--json")
    assert code == 2 and json.loads(out)["error"]["exit"] == 2  # --json: the error object
    assert err.count("\n") == 1 and expect in err, err
    if case in ("disconnected", "one_agent", "missing"):
        assert path in err


def test_plan_bench_writes_csv_and_json(tmp_path):
    code, out, err = cli("plan-bench", "B2", "--values", "4,6", "--worlds", "2", "--seed", "5",
                         "--workers", "1", "-o", tmp_path, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["benchmark"] == "B2" and d["worlds"] == 2 and d["seed"] == 5
    assert len(d["rows"]) == 2 * 5 and d["checks"]  # the four approaches and simplified
    assert d["privacy"]["dp"]["epsilon"] == 0.5 and d["privacy"]["greedy"]["epsilon"] == 0.0
    assert d["privacy"]["simplified"]["epsilon"] == 0.0
    assert d["privacy"]["noprivacy"]["epsilon"] is None
    assert d["privacy"]["noprivacy"]["epsilon_reason"]
    rl = [r for r in d["relative_to_dp"] if r["metric"] == "route_length"]
    assert rl and all(r["paired"] for r in rl)
    csv_text = (tmp_path / "B2.csv").read_text()
    assert csv_text.splitlines()[0].startswith("benchmark,n_centers,approach,success")
    assert len(csv_text.splitlines()) == 1 + 10
    assert json.loads((tmp_path / "B2.json").read_text())["rows"] == d["rows"]
    code, out, err = cli("plan-bench", "B9")
    assert code == 2 and err.count("\n") == 1
    code, out, err = cli("plan-bench", "B1", "--approaches", "dp,warp", "--worlds", "1")
    assert code == 2 and "--approaches" in err


def test_plan_bench_text_states_what_each_approach_proves():
    code, out, err = cli("plan-bench", "B1", "--values", "0.2,0.5", "--worlds", "1", "--seed",
                         "2", "--workers", "1")
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("privacy ")]
    assert len(lines) == 3
    assert "swept epsilon per agent (proven" in lines[0]
    assert "dp-thesis: NO proven bound" in lines[1] and "noprivacy: NO proven bound" in lines[2]
