"""DP-DRL (Shen's thesis ch. 5, Algorithms 9–11) on grid worlds, with a tabular learner.

Size: one experiment: the scores, the exponential-mechanism choice and the tabular learner they
perturb (Algorithms 9–11) share the set-up and result types.

Alg. 9 scores each of the 8 observation bits by how little flipping it changes the agent's
Q-values (the least important bit scores N, the most important 1); Alg. 10 picks one bit with
the exponential mechanism, p_i ∝ exp(ε·sr_i/(2S)), and flips it; the agent learns on the
obfuscated observation. Presets:

* ``strict`` (default): fixed ε and S = N − 1 (scores lie in [1, N], so the choice is ε-DP for
  *any* change of the eight scores);
* ``thesis``: the faithful version — ε = arctan(d_max − d_min) clipped to [0.1, 1.0] and
  S = top-1 − top-2 score, both computed from the private data (A17/A18; S < 1e-12 falls back
  to N − 1, a zero spread gives the uniform choice). Its flaws are listed in every result.

**What the guarantee covers — an erratum of ours.** Thm 5.1 calls DP-DRL ε-DP for observations
that differ in one element. The exponential mechanism protects *which* bit is flipped, but the
released observation is the true one with one bit flipped: for neighbours O, O′ (one bit apart)
the outputs O ⊕ e_i and O′ ⊕ e_k never coincide, so no finite ε holds for the observation
adjacency. PrivPlan prints ``epsilon_per_step`` as the selection's ε (adjacency: any change of
the eight scores) and ``epsilon_total`` for the map as **unbounded** with that reason; the ledger
records every obfuscated step (count = steps). The attack (``core.gridworld.attack``) measures
what the defense achieves in practice.

**How far ε moves the choice** (:func:`choice_bounds`, ``docs/dp-drl.md``): with S = N − 1 the
largest ratio of two bits' probabilities is e^(ε/2) for every N and map, so in the thesis's
range ε ≤ 1 every bit keeps a probability in [0.080, 0.191] (uniform: 0.125); the choice
favours a bit only from ε ≈ 4 (≤ 0.51) and is near-deterministic from ε ≈ 16. A run records
the realised mean of the choice's largest probability (``choice_p_max_mean``).

**Convergence per run** (:func:`evaluate_convergence`, :attr:`DrlResult.convergence`): at
least 90 % of 20 greedy evaluation episodes, observing as in training, reach the goal within
twice the shortest path; ``to_json`` reports ``converged`` and ``convergence``.

Learner (spec §6.8, §8.4): tabular Q-learning on (position, obfuscated 8 bits) — the
un-obfuscated normalised position is part of the state (A14), the obfuscated observation of a
step is carried forward as the next step's (A15), ℓ2 distances (A16).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress
from core.gridworld.maps import MOVES, GridMap, check_map, observations

__all__ = ["scores", "selection_probabilities", "roulette", "obfuscate", "DrlSetup",
           "DrlResult", "train_agent", "PRESETS", "THESIS_FLAWS", "OBSERVATION_REASON",
           "choice_bounds", "Convergence", "evaluate_convergence", "CONVERGENCE_CRITERION",
           "EVAL_EPISODES", "CONVERGED_SHARE", "STEP_LIMIT_FACTOR", "grid_step", "drl_result",
           "DEFENSES"]

PRESETS = ("strict", "thesis")
#: the defenses: none, or DP-DRL's obfuscated observations
DEFENSES = ("none", "dpdrl")
N_SCORE = 10.0
THESIS_FLAWS = (
    "thesis preset: ε = arctan(d_max − d_min) and S = top-1 − top-2 are computed from the "
    "private Q-values and observation, so neither is a valid public privacy parameter (A17)",
    "S = 0 on tied scores would divide by zero (falls back to N − 1); a zero spread gives the "
    "uniform choice",
    "per-step ε composes over every visited step of training: a run's total is huge (or, for "
    "the observation itself, unbounded)",
)
OBSERVATION_REASON = (
    "the obfuscated observation equals the true one except one bit: observations one bit "
    "apart give disjoint outputs, so no finite ε holds for the map (the exponential "
    "mechanism protects only which bit is flipped)")


def scores(d: np.ndarray, n: float = N_SCORE) -> tuple[np.ndarray, float, float]:
    """Alg. 9 lines 10–16: sr_i = N^(1 − d′_i), d′ = (d − d_min)/(d_max − d_min).

    Returns (sr, d_min, d_max); a zero spread gives all scores N (the uniform choice).

    >>> sr, lo, hi = scores(np.array([0.1, 0.5, 0.3, 0.9, 0.2, 0.7, 0.4, 0.6]))
    >>> np.round(sr, 6).tolist()[:4], lo, hi
    ([10.0, 3.162278, 5.623413, 1.0], 0.1, 0.9)
    """
    d = np.asarray(d, dtype=np.float64)
    lo, hi = float(d.min()), float(d.max())
    if hi - lo < 1e-12:
        return np.full(d.shape, float(n)), lo, hi
    dn = (d - lo) / (hi - lo)
    return n ** (1.0 - dn), lo, hi


def selection_probabilities(sr: np.ndarray, d_min: float, d_max: float, *,
                            preset: str = "strict", epsilon: float | None = None,
                            n: float = N_SCORE) -> tuple[np.ndarray, float, float]:
    """Alg. 10 lines 4–13: (p, ε, S).

    ``strict``: the given ε, S = N − 1. ``thesis``: ε = arctan(d_max − d_min) clipped to
    [0.1, 1.0] (A18) and S = sr_top1 − sr_top2 (A17 fallbacks).

    >>> sr, lo, hi = scores(np.array([0.1, 0.5, 0.3, 0.9, 0.2, 0.7, 0.4, 0.6]))
    >>> p, eps, S = selection_probabilities(sr, lo, hi, preset="thesis")
    >>> round(eps, 10), round(S, 10), round(float(p[0]), 6)
    (0.6747409422, 2.5010579067, 0.24343)
    """
    if preset == "strict":
        if epsilon is None or not (math.isfinite(epsilon) and epsilon > 0):
            raise InputError(f"the strict preset needs a finite ε > 0, got {epsilon!r}",
                             field="epsilon")
        eps, S = float(epsilon), float(n - 1.0)
    elif preset == "thesis":
        spread = d_max - d_min
        if spread < 1e-12:
            return np.full(sr.size, 1.0 / sr.size), 0.0, float(n - 1.0)
        eps = float(min(max(math.atan(spread), 0.1), 1.0))
        top = np.sort(sr)[::-1]
        S = float(top[0] - top[1])
        if S < 1e-12:
            S = float(n - 1.0)
    else:
        raise InputError(f"must be strict or thesis, got {preset!r}", field="preset")
    z = eps * sr / (2.0 * S)
    z -= z.max()
    p = np.exp(z)
    return p / p.sum(), eps, S


def choice_bounds(epsilon: float, sensitivity: float | None = None, n: float = N_SCORE,
                  k: int = 8) -> tuple[float, float, float]:
    """How far from uniform Alg. 10's choice can be: ``(ratio, p_min, p_max)``.

    With scores in [1, N] and p_i ∝ exp(ε·sr_i/(2S)), the largest ratio of two bits'
    probabilities is ``exp(ε·(N − 1)/(2S))``; the largest probability any bit can get is
    ``ratio/(ratio + k − 1)`` (that bit scores N, every other 1: the scores of d = (0, 1, …, 1))
    and the smallest ``1/(1 + (k − 1)·ratio)`` (d = (1, 0, …, 0)). Both extremes are attained,
    so the choice is within [p_min, p_max] of each bit for *every* Q-table. With the strict
    preset (S = N − 1) the ratio is exp(ε/2) whatever N: uniform is 1/k.

    Parameters
    ----------
    epsilon : float
        ε of the choice (> 0).
    sensitivity : float, optional
        S (default N − 1, the strict preset).
    n : float
        The score range's top N (default 10).
    k : int
        The number of bits (8).

    Returns
    -------
    (float, float, float)
        The largest probability ratio, the smallest and the largest probability of one bit.

    Examples
    --------
    >>> r, lo, hi = choice_bounds(1.0)
    >>> round(r, 4), round(lo, 4), round(hi, 4)
    (1.6487, 0.0797, 0.1906)
    >>> [round(choice_bounds(e)[2], 3) for e in (0.1, 4.0, 16.0)]
    [0.131, 0.514, 0.998]
    """
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise InputError(f"must be a finite number > 0, got {epsilon!r}", field="epsilon")
    S = float(n - 1.0) if sensitivity is None else float(sensitivity)
    if not S > 0:
        raise InputError(f"must be > 0, got {sensitivity!r}", field="sensitivity")
    a = epsilon * (n - 1.0) / (2.0 * S)
    if a > 700:     # exp overflows: the choice is deterministic
        return math.inf, 0.0, 1.0
    r = math.exp(a)
    return r, 1.0 / (1.0 + (k - 1) * r), r / (r + k - 1)


def roulette(p: np.ndarray, u: float) -> int:
    """Alg. 10 line 15: the index whose cumulative probability first reaches u.

    >>> p = np.array([0.243430, 0.096784, 0.134891, 0.072299, 0.173723, 0.080302, 0.111581,
    ...               0.086990])
    >>> roulette(p, 0.5), roulette(p, 0.2)
    (3, 0)
    """
    c = np.cumsum(p)
    return min(int(np.searchsorted(c, u, side="left")), p.size - 1)


_FLIPS = 1 << np.arange(8)


def obfuscate(obs: int, q_pos: np.ndarray, *, preset: str, epsilon: float | None,
              rng: Any, p_max: list[float] | None = None) -> tuple[int, int, float]:
    """Alg. 9 + 10 on one observation: returns (O*, the flipped bit, the ε used).

    ``q_pos`` is the agent's (256, 5) Q-table at the current position (row o = observation
    o); ``rng`` is a numpy Generator (experiment: roulette wheel) or None (release: OpenDP's
    exponential mechanism on the same utilities). ``p_max``, when given, gets the choice's
    largest probability appended (1/8: a uniform choice; 1: a deterministic one).
    """
    d = np.sqrt(((q_pos[obs ^ _FLIPS] - q_pos[obs]) ** 2).sum(axis=1))
    sr, lo, hi = scores(d)
    p, eps, S = selection_probabilities(sr, lo, hi, preset=preset, epsilon=epsilon)
    if p_max is not None:
        p_max.append(float(p.max()))
    if rng is None:
        from core.privacy.laplace import exponential_mechanism

        if eps > 0:
            i = exponential_mechanism(sr, epsilon=eps, sensitivity=S, rng=None)
        else:  # a zero spread: the uniform choice
            import secrets

            i = secrets.randbelow(8)
    else:
        i = roulette(p, float(rng.random()))
    return obs ^ (1 << i), i, eps


@dataclass(frozen=True)
class DrlSetup:
    """Training and defense parameters."""

    defense: str = "none"          # "none" or "dpdrl"
    preset: str = "strict"
    epsilon: float | None = None   # strict: the fixed ε per step
    episodes: int = 1500
    max_steps: int = 200
    alpha: float = 0.5
    gamma: float = 0.95
    greedy_final: float = 0.9      # ε_g reaches this after the ramp (greedy when p ≤ ε_g)
    ramp: float = 0.2              # share of episodes for the ramp

    def validated(self) -> "DrlSetup":
        """This set-up checked (each :class:`InputError` names its field: ``episodes``,
        ``max_steps``, ``defense``, ``preset``, ``epsilon``), the strict preset's ε filled in
        (1 when not given), and the training's time estimated against the limit."""
        from core.common.validation import check_choice, check_positive, check_whole

        for name in ("episodes", "max_steps"):
            check_whole(getattr(self, name), name)
        check_choice(self.defense, DEFENSES, "defense")
        check_choice(self.preset, PRESETS, "preset")
        out = self
        if self.defense == "dpdrl" and self.preset == "strict":
            e = 1.0 if self.epsilon is None else self.epsilon
            if isinstance(e, bool):
                raise InputError(f"must be a finite number > 0, got {self.epsilon!r}",
                                 field="epsilon")
            out = replace(self, epsilon=check_positive(e, "epsilon"))
        elif self.defense == "none" and self.epsilon is not None:
            raise InputError("--epsilon needs --defense dpdrl", field="epsilon")
        from core.common.resources import check_time

        # measured 5e-5 s a step, 3.3e-4 with the obfuscation; about 2x for a margin
        per_step = 7e-4 if self.defense == "dpdrl" else 1e-4
        check_time(float(self.episodes) * float(self.max_steps) * per_step, "episodes",
                   detail=f"{int(self.episodes):,} episodes of up to {int(self.max_steps):,} "
                          "steps")
        return out


EVAL_EPISODES = 20
CONVERGED_SHARE = 0.9
STEP_LIMIT_FACTOR = 2
CONVERGENCE_CRITERION = (
    "converged: at least {share:.0%} of {episodes} greedy evaluation episodes after training "
    "(no exploration, no learning, ties broken at random; the agent observes as it trained, "
    "obfuscated under DP-DRL) reach the goal within {factor} x the shortest path "
    "({limit} steps)")


@dataclass(frozen=True)
class Convergence:
    """Did the trained agent learn to navigate? (the stated criterion, per run)."""

    converged: bool
    eval_success: float        # share of the evaluation episodes within the step limit
    eval_steps_mean: float     # mean steps of those that made it (NaN: none)
    episodes: int
    step_limit: int
    shortest: int
    criterion: str

    def to_json(self) -> dict[str, Any]:
        return {"converged": self.converged, "eval_success": self.eval_success,
                "eval_steps_mean": (None if math.isnan(self.eval_steps_mean)
                                    else self.eval_steps_mean),
                **({"eval_steps_mean_reason": "no evaluation episode reached the goal"}
                   if math.isnan(self.eval_steps_mean) else {}),
                "eval_episodes": self.episodes, "step_limit": self.step_limit,
                "shortest_path": self.shortest, "criterion": self.criterion}


def evaluate_convergence(result: "DrlResult", *, episodes: int = EVAL_EPISODES,
                         share: float = CONVERGED_SHARE, factor: float = STEP_LIMIT_FACTOR,
                         seed: int | None = None) -> Convergence:
    """Run the trained agent greedily and apply the convergence criterion
    (:data:`CONVERGENCE_CRITERION`).

    The evaluation neither learns nor explores; ties between equal Q-values are broken at
    random, and under DP-DRL every observation is obfuscated with the run's own preset and ε
    (the agent never saw a true observation in training: its table has nothing there). It
    reads the true map (like the final-stage reward), is not a release and is not recorded in
    the ledger.

    Parameters
    ----------
    result : DrlResult
        A trained agent (tabular or a DQN's evaluated table).
    episodes : int
        K evaluation episodes (default 20).
    share : float
        The share of them that must reach the goal (default 0.9).
    factor : float
        The step limit as a multiple of the shortest path (default 2).
    seed : int, optional
        Default: the run's seed (experiment mode: reproducible); a release-mode run draws a
        fresh one and obfuscates through OpenDP as in training.

    Returns
    -------
    Convergence
    """
    from core.common.validation import fresh_seed
    from core.gridworld.maps import bfs_distance

    grid, setup, q = result.grid, result.setup, result.q
    H, W = grid.shape
    shortest = int(bfs_distance(grid.cells, grid.goal)[grid.start])
    limit = max(1, int(math.ceil(factor * shortest)))
    base = seed if seed is not None else result.seed
    release = base is None
    if base is None:
        base = fresh_seed()
    rng = np.random.default_rng([int(base), 2])
    sel_rng = None if release else np.random.default_rng([int(base), 3])
    dp = setup.defense == "dpdrl"
    true_obs = observations(grid.cells)
    ok, used = 0, []
    for _ in range(int(episodes)):
        r, c = grid.start
        pos = r * W + c
        obs = int(true_obs[r, c])
        if dp:
            obs = obfuscate(obs, q[pos], preset=setup.preset, epsilon=setup.epsilon,
                            rng=sel_rng)[0]
        for n in range(1, limit + 1):
            row = q[pos, obs]
            a = int(rng.choice(np.flatnonzero(row == row.max())))
            dr, dc = MOVES[a]
            if a != 4 and grid.cells[r + dr, c + dc]:
                r, c = r + dr, c + dc
            if (r, c) == grid.goal:
                ok += 1
                used.append(n)
                break
            pos = r * W + c
            obs = int(true_obs[r, c])
            if dp:
                obs = obfuscate(obs, q[pos], preset=setup.preset, epsilon=setup.epsilon,
                                rng=sel_rng)[0]
    rate = ok / max(1, int(episodes))
    return Convergence(converged=rate >= share - 1e-12, eval_success=rate,
                       eval_steps_mean=float(np.mean(used)) if used else math.nan,
                       episodes=int(episodes), step_limit=limit, shortest=shortest,
                       criterion=CONVERGENCE_CRITERION.format(
                           share=share, episodes=int(episodes), factor=f"{factor:g}",
                           limit=limit))


@dataclass
class DrlResult:
    """A training run: curves, the final stage, the policy table and the privacy account."""

    grid: GridMap
    setup: DrlSetup
    q: np.ndarray                  # (H·W, 256, 5)
    rewards: np.ndarray            # per episode
    steps: np.ndarray              # per episode
    reached: np.ndarray            # per episode (bool)
    obfuscated_steps: int
    epsilon_per_step: float | None
    epsilon_mean: float | None
    mode: str
    seed: int | None
    elapsed_s: float
    time_per_step_s: float
    obfuscation_s_per_step: float
    notes: list[str] = field(default_factory=list)
    #: the learner: "tabular" (Q-table) or "dqn" (a network, the optional deep extra)
    agent: str = "tabular"
    #: mean over the obfuscated steps of the choice's largest probability (1/8: uniform)
    choice_p_max_mean: float | None = None
    _convergence: Convergence | None = field(default=None, repr=False)

    @property
    def convergence(self) -> Convergence:
        """The convergence criterion applied to this run (evaluated once, on first use)."""
        if self._convergence is None:
            self._convergence = evaluate_convergence(self)
        return self._convergence

    @property
    def final_slice(self) -> slice:
        n = self.rewards.size
        return slice(max(0, n - max(1, n // 10)), n)

    @property
    def reward_final(self) -> float:
        return float(self.rewards[self.final_slice].mean())

    @property
    def steps_final(self) -> float:
        return float(self.steps[self.final_slice].mean())

    def policy(self, tau: float = 0.1) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """π_T(· | position, observation) = softmax(Q/τ) (the attacker's query access)."""
        q = self.q

        def pi(pos: np.ndarray, obs: np.ndarray) -> np.ndarray:
            z = q[pos, obs] / tau
            z = z - z.max(axis=-1, keepdims=True)
            e = np.exp(z)
            result: np.ndarray = e / e.sum(axis=-1, keepdims=True)
            return result

        return pi

    def to_json(self) -> dict[str, Any]:
        d = self.setup.defense == "dpdrl"
        out: dict[str, Any] = {
            "map": self.grid.name, "size": list(self.grid.shape),
            "defense": self.setup.defense, "preset": self.setup.preset if d else None,
            "episodes": int(self.rewards.size), "reward_final": self.reward_final,
            "steps_final": self.steps_final,
            "success_final": float(self.reached[self.final_slice].mean()),
            "epsilon_per_step": self.epsilon_per_step, "epsilon_mean_used": self.epsilon_mean,
            "epsilon_total": None,
            "epsilon_total_reason": (OBSERVATION_REASON if d else
                                     "no defense: the agent learns on the true observations"),
            "obfuscated_steps": self.obfuscated_steps, "mode": self.mode, "seed": self.seed,
            "elapsed_s": self.elapsed_s, "time_per_step_s": self.time_per_step_s,
            "obfuscation_s_per_step": self.obfuscation_s_per_step,
            "notes": list(self.notes), "agent": self.agent,
        }
        conv = self.convergence
        out["converged"] = conv.converged
        out["convergence"] = conv.to_json()
        if d:
            out["choice_p_max_mean"] = self.choice_p_max_mean
            if self.choice_p_max_mean is None:
                out["choice_p_max_mean_reason"] = "not recorded by this learner"
        if d:
            out["epsilon_selection_total"] = (None if self.epsilon_per_step is None else
                                              self.epsilon_per_step * self.obfuscated_steps)
        return out


def grid_step(grid: GridMap, r: int, c: int, a: int) -> tuple[float, int, int, bool]:
    """One move of the training environment (Alg. 11), for every learner.

    Parameters
    ----------
    grid : GridMap
        The map.
    r, c : int
        The agent's cell.
    a : int
        The action, an index into :data:`~core.gridworld.maps.MOVES` (4: stay).

    Returns
    -------
    tuple
        ``(reward, row, col, done)``: staying or moving into a wall keeps the agent where it
        is at reward −0.1, a move to a free cell costs 0, reaching the goal gives 1 and ends
        the episode.
    """
    dr, dc = MOVES[a]
    nr, nc = r + dr, c + dc
    if a == 4 or not grid.cells[nr, nc]:
        rew, nr, nc = -0.1, r, c
    else:
        rew = 0.0
    done = (nr, nc) == grid.goal
    if done:
        rew = 1.0
    return rew, nr, nc, done


def drl_result(grid: GridMap, setup: DrlSetup, q: np.ndarray, rewards: np.ndarray,
               steps: np.ndarray, reached: np.ndarray, *, eps_used: list[float],
               seed: int | None, elapsed: float, total_steps: int, obf_time: float,
               notes: list[str], progress: Progress, **extra: Any) -> DrlResult:
    """A finished training's result, for every learner (the tabular one, the DQN).

    Appends the defense's notes to ``notes``, reports progress 1.0 ("trained") and states
    the privacy account from the ε of each obfuscated step.

    Parameters
    ----------
    grid, setup : GridMap, DrlSetup
        The map and the validated setup trained with.
    q, rewards, steps, reached : np.ndarray
        The Q-table and the per-episode curves.
    eps_used : list of float
        The ε of each obfuscated step (empty without the defense).
    seed : int or None
        The experiment seed; None: release mode.
    elapsed, total_steps, obf_time : float, int, float
        Training time, steps taken and time spent obfuscating.
    notes : list of str
        The learner's own notes (extended in place).
    progress : callable
        Told ``(1.0, "trained")``.
    **extra
        Further :class:`DrlResult` fields (``agent``, ``choice_p_max_mean``).

    Returns
    -------
    DrlResult
    """
    dp = setup.defense == "dpdrl"
    if dp and setup.preset == "thesis":
        notes.extend(THESIS_FLAWS)
    if dp:
        notes.append(OBSERVATION_REASON)
    progress(1.0, "trained")
    return DrlResult(
        grid=grid, setup=setup, q=q, rewards=rewards, steps=steps, reached=reached,
        obfuscated_steps=len(eps_used),
        epsilon_per_step=(setup.epsilon if dp and setup.preset == "strict" else None),
        epsilon_mean=float(np.mean(eps_used)) if eps_used else None,
        mode="experiment" if seed is not None else "release", seed=seed,
        elapsed_s=elapsed, time_per_step_s=elapsed / max(total_steps, 1),
        obfuscation_s_per_step=obf_time / max(len(eps_used), 1), notes=notes, **extra)


def train_agent(grid: GridMap, setup: DrlSetup, *, seed: int | None = None,
                progress: Progress = no_progress,
                cancelled: Callable[[], bool] | None = None) -> DrlResult:
    """Alg. 11 with a tabular learner (module docstring).

    Parameters
    ----------
    grid : GridMap
        The map (checked against the constraints).
    setup : DrlSetup
        Defense and training.
    seed : int, optional
        Experiment seed; None: release mode (exploration from a fresh seed, the bit choices
        from OpenDP's exponential mechanism).
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    DrlResult
    """
    from core.common.validation import fresh_seed

    check_map(grid)
    setup = setup.validated()
    base = seed if seed is not None else fresh_seed()
    rng = np.random.default_rng(base)
    sel_rng = np.random.default_rng([base, 1]) if seed is not None else None
    H, W = grid.shape
    true_obs = observations(grid.cells)
    q = np.zeros((H * W, 256, 5))
    E = int(setup.episodes)
    rewards, steps = np.zeros(E), np.zeros(E, dtype=np.int64)
    reached = np.zeros(E, dtype=bool)
    dp = setup.defense == "dpdrl"
    eps_used: list[float] = []
    p_max: list[float] = []
    t0 = time.perf_counter()
    obf_time = 0.0
    total_steps = 0
    for e in range(E):
        if cancelled is not None and cancelled():
            raise Cancelled()
        greedy_p = setup.greedy_final * min(1.0, e / max(1.0, setup.ramp * E))
        r, c = grid.start
        pos = r * W + c
        obs = int(true_obs[r, c])
        if dp:
            t1 = time.perf_counter()
            obs, _i, eu = obfuscate(obs, q[pos], preset=setup.preset,
                                    epsilon=setup.epsilon, rng=sel_rng, p_max=p_max)
            eps_used.append(eu)
            obf_time += time.perf_counter() - t1
        total = 0.0
        n = 0
        done = False
        while n < setup.max_steps:
            n += 1
            if rng.random() <= greedy_p:
                row = q[pos, obs]
                a = int(rng.choice(np.flatnonzero(row == row.max())))
            else:
                a = int(rng.integers(5))
            rew, nr, nc, done = grid_step(grid, r, c, a)
            npos = nr * W + nc
            nobs = int(true_obs[nr, nc])
            if dp and not done:
                t1 = time.perf_counter()
                nobs, _i, eu = obfuscate(nobs, q[npos], preset=setup.preset,
                                         epsilon=setup.epsilon, rng=sel_rng, p_max=p_max)
                eps_used.append(eu)
                obf_time += time.perf_counter() - t1
            target = rew if done else rew + setup.gamma * q[npos, nobs].max()
            q[pos, obs, a] += setup.alpha * (target - q[pos, obs, a])
            total += rew
            r, c, pos, obs = nr, nc, npos, nobs  # A15: carry the obfuscated observation
            if done:
                break
        rewards[e], steps[e], reached[e] = total, n, done
        total_steps += n
        if e % 50 == 0:
            progress((e + 1) / E, f"episode {e + 1}/{E}")
    elapsed = time.perf_counter() - t0
    return drl_result(grid, setup, q, rewards, steps, reached, eps_used=eps_used, seed=seed,
                      elapsed=elapsed, total_steps=total_steps, obf_time=obf_time, notes=[],
                      progress=progress,
                      choice_p_max_mean=float(np.mean(p_max)) if p_max else None)
