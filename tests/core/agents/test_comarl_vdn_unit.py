"""Unit tests of core.comarl.vdn: the team grid, one team step, the coupling term, the Q box,
the leakage inspector, the set-up checks and the accounting without DP.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.comarl import vdn
from core.comarl.vdn import (
    ALGORITHMS,
    TeamGrid,
    VdnSetup,
    check_agents,
    leakage,
    q_range,
    team_grid,
    team_step,
    train_vdn,
    vdn_accounting,
)
from core.common.errors import InputError
from core.gridworld.maps import bfs_distance, grid_from_rows, violations

CORRIDOR = grid_from_rows(["#######",
                           "#S...G#",
                           "#######"])


def corridor_team(starts, goals):
    return TeamGrid(CORRIDOR, tuple(starts), tuple(goals))


# --- check_agents ----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 7, 2.0, np.int64(4)])
def test_check_agents_accepts_whole_numbers_from_two(n):
    assert check_agents(n) == int(n)
    assert isinstance(check_agents(n), int)


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, True, "3", None, 1.0])
def test_check_agents_refuses_naming_agents(bad):
    with pytest.raises(InputError) as err:
        check_agents(bad)
    assert err.value.field == "agents"


# --- team_grid -------------------------------------------------------------------------------

@settings(max_examples=15)
@given(st.integers(min_value=2, max_value=4), st.integers(min_value=0, max_value=1000))
def test_team_grid_places_distinct_free_starts_and_goals(agents, seed):
    team = team_grid(agents, seed=seed)
    assert team.agents == agents == len(team.goals)
    cells = list(team.starts) + list(team.goals)
    assert len(set(cells)) == 2 * agents
    for rc in cells:
        assert team.grid.cells[rc] == 1
    assert violations(team.grid.cells, team.grid.start, team.grid.goal) == []


def test_team_grid_goals_are_the_farthest_unused_cells():
    team = team_grid(2, seed=3)
    free = team.grid.free_cells()
    used: set = set()
    for s, g in zip(team.starts, team.goals):
        d = bfs_distance(team.grid.cells, s)
        best = max(d[c] for c in free if c not in used and c != s)
        assert d[g] == best
        used |= {s, g}


def test_team_grid_is_reproducible_from_its_seed():
    a, b = team_grid(3, seed=9), team_grid(3, seed=9)
    assert a.starts == b.starts and a.goals == b.goals
    assert (a.grid.cells == b.grid.cells).all()


def test_team_grid_refuses_more_agents_than_the_map_holds():
    with pytest.raises(InputError) as err:
        team_grid(20, rows=5, cols=5)
    assert err.value.field == "agents"
    assert "40 free cells" in err.value.problem


def test_team_grid_refuses_a_single_agent():
    with pytest.raises(InputError) as err:
        team_grid(1)
    assert err.value.field == "agents"


# --- team_step -------------------------------------------------------------------------------

def test_team_step_moves_and_charges_the_step_cost():
    team = corridor_team([(1, 1), (1, 5)], [(1, 4), (1, 2)])
    pos, r, done = team_step(team, [(1, 1), (1, 5)], np.array([3, 2]))  # right, left
    assert pos == [(1, 2), (1, 4)]
    assert r == pytest.approx(-0.05)
    assert not done


def test_team_step_walls_keep_the_agent_in_place():
    team = corridor_team([(1, 1), (1, 3)], [(1, 5), (1, 4)])
    pos, r, _ = team_step(team, [(1, 1), (1, 3)], np.array([0, 1]))  # up into wall, down
    assert pos == [(1, 1), (1, 3)]
    assert r == pytest.approx(-0.05)


def test_team_step_stay_action_keeps_the_cell():
    team = corridor_team([(1, 2), (1, 3)], [(1, 5), (1, 1)])
    pos, _, _ = team_step(team, [(1, 2), (1, 3)], np.array([4, 4]))
    assert pos == [(1, 2), (1, 3)]


def test_team_step_rewards_each_arrival_and_ends_when_all_arrive():
    team = corridor_team([(1, 1), (1, 5)], [(1, 2), (1, 4)])
    pos, r, done = team_step(team, [(1, 1), (1, 5)], np.array([3, 2]))
    assert pos == [(1, 2), (1, 4)]
    assert r == pytest.approx(2 - 0.05)
    assert done


def test_an_arrived_agent_stays_and_earns_nothing_more():
    team = corridor_team([(1, 1), (1, 5)], [(1, 2), (1, 3)])
    # agent 0 already at its goal tries to move; agent 1 moves one step (not yet arrived)
    pos, r, done = team_step(team, [(1, 2), (1, 5)], np.array([3, 2]))
    assert pos == [(1, 2), (1, 4)]
    assert r == pytest.approx(-0.05)
    assert not done
    pos, r, done = team_step(team, pos, np.array([2, 2]))
    assert pos == [(1, 2), (1, 3)] and done
    assert r == pytest.approx(1 - 0.05)


# --- q_range and the coupling term -------------------------------------------------------------

@pytest.mark.parametrize("gamma", [0.5, 0.9, 0.95])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_q_range_splits_the_team_box_for_vdn_and_not_for_iql(gamma, n):
    lo_team = -0.05 / (1 - gamma)
    lo, hi = q_range(VdnSetup(gamma=gamma), n)
    assert lo == pytest.approx(lo_team / n) and hi == 1.0
    # N tables in the box sum to a Q_tot in the team's box [lo_team, N]
    assert n * lo == pytest.approx(lo_team) and n * hi == n
    lo_i, hi_i = q_range(VdnSetup(gamma=gamma, algorithm="iql"), n)
    assert lo_i == pytest.approx(lo_team) and hi_i == n


def _coupling_args(rng, n, batch, cells=12):
    q = rng.uniform(-0.5, 0.5, size=(n, cells, 5))
    o = rng.integers(cells, size=(n, batch))
    a = rng.integers(5, size=(n, batch))
    o2 = rng.integers(cells, size=(n, batch))
    r = rng.uniform(-1, 2, size=batch)
    done = rng.random(batch) < 0.3
    return q, o, a, r, o2, done


def _reference_A(q, o, a, r, o2, done, gamma):
    n, batch = o.shape
    out = []
    for k in range(batch):
        qtot = sum(q[i, o[i, k], a[i, k]] for i in range(n))
        nxt = 0.0 if done[k] else sum(max(q[i, o2[i, k]]) for i in range(n))
        out.append(r[k] + gamma * nxt - qtot)
    return np.array(out)


@settings(max_examples=20)
@given(st.integers(min_value=2, max_value=5), st.integers(min_value=1, max_value=6),
       st.integers(min_value=0, max_value=10_000))
def test_coupling_term_matches_a_loop_and_secure_sum_stays_within_n_units(n, batch, seed):
    rng = np.random.default_rng(seed)
    q, o, a, r, o2, done = _coupling_args(rng, n, batch)
    setup = VdnSetup(gamma=0.9)
    agents = np.arange(n)
    ref = _reference_A(q, o, a, r, o2, done, 0.9)
    A_c, d_c = vdn._coupling(q, agents, o, a, r, o2, done, setup, n, True, None)
    np.testing.assert_allclose(A_c, ref, atol=1e-12)
    assert d_c == 0.0
    A_pe, d_pe = vdn._coupling(q, agents, o, a, r, o2, done, setup, n, False,
                               np.random.default_rng(seed))
    np.testing.assert_allclose(A_pe, ref, atol=n * 1e-5 + 1e-9)
    assert d_pe == pytest.approx(float(np.abs(A_pe - ref).max()), abs=1e-12)
    assert d_pe < n * 1e-5 + 1e-9


# --- leakage -----------------------------------------------------------------------------------

def test_leakage_with_two_agents_says_the_partner_is_revealed():
    rows = leakage(2)
    assert [r["agent"] for r in rows] == ["0", "1"]
    assert rows[0]["learns"].startswith("agent 1's message exactly")
    assert rows[1]["learns"].startswith("agent 0's message exactly")
    assert all("not covered by DP" in r["dp"] for r in rows)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_leakage_with_more_agents_names_the_others_only(n):
    rows = leakage(n)
    assert len(rows) == n
    for i, row in enumerate(rows):
        others = [str(j) for j in range(n) if j != i]
        assert "agents " + ", ".join(others) + "'s messages" in row["learns"]
        assert f"m_{i}" in row["learns"] and "exactly" not in row["learns"]


# --- VdnSetup.validated --------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, field", [
    ({"algorithm": "qmix"}, "algorithm"),
    ({"algorithm": "iql", "dp": True}, "algorithm"),
    ({"lr": 0.0}, "lr"),
    ({"lr": -1.0}, "lr"),
    ({"episodes": 0}, "episodes"),
    ({"episodes": 2.5}, "episodes"),
    ({"max_steps": 0}, "max_steps"),
    ({"window": -4}, "window"),
    ({"dp": True, "sigma": 0.0}, "sigma"),
    ({"dp": True, "sample_rate": 0.0}, "sample_rate"),
    ({"dp": True, "sample_rate": 1.5}, "sample_rate"),
    ({"episodes": 10**9}, "episodes"),
])
def test_validated_refuses_naming_the_field(kwargs, field):
    with pytest.raises(InputError) as err:
        VdnSetup(**kwargs).validated(2)
    assert err.value.field == field


def test_validated_ignores_dp_fields_without_dp_and_returns_itself():
    s = VdnSetup(sigma=0.0, sample_rate=5.0)
    assert s.validated(3) is s
    assert set(ALGORITHMS) == {"vdn", "iql"}


# --- accounting without DP, results ----------------------------------------------------------

def test_accounting_without_dp_is_unbounded_with_a_reason():
    acc = vdn_accounting(VdnSetup(), 3, 100)
    assert acc.epsilon is None and acc.delta is None and acc.epsilon_per_table is None
    assert "no DP" in acc.reason and "Q-tables" in acc.reason
    assert any("not covered by any DP" in n for n in acc.notes)
    assert not any("N = 2" in n for n in acc.notes)


def test_accounting_notes_the_two_agent_leak_and_names_what_is_learnt():
    acc = vdn_accounting(VdnSetup(), 2, 10, what="Q-networks")
    assert "Q-networks" in acc.reason
    assert any("N = 2" in n for n in acc.notes)


def test_a_short_training_run_reports_consistent_results():
    team = corridor_team([(1, 1), (1, 5)], [(1, 5), (1, 1)])
    res = train_vdn(team, VdnSetup(episodes=6, max_steps=12), seed=1)
    assert res.q.shape == (2, 3 * 7, 5)
    assert res.returns.shape == (6,)
    assert 1 <= res.updates <= 6 * 12
    lo, hi = q_range(res.setup, 2)
    assert res.q.min() >= lo - 1e-12 and res.q.max() <= hi + 1e-12
    assert res.max_diff < 2 * 1e-5
    # an episode's return: -0.05 per step plus at most +1 per agent
    assert (res.returns <= 2 - 0.05 + 1e-9).all() and (res.returns >= -0.05 * 12 - 1e-9).all()
    j = res.to_json()
    assert j["mode"] == "experiment" and j["seed"] == 1 and j["agents"] == 2
    assert j["epsilon"] is None and "epsilon_reason" in j
    assert j["pe_vs_central_bound"] == pytest.approx(4e-5)
    assert j["unit"] is None and j["neighboring_relation"] is None
    assert len(j["returns"]) == 6 and j["leakage"] == leakage(2)


def test_team_return_averages_the_last_tenth():
    team = corridor_team([(1, 1), (1, 5)], [(1, 5), (1, 1)])
    res = train_vdn(team, VdnSetup(episodes=2, max_steps=3), seed=0)
    res.returns = np.arange(20, dtype=float)
    assert res.team_return == pytest.approx(np.mean([18.0, 19.0]))
    res.returns = np.array([4.0, 8.0])
    assert res.team_return == pytest.approx(8.0)
    assert math.isfinite(res.to_json()["team_return"])


def test_same_seed_same_training():
    team = corridor_team([(1, 1), (1, 5)], [(1, 5), (1, 1)])
    a = train_vdn(team, VdnSetup(episodes=4, max_steps=10), seed=3)
    b = train_vdn(team, VdnSetup(episodes=4, max_steps=10), seed=3)
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.returns, b.returns)
