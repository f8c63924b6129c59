"""Per-row kernels of the robust Bellman steps, one pass over the entries: plain loops,
compiled by numba for large models.

:mod:`core.mdp.robust_sparse` computes the same values with numpy: a dozen whole-array
passes per stage, each with its temporaries. That costs ~50 ms per stage on 10⁶ entries;
these loops, compiled, visit every entry of the policy's rows once (~5 ms), which is what
the benchmarks need (``bench/scale.py``: within 2× of the floor; ``bench/storm.py``: against
Storm's compiled interval value iteration). The numpy version stays as the reference the
tests compare with, and is used when numba is missing or ``PRIVPLAN_NO_NUMBA`` is set
(:data:`AVAILABLE` is false).

The loops are plain Python functions; a model of fewer than :data:`COMPILE_FROM` entries
runs them as they are (a few microseconds an entry), a larger one runs their numba
compilation (:func:`core.common.jit.compile_loops`, loaded on the first large model: numba's
import is about twice numpy's, more than a command on a small model spends in the loops).
They use only ``+ - * /``, comparisons and integer conversions, in the same order either
way, so both give the same bits (tested on random models with ``==``).

Both kernels work on the rows ``s·A + actions[s]`` of a model's CSR arrays:

* :func:`phat_extremes`: min/max over P̂_{α,β} (the papers' robust set; off-support
  states take up to min(α, 1) each: the global order of v enters through the ranks of its
  first ``width`` positions, see :mod:`core.mdp.robust_sparse`);
* :func:`interval_extremes`: min/max over interval rows (nothing off the listed entries):
  each row's entries are sorted by value, as Storm does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.common.jit import NUMBA, compile_loops

__all__ = ["AVAILABLE", "COMPILE_FROM", "load_for", "phat_extremes", "phat_extremes_many",
           "interval_extremes"]

#: Whether the kernels are used by the robust bounds (numba is installed and not disabled
#: by ``PRIVPLAN_NO_NUMBA``); found without importing numba.
AVAILABLE: bool = NUMBA
#: Entries (of the model, times the problems of :func:`phat_extremes_many`) from which the
#: compiled loops are used: below, the plain loops take less time than loading numba (at
#: 6–12 µs a visited entry in plain Python on a busy 2-core machine, a policy's rows of a
#: 4,096-entry model over ten stages take at most 0.1–0.5 s; importing numba and loading
#: the cached kernels took 1.4 s there).
COMPILE_FROM = 4096


def _prefetch(arr: np.ndarray, i: "int | np.integer[Any]") -> None:
    """Ask for ``arr[i]`` to be brought into the cache: nothing to do in plain Python; the
    compiled loops use LLVM's prefetch instead (:func:`_compiled`)."""


#: States per chunk of the kernels (each chunk sizes its scratch buffers once).
_CHUNK = 4096
#: :func:`_phat` asks for the values of the row this many states ahead while it works on
#: the current one, so the random reads of several rows are under way at once (at 10⁶
#: states, whose values do not fit the cache, a stage takes about half the time).
_AHEAD = 2


def _position(a: float, rest: float, D: float, lower: int, upper: int,
              width: int) -> int:
    # the position q of the order where the fill at min(alpha, 1) per position stops
    if a > 0.0:
        x = (rest - D) / a  # >= 0: D <= rest for the entries taken whole
        q = int(x) if x < width else width
        if q < lower:
            q = lower
        if q > upper:
            q = upper
    else:
        q = upper
    if q > width:
        q = width
    return q


def _tail(a: float, rest: float, D: float, Dv: float, q: int, vs: np.ndarray, cs: np.ndarray,
          width: int) -> float:
    # the fill's value: a on each of the first q positions, the partial rest at q
    partial = rest - (a * q + D)
    if partial < 0.0:
        partial = 0.0
    at_q = vs[q] if q < width else 0.0
    value: float = a * cs[q] + Dv + partial * at_q
    return value


def _fill(ranks: np.ndarray, caps: np.ndarray, nb: int, a: float, rest: float,
          vs: np.ndarray, cs: np.ndarray, width: int, S: int) -> float:
    # insertion sort of the row's top entries by rank
    for i in range(1, nb):
        rk = ranks[i]
        cp = caps[i]
        j = i - 1
        while j >= 0 and ranks[j] > rk:
            ranks[j + 1] = ranks[j]
            caps[j + 1] = caps[j]
            j -= 1
        ranks[j + 1] = rk
        caps[j + 1] = cp
    D = 0.0
    Dv = 0.0
    lower = 0
    upper = S
    for i in range(nb):
        d = caps[i] - a
        if d < 0.0:
            d = 0.0
        if a * (ranks[i] + 1) + D + d <= rest:
            D += d
            Dv += d * vs[ranks[i]]
            lower = ranks[i] + 1
        else:
            upper = ranks[i]
            break
    q = _position(a, rest, D, lower, upper, width)
    return _tail(a, rest, D, Dv, q, vs, cs, width)


def _phat(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n_actions: int,
          actions: np.ndarray, alpha: np.ndarray, vv: np.ndarray,
          lo_rank: np.ndarray, lo_vs: np.ndarray, lo_cs: np.ndarray, hi_rank: np.ndarray,
          hi_vs: np.ndarray, hi_cs: np.ndarray, width: int, beta: float, vmin: float,
          vmax: float, flags: np.ndarray, t_lo: float, t_hi: float, out_lo: np.ndarray,
          out_hi: np.ndarray) -> None:
    # vv[s] = (v_lo[s], v_hi[s]), 16 bytes per state, so that an entry costs one random
    # memory read (one cache line); flags[s] (one byte: the array stays in the core's own
    # cache): 1 if s is among the first positions of the ascending order of v_lo, + 2 if of
    # v_hi descending; ranks are read for the few flagged entries only. (The former layout,
    # the flag as a third float of a 32-byte record, was half again slower at 10^5 states:
    # twice the bytes per state no longer fit the second-level cache.) One thread: a sweep
    # already runs a process per core, and a parallel loop on a busy machine waits for its
    # slowest thread. A flagged state's v_lo is <= t_lo (the last of the first positions'
    # values) or its −v_hi <= t_hi, so flags[s] is read only for states passing that test on
    # the values already read (a NaN passes): the same flags, one random read less per entry
    # (with the prefetch below, a stage at 10^6 states takes half the time).
    S = vv.shape[0]
    per_row = alpha.size > 1
    flat = vv.reshape(-1)  # (for the prefetch: state c's values start at 2c)
    n_chunks = (S + _CHUNK - 1) // _CHUNK
    for ch in range(n_chunks):
        s0 = ch * _CHUNK
        s1 = min(S, s0 + _CHUNK)
        max_len = 1
        for s in range(s0, s1):
            r = s * n_actions + actions[s]
            n = indptr[r + 1] - indptr[r]
            if n > max_len:
                max_len = n
        r_lo = np.empty(max_len, dtype=np.int64)
        c_lo = np.empty(max_len)
        r_hi = np.empty(max_len, dtype=np.int64)
        c_hi = np.empty(max_len)
        for s in range(s0, s1):
            if s + _AHEAD < S:
                r2 = (s + _AHEAD) * n_actions + actions[s + _AHEAD]
                for e in range(indptr[r2], indptr[r2 + 1]):
                    _prefetch(flat, 2 * np.intp(indices[e]))
            r = s * n_actions + actions[s]
            al = alpha[s] if per_row else alpha[0]
            a = al if al < 1.0 else 1.0
            base_lo = 0.0
            base_hi = 0.0
            sum_low = 0.0
            n_lo = 0
            n_hi = 0
            for e in range(indptr[r], indptr[r + 1]):
                x = data[e]
                c = indices[e]
                low = x - al
                if low < 0.0:
                    low = 0.0
                x_lo = vv[c, 0]
                x_hi = vv[c, 1]
                base_lo += low * x_lo
                base_hi += low * x_hi
                sum_low += low
                f = 0 if x_lo > t_lo and -x_hi > t_hi else flags[c]
                if f:
                    up = x + al
                    if up > 1.0:
                        up = 1.0
                    if f & 1:
                        r_lo[n_lo] = lo_rank[c]
                        c_lo[n_lo] = up - low
                        n_lo += 1
                    if f & 2:
                        r_hi[n_hi] = hi_rank[c]
                        c_hi[n_hi] = up - low
                        n_hi += 1
            rest = 1.0 - sum_low
            if rest < 0.0:
                rest = 0.0
            if n_lo == 0 and n_hi == 0:  # _fill's arithmetic with nb = 0, q found once
                q = _position(a, rest, 0.0, 0, S, width)
                lo = base_lo + _tail(a, rest, 0.0, 0.0, q, lo_vs, lo_cs, width)
                hi = base_hi - _tail(a, rest, 0.0, 0.0, q, hi_vs, hi_cs, width)
            else:
                lo = base_lo + _fill(r_lo, c_lo, n_lo, a, rest, lo_vs, lo_cs, width, S)
                hi = base_hi - _fill(r_hi, c_hi, n_hi, a, rest, hi_vs, hi_cs, width, S)
            out_lo[s] = (1.0 - beta) * lo + beta * vmin
            out_hi[s] = (1.0 - beta) * hi + beta * vmax


def _phat_many(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n_actions: int,
               actions: np.ndarray, alpha: np.ndarray, vv: np.ndarray, flags: np.ndarray,
               lo_rank: np.ndarray, lo_vs: np.ndarray, lo_cs: np.ndarray,
               hi_rank: np.ndarray, hi_vs: np.ndarray, hi_cs: np.ndarray,
               widths: np.ndarray, beta: float, vmin: np.ndarray, vmax: np.ndarray,
               out_lo: np.ndarray, out_hi: np.ndarray) -> None:
    # _phat for J <= 4 problems on the same rows (radii alpha[j], values vv[:, j]; bits
    # 2j and 2j + 1 of flags[s] are problem j's flags): a state's 2·J values lie side by
    # side (one aligned cache line for J = 4), so a model too large for the cache pays one
    # memory read per entry for all J problems (the later problems find the row's lines
    # in the core's cache), not one per problem. Every problem's arithmetic is _phat's,
    # in the same order.
    S = vv.shape[0]
    J = vv.shape[1]
    n_chunks = (S + _CHUNK - 1) // _CHUNK
    for ch in range(n_chunks):
        s0 = ch * _CHUNK
        s1 = min(S, s0 + _CHUNK)
        max_len = 1
        for s in range(s0, s1):
            r = s * n_actions + actions[s]
            n = indptr[r + 1] - indptr[r]
            if n > max_len:
                max_len = n
        r_lo = np.empty(max_len, dtype=np.int64)
        c_lo = np.empty(max_len)
        r_hi = np.empty(max_len, dtype=np.int64)
        c_hi = np.empty(max_len)
        for s in range(s0, s1):
            r = s * n_actions + actions[s]
            for j in range(J):
                al = alpha[j, s]
                a = al if al < 1.0 else 1.0
                base_lo = 0.0
                base_hi = 0.0
                sum_low = 0.0
                n_lo = 0
                n_hi = 0
                for e in range(indptr[r], indptr[r + 1]):
                    x = data[e]
                    c = indices[e]
                    low = x - al
                    if low < 0.0:
                        low = 0.0
                    base_lo += low * vv[c, j, 0]
                    base_hi += low * vv[c, j, 1]
                    sum_low += low
                    f = (flags[c] >> (2 * j)) & 3
                    if f:
                        up = x + al
                        if up > 1.0:
                            up = 1.0
                        if f & 1:
                            r_lo[n_lo] = lo_rank[j, c]
                            c_lo[n_lo] = up - low
                            n_lo += 1
                        if f & 2:
                            r_hi[n_hi] = hi_rank[j, c]
                            c_hi[n_hi] = up - low
                            n_hi += 1
                rest = 1.0 - sum_low
                if rest < 0.0:
                    rest = 0.0
                w = widths[j]
                if n_lo == 0 and n_hi == 0:
                    q = _position(a, rest, 0.0, 0, S, w)
                    lo = base_lo + _tail(a, rest, 0.0, 0.0, q, lo_vs[j], lo_cs[j], w)
                    hi = base_hi - _tail(a, rest, 0.0, 0.0, q, hi_vs[j], hi_cs[j], w)
                else:
                    lo = base_lo + _fill(r_lo, c_lo, n_lo, a, rest, lo_vs[j], lo_cs[j], w, S)
                    hi = base_hi - _fill(r_hi, c_hi, n_hi, a, rest, hi_vs[j], hi_cs[j], w, S)
                out_lo[j, s] = (1.0 - beta) * lo + beta * vmin[j]
                out_hi[j, s] = (1.0 - beta) * hi + beta * vmax[j]


def _greedy(keys: np.ndarray, caps: np.ndarray, n: int, rest: float) -> float:
    """Σ of the greedy fill of ``rest`` along ascending ``keys`` (sorted here, in place)."""
    for i in range(1, n):
        k = keys[i]
        c = caps[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            keys[j + 1] = keys[j]
            caps[j + 1] = caps[j]
            j -= 1
        keys[j + 1] = k
        caps[j + 1] = c
    total = 0.0
    for i in range(n):
        if rest <= 0.0:
            break
        f = caps[i] if caps[i] < rest else rest
        total += f * keys[i]
        rest -= f
    return total


def _interval(indptr: np.ndarray, indices: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              n_actions: int, actions: np.ndarray, vv: np.ndarray,
              out_lo: np.ndarray, out_hi: np.ndarray) -> None:
    S = vv.shape[0]
    n_chunks = (S + _CHUNK - 1) // _CHUNK
    for ch in range(n_chunks):
        s0 = ch * _CHUNK
        s1 = min(S, s0 + _CHUNK)
        max_len = 1
        for s in range(s0, s1):
            r = s * n_actions + actions[s]
            n = indptr[r + 1] - indptr[r]
            if n > max_len:
                max_len = n
        k_lo = np.empty(max_len)
        k_hi = np.empty(max_len)
        c_lo = np.empty(max_len)
        c_hi = np.empty(max_len)
        for s in range(s0, s1):
            r = s * n_actions + actions[s]
            e0 = indptr[r]
            n = indptr[r + 1] - e0
            b_lo = 0.0
            b_hi = 0.0
            rest = 1.0
            for i in range(n):
                e = e0 + i
                c = indices[e]
                lo_e = lower[e]
                x_lo = vv[c, 0]
                x_hi = -vv[c, 1]
                b_lo += lo_e * x_lo
                b_hi += lo_e * x_hi
                rest -= lo_e
                k_lo[i] = x_lo
                k_hi[i] = x_hi
                c_lo[i] = upper[e] - lo_e
                c_hi[i] = c_lo[i]
            if rest < 0.0:
                rest = 0.0
            out_lo[s] = b_lo + _greedy(k_lo, c_lo, n, rest)
            out_hi[s] = -(b_hi + _greedy(k_hi, c_hi, n, rest))


_INLINE = {"cache": True, "nogil": True, "inline": "always"}
_KERNEL = {"cache": True, "nogil": True}
_COMPILED: dict[str, Any] = {}


def _prefetch_intrinsic() -> Any:
    """LLVM's prefetch as a numba intrinsic ``(arr, i) -> None``: asks the processor to
    bring ``arr[i]`` (a 1-d array) into its cache (a read, kept in every cache level); no
    effect on any value."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def typing(typingctx: Any, arr: Any, i: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            ptr = builder.gep(ary.data, [args[1]])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                "llvm.prefetch.p0i8")
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                              ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()
        return types.void(arr, types.intp), codegen

    return intrinsic(typing)


def _loops(entries: int) -> dict[str, Any]:
    """The loops to run on ``entries`` entries: this module's plain functions below
    :data:`COMPILE_FROM`, their numba compilation from there (compiled, or loaded from
    numba's cache, the first time)."""
    if entries < COMPILE_FROM or not AVAILABLE:
        return globals()
    if not _COMPILED:
        _COMPILED.update(compile_loops(
            [(_position, _INLINE), (_tail, _INLINE), (_fill, _INLINE), (_greedy, _INLINE),
             (_phat, _KERNEL), (_phat_many, _KERNEL), (_interval, _KERNEL)],
            replace={"_prefetch": _prefetch_intrinsic()}))
    return _COMPILED


def load_for(entries: int) -> None:
    """Load (or compile) the loops a model of ``entries`` entries runs, now: a run calls
    this before its first progress report, so that numba's import and cache load are not
    between a user's Cancel and the run's next cancel point."""
    _loops(entries)


def _order(v: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank of every state, S beyond ``width``; the first ``width`` sorted values; their
    prefix sums)."""
    S = v.size
    if width >= S:
        order = np.argsort(v, kind="stable")
    else:
        part = np.argpartition(v, width - 1)[:width]
        order = part[np.argsort(v[part], kind="stable")]
    rank = np.full(S, S, dtype=np.int32 if S < 2**31 - 1 else np.int64)
    rank[order] = np.arange(order.size)
    vs = v[order]
    cs = np.zeros(order.size + 1)
    np.cumsum(vs, out=cs[1:])
    return rank, vs, cs


def phat_extremes(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                  n_actions: int, actions: np.ndarray, v_lo: np.ndarray, v_hi: np.ndarray,
                  *, alpha: "float | np.ndarray", beta: float, width: int,
                  out: tuple[np.ndarray, np.ndarray] | None = None,
                  scratch: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """min over P̂_{α,β} of pᵀv_lo and max of pᵀv_hi for the rows s·A + actions[s].

    Parameters
    ----------
    indptr, indices, data : numpy.ndarray
        The model's CSR arrays.
    n_actions : int
        A.
    actions : numpy.ndarray
        (S,) one action per state.
    v_lo, v_hi : numpy.ndarray
        (S,) values.
    alpha : float or numpy.ndarray
        The radius, or one per state.
    beta : float
        β.
    width : int
        Positions of the order that can receive off-support mass (⌈1/min α⌉ + 2, <= S).
    out : (numpy.ndarray, numpy.ndarray), optional
        Where to write the minima and maxima.
    scratch : numpy.ndarray, optional
        An (S, 2) float64 array to reuse for the packed values (a caller that bounds many
        stages allocates it once).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per state.
    """
    S = v_lo.size
    width = int(min(width, S))
    lo_rank, lo_vs, lo_cs = _order(v_lo, width)
    hi_rank, hi_vs, hi_cs = _order(-v_hi, width)
    vv = scratch if scratch is not None and scratch.shape == (S, 2) else np.empty((S, 2))
    vv[:, 0] = v_lo
    vv[:, 1] = v_hi
    flags = np.zeros(S, dtype=np.uint8)
    flags[lo_rank < width] = 1
    flags[hi_rank < width] += 2
    out_lo, out_hi = out if out is not None else (np.empty(S), np.empty(S))
    al = np.ascontiguousarray(np.atleast_1d(np.asarray(alpha, dtype=np.float64)))
    t_lo = float(lo_vs[width - 1]) if width > 0 else math.inf  # (see _phat)
    t_hi = float(hi_vs[width - 1]) if width > 0 else math.inf
    _loops(data.size)["_phat"](
        indptr, indices, data, int(n_actions), np.ascontiguousarray(actions, dtype=np.int64),
        al, vv, lo_rank, lo_vs, lo_cs, hi_rank, hi_vs, hi_cs, width, float(beta),
        float(v_lo.min()), float(v_hi.max()), flags, t_lo, t_hi, out_lo, out_hi)
    return out_lo, out_hi


def phat_extremes_many(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                       n_actions: int, actions: np.ndarray, v_lo: np.ndarray,
                       v_hi: np.ndarray, *, alpha: np.ndarray, beta: float,
                       widths: "list[int]", out_lo: np.ndarray, out_hi: np.ndarray) -> None:
    """:func:`phat_extremes` for J problems on the same rows at once: ``v_lo``, ``v_hi``,
    ``alpha``, ``out_lo`` and ``out_hi`` are (J, S) (problem j has radius ``alpha[j, s]``
    on state s's row and width ``widths[j]``). Problem j's results equal
    ``phat_extremes(…, v_lo[j], v_hi[j], alpha=alpha[j], width=widths[j])`` bit for bit.

    Parameters
    ----------
    indptr, indices, data : numpy.ndarray
        The model's CSR arrays.
    n_actions : int
        A.
    actions : numpy.ndarray
        (S,) one action per state.
    v_lo, v_hi, alpha : numpy.ndarray
        (J, S) values and radii.
    beta : float
        β.
    widths : list of int
        Per problem, as ``width`` of :func:`phat_extremes`.
    out_lo, out_hi : numpy.ndarray
        (J, S): the minima and maxima are written there.
    """
    J, S = v_lo.shape
    acts = np.ascontiguousarray(actions, dtype=np.int64)
    phat_many = _loops(data.size * J)["_phat_many"]
    for g0 in range(0, J, _GROUP):
        g = range(g0, min(J, g0 + _GROUP))
        ws = [int(min(widths[j], S)) for j in g]
        top = max(ws)
        n = len(ws)
        lo_rank = np.empty((n, S), dtype=np.int32 if S < 2**31 - 1 else np.int64)
        hi_rank = np.empty_like(lo_rank)
        lo_vs, hi_vs = np.zeros((n, top)), np.zeros((n, top))
        lo_cs, hi_cs = np.zeros((n, top + 1)), np.zeros((n, top + 1))
        vv = _aligned((S, n, 2))
        flags = np.zeros(S, dtype=np.uint8)
        for i, (j, w) in enumerate(zip(g, ws)):
            lo_rank[i], lo_vs[i, :w], lo_cs[i, :w + 1] = _order(v_lo[j], w)
            hi_rank[i], hi_vs[i, :w], hi_cs[i, :w + 1] = _order(-v_hi[j], w)
            vv[:, i, 0] = v_lo[j]
            vv[:, i, 1] = v_hi[j]
            flags[lo_rank[i] < w] |= np.uint8(1 << (2 * i))
            flags[hi_rank[i] < w] |= np.uint8(2 << (2 * i))
        phat_many(indptr, indices, data, int(n_actions), acts,
                   np.ascontiguousarray(alpha[g0:g0 + n], dtype=np.float64), vv, flags,
                   lo_rank, lo_vs, lo_cs, hi_rank, hi_vs, hi_cs,
                   np.asarray(ws, dtype=np.int64), float(beta), v_lo[g0:g0 + n].min(axis=1),
                   v_hi[g0:g0 + n].max(axis=1), out_lo[g0:g0 + n], out_hi[g0:g0 + n])


#: Problems per pass of :func:`phat_extremes_many` (their flags share one byte per state).
_GROUP = 4


def _aligned(shape: tuple[int, ...]) -> np.ndarray:
    """An empty float64 array whose data starts on a 64-byte boundary (a cache line), so
    that a state's 64 bytes of values are one line, not two."""
    size = int(np.prod(shape))
    buf = np.empty(size + 8)
    skip = (-buf.ctypes.data % 64) // 8
    return buf[skip:skip + size].reshape(shape)

def interval_extremes(indptr: np.ndarray, indices: np.ndarray, lower: np.ndarray,
                      upper: np.ndarray, n_actions: int, actions: np.ndarray,
                      v_lo: np.ndarray, v_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min of qᵀv_lo and max of qᵀv_hi over the interval rows s·A + actions[s]
    (nothing off the listed entries; Σ lower <= 1 <= Σ upper).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The model's CSR structure.
    lower, upper : numpy.ndarray
        (nnz,) interval ends.
    n_actions : int
        A.
    actions : numpy.ndarray
        (S,) one action per state.
    v_lo, v_hi : numpy.ndarray
        (S,) values.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The minima and maxima, one per state.
    """
    S = v_lo.size
    out_lo = np.empty(S)
    out_hi = np.empty(S)
    vv = np.empty((S, 2))
    vv[:, 0] = v_lo
    vv[:, 1] = v_hi
    _loops(lower.size)["_interval"](
        indptr, indices, np.ascontiguousarray(lower, dtype=np.float64),
        np.ascontiguousarray(upper, dtype=np.float64), int(n_actions),
        np.ascontiguousarray(actions, dtype=np.int64), vv, out_lo, out_hi)
    return out_lo, out_hi
