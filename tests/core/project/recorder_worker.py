"""A recording process for ``test_recorder_matrix.py``: runs ``privplan`` commands through
:func:`core.cli.main.run_cli`, one after another, some of them slowed between computing and
recording. No test hook lives in the production code: the slowing is done here, by wrapping
:func:`core.project.locks.folder_lock` — the lock every project writer takes just before it
reads the file again and writes it (and the lock the old, non-merging writers took too).

Usage: ``python recorder_worker.py JOBS.json`` with ``PYTHONPATH`` at the repository root.
``JOBS.json`` is a list of jobs, each a dict:

``argv``
    The command line after ``privplan``.
``result``
    Where to write ``{"code", "out", "err"}`` when the command has finished.
``after`` (optional)
    A marker file to wait for before starting (the slowed job of the group has computed
    and read its project: now the others run).
``slow`` (optional)
    ``{"ready": MARKER, "project": PATH, "runs": N}``: when the command first takes the
    writers' lock, create ``MARKER`` and wait until the project file at ``PATH`` holds at
    least ``N`` runs (the others of its group have recorded) before going on — so this
    command records over a file changed since it read it, every time.
``readonly`` (optional)
    When the command first takes the writers' lock, make this folder read-only (mode 0555)
    before going on: the folder became unwritable while the command was computing.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import core.project.locks as locks
from core.cli.main import run_cli

WAIT_S = 240.0  # a stuck partner (a job that failed) must not hang the test forever

_original_lock = locks.folder_lock
_job: dict[str, Any] = {}


def _runs_in(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            return len(json.load(fh)["project"].get("runs") or [])
    except (OSError, ValueError, KeyError, TypeError):
        return -1  # mid-replace or unreadable: look again


def _wait_for(check: Any) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)


def _touch(path: str) -> None:
    with open(path, "w", encoding="utf-8"):
        pass


def _before_first_lock() -> None:
    if _job.get("locked"):
        return
    _job["locked"] = True
    slow = _job.get("slow")
    if slow:
        _touch(slow["ready"])
        _wait_for(lambda: _runs_in(slow["project"]) >= slow["runs"])
    if _job.get("readonly"):
        os.chmod(_job["readonly"], 0o555)


@contextmanager
def _slowed_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
    _before_first_lock()
    with _original_lock(*args, **kwargs):
        yield


def run_job(job: dict[str, Any]) -> None:
    """Run one job (see the module docstring) and write its result."""
    _job.clear()
    _job.update(job)
    if job.get("after"):
        _wait_for(lambda: os.path.exists(job["after"]))
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_cli(job["argv"], out=out, err=err)
    finally:
        slow = job.get("slow")
        if slow and not os.path.exists(slow["ready"]):
            _touch(slow["ready"])  # it failed before recording: release its partners
    tmp = job["result"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"code": code, "out": out.getvalue(), "err": err.getvalue()}, fh)
    os.replace(tmp, job["result"])


def main(jobs_file: str) -> int:
    locks.folder_lock = _slowed_lock  # project_lock looks it up here at every call
    with open(jobs_file, encoding="utf-8") as fh:
        jobs = json.load(fh)
    for job in jobs:
        run_job(job)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
