"""Atomic file writes: a temp file in the same folder, fsync, then ``os.replace``.

A crash during a save leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from core.common.errors import InputError

__all__ = ["atomic_write_bytes", "atomic_write_text"]


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
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"folder {str(folder)!r} does not exist", field="output", file=str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
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
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
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
