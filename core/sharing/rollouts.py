"""Sampled roll-outs of a tabular student: the randomness a real learner has.

With ``gradient="sampled"`` (:class:`core.sharing.learning.SharingSetup`) a student no longer
reads its exact policy gradient: each iteration it plays ``episodes`` roll-outs of its
current softmax policy from the initial state, estimates

    ∇_{θ_s} J ≈ (1/E) Σ_e Σ_t γ^t (G_t^e − b_t^e) (1[a = a_t] − π(·|s_t))   at s = s_t

(REINFORCE with the leave-one-out mean return at step t as its baseline, so the estimate
stays unbiased), and weighs the teacher's penalty by the empirical discounted visits of those
roll-outs. Every student — with a teacher or without — then has exploration noise, so the
spread over seeds of *every* arm is the spread a re-run would see. J itself is
still evaluated exactly (it is the measurement, not the learner).

All E roll-outs of an iteration are simulated together (vectorised over episodes).

Examples
--------
>>> from core.mdp.examples import corridor
>>> mdp = corridor(5)
>>> pi = np.full(mdp.P.shape[:2], 1.0 / mdp.n_actions)
>>> g, w = sampled_gradient(mdp, pi, 4, 20, np.random.default_rng(0))
>>> g.shape == pi.shape, bool(w[mdp.initial_state] > 0)
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.mdp.model import MDP

__all__ = ["sampled_gradient", "random_policies"]


def _pick(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row-wise inverse-CDF sampling: the first index whose cumulative mass exceeds u."""
    idx = (cum <= u[:, None]).sum(axis=1)
    result: np.ndarray = np.minimum(idx, cum.shape[1] - 1)
    return result


_TABLES: dict[int, tuple[Any, np.ndarray, np.ndarray | None]] = {}


def _tables(mdp: MDP) -> tuple[np.ndarray, np.ndarray | None]:
    """The cumulative transition rows (S, A, S) and the zero-reward absorbing states of an
    infinite-horizon model (None for a finite horizon), kept for the model last seen."""
    hit = _TABLES.get(id(mdp))
    if hit is not None and hit[0] is mdp:
        return hit[1], hit[2]
    P = mdp.P
    cum = np.cumsum(P, axis=2)
    absorbing = None
    if mdp.horizon is None:
        S = P.shape[0]
        stay = P[np.arange(S), :, np.arange(S)]                     # (S, A)
        absorbing = np.all(~mdp.mask | ((stay == 1.0) & (mdp.R == 0.0)), axis=1)
    _TABLES.clear()
    _TABLES[id(mdp)] = (mdp, cum, absorbing)
    return cum, absorbing


def sampled_gradient(mdp: MDP, pi: np.ndarray, episodes: int, steps: int,
                     gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """REINFORCE estimate of ∇_θ J from ``episodes`` roll-outs, and their discounted visits.

    Parameters
    ----------
    mdp : MDP
        The environment (a finite horizon T replaces ``steps`` and adds R_T at the end).
    pi : numpy.ndarray
        (S, A) the student's softmax policy (0 on unavailable actions).
    episodes : int
        Roll-outs per estimate (E ≥ 2 for the leave-one-out baseline).
    steps : int
        Length of a roll-out of an infinite-horizon model.
    gen : numpy.random.Generator
        The student's exploration stream.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The gradient estimate (S, A) and w (S,): the mean over roll-outs of Σ_t γ^t 1[s_t = s]
        (zero at states no roll-out visited).
    """
    S, A = pi.shape
    E = int(episodes)
    T = int(mdp.horizon) if mdp.horizon is not None else int(steps)
    g = float(mdp.discount)
    cum_P, absorbing = _tables(mdp)
    R = mdp.R
    cum_pi = np.cumsum(pi, axis=1)
    states = np.empty((T, E), dtype=np.int64)
    acts = np.empty((T, E), dtype=np.int64)
    rew = np.zeros((T, E))
    u = gen.random((T, 2, E))
    s = np.full(E, int(mdp.initial_state), dtype=np.int64)
    for t in range(T):
        if absorbing is not None and absorbing[s].all():
            # every roll-out has ended in a zero-reward absorbing state: the rest adds
            # nothing to a return (those states' own actions do not matter)
            states, acts, rew, T = states[:t], acts[:t], rew[:t], t
            break
        a = _pick(cum_pi[s], u[t, 0])
        states[t], acts[t] = s, a
        rew[t] = R[s, a]
        s = _pick(cum_P[s, a], u[t, 1])
    if T == 0:
        return np.zeros((S, A)), np.zeros(S)
    disc = g ** np.arange(T)
    # G_t = Σ_{t' ≥ t} γ^{t'-t} r_t' (+ γ^{T-t} R_T(s_T) for a finite horizon)
    G = np.empty((T, E))
    acc = mdp.R_T[s].astype(np.float64) if mdp.horizon is not None else np.zeros(E)
    for t in range(T - 1, -1, -1):
        acc = rew[t] + g * acc
        G[t] = acc
    if E >= 2:
        base = (G.sum(axis=1, keepdims=True) - G) / (E - 1)
    else:
        base = np.zeros_like(G)
    weight = disc[:, None] * (G - base) / E                      # (T, E)
    grad = np.zeros((S, A))
    flat_s, flat_a, flat_w = states.ravel(), acts.ravel(), weight.ravel()
    # Σ w·e_{a_t} at s_t, minus Σ w·π(·|s_t) at s_t
    np.add.at(grad, (flat_s, flat_a), flat_w)
    per_state = np.bincount(flat_s, weights=flat_w, minlength=S)
    grad -= per_state[:, None] * pi
    visits = np.bincount(flat_s, weights=np.repeat(disc, E), minlength=S) / E
    return np.where(mdp.mask, grad, 0.0), visits


def random_policies(mask_rows: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """One policy per row drawn uniformly from the simplex of that row's available actions
    (Dir(1, …, 1)): what the paper's teacher sends once its budget is spent — data-
    independent, so (0, 0)-DP.

    Parameters
    ----------
    mask_rows : numpy.ndarray
        (n, A) bool: the available actions of each queried state.
    gen : numpy.random.Generator
        The source (the OS CSPRNG's adapter in release mode).

    Returns
    -------
    numpy.ndarray
        (n, A) rows summing to 1, zero on unavailable actions.

    Examples
    --------
    >>> p = random_policies(np.array([[True, True, False]]), np.random.default_rng(1))
    >>> bool(abs(p.sum() - 1) < 1e-12), float(p[0, 2])
    (True, 0.0)
    """
    e = gen.standard_exponential(mask_rows.shape) * mask_rows
    result: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return result
