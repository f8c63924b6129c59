"""Cost of privacy: pessimistic/optimistic value functions over the robust set P̂_{α,β}.

Size: one computation at three scales: the inner problem (closed form and LP), the radius and
centre shift, and the dense, sparse and stochastic recursions of Theorems 1 and 2.

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

Centre shift. Lemma 2.2 concentrates P̄ = Dir_k(c) around the row c the noise
is *centred on*. The public pre-processing of :func:`core.mdp.privatize.mechanism_rows`
moves that centre away from the true row P: the domain rule ``"mix"`` and
``zeros="smoothing"`` both give c = T(P) = κ·P + (1 − κ)·u, with u the uniform
distribution on the row's support after pre-processing (n entries, P's support included)
and κ the public ``contraction`` of the row (1 − n·η for ``mix``, times 1 − λ for a
smoothed row). Hence, entry by entry, T(P) − P = (1 − κ)(u − P) and, because
0 <= P_j <= 1 on the support and both vanish off it,

    ‖T(P) − P‖_∞ = (1 − κ)·max_j |1/n − P_j| <= (1 − κ)·max(1/n, 1 − 1/n)
                 = (1 − κ)(1 − 1/n)           (n >= 2; 0 when n = 1, where κ = 1),

which depends on P only through the public support size n (:func:`centre_shift_bound`; for
``mix`` alone it is (n − 1)·η). The bound is the supremum (P tending to a vertex of its
support). Under smoothing, whether a row had a zero is not visible in P̄, so every
full-support row is taken as smoothed (:func:`centre_shift`, :func:`release_centre_shift`).
So ‖P − P̄‖_∞ <= ‖T(P) − P̄‖_∞ + ‖T(P) − P‖_∞: whenever Lemma 2.2 puts T(P)
within α of P̄, the true P lies within α + shift, and :func:`cost_of_privacy` takes the
per-row radius α + shift(s, a) (``centre_shift``) so that the sandwich v̲ <= V <= v̄ keeps
the probability Lemma 2.2 gives it. ``alpha`` in the results stays the radius of Lemma
2.2; ``alpha_shift`` is the largest inflation (0 when nothing moved the centre).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.results import Status
from core.common.validation import check_beta, check_k
from core.mdp import robust_kernels
from core.mdp.model import MDP
from core.mdp.privatize import row_etas
from core.mdp.robust_sparse import policy_extremes
from core.mdp.sparse import adopt
from core.mdp.synthesis import PolicyResult, check_sweeps, evaluate_policy, sweep_cap, synthesize

if TYPE_CHECKING:  # pragma: no cover
    from core.mdp.privatize import MechanismRows

__all__ = ["ALPHA_MODES", "METHODS", "BoundResult", "ValueBounds", "alpha_radius",
           "inner_extremes", "inner_lp", "cost_of_privacy", "robust_bounds",
           "robust_bounds_stochastic", "centre_shift_bound", "centre_shift",
           "release_centre_shift", "alpha_shift_note"]

ALPHA_MODES = ("paper", "rigorous")
#: The largest model the LP cross-check (``method="lp"``) accepts when the model is sparse.
LP_MAX_STATES = 2000
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
METHODS = ("greedy", "lp")


def alpha_radius(k: float, beta: float, *, mode: str = "paper", n: int | None = None) -> float:
    """The L∞ radius α of P̂_{α,β}.

    ``"paper"``: α = √(log(1/β) / (2(k+1))), Lemma 2.2 as published (reproduces the
    paper; the lemma can fail, spec §3). ``"rigorous"``: α = √(log(2n/β) / (2(k+1))), from
    sub-Gaussian tails and a union bound over the n coordinates.

    Parameters
    ----------
    k : float
        The concentration.
    beta : float
        β in (0, 1).
    mode : str
        ``"paper"`` or ``"rigorous"``.
    n : int, optional
        The vector length (``rigorous`` needs it).

    Returns
    -------
    float

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


def centre_shift_bound(support: "np.ndarray | Sequence[int]",
                       contraction: "np.ndarray | Sequence[float]") -> np.ndarray:
    """Public bound of ‖T(P) − P‖_∞ per row: (1 − κ)(1 − 1/n) if n >= 2, else 0.

    ``support`` is n (the row's support size after the public pre-processing) and
    ``contraction`` κ (T(P) = κ·P + (1 − κ)·u_support); see the module docstring for the
    derivation. Neither depends on P beyond its support.

    Parameters
    ----------
    support : array_like of int
        Support sizes n.
    contraction : array_like of float
        κ per row.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> centre_shift_bound([3, 1, 2], [1 - 3 * 0.02, 1.0, 1.0]).round(12).tolist()
    [0.04, 0.0, 0.0]
    """
    n = np.asarray(support, dtype=np.float64)
    w = np.clip(1.0 - np.asarray(contraction, dtype=np.float64), 0.0, 1.0)
    return np.where(n >= 2, w * (1.0 - 1.0 / np.maximum(n, 1.0)), 0.0)


def _public_shift(support: np.ndarray, index: np.ndarray, shape: tuple[int, ...], *,
                  eta: "float | str", domain_rule: str, zeros: str, smoothing: float
                  ) -> np.ndarray:
    """(S, A) shift bounds from the rows' supports n (after pre-processing) and the public
    rules. ``mix``: factor 1 − n·η of κ on rows with n >= 2. Smoothing: whether a row had
    a zero is not visible in P̄ (a smoothed row has full support, like a row that had no
    zero), so every full-support row is taken as smoothed (factor 1 − λ), which can only
    enlarge the bound; the result depends on nothing P̄ does not show."""
    n = np.asarray(support, dtype=np.int64)
    kappa = np.ones(n.shape, dtype=np.float64)
    if zeros == "smoothing" and smoothing > 0:
        kappa = np.where(n == shape[0], 1.0 - float(smoothing), kappa)
    if domain_rule == "mix":
        kappa = kappa * np.where(n >= 2, 1.0 - n * row_etas(eta, n), 1.0)
    out = np.zeros(shape, dtype=np.float64)
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 2)
    out[idx[:, 0], idx[:, 1]] = centre_shift_bound(n, kappa)
    out.setflags(write=False)  # results keep it without a copy
    return out


def centre_shift(prepared: "MechanismRows", shape: tuple[int, int]) -> np.ndarray:
    """The public (S, A) shift bound of the rows ``prepared`` describes.

    ``prepared`` is :func:`core.mdp.privatize.mechanism_rows` of the true model (the
    rows the noise was centred on) and ``shape`` is (S, A); unavailable (s, a) get 0. Per
    row this is :func:`centre_shift_bound` of (n, κ) with κ ``prepared.contraction``, except
    that under ``zeros="smoothing"`` every full-support row counts as smoothed (whether it
    had a zero is not public): equal to :func:`release_centre_shift` of every P̄ drawn
    around ``prepared``, and >= the row's own bound.

    Parameters
    ----------
    prepared : MechanismRows
        The pre-processed rows of the true model.
    shape : (int, int)
        (S, A).

    Returns
    -------
    numpy.ndarray
        (S, A) bounds.
    """
    return _public_shift(prepared.support, prepared.index, tuple(shape), eta=prepared.eta,
                         domain_rule=prepared.domain_rule, zeros=prepared.zeros,
                         smoothing=prepared.smoothing)


def release_centre_shift(private: MDP, *, eta: "float | str", domain_rule: str,
                         zeros: str = "support",
                         smoothing: float = 0.0) -> np.ndarray:
    """The (S, A) shift bound for a *released* model P̄, from its supports and public rules.

    The noise keeps every support entry positive and every zero zero, so P̄'s supports are
    those of the pre-processed rows; see :func:`centre_shift` for the rules.

    Parameters
    ----------
    private : MDP
        The released model P̄.
    eta : float
        η of the privatisation.
    domain_rule : str
        Its domain rule.
    zeros : str
        Its zero handling.
    smoothing : float
        Its smoothing weight.

    Returns
    -------
    numpy.ndarray
        (S, A) bounds.
    """
    n = private.transitions.support_sizes()[private.mask]
    return _public_shift(n, np.argwhere(private.mask), (private.n_states, private.n_actions),
                         eta=eta,
                         domain_rule=domain_rule, zeros=zeros, smoothing=smoothing)


def alpha_shift_note(shift: float) -> str:
    """One sentence for results: why α was inflated, or "" when it was not.

    Parameters
    ----------
    shift : float
        The largest shift added to α.

    Returns
    -------
    str
    """
    if not shift > 0:
        return ""
    return (f"alpha inflated by up to {shift:.6g} per row (alpha_shift): the noise is centred "
            "on the pre-processed row T(P) = κ·P + (1 − κ)·u (domain rule 'mix' and/or "
            "smoothing), not on the true P, and ‖T(P) − P‖_∞ <= (1 − κ)(1 − 1/n), a public "
            "bound from the row's support size n; with radius alpha + shift the true P is in "
            "the robust set whenever Lemma 2.2 puts T(P) within alpha of P̄")


def inner_extremes(rows: np.ndarray, v: np.ndarray, *, alpha: float, beta: float,
                   order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``min`` and ``max`` of ``pᵀv`` over P̂_{α,β} around each row of ``rows``.

    ``rows`` is (m, n) (each a probability vector), ``v`` is (n,). Cost O(n log n + m·n).
    ``order`` may pass ``argsort(v)`` when the caller already has it.

    Parameters
    ----------
    rows : numpy.ndarray
        (m, n) probability vectors (the centres).
    v : numpy.ndarray
        (n,) values.
    alpha : float
        The L∞ radius.
    beta : float
        β of the mixture.
    order : numpy.ndarray, optional
        ``argsort(v)``.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per row.
    """
    rows = np.asarray(rows, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    o = np.argsort(v, kind="stable") if order is None else order
    return _extremes(rows, v, v, alpha, beta, o, o[::-1])


# Rows are processed in blocks so that the (block, n) temporaries stay in cache (1 MB):
# at n = 1000 a whole-matrix pass allocates 8 MB per temporary and runs ~5x slower, and
# blocks of 256 kB spend more time in per-block calls than in the arithmetic (a 2000-state
# stage: 14 ms with 256 kB blocks, 9 ms with 1 MB; measured on 2 cores).
_BLOCK_ELEMS = 1 << 17


def fill_width(alpha: "float | np.ndarray", n: int) -> int:
    """How many entries, in the greedy's order, can receive mass: ⌈1/min(α, 1)⌉ + 2 (≤ n).

    Every entry's room is c_j = min(P̄_j + α, 1) − max(P̄_j − α, 0) >= min(α, 1) (if
    P̄_j <= 1 − α the upper end is P̄_j + α and the lower end at most P̄_j; otherwise the
    upper end is 1 and 1 − max(P̄_j − α, 0) >= min(1, α)). The mass to place is
    r = 1 − Σ l <= 1, so after the first ⌈1/min(α, 1)⌉ entries of the order it is used up
    and every later fill clip(r − Σ_{i<j} c_i, 0, c_j) is exactly 0; two more entries
    absorb rounding. With α = 0 every entry may be needed.

    Parameters
    ----------
    alpha : float or numpy.ndarray
        The radius, or one per row (the smallest counts).
    n : int
        Entries per row.

    Returns
    -------
    int
        The number of leading entries of the order the greedy has to visit.
    """
    a = float(np.min(alpha)) if isinstance(alpha, np.ndarray) else float(alpha)
    if not a * n > 1.0:  # (also α = 0 and denormal α, where 1/α overflows)
        return n
    return min(n, math.ceil(1.0 / min(a, 1.0)) + 2)


def _extremes(rows: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray,
              alpha: "float | np.ndarray", beta: float,
              asc_lo: np.ndarray, desc_hi: np.ndarray, actions: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """min over P̂ of pᵀv_lo and max over P̂ of pᵀv_hi, row by row (spec §6.5).

    The L∞ box around each row is l = max(P̄ − α, 0), u = min(P̄ + α, 1); the knapsack
    starts from l and fills the remaining mass r = 1 − Σl greedily along ``asc_lo`` (for
    the min) or ``desc_hi`` (for the max): fill_j = clip(r − (cumsum(c) − c), 0, c) with
    c = (u − l) in that order. Only the first :func:`fill_width` entries of each order can
    receive mass, so the sorted work is (rows × width), not (rows × n); the rest of a row
    is read once (for l). ``alpha`` is one radius or one per row (shape (m,)).

    ``rows`` is (m, n), or with ``actions`` the (S, A, n) transitions, row i being
    ``rows[i, actions[i]]`` (gathered a block at a time: no (S, n) copy is made).
    """
    m = rows.shape[0] if actions is None else actions.shape[0]
    n = rows.shape[-1]
    lo = np.empty(m)
    hi = np.empty(m)
    width = fill_width(alpha, n)
    # both orders side by side: one (rows, 2, width) pass does the min and the max
    both = np.concatenate([asc_lo[:width], desc_hi[:width]])
    v_sorted = np.stack([v_lo[asc_lo[:width]], v_hi[desc_hi[:width]]])
    same_v = v_lo is v_hi or np.array_equal(v_lo, v_hi)
    step = max(1, _BLOCK_ELEMS // max(n, 1))
    for start in range(0, m, step):
        stop = min(m, start + step)
        a = alpha[start:stop, None] if isinstance(alpha, np.ndarray) else alpha
        if actions is None:
            block = rows[start:stop]
            lower = block - a
        else:  # a gathered copy: l is made in place
            block = lower = rows[np.arange(start, stop), actions[start:stop]]
        sel = block[:, both]  # before l overwrites the copy
        if actions is not None:
            np.subtract(block, a, out=lower)
        np.maximum(lower, 0.0, out=lower)
        rest = 1.0 - lower.sum(axis=1)
        np.maximum(rest, 0.0, out=rest)
        base_lo = lower @ v_lo
        base_hi = base_lo if same_v else lower @ v_hi
        a3 = a[:, :, None] if isinstance(a, np.ndarray) else a
        sel = sel.reshape(stop - start, 2, width)
        c = np.add(sel, a3)
        np.minimum(c, 1.0, out=c)
        np.subtract(sel, a3, out=sel)
        np.maximum(sel, 0.0, out=sel)
        c -= sel
        fill = np.cumsum(c, axis=2)
        fill -= c
        np.subtract(rest[:, None, None], fill, out=fill)
        np.maximum(fill, 0.0, out=fill)
        np.minimum(fill, c, out=fill)
        placed = np.einsum("rkw,kw->rk", fill, v_sorted)  # the greedy's part of each bound
        lo[start:stop] = base_lo + placed[:, 0]
        hi[start:stop] = base_hi + placed[:, 1]
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

    Parameters
    ----------
    row : numpy.ndarray
        The centre P̄(s, a).
    v : numpy.ndarray
        Values.
    alpha : float
        The L∞ radius.
    beta : float
        β.
    sense : str
        ``"min"`` or ``"max"``.

    Returns
    -------
    float
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
    from scipy.optimize import linprog  # ~0.5 s to import: only the LP path pays for it

    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None),
                  method="highs", options=_HIGHS_OPTIONS)
    if res.status != 0:  # pragma: no cover - the LP is always feasible (P̄ is a solution)
        raise RuntimeError(f"HiGHS failed on the inner LP: {res.message}")
    return float(sign * res.fun)


def _inner(rows: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray, alpha: "float | np.ndarray",
           beta: float, method: str, actions: np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """min/max per row; ``rows`` is (m, n), or (S, A, n) with ``actions`` (one per state)."""
    if method == "greedy":
        return _extremes(rows, v_lo, v_hi, alpha, beta, np.argsort(v_lo, kind="stable"),
                         np.argsort(v_hi, kind="stable")[::-1], actions)
    if actions is not None:
        rows = rows[np.arange(len(actions)), actions]
    radii = alpha if isinstance(alpha, np.ndarray) else np.full(len(rows), alpha)
    lo = np.array([inner_lp(r, v_lo, alpha=float(a), beta=beta, sense="min")
                   for r, a in zip(rows, radii)])
    hi = np.array([inner_lp(r, v_hi, alpha=float(a), beta=beta, sense="max")
                   for r, a in zip(rows, radii)])
    return lo, hi


@dataclass(frozen=True, eq=False)
class ValueBounds:
    """v̲ and v̄ of one policy on the private model (what :func:`robust_bounds` returns).

    Finite horizon: (T+1, S) arrays, stage 0 first; infinite horizon: (S,) arrays.
    ``status`` and ``n_iter`` say whether the value iteration met its tolerance (a finite
    horizon is exact: ``n_iter`` = T).
    """

    v_lower: np.ndarray
    v_upper: np.ndarray
    status: Status
    n_iter: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "v_lower", adopt(self.v_lower))
        object.__setattr__(self, "v_upper", adopt(self.v_upper))


@dataclass(frozen=True)
class BoundResult:
    """π̄, its value V̄ on the private model and the robust bounds v̲ ≤ V̄ ≤ v̄.

    Finite horizon: arrays are (T+1, S) (stage 0 first; last row is R_T) and ``policy``
    is (T, S). Infinite horizon: arrays are (S,) and ``policy`` is (S,).

    ``alpha`` is the radius of Lemma 2.2; the row (s, a) was bounded with radius
    ``alpha + alpha_shifts[s, a]`` (module docstring: the centre shift). ``alpha_shift`` is
    the largest of those inflations, 0 when the noise was centred on the true rows.

    A stochastic π̄ (a given table or the softmax synthesis) is kept in ``policy_probs``
    ((T, S, A) or (S, A)); ``policy`` is then its most likely action per state.
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
    alpha_shifts: np.ndarray | None = None  # (S, A) inflation per row; None: none
    policy_probs: np.ndarray | None = None  # π(a|s) when a table or softmax was bounded
    temperature: float | None = None  # τ of a softmax π̄

    def __post_init__(self) -> None:
        # read-only arrays handed over by the solvers are kept, anything else is copied
        object.__setattr__(self, "policy", adopt(self.policy, np.int64))
        for name in ("v_private", "v_lower", "v_upper"):
            object.__setattr__(self, name, adopt(getattr(self, name)))
        for name in ("alpha_shifts", "policy_probs"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, adopt(getattr(self, name)))

    @property
    def stochastic(self) -> bool:
        """Whether π̄ gives positive probability to more than one action somewhere."""
        p = self.policy_probs
        return p is not None and bool(((p > 0).sum(axis=-1) > 1).any())

    @property
    def alpha_shift(self) -> float:
        """The largest inflation of α over the rows (0.0 when there was none)."""
        s = self.alpha_shifts
        return float(s.max()) if s is not None and s.size else 0.0

    @property
    def alpha_shift_note(self) -> str:
        """Why α was inflated ("" when it was not)."""
        return alpha_shift_note(self.alpha_shift)

    def at_start(self, arr: np.ndarray) -> np.ndarray:
        """Stage-0 values (finite) or the stationary values (infinite)."""
        return arr[0] if arr.ndim == 2 else arr

    @property
    def cost_bound(self) -> float:
        """v̄(s₀) − v̲(s₀): the computable bound on the cost of privacy."""
        s0 = self.initial_state
        return float(self.at_start(self.v_upper)[s0] - self.at_start(self.v_lower)[s0])


def _radius_of(private: MDP, alpha: "float | np.ndarray"
               ) -> "Callable[[np.ndarray], float | np.ndarray]":
    """Check ``alpha`` (one radius, or (S, A) per row) and return a function from one action
    per state to the radii of those rows."""
    S = private.n_states
    shape = (S, private.n_actions)
    idx = np.arange(S)
    if isinstance(alpha, np.ndarray) and alpha.ndim > 0:
        per = np.asarray(alpha, dtype=np.float64)
        if per.shape != shape:
            raise InputError(f"per-row radii must have shape {shape}, got "
                             f"{per.shape}", field="alpha")
        if not (np.isfinite(per).all() and (per >= 0).all()):
            raise InputError("per-row radii must be finite and >= 0", field="alpha")
        return lambda a: per[idx, a]
    one = float(alpha)
    if not (math.isfinite(one) and one >= 0):
        raise InputError(f"must be finite and >= 0, got {alpha!r}", field="alpha")
    return lambda a: one


def robust_bounds(private: MDP, policy: np.ndarray, *, alpha: "float | np.ndarray", beta: float,
                  method: str = "greedy", tol: float = 1e-10, max_iter: int | None = None,
                  progress: Progress = no_progress) -> ValueBounds:
    """v̲ and v̄ of a deterministic ``policy`` on the private model (Theorems 1 and 2).

    ``alpha`` is one radius for every row, or an (S, A) array of per-row radii (e.g. α plus
    the centre shift of each row, :func:`centre_shift`).

    Parameters
    ----------
    private : MDP
        The private model P̄.
    policy : numpy.ndarray
        Actions, (T, S) for a finite horizon or (S,) for an infinite one.
    alpha : float or numpy.ndarray
        The radius (one, or per (s, a)).
    beta : float
        β.
    method : str
        ``"greedy"`` (exact closed form) or ``"lp"`` (HiGHS).
    tol : float
        Stopping tolerance of the infinite-horizon iteration.
    max_iter : int, optional
        Its iteration limit.
    progress : callable
        Called per stage or iteration (may cancel).

    Returns
    -------
    ValueBounds
        v̲ and v̄ per state (and stage), with the solver's status.
    """
    if method not in METHODS:
        raise InputError(f"must be one of {METHODS}, got {method!r}", field="method")
    beta = check_beta(beta)
    S = private.n_states
    radius = _radius_of(private, alpha)
    idx = np.arange(S)
    g = private.discount
    policy = np.asarray(policy, dtype=np.int64)

    if not private.is_dense:
        return _robust_bounds_sparse(private, policy, radius, beta, method, tol, max_iter,
                                     progress)
    if private.horizon is not None:
        T = private.horizon
        _check_bound_sweeps(private)
        lo = np.empty((T + 1, S))
        hi = np.empty((T + 1, S))
        lo[T] = hi[T] = private.R_T
        for t in range(T - 1, -1, -1):
            a = policy[t]
            m_lo, m_hi = _inner(private.P, lo[t + 1], hi[t + 1], radius(a), beta, method,
                                actions=a)
            lo[t] = private.R[idx, a] + g * m_lo
            hi[t] = private.R[idx, a] + g * m_hi
            progress((T - t) / T, f"stage {t}")
        return ValueBounds(lo, hi, Status.SUCCESS, T)
    rows = private.P[idx, policy]
    radii = radius(policy)
    r = private.R[idx, policy]

    def step(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m_lo, m_hi = _inner(rows, lo, hi, radii, beta, method)
        return r + g * m_lo, r + g * m_hi

    return _iterate_discounted(private, step, evaluate_policy(private, policy),
                               float(np.abs(r).max(initial=0.0)), tol, max_iter, progress)


def robust_bounds_stochastic(private: MDP, table: np.ndarray, *, alpha: "float | np.ndarray",
                             beta: float, method: str = "greedy", tol: float = 1e-10,
                             max_iter: int | None = None, progress: Progress = no_progress
                             ) -> ValueBounds:
    """v̲ and v̄ of a stochastic policy π on the private model (Theorems 2.4 and 2.6).

    The recursions average the row bounds over the policy's actions,

        v̲_t(s) = Σ_a π_t(a|s) ( r(s, a) + γ min_{p ∈ P̂(s,a)} pᵀ v̲_{t+1} ),

    and v̄ with the max (for an infinite horizon, the fixed points of these γ-contractions,
    iterated from V̄^π). A one-hot table is a deterministic policy: it is bounded by
    :func:`robust_bounds` on its actions, so it gives exactly the deterministic bounds.

    Parameters
    ----------
    private : MDP
        The private model P̄ (dense or sparse).
    table : numpy.ndarray
        π(a|s), checked by :func:`core.mdp.stochastic.check_policy_table`.
    alpha : float or numpy.ndarray
        The radius (one, or per (s, a)).
    beta : float
        β.
    method : str
        ``"greedy"`` (exact closed form) or ``"lp"`` (the papers' LP (P), HiGHS, per row).
    tol : float
        Stopping tolerance of the infinite-horizon iteration.
    max_iter : int, optional
        Its iteration limit.
    progress : callable
        Called per stage or iteration (may cancel).

    Returns
    -------
    ValueBounds
    """
    from core.mdp.stochastic import check_policy_table, deterministic_actions, evaluate_stochastic

    if method not in METHODS:
        raise InputError(f"must be one of {METHODS}, got {method!r}", field="method")
    pi = check_policy_table(private, table)
    actions = deterministic_actions(pi)
    if actions is not None:  # one-hot: the deterministic bounds, bit for bit
        return robust_bounds(private, actions, alpha=alpha, beta=beta, method=method, tol=tol,
                             max_iter=max_iter, progress=progress)
    beta = check_beta(beta)
    radius = _radius_of(private, alpha)
    S, A = private.n_states, private.n_actions
    g = private.discount
    _check_bound_sweeps(private, tol, max_iter)  # before any sweep (time limit)
    fallback = np.argmax(private.mask, axis=1)  # an available action of every state
    if method == "lp" and S > LP_MAX_STATES:
        raise InputError(f"the LP cross-check solves one LP with 3·S variables per row and "
                         f"stage; use it on models of at most {LP_MAX_STATES:,} states (this "
                         f"one has {S:,}); 'greedy' is exact", field="method")
    sparse_inner = None if private.is_dense or method == "lp" else _sparse_inner(
        private, radius, beta, method)

    def row(s: int, a: int) -> np.ndarray:
        return private.P[s, a] if private.is_dense else private.transitions.row_dense(s, a)

    def step(p: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        lo = np.zeros(S)
        hi = np.zeros(S)
        for a in range(A):
            w = p[:, a]
            used = np.flatnonzero(w > 0)
            if not used.size:
                continue
            a_vec = np.where(private.mask[:, a], a, fallback)
            if method == "lp":
                rad = radius(a_vec)
                radii = rad if isinstance(rad, np.ndarray) else np.full(S, rad)
                m_lo = np.zeros(S)
                m_hi = np.zeros(S)
                for s in used:
                    r_ = row(int(s), a)
                    m_lo[s] = inner_lp(r_, v_lo, alpha=float(radii[s]), beta=beta, sense="min")
                    m_hi[s] = inner_lp(r_, v_hi, alpha=float(radii[s]), beta=beta, sense="max")
            elif sparse_inner is not None:
                m_lo, m_hi = sparse_inner(a_vec, v_lo, v_hi)
            else:
                m_lo, m_hi = _inner(private.P, v_lo, v_hi, radius(a_vec), beta, "greedy",
                                    actions=a_vec)
            r = private.R[:, a]
            lo[used] += w[used] * (r[used] + g * m_lo[used])
            hi[used] += w[used] * (r[used] + g * m_hi[used])
        return lo, hi

    if private.horizon is not None:
        T = private.horizon
        v_lo = np.empty((T + 1, S))
        v_hi = np.empty((T + 1, S))
        v_lo[T] = v_hi[T] = private.R_T
        for t in range(T - 1, -1, -1):
            v_lo[t], v_hi[t] = step(pi[t], v_lo[t + 1], v_hi[t + 1])
            progress((T - t) / T, f"stage {t}")
        return ValueBounds(v_lo, v_hi, Status.SUCCESS, T)
    r_pi = (pi * private.R).sum(axis=1)
    return _iterate_discounted(private, lambda lo, hi: step(pi, lo, hi),
                               evaluate_stochastic(private, pi),
                               float(np.abs(r_pi).max(initial=0.0)), tol, max_iter, progress)


_Step = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _iterate_discounted(private: MDP, step: _Step, start: np.ndarray, rmax: float, tol: float,
                        max_iter: int | None, progress: Progress) -> ValueBounds:
    """Iterate the discounted interval operator ``step`` from ``start`` (both bounds) until the
    sup-norm change guarantees ``tol`` on the fixed point, or ``max_iter`` sweeps.

    The cap is the number of sweeps a γ-contraction needs from a start within ``rmax/(1−γ)``;
    without ``max_iter`` it is checked against the model's work budget first."""
    g = private.discount
    cap = max_iter if max_iter is not None else sweep_cap(rmax, g, tol)
    if max_iter is None:
        _check_bound_sweeps(private, tol, cap)
    lo = hi = start
    status = Status.MAX_ITER
    it = 0
    for it in range(1, cap + 1):
        new_lo, new_hi = step(lo, hi)
        delta = max(np.max(np.abs(new_lo - lo)), np.max(np.abs(new_hi - hi)))
        lo, hi = new_lo, new_hi
        progress(min(1.0, it / cap), f"iteration {it}")
        if delta < tol * (1.0 - g) / (2.0 * g):
            status = Status.SUCCESS
            break
    return ValueBounds(lo, hi, status, it)


def _sparse_inner(private: MDP, radius: "Callable[[np.ndarray], float | np.ndarray]",
                  beta: float, method: str) -> "Callable[..., tuple[np.ndarray, np.ndarray]]":
    """``inner(a, lo, hi, out=None)``: min over P̂ of the rows P(s, a[s], ·) against ``lo``
    and max against ``hi``, over CSR rows (:mod:`core.mdp.robust_sparse`)."""
    S = private.n_states
    t = private.transitions
    if method == "lp":
        if S > LP_MAX_STATES:
            raise InputError(f"the LP cross-check solves one LP with 3·S variables per row "
                             f"and stage; use it on models of at most {LP_MAX_STATES:,} "
                             f"states (this one has {S:,}); 'greedy' is exact",
                             field="method")

        def inner_lp_rows(a: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                          out: tuple[np.ndarray, np.ndarray] | None = None
                          ) -> tuple[np.ndarray, np.ndarray]:
            rows = np.stack([t.row_dense(s, int(a[s])) for s in range(S)])
            return _inner(rows, lo, hi, radius(a), beta, "lp")
        return inner_lp_rows
    scratch = np.empty((S, 2)) if robust_kernels.AVAILABLE else None

    def inner(a: np.ndarray, lo: np.ndarray, hi: np.ndarray,
              out: tuple[np.ndarray, np.ndarray] | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        rad = radius(a)
        if robust_kernels.AVAILABLE:  # one compiled pass over the rows' entries
            a_min = float(np.min(rad)) if isinstance(rad, np.ndarray) else float(rad)
            return robust_kernels.phat_extremes(
                t.indptr, t.indices, t.data, t.n_actions, a, lo, hi, alpha=rad, beta=beta,
                width=fill_width(min(a_min, 1.0), S), out=out, scratch=scratch)
        return policy_extremes(t.indptr, t.indices, t.data, t.n_actions, a, lo, hi,
                               alpha=rad, beta=beta)
    return inner


def _check_bound_sweeps(private: MDP, tol: float = 1e-10, cap: int | None = None) -> None:
    """Refuse bounds whose sweeps (a stage each, or value iterations to ``tol``) would pass
    the time limit, from the horizon or the discount alone."""
    if private.horizon is not None:
        T = private.horizon
        check_sweeps(T, private, "horizon", f"robust bounds over a horizon of {T:,} stages",
                     "robust")
        return
    g = private.discount
    if cap is None:
        cap = sweep_cap(float(np.abs(private.R[private.mask]).max(initial=0.0)), g, tol)
    check_sweeps(cap, private, "discount", f"robust bounds to {tol:g} at discount {g:.15g} "
                 f"need {cap:.3g} value-iteration sweeps", "robust")


def _robust_bounds_sparse(private: MDP, policy: np.ndarray,
                          radius: "Callable[[np.ndarray], float | np.ndarray]", beta: float,
                          method: str, tol: float, max_iter: int | None,
                          progress: Progress) -> ValueBounds:
    """:func:`robust_bounds` over CSR rows (:mod:`core.mdp.robust_sparse`): per stage, the
    rows of the policy's actions are gathered (O(their entries)) and bounded exactly."""
    S = private.n_states
    idx = np.arange(S)
    g = private.discount
    inner = _sparse_inner(private, radius, beta, method)
    if private.horizon is not None:
        T = private.horizon
        _check_bound_sweeps(private)
        lo = np.empty((T + 1, S))
        hi = np.empty((T + 1, S))
        lo[T] = hi[T] = private.R_T
        for st in range(T - 1, -1, -1):
            a = policy[st]
            m_lo, m_hi = inner(a, lo[st + 1], hi[st + 1], (lo[st], hi[st]))
            r = private.R[idx, a]
            np.multiply(m_lo, g, out=lo[st])
            lo[st] += r
            np.multiply(m_hi, g, out=hi[st])
            hi[st] += r
            progress((T - st) / T, f"stage {st}")
        lo.setflags(write=False)  # handed over to the result (no copy)
        hi.setflags(write=False)
        return ValueBounds(lo, hi, Status.SUCCESS, T)
    r = private.R[idx, policy]

    def step(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m_lo, m_hi = inner(policy, lo, hi)
        return r + g * m_lo, r + g * m_hi

    return _iterate_discounted(private, step, evaluate_policy(private, policy),
                               float(np.abs(r).max(initial=0.0)), tol, max_iter, progress)


def cost_of_privacy(private: MDP, *, k: float, beta: float = 0.05, alpha_mode: str = "paper",
                    method: str = "greedy", plan: PolicyResult | None = None,
                    progress: Progress = no_progress,
                    centre_shift: "float | np.ndarray | None" = None,
                    policy_table: np.ndarray | None = None,
                    temperature: float | None = None) -> BoundResult:
    """Synthesise π̄ on the private model (Algorithm 1 steps 3–4) and bound its cost of privacy.

    By default π̄ is the greedy (deterministic) optimum of the private model. With
    ``temperature`` τ it is the entropy-regularised softmax policy of the private model
    (:func:`core.mdp.stochastic.softmax_policy`); with ``policy_table`` it is that given
    stochastic policy (not synthesised). Both are bounded by
    :func:`robust_bounds_stochastic`; a one-hot table gives the deterministic bounds exactly
    (and, when it is the greedy π̄, exactly what the default gives).

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
    centre_shift : float or (S, A) array, optional
        Public bound of ‖T(P) − P‖_∞ per row when the noise was centred on pre-processed
        rows T(P) (:func:`centre_shift` of the true model's
        :func:`~core.mdp.privatize.mechanism_rows`, or :func:`release_centre_shift`
        of a released model). Each row is bounded with radius α + its shift. ``None`` (or
        0): P̄ was centred on the true rows, α alone (the papers' setting).
    policy_table : numpy.ndarray, optional
        A stochastic policy π(a|s) to bound instead of synthesising one.
    temperature : float, optional
        Synthesise the softmax policy at this τ instead of the greedy one.

    Examples
    --------
    >>> import numpy as np
    >>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.5, 0.5]]]), R=np.zeros((2, 1)),
    ...         R_T=np.array([0.0, 1.0]), horizon=1)
    >>> b = cost_of_privacy(m, k=24, beta=math.exp(-2))
    >>> [round(float(x), 7) for x in (b.v_lower[0, 0], b.v_private[0, 0], b.v_upper[0, 0])]
    [0.2593994, 0.5, 0.7406006]
    """
    from core.mdp.stochastic import (
        check_policy_table,
        deterministic_actions,
        evaluate_stochastic,
        most_likely,
        softmax_policy,
    )

    t0 = time.perf_counter()
    alpha = alpha_radius(k, beta, mode=alpha_mode, n=private.n_states)
    shifts = _shift_array(centre_shift, (private.n_states, private.n_actions))
    radii: float | np.ndarray = alpha if shifts is None else alpha + shifts
    if policy_table is not None and temperature is not None:
        raise InputError("give a policy table or a temperature, not both", field="policy")
    if plan is None:  # the bounds' sweeps are checked before the synthesis's, not after
        _check_bound_sweeps(private)
    table: np.ndarray | None = None
    if temperature is not None:
        soft = softmax_policy(private, temperature, progress=progress)
        table = soft.policy
    elif policy_table is not None:
        table = check_policy_table(private, policy_table)
    if table is None:
        plan = plan if plan is not None else synthesize(private, progress=progress)
        vb = robust_bounds(private, plan.policy, alpha=radii, beta=beta, method=method,
                           progress=progress)
        policy, v_private = plan.policy, plan.values
    else:
        actions = deterministic_actions(table)
        if actions is not None:  # one-hot: the deterministic path, bit for bit
            greedy_plan = synthesize(private, progress=progress)
            v_private = greedy_plan.values if np.array_equal(greedy_plan.policy, actions) \
                else evaluate_policy(private, actions)
            policy = actions
        else:
            v_private = evaluate_stochastic(private, table)
            policy = most_likely(table)
        vb = robust_bounds_stochastic(private, table, alpha=radii, beta=beta, method=method,
                                      progress=progress)
    return BoundResult(policy=policy, v_private=v_private, v_lower=vb.v_lower,
                       v_upper=vb.v_upper, alpha=alpha, beta=beta, alpha_mode=alpha_mode,
                       method=method, initial_state=private.initial_state, status=vb.status,
                       n_iter=vb.n_iter,
                       elapsed_s=time.perf_counter() - t0, alpha_shifts=shifts,
                       policy_probs=table, temperature=temperature)


def _shift_array(shift: "float | np.ndarray | None", shape: tuple[int, ...]
                 ) -> np.ndarray | None:
    """``shift`` as a validated (S, A) array, or None when it is absent or all zero (then
    the bounds are computed exactly as without it)."""
    if shift is None:
        return None
    arr = np.asarray(shift, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(shape, float(arr))
    if arr.shape != tuple(shape):
        raise InputError(f"must be a number or an array of shape {tuple(shape)}, got shape "
                         f"{arr.shape}", field="centre_shift")
    if not (np.isfinite(arr).all() and (arr >= 0).all()):
        raise InputError("must be finite and >= 0", field="centre_shift")
    return arr if (arr > 0).any() else None


def _cost_bounds_many(private: MDP, plan: PolicyResult, *, ks: Sequence[float], beta: float,
                      alpha_mode: str, centre_shifts: Sequence["float | np.ndarray | None"],
                      progress: Progress = no_progress) -> list[float]:
    """``cost_of_privacy(private, k=ks[j], beta=beta, alpha_mode=alpha_mode, plan=plan,
    centre_shift=centre_shifts[j]).cost_bound`` for every j, bit for bit.

    On a large finite-horizon model with the compiled kernels, the J bounds are computed in
    one backward pass (:func:`core.mdp.robust_kernels.phat_extremes_many`: each entry and
    each state's values are read once for all J radii, where J separate passes would read
    the model J times); otherwise one :func:`cost_of_privacy` each.
    """
    fused = (len(ks) > 1 and not private.is_dense and private.horizon is not None
             and robust_kernels.AVAILABLE)
    if not fused:
        return [float(cost_of_privacy(private, k=k, beta=beta, alpha_mode=alpha_mode,
                                      plan=plan, centre_shift=shift).cost_bound)
                for k, shift in zip(ks, centre_shifts)]
    beta = check_beta(beta)
    S, A = private.n_states, private.n_actions
    radii = []
    for k, shift in zip(ks, centre_shifts):  # as cost_of_privacy and robust_bounds
        alpha = alpha_radius(k, beta, mode=alpha_mode, n=S)
        shifts = _shift_array(shift, (S, A))
        radii.append(_radius_of(private, alpha if shifts is None else alpha + shifts))
    _check_bound_sweeps(private)
    t = private.transitions
    T, J, g = int(private.horizon or 0), len(radii), private.discount
    policy = np.asarray(plan.policy, dtype=np.int64)
    idx = np.arange(S)
    nxt_lo = np.empty((J, S))
    nxt_lo[:] = private.R_T
    nxt_hi = nxt_lo.copy()
    lo, hi, rad = np.empty((J, S)), np.empty((J, S)), np.empty((J, S))
    for st in range(T - 1, -1, -1):
        a = policy[st]
        widths = []
        for j, radius in enumerate(radii):
            rad[j] = radius(a)  # one radius (broadcast) or one per state: the same values
            widths.append(fill_width(min(float(np.min(rad[j])), 1.0), S))
        robust_kernels.phat_extremes_many(
            t.indptr, t.indices, t.data, t.n_actions, a, nxt_lo, nxt_hi, alpha=rad,
            beta=beta, widths=widths, out_lo=lo, out_hi=hi)
        r = private.R[idx, a]
        np.multiply(lo, g, out=lo)
        lo += r
        np.multiply(hi, g, out=hi)
        hi += r
        lo, nxt_lo = nxt_lo, lo
        hi, nxt_hi = nxt_hi, hi
        progress((T - st) / T, f"stage {st}")
    s0 = private.initial_state
    return [float(nxt_hi[j, s0] - nxt_lo[j, s0]) for j in range(J)]
