"""The command-line contract of docs/formats-and-cli.md §5 for privatize, bounds and sweep."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.mdp.examples import four_startups
from core.mdp.files import load_mdp, save_mdp
from core.mdp.robust import cost_of_privacy
from core.mdp.synthesis import synthesize

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "assets" / "examples"
FOUR = str(EXAMPLES / "four_startups.mdp.json")


def cli_json(*argv: str) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1, "--json prints exactly one object on one line"
    return json.loads(out)


# ------------------------------------------------------------------------- privatize
def test_privatize_json_writes_same_kind_and_is_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.mdp.json", tmp_path / "b.mdp.json"
    ra = cli_json("privatize", FOUR, "--k", "50", "--seed", "11", "-o", a)
    cli_json("privatize", FOUR, "--k", "50", "--seed", "11", "-o", b)
    assert ra["output"] == str(a) and ra["rows"] == 6 and ra["k"] == 50 and ra["seed"] == 11
    assert ra["mode"] == "experiment"
    pa, pb = load_mdp(a), load_mdp(b)
    assert np.array_equal(pa.P, pb.P)
    true = four_startups()
    assert not np.array_equal(pa.P, true.P)
    assert np.allclose(pa.P[pa.mask].sum(axis=1), 1.0, atol=1e-12)
    assert ((pa.P > 0) == (true.P > 0)).all()  # support-restricted by default
    release = json.loads(a.read_text())["release"]
    assert release["mechanism"] == "dirichlet" and release["seed"] == 11


def test_privatize_without_seed_is_release_mode_and_says_so(tmp_path: Path) -> None:
    src = tmp_path / "m.mdp.npz"
    save_mdp(four_startups(), src)
    out = tmp_path / "o.mdp.npz"
    r = cli_json("privatize", src, "--k", "20", "-o", out)
    assert r["mode"] == "release" and r["seed"] is None
    assert load_mdp(out).P.shape == (3, 4, 3)
    code, text, _ = cli("privatize", src, "--k", "20", "-o", out)
    assert code == 0 and "release" in text


def test_privatize_output_kind_must_match(tmp_path: Path) -> None:
    code, out, err = cli("privatize", FOUR, "--k", "5", "-o", tmp_path / "x.mdp.npz")
    assert code == 2 and out == "" and err.count("\n") == 1 and "-o" in err


# ------------------------------------------------------------------------- bounds
def test_bounds_json_keys_and_values_match_core() -> None:
    r = cli_json("bounds", FOUR, "--k", "100", "--beta", "0.05")
    for key in ("alpha", "policy", "v_private", "v_lower", "v_upper", "cost_bound", "elapsed_s"):
        assert key in r
    from core.mdp.privatize import DEFAULT_ETA
    from core.mdp.robust import release_centre_shift

    # no release metadata: privatize's defaults (mix, DEFAULT_ETA) widen α by the centre shift
    ref = cost_of_privacy(four_startups(), k=100, beta=0.05, centre_shift=release_centre_shift(
        four_startups(), eta=DEFAULT_ETA, domain_rule="mix"))
    assert r["alpha_shift"] == pytest.approx(2 * 1e-3, rel=1e-12)  # auto: η = 0.001 (n = 3)
    assert r["policy"] == ref.policy.tolist() and len(r["policy"]) == 3  # T lists
    assert r["v_lower"] == pytest.approx(ref.v_lower[0].tolist(), abs=1e-12)
    assert r["v_upper"] == pytest.approx(ref.v_upper[0].tolist(), abs=1e-12)
    assert r["cost_bound"] == pytest.approx(ref.cost_bound, abs=1e-12)
    assert r["alpha"] == pytest.approx(ref.alpha)
    assert all(lo <= v + 1e-12 <= hi + 2e-12 for lo, v, hi in
               zip(r["v_lower"], r["v_private"], r["v_upper"]))


def test_bounds_lp_method_agrees_with_greedy() -> None:
    g = cli_json("bounds", FOUR, "--k", "30", "--beta", "0.1", "--alpha", "rigorous")
    lp = cli_json("bounds", FOUR, "--k", "30", "--beta", "0.1", "--alpha", "rigorous",
                  "--method", "lp")
    assert lp["method"] == "lp" and g["alpha_mode"] == "rigorous"
    assert lp["v_lower"] == pytest.approx(g["v_lower"], abs=1e-9)
    assert lp["v_upper"] == pytest.approx(g["v_upper"], abs=1e-9)


def test_bounds_infinite_horizon_policy_is_one_list(tmp_path: Path) -> None:
    m = four_startups().replace(horizon=None, discount=0.9)
    path = tmp_path / "inf.mdp.json"
    save_mdp(m, path)
    r = cli_json("bounds", path, "--k", "50", "--beta", "0.05")
    assert r["policy"] == synthesize(m).policy.tolist() and r["horizon"] is None


# ------------------------------------------------------------------------- sweep
def test_sweep_json_lists_aligned_with_k_and_seeded() -> None:
    args = ("sweep", FOUR, "--k", "10,1000", "--runs", "4", "--beta", "0.05", "--seed", "3",
            "--workers", "1")
    r = cli_json(*args)
    assert r["k"] == [10.0, 1000.0] and r["seed"] == 3 and r["mode"] == "experiment"
    for q in ("v_lower", "v_private", "v_true", "v_upper", "cost_bound", "cost_empirical"):
        assert len(r[f"{q}_mean"]) == 2 and len(r[f"{q}_sd"]) == 2
    assert r == {**cli_json(*args), "elapsed_s": r["elapsed_s"]}  # same seed, same numbers
    assert r["cost_bound_mean"][1] < r["cost_bound_mean"][0]


def test_sweep_without_seed_reports_the_drawn_seed() -> None:
    r = cli_json("sweep", FOUR, "--k", "10", "--runs", "2", "--workers", "1")
    assert r["seed_drawn_from_os"] is True and isinstance(r["seed"], int)


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("bounds", FOUR, "--k", "0", "--beta", "0.1"), "--k"),
        (("bounds", FOUR, "--k", "-3", "--beta", "0.1"), "--k"),
        (("bounds", FOUR, "--k", "10", "--beta", "1"), "--beta"),
        (("bounds", FOUR, "--k", "10", "--beta", "0"), "--beta"),
        (("bounds", FOUR, "--k", "10", "--beta", "nan"), "--beta"),  # --beta defaults to 0.05
        (("bounds", FOUR, "--k", "x", "--beta", "0.1"), "--k"),
        (("sweep", FOUR, "--k", "10,abc", "--runs", "2"), "--k"),
        (("sweep", FOUR, "--k", "10", "--runs", "0"), "--runs"),
        (("sweep", FOUR, "--k", "10", "--runs", "2", "--workers", "0"), "--workers"),
        (("privatize", FOUR, "--k", "nan", "-o", "x.mdp.json"), "--k"),
        (("bounds", "missing.mdp.json", "--k", "10", "--beta", "0.1"), "missing.mdp.json"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: tuple[str, ...], needle: str) -> None:
    code, out, err = cli(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert needle in err


BAD_MODELS = {
    "rows.mdp.json": ({"a": {"go": {"a": 0.5, "b": 0.4}}, "b": {"stay": {"b": 1.0}}},
                      ["'a'", "'go'", "sum"]),
    "neg.mdp.json": ({"a": {"go": {"a": -0.5, "b": 1.5}}, "b": {"stay": {"b": 1.0}}},
                     ["'a'", "'go'", ">= 0"]),
    "unknown.mdp.json": ({"a": {"go": {"zz": 1.0}}, "b": {"stay": {"b": 1.0}}}, ["'zz'"]),
    "noaction.mdp.json": ({"a": {"go": {"b": 1.0}}, "b": {}}, ["'b'", "no actions"]),
}


@pytest.mark.parametrize("name", sorted(BAD_MODELS))
def test_bad_models_name_file_state_action(tmp_path: Path, name: str) -> None:
    trans, needles = BAD_MODELS[name]
    path = tmp_path / name
    path.write_text(json.dumps({"format": "privplan-mdp", "version": 1, "states": ["a", "b"],
                                "horizon": 2, "transitions": trans}))
    code, out, err = cli("bounds", path, "--k", "10", "--beta", "0.1")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert name in err
    for n in needles:
        assert n in err


def test_malformed_json_and_infinite_discount(tmp_path: Path) -> None:
    bad = tmp_path / "broken.mdp.json"
    bad.write_text('{"format": "privplan-mdp", "states": [')
    code, _, err = cli("bounds", bad, "--k", "10", "--beta", "0.1")
    assert code == 2 and "broken.mdp.json" in err and "line" in err
    inf = tmp_path / "inf.mdp.json"
    inf.write_text(json.dumps({"format": "privplan-mdp", "states": ["a"], "horizon": None,
                               "discount": 1.0, "transitions": {"a": {"s": {"a": 1.0}}}}))
    code, _, err = cli("sweep", inf, "--k", "10", "--runs", "1")
    assert code == 2 and "discount" in err and err.count("\n") == 1


def test_app_entry_point_runs_headless_subcommand() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "app.py"), "bounds", FOUR, "--k", "10",
                           "--beta", "0.2", "--json"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)) >= {"policy", "v_lower", "v_upper", "cost_bound"}
    proc = subprocess.run([sys.executable, str(ROOT / "app.py"), "bounds", FOUR, "--k", "0",
                           "--beta", "0.2"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--k" in proc.stderr
