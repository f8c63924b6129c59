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
