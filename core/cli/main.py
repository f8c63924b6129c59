"""The headless command line (``python app.py SUBCOMMAND …`` or ``privplan SUBCOMMAND …``).

Contract (``docs/formats-and-cli.md`` §5): ``--json`` prints exactly one JSON object on stdout;
exit 0 on success, 2 on bad input with one line on stderr naming the file, field or flag,
3 when the run itself failed (a worker or the scheduler died, a full disk: one line naming
what is missing);
randomised commands take ``--seed`` (experiment mode) and otherwise draw from a secure
source (release mode) and say so; progress goes to stderr only when it is a terminal.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from core import __version__
from core.cli.advising import (
    add_advise_bench_parser,
    add_advise_parser,
    cmd_advise,
    cmd_advise_bench,
)
from core.cli.agents import add_comarl_parser, add_drl_parser, cmd_comarl, cmd_drl
from core.cli.audit import add_audit_parser, cmd_audit
from core.cli.common import PROG, Parser, UsageError, add_json_flag
from core.cli.design import add_design_parser, cmd_design
from core.cli.grammar import (
    COMMAND_ALIASES,
    canonical_command,
    finish_parser,
    resolve_record,
    suggest_command,
    take_notes,
    typed_flag,
    usage_field,
    wants_json,
    write_json_error,
)
from core.cli.guard import check_flags, one_line
from core.cli.interop import add_interop_parsers, cmd_export, cmd_import
from core.cli.logistics import add_plan_bench_parser, add_plan_parser, cmd_plan, cmd_plan_bench
from core.cli.mdp import add_mdp_parsers, cmd_bounds, cmd_privatize, cmd_sweep
from core.cli.modelprivacy import add_mia_parser, cmd_mia
from core.cli.plan import add_budget_parser, cmd_budget
from core.cli.privacy import (
    add_accountant_parser,
    add_dirichlet_parser,
    cmd_accountant,
    cmd_dirichlet,
)
from core.cli.report import add_report_parser, cmd_report
from core.cli.sharing import add_share_parser, cmd_share
from core.cli.synthesis import add_synthesise_parser, cmd_synthesise
from core.common.errors import InputError, RunFailure, WriteFailure

__all__ = ["SUBCOMMANDS", "build_parser", "run_cli", "main"]

SUBCOMMANDS: dict[str, Callable[[argparse.Namespace, TextIO, TextIO], int]] = {
    "dirichlet": cmd_dirichlet,
    "privatize": cmd_privatize,
    "bounds": cmd_bounds,
    "sweep": cmd_sweep,
    "synthesise": cmd_synthesise,
    "plan": cmd_plan,
    "plan-bench": cmd_plan_bench,
    "advise": cmd_advise,
    "audit": cmd_audit,
    "advise-bench": cmd_advise_bench,
    "report": cmd_report,
    "share": cmd_share,
    "accountant": cmd_accountant,
    "mia": cmd_mia,
    "drl": cmd_drl,
    "comarl": cmd_comarl,
    "design": cmd_design,
    "budget": cmd_budget,
    "import": cmd_import,
    "export": cmd_export,
}


def _build_parser() -> Parser:
    p = Parser(prog=PROG, description="PrivPlan headless commands. Without a subcommand, "
                "`python app.py [FILE]` opens the window (`python app.py --help` lists its "
                "options). `privplan COMMAND --help` explains a command, with an example.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser)

    common = add_json_flag
    add_dirichlet_parser(sub, common)
    add_mdp_parsers(sub, common)
    add_synthesise_parser(sub, common)
    add_plan_parser(sub, common)
    add_plan_bench_parser(sub, common)
    add_advise_parser(sub, common)
    add_audit_parser(sub, common)
    add_share_parser(sub, common)
    add_accountant_parser(sub, common)
    add_mia_parser(sub, common)
    add_drl_parser(sub, common)
    add_comarl_parser(sub, common)
    add_design_parser(sub, common)
    add_budget_parser(sub, common)
    add_interop_parsers(sub, common)
    add_advise_bench_parser(sub, common)
    add_report_parser(sub, common)
    finish_parser(p, PROG)
    return p


def build_parser() -> Parser:
    """The ``privplan`` parser with every subcommand (for help screens and tests).

    Returns
    -------
    Parser
    """
    return _build_parser()


def run_cli(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one subcommand; returns the exit code (never raises for user errors).

    Parameters
    ----------
    argv : sequence of str
        The arguments after the program name.
    out, err : TextIO
        Standard output and standard error.

    Returns
    -------
    int
        0 on success, 2 on bad input (one line on ``err``), 3 when the run failed for a
        reason outside its input (a worker or the scheduler died, a full disk: one line
        naming what is missing), 1 on an internal error. With ``--json`` every failure
        also writes ``{"error": {"exit", "message", "field"}}`` on ``out``.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    as_json = wants_json(argv)
    parsed = _parse(list(argv), out, err, as_json)
    if isinstance(parsed, int):
        return parsed

    def fail(code: int, message: str, field: str | None = None, file: str | None = None,
             extra: dict[str, object] | None = None) -> int:
        err.write(one_line(f"{PROG} {parsed.command}: {message}") + "\n")
        if as_json:
            problem = message
            prefix = ": ".join(p for p in (file, field) if p)
            if prefix and message.startswith(prefix + ": "):
                problem = message[len(prefix) + 2:]
            write_json_error(out, code, one_line(problem), field, file, extra)
        return code

    return _run(parsed, out, err, fail)


def _parse(argv: list[str], out: TextIO, err: TextIO, as_json: bool
           ) -> argparse.Namespace | int:
    """The parsed command line, or the exit code when there is nothing to run (help,
    version, an unknown command, a usage error: one line, and the JSON error object)."""
    if argv and not argv[0].startswith("-") and canonical_command(argv[0]) not in SUBCOMMANDS:
        near = suggest_command(argv[0], [*SUBCOMMANDS, *COMMAND_ALIASES])
        message = (f"unknown command {argv[0]!r}"
                   + (f" (did you mean {near!r}?)" if near else "")
                   + f"; `{PROG} --help` lists the commands")
        err.write(one_line(f"{PROG}: {message}") + "\n")
        if as_json:
            write_json_error(out, 2, one_line(message), "COMMAND")
        return 2
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        err.write(one_line(str(exc)) + "\n")
        if as_json:
            text = str(exc)
            message = text.split(": ", 1)[1] if text.startswith(PROG) and ": " in text else text
            write_json_error(out, 2, one_line(message), usage_field(message))
        return 2
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return 0
    args.command = canonical_command(args.command)
    return args


def _run(args: argparse.Namespace, out: TextIO, err: TextIO,
         fail: Callable[..., int]) -> int:
    """Run the parsed command; every failure goes through ``fail`` (one line, its code)."""
    try:
        resolve_record(args)
        notes = take_notes(args)
        check_flags(args)
        code = SUBCOMMANDS[args.command](args, out, err)
        for line in notes:  # after the run, so that an error stays one line
            err.write(line + "\n")
        return code
    except InputError as exc:
        partial = getattr(exc, "partial", None)  # a result that explains the refusal
        field = typed_flag(args, exc.field)
        if field != exc.field:
            exc = InputError(exc.problem, field=field, file=exc.file)
        return fail(2, str(exc), exc.field, exc.file,
                    extra=partial if isinstance(partial, dict) else None)
    except RunFailure as exc:  # the run failed (a worker died): exit 3
        partial = getattr(exc, "partial", None)
        return fail(3, str(exc), extra=partial if isinstance(partial, dict) else None)
    except WriteFailure as exc:  # a full disk, a quota
        return fail(3, str(exc), file=exc.filename)
    except MemoryError:  # the estimates fitted, the machine did not: a runtime failure
        return fail(3, "out of memory: the machine refused memory the checks found free "
                       "(other programs are using it); nothing was written")
    except OSError as exc:
        if exc.errno in _RESOURCE_ERRNOS:  # a full disk, a quota, an I/O error
            return fail(3, f"{exc.strerror or exc}"
                           + (f": {exc.filename}" if exc.filename else ""))
        if os.environ.get("PRIVPLAN_DEBUG"):
            raise
        return fail(1, f"internal error: {type(exc).__name__}: {exc} (set PRIVPLAN_DEBUG=1 "
                       "for a traceback)")
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one line, no traceback
        if os.environ.get("PRIVPLAN_DEBUG"):
            raise
        return fail(1, f"internal error: {type(exc).__name__}: {exc} (set PRIVPLAN_DEBUG=1 "
                       "for a traceback)")


_RESOURCE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.ENOMEM, errno.EFBIG}


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))


if __name__ == "__main__":  # python -m core.cli.main …
    main()
