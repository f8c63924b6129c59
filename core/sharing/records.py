"""What a policy-sharing run records in a project: its parameters, a compact summary and the
privacy-ledger entries of every demonstration the teacher released (Qt-free; the window and
``share --record`` use the same functions).

The protected dataset is the teacher's observations of the environment: ``mdp:<id>`` for a
project model, ``gym:<ID>`` for an imported one. Each live roll-out j of the teacher's ledger
becomes one entry with ε_j and δ_j *per query* and ``count`` = queries × the noisy student
runs (every aware or unaware student of every seed received its own Dirichlet draws of the
teacher's policy). The non-private baseline student reads the teacher's policy itself: one
unbounded entry (ε = ∞ with the reason). Seeded experiments are listed, not spent (ledger
convention).

Examples
--------
>>> from core.mdp.examples import four_startups
>>> from core.sharing.learning import SharingSetup, run_sharing
>>> res = run_sharing(four_startups(), SharingSetup(iterations=3, draws=20_000), seeds=2,
...                   seed=1)
>>> entries = sharing_entries("mdp:startups", res, source="run-1")
>>> noisy = [e for e in entries if e.mechanism == MECHANISM]
>>> len(noisy) == len([r for r in res.ledger.rows if not r.stopped]), noisy[0].count
(True, 4)
>>> [e.reason[:30] for e in entries if e.unbounded]   # the non-private baseline
["the teacher's policy is shared"]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.privacy.ledger import LedgerEntry, PrivacyLedger
from core.sharing.learning import SharingSetup, StudentCurves

__all__ = ["RUN_KIND", "MECHANISM", "sharing_params", "sharing_summary", "sharing_entries",
           "mdp_side_entries"]

RUN_KIND = "sharing"
MECHANISM = "dirichlet-policy"
_MAX_POINTS = 101


def sharing_params(setup: SharingSetup, *, env: str, students: list[str], seeds: int,
                   seed: int | None, teacher: str, temperature: float) -> dict[str, Any]:
    """The run's parameters as the record keeps them (JSON).

    Parameters
    ----------
    setup : SharingSetup
        The mechanism, students and budget.
    env : str
        The environment (``mdp:<id>`` or ``gym:<ID>``).
    students : list of str
        The student types.
    seeds : int
        Runs per type.
    seed : int or None
        The experiment's seed (None: release mode).
    teacher : str
        ``optimal`` or ``softmax``.
    temperature : float
        The softmax teacher's temperature.

    Returns
    -------
    dict
    """
    return {"env": env, "teacher": teacher, "temperature": temperature, "k0": setup.k0,
            "coef": setup.coef, "eta": setup.eta, "lb": setup.lb, "tau": setup.tau,
            "delta": setup.delta, "bound": setup.bound, "lambda": setup.lam,
            "beta": setup.beta, "kappa": setup.kappa, "lr": setup.lr,
            "budget": list(setup.budget), "iterations": int(setup.iterations),
            "draws": int(setup.draws), "rollout": setup.rollout, "steps": int(setup.steps),
            "after_budget": setup.after_budget, "reward_scale": setup.reward_scale,
            "gradient": setup.gradient, "episodes": int(setup.episodes),
            "penalty_weight": setup.penalty_weight,
            "nonprivate_target": setup.nonprivate_target,
            "students": list(students), "seeds": int(seeds),
            "seeded": seed is not None, "seed": seed}


def _thin(x: np.ndarray) -> list[float]:
    """At most about a hundred points of a curve (the first and the last kept)."""
    n = x.size
    if n <= _MAX_POINTS:
        return [float(v) for v in x]
    idx = np.unique(np.linspace(0, n - 1, _MAX_POINTS).round().astype(int))
    return [float(v) for v in x[idx]]


def sharing_summary(result: StudentCurves) -> dict[str, Any]:
    """A compact, JSON-safe summary: the ledger (live roll-outs), its totals and stop, the
    final J per student type with its band, the cost of privacy and the notes; curves
    thinned to about a hundred points each (with their iteration numbers).

    Parameters
    ----------
    result : StudentCurves
        The run.

    Returns
    -------
    dict
    """
    d = result.to_dict()
    keys = ("k", "epsilon", "delta", "tau", "queries", "epsilon_total", "delta_total",
            "epsilon_advanced", "ledger_total", "ledger_total_per_run", "spent_before",
            "stopped_at", "stop_reason", "budget",
            "queries_per_rollout", "adjacency", "mode", "seed", "draws", "teacher_value",
            "cost_of_privacy", "seeds", "iterations", "ignore_threshold", "notes", "elapsed_s")
    out = {k: d[k] for k in keys}
    # what showing the run again needs: the same m and τ as the run's panels
    out["m"] = result.m
    out["curve_tau"] = result.curve_tau
    iters = np.arange(result.setup.iterations + 1, dtype=float)
    out["iteration"] = _thin(iters)
    out["curves"] = {}
    out["final"] = {}
    # the oracle mark: J is evaluated exactly on the true MDP, by the experimenter
    out["oracle_keys"] = ["teacher_value", "curves", "final", "cost_of_privacy"]
    out["oracle_view"] = ("the students' and the teacher's J are evaluated exactly on the true "
                          "MDP: the experimenter's oracle view, not something the teacher "
                          "releases")
    for kind in result.curves:
        med, lo, hi = result.band(kind)
        out["curves"][kind] = {"median": _thin(med), "lower": _thin(lo), "upper": _thin(hi)}
        out["final"][kind] = {"median": float(med[-1]), "lower": float(lo[-1]),
                              "upper": float(hi[-1])}
    return out


def sharing_entries(dataset: str, result: StudentCurves, *, source: str,
                    time: str | None = None) -> list[LedgerEntry]:
    """One ledger entry per live roll-out of the teacher (see the module docstring).

    Parameters
    ----------
    dataset : str
        The protected dataset (``mdp:<id>`` or ``gym:<ID>``).
    result : StudentCurves
        The run.
    source : str
        The run id.
    time : str, optional
        The entries' timestamp (default: now).

    Returns
    -------
    list of LedgerEntry
        With ids local to a fresh ledger (the project gives them its own).
    """
    led = PrivacyLedger()
    noisy = sum(result.curves[k].shape[0] for k in result.curves if k in ("aware", "unaware"))
    mode = "experiment" if result.seed is not None else "release"
    s = result.setup
    extra0: dict[str, Any] = {} if time is None else {"time": time}
    if "nonprivate" in result.curves:  # the baseline reads the teacher's policy itself
        runs = int(result.curves["nonprivate"].shape[0])
        led.record(dataset=dataset, mechanism="policy (no noise)", epsilon=math.inf,
                   delta=0.0, parameters={"runs": runs, "iterations": int(s.iterations),
                                          "queries": result.queries_per_rollout},
                   adjacency=result.ledger.adjacency,
                   released=("the non-private baseline: the teacher's policy itself at every "
                             "queried state, each iteration of each of its runs"),
                   mode=mode, seed=result.seed, source=source,
                   count=result.queries_per_rollout * int(s.iterations) * runs,
                   reason="the teacher's policy is shared without noise (the non-private "
                          "baseline student): no differential privacy", **extra0)
    for r in result.ledger.rows:
        if r.stopped or noisy == 0:
            continue
        params = {"k": r.k, "rollout": r.rollout, "eta": s.eta, "lb": s.lb, "tau": r.tau,
                  "bound": s.bound, "m": list(result.ledger.ms), "draws": result.ledger.draws,
                  "queries": r.queries, "noisy_runs": noisy}
        extra: dict[str, Any] = {} if time is None else {"time": time}
        led.record(dataset=dataset, mechanism=MECHANISM, epsilon=r.epsilon, delta=r.delta,
                   parameters=params, adjacency=result.ledger.adjacency,
                   released=(f"roll-out {r.rollout}: one Dirichlet draw (k = {r.k:.4g}) of the "
                             f"teacher's policy at each of {r.queries} observed states, for "
                             f"each of {noisy} student runs (δ per query: a 95 % Monte Carlo "
                             "bound)"),
                   mode=mode, seed=result.seed, source=source, count=r.queries * noisy,
                   **extra)
    return led.entries


def mdp_side_entries(mdp: Any, mdp_id: str, k: float, *, seed: int | None, source: str,
                     time: str | None = None) -> list[LedgerEntry]:
    """The ledger entry of the MDP-side comparison (:func:`core.sharing.learning.
    mdp_side_bound`): the environment's transitions privatised once with Dir_k.

    Parameters
    ----------
    mdp : MDP
        The environment.
    mdp_id : str
        Its id (the dataset is ``mdp:<id>``).
    k : float
        The concentration.
    seed : int or None
        The privatisation's seed (None: release mode).
    source : str
        The run id.
    time : str, optional
        The timestamp.

    Returns
    -------
    list of LedgerEntry
    """
    from core.mdp.accounting import mdp_privacy, record_privatization

    led = PrivacyLedger()
    record_privatization(led, mdp_id=mdp_id, privacy=mdp_privacy(mdp, k), k=float(k),
                         mode="experiment" if seed is not None else "release", seed=seed,
                         source=source, released="the robust cost bound of the transitions "
                         "privatised at the teacher's k0 (a comparison beside policy sharing)",
                         time=time)
    return led.entries
