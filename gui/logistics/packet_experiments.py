"""Packet routing with dynamics (thesis §4.7.1, Figs 4.9–4.11): run, plot with intervals, test.

:class:`PacketExperimentsPage` runs :func:`core.logistics.packet_release` of the Run panel's
:class:`~core.logistics.PacketParameters` (``plan-bench --experiment`` builds the same and calls
the same) in its own :class:`~gui.shell.workers.TaskRunner` (progress and cancel) on the shared
study runner: every approach on the same seeded worlds, packets and churn streams (paired by
seed), nodes leaving and joining with probability p before each step and before execution. It
shows, for each approach, the mean route length, messages, success rate and re-plans against the
swept value with their 95 % Student-t interval as a shaded band (fig49 and fig410: packet
routing solid, the static logistics network dashed, in the same colour), the thesis's claims as
paired tests with Holm-adjusted p-values and their verdicts (failures first), and what each
approach proves per agent under the dynamics.

A finished study is recorded in the project (:data:`~core.logistics.packet_records.PACKET_KIND`,
made by :func:`core.project.packet_run_record`, one undoable
:class:`~gui.shell.commands.AddRunCommand`); the page redraws from that record,
so a reopened project shows its latest study again. The study is a seeded experiment on
generated worlds: nothing private is released, so nothing enters the ledger.

Each widget of the Run panel is bound to its field of :class:`~core.logistics.PacketParameters`
in one table (:attr:`PacketExperimentsPage.fields`, :mod:`gui.shell.bindings`) that reads the
parameters, shows them (:meth:`PacketExperimentsPage.show_parameters`, and a recorded study's
when it is shown) and gives each widget its help; the checks are the core's, and a refused
field is named in the Run panel and its widget turned red.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.logistics import PacketParameters, PacketRelease, packet_release
from core.logistics.packet import EXPERIMENTS, experiment_approaches
from core.logistics.packet_records import (
    PACKET_KIND,
    PACKET_PLOTS,
    PACKET_RANGES,
    PACKET_TITLES,
    packet_series,
)
from core.project import packet_run_record
from gui.logistics.packet_parts import fill_claims, make_claims_table
from gui.logistics.side_panel import (
    APPROACH_STYLE,
    approach_box,
    approaches_binding,
    clear_refused,
    connect_study_runner,
    mark_refused,
    side_run_row,
    study_page_bar,
    values_binding,
)
from gui.shell.bindings import (
    Binding,
    combo_binding,
    read_bindings,
    set_tooltips,
    show_bindings,
    show_fields,
)
from gui.shell.commands import AddRunCommand
from gui.shell.plots import add_band, add_error_bars, make_plot
from gui.shell.style import ERROR_COLOUR
from gui.shell.workers import TaskRunner

__all__ = ["PacketExperimentsPage", "X_LABELS", "DEFAULT_VALUES", "preview"]

#: the swept parameter -> axis label
X_LABELS = {"n_centers": "network size (access points)", "epsilon": "ε (privacy budget per agent)",
            "dynamics": "dynamism p (leave = join, per step)"}
#: the thesis's grids (fig411 adds the static point 0 itself)
DEFAULT_VALUES = {"fig49": (10, 20, 30, 40, 50), "fig410": (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
                  "fig411": (0.05, 0.1, 0.15, 0.2)}
TIPS = {"fig49": "The approaches against the network size, packet routing (dynamism p) beside "
                 "logistics (a static network): the thesis finds the same trends, worse under "
                 "dynamism.",
        "fig410": "DP-based against ε at 10 access points, packet routing beside logistics: "
                  "(a) route length, (b) messages, (c) success.",
        "fig411": "The approaches against the dynamism at 10 access points, with the static "
                  "network (0) as the reference: dynamism should lower success and raise "
                  "messages for every approach."}
DEFAULT_WORLDS = 10
#: the access points of fig410/fig411 when a study leaves them to the thesis
THESIS_SIZES = 10


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


class PacketExperimentsPage(QWidget):
    """Figs 4.9–4.11: run, plot, test (see the module docstring)."""

    message_logged = Signal(str, str)
    run_recorded = Signal(str)

    def __init__(self, document: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self._request: PacketParameters | None = None
        self.summary: dict[str, Any] | None = None
        self.run_id = ""
        self.controls = self._build_controls()
        self._build_page()
        self._on_experiment_changed()
        connect_study_runner(self, document)

    # ------------------------------------------------------------------ construction
    def _build_controls(self) -> QWidget:
        w = QWidget()
        w.setObjectName("packet_experiment_controls")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(4, 4, 4, 4)
        box = QGroupBox("Packet-routing study", w)
        form = QFormLayout(box)
        self.experiment_combo = QComboBox(box)
        for name in EXPERIMENTS:
            self.experiment_combo.addItem(PACKET_TITLES[name].split(":")[0], name)
            self.experiment_combo.setItemData(self.experiment_combo.count() - 1, TIPS[name],
                                              Qt.ItemDataRole.ToolTipRole)
        self.experiment_combo.setCurrentIndex(EXPERIMENTS.index("fig411"))
        self.experiment_combo.currentIndexChanged.connect(self._on_experiment_changed)
        form.addRow("figure", self.experiment_combo)
        self.values_label = QLabel("values", box)
        self.values_edit = QLineEdit(box)
        form.addRow(self.values_label, self.values_edit)
        self.worlds_spin = QSpinBox(box)
        self.worlds_spin.setRange(2, 500)
        self.worlds_spin.setValue(DEFAULT_WORLDS)
        form.addRow("worlds/point", self.worlds_spin)
        self.seed_check = QCheckBox("seed", box)
        self.seed_check.setChecked(True)
        self.seed_spin = QSpinBox(box)
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(7)
        self.seed_check.toggled.connect(self.seed_spin.setEnabled)
        form.addRow(self.seed_check, self.seed_spin)
        self.dynamics_spin = QDoubleSpinBox(box)
        self.dynamics_spin.setDecimals(3)
        self.dynamics_spin.setRange(0.001, 1.0)
        self.dynamics_spin.setSingleStep(0.05)
        self.dynamics_spin.setValue(0.1)
        form.addRow("dynamism p", self.dynamics_spin)
        self.sizes_spin = QSpinBox(box)
        self.sizes_spin.setRange(2, 200)
        self.sizes_spin.setValue(THESIS_SIZES)
        form.addRow("access points", self.sizes_spin)
        self.per_combo = QComboBox(box)
        self.per_combo.addItem("every node (thesis)", "node")
        self.per_combo.addItem("one per agent", "agent")
        form.addRow("churn", self.per_combo)
        self.connectivity_combo = QComboBox(box)
        self.connectivity_combo.addItem("network kept connected", "network")
        self.connectivity_combo.addItem("each area kept connected", "area")
        form.addRow("keeps", self.connectivity_combo)
        self.solver_combo = QComboBox(box)
        self.solver_combo.addItem("Dijkstra", "dijkstra")
        self.solver_combo.addItem("RL (thesis 4.5.3)", "rl")
        form.addRow("solver", self.solver_combo)
        self.workers_spin = QSpinBox(box)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(1)
        form.addRow("processes", self.workers_spin)
        for c in (self.experiment_combo, self.per_combo, self.connectivity_combo,
                  self.solver_combo):
            c.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            c.setMinimumContentsLength(8)
        lay.addWidget(box)
        abox, self.approach_checks = approach_box(w, experiment_approaches() + ("dp-thesis",))
        lay.addWidget(abox)
        (self.controls_message, row, self.side_run_button,
         self.side_cancel_button) = side_run_row(w, self.run, self.cancel)
        lay.addWidget(self.controls_message)
        lay.addLayout(row)
        lay.addStretch(1)
        self.fields = self._bindings()
        set_tooltips(self.fields)
        return w

    def _bindings(self) -> tuple[Binding, ...]:
        """The fields of :class:`PacketParameters` the Run panel edits: the one place a widget
        meets its field and its help (the figure's help follows the figure chosen). The
        experiment comes first: choosing one brings its own values and approaches."""
        sizes, dyn = self.sizes_spin, self.dynamics_spin
        return (
            combo_binding("experiment", self.experiment_combo),
            values_binding(self.values_edit, lambda: DEFAULT_VALUES[self._experiment()],
                           "The swept values, comma separated (default: the thesis's). "
                           "fig411 always adds the static network (0)."),
            approaches_binding(self.approach_checks, self._default_approaches),
            Binding("worlds", self.worlds_spin.value, self.worlds_spin.setValue,
                    self.worlds_spin, "Generated worlds (paired seeds) per approach and point; "
                    "the command line (plan-bench --experiment) uses 20."),
            Binding("seed", self._seed, self._show_seed, self.seed_check,
                    "Unticked: the master seed is drawn from the operating system and "
                    "recorded (still a seeded experiment)."),
            Binding("dynamics", dyn.value, dyn.setValue, dyn, "fig49/fig410: the "
                    "packet-routing p(leave) = p(join) per node and step (the thesis: 0.1)."),
            Binding("sizes", lambda: None if self._experiment() == "fig49" else sizes.value(),
                    lambda n: sizes.setValue(THESIS_SIZES if n is None else n), sizes,
                    "fig410/fig411: access points of the network (the thesis: 10). fig49 "
                    "sweeps it."),
            combo_binding("dynamics_per", self.per_combo,
                          "Who may leave: every node with probability p (the thesis's "
                          "wording), or at most one node per agent and step."),
            combo_binding("connectivity", self.connectivity_combo,
                          "What churn keeps connected: the whole network (an access area may "
                          "split) or every area."),
            combo_binding("solver", self.solver_combo,
                          "Step 3's high-level solver on the center graph."),
            Binding("workers", self.workers_spin.value,
                    lambda n: self.workers_spin.setValue(
                        self.workers_spin.maximum() if n is None else n),
                    self.workers_spin, "Worker processes (1 runs in this app's worker thread)."))

    def _experiment(self) -> str:
        return str(self.experiment_combo.currentData())

    def _default_approaches(self) -> tuple[str, ...]:
        return ("dp",) if self._experiment() == "fig410" else experiment_approaches()

    def _seed(self) -> int | None:
        return self.seed_spin.value() if self.seed_check.isChecked() else None

    def _show_seed(self, seed: int | None) -> None:
        self.seed_check.setChecked(seed is not None)
        if seed is not None:
            self.seed_spin.setValue(seed)

    def _build_page(self) -> None:
        bar, self.title_label, self.run_controls, self.caption = study_page_bar(
            self, self._runner, self.run, self.cancel,
            "Run the study with the parameters in the Run panel.")
        rc = self.run_controls
        self.run_button, self.cancel_button = rc.run_button, rc.cancel_button
        self.progress, self.progress_label = rc.progress, rc.progress_label
        plots = QWidget(self)
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.items: dict[str, list[Any]] = {}
        for i, (key, title, ylab) in enumerate(PACKET_PLOTS):
            pw = make_plot(title, "", ylab, parent=plots, title_size="10pt", min_size=(0, 150))
            pw.setToolTip("Mean over worlds; the shaded band is the 95 % Student-t interval. "
                          "Right-click ▸ Export for PNG, SVG or CSV.")
            self.plots[key] = pw
            self.items[key] = []
            grid.addWidget(pw, i // 2, i % 2)
        self.legend_label = QLabel(self)
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setWordWrap(True)
        self.claims_table = make_claims_table(self)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(plots)
        split.addWidget(self.claims_table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.caption)
        lay.addWidget(self.legend_label)
        lay.addWidget(split, 1)
        self._idle_caption()

    def _idle_caption(self) -> None:
        self.caption.setText(
            "<span style='color:#666'>Choose Fig 4.9, 4.10 or 4.11 in the Run panel and press "
            "<b>Run (F5)</b>. Nodes leave and join with probability p before every step and "
            "before execution (connectivity and the degree cap kept); broken routes are "
            "re-planned and their messages charged. Every approach runs on the same worlds "
            "(paired seeds); the bands are 95 % intervals.</span>")

    # ------------------------------------------------------------------ state
    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def is_running(self) -> bool:
        return self._runner.is_running

    def set_options(self, **values: Any) -> None:
        """Set the run parameters by the names of :meth:`_bindings` (``experiment``,
        ``values``, ``approaches``, ``worlds``, ``seed`` (ticks it), ``dynamics``, ``sizes``,
        ``dynamics_per``, ``connectivity``, ``solver``, ``workers``; None leaves a field as
        it is): tests and the screenshot script."""
        show_bindings(self.fields, {k: v for k, v in values.items() if v is not None})

    def show_parameters(self, params: PacketParameters) -> None:
        """Show every field of ``params`` the Run panel edits (values or approaches None: the
        figure's own; seed None: drawn from the OS; sizes None: the thesis's; workers None:
        every CPU)."""
        show_fields(self.fields, params)

    def _on_experiment_changed(self, *args: object) -> None:
        name = self.experiment_combo.currentData()
        self.values_label.setText({"fig49": "sizes", "fig410": "ε values",
                                   "fig411": "dynamism"}[name])
        self.sizes_spin.setEnabled(name != "fig49")
        self.dynamics_spin.setEnabled(name != "fig411")
        show_bindings(self.fields, {"values": None, "approaches": None})  # the figure's
        self.experiment_combo.setToolTip(TIPS[name])
        if self.summary is None:
            self.title_label.setText(f"<b>{html.escape(PACKET_TITLES[name])}</b>")

    def _refuse(self, text: str, field: str | None = None) -> bool:
        self.controls_message.setText(text)
        self.controls_message.show()
        mark_refused(self.fields, field, text)
        self.message_logged.emit("WARNING", f"packet-routing study not started: {text}")
        return False

    def packet_parameters(self) -> PacketParameters:
        """The :class:`~core.logistics.PacketParameters` of the Run panel, read through
        :meth:`_bindings` (an :class:`InputError` naming the field the core refuses, or
        ``values`` when they are not numbers)."""
        return PacketParameters(**read_bindings(self.fields))

    def run(self) -> bool:
        """Start the study in the worker; False (with an inline reason) if refused."""
        if self.is_running:
            return False
        self.controls_message.hide()
        clear_refused(self.fields)
        try:  # the core's checks, before anything runs (a bad value names its field)
            params = self.packet_parameters()
        except InputError as exc:
            return self._refuse(str(exc), exc.field)
        self._request = params
        self.message_logged.emit("INFO", f"packet-routing study {params.experiment} started "
                                 f"({params.worlds} worlds per point, "
                                 + (f"seed {params.seed})" if params.seed is not None else
                                    "master seed from the OS)"))
        from gui.shell.settings import on_backend

        self._runner.start(on_backend(packet_release), params)
        return True

    def cancel(self) -> None:
        self._runner.cancel()

    def shutdown(self) -> None:
        self._runner.shutdown()

    def _update_running(self, running: bool) -> None:
        self.side_run_button.setEnabled(not running)
        self.side_cancel_button.setEnabled(running)

    # ------------------------------------------------------------------ runner slots
    def _on_runner_succeeded(self, release: PacketRelease) -> None:
        doc = self._document
        params = self._request
        if params is None:
            return
        record = packet_run_record(doc.project, release, params)
        summary, rid = record.summary, record.id
        doc.push(AddRunCommand(doc, record, text=f"Record packet-routing study "
                                                 f"{summary['experiment']} {rid}"), "logistics")
        self.show_summary(summary, run_id=rid)
        self.message_logged.emit(
            "INFO", f"{rid} recorded: packet-routing study {summary['experiment']}, "
                    f"{summary['n']} worlds per point, master seed {summary['master_seed']}; "
                    f"{summary['claims_hold']} of {summary['claims_total']} claims hold")
        self.run_recorded.emit(rid)

    def _on_runner_failed(self, exc: object) -> None:
        text = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        self.controls_message.setText(f"The study failed: {text}")
        self.controls_message.show()
        self.message_logged.emit("ERROR", f"packet-routing study failed: {text}")

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", "packet-routing study cancelled")

    # ------------------------------------------------------------------ display
    def _show_latest_recorded(self) -> None:
        runs = [r for r in self._document.project.runs if r.kind == PACKET_KIND]
        if runs:
            self.show_summary(runs[-1].summary, run_id=runs[-1].id)

    def _on_document_run_removed(self, run_id: str) -> None:
        if self.summary is not None and self.run_id == run_id:
            self.clear()
            self._show_latest_recorded()

    def _on_document_project_replaced(self) -> None:
        self._runner.cancel()  # a study started for the other project is not recorded here
        self.clear()
        self._show_latest_recorded()

    def clear(self) -> None:
        self.summary = None
        self.run_id = ""
        for key, pw in self.plots.items():
            for item in self.items[key]:
                pw.removeItem(item)
            self.items[key] = []
        self.legend_label.setText("")
        self.claims_table.setRowCount(0)
        self._idle_caption()
        name = self.experiment_combo.currentData()
        self.title_label.setText(f"<b>{html.escape(PACKET_TITLES[name])}</b>")

    def _restore_form(self, summary: Mapping[str, Any]) -> None:
        """The Run panel as the shown study was run (Run again repeats it), through the
        bindings: the record's fields (values or approaches missing: the figure's; a seed
        drawn from the OS: unticked), not its processes (this machine's choice). A value
        the form cannot show leaves the later fields as they were."""
        prm = summary.get("params") or {}
        name = str(summary.get("experiment", ""))
        if name not in EXPERIMENTS:
            return
        given = "given" in str(summary.get("seed_source", ""))
        kept = {k: prm.get(k) for k in ("dynamics", "sizes", "dynamics_per", "connectivity",
                                        "solver")}
        try:
            show_bindings(self.fields, {
                "experiment": name, "values": prm.get("values") or None,
                "approaches": summary.get("approaches") or None,
                "seed": summary.get("master_seed") if given else None,
                **{k: v for k, v in {**kept, "worlds": summary.get("n")}.items()
                   if v is not None}})
        except ValueError as exc:
            self.message_logged.emit("WARNING", f"the Run panel shows the study only in "
                                                f"part: {exc}")

    def show_summary(self, summary: Mapping[str, Any], *, run_id: str = "") -> None:
        """Plot a study's summary (:func:`core.logistics.packet_release`'s or a run
        record's) and put its parameters back in the Run panel."""
        self._restore_form(summary)
        self.clear()
        self.summary = dict(summary)
        self.run_id = run_id
        x = str(summary.get("x", ""))
        name = str(summary.get("experiment", ""))
        for key, _title, _y in PACKET_PLOTS:
            pw = self.plots[key]
            pw.setLabel("bottom", X_LABELS.get(x, x))
            for s in packet_series(dict(summary), key):
                self._draw_series(key, s)
            if key == "success":
                pw.setYRange(0.0, 1.05, padding=0)
            else:
                pw.enableAutoRange(axis="y")
            pw.enableAutoRange(axis="x")
        self._fill_legend(summary)
        fill_claims(self.claims_table, summary)
        n_hold, n_total = summary.get("claims_hold", 0), summary.get("claims_total", 0)
        elapsed = _num(summary.get("elapsed_s"))
        prm = summary.get("params", {}) or {}
        self.caption.setText(
            f"{summary.get('n')} worlds per approach and point, paired; master seed "
            f"{summary.get('master_seed')} ({html.escape(str(summary.get('seed_source', '')))})"
            f"; churn {html.escape(str(prm.get('dynamics_per', '')))}-wise, "
            f"{html.escape(str(prm.get('connectivity', '')))} kept connected, solver "
            f"{html.escape(str(prm.get('solver', '')))}"
            + (f", {prm.get('sizes')} access points" if prm.get("sizes") else "")
            + (f"; {elapsed:.1f} s" if math.isfinite(elapsed) else "")
            + (f"; recorded as {html.escape(run_id)}" if run_id else "")
            + f". <b>{n_hold} of {n_total}</b> claims hold"
            + (f", <b style='color:{ERROR_COLOUR}'>{n_total - n_hold} not</b>"
               if n_total - n_hold else "")
            + " (paired tests, Holm-adjusted). A seeded experiment on generated worlds: "
              "nothing is released, nothing enters the ledger."
            + "<br>" + self._privacy_line(summary))
        self.title_label.setText(f"<b>{html.escape(PACKET_TITLES.get(name, name))}</b>")

    def _privacy_line(self, summary: Mapping[str, Any]) -> str:
        """Per approach what a real run under the study's dynamism proves (reasons in the
        caption's tooltip: they are long)."""
        priv = summary.get("privacy") or {}
        parts, tips = [], []
        for a, g in priv.items():
            label = APPROACH_STYLE.get(a, (a,))[0]
            eps = g.get("epsilon")
            if eps is None:
                parts.append(f"{html.escape(label)}: <span style='color:{ERROR_COLOUR}'>no "
                             "proven bound</span>")
                tips.append(f"{label}: {g.get('epsilon_reason', '')}")
            else:
                parts.append(f"{html.escape(label)}: ε ≤ {_num(eps):g} per agent")
        self.caption.setToolTip("\n".join(tips))
        if not parts:
            return ""
        return (f"<b>Privacy</b> of a real run under dynamism "
                f"{_num(summary.get('privacy_dynamics')):g} — " + "; ".join(parts)
                + " <span style='color:#666'>(hover for the reasons)</span>")

    def _draw_series(self, key: str, s: Mapping[str, Any]) -> None:
        pw = self.plots[key]
        label, colour, symbol, _dashed = APPROACH_STYLE.get(s["arm"], (s["arm"], "#444444",
                                                                        "o", False))
        logistics = s["scenario"] == "logistics"
        x = np.asarray(s["x"], dtype=float)
        y = np.asarray(s["mean"], dtype=float)
        lo = np.asarray(s["lo"], dtype=float)
        hi = np.asarray(s["hi"], dtype=float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        limits = PACKET_RANGES[key]  # the 95 % interval, clipped to what the metric can be
        if ok.sum() >= 2:
            band = add_band(pw, x[ok], lo[ok], hi[ok], colour, limits,
                            fill_alpha=30 if logistics else 50, edge_alpha=0)
            self.items[key] += [*band.curves, band]
        elif ok.any():  # one point: an error bar instead of a band
            self.items[key].append(add_error_bars(pw, x[ok], y[ok], lo[ok], hi[ok], colour,
                                                  limits))
        pen = pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine if logistics
                       else Qt.PenStyle.SolidLine)
        name = label + (" (logistics, static)" if logistics else
                        " (packet routing)" if s["scenario"] == "packet" else "")
        curve = pw.plot(x, y, pen=pen, symbol=symbol, symbolSize=6,
                        symbolBrush=pg.mkBrush("white" if logistics else colour),
                        symbolPen=pg.mkPen(colour), name=name, connect="finite")
        self.items[key].append(curve)

    def _fill_legend(self, summary: Mapping[str, Any]) -> None:
        parts = []
        for a in summary.get("approaches", []) or []:
            label, colour = APPROACH_STYLE.get(a, (a, "#444444"))[:2]
            parts.append(f"<span style='color:{colour}'>■</span>&nbsp;{html.escape(label)}")
        two = str(summary.get("experiment")) != "fig411"
        self.legend_label.setText(
            " &nbsp;".join(parts) + " &nbsp; <span style='color:#666'>"
            + ("solid: packet routing (dynamism "
               f"{_num((summary.get('params') or {}).get('dynamics')):g}); dashed, hollow "
               "marks: logistics (static network); " if two else "")
            + "bands: 95 % Student-t intervals over worlds</span>")


def preview(exec_: bool = True) -> QWidget:
    """The page on the built-in example project (press Run to fill it)."""
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        holder = QSplitter(Qt.Orientation.Horizontal)
        page = PacketExperimentsPage(example_document(), holder)
        holder.addWidget(page)
        holder.addWidget(page.controls)
        holder.setSizes([1000, 320])
        return holder

    return run_preview(build, exec_=exec_, title="Packet routing", size=(1350, 860))


if __name__ == "__main__":
    preview()
