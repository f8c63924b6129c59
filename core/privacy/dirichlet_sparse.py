"""The Dirichlet mechanism on sparse rows: noise only on each row's support.

:func:`dirichlet_csr` draws Dir(k·p) for every row of a CSR matrix whose stored entries are
the row's support (the positive entries of p). A row's support is public (zeros stay zero
under the mechanism, so it is disclosed by any release), so the draws are made on the
support only: one gamma variate per stored entry, O(non-zeros) time and memory, where the
dense :func:`core.privacy.dirichlet.dirichlet_rows` draws one per entry of the dense row.

The sampling is that of :func:`core.privacy.dirichlet.dirichlet_rows` (log-space boosting
of the entries with k·p < 1, a floor at a small normal number, two normalisations), so
the distribution of every row is the same; the random stream differs (fewer variates are
drawn), so seeded results of the two functions differ.

Randomness: an int seed or a numpy Generator gives seeded experiment mode; ``None`` gives
release mode with variates from the operating system's CSPRNG.

Examples
--------
>>> import numpy as np
>>> x = dirichlet_csr(np.array([0, 2, 3]), np.array([0.25, 0.75, 1.0]), 10.0, 1)
>>> x.shape, bool(abs(x[:2].sum() - 1) < 1e-12), float(x[2])
((3,), True, 1.0)
"""

from __future__ import annotations

import numpy as np

from core.common.validation import RandomSource, as_random_source

__all__ = ["dirichlet_csr"]

_FLOOR = 1e-300  # as in core.privacy.dirichlet: renormalising keeps every entry normal

#: Entries handled per block (the temporaries stay at a few MB whatever the model).
_BLOCK = 1 << 20


def _row_blocks(indptr: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges [r0, r1) holding about ``_BLOCK`` entries each."""
    m = len(indptr) - 1
    out: list[tuple[int, int]] = []
    r0 = 0
    while r0 < m:
        target = int(indptr[r0]) + _BLOCK
        r1 = int(np.searchsorted(indptr, target, side="right")) - 1
        r1 = min(m, max(r1, r0 + 1))
        out.append((r0, r1))
        r0 = r1
    return out


def _segment_reduce(values: np.ndarray, ptr: np.ndarray, ufunc: np.ufunc,
                    empty: float) -> np.ndarray:
    m = len(ptr) - 1
    out = np.full(m, empty)
    if values.size == 0:
        return out
    # rows that start at the end are empty; reduceat needs starts < len(values)
    k = int(np.searchsorted(ptr[:-1], values.size, side="left"))
    out[:k] = ufunc.reduceat(values, ptr[:k])
    out[:k][ptr[:k] == ptr[1:k + 1]] = empty
    return out


def dirichlet_csr(indptr: np.ndarray, p: np.ndarray, k: float,
                  rng: "np.random.Generator | int | RandomSource | None", *,
                  out: np.ndarray | None = None,
                  affine: tuple[float, float] | None = None) -> np.ndarray:
    """Draw Dir(k·p) for every CSR row; returns the new values of the stored entries.

    Parameters
    ----------
    indptr : numpy.ndarray
        (m + 1,) row starts.
    p : numpy.ndarray
        (nnz,) the rows' positive probabilities (each row sums to 1).
    k : float
        The concentration k > 0.
    rng : Generator, int, RandomSource or None
        A seed or generator: seeded experiment; None: release mode (OS CSPRNG).
    out : numpy.ndarray, optional
        A float64 array of shape (nnz,) for the result.
    affine : (float, float), optional
        (scale, shift): the rows are ``p·scale + shift`` (made a block at a time with
        these two operations, so the draws are those of the rows computed beforehand,
        without an array of their size).

    Returns
    -------
    numpy.ndarray
        (nnz,) one Dir(k·p) draw per row, in the same positions: every entry a normal float
        >= 1e-300, rows summing to 1 (``out`` when given).
    """
    src = as_random_source(rng)
    gen = src.generator
    p = np.asarray(p, dtype=np.float64)
    indptr = np.asarray(indptr, dtype=np.int64)
    nnz = p.size
    if out is None:
        out = np.empty(nnz)
    elif out.shape != (nnz,) or out.dtype != np.float64:
        raise ValueError(f"out must be a float64 array of shape {(nnz,)}")
    def centres(e0: int, e1: int, sel: "np.ndarray | None" = None) -> np.ndarray:
        x = p[e0:e1] if sel is None else p[e0:e1][sel]
        if affine is None:
            return x
        x = x * affine[0]
        x += affine[1]
        return x

    blocks = _row_blocks(indptr)
    any_small = False
    small: list[np.ndarray | None] = []
    from core.privacy import dirichlet_kernels  # (numba: loaded for large models only)

    compiled = dirichlet_kernels.AVAILABLE and nnz >= dirichlet_kernels.COMPILE_FROM
    pos = np.empty(min(nnz, _BLOCK) if compiled else 0, dtype=np.int64)
    # 1. every gamma variate, in entry order: G ~ Gamma(k·p), shape k·p + 1 where k·p < 1
    #    (a numpy Generator draws straight into ``out``, over the shapes written there: the
    #    same stream as an array returned per block, without allocating and copying one)
    for r0, r1 in blocks:
        e0, e1 = int(indptr[r0]), int(indptr[r1])
        if compiled:  # the same operations as below, in one pass
            shape = out[e0:e1]
            if pos.size < e1 - e0:
                pos = np.empty(e1 - e0, dtype=np.int64)
            n_small = dirichlet_kernels.gamma_shapes(p[e0:e1], k, affine, shape, pos)
            any_small = any_small or n_small > 0
            small.append(pos[:n_small].copy() if n_small <= (e1 - e0) // 8 else None)
        else:
            shape = _shapes(p[e0:e1], k, affine, out[e0:e1])
            if shape.size and shape.min() < 1.0:
                any_small = True
                where = np.flatnonzero(shape < 1.0)
                shape[where] += 1.0
                # kept for step 2 while few (else found again there)
                small.append(where if where.size <= (e1 - e0) // 8 else None)
            else:
                small.append(np.zeros(0, dtype=np.intp))
        if isinstance(gen, np.random.Generator):
            gen.standard_gamma(shape, out=shape)  # each variate replaces its shape
        else:  # release mode's secure generator returns its variates
            out[e0:e1] = gen.standard_gamma(shape)
    # 2. boosting of the entries with k·p < 1 (one uniform each, in entry order), in log
    #    space relative to the row's largest boost; then normalise, floor, normalise
    for (r0, r1), kept in zip(blocks, small):
        e0, e1 = int(indptr[r0]), int(indptr[r1])
        ptr = indptr[r0:r1 + 1] - e0
        blk = out[e0:e1]
        lens = np.diff(ptr)
        if any_small:
            boosted = kept if kept is not None else np.flatnonzero(centres(e0, e1) * k < 1.0)
            if boosted.size:
                u = np.asarray(gen.random(boosted.size), dtype=np.float64)
                _boost(blk, ptr, lens, boosted, centres(e0, e1, boosted) * k, u)
        _normalise(blk, ptr, lens)
        if blk.size and blk.min() < _FLOOR:  # rare: floor, and normalise again
            np.maximum(blk, _FLOOR, out=blk)
            _normalise(blk, ptr, lens)
    return out


def _shapes(p: np.ndarray, k: float, affine: tuple[float, float] | None,
            out: np.ndarray) -> np.ndarray:
    """``out`` = c·k for the centres c = p, or p·scale + shift (before 1 is added where
    c·k < 1)."""
    if affine is None:
        np.multiply(p, k, out=out)
        return out
    np.multiply(p, affine[0], out=out)
    out += affine[1]
    out *= k
    return out


def _normalise(blk: np.ndarray, ptr: np.ndarray, lens: np.ndarray) -> None:
    """Divide every row of ``blk`` by its sum (rows of one length: by broadcasting, without
    an entry-sized array of the sums; the same divisions)."""
    sums = _segment_reduce(blk, ptr, np.add, 1.0)
    n = int(lens[0]) if lens.size else 0
    if n and blk.size == n * lens.size and (lens == n).all():
        blk.reshape(-1, n)[...] /= sums[:, None]
    else:
        blk /= np.repeat(sums, lens)


def _boost(blk: np.ndarray, ptr: np.ndarray, lens: np.ndarray, boosted: np.ndarray,
           a: np.ndarray, u: np.ndarray) -> None:
    """``blk *= exp(log_boost − its row's maximum)``, where ``log_boost`` is
    log(1 − u)/a at the positions ``boosted`` (their shapes ``a`` = k·p < 1) and 0 elsewhere.

    With every a > 0, each log(1 − u)/a is <= 0 (u < 1; −∞ for a subnormal a), never NaN
    and never −0 (log 1 = +0), so a row with an entry not boosted has maximum 0 exactly,
    and only its boosted entries change (exp(0) = 1): the work is on the boosted entries,
    with the same operations on them as on the whole rows, so the result is the same bit
    for bit. Otherwise (a stored zero) every entry of the block is worked out."""
    if not (a > 0.0).all():
        log_boost = np.zeros(blk.size)
        log_boost[boosted] = np.log(1.0 - u) / a
        row_max = _segment_reduce(log_boost, ptr, np.maximum, 0.0)
        log_boost -= np.repeat(row_max, lens)
        np.exp(log_boost, out=log_boost)
        blk *= log_boost
        return
    log_b = np.log(1.0 - u) / a
    rows = np.searchsorted(ptr, boosted, side="right") - 1  # each boosted entry's row
    first = np.flatnonzero(np.diff(rows, prepend=-1))  # where each row's entries begin
    full = np.diff(first, append=rows.size) == lens[rows[first]]  # every entry boosted
    if full.any():  # such rows are shifted by their own maximum (the others by 0)
        seg_max = np.maximum.reduceat(log_b, first)
        log_b -= np.repeat(np.where(full, seg_max, 0.0), np.diff(first, append=rows.size))
    np.exp(log_b, out=log_b)
    blk[boosted] *= log_b
