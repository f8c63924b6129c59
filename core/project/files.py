"""Project files (``*.privplan.json``): an envelope around the project, versioned.

Size: the project file format: the envelope, the hand-off to migrations, the sidecars of large
models, atomic save and load; reader and writer share the digests and the sidecar names.

``{"format": "privplan-project", "schema_version": N, "saved_by": "privplan X.Y.Z",
"project": {...}}``. Older versions are migrated step by step
(:mod:`core.project.migrations`); newer ones are refused with
:class:`UnsupportedSchemaVersion`. Unknown keys are ignored with a logged warning.
Saves are atomic and locked (:mod:`core.project.locks`); large models keep their
arrays in content-addressed sidecars (``arrays.<digest>.npz``) that copies of a project share
and that are removed only when no project file in the folder names them.

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

import glob
import hashlib
import io
import logging
import os
import re
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from core import __version__
from core.advising.model import AdvisingSetup
from core.common.atomic import atomic_write_bytes, atomic_write_text, clean_stale_temporaries
from core.common.errors import InputError
from core.common.jsonable import jsonable
from core.common.progress import Progress
from core.common.resources import (
    MODEL_MEMORY_FACTOR,
    check_model_memory,
    load_npz,
    npz_inventory,
)
from core.gridworld.maps import GridEntry
from core.logistics.document import MapEntry
from core.mdp.editable import MdpModel
from core.mdp.files import load_mdp, read_json
from core.privacy.ledger import LedgerEntry
from core.project.jsonfmt import dumps
from core.project.locks import folder_lock, project_lock, real_path
from core.project.migrations import SCHEMA_VERSION, migrate
from core.project.model import MdpEntry, Project, RunRecord

__all__ = ["PROJECT_FORMAT", "SCHEMA_VERSION", "SIDECAR_NNZ", "UnsupportedSchemaVersion",
           "project_to_dict", "sidecar_name", "arrays_digest", "project_stem",
           "project_from_dict", "load_project", "save_project", "load_any", "dumps_project",
           "migrated_payload", "run_records", "ledger_entries", "write_project",
           "named_sidecars", "collect_sidecars", "SIDECAR_GRACE_S", "content_digest",
           "plan_documents"]

log = logging.getLogger(__name__)

PROJECT_FORMAT = "privplan-project"
_KNOWN = {"name", "mdps", "runs", "maps", "advising", "ledger", "notes", "budgets", "grids",
          "plans"}


class UnsupportedSchemaVersion(InputError):
    """The file was written by a newer PrivPlan."""


# Models with more non-zero transitions than this keep P in a sidecar ``.npz`` beside the
# project file: a 2,000 x 4 x 2,000 dense model would be 16 million JSON records.
SIDECAR_NNZ = 50_000
#: A sidecar no project file names is removed only when it is older than this (seconds): a
#: writer of an older PrivPlan, or a reader that read a project file an instant before it
#: was replaced, may still need it. (The previous generation of the very project being saved
#: is removed at once when no other project file in the folder names it.)
SIDECAR_GRACE_S = 3600.0
# Names a sidecar may have: ``arrays.<24 hex>.npz`` (content-addressed, shared by copies),
# ``<stem>.<id>.<12 hex>.npz`` (PrivPlan before content addressing) and ``<stem>.<id>.npz``
# (before generation names). The hex digits are a prefix of the SHA-256 of P.
_DIGEST = re.compile(r"\.([0-9a-f]{24}|[0-9a-f]{12})\.npz$")
_CONTENT = re.compile(r"^arrays\.[0-9a-f]{24}\.npz$")
_MODEL_FACTOR = MODEL_MEMORY_FACTOR  # memory per byte of a model's P (resources)


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


def content_digest(P: Any, digits: int = 24) -> str:
    """The first ``digits`` hex digits of the SHA-256 of ``P``: a dense P's float64 bytes in
    C order; a sparse one's shape and CSR arrays (:func:`core.mdp.rows.sidecar_digest_bytes`).

    Parameters
    ----------
    P : numpy.ndarray or SparseRows
        The transitions.
    digits : int
        How many hex digits (24 names a content-addressed sidecar; 12 the older names).

    Returns
    -------
    str
    """
    from core.mdp.rows import sidecar_digest_bytes

    h = hashlib.sha256()
    for chunk in sidecar_digest_bytes(P):  # dense P: its bytes, as always
        h.update(chunk)
    return h.hexdigest()[:digits]


def arrays_digest(P: Any) -> str:
    """The first 12 hex digits of the SHA-256 of ``P`` (the digest older sidecar names carry).

    Parameters
    ----------
    P : numpy.ndarray or core.mdp.rows.SparseRows
        The transition array (or a large model's sparse rows).

    Returns
    -------
    str
        12 hex digits.
    """
    return content_digest(P, 12)


def sidecar_name(project_path: str | os.PathLike[str], mdp_id: str,
                 P: Any = None) -> str:
    """The file name of a large model's sidecar arrays.

    ``arrays.<digest>.npz`` with 24 hex digits of the SHA-256 of ``P``: named by content
    alone, so a copy of a project names the same file as its original, a save never renames
    a sidecar, and a crash at any point leaves a project that reads its own arrays (a new
    version of the arrays is a new file, written before the project file that names it).
    Without ``P``, the name files of the earliest versions used: ``<project stem>.<mdp
    id>.npz``.

    Parameters
    ----------
    project_path : str or PathLike
        The project file (names only the earliest kind of sidecar).
    mdp_id : str
        The model's id (ditto; characters other than letters, digits, ``-`` and ``_``
        become ``_``).
    P : numpy.ndarray, optional
        The arrays the sidecar holds.

    Returns
    -------
    str
        A bare file name, placed next to the project file.
    """
    if P is not None:
        return f"arrays.{content_digest(P)}.npz"
    stem = project_stem(project_path)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in mdp_id)
    return f"{stem}.{safe}.npz"


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
    if project.plans:  # optional likewise: privacy plans (docs/privacy-plan.md)
        payload["plans"] = [dict(p) for p in project.plans]
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


def run_dict(r: RunRecord) -> dict[str, Any]:
    """A run record as the file stores it.

    Parameters
    ----------
    r : RunRecord
        The run.

    Returns
    -------
    dict
    """
    return {"id": r.id, "kind": r.kind, "target": r.target, "params": r.params,
            "summary": r.summary, "mode": r.mode, "seed": r.seed, "created": r.created}


def migrated_payload(doc: Any) -> dict[str, Any]:
    """The ``project`` object of a parsed file, checked and migrated to the current schema.

    Parameters
    ----------
    doc : Any
        The parsed file.

    Returns
    -------
    dict
        The payload (its lists not yet validated item by item).

    Raises
    ------
    InputError
        Not a project, a bad schema version (:class:`UnsupportedSchemaVersion` for a newer
        one), a payload or top-level list of the wrong type.
    """
    if not isinstance(doc, dict) or doc.get("format") != PROJECT_FORMAT:
        raise InputError(f"not a PrivPlan project (format must be {PROJECT_FORMAT!r})",
                         field="format")
    ver = doc.get("schema_version")
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        raise InputError(f"must be a positive integer, got {ver!r}", field="schema_version")
    if ver > SCHEMA_VERSION:
        raise UnsupportedSchemaVersion(
            f"file has schema version {ver} (saved by {doc.get('saved_by', 'unknown')!r}); "
            f"this PrivPlan {__version__} reads up to {SCHEMA_VERSION}", field="schema_version")
    payload = doc.get("project")
    if not isinstance(payload, dict):
        raise InputError("must be an object", field="project")
    try:
        payload = migrate(payload, ver)
    except InputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"cannot be upgraded from schema version {ver} ({type(exc).__name__}"
                         f": {exc})", field="project") from None
    for key in ("mdps", "runs", "maps", "advising", "ledger", "grids", "plans"):
        if not isinstance(payload.get(key, []) or [], list):
            raise InputError(f"must be a list, got {type(payload[key]).__name__}", field=key)
    for key in ("name", "notes"):
        if key in payload and not isinstance(payload[key], str):
            raise InputError(f"must be a string, got {type(payload[key]).__name__}", field=key)
    return payload


def _check_model_size(m: dict[str, Any], field: str) -> None:
    """Refuse an inline model whose dense arrays would not fit, from its counts alone."""
    states, actions = m.get("states"), m.get("actions")
    if not isinstance(states, list) or not isinstance(actions, list):
        return
    per_state: dict[Any, int] = {}
    for a in actions:
        if isinstance(a, dict):
            key = a.get("state")
            if isinstance(key, str):
                per_state[key] = per_state.get(key, 0) + 1
    from core.mdp.sparse import uses_dense

    n_actions = max(per_state.values(), default=1)
    if uses_dense(len(states), n_actions):  # a large model keeps sparse rows
        check_model_memory(len(states), n_actions, field)


def run_records(items: list[Any]) -> list[RunRecord]:
    """The run records of a file, validated (InputError names the run and the field).

    Parameters
    ----------
    items : list
        The file's ``runs``.

    Returns
    -------
    list of RunRecord
    """
    out: list[RunRecord] = []
    seen: set[str] = set()
    for i, r in enumerate(items):
        where = f"runs[{i}]"
        if not isinstance(r, dict):
            raise InputError(f"malformed run record (an object is needed, got "
                             f"{type(r).__name__})", field=where)
        for key in ("id", "kind", "target"):
            if not isinstance(r.get(key), str):
                raise InputError(f"malformed run record ({key} must be a string, got "
                                 f"{r.get(key)!r})", field=where)
        where = f"runs[{i}] ({r['id']})"
        for key in ("params", "summary"):
            if not isinstance(r.get(key, {}), dict):
                raise InputError(f"malformed run record ({key} must be an object)", field=where)
        mode = r.get("mode", "experiment")
        if mode not in ("experiment", "release"):
            raise InputError(f"malformed run record (mode must be 'experiment' or 'release', "
                             f"got {mode!r})", field=where)
        seed = r.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InputError(f"malformed run record (seed must be an integer or null, got "
                             f"{seed!r})", field=where)
        created = r.get("created", "")
        if not isinstance(created, str):
            raise InputError("malformed run record (created must be a string)", field=where)
        if r["id"] in seen:
            raise InputError(f"duplicate run id {r['id']!r}", field=where)
        seen.add(r["id"])
        out.append(RunRecord(id=r["id"], kind=r["kind"], target=r["target"],
                             params=dict(r.get("params", {})),
                             summary=dict(r.get("summary", {})), mode=mode, seed=seed,
                             created=created))
    return out


def project_from_dict(doc: Any, *, base_dir: str | os.PathLike[str] | None = None,
                      path: str | os.PathLike[str] | None = None) -> Project:
    """Build a project; ``base_dir`` is where sidecar arrays of large models are found.

    Parameters
    ----------
    doc : Any
        The parsed file.
    base_dir : str or PathLike, optional
        The folder of the project file (its real folder, symlinks resolved).
    path : str or PathLike, optional
        The file ``doc`` was read from: the project then remembers what the file held
        (``project.origin``, a :class:`core.project.snapshot.Snapshot`), so that a later
        save merges what other writers recorded meanwhile (:mod:`core.project.store`).

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
    payload = migrated_payload(doc)
    for key in sorted(set(payload) - _KNOWN):
        log.warning("ignoring unknown project key %r", key)
    project = Project(name=str(payload.get("name", "Untitled")),
                      notes=str(payload.get("notes", "")))
    for i, m in enumerate(payload.get("mdps", []) or []):
        if not isinstance(m, dict) or not isinstance(m.get("id"), str):
            raise InputError("each MDP needs a string id", field=f"mdps[{i}]")
        if any(e.id == m["id"] for e in project.mdps):
            raise InputError(f"duplicate model id {m['id']!r} (every model of a project "
                             "needs its own id)", field=f"mdps[{i}]")
        try:
            if m.get("arrays") is not None:
                P = _load_sidecar(m["arrays"], base_dir)
            else:
                P = None
                _check_model_size(m, "states")
            model = MdpModel.from_dict({k: v for k, v in m.items()
                                        if k not in ("id", "note", "arrays")}, P=P)
        except InputError as exc:
            raise InputError(exc.problem, field=f"mdps[{m['id']}].{exc.field or ''}".rstrip(".")
                             ) from None
        project.mdps.append(MdpEntry(m["id"], model, str(m.get("note", ""))))
    project.runs = run_records(payload.get("runs", []) or [])
    project.ledger = ledger_entries(payload.get("ledger", []) or [])
    project.advising = _advising_setups(payload.get("advising", []) or [])
    project.maps = _map_entries(payload.get("maps", []) or [])
    for d in payload.get("grids", []) or []:
        e = GridEntry.from_dict(d)
        if any(g.id == e.id for g in project.grids):
            raise InputError(f"duplicate grid id {e.id!r}", field="grids")
        project.grids.append(e)
    project.plans = plan_documents(payload.get("plans", []) or [])
    if payload.get("budgets") is not None:
        from core.privacy.ledger import budgets_from_dict, budgets_to_dict

        project.budgets = budgets_to_dict(budgets_from_dict(payload["budgets"]))
    if path is not None:
        project.origin = origin_of(payload, project, path)
    return project


def origin_of(payload: dict[str, Any], project: Project, path: str | os.PathLike[str]
              ) -> Any:
    """The merge base of a project read from ``path``: the file's sections as they were, and
    the content keys of its (validated) runs and ledger entries.

    Parameters
    ----------
    payload : dict
        The file's migrated ``project`` object.
    project : Project
        The project built from it.
    path : str or PathLike
        The file.

    Returns
    -------
    Snapshot
    """
    from core.project.snapshot import snapshot

    return snapshot(dict(payload, runs=[run_dict(r) for r in project.runs],
                         ledger=[e.to_dict() for e in project.ledger]), real_path(path))


def plan_documents(items: list[Any]) -> list[dict[str, Any]]:
    """The privacy plans of a file: each a plan document (``docs/formats-and-cli.md`` §6)
    with a unique non-empty ``name``.

    Only the envelope is checked here (the project layer does not read plans); the plan's
    releases are validated where a plan is used (``budget PROJECT --plan NAME``, the Privacy
    plan workspace), with errors naming ``plans[NAME]``.

    Parameters
    ----------
    items : list
        The file's ``plans``.

    Returns
    -------
    list of dict
    """
    out: list[dict[str, Any]] = []
    for i, d in enumerate(items):
        if not isinstance(d, dict) or d.get("format") != "privplan-plan":
            raise InputError("must be a plan object with format 'privplan-plan'",
                             field=f"plans[{i}]")
        name = d.get("name")
        if not isinstance(name, str) or not name:
            raise InputError("a project's plan needs a non-empty string 'name'",
                             field=f"plans[{i}].name")
        if any(p["name"] == name for p in out):
            raise InputError(f"duplicate plan name {name!r}", field=f"plans[{name}].name")
        out.append(dict(d))
    return out


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


# the text fields of a ledger entry (LedgerEntry.from_dict checks id, dataset, mechanism and
# the numbers; the report and the ledger's views read these as strings)
_ENTRY_TEXT = ("adjacency", "released", "source", "time", "reason", "epsilon_reason")


def ledger_entries(items: list[Any]) -> list[LedgerEntry]:
    """The ledger of a file, every entry validated.

    A project whose ledger cannot be read is refused (InputError naming the entry): its
    budgets and totals would otherwise be computed from part of its releases, an optimistic
    statement. Nothing is written, so the file can be repaired by hand.

    Parameters
    ----------
    items : list
        The file's ``ledger``.

    Returns
    -------
    list of LedgerEntry
    """
    from core.privacy.ledger import MODES

    out: list[LedgerEntry] = []
    seen: set[str] = set()
    for i, d in enumerate(items):
        where = f"ledger[{i}]"
        if isinstance(d, dict) and isinstance(d.get("id"), str):
            where = f"ledger[{i}] ({d['id']})"
        if isinstance(d, dict):
            for key in _ENTRY_TEXT:
                if key in d and d[key] is not None and not isinstance(d[key], str):
                    raise InputError(f"{key} must be a string, got {type(d[key]).__name__}",
                                     field=where)
            if "parameters" in d and not isinstance(d["parameters"], dict):
                raise InputError("parameters must be an object", field=where)
            if "mode" in d and d["mode"] not in MODES:
                raise InputError(f"mode must be one of {', '.join(MODES)}, got {d['mode']!r}",
                                 field=where)
            seed = d.get("seed")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise InputError(f"seed must be an integer or null, got {seed!r}", field=where)
            if d.get("epsilon") is None and "epsilon" in d and \
                    not isinstance(d.get("reason", d.get("epsilon_reason")), str):
                raise InputError("an unbounded release (epsilon = null) needs a reason",
                                 field=where)
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
    if not isinstance(name, str) or os.path.basename(name) != name or not name.endswith(".npz") \
            or name.startswith(".") or "\x00" in name:
        raise InputError(f"must be the file name of a sidecar .npz, got {name!r}",
                         field="arrays")
    if base_dir is None:
        raise InputError(f"the model's arrays are in {name!r}, next to the project file",
                         field="arrays")
    path = os.path.join(str(base_dir), name)
    if not os.path.lexists(path):
        raise InputError(f"sidecar file {name!r} is missing (it must stay next to the "
                         "project file)", field="arrays")
    try:
        info = npz_inventory(path, factor=_MODEL_FACTOR)
        P: Any
        if "P" in info:
            if info["P"].dtype.kind not in "fiu" or len(info["P"].shape) != 3:
                raise InputError(f"sidecar file {name!r}: P must be a numeric S x A x S "
                                 f"array, got {info['P'].describe()}", field="arrays")
            P = np.asarray(load_npz(path, factor=_MODEL_FACTOR, keys=("P",))["P"],
                           dtype=np.float64)
        else:
            P = _sparse_sidecar(name, path, info)
    except InputError as exc:
        what = f"{exc.field}: " if exc.field and exc.field != "arrays" else ""
        problem = exc.problem if exc.problem.startswith("sidecar") else \
            f"sidecar file {name!r}: {what}{exc.problem}"
        raise InputError(problem, field="arrays") from None
    m = _DIGEST.search(name)
    if m is not None and content_digest(P, len(m.group(1))) != m.group(1):
        raise InputError(f"sidecar file {name!r} does not hold the arrays its name "
                         "promises (it was changed after the project was saved)",
                         field="arrays")
    return P


_SPARSE_KINDS = {"P_indptr": "iu", "P_indices": "iu", "P_data": "fiu", "shape": "iu"}


def _sparse_sidecar(name: str, path: str, info: dict[str, Any]) -> Any:
    """The CSR rows of a large model's sidecar (``P_indptr``, ``P_indices``, ``P_data``,
    ``shape``), their kinds and shapes checked before they are read."""
    from core.mdp.rows import SparseRows
    from core.mdp.sparse import Transitions

    for key, kinds in _SPARSE_KINDS.items():
        if key not in info:
            raise InputError(f"sidecar file {name!r} holds neither P nor the array {key}",
                             field="arrays")
        if info[key].dtype.kind not in kinds or len(info[key].shape) != 1:
            raise InputError(f"sidecar file {name!r}: {key} must be a numeric vector, got "
                             f"{info[key].describe()}", field="arrays")
    z = load_npz(path, factor=_MODEL_FACTOR, keys=tuple(_SPARSE_KINDS))
    if z["shape"].shape != (2,):
        raise InputError(f"sidecar file {name!r}: shape must be [S, A]", field="arrays")
    S, A = (int(x) for x in z["shape"])
    indptr, indices = z["P_indptr"], z["P_indices"]
    if S < 1 or A < 1 or indptr.shape != (S * A + 1,) or (indptr.size and indptr[0] != 0) \
            or (np.diff(indptr) < 0).any() or int(indptr[-1]) != indices.size \
            or indices.size != z["P_data"].size \
            or (indices.size and (indices.min() < 0 or indices.max() >= S)):
        raise InputError(f"sidecar file {name!r}: its CSR rows do not describe an "
                         f"{S:,} x {A:,} model", field="arrays")
    return SparseRows(Transitions(S, A, indptr.astype(np.int64), indices,
                                  z["P_data"].astype(np.float64)))


def load_project(path: str | os.PathLike[str]) -> Project:
    """Read a project file (errors name the file and the field).

    A symlinked project is read through its target: its sidecar arrays are found beside the
    real file. The project remembers what the file held (``project.origin``).

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
    real = real_path(path)
    clean_stale_temporaries(real, prefix=project_stem(real))  # left by a save that was killed
    clean_stale_temporaries(real, prefix="arrays.")
    try:
        return project_from_dict(read_json(path), base_dir=os.path.dirname(real), path=real)
    except InputError as exc:
        if exc.file:
            raise
        raise exc.with_file(str(path)) from None


def save_project(project: Project, path: str | os.PathLike[str]) -> None:
    """Atomic, locked save that replaces the file with ``project``, without merging: only
    for a *new* file no other writer knows yet (an example, a test's fixture). Saving a
    document over a file that others may have recorded into goes through
    :func:`core.project.store.save_document`, and a command's run through
    :func:`core.project.store.record_and_save` — never through this (a run another writer
    recorded meanwhile would be lost; ``tests/core/project/test_one_writer.py`` lists who
    may call it).

    Parameters
    ----------
    project : Project
        The project.
    path : str or PathLike
        The ``*.privplan.json`` file (a symlink: its target is replaced, the link kept).
    """
    with project_lock(path):
        write_project(project, path)


def write_project(project: Project, path: str | os.PathLike[str]) -> None:
    """Write ``project`` to ``path`` (the caller holds its project lock).

    Large models' arrays go to content-addressed sidecars first (one already there is
    reused, never rewritten), then the project file, atomically; then the previous
    generation's sidecars are collected if no project file in the folder names them
    (:func:`collect_sidecars`). ``project.origin`` becomes what was written.

    Parameters
    ----------
    project : Project
        The project.
    path : str or PathLike
        The file (a symlink writes its target).
    """
    from core.project.snapshot import snapshot

    real = real_path(path)
    folder = os.path.dirname(real)
    sidecars: dict[str, Any] = {}
    from core.mdp.rows import sidecar_arrays
    # non-finite numbers (an unbounded ε in a run's summary) become null with a reason, as
    # dumps_project writes them: a save must never fail on them and lose the user's work
    doc = jsonable(project_to_dict(project, sidecars=sidecars, project_path=real))
    text = dumps(doc) + "\n"
    before = named_sidecars(real)
    if not sidecars and not before:
        atomic_write_text(real, text)
    else:
        with folder_lock(folder):
            for name, P in sidecars.items():  # new generations first: the old file still reads
                target = os.path.join(folder, name)
                arrays = sidecar_arrays(P)  # dense P, or the CSR rows of a large model
                if _usable_sidecar(target, arrays):
                    try:
                        os.utime(target)  # in use again: young for the orphan collector
                    except OSError:
                        pass  # not ours to touch (another owner, a read-only folder)
                    continue
                buf = io.BytesIO()
                np.savez(buf, **arrays)  # type: ignore[arg-type]
                atomic_write_bytes(target, buf.getvalue())
            atomic_write_text(real, text)
            collect_sidecars(folder, previous=before - set(sidecars))
    project.origin = snapshot(dict(doc["project"]), real)


def _usable_sidecar(path: str, arrays: dict[str, np.ndarray]) -> bool:
    """True when the content-addressed file ``path`` already holds arrays shaped like
    ``arrays`` (its name is the digest of its content; a damaged one is written again)."""
    if not os.path.isfile(path) or os.path.islink(path):
        return False
    try:
        info = npz_inventory(path)
    except InputError:
        return False
    return all(k in info and info[k].shape == tuple(v.shape) for k, v in arrays.items())


def named_sidecars(path: str | os.PathLike[str]) -> set[str]:
    """The sidecar files the project file at ``path`` names now (empty if unreadable).

    Parameters
    ----------
    path : str or PathLike
        A project file.

    Returns
    -------
    set of str
    """
    try:
        doc = read_json(path)
        mdps = doc["project"]["mdps"]
        return {m["arrays"] for m in mdps if isinstance(m, dict)
                and isinstance(m.get("arrays"), str)
                and os.path.basename(m["arrays"]) == m["arrays"]}
    except (InputError, KeyError, TypeError):
        return set()


_named_sidecars = named_sidecars  # the name tests used before it was public


def collect_sidecars(folder: str | os.PathLike[str], *, previous: Iterable[str] = (),
                     grace_s: float | None = None) -> list[str]:
    """Remove sidecar arrays that no project file in ``folder`` names (the caller holds the
    folder lock).

    Candidates are ``previous`` (the sidecars a project named before the save that just
    replaced it) and every content-addressed sidecar (``arrays.<digest>.npz``) older than
    ``grace_s`` (an orphan left by a killed save). A candidate stays if any ``*.json`` file
    in the folder (a project, a copy of one, a symlink to one) mentions its name.

    Parameters
    ----------
    folder : str or PathLike
        The folder.
    previous : iterable of str
        Sidecars a project stopped naming just now (removed without waiting).
    grace_s : float, optional
        Minimum age of other orphans (default :data:`SIDECAR_GRACE_S`).

    Returns
    -------
    list of str
        The files removed.
    """
    folder = os.fspath(folder)
    grace = SIDECAR_GRACE_S if grace_s is None else grace_s
    now = time.time()
    candidates = {n for n in previous if os.path.basename(n) == n and n.endswith(".npz")}
    for path in glob.glob(os.path.join(glob.escape(folder), "arrays.*.npz")):
        name = os.path.basename(path)
        if _CONTENT.match(name) and name not in candidates:
            try:
                if now - os.lstat(path).st_mtime >= grace:
                    candidates.add(name)
            except OSError:
                continue
    if not candidates:
        return []
    for proj in glob.glob(os.path.join(glob.escape(folder), "*.json")):
        if not candidates:
            break
        try:
            with open(proj, "rb") as fh:
                raw = fh.read()
        except OSError:
            return []  # a project that cannot be read might name any of them: keep all
        text = raw.decode("utf-8", "replace")
        candidates = {n for n in candidates if json_name(n) not in text and n not in text}
    removed = []
    for name in sorted(candidates):
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(name)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("cannot remove the unused sidecar %s: %s", name, exc)
    return removed


def json_name(name: str) -> str:
    """``name`` as it appears inside a JSON string (escaped).

    Parameters
    ----------
    name : str
        A file name.

    Returns
    -------
    str
    """
    import json

    return json.dumps(name)[1:-1]


def load_any(path: str | os.PathLike[str], *, progress: Progress | None = None) -> Project:
    """Open a project, or wrap an ``*.mdp.json``/``*.mdp.npz`` file in a new project.

    Parameters
    ----------
    path : str or PathLike
        A project, ``*.mdp.json`` or ``*.mdp.npz`` file.
    progress : Progress, optional
        Told how far a model file's reading is; it may raise
        :class:`core.common.progress.Cancelled` to stop (:func:`core.mdp.load_mdp`).

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
        mdp = load_mdp(path, progress=progress)
    else:
        doc = read_json(path)
        if isinstance(doc, dict) and doc.get("format") == PROJECT_FORMAT:
            return load_project(path)
        if isinstance(doc, dict) and doc.get("format") == "privplan-mdp":
            mdp = load_mdp(path, progress=progress)
        else:
            raise InputError("not a PrivPlan project or MDP file (unknown 'format')",
                             field="format", file=str(path))
    project = Project(name=mdp.name or os.path.basename(str(path)))
    project.add_mdp(mdp)
    return project
