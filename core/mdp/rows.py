"""Editable sparse transition rows: the ``P`` of a large editable model.

:class:`core.mdp.editable.MdpModel` keeps a dense (S, A, S) array for the models people
draw; a model too large for that (an imported PRISM or Storm model, a million states)
keeps :class:`SparseRows`: the model's CSR rows, shared with the frozen MDP it came from,
plus the rows edited since, each a small (next states, probabilities) pair. Drafts may be
invalid (NaN, negative, rows that do not sum to 1): nothing is checked here.

The object answers the indexing a dense ``P`` answered where it is cheap — ``P[s, a]`` is
the row as a length-S vector, ``P[s, a, t]`` one probability, and both can be assigned —
so the editing code and the Inspector work on either; whole-array operations are methods
(:meth:`row_sums`, :meth:`bad_rows`, :meth:`to_transitions`, :meth:`dense`).

Examples
--------
>>> import numpy as np
>>> rows = SparseRows.from_dense(np.array([[[0.5, 0.5]], [[0.0, 1.0]]]))
>>> rows[0, 0].tolist(), rows[1, 0, 1]
([0.5, 0.5], 1.0)
>>> rows[1, 0] = np.array([0.2, 0.7]); rows.row_sums().round(3).tolist()
[[1.0], [0.9]]
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from core.mdp.sparse import Transitions, segment_sum

__all__ = ["SparseRows"]


class SparseRows:
    """CSR rows plus edited rows (module docstring); shape (S, A, S)."""

    def __init__(self, base: Transitions) -> None:
        self.base = base
        self.edits: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def from_dense(cls, P: np.ndarray) -> "SparseRows":
        return cls(Transitions.from_dense(P))

    # ------------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, int, int]:
        S, A = self.base.n_states, self.base.n_actions
        return (S, A, S)

    @property
    def ndim(self) -> int:
        return 3

    @property
    def size(self) -> int:
        S, A, _ = self.shape
        return S * A * S

    @property
    def nnz(self) -> int:
        base = self.base.nnz - sum(int(self.base.indptr[r + 1] - self.base.indptr[r])
                                   for r in self.edits)
        return base + sum(int(np.count_nonzero(v)) for _, v in self.edits.values())

    # ------------------------------------------------------------------ rows
    def _r(self, s: int, a: int) -> int:
        S, A, _ = self.shape
        s, a = int(s), int(a)
        if not (0 <= s < S and 0 <= a < A):
            raise IndexError(f"row ({s}, {a}) outside {S} x {A}")
        return s * A + a

    def row(self, s: int, a: int) -> tuple[np.ndarray, np.ndarray]:
        """(next states, probabilities) of row (s, a): its stored (non-zero) entries."""
        r = self._r(s, a)
        if r in self.edits:
            return self.edits[r]
        lo, hi = int(self.base.indptr[r]), int(self.base.indptr[r + 1])
        return self.base.indices[lo:hi].astype(np.int64), self.base.data[lo:hi]

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, tuple) or len(key) not in (2, 3):
            raise TypeError("index a SparseRows with [s, a] or [s, a, t]")
        cols, vals = self.row(key[0], key[1])
        if len(key) == 2:
            out = np.zeros(self.shape[0])
            out[cols] = vals
            return out
        t = int(key[2])
        hit = np.flatnonzero(cols == t)
        return float(vals[hit[0]]) if hit.size else 0.0

    def __setitem__(self, key: Any, value: Any) -> None:
        if not isinstance(key, tuple) or len(key) not in (2, 3):
            raise TypeError("index a SparseRows with [s, a] or [s, a, t]")
        r = self._r(key[0], key[1])
        if len(key) == 2:
            vec = np.broadcast_to(np.asarray(value, dtype=np.float64), (self.shape[0],))
            cols = np.flatnonzero(vec != 0)  # NaN counts as stored, like a dense row
            self.edits[r] = (cols, np.array(vec[cols], dtype=np.float64))
            return
        cols, vals = self.row(key[0], key[1])
        t, v = int(key[2]), float(value)
        keep = cols != t
        cols, vals = cols[keep], vals[keep]
        if v != 0:
            at = int(np.searchsorted(cols, t))
            cols = np.insert(cols, at, t)
            vals = np.insert(vals, at, v)
        self.edits[r] = (np.asarray(cols, dtype=np.int64), np.asarray(vals, dtype=np.float64))

    # ------------------------------------------------------------------ whole model
    def to_transitions(self) -> Transitions:
        """The rows as one CSR matrix (the base itself when nothing was edited)."""
        if not self.edits:
            return self.base
        b = self.base
        counts = np.diff(b.indptr)
        rows = np.fromiter(self.edits, dtype=np.int64, count=len(self.edits))
        keep_rows = np.ones(b.n_rows, dtype=bool)
        keep_rows[rows] = False
        keep = np.repeat(keep_rows, counts)
        r_all = [np.repeat(np.arange(b.n_rows, dtype=np.int64), counts)[keep]]
        c_all = [b.indices[keep].astype(np.int64)]
        v_all = [b.data[keep]]
        for r, (c, v) in self.edits.items():
            r_all.append(np.full(c.size, r, dtype=np.int64))
            c_all.append(c)
            v_all.append(v)
        return Transitions.from_coo(b.n_states, b.n_actions, np.concatenate(r_all),
                                    np.concatenate(c_all), np.concatenate(v_all))

    def compact(self) -> None:
        """Fold the edited rows into the CSR base."""
        if self.edits:
            self.base = self.to_transitions()
            self.edits = {}

    def row_sums(self) -> np.ndarray:
        """(S, A) sums of the rows (NaN where a row holds NaN)."""
        S, A, _ = self.shape
        sums = segment_sum(self.base.data, self.base.indptr)
        for r, (_, v) in self.edits.items():
            sums[r] = float(v.sum())
        return sums.reshape(S, A)

    def bad_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(S, A) bools: rows with a non-finite entry, rows with a negative entry."""
        S, A, _ = self.shape
        b = self.base
        nonfinite = segment_sum((~np.isfinite(b.data)).astype(np.int64), b.indptr) > 0
        negative = segment_sum((b.data < 0).astype(np.int64), b.indptr) > 0
        for r, (_, v) in self.edits.items():
            nonfinite[r] = not np.isfinite(v).all()
            negative[r] = bool((v < 0).any())
        return nonfinite.reshape(S, A), negative.reshape(S, A)

    def dense(self) -> np.ndarray:
        """The (S, A, S) array (refused, with its size, when it cannot fit)."""
        out = self.base.to_dense()
        S, A, _ = self.shape
        for r, (c, v) in self.edits.items():
            s, a = divmod(r, A)
            out[s, a] = 0.0
            out[s, a, c] = v
        return out

    def remap(self, n_states: int, n_actions: int, row_map: np.ndarray,
              col_map: np.ndarray | None = None) -> "SparseRows":
        """The rows moved to a new shape: old row r goes to ``row_map[r]`` (-1: dropped),
        next state t to ``col_map[t]`` (-1: the entry is dropped)."""
        t = self.to_transitions()
        rows = row_map[t.row_of_entry()]
        cols = t.indices.astype(np.int64)
        if col_map is not None:
            cols = col_map[cols]
        keep = (rows >= 0) & (cols >= 0)
        return SparseRows(Transitions.from_coo(n_states, n_actions, rows[keep], cols[keep],
                                               t.data[keep]))

    def __deepcopy__(self, memo: dict[int, Any]) -> "SparseRows":
        out = SparseRows(self.base)  # the base is read-only: shared
        out.edits = {r: (c.copy(), v.copy()) for r, (c, v) in self.edits.items()}
        return out

    def copy(self) -> "SparseRows":
        return copy.deepcopy(self)


# ------------------------------------------------------------------------- sidecar files
def sidecar_arrays(P: "np.ndarray | SparseRows") -> dict[str, np.ndarray]:
    """The arrays a project's sidecar ``.npz`` holds for ``P``: ``P`` (dense, as always)
    or, for sparse rows, ``P_indptr``, ``P_indices``, ``P_data`` and ``shape`` (S, A).

    Parameters
    ----------
    P : numpy.ndarray or SparseRows
        A model's transitions.

    Returns
    -------
    dict
        ``{name: array}`` for :func:`numpy.savez`.
    """
    if not isinstance(P, SparseRows):
        return {"P": np.asarray(P, dtype=np.float64)}
    t = P.to_transitions()
    return {"P_indptr": t.indptr, "P_indices": t.indices, "P_data": t.data,
            "shape": np.array([t.n_states, t.n_actions], dtype=np.int64)}


def sidecar_digest_bytes(P: "np.ndarray | SparseRows") -> list[bytes]:
    """The bytes a sidecar's digest is taken of (dense: P in C order, as always)."""
    if not isinstance(P, SparseRows):
        return [np.ascontiguousarray(P, dtype=np.float64).tobytes()]
    t = P.to_transitions()
    return [np.array([t.n_states, t.n_actions], dtype=np.int64).tobytes(),
            t.indptr.tobytes(), np.ascontiguousarray(t.indices, dtype=np.int64).tobytes(),
            t.data.tobytes()]


def from_sidecar(z: Any) -> "np.ndarray | SparseRows":
    """``P`` from an opened sidecar ``.npz`` (either kind)."""
    if "P" in z.files:
        return np.asarray(z["P"], dtype=np.float64)
    S, A = (int(x) for x in z["shape"])
    return SparseRows(Transitions(S, A, z["P_indptr"].astype(np.int64), z["P_indices"],
                                  z["P_data"].astype(np.float64)))
