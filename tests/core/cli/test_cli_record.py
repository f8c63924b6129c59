"""`sweep PROJECT --mdp ID --record`: the command line records a run as the window does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import cli

from core.mdp.records import sweep_summary
from core.mdp.sweep import privacy_sweep
from core.privacy.ledger import PrivacyLedger
from core.project.files import load_project

ROOT = Path(__file__).resolve().parents[3]
FOUR = ROOT / "assets" / "examples" / "four_startups.mdp.json"


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
    assert [e.source for e in new] == [run.id, run.id]
    assert {e.dataset for e in new} == {f"mdp:{mdp_id}"}
    assert all(e.mode == "experiment" and e.count == 3 for e in new)
    assert len({e.id for e in after.ledger}) == len(after.ledger)  # fresh project ids
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


# ---------------------------------------------------------------------------- plan --record
@pytest.fixture
def map_project(tmp_path: Path) -> Path:
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.project.files import save_project
    from core.project.model import Project

    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", fig41()))
    path = tmp_path / "routes.privplan.json"
    save_project(p, path)
    return path


def test_plan_record_writes_what_the_window_records(map_project: Path) -> None:
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release
    from core.project.recording import plan_run_record

    code, out, err = cli("plan", map_project, "--origin", "a2", "--goal-agent", "f",
                         "--epsilon", "0.5", "--seed", "4", "--record", "--json")
    assert code == 0, err
    payload = json.loads(out)
    after = load_project(map_project)
    (run,) = after.runs
    assert run.kind == "plan" and run.target == "map-1" and (run.mode, run.seed) == (
        "experiment", 4)
    assert payload["recorded"] == {"project": str(map_project), "run": run.id,
                                   "ledger_entries": len(after.ledger)}
    assert len(after.ledger) == run.summary["ledger_entries"] > 0
    assert {e.dataset for e in after.ledger} <= {f"agent:{a}" for a in after.maps[0].world.agents}
    assert all(e.source.startswith(f"{run.id}: ") for e in after.ledger)
    # the same record the window builds for the same seeded task (elapsed time aside)
    world = after.maps[0].world
    params = PlanParameters("a2", "f", planner=PlannerParams.preset_params(epsilon=0.5),
                            seed=4)
    want, entries = plan_run_record(after, plan_release(params, world=world), params,
                                    map_id="map-1", map_label=after.maps[0].label)
    assert run.params == json.loads(json.dumps(want.params))
    got = {k: v for k, v in run.summary.items() if k != "elapsed_s"}
    assert got == json.loads(json.dumps({k: v for k, v in want.summary.items()
                                         if k != "elapsed_s"}))
    assert [(e.dataset, e.epsilon, e.count) for e in after.ledger] == [
        (e.dataset, e.epsilon, e.count) for e in entries]


@pytest.mark.parametrize("argv, flag", [
    (["--record"], "--record"),
    (["--map", "map-1"], "--map"),
])
def test_plan_record_and_map_need_a_project(argv: list[str], flag: str) -> None:
    fig41 = ROOT / "assets" / "examples" / "fig41.map.json"
    code, out, err = cli("plan", fig41, "--origin", "a2", "--goal-agent", "f", "--epsilon",
                         "0.5", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err


def test_plan_names_a_missing_map(map_project: Path) -> None:
    code, _, err = cli("plan", map_project, "--map", "nope", "--origin", "a2", "--goal-agent",
                       "f", "--epsilon", "0.5")
    assert code == 2 and "no map 'nope'" in err and "map-1" in err


# ---------------------------------------------------------------------------- advise --record
def test_advise_record_writes_what_the_window_records(project: Path) -> None:
    from core.advising.presets import preset
    from core.advising.release import AdviseParameters, advise_release
    from core.project.recording import advise_run_record

    before = load_project(project)
    code, out, err = cli("advise", "--preset", "exp2", "--epochs", "30", "--seed", "5",
                         "--record", project, "--json", "--summary")
    assert code == 0, err
    payload = json.loads(out)
    after = load_project(project)
    run = after.runs[-1]
    new = after.ledger[len(before.ledger):]
    assert payload["recorded"] == {"project": str(project), "run": run.id,
                                   "ledger_entries": len(new)}
    assert len(new) > 0 and all(e.source == run.id and e.mode == "experiment" for e in new)
    assert run.kind == "advise" and (run.mode, run.seed) == ("experiment", 5)
    # the window's record of the same seeded run
    params = AdviseParameters(preset("exp2", epochs=30), seed=5, delta=1e-5)
    res = advise_release(params)
    want, entries = advise_run_record(before, res, params)
    assert run.params == want.params
    assert {k: v for k, v in run.summary.items() if k != "elapsed_s"} == {
        k: v for k, v in want.summary.items() if k != "elapsed_s"}
    assert [(e.dataset, e.epsilon, e.count) for e in new] == [
        (e.dataset, e.epsilon, e.count) for e in entries]


def test_advise_record_refuses_a_damaged_project_before_running(tmp_path: Path) -> None:
    bad = tmp_path / "bad.privplan.json"
    bad.write_text('{"format": "privplan-project", "schema_version": 2, "project": '
                   '{"ledger": [{"id": "rel-1", "epsilon": -1}]}}')
    code, out, err = cli("advise", "--preset", "exp2", "--epochs", "5", "--seed", "1",
                         "--record", bad)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--record" in err and "ledger[0]" in err
