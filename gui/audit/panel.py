"""The Audit workspace: does each mechanism leak no more than PrivPlan says it does?

(Over 600 lines: the one widget holds the set-up form, the run and the result view; its
words and result texts live in :mod:`gui.audit.texts`, its plots in :mod:`gui.audit.plots`,
its Run/Cancel/progress in :class:`gui.shell.run_controls.RunControls`.)

Top — the set-up: the mechanism (Laplace, exponential, the Dirichlet row mechanism, the
advising advice as the student sees it, the logistics releases) and its *public*
parameters (each with a one-sentence tooltip saying what it means and which way is more
private), the samples N per side, the randomness (seeded experiment with its seed, or
release mode: OS-seeded, through the release code path) and the confidence level of ε_lb.
Run (F5, or the button) audits in this tab's :class:`~gui.shell.workers.TaskRunner`; Esc or
Cancel stops it; progress shows beside the button and in the status bar.

Bottom — the result, stamped with its parameters and seed: a verdict banner (red for
"violation": the attack proves ε_lb > ε_claimed; green for "consistent"; amber when the
mechanism claims no finite bound at all, which nothing can violate), the bars
ε_lb ≤ ε_tight ≤ ε_claimed, the attack ROC against the boundary the claim allows, and the
worst pair found with the mode, the adjacency and the audit's notes. Before the first
audit, an empty state says what will appear.

Each finished audit is recorded in the project as a run of kind ``"audit"`` (one undoable
step, :class:`gui.shell.commands.AddRunCommand`; the report has a section for it); double-click
it in the project tree to show it again. An audit releases nothing about the project's
data — it runs the mechanism on neighbouring inputs it constructs itself — so it makes no
ledger entry.

A bad parameter turns its field red with the reason beside it and in its tooltip; the
shown result and every other field stay as they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.audit import RUN_KIND, AuditParameters, AuditResult, audit_release, audit_summary
from core.common import InputError
from core.project import audit_run_record
from gui.audit.fields import MechanismField
from gui.audit.plots import EpsilonBarsPlot, RocPlot, fmt_eps
from gui.audit.texts import (
    BANNER,
    DEFAULT_SAMPLES,
    EMPTY_TEXT,
    MAX_SAMPLES,
    MECHANISM_CHOICES,
    PARAMETERS,
    TOOLTIPS,
    _display_verdict,
    _value_text,
    available,
    details_html,
    randomness_text,
    stamp_html,
    verdict_text,
)
from gui.shell.bindings import Binding, read_bindings, show_bindings
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument
from gui.shell.run_controls import RunControls
from gui.shell.style import ERROR_COLOUR
from gui.shell.tool_panel import ToolPanel
from gui.shell.tools import ToolSpec, register_tool
from gui.shell.widgets import SciSpinBox, info_panel, show_field_error

__all__ = ["AuditPanel", "MECHANISM_CHOICES", "PARAMETERS", "TOOLTIPS", "EMPTY_TEXT",
           "verdict_text", "DEFAULT_SAMPLES"]

class AuditPanel(ToolPanel):
    """The Audit tool tab (see the module docstring)."""

    result_shown = Signal()  # a result (fresh or recorded) was drawn
    status_name = "Audit"
    log_name = "audit"
    undo_key = "audit"
    refusal_prefix = ""

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None, *,
                 status_bar: QStatusBar | None = None) -> None:
        super().__init__(document, parent, status_bar=status_bar)
        self.setObjectName("audit_panel")
        self._request: AuditParameters | None = None

        title = QLabel("<b>Privacy audit</b> — does a mechanism leak no more than PrivPlan "
                       "claims? An attack on neighbouring inputs proves a lower bound ε_lb "
                       "on the true ε; above the claim, the claim is false.", self)
        title.setWordWrap(True)
        setup = self._build_setup()
        results = self._build_results()
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(setup)
        self.splitter.addWidget(results)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(title)
        layout.addWidget(self.splitter, 1)
        self.info_panel = self._build_info_panel()

        self.run_controls.running_changed.connect(self._update_running)
        self.connect_runner()
        self._runner.finished.connect(self._on_runner_finished)
        document.project_replaced.connect(self._on_document_project_replaced)
        document.run_removed.connect(self._on_document_run_removed)
        document.run_added.connect(self._on_document_run_added)
        self._update_running(False)
        self._show_latest_record()

    # ================================================================== construction
    def _build_setup(self) -> QWidget:
        box = QGroupBox("Mechanism and its public parameters", self)
        grid = QGridLayout(box)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)

        left = QVBoxLayout()
        row = QHBoxLayout()
        label = QLabel("Mechanism", box)
        label.setToolTip(TOOLTIPS["mechanism"])
        self.mechanism_combo = QComboBox(box)
        self.mechanism_combo.setToolTip(TOOLTIPS["mechanism"])
        model = self.mechanism_combo.model()
        for i, (key, (text, sees, _)) in enumerate(MECHANISM_CHOICES.items()):
            self.mechanism_combo.addItem(text, key)
            ok = available(key)
            self.mechanism_combo.setItemData(
                i, f"The observer sees {sees}." if ok else
                "This audit is not available in this build.", Qt.ItemDataRole.ToolTipRole)
            if not ok:
                item = model.item(i)  # type: ignore[attr-defined]
                if item is not None:
                    item.setEnabled(False)
        row.addWidget(label)
        row.addWidget(self.mechanism_combo, 1)
        left.addLayout(row)
        self.sees_label = QLabel(box)
        self.sees_label.setWordWrap(True)
        self.sees_label.setStyleSheet("color: #555;")
        left.addWidget(self.sees_label)
        self.param_stack = QStackedWidget(box)
        self.fields: dict[str, dict[str, MechanismField]] = {}
        for key, (_, _, params) in MECHANISM_CHOICES.items():
            page = QWidget(self.param_stack)
            form = QGridLayout(page)
            form.setContentsMargins(0, 0, 0, 0)
            form.setHorizontalSpacing(6)
            form.setVerticalSpacing(1)
            fields: dict[str, MechanismField] = {}
            for i, name in enumerate(params):
                f = MechanismField(name, page)
                col, r = 3 * (i % 2), 2 * (i // 2)
                form.addWidget(f.label, r, col)
                form.addWidget(f.editor, r, col + 1)
                form.addWidget(f.message, r + 1, col, 1, 2)
                fields[name] = f
            form.setColumnStretch(1, 1)
            form.setColumnStretch(4, 1)
            form.setColumnMinimumWidth(2, 14)
            form.setRowStretch(2 * ((len(params) + 1) // 2), 1)  # rows stay at the top
            self.fields[key] = fields
            self.param_stack.addWidget(page)
        left.addWidget(self.param_stack)
        left.addStretch(1)
        grid.addLayout(left, 0, 0)

        sep = QFrame(box)
        sep.setFrameShape(QFrame.Shape.VLine)
        sep.setStyleSheet("color: #CCCCCC;")
        grid.addWidget(sep, 0, 1)

        run_form = QFormLayout()
        run_form.setVerticalSpacing(3)
        self.samples_spin = QSpinBox(box)
        self.samples_spin.setRange(0, MAX_SAMPLES)  # the core refuses N < its minimum
        self.samples_spin.setSingleStep(10_000)
        self.samples_spin.setValue(DEFAULT_SAMPLES)
        self.samples_spin.setGroupSeparatorShown(True)
        self.samples_spin.setToolTip(TOOLTIPS["samples"])
        self.mode_combo = QComboBox(box)
        self.mode_combo.addItem("seeded experiment", "experiment")
        self.mode_combo.addItem("release mode (secure)", "release")
        self.mode_combo.setToolTip(TOOLTIPS["mode"])
        self.seed_spin = QSpinBox(box)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(0)
        self.seed_spin.setToolTip(TOOLTIPS["seed"])
        self.confidence_spin = SciSpinBox(box, minimum=0.5, maximum=0.9999, value=0.95,
                                          digits=4, step=0.01)
        self.confidence_spin.setToolTip(TOOLTIPS["confidence"])
        self.run_fields: dict[str, tuple[QWidget, QLabel]] = {}
        for key, text, w in (("samples", "samples N per side", self.samples_spin),
                             ("mode", "randomness", self.mode_combo),
                             ("seed", "seed", self.seed_spin),
                             ("confidence", "confidence of ε_lb", self.confidence_spin)):
            lab = QLabel(text, box)
            lab.setToolTip(TOOLTIPS[key])
            msg = QLabel(box)
            msg.setWordWrap(True)
            msg.setStyleSheet(f"color: {ERROR_COLOUR};")
            msg.hide()
            run_form.addRow(lab, w)
            run_form.addRow(msg)
            self.run_fields[key] = (w, msg)
        grid.addLayout(run_form, 0, 2)

        self.run_controls = RunControls(
            self._runner, box, run=self.run, cancel=self.cancel, run_text="▶ Run audit (F5)",
            run_tip="Run the audit in the background (F5)",
            cancel_tip="Stop the running audit (Esc); nothing is recorded",
            running_text="auditing…", cancelled_text="cancelled — nothing was recorded",
            clear_on_finish=False)
        self.run_button = self.run_controls.run_button
        self.cancel_button = self.run_controls.cancel_button
        self.progress = self.run_controls.progress
        self.progress_label = self.run_controls.progress_label
        left.addLayout(self.run_controls.layout_row())
        self.run_message = QLabel(box)
        self.run_message.setWordWrap(True)
        self.run_message.setTextFormat(Qt.TextFormat.PlainText)
        self.run_message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.run_message.hide()
        grid.addWidget(self.run_message, 1, 0, 1, 3)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(2, 2)

        self.mechanism_combo.currentIndexChanged.connect(self._on_mechanism_changed)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_changed)
        self._on_mechanism_changed()
        self._on_mode_changed()
        return box

    def _build_results(self) -> QWidget:
        self.results_stack = QStackedWidget(self)
        self.empty_label = QLabel(EMPTY_TEXT, self.results_stack)
        self.empty_label.setWordWrap(True)
        self.empty_label.setTextFormat(Qt.TextFormat.RichText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty_label.setStyleSheet("QLabel { color: #444; padding: 14px; }")
        self.empty_label.setMaximumWidth(900)
        empty = QWidget(self.results_stack)
        el = QHBoxLayout(empty)
        el.addWidget(self.empty_label, 1)
        el.addStretch(0)

        page = QWidget(self.results_stack)
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.verdict_label = QLabel(page)
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stamp_label = QLabel(page)
        self.stamp_label.setWordWrap(True)
        self.stamp_label.setStyleSheet("color: #555;")
        self.bars_plot = EpsilonBarsPlot()
        self.roc_plot = RocPlot()
        self.details = QTextBrowser(page)
        self.details.setOpenLinks(False)
        self.details.setMinimumWidth(260)
        row = QSplitter(Qt.Orientation.Horizontal, page)
        row.addWidget(self.bars_plot)
        row.addWidget(self.roc_plot)
        row.addWidget(self.details)
        row.setStretchFactor(0, 4)
        row.setStretchFactor(1, 4)
        row.setStretchFactor(2, 3)
        row.setChildrenCollapsible(False)
        lay.addWidget(self.verdict_label)
        lay.addWidget(row, 1)
        lay.addWidget(self.stamp_label)
        self.results_page = page
        self.results_stack.addWidget(empty)
        self.results_stack.addWidget(page)
        self.results_stack.setCurrentIndex(0)
        return self.results_stack

    def _build_info_panel(self) -> QWidget:
        return info_panel(
            "<b>Privacy audit</b><p>For the chosen mechanism the audit takes PrivPlan's own "
            "claim (ε_claimed, δ and the adjacency), searches neighbouring inputs for the "
            "pair that is easiest to tell apart, samples the mechanism N times on each side "
            "and runs a distinguishing attack on held-out samples.</p>"
            "<p><b>ε_lb</b> is what the attack <i>proves</i>: with the chosen confidence, "
            "the true ε is at least ε_lb (Clopper–Pearson on both error rates, spec F3). "
            "<b>ε_tight</b> is the exact ε of the worst pair, where the output densities are "
            "known. <b>ε_claimed</b> is the guarantee PrivPlan prints. An honest mechanism "
            "has ε_lb ≤ ε_tight ≤ ε_claimed.</p>"
            "<p><b>Verdict</b>: <span style='color:#7A2300'>violation</span> iff ε_lb &gt; "
            "ε_claimed, or the exact ε_tight of a searched pair exceeds it — the printed "
            "guarantee is false. A mechanism that claims no finite "
            "bound (raw data released) cannot be violated; its ε_lb shows how much leaks."
            "</p><p>An audit is an experiment on inputs it builds itself: it releases "
            "nothing about the project's data, so the ledger is not touched. Each audit is "
            "recorded in the project and its report.</p>")

    # ================================================================== public API
    def mechanism(self) -> str:
        return str(self.mechanism_combo.currentData())

    def set_mechanism(self, key: str) -> None:
        i = self.mechanism_combo.findData(key)
        if i < 0:
            raise ValueError(f"no mechanism {key!r}")
        self.mechanism_combo.setCurrentIndex(i)

    def field(self, name: str, mechanism: str | None = None) -> MechanismField:
        return self.fields[mechanism or self.mechanism()][name]

    def field_error(self, name: str) -> str:
        """The error shown beside ``name`` (a parameter or samples/seed/confidence)."""
        if name in self.run_fields:
            msg = self.run_fields[name][1]
            return msg.text() if msg.isVisibleTo(self) else ""
        f = self.fields[self.mechanism()].get(name)
        return f.error if f is not None else ""

    def parameters(self) -> dict[str, Any]:
        """The public parameters of the current mechanism, as its fields hold them."""
        return {k: f.value() for k, f in self.fields[self.mechanism()].items()}

    def run_bindings(self) -> tuple[Binding, ...]:
        """The run's widgets bound to :class:`AuditParameters`' ``samples``, ``seed`` (None:
        release mode) and ``confidence`` (the mechanism's own fields are :attr:`fields`)."""
        return (Binding("samples", lambda: int(self.samples_spin.value()),
                        lambda v: self.samples_spin.setValue(int(v)), self.samples_spin),
                Binding("seed", self.seed, self._show_seed, self.seed_spin),
                Binding("confidence", lambda: float(self.confidence_spin.value()),
                        lambda v: self.confidence_spin.setValue(float(v)),
                        self.confidence_spin))

    def audit_parameters(self) -> AuditParameters:
        """What ``audit MECHANISM …`` builds for the same inputs (InputError if invalid)."""
        return AuditParameters(self.mechanism(), self.parameters(),
                               **read_bindings(self.run_bindings()))

    def set_parameters(self, mechanism: str | None = None, **values: Any) -> None:
        """Set the mechanism and any of its parameters, ``samples``, ``seed`` (None:
        release mode) and ``confidence``."""
        if mechanism is not None:
            self.set_mechanism(mechanism)
        run = self.run_bindings()
        show_bindings(run, {b.name: values.pop(b.name) for b in run if b.name in values})
        fields = self.fields[self.mechanism()]
        unknown = set(values) - set(fields)
        if unknown:
            raise KeyError(f"unknown parameters for {self.mechanism()}: {sorted(unknown)}")
        for k, v in values.items():
            fields[k].set_value(v)

    def seed(self) -> int | None:
        return None if self.mode_combo.currentData() == "release" else self.seed_spin.value()

    def _show_seed(self, seed: int | None) -> None:
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(
            "release" if seed is None else "experiment"))
        if seed is not None:
            self.seed_spin.setValue(int(seed))

    def randomness_label(self) -> str:
        """For the status bar: the randomness the next audit will use."""
        seed = self.seed()
        return ("audit in release mode (secure randomness)" if seed is None
                else f"audit as a seeded experiment (seed {seed})")

    def run(self) -> bool:
        """Start the audit in the worker; False (with the reason shown) if refused."""
        if self.is_running:
            return False
        self._clear_errors()
        mech = self.mechanism()
        if not available(mech):
            return self.refuse(f"the {MECHANISM_CHOICES[mech][0]} audit is not available "
                                "in this build")
        try:
            params = self._request = self.audit_parameters()
        except InputError as exc:  # shown beside its field; nothing else changes
            self._on_runner_failed(exc)
            return False
        self.message_logged.emit("INFO", f"audit: {MECHANISM_CHOICES[mech][0]} "
                                 f"{_value_text(dict(params.params))}, N = {params.samples}, "
                                 + randomness_text("release" if params.seed is None
                                                   else "experiment", params.seed))
        self._runner.start(audit_release, params)
        return True

    def show_result(self, result: AuditResult, *, record: AuditParameters | None = None
                    ) -> None:
        """Show ``result`` (e.g. one made elsewhere); with ``record`` (what made it), record it."""
        if record is not None:
            return self._record(record, result)
        self._shown_run = None
        summary = audit_summary(result)  # holds what the stamp shows
        self._show_summary(summary, stamp_html({}, summary, None))

    def show_run(self, run_id: str) -> None:
        """Show a recorded audit (double-click in the project tree)."""
        rec = self._document.run(run_id)
        if rec.kind != RUN_KIND:
            raise ValueError(f"{run_id} is a {rec.kind} run, not an audit")
        self._shown_run = rec.id
        req = {"mechanism": rec.target, "params": rec.params.get("params", {}),
               "samples": rec.params.get("samples"), "seed": rec.seed,
               "confidence": rec.params.get("confidence")}
        self._show_summary(rec.summary, stamp_html(req, rec.summary, rec.id))

    # ================================================================== running
    def _clear_errors(self) -> None:
        self._problem = ""
        self.run_message.hide()
        for fields in self.fields.values():
            for f in fields.values():
                f.show_error("")
        for key, (w, msg) in self.run_fields.items():
            w.setStyleSheet("")
            w.setToolTip(TOOLTIPS[key])
            msg.hide()

    def _show_input_error(self, exc: InputError) -> None:
        field = exc.field or ""
        problem = exc.problem
        fields = self.fields[self.mechanism()]
        if field in fields:
            fields[field].show_error(problem)
            self._problem = f"{PARAMETERS[field].label}: {problem}"
        elif field in self.run_fields:
            w, msg = self.run_fields[field]
            show_field_error(w, problem, TOOLTIPS[field], message=msg)
            self._problem = f"{field}: {problem}"
        else:
            self._problem = str(exc)
        self.run_message.setText(f"Not audited — {self._problem}. "
                                 + ("The result below is the previous one."
                                    if self._summary is not None else ""))
        self.run_message.show()

    def _update_running(self, running: bool) -> None:
        self.running_changed.emit(running)
        self.mechanism_combo.setEnabled(not running)
        self.param_stack.setEnabled(not running)
        for w, _ in self.run_fields.values():
            w.setEnabled(not running)
        if not running:
            self._on_mode_changed()

    def _on_runner_succeeded(self, result: object) -> None:
        if not isinstance(result, AuditResult) or self._request is None:
            self.run_controls.set_status("failed")
            self._on_runner_failed(TypeError(f"audit_release returned {type(result).__name__}"))
            return
        self._record(self._request, result)
        self.run_controls.set_status(f"done in {result.elapsed_s:.1f} s — recorded as "
                                     f"{self._shown_run}")

    def _on_runner_failed(self, exc: object) -> None:
        if isinstance(exc, InputError):
            self._show_input_error(exc)
            self.message_logged.emit("WARNING", f"audit not run: {exc}")
        else:
            self.refuse(f"the audit failed: {type(exc).__name__}: {exc}")
            self.message_logged.emit("ERROR", f"audit failed: {type(exc).__name__}: {exc}")

    def _on_runner_cancelled(self) -> None:
        self.message_logged.emit("INFO", "audit cancelled")

    def _on_runner_finished(self) -> None:
        if self._status_bar is not None:
            self._status_bar.clearMessage()

    def _record(self, params: AuditParameters, result: AuditResult) -> None:
        record = audit_run_record(self._document.project, result, params)
        summary = record.summary
        self._document.push(AddRunCommand(self._document, record), "audit")  # shows it
        if self._shown_run != record.id:
            self._shown_run = record.id
            self._show_summary(summary, stamp_html(record.params, summary, record.id))
        self.message_logged.emit(
            "INFO" if result.verdict == "consistent" else "ERROR",
            f"audit {record.id}: {result.label or result.mechanism} — {result.verdict}, "
            f"ε_lb = {fmt_eps(result.epsilon_lb)}, ε_tight = {fmt_eps(result.epsilon_tight)}, "
            f"ε_claimed = {fmt_eps(result.epsilon_claimed)}")
        self.run_recorded.emit(record.id)

    # ================================================================== display
    def _show_summary(self, s: Mapping[str, Any], stamp: str) -> None:
        self._summary = dict(s)
        kind = _display_verdict(s)
        bg, border, fg = BANNER[kind]
        self.verdict_label.setStyleSheet(
            f"QLabel {{ background: {bg}; border: 2px solid {border}; border-radius: 4px; "
            f"color: {fg}; padding: 7px; font-size: 11pt; }}")
        self.verdict_label.setText(verdict_text(s))
        self.verdict_label.setProperty("verdict", kind)
        self.bars_plot.set_summary(s)
        self.roc_plot.set_summary(s)
        self.details.setHtml(details_html(s))
        self.stamp_label.setText(stamp)
        self.results_stack.setCurrentIndex(1)
        self.result_shown.emit()

    def _show_empty(self) -> None:
        self._summary = None
        self._shown_run = None
        self.bars_plot.clear_result()
        self.roc_plot.clear_result()
        self.results_stack.setCurrentIndex(0)

    def _show_latest_record(self) -> None:
        runs = [r for r in self._document.project.runs if r.kind == RUN_KIND]
        if not runs:
            self._show_empty()
            return
        try:
            self.show_run(runs[-1].id)
        except (KeyError, TypeError, ValueError) as exc:
            self.message_logged.emit("WARNING", f"audit: cannot show {runs[-1].id} ({exc})")
            self._show_empty()

    # ================================================================== slots
    def _on_mechanism_changed(self, *args: object) -> None:
        mech = self.mechanism()
        self.param_stack.setCurrentIndex(list(MECHANISM_CHOICES).index(mech))
        title, sees, _ = MECHANISM_CHOICES[mech]
        ok = available(mech)
        self.sees_label.setText(f"The observer sees {sees}." if ok else
                                f"The {title} audit is not available in this build.")

    def _on_mode_changed(self, *args: object) -> None:
        self.seed_spin.setEnabled(self.mode_combo.currentData() == "experiment"
                                  and not self.is_running)

    def _on_document_project_replaced(self) -> None:
        self._show_latest_record()

    def _on_document_run_added(self, run_id: str) -> None:
        try:
            rec = self._document.run(run_id)
        except KeyError:
            return
        if rec.kind == RUN_KIND:  # a new audit, or one whose removal was undone
            self.show_run(run_id)

    def _on_document_run_removed(self, run_id: str) -> None:
        if run_id == self._shown_run:  # e.g. its recording was undone
            self._show_latest_record()


register_tool(ToolSpec(
    "audit", "Audit",
    lambda window: AuditPanel(window.document, window.tabs, status_bar=window.statusBar()),
    "Empirical privacy audit: attack each mechanism on neighbouring inputs and compare the "
    "proven ε_lb with the ε PrivPlan claims.\nDouble-click to open."))


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import example_document, run_preview

    return run_preview(lambda: AuditPanel(example_document()), exec_=exec_,
                       title="Audit", size=(1300, 820))


if __name__ == "__main__":
    preview()
