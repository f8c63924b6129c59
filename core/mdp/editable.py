"""The editable MDP of a project: stable ids, labels, positions, and a model that may be invalid.

Size: one class, the editable model, with its edits and its problem list; the methods share the
draft representation (ids, labels, positions) that the window edits.

A drawing in progress is legitimately invalid (a new action has no transitions yet, a row
sums to 0.7 while the user types). :class:`MdpModel` holds such drafts; :meth:`problems`
lists what is wrong, naming the state and action, and :meth:`to_mdp` turns a valid model
into the frozen :class:`core.mdp.model.MDP` that analyses use (and refuses an invalid one, saying
why). Arrays are dense — ``P`` (S, A, S), ``R`` (S, A), ``R_T`` (S,) — with ``A`` the
largest number of actions of any state, so 2,000-state models stay cheap to validate.

Only the project document mutates a model (inside undoable commands); every method that
changes it bumps :attr:`version`, which lets :class:`core.project.model.MdpEntry` cache the
frozen MDP.

Examples
--------
>>> m = MdpModel(name="demo")
>>> a, b = m.add_state("a", (0, 0)), m.add_state("b", (100, 0))
>>> go = m.add_action(a, "go")
>>> [p.message for p in m.errors()][:2]
["state 'a', action 'go': probabilities sum to 0, not 1 (deficit 1)", "state 'b' has no actions"]
>>> m.set_probability(go, b, 1.0); stay = m.add_action(b, "stay"); m.set_probability(stay, b, 1.0)
>>> m.is_valid, m.to_mdp().P[0, 0].tolist()
(True, [0.0, 1.0])
"""

from __future__ import annotations

import copy as _copy
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.mdp.model import MDP, ROW_SUM_TOL
from core.mdp.names import ActionNames, Names
from core.mdp.rows import SparseRows
from core.mdp.sparse import Transitions, uses_dense

__all__ = ["Problem", "MdpModel", "digest_of", "DIGEST_DENSE_MAX"]

#: Models with at most this many (S·A·S) entries are hashed as their dense array (what
#: every version before sparse models did); larger ones as their CSR arrays.
DIGEST_DENSE_MAX = 1 << 26


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a model. ``severity`` is ``"error"`` (blocks analyses) or
    ``"warning"``; ``state``/``action`` are ids; ``deficit`` is 1 − row sum for row errors."""

    severity: str
    message: str
    field: str = ""
    state: str | None = None
    action: str | None = None
    deficit: float | None = None


def _new_id(prefix: str, taken: set[str]) -> str:
    i = len(taken) + 1
    while f"{prefix}-{i}" in taken:
        i += 1
    return f"{prefix}-{i}"


#: The name lists a model opened from a large MDP makes only when something reads them.
_LAZY = ("state_ids", "state_labels", "action_ids", "action_labels")


class _Opened:
    """The names of a model made by :meth:`MdpModel.from_mdp` from a large MDP, kept in
    the MDP's compact form (a :class:`Names`, a count and a row of name codes per state):
    the four name lists are made from it the first time something reads them, so opening
    a million-state model builds no million-string lists. Read-only and shared by copies.
    """

    def __init__(self, names: Names, counts: np.ndarray, codes: np.ndarray,
                 vocabulary: tuple[str, ...]) -> None:
        self.names = names
        self.counts = counts  # (S,) actions per state
        self.codes = codes  # (S, >= max count) codes of the available actions, first
        self.vocabulary = vocabulary
        self.starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        S = len(counts)
        #: every state has the same actions (one row of codes and counts repeated)
        self.shared = bool(S and (counts == counts[0]).all() and (codes == codes[0]).all())

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Opened":
        return self

    def make(self, name: str) -> list[Any]:
        """One of the four lists (:data:`_LAZY`), as :meth:`MdpModel.from_mdp` made them."""
        S = len(self.names)
        if name == "state_ids":
            return [f"st-{i + 1}" for i in range(S)]
        if name == "state_labels":
            return list(self.names)
        per_state = self.counts.tolist()
        if name == "action_ids":
            return _split([f"ac-{i + 1}" for i in range(int(self.starts[-1]))], per_state)
        words = np.asarray(list(self.vocabulary) + [""], dtype=object)[self.codes]
        if S and (self.counts == self.codes.shape[1]).all():
            full: list[Any] = words.tolist()
            return full
        avail = np.arange(self.codes.shape[1])[None, :] < self.counts[:, None]
        return _split(words[avail].tolist(), per_state)

    def state_index(self, state_id: Any) -> int | None:
        """The index of ``st-<i+1>`` (None for anything else)."""
        i = _numbered(state_id, "st-")
        return i if i is not None and i < len(self.names) else None

    def action_index(self, action_id: Any) -> tuple[int, int] | None:
        """(state, position) of ``ac-<k+1>`` (None for anything else)."""
        k = _numbered(action_id, "ac-")
        if k is None or k >= int(self.starts[-1]):
            return None
        s = int(np.searchsorted(self.starts, k, side="right")) - 1
        return s, k - int(self.starts[s])

    def label_flags(self) -> np.ndarray:
        """(S,) bool: the state has an action without a name or two with the same name."""
        vocab = list(self.vocabulary) + [""]
        first: dict[str, int] = {}
        canon = np.array([first.setdefault(v, i) for i, v in enumerate(vocab)], np.int64)
        blank = np.array([not v.strip() for v in vocab], dtype=bool)
        codes, counts = self.codes, self.counts
        S, width = codes.shape
        if self.shared:
            codes, counts = codes[:1], counts[:1]  # one row shared by every state
        avail = np.arange(width)[None, :] < counts[:, None]
        bad = (blank[codes] & avail).any(axis=1)
        c = np.where(avail, canon[codes], -1 - np.arange(width)[None, :])
        if width <= 8:  # pairs of columns: cheaper than sorting every row
            for i in range(width):
                for j in range(i + 1, width):
                    bad |= c[:, i] == c[:, j]
        else:
            c = np.sort(c, axis=1)
            bad |= (c[:, 1:] == c[:, :-1]).any(axis=1)
        return np.broadcast_to(bad, (S,)) if bad.shape[0] != S else bad

    def names_ok(self) -> bool:
        """True when no state name is empty (they are unique: the MDP checked that)."""
        return self.names.is_generated or all(map(str.strip, self.names))


def _numbered(item_id: Any, prefix: str) -> int | None:
    """i for ``prefix + str(i + 1)`` spelled the way the ids are made, else None."""
    if not isinstance(item_id, str) or not item_id.startswith(prefix):
        return None
    digits = item_id[len(prefix):]
    if not (digits.isascii() and digits.isdigit()) or digits.startswith("0"):
        return None
    return int(digits) - 1


def padded_action_names(codes: np.ndarray, vocabulary: "tuple[str, ...] | list[str]",
                        counts: np.ndarray, *, shared: bool | None = None) -> ActionNames:
    """The action names :meth:`MdpModel.to_mdp` hands the MDP: each state's available
    actions first, "" after them, the vocabulary in order of first appearance (what
    :meth:`ActionNames.from_rows` makes of the padded rows), computed on the codes.

    Parameters
    ----------
    codes : numpy.ndarray
        (S, A) codes into ``vocabulary``; only the first ``counts[s]`` of row s are read.
    vocabulary : sequence of str
        The names the codes point to (a name may appear twice).
    counts : numpy.ndarray
        (S,) the number of actions of each state.
    shared : bool, optional
        Whether every row of ``codes`` is the same (found here when not given).

    Returns
    -------
    ActionNames
    """
    S, width = codes.shape
    ext = list(vocabulary) + [""]
    first: dict[str, int] = {}
    canon = np.array([first.setdefault(v, i) for i, v in enumerate(ext)], dtype=np.int64)
    full = bool((counts == width).all())
    shared = S > 0 and full and (bool((codes == codes[0]).all()) if shared is None else shared)
    # first appearance in row-major order (row 0 alone when every row is the same)
    if shared:
        grid = canon[codes[:1]]
    else:
        avail = np.arange(width)[None, :] < counts[:, None]
        grid = canon[codes if full else np.where(avail, codes, len(ext) - 1)]
    scan = grid.reshape(-1)
    pos = np.full(len(ext), scan.size, dtype=np.int64)
    np.minimum.at(pos, scan, np.arange(scan.size, dtype=np.int64))
    present = np.flatnonzero(pos < scan.size)
    order = present[np.argsort(pos[present], kind="stable")]
    lut = np.zeros(len(ext), dtype=np.int32)
    lut[order] = np.arange(order.size, dtype=np.int32)
    words = [ext[i] for i in order.tolist()]
    if shared:
        row = lut[grid[0]]
        if np.array_equal(row, codes[0]) and tuple(words) == tuple(vocabulary):
            return ActionNames(codes, words)  # already in that form: the codes are shared
        return ActionNames(np.broadcast_to(row, (S, width)), words)
    return ActionNames(lut[grid], words)


@dataclass(eq=False)
class MdpModel:
    """An editable MDP (see the module docstring)."""

    name: str = "Untitled MDP"
    state_ids: list[str] = field(default_factory=list)
    state_labels: list[str] = field(default_factory=list)
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    action_ids: list[list[str]] = field(default_factory=list)
    action_labels: list[list[str]] = field(default_factory=list)
    # dense (S, A, S) for the models people draw; SparseRows for large ones (imported)
    P: "np.ndarray | SparseRows" = field(default_factory=lambda: np.zeros((0, 0, 0)))
    R: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    R_T: np.ndarray = field(default_factory=lambda: np.zeros(0))
    horizon: int | None = 3
    discount: float = 1.0
    initial_state: str | None = None
    version: int = 0

    # ------------------------------------------------------------------ queries
    def __getattr__(self, name: str) -> Any:
        # only for attributes not set: the name lists of a model opened from a large MDP,
        # made on first use (then stored, so later reads are plain attribute reads)
        opened = self.__dict__.get("_opened") if name in _LAZY else None
        if opened is None:
            raise AttributeError(name)
        value = opened.make(name)
        self.__dict__[name] = value
        return value

    def _lazy(self, name: str) -> "_Opened | None":
        """The compact names when the list ``name`` has not been made yet, else None."""
        return None if name in self.__dict__ else self.__dict__.get("_opened")

    def _state_id(self, s: int) -> str:
        return f"st-{s + 1}" if self._lazy("state_ids") else self.state_ids[s]

    def _state_label(self, s: int) -> str:
        opened = self._lazy("state_labels")
        return opened.names[s] if opened is not None else self.state_labels[s]

    def _actions(self, s: int) -> tuple[list[str], list[str]]:
        """(ids, labels) of the actions of state ``s`` (the lists are not made for this)."""
        opened = self._lazy("action_ids")
        ids = [f"ac-{k + 1}" for k in range(int(opened.starts[s]), int(opened.starts[s + 1]))
               ] if opened is not None else self.action_ids[s]
        opened = self._lazy("action_labels")
        if opened is None:
            return ids, self.action_labels[s]
        row = opened.codes[s, :int(opened.counts[s])].tolist()
        return ids, [opened.vocabulary[c] for c in row]

    def _has_state(self, state_id: Any) -> bool:
        try:
            self.state_index(state_id)
        except InputError:
            return False
        return True

    @property
    def n_states(self) -> int:
        opened = self._lazy("state_ids")
        return len(opened.names) if opened is not None else len(self.state_ids)

    @property
    def width(self) -> int:
        """A: the action dimension of the arrays."""
        return int(self.P.shape[1]) if self.P.ndim == 3 else 0

    def state_index(self, state_id: str) -> int:
        opened = self._lazy("state_ids")
        if opened is not None:
            i = opened.state_index(state_id)
            if i is None:
                raise InputError(f"no state with id {state_id!r}", field="state")
            return i
        # an index of the ids, checked on every use and rebuilt when the lists changed, so
        # a lookup costs O(1) on a million states instead of a scan
        cache: dict[str, int] | None = self.__dict__.get("_state_pos")
        i = cache.get(state_id) if cache is not None else None
        if i is None or i >= len(self.state_ids) or self.state_ids[i] != state_id:
            cache = {sid: k for k, sid in enumerate(self.state_ids)}
            self.__dict__["_state_pos"] = cache
            i = cache.get(state_id)
            if i is None:
                raise InputError(f"no state with id {state_id!r}", field="state")
        return i

    def _action_positions(self, rebuild: bool = False) -> dict[str, tuple[int, int]]:
        cache = self.__dict__.get("_action_pos")
        if cache is None or rebuild:
            cache = {aid: (s, j) for s, ids in enumerate(self.action_ids)
                     for j, aid in enumerate(ids)}
            self.__dict__["_action_pos"] = cache
        return cache

    def action_index(self, action_id: str) -> tuple[int, int]:
        opened = self._lazy("action_ids")
        if opened is not None:
            at = opened.action_index(action_id)
            if at is None:
                raise InputError(f"no action with id {action_id!r}", field="action")
            return at
        at = self._action_positions().get(action_id)
        if at is not None:
            s, j = at
            if s < len(self.action_ids) and j < len(self.action_ids[s]) \
                    and self.action_ids[s][j] == action_id:
                return at
        at = self._action_positions(rebuild=True).get(action_id)
        if at is None:
            raise InputError(f"no action with id {action_id!r}", field="action")
        return at

    def has_action(self, action_id: str) -> bool:
        """True when ``action_id`` is an action of the model (O(1))."""
        try:
            self.action_index(action_id)
        except InputError:
            return False
        return True

    def state_of(self, action_id: str) -> str:
        return self._state_id(self.action_index(action_id)[0])

    def label(self, item_id: str) -> str:
        """The label of a state or action id."""
        if self._has_state(item_id):
            return self._state_label(self.state_index(item_id))
        s, j = self.action_index(item_id)
        return self._actions(s)[1][j]

    def all_action_ids(self) -> list[str]:
        return [a for ids in self.action_ids for a in ids]

    def row(self, action_id: str) -> dict[str, float]:
        """The non-zero next-state probabilities of an action, by state id."""
        s, j = self.action_index(action_id)
        cols, vals = self.row_entries(s, j)
        return {self._state_id(t): float(p) for t, p in zip(cols.tolist(), vals.tolist())}

    def row_entries(self, s: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(next states, probabilities) of row (s, j): its non-zero entries, in state order."""
        if isinstance(self.P, SparseRows):
            return self.P.row(s, j)
        row = self.P[s, j]
        cols = np.flatnonzero(row)
        return cols, row[cols]

    @property
    def is_sparse(self) -> bool:
        """True for a large model kept as sparse rows (no dense array exists)."""
        return isinstance(self.P, SparseRows)

    def dense_P(self) -> np.ndarray:
        """The dense (S, A, S) transitions (a copy for a sparse model; refused with its size
        when it cannot fit)."""
        return self.P.dense() if isinstance(self.P, SparseRows) else self.P

    def reward(self, action_id: str) -> float:
        s, j = self.action_index(action_id)
        return float(self.R[s, j])

    def terminal_reward(self, state_id: str) -> float:
        return float(self.R_T[self.state_index(state_id)])

    def position(self, state_id: str) -> tuple[float, float] | None:
        x, y = self.positions[self.state_index(state_id)]
        return None if math.isnan(x) or math.isnan(y) else (float(x), float(y))

    def mask(self) -> np.ndarray:
        return np.arange(self.width)[None, :] < self._action_counts()[:, None]

    def _action_counts(self) -> np.ndarray:
        """(S,) the number of actions of each state."""
        opened = self._lazy("action_ids")
        if opened is not None:
            return opened.counts.copy()
        return np.fromiter(map(len, self.action_ids), dtype=np.int64, count=self.n_states)

    def row_sums(self) -> np.ndarray:
        """(S, A) row sums (0 where there is no action)."""
        if isinstance(self.P, SparseRows):
            return self.P.row_sums()
        return self.P.sum(axis=2) if self.P.size else np.zeros((self.n_states, self.width))

    # ------------------------------------------------------------------ validation
    def problems(self) -> list[Problem]:
        """Everything that stops :meth:`to_mdp`, then warnings, in state order (computed once
        per :attr:`version`)."""
        cached = self.__dict__.get("_problems_cache")
        if cached is not None and cached[0] == self.version:
            return list(cached[1])
        out = self._problems()
        self.__dict__["_problems_cache"] = (self.version, tuple(out))
        return out

    def _problems(self) -> list[Problem]:
        out: list[Problem] = []
        S = self.n_states
        if S == 0:
            return [Problem("error", "the model has no states: add one to start", "states")]
        out += self._state_name_problems()
        if self.initial_state is None or not self._has_state(self.initial_state):
            out.append(Problem("error", "no initial state is set", "initial_state"))
        if self.horizon is None and not 0.0 < self.discount < 1.0:
            out.append(Problem("error", f"an infinite horizon needs 0 < discount < 1 (is "
                               f"{self.discount:g})", "discount"))
        elif self.horizon is not None and not 0.0 < self.discount <= 1.0:
            out.append(Problem("error", f"discount must lie in (0, 1] (is {self.discount:g})",
                               "discount"))
        if self.horizon is not None and self.horizon < 1:
            out.append(Problem("error", f"the horizon must be >= 1 (is {self.horizon})",
                               "horizon"))
        if self._pristine() and not self._label_flags(self._action_counts()).any():
            return out  # the rows, rewards and actions of an MDP validated when it was read
        sums = self.row_sums()
        if isinstance(self.P, SparseRows):
            nonfinite, negative = self.P.bad_rows()
            finite = ~nonfinite
            return out + self._row_problems(sums, finite, negative)
        finite = np.isfinite(self.P).all(axis=2) if self.P.size else np.ones_like(sums, bool)
        negative = np.asarray((self.P < 0).any(axis=2) if self.P.size
                              else np.zeros_like(sums, bool))
        for s in range(self.n_states):
            out += self._state_problems(s, sums, finite, negative)
        return out

    def _state_name_problems(self) -> list[Problem]:
        """An empty state name, or two states with the same name (in state order)."""
        opened = self._lazy("state_labels")
        if opened is not None and opened.names_ok():
            return []
        labels = self.state_labels
        # the per-state loop only when some name is empty or repeated (checked in C first)
        if len(set(labels)) == len(labels) and all(map(str.strip, labels)):
            return []
        out: list[Problem] = []
        seen: dict[str, str] = {}
        for sid, lab in zip(self.state_ids, labels):
            if not lab.strip():
                out.append(Problem("error", f"state {sid!r} has an empty name", "states", sid))
            elif lab in seen:
                out.append(Problem("error", f"two states are named {lab!r}", "states", sid))
            seen.setdefault(lab, sid)
        return out

    def _row_problems(self, sums: np.ndarray, finite: np.ndarray, negative: np.ndarray
                      ) -> list[Problem]:
        """The per-state and per-action part of :meth:`problems` for a large model: the
        checks run on whole arrays and only the flagged states are visited (same messages,
        same order)."""
        out: list[Problem] = []
        S = self.n_states
        counts = self._action_counts()
        width = sums.shape[1] if sums.ndim == 2 else 0
        avail = np.arange(width)[None, :] < counts[:, None]
        row_bad = avail & (~finite | negative | (np.abs(sums - 1.0) > ROW_SUM_TOL))
        rew_bad = avail & ~np.isfinite(self.R) if width else np.zeros((S, 0), dtype=bool)
        flagged = set(np.flatnonzero(counts == 0).tolist())
        flagged.update(np.flatnonzero(row_bad.any(axis=1) | rew_bad.any(axis=1)).tolist())
        flagged.update(np.flatnonzero(~np.isfinite(self.R_T)).tolist())
        flagged.update(np.flatnonzero(self._label_flags(counts)).tolist())
        for s in sorted(flagged):
            out += self._state_problems(s, sums, finite, negative)
        return out

    def _label_flags(self, counts: np.ndarray) -> np.ndarray:
        """(S,) bool: the state has an action without a name or two with the same name
        (whole-array checks on the names' codes)."""
        opened = self._lazy("action_labels")
        if opened is not None:
            return opened.label_flags()
        S = self.n_states
        flat = list(chain.from_iterable(self.action_labels))
        vocab = list(dict.fromkeys(flat))
        code = {v: i for i, v in enumerate(vocab)}
        codes = np.fromiter(map(code.__getitem__, flat), dtype=np.int64, count=len(flat))
        owner = np.repeat(np.arange(S, dtype=np.int64), counts)
        bad = np.zeros(S, dtype=bool)
        blank = np.fromiter((not v.strip() for v in vocab), dtype=bool, count=len(vocab))
        bad[owner[blank[codes]]] = True
        key = np.sort(owner * max(1, len(vocab)) + codes)
        bad[key[1:][key[1:] == key[:-1]] // max(1, len(vocab))] = True
        return bad

    def _state_problems(self, s: int, sums: np.ndarray, finite: np.ndarray,
                        negative: np.ndarray) -> list[Problem]:
        """The problems of state ``s`` (its actions, their rows and rewards, its terminal
        reward), in the order :meth:`problems` reports them."""
        out: list[Problem] = []
        label = self._state_label(s)
        sid = self._state_id(s)
        acts, alabels = self._actions(s)
        if not acts:
            out.append(Problem("error", f"state {label!r} has no actions", "transitions",
                               sid))
        if len(set(alabels)) != len(alabels):
            out.append(Problem("error", f"state {label!r} has two actions with the same "
                               "name", "actions", sid))
        for j, aid in enumerate(acts):
            where = f"state {label!r}, action {alabels[j]!r}"
            if not alabels[j].strip():
                out.append(Problem("error", f"{where}: the action has no name", "actions",
                                   sid, aid))
            if not finite[s, j]:
                out.append(Problem("error", f"{where}: a probability is not finite",
                                   "transitions", sid, aid))
            elif negative[s, j]:
                out.append(Problem("error", f"{where}: a probability is negative",
                                   "transitions", sid, aid))
            elif abs(sums[s, j] - 1.0) > ROW_SUM_TOL:
                d = 1.0 - float(sums[s, j])
                out.append(Problem("error", f"{where}: probabilities sum to "
                                   f"{float(sums[s, j]):.6g}, not 1 (deficit {d:.3g})",
                                   "transitions", sid, aid, d))
            if not math.isfinite(self.R[s, j]):
                out.append(Problem("error", f"{where}: the reward is not finite", "rewards",
                                   sid, aid))
        if not math.isfinite(self.R_T[s]):
            out.append(Problem("error", f"state {label!r}: the terminal reward is not "
                               "finite", "terminal_rewards", sid))
        return out

    def errors(self) -> list[Problem]:
        return [p for p in self.problems() if p.severity == "error"]

    @property
    def is_valid(self) -> bool:
        return not self.errors()

    def summary(self, problems: list[Problem] | None = None) -> str:
        """One line for a status bar: valid, or how many problems and the first one.

        ``problems`` (a result of :meth:`problems` for the current version) saves
        recomputing them.
        """
        errs = [p for p in (self.problems() if problems is None else problems)
                if p.severity == "error"]
        n_pairs = int(self._action_counts().sum())
        if not errs:
            return f"model valid ✓ ({self.n_states} states, {n_pairs} state–action pairs)"
        more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
        return f"model invalid: {errs[0].message}{more}"

    # ------------------------------------------------------------------ conversion
    def to_mdp(self) -> MDP:
        """The frozen, validated MDP (InputError naming the first problem if invalid)."""
        errs = self.errors()
        if errs:
            raise InputError(errs[0].message + (f" (+{len(errs) - 1} more problems)"
                                                if len(errs) > 1 else ""), field=errs[0].field)
        A = self.width
        opened = self._lazy("action_labels")
        names: Any
        if opened is not None:  # the codes of the model's MDP: no list of names is made
            names = padded_action_names(opened.codes[:, :A], opened.vocabulary,
                                        opened.counts, shared=opened.shared or None)
        else:
            labels_of = self.action_labels
            names = (labels_of if (self._action_counts() == A).all()
                     else [lab + [""] * (A - len(lab)) for lab in labels_of])
        placed = np.flatnonzero(~np.isnan(self.positions).any(axis=1)) if len(
            self.positions) else np.zeros(0, np.int64)
        layout = {self._state_label(s): (x, y) for s, (x, y) in zip(
            placed.tolist(), self.positions[placed].tolist())}
        unchanged = self._unchanged_mdp(names, placed.size == 0)
        if unchanged is not None:
            return unchanged
        opened = self._lazy("state_labels")
        P: "np.ndarray | Transitions" = self.P.to_transitions() if isinstance(
            self.P, SparseRows) else self.P
        return MDP(P=P, R=self.R, R_T=self.R_T, mask=self.mask(), horizon=self.horizon,
                   discount=self.discount,
                   initial_state=self.state_index(self.initial_state),  # type: ignore[arg-type]
                   state_names=opened.names if opened is not None else tuple(
                       self.state_labels), action_names=names, name=self.name,
                   layout=layout or None)

    def _pristine(self) -> MDP | None:
        """The MDP :meth:`from_mdp` read when the transitions, rewards and settings are still
        its own (nothing changed since), else None."""
        made = self.__dict__.get("_from")
        if made is None or made[0] != self.version:
            return None
        mdp: MDP = made[1]
        seen = self.__dict__.get("_pristine_at")
        if seen is not None and seen == (self.version, id(self.P), id(self.R), id(self.R_T)):
            return mdp  # (checked at this version already)
        P = self.P
        if not (isinstance(P, SparseRows) and P.base is mdp.transitions and not P.edits
                and self.horizon == mdp.horizon and self.discount == mdp.discount
                and self.initial_state == self._state_id(mdp.initial_state)
                and np.array_equal(self.R, mdp.R) and np.array_equal(self.R_T, mdp.R_T)):
            return None
        self.__dict__["_pristine_at"] = (self.version, id(P), id(self.R), id(self.R_T))
        return mdp

    def _unchanged_mdp(self, names: Any, unplaced: bool) -> MDP | None:
        """The MDP :meth:`from_mdp` read, as :meth:`to_mdp` would build it again (the same
        arrays, the names as the model gives them, no layout or annotations), when nothing
        was changed since: it was validated when it was made. None otherwise."""
        mdp = self._pristine() if unplaced else None
        if mdp is None or self.name != mdp.name:
            return None
        opened = self._lazy("state_labels")
        state_names = opened.names if opened is not None else Names(self.state_labels)
        if state_names != mdp.state_names:
            return None
        out = _copy.copy(mdp)  # every array of an MDP is read-only: sharing them is safe
        object.__setattr__(out, "state_names", mdp.state_names)
        object.__setattr__(out, "action_names", ActionNames.of(names))
        object.__setattr__(out, "layout", None)
        object.__setattr__(out, "annotations", None)
        return out

    @classmethod
    def from_mdp(cls, mdp: MDP) -> "MdpModel":
        if not mdp.is_dense:
            return cls._from_sparse_mdp(mdp)
        S = mdp.n_states
        sids = [f"st-{i + 1}" for i in range(S)]
        aids: list[list[str]] = []
        alabels: list[list[str]] = []
        n = 0
        keep = np.zeros((S, mdp.n_actions), dtype=bool)
        for s in range(S):
            avail = mdp.available_actions(s)
            aids.append([f"ac-{n + i + 1}" for i in range(len(avail))])
            alabels.append([mdp.action_names[s][a] for a in avail])
            n += len(avail)
            keep[s, :len(avail)] = True
        A = max(len(a) for a in aids)
        P = np.zeros((S, A, S))
        R = np.zeros((S, A))
        for s in range(S):
            avail = mdp.available_actions(s)  # compacted: available actions first, in order
            P[s, :len(avail)] = mdp.P[s, avail]
            R[s, :len(avail)] = mdp.R[s, avail]
        pos = np.full((S, 2), np.nan)
        for s, name in enumerate(mdp.state_names):
            if mdp.layout and name in mdp.layout:
                pos[s] = mdp.layout[name]
        return cls(name=mdp.name, state_ids=sids, state_labels=list(mdp.state_names),
                   positions=pos, action_ids=aids, action_labels=alabels, P=P, R=R,
                   R_T=np.array(mdp.R_T, dtype=float), horizon=mdp.horizon,
                   discount=mdp.discount, initial_state=sids[mdp.initial_state])

    @classmethod
    def _from_sparse_mdp(cls, mdp: MDP) -> "MdpModel":
        """:meth:`from_mdp` for a large model: its CSR rows are shared, not copied, when
        every state's available actions come first (as in an imported model)."""
        S, A = mdp.n_states, mdp.n_actions
        mask = mdp.mask
        counts = mask.sum(axis=1)
        prefix = np.arange(A)[None, :] < counts[:, None]
        t = mdp.transitions
        R = np.array(mdp.R, dtype=float)
        codes = mdp.action_names.codes
        reordered = not np.array_equal(mask, prefix)
        if reordered:  # move the available actions first
            new_row = np.full(S * A, -1, dtype=np.int64)
            ss, aa = np.nonzero(mask)
            rank = np.cumsum(mask, axis=1) - 1
            new_row[ss * A + aa] = ss * A + rank[ss, aa]
            old = t.row_of_entry()
            t = Transitions.from_coo(S, A, new_row[old], t.indices.astype(np.int64), t.data)
            R = np.zeros((S, A))
            R[ss, rank[ss, aa]] = mdp.R[ss, aa]
            moved = np.full((S, A), len(mdp.action_names.vocabulary), dtype=np.int32)
            moved[ss, rank[ss, aa]] = codes[ss, aa]
            codes = moved
        width = int(counts.max(initial=1))
        # the name lists are made when first read (_Opened): ids numbered across the
        # states, labels from the name codes
        m = cls(name=mdp.name, positions=np.full((S, 2), np.nan), P=SparseRows(t), R=R,
                R_T=np.array(mdp.R_T, dtype=float), horizon=mdp.horizon,
                discount=mdp.discount, initial_state=f"st-{mdp.initial_state + 1}")
        for name in _LAZY:
            del m.__dict__[name]
        m.__dict__["_opened"] = _Opened(mdp.state_names, counts.astype(np.int64), codes,
                                        mdp.action_names.vocabulary)
        if width < A:
            m._compact()
        elif not reordered:  # what to_mdp gives back while nothing changes
            m.__dict__["_from"] = (m.version, mdp)
        return m

    def copy(self) -> "MdpModel":
        caches: dict[str, Any] = {k: self.__dict__.pop(k) for k in (
            "_state_pos", "_action_pos", "_problems_cache", "_from", "_pristine_at")
            if k in self.__dict__}
        try:
            return _copy.deepcopy(self)
        finally:
            self.__dict__.update(caches)

    def digest(self) -> str:
        """A fingerprint of everything an analysis reads (not the name or the positions).

        Two models with the same digest give the same analysis results; recorded with a
        run, it tells whether the run still describes the model.

        >>> m = MdpModel(); s = m.add_state("a", (0, 0)); d = m.digest()
        >>> m.move_states({s: (5, 5)}); m.digest() == d
        True
        >>> m.set_terminal_reward(s, 1.0); m.digest() == d
        False
        """
        return digest_of(self.digest_key(), self.P, self.R, self.R_T)

    def digest_key(self) -> list[Any]:
        """The non-array part of :meth:`digest` (copied: safe to hand to a worker, which
        can then hash the arrays of the model's frozen MDP with :func:`digest_of`)."""
        return [list(self.state_ids), list(self.state_labels),
                [list(a) for a in self.action_ids], [list(a) for a in self.action_labels],
                self.horizon, self.discount, self.initial_state]

    # ------------------------------------------------------------------ edits
    def _touch(self) -> None:
        self.version += 1

    def _grow_width(self, width: int) -> None:
        if width <= self.width:
            return
        S = self.n_states
        if isinstance(self.P, SparseRows):
            A = self.width
            r = np.arange(S * A, dtype=np.int64)
            self.P = self.P.remap(S, width, (r // A) * width + r % A)
            R = np.zeros((S, width))
            R[:, :A] = self.R
            self.R = R
            return
        P = np.zeros((S, width, S))
        R = np.zeros((S, width))
        if self.P.size:
            P[:, :self.width] = self.P
            R[:, :self.width] = self.R
        self.P, self.R = P, R

    def add_state(self, label: str | None = None, pos: tuple[float, float] | None = None, *,
                  state_id: str | None = None, terminal_reward: float = 0.0) -> str:
        sid = state_id or _new_id("st", set(self.state_ids))
        if sid in self.state_ids:
            raise InputError(f"state id {sid!r} is taken", field="state")
        S, A = self.n_states, self.width
        if isinstance(self.P, SparseRows):  # rows s·A + j keep their numbers
            P: "np.ndarray | SparseRows" = self.P.remap(S + 1, A,
                                                         np.arange(S * A, dtype=np.int64))
        else:
            P = np.zeros((S + 1, A, S + 1))
            P[:S, :, :S] = self.P if self.P.size else 0.0
        R = np.zeros((S + 1, A))
        R[:S] = self.R if self.R.size else 0.0
        self.P, self.R = P, R
        self.R_T = np.append(self.R_T, float(terminal_reward))
        self.positions = np.vstack([self.positions.reshape(-1, 2),
                                    [pos if pos is not None else (np.nan, np.nan)]])
        taken = set(self.state_labels)
        lab = label if label is not None else next(f"s{i}" for i in range(S, 10 * S + 10)
                                                   if f"s{i}" not in taken)
        self.state_ids.append(sid)
        self.state_labels.append(lab)
        self.action_ids.append([])
        self.action_labels.append([])
        if self.initial_state is None:
            self.initial_state = sid
        self._touch()
        return sid

    def remove_state(self, state_id: str) -> None:
        """Remove a state, its actions and every transition into it (rows lose that mass)."""
        s = self.state_index(state_id)
        keep = np.arange(self.n_states) != s
        if isinstance(self.P, SparseRows):
            S, A = self.n_states, self.width
            col = np.arange(S, dtype=np.int64)
            col = np.where(col < s, col, col - 1)
            col[s] = -1
            r = np.arange(S * A, dtype=np.int64)
            row = col[r // A] * A + r % A
            row[r // A == s] = -1
            self.P = self.P.remap(S - 1, A, row, col)
        else:
            self.P = self.P[keep][:, :, keep]
        self.R = self.R[keep]
        self.R_T = self.R_T[keep]
        self.positions = self.positions[keep]
        for lst in (self.state_ids, self.state_labels, self.action_ids, self.action_labels):
            del lst[s]
        if self.initial_state == state_id:
            self.initial_state = self.state_ids[0] if self.state_ids else None
        self._compact()
        self._touch()

    def _compact(self) -> None:
        width = int(self._action_counts().max(initial=0))
        if width < self.width:
            if isinstance(self.P, SparseRows):
                S, A = self.n_states, self.width
                r = np.arange(S * A, dtype=np.int64)
                self.P = self.P.remap(S, width, np.where(r % A < width,
                                                         (r // A) * width + r % A, -1))
            else:
                self.P = self.P[:, :width]
            self.R = self.R[:, :width]

    def set_state_label(self, state_id: str, label: str) -> None:
        self.state_labels[self.state_index(state_id)] = str(label)
        self._touch()

    def move_state(self, state_id: str, pos: tuple[float, float]) -> None:
        self.positions[self.state_index(state_id)] = (float(pos[0]), float(pos[1]))
        self._touch()

    def move_states(self, positions: Mapping[str, "tuple[float, float] | None"]) -> None:
        """Move several states at once (one version step); ``None`` clears a position."""
        rows = [(self.state_index(sid), pos) for sid, pos in positions.items()]
        if len(self.positions) != self.n_states:
            self.positions = np.full((self.n_states, 2), np.nan)
        for s, pos in rows:
            self.positions[s] = (np.nan, np.nan) if pos is None else (float(pos[0]),
                                                                      float(pos[1]))
        self._touch()

    def restore(self, other: "MdpModel") -> None:
        """Take over the content of ``other`` (a :meth:`copy` taken earlier), in place.

        The version still goes up, so caches keyed on (model, version) see a change.
        """
        snapshot = other.copy()
        version = max(self.version, other.version) + 1
        for name in (*_LAZY, "_opened", "_from", "_pristine_at"):  # (the snapshot's lists)
            self.__dict__.pop(name, None)
        self.__dict__.update(snapshot.__dict__)
        self.version = version

    def set_terminal_reward(self, state_id: str, value: float) -> None:
        self.R_T[self.state_index(state_id)] = float(value)
        self._touch()

    def add_action(self, state_id: str, label: str | None = None, *,
                   action_id: str | None = None, reward: float = 0.0,
                   row: Mapping[str, float] | None = None) -> str:
        s = self.state_index(state_id)
        aid = action_id or _new_id("ac", set(self.all_action_ids()))
        if aid in self.all_action_ids():
            raise InputError(f"action id {aid!r} is taken", field="action")
        j = len(self.action_ids[s])
        self._grow_width(j + 1)
        taken = set(self.action_labels[s])
        lab = label if label is not None else next(f"a{i}" for i in range(j, 10 * j + 10)
                                                   if f"a{i}" not in taken)
        self.action_ids[s].append(aid)
        self.action_labels[s].append(lab)
        self.P[s, j] = 0.0
        self.R[s, j] = float(reward)
        for t, p in (row or {}).items():
            self.P[s, j, self.state_index(t)] = float(p)
        self._touch()
        return aid

    def remove_action(self, action_id: str) -> None:
        s, j = self.action_index(action_id)
        n = len(self.action_ids[s])
        if isinstance(self.P, SparseRows):
            for k in range(j, n - 1):
                self.P[s, k] = self.P[s, k + 1]
        else:
            self.P[s, j:n - 1] = self.P[s, j + 1:n]
        self.R[s, j:n - 1] = self.R[s, j + 1:n]
        self.P[s, n - 1] = 0.0
        self.R[s, n - 1] = 0.0
        del self.action_ids[s][j]
        del self.action_labels[s][j]
        self._compact()
        self._touch()

    def set_action_label(self, action_id: str, label: str) -> None:
        s, j = self.action_index(action_id)
        self.action_labels[s][j] = str(label)
        self._touch()

    def set_reward(self, action_id: str, value: float) -> None:
        s, j = self.action_index(action_id)
        self.R[s, j] = float(value)
        self._touch()

    def set_probability(self, action_id: str, target_id: str, p: float) -> None:
        s, j = self.action_index(action_id)
        self.P[s, j, self.state_index(target_id)] = float(p)
        self._touch()

    def set_row(self, action_id: str, row: Mapping[str, float]) -> None:
        """Replace the whole next-state distribution of an action (targets by state id)."""
        s, j = self.action_index(action_id)
        new = np.zeros(self.n_states)
        for t, p in row.items():
            new[self.state_index(t)] = float(p)
        self.P[s, j] = new
        self._touch()

    def normalise_row(self, action_id: str) -> None:
        """Scale a row to sum to 1 (the one-click fix for a deficit)."""
        s, j = self.action_index(action_id)
        total = float(self.P[s, j].sum())
        if not (math.isfinite(total) and total > 0) or (self.P[s, j] < 0).any():
            raise InputError(f"state {self.state_labels[s]!r}, action "
                             f"{self.action_labels[s][j]!r}: only a row of non-negative "
                             "probabilities with a positive sum can be normalised",
                             field="transitions")
        self.P[s, j] /= total
        self._touch()

    def set_settings(self, *, horizon: Any = "keep", discount: Any = "keep",
                     initial_state: Any = "keep", name: Any = "keep") -> None:
        """Change model settings; pass only what changes (``horizon=None`` = infinite)."""
        if horizon != "keep":
            if horizon is not None and (isinstance(horizon, bool) or not isinstance(
                    horizon, (int, np.integer)) or horizon < 1):
                raise InputError(f"must be an integer >= 1 or infinite, got {horizon!r}",
                                 field="horizon")
            self.horizon = None if horizon is None else int(horizon)
        if discount != "keep":
            d = float(discount)
            if not math.isfinite(d) or not 0.0 < d <= 1.0:
                raise InputError(f"must lie in (0, 1], got {discount!r}", field="discount")
            self.discount = d
        if initial_state != "keep":
            self.state_index(initial_state)
            self.initial_state = initial_state
        if name != "keep":
            self.name = str(name)
        self._touch()

    # ------------------------------------------------------------------ persistence
    def to_dict(self, *, transitions: bool = True) -> dict[str, Any]:
        """The project-file shape (schema 2): ids, labels, positions, sparse transitions.

        ``transitions=False`` leaves the transition list out (the caller stores ``P`` in a
        sidecar ``.npz``, as project files do for large models).
        """
        states = []
        for s, sid in enumerate(self.state_ids):
            d: dict[str, Any] = {"id": sid, "label": self.state_labels[s]}
            pos = self.position(sid)
            if pos is not None:
                d["pos"] = [pos[0], pos[1]]
            if self.R_T[s] != 0:
                d["terminal_reward"] = float(self.R_T[s])
            states.append(d)
        actions: list[dict[str, Any]] = []
        transitions_out: list[dict[str, Any]] = []
        for s, ids in enumerate(self.action_ids):
            for j, aid in enumerate(ids):
                a: dict[str, Any] = {"id": aid, "state": self.state_ids[s],
                                     "label": self.action_labels[s][j]}
                if self.R[s, j] != 0:
                    a["reward"] = float(self.R[s, j])
                actions.append(a)
                if not transitions:
                    continue
                cols, vals = self.row_entries(s, j)
                for t, p in zip(cols.tolist(), vals.tolist()):
                    transitions_out.append({"action": aid, "target": self.state_ids[t],
                                            "p": float(p)})
        out = {"name": self.name, "horizon": self.horizon, "discount": self.discount,
               "initial_state": self.initial_state, "states": states, "actions": actions}
        if transitions:
            out["transitions"] = transitions_out
        return out

    @property
    def nnz(self) -> int:
        """Number of non-zero transition probabilities."""
        if isinstance(self.P, SparseRows):
            return self.P.nnz
        return int(np.count_nonzero(self.P))

    @classmethod
    def from_dict(cls, d: Any, *, P: "np.ndarray | SparseRows | None" = None) -> "MdpModel":
        """Read the schema-2 shape; drafts may be invalid, but references must resolve.

        ``P`` gives the transition array of a model whose file keeps it in a sidecar; its
        shape must match the states and actions listed in ``d``.
        """
        if not isinstance(d, dict):
            raise InputError("must be an object", field="mdp")
        m = cls(name=str(d.get("name", "") or ""))
        # Built in bulk (not through add_state/add_action): large models load in O(size).
        sids, slabels, pos, rt = _read_states(d)
        index = {sid: i for i, sid in enumerate(sids)}
        if len(index) != len(sids):
            raise InputError("state ids must be unique", field="states")
        aids, alabels, where, rewards = _read_actions(d, index)
        S, A = len(sids), max((len(a) for a in aids), default=0)
        m.state_ids, m.state_labels, m.action_ids, m.action_labels = sids, slabels, aids, alabels
        m.positions = np.array(pos, dtype=float).reshape(S, 2)
        m.R_T = np.array(rt, dtype=float)
        m.R = np.zeros((S, A))
        for s_i, j, r in rewards:
            m.R[s_i, j] = r
        entries = _read_transitions(d, where, index)
        if P is not None:
            if tuple(P.shape) != (S, A, S):
                raise InputError(f"array P has shape {P.shape}, the model needs "
                                 f"{(S, A, S)}", field="arrays")
            if isinstance(P, SparseRows):  # a large model's sparse sidecar
                m.P = P
            else:
                m.P = np.array(P, dtype=np.float64)
                m.P[~m.mask()] = 0.0
        elif uses_dense(S, A):
            m.P = np.zeros((S, A, S))
            for (s_i, j, t_i), p in entries.items():
                m.P[s_i, j, t_i] = p
        else:  # too large for a dense array: sparse rows
            keys = np.array([(s_i * A + j, t_i) for s_i, j, t_i in entries],
                            dtype=np.int64).reshape(-1, 2)
            m.P = SparseRows(Transitions.from_coo(
                S, A, keys[:, 0], keys[:, 1], np.array(list(entries.values()), dtype=float)))
        m.horizon, m.discount, m.initial_state = _read_run(d, sids)
        m.version = 0
        return m

def _split(flat: list[str], sizes: list[int]) -> list[list[str]]:
    """``flat`` cut into consecutive lists of ``sizes``."""
    ends = np.cumsum(sizes).tolist()
    starts = [0, *ends[:-1]]
    return [flat[a:b] for a, b in zip(starts, ends)]


def digest_of(key: list[Any], P: "np.ndarray | SparseRows | Transitions", R: np.ndarray,
              R_T: np.ndarray) -> str:
    """:meth:`MdpModel.digest` from its key and arrays. A valid model and its
    :meth:`MdpModel.to_mdp` have the same arrays, so the MDP can be hashed instead.

    Parameters
    ----------
    key : list
        The model's structure key (ids, labels, horizon, discount, initial state).
    P, R, R_T : numpy.ndarray
        Its arrays (``P`` dense, or the sparse rows of a large model: hashed as CSR).

    Returns
    -------
    str
        A hex digest.
    """
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps(key, ensure_ascii=False).encode("utf-8"))
    # the shape decides how P is hashed (its dense bytes up to 2^26 entries, as every
    # earlier version did, so recorded digests stay valid; the CSR arrays beyond), so a
    # model and its frozen MDP agree whatever they store
    S, A = int(P.shape[0]), int(P.shape[1]) if len(P.shape) > 1 else 0
    if S and A and float(S) * A * S > DIGEST_DENSE_MAX:
        t = P.to_transitions() if isinstance(P, SparseRows) else P if isinstance(
            P, Transitions) else Transitions.from_dense(np.asarray(P, dtype=np.float64))
        h.update(f"csr{(t.n_states, t.n_actions)}".encode("ascii"))
        for part in (t.indptr, t.indices.astype(np.int64), t.data):
            h.update(np.ascontiguousarray(part).reshape(-1).data.cast("B"))
        P = np.zeros(0)
    elif isinstance(P, SparseRows):
        P = P.dense()
    elif isinstance(P, Transitions):
        P = P.to_dense()
    for arr in (P, R, R_T):
        a = np.ascontiguousarray(arr, dtype=np.float64)
        h.update(str(a.shape).encode("ascii"))
        if a.size:
            h.update(a.reshape(-1).data.cast("B"))
    return h.hexdigest()


def _list(x: Any, name: str) -> list[Any]:
    if x is None:
        return []
    if not isinstance(x, list):
        raise InputError(f"must be a list, got {type(x).__name__}", field=name)
    return x


def _num(x: Any, name: str, *, finite: bool = True) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise InputError(f"must be a number, got {x!r}", field=name)
    if finite and not math.isfinite(x):
        raise InputError(f"must be finite, got {x!r}", field=name)
    return float(x)


def _read_states(d: dict[str, Any]) -> tuple[list[str], list[str], list[tuple[float, float]],
                                              list[float]]:
    """The ``states`` of a schema-2 dict: their ids, labels, positions (NaN when unplaced)
    and terminal rewards, in file order."""
    sids: list[str] = []
    slabels: list[str] = []
    pos: list[tuple[float, float]] = []
    rt: list[float] = []
    for i, st in enumerate(_list(d.get("states"), "states")):
        if not isinstance(st, dict) or not isinstance(st.get("id"), str):
            raise InputError("each state needs a string id", field=f"states[{i}]")
        xy = st.get("pos")
        if xy is not None and not (isinstance(xy, list) and len(xy) == 2):
            raise InputError(f"must be [x, y], got {xy!r}", field=f"states[{i}].pos")
        sids.append(st["id"])
        slabels.append(str(st.get("label", st["id"])))
        pos.append((np.nan, np.nan) if xy is None else (_num(xy[0], f"states[{i}].pos"),
                                                        _num(xy[1], f"states[{i}].pos")))
        rt.append(_num(st.get("terminal_reward", 0.0), f"states[{i}].terminal_reward"))
    return sids, slabels, pos, rt


def _read_actions(d: dict[str, Any], index: dict[str, int]) -> tuple[
        list[list[str]], list[list[str]], dict[str, tuple[int, int]],
        list[tuple[int, int, float]]]:
    """The ``actions`` of a schema-2 dict, given the state index: each state's action ids
    and labels, where each action id sits (state, slot), and the (state, slot, reward)
    triples."""
    aids: list[list[str]] = [[] for _ in index]
    alabels: list[list[str]] = [[] for _ in index]
    where: dict[str, tuple[int, int]] = {}
    rewards: list[tuple[int, int, float]] = []
    for i, ac in enumerate(_list(d.get("actions"), "actions")):
        if not isinstance(ac, dict) or not isinstance(ac.get("id"), str):
            raise InputError("each action needs a string id", field=f"actions[{i}]")
        if ac["id"] in where:
            raise InputError(f"action id {ac['id']!r} is used twice", field=f"actions[{i}]")
        s_i = index.get(ac["state"]) if isinstance(ac.get("state"), str) else None
        if s_i is None:
            raise InputError(f"unknown state id {ac.get('state')!r}",
                             field=f"actions[{i}].state")
        where[ac["id"]] = (s_i, len(aids[s_i]))
        aids[s_i].append(ac["id"])
        alabels[s_i].append(str(ac.get("label", ac["id"])))
        rewards.append((*where[ac["id"]], _num(ac.get("reward", 0.0),
                                               f"actions[{i}].reward")))
    return aids, alabels, where, rewards


def _read_transitions(d: dict[str, Any], where: dict[str, tuple[int, int]],
                      index: dict[str, int]) -> dict[tuple[int, int, int], float]:
    """The ``transitions`` of a schema-2 dict as {(state, slot, target): p}; a later entry
    for the same triple replaces an earlier one."""
    entries: dict[tuple[int, int, int], float] = {}
    for i, tr in enumerate(_list(d.get("transitions"), "transitions")):
        if not isinstance(tr, dict):
            raise InputError("must be an object", field=f"transitions[{i}]")
        act, tgt = tr.get("action"), tr.get("target")
        a_at = where.get(act) if isinstance(act, str) else None
        t_i = index.get(tgt) if isinstance(tgt, str) else None
        if a_at is None:
            raise InputError(f"unknown action id {tr.get('action')!r}",
                             field=f"transitions[{i}].action")
        if t_i is None:
            raise InputError(f"unknown state id {tr.get('target')!r}",
                             field=f"transitions[{i}].target")
        entries[(a_at[0], a_at[1], t_i)] = _num(tr.get("p"), f"transitions[{i}].p",
                                                finite=False)
    return entries


def _read_run(d: dict[str, Any], sids: list[str]) -> tuple[int | None, float, Any]:
    """The horizon (an integer or None), discount and initial state of a schema-2 dict."""
    horizon = d.get("horizon", 3)
    if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, int)):
        raise InputError(f"must be an integer or null, got {horizon!r}", field="horizon")
    discount = _num(d.get("discount", 1.0), "discount")
    init = d.get("initial_state")
    if init is not None and init not in sids:
        raise InputError(f"unknown state id {init!r}", field="initial_state")
    return horizon, discount, init
