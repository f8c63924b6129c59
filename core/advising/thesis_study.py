"""The thesis's Experiments 1–3 (§3.6) as arms of a seeded study.

§3.6 compares three strategies — no advice, traditional advising among identical sets, and DP
advising — on Experiment 1 (DP on the ``sunflower`` layout, the others on ``same``),
Experiment 2 (everyone on ``mixed``) and Experiment 3 (DP on ``mixed`` at ε ∈ {0.1, 0.4, 0.7,
1, 2} beside no advice). :func:`arm` is one replicate of one strategy in one experiment (the
shape :mod:`core.study` runs: ``arm(seed, **params) -> dict``), with the per-run values the
§3.6 claims read; :data:`EXP12_ARMS` and :data:`EXP3_ARMS` are the arms as the thesis draws
its curves (the same set-ups as :func:`core.advising.presets.experiment_arms`), and the
variants ``thesis`` and ``sound`` are the grid points (:data:`EXP12_POINTS`,
:data:`EXP3_POINTS`).

Examples
--------
>>> m = arm(3, experiment="exp1", strategy="dp", epochs=30)
>>> sorted(m)[:4], m == arm(3, experiment="exp1", strategy="dp", epochs=30)
(['advice', 'auc200', 'auc250', 'closed_epoch'], True)
"""

from __future__ import annotations

import math
from typing import Any

from core.advising.framework import run_advising
from core.advising.presets import EXP3_EPSILONS, preset

__all__ = ["arm", "EXP12_ARMS", "EXP12_POINTS", "EXP3_ARMS", "EXP3_POINTS", "LATE_FROM"]

#: Experiments 1 and 2: arm name -> :func:`arm` parameters (the experiment is the point's).
EXP12_ARMS: dict[str, dict[str, Any]] = {
    "no advice": {"strategy": "none"},
    "traditional": {"strategy": "traditional"},
    "dp": {"strategy": "dp"},
}
#: Experiments 1 and 2 in both privacy variants.
EXP12_POINTS: tuple[dict[str, Any], ...] = tuple(
    {"experiment": e, "variant": v} for e in ("exp1", "exp2") for v in ("thesis", "sound"))
#: Experiment 3: the no-advice base and DP advising at each ε of Figs 3.8–3.9 (the labels of
#: :func:`core.advising.presets.experiment_arms`).
EXP3_ARMS: dict[str, dict[str, Any]] = {
    "no advice": {"strategy": "none"},
    **{f"dp eps={e:g}": {"strategy": "dp", "epsilon": float(e)} for e in EXP3_EPSILONS},
}
#: Experiment 3 in both privacy variants.
EXP3_POINTS: tuple[dict[str, Any], ...] = tuple(
    {"experiment": "exp3", "variant": v} for v in ("thesis", "sound"))
#: ``cr_late`` is the mean convergence ratio after this epoch (the thesis's "after 400 epochs").
LATE_FROM = 400


def arm(seed: int, *, experiment: str, strategy: str, variant: str = "sound",
        epsilon: float = 1.0, epochs: int = 700) -> dict[str, float]:
    """One seeded run of ``strategy`` in one of the thesis's experiments; its metrics.

    Parameters
    ----------
    seed : int
        The run's seed (the same seed replays it exactly; every arm of a replicate gets it).
    experiment : {"exp1", "exp2", "exp3"}
        The experiment's set-up (:func:`core.advising.presets.preset`; Experiment 1 gives DP
        advising the ``sunflower`` layout and the others ``same``).
    strategy : {"none", "traditional", "dp"}
        Who advises whom.
    variant : {"sound", "thesis"}
        The privacy variant.
    epsilon : float
        ε per advice query.
    epochs : int
        Epochs (700 in the thesis).

    Returns
    -------
    dict
        ``auc200`` and ``auc250`` (mean convergence ratio over epochs 1..200 and 1..250),
        ``cr_final`` (after the last epoch), ``cr_late`` (mean over the epochs after
        :data:`LATE_FROM`; NaN for a shorter run), ``advice`` (advice events),
        ``closed_epoch`` (the epoch after which no agent could ask or give advice; NaN if
        advice stayed possible) and ``epochs_to_90`` (NaN if never reached).
    """
    setup = preset(experiment, variant=variant, strategy=strategy, epsilon=epsilon,
                   epochs=epochs)
    r = run_advising(setup, rng=int(seed), detail=False)
    hit = r.epochs_to(0.9)
    late = r.convergence[LATE_FROM:]
    return {"auc200": r.auc(200), "auc250": r.auc(250), "cr_final": r.cr_at(r.epochs),
            "cr_late": float(late.mean()) if late.size else math.nan,
            "advice": float(r.advice_total),
            "closed_epoch": (math.nan if r.advising_closed_epoch is None
                             else float(r.advising_closed_epoch)),
            "epochs_to_90": math.nan if hit is None else float(hit)}
