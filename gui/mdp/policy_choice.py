"""Which π̄ the MDP analysis bounds: the greedy optimum or the softmax (stochastic) policy.

A small widget of the analysis panel (:class:`gui.mdp.analysis_panel.AnalysisPanel`): the
privacy sweep and Synthesise & bound (F6) both synthesise π̄ on each private model; with
"softmax" it is the entropy-regularised policy at temperature τ
(:func:`core.mdp.stochastic.softmax_policy`), bounded by Theorems 2.4/2.6 for a stochastic
policy (:func:`core.mdp.robust.robust_bounds_stochastic`), so the sweep shows the cost of
privacy of that stochastic policy.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

__all__ = ["PolicyChoice", "POLICY_TIP"]

POLICY_TIP = ("π̄, the policy synthesised on each private model (sweep and Synthesise & "
              "bound): the greedy optimum (deterministic), or the softmax (entropy-"
              "regularised) policy at temperature τ — stochastic, π(a|s) ∝ exp(Q(s,a)/τ); "
              "small τ is close to greedy, large τ close to uniform. The bounds of a "
              "stochastic π̄ average the row bounds over its actions (Theorems 2.4/2.6).")


class PolicyChoice(QWidget):
    """Combo (greedy | softmax) and the temperature τ (enabled for softmax)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox(self)
        self.combo.addItem("greedy (deterministic)", "greedy")
        self.combo.addItem("softmax (stochastic), τ =", "softmax")
        # not as wide as its longest item: the Run-parameters page fits a laptop's dock
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(9)
        self.tau_spin = QDoubleSpinBox(self)
        self.tau_spin.setDecimals(4)
        self.tau_spin.setRange(0.0001, 1e6)  # τ > 0
        self.tau_spin.setSingleStep(0.05)
        self.tau_spin.setValue(0.1)
        self.tau_spin.setEnabled(False)
        for w in (self, self.combo, self.tau_spin):
            w.setToolTip(POLICY_TIP)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 2)
        row.addWidget(self.tau_spin, 1)
        self.combo.currentIndexChanged.connect(self._on_combo_changed)
        self.tau_spin.valueChanged.connect(self.changed)

    def label(self, parent: QWidget) -> QLabel:
        """The form's label of this row (with the same tooltip)."""
        label = QLabel("π̄", parent)
        label.setToolTip(POLICY_TIP)
        return label

    def temperature(self) -> float | None:
        """τ of the softmax π̄, or None for the greedy one."""
        return float(self.tau_spin.value()) if self.combo.currentData() == "softmax" else None

    def set_temperature(self, tau: float | None) -> None:
        """Select greedy (None) or softmax at ``tau``."""
        if tau is not None:
            self.tau_spin.setValue(float(tau))
        self.combo.setCurrentIndex(self.combo.findData("greedy" if tau is None else "softmax"))

    def _on_combo_changed(self, *args: object) -> None:
        self.tau_spin.setEnabled(self.combo.currentData() == "softmax")
        self.changed.emit()
