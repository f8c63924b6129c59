"""The Private agents workspace: DP-DRL against map recovery, and privacy-engineered
cooperative MARL.

**DP-DRL** — a grid world of the project (drawn here: click wall/free, Shift+click start,
Ctrl+click goal; undoable), the 12×11 stand-in, or a random map under the thesis's constraints.
Run (F5) trains the navigation agent (tabular, or a DQN with the deep extra; optionally with the
obfuscation of Algorithms 9–10) and, if asked, runs the GA map-recovery attack; truth and
recovered map side by side. **Compare ε** runs no defense, ε = 1, 0.7, 0.4, 0.1 and the thesis's
dynamic ε (Tables 5.1 and 5.3). The bit choice is ε-DP; the observation is not DP for the map.

**Co-MARL** — PE-VDN (tables, or networks with the deep extra) with secure summation on a
random team map, optionally DP-SGD; the team's curve beside plain VDN's, the largest PE-vs-
central difference, the overhead, (ε, δ), and the leakage inspector. Work runs in the tab's
worker (progress, cancel); each finished run is recorded with its ledger entries (one undoable
step; a release past a budget asks first) and shown again from the project tree."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStatusBar,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.comarl.release import ComarlParameters, ComarlRun
from core.common import InputError
from core.gridworld import GridEntry, GridMap, check_map, example_12x11, violations
from core.gridworld.release import DrlParameters, DrlRun, DrlTableParameters
from core.project import comarl_run_record, drl_run_record, drl_table_run_record
from gui.agents.commands import SetGridCommand, grid_index, new_grid_id
from gui.agents.fields import read_fields
from gui.agents.grid_view import GridView
from gui.agents.network_runner import learner_combo, team_runner, train_runner
from gui.agents.tasks import sweep_task
from gui.agents.texts import (
    COMARL_COLUMNS,
    INFO_HTML,
    SWEEP_COLUMNS,
    TOOLTIPS,
    comarl_html,
    drl_html,
    sweep_cells,
)
from gui.shell.document import ProjectDocument
from gui.shell.plots import add_legend, make_plot, pen
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, info_panel

__all__ = ["AgentsPanel", "RUN_KINDS"]

RUN_KINDS = ("drl", "drl-table", "comarl")
_EXAMPLE = "__example__"


#: the defense box's entries: (DrlParameters.defense, DrlParameters.preset)
_DEFENSES = {"none": ("none", "strict"), "strict": ("dpdrl", "strict"),
             "thesis": ("dpdrl", "thesis")}


def _message_label(parent: QWidget) -> QLabel:
    """A hidden red label for why a run was refused."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {ERROR_COLOUR};")
    label.hide()
    return label


def _rows_map(rows: list[str]) -> GridMap:
    """A recorded map (text rows) as a GridMap, constraints not required."""
    return GridEntry.from_dict({"id": "shown", "rows": rows}).map


class AgentsPanel(ToolPanel):
    """The Private agents tool tab (see the module docstring)."""

    result_shown = Signal()
    status_name = "Private agents"
    log_name = "private agents"
    undo_key = "agents"
    run_kinds = RUN_KINDS

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.setObjectName("agents_panel")
        self._task = ""
        self._grid_id = ""
        self._params: DrlParameters | DrlTableParameters | ComarlParameters | None = None
        self._example = example_12x11()

        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._build_drl(), "DP-DRL and map recovery")
        self.tabs.addTab(self._build_comarl(), "Co-MARL (PE-VDN)")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        title = QLabel("<b>Private learning agents</b> — does a trained agent give away the map "
                       "it learned on, and what do agents that learn together reveal to each "
                       "other?", self)
        title.setWordWrap(True)
        lay.addWidget(title)
        lay.addWidget(self.tabs, 1)
        self.info_panel = info_panel(INFO_HTML)

        for rc in (self.run_controls, self.team_controls):
            rc.running_changed.connect(self._update_running)
        self.connect_runner()
        document.grid_changed.connect(self._on_grid_changed)
        document.project_replaced.connect(self._on_project_replaced)
        document.run_added.connect(self._on_run_added)
        self._fill_maps()
        self._update_running(False)

    # ------------------------------------------------------------------ construction
    def _build_drl(self) -> QWidget:
        page = QWidget(self)
        top = QHBoxLayout()
        box = QGroupBox("Map", page)
        bl = QVBoxLayout(box)
        self.map_combo = QComboBox(box)
        self.map_combo.setToolTip(TOOLTIPS["map"])
        row = QHBoxLayout()
        self.size_spin = QSpinBox(box)
        self.size_spin.setRange(5, 20)
        self.size_spin.setValue(9)
        self.size_spin.setToolTip(TOOLTIPS["size"])
        self.new_button = QPushButton("New random map", box)
        self.new_button.setToolTip(TOOLTIPS["new"])
        self.new_button.clicked.connect(self.add_random_grid)
        row.addWidget(QLabel("size", box))
        row.addWidget(self.size_spin)
        row.addWidget(self.new_button)
        self.editor = GridView(box, editable=True, title="the map (truth)")
        self.editor.cell_clicked.connect(self._on_cell_clicked)
        self.map_problem = QLabel(box)
        self.map_problem.setWordWrap(True)
        self.map_problem.setStyleSheet(f"color: {ERROR_COLOUR};")
        bl.addWidget(self.map_combo)
        bl.addLayout(row)
        bl.addWidget(self.editor, 1)
        bl.addWidget(self.map_problem)

        setup = QGroupBox("Agent and attack", page)
        form = QFormLayout(setup)
        self.agent_combo = learner_combo(form, setup, "drl", self.running_changed)
        self.defense_combo = QComboBox(setup)
        for key, text in (("none", "no defense"), ("strict", "DP-DRL, strict (fixed ε)"),
                          ("thesis", "DP-DRL, thesis (dynamic ε)")):
            self.defense_combo.addItem(text, key)
        self.defense_combo.setToolTip(TOOLTIPS["defense"])
        self.defense_combo.setCurrentIndex(1)
        self.epsilon_spin = SciSpinBox(setup, minimum=1e-3, maximum=10.0, value=0.5, digits=3,
                                       step=0.1)
        self.epsilon_spin.setToolTip(TOOLTIPS["epsilon"])
        self.episodes_spin = QSpinBox(setup)
        self.episodes_spin.setRange(10, 100_000)
        self.episodes_spin.setValue(1500)
        self.episodes_spin.setToolTip(TOOLTIPS["episodes"])
        self.attack_check = QCheckBox("run the map-recovery attack", setup)
        self.attack_check.setChecked(True)
        self.attack_check.setToolTip(TOOLTIPS["attack"])
        self.generations_spin = QSpinBox(setup)
        self.generations_spin.setRange(1, 2000)
        self.generations_spin.setValue(200)
        self.generations_spin.setToolTip(TOOLTIPS["generations"])
        self.mode_combo = QComboBox(setup)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release (secure randomness)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.seed_spin = QSpinBox(setup)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(1)
        for label, w in (("defense", self.defense_combo), ("ε per step", self.epsilon_spin),
                         ("episodes", self.episodes_spin), ("", self.attack_check),
                         ("GA generations", self.generations_spin),
                         ("randomness", self.mode_combo), ("seed", self.seed_spin)):
            form.addRow(label, w)
        self.run_controls = RunControls(
            self._runner, setup, run=self.run, cancel=self.cancel, run_text="▶ Train (F5)",
            run_tip="Train the agent (and attack it) in the background (F5)",
            cancel_tip="Stop (Esc); nothing is recorded", running_text="training…",
            cancelled_text="cancelled — nothing was recorded", clear_on_finish=False)
        form.addRow(self.run_controls.layout_row())
        self.sweep_button = QPushButton("Compare ε (Tables 5.1 / 5.3)", setup)
        self.sweep_button.setToolTip(TOOLTIPS["sweep"])
        self.sweep_button.clicked.connect(self.run_sweep)
        form.addRow(self.sweep_button)
        self.drl_message = self.run_message = _message_label(setup)
        form.addRow(self.run_message)
        # the widgets of DrlParameters' fields (the defense, ε and the seed are read below)
        self._drl_fields = (("agent", self.agent_combo), ("episodes", self.episodes_spin),
                            ("attack", self.attack_check),
                            ("generations", self.generations_spin))

        res = QWidget(page)
        rl = QVBoxLayout(res)
        rl.setContentsMargins(0, 0, 0, 0)
        views = QHBoxLayout()
        self.truth_view = GridView(res, title="truth")
        self.recovered_view = GridView(res, title="recovered by the attack")
        views.addWidget(self.truth_view)
        views.addWidget(self.recovered_view)
        self.reward_plot = make_plot("Episode reward", "episode", "reward")
        self.drl_summary = QTextBrowser(res)
        rl.addLayout(views, 3)
        rl.addWidget(self.reward_plot, 2)

        top.addWidget(box, 3)
        top.addWidget(setup, 2)
        top.addWidget(res, 4)
        self.sweep_table = QTableWidget(0, len(SWEEP_COLUMNS), page)
        self.sweep_table.setHorizontalHeaderLabels(SWEEP_COLUMNS)
        self.sweep_table.verticalHeader().setVisible(False)
        self.sweep_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.sweep_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.sweep_table.setToolTip("Select a row to draw the map the attack recovered from "
                                    "that agent (Table 5.2)")
        self.sweep_table.currentCellChanged.connect(self._on_sweep_row)
        self._sweep_rows: list[dict] = []
        self._truth: GridMap | None = None
        bottom = QSplitter(Qt.Orientation.Horizontal, page)
        bottom.addWidget(self.drl_summary)
        bottom.addWidget(self.sweep_table)
        bottom.setStretchFactor(0, 2)
        bottom.setStretchFactor(1, 3)
        pl = QVBoxLayout(page)
        pl.addLayout(top, 3)
        pl.addWidget(bottom, 2)
        self.map_combo.currentIndexChanged.connect(self._on_map_selected)
        self.defense_combo.currentIndexChanged.connect(self._on_defense_changed)
        self.mode_combo.currentIndexChanged.connect(self._on_defense_changed)
        return page

    def _build_comarl(self) -> QWidget:
        page = QWidget(self)
        setup = QGroupBox("Team", page)
        form = QFormLayout(setup)
        self.team_agent = learner_combo(form, setup, "team", self.running_changed)
        self.agents_spin = QSpinBox(setup)
        self.agents_spin.setRange(2, 8)
        self.agents_spin.setValue(3)
        self.agents_spin.setToolTip(TOOLTIPS["agents"])
        self.team_episodes_spin = QSpinBox(setup)
        self.team_episodes_spin.setRange(10, 100_000)
        self.team_episodes_spin.setValue(400)
        self.dp_check = QCheckBox("DP-SGD on the Q-tables", setup)
        self.dp_check.setToolTip(TOOLTIPS["dp"])
        self.sigma_spin = SciSpinBox(setup, minimum=0.1, maximum=100.0, value=1.4539, digits=5,
                                     step=0.1)
        self.sigma_spin.setToolTip(TOOLTIPS["sigma"])
        self.window_spin = QSpinBox(setup)
        self.window_spin.setRange(8, 1_000_000)
        self.window_spin.setValue(1024)
        self.window_spin.setToolTip(TOOLTIPS["window"])
        for label, w in (("agents N", self.agents_spin),
                         ("episodes", self.team_episodes_spin), ("", self.dp_check),
                         ("noise multiplier σ", self.sigma_spin),
                         ("replay window B", self.window_spin)):
            form.addRow(label, w)
        self.team_controls = RunControls(
            self._runner, setup, run=self.run, cancel=self.cancel, run_text="▶ Train team (F5)",
            run_tip="Train PE-VDN and plain VDN on the same team (F5)",
            cancel_tip="Stop (Esc); nothing is recorded", running_text="training…",
            cancelled_text="cancelled — nothing was recorded", clear_on_finish=False)
        form.addRow(self.team_controls.layout_row())
        self.team_message = _message_label(setup)
        form.addRow(self.team_message)
        # the widgets of ComarlParameters' fields (the seed is the DP-DRL tab's)
        self._team_fields = (("agent", self.team_agent), ("agents", self.agents_spin),
                             ("episodes", self.team_episodes_spin), ("dp", self.dp_check),
                             ("sigma", self.sigma_spin), ("window", self.window_spin))
        self.team_plot = make_plot("Team return per episode", "episode", "return")
        self.team_summary = QTextBrowser(page)
        self.inspector = QTableWidget(0, len(COMARL_COLUMNS), page)
        self.inspector.setHorizontalHeaderLabels(COMARL_COLUMNS)
        self.inspector.verticalHeader().setVisible(False)
        self.inspector.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        right = QVBoxLayout()
        right.addWidget(self.team_plot, 3)
        heading = QLabel("<b>Leakage inspector</b> — what each agent can compute from the "
                         "secure sums it sees", page)
        heading.setWordWrap(True)  # one line was 504 px: the page scrolled at 1366 px
        right.addWidget(heading)
        right.addWidget(self.inspector, 2)
        lay = QHBoxLayout(page)
        left = QVBoxLayout()
        left.addWidget(setup)
        left.addWidget(self.team_summary, 1)
        lay.addLayout(left, 2)
        lay.addLayout(right, 3)
        self.dp_check.toggled.connect(self._on_defense_changed)
        return page

    # ------------------------------------------------------------------ public API
    def seed(self) -> int | None:
        return None if self.mode_combo.currentData() == "release" else self.seed_spin.value()

    def randomness_label(self) -> str:
        seed = self.seed()
        return ("release mode (secure randomness)" if seed is None
                else f"seeded experiment (seed {seed})")

    def current_grid(self) -> GridMap:
        key = self.map_combo.currentData()
        if key == _EXAMPLE or key is None:
            return self._example
        i = grid_index(self._document, key)
        if i < 0:
            raise InputError(f"no grid {key!r} in the project", field="map")
        return self._document.project.grids[i].map

    def add_random_grid(self) -> str:
        """A new random map of the chosen size (seeded by the seed field) in the project."""
        from core.gridworld import random_map

        n = int(self.size_spin.value())
        g = random_map(n, n, np.random.default_rng(self.seed_spin.value()))
        gid = new_grid_id(self._document)
        entry = GridEntry(gid, GridMap(g.cells, g.start, g.goal, f"random {n}x{n}"))
        self._document.push(SetGridCommand(self._document, len(self._document.project.grids),
                                           entry, f"Add grid {gid}"), "agents")
        self.map_combo.setCurrentIndex(self.map_combo.findData(gid))
        return gid

    def run(self) -> bool:
        """F5: train on the DP-DRL tab, train the team on the Co-MARL tab."""
        return self._start("team" if self.tabs.currentIndex() == 1 else "train")

    def run_sweep(self) -> bool:
        return self._start("sweep")

    def show_run(self, run_id: str) -> None:
        rec = self._document.run(run_id)
        if rec.kind not in RUN_KINDS:
            raise ValueError(f"{run_id} is a {rec.kind} run, not a private-agents run")
        self._shown_run = rec.id
        self.show_record(rec.kind, rec.summary, rec.id)

    # ------------------------------------------------------------------ running
    def drl_parameters(self) -> DrlParameters:
        """The DP-DRL tab's :class:`DrlParameters` (InputError naming the field, from the
        core, when they are refused)."""
        defense, preset = _DEFENSES[self.defense_combo.currentData()]
        return DrlParameters(**read_fields(self._drl_fields), defense=defense, preset=preset,
                             epsilon=(float(self.epsilon_spin.value())
                                      if self.defense_combo.currentData() == "strict"
                                      else None), seed=self.seed())

    def comarl_parameters(self) -> ComarlParameters:
        """The Co-MARL tab's :class:`ComarlParameters` (InputError naming the field, from the
        core, when they are refused)."""
        return ComarlParameters(**read_fields(self._team_fields), seed=self.seed())

    def _start(self, task: str) -> bool:
        if self.is_running:
            return False
        for label in (self.drl_message, self.team_message):
            label.hide()
        self.run_message = self.team_message if task == "team" else self.drl_message
        self.clear_problem()
        self._task = task
        try:
            if task == "team":
                team = self.comarl_parameters()
            else:
                grid = self.current_grid()
                check_map(grid)
                params = self.drl_parameters()
        except InputError as exc:
            return self.refuse(f"{exc.field or 'input'}: {exc.problem}")
        if task == "team":
            self._params = team
            self._runner.start(team_runner(team.agent), team)
            return True
        self._params = params
        self._grid_id = str(self.map_combo.currentData())
        if task == "sweep":
            gid = "example" if self._grid_id == _EXAMPLE else self._grid_id
            self._params = DrlTableParameters(params, grid=gid)
            self._runner.start(sweep_task, self._params, grid)
        else:
            self._runner.start(train_runner(params.agent), params, grid)
        return True

    def _update_running(self, running: bool) -> None:
        self.running_changed.emit(running)
        for w in (self.map_combo, self.new_button, self.size_spin, self.defense_combo,
                  self.episodes_spin, self.attack_check, self.generations_spin,
                  self.mode_combo, self.sweep_button, self.agents_spin,
                  self.team_episodes_spin, self.dp_check):
            w.setEnabled(not running)
        self.editor.editable = not running
        if not running:
            self._on_defense_changed()

    def _on_runner_succeeded(self, result: object) -> None:
        project = self._document.project
        gid = "example" if self._grid_id == _EXAMPLE else self._grid_id
        if self._task == "train":
            record, entries = drl_run_record(project, cast("DrlRun", result),
                                             cast("DrlParameters", self._params), gid)
        elif self._task == "sweep":
            # the sweep returns its table's rows
            record, entries = drl_table_run_record(project, list(cast("Iterable[Any]", result)),
                                                   cast("DrlTableParameters", self._params))
        else:
            record, entries = comarl_run_record(project, cast("ComarlRun", result),
                                                cast("ComarlParameters", self._params))
        self.record(record, entries,
                    self.team_controls if self._task == "team" else self.run_controls)

    # ------------------------------------------------------------------ display
    def show_record(self, kind: str, s: dict, run_id: str | None) -> None:
        if kind in ("drl", "drl-table"):
            self.tabs.setCurrentIndex(0)
            truth = _rows_map(s["truth"])
            rows = s["rows"] if kind == "drl-table" else None
            rec_rows = (rows[-1]["recovered"] if rows else s.get("recovered"))
            self.truth_view.set_map(truth)
            self._truth = truth
            self._sweep_rows = list(rows or [])
            if rec_rows:
                rec = _rows_map(rec_rows)
                self.recovered_view.set_map(
                    rec, reference=truth.cells,
                    title=f"recovered ({rows[-1]['label']})" if rows
                    else "recovered by the attack")
            else:
                self.recovered_view.set_map(None, title="no attack run")
            self.drl_summary.setHtml(drl_html(kind, s, run_id))
            self._draw_rewards(kind, s)
            cells = sweep_cells(rows or [])
            self.sweep_table.setRowCount(len(cells))
            for i, row in enumerate(cells):
                for j, text in enumerate(row):
                    self.sweep_table.setItem(i, j, QTableWidgetItem(text))
            self.sweep_table.resizeColumnsToContents()
        else:
            self.tabs.setCurrentIndex(1)
            self.team_summary.setHtml(comarl_html(s, run_id))
            p = self.team_plot
            p.clear()
            legend = add_legend(p, "bottom-right")
            legend.clear()
            for key, colour, name in (("returns", "#1f77b4", "PE-VDN (secure summation)"),
                                      ("central_returns", "#7f7f7f", "plain VDN")):
                y = np.asarray(s.get(key) or [], dtype=float)
                if y.size:
                    k = max(1, y.size // 50)
                    sm = np.convolve(y, np.ones(k) / k, mode="valid")
                    p.plot(np.arange(sm.size) + k, sm, pen=pen(colour), name=name)
            leak = s.get("leakage") or []
            self.inspector.setRowCount(len(leak))
            for i, r in enumerate(leak):
                for j, key in enumerate(("agent", "learns", "dp")):
                    self.inspector.setItem(i, j, QTableWidgetItem(str(r[key])))
            self.inspector.resizeColumnsToContents()
        self.result_shown.emit()

    def show_sweep_row(self, i: int) -> None:
        """Draw the map recovered from row ``i`` of the comparison next to the truth."""
        if not 0 <= i < len(self._sweep_rows) or self._truth is None:
            return
        row = self._sweep_rows[i]
        rec = _rows_map(row["recovered"])
        self.recovered_view.set_map(rec, reference=self._truth.cells,
                                    title=f"recovered ({row['label']})")

    def _on_sweep_row(self, row: int, *args: object) -> None:
        self.show_sweep_row(row)

    def _draw_rewards(self, kind: str, s: dict) -> None:
        p = self.reward_plot
        p.clear()
        y = np.asarray(s.get("rewards") or [], dtype=float)
        if y.size:
            k = max(1, y.size // 60)
            sm = np.convolve(y, np.ones(k) / k, mode="valid")
            p.plot(np.arange(sm.size) + k, sm, pen=pen("#1f77b4"))

    # ------------------------------------------------------------------ slots
    def _fill_maps(self) -> None:
        current = self.map_combo.currentData()
        self.map_combo.blockSignals(True)
        self.map_combo.clear()
        for g in self._document.project.grids:
            self.map_combo.addItem(f"{g.id}: {g.map.name or 'grid'} "
                                   f"({g.map.shape[0]}x{g.map.shape[1]})", g.id)
        self.map_combo.addItem("12x11 example (generated stand-in, A19)", _EXAMPLE)
        i = self.map_combo.findData(current)
        self.map_combo.setCurrentIndex(i if i >= 0 else 0)
        self.map_combo.blockSignals(False)
        self._on_map_selected()

    def _on_map_selected(self, *args: object) -> None:
        key = self.map_combo.currentData()
        try:
            grid = self.current_grid()
        except InputError:
            return
        self.editor.set_map(grid)
        self.editor.editable = key != _EXAMPLE and not self.is_running
        bad = violations(grid.cells, grid.start, grid.goal)
        self.map_problem.setText("" if not bad else "Cannot train yet: " + bad[0])

    def _on_cell_clicked(self, r: int, c: int, button: object, modifiers: object) -> None:
        key = self.map_combo.currentData()
        i = grid_index(self._document, key) if key != _EXAMPLE else -1
        if i < 0:
            return
        g = self._document.project.grids[i].map
        H, W = g.shape
        cells, start, goal = g.cells.copy(), g.start, g.goal
        mods = modifiers if isinstance(modifiers, Qt.KeyboardModifier) else \
            Qt.KeyboardModifier(int(modifiers))  # type: ignore[call-overload]
        if not (0 < r < H - 1 and 0 < c < W - 1):
            return  # the border stays wall
        if mods & Qt.KeyboardModifier.ShiftModifier:
            if (r, c) == goal:
                return
            cells[r, c], start, text = 1, (r, c), "Move start"
        elif mods & Qt.KeyboardModifier.ControlModifier:
            if (r, c) == start:
                return
            cells[r, c], goal, text = 1, (r, c), "Move goal"
        else:
            if (r, c) in (start, goal):
                return
            cells[r, c] ^= 1
            text = "Toggle cell"
        entry = GridEntry(key, GridMap(cells, start, goal, g.name))
        self._document.push(SetGridCommand(self._document, i, entry, text), "agents")

    def _on_grid_changed(self, index: int) -> None:
        self._fill_maps()

    def _on_project_replaced(self) -> None:
        self._fill_maps()

    def _on_defense_changed(self, *args: object) -> None:
        running = self.is_running
        self.epsilon_spin.setEnabled(self.defense_combo.currentData() == "strict" and not running)
        self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment" and not running)
        for w in (self.sigma_spin, self.window_spin):
            w.setEnabled(self.dp_check.isChecked() and not running)


register_tool(ToolSpec(
    "agents", "Private agents",
    lambda window: AgentsPanel(window.document, window.tabs, status_bar=window.statusBar()),
    "DP-DRL against map recovery, and privacy-engineered cooperative MARL with secure "
    "summation.\nDouble-click to open."))
