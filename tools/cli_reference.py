"""The command-line reference of the user guide, written from the argparse parsers themselves.

``mkdocs build`` calls :func:`on_files` (a hook named in ``mkdocs.yml``), which adds the page
``guide/cli-reference.md`` generated from ``core.cli.main``'s parser: every subcommand (and
sub-subcommand, e.g. ``accountant dpsgd``, ``audit laplace``) with its usage line, its
description and a table of its options. Nothing of it is written by hand, so the reference
cannot drift from the flags the program accepts.

``python tools/cli_reference.py [OUT.md]`` writes the same page without MkDocs (to stdout
when no file is named).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = "guide/cli-reference.md"

__all__ = ["render", "on_files", "PAGE"]


def _parser() -> argparse.ArgumentParser:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from core.cli import main as cli_main

    build = getattr(cli_main, "build_parser", None) or cli_main._build_parser
    return build()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        if action.choices is not None and action.metavar is None:
            metavar = " {" + ",".join(str(c) for c in action.choices) + "}"
        else:
            metavar = f" {action.metavar or action.dest.upper()}"
    return ", ".join(f"`{opt}{metavar}`" for opt in action.option_strings)


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        try:
            text = text % {**vars(action), "prog": "privplan"}
        except (KeyError, TypeError, ValueError):
            pass
    if action.required and action.option_strings:
        text = "**required.** " + text
    return _cell(text) or "—"


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    rows = [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
            and a.help != argparse.SUPPRESS]
    if not rows:
        return []
    lines = ["| argument | meaning |", "|---|---|"]
    lines += [f"| {_flags(a)} | {_help(a)} |" for a in rows]
    return lines + [""]


def _command(name: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    usage = " ".join(parser.format_usage().split())
    usage = usage.removeprefix("usage: ")
    lines = [f"{'#' * level} `{name}`", "", "```text", usage, "```", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    lines += _options_table(parser)
    for sub_name, sub in _subparsers(parser).items():
        lines += _command(f"{name} {sub_name}", sub, min(level + 1, 6))
    return lines


def render() -> str:
    """The Markdown page: one section per subcommand, in the order the parser lists them."""
    parser = _parser()
    commands = _subparsers(parser)
    lines = [
        "# Command-line reference",
        "",
        "Generated from the program's own argument parsers when this guide was built; "
        "`python app.py COMMAND --help` prints the same. How the commands behave together "
        "(exit codes, `--json`, projects and `--record`) is in "
        "[The command line](command-line.md).",
        "",
        "```text",
        " ".join(parser.format_usage().split()).removeprefix("usage: "),
        "```",
        "",
        "Commands: " + ", ".join(f"[`{c}`](#{c.replace(' ', '-')})" for c in commands) + ".",
        "",
    ]
    for name, sub in commands.items():
        lines += _command(name, sub, 2)
    return "\n".join(lines) + "\n"


def on_files(files, config):  # noqa: ANN001, ANN201 - the MkDocs hook signature
    """MkDocs hook: add the generated reference page to the site's files."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=render()))
    return files


if __name__ == "__main__":
    text = render()
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
