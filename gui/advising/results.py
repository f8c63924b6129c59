"""Results of the DP-advising workspace: the plots and tables of a run.

The summaries a run record keeps (and that this view draws, so a recorded run and a fresh
one look alike) are built in :mod:`core.advising.records`.

* :class:`AdvisingResultsView`: the bottom half of the workspace, one tab each for the
  learning curves (convergence ratio per epoch with 95 % CI bands, and the gain over no
  advice — the thesis's Figs 3.4–3.9), the ε sweep (AUC₂₀₀ and CR at a fixed epoch against
  ε, log-x), the advice timeline (who advised whom, when), the budgets, the privacy
  ledger (per-teacher ε under basic / advanced / RDP composition, each accountant named),
  the thesis claims (reproduced / partly / not reproduced) and Tables 3.1–3.4.

Every plot has a legend, labelled axes and pyqtgraph's right-click menu (Export… writes
PNG, SVG or CSV).

Over 600 lines: one view with a tab per figure or table of the thesis (curves, ε sweep,
timeline, budgets, ledger, claims, Tables 3.1–3.4); the summaries it draws are built in
:mod:`core.advising.records`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.advising import (
    ACCOUNTANTS,
    CASE_NAMES,
    CONVERGENCE_RANGE,
    CURVE_RANGES,
    UNBOUNDED_SPENT,
    AdvisingResult,
    ExperimentResult,
    WorkedExample,
    ci95,
)
from core.common import agent_colour, arm_colour
from gui.shell.plots import add_band, add_legend, make_plot
from gui.shell.style import OKABE_ITO, fmt_num
from gui.shell.widgets import table_item

__all__ = ["AdvisingResultsView",
           "UNBOUNDED",
           "arm_colour", "agent_colour", "VERDICT_COLOURS"]

#: Points kept per curve in a run record (the view draws every epoch of fresh results).
VERDICT_COLOURS = {"reproduced": "#D9F0E3", "partly": "#FFF3CC", "not reproduced": "#FBE0D6",
                   "not run": "#EEEEEE"}

_N_AGENT_COLOURS = 8  # core.common.palette.agent_colour repeats after 8
_AGENT_SYMBOLS = ("o", "s", "t", "d", "star", "t1", "p", "h")

EMPTY_CURVES = ("No results yet.\n\nPress Run (F5) to run the set-up above: a single run shows "
                "its convergence ratio per epoch; an experiment (Experiment 1, 2 or 3, or the "
                "strategies on this set-up) shows the mean over seeds with 95 % confidence "
                "bands, and the gain over no advice (the thesis's Figs 3.4–3.9).")
EMPTY_SWEEP = ("The ε sweep appears here after Experiment 3 or an “ε sweep on this set-up”: "
               "the early-learning utility (AUC₂₀₀, the mean convergence ratio over epochs "
               "1–200) and the convergence ratio at a fixed epoch, against ε on a log axis, "
               "next to no advice. Smaller ε = more noise = more private.")
EMPTY_TIMELINE = ("Who advised whom, and when, appears here after a run: one dot per advice "
                  "(epoch × student, coloured by teacher), with the full advice log beside it. "
                  "An experiment shows the cumulative advice count per strategy instead.")
EMPTY_BUDGETS = ("Each agent starts with b_ask asking and b_give giving budget (Table 3.5: 30 "
                 "each); every advice costs one of each. Their decline over the epochs, and "
                 "the privacy spent by each teacher, appear here after a run.")
EMPTY_LEDGER = ("The privacy ledger appears here after a run: per teacher, how many noisy "
                "releases of its Q-values it made, how many raw releases (no noise: then its ε "
                "is unbounded, and the reason is shown), and the ε they cost under basic, "
                "advanced and Rényi-DP composition (each accountant named).")
#: What a table shows for an ε without a finite bound (never 0, never blank).
UNBOUNDED = "unbounded"
_UNBOUNDED_BG = "#FBE0D6"
EMPTY_CLAIMS = ("Run Experiments 1, 2 and 3 to check the thesis's claims (§3.6): each claim "
                "is quoted with the thesis's number, ours, and whether our runs reproduce it.")
DETAILS_NOT_KEPT = ("This is a recorded run: its record keeps the curves and totals, not the "
                    "per-epoch details. Re-run it with the recorded seed to see them.")


# ---------------------------------------------------------------------------- look
def _agent_pen(i: int) -> Any:
    style = Qt.PenStyle.SolidLine if i < _N_AGENT_COLOURS else Qt.PenStyle.DashLine
    return pg.mkPen(agent_colour(i), width=1.6, style=style)


def _make_plot(title: str, bottom: str, left: str, *, log_x: bool = False) -> pg.PlotWidget:
    return make_plot(title, bottom, left, log_x=log_x, tick_size=8.0, min_size=(220, 170),
                     right_margin=14)  # room for the last x tick label


def _legend(plot: pg.PlotWidget, cols: int = 1, *, bottom: bool = False) -> pg.LegendItem:
    return add_legend(plot, "bottom-right" if bottom else "top-right", columns=cols,
                      text_size="7.5pt", spacing=-8, alpha=215)


def _clear_plot(plot: pg.PlotWidget) -> None:
    item = plot.getPlotItem()
    item.clear()
    if item.legend is not None:
        item.legend.clear()


#: The convergence ratio as the plots show it, in percent (at most 100 %).
CR_PERCENT = CONVERGENCE_RANGE.scaled(100.0)


def _note_label(parent: QWidget, *, colour: str = "#222", padding: str = "3px 4px",
                selectable: bool = False) -> QLabel:
    """A word-wrapped rich-text note above a results page."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(f"QLabel {{ color: {colour}; padding: {padding}; }}")
    return label


def _table(columns: Sequence[str], parent: QWidget | None = None) -> QTableWidget:
    t = QTableWidget(0, len(columns), parent)
    t.setHorizontalHeaderLabels(list(columns))
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.verticalHeader().setVisible(False)
    t.verticalHeader().setDefaultSectionSize(20)
    t.setAlternatingRowColors(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def _set_columns(table: QTableWidget, columns: Sequence[str]) -> None:
    table.clearContents()
    table.setRowCount(0)
    table.setColumnCount(len(columns))
    table.setHorizontalHeaderLabels(list(columns))


def _fill(table: QTableWidget, rows: Sequence[Sequence[Any]],
          tips: Sequence[str] | None = None) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            text = v if isinstance(v, str) else ("–" if v is None else (
                str(v) if isinstance(v, (int, np.integer)) else _short(float(v))))
            item = QTableWidgetItem(text)
            if not isinstance(v, str):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)
    if tips:
        for c, tip in enumerate(tips):
            h = table.horizontalHeaderItem(c)
            if h is not None and tip:
                h.setToolTip(tip)


def _eps_cell(v: Any, reason: str | None = None) -> Any:
    """An ε for a table: the number, or "unbounded" for ∞ / a null with a reason."""
    if v is None:
        return UNBOUNDED if reason else "–"
    v = float(v)
    return UNBOUNDED if math.isinf(v) else v


def _short(x: float) -> str:
    """Compact table numbers: 267, 158.8, 0.7604, 1e-05; ∞ (an ε without a bound) is
    "unbounded"."""
    if math.isinf(x):
        return UNBOUNDED
    if not math.isfinite(x):
        return "–"
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.4g}"
    return fmt_num(x, 3)


def _pct(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else (
        f"{100 * float(x):.2f} %")


def _pm(m: Any, h: Any, scale: float = 100.0, unit: str = " %") -> str:
    if m is None:
        return "–"
    return f"{scale * float(m):.2f} ± {scale * float(h or 0.0):.2f}{unit}"


class _Page(QStackedWidget):
    """A tab page: an empty-state text that teaches, or the content."""

    def __init__(self, empty_text: str, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty_label = QLabel(empty_text, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("QLabel { color: #555; font-size: 10.5pt; padding: 18px; }")
        self.addWidget(self.empty_label)
        self.content = content
        self.addWidget(content)

    def show_empty(self, text: str | None = None) -> None:
        if text is not None:
            self.empty_label.setText(text)
        self.setCurrentWidget(self.empty_label)

    def show_content(self) -> None:
        self.setCurrentWidget(self.content)

    @property
    def is_empty(self) -> bool:
        return self.currentWidget() is self.empty_label


# ---------------------------------------------------------------------------- the view
LEDGER_COLUMNS = ("teacher", "noisy\nreleases", "raw releases\n(no DP)", "true ε\nper release",
                  "thesis's ε\n(not a bound)", "ε basic\n(δ = 0)", "ε advanced\n(δ)",
                  "ε RDP\n(δ)", "RDP\norder", "tightest")
LEDGER_TIPS = ("The agent as a teacher: its Q-values are what is protected.",
               "Laplace releases of this agent's Q(s,·) to students (every candidate "
               "evaluation releases one noisy vector).",
               "Releases without noise: raw Q-values (identical action sets in the thesis "
               "variant, traditional advising), advice drawn from the teacher's raw policy "
               "(thesis, traditional) and raw visit counts (direction guard). No finite ε "
               "covers them: the totals are unbounded.",
               "ε that one release really satisfies: ε·S_strict/S_noise.",
               "ε per release as the thesis states it (its S = 1), not a bound.",
               ACCOUNTANTS["basic"], ACCOUNTANTS["advanced"], ACCOUNTANTS["rdp"],
               "Rényi order α at which the RDP bound was tightest.",
               "The accountant giving the smallest total.")
EXP_LEDGER_COLUMNS = ("arm", "strategy", "nominal ε", "true ε\nper release",
                      "noisy releases\nper run", "raw releases\nper run (no DP)",
                      "worst teacher\nreleases", "worst teacher\nε basic",
                      "worst teacher\nε advanced", "worst teacher\nε RDP", "mean teacher\nε basic")
SUMMARY_COLUMNS = ("arm", "strategy", "ε", "layout", "seeds", "AUC₂₀₀ (95 % CI)",
                   "CR final (95 % CI)", "epochs to 90 %", "advice per run", "budgets closed\n"
                   "(median epoch)")
EXP_BUDGET_COLUMNS = ("arm", "advice\nper run", "b_ask left\n(final, mean)",
                      "b_give left\n(final, mean)", "budgets closed\n(median epoch)",
                      "mean ε spent\nper teacher (basic)")
CLAIM_COLUMNS = ("claim (thesis quote)", "source", "thesis", "ours", "verdict")
EVENT_COLUMNS = ("epoch", "student", "teacher", "task", "case", "d_E²", "server", "reward")
BUDGET_COLUMNS = ("agent", "advice\nreceived", "advice\ngiven", "b_ask left", "b_give left",
                  "b_ask out at\nepoch", "b_give out at\nepoch", "ε spent\n(basic)")


class AdvisingResultsView(QWidget):
    """The results half of the advising workspace (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = _note_label(self, padding="1px 4px", selectable=True)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.curve_items: dict[str, pg.PlotDataItem] = {}
        self.delta_items: dict[str, pg.PlotDataItem] = {}
        self.bands: dict[str, pg.FillBetweenItem] = {}
        self.sweep_items: dict[str, pg.PlotDataItem] = {}
        self.timeline_items: dict[str, pg.PlotDataItem] = {}
        self.budget_items: dict[str, pg.PlotDataItem] = {}
        self.summary: dict[str, Any] | None = None

        # learning curves
        w = QWidget()
        self.curve_plot = _make_plot("Convergence ratio per epoch (mean, 95 % CI band)",
                                     "epoch", "CR (%)")
        self.delta_plot = _make_plot("Gain over no advice (cf. Figs 3.5/3.7/3.9)",
                                     "epoch", "CR gain (pp)")
        self.summary_table = _table(SUMMARY_COLUMNS)
        self.summary_table.setToolTip(
            "Per arm, over seeds: AUC₂₀₀ = mean convergence ratio over epochs 1–200 (early "
            "learning), final CR, first epoch with CR ≥ 90 %, advice events per run and the "
            "median epoch after which no advice is possible (budgets).")
        split = QSplitter(Qt.Orientation.Vertical, w)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.curve_plot)
        plots.addWidget(self.delta_plot)
        plots.setSizes([600, 400])
        split.addWidget(plots)
        split.addWidget(self.summary_table)
        split.setSizes([300, 90])
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.curves_page = _Page(EMPTY_CURVES, w)
        self.tabs.addTab(self.curves_page, "Learning curves")
        self.tabs.setTabToolTip(0, "Convergence ratio: mean over agents and tasks of the "
                                   "expected reward of the agent's policy over the best "
                                   "reward it can get (spec §5.3), per epoch.")

        # ε sweep
        w = QWidget()
        self.sweep_plot = _make_plot("Early learning against ε (mean, 95 % CI band)",
                                     "ε per release (log scale; smaller = more private)",
                                     "convergence ratio (%)", log_x=True)
        self.sweep_note = QLabel(w)
        self.sweep_note.setWordWrap(True)
        self.sweep_note.setStyleSheet("QLabel { color: #333; padding: 2px 4px; }")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.sweep_plot, 1)
        lay.addWidget(self.sweep_note)
        self.sweep_page = _Page(EMPTY_SWEEP, w)
        self.tabs.addTab(self.sweep_page, "ε sweep")

        # advice timeline
        w = QWidget()
        self.timeline_plot = _make_plot("Advice events: student per epoch, coloured by teacher",
                                        "epoch", "student")
        self.events_table = _table(EVENT_COLUMNS)
        self.events_table.setToolTip(
            "Every advice: the teacher chose the student's server from its noisy view of "
            "its own Q-values. d_E² is the squared distance that triggered the advice (it "
            "must exceed d). Case: how the two action sets differ (1 identical, 2 teacher "
            "has one more, 3 one fewer, 4 one swapped).")
        split = QSplitter(Qt.Orientation.Horizontal, w)
        split.addWidget(self.timeline_plot)
        split.addWidget(self.events_table)
        split.setSizes([620, 420])
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.timeline_split = split
        self.timeline_page = _Page(EMPTY_TIMELINE, w)
        self.tabs.addTab(self.timeline_page, "Advice timeline")

        # budgets
        w = QWidget()
        self.ask_plot = _make_plot("Asking budget b_ask left", "epoch", "b_ask remaining")
        self.give_plot = _make_plot("Giving budget b_give left", "epoch", "b_give remaining")
        self.eps_plot = _make_plot("True ε spent per teacher (basic)", "epoch",
                                   "cumulative true ε")
        self.budget_table = _table(BUDGET_COLUMNS)
        split = QSplitter(Qt.Orientation.Vertical, w)
        plots = QSplitter(Qt.Orientation.Horizontal)
        for p in (self.ask_plot, self.give_plot, self.eps_plot):
            plots.addWidget(p)
        split.addWidget(plots)
        split.addWidget(self.budget_table)
        split.setSizes([300, 110])
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.budgets_page = _Page(EMPTY_BUDGETS, w)
        self.tabs.addTab(self.budgets_page, "Budgets")

        # privacy ledger
        w = QWidget()
        self.ledger_statement = _note_label(w, selectable=True)
        self.ledger_table = _table(LEDGER_COLUMNS)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.ledger_statement)
        lay.addWidget(self.ledger_table, 1)
        self.ledger_page = _Page(EMPTY_LEDGER, w)
        self.tabs.addTab(self.ledger_page, "Privacy ledger")

        # thesis claims
        w = QWidget()
        self.claims_note = _note_label(w, colour="#333")
        self.claims_table = _table(CLAIM_COLUMNS)
        self.claims_table.setWordWrap(True)
        hdr = self.claims_table.horizontalHeader()
        hdr.setStretchLastSection(False)
        for c, mode in enumerate((QHeaderView.ResizeMode.Stretch,
                                  QHeaderView.ResizeMode.ResizeToContents,
                                  QHeaderView.ResizeMode.Interactive,
                                  QHeaderView.ResizeMode.Stretch,
                                  QHeaderView.ResizeMode.ResizeToContents)):
            hdr.setSectionResizeMode(c, mode)
        self.claims_table.setColumnWidth(2, 120)
        hdr.sectionResized.connect(self._on_claims_header_section_resized)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.claims_note)
        lay.addWidget(self.claims_table, 1)
        self.claims_page = _Page(EMPTY_CLAIMS, w)
        self.tabs.addTab(self.claims_page, "Thesis claims")

        # Tables 3.1–3.4
        w = QWidget()
        self.worked_label = _note_label(w)
        self.worked_tables: dict[str, QTableWidget] = {}
        row = QHBoxLayout()
        for key in ("3.1", "3.2", "3.3", "3.4"):
            box = QVBoxLayout()
            head = QLabel(f"<b>Table {key}</b>", w)
            t = _table(("action", "entry", "value"))
            t.setMinimumWidth(150)
            self.worked_tables[key] = t
            box.addWidget(head)
            box.addWidget(t)
            row.addLayout(box)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.worked_label)
        lay.addLayout(row, 1)
        self.worked_page = _Page("", w)
        self.tabs.addTab(self.worked_page, "Tables 3.1–3.4")
        self.tabs.setTabToolTip(self.tabs.count() - 1,
                                "The thesis's worked example: converged Q-tables of two agents "
                                "are neighbouring datasets (spec §4).")

        for p in (self.delta_plot, self.sweep_plot, self.timeline_plot, self.ask_plot,
                  self.give_plot):
            _legend(p, cols=1)
        for p in (self.curve_plot, self.eps_plot):  # their curves rise to the top right
            _legend(p, cols=1, bottom=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.tabs, 1)
        self.clear()

    # ------------------------------------------------------------------ public
    def clear(self) -> None:
        """Back to the empty states (no run shown)."""
        self.summary = None
        self.caption.setText("<i>No run shown yet.</i> Results appear here, stamped with "
                             "their parameters and randomness mode.")
        for page in (self.curves_page, self.timeline_page, self.budgets_page,
                     self.ledger_page):
            page.show_empty()
        for p in (self.curve_plot, self.delta_plot, self.timeline_plot, self.ask_plot,
                  self.give_plot, self.eps_plot):
            _clear_plot(p)
        self.curve_items.clear()
        self.delta_items.clear()
        self.bands.clear()
        self.timeline_items.clear()
        self.budget_items.clear()

    def clear_sweep(self) -> None:
        _clear_plot(self.sweep_plot)
        self.sweep_items.clear()
        self.sweep_page.show_empty()

    def show_summary(self, summary: dict[str, Any], stamp: str) -> None:
        """Draw a run's summary: learning curves, summary table, ledger (and sweep)."""
        self.summary = summary
        self.caption.setText(stamp)
        if summary.get("kind") == "advise-experiment":
            self._show_experiment_curves(summary)
            self._show_experiment_ledger(summary)
            if _is_sweep(summary):
                self.show_sweep(summary)
        else:
            self._show_single_curves(summary)
            self._show_single_ledger(summary)
        self.curves_page.show_content()
        self.ledger_page.show_content()

    def show_details_unavailable(self) -> None:
        for page in (self.timeline_page, self.budgets_page):
            page.show_empty(DETAILS_NOT_KEPT)

    # ------------------------------------------------------------------ learning curves
    def _add_curve(self, label: str, x: np.ndarray, y: np.ndarray, colour: str,
                   ci: np.ndarray | None = None) -> None:
        if ci is not None and np.any(ci > 0):
            self.bands[label] = add_band(self.curve_plot, x, y - ci, y + ci, colour,
                                         CR_PERCENT)
        self.curve_items[label] = self.curve_plot.plot(x, y, pen=pg.mkPen(colour, width=2),
                                                       name=label)

    def _show_single_curves(self, s: dict[str, Any]) -> None:
        for p in (self.curve_plot, self.delta_plot):
            _clear_plot(p)
        self.curve_items.clear()
        self.delta_items.clear()
        self.bands.clear()
        x = np.asarray(s["curve_epochs"], float)
        y = 100.0 * np.asarray(s["convergence"], float)
        label = f"{s['strategy']}" + (f" (ε = {s['epsilon']:g})" if s["strategy"] == "dp" else "")
        self._add_curve(label, x, y, arm_colour(s["strategy"]))
        self.curve_plot.getPlotItem().setTitle("Convergence ratio per epoch (one run)",
                                               size="9.5pt")
        self.delta_plot.getPlotItem().setTitle(
            "Gain over no advice: run an experiment to compare", size="9.5pt")
        rows = [[label, s["strategy"], f"{s['epsilon']:g}", s["setup"], "1",
                 _pct(s["auc200"]), _pct(s["cr_final"]),
                 "never" if s["epochs_to_90"] is None else str(s["epochs_to_90"]),
                 str(s["advice_total"]),
                 "–" if s["advising_closed_epoch"] is None or s["strategy"] == "none" else
                 str(s["advising_closed_epoch"])]]
        _fill(self.summary_table, rows)

    def _show_experiment_curves(self, s: dict[str, Any]) -> None:
        for p in (self.curve_plot, self.delta_plot):
            _clear_plot(p)
        self.curve_items.clear()
        self.delta_items.clear()
        self.bands.clear()
        x = np.asarray(s["curve_epochs"], float)
        labels = s["labels"]
        n = len(s["seeds"])
        self.curve_plot.getPlotItem().setTitle(
            f"Convergence ratio per epoch (mean of {n} seeds, 95 % CI band)", size="9.5pt")
        base = None
        for arm in s["arms"]:
            colour = arm_colour(arm["label"], labels)
            y = 100.0 * np.asarray(arm["cr_mean"], float)
            ci = 100.0 * np.asarray(arm["cr_ci"], float)
            self._add_curve(arm["label"], x, y, colour, ci)
            if arm["label"] == "no advice":
                base = y
        if base is not None:
            self.delta_plot.getPlotItem().setTitle(
                "Gain over no advice (cf. Figs 3.5/3.7/3.9)", size="9.5pt")
            self.delta_plot.getPlotItem().addItem(pg.InfiniteLine(
                pos=0.0, angle=0, pen=pg.mkPen(OKABE_ITO["black"], width=1,
                                               style=Qt.PenStyle.DashLine)))
            for arm in s["arms"]:
                if arm["label"] == "no advice":
                    continue
                y = 100.0 * np.asarray(arm["cr_mean"], float) - base
                self.delta_items[arm["label"]] = self.delta_plot.plot(
                    x, y, pen=pg.mkPen(arm_colour(arm["label"], labels), width=1.6),
                    name=arm["label"])
        else:
            self.delta_plot.getPlotItem().setTitle("Gain over no advice: no ‘no advice’ arm",
                                                   size="9.5pt")
        rows = []
        for arm in s["arms"]:
            e90 = arm.get("epochs_to_90")
            reached = arm.get("epochs_to_90_reached", 0)
            rows.append([
                arm["label"], arm["strategy"], f"{arm['epsilon']:g}", arm.get("layout", ""),
                str(arm["n_seeds"]), _pm(arm["auc200"], arm["auc200_ci"]),
                _pm(arm["cr_final"], arm["cr_final_ci"]),
                "never" if e90 is None else f"{e90:.0f} ({reached}/{arm['n_seeds']} seeds)",
                f"{arm['advice']:.1f} ± {arm['advice_ci']:.1f}",
                "–" if arm.get("closed_epoch_median") is None or arm["strategy"] == "none"
                else f"{arm['closed_epoch_median']:.0f}"])
        _fill(self.summary_table, rows)

    # ------------------------------------------------------------------ ε sweep
    def show_sweep(self, s: dict[str, Any]) -> None:
        """AUC₂₀₀ and CR at a fixed epoch against ε (log-x) from an experiment summary."""
        _clear_plot(self.sweep_plot)
        self.sweep_items.clear()
        dp = sorted((a for a in s["arms"] if a["strategy"] == "dp"), key=lambda a: a["epsilon"])
        eps = np.array([a["epsilon"] for a in dp], float)
        series = [("AUC₂₀₀ (mean CR, epochs 1–200)", "auc200", OKABE_ITO["vermillion"], "o")]
        at = [e for e in ("100", "50") if all(e in a.get("cr_at", {}) for a in dp)]
        if at:
            series.append((f"CR at epoch {at[0]}", at[0], OKABE_ITO["blue"], "s"))
        for name, key, colour, symbol in series:
            if key == "auc200":
                m = np.array([a["auc200"] for a in dp], float)
                h = np.array([a["auc200_ci"] for a in dp], float)
            else:
                m = np.array([a["cr_at"][key][0] for a in dp], float)
                h = np.array([a["cr_at"][key][1] for a in dp], float)
            if np.any(h > 0):
                add_band(self.sweep_plot, eps, 100 * (m - h), 100 * (m + h), colour,
                         CR_PERCENT)  # AUC₂₀₀ is a mean convergence ratio
            self.sweep_items[key] = self.sweep_plot.plot(
                eps, 100 * m, pen=pg.mkPen(colour, width=2), symbol=symbol, symbolSize=8,
                symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour), name=name)
            base = next((a for a in s["arms"] if a["label"] == "no advice"), None)
            if base is not None:
                bv = base["auc200"] if key == "auc200" else base["cr_at"][key][0]
                line = pg.InfiniteLine(pos=100 * bv, angle=0, pen=pg.mkPen(
                    colour, width=1.2, style=Qt.PenStyle.DashLine))
                self.sweep_plot.addItem(line)
                self.sweep_items[f"{key}-none"] = self.sweep_plot.plot(
                    [], [], pen=pg.mkPen(colour, width=1.2, style=Qt.PenStyle.DashLine),
                    name=f"no advice ({name.split(' (')[0]})")
        n = len(s["seeds"])
        self.sweep_note.setText(
            f"DP advising at {len(dp)} values of ε ({n} seeds each, {s['experiment']}); dashed: "
            "no advice. The noise on a teacher's Q-values has scale S/ε, so larger ε means "
            "less noise, better advice and less privacy. ε here is the set-up's ε per "
            "release; see the Privacy ledger tab for the totals per teacher.")
        self.sweep_page.show_content()

    # ------------------------------------------------------------------ details of fresh runs
    def show_single_details(self, result: AdvisingResult) -> None:
        """Advice timeline, events table, budgets and ε per agent of one run."""
        s = result.setup
        n = s.n_agents
        _clear_plot(self.timeline_plot)
        self.timeline_items.clear()
        ev = result.events
        item = self.timeline_plot.getPlotItem()
        item.setTitle("Advice events: student per epoch, coloured by teacher", size="9.5pt")
        item.setLabel("left", "student")
        ticks = [(j, s.agents[j]) for j in range(n)]
        item.getAxis("left").setTicks([ticks])
        legend = item.legend
        legend.setColumnCount(5 if n > 6 else 2)
        for i in range(n):
            mask = ev.teacher == i
            if not mask.any():
                continue
            colour = agent_colour(i)
            self.timeline_items[s.agents[i]] = self.timeline_plot.plot(
                ev.epoch[mask].astype(float), ev.student[mask].astype(float), pen=None,
                symbol=_AGENT_SYMBOLS[(i // _N_AGENT_COLOURS) % len(_AGENT_SYMBOLS)],
                symbolSize=6, symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour),
                name=f"teacher {s.agents[i]}")
        if not len(ev):
            item.setTitle("No advice in this run (strategy, d, budgets?)",
                          size="9.5pt")
        rows_for_legend = 1 + (len(self.timeline_items) - 1) // max(1, legend.columnCount)
        item.setYRange(-0.7, n - 0.3 + 0.9 * rows_for_legend, padding=0)
        _set_columns(self.events_table, EVENT_COLUMNS)
        rows = [[int(ev.epoch[e]), s.agents[int(ev.student[e])], s.agents[int(ev.teacher[e])],
                 s.tasks[int(ev.task[e])], str(int(ev.case[e])), float(ev.distance[e]),
                 s.servers[int(ev.action[e])], float(ev.reward[e])] for e in range(len(ev))]
        _fill(self.events_table, rows)
        case_tip = "; ".join(CASE_NAMES[c] for c in (1, 2, 3, 4))
        h = self.events_table.horizontalHeaderItem(4)
        if h is not None:
            h.setToolTip(case_tip)
        self.timeline_page.show_content()

        # budgets and ε
        for p in (self.ask_plot, self.give_plot, self.eps_plot):
            _clear_plot(p)
            p.getPlotItem().legend.setColumnCount(5 if n > 6 else 2)
        self.budget_items.clear()
        x = np.arange(0, result.epochs + 1, dtype=float)
        eps_t = result.epsilon_over_time()
        p = s.params
        for j in range(n):
            ask = np.concatenate([[p.ask_budget], result.ask_budget[:, j]]).astype(float)
            give = np.concatenate([[p.give_budget], result.give_budget[:, j]]).astype(float)
            e_t = np.concatenate([[0.0], eps_t[:, j]])
            e_t[np.isinf(e_t)] = np.nan  # unbounded from a raw release on: the line stops
            pen = _agent_pen(j)
            self.budget_items[f"ask:{s.agents[j]}"] = self.ask_plot.plot(x, ask, pen=pen,
                                                                         name=s.agents[j])
            self.budget_items[f"give:{s.agents[j]}"] = self.give_plot.plot(x, give, pen=pen,
                                                                           name=s.agents[j])
            self.budget_items[f"eps:{s.agents[j]}"] = self.eps_plot.plot(x, e_t, pen=pen,
                                                                         name=s.agents[j])
        self.ask_plot.getPlotItem().setTitle("b_ask left, per agent", size="9.5pt")
        self.give_plot.getPlotItem().setTitle("b_give left, per agent",
                                              size="9.5pt")
        unb = [s.agents[j] for j in range(n) if np.isinf(result.epsilon_spent[j])]
        self.eps_plot.getPlotItem().setTitle(
            "True ε spent per teacher (basic)" + (
                f" — unbounded for {len(unb)} teacher(s): the line stops at their first raw "
                "release" if unb else ""), size="9.5pt")
        received = np.bincount(ev.student, minlength=n) if len(ev) else np.zeros(n, int)
        given = np.bincount(ev.teacher, minlength=n) if len(ev) else np.zeros(n, int)
        rows = []
        for j in range(n):
            rows.append([s.agents[j], int(received[j]), int(given[j]),
                         int(result.ask_budget[-1, j]), int(result.give_budget[-1, j]),
                         _first_zero(result.ask_budget[:, j], p.ask_budget),
                         _first_zero(result.give_budget[:, j], p.give_budget),
                         _eps_cell(result.epsilon_spent[j])])
        _set_columns(self.budget_table, BUDGET_COLUMNS)
        _fill(self.budget_table, rows)
        for j, why in enumerate(result.epsilon_spent_reasons):
            if why:
                item = table_item(self.budget_table, j, 7)
                item.setBackground(QBrush(QColor(_UNBOUNDED_BG)))
                item.setToolTip(why)
        self.budgets_page.show_content()

    def show_experiment_details(self, result: ExperimentResult) -> None:
        """Cumulative advice and mean budgets / ε per arm (mean over seeds, 95 % CI)."""
        labels = list(result.labels)
        x = np.arange(1, result.epochs + 1, dtype=float)
        _clear_plot(self.timeline_plot)
        self.timeline_items.clear()
        item = self.timeline_plot.getPlotItem()
        item.setTitle("Cumulative advice events (mean, 95 % CI)",
                      size="9.5pt")
        item.setLabel("left", "advice events so far")
        item.getAxis("left").setTicks(None)
        item.legend.setColumnCount(1)
        cum = np.cumsum(result.advice, axis=2).astype(float)
        m, h = (np.asarray(v) for v in ci95(cum, axis=1))  # arrays: one row per arm
        for a, lab in enumerate(labels):
            colour = arm_colour(lab, labels)
            if np.any(h[a] > 0):
                add_band(self.timeline_plot, x, m[a] - h[a], m[a] + h[a], colour,
                         CURVE_RANGES["advice"])
            self.timeline_items[lab] = self.timeline_plot.plot(
                x, m[a], pen=pg.mkPen(colour, width=2), name=lab)
        item.enableAutoRange()
        rows = []
        for a, lab in enumerate(labels):
            tot = result.advice[a].sum(axis=1)
            rows.append([lab, f"{tot.mean():.1f} ± {float(ci95(tot.astype(float))[1]):.1f}",
                         f"{result.releases[a].mean():.1f}",
                         f"{result.unprotected[a].mean():.1f}"])
        _set_columns(self.events_table, ("arm", "advice per run", "noisy releases\nper run",
                                          "raw releases\nper run (no DP)"))
        _fill(self.events_table, rows)
        self.timeline_page.show_content()

        for p in (self.ask_plot, self.give_plot, self.eps_plot):
            _clear_plot(p)
            p.getPlotItem().legend.setColumnCount(1)
        self.budget_items.clear()
        for q, plot, title in (
                ("ask_budget", self.ask_plot, "Mean b_ask left (95 % CI)"),
                ("give_budget", self.give_plot, "Mean b_give left (95 % CI)"),
                ("epsilon_time", self.eps_plot, "Mean true ε per teacher (basic)")):
            mq, hq = result.mean_ci(q)
            if q == "epsilon_time" and np.isinf(mq).any():
                title += " — unbounded arms (raw releases) stop where ε became unbounded"
                mq, hq = np.where(np.isinf(mq), np.nan, mq), np.where(np.isinf(hq), 0.0, hq)
            plot.getPlotItem().setTitle(title, size="9.5pt")
            for a, lab in enumerate(labels):
                colour = arm_colour(lab, labels)
                if np.any(hq[a] > 0):
                    add_band(plot, x, mq[a] - hq[a], mq[a] + hq[a], colour, CURVE_RANGES[q])
                self.budget_items[f"{q}:{lab}"] = plot.plot(x, mq[a], pen=pg.mkPen(colour,
                                                                                   width=2),
                                                            name=lab)
        rows = []
        for a, lab in enumerate(labels):
            closed = result.closed_epoch[a]
            closed = closed[np.isfinite(closed)]
            spent = result.epsilon_spent[a]
            rows.append([lab, f"{result.advice[a].sum(axis=1).mean():.1f}",
                         f"{result.ask_budget[a, :, -1].mean():.1f}",
                         f"{result.give_budget[a, :, -1].mean():.1f}",
                         f"{np.median(closed):.0f}" if closed.size and (
                             result.setups[a].params.strategy != "none") else "–",
                         _eps_cell(np.nanmean(spent, axis=1).mean())])
        _set_columns(self.budget_table, EXP_BUDGET_COLUMNS)
        _fill(self.budget_table, rows)
        for a in range(len(labels)):
            if np.isinf(result.epsilon_spent[a]).any():
                item = table_item(self.budget_table, a, 5)
                item.setBackground(QBrush(QColor(_UNBOUNDED_BG)))
                item.setToolTip(UNBOUNDED_SPENT)
        self.budgets_page.show_content()


    # ------------------------------------------------------------------ ledger
    def _show_single_ledger(self, s: dict[str, Any]) -> None:
        pv = s["privacy"]
        _set_columns(self.ledger_table, LEDGER_COLUMNS)
        rows = []
        reasons = pv.get("basic_reason") or [None] * len(s["agents"])
        for j, name in enumerate(s["agents"]):
            order = pv["rdp_order"][j]
            eps = [_eps_cell(pv[k][j], reasons[j]) for k in ("basic", "advanced", "rdp")]
            rows.append([name, int(pv["releases"][j]), int(pv["unprotected"][j]),
                         float(pv["epsilon_per_release"]), float(pv["nominal_epsilon"]),
                         *eps,
                         "–" if order is None or not math.isfinite(float(order)) else
                         f"{float(order):.3g}",
                         "–" if eps[0] == UNBOUNDED else pv["tightest"][j]])
        _fill(self.ledger_table, rows, LEDGER_TIPS)
        for r, n_raw in enumerate(pv["unprotected"]):
            if n_raw:
                why = reasons[r] or "raw data left without noise: no finite ε"
                for c in (2, 5, 6, 7):
                    item = table_item(self.ledger_table, r, c)
                    item.setBackground(QBrush(QColor(_UNBOUNDED_BG)))
                    item.setToolTip(why)
        mode = ("<b style='color:#D55E00'>release mode</b>" if s["mode"] == "release" else
                "<b>seeded experiment</b> (not a release)")
        per_advice = pv.get("epsilon_per_advice")
        head = ""
        if s.get("strategy") != "none":
            head = (f"ε per advice query (per candidate teacher): <b>{per_advice:g}</b>"
                    if per_advice is not None else
                    "ε per advice query: <b style='color:#D55E00'>unbounded</b> (raw data "
                    "left; hover a red cell for the reason)") + " · "
        self.ledger_statement.setText(
            f"{mode} · {head}δ = {pv['delta']:g} for the advanced and RDP totals · "
            f"{html.escape(pv['statement'])}")

    def _show_experiment_ledger(self, s: dict[str, Any]) -> None:
        _set_columns(self.ledger_table, EXP_LEDGER_COLUMNS)
        rows = []
        unbounded_rows = []
        for r, arm in enumerate(s["arms"]):
            pv = arm["privacy"]
            why = pv.get("worst_basic_reason")
            cells = [_eps_cell(pv.get(k), why) for k in ("worst_basic", "worst_advanced",
                                                         "worst_rdp", "mean_basic")]
            if UNBOUNDED in cells:
                unbounded_rows.append((r, why or UNBOUNDED_SPENT))
            rows.append([arm["label"], arm["strategy"], f"{arm['epsilon']:g}",
                         float(pv["epsilon_per_release"]), float(arm["releases"]),
                         float(arm["unprotected"]), float(pv["worst_releases"]), *cells])
        tips = ("", "", "ε per release as set (the thesis's nominal figure when S = 1).",
                "ε that one release really satisfies: ε·S_strict/S_noise.",
                "Mean over seeds of all noisy releases in a run.",
                "Releases without noise (raw Q-values, advice from the raw policy, raw "
                "visit counts): no DP protection, the totals are unbounded.",
                "Noisy releases of the teacher that released most, mean over seeds.",
                ACCOUNTANTS["basic"], ACCOUNTANTS["advanced"], ACCOUNTANTS["rdp"],
                "Mean over teachers and seeds, basic composition.")
        _fill(self.ledger_table, rows, tips)
        for r, why in unbounded_rows:
            for c in (5, 7, 8, 9, 10):
                item = table_item(self.ledger_table, r, c)
                item.setBackground(QBrush(QColor(_UNBOUNDED_BG)))
                item.setToolTip(why)
        self.ledger_statement.setText(
            f"<b>seeded experiment</b> (numpy noise; not a release) · {len(s['seeds'])} seeds "
            f"per arm · per arm the teacher that spent most, mean over seeds, under basic "
            f"composition (δ = 0), advanced composition and a Rényi-DP accountant (δ = "
            f"{s['delta']:g}). True ε per release = ε·S_strict/S_noise: with the thesis's "
            "S = 1 and rewards 2/0 it is 2ε. Raw releases are not covered by any ε: an arm "
            "with any is <b>unbounded</b>.")

    # ------------------------------------------------------------------ claims
    def show_claims(self, claims: Sequence[dict[str, Any]], note: str) -> None:
        """Claims as dicts (ClaimCheck.to_dict()); ``note`` says which runs they use."""
        if not claims or all(c["verdict"] == "not run" for c in claims):
            self.claims_page.show_empty()
            return
        rows = [[c["quote"], c["source"], c["thesis"], c["ours"] or "–", c["verdict"]]
                for c in claims]
        _fill(self.claims_table, rows)
        for r, c in enumerate(claims):
            colour = QColor(VERDICT_COLOURS.get(c["verdict"], "#FFFFFF"))
            table_item(self.claims_table, r, 4).setBackground(QBrush(colour))
            tip = f"How we test it: {c['how']}" + (f"\n{c['detail']}" if c.get("detail") else "")
            for col in range(5):
                table_item(self.claims_table, r, col).setToolTip(tip)
        self.claims_table.resizeRowsToContents()
        QTimer.singleShot(0, self.claims_table,  # once the layout has settled
                          self.claims_table.resizeRowsToContents)
        self.claims_note.setText(note)
        self.claims_page.show_content()

    def _on_claims_header_section_resized(self, *args: Any) -> None:
        self.claims_table.resizeRowsToContents()

    # ------------------------------------------------------------------ Tables 3.1–3.4
    def show_worked_example(self, w: WorkedExample) -> None:
        diff = set(w.teacher_only) | set(w.student_only)
        for key, t in self.worked_tables.items():
            rows = [[a, sym, float(v)] for a, sym, v in w.tables[key]]
            _fill(t, rows)
            for r, (a, _, _) in enumerate(w.tables[key]):
                if a in diff:
                    for c in range(3):
                        table_item(t, r, c).setBackground(QBrush(QColor("#FCE9C8")))
                        table_item(t, r, c).setToolTip("The differing record: the two datasets "
                                                "differ only here (neighbouring datasets).")
        rewards = ", ".join(f"R(s,{a}) = {v:g}" for a, v in w.rewards.items())
        verdict = ("advice would be given" if w.advice else
                   "no advice: converged agents have no knowledge gap")
        self.worked_label.setText(
            f"<b>Tables 3.1–3.4, instantiated</b> (spec §4). Agent i (teacher) has A<sub>i</sub> "
            f"= {{{', '.join(w.teacher_actions)}}}, agent j (student) has A<sub>j</sub> = "
            f"{{{', '.join(w.student_actions)}}}; {rewards}. Each action is forced "
            f"{w.repeats} times with α = {w.alpha:g}, so Q(s,a) → r(s,a) (Lemma 3.1: "
            f"Q<sub>t</sub> = r(1 − (1 − α)<sup>t</sup>)): Tables 3.1/3.2 are the learned "
            f"Q-datasets, 3.3/3.4 their limits r(s,a). They differ in one record only "
            f"({', '.join(w.teacher_only)} vs {', '.join(w.student_only)}, highlighted): "
            f"<b>neighbouring datasets</b> — {html.escape(w.case_name)}. The teacher's view "
            f"on the student's actions is q̂ = {list(w.q_view)}; d<sub>E</sub>² = "
            f"{w.distance:g} {'>' if w.advice else '≤'} d = {w.threshold:g}, so "
            f"{verdict} (noise off).")
        self.worked_page.show_content()


def _first_zero(series: np.ndarray, start: int) -> str:
    if start == 0:
        return "0"
    hit = np.flatnonzero(series <= 0)
    return str(int(hit[0]) + 1) if hit.size else "–"


def _is_sweep(s: dict[str, Any]) -> bool:
    eps = {a["epsilon"] for a in s.get("arms", []) if a["strategy"] == "dp"}
    return len(eps) >= 2
