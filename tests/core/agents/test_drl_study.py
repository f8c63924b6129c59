"""DP-DRL per-run convergence, the choice's reach over ε, and the claims study's machinery
. Small and seeded; the full study lives in bench/drl_claims.py."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from core.common.errors import InputError
from core.gridworld.dpdrl import (
    DrlSetup,
    choice_bounds,
    evaluate_convergence,
    obfuscate,
    selection_probabilities,
    train_agent,
)
from core.gridworld.maps import bfs_distance, random_map
from core.gridworld.study import drl_arm, drl_claims, drl_claims_study
from core.study import run_study

ROOT = Path(__file__).resolve().parents[3]


def _q_with_distances(obs: int, d: np.ndarray) -> np.ndarray:
    """A Q-table row block whose eight flips of ``obs`` lie at distances ``d``."""
    q = np.zeros((256, 5))
    for i in range(8):
        q[obs ^ (1 << i), 0] = d[i]
    return q


@pytest.mark.parametrize("eps", [1.0, 4.0, 16.0])
def test_choice_bounds_match_the_mechanism_monte_carlo(eps):
    """The extremes of choice_bounds are what obfuscate draws: bit 0 scores N and the rest 1
    (p_max), or bit 0 scores 1 and the rest N (p_min). Fixed seed, 6 000 draws each, the
    tolerance 4.5 binomial standard deviations."""
    r, p_lo, p_hi = choice_bounds(eps)
    assert r == pytest.approx(math.exp(eps / 2))
    obs = 0b01101100
    rng = np.random.default_rng(11)
    m = 6000
    for d, want in ((np.array([0.0] + [1.0] * 7), p_hi), (np.array([1.0] + [0.0] * 7), p_lo)):
        q = _q_with_distances(obs, d)
        picks = np.array([obfuscate(obs, q, preset="strict", epsilon=eps, rng=rng)[1]
                          for _ in range(m)])
        freq = float(np.mean(picks == 0))
        tol = 4.5 * math.sqrt(want * (1 - want) / m)
        assert abs(freq - want) <= tol, (eps, freq, want, tol)
    # an interior score vector never leaves the bounds
    for _ in range(200):
        sr = rng.uniform(1, 10, 8)
        sr[0], sr[1] = 10.0, 1.0
        p, _, _ = selection_probabilities(sr, 0, 1, preset="strict", epsilon=eps)
        assert p_lo - 1e-12 <= p.min() and p.max() <= p_hi + 1e-12


def test_choice_bounds_near_uniform_in_the_thesis_range_and_refusals():
    for eps in (0.1, 0.4, 0.7, 1.0):
        _, lo, hi = choice_bounds(eps)
        assert 0.079 < lo < 0.125 < hi < 0.191
    assert choice_bounds(16.0)[2] > 0.997
    # a smaller S is the same distribution as a proportionally larger ε
    assert choice_bounds(1.0, sensitivity=9 / 4) == pytest.approx(choice_bounds(4.0))
    assert choice_bounds(5000.0) == (math.inf, 0.0, 1.0)
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(InputError):
            choice_bounds(bad)


def test_a_run_that_cannot_converge_is_flagged():
    m = random_map(7, 7, np.random.default_rng(1))
    shortest = int(bfs_distance(m.cells, m.goal)[m.start])
    trained = train_agent(m, DrlSetup(episodes=300, max_steps=100), seed=1)
    ok = trained.convergence
    assert ok.converged and ok.eval_success == 1.0 and ok.shortest == shortest
    assert ok.step_limit == 2 * shortest and shortest <= ok.eval_steps_mean <= ok.step_limit
    js = trained.to_json()
    assert js["converged"] is True and js["convergence"]["eval_episodes"] == 20
    assert "2 x the shortest path" in js["convergence"]["criterion"]
    # the same agent with a step limit below the shortest path cannot make it
    short = evaluate_convergence(trained, factor=0.5)
    assert not short.converged and short.eval_success == 0.0
    assert math.isnan(short.eval_steps_mean)
    assert short.to_json()["eval_steps_mean"] is None
    # a two-episode, two-step training leaves an all-zero table: a random walk
    untrained = train_agent(m, DrlSetup(episodes=2, max_steps=2), seed=1)
    assert not untrained.convergence.converged
    assert untrained.to_json()["converged"] is False
    # defended: the evaluation obfuscates too, and is reproducible from the seed
    dp = train_agent(m, DrlSetup(defense="dpdrl", epsilon=1.0, episodes=2, max_steps=2), seed=3)
    assert not dp.convergence.converged
    assert evaluate_convergence(dp) == evaluate_convergence(dp)


def test_recorded_choice_stays_within_its_bounds():
    m = random_map(7, 7, np.random.default_rng(2))
    for eps in (0.1, 16.0):
        res = train_agent(m, DrlSetup(defense="dpdrl", epsilon=eps, episodes=30,
                                      max_steps=40), seed=2)
        _, _, hi = choice_bounds(eps)
        assert 0.125 - 1e-12 <= res.choice_p_max_mean <= hi + 1e-12
        assert res.to_json()["choice_p_max_mean"] == res.choice_p_max_mean


def test_study_arm_is_paired_and_separates_failed_runs():
    kw = dict(size="7x7", episodes=40, max_steps=40, population=6, generations=2)
    a = drl_arm(5, defense="none", **kw)
    b = drl_arm(5, epsilon=16.0, **kw)
    assert drl_arm(5, epsilon=16.0, **kw) == b or math.isnan(b["nrr_failed"])
    for r in (a, b):
        assert r["converged"] in (0.0, 1.0)
        if r["converged"]:
            assert r["nrr_converged"] == r["nrr"] and math.isnan(r["nrr_failed"])
        else:
            assert math.isnan(r["nrr_converged"]) and r["nrr_failed"] == r["nrr"]
    assert "choice_p_max" in b and "choice_p_max" not in a
    # the same seed draws the same map for every arm
    assert a["baseline_nrr"] == b["baseline_nrr"]


def test_claims_study_and_bench_script(tmp_path):
    study = drl_claims_study(["7x7"], epsilons=(0.1, 16.0), n=3, master_seed=4, episodes=30,
                             max_steps=30, population=6, generations=2)
    assert [a.name for a in study.arms] == ["none", "eps=0.1", "eps=16"]
    res = run_study(study)
    conv = res.column("converged", "eps=0.1")
    assert set(conv.tolist()) <= {0.0, 1.0}
    assert np.array_equal(np.isnan(res.column("nrr_converged", "eps=0.1")), conv == 0)
    claims = drl_claims(["7x7"], (0.1, 16.0))
    assert len(claims) == 6 and {c.a for c in claims} == {"eps=0.1"}
    assert [c.expect for c in claims].count("=") == 1
    assert len(drl_claims(["7x7"], (0.1, 1.0, 16.0))) == 7     # + the thesis range's TOST
    spec = importlib.util.spec_from_file_location("drl_claims", ROOT / "bench" / "drl_claims.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "drl.json"
    assert mod.main(["--n", "2", "--epsilons", "0.1,16", "--episodes", "20", "--max-steps", "20",
                     "--population", "4", "--generations", "1", "--workers", "1",
                     "--second-seed", "3", "--json", str(out)]) == 0
    js = json.loads(out.read_text())
    assert js["claims"]["master_seeds"] == [2029, 3]
    assert len(js["claims"]["runs"][0]) == 6 and js["epsilons"] == [0.1, 16.0]
    assert js["study"]["n"] == 2 and len(js["study"]["seeds"]) == 2
    # the tables again from the saved results, without running anything
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert mod.main(["--tables-from", str(out)]) == 0
    text = buf.getvalue()
    assert "master seeds [2029, 3]" in text
    assert text.count("| 7x7: ") == 12          # the stability table and the README rows
    assert "| 7x7 | none | 2 |" in text and "| 7x7 | DP-DRL ε = 16 | 2 |" in text
    assert "| master seed 2029: n, a − b, p (Holm), verdict | master seed 3: n, a − b" in text
