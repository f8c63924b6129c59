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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.common.errors import InputError
    from core.sharing import SharingParameters
    from gui.sharing.drawing import SharingPlots
    from gui.sharing.views import RecordOutlet, SetupFields
    from gui.shell.document import ProjectDocument
    from gui.shell.workers import TaskRunner

__all__ = ["PPO_ENVS", "B", "PPO_OPTIONS", "add_ppo_envs", "is_ppo", "start_ppo", "show_ppo",
           "PpoOutcome", "PpoParts", "ppo_task"]

PPO_ENVS = ("CartPole-v1", "Acrobot-v1")
#: the ℓ2 radius of neighbouring observations (the command line's ``--b`` default)
B = 0.01
#: keyword arguments of :func:`core.deep.kickstart.run_ppo_sharing` (the teacher's most
#: roll-outs; tests shorten them)
PPO_OPTIONS: dict[str, Any] = {"teacher_iterations": 600}


@dataclass
class PpoOutcome:
    """What the worker returns: the experiment, the mechanism's curves and what was asked."""

    res: Any
    curves: tuple[Any, Any, Any]
    params: SharingParameters


@dataclass(frozen=True)
class PpoParts:
    """What a PPO run of the workspace is given (never the panel): the document, the tab's
    worker, the set-up's fields, the plots, where recording asks and says things, and
    callables for a refused field, the run recorded and the randomness's wording."""

    document: ProjectDocument
    runner: TaskRunner
    inputs: SetupFields  # the environment (``ppo:<ID>``) and the set-up
    plots: SharingPlots
    outlet: RecordOutlet  # the over-budget question's parent, refusals and the log
    refuse: Callable[[InputError], None]  # shows a refused value beside its field
    recorded: Callable[[str], None]  # the id of the run just recorded
    randomness: Callable[[], str]  # "… as a seeded experiment (seed 4)" or release mode


def add_ppo_envs(combo: Any) -> None:
    """Append the PPO environments to the environment combo when JAX is installed."""
    from core.deep import available

    if available():
        for env in PPO_ENVS:
            combo.addItem(f"{env}, PPO networks (JAX)", f"ppo:{env}")


def is_ppo(key: object) -> bool:
    """True for an environment key of :func:`add_ppo_envs`."""
    return isinstance(key, str) and key.startswith("ppo:")


def ppo_task(env_id: str, params: SharingParameters, spent: tuple[float, float], *,
             progress: Any) -> PpoOutcome:
    """The worker: :func:`core.deep.kickstart.run_ppo_sharing` of the
    :class:`core.sharing.SharingParameters` ``params``, then the ε/δ(k) and radius curves at
    the run's public parameters (:func:`core.sharing.learning.mechanism_curves`)."""
    from core.common.progress import sub_progress
    from core.deep import require

    require("env")
    from core.deep.kickstart import run_ppo_sharing
    from core.sharing.learning import mechanism_curves

    setup, seed = params.setup, params.seed
    res = run_ppo_sharing(env_id, setup, b=B, students=list(params.students),
                          seeds=params.seeds, seed=seed, spent=spent,
                          after_budget=setup.after_budget,
                          progress=sub_progress(progress, 0.0, 0.9), **PPO_OPTIONS)
    st, m = res.result.setup, int(res.result.m)
    curves = mechanism_curves(st.k0, m, st.eta, st.lb, st.lam, st.beta, st.bound,
                              res.result.curve_tau, seed,
                              progress=sub_progress(progress, 0.9, 1.0))
    return PpoOutcome(res, curves, params)


def start_ppo(parts: PpoParts) -> bool:
    """Start the PPO experiment of the set-up in the tab's worker (False with the reason
    shown when refused)."""
    from core.common.errors import InputError
    from core.privacy.ledger import PrivacyLedger

    env = str(parts.inputs.env_combo.currentData())[4:]
    try:
        params = parts.inputs.parameters(f"gym:{env}", teacher="ppo", temperature=1.0)
        if params.setup.nonprivate_target != "teacher":
            raise InputError("the PPO non-private student imitates the teacher network's own "
                             "policy; the η-mixed target is the tabular learner's option",
                             field="nonprivate_target")
    except InputError as exc:
        parts.refuse(exc)
        return False
    spent = PrivacyLedger.from_project(parts.document.project).spent(f"gym:{env}")
    parts.outlet.log("INFO", f"policy sharing with PPO networks started on {env} "
                             f"({parts.randomness()})")
    parts.runner.start(ppo_task, env, params, spent)
    return True


def show_ppo(parts: PpoParts, out: object) -> None:
    """Record a finished PPO experiment (its ledger entries, one undoable step; a release
    past a budget asks first) and draw it like a tabular run."""
    if not isinstance(out, PpoOutcome):
        return
    from core.deep.records import ppo_sharing_record
    from gui.shell.commands import AddRunCommand
    from gui.shell.ledger import OVER_BUDGET_TEXT, approve_entries

    doc = parts.document
    record, entries = ppo_sharing_record(doc.project, out.res, out.params)
    if not approve_entries(parts.outlet.parent, doc, entries):
        parts.outlet.refuse(OVER_BUDGET_TEXT.capitalize() + ".")
        return
    doc.push(AddRunCommand(doc, record, text=f"Record policy sharing {record.id}",
                           ledger_entries=entries), "sharing")
    parts.recorded(record.id)
    pc, rc, tight = out.curves
    L = out.res.lipschitz
    parts.plots.draw(record.summary, pc, rc,
                     f"{out.res.env}: PPO teacher (return {out.res.teacher_return:.4g}, L = "
                     f"{L.value:.4g} {'proven' if L.proven else 'ESTIMATED'}, b = "
                     f"{out.res.b:g})", int(out.res.result.m), recorded=record.id, tight=tight)
    parts.plots.draw_ternary(None)
    parts.outlet.log("INFO", f"policy sharing with PPO networks recorded as "
                             f"{record.id} with {len(entries)} ledger entries")
