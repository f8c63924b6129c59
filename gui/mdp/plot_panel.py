"""Figure 2.1 for one MDP: values and the cost of privacy against k, plus a per-k table.

The panel shows a recorded sweep run of the document (the latest one for its MDP, or
the one picked in the Project tree). It reads only the run record's summary (means and
standard deviations per k), so freshly computed and reloaded runs look the same, and
undoing the run removes it from the plots.

(a) values at s₀ against k, mean ± 1 sd over the runs: v̲ (pessimistic bound), V̄ (the
private value of π̄ on P̄), V (π̄ on the true P — the **oracle view**, which the
algorithm itself never sees) and v̄ (optimistic bound);
(b) the cost of privacy: the computable bound v̄ − v̲ and the empirical |V̄ − V| (oracle
view). Both plots use a log k axis; right-click a plot to export it (PNG, SVG, CSV).

The table also gives the composed (ε, δ) of the release at each k, under the adjacency and
the public parameters (η, domain rule, b, δ̂) the run declared — "unbounded" where some row
has no guarantee, with which rows and why in the tooltip and below the table; below it,
the privacy statement of the k in focus (the selected row) and a "Per-row privacy…"
button that opens :class:`gui.mdp.privacy_rows_dialog.PrivacyRowsDialog`. Every
number shown there is a function of the public parameters and the rows' support sizes.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.common import REAL, QuantityRange, band_around
from core.mdp import QUANTITY_RANGES, eta_label
from core.project import RunRecord
from gui.shell.document import ProjectDocument
from gui.shell.plots import make_plot
from gui.shell.style import SERIES, fmt_num
from gui.shell.widgets import vertical_scroll

if TYPE_CHECKING:
    from gui.mdp.privacy_rows_dialog import PrivacyRowsDialog

__all__ = ["CostOfPrivacyPanel", "LogErrorBarItem", "VALUE_KEYS", "COST_KEYS", "TABLE_COLUMNS"]

VALUE_KEYS = ("v_lower", "v_private", "v_true", "v_upper")
COST_KEYS = ("cost_bound", "cost_empirical")
# horizontal offsets (decades of k) so that error bars at the same k do not hide each other
_DODGE = {"v_lower": -0.018, "v_private": -0.006, "v_true": 0.006, "v_upper": 0.018,
          "cost_bound": -0.008, "cost_empirical": 0.008}
TABLE_COLUMNS = ("k", "α", "ε\n(release)", "δ\n(release)", "v\u0332\npessimistic",
                 "V\u0304\nprivate", "V\n(oracle view)",
                 "v\u0304\noptimistic", "bound\nv\u0304 − v\u0332", "|V\u0304 − V|\n(oracle view)")
EMPTY_TEXT = ("Press F5 (or Run in the Run parameters panel) to run the privacy sweep on "
              "this MDP.\n\nFor each k the model is privatised with the Dirichlet mechanism, "
              "a policy π̄ is synthesised on the private model, and its value is bounded by "
              "the pessimistic and optimistic value functions.\nThe values and the cost of "
              "privacy against k (Figure 2.1) and a per-k table will appear here.")


class LogErrorBarItem(pg.ErrorBarItem):
    """Error bars (mean ± sd, clipped to what the quantity can be) that follow the plot's
    log-x / log-y switches."""

    def __init__(self, **opts: Any) -> None:
        self._raw: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._log = (False, False)
        self._beam = float(opts.pop("beam", 0.0))
        super().__init__(**opts)

    def set_values(self, x: np.ndarray, y: np.ndarray, sd: np.ndarray,
                   limits: QuantityRange = REAL) -> None:
        """Bars from ``y - sd`` to ``y + sd``, clipped to ``limits`` (a cost of privacy is
        never below 0: :data:`core.mdp.QUANTITY_RANGES`)."""
        y = np.asarray(y, float)
        lo, hi = band_around(y, sd, limits)
        self._raw = (np.asarray(x, float), y, lo, hi)
        self._apply()

    def clear_values(self) -> None:
        self._raw = None
        self.setData(x=None, y=None, top=None, bottom=None, height=None)

    def setLogMode(self, x: bool, y: bool) -> None:  # noqa: N802 (pyqtgraph API)
        self._log = (bool(x), bool(y))
        self._apply()

    def _apply(self) -> None:
        if self._raw is None:
            return
        x, y, low, high = self._raw
        log_x, log_y = self._log
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = np.log10(x) if log_x else x
            if log_y:
                lo = np.where(low > 0, low, np.nan)
                hi = np.where(high > 0, high, np.nan)
                ly = np.where(y > 0, np.log10(np.where(y > 0, y, 1.0)), np.nan)
                top = np.log10(hi) - ly
                bottom = ly - np.log10(lo)
                ys = ly
            else:
                top, bottom = high - y, y - low
                ys = y
        ok = np.isfinite(xs) & np.isfinite(ys)
        top = np.where(np.isfinite(top), top, 0.0)
        bottom = np.where(np.isfinite(bottom), bottom, 0.0)
        beam = self._beam if log_x else self._beam * float(np.nanmedian(x) if x.size else 1.0)
        self.setData(x=xs[ok], y=ys[ok], top=top[ok], bottom=bottom[ok], beam=beam)


def _make_plot(title: str, left: str) -> pg.PlotWidget:
    return make_plot(title, "k (Dirichlet concentration)", left, log_x=True, title_size="10pt",
                     min_size=(280, 220))


def _policy_caption(s: dict[str, Any]) -> str:
    """The caption's π̄ part: empty for the greedy π̄ (what every older sweep used)."""
    if s.get("policy_source") == "softmax":
        return f" &nbsp;·&nbsp; π̄ softmax τ = {float(s['temperature']):g} (stochastic)"
    if s.get("policy_source") == "table":
        return " &nbsp;·&nbsp; π̄ a given policy table"
    return ""


class CostOfPrivacyPanel(QWidget):
    """Figure 2.1 (a) values vs k, (b) cost of privacy vs k, and a per-k table."""

    def __init__(self, document: ProjectDocument, mdp_id: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._run_id: str | None = None

        self._stack = QStackedWidget(self)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("QLabel { color: #555; font-size: 11pt; padding: 24px; }")
        self._stack.addWidget(self.empty_label)

        content = QWidget(self)
        self.caption = QLabel(content)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption.setStyleSheet("QLabel { color: #222; padding: 2px 4px; }")

        self.values_plot = _make_plot("(a) Values at s₀ vs k (mean ± 1 sd)", "value at s₀")
        self.cost_plot = _make_plot("(b) Cost of privacy at s₀ vs k (mean ± 1 sd)",
                                    "cost of privacy at s₀")
        # legends in a band above the data (the y range leaves headroom for them)
        self.values_legend = self.values_plot.getPlotItem().addLegend(
            offset=(6, 4), labelTextSize="8pt", verSpacing=-6, colCount=2,
            brush=pg.mkBrush(255, 255, 255, 225), pen=pg.mkPen("#BBBBBB"))
        self.cost_legend = self.cost_plot.getPlotItem().addLegend(
            offset=(6, 4), labelTextSize="8pt", verSpacing=-6, colCount=2,
            brush=pg.mkBrush(255, 255, 255, 225), pen=pg.mkPen("#BBBBBB"))
        for plot in (self.values_plot, self.cost_plot):
            plot.getPlotItem().getViewBox().sigResized.connect(self._on_view_box_resized)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.error_bars: dict[str, LogErrorBarItem] = {}
        for key in VALUE_KEYS + COST_KEYS:
            plot = self.values_plot if key in VALUE_KEYS else self.cost_plot
            label, colour, symbol, dashed = SERIES[key]
            pen = pg.mkPen(colour, width=2,
                           style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
            curve = plot.plot([], [], pen=pen, symbol=symbol, symbolSize=8,
                              symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour),
                              name=label)
            bars = LogErrorBarItem(pen=pg.mkPen(colour, width=1.3), beam=0.03)
            plot.addItem(bars)
            bars.setLogMode(True, False)
            self.curves[key] = curve
            self.error_bars[key] = bars

        self.table = QTableWidget(0, len(TABLE_COLUMNS), content)
        self.table.setHorizontalHeaderLabels(list(TABLE_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        for col in range(4):  # k, α, ε, δ: as narrow as their contents
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        # at least four rows in sight (it showed 1.5 at the default size; the
        # header is drawn taller than its hint, hence room for five)
        self.table.setMinimumHeight(header.sizeHint().height() + 5 * 22
                                    + 2 * self.table.frameWidth() + 2)
        self.table.setToolTip("Per k: the (ε, δ) of the whole private model under the "
                              "adjacency stated below, then mean ± 1 sd over the runs, at the "
                              "initial state s₀. Columns marked ‘oracle view’ use the true "
                              "model, which the private algorithm never sees.")
        self.table.itemSelectionChanged.connect(self._on_table_item_selection_changed)
        self.privacy_label = QLabel(content)
        self.privacy_label.setWordWrap(True)
        self.privacy_label.setTextFormat(Qt.TextFormat.RichText)
        self.privacy_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.privacy_label.setStyleSheet("QLabel { color: #222; padding: 0 4px; }")
        self.rows_button = QPushButton("Per-row privacy…", content)
        self.rows_button.setToolTip("The (ε, δ) of every transition row at the k in focus, "
                                    "including the rows without a guarantee and why.")
        self.rows_button.clicked.connect(self.show_row_privacy)
        self.rows_dialog: PrivacyRowsDialog | None = None
        table_box = QWidget(content)
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.setSpacing(2)
        table_layout.addWidget(self.table, 1)
        focus = QHBoxLayout()
        # the long privacy text scrolls in a box of about three lines: laid out in full it
        # was drawn over the table when the pane was short (a 768-px-high window)
        privacy_box = vertical_scroll(self.privacy_label, content, frame=False)
        privacy_box.setMinimumHeight(3 * self.privacy_label.fontMetrics().lineSpacing() + 4)
        focus.addWidget(privacy_box, 1)
        focus.addWidget(self.rows_button, 0, Qt.AlignmentFlag.AlignTop)
        table_layout.addLayout(focus)

        plots = QSplitter(Qt.Orientation.Horizontal, content)
        plots.addWidget(self.values_plot)
        plots.addWidget(self.cost_plot)
        plots.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Vertical, content)
        self.splitter.addWidget(plots)
        self.splitter.addWidget(table_box)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([270, 190])
        self.splitter.setChildrenCollapsible(False)
        lay = QVBoxLayout(content)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.caption)
        lay.addWidget(self.splitter, 1)
        self._stack.addWidget(content)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack)

        document.run_added.connect(self._on_document_run_added)
        document.run_removed.connect(self._on_document_run_removed)
        document.project_replaced.connect(self._on_document_project_replaced)
        self.show_latest()

    # ------------------------------------------------------------------ public
    @property
    def run_id(self) -> str | None:
        """The run shown, or None (empty state)."""
        return self._run_id

    @property
    def is_empty(self) -> bool:
        return self._run_id is None

    def show_latest(self) -> None:
        runs = self._document.project.runs_for(self._mdp_id, "sweep")
        if runs:
            self.show_run(runs[-1].id)
        else:
            self._run_id = None
            self._clear()
            self._stack.setCurrentIndex(0)

    def show_run(self, run_id: str) -> None:
        record = self._document.run(run_id)
        if record.target != self._mdp_id or record.kind != "sweep":
            raise ValueError(f"run {run_id} is not a sweep of {self._mdp_id}")
        self._run_id = run_id
        self._render(record)
        self._stack.setCurrentIndex(1)

    # ------------------------------------------------------------------ drawing
    def _clear(self) -> None:
        for key in self.curves:
            self.curves[key].setData([], [])
            self.error_bars[key].clear_values()
        self.table.setRowCount(0)
        self.caption.clear()
        self.privacy_label.clear()
        self.rows_button.setEnabled(False)

    def _render(self, record: RunRecord) -> None:
        s = record.summary
        k = np.asarray(s["k"], dtype=float)
        for key in VALUE_KEYS + COST_KEYS:
            mean = np.asarray(s[f"{key}_mean"], dtype=float)
            sd = np.asarray(s[f"{key}_sd"], dtype=float)
            x = k * 10.0 ** _DODGE[key]
            self.curves[key].setData(x, mean)
            self.error_bars[key].set_values(x, mean, sd, QUANTITY_RANGES[key])
        self._set_ranges(s)
        self._fill_table(s)
        self.caption.setText(self._caption_html(record))
        self.rows_button.setEnabled(bool(s.get("epsilon")))
        self._update_privacy_label()

    def _set_ranges(self, s: dict[str, Any] | None = None) -> None:
        """Autoscale x; scale y so the data stay below the legend band at the top."""
        if s is None:
            if self._run_id is None or not any(r.id == self._run_id
                                               for r in self._document.project.runs):
                return  # nothing shown, or its run was just removed (a resize can come first)
            s = self._document.run(self._run_id).summary
        for plot, keys, legend in ((self.values_plot, VALUE_KEYS, self.values_legend),
                                   (self.cost_plot, COST_KEYS, self.cost_legend)):
            item = plot.getPlotItem()
            item.enableAutoRange(x=True, y=False)
            bars = [band_around(s[f"{k}_mean"], s[f"{k}_sd"], QUANTITY_RANGES[k]) for k in keys]
            lo = min(float(np.min(b[0])) for b in bars)
            hi = max(float(np.max(b[1])) for b in bars)
            if not (np.isfinite(lo) and np.isfinite(hi)):
                item.enableAutoRange()
                continue
            span = hi - lo if hi > lo else max(abs(hi), 1.0) * 0.1
            bottom = lo - 0.04 * span
            vb_height = item.getViewBox().height()
            # two columns while they fit across the axes, else one (never cut at the right)
            cols = 2 if legend.columnCount == 1 and self._legend_two_wide(legend) <= \
                item.getViewBox().width() - 12 else legend.columnCount
            if legend.boundingRect().width() > item.getViewBox().width() - 12:
                cols = 1
            if cols != legend.columnCount:
                legend.setColumnCount(cols)
            band = legend.boundingRect().height() + 12.0
            f = min(0.6, band / vb_height) if vb_height > 1 else 0.3
            top = bottom + (hi + 0.03 * span - bottom) / (1.0 - f)
            item.setYRange(bottom, top, padding=0)

    @staticmethod
    def _legend_two_wide(legend: Any) -> float:
        """The width ``legend`` would take in two columns (its widest entry, twice)."""
        widths = [sample.boundingRect().width() + label.boundingRect().width() + 10
                  for sample, label in legend.items]
        return 2 * max(widths, default=0.0) + 10

    def _on_view_box_resized(self, *args: object) -> None:
        self._set_ranges()

    def _caption_html(self, record: RunRecord) -> str:
        s = record.summary
        p = record.params
        if p.get("seeded", True) and record.seed is not None:
            mode = f"seeded experiment (seed {record.seed})"
        else:
            mode = f"experiment, fresh OS seed {record.seed} (recorded)"
        name = self._mdp_name()
        elapsed = float(s.get("elapsed_s", 0.0))
        if s.get("epsilon"):
            adjacency = str(s.get("adjacency", "one-row"))
            domain = (f"η = {html.escape(eta_label(s['eta']))} "
                      f"({html.escape(str(s.get('domain_rule')))}), "
                      if s.get("eta") is not None else "η read from the rows (older run), ")
            privacy = (f" &nbsp;·&nbsp; (ε, δ) with public {domain}b = "
                       f"{float(s.get('b', 0.1)):g}, target "
                       f"δ = {float(s.get('delta_target', 0.05)):g} per row, "
                       f"{html.escape(adjacency)}")
        else:
            privacy = " &nbsp;·&nbsp; no (ε, δ) recorded (older run)"
        return (f"<b>Figure 2.1 — {html.escape(name)}</b> &nbsp;·&nbsp; {record.id} &nbsp;·&nbsp; "
                f"{s.get('runs')} runs per k &nbsp;·&nbsp; β = {s.get('beta'):g} &nbsp;·&nbsp; "
                f"α: {html.escape(str(s.get('alpha_mode')))} &nbsp;·&nbsp; {html.escape(mode)}"
                f"{_policy_caption(s)} &nbsp;·&nbsp; {elapsed:.2f} s{privacy}"
                "<br><span style='color:#555'>mean ± 1 "
                "sd over runs (bars shifted slightly along k). <b>Oracle view</b> = uses the "
                "true model, which the private algorithm never sees.</span>")

    def _mdp_name(self) -> str:
        if self._document.has_mdp(self._mdp_id):
            return self._document.model(self._mdp_id).name or self._mdp_id
        return self._mdp_id

    def _fill_table(self, s: dict[str, Any]) -> None:
        k = list(s["k"])
        nan = [float("nan")] * len(k)
        alpha = list(s.get("alpha", nan))
        eps, dels = list(s.get("epsilon") or nan), list(s.get("delta") or nan)
        statements = list(s.get("privacy_statement") or [""] * len(k))
        missing = list(s.get("privacy_rows_without_guarantee") or [0] * len(k))
        reasons = list(s.get("epsilon_reason") or [None] * len(k))
        self.table.setRowCount(len(k))
        keys = VALUE_KEYS + COST_KEYS
        first = 4  # columns before the value columns
        for row, kv in enumerate(k):
            # a recorded ε of null is unbounded: no finite guarantee (absent on older runs)
            unbounded = eps[row] is None and bool(s.get("epsilon"))
            e_text = "unbounded" if unbounded else fmt_num(
                float("nan") if eps[row] is None else float(eps[row]))
            d_text = "–" if unbounded else fmt_num(
                float("nan") if dels[row] is None else float(dels[row]), 3)
            cells = [f"{kv:g}", f"{float(alpha[row]):.4g}", e_text, d_text]
            for key in keys:
                m = float(s[f"{key}_mean"][row])
                sd = float(s[f"{key}_sd"][row])
                cells.append(f"{fmt_num(m, 3)} ± {fmt_num(sd, 3)}")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col >= first and keys[col - first] in ("v_true", "cost_empirical"):
                    item.setForeground(QColor("#555555"))
                if col in (2, 3) and statements[row]:
                    tip = statements[row]
                    if missing[row] and row < len(reasons) and reasons[row] \
                            and reasons[row] not in tip:
                        tip += f"\nUnbounded: {reasons[row]}"
                    if missing[row]:
                        tip += "\nPer-row privacy… lists every row and why."
                    item.setToolTip(tip)
                if col == 2 and unbounded:
                    item.setForeground(QColor("#8A5300"))
                self.table.setItem(row, col, item)

    def focus_index(self) -> int:
        """The k in focus: the selected table row, or the first k."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return rows[0].row() if rows else 0

    def _update_privacy_label(self) -> None:
        if self._run_id is None:
            self.privacy_label.clear()
            return
        s = self._document.run(self._run_id).summary
        statements = s.get("privacy_statement") or []
        i = self.focus_index()
        if i >= len(statements):
            self.privacy_label.setText("<span style='color:#555'>This run recorded no (ε, δ); "
                                       "run the sweep again to get them.</span>")
            return
        missing = (s.get("privacy_rows_without_guarantee") or [0] * len(statements))[i]
        total = (s.get("privacy_rows_total") or [None] * len(statements))[i]
        extra = ""
        if missing:
            extra = (f" <span style='color:#8A5300'>⚠ unbounded: {missing}"
                     + (f" of {total}" if total else "") + " rows have no guarantee, so "
                     "neither has the release — see Per-row privacy… for which rows and "
                     "why.</span>")
        statement = re.sub(r"^k = [^:]+: ", "", statements[i])
        self.privacy_label.setText(
            f"<b>Privacy of the release at k = {float(s['k'][i]):g}</b> (select a row for "
            f"another k): {html.escape(statement)}.{extra}")

    def show_row_privacy(self) -> None:
        """Open the per-row (ε, δ) dialog for the k in focus."""
        if self._run_id is None:
            return
        from gui.mdp.privacy_rows_dialog import PrivacyRowsDialog

        if self.rows_dialog is not None:
            self.rows_dialog.close()
        dialog = PrivacyRowsDialog(self._document, self._run_id, self.focus_index(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(self._on_rows_dialog_destroyed)
        self.rows_dialog = dialog
        dialog.show()

    def _on_rows_dialog_destroyed(self, *args: object) -> None:
        self.rows_dialog = None

    def _on_table_item_selection_changed(self) -> None:
        self._update_privacy_label()

    # ------------------------------------------------------------------ slots
    def _on_document_run_added(self, run_id: str) -> None:
        record = self._document.run(run_id)
        if record.target == self._mdp_id and record.kind == "sweep":
            self.show_run(run_id)

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self._run_id:
            self.show_latest()

    def _on_document_project_replaced(self) -> None:
        self.show_latest()


def preview(exec_: bool = True) -> QWidget:
    from core.mdp import privacy_sweep, sweep_summary
    from gui.shell.commands import AddRunCommand
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        doc = example_document()
        panel = CostOfPrivacyPanel(doc, "four-startups")
        mdp = doc.mdp_entry("four-startups").mdp
        result = privacy_sweep(mdp, [10, 30, 100, 300, 1000, 3000, 10000], runs=10, seed=7,
                               workers=1)
        doc.push(AddRunCommand(doc, RunRecord(
            id=doc.project.new_run_id(), kind="sweep", target="four-startups",
            params={"seeded": True, "seed": 7}, summary=sweep_summary(result), mode=result.mode,
            seed=result.seed)))
        return panel

    return run_preview(build, exec_=exec_, title="Cost of privacy", size=(1000, 620))


if __name__ == "__main__":
    preview()
