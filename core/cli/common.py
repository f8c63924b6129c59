"""What every subcommand shares: one-line errors, progress on stderr, JSON or text output.

Contract (``docs/formats-and-cli.md`` §5): ``--json`` prints exactly one JSON object on stdout;
exit 0 on success, 2 on bad input with one line on stderr; progress goes to stderr only
when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

from core.common.errors import InputError
from core.common.validation import check_k

__all__ = ["PROG", "UsageError", "Parser", "parse_k_list", "flag_error", "Progress", "emit",
           "project_item", "record_project", "add_record_flag", "add_over_budget_flag",
           "check_record_budget", "record_checked", "check_record_plan",
           "mode_line", "add_json_flag"]

PROG = "privplan"


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def parse_k_list(text: str) -> list[float]:
    """The values of ``--k``: finite numbers > 0, comma-, semicolon- or space-separated.

    Parameters
    ----------
    text : str
        The flag's value, e.g. ``"10,100,1000"``.

    Returns
    -------
    list of float
        The values in the order given.

    Raises
    ------
    InputError
        On ``--k`` when the list is empty or a value is not a finite number > 0.
    """
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    if not parts:
        raise InputError("needs at least one value, e.g. --k 10,100,1000", field="--k")
    out = []
    for p in parts:
        try:
            k = float(p)
        except ValueError:
            raise InputError(f"{p!r} is not a number", field="--k") from None
        if not math.isfinite(k) or k <= 0:
            raise InputError(f"every k must be a finite number > 0, got {p}", field="--k")
        out.append(check_k(k, "--k"))
    return out


def flag_error(exc: InputError, flags: dict[str, str]) -> InputError:
    """Rename a core field ('k', 'beta', …) to the flag the user typed.

    Parameters
    ----------
    exc : InputError
        An error raised by core code (its ``field`` is a parameter name).
    flags : dict
        ``{parameter name: flag}``, e.g. ``{"k": "--k"}``.

    Returns
    -------
    InputError
        The same error on the flag; ``exc`` itself when it names a file or an unknown field.
    """
    if exc.file is None and exc.field in flags:
        return InputError(exc.problem, field=flags[exc.field])
    return exc


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream, self.label = stream, label
        self.enabled = stream.isatty()
        self.last = -1

    def __call__(self, fraction: float, message: str = "") -> None:
        if not self.enabled:
            return
        pct = int(100 * fraction)
        if pct == self.last:
            return
        self.last = pct
        bar = "#" * (pct // 4) + "-" * (25 - pct // 4)
        self.stream.write(f"\r{self.label} [{bar}] {pct:3d}% {message[:40]:<40}")
        if fraction >= 1.0:
            self.stream.write("\n")
        self.stream.flush()


def emit(args: argparse.Namespace, payload: dict[str, Any], text: Callable[[], str],
          out: TextIO) -> None:
    """Print ``payload`` as one strict JSON object (``--json``: every non-finite number is
    null with a ``…_reason``, :func:`core.common.jsonable.dumps`) or ``text()``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (its ``json`` flag chooses the form).
    payload : dict
        The result as JSON.
    text : callable
        Builds the human-readable form (called only without ``--json``).
    out : TextIO
        Where to write.
    """
    if args.json:
        from core.common.jsonable import dumps

        out.write(dumps(payload) + "\n")
    else:
        out.write(text() + "\n")


def mode_line(seed: int | None) -> str:
    """The line that says which randomness produced a result.

    Parameters
    ----------
    seed : int or None
        The experiment's seed; None for release mode.

    Returns
    -------
    str
        ``"mode: seeded experiment (seed S) …"`` or ``"mode: release …"``.
    """
    return (f"mode: seeded experiment (seed {seed}) - reproducible, not for real releases"
            if seed is not None else "mode: release (noise from the OS secure random source)")


def add_json_flag(sp: argparse.ArgumentParser) -> None:
    """``--json``: print one JSON object on stdout.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    """
    sp.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def project_item(path: str, item_id: str | None, record: bool, *, flag: str, noun: str,
                 ids_of: Callable[[Any], list[str]]) -> tuple[Any, str | None]:
    """(project, item id) when ``path`` is a project file, else (None, None).

    The subcommands that take a model or map file also take a project (``*.privplan.json``)
    with ``flag`` (``--mdp``, ``--map``) naming one of its items, and ``--record`` to write
    the run into it. InputError for a flag that does not fit the file.

    Parameters
    ----------
    path : str
        The positional file argument.
    item_id : str or None
        The value of ``flag``.
    record : bool
        Whether ``--record`` was given.
    flag, noun : str
        The flag and what it names (for messages).
    ids_of : callable
        The ids of the project's items of that kind.

    Returns
    -------
    (Project or None, str or None)
        The loaded project and the item's id (its only item when ``flag`` is omitted).
    """
    from core.mdp.files import MDP_FORMAT, read_json

    is_project = False
    if not str(path).lower().endswith(".npz"):
        try:
            doc = read_json(path)
        except InputError:
            doc = None  # the item loader reports what is wrong with the file
        # the project module (and what it imports) is loaded only for a file that may be one
        if isinstance(doc, dict) and doc.get("format") not in (None, MDP_FORMAT):
            from core.project.files import PROJECT_FORMAT

            is_project = doc.get("format") == PROJECT_FORMAT
    if not is_project:
        if item_id is not None:
            raise InputError(f"{flag} names a {noun} inside a project; the file given is a "
                             f"{noun} file", field=flag)
        if record:
            raise InputError(f"--record writes the run into a project: give a "
                             f"*.privplan.json (and {flag} ID)", field="--record")
        return None, None
    from core.project.files import load_project

    project = load_project(path)
    if record:
        from core.project.store import check_writable

        check_writable(path, field="--record")  # refused before the run, not after it
    ids = ids_of(project)
    if item_id is None:
        if len(ids) != 1:
            raise InputError(f"the project has {len(ids)} {noun}s ({', '.join(ids) or 'none'})"
                             f": name one with {flag} ID", field=flag)
        return project, ids[0]
    if item_id not in ids:
        raise InputError(f"no {noun} {item_id!r} in the project ({noun}s: "
                         f"{', '.join(ids) or 'none'})", field=flag)
    return project, item_id


def add_record_flag(sp: argparse.ArgumentParser, what: str) -> None:
    """``--record PROJECT`` (and ``--over-budget``) on a subcommand whose input is not a
    project.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    what : str
        What is recorded, for the help text (``"run"``, ``"audit"``).
    """
    sp.add_argument("--record", metavar="PROJECT", default=None,
                    help=f"record the {what} in this project (*.privplan.json) as the window "
                         "does: a run record and its ledger entries; saved atomically")
    add_over_budget_flag(sp)


def add_over_budget_flag(sp: argparse.ArgumentParser) -> None:
    """``--over-budget``: let ``--record`` record a release past a project budget.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    """
    sp.add_argument("--over-budget", action="store_true",
                    help="with --record: record the run even if its releases take a dataset "
                         "past the project's budget (refused otherwise, exit 2)")


def check_record_budget(project: Any, entries: Any, args: argparse.Namespace,
                        err: TextIO) -> None:
    """Refuse to record releases past the project's budgets, as the window asks first.

    Seeded experiments are not spent and pass. With ``--over-budget`` the run is recorded
    and each exceeded budget is named on ``err`` as a warning.

    Parameters
    ----------
    project : Project
        Where the run would be recorded.
    entries : iterable of LedgerEntry
        The run's ledger entries.
    args : argparse.Namespace
        The command line (``over_budget``).
    err : TextIO
        Standard error.

    Raises
    ------
    InputError
        On ``--record``: one line naming each dataset, its spend and its budget.
    """
    from core.privacy.ledger import PrivacyLedger

    problems = PrivacyLedger.from_project(project).release_problems(entries)
    _refuse_or_warn(problems, args, err, "recorded over the budget",
                    " - nothing was recorded (--over-budget records it anyway)")


def _refuse_or_warn(problems: list[str], args: argparse.Namespace, err: TextIO,
                    warning: str, suffix: str = "") -> None:
    """``--record``'s refusal of ``problems`` (one line), or with ``--over-budget`` one
    warning line per problem on ``err``; nothing without problems."""
    if not problems:
        return
    if getattr(args, "over_budget", False):
        for p in problems:
            err.write(f"warning: {warning}: {p}\n")
        return
    raise InputError("; ".join(problems) + suffix, field="--record")


def record_checked(path: str, project: Any, record: Any, entries: Any,
                   args: argparse.Namespace, err: TextIO) -> tuple[Any, list[Any]]:
    """``--record``: the run and its entries appended to the project file as it is now
    (:func:`core.project.store.record_and_save`), refused past a budget
    (:func:`check_record_budget`, against the ledger under the project's lock).

    Parameters
    ----------
    path : str
        The project file.
    project : Project
        The project as the command read it.
    record : RunRecord
        The run.
    entries : sequence of LedgerEntry
        Its ledger entries.
    args : argparse.Namespace
        The command line (``over_budget``).
    err : TextIO
        Standard error (budget warnings).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        As stored.
    """
    from core.project.store import record_and_save

    entries = list(entries)

    def check(now: Any) -> None:
        check_record_budget(now, entries, args, err)
        check_record_plan(now, entries, args, err)

    return record_and_save(path, project, record, entries, check=check)


def check_record_plan(project: Any, entries: Any, args: argparse.Namespace,
                      err: TextIO) -> None:
    """Refuse a release on a dataset an executed privacy plan spends, outside that plan
    (:func:`core.plan.execute.record_plan_problems`); ``--over-budget`` records it with a
    warning.

    Parameters
    ----------
    project : Project
        The project (its ledger as it is now).
    entries : iterable of LedgerEntry
        The run's ledger entries.
    args : argparse.Namespace
        The command line (``over_budget``).
    err : TextIO
        Standard error.
    """
    from core.plan.execute import record_plan_problems

    problems = record_plan_problems(list(project.ledger), list(entries))
    _refuse_or_warn(problems, args, err, "recorded outside the plan")


def record_project(path: str | None) -> Any:
    """The project ``--record PROJECT`` names (None without it), read before any work.

    A missing or damaged project, or one in a folder this process cannot write, is refused
    up front (InputError on ``--record``), so no time is spent on a run that could not be
    recorded.

    Parameters
    ----------
    path : str or None
        The value of ``--record``.

    Returns
    -------
    Project or None
        The loaded project, or None without ``--record``.

    Raises
    ------
    InputError
        On ``--record``, naming the file and what is wrong with it.
    """
    if path is None:
        return None
    from core.project.files import load_project
    from core.project.store import check_writable

    try:
        project = load_project(path)
    except InputError as exc:
        where = f"{exc.field}: " if exc.field else ""
        raise InputError(f"{where}{exc.problem}" if exc.file else str(exc), field="--record",
                         file=exc.file or path) from None
    check_writable(path, field="--record")  # a folder it cannot write: refused up front
    return project


SCHEDULER_HELP = ("run on a dask.distributed cluster (the optional 'cluster' extra) instead of "
                  "local processes; default: $DASK_SCHEDULER_ADDRESS if set. Results are the "
                  "same bit for bit")


def add_scheduler_flag(sp: argparse.ArgumentParser) -> None:
    """Add ``--scheduler tcp://HOST:PORT`` to a long command.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    """
    sp.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT", help=SCHEDULER_HELP)


@contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[tuple[Any, "int | None"]]:
    """The executor and worker count of a long command: ``(None, --workers)`` for the local
    process pool, or a cluster executor and its thread count with ``--scheduler`` (or
    ``$DASK_SCHEDULER_ADDRESS``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``scheduler`` and ``workers``).

    Yields
    ------
    (Executor or None, int or None)

    Raises
    ------
    InputError
        Both ``--scheduler`` and ``--workers`` given, or no scheduler answers (``--scheduler``).
    """
    from core.common.cluster import cluster_executor, scheduler_address

    flag = getattr(args, "scheduler", None)
    address = scheduler_address(flag)
    if address is None:
        yield None, getattr(args, "workers", None)
        return
    if flag and getattr(args, "workers", None) is not None:
        raise InputError("give --scheduler or --workers, not both (the cluster decides how "
                         "many workers run)", field="--scheduler")
    field = "--scheduler" if flag else "DASK_SCHEDULER_ADDRESS"
    with cluster_executor(address, field=field) as ex:
        yield ex, ex.n_workers
