"""Transition rows in compressed sparse row (CSR) form, as PRISM and Storm store them.

An MDP's transitions are one row per (state, action) choice: row ``s·A + a`` holds the
next-state distribution P(s, a, ·) as its non-zero columns (sorted, each once) and their
probabilities. Unavailable actions are empty rows. Memory is O(S·A + non-zeros): a
million-state model with ten successors per row takes about 500 MB, where the dense
(S, A, S) array would take 32 TB.

The arrays are read-only and may be shared between models (a privatised model keeps the
structure of the true one and has new ``data`` only), between worker processes (they are
plain numpy arrays, so :mod:`core.common.shm` maps them) and with scipy
(:attr:`Transitions.matrix` is a ``scipy.sparse.csr_array`` over the same memory).

Small models also have a dense (S, A, S) form: :data:`DENSE_MAX_ENTRIES` decides, from the
shape alone, where the dense code paths (faster for small models, and the ones whose
seeded results earlier versions pinned) are used.

Examples
--------
>>> import numpy as np
>>> t = Transitions.from_dense(np.array([[[0.5, 0.5]], [[0.0, 1.0]]]))
>>> t.nnz, t.row(1, 0)
(3, (array([1], dtype=int32), array([1.])))
>>> t.dot(np.array([1.0, 3.0])).tolist()
[[2.0], [3.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError

__all__ = ["Transitions", "DENSE_MAX_ENTRIES", "uses_dense", "gather_rows", "segment_sum",
           "adopt"]

#: Models with S·A·S at most this many entries keep a dense (S, A, S) array and use the
#: dense code paths (about 2 MB: 256 states with 4 actions). Larger ones are sparse only.
DENSE_MAX_ENTRIES = 1 << 18


#: Models whose rows are at least half full keep the dense arrays and code paths up to this
#: many entries (1 GB): there the dense array is no larger than the CSR rows (12 bytes per
#: non-zero) and its code paths are those earlier versions measured.
DENSE_MAX_FULL = 1 << 27


def uses_dense(n_states: int, n_actions: int, nnz: int | None = None) -> bool:
    """True when a model of this shape (and this many non-zeros, when known) uses the dense
    arrays and code paths: small models, and half-full ones up to :data:`DENSE_MAX_FULL`
    entries."""
    entries = float(n_states) * n_actions * n_states
    if entries <= DENSE_MAX_ENTRIES:
        return True
    return nnz is not None and entries <= DENSE_MAX_FULL and nnz >= 0.5 * entries


def _index_dtype(n_states: int, nnz: int) -> type:
    return np.int32 if max(n_states, nnz) < 2**31 - 1 else np.int64


def _readonly(a: np.ndarray) -> np.ndarray:
    if a.flags.writeable:
        a.setflags(write=False)
    return a


def adopt(a: "np.ndarray | float", dtype: type = np.float64) -> np.ndarray:
    """``a`` itself when it is already a read-only array of ``dtype`` (a result that hands
    over an array it made need not copy it), else a read-only copy.

    Parameters
    ----------
    a : numpy.ndarray or float
        The values.
    dtype : type
        The dtype of the result.

    Returns
    -------
    numpy.ndarray
    """
    if isinstance(a, np.ndarray) and a.dtype == dtype and not a.flags.writeable:
        return a
    out: np.ndarray = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def segment_sum(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of ``values[indptr[i]:indptr[i+1]]`` for every i (0 for empty segments).

    Parameters
    ----------
    values : numpy.ndarray
        (nnz,) values.
    indptr : numpy.ndarray
        (m + 1,) segment starts.

    Returns
    -------
    numpy.ndarray
        (m,) sums.
    """
    m = len(indptr) - 1
    out = np.zeros(m, dtype=np.result_type(values.dtype, np.float64))
    if values.size == 0 or m == 0:
        return out
    # rows that start at the end are empty; reduceat needs starts < len(values)
    k = int(np.searchsorted(indptr[:-1], values.size, side="left"))
    out[:k] = np.add.reduceat(values, indptr[:k])
    out[:k][indptr[:k] == indptr[1:k + 1]] = 0
    return out


def gather_rows(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entry positions of ``rows`` (in order) and the new row pointer.

    Parameters
    ----------
    indptr : numpy.ndarray
        Row pointer of a CSR matrix.
    rows : numpy.ndarray
        Row numbers to gather.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``pos`` (positions into the entry arrays) and ``ptr`` (len(rows) + 1).
    """
    starts = indptr[rows]
    lens = indptr[rows + 1] - starts
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    total = int(ptr[-1])
    if total == 0:
        return np.zeros(0, dtype=np.int64), ptr
    # position k of the output reads entry starts[row(k)] + (k - ptr[row(k)])
    shift = np.repeat(starts - ptr[:-1], lens)
    pos = np.arange(total, dtype=np.int64)
    pos += shift
    return pos, ptr


@dataclass(frozen=True, eq=False)
class Transitions:
    """CSR transition rows of an MDP (module docstring); arrays are read-only.

    ``indptr`` has S·A + 1 entries (int64), ``indices`` the next states (int32 for
    models below 2³¹ entries) sorted within each row, ``data`` the probabilities.
    """

    n_states: int
    n_actions: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        S, A = int(self.n_states), int(self.n_actions)
        object.__setattr__(self, "n_states", S)
        object.__setattr__(self, "n_actions", A)
        indptr = np.asarray(self.indptr)
        if indptr.dtype != np.int64:
            indptr = indptr.astype(np.int64)
        if indptr.shape != (S * A + 1,) or (indptr.size and indptr[0] != 0):
            raise InputError(f"row pointer must have S·A + 1 = {S * A + 1} entries starting at "
                             "0", field="transitions")
        nnz = int(indptr[-1])
        indices = np.asarray(self.indices)
        data = np.asarray(self.data, dtype=np.float64)
        if indices.shape != (nnz,) or data.shape != (nnz,):
            raise InputError(f"the row pointer declares {nnz:,} entries, but there are "
                             f"{indices.size:,} columns and {data.size:,} values",
                             field="transitions")
        want = _index_dtype(S, nnz)
        if indices.dtype != want:
            indices = indices.astype(want)
        for name, arr in (("indptr", indptr), ("indices", indices), ("data", data)):
            object.__setattr__(self, name, _readonly(arr))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dense(cls, P: np.ndarray) -> "Transitions":
        """The non-zero entries of an (S, A, S) array (NaN counts as non-zero).

        Parameters
        ----------
        P : numpy.ndarray
            (S, A, S) probabilities.

        Returns
        -------
        Transitions
        """
        P = np.asarray(P, dtype=np.float64)
        S, A, _ = P.shape
        flat = P.reshape(S * A, S)
        counts = np.count_nonzero(flat, axis=1)
        indptr = np.zeros(S * A + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        rows, cols = np.nonzero(flat)
        return cls(S, A, indptr, cols.astype(_index_dtype(S, int(indptr[-1]))),
                   flat[rows, cols])

    @classmethod
    def from_coo(cls, n_states: int, n_actions: int, rows: np.ndarray, cols: np.ndarray,
                 values: np.ndarray, *, what: str = "transition") -> "Transitions":
        """From (row, column, value) triples, row = s·A + a; sorted here.

        Exact zeros are dropped; a (row, column) pair given twice is an error naming it.

        Parameters
        ----------
        n_states, n_actions : int
            S and A.
        rows, cols : numpy.ndarray
            Row (s·A + a) and column (next state) of every entry.
        values : numpy.ndarray
            The probabilities.
        what : str
            What an entry is called in error messages.

        Returns
        -------
        Transitions
        """
        S, A = int(n_states), int(n_actions)
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        keep = values != 0
        if not keep.all():
            rows, cols, values = rows[keep], cols[keep], values[keep]
        order = np.lexsort((cols, rows))
        rows, cols, values = rows[order], cols[order], values[order]
        if rows.size > 1:
            dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
            if dup.any():
                i = int(np.flatnonzero(dup)[0])
                s, a = divmod(int(rows[i]), max(A, 1))
                raise InputError(f"the {what} from state {s}, choice {a} to state "
                                 f"{int(cols[i])} is given twice", field="transitions")
        counts = np.bincount(rows, minlength=S * A)
        indptr = np.zeros(S * A + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return cls(S, A, indptr, cols.astype(_index_dtype(S, rows.size)), values)

    def with_data(self, data: np.ndarray) -> "Transitions":
        """The same structure with other values (``data`` is adopted, not copied: a float64
        array becomes read-only and belongs to the result)."""
        if isinstance(data, np.ndarray) and data.dtype == np.float64 and data.flags.writeable:
            data.setflags(write=False)
        return Transitions(self.n_states, self.n_actions, self.indptr, self.indices, data)

    # ------------------------------------------------------------------ queries
    @property
    def shape(self) -> tuple[int, int, int]:
        """(S, A, S), as the dense array's."""
        return (self.n_states, self.n_actions, self.n_states)

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self.data.size)

    @property
    def n_rows(self) -> int:
        return self.n_states * self.n_actions

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays."""
        return int(self.indptr.nbytes + self.indices.nbytes + self.data.nbytes)

    @property
    def dense_nbytes(self) -> float:
        """Bytes a dense (S, A, S) float64 copy would take."""
        return 8.0 * self.n_states * self.n_actions * self.n_states

    def row(self, s: int, a: int) -> tuple[np.ndarray, np.ndarray]:
        """(next states, probabilities) of P(s, a, ·) (views, read-only)."""
        r = int(s) * self.n_actions + int(a)
        lo, hi = int(self.indptr[r]), int(self.indptr[r + 1])
        return self.indices[lo:hi], self.data[lo:hi]

    def row_dense(self, s: int, a: int) -> np.ndarray:
        """P(s, a, ·) as a length-S vector."""
        out = np.zeros(self.n_states)
        cols, vals = self.row(s, a)
        out[cols] = vals
        return out

    def support_sizes(self) -> np.ndarray:
        """(S, A) number of stored entries per row."""
        return np.diff(self.indptr).reshape(self.n_states, self.n_actions)

    def row_sums(self) -> np.ndarray:
        """(S, A) sum of each row."""
        return segment_sum(self.data, self.indptr).reshape(self.n_states, self.n_actions)

    def row_of_entry(self) -> np.ndarray:
        """(nnz,) the row (s·A + a) of every entry."""
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), np.diff(self.indptr))

    @property
    def matrix(self) -> Any:
        """``scipy.sparse.csr_array`` of shape (S·A, S) over these arrays (cached)."""
        m = self._cache.get("matrix")
        if m is None:
            from scipy.sparse import csr_array

            idx = self.indices
            ptr = self.indptr if idx.dtype == np.int64 else self._cache.setdefault(
                "indptr32", self.indptr.astype(np.int32)) if self.nnz < 2**31 - 1 \
                else self.indptr
            if ptr.dtype != idx.dtype:
                idx = idx.astype(ptr.dtype)
            m = csr_array((self.data, idx, ptr), shape=(self.n_rows, self.n_states),
                          copy=False)
            m.has_sorted_indices = True
            self._cache["matrix"] = m
        return m

    def dot(self, v: np.ndarray) -> np.ndarray:
        """(S, A) array of Σ_t P(s, a, t)·v[t]."""
        if self.nnz == 0:
            return np.zeros((self.n_states, self.n_actions))
        return np.asarray(self.matrix @ np.asarray(v, dtype=np.float64)).reshape(
            self.n_states, self.n_actions)

    def policy_rows(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR (ptr, next states, probabilities) of the rows P(s, actions[s], ·)."""
        rows = np.arange(self.n_states, dtype=np.int64) * self.n_actions + np.asarray(
            actions, dtype=np.int64)
        pos, ptr = gather_rows(self.indptr, rows)
        return ptr, self.indices[pos], self.data[pos]

    def policy_matrix(self, actions: np.ndarray) -> Any:
        """``scipy.sparse.csr_array`` (S, S) of the rows P(s, actions[s], ·)."""
        from scipy.sparse import csr_array

        ptr, cols, vals = self.policy_rows(actions)
        return csr_array((vals, cols, ptr), shape=(self.n_states, self.n_states))

    def to_dense(self) -> np.ndarray:
        """The (S, A, S) float64 array (refused, naming the size, when it cannot fit)."""
        from core.common.memory import check_memory

        S, A = self.n_states, self.n_actions
        check_memory(self.dense_nbytes, "P", detail=f"a dense copy of S x A x S = {S:,} x "
                     f"{A:,} x {S:,} transitions")
        out = np.zeros((S, A, S))
        flat = out.reshape(S * A, S)
        flat[self.row_of_entry(), self.indices] = self.data
        return out

    def equal(self, other: "Transitions") -> bool:
        """Same shape, entries and values."""
        return (self.n_states == other.n_states and self.n_actions == other.n_actions
                and np.array_equal(self.indptr, other.indptr)
                and np.array_equal(self.indices, other.indices)
                and np.array_equal(self.data, other.data))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

