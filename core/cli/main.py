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
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from core import __version__
from core.cli.common import PROG, Parser, UsageError, add_json_flag
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
from core.common.errors import InputError, RunFailure, WriteFailure

__all__ = ["COMMANDS", "SUBCOMMANDS", "build_parser", "run_cli", "main"]

Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]

#: Every subcommand, in the order ``--help`` lists them: (module, the function of that module
#: adding its parser(s), its handler, the one-line help ``--help`` shows). A command's module
#: is imported only when that command runs, so a command pays only for what it uses (and
#: ``--version``/``--help`` for none). An adder may add several commands (``add_mdp_parsers``
#: adds privatize, bounds and sweep): list each of them with the same adder. To add a command,
#: add its line here.
COMMANDS: dict[str, tuple[str, str, str, str]] = {
    "dirichlet": ("core.cli.privacy", "add_dirichlet_parser", "cmd_dirichlet",
                  "(epsilon, delta) of the Dirichlet mechanism"),
    "privatize": ("core.cli.mdp", "add_mdp_parsers", "cmd_privatize",
                  "Algorithm 1 step 1: Dirichlet-privatise every row"),
    "bounds": ("core.cli.mdp", "add_mdp_parsers", "cmd_bounds",
               "policy on the private model and cost-of-privacy bounds"),
    "sweep": ("core.cli.mdp", "add_mdp_parsers", "cmd_sweep",
              "the Figure 2.1 experiment over a list of k"),
    "synthesise": ("core.cli.synthesis", "add_synthesise_parser", "cmd_synthesise",
                   "an optimal (or softmax) policy of an MDP: induction, the occupancy-measure "
                   "LP, or entropy-regularised"),
    "plan": ("core.cli.logistics", "add_plan_parser", "cmd_plan",
             "one DP multi-agent planning task on a map"),
    "plan-bench": ("core.cli.logistics", "add_plan_bench_parser", "cmd_plan_bench",
                   "logistics benchmarks B1-B5 (spec 8.3)"),
    "advise": ("core.cli.advising", "add_advise_parser", "cmd_advise",
               "DP advising experiment (thesis Ch. 3)"),
    "audit": ("core.cli.audit", "add_audit_parser", "cmd_audit",
              "empirical privacy audit of a mechanism (epsilon lower bound from a "
              "distinguishing attack)"),
    "share": ("core.cli.sharing", "add_share_parser", "cmd_share",
              "private policy sharing: a teacher kickstarts students through the Dirichlet "
              "mechanism ([KS])"),
    "accountant": ("core.cli.privacy", "add_accountant_parser", "cmd_accountant",
                   "privacy accountants (dpsgd: DP-SGD on dp-accounting)"),
    "mia": ("core.cli.modelprivacy", "add_mia_parser", "cmd_mia",
            "membership-inference study of a trained model, with DP-SGD, GPM or the "
            "one-parameter defense"),
    "drl": ("core.cli.agents", "add_drl_parser", "cmd_drl",
            "DP-DRL: a grid-navigation agent, optional observation obfuscation, and the "
            "map-recovery attack"),
    "comarl": ("core.cli.agents", "add_comarl_parser", "cmd_comarl",
               "privacy-engineered cooperative MARL: tabular PE-VDN with secure summation, "
               "optional DP-SGD on the tables"),
    "design": ("core.cli.design", "add_design_parser", "cmd_design",
               "the privacy designer: (k, eta) meeting a target (epsilon, delta) at the least "
               "cost of privacy"),
    "budget": ("core.cli.plan", "add_budget_parser", "cmd_budget",
               "a privacy plan: budget a whole study before the first release"),
    "import": ("core.cli.interop", "add_interop_parsers", "cmd_import",
               "a PRISM (.tra .lab .sta .srew .trew) or Storm (.drn) model into a PrivPlan "
               "model file"),
    "export": ("core.cli.interop", "add_interop_parsers", "cmd_export",
               "a model as PRISM or DRN files, or the robust set of a private model as an "
               "interval MDP"),
    "advise-bench": ("core.cli.advising", "add_advise_bench_parser", "cmd_advise_bench",
                     "Experiments 1-3 of thesis Ch. 3 over many seeds (CSV + JSON)"),
    "report": ("core.cli.report", "add_report_parser", "cmd_report",
               "rebuild the report of a project (PDF or HTML)"),
}


class _Handlers(dict[str, Handler]):
    """Command name -> handler, importing a command's module the first time it is asked for
    (``name in SUBCOMMANDS`` imports nothing)."""

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in COMMANDS

    def __missing__(self, name: str) -> Handler:
        module, _, handler, _ = COMMANDS[name]
        fn: Handler = getattr(importlib.import_module(module), handler)
        self[name] = fn
        return fn


SUBCOMMANDS: dict[str, Handler] = _Handlers()


def _one_line(text: str) -> str:
    """:func:`core.cli.guard.one_line`, imported when a line is written (the guard loads
    numpy, which ``--version`` and ``--help`` do not need)."""
    from core.cli.guard import one_line

    return one_line(text)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option; an alias such
    as ``privatise`` names its command), if any."""
    first = next((a for a in argv if not a.startswith("-")), None)
    name = canonical_command(first) if first is not None else None
    return name if name in COMMANDS else None


def _build_parser(command: str | None = None, *, full: bool = False) -> Parser:
    """The parser: ``command``'s own parser(s) in full (all commands' with ``full``), every
    other command as a name and its help line only (its module is not imported)."""
    p = Parser(prog=PROG, description="PrivPlan headless commands. Without a subcommand, "
                "`python app.py [FILE]` opens the window (`python app.py --help` lists its "
                "options). `privplan COMMAND --help` explains a command, with an example.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    wanted = {COMMANDS[command][:2]} if command is not None else set()
    added: set[tuple[str, str]] = set()
    for name, (module, adder, _, help_line) in COMMANDS.items():
        group = (module, adder)
        if group in added:
            continue
        if full or group in wanted:
            getattr(importlib.import_module(module), adder)(sub, add_json_flag)
            added.add(group)
        else:
            sub.add_parser(name, help=help_line, add_help=False,
                           aliases=[a for a, c in COMMAND_ALIASES.items() if c == name])
    finish_parser(p, PROG)
    return p


def build_parser(*, full: bool = True) -> Parser:
    """The ``privplan`` parser with every subcommand in full (help screens, the generated
    command-line reference, tests); it imports every command's module.

    Parameters
    ----------
    full : bool
        False: every command as its name and help line only (no command's module is
        imported); its top-level help is the same text (``app.py --help`` uses it).

    Returns
    -------
    Parser
    """
    return _build_parser(full=full)


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
        err.write(_one_line(f"{PROG} {parsed.command}: {message}") + "\n")
        if as_json:
            problem = message
            prefix = ": ".join(p for p in (file, field) if p)
            if prefix and message.startswith(prefix + ": "):
                problem = message[len(prefix) + 2:]
            write_json_error(out, code, _one_line(problem), field, file, extra)
        return code

    return _run(parsed, out, err, fail)


def _parse(argv: list[str], out: TextIO, err: TextIO, as_json: bool
           ) -> argparse.Namespace | int:
    """The parsed command line, or the exit code when there is nothing to run (help,
    version, an unknown command, a usage error: one line, and the JSON error object)."""
    if argv and not argv[0].startswith("-") and canonical_command(argv[0]) not in SUBCOMMANDS:
        near = suggest_command(argv[0], [*COMMANDS, *COMMAND_ALIASES])
        message = (f"unknown command {argv[0]!r}"
                   + (f" (did you mean {near!r}?)" if near else "")
                   + f"; `{PROG} --help` lists the commands")
        err.write(_one_line(f"{PROG}: {message}") + "\n")
        if as_json:
            write_json_error(out, 2, _one_line(message), "COMMAND")
        return 2
    parser = _build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        err.write(_one_line(str(exc)) + "\n")
        if as_json:
            text = str(exc)
            message = text.split(": ", 1)[1] if text.startswith(PROG) and ": " in text else text
            write_json_error(out, 2, _one_line(message), usage_field(message))
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
        from core.cli.guard import check_flags

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
