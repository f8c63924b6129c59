"""What the parts of the DP-advising workspace are given: the set-up shown and widget bundles.

The panel (:class:`gui.advising.panel.AdvisingPanel`) builds the widgets and hands each part
only the ones it reads or writes, as a frozen bundle, with callables for the few things it
asks of the panel (log a line, say a run started or was recorded) — the parts never see the
panel. Each bundle lists the fields its widgets edit once, as a table of
:class:`gui.shell.bindings.Binding` (``bindings()``): the same table reads the widgets, shows
a parameters object (``show_parameters``) and gives each widget its help. The Run panel's
table builds :class:`core.advising.AdviseParameters` and, for an experiment,
:class:`core.advising.AdviseBenchParameters` in one step (:meth:`RunWidgets.request`: the
parameters of :func:`core.advising.advise_release` / :func:`core.advising.advise_bench_release`;
a refusal is the core's message, naming the field); the set-up's own
:class:`core.advising.AdvisingParams` are number fields that check themselves
(:class:`gui.shell.param_field.ParamField`), combos and a check box, in one table too.

* :class:`ShownSetup` — the validated set-up the tab shows, written by the editor on refresh,
  read by the parameter fields and the runner.
* :class:`SetupWidgets` — the set-up grids and parameters (for
  :class:`gui.advising.setup.SetupEditor`).
* :class:`RunWidgets` — the Run panel (for :class:`gui.advising.running.AdvisingRunner`).
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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

from core.advising import AdviseBenchParameters, AdviseParameters, AdvisingParams, AdvisingSetup
from core.common import InputError
from gui.advising.models import ActionSetModel, RewardModel, parse_number
from gui.advising.parts import TOOLTIPS, Refused, RunRequest, TitleLabel, problem_text
from gui.shell.bindings import (
    Binding,
    combo_binding,
    read_bindings,
    show_bindings,
    show_fields,
)
from gui.shell.param_field import FieldWithError, ParamField, format_value
from gui.shell.style import ERROR_COLOUR

__all__ = ["ShownSetup", "SetupWidgets", "RunWidgets", "SWEEP_KINDS", "RUN_LABELS"]

#: The run kinds that sweep the ε values typed in the Run panel (the field is read for them
#: only; the other runs keep none).
SWEEP_KINDS = ("sweep", "exp3")
#: How a refusal names a typed run field (the spin boxes' and the combo's ranges hold only
#: values the core accepts; a refusal of anything else is the experiment's).
RUN_LABELS = {"delta": "δ", "epsilons": "ε values:"}


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
        return str(self.value("variant"))

    def bindings(self) -> tuple[Binding, ...]:
        """The fields of the set-up's :class:`core.advising.AdvisingParams` these widgets
        edit (``variant`` is the one its knobs make): the one place a widget meets its field
        — read, shown and given its help. The number fields check what is typed themselves
        (:class:`gui.shell.param_field.ParamField`: the core's check, as you type)."""
        def number(name: str, f: ParamField) -> Binding:
            def show(value: Any) -> None:
                f.edit.setText(format_value(value))
                f.clear_error()
            return Binding(name, f.value, show, f, TOOLTIPS.get(name, ""))

        guard = self.guard_check
        return (combo_binding("strategy", self.strategy_combo, TOOLTIPS["strategy"]),
                combo_binding("variant", self.variant_combo, TOOLTIPS["variant"]),
                *(number(name, f) for name, f in self.fields.items()),
                Binding("direction_guard", guard.isChecked, guard.setChecked, guard,
                        TOOLTIPS["direction_guard"]))

    def value(self, name: str) -> Any:
        """The value of the field ``name`` as its widget shows it."""
        return next(b.read() for b in self.bindings() if b.name == name)

    def show_parameters(self, params: AdvisingParams) -> None:
        """Show every field of ``params`` (clearing the number fields' errors)."""
        show_fields(self.bindings(), params)


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

    def bindings(self) -> tuple[Binding, ...]:
        """The fields of :class:`core.advising.AdviseBenchParameters` these widgets edit (the
        single run's :class:`core.advising.AdviseParameters` takes ``seed`` and ``delta``):
        the one place a widget meets its field — read, shown and given its help. ``seed``
        None is the seeded box unticked (release mode for a single run, a fresh OS seed for
        an experiment); the ε values are read for :data:`SWEEP_KINDS` only."""
        return (
            combo_binding("run", self.kind_combo, TOOLTIPS["run_kind"]),
            Binding("seed", self._seed, self._show_seed, self.seed_spin, TOOLTIPS["seed"]),
            Binding("seeds", self.seeds_spin.value, self.seeds_spin.setValue, self.seeds_spin,
                    TOOLTIPS["seeds"]),
            Binding("workers", self.workers_spin.value, self._show_workers, self.workers_spin,
                    TOOLTIPS["workers"]),
            Binding("epsilons", self._epsilons, self._show_epsilons, self.epsilons_field,
                    TOOLTIPS["epsilons"]),
            Binding("delta", self._delta, self._show_delta, self.delta_field,
                    TOOLTIPS["delta"]))

    def _seed(self) -> int | None:
        return self.seed_spin.value() if self.seeded_check.isChecked() else None

    def _show_seed(self, seed: int | None) -> None:
        self.seeded_check.setChecked(seed is not None)
        if seed is not None:
            self.seed_spin.setValue(int(seed))

    def _show_workers(self, workers: int | None) -> None:
        """A count of processes (the box widens its range to hold it); None: every CPU."""
        n = int(workers) if workers is not None else max(1, os.cpu_count() or 1)
        self.workers_spin.setMaximum(max(self.workers_spin.maximum(), n))
        self.workers_spin.setValue(n)

    def _epsilons(self) -> tuple[Any, ...]:
        """The ε values typed (commas or semicolons between them), sorted without repeats;
        a text that is not a number is passed on as typed for the core to refuse."""
        if self.kind not in SWEEP_KINDS:
            return ()
        text = self.epsilons_field.edit.text()
        parts = tuple(p.strip() for p in text.replace(";", ",").split(",") if p.strip())
        try:
            return tuple(sorted({float(p) for p in parts}))
        except ValueError:
            return parts

    def _show_epsilons(self, epsilons: str | tuple[float, ...] | list[float]) -> None:
        """A text as it is, or a list of ε values; none (a run that sweeps no ε) leaves the
        field as it is."""
        if isinstance(epsilons, str):
            self.epsilons_field.edit.setText(epsilons)
        elif epsilons:
            self.epsilons_field.edit.setText(", ".join(f"{float(e):g}" for e in epsilons))

    def _delta(self) -> float:
        try:  # the text read as a number here, its range checked by the core
            return parse_number(self.delta_field.edit.text())
        except ValueError as exc:
            raise InputError(str(exc), field="delta") from None

    def _show_delta(self, delta: float) -> None:
        self.delta_field.edit.setText(format_value(float(delta)))

    def set_options(self, *, kind: str | None = None, seeded: bool | None = None,
                    seed: int | None = None, seeds: int | None = None,
                    workers: int | None = None, epsilons: str | None = None,
                    delta: float | None = None) -> None:
        """Set the run parameters shown (None leaves one as it is; ``seed`` alone keeps the
        seeded box as it is). An unknown ``kind`` raises ValueError and sets nothing."""
        was_seeded = self.seeded_check.isChecked()
        values = {"run": kind, "seed": seed, "seeds": seeds, "workers": workers,
                  "epsilons": epsilons, "delta": delta}
        if kind is not None and self.kind_combo.findData(kind) < 0:
            raise ValueError(f"unknown run kind {kind!r}")
        show_bindings(self.bindings(), {k: v for k, v in values.items() if v is not None})
        if seeded is not None or seed is not None:
            self.seeded_check.setChecked(was_seeded if seeded is None else seeded)

    def show_parameters(self, params: AdviseParameters | AdviseBenchParameters) -> None:
        """Show the run of ``params`` (a single run's or an experiment's) in the Run panel:
        its kind, seed (None: the seeded box unticked), seeds, processes, ε values and δ. Its
        set-up is not shown here: that is the project's (the editor's)."""
        if isinstance(params, AdviseParameters):
            show_bindings(self.bindings(), {"run": "single", "seed": params.seed,
                                            "delta": params.delta})
        else:
            show_fields(self.bindings(), params)

    def request(self, setup: AdvisingSetup) -> RunRequest:
        """The run these fields ask for on ``setup``, with the core's parameters of the single
        run and, for an experiment, of the experiment (its arms built); Refused, with the
        field turned red, when the core refuses a value (its message, naming the field)."""
        try:
            values = read_bindings(self.bindings())
            params = AdviseParameters(setup, seed=values["seed"], delta=values["delta"])
            bench = (None if values["run"] == "single" else
                     AdviseBenchParameters(setup=setup, **values))
        except InputError as exc:
            raise self._refused(exc) from None
        self.clear_errors()
        return RunRequest(kind=values["run"], params=params, n_seeds=values["seeds"],
                          workers=values["workers"], epsilons=bench.epsilons if bench else (),
                          bench=bench)

    def clear_errors(self) -> None:
        for b in self.bindings():
            if isinstance(b.widget, FieldWithError):
                b.widget.clear_error()

    def _refused(self, exc: InputError) -> Refused:
        """The refusal of ``exc``: its field turned red with the core's reason, or, for a
        value no field here types, the experiment's refusal."""
        self.clear_errors()
        widget = next((b.widget for b in self.bindings() if b.field == exc.field), None)
        if not isinstance(widget, FieldWithError) or exc.field not in RUN_LABELS:
            return Refused(f"cannot build the experiment: {exc}")
        msg = f"{RUN_LABELS[exc.field]} {problem_text(exc)}"
        widget.set_error(msg)
        return Refused(msg)
