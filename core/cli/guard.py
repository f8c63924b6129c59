"""The command line's side of the resource guard: every flag in its documented range, before
any work, and every error as one line.

:func:`check_flags` runs after parsing and before a subcommand starts. It enforces the
ranges the help texts document for flags whose checks the computation would otherwise
reach too late (after an overflow, a crash or minutes of work) — seeds, the Dirichlet
``--k`` and ``--b``, noise multipliers, count flags — and the memory a count flag implies
(:func:`core.common.resources.check_count`). Checks of the inputs themselves (file sizes,
declared array shapes, iteration budgets from a discount or a horizon) live with their
loaders and algorithms, so the window gets them too.

:func:`one_line` makes any message one line: a newline, a carriage return or another control
character inside a file name, a state name or an exception's text is shown escaped, so an
error is always exactly one line on stderr.

Examples
--------
>>> one_line("unknown state 'a\\nb'")
"unknown state 'a\\\\nb'"
"""

from __future__ import annotations

import argparse
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.common.errors import InputError
from core.common.resources import check_count
from core.common.validation import B_MIN, K_MAX, SENSITIVITY_RANGE

__all__ = ["check_flags", "one_line", "RULES", "K_MAX", "SIGMA_MAX", "SEED_MAX", "check_batch",
           "PLAN_RUN_S", "ADVISE_STEP_S", "SWEEP_RUN_MIN_S"]

#: Largest DP-SGD noise multiplier accepted: beyond it the RDP orders underflow and ε would
#: print as exactly 0, an optimistic statement.
SIGMA_MAX = 1e4
#: Seeds are non-negative integers below 2**63 (numpy's SeedSequence refuses negatives).
SEED_MAX = 2**63 - 1

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """``text`` with every line break and control character escaped (one printable line).

    Parameters
    ----------
    text : str
        A message.

    Returns
    -------
    str
    """
    out = []
    for ch in str(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in "\u202a\u202b\u202c" \
                "\u202d\u202e\u2066\u2067\u2068\u2069\ufeff":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class Range:
    """A real flag in ``(low, high]`` (``low_open``) or ``[low, high]``."""

    low: float
    high: float
    low_open: bool = True
    why: str = ""

    def __call__(self, flag: str, value: Any) -> None:
        x = float(value)
        ok = math.isfinite(x) and (x > self.low if self.low_open else x >= self.low) \
            and x <= self.high
        if not ok:
            left = "(" if self.low_open else "["
            raise InputError(f"must lie in {left}{self.low:g}, {self.high:g}], got {value!r}"
                             + (f" ({self.why})" if self.why else ""), field=flag)


@dataclass(frozen=True)
class Count:
    """An integer flag in ``[low, high]``; with ``bytes_each`` its memory is checked too."""

    low: int = 1
    high: int | None = None
    bytes_each: float = 0.0
    what: str = ""

    def __call__(self, flag: str, value: Any) -> None:
        check_count(value, flag, low=self.low, high=self.high, bytes_each=self.bytes_each,
                    what=self.what)


Rule = Callable[[str, Any], None]

_K = Range(0.0, K_MAX, why="larger k leaves the accountant without double precision")
_B = Range(B_MIN, 1.0, low_open=False, why="a smaller radius is below the precision of a "
           "probability row: epsilon would underflow to 0")
_SIGMA = Range(0.0, SIGMA_MAX, low_open=False, why="beyond it the accountant underflows and "
               "epsilon would read 0")
_SENSITIVITY = Range(*SENSITIVITY_RANGE, low_open=False, why="rescale the query's units")

#: ``{(command, dest): rule}``; command ``"*"`` applies to every subcommand with that dest.
RULES: dict[tuple[str, str], Rule] = {
    ("*", "seed"): Count(0, SEED_MAX),
    ("*", "workers"): Count(1, 4096),
    ("dirichlet", "k"): _K,
    ("dirichlet", "b"): _B,
    ("dirichlet", "draws"): Count(1, 10**9, bytes_each=64.0, what="Monte Carlo draws"),
    ("privatize", "k"): _K,
    ("privatize", "b"): _B,
    ("bounds", "k"): _K,
    ("bounds", "b"): _B,
    ("sweep", "b"): _B,
    ("design", "b"): _B,
    ("export", "k"): _K,
    ("mia", "b"): _B,
    ("sweep", "runs"): Count(1, 10**6),
    ("audit", "k"): _K,
    ("audit", "b"): _B,
    ("audit", "sensitivity"): _SENSITIVITY,
    ("advise", "sensitivity"): lambda flag, v: None if v == "strict" else _SENSITIVITY(flag, v),
    ("accountant", "sigma"): _SIGMA,
    ("comarl", "sigma"): _SIGMA,
    # checked with or without --dp: a NaN delta is never a setting
    ("comarl", "delta"): Range(0.0, 1.0, why="delta is a probability"),
    ("mia", "k"): _K,
    ("share", "draws"): Count(1, 10**9, bytes_each=64.0, what="Monte Carlo draws"),
    # share: k_j = k0·c^j and the η-restricted simplex; below these the accountant's
    # arithmetic underflows (ε would read 0 at k = 0: an optimistic statement)
    ("share", "k0"): Range(1e-12, K_MAX, low_open=False,
                           why="outside it the accountant's arithmetic over- or underflows"),
    ("share", "eta"): Range(1e-12, 1.0, low_open=False,
                            why="a smaller eta underflows the accountant"),
}

#: Seconds of one planning run (one world, one approach, one point) of ``plan-bench``,
#: taken low: 0.25-0.85 s were measured on one core (B1, B4), so only work clearly beyond
#: the limit is refused.
PLAN_RUN_S = 0.1
#: Seconds of one advising epoch per agent (measured ~3e-4 s; a third of it is taken, so
#: the default 20 seeds on one worker still run).
ADVISE_STEP_S = 1e-4
#: Seconds of one ``sweep`` run at the least (privatise, bound, evaluate: Python overhead).
SWEEP_RUN_MIN_S = 2e-3


def check_batch(runs: float, seconds_each: float, field: str, *, workers: int | None,
                what: str) -> None:
    """Refuse a batch command whose declared work passes the time limit, before any run.

    Parameters
    ----------
    runs : float
        How many runs the flags declare.
    seconds_each : float
        A low estimate of one run's seconds on one core.
    field : str
        The flag that sets the count (named in the message).
    workers : int or None
        Processes sharing the runs (None: the CPU count, the commands' default).
    what : str
        What one run is ("planning runs").

    Examples
    --------
    >>> check_batch(10, 0.1, "--worlds", workers=1, what="planning runs")
    >>> try:
    ...     check_batch(1e9, 0.1, "--worlds", workers=2, what="planning runs")
    ... except InputError as exc:
    ...     print(exc.field, "|", exc.problem.split(";")[0])
    --worlds | 1e+09 planning runs on 2 worker(s): about 1.58 years of computation
    """
    import os

    from core.common.resources import check_time

    w = max(1, int(workers or os.cpu_count() or 1))
    check_time(float(runs) * float(seconds_each) / w, field,
               detail=f"{float(runs):.3g} {what} on {w} worker(s)")


def _flag(parser_dest: str) -> str:
    return "--" + parser_dest.replace("_", "-")


def check_flags(args: argparse.Namespace) -> None:
    """Check the parsed flags of one subcommand against :data:`RULES`.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``args.command`` names the subcommand).

    Raises
    ------
    InputError
        On the first flag out of its range, naming the flag.
    """
    command = getattr(args, "command", None)
    for dest, value in sorted(vars(args).items()):
        if value is None or isinstance(value, bool):
            continue
        rule = RULES.get((command or "", dest)) or RULES.get(("*", dest))
        if rule is None:
            continue
        if isinstance(value, (list, tuple)):
            for v in value:
                rule(_flag(dest), v)
        else:
            rule(_flag(dest), value)
