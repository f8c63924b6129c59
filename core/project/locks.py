"""The advisory lock that serialises every PrivPlan writer of the projects in one folder.

A writer holds the lock of the project's *real* folder (a symlinked project locks its
target's folder) across a whole read-modify-write: a ``--record`` that re-reads the file and
appends its run, a window's save that merges what others recorded, the sidecar arrays it
writes and the unused ones it collects. So no writer ever saves over a version it has not
read, and no sidecar that another project is about to name is collected.

The lock is ``fcntl.flock`` on the folder itself (opened read-only): it leaves no file
behind, and the kernel releases it when its holder dies, so a killed writer never leaves a
project locked. It is re-entrant within a process (a save inside a record takes it once)
and excludes the process's other threads. Readers take no lock: saves are atomic (a reader
sees the old file or the new one). Where ``fcntl`` does not exist (Windows) only the threads
of one process are serialised.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.privplan.json")
>>> with project_lock(p):
...     with folder_lock(d):  # the same lock, taken again by its holder
...         os.listdir(d)
[]
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from core.common.errors import InputError, RunFailure

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks between processes
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_TIMEOUT_S", "real_path", "project_lock", "folder_lock", "LockTimeout"]

#: How long a writer waits for another writer before giving up (a save holds the lock for
#: the time of one save; a much longer wait means a stuck process).
LOCK_TIMEOUT_S = 120.0

_guard = threading.Lock()
_threads: dict[str, threading.RLock] = {}
_held: dict[str, list[int]] = {}  # real folder -> [fd, depth]


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


@contextmanager
def folder_lock(folder: str | os.PathLike[str], *, timeout: float | None = None,
                what: str | None = None) -> Iterator[None]:
    """Hold the writers' lock of ``folder`` (see the module docstring).

    Parameters
    ----------
    folder : str or PathLike
        The folder (symlinks resolved).
    timeout : float, optional
        Seconds to wait (default :data:`LOCK_TIMEOUT_S`).
    what : str, optional
        The file being written, for messages.

    Raises
    ------
    LockTimeout
        Another writer kept the lock longer than ``timeout``.
    InputError
        The folder cannot be opened (missing).
    """
    key = real_path(folder)
    name = what or key
    wait = LOCK_TIMEOUT_S if timeout is None else timeout
    deadline = time.monotonic() + wait
    with _guard:
        rlock = _threads.setdefault(key, threading.RLock())
    if not rlock.acquire(timeout=wait):
        raise LockTimeout(f"{name}: another writer in this program has been saving it for "
                          f"over {wait:.0f} s; nothing was written")
    try:
        if key in _held:
            _held[key][1] += 1
        else:
            _held[key] = [_flock(key, name, deadline, wait), 1]
        try:
            yield
        finally:
            entry = _held[key]
            entry[1] -= 1
            if entry[1] == 0:
                del _held[key]
                if entry[0] >= 0:
                    try:
                        if fcntl is not None:
                            fcntl.flock(entry[0], fcntl.LOCK_UN)
                    finally:
                        os.close(entry[0])
    finally:
        rlock.release()


def _flock(folder: str, name: str, deadline: float, wait: float) -> int:
    if fcntl is None:  # pragma: no cover
        return -1
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        problem = f"folder {folder!r} does not exist" if not os.path.isdir(folder) else \
            f"cannot write here ({exc.strerror or exc})"
        raise InputError(problem, field="output", file=name) from None
    delay = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeout(f"{name}: another PrivPlan process has been writing here "
                                  f"for over {wait:.0f} s; nothing was written") from None
            time.sleep(delay)
            delay = min(0.1, delay * 2)
        except OSError:  # a file system without flock: no lock between processes
            os.close(fd)
            return -1


@contextmanager
def project_lock(path: str | os.PathLike[str], *, timeout: float | None = None
                 ) -> Iterator[None]:
    """Hold the writers' lock of the project at ``path`` (its real folder's lock).

    Parameters
    ----------
    path : str or PathLike
        The project (a symlink locks its target's folder).
    timeout : float, optional
        Seconds to wait (default :data:`LOCK_TIMEOUT_S`).
    """
    real = real_path(path)
    with folder_lock(os.path.dirname(real), timeout=timeout, what=os.fspath(path)):
        yield
