"""Forecasts of the simulated kinds: small seeded runs on public inputs only.

A logistics plan, an advising set-up and a shared policy have no closed-form utility: what
they are worth is what their runs deliver. Their forecast is therefore an *estimate*: the
same run, at the release's public parameters, on public stand-ins for the private data —
never the project's maps, set-ups or teacher:

* ``logistics``: the sound (or thesis) planner preset at the release's ε on
  :data:`LOGISTICS_WORLDS` seeded synthetic worlds of ``centers`` centres (the worlds and
  tasks of ``plan-bench B1``, :func:`core.logistics.experiments.run_benchmark`). Value: the
  expected route overhead, mean stretch − 1 (true length of a delivered route over the true
  shortest path, minus one); beside it the messages per plan and the delivery rate.
  Utility: (delivery rate × 1/stretch) relative to the same for the no-privacy planner on
  the same worlds and tasks.
* ``advising``: the named public preset (:mod:`core.advising.presets`, synthetic tasks and
  rewards) with DP advising at the release's ε, :data:`ADVISING_SEEDS` seeds and
  :data:`ADVISING_EPOCHS` epochs. Value: the advising gain, the mean convergence ratio over
  those epochs minus that of no advice (the AUC gain of Fig. 3.9, paired seeds). Utility:
  the gain relative to traditional (non-private) advising's, clipped to [0, 1].
* ``sharing``: the student that knows the teacher's noise (``aware``) learning on the public
  environment ``env`` (default the 12-state corridor) from a teacher that can afford the
  release's ``rollouts`` at (k₀, c) (:func:`core.sharing.study.student_arm`),
  :data:`SHARING_SEEDS` seeds, :data:`SHARING_ITERATIONS` iterations. Value: the student's
  expected return, J averaged over the iterations (the area under its learning curve, in
  the environment's reward units). Utility: (J − J_none) / (J_nonprivate − J_none), clipped.

Each estimate is cached per process (the ε-independent baselines once), so an evaluation
that shows the same release again costs nothing; the first costs about a second per
release on one core. An allocation does not re-simulate on its grid: it keeps these
releases' parameters (``docs/privacy-plan.md``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["LOGISTICS_WORLDS", "ADVISING_SEEDS", "ADVISING_EPOCHS", "SHARING_SEEDS",
           "SHARING_ITERATIONS", "logistics_estimate", "advising_estimate",
           "sharing_estimate"]

#: Synthetic worlds per logistics estimate (seed 0; the worlds of ``plan-bench B1``).
LOGISTICS_WORLDS = 4
#: Seeds and epochs per advising estimate.
ADVISING_SEEDS = 3
ADVISING_EPOCHS = 100
#: Seeds and iterations per sharing estimate.
SHARING_SEEDS = 3
SHARING_ITERATIONS = 40


def _mean(x: Any) -> float:
    v = np.asarray(x, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else math.nan


@lru_cache(maxsize=64)
def _logistics_run(approach: str, epsilon: float, preset: str, centers: int
                   ) -> tuple[float, float, float]:
    """(delivery rate, mean stretch, messages per plan) over the synthetic worlds."""
    from core.logistics.experiments import run_benchmark

    label = "dp-thesis" if (approach == "dp" and preset == "thesis") else approach
    res = run_benchmark("B1", values=[epsilon], approaches=[label], worlds=LOGISTICS_WORLDS,
                        seed=0, workers=1, n_centers=int(centers))
    return (_mean(res.data["success"][0, 0]), _mean(res.data["stretch"][0, 0]),
            _mean(res.data["messages"][0, 0]))


def logistics_estimate(epsilon: float, preset: str = "sound", centers: int = 10
                       ) -> dict[str, float]:
    """Route overhead and messages of the planner preset at ``epsilon`` (module docstring).

    Parameters
    ----------
    epsilon : float
        The release's ε (the preset's per-agent ε).
    preset : {"sound", "thesis"}
        The planner preset.
    centers : int
        Centres per synthetic world.

    Returns
    -------
    dict
        ``route_overhead``, ``stretch``, ``messages``, ``success``, ``utility`` and the
        no-privacy planner's ``stretch_nonprivate``, ``success_nonprivate``.
    """
    ok, stretch, msgs = _logistics_run("dp", float(epsilon), preset, int(centers))
    ok0, stretch0, _ = _logistics_run("noprivacy", 0.5, "sound", int(centers))
    util = math.nan
    if ok0 > 0 and stretch > 0 and math.isfinite(stretch):
        util = min(1.0, max(0.0, (ok / stretch) / (ok0 / stretch0)))
    return {"route_overhead": stretch - 1.0, "stretch": stretch, "messages": msgs,
            "success": ok, "utility": util, "stretch_nonprivate": stretch0,
            "success_nonprivate": ok0}


@lru_cache(maxsize=64)
def _advising_auc(preset_name: str, strategy: str, epsilon: float) -> float:
    from core.advising.experiments import run_experiment
    from core.advising.presets import ExperimentArm, preset

    kw: dict[str, Any] = {"strategy": strategy, "epochs": ADVISING_EPOCHS}
    if strategy == "dp":
        kw["epsilon"] = epsilon
    setup = preset(preset_name, **kw)
    res = run_experiment([ExperimentArm(strategy, setup)], seeds=list(range(ADVISING_SEEDS)),
                         seed=0, workers=1)
    return float(res.auc(ADVISING_EPOCHS)[0].mean())


def advising_estimate(epsilon: float, preset: str = "table35") -> dict[str, float]:
    """The advising gain of DP advising at ``epsilon`` on a public preset (module docstring).

    Parameters
    ----------
    epsilon : float
        The teachers' ε.
    preset : str
        A preset of :mod:`core.advising.presets`.

    Returns
    -------
    dict
        ``gain``, ``auc``, ``auc_none``, ``auc_traditional`` and ``utility``.
    """
    none = _advising_auc(preset, "none", 0.0)
    trad = _advising_auc(preset, "traditional", 0.0)
    dp = _advising_auc(preset, "dp", float(epsilon))
    full = trad - none
    util = min(1.0, max(0.0, (dp - none) / full)) if full > 0 else math.nan
    return {"gain": dp - none, "auc": dp, "auc_none": none, "auc_traditional": trad,
            "utility": util}


@lru_cache(maxsize=64)
def _sharing_mean(env: str, kind: str, k0: float, coef: float, rollouts: int) -> float:
    from core.sharing.study import student_arm

    return float(np.mean([student_arm(s, env=env, kind=kind, rollouts=rollouts,
                                      iterations=SHARING_ITERATIONS, k0=k0, coef=coef)["mean"]
                          for s in range(SHARING_SEEDS)]))


def sharing_estimate(k0: float, coef: float, rollouts: int, env: str = "example:corridor"
                     ) -> dict[str, float]:
    """The aware student's expected return on a public environment (module docstring).

    Parameters
    ----------
    k0, coef : float
        The teacher's Dirichlet concentration schedule k₀ and coefficient c.
    rollouts : int
        Roll-outs the teacher can afford.
    env : str
        A public environment id (``example:corridor`` or ``gym:…``).

    Returns
    -------
    dict
        ``return``, ``return_none``, ``return_nonprivate`` and ``utility``.
    """
    # the baselines do not depend on the teacher's noise: one set per environment
    none = _sharing_mean(env, "none", 5.0, 0.95, 1)
    full = _sharing_mean(env, "nonprivate", 5.0, 0.95, 1)
    aware = _sharing_mean(env, "aware", float(k0), float(coef), int(rollouts))
    span = full - none
    util = min(1.0, max(0.0, (aware - none) / span)) if span > 0 else math.nan
    return {"return": aware, "return_none": none, "return_nonprivate": full,
            "utility": util}
