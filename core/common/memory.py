"""Refuse work that cannot fit in memory before starting it, with the estimate.

A model, a horizon or an experiment size that would need more memory than this process may
really use is refused up front (an :class:`~core.common.errors.InputError` naming the field,
the size asked for and the estimate), instead of swapping for minutes or dying with
MemoryError.

The budget is the smallest of ``PRIVPLAN_MEMORY_MB`` (when set), half the physical memory,
the available memory, the cgroup's room and the address-space limit
(:mod:`core.common.resources`, where these functions live; this module keeps their old
import path).

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

from core.common.errors import InputError
from core.common.resources import check_memory, format_bytes, memory_budget

__all__ = ["memory_budget", "check_memory", "format_bytes", "InputError"]
