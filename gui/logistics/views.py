"""What the parts of the logistics map page are given: the map shown and widget bundles.

The panel (:class:`gui.logistics.panel.LogisticsPanel`) builds the map page and hands each
part only the widgets it reads or writes, as a frozen bundle, with callables for the few
things it asks of the panel (log a line, redraw the route, add or select a map) — the parts
never see the panel.

* :class:`MapState` — the map shown, the job in the runner and the planning runs of this
  session (with the one shown): one object, written by the panel and its parts alike.
* :class:`EditWidgets` — the edit bar, the canvas and the refusal banner (for
  :class:`gui.logistics.editing.MapEditor`).
* :class:`PlanWidgets` — the pages, the results and what a run is drawn on (for
  :class:`gui.logistics.planning.TaskPlanner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QTabWidget, QToolButton

if TYPE_CHECKING:
    from core.logistics import MapEntry
    from gui.logistics.experiments import ExperimentsPage
    from gui.logistics.map_view import MapCanvas
    from gui.logistics.packet_experiments import PacketExperimentsPage
    from gui.logistics.results import PlanResultsView
    from gui.shell.document import ProjectDocument

__all__ = ["MapState", "EditWidgets", "PlanWidgets"]


@dataclass
class MapState:
    """The map page's state: which of the project's maps is shown, the worker's job, the
    planning runs of this session (what is needed to show each) and the one shown."""

    document: ProjectDocument
    map_id: str | None = None
    syncing: bool = False  # combos are being filled: their signals are not the user's edits
    job: dict[str, Any] | None = None  # what the runner is doing (kind plan or generate)
    shown: dict[str, Any] | None = None  # the run whose results are displayed
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)  # run id -> how to show it

    @property
    def index(self) -> int:
        """The index of the map shown in ``Project.maps`` (-1 when none)."""
        for i, m in enumerate(self.document.project.maps):
            if m.id == self.map_id:
                return i
        return -1

    def entry(self) -> MapEntry | None:
        """The map shown, as the project holds it (None when the project has no map)."""
        i = self.index
        return None if i < 0 else self.document.project.maps[i]

    def map_dict(self) -> dict[str, Any] | None:
        """The map shown as a map dict (None when the project has no map)."""
        e = self.entry()
        return None if e is None else e.to_dict()


@dataclass(frozen=True)
class EditWidgets:
    """The map editor's widgets on the panel: the edit bar, the canvas, the banner."""

    canvas: MapCanvas
    message_label: QLabel  # the banner of a refused edit (its tooltip keeps the plain text)
    add_base_button: QToolButton
    add_center_button: QToolButton
    connect_button: QToolButton
    delete_button: QToolButton
    lengths_check: QCheckBox
    route_check: QCheckBox
    fit_button: QToolButton
    export_button: QToolButton
    remove_map_button: QToolButton


@dataclass(frozen=True)
class PlanWidgets:
    """The planner's widgets on the panel: the pages whose work it runs, the results it
    shows, the canvas and route check it draws a loaded run on, the empty state's buttons."""

    pages: QTabWidget  # map | experiments | packet routing
    experiments: ExperimentsPage
    packet: PacketExperimentsPage
    results: PlanResultsView
    canvas: MapCanvas
    route_check: QCheckBox
    start_buttons: tuple[QPushButton, ...]  # disabled while a run is going
