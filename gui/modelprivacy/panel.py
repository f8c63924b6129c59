"""The Model privacy workspace: how much does a trained model leak about its training data,
and what does each defense cost?

Top — the set-up: the data (scikit-learn's bundled digits, breast-cancer and wine, any MDP of
the project as next-state records, or a CSV file), the victim (feed-forward, recurrent, or the
MLE model of an MDP), the defense (none, DP-SGD, the Gaussian post-training mechanism, the
one-parameter defense) with its ε and δ (tooltips say what each protects), the shadow models,
and the randomness (seeded experiment or release mode). **Run study** (F5) runs one
membership-inference study in this tab's worker; **Compare defenses** runs every defense at
several ε on the same split (the thesis's Table 6.2 shape). Esc or Cancel stops either.

Bottom — the result: the numbers and the privacy statement of the defense (with its caveats:
random DP for GPM, per-vector k·ε for the one-parameter defense), the attack's ROC, MIA accuracy
and test accuracy against ε with the DP cap (e^ε + δ)/(1 + e^ε), and the comparison table.
Every finished run is recorded in the project (one undoable step) with the ledger entries of
what the victim released; double-click it in the project tree to show it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
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
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.modelprivacy import RUN_KIND, TABLE_KIND
from core.project import mia_compare_run_record, mia_run_record
from gui.modelprivacy import jobs
from gui.modelprivacy.attack_view import AttackResults
from gui.modelprivacy.network_runner import add_network_victims
from gui.modelprivacy.texts import (
    DEFENSE_NAMES,
    EMPTY_TEXT,
    INFO_HTML,
    TABLE_COLUMNS,
    TOOLTIPS,
    study_html,
    table_cells,
)
from gui.shell.document import ProjectDocument
from gui.shell.plots import add_legend, make_plot, pen
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, info_panel

__all__ = ["ModelPrivacyPanel"]

_COLOURS = {"none": "#444444", "dpsgd": "#1f77b4", "gpm": "#2ca02c", "oneparam": "#d62728",
            "dirichlet": "#9467bd"}
_SYMBOLS = {"ffnn": "o", "rnn": "s", "tabular": "d"}
_CSV = "__csv__"
_DP = ("dpsgd", "gpm", "oneparam")
#: The form bound to :class:`core.modelprivacy.release.MiaParameters`: (field, widget
#: attribute, the defenses the field applies to; None: every defense). A field that does not
#: apply to the chosen defense keeps its default (ε and δ: none) and its widget is disabled.
#: The data, the attack choice and the seed have their own widgets (a file, a project MDP,
#: the randomness mode).
_BINDINGS: tuple[tuple[str, str, tuple[str, ...] | None], ...] = (
    ("victim", "victim_combo", None), ("defense", "defense_combo", None),
    ("epsilon", "epsilon_spin", _DP), ("delta", "delta_spin", ("dpsgd", "gpm")),
    ("k", "k_spin", ("dirichlet",)), ("shadows", "shadows_spin", None))


def _read(widget: QWidget) -> Any:
    """The value a bound widget holds (a combo's key, a spin box's number)."""
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QSpinBox):
        return int(widget.value())
    return float(widget.value())  # type: ignore[attr-defined]


def _write(widget: QWidget, name: str, value: Any) -> None:
    """Show ``value`` in a bound widget (ValueError when a combo has no such key)."""
    if isinstance(widget, QComboBox):
        i = widget.findData(value)
        if i < 0:
            raise ValueError(f"no {name} {value!r}")
        widget.setCurrentIndex(i)
    else:
        widget.setValue(value)  # type: ignore[attr-defined]


class ModelPrivacyPanel(ToolPanel):
    """The Model privacy tool tab (see the module docstring)."""

    result_shown = Signal()
    status_name = "Model privacy"
    log_name = "model privacy"
    undo_key = "model privacy"
    run_kinds = (RUN_KIND, TABLE_KIND)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.setObjectName("modelprivacy_panel")
        self._task = "study"
        self._params: Any = None
        self._csv_path = ""
        self._roc_legend: Any = None
        self._eps_legend: Any = None

        title = QLabel("<b>Model privacy lab</b> — a shadow-model membership-inference attack "
                       "on a trained model, and what DP-SGD, noise after training and the "
                       "one-parameter defense cost in accuracy.", self)
        title.setWordWrap(True)
        setup = self._build_setup()
        results = self._build_results()
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(setup)
        split.addWidget(results)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(title)
        lay.addWidget(split, 1)
        self.info_panel = info_panel(INFO_HTML)

        self.run_controls.running_changed.connect(self._update_running)
        self.connect_runner()
        document.project_replaced.connect(self._on_project_replaced)
        document.run_added.connect(self._on_run_added)
        document.run_removed.connect(self._on_run_removed)
        self._update_running(False)
        self._fill_data()
        self._show_latest()

    # ------------------------------------------------------------------ construction
    def _build_setup(self) -> QWidget:
        box = QGroupBox("Study", self)
        row = QHBoxLayout(box)
        form1, form2, form3 = QFormLayout(), QFormLayout(), QFormLayout()
        self.data_combo = QComboBox(box)
        self.data_combo.setToolTip(TOOLTIPS["data"])
        self.victim_combo = QComboBox(box)
        for key, text in (("ffnn", "feed-forward network"), ("rnn", "recurrent (Elman)"),
                          ("tabular", "tabular MLE model (MDP data)")):
            self.victim_combo.addItem(text, key)
        add_network_victims(self.victim_combo)   # MLP/CNN/GRU/LSTM when JAX is installed
        self.victim_combo.setToolTip(TOOLTIPS["victim"])
        self.defense_combo = QComboBox(box)
        for key, text in DEFENSE_NAMES.items():
            self.defense_combo.addItem(text, key)
        self.defense_combo.setToolTip(TOOLTIPS["defense"])
        form1.addRow("data", self.data_combo)
        form1.addRow("victim", self.victim_combo)
        form1.addRow("defense", self.defense_combo)
        self.epsilon_spin = SciSpinBox(box, minimum=1e-3, maximum=100.0, value=1.0, digits=4,
                                       step=0.1)
        self.epsilon_spin.setToolTip(TOOLTIPS["epsilon"])
        self.delta_spin = SciSpinBox(box, minimum=1e-12, maximum=0.5, value=1e-5, digits=3,
                                     step=1e-5)
        self.delta_spin.setToolTip(TOOLTIPS["delta"])
        self.k_spin = SciSpinBox(box, minimum=1e-2, maximum=1e6, value=50.0, digits=4, step=10)
        self.k_spin.setToolTip(TOOLTIPS["k"])
        self.shadows_spin = QSpinBox(box)
        self.shadows_spin.setRange(1, 32)
        self.shadows_spin.setValue(4)
        self.shadows_spin.setToolTip(TOOLTIPS["shadows"])
        form2.addRow("ε", self.epsilon_spin)
        form2.addRow("δ", self.delta_spin)
        form2.addRow("k (Dirichlet)", self.k_spin)
        form2.addRow("shadow models", self.shadows_spin)
        self.mode_combo = QComboBox(box)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release (secure noise)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.seed_spin = QSpinBox(box)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(1)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.attack_combo = QComboBox(box)
        for key, text in jobs.ATTACK_MODES.items():
            self.attack_combo.addItem(text, key)
        self.attack_combo.setToolTip(TOOLTIPS["attack"])
        for combo in (self.data_combo, self.victim_combo, self.defense_combo,
                      self.attack_combo):  # long item texts do not widen the page (1366 px)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(16)
        form3.addRow("attack", self.attack_combo)
        form3.addRow("randomness", self.mode_combo)
        form3.addRow("seed", self.seed_spin)
        self.run_controls = RunControls(
            self._runner, box, run=self.run, cancel=self.cancel, run_text="▶ Run study (F5)",
            run_tip="Train the victim and the shadows, attack, and record the study (F5)",
            cancel_tip="Stop (Esc); nothing is recorded", running_text="running…",
            cancelled_text="cancelled — nothing was recorded", clear_on_finish=False)
        self.run_button = self.run_controls.run_button
        self.compare_button = QPushButton("Compare defenses", box)
        self.compare_button.setToolTip(TOOLTIPS["compare"])
        self.compare_button.clicked.connect(self.run_table)
        self.victims_button = QPushButton("Compare victims", box)
        self.victims_button.setToolTip(TOOLTIPS["victims"])
        self.victims_button.clicked.connect(self.run_victims)
        self.run_message = QLabel(box)
        self.run_message.setWordWrap(True)
        self.run_message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.run_message.hide()
        col = QVBoxLayout()
        col.addLayout(form3)
        col.addLayout(self.run_controls.layout_row())
        buttons = QHBoxLayout()
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.victims_button)
        col.addLayout(buttons)
        col.addWidget(self.run_message)
        row.addLayout(form1, 3)
        row.addLayout(form2, 2)
        row.addLayout(col, 3)
        self.defense_combo.currentIndexChanged.connect(self._on_defense_changed)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_changed)
        self.data_combo.activated.connect(self._on_data_activated)
        self._on_defense_changed()
        return box

    def _build_results(self) -> QWidget:
        w = QWidget(self)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        self.empty_label = QLabel(EMPTY_TEXT, w)
        self.empty_label.setWordWrap(True)
        self.summary_view = QTextBrowser(w)
        self.summary_view.setMinimumWidth(220)
        # titles and widths that fit a 1366×768 window with its docks
        self.roc_plot = make_plot("Attack ROC",
                                  "false positive rate", "true positive rate",
                                  min_size=(240, 190))
        self.eps_plot = make_plot("MIA (solid), test (dashed) acc.",
                                  "ε (one-parameter: per choice)", "accuracy",
                                  min_size=(200, 190))
        self.table = QTableWidget(0, len(TABLE_COLUMNS), w)
        self.table.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        top = QSplitter(Qt.Orientation.Horizontal, w)
        top.addWidget(self.summary_view)
        top.addWidget(self.roc_plot)
        top.addWidget(self.eps_plot)
        top.setStretchFactor(0, 2)  # the ROC gets as much room as the accuracy plot
        top.setStretchFactor(1, 3)
        top.setStretchFactor(2, 3)
        lay.addWidget(self.empty_label)
        lay.addWidget(top, 3)
        lay.addWidget(self.table, 2)
        self.attack_results = AttackResults(self.summary_view, self.roc_plot, self.table)
        return w

    # ------------------------------------------------------------------ public API
    def set_parameters(self, **values: Any) -> None:
        """Set the form (keys: data, attack, seed and the bound fields of
        :data:`_BINDINGS`: victim, defense, epsilon, delta, k, shadows)."""
        for key, combo in (("data", self.data_combo), ("attack", self.attack_combo)):
            if key in values:
                _write(combo, key, values[key])
        for name, attr, _applies in _BINDINGS:
            if name in values:
                _write(getattr(self, attr), name, values[name])
        if "seed" in values:
            seed = values["seed"]
            self.mode_combo.setCurrentIndex(1 if seed is None else 0)
            if seed is not None:
                self.seed_spin.setValue(int(seed))

    def parameters(self, data: str, *, task: str = "study") -> Any:
        """The form as :class:`~core.modelprivacy.release.MiaParameters` on ``data`` (the
        core refuses, naming the field, what it does not accept). ``task``: the attack
        choice applies to a study; a comparison is of shadow studies, and "Compare
        defenses" starts from no defense."""
        from core.modelprivacy import MiaParameters

        values: dict[str, Any] = {"data": data, "seed": self.seed()}
        if task == "study":
            values.update(jobs.ATTACK_PARAMETERS[self.attack_combo.currentData()])
        defense = "none" if task == "table" else self.defense_combo.currentData()
        for name, attr, applies in _BINDINGS:
            if applies is None or defense in applies:
                values[name] = _read(getattr(self, attr))
        values["defense"] = defense
        return MiaParameters(**values)

    def seed(self) -> int | None:
        return None if self.mode_combo.currentData() == "release" else self.seed_spin.value()

    def randomness_label(self) -> str:
        """For the status bar: the randomness the next study will use."""
        seed = self.seed()
        return ("study in release mode (secure noise)" if seed is None
                else f"study as a seeded experiment (seed {seed})")

    def run(self) -> bool:
        """One study (or, with another attack chosen, the population study or the canary
        audit) in the worker; False (with the reason shown) when refused."""
        return self._start("study" if self.attack_combo.currentData() == "shadow"
                           else "attacks")

    def run_table(self) -> bool:
        """Every defense at several ε on the same split (Table 6.2's shape)."""
        return self._start("table")

    def run_victims(self) -> bool:
        """The current defense for the feed-forward and the recurrent victim, side by side."""
        return self._start("victims")

    def show_run(self, run_id: str) -> None:
        """Show a recorded study or comparison (double-click in the project tree)."""
        rec = self._document.run(run_id)
        if rec.kind not in (RUN_KIND, TABLE_KIND):
            raise ValueError(f"{run_id} is a {rec.kind} run, not a model privacy run")
        self._shown_run = rec.id
        self.show_record(rec.kind, rec.summary, rec.id)

    # ------------------------------------------------------------------ running
    def _data_source(self) -> tuple[str, Any]:
        key = self.data_combo.currentData()
        if key == _CSV:
            if not self._csv_path:
                raise InputError("choose a CSV file first", field="data")
            return self._csv_path, None
        if isinstance(key, str) and key.startswith("mdp:"):
            return key, self._document.project.mdp(key[4:])
        return str(key), None

    def _start(self, task: str) -> bool:
        if self.is_running:
            return False
        self.clear_problem()
        from core.modelprivacy import MiaCompareParameters

        try:
            spec, mdp = self._data_source()
            params = self.parameters(spec, task="study" if task == "attacks" else task)
            compared = (None if task in ("study", "attacks") else MiaCompareParameters(
                params, "defenses" if task == "table" else "victims"))
        except InputError as exc:
            return self.refuse(f"{exc.field or 'input'}: {exc.problem}")
        self._task, self._params = task, (params if compared is None else compared)
        self._request = {"data": spec}
        seed = params.seed
        self.message_logged.emit("INFO", f"model privacy: {task} on {spec}, {params.victim}, "
                                 f"{params.defense}, "
                                 + ("release mode" if seed is None else f"seed {seed}"))
        if compared is None:
            self._runner.start(jobs.release, params, mdp)
        else:
            self._runner.start(jobs.compare, compared, mdp)
        return True

    def _update_running(self, running: bool) -> None:
        self.running_changed.emit(running)
        for w in (self.data_combo, self.victim_combo, self.defense_combo, self.epsilon_spin,
                  self.delta_spin, self.k_spin, self.shadows_spin, self.mode_combo,
                  self.compare_button, self.victims_button, self.attack_combo):
            w.setEnabled(not running)
        if not running:
            self._on_mode_changed()
            self._on_defense_changed()

    def _on_runner_succeeded(self, result: object) -> None:
        if self._task == "attacks":          # many models, nothing released: shown only
            self.empty_label.hide()
            self.attack_results.show(result)
            self._summary, self._shown_run = self.attack_results.shown, None
            self.result_shown.emit()
            return self.run_controls.set_status("done — shown, not recorded (releases nothing)")
        project = self._document.project
        if self._task in ("table", "victims"):
            record, entries = mia_compare_run_record(
                project, list(result), self._params)  # type: ignore[call-overload]
        else:
            record, entries = mia_run_record(project, result, self._params)
        if self.record(record, entries, self.run_controls):
            self.message_logged.emit(
                "INFO", f"model privacy {record.id}: recorded with {len(entries)} ledger "
                f"entr{'y' if len(entries) == 1 else 'ies'}")

    # ------------------------------------------------------------------ display
    def show_record(self, kind: str, s: Mapping[str, Any], run_id: str | None) -> None:
        self._summary = dict(s)
        self.empty_label.hide()
        rows = s["rows"] if kind == TABLE_KIND else [dict(s, label=DEFENSE_NAMES.get(
            s["defense"], s["defense"]), epsilon_setting=s.get("epsilon"))]
        self.summary_view.setHtml(study_html(s, kind, run_id))
        self._draw_roc(rows)
        self._draw_eps(rows)
        cells = table_cells(rows)
        self.table.setColumnCount(len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.table.setRowCount(len(cells))
        for i, row in enumerate(cells):
            for j, text in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.result_shown.emit()

    def _draw_roc(self, rows: list[Mapping[str, Any]]) -> None:
        """The ROC of each defense's most private setting (and of no defense)."""
        p = self.roc_plot
        if self._roc_legend is None:
            self._roc_legend = add_legend(p, "bottom-right")
        self._roc_legend.clear()
        p.clear()
        p.plot([0, 1], [0, 1], pen=pen("#999999", dotted=True, width=1))
        seen: set[tuple[str, str]] = set()
        victims = {r.get("victim") for r in rows}
        for r in sorted(rows, key=lambda r: (r["defense"], r.get("epsilon_setting") or 0,
                                             r.get("k") or 0)):
            key = (str(r.get("victim")), r["defense"])
            if key in seen or not r.get("roc"):
                continue
            seen.add(key)
            roc = np.asarray(r["roc"], dtype=float)
            eps, k = r.get("epsilon_setting"), r.get("k")
            name = (DEFENSE_NAMES[r["defense"]].split(" (")[0]
                    + ("" if eps is None else f", ε = {eps:g}")
                    + ("" if k is None else f", k = {k:g}"))
            if len(victims) > 1:
                name = f"{r.get('victim')}: {name}"
            p.plot(roc[:, 0], roc[:, 1], pen=pen(_COLOURS.get(r["defense"], "#1f77b4"),
                                                 dashed=r.get("victim") == "rnn"), name=name)
        p.setRange(xRange=(0, 1), yRange=(0, 1))

    def _draw_eps(self, rows: list[Mapping[str, Any]]) -> None:
        """MIA accuracy (solid) and test accuracy (dashed) against the ε setting, the DP cap
        and the undefended attack accuracy (dotted)."""
        from core.privacy import accuracy_cap

        p = self.eps_plot
        if self._eps_legend is None:
            self._eps_legend = add_legend(p, "bottom-right")
        legend = self._eps_legend
        legend.clear()
        p.clear()
        eps_vals = [r["epsilon_setting"] for r in rows if r.get("epsilon_setting") is not None]
        top = max(eps_vals + [4.0]) * 1.1
        grid = np.linspace(0, top, 120)
        delta = next((r.get("delta") or 0.0 for r in rows if r["defense"] in ("dpsgd", "gpm")),
                     1e-5)
        cap = [accuracy_cap(float(e), float(delta)) for e in grid]
        p.plot(grid, cap, pen=pen("#7A2300", dashdot=True), name="DP cap on MIA accuracy")
        none = [r for r in rows if r["defense"] == "none"]
        if none:
            a = float(none[0]["attack_accuracy"])
            p.plot([0, top], [a, a], pen=pen(_COLOURS["none"], dotted=True),
                   name="no defense")
        victims = sorted({str(r.get("victim")) for r in rows})
        for v in victims:
            for d in ("dpsgd", "gpm", "oneparam"):
                pts = sorted((r["epsilon_setting"], r["attack_accuracy"], r["test_accuracy"])
                             for r in rows if r["defense"] == d and str(r.get("victim")) == v
                             and r.get("epsilon_setting") is not None)
                if not pts:
                    continue
                x, a_, t = (np.array(vals, dtype=float) for vals in zip(*pts))
                name = DEFENSE_NAMES[d].split(" (")[0]
                sym = _SYMBOLS.get(v, "o")
                p.plot(x, a_, pen=pen(_COLOURS[d]), symbol=sym, symbolSize=7,
                       symbolBrush=_COLOURS[d],
                       name=f"{v}: {name}" if len(victims) > 1 else name)
                p.plot(x, t, pen=pen(_COLOURS[d], dashed=True, width=1.5), symbol=sym,
                       symbolSize=7, symbolBrush=None)
        p.setRange(xRange=(0, top), yRange=(0, 1.02))

    # ------------------------------------------------------------------ slots
    def _fill_data(self) -> None:
        current = self.data_combo.currentData()
        self.data_combo.clear()
        for key, text in (("digits", "digits (scikit-learn, 1,797 × 8×8)"),
                          ("breast-cancer", "breast-cancer (569 × 30)"),
                          ("wine", "wine (178 × 13)")):
            self.data_combo.addItem(text, key)
        for e in self._document.project.mdps:
            self.data_combo.addItem(f"MDP {e.id}: next-state records", f"mdp:{e.id}")
        self.data_combo.addItem("CSV file…" if not self._csv_path
                                else f"CSV: {self._csv_path}", _CSV)
        i = self.data_combo.findData(current)
        self.data_combo.setCurrentIndex(max(i, 0))

    def _on_data_activated(self, index: int) -> None:
        if self.data_combo.itemData(index) != _CSV:
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open a CSV data set", "",
                                              "CSV files (*.csv);;All files (*)")
        if path:
            self._csv_path = path
            self.data_combo.setItemText(index, f"CSV: {path}")

    def _on_defense_changed(self, *args: object) -> None:
        d = self.defense_combo.currentData()
        running = self.is_running
        for _name, attr, applies in _BINDINGS:
            if applies is not None:
                getattr(self, attr).setEnabled(d in applies and not running)

    def _on_mode_changed(self, *args: object) -> None:
        self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment"
                                  and not self.is_running)

    def _show_latest(self) -> None:
        runs = [r for r in self._document.project.runs if r.kind in (RUN_KIND, TABLE_KIND)]
        if runs:
            self.show_run(runs[-1].id)
        else:
            self._summary = None
            self._shown_run = None
            self.empty_label.show()
            self.summary_view.setHtml(EMPTY_TEXT)
            self.table.setRowCount(0)
            self._draw_roc([])
            self.eps_plot.clear()
            if self._eps_legend is not None:
                self._eps_legend.clear()

    def _on_project_replaced(self) -> None:
        self._fill_data()
        self._show_latest()

    def _on_run_removed(self, run_id: str) -> None:
        if run_id == self._shown_run:
            self._show_latest()


register_tool(ToolSpec(
    "modelprivacy", "Model privacy",
    lambda window: ModelPrivacyPanel(window.document, window.tabs,
                                     status_bar=window.statusBar()),
    "Membership inference on a trained model, and what DP-SGD, noise after training and the "
    "one-parameter defense cost.\nDouble-click to open."))

