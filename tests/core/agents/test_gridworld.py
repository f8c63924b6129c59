"""Grid worlds, DP-DRL (Algorithms 9–10) and the map-recovery attack."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.common.errors import InputError
from core.gridworld.attack import AttackSetup, recover_map, recovery_rates, repair
from core.gridworld.dpdrl import (
    DrlSetup,
    obfuscate,
    roulette,
    scores,
    selection_probabilities,
    train_agent,
)
from core.gridworld.maps import (
    GridMap,
    bfs_distance,
    example_12x11,
    grid_from_rows,
    observations,
    random_map,
    violations,
)

D = np.array([0.10, 0.50, 0.30, 0.90, 0.20, 0.70, 0.40, 0.60])


def test_golden_alg9_alg10_thesis():
    """dp-advising §10.1 item 7."""
    sr, lo, hi = scores(D)
    assert ((D - lo) / (hi - lo)).tolist() == pytest.approx(
        [0, 0.5, 0.25, 1, 0.125, 0.75, 0.375, 0.625])
    assert sr == pytest.approx([10, 3.162278, 5.623413, 1, 7.498942, 1.778279, 4.216965,
                                2.371374], abs=1e-6)
    p, eps, S = selection_probabilities(sr, lo, hi, preset="thesis")
    assert eps == pytest.approx(0.6747409422, abs=1e-10)
    assert S == pytest.approx(2.5010579067, abs=1e-10)
    assert p == pytest.approx([0.243430, 0.096784, 0.134891, 0.072299, 0.173723, 0.080302,
                               0.111581, 0.086990], abs=1e-6)
    assert roulette(p, 0.5) == 3 and roulette(p, 0.2) == 0
    ps, eps_s, S_s = selection_probabilities(sr, lo, hi, preset="strict", epsilon=eps)
    assert S_s == 9 and ps == pytest.approx([0.152954, 0.118371, 0.129811, 0.109155, 0.139266,
                                             0.112386, 0.123144, 0.114913], abs=1e-6)


def test_strict_choice_is_epsilon_dp_for_any_scores():
    """With S = N − 1 and scores in [1, N], every probability ratio between any two score
    vectors is ≤ e^ε (the selection's own guarantee)."""
    rng = np.random.default_rng(0)
    eps = 0.7
    worst = 0.0
    for _ in range(2000):
        a, b = rng.uniform(1, 10, 8), rng.uniform(1, 10, 8)
        pa, _, _ = selection_probabilities(a, 0, 1, preset="strict", epsilon=eps)
        pb, _, _ = selection_probabilities(b, 0, 1, preset="strict", epsilon=eps)
        worst = max(worst, float(np.max(np.log(pa / pb))))
    assert worst <= eps + 1e-12


def test_exponential_choice_matches_its_distribution():
    """χ² test: the roulette draws follow p (fixed seed, 40 000 draws)."""
    q_pos = np.zeros((256, 5))
    q_pos[0b10110101] = [0.1, 0.5, 0.2, 0.9, 0.3]
    for i in range(8):
        q_pos[0b10110101 ^ (1 << i)] = np.arange(5) * 0.1 * (i + 1)
    rng = np.random.default_rng(3)
    n = 40_000
    picks = np.array([obfuscate(0b10110101, q_pos, preset="strict", epsilon=2.0, rng=rng)[1]
                      for _ in range(n)])
    d = np.sqrt(((q_pos[0b10110101 ^ (1 << np.arange(8))] - q_pos[0b10110101]) ** 2).sum(1))
    sr, lo, hi = scores(d)
    p, _, _ = selection_probabilities(sr, lo, hi, preset="strict", epsilon=2.0)
    counts = np.bincount(picks, minlength=8)
    assert stats.chisquare(counts, p * n).pvalue > 1e-3


def test_the_observation_release_is_not_dp_for_neighbouring_observations():
    """Our erratum of Thm 5.1, attacked exactly: for O, O′ one bit apart, the supports of the
    released O ⊕ e_i and O′ ⊕ e_k are disjoint, so δ = 1 at every ε."""
    obs = 0b01101100
    for j in range(8):
        obs2 = obs ^ (1 << j)
        out1 = {obs ^ (1 << i) for i in range(8)}
        out2 = {obs2 ^ (1 << k) for k in range(8)}
        assert out1.isdisjoint(out2)
    res = train_agent(example_12x11(), DrlSetup(defense="dpdrl", epsilon=1.0, episodes=3,
                                                max_steps=20), seed=0)
    js = res.to_json()
    assert js["epsilon_total"] is None and "disjoint" in js["epsilon_total_reason"]
    assert js["epsilon_per_step"] == 1.0 and js["obfuscated_steps"] > 0


def test_maps_constraints_generator_and_files(tmp_path):
    rng = np.random.default_rng(5)
    for n in (7, 9, 11):
        m = random_map(n, n, rng)
        assert violations(m.cells, m.start, m.goal) == []
        assert bfs_distance(m.cells, m.goal)[m.start] > 0
    ex = example_12x11()
    assert ex.shape == (12, 11) and violations(ex.cells, ex.start, ex.goal) == []
    g = grid_from_rows(ex.to_rows())
    assert (g.cells == ex.cells).all() and g.start == ex.start
    obs = observations(ex.cells)
    r, c = ex.start
    assert (obs[r, c] >> 0) & 1 == ex.cells[r - 1, c]          # bit 0 = up
    assert (obs[r, c] >> 7) & 1 == ex.cells[r + 1, c + 1]      # bit 7 = down-right
    bad = [
        (["#####", "#S#G#", "#####"], "connected"),
        (["######", "#S...#", "#.##.#", "#.##.#", "#...G#", "######"], "2x2"),
        (["#####", "#S..#", "#...#", "#..G#", "##.##"], "border"),
        (["#####", "#S..#", "#...#", "#...#", "#####"], "exactly one start S and one goal"),
        (["####", "#SG#", "#x.#", "####"], "not one of"),
    ]
    for rows, problem in bad:
        with pytest.raises(InputError) as ei:
            grid_from_rows(rows)
        assert problem in str(ei.value)
    with pytest.raises(InputError):
        random_map(4, 9, rng)


def test_repair_satisfies_the_constraints():
    rng = np.random.default_rng(9)
    m = random_map(9, 9, rng)
    for _ in range(30):
        junk = (rng.random(m.cells.shape) < 0.5).astype(np.uint8)
        fixed = repair(junk, m.start, m.goal, rng)
        assert violations(fixed, m.start, m.goal) == []


def test_attack_recovers_an_undefended_map_and_dpdrl_lowers_nrr():
    """Small and seeded: no defense lets the GA recover most of the map; DP-DRL (strict,
    ε = 0.1) recovers less. The statement is the thesis's NRR drop, measured."""
    m = random_map(7, 7, np.random.default_rng(1))
    plain = train_agent(m, DrlSetup(episodes=400, max_steps=100), seed=1)
    dp = train_agent(m, DrlSetup(defense="dpdrl", epsilon=0.1, episodes=400, max_steps=100),
                     seed=1)
    ga = AttackSetup(population=40, generations=40)
    a0 = recover_map(m, plain.policy(), ga, seed=2)
    a1 = recover_map(m, dp.policy(), ga, seed=2)
    assert a0.nrr >= 0.9 and a0.fitness >= a0.truth_fitness - 1e-9
    assert a1.nrr < a0.nrr
    assert recovery_rates(m, m.cells) == (1.0, 1.0)
    assert plain.reward_final > 0.5   # the agent learned to reach the goal


def test_bad_setups_are_refused():
    with pytest.raises(InputError) as ei:
        DrlSetup(defense="dpdrl", epsilon=0.0).validated()
    assert ei.value.field == "epsilon"
    with pytest.raises(InputError) as ei:
        DrlSetup(epsilon=1.0).validated()
    assert ei.value.field == "epsilon"
    with pytest.raises(InputError) as ei:
        DrlSetup(defense="dpdrl", preset="loose").validated()
    assert ei.value.field == "preset"
    bad = GridMap(np.zeros((5, 5), dtype=np.uint8), (1, 1), (3, 3))
    with pytest.raises(InputError):
        train_agent(bad, DrlSetup(), seed=0)
    assert math.isfinite(float(D.sum()))
