"""The inner problem of the robust bounds on sparse rows, exact, in O(non-zeros).

For one row with centre P̄ (stored entries: its support J) and values v over all S
states, the bounds need (spec §6.5)

    min_{q ∈ L} qᵀv,   L = Δ(S) ∩ {‖q − P̄‖_∞ ≤ α},

a fractional knapsack: start from l = max(P̄ − α, 0), then place the remaining mass
r = 1 − Σl greedily in ascending order of v, entry j taking at most c_j = u_j − l_j with
u = min(P̄ + α, 1). Off the support l_j = 0 and c_j = a := min(α, 1): every one of the S − |J|
other states can take up to a. The greedy over all S entries would cost O(S) per row;
this module computes the same value from the row's own entries and the global order:

Let ``rank`` be the position of each state in the ascending order of v, ``cs`` the prefix
sums of v in that order and, for the row's support entries sorted by rank, d_i = c_i − a
(>= 0) and D_i = d_1 + … + d_i. The capacity filled before position p is
F(p) = a·p + Σ_{support ranks < p} d, increasing in p. With q the last position with
F(q) <= r (found from the breakpoints: the count i* of support entries with
a·(rank_i + 1) + D_i <= r, then q = min(⌊(r − D_{i*})/a⌋, rank_{i*+1})), the greedy fills
positions < q completely and position q with r − F(q), so

    min_{q ∈ L} qᵀv = lᵀv + a·cs[q] + Σ_{i <= i*} d_i·v_i + (r − F(q))·v_(q).

Since F(p) >= a·p, q <= r/a <= 1/a: only the first ⌊1/a⌋ + 2 positions of the order and
the support entries among them matter, so the order is a partial sort
(``numpy.argpartition``) and the per-row work is a pass over the row's entries.

With a = 0 (pure interval rows, :func:`interval_extremes`: the interval MDP of Storm and
PRISM, where a transition outside the listed ones is impossible) F is a step function
and every support entry of a row may matter: the entries are sorted by rank within
their rows instead.

The maximum is the minimum for −v. The β part of P̂_{α,β} (an arbitrary P₁) adds
β·min v (or β·max v) to (1 − β) times the knapsack.

Examples
--------
>>> import numpy as np
>>> ptr, cols, vals = np.array([0, 3]), np.array([0, 1, 2]), np.array([0.5, 0.3, 0.2])
>>> lo, hi = csr_extremes(ptr, cols, vals, np.array([1.0, 2.0, 3.0]),
...                       np.array([1.0, 2.0, 3.0]), alpha=0.1, beta=0.1)
>>> round(float(lo[0]), 12), round(float(hi[0]), 12)
(1.45, 2.01)
"""

from __future__ import annotations

import math

import numpy as np

from core.mdp.sparse import gather_rows, segment_sum

__all__ = ["csr_extremes", "policy_extremes", "interval_extremes", "interval_hull"]

#: Rows handled per block (temporaries of a block stay at tens of MB).
_BLOCK_ROWS = 1 << 17


class _Order:
    """The first ``width`` positions of the ascending order of ``v`` (rank, prefix sums)."""

    def __init__(self, v: np.ndarray, width: int) -> None:
        S = v.size
        self.S = S
        width = min(S, max(1, width))
        if width >= S:
            order = np.argsort(v, kind="stable")
        else:
            part = np.argpartition(v, width - 1)[:width]
            order = part[np.argsort(v[part], kind="stable")]
        self.width = width
        self.v_sorted = v[order]
        self.cs = np.zeros(width + 1)
        np.cumsum(self.v_sorted, out=self.cs[1:])
        self.rank = np.full(S, S, dtype=np.int64)  # S: beyond the first `width` positions
        self.rank[order] = np.arange(width, dtype=np.int64)
        self.top = np.zeros(S, dtype=bool)  # is the state among the first `width`?
        self.top[order] = True


def _matvec(ptr: np.ndarray, cols: np.ndarray, vals: np.ndarray, n_cols: int,
            *vs: np.ndarray) -> list[np.ndarray]:
    """Σ_j vals·v[cols] per row, for each v (scipy's CSR product: one pass in C)."""
    from scipy.sparse import csr_array

    idx = cols if cols.dtype == ptr.dtype else cols.astype(ptr.dtype)
    M = csr_array((vals, idx, ptr), shape=(len(ptr) - 1, n_cols), copy=False)
    return [np.asarray(M @ v) for v in vs]


def _fill_min(ptr: np.ndarray, cols: np.ndarray, cap: np.ndarray, a: np.ndarray,
              rest: np.ndarray, order: _Order) -> np.ndarray:
    """What the greedy adds to lᵀv: a·cs[q] + Σ_{i<=i*} d_i·v_i + (r − F(q))·v_(q) per row
    (module docstring), from the entries whose state is among the first positions."""
    m = len(ptr) - 1
    S = order.S
    top = order.top[cols] if order.width < S else np.ones(cols.size, dtype=bool)
    sel = np.flatnonzero(top)
    rows_s = np.searchsorted(ptr, sel, side="right") - 1
    ranks_s = order.rank[cols[sel]]
    a_s = a[rows_s]
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.where(a_s > 0, np.floor(rest[rows_s] / np.where(a_s > 0, a_s, 1.0)) + 2,
                         S)
    keep = ranks_s < reach
    sel, rows_s, ranks_s, a_s = sel[keep], rows_s[keep], ranks_s[keep], a_s[keep]
    srt = np.lexsort((ranks_s, rows_s))
    sel, rows_s, ranks_s, a_s = sel[srt], rows_s[srt], ranks_s[srt], a_s[srt]
    d = cap[sel] - a_s
    np.maximum(d, 0.0, out=d)
    cnt = np.bincount(rows_s, minlength=m)
    sptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(cnt, out=sptr[1:])
    # per-row running sums D_i and Σ d·v over the selected entries, in rank order
    D = np.cumsum(d)
    Dv = np.cumsum(d * order.v_sorted[ranks_s])
    first = sptr[:-1]
    D0 = np.concatenate([[0.0], D])[first]
    Dv0 = np.concatenate([[0.0], Dv])[first]
    D -= np.repeat(D0, cnt)
    Dv -= np.repeat(Dv0, cnt)
    fits = a_s * (ranks_s + 1) + D <= rest[rows_s]
    istar = np.bincount(rows_s[fits], minlength=m)  # fits is a prefix of each row's list
    has_prev = istar > 0
    prev = np.where(has_prev, first + istar - 1, 0)
    if D.size:
        D_star = np.where(has_prev, D[prev], 0.0)
        Dv_star = np.where(has_prev, Dv[prev], 0.0)
        lower = np.where(has_prev, ranks_s[prev] + 1, 0)
        has_next = istar < cnt
        upper = np.where(has_next, ranks_s[np.where(has_next, first + istar, 0)], S)
    else:
        D_star = Dv_star = np.zeros(m)
        lower = np.zeros(m, dtype=np.int64)
        upper = np.full(m, S, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(a > 0, np.floor((rest - D_star) / np.where(a > 0, a, 1.0)), upper)
    q = np.clip(q, lower, upper).astype(np.int64)
    np.minimum(q, order.width, out=q)  # q <= 1/a < width where a > 0 (module docstring)
    partial = rest - (a * q + D_star)
    np.maximum(partial, 0.0, out=partial)
    at_q = np.where(q < order.width, order.v_sorted[np.minimum(q, order.width - 1)], 0.0)
    result: np.ndarray = a * order.cs[q] + Dv_star + partial * at_q
    return result


def _width(a_min: float, S: int) -> int:
    if not a_min * S > 1.0:
        return S
    return min(S, math.ceil(1.0 / min(a_min, 1.0)) + 2)


def _block(p: np.ndarray, c: np.ndarray, x: np.ndarray, al: "float | np.ndarray",
           a: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray, lo_order: _Order,
           hi_order: _Order) -> tuple[np.ndarray, np.ndarray]:
    """The knapsack minimum (for v_lo) and maximum (for v_hi) of a block of rows."""
    low = x - al
    np.maximum(low, 0.0, out=low)
    cap = x + al
    np.minimum(cap, 1.0, out=cap)
    cap -= low
    base_lo, base_hi = _matvec(p, c, low, v_lo.size, v_lo, v_hi)
    rest = 1.0 - segment_sum(low, p)
    np.maximum(rest, 0.0, out=rest)
    base_lo += _fill_min(p, c, cap, a, rest, lo_order)
    base_hi -= _fill_min(p, c, cap, a, rest, hi_order)
    return base_lo, base_hi


def _finish(lo: np.ndarray, hi: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray,
            beta: float) -> tuple[np.ndarray, np.ndarray]:
    lo *= 1.0 - beta
    lo += beta * float(v_lo.min())
    hi *= 1.0 - beta
    hi += beta * float(v_hi.max())
    return lo, hi


def csr_extremes(ptr: np.ndarray, cols: np.ndarray, vals: np.ndarray, v_lo: np.ndarray,
                 v_hi: np.ndarray, *, alpha: "float | np.ndarray", beta: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """min over P̂_{α,β} of pᵀv_lo and max of pᵀv_hi for every CSR row (module docstring).

    Parameters
    ----------
    ptr, cols, vals : numpy.ndarray
        CSR rows (the centres P̄; stored entries are the supports).
    v_lo, v_hi : numpy.ndarray
        (S,) values for the minimum and the maximum.
    alpha : float or numpy.ndarray
        The radius, or one per row.
    beta : float
        β.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per row.
    """
    m = len(ptr) - 1
    S = v_lo.size
    per_row = np.ndim(alpha) > 0
    alpha_r = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (m,))
    a = np.minimum(alpha_r, 1.0)
    width = _width(float(a.min(initial=1.0)), S)
    lo_order, hi_order = _Order(v_lo, width), _Order(-v_hi, width)
    lo = np.empty(m)
    hi = np.empty(m)
    for r0 in range(0, m, _BLOCK_ROWS):
        r1 = min(m, r0 + _BLOCK_ROWS)
        e0, e1 = int(ptr[r0]), int(ptr[r1])
        p = ptr[r0:r1 + 1] - e0
        al: "float | np.ndarray" = np.repeat(alpha_r[r0:r1], np.diff(p)) if per_row \
            else float(alpha_r[0])
        lo[r0:r1], hi[r0:r1] = _block(p, cols[e0:e1], vals[e0:e1].copy(), al, a[r0:r1],
                                      v_lo, v_hi, lo_order, hi_order)
    return _finish(lo, hi, v_lo, v_hi, beta)


def policy_extremes(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                    n_actions: int, actions: np.ndarray, v_lo: np.ndarray,
                    v_hi: np.ndarray, *, alpha: "float | np.ndarray", beta: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`csr_extremes` of the rows P̄(s, actions[s], ·) of a model's CSR arrays.

    The rows are gathered a block of states at a time, so every temporary stays small
    (the allocator reuses it; no array of the size of the model is made per stage).

    Parameters
    ----------
    indptr, indices, data : numpy.ndarray
        The model's CSR arrays (rows s·A + a).
    n_actions : int
        A.
    actions : numpy.ndarray
        (S,) the policy's action per state.
    v_lo, v_hi : numpy.ndarray
        (S,) values.
    alpha : float or numpy.ndarray
        The radius, or one per state (the radius of its chosen row).
    beta : float
        β.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per state.
    """
    S = v_lo.size
    per_row = np.ndim(alpha) > 0
    alpha_r = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (S,))
    a = np.minimum(alpha_r, 1.0)
    width = _width(float(a.min(initial=1.0)), S)
    lo_order, hi_order = _Order(v_lo, width), _Order(-v_hi, width)
    lo = np.empty(S)
    hi = np.empty(S)
    rows_all = np.arange(S, dtype=np.int64) * n_actions
    rows_all += actions
    for s0 in range(0, S, _POLICY_BLOCK):
        s1 = min(S, s0 + _POLICY_BLOCK)
        pos, p = gather_rows(indptr, rows_all[s0:s1])
        al: "float | np.ndarray" = np.repeat(alpha_r[s0:s1], np.diff(p)) if per_row \
            else float(alpha_r[0])
        lo[s0:s1], hi[s0:s1] = _block(p, indices[pos], data[pos], al, a[s0:s1], v_lo, v_hi,
                                      lo_order, hi_order)
    return _finish(lo, hi, v_lo, v_hi, beta)


#: States per block of :func:`policy_extremes` (about a megabyte per temporary at ten
#: successors: the allocator reuses the memory, where per-stage arrays of the model's
#: size cost a page fault per 4 kB on every stage).
_POLICY_BLOCK = 1 << 14


def interval_extremes(ptr: np.ndarray, cols: np.ndarray, lower: np.ndarray,
                      upper: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """min of qᵀv_lo and max of qᵀv_hi over {q ∈ Δ : lower <= q <= upper on the listed
    entries, q = 0 elsewhere} for every CSR row: the Bellman step of an interval MDP (the
    semantics of Storm's and PRISM's interval models, where Σ lower <= 1 <= Σ upper).

    Parameters
    ----------
    ptr, cols : numpy.ndarray
        CSR rows.
    lower, upper : numpy.ndarray
        The interval of every entry.
    v_lo, v_hi : numpy.ndarray
        (S,) values.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per row.

    Examples
    --------
    >>> ptr, cols = np.array([0, 2]), np.array([1, 2])
    >>> v = np.array([0.0, 4.0, 0.0])
    >>> lo, hi = interval_extremes(ptr, cols, np.array([0.4, 0.1]), np.array([0.9, 0.6]),
    ...                            v, v)
    >>> float(lo[0]), float(hi[0])
    (1.6, 3.6)
    """
    m = len(ptr) - 1
    S = v_lo.size
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    lo_order, hi_order = _Order(v_lo, S), _Order(-v_hi, S)
    lo = np.empty(m)
    hi = np.empty(m)
    # blocks of rows: the running sums of a block stay small, so their rounding does too
    for r0 in range(0, m, _POLICY_BLOCK):
        r1 = min(m, r0 + _POLICY_BLOCK)
        e0, e1 = int(ptr[r0]), int(ptr[r1])
        p = ptr[r0:r1 + 1] - e0
        c, low = cols[e0:e1], lower[e0:e1]
        cap = upper[e0:e1] - low
        zero = np.zeros(r1 - r0)
        base_lo, base_hi = _matvec(p, c, low, S, v_lo, v_hi)
        rest = 1.0 - segment_sum(low, p)
        np.maximum(rest, 0.0, out=rest)
        lo[r0:r1] = base_lo + _fill_min(p, c, cap, zero, rest, lo_order)
        hi[r0:r1] = base_hi - _fill_min(p, c, cap, zero, rest, hi_order)
    return lo, hi


def interval_hull(vals: np.ndarray, row_of_entry: np.ndarray, alpha: "float | np.ndarray",
                  beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Per entry, the smallest and largest probability P̂_{α,β} ∩ Δ(support) gives it.

    For an entry with centre P̄_j of a row with n >= 2 support entries: lower
    (1 − β)·max(P̄_j − α, 0) (P₁ elsewhere, P₂ at its lowest) and upper
    β + (1 − β)·min(P̄_j + α, 1) (P₁ = e_j, P₂ at its highest), both attained; a row with
    one next state keeps [1, 1].

    Parameters
    ----------
    vals : numpy.ndarray
        (nnz,) centres P̄ of the stored entries.
    row_of_entry : numpy.ndarray
        (nnz,) the row of every entry.
    alpha : float or numpy.ndarray
        The radius, or one per row.
    beta : float
        β.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends, (nnz,) each.
    """
    al = np.asarray(alpha, dtype=np.float64)
    al_e = al[row_of_entry] if al.ndim else al
    low = (1.0 - beta) * np.maximum(vals - al_e, 0.0)
    up = np.minimum(beta + (1.0 - beta) * np.minimum(vals + al_e, 1.0), 1.0)
    single = np.bincount(row_of_entry, minlength=int(row_of_entry.max(initial=-1)) + 1)
    one = single[row_of_entry] == 1
    low[one] = 1.0
    up[one] = 1.0
    return low, up
