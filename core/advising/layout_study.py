"""Experiment 1 on the thesis's own layout, as arms of a seeded study.

Thesis §3.6.1: "the only different setting in our proposed method is that each agent has one
different action (A(a₁) = {A,B,C,D}, A(a₂) = {A,B,C,E}, A(a₃) = {A,B,D,E}, …), but each
agent's actions are the same for the other two strategies … The expectation is that our
algorithm can have a same performance with traditional advising framework."

:func:`arm` is one replicate of one arm (a module-level ``arm(seed, **params) -> dict``, the
shape a study runner takes); :data:`EXP1_ONE_DIFFERENT` lists the three arms of that
experiment: no advice and traditional advising on identical sets (``same``) with the
rewards of the ``one-different`` layout, DP advising on ``one-different``
(:func:`core.advising.presets.layout_action_sets`). ``advise-bench --experiment exp1
--layout one-different`` runs the same arms over many seeds with intervals and states the
claim's verdict (:mod:`core.advising.claims`, ``exp1-equal-traditional``).

Examples
--------
>>> m = arm(3, strategy="dp", layout="one-different", epochs=30)
>>> sorted(m), m == arm(3, strategy="dp", layout="one-different", epochs=30)
(['advice', 'auc200', 'cr_final', 'epochs_to_90'], True)
"""

from __future__ import annotations

import math
from typing import Any

from core.advising.framework import run_advising
from core.advising.presets import preset

__all__ = ["arm", "EXP1_ONE_DIFFERENT"]

#: Experiment 1 with every agent one different action: arm name -> :func:`arm` parameters.
EXP1_ONE_DIFFERENT: dict[str, dict[str, Any]] = {
    "no advice": {"strategy": "none", "layout": "same", "rewards_of": "one-different"},
    "traditional": {"strategy": "traditional", "layout": "same",
                    "rewards_of": "one-different"},
    "dp": {"strategy": "dp", "layout": "one-different"},
}


def arm(seed: int, *, strategy: str, layout: str, rewards_of: str | None = None,
        variant: str = "sound", epsilon: float = 1.0, epochs: int = 700,
        horizon: int = 200) -> dict[str, float]:
    """One seeded advising run of Experiment 1's set-up on ``layout``; its summary metrics.

    Parameters
    ----------
    seed : int
        The run's seed (a seeded experiment; the same seed replays it exactly).
    strategy : {"none", "traditional", "dp"}
        Who advises whom.
    layout : str
        The agents' server sets (:data:`core.advising.presets.LAYOUTS`).
    rewards_of : str, optional
        Use that layout's reward table (default: ``layout``'s).
    variant : {"sound", "thesis"}
        The privacy variant.
    epsilon : float
        ε per advice query.
    epochs : int
        Epochs (700 in the thesis).
    horizon : int
        The AUC's horizon (200: the early stage).

    Returns
    -------
    dict
        ``auc200`` (mean convergence ratio over epochs 1..horizon), ``cr_final``,
        ``advice`` (advice events) and ``epochs_to_90`` (NaN if never reached).
    """
    setup = preset("exp1", variant=variant, strategy=strategy, layout=layout,
                   rewards_of=rewards_of, epsilon=epsilon, epochs=epochs)
    r = run_advising(setup, rng=int(seed), detail=False)
    hit = r.epochs_to(0.9)
    return {"auc200": r.auc(horizon), "cr_final": r.cr_at(r.epochs),
            "advice": float(r.advice_total),
            "epochs_to_90": math.nan if hit is None else float(hit)}
