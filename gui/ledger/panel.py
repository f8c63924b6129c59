"""The Privacy Ledger workspace: every release of the project, its totals and budgets.

Top: the entries (one row per release or seeded experiment: mechanism, (ε, δ), uses,
mode, what was released, adjacency, time) with filters by dataset, mechanism and mode,
and Export CSV…. Bottom: the totals per protected dataset side by side — basic, advanced
(Dwork–Rothblum–Vadhan) and zCDP, each "not applicable" where its assumption fails, the
same rows as the report (:func:`core.report.html.ledger_totals`) — and the budgets: a budget
editor per dataset and a bar of ε spent vs budget (releases only; seeded experiments are
listed, not spent).

The totals and budgets come first (what a reviewer asks), the entries below them.
Unbounded releases (``LedgerEntry.unbounded``: ε = ∞ with a reason, e.g. raw Q-values) show
as "unbounded" in red with their reason — in the row, one line per reason under the totals
they make unbounded (:mod:`gui.ledger.reasons`, the entries on demand),
and in the budget bar, which is then full and marked exceeded; never as ∞, 0 or a missing
row. The CSV writes "unbounded" with an ``epsilon_reason`` column.

The panel reads ``document.project`` and refreshes on the ledger's signals
(:attr:`gui.shell.document.ProjectDocument.ledger_changed`); budget edits are undoable commands.

About 600 lines: the ledger table models, filters, budgets and CSV export of one tab.
"""

from __future__ import annotations

import csv
import math
from typing import Any, TypeAlias

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError, dumps
from core.privacy import LedgerEntry, PrivacyLedger, release_modes
from core.report import unbounded_reasons
from gui.ledger.reasons import UnboundedReasons
from gui.ledger.texts import EMPTY_TEXT, TOOLTIPS, UNBOUNDED_TIP
from gui.shell.document import ProjectDocument
from gui.shell.ledger import project_ledger, set_budget
from gui.shell.style import ERROR_COLOUR, OKABE_ITO, PRIVATE_ACCENT
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, header_item

__all__ = ["LedgerPanel", "LedgerTableModel", "LedgerFilterModel", "COLUMNS", "EMPTY_TEXT"]

#: The index Qt passes to a model's overrides (either kind, as PySide6's stubs declare).
_Index: TypeAlias = "QModelIndex | QPersistentModelIndex"

ALL = "(all)"
MODE_CHOICES = (("all modes", None), ("releases", "release"), ("seeded experiments",
                                                                "experiment"))
COLUMNS = ("id", "protects", "mechanism", "ε", "δ", "uses", "mode", "seed", "released",
           "adjacency", "by", "time")


def _num(x: float, digits: int = 4) -> str:
    if math.isinf(x) and x > 0:
        return "unbounded"
    if not math.isfinite(x):
        return "–"
    return f"{x:.{digits}g}"


# --------------------------------------------------------------------------- models
class LedgerTableModel(QAbstractTableModel):
    """The entries of a :class:`PrivacyLedger` as rows (read-only)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._entries: list[LedgerEntry] = []

    def set_entries(self, entries: list[LedgerEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self.endResetModel()

    def entry(self, row: int) -> LedgerEntry:
        return self._entries[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802,B008
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802,B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return {"ε": TOOLTIPS["epsilon"], "δ": TOOLTIPS["delta"],
                        "uses": "How many privatisations this entry stands for (a sweep "
                                "makes 'runs' of them at each k); totals count each use.",
                        "mode": "release: noise from a secure source, the result left "
                                "PrivPlan. experiment: seeded, reproducible, not released "
                                "(listed, not spent)."}.get(COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self._entries[index.row()]
        col = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and col == "ε" and e.unbounded:
            return f"ε unbounded: {e.reason or 'no finite bound'}\n\n{UNBOUNDED_TIP}"
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = {"id": e.id, "protects": e.dataset, "mechanism": e.mechanism,
                     "ε": _num(e.epsilon), "δ": _num(e.delta, 3), "uses": str(e.count),
                     "mode": e.mode, "seed": "" if e.seed is None else str(e.seed),
                     "released": e.released, "adjacency": e.adjacency, "by": e.source,
                     "time": e.time.replace("T", " ")}[col]
            if role == Qt.ItemDataRole.ToolTipRole and col in ("mechanism", "released"):
                params = ", ".join(f"{k} = {v}" for k, v in e.parameters.items())
                why = f"\n\nε unbounded: {e.reason}" if e.unbounded else ""
                return f"{e.released}\n\nparameters: {params or 'none'}{why}"
            return value
        if role == Qt.ItemDataRole.ForegroundRole and col == "ε" and e.unbounded:
            return QColor(ERROR_COLOUR)
        if role == Qt.ItemDataRole.ForegroundRole and not e.is_release:
            return QColor("#666666")
        if role == Qt.ItemDataRole.ForegroundRole and col == "mode":
            return QColor(PRIVATE_ACCENT).darker(130)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in ("ε", "δ", "uses", "seed"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return e
        return None


class LedgerFilterModel(QSortFilterProxyModel):
    """Keeps the rows of one dataset / mechanism / mode (None: any)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset: str | None = None
        self.mechanism: str | None = None
        self.mode: str | None = None

    def set_filters(self, *, dataset: str | None, mechanism: str | None,
                    mode: str | None) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.10 (invalidateFilter is deprecated)
            self.beginFilterChange()
            self.dataset, self.mechanism, self.mode = dataset, mechanism, mode
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.dataset, self.mechanism, self.mode = dataset, mechanism, mode
            self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent: _Index) -> bool:  # noqa: N802
        model = self.sourceModel()
        assert isinstance(model, LedgerTableModel)
        e = model.entry(row)
        return ((self.dataset is None or e.dataset == self.dataset)
                and (self.mechanism is None or e.mechanism == self.mechanism)
                and (self.mode is None or e.mode == self.mode
                     or (self.mode == "release" and e.is_release)))


# --------------------------------------------------------------------------- panel
class LedgerPanel(ToolPanel):
    """The Privacy Ledger tab (a main-window tool).

    A :class:`~gui.shell.tool_panel.ToolPanel` with nothing for F5 to start (``can_run``
    False): it views the ledger and edits budgets (undoable commands), and shares the base's
    document, Log-dock signal and Workspace plumbing.
    """

    refreshed = Signal()
    can_run = False  # Workspace protocol: nothing for F5 to start
    status_name = "Privacy Ledger"
    log_name = "privacy ledger"

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self._ledger = PrivacyLedger()
        self.setObjectName("ledger_panel")

        # filters
        self.dataset_combo = QComboBox(self)
        self.mechanism_combo = QComboBox(self)
        self.mode_combo = QComboBox(self)
        for text, mode in MODE_CHOICES:
            self.mode_combo.addItem(text, mode)
        for combo, tip in ((self.dataset_combo, "Show the entries of one protected dataset"),
                           (self.mechanism_combo, "Show the entries of one mechanism"),
                           (self.mode_combo, "Releases (spent) or seeded experiments")):
            combo.setToolTip(tip)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.currentIndexChanged.connect(self._on_filter_changed)
        self.export_button = QPushButton("Export CSV…", self)
        self.export_button.setToolTip("Save the entries shown (with the filters) as CSV")
        self.export_button.clicked.connect(self._on_export_button_clicked)
        self.count_label = QLabel(self)
        self.count_label.setStyleSheet("QLabel { color: #555; }")
        filters = QHBoxLayout()
        for text, w in (("Dataset", self.dataset_combo), ("Mechanism", self.mechanism_combo),
                        ("Mode", self.mode_combo)):
            filters.addWidget(QLabel(text + ":", self))
            filters.addWidget(w)
            filters.addSpacing(8)
        filters.addWidget(self.count_label, 1)
        filters.addWidget(self.export_button)

        # entries
        self.model = LedgerTableModel(self)
        self.proxy = LedgerFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty_label.setStyleSheet("QLabel { color: #555; padding: 18px; }")
        self.entries_stack = QStackedWidget(self)
        self.entries_stack.addWidget(self.table)
        self.entries_stack.addWidget(self.empty_label)

        # totals
        self.totals = QTableWidget(0, 8, self)
        self.totals.setHorizontalHeaderLabels(["protects", "counted", "uses", "basic (ε, δ)",
                                               "tight, PLD (ε, δ)", "advanced (ε, δ)",
                                               "zCDP (ε, δ)", "budget (ε, δ)"])
        for col, key in ((3, "basic"), (4, "PLD"), (5, "advanced"), (6, "zCDP"),
                         (7, "budget")):
            header_item(self.totals, col).setToolTip(TOOLTIPS[key])
        self.totals.verticalHeader().hide()
        self.totals.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.totals.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.totals.horizontalHeader().setStretchLastSection(True)
        rows = self.totals.verticalHeader().defaultSectionSize()
        self.totals.setMinimumHeight(6 * rows + self.totals.horizontalHeader().sizeHint().height())
        self.assumption_label = QLabel(self)
        self.assumption_label.setWordWrap(True)
        self.assumption_label.setStyleSheet("QLabel { color: #555; }")
        # one line per reason, entries on demand (not a paragraph above the totals)
        self.reasons_view = UnboundedReasons(self, tip=UNBOUNDED_TIP)
        totals_box = QGroupBox("Totals per protected dataset", self)
        tl = QVBoxLayout(totals_box)
        tl.addWidget(self.totals, 1)
        tl.addWidget(self.reasons_view)
        tl.addWidget(self.assumption_label)

        # budgets
        self.budget_dataset = QComboBox(self)
        self.budget_dataset.setEditable(True)
        self.budget_dataset.setToolTip("The protected dataset, e.g. mdp:four-startups")
        self.budget_dataset.currentTextChanged.connect(self._on_budget_dataset_changed)
        self.budget_eps = SciSpinBox(self, minimum=1e-6, maximum=1e9, value=1.0, digits=6,
                                     log_step=1.5)
        self.budget_eps.setToolTip(TOOLTIPS["epsilon"])
        self.budget_delta = SciSpinBox(self, minimum=0.0, maximum=0.999999, value=1e-5,
                                       digits=4, step=1e-5)
        self.budget_delta.setToolTip(TOOLTIPS["delta"])
        self.set_budget_button = QPushButton("Set budget", self)
        self.set_budget_button.setToolTip(TOOLTIPS["budget"] + " (undoable)")
        self.set_budget_button.clicked.connect(self._on_set_budget_button_clicked)
        self.clear_budget_button = QPushButton("Clear", self)
        self.clear_budget_button.setToolTip("Remove the budget of this dataset (undoable)")
        self.clear_budget_button.clicked.connect(self._on_clear_budget_button_clicked)
        self.budget_error = QLabel(self)
        self.budget_error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.budget_error.setWordWrap(True)
        self.budget_error.hide()
        form = QFormLayout()
        form.addRow("Dataset", self.budget_dataset)
        form.addRow("ε budget", self.budget_eps)
        form.addRow("δ budget", self.budget_delta)
        buttons = QHBoxLayout()
        buttons.addWidget(self.set_budget_button)
        buttons.addWidget(self.clear_budget_button)
        buttons.addStretch(1)
        self.bars_layout = QGridLayout()
        self.bars_layout.setColumnStretch(1, 1)
        self.bars: dict[str, QProgressBar] = {}
        self.no_budget_label = QLabel("No budgets set. A budget caps what the project may "
                                      "release about a dataset; a release past it asks "
                                      "first.", self)
        self.no_budget_label.setWordWrap(True)
        self.no_budget_label.setStyleSheet("QLabel { color: #666; }")
        budget_box = QGroupBox("Budgets (ε spent by releases vs budget)", self)
        budget_box.setToolTip(TOOLTIPS["budget"])
        bl = QVBoxLayout(budget_box)
        bl.addLayout(form)
        bl.addLayout(buttons)
        bl.addWidget(self.budget_error)
        bl.addWidget(self.no_budget_label)
        bl.addLayout(self.bars_layout)
        bl.addStretch(1)

        bottom = QSplitter(Qt.Orientation.Horizontal, self)
        bottom.addWidget(totals_box)
        bottom.addWidget(budget_box)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 2)

        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(filters)
        top_layout.addWidget(self.entries_stack, 1)
        # what was spent, and against which budget, comes first; the entries below it
        title = QLabel("<b>Privacy Ledger</b> — what each protected dataset has spent and its "
                       "budget; below, every release with its (ε, δ), the data it protects "
                       "and the adjacency assumed.", self)
        title.setWordWrap(True)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(bottom)
        self.splitter.addWidget(top)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addWidget(self.splitter)

        document.ledger_changed.connect(self.refresh)
        document.budgets_changed.connect(self.refresh)
        # other workspaces may append entries in their own commands (e.g. a planning run):
        # any undo-stack step whose ledger or budgets differ refreshes the panel too
        document.history_changed.connect(self._on_undo_stack_index_changed)
        self._signature: tuple[Any, ...] = ()
        self.refresh()

    # ------------------------------------------------------------------ state
    @property
    def ledger(self) -> PrivacyLedger:
        return self._ledger

    @property
    def problem(self) -> str:
        """Why the ledger could not be read ("" when it could; also :attr:`run_problem`)."""
        return self._problem

    def visible_entries(self) -> list[LedgerEntry]:
        return [self.proxy.data(self.proxy.index(r, 0), Qt.ItemDataRole.UserRole)
                for r in range(self.proxy.rowCount())]

    def set_filters(self, *, dataset: str | None = None, mechanism: str | None = None,
                    mode: str | None = None) -> None:
        """Choose the filters (None: all); unknown values raise ValueError."""
        for combo, value in ((self.dataset_combo, dataset), (self.mechanism_combo, mechanism)):
            i = combo.findData(value) if value is not None else 0
            if i < 0:
                raise ValueError(f"no such filter value {value!r}")
            combo.setCurrentIndex(i)
        i = self.mode_combo.findData(mode)
        if i < 0:
            raise ValueError(f"no such mode {mode!r}")
        self.mode_combo.setCurrentIndex(i)

    # ------------------------------------------------------------------ refresh
    def _ledger_signature(self) -> tuple[Any, ...]:
        p = self._document.project
        last = p.ledger[-1] if p.ledger else None
        return (id(p), len(p.ledger), repr(last), repr(sorted(p.budgets.items())))

    def refresh(self) -> None:
        self._signature = self._ledger_signature()
        try:
            self._ledger = project_ledger(self._document)
            self._problem = ""
        except (InputError, TypeError, ValueError) as exc:
            self._ledger = PrivacyLedger()
            self._problem = str(exc)
            self.message_logged.emit("ERROR", f"{self.log_name}: {exc}")
        self.model.set_entries(self._ledger.entries)
        self._fill_combo(self.dataset_combo, self._ledger.datasets())
        self._fill_combo(self.mechanism_combo, self._ledger.mechanisms())
        budget_sets = sorted(set(self._ledger.datasets()) | {
            f"mdp:{e.id}" for e in self._document.project.mdps})
        current = self.budget_dataset.currentText()
        self.budget_dataset.blockSignals(True)
        self.budget_dataset.clear()
        self.budget_dataset.addItems(budget_sets)
        if current:
            self.budget_dataset.setCurrentText(current)
        self.budget_dataset.blockSignals(False)
        self._on_budget_dataset_changed(self.budget_dataset.currentText())
        self._apply_filters()
        self._fill_totals()
        self._fill_bars()
        if self._problem:
            self.empty_label.setText(f"<h3>The ledger could not be read</h3><p>{self._problem}"
                                     "</p>")
        else:
            self.empty_label.setText(EMPTY_TEXT)
        self.entries_stack.setCurrentWidget(self.table if self._ledger.entries
                                            else self.empty_label)
        self.export_button.setEnabled(bool(self._ledger.entries))
        self.refreshed.emit()

    def _fill_combo(self, combo: QComboBox, values: list[str]) -> None:
        keep = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(ALL, None)
        for v in values:
            combo.addItem(v, v)
        i = combo.findData(keep) if keep is not None else 0
        combo.setCurrentIndex(max(i, 0))
        combo.blockSignals(False)

    def _apply_filters(self) -> None:
        self.proxy.set_filters(dataset=self.dataset_combo.currentData(),
                               mechanism=self.mechanism_combo.currentData(),
                               mode=self.mode_combo.currentData())
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count_label.setText(f"{shown} of {total} entries" if shown != total
                                 else f"{total} entr{'y' if total == 1 else 'ies'}")
        self.table.resizeColumnsToContents()
        for col in (COLUMNS.index("released"), COLUMNS.index("adjacency")):
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), 360))

    def _fill_totals(self) -> None:
        from core.report import ledger_totals

        table, assumptions = ledger_totals(self._ledger)
        ds = self.dataset_combo.currentData()
        rows = [r for r in table.rows if ds is None or r[0] == ds]
        self.totals.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                if j in (3, 4, 5, 6):
                    key = ("basic", "PLD", "advanced", "zCDP")[j - 3]
                    item.setToolTip(dict(assumptions).get(key, TOOLTIPS[key]))
                if text == "not applicable":
                    item.setForeground(QColor("#888888"))
                if "EXCEEDED" in text:
                    item.setForeground(QColor(ERROR_COLOUR))
                if row[1].startswith("seeded"):
                    item.setForeground(QColor("#666666"))
                if "unbounded" in text:
                    item.setForeground(QColor(ERROR_COLOUR))
                    item.setToolTip(UNBOUNDED_TIP)
                self.totals.setItem(i, j, item)
        self.reasons_view.set_entries(self._ledger.select(ds))
        # one line; each accountant's assumption on hover (a paragraph pushed the totals off)
        self.assumption_label.setText("Accountants: " + ", ".join(k for k, _ in assumptions)
                                      + " — hover a column or here for the assumptions"
                                      if assumptions else "")
        self.assumption_label.setToolTip("\n\n".join(f"{k}: {v}" for k, v in assumptions))

    def _fill_bars(self) -> None:
        while self.bars_layout.count():
            item = self.bars_layout.takeAt(0)
            assert item is not None  # count() > 0
            widget = item.widget()
            if widget is not None:
                widget.deleteLater()
        self.bars = {}
        budgets = self._ledger.budgets
        modes = release_modes(self._ledger.entries)
        self.no_budget_label.setVisible(not budgets)
        for row, (ds, (be, bd)) in enumerate(sorted(budgets.items())):
            te, td = self._ledger.spent(ds)
            bar = QProgressBar(self)
            bar.setRange(0, 1000)
            frac = te / be if be > 0 else 1.0
            bar.setValue(int(round(1000 * min(1.0, frac))))
            share = "exceeded" if math.isinf(frac) else f"{100 * frac:.0f} %"
            bar.setFormat(f"ε {_num(te)} of {_num(be)} ({share}), "
                          f"δ {_num(td, 3)} of {_num(bd, 3)}")
            over = bool(self._ledger.would_exceed(ds, 0.0, 0.0))
            colour = ERROR_COLOUR if over else (PRIVATE_ACCENT if frac > 0.8
                                                else OKABE_ITO["blue"])
            bar.setStyleSheet(f"QProgressBar::chunk {{ background: {colour}; }} "
                              "QProgressBar { text-align: center; }")
            why = unbounded_reasons(self._ledger, ds, modes=modes)
            bar.setToolTip(f"{ds}: releases spent (ε {_num(te)}, δ {_num(td, 3)}) of the "
                           f"budget (ε {_num(be)}, δ {_num(bd, 3)})"
                           + (" — EXCEEDED" if over else "")
                           + ("\n\nUnbounded: " + "; ".join(why) if why else ""))
            label = QLabel(ds + (" — exceeded" if over else ""), self)
            if over:
                label.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
            self.bars_layout.addWidget(label, row, 0)
            self.bars_layout.addWidget(bar, row, 1)
            self.bars[ds] = bar

    # ------------------------------------------------------------------ CSV
    def export_csv(self, path: str) -> int:
        """Write the entries shown to ``path`` as CSV; returns the number of rows."""
        entries = self.visible_entries()
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "dataset", "mechanism", "epsilon", "delta", "count", "mode",
                        "seed", "released", "adjacency", "source", "time", "parameters",
                        "epsilon_reason"])
            for e in entries:  # an unbounded ε is the word "unbounded" and its reason
                w.writerow([e.id, e.dataset, e.mechanism,
                            "unbounded" if e.unbounded else repr(e.epsilon), repr(e.delta),
                            e.count, e.mode, "" if e.seed is None else e.seed, e.released,
                            e.adjacency, e.source, e.time,
                            dumps(e.parameters, sort_keys=True),
                            e.reason if e.unbounded else ""])
        return len(entries)

    # ------------------------------------------------------------------ slots
    def _on_undo_stack_index_changed(self, index: int = 0) -> None:
        if self._ledger_signature() != self._signature:
            self.refresh()

    def _on_filter_changed(self, *args: object) -> None:
        self._apply_filters()
        self._fill_totals()

    def _on_export_button_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export ledger as CSV", "ledger.csv",
                                              "CSV (*.csv)")
        if not path:
            return
        try:
            n = self.export_csv(path)
        except OSError as exc:
            QMessageBox.critical(self, "Cannot export the ledger",
                                 f"{path}: {exc.strerror or exc}")
            self.message_logged.emit("ERROR", f"ledger CSV export to {path}: {exc}")
            return
        self.message_logged.emit("INFO", f"ledger: {n} entries exported to {path}")

    def _on_budget_dataset_changed(self, text: str) -> None:
        b = self._ledger.budgets.get(text)
        self.clear_budget_button.setEnabled(b is not None)
        if b is not None:
            self.budget_eps.setValue(b[0])
            self.budget_delta.setValue(b[1])

    def _on_set_budget_button_clicked(self) -> None:
        ds = self.budget_dataset.currentText().strip()
        if not ds:
            self._show_budget_error("Name the dataset first (e.g. mdp:four-startups).")
            return
        try:
            set_budget(self._document, ds, (self.budget_eps.value(), self.budget_delta.value()))
        except InputError as exc:
            self._show_budget_error(str(exc))
            return
        self.budget_error.hide()
        self.message_logged.emit("INFO", f"budget of {ds} set to (ε {self.budget_eps.value():g},"
                                         f" δ {self.budget_delta.value():g})")

    def _on_clear_budget_button_clicked(self) -> None:
        ds = self.budget_dataset.currentText().strip()
        if ds in self._ledger.budgets:
            set_budget(self._document, ds, None)
            self.message_logged.emit("INFO", f"budget of {ds} cleared")

    def _show_budget_error(self, text: str) -> None:
        self.budget_error.setText(text)
        self.budget_error.show()


register_tool(ToolSpec(
    "ledger", "Privacy Ledger",
    lambda window: LedgerPanel(window.document, window.tabs),
    "Every release of the project with its (ε, δ), totals per protected dataset (basic, "
    "advanced, zCDP) and budgets.\nDouble-click to open."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document_with_ledger, run_preview

    return run_preview(lambda: LedgerPanel(example_document_with_ledger()), exec_=exec_,
                       title="Privacy Ledger", size=(1250, 780))


if __name__ == "__main__":
    preview()
