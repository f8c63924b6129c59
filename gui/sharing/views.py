"""What the parts of the Policy sharing workspace are given: widget bundles and callables.

The panel (:class:`gui.sharing.panel.SharingPanel`) builds the widgets and hands each part
only the ones it reads or writes, as a frozen bundle, with callables for what it asks of the
panel — the parts never see the panel.

* :class:`PlotWidgets` — the plots, labels and ledger table a study is drawn into (for
  :class:`gui.sharing.drawing.SharingPlots`).
* :class:`SetupFields` — the set-up as typed, bound to the keys of a run record's
  ``params`` in one table (:meth:`SetupFields.bindings`; :data:`SPIN_KEYS` pairs each number
  field with its key), from which the core builds the
  :class:`core.sharing.SharingParameters` of Run and the :class:`core.sharing.SharingSetup`
  that :class:`gui.sharing.drawing.LivePreview` reads, and into which a
  :class:`~core.sharing.SharingParameters` is shown.
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
from gui.shell.bindings import (
    Binding,
    choose,
    combo_binding,
    read_bindings,
    show_bindings,
    show_fields,
)
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

    def bindings(self) -> tuple[Binding, ...]:
        """Each field of the set-up, by the name :meth:`show` takes (a number field's key in
        :attr:`fields`), bound to the key of a run record's ``params`` it edits: the one
        place a widget meets its key (read, shown). ``budget`` is [E, D], typed in
        ``budget_e`` and ``budget_d``; a fixed τ replaces the target δ (None)."""
        def spin(name: str, key: str, convert: Any = float) -> Binding:
            box = self.fields[name]
            return Binding(name, lambda: convert(box.value()),
                           lambda v: box.setValue(convert(v)), box, key=key)

        def number(name: str, box: Any, convert: Any) -> Binding:
            return Binding(name, lambda: convert(box.value()),
                           lambda v: box.setValue(convert(v)), box)

        def step(key: str) -> Binding:  # one choice of the protocol box
            return Binding(key, lambda: self.protocol.values()[key],
                           lambda v: self.protocol.set_value(key, v))

        return (
            Binding("env", self.env_combo.currentData,
                    lambda v: choose(self.env_combo, v, "environment"), self.env_combo),
            *(spin(name, key) for name, key in SPIN_KEYS.items()),
            Binding("delta", lambda: None if self.tau_check.isChecked()
                    else float(self.fields["delta"].value()),
                    lambda v: self._show_fixed(v, "delta"), self.fields["delta"]),
            Binding("tau", lambda: float(self.fields["tau"].value())
                    if self.tau_check.isChecked() else None,
                    lambda v: self._show_fixed(v, "tau"), self.fields["tau"]),
            combo_binding("bound", self.bound_combo),
            spin("budget_e", "budget"), spin("budget_d", "budget"),
            number("iterations", self.iter_spin, int),
            combo_binding("rollout", self.rollout_combo),
            *(step(key) for key in self.protocol.keys()),
            combo_binding("teacher", self.teacher_combo),
            number("temperature", self.temperature_spin, float),
            Binding("students", lambda: [k for k, c in self.student_checks.items()
                                         if c.isChecked()], self._show_students),
            number("seeds", self.seeds_spin, int),
            Binding("seed", self.seed, self._show_seed, self.seed_spin))

    def _show_fixed(self, value: float | None, name: str) -> None:
        """Show a target δ (``delta``) or a fixed τ (``tau``); None: the other one holds."""
        self.tau_check.setChecked((value is None) == (name == "delta"))
        if value is not None:
            self.fields[name].setValue(float(value))

    def _show_students(self, students: Any) -> None:
        for kind, check in self.student_checks.items():
            check.setChecked(kind in students)

    def _show_seed(self, seed: int | None) -> None:
        """A seed: a seeded experiment with it; None: release mode."""
        self.mode_combo.setCurrentIndex(0 if seed is not None else 1)
        if seed is not None:
            self.seed_spin.setValue(int(seed))

    def values(self) -> dict[str, Any]:
        """The fields as typed, under the keys of a run record's ``params`` (``env`` is the
        environment picked, None when there is none)."""
        return read_bindings(self.bindings())

    def show(self, **values: Any) -> None:
        """Set fields by the names of :meth:`bindings` (``env``, ``k0``, …, ``lam``,
        ``budget_e``, ``seed`` None for release mode, ``students``, the protocol's keys):
        an unknown name or a value a widget cannot hold raises ValueError."""
        show_bindings(self.bindings(), values)

    def show_parameters(self, params: SharingParameters) -> None:
        """Show every field of ``params`` (a softmax:T teacher or a ``run:ID`` teacher not
        in the list raises ValueError)."""
        show_fields(self.bindings(), params.to_dict())

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
