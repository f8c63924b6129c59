"""Unit tests of core.gridworld.dpdrl (scores, the exponential choice, obfuscation, one step,
the set-up checks, convergence) and core.gridworld.attack (recovery rates, repair, fitness, the
GA's bookkeeping). Expected values come from closed forms or hand-worked cases.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.gridworld import attack, dpdrl
from core.gridworld.attack import AttackSetup, recover_map, recovery_rates, repair
from core.gridworld.dpdrl import (
    N_SCORE,
    OBSERVATION_REASON,
    THESIS_FLAWS,
    DrlSetup,
    choice_bounds,
    drl_result,
    grid_step,
    obfuscate,
    roulette,
    scores,
    selection_probabilities,
    train_agent,
)
from core.gridworld.maps import MOVES, bfs_distance, grid_from_rows, violations

ROOM = grid_from_rows(["#######",
                       "#S..#.#",
                       "#.#...#",
                       "#...#G#",
                       "#######"], "room")
CORRIDOR = grid_from_rows(["#####",
                           "#S.G#",
                           "#####"], "corridor")

dvec = st.lists(st.floats(min_value=0.0, max_value=10.0), min_size=8, max_size=8).map(np.array)


# --- Alg. 9 scores ---------------------------------------------------------------------------

@settings(max_examples=30)
@given(dvec)
def test_scores_lie_in_one_to_n_and_reverse_the_distance_order(d):
    sr, lo, hi = scores(d)
    assert lo == d.min() and hi == d.max()
    assert ((sr >= 1 - 1e-12) & (sr <= N_SCORE + 1e-12)).all()
    if hi - lo >= 1e-12:
        assert sr[np.argmin(d)] == pytest.approx(N_SCORE)
        assert sr[np.argmax(d)] == pytest.approx(1.0)
        # a larger distance never gets a larger score
        order = np.argsort(d, kind="stable")
        assert (np.diff(sr[order]) <= 1e-12).all()


def test_scores_closed_form_and_zero_spread():
    sr, _, _ = scores(np.array([0.0, 0.5, 1.0]), n=4.0)
    np.testing.assert_allclose(sr, [4.0, 2.0, 1.0])
    sr, lo, hi = scores(np.full(8, 3.0))
    assert (sr == N_SCORE).all() and lo == hi == 3.0


# --- Alg. 10 probabilities ---------------------------------------------------------------------

@settings(max_examples=30)
@given(dvec, st.floats(min_value=0.01, max_value=20.0))
def test_strict_probabilities_follow_the_exponential_mechanism(d, eps):
    sr, lo, hi = scores(d)
    p, e, S = selection_probabilities(sr, lo, hi, epsilon=eps)
    assert e == eps and S == N_SCORE - 1
    w = np.exp(eps * sr / (2 * S))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-9)
    # within choice_bounds for every score vector
    _, pmin, pmax = choice_bounds(eps)
    assert p.min() >= pmin - 1e-12 and p.max() <= pmax + 1e-12


def test_choice_bounds_are_attained_by_the_extreme_score_vectors():
    eps = 2.0
    r, pmin, pmax = choice_bounds(eps)
    assert r == pytest.approx(math.exp(eps / 2))
    sr_hi, lo, hi = scores(np.array([0.0] + [1.0] * 7))
    p_hi, _, _ = selection_probabilities(sr_hi, lo, hi, epsilon=eps)
    assert p_hi.max() == pytest.approx(pmax)
    sr_lo, lo, hi = scores(np.array([1.0] + [0.0] * 7))
    p_lo, _, _ = selection_probabilities(sr_lo, lo, hi, epsilon=eps)
    assert p_lo.min() == pytest.approx(pmin)


@pytest.mark.parametrize("n", [3.0, 10.0, 50.0])
def test_strict_ratio_is_independent_of_n(n):
    assert choice_bounds(1.5, n=n)[0] == pytest.approx(math.exp(0.75))


def test_choice_bounds_with_a_sensitivity_and_overflow():
    r, lo, hi = choice_bounds(1.0, sensitivity=1.0)
    assert r == pytest.approx(math.exp(9 / 2))
    assert hi == pytest.approx(r / (r + 7)) and lo == pytest.approx(1 / (1 + 7 * r))
    assert choice_bounds(1e4) == (math.inf, 0.0, 1.0)
    _, lo, hi = choice_bounds(1e-9)
    assert lo == pytest.approx(1 / 8) and hi == pytest.approx(1 / 8)


@pytest.mark.parametrize("eps, sens, field", [
    (0.0, None, "epsilon"), (-1.0, None, "epsilon"), (math.inf, None, "epsilon"),
    (math.nan, None, "epsilon"), (1.0, 0.0, "sensitivity"), (1.0, -2.0, "sensitivity")])
def test_choice_bounds_refusals(eps, sens, field):
    with pytest.raises(InputError) as err:
        choice_bounds(eps, sens)
    assert err.value.field == field


def test_thesis_preset_derives_epsilon_and_sensitivity_from_the_data():
    d = np.array([0.0, 0.5, 0.25, 2.0, 0.75, 1.0, 1.5, 1.25])
    sr, lo, hi = scores(d)
    p, eps, S = selection_probabilities(sr, lo, hi, preset="thesis")
    assert eps == pytest.approx(min(max(math.atan(2.0), 0.1), 1.0)) == 1.0
    top = sorted(sr, reverse=True)
    assert S == pytest.approx(top[0] - top[1])
    assert p.sum() == pytest.approx(1.0)
    small = np.array([0.0, 0.01] + [0.005] * 6)
    _, eps_small, _ = selection_probabilities(*scores(small), preset="thesis")
    assert eps_small == pytest.approx(0.1)  # arctan(0.01) < 0.1 is clipped up


def test_thesis_preset_zero_spread_is_uniform_and_ties_fall_back():
    sr, lo, hi = scores(np.full(8, 1.0))
    p, eps, S = selection_probabilities(sr, lo, hi, preset="thesis")
    np.testing.assert_allclose(p, np.full(8, 1 / 8))
    assert eps == 0.0 and S == N_SCORE - 1
    tied = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    _, _, S2 = selection_probabilities(*scores(tied), preset="thesis")
    assert S2 == N_SCORE - 1


@pytest.mark.parametrize("kwargs, field", [
    ({"epsilon": None}, "epsilon"), ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": math.inf}, "epsilon"), ({"preset": "loose", "epsilon": 1.0}, "preset")])
def test_selection_refusals(kwargs, field):
    sr, lo, hi = scores(np.arange(8.0))
    with pytest.raises(InputError) as err:
        selection_probabilities(sr, lo, hi, **kwargs)
    assert err.value.field == field


# --- roulette and obfuscate --------------------------------------------------------------------

@settings(max_examples=30)
@given(st.lists(st.floats(min_value=0.01, max_value=1.0), min_size=2, max_size=8),
       st.floats(min_value=0.0, max_value=1.0))
def test_roulette_picks_the_first_index_whose_cumulative_reaches_u(w, u):
    p = np.array(w) / sum(w)
    i = roulette(p, u)
    c = np.cumsum(p)
    brute = next((k for k in range(p.size) if c[k] >= u), p.size - 1)
    assert i == brute


def test_roulette_clamps_rounding_at_the_top():
    p = np.array([0.3, 0.3, 0.3])      # sums to 0.9: u above the total still gives the last
    assert roulette(p, 0.95) == 2
    assert roulette(p, 0.0) == 0


def test_obfuscate_flips_exactly_the_chosen_bit_and_reports_p_max():
    q_pos = np.random.default_rng(0).normal(size=(256, 5))
    p_max: list[float] = []
    for obs in (0, 37, 255):
        new, i, eps = obfuscate(obs, q_pos, preset="strict", epsilon=1.0,
                                rng=np.random.default_rng(obs), p_max=p_max)
        assert new == obs ^ (1 << i) and 0 <= i < 8
        assert bin(new ^ obs).count("1") == 1
        assert eps == 1.0
    assert len(p_max) == 3
    _, lo, hi = choice_bounds(1.0)
    assert all(1 / 8 - 1e-12 <= v <= hi + 1e-12 for v in p_max)


def test_obfuscate_frequencies_match_the_probabilities():
    q_pos = np.random.default_rng(1).normal(size=(256, 5))
    obs = 90
    d = np.sqrt(((q_pos[obs ^ (1 << np.arange(8))] - q_pos[obs]) ** 2).sum(axis=1))
    p, _, _ = selection_probabilities(*scores(d), epsilon=8.0)
    rng = np.random.default_rng(2)
    n = 4000
    counts = np.bincount([obfuscate(obs, q_pos, preset="strict", epsilon=8.0, rng=rng)[1]
                          for _ in range(n)], minlength=8)
    sd = np.sqrt(p * (1 - p) / n)
    assert (np.abs(counts / n - p) < 5 * sd + 1e-9).all()


def test_obfuscate_in_release_mode_uses_os_randomness():
    q_pos = np.zeros((256, 5))   # zero spread: eps 0 under the thesis preset, uniform choice
    new, i, eps = obfuscate(5, q_pos, preset="thesis", epsilon=None, rng=None)
    assert eps == 0.0 and new == 5 ^ (1 << i)


# --- one environment step -------------------------------------------------------------------

def test_grid_step_rewards():
    r0, c0 = ROOM.start
    assert grid_step(ROOM, r0, c0, 4) == (-0.1, r0, c0, False)        # stay
    assert grid_step(ROOM, r0, c0, 0) == (-0.1, r0, c0, False)        # up into the border
    assert grid_step(ROOM, r0, c0, 3) == (0.0, r0, c0 + 1, False)     # right, free
    assert grid_step(ROOM, 2, 5, 1) == (1.0, 3, 5, True)              # down onto the goal


@settings(max_examples=30)
@given(st.sampled_from(ROOM.free_cells()), st.integers(min_value=0, max_value=4))
def test_grid_step_never_leaves_the_free_cells(rc, a):
    rew, nr, nc, done = grid_step(ROOM, rc[0], rc[1], a)
    assert ROOM.cells[nr, nc] == 1
    assert abs(nr - rc[0]) + abs(nc - rc[1]) <= 1
    assert done == ((nr, nc) == ROOM.goal)
    assert rew == (1.0 if done else 0.0 if (nr, nc) != rc else -0.1)


# --- DrlSetup.validated ------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, field", [
    ({"episodes": 0}, "episodes"), ({"max_steps": -1}, "max_steps"),
    ({"defense": "noise"}, "defense"), ({"preset": "loose"}, "preset"),
    ({"defense": "dpdrl", "epsilon": 0.0}, "epsilon"),
    ({"defense": "dpdrl", "epsilon": True}, "epsilon"),
    ({"epsilon": 1.0}, "epsilon"), ({"episodes": 10**9}, "episodes")])
def test_drl_setup_refusals_name_the_field(kwargs, field):
    with pytest.raises(InputError) as err:
        DrlSetup(**kwargs).validated()
    assert err.value.field == field


def test_drl_setup_fills_the_strict_epsilon():
    assert DrlSetup(defense="dpdrl").validated().epsilon == 1.0
    assert DrlSetup(defense="dpdrl", epsilon=2.5).validated().epsilon == 2.5
    assert DrlSetup(defense="dpdrl", preset="thesis").validated().epsilon is None


# --- training, results and convergence ---------------------------------------------------------

def test_corridor_agent_learns_and_result_is_consistent():
    res = train_agent(CORRIDOR, DrlSetup(episodes=40, max_steps=20), seed=3)
    assert res.q.shape == (15, 256, 5)
    assert res.rewards.shape == res.steps.shape == res.reached.shape == (40,)
    assert (res.steps >= 1).all() and (res.steps <= 20).all()
    # a reached episode ends with +1 after its failed moves at -0.1 each
    for rew, n, ok in zip(res.rewards, res.steps, res.reached):
        if ok:
            assert -0.1 * (n - 1) - 1e-9 <= rew - 1.0 <= 1e-9
    assert res.reached[-5:].all()
    conv = res.convergence
    assert conv.shortest == 2 and conv.step_limit == 4
    assert conv.converged and conv.eval_success == 1.0
    j = res.to_json()
    assert j["epsilon_total"] is None and "no defense" in j["epsilon_total_reason"]
    assert j["preset"] is None and "epsilon_selection_total" not in j
    assert j["mode"] == "experiment" and j["converged"] is True


def test_dpdrl_training_counts_every_obfuscated_step():
    res = train_agent(CORRIDOR, DrlSetup(defense="dpdrl", episodes=10, max_steps=15,
                                         epsilon=0.5), seed=1)
    # one obfuscation at each episode's start and one after every step that does not end
    # on the goal: n per episode that arrives in n steps, n + 1 per episode that does not
    assert res.obfuscated_steps == int(res.steps.sum()) + int((~res.reached).sum())
    assert res.epsilon_per_step == 0.5 and res.epsilon_mean == pytest.approx(0.5)
    j = res.to_json()
    assert j["epsilon_selection_total"] == pytest.approx(0.5 * res.obfuscated_steps)
    assert j["epsilon_total_reason"] == OBSERVATION_REASON
    assert 1 / 8 <= res.choice_p_max_mean <= choice_bounds(0.5)[2] + 1e-12


def test_drl_result_notes_and_final_slice():
    setup = DrlSetup(defense="dpdrl", preset="thesis").validated()
    seen: list = []
    res = drl_result(CORRIDOR, setup, np.zeros((15, 256, 5)), np.arange(30.0),
                     np.full(30, 4), np.zeros(30, dtype=bool), eps_used=[0.2, 0.4],
                     seed=None, elapsed=2.0, total_steps=4, obf_time=1.0, notes=[],
                     progress=lambda f, m: seen.append((f, m)))
    assert seen == [(1.0, "trained")]
    assert res.notes == [*THESIS_FLAWS, OBSERVATION_REASON]
    assert res.mode == "release" and res.epsilon_per_step is None
    assert res.epsilon_mean == pytest.approx(0.3) and res.obfuscated_steps == 2
    assert res.time_per_step_s == 0.5 and res.obfuscation_s_per_step == 0.5
    assert res.final_slice == slice(27, 30) and res.reward_final == pytest.approx(28.0)


def test_untrained_agent_does_not_converge_and_json_says_why():
    res = drl_result(ROOM, DrlSetup().validated(), np.zeros((35, 256, 5)), np.zeros(5),
                     np.zeros(5), np.zeros(5, dtype=bool), eps_used=[], seed=0, elapsed=0.0,
                     total_steps=0, obf_time=0.0, notes=[], progress=lambda *a: None)
    conv = dpdrl.evaluate_convergence(res, episodes=10)
    shortest = int(bfs_distance(ROOM.cells, ROOM.goal)[ROOM.start])
    assert conv.shortest == shortest == 6 and conv.step_limit == 12
    # a random walk of 12 steps rarely reaches a goal 6 away: far below the 90 % bar
    assert not conv.converged and conv.eval_success < 0.9
    j = conv.to_json()
    assert j["eval_episodes"] == 10 and "12 steps" in j["criterion"]
    if math.isnan(conv.eval_steps_mean):
        assert j["eval_steps_mean"] is None and "eval_steps_mean_reason" in j


def test_policy_is_a_softmax_of_q():
    q = np.zeros((15, 256, 5))
    q[6, 3] = [1.0, 0.0, 0.0, 0.0, 0.0]
    res = drl_result(CORRIDOR, DrlSetup().validated(), q, np.zeros(1), np.zeros(1),
                     np.zeros(1, dtype=bool), eps_used=[], seed=0, elapsed=0.0,
                     total_steps=0, obf_time=0.0, notes=[], progress=lambda *a: None)
    pi = res.policy(tau=0.5)
    p = pi(np.array([6, 7]), np.array([3, 3]))
    e2 = math.exp(2.0)
    np.testing.assert_allclose(p[0], [e2 / (e2 + 4)] + [1 / (e2 + 4)] * 4)
    np.testing.assert_allclose(p[1], np.full(5, 0.2))


# --- the attack ---------------------------------------------------------------------------------

def test_recovery_rates_by_hand():
    guess = ROOM.cells.copy()
    assert recovery_rates(ROOM, guess) == (1.0, 1.0)
    guess[2, 2] ^= 1          # one interior cell wrong
    guess[0, 0] ^= 1          # one border cell wrong
    grr, nrr = recovery_rates(ROOM, guess)
    assert grr == pytest.approx(1 - 2 / 35)
    # interior 3 x 5 = 15 cells minus start and goal = 13
    assert nrr == pytest.approx(1 - 1 / 13)


@settings(max_examples=25)
@given(st.integers(min_value=0, max_value=10_000), st.floats(min_value=0.0, max_value=0.9))
def test_repair_always_satisfies_the_constraints(seed, density):
    rng = np.random.default_rng(seed)
    cells = (rng.random(ROOM.shape) >= density).astype(np.uint8)
    fixed = repair(cells, ROOM.start, ROOM.goal, rng)
    assert violations(fixed, ROOM.start, ROOM.goal) == []
    assert fixed is not cells


def test_repair_leaves_a_valid_map_unchanged():
    fixed = repair(ROOM.cells, ROOM.start, ROOM.goal, np.random.default_rng(0))
    np.testing.assert_array_equal(fixed, ROOM.cells)


def test_path_cells_is_a_shortest_interior_path():
    path = attack._path_cells(5, 7, (1, 1), {(3, 5)})
    assert path[0] == (3, 5) and path[-1] == (1, 1)
    assert len(path) == 1 + 2 + 4
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(path, path[1:]))
    assert attack._path_cells(5, 7, (1, 1), {(0, 0)}) == []   # the border is not interior


def _oracle_policy(grid):
    """π(a | c) uniform over the moves that shorten the true BFS distance."""
    dist = bfs_distance(grid.cells, grid.goal)
    H, W = grid.shape

    def pi(pos, obs):
        out = np.zeros((pos.size, 5))
        for k, p in enumerate(pos):
            r, c = divmod(int(p), W)
            good = [a for a, (dr, dc) in enumerate(MOVES[:4])
                    if 0 <= dist[r + dr, c + dc] < dist[r, c]]
            out[k, good] = 1 / len(good) if good else 0
            if not good:
                out[k] = 0.2
        return out
    return pi


def test_fitness_of_the_truth_under_the_oracle_policy_is_one():
    pi = _oracle_policy(ROOM)
    assert attack._fitness(ROOM.cells, ROOM.goal, pi) == pytest.approx(1.0)

    def uniform(pos, obs):
        return np.full((pos.size, 5), 0.2)

    f = attack._fitness(ROOM.cells, ROOM.goal, uniform)
    assert 0.2 - 1e-12 <= f <= 0.4 + 1e-12     # one or two shortening moves of five


def test_recover_map_bookkeeping_on_a_tiny_search():
    pi = _oracle_policy(ROOM)
    res = recover_map(ROOM, pi, AttackSetup(population=8, generations=4), seed=0)
    assert res.history.shape == (4,)
    assert (np.diff(res.history) >= -1e-12).all()         # elitism: the best never drops
    assert res.fitness == pytest.approx(res.history[-1])
    assert res.truth_fitness == pytest.approx(1.0)
    assert violations(res.recovered.cells, ROOM.start, ROOM.goal) == []
    assert (res.grr, res.nrr) == recovery_rates(ROOM, res.recovered.cells)
    assert 0.0 <= res.baseline_nrr <= 1.0


@pytest.mark.parametrize("kwargs, field", [
    ({"population": 0}, "population"), ({"population": 2, "elitism": 2}, "population"),
    ({"generations": 0}, "generations"), ({"tournament": 1.5}, "tournament")])
def test_attack_setup_refusals(kwargs, field):
    with pytest.raises(InputError) as err:
        AttackSetup(**kwargs).validated()
    assert err.value.field == field
