"""Step 2.2 and Step 3 helpers: Algorithm 8 route probabilities and crossing estimates.

* :func:`rl_policy` — Algorithm 8: tabular Q-learning (critic) with a policy-hill-climbing
  update of an explicit stochastic policy π (actor), on-policy sampling from π, α = 0.1,
  γ = 0.9, ζ = 0.95 (thesis). π starts ∝ 1/length. Two reward modes (spec §3.5):
  ``"thesis_inverse"`` (r = 200/ℓ, Q₀ = 100/ℓ, always bootstrap: the faithful version,
  which favours long reward-collecting walks) and ``"neg_length"`` (r = Q₀ = −ℓ/L̄,
  terminal at the destination: the sound default).
* :func:`alg8_initial` — the initialisation of the Alg 8 example (T3).
* :func:`prob_to_distance` — Step 3's probability→distance rule
  d̂(v→u) = k·L̄_a·(1/p(v,u)) / Σ_w 1/p(v,w) (reproduces Fig 4.5's 20 and 70).
* :func:`hitting_steps` and :func:`inverse_prob_distances` — the two crossing estimators
  (``policy_evaluation``: expected steps of a walk following the released policy, the
  sound default; ``inverse_prob_dijkstra``: Dijkstra on converted lengths, the thesis).

Examples
--------
>>> pi, q0, r = alg8_initial([50.0, 40.0])
>>> pi.round(4).tolist(), q0.tolist(), r.tolist()
([0.4444, 0.5556], [2.0, 2.5], [4.0, 5.0])
>>> prob_to_distance([0.7, 0.2], 45.0).round(6).tolist()
[20.0, 70.0]
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import networkx as nx
import numpy as np

from core.common.errors import InputError

__all__ = ["REWARD_MODES", "HITTING_CAP", "alg8_initial", "rl_policy", "prob_to_distance",
           "hitting_steps", "DENSE_HITTING_MAX",
           "inverse_prob_distances", "greedy_path"]

REWARD_MODES = ("thesis_inverse", "neg_length")

Policy = dict[str, dict[str, float]]

#: expected-step estimates are capped here (see :func:`hitting_steps`)
HITTING_CAP = 1e12


def alg8_initial(lengths: "Sequence[float] | np.ndarray", *, reward_mode: str = "thesis_inverse",
                 q_init_const: float = 100.0, reward_const: float = 200.0,
                 lbar: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(π₀, Q₀, r) at one node with the given route lengths (Alg 8 lines 4–5).

    Parameters
    ----------
    lengths : array_like
        The lengths of the node's routes.
    reward_mode : str
        ``"thesis_inverse"`` (r = c/ℓ, Q₀ = q/ℓ) or ``"neg_length"`` (r = Q₀ = −ℓ/L̄).
    q_init_const, reward_const : float
        The constants of the thesis's mode.
    lbar : float, optional
        L̄ of ``"neg_length"`` (default: the mean of ``lengths``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        π₀ ∝ 1/ℓ, Q₀ and the rewards, one per route.
    """
    ell = np.asarray(lengths, dtype=np.float64)
    inv = 1.0 / ell
    pi = inv / inv.sum()
    if reward_mode == "thesis_inverse":
        return pi, q_init_const / ell, reward_const / ell
    if reward_mode == "neg_length":
        lb = float(ell.mean() if lbar is None else lbar)
        return pi, -ell / lb, -ell / lb
    raise InputError(f"must be one of {REWARD_MODES}, got {reward_mode!r}", field="rl_reward_mode")


def _initial_tables(lens: list[list[float]], reward_mode: str, reward_const: float,
                    q_init_const: float
                    ) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
    """:func:`rl_policy`'s starting π ∝ 1/ℓ, Q and rewards, one row per node (lists, for
    the pure-Python loop); ``"neg_length"`` scales by the mean route length L̄."""
    all_l = [x for row in lens for x in row]
    lbar = (sum(all_l) / len(all_l)) if all_l else 1.0
    pi: list[list[float]] = []
    for row in lens:
        inv = [1.0 / x for x in row]
        s = sum(inv)
        pi.append([x / s for x in inv])
    if reward_mode == "thesis_inverse":
        Q = [[q_init_const / x for x in row] for row in lens]
        R = [[reward_const / x for x in row] for row in lens]
    else:
        Q = [[-x / lbar for x in row] for row in lens]
        R = [[-x / lbar for x in row] for row in lens]
    return pi, Q, R


def rl_policy(graph: nx.Graph, dest: str, starts: Sequence[str], *, rng: np.random.Generator,
              episodes: int = 300, max_steps_factor: int = 4, alpha: float = 0.1,
              gamma: float = 0.9, zeta: float = 0.95, reward_mode: str = "neg_length",
              reward_const: float = 200.0, q_init_const: float = 100.0,
              terminal_at_dest: bool = True, goal_bonus: float = 0.0, pi_floor: float = 1e-3,
              trace: list[int] | None = None) -> tuple[Policy, Policy]:
    """Algorithm 8 towards ``dest`` on a graph with edge ``length``: returns (π, Q).

    Each episode starts at a node drawn uniformly from ``starts`` and stops at ``dest`` or
    after ``max_steps_factor·|V|`` steps. After every step at node v: Q(v,e) ←
    (1−α)Q(v,e) + α[r + γ·max_{e'∈E_{v'}} Q(v',e')] (the text's E_{v'}, not the listing's
    E_v), r̄ = Σ π(v,·)Q(v,·), π(v,e) += ζ(Q(v,e) − r̄), then floor at ``pi_floor`` and
    renormalise. Nodes never visited keep π ∝ 1/ℓ. ``trace``, if given, receives the
    length of every episode.

    Parameters
    ----------
    graph : networkx.Graph
        The map, with edge attribute ``length``.
    dest : str
        The destination.
    starts : sequence of str
        Episode start nodes.
    rng : numpy.random.Generator
        Drives the episodes.
    episodes, max_steps_factor : int
        Episodes, and the step limit per episode in units of |V|.
    alpha, gamma, zeta : float
        Learning rate, discount and policy step.
    reward_mode, reward_const, q_init_const
        See :func:`alg8_initial`.
    terminal_at_dest : bool
        Whether Q at ``dest`` stays 0.
    goal_bonus : float
        Added to the reward of a step into ``dest``.
    pi_floor : float
        The smallest probability kept before renormalising.
    trace : list, optional
        Receives each episode's length.

    Returns
    -------
    (dict, dict)
        π and Q: ``{node: {neighbour: value}}``.

    Examples
    --------
    >>> import networkx as nx, numpy as np
    >>> g = nx.Graph([("A", "x", {"length": 10.0}), ("x", "B", {"length": 10.0}),
    ...               ("A", "y", {"length": 30.0}), ("y", "B", {"length": 30.0})])
    >>> pi, q = rl_policy(g, "B", ["A"], rng=np.random.default_rng(0))
    >>> pi["A"]["x"] > 0.99
    True
    """
    if reward_mode not in REWARD_MODES:
        raise InputError(f"must be one of {REWARD_MODES}, got {reward_mode!r}",
                         field="rl_reward_mode")
    nodes = sorted(graph)
    idx = {v: i for i, v in enumerate(nodes)}
    nbr_names = [sorted(graph[v]) for v in nodes]
    nbr = [[idx[u] for u in ns] for ns in nbr_names]
    lens = [[float(graph[v][u]["length"]) for u in ns] for v, ns in zip(nodes, nbr_names)]
    pi, Q, R = _initial_tables(lens, reward_mode, reward_const, q_init_const)
    t = idx[dest]
    st = [idx[s] for s in starts]
    max_steps = max(1, int(max_steps_factor) * len(nodes))
    one_minus_a = 1.0 - alpha
    chunk = 4096
    buf = rng.random(chunk).tolist()
    k = 0
    nst = len(st)
    for _ep in range(int(episodes)):
        if k >= chunk:
            buf = rng.random(chunk).tolist()
            k = 0
        v = st[int(buf[k] * nst)]
        k += 1
        steps = 0
        while v != t and steps < max_steps:
            steps += 1
            if k >= chunk:
                buf = rng.random(chunk).tolist()
                k = 0
            x = buf[k]
            k += 1
            pv = pi[v]
            kv = len(pv)
            j = kv - 1
            acc = 0.0
            for i in range(kv - 1):
                acc += pv[i]
                if x < acc:
                    j = i
                    break
            u = nbr[v][j]
            qv = Q[v]
            if u == t and terminal_at_dest:
                qv[j] = one_minus_a * qv[j] + alpha * (R[v][j] + goal_bonus)
            else:
                qv[j] = one_minus_a * qv[j] + alpha * (R[v][j] + gamma * max(Q[u]))
            rbar = 0.0
            for i in range(kv):
                rbar += pv[i] * qv[i]
            tot = 0.0
            for i in range(kv):
                y = pv[i] + zeta * (qv[i] - rbar)
                if y < pi_floor:
                    y = pi_floor
                pv[i] = y
                tot += y
            for i in range(kv):
                pv[i] /= tot
            v = u
        if trace is not None:
            trace.append(steps)
    pol = {nodes[i]: {nodes[u]: pi[i][j] for j, u in enumerate(nbr[i])} for i in range(len(nodes))}
    qd = {nodes[i]: {nodes[u]: Q[i][j] for j, u in enumerate(nbr[i])} for i in range(len(nodes))}
    return pol, qd


def prob_to_distance(p: "Sequence[float] | np.ndarray", lbar: float) -> np.ndarray:
    """d̂_i = k·L̄·(1/p_i)/Σ_j(1/p_j): the inverse of the π ∝ 1/ℓ initialisation (T7).

    Parameters
    ----------
    p : array_like
        Route probabilities at one node (all > 0).
    lbar : float
        L̄, the mean route length.

    Returns
    -------
    numpy.ndarray
        The estimated lengths d̂.
    """
    # a probability that underflowed to 0 (sharp softmax) is read as 1e-300: its arc
    # gets about k·L̄ and the others about 0, the limit of the rule
    x = np.maximum(np.asarray(p, dtype=np.float64), 1e-300)
    inv = 1.0 / x
    result: np.ndarray = x.size * float(lbar) * inv / inv.sum()
    return result


#: Above this many nodes :func:`hitting_steps` solves the sparse system (scipy's SuperLU)
#: instead of a dense n x n one (20,000 nodes would need 3.2 GB dense).
DENSE_HITTING_MAX = 1500


def _sparse_hitting(nodes: list[str], idx: dict[str, int], policy: Policy, dest: str
                    ) -> np.ndarray:
    """``(I − P₋ₜ) h = 1`` solved sparse (least squares if the system is singular)."""
    import warnings

    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    rows, cols, vals = list(range(len(nodes))), list(range(len(nodes))), [1.0] * len(nodes)
    for v in nodes:
        for u, p in policy.get(v, {}).items():
            if u != dest:
                rows.append(idx[v])
                cols.append(idx[u])
                vals.append(-float(p))
    A = sp.csc_matrix((vals, (rows, cols)), shape=(len(nodes), len(nodes)))
    b = np.ones(len(nodes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spla.MatrixRankWarning)
        h = np.asarray(spla.spsolve(A, b), dtype=np.float64)
    if not np.isfinite(h).all():
        h = np.asarray(spla.lsqr(A, b)[0], dtype=np.float64)
    return h


def hitting_steps(topology: nx.Graph, policy: Policy, dest: str) -> dict[str, float]:
    """Expected number of steps to reach ``dest`` following ``policy`` from every node.

    Solves (I − P₋ₜ) h = 1 (TD(0) policy evaluation with unit step cost and γ = 1);
    h(dest) = 0. Estimates are capped at :data:`HITTING_CAP`.

    Parameters
    ----------
    topology : networkx.Graph
        The map the policy moves on.
    policy : dict
        ``{node: {neighbour: probability}}``.
    dest : str
        The destination.

    Returns
    -------
    dict
        ``{node: expected steps}`` (nodes that never reach ``dest`` get the cap).
    """
    nodes = [v for v in sorted(topology) if v != dest]
    idx = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    if n == 0:
        return {dest: 0.0}
    if n > DENSE_HITTING_MAX:  # a large map: I - P is sparse (one row per node, its routes)
        h = _sparse_hitting(nodes, idx, policy, dest)
    else:
        A = np.eye(n)
        for v in nodes:
            i = idx[v]
            for u, p in policy.get(v, {}).items():
                if u != dest:
                    A[i, idx[u]] -= p
        try:
            h = np.linalg.solve(A, np.ones(n))
        except np.linalg.LinAlgError:
            h = np.linalg.lstsq(A, np.ones(n), rcond=None)[0]
    # With every probability >= pi_floor the walk reaches dest from every node of a
    # connected map, but h can reach (1/pi_floor)^depth and the solve loses precision:
    # such values (non-finite, or below the 1 step any node needs) become HITTING_CAP,
    # so the crossing stays usable as "very long" (completeness is kept).
    out = {v: (min(float(h[idx[v]]), HITTING_CAP) if np.isfinite(h[idx[v]]) and
               h[idx[v]] >= 1.0 - 1e-9 else HITTING_CAP) for v in nodes}
    out[dest] = 0.0
    return out


def inverse_prob_distances(topology: nx.Graph, policy: Policy, dest: str, lbar: float = 1.0
                           ) -> tuple[dict[str, float], dict[str, str]]:
    """Dijkstra distances to ``dest`` on arcs weighted by :func:`prob_to_distance`.

    Returns (distance to ``dest`` from each node, next hop on the shortest arc path).

    Parameters
    ----------
    topology : networkx.Graph
        The map the policy moves on.
    policy : dict
        ``{node: {neighbour: probability}}``.
    dest : str
        The destination.
    lbar : float
        L̄ of :func:`prob_to_distance`.

    Returns
    -------
    (dict, dict)
        Distance to ``dest`` and next hop, per node.
    """
    rev: dict[str, list[tuple[str, float]]] = {}
    for v in topology:
        pv = policy.get(v, {})
        if not pv:
            continue
        us = list(pv)
        d = prob_to_distance([pv[u] for u in us], lbar)
        for u, w in zip(us, d):
            rev.setdefault(u, []).append((v, float(w)))
    dist = {dest: 0.0}
    nxt: dict[str, str] = {}
    heap = [(0.0, dest)]
    while heap:
        d0, u = heapq.heappop(heap)
        if d0 > dist.get(u, math.inf):
            continue
        for v, w in rev.get(u, ()):
            nd = d0 + w
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                nxt[v] = u
                heapq.heappush(heap, (nd, v))
    return dist, nxt


def greedy_path(policy: Policy, start: str, dest: str, max_len: int) -> list[str]:
    """Follow the most likely arc from ``start`` until ``dest`` (for display).

    Parameters
    ----------
    policy : dict
        ``{node: {neighbour: probability}}``.
    start, dest : str
        Where to start and stop.
    max_len : int
        The most nodes followed (a loop stops there).

    Returns
    -------
    list of str
        The nodes visited, ``start`` first.
    """
    path = [start]
    seen = {start}
    v = start
    while v != dest and len(path) <= max_len:
        pv = policy.get(v)
        if not pv:
            break
        u = max(sorted(pv), key=lambda w: pv[w])
        if u in seen:
            break
        path.append(u)
        seen.add(u)
        v = u
    return path
