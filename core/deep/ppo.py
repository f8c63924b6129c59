"""Kickstarting with networks ([KS]): a PPO teacher and PPO students on gymnasium's classic
control, the teacher's policy shared through the Dirichlet mechanism.

**PPO** (Schulman et al.; the hyperparameters of CleanRL's CartPole agent, as Spinning Up's
defaults are for [KS]): separate actor and critic MLPs with tanh, ``envs`` parallel
environments × ``steps`` steps per roll-out, GAE(γ, λ_GAE), the clipped surrogate, a value
loss and an entropy bonus, Adam with gradient clipping and a linearly annealed rate. The
paper's sizes: teacher 2 × 64, student 2 × 32.

**Kickstarting** (spec F1, eq. 16–17): each roll-out j, every step of the student's roll-out
queries the teacher at the student's current observation x_t; the teacher answers
π^t = Dir(k_j·π̃_T(x_t)) with π̃_T = (1 − mη)·π_T + η (the η-restricted simplex) and
k_j = k₀·c^j. The student minimises the PPO loss plus κ·E[φ_λ], with
φ_λ = ‖π_θ(x) − π^t‖₂·1{‖π_θ(x) − π^t‖₂ > α_λ(k_j)} (eq. 15–16). Students: ``none`` (plain
PPO, the teacher's own learning from scratch at the student's size), ``nonprivate`` (π^t =
π_T itself, λ = 0), ``aware`` (Dirichlet, λ > 0), ``unaware`` (Dirichlet, λ = 0).

**Privacy** (Theorem 1, the tabular capability's accountant): two observations are
neighbours when ‖x − x′‖₂ <= b; the η-mixed teacher is L-Lipschitz with L from
:mod:`core.deep.lipschitz` (a proven spectral bound, or an estimate labelled as such), so
neighbouring answers are L·b apart and each query is (ε_j, δ_j)-DP by the certified exact
profile (:func:`core.sharing.learning.sharing_ledger`, the same ledger as the tabular
kickstarting). A roll-out makes ``envs × steps`` queries to each noisy student run; the
teacher's budget covers every noisy run of the command, and the teacher stops (k = 0: no
demonstration, or random policies with ``after_budget="random"``) before a roll-out would
exceed it.

The paper's AirRaid set-up (ALE ``AirRaid-ram``, 4 M interactions, 30 seeds) is a documented
long run, not part of the tests: ``pip install ale-py``, then ``share gym:ALE/AirRaid-ram-v5
--agent ppo --teacher-iterations 7800 --iterations 7800 --seeds 30 --seed 1`` (4 M
interactions are 7,800 roll-outs of 512 steps per run, 121 runs: tens of hours of CPU).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from core.common.errors import InputError, RunFailure
from core.common.progress import Cancelled, Progress, no_progress
from core.deep.backend import eqx, jax, jnp, optax
from core.deep.lipschitz import LipschitzConstant, jacobian_estimate, spectral_bound

__all__ = ["PpoConfig", "ENVIRONMENTS", "solved_return", "ActorCritic", "PpoRun", "train_ppo",
           "Demonstrations", "make_env", "evaluate", "teacher_lipschitz", "DEEP_STUDENTS",
           "STUDENT_HIDDEN", "TEACHER_HIDDEN", "registered_id"]

#: gymnasium ids this module has been checked on (classic control needs no extra package);
#: MinAtar's ids work when its package is installed (``MinAtar/Breakout-v1``, …)
ENVIRONMENTS = ("CartPole-v1", "Acrobot-v1")
DEEP_STUDENTS = ("none", "nonprivate", "aware", "unaware")
TEACHER_HIDDEN = (64, 64)
STUDENT_HIDDEN = (32, 32)


def registered_id(env_id: str) -> str:
    """``env_id`` if it is registered in gymnasium, else an :class:`InputError` naming ENV.

    gymnasium's ``make`` and ``spec`` import the module of a ``module:Env`` id (and of any id
    with a colon), so an id from a command line or a project file is looked up in the registry
    first and never reaches them otherwise: nothing is imported on its say-so.

    Parameters
    ----------
    env_id : str
        A gymnasium id (``CartPole-v1``).

    Returns
    -------
    str
    """
    import gymnasium as gym

    if env_id.startswith("MinAtar/"):
        try:
            import minatar  # noqa: F401  (registers the MinAtar ids)
        except ImportError:
            raise InputError(f"{env_id} needs the minatar package (pip install minatar)",
                             field="env") from None
    if env_id.startswith("ALE/"):
        try:
            import ale_py
            gym.register_envs(ale_py)
        except ImportError:
            raise InputError(f"{env_id} needs the ale-py package (pip install ale-py): the "
                             "paper's AirRaid set-up is a long run", field="env") from None
    if ":" in env_id or env_id not in gym.envs.registration.registry:
        raise InputError(f"{env_id!r} is not a registered gymnasium id (checked: "
                         f"{', '.join(ENVIRONMENTS)}; a module:Env id imports code and is "
                         "refused)", field="env")
    return env_id


def solved_return(env_id: str) -> float | None:
    """gymnasium's ``reward_threshold`` of the task (CartPole-v1: 475; Acrobot-v1: −100)."""
    import gymnasium as gym

    registered_id(env_id)
    try:
        return gym.spec(env_id).reward_threshold
    except gym.error.Error:
        return None


def make_env(env_id: str) -> Any:
    """A gymnasium environment with a discrete action set and a flat observation vector.

    Parameters
    ----------
    env_id : str
        A gymnasium id (``CartPole-v1``, ``Acrobot-v1``, a MinAtar or ALE RAM id where
        installed).

    Returns
    -------
    gymnasium.Env
    """
    import gymnasium as gym

    registered_id(env_id)
    try:
        env = gym.make(env_id)
    except gym.error.Error as exc:
        raise InputError(f"gymnasium has no environment {env_id!r} here ({exc}); checked: "
                         f"{', '.join(ENVIRONMENTS)}", field="env") from None
    if not isinstance(env.action_space, gym.spaces.Discrete):
        raise InputError(f"{env_id} has a continuous action space; the shared-policy "
                         "mechanism needs a finite action set", field="env")
    if not isinstance(env.observation_space, gym.spaces.Box):
        raise InputError(f"{env_id}'s observations are not a vector", field="env")
    return env


@dataclass(frozen=True)
class PpoConfig:
    """PPO's hyperparameters (CleanRL's CartPole defaults, rate raised for speed)."""

    hidden: tuple[int, ...] = TEACHER_HIDDEN
    envs: int = 4
    steps: int = 128
    lr: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    epochs: int = 4
    minibatches: int = 4
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    anneal: bool = True

    def validated(self) -> "PpoConfig":
        for name in ("envs", "steps", "epochs", "minibatches"):
            v = getattr(self, name)
            if isinstance(v, bool) or int(v) != v or v < 1:
                raise InputError(f"must be a whole number >= 1, got {v!r}", field=name)
        if (self.envs * self.steps) % self.minibatches:
            raise InputError("envs x steps must be a multiple of minibatches",
                             field="minibatches")
        if not all(isinstance(h, int) and h >= 1 for h in self.hidden):
            raise InputError(f"hidden sizes must be whole numbers >= 1, got {self.hidden!r}",
                             field="hidden")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"must be a finite number > 0, got {self.lr!r}", field="lr")
        return self

    @property
    def batch(self) -> int:
        return self.envs * self.steps


class ActorCritic(eqx.Module):
    """Actor (logits) and critic (value) MLPs with tanh hidden layers."""

    actor: Any
    critic: Any

    def __init__(self, d: int, m: int, hidden: Sequence[int], key: Any):
        ka, kc = jax.random.split(key)
        self.actor = _mlp(d, m, hidden, ka, last_scale=0.01)
        self.critic = _mlp(d, 1, hidden, kc, last_scale=1.0)

    def logits(self, x: Any) -> Any:
        return _run(self.actor, x)

    def value(self, x: Any) -> Any:
        return _run(self.critic, x)[0]

    def weights(self) -> list[np.ndarray]:
        """The actor's weight matrices, input layer first (for the Lipschitz bound)."""
        return [np.asarray(layer.weight) for layer in self.actor]


def _mlp(d: int, out: int, hidden: Sequence[int], key: Any, last_scale: float) -> tuple[Any, ...]:
    sizes = [d, *hidden, out]
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        lin = eqx.nn.Linear(a, b, key=keys[i])
        gain = last_scale if i == len(sizes) - 2 else math.sqrt(2.0)
        w = jax.nn.initializers.orthogonal(gain)(keys[i], (b, a))
        lin = eqx.tree_at(lambda layer: (layer.weight, layer.bias), lin, (w, jnp.zeros(b)))
        layers.append(lin)
    return tuple(layers)


def _run(layers: tuple[Any, ...], x: Any) -> Any:
    for layer in layers[:-1]:
        x = jnp.tanh(layer(x))
    return layers[-1](x)


@dataclass(frozen=True)
class Demonstrations:
    """How a student is taught: the teacher network, the mechanism and the schedule.

    ``kind``: ``nonprivate`` (π_T itself), ``aware`` / ``unaware`` (Dirichlet draws of the
    η-mixed teacher at k_j; aware ignores those within α_λ(k_j)). ``ks[j]`` is roll-out j's k
    (0 once the teacher has stopped: no demonstration, or with ``after_budget="random"`` a
    data-independent Dir(1, …, 1) draw). ``noise`` is the source of the Dirichlet draws.
    """

    kind: str
    teacher: Any
    eta: float
    ks: tuple[float, ...] = ()
    lam: float = 0.5
    beta: float = 0.05
    kappa: float = 1.0
    after_budget: str = "stop"
    noise: Any = None

    def k_at(self, j: int) -> float:
        if self.kind == "nonprivate":
            return math.inf
        return self.ks[j] if j < len(self.ks) else 0.0

    def answers(self, obs: np.ndarray, j: int, policy_fn: Callable[[Any, Any], Any]
                ) -> tuple[np.ndarray | None, float]:
        """(π^t per observation or None, α) for roll-out j."""
        from core.privacy.dirichlet import dirichlet_rows
        from core.sharing.mechanism import alpha_lambda

        k = self.k_at(j)
        if self.kind == "nonprivate":
            return np.asarray(policy_fn(self.teacher, obs), dtype=np.float64), 0.0
        m = int(self.teacher.actor[-1].weight.shape[0])
        if k <= 0:
            if self.after_budget != "random":
                return None, 0.0
            return dirichlet_rows(np.full((obs.shape[0], m), 1.0 / m), float(m),
                                  self.noise), 0.0
        pi = np.asarray(policy_fn(self.teacher, obs), dtype=np.float64)
        pi = (1.0 - m * self.eta) * pi + self.eta
        pi /= pi.sum(axis=1, keepdims=True)
        alpha = alpha_lambda(k, self.lam, self.beta) if self.kind == "aware" else 0.0
        return dirichlet_rows(pi, float(k), self.noise), float(alpha)


@dataclass
class PpoRun:
    """One PPO training run: per-roll-out mean episode return and the trained network."""

    model: Any
    returns: np.ndarray          # (iterations + 1,): mean return of episodes ended by then
    steps: np.ndarray            # environment steps after each roll-out (iterations + 1,)
    solved_at: int | None        # environment steps when the last-100 mean first reached it
    solved_s: float | None       # wall-clock seconds (compilation included) to that point
    elapsed_s: float
    episodes: int
    observations: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


@lru_cache(maxsize=32)
def _compiled(d: int, m: int, hidden: tuple[int, ...], max_grad_norm: float) -> Any:
    """PPO's compiled functions for one architecture (compiled once per process: every
    student run of an experiment reuses them). The rate and the loss's coefficients are
    arguments, so they do not trigger a compilation."""
    template = ActorCritic(d, m, hidden, jax.random.PRNGKey(0))
    _, static = eqx.partition(template, eqx.is_array)
    opt = optax.chain(optax.clip_by_global_norm(max_grad_norm), optax.scale_by_adam(eps=1e-5))

    @jax.jit
    def act(p: Any, obs: Any) -> tuple[Any, Any]:
        mdl = eqx.combine(p, static)
        return jax.vmap(mdl.logits)(obs), jax.vmap(mdl.value)(obs)

    @jax.jit
    def values(p: Any, obs: Any) -> Any:
        return jax.vmap(eqx.combine(p, static).value)(obs)

    def loss_fn(p: Any, b: dict[str, Any], h: dict[str, Any]) -> Any:
        mdl = eqx.combine(p, static)
        logits = jax.vmap(mdl.logits)(b["obs"])
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, b["act"][:, None], axis=1)[:, 0]
        ratio = jnp.exp(logp - b["logp"])
        adv = b["adv"]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        clipped = jnp.clip(ratio, 1 - h["clip"], 1 + h["clip"])
        pg = jnp.maximum(-adv * ratio, -adv * clipped).mean()
        v = jax.vmap(mdl.value)(b["obs"])
        v_loss = 0.5 * ((v - b["ret"]) ** 2).mean()
        probs = jnp.exp(logp_all)
        ent = -(probs * logp_all).sum(axis=1).mean()
        diff = probs - b["demo"]
        dist = jnp.sqrt(jnp.sum(diff * diff, axis=1) + 1e-12)
        phi = jnp.where(dist > b["alpha"], dist, 0.0) * b["has_demo"]
        return pg + h["value_coef"] * v_loss - h["entropy"] * ent + b["kappa"] * phi.mean()

    @jax.jit
    def update(p: Any, s: Any, b: dict[str, Any], h: dict[str, Any], lr: Any
               ) -> tuple[Any, Any]:
        g = jax.grad(loss_fn)(p, b, h)
        upd, s = opt.update(g, s, p)
        upd = jax.tree_util.tree_map(lambda u: -lr * u, upd)
        return optax.apply_updates(p, upd), s

    return SimpleNamespace(static=static, opt=opt, act=act, values=values, update=update)


def _policy(model: ActorCritic, obs: Any) -> Any:
    return jax.nn.softmax(jax.vmap(model.logits)(obs), axis=-1)


_policy_jit = jax.jit(_policy)


def train_ppo(env_id: str, cfg: PpoConfig, *, iterations: int, seed: int,
              demo: Demonstrations | None = None, target: float | None = None,
              stop_when_solved: bool = False, keep_observations: int = 0,
              progress: Progress = no_progress,
              cancelled: Callable[[], bool] | None = None) -> PpoRun:
    """Train a PPO agent (a kickstarted student when ``demo`` is given).

    Parameters
    ----------
    env_id : str
        The gymnasium environment.
    cfg : PpoConfig
        Hyperparameters (network size included).
    iterations : int
        Roll-outs (each ``envs × steps`` environment steps and one update).
    seed : int
        Seeds the environments, the initialisation and the action sampling.
    demo : Demonstrations, optional
        The teacher's demonstrations (kickstarting).
    target : float, optional
        The solved return: ``solved_at`` is the first step count where the mean of the last
        100 finished episodes reaches it (default: gymnasium's threshold).
    stop_when_solved : bool
        Stop at that point (the teacher's training).
    keep_observations : int
        Keep up to this many observations of the last roll-outs (for the Lipschitz estimate).
    progress, cancelled : callable
        Progress per roll-out; cancellation polled per roll-out.

    Returns
    -------
    PpoRun
    """
    cfg = cfg.validated()
    if isinstance(iterations, bool) or int(iterations) != iterations or iterations < 1:
        raise InputError(f"must be a whole number >= 1, got {iterations!r}", field="iterations")
    t0 = time.perf_counter()
    target = solved_return(env_id) if target is None else target
    envs = [make_env(env_id) for _ in range(cfg.envs)]
    d = int(np.prod(envs[0].observation_space.shape))
    m = int(envs[0].action_space.n)
    rng = np.random.default_rng(seed)
    model = ActorCritic(d, m, cfg.hidden, jax.random.PRNGKey(int(rng.integers(2**31))))
    fns = _compiled(d, m, tuple(cfg.hidden), float(cfg.max_grad_norm))
    params, _ = eqx.partition(model, eqx.is_array)
    opt_state = fns.opt.init(params)
    act, values, update = fns.act, fns.values, fns.update
    total_updates = int(iterations) * cfg.epochs * cfg.minibatches
    n_updates = 0
    hyper = {"clip": np.float32(cfg.clip), "entropy": np.float32(cfg.entropy),
             "value_coef": np.float32(cfg.value_coef)}

    obs = np.stack([e.reset(seed=int(rng.integers(2**31)))[0] for e in envs]).astype(np.float32)
    ep_ret = np.zeros(cfg.envs)
    finished: list[float] = []
    returns = [math.nan]
    steps_done = [0]
    solved_at = solved_s = None
    T, N = cfg.steps, cfg.envs
    kept: list[np.ndarray] = []
    it = 0
    for it in range(int(iterations)):
        if cancelled is not None and cancelled():
            raise Cancelled()
        buf_obs = np.empty((T, N, d), np.float32)
        buf_act = np.empty((T, N), np.int32)
        buf_logp = np.empty((T, N), np.float32)
        buf_val = np.empty((T, N), np.float32)
        buf_rew = np.empty((T, N), np.float32)
        buf_done = np.empty((T, N), np.float32)
        for t in range(T):
            logits, val = act(params, obs)
            logits = np.asarray(logits, dtype=np.float64)
            z = logits - logits.max(axis=1, keepdims=True)
            pr = np.exp(z)
            pr /= pr.sum(axis=1, keepdims=True)
            a = (pr.cumsum(axis=1) < rng.random(N)[:, None]).sum(axis=1).clip(0, m - 1)
            buf_obs[t], buf_act[t], buf_val[t] = obs, a, np.asarray(val)
            buf_logp[t] = np.log(pr[np.arange(N), a] + 1e-30)
            nxt = np.empty_like(obs)
            for i, e in enumerate(envs):
                o, r, term, trunc, _ = e.step(int(a[i]))
                ep_ret[i] += r
                buf_rew[t, i] = r
                done = term or trunc
                buf_done[t, i] = float(done)
                if done:
                    finished.append(float(ep_ret[i]))
                    ep_ret[i] = 0.0
                    o, _ = e.reset()
                nxt[i] = o
            obs = nxt
        last_val = np.asarray(values(params, obs))
        adv = np.zeros((T, N), np.float32)
        gae = np.zeros(N, np.float32)
        for t in range(T - 1, -1, -1):
            nv = last_val if t == T - 1 else buf_val[t + 1]
            nonterm = 1.0 - buf_done[t]
            delta = buf_rew[t] + cfg.gamma * nv * nonterm - buf_val[t]
            gae = delta + cfg.gamma * cfg.gae_lambda * nonterm * gae
            adv[t] = gae
        flat_obs = buf_obs.reshape(T * N, d)
        demo_pi, alpha, has = np.zeros((T * N, m), np.float32), 0.0, 0.0
        kappa = 0.0
        if demo is not None:
            ans, alpha = demo.answers(flat_obs, it, _policy_jit)
            if ans is not None:
                demo_pi, has, kappa = ans.astype(np.float32), 1.0, demo.kappa
        batch = {"obs": flat_obs, "act": buf_act.reshape(-1), "logp": buf_logp.reshape(-1),
                 "adv": adv.reshape(-1), "ret": (adv + buf_val).reshape(-1),
                 "demo": demo_pi, "alpha": np.float32(alpha),
                 "has_demo": np.float32(has), "kappa": np.float32(kappa)}
        mb = cfg.batch // cfg.minibatches
        for _ep in range(cfg.epochs):
            perm = rng.permutation(cfg.batch)
            for s in range(cfg.minibatches):
                ix = perm[s * mb:(s + 1) * mb]
                sub = {k: (v[ix] if isinstance(v, np.ndarray) and v.ndim else v)
                       for k, v in batch.items()}
                frac = 1.0 - n_updates / total_updates if cfg.anneal else 1.0
                params, opt_state = update(params, opt_state, sub, hyper,
                                           np.float32(cfg.lr * frac))
                n_updates += 1
        if keep_observations:
            kept.append(flat_obs)
            while sum(k.shape[0] for k in kept) > keep_observations + flat_obs.shape[0]:
                kept.pop(0)
        steps_done.append((it + 1) * cfg.batch)
        returns.append(float(np.mean(finished[-100:])) if finished else math.nan)
        if (solved_at is None and target is not None and len(finished) >= 100
                and np.mean(finished[-100:]) >= target):
            solved_at, solved_s = (it + 1) * cfg.batch, time.perf_counter() - t0
        progress((it + 1) / iterations, f"roll-out {it + 1}/{iterations}: return "
                 f"{returns[-1]:.4g}")
        if stop_when_solved and solved_at is not None:
            break
    for e in envs:
        e.close()
    trained = eqx.combine(params, fns.static)
    if not all(np.isfinite(np.asarray(w)).all() for w in trained.weights()):
        raise RunFailure("PPO diverged (non-finite parameters): lower the learning rate")
    r = np.asarray(returns, dtype=np.float64)
    first = np.flatnonzero(np.isfinite(r))
    if first.size:  # before any episode ended: the first known value
        r[:first[0]] = r[first[0]]
    return PpoRun(trained, r, np.asarray(steps_done), solved_at, solved_s,
                  time.perf_counter() - t0, len(finished),
                  np.concatenate(kept)[-keep_observations:] if kept else np.zeros((0, d)))


def evaluate(model: ActorCritic, env_id: str, *, episodes: int, seed: int) -> float:
    """Mean return of the stochastic policy over ``episodes`` episodes.

    Parameters
    ----------
    model : ActorCritic
        The agent.
    env_id : str
        The environment.
    episodes : int
        Episodes.
    seed : int
        Seeds the episodes and the action sampling.

    Returns
    -------
    float
    """
    env = make_env(env_id)
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(int(episodes)):
        o, _ = env.reset(seed=int(rng.integers(2**31)))
        done = False
        while not done:
            p = np.asarray(_policy_jit(model, np.asarray(o, np.float32)[None]))[0]
            a = min(int((p.cumsum() < rng.random()).sum()), p.size - 1)
            o, r, term, trunc, _ = env.step(a)
            total += r
            done = term or trunc
    env.close()
    return total / max(int(episodes), 1)


def teacher_lipschitz(model: ActorCritic, eta: float, *, method: str = "bound",
                      observations: np.ndarray | None = None) -> LipschitzConstant:
    """L of the η-mixed teacher policy (:mod:`core.deep.lipschitz`).

    Parameters
    ----------
    model : ActorCritic
        The teacher.
    eta : float
        η (the mixing factor is 1 − mη).
    method : {"bound", "estimate"}
        A proven spectral-norm bound, or a Jacobian estimate over ``observations``.
    observations : numpy.ndarray, optional
        Needed for the estimate.

    Returns
    -------
    LipschitzConstant
    """
    m = int(model.actor[-1].weight.shape[0])
    mix = 1.0 - m * eta
    if method == "bound":
        return spectral_bound(model.weights(), mix=mix)
    if method != "estimate":
        raise InputError(f"must be bound or estimate, got {method!r}", field="lipschitz")
    if observations is None or observations.size == 0:
        raise InputError("the estimate needs roll-out observations", field="lipschitz")
    return jacobian_estimate(lambda x: jax.nn.softmax(model.logits(x)), observations, mix=mix)

