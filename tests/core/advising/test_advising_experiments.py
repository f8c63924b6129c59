"""Experiments over seeds: worker-independence, CIs, and the statistical properties of
spec §10.2/§10.4 (large ε beats no advice early; convergence improves with ε).

All runs are seeded (seeds 0..19), so every assertion is deterministic. The thresholds
are derived from the seed-to-seed variance measured with these seeds, so that a change
that alters the random streams (but not the behaviour) still passes: see each comment.
Only the first 200 epochs matter for AUC200, and a 200-epoch run is exactly the first
200 epochs of a 700-epoch run (the RNG order is per epoch), so the fixtures stop there.
Thesis claims that spec §10.5 says not to encode are *not* asserted here (see
core.advising.claims and bench/advising.py).
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy import stats

from core.advising.claims import THESIS_CLAIMS, check_claims, claims_table
from core.advising.experiments import ci95, epsilon_sweep, run_experiment, spearman
from core.advising.presets import ExperimentArm, experiment_arms, preset
from core.common.errors import InputError
from core.common.progress import Cancelled

SEEDS = 20
EPS = (0.1, 0.4, 0.7, 1.0, 2.0)


@pytest.fixture(scope="module",
                params=["sound", pytest.param("thesis", marks=pytest.mark.slow)])  # test-slow
def exp3(request):
    arms = experiment_arms("exp3", variant=request.param, epochs=200)
    return request.param, run_experiment(arms, seeds=SEEDS, seed=0, workers=2, name="exp3")


def paired_t(d: np.ndarray) -> float:
    return float(d.mean() / (d.std(ddof=1) / math.sqrt(d.size)))


def test_large_epsilon_beats_no_advice_early(exp3):
    """DP advising at ε = 2 vs no advice, mean CR over epochs 1..100 and 1..200, paired.

    Thesis variant, measured with seeds 0..19: +4.0 pp (sd 1.6, t = 11.3, 19/20) over
    1..200; t = 11.2 over 1..100. We require t ≥ 4 (p ≈ 4e-4 under "no effect", about half
    the measured t) and ≥ 15/20 wins (P ≈ 0.02 under a fair coin).

    Sound variant (π′ from the noisy Q alone, noise scale S/ε = 1 at ε = 2): the gain is
    much smaller — +1.1 pp (sd 1.5, t = 3.2, 16/20) over 1..200, +1.2 pp (t = 2.5, 13/20)
    over 1..100 — the price of not releasing the teacher's policy. We require a positive
    mean with t ≥ 1.6 over 1..200 (half the measured t; one-sided p ≈ 0.06) and ≥ 12/20
    wins; the large-ε test below shows the sound advice does carry knowledge.
    """
    variant, r = exp3
    for horizon in ((100, 200) if variant == "thesis" else (200,)):
        auc = r.auc(horizon)
        d = auc[r.index("dp eps=2")] - auc[r.index("no advice")]
        if variant == "thesis":
            assert d.mean() > 0 and paired_t(d) >= 4.0, (variant, horizon, d.mean())
            assert (d > 0).sum() >= 15
        else:
            assert d.mean() > 0 and paired_t(d) >= 1.6, (variant, horizon, d.mean())
            assert (d > 0).sum() >= 12


def test_sound_advice_at_large_epsilon_beats_no_advice():
    """Sound variant on the Exp. 2 layout at ε = 10 (noise scale 0.2): measured +2.3 pp
    AUC200 (sd 1.6 pp, t = 6.4, 18/20 wins) over no advice with seeds 0..19. Required:
    t ≥ 3 (half the measured t) and ≥ 15/20 wins."""
    arms = [ExperimentArm("no advice", preset("exp2", strategy="none", epochs=200)),
            ExperimentArm("dp eps=10", preset("exp2", strategy="dp", epsilon=10.0,
                                              epochs=200))]
    r = run_experiment(arms, seeds=SEEDS, seed=0, workers=2)
    assert r.setups[1].params.variant == "sound"
    auc = r.auc(200)
    d = auc[1] - auc[0]
    assert d.mean() > 0 and paired_t(d) >= 3.0 and (d > 0).sum() >= 15


def test_convergence_improves_monotonically_with_epsilon(exp3):
    """Per-seed slope of AUC200 against log ε is positive; no adjacent pair of ε values
    shows a significant *decrease* (paired t < −2); the end-to-end gain AUC(2) − AUC(0.1)
    is positive.

    Thesis: measured slope t = 12.7 (required ≥ 5), gain +2.4 pp; the spec's B3
    (≥ +1.5 pp, ≥ 17/20 wins, Spearman ρ ≥ 0.9).
    Sound (π′ from the noisy Q alone): measured slope t = 3.0 (required ≥ 1.5, half),
    gain +0.79 pp (SE 0.29 pp; required ≥ +0.2 pp, two SE below) with 15/20 wins
    (required ≥ 12); the per-ε means (.7539, .7529, .7584, .7568, .7617) are not monotone,
    ρ = 0.8 measured, so only ρ ≥ 0.5 is required.
    """
    variant, r = exp3
    auc = r.auc(200)
    dp = np.array([auc[r.index(f"dp eps={e:g}")] for e in EPS])  # (5, seeds)
    slopes = np.array([np.polyfit(np.log(EPS), dp[:, s], 1)[0] for s in range(SEEDS)])
    assert paired_t(slopes) >= (5.0 if variant == "thesis" else 1.5)
    for k in range(len(EPS) - 1):
        assert paired_t(dp[k + 1] - dp[k]) > -2.0, (EPS[k], EPS[k + 1])
    gain = dp[-1] - dp[0]
    rho = spearman(EPS, dp.mean(axis=1))
    if variant == "thesis":
        assert gain.mean() >= 0.015 and (gain > 0).sum() >= 17 and rho >= 0.9
    else:
        assert gain.mean() >= 0.002 and (gain > 0).sum() >= 12 and rho >= 0.5


@pytest.mark.slow  # a long study: make test-slow (CI) runs it
def test_spec_b1_b2_b4_thesis_protocol():
    """Spec §10.4 B1, B2, B4 on the thesis variant (measured: +6.5 pp 20/20; +3.0 pp
    19/20; 299 vs 113 advice events). The thresholds are the spec's."""
    e1 = run_experiment(experiment_arms("exp1", variant="thesis", epochs=200), seeds=SEEDS,
                        seed=0, workers=2)
    b1 = e1.paired("traditional", "no advice")
    assert b1.mean >= 0.03 and b1.wins >= 18
    e2 = run_experiment(experiment_arms("exp2", variant="thesis", epochs=200), seeds=SEEDS,
                        seed=0, workers=2)
    b2 = e2.paired("dp", "no advice")
    assert b2.mean > 0.01 and b2.wins >= 15
    adv = e2.advice.sum(axis=2).mean(axis=1)
    assert adv[e2.index("dp")] >= 2 * adv[e2.index("traditional")]


def test_all_strategies_reach_the_same_asymptote():
    """Spec B5 (measured CR(700) = 0.9965 in every arm; the Alg. 4 floor)."""
    r = run_experiment(experiment_arms("exp2", variant="thesis"), seeds=3, seed=0, workers=1)
    final = r.convergence[:, :, -1]
    assert (final >= 0.99).all() and final.max() - final.min() <= 0.005


# ------------------------------------------------------------------ mechanics
@pytest.mark.slow  # a long study: make test-slow (CI) runs it
def test_results_do_not_depend_on_workers_or_chunking():
    arms = experiment_arms("exp2", epochs=30)
    a = run_experiment(arms, seeds=5, seed=3, workers=1)
    with ThreadPoolExecutor(3) as ex:
        b = run_experiment(arms, seeds=5, seed=3, executor=ex)
    c = run_experiment(arms, seeds=5, seed=3, workers=2)  # processes (spawn)
    for other in (b, c):
        for name in ("convergence", "advice", "ask_budget", "give_budget", "epsilon_time",
                     "releases", "unprotected"):
            assert np.array_equal(getattr(a, name), getattr(other, name)), name
        assert np.array_equal(a.epsilon_spent, other.epsilon_spent, equal_nan=True)
    # Run r is exactly `advise --seed seed + r`.
    from core.advising.framework import run_advising

    single = run_advising(arms[2].setup, rng=3 + 4)
    assert np.array_equal(single.convergence, a.convergence[2, 4])


def test_ci95_is_the_student_t_interval():
    x = np.random.default_rng(0).normal(size=(20, 3))
    m, h = ci95(x)
    for k in range(3):
        lo, hi = stats.t.interval(0.95, 19, loc=x[:, k].mean(), scale=stats.sem(x[:, k]))
        assert m[k] - h[k] == pytest.approx(lo) and m[k] + h[k] == pytest.approx(hi)
    assert ci95(np.ones((1, 2)))[1].tolist() == [0.0, 0.0]


def test_summaries_csv_json_and_claims():
    r = epsilon_sweep(preset("exp3", epochs=60), [0.5, 2.0], seeds=3, seed=1, workers=1)
    assert r.labels == ("no advice", "dp eps=0.5", "dp eps=2") and r.seeds.tolist() == [1, 2, 3]
    s = r.summaries()
    assert [x.strategy for x in s] == ["none", "dp", "dp"] and s[0].advice == 0
    assert s[2].epsilon_spent_max > s[1].epsilon_spent_max > 0
    csv = r.to_csv().splitlines()
    assert csv[0].startswith("experiment,arm,strategy,epsilon") and len(csv) == 1 + 3 * 60
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert len(d["arms"][1]["convergence_mean"]) == 60 and len(d["comparisons"]) == 2
    m, h = r.mean_ci("ask_budget")
    assert (m[0] == 30).all() and (m[2, -1] < 30)
    # The claims checker reports (never asserts) thesis claims; 'not run' for exp1/exp2.
    checks = check_claims({"exp3": r})
    assert [c.claim.id for c in checks] == [c.id for c in THESIS_CLAIMS]
    assert {c.verdict for c in checks} <= {"reproduced", "partly", "not reproduced", "not run"}
    assert sum(c.verdict != "not run" for c in checks) == 3
    assert claims_table(checks).startswith("| claim |")


def test_experiment_validation_and_cancel():
    arms = experiment_arms("exp2", epochs=10)
    with pytest.raises(InputError) as info:
        run_experiment(arms + [ExperimentArm("x", preset("exp2", epochs=11))], seeds=1)
    assert info.value.field == "epochs"
    with pytest.raises(InputError):
        run_experiment([arms[0], arms[0]], seeds=1)
    with pytest.raises(InputError):
        run_experiment(arms, seeds=0)
    with pytest.raises(InputError):
        run_experiment(arms, seeds=2, workers=0)

    def stop(fraction: float, message: str = "") -> None:
        if fraction > 0.3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_experiment(arms, seeds=3, workers=1, progress=stop)
    r = run_experiment(arms, seeds=2, seed=None, workers=1)
    assert r.seed_drawn and r.seeds.tolist() == [r.seed, r.seed + 1]
