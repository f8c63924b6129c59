"""`bounds PROJECT --mdp ID [--record]`: the window's Synthesise & bound from the command line.

The command line and the window call the same core entry point
(:func:`core.mdp.private_policy.bounds_release`) and record through the same function
(:func:`core.project.recording.bounds_run_record`), so a seeded run leaves the record the
window would leave; a release (no --seed) is spent and refused past a budget.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import cli

from core.cli.main import run_cli
from core.mdp.private_policy import bounds_release
from core.mdp.records import BoundsParameters
from core.privacy.ledger import PrivacyLedger
from core.project.files import load_project, save_project
from core.project.model import Project
from core.project.recording import bounds_run_record

ROOT = Path(__file__).resolve().parents[3]
FOUR = ROOT / "assets" / "examples" / "four_startups.mdp.json"


def test_seeded_record_is_the_windows_record(project: Path) -> None:
    before = load_project(project)
    mdp_id = before.mdps[0].id
    code, out, err = cli("bounds", project, "--mdp", mdp_id, "--k", "100", "--beta", "0.05",
                         "--seed", "7", "--record", "--json")
    assert code == 0, err
    payload = json.loads(out)
    after = load_project(project)
    assert len(after.runs) == len(before.runs) + 1
    run = after.runs[-1]
    assert payload["recorded"] == {"project": str(project), "run": run.id, "ledger_entries": 1}
    assert run.kind == "bounds" and run.target == mdp_id
    assert run.mode == "experiment" and run.seed == 7 and payload["seed"] == 7
    # what the window records for the same press of F6 (same entry point, same recorder)
    entry = before.entry(mdp_id)
    rel = bounds_release(before.mdp(mdp_id), BoundsParameters(k=100.0, beta=0.05, seed=7),
                         digest_key=entry.model.digest_key())
    expect, entries = bounds_run_record(Project(), mdp_id, rel)
    def strip(d: dict) -> dict:
        return {k: v for k, v in d.items() if k != "elapsed_s"}

    assert strip(run.summary) == strip(expect.summary)
    assert run.params == expect.params and run.params["model_digest"] == entry.model.digest()
    assert payload["cost_bound"] == pytest.approx(run.summary["cost_bound"], abs=0)
    new = after.ledger[len(before.ledger):]
    assert len(new) == 1 and new[0].source == run.id and new[0].dataset == f"mdp:{mdp_id}"
    assert new[0].mode == "experiment" and new[0].epsilon == entries[0].epsilon
    assert PrivacyLedger.from_project(after).spent(f"mdp:{mdp_id}") == (0.0, 0.0)


def test_without_record_the_project_is_untouched(project: Path) -> None:
    text = project.read_bytes()
    mdp_id = load_project(project).mdps[0].id
    code, out, err = cli("bounds", project, "--mdp", mdp_id, "--k", "50", "--beta", "0.1",
                         "--seed", "1", "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert "recorded" not in payload and payload["mode"] == "experiment"
    lo, vp, hi = (np.array(payload[k]) for k in ("v_lower", "v_private", "v_upper"))
    assert (lo <= vp + 1e-12).all() and (vp <= hi + 1e-12).all()
    assert project.read_bytes() == text


def test_a_release_is_spent_and_refused_past_the_budget(project: Path) -> None:
    p = load_project(project)
    mdp_id = p.mdps[0].id
    p.budgets = {f"mdp:{mdp_id}": {"epsilon": 1.0, "delta": 0.5}}
    save_project(p, project)
    before = project.read_bytes()
    argv = ["bounds", project, "--mdp", mdp_id, "--k", "100", "--beta", "0.05", "--record"]
    code, out, err = cli(*argv)  # release mode: the secure source, epsilon >> 1
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"mdp:{mdp_id}" in err and "--over-budget" in err
    assert project.read_bytes() == before  # nothing written
    code, out, err = cli(*argv, "--over-budget", "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["mode"] == "release" and payload["seed"] is None
    after = load_project(project)
    assert after.runs[-1].mode == "release" and after.ledger[-1].mode == "release"
    assert PrivacyLedger.from_project(after).spent(f"mdp:{mdp_id}")[0] > 1.0
    assert "over the budget" in err


@pytest.mark.parametrize("argv, flag", [
    (["bounds", str(FOUR), "--k", "10", "--beta", "0.05", "--record"], "--record"),
    (["bounds", str(FOUR), "--k", "10", "--beta", "0.05", "--mdp", "x"], "--mdp"),
    (["bounds", str(FOUR), "--k", "10", "--beta", "0.05", "--seed", "3"], "--seed"),
])
def test_project_flags_on_a_model_file_are_refused(argv: list[str], flag: str) -> None:
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err, err


def test_bad_parameters_name_their_flag(project: Path) -> None:
    mdp_id = load_project(project).mdps[0].id
    for extra, flag in ((["--beta", "1.5"], "--beta"), (["--beta", "0.1", "--b", "2"], "--b"),
                        (["--beta", "0.1", "--method", "lp"], "--method")):
        code, out, err = cli("bounds", project, "--mdp", mdp_id, "--k", "10", "--seed", "1",
                             *extra)
        assert code == 2 and out == "" and flag in err, (extra, err)


def test_bounds_help_has_the_record_flags(capsys) -> None:
    assert run_cli(["bounds", "x", "--help"], err=io.StringIO()) == 0
    text = capsys.readouterr().out
    assert "--record" in text and "--over-budget" in text and "--mdp" in text


def test_a_softmax_policy_is_recorded_as_a_table(project: Path) -> None:
    from core.common.errors import InputError
    from core.report.html import build_report, to_html
    from core.sharing.learning import run_policy

    mdp_id = load_project(project).mdps[0].id
    code, out, err = cli("bounds", project, "--mdp", mdp_id, "--k", "100", "--beta", "0.05",
                         "--seed", "3", "--softmax", "0.2", "--record", "--json")
    assert code == 0, err
    payload = json.loads(out)
    run = load_project(project).runs[-1]
    s = run.summary
    assert payload["policy_source"] == "softmax" and payload["stochastic"]
    assert "policy" not in s and s["policy_source"] == "softmax" and s["temperature"] == 0.2
    probs = np.array(s["policy_probs"])
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-12)
    assert run.params["policy_source"] == "softmax" and run.params["temperature"] == 0.2
    assert len(s["policy_ids"]) == len(probs)  # the drawing's most likely actions
    with pytest.raises(InputError, match="stochastic"):
        run_policy(run)  # policy sharing needs a deterministic teacher
    assert "softmax (entropy-regularised) policy" in to_html(build_report(load_project(project)))
