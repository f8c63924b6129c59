"""PrivPlan entry point: ``python app.py [FILE]`` opens the window; a subcommand runs headless.

Keep the top level light: process-pool workers (spawn) import this module, and the
command line must work without Qt installed.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from core.cli.main import SUBCOMMANDS, run_cli

    if argv and (argv[0] in SUBCOMMANDS or argv[0] in ("-h", "--help", "--version")):
        if argv[0] == "report" and _has_qt():
            from gui.report.export import install_cli_pdf  # PDF goes through Qt (lazily started)

            install_cli_pdf()
        return run_cli(argv)
    from gui.shell.app import run_gui

    return run_gui(argv)


def _has_qt() -> bool:
    import importlib.util

    return importlib.util.find_spec("PySide6") is not None


if __name__ == "__main__":
    # A frozen (PyInstaller) app starts its worker processes by running itself: this lets
    # such a child run its task and exit instead of opening a second window (a no-op
    # when not frozen).
    import multiprocessing

    multiprocessing.freeze_support()
    sys.exit(main())
