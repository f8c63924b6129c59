"""The policy-sharing experiment with networks: a PPO teacher, its ledger, kickstarted students.

1. The teacher (2 × 64, [KS] Exp. 1) learns the task from scratch with PPO until it is solved
   (gymnasium's threshold over the last 100 episodes) or ``teacher_iterations`` run out; its
   return is then measured over fresh episodes (``teacher_return``).
2. Its Lipschitz constant L (proven spectral bound, or an estimate labelled as such) turns the
   observation radius b into the policy radius L·b of Theorem 1.
3. The teacher's ledger (:func:`core.sharing.learning.sharing_ledger`, the tabular
   capability's): k_j = k₀·c^j, the per-query (ε_j, δ_j), ``envs × steps`` queries per
   roll-out to every noisy student run, basic composition over all of them against the
   budget; the teacher stops before a roll-out would exceed it.
4. Every student type (2 × 32, [KS] Exp. 1) learns with PPO plus the kickstarting penalty for
   ``seeds`` runs; the result is :class:`core.sharing.learning.StudentCurves` (mean return per
   roll-out; the paper's 85th-percentile band) so the workspace, the report and the ledger
   treat it as the tabular experiment.

Seeds: student run r of type t uses ``SeedSequence(seed, spawn_key=(t, r))`` for its
environments, initialisation and action sampling, and a separate stream for its Dirichlet
draws; in release mode (no seed) the draws come from the OS CSPRNG.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress, sub_progress
from core.deep.lipschitz import LipschitzConstant
from core.deep.ppo import (
    DEEP_STUDENTS,
    STUDENT_HIDDEN,
    TEACHER_HIDDEN,
    Demonstrations,
    PpoConfig,
    PpoRun,
    evaluate,
    make_env,
    solved_return,
    teacher_lipschitz,
    train_ppo,
)
from core.sharing.learning import SharingSetup, StudentCurves, sharing_ledger

__all__ = ["PpoSharing", "run_ppo_sharing", "ADJACENCY"]

ADJACENCY = ("two observations x, x' with ||x - x'||_2 <= b; the eta-mixed teacher network is "
             "L-Lipschitz, so its shared policies differ by at most L*b in l2 (Theorem 1 of "
             "[KS]); the teacher's observations are protected, not its training data")


@dataclass
class PpoSharing:
    """The experiment's result: the students' curves and the teacher's ledger
    (``result``), the teacher's own learning, its return and its Lipschitz constant."""

    result: StudentCurves
    env: str
    teacher_return: float
    teacher_curve: np.ndarray
    teacher_solved_at: int | None
    teacher_solved_s: float | None
    lipschitz: LipschitzConstant
    b: float
    steps_per_rollout: int
    solved_at: dict[str, list[int | None]]
    target: float | None
    after_budget: str
    notes: list[str] = field(default_factory=list)

    @property
    def guarantee(self) -> str:
        led = self.result.ledger
        e, d = led.totals
        head = (f"({e:.4g}, {d:.3g})-DP over all {led.runs} noisy student runs (basic "
                f"composition of the per-query certified profile)")
        if not self.lipschitz.proven:
            return (head + " IF the teacher's Lipschitz constant is at most the estimated "
                    f"{self.lipschitz.value:.4g}: an estimate, not a proof — this (ε, δ) is "
                    "estimated, not a guarantee")
        return head + f", with L = {self.lipschitz.value:.4g} proven (spectral norms)"

    def to_dict(self) -> dict[str, Any]:
        out = self.result.to_dict()
        med = {k: _median_or_none(v) for k, v in self.solved_at.items()}
        out.update(
            agent="ppo", env=self.env, teacher_return=self.teacher_return,
            teacher_value=self.teacher_return,
            teacher_curve=[float(v) for v in self.teacher_curve],
            teacher_solved_at=self.teacher_solved_at, teacher_solved_s=self.teacher_solved_s,
            lipschitz=self.lipschitz.to_json(), b=self.b, lb=self.result.setup.lb,
            epsilon_estimated=not self.lipschitz.proven, guarantee=self.guarantee,
            steps_per_rollout=self.steps_per_rollout, solved_return=self.target,
            solved_at={k: v for k, v in self.solved_at.items()}, solved_at_median=med,
            speedup_vs_teacher={k: (None if v is None or not self.teacher_solved_at
                                    else self.teacher_solved_at / v) for k, v in med.items()},
            after_budget=self.after_budget, adjacency=ADJACENCY,
            iteration=list(range(self.result.setup.iterations + 1)),
            final={k: {"median": float(np.median(c[:, -1])),
                       "lower": float(np.percentile(c[:, -1], 7.5)),
                       "upper": float(np.percentile(c[:, -1], 92.5))}
                   for k, c in self.result.curves.items()})
        out["notes"] = list(out.get("notes", [])) + list(self.notes)
        return out


def _median_or_none(v: list[int | None]) -> float | None:
    """The median steps to solve; a run that never solved counts as infinite."""
    if not v:
        return None
    x = np.array([math.inf if s is None else float(s) for s in v])
    med = float(np.median(x))
    return None if math.isinf(med) else med


def run_ppo_sharing(env_id: str, setup: SharingSetup, *, b: float,
                    students: Sequence[str] = DEEP_STUDENTS, seeds: int = 3,
                    seed: int | None = None, lipschitz: str = "bound",
                    teacher_iterations: int = 600, cfg: PpoConfig | None = None,
                    teacher_hidden: tuple[int, ...] = TEACHER_HIDDEN,
                    student_hidden: tuple[int, ...] = STUDENT_HIDDEN,
                    after_budget: str = "stop", spent: tuple[float, float] = (0.0, 0.0),
                    teacher: PpoRun | None = None, progress: Progress = no_progress,
                    cancelled: Callable[[], bool] | None = None) -> PpoSharing:
    """The whole experiment (module docstring).

    Parameters
    ----------
    env_id : str
        A gymnasium id (``CartPole-v1``, ``Acrobot-v1``; MinAtar where installed).
    setup : SharingSetup
        k₀, c, η, the target δ per query, λ, β, κ, the budget and the student iterations
        (``lb`` is replaced by L·b; ``lr`` is unused: PPO has its own).
    b : float
        The observation radius of the adjacency (ℓ2).
    students : sequence of str
        Which of ``none``, ``nonprivate``, ``aware``, ``unaware``.
    seeds : int
        Runs per student type.
    seed : int, optional
        Experiment seed; None: release mode.
    lipschitz : {"bound", "estimate"}
        How L is obtained.
    teacher_iterations : int
        The teacher's roll-out budget (it stops once solved).
    cfg : PpoConfig, optional
        PPO's hyperparameters (the sizes are set per role).
    teacher_hidden, student_hidden : tuple of int
        Network sizes ([KS]: 64 × 64 and 32 × 32).
    after_budget : {"stop", "random"}
        After the budget: no demonstration, or random policies (the paper's protocol).
    spent : (float, float)
        Already spent on the teacher's data.
    teacher : PpoRun, optional
        A teacher trained before (its curve and network are reused).
    progress, cancelled : callable
        Progress; cancellation.

    Returns
    -------
    PpoSharing
    """
    from core.common.validation import as_random_source, fresh_seed

    if not (isinstance(b, (int, float)) and math.isfinite(b) and b >= 0):
        raise InputError(f"must be a finite number >= 0, got {b!r}", field="b")
    bad = [s for s in students if s not in DEEP_STUDENTS]
    if bad or not students:
        raise InputError(f"must be among {', '.join(DEEP_STUDENTS)}, got {list(students)!r}",
                         field="students")
    if isinstance(seeds, bool) or int(seeds) != seeds or seeds < 1:
        raise InputError(f"must be a whole number >= 1, got {seeds!r}", field="seeds")
    if after_budget not in ("stop", "random"):
        raise InputError(f"must be stop or random, got {after_budget!r}", field="after_budget")
    setup.check()
    cfg = (cfg or PpoConfig()).validated()
    env = make_env(env_id)
    m = int(env.action_space.n)
    env.close()
    t0 = time.perf_counter()
    src = as_random_source(seed)
    base = seed if seed is not None else fresh_seed()
    ss = np.random.SeedSequence(base)
    target = solved_return(env_id)
    progress(0.0, "training the teacher")
    if teacher is None:
        teacher = train_ppo(env_id, replace(cfg, hidden=tuple(teacher_hidden)),
                            iterations=teacher_iterations, seed=int(ss.generate_state(1)[0]),
                            stop_when_solved=True, keep_observations=4096,
                            progress=sub_progress(progress, 0.0, 0.3), cancelled=cancelled)
    t_return = evaluate(teacher.model, env_id, episodes=20, seed=base + 1)
    L = teacher_lipschitz(teacher.model, setup.eta, method=lipschitz,
                          observations=teacher.observations)
    lb = L.value * float(b)
    st = replace(setup, lb=lb)
    noisy = [s for s in students if s in ("aware", "unaware")]
    ledger = sharing_ledger(st, [m], cfg.batch, runs=len(noisy) * int(seeds), spent=spent,
                            rng=seed if seed is not None else None)
    ledger = replace(ledger, adjacency=(
        f"{ADJACENCY}; b = {float(b):g}, L = {L.value:.4g} "
        + ("(proven: spectral norms)" if L.proven else "(ESTIMATED, not proven: the (ε, δ) "
                                                        "is an estimate)")))
    ks = tuple(ledger.k_at(j) for j in range(int(st.iterations)))
    curves: dict[str, np.ndarray] = {}
    solved: dict[str, list[int | None]] = {}
    total = len(students) * int(seeds)
    done = 0
    scfg = replace(cfg, hidden=tuple(student_hidden))
    for kind in students:
        rows, hits = [], []
        for r in range(int(seeds)):
            if cancelled is not None and cancelled():
                raise Cancelled()
            key = np.random.SeedSequence(base, spawn_key=(DEEP_STUDENTS.index(kind), r))
            run_seed, noise_ss = int(key.generate_state(1)[0]), key.spawn(1)[0]
            noise = (np.random.default_rng(noise_ss) if src.mode == "experiment" else None)
            demo = None if kind == "none" else Demonstrations(
                kind, teacher.model, setup.eta, ks=ks, lam=setup.lam, beta=setup.beta,
                kappa=setup.kappa, after_budget=after_budget, noise=noise)
            run = train_ppo(env_id, scfg, iterations=int(st.iterations), seed=run_seed,
                            demo=demo, target=target,
                            progress=sub_progress(progress, 0.3 + 0.7 * done / total,
                                                  0.3 + 0.7 * (done + 1) / total),
                            cancelled=cancelled)
            rows.append(run.returns)
            hits.append(run.solved_at)
            done += 1
        curves[kind] = np.vstack(rows)
        solved[kind] = hits
    notes = [f"PPO ({scfg.envs} environments x {scfg.steps} steps per roll-out, "
             f"{cfg.epochs} epochs of {cfg.minibatches} minibatches); teacher "
             f"{'x'.join(map(str, teacher_hidden))}, students "
             f"{'x'.join(map(str, student_hidden))}; a curve is the mean return of the last "
             "100 episodes after each roll-out",
             f"every step of a student's roll-out queries the teacher: {cfg.batch} queries "
             "per roll-out and noisy run",
             L.detail]
    if not L.proven:
        notes.append("the Lipschitz constant is estimated: every (ε, δ) of this run is an "
                     "estimate, not a guarantee")
    if teacher.solved_at is None:
        notes.append(f"the teacher did not reach the solved return {target} within "
                     f"{teacher_iterations} roll-outs")
    result = StudentCurves(curves=curves, teacher_value=t_return, ledger=ledger, seed=seed,
                           setup=st, queries_per_rollout=cfg.batch,
                           elapsed_s=time.perf_counter() - t0, notes=tuple(notes), m=m)
    progress(1.0, "done")
    return PpoSharing(result=result, env=env_id, teacher_return=t_return,
                      teacher_curve=teacher.returns, teacher_solved_at=teacher.solved_at,
                      teacher_solved_s=teacher.solved_s, lipschitz=L, b=float(b),
                      steps_per_rollout=cfg.batch, solved_at=solved, target=target,
                      after_budget=after_budget)
