"""The Markov decision process model: dense arrays plus names.

Shapes follow the formats page: ``P`` is (S, A, S), ``R`` is (S, A), ``R_T`` is (S,),
``mask`` is (S, A) and marks the actions available in each state. ``A`` is the largest
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
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError

__all__ = ["MDP", "ROW_SUM_TOL", "MAX_HORIZON", "MAX_VALUE", "with_transitions"]

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


@dataclass(frozen=True, eq=False)
class MDP:
    """A finite MDP (finite horizon ``T`` or infinite discounted).

    Construction validates everything and raises :class:`core.common.errors.InputError`
    naming the state, the action and the problem.
    """

    P: np.ndarray
    R: np.ndarray
    # None is accepted for R_T (zeros) and mask (every action available); __post_init__
    # replaces it with an array, so after construction both are always arrays.
    R_T: np.ndarray = None  # type: ignore[assignment]
    mask: np.ndarray = None  # type: ignore[assignment]
    horizon: int | None = 1
    discount: float = 1.0
    initial_state: int = 0
    state_names: tuple[str, ...] = ()
    action_names: tuple[tuple[str, ...], ...] = ()
    name: str = ""
    layout: Mapping[str, tuple[float, float]] | None = field(default=None)

    def __post_init__(self) -> None:
        P = np.asarray(self.P, dtype=np.float64)
        if P.ndim != 3 or P.shape[0] != P.shape[2] or P.shape[0] < 1 or P.shape[1] < 1:
            raise InputError(f"must have shape (S, A, S), got {P.shape}", field="P")
        S, A, _ = P.shape
        R = np.asarray(self.R, dtype=np.float64)
        if R.shape != (S, A):
            raise InputError(f"must have shape {(S, A)}, got {R.shape}", field="R")
        R_T = np.zeros(S) if self.R_T is None else np.asarray(self.R_T, dtype=np.float64)
        if R_T.shape != (S,):
            raise InputError(f"must have shape {(S,)}, got {R_T.shape}", field="R_T")
        mask = np.ones((S, A), dtype=bool) if self.mask is None else np.asarray(self.mask)
        if mask.shape != (S, A) or mask.dtype != bool:
            raise InputError(f"must be a bool array of shape {(S, A)}", field="mask")
        names = tuple(str(s) for s in self.state_names) or tuple(f"s{i}" for i in range(S))
        if len(names) != S:
            raise InputError(f"has {len(names)} names for {S} states", field="state_names")
        if len(set(names)) != S:
            raise InputError("state names must be unique", field="state_names")
        if self.action_names:
            anames = tuple(tuple(str(a) for a in row) for row in self.action_names)
            if len(anames) != S or any(len(row) != A for row in anames):
                raise InputError(f"must be {S} rows of {A} names", field="action_names")
        else:
            anames = tuple(tuple(f"a{j}" for j in range(A)) for _ in range(S))
        object.__setattr__(self, "state_names", names)
        object.__setattr__(self, "action_names", anames)
        # horizon and discount
        h = self.horizon
        if h is not None:
            if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1:
                raise InputError(f"must be an integer >= 1 or null (infinite), got {h!r}",
                                 field="horizon")
            h = int(h)
            if h > MAX_HORIZON:
                raise InputError(f"must be at most {MAX_HORIZON:,}, got {h:,}", field="horizon")
            from core.common.memory import check_memory

            # values and policy of every stage (Algorithm 1, the bounds)
            check_memory(3.0 * (h + 1) * S * 8, "horizon",
                         detail=f"horizon {h:,} x {S:,} states")
        object.__setattr__(self, "horizon", h)
        try:
            d = float(self.discount)
        except (TypeError, ValueError):
            raise InputError(f"must be a number, got {self.discount!r}", field="discount") from None
        if h is None and not 0.0 < d < 1.0:
            raise InputError(f"must satisfy 0 < discount < 1 for an infinite horizon, got {d}",
                             field="discount")
        if h is not None and not 0.0 < d <= 1.0:
            raise InputError(f"must satisfy 0 < discount <= 1, got {d}", field="discount")
        object.__setattr__(self, "discount", d)
        s0 = self.initial_state
        if isinstance(s0, bool) or not isinstance(s0, (int, np.integer)) or not 0 <= s0 < S:
            raise InputError(f"must be a state index in [0, {S}), got {s0!r}",
                             field="initial_state")
        object.__setattr__(self, "initial_state", int(s0))
        # per-state checks, with names in every message
        for s in range(S):
            if not mask[s].any():
                raise InputError(f"state {names[s]!r} has no actions", field="transitions")
        for arr, fname in ((R, "rewards"), (R_T, "terminal_rewards")):
            bad = ~np.isfinite(arr)
            if bad.any():
                idx = np.argwhere(bad)[0]
                where = names[idx[0]] + (f"/{anames[idx[0]][idx[1]]}" if arr.ndim == 2 else "")
                raise InputError(f"{where}: reward is {arr[tuple(idx)]}, must be finite",
                                 field=fname)
        stages = float(h) if h is not None else 1.0 / (1.0 - d)
        scale = stages * float(np.abs(R).max(initial=0.0)) + float(np.abs(R_T).max(initial=0.0))
        if not scale < MAX_VALUE:
            raise InputError(f"rewards up to {np.abs(R).max(initial=0.0):.3g} over "
                             f"{stages:.3g} stages make values overflow (|value| must stay "
                             f"below {MAX_VALUE:g})", field="rewards")
        _check_rows(P, mask, names, anames)
        P = np.where(mask[:, :, None], P, 0.0)
        object.__setattr__(self, "P", _readonly(P))
        object.__setattr__(self, "R", _readonly(np.where(mask, R, 0.0)))
        object.__setattr__(self, "R_T", _readonly(R_T))
        object.__setattr__(self, "mask", _readonly(mask))
        if self.layout is not None:
            object.__setattr__(self, "layout", {str(k): (float(v[0]), float(v[1]))
                                                for k, v in dict(self.layout).items()})

    # ------------------------------------------------------------------ properties
    @property
    def n_states(self) -> int:
        return int(self.P.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.P.shape[1])

    @property
    def is_finite(self) -> bool:
        return self.horizon is not None

    def available_actions(self, s: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.mask[s])]

    def replace(self, **changes: Any) -> "MDP":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MDP):
            return NotImplemented
        return (
            np.array_equal(self.P, other.P) and np.array_equal(self.R, other.R)
            and np.array_equal(self.R_T, other.R_T) and np.array_equal(self.mask, other.mask)
            and self.horizon == other.horizon and self.discount == other.discount
            and self.initial_state == other.initial_state
            and self.state_names == other.state_names
            and self._visible_action_names() == other._visible_action_names()
            and self.name == other.name
        )

    __hash__ = None  # type: ignore[assignment]

    def _visible_action_names(self) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(n for n, ok in zip(row, m) if ok)
                     for row, m in zip(self.action_names, self.mask))


def _check_rows(P: np.ndarray, mask: np.ndarray, names: tuple[str, ...],
                anames: tuple[tuple[str, ...], ...]) -> None:
    """Every available row finite, non-negative and summing to 1 (checked a block of states
    at a time, so no copy of P is made)."""
    S = P.shape[0]
    step = max(1, (1 << 17) // max(1, P.shape[1] * P.shape[2]))
    for s0 in range(0, S, step):
        _check_block(P[s0:s0 + step], mask[s0:s0 + step], s0, names, anames)


def _check_block(P: np.ndarray, mask: np.ndarray, offset: int, names: tuple[str, ...],
                 anames: tuple[tuple[str, ...], ...]) -> None:
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


def with_transitions(mdp: MDP, P: np.ndarray, *, name: str) -> MDP:
    """``mdp`` with its transitions replaced by ``P``, which the caller hands over.

    The same checks as the constructor (shape, rows of probabilities on the available
    actions), but ``P`` is not copied: it becomes read-only and belongs to the new model.
    The privatisation pipeline uses it so that a private model of a large MDP costs one
    array of the size of P, not three.

    Parameters
    ----------
    mdp : MDP
        The model whose rewards, horizon, names and mask are kept.
    P : numpy.ndarray
        (S, A, S) float64 transitions, zero on unavailable actions; not used afterwards by
        the caller.
    name : str
        The new model's name.

    Returns
    -------
    MDP
    """
    if P.shape != mdp.P.shape or P.dtype != np.float64:
        raise InputError(f"must be a float64 array of shape {mdp.P.shape}, got {P.dtype} "
                         f"{P.shape}", field="P")
    mask = mdp.mask
    if not mask.all() and (P[~mask] != 0).any():
        raise InputError("unavailable actions must have all-zero rows", field="P")
    _check_rows(P, mask, mdp.state_names, mdp.action_names)
    new = copy.copy(mdp)  # the other arrays are read-only: sharing them is safe
    P.setflags(write=False)
    object.__setattr__(new, "P", P)
    object.__setattr__(new, "name", str(name))
    return new
