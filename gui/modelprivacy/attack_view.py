"""Shows a population attack study or a canary audit in the Model privacy workspace.

:class:`AttackResults` takes the workspace's views (the summary browser, the ROC plot, the
table) and fills them from a :class:`core.modelprivacy.attacks.AttackStudy` (one ROC per
attack, pooled over the victims; a row per attack with the AUC interval over victims and the
TPR at each target FPR with its Clopper–Pearson interval or "not resolved") or a
:class:`core.modelprivacy.canary.CanaryAudit` (ε_lb beside the accountant's ε, the guesses
per k). These runs train many models and release none: they are shown, not recorded.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QTextBrowser

from gui.shell.plots import add_legend, pen
from gui.shell.style import fmt_value as _f

__all__ = ["AttackResults", "ATTACK_COLUMNS", "CANARY_COLUMNS"]

ATTACK_COLUMNS = ["Attack", "AUC (median over victims)", "95 % interval", "Accuracy",
                  "TPR @ FPR 0.1 %", "TPR @ FPR 1 %", "TPR @ FPR 10 %"]
CANARY_COLUMNS = ["k (guesses per side)", "Guesses", "Correct", "ε_lb at this k"]
_COLOURS = {"lira-online": "#d62728", "lira-offline": "#ff7f0e", "loss": "#1f77b4",
            "shadow": "#2ca02c"}


def _tpr_cell(t: dict[str, Any]) -> str:
    if not t["resolved"]:
        return "not resolved"
    return f"{t['tpr']:.4f} [{t['tpr_lo']:.4f}, {t['tpr_hi']:.4f}]"


class AttackResults:
    """Fills the workspace's summary, ROC plot and table (module docstring)."""

    def __init__(self, summary: QTextBrowser, roc_plot: Any, table: QTableWidget) -> None:
        self.summary, self.roc_plot, self.table = summary, roc_plot, table
        self._legend: Any = None
        self.shown: dict[str, Any] | None = None

    def show(self, result: Any) -> None:
        """Show an AttackStudy or a CanaryAudit."""
        self.shown = result.to_json()
        if hasattr(result, "attacks"):
            self._show_study(result)
        else:
            self._show_canary(result)

    def _fill(self, columns: list[str], rows: list[list[str]]) -> None:
        self.table.clear()
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(columns)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()

    def _roc(self, curves: dict[str, list[tuple[float, float]]]) -> None:
        p = self.roc_plot
        if self._legend is None:
            self._legend = add_legend(p, "bottom-right")
        self._legend.clear()
        p.clear()
        p.plot([0, 1], [0, 1], pen=pen("#999999", dotted=True, width=1))
        for name, roc in curves.items():
            a = np.asarray(roc, dtype=float)
            if a.size:
                p.plot(a[:, 0], a[:, 1], pen=pen(_COLOURS.get(name, "#444444")), name=name)
        p.setRange(xRange=(0, 1), yRange=(0, 1))

    def _show_study(self, r: Any) -> None:
        rows = []
        for name, m in r.attacks.items():
            tpr = {t["fpr_target"]: t for t in m.tpr}
            rows.append([name, _f(m.auc.median), f"[{_f(m.auc.median_lo)}, "
                         f"{_f(m.auc.median_hi)}]", _f(m.accuracy.median)]
                        + [_tpr_cell(tpr[a]) if a in tpr else "—" for a in (0.001, 0.01, 0.1)])
        self._fill(ATTACK_COLUMNS, rows)
        self._roc({k: m.roc for k, m in r.attacks.items()})
        eps = ("unbounded (no DP defense)" if r.privacy is None
               else f"{r.privacy[0]:.4g} (δ = {r.privacy[1]:g}); accuracy cap "
                    f"{r.accuracy_cap:.3f}")
        mode = "seeded experiment (seed %d)" % r.seed if r.seeded else \
            f"release mode (fresh seed {r.seed}, recorded here)"
        self.summary.setHtml(
            f"<h3>Membership inference, population study — {html.escape(r.kind['name'])} on "
            f"{html.escape(r.data)}</h3>"
            f"<p>{r.models} victims, each on a random half ({r.train_size} records) of "
            f"{2 * r.train_size}; the other victims are its reference models. Train accuracy "
            f"{_f(r.train_accuracy.median)}, test {_f(r.test_accuracy.median)}, "
            f"generalisation gap {_f(r.generalisation_gap.median)} (medians).</p>"
            f"<p><b>ε</b>: {eps}. {html.escape(r.guarantee)}</p>"
            f"<p>TPR at a target FPR is shown only where the pooled non-members "
            f"({r.models * r.train_size:,}) allow one false positive. Randomness: {mode}. "
            "Not recorded: the study trains many models and releases none.</p>")

    def _show_canary(self, a: Any) -> None:
        self._fill(CANARY_COLUMNS, [[str(row["k"]), str(row["guesses"]), str(row["correct"]),
                                     _f(row["epsilon_lb"])] for row in a.per_k])
        self._roc({})
        acc = ("unbounded (no DP defense)" if a.epsilon is None
               else f"{a.epsilon:.4g} (δ = {a.delta:g})")
        self.summary.setHtml(
            f"<h3>Canary audit — {html.escape(a.kind.get('name', ''))} on "
            f"{html.escape(a.data)}</h3>"
            f"<p>{a.canaries} canaries (mislabelled records), {a.inserted} inserted at random "
            f"beside {a.members} members; one training run.</p>"
            f"<p><b>ε_lb = {_f(a.epsilon_lb)}</b> (95 %; {a.correct} of {a.guesses} guesses "
            f"right) beside the accountant's <b>ε = {acc}</b>. A correct DP implementation "
            "has ε_lb ≤ ε; one-run audits are loose, so a small ε_lb is no proof of a small "
            "leak.</p><p>Not recorded: the audit releases nothing.</p>")
