"""`sweep PROJECT --mdp ID --record`: the command line records a run as the window does."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from core.cli.main import run_cli
from core.mdp.records import sweep_summary
from core.mdp.sweep import privacy_sweep
from core.privacy.ledger import PrivacyLedger
from core.project.files import load_project

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
FOUR = ROOT / "assets" / "examples" / "four_startups.mdp.json"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    return path


def test_record_appends_the_run_and_one_ledger_entry_per_k(project: Path) -> None:
    before = load_project(project)
    mdp_id = before.mdps[0].id
    code, out, err = cli("sweep", project, "--mdp", mdp_id, "--k", "10,100", "--runs", "3",
                         "--seed", "7", "--workers", "1", "--record", "--json")
    assert code == 0, err
    payload = json.loads(out)
    after = load_project(project)
    assert len(after.runs) == len(before.runs) + 1
    run = after.runs[-1]
    assert payload["recorded"] == {"project": str(project), "run": run.id, "ledger_entries": 2}
    assert run.kind == "sweep" and run.target == mdp_id and run.seed == 7
    assert run.mode == "experiment" and run.params["ks"] == [10.0, 100.0]
    # the same summary the window records for the same sweep
    again = privacy_sweep(before.mdp(mdp_id), [10.0, 100.0], runs=3, seed=7, workers=1)
    assert run.summary["epsilon"] == sweep_summary(again)["epsilon"]
    new = after.ledger[len(before.ledger):]
    assert [e["source"] for e in new] == [run.id, run.id]
    assert {e["dataset"] for e in new} == {f"mdp:{mdp_id}"}
    assert all(e["mode"] == "experiment" and e["count"] == 3 for e in new)
    assert len({e["id"] for e in after.ledger}) == len(after.ledger)  # fresh project ids
    led = PrivacyLedger.from_project(after)  # the ledger tab reads it
    assert led.spent(f"mdp:{mdp_id}") == (0.0, 0.0)  # seeded experiments: listed, not spent


def test_without_record_the_project_is_untouched(project: Path) -> None:
    text = project.read_text()
    mdp_id = load_project(project).mdps[0].id
    code, _, err = cli("sweep", project, "--mdp", mdp_id, "--k", "10", "--runs", "2",
                       "--seed", "1", "--workers", "1")
    assert code == 0, err
    assert project.read_text() == text


@pytest.mark.parametrize("argv, flag", [
    (["sweep", str(FOUR), "--k", "10", "--record"], "--record"),
    (["sweep", str(FOUR), "--k", "10", "--mdp", "x"], "--mdp"),
])
def test_record_and_mdp_need_a_project(argv: list[str], flag: str) -> None:
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err


def test_a_project_with_several_models_needs_mdp(project: Path) -> None:
    p = load_project(project)
    assert len(p.mdps) > 1  # the built-in example has two models
    code, _, err = cli("sweep", project, "--k", "10", "--runs", "2", "--seed", "1")
    assert code == 2 and "--mdp" in err and err.count("\n") == 1
    code, _, err = cli("sweep", project, "--mdp", "nope", "--k", "10")
    assert code == 2 and "no model 'nope'" in err


def test_audit_record_appends_an_audit_run_without_ledger_entries(project: Path) -> None:
    before = load_project(project)
    code, out, err = cli("audit", "laplace", "--epsilon", "1", "--sensitivity", "1",
                         "--samples", "2000", "--seed", "3", "--record", project, "--json")
    assert code == 0, err
    payload = json.loads(out)
    after = load_project(project)
    run = after.runs[-1]
    assert payload["recorded"] == {"project": str(project), "run": run.id, "ledger_entries": 0}
    assert run.kind == "audit" and run.target == "laplace" and run.seed == 3
    assert run.params["params"] == {"epsilon": 1.0, "sensitivity": 1.0}
    assert run.summary["verdict"] == payload["verdict"] == "consistent"
    assert after.ledger == before.ledger  # an audit releases nothing about the project


def test_audit_record_refuses_a_missing_project_before_running(tmp_path: Path) -> None:
    code, out, err = cli("audit", "laplace", "--epsilon", "1", "--sensitivity", "1",
                         "--record", tmp_path / "missing.privplan.json")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--record" in err
