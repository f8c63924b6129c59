"""What the parts of the DP-advising workspace are given: the set-up shown and widget bundles.

The panel (:class:`gui.advising.panel.AdvisingPanel`) builds the widgets and hands each part
only the ones it reads or writes, as a frozen bundle, with callables for the few things it
asks of the panel (log a line, say a run started or was recorded) — the parts never see the
panel. Where a part needs the parameters of a core entry point from several widgets, the
bundle has the one method that builds them (:meth:`RunWidgets.request`), so the walk from the
widgets to :func:`core.advising.advise_release` / :func:`core.advising.run_experiment` is one
step; the set-up's own :class:`core.advising.AdvisingParams` are bound field by field
(:class:`gui.shell.param_field.ParamField`).

* :class:`ShownSetup` — the validated set-up the tab shows, written by the editor on refresh,
  read by the parameter fields and the runner.
* :class:`SetupWidgets` — the set-up grids and parameters (for
  :class:`gui.advising.setup.SetupEditor`).
* :class:`RunWidgets` — the Run panel (for :class:`gui.advising.running.AdvisingRunner`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QWidget,
)

from core.advising import AdviseParameters, AdvisingParams, AdvisingSetup
from core.common import InputError
from core.privacy import check_epsilon
from gui.advising.models import ActionSetModel, RewardModel, parse_number
from gui.advising.parts import Refused, RunRequest, TitleLabel, problem_text
from gui.shell.param_field import FieldWithError, ParamField
from gui.shell.style import ERROR_COLOUR

__all__ = ["ShownSetup", "SetupWidgets", "RunWidgets"]


@dataclass
class ShownSetup:
    """The validated set-up the tab shows (``Project.advising[0]``), or None when the project
    has none that can be used."""

    setup: AdvisingSetup | None = None

    def params(self) -> AdvisingParams:
        """The parameters of the set-up shown (the defaults when there is none)."""
        return self.setup.params if self.setup is not None else AdvisingParams()


@dataclass(frozen=True)
class SetupWidgets:
    """The set-up editor's widgets: title, grids with their messages, parameters."""

    title_label: TitleLabel
    error_label: QLabel  # a set-up that cannot be used, or a parameter refused without a field
    action_model: ActionSetModel
    action_view: QTableView
    action_message: QLabel
    reward_model: RewardModel
    reward_view: QTableView
    reward_message: QLabel
    strategy_combo: QComboBox
    variant_combo: QComboBox
    fields: Mapping[str, ParamField]  # bound to the parameters of AdvisingParams
    guard_check: QCheckBox
    sensitivity_label: QLabel
    splitter: QSplitter  # grids | parameters
    grid_boxes: tuple[QWidget, ...]  # the boxes of the two grids (sized to their cells)

    def problems(self, setup: AdvisingSetup) -> list[str]:
        """The refused values still shown (red fields, red reward cells) — not applied."""
        problems = [f.error.text() for f in self.fields.values() if f.has_error]
        invalid = self.reward_model.invalid_cells
        if invalid:
            (t, k), (txt, _why) = next(iter(invalid.items()))
            problems.append(f"reward cell (task {setup.tasks[t]}, server "
                            f"{setup.servers[k]}) shows a refused value {txt!r}")
        return problems

    def variant(self) -> str:
        """The variant chosen in the combo (``sound``, ``thesis`` or ``custom``)."""
        return str(self.variant_combo.currentData())


@dataclass(frozen=True)
class RunWidgets:
    """The Run panel's widgets: what to run, its randomness, and its progress and errors."""

    kind_combo: QComboBox
    kind_help: QLabel
    seeded_check: QCheckBox
    seed_spin: QSpinBox
    seeds_spin: QSpinBox
    workers_spin: QSpinBox
    epsilons_field: FieldWithError
    delta_field: FieldWithError
    run_button: QPushButton  # the Run panel's copies (RunControls keeps the editor bar's)
    cancel_button: QPushButton
    progress_label: QLabel
    mode_label: QLabel
    error_label: QLabel

    @property
    def kind(self) -> str:
        """The run kind chosen (a key of :data:`gui.advising.parts.RUN_KINDS`)."""
        return str(self.kind_combo.currentData())

    def randomness_label(self) -> str:
        """The words for the randomness mode of the next run (never ambiguous)."""
        seeded = self.seeded_check.isChecked()
        if self.kind == "single":
            return (f"seeded experiment (seed {self.seed_spin.value()})" if seeded else
                    "release mode (OpenDP noise, not reproducible)")
        if seeded:
            n = self.seeds_spin.value()
            s0 = self.seed_spin.value()
            return f"seeded experiment (seeds {s0}–{s0 + n - 1})"
        return "experiment with a fresh OS seed (recorded; not a release)"

    def mode_text(self) -> str:
        """The "Next run" line: release mode in red (its ε is spent), else an experiment."""
        text = html.escape(self.randomness_label())
        if self.kind == "single" and not self.seeded_check.isChecked():
            return (f"<b style='color:{ERROR_COLOUR}'>{text}</b>: a private release; its "
                    "ε is spent for real.")
        return f"Next run: <b>{text}</b> — for studying the method, not a private release."

    def set_options(self, *, kind: str | None = None, seeded: bool | None = None,
                    seed: int | None = None, seeds: int | None = None,
                    workers: int | None = None, epsilons: str | None = None,
                    delta: float | None = None) -> None:
        """Set the run parameters shown (None leaves one as it is)."""
        if kind is not None:
            i = self.kind_combo.findData(kind)
            if i < 0:
                raise ValueError(f"unknown run kind {kind!r}")
            self.kind_combo.setCurrentIndex(i)
        if seeded is not None:
            self.seeded_check.setChecked(seeded)
        if seed is not None:
            self.seed_spin.setValue(seed)
        if seeds is not None:
            self.seeds_spin.setValue(seeds)
        if workers is not None:
            self.workers_spin.setMaximum(max(self.workers_spin.maximum(), workers))
            self.workers_spin.setValue(workers)
        if epsilons is not None:
            self.epsilons_field.edit.setText(epsilons)
        if delta is not None:
            self.delta_field.edit.setText(f"{delta:g}")

    def request(self, setup: AdvisingSetup) -> RunRequest:
        """The run these fields ask for on ``setup`` (its arms not yet built); Refused, with
        the field turned red, when the core refuses δ or the ε values."""
        kind = self.kind
        seeded = self.seeded_check.isChecked()
        try:  # the text read as a number here, its range checked by the core
            params = AdviseParameters(setup, seed=self.seed_spin.value() if seeded else None,
                                      delta=parse_number(self.delta_field.edit.text()))
        except (ValueError, InputError) as exc:
            msg = problem_text(exc) if isinstance(exc, InputError) else str(exc)
            self.delta_field.set_error(f"δ {msg}")
            raise Refused(f"δ {msg}") from None
        self.delta_field.clear_error()
        req = RunRequest(kind=kind, params=params, n_seeds=self.seeds_spin.value(),
                         workers=self.workers_spin.value())
        if kind in ("sweep", "exp3"):
            try:
                req.epsilons = self._epsilons()
            except InputError as exc:
                self.epsilons_field.set_error(f"ε values: {problem_text(exc)}")
                raise Refused(f"ε values: {problem_text(exc)}") from None
            self.epsilons_field.clear_error()
        return req

    def _epsilons(self) -> tuple[float, ...]:
        text = self.epsilons_field.edit.text()
        parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise InputError("needs at least one value", field="epsilons")
        return tuple(sorted({check_epsilon(p.strip(), "epsilons") for p in parts}))
