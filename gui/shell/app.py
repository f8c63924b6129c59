"""Start the PrivPlan window: ``python app.py [FILE] [--calculator] [--tool KEY]
[--screenshot OUT.png] [--size WxH]``.

Without FILE the built-in example project opens. ``--calculator`` also opens the Privacy
Calculator tab on the Figure 1.1 left configuration, with the three Figure 1.1 curves
overlaid in its ε–δ plot, and makes it the active tab.
``--tool KEY`` opens the tool tab KEY (``plan``, ``audit``, …); with ``--screenshot`` the
picture is of that tab once its work has settled.
``--screenshot OUT.png`` shows the window and then, for an MDP workspace, runs its
analysis with the default parameters as a seeded experiment (``--seed``, default 7) —
the privacy sweep, then "Synthesise & bound" so that π̄ and its values are on the drawing —
or, with ``--calculator``, waits for the calculator's plots; it saves a picture of the
window and exits; ``--size WxH`` sets the window size of that picture (default: the size
the window opens at on this screen, :mod:`gui.shell.screen_fit`).
Without ``--screenshot``, autosaved copies left by a crash are offered
for recovery once the window is up.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["run_gui", "build_parser", "parse_size"]

SCREENSHOT_TIMEOUT_S = 300


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="privplan",
        description="PrivPlan: privacy-preserving policy synthesis for MDPs (desktop app).")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="project (*.privplan.json) or MDP (*.mdp.json, *.mdp.npz) to open; "
                        "default: the built-in examples")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="run the analysis of the active MDP, save a PNG of the window, exit")
    p.add_argument("--seed", type=int, default=7,
                   help="seed of the --screenshot run (a seeded experiment; default 7)")
    p.add_argument("--mdp", metavar="ID", help="id of the MDP whose workspace is active")
    p.add_argument("--calculator", action="store_true",
                   help="open the Privacy Calculator on the Figure 1.1 left configuration "
                        "(with --screenshot: picture the calculator instead of a sweep)")
    p.add_argument("--tool", metavar="KEY",
                   help="open the tool tab KEY (plan, audit, ledger, …) and make it active "
                        "(with --screenshot: picture it once its work has settled)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes for the --screenshot run (default: min(2, CPUs))")
    p.add_argument("--size", metavar="WxH", default=None,
                   help="window size of the --screenshot picture in pixels, e.g. 1366x768 "
                        "(default: the size the window opens at on this screen)")
    return p


def parse_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` -> (1366, 768); ValueError naming the problem otherwise."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"must be WIDTHxHEIGHT in pixels, e.g. 1366x768; got {text!r}")
    w, h = (int(p) for p in parts)
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise ValueError(f"width and height must be 200..10000 pixels; got {text!r}")
    return w, h


class _Refused(Exception):
    """A command-line problem: run_gui prints ``privplan: <message>`` and exits 2."""


def run_gui(argv: list[str] | None = None) -> int:
    """Open the main window (or take a screenshot); returns the exit code."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))

    import pyqtgraph as pg
    import PySide6  # noqa: F401  (before pyqtgraph, so pyqtgraph binds to PySide6)

    from gui.shell.resources import BUILTIN_PROJECT, asset_path

    path = Path(args.file) if args.file else asset_path(*BUILTIN_PROJECT)
    try:
        project, is_project = _read_project(path)
        size = _checked_options(args, project)
    except _Refused as exc:
        print(f"privplan: {exc}", file=sys.stderr)
        return 2

    from gui.shell.compat import binding_problem

    problem = binding_problem()
    if problem:
        print(f"privplan: warning: {problem}", file=sys.stderr)

    app = _application()
    pg.setConfigOptions(background="w", foreground="k", antialias=True)

    from gui.shell.document import ProjectDocument
    from gui.shell.main_window import MainWindow

    document = ProjectDocument(project, path if is_project else None)
    # a screenshot must not depend on (or change) the user's saved window layout
    window = MainWindow(document, use_settings=not args.screenshot)
    tool = _open_requested(window, args)
    if args.screenshot:
        return _requested_screenshot(app, window, tool, args, size)
    window.show()
    if args.file:
        window.add_recent_file(str(path))
    window.offer_recovery()
    return int(app.exec())


def _read_project(path: Path) -> tuple[Any, bool]:
    """The project in ``path`` and whether it is a project file (not an MDP); _Refused when
    it cannot be read."""
    from core.common import InputError
    from gui.shell.main_window import read_project_file

    try:
        return read_project_file(path)
    except InputError as exc:
        raise _Refused(str(exc)) from exc
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _Refused(f"{path}: cannot read this file ({exc})") from exc


def _checked_options(args: argparse.Namespace, project: Any) -> tuple[int, int] | None:
    """Check --mdp, --workers, --size and --tool (in that order) against the project; the
    window size the --size flag asks for; _Refused naming the first bad flag."""
    if args.mdp is not None and args.mdp not in {e.id for e in project.mdps}:
        known = ", ".join(e.id for e in project.mdps) or "none"
        raise _Refused(f"--mdp: no MDP with id {args.mdp!r} (known: {known})")
    if args.workers is not None and args.workers < 1:
        raise _Refused("--workers: must be >= 1")
    size: tuple[int, int] | None = None
    if args.size is not None:
        try:
            size = parse_size(args.size)
        except ValueError as exc:
            raise _Refused(f"--size: {exc}") from exc
    if args.tool is not None:
        from gui.shell.tools import load_tools

        tools = load_tools()
        if args.tool not in tools:
            raise _Refused(f"--tool: no tool {args.tool!r} (known: {', '.join(tools)})")
    return size


def _application() -> Any:
    """The QApplication (made once), named for QSettings."""
    from PySide6.QtWidgets import QApplication

    from core import __version__

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setOrganizationName("PrivPlan")
    app.setApplicationName("PrivPlan")
    app.setApplicationVersion(__version__)
    return app


def _open_requested(window: Any, args: argparse.Namespace) -> Any:
    """Open the workspace, calculator and tool tab the flags ask for; the tool's panel or
    None."""
    if args.mdp is not None:
        window.open_workspace(args.mdp)
    if args.calculator:
        calc = window.open_calculator()
        calc.apply_preset("left")
        calc.set_compare(True)  # the three Figure 1.1 configurations in the ε–δ plot
    return window.open_tool(args.tool) if args.tool is not None else None


def _requested_screenshot(app: Any, window: Any, tool: Any, args: argparse.Namespace,
                          size: tuple[int, int] | None) -> int:
    """The picture --screenshot asks for: of the tool tab, the calculator or an analysis."""
    if tool is not None:
        return _tool_screenshot(app, window, tool, Path(args.screenshot), size=size)
    if args.calculator:
        return _calculator_screenshot(app, window, Path(args.screenshot), size=size)
    return _screenshot(app, window, Path(args.screenshot), seed=args.seed,
                       workers=args.workers, size=size)


def _screenshot(app, window, out: Path, *, seed: int, workers: int | None,
                size: tuple[int, int] | None = None) -> int:
    from PySide6.QtCore import QEventLoop, QTimer

    if size is not None:
        window.resize(*size)
    window.show()
    app.processEvents()
    ws = window.active_workspace()
    status = "no-run"
    if ws is not None:
        ws.analysis_panel.set_parameters(seed=seed, seeded=True, workers=workers)
        loop = QEventLoop()
        outcome: dict[str, object] = {}
        runner = ws.runner
        runner.succeeded.connect(lambda r: outcome.setdefault("status", "ok"))
        runner.failed.connect(lambda e: outcome.setdefault("status", e))
        runner.cancelled.connect(lambda: outcome.setdefault("status", "cancelled"))
        runner.finished.connect(loop.quit)
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        timer.start(SCREENSHOT_TIMEOUT_S * 1000)
        if window.run_analysis():
            if runner.is_running:
                loop.exec()
            status = outcome.get("status", "timeout")  # type: ignore[assignment]
            if status == "ok":  # then π̄ and its bounds on the drawing
                outcome.clear()
                if window.run_bounds():
                    if runner.is_running:
                        loop.exec()
                    status = outcome.get("status", "timeout")  # type: ignore[assignment]
            timer.stop()
        else:
            status = "not started"
    # let the plots and the drawing settle, then grab
    for _ in range(3):
        app.processEvents()
    settle = QEventLoop()
    QTimer.singleShot(300, settle.quit)
    settle.exec()
    app.processEvents()
    ok = window.grab().save(str(out))
    window.discard_and_close()
    window.deleteLater()
    app.processEvents()
    if not ok:
        print(f"privplan: --screenshot: cannot write {out}", file=sys.stderr)
        return 1
    if status not in ("ok", "no-run"):
        print(f"privplan: --screenshot: the analysis did not finish ({status}); the picture "
              f"was saved anyway to {out}", file=sys.stderr)
        return 1
    return 0


def _tool_screenshot(app, window, tool, out: Path, *,
                     size: tuple[int, int] | None = None) -> int:
    """Show the window on the tool tab, wait until its work has settled (not running for
    half a second, after its first second), save a PNG."""
    import time

    from gui.shell.preview import save_screenshot, settle

    if size is not None:
        window.resize(*size)
    window.show()
    start = time.monotonic()
    idle_since: float | None = None
    while time.monotonic() - start < SCREENSHOT_TIMEOUT_S:
        settle(app, 50)
        now = time.monotonic()
        idle_since = None if tool.is_running else (idle_since or now)
        if now - start > 1.0 and idle_since is not None and now - idle_since > 0.5:
            break
    settle(app, 300)
    return save_screenshot(app, window, str(out), what="--screenshot",
                           failure="the tool did not settle" if tool.is_running else None)


def _calculator_screenshot(app, window, out: Path, *,
                           size: tuple[int, int] | None = None) -> int:
    """Show the window, wait until the calculator has drawn every plot, save a PNG."""
    import time

    from PySide6.QtCore import QEventLoop, QTimer

    if size is not None:
        window.resize(*size)
    window.show()
    calc = window.calculator
    deadline = time.monotonic() + SCREENSHOT_TIMEOUT_S
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(25)

    def check() -> None:
        if not calc.is_busy or time.monotonic() > deadline:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    loop.exec()
    poll.stop()
    done = not calc.is_busy and calc.result is not None and calc.k_result is not None
    settle = QEventLoop()
    QTimer.singleShot(300, settle.quit)
    settle.exec()
    app.processEvents()
    ok = window.grab().save(str(out))
    window.discard_and_close()
    window.deleteLater()
    app.processEvents()
    if not ok:
        print(f"privplan: --screenshot: cannot write {out}", file=sys.stderr)
        return 1
    if not done:
        print(f"privplan: --screenshot: the calculator did not finish in "
              f"{SCREENSHOT_TIMEOUT_S} s; the picture was saved anyway to {out}",
              file=sys.stderr)
        return 1
    return 0
