"""A project's optional ``plans`` section: round trip, old files, ``budget PROJECT --plan``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import cli

from core.common.errors import InputError
from core.project.files import load_project, save_project

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets/examples/builtin.privplan.json"
FEASIBLE = ROOT / "assets/examples/study-feasible.plan.json"


def test_old_project_loads_without_plans_and_saves_without_the_key(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    p = load_project(proj)
    assert p.plans == []
    save_project(p, proj)
    assert "plans" not in json.loads(proj.read_text())["project"]


def test_plans_round_trip_and_budget_reads_one(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    p = load_project(proj)
    doc = json.loads(FEASIBLE.read_text())
    p.plans.append(doc)
    save_project(p, proj)
    again = load_project(proj)
    assert again.plans == [doc]
    code, out, err = cli("budget", proj, "--plan", "study-feasible", "--json")
    assert code == 0, err
    direct = json.loads(cli("budget", FEASIBLE, "--json")[1])
    assert json.loads(out)["composed"] == direct["composed"]
    code, _, err = cli("budget", proj, "--plan", "nowhere")
    assert code == 2 and "no plan 'nowhere'" in err and "study-feasible" in err


def test_a_bad_plan_in_a_project_is_named(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    p = load_project(proj)
    doc = json.loads(FEASIBLE.read_text())
    doc["releases"][0]["epsilon"] = -1
    p.plans.append(doc)
    save_project(p, proj)
    code, _, err = cli("budget", proj, "--plan", "study-feasible")
    assert code == 2 and "plans[study-feasible].releases[counts].epsilon" in err
    raw = json.loads(proj.read_text())
    raw["project"]["plans"].append(dict(doc))  # the same name twice: the file is refused
    proj.write_text(json.dumps(raw))
    with pytest.raises(InputError, match="duplicate plan name"):
        load_project(proj)


def test_execute_privatises_the_project_model_and_guards_other_records(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    code, out, err = cli("budget", FEASIBLE, "--execute", proj, "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["executed"]["run_releases"] == ["model"]
    p = load_project(proj)
    run = next(r for r in p.runs if r.id == payload["executed"]["run"])
    done = run.summary["executed"]["model"]
    # the privatisation ran in release mode at the planned parameters and proves the
    # planned epsilon, by the accountant privatize and bounds use
    assert done["mode"] == "release" and done["params"]["k"] == 20.0
    planned = next(r for r in payload["releases"] if r["name"] == "model")
    assert done["privacy"]["epsilon"] == pytest.approx(planned["epsilon"], rel=1e-12)
    entry = next(e for e in p.ledger if e.parameters.get("release") == "model")
    assert entry.parameters["executed"] == "privatised" and entry.mode == "release"
    assert entry.epsilon == pytest.approx(planned["epsilon"], rel=1e-12)
    # executing again is refused before anything runs
    code, _, err = cli("budget", FEASIBLE, "--execute", proj)
    assert code == 2 and "already executed" in err


def test_record_outside_an_executed_plan_is_refused():
    from types import SimpleNamespace

    from core.cli.common import check_record_plan
    from core.privacy.ledger import LedgerEntry

    spent = LedgerEntry(id="l1", dataset="study", mechanism="laplace", epsilon=0.5,
                        delta=0.0, parameters={"plan": "p", "release": "a"})
    other = LedgerEntry(id="", dataset="study", mechanism="gaussian", epsilon=0.2,
                        delta=1e-6)
    elsewhere = LedgerEntry(id="", dataset="mdp:x", mechanism="gaussian", epsilon=0.2,
                            delta=1e-6)
    now = SimpleNamespace(ledger=[spent], budgets={})
    args = SimpleNamespace(over_budget=False)
    with pytest.raises(InputError, match="outside the plan"):
        check_record_plan(now, [other], args, None)
    check_record_plan(now, [elsewhere], args, None)  # another dataset: no plan to keep
    import io

    warn = io.StringIO()
    check_record_plan(now, [other], SimpleNamespace(over_budget=True), warn)
    assert "outside the plan" in warn.getvalue()
