"""The window's file actions on models: File ▸ Import MDP… and File ▸ Export MDP….

Functions of the window (``window.document``, ``window.settings``, ``window.log_panel``, its
status bar) so that :class:`gui.shell.main_window.MainWindow` keeps only the wiring; a failure
is a dialog and the document is untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMessageBox

from core.common import InputError
from gui.shell.document import PROJECT_STACK
from gui.shell.widgets import open_failure_text

__all__ = ["MDP_FILTERS", "safe_file_stem", "import_mdp", "export_mdp"]

MDP_FILTERS = "MDP JSON (*.mdp.json);;MDP arrays (*.mdp.npz)"


def safe_file_stem(name: str) -> str:
    """``name`` as a file name stem (letters, digits, - and _; "project" when empty)."""
    stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in name).strip()
    return stem.replace(" ", "-") or "project"


def import_mdp(window: Any, path: str | None = None) -> str | None:
    """Add an MDP file to the project (undoable); returns the new MDP's id."""
    from core.mdp import MAX_LAYOUT_STATES, MdpModel, fill_missing_positions, load_mdp
    from gui.shell.commands import AddMdpCommand

    if path is None:
        path, _ = QFileDialog.getOpenFileName(window, "Import MDP", window.settings.last_dir,
                                              "MDP files (*.mdp.json *.mdp.npz *.json "
                                              "*.npz);;All files (*)")
        if not path:
            return None
    try:
        mdp = load_mdp(path)
    except Exception as exc:  # noqa: BLE001 - any failure: a dialog, the document kept
        window.report_open_error(open_failure_text(exc, path))
        return None
    model = MdpModel.from_mdp(mdp)
    if not model.name:
        model.name = Path(path).name.split(".")[0]
    if model.n_states <= MAX_LAYOUT_STATES:
        model.positions = fill_missing_positions(model)
    cmd = AddMdpCommand(window.document, model, text=f"Import MDP “{model.name}”")
    window.document.push(cmd)
    window.document.set_active_stack(PROJECT_STACK)  # Ctrl+Z undoes what was just done
    window.settings.last_dir = str(Path(path).parent)
    window.log_panel.info(f"imported {path} as {cmd.mdp_id}")
    return cmd.mdp_id


def export_mdp(window: Any, mdp_id: str | None = None, path: str | None = None) -> bool:
    """Write an MDP (default: the active one) as *.mdp.json or *.mdp.npz."""
    from core.mdp import save_mdp

    if mdp_id is None:
        ws = window.active_workspace()
        if ws is None:
            window.statusBar().showMessage("Open an MDP workspace first.", 4000)
            return False
        mdp_id = ws.mdp_id
    errors = window.document.errors(mdp_id)
    if errors:
        QMessageBox.warning(window, "Cannot export", "The MDP is not valid, so it cannot be "
                            f"written as an MDP file:\n\n{errors[0].message}")
        return False
    if path is None:
        name = safe_file_stem(window.document.model(mdp_id).name or mdp_id)
        path, chosen = QFileDialog.getSaveFileName(
            window, "Export MDP", str(Path(window.settings.last_dir or ".") /
                                    (name + ".mdp.json")), MDP_FILTERS)
        if not path:
            return False
        if not path.lower().endswith((".json", ".npz")):
            path += ".mdp.npz" if "npz" in chosen else ".mdp.json"
    try:
        save_mdp(window.document.mdp_entry(mdp_id).mdp, path)
    except (InputError, OSError, ValueError) as exc:
        window.log_panel.error(f"cannot export {path}: {exc}")
        QMessageBox.critical(window, "Cannot export", f"The MDP was not written.\n\n{exc}")
        return False
    window.log_panel.info(f"exported {mdp_id} to {path}")
    window.statusBar().showMessage(f"Exported {path}", 5000)
    return True
