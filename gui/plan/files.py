"""Plan files from the Privacy plan tab: Open plan… / Save plan… dialogs and the write of a
``*.plan.json`` file (atomic: a temporary file, then a rename). A plan file is never a
project file: plans go into a project through its ``plans`` section and the window's Save.
"""

from __future__ import annotations

import json
import os

from PySide6.QtWidgets import QFileDialog, QWidget

from core.common import atomic_write_text
from core.plan import Plan, plan_to_dict

__all__ = ["ask_plan_path", "write_plan"]

FILTER = "Privacy plans (*.plan.json);;JSON (*.json)"


def ask_plan_path(parent: QWidget, start: str, *, save: bool) -> str:
    """The file the user picks ("" when cancelled)."""
    if save:
        path, _ = QFileDialog.getSaveFileName(parent, "Save privacy plan", start, FILTER)
    else:
        path, _ = QFileDialog.getOpenFileName(parent, "Open privacy plan", start, FILTER)
    return str(path)


def write_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write ``plan`` as JSON (what :func:`core.plan.load_plan` reads); OSError if it cannot."""
    atomic_write_text(os.fspath(path), json.dumps(plan_to_dict(plan), indent=1) + "\n")
