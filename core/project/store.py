"""The project store: the one way PrivPlan writes a project file that others may write too.

Every writer of a project — the window's Save, every command's ``--record`` — goes through
this module, under the project lock (:mod:`core.project.locks`), reading the file again
and merging; no other module writes a project file over an existing one (checked by
``tests/core/project/test_one_writer.py``). The only other project writes are a new file
(:func:`core.project.files.save_project`: examples, tests) and the window's recovery copy
(:mod:`core.project.autosave`), which no one else writes.

* :func:`record_and_save` — a command's run: under the project lock, the file is read
  *again*, the run and its ledger entries are appended to what the file holds now (the run
  and entry ids renumbered when another writer took them meanwhile), and the file is
  written back. Nothing else is changed (models and their sidecar arrays are not even
  re-read), so nothing another writer recorded can be lost.
* :func:`save_document` — the window's Save: under the project lock, the file now is
  compared with what it held when the document read it (``project.origin``). Runs and ledger
  entries other writers added meanwhile are merged into the document (renumbered where
  their ids are taken); a section only another writer changed (the document's copy is
  still the one it read) is taken from the file into the document (``SaveReport.adopted``),
  so the save writes it back as the other writer left it; a section both sides changed (a
  model, a map, the notes…) is a :class:`ProjectChanged` conflict — nothing is written until
  the caller decides, and with ``overwrite=True`` those sections are replaced but the merged
  runs and entries and the adopted sections are still kept. A run or entry that another
  writer *removed* is kept (never silently dropped).

A ledger entry is linked to its run by its ``source`` (the run's id, or the id followed by
``": "`` and what in the run released it — :func:`core.project.snapshot.entry_run`). When a
run is renumbered, every entry linked to it follows, in either form.

Examples
--------
>>> import os, tempfile
>>> from core.project.files import load_project, save_project
>>> from core.project.model import Project, RunRecord
>>> d = tempfile.mkdtemp(); path = os.path.join(d, "p.privplan.json")
>>> save_project(Project(name="p"), path)
>>> window = load_project(path)                  # a window opens the file
>>> cmd = load_project(path)                     # a command reads it too...
>>> rec = RunRecord("run-1", "audit", "laplace", {}, {}, "experiment", 1)
>>> _ = record_and_save(path, cmd, rec)          # ...and records a run
>>> window.runs.append(RunRecord("run-1", "audit", "exponential", {}, {}, "experiment", 2))
>>> report = save_document(window, path)         # the window saves its own run-1
>>> sorted((r.id, r.target) for r in load_project(path).runs)
[('run-1', 'exponential'), ('run-2', 'laplace')]
>>> report.merged_runs
['run-2']
"""

from __future__ import annotations

import copy
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

from core import __version__
from core.common.atomic import atomic_write_text
from core.common.errors import InputError, WriteFailure
from core.common.jsonable import jsonable
from core.common.jsonfile import read_json
from core.privacy.ledger import LedgerEntry, PrivacyLedger
from core.project.files import (
    PROJECT_FORMAT,
    SCHEMA_VERSION,
    ledger_entries,
    migrated_payload,
    project_from_dict,
    project_to_dict,
    run_dict,
    run_records,
    write_project,
)
from core.project.jsonfmt import dumps
from core.project.locks import project_lock, real_path
from core.project.model import Project, RunRecord
from core.project.snapshot import (
    SECTIONS,
    Snapshot,
    entry_run,
    ledger_keys,
    relink,
    run_key,
    snapshot,
)

__all__ = ["ProjectChanged", "SaveReport", "record_and_save", "save_document",
           "SECTION_NAMES", "adopt_file", "check_writable", "mark_unedited"]

#: How a section is named to a user.
SECTION_NAMES = {"name": "the project's name", "notes": "the notes", "mdps": "the models",
                 "maps": "the logistics maps", "advising": "the advising set-ups",
                 "grids": "the grid worlds", "budgets": "the privacy budgets",
                 "plans": "the privacy plans",
                 "runs": "runs (removed there)", "ledger": "ledger entries (removed there)"}


class ProjectChanged(InputError):
    """Another writer changed sections of the file that this document changed too.

    ``sections`` lists them (keys of :data:`SECTION_NAMES`); nothing was written.
    """

    def __init__(self, path: str, sections: Sequence[str]) -> None:
        self.sections = list(sections)
        names = ", ".join(SECTION_NAMES.get(s, s) for s in self.sections)
        super().__init__(f"another program changed {names} in this file since it was "
                         "opened; nothing was saved (save again to overwrite those changes — "
                         "the runs and ledger entries it recorded are kept either way)",
                         file=path)


@dataclass
class SaveReport:
    """What a save merged into the document from other writers."""

    merged_runs: list[str] = field(default_factory=list)  # ids, as now in the document
    merged_entries: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)  # sections replaced by overwrite
    adopted: list[str] = field(default_factory=list)  # sections taken from the file


_RUN_ID = re.compile(r"^run-(\d+)$")


def _fresh_run_id(taken: set[str]) -> str:
    n = max((int(m.group(1)) for t in taken if (m := _RUN_ID.match(t))), default=0)
    i = max(n, len(taken)) + 1
    while f"run-{i}" in taken:
        i += 1
    return f"run-{i}"


def _read_disk(path: str) -> dict[str, Any] | None:
    """The file's migrated payload now (None when there is no file)."""
    if not os.path.lexists(path):
        return None
    try:
        return migrated_payload(read_json(path))
    except InputError as exc:
        raise InputError(f"the file changed since it was read and cannot be read now "
                         f"({exc.field + ': ' if exc.field else ''}{exc.problem}); nothing "
                         "was written", file=path) from None


def record_and_save(path: str | os.PathLike[str], project: Project, record: RunRecord,
                    entries: Sequence[LedgerEntry] = (), *,
                    check: Callable[[Any], None] | None = None
                    ) -> tuple[RunRecord, list[LedgerEntry]]:
    """Record a command's run in the project file at ``path``, merged with what it holds now.

    Under the project lock, the file is read again; ``record`` (renumbered if its id is
    taken now, its entries' ``source`` following) and ``entries`` (fresh ``rel-N`` ids) are
    appended to its runs and ledger — both validated — and the file is written back with
    every other part exactly as it is now (models are not re-read: their sidecar arrays stay
    as they are, and keys this version does not know are kept). ``project`` (the copy the
    command read before its run) gets the merged runs and ledger.

    Parameters
    ----------
    path : str or PathLike
        The project file (a symlink records into its target and stays a link).
    project : Project
        The project as the command read it (its runs and ledger are replaced by the merged
        ones).
    record : RunRecord
        The run (its id from ``project.new_run_id()``).
    entries : sequence of LedgerEntry
        What the run released (ids assigned here).
    check : callable, optional
        Called under the lock with the project as it is now (an object with its ``ledger``
        and ``budgets``) before anything is written; raising refuses the record (the
        budget check of ``--record``, against what other writers spent meanwhile).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        The run and the entries as stored.

    Raises
    ------
    InputError
        The file was removed or damaged meanwhile (nothing written).
    """
    real = real_path(path)
    with project_lock(real):
        if not os.path.exists(real):
            raise InputError("the project file was removed while the run was computing; "
                             "nothing was written", field="--record", file=os.fspath(path))
        try:
            payload = dict(migrated_payload(read_json(real)))
            runs = run_records(payload.get("runs", []) or [])
            ledger = ledger_entries(payload.get("ledger", []) or [])
        except InputError as exc:
            raise InputError(f"the file changed while the run was computing and cannot be "
                             f"read now ({exc.field + ': ' if exc.field else ''}{exc.problem})"
                             "; nothing was written", file=os.fspath(path)) from None
        if check is not None:
            check(SimpleNamespace(ledger=list(ledger), budgets=payload.get("budgets") or {}))
        old_id = record.id
        if any(r.id == old_id for r in runs):
            record = replace(record, id=_fresh_run_id({r.id for r in runs}))
        # every entry of the run follows it, "run-7" and "run-7: logistics: …" alike
        entries = [_follow(e, old_id, record.id) if entry_run(e.source, {old_id}) else e
                   for e in entries]
        stored = PrivacyLedger(entries=list(ledger)).extend(entries)
        runs.append(record)
        ledger.extend(stored)
        payload["runs"] = [run_dict(r) for r in runs]
        payload["ledger"] = [e.to_dict() for e in ledger]
        doc = {"format": PROJECT_FORMAT, "schema_version": SCHEMA_VERSION,
               "saved_by": f"privplan {__version__}", "project": payload}
        _write(real, dumps(jsonable(doc)) + "\n", os.fspath(path))
    project.runs = runs
    project.ledger = ledger
    project.origin = snapshot(payload, real)
    return record, stored


def save_document(project: Project, path: str | os.PathLike[str], *, overwrite: bool = False
                  ) -> SaveReport:
    """Save a document over a file that other writers may have recorded into meanwhile.

    Parameters
    ----------
    project : Project
        The document's project; runs and entries other writers added are appended to it
        (see the module docstring). ``project.origin`` is the merge base; without one (a new
        project, Save As onto another file) the file is replaced.
    path : str or PathLike
        The project file.
    overwrite : bool
        Replace the sections both sides changed instead of raising :class:`ProjectChanged`.

    Returns
    -------
    SaveReport
        What was merged in (the caller tells its views).

    Raises
    ------
    ProjectChanged
        Both sides changed a section and ``overwrite`` is False: nothing was written.
    InputError
        The file is no longer a readable project.
    """
    real = real_path(path)
    report = SaveReport()
    with project_lock(real):
        base: Snapshot | None = project.origin
        disk = _read_disk(real) if base is not None and base.path == real else None
        if disk is not None and base is not None:
            _merge(project, disk, base, real, overwrite, report)
        try:
            write_project(project, real)
        except InputError as exc:
            raise _unwritable(exc, os.fspath(path)) from None
        except WriteFailure:
            raise
        except OSError as exc:
            raise _unwritable(exc, os.fspath(path)) from None
    return report


def _merge(project: Project, disk: dict[str, Any], base: Snapshot, path: str,
           overwrite: bool, report: SaveReport) -> None:
    disk_runs = run_records(disk.get("runs", []) or [])
    disk_ledger = ledger_entries(disk.get("ledger", []) or [])
    now = snapshot(dict(disk, runs=[run_dict(r) for r in disk_runs],
                        ledger=[e.to_dict() for e in disk_ledger]), path)
    ours_doc = project_to_dict(project, sidecars={}, project_path=path)["project"]
    ours = snapshot(ours_doc, path)
    # a section this document only completed on opening (state positions) is not its edit
    edited = {s for s in SECTIONS if base.edited(s, ours.sections[s])}
    conflicts = [s for s in SECTIONS if now.sections[s] != base.sections[s]
                 and s in edited and ours.sections[s] != now.sections[s]]
    if base.runs - now.runs:
        conflicts.append("runs")
    if base.ledger - now.ledger:
        conflicts.append("ledger")
    if conflicts and not overwrite:
        raise ProjectChanged(path, conflicts)
    report.overwritten = conflicts
    theirs_only = [s for s in SECTIONS if now.sections[s] != base.sections[s]
                   and s not in edited]
    if theirs_only:
        _adopt_sections(project, disk, theirs_only, path)
        report.adopted = theirs_only
    # runs another writer added: (now - base) less what this document already holds
    add_runs = (now.runs - base.runs) - (ours.runs - base.runs)
    taken = {r.id for r in project.runs}
    renamed: dict[str, str] = {}
    disk_run_keys: dict[str, str] = {}
    for r in disk_runs:
        k = run_key(run_dict(r))
        disk_run_keys[r.id] = k
        if add_runs[k] <= 0:
            continue
        add_runs[k] -= 1
        new_id = r.id if r.id not in taken else _fresh_run_id(taken)
        taken.add(new_id)
        renamed[r.id] = new_id
        project.runs.append(replace(r, id=new_id))
        report.merged_runs.append(new_id)
    add_entries: Counter[str] = (now.ledger - base.ledger) - (ours.ledger - base.ledger)
    keys = ledger_keys([e.to_dict() for e in disk_ledger], disk_run_keys)
    led = PrivacyLedger.from_project(project)
    for e, k in zip(disk_ledger, keys):
        if add_entries[k] <= 0:
            continue
        add_entries[k] -= 1
        run = entry_run(e.source, renamed)
        if run is not None:  # its run was renumbered: the entry follows (either form)
            e = _follow(e, run, renamed[run])
        if any(x.id == e.id for x in led.entries):
            (e,) = led.extend([e])
        else:
            led.entries.append(e)
        project.ledger.append(e)
        report.merged_entries.append(e.id)


def _adopt_sections(project: Project, disk: dict[str, Any], sections: Sequence[str],
                    path: str) -> None:
    """Replace ``sections`` of ``project`` by the file's (``disk``, its migrated payload):
    only those sections are read and validated (a model's sidecar arrays beside ``path``)."""
    doc = {"format": PROJECT_FORMAT, "schema_version": SCHEMA_VERSION,
           "project": {s: disk[s] for s in sections if s in disk}}
    try:
        theirs = project_from_dict(doc, base_dir=os.path.dirname(path))
    except InputError as exc:
        names = ", ".join(SECTION_NAMES.get(s, s) for s in sections)
        raise InputError(f"another program changed {names} in this file and it cannot be "
                         f"read now ({exc.field + ': ' if exc.field else ''}{exc.problem}); "
                         "nothing was written", file=path) from None
    for s in sections:
        setattr(project, s, getattr(theirs, s))


def _follow(entry: LedgerEntry, old: str, new: str) -> LedgerEntry:
    """``entry`` of the run ``old``, now ``new``: its source relinked, and the run's id in
    the text of what it released (an advising entry says "…, run-7)") renamed too."""
    if old == new:
        return entry
    released = re.sub(rf"(?<![\w-]){re.escape(old)}(?!\d)", new, entry.released)
    return replace(entry, source=relink(entry.source, old, new), released=released)


def _unwritable(exc: BaseException, path: str) -> InputError:
    """One line naming the project file that could not be written (exit 2)."""
    if isinstance(exc, InputError):
        problem = exc.problem
    else:
        problem = f"cannot write here ({getattr(exc, 'strerror', None) or exc})"
    return InputError(f"{problem}; the project file was not changed", file=path)


def _write(real: str, text: str, path: str) -> None:
    """Write the project file's new text (the caller holds the lock); a folder or file that
    cannot be written is an InputError naming ``path``; a write that fails midway (a full
    disk) stays a :class:`~core.common.errors.WriteFailure` (exit 3)."""
    try:
        atomic_write_text(real, text)
    except WriteFailure:
        raise
    except (InputError, OSError) as exc:
        raise _unwritable(exc, path) from None


def check_writable(path: str | os.PathLike[str], *, field: str | None = None) -> None:
    """Refuse, before any work, a project whose folder cannot be written (a command that
    records into it would compute for nothing).

    The check creates and removes a temporary file beside the project — the same kind of
    file every save writes first — so it answers for this process as the save would
    (permissions, a read-only file system, root without the right capabilities).

    Parameters
    ----------
    path : str or PathLike
        The project file (a symlink: its target's folder).
    field : str, optional
        The flag named in the error (``--record``).

    Raises
    ------
    InputError
        Naming the file: its folder is missing or cannot be written.
    """
    import tempfile

    real = real_path(path)
    folder = os.path.dirname(real) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.{os.getpid()}.",
                                   suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write in its folder ({exc.strerror or exc}); nothing was "
                         "run", field=field, file=os.fspath(path)) from None
    os.close(fd)
    try:
        os.unlink(tmp)
    except OSError:
        pass  # load_project cleans a temporary its writer left


def adopt_file(project: Project, path: str | os.PathLike[str]) -> None:
    """Make ``path`` the file ``project`` will be saved over, without knowing what it held
    when the project's content was read (a recovered autosave copy of that file).

    The merge base becomes the file's sections *now* (so saving replaces them without a
    conflict) and no runs or ledger entries: every run and entry the file holds that the
    project does not is merged in at the next :func:`save_document` — a release recorded
    while the window was dead is never dropped.

    Parameters
    ----------
    project : Project
        The project (its ``origin`` is replaced).
    path : str or PathLike
        The file it will be saved to.
    """
    real = real_path(path)
    try:
        disk = _read_disk(real)
    except InputError:
        disk = None  # unreadable: the save replaces it (as Save As would)
    if disk is None:
        project.origin = None
        return
    base = snapshot(disk, real)
    project.origin = Snapshot(base.path, base.sections)


def mark_unedited(project: Project, sections: Sequence[str] = SECTIONS) -> list[str]:
    """Let ``project``'s ``sections`` as they are now count as *unedited* at its next save.

    Opening a file may complete it with derived data that is not a user's edit (state
    positions for a model stored without a layout, :func:`core.project.layout.
    fill_project_layouts`): the document's copy of that section then differs from what the
    file held. Without this, a save would take the document for the author of a change and
    call a model another program changed meanwhile a conflict. After it, a section whose
    digest is still the one recorded here is one the document did not change: another
    writer's version of it is taken at the save (:func:`save_document`).

    Parameters
    ----------
    project : Project
        A project read from a file (``project.origin`` set; without one nothing happens).
    sections : sequence of str
        Keys of :data:`core.project.snapshot.SECTIONS`.

    Returns
    -------
    list of str
        The sections whose form now differs from the file's (and was recorded).

    Examples
    --------
    >>> import os, tempfile
    >>> from core.mdp.examples import random_mdp
    >>> from core.project.files import load_project, project_to_dict, save_project
    >>> p = Project(name="p"); _ = p.add_mdp(random_mdp(3, 2, 2, seed=1), "m")
    >>> path = os.path.join(tempfile.mkdtemp(), "p.privplan.json"); save_project(p, path)
    >>> window = load_project(path)
    >>> window.mdps[0].model.move_states({"st-1": (5.0, 5.0)})  # derived on opening
    >>> mark_unedited(window, ["mdps"])
    ['mdps']
    """
    base: Snapshot | None = project.origin
    if base is None:
        return []
    whole = project
    if "mdps" not in sections:  # the other sections are small: skip serialising the models
        whole = copy.copy(project)
        whole.mdps = []
    ours = snapshot(project_to_dict(whole, sidecars={}, project_path=base.path)["project"],
                    base.path)
    noted = [s for s in sections if ours.sections[s] != base.sections[s]]
    project.origin = replace(base, unedited={**base.unedited,
                                             **{s: ours.sections[s] for s in noted}})
    return noted
