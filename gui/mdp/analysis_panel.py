"""Run parameters of an MDP workspace (right dock) and its Run / Cancel buttons.

The panel validates as you type, starts :func:`core.mdp.sweep.sweep_release` through
its workspace's :class:`gui.shell.workers.TaskRunner` on a snapshot of the model, and when the
run succeeds records it in the project with an undoable
:class:`gui.shell.commands.AddRunCommand`. A model that is not valid (a row that does not sum
to 1, a state without actions…) is refused before anything starts, with the reason.

"Synthesise & bound" privatises the model once at one k, synthesises π̄ and bounds its
value per state (:func:`core.mdp.private_policy.bounds_release`, recorded with
:func:`core.project.recording.bounds_run_record`, as ``bounds PROJECT --mdp ID --record``
does); the run record ("bounds") keeps π̄ and v̲, V̄, v̄ per state, which the workspace
draws on the MDP.

The (ε, δ) accounting of every k is set here too, from public parameters only: the
declared lower bound η of every possible next-state probability and what happens to a row
below it (the domain rule: mix every row with the uniform distribution on its support, the
default, or refuse the model), the adjacency radius b of one row, the target δ̂ per row
and the MDP-level adjacency (one changed row: parallel composition; all rows: basic
composition). The same η and rule drive the privatisations of the sweep and of "Synthesise
& bound", so the statement describes exactly what was run. No number shown is computed
from the model's probabilities: a row's (ε, δ) depends on these parameters and its number
of possible next states (public under the adjacency). The record keeps a small summary
(:func:`core.mdp.records.sweep_summary`): the composed ε, δ (null with a reason when
unbounded) and statement per k and the number of rows without a guarantee — the per-row
details are recomputed on demand.

Randomness is labelled honestly. A *seeded experiment* uses the seed shown. Unticking
"seeded experiment" draws a fresh seed from the operating system for each run, and
records it — but the sweep stays an **experiment**: it evaluates π̄ on the true model
(the oracle view) and uses numpy's generator, so it is never a private *release*.

A little over 600 lines: the Run parameters form and its validation, with every tooltip
that explains a privacy parameter.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError, check_k
from core.mdp import (
    ADJACENCIES,
    ADJACENCY_TEXT,
    DEFAULT_B,
    DEFAULT_DELTA,
    DEFAULT_DOMAIN_RULE,
    DEFAULT_K,
    DOMAIN_RULES,
    ETA_AUTO,
    BoundsParameters,
    SweepParameters,
    bounds_release,
    parse_eta,
)
from gui.mdp.analysis_records import record_bounds, record_sweep_run
from gui.mdp.policy_choice import PolicyChoice
from gui.shell.document import ProjectDocument, mdp_stack_key
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import SciSpinBox, show_field_error
from gui.shell.workers import TaskRunner

__all__ = ["AnalysisPanel", "parse_k_list", "DEFAULT_K_TEXT", "TOOLTIPS", "default_workers",
           "DEFAULT_BOUNDS_K"]

DEFAULT_BOUNDS_K = 100.0

DEFAULT_K_TEXT = ", ".join(f"{k:g}" for k in DEFAULT_K)
MAX_K_VALUES = 60

TOOLTIPS = {
    "k": "Dirichlet concentration k: larger k gives a more accurate private model but less "
         "privacy (ε grows with k). One or more values > 0, separated by commas.",
    "runs": "Privatisations per k: the plots show the mean ± 1 standard deviation over these "
            "runs (the paper uses 50).",
    "beta": "β in (0, 1) is the tail probability of Lemma 2.2 and the mixing weight of the "
            "robust set P̂_{α,β}: smaller β widens α, larger β adds a floor to the bound.",
    "alpha": "How the radius α of the robust set is computed: ‘paper’ uses "
             "α = √(log(1/β) / (2(k+1))) as published, where Lemma 2.2 may fail; ‘rigorous’ "
             "uses α = √(log(2n/β) / (2(k+1))), a union bound over the n next states.",
    "seed": "Seed of the experiment's random numbers: the same seed reproduces the same "
            "results bit for bit, whatever the number of workers.",
    "seeded": "Ticked: a reproducible seeded experiment with the seed shown. Unticked: each run "
              "draws a fresh seed from the operating system and records it; the sweep is "
              "still an experiment (it uses the true model), never a private release.",
    "workers": "Processes used for the runs; 1 runs them in PrivPlan's own worker thread.",
    "b": "Adjacency radius b in (0, 1], a public parameter: a neighbouring model may move "
         "up to b/2 probability between two possible next states of one transition row "
         f"(L1 ≤ b). Default {DEFAULT_B:g}, as in the paper's Figure 1.1; a larger b hides "
         "bigger changes (more private) at the price of a larger ε.",
    "delta": "Target δ in (0, 1) for every row, a public parameter: the largest acceptable "
             "probability that a row's ε bound fails (default "
             f"{DEFAULT_DELTA:g}); a smaller target is more private but makes ε larger.",
    "eta": "η, the declared domain: a public lower bound on the probability of every "
           "possible next state of every row, as the noise sees it. Default ‘auto’: "
           "η = min(0.001, 1/(2n)) for a row with n possible next states (public: the "
           "support is disclosed anyway); ‘λ/n’ mixes every row with weight λ; or a number. "
           "Chosen without looking at any data; with the default domain "
           "rule ‘mix’ every row is first mixed with the uniform distribution on its support "
           "(weight n·η), so every model meets it (the built-in examples get a finite, if "
           "large, ε from k = 10 up). A larger η gives a smaller ε but blurs the model more; never "
           "read η off the model. It changes the (ε, δ) and, with ‘mix’, the rows the noise "
           "is centred on.",
    "accountant": "How each row's (ε, δ) is computed. ‘exact profile’ (default): the "
                  "hockey-stick curve of the worst neighbouring pair, found exactly and "
                  "certified — tight; under ‘all rows’ the rows' privacy-loss distributions "
                  "are composed (basic composition shown beside). ‘Theorem 1.6’: the paper's "
                  "threshold analysis with the union bound (proven, looser). ‘vertex "
                  "reduction’: the paper's Lemma 1.2, whose printed proof has a gap.",
    "domain_rule": "How every row is brought into the declared domain (every possible next "
                   "state ≥ η). ‘mix’ (default): EVERY row is mixed with the uniform "
                   "distribution on its support with the public weight n·η, so the guarantee "
                   "holds for any model (neighbours stay neighbours at radius (1 − n·η)·b) at "
                   "the price of a slightly modified model. ‘refuse’: rows are privatised as "
                   "they are, and a run on a model with a possible next state below η stops "
                   "with an error naming the row.",
    "bounds_k": "Dirichlet concentration k of the one private model behind the policy shown on "
                "the drawing: larger k, more accurate and less private.",
    "bounds": "Privatise the model once at this k, synthesise the private policy π̄ on it and "
              "bound its value per state (v̲ ≤ V̄ ≤ v̄); π̄ and the values appear on the "
              "drawing and are kept with the project (F6).",
    "adjacency": "Which models count as neighbours. one-row: "
                 + ADJACENCY_TEXT["one-row"] + ". all-rows: " + ADJACENCY_TEXT["all-rows"]
                 + ". all-rows protects more and gives a much larger ε.",
}


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def parse_k_list(text: str) -> tuple[float, ...]:
    """Parse ``"10, 20, 5e3"`` into sorted, distinct concentrations k > 0.

    Raises :class:`InputError` (field ``k``) naming the first bad entry.
    """
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    if not parts:
        raise InputError("enter at least one value of k (> 0)", field="k")
    values: list[float] = []
    for part in parts:
        try:
            value = float(part)
        except ValueError:
            raise InputError(f"{part!r} is not a number", field="k") from None
        try:
            values.append(check_k(value, "k"))
        except InputError:
            raise InputError(f"{part} is not a finite number > 0", field="k") from None
    ks = tuple(sorted(set(values)))
    if len(ks) > MAX_K_VALUES:
        raise InputError(f"at most {MAX_K_VALUES} values, got {len(ks)}", field="k")
    return ks


def randomness_label(seeded: bool, seed: int | None) -> str:
    """The status-bar words for the randomness mode (never ambiguous)."""
    if seeded:
        return f"seeded experiment (seed {seed})"
    return "experiment with a fresh OS seed per run (recorded; not a release)"


def _choose(combo: QComboBox, value: str, what: str) -> None:
    """Select the item of ``combo`` whose data is ``value``; ValueError naming ``what``."""
    index = combo.findData(value)
    if index < 0:
        raise ValueError(f"unknown {what} {value!r}")
    combo.setCurrentIndex(index)


class AnalysisPanel(QWidget):
    """Parameters + Run/Cancel for the privacy sweep of one MDP."""

    parameters_changed = Signal()
    message_logged = Signal(str, str)  # level, text (the main window's Log dock listens)

    def __init__(self, document: ProjectDocument, mdp_id: str, runner: TaskRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._mdp_id = mdp_id
        self._runner = runner
        # (kind, parameters, snapshot, extra) of the task in the runner
        self._running: tuple[str, Any, object, dict[str, Any]] | None = None

        self.model_label = QLabel(self)
        self.model_label.setWordWrap(True)
        self.model_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.k_edit = QLineEdit(DEFAULT_K_TEXT, self)
        self.k_edit.setCursorPosition(0)
        self.k_edit.setToolTip(TOOLTIPS["k"])
        self.k_error = QLabel(self)
        self.k_error.setWordWrap(True)
        self.k_error.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.k_error.hide()

        self.runs_spin = QSpinBox(self)
        self.runs_spin.setRange(1, 100_000)
        self.runs_spin.setValue(50)
        self.runs_spin.setToolTip(TOOLTIPS["runs"])

        self.beta_spin = QDoubleSpinBox(self)
        self.beta_spin.setDecimals(4)
        self.beta_spin.setRange(0.0001, 0.9999)  # the open interval (0, 1)
        self.beta_spin.setSingleStep(0.01)
        self.beta_spin.setValue(0.05)
        self.beta_spin.setToolTip(TOOLTIPS["beta"])

        self.alpha_combo = QComboBox(self)
        self.alpha_combo.addItem("paper (Lemma 2.2)", "paper")
        self.alpha_combo.addItem("rigorous (log 2n/β)", "rigorous")
        self.alpha_combo.setToolTip(TOOLTIPS["alpha"])
        self.alpha_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.alpha_combo.setMinimumContentsLength(10)
        for i in range(self.alpha_combo.count()):
            self.alpha_combo.setItemData(i, TOOLTIPS["alpha"], Qt.ItemDataRole.ToolTipRole)

        self.policy_choice = PolicyChoice(  # π̄ of the sweep and of F6 (or a given file)
            self, mdp=lambda: self._document.mdp_entry(self._mdp_id).mdp)
        self.seeded_check = QCheckBox("seeded experiment", self)
        self.seeded_check.setChecked(True)
        self.seeded_check.setToolTip(TOOLTIPS["seeded"])
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setRange(0, 2_147_483_647)
        self.seed_spin.setValue(7)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.mode_label = QLabel(self)
        self.mode_label.setWordWrap(True)
        self.mode_label.setStyleSheet("color: #555;")

        self.workers_spin = QSpinBox(self)
        self.workers_spin.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_spin.setValue(default_workers())
        self.workers_spin.setToolTip(TOOLTIPS["workers"])

        # "auto" (the public per-row rule η = min(0.001, 1/(2n))), a rule "λ/n" (every row
        # mixed with weight λ), or a number; parsed by core.mdp.privatize.parse_eta
        self.eta_edit = QComboBox(self)
        self.eta_edit.setEditable(True)
        self.eta_edit.addItems([ETA_AUTO, "0.1/n", "0.2/n", "0.35/n", "0.5/n", "0.001", "0.01"])
        self.eta_edit.setToolTip(TOOLTIPS["eta"])
        self.domain_combo = QComboBox(self)
        for key, text in (("refuse", "refuse rows below η"), ("mix", "mix every row (n·η)")):
            self.domain_combo.addItem(text, key)
            self.domain_combo.setItemData(self.domain_combo.count() - 1, TOOLTIPS["domain_rule"],
                                          Qt.ItemDataRole.ToolTipRole)
        assert tuple(self.domain_combo.itemData(i) for i in range(2)) == DOMAIN_RULES
        self.domain_combo.setCurrentIndex(self.domain_combo.findData(DEFAULT_DOMAIN_RULE))
        self.domain_combo.setToolTip(TOOLTIPS["domain_rule"])
        self.domain_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.domain_combo.setMinimumContentsLength(10)
        self.b_spin = SciSpinBox(self, minimum=0.001, maximum=1.0, value=DEFAULT_B, step=0.01)
        self.b_spin.setToolTip(TOOLTIPS["b"])
        self.delta_spin = SciSpinBox(self, minimum=1e-9, maximum=0.999, value=DEFAULT_DELTA,
                                     log_step=10 ** 0.1)
        self.delta_spin.setToolTip(TOOLTIPS["delta"])
        self.public_label = QLabel(
            "Public parameters: the (ε, δ) of every k depends only on them, k and each row's "
            "number of possible next states — never on the model's probabilities.", self)
        self.public_label.setWordWrap(True)
        self.public_label.setStyleSheet("color: #555;")
        self.adjacency_combo = QComboBox(self)
        for key, text in (("one-row", "one row (parallel)"),
                          ("all-rows", "all rows (composed)")):
            self.adjacency_combo.addItem(text, key)
            self.adjacency_combo.setItemData(self.adjacency_combo.count() - 1,
                                             ADJACENCY_TEXT[key], Qt.ItemDataRole.ToolTipRole)
        assert tuple(self.adjacency_combo.itemData(i) for i in range(2)) == ADJACENCIES
        self.adjacency_combo.setToolTip(TOOLTIPS["adjacency"])
        self.adjacency_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.adjacency_combo.setMinimumContentsLength(10)
        self.accountant_combo = QComboBox(self)
        for key, text in (("auto", "exact profile (tight)"),
                          ("union", "Theorem 1.6, union bound"),
                          ("exact", "vertex reduction (Lemma 1.2, unproven)")):
            self.accountant_combo.addItem(text, key)
        self.accountant_combo.setToolTip(TOOLTIPS["accountant"])
        self.accountant_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.accountant_combo.setMinimumContentsLength(10)
        self.adjacency_label = QLabel(self)
        self.adjacency_label.setWordWrap(True)
        self.adjacency_label.setStyleSheet("color: #555;")

        self.bounds_k_spin = SciSpinBox(self, minimum=0.01, maximum=1e9, value=DEFAULT_BOUNDS_K,
                                        log_step=10 ** 0.25)
        self.bounds_k_spin.setToolTip(TOOLTIPS["bounds_k"])
        self.bounds_button = QPushButton("Synthesise && bound (F6)", self)
        self.bounds_button.setToolTip(TOOLTIPS["bounds"])

        # the window's status bar shows the progress of an MDP workspace's run
        self.run_controls = RunControls(
            runner, self, run=self.run, cancel=self.cancel, run_text="Run (F5)",
            run_tip="Run the privacy sweep (Figure 2.1) with these parameters.",
            cancel_text="Cancel (Esc)", cancel_tip="Stop the running sweep; nothing is recorded.",
            running_text="Running…", cancelled_text="Cancelled; nothing was recorded.",
            clear_on_finish=False, show_bar=False,
            progress_text=lambda fraction, message: f"Running… {fraction:.0%}  {message}")
        style = self.style()
        self.run_button = self.run_controls.run_button
        self.run_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.cancel_button = self.run_controls.cancel_button
        self.cancel_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaStop))
        self.status_label = self.run_controls.progress_label
        self.status_label.setStyleSheet("")
        self.status_label.setWordWrap(True)

        model_box = QGroupBox("Model", self)
        QVBoxLayout(model_box).addWidget(self.model_label)
        box = QGroupBox("Privacy sweep (Figure 2.1)", self)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self._label("k values", "k"), self.k_edit)
        form.addRow("", self.k_error)
        form.addRow(self._label("runs per k", "runs"), self.runs_spin)
        form.addRow(self._label("β", "beta"), self.beta_spin)
        form.addRow(self._label("α radius", "alpha"), self.alpha_combo)
        form.addRow(self.policy_choice.label(self), self.policy_choice)
        form.addRow("", self.seeded_check)
        form.addRow(self._label("seed", "seed"), self.seed_spin)
        form.addRow("", self.mode_label)
        form.addRow(self._label("workers", "workers"), self.workers_spin)
        privacy_box = QGroupBox("Privacy accounting (ε, δ per k)", self)
        pform = QFormLayout(privacy_box)
        pform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        pform.addRow("", self.public_label)
        pform.addRow(self._label("η (declared domain)", "eta"), self.eta_edit)
        pform.addRow(self._label("rows below η", "domain_rule"), self.domain_combo)
        pform.addRow(self._label("b (row radius)", "b"), self.b_spin)
        pform.addRow(self._label("target δ", "delta"), self.delta_spin)
        pform.addRow(self._label("neighbours", "adjacency"), self.adjacency_combo)
        pform.addRow(self._label("accountant", "accountant"), self.accountant_combo)
        pform.addRow("", self.adjacency_label)
        bounds_box = QGroupBox("Private policy on the drawing", self)
        bform = QFormLayout(bounds_box)
        bform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        brow = QHBoxLayout()
        brow.addWidget(self.bounds_k_spin, 1)
        brow.addWidget(self.bounds_button, 2)
        bform.addRow(self._label("k", "bounds_k"), brow)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(model_box)
        layout.addWidget(box)
        layout.addLayout(buttons)
        layout.addWidget(self.status_label)
        layout.addWidget(bounds_box)
        layout.addWidget(privacy_box)
        layout.addStretch(1)

        self.k_edit.textChanged.connect(self._on_k_edit_text_changed)
        for sig in (self.runs_spin.valueChanged, self.beta_spin.valueChanged,
                    self.alpha_combo.currentIndexChanged, self.seed_spin.valueChanged,
                    self.workers_spin.valueChanged, self.b_spin.valueChanged,
                    self.delta_spin.valueChanged, self.eta_edit.editTextChanged,
                    self.domain_combo.currentIndexChanged,
                    self.accountant_combo.currentIndexChanged, self.policy_choice.changed):
            sig.connect(self._on_parameter_changed)
        self.seeded_check.toggled.connect(self._on_seeded_check_toggled)
        self.adjacency_combo.currentIndexChanged.connect(self._on_adjacency_combo_changed)
        self._on_adjacency_combo_changed()
        self.bounds_button.clicked.connect(self.run_bounds)
        self.bounds_k_spin.valueChanged.connect(self._on_parameter_changed)
        self.run_controls.running_changed.connect(self._on_running_changed)
        runner.succeeded.connect(self._on_runner_succeeded)
        runner.failed.connect(self._on_runner_failed)
        runner.cancelled.connect(self._on_runner_cancelled)
        document.mdp_changed.connect(self._on_document_mdp_changed)
        self._update_model_label()
        self._on_seeded_check_toggled(self.seeded_check.isChecked())

    @property
    def _stack_key(self) -> str:
        """This model's undo stack (see :mod:`gui.shell.document`)."""
        return mdp_stack_key(str(self._mdp_id))

    # ------------------------------------------------------------------ public
    @property
    def mdp_id(self) -> str:
        return self._mdp_id

    @property
    def runner(self) -> TaskRunner:
        return self._runner

    @property
    def is_running(self) -> bool:
        return self._runner.is_running

    def randomness_label(self) -> str:
        return randomness_label(self.seeded_check.isChecked(), self.seed_spin.value())

    def seed(self) -> int | None:
        """The seed of a seeded experiment; None when each run draws a fresh one."""
        return self.seed_spin.value() if self.seeded_check.isChecked() else None

    def set_bounds_k(self, k: float) -> None:
        """Show ``k`` as the concentration "Synthesise & bound" (F6) privatises at."""
        self.bounds_k_spin.setValue(k)

    def _bindings(self) -> tuple[tuple[str, Callable[[], Any], Callable[[Any], object]], ...]:
        """Each :class:`SweepParameters` field this panel edits: (field, read its widget,
        show a value in it), in the order :meth:`set_parameters` applies them. The one
        place a widget meets its field; the checks are the core's."""
        alpha, seeded = self.alpha_combo, self.seeded_check
        return (
            ("ks", lambda: parse_k_list(self.k_edit.text()), self._set_k_text),
            ("runs", self.runs_spin.value, self.runs_spin.setValue),
            ("beta", self.beta_spin.value, self.beta_spin.setValue),
            ("alpha_mode", lambda: str(alpha.currentData()),
             lambda v: alpha.setCurrentIndex(alpha.findData(v))),
            ("seed", self.seed, self.seed_spin.setValue),
            ("seeded", seeded.isChecked, seeded.setChecked),
            ("workers", self.workers_spin.value, self.workers_spin.setValue),
            ("b", self.b_spin.value, self.b_spin.setValue),
            ("delta_target", self.delta_spin.value, self.delta_spin.setValue),
            ("adjacency", lambda: str(self.adjacency_combo.currentData()),
             lambda v: _choose(self.adjacency_combo, v, "adjacency")),
            ("eta", self._eta, lambda v: self.eta_edit.setEditText(
                str(v) if isinstance(v, str) else f"{float(v):g}")),
            ("domain_rule", lambda: str(self.domain_combo.currentData()),
             lambda v: _choose(self.domain_combo, v, "domain rule")),
            ("delta_method", lambda: str(self.accountant_combo.currentData()),
             lambda v: _choose(self.accountant_combo, v, "accountant")))

    def parameters(self) -> SweepParameters:
        """The parameters in the widgets; raises :class:`InputError` naming the field if any
        is invalid (checked by :class:`SweepParameters`, as on the command line)."""
        return SweepParameters(**{name: read() for name, read, _ in self._bindings()},
                               **self._policy_kwargs())

    def _policy_kwargs(self) -> dict[str, Any]:
        return self.policy_choice.sweep_kwargs()

    def _eta(self) -> "float | str":
        return parse_eta(self.eta_edit.currentText().strip())

    def set_parameters(self, **values: Any) -> None:
        """Show some fields at once (``--screenshot``, tests, the designer's recommendation),
        by :class:`SweepParameters` field name (``ks`` as text: "10, 100"), in the order of
        :meth:`_bindings`: an unknown choice raises ValueError and leaves the later ones
        unset; an unknown field raises TypeError and sets nothing."""
        bindings = self._bindings()
        unknown = sorted(set(values) - {name for name, _, _ in bindings})
        if unknown:
            raise TypeError(f"set_parameters: no field {', '.join(unknown)}")
        for name, _, show in bindings:
            if values.get(name) is not None:
                show(values[name])

    def _set_k_text(self, ks: str) -> None:
        self.k_edit.setText(ks)
        self.k_edit.setCursorPosition(0)

    def model_problem(self) -> str | None:
        """Why the model cannot be analysed (the first problem), or None if it is valid."""
        if not self._document.has_mdp(self._mdp_id):
            return "this MDP is no longer in the project"
        errors = self._document.errors(self._mdp_id)
        if not errors:
            return None
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return errors[0].message + more

    def _refuse_invalid_model(self, what: str) -> bool:
        problem = self.model_problem()
        if problem is None:
            return False
        text = f"Cannot run {what}: the model is not valid — {problem}. Fix it in the Inspector."
        self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>{html.escape(text)}"
                                  "</span>")
        self._status_is_invalid_model = True
        self.message_logged.emit("WARNING", text)
        return True

    def run(self) -> bool:
        """Validate and start the sweep; on bad input show why and start nothing."""
        if not self._document.has_mdp(self._mdp_id) or self._refuse_invalid_model(
                "the privacy sweep"):
            return False
        self._status_is_invalid_model = False
        try:
            params = self.parameters()
        except InputError as exc:
            self._show_error(str(exc))
            QMessageBox.warning(self, "Cannot run the privacy sweep",
                                f"Please fix the run parameters first.\n\n{exc}")
            return False
        mdp = self._document.mdp_entry(self._mdp_id).mdp  # frozen: a safe snapshot
        from core.mdp import sweep_release

        self._running = ("sweep", params, mdp, {})
        from gui.shell.settings import on_backend

        self._runner.start(on_backend(sweep_release), mdp, params)
        return True

    def run_bounds(self) -> bool:
        """Start "Synthesise & bound" (one private model at the k of its field)."""
        if not self._document.has_mdp(self._mdp_id) or self._refuse_invalid_model(
                "Synthesise & bound"):
            return False
        try:
            params = self.bounds_parameters()
        except InputError as exc:
            self._show_error(str(exc))
            return False
        model = self._document.model(self._mdp_id)
        key = model.digest_key()  # the model's digest is computed in the worker
        mdp = self._document.mdp_entry(self._mdp_id).mdp  # frozen: a safe snapshot
        self._running = ("bounds", params, mdp, {"version": model.version, "policy_file":
                                                 self.policy_choice.path if params.policy_table
                                                 is not None else ""})
        self._runner.start(bounds_release, mdp, params, digest_key=key)
        return True

    def bounds_parameters(self) -> BoundsParameters:
        """The parameters of "Synthesise & bound" in the widgets (InputError if invalid)."""
        return BoundsParameters(
            k=float(self.bounds_k_spin.value()), beta=self.beta_spin.value(),
            alpha_mode=str(self.alpha_combo.currentData()),
            seeded=self.seeded_check.isChecked(), seed=self.seed(), eta=self._eta(),
            domain_rule=str(self.domain_combo.currentData()), b=float(self.b_spin.value()),
            delta_target=float(self.delta_spin.value()),
            adjacency=str(self.adjacency_combo.currentData()),
            delta_method=str(self.accountant_combo.currentData()),
            **self.policy_choice.bounds_kwargs())

    def cancel(self) -> None:
        if self._runner.is_running:
            self.status_label.setText("Cancelling…")
            self._runner.cancel()

    # ------------------------------------------------------------------ helpers
    def _label(self, text: str, key: str) -> QLabel:
        label = QLabel(text, self)
        label.setToolTip(TOOLTIPS[key])
        return label

    def _show_error(self, message: str) -> None:
        self.k_error.setText(message)
        self.k_error.show()
        self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>{message}</span>")

    def _update_model_label(self) -> None:
        if not self._document.has_mdp(self._mdp_id):
            self.model_label.setText("(this MDP is no longer in the project)")
            return
        m = self._document.model(self._mdp_id)
        horizon = f"horizon T = {m.horizon}" if m.horizon is not None else "infinite horizon"
        pairs = sum(len(a) for a in m.action_ids)
        s0 = m.label(m.initial_state) if m.initial_state in m.state_ids else "–"
        problem = self.model_problem()
        if problem is None:
            validity = "<span style='color:#1B7F3B'>model valid ✓</span>"
        else:
            validity = (f"<span style='color:{ERROR_COLOUR}'>model invalid: "
                        f"{html.escape(problem)} — the analyses will not run until it is "
                        "fixed</span>")
        self.model_label.setText(
            f"<b>{html.escape(m.name or self._mdp_id)}</b><br>{m.n_states} states, "
            f"{pairs} state–action pairs, {horizon}, γ = {m.discount:g}, "
            f"s₀ = {html.escape(s0)}<br>{validity}")

    # ------------------------------------------------------------------ slots
    def _on_k_edit_text_changed(self, text: str) -> None:
        try:
            parse_k_list(text)
        except InputError as exc:
            show_field_error(self.k_edit, str(exc), TOOLTIPS["k"], message=self.k_error,
                             prefix="")
        else:
            show_field_error(self.k_edit, "", TOOLTIPS["k"])
            self.k_error.hide()
            self.k_error.clear()
        self.parameters_changed.emit()

    def _on_parameter_changed(self, *args: object) -> None:
        self.parameters_changed.emit()

    def _on_adjacency_combo_changed(self, *args: object) -> None:
        key = str(self.adjacency_combo.currentData())
        self.adjacency_label.setText(f"Assumed: {ADJACENCY_TEXT[key]}.")
        self.parameters_changed.emit()

    def _on_seeded_check_toggled(self, checked: bool) -> None:
        self.seed_spin.setEnabled(checked)
        if checked:
            self.mode_label.setText("Reproducible; for studying the method, not for releasing "
                                    "private data.")
        else:
            self.mode_label.setText("A fresh seed is drawn from the OS for each run and "
                                    "recorded. Still an experiment: the sweep uses the true "
                                    "model, so it is never a release.")
        self.parameters_changed.emit()

    def _on_running_changed(self, running: bool) -> None:
        self.bounds_button.setEnabled(not running)
        if running:
            self.k_error.hide()

    def _on_runner_succeeded(self, result: object) -> None:
        if self._running is None:
            return
        kind, params, snapshot, extra = self._running
        self._running = None
        if not self._document.has_mdp(self._mdp_id):
            self.message_logged.emit("WARNING", f"{kind} finished but MDP {self._mdp_id} is "
                                                "gone; the result was discarded")
            return
        entry = self._document.mdp_entry(self._mdp_id)
        if not self._document.is_valid(self._mdp_id) or entry.mdp is not snapshot:
            self.message_logged.emit("WARNING", f"MDP {self._mdp_id} changed during the run; "
                                                "the recorded result is for the model as it "
                                                "was when the run started")
        if kind == "bounds":
            status, warnings = record_bounds(self._document, self._mdp_id, result, extra,
                                             self._stack_key)
            for w in warnings:
                self.message_logged.emit("WARNING", w)
        else:
            status = record_sweep_run(self._document, self._mdp_id, params, result,
                                      self._stack_key)
        self.status_label.setText(status)

    def _on_runner_failed(self, exc: object) -> None:
        self._running = None
        text = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>Run failed: "
                                  f"{text}</span>")
        self.message_logged.emit("ERROR", f"analysis of {self._mdp_id} failed: {text}")

    def _on_runner_cancelled(self) -> None:
        self._running = None
        self.message_logged.emit("INFO", f"analysis of {self._mdp_id} cancelled")

    def _on_document_mdp_changed(self, mdp_id: str) -> None:
        if mdp_id == self._mdp_id:
            self._update_model_label()
            # a refusal that no longer holds must not stay on screen (e.g. after an undo)
            if getattr(self, "_status_is_invalid_model", False):
                problem = self.model_problem()
                if problem is None:
                    self._status_is_invalid_model = False
                    self.status_label.setText("The model is valid again: press Run (F5).")
                else:
                    text = (f"Cannot run: the model is not valid — {problem}. Fix it in the "
                            "Inspector.")
                    self.status_label.setText(f"<span style='color:{ERROR_COLOUR}'>"
                                              f"{html.escape(text)}</span>")


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    def build() -> QWidget:
        runner = TaskRunner()
        panel = AnalysisPanel(example_document(), "four-startups", runner)
        runner.setParent(panel)
        return panel

    return run_preview(build, exec_=exec_, title="Run parameters", size=(340, 560))


if __name__ == "__main__":
    preview()
