"""Cost of privacy: pessimistic/optimistic value functions over the robust set P̂_{α,β}.

For a privatised model P̄ and its synthesised policy π̄, Theorems 1 (finite horizon)
and 2 (infinite horizon) of Gohari et al. bound the cost of privacy by
``v_upper(s0) - v_lower(s0)``, where ``v_lower``/``v_upper`` replace P̄ in the Bellman
recursion of π̄ by the worst/best row in

    P̂_{α,β}(s,a) = { β P₁ + (1-β) P₂ : P₁, P₂ ∈ Δ, ‖P₂ - P̄(s,a)‖_∞ ≤ α }.

The papers solve one LP (P) per row, stage and bound. The inner problem has a closed
form (spec §6.5):

    min_{p ∈ P̂} pᵀv = β·min_j v_j + (1-β)·min_{q ∈ L} qᵀv,  L = Δ ∩ {‖q - P̄‖_∞ ≤ α}

and the second term is a fractional knapsack solved by a greedy fill in ascending order
of v. ``v`` is shared by every row at a stage, so one sort per stage serves all rows.
``method="lp"`` keeps the papers' LP, solved with HiGHS, as a cross-check.

References
----------
Gohari, Hale, Topcu, "Privacy-Preserving Policy Synthesis in Markov Decision
Processes", CDC 2020, Theorems 1–2 and §V; Gohari, dissertation, §2.5–2.6.

Examples
--------
>>> import numpy as np
>>> lo, hi = inner_extremes(np.array([[0.5, 0.3, 0.2]]), np.array([1.0, 2.0, 3.0]),
...                         alpha=0.1, beta=0.1)
>>> round(float(lo[0]), 12), round(float(hi[0]), 12)
(1.45, 2.01)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from core._validation import InputError, check_beta, check_k
from core.mdp import MDP
from core.planning.synthesis import PolicyResult, evaluate_policy, synthesize
from core.progress import Progress, no_progress
from core.results import Status, readonly

__all__ = ["ALPHA_MODES", "METHODS", "BoundResult", "alpha_radius", "inner_extremes",
           "inner_lp", "cost_of_privacy", "robust_bounds"]

ALPHA_MODES = ("paper", "rigorous")
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
METHODS = ("greedy", "lp")


def alpha_radius(k: float, beta: float, *, mode: str = "paper", n: int | None = None) -> float:
    """The L∞ radius α of P̂_{α,β}.

    ``"paper"``: α = √(log(1/β) / (2(k+1))), Lemma 2.2 as published (reproduces the
    paper; the lemma can fail, spec §3). ``"rigorous"``: α = √(log(2n/β) / (2(k+1))), from
    sub-Gaussian tails and a union bound over the n coordinates.

    Examples
    --------
    >>> round(alpha_radius(24, math.exp(-2)), 12)
    0.2
    """
    k = check_k(k)
    beta = check_beta(beta)
    if mode == "paper":
        return math.sqrt(math.log(1.0 / beta) / (2.0 * (k + 1.0)))
    if mode == "rigorous":
        if n is None or n < 1:
            raise InputError("the rigorous radius needs the row length n >= 1", field="n")
        return math.sqrt(math.log(2.0 * n / beta) / (2.0 * (k + 1.0)))
    raise InputError(f"must be one of {ALPHA_MODES}, got {mode!r}", field="alpha")


def inner_extremes(rows: np.ndarray, v: np.ndarray, *, alpha: float, beta: float,
                   order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``min`` and ``max`` of ``pᵀv`` over P̂_{α,β} around each row of ``rows``.

    ``rows`` is (m, n) (each a probability vector), ``v`` is (n,). Cost O(n log n + m·n).
    ``order`` may pass ``argsort(v)`` when the caller already has it.
    """
    rows = np.asarray(rows, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    o = np.argsort(v, kind="stable") if order is None else order
    return _extremes(rows, v, v, alpha, beta, o, o[::-1])


# Rows are processed in blocks so that the (block, n) temporaries stay in cache: at
# n = 1000 a whole-matrix pass allocates 8 MB per temporary and runs ~5x slower.
_BLOCK_ELEMS = 1 << 15


def _extremes(rows: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray, alpha: float, beta: float,
              asc_lo: np.ndarray, desc_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min over P̂ of pᵀv_lo and max over P̂ of pᵀv_hi, row by row (spec §6.5).

    The L∞ box around each row is l = max(P̄ − α, 0), u = min(P̄ + α, 1); the knapsack
    starts from l and fills the remaining mass r = 1 − Σl greedily along ``asc_lo`` (for
    the min) or ``desc_hi`` (for the max): fill_j = clip(r − (cumsum(c) − c), 0, c) with
    c = (u − l) in that order.
    """
    m, n = rows.shape
    lo = np.empty(m)
    hi = np.empty(m)
    v_lo_sorted, v_hi_sorted = v_lo[asc_lo], v_hi[desc_hi]
    step = max(1, _BLOCK_ELEMS // max(n, 1))
    for start in range(0, m, step):
        block = rows[start:start + step]
        lower = block - alpha
        np.maximum(lower, 0.0, out=lower)
        cap = block + alpha
        np.minimum(cap, 1.0, out=cap)
        cap -= lower
        rest = 1.0 - lower.sum(axis=1, keepdims=True)
        np.maximum(rest, 0.0, out=rest)
        for order, vs, base_v, out in ((asc_lo, v_lo_sorted, v_lo, lo),
                                       (desc_hi, v_hi_sorted, v_hi, hi)):
            c = cap[:, order]
            fill = np.cumsum(c, axis=1)
            fill -= c
            np.subtract(rest, fill, out=fill)
            np.clip(fill, 0.0, c, out=fill)
            out[start:start + step] = lower @ base_v + fill @ vs
    lo *= 1.0 - beta
    lo += beta * v_lo.min()
    hi *= 1.0 - beta
    hi += beta * v_hi.max()
    return lo, hi


def inner_lp(row: np.ndarray, v: np.ndarray, *, alpha: float, beta: float, sense: str = "min"
             ) -> float:
    """The papers' LP (P) for one row, solved with HiGHS (the cross-check of the greedy).

    Variables (P₁, P₂, p) ∈ ℝ^{3n}; 3 simplex equalities, n mixing equalities and the
    2n constraints ``-α ≤ P₂ - P̄ ≤ α``, as in [D] §2.6.1.
    """
    row = np.asarray(row, dtype=np.float64)
    n = row.size
    sign = 1.0 if sense == "min" else -1.0
    c = np.concatenate([np.zeros(2 * n), sign * np.asarray(v, dtype=np.float64)])
    eye, zero = np.eye(n), np.zeros((n, n))
    a_eq = np.zeros((3 + n, 3 * n))
    a_eq[0, :n] = a_eq[1, n:2 * n] = a_eq[2, 2 * n:] = 1.0
    a_eq[3:] = np.hstack([beta * eye, (1.0 - beta) * eye, -eye])
    b_eq = np.concatenate([np.ones(3), np.zeros(n)])
    a_ub = np.vstack([np.hstack([zero, eye, zero]), np.hstack([zero, -eye, zero])])
    b_ub = np.concatenate([row + alpha, alpha - row])
    # HiGHS's default feasibility tolerances (1e-7) let entries of P̄ below 1e-7 slip and
    # miss the optimum by ~1e-8; the cross-check is meant to agree to 1e-9.
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None),
                  method="highs", options=_HIGHS_OPTIONS)
    if res.status != 0:  # pragma: no cover - the LP is always feasible (P̄ is a solution)
        raise RuntimeError(f"HiGHS failed on the inner LP: {res.message}")
    return float(sign * res.fun)


def _inner(rows: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray, alpha: float, beta: float,
           method: str) -> tuple[np.ndarray, np.ndarray]:
    if method == "greedy":
        return _extremes(rows, v_lo, v_hi, alpha, beta, np.argsort(v_lo, kind="stable"),
                         np.argsort(v_hi, kind="stable")[::-1])
    lo = np.array([inner_lp(r, v_lo, alpha=alpha, beta=beta, sense="min") for r in rows])
    hi = np.array([inner_lp(r, v_hi, alpha=alpha, beta=beta, sense="max") for r in rows])
    return lo, hi


@dataclass(frozen=True, eq=False)
class BoundResult:
    """π̄, its value V̄ on the private model and the robust bounds v̲ ≤ V̄ ≤ v̄.

    Finite horizon: arrays are (T+1, S) (stage 0 first; last row is R_T) and ``policy``
    is (T, S). Infinite horizon: arrays are (S,) and ``policy`` is (S,).
    """

    policy: np.ndarray
    v_private: np.ndarray
    v_lower: np.ndarray
    v_upper: np.ndarray
    alpha: float
    beta: float
    alpha_mode: str
    method: str
    initial_state: int
    status: Status = Status.SUCCESS
    n_iter: int = 0
    elapsed_s: float = 0.0

    def __post_init__(self) -> None:
        pol = np.array(self.policy, dtype=np.int64, copy=True)
        pol.setflags(write=False)
        object.__setattr__(self, "policy", pol)
        for name in ("v_private", "v_lower", "v_upper"):
            object.__setattr__(self, name, readonly(getattr(self, name)))

    def at_start(self, arr: np.ndarray) -> np.ndarray:
        """Stage-0 values (finite) or the stationary values (infinite)."""
        return arr[0] if arr.ndim == 2 else arr

    @property
    def cost_bound(self) -> float:
        """v̄(s₀) − v̲(s₀): the computable bound on the cost of privacy."""
        s0 = self.initial_state
        return float(self.at_start(self.v_upper)[s0] - self.at_start(self.v_lower)[s0])


def robust_bounds(private: MDP, policy: np.ndarray, *, alpha: float, beta: float,
                  method: str = "greedy", tol: float = 1e-10, max_iter: int | None = None,
                  progress: Progress = no_progress) -> tuple[np.ndarray, np.ndarray, Status, int]:
    """v̲ and v̄ of a deterministic ``policy`` on the private model (Theorems 1 and 2)."""
    if method not in METHODS:
        raise InputError(f"must be one of {METHODS}, got {method!r}", field="method")
    beta = check_beta(beta)
    if not (math.isfinite(alpha) and alpha >= 0):
        raise InputError(f"must be finite and >= 0, got {alpha!r}", field="alpha")
    S = private.n_states
    idx = np.arange(S)
    g = private.discount
    policy = np.asarray(policy, dtype=np.int64)
    if private.is_finite:
        T = private.horizon
        lo = np.empty((T + 1, S))
        hi = np.empty((T + 1, S))
        lo[T] = hi[T] = private.R_T
        for t in range(T - 1, -1, -1):
            a = policy[t]
            m_lo, m_hi = _inner(private.P[idx, a], lo[t + 1], hi[t + 1], alpha, beta, method)
            lo[t] = private.R[idx, a] + g * m_lo
            hi[t] = private.R[idx, a] + g * m_hi
            progress((T - t) / T, f"stage {t}")
        return lo, hi, Status.SUCCESS, T
    rows = private.P[idx, policy]
    r = private.R[idx, policy]
    lo = hi = evaluate_policy(private, policy)
    rmax = float(np.abs(r).max(initial=0.0))
    span = max(rmax / (1.0 - g), 1e-300)
    cap = max_iter if max_iter is not None else max(
        1, math.ceil(math.log(2.0 * span / (tol * (1.0 - g))) / math.log(1.0 / g)) + 1)
    status = Status.MAX_ITER
    it = 0
    for it in range(1, cap + 1):
        m_lo, m_hi = _inner(rows, lo, hi, alpha, beta, method)
        new_lo, new_hi = r + g * m_lo, r + g * m_hi
        delta = max(np.max(np.abs(new_lo - lo)), np.max(np.abs(new_hi - hi)))
        lo, hi = new_lo, new_hi
        progress(min(1.0, it / cap), f"iteration {it}")
        if delta < tol * (1.0 - g) / (2.0 * g):
            status = Status.SUCCESS
            break
    return lo, hi, status, it


def cost_of_privacy(private: MDP, *, k: float, beta: float = 0.05, alpha_mode: str = "paper",
                    method: str = "greedy", plan: PolicyResult | None = None,
                    progress: Progress = no_progress) -> BoundResult:
    """Synthesise π̄ on the private model (Algorithm 1 steps 3–4) and bound its cost of privacy.

    Parameters
    ----------
    private : MDP
        The privatised model M̄ (its P is P̄).
    k : float
        The Dirichlet concentration that produced P̄ (sets α with β).
    beta : float
        β ∈ (0, 1): tail probability and mixing weight of P̂_{α,β}.
    alpha_mode : {"paper", "rigorous"}
        Which radius α (see :func:`alpha_radius`).
    method : {"greedy", "lp"}
        The exact closed form (default) or the papers' LP solved with HiGHS.
    plan : PolicyResult, optional
        A policy already synthesised on ``private`` (skips synthesis).

    Examples
    --------
    >>> import numpy as np
    >>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), R=np.zeros((2, 1)),
    ...         R_T=np.array([0.0, 1.0]), horizon=1)
    >>> b = cost_of_privacy(m, k=24, beta=math.exp(-2))
    >>> [round(float(x), 7) for x in (b.v_lower[0, 0], b.v_private[0, 0], b.v_upper[0, 0])]
    [0.2593994, 0.5, 0.7406006]
    """
    t0 = time.perf_counter()
    alpha = alpha_radius(k, beta, mode=alpha_mode, n=private.n_states)
    plan = plan if plan is not None else synthesize(private)
    lo, hi, status, it = robust_bounds(private, plan.policy, alpha=alpha, beta=beta,
                                       method=method, progress=progress)
    return BoundResult(policy=plan.policy, v_private=plan.values, v_lower=lo, v_upper=hi,
                       alpha=alpha, beta=beta, alpha_mode=alpha_mode, method=method,
                       initial_state=private.initial_state, status=status, n_iter=it,
                       elapsed_s=time.perf_counter() - t0)
