"""The window's Save: merge what other writers recorded, ask before overwriting their edits.

:func:`save_document_to` saves the document's project with
:func:`core.project.store.save_document`: runs and ledger entries that another process
recorded into the file since it was opened (a command's ``--record``, another window) are
merged into the document and announced to its views; a section only another writer changed
(a model, the name…) is taken into the document and announced too; when another writer
changed a section this document changed too (a model, the notes…), the user is asked
whether to overwrite it (:func:`ask_overwrite`, which tests replace) — the other writer's
runs and releases are kept either way.
"""

from __future__ import annotations

import dataclasses
import os

from PySide6.QtWidgets import QMessageBox, QWidget

from core.project.store import ProjectChanged, save_document
from gui.shell.document import ProjectDocument

__all__ = ["ask_overwrite", "save_document_to"]


def ask_overwrite(parent: QWidget, conflict: ProjectChanged) -> bool:
    """True when the user chooses to overwrite what another program changed."""
    box = QMessageBox(QMessageBox.Icon.Warning, "The file was changed elsewhere",
                      "Another program changed this project file since you opened it.",
                      parent=parent)
    box.setInformativeText(
        f"{conflict.problem[0].upper()}{conflict.problem[1:]}\n\nOverwrite writes your "
        "version of those parts; the runs and privacy-ledger entries the other program "
        "recorded are kept in any case.")
    overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is overwrite


def save_document_to(parent: QWidget, document: ProjectDocument,
                     path: str | os.PathLike[str]) -> bool:
    """Save ``document`` to ``path`` merging other writers' runs and entries; False when the
    user declined to overwrite a conflicting change (nothing written).

    Errors of the save itself (InputError, OSError) propagate to the caller's dialog.
    """
    project = document.project
    # the store replaces a section it takes from the file (never edits it in place): the
    # values before the save tell the views what went away
    before = {f.name: getattr(project, f.name) for f in dataclasses.fields(project)}
    try:
        report = save_document(project, path)
    except ProjectChanged as conflict:
        if not ask_overwrite(parent, conflict):
            return False
        report = save_document(project, path, overwrite=True)
    document.adopt_merged(report.merged_runs, report.merged_entries, report.adopted, before)
    return True
