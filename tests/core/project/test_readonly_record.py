"""Every recorder, into a project in a folder it cannot write: exit 2, one line naming the
file, the file unchanged.

Two moments: the folder is read-only from the start (the command is refused before it
computes anything), and the folder becomes read-only while the command computes (its
record fails at the write). Before, ``bounds --record`` on a project with sidecar arrays in
a read-only folder ended with ``internal error: OSError`` (exit 1) while the others exited 2.

The commands run as a real process (``recorder_worker.py``). A read-only folder does not
stop root, so as root the process runs without the capabilities that bypass file
permissions (``setpriv``); where that is not possible the test is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_recorder_matrix import NAMES, _argv, _have_ppo, _result, _run_workers, base_project

NO_BYPASS = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]


def _prefix(tmp: Path) -> list[str]:
    """The command prefix under which a mode-0555 folder cannot be written (skip if none)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv is missing: a read-only folder cannot be "
                    "made to refuse root's writes here")
    probe = tmp / "probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        done = subprocess.run([*NO_BYPASS, sys.executable, "-c",
                               f"open({str(probe / 'x')!r}, 'w')"], capture_output=True)
    finally:
        probe.chmod(0o755)
    if done.returncode == 0:
        pytest.skip("running as root and setpriv cannot drop the permission bypass here")
    return NO_BYPASS


def _names(moment: str) -> list[str]:
    """Every recorder; PPO (where JAX is installed) only when it is refused before it runs
    — once it has run, it records through the same writer as ``share`` (and its training
    costs half a minute)."""
    return NAMES + (["ppo"] if moment == "before" and _have_ppo() is None else [])


def _jobs(tmp: Path, base: Path, moment: str) -> list[dict]:
    jobs = []
    for name in _names(moment):
        folder = tmp / f"{moment}-{name}"
        folder.mkdir()
        project = folder / "p.privplan.json"
        shutil.copy(base, project)
        job = {"name": name, "argv": _argv(name, project), "project": str(project),
               "result": str(tmp / f"result-{moment}-{name}.json"),
               "bytes": project.read_text()}
        if moment == "before":
            folder.chmod(0o555)
        else:
            job["readonly"] = str(folder)  # made read-only when it is about to record
        jobs.append(job)
    return jobs


@pytest.mark.parametrize("moment", ["before", "during"])
def test_every_recorder_names_the_file_it_cannot_write(tmp_path: Path, moment: str) -> None:
    prefix = _prefix(tmp_path)
    base = base_project(tmp_path)
    jobs = _jobs(tmp_path, base, moment)
    try:
        _run_workers([[{k: j[k] for k in ("argv", "result", "readonly") if k in j}
                       for j in jobs]], tmp_path, prefix=prefix)
    finally:
        for j in jobs:
            Path(j["project"]).parent.chmod(0o755)
    problems = {}
    for j in jobs:
        res = _result(j)
        lines = res["err"].splitlines()
        out = json.loads(res["out"]) if res["out"].strip() else {"error": {"exit": 2}}
        ok = (res["code"] == 2 and out["error"]["exit"] == 2 and len(lines) == 1
              and j["project"] in lines[0] and "internal error" not in lines[0]
              and Path(j["project"]).read_text() == j["bytes"]
              and sorted(os.listdir(Path(j["project"]).parent)) == ["p.privplan.json"])
        if moment == "before":  # refused before the run: on --record, saying nothing ran
            ok = ok and "--record" in lines[0] and "nothing was run" in lines[0]
        if not ok:
            problems[j["name"]] = {"code": res["code"], "err": res["err"], "out": res["out"]}
    assert not problems, json.dumps(problems, indent=1)


def test_a_sidecar_that_cannot_be_touched_does_not_stop_a_save(tmp_path: Path,
                                                               monkeypatch) -> None:
    """A project with sidecar arrays re-saved in a folder where touching the unchanged
    sidecar fails (a read-only file system): the touch is only a hint for the orphan
    collector, so the save goes on (it raised OSError, an internal error, before)."""
    import errno

    from core.mdp.examples import example2
    from core.project import files as project_files
    from core.project.files import load_project, named_sidecars, save_project
    from core.project.model import Project
    from core.project.store import save_document

    monkeypatch.setattr(project_files, "SIDECAR_NNZ", 100)
    path = tmp_path / "big.privplan.json"
    p = Project(name="big")
    p.add_mdp(example2(), "ex")
    save_project(p, path)
    assert named_sidecars(path)

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(project_files.os, "utime", refuse)
    doc = load_project(path)
    doc.notes = "saved again"
    save_document(doc, path)
    assert load_project(path).notes == "saved again"
    assert load_project(path).mdps[0].mdp == example2()
