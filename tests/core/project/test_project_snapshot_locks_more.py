"""core.project.snapshot, core.project.locks and core.project.migrations: content keys ignore
ids and key order but nothing else, entries follow their runs through renumbering, a lock is
re-entrant in one thread, exclusive across threads and processes with a timeout that names
the file, and migrations run step by step in order."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.project import migrations
from core.project.locks import LockTimeout, folder_lock, project_lock, real_path
from core.project.snapshot import (
    SECTIONS,
    digest,
    entry_run,
    ledger_keys,
    relink,
    run_key,
    snapshot,
)


# ------------------------------------------------------------------ digests
def test_digest_is_the_sha256_of_canonical_json() -> None:
    obj = {"b": [1, 2.5, "ü"], "a": None}
    text = '{"a":null,"b":[1,2.5,"ü"]}'
    assert digest(obj) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_digest_ignores_key_order_but_not_values_or_list_order() -> None:
    assert digest({"a": 1, "b": 2}) == digest({"b": 2, "a": 1})
    assert digest({"a": 1}) != digest({"a": 2})
    assert digest([1, 2]) != digest([2, 1])
    assert digest({"a": 1}) != digest({"a": "1"})


def test_digest_accepts_non_finite_numbers_as_null_with_a_reason() -> None:
    d = digest({"e": math.inf})
    assert d == digest({"e": None, "e_reason": "no finite bound (unbounded)"})
    assert len(d) == 64


_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(
    allow_nan=False, allow_infinity=False)
_json = _leaf | st.lists(_leaf, max_size=3)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(max_size=5), _json, max_size=5), st.text(max_size=8),
       st.text(max_size=8))
def test_a_run_key_does_not_depend_on_the_id(run: dict, id1: str, id2: str) -> None:
    assert run_key({**run, "id": id1}) == run_key({**run, "id": id2})
    assert run_key({**run, "id": id1}) == run_key({k: v for k, v in run.items() if k != "id"})


def test_a_run_key_sees_every_other_field() -> None:
    base = {"id": "run-1", "kind": "sweep", "target": "m", "params": {"k": 1}}
    for key, value in (("kind", "bounds"), ("target", "n"), ("params", {"k": 2})):
        assert run_key(base) != run_key({**base, key: value})
    assert run_key("not a dict") == digest("not a dict")


# ------------------------------------------------------------------ entry links
@pytest.mark.parametrize("source,ids,want", [
    ("run-7", {"run-7"}, "run-7"),
    ("run-7: plan: counts", {"run-7"}, "run-7"),
    ("run-7:plan", {"run-7"}, None),          # no space after the colon: not a link
    ("run-7 : x", {"run-7"}, None),
    ("run-8", {"run-7"}, None),
    ("", {""}, ""),
    (None, {"run-7"}, None),
    (7, {"run-7"}, None),
    ("run-ü: x: y", {"run-ü"}, "run-ü"),
])
def test_entry_run_reads_both_forms_and_nothing_else(source: Any, ids: set, want: Any) -> None:
    assert entry_run(source, ids) == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=8).filter(lambda s: ": " not in s),
       st.text(min_size=1, max_size=8).filter(lambda s: ": " not in s),
       st.text(max_size=10))
def test_relink_then_entry_run_finds_the_new_id(old: str, new: str, tail: str) -> None:
    for src in (old, f"{old}: {tail}"):
        moved = relink(src, old, new)
        assert entry_run(moved, {new}) == new
        assert relink(moved, new, old) == src  # and back


def test_relink_leaves_other_runs_alone() -> None:
    assert relink("run-70: x", "run-7", "run-9") == "run-70: x"
    assert relink("manual", "run-7", "run-9") == "manual"


def test_ledger_keys_follow_the_run_not_its_id() -> None:
    run = {"kind": "plan", "target": "m"}
    keys_a = {"run-1": run_key({"id": "run-1", **run})}
    keys_b = {"run-5": run_key({"id": "run-5", **run})}
    ea = [{"id": "e1", "source": "run-1: plan: c", "epsilon": 0.5}]
    eb = [{"id": "e9", "source": "run-5: plan: c", "epsilon": 0.5}]
    assert ledger_keys(ea, keys_a) == ledger_keys(eb, keys_b)
    ec = [{"id": "e1", "source": "run-1: plan: c", "epsilon": 0.6}]
    assert ledger_keys(ec, keys_a) != ledger_keys(ea, keys_a)
    assert ledger_keys("junk", {}) == []
    assert ledger_keys([3], {}) == [digest(3)]


# ------------------------------------------------------------------ snapshots
def test_empty_and_default_sections_snapshot_alike() -> None:
    a = snapshot({}, "/x")
    b = snapshot({"name": "Untitled", "notes": "", "mdps": [], "budgets": {}}, "/x")
    assert a == b
    assert set(a.sections) == set(SECTIONS)
    c = snapshot({"name": "Other"}, "/x")
    assert c.sections["name"] != a.sections["name"]
    assert {k for k in SECTIONS if c.sections[k] != a.sections[k]} == {"name"}


def test_sidecar_names_of_one_content_compare_equal() -> None:
    digest24 = "0123456789ab" + "cdef01234567"
    old = {"mdps": [{"id": "m", "arrays": "study.m.0123456789ab.npz"}]}
    new = {"mdps": [{"id": "m", "arrays": f"arrays.{digest24}.npz"}]}
    other = {"mdps": [{"id": "m", "arrays": "arrays.ffffffffffff" + "cdef01234567.npz"}]}
    assert snapshot(old, "/x").sections["mdps"] == snapshot(new, "/x").sections["mdps"]
    assert snapshot(other, "/x").sections["mdps"] != snapshot(new, "/x").sections["mdps"]


def test_runs_and_entries_are_counted_as_multisets() -> None:
    r = {"kind": "sweep", "target": "m"}
    s = snapshot({"runs": [{"id": "a", **r}, {"id": "b", **r}, "bad"],
                  "ledger": [{"id": "e", "source": "a", "epsilon": 1.0}]}, "/p")
    assert sum(s.runs.values()) == 3 and max(s.runs.values()) == 2
    assert sum(s.ledger.values()) == 1
    assert snapshot({"runs": "junk"}, "/p").runs == {}
    assert s.path == "/p"


# ------------------------------------------------------------------ locks
def test_real_path_resolves_symlinks_and_relative_paths(tmp_path: Path) -> None:
    target = tmp_path / "real" / "p.privplan.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "link.privplan.json"
    link.symlink_to(target)
    assert real_path(link) == str(target.resolve())
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert real_path("real/p.privplan.json") == str(target.resolve())
    finally:
        os.chdir(cwd)


def test_a_lock_is_re_entrant_in_one_thread(tmp_path: Path) -> None:
    with folder_lock(tmp_path, timeout=1):
        with folder_lock(tmp_path, timeout=1):
            with project_lock(tmp_path / "x.privplan.json", timeout=1):
                pass
    # and released: another thread can take it at once
    got = []

    def take() -> None:
        with folder_lock(tmp_path, timeout=1):
            got.append(True)

    t = threading.Thread(target=take)
    t.start()
    t.join(5)
    assert got == [True]


def test_another_thread_waits_and_times_out_naming_the_file(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with folder_lock(tmp_path):
            entered.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    assert entered.wait(5)
    t0 = time.monotonic()
    try:
        with project_lock(tmp_path / "ü.privplan.json", timeout=0.2):
            pass
    except LockTimeout as exc:
        errors.append(exc)
    waited = time.monotonic() - t0
    release.set()
    t.join(5)
    assert len(errors) == 1 and "ü.privplan.json" in str(errors[0])
    assert "nothing was written" in str(errors[0])
    assert 0.15 <= waited < 3.0


def test_a_lock_excludes_another_process(tmp_path: Path) -> None:
    code = ("import sys, time\n"
            "from core.project.locks import folder_lock, LockTimeout\n"
            "try:\n"
            "    with folder_lock(sys.argv[1], timeout=0.3):\n"
            "        print('got')\n"
            "except LockTimeout as e:\n"
            "    print('timeout', e)\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    with folder_lock(tmp_path, timeout=1):
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                             text=True, env=env, timeout=60)
    assert out.stdout.startswith("timeout"), out.stderr
    assert "another PrivPlan process" in out.stdout


def test_a_missing_folder_is_an_input_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    with pytest.raises(InputError) as info:
        with folder_lock(missing, timeout=0.1):
            pass
    assert info.value.field == "output" and "does not exist" in info.value.problem
    # the failed attempt left nothing held: the parent can still be locked
    with folder_lock(tmp_path, timeout=0.5):
        pass


# ------------------------------------------------------------------ migrations
def test_migrate_at_the_current_version_is_the_identity() -> None:
    payload = {"name": "p", "mdps": []}
    assert migrations.migrate(payload, migrations.SCHEMA_VERSION) is payload


def test_every_older_version_has_exactly_one_step() -> None:
    assert set(migrations.MIGRATIONS) == set(range(1, migrations.SCHEMA_VERSION))


def test_migration_1_to_2_keeps_ids_notes_and_leaves_bad_items_for_the_loader() -> None:
    from core.mdp.examples import corridor
    from core.mdp.files import mdp_to_dict

    m = {"id": "c", "note": "hello", **mdp_to_dict(corridor())}
    out = migrations.migrate({"name": "p", "mdps": [m, "junk"], "runs": [1]}, 1)
    assert out["mdps"][0]["id"] == "c" and out["mdps"][0]["note"] == "hello"
    assert out["mdps"][1] == "junk" and out["runs"] == [1] and out["name"] == "p"
    from core.mdp.editable import MdpModel

    back = MdpModel.from_dict({k: v for k, v in out["mdps"][0].items()
                               if k not in ("id", "note")}).to_mdp()
    assert back == corridor()


def test_a_v1_file_migrates_through_the_loader(tmp_path: Path) -> None:
    from core.mdp.examples import four_startups
    from core.mdp.files import mdp_to_dict
    from core.project.files import load_project

    doc = {"format": "privplan-project", "schema_version": 1,
           "project": {"name": "old", "mdps": [{"id": "s", **mdp_to_dict(four_startups())}]}}
    path = tmp_path / "old.privplan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    p = load_project(path)
    assert p.name == "old" and p.mdp("s") == four_startups()
