"""Per-row (ε, δ) of a recorded sweep, for one k: every transition row, with or without a
guarantee, and why not.

A run record keeps only the composed (ε, δ) per k (small); the per-row details are
recomputed here from :func:`core.mdp.accounting.mdp_privacy` with the run's
public parameters (η, domain rule, b, δ̂, adjacency, zero handling), in a worker. A row's
(ε, δ) is a function of those and of its number of possible next states only (public under
the adjacency): no probability of the model enters a number shown here. If the recomputed
composition differs from the recorded one, the model (its supports) changed since the run,
and the dialog says so. Runs recorded before η was declared privatised their rows as they
were: they are recomputed with the default η under the rule 'refuse' (not today's default
'mix', whose smaller radius they never had), and the dialog says that too.
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

from core.mdp import (
    DEFAULT_DOMAIN_RULE,
    DEFAULT_ETA,
    ETA_CAP,
    MdpPrivacy,
    adjacency_text,
    eta_label,
    mdp_privacy,
    parse_eta,
)
from core.project import RunRecord
from gui.shell.document import ProjectDocument
from gui.shell.style import ERROR_COLOUR, pretty_message
from gui.shell.workers import TaskRunner

__all__ = ["PrivacyRowsDialog", "ROW_COLUMNS", "NO_GUARANTEE_BRUSH"]

ROW_COLUMNS = ("state", "action", "next states", "radius b′", "ε", "δ", "δ method", "γ*",
               "notes")
_NUMERIC = range(2, 8)
NO_GUARANTEE_BRUSH = QBrush(QColor("#FDECE6"))


def _compute(mdp: Any, k: float, *, b: float, delta_target: float, adjacency: str,
             zeros: str, eta: "float | str" = DEFAULT_ETA,
             domain_rule: str = DEFAULT_DOMAIN_RULE, delta_method: str = "auto",
             progress: Any = None) -> MdpPrivacy:
    if progress is not None:
        progress(0.0, f"k = {k:g}")
    return mdp_privacy(mdp, k, b=b, delta_target=delta_target, adjacency=adjacency,
                       zeros=zeros, eta=eta, domain_rule=domain_rule, delta_method=delta_method)


def _run_parameters(s: dict[str, Any]) -> dict[str, Any]:
    """The public parameters a sweep summary recorded (today's defaults where absent).

    A run recorded before η was declared privatised its rows as they were (no mixing), so
    its rows are described with the then default η = 0.001 under the rule 'refuse', never
    'mix': mix's smaller radius (1 − n·η)·b would credit those runs with a contraction they
    never had. A run recorded before the exact profile (no ``accountant`` in its summary)
    was stated with the union bound, and is described so.
    """
    older = s.get("eta") is None
    return {"b": float(s.get("b", 0.1)), "delta_target": float(s.get("delta_target", 0.05)),
            "adjacency": str(s.get("adjacency", "one-row")),
            "zeros": str(s.get("zeros", "support")),
            "eta": ETA_CAP if older else parse_eta(s["eta"]),
            "domain_rule": "refuse" if older else str(s.get("domain_rule")
                                                      or DEFAULT_DOMAIN_RULE),
            "delta_method": str(s.get("delta_method", "auto")) if "accountant" in s
            else "union"}


def _num(x: float | None, digits: int = 4) -> str:
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
        self.privacy_result: MdpPrivacy | None = None

        self.k_combo = QComboBox(self)
        for k in self._ks:
            self.k_combo.addItem(f"k = {k:g}", k)
        self.k_combo.setCurrentIndex(max(0, min(k_index, len(self._ks) - 1)))
        p = _run_parameters(s)
        self._params = p
        self.header = QLabel(self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        older = ("" if s.get("eta") is not None else
                 " This run was recorded before η was declared and privatised its rows as "
                 f"they were: they are recomputed with the then default η = {ETA_CAP:g} under "
                 "the rule ‘refuse’: a row below η is named as an error, not given a guarantee.")
        self.assumption = QLabel(
            f"Public parameters: η = {eta_label(p['eta'])} (domain rule ‘{p['domain_rule']}’), "
            "b = "
            f"{p['b']:g} and target δ = {p['delta_target']:g} for every row; neighbours: "
            f"{adjacency_text(p['adjacency'], p['domain_rule'])}. A row's (ε, δ) depends only "
            "on these and its number of possible next states (radius b′ = b × the public "
            "contraction of the domain rule or smoothing) — never on its probabilities. Rows "
            "shaded red have no guarantee, which makes the release's ε unbounded; the notes "
            f"say why.{older}", self)
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
        self._runner.start(_compute, mdp, self.k, **self._params)

    def _on_runner_succeeded(self, result: object) -> None:
        assert isinstance(result, MdpPrivacy)
        self.privacy_result = result
        self._fill(result)
        s = self._record.summary
        i = self.k_combo.currentIndex()
        n_out = len(result.not_applicable)
        composed = (f"({_num(result.epsilon)}, {_num(result.delta, 3)})-DP" if result.bounded
                    else "unbounded (no finite guarantee)")
        text = f"{len(result.rows)} rows; {n_out} without a guarantee. Composed: {composed}."
        eps = s.get("epsilon") or []
        recorded = (math.inf if i < len(eps) and eps[i] is None else
                    float(eps[i]) if i < len(eps) else None)
        if recorded is not None and s.get("eta") is not None \
                and not _same(recorded, result.epsilon):
            text += (f" <span style='color:{ERROR_COLOUR}'>The recorded ε was "
                     f"{_num(recorded) if math.isfinite(recorded) else 'unbounded'}: the "
                     "model changed since this run, so these rows describe the current "
                     "model.</span>")
        self.status.setText(text)

    def _on_runner_failed(self, exc: object) -> None:
        self.status.setText(f"<span style='color:{ERROR_COLOUR}'>Cannot compute the rows: "
                            f"{html.escape(str(exc))}</span>")

    # ------------------------------------------------------------------ table
    def _fill(self, result: MdpPrivacy) -> None:
        self.table.setRowCount(len(result.rows))
        for i, row in enumerate(result.rows):
            r = row.result
            ok = row.applicable
            if not ok:
                notes = pretty_message(row.reason)
            elif r is None:  # one possible next state
                notes = pretty_message(row.reason)
            else:
                notes = pretty_message("; ".join(r.warnings))
            if row.smoothed:
                notes = ("zeros smoothed; " + notes) if notes else "zeros smoothed"
            cells = [row.state, row.action, str(row.support), _num(row.guarantee.b),
                     "no guarantee" if not ok else _num(row.epsilon),
                     "–" if not ok else _num(row.delta, 3),
                     "–" if r is None else r.delta_method,
                     "–" if r is None else _num(r.gamma), notes]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col in _NUMERIC:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if not ok:
                    item.setBackground(NO_GUARANTEE_BRUSH)
                if col == len(cells) - 1 or not ok:
                    item.setToolTip(notes or "")
                self.table.setItem(i, col, item)


def _same(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def preview(exec_: bool = True) -> QWidget:
    from core.mdp import privacy_sweep, sweep_summary
    from gui.shell.commands import AddRunCommand
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        doc = example_document()
        mdp = doc.mdp_entry("example-2").mdp
        result = privacy_sweep(mdp, [10, 100], runs=2, seed=7, workers=1)
        record = RunRecord(id=doc.project.new_run_id(), kind="sweep", target="example-2",
                           params={"seeded": True, "seed": 7}, summary=sweep_summary(result),
                           mode=result.mode, seed=result.seed)
        doc.push(AddRunCommand(doc, record))
        return PrivacyRowsDialog(doc, record.id, 0)

    return run_preview(build, exec_=exec_, title="Per-row privacy", size=(920, 520))


if __name__ == "__main__":
    preview()
