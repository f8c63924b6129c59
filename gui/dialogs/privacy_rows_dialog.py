"""Per-row (ε, δ) of a recorded sweep, for one k: every transition row, with or without a
guarantee, and why not.

A run record keeps only the composed (ε, δ) per k (small); the per-row details are
recomputed here from :func:`core.privacy.mdp_accounting.mdp_privacy` with the run's
parameters (b, δ̂, adjacency, zero handling), in a worker. If the recomputed composition
differs from the recorded one, the model changed since the run, and the dialog says so.
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.privacy.mdp_accounting import ADJACENCY_TEXT, MdpPrivacy, mdp_privacy
from core.project import RunRecord
from gui.document import ProjectDocument
from gui.style import ERROR_COLOUR, pretty_message
from gui.workers import TaskRunner

__all__ = ["PrivacyRowsDialog", "ROW_COLUMNS", "NO_GUARANTEE_BRUSH"]

ROW_COLUMNS = ("state", "action", "next states", "|W|", "η", "η̄", "ε", "δ", "δ method", "γ*",
               "notes")
NO_GUARANTEE_BRUSH = QBrush(QColor("#FDECE6"))


def _compute(mdp: Any, k: float, *, b: float, delta_target: float, adjacency: str,
             zeros: str, progress: Any = None) -> MdpPrivacy:
    if progress is not None:
        progress(0.0, f"k = {k:g}")
    return mdp_privacy(mdp, k, b=b, delta_target=delta_target, adjacency=adjacency,
                       zeros=zeros)


def _num(x: float, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


class PrivacyRowsDialog(QDialog):
    """A table of the per-row (ε, δ) of ``run_id`` at its ``k_index``-th k."""

    def __init__(self, document: ProjectDocument, run_id: str, k_index: int = 0,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._record: RunRecord = document.run(run_id)
        s = self._record.summary
        self._ks = [float(k) for k in s["k"]]
        self.setWindowTitle(f"Per-row privacy — {run_id} on {self._record.target}")
        self.resize(920, 520)
        self._runner = TaskRunner(self)
        self.result: MdpPrivacy | None = None

        self.k_combo = QComboBox(self)
        for k in self._ks:
            self.k_combo.addItem(f"k = {k:g}", k)
        self.k_combo.setCurrentIndex(max(0, min(k_index, len(self._ks) - 1)))
        adjacency = str(s.get("adjacency", "one-row"))
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.assumption = QLabel(
            f"b = {s.get('b', 0.1):g} and target δ = {s.get('delta_target', 0.05):g} for every "
            f"row; neighbours: {ADJACENCY_TEXT.get(adjacency, adjacency)}. Each row's η is its "
            "smallest entry in W and η̄ its last entry. Rows shaded red have no guarantee; the "
            "notes say why.", self)
        self.assumption.setTextFormat(Qt.TextFormat.PlainText)
        self.assumption.setWordWrap(True)
        self.assumption.setStyleSheet("color: #555;")
        self.status = QLabel("Computing…", self)
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(ROW_COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(ROW_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        for col in range(len(ROW_COLUMNS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(ROW_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(QLabel("Concentration:", self))
        top.addWidget(self.k_combo)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.header)
        layout.addWidget(self.assumption)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self.k_combo.currentIndexChanged.connect(self._on_k_combo_changed)
        self._on_k_combo_changed()

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def k(self) -> float:
        return float(self.k_combo.currentData())

    def done(self, result: int) -> None:  # noqa: D401 (Qt override)
        self._runner.shutdown()
        super().done(result)

    # ------------------------------------------------------------------ slots
    def _on_k_combo_changed(self, *args: object) -> None:
        s = self._record.summary
        i = self.k_combo.currentIndex()
        statements = s.get("privacy_statement") or []
        self.header.setText(f"<b>{html.escape(statements[i])}.</b>" if i < len(statements)
                            else f"<b>k = {self.k:g}</b> (this run recorded no privacy "
                                 "statement; recomputed below)")
        if not self._document.has_mdp(self._record.target):
            self.status.setText(f"<span style='color:{ERROR_COLOUR}'>The model "
                                f"{html.escape(self._record.target)} is no longer in the "
                                "project: the rows cannot be recomputed.</span>")
            return
        if not self._document.is_valid(self._record.target):
            problem = self._document.errors(self._record.target)[0].message
            self.status.setText(f"<span style='color:{ERROR_COLOUR}'>The model is not valid "
                                f"right now ({html.escape(problem)}): the rows cannot be "
                                "recomputed until it is fixed.</span>")
            return
        mdp = self._document.mdp_entry(self._record.target).mdp  # frozen snapshot
        self.status.setText("Computing…")
        self.table.setRowCount(0)
        self._runner.start(_compute, mdp, self.k, b=float(s.get("b", 0.1)),
                           delta_target=float(s.get("delta_target", 0.05)),
                           adjacency=str(s.get("adjacency", "one-row")),
                           zeros=str(s.get("zeros", "support")))

    def _on_runner_succeeded(self, result: object) -> None:
        assert isinstance(result, MdpPrivacy)
        self.result = result
        self._fill(result)
        s = self._record.summary
        i = self.k_combo.currentIndex()
        n_out = len(result.not_applicable)
        text = (f"{len(result.rows)} rows; {n_out} without a guarantee. Composed: "
                f"({_num(result.epsilon)}, {_num(result.delta, 3)})-DP.")
        eps = s.get("epsilon") or []
        if i < len(eps) and not _same(float(eps[i]), result.epsilon):
            text += (f" <span style='color:{ERROR_COLOUR}'>The recorded ε was "
                     f"{_num(float(eps[i]))}: the model changed since this run, so these rows "
                     "describe the current model.</span>")
        self.status.setText(text)

    def _on_runner_failed(self, exc: object) -> None:
        self.status.setText(f"<span style='color:{ERROR_COLOUR}'>Cannot compute the rows: "
                            f"{html.escape(str(exc))}</span>")

    # ------------------------------------------------------------------ table
    def _fill(self, result: MdpPrivacy) -> None:
        self.table.setRowCount(len(result.rows))
        for i, row in enumerate(result.rows):
            r = row.result
            notes = pretty_message(row.reason if r is None else "; ".join(r.warnings))
            cells = [row.state, row.action, str(row.support), str(row.w), _num(row.eta),
                     _num(row.eta_bar),
                     "no guarantee" if r is None else _num(r.epsilon),
                     "–" if r is None else _num(r.delta, 3),
                     "–" if r is None else r.delta_method,
                     "–" if r is None else _num(r.gamma), notes]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if 2 <= col <= 9:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if r is None:
                    item.setBackground(NO_GUARANTEE_BRUSH)
                if col == len(cells) - 1 or r is None:
                    item.setToolTip(notes or "")
                self.table.setItem(i, col, item)


def _same(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def preview(exec_: bool = True) -> QWidget:
    from core.experiments import privacy_sweep
    from gui.commands import AddRunCommand
    from gui.panels.analysis_panel import run_summary
    from gui.preview import example_document, run_preview

    def build() -> QWidget:
        doc = example_document()
        mdp = doc.mdp_entry("example-2").mdp
        result = privacy_sweep(mdp, [10, 100], runs=2, seed=7, workers=1)
        record = RunRecord(id=doc.project.new_run_id(), kind="sweep", target="example-2",
                           params={"seeded": True, "seed": 7}, summary=run_summary(result),
                           mode=result.mode, seed=result.seed)
        doc.push(AddRunCommand(doc, record))
        return PrivacyRowsDialog(doc, record.id, 0)

    return run_preview(build, exec_=exec_, title="Per-row privacy", size=(920, 520))


if __name__ == "__main__":
    preview()
