"""What the logistics result tabs share: colours, formatting, table cells and the splitter."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.logistics import center_route
from gui.logistics.map_view import (
    agent_colours,
)
from gui.shell.style import PRIVATE_ACCENT, fmt_num

__all__ = ["TABS", "ACCENT", "GREY", "world_colours", "fmt_estimate", "chosen_arcs", "eps_text",
           "guarantee_text", "make_table", "make_cell", "rich_label", "column", "RatioSplitter",
           "world_positions", "route_handovers", "ORIGIN", "GOAL"]

ORIGIN, GOAL = "\x00origin", "\x00goal"  # the center graph's two virtual nodes (planner)
TABS = ("route", "agents", "obfuscation", "centers", "ledger", "learning")
ACCENT = QColor(PRIVATE_ACCENT)
GREY = QColor("#8A8A8A")


def world_colours(world: Any) -> dict[str, QColor]:
    """The agent colours of a world (same rule as the map canvas)."""
    pairs = [(u, v) for c in world.center_ids for i, u in enumerate(world.members[c])
             for v in world.members[c][i + 1:]]
    return agent_colours(list(world.agents), pairs)


def fmt_estimate(x: float) -> str:
    """Crossing estimates span decades (released probabilities can be near-uniform)."""
    if x is None or not math.isfinite(x):
        return "∞"
    if abs(x) >= 1e5:
        return f"{x:.2e}"
    return f"{x:.0f}" if abs(x) >= 10 else f"{x:.1f}"


def chosen_arcs(result: Any) -> list[tuple[str, str, str]]:
    """The (from, to, agent) arcs of the center route the origin chose (Step 3)."""
    arcs = list(getattr(result, "center_graph", ()) or ())
    if not arcs:
        return []
    found = center_route(arcs, ORIGIN, GOAL)  # the planner's own tie-breaking
    return [] if found is None else list(found[1])


def route_handovers(result: Any) -> set[tuple[str, str, str]]:
    """(agent, agent, center) of each hand-over on a successful route, agents in name
    order (the high-level map of Step 1 draws these edges bold)."""
    handovers = set()
    if result.success:
        for (a1, _f, t), (a2, _f2, _t2) in zip(result.segments, result.segments[1:]):
            handovers.add((min(a1, a2), max(a1, a2), t))
    return handovers


def eps_text(x: float) -> str:
    """An ε for a table cell: ∞ when nothing is proven."""
    return "∞" if x is None or math.isinf(x) else fmt_num(x, 3)


def guarantee_text(session: Any) -> str:
    """The run's headline privacy figure: the largest per-agent ε proven, or why none."""
    g = session.guarantee()
    if not any(session.ledgers[a].entries for a in session.world.agents):
        return "nothing private was released (ε = 0)"
    if not g.bounded:
        return f"no proven bound (ε = ∞): {g.reason}"
    return f"ε ≤ {g.epsilon:.4g} per agent, δ = 0 ({g.adjacency.split(':')[0]})"


def make_table(headers: Sequence[str], parent: QWidget) -> QTableWidget:
    t = QTableWidget(0, len(headers), parent)
    t.setHorizontalHeaderLabels(list(headers))
    t.verticalHeader().hide()
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setAlternatingRowColors(True)
    t.setWordWrap(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def make_cell(text: str, tip: str = "", *, bold: bool = False,
          align_right: bool = False) -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    if tip:
        it.setToolTip(tip)
    if bold:
        f = it.font()
        f.setBold(True)
        it.setFont(f)
    if align_right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return it


def rich_label(parent: QWidget, *, selectable: bool = False) -> QLabel:
    """A word-wrapped rich-text label (captions and notes beside the figures)."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def column(parent: QWidget, top: QWidget, main: QWidget) -> QWidget:
    """``top`` above ``main`` (which takes the extra space), without margins."""
    w = QWidget(parent)
    lay = QVBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(top)
    lay.addWidget(main, 1)
    return w


class RatioSplitter(QSplitter):
    """A splitter that keeps its first pane at ``ratio`` of the space until the user drags."""

    def __init__(self, orientation: Qt.Orientation, ratio: float,
                 parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._ratio = ratio
        self._user = False
        self.setChildrenCollapsible(False)
        self.splitterMoved.connect(self._on_splitter_moved)

    def _on_splitter_moved(self, *args: object) -> None:
        self._user = True

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        if not self._user and self.count() == 2:
            total = (self.width() if self.orientation() == Qt.Orientation.Horizontal
                     else self.height()) - self.handleWidth()
            first = int(total * self._ratio)
            self.blockSignals(True)
            self.setSizes([first, max(1, total - first)])
            self.blockSignals(False)


def world_positions(world: Any) -> dict[str, QPointF]:
    from core.logistics import map_to_dict
    from gui.logistics.map_view import display_positions

    return display_positions(map_to_dict(world))


# ---------------------------------------------------------------------------- route
