"""PlanExecutionParameters, the one parameters object of a plan's execution (``budget PLAN
--execute PROJECT`` and the Privacy plan tab's Execute both build it): every valid value is
accepted and survives to_dict → JSON → from_dict; every invalid field is refused on
construction with an InputError naming it (the plan's own fields by the plan's own
validation); the entry point refuses what it must before anything is written; the run record
keeps the to_dict keys ``plan`` and ``name`` and reads back as the plan executed."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.common.errors import InputError
from core.plan import (
    InfeasiblePlan,
    Plan,
    PlanExecutionParameters,
    plan_execution_release,
    plan_from_dict,
    save_plan_execution,
)
from core.project.files import load_project
from core.project.model import Project
from core.project.recording import plan_execution_run_record

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets/examples/builtin.privplan.json"

# --------------------------------------------------------------------- valid values
positive = st.floats(min_value=1e-3, max_value=1e3)
names = st.text(alphabet="abcdefgh-", min_size=1, max_size=8)


@st.composite
def _release(draw: Any, name: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(("laplace", "gaussian", "dpsgd")))
    d: dict[str, Any] = {"name": name, "kind": kind}
    if kind == "laplace":
        d.update(epsilon=draw(positive), sensitivity=draw(positive))
    elif kind == "gaussian":
        d[draw(st.sampled_from(("sigma", "epsilon")))] = draw(positive)
    else:
        d.update(sigma=draw(positive), steps=draw(st.integers(1, 10_000)),
                 sample_rate=draw(st.floats(min_value=1e-4, max_value=1.0)))
    if draw(st.booleans()):
        d["delta"] = draw(st.floats(min_value=0.0, max_value=1e-3))
    if draw(st.booleans()):
        d["fixed"] = True
    return d


@st.composite
def plan_docs(draw: Any) -> dict[str, Any]:
    rel_names = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    doc: dict[str, Any] = {"format": "privplan-plan", "version": 1,
                           "budget": {"epsilon": draw(positive),
                                      "delta": draw(st.floats(min_value=0.0, max_value=0.5))},
                           "releases": [draw(_release(n)) for n in rel_names]}
    if draw(st.booleans()):
        doc["name"] = draw(names)
    if draw(st.booleans()):
        doc["dataset"] = draw(names)
    return doc


flags = st.fixed_dictionaries({
    "allocate": st.sampled_from((None, "weights", "optimise")),
    "estimates": st.booleans(), "over_budget": st.booleans(), "run": st.booleans()})


@given(plan_docs(), flags, st.booleans())
def test_valid_parameters_build_and_round_trip_through_json(doc: dict[str, Any],
                                                            kw: dict[str, Any],
                                                            as_plan: bool) -> None:
    plan = plan_from_dict(doc) if as_plan else doc
    p = PlanExecutionParameters(plan, **kw)
    assert isinstance(p.plan, Plan) and p.plan == plan_from_dict(doc)
    assert p.name == (doc.get("name") or doc.get("dataset") or "study")
    d = p.to_dict()
    assert list(d)[:2] == ["plan", "name"]  # the keys a run record keeps
    back = PlanExecutionParameters.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert back == p and hash(back) == hash(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.over_budget = True  # type: ignore[misc]


# --------------------------------------------------------------------- invalid fields
not_a_flag = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.floats())


@given(plan_docs(), st.sampled_from(("estimates", "over_budget", "run")), not_a_flag)
def test_a_flag_that_is_not_a_bool_is_named(doc: dict[str, Any], name: str, bad: Any) -> None:
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters(doc, **{name: bad})
    assert exc.value.field == name


@given(plan_docs(), st.one_of(st.text(max_size=8), st.integers(), st.just(True)))
def test_an_unknown_allocation_is_named(doc: dict[str, Any], bad: Any) -> None:
    if bad in ("weights", "optimise"):
        return
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters(doc, allocate=bad)
    assert exc.value.field == "allocate"


BAD_PLAN = [  # (change to a valid document, the field named)
    (lambda d: d["budget"].update(epsilon=-1.0), "plan.budget.epsilon"),
    (lambda d: d["budget"].update(delta=1.5), "plan.budget.delta"),
    (lambda d: d.update(format="other"), "plan.format"),
    (lambda d: d.update(releases=[]), "plan.releases"),
    (lambda d: d.update(dataset=""), "plan.dataset"),
    (lambda d: d["releases"][0].update(kind="fourier"), "plan.releases[{0}].kind"),
    (lambda d: d["releases"][0].update(weight=0.0), "plan.releases[{0}].weight"),
    (lambda d: d["releases"][0].update(delta=2.0), "plan.releases[{0}].delta"),
    (lambda d: d["releases"].append(dict(d["releases"][0])), "plan.releases[{n}].name"),
]


@given(plan_docs(), st.sampled_from(range(len(BAD_PLAN))))
def test_a_bad_plan_is_refused_by_the_plans_own_validation(doc: dict[str, Any], i: int) -> None:
    change, where = BAD_PLAN[i]
    first, n = doc["releases"][0]["name"], len(doc["releases"])
    change(doc)
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters(doc)
    assert exc.value.field == where.format(first, n=n)


PLAN_ATTRS = [("epsilon", 0.0, "plan.budget.epsilon"), ("epsilon", float("nan"),
               "plan.budget.epsilon"), ("delta", 1.0, "plan.budget.delta"),
              ("delta", -1e-9, "plan.budget.delta"), ("dataset", "", "plan.dataset")]


@given(plan_docs(), st.sampled_from(PLAN_ATTRS))
def test_a_plan_object_made_without_validation_is_checked_the_same_way(
        doc: dict[str, Any], bad: tuple[str, Any, str]) -> None:
    attr, value, where = bad
    plan = dataclasses.replace(plan_from_dict(doc), **{attr: value})
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters(plan)
    assert exc.value.field == where


@given(st.one_of(st.none(), st.integers(), st.text(max_size=4), st.lists(st.integers())))
def test_a_plan_that_is_no_plan_is_named(bad: Any) -> None:
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters(bad)
    assert exc.value.field == "plan"


@given(plan_docs(), st.sampled_from(("epochs", "seed", "dataset")))
def test_from_dict_names_an_unknown_key_a_missing_plan_and_a_wrong_name(
        doc: dict[str, Any], key: str) -> None:
    d = PlanExecutionParameters(doc).to_dict()
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters.from_dict({**d, key: 1})
    assert exc.value.field == key
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters.from_dict({k: v for k, v in d.items() if k != "plan"})
    assert exc.value.field == "plan"
    with pytest.raises(InputError) as exc:
        PlanExecutionParameters.from_dict({**d, "name": d["name"] + "-other"})
    assert exc.value.field == "name"


# --------------------------------------------------------------------- the entry point
def _doc(epsilon: float, name: str = "small") -> dict[str, Any]:
    return {"format": "privplan-plan", "version": 1, "name": name, "dataset": "study",
            "budget": {"epsilon": epsilon, "delta": 1e-5},
            "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.5},
                         {"name": "means", "kind": "gaussian", "sigma": 3.0}]}


def test_an_infeasible_plan_is_refused_naming_the_release_with_its_evaluation() -> None:
    project = Project()
    with pytest.raises(InfeasiblePlan) as exc:
        plan_execution_release(PlanExecutionParameters(_doc(0.6)), project=project)
    assert exc.value.field == "releases[means]" and "nothing was recorded" in str(exc.value)
    assert exc.value.partial == exc.value.budget.to_dict() and not exc.value.budget.feasible
    assert project.runs == [] and project.ledger == []


def test_execution_records_the_plan_as_executed_and_refuses_a_second_time(tmp_path) -> None:
    path = tmp_path / "p.privplan.json"
    shutil.copy(BUILTIN, path)
    project = load_project(path)
    params = PlanExecutionParameters(_doc(6.0), allocate="weights")
    result = plan_execution_release(params, project=project)
    assert result.executed == {} and result.budget.allocation == "weights"
    record, entries = plan_execution_run_record(project, result, params)
    assert record.kind == "privacy-plan" and record.target == "study"
    assert list(record.params) == ["plan", "name"]
    assert [e.parameters["release"] for e in entries] == ["counts", "means"]
    assert all(e.source == record.id and e.parameters["plan"] == "small" for e in entries)
    # the record reads back as the plan it executed (allocated: no allocation left to do)
    again = PlanExecutionParameters.from_dict(record.params)
    assert again.plan == result.budget.plan and again.allocate is None
    stored_record, stored = save_plan_execution(path, project, params, result, record,
                                                entries)
    on_disk = load_project(path)
    assert [r.id for r in on_disk.runs][-1] == stored_record.id
    assert [e.id for e in on_disk.ledger][-2:] == [e.id for e in stored]
    with pytest.raises(InputError, match="already executed") as exc:
        plan_execution_release(params, project=on_disk)
    assert exc.value.field == "--execute"
    # the same plan executed meanwhile by another writer: refused under the lock, none kept
    before = path.read_bytes()
    with pytest.raises(InputError, match="already executed"):
        save_plan_execution(path, load_project(BUILTIN), params, result, record, entries)
    assert path.read_bytes() == before


def test_past_the_projects_budget_nothing_is_written_unless_over_budget(tmp_path) -> None:
    path = tmp_path / "p.privplan.json"
    raw = json.loads(BUILTIN.read_text())
    raw["project"]["budgets"] = {"study": {"epsilon": 0.1, "delta": 1e-5}}
    path.write_text(json.dumps(raw))
    before = path.read_bytes()
    for over in (False, True):
        project = load_project(path)
        params = PlanExecutionParameters(_doc(6.0), over_budget=over)
        result = plan_execution_release(params, project=project)
        record, entries = plan_execution_run_record(project, result, params)
        if not over:
            with pytest.raises(InputError, match="exceeds the budget") as exc:
                save_plan_execution(path, project, params, result, record, entries)
            assert exc.value.field == "--execute" and path.read_bytes() == before
        else:
            save_plan_execution(path, project, params, result, record, entries)
            assert len(load_project(path).ledger) == len(project.ledger)


def test_the_record_refuses_the_parameters_of_another_plan() -> None:
    project = Project()
    params = PlanExecutionParameters(_doc(6.0))
    result = plan_execution_release(params, project=project)
    with pytest.raises(ValueError, match="another plan"):
        plan_execution_run_record(project, result, PlanExecutionParameters(_doc(6.0, "x")))
