"""DP-DRL with a DQN (Shen's thesis ch. 5 trains DQN agents): the same obfuscation and the same
map-recovery attack as the tabular learner of :mod:`core.gridworld.dpdrl`.

The Q-network reads the un-obfuscated normalised position (r/(H−1), c/(W−1)) (A14) and the
eight (possibly obfuscated) neighbour bits, and outputs the five actions' values (an MLP,
2 × 64 ReLU). Training: ε-greedy with the tabular learner's ramp, a replay buffer, Adam on the
Huber loss of the one-step target from a target network (refreshed every ``target_every``
steps). With DP-DRL every observation the agent learns on is obfuscated by Alg. 9–10
(:func:`core.gridworld.dpdrl.obfuscate`, the same function): the Q-values it scores the eight
flips with are the network's at the agent's position, and the obfuscated observation is
carried forward (A15).

The privacy statement is the tabular one, unchanged: ``epsilon_per_step`` is the bit choice's
ε; for the map itself no finite ε holds (the released observation keeps seven true bits), so
``epsilon_total`` is null with that reason. The attacker queries π_T(·|position,
observation) = softmax(Q/τ): after training the network is evaluated once at every
(position, observation) pair, so the result is a :class:`~core.gridworld.dpdrl.DrlResult`
whose table ``q`` the attack, the workspace and the records read as the tabular learner's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from core.common.errors import InputError, RunFailure
from core.common.progress import Cancelled, Progress, no_progress
from core.deep.backend import eqx, jax, jnp, optax
from core.gridworld.dpdrl import DrlResult, DrlSetup, drl_result, grid_step, obfuscate
from core.gridworld.maps import GridMap, check_map, observations

__all__ = ["DqnSetup", "train_dqn", "q_table", "features"]

_FLIPS = 1 << np.arange(8)
_BITS = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(np.float32)


@dataclass(frozen=True)
class DqnSetup:
    """The DQN's hyperparameters."""

    hidden: int = 64
    lr: float = 1e-3
    batch: int = 64
    buffer: int = 20_000
    warmup: int = 500
    train_every: int = 2
    target_every: int = 250

    def validated(self) -> "DqnSetup":
        for name in ("hidden", "batch", "buffer", "warmup", "train_every", "target_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or int(v) != v or v < 1:
                raise InputError(f"must be a whole number >= 1, got {v!r}", field=name)
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"must be a finite number > 0, got {self.lr!r}", field="lr")
        return self


def features(pos: np.ndarray, obs: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The network's input: normalised (row, col) of each position and the 8 bits of each
    observation (float32, (n, 10)).

    >>> features(np.array([0, 5]), np.array([0, 255]), (2, 5)).tolist()[1][:3]
    [1.0, 0.0, 1.0]
    """
    H, W = shape
    r, c = np.divmod(np.asarray(pos), W)
    xy = np.column_stack([r / max(H - 1, 1), c / max(W - 1, 1)]).astype(np.float32)
    return np.hstack([xy, _BITS[np.asarray(obs)]])


class _QNet(eqx.Module):
    layers: tuple[Any, ...]

    def __init__(self, hidden: int, key: Any):
        k = jax.random.split(key, 3)
        self.layers = (eqx.nn.Linear(10, hidden, key=k[0]), eqx.nn.Linear(hidden, hidden, key=k[1]),
                       eqx.nn.Linear(hidden, 5, key=k[2]))

    def __call__(self, x: Any) -> Any:
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)


@lru_cache(maxsize=16)
def _compiled(hidden: int, lr: float, gamma: float) -> Any:
    """The DQN's compiled functions (once per architecture and rate: runs reuse them)."""
    _, static = eqx.partition(_QNet(hidden, jax.random.PRNGKey(0)), eqx.is_array)
    opt = optax.adam(lr)

    @jax.jit
    def q_rows(p: Any, x: Any) -> Any:
        return jax.vmap(eqx.combine(p, static))(x)

    @jax.jit
    def train_step(p: Any, tgt: Any, s: Any, x: Any, a: Any, r: Any, x2: Any, done: Any
                   ) -> tuple[Any, Any]:
        nxt = jax.vmap(eqx.combine(tgt, static))(x2).max(axis=1)
        y = r + gamma * (1.0 - done) * nxt

        def loss(pp: Any) -> Any:
            q = jax.vmap(eqx.combine(pp, static))(x)
            qa = jnp.take_along_axis(q, a[:, None], axis=1)[:, 0]
            return optax.huber_loss(qa, jax.lax.stop_gradient(y)).mean()

        g = jax.grad(loss)(p)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s

    return SimpleNamespace(static=static, opt=opt, q_rows=q_rows, train_step=train_step)


def q_table(model: Any, shape: tuple[int, int]) -> np.ndarray:
    """The network's Q at every (position, observation): (H·W, 256, 5) float64.

    Parameters
    ----------
    model : equinox module
        The Q-network.
    shape : (int, int)
        The map's size.

    Returns
    -------
    numpy.ndarray
    """
    H, W = shape
    pos = np.repeat(np.arange(H * W), 256)
    obs = np.tile(np.arange(256), H * W)
    f = jax.jit(jax.vmap(model))
    out = np.asarray(f(jnp.asarray(features(pos, obs, shape))), dtype=np.float64)
    return out.reshape(H * W, 256, 5)


def train_dqn(grid: GridMap, setup: DrlSetup, dqn: DqnSetup = DqnSetup(), *,
              seed: int | None = None, progress: Progress = no_progress,
              cancelled: Callable[[], bool] | None = None) -> DrlResult:
    """Alg. 11 with a DQN (module docstring).

    Parameters
    ----------
    grid : GridMap
        The map (checked against the constraints).
    setup : DrlSetup
        Defense and training (episodes, steps, γ, the exploration ramp).
    dqn : DqnSetup
        The network's hyperparameters.
    seed : int, optional
        Experiment seed; None: release mode (exploration from a fresh seed, the bit choices
        from OpenDP's exponential mechanism).
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    DrlResult
        ``q`` is the trained network evaluated at every (position, observation).
    """
    from core.common.validation import fresh_seed

    check_map(grid)
    setup = setup.validated()
    dqn = dqn.validated()
    base = seed if seed is not None else fresh_seed()
    rng = np.random.default_rng(base)
    sel_rng = np.random.default_rng([base, 1]) if seed is not None else None
    H, W = grid.shape
    true_obs = observations(grid.cells)
    model = _QNet(dqn.hidden, jax.random.PRNGKey(int(rng.integers(2**31))))
    fns = _compiled(int(dqn.hidden), float(dqn.lr), float(setup.gamma))
    params, _ = eqx.partition(model, eqx.is_array)
    target = params
    opt_state = fns.opt.init(params)
    q_rows, train_step, static = fns.q_rows, fns.train_step, fns.static

    cap = int(dqn.buffer)
    bx = np.zeros((cap, 10), np.float32)
    bx2 = np.zeros((cap, 10), np.float32)
    ba = np.zeros(cap, np.int32)
    br = np.zeros(cap, np.float32)
    bd = np.zeros(cap, np.float32)
    size = head = 0
    scratch = np.zeros((256, 5))

    def scored(pos: int, obs: int) -> np.ndarray:
        """Q at ``pos`` for ``obs`` and its 8 flips, laid out as a Q-table row block."""
        idx = np.concatenate([[obs], obs ^ _FLIPS])
        q = np.asarray(q_rows(params, features(np.full(9, pos), idx, (H, W))))
        scratch[idx] = q
        return scratch

    E = int(setup.episodes)
    rewards, steps = np.zeros(E), np.zeros(E, dtype=np.int64)
    reached = np.zeros(E, dtype=bool)
    dp = setup.defense == "dpdrl"
    eps_used: list[float] = []
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
            obs, _i, eu = obfuscate(obs, scored(pos, obs), preset=setup.preset,
                                    epsilon=setup.epsilon, rng=sel_rng)
            eps_used.append(eu)
            obf_time += time.perf_counter() - t1
        total, n, done = 0.0, 0, False
        x = features(np.array([pos]), np.array([obs]), (H, W))[0]
        while n < setup.max_steps:
            n += 1
            if rng.random() <= greedy_p:
                row = np.asarray(q_rows(params, x[None]))[0]
                a = int(rng.choice(np.flatnonzero(row == row.max())))
            else:
                a = int(rng.integers(5))
            rew, nr, nc, done = grid_step(grid, r, c, a)
            npos = nr * W + nc
            nobs = int(true_obs[nr, nc])
            if dp and not done:
                t1 = time.perf_counter()
                nobs, _i, eu = obfuscate(nobs, scored(npos, nobs), preset=setup.preset,
                                         epsilon=setup.epsilon, rng=sel_rng)
                eps_used.append(eu)
                obf_time += time.perf_counter() - t1
            x2 = features(np.array([npos]), np.array([nobs]), (H, W))[0]
            bx[head], ba[head], br[head], bx2[head], bd[head] = x, a, rew, x2, float(done)
            head = (head + 1) % cap
            size = min(size + 1, cap)
            total_steps += 1
            if size >= dqn.warmup and total_steps % dqn.train_every == 0:
                ix = rng.integers(size, size=dqn.batch)
                params, opt_state = train_step(params, target, opt_state, bx[ix], ba[ix],
                                               br[ix], bx2[ix], bd[ix])
            if total_steps % dqn.target_every == 0:
                target = params
            total += rew
            r, c, pos, obs, x = nr, nc, npos, nobs, x2
            if done:
                break
        rewards[e], steps[e], reached[e] = total, n, done
        if e % 20 == 0:
            progress((e + 1) / E, f"episode {e + 1}/{E}")
    elapsed = time.perf_counter() - t0
    q = q_table(eqx.combine(params, static), (H, W))
    if not np.isfinite(q).all():
        raise RunFailure("the DQN diverged (non-finite Q-values): lower its learning rate")
    notes = [f"DQN: MLP 2 x {dqn.hidden} on (normalised position, 8 observed bits), replay "
             f"{dqn.buffer}, batch {dqn.batch}, Adam {dqn.lr:g}, target network every "
             f"{dqn.target_every} steps; the attack queries softmax(Q/0.1) of the trained "
             "network at every (position, observation)"]
    return drl_result(grid, setup, q, rewards, steps, reached, eps_used=eps_used, seed=seed,
                      elapsed=elapsed, total_steps=total_steps, obf_time=obf_time,
                      notes=notes, progress=progress, agent="dqn")
