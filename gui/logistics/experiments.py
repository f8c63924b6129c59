"""The logistics benchmarks (spec §8.3, thesis Fig 4.7–4.11) with plots and trend checks.

:class:`ExperimentsPage` runs :func:`core.logistics.bench_release` (B1–B5) of the Run panel's
:class:`~core.logistics.BenchParameters` (``plan-bench`` builds the same and calls the same) in
its own :class:`~gui.shell.workers.TaskRunner` (progress and cancel; ``min(2, CPUs)`` processes
by default) and shows, for every approach, the mean route length, stretch, messages per plan and
success rate against the swept parameter (N for B2, ε for B1, …) with 95 % t-interval error
bars; below, the trend checks of the core (reproduced / not reproduced / not testable, with what
was observed and whether spec §8.3 calls the expectation robust) and the thesis's reported gaps
beside the measured ones. Nothing is cherry-picked: every check the core makes is listed,
failures included.

The plots and tables are drawn from the run's *summary* (rows of means and CIs, checks),
the same dict that is stored in the project's :class:`~core.project.model.RunRecord` (kind
``plan-bench``, made by :func:`core.project.bench_run_record` as ``plan-bench --record``
makes it), so a recorded benchmark redraws identically after reloading.

The run parameters live in the right dock's :attr:`ExperimentsPage.controls`, each widget
bound to its field of :class:`~core.logistics.BenchParameters` in one table
(:attr:`ExperimentsPage.fields`, :mod:`gui.shell.bindings`) that reads the parameters, shows
them (:meth:`ExperimentsPage.show_parameters`) and gives each widget its help; the checks are
the core's, and a refused field is named in the Run panel and its widget turned red. The
checks and gaps tables are :mod:`gui.logistics.bench_parts`.
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
    QComboBox,
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
from core.logistics import (
    APPROACH_LABELS,
    BENCH_METRICS,
    BENCH_PARAM_LABELS,
    BENCH_RANGES,
    BENCHMARKS,
    BenchParameters,
    BenchResult,
    bench_release,
    benchmark_config,
)
from core.project import bench_run_record
from gui.logistics.bench_parts import (
    THESIS_GAPS,
    fill_checks,
    fill_gaps,
    make_bench_tables,
    verdict,
)
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
from gui.shell.plots import add_error_bars, make_plot
from gui.shell.style import ERROR_COLOUR
from gui.shell.workers import TaskRunner

__all__ = ["ExperimentsPage", "APPROACH_STYLE", "PARAM_LABELS", "THESIS_GAPS", "METRIC_PLOTS",
           "verdict", "DEFAULT_WORLDS", "CLI_WORLDS", "preview"]

DEFAULT_WORLDS = 20
CLI_WORLDS = 50

PARAM_LABELS = BENCH_PARAM_LABELS
#: plot key -> (title, y label)
METRIC_PLOTS = BENCH_METRICS
BENCH_TIPS = {
    "B1": "ε sweep at N = 10 (Fig 4.8/4.10): success should rise and route length and "
          "messages fall as ε grows — spec §8.3 warns the effect may be small (not robust).",
    "B2": "Map size sweep, N = 10…50 (Fig 4.7/4.9), four approaches: length and messages grow "
          "and success falls with N (robust); the gaps between approaches are not robust.",
    "B3": "Packet-routing dynamism (Fig 4.11): Best-first and Greedy lose success and spend more "
          "messages; DP-based and No-privacy stay roughly flat.",
    "B4": "Communication budget C as a multiple of Σ lc at N = 30: success saturates near "
          "C = Σ lc (§4.6.4).",
    "B5": "Route memo over five rounds (Remark 4): messages per plan should not increase.",
}


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


class ExperimentsPage(QWidget):
    """Benchmarks B1–B5: run, plot, check (see the module docstring)."""

    message_logged = Signal(str, str)
    run_recorded = Signal(str)

    def __init__(self, document: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self._request: BenchParameters | None = None
        self.summary: dict[str, Any] | None = None
        self.controls = self._build_controls()
        self._build_page()
        self._on_bench_changed()
        connect_study_runner(self, document)

    # ------------------------------------------------------------------ construction
    def _build_controls(self) -> QWidget:
        w = QWidget()
        w.setObjectName("logistics_experiment_controls")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(4, 4, 4, 4)
        box = QGroupBox("Benchmark", w)
        form = QFormLayout(box)
        self.bench_combo = QComboBox(box)
        for name in BENCHMARKS:
            cfg = benchmark_config(name)
            self.bench_combo.addItem(f"{name} — {cfg.title}", name)
            self.bench_combo.setItemData(self.bench_combo.count() - 1, BENCH_TIPS[name],
                                         Qt.ItemDataRole.ToolTipRole)
        self.bench_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.bench_combo.setMinimumContentsLength(10)
        self.bench_combo.setCurrentIndex(BENCHMARKS.index("B2"))
        self.bench_combo.currentIndexChanged.connect(self._on_bench_changed)
        form.addRow("Run", self.bench_combo)
        self.values_edit = QLineEdit(box)
        self.values_label = QLabel("values", box)
        form.addRow(self.values_label, self.values_edit)
        self.worlds_spin = QSpinBox(box)
        self.worlds_spin.setRange(1, 500)
        self.worlds_spin.setValue(DEFAULT_WORLDS)
        form.addRow("worlds/point", self.worlds_spin)
        note = QLabel(f"<small>The command line uses {CLI_WORLDS} worlds per point.</small>",
                      box)
        note.setTextFormat(Qt.TextFormat.RichText)
        note.setWordWrap(True)
        form.addRow("", note)
        self.seed_spin = QSpinBox(box)
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(7)
        form.addRow("seed", self.seed_spin)
        self.workers_spin = QSpinBox(box)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(min(2, os.cpu_count() or 1))
        form.addRow("processes", self.workers_spin)
        lay.addWidget(box)
        abox, self.approach_checks = approach_box(w, APPROACH_LABELS)
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
        """The fields of :class:`BenchParameters` the Run panel edits: the one place a widget
        meets its field and its help (the domain is not one: this page runs logistics
        worlds; the benchmark's help follows the benchmark chosen)."""
        return (
            combo_binding("benchmark", self.bench_combo),
            values_binding(self.values_edit, lambda: self._config().values,
                           "The swept values, comma separated (default: the spec's).",
                           swept=lambda: self._config().parameter != "round"),
            approaches_binding(self.approach_checks, lambda: self._config().approaches),
            Binding("worlds", self.worlds_spin.value, self.worlds_spin.setValue,
                    self.worlds_spin,
                    f"Generated worlds per point (each with one round of packages). The spec "
                    f"and the command line (plan-bench) use {CLI_WORLDS}; {DEFAULT_WORLDS} "
                    "keeps the GUI quick, with wider confidence intervals."),
            Binding("seed", self.seed_spin.value, self._show_seed, self.seed_spin,
                    "Experiment seed: worlds, packages and noise are reproducible from it (a "
                    "seeded experiment; nothing is released)."),
            Binding("workers", self.workers_spin.value,
                    lambda n: self.workers_spin.setValue(
                        self.workers_spin.maximum() if n is None else n),
                    self.workers_spin, "Worker processes (1 runs in this app's worker thread)."))

    def _config(self) -> Any:
        return benchmark_config(self.bench_combo.currentData())

    def _show_seed(self, seed: int | None) -> None:
        if seed is None:
            raise ValueError("seed cannot be None: this page runs seeded benchmarks only")
        self.seed_spin.setValue(seed)

    def _build_page(self) -> None:
        bar, self.title_label, self.run_controls, self.caption = study_page_bar(
            self, self._runner, self.run, self.cancel,
            "Run the benchmark with the parameters in the Run panel.")
        rc = self.run_controls
        self.run_button, self.cancel_button = rc.run_button, rc.cancel_button
        self.progress, self.progress_label = rc.progress, rc.progress_label

        plots = QWidget(self)
        grid = QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.curves: dict[str, dict[str, pg.PlotDataItem]] = {}
        self.error_bars: dict[str, dict[str, pg.ErrorBarItem]] = {}
        for i, (key, title, ylab) in enumerate(METRIC_PLOTS):
            pw = make_plot(title, "", ylab, parent=plots, title_size="10pt", min_size=(0, 150))
            pw.setToolTip("Mean over worlds with 95 % t-interval error bars. Right-click ▸ "
                          "Export for PNG, SVG or CSV.")
            self.plots[key] = pw
            self.curves[key] = {}
            self.error_bars[key] = {}
            grid.addWidget(pw, i // 2, i % 2)
        self.legend_label = QLabel(self)
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setWordWrap(True)  # one line was wider than a 1366-px window's tab
        self.legend_label.setToolTip("Every plot shows the same approaches (right-click a "
                                     "plot ▸ Export for PNG, SVG or CSV).")

        self.checks_table, self.gaps_table, self.tables = make_bench_tables(self)

        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(plots)
        split.addWidget(self.tables)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.caption)
        lay.addWidget(self.legend_label)
        lay.addWidget(split, 1)
        self.caption.setText("<span style='color:#666'>Choose a benchmark in the Run panel and "
                             "press <b>Run (F5)</b>. Each point runs every approach on the "
                             "same generated worlds (common random numbers); the curves show "
                             "means with 95 % confidence intervals, and the tables say which "
                             "of the thesis's trends this reproduces and which it does "
                             "not.</span>")

    # ------------------------------------------------------------------ state
    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def is_running(self) -> bool:
        return self._runner.is_running

    def set_options(self, **values: Any) -> None:
        """Set the run parameters by the names of :meth:`_bindings` (``benchmark``, ``values``,
        ``approaches``, ``worlds``, ``seed``, ``workers``; None leaves a field as it is; a
        new benchmark first brings its own values and approaches): tests and the screenshot
        script."""
        show_bindings(self.fields, {k: v for k, v in values.items() if v is not None})

    def show_parameters(self, params: BenchParameters) -> None:
        """Show every field of ``params`` the Run panel edits (values or approaches None: the
        benchmark's own; workers None: every CPU)."""
        show_fields(self.fields, params)

    def _on_bench_changed(self, *args: object) -> None:
        name = self.bench_combo.currentData()
        cfg = self._config()
        self.values_label.setText(PARAM_LABELS.get(cfg.parameter, cfg.parameter))
        self.values_edit.setEnabled(cfg.parameter != "round")
        show_bindings(self.fields, {"values": None, "approaches": None})  # the benchmark's
        self.bench_combo.setToolTip(BENCH_TIPS[name])
        self.title_label.setText(f"<b>{html.escape(name)}</b> — {html.escape(cfg.title)}"
                                 + (f" (thesis Fig {cfg.figure})" if cfg.figure else ""))

    def _refuse(self, text: str, field: str | None = None) -> bool:
        self.controls_message.setText(text)
        self.controls_message.show()
        mark_refused(self.fields, field, text)
        self.message_logged.emit("WARNING", f"logistics benchmark not started: {text}")
        return False

    def bench_parameters(self) -> BenchParameters:
        """The :class:`~core.logistics.BenchParameters` of the Run panel, read through
        :meth:`_bindings` (an :class:`InputError` naming the field the core refuses, or
        ``values`` when they are not numbers)."""
        return BenchParameters(**read_bindings(self.fields))

    def run(self) -> bool:
        """Start the benchmark in the worker; False (with an inline reason) if refused."""
        if self.is_running:
            return False
        self.controls_message.hide()
        clear_refused(self.fields)
        try:
            params = self.bench_parameters()
        except InputError as exc:  # the core's message, on the widget of its field
            return self._refuse(str(exc), exc.field)
        self._request = params
        self.message_logged.emit("INFO", f"logistics benchmark {params.benchmark} started "
                                 f"({params.worlds} worlds per point, seed {params.seed})")
        from gui.shell.settings import on_backend

        self._runner.start(on_backend(bench_release), params)
        return True

    def cancel(self) -> None:
        self._runner.cancel()

    def shutdown(self) -> None:
        self._runner.shutdown()

    def _update_running(self, running: bool) -> None:
        # the Run panel's copies of the buttons (RunControls keeps the page's)
        self.side_run_button.setEnabled(not running)
        self.side_cancel_button.setEnabled(running)

    # ------------------------------------------------------------------ runner slots
    def _on_runner_succeeded(self, res: BenchResult) -> None:
        doc = self._document
        params = self._request
        if params is None:
            return
        record = bench_run_record(doc.project, res, params)
        rid = record.id
        doc.push(AddRunCommand(doc, record, text=f"Record benchmark {res.config.name} {rid}"),
                 "logistics")
        self.show_summary(record.summary, run_id=rid)
        n_fail = sum(1 for c in res.checks if not c["holds"])
        self.message_logged.emit("INFO", f"{rid} recorded: logistics benchmark "
                                 f"{res.config.name}, {res.worlds} worlds per point, seed "
                                 f"{res.seed}, {res.elapsed_s:.1f} s; {len(res.checks) - n_fail}"
                                 f" of {len(res.checks)} checks hold")
        self.run_recorded.emit(rid)

    def _on_runner_failed(self, exc: object) -> None:
        text = f"{type(exc).__name__}: {exc}"
        self.controls_message.setText(f"The benchmark failed: {text}")
        self.controls_message.show()
        self.message_logged.emit("ERROR", f"logistics benchmark failed: {text}")

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", "logistics benchmark cancelled")

    # ------------------------------------------------------------------ display
    def _show_latest_recorded(self) -> None:
        runs = [r for r in self._document.project.runs if r.kind == "plan-bench"]
        if runs:
            self.show_summary(runs[-1].summary, run_id=runs[-1].id)

    def _on_document_run_removed(self, run_id: str) -> None:
        if self.summary is not None and self.summary.get("_run_id") == run_id:
            self.clear()
            self._show_latest_recorded()

    def _on_document_project_replaced(self) -> None:
        self.clear()
        self._show_latest_recorded()

    def clear(self) -> None:
        self.summary = None
        for key in self.plots:
            self._clear_plot(key)
        self.legend_label.setText("")
        self.checks_table.setRowCount(0)
        self.gaps_table.setRowCount(0)

    def _clear_plot(self, key: str) -> None:
        pw = self.plots[key]
        for item in list(self.curves[key].values()) + list(self.error_bars[key].values()):
            pw.removeItem(item)
        self.curves[key] = {}
        self.error_bars[key] = {}

    def show_summary(self, summary: Mapping[str, Any], *, run_id: str = "") -> None:
        """Plot a benchmark summary (:func:`core.logistics.records.bench_summary` or a run
        record's summary)."""
        self.clear()
        self.summary = dict(summary)
        self.summary["_run_id"] = run_id
        cfg = summary.get("config", {})
        param = cfg.get("parameter", "")
        values = [float(v) for v in cfg.get("values", [])]
        approaches = list(cfg.get("approaches", []))
        rows = summary.get("rows", [])
        xlab = PARAM_LABELS.get(param, param)
        span = (max(values) - min(values)) if len(values) > 1 else 1.0
        for key, _title, _y in METRIC_PLOTS:
            pw = self.plots[key]
            pw.setLabel("bottom", xlab)
            for j, a in enumerate(approaches):
                label, colour, symbol, dashed = APPROACH_STYLE.get(
                    a, (a, "#444444", "o", False))
                pts = [r for r in rows if r.get("approach") == a]
                pts.sort(key=lambda r: float(r.get(param, 0.0)))
                x = np.array([float(r.get(param, math.nan)) for r in pts])
                y = np.array([_num(r.get(key)) for r in pts])
                lo = np.array([_num(r.get(f"{key}_ci_low")) for r in pts])
                hi = np.array([_num(r.get(f"{key}_ci_high")) for r in pts])
                dx = 0.012 * span * (j - (len(approaches) - 1) / 2)
                xd = x + dx
                pen = pg.mkPen(colour, width=2,
                               style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
                curve = pw.plot(xd, y, pen=pen, symbol=symbol, symbolSize=7,
                                symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour),
                                name=label,
                                connect="finite")
                self.curves[key][a] = curve
                ok = np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
                if ok.any():  # the 95 % CI, clipped to what the metric can be
                    self.error_bars[key][a] = add_error_bars(
                        pw, xd[ok], y[ok], lo[ok], hi[ok], colour, BENCH_RANGES[key],
                        beam=0.006 * span * 4)
            if key == "success":
                pw.setYRange(0.0, 1.02, padding=0)
            else:
                pw.enableAutoRange(axis="y")
            pw.enableAutoRange(axis="x")
        marks = {"o": "●", "t": "▼", "s": "■", "d": "◆", "t1": "▲"}
        self.legend_label.setText("&nbsp;&nbsp;&nbsp;".join(
            f"<span style='color:{APPROACH_STYLE.get(a, (a, '#444444', 'o', False))[1]}'>"
            f"{marks.get(APPROACH_STYLE.get(a, (a, '', 'o', False))[2], '●')}"
            f"{' ╌' if APPROACH_STYLE.get(a, (a, '', 'o', False))[3] else ' —'}</span> "
            f"{html.escape(APPROACH_STYLE.get(a, (a,))[0])}" for a in approaches)
            + "&nbsp;&nbsp;&nbsp;<span style='color:#666'>(error bars: 95 % CI over "
              "worlds; points dodged sideways to stay readable)</span>")
        fill_checks(self.checks_table, summary, len(values))
        fill_gaps(self.gaps_table, summary, param)
        n_worlds = summary.get("worlds")
        elapsed = float(summary.get("elapsed_s") or 0.0)
        name = summary.get("benchmark", "")
        fails = sum(1 for c in summary.get("checks", []) if verdict(c, len(values)) ==
                    "not reproduced")
        testable = sum(1 for c in summary.get("checks", []) if verdict(c, len(values)) !=
                       "not testable")
        self.caption.setText(
            f"{n_worlds} worlds per point"
            + (f" (the spec and the command line use {CLI_WORLDS})"
               if n_worlds != CLI_WORLDS else "")
            + f", seed {summary.get('seed')}, {len(approaches)} approaches, means with 95 % "
              f"t-intervals; {elapsed:.1f} s"
            + (f"; recorded as {html.escape(run_id)}" if run_id else "")
            + f". <b>{testable - fails} of {testable}</b> testable checks reproduced"
            + (f", <b style='color:{ERROR_COLOUR}'>{fails} not</b>" if fails else "")
            + ". Spec §8.3 calls only the within-approach trends (and No-privacy ≥ DP on route "
              "length) robust; the gaps between approaches depend on choices the thesis does "
              "not specify. Route lengths are compared on paired tasks (delivered by both); "
              "success rates separately."
            + "<br>" + privacy_text(summary))
        self.title_label.setText(
            f"<b>{html.escape(str(name))}</b> — {html.escape(str(summary.get('title', '')))}")


def privacy_text(summary: Mapping[str, Any]) -> str:
    """One line per approach: the ε it proves per agent, or "no proven bound" (HTML)."""
    parts = []
    for a, g in (summary.get("privacy") or {}).items():
        label = html.escape(APPROACH_STYLE.get(a, (a,))[0])
        eps = g.get("epsilon")
        if eps is None:
            why = html.escape(str(g.get("epsilon_reason", "")))
            parts.append(f"{label}: <span style='color:{ERROR_COLOUR}'>no proven bound</span>"
                         f" <span style='color:#666'>({why})</span>")
        elif isinstance(eps, list):
            parts.append(f"{label}: ε ≤ the swept ε per agent (proven)")
        elif float(eps) == 0.0:
            parts.append(f"{label}: nothing private released (ε = 0)")
        else:
            parts.append(f"{label}: ε ≤ {float(eps):g} per agent (proven)")
    return ("<b>Privacy</b> — " + "; ".join(parts)) if parts else ""


def preview(exec_: bool = True) -> QWidget:
    """The Experiments page on the built-in example project (press Run to fill it)."""
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        holder = QSplitter(Qt.Orientation.Horizontal)
        page = ExperimentsPage(example_document(), holder)
        holder.addWidget(page)
        holder.addWidget(page.controls)
        holder.setSizes([1000, 320])
        return holder

    return run_preview(build, exec_=exec_, title="Logistics experiments", size=(1350, 860))


if __name__ == "__main__":
    preview()
