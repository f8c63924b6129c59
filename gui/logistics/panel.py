"""The Logistics map workspace (thesis Ch. 4): map editor, task picker, results, experiments.

**Map & planning** (first inner tab). Top, the map canvas
(:class:`gui.logistics.map_view.MapCanvas`) of one map of ``Project.maps``: bases as circles,
centers as squares, each agent's area tinted in its colour, routes labelled with their
lengths. When the project has no map, the tab offers one-click **fig41 (reconstruction)**
(the built-in example) and **Generate world…** (N centers, seed; spec §6.4). Editing:

* right-click: add a base (of an agent, linked to its nearest node, or of a new agent), add
  a center here joining the selected bases (or the two nearest agents), assign a base to
  an agent, add a base linked to the clicked node, connect, delete;
* drag moves nodes (one undo step per drag), Shift+drag from a node to another connects
  them, Delete deletes the selection, double-click edits, ``F`` fits, the wheel zooms,
  middle-drag pans;
* the Inspector (right dock) edits the selection: a base's id and agent, a center's
  agents and capacity lc, a route's length, the map's name.

Every edit is a :class:`gui.logistics.commands.SetMapCommand` that replaces the map dict,
validated first by :func:`core.logistics.edits.checked` (so by
:class:`core.logistics.model.LogisticsWorld`): an invalid edit — a disconnected area, a
center with one agent, a length ≤ 0 — is refused with a message naming the node, edge or
agent, and the document stays untouched.

The task picker (right dock) takes the origin base, the goal agent (and optionally the goal
base, or one of the map's stored tasks), the approach (DP-based, No-privacy, Best-first,
Greedy), the preset (sound by default; thesis, whose tooltip lists its flaws), ε, the
communication budget C and the randomness (seeded experiment or release mode). Run (F5)
plans in this tab's :class:`~gui.shell.workers.TaskRunner` (Esc cancels); the result becomes a
:class:`~core.project.model.RunRecord` (kind ``plan``) and the agents' ledger entries are appended
to ``Project.ledger`` (dataset ``agent:<name>``) by one undoable
:class:`~gui.shell.commands.AddRunCommand`. Below the canvas,
:class:`gui.logistics.results.PlanResultsView` shows the route, Fig 4.3, Fig 4.4, Fig 4.6
and the per-agent ledger; the executed route is also drawn on the canvas. A task that
cannot be planned is a result with its reason (shown in red), not an error.

**Experiments** (second inner tab): :class:`gui.logistics.experiments.ExperimentsPage`;
**Packet routing** (third): :class:`gui.logistics.packet_experiments.PacketExperimentsPage`.

Layout of the package: the panel keeps construction, maps and the Workspace protocol, and has
two parts, :class:`gui.logistics.editing.MapEditor` (the map edits and the Inspector) and
:class:`gui.logistics.planning.TaskPlanner` (the task picker, the run and its record), each
given the page's :class:`gui.logistics.views.MapState`, a frozen bundle of the widgets it
uses and callables — never the panel; texts and worker jobs are :mod:`gui.logistics.jobs`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.logistics import MapEntry, map_to_dict
from core.logistics import edits as E
from gui.logistics.commands import SetMapCommand, new_map_id
from gui.logistics.editing import MapEditor
from gui.logistics.experiments import ExperimentsPage
from gui.logistics.jobs import (
    generate_job,
    map_structure,
)
from gui.logistics.map_view import MapCanvas
from gui.logistics.packet_experiments import PacketExperimentsPage
from gui.logistics.planning import TaskPlanner
from gui.logistics.results import PlanResultsView, RatioSplitter
from gui.logistics.views import EditWidgets, MapState, PlanWidgets
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import open_failure_text

__all__ = ["LogisticsPanel", "GenerateWorldDialog", "preview", "FIG41_ASSET", "GENERATED30_ASSET"]

FIG41_ASSET = ("examples", "fig41.map.json")
GENERATED30_ASSET = ("examples", "generated30.map.json")

class GenerateWorldDialog(QDialog):
    """N centers, seed and whether to add one round of tasks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate a logistics world")
        form = QFormLayout(self)
        self.n_spin = QSpinBox(self)
        self.n_spin.setRange(2, 80)
        self.n_spin.setValue(30)
        self.n_spin.setToolTip("Number of logistic centers N; there are N agents with 5 bases "
                               "each (spec §6.4; the thesis's experiments use 10–50).")
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(30)
        self.tasks_check = QCheckBox("add one round of packages as stored tasks (p = 0.2 per "
                                     "base)", self)
        self.tasks_check.setChecked(True)
        self.domain_combo = QComboBox(self)
        for key, text in (("logistics", "logistics"), ("air", "airplane transport (4.7.2)"),
                          ("rover", "rover exploration (4.7.3)")):
            self.domain_combo.addItem(text, key)
        form.addRow("domain", self.domain_combo)
        form.addRow("centers N", self.n_spin)
        form.addRow("seed", self.seed_spin)
        form.addRow(self.tasks_check)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class LogisticsPanel(ToolPanel):
    """The Logistics map tool tab (see the module docstring); its map page's runner,
    refusals and records are the :class:`~gui.shell.tool_panel.ToolPanel`'s."""

    status_name = "Logistics"
    log_name = "logistics"
    undo_key = "logistics"
    refusal_prefix = ""  # the reasons name the field themselves ("ε: …", "origin: …")
    run_kinds = ("plan",)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.state = MapState(document)  # the map shown, the job, the runs (shared by parts)
        self.setObjectName("logistics_panel")

        self.experiments = ExperimentsPage(document, self)
        self.experiments.message_logged.connect(self.message_logged)
        self.packet = PacketExperimentsPage(document, self)
        self.packet.message_logged.connect(self.message_logged)
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.addTab(self._build_map_page(), "Map && planning")
        self.editor.connect()
        self.pages.addTab(self.experiments, "Experiments (Fig 4.7–4.11)")
        self.pages.addTab(self.packet, "Packet routing (Fig 4.9–4.11)")
        self.pages.setTabToolTip(0, "Draw or generate a map, plan a task, inspect every step.")
        self.pages.setTabToolTip(1, "The benchmarks B1–B5: route length, messages and success "
                                    "against N and ε for the four approaches.")
        self.pages.setTabToolTip(2, "Packet routing with dynamics (nodes leave and join): "
                                    "Figs 4.9–4.11 with intervals and paired claims.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.pages)

        self.planner = TaskPlanner(
            document, self.state, PlanWidgets(
                self.pages, self.experiments, self.packet, self.results, self.canvas,
                self.route_check, (self.empty_generate_button, self.empty_fig41_button)),
            self._runner, log=self.message_logged.emit, running_changed=self.running_changed.emit,
            refuse=self.refuse, clear_problem=self.clear_problem, record=self.record,
            select_map=self.select_map, sync_route=self._sync_route_overlay)
        self.info_panel = QStackedWidget()
        self.info_panel.setObjectName("logistics_info_panel")
        self.info_panel.addWidget(self.planner.build_side())
        self.run_message = self.planner.run_message  # where ToolPanel.refuse says why
        self.info_panel.addWidget(self.experiments.controls)
        self.info_panel.addWidget(self.packet.controls)
        self.pages.currentChanged.connect(self.info_panel.setCurrentIndex)

        self.planner.connect()
        self.connect_runner()
        document.map_changed.connect(self._on_document_map_changed)
        document.project_replaced.connect(self._on_document_project_replaced)

        maps = document.project.maps
        self.state.map_id = maps[0].id if maps else None
        self._refresh_maps()
        self.planner.update_running(False)

    # ================================================================== construction
    def _build_map_page(self) -> QWidget:
        page = QWidget(self)
        # --- empty state
        empty = QWidget(page)
        el = QVBoxLayout(empty)
        el.addStretch(1)
        text = QLabel(
            "<h3>No logistics map in this project yet</h3>"
            "<p>A logistics map is the world of thesis Chapter 4: agents own private "
            "<b>bases</b> (circles) and <b>routes</b> with lengths; their areas meet at public "
            "<b>logistic centers</b> (squares). A package travels from a base to another "
            "agent's area, and every agent keeps its own map private.</p>"
            "<p>Start from the built-in example — the reconstruction of the thesis's Fig 4.1, "
            "six units a–f — or generate a random world (spec §6.4). You can then edit it: "
            "right-click to add bases and centers, Shift+drag to connect, Delete to remove.</p>",
            empty)
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        text.setMaximumWidth(640)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        row = QHBoxLayout()
        row.addStretch(1)
        self.empty_fig41_button = QPushButton("fig41 (reconstruction)", empty)
        self.empty_fig41_button.setToolTip("Add the six-unit example of thesis Fig 4.1 (a "
                                           "reconstruction: lengths and layout invented by "
                                           "the spec) to the project.")
        self.empty_fig41_button.clicked.connect(self.load_fig41)
        self.empty_generate_button = QPushButton("Generate world…", empty)
        self.empty_generate_button.setToolTip("Generate a random world: N centers, N agents "
                                              "with 5 bases each (spec §6.4).")
        self.empty_generate_button.clicked.connect(self._on_generate_clicked)
        self.empty_import_button = QPushButton("Open map file…", empty)
        self.empty_import_button.clicked.connect(self.import_map_file)
        for b in (self.empty_fig41_button, self.empty_generate_button,
                  self.empty_import_button):
            b.setMinimumHeight(34)
            row.addWidget(b)
        row.addStretch(1)
        h = QHBoxLayout()
        h.addStretch(1)
        h.addWidget(text)
        h.addStretch(1)
        el.addLayout(h)
        el.addLayout(row)
        el.addStretch(2)

        # --- editor
        editor = QWidget(page)
        bar = QHBoxLayout()
        bar.setSpacing(4)
        bar.addWidget(QLabel("Map:", editor))
        self.map_combo = QComboBox(editor)
        self.map_combo.setMinimumWidth(130)  # the bar fits a 1366-px window
        self.map_combo.setToolTip("The project's logistics maps.")
        self.map_combo.currentIndexChanged.connect(self._on_map_combo_changed)
        bar.addWidget(self.map_combo)
        self.add_map_button = QToolButton(editor)
        self.add_map_button.setText("Add map ▾")
        self.add_map_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_map_button)
        menu.addAction("fig41 (reconstruction)", self.load_fig41)
        menu.addAction("Generated world, 30 centers (built-in)", self.load_generated30)
        menu.addAction("Airplane transport example (built-in)", lambda: self.load_domain("air"))
        menu.addAction("Rover exploration example (built-in)", lambda: self.load_domain("rover"))
        menu.addAction("Generate world…", self._on_generate_clicked)
        menu.addAction("Open map file…", self.import_map_file)
        self.add_map_button.setMenu(menu)
        bar.addWidget(self.add_map_button)
        self.export_button = QToolButton(editor)
        self.export_button.setText("Export…")
        self.export_button.setToolTip("Save this map as a *.map.json file.")
        self.export_button.clicked.connect(self.export_map_file)
        bar.addWidget(self.export_button)
        self.remove_map_button = QToolButton(editor)
        self.remove_map_button.setText("Remove")
        self.remove_map_button.setToolTip("Remove this map from the project (undoable).")
        self.remove_map_button.clicked.connect(self.remove_current_map)
        bar.addWidget(self.remove_map_button)
        bar.addSpacing(10)
        self.add_base_button = QToolButton(editor)
        self.add_base_button.setText("+ base")
        self.add_base_button.setToolTip("Add a base linked to the selected node (a base of "
                                        "the same agent, or a center).")
        self.add_center_button = QToolButton(editor)
        self.add_center_button.setText("+ center")
        self.add_center_button.setToolTip("Add a center joining the selected bases (of at "
                                          "least two agents).")
        self.connect_button = QToolButton(editor)
        self.connect_button.setText("Connect")
        self.connect_button.setToolTip("Add a route between the two selected nodes (or "
                                       "Shift+drag from one node to another).")
        self.delete_button = QToolButton(editor)
        self.delete_button.setText("Delete")
        self.delete_button.setToolTip("Delete the selected nodes and routes (Delete key).")
        for tool in (self.add_base_button, self.add_center_button, self.connect_button,
                     self.delete_button):
            bar.addWidget(tool)
        bar.addStretch(1)
        self.lengths_check = QCheckBox("lengths", editor)
        self.lengths_check.setChecked(True)
        self.lengths_check.setToolTip("Show route lengths (private to each agent).")
        bar.addWidget(self.lengths_check)
        self.route_check = QCheckBox("route", editor)
        self.route_check.setChecked(True)
        self.route_check.setToolTip("Overlay the last executed route on the map.")
        bar.addWidget(self.route_check)
        self.fit_button = QToolButton(editor)
        self.fit_button.setText("Fit (F)")
        bar.addWidget(self.fit_button)

        self.message_label = QLabel(editor)
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.RichText)
        self.message_label.setStyleSheet(
            f"QLabel {{ color: {ERROR_COLOUR}; background: #FDECE6; border: 1px solid "
            f"{ERROR_COLOUR}; border-radius: 3px; padding: 3px 6px; }}")
        self.message_label.hide()
        self.canvas = MapCanvas(editor, editable=True)
        self.hint_label = QLabel(editor)
        self.hint_label.setStyleSheet("QLabel { color: #666; }")
        self.hint_label.setWordWrap(True)  # one line was 648 px: the tab scrolled at 1366 px
        self.hint_label.setText("Right-click: add bases and centers · Shift+drag: connect · "
                                "Delete: remove · drag: move · F: fit · wheel: zoom")
        el2 = QVBoxLayout(editor)
        el2.setContentsMargins(0, 0, 0, 0)
        el2.setSpacing(3)
        el2.addLayout(bar)
        el2.addWidget(self.message_label)
        self.editor = MapEditor(
            self._document, self.state, EditWidgets(
                self.canvas, self.message_label, self.add_base_button, self.add_center_button,
                self.connect_button, self.delete_button, self.lengths_check, self.route_check,
                self.fit_button, self.export_button, self.remove_map_button),
            log=self.message_logged.emit, sync_route=self._sync_route_overlay, menu_parent=self)
        self.inspector_panel = self.editor.build_inspector()
        side_split = RatioSplitter(Qt.Orientation.Horizontal, 0.8, editor)
        side_split.addWidget(self.canvas)
        side_split.addWidget(self.inspector_panel)
        el2.addWidget(side_split, 1)
        el2.addWidget(self.hint_label)

        self.map_stack = QStackedWidget(page)
        self.map_stack.addWidget(empty)
        self.map_stack.addWidget(editor)
        self.results = PlanResultsView(page)
        split = QSplitter(Qt.Orientation.Vertical, page)
        split.addWidget(self.map_stack)
        split.addWidget(self.results)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 4)
        split.setChildrenCollapsible(False)
        self.splitter = split
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.addWidget(split)
        return page

    # ================================================================== maps
    @property
    def is_running(self) -> bool:
        """True while the work of the current page runs (planning, or the benchmark)."""
        return self.planner.is_running

    # Workspace protocol: the planner runs the map page, the experiments page its benchmark
    def run(self) -> bool:
        """Run the current page's work (F5): plan the task, or the benchmark."""
        return self.planner.run()

    def cancel(self) -> None:
        """Cancel the current page's work (Esc)."""
        self.planner.cancel()

    def randomness_label(self) -> str:
        """For the status bar: the randomness of the next plan (or benchmark)."""
        return self.planner.randomness_label()

    def shutdown(self) -> None:
        self.planner.shutdown()

    def show_run(self, run_id: str) -> bool:  # type: ignore[override]
        """Show a recorded run (``plan`` or ``plan-bench``), e.g. picked in the Project tree."""
        return self.planner.show_run(run_id)

    def show_record(self, kind: str, summary: dict[str, Any], run_id: str | None) -> None:
        """A plan just recorded (:meth:`ToolPanel.record`): shown with its live figures."""
        if run_id is not None:
            self.planner.show_recorded(run_id)

    @property
    def shown_run(self) -> str | None:  # the plan run shown (None after its undo)
        return None if self.state.shown is None else self.state.shown["run_id"]

    def _on_runner_succeeded(self, value: object) -> None:
        job = self.state.job or {}
        if job.get("kind") == "generate":
            self.add_map(value, "Generate world")  # type: ignore[arg-type]
        elif job.get("kind") == "plan":
            self.planner.record_plan(job, value)  # type: ignore[arg-type]

    @property
    def current_index(self) -> int:
        return self.state.index

    def current_entry(self) -> MapEntry | None:
        """The map shown, as the project holds it (None when the project has no map)."""
        return self.state.entry()

    def current_map(self) -> dict[str, Any] | None:
        return self.state.map_dict()

    def select_map(self, map_id: str) -> None:
        self.state.map_id = map_id
        self._refresh_maps()

    def _refresh_maps(self) -> None:
        maps = self._document.project.maps
        ids = [m.id for m in maps]
        if self.state.map_id not in ids:
            self.state.map_id = ids[0] if ids else None
        self.state.syncing = True
        self.map_combo.clear()
        for m in maps:
            self.map_combo.addItem(f"{m.label}  [{m.id}]", m.id)
        i = self.map_combo.findData(self.state.map_id)
        if i >= 0:
            self.map_combo.setCurrentIndex(i)
        self.state.syncing = False
        self.map_stack.setCurrentIndex(1 if ids else 0)
        d = self.current_map()
        self.canvas.set_map(d)
        self._sync_route_overlay()
        self.planner.fill_task_picker()
        self.editor.update_inspector()
        self.editor.update_edit_buttons()

    def _sync_route_overlay(self) -> None:
        d = self.current_map()
        s = self.state.shown
        if (s is not None and d is not None and self.route_check.isChecked()
                and s["map_id"] == self.state.map_id and map_structure(d) == s["structure"]
                and s["result"].success):
            self.canvas.set_route(s["result"].route, s["result"].segments)
        else:
            self.canvas.set_route(None)

    def _on_map_combo_changed(self, index: int) -> None:
        if self.state.syncing or index < 0:
            return
        self.state.map_id = self.map_combo.itemData(index)
        self.editor.hide_messages()
        self.canvas.set_map(self.current_map())
        self._sync_route_overlay()
        self.planner.fill_task_picker()
        self.editor.update_inspector()
        self.canvas.fit_to_view()

    def _on_document_map_changed(self, index: int) -> None:
        maps = self._document.project.maps
        if 0 <= index < len(maps) and self.state.map_id is None:
            self.state.map_id = maps[index].id
        self._refresh_maps()

    def _on_document_project_replaced(self) -> None:
        self.state.map_id = None
        self.state.shown = None
        self.state.runs.clear()
        self.results.clear()
        self._refresh_maps()

    def add_map(self, data: Mapping[str, Any], text: str = "Add map") -> str | None:
        """Validate ``data`` (a map dict), then add it to the project (undoable); its id."""
        try:
            d = E.checked(E.with_id(data, new_map_id(self._document)))
        except InputError as exc:
            self.editor.refuse(f"Map not added: {exc}")
            return None
        mid = str(d["id"])
        self.state.map_id = mid
        self._document.push(SetMapCommand(self._document, len(self._document.project.maps),
                                          d, f"{text} “{E.map_label(d)}”"), "logistics")
        self.message_logged.emit("INFO", f"logistics: map “{E.map_label(d)}” added as {mid}")
        self.canvas.fit_to_view()
        return mid

    def _load_asset(self, parts: tuple[str, str], fallback: Callable[[], Any]) -> str | None:
        from gui.shell.resources import asset_path

        path = asset_path(*parts)
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            data = map_to_dict(fallback())
        mid = self.add_map(data, "Add map")
        if mid is not None:  # an example opens on its map, not under the last one's result
            self.state.shown = None
            self.results.clear()
            self._sync_route_overlay()
            self.pages.setCurrentIndex(0)
        return mid

    def load_fig41(self) -> str | None:
        """Add the fig41 reconstruction (the built-in example) to the project."""
        from core.logistics import fig41

        return self._load_asset(FIG41_ASSET, fig41)

    def load_generated30(self) -> str | None:
        """Add the built-in generated 30-center world to the project."""
        from core.logistics import generate_world

        return self._load_asset(GENERATED30_ASSET, lambda: generate_world(30, seed=30))

    def load_domain(self, domain: str) -> str | None:
        """Add the built-in example map of ``domain`` (``air`` or ``rover``, thesis §4.7)."""
        from gui.logistics.example_maps import domain_fallback

        return self._load_asset(("examples", f"{domain}.map.json"), domain_fallback(domain))

    def _on_generate_clicked(self) -> None:
        dlg = GenerateWorldDialog(self)
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.generate_world(dlg.n_spin.value(), dlg.seed_spin.value(),
                                tasks=dlg.tasks_check.isChecked(),
                                domain=dlg.domain_combo.currentData())

    def generate_world(self, n_centers: int, seed: int, *, tasks: bool = True,
                       domain: str = "logistics") -> bool:
        """Generate a world in the worker; it is added to the project when done."""
        if self.is_running:
            return False
        self.state.job = {"kind": "generate", "n": n_centers, "seed": seed}
        self._runner.start(generate_job, int(n_centers), int(seed), bool(tasks), domain)
        return True

    def import_map_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a logistics map", "",
                                              "Logistics maps (*.map.json *.json)")
        if path:
            self.import_map_path(path)

    def import_map_path(self, path: str) -> str | None:
        from core.logistics import load_map

        try:
            world = load_map(path)
        except Exception as exc:  # noqa: BLE001 - any failure: a dialog, the project kept
            text = open_failure_text(exc, path)
            self.editor.refuse(f"Map not added: {text}")
            QMessageBox.critical(self, "Cannot open map", f"The map was not added.\n\n{text}")
            return None
        return self.add_map(map_to_dict(world), "Import map")

    def export_map_file(self) -> None:
        d = self.current_map()
        if d is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the logistics map",
                                              f"{d.get('id', 'map')}.map.json",
                                              "Logistics maps (*.map.json)")
        if path:
            from core.logistics import save_map

            try:
                save_map(E.world_of(d), path)
            except (InputError, OSError) as exc:
                self.editor.refuse(f"Not exported: {exc}")
                return
            self.message_logged.emit("INFO", f"logistics: map exported to {path}")

    def remove_current_map(self) -> None:
        i = self.current_index
        if i < 0:
            return
        label = self._document.project.maps[i].label
        self.state.map_id = None
        self._document.push(SetMapCommand(self._document, i, None, f"Remove map “{label}”"),
                            "logistics")


register_tool(ToolSpec(
    "logistics", "Logistics map",
    lambda window: LogisticsPanel(window.document, window, status_bar=window.statusBar()),
    "DP multi-agent route planning (thesis Ch. 4): draw or generate a map, plan a task, "
    "inspect Fig 4.3–4.6 and the per-agent ledger; the benchmarks of Fig 4.7–4.11."))


def preview(exec_: bool = True) -> QWidget:
    """The tab on the built-in example project with fig41 loaded (and its side panel)."""
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        doc = example_document()
        holder = QSplitter(Qt.Orientation.Horizontal)
        panel = LogisticsPanel(doc, holder)
        holder.addWidget(panel)
        holder.addWidget(cast(QWidget, panel.info_panel))  # this tab always has one
        holder.setSizes([1000, 320])
        panel.load_fig41()
        return holder

    return run_preview(build, exec_=exec_, title="Logistics map", size=(1350, 860))


if __name__ == "__main__":
    preview()
