"""Expensive read-only test inputs built once per test session, however many pytest-xdist
workers ask for them.

A ``scope="session"`` (or ``"module"``) fixture is built once per *worker*: with ``-n 2`` a
project two tests read was recorded twice whenever xdist sent the tests to different workers.
:func:`built_once` builds it in the folder the workers of one session share (the parent of
each worker's base temporary folder), under a lock, and the other workers wait for it and
read the same files. The inputs must not be changed by the tests that read them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

try:
    import fcntl
except ImportError:  # no POSIX file locks (Windows): every worker builds its own copy
    fcntl = None  # type: ignore[assignment]


def built_once(tmp_path_factory, name: str, build: Callable[[Path], object]) -> Path:
    """The folder ``name`` filled by ``build(folder)``, run once per session; returns it."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None:
        root = root.parent  # shared by the workers of this session
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not done.exists():  # a worker that failed to build leaves it to the next one
            folder.mkdir(exist_ok=True)
            build(folder)
            done.write_text("built\n")
    return folder
