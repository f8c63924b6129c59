"""What a logistics run records: the summary of a benchmark (plan runs record a session)."""

from __future__ import annotations

from typing import Any

from core.logistics.experiments import BenchResult

__all__ = ["bench_summary"]


def bench_summary(res: BenchResult) -> dict[str, Any]:
    """The summary a ``plan-bench`` RunRecord keeps: rows of means and CIs, checks, gaps.

    Parameters
    ----------
    res : BenchResult
        The benchmark.

    Returns
    -------
    dict
        ``res.to_dict()`` without the per-world table (large; rerun with the seed).
    """
    d = res.to_dict()
    d.pop("per_world", None)
    return d
