"""Packet routing: the Figs 4.9–4.11 studies and ``plan --domain packet``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cli_run import cli

from core.common.errors import InputError
from core.logistics.packet import PACKET_METRICS, packet_arm, packet_claims, packet_study
from core.study import evaluate_claims, run_study

ROOT = Path(__file__).resolve().parents[3]
FIG41 = str(ROOT / "assets" / "examples" / "fig41.map.json")


def test_arm_is_reproducible_and_static_means_no_replans():
    a = packet_arm(11, approach="dp", n_centers=4, dynamics=0.2)
    assert a == packet_arm(11, approach="dp", n_centers=4, dynamics=0.2)
    assert set(a) == set(PACKET_METRICS)
    s = packet_arm(11, approach="bestfirst", n_centers=4, dynamics=0.0)
    assert s["replans"] == 0 and s["broken"] == 0
    assert 0.0 <= s["success"] <= 1.0


def test_dynamics_break_routes_somewhere():
    """A seeded run with churn 0.2 has routes that broke and were re-planned."""
    m = packet_arm(5, approach="dp", n_centers=10, dynamics=0.2)
    assert m["broken"] > 0 and m["replans"] >= m["broken"]
    assert packet_arm(5, approach="dp", n_centers=10, dynamics=0.0)["broken"] == 0


@pytest.mark.parametrize("kw, field", [({"n": 1}, "seeds"), ({"values": [0.0]}, "values"),
                                       ({"approaches": ["nope"]}, "approaches"),
                                       ({"per": "tick"}, "dynamics_per"),
                                       ({"dynamics": 0.0}, "dynamics")])
def test_bad_study_settings_name_the_field(kw, field):
    with pytest.raises(InputError) as e:
        packet_study("fig411", **kw)
    assert e.value.field == field


def test_study_points_and_claims():
    st = packet_study("fig49", values=[4, 6], n=3, master_seed=1, approaches=["dp", "greedy"])
    assert [dict(p) for p in st.points] == [
        {"n_centers": 4, "dynamics": 0.0}, {"n_centers": 4, "dynamics": 0.1},
        {"n_centers": 6, "dynamics": 0.0}, {"n_centers": 6, "dynamics": 0.1}]
    assert len(packet_claims(st)) == 2 * 2 * 2  # 2 approaches x 2 sizes x (success, msgs)
    f11 = packet_study("fig411", values=[0.2, 0.1], n=3)
    assert [p["dynamics"] for p in f11.points] == [0.0, 0.1, 0.2]  # static reference added
    assert {a.name for a in packet_study("fig410", n=3).arms} == {"dp"}


def test_a_small_study_runs_with_intervals_and_paired_claims():
    st = packet_study("fig411", values=[0.3], n=3, master_seed=5, approaches=["greedy"])
    res = run_study(st, workers=1)
    s = res.summary("success", "greedy", 1)
    assert s.n + s.n_missing == 3 and s.mean_lo <= s.mean <= s.mean_hi
    claims = evaluate_claims(res, packet_claims(st))
    assert [c.claim.metric for c in claims] == ["success", "messages"]
    assert all(math.isfinite(c.p) for c in claims)


def test_plan_domain_packet_json():
    code, out, err = cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", "--seed", "3", "--domain", "packet", "--dynamics", "0.2",
                         "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["domain"] == "packet" and d["dynamics"]["p_leave"] == 0.2
    assert d["dynamics"]["connectivity"] == "network" and isinstance(d["replans"], int)
    # under splitting dynamics DP proves no finite epsilon: null with the reason
    assert d["guarantee"]["epsilon"] is None and d["guarantee"]["epsilon_reason"]
    static = json.loads(cli("plan", FIG41, "--origin", "a2", "--goal-agent", "f",
                            "--epsilon", "0.5", "--seed", "3", "--json")[1])
    assert static["domain"] == "logistics" and static["dynamics"] is None


@pytest.mark.parametrize("argv, flag", [
    (["plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5",
      "--dynamics", "0.1"], "--dynamics"),
    (["plan", FIG41, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5",
      "--domain", "packet", "--dynamics", "1.5"], "--dynamics"),
    (["plan-bench"], "--experiment"),
    (["plan-bench", "B1", "--experiment", "fig411"], "--experiment"),
    (["plan-bench", "--experiment", "fig411", "--worlds", "1"], "--worlds"),
    (["plan-bench", "--experiment", "fig49", "--values", "1"], "--values"),
])
def test_cli_bad_input_exit_2_one_line(argv, flag):
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err
    assert "Traceback" not in err


def test_plan_bench_experiment_json(tmp_path):
    code, out, err = cli("plan-bench", "--experiment", "fig411", "--values", "0.3",
                         "--worlds", "2", "--seed", "4", "--workers", "1",
                         "--approaches", "greedy", "-o", tmp_path, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["experiment"] == "fig411" and d["claims_total"] == 2
    assert d["study"]["master_seed"] == 4
    assert d["privacy_under_dynamics"]["greedy"]["epsilon"] is None
    assert (tmp_path / "fig411.json").exists() and (tmp_path / "fig411.md").exists()
