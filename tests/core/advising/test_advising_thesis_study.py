"""The §3.6 study's arms (core.advising.thesis_study): each is the experiment's own run —
the same seed gives the same metrics as Experiments 1–3 of core.advising.experiments — and
the arms and points are the thesis's strategies, ε and variants."""

from __future__ import annotations

import math

import numpy as np

from core.advising.experiments import run_experiment
from core.advising.presets import EXP3_EPSILONS, experiment_arms
from core.advising.thesis_study import (
    EXP3_ARMS,
    EXP3_POINTS,
    EXP12_ARMS,
    EXP12_POINTS,
    LATE_FROM,
    arm,
)


def test_the_arms_are_the_experiments_runs_seed_for_seed() -> None:
    """Experiment 1's three arms and Experiment 3's ε = 0.1 arm, seed 5, 420 epochs
    (past LATE_FROM): every metric equals what run_experiment measures on the same seed."""
    epochs = LATE_FROM + 20
    for exp, labels in (("exp1", ("no advice", "traditional", "dp")),
                        ("exp3", ("no advice", "dp eps=0.1"))):
        res = run_experiment(experiment_arms(exp, variant="thesis", epochs=epochs),
                             seeds=[5], workers=1, name=exp)
        for label in labels:
            a = res.index(label)
            params = (EXP12_ARMS if exp == "exp1" else EXP3_ARMS)[label]
            for r, seed in enumerate((5,)):
                m = arm(seed, experiment=exp, variant="thesis", epochs=epochs, **params)
                conv = res.convergence[a, r]
                assert m["auc200"] == res.auc(200)[a, r]
                assert math.isclose(m["auc250"], conv[:250].mean(), rel_tol=1e-12)
                assert m["cr_final"] == conv[-1]
                assert math.isclose(m["cr_late"], conv[LATE_FROM:].mean(), rel_tol=1e-12)
                assert m["advice"] == res.advice[a, r].sum()
                closed = res.closed_epoch[a, r]
                assert (math.isnan(m["closed_epoch"]) and math.isnan(closed)) or \
                    m["closed_epoch"] == closed
    assert res.advice[res.index("dp eps=0.1")].sum() > 0  # the DP arm advised at all


def test_arms_and_points_are_the_thesis_s() -> None:
    assert [p["strategy"] for p in EXP12_ARMS.values()] == ["none", "traditional", "dp"]
    assert {(p["experiment"], p["variant"]) for p in EXP12_POINTS} == {
        (e, v) for e in ("exp1", "exp2") for v in ("thesis", "sound")}
    eps = [p["epsilon"] for k, p in EXP3_ARMS.items() if k != "no advice"]
    assert eps == [float(e) for e in EXP3_EPSILONS]
    assert [p["variant"] for p in EXP3_POINTS] == ["thesis", "sound"]
    # a short run has no late part: NaN, not the mean of an empty slice
    assert np.isnan(arm(1, experiment="exp2", strategy="dp", epochs=30)["cr_late"])
