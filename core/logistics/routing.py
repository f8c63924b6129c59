"""Packet routing (spec §6.4): the live world whose nodes leave and join, and path checks.

:class:`LiveWorld` holds a mutable copy of every agent's local map. With
:class:`Dynamics`, each tick visits every agent once: with probability ``p_leave`` a
random non-center node leaves (only one whose removal keeps the area connected, never a
protected node such as the current package's origin or destination, never the last base),
and with probability ``p_join`` a new node joins, linked to 1–3 random nodes of the area
that are below the degree cap, with length L̄_j·U(0.5, 1.5) rounded.

Broken-route rules (implemented by the planners): DP-based and No-privacy agents re-plan
their own leg locally on the current map (no messages); Best-first and Greedy start a new
finding process from the current center when a node or route of a planned leg has left
(messages charged again, at most 3 restarts, then ``fail_broken``).

Examples
--------
>>> import numpy as np
>>> from core.logistics.examples import fig41
>>> live = LiveWorld(fig41())
>>> ev = live.tick(Dynamics(p_leave=1.0, p_join=1.0), np.random.default_rng(0))
>>> sorted(set(ev)), all(live.is_connected(a) for a in live.agents)
(['join', 'leave'], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from core.common.errors import InputError
from core.logistics.model import LogisticsWorld

__all__ = ["Dynamics", "LiveWorld", "path_is_valid"]


@dataclass(frozen=True)
class Dynamics:
    """Leave/join probabilities per agent and tick (the thesis: 0.1 each; sweep 0.05–0.2)."""

    p_leave: float = 0.1
    p_join: float = 0.1

    def __post_init__(self) -> None:
        for name in ("p_leave", "p_join"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise InputError(f"must lie in [0, 1], got {v!r}", field=name)

    @property
    def active(self) -> bool:
        return self.p_leave > 0 or self.p_join > 0


class LiveWorld:
    """Mutable local maps (the packet-routing network as it is now)."""

    def __init__(self, world: LogisticsWorld) -> None:
        self.world = world
        self.agents = world.agents
        self.degree_cap = world.degree_cap
        self._local = {a: nx.Graph(world.local(a)) for a in world.agents}
        self._joined = 0
        self.version = 0

    def local(self, agent: str) -> nx.Graph:
        return self._local[agent]

    def is_connected(self, agent: str) -> bool:
        return nx.is_connected(self._local[agent])

    def bases(self, agent: str) -> list[str]:
        g = self._local[agent]
        return sorted(v for v, d in g.nodes(data=True) if d.get("kind") == "base")

    def union_graph(self) -> nx.Graph:
        """The current global map (all local maps glued at the centers)."""
        if self.version == 0:
            return self.world.graph
        return nx.compose_all([self._local[a] for a in self.agents])

    def tick(self, dyn: Dynamics, rng: np.random.Generator, protect: Iterable[str] = ()
             ) -> list[str]:
        """One round of leave/join events over all agents (sorted); returns the events."""
        events: list[str] = []
        keep = set(protect)
        for a in self.agents:
            g = self._local[a]
            if dyn.p_leave > 0 and rng.random() < dyn.p_leave:
                cands = [v for v, d in g.nodes(data=True) if d.get("kind") == "base"
                         and v not in keep]
                if len(cands) >= 1 and len(self.bases(a)) > 1:
                    for i in rng.permutation(len(cands)):
                        v = cands[int(i)]
                        h = g.copy()
                        h.remove_node(v)
                        if nx.is_connected(h):
                            g.remove_node(v)
                            events.append("leave")
                            self.version += 1
                            break
            if dyn.p_join > 0 and rng.random() < dyn.p_join:
                free = [v for v, d in g.nodes(data=True) if d.get("kind") == "base"
                        and g.degree(v) < self.degree_cap]
                if free:
                    # the new node's own degree stays within the cap too (spec F3)
                    k = min(len(free), 1 + int(rng.integers(3)), int(self.degree_cap))
                    pick = rng.choice(len(free), size=k, replace=False)
                    lbar = float(np.mean([d["length"] for *_, d in g.edges(data=True)]))
                    self._joined += 1
                    v = f"{a}+{self._joined}"
                    g.add_node(v, kind="base")
                    for i in sorted(int(x) for x in pick):
                        g.add_edge(v, free[i], length=float(max(1, round(
                            lbar * rng.uniform(0.5, 1.5)))))
                    events.append("join")
                    self.version += 1
        return events

    def shortest(self, agent: str, frm: str, to: str | None) -> tuple[list[str], float] | None:
        """Exact shortest path in ``agent``'s current map (``to=None``: nearest base)."""
        g = self._local[agent]
        if frm not in g or (to is not None and to not in g):
            return None
        if to is not None:
            try:
                d, p = nx.single_source_dijkstra(g, frm, to, weight="length")
            except nx.NetworkXNoPath:
                return None
            return list(p), float(d)
        pred, dist = nx.dijkstra_predecessor_and_distance(g, frm, weight="length")
        best = min((dist[v], v) for v in self.bases(agent) if v in dist)
        return _path(pred, best[1]), float(best[0])

    def center_distances(self, agent: str) -> dict[tuple[str, str], tuple[float, list[str]]]:
        """Exact crossing lengths between every ordered pair of ``agent``'s centers."""
        g = self._local[agent]
        cs = sorted(v for v, d in g.nodes(data=True) if d.get("kind") == "center")
        out: dict[tuple[str, str], tuple[float, list[str]]] = {}
        for s in cs:
            # predecessors, not single_source_dijkstra's paths: those hold a path to every
            # node (quadratic memory on a long chain of bases: 1.6 GB at 20,000 nodes)
            pred, dist = nx.dijkstra_predecessor_and_distance(g, s, weight="length")
            for t in cs:
                if t != s and t in dist:
                    out[(s, t)] = (float(dist[t]), _path(pred, t))
        return out


def _path(pred: dict[Any, list[Any]], target: Any) -> list[Any]:
    """The path to ``target`` through first predecessors: the path networkx's Dijkstra would
    return (it reconstructs its paths from the same first predecessors)."""
    path = [target]
    while pred.get(path[-1]):
        path.append(pred[path[-1]][0])
    path.reverse()
    return path


def path_is_valid(g: nx.Graph, path: Sequence[str]) -> bool:
    """Every node and every consecutive edge of ``path`` is still in ``g``.

    Parameters
    ----------
    g : networkx.Graph
        The current map.
    path : sequence of str
        Nodes, in order.

    Returns
    -------
    bool
    """
    if any(v not in g for v in path):
        return False
    return all(g.has_edge(u, v) for u, v in zip(path, path[1:]))

