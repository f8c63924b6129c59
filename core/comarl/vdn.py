"""Tabular privacy-engineered VDN (dissertation ch. 4; spec F7) on a multi-agent grid.

N agents move on a grid map (``core.gridworld.maps``), each from its own start towards its own
goal cell; the team earns −0.05 per step and +1 for each agent arriving at its goal (which then
stays there); the episode ends when all have arrived. Agent i observes only its own cell
and keeps a table Q_i(o_i, a_i).
VDN: Q_tot = Σ_i Q_i(o_i, a_i), target y = r + γ·Σ_i max_a Q_i(o′_i, a), loss (y − Q_tot)².
Every agent's update needs the coupling term A = y − Q_tot, a sum over agents.

* **Central VDN** (the vanilla algorithm): a central optimiser sees every (o_i, a_i, o′_i, r)
  and computes A.
* **PE-VDN**: agent i contributes only s_i = Q_i(o_i, a_i) − (r/N + γ·max_a Q_i(o′_i, a))
  (the dissertation code's one-scalar message; Σ_i s_i = −A), and the agents learn Σ s_i by
  secure summation (``core.comarl.secure``). The update equals the central one up to the
  fixed-point encoding: |A_PE − A| < N·10⁻⁵ per step (spec B19 allows 2N·10⁻⁵).

**Optional DP-SGD on the tables** (spec F7): the per-sample gradient of Q_i is −A at one entry;
it is clipped to C (|A| ≤ C), the clipped sum over a Poisson sample (rate q, indices shared by
all agents) of a replay window of the last B transitions gets N(0, σ²C²) on **every** table
entry, and each agent takes one noisy step per environment step. ε from
:mod:`core.privacy.dpsgd` with the replay-buffer window (Theorem 4.2: each entry is used in at
most B steps); δ defaults to B^−1.1.

* **Unit: one transition.** A buffer entry is the team's transition at one step (every
  agent's (o, a, r, o′)); an episode adds up to ``max_steps`` of them. ε covers one entry.
* **Relation: replace-one.** The buffer keeps the last B entries, so two neighbouring runs
  differ by one entry *replaced*, not added or removed: the window composes B replace-one
  Poisson-subsampled Gaussian steps (dp-accounting's PLD). The dissertation's add/remove-one
  RDP figure at the same noise is kept as ``thesis_reading``, labelled.
* **Episode.** Runs that differ in one whole episode differ in up to ``max_steps`` entries:
  :func:`core.privacy.dpsgd.group_privacy` gives that figure (often unbounded).
* Because one agent's transition enters every agent's update through the shared coupling
  term, the N tables together are charged as one mechanism with noise multiplier σ/√N (the
  sound ε); one table alone has ε at σ (the dissertation's per-agent reading), shown beside it.

The secure-sum outputs the agents see are **not** covered by DP (spec §6 item 5).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.comarl.secure import MAX_ABS_SUM, secure_sum
from core.common.errors import InputError, RunFailure
from core.common.progress import Cancelled, Progress, no_progress
from core.gridworld.maps import MOVES, GridMap

__all__ = ["TeamGrid", "team_grid", "check_agents", "ALGORITHMS", "VdnSetup", "VdnResult",
           "train_vdn", "leakage", "UNIT",
           "VdnAccounting", "vdn_accounting", "team_step"]

UNIT = ("one transition: one replay-buffer entry, the team's (o, a, r, o') at one step "
        "(an episode adds up to max_steps of them)")


@dataclass(frozen=True)
class TeamGrid:
    """A map with N agents' starts and goals (distinct free cells)."""

    grid: GridMap
    starts: tuple[tuple[int, int], ...]
    goals: tuple[tuple[int, int], ...]

    @property
    def agents(self) -> int:
        return len(self.starts)


def check_agents(agents: Any) -> int:
    """The team's size: a whole number >= 2 (field ``agents``).

    Parameters
    ----------
    agents : Any
        The value to check.

    Returns
    -------
    int
    """
    if isinstance(agents, bool) or not isinstance(agents, (int, float, np.integer)) \
            or int(agents) != agents or agents < 2:
        raise InputError(f"PE-Co-MARL needs at least 2 agents, got {agents!r}", field="agents")
    return int(agents)


def team_grid(agents: int, *, rows: int = 7, cols: int = 7, seed: int = 0) -> TeamGrid:
    """A random map with ``agents`` starts and goals, far apart (BFS), all distinct."""
    from core.gridworld.maps import bfs_distance, random_map

    check_agents(agents)
    rng = np.random.default_rng(seed)
    g = random_map(rows, cols, rng, density=0.2)
    free = g.free_cells()
    if 2 * agents > len(free):
        raise InputError(f"{agents} agents need {2 * agents} free cells; the map has "
                         f"{len(free)}", field="agents")
    order = [free[i] for i in rng.permutation(len(free))]
    starts: list[tuple[int, int]] = []
    goals: list[tuple[int, int]] = []
    used: set[tuple[int, int]] = set()
    for s in order:
        if len(starts) == agents:
            break
        if s in used:
            continue
        d = bfs_distance(g.cells, s)
        cand = [c for c in free if c not in used and c != s]
        far = max(cand, key=lambda c: (d[c], -free.index(c)))
        starts.append(s)
        goals.append(far)
        used.update({s, far})
    return TeamGrid(g, tuple(starts), tuple(goals))


#: the learning rules: the coupled VDN update, or independent Q-learners (the baseline)
ALGORITHMS = ("vdn", "iql")


@dataclass(frozen=True)
class VdnSetup:
    episodes: int = 400
    max_steps: int = 60
    lr: float = 0.2
    gamma: float = 0.95
    explore: float = 0.2
    dp: bool = False
    sigma: float = 1.0
    clip: float = 1.0
    window: int = 1024
    sample_rate: float = 1 / 32
    delta: float | None = None
    secure: bool = True
    #: "vdn" (the coupled update) or "iql" (independent Q-learners on the team reward: the
    #: baseline; no coupling term, no secure summation)
    algorithm: str = "vdn"

    def validated(self, agents: int = 2) -> "VdnSetup":
        """This set-up checked for ``agents`` learners (each :class:`InputError` names its
        field: ``algorithm``, ``lr``, ``episodes``, ``max_steps``, ``window``, and with DP
        ``sigma`` and ``sample_rate``), the training's time estimated against the limit."""
        from core.common.validation import check_choice, check_positive, check_rate, check_whole

        check_choice(self.algorithm, ALGORITHMS, "algorithm")
        if self.algorithm == "iql" and self.dp:
            raise InputError("DP-SGD on the tables is implemented for VDN only",
                             field="algorithm")
        check_positive(self.lr, "lr")
        for name in ("episodes", "max_steps", "window"):
            check_whole(getattr(self, name), name)
        from core.common.resources import check_time

        # measured 1.7e-4 s per agent and step, 4.3e-4 with DP-SGD; about 2x for a margin
        per_step = (1e-3 if self.dp else 4e-4) * max(int(agents), 1)
        check_time(float(self.episodes) * float(self.max_steps) * per_step, "episodes",
                   detail=f"{int(self.episodes):,} episodes of up to {int(self.max_steps):,} "
                          f"steps for {agents} agents")
        if self.dp:
            check_positive(self.sigma, "sigma")
            check_rate(self.sample_rate, "sample_rate")
        return self


@dataclass
class VdnResult:
    team: TeamGrid
    setup: VdnSetup
    q: np.ndarray                 # (N, cells, 5)
    returns: np.ndarray           # per episode
    max_diff: float               # max |A_PE − A| over all updates
    updates: int
    epsilon: float | None
    delta: float | None
    epsilon_reason: str | None
    seconds: float
    central_seconds: float | None = None
    notes: list[str] = field(default_factory=list)
    seed: int | None = None
    epsilon_per_table: float | None = None
    thesis_reading: dict[str, Any] | None = None
    episode: dict[str, Any] | None = None
    #: the learners: "tabular" (Q-tables) or "net" (networks, the optional deep extra)
    agent: str = "tabular"

    @property
    def team_return(self) -> float:
        n = self.returns.size
        return float(self.returns[max(0, n - max(1, n // 10)):].mean())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"agents": self.team.agents, "algorithm": self.setup.algorithm,
               "lr": self.setup.lr, "team_return": self.team_return,
               "pe_vs_central_max_diff": self.max_diff,
               "pe_vs_central_bound": 2 * self.team.agents * 1e-5,
               "updates": self.updates, "epsilon": self.epsilon, "delta": self.delta,
               "epsilon_per_table": self.epsilon_per_table,
               "unit": UNIT if self.setup.dp else None,
               "neighboring_relation": "replace-one" if self.setup.dp else None,
               "thesis_reading": self.thesis_reading, "episode": self.episode,
               "seconds": self.seconds, "central_seconds": self.central_seconds,
               "overhead": (None if not self.central_seconds else
                            self.seconds / self.central_seconds),
               "leakage": leakage(self.team.agents), "notes": list(self.notes),
               "mode": "experiment" if self.seed is not None else "release", "seed": self.seed,
               "agent": self.agent,
               "returns": [float(v) for v in self.returns]}
        if self.epsilon is None:
            out["epsilon_reason"] = self.epsilon_reason
        return out


def leakage(agents: int) -> list[dict[str, str]]:
    """The leakage inspector: what each agent can compute from one secure summation."""
    rows = []
    for i in range(agents):
        others = [j for j in range(agents) if j != i]
        what = ("agent %d's message exactly (N = 2: secure summation hides nothing between "
                "the two)" % others[0] if agents == 2 else
                "the sum of agents " + ", ".join(str(j) for j in others) + "'s messages "
                "(Σ m − m_%d), not any single one" % i)
        rows.append({"agent": str(i), "learns": what,
                     "dp": "not covered by DP: the sums are revealed exactly"})
    return rows


def team_step(team: TeamGrid, pos: list[tuple[int, int]], actions: np.ndarray
          ) -> tuple[list[tuple[int, int]], float, bool]:
    """Move every agent that has not arrived; +1 for each agent arriving at its goal (it then
    stays), −0.05 per step; done when all have arrived."""
    cells = team.grid.cells
    new = []
    arrivals = 0
    for (r, c), a, g in zip(pos, actions, team.goals):
        if (r, c) == g:
            new.append((r, c))
            continue
        dr, dc = MOVES[int(a)]
        n = (r + dr, c + dc)
        n = n if cells[n] else (r, c)
        arrivals += n == g
        new.append(n)
    done = all(p == g for p, g in zip(new, team.goals))
    return new, arrivals - 0.05, done


def train_vdn(team: TeamGrid, setup: VdnSetup = VdnSetup(), *, seed: int | None = 0,
              central: bool = False, progress: Progress = no_progress,
              cancelled: Callable[[], bool] | None = None) -> VdnResult:
    """Train the team (module docstring); ``central=True`` is plain VDN (no secure summation).

    Parameters
    ----------
    team : TeamGrid
        Map, starts and goals.
    setup : VdnSetup
        Learning and DP parameters.
    seed : int or None
        Experiment seed; None: release mode (shares and DP noise from the OS CSPRNG).
    central : bool
        Plain VDN: A computed centrally (the reference for the PE update and the overhead).
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    VdnResult
    """
    from core.common.validation import as_random_source, fresh_seed

    setup = setup.validated(team.agents)
    N = team.agents
    H, W = team.grid.shape
    src = as_random_source(seed)
    rng = np.random.default_rng(seed if seed is not None else fresh_seed())
    share_rng = np.random.default_rng([seed, 7]) if seed is not None else None
    noise = rng if src.mode == "experiment" else src.generator
    q = np.zeros((N, H * W, 5))
    returns = np.zeros(setup.episodes)
    max_diff = 0.0
    updates = 0
    buf_o: list[np.ndarray] = []
    buf_a: list[np.ndarray] = []
    buf_r: list[float] = []
    buf_o2: list[np.ndarray] = []
    buf_d: list[bool] = []
    t0 = time.perf_counter()
    agents = np.arange(N)
    for e in range(setup.episodes):
        if cancelled is not None and cancelled():
            raise Cancelled()
        pos = list(team.starts)
        total = 0.0
        for _t in range(setup.max_steps):
            o = np.array([r * W + c for r, c in pos])
            qo = q[agents, o]
            # ties broken at random (zero-initialised tables would otherwise always go "up")
            greedy = (qo + 1e-9 * rng.random(qo.shape) * (qo == qo.max(axis=1, keepdims=True))
                      ).argmax(axis=1)
            rand = rng.integers(5, size=N)
            act = np.where(rng.random(N) < setup.explore, rand, greedy)
            pos, r, done = team_step(team, pos, act)
            o2 = np.array([rr * W + cc for rr, cc in pos])
            total += r
            if setup.dp:
                buf_o.append(o)
                buf_a.append(act)
                buf_r.append(r)
                buf_o2.append(o2)
                buf_d.append(done)
                if len(buf_o) > setup.window:
                    for b in (buf_o, buf_a, buf_r, buf_o2, buf_d):
                        b.pop(0)
                idx = np.flatnonzero(rng.random(len(buf_o)) < setup.sample_rate)
                grad = setup.sigma * setup.clip * noise.standard_normal(q.shape)
                if idx.size:  # Poisson indices common to all agents
                    bo = np.array([buf_o[k] for k in idx]).T        # (N, batch)
                    ba = np.array([buf_a[k] for k in idx]).T
                    br = np.array([buf_r[k] for k in idx])
                    bo2 = np.array([buf_o2[k] for k in idx]).T
                    bd = np.array([buf_d[k] for k in idx])
                    a_k, d_k = _coupling(q, agents, bo, ba, br, bo2, bd, setup, N, central,
                                         share_rng)
                    np.add.at(grad, (agents[:, None], bo, ba),
                              np.clip(a_k, -setup.clip, setup.clip)[None, :])
                    max_diff = max(max_diff, d_k)
                q += setup.lr * grad / max(setup.sample_rate * len(buf_o), 1.0)
                np.clip(q, *q_range(setup, N), out=q)        # post-processing of the noisy step
            elif setup.algorithm == "iql":
                # every agent learns the team's return from its own cell alone
                nxt = 0.0 if done else q[agents, o2].max(axis=1)
                q[agents, o, act] += setup.lr * (r + setup.gamma * nxt - q[agents, o, act])
                _project(q, agents, o, act, setup, N)
            else:
                A, diff = _coupling(q, agents, o[:, None], act[:, None], np.array([r]),
                                    o2[:, None], np.array([done]), setup, N, central,
                                    share_rng)
                # each table takes lr/N of the TD error, so Q_tot = Σ_i Q_i moves by lr·A
                # (a step of lr·A per table moves it by N·lr·A: with N·lr ≥ ~0.8 the
                # bootstrapped targets run away — |Q| reached 1e9 at N = 3, 1e170 at N = 4)
                q[agents, o, act] += setup.lr / N * A[0]
                _project(q, agents, o, act, setup, N)
                max_diff = max(max_diff, diff)
            updates += 1
            if done:
                break
        returns[e] = total
        if e % 20 == 0:
            progress((e + 1) / setup.episodes, f"episode {e + 1}")
    acc = vdn_accounting(setup, N, updates)
    return VdnResult(team, setup, q, returns, max_diff, updates, acc.epsilon, acc.delta,
                     acc.reason, time.perf_counter() - t0, notes=acc.notes, seed=seed,
                     epsilon_per_table=acc.epsilon_per_table,
                     thesis_reading=acc.thesis_reading, episode=acc.episode)


@dataclass
class VdnAccounting:
    """(ε, δ) of a PE-VDN training run and what it covers (:func:`vdn_accounting`)."""

    epsilon: float | None
    delta: float | None
    reason: str | None
    epsilon_per_table: float | None
    thesis_reading: dict[str, Any] | None
    episode: dict[str, Any] | None
    notes: list[str]


def vdn_accounting(setup: VdnSetup, N: int, updates: int, *, what: str = "Q-tables"
                   ) -> VdnAccounting:
    """The privacy account of ``updates`` DP-SGD steps of N agents (module docstring): the
    N learners together at noise multiplier σ/√N under the replay window (replace-one),
    one learner alone at σ, and one episode by group privacy.

    Parameters
    ----------
    setup : VdnSetup
        σ, q, B, δ, ``dp`` and ``max_steps``.
    N : int
        Agents.
    updates : int
        DP steps taken (one per environment step).
    what : str
        What the agents learn ("Q-tables" or "Q-networks"), for the notes.

    Returns
    -------
    VdnAccounting
    """
    eps = delta = eps_table = None
    thesis: dict[str, Any] | None = None
    episode: dict[str, Any] | None = None
    reason: str | None = f"no DP: the {what} are trained on the raw transitions"
    notes = ["the secure-sum outputs each agent sees are not covered by any DP statement"]
    if N == 2:
        notes.append("N = 2: each agent learns its partner's message exactly")
    if setup.dp:
        from core.privacy.dpsgd import dpsgd_epsilon, group_privacy

        delta = setup.delta if setup.delta is not None else float(setup.window) ** -1.1
        # One agent's transition enters the coupling term of every agent's update at that
        # sample, so each of the N tables moves by ≤ C: releasing all N tables is one
        # Gaussian mechanism of sensitivity √N·C with noise σC per coordinate, i.e. noise
        # multiplier σ/√N (the sound statement). Per table, σ (the dissertation's reading).
        noise = setup.sigma / math.sqrt(N)
        acc = dpsgd_epsilon(noise, setup.sample_rate, max(updates, 1), delta,
                            window=setup.window)
        per_table = dpsgd_epsilon(setup.sigma, setup.sample_rate, max(updates, 1), delta,
                                  window=setup.window)
        eps, reason = acc.epsilon, acc.reason
        eps_table = per_table.epsilon
        thesis = acc.thesis_reading
        episode = group_privacy(noise, setup.sample_rate, max(updates, 1), delta,
                                window=setup.window, group=setup.max_steps).to_json()
        notes.extend(acc.notes)
        notes.append(f"epsilon covers all {N} {what}: one agent's transition moves every "
                     f"agent's update (through the shared coupling term), so the {what} "
                     "together have noise multiplier sigma/sqrt(N) = "
                     f"{noise:.4g}; one table alone: epsilon "
                     + ("unbounded" if eps_table is None else f"{eps_table:.4g}")
                     + " (the dissertation's per-agent noise, under replace-one)")
        notes.append(f"the unit is {UNIT}; an episode differs in up to {setup.max_steps} "
                     "entries: its figure comes from group privacy (see 'episode')")
    return VdnAccounting(eps, delta, reason, eps_table, thesis, episode, notes)


def q_range(setup: VdnSetup, agents: int) -> tuple[float, float]:
    """The box every table entry is kept in: returns lie in [−0.05·Σγᵗ, N] (−0.05 per step,
    +1 per agent once), so Q_tot ∈ [−0.05/(1 − γ), N]; each of the N VDN tables gets 1/N
    of it, an IQL table (which estimates the team's return itself) all of it."""
    lo = -0.05 / (1.0 - setup.gamma)
    return (lo, float(agents)) if setup.algorithm == "iql" else (lo / agents, 1.0)


def _project(q: np.ndarray, agents: np.ndarray, o: np.ndarray, a: np.ndarray,
             setup: VdnSetup, N: int) -> None:
    """Clip the updated entries into :func:`q_range` (the tabular factorisation is linear
    function approximation: without a bound its off-policy targets can diverge)."""
    lo, hi = q_range(setup, N)
    q[agents, o, a] = np.clip(q[agents, o, a], lo, hi)


def _coupling(q: np.ndarray, agents: np.ndarray, o: np.ndarray, a: np.ndarray,
              r: np.ndarray, o2: np.ndarray, done: np.ndarray, setup: VdnSetup, N: int,
              central: bool, share_rng: np.random.Generator | None
              ) -> tuple[np.ndarray, float]:
    """A = y − Q_tot for a batch of transitions (o, a, o2 of shape (N, batch)), centrally or
    by one secure summation of the agents' s_i; returns (A, max |A_PE − A|)."""
    qa = q[agents[:, None], o, a]                               # (N, batch)
    nxt = np.where(done[None, :], 0.0, q[agents[:, None], o2].max(axis=2))
    A = r + setup.gamma * nxt.sum(axis=0) - qa.sum(axis=0)
    if central:
        return A, 0.0
    s = qa - (r[None, :] / N + setup.gamma * nxt)
    top = float(np.abs(s).sum(axis=0).max(initial=0.0)) if np.isfinite(s).all() else math.inf
    if top >= MAX_ABS_SUM:   # the tables are kept in q_range, so this means a broken update
        raise RunFailure(f"PE-VDN stopped: the secure sum's messages reached {top:.4g}, beyond "
                         f"the fixed-point range |sum| < {MAX_ABS_SUM:.6g} (the Q-tables "
                         "diverged)")
    a_pe = -secure_sum(s, share_rng)
    return a_pe, float(np.abs(a_pe - A).max())
