"""The Markov decision process model: sparse transition rows plus names.

Shapes follow the formats page: ``P`` is (S, A, S) (stored as CSR rows over the
(state, action) choices, :class:`core.mdp.sparse.Transitions`; ``mdp.P`` is the dense
view), ``R`` is (S, A), ``R_T`` is (S,), ``mask`` is (S, A) and marks the actions
available in each state. ``A`` is the largest
number of actions of any state; in an ``*.mdp.json`` file the actions of a state are
indices ``0 .. n_s-1`` in file order. Rows of unavailable actions are all zero.

Examples
--------
>>> import numpy as np
>>> m = MDP(P=np.array([[[0.5, 0.5]], [[0.0, 1.0]]]), R=np.zeros((2, 1)),
...         R_T=np.array([0.0, 1.0]), horizon=1)
>>> m.n_states, m.n_actions, m.is_finite
(2, 1, True)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.mdp.annotations import Annotations
from core.mdp.names import ActionNames, Names
from core.mdp.sparse import Transitions, segment_sum, uses_dense

__all__ = ["MDP", "ROW_SUM_TOL", "MAX_HORIZON", "MAX_VALUE", "with_transitions",
           "check_transitions"]

#: Longest finite horizon accepted (backward induction runs one stage at a time).
MAX_HORIZON = 1_000_000
#: Largest |value| a model may reach: rewards times the horizon (or 1/(1 - discount)) must
#: stay below it, so values, bounds and their differences are finite.
MAX_VALUE = 1e300

ROW_SUM_TOL = 1e-9


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False, init=False)
class MDP:
    """A finite MDP (finite horizon ``T`` or infinite discounted).

    The transitions are stored sparse (:class:`core.mdp.sparse.Transitions`, CSR rows over
    the (state, action) choices); give them either as a dense (S, A, S) array ``P`` or as
    ``transitions=``. ``mdp.P`` is the dense (S, A, S) view: kept for small models
    and half-full ones (:func:`core.mdp.sparse.uses_dense`), made on first use for others
    (and refused,
    naming its size, when it cannot fit).

    Construction validates everything and raises :class:`core.common.errors.InputError`
    naming the state, the action and the problem.
    """

    R: np.ndarray
    R_T: np.ndarray
    mask: np.ndarray
    horizon: int | None
    discount: float
    initial_state: int
    state_names: Names
    action_names: ActionNames
    name: str
    layout: Mapping[str, tuple[float, float]] | None
    annotations: Annotations | None

    def __init__(self, P: Any = None, R: Any = None, R_T: Any = None, mask: Any = None,
                 horizon: int | None = 1, discount: float = 1.0, initial_state: int = 0,
                 state_names: Any = (), action_names: Any = (), name: str = "",
                 layout: Mapping[str, tuple[float, float]] | None = None, *,
                 transitions: Transitions | None = None,
                 annotations: Annotations | None = None) -> None:
        dense, transitions, S, A = _transition_source(P, transitions)
        R, R_T, mask = _reward_arrays(R, R_T, mask, S, A)
        names = _state_names(state_names, S)
        anames = _action_names(action_names, S, A)
        object.__setattr__(self, "state_names", names)
        object.__setattr__(self, "action_names", anames)
        object.__setattr__(self, "_dense", None)
        h = _horizon(horizon, S)
        object.__setattr__(self, "horizon", h)
        d = _discount(discount, h)
        object.__setattr__(self, "discount", d)
        object.__setattr__(self, "initial_state", _initial_state(initial_state, S))
        _check_rewards(R, R_T, mask, names, anames, h, d)
        object.__setattr__(self, "_shape", (int(S), int(A)))
        dense, transitions, nnz = _stored_transitions(dense, transitions, mask, names, anames)
        # the code paths follow the shape and the density only (never how P was given)
        object.__setattr__(self, "_is_dense", uses_dense(S, A, nnz))
        object.__setattr__(self, "_nnz", nnz)
        object.__setattr__(self, "_dense", dense)
        object.__setattr__(self, "_transitions", transitions)
        object.__setattr__(self, "R", _readonly(np.where(mask, R, 0.0)))
        object.__setattr__(self, "R_T", _readonly(R_T))
        object.__setattr__(self, "mask", _readonly(mask))
        object.__setattr__(self, "name", str(name))
        if layout is not None:
            layout = {str(k): (float(v[0]), float(v[1])) for k, v in dict(layout).items()}
        object.__setattr__(self, "layout", layout)
        if annotations is not None:
            if not isinstance(annotations, Annotations):
                raise InputError("must be core.mdp.annotations.Annotations",
                                 field="annotations")
            annotations.check(S, A, nnz)
        object.__setattr__(self, "annotations", annotations)

    # ------------------------------------------------------------------ properties
    @property
    def P(self) -> np.ndarray:
        """The dense (S, A, S) transitions (read-only; made on first use for large models,
        refused with the size when it cannot fit: use :attr:`transitions` there)."""
        dense: np.ndarray | None = self.__dict__.get("_dense")
        if dense is None:
            dense = self.__dict__["_transitions"].to_dense()
            dense.setflags(write=False)
            object.__setattr__(self, "_dense", dense)
        return dense

    @property
    def transitions(self) -> Transitions:
        """The CSR rows (made from the dense array on first use for a dense-path model)."""
        t = self.__dict__.get("_transitions")
        if t is None:
            t = Transitions.from_dense(self.__dict__["_dense"])
            object.__setattr__(self, "_transitions", t)
        return t

    @property
    def is_dense(self) -> bool:
        """True when the dense code paths are used (a small model, or a half-full one up to
        2^27 entries: :func:`core.mdp.sparse.uses_dense`)."""
        return bool(self.__dict__["_is_dense"])

    @property
    def n_states(self) -> int:
        return int(self.__dict__["_shape"][0])

    @property
    def n_actions(self) -> int:
        return int(self.__dict__["_shape"][1])

    @property
    def nnz(self) -> int:
        """Number of non-zero transition probabilities."""
        return int(self.__dict__["_nnz"])

    @property
    def is_finite(self) -> bool:
        return self.horizon is not None

    def available_actions(self, s: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.mask[s])]

    def row(self, s: int, a: int) -> tuple[np.ndarray, np.ndarray]:
        """(next states, probabilities) of P(s, a, ·), the non-zero entries only."""
        return self.transitions.row(s, a)

    def replace(self, **changes: Any) -> "MDP":
        """A copy with some fields changed (validated again); ``P=`` replaces the
        transitions with a dense array."""
        kw: dict[str, Any] = {f: getattr(self, f) for f in (
            "R", "R_T", "mask", "horizon", "discount", "initial_state", "state_names",
            "action_names", "name", "layout", "annotations")}
        if "P" not in changes and "transitions" not in changes:
            if self.__dict__.get("_dense") is not None:
                kw["P"] = self.__dict__["_dense"]
            else:
                kw["transitions"] = self.transitions
        kw.update(changes)
        return MDP(**kw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MDP):
            return NotImplemented
        return (
            self.transitions.equal(other.transitions) and np.array_equal(self.R, other.R)
            and np.array_equal(self.R_T, other.R_T) and np.array_equal(self.mask, other.mask)
            and self.horizon == other.horizon and self.discount == other.discount
            and self.initial_state == other.initial_state
            and self.state_names == other.state_names
            and self._visible_action_names() == other._visible_action_names()
            and self.name == other.name
        )

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if not self.is_dense:  # a large model's dense copy is never sent anywhere
            state["_dense"] = None
        elif state.get("_dense") is not None:  # a dense-path model: its CSR is remade if asked
            state["_transitions"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def _visible_action_names(self) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(n for n, ok in zip(row, m) if ok)
                     for row, m in zip(self.action_names, self.mask.tolist()))


def _transition_source(P: Any, transitions: Any
                       ) -> tuple[np.ndarray | None, Transitions | None, int, int]:
    """(dense P or None, CSR rows or None, S, A) from the constructor's ``P`` and
    ``transitions`` (exactly one given; shapes checked)."""
    if transitions is not None and P is not None:
        raise InputError("give either P or transitions, not both", field="P")
    if transitions is None and not isinstance(P, Transitions):
        if P is None:
            raise InputError("is required", field="P")
        dense = np.asarray(P, dtype=np.float64)
        if dense.ndim != 3 or dense.shape[0] != dense.shape[2] or dense.shape[0] < 1 \
                or dense.shape[1] < 1:
            raise InputError(f"must have shape (S, A, S), got {dense.shape}", field="P")
        return dense, None, dense.shape[0], dense.shape[1]
    if transitions is None:
        transitions = P
    if not isinstance(transitions, Transitions):
        raise InputError("must be a core.mdp.sparse.Transitions", field="transitions")
    if transitions.n_states < 1 or transitions.n_actions < 1:
        raise InputError(f"must have S >= 1 states and A >= 1 actions, got "
                         f"{transitions.n_states} x {transitions.n_actions}", field="P")
    return None, transitions, transitions.n_states, transitions.n_actions


def _reward_arrays(R: Any, R_T: Any, mask: Any, S: int, A: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``R``, ``R_T`` (zeros if None) and ``mask`` (all True if None) as arrays of the
    model's shapes."""
    R = np.asarray(R, dtype=np.float64)
    if R.shape != (S, A):
        raise InputError(f"must have shape {(S, A)}, got {R.shape}", field="R")
    R_T = np.zeros(S) if R_T is None else np.asarray(R_T, dtype=np.float64)
    if R_T.shape != (S,):
        raise InputError(f"must have shape {(S,)}, got {R_T.shape}", field="R_T")
    mask = np.ones((S, A), dtype=bool) if mask is None else np.asarray(mask)
    if mask.shape != (S, A) or mask.dtype != bool:
        raise InputError(f"must be a bool array of shape {(S, A)}", field="mask")
    return R, R_T, mask


def _horizon(h: Any, S: int) -> int | None:
    """The horizon as an int (None: infinite), checked against the limit and the memory
    its stage-by-stage values need."""
    if h is None:
        return None
    if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1:
        raise InputError(f"must be an integer >= 1 or null (infinite), got {h!r}",
                         field="horizon")
    n = int(h)
    if n > MAX_HORIZON:
        raise InputError(f"must be at most {MAX_HORIZON:,}, got {n:,}", field="horizon")
    from core.common.memory import check_memory

    # values and policy of every stage (Algorithm 1, the bounds)
    check_memory(3.0 * (n + 1) * S * 8, "horizon", detail=f"horizon {n:,} x {S:,} states")
    return n


def _discount(discount: Any, h: int | None) -> float:
    """The discount as a float: in (0, 1) for an infinite horizon, (0, 1] otherwise."""
    try:
        d = float(discount)
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {discount!r}", field="discount") from None
    if h is None and not 0.0 < d < 1.0:
        raise InputError(f"must satisfy 0 < discount < 1 for an infinite horizon, got {d}",
                         field="discount")
    if h is not None and not 0.0 < d <= 1.0:
        raise InputError(f"must satisfy 0 < discount <= 1, got {d}", field="discount")
    return d


def _initial_state(s0: Any, S: int) -> int:
    """The initial state as an int index in [0, S)."""
    if isinstance(s0, bool) or not isinstance(s0, (int, np.integer)) or not 0 <= s0 < S:
        raise InputError(f"must be a state index in [0, {S}), got {s0!r}",
                         field="initial_state")
    return int(s0)


def _check_rewards(R: np.ndarray, R_T: np.ndarray, mask: np.ndarray, names: Names,
                   anames: ActionNames, h: int | None, d: float) -> None:
    """Every state has an action, every reward is finite and no value can overflow (the
    messages name the state and action)."""
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise InputError(f"state {names[int(empty[0])]!r} has no actions",
                         field="transitions")
    for arr, fname in ((R, "rewards"), (R_T, "terminal_rewards")):
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = np.argwhere(bad)[0]
            where = names[int(idx[0])] + (
                f"/{anames.name(int(idx[0]), int(idx[1]))}" if arr.ndim == 2 else "")
            raise InputError(f"{where}: reward is {arr[tuple(idx)]}, must be finite",
                             field=fname)
    stages = float(h) if h is not None else 1.0 / (1.0 - d)
    scale = stages * float(np.abs(R).max(initial=0.0)) + float(np.abs(R_T).max(initial=0.0))
    if not scale < MAX_VALUE:
        raise InputError(f"rewards up to {np.abs(R).max(initial=0.0):.3g} over "
                         f"{stages:.3g} stages make values overflow (|value| must stay "
                         f"below {MAX_VALUE:g})", field="rewards")


def _stored_transitions(dense: np.ndarray | None, transitions: Transitions | None,
                        mask: np.ndarray, names: Names, anames: ActionNames
                        ) -> tuple[np.ndarray | None, Transitions | None, int]:
    """(read-only dense array or None, CSR rows or None, nnz) as the model keeps them:
    rows checked, unavailable actions zeroed, the dense array only for a dense-path
    model given densely (its CSR rows made if asked)."""
    if dense is None:
        assert transitions is not None
        transitions = _masked(transitions, mask)
        check_transitions(transitions, mask, names, anames)
        return None, transitions, transitions.nnz
    _check_rows(dense, mask, names, anames)
    dense = np.where(mask[:, :, None], dense, 0.0)
    nnz = int(np.count_nonzero(dense))
    S, A = mask.shape
    if uses_dense(S, A, nnz):
        dense.setflags(write=False)
        return dense, None, nnz
    return None, Transitions.from_dense(dense), nnz


def _state_names(state_names: Any, S: int) -> Names:
    if isinstance(state_names, Names):
        names = state_names
    elif state_names is None or len(state_names) == 0:
        names = Names.generated("s", S)
    else:
        names = Names(str(s) for s in state_names)
    if len(names) != S:
        raise InputError(f"has {len(names)} names for {S} states", field="state_names")
    if not names.is_generated and not names.unique():
        raise InputError("state names must be unique", field="state_names")
    return names


def _action_names(action_names: Any, S: int, A: int) -> ActionNames:
    if action_names is None or (not isinstance(action_names, ActionNames)
                                and len(action_names) == 0):
        return ActionNames.generated(S, A)
    try:
        names = ActionNames.of(action_names)
    except (TypeError, ValueError):
        raise InputError(f"must be {S} rows of {A} names", field="action_names") from None
    if names.shape != (S, A):
        raise InputError(f"must be {S} rows of {A} names", field="action_names")
    return names


def _masked(t: Transitions, mask: np.ndarray) -> Transitions:
    """``t`` without the entries of unavailable actions (they are zero by definition)."""
    if mask.all():
        return t
    counts = np.diff(t.indptr)
    dead = ~mask.reshape(-1)
    if not (counts[dead] > 0).any():
        return t
    keep = np.repeat(~dead, counts)
    counts = np.where(dead, 0, counts)
    indptr = np.zeros_like(t.indptr)
    np.cumsum(counts, out=indptr[1:])
    return Transitions(t.n_states, t.n_actions, indptr, t.indices[keep], t.data[keep])


def check_transitions(t: Transitions, mask: np.ndarray, names: "Names | tuple[str, ...]",
                      anames: "ActionNames | tuple[tuple[str, ...], ...]") -> None:
    """Every available row finite, non-negative and summing to 1 (sparse rows).

    Parameters
    ----------
    t : Transitions
        The rows (unavailable actions empty).
    mask : numpy.ndarray
        (S, A) available actions.
    names, anames :
        State and action names for the messages.

    Raises
    ------
    InputError
        Naming the first bad row (state, action), the next state and the problem.
    """
    data = t.data
    sums = segment_sum(data, t.indptr)
    avail = mask.reshape(-1)
    good_sum = np.abs(sums - 1.0) <= ROW_SUM_TOL
    # (a NaN makes the minimum NaN; an infinity makes its row's sum non-finite)
    if (data.size == 0 or data.min() >= 0) and good_sum[avail].all():
        return
    bad_entry = ~np.isfinite(data) | (data < 0)
    rows_bad_entry = segment_sum(bad_entry.astype(np.int64), t.indptr) > 0
    bad_rows = np.flatnonzero(avail & (rows_bad_entry | ~good_sum))
    r = int(bad_rows[0])
    s, a = divmod(r, t.n_actions)
    aname = anames.name(s, a) if isinstance(anames, ActionNames) else anames[s][a]
    where = f"state {names[s]!r}, action {aname!r}"
    lo, hi = int(t.indptr[r]), int(t.indptr[r + 1])
    cols, row = t.indices[lo:hi], data[lo:hi]
    if not np.isfinite(row).all():
        j = int(np.flatnonzero(~np.isfinite(row))[0])
        problem = f"probability of next state {names[int(cols[j])]!r} is {row[j]}, must be finite"
    elif (row < 0).any():
        j = int(np.flatnonzero(row < 0)[0])
        problem = f"probability of next state {names[int(cols[j])]!r} is {row[j]}, must be >= 0"
    else:
        problem = (f"probabilities sum to {sums[r]:.12g}, not 1 "
                   f"(deficit {1.0 - sums[r]:+.3g})")
    raise InputError(f"{where}: {problem}", field="transitions")


def _check_rows(P: np.ndarray, mask: np.ndarray, names: "Names | tuple[str, ...]",
                anames: "ActionNames | tuple[tuple[str, ...], ...]") -> None:
    """Every available row finite, non-negative and summing to 1 (checked a block of states
    at a time, so no copy of P is made)."""
    S = P.shape[0]
    step = max(1, (1 << 17) // max(1, P.shape[1] * P.shape[2]))
    for s0 in range(0, S, step):
        _check_block(P[s0:s0 + step], mask[s0:s0 + step], s0, names, anames)


def _check_block(P: np.ndarray, mask: np.ndarray, offset: int,
                 names: "Names | tuple[str, ...]",
                 anames: "ActionNames | tuple[tuple[str, ...], ...]") -> None:
    rows = P[mask]
    if rows.size == 0:
        return
    sums = rows.sum(axis=1)  # NaN or ±inf anywhere in a row makes its sum non-finite
    if (np.isfinite(sums).all() and (rows.min(axis=1) >= 0).all()
            and (np.abs(sums - 1.0) <= ROW_SUM_TOL).all()):
        return
    finite = np.isfinite(rows).all(axis=1)
    nonneg = (np.nan_to_num(rows, nan=0.0) >= 0).all(axis=1)
    good = finite & nonneg & (np.abs(sums - 1.0) <= ROW_SUM_TOL)
    if good.all():
        return
    bad = int(np.flatnonzero(~good)[0])
    s, a = np.argwhere(mask)[bad]
    s += offset
    where = f"state {names[s]!r}, action {anames[s][a]!r}"
    row = rows[bad]
    if not finite[bad]:
        j = int(np.flatnonzero(~np.isfinite(row))[0])
        problem = f"probability of next state {names[j]!r} is {row[j]}, must be finite"
    elif not nonneg[bad]:
        j = int(np.flatnonzero(row < 0)[0])
        problem = f"probability of next state {names[j]!r} is {row[j]}, must be >= 0"
    else:
        problem = (f"probabilities sum to {sums[bad]:.12g}, not 1 "
                   f"(deficit {1.0 - sums[bad]:+.3g})")
    raise InputError(f"{where}: {problem}", field="transitions")


def with_transitions(mdp: MDP, P: "np.ndarray | Transitions", *, name: str,
                     rows_checked: bool = False) -> MDP:
    """``mdp`` with its transitions replaced by ``P``, which the caller hands over.

    The same checks as the constructor (shape, rows of probabilities on the available
    actions), but ``P`` is not copied: it becomes read-only and belongs to the new model.
    The privatisation pipeline uses it so that a private model of a large MDP costs one
    array of the size of its transitions, not three.

    Parameters
    ----------
    mdp : MDP
        The model whose rewards, horizon, names and mask are kept.
    P : numpy.ndarray or Transitions
        (S, A, S) float64 transitions, zero on unavailable actions, or sparse rows of the
        same shape (empty on unavailable actions); not used afterwards by the caller.
    name : str
        The new model's name.
    rows_checked : bool
        Sparse ``P`` only: its rows are rows of probabilities by construction (the
        Dirichlet draws: every value a positive normal float, every row normalised), so the
        pass that checks them again is skipped; the shape checks are still made.

    Returns
    -------
    MDP
    """
    mask = mdp.mask
    new = copy.copy(mdp)  # the other arrays are read-only: sharing them is safe
    if isinstance(P, Transitions):
        if (P.n_states, P.n_actions) != (mdp.n_states, mdp.n_actions):
            raise InputError(f"must have {mdp.n_states} x {mdp.n_actions} rows, got "
                             f"{P.n_states} x {P.n_actions}", field="P")
        if not mask.all() and (np.diff(P.indptr)[~mask.reshape(-1)] > 0).any():
            raise InputError("unavailable actions must have empty rows", field="P")
        if not rows_checked:
            check_transitions(P, mask, mdp.state_names, mdp.action_names)
        object.__setattr__(new, "_transitions", P)
        object.__setattr__(new, "_dense", None)
        object.__setattr__(new, "_nnz", P.nnz)
        object.__setattr__(new, "_is_dense", uses_dense(P.n_states, P.n_actions, P.nnz))
        if mdp.annotations is not None and not (
                P.indptr is mdp.transitions.indptr or np.array_equal(P.indptr,
                                                                     mdp.transitions.indptr)):
            object.__setattr__(new, "annotations", mdp.annotations.without_transition_rewards())
    else:
        shape = (mdp.n_states, mdp.n_actions, mdp.n_states)
        if P.shape != shape or P.dtype != np.float64:
            raise InputError(f"must be a float64 array of shape {shape}, got {P.dtype} "
                             f"{P.shape}", field="P")
        if not mask.all() and (P[~mask] != 0).any():
            raise InputError("unavailable actions must have all-zero rows", field="P")
        _check_rows(P, mask, mdp.state_names, mdp.action_names)
        P.setflags(write=False)
        nnz = int(np.count_nonzero(P))
        keep = uses_dense(shape[0], shape[1], nnz)
        new_t = None if keep else Transitions.from_dense(P)
        object.__setattr__(new, "_transitions", new_t)
        object.__setattr__(new, "_dense", P if keep else None)
        object.__setattr__(new, "_is_dense", keep)
        object.__setattr__(new, "_nnz", nnz)
        if mdp.annotations is not None and not np.array_equal(new.transitions.indptr,
                                                              mdp.transitions.indptr):
            object.__setattr__(new, "annotations", mdp.annotations.without_transition_rewards())
    object.__setattr__(new, "name", str(name))
    return new
