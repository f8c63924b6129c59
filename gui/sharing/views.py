"""What the parts of the Policy sharing workspace are given: widget bundles and callables.

The panel (:class:`gui.sharing.panel.SharingPanel`) builds the widgets and hands each part
only the ones it reads or writes, as a frozen bundle, with callables for what it asks of the
panel — the parts never see the panel.

* :class:`PlotWidgets` — the plots, labels and ledger table a study is drawn into (for
  :class:`gui.sharing.drawing.SharingPlots`).
* :class:`SetupFields` — the set-up as typed, with the one method that builds the
  :class:`core.sharing.SharingSetup` from its fields (read by the panel's Run and by
  :class:`gui.sharing.drawing.LivePreview`, which recomputes the ε/δ(k) and radius panels).
* :class:`RecordOutlet` — where recording a study asks and says things (for
  :func:`gui.sharing.drawing.record_study`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QSpinBox, QTableWidget, QWidget

from core.sharing import SharingSetup
from gui.sharing.protocol import ProtocolBox
from gui.shell.widgets import SciSpinBox

__all__ = ["PlotWidgets", "SetupFields", "RecordOutlet"]


@dataclass(frozen=True)
class PlotWidgets:
    """The results side: four plots, the ternary scatter, the badge, summary and ledger."""

    curve_plot: pg.PlotWidget
    eps_plot: pg.PlotWidget
    delta_plot: pg.PlotWidget
    radius_plot: pg.PlotWidget
    ternary_plot: pg.PlotWidget
    badge: QLabel  # Lemma 1's erratum and the threshold k*
    summary_label: QLabel
    ledger_table: QTableWidget
    shown: Callable[[], None]  # says a result was drawn (the panel's ``result_shown``)


@dataclass(frozen=True)
class SetupFields:
    """The set-up's fields: environment, mechanism and students, randomness, protocol."""

    env_combo: QComboBox  # its data: ``mdp:<id>``, ``gym:<id>`` (or None: none chosen)
    fields: Mapping[str, SciSpinBox]  # k0, coef, eta, lb, delta, tau, lam, …, budget_d
    tau_check: QCheckBox  # a fixed τ instead of a target δ per query
    bound_combo: QComboBox
    iter_spin: QSpinBox
    rollout_combo: QComboBox
    mode_combo: QComboBox  # seeded experiment or release
    seed_spin: QSpinBox
    protocol: ProtocolBox

    def seed(self) -> int | None:
        """The seed of a seeded experiment; None in release mode."""
        return (int(self.seed_spin.value()) if self.mode_combo.currentData() == "experiment"
                else None)

    def setup(self) -> SharingSetup:
        """The parameters as typed (checked by the core when run)."""
        v = {k: float(w.value()) for k, w in self.fields.items()}
        fixed_tau = self.tau_check.isChecked()
        return SharingSetup(k0=v["k0"], coef=v["coef"], eta=v["eta"], lb=v["lb"],
                            tau=v["tau"] if fixed_tau else None,
                            delta=None if fixed_tau else v["delta"],
                            bound=str(self.bound_combo.currentData()), lam=v["lam"],
                            beta=v["beta"], kappa=v["kappa"], lr=v["lr"],
                            budget=(v["budget_e"], v["budget_d"]),
                            iterations=int(self.iter_spin.value()),
                            rollout=str(self.rollout_combo.currentData()),
                            **self.protocol.values())


@dataclass(frozen=True)
class RecordOutlet:
    """Where recording a study asks and says things."""

    parent: QWidget  # of the over-budget question
    refuse: Callable[[str], None]  # shows why nothing was recorded
    log: Callable[[str, str], None]  # level, text (the Log dock)
