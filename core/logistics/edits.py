"""Edits of a logistics map dict (``Project.maps[i]``), as pure functions.

Size: the edits of one data structure, the map dict: many short pure functions over the same
representation that share its helpers (copy, prune, check).

A map in the project is the ``*.map.json`` object of :func:`core.logistics.io.map_to_dict`
plus a stable ``"id"`` (``"map-1"``). Every function here takes such a dict, returns a
**new** dict and leaves its argument alone; :func:`checked` validates the result with
:func:`core.logistics.io.map_from_dict` (so with :class:`core.logistics.model.LogisticsWorld`)
and returns its canonical form. An invalid edit raises :class:`core.common.errors.InputError`
whose ``field`` names the node, edge or agent; the map editor shows that message and does
not push the edit, so the document is untouched.

Nothing here imports Qt: the map editor builds on these, and tests call them directly.

Examples
--------
>>> from core.logistics.examples import fig41
>>> from core.logistics.io import map_to_dict
>>> d = with_id(map_to_dict(fig41()), "map-1")
>>> d2 = checked(set_length(d, "a1", "a2", 42))
>>> edge_length(d2, "a2", "a1"), edge_length(d, "a1", "a2")
(42.0, 40.0)
>>> try:
...     checked(remove_items(d, edges=[("a4", "A")]))
... except InputError as exc:
...     print(exc)
agent a: local area is disconnected: {A} cannot reach the rest
"""

from __future__ import annotations

import copy
import math
import re
import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from core.common.errors import InputError
from core.logistics.io import map_from_dict, map_to_dict
from core.logistics.model import LogisticsWorld

__all__ = ["InputError", "with_id", "checked", "world_of", "node", "nodes_of_kind",
           "agents_of", "edge_length", "has_edge", "positions", "layout_positions",
           "suggest_length",
           "new_agent_name", "new_base_id", "new_center_id", "add_base", "add_center",
           "connect", "remove_items", "move_nodes", "set_length", "set_base_agent",
           "set_center", "rename_node", "set_name", "edge_key", "map_label"]

DEFAULT_LENGTH = 40.0


# ---------------------------------------------------------------------------- reading
def with_id(d: Mapping[str, Any], map_id: str) -> dict[str, Any]:
    """A copy of map dict ``d`` with ``"id"`` first (the project's stable map id).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    map_id : str
        The id to give it.

    Returns
    -------
    dict
        A deep copy with ``"id": map_id`` first.
    """
    out: dict[str, Any] = {"id": map_id}
    out.update({k: copy.deepcopy(v) for k, v in d.items() if k != "id"})
    return out


def world_of(d: Mapping[str, Any]) -> LogisticsWorld:
    """The validated world of map dict ``d`` (InputError naming the node/edge/agent).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    LogisticsWorld
        The validated world.
    """
    return map_from_dict(dict(d))


def checked(d: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``d`` and return its canonical form (same ``id``); InputError if invalid.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    dict
        The canonical map dict (:func:`core.logistics.io.map_to_dict`), with ``d``'s id.

    Raises
    ------
    InputError
        Naming the node, edge or agent that makes the map invalid.
    """
    world = world_of(d)
    canon = map_to_dict(world)
    return with_id(canon, str(d.get("id", ""))) if d.get("id") else canon


def map_label(d: Mapping[str, Any]) -> str:
    """A short name for lists: the map's name, else its id.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    str
        ``graph.name``, else the id, else ``"map"``.
    """
    g = d.get("graph") or {}
    return str(g.get("name") or d.get("id") or "map")


def node(d: Mapping[str, Any], node_id: str) -> dict[str, Any]:
    """The node dict with id ``node_id`` (the one inside ``d``, not a copy).

    Parameters
    ----------
    d : Mapping
        A map dict.
    node_id : str
        The node's id.

    Returns
    -------
    dict
        The node's entry of ``d["nodes"]``.

    Raises
    ------
    InputError
        If the map has no such node.
    """
    for n in d.get("nodes", ()):
        if n.get("id") == node_id:
            found: dict[str, Any] = n
            return found
    raise InputError(f"no node {node_id!r} on the map", field=f"node {node_id}")


def nodes_of_kind(d: Mapping[str, Any], kind: str) -> list[str]:
    """The ids of the map's nodes of one kind, in file order.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    kind : str
        ``"base"`` or ``"center"``.

    Returns
    -------
    list of str
        Their ids.
    """
    return [n["id"] for n in d.get("nodes", ()) if n.get("kind") == kind]


def agents_of(d: Mapping[str, Any]) -> list[str]:
    """Every agent that owns a base or shares a center, sorted.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    list of str
        The agent names.
    """
    out: set[str] = set()
    for n in d.get("nodes", ()):
        if n.get("kind") == "base" and n.get("agent"):
            out.add(str(n["agent"]))
        elif n.get("kind") == "center":
            out.update(str(a) for a in n.get("agents", ()))
    return sorted(out)


def _edges(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(d.get("edges", d.get("links", [])))


def edge_key(u: str, v: str) -> tuple[str, str]:
    """The undirected edge (u, v) as a sorted pair.

    Parameters
    ----------
    u, v : str
        The route's ends.

    Returns
    -------
    tuple of str
        ``(min, max)``.
    """
    return (u, v) if u <= v else (v, u)


def has_edge(d: Mapping[str, Any], u: str, v: str) -> bool:
    """Whether the map has the route u–v (either direction).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    u, v : str
        The route's ends.

    Returns
    -------
    bool
    """
    k = edge_key(u, v)
    return any(edge_key(e["source"], e["target"]) == k for e in _edges(d))


def edge_length(d: Mapping[str, Any], u: str, v: str) -> float:
    """The length of the route u–v.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    u, v : str
        The route's ends (either order).

    Returns
    -------
    float

    Raises
    ------
    InputError
        If the map has no such route.
    """
    k = edge_key(u, v)
    for e in _edges(d):
        if edge_key(e["source"], e["target"]) == k:
            return float(e["length"])
    raise InputError(f"no route {u}-{v} on the map", field=f"edge {u}-{v}")


def positions(d: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """Stored positions (nodes without ``pos`` are left out).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    dict
        ``{node id: (x, y)}``.
    """
    out = {}
    for n in d.get("nodes", ()):
        p = n.get("pos")
        if p is not None and len(p) == 2:
            out[n["id"]] = (float(p[0]), float(p[1]))
    return out


def layout_positions(d: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """Where to draw every node: its stored ``pos``, or a seeded spring layout for the rest.

    The map editor and the report draw a map without (all) positions with this, so a map
    imported without a drawing still has one: with some positions the others are laid out
    around them (kept fixed); with none, the whole map on a 400-unit square. Seeded, so the
    same map is drawn the same way every time.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape); not changed.

    Returns
    -------
    dict
        ``{node id: (x, y)}`` for every node.

    Examples
    --------
    >>> d = {"nodes": [{"id": "x", "pos": [0, 0]}, {"id": "y"}, {"id": "z"}],
    ...      "edges": [{"source": "x", "target": "y"}, {"source": "y", "target": "z"}]}
    >>> pos = layout_positions(d)
    >>> sorted(pos), pos["x"], all(math.isfinite(c) for p in pos.values() for c in p)
    (['x', 'y', 'z'], (0.0, 0.0), True)
    """
    import networkx as nx

    pos = positions(d)
    missing = [n["id"] for n in d.get("nodes", ()) if n["id"] not in pos]
    if not missing:
        return pos
    g = nx.Graph()
    g.add_nodes_from(n["id"] for n in d.get("nodes", ()))
    g.add_edges_from((e["source"], e["target"]) for e in d.get("edges", d.get("links", ())))
    if pos:
        xs = [p[0] for p in pos.values()]
        span = max(100.0, max(xs) - min(xs))
        lay = nx.spring_layout(g, pos={k: pos.get(k, (0.0, 0.0)) for k in g}, fixed=list(pos),
                               k=span / 8, seed=7, iterations=60)
    else:
        lay = nx.spring_layout(g, seed=7, scale=400.0)
    for k in missing:
        x, y = lay[k]
        pos[k] = (float(x), float(y))
    return pos


def suggest_length(d: Mapping[str, Any], u: str, v: str,
                   pos: Mapping[str, tuple[float, float]] | None = None) -> float:
    """A default length for a new route u–v: the drawn distance at the map's median scale.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    u, v : str
        The new route's ends.
    pos : Mapping, optional
        Positions to use instead of the stored ones (e.g. while dragging).

    Returns
    -------
    float
        The drawn distance times the median length/distance ratio of the map's routes
        rounded to an integer >= 1 (:data:`DEFAULT_LENGTH` when positions are missing).

    Examples
    --------
    >>> d = {"nodes": [{"id": "x", "pos": [0, 0]}, {"id": "y", "pos": [30, 40]},
    ...                {"id": "z", "pos": [0, 10]}],
    ...      "edges": [{"source": "x", "target": "z", "length": 20.0}]}
    >>> suggest_length(d, "x", "y")
    100.0
    """
    pos = dict(positions(d)) if pos is None else dict(pos)
    if u not in pos or v not in pos:
        return DEFAULT_LENGTH
    ratios = []
    for e in _edges(d):
        a, b = e["source"], e["target"]
        if a in pos and b in pos:
            dist = math.dist(pos[a], pos[b])
            if dist > 1e-9:
                ratios.append(float(e["length"]) / dist)
    dist = math.dist(pos[u], pos[v])
    if not ratios or dist <= 1e-9:
        return DEFAULT_LENGTH
    return float(max(1, round(statistics.median(ratios) * dist)))


# ---------------------------------------------------------------------------- naming
def _all_ids(d: Mapping[str, Any]) -> set[str]:
    return {str(n["id"]) for n in d.get("nodes", ())}


def new_agent_name(d: Mapping[str, Any]) -> str:
    """A fresh agent name in the map's style: ``a30`` after ``a00``…``a29``, else a letter.

    >>> new_agent_name({"nodes": [{"id": "a1", "kind": "base", "agent": "a"}]})
    'b'
    >>> new_agent_name({"nodes": [{"id": "a07.1", "kind": "base", "agent": "a07"}]})
    'a08'

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    str
        A name no agent of the map has.
    """
    agents = set(agents_of(d))
    numbered = [re.fullmatch(r"([A-Za-z]+)(\d+)", a) for a in agents]
    if agents and all(numbered):
        m0 = numbered[0]
        assert m0 is not None
        prefix, width = m0.group(1), len(m0.group(2))
        n = max(int(m.group(2)) for m in numbered if m is not None) + 1
        while f"{prefix}{n:0{width}d}" in agents:
            n += 1
        return f"{prefix}{n:0{width}d}"
    for c in "abcdefghijklmnopqrstuvwxyz":
        if c not in agents:
            return c
    n = 1
    while f"agent{n}" in agents:
        n += 1
    return f"agent{n}"


def new_base_id(d: Mapping[str, Any], agent: str) -> str:
    """The next base id of ``agent`` in the map's style (``a6`` or ``a03.6``).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    agent : str
        The base's agent.

    Returns
    -------
    str
        An id no node of the map has.
    """
    taken = _all_ids(d)
    sep = "." if agent[-1:].isdigit() else ""
    nums = []
    for n in d.get("nodes", ()):
        if n.get("kind") == "base" and n.get("agent") == agent:
            m = re.fullmatch(re.escape(agent) + r"(\.?)(\d+)", str(n["id"]))
            if m:
                sep = m.group(1)
                nums.append(int(m.group(2)))
    k = max(nums, default=0) + 1
    while f"{agent}{sep}{k}" in taken:
        k += 1
    return f"{agent}{sep}{k}"


def new_center_id(d: Mapping[str, Any]) -> str:
    """The next center id in the map's style (``G`` after ``A``…``F``; ``C30`` after ``C29``).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.

    Returns
    -------
    str
        An id no node of the map has.
    """
    taken = _all_ids(d)
    centers = nodes_of_kind(d, "center")
    numbered = [re.fullmatch(r"([A-Za-z]+)(\d+)", c) for c in centers]
    if centers and all(numbered):
        m0 = numbered[0]
        assert m0 is not None
        prefix, width = m0.group(1), len(m0.group(2))
        n = max(int(m.group(2)) for m in numbered if m is not None) + 1
        while f"{prefix}{n:0{width}d}" in taken:
            n += 1
        return f"{prefix}{n:0{width}d}"
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if c not in taken:
            return c
    n = 1
    while f"C{n}" in taken:
        n += 1
    return f"C{n}"


# ---------------------------------------------------------------------------- edits
def _copy(d: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(d))
    if "links" in out and "edges" not in out:
        out["edges"] = out.pop("links")
    out.setdefault("edges", [])
    out.setdefault("nodes", [])
    return out


def _prune_tasks(d: dict[str, Any]) -> None:
    """Drop stored tasks that no longer fit the map (a deleted origin, a re-assigned goal)."""
    g = d.get("graph")
    if not isinstance(g, dict) or not g.get("tasks"):
        return
    kinds = {n["id"]: n for n in d["nodes"]}
    bases_of: dict[str, int] = {}
    for n in d["nodes"]:
        if n.get("kind") == "base":
            bases_of[n.get("agent")] = bases_of.get(n.get("agent"), 0) + 1
    keep = []
    for t in g["tasks"]:
        if not isinstance(t, dict):
            continue
        o, ga, goal = t.get("origin"), t.get("goal_agent"), t.get("goal")
        if o not in kinds or kinds[o].get("kind") != "base" or ga not in bases_of:
            continue
        if goal is not None and (goal not in kinds or kinds[goal].get("agent") != ga):
            continue
        keep.append(t)
    g["tasks"] = keep


def _pos(p: Any) -> list[float] | None:
    if p is None:
        return None
    x, y = p
    return [round(float(x), 1), round(float(y), 1)]


def _check_length(length: Any, where: str) -> float:
    try:
        x = float(length)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float
        raise InputError(f"length must be a number > 0, got {length!r}", field=where) from None
    if not math.isfinite(x) or x <= 0:
        raise InputError(f"length must be a finite number > 0, got {length!r}", field=where)
    return x


def _edge_dict(d: Mapping[str, Any], u: str, v: str, length: float) -> dict[str, Any]:
    e: dict[str, Any] = {"source": u, "target": v, "length": float(length)}
    nu, nv = node(d, u), node(d, v)
    if nu.get("kind") == "center" and nv.get("kind") == "center":
        common = sorted(set(nu.get("agents", ())) & set(nv.get("agents", ())))
        if not common:
            raise InputError(f"centers {u} and {v} share no agent, so no agent can own a route "
                             "between them", field=f"edge {u}-{v}")
        e["agent"] = common[0]
    return e


def add_base(d: Mapping[str, Any], agent: str, pos: tuple[float, float] | None, *,
             link_to: str | None = None, length: float | None = None,
             base_id: str | None = None) -> tuple[dict[str, Any], str]:
    """Add a base of ``agent`` (linked to ``link_to`` if given); returns (new map, base id).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    agent : str
        The base's agent (a new name starts a new area).
    pos : (float, float) or None
        Where it is drawn.
    link_to : str, optional
        A node of ``agent``'s area to connect it to.
    length : float, optional
        That route's length (default :func:`suggest_length`).
    base_id : str, optional
        Its id (default :func:`new_base_id`).

    Returns
    -------
    (dict, str)
        The new map dict (not validated) and the base's id.

    Raises
    ------
    InputError
        For an empty agent name, a taken id or a bad length.
    """
    agent = str(agent).strip()
    if not agent:
        raise InputError("a base needs an agent name", field="agent")
    out = _copy(d)
    bid = base_id or new_base_id(out, agent)
    if bid in _all_ids(out):
        raise InputError("this id is taken", field=f"node {bid}")
    item: dict[str, Any] = {"id": bid, "kind": "base", "agent": agent}
    if pos is not None:
        item["pos"] = _pos(pos)
    out["nodes"].append(item)
    if link_to is not None:
        ln = suggest_length(out, bid, link_to) if length is None else _check_length(
            length, f"edge {bid}-{link_to}")
        out["edges"].append(_edge_dict(out, bid, link_to, ln))
    return out, bid


def add_center(d: Mapping[str, Any], links: Mapping[str, str], pos: tuple[float, float] | None,
               *, capacity: int | None = None, center_id: str | None = None,
               lengths: Mapping[str, float] | None = None) -> tuple[dict[str, Any], str]:
    """Add a center shared by the agents of ``links`` (agent -> the node it links to).

    Each agent's area gets one route from ``links[agent]`` (a base of that agent, or a
    center it shares) to the new center. Returns (new map, center id).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    links : Mapping
        ``{agent: node}``: each sharing agent and the node of its area the center joins.
    pos : (float, float) or None
        Where it is drawn.
    capacity : int, optional
        Its capacity lc (default: the number of agents).
    center_id : str, optional
        Its id (default :func:`new_center_id`).
    lengths : Mapping, optional
        ``{agent: length}`` of the new routes (default :func:`suggest_length`).

    Returns
    -------
    (dict, str)
        The new map dict (not validated) and the center's id.

    Raises
    ------
    InputError
        For a taken id or a bad length.
    """
    agents = sorted(links)
    out = _copy(d)
    cid = center_id or new_center_id(out)
    if cid in _all_ids(out):
        raise InputError("this id is taken", field=f"node {cid}")
    item: dict[str, Any] = {"id": cid, "kind": "center", "agents": agents,
                            "capacity": int(capacity if capacity is not None else len(agents))}
    if pos is not None:
        item["pos"] = _pos(pos)
    out["nodes"].append(item)
    for a in agents:
        other = links[a]
        ln = (lengths or {}).get(a)
        ln = suggest_length(out, cid, other) if ln is None else _check_length(
            ln, f"edge {cid}-{other}")
        e = _edge_dict(out, other, cid, ln)
        if node(out, other).get("kind") == "center":
            e["agent"] = a
        out["edges"].append(e)
    return out, cid


def connect(d: Mapping[str, Any], u: str, v: str, length: float | None = None
            ) -> dict[str, Any]:
    """Add the route u–v (``length`` defaults to :func:`suggest_length`).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    u, v : str
        The nodes to join.
    length : float, optional
        The route's length.

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).

    Raises
    ------
    InputError
        For a self-loop, an unknown node, an existing route or a bad length.
    """
    if u == v:
        raise InputError("a route needs two different nodes", field=f"node {u}")
    node(d, u)
    node(d, v)
    if has_edge(d, u, v):
        raise InputError("these nodes are already connected", field=f"edge {u}-{v}")
    out = _copy(d)
    ln = suggest_length(out, u, v) if length is None else _check_length(length, f"edge {u}-{v}")
    out["edges"].append(_edge_dict(out, u, v, ln))
    return out


def remove_items(d: Mapping[str, Any], nodes: Iterable[str] = (),
                 edges: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
    """Remove ``nodes`` (with their routes) and ``edges``; drop tasks that used them.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    nodes : iterable of str
        Nodes to remove.
    edges : iterable of (str, str)
        Routes to remove (either direction).

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).
    """
    gone = set(nodes)
    keys = {edge_key(u, v) for u, v in edges}
    out = _copy(d)
    out["nodes"] = [n for n in out["nodes"] if n["id"] not in gone]
    out["edges"] = [e for e in out["edges"] if e["source"] not in gone and e["target"]
                    not in gone and edge_key(e["source"], e["target"]) not in keys]
    _prune_tasks(out)
    return out


def move_nodes(d: Mapping[str, Any], pos: Mapping[str, tuple[float, float]]) -> dict[str, Any]:
    """Move nodes to new drawing positions (the network does not change).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    pos : Mapping
        ``{node id: (x, y)}``.

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).
    """
    out = _copy(d)
    for n in out["nodes"]:
        if n["id"] in pos:
            n["pos"] = _pos(pos[n["id"]])
    return out


def set_length(d: Mapping[str, Any], u: str, v: str, length: Any) -> dict[str, Any]:
    """Set the length of the route u–v.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    u, v : str
        The route's ends.
    length : Any
        The new length (a number > 0, or text that parses as one).

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).

    Raises
    ------
    InputError
        For a bad length or a route the map does not have.
    """
    ln = _check_length(length, f"edge {u}-{v}")
    out = _copy(d)
    k = edge_key(u, v)
    for e in out["edges"]:
        if edge_key(e["source"], e["target"]) == k:
            e["length"] = ln
            return out
    raise InputError(f"no route {u}-{v} on the map", field=f"edge {u}-{v}")


def set_base_agent(d: Mapping[str, Any], base: str, agent: str) -> dict[str, Any]:
    """Assign base ``base`` to ``agent`` (its routes must then fit ``agent``'s area).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    base : str
        The base.
    agent : str
        Its new agent.

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).

    Raises
    ------
    InputError
        For an empty name or a node that is not a base.
    """
    agent = str(agent).strip()
    if not agent:
        raise InputError("the agent name is empty", field=f"node {base}")
    out = _copy(d)
    n = node(out, base)
    if n.get("kind") != "base":
        raise InputError("only a base belongs to one agent (a center lists its agents)",
                         field=f"node {base}")
    n["agent"] = agent
    _prune_tasks(out)
    return out


def set_center(d: Mapping[str, Any], center: str, *, agents: Iterable[str] | None = None,
               capacity: Any = None) -> dict[str, Any]:
    """Change a center's agents and/or capacity lc.

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    center : str
        The center.
    agents : iterable of str, optional
        Its new sharing agents.
    capacity : Any, optional
        Its new capacity (an integer).

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).

    Raises
    ------
    InputError
        For a node that is not a center or a capacity that is not an integer.
    """
    out = _copy(d)
    n = node(out, center)
    if n.get("kind") != "center":
        raise InputError("not a center", field=f"node {center}")
    if agents is not None:
        n["agents"] = sorted({str(a).strip() for a in agents if str(a).strip()})
    if capacity is not None:
        try:
            cap = int(capacity)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an infinite float
            raise InputError(f"capacity must be an integer, got {capacity!r}",
                             field=f"node {center}") from None
        if cap != capacity and not (isinstance(capacity, float) and capacity == cap):
            raise InputError(f"capacity must be an integer, got {capacity!r}",
                             field=f"node {center}")
        n["capacity"] = cap
    elif agents is not None and int(n.get("capacity", 0)) < len(n["agents"]):
        n["capacity"] = len(n["agents"])
    return out


def rename_node(d: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    """Give node ``old`` the id ``new`` (its routes and the tasks follow).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    old : str
        The node's id.
    new : str
        Its new id.

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).

    Raises
    ------
    InputError
        For an empty or taken id.
    """
    new = str(new).strip()
    if not new:
        raise InputError("a node id cannot be empty", field=f"node {old}")
    if new == old:
        return _copy(d)
    if new in _all_ids(d):
        raise InputError(f"id {new!r} is taken", field=f"node {old}")
    out = _copy(d)
    node(out, old)["id"] = new
    for e in out["edges"]:
        for end in ("source", "target"):
            if e[end] == old:
                e[end] = new
    g = out.get("graph")
    if isinstance(g, dict):
        for t in g.get("tasks", ()):
            for key in ("origin", "goal"):
                if t.get(key) == old:
                    t[key] = new
    return out


def set_name(d: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Set the map's name (``graph.name``).

    Parameters
    ----------
    d : Mapping
        A map dict (the ``*.map.json`` shape, with its ``"id"``); not changed.
    name : str
        The new name.

    Returns
    -------
    dict
        A new map dict (not validated: pass it to :func:`checked`).
    """
    out = _copy(d)
    out.setdefault("graph", {})["name"] = str(name)
    return out
