"""Stochastic policies: tables π(a|s), their exact values, and entropy-regularised synthesis.

A stochastic policy is a table of probabilities π_t(a|s): shape (T, S, A) for a finite
horizon (stage 0 first) or (S, A) for an infinite one, in the model's state and action
order. Every row sums to 1 (within :data:`SUM_TOL`), entries are >= 0, and an action a state
does not have gets probability 0. A deterministic policy is the one-hot case
(:func:`one_hot`, :func:`deterministic_actions`). A policy file is JSON
``{"policy": π}`` (:func:`load_policy`); a stationary (S, A) table is also accepted for a
finite horizon and used at every stage.

The Bellman recursion of a stochastic policy averages over its actions:

    V_t(s) = Σ_a π_t(a|s) ( r(s, a) + γ Σ_s' P(s, a, s') V_{t+1}(s') ),

(:func:`evaluate_stochastic`: backward for a finite horizon; for an infinite one the linear
system v = r_π + γ P_π v, solved directly for a small model and iteratively for a sparse one).

:func:`softmax_policy` is the entropy-regularised synthesis: with temperature τ > 0,

    Q_t(s, a) = r(s, a) + γ Σ_s' P(s, a, s') W_{t+1}(s'),
    W_t(s) = τ log Σ_{a available} exp(Q_t(s, a) / τ),   π_t(a|s) = exp((Q_t(s, a) − W_t(s)) / τ),

the optimal policy of the reward plus τ times the policy's entropy (soft value iteration for
an infinite horizon, a γ-contraction). As τ → 0 it tends to the greedy policy; its
``values`` are the policy's expected rewards (no entropy term), ``soft_values`` are W.

References
----------
Gohari, dissertation (2023), §2.5–2.6 (Theorems 2.4 and 2.6 hold for a stochastic π̄);
Haarnoja et al., "Reinforcement Learning with Deep Energy-Based Policies", ICML 2017 (soft
Bellman backup); Puterman, *Markov Decision Processes*, §6.2.

Examples
--------
>>> import numpy as np
>>> from core.mdp.model import MDP
>>> m = MDP(P=np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]),
...         R=np.zeros((2, 2)), R_T=np.array([0.0, 1.0]), horizon=1)
>>> pi = check_policy_table(m, [[[0.5, 0.5], [0.25, 0.75]]])
>>> evaluate_stochastic(m, pi)[0].tolist()
[0.5, 1.0]
>>> deterministic_actions(check_policy_table(m, [[[0, 1], [1, 0]]])).tolist()
[[1, 0]]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.results import Status
from core.mdp.model import MDP
from core.mdp.sparse import adopt
from core.mdp.synthesis import check_sweeps, solve_stationary, sweep_cap

__all__ = ["SUM_TOL", "check_policy_table", "load_policy", "one_hot", "deterministic_actions",
           "is_stochastic", "most_likely", "evaluate_stochastic", "SoftmaxResult",
           "softmax_policy", "check_temperature"]

#: How far a row of a policy table may sum from 1 (as for the rows of an MDP file).
SUM_TOL = 1e-9


def _describe(mdp: MDP, t: int | None, s: int) -> str:
    where = f"state {mdp.state_names[s]!r}"
    return where if t is None else f"stage {t}, {where}"


def check_policy_table(mdp: MDP, table: Any, *, field: str = "policy") -> np.ndarray:
    """``table`` as a validated, read-only policy of ``mdp`` (see the module docstring).

    Parameters
    ----------
    mdp : MDP
        The model the policy acts on.
    table : array_like
        π(a|s): (T, S, A) for a finite horizon, (S, A) for an infinite one (a stationary
        (S, A) table is used at every stage of a finite horizon).
    field : str
        What errors name.

    Returns
    -------
    numpy.ndarray
        (T, S, A) for a finite horizon, (S, A) for an infinite one; float64, read-only.

    Raises
    ------
    InputError
        Naming the stage, the state and the action where the table is wrong.
    """
    S, A = mdp.n_states, mdp.n_actions
    if isinstance(table, (str, bytes, dict)) or isinstance(table, bool):
        raise InputError("must be an array of probabilities", field=field)
    try:
        arr = np.array(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("must be a rectangular array of numbers (every row as long as the "
                         "model's number of actions)", field=field) from None
    T = mdp.horizon
    want = f"(T, S, A) = ({T}, {S}, {A})" if T is not None else f"(S, A) = ({S}, {A})"
    if arr.shape == (S, A) and T is not None:
        arr = np.broadcast_to(arr, (T, S, A)).copy()  # stationary: the same at every stage
    elif arr.shape != ((T, S, A) if T is not None else (S, A)):
        raise InputError(f"must have shape {want} (the model's stages, states and actions), "
                         f"got {arr.shape}", field=field)
    flat = arr.reshape(-1, S, A)
    stage = (lambda i: i) if T is not None else (lambda i: None)
    bad = ~np.isfinite(flat)
    if bad.any():
        i, s, a = (int(x) for x in np.argwhere(bad)[0])
        raise InputError(f"{_describe(mdp, stage(i), s)}, action "
                         f"{mdp.action_names.name(s, a)!r}: {flat[i, s, a]} is not a finite "
                         "number", field=field)
    neg = flat < 0
    if neg.any():
        i, s, a = (int(x) for x in np.argwhere(neg)[0])
        raise InputError(f"{_describe(mdp, stage(i), s)}, action "
                         f"{mdp.action_names.name(s, a)!r}: probability {flat[i, s, a]:g} is "
                         "negative", field=field)
    off = (flat > 0) & ~mdp.mask[None]
    if off.any():
        i, s, a = (int(x) for x in np.argwhere(off)[0])
        raise InputError(f"{_describe(mdp, stage(i), s)}: gives probability "
                         f"{flat[i, s, a]:g} to action {a}, which this state does not have",
                         field=field)
    sums = flat.sum(axis=2)
    wrong = np.abs(sums - 1.0) > SUM_TOL
    if wrong.any():
        i, s = (int(x) for x in np.argwhere(wrong)[0])
        raise InputError(f"{_describe(mdp, stage(i), s)}: probabilities sum to "
                         f"{sums[i, s]:.12g}, must sum to 1 (within {SUM_TOL:g})", field=field)
    arr.setflags(write=False)
    return arr


def _holds_bool(tree: Any) -> bool:
    """True when a JSON boolean is anywhere in the nested lists ``tree``."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, bool):
            return True
        if isinstance(x, list):
            stack.extend(x)
    return False


def load_policy(path: "str | os.PathLike[str]", mdp: MDP) -> np.ndarray:
    """Read a policy file ``{"policy": π}`` for ``mdp`` (:func:`check_policy_table`).

    Parameters
    ----------
    path : str or PathLike
        The JSON file.
    mdp : MDP
        The model it is for.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InputError
        Naming the file and what is wrong.
    """
    from core.common.jsonfile import read_json

    doc = read_json(path)
    if not isinstance(doc, dict) or "policy" not in doc:
        raise InputError('must be a JSON object {"policy": [...]} holding π(a|s)',
                         file=os.fspath(path))
    if _holds_bool(doc["policy"]):  # numpy would read true/false as 1.0/0.0
        raise InputError("probabilities must be numbers, not true/false", field="policy",
                         file=os.fspath(path))
    try:
        return check_policy_table(mdp, doc["policy"])
    except InputError as exc:
        raise InputError(exc.problem, field=exc.field, file=os.fspath(path)) from None


def one_hot(policy: Any, n_actions: int) -> np.ndarray:
    """The table of a deterministic policy (action indices, any shape) with ``n_actions``.

    Parameters
    ----------
    policy : array_like of int
        Action indices.
    n_actions : int
        A.

    Returns
    -------
    numpy.ndarray
        ``policy.shape + (A,)``, 1.0 at the chosen action.

    Examples
    --------
    >>> one_hot([1, 0], 3).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    idx = np.asarray(policy, dtype=np.int64)
    out = np.zeros(idx.shape + (int(n_actions),))
    np.put_along_axis(out, idx[..., None], 1.0, axis=-1)
    return out


def deterministic_actions(table: np.ndarray) -> np.ndarray | None:
    """The action indices of a one-hot table (every row one 1.0 and zeros), else None.

    Parameters
    ----------
    table : numpy.ndarray
        A policy table.

    Returns
    -------
    numpy.ndarray or None
        (T, S) or (S,) indices.
    """
    t = np.asarray(table)
    ones = t == 1.0
    if not ((ones.sum(axis=-1) == 1).all() and ((t == 0.0) | ones).all()):
        return None
    result: np.ndarray | None = np.argmax(t, axis=-1)
    return result


def is_stochastic(table: np.ndarray) -> bool:
    """Whether some row gives positive probability to more than one action."""
    return bool(((np.asarray(table) > 0).sum(axis=-1) > 1).any())


def most_likely(table: np.ndarray) -> np.ndarray:
    """The most probable action of every row (the lowest index on ties)."""
    result: np.ndarray = np.argmax(np.asarray(table), axis=-1)
    return result


def _expected(mdp: MDP, v: np.ndarray) -> np.ndarray:
    """(S, A): Σ_s' P(s, a, s') v(s') (dense or CSR)."""
    return mdp.P @ v if mdp.is_dense else mdp.transitions.dot(v)


def _policy_matrix(mdp: MDP, pi: np.ndarray) -> Any:
    """P_π = Σ_a π(a|s) P(s, a, ·): dense (S, S), or sparse for a sparse model."""
    if mdp.is_dense:
        return np.einsum("sa,sat->st", pi, mdp.P)
    from scipy.sparse import csr_array

    S, A = pi.shape
    rows, acts = np.nonzero(pi)
    w = csr_array((pi[rows, acts], (rows, rows * A + acts)), shape=(S, S * A))
    return (w @ mdp.transitions.matrix).tocsr()


def evaluate_stochastic(mdp: MDP, table: np.ndarray, *, start: np.ndarray | None = None
                        ) -> np.ndarray:
    """Exact value of a stochastic policy on ``mdp``.

    Parameters
    ----------
    mdp : MDP
        The model.
    table : numpy.ndarray
        A checked policy table (:func:`check_policy_table`).
    start : numpy.ndarray, optional
        Infinite horizon, sparse model: the iterative solver's first guess.

    Returns
    -------
    numpy.ndarray
        (T+1, S), stage 0 first, last row R_T (finite horizon), or (S,) (infinite).
    """
    pi = np.asarray(table, dtype=np.float64)
    g = mdp.discount
    if mdp.horizon is not None:
        T = mdp.horizon
        values = np.empty((T + 1, mdp.n_states))
        values[T] = mdp.R_T
        for t in range(T - 1, -1, -1):
            Q = _expected(mdp, values[t + 1])
            Q *= g
            Q += mdp.R
            values[t] = (pi[t] * Q).sum(axis=1)
        return values
    r = (pi * mdp.R).sum(axis=1)
    Ppi = _policy_matrix(mdp, pi)
    if mdp.is_dense:
        return np.linalg.solve(np.eye(mdp.n_states) - g * Ppi, r)
    return solve_stationary(Ppi, r, g, start)


@dataclass(frozen=True, eq=False)
class SoftmaxResult:
    """An entropy-regularised policy (:func:`softmax_policy`).

    ``policy`` is the table, (T, S, A) or (S, A); ``values`` its expected rewards (shape as
    :class:`core.mdp.synthesis.PolicyResult`), ``soft_values`` the regularised values W.
    """

    policy: np.ndarray
    values: np.ndarray
    soft_values: np.ndarray
    temperature: float
    status: Status = Status.SUCCESS
    n_iter: int = 0

    def __post_init__(self) -> None:
        for name in ("policy", "values", "soft_values"):
            object.__setattr__(self, name, adopt(getattr(self, name)))


def check_temperature(tau: Any, field: str = "temperature") -> float:
    """τ: a finite number > 0.

    Parameters
    ----------
    tau : Any
        The value.
    field : str
        What errors name.

    Returns
    -------
    float
    """
    try:
        t = float(tau)
    except (TypeError, ValueError):
        raise InputError(f"must be a number > 0, got {tau!r}", field=field) from None
    if isinstance(tau, bool) or not math.isfinite(t) or not t > 0:
        raise InputError(f"must be a finite number > 0, got {tau!r}", field=field)
    return t


def _soft_step(mdp: MDP, w_next: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """(π, W) of one soft Bellman backup from the next values ``w_next``."""
    Q = _expected(mdp, w_next)
    Q *= mdp.discount
    Q += mdp.R
    z = np.where(mdp.mask, Q / tau, -np.inf)
    top = z.max(axis=1, keepdims=True)
    e = np.exp(z - top)
    total = e.sum(axis=1, keepdims=True)
    pi = e / total
    w = tau * (top[:, 0] + np.log(total[:, 0]))
    return pi, w


def softmax_policy(mdp: MDP, temperature: float, *, tol: float = 1e-10,
                   max_iter: int | None = None, progress: Progress = no_progress
                   ) -> SoftmaxResult:
    """The entropy-regularised (softmax) policy of ``mdp`` at ``temperature`` τ.

    Parameters
    ----------
    mdp : MDP
        The model (for Algorithm 1, the private model M̄).
    temperature : float
        τ > 0: the weight of the entropy bonus (small τ: close to greedy).
    tol : float
        Infinite horizon: the soft value iteration stops when successive W differ by less
        than tol·(1 − γ)/(2γ).
    max_iter : int, optional
        Infinite horizon: its iteration cap (default from the tolerance and the reward and
        entropy scale).
    progress : callable
        Called per stage or iteration (may cancel).

    Returns
    -------
    SoftmaxResult

    Examples
    --------
    >>> import numpy as np
    >>> m = MDP(P=np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]),
    ...         R=np.zeros((2, 2)), R_T=np.array([0.0, 1.0]), horizon=1)
    >>> r = softmax_policy(m, 1.0)
    >>> [round(float(x), 6) for x in r.policy[0, 0]]
    [0.268941, 0.731059]
    """
    tau = check_temperature(temperature)
    S = mdp.n_states
    g = mdp.discount
    if mdp.horizon is not None:
        T = mdp.horizon
        check_sweeps(T, mdp, "horizon", f"softmax synthesis over a horizon of {T:,} stages")
        pol = np.empty((T, S, mdp.n_actions))
        w = np.empty((T + 1, S))
        w[T] = mdp.R_T
        for t in range(T - 1, -1, -1):
            pol[t], w[t] = _soft_step(mdp, w[t + 1], tau)
            progress((T - t) / T, f"stage {t}")
        pol.setflags(write=False)
        return SoftmaxResult(pol, evaluate_stochastic(mdp, pol), w, tau, Status.SUCCESS, T)
    sizes = mdp.mask.sum(axis=1)
    rmax = float(np.abs(mdp.R).max(initial=0.0)) + tau * math.log(max(int(sizes.max()), 1))
    cap = max_iter if max_iter is not None else sweep_cap(rmax, g, tol)
    check_sweeps(cap, mdp, "discount", f"soft value iteration to {tol:g} at discount "
                 f"{g:.15g} needs {cap:.3g} sweeps")
    w1 = np.zeros(S)
    status, it = Status.MAX_ITER, 0
    pi = np.zeros((S, mdp.n_actions))
    for it in range(1, cap + 1):  # noqa: B007 - `it` is reported as n_iter
        pi, new = _soft_step(mdp, w1, tau)
        delta = float(np.max(np.abs(new - w1), initial=0.0))
        w1 = new
        progress(min(1.0, it / cap), f"iteration {it}")
        if delta < tol * (1.0 - g) / (2.0 * g):
            status = Status.SUCCESS
            break
    pi, _ = _soft_step(mdp, w1, tau)  # the policy of the final values
    pi.setflags(write=False)
    return SoftmaxResult(pi, evaluate_stochastic(mdp, pi), w1, tau, status, it)
