"""PrivPlan entry point: ``python app.py [FILE]`` opens the window; a subcommand runs headless.

Keep the top level light: process-pool workers (spawn) import this module, and the
command line must work without Qt installed.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from core.cli.grammar import canonical_command, looks_like_command
    from core.cli.main import SUBCOMMANDS, run_cli

    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(help_text())
        return 0
    if argv and (canonical_command(argv[0]) in SUBCOMMANDS or argv[0] == "--version"
                 or looks_like_command(argv[0])):  # an unknown command is named as one
        return run_cli(argv)
    from gui.shell.app import run_gui

    return run_gui(argv)


def help_text() -> str:
    """``app.py --help``: the window's usage and options, then the headless commands."""
    from core.cli.main import build_parser

    # the top-level help lists each command's name and help line, the same text as the
    # full parser's, without importing every command's module
    commands = build_parser(full=False).format_help()
    try:
        from gui.shell.app import build_parser as window_parser  # Qt-free until run_gui
    except ImportError:  # a core-only install: no window
        return commands
    window = window_parser().format_help()
    return (window + "\nHeadless commands: `privplan COMMAND …` (each with --help and an "
            "example).\n\n" + commands)


if __name__ == "__main__":
    # A frozen (PyInstaller) app starts its worker processes by running itself: this lets
    # such a child run its task and exit instead of opening a second window. Not frozen,
    # freeze_support does nothing, and importing multiprocessing would cost every command
    # about a tenth of numpy's import.
    if getattr(sys, "frozen", False):
        import multiprocessing

        multiprocessing.freeze_support()
    sys.exit(main())
