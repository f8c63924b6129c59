"""core.project.autosave: stems are safe file names, unique per absolute path (checked with
hashlib), a recovery copy keeps unsaved work including unbounded runs, is offered only while
it is newer than its project and its writer is gone, and discarding removes exactly its own
files."""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path

import pytest

from core.project.autosave import (
    NOTE_FORMAT,
    NOTE_SUFFIX,
    RECOVERY_SUFFIX,
    discard,
    discard_for,
    list_recoverable,
    load_recovery,
    recovery_stem,
    write_recovery,
)
from core.project.files import save_project
from core.project.model import Project, RunRecord


@pytest.mark.parametrize("key,want", [("k1", "untitled-k1"), ("a/b c", "untitled-a_b_c"),
                                      ("ü", "untitled-ü"), ("", "untitled-")])
def test_unsaved_stems_are_the_sanitised_key(key: str, want: str) -> None:
    assert recovery_stem(None, key) == want


def test_saved_stems_are_the_name_and_a_hash_of_the_absolute_path(tmp_path: Path) -> None:
    p = tmp_path / "my plan (v2).privplan.json"
    stem = recovery_stem(p, "ignored")
    full = os.path.abspath(str(p))
    assert stem == "my_plan__v2_-" + hashlib.sha1(full.encode("utf-8")).hexdigest()[:10]
    assert recovery_stem(str(p), "other key") == stem  # the key does not matter once saved
    other = tmp_path / "sub" / "my plan (v2).privplan.json"
    assert recovery_stem(other, "k") != stem  # same name, other folder
    long = recovery_stem(tmp_path / ("x" * 100 + ".json"), "k")
    assert long.startswith("x" * 40 + "-") and len(long) == 40 + 1 + 10
    assert recovery_stem(tmp_path / ".privplan.json", "k").startswith("project-")
    for s in (stem, long):
        assert all(c.isalnum() or c in "-_" for c in s)


def test_a_recovery_copy_keeps_unsaved_work_and_its_note(tmp_path: Path) -> None:
    folder = tmp_path / "recovery"
    p = Project(name="Unsaved ü", notes="draft")
    p.runs.append(RunRecord("run-1", "bounds", "m", {}, {"epsilon": math.inf}, "experiment",
                            1, "t"))
    origin_before = p.origin
    rec = write_recovery(p, folder, project_path=None, key="w1")
    assert p.origin is origin_before  # the document's merge base is untouched
    assert rec.path.endswith("untitled-w1" + RECOVERY_SUFFIX)
    assert rec.note_path.endswith("untitled-w1" + NOTE_SUFFIX)
    note = json.loads(Path(rec.note_path).read_text(encoding="utf-8"))
    assert note["format"] == NOTE_FORMAT and note["original"] is None
    assert note["name"] == "Unsaved ü" and note["pid"] == os.getpid()
    back = load_recovery(rec)
    assert back.name == "Unsaved ü" and back.notes == "draft"
    assert back.runs[0].summary["epsilon"] is None  # saved as null with a reason
    assert rec.original is None and not rec.original_exists


def test_only_copies_newer_than_their_project_are_offered(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    proj = tmp_path / "p.privplan.json"
    save_project(Project(name="p"), proj)
    rec = write_recovery(Project(name="p edited"), folder, project_path=proj, key="k")
    old = time.time() - 100
    os.utime(proj, (old, old))  # the project is older than the copy: offer it
    offered = list_recoverable(folder)
    assert [r.path for r in offered] == [rec.path] and offered[0].original_exists
    assert offered[0].original == os.path.abspath(proj)
    os.utime(proj, (time.time() + 100, time.time() + 100))  # saved since: nothing to offer
    assert list_recoverable(folder) == []
    os.remove(proj)  # the project is gone: the copy is all there is
    assert [r.name for r in list_recoverable(folder)] == ["p edited"]
    assert list_recoverable(folder, exclude={rec.path}) == []


def test_copies_are_offered_newest_first_and_a_live_writer_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    a = write_recovery(Project(name="a"), folder, project_path=None, key="a")
    b = write_recovery(Project(name="b"), folder, project_path=None, key="b")
    os.utime(a.path, (time.time() - 50, time.time() - 50))
    assert [r.name for r in list_recoverable(folder)] == ["b", "a"]
    note = json.loads(Path(b.note_path).read_text(encoding="utf-8"))
    note["pid"] = os.getppid()  # a process that is alive and not this one
    Path(b.note_path).write_text(json.dumps(note), encoding="utf-8")
    assert [r.name for r in list_recoverable(folder)] == ["a"]


def test_damaged_notes_and_missing_copies_are_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    a = write_recovery(Project(name="a"), folder, project_path=None, key="a")
    Path(a.note_path).write_text("{broken", encoding="utf-8")
    b = write_recovery(Project(name="b"), folder, project_path=None, key="b")
    Path(b.note_path).write_text(json.dumps({"format": "other"}), encoding="utf-8")
    c = write_recovery(Project(name="c"), folder, project_path=None, key="c")
    os.remove(c.path)
    assert list_recoverable(folder) == []
    assert list_recoverable(tmp_path / "no such folder") == []


def test_discarding_removes_only_that_copy(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    a = write_recovery(Project(name="a"), folder, project_path=None, key="a")
    b = write_recovery(Project(name="b"), folder, project_path=None, key="b")
    discard(a)
    assert not os.path.exists(a.path) and not os.path.exists(a.note_path)
    assert os.path.exists(b.path) and os.path.exists(b.note_path)
    discard(a)  # twice is harmless
    discard_for(folder, project_path=None, key="b")
    assert os.listdir(folder) == []
