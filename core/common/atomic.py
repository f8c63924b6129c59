"""Atomic file writes: a temp file in the same folder, fsync, then ``os.replace``.

A crash during a save leaves either the old file or the new one, never a torn one. The
temporary file is ``.<name>.<pid>.<random>.tmp``; one left behind by a writer that died
(its process is gone) is removed by :func:`clean_stale_temporaries`, which loaders call.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
from pathlib import Path

from core.common.errors import InputError, WriteFailure

__all__ = ["atomic_write_bytes", "atomic_write_text", "clean_stale_temporaries"]

_TMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, flushed
    and synced, then ``os.replace`` — a crash leaves the old file or the new one, never half.

    Parameters
    ----------
    path : str or PathLike
        The file to write (its folder must exist).
    data : bytes
        The content.

    Raises
    ------
    InputError
        If the folder does not exist or cannot be written (field ``output``, with the
        file named). The file keeps its permissions when it exists.
    WriteFailure
        An ``OSError``: writing failed midway (a full disk); the temporary is removed and
        the old file, if any, is left as it was.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"folder {str(folder)!r} does not exist", field="output", file=str(path))
    if path.is_dir():
        raise InputError("is a folder, not a file name", field="output", file=str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                                   dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write here ({exc.strerror})", field="output",
                         file=str(path)) from None
    try:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _fsync_dir(folder)  # the rename itself survives a power cut
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # a full disk, a quota, a device gone: one line
            state = "the previous file is untouched" if path.exists() else "nothing was written"
            raise WriteFailure(exc.errno, f"cannot write {str(path)!r}: "
                               f"{exc.strerror or exc}; {state}") from exc
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8.

    Parameters
    ----------
    path : str or PathLike
        The file to write.
    text : str
        The content.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its file alone
    return True


def clean_stale_temporaries(path: str | os.PathLike[str], *, prefix: str | None = None
                            ) -> list[str]:
    """Remove temporaries that writers which died left beside ``path``.

    Parameters
    ----------
    path : str or PathLike
        A file written with :func:`atomic_write_bytes`.
    prefix : str, optional
        Clean the temporaries of every file whose name starts with this (e.g. a project's
        stem, for its sidecars too) instead of ``path``'s name only.

    Returns
    -------
    list of str
        The files removed (a temporary of a running process is never touched).
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    start = p.name if prefix is None else prefix
    removed = []
    for cand in glob.glob(os.path.join(glob.escape(str(folder)), "." + glob.escape(start)
                                       + "*.tmp")):
        m = _TMP.match(os.path.basename(cand))
        if m is None or _alive(int(m.group("pid"))):
            continue
        try:
            os.unlink(cand)
            removed.append(cand)
        except OSError:
            pass
    return removed
