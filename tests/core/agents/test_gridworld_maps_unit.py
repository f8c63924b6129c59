"""Unit tests of core.gridworld.maps: parsing, the constraints, BFS, observations, the
generator and the project entry, each checked against a brute-force or hand-derived answer.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.gridworld.maps import (
    MAX_SIDE,
    OFFSETS,
    GridEntry,
    GridMap,
    bfs_distance,
    check_map,
    check_random_size,
    example_12x11,
    grid_from_rows,
    load_grid,
    observations,
    random_map,
    reachable,
    violations,
    violations_2x2,
)

ROOM = ["#######",
        "#S..#.#",
        "#.#...#",
        "#...#G#",
        "#######"]


def _brute_2x2(cells):
    H, W = cells.shape
    for r in range(H - 1):
        for c in range(W - 1):
            if not cells[r:r + 2, c:c + 2].any():
                return (r, c)
    return None


def _brute_obs(cells, r, c):
    H, W = cells.shape
    v = 0
    for i, (dr, dc) in enumerate(OFFSETS):
        rr, cc = r + dr, c + dc
        if 0 <= rr < H and 0 <= cc < W and cells[rr, cc]:
            v |= 1 << i
    return v


def _brute_dist(cells, goal):
    """Bellman-Ford style relaxation: slow but independent of the BFS queue."""
    H, W = cells.shape
    inf = 10 ** 9
    d = np.full((H, W), inf)
    d[goal] = 0
    for _ in range(H * W):
        for r in range(H):
            for c in range(W):
                if not cells[r, c]:
                    continue
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < H and 0 <= cc < W and cells[rr, cc]:
                        d[r, c] = min(d[r, c], d[rr, cc] + 1)
    d[d == inf] = -1
    if not cells[goal]:
        d[:] = -1
        d[goal] = 0
    return d


cells_strategy = st.integers(min_value=0, max_value=2**30).map(
    lambda seed: (np.random.default_rng(seed).random((5, 6)) < 0.6).astype(np.uint8))


# --- parsing -----------------------------------------------------------------------------------

def test_grid_from_rows_parses_cells_start_and_goal():
    m = grid_from_rows(ROOM, "room")
    assert m.shape == (5, 7) and m.name == "room"
    assert m.start == (1, 1) and m.goal == (3, 5)
    assert m.cells.dtype == np.uint8
    expected = np.array([[ch != "#" for ch in row] for row in ROOM], dtype=np.uint8)
    np.testing.assert_array_equal(m.cells, expected)


def test_to_rows_and_to_json_round_trip():
    m = grid_from_rows(ROOM, "room")
    assert m.to_rows() == ROOM
    d = m.to_json()
    assert d == {"format": "privplan-grid", "version": 1, "name": "room", "rows": ROOM}
    again = grid_from_rows(d["rows"], d["name"])
    np.testing.assert_array_equal(again.cells, m.cells)
    assert (again.start, again.goal) == (m.start, m.goal)


def test_free_cells_lists_exactly_the_non_wall_cells():
    m = grid_from_rows(ROOM)
    brute = [(r, c) for r, row in enumerate(ROOM) for c, ch in enumerate(row) if ch != "#"]
    assert m.free_cells() == brute
    assert all(isinstance(v, int) for rc in m.free_cells() for v in rc)


@pytest.mark.parametrize("rows, words", [
    ("#S.G#", "list of text rows"),
    ([], "list of text rows"),
    (["###", 5, "###"], "list of text rows"),
    (["#####", "#S.G", "#####"], "same length"),
    (["#S#", "#G#"], "3 to 64"),
    (["#" * 65] * 3, "3 to 64"),
    (["#####", "#SxG#", "#####"], "'x' is not one of"),
    (["#####", "#S.S#", "#G..#", "#####"], "more than one start"),
    (["#####", "#SGG#", "#...#", "#####"], "more than one goal"),
    (["#####", "#S..#", "#####"], "exactly one start S and one goal G"),
])
def test_bad_rows_are_refused_naming_rows(rows, words):
    with pytest.raises(InputError) as err:
        grid_from_rows(rows)
    assert err.value.field in ("rows", "map")
    assert err.value.field == "rows"
    assert words in err.value.problem


def test_bad_character_error_names_its_position():
    with pytest.raises(InputError) as err:
        grid_from_rows(["#####", "#S.G#", "##?##", "#####"])
    assert "row 2, column 2" in err.value.problem


def test_a_parsed_map_breaking_a_constraint_is_refused_naming_map():
    rows = ["#####", "#S..#", "#####", "#..G#", "#####"]   # goal cut off from the start
    with pytest.raises(InputError) as err:
        grid_from_rows(rows)
    assert err.value.field == "map"
    assert "connected" in err.value.problem and "3 cannot be reached" in err.value.problem


# --- the constraints ------------------------------------------------------------------------

def test_valid_map_has_no_violations():
    m = grid_from_rows(ROOM)
    assert violations(m.cells, m.start, m.goal) == []
    assert check_map(m) is m


def test_too_small_map_is_the_only_complaint():
    cells = np.ones((2, 5), dtype=np.uint8)
    assert violations(cells, (0, 0), (1, 1)) == ["a map needs at least 3 x 3 cells, got 2 x 5"]


@pytest.mark.parametrize("start, goal, words", [
    ((0, 0), (3, 5), "the start (0, 0) must be a free cell"),
    ((1, 1), (9, 9), "the goal (9, 9) must be a free cell"),
    ((-1, 1), (3, 5), "the start (-1, 1) must be a free cell"),
    ((1, 1), (1, 1), "the start and the goal must differ"),
])
def test_start_and_goal_problems(start, goal, words):
    m = grid_from_rows(ROOM)
    assert words in violations(m.cells, start, goal)


def test_open_border_is_a_violation():
    m = grid_from_rows(ROOM)
    cells = m.cells.copy()
    cells[0, 3] = 1
    v = violations(cells, m.start, m.goal)
    assert "the outer border must be wall" in v
    with pytest.raises(InputError) as err:
        check_map(GridMap(cells, m.start, m.goal))
    assert err.value.field == "map" and err.value.problem == v[0]


def test_thick_wall_is_reported_with_its_corner():
    rows = ["######",
            "#S...#",
            "#.##.#",
            "#.##.#",
            "#...G#",
            "######"]
    cells = np.array([[ch != "#" for ch in row] for row in rows], dtype=np.uint8)
    v = violations(cells, (1, 1), (4, 4))
    assert v == ["walls must be one cell thick: the 2x2 block at (2, 2) is entirely blocked"]
    assert violations_2x2(cells) == (2, 2)
    cells[2, 2] = 1  # a one-cell-thick obstacle is fine
    assert violations(cells, (1, 1), (4, 4)) == []


@settings(max_examples=30)
@given(cells_strategy)
def test_violations_2x2_matches_a_brute_force_scan(cells):
    assert violations_2x2(cells) == _brute_2x2(cells)


def test_violations_2x2_on_a_fully_free_grid_is_none():
    assert violations_2x2(np.ones((4, 4), dtype=np.uint8)) is None
    assert violations_2x2(np.zeros((2, 2), dtype=np.uint8)) == (0, 0)


# --- reachability, BFS and observations ------------------------------------------------------

@settings(max_examples=30)
@given(cells_strategy)
def test_bfs_distance_matches_a_relaxation(cells):
    free = np.argwhere(cells)
    if free.size == 0:
        return
    goal = (int(free[0][0]), int(free[0][1]))
    np.testing.assert_array_equal(bfs_distance(cells, goal), _brute_dist(cells, goal))


@settings(max_examples=30)
@given(cells_strategy)
def test_reachable_is_the_set_of_cells_with_a_finite_distance(cells):
    free = np.argwhere(cells)
    if free.size == 0:
        return
    src = (int(free[-1][0]), int(free[-1][1]))
    d = bfs_distance(cells, src)
    assert reachable(cells, src) == {(int(r), int(c)) for r, c in np.argwhere(d >= 0)}


def test_bfs_distance_on_the_room():
    m = grid_from_rows(ROOM)
    d = bfs_distance(m.cells, m.goal)
    assert d[m.goal] == 0
    assert d[m.start] == 6            # (1,1)->(1,3)->(2,3)->(2,5)->(3,5): 2+1+2+1
    assert d[0, 0] == -1              # a wall
    assert (d[m.cells == 0] == -1).all()


@settings(max_examples=30)
@given(cells_strategy)
def test_observations_match_a_neighbour_loop(cells):
    obs = observations(cells)
    H, W = cells.shape
    for r in range(H):
        for c in range(W):
            assert obs[r, c] == _brute_obs(cells, r, c)


def test_observation_bit_order_follows_the_thesis():
    cells = np.zeros((3, 3), dtype=np.uint8)
    for i, (dr, dc) in enumerate(OFFSETS):
        cells[:] = 0
        cells[1 + dr, 1 + dc] = 1
        assert observations(cells)[1, 1] == 1 << i
    assert observations(np.ones((3, 3), dtype=np.uint8))[1, 1] == 255


# --- files ---------------------------------------------------------------------------------------

def test_load_grid_reads_a_file(tmp_path):
    p = tmp_path / "room.grid.json"
    p.write_text(json.dumps(grid_from_rows(ROOM, "room").to_json()))
    m = load_grid(str(p))
    assert m.to_rows() == ROOM and m.name == "room"


def test_load_grid_refuses_another_format_naming_the_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"format": "privplan-mdp", "rows": ROOM}))
    with pytest.raises(InputError) as err:
        load_grid(str(p))
    assert err.value.file == str(p) and "privplan-grid" in err.value.problem


def test_load_grid_reports_a_bad_map_with_the_file(tmp_path):
    p = tmp_path / "bad.grid.json"
    p.write_text(json.dumps({"format": "privplan-grid", "version": 1,
                             "rows": ["#####", "#S.S#", "#####"]}))
    with pytest.raises(InputError) as err:
        load_grid(str(p))
    assert err.value.file == str(p) and "more than one start" in err.value.problem


# --- the generator ---------------------------------------------------------------------------

@pytest.mark.parametrize("rows, cols", [(4, 10), (10, 4), (MAX_SIDE + 1, 10), (10, 100)])
def test_check_random_size_refuses_naming_size(rows, cols):
    with pytest.raises(InputError) as err:
        check_random_size(rows, cols)
    assert err.value.field == "size"
    assert f"{rows} x {cols}" in err.value.problem


@pytest.mark.parametrize("rows, cols", [(5, 5), (MAX_SIDE, 5), (5, MAX_SIDE)])
def test_check_random_size_accepts_the_bounds(rows, cols):
    assert check_random_size(rows, cols) is None


@settings(max_examples=20)
@given(st.integers(min_value=5, max_value=9), st.integers(min_value=5, max_value=9),
       st.floats(min_value=0.0, max_value=0.5), st.integers(min_value=0, max_value=10_000))
def test_random_maps_satisfy_every_constraint(rows, cols, density, seed):
    m = random_map(rows, cols, np.random.default_rng(seed), density=density)
    assert m.shape == (rows, cols)
    assert violations(m.cells, m.start, m.goal) == []
    interior = (rows - 2) * (cols - 2)
    blocked = interior - int(m.cells[1:-1, 1:-1].sum())
    assert blocked <= int(round(density * interior))
    assert m.name == f"random {rows}x{cols}"


def test_random_map_start_and_goal_are_far_apart():
    m = random_map(9, 9, np.random.default_rng(4), density=0.3)
    d = bfs_distance(m.cells, m.start)
    # the goal is the farthest cell from the start (the second BFS sweep)
    assert d[m.goal] == d.max() and d[m.goal] > 0


def test_random_map_with_zero_density_is_an_open_room():
    m = random_map(6, 7, np.random.default_rng(0), density=0.0)
    assert m.cells[1:-1, 1:-1].all()
    # in an open room the farthest pair is a pair of opposite corners: 3 + 4 steps
    assert bfs_distance(m.cells, m.start)[m.goal] == (6 - 3) + (7 - 3)


def test_random_map_is_reproducible_and_example_is_fixed():
    a = random_map(8, 8, np.random.default_rng(5))
    b = random_map(8, 8, np.random.default_rng(5))
    np.testing.assert_array_equal(a.cells, b.cells)
    e = example_12x11()
    assert e.shape == (12, 11) and "A19" in e.name
    assert violations(e.cells, e.start, e.goal) == []
    np.testing.assert_array_equal(e.cells, example_12x11().cells)


# --- GridEntry ---------------------------------------------------------------------------------

def test_grid_entry_round_trips_and_compares_by_content():
    g = GridEntry("g1", grid_from_rows(ROOM, "room"))
    d = g.to_dict()
    assert d == {"id": "g1", "name": "room", "rows": ROOM}
    again = GridEntry.from_dict(d)
    assert again == g and again.id == "g1" and again.map.name == "room"
    assert again != GridEntry("g2", g.map)
    assert g != "g1"
    assert repr(g) == "GridEntry('g1', (5, 7))"
    assert g.problems() == []


def test_grid_entry_keeps_a_map_that_breaks_the_constraints_and_lists_problems():
    d = {"id": "draft", "rows": ["#####", "#S..#", "#####", "#..G#", "#####"]}
    g = GridEntry.from_dict(d)
    assert g.map.name == ""
    assert len(g.problems()) == 1 and "connected" in g.problems()[0]


@pytest.mark.parametrize("bad", [None, [], {"rows": ROOM}, {"id": 3, "rows": ROOM}])
def test_grid_entry_without_a_string_id_is_refused(bad):
    with pytest.raises(InputError) as err:
        GridEntry.from_dict(bad)
    assert err.value.field == "grids"


def test_grid_entry_bad_rows_name_the_grid():
    with pytest.raises(InputError) as err:
        GridEntry.from_dict({"id": "g7", "rows": ["#S#", "#G"]})
    assert err.value.field == "grids[g7].rows"
    assert "same length" in err.value.problem


@pytest.mark.parametrize("bad_id", ["", None, 5])
def test_grid_entry_constructor_needs_a_non_empty_id(bad_id):
    with pytest.raises(InputError) as err:
        GridEntry(bad_id, grid_from_rows(ROOM))
    assert err.value.field == "grids"
