"""Privacy plans: composition against dp-accounting, infeasibility, execution, allocation."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path

import pytest
from cli_run import cli

from core.common.errors import InputError
from core.plan import allocate, evaluate_plan, plan_from_dict, resolve_models
from core.plan.accounting import plan_deltas
from core.plan.budget import _Search, release_options

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "assets/examples/study.plan.json"
BUILTIN = ROOT / "assets/examples/builtin.privplan.json"


def _plan(releases, epsilon=4.0, delta=1e-5, **extra):
    return plan_from_dict({"format": "privplan-plan", "version": 1,
                           "budget": {"epsilon": epsilon, "delta": delta},
                           "releases": releases, **extra})


MIXED = [{"name": "counts", "kind": "laplace", "epsilon": 0.3},
         {"name": "means", "kind": "gaussian", "sigma": 4.0, "sensitivity": 1.0},
         {"name": "net", "kind": "dpsgd", "sigma": 1.5, "sample_rate": 0.02, "steps": 40},
         {"name": "model", "kind": "mdp", "mdp": "four-startups", "k": 200, "eta": "0.3/n",
          "b": 0.1}]


def test_mixed_plan_composes_as_dp_accounting_does_independently():
    from dp_accounting.pld import privacy_loss_distribution as pldm

    from core.mdp.accounting import mdp_privacy
    from core.mdp.examples import four_startups
    from core.privacy.pld import dirichlet_rows_terms

    plan = _plan(MIXED, epsilon=20.0)
    res = evaluate_plan(plan, resolve_models(plan))
    h = 1e-4  # a finer grid than the plan's: the reference is tighter
    d_model = plan_deltas(plan)["model"]
    spec = mdp_privacy(four_startups(), 200, b=0.1, delta_target=d_model, eta="0.3/n",
                       domain_rule="mix").profile_spec()
    parts = [pldm.from_laplace_mechanism(1 / 0.3, sensitivity=1.0,
                                         value_discretization_interval=h),
             pldm.from_gaussian_mechanism(4.0, sensitivity=1.0,
                                          value_discretization_interval=h),
             pldm.from_gaussian_mechanism(1.5, sampling_prob=0.02,
                                          value_discretization_interval=h).self_compose(40)]
    parts += [t.pld(h) for t in dirichlet_rows_terms(200.0, spec["groups"], "one-row",
                                                      d_model, 1)]
    ref = parts[0]
    for p in parts[1:]:
        ref = ref.compose(p)
    ref_eps = ref.get_epsilon_for_delta(1e-5)
    # the plan's pessimistic grid may only overstate, by at most one grid step per composed
    # mechanism (each loss is rounded up by less than the interval)
    n_steps = 1 + 1 + 40 + 1
    assert res.composed_epsilon >= ref_eps - 1e-6
    assert res.composed_epsilon <= ref_eps + n_steps * res.discretization + 1e-6
    assert res.composed_epsilon < res.basic_epsilon  # tight composition beats basic here
    assert res.feasible


def test_infeasible_plan_names_the_breaking_release():
    plan = _plan([{"name": "a", "kind": "laplace", "epsilon": 0.6},
                  {"name": "b", "kind": "laplace", "epsilon": 0.6},
                  {"name": "c", "kind": "laplace", "epsilon": 0.6}], epsilon=1.0)
    res = evaluate_plan(plan)
    assert not res.feasible and res.breaking == "b"
    assert res.composed_epsilon == pytest.approx(1.8)


def test_infeasible_plan_is_refused_before_any_release(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    before = proj.read_bytes()
    code, out, err = cli("budget", EXAMPLE, "--execute", proj, "--json")
    assert code == 2
    assert "releases[model]" in err and len(err.strip().splitlines()) == 1
    assert json.loads(out)["feasible"] is False
    assert proj.read_bytes() == before  # nothing recorded


def test_execute_records_exactly_the_planned_releases(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    plan_file = tmp_path / "small.plan.json"
    doc = {"format": "privplan-plan", "version": 1, "dataset": "survey",
           "budget": {"epsilon": 3.0, "delta": 1e-5},
           "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.5},
                        {"name": "means", "kind": "gaussian", "sigma": 3.0},
                        {"name": "route", "kind": "logistics", "map": "fig41",
                         "epsilon": 0.4}]}
    plan_file.write_text(json.dumps(doc))
    code, out, err = cli("budget", plan_file, "--execute", proj, "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["executed"]["ledger_entries"] == 3
    from core.project.files import load_project

    p = load_project(proj)
    mine = [e for e in p.ledger if e.dataset == "survey"]
    assert [e.parameters["release"] for e in mine] == ["counts", "means", "route"]
    assert [e.epsilon for e in mine] == pytest.approx(
        [r["epsilon"] for r in payload["releases"]])
    assert {e.source for e in mine} == {payload["executed"]["run"]}
    assert any(r.kind == "privacy-plan" and r.id == payload["executed"]["run"] for r in p.runs)
    n = len(p.ledger)
    # again: refused (would spend twice); edited: refused naming the deviating release
    code, _, err = cli("budget", plan_file, "--execute", proj)
    assert code == 2 and "already executed" in err
    doc["releases"][0]["epsilon"] = 0.4
    plan_file.write_text(json.dumps(doc))
    code, _, err = cli("budget", plan_file, "--execute", proj)
    assert code == 2 and "'counts' deviates" in err
    assert len(load_project(proj).ledger) == n


def test_example_json_keys():
    code, out, err = cli("budget", EXAMPLE, "--json")
    payload = json.loads(out)
    assert code == 2
    for key in ("composed", "basic", "feasible", "releases", "remaining"):
        assert key in payload
    assert set(payload["composed"]) >= {"epsilon", "delta"}
    assert [r["name"] for r in payload["releases"]] == ["counts", "means", "net", "model"]
    for r in payload["releases"]:
        assert {"name", "epsilon", "delta", "forecast"} <= set(r)
    net = payload["releases"][2]["forecast"]
    assert net["utility"] is None and net["utility_reason"]


def test_bad_plan_names_the_field(tmp_path):
    f = tmp_path / "bad.plan.json"
    f.write_text(json.dumps({"format": "privplan-plan", "version": 1,
                             "budget": {"epsilon": 1.0, "delta": 1e-6},
                             "releases": [{"name": "n", "kind": "dpsgd", "sigma": 1.0,
                                           "sample_rate": 2.0, "steps": 10}]}))
    code, _, err = cli("budget", f)
    assert code == 2 and "releases[n].sample_rate" in err
    with pytest.raises(InputError, match="releases\\[m\\].mdp"):
        resolve_models(_plan([{"name": "m", "kind": "mdp", "mdp": "nowhere", "k": 5}]))


def _brute(s: _Search) -> float:
    best = -1.0
    for idx in itertools.product(*[range(len(o)) for o in s.options]):
        if s.value(idx) > best and s.feasible(idx):
            best = s.value(idx)
    return best


@pytest.mark.parametrize("weights", [(1.0, 1.0), (3.0, 1.0)])
def test_optimiser_matches_a_brute_force_grid(weights):
    plan = _plan([{"name": "a", "kind": "laplace", "epsilon": 0.5, "weight": weights[0]},
                  {"name": "b", "kind": "gaussian", "sigma": 2.0, "weight": weights[1],
                   "tolerance": 2.0},
                  {"name": "c", "kind": "laplace", "epsilon": 0.5, "sensitivity": 2.0}],
                 epsilon=2.0, delta=1e-6)
    grid = 10
    res = allocate(plan, "optimise", grid=grid)
    assert res.feasible and res.allocation == "optimise"
    deltas = plan_deltas(plan)
    opts = [release_options(r, deltas[r.name], plan.epsilon, None, grid)
            for r in plan.releases]
    s = _Search(plan, [], opts, [r.weight for r in plan.releases])
    best = _brute(s)
    assert res.objective == pytest.approx(best, abs=1e-9)
    # the allocation is public and says so
    assert any("public" in n for n in res.notes)


def test_weights_split_follows_the_weights():
    plan = _plan([{"name": "a", "kind": "laplace", "epsilon": 0.1, "weight": 2.0},
                  {"name": "b", "kind": "laplace", "epsilon": 0.1, "weight": 1.0}],
                 epsilon=1.5, delta=1e-6)
    res = allocate(plan, "weights")
    a, b = (r.epsilon for r in res.releases)
    assert res.feasible and a + b <= 1.5 + 1e-9
    assert a / b == pytest.approx(2.0, rel=0.15)  # within one grid step
    assert a + b > 1.5 / 1.2  # scaled up close to the budget
    assert math.isfinite(res.composed_epsilon)


def test_report_has_plan_vs_spent(tmp_path):
    proj = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, proj)
    plan_file = tmp_path / "two.plan.json"
    plan_file.write_text(json.dumps({
        "format": "privplan-plan", "version": 1, "dataset": "survey",
        "budget": {"epsilon": 2.0, "delta": 1e-6},
        "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.5},
                     {"name": "totals", "kind": "laplace", "epsilon": 0.25}]}))
    code, _, err = cli("budget", plan_file, "--execute", proj)
    assert code == 0, err
    from core.project.files import load_project
    from core.report.build import build_report
    from core.report.model import Table

    report = build_report(load_project(proj))
    sec = next(s for s in report.sections if "plan vs spent" in s.title)
    table = next(b for b in sec.blocks if isinstance(b, Table) and b.title == "Plan vs spent")
    assert [r[0] for r in table.rows] == ["counts", "totals"]
    assert all(r[4] == "as planned" for r in table.rows)


def test_a_release_kind_of_the_wrong_type_is_refused_naming_it(tmp_path: Path) -> None:
    # found by the fuzz campaign: a list as a kind crashed the membership test (exit 1)
    doc = json.loads(EXAMPLE.read_text())
    doc["releases"][0]["kind"] = ["laplace"]
    path = tmp_path / "p.plan.json"
    path.write_text(json.dumps(doc))
    code, out, err = cli("budget", path, "--allocate", "weights")
    assert code == 2 and "releases[counts].kind" in err and len(err.splitlines()) == 1


def test_a_subnormal_sensitivity_is_refused_naming_it(tmp_path: Path) -> None:
    # found by the fuzz campaign: sensitivity 5e-324 divided by zero in the sigma search
    doc = json.loads(EXAMPLE.read_text())
    doc["releases"][1]["sensitivity"] = 5e-324
    path = tmp_path / "p.plan.json"
    path.write_text(json.dumps(doc))
    code, out, err = cli("budget", path, "--allocate", "weights")
    assert code == 2 and "releases[means].sensitivity" in err and len(err.splitlines()) == 1
