"""Policy sharing as a many-seed study: student arms for :mod:`core.study`.

One replicate is one deployment of the paper's protocol: a teacher, one student, the
teacher's budget for that student, and the student's own exploration (sampled roll-outs,
:mod:`core.sharing.rollouts`). The arm :func:`student_arm` returns the student's final value
J and its mean value over the iterations (the area under the learning curve: how fast it
learned). Every arm of a replicate gets the same seed, so "aware − unaware" is measured on
the same exploration stream and the same environment.

**The budget of one deployment.** A replicate's teacher pays for its own student only
(``runs = 1``): replicates are independent simulated deployments, seeded experiments that
release nothing (the ``share`` command's budget, by contrast, covers every noisy run it
makes). To compare environments of very different sizes, the budget is given as the number
of roll-outs the teacher can afford (``rollouts``): the budget (E, D) is the ledger's total
after that many roll-outs (basic composition, the exact profile per query at the target δ),
and is reported.

**After the budget** the teacher either stops (PrivPlan's rule) or sends uniformly random
policies (the paper's rule: "completely random policies under (0, 0)-DP").

Examples
--------
>>> r = student_arm(3, env="example:corridor", kind="aware", iterations=5, rollouts=2)
>>> sorted(r)
['final', 'mean']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.mdp.model import MDP
from core.sharing.learning import (
    STUDENTS,
    SharingLedger,
    SharingSetup,
    reachable_states,
    reward_scale,
    run_student,
    sharing_ledger,
    teacher_policy,
)
from core.sharing.mechanism import teacher_policy_in_domain
from core.study.claims import Claim
from core.study.runner import Arm, Study

__all__ = ["ENVIRONMENTS", "load_environment", "student_arm", "deployment",
           "sharing_claims_study", "sharing_claims"]

#: The environments of the README's claims: name → environment id.
ENVIRONMENTS = {
    "FrozenLake 4x4": "gym:FrozenLake-v1",
    "FrozenLake 8x8": "gym:FrozenLake-v1:8x8",
    "CliffWalking": "gym:CliffWalking-v0",
    "Taxi": "gym:Taxi-v3",
    "corridor": "example:corridor",
}


@lru_cache(maxsize=8)
def load_environment(env: str) -> MDP:
    """The MDP of an environment id: ``gym:ID[:VARIANT]`` or ``example:corridor``.

    Parameters
    ----------
    env : str
        The id.

    Returns
    -------
    MDP
    """
    if env.startswith("gym:"):
        from core.sharing.gym_import import import_gym

        return import_gym(env)
    if env == "example:corridor":
        from core.mdp.examples import corridor

        return corridor(12)
    raise InputError(f"unknown environment {env!r} (gym:ID or example:corridor)", field="env")


@lru_cache(maxsize=32)
def deployment(env: str, setup: SharingSetup, rollouts: int
               ) -> tuple[MDP, np.ndarray, SharingLedger, float, float, np.ndarray]:
    """What every replicate of one configuration shares (cached per process).

    Parameters
    ----------
    env : str
        The environment id.
    setup : SharingSetup
        The parameters (its budget is replaced).
    rollouts : int
        Roll-outs the teacher can afford before its budget is spent.

    Returns
    -------
    (MDP, numpy.ndarray, SharingLedger, float, float, numpy.ndarray)
        The model the student learns on (rewards scaled), the teacher's η-mixed policy, the
        ledger of one deployment (stopping before roll-out ``rollouts``), J(π_T), the
        reward scale ρ and the teacher's own policy π_T.
    """
    mdp = load_environment(env)
    pi_T = teacher_policy(mdp)
    teacher_in = pi_T.copy()
    for s in range(mdp.n_states):
        avail = mdp.mask[s]
        if avail.sum() >= 2:
            teacher_in[s, avail] = teacher_policy_in_domain(pi_T[s, avail], setup.eta)
    counts = mdp.mask.sum(axis=1)
    queried = reachable_states(mdp) & (counts >= 2)
    ms, q = counts[queried].tolist(), int(queried.sum())
    rollouts = int(rollouts)
    if rollouts < 0:
        raise InputError(f"must be >= 0, got {rollouts!r}", field="rollouts")
    if rollouts == 0:
        ledger = sharing_ledger(replace(setup, budget=(0.0, 0.0)), ms, q, runs=1)
    else:
        free = sharing_ledger(replace(setup, budget=(1e300, 0.999999),
                                      iterations=rollouts), ms, q, runs=1)
        if len(free.rows) < rollouts:
            raise InputError(f"the teacher cannot afford {rollouts} roll-outs at any budget "
                             f"below delta 1 ({free.stop_reason})", field="rollouts")
        e, d = free.rows[-1].epsilon_total, free.rows[-1].delta_total
        ledger = sharing_ledger(replace(setup, budget=(e * (1 + 1e-9), min(d * (1 + 1e-9),
                                                                          0.999999))),
                                ms, q, runs=1)
    rho = reward_scale(mdp, setup.reward_scale)
    learn = mdp if rho == 1.0 else mdp.replace(R=mdp.R / rho, R_T=mdp.R_T / rho)
    from core.sharing.learning import evaluate_softmax

    return learn, teacher_in, ledger, float(evaluate_softmax(mdp, pi_T)[0]), rho, pi_T


def student_arm(seed: int, *, env: str, kind: str, after_budget: str = "stop",
                rollouts: int = 40, iterations: int = 200, coef: float = 0.95,
                k0: float = 5.0, eta: float = 0.1, delta: float = 1e-3, lam: float = 0.5,
                beta: float = 0.05, kappa: float = 1.0, lr: float = 5.0, episodes: int = 8,
                steps: int = 100, reward_scale: str = "max", gradient: str = "sampled",
                penalty_weight: str = "visits", nonprivate_target: str = "teacher"
                ) -> dict[str, float]:
    """One student of one deployment (a :class:`core.study.Arm` function).

    Parameters
    ----------
    seed : int
        The replicate seed: the student's exploration and the teacher's noise.
    env : str
        The environment id (:data:`ENVIRONMENTS`).
    kind : str
        One of :data:`core.sharing.learning.STUDENTS`.
    after_budget : {"stop", "random"}
        What the teacher sends once its budget is spent.
    rollouts : int
        Roll-outs the teacher can afford (the deployment's budget).
    iterations, coef, k0, eta, delta, lam, beta, kappa, lr, episodes, steps, reward_scale,
    gradient, penalty_weight, nonprivate_target :
        :class:`core.sharing.learning.SharingSetup`.

    Returns
    -------
    dict
        ``final``: J after the last iteration; ``mean``: J averaged over the iterations
        (both in the environment's units).
    """
    if kind not in STUDENTS:
        raise InputError(f"must be among {', '.join(STUDENTS)}, got {kind!r}", field="kind")
    setup = SharingSetup(k0=k0, coef=coef, eta=eta, delta=delta, lam=lam, beta=beta,
                         kappa=kappa, lr=lr, iterations=int(iterations), episodes=int(episodes),
                         steps=int(steps), reward_scale=reward_scale, gradient=gradient,
                         after_budget=after_budget, rollout="sample",
                         penalty_weight=penalty_weight, nonprivate_target=nonprivate_target)
    setup.check()
    # one deployment (teacher, ledger) however the arms differ
    learn, teacher, ledger, _jt, rho, pi_T = deployment(
        env, replace(setup, after_budget="stop", nonprivate_target="teacher"), int(rollouts))
    gen = np.random.default_rng(int(seed))
    curve = run_student(learn, kind, teacher, setup, ledger, gen, plain=pi_T) * rho
    return {"final": float(curve[-1]), "mean": float(curve.mean())}


def sharing_claims_study(envs: Sequence[str] = tuple(ENVIRONMENTS), *, n: int = 30,
                         master_seed: int | None = 2028, **params: Any) -> Study:
    """The README's policy-sharing study: six arms × the environments × n replicates.

    Arms: ``none``, ``nonprivate``, and ``aware``/``unaware`` under each after-budget rule
    (``aware-stop``, ``unaware-stop``, ``aware-random``, ``unaware-random``). Points: one per
    environment (``{"env": id}``).

    Parameters
    ----------
    envs : sequence of str
        Names of :data:`ENVIRONMENTS`.
    n : int
        Replicates.
    master_seed : int or None
        The study's master seed.
    **params
        Passed to every arm (e.g. ``iterations=100``).

    Returns
    -------
    Study
    """
    arms = [Arm("none", student_arm, {"kind": "none", **params}),
            Arm("nonprivate", student_arm, {"kind": "nonprivate", **params})]
    for rule in ("stop", "random"):
        for kind in ("aware", "unaware"):
            arms.append(Arm(f"{kind}-{rule}", student_arm,
                            {"kind": kind, "after_budget": rule, **params}))
    unknown = [e for e in envs if e not in ENVIRONMENTS]
    if unknown:
        raise InputError(f"unknown environment(s) {unknown}; known: {list(ENVIRONMENTS)}",
                         field="envs")
    return Study("policy sharing (one deployment per replicate)", arms, n=n,
                 master_seed=master_seed, points=[{"env": ENVIRONMENTS[e]} for e in envs])


def sharing_claims(envs: Sequence[str] = tuple(ENVIRONMENTS),
                   metric: str = "mean") -> list[Claim]:
    """The paper's claims, per environment, as :class:`core.study.Claim`.

    Parameters
    ----------
    envs : sequence of str
        Names of :data:`ENVIRONMENTS`.
    metric : str
        ``"mean"`` (learning speed: J averaged over iterations) or ``"final"``.

    Returns
    -------
    list of Claim
    """
    out = []
    for i, e in enumerate(envs):
        out += [
            Claim(f"{e}: a non-private teacher helps (nonprivate > none)", metric,
                  "nonprivate", "none", ">", point=i),
            Claim(f"{e}: aware beats unaware, paper's rule (random after budget)", metric,
                  "aware-random", "unaware-random", ">", point=i),
            Claim(f"{e}: unaware falls below no teacher, paper's rule", metric,
                  "unaware-random", "none", "<", point=i),
            Claim(f"{e}: aware beats unaware, PrivPlan's rule (stop)", metric,
                  "aware-stop", "unaware-stop", ">", point=i),
            Claim(f"{e}: the private aware student beats no teacher (stop)", metric,
                  "aware-stop", "none", ">", point=i),
            # the same claim under the paper's protocol: the headline must not rest on
            # PrivPlan's own after-budget rule alone
            Claim(f"{e}: the private aware student beats no teacher, paper's rule (random)",
                  metric, "aware-random", "none", ">", point=i),
        ]
    return out
