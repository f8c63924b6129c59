"""core.project.files and core.project.model: names and digests are what their docstrings
say (checked with hashlib directly), every malformed run, ledger entry and plan is refused
naming where it is, a project with unicode names, runs, budgets, plans and unbounded releases
survives save and load, and the model's helpers (ids, look-ups, the MDP cache) behave."""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.common.errors import InputError
from core.mdp.examples import corridor, four_startups
from core.privacy.ledger import LedgerEntry
from core.project.files import (
    PROJECT_FORMAT,
    SCHEMA_VERSION,
    UnsupportedSchemaVersion,
    arrays_digest,
    content_digest,
    dumps_project,
    json_name,
    ledger_entries,
    load_any,
    load_project,
    migrated_payload,
    plan_documents,
    project_from_dict,
    project_stem,
    project_to_dict,
    run_records,
    save_project,
    sidecar_name,
)
from core.project.model import MdpEntry, Project, RunRecord


# ------------------------------------------------------------------ names and digests
@pytest.mark.parametrize("path,stem", [
    ("a/b/study.privplan.json", "study"),
    ("study.json", "study"),
    ("/x/y/z.privplan.json.bak", "z.privplan.json.bak"),
    ("ünïcødé 研究.privplan.json", "ünïcødé 研究"),
    ("noext", "noext"),
    (".privplan.json", ""),
])
def test_project_stem_strips_only_the_known_suffixes(path: str, stem: str) -> None:
    assert project_stem(path) == stem
    assert project_stem(Path(path)) == stem


def test_content_digest_of_a_dense_model_is_the_sha256_of_its_bytes() -> None:
    P = four_startups().P
    want = hashlib.sha256(np.ascontiguousarray(P, dtype=np.float64).tobytes()).hexdigest()
    assert content_digest(P) == want[:24]
    assert content_digest(P, 64) == want
    assert arrays_digest(P) == want[:12]


def test_sidecar_names_are_content_addressed() -> None:
    P = four_startups().P
    name = sidecar_name("a/x.privplan.json", "m", P)
    assert name == f"arrays.{content_digest(P)}.npz"
    # the project and the model id do not enter a content name: copies share the file
    assert sidecar_name("b/other.privplan.json", "zz", P.copy()) == name
    Q = P.copy()
    Q[0, 0, :] = Q[0, 0, ::-1]
    assert sidecar_name("a/x.privplan.json", "m", Q) != name


def test_legacy_sidecar_names_make_the_model_id_safe() -> None:
    assert sidecar_name("d/study.privplan.json", "m 1/../x") == "study.m_1____x.npz"
    assert sidecar_name("study.json", "ok-id_2") == "study.ok-id_2.npz"


@pytest.mark.parametrize("name", ["plain.json", 'quote".json', "back\\slash", "tab\tname",
                                  "ünï.json", "nl\nname"])
def test_json_name_is_the_text_inside_a_json_string(name: str) -> None:
    escaped = json_name(name)
    assert json.loads(f'"{escaped}"') == name
    assert escaped in json.dumps({"f": name})


# ------------------------------------------------------------------ envelope
def _env(payload: Any = None, **over: Any) -> dict[str, Any]:
    d = {"format": PROJECT_FORMAT, "schema_version": SCHEMA_VERSION,
         "project": {} if payload is None else payload}
    d.update(over)
    return d


@pytest.mark.parametrize("doc,field", [
    (None, "format"),
    (_env(format="privplan-plan"), "format"),
    (_env(schema_version=True), "schema_version"),
    (_env(schema_version=0), "schema_version"),
    (_env(schema_version="2"), "schema_version"),
    (_env(schema_version=2.0), "schema_version"),
    (_env(project="x"), "project"),
    (_env({"runs": {"a": 1}}), "runs"),
    (_env({"ledger": "x"}), "ledger"),
    (_env({"plans": 3}), "plans"),
    (_env({"name": 3}), "name"),
    (_env({"notes": ["x"]}), "notes"),
])
def test_a_bad_envelope_names_its_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as info:
        migrated_payload(doc)
    assert info.value.field == field


def test_a_newer_schema_names_the_writer_and_both_versions() -> None:
    with pytest.raises(UnsupportedSchemaVersion) as info:
        migrated_payload(_env(schema_version=SCHEMA_VERSION + 5, saved_by="privplan 99.0"))
    text = str(info.value)
    assert str(SCHEMA_VERSION + 5) in text and "privplan 99.0" in text
    assert f"up to {SCHEMA_VERSION}" in text
    assert isinstance(info.value, InputError)


def test_empty_sections_may_be_null_and_default_names_apply() -> None:
    p = project_from_dict(_env({"mdps": None, "runs": None, "ledger": None}))
    assert (p.name, p.notes, p.mdps, p.runs, p.ledger) == ("Untitled", "", [], [], [])


# ------------------------------------------------------------------ run records
def _run(**over: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"id": "run-1", "kind": "sweep", "target": "m", "params": {},
                         "summary": {}, "mode": "experiment", "seed": 3, "created": "t"}
    d.update(over)
    return d


@pytest.mark.parametrize("item,field,needle", [
    ("run", "runs[0]", "an object is needed"),
    (_run(id=5), "runs[0]", "id must be a string"),
    (_run(kind=None), "runs[0]", "kind must be a string"),
    (_run(target=["m"]), "runs[0]", "target must be a string"),
    (_run(params=[1]), "runs[0] (run-1)", "params must be an object"),
    (_run(summary="s"), "runs[0] (run-1)", "summary must be an object"),
    (_run(mode="production"), "runs[0] (run-1)", "mode must be"),
    (_run(seed=True), "runs[0] (run-1)", "seed must be an integer"),
    (_run(seed=1.5), "runs[0] (run-1)", "seed must be an integer"),
    (_run(created=0), "runs[0] (run-1)", "created must be a string"),
])
def test_a_malformed_run_names_its_position_and_id(item: Any, field: str,
                                                  needle: str) -> None:
    with pytest.raises(InputError) as info:
        run_records([item])
    assert info.value.field == field and needle in info.value.problem


def test_a_duplicate_run_id_is_refused_at_the_second() -> None:
    with pytest.raises(InputError) as info:
        run_records([_run(), _run(kind="bounds")])
    assert info.value.field == "runs[1] (run-1)" and "duplicate" in info.value.problem


def test_run_records_default_what_older_files_left_out() -> None:
    (r,) = run_records([{"id": "a", "kind": "k", "target": "t"}])
    assert (r.params, r.summary, r.mode, r.seed, r.created) == ({}, {}, "experiment", None, "")
    (big,) = run_records([_run(seed=2 ** 80)])
    assert big.seed == 2 ** 80  # a huge int seed is kept exactly


def test_run_records_copy_their_dicts() -> None:
    item = _run(params={"k": 1})
    (r,) = run_records([item])
    r.params["k"] = 2
    assert item["params"] == {"k": 1}


# ------------------------------------------------------------------ ledger entries
def _entry(**over: Any) -> dict[str, Any]:
    d = LedgerEntry("e1", "patients", "laplace", 0.5).to_dict()
    d.update(over)
    return d


@pytest.mark.parametrize("item,needle", [
    (_entry(adjacency=1), "adjacency must be a string"),
    (_entry(source=["x"]), "source must be a string"),
    (_entry(parameters=[1]), "parameters must be an object"),
    (_entry(mode="test"), "mode must be one of"),
    (_entry(seed="7"), "seed must be an integer"),
    (_entry(seed=False), "seed must be an integer"),
    (_entry(epsilon=None), "needs a reason"),
])
def test_a_malformed_ledger_entry_names_its_position_and_id(item: Any, needle: str) -> None:
    with pytest.raises(InputError) as info:
        ledger_entries([_entry(id="e0"), item])
    assert info.value.field == "ledger[1] (e1)" and needle in info.value.problem


def test_an_unbounded_entry_with_a_reason_loads_as_infinite() -> None:
    (e,) = ledger_entries([_entry(epsilon=None, reason="no finite bound")])
    assert e.unbounded and math.isinf(e.epsilon) and e.reason == "no finite bound"


def test_a_non_object_ledger_entry_is_named_by_position() -> None:
    with pytest.raises(InputError) as info:
        ledger_entries([_entry(), 7])
    assert info.value.field == "ledger[1]"


# ------------------------------------------------------------------ plans
def _plan(name: Any = "main") -> dict[str, Any]:
    return {"format": "privplan-plan", "version": 1, "name": name,
            "budget": {"epsilon": 1.0}, "releases": []}


@pytest.mark.parametrize("items,field", [
    (["x"], "plans[0]"),
    ([{"format": "privplan-project"}], "plans[0]"),
    ([_plan(None)], "plans[0].name"),
    ([_plan("")], "plans[0].name"),
    ([_plan("a"), _plan("b"), _plan("a")], "plans[a].name"),
])
def test_a_bad_project_plan_is_named(items: list, field: str) -> None:
    with pytest.raises(InputError) as info:
        plan_documents(items)
    assert info.value.field == field


def test_plan_documents_keep_the_plans_unvalidated_and_copied() -> None:
    src = [_plan("a"), _plan("ü")]
    out = plan_documents(src)
    assert out == src and out[0] is not src[0]


# ------------------------------------------------------------------ round trips
def _rich_project() -> Project:
    p = Project(name="Études 研究 ✓", notes="line one\nline two — ünïcode")
    p.add_mdp(four_startups(), "startups")
    p.add_mdp(corridor(), "corr")
    p.entry("corr").note = "a note"
    p.runs.append(RunRecord("run-1", "sweep", "startups", {"k": [1, 2]},
                            {"epsilon": math.inf, "epsilon_reason": "unbounded"},
                            "experiment", 2 ** 40, "2026-01-01T00:00:00Z"))
    p.ledger.append(LedgerEntry("e1", "patients", "laplace", 0.5, 0.0, {"scale": 2.0},
                                time="2026-01-01T00:00:00Z"))
    p.ledger.append(LedgerEntry("e2", "patients", "custom", math.inf, 0.0,
                                time="2026-01-01T00:00:00Z", reason="no bound proven"))
    p.budgets = {"patients": {"epsilon": 2.0, "delta": 1e-6}}
    p.plans = [_plan("plan ü")]
    return p


def test_a_rich_project_survives_save_and_load(tmp_path: Path) -> None:
    """The save writes non-finite numbers as null with a reason, as dumps_project does
    (it used to raise ValueError on an unbounded ε in a run summary and lose the save)."""
    p = _rich_project()
    path = tmp_path / "Études.privplan.json"
    save_project(p, path)
    q = load_project(path)
    # the run's unbounded ε comes back as null beside the reason its producer gave
    assert q.runs[0].summary == {"epsilon": None, "epsilon_reason": "unbounded"}
    q.runs[0].summary = p.runs[0].summary
    assert q == p
    assert q.entry("corr").note == "a note"
    assert q.runs[0].seed == 2 ** 40
    assert q.ledger[1].unbounded and q.ledger[1].reason == "no bound proven"
    assert q.origin is not None  # remembers what the file held
    # the unbounded ε of the run summary is written as null with its reason: strict JSON
    text = path.read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert "Études 研究 ✓" in text  # unicode kept readable, not escaped


def test_dumps_project_is_strict_json_with_a_trailing_newline() -> None:
    text = dumps_project(_rich_project())
    assert text.endswith("}\n")
    doc = json.loads(text)
    assert doc["format"] == PROJECT_FORMAT and doc["schema_version"] == SCHEMA_VERSION
    assert doc["saved_by"].startswith("privplan ")
    summary = doc["project"]["runs"][0]["summary"]
    assert summary["epsilon"] is None


def test_project_to_dict_leaves_optional_sections_out_when_empty() -> None:
    payload = project_to_dict(Project(name="bare"))["project"]
    assert "budgets" not in payload and "grids" not in payload and "plans" not in payload
    assert payload["mdps"] == [] and payload["name"] == "bare"


def test_a_duplicate_model_id_is_refused() -> None:
    doc = project_to_dict(_rich_project())
    doc["project"]["mdps"][1]["id"] = "startups"
    with pytest.raises(InputError) as info:
        project_from_dict(doc)
    assert info.value.field == "mdps[1]" and "duplicate" in info.value.problem


def test_a_model_naming_a_sidecar_without_a_folder_is_refused() -> None:
    doc = project_to_dict(_rich_project())
    doc["project"]["mdps"][0]["arrays"] = "arrays.0123456789abcdef01234567.npz"
    with pytest.raises(InputError) as info:
        project_from_dict(doc)
    assert info.value.field == "mdps[startups].arrays"


def test_a_missing_sidecar_is_named(tmp_path: Path) -> None:
    doc = project_to_dict(_rich_project())
    doc["project"]["mdps"][0]["arrays"] = "arrays.0123456789abcdef01234567.npz"
    with pytest.raises(InputError) as info:
        project_from_dict(doc, base_dir=tmp_path)
    assert info.value.field == "mdps[startups].arrays" and "missing" in info.value.problem


def test_a_tampered_sidecar_is_refused(tmp_path: Path) -> None:
    P = four_startups().P
    name = sidecar_name(tmp_path / "x.privplan.json", "startups", P)
    Q = P.copy()
    Q[0, 0] = Q[0, 0][::-1]
    np.savez(tmp_path / name, P=Q)
    doc = project_to_dict(_rich_project())
    m = doc["project"]["mdps"][0]
    m.pop("transitions", None)
    m["arrays"] = name
    with pytest.raises(InputError) as info:
        project_from_dict(doc, base_dir=tmp_path)
    assert "does not hold the arrays its name promises" in info.value.problem


def test_load_project_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.privplan.json"
    path.write_text(json.dumps(_env({"runs": [_run(mode="x")]})), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_project(path)
    assert info.value.file == str(path) and info.value.field == "runs[0] (run-1)"


def test_load_any_wraps_a_model_file_in_a_new_project(tmp_path: Path) -> None:
    from core.mdp.files import save_mdp

    path = tmp_path / "corridor.mdp.json"
    save_mdp(corridor(), path)
    p = load_any(path)
    assert len(p.mdps) == 1 and p.mdps[0].id == "mdp-1"
    assert p.mdp("mdp-1") == corridor()


def test_unknown_keys_are_each_warned_about_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="core.project.files"):
        project_from_dict(_env({"zeta": 1, "alpha": 2}))
    warned = [r.getMessage() for r in caplog.records]
    assert warned == ["ignoring unknown project key 'alpha'",
                      "ignoring unknown project key 'zeta'"]


def test_loading_does_not_change_the_document() -> None:
    doc = project_to_dict(_rich_project())
    before = copy.deepcopy(doc)
    project_from_dict(doc)
    assert doc == before


# ------------------------------------------------------------------ the model
def test_new_ids_take_the_first_free_number() -> None:
    p = Project()
    assert p.add_mdp(corridor()) == "mdp-1"
    assert p.add_mdp(corridor(), "mdp-3") == "mdp-3"
    assert p.add_mdp(corridor()) == "mdp-2"
    assert p.add_mdp(corridor()) == "mdp-4"
    p.runs = [RunRecord("run-1", "k", "t", {}, {}, "experiment", None),
              RunRecord("run-2", "k", "t", {}, {}, "experiment", None)]
    assert p.new_run_id() == "run-3"
    assert p.new_map_id() == "map-1" and p.new_grid_id() == "grid-1"


def test_look_ups_name_the_field_and_the_known_plans() -> None:
    p = Project()
    with pytest.raises(InputError) as info:
        p.entry("nope")
    assert info.value.field == "mdp"
    with pytest.raises(InputError) as info:
        p.plan("x")
    assert info.value.field == "plan" and "none" in info.value.problem
    p.plans = [_plan("a"), _plan("b")]
    with pytest.raises(InputError) as info:
        p.plan("x")
    assert "a, b" in info.value.problem
    assert p.plan("b")["name"] == "b"


def test_runs_for_filters_by_target_and_kind() -> None:
    p = Project()
    p.runs = [RunRecord("r1", "sweep", "m", {}, {}, "experiment", None),
              RunRecord("r2", "bounds", "m", {}, {}, "experiment", None),
              RunRecord("r3", "sweep", "n", {}, {}, "experiment", None)]
    assert [r.id for r in p.runs_for("m")] == ["r1", "r2"]
    assert [r.id for r in p.runs_for("m", "sweep")] == ["r1"]
    assert p.runs_for("zz") == []


def test_an_entry_caches_its_mdp_until_the_model_changes() -> None:
    e = MdpEntry("m", four_startups())
    first = e.mdp
    assert e.mdp is first  # cached
    e.mdp = corridor()
    assert e.mdp == corridor() and e.mdp is not first
    e2 = MdpEntry("m", corridor())
    assert e2 == e and e2 != MdpEntry("m", corridor(), note="n")
    assert e.__eq__(3) is NotImplemented
    with pytest.raises(TypeError):
        hash(e)
    assert repr(e).startswith("MdpEntry(id='m'")


def test_saving_a_document_with_an_unbounded_run_does_not_fail(tmp_path: Path) -> None:
    """The window's Save and its autosave both go through write_project: a run recorded
    in memory with ε = inf (and a NaN) saves as null with a reason."""
    from core.project.store import save_document

    p = Project(name="doc")
    p.runs.append(RunRecord("run-1", "bounds", "m", {"eta": math.nan},
                            {"epsilon": math.inf}, "experiment", 1, "t"))
    path = tmp_path / "doc.privplan.json"
    save_document(p, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    run = doc["project"]["runs"][0]
    assert run["summary"] == {"epsilon": None, "epsilon_reason": "no finite bound (unbounded)"}
    assert run["params"] == {"eta": None, "eta_reason": "not a number (undefined)"}
    assert load_project(path).runs[0].summary["epsilon"] is None
