"""A save killed at any step loses nothing: the project then reads as the old version or the
new one, whole (its arrays included), and the killed writer's temporaries are gone.

A child process saves a new version of a project whose model keeps its arrays in a sidecar
and kills itself (``os._exit``) just before its N-th file-system step (fsync, rename,
unlink), for every N until a save runs to the end.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from core.mdp.examples import example2
from core.project import files as project_files
from core.project.files import load_project, save_project
from core.project.model import Project

ROOT = Path(__file__).resolve().parents[3]

CHILD = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    import numpy as np
    from core.mdp.examples import example2
    from core.mdp.model import MDP
    from core.project import files
    from core.project.files import load_project, save_project

    files.SIDECAR_NNZ = 100
    path, kill_at = sys.argv[1], int(sys.argv[2])
    project = load_project(path)
    m = example2()
    P = np.array(m.P)
    P[0, 0] = np.roll(P[0, 0], 1)  # the new version: another model, same shape
    project.mdps[0].mdp = MDP(P=P, R=m.R, R_T=m.R_T, mask=m.mask, horizon=m.horizon,
                              discount=m.discount, initial_state=m.initial_state,
                              state_names=m.state_names, action_names=m.action_names)
    project.name = "new"
    steps = [0]

    def step(fn):
        def wrapped(*a, **k):
            steps[0] += 1
            if steps[0] == kill_at:
                os._exit(9)
            return fn(*a, **k)
        return wrapped

    for name in ("fsync", "replace", "unlink"):
        setattr(os, name, step(getattr(os, name)))
    save_project(project, path)
    os._exit(0)
""")


def _old_project(folder: Path) -> Path:
    path = folder / "p.privplan.json"
    p = Project(name="old")
    p.add_mdp(example2(), "ex2")
    save_project(p, path)
    return path


def test_a_save_killed_at_any_step_leaves_the_old_or_the_new_project(tmp_path, monkeypatch):
    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    old_P = example2().P
    child = tmp_path / "child.py"
    child.write_text(CHILD.format(root=str(ROOT)))
    seen = {"old": 0, "new": 0}
    for kill_at in range(1, 40):
        folder = tmp_path / f"k{kill_at}"
        folder.mkdir()
        path = _old_project(folder)
        code = subprocess.run([sys.executable, str(child), str(path), str(kill_at)],
                              timeout=120).returncode
        assert code in (0, 9)
        project = load_project(path)  # never an error, never a mismatched pair
        P = project.mdps[0].mdp.P
        if project.name == "old":
            assert np.array_equal(P, old_P)
        else:
            assert project.name == "new" and not np.array_equal(P, old_P)
            assert np.array_equal(np.roll(P[0, 0], -1), old_P[0, 0])
        seen[project.name] += 1
        assert glob.glob(str(folder / ".*.tmp")) == [], kill_at  # cleaned when opened
        if code == 0:
            # a finished save leaves exactly the sidecar its project file names
            sidecars = sorted(os.path.basename(f) for f in glob.glob(str(folder / "*.npz")))
            named = project_files._named_sidecars(path)
            assert sidecars == sorted(named) and len(named) == 1
            break
    else:
        raise AssertionError("the save never ran to the end")
    assert seen["old"] >= 3 and seen["new"] >= 1  # kills before and after the commit


def test_a_sidecar_that_does_not_match_its_project_is_refused(tmp_path, monkeypatch):
    import pytest

    from core.common.errors import InputError

    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    path = _old_project(tmp_path)
    (side,) = project_files._named_sidecars(path)
    P = np.array(example2().P)
    P[1, 0] = np.roll(P[1, 0], 1)
    np.savez(tmp_path / side, P=P)
    with pytest.raises(InputError, match="does not hold the arrays its name promises"):
        load_project(path)
