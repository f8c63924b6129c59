"""What a project file held when it was read: the base of a three-way merge at save time.

A :class:`Snapshot` keeps, for the file a project was read from (or last saved to), a digest
of every section that is edited in place (name, notes, models, maps, set-ups, grids,
budgets) and the *content keys* of its runs and ledger entries — a key is the digest of an
item without its id (a ledger entry's ``source`` is replaced by its run's key), so the same
run recorded under another id by another writer is still recognised, and two different runs
that happen to share an id are not confused.

:mod:`core.project.store` compares three snapshots at save time — the base (what was read),
the file now (what other writers made of it) and the document (what this writer made of it):
runs and ledger entries that others added are merged in, a section that both changed is a
conflict to be decided, never a silent overwrite.

Examples
--------
>>> a = {"name": "p", "runs": [{"id": "run-1", "kind": "sweep", "target": "m"}], "ledger": []}
>>> b = {"name": "p", "runs": [{"id": "run-7", "kind": "sweep", "target": "m"}], "ledger": []}
>>> snapshot(a, "x").runs == snapshot(b, "x").runs  # same content, another id
True
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from core.common.jsonable import jsonable

__all__ = ["SECTIONS", "Snapshot", "snapshot", "digest", "run_key", "ledger_keys"]

#: The sections a save may only replace whole (runs and the ledger are merged item by item).
SECTIONS = ("name", "notes", "mdps", "maps", "advising", "grids", "budgets", "plans")
_DEFAULTS: dict[str, Any] = {"name": "Untitled", "notes": "", "mdps": [], "maps": [],
                             "advising": [], "grids": [], "budgets": {}, "plans": []}
# a sidecar's name compares by the first 12 hex digits of its digest (older names carry 12)
_ARRAYS = re.compile(r"(?:^|\.)([0-9a-f]{12})(?:[0-9a-f]{12})?\.npz$")


def digest(obj: Any) -> str:
    """SHA-256 of the canonical JSON of ``obj`` (sorted keys, non-finite numbers as null).

    Parameters
    ----------
    obj : Any
        JSON-able data.

    Returns
    -------
    str
        64 hex digits.
    """
    text = json.dumps(jsonable(obj), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), allow_nan=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _normal_mdps(mdps: Any) -> Any:
    if not isinstance(mdps, list):
        return mdps
    out = []
    for m in mdps:
        if isinstance(m, dict) and isinstance(m.get("arrays"), str):
            hit = _ARRAYS.search(m["arrays"])
            if hit:
                m = dict(m, arrays="sha:" + hit.group(1))
        out.append(m)
    return out


def run_key(run: Any) -> str:
    """The content key of a run record's dictionary (everything but its id).

    Parameters
    ----------
    run : Any
        One item of a project's ``runs``.

    Returns
    -------
    str
    """
    if not isinstance(run, dict):
        return digest(run)
    return digest({k: v for k, v in run.items() if k != "id"})


def ledger_keys(entries: Any, run_keys: dict[str, str]) -> list[str]:
    """The content keys of ledger entry dictionaries (each without its id; its ``source``
    replaced by the key of the run it names, when it names one).

    Parameters
    ----------
    entries : Any
        A project's ``ledger``.
    run_keys : dict
        ``{run id: run key}`` of the same project.

    Returns
    -------
    list of str
    """
    out = []
    for e in entries if isinstance(entries, list) else []:
        if isinstance(e, dict):
            d = {k: v for k, v in e.items() if k != "id"}
            src = d.get("source")
            if isinstance(src, str) and src in run_keys:
                d["source"] = "run:" + run_keys[src]
            out.append(digest(d))
        else:
            out.append(digest(e))
    return out


@dataclass(frozen=True)
class Snapshot:
    """The merge base of one project file (see the module docstring)."""

    path: str  # the real file (symlinks resolved)
    sections: dict[str, str]
    runs: Counter[str] = field(default_factory=Counter)
    ledger: Counter[str] = field(default_factory=Counter)


def snapshot(payload: dict[str, Any], path: str) -> Snapshot:
    """The snapshot of a project payload (the file's ``project`` object, migrated).

    Parameters
    ----------
    payload : dict
        ``project`` of a file, or of :func:`core.project.files.project_to_dict`.
    path : str
        The real file it belongs to.

    Returns
    -------
    Snapshot
    """
    sections = {}
    for key in SECTIONS:
        value = payload.get(key)
        if value is None or value == [] or value == {}:
            value = _DEFAULTS[key]
        if key == "mdps":
            value = _normal_mdps(value)
        sections[key] = digest(value)
    found = payload.get("runs")
    runs: list[Any] = found if isinstance(found, list) else []
    keys: dict[str, str] = {}
    run_counter: Counter[str] = Counter()
    for r in runs:
        k = run_key(r)
        run_counter[k] += 1
        if isinstance(r, dict) and isinstance(r.get("id"), str):
            keys[r["id"]] = k
    ledger = Counter(ledger_keys(payload.get("ledger"), keys))
    return Snapshot(path, sections, run_counter, ledger)
