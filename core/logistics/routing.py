"""Packet routing (spec §6.4): the live world whose nodes leave and join, and path checks.

:class:`LiveWorld` holds a mutable copy of every agent's local map. A :class:`Dynamics`
tick visits every agent (sorted) and applies leave and join events to its bases (centers —
the public access points — never leave):

* ``per="agent"`` (spec §6.4, the default): at most one event of each kind per agent and
  tick — with probability ``p_leave`` one random base leaves, with probability ``p_join``
  one new base joins;
* ``per="node"`` (the thesis's wording, "a probability of 0.1 that an existing node will
  leave the network and a probability of 0.1 that a new node will join"):
  Binomial(bases, ``p_leave``) random bases leave (each one that may leave: see below) and
  Binomial(bases, ``p_join``) new bases join, so the expected churn scales with the
  network and the areas keep roughly their size.

A new base links to 1–3 random bases of the area that are below the degree cap (its own
degree stays within the cap too), with length L̄_j·U(0.5, 1.5) rounded. A leaving base is
never a protected node (a package's origin, destination or current holder) nor the last
base of its area, and it leaves only if the network stays connected:

* ``connectivity="area"`` (spec §6.4): the area stays connected — every agent can always
  re-plan its own leg locally, so DP-based and No-privacy never need a new finding
  process (the thesis's Fig 4.11 claim holds by construction);
* ``connectivity="network"``: the network as a whole stays connected (every part of an
  area keeps at least one center), but an area may split, so an agent may no longer cross
  between two of its centers; the package's holder then has to find a new route from
  where it is (a *re-plan*, with its messages — and a privacy cost: announcing a broken
  crossing reveals the agent's topology; see :mod:`core.logistics.planner`).

Broken-route rules (implemented by the strategies): DP-based, No-privacy and simplified
re-plan a leg locally on the current map (no messages) when the area still connects its
ends, and otherwise the holder starts a new route finding from its current center
(at most 3 times, then ``fail_broken``); Best-first and Greedy start a new finding process
from the current center whenever a node or route of a planned leg has left (messages
charged again, at most 3 restarts, then ``fail_broken``).

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

__all__ = ["Dynamics", "DYNAMICS_PER", "CONNECTIVITY", "LiveWorld", "path_is_valid"]


DYNAMICS_PER = ("agent", "node")
CONNECTIVITY = ("area", "network")


@dataclass(frozen=True)
class Dynamics:
    """Leave/join probabilities per tick (the thesis: 0.1 each; sweep 0.05–0.2).

    ``per``: ``"agent"`` (at most one leave and one join per agent and tick, spec §6.4) or
    ``"node"`` (every base leaves with ``p_leave``; Binomial(bases, ``p_join``) join).
    ``connectivity``: ``"area"`` (each area stays connected) or ``"network"`` (only the
    network does; an area may split). See the module docstring.
    """

    p_leave: float = 0.1
    p_join: float = 0.1
    per: str = "agent"
    connectivity: str = "area"

    def __post_init__(self) -> None:
        for name in ("p_leave", "p_join"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    0.0 <= float(v) <= 1.0):
                raise InputError(f"must lie in [0, 1], got {v!r}", field=name)
        if self.per not in DYNAMICS_PER:
            raise InputError(f"must be one of {', '.join(DYNAMICS_PER)}, got {self.per!r}",
                             field="dynamics_per")
        if self.connectivity not in CONNECTIVITY:
            raise InputError(f"must be one of {', '.join(CONNECTIVITY)}, got "
                             f"{self.connectivity!r}", field="connectivity")

    @property
    def active(self) -> bool:
        return self.p_leave > 0 or self.p_join > 0

    @property
    def splits_areas(self) -> bool:
        """Whether an area may split (so a crossing may break beyond local repair)."""
        return self.active and self.p_leave > 0 and self.connectivity == "network"

    def to_dict(self) -> dict[str, Any]:
        return {"p_leave": self.p_leave, "p_join": self.p_join, "per": self.per,
                "connectivity": self.connectivity}


class LiveWorld:
    """Mutable local maps (the packet-routing network as it is now)."""

    def __init__(self, world: LogisticsWorld) -> None:
        self.world = world
        self.agents = world.agents
        self.degree_cap = world.degree_cap
        self._local = {a: nx.Graph(world.local(a)) for a in world.agents}
        self._joined = 0
        #: events so far (0: the map as loaded), over all agents and per agent
        self.version = 0
        self.agent_version: dict[str, int] = {}
        self._net = False
        self._groups: dict[str, list[list[str]] | None] = {}

    def local(self, agent: str) -> nx.Graph:
        return self._local[agent]

    def is_connected(self, agent: str) -> bool:
        return bool(nx.is_connected(self._local[agent]))

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
        # "network": the whole network (all areas glued at the centers) stays connected;
        # it is tracked as the groups of centers each area's parts connect
        self._net = dyn.connectivity == "network"
        self._groups = ({a: self._center_groups(self._local[a]) for a in self.agents}
                        if self._net else {})
        for a in self.agents:
            if dyn.per == "agent":
                self._tick_agent(a, dyn, rng, keep, events)
            else:
                self._tick_nodes(a, dyn, rng, keep, events)
        self._net = False
        self._groups = {}
        return events

    @staticmethod
    def _parts(g: nx.Graph, without: str | None = None) -> list[set[str]]:
        """The connected parts of ``g`` minus ``without`` (a search, no copy)."""
        seen = {without} if without is not None else set()
        parts = []
        for s in g:
            if s in seen:
                continue
            part = {s}
            seen.add(s)
            stack = [s]
            while stack:
                u = stack.pop()
                for x in g[u]:
                    if x not in seen:
                        seen.add(x)
                        part.add(x)
                        stack.append(x)
            parts.append(part)
        return parts

    @staticmethod
    def _is_center(g: nx.Graph, v: str) -> bool:
        return bool(g.nodes[v].get("kind") != "base")

    def _center_groups(self, g: nx.Graph, without: str | None = None
                       ) -> list[list[str]] | None:
        """The centers of each part of ``g`` minus ``without``; None if a part has none."""
        out = []
        for part in self._parts(g, without):
            cs = sorted(v for v in part if self._is_center(g, v))
            if not cs:
                return None
            out.append(cs)
        return out

    def _may_leave(self, a: str, g: nx.Graph, v: str) -> bool:
        """Whether the kept graph (the area, or the whole network) stays connected without
        ``v``.

        ``"area"``: the area minus ``v`` is one part. ``"network"``: every part of the area
        minus ``v`` keeps a center (bases link only inside their area), and the centers
        stay connected through the parts of all areas (union-find over the groups)."""
        if not self._net:
            nbrs = list(g[v])
            if len(nbrs) <= 1:
                return True
            # the area is connected before, so it stays connected iff v's neighbours still
            # reach one another
            targets = set(nbrs[1:])
            seen = {v, nbrs[0]}
            stack = [nbrs[0]]
            while stack:
                u = stack.pop()
                for x in g[u]:
                    if x not in seen:
                        seen.add(x)
                        targets.discard(x)
                        if not targets:
                            return True
                        stack.append(x)
            return not targets
        mine = self._center_groups(g, v)
        if mine is None:
            return False
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for b in self.agents:
            for grp in (mine if b == a else self._groups[b] or ()):
                r = find(grp[0])
                for c in grp[1:]:
                    parent[find(c)] = r
        return len({find(c) for c in parent}) <= 1

    def _leave(self, a: str, g: nx.Graph, v: str, events: list[str]) -> None:
        g.remove_node(v)
        if self._net:
            self._groups[a] = self._center_groups(g)
        events.append("leave")
        self._bump(a)

    def _join(self, a: str, g: nx.Graph, rng: np.random.Generator, events: list[str]) -> None:
        free = [v for v, d in g.nodes(data=True) if d.get("kind") == "base"
                and g.degree(v) < self.degree_cap]
        if not free:
            return
        # the new node's own degree stays within the cap too (spec F3)
        k = min(len(free), 1 + int(rng.integers(3)), int(self.degree_cap))
        pick = rng.choice(len(free), size=k, replace=False)
        lbar = float(np.mean([d["length"] for *_, d in g.edges(data=True)]))
        self._joined += 1
        v = f"{a}+{self._joined}"
        g.add_node(v, kind="base")
        for i in sorted(int(x) for x in pick):
            g.add_edge(v, free[i], length=float(max(1, round(lbar * rng.uniform(0.5, 1.5)))))
        if self._net and len(pick) > 1:  # a join can glue two parts of a split area
            self._groups[a] = self._center_groups(g)
        events.append("join")
        self._bump(a)

    def _bump(self, a: str) -> None:
        self.version += 1
        self.agent_version[a] = self.agent_version.get(a, 0) + 1

    def _tick_agent(self, a: str, dyn: Dynamics, rng: np.random.Generator, keep: set[str],
                    events: list[str]) -> None:
        g = self._local[a]
        if dyn.p_leave > 0 and rng.random() < dyn.p_leave:
            cands = [v for v, d in g.nodes(data=True) if d.get("kind") == "base"
                     and v not in keep]
            if len(cands) >= 1 and len(self.bases(a)) > 1:
                for i in rng.permutation(len(cands)):
                    v = cands[int(i)]
                    if self._may_leave(a, g, v):
                        self._leave(a, g, v, events)
                        break
        if dyn.p_join > 0 and rng.random() < dyn.p_join:
            self._join(a, g, rng, events)

    def _tick_nodes(self, a: str, dyn: Dynamics, rng: np.random.Generator, keep: set[str],
                    events: list[str]) -> None:
        g = self._local[a]
        bases = self.bases(a)
        n0 = len(bases)
        if dyn.p_leave > 0:
            # Binomial(bases, p_leave) leaves, each a random base that may leave: a base
            # whose removal would disconnect is replaced by another one, so leaves balance
            # joins (drawing per base and skipping such bases made areas grow
            # exponentially: most bases of a sparse area are cut vertices)
            for _ in range(int(rng.binomial(n0, dyn.p_leave))):
                cands = [v for v in self.bases(a) if v not in keep]
                if len(cands) < 1 or len(self.bases(a)) <= 1:
                    break
                for i in rng.permutation(len(cands)):
                    v = cands[int(i)]
                    if self._may_leave(a, g, v):
                        self._leave(a, g, v, events)
                        break
                else:
                    break
        if dyn.p_join > 0:
            for _ in range(int(rng.binomial(n0, dyn.p_join))):
                self._join(a, g, rng, events)

    def center_reachable(self, agent: str, frm: str, to: str) -> bool:
        """Whether ``agent``'s current area connects ``frm`` and ``to``."""
        g = self._local[agent]
        return frm in g and to in g and nx.has_path(g, frm, to)

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

