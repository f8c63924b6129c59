"""The logistics world of spec §1: agents, private bases, public centers, lengths, tasks.

A :class:`LogisticsWorld` wraps one undirected ``networkx.Graph`` (the "logistic map" of
Fig 4.1, ground truth for the simulator and evaluator only) and checks it once:

* every node is a ``base`` (private to one ``agent``) or a ``center`` (public, shared by
  the listed ``agents``; ``capacity`` lc ≥ the number of agents sharing it);
* every center is shared by at least two agents;
* every edge has a finite ``length`` > 0 and lies inside one agent's area (base–base of
  one agent, or base–center with the center shared by the base's agent; a center–center
  edge must name its ``agent``);
* every agent's local area (its bases and the centers it shares) is connected, and no
  node has more than ``degree_cap`` local edges (the public cap D_MAX of spec F3).

Violations raise :class:`core.common.errors.InputError` whose ``field`` names the node,
edge or agent. Node ids are strings.

Examples
--------
>>> import networkx as nx
>>> g = nx.Graph()
>>> g.add_node("a1", kind="base", agent="a"); g.add_node("b1", kind="base", agent="b")
>>> g.add_node("X", kind="center", agents=["a", "b"], capacity=2)
>>> g.add_edge("a1", "X", length=10.0); g.add_edge("b1", "X", length=5.0)
>>> w = LogisticsWorld(g, name="tiny")
>>> w.agents, w.center_ids, w.members["X"]
(('a', 'b'), ('X',), ('a', 'b'))
>>> sorted(w.local("a").nodes)
['X', 'a1']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from core.common.errors import InputError

__all__ = ["Center", "Task", "LogisticsWorld", "DEFAULT_DEGREE_CAP", "validate_task",
           "local_graph", "local_graphs", "mean_length"]

DEFAULT_DEGREE_CAP = 4  # spec F3 / §8.1 item 2: public cap D_MAX = 4 (= Fig 4.4(a)'s d_max)


@dataclass(frozen=True)
class Center:
    """A public logistic center: its id, the agents sharing it and its capacity lc."""

    cid: str
    agents: tuple[str, ...]
    capacity: int
    pos: tuple[float, float] | None = None


@dataclass(frozen=True)
class Task:
    """Move a package from base ``origin`` to a base of ``goal_agent``.

    ``goal`` is the destination base when known (only the goal agent knows it; the origin
    agent plans with the goal *agent* only). ``None`` means "any base of the goal agent":
    the goal agent delivers to its base nearest to the center where it receives the package.
    """

    origin: str
    goal_agent: str
    goal: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"origin": self.origin, "goal_agent": self.goal_agent}
        if self.goal is not None:
            d["goal"] = self.goal
        return d


def mean_length(graph: nx.Graph) -> float:
    """Mean ``length`` over the edges of ``graph`` (0 for a graph without edges).

    Parameters
    ----------
    graph : networkx.Graph
        A map with edge attribute ``length``.

    Returns
    -------
    float
    """
    ls = [float(d["length"]) for _, _, d in graph.edges(data=True)]
    return math.fsum(ls) / len(ls) if ls else 0.0


def local_graph(world_graph: nx.Graph, agent: str) -> nx.Graph:
    """Agent ``agent``'s local map (Fig 4.2): its bases, the centers it shares, its edges.

    Parameters
    ----------
    world_graph : networkx.Graph
        The whole map.
    agent : str
        The agent.

    Returns
    -------
    networkx.Graph
        A new graph with the agent's nodes and routes (attributes copied).
    """
    g = nx.Graph()
    for v, d in world_graph.nodes(data=True):
        if (d.get("kind") == "base" and d.get("agent") == agent) or (
                d.get("kind") == "center" and agent in d.get("agents", ())):
            g.add_node(v, kind=d["kind"])
    for u, v, d in world_graph.edges(data=True):
        if d.get("agent") == agent:
            g.add_edge(u, v, length=float(d["length"]))
    return g


def local_graphs(world_graph: nx.Graph, agents: Any) -> dict[str, nx.Graph]:
    """:func:`local_graph` of every agent in ``agents``, in one pass over the map.

    Nodes and edges enter each local graph in the map's order, as with
    :func:`local_graph`, so every result equals ``local_graph(world_graph, agent)``; the time
    is linear in the map (one call per agent would be agents x map).

    Parameters
    ----------
    world_graph : networkx.Graph
        The whole map.
    agents : iterable of str
        The agents.

    Returns
    -------
    dict
        ``{agent: local graph}``.
    """
    out = {a: nx.Graph() for a in agents}
    for v, d in world_graph.nodes(data=True):
        kind = d.get("kind")
        if kind == "base":
            loc = out.get(d.get("agent"))
            if loc is not None:
                loc.add_node(v, kind=kind)
        elif kind == "center":
            for a in dict.fromkeys(d.get("agents", ())):
                if a in out:
                    out[a].add_node(v, kind=kind)
    for u, v, d in world_graph.edges(data=True):
        loc = out.get(d.get("agent"))
        if loc is not None:
            loc.add_edge(u, v, length=float(d["length"]))
    return out


def _edge_name(u: Any, v: Any) -> str:
    return f"edge {u}-{v}"


def _check_degree_cap(cap: Any) -> None:
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 2:
        raise InputError(f"must be an integer >= 2, got {cap!r}", field="degree_cap")


def _check_nodes(g: nx.Graph) -> tuple[dict[str, Center], dict[str, list[str]]]:
    """Check every node of ``g`` (normalising ``pos``, and a center's ``agents`` and
    ``capacity``): the centers by id and each agent's bases. Every agent sharing a center
    must have a base."""
    centers: dict[str, Center] = {}
    bases: dict[str, list[str]] = {}
    for v, d in g.nodes(data=True):
        if not isinstance(v, str) or not v:
            raise InputError(f"node ids must be non-empty strings, got {v!r}", field="nodes")
        d["pos"] = _position(d.get("pos"), v)
        kind = d.get("kind")
        if kind == "base":
            bases.setdefault(_base_agent(v, d), []).append(v)
        elif kind == "center":
            centers[v] = _check_center(v, d)
        else:
            raise InputError(f"kind must be 'base' or 'center', got {kind!r}",
                             field=f"node {v}")
    if not bases:
        raise InputError("the map has no bases", field="nodes")
    for c in centers.values():
        for a in c.agents:
            if a not in bases:
                raise InputError(f"agent {a!r} shares this center but has no base",
                                 field=f"node {c.cid}")
    return centers, bases


def _base_agent(v: str, d: dict[str, Any]) -> str:
    """The agent owning base ``v``."""
    ag = d.get("agent")
    if not isinstance(ag, str) or not ag:
        raise InputError("a base needs an 'agent' (a non-empty string)", field=f"node {v}")
    return ag


def _check_center(v: str, d: dict[str, Any]) -> Center:
    """Center ``v``: its agents (at least two) and capacity (from their number to
    :data:`MAX_CAPACITY`), written back to ``d`` as a sorted tuple and an int."""
    ags = d.get("agents")
    if not isinstance(ags, (list, tuple)) or not all(isinstance(a, str) and a for a in ags):
        raise InputError("a center needs 'agents': a list of agent names", field=f"node {v}")
    ags_t = tuple(sorted(set(ags)))
    if len(ags_t) < 2:
        raise InputError(f"center is shared by {len(ags_t)} agent(s) "
                         f"({', '.join(ags_t) or 'none'}); every center must be "
                         "shared by at least 2 agents", field=f"node {v}")
    cap = d.get("capacity", len(ags_t))
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or \
            (isinstance(cap, float) and not math.isfinite(cap)) or cap != int(cap) \
            or int(cap) < len(ags_t) or cap > MAX_CAPACITY:
        raise InputError(f"capacity must be an integer from the {len(ags_t)} agents "
                         f"sharing it to {MAX_CAPACITY:,}, got {cap!r}", field=f"node {v}")
    d["agents"] = ags_t
    d["capacity"] = int(cap)
    return Center(v, ags_t, int(cap), d["pos"])


def _check_edges(g: nx.Graph) -> None:
    """Check every edge of ``g`` (nodes already checked): its length, written back as a
    float, and its owner, written back as ``agent``."""
    for u, v, d in g.edges(data=True):
        name = _edge_name(u, v)
        d["length"] = _edge_length(d.get("length"), name)
        if u == v:
            raise InputError("self-loops are not routes", field=name)
        d["agent"] = _edge_owner(g, u, v, d.get("agent"), name)


def _edge_length(raw: Any, name: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise InputError(f"length must be a number > 0, got {raw!r}", field=name)
    try:
        length = float(raw)
    except OverflowError:  # an integer beyond any float: far above MAX_LENGTH
        length = math.inf
    if not math.isfinite(length) or length <= 0 or length > MAX_LENGTH:
        raise InputError(f"length must be a number > 0 and at most {MAX_LENGTH:g} "
                         f"(route lengths are summed), got {raw!r}", field=name)
    return length


def _edge_owner(g: nx.Graph, u: str, v: str, named: Any, name: str) -> str:
    """The agent whose area holds edge ``u``-``v``: the agent of its bases, or for a
    center–center edge the ``named`` agent, which must share both centers."""
    du, dv = g.nodes[u], g.nodes[v]
    if du["kind"] == "base" and dv["kind"] == "base":
        if du["agent"] != dv["agent"]:
            raise InputError(f"joins bases of agents {du['agent']!r} and "
                             f"{dv['agent']!r}; areas meet only at centers", field=name)
        return str(du["agent"])
    if du["kind"] == "center" and dv["kind"] == "center":
        if named not in du["agents"] or named not in dv["agents"]:
            raise InputError("a center-center edge needs an 'agent' that shares both "
                             "centers", field=name)
        return str(named)
    base, cen = (du, dv) if du["kind"] == "base" else (dv, du)
    owner = base["agent"]
    if owner not in cen["agents"]:
        cid = v if du["kind"] == "base" else u
        raise InputError(f"agent {owner!r} does not share center {cid!r}", field=name)
    return str(owner)


def _check_local_areas(g: nx.Graph, agents: list[str], degree_cap: int
                       ) -> tuple[dict[str, nx.Graph], dict[str, tuple[str, ...]]]:
    """Each agent's local area (frozen; it must be connected and no node may have more
    than ``degree_cap`` local edges) and the centers it shares."""
    locals_: dict[str, nx.Graph] = {}
    agent_centers: dict[str, tuple[str, ...]] = {}
    all_locals = local_graphs(g, agents)  # one pass (per agent it is quadratic)
    for a in agents:
        loc = all_locals[a]
        if not nx.is_connected(loc):
            comps = sorted((sorted(c) for c in nx.connected_components(loc)), key=len)
            raise InputError(f"local area is disconnected: {{{', '.join(comps[0])}}} "
                             "cannot reach the rest", field=f"agent {a}")
        for v, deg in loc.degree():
            if deg > degree_cap:
                raise InputError(f"has {deg} routes in agent {a}'s area, more than the "
                                 f"degree cap {degree_cap}", field=f"node {v}")
        locals_[a] = nx.freeze(loc)
        agent_centers[a] = tuple(sorted(c for c in loc if g.nodes[c]["kind"] == "center"))
    return locals_, agent_centers


@dataclass(frozen=True, eq=False)
class LogisticsWorld:
    """A validated logistic map (ground truth). Treat ``graph`` as read-only.

    After construction every edge carries an ``agent`` attribute (its owner) and every
    center a tuple ``agents`` and an int ``capacity``. ``domain`` names the profile of
    :mod:`core.logistics.domains` (``logistics``, ``air`` or ``rover``) whose constraints
    the map must meet; ``domain_params`` holds its public parameters (the fuel range, the
    samples' half-life), completed with the profile's defaults.
    """

    graph: nx.Graph
    name: str = ""
    tasks: tuple[Task, ...] = ()
    degree_cap: int = DEFAULT_DEGREE_CAP
    note: str = ""
    domain: str = "logistics"
    domain_params: dict[str, Any] = field(default_factory=dict)
    agents: tuple[str, ...] = field(init=False)
    center_ids: tuple[str, ...] = field(init=False)
    centers: dict[str, Center] = field(init=False, repr=False)
    members: dict[str, tuple[str, ...]] = field(init=False, repr=False)
    bases: dict[str, tuple[str, ...]] = field(init=False, repr=False)
    agent_centers: dict[str, tuple[str, ...]] = field(init=False, repr=False)
    _locals: dict[str, nx.Graph] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        g = nx.Graph(self.graph)  # private copy; callers keep theirs
        _check_degree_cap(self.degree_cap)
        centers, bases = _check_nodes(g)
        agents = sorted(bases)
        _check_edges(g)
        locals_, agent_centers = _check_local_areas(g, agents, self.degree_cap)
        object.__setattr__(self, "graph", nx.freeze(g))
        object.__setattr__(self, "agents", tuple(agents))
        object.__setattr__(self, "center_ids", tuple(sorted(centers)))
        object.__setattr__(self, "centers", centers)
        object.__setattr__(self, "members", {c: centers[c].agents for c in sorted(centers)})
        object.__setattr__(self, "bases", {a: tuple(sorted(bases[a])) for a in agents})
        object.__setattr__(self, "agent_centers", agent_centers)
        object.__setattr__(self, "_locals", locals_)
        object.__setattr__(self, "tasks", tuple(validate_task(self, t) for t in self.tasks))
        if self.domain != "logistics" or self.domain_params:
            from core.logistics.domains import check_world  # the air/rover constraints

            object.__setattr__(self, "domain_params", check_world(self))

    def local(self, agent: str) -> nx.Graph:
        """Agent ``agent``'s true local map (frozen graph, edge attribute ``length``)."""
        if agent not in self._locals:
            raise InputError(f"unknown agent {agent!r}", field="agent")
        return self._locals[agent]

    def kind(self, node: str) -> str:
        return str(self.graph.nodes[node]["kind"])

    def agent_of(self, base: str) -> str:
        return str(self.graph.nodes[base]["agent"])

    @property
    def n_bases(self) -> int:
        return sum(len(b) for b in self.bases.values())

    @property
    def total_capacity(self) -> int:
        """Σ_c lc_c: Theorem 4.5's bound on Step-1 query messages."""
        return sum(c.capacity for c in self.centers.values())

    def neighbours(self, agent: str) -> dict[str, tuple[str, ...]]:
        """Neighbour agent → shared centers (what ``agent`` knows about its neighbours)."""
        out: dict[str, list[str]] = {}
        for c in self.agent_centers[agent]:
            for b in self.members[c]:
                if b != agent:
                    out.setdefault(b, []).append(c)
        return {b: tuple(cs) for b, cs in sorted(out.items())}


#: Longest route accepted: sums of lengths stay exact enough and far from overflow.
MAX_LENGTH = 1e12
#: Largest center capacity accepted (the planner allocates per unit of capacity).
MAX_CAPACITY = 1_000_000


def _position(pos: Any, node: str) -> tuple[float, float] | None:
    """A node's ``pos``: None or two finite numbers (InputError naming the node)."""
    if pos is None:
        return None
    if isinstance(pos, (list, tuple)) and len(pos) == 2 and all(
            not isinstance(x, bool) and isinstance(x, (int, float)) and abs(x) <= 1e15
            for x in pos):  # abs(nan) <= 1e15 is False; a huge int is compared exactly
        return (float(pos[0]), float(pos[1]))
    raise InputError(f"pos must be [x, y] with two finite numbers, got {pos!r}",
                     field=f"node {node}")


def validate_task(world: LogisticsWorld, task: Any) -> Task:
    """Check a task (or a ``{"origin", "goal_agent"[, "goal"]}`` dict) against the world.

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    task : Task or dict
        The task.

    Returns
    -------
    Task

    Raises
    ------
    InputError
        On ``origin``, ``goal_agent`` or ``goal``: an unknown node or agent, a center as
        origin, a goal that is not the goal agent's base, or a goal area that cannot be
        reached from the origin.
    """
    if isinstance(task, dict):
        try:
            task = Task(str(task["origin"]), str(task["goal_agent"]),
                        None if task.get("goal") is None else str(task["goal"]))
        except KeyError as exc:
            raise InputError(f"a task needs {exc.args[0]!r}", field="tasks") from None
    if not isinstance(task, Task):
        raise InputError(f"not a task: {task!r}", field="tasks")
    g = world.graph
    if task.origin not in g:
        raise InputError(f"unknown node {task.origin!r}", field="origin")
    if g.nodes[task.origin]["kind"] != "base":
        raise InputError(f"{task.origin!r} is a center, not a base", field="origin")
    if task.goal_agent not in world.bases:
        raise InputError(f"unknown agent {task.goal_agent!r} (agents: "
                         f"{', '.join(world.agents)})", field="goal_agent")
    if task.goal is not None:
        if task.goal not in g or g.nodes[task.goal]["kind"] != "base" or \
                g.nodes[task.goal]["agent"] != task.goal_agent:
            raise InputError(f"{task.goal!r} is not a base of agent {task.goal_agent!r}",
                             field="goal")
    if world.domain != "logistics":  # air: airports only; rover: samples start at targets
        from core.logistics.domains import check_task

        check_task(world, task)
    reach = nx.node_connected_component(g, task.origin)
    if not any(b in reach for b in world.bases[task.goal_agent]):
        raise InputError(f"agent {task.goal_agent!r}'s area cannot be reached from "
                         f"{task.origin!r}: the map has {nx.number_connected_components(g)} "
                         "unconnected parts", field="goal_agent")
    return task
