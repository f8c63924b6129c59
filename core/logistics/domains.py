"""Domain profiles of the one planning engine (thesis §4.7): logistics, packet, air, rover.

The thesis applies the logistics method to three other domains (§4.7.1–4.7.3) and reports
for airplane transport and rover exploration only that "the results present a similar
trend to logistics". A :class:`DomainProfile` gives each domain its vocabulary (what an
agent, a base, a center and an item are called), its icons, its **constraints** (checked
when a map of that domain is built, :func:`check_world`), its **generator** (seeded) and
its own **metrics** of an executed plan. The engine (Steps 1–3, the baselines, the
ledgers) is the same for every domain: a profile never changes what an agent releases.

* ``logistics`` — military units, private bases, public logistic centers, packages (the
  default; its generator is :func:`core.logistics.examples.generate_world`, unchanged).
* ``packet`` — access points, network nodes, routers; a run-time mode (nodes leave and
  join, :mod:`core.logistics.packet`), not a kind of map.
* ``air`` (§4.7.2) — area air-traffic controllers; their airports are private, the
  **boundary airports** between two areas are the public centers; passengers travel.
  Constraint: a plane has limited fuel, so **no flight leg (edge) is longer than the
  public ``fuel_range``** (km); a longer hop is flown as several legs through private
  refuelling airports (role ``stop``), where passengers change planes. Passengers start
  and end at ordinary airports (role ``airport``).
* ``rover`` (§4.7.3) — Mars rovers; each rover's reachable **locations** are private and
  so are its **targets** (role ``target``: where samples are collected; the planner never
  reads a role, so no release depends on it); rovers meet at public **hand-over
  locations** reachable by exactly two rovers, the only places a sample changes rover.
  Samples **decay**: a sample delivered after a traverse of length L keeps the value
  ``2 ** (-L / half_life)`` (``half_life`` in metres of driving, public); a lost sample is
  worth 0. Since the value falls monotonically with L, the shortest delivery is also the
  most valuable one, so the engine's objective is unchanged and the value is the domain's
  utility metric (``sample_value``: mean over all samples, undelivered ones count 0).

Examples
--------
>>> w = generate_domain_world("air", 6, seed=2)
>>> w.domain, w.domain_params["fuel_range"], max(
...     d["length"] for *_, d in w.graph.edges(data=True)) <= 600.0
('air', 600.0, True)
>>> r = generate_domain_world("rover", 6, seed=2)
>>> r.domain, all(len(a) == 2 for a in r.members.values())
('rover', True)
>>> profile("rover").vocabulary.center
'hand-over location'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from core.common.errors import InputError

__all__ = ["DOMAINS", "MAP_DOMAINS", "Vocabulary", "DomainProfile", "profile", "check_world",
           "check_task", "split_leg",
           "generate_domain_world", "domain_tasks", "plan_metrics", "route_handovers",
           "DEFAULT_FUEL_RANGE", "DEFAULT_HALF_LIFE"]

#: every profile (``plan --domain``)
DOMAINS = ("logistics", "packet", "air", "rover")
#: the profiles a map can belong to (``packet`` is a run-time mode on a logistics map)
MAP_DOMAINS = ("logistics", "air", "rover")
#: km a plane flies on one tank (the air generator's default; a map states its own)
DEFAULT_FUEL_RANGE = 600.0
#: metres of driving after which a sample keeps half its value (the rover default)
DEFAULT_HALF_LIFE = 300.0
#: most refuelling airports the air generator adds (a tiny fuel range is refused, not built)
MAX_STOPS = 20_000


@dataclass(frozen=True)
class Vocabulary:
    """What the entities of the engine are called in one domain (singular, plural)."""

    agent: str
    agents: str
    base: str
    bases: str
    center: str
    centers: str
    item: str
    items: str
    route: str
    unit: str = ""


@dataclass(frozen=True)
class DomainProfile:
    """One domain of §4.7: names, icons, public parameters, roles and constraints.

    ``icons`` maps ``base``/``center``/``item`` (and a base role) to a glyph drawn beside
    a node; ``roles`` are the kinds of base the domain knows (first: the default);
    ``origin_roles``/``dest_roles`` the roles where an item can start/end (empty: any);
    ``params`` the public parameters with their defaults; ``constraints`` says in words
    what :func:`check_world` enforces; ``dynamic`` marks the packet-routing mode.
    """

    name: str
    title: str
    section: str
    vocabulary: Vocabulary
    icons: Mapping[str, str]
    roles: tuple[str, ...] = ()
    origin_roles: tuple[str, ...] = ()
    dest_roles: tuple[str, ...] = ()
    params: Mapping[str, float] = None  # type: ignore[assignment]
    constraints: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    dynamic: bool = False

    def label(self, kind: str, role: str | None = None) -> str:
        """The domain's name of a node kind (``base``/``center``), or of a base role."""
        v = self.vocabulary
        if kind == "center":
            return v.center
        if role == "stop":
            return "refuelling airport"
        if role == "target":
            return "target location"
        return v.base

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "thesis_section": self.section,
                "vocabulary": dict(self.vocabulary.__dict__), "icons": dict(self.icons),
                "roles": list(self.roles), "params": dict(self.params or {}),
                "constraints": list(self.constraints), "metrics": list(self.metrics)}


_PROFILES: dict[str, DomainProfile] = {
    "logistics": DomainProfile(
        "logistics", "Logistics (military units)", "4.3",
        Vocabulary("military unit", "military units", "base", "bases", "logistic center",
                   "logistic centers", "package", "packages", "route"),
        {"base": "●", "center": "■", "item": "▣"}, params={},
        constraints=("areas meet only at public logistic centers",)),
    "packet": DomainProfile(
        "packet", "Packet routing (ad hoc network)", "4.7.1",
        Vocabulary("access point", "access points", "node", "nodes", "router", "routers",
                   "packet", "packets", "link"),
        {"base": "●", "center": "■", "item": "✉"}, params={},
        constraints=("nodes leave and join before each step and before forwarding; broken "
                     "routes are re-planned",), dynamic=True),
    "air": DomainProfile(
        "air", "Airplane transport", "4.7.2",
        Vocabulary("area controller", "area controllers", "airport", "airports",
                   "boundary airport", "boundary airports", "passenger", "passengers",
                   "flight leg", "km"),
        {"base": "✈", "center": "✈", "stop": "⚑", "item": "☺"},
        roles=("airport", "stop"), origin_roles=("airport",), dest_roles=("airport",),
        params={"fuel_range": DEFAULT_FUEL_RANGE},
        constraints=("no flight leg is longer than the public fuel range (km)",
                     "boundary airports (shared by two or three areas) are public; every "
                     "other airport is private to its area controller",
                     "passengers start and end at airports, not at refuelling stops"),
        metrics=("legs", "longest_leg")),
    "rover": DomainProfile(
        "rover", "Rover exploration (Mars)", "4.7.3",
        Vocabulary("rover", "rovers", "location", "locations", "hand-over location",
                   "hand-over locations", "sample", "samples", "traverse", "m"),
        {"base": "◆", "center": "⇄", "target": "✚", "item": "◉"},
        roles=("location", "target"), origin_roles=("target",),
        params={"half_life": DEFAULT_HALF_LIFE},
        constraints=("each rover's locations and targets are private",
                     "a sample changes rover only at a hand-over location reachable by "
                     "exactly two rovers",
                     "samples start at targets and decay: value 2^(-traverse / half_life)"),
        metrics=("sample_value",)),
}


def profile(name: str) -> DomainProfile:
    """The profile called ``name`` (InputError naming ``domain`` otherwise).

    Parameters
    ----------
    name : str
        One of :data:`DOMAINS`.

    Returns
    -------
    DomainProfile
    """
    if name not in _PROFILES:
        raise InputError(f"must be one of {', '.join(DOMAINS)}, got {name!r}", field="domain")
    return _PROFILES[name]


def _positive(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        raise InputError(f"must be a number > 0, got {x!r}", field=name)
    return float(x)


def check_world(world: Any) -> dict[str, Any]:
    """Check ``world`` against its domain's constraints; its completed public parameters.

    Parameters
    ----------
    world : LogisticsWorld
        A world whose ``domain`` is one of :data:`MAP_DOMAINS`.

    Returns
    -------
    dict
        ``domain_params`` with the profile's defaults filled in.

    Raises
    ------
    InputError
        Naming the domain, parameter, node or edge: an unknown domain or parameter, a
        flight leg longer than the fuel range, a base role the domain does not know, a
        hand-over location shared by more than two rovers, an item starting at a base of
        the wrong role.
    """
    name = world.domain
    if name not in MAP_DOMAINS:
        raise InputError(f"a map's domain must be one of {', '.join(MAP_DOMAINS)}, got "
                         f"{name!r}", field="domain")
    prof = _PROFILES[name]
    given = dict(world.domain_params or {})
    for k in given:
        if k not in (prof.params or {}):
            known = ", ".join(prof.params or {}) or "none"
            raise InputError(f"{name} maps have no parameter {k!r} (known: {known})",
                             field=f"domain_params.{k}")
    params = {k: _positive(given.get(k, v), f"domain_params.{k}")
              for k, v in (prof.params or {}).items()}
    g = world.graph
    for v, d in g.nodes(data=True):
        role = d.get("role")
        if role is None:
            continue
        if d["kind"] != "base" or role not in prof.roles:
            raise InputError(f"role {role!r} is not one of a {name} {prof.vocabulary.base}'s "
                             f"roles ({', '.join(prof.roles) or 'none'})", field=f"node {v}")
    if name == "air":
        rng = params["fuel_range"]
        for u, v, d in g.edges(data=True):
            if d["length"] > rng:
                raise InputError(f"flight leg of {d['length']:g} km is longer than the fuel "
                                 f"range {rng:g} km (split it at a refuelling airport)",
                                 field=f"edge {u}-{v}")
    if name == "rover":
        for c, ags in world.members.items():
            if len(ags) != 2:
                raise InputError(f"a hand-over location is reachable by exactly two rovers, "
                                 f"this one by {len(ags)} ({', '.join(ags)})",
                                 field=f"node {c}")
    return params


def check_task(world: Any, task: Any) -> None:
    """Refuse a task whose ends have the wrong role for the world's domain.

    Air passengers start and end at airports (not refuelling stops); rover samples start at
    targets. Called by :func:`core.logistics.model.validate_task` for non-logistics maps.

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    task : Task
        A task whose nodes exist.

    Raises
    ------
    InputError
        On ``origin`` or ``goal``.
    """
    prof = profile(world.domain)
    g = world.graph
    for end, roles, verb, fld in ((task.origin, prof.origin_roles, "start", "origin"),
                                  (task.goal, prof.dest_roles, "end", "goal")):
        if end is not None and roles and _role(prof, g.nodes[end]) not in roles:
            raise InputError(f"{prof.vocabulary.items} {verb} at {' or '.join(roles)} "
                             f"nodes; {end!r} is a {_role(prof, g.nodes[end])}", field=fld)


def _role(prof: DomainProfile, d: Mapping[str, Any]) -> str:
    return str(d.get("role") or (prof.roles[0] if prof.roles else "base"))


# --------------------------------------------------------------------------- generators
def _relabel(world: Any, agent_prefix: str, center_prefix: str,
             base_name: Any) -> tuple[nx.Graph, dict[str, str]]:
    """A copy of ``world``'s graph with the domain's ids (agents, bases, centers)."""
    width = max(2, len(str(len(world.agents) - 1)))
    anames = {a: f"{agent_prefix}{i:0{width}d}" for i, a in enumerate(world.agents)}
    ids: dict[str, str] = {}
    for c in world.center_ids:
        ids[c] = center_prefix + c[1:]
    for a in world.agents:
        for k, b in enumerate(world.bases[a]):
            ids[b] = base_name(anames[a], k + 1)
    g = nx.Graph()
    for v, d in world.graph.nodes(data=True):
        if d["kind"] == "center":
            g.add_node(ids[v], kind="center", agents=[anames[a] for a in d["agents"]],
                       capacity=int(d["capacity"]), pos=d.get("pos"))
        else:
            g.add_node(ids[v], kind="base", agent=anames[d["agent"]], pos=d.get("pos"))
    for u, v, d in world.graph.edges(data=True):
        g.add_edge(ids[u], ids[v], length=float(d["length"]))
    return g, ids


def _rng(seed: "int | np.random.Generator") -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"must be an integer >= 0, got {seed!r}", field="seed")
    return np.random.default_rng(int(seed))


def split_leg(length: float, fuel_range: float) -> list[float]:
    """A hop of ``length`` km as the fewest legs of 0.1 km steps, none above ``fuel_range``.

    Equal legs rounded down to 0.1 km and the remainder as the last; if the remainder is
    above the range (rounding can add up to 0.1 km per leg), one leg more.

    Parameters
    ----------
    length : float
        The hop, > 0.
    fuel_range : float
        The range, > 0.

    Returns
    -------
    list of float
        The legs (summing to ``length`` to 0.1 km).

    Examples
    --------
    >>> split_leg(2099, 300)
    [262.3, 262.3, 262.3, 262.3, 262.3, 262.3, 262.3, 262.9]
    """
    legs = max(1, math.ceil(length / fuel_range))
    while True:
        leg = math.floor(10.0 * length / legs) / 10.0
        last = round(length - leg * (legs - 1), 1)
        if last <= fuel_range and leg <= fuel_range:
            return [leg] * (legs - 1) + [last]
        legs += 1


def _seed_text(seed: Any) -> str:
    return "" if isinstance(seed, np.random.Generator) else f", seed {seed}"


def _generate_air(n_centers: int, rng: np.random.Generator, fuel_range: float,
                  name: str | None, seed: Any) -> Any:
    from core.logistics.examples import generate_world
    from core.logistics.model import LogisticsWorld

    base = generate_world(n_centers, seed=rng, l_target=450.0)
    g, _ = _relabel(base, "area", "B", lambda a, k: f"{a}.ap{k}")
    need = sum(math.ceil(float(d["length"]) / fuel_range) - 1 for *_, d in g.edges(data=True))
    if need > MAX_STOPS:
        raise InputError(f"a fuel range of {fuel_range:g} km would need {need:,} refuelling "
                         f"airports (at most {MAX_STOPS:,}); hops average about 450 km",
                         field="fuel_range")
    stops: dict[str, int] = {}
    for u, v, d in list(g.edges(data=True)):
        length = float(d["length"])
        if length <= fuel_range:
            continue
        parts = split_leg(length, fuel_range)
        legs = len(parts)
        owner = g.nodes[u]["agent"] if g.nodes[u]["kind"] == "base" else g.nodes[v]["agent"]
        g.remove_edge(u, v)
        pu, pv = np.array(g.nodes[u]["pos"]), np.array(g.nodes[v]["pos"])
        chain = [u]
        for k in range(1, legs):
            stops[owner] = stops.get(owner, 0) + 1
            sid = f"{owner}.fs{stops[owner]}"
            p = pu + (pv - pu) * k / legs
            g.add_node(sid, kind="base", agent=owner, role="stop",
                       pos=(round(float(p[0]), 1), round(float(p[1]), 1)))
            chain.append(sid)
        chain.append(v)
        for (a, b), part in zip(zip(chain, chain[1:]), parts):
            g.add_edge(a, b, length=part)
    for _v, d in g.nodes(data=True):
        if d["kind"] == "base" and "role" not in d:
            d["role"] = "airport"
    label = name or f"generated air map (N = {n_centers}{_seed_text(seed)})"
    return LogisticsWorld(g, name=label, domain="air",
                          domain_params={"fuel_range": float(fuel_range)})


def _generate_rover(n_centers: int, rng: np.random.Generator, half_life: float,
                    p_target: float, name: str | None, seed: Any) -> Any:
    from core.logistics.examples import generate_world
    from core.logistics.model import LogisticsWorld

    base = generate_world(n_centers, seed=rng, p_three_way=0.0)
    g, ids = _relabel(base, "rover", "H", lambda a, k: f"{a}.l{k}")
    for a in base.agents:
        bases = [ids[b] for b in base.bases[a]]
        targets = [b for b in bases if rng.random() < p_target] or [
            bases[int(rng.integers(len(bases)))]]
        for b in bases:
            g.nodes[b]["role"] = "target" if b in targets else "location"
    label = name or f"generated rover map (N = {n_centers}{_seed_text(seed)})"
    return LogisticsWorld(g, name=label, domain="rover",
                          domain_params={"half_life": float(half_life)})


def generate_domain_world(domain: str, n_centers: int = 10, *,
                          seed: "int | np.random.Generator" = 0,
                          params: Mapping[str, float] | None = None,
                          name: str | None = None) -> Any:
    """A random world of ``domain``, reproducible from ``seed``.

    ``logistics`` (and ``packet``) is :func:`core.logistics.examples.generate_world`
    itself. ``air`` draws the same structure with lengths in km (mean ≈ 450) and splits
    every hop longer than the fuel range into equal legs through refuelling airports.
    ``rover`` draws it with two-rover hand-over locations only and marks each location a
    target with probability 0.6 (at least one per rover).

    Parameters
    ----------
    domain : str
        One of :data:`DOMAINS`.
    n_centers : int
        Centers (boundary airports, hand-over locations).
    seed : int or numpy.random.Generator
        The randomness.
    params : mapping, optional
        ``fuel_range`` (air) or ``half_life`` (rover); default the profile's.
    name : str, optional
        The map's name.

    Returns
    -------
    LogisticsWorld
    """
    from core.logistics.examples import generate_world

    prof = profile(domain)
    p = {**(prof.params or {}), **dict(params or {})}
    for k in p:
        if k not in (prof.params or {}):
            raise InputError(f"{domain} has no parameter {k!r}", field=k)
        p[k] = _positive(p[k], k)
    rng = _rng(seed)
    if domain == "air":
        return _generate_air(n_centers, rng, p["fuel_range"], name, seed)
    if domain == "rover":
        return _generate_rover(n_centers, rng, p["half_life"], 0.6, name, seed)
    return generate_world(n_centers, seed=seed, name=name)  # the seed as given: same name


def domain_tasks(world: Any, *, p_package: float = 0.2,
                 rng: "int | np.random.Generator" = 0) -> tuple[Any, ...]:
    """One round of items: :func:`core.logistics.examples.generate_tasks` for logistics;
    otherwise each base of an origin role (air: airport, rover: target) holds one with
    probability ``p_package``, bound for a uniform base of an origin role of another
    agent (air), or for a uniform location of another rover (rover), in random order.

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    p_package : float
        Chance per origin base.
    rng : int or numpy.random.Generator
        The randomness.

    Returns
    -------
    tuple of Task
    """
    from core.logistics.examples import draw_tasks, generate_tasks

    if world.domain == "logistics":
        return generate_tasks(world, p_package=p_package, rng=rng)
    if not 0.0 <= float(p_package) <= 1.0:
        raise InputError(f"must lie in [0, 1], got {p_package!r}", field="p_package")
    prof = _PROFILES[world.domain]
    g = _rng(rng) if not isinstance(rng, np.random.Generator) else rng
    nodes = world.graph.nodes
    all_bases = [(a, b) for a in world.agents for b in world.bases[a]]
    origins = [(a, b) for a, b in all_bases if _role(prof, nodes[b]) in prof.origin_roles]
    dests = [(a, b) for a, b in all_bases
             if not prof.dest_roles or _role(prof, nodes[b]) in prof.dest_roles]
    return draw_tasks(origins, dests, p_package, g)


# --------------------------------------------------------------------------- plan metrics
def route_handovers(world: Any, route: Sequence[str]) -> list[tuple[str, str, str]]:
    """Where the item changes agent along an executed ``route``: (from, to, node).

    Parameters
    ----------
    world : LogisticsWorld
        The (static) map the route was executed on.
    route : sequence of str
        The executed node sequence, origin first.

    Returns
    -------
    list of tuple
        ``(agent before, agent after, node)`` at every change of the carrying agent.

    Raises
    ------
    ValueError
        If two consecutive nodes are not joined by a route of the map, or the item changes
        agent anywhere but at a center both agents share.
    """
    g = world.graph
    out: list[tuple[str, str, str]] = []
    prev: str | None = None
    for u, v in zip(route, route[1:]):
        if not g.has_edge(u, v):
            raise ValueError(f"{u} and {v} are not joined by a route of the map")
        owner = str(g.edges[u, v]["agent"])
        if prev is not None and owner != prev:
            d = g.nodes[u]
            if d["kind"] != "center" or not {prev, owner} <= set(d["agents"]):
                raise ValueError(f"the item changes from {prev} to {owner} at {u}, which is "
                                 "not a center both share")
            out.append((prev, owner, u))
        prev = owner
    return out


def plan_metrics(world: Any, result: Any) -> dict[str, float | None]:
    """The domain's own figures of one executed plan (empty for logistics and packet).

    air: ``legs`` (flight legs flown) and ``longest_leg`` (km; never above the fuel range);
    rover: ``sample_value`` (``2 ** (-length / half_life)``, 0 if not delivered) and
    ``handovers`` (changes of rover).

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    result : PlanResult
        The executed plan.

    Returns
    -------
    dict
    """
    if world.domain == "air":
        if not result.success:
            return {"legs": None, "longest_leg": None}
        g = world.graph
        lens = [float(g.edges[u, v]["length"]) for u, v in zip(result.route, result.route[1:])]
        return {"legs": float(len(lens)), "longest_leg": max(lens) if lens else 0.0}
    if world.domain == "rover":
        hl = float(world.domain_params["half_life"])
        if not result.success:
            return {"sample_value": 0.0, "handovers": None}
        return {"sample_value": float(2.0 ** (-float(result.length) / hl)),
                "handovers": float(len(route_handovers(world, result.route)))}
    return {}
