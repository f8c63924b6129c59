"""Model files the window imports: PrivPlan MDPs, PRISM explicit files and Storm ``.drn``.

File ▸ Import Model… and a drop on the window both come here. A PrivPlan MDP
(``*.mdp.json``, ``*.mdp.npz``) is read by :func:`core.mdp.load_mdp`; PRISM's explicit files
(one ``.tra`` with optional ``.lab``, ``.sta``, ``.srew``, ``.trew``) and one Storm ``.drn``
by :func:`core.mdp.interop.import_model`, the reader of ``privplan import``, with its
defaults (infinite horizon, discount 0.95, the first reward structure; the Inspector
changes the horizon and discount afterwards). A ``.tra`` given alone brings the files
beside it with the same stem, as PRISM writes them. A refused file is reported with the
message the command line prints for it (its ``InputError`` text, which names the file,
line and field); the reader's warnings go to the Log.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.common import InputError
from core.common.progress import Progress
from core.mdp import MDP

__all__ = ["ImportedModel", "read_model_files", "IMPORT_FILTERS", "PRISM_SUFFIXES",
           "is_importable", "is_project_file"]

PRISM_SUFFIXES = (".tra", ".lab", ".sta", ".srew", ".trew")
MDP_SUFFIXES = (".mdp.json", ".mdp.npz", ".json", ".npz")
IMPORT_FILTERS = ("Models (*.mdp.json *.mdp.npz *.json *.npz *.drn *.tra *.lab *.sta *.srew "
                  "*.trew);;PrivPlan MDPs (*.mdp.json *.mdp.npz);;"
                  "PRISM explicit files (*.tra *.lab *.sta *.srew *.trew);;Storm (*.drn);;"
                  "All files (*)")


@dataclass(frozen=True)
class ImportedModel:
    """A model read from ``files``, the name to give it, and the reader's warnings."""

    mdp: MDP
    name: str
    files: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())

    def editable(self) -> Any:
        """The editable model to add (:class:`core.mdp.MdpModel`): named, and laid out when
        it is small enough to draw. Safe in a worker thread."""
        from core.mdp import MAX_LAYOUT_STATES, MdpModel, fill_missing_positions

        model = MdpModel.from_mdp(self.mdp)
        if not model.name:
            model.name = self.name
        if model.n_states <= MAX_LAYOUT_STATES:
            model.positions = fill_missing_positions(model)
        return model


def _suffix(path: str) -> str:
    lower = path.lower()
    for s in (".mdp.json", ".mdp.npz", ".privplan.json"):
        if lower.endswith(s):
            return s
    return os.path.splitext(lower)[1]


def is_project_file(path: str) -> bool:
    """A PrivPlan project (opened, not imported)."""
    return str(path).lower().endswith(".privplan.json")


def is_importable(path: str) -> bool:
    """A file the window can import (by its name)."""
    s = _suffix(str(path))
    return s in MDP_SUFFIXES or s in PRISM_SUFFIXES or s == ".drn"


def _with_prism_siblings(files: list[str]) -> list[str]:
    """A lone ``.tra``: add the ``.lab``, ``.sta``, ``.srew``, ``.trew`` beside it."""
    if len(files) != 1 or _suffix(files[0]) != ".tra":
        return files
    tra = Path(files[0])
    stem = tra.name[: -len(".tra")]
    found = [str(p) for p in sorted(tra.parent.glob(f"{stem}.*"))
             if p != tra and _suffix(str(p)) in PRISM_SUFFIXES and p.is_file()]
    return [str(tra), *found]


def read_model_files(paths: list[str], *, progress: Progress | None = None) -> ImportedModel:
    """Read one model from ``paths`` (module docstring); ``progress`` is told how far the
    reader is and may raise :class:`core.common.progress.Cancelled` to stop it.

    Raises
    ------
    InputError
        A refused file, with the command line's message, or files that are not one model.
    """
    files = [str(p) for p in paths]
    if not files:
        raise InputError("no file given", field="FILE")
    kinds = {_suffix(f) for f in files}
    interop = kinds & (set(PRISM_SUFFIXES) | {".drn"})
    if interop:
        from core.mdp.interop import import_model

        others = [f for f in files if _suffix(f) not in PRISM_SUFFIXES + (".drn",)]
        if others:
            raise InputError(f"{others[0]}: import PRISM/Storm files apart from other files",
                             field="FILE")
        files = _with_prism_siblings(files)
        res = import_model(files, progress=progress)
        return ImportedModel(res.mdp, res.mdp.name or Path(files[0]).stem,
                             tuple(res.files), tuple(res.warnings))
    if len(files) != 1:
        raise InputError("import one *.mdp.json or *.mdp.npz file at a time (or the files of "
                         "one PRISM model)", field="FILE")
    from core.mdp import load_mdp

    mdp = load_mdp(files[0], progress=progress)
    return ImportedModel(mdp, mdp.name or Path(files[0]).name.split(".")[0], (files[0],))
