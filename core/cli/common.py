"""What every subcommand shares: one-line errors, progress on stderr, JSON or text output.

Contract (``formats-and-cli.md`` §5): ``--json`` prints exactly one JSON object on stdout;
exit 0 on success, 2 on bad input with one line on stderr; progress goes to stderr only
when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, NoReturn, TextIO

from core.common.errors import InputError

__all__ = ["PROG", "UsageError", "Parser", "parse_k_list", "flag_error", "Progress", "emit",
           "mode_line", "add_json_flag"]

PROG = "privplan"


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def parse_k_list(text: str) -> list[float]:
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
        out.append(k)
    return out


def flag_error(exc: InputError, flags: dict[str, str]) -> InputError:
    """Rename a core field ('k', 'beta', …) to the flag the user typed."""
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
    null with a ``…_reason``, :func:`core.common.jsonable.dumps`) or ``text()``."""
    if args.json:
        from core.common.jsonable import dumps

        out.write(dumps(payload) + "\n")
    else:
        out.write(text() + "\n")


def mode_line(seed: int | None) -> str:
    return (f"mode: seeded experiment (seed {seed}) - reproducible, not for real releases"
            if seed is not None else "mode: release (noise from the OS secure random source)")


def add_json_flag(sp: argparse.ArgumentParser) -> None:
    """``--json``: print one JSON object on stdout."""
    sp.add_argument("--json", action="store_true", help="print one JSON object on stdout")
