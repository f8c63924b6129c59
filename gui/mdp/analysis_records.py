"""What the MDP workspace records when a run finishes: the run record, its ledger entries and
the status line that says what was recorded (Qt-free logic beside the analysis panel).

:class:`~gui.mdp.analysis_panel.AnalysisPanel` hands a finished sweep or "Synthesise &
bound" here with its document; these functions push the records as undoable commands on the
panel's stack and return the status text and the warnings to log. Keeping them out of the
panel keeps the panel to its widgets.
"""

from __future__ import annotations

from typing import Any

from core.project import bounds_run_record, sweep_run_record
from gui.shell.commands import AddRunCommand
from gui.shell.document import ProjectDocument
from gui.shell.ledger import record_entries, record_sweep

__all__ = ["record_bounds", "record_sweep_run"]


def record_sweep_run(document: ProjectDocument, mdp_id: str, params: Any, result: Any,
                     stack_key: str) -> str:
    """Record a finished privacy sweep; the status line to show."""
    from core.mdp import SweepResult

    assert isinstance(result, SweepResult)
    record = sweep_run_record(document.project, mdp_id, params, result)
    # recorded outside the undo history (ProjectDocument.record): not undoable
    document.push(AddRunCommand(document, record), stack_key)
    record_sweep(document, mdp_id, result, source=record.id)
    return (f"Done: {record.id}, {result.runs} runs × {len(result.k)} k values in "
            f"{result.elapsed_s:.2f} s (seed {result.seed}).")


def record_bounds(document: ProjectDocument, mdp_id: str, release: Any, extra: dict[str, Any],
                  stack_key: str) -> tuple[str, list[str]]:
    """Record a finished "Synthesise & bound" (the run and the release's ledger entries);
    the status line to show and the warnings to log."""
    document.note_digest(mdp_id, extra["version"], release.digest)
    result, privacy = release.result, release.privacy
    record, entries = bounds_run_record(document.project, mdp_id, release)
    if extra.get("policy_file"):  # (the report names it from the summary)
        record.params["policy_file"] = record.summary["policy_file"] = extra["policy_file"]
    document.push(AddRunCommand(document, record), stack_key)
    record_entries(document, entries, text=f"Record the release {record.id} of {mdp_id}",
                   key=stack_key)
    warnings = [] if privacy.bounded else [
        f"{record.id}: this privatisation has no finite (ε, δ) guarantee — "
        f"{privacy.epsilon_reason}"]
    warnings += [f"{record.id}: {w}" for w in result.warnings]
    status = (f"Done: {record.id}, π̄ ({result.policy_source}) at k = {result.k:g} and its "
              f"bounds in {result.elapsed_s:.2g} s (seed {result.seed}); cost bound at s₀ "
              f"{result.cost_bound:.4g}. Shown on the drawing." + (
                  "" if result.synthesis_check is None else f" LP and induction values agree "
                  f"to {result.synthesis_check:.1e}."))
    return status, warnings
