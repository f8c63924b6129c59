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
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from core.common.jsonable import jsonable

__all__ = ["SECTIONS", "Snapshot", "snapshot", "digest", "run_key", "ledger_keys", "entry_run",
           "relink"]

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
    try:  # already strict JSON (the usual case): the same text without the Python walk
        text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    except (TypeError, ValueError):  # numpy values, non-finite numbers, other objects
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


def entry_run(source: Any, run_ids: Container[str]) -> str | None:
    """The run a ledger entry belongs to, read from its ``source``, or None.

    An entry is linked to its run by its ``source`` text: the run's id alone (``"run-7"``)
    or the run's id, a colon and a space, then what in the run released it
    (``"run-7: logistics: agent a1"``, a plan's entries). That is the only link the file
    format has (older files and older versions know no other), so every writer that
    renumbers a run rewrites both forms (:func:`relink`).

    Parameters
    ----------
    source : Any
        An entry's ``source``.
    run_ids : container of str
        The ids of the project's runs.

    Returns
    -------
    str or None
        The id of the run it names, None for an entry of no run (or of a run not listed).

    Examples
    --------
    >>> entry_run("run-7: logistics: agent a1", {"run-7", "run-70"})
    'run-7'
    >>> entry_run("run-70", {"run-7", "run-70"}), entry_run("run-7x", {"run-7"})
    ('run-70', None)
    """
    if not isinstance(source, str):
        return None
    if source in run_ids:
        return source
    head, sep, _ = source.partition(": ")
    return head if sep and head in run_ids else None


def relink(source: str, old: str, new: str) -> str:
    """``source`` with the run id ``old`` replaced by ``new`` when it names that run
    (either form of :func:`entry_run`); otherwise unchanged.

    Parameters
    ----------
    source : str
        An entry's ``source``.
    old, new : str
        The run's id before and after it was renumbered.

    Returns
    -------
    str

    Examples
    --------
    >>> relink("run-7: logistics: agent a1", "run-7", "run-8")
    'run-8: logistics: agent a1'
    >>> relink("run-7", "run-7", "run-8"), relink("run-70", "run-7", "run-8")
    ('run-8', 'run-70')
    """
    if source == old:
        return new
    if source.startswith(old + ": "):
        return new + source[len(old):]
    return source


def ledger_keys(entries: Any, run_keys: dict[str, str]) -> list[str]:
    """The content keys of ledger entry dictionaries (each without its id; the run id its
    ``source`` names, when it names one (:func:`entry_run`), replaced by that run's key).

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
            run = entry_run(src, run_keys)
            if isinstance(src, str) and run is not None:
                d["source"] = relink(src, run, "run:" + run_keys[run])
            out.append(digest(d))
        else:
            out.append(digest(e))
    return out


@dataclass(frozen=True)
class Snapshot:
    """The merge base of one project file (see the module docstring).

    ``unedited`` holds, for a section the reader completed with derived data when it opened
    the file (state positions of a model stored without a layout), the digest of the
    section as the document then held it: the document has not changed that section while
    it still has that digest, though it is no longer the file's.
    """

    path: str  # the real file (symlinks resolved)
    sections: dict[str, str]
    runs: Counter[str] = field(default_factory=Counter)
    ledger: Counter[str] = field(default_factory=Counter)
    unedited: dict[str, str] = field(default_factory=dict)

    def edited(self, section: str, ours: str) -> bool:
        """True when a document whose ``section`` has the digest ``ours`` changed it since
        it read the file (neither the file's digest nor its own form as opened)."""
        return ours != self.sections[section] and ours != self.unedited.get(section)


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
