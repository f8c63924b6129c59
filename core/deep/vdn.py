"""PE-VDN with networks (dissertation ch. 4 trains VDN's agent networks with DP-SGD): the
tabular capability of :mod:`core.comarl.vdn` with one Q-network per agent.

Agent i's network Q_i(o_i) reads its own cell (one-hot over the map's cells) and outputs the
five actions' values (MLP, one hidden layer of ``hidden`` tanh units). VDN's coupling term
A = y − Σ_i Q_i(o_i, a_i), y = r + γ·Σ_i max_a Q_i(o′_i, a), is learned by **secure
summation** of the agents' messages s_i = Q_i(o_i, a_i) − (r/N + γ·max_a Q_i(o′_i, a))
(:func:`core.comarl.secure.secure_sum`, the same protocol; Σ s_i = −A); each agent then moves
its own parameters along A·∇_{θ_i} Q_i(o_i, a_i) (the semi-gradient of −½(y − Q_tot)²).

**DP-SGD on the networks** (the tabular F7 design with per-example gradients): each
environment step Poisson-samples the replay window (the last B transitions, rate q, the same
indices for every agent); for every sampled transition and agent the update
u_ik = A_k·∇_{θ_i} Q_i(o_ik, a_ik) is computed separately (``vmap`` over the batch and the
agents) and clipped to ℓ2 norm C; agent i adds N(0, σ²C²) to every parameter of the sum and
divides by max(q·|window|, 1). One transition moves every agent's update by at most C, so the N
networks together are one Gaussian mechanism of sensitivity √N·C: noise multiplier σ/√N,
composed over the window's replace-one steps by
:func:`core.comarl.vdn.vdn_accounting` (dp-accounting's PLD; the tabular capability's
account, unchanged). The secure-sum outputs are not covered by DP.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from core.comarl.secure import secure_sum
from core.comarl.vdn import TeamGrid, VdnResult, VdnSetup, team_step, vdn_accounting
from core.common.errors import RunFailure
from core.common.progress import Cancelled, Progress, no_progress
from core.deep.backend import jax, jnp
from core.deep.dpsgd import chunk_size

__all__ = ["train_vdn_net", "HIDDEN", "DEFAULT_NET_LR"]

HIDDEN = 32
#: the networks' rate (the tables' 0.2 moves one entry; a network step moves every cell)
DEFAULT_NET_LR = 0.05


def _shapes(cells: int, hidden: int) -> list[tuple[str, tuple[int, ...]]]:
    return [("W1", (cells, hidden)), ("b1", (hidden,)), ("W2", (hidden, 5)), ("b2", (5,))]


def _unravel(theta: Any, cells: int, hidden: int) -> dict[str, Any]:
    out, off = {}, 0
    for name, shp in _shapes(cells, hidden):
        size = int(np.prod(shp))
        out[name] = theta[off:off + size].reshape(shp)
        off += size
    return out


@lru_cache(maxsize=16)
def _compiled(cells: int, hidden: int, N: int, gamma: float, rate: float) -> Any:
    """The compiled functions of N agents' networks (once per shape and rate)."""

    def q_one(th: Any, cell: Any) -> Any:
        p = _unravel(th, cells, hidden)
        h = jnp.tanh(p["W1"][cell] + p["b1"])               # one-hot input: a row of W1
        return h @ p["W2"] + p["b2"]

    q_agents = jax.jit(jax.vmap(q_one))                      # (N, P), (N,) -> (N, 5)
    q_batch = jax.vmap(jax.vmap(q_one, in_axes=(None, 0)))   # (N, P), (N, b) -> (N, b, 5)

    @jax.jit
    def messages(th: Any, o: Any, a: Any, r: Any, o2: Any, done: Any) -> tuple[Any, Any]:
        qa = jnp.take_along_axis(q_batch(th, o), a[..., None], axis=2)[..., 0]    # (N, b)
        nxt = jnp.where(done[None, :], 0.0, q_batch(th, o2).max(axis=2))
        s = qa - (r[None, :] / N + gamma * nxt)
        return s, r + gamma * nxt.sum(axis=0) - qa.sum(axis=0)

    def qa_one(th: Any, cell: Any, act: Any) -> Any:
        return q_one(th, cell)[act]

    per_example = jax.vmap(jax.vmap(jax.grad(qa_one), in_axes=(None, 0, 0)))  # (N, b, P)

    @jax.jit
    def dp_sum(th: Any, o: Any, a: Any, A: Any, mask: Any, clip: Any) -> Any:
        G = per_example(th, o, a) * A[None, :, None]                            # u_ik
        norms = jnp.sqrt(jnp.sum(G * G, axis=2))
        scale = jnp.minimum(1.0, clip / jnp.maximum(norms, 1e-30)) * mask[None, :]
        return jnp.einsum("nb,nbp->np", scale, G)

    @jax.jit
    def plain_step(th: Any, o: Any, a: Any, A: Any) -> Any:
        G = per_example(th, o[:, None], a[:, None])[:, 0, :]                    # (N, P)
        return th + rate * A * G

    @jax.jit
    def apply(th: Any, gsum: Any, xi: Any, scale: Any, denom: Any) -> Any:
        return th + rate * (gsum + scale * xi) / denom

    return SimpleNamespace(q_one=q_one, q_agents=q_agents, messages=messages, dp_sum=dp_sum,
                           plain_step=plain_step, apply=apply)


def train_vdn_net(team: TeamGrid, setup: VdnSetup | None = None, *, seed: int | None = 0,
                  central: bool = False, hidden: int = HIDDEN, lr: float | None = None,
                  progress: Progress = no_progress,
                  cancelled: Callable[[], bool] | None = None) -> VdnResult:
    """Train the team with per-agent networks (module docstring).

    Parameters
    ----------
    team : TeamGrid
        Map, starts and goals.
    setup : VdnSetup
        Episodes, exploration, γ and the DP parameters (σ, C, B, q, δ); ``lr`` is the tables'
        and is replaced by ``lr`` here.
    seed : int or None
        Experiment seed; None: release mode (shares and DP noise from the OS CSPRNG).
    central : bool
        Plain VDN: A computed centrally (no secure summation).
    hidden : int
        Hidden units of each agent's network.
    lr : float, optional
        The networks' rate (default :data:`DEFAULT_NET_LR`).
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    VdnResult
        ``q`` is every agent's network evaluated at every cell.
    """
    from core.common.validation import as_random_source, fresh_seed

    setup = (setup or VdnSetup()).validated()
    rate = DEFAULT_NET_LR if lr is None else float(lr)
    N = team.agents
    H, W = team.grid.shape
    cells = H * W
    src = as_random_source(seed)
    rng = np.random.default_rng(seed if seed is not None else fresh_seed())
    share_rng = np.random.default_rng([seed, 7]) if seed is not None else None
    noise = rng if src.mode == "experiment" else src.generator
    P = sum(int(np.prod(s)) for _, s in _shapes(cells, hidden))
    theta0 = []
    for _ in range(N):
        parts = []
        for name, shp in _shapes(cells, hidden):
            if name.startswith("W"):
                lim = 1.0 / math.sqrt(shp[0])
                parts.append(rng.uniform(-lim, lim, size=shp).ravel())
            else:
                parts.append(np.zeros(int(np.prod(shp))))
        theta0.append(np.concatenate(parts))
    theta = jnp.asarray(np.stack(theta0), jnp.float32)     # (N, P)

    fns = _compiled(cells, int(hidden), N, float(setup.gamma), rate)
    q_one, q_agents, messages = fns.q_one, fns.q_agents, fns.messages
    dp_sum, plain_step, apply = fns.dp_sum, fns.plain_step, fns.apply

    returns = np.zeros(setup.episodes)
    max_diff = 0.0
    updates = 0
    B = int(setup.window)
    bo = np.zeros((B, N), np.int32)
    ba = np.zeros((B, N), np.int32)
    br = np.zeros(B, np.float32)
    bo2 = np.zeros((B, N), np.int32)
    bd = np.zeros(B, bool)
    size = head = 0
    chunk = chunk_size(B, setup.sample_rate) if setup.dp else 1
    scale = jnp.float32(setup.sigma * setup.clip)
    t0 = time.perf_counter()
    for e in range(setup.episodes):
        if cancelled is not None and cancelled():
            raise Cancelled()
        pos = list(team.starts)
        total = 0.0
        for _t in range(setup.max_steps):
            o = np.array([r * W + c for r, c in pos], np.int32)
            qo = np.asarray(q_agents(theta, o), dtype=np.float64)
            greedy = (qo + 1e-9 * rng.random(qo.shape) * (qo == qo.max(axis=1, keepdims=True))
                      ).argmax(axis=1)
            act = np.where(rng.random(N) < setup.explore, rng.integers(5, size=N), greedy)
            pos, r, done = team_step(team, pos, act)
            o2 = np.array([rr * W + cc for rr, cc in pos], np.int32)
            total += r
            if setup.dp:
                bo[head], ba[head], br[head], bo2[head], bd[head] = o, act, r, o2, done
                head = (head + 1) % B
                size = min(size + 1, B)
                idx = np.flatnonzero(rng.random(size) < setup.sample_rate)
                gsum = jnp.zeros((N, P), jnp.float32)
                for i in range(0, idx.size, chunk):
                    part = idx[i:i + chunk]
                    m = part.size
                    pad = np.concatenate([part, np.zeros(chunk - m, dtype=part.dtype)])
                    s, A = messages(theta, bo[pad].T, ba[pad].T, br[pad], bo2[pad].T, bd[pad])
                    A_c, s = np.asarray(A, dtype=np.float64)[:m], np.asarray(s, np.float64)
                    A_k = A_c if central else -secure_sum(s[:, :m], share_rng)
                    if not central:
                        max_diff = max(max_diff, float(np.abs(A_k - A_c).max()))
                    mask = np.zeros(chunk, np.float32)
                    mask[:m] = 1.0
                    A_pad = np.zeros(chunk, np.float32)
                    A_pad[:m] = A_k
                    gsum = gsum + dp_sum(theta, bo[pad].T, ba[pad].T, A_pad, mask,
                                         jnp.float32(setup.clip))
                xi = np.asarray(noise.standard_normal((N, P)), dtype=np.float32)
                theta = apply(theta, gsum, xi, scale,
                              jnp.float32(max(setup.sample_rate * size, 1.0)))
            else:
                s, A = messages(theta, o[:, None], act[:, None].astype(np.int32),
                                np.array([r], np.float32), o2[:, None], np.array([done]))
                A_c = np.asarray(A, dtype=np.float64)
                A_k = A_c if central else -secure_sum(np.asarray(s, np.float64), share_rng)
                if not central:
                    max_diff = max(max_diff, float(np.abs(A_k - A_c).max()))
                theta = plain_step(theta, o, act.astype(np.int32), jnp.float32(A_k[0]))
            updates += 1
            if done:
                break
        returns[e] = total
        if e % 20 == 0:
            progress((e + 1) / setup.episodes, f"episode {e + 1}")
    th = np.asarray(theta)
    if not np.isfinite(th).all():
        raise RunFailure("the agents' networks diverged (non-finite parameters): lower the "
                         "learning rate")
    q = np.asarray(jax.vmap(jax.vmap(q_one, in_axes=(None, 0)), in_axes=(0, None))(
        theta, jnp.arange(cells)), dtype=np.float64)                            # (N, cells, 5)
    acc = vdn_accounting(setup, N, updates, what="Q-networks")
    notes = acc.notes + [f"one network per agent: one-hot cell -> {hidden} tanh -> 5 values, "
                         f"rate {rate:g}; per-example updates by vmap over the batch and the "
                         "agents, each clipped to C"]
    return VdnResult(team, setup, q, returns, max_diff, updates, acc.epsilon, acc.delta,
                     acc.reason, time.perf_counter() - t0, notes=notes, seed=seed,
                     epsilon_per_table=acc.epsilon_per_table,
                     thesis_reading=acc.thesis_reading, episode=acc.episode, agent="net")
