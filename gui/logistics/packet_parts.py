"""What the packet-routing page (:mod:`gui.logistics.packet_experiments`) shows in tables:
the thesis's claims as paired tests with their verdicts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gui.shell.style import ERROR_COLOUR

__all__ = ["make_claims_table", "fill_claims", "VERDICT_COLOURS"]

VERDICT_COLOURS = {True: "#117733", False: ERROR_COLOUR}


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def make_claims_table(parent: QWidget) -> QTableWidget:
    """The empty claims table (read-only, five columns)."""
    t = QTableWidget(0, 5, parent)
    t.setHorizontalHeaderLabels(
        ["verdict", "the thesis expects", "paired estimate [95 % CI]", "p (Holm)", "test"])
    t.verticalHeader().hide()
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setAlternatingRowColors(True)
    t.setWordWrap(False)
    hh = t.horizontalHeader()
    hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the claim's text
    t.setToolTip("Every claim the study tests, failures first: the paired difference "
                 "(packet minus logistics, or the largest dynamism minus the static "
                 "network) on the same seeds, with Holm-adjusted p-values at α = 0.05.")
    return t


def fill_claims(t: QTableWidget, summary: Mapping[str, Any]) -> None:
    """One row per tested claim, failures first."""
    t.setRowCount(0)
    claims = sorted((c for c in summary.get("claims", []) or [] if isinstance(c, dict)),
                    key=lambda c: bool(c.get("holds")))  # failures first
    for c in claims:
        r = t.rowCount()
        t.insertRow(r)
        holds = bool(c.get("holds"))
        it = QTableWidgetItem("holds" if holds else "does not hold")
        it.setToolTip(f"the test's verdict: {c.get('verdict', '')}")
        it.setForeground(QBrush(QColor(VERDICT_COLOURS[holds])))
        f = it.font()
        f.setBold(True)
        it.setFont(f)
        t.setItem(r, 0, it)
        claim = QTableWidgetItem(str(c.get("claim", "")))
        claim.setToolTip(f"{c.get('claim', '')}\npoints: {c.get('point', '')}")
        t.setItem(r, 1, claim)
        lo, hi = (list(c.get("interval") or []) + [None, None])[:2]
        est = _num(c.get("estimate"))
        text = "–" if not math.isfinite(est) else f"{est:+.3g}"
        if lo is not None and hi is not None:
            text += f" [{_num(lo):+.3g}, {_num(hi):+.3g}]"
        est_item = QTableWidgetItem(text)
        est_item.setToolTip(f"{c.get('estimate_kind', '')} of {c.get('metric', '')}, "
                            f"n = {c.get('n')}")
        t.setItem(r, 2, est_item)
        t.setItem(r, 3, QTableWidgetItem(f"{_num(c.get('p_adjusted')):.3g}"))
        t.setItem(r, 4, QTableWidgetItem(str(c.get("test", ""))))
