"""Reading a project or model file for the window, in the UI thread or a worker.

:func:`read_project_file` is what File ▸ Open and the command line's ``app.py FILE`` read;
files larger than :data:`BACKGROUND_BYTES` (with their sidecar arrays) are read in the
window's loader (:func:`_open_in_worker`) with progress and Cancel
(:mod:`gui.shell.load_cancel`). Nothing here touches a widget: safe in a worker thread.
"""

from __future__ import annotations

import os

from core.common import InputError
from core.common.progress import Progress
from core.project import Project

__all__ = ["BACKGROUND_BYTES", "read_project_file"]

BACKGROUND_BYTES = 4_000_000  # files (with their sidecars) larger than this open in a worker


def read_project_file(path: str | os.PathLike[str], *, progress: Progress | None = None
                      ) -> tuple[Project, bool]:
    """Read a project or an MDP file: (project, True if it is a project file).

    The project's drawable models get positions for their states (files without a
    layout), and every valid model is validated once into its cache. Safe to run in a
    worker thread: it touches nothing but the objects it creates. ``progress`` is told how
    far it is and may raise :class:`core.common.progress.Cancelled` to stop it.
    """
    from core.common.progress import no_progress, sub_progress
    from core.mdp import load_mdp, read_json
    from core.project import PROJECT_FORMAT, fill_project_layouts, load_any, project_from_dict

    report = progress if progress is not None else no_progress
    reading = sub_progress(report, 0.0, 0.85)
    path = str(path)
    is_project = False
    if path.lower().endswith(".npz"):
        project = load_any(path, progress=reading)
    else:
        doc = read_json(path)
        if isinstance(doc, dict) and doc.get("format") == PROJECT_FORMAT:
            try:  # the project remembers what the file held: Save merges, never overwrites
                project = project_from_dict(doc, base_dir=os.path.dirname(os.path.realpath(path)),
                                            path=path)
            except InputError as exc:
                raise (exc if exc.file else exc.with_file(path)) from None
            is_project = True
        elif isinstance(doc, dict) and doc.get("format") == "privplan-mdp":
            mdp = load_mdp(path, progress=reading)
            project = Project(name=mdp.name or os.path.basename(path))
            project.add_mdp(mdp)
        else:
            raise InputError("not a PrivPlan project or MDP file (unknown 'format')",
                             field="format", file=path)
    report(0.85, "laying out")
    fill_project_layouts(project)
    for i, entry in enumerate(project.mdps):
        report(0.9 + 0.1 * i / max(1, len(project.mdps)), f"checking {entry.model.name}")
        if entry.model.is_valid:
            entry.mdp  # noqa: B018 - validate once, here, and keep it in the entry's cache
    return project, is_project


def _file_size(path: str) -> int:
    """Bytes of ``path`` plus the sidecar arrays that may sit next to it."""
    import glob

    try:
        total = os.path.getsize(path)
    except OSError:
        return 0
    stem = os.path.basename(path)
    for suffix in (".privplan.json", ".json"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    folder = glob.escape(os.path.dirname(os.path.realpath(path)))
    # its sidecars: content-addressed (shared by copies: counted whoever names them) and
    # the "<stem>.<id>…npz" of older PrivPlan versions
    for side in glob.glob(os.path.join(folder, glob.escape(stem) + ".*.npz")) + glob.glob(
            os.path.join(folder, "arrays.*.npz")):
        try:
            total += os.path.getsize(side)
        except OSError:
            pass
    return total


def _open_in_worker(path: str, *, progress: Progress | None = None
                    ) -> tuple[str, Project, bool, dict]:
    project, is_project = read_project_file(path, progress=progress)
    problems = {e.id: (e.model.version, e.model.problems()) for e in project.mdps}
    return path, project, is_project, problems
