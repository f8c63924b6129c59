"""Refuse work that cannot fit in memory before starting it, with the estimate.

A model, a horizon or an experiment size that would need more memory than the machine has
is refused up front (an :class:`~core.common.errors.InputError` naming the field, the size
asked for and the estimate), instead of swapping for minutes or dying with MemoryError.

The budget is half the physical memory (``os.sysconf``), or ``PRIVPLAN_MEMORY_MB`` when
set (tests and shared machines set it lower).

Examples
--------
>>> check_memory(8 * 1000, "P", detail="1,000 float64 values")
>>> try:
...     check_memory(2**62, "P", detail="S x A x S = 8000 x 4 x 8000")
... except InputError as exc:
...     print(exc.problem.split(";")[0])
S x A x S = 8000 x 4 x 8000 needs 4.0 EiB of memory
"""

from __future__ import annotations

import os

from core.common.errors import InputError

__all__ = ["memory_budget", "check_memory", "format_bytes"]


def memory_budget() -> int:
    """The most memory one computation may ask for, in bytes.

    Returns
    -------
    int
        ``PRIVPLAN_MEMORY_MB`` MiB if set, else half the physical memory (4 GiB if unknown).
    """
    env = os.environ.get("PRIVPLAN_MEMORY_MB", "").strip()
    if env:
        try:
            return max(1, int(float(env))) * 2**20
        except ValueError:
            pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (ValueError, OSError, AttributeError):
        return 4 * 2**30


def format_bytes(n: float) -> str:
    """``n`` bytes in binary units ("1.5 GiB").

    Parameters
    ----------
    n : float
        A number of bytes.

    Returns
    -------
    str
        The size with one decimal.
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"


def check_memory(nbytes: float, field: str, *, detail: str = "") -> None:
    """Raise InputError on ``field`` if ``nbytes`` exceeds :func:`memory_budget`.

    Parameters
    ----------
    nbytes : float
        The estimate (may exceed any integer type: pass a float for products of sizes).
    field : str
        The input that asked for it (``"P"``, ``"horizon"``, ``"--epochs"``).
    detail : str
        What was asked for, e.g. ``"S x A x S = 8000 x 4 x 8000"``.
    """
    budget = memory_budget()
    if nbytes > budget:
        what = detail or "this"
        raise InputError(f"{what} needs {format_bytes(nbytes)} of memory; this machine allows "
                         f"{format_bytes(budget)} (half its memory, or PRIVPLAN_MEMORY_MB)",
                         field=field)
