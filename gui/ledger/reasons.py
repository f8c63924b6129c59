"""Why totals are unbounded, one line per reason with the entries on demand.

The Ledger tab used to print every unbounded entry's reason in one orange paragraph above the
totals ("Unbounded: rel-35 …; rel-36 …"), which buried the totals under thirty near-identical
sentences. :class:`UnboundedReasons` groups the entries by reason: one collapsed line per
distinct reason ("10 entries — the advice was drawn from the teacher's raw policy …"), the
full sentence in its tooltip, the entries (id, mechanism, dataset, uses, mode) as children
that expand on a click.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem, QWidget

from gui.shell.style import ERROR_COLOUR

__all__ = ["UnboundedReasons", "group_by_reason"]


def group_by_reason(entries: list[Any]) -> list[tuple[str, list[Any]]]:
    """``(reason, entries)`` for the unbounded ``entries``, in order of first appearance."""
    groups: dict[str, list[Any]] = {}
    for e in entries:
        if e.unbounded:
            groups.setdefault(e.reason or "no finite bound", []).append(e)
    return list(groups.items())


class UnboundedReasons(QTreeWidget):
    """One collapsed line per reason a total is unbounded; its entries expand on demand."""

    def __init__(self, parent: QWidget | None = None, *, tip: str = "") -> None:
        super().__init__(parent)
        self.setColumnCount(1)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip(tip)
        self.hide()

    def lines(self) -> list[str]:
        """The top-level lines (one per reason)."""
        items = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None]

    def set_entries(self, entries: list[Any]) -> None:
        """Show the reasons of ``entries``' unbounded ones (hidden when there is none)."""
        self.clear()
        groups = group_by_reason(entries)
        red = QColor(ERROR_COLOUR)
        for reason, es in groups:
            n = len(es)
            datasets = sorted({e.dataset for e in es})
            where = datasets[0] if len(datasets) == 1 else f"{len(datasets)} datasets"
            item = QTreeWidgetItem(self, [f"Unbounded, {n} entr{'y' if n == 1 else 'ies'} "
                                          f"({where}): {reason}"])
            item.setForeground(0, red)
            item.setToolTip(0, f"{reason}\n\nEntries: " + ", ".join(e.id for e in es))
            for e in es:
                uses = f", {e.count} uses" if e.count != 1 else ""
                mode = "" if e.is_release else " — seeded experiment, not spent"
                child = QTreeWidgetItem(item, [f"{e.id}: {e.mechanism} on {e.dataset}"
                                               f"{uses}{mode}"])
                child.setToolTip(0, e.released or reason)
        self.collapseAll()
        rows = min(len(groups), 4)
        self.setFixedHeight(rows * max(18, self.sizeHintForRow(0)) + 2 * self.frameWidth() + 4
                            if rows else 0)
        self.setVisible(bool(groups))
