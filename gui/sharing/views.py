"""What the parts of the Policy sharing workspace are given: widget bundles and callables.

The panel (:class:`gui.sharing.panel.SharingPanel`) builds the widgets and hands each part
only the ones it reads or writes, as a frozen bundle, with callables for what it asks of the
panel — the parts never see the panel.

* :class:`PlotWidgets` — the plots, labels and ledger table a study is drawn into (for
  :class:`gui.sharing.drawing.SharingPlots`).
* :class:`SetupFields` — the set-up as typed, read under the keys of a run record's
  ``params`` (:data:`SPIN_KEYS` pairs each number field with its key), from which the core
  builds the :class:`core.sharing.SharingParameters` of Run and the
  :class:`core.sharing.SharingSetup` that :class:`gui.sharing.drawing.LivePreview` reads.
* :class:`RecordOutlet` — where recording a study asks and says things (for
  :func:`gui.sharing.drawing.record_study`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QSpinBox, QTableWidget, QWidget

from core.sharing import SharingParameters, SharingSetup, sharing_setup_of
from gui.sharing.protocol import ProtocolBox
from gui.shell.widgets import SciSpinBox

__all__ = ["PlotWidgets", "SetupFields", "RecordOutlet", "SPIN_KEYS"]


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


#: the set-up's number fields (their keys in :attr:`SetupFields.fields`) and the key of a
#: run record's ``params`` each one edits (:class:`core.sharing.SharingParameters`)
SPIN_KEYS = {"k0": "k0", "coef": "coef", "eta": "eta", "lb": "lb", "lam": "lambda",
             "beta": "beta", "kappa": "kappa", "lr": "lr"}


@dataclass(frozen=True)
class SetupFields:
    """The set-up's fields: environment and teacher, mechanism and students, randomness,
    protocol. :meth:`values` reads them as the keys of a run record's ``params``, so the
    run's :class:`core.sharing.SharingParameters` is built (and checked) by the core."""

    env_combo: QComboBox  # its data: ``mdp:<id>``, ``gym:<id>`` (or None: none chosen)
    fields: Mapping[str, SciSpinBox]  # k0, coef, eta, lb, delta, tau, lam, …, budget_d
    tau_check: QCheckBox  # a fixed τ instead of a target δ per query
    bound_combo: QComboBox
    iter_spin: QSpinBox
    rollout_combo: QComboBox
    mode_combo: QComboBox  # seeded experiment or release
    seed_spin: QSpinBox
    protocol: ProtocolBox
    teacher_combo: QComboBox  # its data: optimal, softmax or run:ID
    temperature_spin: SciSpinBox
    student_checks: Mapping[str, QCheckBox]
    seeds_spin: QSpinBox

    def seed(self) -> int | None:
        """The seed of a seeded experiment; None in release mode."""
        return (int(self.seed_spin.value()) if self.mode_combo.currentData() == "experiment"
                else None)

    def values(self) -> dict[str, Any]:
        """The fields as typed, under the keys of a run record's ``params`` (no ``env``)."""
        v: dict[str, Any] = {key: float(self.fields[name].value())
                             for name, key in SPIN_KEYS.items()}
        fixed_tau = self.tau_check.isChecked()
        v["tau"] = float(self.fields["tau"].value()) if fixed_tau else None
        v["delta"] = None if fixed_tau else float(self.fields["delta"].value())
        v["bound"] = str(self.bound_combo.currentData())
        v["budget"] = [float(self.fields["budget_e"].value()),
                       float(self.fields["budget_d"].value())]
        v["iterations"] = int(self.iter_spin.value())
        v["rollout"] = str(self.rollout_combo.currentData())
        v.update(self.protocol.values())
        v["teacher"] = str(self.teacher_combo.currentData())
        v["temperature"] = float(self.temperature_spin.value())
        v["students"] = [k for k, c in self.student_checks.items() if c.isChecked()]
        v["seeds"] = int(self.seeds_spin.value())
        v["seed"] = self.seed()
        return v

    def setup(self) -> SharingSetup:
        """The mechanism, students and budget as typed (not checked: the live panels)."""
        return sharing_setup_of(self.values())

    def parameters(self, env: str, **override: Any) -> SharingParameters:
        """The run's parameters on the dataset ``env`` (checked by the core: an
        :class:`core.common.InputError` names the refused field).

        Parameters
        ----------
        env : str
            ``mdp:<id>`` or ``gym:<ID>``.
        **override
            Keys of the record to set otherwise (the PPO run's teacher).
        """
        return SharingParameters.from_dict({**self.values(), "env": env, **override})


@dataclass(frozen=True)
class RecordOutlet:
    """Where recording a study asks and says things."""

    parent: QWidget  # of the over-budget question
    refuse: Callable[[str], None]  # shows why nothing was recorded
    log: Callable[[str, str], None]  # level, text (the Log dock)
