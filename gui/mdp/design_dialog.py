"""Analysis ▸ Design for a Target ε…: the privacy designer on the current MDP.

The user gives the target (ε, δ), the adjacency radius b and the neighbours; the worker
(:func:`core.mdp.design.design`) returns, for each declared η of a public grid, the largest
k that meets the target and the robust cost-of-privacy bound there. The dialog plots the
bound against k (one point per η, the recommendation starred), lists the frontier, and can
put the recommendation into the workspace's run parameters or record the design in the
project (an exponential selection's spend goes to the ledger in the same undo step).
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from core.mdp import DesignParameters, DesignResult, design_release, eta_label
from core.project import design_run_record
from gui.shell.bindings import (
    Binding,
    combo_binding,
    read_bindings,
    set_tooltips,
    show_bindings,
    show_fields,
)
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument, mdp_stack_key
from gui.shell.plots import add_legend, make_plot
from gui.shell.style import ERROR_COLOUR, OKABE_ITO, PRIVATE_ACCENT, pretty_message
from gui.shell.widgets import SciSpinBox
from gui.shell.workers import TaskRunner

__all__ = ["DesignDialog", "COLUMNS"]

COLUMNS = ("η (declared)", "k", "ε at δ", "cost bound")
#: the form's labels, one per binding of :meth:`DesignDialog._bindings`
LABELS = ("target ε", "target δ", "b (row radius)", "neighbours", "β (bound)", "selection",
          "selection ε")
TIPS = {
    "epsilon": "The ε the release must meet (under the chosen neighbours, at δ): smaller is "
               "more private and forces more noise (smaller k) or more mixing (larger η).",
    "delta": "The δ of the target: the slack P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ.",
    "b": "Neighbouring models may move up to b/2 probability between two next states of one "
         "row: a larger b protects bigger changes for a larger ε.",
    "adjacency": "one row: neighbours differ in one transition row; all rows: in every row "
                 "(the rows' privacy losses are composed).",
    "beta": "β of the cost-of-privacy bound: it holds with probability 1 − β.",
    "selection": "public (default): only the supports, the rewards and the grid are read, so "
                 "the choice costs no privacy. exponential: the bound on the private model "
                 "decides through the exponential mechanism, charged as its own ε.",
}


class DesignDialog(QDialog):
    """The designer on ``mdp_id`` (see the module docstring)."""

    def __init__(self, document: ProjectDocument, mdp_id: str, panel: Any = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document, self._mdp_id, self._panel = document, mdp_id, panel
        self.design_result: DesignResult | None = None
        self._params: DesignParameters | None = None  # what the last Run asked
        self.setWindowTitle(f"Design for a target ε — {document.model(mdp_id).name or mdp_id}")
        self.resize(880, 560)
        self.runner = TaskRunner(self)
        self.runner.succeeded.connect(self._on_succeeded)
        self.runner.failed.connect(self._on_failed)
        self.runner.progress_changed.connect(self._on_progress_changed)

        self.epsilon_spin = SciSpinBox(self, minimum=1e-3, maximum=1e4, value=1.0,
                                       log_step=10 ** 0.1)
        self.delta_spin = SciSpinBox(self, minimum=1e-12, maximum=0.999, value=0.05,
                                     log_step=10 ** 0.25)
        self.b_spin = SciSpinBox(self, minimum=1e-3, maximum=1.0, value=0.1, step=0.01)
        self.beta_spin = SciSpinBox(self, minimum=1e-4, maximum=0.999, value=0.05, step=0.01)
        self.adjacency_combo = QComboBox(self)
        self.adjacency_combo.addItem("one row", "one-row")
        self.adjacency_combo.addItem("all rows", "all-rows")
        self.selection_combo = QComboBox(self)
        self.selection_combo.addItem("public inputs only (free)", "public")
        self.selection_combo.addItem("exponential mechanism (spends ε)", "exponential")
        self.selection_eps_spin = SciSpinBox(self, minimum=1e-3, maximum=100.0, value=0.5)
        self.selection_eps_spin.setEnabled(False)
        self.selection_combo.currentIndexChanged.connect(
            lambda: self.selection_eps_spin.setEnabled(self._selection() == "exponential"))
        self.bindings = self._bindings()
        set_tooltips(self.bindings)
        if panel is not None:  # start from the workspace's accounting parameters
            show_bindings(self.bindings, {
                "b": float(panel.b_spin.value()), "delta": float(panel.delta_spin.value()),
                "beta": float(panel.beta_spin.value()),
                "adjacency": panel.adjacency_combo.currentData()})
        form = QFormLayout()
        for label, binding in zip(LABELS, self.bindings, strict=True):
            w = binding.widget
            assert w is not None
            if isinstance(w, SciSpinBox):  # a refused value says so under its box
                w.name = label.split(" (")[0]
                form.addRow(label, w.with_note())
            else:
                form.addRow(label, w)
        self.run_button = QPushButton("Design", self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.status = QLabel("Set the target and press Design.", self)
        self.status.setWordWrap(True)
        left = QVBoxLayout()
        left.addLayout(form)
        left.addWidget(self.run_button)
        left.addWidget(self.status)
        left.addStretch(1)

        self.plot = make_plot("Least cost of privacy that meets the target",
                              "k (Dirichlet concentration)", "cost-of-privacy bound",
                              log_x=True, log_y=False)
        self.legend = add_legend(self.plot, "top-right")
        self.points = self.plot.plot([], [], pen=None, symbol="o", symbolSize=9,
                                     symbolBrush=pg.mkBrush(OKABE_ITO["blue"]),
                                     name="largest k per η")
        self.star = self.plot.plot([], [], pen=None, symbol="star", symbolSize=16,
                                   symbolBrush=pg.mkBrush(PRIVATE_ACCENT), name="recommended")
        self.labels: list[pg.TextItem] = []
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        right = QVBoxLayout()
        right.addWidget(self.plot, 3)
        right.addWidget(self.summary)
        right.addWidget(self.table, 2)

        self.use_button = QPushButton("Use the recommendation", self)
        self.use_button.setToolTip("Put its η, k, b, δ and neighbours into the workspace's "
                                   "run parameters (F6 then privatises at that k)")
        self.use_button.clicked.connect(self.use_recommendation)
        self.record_button = QPushButton("Record in project", self)
        self.record_button.clicked.connect(self.record)
        for b in (self.use_button, self.record_button):
            b.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.record_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        body = QHBoxLayout()
        body.addLayout(left, 1)
        body.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(buttons)

    def _selection(self) -> str:
        return str(self.selection_combo.currentData())

    def _bindings(self) -> tuple[Binding, ...]:
        """Each :class:`DesignParameters` field the dialog edits, in the form's order (see
        :data:`LABELS`): the one place a widget meets its field; the checks are the core's.
        The seed is not edited here: an exponential selection draws with the workspace's."""
        def spin(name: str, box: SciSpinBox, tip: str) -> Binding:
            return Binding(name, lambda: float(box.value()), lambda v: box.setValue(float(v)),
                           box, TIPS[tip])

        return (spin("epsilon", self.epsilon_spin, "epsilon"),
                spin("delta", self.delta_spin, "delta"), spin("b", self.b_spin, "b"),
                combo_binding("adjacency", self.adjacency_combo, TIPS["adjacency"]),
                spin("beta", self.beta_spin, "beta"),
                combo_binding("selection", self.selection_combo, TIPS["selection"]),
                Binding("selection_epsilon", self._selection_epsilon,
                        self._show_selection_epsilon, self.selection_eps_spin,
                        TIPS["selection"]))

    def _selection_epsilon(self) -> float | None:
        """The selection's own ε (None for a public selection, which spends none)."""
        exp = self._selection() == "exponential"
        return float(self.selection_eps_spin.value()) if exp else None

    def _show_selection_epsilon(self, value: float | None) -> None:
        if value is not None:
            self.selection_eps_spin.setValue(float(value))

    def parameters(self) -> DesignParameters:
        """The design asked by the widgets (read through :meth:`_bindings`) and the
        workspace's seed for an exponential selection; InputError naming a refused field."""
        seed = None if self._panel is None else self._panel.seed()
        values = read_bindings(self.bindings)
        return DesignParameters(**values, seed=seed if values["selection"] == "exponential"
                                else None)

    def show_parameters(self, params: DesignParameters) -> None:
        """Show every field of ``params`` the dialog edits."""
        show_fields(self.bindings, params)

    def run(self) -> bool:
        """Start the designer in the worker."""
        if self.runner.is_running:
            return False
        mdp = self._document.mdp_entry(self._mdp_id).mdp
        try:  # the core checks every value (and names the field)
            params = self.parameters()
        except InputError as exc:
            self._on_failed(exc)
            return False
        self.status.setText("Designing…")
        self.status.setStyleSheet("")
        self.run_button.setEnabled(False)
        self._params = params
        self.runner.start(design_release, mdp, params)
        return True

    def _on_failed(self, exc: object) -> None:
        self.run_button.setEnabled(True)
        self.status.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.status.setText(pretty_message(str(exc)) if isinstance(exc, InputError)
                            else f"The designer failed: {exc}")

    def _on_progress_changed(self, fraction: float, message: str) -> None:
        self.status.setText(f"Designing… {100 * fraction:.0f} % {message}")

    def _on_succeeded(self, res: object) -> None:
        assert isinstance(res, DesignResult)
        self.design_result = res
        self.run_button.setEnabled(True)
        self.show_result(res)

    def show_result(self, res: DesignResult) -> None:
        """Fill the plot, the table and the summary from ``res``."""
        for item in self.labels:
            self.plot.removeItem(item)
        self.labels = []
        pts = res.frontier
        ks = np.array([p.k for p in pts])
        cost = np.array([p.cost_bound for p in pts])
        self.points.setData(ks, cost)
        rec = res.recommended
        self.star.setData(*(([rec.k], [rec.cost_bound]) if rec is not None else ([], [])))
        for p in pts:
            t = pg.TextItem(f"η {p.eta}", color="#444", anchor=(0.5, 1.3))
            t.setPos(math.log10(p.k), p.cost_bound)
            self.plot.addItem(t)
            self.labels.append(t)
        self.table.setRowCount(len(pts) + len(res.infeasible))
        for i, p in enumerate(pts):
            cells = (str(p.eta), f"{p.k:.4g}", f"{p.epsilon:.4g}", f"{p.cost_bound:.4g}")
            for j, text in enumerate(cells):
                item = QTableWidgetItem(("★ " if p == rec and j == 0 else "") + text)
                item.setToolTip(f"η = {eta_label(p.eta)}")
                self.table.setItem(i, j, item)
        for i, (eta, why) in enumerate(res.infeasible, start=len(pts)):
            self.table.setItem(i, 0, QTableWidgetItem(eta))
            item = QTableWidgetItem(f"infeasible: {why}")
            item.setForeground(Qt.GlobalColor.gray)
            self.table.setItem(i, 1, item)
            self.table.setSpan(i, 1, 1, len(COLUMNS) - 1)
        self.table.resizeColumnsToContents()
        if rec is None:
            self.summary.setText(f"<span style='color:{ERROR_COLOUR}'>No declared η of the grid "
                                 f"reaches ε = {res.epsilon_target:g} at δ = "
                                 f"{res.delta_target:g}: raise the target or lower b.</span>")
        else:
            how = ("chosen on public inputs only — it costs no privacy"
                   if res.selection == "public" else
                   f"chosen by the exponential mechanism — it spends ε = "
                   f"{res.selection_epsilon:g} ({res.mode})")
            self.summary.setText(
                f"<b>Recommended: η = {html.escape(eta_label(rec.eta))}, k = {rec.k:.4g}</b> "
                f"— proven ({rec.epsilon:.3g}, {rec.delta:g})-DP ({html.escape(res.adjacency)})"
                f", cost-of-privacy bound {rec.cost_bound:.4g} (β = {res.beta:g}, on the "
                f"{html.escape(res.proxy)}); {how}.")
        self.status.setText(f"{len(pts)} of {len(pts) + len(res.infeasible)} declared η meet "
                            "the target.")
        self.use_button.setEnabled(rec is not None and self._panel is not None)
        self.record_button.setEnabled(True)

    def use_recommendation(self) -> bool:
        """Put the recommendation into the workspace's run parameters."""
        res = self.design_result
        if res is None or res.recommended is None or self._panel is None:
            return False
        rec = res.recommended
        self._panel.set_parameters(eta=rec.eta, b=res.b, delta_target=res.delta_target,
                                   adjacency=res.adjacency, delta_method="auto")
        self._panel.set_bounds_k(rec.k)
        self.status.setText(f"The workspace now privatises at k = {rec.k:.4g} with η = "
                            f"{eta_label(rec.eta)} (F6).")
        return True

    def record(self) -> bool:
        """Record the design (and an exponential selection's spend) in the project."""
        if self.design_result is None or self._params is None:
            return False
        record, entries = design_run_record(self._document.project, self._mdp_id,
                                            self.design_result, self._params)
        key = mdp_stack_key(self._mdp_id)
        self._document.push(AddRunCommand(self._document, record, ledger_entries=entries,
                                          text=f"Record design {record.id}"), key)
        self._document.set_active_stack(key)
        self.status.setText(f"Recorded as {record.id}" + (
            " with its selection in the ledger." if entries else "."))
        self.record_button.setEnabled(False)
        return True

    def done(self, r: int) -> None:  # noqa: D102 (Qt override)
        self.runner.shutdown()
        super().done(r)
