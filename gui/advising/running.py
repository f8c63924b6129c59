"""Running the advising workspace: the Run panel's parameters, the runner's results, claims.

:class:`AdvisingRunner` is given the document, the Run panel's widgets (a
:class:`gui.advising.views.RunWidgets`), the results view, the panel's
:class:`gui.shell.workers.TaskRunner`, the set-up shown (a
:class:`gui.advising.views.ShownSetup`), and callables for what it asks of the rest of the
tab: the refused values of the set-up editor, ``log(level, text)``, ``running_changed(bool)``
and ``record(run_record, entries)`` (the panel's :meth:`gui.shell.tool_panel.ToolPanel.record`,
which asks past a budget, records, and announces the run). It never sees the panel. It builds
a run from the Run panel's fields (the core's :class:`core.advising.AdviseParameters`, and for
an experiment over many seeds :class:`core.advising.AdviseBenchParameters`), starts it — a
single run through :func:`core.advising.advise_release`, an experiment through
:func:`core.advising.advise_bench_release`, the entry points that ``advise …`` and
``advise-bench …`` call too — and records (:func:`core.project.advise_run_record`,
:func:`core.project.advise_bench_run_record`) and shows what the run returns. Refusals,
failures and cancellations are the panel's (ToolPanel's).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.advising import (
    AdviseBenchParameters,
    AdviseParameters,
    AdvisingResult,
    ExperimentResult,
    advise_bench_release,
    advise_release,
    check_claims,
    experiment_summary,
    randomness_text,
    single_summary,
)
from core.project import RunRecord, advise_bench_run_record, advise_run_record
from gui.advising.parts import (
    KIND_HELP,
    KIND_TITLES,
    TARGET,
    Refused,
    RunRequest,
)
from gui.advising.results import AdvisingResultsView
from gui.advising.views import SWEEP_KINDS, RunWidgets, ShownSetup
from gui.shell.style import ERROR_COLOUR
from gui.shell.workers import TaskRunner

if TYPE_CHECKING:
    from gui.shell.document import ProjectDocument

__all__ = ["AdvisingRunner"]


class AdvisingRunner:
    """The Run panel's parameters, the runner's results and the claims (see the module
    docstring)."""

    def __init__(self, document: ProjectDocument, widgets: RunWidgets,
                 results: AdvisingResultsView, runner: TaskRunner, shown: ShownSetup, *,
                 setup_problems: Callable[[], list[str]], log: Callable[[str, str], None],
                 running_changed: Callable[[bool], None],
                 record: Callable[[RunRecord, list[Any]], bool]) -> None:
        self._document = document
        self._w = widgets
        self._results = results
        self._runner = runner
        self._shown = shown
        self._setup_problems = setup_problems
        self._log = log
        self._running_changed = running_changed
        self._record_run = record
        self.request: RunRequest | None = None  # the run started last
        self.session: dict[str, ExperimentResult] = {}  # exp1/exp2/exp3 of this session
        self.shown_run: str | None = None
        self.finishing = False  # a fresh result is being recorded (it draws itself)

    # ------------------------------------------------------------------ run parameters
    def on_kind_combo_changed(self, *args: Any) -> None:
        kind = self._w.kind
        self._w.kind_help.setText(KIND_HELP.get(kind, ""))
        experiment = kind != "single"
        self._w.seeds_spin.setEnabled(experiment)
        self._w.workers_spin.setEnabled(experiment)
        self._w.epsilons_field.setEnabled(kind in SWEEP_KINDS)
        self._w.seeded_check.setText("seeded experiment" if experiment or
                                     self._w.seeded_check.isChecked() else
                                     "seeded experiment (unticked: release mode)")
        self.update_mode_label()

    def on_seeded_check_toggled(self, checked: bool) -> None:
        self._w.seed_spin.setEnabled(checked)
        self.on_kind_combo_changed()

    def update_mode_label(self) -> None:
        self._w.mode_label.setText(self._w.mode_text())

    def set_options(self, **options: Any) -> None:
        """Set the run parameters (:meth:`RunWidgets.set_options`) and the "Next run" line."""
        self._w.set_options(**options)
        self.update_mode_label()

    def show_parameters(self, params: AdviseParameters | AdviseBenchParameters) -> None:
        """Show a run's parameters in the Run panel (:meth:`RunWidgets.show_parameters`) and
        the "Next run" line."""
        self._w.show_parameters(params)
        self.update_mode_label()

    def build_request(self) -> RunRequest:
        """The run the Run panel asks for on the set-up shown; Refused (saying why) when the
        set-up is unusable, shows refused values, or a run field is refused."""
        setup = self._shown.setup
        if setup is None:
            raise Refused("No usable set-up: load a preset first.")
        problems = self._setup_problems()
        if problems:
            raise Refused("Fix the red fields first (refused values are not applied): "
                          + "; ".join(problems))
        return self._w.request(setup)

    def start(self, request: RunRequest) -> None:
        """Start ``request`` (from :meth:`build_request`) in the panel's worker."""
        self.request = request
        if request.kind == "single":
            self._runner.start(advise_release, request.params)
        else:
            from gui.shell.settings import on_backend

            self._runner.start(on_backend(advise_bench_release), request.bench)
        self._log("INFO", f"advising: {KIND_TITLES[request.kind]} started "
                          f"({self._w.randomness_label()})")

    def cancel(self) -> None:
        if self._runner.is_running:
            self._runner.cancel()
            self._w.progress_label.setText("cancelling…")

    # ------------------------------------------------------------------ runner slots
    def update_running(self, running: bool) -> None:
        # the Run panel's copies of the buttons (RunControls keeps the page's)
        self._w.run_button.setEnabled(not running)
        self._w.cancel_button.setEnabled(running)
        self._running_changed(running)

    def on_runner_succeeded(self, result: object) -> None:
        req = self.request
        if req is None:
            return
        if isinstance(result, AdvisingResult):
            self._finish_single(req, result)
        elif isinstance(result, ExperimentResult):
            self._finish_experiment(req, result)

    def _finish_single(self, req: RunRequest, result: AdvisingResult) -> None:
        p = result.setup.params
        record, entries = advise_run_record(self._document.project, result, req.params)
        if not self._record(record, entries):
            return
        full = single_summary(result, full=True)
        self._results.show_summary(full, self.stamp(record, full))
        self._results.show_single_details(result)
        self.shown_run = record.id
        self._w.progress_label.setText(f"done in {result.elapsed_s:.2f} s — recorded as "
                                       f"{record.id}")
        self._log(
            "INFO", f"advising: {record.id} recorded — {p.strategy}, ε = {p.epsilon:g}, "
                    f"{result.epochs} epochs, {result.advice_total} advice events, "
                    f"{randomness_text(result.mode, result.seed)}")

    def _finish_experiment(self, req: RunRequest, result: ExperimentResult) -> None:
        claims: list[Any] = []
        if req.kind in ("exp1", "exp2", "exp3", "exp1-one-different"):
            key = req.kind.split("-")[0]  # Experiment 1 on either layout: the exp1 claims
            self.session[key] = result
            claims = [c for c in check_claims(self.session) if c.claim.experiment == key]
        if req.bench is None:  # built by RunWidgets.request before every experiment starts
            return
        record, entries = advise_bench_run_record(self._document.project, result, req.bench,
                                                  claims=claims)
        if not self._record(record, entries):
            return
        full = experiment_summary(result, full=True, delta=req.delta, claims=claims)
        self._results.show_summary(full, self.stamp(record, full))
        self._results.show_experiment_details(result)
        self.shown_run = record.id
        self.update_claims()
        self._w.progress_label.setText(f"done in {result.elapsed_s:.1f} s — recorded as "
                                       f"{record.id}")
        self._log(
            "INFO", f"advising: {record.id} recorded — {KIND_TITLES[req.kind]}, "
                    f"{len(result.labels)} arms × {result.n_seeds} seeds, "
                    f"{result.epochs} epochs, {full['randomness']}")

    def _record(self, record: RunRecord, entries: list[Any]) -> bool:
        """The run record and its privacy-ledger entries, recorded by the panel (asked first
        past a budget); False when declined (nothing recorded or shown). The fresh result
        is drawn by the caller, not from the stored summary."""
        self.finishing = True
        try:
            if not self._record_run(record, entries):
                return False
        finally:
            self.finishing = False
        self.shown_run = record.id
        return True

    def stamp(self, record: RunRecord, s: dict[str, Any]) -> str:
        rnd = html.escape(str(s.get("randomness", "")))
        if s.get("mode") == "release":
            rnd = f"<b style='color:{ERROR_COLOUR}'>{rnd}</b>"
        else:
            rnd = f"<b>{rnd}</b>"
        p = record.params
        if record.kind == "advise":
            what = (f"<b>Single run</b> of <i>{html.escape(str(p.get('setup')))}</i> · strategy "
                    f"{p.get('strategy')} · ε = {p.get('epsilon')} · variant {p.get('variant')}")
        else:
            what = (f"<b>{html.escape(str(p.get('experiment')))}</b> · variant "
                    f"{p.get('variant')} · arms: "
                    + html.escape(", ".join(str(a["label"]) for a in p.get("arms", []))))
        return (f"{what} · {s.get('epochs')} epochs · {rnd} · recorded as "
                f"<b>{record.id}</b> ({float(s.get('elapsed_s', 0.0)):.1f} s)")

    # ------------------------------------------------------------------ recorded runs
    def show_run(self, run_id: str) -> bool:
        """Show a recorded advising run from its summary (curves, tables, ledger)."""
        try:
            record = self._document.run(run_id)
        except KeyError:
            return False
        if record.kind not in ("advise", "advise-experiment"):
            return False
        s = record.summary
        self._results.show_summary(s, self.stamp(record, s))
        self._results.show_details_unavailable()
        self.shown_run = run_id
        self.update_claims()
        return True

    def show_latest_record(self) -> None:
        """Show the project's latest advising run (if any), and the recorded claims."""
        runs = [r for r in self._document.project.runs
                if r.kind in ("advise", "advise-experiment") and r.target == TARGET]
        if runs:
            try:
                self.show_run(runs[-1].id)
                return
            except (KeyError, TypeError, ValueError) as exc:  # a damaged record: say so
                self._results.clear()
                self._log("WARNING", f"advising: cannot show {runs[-1].id} ({exc})")
        self.update_claims()

    def forget_session(self) -> None:
        """Another project: this session's experiments and the run shown no longer apply."""
        self.session.clear()
        self.shown_run = None
        self._results.clear()
        self._results.clear_sweep()

    def on_document_run_removed(self, run_id: str) -> None:
        if run_id == self.shown_run:
            self._results.caption.setText(self._results.caption.text()
                                          + " <i>— its run record was removed (undo)</i>")
            self.shown_run = None

    # ------------------------------------------------------------------ claims
    def update_claims(self) -> None:
        checks = [c.to_dict() for c in check_claims(self.session)]
        used = sorted(self.session)
        from_records: list[str] = []
        # claims of experiments not run in this session: the latest recorded verdicts
        latest: dict[str, tuple[str, dict[str, Any]]] = {}
        for r in self._document.project.runs:
            if r.kind == "advise-experiment" and r.target == TARGET:
                for c in r.summary.get("claims", []) or []:
                    latest[c["id"]] = (r.id, c)
        for i, c in enumerate(checks):
            if c["verdict"] == "not run" and c["id"] in latest:
                rid, old = latest[c["id"]]
                checks[i] = {**old, "ours": f"{old.get('ours', '')} [{rid}]"}
                if rid not in from_records:
                    from_records.append(rid)
        parts = []
        if used:
            parts.append("runs of this session: " + ", ".join(
                f"{k} ({self.session[k].n_seeds} seeds, "
                f"{self.session[k].epochs} epochs, "
                f"{self.session[k].setups[-1].params.variant} variant)"
                for k in used))
        if from_records:
            parts.append("recorded runs " + ", ".join(from_records))
        note = ("<b>Thesis claims (§3.6)</b> — from " + ("; ".join(parts) or "no runs") +
                ". Claims that spec §10.5 says must not be pass/fail tests (the 92 % "
                "asymptote, DP ≥ traditional in Exp. 1, the ~7 % gain, ε = 0.1 worse than no "
                "advice, budgets out near epoch 300) are reported, never asserted. Hover a row "
                "for how it is tested.")
        self._results.show_claims(checks, note)
