"""Helpers for the ``if __name__ == "__main__": preview()`` blocks of panels and editors.

Each module's ``preview(exec_=True)`` builds its widget on the built-in example project
and, with ``exec_=False``, returns it without entering the event loop (the previews test).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from PySide6.QtWidgets import QApplication, QWidget

from gui.shell.document import ProjectDocument

__all__ = ["ensure_app", "example_document", "example_document_with_ledger", "run_preview",
           "settle", "save_screenshot", "wait_for", "open_tool_window"]


def ensure_app() -> QApplication:
    """The running QApplication, or a new one configured like :func:`gui.shell.app.run_gui`."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setOrganizationName("PrivPlan")
        app.setApplicationName("PrivPlan")
    import pyqtgraph as pg

    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    return app  # type: ignore[return-value]


def example_document() -> ProjectDocument:
    """The built-in example project (four startups + Example 2) in a fresh document."""
    from core.project import load_project
    from gui.shell.resources import BUILTIN_PROJECT, asset_path

    path = asset_path(*BUILTIN_PROJECT)
    return ProjectDocument(load_project(path), path)


def open_tool_window(key: str, size: str, *, hide_inspector: bool = True
                     ) -> tuple[QApplication, Any, Any]:
    """The main window on the built-in example, resized to ``size`` (``"WxH"``), shown, with
    the tool tab ``key`` open — what every workspace's screenshot tool starts from.

    Parameters
    ----------
    key : str
        The tool (``"audit"``, ``"sharing"``, …).
    size : str
        Window size ``"WxH"``.
    hide_inspector : bool
        Hide the Inspector dock (empty for tool tabs: the run parameters get its height).

    Returns
    -------
    (QApplication, MainWindow, QWidget)
        The application, the window and the tool's panel.
    """
    from gui.shell.main_window import MainWindow

    app = ensure_app()
    window = MainWindow(example_document(), use_settings=False)
    w, h = (int(v) for v in size.lower().split("x"))
    window.resize(w, h)
    window.show()
    app.processEvents()
    panel = window.open_tool(key)
    inspector = getattr(window, "inspector_dock", None)
    if hide_inspector and inspector is not None:
        inspector.hide()
    return app, window, panel


def run_preview(build: Callable[[], QWidget], *, exec_: bool = True, title: str = "",
                size: tuple[int, int] = (900, 600)) -> QWidget:
    app = ensure_app()
    widget = build()
    widget.setWindowTitle(f"{title} — PrivPlan preview" if title else "PrivPlan preview")
    widget.resize(*size)
    if exec_:
        widget.show()
        app.exec()
    return widget


def settle(app: QApplication, ms: int) -> None:
    """Let queued paints and layouts run for ``ms`` milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.processEvents()


def wait_for(runner: Any, timeout_s: float) -> None:
    """Run the event loop until ``runner`` (a started :class:`~gui.shell.workers.TaskRunner`)
    finishes or ``timeout_s`` seconds pass, then deliver its queued results (the screenshot
    tools wait on a workspace's run this way)."""
    from PySide6.QtCore import QEventLoop, QTimer

    app = ensure_app()
    loop = QEventLoop()
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    runner.finished.connect(loop.quit)
    timer.start(int(timeout_s * 1000))
    if runner.is_running:
        loop.exec()
    timer.stop()
    runner.finished.disconnect(loop.quit)
    app.processEvents()


def save_screenshot(app: QApplication, window: QWidget, out: str, *, failure: str | None,
                    what: str) -> int:
    """Grab ``window`` into ``out``, close it, and return the screenshot tool's exit code.

    ``failure`` is None when the pictured run finished, else the message printed (the
    picture is saved anyway and the exit code is 1). ``what`` names the tool in messages.
    """
    ok = window.grab().save(out)
    window.discard_and_close()  # type: ignore[attr-defined]
    window.deleteLater()
    app.processEvents()
    if not ok:
        print(f"{what} screenshot: cannot write {out}", file=sys.stderr)
        return 1
    if failure is not None:
        print(f"{what} screenshot: {failure}; picture saved anyway", file=sys.stderr)
        return 1
    return 0


def example_document_with_ledger() -> ProjectDocument:
    """The built-in example with a few ledger entries and budgets (previews of the ledger
    and the export dialog)."""
    from core.mdp import four_startups, mdp_privacy, record_privatization
    from core.privacy import PrivacyLedger, budgets_to_dict

    doc = example_document()
    led = PrivacyLedger()
    m = four_startups()
    for k in (10.0, 100.0, 1000.0):
        record_privatization(led, mdp_id="four-startups", privacy=mdp_privacy(m, k), k=k,
                             mode="experiment", seed=7, source="run-1", count=50)
    record_privatization(led, mdp_id="four-startups", privacy=mdp_privacy(m, 100.0), k=100.0,
                         mode="release", seed=None, source="release-1")
    for _ in range(3):
        led.record(dataset="agent:b", mechanism="laplace", epsilon=0.25,
                   adjacency="node (one base and its routes)",
                   released="1K degree histogram of agent b's local map", mode="release",
                   source="plan-1")
    led.set_budget("mdp:four-startups", 100.0, 0.1)
    led.set_budget("agent:b", 1.0, 0.0)
    doc.project.ledger, doc.project.budgets = led.entries, budgets_to_dict(led.budgets)
    return doc
