"""The map-recovery attack on a trained navigation policy (Pan et al. [86] as Shen's thesis
ch. 5 uses it; the GA variant of spec §6.1 / §8.4).

The attacker knows the map's size, the start and goal, the structural constraints (border
walls, one-cell-thick walls, connected free cells) and can query the trained policy
π_T(· | position, observation). It searches candidate maps with a genetic algorithm whose
fitness is how well the policy's action choices fit the candidate: the mean over the
candidate's free non-goal cells c of π_T(A*_c | c, obs_c), with obs_c the candidate's own
8-bit observation at c and A*_c the moves that shorten the candidate's BFS distance to the goal.

GA (spec §8.4): population 100, 200 generations, tournament of 3, uniform crossover, per-cell
mutation 1/n_interior, elitism 2; a genome is the interior cells (1 free), repaired to satisfy
the constraints (start and goal free, 2×2 blocks broken by freeing a random cell, disconnected
cells joined along a shortest path through the interior).

Metrics: **GRR** = share of all H·W cells recovered; **NRR** = share of interior cells other
than the start and goal (what the attacker did not know).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress
from core.gridworld.maps import MOVES, GridMap, bfs_distance, observations, reachable

__all__ = ["AttackSetup", "AttackResult", "recover_map", "recovery_rates", "repair"]


@dataclass(frozen=True)
class AttackSetup:
    population: int = 100
    generations: int = 200
    tournament: int = 3
    elitism: int = 2
    density: float = 0.3

    def validated(self) -> "AttackSetup":
        from core.common.validation import check_whole

        for name in ("population", "generations", "tournament"):
            check_whole(getattr(self, name), name)
        if self.population < 2 or self.elitism >= self.population:
            raise InputError("the population must exceed the elite and hold at least 2",
                             field="population")
        return self


@dataclass
class AttackResult:
    recovered: GridMap
    grr: float
    nrr: float
    fitness: float
    truth_fitness: float
    history: np.ndarray        # best fitness per generation
    baseline_nrr: float        # a random constraint-satisfying map's NRR (chance level)
    elapsed_s: float


def recovery_rates(truth: GridMap, guess: np.ndarray) -> tuple[float, float]:
    """(GRR, NRR) of ``guess`` (H, W cells) against ``truth``."""
    H, W = truth.shape
    same = truth.cells == guess
    interior = np.zeros((H, W), dtype=bool)
    interior[1:-1, 1:-1] = True
    interior[truth.start] = interior[truth.goal] = False
    return float(same.mean()), float(same[interior].mean())


def _path_cells(H: int, W: int, src: tuple[int, int], targets: set[tuple[int, int]]
                ) -> list[tuple[int, int]]:
    """A shortest 4-neighbour path through interior cells from src to any target."""
    prev: dict[tuple[int, int], tuple[int, int] | None] = {src: None}
    q = deque([src])
    while q:
        cur = q.popleft()
        if cur in targets:
            out: list[tuple[int, int]] = []
            node: tuple[int, int] | None = cur
            while node is not None:
                out.append(node)
                node = prev[node]
            return out
        for dr, dc in MOVES[:4]:
            n = (cur[0] + dr, cur[1] + dc)
            if 1 <= n[0] < H - 1 and 1 <= n[1] < W - 1 and n not in prev:
                prev[n] = cur
                q.append(n)
    return []


def repair(cells: np.ndarray, start: tuple[int, int], goal: tuple[int, int],
           rng: np.random.Generator) -> np.ndarray:
    """Make a candidate satisfy the constraints (module docstring); returns a new array."""
    c = cells.copy()
    H, W = c.shape
    c[0, :] = c[-1, :] = 0
    c[:, 0] = c[:, -1] = 0
    c[start] = c[goal] = 1
    for _ in range(H * W):
        blocked = c == 0
        block = blocked[:-1, :-1] & blocked[1:, :-1] & blocked[:-1, 1:] & blocked[1:, 1:]
        if not block.any():
            break
        r, k = np.argwhere(block)[0]
        choices = [(r + i, k + j) for i in (0, 1) for j in (0, 1)
                   if 1 <= r + i < H - 1 and 1 <= k + j < W - 1]
        c[choices[int(rng.integers(len(choices)))]] = 1
    for _ in range(H * W):
        reach = reachable(c, start)
        free = {(int(a), int(b)) for a, b in zip(*np.nonzero(c))}
        lost = free - reach
        if not lost:
            break
        src = min(lost)
        for cell in _path_cells(H, W, src, reach):
            c[cell] = 1
    return c


def _fitness(cells: np.ndarray, goal: tuple[int, int],
             policy: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> float:
    H, W = cells.shape
    dist = bfs_distance(cells, goal)
    obs = observations(cells)
    rr, cc = np.nonzero(cells)
    keep = dist[rr, cc] > 0
    rr, cc = rr[keep], cc[keep]
    if rr.size == 0:
        return 0.0
    probs = policy(rr * W + cc, obs[rr, cc])          # (n, 5)
    good = np.zeros_like(probs, dtype=bool)
    for a, (dr, dc) in enumerate(MOVES[:4]):
        nr, nc = rr + dr, cc + dc
        nd = dist[nr, nc]
        good[:, a] = (nd >= 0) & (nd < dist[rr, cc])
    return float((probs * good).sum(axis=1).mean())


def _tournament(pop: list[np.ndarray], fit: np.ndarray, size: int,
                rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(len(pop), size=size)
    return pop[int(idx[np.argmax(fit[idx])])]


def recover_map(truth: GridMap, policy: Callable[[np.ndarray, np.ndarray], np.ndarray],
                setup: AttackSetup = AttackSetup(), *, seed: int = 0,
                progress: Progress = no_progress,
                cancelled: Callable[[], bool] | None = None) -> AttackResult:
    """Run the GA (module docstring) against ``policy``; ``truth`` is used for its size, start
    and goal (public) and, after the search, to score the recovery.

    Parameters
    ----------
    truth : GridMap
        The true map.
    policy : callable
        ``policy(positions, observations) -> (n, 5)`` action probabilities.
    setup : AttackSetup
        GA parameters.
    seed : int
        The attacker's seed.
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    AttackResult
    """
    import time

    setup = setup.validated()
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    H, W = truth.shape
    start, goal = truth.start, truth.goal
    P = int(setup.population)
    n_int = (H - 2) * (W - 2)
    mut = 1.0 / n_int

    def random_genome() -> np.ndarray:
        c = np.zeros((H, W), dtype=np.uint8)
        c[1:-1, 1:-1] = (rng.random((H - 2, W - 2)) >= setup.density).astype(np.uint8)
        return repair(c, start, goal, rng)

    pop = [random_genome() for _ in range(P)]
    fit = np.array([_fitness(g, goal, policy) for g in pop])
    baseline = float(np.mean([recovery_rates(truth, g)[1] for g in pop]))
    history = np.zeros(setup.generations)
    for gen in range(setup.generations):
        if cancelled is not None and cancelled():
            raise Cancelled()
        order = np.argsort(-fit)
        new = [pop[i] for i in order[:setup.elitism]]
        while len(new) < P:
            a, b = _tournament(pop, fit, setup.tournament, rng), _tournament(
                pop, fit, setup.tournament, rng)
            mask = rng.random((H, W)) < 0.5
            child = np.where(mask, a, b).astype(np.uint8)
            flip = rng.random((H, W)) < mut
            child[flip] ^= 1
            new.append(repair(child, start, goal, rng))
        pop = new
        fit = np.array([_fitness(g, goal, policy) for g in pop])
        history[gen] = fit.max()
        if gen % 5 == 0:
            progress((gen + 1) / setup.generations, f"generation {gen + 1}")
    best = pop[int(np.argmax(fit))]
    grr, nrr = recovery_rates(truth, best)
    progress(1.0, "attack done")
    return AttackResult(GridMap(best, start, goal, "recovered"), grr, nrr, float(fit.max()),
                        _fitness(truth.cells, goal, policy), history, baseline,
                        time.perf_counter() - t0)
