"""Grid worlds of Shen's thesis ch. 5: maps, their structural constraints, observations, and a
generator (Qt-free).

A map is an (H, W) array of cells: 1 = free, 0 = wall or obstacle, with one start and one goal
(both free). The thesis's constraints, which are also the attacker's prior:

1. exactly one start and one goal, both free (their positions are known to the attacker);
2. all free cells are connected (4-neighbourhood);
3. walls and obstacles are one cell thick: no 2×2 block is entirely blocked;

plus the outer border is wall (the attacker's "prior knowledge such as the outermost walls").

Observation (spec §8.4): the eight neighbours in the thesis's order [up, down, left, right,
up-left, up-right, down-left, down-right], 1 = free; bit i of an int is element i. The agent
also sees its own normalised (row, col), un-obfuscated (A14: eight local bits alone alias).

File format (``*.grid.json``): ``{"format": "privplan-grid", "version": 1, "name": …,
"rows": ["#####", "#S..#", …]}`` with ``#`` wall, ``.`` free, ``S`` start, ``G`` goal.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.errors import InputError

#: The largest side of a grid world (files and generated maps).
MAX_SIDE = 64

__all__ = ["GridMap", "OFFSETS", "ACTIONS", "MOVES", "observations", "check_map",
           "random_map", "example_12x11", "bfs_distance", "load_grid", "grid_from_rows",
           "violations", "violations_2x2", "GridEntry", "reachable", "MAX_SIDE",
           "check_random_size"]

#: neighbour offsets in the thesis's order [up, down, left, right, UL, UR, DL, DR]
OFFSETS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
ACTIONS = ("up", "down", "left", "right", "stay")
MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))
FORMAT = "privplan-grid"


@dataclass(frozen=True)
class GridMap:
    """A grid world: ``cells`` (H, W) uint8 (1 free), ``start`` and ``goal`` (row, col)."""

    cells: np.ndarray
    start: tuple[int, int]
    goal: tuple[int, int]
    name: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.cells.shape[0]), int(self.cells.shape[1])

    def to_rows(self) -> list[str]:
        """The map as text rows (``#``, ``.``, ``S``, ``G``)."""
        out = []
        for r in range(self.shape[0]):
            row = ""
            for c in range(self.shape[1]):
                row += ("S" if (r, c) == self.start else "G" if (r, c) == self.goal
                        else "." if self.cells[r, c] else "#")
            out.append(row)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": 1, "name": self.name, "rows": self.to_rows()}

    def free_cells(self) -> list[tuple[int, int]]:
        return [(int(r), int(c)) for r, c in zip(*np.nonzero(self.cells))]


def violations(cells: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> list[str]:
    """What breaks the constraints (empty when the map is valid)."""
    H, W = cells.shape
    out = []
    if H < 3 or W < 3:
        return [f"a map needs at least 3 x 3 cells, got {H} x {W}"]
    for name, (r, c) in (("start", start), ("goal", goal)):
        if not (0 <= r < H and 0 <= c < W) or not cells[r, c]:
            out.append(f"the {name} {(r, c)} must be a free cell")
    if start == goal:
        out.append("the start and the goal must differ")
    border = np.concatenate([cells[0], cells[-1], cells[:, 0], cells[:, -1]])
    if border.any():
        out.append("the outer border must be wall")
    bad = violations_2x2(cells)
    if bad is not None:
        out.append(f"walls must be one cell thick: the 2x2 block at {bad} is entirely blocked")
    free = list(zip(*np.nonzero(cells)))
    if free and not out:
        seen = reachable(cells, start)
        if len(seen) != len(free):
            out.append(f"all free cells must be connected ({len(free) - len(seen)} cannot be "
                       "reached from the start)")
    return out


def check_map(m: GridMap) -> GridMap:
    """Raise :class:`InputError` (field ``map``) naming the first broken constraint."""
    v = violations(m.cells, m.start, m.goal)
    if v:
        raise InputError(v[0], field="map")
    return m


def reachable(cells: np.ndarray, src: tuple[int, int]) -> set[tuple[int, int]]:
    """The free cells reachable from ``src`` (4-neighbourhood), ``src`` included."""
    H, W = cells.shape
    seen = {src}
    q = deque([src])
    while q:
        r, c = q.popleft()
        for dr, dc in MOVES[:4]:
            n = (r + dr, c + dc)
            if 0 <= n[0] < H and 0 <= n[1] < W and cells[n] and n not in seen:
                seen.add(n)
                q.append(n)
    return seen


def bfs_distance(cells: np.ndarray, goal: tuple[int, int]) -> np.ndarray:
    """BFS steps from every cell to ``goal`` (−1 where unreachable or blocked)."""
    H, W = cells.shape
    dist = np.full((H, W), -1, dtype=np.int64)
    dist[goal] = 0
    q = deque([goal])
    while q:
        r, c = q.popleft()
        for dr, dc in MOVES[:4]:
            n = (r + dr, c + dc)
            if 0 <= n[0] < H and 0 <= n[1] < W and cells[n] and dist[n] < 0:
                dist[n] = dist[r, c] + 1
                q.append(n)
    return dist


def observations(cells: np.ndarray) -> np.ndarray:
    """The 8-bit observation of every cell (H, W) as an int (bit i = OFFSETS[i] is free)."""
    H, W = cells.shape
    pad = np.zeros((H + 2, W + 2), dtype=np.int64)
    pad[1:-1, 1:-1] = cells
    obs = np.zeros((H, W), dtype=np.int64)
    for i, (dr, dc) in enumerate(OFFSETS):
        obs |= pad[1 + dr:1 + dr + H, 1 + dc:1 + dc + W] << i
    return obs


def grid_from_rows(rows: list[str], name: str = "") -> GridMap:
    """A map from text rows; raises :class:`InputError` on a bad character or constraint."""
    cells, start, goal = _parse_rows(rows)
    return check_map(GridMap(cells, start, goal, name))


def load_grid(path: str) -> GridMap:
    """Read a ``*.grid.json`` file (module docstring)."""
    from core.common.jsonfile import read_json

    d = read_json(path)  # strict: finite numbers, bounded depth, regular files only
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise InputError(f"is not a grid map (format must be {FORMAT!r})", file=path)
    try:
        return grid_from_rows(d.get("rows") or [], str(d.get("name", "")))
    except InputError as exc:
        raise InputError(exc.problem, file=path) from None


def check_random_size(rows: int, cols: int) -> None:
    """Refuse (field ``size``) a random map's size outside 5 to :data:`MAX_SIDE` a side: the
    generator checks connectivity after every flip (time ~ cells^2: 64 x 64 takes about 3 s,
    1000 x 1000 would take days); map files have the same 64 bound.

    Parameters
    ----------
    rows, cols : int
        The size asked.
    """
    if rows < 5 or cols < 5 or rows > MAX_SIDE or cols > MAX_SIDE:
        raise InputError(f"a random map has 5 to {MAX_SIDE} rows and columns, got "
                         f"{rows} x {cols}", field="size")


def random_map(rows: int, cols: int, rng: np.random.Generator, *, density: float = 0.3,
               tries: int = 40) -> GridMap:
    """A random map under the constraints (spec §8.4): border walls, obstacles placed by random
    flips at ``density`` of the interior (a flip that breaks connectivity or the 2×2 rule is
    rejected), then start and goal at maximal BFS distance.

    Parameters
    ----------
    rows, cols : int
        Size, at least 5 × 5.
    rng : numpy.random.Generator
        The map's randomness.
    density : float
        Target share of blocked interior cells.
    tries : int
        Flips attempted per interior cell.

    Returns
    -------
    GridMap
    """
    check_random_size(rows, cols)
    cells = np.zeros((rows, cols), dtype=np.uint8)
    cells[1:-1, 1:-1] = 1
    interior = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1)]
    target = int(round(density * len(interior)))
    placed = 0
    for _ in range(tries * len(interior)):
        if placed >= target:
            break
        r, c = interior[int(rng.integers(len(interior)))]
        if not cells[r, c]:
            continue
        cells[r, c] = 0
        if violations_2x2(cells[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2]) is None \
                and _connected(cells):
            placed += 1
        else:
            cells[r, c] = 1
    free = list(zip(*np.nonzero(cells)))
    a = free[int(rng.integers(len(free)))]
    d = bfs_distance(cells, a)
    start = tuple(int(v) for v in np.unravel_index(np.argmax(d), d.shape))
    d2 = bfs_distance(cells, start)  # type: ignore[arg-type]
    goal = tuple(int(v) for v in np.unravel_index(np.argmax(d2), d2.shape))
    return check_map(GridMap(cells, start, goal,  # type: ignore[arg-type]
                             f"random {rows}x{cols}"))


def violations_2x2(cells: np.ndarray) -> tuple[int, int] | None:
    """The top-left corner of a 2×2 block that is entirely blocked (the border included: walls
    are one cell thick everywhere), or None."""
    blocked = cells == 0
    block = blocked[:-1, :-1] & blocked[1:, :-1] & blocked[:-1, 1:] & blocked[1:, 1:]
    if not block.any():
        return None
    r, c = np.argwhere(block)[0]
    return int(r), int(c)


def _connected(cells: np.ndarray) -> bool:
    free = np.argwhere(cells)
    if free.size == 0:
        return False
    return len(reachable(cells, (int(free[0][0]), int(free[0][1])))) == len(free)


def example_12x11(seed: int = 17) -> GridMap:
    """A 12 × 11 (rows × cols) map under the constraints standing in for [86]'s example,
    whose cells are not in the source (A19): generated, seed fixed, and documented."""
    m = random_map(12, 11, np.random.default_rng(seed), density=0.3)
    return GridMap(m.cells, m.start, m.goal, "12x11 example (generated, A19)")


class GridEntry:
    """A grid map of the project (immutable): ``id`` and the map, which may break the
    constraints while it is being drawn (training checks them and names what is wrong)."""

    __slots__ = ("_id", "_map")

    def __init__(self, grid_id: str, grid: GridMap) -> None:
        if not isinstance(grid_id, str) or not grid_id:
            raise InputError(f"needs a non-empty string id, got {grid_id!r}", field="grids")
        self._id, self._map = grid_id, grid

    @property
    def id(self) -> str:
        return self._id

    @property
    def map(self) -> GridMap:
        return self._map

    def problems(self) -> list[str]:
        """The constraints the map breaks (empty when it can be trained on)."""
        return violations(self._map.cells, self._map.start, self._map.goal)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self._id, "name": self._map.name, "rows": self._map.to_rows()}

    @classmethod
    def from_dict(cls, d: object) -> "GridEntry":
        """Read ``{"id", "name", "rows"}``: rectangular rows of ``# . S G`` with one S and one G
        (InputError naming the grid and the problem); the constraints are not required."""
        if not isinstance(d, dict) or not isinstance(d.get("id"), str):
            raise InputError("each grid needs a string id", field="grids")
        rows = d.get("rows")
        try:
            cells, start, goal = _parse_rows(rows)
        except InputError as exc:
            raise InputError(exc.problem, field=f"grids[{d['id']}].rows") from None
        return cls(d["id"], GridMap(cells, start, goal, str(d.get("name", ""))))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GridEntry) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"GridEntry({self._id!r}, {self._map.shape})"


def _parse_rows(rows: object) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        raise InputError("must be a list of text rows", field="rows")
    W = len(rows[0])
    if any(len(r) != W for r in rows):
        raise InputError("all rows must have the same length", field="rows")
    if len(rows) < 3 or W < 3 or len(rows) > MAX_SIDE or W > MAX_SIDE:
        raise InputError(f"a map has 3 to {MAX_SIDE} rows and columns, got {len(rows)} x {W}",
                         field="rows")
    cells = np.zeros((len(rows), W), dtype=np.uint8)
    start = goal = None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in "#.SG":
                raise InputError(f"row {r}, column {c}: {ch!r} is not one of # . S G",
                                 field="rows")
            cells[r, c] = ch != "#"
            if ch == "S":
                if start is not None:
                    raise InputError("has more than one start S", field="rows")
                start = (r, c)
            if ch == "G":
                if goal is not None:
                    raise InputError("has more than one goal G", field="rows")
                goal = (r, c)
    if start is None or goal is None:
        raise InputError("needs exactly one start S and one goal G", field="rows")
    return cells, start, goal
