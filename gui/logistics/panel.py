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

**Experiments** (second inner tab): :class:`gui.logistics.experiments.ExperimentsPage`.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.common.errors import InputError
from core.logistics import edits as E
from core.logistics.io import map_from_dict, map_to_dict
from core.logistics.model import Task, validate_task
from core.logistics.planner import APPROACHES, THESIS_FLAWS, PlannerParams, PlanningSession
from core.project.model import RunRecord
from gui.logistics.commands import SetMapCommand, new_map_id
from gui.logistics.experiments import ExperimentsPage
from gui.logistics.map_view import MapCanvas
from gui.logistics.results import PlanResultsView, RatioSplitter
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import show_field_error
from gui.shell.workers import TaskRunner

__all__ = ["LogisticsPanel", "TOOLTIPS", "APPROACH_TEXT", "plan_job", "generate_job",
           "GenerateWorldDialog", "preview", "FIG41_ASSET", "GENERATED30_ASSET"]

FIG41_ASSET = ("examples", "fig41.map.json")
GENERATED30_ASSET = ("examples", "generated30.map.json")

APPROACH_TEXT = {
    "dp": ("DP-based", "The thesis's method: query flooding (Step 1), obfuscated maps and "
                       "route probabilities from the intermediate agents (Step 2), a center "
                       "route from estimated crossings (Step 3)."),
    "noprivacy": ("No-privacy", "The same steps and messages, but the agents share exact "
                                "crossing distances: the upper reference for route quality."),
    "bestfirst": ("Best-first", "Hop by hop: the holder broadcasts at every center and the "
                                "nearest agent takes the package (it can loop)."),
    "greedy": ("Greedy (GPPP)", "A global plan over the public center graph by hop count, "
                                "then exact local legs."),
}

TOOLTIPS = {
    "epsilon": "ε (epsilon): each agent's privacy budget for its map. Smaller ε = more noise "
               "on its topology and route probabilities = more private, and usually worse "
               "routes. Must be > 0.",
    "budget": "C: the communication budget, in messages per agent and run (the thesis counts "
              "ε/C per message). When an agent has sent C messages it stops communicating. "
              "“auto” is N + 30 for N centers (spec §6.4: 40–80).",
    "preset": "sound (default): proves ε per agent (node adjacency). ε is split between "
              "topology and probabilities, node-DP sensitivity 2·d_max + 1 with the map's "
              "declared degree cap, a released map that is pure post-processing of the noisy "
              "degree histogram (no real base or route kept), Laplace noise on the released "
              "probabilities.\nthesis: the method exactly as written; it proves NO finite ε "
              "(shown as ∞ with the reason). Its flaws:\n• " + "\n• ".join(THESIS_FLAWS),
    "mode": "Seeded experiment: the noise is reproducible from the seed; its ledger entries are "
            "listed but not spent. Release mode: secure noise from the OS; the releases count "
            "against each agent's budget.",
    "origin": "V_S: the base where the package starts. Its agent is the origin agent, who "
              "plans the route.",
    "goal_agent": "The agent whose area holds the destination. The origin knows only this "
                  "agent, not the goal base (spec §1.2).",
    "goal": "The destination base, known only to the goal agent. “any” = the goal agent "
            "delivers to its base nearest to where it receives the package.",
}
_AUTO_BUDGET = -1


# ---------------------------------------------------------------------------- worker jobs
def plan_job(world: Any, task: Task, approach: str, params: PlannerParams, rng: int | None,
             *, progress: Callable[[float, str], None]) -> tuple[Any, PlanningSession]:
    """Plan one task in a fresh session (runs in the worker; returns result and session)."""
    progress(0.0, "planning")
    session = PlanningSession(world, approach=approach, params=params, rng=rng)
    result = session.plan(task)
    progress(1.0, "done")
    return result, session


def generate_job(n_centers: int, seed: int, with_tasks: bool, *,
                 progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Generate a world (spec §6.4) and return its map dict (runs in the worker)."""
    from core.logistics.examples import generate_tasks, generate_world
    from core.logistics.model import LogisticsWorld

    progress(0.0, "generating")
    w = generate_world(n_centers, seed=seed, name=f"generated world (N = {n_centers}, seed "
                                                  f"{seed})")
    if with_tasks:
        tasks = generate_tasks(w, rng=seed)
        w = LogisticsWorld(w.graph, name=w.name, tasks=tasks, degree_cap=w.degree_cap,
                           note=f"spec §6.4 generator: {n_centers} centers, {len(w.agents)} "
                                "agents with 5 bases each; tasks: one round of packages "
                                "(p = 0.2 per base)")
    progress(1.0, "done")
    return map_to_dict(w)


def _structure(d: Mapping[str, Any] | None) -> str:
    """The map without positions (a moved node does not invalidate a route overlay)."""
    if d is None:
        return ""
    nodes = [{k: v for k, v in n.items() if k != "pos"} for n in d.get("nodes", ())]
    return json.dumps([nodes, d.get("edges", [])], sort_keys=True)


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
        form.addRow("centers N", self.n_spin)
        form.addRow("seed", self.seed_spin)
        form.addRow(self.tasks_check)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class LogisticsPanel(QWidget):
    """The Logistics map tool tab (see the module docstring)."""

    message_logged = Signal(str, str)  # level, text (the Log dock listens)
    running_changed = Signal(bool)  # the current page's work (Workspace protocol)
    can_run = True  # Workspace protocol: F5 runs this tab
    run_recorded = Signal(str)  # id of the plan RunRecord just added

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self._job: dict[str, Any] | None = None
        self._map_id: str | None = None
        self._shown: dict[str, Any] | None = None  # the run whose results are displayed
        self._runs: dict[str, dict[str, Any]] = {}  # run id -> what is needed to show it
        self._syncing = False
        self.setObjectName("logistics_panel")

        self.experiments = ExperimentsPage(document, self)
        self.experiments.message_logged.connect(self.message_logged)
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.addTab(self._build_map_page(), "Map && planning")
        self.pages.addTab(self.experiments, "Experiments (Fig 4.7–4.11)")
        self.pages.setTabToolTip(0, "Draw or generate a map, plan a task, inspect every step.")
        self.pages.setTabToolTip(1, "The benchmarks B1–B5: route length, messages and success "
                                    "against N and ε for the four approaches.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.pages)

        self.info_panel = QStackedWidget()
        self.info_panel.setObjectName("logistics_info_panel")
        self.info_panel.addWidget(self._build_side())
        self.info_panel.addWidget(self.experiments.controls)
        self.pages.currentChanged.connect(self.info_panel.setCurrentIndex)

        self.run_controls.running_changed.connect(self._update_running)
        self.experiments.run_controls.running_changed.connect(self._emit_running_changed)
        self.pages.currentChanged.connect(self._emit_running_changed)
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.cancelled.connect(self._on_runner_cancelled)
        document.map_changed.connect(self._on_document_map_changed)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.run_removed.connect(self._on_document_run_removed)
        document.run_added.connect(self._on_document_run_added)

        maps = document.project.maps
        self._map_id = str(maps[0].get("id")) if maps else None
        self._refresh_maps()
        self._update_running(False)

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
        self.map_combo.setMinimumWidth(220)
        self.map_combo.setToolTip("The project's logistics maps.")
        self.map_combo.currentIndexChanged.connect(self._on_map_combo_changed)
        bar.addWidget(self.map_combo)
        self.add_map_button = QToolButton(editor)
        self.add_map_button.setText("Add map ▾")
        self.add_map_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_map_button)
        menu.addAction("fig41 (reconstruction)", self.load_fig41)
        menu.addAction("Generated world, 30 centers (built-in)", self.load_generated30)
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
        self.add_base_button.clicked.connect(self._on_add_base_clicked)
        self.add_center_button = QToolButton(editor)
        self.add_center_button.setText("+ center")
        self.add_center_button.setToolTip("Add a center joining the selected bases (of at "
                                          "least two agents).")
        self.add_center_button.clicked.connect(self._on_add_center_clicked)
        self.connect_button = QToolButton(editor)
        self.connect_button.setText("Connect")
        self.connect_button.setToolTip("Add a route between the two selected nodes (or "
                                       "Shift+drag from one node to another).")
        self.connect_button.clicked.connect(self._on_connect_clicked)
        self.delete_button = QToolButton(editor)
        self.delete_button.setText("Delete")
        self.delete_button.setToolTip("Delete the selected nodes and routes (Delete key).")
        self.delete_button.clicked.connect(self.delete_selection)
        for b in (self.add_base_button, self.add_center_button, self.connect_button,
                  self.delete_button):
            bar.addWidget(b)
        bar.addStretch(1)
        self.lengths_check = QCheckBox("lengths", editor)
        self.lengths_check.setChecked(True)
        self.lengths_check.setToolTip("Show route lengths (private to each agent).")
        self.lengths_check.toggled.connect(self._on_lengths_toggled)
        bar.addWidget(self.lengths_check)
        self.route_check = QCheckBox("route", editor)
        self.route_check.setChecked(True)
        self.route_check.setToolTip("Overlay the last executed route on the map.")
        self.route_check.toggled.connect(self._on_route_toggled)
        bar.addWidget(self.route_check)
        fit = QToolButton(editor)
        fit.setText("Fit (F)")
        fit.clicked.connect(self._on_fit_clicked)
        bar.addWidget(fit)

        self.message_label = QLabel(editor)
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.RichText)
        self.message_label.setStyleSheet(
            f"QLabel {{ color: {ERROR_COLOUR}; background: #FDECE6; border: 1px solid "
            f"{ERROR_COLOUR}; border-radius: 3px; padding: 3px 6px; }}")
        self.message_label.hide()
        self.canvas = MapCanvas(editor, editable=True)
        self.canvas.selection_changed.connect(self._on_canvas_selection_changed)
        self.canvas.nodes_moved.connect(self._on_canvas_nodes_moved)
        self.canvas.connect_requested.connect(self._on_canvas_connect_requested)
        self.canvas.delete_requested.connect(self.delete_selection)
        self.canvas.context_menu_requested.connect(self._on_canvas_context_menu_requested)
        self.canvas.edge_activated.connect(self._on_canvas_edge_activated)
        self.canvas.node_activated.connect(self._on_canvas_node_activated)
        self.hint_label = QLabel(editor)
        self.hint_label.setStyleSheet("QLabel { color: #666; }")
        self.hint_label.setText("Right-click: add bases and centers · Shift+drag: connect · "
                                "Delete: remove · drag: move · F: fit · wheel: zoom")
        el2 = QVBoxLayout(editor)
        el2.setContentsMargins(0, 0, 0, 0)
        el2.setSpacing(3)
        el2.addLayout(bar)
        el2.addWidget(self.message_label)
        self.inspector_panel = self._build_inspector()
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

    def _build_inspector(self) -> QWidget:
        """The map Inspector (also exposed as ``inspector_panel`` for a window that docks
        tool inspectors; by default it sits beside the canvas)."""
        box = QGroupBox("Inspector")
        box.setObjectName("logistics_inspector")
        box.setMinimumWidth(200)
        bl = QVBoxLayout(box)
        bl.setContentsMargins(6, 6, 6, 6)
        self.inspector_title = QLabel(box)
        self.inspector_title.setWordWrap(True)
        self.inspector_title.setTextFormat(Qt.TextFormat.RichText)
        bl.addWidget(self.inspector_title)
        self.inspector_stack = QStackedWidget(box)
        # map form
        mf = QWidget()
        fl = QFormLayout(mf)
        fl.setContentsMargins(0, 0, 0, 0)
        self.map_name_edit = QLineEdit(mf)
        self.map_name_edit.editingFinished.connect(self._on_map_name_edited)
        fl.addRow("name", self.map_name_edit)
        self.map_info = QLabel(mf)
        self.map_info.setWordWrap(True)
        fl.addRow(self.map_info)
        # base form
        bf = QWidget()
        fb = QFormLayout(bf)
        fb.setContentsMargins(0, 0, 0, 0)
        self.base_id_edit = QLineEdit(bf)
        self.base_id_edit.editingFinished.connect(self._on_node_id_edited)
        self.base_agent_combo = QComboBox(bf)
        self.base_agent_combo.setEditable(True)
        self.base_agent_combo.setToolTip("The agent owning this base. Type a new name to give "
                                         "it to a new agent (its routes must then fit).")
        self.base_agent_combo.activated.connect(self._on_base_agent_edited)
        self.base_agent_combo.lineEdit().editingFinished.connect(self._on_base_agent_edited)
        fb.addRow("id", self.base_id_edit)
        fb.addRow("agent", self.base_agent_combo)
        # center form
        cf = QWidget()
        fc = QFormLayout(cf)
        fc.setContentsMargins(0, 0, 0, 0)
        self.center_id_edit = QLineEdit(cf)
        self.center_id_edit.editingFinished.connect(self._on_node_id_edited)
        self.center_agents_edit = QLineEdit(cf)
        self.center_agents_edit.setToolTip("The agents sharing this center, comma separated "
                                           "(at least two; each must have a route to it).")
        self.center_agents_edit.editingFinished.connect(self._on_center_agents_edited)
        self.center_capacity_spin = QSpinBox(cf)
        self.center_capacity_spin.setRange(1, 99)
        self.center_capacity_spin.setToolTip("Capacity lc: the most agents that may share this "
                                             "center (public; ≥ the agents sharing it). Σ lc "
                                             "bounds the Step-1 query messages (Thm 4.5).")
        self.center_capacity_spin.valueChanged.connect(self._on_center_capacity_changed)
        fc.addRow("id", self.center_id_edit)
        fc.addRow("agents", self.center_agents_edit)
        fc.addRow("capacity lc", self.center_capacity_spin)
        # edge form
        ef = QWidget()
        fe = QFormLayout(ef)
        fe.setContentsMargins(0, 0, 0, 0)
        self.edge_label = QLabel(ef)
        self.edge_length_edit = QLineEdit(ef)
        self.edge_length_edit.setToolTip("Route length (> 0): private to the agent owning the "
                                         "route; never sent to other agents.")
        self.edge_length_edit.editingFinished.connect(self._on_edge_length_edited)
        fe.addRow(self.edge_label)
        fe.addRow("length", self.edge_length_edit)
        # several
        sf = QLabel("Delete removes the selection (one undo step).")
        sf.setWordWrap(True)
        for page in (mf, bf, cf, ef, sf):
            self.inspector_stack.addWidget(page)
        bl.addWidget(self.inspector_stack)
        self.inspector_message = QLabel(box)
        self.inspector_message.setWordWrap(True)
        self.inspector_message.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.inspector_message.hide()
        bl.addWidget(self.inspector_message)
        bl.addStretch(1)
        return box

    def _build_side(self) -> QWidget:
        w = QWidget()
        w.setObjectName("logistics_map_side")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(4, 4, 4, 4)
        tbox = QGroupBox("Task and run", w)
        tf = QFormLayout(tbox)
        self.stored_task_combo = QComboBox(tbox)
        self.stored_task_combo.setToolTip("Tasks stored with the map (e.g. the thesis's "
                                          "running task a2 → f4).")
        self.stored_task_combo.activated.connect(self._on_stored_task_activated)
        tf.addRow("stored task", self.stored_task_combo)
        self.origin_combo = QComboBox(tbox)
        self.origin_combo.setToolTip(TOOLTIPS["origin"])
        self.goal_agent_combo = QComboBox(tbox)
        self.goal_agent_combo.setToolTip(TOOLTIPS["goal_agent"])
        self.goal_agent_combo.currentIndexChanged.connect(self._on_goal_agent_changed)
        self.goal_combo = QComboBox(tbox)
        self.goal_combo.setToolTip(TOOLTIPS["goal"])
        tf.addRow("origin base", self.origin_combo)
        tf.addRow("goal agent", self.goal_agent_combo)
        tf.addRow("goal base", self.goal_combo)
        self.approach_combo = QComboBox(tbox)
        for a in APPROACHES:
            self.approach_combo.addItem(APPROACH_TEXT[a][0], a)
            self.approach_combo.setItemData(self.approach_combo.count() - 1,
                                            APPROACH_TEXT[a][1], Qt.ItemDataRole.ToolTipRole)
        self.approach_combo.setToolTip("\n".join(f"{t}: {d}" for t, d in APPROACH_TEXT.values()))
        tf.addRow("approach", self.approach_combo)
        self.preset_combo = QComboBox(tbox)
        self.preset_combo.addItem("sound (recommended)", "sound")
        self.preset_combo.addItem("thesis (faithful, flawed)", "thesis")
        self.preset_combo.setToolTip(TOOLTIPS["preset"])
        tf.addRow("preset", self.preset_combo)
        self.epsilon_edit = QLineEdit("0.5", tbox)
        self.epsilon_edit.setToolTip(TOOLTIPS["epsilon"])
        eps_label = QLabel("ε", tbox)
        eps_label.setToolTip(TOOLTIPS["epsilon"])
        tf.addRow(eps_label, self.epsilon_edit)
        self.budget_spin = QSpinBox(tbox)
        self.budget_spin.setRange(_AUTO_BUDGET, 100000)
        self.budget_spin.setSpecialValueText("auto (N + 30)")
        self.budget_spin.setValue(_AUTO_BUDGET)
        self.budget_spin.setToolTip(TOOLTIPS["budget"])
        c_label = QLabel("budget C", tbox)
        c_label.setToolTip(TOOLTIPS["budget"])
        tf.addRow(c_label, self.budget_spin)
        self.mode_combo = QComboBox(tbox)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release mode (secure noise)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.mode_combo.currentIndexChanged.connect(self._on_mode_changed)
        tf.addRow("randomness", self.mode_combo)
        self.seed_spin = QSpinBox(tbox)
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(1)
        self.seed_spin.setToolTip("Seed of the experiment: the same seed gives the same noise "
                                  "and the same route.")
        tf.addRow("seed", self.seed_spin)
        self.run_message = QLabel(tbox)
        self.run_message.setWordWrap(True)
        self.run_message.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.run_message.hide()
        tf.addRow(self.run_message)
        self.run_controls = RunControls(
            self._runner, tbox, run=self.run_plan, cancel=self._runner.cancel,
            run_tip="Plan and execute this task in the background.",
            running_text=lambda: ("planning…" if (self._job or {}).get("kind") == "plan"
                                  else "generating…"), progress_width=None)
        self.run_button = self.run_controls.run_button
        self.cancel_button = self.run_controls.cancel_button
        self.progress = self.run_controls.progress
        self.progress_label = self.run_controls.progress_label
        self.progress_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        tf.addRow(row)
        tf.addRow(self.progress)
        tf.addRow(self.progress_label)
        for c in (self.stored_task_combo, self.origin_combo, self.goal_agent_combo,
                  self.goal_combo, self.approach_combo, self.preset_combo, self.mode_combo):
            c.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            c.setMinimumContentsLength(8)
        lay.addWidget(tbox)
        lay.addStretch(1)
        return w

    # ================================================================== maps
    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def is_running(self) -> bool:
        """True while the work of the current page runs (planning, or the benchmark)."""
        if self.pages.currentIndex() == 1:
            return self.experiments.is_running
        return self._runner.is_running

    @property
    def current_index(self) -> int:
        for i, m in enumerate(self._document.project.maps):
            if isinstance(m, dict) and str(m.get("id")) == self._map_id:
                return i
        return -1

    def current_map(self) -> dict[str, Any] | None:
        i = self.current_index
        return None if i < 0 else self._document.project.maps[i]

    def select_map(self, map_id: str) -> None:
        self._map_id = map_id
        self._refresh_maps()

    def _refresh_maps(self) -> None:
        maps = self._document.project.maps
        ids = [str(m.get("id")) for m in maps if isinstance(m, dict)]
        if self._map_id not in ids:
            self._map_id = ids[0] if ids else None
        self._syncing = True
        self.map_combo.clear()
        for m in maps:
            if isinstance(m, dict):
                self.map_combo.addItem(f"{E.map_label(m)}  [{m.get('id')}]", str(m.get("id")))
        i = self.map_combo.findData(self._map_id)
        if i >= 0:
            self.map_combo.setCurrentIndex(i)
        self._syncing = False
        self.map_stack.setCurrentIndex(1 if ids else 0)
        d = self.current_map()
        self.canvas.set_map(d)
        self._sync_route_overlay()
        self._fill_task_picker()
        self._update_inspector()
        self._update_edit_buttons()

    def _sync_route_overlay(self) -> None:
        d = self.current_map()
        s = self._shown
        if (s is not None and d is not None and self.route_check.isChecked()
                and s["map_id"] == self._map_id and _structure(d) == s["structure"]
                and s["result"].success):
            self.canvas.set_route(s["result"].route, s["result"].segments)
        else:
            self.canvas.set_route(None)

    def _on_map_combo_changed(self, index: int) -> None:
        if self._syncing or index < 0:
            return
        self._map_id = self.map_combo.itemData(index)
        self._hide_messages()
        self.canvas.set_map(self.current_map())
        self._sync_route_overlay()
        self._fill_task_picker()
        self._update_inspector()
        self.canvas.fit_to_view()

    def _on_document_map_changed(self, index: int) -> None:
        maps = self._document.project.maps
        if 0 <= index < len(maps) and self._map_id is None:
            self._map_id = str(maps[index].get("id"))
        self._refresh_maps()

    def _on_document_project_replaced(self) -> None:
        self._map_id = None
        self._shown = None
        self._runs.clear()
        self.results.clear()
        self._refresh_maps()

    def add_map(self, data: Mapping[str, Any], text: str = "Add map") -> str | None:
        """Validate ``data`` (a map dict), then add it to the project (undoable); its id."""
        try:
            d = E.checked(E.with_id(data, new_map_id(self._document)))
        except InputError as exc:
            self._refuse(f"Map not added: {exc}")
            return None
        mid = str(d["id"])
        self._map_id = mid
        self._document.push(SetMapCommand(self._document, len(self._document.project.maps),
                                          d, f"{text} “{E.map_label(d)}”"))
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
        return self.add_map(data, "Add map")

    def load_fig41(self) -> str | None:
        """Add the fig41 reconstruction (the built-in example) to the project."""
        from core.logistics.examples import fig41

        return self._load_asset(FIG41_ASSET, fig41)

    def load_generated30(self) -> str | None:
        """Add the built-in generated 30-center world to the project."""
        from core.logistics.examples import generate_world

        return self._load_asset(GENERATED30_ASSET, lambda: generate_world(30, seed=30))

    def _on_generate_clicked(self) -> None:
        dlg = GenerateWorldDialog(self)
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.generate_world(dlg.n_spin.value(), dlg.seed_spin.value(),
                                tasks=dlg.tasks_check.isChecked())

    def generate_world(self, n_centers: int, seed: int, *, tasks: bool = True) -> bool:
        """Generate a world in the worker; it is added to the project when done."""
        if self.is_running:
            return False
        self._job = {"kind": "generate", "n": n_centers, "seed": seed}
        self._runner.start(generate_job, int(n_centers), int(seed), bool(tasks))
        return True

    def import_map_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a logistics map", "",
                                              "Logistics maps (*.map.json *.json)")
        if path:
            self.import_map_path(path)

    def import_map_path(self, path: str) -> str | None:
        from core.logistics.io import load_map

        try:
            world = load_map(path)
        except InputError as exc:
            self._refuse(f"Map not added: {exc}")
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
            from core.logistics.io import save_map

            try:
                save_map(E.world_of(d), path)
            except (InputError, OSError) as exc:
                self._refuse(f"Not exported: {exc}")
                return
            self.message_logged.emit("INFO", f"logistics: map exported to {path}")

    def remove_current_map(self) -> None:
        i = self.current_index
        if i < 0:
            return
        label = E.map_label(self._document.project.maps[i])
        self._map_id = None
        self._document.push(SetMapCommand(self._document, i, None, f"Remove map “{label}”"))

    # ================================================================== editing
    def _hide_messages(self) -> None:
        self.message_label.hide()
        self.inspector_message.hide()
        for w in (self.base_id_edit, self.center_id_edit, self.center_agents_edit,
                  self.edge_length_edit, self.map_name_edit, self.base_agent_combo,
                  self.center_capacity_spin):
            w.setStyleSheet("")

    def _refuse(self, text: str, widget: QWidget | None = None) -> bool:
        self.message_label.setText(f"<b>Not applied:</b> {html.escape(text)}")
        self.message_label.show()
        self.message_label.setToolTip(text)
        if widget is not None:
            show_field_error(widget, text)
            self.inspector_message.setText(text)
            self.inspector_message.show()
        self.message_logged.emit("WARNING", f"logistics map: {text}")
        return False

    @property
    def message(self) -> str:
        """The current inline refusal (empty when the last edit was applied)."""
        return "" if self.message_label.isHidden() else self.message_label.toolTip()

    def apply_edit(self, build: Callable[[dict[str, Any]], dict[str, Any]], text: str,
                   widget: QWidget | None = None) -> bool:
        """Build the edited map from the current one, validate it, push it (or refuse)."""
        d = self.current_map()
        if d is None:
            return False
        try:
            new = E.checked(build(d))
        except InputError as exc:
            self._refuse(str(exc), widget)
            self._update_inspector(keep_message=True)
            return False
        self._hide_messages()
        if new == d:
            return True
        self._document.push(SetMapCommand(self._document, self.current_index, new, text))
        return True

    def _on_canvas_nodes_moved(self, moved: dict) -> None:
        n = len(moved)
        ok = self.apply_edit(lambda d: E.move_nodes(d, moved),
                             f"Move {next(iter(moved)) if n == 1 else f'{n} nodes'}")
        if not ok:
            self.canvas.set_map(self.current_map())

    def connect_nodes(self, u: str, v: str, length: float | None = None) -> bool:
        return self.apply_edit(lambda d: E.connect(d, u, v, length), f"Connect {u}–{v}")

    def _on_canvas_connect_requested(self, u: str, v: str) -> None:
        if self.connect_nodes(u, v):
            self.canvas.select(edges=[(u, v)])

    def _on_connect_clicked(self) -> None:
        nodes = self.canvas.selected_nodes()
        if len(nodes) == 2:
            self._on_canvas_connect_requested(nodes[0], nodes[1])

    def delete_selection(self) -> bool:
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        if not nodes and not edges:
            return False
        names = nodes + [f"{u}–{v}" for u, v in edges]
        text = "Delete " + (", ".join(names) if len(names) <= 3 else f"{len(names)} items")
        return self.apply_edit(lambda d: E.remove_items(d, nodes, edges), text)

    def delete_items(self, nodes=(), edges=()) -> bool:
        self.canvas.select(nodes, edges)
        return self.delete_selection()

    def set_edge_length(self, u: str, v: str, value: Any) -> bool:
        try:
            x = float(str(value).strip())
        except ValueError:
            return self._refuse(f"edge {u}-{v}: length must be a number > 0, got {value!r}",
                                self.edge_length_edit)
        return self.apply_edit(lambda d: E.set_length(d, u, v, x),
                               f"Length of {u}–{v} = {x:g}", self.edge_length_edit)

    def set_center_agents(self, center: str, agents: Any) -> bool:
        ags = [a.strip() for a in str(agents).replace(";", ",").split(",") if a.strip()] \
            if isinstance(agents, str) else list(agents)
        return self.apply_edit(lambda d: E.set_center(d, center, agents=ags),
                               f"Agents of {center} = {', '.join(ags)}", self.center_agents_edit)

    def set_center_capacity(self, center: str, capacity: int) -> bool:
        return self.apply_edit(lambda d: E.set_center(d, center, capacity=capacity),
                               f"Capacity of {center} = {capacity}", self.center_capacity_spin)

    def set_base_agent(self, base: str, agent: str) -> bool:
        return self.apply_edit(lambda d: E.set_base_agent(d, base, agent),
                               f"Assign {base} to agent {agent}", self.base_agent_combo)

    def rename_node(self, old: str, new: str) -> bool:
        ok = self.apply_edit(lambda d: E.rename_node(d, old, new), f"Rename {old} → {new}",
                             self.base_id_edit if self.inspector_stack.currentIndex() == 1
                             else self.center_id_edit)
        if ok:
            self.canvas.select([new])
        return ok

    def add_base(self, agent: str, pos: tuple[float, float] | None,
                 link_to: str | None = None) -> str | None:
        made: list[str] = []

        def build(d: dict[str, Any]) -> dict[str, Any]:
            out, bid = E.add_base(d, agent, pos, link_to=link_to)
            made.append(bid)
            return out

        if self.apply_edit(build, f"Add base of agent {agent}"):
            self.canvas.select(made)
            return made[0]
        return None

    def add_center(self, links: Mapping[str, str], pos: tuple[float, float] | None
                   ) -> str | None:
        made: list[str] = []

        def build(d: dict[str, Any]) -> dict[str, Any]:
            out, cid = E.add_center(d, links, pos)
            made.append(cid)
            return out

        if self.apply_edit(build, f"Add center joining {', '.join(sorted(links))}"):
            self.canvas.select(made)
            return made[0]
        return None

    def _free_pos_near(self, node_id: str) -> tuple[float, float]:
        p = self.canvas.node_position(node_id)
        taken = [self.canvas.node_position(n) for n in self.canvas.node_items]
        for k in range(24):
            ang = 0.7 + k * 2.4
            r = 45 + 6 * k
            q = QPointF(p.x() + r * math.cos(ang), p.y() + r * math.sin(ang))
            if all(math.dist((q.x(), q.y()), (t.x(), t.y())) > 28 for t in taken):
                return (q.x(), q.y())
        return (p.x() + 50, p.y() + 40)

    def _on_add_base_clicked(self) -> None:
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if len(nodes) != 1 or d is None:
            return
        n = E.node(d, nodes[0])
        agent = n.get("agent") if n.get("kind") == "base" else (n.get("agents") or [None])[0]
        if agent:
            self.add_base(str(agent), self._free_pos_near(nodes[0]), link_to=nodes[0])

    def _selected_base_links(self) -> dict[str, str]:
        d = self.current_map()
        links: dict[str, str] = {}
        if d is None:
            return links
        for nid in self.canvas.selected_nodes():
            n = E.node(d, nid)
            if n.get("kind") == "base":
                links.setdefault(str(n.get("agent")), nid)
        return links

    def _on_add_center_clicked(self) -> None:
        links = self._selected_base_links()
        if len(links) < 2:
            self._refuse("select bases of at least two agents to join them with a new center")
            return
        pts = [self.canvas.node_position(n) for n in links.values()]
        self.add_center(links, (sum(p.x() for p in pts) / len(pts),
                                sum(p.y() for p in pts) / len(pts)))

    def _nearest_nodes(self, p: QPointF) -> list[tuple[float, str, str]]:
        """(distance, agent, node) of each agent's nearest node (bases, then its centers)."""
        d = self.current_map()
        if d is None:
            return []
        best: dict[str, tuple[float, str]] = {}
        for n in d.get("nodes", ()):
            q = self.canvas.node_position(n["id"])
            dist = math.dist((p.x(), p.y()), (q.x(), q.y()))
            owners = [n.get("agent")] if n.get("kind") == "base" else []
            for a in owners:
                if a is not None and (a not in best or dist < best[a][0]):
                    best[str(a)] = (dist, n["id"])
        return sorted((dist, a, nid) for a, (dist, nid) in best.items())

    def _on_canvas_context_menu_requested(self, pos: QPointF, node_id: str) -> None:
        menu = self._context_menu(pos, node_id)
        if menu is not None:
            menu.exec(self.canvas.mapToGlobal(self.canvas.mapFromScene(pos)))

    def _context_menu(self, pos: QPointF, node_id: str) -> QMenu | None:
        d = self.current_map()
        if d is None:
            return None
        menu = QMenu(self)
        p = (round(pos.x(), 1), round(pos.y(), 1))
        if node_id:
            n = E.node(d, node_id)
            if n.get("kind") == "base":
                a = str(n.get("agent"))
                menu.addAction(f"Add base of {a} linked to {node_id}",
                               lambda: self.add_base(a, self._free_pos_near(node_id), node_id))
                sub = menu.addMenu("Assign to agent")
                for other in E.agents_of(d):
                    if other != a:
                        sub.addAction(other, lambda o=other: self.set_base_agent(node_id, o))
                new = E.new_agent_name(d)
                sub.addAction(f"new agent {new}", lambda: self.set_base_agent(node_id, new))
            else:
                for a in n.get("agents", ()):
                    menu.addAction(f"Add base of {a} linked to {node_id}",
                                   lambda a=a: self.add_base(str(a),
                                                             self._free_pos_near(node_id),
                                                             node_id))
            sel = self.canvas.selected_nodes()
            if len(sel) == 2 and node_id in sel:
                u, v = sel
                menu.addAction(f"Connect {u}–{v}", lambda: self._on_canvas_connect_requested(u, v))
            menu.addSeparator()
            menu.addAction(f"Delete {node_id}", lambda: self.delete_items([node_id]))
            return menu
        near = self._nearest_nodes(pos)
        sub = menu.addMenu("Add base here")
        for _dist, a, nid in near[:8]:
            sub.addAction(f"of agent {a} (linked to {nid})",
                          lambda a=a, nid=nid: self.add_base(a, p, nid))
        new = E.new_agent_name(d)
        sub.addAction(f"of a new agent {new}", lambda: self.add_base(new, p, None))
        links = self._selected_base_links()
        if len(links) >= 2:
            menu.addAction(f"Add center here joining the selected bases "
                           f"({', '.join(sorted(links.values()))})",
                           lambda: self.add_center(links, p))
        if len(near) >= 2:
            (_d1, a1, n1), (_d2, a2, n2) = near[0], near[1]
            menu.addAction(f"Add center here joining {a1} and {a2} (via {n1}, {n2})",
                           lambda: self.add_center({a1: n1, a2: n2}, p))
        menu.addSeparator()
        menu.addAction("Fit view (F)", self.canvas.fit_to_view)
        return menu

    def _on_canvas_edge_activated(self, u: str, v: str) -> None:
        self.canvas.select(edges=[(u, v)])
        self.edge_length_edit.setFocus()
        self.edge_length_edit.selectAll()

    def _on_canvas_node_activated(self, nid: str) -> None:
        self.canvas.select([nid])
        w = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_agents_edit
        w.setFocus()

    def _on_lengths_toggled(self, on: bool) -> None:
        self.canvas.set_show_lengths(on)

    def _on_route_toggled(self, on: bool) -> None:
        self._sync_route_overlay()

    def _on_fit_clicked(self) -> None:
        self.canvas.fit_to_view()

    # ------------------------------------------------------------------ inspector
    def _on_canvas_selection_changed(self) -> None:
        self._hide_messages()
        self._update_inspector()
        self._update_edit_buttons()

    def _update_edit_buttons(self) -> None:
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        has = self.current_map() is not None
        self.add_base_button.setEnabled(has and len(nodes) == 1)
        self.add_center_button.setEnabled(has and len(self._selected_base_links()) >= 2)
        self.connect_button.setEnabled(has and len(nodes) == 2)
        self.delete_button.setEnabled(has and bool(nodes or edges))
        self.export_button.setEnabled(has)
        self.remove_map_button.setEnabled(has)

    def _update_inspector(self, keep_message: bool = False) -> None:
        d = self.current_map()
        nodes, edges = self.canvas.selected_nodes(), self.canvas.selected_edges()
        self._syncing = True
        try:
            if d is None:
                self.inspector_title.setText("<i>No map.</i>")
                self.inspector_stack.setCurrentIndex(0)
                self.map_name_edit.setText("")
                self.map_info.setText("")
                return
            if len(nodes) + len(edges) == 0:
                try:
                    w = E.world_of(d)
                    info = (f"{len(w.agents)} agents, {len(w.center_ids)} centers "
                            f"(Σ lc = {w.total_capacity}), {w.n_bases} bases, "
                            f"{w.graph.number_of_edges()} routes; degree cap {w.degree_cap}; "
                            f"{len(w.tasks)} stored task(s).")
                    if w.note:
                        info += "\n" + w.note
                except InputError as exc:
                    info = f"Invalid: {exc}"
                self.inspector_title.setText(f"<b>Map</b> {html.escape(str(d.get('id')))} — "
                                             "nothing selected")
                self.map_name_edit.setText(E.map_label(d))
                self.map_info.setText(info)
                self.inspector_stack.setCurrentIndex(0)
            elif len(nodes) == 1 and not edges:
                n = E.node(d, nodes[0])
                if n.get("kind") == "base":
                    self.inspector_title.setText(f"<b>Base</b> {html.escape(nodes[0])} "
                                                 "(private to its agent)")
                    self.base_id_edit.setText(nodes[0])
                    self.base_agent_combo.clear()
                    self.base_agent_combo.addItems(E.agents_of(d))
                    self.base_agent_combo.setCurrentText(str(n.get("agent")))
                    self.inspector_stack.setCurrentIndex(1)
                else:
                    self.inspector_title.setText(f"<b>Center</b> {html.escape(nodes[0])} "
                                                 "(public)")
                    self.center_id_edit.setText(nodes[0])
                    self.center_agents_edit.setText(", ".join(n.get("agents", ())))
                    self.center_capacity_spin.setValue(int(n.get("capacity", 2)))
                    self.inspector_stack.setCurrentIndex(2)
            elif len(edges) == 1 and not nodes:
                u, v = edges[0]
                self.inspector_title.setText(f"<b>Route</b> {html.escape(u)}–{html.escape(v)}")
                kinds = {n["id"]: n for n in d["nodes"]}
                from gui.logistics.map_view import edge_owner

                e = next(e for e in d["edges"] if E.edge_key(e["source"], e["target"]) ==
                         (u, v))
                owner = edge_owner(d, kinds, e)
                self.edge_label.setText(f"owned by agent {owner}: its length is private")
                self.edge_length_edit.setText(f"{float(e['length']):g}")
                self.inspector_stack.setCurrentIndex(3)
            else:
                self.inspector_title.setText(f"<b>{len(nodes)} nodes, {len(edges)} routes "
                                             "selected</b>")
                self.inspector_stack.setCurrentIndex(4)
        finally:
            self._syncing = False
        if not keep_message:
            self.inspector_message.hide()

    def _on_map_name_edited(self) -> None:
        d = self.current_map()
        if self._syncing or d is None or self.map_name_edit.text() == E.map_label(d):
            return
        name = self.map_name_edit.text().strip()
        self.apply_edit(lambda m: E.set_name(m, name), f"Rename map to “{name}”",
                        self.map_name_edit)

    def _on_node_id_edited(self) -> None:
        nodes = self.canvas.selected_nodes()
        if self._syncing or len(nodes) != 1:
            return
        edit = self.base_id_edit if self.inspector_stack.currentIndex() == 1 else \
            self.center_id_edit
        new = edit.text().strip()
        if new != nodes[0]:
            self.rename_node(nodes[0], new)

    def _on_base_agent_edited(self, *args: object) -> None:
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if self._syncing or len(nodes) != 1 or d is None:
            return
        agent = self.base_agent_combo.currentText().strip()
        if agent and agent != E.node(d, nodes[0]).get("agent"):
            self.set_base_agent(nodes[0], agent)

    def _on_center_agents_edited(self) -> None:
        nodes = self.canvas.selected_nodes()
        d = self.current_map()
        if self._syncing or len(nodes) != 1 or d is None:
            return
        text = self.center_agents_edit.text()
        cur = list(E.node(d, nodes[0]).get("agents", ()))
        new = sorted({a.strip() for a in text.replace(";", ",").split(",") if a.strip()})
        if new != sorted(cur):
            self.set_center_agents(nodes[0], new)

    def _on_center_capacity_changed(self, value: int) -> None:
        nodes = self.canvas.selected_nodes()
        if self._syncing or len(nodes) != 1:
            return
        self.set_center_capacity(nodes[0], value)

    def _on_edge_length_edited(self) -> None:
        edges = self.canvas.selected_edges()
        d = self.current_map()
        if self._syncing or len(edges) != 1 or d is None:
            return
        u, v = edges[0]
        text = self.edge_length_edit.text().strip()
        try:
            same = float(text) == E.edge_length(d, u, v)
        except ValueError:
            same = False
        if not same:
            self.set_edge_length(u, v, text)

    # ================================================================== task picker
    def _fill_task_picker(self) -> None:
        d = self.current_map()
        keep = (self.origin_combo.currentData(), self.goal_agent_combo.currentData(),
                self.goal_combo.currentData())
        self._syncing = True
        for c in (self.origin_combo, self.goal_agent_combo, self.stored_task_combo):
            c.clear()
        try:
            if d is None:
                return
            bases = E.nodes_of_kind(d, "base")
            agent_of = {n["id"]: n.get("agent") for n in d["nodes"] if n.get("kind") == "base"}
            for b in sorted(bases, key=lambda x: (str(agent_of[x]), x)):
                self.origin_combo.addItem(f"{b}  (agent {agent_of[b]})", b)
            for a in E.agents_of(d):
                self.goal_agent_combo.addItem(a, a)
            self.stored_task_combo.addItem("(custom)", None)
            for t in (d.get("graph") or {}).get("tasks", []):
                label = f"{t['origin']} → {t['goal_agent']}" + (
                    f" (goal {t['goal']})" if t.get("goal") else "")
                self.stored_task_combo.addItem(label, dict(t))
        finally:
            self._syncing = False
        o = self.origin_combo.findData(keep[0])
        g = self.goal_agent_combo.findData(keep[1])
        if o >= 0 and g >= 0:
            self.origin_combo.setCurrentIndex(o)
            self.goal_agent_combo.setCurrentIndex(g)
            self._fill_goal_bases(keep[2])
        elif self.stored_task_combo.count() > 1:
            self.stored_task_combo.setCurrentIndex(1)
            self._on_stored_task_activated(1)
        else:
            self._fill_goal_bases(None)

    def _fill_goal_bases(self, keep: str | None) -> None:
        d = self.current_map()
        self.goal_combo.clear()
        self.goal_combo.addItem("any (nearest to the hand-over)", None)
        ga = self.goal_agent_combo.currentData()
        if d is None or ga is None:
            return
        for n in d["nodes"]:
            if n.get("kind") == "base" and n.get("agent") == ga:
                self.goal_combo.addItem(n["id"], n["id"])
        i = self.goal_combo.findData(keep) if keep is not None else 0
        self.goal_combo.setCurrentIndex(max(0, i))

    def _on_goal_agent_changed(self, *args: object) -> None:
        if not self._syncing:
            self._fill_goal_bases(None)

    def _on_stored_task_activated(self, index: int) -> None:
        t = self.stored_task_combo.itemData(index)
        if not t:
            return
        self.set_task(t["origin"], t["goal_agent"], t.get("goal"))
        self.stored_task_combo.setCurrentIndex(index)

    def set_task(self, origin: str, goal_agent: str, goal: str | None = None) -> None:
        """Pick a task (origin base, goal agent, optional goal base)."""
        self._syncing = True
        self.origin_combo.setCurrentIndex(max(0, self.origin_combo.findData(origin)))
        self.goal_agent_combo.setCurrentIndex(max(0, self.goal_agent_combo.findData(goal_agent)))
        self._syncing = False
        self._fill_goal_bases(goal)
        self.stored_task_combo.setCurrentIndex(0)

    def set_plan_options(self, *, approach: str | None = None, preset: str | None = None,
                         epsilon: Any = None, budget: int | None = None,
                         seeded: bool | None = None, seed: int | None = None) -> None:
        """Set the run parameters (tests, the screenshot script)."""
        if approach is not None:
            self.approach_combo.setCurrentIndex(self.approach_combo.findData(approach))
        if preset is not None:
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(preset))
        if epsilon is not None:
            self.epsilon_edit.setText(str(epsilon))
        if budget is not None:
            self.budget_spin.setValue(budget)
        if seeded is not None:
            self.mode_combo.setCurrentIndex(0 if seeded else 1)
        if seed is not None:
            self.seed_spin.setValue(seed)

    def _on_mode_changed(self, *args: object) -> None:
        self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment")

    # ================================================================== running
    def run(self) -> bool:
        """Run the current page's work (F5): plan the task, or the benchmark."""
        if self.pages.currentIndex() == 1:
            return self.experiments.run()
        return self.run_plan()

    def cancel(self) -> None:
        """Cancel the current page's work (Esc)."""
        if self.pages.currentIndex() == 1:
            self.experiments.cancel()
        else:
            self._runner.cancel()

    def randomness_label(self) -> str:
        """For the status bar: the randomness of the next plan (or benchmark)."""
        if self.pages.currentIndex() == 1:
            return "benchmark as a seeded experiment"
        if self.mode_combo.currentData() == "release":
            return "planning in release mode (secure noise)"
        return f"planning as a seeded experiment (seed {self.seed_spin.value()})"

    def _emit_running_changed(self, *args: object) -> None:
        self.running_changed.emit(self.is_running)

    def _refuse_run(self, text: str, widget: QWidget | None = None) -> bool:
        self.run_message.setText(text)
        self.run_message.show()
        if widget is not None:
            show_field_error(widget, text)
        self.message_logged.emit("WARNING", f"logistics run not started: {text}")
        return False

    @property
    def run_problem(self) -> str:
        """Why the last Run was refused (empty if it started)."""
        return "" if self.run_message.isHidden() else self.run_message.text()

    def run_plan(self) -> bool:
        """Plan the picked task in the worker; False (with an inline reason) if refused."""
        if self._runner.is_running:
            return False
        self.run_message.hide()
        self.run_message.setText("")
        self.epsilon_edit.setStyleSheet("")
        self.epsilon_edit.setToolTip(TOOLTIPS["epsilon"])
        d = self.current_map()
        if d is None:
            return self._refuse_run("add a map first (fig41 or Generate world…)")
        try:
            world = map_from_dict(d)
        except InputError as exc:
            return self._refuse_run(f"the map is invalid: {exc}")
        origin = self.origin_combo.currentData()
        goal_agent = self.goal_agent_combo.currentData()
        goal = self.goal_combo.currentData()
        try:
            task = validate_task(world, {"origin": origin, "goal_agent": goal_agent,
                                         "goal": goal})
        except InputError as exc:
            return self._refuse_run(str(exc))
        text = self.epsilon_edit.text().strip()
        try:
            eps = float(text)
        except ValueError:
            return self._refuse_run(f"ε must be a number > 0, got {text!r}", self.epsilon_edit)
        if not (math.isfinite(eps) and eps > 0):
            return self._refuse_run(f"ε must be a finite number > 0, got {text}",
                                    self.epsilon_edit)
        budget = self.budget_spin.value()
        try:
            params = PlannerParams.preset_params(
                self.preset_combo.currentData(), epsilon=eps,
                comm_budget=None if budget == _AUTO_BUDGET else float(budget))
        except InputError as exc:
            return self._refuse_run(str(exc).replace("epsilon", "ε"), self.epsilon_edit
                                    if exc.field == "epsilon" else None)
        seeded = self.mode_combo.currentData() == "experiment"
        rng = self.seed_spin.value() if seeded else None
        approach = self.approach_combo.currentData()
        self._job = {"kind": "plan", "world": world, "task": task, "approach": approach,
                     "params": params, "map_id": self._map_id, "map": dict(d),
                     "seeded": seeded}
        self.message_logged.emit("INFO", f"logistics: planning {task.origin} → agent "
                                 f"{task.goal_agent} ({approach}, ε = {eps:g}, "
                                 + (f"seed {rng})" if seeded else "release mode)"))
        self._runner.start(plan_job, world, task, approach, params, rng)
        return True

    def shutdown(self) -> None:
        self._runner.shutdown()
        self.experiments.shutdown()

    def _update_running(self, running: bool) -> None:
        self._emit_running_changed()
        for b in (self.empty_generate_button, self.empty_fig41_button):
            b.setEnabled(not running)

    def _on_runner_succeeded(self, value: Any) -> None:
        job = self._job or {}
        if job.get("kind") == "generate":
            self.add_map(value, "Generate world")
            return
        if job.get("kind") == "plan":
            result, session = value
            self._record_plan(job, result, session)

    def _on_runner_failed(self, exc: object) -> None:
        text = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, InputError):
            self._refuse_run(str(exc))
        else:
            self._refuse_run(f"the run failed: {text}")
        self.message_logged.emit("ERROR", f"logistics run failed: {text}")

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", "logistics run cancelled")

    # ------------------------------------------------------------------ recording
    @staticmethod
    def _ledger_entries(world: Any, session: PlanningSession, run_id: str
                        ) -> list[dict[str, Any]]:
        """The session's ledger entries as dicts whose ``source`` names the run (the ledger
        command gives them fresh project ids)."""
        new = []
        for a in world.agents:
            for e in session.ledgers[a].entries:
                d = e.to_dict()
                d["source"] = f"{run_id}: {d.get('source') or 'logistics'}"
                new.append(d)
        return new

    def _record_plan(self, job: dict[str, Any], result: Any, session: PlanningSession) -> None:
        doc = self._document
        world = job["world"]
        rid = doc.project.new_run_id()
        entries = self._ledger_entries(world, session, rid)
        summary = result.to_dict()
        summary.pop("plan_view", None)
        spent = session.epsilon_spent()
        reasons = session.epsilon_reasons()
        nominal = session.epsilon_nominal()
        by_agent: dict[str, Any] = {}
        for a in world.agents:
            es = session.ledgers[a].entries
            if not es:
                continue
            mech: dict[str, float | None] = {}
            for e in es:
                key = "topology (Alg 7)" if "Alg 7" in e.source else \
                    f"route probabilities ({e.mechanism})"
                prev = mech.get(key, 0.0)
                tot = math.inf if prev is None else prev + e.epsilon * e.count
                mech[key] = None if math.isinf(tot) else tot
            by_agent[a] = {"entries": len(es),
                           "epsilon": None if math.isinf(spent[a]) else spent[a],
                           "epsilon_nominal": None if math.isinf(nominal[a]) else nominal[a],
                           "by_mechanism": mech}
            if a in reasons:
                by_agent[a]["epsilon_reason"] = reasons[a]
        g = session.guarantee()
        summary.update({
            "map_name": E.map_label(job["map"]),
            "epsilon_spent": {a: (None if math.isinf(v) else v) for a, v in spent.items()
                              if v > 0},
            "epsilon_spent_reason": dict(reasons),
            "guarantee": g.to_dict(),
            "messages_by_agent": {a: c.sent for a, c in session.comm.items() if c.sent},
            "comm_budget": (None if math.isinf(session.comm_budget) else session.comm_budget),
            "ledger": by_agent, "ledger_entries": len(entries),
            "published": sorted(session.published), "elapsed_s": result.elapsed_s,
            "preset_notes": list(session.flaws() or session.caveats()),
        })
        if result.discovery is not None:
            disc = result.discovery
            summary["discovery"] = {"posts": disc.posts, "replies": disc.replies,
                                    "goal_level": disc.goal_level,
                                    "candidates": list(disc.candidates)}
        p = job["params"]
        params = {"map": job["map_id"], "task": result.task.to_dict(),
                  "approach": job["approach"], "preset": p.preset, "epsilon": p.epsilon,
                  "comm_budget": summary["comm_budget"], "seeded": job["seeded"],
                  "planner": p.to_dict()}
        record = RunRecord(id=rid, kind="plan", target=str(job["map_id"]), params=params,
                           summary=summary, mode=session.mode, seed=session.seed)
        self._runs[rid] = {"world": world, "map": job["map"], "map_id": job["map_id"],
                           "structure": _structure(job["map"]), "result": result,
                           "session": session, "run_id": rid}
        doc.push(AddRunCommand(doc, record, text=f"Record planning run {record.id}",
                               ledger_entries=entries))
        self._show_run(rid)
        status = "delivered" if result.success else f"not delivered ({result.failure})"
        self.message_logged.emit(
            "INFO", f"{rid} recorded: plan {result.task.origin} → agent "
            f"{result.task.goal_agent} on {job['map_id']}, {job['approach']}, {status}, "
            f"{result.messages} messages, {len(entries)} ledger entries")
        self.run_recorded.emit(rid)

    def _mode_text(self, session: PlanningSession) -> str:
        return (f"seeded experiment (seed {session.seed})" if session.mode == "experiment"
                else "release mode")

    def _show_run(self, run_id: str) -> None:
        s = self._runs[run_id]
        self._shown = s
        self.results.show_result(s["world"], s["map"], s["result"], s["session"],
                                 run_id=run_id, mode_text=self._mode_text(s["session"]))
        self._sync_route_overlay()

    def _on_document_run_removed(self, run_id: str) -> None:
        if self._shown is not None and self._shown["run_id"] == run_id:
            self._shown = None
            self.results.clear(f"The planning run {html.escape(run_id)} was undone.")
            self._sync_route_overlay()

    def _on_document_run_added(self, run_id: str) -> None:
        if run_id in self._runs and (self._shown is None or self._shown["run_id"] != run_id):
            self._show_run(run_id)

    def show_run(self, run_id: str) -> bool:
        """Show a recorded run (``plan`` or ``plan-bench``), e.g. picked in the Project tree.

        A plan run of this session is shown in full. A plan run loaded from a file keeps
        only its summary: its task and parameters are put back in the task picker and its
        outcome in the banner; Run recomputes the figures (the same seed gives the same
        plan)."""
        try:
            rec = self._document.run(run_id)
        except KeyError:
            return False
        if rec.kind == "plan-bench":
            self.pages.setCurrentIndex(1)
            self.experiments.show_summary(rec.summary, run_id=rec.id)
            return True
        if rec.kind != "plan":
            return False
        self.pages.setCurrentIndex(0)
        if run_id in self._runs:
            s = self._runs[run_id]
            if s["map_id"] != self._map_id and any(
                    m.get("id") == s["map_id"] for m in self._document.project.maps):
                self.select_map(s["map_id"])
            self._show_run(run_id)
            return True
        if any(m.get("id") == rec.target for m in self._document.project.maps):
            self.select_map(rec.target)
        p = rec.params
        t = p.get("task") or {}
        if t:
            self.set_task(str(t.get("origin")), str(t.get("goal_agent")), t.get("goal"))
        self.set_plan_options(approach=p.get("approach"), preset=p.get("preset"),
                              epsilon=p.get("epsilon"), seeded=rec.mode == "experiment",
                              seed=rec.seed if rec.seed is not None else None)
        s = rec.summary
        outcome = (f"delivered, length {s.get('length')}" if s.get("success") else
                   f"not delivered: {s.get('failure')}")
        self._shown = None
        self.results.clear(
            f"<b>{html.escape(rec.id)}</b> (recorded {html.escape(rec.created)}): "
            f"{html.escape(str(t.get('origin')))} → agent {html.escape(str(t.get('goal_agent')))}"
            f", {html.escape(str(p.get('approach')))}, ε = {p.get('epsilon')}: "
            f"{html.escape(outcome)}, {s.get('messages')} messages. The project keeps the "
            "summary only; press <b>Run (F5)</b> to recompute the figures with the same "
            "parameters" + (f" and seed {rec.seed}" if rec.mode == "experiment" else "") + ".")
        if s.get("success") and rec.target == self._map_id and self.route_check.isChecked():
            self.canvas.set_route(s.get("route"), s.get("segments", ()))
        return True

    # ------------------------------------------------------------------ for tests
    def shown_run(self) -> str | None:
        return None if self._shown is None else self._shown["run_id"]


register_tool(ToolSpec(
    "logistics", "Logistics map", lambda window: LogisticsPanel(window.document, window),
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
        holder.addWidget(panel.info_panel)
        holder.setSizes([1000, 320])
        panel.load_fig41()
        return holder

    return run_preview(build, exec_=exec_, title="Logistics map", size=(1350, 860))


if __name__ == "__main__":
    preview()
