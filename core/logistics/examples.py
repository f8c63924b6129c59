"""Built-in logistics examples: the "fig41" reconstruction and the world generator.

* :func:`fig41` — **a reconstruction**, not the thesis's data: spec §7.2 builds the six-unit
  map of Fig 4.1 so that it satisfies every fact stated in the text (agents a–f, centers
  A–F with E shared by c, d and e, b's local map of Fig 4.4(a), the plans of Example 1 and
  of the running task). The edge lengths and the layout are inventions of the spec.
* :func:`generate_world` — the random world generator of spec §6.4 (N centers, N agents
  with 5 bases each, 30 % three-way centers, mean length ≈ 45), seeded.
* :func:`generate_tasks` — one round of packages (probability 0.2 per base, destination
  uniform over the bases of other agents), spec §6.4.

Examples
--------
>>> w = fig41()
>>> w.total_capacity, w.members["E"]
(13, ('c', 'd', 'e'))
>>> g = generate_world(10, seed=3)
>>> len(g.center_ids), len(g.agents), g.n_bases
(10, 10, 50)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import networkx as nx
import numpy as np

from core.common.errors import InputError
from core.logistics.model import DEFAULT_DEGREE_CAP, LogisticsWorld, Task

__all__ = ["fig41", "FIG41_NOTE", "FIG41_TASK", "generate_world", "generate_tasks"]

FIG41_NOTE = ("Reconstruction of thesis Fig 4.1 (spec §7.2): it satisfies every fact stated "
              "in the text; edge lengths and positions are the spec's inventions, not the "
              "thesis's (the figure carries no numbers).")

#: The running task of §4.5: a package at (a,2) must reach (f,4).
FIG41_TASK = Task("a2", "f", "f4")

_FIG41_EDGES = {
    "a": [("a1", "a2", 40), ("a2", "a3", 30), ("a3", "a4", 35), ("a4", "A", 50),
          ("a1", "C", 55), ("a5", "D", 45), ("a4", "a5", 60), ("a2", "a5", 45)],
    "b": [("A", "b1", 50), ("A", "b2", 35), ("b1", "b2", 30), ("b1", "b3", 40), ("b1", "B", 60),
          ("b2", "b3", 45), ("b3", "b4", 40), ("b4", "b5", 35), ("b5", "B", 40)],
    "c": [("C", "c1", 45), ("c1", "c2", 50), ("c2", "c3", 45), ("c3", "c4", 50), ("c4", "E", 50),
          ("c1", "c5", 40), ("c5", "c3", 60)],
    "d": [("D", "d1", 50), ("d1", "d2", 45), ("d2", "d3", 50), ("d3", "d4", 45), ("d4", "E", 60),
          ("d2", "d5", 40), ("d5", "d4", 65)],
    "e": [("B", "e1", 40), ("e1", "E", 35), ("E", "e2", 30), ("e2", "e3", 40), ("e3", "F", 45),
          ("e1", "e4", 60), ("e4", "e3", 65)],
    "f": [("F", "f1", 40), ("f1", "f2", 45), ("f2", "f4", 50), ("f1", "f3", 45), ("f3", "f4", 55),
          ("f4", "f5", 40)],
}
_FIG41_CENTERS = {"A": ("a", "b"), "B": ("b", "e"), "C": ("a", "c"), "D": ("a", "d"),
                  "E": ("c", "d", "e"), "F": ("e", "f")}
_FIG41_POS = {
    "A": (200, 60), "B": (420, 60), "C": (120, 260), "D": (230, 220), "E": (430, 260),
    "F": (640, 200),
    "a1": (40, 160), "a2": (60, 80), "a3": (90, 20), "a4": (160, 20), "a5": (150, 130),
    "b1": (300, 90), "b2": (270, 10), "b3": (340, 20), "b4": (390, -20), "b5": (440, -10),
    "c1": (150, 330), "c2": (220, 390), "c3": (300, 380), "c4": (370, 330), "c5": (230, 320),
    "d1": (280, 230), "d2": (320, 200), "d3": (370, 180), "d4": (400, 220), "d5": (340, 250),
    "e1": (470, 120), "e2": (500, 300), "e3": (580, 260), "e4": (560, 140),
    "f1": (700, 160), "f2": (760, 220), "f3": (720, 90), "f4": (800, 140), "f5": (860, 100),
}


def fig41() -> LogisticsWorld:
    """The six-unit example of Fig 4.1 as **reconstructed** by spec §7.2 (lengths invented).

    True shortest (a2)→(f4) is 550 via centers A, B, E, F; (a3)→(e2) is 300.

    Examples
    --------
    >>> import networkx as nx
    >>> w = fig41()
    >>> nx.shortest_path_length(w.graph, "a2", "f4", weight="length")
    550.0
    """
    g = nx.Graph()
    for c, ags in _FIG41_CENTERS.items():
        g.add_node(c, kind="center", agents=list(ags), capacity=len(ags), pos=_FIG41_POS[c])
    for ag, edges in _FIG41_EDGES.items():
        for u, v, length in edges:
            for x in (u, v):
                if x not in g:
                    g.add_node(x, kind="base", agent=ag, pos=_FIG41_POS[x])
            g.add_edge(u, v, length=float(length))
    return LogisticsWorld(g, name="fig41 (reconstruction of thesis Fig 4.1)",
                          tasks=(FIG41_TASK, Task("a3", "e", "e2")), note=FIG41_NOTE)


def _check_int(x: Any, name: str, low: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or int(x) < low:
        raise InputError(f"must be an integer >= {low}, got {x!r}", field=name)
    return int(x)


class _UF:
    def __init__(self, n: int) -> None:
        self.p = list(range(n))

    def find(self, x: int) -> int:
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.p[ra] = rb
        return True


def _agent_seeds(m: int, rng: np.random.Generator) -> np.ndarray:
    dmin = 0.5 / math.sqrt(m)
    pts: list[np.ndarray] = []
    tries = 0
    while len(pts) < m:
        p = rng.random(2)
        tries += 1
        if tries > 20000 * m:  # pragma: no cover - the density above always fits
            dmin *= 0.9
            tries = 0
        if all(float(np.hypot(*(p - q))) >= dmin for q in pts):
            pts.append(p)
    return np.array(pts)


def _candidates(seeds: np.ndarray) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    m = len(seeds)
    if m == 2:
        return [(0, 1)], []
    from scipy.spatial import Delaunay

    tri = Delaunay(seeds)
    tris = sorted({tuple(sorted(int(x) for x in s)) for s in tri.simplices})
    edges: list[tuple[int, ...]] = sorted(
        {e for t in tris for e in ((t[0], t[1]), (t[0], t[2]), (t[1], t[2]))})
    return edges, tris


def _perimeter(seeds: np.ndarray, c: tuple[int, ...]) -> float:
    pts = seeds[list(c)]
    if len(c) == 2:
        return float(np.hypot(*(pts[0] - pts[1])))
    return float(sum(np.hypot(*(pts[i] - pts[(i + 1) % 3])) for i in range(3)))


def _choose_centers(seeds: np.ndarray, n_centers: int, p_three: float,
                    rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Kruskal-like pass over Delaunay edges, each upgraded w.p. ``p_three`` to the
    smallest Delaunay triangle containing it (a three-way center); then extra centers."""
    m = len(seeds)
    edges, tris = _candidates(seeds)
    tri_of: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for t in sorted(tris, key=lambda t: _perimeter(seeds, t)):
        for side in ((t[0], t[1]), (t[0], t[2]), (t[1], t[2])):
            tri_of.setdefault(side, []).append(t)
    used: set[tuple[int, ...]] = set()

    def upgrade(e: tuple[int, ...]) -> tuple[int, ...]:
        if rng.random() < p_three:
            for t in tri_of.get(e, []):
                if t not in used:
                    return t
        return e

    keys = [_perimeter(seeds, c) * rng.uniform(0.8, 1.2) for c in edges]
    order = np.argsort(keys, kind="stable")
    uf = _UF(m)
    chosen: list[tuple[int, ...]] = []
    comps = m
    for i in order:
        if comps == 1:
            break
        e = edges[int(i)]
        if uf.find(e[0]) == uf.find(e[1]):
            continue
        c = upgrade(e)
        for x in c[1:]:
            if uf.union(c[0], x):
                comps -= 1
        chosen.append(c)
        used.add(c)
    # further Delaunay edges, random with weight 1/perimeter, until n_centers
    rest = [e for e in edges if e not in used and not any(
        set(e) <= set(c) for c in used)]
    while len(chosen) < n_centers and rest:
        w = np.array([1.0 / max(_perimeter(seeds, c), 1e-9) for c in rest])
        e = rest.pop(int(rng.choice(len(rest), p=w / w.sum())))
        c = upgrade(e)
        chosen.append(c)
        used.add(c)
    # nearest pairs if the candidates ran out (tiny N)
    if len(chosen) < n_centers:
        pairs = sorted(((i, j) for i in range(m) for j in range(i + 1, m)),
                       key=lambda e: _perimeter(seeds, e))
        fresh = [e for e in pairs if e not in used]
        while len(chosen) < n_centers:
            chosen.append((fresh or pairs)[len(chosen) % len(fresh or pairs)])
    return chosen[:n_centers]


def _local_edges(pos: dict[str, np.ndarray], bases: list[str], centers: list[str],
                 dmax: int, rng: np.random.Generator) -> list[tuple[str, str, float]]:
    def dist(u: str, v: str) -> float:
        return float(np.hypot(*(pos[u] - pos[v])))

    deg = {v: 0 for v in bases + centers}
    cap = {**{b: dmax for b in bases}, **{c: min(2, dmax) for c in centers}}
    edges: list[tuple[str, str, float]] = []
    present: set[frozenset[str]] = set()
    # degree-capped Prim tree over the bases
    in_tree = [bases[0]]
    todo = set(bases[1:])
    while todo:
        best = min(((dist(u, v), u, v) for u in in_tree if deg[u] < cap[u] for v in todo),
                   key=lambda t: (t[0], t[1], t[2]))
        _, u, v = best
        edges.append((u, v, best[0]))
        present.add(frozenset((u, v)))
        deg[u] += 1
        deg[v] += 1
        in_tree.append(v)
        todo.discard(v)
    for c in centers:  # each center: one edge to its nearest base with a free slot ...
        _, b = min((dist(c, b), b) for b in bases if deg[b] < cap[b])
        edges.append((c, b, dist(c, b)))
        present.add(frozenset((c, b)))
        deg[c] += 1
        deg[b] += 1
    nodes = bases + centers
    extra = sorted((dist(u, v), u, v) for i, u in enumerate(nodes) for v in nodes[i + 1:]
                   if frozenset((u, v)) not in present and not (u in centers and v in centers))
    for d, u, v in extra[:len(nodes)]:  # ... then the shortest other pairs, each w.p. 0.5
        if rng.random() < 0.5 and deg[u] < cap[u] and deg[v] < cap[v]:
            edges.append((u, v, d))
            deg[u] += 1
            deg[v] += 1
    return edges


def generate_world(n_centers: int = 10, *, seed: "int | np.random.Generator" = 0,
                   n_agents: int | None = None, bases_per_agent: int = 5,
                   p_three_way: float = 0.3, l_target: float = 45.0,
                   degree_cap: int = DEFAULT_DEGREE_CAP, name: str | None = None
                   ) -> LogisticsWorld:
    """A random logistic world (spec §6.4), reproducible from ``seed``.

    ``n_agents`` defaults to ``n_centers`` (spec §8.1 item 33). Agents are points in the
    unit square; centers join Delaunay neighbours (two agents, or three with probability
    ``p_three_way``), first a Kruskal-like pass that connects all agents, then further
    candidates weighted by 1/perimeter. Each agent's bases lie in a disc around its point,
    joined by a degree-capped minimum spanning tree plus short extra routes; every center
    has one or two routes into each area. Lengths are Euclidean, scaled so the mean is
    about ``l_target``, and at least 5.

    Parameters
    ----------
    n_centers : int
        Logistic centers.
    seed : int or numpy.random.Generator
        The world's randomness.
    n_agents : int, optional
        Agents (default ``n_centers``).
    bases_per_agent : int
        Bases in each area.
    p_three_way : float
        Chance that a center joins three agents.
    l_target : float
        The mean route length aimed at.
    degree_cap : int
        The largest degree of a node in an area.
    name : str, optional
        The map's name (default: one that states the parameters).

    Returns
    -------
    LogisticsWorld

    Examples
    --------
    >>> w = generate_world(20, seed=1)
    >>> len(w.center_ids), w.n_bases, max(d for a in w.agents for _, d in w.local(a).degree())
    (20, 100, 4)
    """
    n = _check_int(n_centers, "n_centers", 1)
    m = _check_int(n if n_agents is None else n_agents, "n_agents", 2)
    k = _check_int(bases_per_agent, "bases_per_agent", 1)
    dmax = _check_int(degree_cap, "degree_cap", 2)
    if n < m - 1:
        raise InputError(f"{n} centers cannot connect {m} agents (need >= {m - 1})",
                         field="n_centers")
    if not 0.0 <= float(p_three_way) <= 1.0:
        raise InputError(f"must lie in [0, 1], got {p_three_way!r}", field="p_three_way")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        _check_int(seed, "seed", 0))
    seeds = _agent_seeds(m, rng)
    width = max(2, len(str(m - 1)))
    aname = [f"a{i:0{width}d}" for i in range(m)]
    chosen = _choose_centers(seeds, n, float(p_three_way), rng)
    cwidth = max(2, len(str(len(chosen) - 1)))
    pos: dict[str, np.ndarray] = {}
    centers_of: dict[int, list[str]] = {i: [] for i in range(m)}
    g = nx.Graph()
    for j, c in enumerate(chosen):
        cid = f"C{j:0{cwidth}d}"
        pos[cid] = seeds[list(c)].mean(axis=0)
        g.add_node(cid, kind="center", agents=[aname[i] for i in c], capacity=len(c))
        for i in c:
            centers_of[i].append(cid)
    dnn = np.array([min(float(np.hypot(*(seeds[i] - seeds[j]))) for j in range(m) if j != i)
                    for i in range(m)])
    raw: list[tuple[str, str, str, float]] = []
    for i in range(m):
        radius = 0.35 * dnn[i]
        bases = [f"{aname[i]}.{b + 1}" for b in range(k)]
        for b in bases:
            r = radius * math.sqrt(rng.random())
            th = 2 * math.pi * rng.random()
            pos[b] = seeds[i] + r * np.array([math.cos(th), math.sin(th)])
            g.add_node(b, kind="base", agent=aname[i])
        for u, v, d in _local_edges(pos, bases, centers_of[i], dmax, rng):
            raw.append((aname[i], u, v, d))
    mean_e = float(np.mean([d for *_, d in raw]))
    for _ag, u, v, d in raw:
        g.add_edge(u, v, length=float(max(5, round(l_target * d / mean_e))))
    for v in g.nodes:
        g.nodes[v]["pos"] = (round(float(pos[v][0]) * 1000, 1), round(float(pos[v][1]) * 1000, 1))
    label = name or f"generated world (N = {n}, seed {seed if isinstance(seed, int) else '?'})"
    return LogisticsWorld(g, name=label, degree_cap=dmax)


def generate_tasks(world: LogisticsWorld, *, p_package: float = 0.2,
                   rng: "int | np.random.Generator" = 0) -> tuple[Task, ...]:
    """One round of packages (spec §6.4): each base gets one w.p. ``p_package``.

    The destination is uniform over the bases of the other agents; tasks come in a
    random order. With one agent there are no tasks.

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    p_package : float
        Chance that a base has a package.
    rng : int or numpy.random.Generator
        The randomness.

    Returns
    -------
    tuple of Task

    Examples
    --------
    >>> ts = generate_tasks(fig41(), p_package=1.0, rng=0)
    >>> len(ts), all(t.goal_agent != fig41().agent_of(t.origin) for t in ts)
    (29, True)
    """
    if not 0.0 <= float(p_package) <= 1.0:
        raise InputError(f"must lie in [0, 1], got {p_package!r}", field="p_package")
    g = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng))
    all_bases = [(a, b) for a in world.agents for b in world.bases[a]]
    return draw_tasks(all_bases, all_bases, p_package, g)


def draw_tasks(origins: Sequence[tuple[str, Any]], dests: Sequence[tuple[str, Any]],
               p_package: float, g: np.random.Generator) -> tuple[Task, ...]:
    """Each (agent, base) of ``origins`` gets an item with probability ``p_package``, bound
    for a uniformly drawn (agent, base) of ``dests`` of another agent; the items in random
    order. Shared by :func:`generate_tasks` and the air and rover domains' rounds."""
    tasks: list[Task] = []
    for a, b in origins:
        if g.random() < p_package:
            others = [(x, y) for x, y in dests if x != a]
            if not others:
                continue
            ga, gb = others[int(g.integers(len(others)))]
            tasks.append(Task(b, ga, gb))
    perm = g.permutation(len(tasks)) if tasks else np.zeros(0, dtype=np.int64)
    return tuple(tasks[int(i)] for i in perm)
