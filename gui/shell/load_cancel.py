"""Large files open and import in the background, with progress and a Cancel that stops them.

The window reads a large file in a worker (:meth:`gui.shell.main_window.MainWindow.open_path`
for File ▸ Open, :func:`import_in_background` for File ▸ Import Model… and a dropped PRISM or
Storm file) and disables the project while it does. The readers report how far they are
(:func:`core.mdp.load_mdp`, :func:`core.mdp.interop.import_model`): the bar and the status line
show it. Cancel (Esc, the toolbar's Cancel) gives the window back at once, with the document
as it was; the reader stops at its next progress call (every few hundred thousand entries or
64 MB, well within 2 s) and whatever it had read is dropped
(:class:`gui.shell.workers.TaskRunner` never delivers a cancelled result). Installed on every
main window as a window extension (:func:`install_load_cancel`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gui.shell.tools import register_window_extension

__all__ = ["install_load_cancel", "cancel_loading", "start_loading", "import_in_background"]


def cancel_loading(window: Any) -> bool:
    """Stop the file being read (if any); True if there was one."""
    path = window._loading
    if path is None:
        return False
    window._loader.cancel()
    window._loading = None
    window._loader_finish = None
    window._set_loading(False)
    window.statusBar().showMessage(f"Stopped opening {path}; the project is unchanged.", 8000)
    window.log_panel.info(f"opening {path} cancelled")
    return True


def start_loading(window: Any, label: str, fn: Callable[..., Any], *args: Any,
                  finish: Callable[[Any], object]) -> None:
    """Run ``fn(*args, progress=…)`` in the window's loader, the project disabled meanwhile;
    ``finish(result)`` runs on the UI thread when it succeeds (a failure is shown as a file
    that cannot be opened, naming ``label``)."""
    window._loading = label
    window._loader_finish = finish
    window._set_loading(True)
    window._loader.start(fn, *args)


def _show_progress(window: Any, fraction: float, message: str) -> None:
    if window._loading is None:
        return
    bar = window.progress_bar
    if bar.maximum() == 0:  # from "busy" to a bar that moves
        bar.setRange(0, 1000)
    bar.setValue(int(round(1000 * fraction)))
    text = f" — {message}" if message else ""
    window.statusBar().showMessage(f"Opening {window._loading}: {100 * fraction:.0f} %{text}")


def _import_worker(paths: list[str], *, progress: Any = None) -> tuple[Any, Any]:
    """Read the files and build the editable model (both off the UI thread)."""
    from core.common.progress import no_progress, sub_progress
    from gui.shell.model_import import read_model_files

    report = progress if progress is not None else no_progress
    imported = read_model_files(paths, progress=sub_progress(report, 0.0, 0.9))
    report(0.9, "building the model")
    model = imported.editable()
    return imported, model


def import_in_background(window: Any, paths: list[str],
                         finish: Callable[[Any, Any], object]) -> None:
    """Import ``paths`` in the loader; ``finish(imported, model)`` adds it on the UI thread."""
    start_loading(window, paths[0], _import_worker, paths,
                  finish=lambda result: finish(*result))


def install_load_cancel(window: Any) -> None:
    """Enable Cancel while a file is read, let it stop the read, and show its progress."""
    window._loader.started.connect(lambda: window.cancel_action.setEnabled(True))
    window._loader.progress_changed.connect(lambda f, m: _show_progress(window, f, m))
    window.cancel_action.triggered.connect(lambda: cancel_loading(window))


register_window_extension(install_load_cancel)
