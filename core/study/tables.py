"""Tables and plot series of a study, every value with its interval.

* :func:`summary_table`: one Markdown row per point and arm: n, and per metric the centre
  (median by default) with its interval.
* :func:`claims_table`: one Markdown row per claim: n, the paired difference with its
  interval, the test, p (Holm-adjusted where it was) and the verdict.
* :func:`interval_series`: per arm, x, centre, lower and upper limits over the grid points
  (for a plot with error bars or a band; the GUI draws them with pyqtgraph).

Examples
--------
>>> format_interval(0.5, 0.25, 0.75)
'0.5 [0.25, 0.75]'
>>> format_interval(1.0, float("nan"), float("nan"))
'1 [n too small]'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from core.study.claims import ClaimResult, Stability
from core.study.runner import StudyResult, point_label

__all__ = ["format_interval", "format_p", "summary_table", "claims_table", "interval_series",
           "summary_rows", "stability_table"]


def format_interval(center: float, lo: float, hi: float, fmt: str = ".3g") -> str:
    """``"c [lo, hi]"``; limits that could not be computed read ``[n too small]``."""
    if math.isnan(center):
        return "n/a"
    c = format(center, fmt)
    if math.isnan(lo) or math.isnan(hi):
        return f"{c} [n too small]"
    return f"{c} [{format(lo, fmt)}, {format(hi, fmt)}]"


def format_p(p: float) -> str:
    """A p-value as a table prints it (``< 1e-6`` below that; ``n/a`` for NaN).

    Examples
    --------
    >>> format_p(0.0123), format_p(3e-9), format_p(1.0)
    ('0.0123', '< 1e-6', '1')
    """
    if math.isnan(p):
        return "n/a"
    if p < 1e-6:
        return "< 1e-6"
    return format(p, ".3g")


def summary_rows(result: StudyResult, metrics: Sequence[str], *, center: str = "median",
                 arms: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The rows of :func:`summary_table` as dicts (JSON-able with core.common.jsonable)."""
    rows = []
    for p, point in enumerate(result.points):
        for arm in arms or result.arms:
            row: dict[str, Any] = {"point": point_label(point), "arm": arm}
            for m in metrics:
                if m not in result.values[p][arm]:
                    continue
                s = result.summary(m, arm, p)
                c, lo, hi = s.interval(center)
                row[m] = {"n": s.n, "n_missing": s.n_missing, "center": c, "lo": lo,
                          "hi": hi, "kind": center, "level": s.level}
            rows.append(row)
    return rows


def summary_table(result: StudyResult, metrics: Sequence[str], *, center: str = "median",
                  arms: Sequence[str] | None = None, fmt: str = ".3g",
                  labels: Mapping[str, str] | None = None) -> str:
    """A Markdown table of every arm at every point.

    Parameters
    ----------
    result : StudyResult
        The study.
    metrics : sequence of str
        The columns.
    center : {"median", "mean", "rate"}
        Which centre and interval to show.
    arms : sequence of str, optional
        The rows' arms (default all).
    fmt : str
        Number format.
    labels : mapping, optional
        Column headings for metrics.

    Returns
    -------
    str
        The table, with a caption line giving n, the interval and the master seed.
    """
    lab = dict(labels or {})
    head = ["point", "arm", "n"] + [lab.get(m, m) for m in metrics]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in summary_rows(result, metrics, center=center, arms=arms):
        ns = [row[m]["n"] for m in metrics if m in row]
        miss = sum(row[m]["n_missing"] for m in metrics if m in row)
        ncell = str(min(ns)) if ns else "0"
        if miss:
            ncell += f" ({miss} missing)"
        cells = [row["point"], row["arm"], ncell]
        for m in metrics:
            cells.append(format_interval(row[m]["center"], row[m]["lo"], row[m]["hi"], fmt)
                         if m in row else "—")
        lines.append("| " + " | ".join(cells) + " |")
    s0 = None
    for arm in (arms or result.arms) if metrics else ():
        if metrics[0] in result.values[0].get(arm, {}):   # the first arm that reports it
            s0 = result.summary(metrics[0], arm, 0)
            break
    how = {"median": f"median [{result.level:.0%} interval: {s0.median_method if s0 else ''}]",
           "mean": f"mean [{result.level:.0%} Student-t interval]",
           "rate": f"rate [{result.level:.0%} Clopper–Pearson interval]"}[center]
    lines.append("")
    lines.append(f"{how}; n = {result.n} seeds per arm and point, paired (the same seeds for "
                 f"every arm), master seed {result.master_seed} ({result.seed_source}).")
    return "\n".join(lines)


def claims_table(results: Sequence[ClaimResult], fmt: str = ".3g") -> str:
    """A Markdown table of claims: n, the paired difference with its interval, the test,
    p and the verdict.

    Parameters
    ----------
    results : sequence of ClaimResult
        From :func:`core.study.claims.evaluate_claims`.
    fmt : str
        Number format.

    Returns
    -------
    str
    """
    head = ["claim", "where", "n", "a − b [interval]", "test", "p (Holm)", "verdict", "holds"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        est, lo, hi, what = r.estimate()
        pcell = format_p(r.p_adjusted)
        if not math.isnan(r.p) and r.p != r.p_adjusted:
            pcell += f" (raw {format_p(r.p)})"
        lines.append("| " + " | ".join([
            r.claim.text, r.point_text, str(r.n),
            f"{what}: {format_interval(est, lo, hi, fmt)}", r.test_text, pcell, r.verdict,
            "yes" if r.holds else "**no**"]) + " |")
    return "\n".join(lines)


def stability_table(stability: Stability, fmt: str = ".3g") -> str:
    """The claims under the first master seed, with the verdict and p under every other.

    Parameters
    ----------
    stability : Stability
        From :func:`core.study.claims.verdict_stability`.
    fmt : str
        Number format.

    Returns
    -------
    str
        A Markdown table: claim, where, n, the paired difference with its interval, the
        test, p (Holm) and the verdict under the first master seed, then p and "holds" under
        each further master seed, and whether the verdict is stable.
    """
    first, rest = stability.runs[0], stability.runs[1:]
    seeds = stability.master_seeds
    head = ["claim", "where", "n", "a − b [interval]", "test", "p (Holm)", "verdict"]
    head += [f"p, holds (master seed {s})" for s in seeds[1:]] + ["holds", "stable"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, r in enumerate(first):
        est, lo, hi, what = r.estimate()
        cells = [r.claim.text, r.point_text, str(r.n),
                 f"{what}: {format_interval(est, lo, hi, fmt)}", r.test_text,
                 format_p(r.p_adjusted), r.verdict]
        others = [run[i] for run in rest]
        cells += [f"{format_p(o.p_adjusted)}, {'yes' if o.holds else 'no'}" for o in others]
        stable = all(o.holds == r.holds for o in others)
        cells += ["yes" if r.holds else "**no**", "yes" if stable else "**FLIPS**"]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Master seeds {', '.join(map(str, seeds))}; p-values Holm-adjusted over the "
                 f"{len(first)} claims; 'holds': the verdict the claim states, at α = "
                 f"{first[0].claim.alpha if first else 0.05:g}.")
    return "\n".join(lines)


def interval_series(result: StudyResult, metric: str, x: str | None = None, *,
                    center: str = "median", arms: Sequence[str] | None = None
                    ) -> dict[str, dict[str, np.ndarray]]:
    """Per arm: ``{"x", "center", "lo", "hi", "n"}`` arrays over the grid points.

    Parameters
    ----------
    result : StudyResult
        The study.
    metric : str
        The plotted metric.
    x : str, optional
        The point parameter on the x axis (numeric); default: the point index.
    center : str
        "median", "mean" or "rate".
    arms : sequence of str, optional
        Which arms (default all that report ``metric``).

    Returns
    -------
    dict
        ``series[arm]["x"|"center"|"lo"|"hi"|"n"]``.
    """
    out: dict[str, dict[str, np.ndarray]] = {}
    for arm in arms or result.arms:
        xs, cs, los, his, ns = [], [], [], [], []
        for p, point in enumerate(result.points):
            if metric not in result.values[p].get(arm, {}):
                continue
            s = result.summary(metric, arm, p)
            c, lo, hi = s.interval(center)
            xs.append(float(point[x]) if x is not None else float(p))
            cs.append(c)
            los.append(lo)
            his.append(hi)
            ns.append(s.n)
        if xs:
            out[arm] = {"x": np.array(xs), "center": np.array(cs), "lo": np.array(los),
                        "hi": np.array(his), "n": np.array(ns)}
    return out
