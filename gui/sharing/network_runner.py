"""PPO networks in the Policy sharing workspace (the optional ``deep`` extra).

With JAX installed the environment list also offers CartPole-v1 and Acrobot-v1 with a PPO
teacher (2 × 64) and PPO students (2 × 32), the experiment of ``share gym:ID --agent ppo``:
the teacher learns until solved, its network's Lipschitz constant (a proven spectral bound)
turns b into L·b, and the students learn with the mechanism's demonstrations under the same
ledger and budget as the tabular run. The set-up's k₀, c, η, target δ / τ, bound, λ, β, κ,
students, seeds, iterations, budget, randomness and the protocol's after-the-budget rule
apply (its reward scale, gradient and penalty weight are the tabular learner's, and the PPO
non-private student always imitates the teacher network itself); its L·b field
is replaced by L·b of the teacher network with b = :data:`B`.

The only module of this workspace that imports :mod:`core.deep` (an import-linter contract
allows ``gui.*.network_runner`` and nothing else), and only inside its functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PPO_ENVS", "B", "PPO_OPTIONS", "add_ppo_envs", "is_ppo", "start_ppo", "show_ppo",
           "PpoOutcome", "ppo_task"]

PPO_ENVS = ("CartPole-v1", "Acrobot-v1")
#: the ℓ2 radius of neighbouring observations (the command line's ``--b`` default)
B = 0.01
#: keyword arguments of :func:`core.deep.kickstart.run_ppo_sharing` (the teacher's most
#: roll-outs; tests shorten them)
PPO_OPTIONS: dict[str, Any] = {"teacher_iterations": 600}


@dataclass
class PpoOutcome:
    """What the worker returns: the experiment and the mechanism's curves."""

    res: Any
    curves: tuple[Any, Any, Any]
    students: list[str]
    seeds: int
    seed: int | None


def add_ppo_envs(combo: Any) -> None:
    """Append the PPO environments to the environment combo when JAX is installed."""
    from core.deep import available

    if available():
        for env in PPO_ENVS:
            combo.addItem(f"{env}, PPO networks (JAX)", f"ppo:{env}")


def is_ppo(key: object) -> bool:
    """True for an environment key of :func:`add_ppo_envs`."""
    return isinstance(key, str) and key.startswith("ppo:")


def ppo_task(env_id: str, setup: Any, students: list[str], seeds: int, seed: int | None,
             spent: tuple[float, float], *, progress: Any) -> PpoOutcome:
    """The worker: :func:`core.deep.kickstart.run_ppo_sharing`, then the ε/δ(k) and radius
    curves at the run's public parameters (:func:`core.sharing.learning.mechanism_curves`)."""
    from core.common.progress import sub_progress
    from core.deep import require

    require("env")
    from core.deep.kickstart import run_ppo_sharing
    from core.sharing.learning import mechanism_curves

    res = run_ppo_sharing(env_id, setup, b=B, students=students, seeds=seeds, seed=seed,
                          spent=spent, after_budget=setup.after_budget,
                          progress=sub_progress(progress, 0.0, 0.9), **PPO_OPTIONS)
    st, m = res.result.setup, int(res.result.m)
    curves = mechanism_curves(st.k0, m, st.eta, st.lb, st.lam, st.beta, st.bound,
                              res.result.curve_tau, seed,
                              progress=sub_progress(progress, 0.9, 1.0))
    return PpoOutcome(res, curves, list(students), int(seeds), seed)


def start_ppo(panel: Any) -> bool:
    """Start the PPO experiment of the panel's set-up in its worker (False with the reason
    shown when refused)."""
    from core.common.errors import InputError
    from core.privacy.ledger import PrivacyLedger

    env = str(panel.env_combo.currentData())[4:]
    try:
        setup = panel.setup()
        setup.check()
        students = [k for k, c in panel.student_checks.items() if c.isChecked()]
        if not students:
            raise InputError("tick at least one student", field="students")
        if setup.nonprivate_target != "teacher":
            raise InputError("the PPO non-private student imitates the teacher network's own "
                             "policy; the η-mixed target is the tabular learner's option",
                             field="nonprivate_target")
    except InputError as exc:
        panel._show_error(exc)
        return False
    spent = PrivacyLedger.from_project(panel._document.project).spent(f"gym:{env}")
    panel.message_logged.emit("INFO", f"policy sharing with PPO networks started on {env} "
                                      f"({panel.randomness_label()})")
    panel._runner.start(ppo_task, env, setup, students, int(panel.seeds_spin.value()),
                        panel.seed(), spent)
    return True


def show_ppo(panel: Any, out: object) -> None:
    """Record a finished PPO experiment (its ledger entries, one undoable step; a release
    past a budget asks first) and draw it like a tabular run."""
    if not isinstance(out, PpoOutcome):
        return
    from core.deep.records import ppo_sharing_record
    from gui.shell.commands import AddRunCommand
    from gui.shell.ledger import OVER_BUDGET_TEXT, approve_entries

    doc = panel._document
    record, entries = ppo_sharing_record(doc.project, out.res, students=out.students,
                                         seeds=out.seeds, seed=out.seed)
    if not approve_entries(panel, doc, entries):
        panel.message.setText(OVER_BUDGET_TEXT.capitalize() + ".")
        panel.message.show()
        return
    doc.push(AddRunCommand(doc, record, text=f"Record policy sharing {record.id}",
                           ledger_entries=entries), "sharing")
    panel.last_recorded = record.id
    pc, rc, tight = out.curves
    L = out.res.lipschitz
    panel.plots.draw(record.summary, pc, rc,
                f"{out.res.env}: PPO teacher (return {out.res.teacher_return:.4g}, L = "
                f"{L.value:.4g} {'proven' if L.proven else 'ESTIMATED'}, b = {out.res.b:g})",
                int(out.res.result.m), recorded=record.id, tight=tight)
    panel.plots.draw_ternary(None)
    panel.message_logged.emit("INFO", f"policy sharing with PPO networks recorded as "
                                      f"{record.id} with {len(entries)} ledger entries")
