"""What a network run records in a project: the tabular capabilities' records, extended.

* ``mia --model``: :func:`core.project.recording.mia_run_record` unchanged (the victim's
  name is the network's);
* ``share --agent ppo``: a ``sharing`` run (the tabular record: the teacher's ledger, one
  entry per live roll-out with ``count`` = queries × noisy runs, the non-private baseline
  unbounded) whose parameters and summary add the network teacher's return, its Lipschitz
  constant (proven or estimated) and the guarantee's wording;
* ``drl --agent dqn`` and ``comarl --agent net``: the tabular records, with ``agent``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.deep.kickstart import PpoSharing
from core.privacy.ledger import LedgerEntry
from core.sharing.records import SharingParameters

__all__ = ["ppo_sharing_record", "ppo_params"]


def ppo_params(res: PpoSharing, params: SharingParameters
               ) -> tuple[SharingParameters, dict[str, Any]]:
    """The parameters a ``share --agent ppo`` run records: the tabular ones (the set-up the
    run used, with L·b in place of ``lb``; teacher ``ppo``) and the network's, which the
    record adds.

    Parameters
    ----------
    res : PpoSharing
        The run.
    params : SharingParameters
        What was asked (its students, seeds and seed).

    Returns
    -------
    (SharingParameters, dict)
        For :func:`core.project.recording.sharing_run_record` and its ``extra``.
    """
    used = replace(params, env=f"gym:{res.env}", setup=res.result.setup, teacher="ppo",
                   temperature=1.0)
    extra = {"agent": "ppo", "b": res.b, "lipschitz": res.lipschitz.method,
             "steps_per_rollout": res.steps_per_rollout, "after_budget": res.after_budget,
             "nonprivate_target": "teacher"}  # the PPO students imitate the network itself
    return used, extra


def ppo_sharing_record(project: Any, res: PpoSharing, params: SharingParameters
                       ) -> tuple[Any, list[LedgerEntry]]:
    """The ``sharing`` run record of a PPO experiment and its ledger entries.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    res : PpoSharing
        The run.
    params : SharingParameters
        What was asked (:func:`ppo_params` takes the rest from the run).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added (:func:`core.project.recording.record_run` adds both).
    """
    from core.project.recording import sharing_run_record

    used, extra = ppo_params(res, params)
    record, entries = sharing_run_record(project, res.result, used, extra=extra)
    full = res.to_dict()
    for key in ("teacher_return", "lipschitz", "guarantee", "epsilon_estimated", "b", "lb",
                "solved_at_median", "speedup_vs_teacher", "teacher_solved_at",
                "solved_return", "after_budget", "agent"):
        record.summary[key] = full[key]
    record.summary["oracle_view"] = ("the students' and the teacher's returns are measured on "
                                     "episodes of the environment by the experimenter: an "
                                     "oracle view, not something the teacher releases")
    if not res.lipschitz.proven:
        entries = [replace(e, parameters={**dict(e.parameters), "lipschitz": (
            "estimated (not proven): the (ε, δ) is an estimate")}) for e in entries]
    return record, entries
