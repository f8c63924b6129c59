"""Running the advising workspace: the Run panel's parameters, the runner's results, claims.

:class:`AdvisingRunner` is an object of :class:`gui.advising.panel.AdvisingPanel` that takes
``(document, view)``: it follows the Run panel's fields and the panel's runner, and records
and shows what a run returns. A
finished run is recorded with its ledger entries in one undoable
:class:`gui.shell.commands.AddRunCommand`.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from core.advising import (
    AdvisingResult,
    ExperimentArm,
    ExperimentResult,
    check_claims,
    experiment_arms,
    experiment_ledger_entries,
    experiment_summary,
    randomness_text,
    rounded_json,
    single_summary,
)
from core.common import InputError
from core.privacy import advanced_composition, check_epsilon
from core.project import RunRecord, advise_run_record
from gui.advising.models import (
    parse_number,
)
from gui.advising.parts import (
    KIND_HELP,
    KIND_TITLES,
    TARGET,
    Refused,
    RunRequest,
    problem_text,
)
from gui.shell.commands import AddRunCommand
from gui.shell.ledger import OVER_BUDGET_TEXT, approve_entries
from gui.shell.style import ERROR_COLOUR

if TYPE_CHECKING:
    from gui.advising.panel import AdvisingPanel
    from gui.shell.document import ProjectDocument

__all__ = ["AdvisingRunner"]


class AdvisingRunner:
    """The Run panel's parameters, the runner's results and the claims (see the module
    docstring)."""

    def __init__(self, document: ProjectDocument, view: AdvisingPanel) -> None:
        self._document = document
        self._view = view


    # ------------------------------------------------------------------ run parameters
    def on_kind_combo_changed(self, *args: Any) -> None:
        kind = self._view.run_kind
        self._view.kind_help.setText(KIND_HELP.get(kind, ""))
        experiment = kind != "single"
        self._view.seeds_spin.setEnabled(experiment)
        self._view.workers_spin.setEnabled(experiment)
        self._view.epsilons_field.setEnabled(kind in ("sweep", "exp3"))
        self._view.seeded_check.setText("seeded experiment" if experiment or
                                  self._view.seeded_check.isChecked() else
                                  "seeded experiment (unticked: release mode)")
        self.update_mode_label()

    def on_seeded_check_toggled(self, checked: bool) -> None:
        self._view.seed_spin.setEnabled(checked)
        self.on_kind_combo_changed()

    def update_mode_label(self) -> None:
        text = html.escape(self._view.randomness_label())
        if self._view.run_kind == "single" and not self._view.seeded_check.isChecked():
            self._view.mode_label.setText(f"<b style='color:{ERROR_COLOUR}'>{text}</b>: a private "
                                    "release; its ε is spent for real.")
        else:
            self._view.mode_label.setText(f"Next run: <b>{text}</b> — for studying the method, "
                                    "not a private release.")

    def _parse_epsilons(self) -> tuple[float, ...]:
        text = self._view.epsilons_field.edit.text()
        parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise InputError("needs at least one value", field="epsilons")
        vals = []
        for p in parts:
            vals.append(check_epsilon(p.strip(), "epsilons"))
        return tuple(sorted(set(vals)))

    def build_request(self) -> "RunRequest":
        if self._view.setup is None:
            raise Refused("No usable set-up: load a preset first.")
        problems = [f.error.text() for f in self._view.fields.values() if f.has_error]
        if self._view.reward_model.invalid_cells:
            (t, k), (txt, why) = next(iter(self._view.reward_model.invalid_cells.items()))
            problems.append(f"reward cell (task {self._view.setup.tasks[t]}, server "
                            f"{self._view.setup.servers[k]}) shows a refused value {txt!r}")
        if problems:
            raise Refused("Fix the red fields first (refused values are not applied): "
                           + "; ".join(problems))
        kind = self._view.run_kind
        seeded = self._view.seeded_check.isChecked()
        try:
            delta = float(parse_number(self._view.delta_field.edit.text()))
            advanced_composition([], delta=delta)  # validates 0 < δ < 1
        except (ValueError, InputError) as exc:
            msg = problem_text(exc) if isinstance(exc, InputError) else str(exc)
            self._view.delta_field.set_error(f"δ {msg}")
            raise Refused(f"δ {msg}") from None
        self._view.delta_field.clear_error()
        req = RunRequest(kind=kind, setup=self._view.setup, seeded=seeded,
                       seed=self._view.seed_spin.value() if seeded else None,
                       n_seeds=self._view.seeds_spin.value(),
                       workers=self._view.workers_spin.value(),
                       delta=delta)
        if kind in ("sweep", "exp3"):
            try:
                req.epsilons = self._parse_epsilons()
            except InputError as exc:
                self._view.epsilons_field.set_error(f"ε values: {problem_text(exc)}")
                raise Refused(f"ε values: {problem_text(exc)}") from None
            self._view.epsilons_field.clear_error()
        s = self._view.setup
        try:
            if kind == "strategies":
                req.arms = [ExperimentArm("no advice", s.with_params(strategy="none")),
                            ExperimentArm("traditional", s.with_params(strategy="traditional")),
                            ExperimentArm("dp", s.with_params(strategy="dp"))]
            elif kind == "sweep":
                req.arms = [ExperimentArm("no advice", s.with_params(strategy="none"))] + [
                    ExperimentArm(f"dp eps={e:g}", s.with_params(strategy="dp", epsilon=e))
                    for e in req.epsilons]
            elif kind in ("exp1", "exp2", "exp3", "exp1-one-different"):
                overrides = {k: v for k, v in s.params.to_dict().items() if k != "strategy"}
                extra: dict[str, Any] = {"epsilons": req.epsilons} if kind == "exp3" else {}
                if kind == "exp1-one-different":
                    kind, extra = "exp1", {"layout": "one-different"}
                req.arms = experiment_arms(kind, variant="sound", **extra, **overrides)
        except InputError as exc:
            raise Refused(f"cannot build the experiment: {exc}") from None
        return req

    def show_run_error(self, message: str) -> None:
        self._view.run_error_label.setText(message)
        self._view.run_error_label.show()
        self._view.progress_label.setText("not started")
        self._view.message_logged.emit("WARNING", f"advising run not started: {message}")

    # ------------------------------------------------------------------ runner slots
    def update_running(self, running: bool) -> None:
        # the Run panel's copies of the buttons (RunControls keeps the page's)
        self._view.side_run_button.setEnabled(not running)
        self._view.side_cancel_button.setEnabled(running)
        self._view.running_changed.emit(running)

    def on_runner_cancelled(self) -> None:
        self._view.message_logged.emit("INFO", "advising run cancelled")

    def on_runner_failed(self, exc: object) -> None:
        self.show_run_error(f"The run failed: {exc}")
        self._view.message_logged.emit("ERROR", f"advising run failed: {type(exc).__name__}: {exc}")

    def on_runner_succeeded(self, result: object) -> None:
        req = self._view.request
        if req is None:
            return
        if isinstance(result, AdvisingResult):
            self._finish_single(req, result)
        elif isinstance(result, ExperimentResult):
            self._finish_experiment(req, result)

    def _finish_single(self, req: RunRequest, result: AdvisingResult) -> None:
        p = result.setup.params
        record, entries = advise_run_record(self._document.project, result, delta=req.delta,
                                            seeded=req.seeded)
        if not self._record(record, entries):
            return
        full = single_summary(result, full=True)
        self._view.results.show_summary(full, self.stamp(record, full))
        self._view.results.show_single_details(result)
        self._view.shown_run = record.id
        self._view.progress_label.setText(f"done in {result.elapsed_s:.2f} s — recorded as "
                                    f"{record.id}")
        self._view.message_logged.emit(
            "INFO", f"advising: {record.id} recorded — {p.strategy}, ε = {p.epsilon:g}, "
                    f"{result.epochs} epochs, {result.advice_total} advice events, "
                    f"{randomness_text(result.mode, result.seed)}")
        self._view.run_recorded.emit(record.id)

    def _finish_experiment(self, req: RunRequest, result: ExperimentResult) -> None:
        claims: list[Any] = []
        if req.kind in ("exp1", "exp2", "exp3", "exp1-one-different"):
            key = req.kind.split("-")[0]  # Experiment 1 on either layout: the exp1 claims
            self._view.session[key] = result
            claims = [c for c in check_claims(self._view.session) if c.claim.experiment == key]
        first = req.arms[0].setup.params
        stored = rounded_json(experiment_summary(result, delta=req.delta, claims=claims))
        record = RunRecord(
            id=self._document.project.new_run_id(), kind="advise-experiment", target=TARGET,
            params=rounded_json({
                "run": req.kind, "experiment": KIND_TITLES[req.kind], "setup": req.setup.name,
                "variant": first.variant, "epsilon": req.setup.params.epsilon,
                "epsilons": list(req.epsilons), "epochs": result.epochs,
                "distance_threshold": first.distance_threshold,
                "ask_budget": first.ask_budget, "give_budget": first.give_budget,
                "seeded": req.seeded, "seed": result.seed, "seeds": result.seeds.tolist(),
                "seed_drawn": result.seed_drawn, "workers": result.workers,
                "delta": req.delta,
                "arms": [{"label": a.label, "strategy": a.setup.params.strategy,
                          "epsilon": a.setup.params.epsilon, "layout": su.layout,
                          "variant": a.setup.params.variant}
                         for a, su in zip(req.arms, result.summaries())]}),
            summary=stored, mode="experiment", seed=result.seed)
        if not self._record(record, experiment_ledger_entries(result, source=record.id)):
            return
        full = experiment_summary(result, full=True, delta=req.delta, claims=claims)
        self._view.results.show_summary(full, self.stamp(record, full))
        self._view.results.show_experiment_details(result)
        self._view.shown_run = record.id
        self.update_claims()
        self._view.progress_label.setText(f"done in {result.elapsed_s:.1f} s — recorded as "
                                    f"{record.id}")
        self._view.message_logged.emit(
            "INFO", f"advising: {record.id} recorded — {KIND_TITLES[req.kind]}, "
                    f"{len(result.labels)} arms × {result.n_seeds} seeds, "
                    f"{result.epochs} epochs, {full['randomness']}")
        self._view.run_recorded.emit(record.id)

    def _record(self, record: RunRecord, entries: list[Any]) -> bool:
        """The run record and its privacy-ledger entries, as one undoable step; False (and
        nothing recorded or shown) when the releases would pass a budget and the user says
        no."""
        if not approve_entries(self._view, self._document, entries):
            self._view.progress_label.setText(OVER_BUDGET_TEXT)
            return False
        what = "advising experiment" if record.kind == "advise-experiment" else "advising run"
        self._document.push(AddRunCommand(self._document, record, text=f"Record {what} "
                                          f"{record.id}", ledger_entries=entries), "advising")
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

    # ------------------------------------------------------------------ claims
    def update_claims(self) -> None:
        checks = [c.to_dict() for c in check_claims(self._view.session)]
        used = sorted(self._view.session)
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
                f"{k} ({self._view.session[k].n_seeds} seeds, "
                f"{self._view.session[k].epochs} epochs, "
                f"{self._view.session[k].setups[-1].params.variant} variant)"
                for k in used))
        if from_records:
            parts.append("recorded runs " + ", ".join(from_records))
        note = ("<b>Thesis claims (§3.6)</b> — from " + ("; ".join(parts) or "no runs") +
                ". Claims that spec §10.5 says must not be pass/fail tests (the 92 % "
                "asymptote, DP ≥ traditional in Exp. 1, the ~7 % gain, ε = 0.1 worse than no "
                "advice, budgets out near epoch 300) are reported, never asserted. Hover a row "
                "for how it is tested.")
        self._view.results.show_claims(checks, note)
