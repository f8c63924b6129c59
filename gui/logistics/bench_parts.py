"""What the benchmark page (:mod:`gui.logistics.experiments`) shows in tables: the core's
trend checks with their verdicts, and the thesis's reported gaps beside the measured ones.

Both are drawn from a benchmark's *summary* (a run record's), so a recorded benchmark
refills them identically after reloading."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.logistics.results import RatioSplitter
from gui.logistics.side_panel import APPROACH_STYLE
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import header_item

__all__ = ["THESIS_GAPS", "verdict", "make_bench_tables", "fill_checks", "fill_gaps"]

#: (approach, metric) -> (thesis's DP advantage, text). Positive = DP better (shorter, fewer
#: messages, more successes); success in percentage points.
THESIS_GAPS = {
    ("bestfirst", "route_length"): (25.0, "DP ≈ 25 % shorter"),
    ("greedy", "route_length"): (15.0, "DP ≈ 15 % shorter"),
    ("noprivacy", "route_length"): (-2.5, "DP ≈ 2–3 % longer"),
    ("bestfirst", "messages"): (20.0, "DP ≈ 20 % fewer messages"),
    ("greedy", "messages"): (10.0, "DP ≈ 10 % fewer messages"),
    ("noprivacy", "messages"): (-2.0, "DP ≈ 2 % more messages"),
    ("bestfirst", "success"): (10.0, "DP ≈ 10 % higher success"),
    ("greedy", "success"): (5.0, "DP ≈ 5 % higher success"),
    ("noprivacy", "success"): (-2.0, "DP ≈ 2 % lower success"),
}


def verdict(check: Mapping[str, Any], n_values: int) -> str:
    """``reproduced``, ``not reproduced`` or ``not testable`` (a Spearman trend needs ≥ 3
    swept values; the core then reports ρ = 0, which is no evidence either way)."""
    if "Spearman" in str(check.get("observed", "")) and n_values < 3:
        return "not testable"
    return "reproduced" if check.get("holds") else "not reproduced"


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def make_bench_tables(parent: QWidget) -> tuple[QTableWidget, QTableWidget, RatioSplitter]:
    """The empty checks and gaps tables (read-only) side by side under their titles:
    (checks table, gaps table, the splitter holding both)."""
    checks = QTableWidget(0, 4, parent)  # (its header labels: below)
    gaps = QTableWidget(0, 5, parent)
    gaps.setHorizontalHeaderLabels(
        ["vs", "metric", "thesis reports", "measured (mean)", "per point"])
    for t in (checks, gaps):
        t.verticalHeader().hide()
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setAlternatingRowColors(True)
        t.setWordWrap(False)
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        t.horizontalHeader().setStretchLastSection(True)
    hh = checks.horizontalHeader()
    hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
    hh.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
    checks.setColumnWidth(2, 270)
    checks.setColumnWidth(3, 330)
    checks.setHorizontalHeaderLabels(
        ["verdict", "robust", "expected (thesis / spec)", "observed"])
    header_item(checks, 1).setToolTip(
        "Whether spec §8.3 calls this expectation robust (expected to hold whatever the "
        "unspecified details); “no” = a thesis claim that may well not reproduce.")
    header_item(gaps, 3).setToolTip(
        "DP-based advantage, mean over the swept values: positive = DP better. Green: "
        "the same direction as the thesis; vermillion: the opposite.")
    gaps.setToolTip("Paired differences of DP-based against each approach: "
                    "positive = DP better (shorter routes, fewer messages, in % "
                    "of the other approach; success in percentage points).")
    tables = RatioSplitter(Qt.Orientation.Horizontal, 0.56, parent)
    for title, table in (("Trend checks (every check the core makes)", checks),
                         ("The thesis's reported gaps vs measured", gaps)):
        box = QWidget(tables)
        bl = QVBoxLayout(box)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(1)
        head = QLabel(f"<b>{title}</b>", box)
        head.setTextFormat(Qt.TextFormat.RichText)
        bl.addWidget(head)
        bl.addWidget(table, 1)
        tables.addWidget(box)
    return checks, gaps, tables


def fill_checks(t: QTableWidget, summary: Mapping[str, Any], n_values: int) -> None:
    """One row per trend check of the core, failures first (nothing hides below)."""
    t.setRowCount(0)
    order = {"not reproduced": 0, "not testable": 1, "reproduced": 2}
    checks = sorted(summary.get("checks", []), key=lambda c: order[verdict(c, n_values)])
    for c in checks:
        v = verdict(c, n_values)
        r = t.rowCount()
        t.insertRow(r)
        it = QTableWidgetItem(v)
        colour = {"reproduced": "#117733", "not reproduced": ERROR_COLOUR,
                  "not testable": "#777777"}[v]
        it.setForeground(QBrush(QColor(colour)))
        f = it.font()
        f.setBold(True)
        it.setFont(f)
        if v == "not testable":
            it.setToolTip("A rank trend needs at least 3 swept values.")
        t.setItem(r, 0, it)
        t.setItem(r, 1, QTableWidgetItem("yes" if c.get("robust_expectation") else "no"))
        t.setItem(r, 2, QTableWidgetItem(str(c.get("claim", ""))))
        obs = QTableWidgetItem(str(c.get("observed", "")))
        obs.setToolTip(str(c.get("observed", "")))
        t.setItem(r, 3, obs)


def fill_gaps(t: QTableWidget, summary: Mapping[str, Any], param: str) -> None:
    """One row per (approach, metric): the thesis's gap beside the measured mean and the
    gap at every swept value of ``param``."""
    t.setRowCount(0)
    rel = summary.get("relative_to_dp", [])
    groups: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for row in rel:
        key = (row.get("approach"), row.get("metric"))
        groups.setdefault(key, []).append((float(row.get(param, math.nan)),
                                           _num(row.get("dp_advantage_percent"))))
    paired = {(row.get("approach"), row.get("metric")) for row in rel if row.get("paired")}
    for (a, m), pts in groups.items():
        thesis = THESIS_GAPS.get((a, m))
        vals = [v for _x, v in pts if math.isfinite(v)]
        mean = float(np.mean(vals)) if vals else math.nan
        unit = " points" if m == "success" else " %"
        r = t.rowCount()
        t.insertRow(r)
        t.setItem(r, 0, QTableWidgetItem(APPROACH_STYLE.get(a, (a,))[0]))
        mi = QTableWidgetItem(str(m) + (" (paired tasks)" if (a, m) in paired else ""))
        if (a, m) in paired:
            mi.setToolTip("Compared only on the tasks both approaches delivered; each "
                          "approach's own mean would favour the one that fails on long "
                          "tasks. Delivery rates are in the success row.")
        t.setItem(r, 1, mi)
        t.setItem(r, 2, QTableWidgetItem(thesis[1] if thesis else "—"))
        txt = "–" if not math.isfinite(mean) else f"{mean:+.1f}{unit}"
        it = QTableWidgetItem(txt)
        if thesis and math.isfinite(mean):
            same = (mean > 0) == (thesis[0] > 0)
            it.setForeground(QBrush(QColor("#117733" if same else ERROR_COLOUR)))
            it.setToolTip("same direction as the thesis" if same else
                          "opposite direction to the thesis")
        t.setItem(r, 3, it)
        per = ", ".join(f"{x:g}: {'–' if not math.isfinite(v) else f'{v:+.1f}'}"
                        for x, v in pts)
        t.setItem(r, 4, QTableWidgetItem(per))
