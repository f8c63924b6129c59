"""``synthesise --method lp|induction|softmax``, ``bounds --policy FILE | --softmax TAU`` and
``sweep --policy | --softmax`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.mdp.files import load_mdp
from core.mdp.stochastic import one_hot
from core.mdp.synthesis import synthesize

ROOT = Path(__file__).resolve().parents[3]
EX2 = ROOT / "assets" / "examples" / "example2.mdp.json"
FOUR = ROOT / "assets" / "examples" / "four_startups.mdp.json"


def ok_json(*argv: object) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def refused(flag: str, *argv: object) -> str:
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err, (code, err)
    return err


@pytest.fixture(scope="module")
def private(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("m") / "p.mdp.json"
    code, _, err = cli("privatize", EX2, "--k", "500", "--seed", "4", "-o", path)
    assert code == 0, err
    return path


def test_synthesise_lp_equals_induction_and_checks_itself(private) -> None:
    lp = ok_json("synthesise", private, "--method", "lp", "--check")
    ind = ok_json("synthesise", private)
    assert lp["method"] == "lp" and ind["method"] == "induction"
    assert np.abs(np.array(lp["values"]) - np.array(ind["values"])).max() < 1e-9
    assert lp["check"]["method"] == "induction" and lp["check"]["max_abs_diff"] < 1e-9
    assert len(ind["policy"]) == 10 and len(ind["values"]) == 20 and not ind["stochastic"]
    ref = synthesize(load_mdp(private))
    assert ind["policy"] == ref.policy.tolist() and ind["values"] == ref.values[0].tolist()
    assert ind["value_at_initial"] == ref.values[0][0]
    assert "post-processing" in ind["privacy_note"] and ind["release"]["k"] == 500


def test_one_hot_policy_file_gives_todays_bounds_exactly(private, tmp_path) -> None:
    pol = tmp_path / "greedy.json"
    syn = ok_json("synthesise", private, "-o", pol)
    assert syn["output"] == str(pol)
    table = np.array(json.loads(pol.read_text())["policy"])
    assert table.shape == (10, 20, 5)
    np.testing.assert_array_equal(table, one_hot(syn["policy"], 5))
    today = ok_json("bounds", private, "--k", "500", "--beta", "0.05")
    given = ok_json("bounds", private, "--k", "500", "--beta", "0.05", "--policy", pol)
    for key in ("v_lower", "v_private", "v_upper", "cost_bound", "epsilon", "delta"):
        assert given[key] == today[key], key
    assert given["most_likely"] == today["policy"] and given["stochastic"] is False
    assert given["policy_source"] == "table" and "policy_note" in given


def test_softmax_policy_round_trip_and_lp_cross_check(private, tmp_path) -> None:
    pol = tmp_path / "soft.json"
    syn = ok_json("synthesise", private, "--method", "softmax", "--temperature", "0.05",
                  "-o", pol)
    assert syn["stochastic"] and syn["temperature"] == 0.05
    assert (np.array(syn["values"]) <= np.array(syn["soft_values"]) + 1e-12).all()
    a = ok_json("bounds", private, "--k", "500", "--beta", "0.05", "--policy", pol)
    b = ok_json("bounds", private, "--k", "500", "--beta", "0.05", "--softmax", "0.05")
    c = ok_json("bounds", private, "--k", "500", "--beta", "0.05", "--softmax", "0.05",
                "--method", "lp")
    assert b["policy_source"] == "softmax" and b["stochastic"] and a["stochastic"]
    for key in ("v_lower", "v_upper", "v_private"):
        np.testing.assert_allclose(a[key], b[key], atol=1e-12)
        np.testing.assert_allclose(b[key], c[key], atol=1e-9)
    lo, vp, hi = (np.array(b[k]) for k in ("v_lower", "v_private", "v_upper"))
    assert (lo <= vp + 1e-12).all() and (vp <= hi + 1e-12).all()
    np.testing.assert_allclose(b["policy"], json.loads(pol.read_text())["policy"], atol=0)


def test_bad_policy_input_is_one_line(private, tmp_path) -> None:
    refused("--temperature", "synthesise", private, "--method", "softmax")
    refused("--temperature", "synthesise", private, "--temperature", "1")
    refused("--temperature", "synthesise", private, "--method", "softmax", "--temperature",
            "-1")
    refused("--check", "synthesise", private, "--method", "softmax", "--temperature", "1",
            "--check")
    refused("-o", "synthesise", private, "-o", tmp_path / "x.txt")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"policy": np.full((10, 20, 5), 0.3).tolist()}))
    err = refused("bad.json", "bounds", private, "--k", "500", "--beta", "0.05",
                  "--policy", bad)
    assert "sum to" in err
    bad.write_text(json.dumps({"policy": [[1.0]]}))
    assert "shape" in refused("bad.json", "bounds", private, "--k", "500", "--beta", "0.05",
                              "--policy", bad)
    refused("--softmax", "bounds", private, "--k", "500", "--beta", "0.05", "--softmax", "0")
    refused("--softmax", "bounds", private, "--k", "500", "--beta", "0.05", "--softmax", "1",
            "--policy", bad)


def test_sweep_of_a_stochastic_policy(tmp_path) -> None:
    args = ("sweep", FOUR, "--k", "50,5000", "--runs", "4", "--seed", "2", "--workers", "1")
    greedy = ok_json(*args)
    soft = ok_json(*args, "--softmax", "0.1")
    assert "policy_source" not in greedy and soft["policy_source"] == "softmax"
    assert soft["temperature"] == 0.1 and soft["v_private_mean"] != greedy["v_private_mean"]
    for name in ("v_lower", "v_private", "v_upper"):
        assert len(soft[f"{name}_mean"]) == 2
    assert (np.array(soft["v_lower_mean"]) <= np.array(soft["v_private_mean"])).all()
    # a one-hot policy file: the sweep of that fixed deterministic policy
    m = load_mdp(FOUR)
    pol = tmp_path / "fixed.json"
    pol.write_text(json.dumps({"policy": one_hot(synthesize(m).policy, m.n_actions).tolist()}))
    fixed = ok_json(*args, "--policy", pol)
    assert fixed["policy_source"] == "table"
    # the cost of privacy shrinks with k for the stochastic policy as for the greedy one
    assert soft["cost_bound_mean"][1] < soft["cost_bound_mean"][0]
