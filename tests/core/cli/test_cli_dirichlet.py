"""The ``dirichlet`` subcommand and the (ε, δ) fields of ``sweep --json``.

Contract (docs/formats-and-cli.md §5): ``--json`` prints exactly one JSON object on one line;
exit 2 on bad input with one stderr line naming the flag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import cli

from core.mdp.accounting import mdp_privacy
from core.mdp.files import load_mdp
from core.privacy.dirichlet_accounting import LEMMA_1_2_WARNING, dirichlet_privacy

ROOT = Path(__file__).resolve().parents[3]
FOUR = str(ROOT / "assets" / "examples" / "four_startups.mdp.json")
BASE = ("dirichlet", "--k", "6.7", "--eta", "0.15", "--w", "3", "--b", "0.1")


def cli_json(*argv: str) -> tuple[dict, str]:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    assert out.count("\n") == 1 and out.endswith("\n"), "exactly one JSON line"
    return json.loads(out), err


# ------------------------------------------------------------------------- dirichlet
@pytest.mark.parametrize("extra, kwargs", [
    (("--gamma", "0.01"), dict(gamma=0.01)),
    (("--delta", "0.05", "--delta-method", "union"), dict(delta_target=0.05,
                                                          delta_method="union")),
])
def test_dirichlet_json_matches_the_library(extra, kwargs) -> None:
    d, err = cli_json(*BASE, *extra)
    for key in ("epsilon", "delta", "gamma", "epsilon_approx", "delta_method", "warnings"):
        assert key in d
    want = dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, **kwargs)
    assert d["epsilon"] == pytest.approx(want.epsilon, rel=1e-12)
    assert d["delta"] == pytest.approx(want.delta, rel=1e-12)
    assert d["gamma"] == pytest.approx(want.gamma, rel=1e-12)
    assert d["epsilon_approx"] == pytest.approx(want.epsilon_approx, rel=1e-12)
    assert d["delta_method"] == want.delta_method
    assert d["warnings"] == [] and err == ""


def test_dirichlet_profile_json_matches_the_library() -> None:
    d, err = cli_json(*BASE, "--delta", "0.05")
    want = dirichlet_privacy(6.7, 0.15, 0.15, 3, 0.1, delta_target=0.05)
    assert d["delta_method"] == want.delta_method == "profile" and err == ""
    assert d["epsilon"] == pytest.approx(want.epsilon, rel=1e-12) and d["delta"] == 0.05
    # no threshold set, no Lemma 1.7: null with the reason, as the contract asks
    assert d["gamma"] is None and "no threshold" in d["gamma_reason"]
    assert d["epsilon_approx"] is None and d["epsilon_approx_reason"]
    assert d["epsilon_lower"] <= d["epsilon"] <= d["epsilon_lower"] * (1 + 1e-6) + 1e-9
    assert set(d["worst_pair"]) == {"k_q_i", "k_p_j", "k_moved"}


def test_dirichlet_json_oracle_values() -> None:
    # the spec's values (§10 oracles 2 and 3) are those of the vertex reduction: --delta-method
    # exact, which rests on [D] Lemma 1.2 and says so (a warning, on stderr and in the JSON)
    d, err = cli_json(*BASE, "--gamma", "0.01", "--delta-method", "exact")
    assert d["epsilon"] == pytest.approx(2.114192024, abs=1e-8)
    assert d["delta"] == pytest.approx(0.156845, abs=2e-5)
    assert d["delta_method"] == "exact" and d["eta_bar"] == 0.15
    assert "Lemma 1.2" in d["delta_label"] and "not proven" in d["delta_label"]
    assert d["warnings"] == [LEMMA_1_2_WARNING] and err == f"warning: {LEMMA_1_2_WARNING}\n"
    d, _ = cli_json(*BASE, "--delta", "0.05", "--delta-method", "exact")
    assert d["gamma"] == pytest.approx(3.0555e-3, rel=2e-4) and d["delta"] <= 0.05
    assert d["epsilon"] == pytest.approx(2.5161, abs=1e-4)
    assert d["delta_target"] == 0.05


def test_dirichlet_default_is_the_proven_union_bound_at_a_gamma() -> None:
    d, err = cli_json(*BASE, "--gamma", "0.01")
    assert d["delta_method"] == "union" and "proven" in d["delta_label"]
    assert d["delta"] == pytest.approx(0.164226, abs=1e-6) and err == ""
    assert d["epsilon"] == pytest.approx(2.114192024, abs=1e-8)  # ε does not depend on it
    d, _ = cli_json(*BASE, "--delta", "0.05", "--delta-method", "union")
    assert d["gamma"] == pytest.approx(3.013e-3, rel=2e-4) and d["delta"] <= 0.05
    assert d["epsilon"] == pytest.approx(2.5208, abs=1e-4)
    # for a target delta the default is the exact profile, four times tighter here
    p, _ = cli_json(*BASE, "--delta", "0.05")
    assert p["delta_method"] == "profile" and p["epsilon"] < d["epsilon"] / 4
    assert p == cli_json(*BASE, "--delta", "0.05", "--delta-method", "auto")[0]


def test_dirichlet_help_says_what_each_method_rests_on(capsys) -> None:
    code, _, _ = cli("dirichlet", "--help")  # argparse prints the help on sys.stdout
    assert code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "auto (default) = profile with --delta, union with --gamma" in text
    assert "exact privacy profile" in text and "proven at every input" in text
    assert "exact (|W| <= 3) = the vertex reduction of [D] Lemma 1.2" in text
    assert "not proven" in text


def test_dirichlet_eta_bar_defaults_to_eta() -> None:
    exact = ("--delta-method", "exact")  # vertex B (which has eta_bar) is the exact method's
    d_default, _ = cli_json(*BASE, "--gamma", "0.01", *exact)
    d_given, _ = cli_json(*BASE, "--eta-bar", "0.15", "--gamma", "0.01", *exact)
    d_other, _ = cli_json(*BASE, "--eta-bar", "0.1", "--gamma", "0.01", *exact)
    assert d_default == d_given
    assert d_default["eta_bar"] == 0.15 and d_other["eta_bar"] == 0.1
    # eta_bar enters v2 and vertex B (vertex A, which gives delta here, has no eta_bar)
    assert d_other["v2"] != d_default["v2"]
    assert d_other["delta_vertex_B"] != d_default["delta_vertex_B"]


def test_dirichlet_warnings_go_to_stderr_and_into_the_json() -> None:
    d, err = cli_json("dirichlet", "--k", "5", "--eta", "0.15", "--w", "3", "--b", "0.1",
                      "--gamma", "0.01")
    assert any("Lemma 1.2" in w for w in d["warnings"])
    assert err.count("warning: ") == len(d["warnings"]) >= 1


def test_dirichlet_text_output() -> None:
    code, out, err = cli(*BASE, "--delta", "0.05", "--delta-method", "union")
    assert code == 0 and err == ""
    assert "epsilon = 2.52082" in out and "delta   = 0.05" in out
    assert "largest gamma with delta <= 0.05" in out and "proven upper bound" in out
    code, out, err = cli(*BASE, "--delta", "0.05", "--delta-method", "exact")
    assert code == 0 and "epsilon = 2.51609" in out and "Lemma 1.2" in out
    assert err.count("warning: ") == 1 and "not proven" in err


@pytest.mark.parametrize("change, flag", [
    (("--k", "-1"), "--k"),
    (("--k", "nan"), "--k"),
    (("--k", "abc"), "--k"),
    (("--eta", "1.5"), "--eta"),
    (("--eta", "0.4"), "--eta"),           # |W| eta + eta_bar > 1
    (("--eta-bar", "0.9"), "--eta-bar"),   # eta + eta_bar >= 1
    (("--eta-bar", "0"), "--eta-bar"),
    (("--w", "1"), "--w"),
    (("--w", "2.5"), "--w"),
    (("--b", "0"), "--b"),
    (("--b", "1.5"), "--b"),
    (("--gamma", "0.5"), "--gamma"),
    (("--gamma", "0"), "--gamma"),
    (("--delta", "1.5"), "--delta"),
    (("--delta", "0"), "--delta"),
    (("--delta-method", "bogus"), "--delta-method"),
    (("--delta-method", "exact", "--w", "4"), "--delta-method"),
])
def test_dirichlet_bad_input_exits_2_naming_the_flag(change, flag) -> None:
    args = dict(zip(BASE[1::2], BASE[2::2]))
    args.update(zip(change[::2], change[1::2]))
    if "--gamma" not in args and "--delta" not in args:
        args["--gamma"] = "0.01"
    argv = ["dirichlet", *[x for kv in args.items() for x in kv]]
    for json_flag in ((), ("--json",)):
        code, out, err = cli(*argv, *json_flag)
        # with --json the error is also the one JSON object on stdout
        assert code == 2 and (json.loads(out)["error"]["exit"] == 2 if json_flag else out == "")
        assert err.count("\n") == 1, err
        # the flag is named as a flag (not only as a prefix of a longer one)
        assert (f"{flag}:" in err or f"argument {flag}" in err or f"{flag} " in err), err


@pytest.mark.parametrize("argv", [
    ("--gamma", "0.01", "--delta", "0.05"),  # both
    (),                                      # neither
])
def test_dirichlet_needs_exactly_one_of_gamma_and_delta(argv) -> None:
    code, out, err = cli(*BASE, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--gamma" in err and "--delta" in err


# ------------------------------------------------------------------------- sweep
def _sweep(*extra: str) -> dict:
    """--eta 0.01 with the rule 'refuse': the four-startups rows' smallest entry, declared as
    the public bound, and the rows privatised as they are."""
    d, _ = cli_json("sweep", FOUR, "--k", "50,100", "--runs", "2", "--seed", "1",
                    "--workers", "1", "--eta", "0.01", "--domain-rule", "refuse", *extra)
    return d


def test_sweep_json_reports_epsilon_and_delta_per_k() -> None:
    d = _sweep()
    assert d["k"] == [50.0, 100.0]
    for key in ("epsilon", "delta", "privacy_statement", "privacy_rows"):
        assert isinstance(d[key], list) and len(d[key]) == len(d["k"])
    assert d["adjacency"] == "one-row" and d["b"] == 0.1 and d["delta_target"] == 0.05
    assert d["eta"] == 0.01 and d["domain_rule"] == "refuse"
    mdp = load_mdp(FOUR)
    for i, k in enumerate(d["k"]):
        want = mdp_privacy(mdp, k, b=0.1, delta_target=0.05, eta=0.01,
                           domain_rule="refuse")
        assert d["epsilon"][i] == pytest.approx(want.epsilon, rel=1e-12)
        assert d["delta"][i] == pytest.approx(want.delta, rel=1e-12)
        assert d["privacy_statement"][i] == want.statement
        assert f"k = {k:g}" in d["privacy_statement"][i]
        assert "differ in one transition row" in d["privacy_statement"][i]
        assert d["delta"][i] <= 0.05
    assert d["epsilon"][1] > d["epsilon"][0]  # larger k, weaker privacy


def test_sweep_all_rows_gives_a_larger_epsilon_than_one_row() -> None:
    one = _sweep("--adjacency", "one-row")
    every = _sweep("--adjacency", "all-rows", "--b", "0.1", "--delta", "0.05")
    assert every["adjacency"] == "all-rows"
    assert all(e > o for e, o in zip(every["epsilon"], one["epsilon"]))
    # both at the statement's δ̂; all rows composed with PLDs, basic beside it
    assert every["delta"] == one["delta"] == [0.05] * len(one["delta"])
    assert all("every transition row may differ" in s for s in every["privacy_statement"])
    # the experiment itself does not depend on the accounting options
    assert every["v_private_mean"] == one["v_private_mean"]


def test_sweep_b_and_delta_change_the_accounting() -> None:
    base = _sweep()
    small_b = _sweep("--b", "0.02")
    loose = _sweep("--delta", "0.2")
    assert all(s < b for s, b in zip(small_b["epsilon"], base["epsilon"]))
    assert all(lo < b for lo, b in zip(loose["epsilon"], base["epsilon"]))
    assert small_b["b"] == 0.02 and loose["delta_target"] == 0.2


@pytest.mark.parametrize("change, flag", [
    (("--b", "0"), "--b"), (("--b", "1.5"), "--b"), (("--delta", "1.5"), "--delta"),
    (("--delta", "0"), "--delta"), (("--adjacency", "some"), "--adjacency"),
])
def test_sweep_bad_accounting_options_exit_2_naming_the_flag(change, flag) -> None:
    code, out, err = cli("sweep", FOUR, "--k", "50", "--runs", "1", "--seed", "1",
                         "--workers", "1", *change, "--json")
    assert code == 2 and err.count("\n") == 1
    assert flag in err, err
    assert json.loads(out)["error"] == {"exit": 2, "field": flag,
                                        "message": json.loads(out)["error"]["message"]}
