"""The robust set P̂_{α,β} of a private model as an interval MDP, for model checkers.

PRISM and Storm verify temporal-logic properties of *interval* MDPs: every transition has a
probability interval [l, u] and nature picks any distribution within them (robustly, against
the controller, or cooperatively). The robust set of the papers,

    P̂_{α,β}(s, a) = { β P₁ + (1 − β) P₂ : P₁, P₂ ∈ Δ, ‖P₂ − P̄(s, a)‖_∞ ≤ α },

is not an interval set: its β part lets a row put mass anywhere, and mixing a box with an
arbitrary distribution is not a box. What is exported is its **interval hull on the
support** J of P̄(s, a):

    l_j = (1 − β)·max(P̄_j − α', 0),  u_j = min(β + (1 − β)·min(P̄_j + α', 1), 1),

for j ∈ J, with α' = α + the row's centre shift (:func:`core.mdp.robust.centre_shift`),
and [1, 1] for a row with one next state. Each end is attained in P̂ ∩ Δ(J), so the
intervals are the tightest per entry. Why the support: privatisation keeps zeros at zero
and every support entry positive, so the true row P(s, a) has exactly the support of
P̄(s, a) (public: the adjacency does not protect it), and so do E[P | P̄] and the
conditional expectations the papers' Lemma 2.3 builds P₁, P₂ from; whenever Lemma 2.2 puts
the centre within α of P̄, the true row lies in these intervals. A property that holds on
the interval MDP for every resolution of the intervals holds for the true model in that
event; the interval MDP is larger than P̂ ∩ Δ(J) (it is its hull), so its results are
sound and can be more pessimistic than PrivPlan's own bounds.

:func:`interval_value_bounds` is PrivPlan's Bellman iteration over such interval rows for
a fixed policy (the semantics of Storm's interval value iteration); ``bench/storm.py``
compares it with Storm on the exported files.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> from core.mdp.privatize import privatize_mdp
>>> p = privatize_mdp(four_startups(), 100.0, rng=1, eta=0.005, domain_rule="refuse").mdp
>>> lo, hi, alpha, shift = robust_intervals(p, k=100.0, beta=0.05)
>>> bool((lo <= p.transitions.data).all() and (p.transitions.data <= hi).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.results import Status
from core.common.validation import check_beta
from core.mdp import robust_kernels
from core.mdp.model import MDP
from core.mdp.robust import ValueBounds, alpha_radius
from core.mdp.robust_sparse import interval_extremes, interval_hull
from core.mdp.sparse import gather_rows
from core.mdp.synthesis import sweep_cap

__all__ = ["robust_intervals", "interval_value_bounds", "IntervalModel"]


@dataclass(frozen=True, eq=False)
class IntervalModel:
    """Interval transitions on a model's CSR entries (``lower``, ``upper`` per entry)."""

    mdp: MDP
    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    alpha_shift: float
    beta: float


def robust_intervals(private: MDP, *, k: float, beta: float, alpha_mode: str = "paper",
                     centre_shift: "float | np.ndarray | None" = None
                     ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The interval hull of P̂_{α,β} on the support of every row (module docstring).

    Parameters
    ----------
    private : MDP
        The private model P̄.
    k : float
        The concentration that produced it.
    beta : float
        β.
    alpha_mode : str
        ``"paper"`` or ``"rigorous"`` (:func:`core.mdp.robust.alpha_radius`).
    centre_shift : float or (S, A) array, optional
        Each row's centre shift (:func:`core.mdp.robust.release_centre_shift`).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, float, float)
        Lower and upper ends per stored transition, α, and the largest shift.
    """
    beta = check_beta(beta)
    alpha = alpha_radius(k, beta, mode=alpha_mode, n=private.n_states)
    t = private.transitions
    rows = t.row_of_entry()
    shift = np.zeros(t.n_rows)
    if centre_shift is not None:
        arr = np.asarray(centre_shift, dtype=np.float64)
        shape = (private.n_states, private.n_actions)
        arr = np.full(shape, float(arr)) if arr.ndim == 0 else arr
        if arr.shape != shape or not (np.isfinite(arr).all() and (arr >= 0).all()):
            raise InputError(f"must be a number or a finite array of shape {shape} >= 0",
                             field="centre_shift")
        shift = arr.reshape(-1)
    lo, hi = interval_hull(t.data, rows, alpha + shift, beta)
    return lo, hi, alpha, float(shift.max(initial=0.0))


def interval_value_bounds(mdp: MDP, lower: np.ndarray, upper: np.ndarray,
                          policy: np.ndarray, *, tol: float = 1e-10,
                          max_iter: int | None = None,
                          progress: Progress = no_progress) -> ValueBounds:
    """v̲ and v̄ of a deterministic policy when every transition may take any probability in
    its interval (nature minimising, resp. maximising, the value).

    Finite horizon: backward induction (``policy`` (T, S)); infinite horizon: value
    iteration to ``tol`` (``policy`` (S,)). Rewards r(s, a), terminal values R_T.

    Parameters
    ----------
    mdp : MDP
        The model (its transitions give the entries; its values are ignored).
    lower, upper : numpy.ndarray
        (nnz,) interval ends per stored transition.
    policy : numpy.ndarray
        Actions per stage and state, or per state.
    tol : float
        Infinite horizon: the stopping tolerance.
    max_iter : int, optional
        Infinite horizon: the iteration limit.
    progress : callable
        Called per stage or iteration.

    Returns
    -------
    ValueBounds
    """
    t = mdp.transitions
    S = mdp.n_states
    idx = np.arange(S)
    g = mdp.discount
    policy = np.asarray(policy, dtype=np.int64)

    lower = np.ascontiguousarray(lower, dtype=np.float64)
    upper = np.ascontiguousarray(upper, dtype=np.float64)
    if lower.shape != (t.nnz,) or upper.shape != (t.nnz,):
        raise InputError(f"must have one interval per transition ({t.nnz:,})", field="lower")

    def step(a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if robust_kernels.AVAILABLE:
            m_lo, m_hi = robust_kernels.interval_extremes(t.indptr, t.indices, lower, upper,
                                                          mdp.n_actions, a, lo, hi)
        else:
            pos, ptr = gather_rows(t.indptr, idx * mdp.n_actions + a)
            m_lo, m_hi = interval_extremes(ptr, t.indices[pos], lower[pos], upper[pos], lo,
                                           hi)
        r = mdp.R[idx, a]
        return r + g * m_lo, r + g * m_hi

    if mdp.horizon is not None:
        T = mdp.horizon
        if policy.shape != (T, S):
            raise InputError(f"must have shape {(T, S)}, got {policy.shape}", field="policy")
        v_lo = np.empty((T + 1, S))
        v_hi = np.empty((T + 1, S))
        v_lo[T] = v_hi[T] = mdp.R_T
        for st in range(T - 1, -1, -1):
            v_lo[st], v_hi[st] = step(policy[st], v_lo[st + 1], v_hi[st + 1])
            progress((T - st) / T, f"stage {st}")
        return ValueBounds(v_lo, v_hi, Status.SUCCESS, T)
    if policy.shape != (S,):
        raise InputError(f"must have shape {(S,)}, got {policy.shape}", field="policy")
    r = mdp.R[idx, policy]
    cap = max_iter if max_iter is not None else sweep_cap(float(np.abs(r).max(initial=0.0)),
                                                          g, tol)
    lo = np.zeros(S)
    hi = np.zeros(S)
    status, it = Status.MAX_ITER, 0
    for it in range(1, cap + 1):
        new_lo, new_hi = step(policy, lo, hi)
        delta = max(float(np.abs(new_lo - lo).max()), float(np.abs(new_hi - hi).max()))
        lo, hi = new_lo, new_hi
        progress(min(1.0, it / cap), f"iteration {it}")
        if delta < tol * (1.0 - g) / (2.0 * g):
            status = Status.SUCCESS
            break
    return ValueBounds(lo, hi, status, it)
