"""``*.map.json`` files (docs/formats-and-cli.md §3): networkx node-link JSON, version 1.

``networkx.node_link_graph(data, edges="edges")`` reads the files; the older ``"links"``
key is accepted too. Errors name the file and the node, edge or field.

Examples
--------
>>> from core.logistics.examples import fig41
>>> d = map_to_dict(fig41())
>>> d["graph"]["format"], len(d["nodes"]), map_from_dict(d).agents
('privplan-map', 35, ('a', 'b', 'c', 'd', 'e', 'f'))
"""

from __future__ import annotations

import json
import os
from typing import Any

import networkx as nx

from core.common.errors import InputError
from core.logistics.model import DEFAULT_DEGREE_CAP, LogisticsWorld, Task

__all__ = ["MAP_FORMAT", "MAP_VERSION", "map_from_dict", "map_to_dict", "load_map", "save_map",
           "dumps_map"]

MAP_FORMAT = "privplan-map"
MAP_VERSION = 1



def _check_roles(nodes: list[dict[str, Any]], domain: str) -> None:
    """Every ``role`` a node of the file gives: a string the map's domain knows, on a base.

    A logistics (and packet) map has no roles; air and rover maps have theirs
    (``docs/formats-and-cli.md`` §3). An absent ``role`` is the domain's default; ``null``,
    ``""`` or an unknown name is refused naming the node.
    """
    from core.logistics.domains import MAP_DOMAINS, profile

    if domain not in MAP_DOMAINS:
        return  # LogisticsWorld refuses the domain itself, naming graph.domain
    roles = profile(domain).roles
    for i, n in enumerate(nodes):
        if "role" not in n:
            continue
        role = n["role"]
        if not roles:
            raise InputError(f"{domain} maps have no base roles, got role {json.dumps(role)}",
                             field=f"nodes[{i}].role")
        if n.get("kind") != "base" or not isinstance(role, str) or role not in roles:
            raise InputError(f"role {json.dumps(role)} is not one of a {domain} base's roles "
                             f"({', '.join(roles)})", field=f"nodes[{i}].role")

def map_from_dict(d: Any) -> LogisticsWorld:
    """Build and validate a world from the node-link dict of a ``*.map.json`` file.

    Parameters
    ----------
    d : Any
        The parsed ``*.map.json`` object (networkx node-link shape).

    Returns
    -------
    LogisticsWorld
        The validated world.

    Raises
    ------
    InputError
        Naming the node, edge, agent or field.
    """
    if not isinstance(d, dict):
        raise InputError("a map file holds one JSON object", field="map")
    gattr = _map_header(d)
    key = "edges" if "edges" in d else "links"
    _check_node_link(d, key)
    g = _node_link_graph(d, key)
    tasks = gattr.get("tasks", [])
    if not isinstance(tasks, list):
        raise InputError("must be a list", field="graph.tasks")
    domain = gattr.get("domain", "logistics")
    dparams = gattr.get("domain_params", {})
    if not isinstance(domain, str):
        raise InputError(f"must be a domain name, got {domain!r}", field="graph.domain")
    if not isinstance(dparams, dict):
        raise InputError("must be an object", field="graph.domain_params")
    _check_roles(d["nodes"], domain)
    try:
        world = LogisticsWorld(g, name=str(gattr.get("name", "")),
                               degree_cap=gattr.get("degree_cap", DEFAULT_DEGREE_CAP),
                               note=str(gattr.get("note", "")), domain=domain,
                               domain_params=dparams)
    except InputError as exc:
        if exc.field in ("domain",) or (exc.field or "").startswith("domain_params"):
            raise InputError(exc.problem, field=f"graph.{exc.field}") from None
        raise
    return _with_tasks(world, tasks)


def _map_header(d: dict[str, Any]) -> dict[str, Any]:
    """The file's ``graph`` object, once its format and version are this PrivPlan's and
    the graph is undirected and simple."""
    gattr = d.get("graph") or {}
    if not isinstance(gattr, dict):
        raise InputError("must be an object", field="graph")
    fmt = gattr.get("format", MAP_FORMAT)
    if fmt != MAP_FORMAT:
        raise InputError(f"format must be {MAP_FORMAT!r}, got {fmt!r}", field="graph.format")
    version = gattr.get("version", MAP_VERSION)
    if version != MAP_VERSION:
        raise InputError(f"version {version!r} is not supported (this PrivPlan reads "
                         f"version {MAP_VERSION})", field="graph.version")
    if d.get("directed") or d.get("multigraph"):
        raise InputError("routes are undirected: 'directed' and 'multigraph' must be false",
                         field="map")
    return dict(gattr)


def _check_node_link(d: dict[str, Any], key: str) -> None:
    """The node and edge lists (edges under ``key``): every node has a unique non-empty
    string id, every edge joins two of them, and no route is listed twice."""
    if not isinstance(d.get("nodes"), list) or not isinstance(d.get(key, []), list):
        raise InputError("'nodes' and 'edges' must be lists", field="map")
    for i, n in enumerate(d["nodes"]):
        if not isinstance(n, dict) or "id" not in n:
            raise InputError("every node needs an 'id'", field=f"nodes[{i}]")
    for i, e in enumerate(d.get(key, [])):
        if not isinstance(e, dict) or "source" not in e or "target" not in e:
            raise InputError("every edge needs 'source' and 'target'", field=f"{key}[{i}]")
    ids: set[str] = set()
    for i, n in enumerate(d["nodes"]):
        if not isinstance(n["id"], str) or not n["id"]:
            raise InputError(f"node ids must be non-empty strings, got {n['id']!r}",
                             field=f"nodes[{i}]")
        if n["id"] in ids:
            raise InputError(f"node id {n['id']!r} is used twice", field=f"nodes[{i}]")
        ids.add(n["id"])
    pairs: set[frozenset[str]] = set()
    for i, e in enumerate(d.get(key, [])):
        for end in ("source", "target"):
            if not isinstance(e[end], str):
                raise InputError(f"{end} must be a node id (a string), got {e[end]!r}",
                                 field=f"{key}[{i}]")
            if e[end] not in ids:
                raise InputError(f"unknown node {e[end]!r}", field=f"edge {e['source']}-"
                                 f"{e['target']}")
        pair = frozenset((e["source"], e["target"]))
        if pair in pairs:
            raise InputError("the route is listed twice (routes are undirected)",
                             field=f"edge {e['source']}-{e['target']}")
        pairs.add(pair)


def _node_link_graph(d: dict[str, Any], key: str) -> nx.Graph:
    """The undirected graph of the checked node-link dict ``d`` (graph attributes left out:
    :func:`map_from_dict` reads them itself)."""
    data = dict(d)
    data["graph"] = {}
    data.setdefault(key, [])
    try:
        return nx.node_link_graph(data, directed=False, multigraph=False, edges=key)
    except (nx.NetworkXError, KeyError, TypeError) as exc:
        raise InputError(f"not a node-link graph ({exc})", field="map") from None


def _with_tasks(world: LogisticsWorld, tasks: list[Any]) -> LogisticsWorld:
    """``world`` with the file's ``tasks``, each checked against it (errors name
    ``graph.tasks[i]``)."""
    from core.logistics.model import validate_task

    checked: list[Task] = []
    for i, t in enumerate(tasks):
        try:
            checked.append(validate_task(world, t))
        except InputError as exc:
            raise InputError(exc.problem, field=f"graph.tasks[{i}].{exc.field}") from None
    try:
        return LogisticsWorld(world.graph, name=world.name, tasks=tuple(checked),
                              degree_cap=world.degree_cap, note=world.note,
                              domain=world.domain, domain_params=world.domain_params)
    except InputError as exc:
        if (exc.field or "").startswith("tasks["):
            raise InputError(exc.problem, field=f"graph.{exc.field}") from None
        raise


def map_to_dict(world: LogisticsWorld) -> dict[str, Any]:
    """The ``*.map.json`` object of ``world`` (nodes sorted: centers, then bases by agent).

    Parameters
    ----------
    world : LogisticsWorld
        The world.

    Returns
    -------
    dict
        Its canonical ``*.map.json`` object.
    """
    g = world.graph
    gattr: dict[str, Any] = {"format": MAP_FORMAT, "version": MAP_VERSION, "name": world.name}
    if world.note:
        gattr["note"] = world.note
    if world.degree_cap != DEFAULT_DEGREE_CAP:
        gattr["degree_cap"] = world.degree_cap
    if world.domain != "logistics":  # a logistics map's file stays as it was
        gattr["domain"] = world.domain
        gattr["domain_params"] = dict(world.domain_params)
    gattr["tasks"] = [t.to_dict() for t in world.tasks]
    nodes = []
    for c in world.center_ids:
        d = g.nodes[c]
        item: dict[str, Any] = {"id": c, "kind": "center", "agents": list(d["agents"]),
                                "capacity": int(d["capacity"])}
        if d.get("pos") is not None:
            item["pos"] = [float(x) for x in d["pos"]]
        nodes.append(item)
    for a in world.agents:
        for b in world.bases[a]:
            d = g.nodes[b]
            item = {"id": b, "kind": "base", "agent": a}
            if d.get("role") is not None:
                item["role"] = str(d["role"])
            if d.get("pos") is not None:
                item["pos"] = [float(x) for x in d["pos"]]
            nodes.append(item)
    order = {n["id"]: i for i, n in enumerate(nodes)}
    edges = []
    for u, v, d in g.edges(data=True):
        s, t = (u, v) if order[u] <= order[v] else (v, u)
        e: dict[str, Any] = {"source": s, "target": t, "length": float(d["length"])}
        if g.nodes[s]["kind"] == "center" and g.nodes[t]["kind"] == "center":
            e["agent"] = d["agent"]
        edges.append(e)
    edges.sort(key=lambda e: (order[e["source"]], order[e["target"]]))
    return {"directed": False, "multigraph": False, "graph": gattr, "nodes": nodes,
            "edges": edges}


def dumps_map(world: LogisticsWorld) -> str:
    """The file text: two-space indented JSON with a trailing newline.

    Parameters
    ----------
    world : LogisticsWorld
        The world.

    Returns
    -------
    str
        The file's text.
    """
    return json.dumps(map_to_dict(world), indent=2, allow_nan=False) + "\n"


def load_map(path: str | os.PathLike[str]) -> LogisticsWorld:
    """Read and validate a ``*.map.json`` file; errors name the file.

    Parameters
    ----------
    path : str or PathLike
        A ``*.map.json`` file.

    Returns
    -------
    LogisticsWorld
        The validated world.

    Raises
    ------
    InputError
        Naming the file and the field.
    """
    from core.common.jsonfile import read_json

    p = os.fspath(path)
    d = read_json(p)  # strict: finite numbers, bounded depth, named when not JSON at all
    try:
        return map_from_dict(d)
    except InputError as exc:
        raise exc.with_file(p) from None


def save_map(world: LogisticsWorld, path: str | os.PathLike[str]) -> None:
    """Write ``world`` atomically as a ``*.map.json`` file.

    Parameters
    ----------
    world : LogisticsWorld
        The world.
    path : str or PathLike
        The file (replaced atomically).
    """
    from core.common.atomic import atomic_write_text

    atomic_write_text(path, dumps_map(world))
