"""``advise`` and ``advise-bench`` (docs/formats-and-cli.md §5): JSON keys, modes, one-line
errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import cli

from core.advising.framework import run_advising
from core.advising.presets import preset


def cli_json(*argv: object) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1, "--json prints exactly one object on one line"
    return json.loads(out)


def test_advise_json_keys_and_reproducibility():
    d = cli_json("advise", "--preset", "exp2", "--strategy", "dp", "--epsilon", "0.7",
                 "--epochs", "120", "--seed", "4")
    for key in ("convergence", "advice_events", "epsilon_spent", "strategy", "preset", "seed",
                "mode", "epochs", "composition", "variant", "advice_per_epoch",
                "unprotected_releases", "notes"):
        assert key in d, key
    assert (d["strategy"], d["preset"], d["seed"], d["mode"], d["epochs"], d["variant"]) == (
        "dp", "exp2", 4, "experiment", 120, "sound")
    assert len(d["convergence"]) == 120 and len(d["epsilon_spent"]) == 10
    assert d["advice_total"] == len(d["advice_events"]) > 0
    ev = d["advice_events"][0]
    assert set(ev) >= {"epoch", "student", "teacher", "task", "case", "distance", "action"}
    comp = d["composition"]
    assert comp["accountants"]["rdp"].startswith("Renyi") and comp["delta"] == 1e-5
    assert comp["epsilon_per_release"] == 0.7
    same = run_advising(preset("exp2", strategy="dp", epsilon=0.7, epochs=120), rng=4)
    assert d["convergence"] == same.convergence.tolist()
    assert cli_json("advise", "--preset", "exp2", "--epsilon", "0.7", "--epochs", "120",
                    "--seed", "4")["convergence"] == d["convergence"]


def test_advise_thesis_variant_reports_unbounded_not_nominal_epsilon():
    """raw releases are never free. The thesis variant releases raw
    Q-values (identical sets) and draws advice from the raw policy: epsilon_spent is null
    with a reason for every teacher (never 0, never the nominal figure)."""
    d = cli_json("advise", "--preset", "table35", "--variant", "thesis", "--epochs", "60",
                 "--seed", "0", "--summary")
    assert d["variant"] == "thesis" and d["noise_sensitivity"] == 1.0
    assert d["strict_sensitivity"] == 2.0
    assert d["epsilon_spent"] == [None] * 10
    assert all("no finite epsilon" in why for why in d["epsilon_spent_reason"])
    assert d["epsilon_per_advice"] is None and d["epsilon_per_advice_reason"]
    assert d["composition"]["basic"] == [None] * 10 and d["composition"]["basic_reason"]
    assert sum(d["unprotected_releases"]) > 0
    assert all(x > 0 for x in d["epsilon_spent_nominal"])  # the thesis's own (not a bound)
    assert isinstance(d["advice_events"], int)
    assert any("2-DP" in n for n in d["notes"])
    code, out, err = cli("advise", "--preset", "table35", "--variant", "thesis", "--epochs",
                         "60", "--seed", "0")
    assert code == 0 and "delta 0) unbounded (raw data left" in out
    assert "unbounded: u1 released raw Q-values" in out and " inf" not in out


def test_advise_sound_variant_states_epsilon_per_advice_and_adjacency():
    d = cli_json("advise", "--preset", "exp2", "--epsilon", "0.5", "--epochs", "40",
                 "--seed", "1", "--summary")
    assert d["epsilon_per_advice"] == 0.5 and "one Q-table entry" in d["adjacency"]
    assert all(isinstance(x, float) and x > 0 for x in d["epsilon_spent"])
    assert "epsilon_spent_reason" not in d and sum(d["unprotected_releases"]) == 0
    code, out, err = cli("advise", "--preset", "exp2", "--epsilon", "0.5", "--epochs", "40",
                         "--seed", "1", "--direction-guard", "--json", "--summary")
    g = json.loads(out)
    assert code == 0 and g["epsilon_per_advice"] is None and g["epsilon_spent"][0] is None
    assert "direction guard" in g["epsilon_spent_reason"][0]


def test_advise_without_seed_is_release_mode_and_says_so():
    code, out, err = cli("advise", "--preset", "fig32", "--epochs", "20")
    assert code == 0, err
    assert "mode: release" in out and "OpenDP" in out
    d = cli_json("advise", "--preset", "fig32", "--epochs", "20")
    assert d["mode"] == "release" and d["seed"] is None


def test_advise_text_output():
    code, out, err = cli("advise", "--preset", "exp1", "--strategy", "traditional",
                         "--epochs", "50", "--seed", "1")
    assert code == 0 and err == ""
    assert "seeded experiment (seed 1)" in out and "no DP protection" in out
    assert "epsilon spent unbounded" in out
    assert "convergence ratio: epoch 1" in out


def test_advise_setup_file(tmp_path: Path):
    f = tmp_path / "s.json"
    s = preset("fig32", epochs=40).to_dict()
    f.write_text(json.dumps(s))
    d = cli_json("advise", "--setup", f, "--seed", "2", "--strategy", "traditional")
    assert d["strategy"] == "traditional" and d["epochs"] == 40
    assert d["agents"] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("variant", ["thesis", "sound"])
def test_a_variant_flag_on_a_setup_file_sets_the_whole_variant(tmp_path: Path, variant: str):
    """``--variant`` on a ``--setup`` file sets every parameter of the variant (its
    sensitivity, noise switch and advice prior), so the run reports that variant, as a preset
    with the same flag does."""
    other = "sound" if variant == "thesis" else "thesis"
    f = tmp_path / "s.json"
    f.write_text(json.dumps(preset("fig32", epochs=5, variant=other).to_dict()))
    d = cli_json("advise", "--setup", f, "--seed", "2", "--variant", variant)
    want = preset("fig32", epochs=5, variant=variant)
    assert d["variant"] == want.params.variant == variant


def _write(tmp_path: Path, mutate) -> Path:
    d = preset("fig32", epochs=10).to_dict()
    mutate(d)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    return f


@pytest.mark.parametrize("mutate,fragment", [
    (lambda d: d["agents"][2].update(servers=[]), "action_sets[c]: is empty"),
    (lambda d: d["agents"][1].update(servers=["A", "Q"]), "action_sets[b]: unknown server 'Q'"),
    (lambda d: d["rewards"][0].__setitem__(1, "fast"), "rewards[1][B]: must be a number"),
    (lambda d: d["params"].update(epsilon=0), "epsilon"),
])
def test_bad_setup_files_exit_2_with_one_line(tmp_path: Path, mutate, fragment):
    f = _write(tmp_path, mutate)
    code, out, err = cli("advise", "--setup", f, "--seed", "1")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and str(f) in err


@pytest.mark.parametrize("argv,fragment", [
    (["--epsilon", "0"], "--epsilon: must be a finite number > 0"),
    (["--epsilon", "-2"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon"),
    (["--d", "-0.1"], "--d: must be >= 0"),
    (["--epochs", "0"], "--epochs"),
    (["--budget", "-1"], "--budget"),
    (["--alpha", "2"], "--alpha"),
    (["--seed", "-1"], "--seed"),
    (["--delta", "2"], "--delta"),
    (["--sensitivity", "abc"], "--sensitivity"),
    (["--preset", "nope"], "--preset"),
    (["--setup", "/no/such/file.json"], "file not found"),
])
def test_bad_flags_exit_2_with_one_line(argv, fragment):
    code, out, err = cli("advise", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_advise_bench_csv_and_json(tmp_path: Path):
    csv = tmp_path / "bench.csv"
    d = cli_json("advise-bench", "--experiment", "exp2,exp3", "--seeds", "2", "--seed", "5",
                 "--epochs", "40", "--epsilons", "0.5,2", "--workers", "1", "--csv", csv,
                 "--variant", "both")
    assert d["variants"] == ["thesis", "sound"] and d["seed"] == 5 and not d["seed_drawn_from_os"]
    e3 = d["experiments"]["sound"]["exp3"]
    assert e3["labels"] == ["no advice", "dp eps=0.5", "dp eps=2"] and e3["seeds"] == [5, 6]
    assert len(e3["arms"][0]["convergence_mean"]) == 40
    verdicts = {c["id"]: c["verdict"] for c in d["claims"]["thesis"]}
    assert verdicts["exp1-asymptote"] == "not run" and verdicts["exp3-monotone"] != "not run"
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("experiment,arm") and len(lines) == 1 + 2 * (3 + 3) * 40
    # Thesis arms release raw data: the worst teacher's epsilon is null with a reason.
    th = d["experiments"]["thesis"]["exp2"]["arms"]
    dp = th[d["experiments"]["thesis"]["exp2"]["labels"].index("dp")]["summary"]
    assert dp["epsilon_spent_max"] is None and "raw" in dp["epsilon_spent_max_reason"]
    snd = d["experiments"]["sound"]["exp2"]
    dp = snd["arms"][snd["labels"].index("dp")]
    assert dp["summary"]["epsilon_spent_max"] > 0 and None not in dp["epsilon_time_mean"]
    assert None in th[1]["epsilon_time_mean"] and th[1]["epsilon_time_mean_reason"]
    code, out, err = cli("advise-bench", "--experiment", "exp2", "--seeds", "2", "--epochs",
                         "30", "--workers", "1")
    assert code == 0 and "drawn from the OS" in out and "exp2 [sound]" in out


@pytest.mark.parametrize("argv,flag", [
    (["--experiment", "exp9"], "--experiment"), (["--seeds", "0"], "--seeds"),
    (["--epsilons", "0.1,-1"], "--epsilons"), (["--variant", "odd"], "--variant"),
    (["--workers", "0"], "--workers"), (["--epochs", "0"], "--epochs"),
])
def test_advise_bench_bad_input(argv, flag):
    code, out, err = cli("advise-bench", "--seeds", "1", "--epochs", "5", *argv)
    assert code == 2 and err.count("\n") == 1 and flag in err
