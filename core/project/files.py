"""Project files (``*.privplan.json``): an envelope around the project, versioned.

``{"format": "privplan-project", "schema_version": N, "saved_by": "privplan X.Y.Z",
"project": {...}}``. Older versions are migrated step by step
(:mod:`core.project.migrations`); newer ones are refused with
:class:`UnsupportedSchemaVersion`. Unknown keys are ignored with a logged warning.
Saves are atomic.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> from core.project.model import Project
>>> p = Project(name="demo"); _ = p.add_mdp(four_startups())
>>> q = project_from_dict(project_to_dict(p))
>>> q.name, q.mdps[0].mdp == p.mdps[0].mdp
('demo', True)
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import zipfile
from typing import Any

import numpy as np

from core import __version__
from core.advising.model import AdvisingSetup
from core.common.atomic import atomic_write_bytes, atomic_write_text, clean_stale_temporaries
from core.common.errors import InputError
from core.common.jsonable import jsonable
from core.gridworld.maps import GridEntry
from core.logistics.document import MapEntry
from core.mdp.editable import MdpModel
from core.mdp.files import load_mdp, read_json
from core.privacy.ledger import LedgerEntry
from core.project.jsonfmt import dumps
from core.project.migrations import SCHEMA_VERSION, migrate
from core.project.model import MdpEntry, Project, RunRecord

__all__ = ["PROJECT_FORMAT", "SCHEMA_VERSION", "SIDECAR_NNZ", "UnsupportedSchemaVersion",
           "project_to_dict", "sidecar_name", "arrays_digest", "project_stem",
           "project_from_dict", "load_project", "save_project", "load_any", "dumps_project"]

log = logging.getLogger(__name__)

PROJECT_FORMAT = "privplan-project"
_KNOWN = {"name", "mdps", "runs", "maps", "advising", "ledger", "notes", "budgets", "grids"}


class UnsupportedSchemaVersion(InputError):
    """The file was written by a newer PrivPlan."""


# Models with more non-zero transitions than this keep P in a sidecar ``.npz`` beside the
# project file (``<project>.<mdp id>.npz``): a 2,000 x 4 x 2,000 dense model would be
# 16 million JSON records.
SIDECAR_NNZ = 50_000
_DIGEST = re.compile(r"\.([0-9a-f]{12})\.npz$")


def project_stem(path: str | os.PathLike[str]) -> str:
    """A project file's name without ``.privplan.json`` (or ``.json``).

    Parameters
    ----------
    path : str or PathLike
        The project file.

    Returns
    -------
    str
    """
    stem = os.path.basename(str(path))
    for suffix in (".privplan.json", ".json"):
        if stem.endswith(suffix):
            return stem[: -len(suffix)]
    return stem


def arrays_digest(P: Any) -> str:
    """The first 12 hex digits of the SHA-256 of ``P`` (float64, C order): a sidecar's
    generation, so an old project file never reads a newer model's arrays.

    Parameters
    ----------
    P : numpy.ndarray or core.mdp.rows.SparseRows
        The transition array (or a large model's sparse rows).

    Returns
    -------
    str
        12 hex digits.
    """
    from core.mdp.rows import sidecar_digest_bytes

    h = hashlib.sha256()
    for chunk in sidecar_digest_bytes(P):  # dense P: its bytes, as always
        h.update(chunk)
    return h.hexdigest()[:12]


def sidecar_name(project_path: str | os.PathLike[str], mdp_id: str,
                 P: np.ndarray | None = None) -> str:
    """The file name of a large model's sidecar arrays.

    ``<project stem>.<mdp id>.<digest>.npz`` with the digest of ``P``
    (:func:`arrays_digest`): each version of the arrays has its own file, written before
    the project file that names it and removed only after a newer project file no longer
    names it, so a crash at any point leaves a project that reads its own arrays. Without
    ``P``, the name files of earlier versions used: ``<project stem>.<mdp id>.npz``.

    Parameters
    ----------
    project_path : str or PathLike
        The project file.
    mdp_id : str
        The model's id (characters other than letters, digits, ``-`` and ``_`` become ``_``).
    P : numpy.ndarray, optional
        The arrays the sidecar holds.

    Returns
    -------
    str
        A bare file name, placed next to the project file.
    """
    stem = project_stem(project_path)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in mdp_id)
    if P is None:
        return f"{stem}.{safe}.npz"
    return f"{stem}.{safe}.{arrays_digest(P)}.npz"


def project_to_dict(project: Project, *, sidecars: dict[str, Any] | None = None,
                    project_path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The file's JSON. With ``sidecars`` (and the path), large models' P go there instead.

    Parameters
    ----------
    project : Project
        The project.
    sidecars : dict, optional
        Filled with ``{file name: P}`` for models with more than :data:`SIDECAR_NNZ` non-zero
        transitions (then written by the caller); without it every model is inline.
    project_path : str or PathLike, optional
        The project file (names the sidecars).

    Returns
    -------
    dict
        The envelope ``{"format", "schema_version", "saved_by", "project"}``.
    """
    mdps = []
    for e in project.mdps:
        big = sidecars is not None and project_path is not None and e.model.nnz > SIDECAR_NNZ
        d = {"id": e.id, **e.model.to_dict(transitions=not big)}
        if big:
            name = sidecar_name(project_path, e.id, e.model.P)  # type: ignore[arg-type]
            sidecars[name] = e.model.P  # type: ignore[index]
            d["arrays"] = name
        if e.note:
            d["note"] = e.note
        mdps.append(d)
    runs = [{"id": r.id, "kind": r.kind, "target": r.target, "params": r.params,
             "summary": r.summary, "mode": r.mode, "seed": r.seed, "created": r.created}
            for r in project.runs]
    payload: dict[str, Any] = {
        "name": project.name, "notes": project.notes, "mdps": mdps,
        "maps": [m.to_dict() for m in project.maps],
        "advising": [s.to_dict() for s in project.advising],
        "ledger": [e.to_dict() for e in project.ledger], "runs": runs}
    if project.budgets:  # optional (no schema bump): older readers ignore it with a warning
        payload["budgets"] = project.budgets
    if project.grids:  # optional likewise (older readers ignore it with a warning)
        payload["grids"] = [g.to_dict() for g in project.grids]
    return {"format": PROJECT_FORMAT, "schema_version": SCHEMA_VERSION,
            "saved_by": f"privplan {__version__}", "project": payload}


def dumps_project(project: Project) -> str:
    """The project file's text, every model inline (non-finite numbers become null with
    a reason: an unbounded ε in a summary must not make the save fail and lose work).

    Parameters
    ----------
    project : Project
        The project.

    Returns
    -------
    str
        Indented JSON with a trailing newline.
    """
    return dumps(jsonable(project_to_dict(project))) + "\n"


def project_from_dict(doc: Any, *, base_dir: str | os.PathLike[str] | None = None) -> Project:
    """Build a project; ``base_dir`` is where sidecar arrays of large models are found.

    Parameters
    ----------
    doc : Any
        The parsed file.
    base_dir : str or PathLike, optional
        The folder of the project file.

    Returns
    -------
    Project
        Migrated to the current schema; maps, advising set-ups and ledger entries validated.

    Raises
    ------
    InputError
        Naming the field (``mdps[m].…``, ``maps[id].…``, ``advising[i].…``, ``ledger[i]``);
        :class:`UnsupportedSchemaVersion` for a file from a newer PrivPlan.
    """
    if not isinstance(doc, dict) or doc.get("format") != PROJECT_FORMAT:
        raise InputError(f"not a PrivPlan project (format must be {PROJECT_FORMAT!r})",
                         field="format")
    ver = doc.get("schema_version")
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        raise InputError(f"must be a positive integer, got {ver!r}", field="schema_version")
    if ver > SCHEMA_VERSION:
        raise UnsupportedSchemaVersion(
            f"file has schema version {ver} (saved by {doc.get('saved_by', 'unknown')}); this "
            f"PrivPlan {__version__} reads up to {SCHEMA_VERSION}", field="schema_version")
    payload = doc.get("project")
    if not isinstance(payload, dict):
        raise InputError("must be an object", field="project")
    payload = migrate(payload, ver)
    for key in sorted(set(payload) - _KNOWN):
        log.warning("ignoring unknown project key %r", key)
    project = Project(name=str(payload.get("name", "Untitled")),
                      notes=str(payload.get("notes", "")))
    for key in ("mdps", "runs", "maps", "advising", "ledger"):
        if not isinstance(payload.get(key, []) or [], list):
            raise InputError(f"must be a list, got {type(payload[key]).__name__}", field=key)
    for i, m in enumerate(payload.get("mdps", []) or []):
        if not isinstance(m, dict) or not isinstance(m.get("id"), str):
            raise InputError("each MDP needs a string id", field=f"mdps[{i}]")
        try:
            P = _load_sidecar(m["arrays"], base_dir) if m.get("arrays") is not None else None
            model = MdpModel.from_dict({k: v for k, v in m.items()
                                        if k not in ("id", "note", "arrays")}, P=P)
        except InputError as exc:
            raise InputError(exc.problem, field=f"mdps[{m['id']}].{exc.field or ''}".rstrip(".")
                             ) from None
        project.mdps.append(MdpEntry(m["id"], model, str(m.get("note", ""))))
    for i, r in enumerate(payload.get("runs", []) or []):
        try:
            project.runs.append(RunRecord(
                id=str(r["id"]), kind=str(r["kind"]), target=str(r["target"]),
                params=dict(r.get("params", {})), summary=dict(r.get("summary", {})),
                mode=str(r.get("mode", "experiment")), seed=r.get("seed"),
                created=str(r.get("created", ""))))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"malformed run record ({exc})", field=f"runs[{i}]") from None
    project.ledger = _ledger_entries(payload.get("ledger", []) or [])
    project.advising = _advising_setups(payload.get("advising", []) or [])
    project.maps = _map_entries(payload.get("maps", []) or [])
    grids = payload.get("grids", []) or []
    if not isinstance(grids, list):
        raise InputError(f"must be a list, got {type(grids).__name__}", field="grids")
    for d in grids:
        e = GridEntry.from_dict(d)
        if any(g.id == e.id for g in project.grids):
            raise InputError(f"duplicate grid id {e.id!r}", field="grids")
        project.grids.append(e)
    if payload.get("budgets") is not None:
        from core.privacy.ledger import budgets_from_dict, budgets_to_dict

        project.budgets = budgets_to_dict(budgets_from_dict(payload["budgets"]))
    return project


def _map_entries(items: list[Any]) -> list[MapEntry]:
    """The logistics maps of a file, validated (InputError names the map and field)."""
    out: list[MapEntry] = []
    for d in items:
        e = MapEntry.from_dict(d)
        if any(m.id == e.id for m in out):
            raise InputError(f"duplicate map id {e.id!r}", field="maps")
        out.append(e)
    return out


def _advising_setups(items: list[Any]) -> list[AdvisingSetup]:
    """The advising set-ups of a file, validated (InputError names the set-up and field)."""
    out = []
    for i, d in enumerate(items):
        try:
            out.append(AdvisingSetup.from_dict(d))
        except InputError as exc:
            raise InputError(exc.problem, field=f"advising[{i}].{exc.field or ''}".rstrip(".")
                             ) from None
    return out


def _ledger_entries(items: list[Any]) -> list[LedgerEntry]:
    """The ledger of a file, every entry validated.

    A project whose ledger cannot be read is refused (InputError naming the entry): its
    budgets and totals would otherwise be computed from part of its releases, an optimistic
    statement. Nothing is written, so the file can be repaired by hand.
    """
    out: list[LedgerEntry] = []
    seen: set[str] = set()
    for i, d in enumerate(items):
        where = f"ledger[{i}]"
        if isinstance(d, dict) and isinstance(d.get("id"), str):
            where = f"ledger[{i}] ({d['id']})"
        try:
            e = LedgerEntry.from_dict(d)
        except InputError as exc:
            raise InputError(exc.problem, field=where) from None
        if e.id in seen:
            raise InputError(f"duplicate ledger id {e.id!r}", field=where)
        seen.add(e.id)
        out.append(e)
    return out


def _load_sidecar(name: Any, base_dir: str | os.PathLike[str] | None) -> Any:
    if not isinstance(name, str) or os.path.basename(name) != name or not name.endswith(".npz"):
        raise InputError(f"must be the file name of a sidecar .npz, got {name!r}",
                         field="arrays")
    if base_dir is None:
        raise InputError(f"the model's arrays are in {name!r}, next to the project file",
                         field="arrays")
    path = os.path.join(str(base_dir), name)
    try:
        from core.mdp.rows import from_sidecar

        with np.load(path, allow_pickle=False) as z:
            P = from_sidecar(z)  # dense P, or the sparse rows of a large model
        m = _DIGEST.search(name)
        if m is not None and arrays_digest(P) != m.group(1):
            raise InputError(f"sidecar file {name!r} does not hold the arrays its name "
                             "promises (it was changed after the project was saved)",
                             field="arrays")
        return P
    except FileNotFoundError:
        raise InputError(f"sidecar file {name!r} is missing (it must stay next to the "
                         "project file)", field="arrays") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"sidecar file {name!r} is unreadable ({exc})", field="arrays"
                         ) from None


def load_project(path: str | os.PathLike[str]) -> Project:
    """Read a project file (errors name the file and the field).

    Parameters
    ----------
    path : str or PathLike
        A ``*.privplan.json`` file.

    Returns
    -------
    Project
        See :func:`project_from_dict`.

    Raises
    ------
    InputError
        Naming the file and what is wrong with it.
    """
    clean_stale_temporaries(path, prefix=project_stem(path))  # left by a save that was killed
    try:
        return project_from_dict(read_json(path), base_dir=os.path.dirname(
            os.path.abspath(str(path))))
    except InputError as exc:
        if exc.file:
            raise
        raise exc.with_file(str(path)) from None


def save_project(project: Project, path: str | os.PathLike[str]) -> None:
    """Atomic save; large models' arrays go to sidecar files, written first.

    Parameters
    ----------
    project : Project
        The project.
    path : str or PathLike
        The ``*.privplan.json`` file (replaced atomically).
    """
    sidecars: dict[str, Any] = {}
    text = dumps(project_to_dict(project, sidecars=sidecars, project_path=path)) + "\n"
    folder = os.path.dirname(os.path.abspath(str(path)))
    before = _named_sidecars(path)
    for name, P in sidecars.items():  # new generations first: the old file still reads
        target = os.path.join(folder, name)
        if os.path.isfile(target):
            continue  # this very version is already there (the name is its digest)
        from core.mdp.rows import sidecar_arrays

        buf = io.BytesIO()
        np.savez(buf, **sidecar_arrays(P))  # type: ignore[arg-type]
        atomic_write_bytes(target, buf.getvalue())
    atomic_write_text(path, text)
    for name in before - set(sidecars):  # only now is an old generation unused
        try:
            os.unlink(os.path.join(folder, name))
        except OSError as exc:
            log.warning("cannot remove the old sidecar %s: %s", name, exc)


def _named_sidecars(path: str | os.PathLike[str]) -> set[str]:
    """The sidecar files the project file at ``path`` names now (empty if unreadable)."""
    try:
        doc = read_json(path)
        mdps = doc["project"]["mdps"]
        return {m["arrays"] for m in mdps if isinstance(m, dict)
                and isinstance(m.get("arrays"), str)
                and os.path.basename(m["arrays"]) == m["arrays"]}
    except (InputError, KeyError, TypeError):
        return set()


def load_any(path: str | os.PathLike[str]) -> Project:
    """Open a project, or wrap an ``*.mdp.json``/``*.mdp.npz`` file in a new project.

    Parameters
    ----------
    path : str or PathLike
        A project, ``*.mdp.json`` or ``*.mdp.npz`` file.

    Returns
    -------
    Project
        The project, or a new one holding the model.

    Raises
    ------
    InputError
        For any other file, naming it.
    """
    name = str(path).lower()
    if name.endswith(".npz"):
        mdp = load_mdp(path)
    else:
        doc = read_json(path)
        if isinstance(doc, dict) and doc.get("format") == PROJECT_FORMAT:
            return load_project(path)
        if isinstance(doc, dict) and doc.get("format") == "privplan-mdp":
            mdp = load_mdp(path)
        else:
            raise InputError("not a PrivPlan project or MDP file (unknown 'format')",
                             field="format", file=str(path))
    project = Project(name=mdp.name or os.path.basename(str(path)))
    project.add_mdp(mdp)
    return project
