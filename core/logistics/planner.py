"""The DP multi-agent planner of spec §3 (Alg 6 in three steps) and its session state.

Size: the planner's session state (ledgers, published maps, route memo) and the three steps of
Algorithm 6 that read and update it; the steps change one PlanningSession, so they live with it.

A :class:`PlanningSession` is one run over one world: per-agent communication ledgers
(budget C messages, each "costing" ε/C), per-agent privacy ledgers, each agent's
published (obfuscated) map — built **once per run** on first request and cached, also at
receivers (spec F10) — and each origin's route memo (Remark 4). :meth:`PlanningSession.plan`
plans and executes one task and returns a frozen :class:`PlanResult`.

Approaches: ``"dp"`` (the method), ``"noprivacy"`` (same steps and messages, exact
crossing lengths and goal leg), ``"bestfirst"`` and ``"greedy"`` (spec §6.2, in
:mod:`core.logistics.baselines`).

* **Step 1** (§3.2): the origin floods a query through the centers, BFS level by level
  (sorted ids), one message per post at a center, never posting at a center it received
  the query through; agents at the goal's level are not expanded; convergecast replies
  along the BFS tree build the high-level agent–center map H; intermediate agents are
  those with dist(a,x) + dist(x,g) ≤ L_g + slack.
* **Step 2** (§3.4–3.6): requests and replies relayed hop by hop along the tree; each
  intermediate agent publishes Alg 7's obfuscated topology, Alg 8's route probabilities
  per destination center and their redistribution (Eq. 4.2 softmax, or the sound
  Laplace-vector release), with every noise draw recorded in its privacy ledger.
* **Step 3** (§3.7): the origin turns the released probabilities into crossing
  estimates (policy evaluation, or the thesis's inverse-probability Dijkstra scaled by
  its own mean length), picks the shortest center route, hands over at centers, and
  every agent on the route executes its exact local leg on its true current map.

Presets (spec §3.9): ``sound`` (default) and ``thesis`` (faithful; its flaws are listed
in :data:`THESIS_FLAWS` and in every result of the preset).

**What a run proves** (:func:`preset_guarantee`, :meth:`PlanningSession.guarantee`). Every
release is a privacy-ledger entry of its agent, with the ε it *proves* — ``math.inf`` and
the reason where it proves none — and the headline ε of a run is, per agent, the basic
composition of its entries (agents' maps are disjoint, so across agents it is the maximum).
The ``sound`` preset (public d_max, node-DP sensitivity 2·d_max + 1, ``pure_postprocessing``
rewiring, Laplace-vector probabilities computed on the fake map) proves ε per agent under
node adjacency. The ``thesis`` preset proves nothing (F3 local d_max, F4 overlap rewiring,
F5 deterministic softmax); neither does ``rewire="overlap"`` in any preset. No-privacy and
Best-first send exact distances (unbounded entries); Greedy sends nothing private (0).

**What leaves an agent** is a :class:`ReleasedMap` (``PublishedMap.released``): public
center names, opaque random ids for every other node, nodes and routes in a random order,
route probabilities — never lengths, real names or fake flags. The receiver's crossing
estimates are computed from it alone.

Examples
--------
>>> from core.logistics.examples import fig41, FIG41_TASK
>>> s = PlanningSession(fig41(), approach="noprivacy", rng=0)
>>> r = s.plan(FIG41_TASK)
>>> r.success, r.length, r.centers, r.agents, r.messages
(True, 550.0, ('A', 'B', 'E', 'F'), ('a', 'b', 'e', 'f'), 24)
"""

from __future__ import annotations

import heapq
import math
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import networkx as nx
import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.validation import (
    check_beta,
    check_choice,
    check_finite,
    check_flag,
    check_int,
    check_non_negative,
    check_positive,
    check_probability,
)
from core.logistics.baselines import RESTART_REASON, best_first, greedy
from core.logistics.center_rl import SOLVERS, LearningCurve, rl_center_route
from core.logistics.model import (
    DEFAULT_DEGREE_CAP,
    LogisticsWorld,
    Task,
    mean_length,
    validate_task,
)
from core.logistics.obfuscation import (
    NODE_ADJACENCY,
    REWIRE_MODES,
    SENSITIVITY_MODES,
    ObfuscatedTopology,
    em_softmax,
    histogram_sensitivity,
    obfuscate_topology,
    topology_guarantee,
)
from core.logistics.randomness import SecureGenerator
from core.logistics.route_rl import (
    REWARD_MODES,
    Policy,
    greedy_path,
    hitting_steps,
    inverse_prob_distances,
    rl_policy,
)
from core.logistics.routing import Dynamics, LiveWorld
from core.logistics.strategy import STATUSES, Discovery, MessageCount, PlanResult, Strategy
from core.privacy.laplace import check_epsilon, laplace_release
from core.privacy.ledger import PrivacyLedger

__all__ = ["center_route", "PRESETS", "APPROACHES", "STATUSES", "THESIS_FLAWS", "SOUND_CAVEATS",
           "PlannerParams", "CommLedger", "PublishedMap", "ReleasedMap", "Discovery",
           "PlanResult", "PlanningSession", "plan_task", "Guarantee", "preset_guarantee",
           "probability_guarantee", "crossing_estimates", "histogram_setup", "F5_REASON",
           "F6_REASON", "STRATEGIES", "MessageCount", "MAX_REPLANS", "BROKEN_REASON",
           "LEG_DONE_RELEASE"]

PRESETS = ("sound", "thesis")
APPROACHES = ("dp", "noprivacy", "bestfirst", "greedy", "simplified")

THESIS_FLAWS = (
    "F1: the Laplace and exponential steps both spend epsilon on the same map; sequential "
    "composition gives 2*epsilon, not epsilon",
    "F2: Delta_S = 1 per bin is wrong under node adjacency: removing a node of degree d moves "
    "the histogram by up to 2d+1, so the real loss is up to (2*d_max+1)/d_max * epsilon",
    "F3: d_max is the map's own maximum degree, so the histogram length and the noise scale "
    "leak data",
    "F4: rewiring keeps real routes and lengths, so the released topology is not "
    "post-processing of the noisy histogram",
    "F5: Eq. 4.2 is a deterministic softmax: given epsilon the released probabilities invert "
    "exactly to the RL probabilities (no DP for lengths)",
    "F6: parallel composition across nodes is invalid: one length changes the policy at "
    "many nodes",
    "F7: one annotation per destination center re-uses the mechanism (sequential, not "
    "accounted)",
    "F8: Lemma 4.1 (connectivity) is not automatic; PrivPlan enforces it in the rewiring",
    "F9: Corollary 4.1's ceil(Delta_S*d_max/epsilon) nodes is a heuristic, not a guarantee",
    "RL: rewards 200/length with no terminal state favour long reward-collecting walks; the "
    "listing trains one episode",
    "Step 3: converting sharp probabilities with the inverse rule makes crossings look "
    "near 0 (non-monotone in epsilon)",
)

SOUND_CAVEATS = (
    "topology: the released map is pure post-processing of the noisy 1K histogram "
    "(pure_postprocessing rewiring: no real base or route is kept), epsilon_L-DP under node "
    "adjacency with the declared d_max; rewire='overlap' keeps real routes (spec F4) and "
    "then no finite epsilon is proven",
    "lengths: never released; the route probabilities are computed on the fake map only, "
    "so their Laplace-vector release is post-processing too (its epsilon_E is charged "
    "anyway, a conservative upper bound)",
    "degree bound: a map with a node above d_max is refused (nothing is released)",
    "messages: the budget C caps messages per agent (epsilon/C per message is bookkeeping, "
    "not noise)",
)

F5_REASON = ("F5: the Eq. 4.2 softmax is deterministic; given epsilon the released "
             "probabilities invert exactly to the RL probabilities")
#: re-plans from a broken crossing before a task fails with ``fail_broken``
MAX_REPLANS = 3

LEG_DONE_RELEASE = ("the completion of its leg under dynamics (a broken leg would have been "
                    "announced by a new finding process)")

BROKEN_REASON = ("a holder that cannot cross its area between two centers any more "
                 "announces it by re-planning: whether it can depends on its private "
                 "topology (no finite bound)")


F6_REASON = ("F6: the probabilities are trained on real routes and lengths (overlap "
             "rewiring), and one length changes them at many nodes; no adjacency bounds them")


def _choice(options: Iterable[str]) -> Callable[[Any, str], Any]:
    names = tuple(options)
    return lambda value, name: check_choice(value, names, name)


def _optional(check: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    return lambda value, name: None if value is None else check(value, name)


def _int_from(minimum: int) -> Callable[[Any, str], Any]:
    return lambda value, name: check_int(value, name, minimum=minimum)


#: The one check of each :class:`PlannerParams` field, in the order they run (every
#: :class:`InputError` names its field); ``fake_len_high >= fake_len_low`` is checked after.
PLANNER_CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "preset": _choice(PRESETS), "high_level_solver": _choice(SOLVERS),
    "rl_route_episodes": _int_from(1), "epsilon": check_epsilon,
    "eps_split": _choice(("thesis", "split")), "rho_laplace": check_beta,
    "delta_s": check_positive, "laplace_sensitivity": _choice(SENSITIVITY_MODES),
    "dmax_mode": _choice(("local", "public_cap")), "d_max": _optional(_int_from(2)),
    "rewire": _choice(REWIRE_MODES), "bin_clip": _optional(_int_from(1)),
    "fake_len_low": check_positive, "fake_len_high": check_positive,
    "rl_alpha": check_probability, "rl_gamma": check_probability,
    "rl_zeta": check_probability, "rl_episodes": _int_from(0),
    "rl_max_steps_factor": _int_from(1), "rl_reward_mode": _choice(REWARD_MODES),
    "reward_const": check_finite, "q_init_const": check_finite,
    "terminal_at_dest": check_flag, "goal_bonus": check_finite,
    "pi_floor": check_probability, "em_mode": _choice(("softmax", "laplace_vector")),
    "em_split": _choice(("per_edge", "per_node")), "delta_u": check_positive,
    "split_eps_over_destinations": check_flag,
    "crossing_estimator": _choice(("policy_evaluation", "inverse_prob_dijkstra")),
    "goal_leg_mode": _choice(("uniform", "exact")), "slack_levels": _int_from(0),
    "comm_budget": _optional(lambda v, n: check_non_negative(v, n, allow_inf=True)),
    "memo": check_flag, "p_explore": check_probability,
}


@dataclass(frozen=True)
class PlannerParams:
    """Every knob of spec §3.9. Build with :meth:`preset` (``sound`` default, ``thesis``).

    ``comm_budget`` is C messages per agent per run: ``None`` means N_centers + 30 (spec
    §6.4: 40–80 for 10–50 centers), ``math.inf`` unlimited. ``d_max`` is the public degree
    bound of the histogram (``dmax_mode="public_cap"``): ``None`` means the map's declared
    ``degree_cap`` (4 unless the map file says otherwise); a value below it is refused.

    Frozen and validated once, in ``__post_init__``: :data:`PLANNER_CHECKS` holds one check
    per field (the shared helpers of :mod:`core.common.validation`), each
    :class:`InputError` naming its field. :meth:`to_dict` and :meth:`from_dict` round-trip.
    """

    preset: str = "sound"
    epsilon: float = 0.5
    eps_split: str = "split"
    rho_laplace: float = 0.5
    delta_s: float = 1.0
    laplace_sensitivity: str = "node_dp_l1"
    dmax_mode: str = "public_cap"
    d_max: int | None = None
    rewire: str = "pure_postprocessing"
    bin_clip: int | None = 10
    fake_len_low: float = 0.5
    fake_len_high: float = 1.5
    rl_alpha: float = 0.1
    rl_gamma: float = 0.9
    rl_zeta: float = 0.95
    rl_episodes: int = 300
    rl_max_steps_factor: int = 4
    rl_reward_mode: str = "neg_length"
    reward_const: float = 200.0
    q_init_const: float = 100.0
    terminal_at_dest: bool = True
    goal_bonus: float = 0.0
    pi_floor: float = 1e-3
    em_mode: str = "laplace_vector"
    em_split: str = "per_edge"
    delta_u: float = 1.0
    split_eps_over_destinations: bool = True
    crossing_estimator: str = "policy_evaluation"
    goal_leg_mode: str = "uniform"
    slack_levels: int = 1
    comm_budget: float | None = None
    memo: bool = True
    p_explore: float = 0.1
    high_level_solver: str = "dijkstra"
    rl_route_episodes: int = 300

    def __post_init__(self) -> None:
        for name, check in PLANNER_CHECKS.items():
            check(getattr(self, name), name)
        if self.fake_len_high < self.fake_len_low:
            raise InputError(f"must be >= fake_len_low ({self.fake_len_low!r}), got "
                             f"{self.fake_len_high!r}", field="fake_len_high")

    @classmethod
    def preset_params(cls, name: str = "sound", **overrides: Any) -> "PlannerParams":
        """The ``sound`` or ``thesis`` preset of spec §3.9, with ``overrides`` applied.

        Examples
        --------
        >>> p = PlannerParams.preset_params("thesis", epsilon=0.8)
        >>> p.em_mode, p.crossing_estimator, p.epsilon_laplace, p.epsilon_exponential
        ('softmax', 'inverse_prob_dijkstra', 0.8, 0.8)
        """
        check_choice(name, PRESETS, "preset")
        if name == "thesis":
            base = dict(preset="thesis", eps_split="thesis", laplace_sensitivity="thesis",
                        dmax_mode="local", rewire="overlap", bin_clip=None, rl_episodes=1,
                        rl_reward_mode="thesis_inverse",
                        terminal_at_dest=False, em_mode="softmax", em_split="per_edge",
                        split_eps_over_destinations=False,
                        crossing_estimator="inverse_prob_dijkstra")
        else:
            base = dict(preset="sound")
        names = {f.name for f in fields(cls)}
        for k in overrides:
            if k not in names:
                raise InputError(f"unknown planner parameter {k!r}", field=k)
        base.update(overrides)
        return cls(**base)  # type: ignore[arg-type]

    @property
    def epsilon_laplace(self) -> float:
        return self.epsilon if self.eps_split == "thesis" else self.rho_laplace * self.epsilon

    @property
    def epsilon_exponential(self) -> float:
        return self.epsilon if self.eps_split == "thesis" else (
            (1.0 - self.rho_laplace) * self.epsilon)

    def to_dict(self) -> dict[str, Any]:
        """Every field (``comm_budget`` infinity as ``"unlimited"``): a run record's
        ``params["planner"]``; :meth:`from_dict` reads it back."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        if d["comm_budget"] is not None and math.isinf(d["comm_budget"]):
            d["comm_budget"] = "unlimited"
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PlannerParams":
        """The parameters of :meth:`to_dict` (missing fields take their defaults; an
        unknown one is an :class:`InputError` naming it).

        Examples
        --------
        >>> p = PlannerParams.preset_params("thesis", comm_budget=math.inf)
        >>> PlannerParams.from_dict(p.to_dict()) == p
        True
        """
        if not isinstance(d, dict):
            raise InputError(f"must be an object, got {d!r}", field="planner")
        names = {f.name for f in fields(cls)}
        for k in d:
            if k not in names:
                raise InputError(f"unknown planner parameter {k!r}", field=str(k))
        values = dict(d)
        if values.get("comm_budget") == "unlimited":
            values["comm_budget"] = math.inf
        return cls(**values)


@dataclass
class CommLedger:
    """Messages an agent may still send: ``budget`` C per run; each costs ε/C (§4.6.4)."""

    budget: float
    epsilon: float
    sent: int = 0

    def can_send(self, n: int = 1) -> bool:
        return self.sent + n <= self.budget

    def spend(self, n: int = 1) -> None:
        self.sent += n

    @property
    def epsilon_used(self) -> float:
        """ε·sent/C: the thesis's per-message bookkeeping (0 with an unlimited budget)."""
        return 0.0 if math.isinf(self.budget) or self.budget == 0 else (
            self.epsilon * self.sent / self.budget)


@dataclass(frozen=True, eq=False)
class ReleasedMap:
    """Exactly what agent ``owner`` sends in its MAP_REPLY (Fig 4.4(d)) — nothing else.

    ``nodes`` in release order (a uniformly random order: fake and real interleaved),
    public center names and opaque random ids for every other node; ``edges`` in release
    order (random order and orientation); ``policy[t][v][u]`` the released probability of
    taking route v→u towards destination center t (destinations sorted, nodes in release
    order). No lengths, real names or fake flags.
    """

    owner: str
    nodes: tuple[str, ...]
    centers: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    policy: dict[str, Policy]

    def graph(self) -> nx.Graph:
        """The released topology (node attribute ``kind``: ``center`` or ``node``)."""
        g = nx.Graph()
        cs = set(self.centers)
        for v in self.nodes:
            g.add_node(v, kind="center" if v in cs else "node")
        g.add_edges_from(self.edges)
        return g

    def to_dict(self) -> dict[str, Any]:
        """The message as JSON-able data (same order as sent)."""
        cs = set(self.centers)
        return {"owner": self.owner,
                "nodes": [{"id": v, "kind": "center" if v in cs else "node"}
                          for v in self.nodes],
                "edges": [[u, v] for u, v in self.edges],
                "policy": {t: {v: dict(row) for v, row in pol.items()}
                           for t, pol in self.policy.items()}}

    @classmethod
    def from_topology(cls, owner: str, topo: nx.Graph, policy: dict[str, Policy]
                      ) -> "ReleasedMap":
        nodes = tuple(topo.nodes)
        pos = {v: i for i, v in enumerate(nodes)}
        centers = tuple(sorted(v for v, d in topo.nodes(data=True) if d["kind"] == "center"))
        pol = {t: {v: {u: float(policy[t][v][u]) for u in sorted(policy[t][v], key=pos.__getitem__)}
                   for v in nodes if v in policy[t]} for t in sorted(policy)}
        return cls(owner=owner, nodes=nodes, centers=centers, edges=tuple(topo.edges()),
                   policy=pol)


def crossing_estimates(released: ReleasedMap, estimator: str
                       ) -> dict[tuple[str, str], tuple[float, tuple[str, ...]]]:
    """Crossing estimates (s, t) → (steps, display path) from a :class:`ReleasedMap` alone.

    ``policy_evaluation``: expected steps of a walk following the released policy;
    ``inverse_prob_dijkstra``: the thesis's inverse-probability lengths with L̄ = 1 (the
    receiver scales by its own mean length).

    Parameters
    ----------
    released : ReleasedMap
        What an agent published (topology and route probabilities).
    estimator : str
        ``"policy_evaluation"`` or ``"inverse_prob_dijkstra"``.

    Returns
    -------
    dict
        ``{(center s, center t): (estimate, display path)}``; ``inf`` where t is not reached.
    """
    topo = released.graph()
    n = topo.number_of_nodes()
    out: dict[tuple[str, str], tuple[float, tuple[str, ...]]] = {}
    for t, pol in released.policy.items():
        if estimator == "policy_evaluation":
            h = hitting_steps(topo, pol, t)
            for s in released.centers:
                if s != t:
                    out[(s, t)] = (h[s], tuple(greedy_path(pol, s, t, n)))
        else:
            dist, nxt = inverse_prob_distances(topo, pol, t, 1.0)
            for s in released.centers:
                if s != t and s in dist:
                    path = [s]
                    while path[-1] != t and len(path) <= n:
                        path.append(nxt[path[-1]])
                    out[(s, t)] = (dist[s], tuple(path))
    return out


@dataclass(frozen=True, eq=False)
class PublishedMap:
    """Agent ``owner``'s Step-2 artefact: what it sends (``released``) and its private side.

    ``released`` (a :class:`ReleasedMap`) is the only part that leaves the agent;
    ``topology`` and ``policy`` are its graph and probabilities. ``obfuscated`` (with
    lengths, real names and fake flags) and ``rl_policy`` (before redistribution) are the
    owner's private artefacts, kept for the inspector (Fig 4.4 (b)–(c)).
    ``crossings[(s, t)]`` = (estimate in units of the receiver's mean length, display
    path), computed by :func:`crossing_estimates` from ``released`` only.
    """

    owner: str
    topology: nx.Graph
    centers: tuple[str, ...]
    policy: dict[str, Policy]
    obfuscated: ObfuscatedTopology
    rl_policy: dict[str, Policy]
    epsilon_laplace: float
    epsilon_per_destination: float
    crossings: dict[tuple[str, str], tuple[float, tuple[str, ...]]]
    released: ReleasedMap


@dataclass(frozen=True)
class Guarantee:
    """A privacy statement stated whole: (ε, δ), adjacency, scope and public parameters.

    ``epsilon`` is ``math.inf`` when nothing is proven; ``reason`` then says why.
    """

    epsilon: float
    delta: float
    adjacency: str
    reason: str = ""
    scope: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.epsilon)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``epsilon`` null with ``epsilon_reason`` when unbounded."""
        d: dict[str, Any] = {"epsilon": self.epsilon if self.bounded else None,
                             "delta": self.delta, "adjacency": self.adjacency,
                             "scope": self.scope, "public_parameters": dict(self.parameters)}
        if not self.bounded:
            d["epsilon_reason"] = self.reason or "no finite bound"
        return d

    def text(self) -> str:
        """One line for text outputs."""
        if not self.bounded:
            return f"no proven bound (epsilon unbounded): {self.reason}"
        return f"epsilon = {self.epsilon:.4g}, delta = {self.delta:g} ({self.scope})"


_SCOPE = ("per agent: each agent's map is its own dataset and agents' maps are disjoint "
          "(parallel composition across agents); an agent publishes once per run (cached)")


def histogram_setup(params: "PlannerParams", local: nx.Graph, d_max: int
                    ) -> tuple[int, bool, float]:
    """(d_max used, whether it is public, histogram L1 sensitivity) for one local map.

    ``public_cap``: the declared ``d_max`` (public); ``local`` (thesis): the map's own
    maximum degree (spec F3). Shared by the planner and the audit (core/audit/logistics).

    Parameters
    ----------
    params : PlannerParams
        Its ``dmax_mode`` and ``laplace_sensitivity`` choose.
    local : networkx.Graph
        The local map (its maximum degree in ``local`` mode).
    d_max : int
        The declared cap of ``public_cap`` mode.

    Returns
    -------
    (int, bool, float)
    """
    public = params.dmax_mode == "public_cap"
    dmax = int(d_max) if public else max((d for _, d in local.degree()), default=1)
    return dmax, public, histogram_sensitivity(params.laplace_sensitivity, dmax,
                                               params.delta_s)


def probability_guarantee(p: "PlannerParams", n_destinations: int | None = None
                          ) -> tuple[float, str]:
    """(ε proven for one agent's route-probability releases, reason if none).

    Finite only for the Laplace-vector release under ``pure_postprocessing`` rewiring
    (probabilities computed on the fake map: post-processing, charged at their nominal
    ε_E — split over the destinations, or ε_E per destination × ``n_destinations``).

    Parameters
    ----------
    p : PlannerParams
        The planner's parameters.
    n_destinations : int, optional
        How many destinations an agent releases probabilities for, when each gets ε_E.

    Returns
    -------
    (float, str)
        ε (``math.inf`` when none is proven) and the reason.
    """
    if p.em_mode == "softmax":
        return math.inf, F5_REASON
    if p.rewire == "overlap":
        return math.inf, F6_REASON
    if p.split_eps_over_destinations:
        return p.epsilon_exponential, ""
    if n_destinations is None:
        raise ValueError("n_destinations is needed when epsilon is not split over them")
    return p.epsilon_exponential * int(n_destinations), ""


def _announces_breaks(approach: str, dynamics: Dynamics | None) -> str:
    """The reason a run with ``dynamics`` proves no finite ε for ``approach`` ("" if none)."""
    if dynamics is None or not dynamics.active or dynamics.p_leave <= 0:
        return ""
    if approach in ("bestfirst", "greedy"):
        return RESTART_REASON
    if dynamics.splits_areas:
        return BROKEN_REASON
    return ""


def preset_guarantee(params: "PlannerParams", approach: str = "dp",
                     d_max: int | None = None, n_destinations: int | None = None,
                     dynamics: Dynamics | None = None) -> Guarantee:
    """What a run of ``approach`` with ``params`` proves per agent, from public parameters.

    ``d_max``: the declared degree bound (default ``params.d_max`` or the default map cap).
    With ``dynamics`` under which a leg can break beyond local repair (leaving nodes, and
    for DP-based, No-privacy and simplified an area that may split), an agent announces a
    broken leg by a new finding process; whether its leg broke depends on its private
    topology, so no finite ε is proven (:data:`BROKEN_REASON`, ``RESTART_REASON``).

    Parameters
    ----------
    params : PlannerParams
        The planner's parameters.
    approach : str
        ``"dp"``, ``"noprivacy"``, ``"bestfirst"`` or ``"greedy"``.
    d_max : int, optional
        The declared degree bound.
    n_destinations : int, optional
        See :func:`probability_guarantee`.

    Returns
    -------
    Guarantee
        ε, δ, adjacency and scope per agent (ε = ∞ with the reason when none is proven).

    Examples
    --------
    >>> g = preset_guarantee(PlannerParams.preset_params("sound", epsilon=0.5))
    >>> g.epsilon, g.delta, g.bounded
    (0.5, 0.0, True)
    >>> t = preset_guarantee(PlannerParams.preset_params("thesis", epsilon=0.5))
    >>> t.epsilon, t.reason.split(":")[0]
    (inf, 'F3')
    >>> preset_guarantee(PlannerParams(), "greedy").epsilon
    0.0
    >>> preset_guarantee(PlannerParams(), "greedy", dynamics=Dynamics(0.1, 0.1)).epsilon
    inf
    >>> preset_guarantee(PlannerParams(), "dp", dynamics=Dynamics(0.1, 0.1)).epsilon
    0.5
    >>> preset_guarantee(PlannerParams(), "dp", dynamics=Dynamics(0.1, 0.1,
    ...                  connectivity="network")).bounded
    False
    """
    p = params
    D = int(d_max if d_max is not None else (p.d_max or DEFAULT_DEGREE_CAP))
    breaks = _announces_breaks(approach, dynamics)
    if breaks:
        g0 = preset_guarantee(params, approach, d_max, n_destinations)
        why = "; ".join(r for r in (g0.reason, breaks) if r)
        return replace(g0, epsilon=math.inf, reason=why)
    if approach == "greedy":
        return Guarantee(0.0, 0.0, "any: nothing private leaves an agent (the global plan uses "
                         "the public center graph; local legs stay private)", scope=_SCOPE)
    if approach == "simplified":
        return Guarantee(0.0, 0.0, "topologies with equal crossing lengths between centers: "
                         "the simplified mode (§4.5.4) declares the crossing lengths public "
                         "and releases them exactly; nothing else leaves an agent",
                         scope=_SCOPE)
    if approach == "noprivacy":
        return Guarantee(math.inf, 0.0, "none", reason="No-privacy baseline: intermediate "
                         "agents send their exact crossing lengths", scope=_SCOPE)
    if approach == "bestfirst":
        return Guarantee(math.inf, 0.0, "none", reason="Best-first baseline: agents at a "
                         "center reply with their exact local distances", scope=_SCOPE)
    check_choice(approach, APPROACHES, "approach")
    public = p.dmax_mode == "public_cap"
    e_t, why_t = topology_guarantee(p.epsilon_laplace, dmax=D, sensitivity_mode=(
        p.laplace_sensitivity), delta_s=p.delta_s, rewire=p.rewire, dmax_public=public)
    e_p, why_p = probability_guarantee(p, n_destinations)
    reason = "; ".join(dict.fromkeys(r for r in (why_t, why_p) if r))
    eps = e_t + e_p if not reason else math.inf
    params_out = {"epsilon": p.epsilon, "epsilon_laplace": p.epsilon_laplace,
                  "epsilon_exponential": p.epsilon_exponential,
                  "d_max": D if public else "local (the map's own maximum degree)",
                  "laplace_sensitivity": p.laplace_sensitivity, "rewire": p.rewire,
                  "em_mode": p.em_mode, "bin_clip": p.bin_clip,
                  "split_eps_over_destinations": p.split_eps_over_destinations}
    adj = (NODE_ADJACENCY + "; route lengths are never released and, with "
           "pure_postprocessing rewiring, do not influence the release")
    return Guarantee(eps, 0.0, adj, reason=reason, scope=_SCOPE, parameters=params_out)


@dataclass
class _Memo:
    discovery: Discovery
    posts: int
    estimate: float


_ORIGIN, _GOAL = "\x00origin", "\x00goal"


@dataclass
class _Flood:
    """Step 1's query flood so far: each agent's level and parent (agent, center) in the
    flooding tree, the centers each agent heard the query at, the posts made, and
    whether the budget blocked a post, the post cap was reached or the goal was found."""

    origin: str
    goal: str
    level: dict[str, int]
    parent: dict[str, tuple[str, str] | None]
    got: dict[str, set[str]]
    posts: int = 0
    blocked: bool = False
    cap: bool = False
    found: bool = False

    def deliver(self, x: str, c: str, members: Iterable[str], nxt: list[str]) -> None:
        """``x``'s post at center ``c`` reaches its other ``members``; the new ones join
        the next level (``nxt``)."""
        for y in members:
            if y == x:
                continue
            self.got.setdefault(y, set()).add(c)
            if y not in self.level:
                self.level[y] = self.level[x] + 1
                self.parent[y] = (x, c)
                nxt.append(y)
                if y == self.goal:
                    self.found = True


@dataclass
class _Route:
    segs: list[tuple[str, str, str | None]]
    est: float
    disc: Discovery
    cg: tuple[tuple[str, str, str, float], ...]
    memo_hit: bool


def _no_checkpoint() -> None:
    return None


class PlanningSession:
    """One run over one world (ledgers, published maps, memos persist across tasks).

    Parameters
    ----------
    world : LogisticsWorld
    approach : {"dp", "noprivacy", "bestfirst", "greedy"}
    params : PlannerParams, optional
        Default: the ``sound`` preset.
    rng : int, numpy Generator or None
        An int or Generator is a seeded experiment (numpy noise, reproducible; every random
        stream is a child of ``SeedSequence(seed)``: per agent for noise and rewiring, per
        origin for memo exploration, per task and tick for the dynamics, so all approaches
        see the same streams). ``None`` is release mode: Laplace noise from OpenDP, every
        choice that shapes a released map (dropped bases, fake routes, opaque ids, order)
        from :class:`~core.logistics.randomness.SecureGenerator` (the OS CSPRNG), the RL
        training and the dynamics from an OS-seeded generator.
    dynamics : Dynamics, optional
        Packet routing: nodes leave and join before each planning step.
    """

    def __init__(self, world: LogisticsWorld, *, approach: str = "dp",
                 params: PlannerParams | None = None,
                 rng: "int | np.random.Generator | None" = None,
                 dynamics: Dynamics | None = None) -> None:
        check_choice(approach, tuple(STRATEGIES), "approach")
        #: called between costly steps; may raise :class:`core.common.progress.Cancelled`
        #: (:func:`core.logistics.release.plan_release` sets it)
        self.checkpoint: Callable[[], None] = _no_checkpoint
        self.world = world
        self.approach = approach
        self.params = params if params is not None else PlannerParams()
        cap = int(world.degree_cap)
        #: the declared public degree bound of the histogram (spec F3)
        self.d_max = cap if self.params.d_max is None else int(self.params.d_max)
        if self.params.dmax_mode == "public_cap" and self.d_max < cap:
            raise InputError(
                f"d_max = {self.d_max} is below the map's declared degree cap {cap}: the "
                f"histogram sensitivity 2*d_max+1 = {2 * self.d_max + 1} assumes every degree "
                f"<= d_max, and this map allows degree {cap} (removing such a hub moves the "
                f"histogram by up to {2 * cap + 1}); use d_max >= {cap} or declare a smaller "
                "degree_cap in the map", field="d_max")
        if isinstance(rng, np.random.Generator):
            self.seed: int | None = int(rng.integers(2 ** 63))
            self.mode = "experiment"
        elif rng is None:
            self.seed = None
            self.mode = "release"
        elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
            self.seed = int(rng)
            self.mode = "experiment"
        else:
            raise InputError(f"must be a non-negative int seed, a Generator or None, got "
                             f"{rng!r}", field="seed")
        self._entropy = self.seed if self.seed is not None else secrets.randbits(128)
        self._agent_index = {a: i for i, a in enumerate(world.agents)}
        self.dynamics = dynamics if (dynamics is not None and dynamics.active) else None
        self.live = LiveWorld(world)
        C = self.params.comm_budget
        budget = float(len(world.center_ids) + 30) if C is None else float(C)
        self.comm_budget = budget
        self.comm = {a: CommLedger(budget, self.params.epsilon) for a in world.agents}
        self.ledgers = {a: PrivacyLedger() for a in world.agents}
        self._raw: dict[tuple[str, str], int] = {}
        self.published: dict[str, PublishedMap] = {}
        self.received: dict[str, dict[str, Any]] = {a: {} for a in world.agents}
        self.memo: dict[str, dict[str, _Memo]] = {a: {} for a in world.agents}
        self.results: list[PlanResult] = []
        #: the RL high-level solver's learning curve of every plan (high_level_solver="rl")
        self.learning_curves: list[LearningCurve] = []
        self._task_no = 0
        self._streams: dict[tuple[int, ...], np.random.Generator] = {}
        self._lbar = {a: mean_length(world.local(a)) for a in world.agents}
        #: nodes that hold or await a package: they do not leave (packet routing)
        self.protected: set[str] = set()

    # ------------------------------------------------------------------ randomness
    def stream(self, *key: int) -> np.random.Generator:
        """The child generator ``SeedSequence(seed, spawn_key=key)`` (cached)."""
        g = self._streams.get(key)
        if g is None:
            g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
                self._entropy, spawn_key=key)))
            self._streams[key] = g
        return g

    def _noise_rng(self, agent: str) -> np.random.Generator | None:
        return None if self.mode == "release" else self.stream(0, self._agent_index[agent])

    def _aux_rng(self, agent: str) -> np.random.Generator:
        return self.stream(1, self._agent_index[agent])

    def _release_rng(self, agent: str) -> Any:
        """Choices that shape a released map: seeded in experiments, the CSPRNG in release."""
        return SecureGenerator() if self.mode == "release" else self._aux_rng(agent)

    def tick(self, step: int, protect: Iterable[str]) -> None:
        """One round of dynamics events before step ``step`` of the current task (packet
        routing; nothing without dynamics). ``protect``: nodes that must not leave."""
        if self.dynamics is not None:
            self.live.tick(self.dynamics, self.stream(3, self._task_no, step),
                           self.protected.union(protect))

    # ------------------------------------------------------------------ messages
    def new_messages(self) -> MessageCount:
        """A fresh message count for one task (the strategy API)."""
        return MessageCount()

    def send(self, agent: str, msgs: MessageCount, kind: str, n: int = 1) -> bool:
        """Charge ``n`` messages to ``agent``; False (nothing sent) if over its budget."""
        led = self.comm[agent]
        if not led.can_send(n):
            return False
        led.spend(n)
        msgs.add(kind, n)
        return True

    # ------------------------------------------------------------------ public API
    def plan(self, task: Task | dict[str, Any]) -> PlanResult:
        """Plan and execute one task; the result is also appended to :attr:`results`."""
        task = validate_task(self.world, task)
        t0 = time.perf_counter()
        if task.origin not in self.live.local(self.world.agent_of(task.origin)) or (
                task.goal is not None and task.goal not in self.live.local(task.goal_agent)):
            res = self.fail(task, "fail_broken", MessageCount())  # its node has left the network
            self.results.append(res)
            self._task_no += 1
            return res
        shortest = self._shortest(task)
        res = STRATEGIES[self.approach](self, task)
        res = replace(res, shortest_length=shortest, elapsed_s=time.perf_counter() - t0)
        breaks = _announces_breaks(self.approach, self.dynamics)
        if breaks:  # completing a leg without announcing a break is a release too
            for ag in dict.fromkeys(res.agents):
                self.record_raw(ag, "none (an announcement)", LEG_DONE_RELEASE, breaks)
        self.results.append(res)
        self._task_no += 1
        return res

    def run(self, tasks: Sequence[Task], progress: Progress = no_progress) -> list[PlanResult]:
        """Plan ``tasks`` in order; ``progress`` may raise Cancelled between tasks."""
        out = []
        for t in tasks:
            if isinstance(t, Task):
                self.protected.update(v for v in (t.origin, t.goal) if v is not None)
        for i, t in enumerate(tasks):
            progress(i / max(1, len(tasks)), f"task {i + 1} of {len(tasks)}")
            out.append(self.plan(t))
        progress(1.0, "done")
        return out

    def publish(self, agent: str) -> PublishedMap:
        """Agent ``agent``'s Step-2 artefact (built on first call, then cached)."""
        pm = self.published.get(agent)
        if pm is None:
            self.checkpoint()  # a cancel stops the run between two agents' Step 2
            pm = self._build_published(agent)
            self.published[agent] = pm
        return pm

    def epsilon_spent(self) -> dict[str, float]:
        """Per agent: the ε its releases in this run prove (basic composition of its ledger
        entries; ``math.inf`` if one proves nothing, 0 if it released nothing)."""
        return {a: self.ledgers[a].total(f"agent:{a}")[0] for a in self.world.agents}

    def epsilon_reasons(self) -> dict[str, str]:
        """Per agent whose ε is unbounded: why (the reasons of its unbounded entries)."""
        out: dict[str, str] = {}
        for a in self.world.agents:
            rs = [e.reason for e in self.ledgers[a].entries if e.unbounded]
            if rs:
                out[a] = "; ".join(dict.fromkeys(rs))
        return out

    def epsilon_nominal(self) -> dict[str, float]:
        """Per agent: the ε the preset's parameters nominally spend (the thesis's figures;
        not a guarantee — see :meth:`epsilon_spent`). Raw releases count as ∞."""
        out = {}
        for a in self.world.agents:
            tot = 0.0
            for e in self.ledgers[a].entries:
                nom = e.parameters.get("nominal_epsilon", e.epsilon)
                tot += math.inf if nom is None else float(nom) * e.count
            out[a] = tot
        return out

    def guarantee(self) -> Guarantee:
        """The headline of the run: the largest per-agent ε proven (agents' maps are
        disjoint), with the adjacency, scope and public parameters of the preset."""
        base = preset_guarantee(self.params, self.approach, self.d_max,
                                n_destinations=max((len(c) for c in
                                                    self.world.agent_centers.values()),
                                                   default=1))
        spent = self.epsilon_spent()
        eps = max(spent.values(), default=0.0)
        reasons = list(dict.fromkeys(self.epsilon_reasons().values()))
        # a-priori: under dynamics that can break a leg, *not* announcing a break is a
        # release too, so the run proves nothing even if no leg happened to break
        breaks = _announces_breaks(self.approach, self.dynamics)
        if breaks:
            eps = math.inf
            reasons = list(dict.fromkeys([*reasons, breaks]))
        reason = "; ".join(reasons)
        return replace(base, epsilon=eps, reason=reason if math.isinf(eps) else "")

    def record_raw(self, agent: str, mechanism: str, released: str, reason: str) -> None:
        """An unbounded (raw) release by ``agent``: one ledger entry per kind, its ``count``
        the number of times it was sent."""
        key = (agent, released)
        led = self.ledgers[agent]
        i = self._raw.get(key)
        if i is None:
            led.record(dataset=f"agent:{agent}", mechanism=mechanism, epsilon=math.inf,
                       reason=reason, parameters={"nominal_epsilon": None},
                       adjacency="none (exact values)", released=released, mode=self.mode,
                       seed=self.seed, source=f"logistics: {self.approach}")
            self._raw[key] = len(led.entries) - 1
        else:
            led.entries[i] = replace(led.entries[i], count=led.entries[i].count + 1)

    def flaws(self) -> tuple[str, ...]:
        """The thesis flaws that apply to this session's preset (empty for ``sound``)."""
        return THESIS_FLAWS if self.params.preset == "thesis" else ()

    def caveats(self) -> tuple[str, ...]:
        return SOUND_CAVEATS if self.params.preset == "sound" else ()

    # ------------------------------------------------------------------ helpers
    def _shortest(self, task: Task) -> float | None:
        g = self.live.union_graph()
        try:
            dist = nx.single_source_dijkstra_path_length(g, task.origin, weight="length")
        except nx.NodeNotFound:
            return None
        goals = [task.goal] if task.goal is not None else self.live.bases(task.goal_agent)
        ds = [dist[v] for v in goals if v in dist]
        return float(min(ds)) if ds else None

    def fail(self, task: Task, status: str, msgs: MessageCount, **kw: Any) -> PlanResult:
        """A failed result of ``task`` with ``status`` (a key of :data:`STATUSES`)."""
        return PlanResult(task=task, approach=self.approach, status=status, route=(),
                          length=None, centers=(), agents=(), segments=(), plan_view=(),
                          messages=msgs.total, message_kinds=dict(msgs.kinds), **kw)

    def execute(self, task: Task, segments: list[tuple[str, str, str | None]]
                ) -> tuple[list[str], float] | None:
        """Exact legs on the true current maps, concatenated (None if a leg is impossible)."""
        route: list[str] = []
        total = 0.0
        for ag, frm, to in segments:
            leg = self.live.shortest(ag, frm, to)
            if leg is None:
                return None
            path, d = leg
            route.extend(path if not route else path[1:])
            total += d
        return route, total

    def solve(self, arcs: Sequence[tuple[str, str, str, float]], agent: str
              ) -> tuple[float, list[tuple[str, str, str]]] | None:
        """Step 3's high-level solver on the center graph ``arcs`` (origin to goal) at
        ``agent``: Dijkstra, or the route-probability RL of §4.5.3
        (``high_level_solver="rl"``, :func:`core.logistics.center_rl.rl_center_route`), whose
        learning curve is appended to :attr:`learning_curves`. Post-processing of what the
        agent holds: no privacy cost."""
        if self.params.high_level_solver == "dijkstra":
            return center_route(arcs, _ORIGIN, _GOAL)
        rl = rl_center_route(arcs, _ORIGIN, _GOAL,
                             rng=self.stream(5, self._agent_index[agent]),
                             episodes=int(self.params.rl_route_episodes),
                             checkpoint=self.checkpoint)
        if rl is None:
            return None
        self.learning_curves.append(rl.curve)
        return rl.cost, list(rl.hops)

    def finish(self, task: Task, segs: list[tuple[str, str, str | None]], msgs: MessageCount,
               **kw: Any) -> PlanResult:
        ex = self.execute(task, segs)
        if ex is None:
            return self.fail(task, "fail_broken", msgs, **kw)
        route, total = ex
        centers = tuple(v for v in route if self.world.graph.has_node(v) and
                        self.world.kind(v) == "center")
        seg_out = tuple((a, f, t if t is not None else route[-1]) for a, f, t in segs)
        first_leg = self.live.shortest(segs[0][0], segs[0][1], segs[0][2])
        view: tuple[str, ...] = tuple(first_leg[0]) if first_leg else ()
        view = view + centers[sum(1 for v in view if v in centers):]
        return PlanResult(task=task, approach=self.approach, status="ok", route=tuple(route),
                          length=total, centers=centers,
                          agents=tuple(s[0] for s in seg_out), segments=seg_out,
                          plan_view=view, messages=msgs.total,
                          message_kinds=dict(msgs.kinds), **kw)

    # ------------------------------------------------------------------ Step 1
    def discover(self, origin: str, goal: str, max_posts: float, msgs: MessageCount,
                 from_centers: Sequence[str] | None = None) -> Discovery:
        """Step 1 (§3.2): query flooding through the centers and convergecast replies.

        ``from_centers``: the centers the origin agent can post at (default all of its
        centers; under dynamics that split an area, those its area still connects to where
        the package is)."""
        fl = _Flood(origin, goal, level={origin: 0}, parent={origin: None},
                    got={origin: set()}, found=origin == goal)
        current = [origin]
        while current and not fl.found:
            nxt: list[str] = []
            for x in sorted(current):
                self._post_queries(fl, x, max_posts, msgs, from_centers, nxt)
                if fl.cap:
                    break
            if fl.cap:
                break
            current = nxt
        known, replies, lost = self._convergecast(origin, fl.level, fl.parent, msgs)
        w = self.world
        inc = sorted({(y, c) for x in known for c in w.agent_centers[x] for y in w.members[c]})
        found = goal in known
        cands: tuple[str, ...] = ()
        lg = None
        if found:
            lg, cands = self._candidates(origin, goal, known, inc, from_centers)
        return Discovery(found=found, level=fl.level, parent=fl.parent, known=known,
                         incidences=tuple(inc), goal_level=lg, candidates=cands,
                         posts=fl.posts, replies=replies, budget_blocked=fl.blocked or lost,
                         cap_reached=fl.cap)

    def _post_queries(self, fl: "_Flood", x: str, max_posts: float, msgs: MessageCount,
                      from_centers: Sequence[str] | None, nxt: list[str]) -> None:
        """Agent ``x`` posts the query at each of its centers it has not heard it at (the
        origin: only at ``from_centers`` if given), until the post cap or its budget
        stops it; newly reached agents are appended to ``nxt``."""
        w = self.world
        for c in w.agent_centers[x]:
            if c in fl.got.get(x, ()):
                continue
            if x == fl.origin and from_centers is not None and c not in from_centers:
                continue
            if fl.posts >= max_posts:
                fl.cap = True
                return
            if not self.send(x, msgs, "query"):
                fl.blocked = True
                return
            fl.posts += 1
            fl.deliver(x, c, w.members[c], nxt)

    def _convergecast(self, origin: str, level: dict[str, int],
                      parent: dict[str, tuple[str, str] | None], msgs: MessageCount
                      ) -> tuple[tuple[str, ...], int, bool]:
        """Replies travel back deepest first; a lost reply loses its whole subtree.
        Returns (the agents the origin learns of, replies sent, whether one was lost)."""
        ok: dict[str, bool] = {origin: True}
        replies = 0
        lost = False
        for y in sorted((v for v in level if v != origin), key=lambda v: (-level[v], v)):
            if self.send(y, msgs, "reply"):
                replies += 1
                ok[y] = True
            else:
                ok[y] = False
                lost = True

        def delivered(v: str) -> bool:
            while v != origin:
                if not ok[v]:
                    return False
                v = parent[v][0]  # type: ignore[index]
            return True

        return tuple(sorted(v for v in level if delivered(v))), replies, lost

    def _candidates(self, origin: str, goal: str, known: tuple[str, ...],
                    inc: list[tuple[str, str]], from_centers: Sequence[str] | None
                    ) -> tuple[int, tuple[str, ...]]:
        """On the known agents' graph (agents sharing a center are adjacent): the goal's
        level and the agents on a path at most ``slack_levels`` longer than the shortest."""
        ag = nx.Graph()
        ag.add_nodes_from(known)
        by_c: dict[str, list[str]] = {}
        for y, c in inc:
            if y == origin and from_centers is not None and c not in from_centers:
                continue  # a center the origin's area no longer reaches
            by_c.setdefault(c, []).append(y)
        for ys in by_c.values():
            for i, u in enumerate(ys):
                for v in ys[i + 1:]:
                    ag.add_edge(u, v)
        da = nx.single_source_shortest_path_length(ag, origin)
        dg = nx.single_source_shortest_path_length(ag, goal)
        lg = da[goal]
        cands = tuple(x for x in known if x not in (origin, goal) and x in da and x in dg
                      and da[x] + dg[x] <= lg + self.params.slack_levels)
        return lg, cands

    # ------------------------------------------------------------------ Step 2 (DP side)
    def _build_published(self, j: str) -> PublishedMap:
        p = self.params
        local = self.live.local(j)
        dmax, public, _sens = histogram_setup(p, local, self.d_max)
        led = self.ledgers[j]
        aux = self._aux_rng(j)
        noise = self._noise_rng(j)
        eps_l = p.epsilon_laplace
        obf = obfuscate_topology(local, owner=j, epsilon=eps_l, dmax=dmax,
                                 sensitivity_mode=p.laplace_sensitivity, delta_s=p.delta_s,
                                 rewire=p.rewire, rng=self._release_rng(j), noise_rng=noise,
                                 fake_len=(p.fake_len_low, p.fake_len_high), ledger=led,
                                 mode=self.mode, seed=self.seed, bin_clip=p.bin_clip,
                                 dmax_public=public)
        g = obf.graph
        centers = tuple(sorted(v for v, d in g.nodes(data=True) if d["kind"] == "center"))
        dests = centers if len(centers) >= 2 else ()
        eps_e = p.epsilon_exponential
        eps_dest = eps_e / len(dests) if (p.split_eps_over_destinations and dests) else eps_e
        rl: dict[str, Policy] = {}
        released: dict[str, Policy] = {}
        for t in dests:
            starts = [c for c in centers if c != t]
            pi, _q = rl_policy(g, t, starts, rng=aux, episodes=p.rl_episodes,
                               max_steps_factor=p.rl_max_steps_factor, alpha=p.rl_alpha,
                               gamma=p.rl_gamma, zeta=p.rl_zeta, reward_mode=p.rl_reward_mode,
                               reward_const=p.reward_const, q_init_const=p.q_init_const,
                               terminal_at_dest=p.terminal_at_dest, goal_bonus=p.goal_bonus,
                               pi_floor=p.pi_floor)
            rl[t] = pi
            released[t] = self._redistribute(j, t, pi, eps_dest, led, noise)
        topo = obf.topology()
        msg = ReleasedMap.from_topology(j, topo, released)
        crossings = crossing_estimates(msg, p.crossing_estimator)
        return PublishedMap(owner=j, topology=msg.graph(), centers=centers, policy=msg.policy,
                            obfuscated=obf, rl_policy=rl, epsilon_laplace=eps_l,
                            epsilon_per_destination=eps_dest, crossings=crossings,
                            released=msg)

    def _redistribute(self, j: str, t: str, pi: Policy, eps_node: float, led: PrivacyLedger,
                      noise: np.random.Generator | None) -> Policy:
        p = self.params
        multi = [v for v in sorted(pi) if len(pi[v]) >= 2]
        out: Policy = {v: {u: 1.0 for u in pi[v]} for v in pi if len(pi[v]) < 2}
        if p.em_mode == "softmax":
            for v in multi:
                us = sorted(pi[v])
                e = eps_node / len(us) if p.em_split == "per_edge" else eps_node
                w = em_softmax([pi[v][u] for u in us], e, p.delta_u)
                out[v] = {u: float(x) for u, x in zip(us, w)}
            led.record(dataset=f"agent:{j}", mechanism="exponential (Eq. 4.2 softmax)",
                       epsilon=math.inf, reason=F5_REASON,
                       parameters={"nominal_epsilon": eps_node, "sensitivity": p.delta_u,
                                   "em_split": p.em_split, "nodes": len(multi),
                                   "randomised": False},
                       adjacency="route lengths (no neighbouring relation defined: F5)",
                       released=f"route probabilities towards center {t} at {len(multi)} "
                                "nodes (deterministic, invertible)",
                       mode=self.mode, seed=self.seed, source="logistics: Eq 4.2")
            return out
        if multi:
            us_of = {v: sorted(pi[v]) for v in multi}
            vec = np.array([pi[v][u] for v in multi for u in us_of[v]])
            noisy = laplace_release(vec, epsilon=eps_node, sensitivity=2.0 * p.delta_u,
                                    rng=noise)
            k = 0
            for v in multi:
                m = len(us_of[v])
                x = np.maximum(noisy[k:k + m], p.pi_floor)
                x = x / x.sum()
                out[v] = {u: float(y) for u, y in zip(us_of[v], x)}
                k += m
        pure = p.rewire != "overlap"
        extra: dict[str, Any] = {} if pure else {"reason": F6_REASON}
        led.record(dataset=f"agent:{j}", mechanism="laplace",
                   epsilon=eps_node if pure else math.inf,
                   parameters={"nominal_epsilon": eps_node, "sensitivity": 2.0 * p.delta_u,
                               "scale": 2.0 * p.delta_u / eps_node, "nodes": len(multi),
                               "post_processing": pure},
                   adjacency=(NODE_ADJACENCY + " (the probabilities are computed on the "
                              "released fake map: post-processing, charged at their nominal "
                              "epsilon)") if pure else
                   "one node's probability vector (L1 change <= 2); not the map's",
                   released=f"route probabilities towards center {t} at {len(multi)} nodes, "
                            "clipped at pi_floor and renormalised",
                   mode=self.mode, seed=self.seed, source="logistics: Laplace vector",
                   **extra)
        return out

    def _exact_view(self, j: str) -> dict[tuple[str, str], tuple[float, tuple[str, ...]]]:
        return {k: (d, tuple(p)) for k, (d, p) in self.live.center_distances(j).items()}

    # ------------------------------------------------------------------ the pipeline
    def plan_pipeline(self, task: Task) -> PlanResult:
        """The DP-based / No-privacy strategy: Steps 1–3 and execution for ``task``.

        A leg whose agent's area no longer connects its ends (only with dynamics that may
        split an area) is a broken crossing: the agent holding the package there announces
        it (an unbounded ledger entry: it reveals its topology) and re-plans from where the
        package is as a new origin (Steps 1–3, their messages charged), at most
        :data:`MAX_REPLANS` times, then ``fail_broken``.
        """
        a = self.world.agent_of(task.origin)
        g = task.goal_agent
        msgs = MessageCount()
        protect = (task.origin,) + ((task.goal,) if task.goal else ())
        if a == g:
            self.tick(3, protect)
            if self.live.shortest(a, task.origin, task.goal) is not None or \
                    self.dynamics is None or not self.dynamics.splits_areas:
                return self.finish(task, [(a, task.origin, task.goal)], msgs,
                                   estimated_length=None)
            return self._replan_loop(task, [], (a, task.origin, task.goal), msgs, protect,
                                     None)
        route = self._route(task, a, task.origin, msgs, protect, 0)
        if isinstance(route, PlanResult):
            return route
        return self._execute(task, route, msgs, protect)

    def _execute(self, task: Task, first: "_Route", msgs: MessageCount,
                 protect: tuple[str, ...]) -> PlanResult:
        """Execute ``first``; re-plan from a broken crossing (see :meth:`plan_pipeline`)."""
        broken = self._first_broken(first.segs)
        kw = dict(estimated_length=first.est, memo_hit=first.memo_hit,
                  discovery=first.disc, center_graph=first.cg)
        if broken is None:
            return self.finish(task, first.segs, msgs, **kw)
        return self._replan_loop(task, first.segs[:broken], first.segs[broken], msgs, protect,
                                 first)

    def _first_broken(self, segs: Sequence[tuple[str, str, str | None]]) -> int | None:
        for i, (ag, frm, to) in enumerate(segs):
            if self.live.shortest(ag, frm, to) is None:
                return i
        return None

    def _replan_loop(self, task: Task, done: list[tuple[str, str, str | None]],
                     stuck: tuple[str, str, str | None], msgs: MessageCount,
                     protect: tuple[str, ...], first: "_Route | None") -> PlanResult:
        kw: dict[str, Any] = {} if first is None else dict(
            estimated_length=first.est, memo_hit=first.memo_hit, discovery=first.disc,
            center_graph=first.cg)
        attempt = 0
        while True:
            ag, frm, to = stuck
            self.record_raw(ag, "none (an announcement)", "a re-plan announcing that its "
                            "area no longer connects the ends of its leg",
                            BROKEN_REASON)
            attempt += 1
            if attempt > MAX_REPLANS:
                return self.fail(task, "fail_broken", msgs, restarts=attempt - 1, **kw)
            here_protect = protect + (frm,)
            r = self._route(task, ag, frm, msgs, here_protect, attempt)
            if isinstance(r, PlanResult):
                return replace(r, restarts=attempt)
            broken = self._first_broken(r.segs)
            if broken is None:
                return self.finish(task, done + r.segs, msgs, restarts=attempt, **kw)
            done = done + r.segs[:broken]
            stuck = r.segs[broken]

    def _discover_around(self, g: str, msgs: MessageCount) -> Discovery:
        """The goal agent holding the package it cannot deliver locally asks its
        neighbours: one post per own center, one reply per neighbour."""
        w = self.world
        level = {g: 0}
        parent: dict[str, tuple[str, str] | None] = {g: None}
        posts = replies = 0
        blocked = False
        for c in w.agent_centers[g]:
            if not self.send(g, msgs, "query"):
                blocked = True
                break
            posts += 1
            for y in w.members[c]:
                if y != g and y not in level:
                    level[y] = 1
                    parent[y] = (g, c)
        got = []
        for y in sorted(v for v in level if v != g):
            if self.send(y, msgs, "reply"):
                replies += 1
                got.append(y)
            else:
                blocked = True
        inc = sorted({(y, c) for x in [g, *got] for c in w.agent_centers[x]
                      for y in w.members[c]})
        return Discovery(found=True, level=level, parent=parent, known=tuple([g, *got]),
                         incidences=tuple(inc), goal_level=0, candidates=tuple(got),
                         posts=posts, replies=replies, budget_blocked=blocked,
                         cap_reached=False)

    def _route(self, task: Task, a: str, here: str, msgs: MessageCount,
               protect: tuple[str, ...], attempt: int) -> "_Route | PlanResult":
        """Steps 1–3 for the package at ``here`` held by agent ``a`` (the origin agent at
        the origin base on the first attempt): the route's segments, or a failure."""
        g = task.goal_agent
        step0 = 4 * attempt
        self.tick(step0, protect)
        found = self._step1(task, a, here, msgs)
        if isinstance(found, PlanResult):
            return found
        disc, memo_hit = found
        # ---- Step 2
        self.tick(step0 + 1, protect)
        step2_blocked = False
        for j in disc.candidates:
            if j not in self.received[a] and not self._fetch_view(j, a, disc, msgs):
                step2_blocked = True
        # ---- Step 3
        self.tick(step0 + 2, protect)
        arcs = self._center_graph(task, a, here, disc)
        route = self.solve(arcs, a)
        cg = tuple(arcs)
        if route is None:
            status = ("fail_budget" if step2_blocked or disc.budget_blocked
                      else "fail_no_route")
            return self.fail(task, status, msgs, discovery=disc, center_graph=cg,
                             memo_hit=memo_hit)
        est, hops = route
        segs = _merge_hops(hops, here, task.goal)
        for x in [s[0] for s in segs[:-1]]:
            if not self.send(x, msgs, "handover"):
                return self.fail(task, "fail_budget", msgs, discovery=disc, center_graph=cg,
                                 memo_hit=memo_hit, estimated_length=est)
        if self.params.memo and a != g:
            self._remember(a, g, disc, est, memo_hit)
        self.tick(step0 + 3, protect)
        return _Route(segs, est, disc, cg, memo_hit)

    def _step1(self, task: Task, a: str, here: str, msgs: MessageCount
               ) -> "tuple[Discovery, bool] | PlanResult":
        """Step 1 for holder ``a``: around the goal agent if it holds the package, else the
        route memo (unless exploring) or a new discovery (the memo again if that finds
        nothing). (discovery, whether it came from the memo), or the failure."""
        p = self.params
        g = task.goal_agent
        memo = self.memo[a].get(g) if (p.memo and a != g) else None
        if a == g:
            return self._discover_around(g, msgs), False
        if memo is not None and self.stream(2, self._agent_index[a]).random() >= p.p_explore:
            return memo.discovery, True
        cap = memo.posts if memo is not None else self.world.total_capacity
        reach = None
        if self.dynamics is not None and self.dynamics.splits_areas:
            reach = [c for c in self.world.agent_centers[a]
                     if self.live.center_reachable(a, here, c)]
        d = self.discover(a, g, cap, msgs, from_centers=reach)
        if d.found:
            return d, False
        if memo is not None:
            return memo.discovery, True
        status = "fail_budget" if d.budget_blocked else "fail_not_found"
        return self.fail(task, status, msgs, discovery=d)

    def _fetch_view(self, j: str, a: str, disc: Discovery, msgs: MessageCount) -> bool:
        """Step 2: ``a`` asks candidate ``j`` for its view along the flooding tree and
        stores the answer (DP: ``j``'s released map; No-privacy: its exact crossings, a
        raw release). False if a request or reply was over budget."""
        path = disc.tree_path(j)
        if not all(self.send(x, msgs, "map_request") for x in path[:-1]) or \
                not all(self.send(x, msgs, "map_reply") for x in path[:0:-1]):
            return False
        if self.approach == "dp":
            self.received[a][j] = self.publish(j).released  # the message: nothing else leaves j
        else:
            self.received[a][j] = self._exact_view(j)
            self.record_raw(j, "none (exact values)", "exact crossing lengths between "
                            f"its centers, sent to {a} (No-privacy)",
                            "No-privacy baseline: exact crossing lengths are sent")
        return True

    def _center_graph(self, task: Task, a: str, here: str, disc: Discovery
                      ) -> list[tuple[str, str, str, float]]:
        """Step 3's center graph for holder ``a`` at ``here``: its exact legs and
        crossings, the candidates' crossings (DP: estimated from their released maps) and
        the goal agent's legs to the goal (exact, or 0 where the goal stays private)."""
        arcs: list[tuple[str, str, str, float]] = []
        dist0 = nx.single_source_dijkstra_path_length(self.live.local(a), here,
                                                      weight="length")
        for c in self.world.agent_centers[a]:
            if c in dist0:
                arcs.append((_ORIGIN, c, a, float(dist0[c])))
        for (s, t), (length, _hops) in self.live.center_distances(a).items():
            arcs.append((s, t, a, length))
        for j in disc.candidates:
            arcs.extend(self._candidate_arcs(j, a))
        arcs.extend(self._goal_arcs(task, a))
        return arcs

    def _candidate_arcs(self, j: str, a: str) -> list[tuple[str, str, str, float]]:
        """Candidate ``j``'s crossings as ``a`` knows them (none if its view never came)."""
        view = self.received[a].get(j)
        if view is None:
            return []
        if self.approach == "dp":
            # the receiver's estimates, computed from the released map alone
            lbar_a = self._lbar[a]
            return [(s, t, j, length * lbar_a)
                    for (s, t), (length, _route) in self.published[j].crossings.items()
                    if math.isfinite(length)]
        return [(s, t, j, length) for (s, t), (length, _route) in view.items()]

    def _goal_arcs(self, task: Task, a: str) -> list[tuple[str, str, str, float]]:
        """The goal agent's arcs from its centers to the goal: exact lengths (No-privacy,
        ``goal_leg_mode="exact"`` or the holder is the goal agent), else 0."""
        g = task.goal_agent
        exact = self.approach == "noprivacy" or self.params.goal_leg_mode == "exact" or a == g
        arcs: list[tuple[str, str, str, float]] = []
        for c in self.world.agent_centers[g]:
            if exact:
                leg = self.live.shortest(g, c, task.goal)
                if leg is not None:
                    arcs.append((c, _GOAL, g, leg[1]))
            else:
                arcs.append((c, _GOAL, g, 0.0))
        return arcs

    def _remember(self, a: str, g: str, disc: Discovery, est: float, memo_hit: bool) -> None:
        """Update ``a``'s route memo towards ``g``: a new or cheaper route replaces it,
        and the fewest posts that found the goal are kept."""
        old = self.memo[a].get(g)
        if old is None or (not memo_hit and est < old.estimate - 1e-9):
            posts = disc.posts if old is None else min(old.posts, disc.posts)
            self.memo[a][g] = _Memo(disc, posts, est)
        elif not memo_hit:
            old.posts = min(old.posts, disc.posts)


#: approach -> strategy (the functions that plan one task in a session)
def _merge_hops(hops: Sequence[tuple[str, str, str]], here: str, goal: str | None
                ) -> list[tuple[str, str, str | None]]:
    segs: list[tuple[str, str, str | None]] = []
    for frm, to, ag in hops:
        f = here if frm == _ORIGIN else frm
        t_ = goal if to == _GOAL else to
        if segs and segs[-1][0] == ag:
            segs[-1] = (ag, segs[-1][1], t_)
        else:
            segs.append((ag, f, t_))
    return segs


def _exact_crossings(s: PlanningSession, j: str) -> list[tuple[str, str, str, float]]:
    """Agent ``j``'s exact crossing lengths between its centers on its live map."""
    arcs: list[tuple[str, str, str, float]] = []
    loc = s.live.local(j)
    cs = s.world.agent_centers[j]
    for c in cs:
        if c not in loc:
            continue
        d = nx.single_source_dijkstra_path_length(loc, c, weight="length")
        for t in cs:
            if t != c and t in d:
                arcs.append((c, t, j, float(d[t])))
    return arcs


def _exact_center_graph(s: PlanningSession, task: Task, holder: str, here: str
                        ) -> list[tuple[str, str, str, float]]:
    """The simplified approach's center graph, all exact: the holder's legs from ``here``
    to its centers (and to the goal if it is the goal agent), every agent's crossings, the
    goal agent's legs to the goal."""
    w = s.world
    g = task.goal_agent
    arcs: list[tuple[str, str, str, float]] = []
    dist0 = nx.single_source_dijkstra_path_length(s.live.local(holder), here,
                                                  weight="length")
    for c in w.agent_centers[holder]:
        if c in dist0:
            arcs.append((_ORIGIN, c, holder, float(dist0[c])))
    if holder == g:
        leg = s.live.shortest(g, here, task.goal)
        if leg is not None:
            arcs.append((_ORIGIN, _GOAL, g, leg[1]))
    for j in w.agents:
        arcs.extend(_exact_crossings(s, j))
    for c in w.agent_centers[g]:
        leg = s.live.shortest(g, c, task.goal)
        if leg is not None:
            arcs.append((c, _GOAL, g, leg[1]))
    return arcs


def simplified(s: PlanningSession, task: Task) -> PlanResult:
    """The simplified approach (§4.5.4, spec §3.8) as a strategy.

    The logistic centers plan: the center graph carries every agent's **exact** crossing
    lengths between its centers (declared public in this mode), the holder's exact legs
    from where the package is to its centers and the goal agent's exact legs to the goal;
    Dijkstra (or the RL solver) picks the route, and the plan is disseminated with **one
    message per center on the path** (charged to the agent that carries the package to
    it). No Algorithm 7/8, no exponential mechanism. Under dynamics a leg that broke beyond
    local repair is re-planned from where the package is (at most :data:`MAX_REPLANS`)."""
    w = s.world
    msgs = s.new_messages()
    protect = (task.origin,) + ((task.goal,) if task.goal else ())
    holder, here = w.agent_of(task.origin), task.origin
    done: list[tuple[str, str, str | None]] = []
    attempt = 0
    step = 0
    while True:
        s.tick(step, protect + (here,))
        step += 1
        arcs = _exact_center_graph(s, task, holder, here)
        route = s.solve(arcs, holder)
        cg = tuple(arcs)
        if route is None:
            return s.fail(task, "fail_no_route", msgs, restarts=attempt, center_graph=cg)
        est, hops = route
        for _frm, to, ag in hops:
            if to != _GOAL and not s.send(ag, msgs, "plan"):
                return s.fail(task, "fail_budget", msgs, restarts=attempt, center_graph=cg,
                              estimated_length=est)
        segs = _merge_hops(hops, here, task.goal)
        s.tick(step, protect + (here,))
        step += 1
        broken = s._first_broken(segs)
        if broken is None:
            return s.finish(task, done + segs, msgs, estimated_length=est, restarts=attempt,
                            center_graph=cg)
        ag, frm, _to = segs[broken]
        s.record_raw(ag, "none (an announcement)", "a re-plan announcing that its area no "
                     "longer connects the ends of its leg", BROKEN_REASON)
        attempt += 1
        if attempt > MAX_REPLANS:
            return s.fail(task, "fail_broken", msgs, restarts=attempt - 1, center_graph=cg)
        done = done + segs[:broken]
        holder, here = ag, frm


STRATEGIES: dict[str, Strategy] = {
    "dp": PlanningSession.plan_pipeline,
    "noprivacy": PlanningSession.plan_pipeline,
    "bestfirst": best_first,
    "greedy": greedy,
    "simplified": simplified,
}


def center_route(arcs: Sequence[tuple[str, str, str, float]], src: str, dst: str
                 ) -> tuple[float, list[tuple[str, str, str]]] | None:
    """The shortest route on the center graph (Step 3), with the planner's tie-breaking.

    Parameters
    ----------
    arcs : sequence of (from, to, agent, weight)
        The center graph's arcs.
    src, dst : str
        Where the route starts and ends.

    Returns
    -------
    (float, list of (from, to, agent)) or None
        The length and the arcs of the route; None if ``dst`` cannot be reached. Ties are
        broken by id, so the GUI redraws exactly the route the planner chose.
    """
    out: dict[str, list[tuple[str, str, float]]] = {}
    for u, v, ag, w in arcs:
        out.setdefault(u, []).append((v, ag, w))
    best = {src: 0.0}
    prev: dict[str, tuple[str, str]] = {}
    heap: list[tuple[float, str]] = [(0.0, src)]
    done: set[str] = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        if u == dst:
            break
        for v, ag, w in sorted(out.get(u, ()), key=lambda e: (e[0], e[1])):
            nd = d + w
            if nd < best.get(v, math.inf) - 1e-12:
                best[v] = nd
                prev[v] = (u, ag)
                heapq.heappush(heap, (nd, v))
    if dst not in best:
        return None
    hops: list[tuple[str, str, str]] = []
    v = dst
    while v != src:
        u, ag = prev[v]
        hops.append((u, v, ag))
        v = u
    return best[dst], hops[::-1]


def plan_task(world: LogisticsWorld, task: Task | dict[str, Any], *, approach: str = "dp",
              params: PlannerParams | None = None,
              rng: "int | np.random.Generator | None" = None) -> tuple[PlanResult,
                                                                        PlanningSession]:
    """Plan one task in a fresh session; returns the result and the session (ledgers,
    published maps) for inspection.

    Parameters
    ----------
    world : LogisticsWorld
        The map.
    task : Task or dict
        Origin base, goal agent and optional goal base.
    approach : str
        ``"dp"``, ``"noprivacy"``, ``"bestfirst"`` or ``"greedy"``.
    params : PlannerParams, optional
        Default: the sound preset's.
    rng : int, numpy.random.Generator or None
        A seed (experiment mode) or None (release mode, secure noise).

    Returns
    -------
    (PlanResult, PlanningSession)

    Examples
    --------
    >>> from core.logistics.examples import fig41, FIG41_TASK
    >>> r, s = plan_task(fig41(), FIG41_TASK, rng=1)
    >>> r.success, r.route[0], r.route[-1], sorted(s.published)
    (True, 'a2', 'f4', ['b', 'c', 'd', 'e'])
    """
    s = PlanningSession(world, approach=approach, params=params, rng=rng)
    return s.plan(task), s


