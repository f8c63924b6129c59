"""Project files: round trip, golden files, schema versions, migrations, unknown keys, load_any."""

from __future__ import annotations

import copy
import json
import logging
import re
from pathlib import Path

import numpy as np
import pytest

from core import __version__
from core.common.errors import InputError
from core.logistics.document import MapEntry
from core.logistics.examples import fig41
from core.mdp.examples import example2, four_startups
from core.mdp.files import mdp_from_dict, save_mdp
from core.privacy.ledger import LedgerEntry
from core.project import files as project_json
from core.project import migrations
from core.project.files import (
    PROJECT_FORMAT,
    UnsupportedSchemaVersion,
    dumps_project,
    load_any,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from core.project.migrations import MIGRATIONS, SCHEMA_VERSION, migrate, migration
from core.project.model import Project, RunRecord

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "projects"
GOLDEN_FILES = sorted(GOLDEN.glob("v*_*.json"))


def sample_project() -> Project:
    p = Project(name="demo ü", notes="line one\nline two")
    p.add_mdp(four_startups(), "startups")
    p.mdps[0].note = "a note"
    p.add_mdp(example2())
    p.runs.append(RunRecord(id="run-1", kind="sweep", target="startups",
                            params={"k": [10.0, 100.0], "runs": 4, "beta": 0.05},
                            summary={"cost_bound_mean": [1.5, 0.25]}, mode="experiment",
                            seed=12345, created="2026-01-01T00:00:00+00:00"))
    p.runs.append(RunRecord(id="run-2", kind="bounds", target="mdp-2", params={}, summary={},
                            mode="release", seed=None, created="2026-01-02T00:00:00+00:00"))
    p.maps.append(MapEntry("map-1", fig41()))
    p.ledger.append(LedgerEntry(id="rel-1", dataset="mdp:startups", mechanism="dirichlet",
                                epsilon=2.1, delta=1e-3, mode="experiment", seed=12345,
                                source="run-1", count=4, time="2026-01-01T00:00:00+00:00"))
    return p


def test_round_trip_dict():
    p = sample_project()
    assert project_from_dict(project_to_dict(p)) == p
    assert project_from_dict(json.loads(dumps_project(p))) == p


def test_round_trip_file(tmp_path):
    p = sample_project()
    path = tmp_path / "p.privplan.json"
    save_project(p, path)
    q = load_project(path)
    assert q == p
    assert q.mdps[0].mdp.layout == p.mdps[0].mdp.layout
    save_project(q, path)  # saving what was loaded writes the same bytes
    assert path.read_text(encoding="utf-8") == dumps_project(p)
    assert [x.name for x in tmp_path.iterdir()] == ["p.privplan.json"]


def test_envelope():
    doc = project_to_dict(sample_project())
    assert doc["format"] == PROJECT_FORMAT == "privplan-project"
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["saved_by"] == f"privplan {__version__}"
    assert set(doc["project"]) >= {"name", "mdps", "runs", "maps", "advising", "ledger"}
    m = doc["project"]["mdps"][0]
    assert m["id"] == "startups" and m["note"] == "a note"
    assert m["states"][0] == {"id": "st-1", "label": "start", "pos": [0.0, 0.0]}
    assert {"action", "target", "p"} == set(m["transitions"][0])


# ----------------------------------------------------------------------------- golden files
def test_there_is_a_golden_file_for_every_schema_version():
    versions = {int(p.name[1:].split("_", 1)[0]) for p in GOLDEN_FILES}
    assert versions == set(range(1, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[p.name for p in GOLDEN_FILES])
def test_golden_file_loads(path, caplog):
    with caplog.at_level(logging.WARNING):
        project = load_project(path)
    assert not caplog.records, "a golden file must load without warnings"
    assert project.mdps, "golden files hold at least one MDP"
    for entry in project.mdps:
        assert entry.mdp.n_states >= 1
    # loading, saving and loading again is lossless
    assert project_from_dict(project_to_dict(project)) == project


def test_golden_v1_builtin_content():
    project = load_project(GOLDEN / "v1_builtin.json")
    assert project.name == "PrivPlan examples"
    assert [e.id for e in project.mdps] == ["four-startups", "example-2"]
    startups, ex2 = project.mdps[0].mdp, project.mdps[1].mdp
    assert startups.P.shape == (3, 4, 3) and startups.horizon == 3
    assert startups.state_names == ("start", "success", "failure")
    assert startups.mask.sum() == 6
    assert ex2.P.shape == (20, 5, 20) and ex2.horizon == 10 and ex2.discount == 1.0
    assert "placeholder" in project.mdps[0].note


# ----------------------------------------------------------------------------- versions
def test_newer_schema_is_refused(tmp_path):
    doc = project_to_dict(sample_project())
    doc["schema_version"] = SCHEMA_VERSION + 1
    doc["saved_by"] = "privplan 99.0"
    with pytest.raises(UnsupportedSchemaVersion) as info:
        project_from_dict(doc)
    assert isinstance(info.value, InputError) and info.value.field == "schema_version"
    assert "privplan 99.0" in str(info.value) and str(SCHEMA_VERSION + 1) in str(info.value)
    path = tmp_path / "future.privplan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(UnsupportedSchemaVersion) as info:
        load_project(path)
    assert "future.privplan.json" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("ver", [0, -1, "1", 1.0, True, None])
def test_bad_schema_version(ver):
    doc = project_to_dict(sample_project())
    doc["schema_version"] = ver
    with pytest.raises(InputError) as info:
        project_from_dict(doc)
    assert info.value.field == "schema_version"


@pytest.mark.parametrize("doc", [[], "x", {"format": "privplan-mdp"}, {}])
def test_not_a_project(doc):
    with pytest.raises(InputError) as info:
        project_from_dict(doc)
    assert info.value.field == "format"


def test_bad_payloads_name_the_field():
    doc = project_to_dict(sample_project())
    bad = copy.deepcopy(doc)
    bad["project"] = []
    with pytest.raises(InputError, match="project"):
        project_from_dict(bad)
    bad = copy.deepcopy(doc)
    bad["project"]["mdps"][0]["transitions"][0]["target"] = "nowhere"
    with pytest.raises(InputError) as info:
        project_from_dict(bad)
    assert info.value.field.startswith("mdps[startups]") and "nowhere" in str(info.value)
    bad = copy.deepcopy(doc)
    bad["project"]["mdps"][0]["actions"][0]["reward"] = "lots"
    with pytest.raises(InputError) as info:
        project_from_dict(bad)
    assert info.value.field == "mdps[startups].actions[0].reward"
    bad = copy.deepcopy(doc)
    del bad["project"]["mdps"][1]["id"]
    with pytest.raises(InputError) as info:
        project_from_dict(bad)
    assert info.value.field == "mdps[1]"
    bad = copy.deepcopy(doc)
    del bad["project"]["runs"][0]["kind"]
    with pytest.raises(InputError) as info:
        project_from_dict(bad)
    assert info.value.field == "runs[0]"
    bad = copy.deepcopy(doc)
    bad["project"]["maps"] = {"not": "a list"}
    with pytest.raises(InputError) as info:
        project_from_dict(bad)
    assert info.value.field == "maps"


# ----------------------------------------------------------------------------- migrations
@pytest.fixture
def registry(monkeypatch):
    """A private migration registry at schema version 3, installed everywhere it is read."""
    steps: dict = {}
    monkeypatch.setattr(migrations, "MIGRATIONS", steps)
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(project_json, "SCHEMA_VERSION", 3)

    @migration(2)  # registered out of order on purpose
    def two_to_three(payload):
        payload = dict(payload)
        payload["trail"] = [*payload.get("trail", []), "2->3"]
        payload["name"] = payload["title"]
        del payload["title"]
        return payload

    @migration(1)
    def one_to_two(payload):
        payload = dict(payload)
        payload["trail"] = [*payload.get("trail", []), "1->2"]
        payload["title"] = payload.pop("name").upper()
        return payload

    return steps


def test_migrate_applies_steps_in_order(registry):
    assert sorted(registry) == [1, 2]
    assert migrate({"name": "x"}, 1) == {"trail": ["1->2", "2->3"], "name": "X"}
    assert migrate({"title": "y"}, 2) == {"trail": ["2->3"], "name": "y"}
    assert migrate({"name": "z"}, 3) == {"name": "z"}


def test_old_file_is_migrated_on_load(registry, tmp_path, caplog):
    doc = project_to_dict(sample_project())
    assert doc["schema_version"] == 3
    doc["schema_version"] = 1
    path = tmp_path / "old.privplan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="core.project.files"):
        project = load_project(path)
    assert project.name == "DEMO Ü"
    assert "trail" in caplog.text  # an unknown key after migration: ignored with a warning


def test_duplicate_migration_is_refused(registry):
    with pytest.raises(RuntimeError):
        migration(1)(lambda p: p)


def test_real_registry_is_complete():
    """One registered step per version below the current one (napari-style bump policy)."""
    assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION))
    assert migrate({"name": "x"}, SCHEMA_VERSION) == {"name": "x"}


# ----------------------------------------------------------------------------- unknown keys
def test_unknown_keys_are_ignored_with_a_warning(caplog):
    doc = project_to_dict(sample_project())
    doc["project"]["wibble"] = {"from": "the future"}
    doc["project"]["zzz_extra"] = 1
    with caplog.at_level(logging.WARNING, logger="core.project.files"):
        project = project_from_dict(doc)
    assert project == sample_project()
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("wibble" in m for m in messages) and any("zzz_extra" in m for m in messages)


def test_known_keys_do_not_warn(caplog):
    with caplog.at_level(logging.WARNING):
        project_from_dict(project_to_dict(sample_project()))
    assert not caplog.records


# ----------------------------------------------------------------------------- load_any
def test_load_any_project(tmp_path):
    path = tmp_path / "p.privplan.json"
    save_project(sample_project(), path)
    assert load_any(path) == sample_project()


@pytest.mark.parametrize("suffix", [".mdp.json", ".mdp.npz"])
def test_load_any_mdp(tmp_path, suffix):
    path = tmp_path / f"startups{suffix}"
    save_mdp(four_startups(), path)
    project = load_any(path)
    assert len(project.mdps) == 1 and project.runs == []
    m = project.mdps[0].mdp
    assert m == four_startups().replace(name=m.name)
    assert project.name == m.name


@pytest.mark.parametrize("name, content, needle", [
    ("x.json", b"{not json", "malformed JSON"),
    ("x.json", b'{"format": "something-else"}', "format"),
    ("x.json", b"[1, 2, 3]", "format"),
    ("x.privplan.json", b"", "the file is empty"),
    ("x.mdp.npz", b"\x00\x01 not a zip", "NPZ"),
    ("x.mdp.npz", b"", "NPZ"),
])
def test_load_any_garbage(tmp_path, name, content, needle):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_any(path)
    msg = str(info.value)
    assert name in msg and needle in msg and "\n" not in msg


def test_load_any_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_any(tmp_path / "gone.privplan.json")


def test_project_ids_and_lookup():
    p = Project()
    assert p.add_mdp(four_startups()) == "mdp-1"
    assert p.add_mdp(four_startups()) == "mdp-2"
    assert p.add_mdp(four_startups(), "mine") == "mine"
    assert p.mdp("mdp-2").n_states == 3
    with pytest.raises(InputError) as info:
        p.mdp("nope")
    assert info.value.field == "mdp"
    assert p.new_run_id() == "run-1"
    assert np.array_equal(p.mdp("mine").P, four_startups().P)


def test_a_draft_with_an_invalid_row_saves_and_loads_but_cannot_be_analysed():
    """Schema 2 keeps drafts: a row that does not sum to 1 is a problem, not a load error."""
    doc = project_to_dict(sample_project())
    tr = doc["project"]["mdps"][0]["transitions"]
    first = next(t for t in tr if t["action"] == "ac-1")
    first["p"] = first["p"] + 0.25
    project = project_from_dict(doc)
    model = project.mdps[0].model
    assert not model.is_valid
    (problem,) = [p for p in model.errors() if p.action == "ac-1"]
    assert problem.deficit == pytest.approx(-0.25) and "acquire_1" in problem.message
    with pytest.raises(InputError, match="acquire_1"):
        _ = project.mdps[0].mdp
    assert project_to_dict(project) == doc  # the draft round-trips unchanged


def test_migration_1_to_2_keeps_every_number():
    v1 = json.loads((GOLDEN / "v1_builtin.json").read_text())
    assert v1["schema_version"] == 1
    old = {m["id"]: mdp_from_dict({k: v for k, v in m.items() if k not in ("id", "note")})
           for m in v1["project"]["mdps"]}
    migrated = project_from_dict(v1)
    assert [e.id for e in migrated.mdps] == list(old)
    for e in migrated.mdps:
        assert e.mdp == old[e.id]
        assert e.model.state_labels == list(old[e.id].state_names)
    assert migrated.mdps[0].note == v1["project"]["mdps"][0].get("note", "")


def test_large_models_keep_their_arrays_in_a_sidecar(tmp_path, monkeypatch):
    monkeypatch.setattr(project_json, "SIDECAR_NNZ", 100)
    project = Project(name="big")
    project.add_mdp(example2(), "ex/2")  # 2,000 non-zeros > 100; the id needs sanitising
    path = tmp_path / "big.privplan.json"
    save_project(project, path)
    doc = json.loads(path.read_text())
    (m,) = doc["project"]["mdps"]
    # named by the content of its arrays (a crashed save never pairs old and new; a copy of
    # the project names the same file)
    side = m["arrays"]
    assert re.fullmatch(r"arrays\.[0-9a-f]{24}\.npz", side) and "transitions" not in m
    assert (tmp_path / side).is_file()
    again = load_project(path)
    assert again.mdps[0].mdp == project.mdps[0].mdp
    (tmp_path / side).unlink()
    with pytest.raises(InputError) as info:
        load_project(path)
    assert side in str(info.value) and "missing" in str(info.value)
    assert str(path) in str(info.value)


def test_sidecar_names_cannot_escape_the_project_folder(tmp_path):
    doc = project_to_dict(sample_project())
    doc["project"]["mdps"][0]["arrays"] = "../elsewhere.npz"
    with pytest.raises(InputError) as info:
        project_from_dict(doc, base_dir=tmp_path)
    assert "arrays" in info.value.field


def test_golden_v2_drawn_four_startups_content():
    """A project drawn by hand in the editor (tools/build_four_startups.py), with a sweep
    and a "bounds" run whose π̄ and per-state values the drawing shows."""
    from core.mdp.examples import four_startups

    project = load_project(GOLDEN / "v2_drawn_four_startups.json")
    (entry,) = project.mdps
    mdp, ref = entry.mdp, four_startups()
    assert mdp.state_names == ref.state_names and np.array_equal(mdp.P, ref.P)
    assert np.array_equal(mdp.R, ref.R) and np.array_equal(mdp.R_T, ref.R_T)
    assert entry.model.position("st-2") == (320.0, -140.0)
    sweep, bounds = project.runs
    assert (sweep.kind, bounds.kind) == ("sweep", "bounds") and bounds.seed == 7
    s = bounds.summary
    assert s["stages_kept"] == 3 and len(s["policy"]) == 3 and len(s["v_upper"][0]) == 3
    assert s["state_ids"] == ["st-1", "st-2", "st-3"]
    assert s["policy_ids"][0][0] in {"ac-1", "ac-2", "ac-3", "ac-4"}
    assert bounds.params["model_digest"] == entry.model.digest()


@pytest.mark.parametrize("entry, problem", [
    ({"id": "rel-2", "dataset": "d", "mechanism": "laplace", "epsilon": -3}, "invalid"),
    ({"id": "rel-2", "dataset": "d", "mechanism": "laplace", "epsilon": "0.5"}, "number"),
    ({"id": "rel-2", "dataset": "d", "mechanism": "laplace", "epsilon": 0.1,
      "count": 0}, "count"),
    ({"id": "rel-2", "mechanism": "laplace", "epsilon": 0.1}, "malformed"),
    ("rel-1", "an object is needed"),
])
def test_a_damaged_ledger_is_refused_naming_the_entry(tmp_path, entry, problem):
    """Totals from part of the releases would be optimistic: the file is refused, untouched."""
    doc = project_to_dict(sample_project())
    doc["project"]["ledger"] = [doc["project"]["ledger"][0], entry]
    path = tmp_path / "p.privplan.json"
    text = json.dumps(doc)
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_project(path)
    assert info.value.field.startswith("ledger[1]") and problem in info.value.problem
    assert str(path) in str(info.value) and path.read_text() == text


def test_duplicate_ledger_ids_are_refused():
    doc = project_to_dict(sample_project())
    doc["project"]["ledger"] *= 2
    with pytest.raises(InputError, match="duplicate ledger id 'rel-1'"):
        project_from_dict(doc)


def test_ledger_entries_load_typed():
    p = project_from_dict(json.loads(dumps_project(sample_project())))
    (e,) = p.ledger
    assert isinstance(e, LedgerEntry) and (e.epsilon, e.count, e.mode) == (2.1, 4, "experiment")
