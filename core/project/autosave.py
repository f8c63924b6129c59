"""Autosave and crash recovery: where recovery copies go, which ones can be offered, cleanup.

A recovery copy is an ordinary project file (``*.privplan.json``, with sidecar ``.npz``
files for large models) in a recovery folder, plus a small ``*.recovery.json`` note that
says which project it belongs to and when it was written. Names derive from the
project's path (the same project always maps to the same copy) or, for a project never
saved, from a per-session key. Pure functions: the GUI decides when to call them.

Examples
--------
>>> import tempfile
>>> from core.project.model import Project
>>> folder = tempfile.mkdtemp()
>>> rec = write_recovery(Project(name="draft"), folder, project_path=None, key="abc")
>>> [r.name for r in list_recoverable(folder)]
['draft']
>>> discard(rec); list_recoverable(folder)
[]
"""

from __future__ import annotations

import datetime as _dt
import glob
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.common.atomic import atomic_write_text
from core.project.files import collect_sidecars, named_sidecars, write_project
from core.project.locks import folder_lock
from core.project.model import Project

__all__ = ["RECOVERY_SUFFIX", "NOTE_SUFFIX", "Recovery", "recovery_stem", "write_recovery",
           "list_recoverable", "discard", "discard_for", "load_recovery"]

log = logging.getLogger(__name__)

RECOVERY_SUFFIX = ".privplan.json"
NOTE_SUFFIX = ".recovery.json"
NOTE_FORMAT = "privplan-recovery"


@dataclass(frozen=True)
class Recovery:
    """One recovery copy: its file, the project it belongs to (None: never saved), when."""

    path: str
    note_path: str
    original: str | None
    name: str
    saved: str  # ISO time of the autosave
    mtime: float

    @property
    def original_exists(self) -> bool:
        return self.original is not None and os.path.exists(self.original)


def recovery_stem(project_path: str | os.PathLike[str] | None, key: str) -> str:
    """The file stem of the recovery copy of a project (by path) or of an unsaved one (key).

    >>> recovery_stem(None, "k1")
    'untitled-k1'
    >>> recovery_stem("/a/b/my plan.privplan.json", "k1").startswith("my_plan-")
    True

    Parameters
    ----------
    project_path : str, PathLike or None
        The project's file (None for an unsaved project).
    key : str
        The window's key for an unsaved project.

    Returns
    -------
    str
    """
    if project_path is None:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in key)
        return f"untitled-{safe}"
    full = os.path.abspath(str(project_path))
    base = os.path.basename(full)
    for suffix in (".privplan.json", ".json"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in base)[:40] or "project"
    return f"{safe}-{hashlib.sha1(full.encode('utf-8')).hexdigest()[:10]}"


def write_recovery(project: Project, folder: str | os.PathLike[str], *,
                   project_path: str | os.PathLike[str] | None, key: str) -> Recovery:
    """Write the recovery copy of ``project`` (atomically) and its note; returns it.

    Parameters
    ----------
    project : Project
        The project with its unsaved changes.
    folder : str or PathLike
        The recovery folder.
    project_path : str, PathLike or None
        Its file.
    key : str
        The window's key for an unsaved project.

    Returns
    -------
    Recovery
    """
    os.makedirs(folder, exist_ok=True)
    stem = recovery_stem(project_path, key)
    path = os.path.join(str(folder), stem + RECOVERY_SUFFIX)
    note_path = os.path.join(str(folder), stem + NOTE_SUFFIX)
    origin = project.origin
    try:  # the copy has one writer, its window: no project lock, no merge
        write_project(project, path)
    finally:
        project.origin = origin  # the document's merge base stays the project's own file
    saved = _dt.datetime.now().astimezone().replace(microsecond=0).isoformat()
    original = None if project_path is None else os.path.abspath(str(project_path))
    note = {"format": NOTE_FORMAT, "original": original, "name": project.name,
            "saved": saved, "pid": os.getpid()}
    atomic_write_text(note_path, json.dumps(note, ensure_ascii=False, indent=1) + "\n")
    return Recovery(path=path, note_path=note_path, original=original, name=project.name,
                    saved=saved, mtime=os.path.getmtime(path))


def _read_note(note_path: str) -> dict[str, Any] | None:
    try:
        note = json.loads(Path(note_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or note.get("format") != NOTE_FORMAT:
        return None
    return note


def list_recoverable(folder: str | os.PathLike[str], *,
                     exclude: set[str] | None = None) -> list[Recovery]:
    """Recovery copies worth offering, newest first.

    A copy is offered when its project was never saved, is gone, or is older than the
    copy. Copies whose note names a running process other than this one (another
    PrivPlan window still at work; POSIX only) and paths in ``exclude`` are skipped.

    Parameters
    ----------
    folder : str or PathLike
        The recovery folder.
    exclude : set of str, optional
        Recovery paths to skip (this window's own).

    Returns
    -------
    list of Recovery
    """
    if not os.path.isdir(folder):
        return []
    out: list[Recovery] = []
    exclude = {os.path.abspath(p) for p in (exclude or set())}
    for note_path in sorted(glob.glob(os.path.join(glob.escape(str(folder)),
                                                   "*" + NOTE_SUFFIX))):
        stem = os.path.basename(note_path)[: -len(NOTE_SUFFIX)]
        path = os.path.join(str(folder), stem + RECOVERY_SUFFIX)
        note = _read_note(note_path)
        if note is None or not os.path.isfile(path) or os.path.abspath(path) in exclude:
            continue
        pid = note.get("pid")
        if isinstance(pid, int) and pid != os.getpid() and _process_alive(pid):
            continue
        mtime = os.path.getmtime(path)
        original = note.get("original") if isinstance(note.get("original"), str) else None
        if original is not None and os.path.exists(original) and \
                os.path.getmtime(original) >= mtime:
            continue  # the project was saved after this copy: nothing to recover
        out.append(Recovery(path=path, note_path=note_path, original=original,
                            name=str(note.get("name", stem)), saved=str(note.get("saved", "")),
                            mtime=mtime))
    out.sort(key=lambda r: r.mtime, reverse=True)
    return out


def _process_alive(pid: int) -> bool:
    if os.name != "posix":  # os.kill(pid, 0) would signal the process on Windows
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def load_recovery(recovery: Recovery) -> Project:
    """The recovered project (its sidecars are next to the copy).

    Parameters
    ----------
    recovery : Recovery
        A copy :func:`list_recoverable` offered.

    Returns
    -------
    Project

    Raises
    ------
    InputError
        If the copy cannot be read.
    """
    from core.project.files import load_project

    return load_project(recovery.path)


def discard(recovery: Recovery) -> None:
    """Delete a recovery copy, its note and its sidecar arrays.

    Parameters
    ----------
    recovery : Recovery
        The copy.
    """
    _remove_stem(os.path.dirname(recovery.path),
                 os.path.basename(recovery.path)[: -len(RECOVERY_SUFFIX)])


def discard_for(folder: str | os.PathLike[str], *,
                project_path: str | os.PathLike[str] | None, key: str) -> None:
    """Delete the recovery copy of a project (after a normal save or close).

    Parameters
    ----------
    folder : str or PathLike
        The recovery folder.
    project_path : str, PathLike or None
        The project's file.
    key : str
        The window's key for an unsaved project.
    """
    _remove_stem(str(folder), recovery_stem(project_path, key))


def _remove_stem(folder: str, stem: str) -> None:
    main = os.path.join(folder, stem + RECOVERY_SUFFIX)
    named = named_sidecars(main) if os.path.isfile(main) else set()
    # sidecars of copies written before content addressing: "<stem>.<id>[.<digest>].npz"
    named |= {os.path.basename(p) for p in glob.glob(os.path.join(
        glob.escape(folder), glob.escape(stem) + ".*.npz"))}
    for v in (main, os.path.join(folder, stem + NOTE_SUFFIX)):
        try:
            os.unlink(v)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("cannot remove recovery file %s: %s", v, exc)
    if named:  # the copy's arrays, unless another copy here names them too
        with folder_lock(folder):
            collect_sidecars(folder, previous=named)
