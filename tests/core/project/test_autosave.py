"""Autosave and recovery files: naming, listing what can be recovered, cleanup."""

from __future__ import annotations

import json
import os
import time

import pytest

from core.mdp.examples import example2, four_startups
from core.project import files as project_json
from core.project.autosave import (
    discard,
    discard_for,
    list_recoverable,
    load_recovery,
    recovery_stem,
    write_recovery,
)
from core.project.files import save_project
from core.project.model import Project


def _project(name="p"):
    p = Project(name=name)
    p.add_mdp(four_startups(), "four")
    return p


def test_stems_are_stable_per_path_and_distinct(tmp_path):
    a = recovery_stem(tmp_path / "a.privplan.json", "k")
    assert a == recovery_stem(str(tmp_path / "a.privplan.json"), "other key")
    assert a != recovery_stem(tmp_path / "sub" / "a.privplan.json", "k")
    assert recovery_stem(None, "k/1") == "untitled-k_1"
    assert "." not in a


def test_unsaved_project_round_trip(tmp_path):
    folder = tmp_path / "recovery"
    p = _project("never saved")
    rec = write_recovery(p, folder, project_path=None, key="s1")
    (found,) = list_recoverable(folder)
    assert found.path == rec.path and found.original is None and found.name == "never saved"
    again = load_recovery(found)
    assert again.name == "never saved" and again.mdps[0].mdp == p.mdps[0].mdp
    discard(found)
    assert list_recoverable(folder) == [] and os.listdir(folder) == []


def test_copy_older_than_its_project_is_not_offered(tmp_path):
    folder = tmp_path / "recovery"
    target = tmp_path / "mine.privplan.json"
    save_project(_project(), target)
    rec = write_recovery(_project("edited"), folder, project_path=target, key="s")
    assert [r.name for r in list_recoverable(folder)] == ["edited"]
    later = rec.mtime + 5
    os.utime(target, (later, later))  # the project was saved after the autosave
    assert list_recoverable(folder) == []
    target.unlink()  # the project is gone: the copy is all there is
    assert [r.original for r in list_recoverable(folder)] == [str(target)]


def test_discard_for_removes_sidecars(tmp_path, monkeypatch):
    monkeypatch.setattr(project_json, "SIDECAR_NNZ", 100)
    folder = tmp_path / "rec"
    p = Project(name="big")
    p.add_mdp(example2(), "ex")
    write_recovery(p, folder, project_path=tmp_path / "big.privplan.json", key="s")
    assert any(n.endswith(".npz") for n in os.listdir(folder))
    assert load_recovery(list_recoverable(folder)[0]).mdps[0].mdp == p.mdps[0].mdp
    write_recovery(_project("other"), folder, project_path=None, key="s")
    discard_for(folder, project_path=tmp_path / "big.privplan.json", key="s")
    assert sorted(os.listdir(folder)) == ["untitled-s.privplan.json", "untitled-s.recovery.json"]


def test_broken_notes_and_live_processes_are_skipped(tmp_path):
    folder = tmp_path / "rec"
    rec = write_recovery(_project(), folder, project_path=None, key="a")
    (folder / "junk.recovery.json").write_text("{not json")
    (folder / "orphan.recovery.json").write_text(json.dumps({"format": "privplan-recovery"}))
    assert [r.path for r in list_recoverable(folder)] == [rec.path]
    assert list_recoverable(folder, exclude={rec.path}) == []
    if os.name == "posix":
        note = json.loads(open(rec.note_path).read())
        note["pid"] = os.getppid()  # a live process that is not us
        open(rec.note_path, "w").write(json.dumps(note))
        assert list_recoverable(folder) == []
    assert list_recoverable(tmp_path / "missing") == []


def test_newest_first(tmp_path):
    folder = tmp_path / "rec"
    old = write_recovery(_project("old"), folder, project_path=None, key="1")
    os.utime(old.path, (time.time() - 100, time.time() - 100))
    write_recovery(_project("new"), folder, project_path=None, key="2")
    assert [r.name for r in list_recoverable(folder)] == ["new", "old"]


def test_write_needs_a_writable_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        write_recovery(_project(), blocker / "sub", project_path=None, key="k")
