"""Which π̄ the MDP analysis bounds: the greedy optimum (by induction or the LP), the softmax
policy, or a given file.

A small widget of the analysis panel (:class:`gui.mdp.analysis_panel.AnalysisPanel`): the
privacy sweep and Synthesise & bound (F6) both synthesise π̄ on each private model; with
"softmax" it is the entropy-regularised policy at temperature τ
(:func:`core.mdp.stochastic.softmax_policy`), bounded by Theorems 2.4/2.6 for a stochastic
policy (:func:`core.mdp.robust.robust_bounds_stochastic`), so the sweep shows the cost of
privacy of that stochastic policy.

"optimum by the LP" (Synthesise & bound only) synthesises the greedy π̄ on the private
model with the occupancy-measure LP (HiGHS, :func:`core.mdp.lp_synthesis.synthesize_lp`)
instead of backward induction; the status line says how far their values agree.

"from a file" bounds a *given* policy instead (Synthesise & bound only: the sweep
synthesises π̄ on every private model): a JSON file ``{"policy": π}`` with π(a|s) of shape
(T, S, A) or (S, A), rows summing to 1, actions in the model's order — the file
``bounds --policy FILE`` reads and ``synthesise -o`` writes. The file is read and checked
against the model in this widget's own worker (:func:`core.mdp.stochastic.load_policy`);
a bad file is refused with a dialog naming the file and the problem, and the choice goes
back to what it was (nothing in the document changes).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGridLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from core.common import InputError
from gui.shell.workers import TaskRunner

__all__ = ["PolicyChoice", "POLICY_TIP", "load_policy_job"]

POLICY_TIP = ("π̄, the policy synthesised on each private model (sweep and Synthesise & "
              "bound): the greedy optimum (deterministic), or the softmax (entropy-"
              "regularised) policy at temperature τ — stochastic, π(a|s) ∝ exp(Q(s,a)/τ); "
              "small τ is close to greedy, large τ close to uniform. The bounds of a "
              "stochastic π̄ average the row bounds over its actions (Theorems 2.4/2.6).\n"
              "Optimum by the LP: Synthesise & bound (F6) synthesises the greedy π̄ on the "
              "private model with the occupancy-measure LP (HiGHS) instead of induction, and "
              "reports how far the two agree.\n"
              "From a file: Synthesise & bound (F6) bounds a given policy, a JSON file "
              "{\"policy\": π(a|s)} of shape (T, S, A) or (S, A) — the file of "
              "'bounds --policy' and 'synthesise -o'. Its bounds carry the release's "
              "guarantee only if the file was made without the true data.")


def load_policy_job(path: str, mdp: Any, *, progress: Callable[[float, str], None]) -> Any:
    """Read and check a policy file for ``mdp`` (runs in the worker)."""
    from core.mdp.stochastic import load_policy

    progress(0.0, f"reading {os.path.basename(path)}")
    return load_policy(path, mdp)


class PolicyChoice(QWidget):
    """Combo (greedy | softmax | file), the temperature τ and the policy file."""

    changed = Signal()
    loaded = Signal(str)  # path of a policy file that was read and checked
    load_failed = Signal(str)  # the dialog's text

    def __init__(self, parent: QWidget | None = None, *,
                 mdp: Callable[[], Any] | None = None) -> None:
        super().__init__(parent)
        self._mdp = mdp  # the model a file is checked against (None: no file choice)
        self._runner = TaskRunner(self)
        self._previous = 0
        self._loading = ""
        self.table: Any = None  # the loaded π(a|s) (read-only array)
        self.path = ""
        self.combo = QComboBox(self)
        self.combo.addItem("greedy (deterministic)", "greedy")
        self.combo.addItem("softmax (stochastic), τ =", "softmax")
        if mdp is not None:
            self.combo.addItem("optimum by the LP (F6 only)", "lp")
            self.combo.addItem("from a file (F6 only)…", "table")
        # not as wide as its longest item (elided): the Run-parameters page fits a laptop's dock
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(9)
        self.tau_spin = QDoubleSpinBox(self)
        self.tau_spin.setDecimals(4)
        self.tau_spin.setRange(0.0001, 1e6)  # τ > 0
        self.tau_spin.setSingleStep(0.05)
        self.tau_spin.setValue(0.1)
        self.tau_spin.setEnabled(False)
        self.load_button = QPushButton("Load…", self)
        self.load_button.setToolTip("Choose the policy file (JSON {\"policy\": π(a|s)}).")
        self.file_label = QLabel(self)
        self.file_label.setStyleSheet("color: #555;")
        # a long file name is cut (its full path is in the tooltip), never widens the dock
        self.file_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                      QSizePolicy.Policy.Preferred)
        for w in (self, self.combo, self.tau_spin):
            w.setToolTip(POLICY_TIP)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.combo, 0, 0)
        grid.addWidget(self.tau_spin, 0, 1)
        grid.addWidget(self.file_label, 1, 0)
        grid.addWidget(self.load_button, 1, 1)
        grid.setColumnStretch(0, 2)
        grid.setColumnStretch(1, 1)
        self.combo.currentIndexChanged.connect(self._on_combo_changed)
        self.tau_spin.valueChanged.connect(self.changed)
        self.load_button.clicked.connect(self.choose_file)
        self._runner.succeeded.connect(self._on_loaded)
        self._runner.failed.connect(self._on_load_failed)
        self._on_combo_changed()

    def label(self, parent: QWidget) -> QLabel:
        """The form's label of this row (with the same tooltip)."""
        label = QLabel("π̄", parent)
        label.setToolTip(POLICY_TIP)
        return label

    @property
    def runner(self) -> TaskRunner:
        """The worker that reads policy files."""
        return self._runner

    def source(self) -> str:
        """``greedy``, ``softmax``, ``lp`` (the greedy optimum by the LP) or ``table`` (a
        given file)."""
        return str(self.combo.currentData())

    def temperature(self) -> float | None:
        """τ of the softmax π̄, or None for the greedy one."""
        return float(self.tau_spin.value()) if self.source() == "softmax" else None

    def set_temperature(self, tau: float | None) -> None:
        """Select greedy (None) or softmax at ``tau``."""
        if tau is not None:
            self.tau_spin.setValue(float(tau))
        self.combo.setCurrentIndex(self.combo.findData("greedy" if tau is None else "softmax"))

    def sweep_kwargs(self) -> dict[str, Any]:
        """The π̄ keywords of :class:`core.mdp.records.SweepParameters` (InputError for the
        choices only Synthesise & bound takes)."""
        src = self.source()
        if src in ("table", "lp"):
            raise InputError(("a given policy" if src == "table" else "the LP synthesis")
                             + " is for Synthesise & bound (F6); the sweep synthesises the "
                             "greedy or softmax π̄ on every private model", field="policy")
        tau = self.temperature()
        return {} if tau is None else {"policy_source": "softmax", "temperature": tau}

    def bounds_kwargs(self) -> dict[str, Any]:
        """The π̄ keywords of :class:`core.mdp.records.BoundsParameters` (``temperature``,
        ``policy_table`` checked against the model as it is now, ``synthesis``; InputError
        as :meth:`table_for`)."""
        table = None
        if self.source() == "table" and self._mdp is not None:
            table = self.table_for(self._mdp())
        return {"temperature": self.temperature(), "policy_table": table,
                "synthesis": "lp" if self.source() == "lp" else "induction"}

    def table_for(self, mdp: Any) -> Any:
        """The loaded table checked against ``mdp`` (None unless "from a file").

        Raises
        ------
        InputError
            No file loaded yet, or the model changed so that the file no longer fits it
            (naming the file and the problem).
        """
        if self.source() != "table":
            return None
        if self.table is None:
            raise InputError("load a policy file first (π̄ ▸ from a file ▸ Load…)",
                             field="policy")
        from core.mdp.stochastic import check_policy_table

        try:
            return check_policy_table(mdp, self.table)
        except InputError as exc:
            raise InputError(exc.problem, field=exc.field, file=self.path) from None

    def choose_file(self) -> None:
        """Ask for a policy file and read it in the worker."""
        path, _ = QFileDialog.getOpenFileName(self, "Load a policy file", "",
                                              "Policy (*.json);;All files (*)")
        if path:
            self.load_file(path)
        elif self.table is None:
            self._restore()

    def load_file(self, path: str) -> None:
        """Read ``path`` and check it against the model in the worker (signals ``loaded``
        or ``load_failed``; a failure also shows a dialog)."""
        if self._mdp is None:
            return
        self._loading = path
        try:
            mdp = self._mdp()  # (the model as it is now: refused while it is not valid)
        except (InputError, KeyError) as exc:
            self._on_load_failed(InputError(f"the model is not valid, so no policy can be "
                                            f"checked against it: {exc}", file=path))
            return
        self.file_label.setText(f"reading {os.path.basename(path)}…")
        self._runner.start(load_policy_job, path, mdp)

    def _on_loaded(self, table: Any) -> None:
        self.table, self.path = table, self._loading
        self.combo.setCurrentIndex(self.combo.findData("table"))
        kind = "stochastic" if ((table > 0).sum(axis=-1) > 1).any() else "deterministic"
        self.file_label.setText(f"{os.path.basename(self.path)} ({kind})")
        self.file_label.setToolTip(
            f"{self.path}\nπ(a|s) of shape {' × '.join(map(str, table.shape))}, {kind}. Its "
            "bounds carry the release's guarantee only if the file was made without the "
            "true data.")
        self.changed.emit()
        self.loaded.emit(self.path)

    def _on_load_failed(self, exc: object) -> None:
        from gui.shell.widgets import open_failure_text

        text = open_failure_text(exc if isinstance(exc, BaseException) else
                                 RuntimeError(str(exc)), self._loading)
        self._show_file()
        if self.table is None:
            self._restore()
        self.load_failed.emit(text)
        QMessageBox.warning(self, "Cannot use this policy file", text)

    def _restore(self) -> None:
        """Back to the choice before "from a file" (no file is loaded)."""
        self.combo.setCurrentIndex(self._previous if self.combo.itemData(self._previous)
                                   != "table" else 0)

    def _show_file(self) -> None:
        self.file_label.setText(os.path.basename(self.path) if self.table is not None else "")

    def _on_combo_changed(self, *args: object) -> None:
        src = self.source()
        self.tau_spin.setEnabled(src == "softmax")
        is_file = src == "table"
        self.load_button.setVisible(is_file)
        self.file_label.setVisible(is_file)
        if is_file and self.table is None and not self._runner.is_running and args:
            self.choose_file()  # picked by the user: ask for the file at once
        elif not is_file:
            self._previous = self.combo.currentIndex()
        self.changed.emit()
