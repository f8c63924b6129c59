"""What the logistics workspace's halves share: texts, worker jobs and the map's structure.

The tooltips explain each privacy parameter; :func:`generate_job` runs in the workspace's
worker (it takes and returns plain data, never a widget); a plan runs
:func:`core.logistics.release.plan_release` there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from core.logistics import THESIS_FLAWS, map_to_dict

__all__ = ["APPROACH_TEXT", "TOOLTIPS", "AUTO_BUDGET", "generate_job",
           "map_structure"]

APPROACH_TEXT = {
    "dp": ("DP-based", "The thesis's method: query flooding (Step 1), obfuscated maps and "
                       "route probabilities from the intermediate agents (Step 2), a center "
                       "route from estimated crossings (Step 3)."),
    "noprivacy": ("No-privacy", "The same steps and messages, but the agents share exact "
                                "crossing distances: the upper reference for route quality."),
    "bestfirst": ("Best-first", "Hop by hop: the holder broadcasts at every center and the "
                                "nearest agent takes the package (it can loop)."),
    "greedy": ("Greedy (GPPP)", "A global plan over the public center graph by hop count, "
                                "then exact local legs."),
    "simplified": ("Simplified", "Thesis 4.5.4: the centers plan with exact crossing lengths "
                                 "declared public (Dijkstra, one message per center on the "
                                 "path)."),
}

TOOLTIPS = {
    "epsilon": "ε (epsilon): each agent's privacy budget for its map. Smaller ε = more noise "
               "on its topology and route probabilities = more private, and usually worse "
               "routes. Must be > 0.",
    "budget": "C: the communication budget, in messages per agent and run (the thesis counts "
              "ε/C per message). When an agent has sent C messages it stops communicating. "
              "“auto” is N + 30 for N centers (spec §6.4: 40–80).",
    "preset": "sound (default): proves ε per agent (node adjacency). ε is split between "
              "topology and probabilities, node-DP sensitivity 2·d_max + 1 with the map's "
              "declared degree cap, a released map that is pure post-processing of the noisy "
              "degree histogram (no real base or route kept), Laplace noise on the released "
              "probabilities.\nthesis: the method exactly as written; it proves NO finite ε "
              "(shown as ∞ with the reason). Its flaws:\n• " + "\n• ".join(THESIS_FLAWS),
    "mode": "Seeded experiment: the noise is reproducible from the seed; its ledger entries are "
            "listed but not spent. Release mode: secure noise from the OS; the releases count "
            "against each agent's budget.",
    "origin": "V_S: the base where the package starts. Its agent is the origin agent, who "
              "plans the route.",
    "goal_agent": "The agent whose area holds the destination. The origin knows only this "
                  "agent, not the goal base (spec §1.2).",
    "goal": "The destination base, known only to the goal agent. “any” = the goal agent "
            "delivers to its base nearest to where it receives the package.",
}
#: The budget spin box's "auto" value.
AUTO_BUDGET = -1


# ---------------------------------------------------------------------------- worker jobs
def generate_job(n_centers: int, seed: int, with_tasks: bool, domain: str = "logistics", *,
                 progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Generate a world (spec §6.4; air/rover: their domain's generator) and return its map
    dict (runs in the worker)."""
    from core.logistics import LogisticsWorld, generate_tasks, generate_world

    progress(0.0, "generating")
    if domain != "logistics":
        from core.logistics.domains import domain_tasks, generate_domain_world, profile

        w = generate_domain_world(domain, n_centers, seed=seed)
        if with_tasks:
            w = LogisticsWorld(w.graph, name=w.name, tasks=domain_tasks(w, rng=seed),
                               degree_cap=w.degree_cap, domain=w.domain,
                               domain_params=w.domain_params,
                               note=f"one round of {profile(domain).vocabulary.items} "
                                    "(p = 0.2 per origin)")
        progress(1.0, "done")
        return map_to_dict(w)
    w = generate_world(n_centers, seed=seed, name=f"generated world (N = {n_centers}, seed "
                                                  f"{seed})")
    if with_tasks:
        tasks = generate_tasks(w, rng=seed)
        w = LogisticsWorld(w.graph, name=w.name, tasks=tasks, degree_cap=w.degree_cap,
                           note=f"spec §6.4 generator: {n_centers} centers, {len(w.agents)} "
                                "agents with 5 bases each; tasks: one round of packages "
                                "(p = 0.2 per base)")
    progress(1.0, "done")
    return map_to_dict(w)


def map_structure(d: Mapping[str, Any] | None) -> str:
    """The map without positions (a moved node does not invalidate a route overlay)."""
    if d is None:
        return ""
    nodes = [{k: v for k, v in n.items() if k != "pos"} for n in d.get("nodes", ())]
    return json.dumps([nodes, d.get("edges", [])], sort_keys=True)
