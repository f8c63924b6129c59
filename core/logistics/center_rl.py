"""The origin's route-probability RL on the center graph (thesis §4.5.3, spec §8.1 item 19).

Step 3 of the thesis: "agent a uses an RL algorithm to calculate the length of the route
between each pair of connected logistic centers … The RL algorithm is similar to
Algorithm 8", and the shortest route on the center graph picks the intermediate agents.
PrivPlan's default solver is Dijkstra on the center graph (the converged-RL equivalent);
:func:`rl_center_route` is the RL itself, selectable as ``high_level_solver="rl"``:
Algorithm 8's learner on the directed center graph — tabular Q-learning (critic) with a
policy-hill-climbing update of an explicit route-probability table π (actor), on-policy
sampling from π, π₀ ∝ 1/weight, reward −weight/W̄ and a terminal goal (the sound reward of
spec §3.5), α = 0.1, γ = 0.9, ζ = 0.95.

It returns the route the learned probabilities choose (the most likely arc from every
center; if that walk does not reach the goal, the cheapest complete episode seen) and its
**learning curve**: the cost of every episode's sampled walk, the cost of the greedy route
after every episode, and Dijkstra's optimum on the same graph for reference.

The solver is post-processing: it sees the center graph only (the origin's own exact
crossings and the estimates it computed from released maps), so it costs no privacy.

Examples
--------
>>> arcs = [("o", "A", "a", 1.0), ("A", "B", "b", 5.0), ("A", "C", "c", 1.0),
...         ("C", "B", "c", 1.0), ("B", "g", "g", 0.0)]
>>> import numpy as np
>>> r = rl_center_route(arcs, "o", "g", rng=np.random.default_rng(0), episodes=300)
>>> r.cost, [h[:2] for h in r.hops], r.curve.optimum
(3.0, [('o', 'A'), ('A', 'C'), ('C', 'B'), ('B', 'g')], 3.0)
>>> r.curve.greedy_cost[-1] == r.curve.optimum
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.errors import InputError

__all__ = ["LearningCurve", "RlRoute", "rl_center_route", "SOLVERS"]

#: the high-level solvers of Step 3
SOLVERS = ("dijkstra", "rl")

Arc = tuple[str, str, str, float]


@dataclass(frozen=True)
class LearningCurve:
    """Per episode: the sampled walk's cost (``inf`` if it did not reach the goal within
    the step limit) and the greedy route's cost after the episode (``inf`` if the most
    likely arcs do not lead to the goal yet); ``optimum`` is Dijkstra's cost."""

    episode_cost: tuple[float, ...]
    greedy_cost: tuple[float, ...]
    optimum: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (non-finite costs as null)."""
        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None
        return {"episode_cost": [num(x) for x in self.episode_cost],
                "greedy_cost": [num(x) for x in self.greedy_cost],
                "optimum": num(self.optimum), "episodes": len(self.episode_cost)}

    def converged_at(self, tol: float = 1e-9) -> int | None:
        """The first episode after which the greedy route stays at the optimum (None if
        it does not end there)."""
        g = self.greedy_cost
        if not g or not abs(g[-1] - self.optimum) <= tol * max(1.0, abs(self.optimum)):
            return None
        k = len(g)
        while k > 0 and abs(g[k - 1] - self.optimum) <= tol * max(1.0, abs(self.optimum)):
            k -= 1
        return k + 1


@dataclass(frozen=True)
class RlRoute:
    """The RL solver's route: its cost on the center graph, its arcs (from, to, agent)
    and the learning curve."""

    cost: float
    hops: list[tuple[str, str, str]]
    curve: LearningCurve


def _dijkstra(out: dict[str, list[tuple[str, str, float]]], src: str, dst: str) -> float:
    import heapq

    best = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > best.get(u, math.inf):
            continue
        if u == dst:
            return d
        for v, _ag, w in out.get(u, ()):
            if d + w < best.get(v, math.inf):
                best[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return math.inf


def rl_center_route(arcs: Sequence[Arc], src: str, dst: str, *, rng: np.random.Generator,
                    episodes: int = 500, alpha: float = 0.1, gamma: float = 0.9,
                    zeta: float = 0.95, pi_floor: float = 1e-3,
                    max_steps_factor: int = 4,
                    checkpoint: Callable[[], None] | None = None) -> RlRoute | None:
    """Algorithm 8's learner on the directed center graph from ``src`` to ``dst``.

    Parallel arcs (several agents offering the same crossing) keep the cheapest, as
    Dijkstra does; nodes that cannot reach ``dst`` are pruned first.

    Parameters
    ----------
    arcs : sequence of (from, to, agent, weight)
        The center graph (weights >= 0).
    src, dst : str
        Where the route starts and ends.
    rng : numpy.random.Generator
        Drives the episodes.
    episodes : int
        Training episodes, each from ``src`` until ``dst`` or ``max_steps_factor·|V|`` steps.
    alpha, gamma, zeta : float
        Learning rate, discount and policy step (the thesis's 0.1, 0.9, 0.95).
    pi_floor : float
        The smallest probability kept before renormalising.
    max_steps_factor : int
        The step limit per episode in units of |V|.
    checkpoint : callable, optional
        Called every 25 episodes; may raise :class:`core.common.progress.Cancelled` (a
        cancelled run stops here).

    Returns
    -------
    RlRoute or None
        None when ``dst`` cannot be reached from ``src``.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or \
            episodes < 1:
        raise InputError(f"must be an integer >= 1, got {episodes!r}", field="rl_route_episodes")
    out, rev = _cheapest_arcs(arcs)
    live = _reaching(rev, dst)
    if src not in live:
        return None
    optimum = _dijkstra(out, src, dst)
    m = _CenterMdp.build(out, live, src, dst)
    max_steps = max(1, int(max_steps_factor) * len(m.nodes))
    ep_cost: list[float] = []
    gr_cost: list[float] = []
    best_walk: tuple[float, list[int]] = (math.inf, [])
    for _ep in range(int(episodes)):
        if checkpoint is not None and _ep % 25 == 0:
            checkpoint()
        cost, walk = m.episode(rng, max_steps, alpha, gamma, zeta, pi_floor)
        done = walk[-1] == m.t_i
        ep_cost.append(cost if done else math.inf)
        if done and cost < best_walk[0]:
            best_walk = (cost, walk)
        gr_cost.append(m.greedy()[0])
    g_cost, g_path = m.greedy()
    if math.isfinite(g_cost):
        path = g_path
    elif best_walk[1]:
        path = _loop_erased(best_walk[1])
    else:
        return None
    cost, hops = m.hops(path)
    return RlRoute(cost=cost, hops=hops, curve=LearningCurve(tuple(ep_cost), tuple(gr_cost),
                                                             optimum))


def _cheapest_arcs(arcs: Sequence[Arc]
                   ) -> tuple[dict[str, list[tuple[str, str, float]]], dict[str, list[str]]]:
    """The center graph's successor lists ``{from: [(to, agent, w)]}`` and predecessor
    lists, one arc per (from, to): the cheapest (ties: the smallest agent id); negative
    and non-finite weights are dropped."""
    cheapest: dict[tuple[str, str], tuple[float, str]] = {}
    for a_from, a_to, ag, w in arcs:
        if not w >= 0 or not math.isfinite(w):
            continue
        k = (a_from, a_to)
        if k not in cheapest or (w, ag) < cheapest[k]:
            cheapest[k] = (float(w), ag)
    out: dict[str, list[tuple[str, str, float]]] = {}
    rev: dict[str, list[str]] = {}
    for (frm, to), (w, ag) in sorted(cheapest.items()):
        out.setdefault(frm, []).append((to, ag, w))
        rev.setdefault(to, []).append(frm)
    return out, rev


def _reaching(rev: dict[str, list[str]], dst: str) -> set[str]:
    """The nodes from which ``dst`` can be reached (``dst`` included)."""
    live = {dst}
    stack = [dst]
    while stack:
        top = stack.pop()
        for pre in rev.get(top, ()):
            if pre not in live:
                live.add(pre)
                stack.append(pre)
    return live


@dataclass
class _CenterMdp:
    """The pruned center graph as index lists (successors, weights, agents per node) and
    the learner's tables π and Q, updated in place by :meth:`episode`."""

    nodes: list[str]
    nbr: list[list[int]]
    wts: list[list[float]]
    ags: list[list[str]]
    pi: list[list[float]]
    Q: list[list[float]]
    wbar: float
    s_i: int
    t_i: int

    @classmethod
    def build(cls, out: dict[str, list[tuple[str, str, float]]], live: set[str], src: str,
              dst: str) -> "_CenterMdp":
        """Index the nodes that reach ``dst``; π₀ ∝ 1/weight and Q₀ = −weight/W̄."""
        nodes = sorted(live)
        idx = {v: i for i, v in enumerate(nodes)}
        nbr: list[list[int]] = [[] for _ in nodes]
        wts: list[list[float]] = [[] for _ in nodes]
        ags: list[list[str]] = [[] for _ in nodes]
        for name in nodes:
            for succ, ag, w in out.get(name, ()):
                if succ in live:
                    nbr[idx[name]].append(idx[succ])
                    wts[idx[name]].append(w)
                    ags[idx[name]].append(ag)
        pos = [w for row in wts for w in row if w > 0]
        wbar = sum(pos) / len(pos) if pos else 1.0
        tiny = 1e-6 * wbar
        pi: list[list[float]] = []
        Q: list[list[float]] = []
        for row in wts:
            inv = [1.0 / max(w, tiny) for w in row]
            s = sum(inv)
            pi.append([x / s for x in inv])
            Q.append([-w / wbar for w in row])
        return cls(nodes, nbr, wts, ags, pi, Q, wbar, idx[src], idx[dst])

    def greedy(self) -> tuple[float, list[int]]:
        """The route of the most likely arcs from the start: (cost, nodes); cost ``inf``
        where it dead-ends or loops before the goal."""
        pi, nbr, wts = self.pi, self.nbr, self.wts
        path = [self.s_i]
        seen = {self.s_i}
        cost = 0.0
        v = self.s_i
        while v != self.t_i:
            if not pi[v]:
                return math.inf, path
            j = max(range(len(pi[v])), key=lambda i: (pi[v][i], -i))
            u = nbr[v][j]
            if u in seen:
                return math.inf, path
            cost += wts[v][j]
            path.append(u)
            seen.add(u)
            v = u
        return cost, path

    def episode(self, rng: np.random.Generator, max_steps: int, alpha: float, gamma: float,
                zeta: float, pi_floor: float) -> tuple[float, list[int]]:
        """One on-policy episode from the start (at most ``max_steps`` steps), updating Q
        and π after every step: (the walk's cost, the walk)."""
        pi, Q, nbr, wts, wbar, t_i = self.pi, self.Q, self.nbr, self.wts, self.wbar, self.t_i
        v = self.s_i
        walk = [v]
        cost = 0.0
        steps = 0
        while v != t_i and steps < max_steps:
            steps += 1
            pv = pi[v]
            x = rng.random()
            j = len(pv) - 1
            acc = 0.0
            for i in range(len(pv) - 1):
                acc += pv[i]
                if x < acc:
                    j = i
                    break
            u = nbr[v][j]
            r = -wts[v][j] / wbar
            qv = Q[v]
            target = r if u == t_i else r + gamma * max(Q[u])
            qv[j] = (1.0 - alpha) * qv[j] + alpha * target
            rbar = sum(p * q for p, q in zip(pv, qv))
            tot = 0.0
            for i in range(len(pv)):
                y = max(pv[i] + zeta * (qv[i] - rbar), pi_floor)
                pv[i] = y
                tot += y
            for i in range(len(pv)):
                pv[i] /= tot
            cost += wts[v][j]
            walk.append(u)
            v = u
        return cost, walk

    def hops(self, path: list[int]) -> tuple[float, list[tuple[str, str, str]]]:
        """The arcs (from, to, agent) along ``path`` and their total weight."""
        hops: list[tuple[str, str, str]] = []
        cost = 0.0
        for a, b in zip(path, path[1:]):
            j = self.nbr[a].index(b)
            hops.append((self.nodes[a], self.nodes[b], self.ags[a][j]))
            cost += self.wts[a][j]
        return cost, hops


def _loop_erased(walk: list[int]) -> list[int]:
    out: list[int] = []
    at: dict[int, int] = {}
    for v in walk:
        if v in at:
            for u in out[at[v] + 1:]:
                at.pop(u, None)
            del out[at[v] + 1:]
        else:
            at[v] = len(out)
            out.append(v)
    return out
