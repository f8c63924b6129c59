"""The MDP guarantee on the command line (Build 1, 4, 5).

``sweep --json`` never breaks on models without a finite guarantee (null + reason);
``privatize`` states its guarantee whole in its output and in the written file (JSON
"release" object, NPZ ``release_json``); ``bounds`` restates it as post-processing;
``--eta`` / ``--domain-rule`` reach the mechanism and the accounting alike.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.mdp.accounting import DEFAULT_DOMAIN_RULE, DEFAULT_ETA, mdp_privacy
from core.mdp.examples import four_startups
from core.mdp.files import load_mdp, read_release, save_mdp
from core.mdp.model import MDP
from core.mdp.privatize import mechanism_rows
from core.privacy.dirichlet import dirichlet_rows

ROOT = Path(__file__).resolve().parents[3]
FOUR = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")
GUARANTEE_KEYS = ("epsilon", "delta", "adjacency", "adjacency_text", "k", "eta", "b",
                  "delta_target", "domain_rule", "zeros", "mode", "seed", "statement")


def cli_json(*argv: object) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1 and "Infinity" not in out and "NaN" not in out
    return json.loads(out)


def _save(tmp_path: Path, P: np.ndarray, horizon: int | None = 3, name: str = "m") -> Path:
    S, A = P.shape[0], P.shape[1]
    path = tmp_path / f"{name}.mdp.json"
    save_mdp(MDP(P=P, R=np.zeros((S, A)), R_T=np.arange(S, dtype=float), horizon=horizon,
                 discount=1.0 if horizon else 0.9), path)
    return path


def _sweep(path: Path, *extra: object) -> dict:
    return cli_json("sweep", path, "--k", "0.01,50", "--runs", "2", "--seed", "1",
                    "--workers", "1", *extra)


def _check_unbounded_or_finite(d: dict) -> None:
    for i, e in enumerate(d["epsilon"]):
        if e is None:
            assert isinstance(d["epsilon_reason"][i], str) and d["epsilon_reason"][i]
        else:
            assert math.isfinite(e) and 0 <= d["delta"][i] <= 1


# ------------------------------------------------------------------ item 5: sweep --json
def test_sweep_json_absorbing_state(tmp_path: Path) -> None:
    P = np.zeros((3, 1, 3))
    P[0, 0] = (0.2, 0.3, 0.5)
    P[1, 0] = (0.0, 1.0, 0.0)  # absorbing
    P[2, 0] = (0.0, 0.0, 1.0)  # absorbing
    d = _sweep(_save(tmp_path, P), "--delta-method", "union")
    assert d["epsilon"][0] is None and "too small" in d["epsilon_reason"][0]  # k = 0.01
    # the exact profile (the default) is finite at every k > 0
    assert all(e is not None for e in _sweep(_save(tmp_path, P))["epsilon"])
    _check_unbounded_or_finite(d)
    # the absorbing rows have (0, 0): with a declared eta the sweep is bounded at k = 50
    d = _sweep(_save(tmp_path, P), "--eta", "0.2")
    assert d["epsilon"][1] is not None and d["epsilon"][1] > 0
    rows = d["privacy_rows"][1]
    assert [(r["support"], r["epsilon"], r["delta"]) for r in rows[1:]] == [(1, 0.0, 0.0)] * 2


def test_sweep_json_two_outcome_row(tmp_path: Path) -> None:
    P = np.zeros((2, 1, 2))
    P[0, 0] = (0.4, 0.6)
    P[1, 0] = (0.7, 0.3)
    d = _sweep(_save(tmp_path, P), "--eta", "0.3")
    _check_unbounded_or_finite(d)
    assert d["epsilon"][1] is not None  # a two-outcome row has a finite guarantee now
    assert all(r["support"] == 2 and r["applicable"] for r in d["privacy_rows"][1])


@pytest.mark.parametrize("horizon", [3, None])
def test_sweep_json_one_state(tmp_path: Path, horizon: int | None) -> None:
    d = _sweep(_save(tmp_path, np.ones((1, 1, 1)), horizon=horizon))
    assert d["epsilon"] == [0.0, 0.0] and d["delta"] == [0.0, 0.0]  # nothing to hide
    assert "epsilon_reason" not in d


def test_sweep_json_small_k_is_null_with_a_reason() -> None:
    # under the union bound k = 0.001 and k = 3 are too small for the default eta
    # (k·eta = 1e-6, 3e-3): null with the reason; k = 10 is finite
    d = cli_json("sweep", FOUR, "--k", "0.001,3,10", "--runs", "2", "--seed", "1",
                 "--workers", "1", "--delta-method", "union")
    assert d["epsilon"][:2] == [None, None] and d["epsilon"][2] is not None
    assert len(d["epsilon_reason"]) == 3 and d["epsilon_reason"][2] is None
    assert all("6 of 6 rows" in r and "start/acquire_1" in r for r in d["epsilon_reason"][:2])
    assert all(r["epsilon"] is None and r["epsilon_reason"] for r in d["privacy_rows"][0])
    assert d["eta"] == DEFAULT_ETA == "auto" and d["domain_rule"] == DEFAULT_DOMAIN_RULE == "mix"
    assert math.isfinite(d["epsilon"][2]) and d["delta"][2] <= 0.05
    # the same refuse-mode statement at eta = 1e-6 (the old default): null at k = 10
    d = cli_json("sweep", FOUR, "--k", "10", "--runs", "1", "--seed", "1", "--workers", "1",
                 "--eta", "1e-6", "--domain-rule", "refuse", "--delta-method", "union")
    assert d["epsilon"] == [None] and "too small" in d["epsilon_reason"][0]


def test_sweep_text_says_unbounded() -> None:
    code, out, _ = cli("sweep", FOUR, "--k", "3", "--runs", "1", "--seed", "1", "--workers",
                       "1", "--delta-method", "union")
    assert code == 0 and "no finite (ε, δ) guarantee" in out and "too small" in out


# ------------------------------------------------------------------ the declared domain
@pytest.mark.parametrize("sub", ["sweep", "privatize"])
def test_refuse_below_eta_is_a_one_line_exit_2(tmp_path: Path, sub: str) -> None:
    # four startups has entries 0.01 < 0.02: 'refuse' stops with one line naming the row.
    # (bounds is not here: it restates a release's guarantee from its supports alone.)
    extra = {"sweep": ("--runs", "1", "--seed", "1", "--workers", "1"),
             "privatize": ("--seed", "1", "-o", tmp_path / "x.mdp.json")}[sub]
    code, out, err = cli(sub, FOUR, "--k", "50", *extra, "--eta", "0.02",
                         "--domain-rule", "refuse")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--eta" in err and "P(start, acquire_1)" in err and "mix" in err
    assert "Traceback" not in err and not (tmp_path / "x.mdp.json").exists()


def test_eta_and_domain_rule_flags(tmp_path: Path) -> None:
    # the same model and eta under the default rule: mixed, finite, stated
    d = cli_json("sweep", FOUR, "--k", "50", "--runs", "1", "--seed", "1", "--workers", "1",
                 "--eta", "0.02")
    want = mdp_privacy(four_startups(), 50, eta=0.02, domain_rule="mix")
    assert d["epsilon"] == [pytest.approx(want.epsilon, rel=1e-12)]
    assert d["domain_rule"] == "mix" and "(1 - n·eta)·b" in d["adjacency_text"]
    explicit = cli_json("sweep", FOUR, "--k", "50", "--runs", "1", "--seed", "1", "--workers",
                        "1", "--eta", "0.02", "--domain-rule", "mix")
    assert explicit == {**d, "elapsed_s": explicit["elapsed_s"]}
    for bad, flag in ((("--eta", "0"), "--eta"), (("--eta", "1.5"), "--eta"),
                      (("--domain-rule", "clip"), "--domain-rule")):
        code, out, err = cli("privatize", FOUR, "--k", "5", "-o", tmp_path / "x.mdp.json",
                             *bad)
        assert code == 2 and flag in err and err.count("\n") == 1


@pytest.mark.parametrize("sub", ["privatize", "sweep", "bounds"])
def test_help_shows_the_public_parameters_and_defaults(sub: str, capsys) -> None:
    code, _, _ = cli(sub, "--help")  # argparse prints the help on sys.stdout
    assert code == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert "--eta H|auto" in flat and "--domain-rule" in flat
    assert "'auto' (the default): eta = min(0.001, 1/(2n))" in flat
    assert "--delta-method" in flat and "exact privacy profile" in flat
    assert "'mix' (default)" in flat and "default domain rule 'mix'" in flat
    assert "'refuse' privatises the rows as they are" in flat
    for stale in ("1e-06", "5000", "'refuse' (default)", "refuse (default)"):
        assert stale not in flat, stale
    assert "refuse" in flat and "mix" in flat and "--b" in flat and "--delta" in flat
    if sub == "bounds":
        assert "processing of that release" in flat  # post-processing


# ------------------------------------------------------------------ item 6: privatize
def test_privatize_json_states_the_guarantee_in_output_and_file(tmp_path: Path) -> None:
    out_path = tmp_path / "p.mdp.json"
    r = cli_json("privatize", FOUR, "--k", "50", "--seed", "4", "--eta", "0.01", "-o",
                 out_path)
    want = mdp_privacy(four_startups(), 50, eta=0.01)  # the defaults: domain rule 'mix'
    for key in GUARANTEE_KEYS:
        assert key in r, key
    assert r["epsilon"] == pytest.approx(want.epsilon, rel=1e-12)
    assert r["delta"] == pytest.approx(want.delta, rel=1e-12)
    assert (r["k"], r["eta"], r["b"], r["delta_target"]) == (50, 0.01, 0.1, 0.05)
    assert (r["domain_rule"], r["mode"], r["seed"], r["adjacency"]) == (
        "mix", "experiment", 4, "one-row")
    assert "differ in one transition row" in r["adjacency_text"]
    release = json.loads(out_path.read_text())["release"]
    assert release == read_release(out_path)
    assert {k: release[k] for k in GUARANTEE_KEYS} == {k: r[k] for k in GUARANTEE_KEYS}
    # the written rows are Dir_k around exactly the rows the accounting describes
    prep = mechanism_rows(four_startups(), eta=0.01)
    assert np.allclose(load_mdp(out_path).P[prep.index[:, 0], prep.index[:, 1]],
                       dirichlet_rows(prep.rows, 50, 4), atol=1e-15)


def test_privatize_npz_carries_release_json_and_still_loads(tmp_path: Path) -> None:
    src = tmp_path / "m.mdp.npz"
    save_mdp(four_startups(), src)
    out_path = tmp_path / "o.mdp.npz"
    r = cli_json("privatize", src, "--k", "3", "-o", out_path,  # release mode, default eta
                 "--delta-method", "union")
    assert r["mode"] == "release" and r["seed"] is None
    assert r["epsilon"] is None and "too small" in r["epsilon_reason"]  # k·eta = 3e-3
    with np.load(out_path, allow_pickle=False) as z:
        assert "release_json" in z.files
    release = read_release(out_path)
    assert release["epsilon"] is None and release["epsilon_reason"] == r["epsilon_reason"]
    assert release["mode"] == "release" and release["k"] == 3
    assert load_mdp(out_path).P.shape == (3, 4, 3)
    assert read_release(src) is None


def test_privatize_text_states_the_guarantee(tmp_path: Path) -> None:
    code, out, err = cli("privatize", FOUR, "--k", "20", "-o", tmp_path / "t.mdp.json")
    want = mdp_privacy(four_startups(), 20)
    assert code == 0 and "release" in out and want.bounded
    assert f"k = 20: ({want.epsilon:.4g}, {want.delta:.3g})-DP" in out
    assert "adjacency" in out and "eta = auto" in out and "domain rule 'mix'" in out
    assert "eta = 0.001, radius" in out  # the value the rule gave these rows
    assert "(1 - n·eta)·b" in out  # what mixing does to the radius is stated
    assert "no finite" not in out + err
    code, out, err = cli("privatize", FOUR, "--k", "3", "-o", tmp_path / "u.mdp.json",
                         "--delta-method", "union")
    assert code == 0 and "no finite (ε, δ) guarantee" in out
    assert "no finite (epsilon, delta) guarantee" in err  # warned on stderr too


def test_bounds_restates_the_release_guarantee(tmp_path: Path) -> None:
    out_path = tmp_path / "p.mdp.json"
    rel = cli_json("privatize", FOUR, "--k", "50", "--seed", "4", "--eta", "0.01",
                   "--b", "0.05", "-o", out_path)
    r = cli_json("bounds", out_path, "--k", "50", "--beta", "0.05")
    assert r["release"]["epsilon"] == rel["epsilon"]
    assert r["epsilon"] == pytest.approx(rel["epsilon"], rel=1e-12)
    assert r["privacy"]["eta"] == 0.01 and r["privacy"]["b"] == 0.05  # from the file
    assert "post-processing" in r["privacy_note"]
    # a file without release metadata: the flags (or privatize's defaults) are used
    plain = cli_json("bounds", FOUR, "--k", "50", "--beta", "0.05", "--eta", "0.01")
    assert plain["release"] is None and plain["privacy"]["eta"] == 0.01
    assert plain["epsilon"] == pytest.approx(mdp_privacy(four_startups(), 50,
                                                         eta=0.01).epsilon, rel=1e-12)
    code, _, err = cli("bounds", out_path, "--k", "60", "--beta", "0.05")
    assert code == 0 and "differs from k = 50" in err


# ------------------------------------------------------------------ the defaults
@pytest.mark.parametrize("name", ["four_startups.mdp.json", "example2.mdp.json",
                                  "example2.mdp.npz"])
def test_defaults_give_the_builtin_examples_a_finite_statement(tmp_path: Path,
                                                                name: str) -> None:
    """``privatize`` with no privacy flag (eta auto, rule 'mix') states a finite (ε, δ)
    with δ <= 0.05 for every shipped example at k = 10 … 10⁴, in its output and file."""
    src = ROOT / "assets" / "examples" / name
    ext = ".mdp.npz" if name.endswith(".npz") else ".mdp.json"
    for k in (10, 100, 1000, 10000):
        out_path = tmp_path / f"p{k}{ext}"
        r = cli_json("privatize", src, "--k", k, "--seed", "1", "-o", out_path)
        assert (r["eta"], r["domain_rule"], r["b"], r["delta_target"]) == (
            "auto", "mix", 0.1, 0.05)
        assert r["epsilon"] is not None and math.isfinite(r["epsilon"]) and r["epsilon"] > 0
        assert 0 < r["delta"] <= 0.05 and "epsilon_reason" not in r
        assert read_release(out_path)["epsilon"] == r["epsilon"]
