"""Building a :class:`~core.report.model.Report` from a project: overview, models, one
section per run (its registered reporter, or a generic one that never drops a run), ledger.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core import __version__
from core.common.errors import InputError
from core.report.model import (
    KeyValues,
    Paragraph,
    Report,
    Section,
    Table,
    _fmt,
    _mode_text,
    _short_time,
    _time,
    footnote_unbounded,
)
from core.report.sections import load_sections
from core.report.sections.ledger import (
    _ledger_entries_section,
    _ledger_section,
    dataset_totals,
)
from core.report.sections.mdp import _mdp_section

__all__ = ["file_sha256", "oracle_keys", "build_report", "section_titles", "OPTIONAL_SECTIONS"]

#: sections a report leaves out unless they are asked for by id (``include``)
OPTIONAL_SECTIONS = ("ledger-entries",)


def _generic_section(project: Any, run: Any) -> Section:
    """A run kind without a reporter: what was run, with which parameters (never dropped)."""
    sec = Section(f"{run.kind} on {run.target} ({run.id})", id=f"run-{run.id}")
    items = [("randomness", _mode_text(run)), ("created", _time(run.created))]
    items += [(str(k), _fmt(v)) for k, v in sorted(run.params.items())
              if isinstance(v, (str, int, float, bool)) or v is None]
    sec.blocks.append(KeyValues(tuple(items), "Parameters"))
    sec.blocks.append(Paragraph(f"PrivPlan has no report layout for “{run.kind}” runs yet: "
                                "its parameters are listed; its results are in the project "
                                "file.", "note"))
    return sec


def _randomness(run: Any) -> str:
    text = (f"seeded experiment (seed {run.seed})" if run.mode == "experiment"
            else "release (secure noise)")
    return text + ("; oracle view" if oracle_keys(run) else "")


def _overview_section(project: Any) -> Section:
    """The first page: what was run (seeded experiment or release), what each protected
    dataset has spent under the basic and the tight accountant, and against which budget."""
    from core.privacy.ledger import PrivacyLedger

    sec = Section("Summary", id="overview")
    if project.notes:
        sec.blocks.append(Paragraph(project.notes, "note"))
    if project.runs:
        sec.blocks.append(Table(
            ("run", "analysis", "on", "randomness", "created"),
            tuple((r.id, r.kind, r.target, _randomness(r), _short_time(r.created))
                  for r in project.runs), "Analyses",
            note="A seeded experiment is reproducible from its seed and releases nothing; "
                 "release mode draws its noise from a secure source and is counted as "
                 "spent. An oracle view is computed by the experimenter from the true "
                 "(private) data and is not a release.",
            widths=(9, 14, 20, 39, 18)))
        oracle = [r.id for r in project.runs if oracle_keys(r)]
        if oracle:
            sec.blocks.append(Paragraph(
                "Oracle views: " + ", ".join(oracle) + " hold results computed from the true "
                "(private) data by the experimenter (each section names them); they are not "
                "releases.", "note"))
    try:
        led = PrivacyLedger.from_project(project)
    except (TypeError, ValueError):
        return sec  # the ledger section says why
    if led.entries or led.budgets:  # what a reviewer asks first: right after the notes
        sec.blocks.insert(1 if project.notes else 0, dataset_totals(led))
    return sec


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, as hex (the report names the project it was made from).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    str
        64 hex digits.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def oracle_keys(run: Any) -> list[str]:
    """The summary keys a run marks as oracle views (computed on the true, private data).

    Parameters
    ----------
    run : RunRecord
        The run.

    Returns
    -------
    list of str
        Empty when the run stores no oracle value.
    """
    keys = (run.summary or {}).get("oracle_keys") if isinstance(run.summary, dict) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def _oracle_note(run: Any) -> Paragraph | None:
    keys = oracle_keys(run)
    if not keys:
        return None
    what = str(run.summary.get("oracle_view") or "computed on the true data")
    return Paragraph(f"Oracle view — {', '.join(keys)}: {what}. These results are computed "
                     "from the true (private) data by the experimenter; they are not a "
                     "release, and no user of the private output could compute them.",
                     "note")


def _ledger_note(project: Any, run_id: str) -> Paragraph | None:
    ids = [(e.id, e.mode) for e in project.ledger if e.source == run_id]
    if not ids:
        return None
    modes = sorted({m for _, m in ids})
    return Paragraph(f"Privacy ledger entries of this run: {', '.join(i for i, _ in ids)} "
                     f"({', '.join(modes)}).", "note")


def _source_date() -> _dt.datetime | None:
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return None
    try:
        return _dt.datetime.fromtimestamp(int(raw), _dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None


# What rendering a run whose summary was damaged outside PrivPlan raises (a section reads the
# summary its own kind of run writes; values of another type or shape fail in these ways).
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError,
              ZeroDivisionError)


def build_report(project: Any, *, project_path: str | Path | None = None,
                 include: Sequence[str] | None = None,
                 now: _dt.datetime | None = None) -> Report:
    """The report of ``project``: overview, models, every run with a reporter, the ledger.

    ``include`` limits the sections by id (``"overview"``, ``"models"``, ``"run-<id>"``,
    ``"ledger"``, ``"ledger-entries"``; see :func:`section_titles`); by default every
    section but the optional ones (:data:`OPTIONAL_SECTIONS`: the appendix of every
    ledger entry) is in. ``now`` is the ``generated`` time: by
    default ``SOURCE_DATE_EPOCH`` (reproducible builds) if set, else the clock.

    Parameters
    ----------
    project : Project
        What to report.
    project_path : str or Path, optional
        The project's file (its name and SHA-256 go into the overview).
    include : sequence of str, optional
        Section ids to keep (all if None).
    now : datetime, optional
        The ``generated`` time.

    Returns
    -------
    Report
        Sections of paragraphs, tables and figures, rendered by :func:`to_html` (and the GUI's
        PDF export).
    """
    meta = _report_meta(project, project_path, now)
    keep = set(include) if include is not None else None

    def wanted(sid: str) -> bool:  # an unwanted section is not built (the ledger's take long)
        return sid in keep if keep is not None else sid not in OPTIONAL_SECTIONS

    sections = []
    if (project.runs or project.ledger or getattr(project, "budgets", None)) \
            and wanted("overview"):
        sections.append(_overview_section(project))
    if project.mdps and wanted("models"):
        sections.append(_mdp_section(project))
    reporters = load_sections()
    sections += [_run_section(project, i, run, reporters)
                 for i, run in enumerate(project.runs) if wanted(f"run-{run.id}")]
    if not project.runs and wanted("no-analyses"):
        sections.append(Section("Analyses", [Paragraph(
            "This project has no analyses yet: run one (for example F5 in an MDP workspace) "
            "and export the report again.", "note")], id="no-analyses"))
    if wanted("ledger"):
        sections.append(_ledger_section(project))
    if project.ledger and wanted("ledger-entries"):
        sections.append(_ledger_entries_section(project))
    return Report(f"PrivPlan report — {project.name}", meta, sections)


def _report_meta(project: Any, project_path: str | Path | None,
                 now: _dt.datetime | None) -> dict[str, str]:
    """The report's provenance: versions, time, platform, the project file's and its
    sidecars' SHA-256, the seeds of its runs."""
    now = now or _source_date() or _dt.datetime.now(_dt.timezone.utc)
    meta = {"PrivPlan": __version__, "generated": now.replace(microsecond=0).isoformat(),
            "platform": f"{platform.system()} {platform.machine()}, Python "
                        f"{platform.python_version()}",
            "project": project.name}
    if project_path is not None and Path(project_path).is_file():
        path = Path(os.path.realpath(project_path))  # a symlinked project: its real folder
        meta["project file"] = path.name
        meta["project SHA-256"] = file_sha256(path)
        for e in project.mdps:  # large models keep P in a sidecar next to the project
            from core.project.files import sidecar_name

            side = path.parent / sidecar_name(path, e.id, e.model.P)
            if not side.is_file():  # written by a PrivPlan before generation names
                side = path.parent / sidecar_name(path, e.id)
            if side.is_file():
                meta[f"{side.name} SHA-256"] = file_sha256(side)
        meta["rebuild with"] = f"privplan report {path.name} -o REPORT.pdf"
    seeds = sorted({str(r.seed) for r in project.runs if r.seed is not None})
    if seeds:
        meta["seeds"] = ", ".join(seeds)
    return meta


def _run_section(project: Any, i: int, run: Any, reporters: Any) -> Section:
    """The section of run ``i`` by its kind's reporter, with the oracle and ledger notes
    (a malformed record is refused naming ``runs[i]``)."""
    try:
        sec: Section = reporters.get(run.kind, _generic_section)(project, run)
        oracle = _oracle_note(run)
    except _MALFORMED as exc:  # a run record edited or damaged outside PrivPlan
        raise InputError(f"the {run.kind} run {run.id!r} has a malformed summary or "
                         f"parameters ({type(exc).__name__}: {exc}); the report was not "
                         "written", field=f"runs[{i}]") from None
    if oracle is not None:  # right after the parameters
        sec.blocks.insert(min(1, len(sec.blocks)), oracle)
    note = _ledger_note(project, run.id)
    if note is not None:
        sec.blocks.append(note)
    # a long reason inside a narrow ε column filled pages: each reason once, below
    sec.blocks = [footnote_unbounded(b) if isinstance(b, Table) else b
                  for b in sec.blocks]
    return sec


_LEDGER_TITLES = {"overview": "Summary", "ledger": "Privacy ledger",
                  "ledger-entries": "Appendix: every ledger entry"}


def _all_ids(project: Any) -> list[str]:
    ids = ["overview", "models", "no-analyses", "ledger", "ledger-entries"]
    return ids + [f"run-{r.id}" for r in project.runs]


def section_titles(project: Any) -> list[tuple[str, str]]:
    """``(id, title)`` of every section the report of ``project`` has, in order.

    Parameters
    ----------
    project : Project
        The project.

    Returns
    -------
    list of (str, str)
        Section id and title, in report order.
    """
    # the summary and the ledger sections compose the ledger (seconds): their titles are
    # fixed, so only the cheap sections are built
    cheap = [i for i in _all_ids(project) if i not in _LEDGER_TITLES]
    rep = build_report(project, now=_dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc),
                       include=cheap)
    out = [(s.id, s.title) for s in rep.sections]
    if project.runs or project.ledger or getattr(project, "budgets", None):
        out.insert(0, ("overview", _LEDGER_TITLES["overview"]))
    out.append(("ledger", _LEDGER_TITLES["ledger"]))
    if project.ledger:
        out.append(("ledger-entries", _LEDGER_TITLES["ledger-entries"]))
    return out
