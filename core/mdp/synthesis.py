"""Policy synthesis and exact policy evaluation (Algorithm 1, steps 3–4).

Finite horizon: backward induction. Infinite horizon: value iteration to a tolerance,
then policy iteration with exact evaluation (``solve(I - γ P_π, r_π)``) until the
greedy policy is stable. Policies are deterministic; ties go to the lowest action
index; unavailable actions are masked with −∞.

References
----------
Gohari, Hale, Topcu, "Privacy-Preserving Policy Synthesis in Markov Decision
Processes", CDC 2020, §III; Puterman, *Markov Decision Processes*, ch. 4 and 6.

Examples
--------
>>> import numpy as np
>>> from core.mdp.model import MDP
>>> m = MDP(P=np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]),
...         R=np.array([[0.0, 0.0], [0.0, 0.0]]), R_T=np.array([0.0, 1.0]), horizon=1)
>>> r = synthesize(m)
>>> r.policy.tolist(), r.values[0].tolist()
([[1, 0]], [1.0, 1.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.progress import Progress, no_progress
from core.common.results import Status
from core.mdp.model import MDP
from core.mdp.sparse import adopt

__all__ = ["PolicyResult", "synthesize", "greedy", "evaluate_policy", "policy_rows",
           "solve_stationary", "check_sweeps"]


@dataclass(frozen=True, eq=False)
class PolicyResult:
    """A deterministic policy and its value.

    Finite horizon: ``policy`` is (T, S) action indices (stage 0 first) and ``values``
    is (T+1, S) with ``values[T] = R_T``. Infinite horizon: ``policy`` is (S,) and
    ``values`` is (S,).
    """

    policy: np.ndarray
    values: np.ndarray
    status: Status = Status.SUCCESS
    n_iter: int = 0

    def __post_init__(self) -> None:
        # read-only arrays handed over by the solvers are kept, anything else is copied
        object.__setattr__(self, "policy", adopt(self.policy, np.int64))
        object.__setattr__(self, "values", adopt(self.values))

    @property
    def message(self) -> str:
        return self.status.message

    def value_at(self, state: int) -> float:
        """The value at stage 0 (finite) or the stationary value (infinite)."""
        v = self.values[0] if self.values.ndim == 2 else self.values
        return float(v[state])


def greedy(Q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Argmax over the available actions; the lowest index wins ties.

    Parameters
    ----------
    Q : ndarray
        (..., A) action values.
    mask : ndarray
        (..., A) bool, the available actions.

    Returns
    -------
    ndarray
        The chosen action per leading index.
    """
    result: np.ndarray = np.argmax(np.where(mask, Q, -np.inf), axis=-1)
    return result


def policy_rows(P: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """The (S, S) transition matrix of a deterministic stationary policy.

    Parameters
    ----------
    P : ndarray
        (S, A, S) transition probabilities.
    policy : ndarray
        (S,) action per state.

    Returns
    -------
    ndarray
        Row s is P(s, policy[s], ·).
    """
    S = P.shape[0]
    result: np.ndarray = P[np.arange(S), policy]
    return result


def check_sweeps(sweeps: float, mdp: MDP, field: str, detail: str, kind: str = "plain"
                 ) -> None:
    """Refuse ``sweeps`` dynamic-programming sweeps over ``mdp`` that would pass the time
    limit (:func:`core.common.resources.check_time`), before the first one.

    Parameters
    ----------
    sweeps : float
        Iterations or stages.
    mdp : MDP
        The model (its S·A·S entries per sweep; a sparse one its stored entries).
    field : str
        What implies the count (``"discount"``, ``"horizon"``).
    detail : str
        The count in words.
    kind : {"plain", "robust"}
        The cost per sweep (:data:`core.common.resources.SWEEP_COST`).
    """
    from core.common.resources import check_time, sweep_seconds

    S, A = mdp.n_states, mdp.n_actions
    entries = float(S) * A * S if mdp.is_dense else float(mdp.transitions.data.size)
    check_time(sweep_seconds(sweeps, entries, kind), field, detail=detail)


def sweep_cap(rmax: float, g: float, tol: float) -> int:
    """Sweeps after which value iteration of a γ-contraction, started within ``rmax/(1−γ)`` of
    its fixed point, moves by less than the stopping threshold ``tol·(1−γ)/(2γ)``.

    Parameters
    ----------
    rmax : float
        The largest absolute one-step reward (or a bound on it).
    g : float
        The discount γ in (0, 1).
    tol : float
        The tolerance on the fixed point.

    Returns
    -------
    int
        At least 1.
    """
    span = max(rmax / (1.0 - g), 1e-300)
    return max(1, math.ceil(_log_ratio(span, g, tol) / math.log(1.0 / g)) + 1)


def _log_ratio(span: float, g: float, tol: float) -> float:
    """log(2·span / (tol·(1 − γ))), summed as logarithms: the ratio itself overflows to inf
    for values near :data:`core.mdp.model.MAX_VALUE` (a model the validation accepts)."""
    return math.log(2.0) + math.log(span) - math.log(tol) - math.log(1.0 - g)


def _iteration_cap(mdp: MDP, tol: float) -> int:
    g = mdp.discount
    vmax = (np.abs(mdp.R[mdp.mask]).max(initial=0.0)) / (1.0 - g)
    if vmax == 0:
        return 1
    cap = max(1, math.ceil(_log_ratio(float(vmax), g, tol) / math.log(1.0 / g))) + 1
    check_sweeps(cap, mdp, "discount", f"value iteration to {tol:g} at discount {g:.15g} needs "
                 f"{cap:.3g} sweeps")
    return cap


def synthesize(mdp: MDP, *, tol: float = 1e-10, max_iter: int | None = None,
               progress: Progress = no_progress) -> PolicyResult:
    """An optimal deterministic policy of ``mdp`` and its exact value.

    Parameters
    ----------
    mdp : MDP
        The model (for Algorithm 1, the privatised model M̄).
    tol : float
        Infinite horizon only: value-iteration tolerance before policy iteration polishes.
    max_iter : int, optional
        Infinite horizon only: cap on value iterations (default from spec §8.8).
    progress : callable
        ``progress(fraction, message)`` during long inductions and iterations (may cancel).
    """
    if not mdp.is_dense:
        return _synthesize_sparse(mdp, tol=tol, max_iter=max_iter, progress=progress)
    if mdp.horizon is not None:
        T, S = mdp.horizon, mdp.n_states
        check_sweeps(T, mdp, "horizon", f"backward induction over a horizon of {T:,} stages")
        values = np.empty((T + 1, S))
        policy = np.empty((T, S), dtype=np.int64)
        values[T] = mdp.R_T
        for t in range(T - 1, -1, -1):
            Q = mdp.R + mdp.discount * (mdp.P @ values[t + 1])
            policy[t] = greedy(Q, mdp.mask)
            values[t] = Q[np.arange(S), policy[t]]
            if t % 4096 == 0:
                progress((T - t) / T, f"synthesis: stage {t}")
        return PolicyResult(policy, values, Status.SUCCESS, T)
    cap = max_iter if max_iter is not None else _iteration_cap(mdp, tol)
    g = mdp.discount
    v = np.zeros(mdp.n_states)
    status, it = Status.MAX_ITER, 0
    for it in range(1, cap + 1):  # noqa: B007 - `it` is reported as n_iter
        Q = mdp.R + g * (mdp.P @ v)
        v_new = np.where(mdp.mask, Q, -np.inf).max(axis=1)
        if np.max(np.abs(v_new - v)) < tol * (1.0 - g) / (2.0 * g):
            v, status = v_new, Status.SUCCESS
            break
        v = v_new
        if it % 4096 == 0:
            progress(min(1.0, it / cap), f"value iteration {it:,}")
    # Policy iteration from the greedy policy: exact evaluation, stops when stable.
    policy = greedy(mdp.R + g * (mdp.P @ v), mdp.mask)
    for _ in range(10 * mdp.n_states + 10):
        v = evaluate_policy(mdp, policy)
        new = greedy(mdp.R + g * (mdp.P @ v), mdp.mask)
        q = mdp.R + g * (mdp.P @ v)
        S = mdp.n_states
        # keep the current action unless another one is strictly better (avoids cycling on ties)
        better = q[np.arange(S), new] > q[np.arange(S), policy] + 1e-12 * (1 + np.abs(v))
        if not better.any():
            break
        policy = np.where(better, new, policy)
    policy = greedy(mdp.R + g * (mdp.P @ v), mdp.mask)  # canonical lowest-index tie-break
    v = evaluate_policy(mdp, policy)
    return PolicyResult(policy, v, status, it)


def evaluate_policy(mdp: MDP, policy: np.ndarray) -> np.ndarray:
    """Exact value of a deterministic policy on ``mdp`` (shape as in :class:`PolicyResult`).

    Used both for V̄^π̄ (on the private model) and V^π̄ (π̄ on the true model, the
    "oracle view").

    Parameters
    ----------
    mdp : MDP
        The model.
    policy : ndarray
        (T, S) for a finite horizon, (S,) for an infinite one.

    Returns
    -------
    ndarray
        (T+1, S) values, stage 0 first (finite horizon), or (S,) (infinite horizon).
    """
    policy = np.asarray(policy, dtype=np.int64)
    S = mdp.n_states
    idx = np.arange(S)
    if not mdp.is_dense:
        return _evaluate_sparse(mdp, policy)
    if mdp.horizon is not None:
        T = mdp.horizon
        if policy.shape != (T, S):
            raise ValueError(f"policy must have shape {(T, S)}, got {policy.shape}")
        values = np.empty((T + 1, S))
        values[T] = mdp.R_T
        for t in range(T - 1, -1, -1):
            a = policy[t]
            values[t] = mdp.R[idx, a] + mdp.discount * (mdp.P[idx, a] @ values[t + 1])
        return values
    if policy.shape != (S,):
        raise ValueError(f"policy must have shape {(S,)}, got {policy.shape}")
    Ppi = policy_rows(mdp.P, policy)
    return np.linalg.solve(np.eye(S) - mdp.discount * Ppi, mdp.R[idx, policy])


# ----------------------------------------------------------------------------- sparse models
def _greedy_values(Q: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(argmax over available actions, lowest index on ties; the max) of an (S, A) array."""
    if not mask.all():
        Q = np.where(mask, Q, -np.inf)
    a = np.argmax(Q, axis=1)
    return a, Q[np.arange(Q.shape[0]), a]


def _synthesize_sparse(mdp: MDP, *, tol: float, max_iter: int | None,
                       progress: Progress = no_progress) -> PolicyResult:
    """:func:`synthesize` over CSR rows (one sparse product per stage or iteration).

    Infinite horizon: value iteration to the tolerance, then policy iteration whose
    evaluations are iterative (:func:`_evaluate_stationary`): a direct solve of a
    million-state system would fill in."""
    t = mdp.transitions
    g = mdp.discount
    if mdp.horizon is not None:
        T, S = mdp.horizon, mdp.n_states
        check_sweeps(T, mdp, "horizon", f"backward induction over a horizon of {T:,} stages")
        values = np.empty((T + 1, S))
        policy = np.empty((T, S), dtype=np.int64)
        values[T] = mdp.R_T
        for st in range(T - 1, -1, -1):
            Q = t.dot(values[st + 1])
            Q *= g
            Q += mdp.R
            policy[st], values[st] = _greedy_values(Q, mdp.mask)
            if st % 4096 == 0:
                progress((T - st) / T, f"synthesis: stage {st}")
        policy.setflags(write=False)  # handed over to the result (no copy)
        values.setflags(write=False)
        return PolicyResult(policy, values, Status.SUCCESS, T)
    cap = max_iter if max_iter is not None else _iteration_cap(mdp, tol)
    v = np.zeros(mdp.n_states)
    status, it = Status.MAX_ITER, 0
    for it in range(1, cap + 1):  # noqa: B007 - `it` is reported as n_iter
        _, v_new = _greedy_values(mdp.R + g * t.dot(v), mdp.mask)
        if np.max(np.abs(v_new - v)) < tol * (1.0 - g) / (2.0 * g):
            v, status = v_new, Status.SUCCESS
            break
        v = v_new
        if it % 4096 == 0:
            progress(min(1.0, it / cap), f"value iteration {it:,}")
    policy, _ = _greedy_values(mdp.R + g * t.dot(v), mdp.mask)
    S = mdp.n_states
    for _ in range(100):
        v = _evaluate_stationary(mdp, policy, v)
        q = mdp.R + g * t.dot(v)
        new, _ = _greedy_values(q, mdp.mask)
        better = q[np.arange(S), new] > q[np.arange(S), policy] + 1e-12 * (1 + np.abs(v))
        if not better.any():
            break
        policy = np.where(better, new, policy)
    policy, _ = _greedy_values(mdp.R + g * t.dot(v), mdp.mask)
    v = _evaluate_stationary(mdp, policy, v)
    return PolicyResult(policy, v, status, it)


def _evaluate_stationary(mdp: MDP, policy: np.ndarray, start: np.ndarray | None = None,
                         *, tol: float = 1e-13) -> np.ndarray:
    """v = r_π + γ P_π v for a stationary policy on a sparse model (:func:`solve_stationary`)."""
    S = mdp.n_states
    Ppi = mdp.transitions.policy_matrix(policy)
    r = mdp.R[np.arange(S), policy]
    return solve_stationary(Ppi, r, mdp.discount, start, tol=tol)


def solve_stationary(Ppi: Any, r: np.ndarray, discount: float,
                     start: np.ndarray | None = None, *, tol: float = 1e-13) -> np.ndarray:
    """v = r + γ P v for a sparse (S, S) matrix P (a stationary policy's transitions).

    BiCGSTAB from ``start`` (to a relative residual of 1e-13), finished by fixed-point steps
    (each a γ-contraction) until successive values differ by less than
    ``tol`` · (1 + max |r| / (1 − γ)): a direct solve of a million-state system would fill in.

    Parameters
    ----------
    Ppi : scipy.sparse array
        (S, S) transitions of the policy.
    r : numpy.ndarray
        (S,) its rewards.
    discount : float
        γ in (0, 1).
    start : numpy.ndarray, optional
        A first guess (default 0).
    tol : float
        The relative stopping tolerance of the fixed-point steps.

    Returns
    -------
    numpy.ndarray
        (S,) values.
    """
    from scipy.sparse import identity
    from scipy.sparse.linalg import bicgstab

    S = r.shape[0]
    g = discount
    x0 = np.zeros(S) if start is None else np.asarray(start, dtype=np.float64)
    v: np.ndarray
    try:
        v, info = bicgstab(identity(S, format="csr") - g * Ppi, r, x0=x0, rtol=1e-13,
                           atol=0.0, maxiter=1000)
    except (ValueError, ArithmeticError):  # pragma: no cover - solver breakdown
        v, info = x0, 1
    if info != 0 or not np.isfinite(v).all():
        v = x0
    scale = 1.0 + float(np.abs(r).max(initial=0.0)) / (1.0 - g)
    for _ in range(max(1, math.ceil(math.log(1e-16) / math.log(g))) + 1):
        new = r + g * (Ppi @ v)
        done = float(np.max(np.abs(new - v), initial=0.0)) <= tol * scale
        v = new
        if done:
            break
    return v


def _evaluate_sparse(mdp: MDP, policy: np.ndarray) -> np.ndarray:
    """:func:`evaluate_policy` on a sparse model."""
    S = mdp.n_states
    idx = np.arange(S)
    if mdp.horizon is not None:
        T = mdp.horizon
        if policy.shape != (T, S):
            raise ValueError(f"policy must have shape {(T, S)}, got {policy.shape}")
        values = np.empty((T + 1, S))
        values[T] = mdp.R_T
        for t in range(T - 1, -1, -1):
            a = policy[t]
            values[t] = mdp.R[idx, a] + mdp.discount * (
                mdp.transitions.policy_matrix(a) @ values[t + 1])
        return values
    if policy.shape != (S,):
        raise ValueError(f"policy must have shape {(S,)}, got {policy.shape}")
    return _evaluate_stationary(mdp, policy)
