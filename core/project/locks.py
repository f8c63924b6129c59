"""Advisory locks that serialise every PrivPlan writer of a project file and of its folder.

Two locks, always taken in this order (so two writers can never wait on each other):

1. the **project lock** ``.<name>.lock`` beside the project's real file (a symlinked project
   locks its target): held across a whole read-modify-write — a ``--record`` that re-reads
   the file and appends its run, a window's save that merges what others recorded — so no
   writer ever saves over a version it has not read;
2. the **folder lock** ``.privplan-sidecars.lock``: held while sidecar arrays are written,
   reused or collected, so a sidecar another project is about to name is never collected.

The locks are ``fcntl.flock`` locks on files that are created once and never removed
(removing a lock file lets two writers lock two different files). The kernel releases a
lock when its holder dies, so a killed writer never leaves a project locked. Readers take no
lock: saves are atomic (a reader sees the old file or the new one). Where ``fcntl`` does not
exist (Windows) the locks are no-ops.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.privplan.json")
>>> with project_lock(p):
...     os.path.basename(lock_file(p))
'.a.privplan.json.lock'
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from core.common.errors import InputError, RunFailure

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_TIMEOUT_S", "real_path", "lock_file", "folder_lock_file", "project_lock",
           "folder_lock", "LockTimeout"]

#: How long a writer waits for another writer's lock before giving up (a save holds it for
#: the time of one save; a much longer wait means a stuck process).
LOCK_TIMEOUT_S = 120.0
FOLDER_LOCK = ".privplan-sidecars.lock"


class LockTimeout(RunFailure):
    """Another writer held the lock for longer than :data:`LOCK_TIMEOUT_S` (exit 3)."""


def real_path(path: str | os.PathLike[str]) -> str:
    """The file a project path really names: symlinks resolved, absolute.

    Parameters
    ----------
    path : str or PathLike
        A project path (possibly a symlink, possibly relative).

    Returns
    -------
    str
    """
    return os.path.realpath(os.fspath(path))


def lock_file(path: str | os.PathLike[str]) -> str:
    """The lock file of a project: ``.<name>.lock`` beside its real file.

    Parameters
    ----------
    path : str or PathLike
        The project.

    Returns
    -------
    str
    """
    real = real_path(path)
    return os.path.join(os.path.dirname(real), "." + os.path.basename(real) + ".lock")


def folder_lock_file(folder: str | os.PathLike[str]) -> str:
    """The lock file of a folder's sidecar arrays.

    Parameters
    ----------
    folder : str or PathLike
        A folder holding projects.

    Returns
    -------
    str
    """
    return os.path.join(os.fspath(folder), FOLDER_LOCK)


@contextmanager
def _flock(lock_path: str, what: str, timeout: float | None) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise InputError(f"cannot write here ({exc.strerror or exc})", field="output",
                         file=os.path.join(os.path.dirname(lock_path), what)) from None
    try:
        wait = LOCK_TIMEOUT_S if timeout is None else timeout
        deadline = time.monotonic() + wait
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(f"{what}: another PrivPlan process has been writing it "
                                      f"for over {wait:.0f} s; nothing was written") from None
                time.sleep(delay)
                delay = min(0.1, delay * 2)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def project_lock(path: str | os.PathLike[str], *, timeout: float | None = None
                 ) -> Iterator[None]:
    """Hold the project lock of ``path`` (see the module docstring).

    Parameters
    ----------
    path : str or PathLike
        The project (a symlink locks its target).
    timeout : float, optional
        Seconds to wait (default :data:`LOCK_TIMEOUT_S`).

    Raises
    ------
    LockTimeout
        Another writer kept the lock longer than ``timeout``.
    InputError
        The lock file cannot be created (a read-only folder): nothing can be saved there.
    """
    with _flock(lock_file(path), os.fspath(path), timeout):
        yield


@contextmanager
def folder_lock(folder: str | os.PathLike[str], *, timeout: float | None = None
                ) -> Iterator[None]:
    """Hold the sidecar lock of ``folder`` (see the module docstring).

    Parameters
    ----------
    folder : str or PathLike
        The folder.
    timeout : float, optional
        Seconds to wait (default :data:`LOCK_TIMEOUT_S`).
    """
    with _flock(folder_lock_file(folder), os.path.join(os.fspath(folder), "(sidecars)"),
                timeout):
        yield
