"""The window's file actions: Save, Save As, the unsaved-changes question, Open Recent,
crash recovery (:class:`FileActions`), File ▸ Import Model… and File ▸ Export MDP….

They work on the window (``window.document``, ``window.settings``, ``window.log_panel``,
``window.autosave``, its status bar) so that :class:`gui.shell.main_window.MainWindow` keeps
only the wiring; a failure is a dialog and the document is untouched. The dialogs are module
functions that tests replace (:func:`ask_save_changes`, :func:`ask_recover`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from core.common import InputError
from gui.shell.document import PROJECT_STACK
from gui.shell.widgets import open_failure_text

__all__ = ["MDP_FILTERS", "PROJECT_SUFFIX", "safe_file_stem", "FileActions", "ask_save_changes",
           "ask_recover", "taken_text"]

MDP_FILTERS = "MDP JSON (*.mdp.json);;MDP arrays (*.mdp.npz)"
PROJECT_SUFFIX = ".privplan.json"


def safe_file_stem(name: str) -> str:
    """``name`` as a file name stem (letters, digits, - and _; "project" when empty)."""
    stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in name).strip()
    return stem.replace(" ", "-") or "project"


def ask_save_changes(parent: QWidget, name: str) -> QMessageBox.StandardButton:
    """Save / Discard / Cancel for unsaved changes (tests replace this function)."""
    return QMessageBox.question(
        parent, "Unsaved changes", f"The project “{name}” has unsaved changes.\n\n"
        "Save them before closing it?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)


def ask_recover(parent: QWidget, recovery) -> str:
    """"recover", "discard" or "later" for a recovery copy (tests replace this function)."""
    where = (f"of the project file\n{recovery.original}" if recovery.original
             else "of a project that was never saved")
    box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved changes?",
                      f"PrivPlan did not close normally. A copy of “{recovery.name}” with "
                      f"unsaved changes was autosaved at {recovery.saved}, {where}.\n\n"
                      "Recover it? (Discard deletes the copy; Later keeps it for next time.)",
                      parent=parent)
    recover = box.addButton("Recover", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("Later", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(recover)
    box.exec()
    clicked = box.clickedButton()
    return "recover" if clicked is recover else "discard" if clicked is discard else "later"


class FileActions:
    """Save, Save As, Open Recent, crash recovery and Import/Export MDP of ``window`` (a
    MainWindow)."""

    def __init__(self, window: Any) -> None:
        self._window = window

    def fill_recent_menu(self) -> None:
        menu = self._window.recent_menu
        menu.clear()
        files = self._window.settings.recent_files
        for i, f in enumerate(files, 1):
            a = menu.addAction(f"&{i} {Path(f).name}", functools.partial(self.open_recent, f))
            a.setToolTip(f)
            a.setStatusTip(f)
        if not files:
            menu.addAction("(no recent files)").setEnabled(False)
        menu.addSeparator()
        menu.addAction("Clear Recent Files", self._window.settings.clear_recent_files)

    def open_recent(self, path: str) -> bool:
        """Open a recent file (asks about unsaved changes first; forgets missing files)."""
        if not os.path.exists(path):
            self._window.settings.remove_recent_file(path)
            self._window.report_open_error(
                f"{path}: file not found (removed from the recent files)")
            return False
        if not self.maybe_save():
            return False
        return self._window.open_path(path)

    def offer_recovery(self) -> bool:
        """After a crash: offer the autosaved copies; True if one was recovered."""
        from core.project import discard, load_recovery

        for rec in self._window.autosave.recoverable():
            answer = ask_recover(self._window, rec)
            if answer == "discard":
                discard(rec)
                self._window.log_panel.info(f"discarded the recovery copy of “{rec.name}”")
                continue
            if answer != "recover":
                continue
            if not self.maybe_save():
                return False
            try:
                project = load_recovery(rec)
            except Exception as exc:  # noqa: BLE001 - any failure: a dialog
                self._window.report_open_error("the recovery copy cannot be read: "
                                        + open_failure_text(exc, rec.path))
                continue
            path = rec.original if rec.original and os.path.isdir(
                os.path.dirname(rec.original)) else None
            if path is not None:  # Save merges what was recorded into it meanwhile
                from core.project.store import adopt_file

                adopt_file(project, path)
            self._window.document.replace_project(project, path)
            self._window.document.mark_unsaved()  # recovered changes are unsaved changes
            self._window.autosave.adopt(rec)
            self._window.log_panel.info(f"recovered “{rec.name}” from the copy autosaved at "
                                f"{rec.saved}" + (f"; Save writes {path}" if path else ""))
            return True
        return False

    def save(self) -> bool:
        if self._window.document.path is None:
            return self.save_as()
        return self.save_to(self._window.document.path)

    def save_as(self) -> bool:
        folder = (str(Path(self._window.document.path).parent) if self._window.document.path
                  else self._window.settings.last_dir)
        suggested = str(Path(folder or ".") / (safe_file_stem(self._window.document.display_name)
                                               + PROJECT_SUFFIX))
        path, _ = QFileDialog.getSaveFileName(self._window, "Save project as", suggested,
                                              "PrivPlan project (*.privplan.json)")
        if not path:
            return False
        if not path.lower().endswith(PROJECT_SUFFIX):
            path = (path[:-5] if path.lower().endswith(".json") else path) + PROJECT_SUFFIX
        return self.save_to(path)

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        """Save atomically (temp file + rename) and mark the document clean; runs and ledger
        entries another program recorded into the file meanwhile are merged in, never lost
        (:mod:`gui.shell.saving`)."""
        from gui.shell.saving import save_document_to

        path = str(path)
        taken: list[tuple[list[str], int]] = []
        document = self._window.document

        def note(sections: list[str], dropped: int) -> None:
            taken.append((sections, dropped))

        document.sections_taken.connect(note)
        try:
            if not save_document_to(self._window, document, path):
                self._window.log_panel.info(f"not saved: {path} was changed by another program")
                return False
        except (InputError, OSError, ValueError) as exc:
            self._window.log_panel.error(f"cannot save {path}: {exc}")
            QMessageBox.critical(self._window, "Cannot save",
                                 f"The project was not saved.\n\n{exc}")
            return False
        finally:
            document.sections_taken.disconnect(note)
        self._window.document.mark_saved(path)
        self._window.autosave.discard()
        self._window.settings.last_dir = str(Path(path).parent)
        self._window.settings.add_recent_file(path)
        extra = "".join(taken_text(s, n) for s, n in taken)
        self._window.log_panel.info(f"saved {path}{extra}")
        message = f"Saved {path}{extra}"
        self._window.statusBar().showMessage(message, 10000 if taken else 5000)
        return True

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current project (saved, discarded or clean)."""
        if not self._window.document.is_dirty:
            return True
        answer = ask_save_changes(self._window, self._window.document.display_name)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def import_mdp(self, path: "str | list[str] | None" = None, *,
                   background: bool | None = None) -> str | None:
        """Add a model to the project (undoable): a PrivPlan MDP file, PRISM's explicit
        files or a Storm ``.drn`` (:mod:`gui.shell.model_import`); returns the new MDP's
        id, or None (a refused file is shown with the command line's message). Files larger
        than :data:`gui.shell.project_files.BACKGROUND_BYTES` (``background=None``) are read
        in the background with progress and Cancel: None is returned at once and the model
        is added when the read has finished (:data:`MainWindow.file_opened` says so)."""
        from gui.shell.load_cancel import import_in_background
        from gui.shell.model_import import IMPORT_FILTERS, read_model_files
        from gui.shell.project_files import BACKGROUND_BYTES, _file_size

        w = self._window
        if w.is_loading:
            w.statusBar().showMessage(f"Still opening {w._loading}…", 4000)
            return None
        if path is None:
            chosen, _ = QFileDialog.getOpenFileNames(w, "Import Model", w.settings.last_dir,
                                                     IMPORT_FILTERS)
            if not chosen:
                return None
            paths = list(chosen)
        else:
            paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
        paths = [str(p) for p in paths]
        if background is None:
            background = sum(_file_size(p) for p in paths) > BACKGROUND_BYTES
        if background and paths:
            import_in_background(w, paths, lambda imported, model: self._add_imported(
                paths, imported, model))
            return None
        try:
            imported = read_model_files(paths)
        except Exception as exc:  # noqa: BLE001 - any failure: a dialog, the document kept
            w.report_open_error(open_failure_text(exc, paths[0] if paths else ""))
            return None
        return self._add_imported(paths, imported)

    def _add_imported(self, paths: list[str], imported: Any, model: Any = None) -> str:
        """Add a model read by :func:`gui.shell.model_import.read_model_files` (undoable)."""
        from gui.shell.commands import AddMdpCommand

        w = self._window
        if model is None:
            model = imported.editable()
        cmd = AddMdpCommand(w.document, model, text=f"Import MDP “{model.name}”")
        w.document.push(cmd)
        w.document.set_active_stack(PROJECT_STACK)  # Ctrl+Z undoes what was just done
        w.settings.last_dir = str(Path(paths[0]).parent)
        w.log_panel.info(f"imported {', '.join(imported.files)} as {cmd.mdp_id}")
        for warning in imported.warnings:
            w.log_panel.warning(f"import: {warning}")
        if imported.warnings:
            w.statusBar().showMessage(f"Imported “{model.name}” with {len(imported.warnings)} "
                                      "warning(s): see the Log", 8000)
        w.file_opened.emit(paths[0])
        return cmd.mdp_id

    def export_mdp(self, mdp_id: str | None = None, path: str | None = None) -> bool:
        """Write an MDP (default: the active one) as *.mdp.json or *.mdp.npz."""
        from core.mdp import save_mdp

        w = self._window
        if mdp_id is None:
            ws = w.active_workspace()
            if ws is None:
                w.statusBar().showMessage("Open an MDP workspace first.", 4000)
                return False
            mdp_id = ws.mdp_id
        errors = w.document.errors(mdp_id)
        if errors:
            QMessageBox.warning(w, "Cannot export", "The MDP is not valid, so it cannot be "
                                f"written as an MDP file:\n\n{errors[0].message}")
            return False
        if path is None:
            name = safe_file_stem(w.document.model(mdp_id).name or mdp_id)
            path, chosen = QFileDialog.getSaveFileName(
                w, "Export MDP", str(Path(w.settings.last_dir or ".") / (name + ".mdp.json")),
                MDP_FILTERS)
            if not path:
                return False
            if not path.lower().endswith((".json", ".npz")):
                path += ".mdp.npz" if "npz" in chosen else ".mdp.json"
        try:
            save_mdp(w.document.mdp_entry(mdp_id).mdp, path)
        except (InputError, OSError, ValueError) as exc:
            w.log_panel.error(f"cannot export {path}: {exc}")
            QMessageBox.critical(w, "Cannot export", f"The MDP was not written.\n\n{exc}")
            return False
        w.log_panel.info(f"exported {mdp_id} to {path}")
        w.statusBar().showMessage(f"Exported {path}", 5000)
        return True


def taken_text(sections: list[str], dropped: int) -> str:
    """What the status bar adds after a save that took ``sections`` from the file (another
    program changed them) and dropped ``dropped`` undo steps that edited them."""
    from core.project.store import SECTION_NAMES

    names = ", ".join(SECTION_NAMES.get(s, s) for s in sections)
    text = f"; taken from the file (another program changed them): {names}"
    if dropped:
        text += (f" — {dropped} earlier edit{'s' if dropped != 1 else ''} to them can no "
                 "longer be undone")
    return text
