"""What the PRISM and Storm readers and writers share: building the model, names, numbers.

A model checker's MDP has S states, and each state a list of nondeterministic choices
(optionally labelled with an action); PrivPlan's MDP has the same with A = the largest
number of choices of a state (``mask`` marks the ones a state has). Choice k of state s is
PrivPlan's action k of s.

Action names: a labelled choice keeps its label; an unlabelled one is called
``"choice k"`` (not a PRISM identifier, so it is written back unlabelled). Other names
that are not identifiers (a model drawn in PrivPlan) are written with every character
outside ``[A-Za-z0-9_]`` replaced by ``_``, and the writers say so.

Numbers are written with ``repr`` (the shortest text that reads back to the same double),
so a round trip is exact.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.mdp.annotations import TERMINAL_REWARD, Annotations, RewardStructure, derived_rewards
from core.mdp.model import MDP
from core.mdp.names import ActionNames, Names
from core.mdp.sparse import Transitions

__all__ = ["ImportResult", "ModelParts", "TransitionRewards", "build_model", "choice_name",
           "unlabelled", "identifier", "number_text", "parse_probability", "horizon_and_discount",
           "DEFAULT_DISCOUNT", "fail", "read_text_lines", "check_declared"]

#: The discount of an imported model when neither ``--horizon`` nor ``--discount`` is given
#: (model checkers' models have neither; PrivPlan's analyses need one of them).
DEFAULT_DISCOUNT = 0.95

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CHOICE = re.compile(r"choice (\d+)\Z")
_FRACTION = re.compile(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*\Z")


def fail(path: str, line: int | None, problem: str, field: str = "") -> InputError:
    """An InputError naming the file and the line."""
    where = f"line {line}: " if line is not None else ""
    return InputError(where + problem, field=field, file=path)


#: Bytes of the model arrays an import makes, per declared state, choice and transition
#: (names, rewards and masks; the choice index; source, target, probability, line and the
#: CSR arrays), with room for the copies the build makes.
_BYTES_PER = {"states": 96.0, "choices": 64.0, "transitions": 64.0}


def check_declared(path: str, line: int | None, *, file_bytes: int,
                   sizes: "dict[str, tuple[int | None, int, str]]",
                   separate_lines: bool = True) -> None:
    """Refuse a header's declared sizes before anything of their size is allocated.

    ``sizes`` maps what is declared (``"states"``, ``"choices"``, ``"transitions"``) to
    (the declared number or None, the fewest bytes one of them takes in the file, how the
    header names it); ``separate_lines``: each is on lines of its own (DRN), so their bytes
    add up (not so in a PRISM .tra, where a choice's line is a transition's). A size the
    file cannot hold (fewer bytes than its lines need) is bad
    input, refused with the header's line; so is a model whose arrays would not fit in the
    memory the process may use.

    Parameters
    ----------
    path : str
        The file.
    line : int or None
        The header's line.
    file_bytes : int
        The file's size.
    sizes : dict
        What the header declares (above).
    separate_lines : bool
        Whether the declared items' lines are distinct.

    Raises
    ------
    InputError
        Naming the file, the line and the declared size.
    """
    from core.common.resources import check_memory, format_bytes

    need = 0.0
    total = 0.0
    for what, (n, per_line, name) in sizes.items():
        if n is None:
            continue
        if n < 0:
            raise fail(path, line, f"{name} must be >= 0, got {n}")
        if per_line and n * per_line > file_bytes:
            raise fail(path, line, f"{name} declares {n:,} {what}, but a file of "
                       f"{format_bytes(file_bytes)} holds at most {file_bytes // per_line:,} "
                       f"(each takes at least {per_line} bytes)")
        need += float(n) * per_line
        total += float(n) * _BYTES_PER.get(what, 64.0)
    if separate_lines and need > file_bytes:
        raise fail(path, line, f"the declared sizes need at least {int(need):,} bytes of lines, "
                   f"the file has {file_bytes:,}")
    try:
        check_memory(total, "size", detail="the model the header declares")
    except InputError as exc:
        raise fail(path, line, exc.problem) from None


def choice_name(k: int) -> str:
    """The PrivPlan name of the unlabelled choice ``k``."""
    return f"choice {k}"


def unlabelled(name: str, k: int) -> bool:
    """True when ``name`` is the name of unlabelled choice ``k`` (written without a label)."""
    m = _CHOICE.match(name)
    return m is not None and int(m.group(1)) == k


def identifier(name: str) -> str:
    """``name`` as a PRISM identifier (characters outside [A-Za-z0-9_] become ``_``)."""
    if _IDENT.match(name):
        return name
    out = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
    return out if not out[0].isdigit() else "_" + out


def number_text(x: float) -> str:
    """The shortest text that reads back to ``x`` exactly."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2**53:  # int(inf) would raise
        return str(int(x))
    return repr(float(x))


def number_texts(values: np.ndarray) -> list[str]:
    """:func:`number_text` of every value of a float array (integers found on the whole
    array, the others written by ``repr`` in one C loop)."""
    vals = np.asarray(values, dtype=np.float64)
    if not np.isfinite(vals).all():
        return [number_text(x) for x in vals.tolist()]
    out = list(map(repr, vals.tolist()))
    whole = np.flatnonzero((vals == np.trunc(vals)) & (np.abs(vals) < 2.0**53))
    for i, x in zip(whole.tolist(), vals[whole].astype(np.int64).tolist()):
        out[i] = str(x)
    return out


def parse_probability(text: str) -> float:
    """A decimal (``0.5``, ``.5``, ``5.6e-6``) or a fraction ``a/b``; ValueError otherwise."""
    m = _FRACTION.match(text)
    if m is not None:
        den = int(m.group(2))
        if den == 0:
            raise ValueError("division by zero")
        return int(m.group(1)) / den
    x: float = float(text)
    if not math.isfinite(x):
        raise ValueError("not finite")
    return x


def horizon_and_discount(horizon: int | None, discount: float | None
                         ) -> tuple[int | None, float, str]:
    """(horizon, discount, note) of an imported model from the user's flags."""
    if horizon is not None:
        return horizon, 1.0 if discount is None else discount, ""
    if discount is not None:
        return None, discount, ""
    return None, DEFAULT_DISCOUNT, (f"no --horizon or --discount given: the model is "
                                    f"infinite-horizon with discount {DEFAULT_DISCOUNT}")


@dataclass(frozen=True, eq=False)
class ImportResult:
    """An imported model, the files it came from and what the user should know."""

    mdp: MDP
    files: tuple[str, ...]
    warnings: tuple[str, ...]

    @property
    def n_choices(self) -> int:
        return int(self.mdp.mask.sum())


@dataclass(frozen=True, eq=False)
class TransitionRewards:
    """Transition rewards r(s, k, t) as arrays in the file's order, each (s, k, t) once (a
    bulk reading's result, without a dictionary of a tuple per transition)."""

    state: np.ndarray  # (n,) int64
    choice: np.ndarray  # (n,) int64
    target: np.ndarray  # (n,) int64
    value: np.ndarray  # (n,) float64

    def __len__(self) -> int:
        return int(self.value.size)


@dataclass
class ModelParts:
    """A model checker's model as parsed: COO transitions by (state, choice)."""

    n_states: int
    src: np.ndarray  # (m,) source state of each transition
    choice: np.ndarray  # (m,) choice index within the source state
    dst: np.ndarray  # (m,) next state
    prob: np.ndarray  # (m,) probability
    line: np.ndarray  # (m,) line of each transition (for messages)
    path: str
    action_labels: dict[tuple[int, int], str]  # (state, choice) -> label, labelled ones
    labels: dict[str, list[int]]
    state_names: Sequence[str] | None = None
    variables: tuple[str, ...] = ()
    kind: str = "MDP"  # or "DTMC": one choice per state
    # reward structures: name -> (state (S,) or None, choice {(s, k): r} or None,
    # transition {(s, k, t): r} or TransitionRewards or None)
    rewards: dict[str, tuple[np.ndarray | None, dict[tuple[int, int], float] | None,
                             dict[tuple[int, int, int], float] | TransitionRewards | None]
                  ] | None = None


def build_model(parts: ModelParts, *, horizon: int | None, discount: float | None,
                reward: str | None, name: str, files: Sequence[str]) -> ImportResult:
    """The PrivPlan model of parsed model-checker files (see the module docstring).

    Raises InputError naming the file and line of a duplicate transition, a choice whose
    probabilities do not sum to 1, a transition reward without its transition, or a
    reward structure that does not exist.
    """
    path = parts.path
    S = parts.n_states
    warnings: list[str] = []
    src, prob, line = parts.src, parts.prob, parts.line
    if src.size and (prob <= 0).any():
        i = int(np.flatnonzero(prob <= 0)[0])
        raise fail(path, int(line[i]), f"probability {float(prob[i])!r} must be positive")
    ch = _compact_choices(parts)
    if ch.deadlocks.size:
        warnings.append(f"{ch.deadlocks.size} deadlock state(s) (no transitions) got a "
                        "self-loop, as PRISM and Storm add one")
    t, vals = _import_transitions(parts, ch)
    names = Names(parts.state_names) if parts.state_names is not None else Names.generated(
        "s", S)
    if not names.is_generated and not names.unique():
        warnings.append(f"state names are not unique ({names.first_duplicate()!r} appears "
                        "twice): states are named s0, s1, … instead")
        names = Names.generated("s", S)
    anames = _import_action_names(parts, ch)
    structures = {rname: _import_reward_structure(parts, ch, t, rname, st, chr_, tr)
                  for rname, (st, chr_, tr) in (parts.rewards or {}).items()}
    R_T = np.zeros(S)
    terminal = structures.get(TERMINAL_REWARD)
    if terminal is not None and terminal.state is not None:
        R_T = np.array(terminal.state)
    used, R = _import_rewards(structures, reward, t.indptr, vals, ch, warnings)
    h, d, note = horizon_and_discount(horizon, discount)
    if note:
        warnings.append(note)
    init = parts.labels.get("init")
    if init is not None and len(init) > 1:
        warnings.append(f"{len(init)} initial states are labelled 'init': PrivPlan's analyses "
                        f"start from the first, state {min(init)}")
    s0 = min(init) if init else 0
    ann = Annotations(labels={k: np.asarray(v, dtype=np.int64) for k, v in parts.labels.items()},
                      rewards=structures, reward_used=used,
                      variables=parts.variables)
    mdp = MDP(transitions=t, R=R, R_T=R_T, mask=ch.mask, horizon=h, discount=d,
              initial_state=int(s0), state_names=names, action_names=anames, name=name,
              annotations=ann)
    return ImportResult(mdp=mdp, files=tuple(files), warnings=tuple(warnings))


@dataclass(frozen=True)
class _Choices:
    """The choices of the parsed file compacted to 0..n_s-1 per state (in order)."""

    has: np.ndarray  # (S, A_file) choice k of the file present in state s
    rank: np.ndarray  # (S, A_file) its compacted index
    A_file: int
    A: int
    mask: np.ndarray  # (S, A) available actions (a deadlock's self-loop included)
    deadlocks: np.ndarray  # states without transitions


def _compact_choices(parts: ModelParts) -> _Choices:
    """The choices present per state (a state may skip none: PRISM numbers them 0, 1, …),
    compacted, and the deadlock states (given action 0, a self-loop)."""
    S, src, choice = parts.n_states, parts.src, parts.choice
    present = np.zeros(0, dtype=np.int64)
    if src.size:
        present = np.unique(src.astype(np.int64) * (int(choice.max()) + 1) + choice)
    A_file = int(choice.max()) + 1 if src.size else 1
    has = np.zeros((S, A_file), dtype=bool)
    if present.size:
        has[present // A_file, present % A_file] = True
    deadlocks = np.flatnonzero(~has.any(axis=1))
    rank = np.cumsum(has, axis=1) - 1
    A = max(1, int(has.sum(axis=1).max(initial=0)))
    mask = np.zeros((S, A), dtype=bool)
    counts = has.sum(axis=1)
    mask[np.arange(A)[None, :] < counts[:, None]] = True
    mask[deadlocks, 0] = True
    return _Choices(has=has, rank=rank, A_file=A_file, A=A, mask=mask, deadlocks=deadlocks)


def _import_transitions(parts: ModelParts, ch: _Choices) -> tuple[Transitions, np.ndarray]:
    """(CSR rows, their probabilities) of the parsed transitions plus the deadlocks'
    self-loops; a duplicate transition or a row not summing to 1 is refused with its
    file and line."""
    path, S, A = parts.path, parts.n_states, ch.A
    src, lines = parts.src, parts.line
    k_new = ch.rank[src, parts.choice] if src.size else np.zeros(0, dtype=np.int64)
    rows = src.astype(np.int64) * A + k_new
    cols = parts.dst.astype(np.int64)
    vals = parts.prob.astype(np.float64)
    deadlocks = ch.deadlocks
    if deadlocks.size:
        rows = np.concatenate([rows, deadlocks * A])
        cols = np.concatenate([cols, deadlocks])
        vals = np.concatenate([vals, np.ones(deadlocks.size)])
        lines = np.concatenate([lines, np.zeros(deadlocks.size, dtype=lines.dtype)])
    step = np.diff(rows)
    if not ((step > 0) | ((step == 0) & (np.diff(cols) > 0))).all():  # not in order yet
        order = np.lexsort((cols, rows))
        rows, cols, vals, lines = rows[order], cols[order], vals[order], lines[order]
    dup = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise fail(path, int(lines[i + 1]), f"the transition to state {int(cols[i])} is "
                   f"given twice for this choice (first on line {int(lines[i])})")
    counts_rows = np.bincount(rows, minlength=S * A)
    indptr = np.zeros(S * A + 1, dtype=np.int64)
    np.cumsum(counts_rows, out=indptr[1:])
    t = Transitions(S, A, indptr, cols, vals)
    sums = np.bincount(rows, weights=vals, minlength=S * A)  # (in entry order, as add.at)
    bad = ch.mask.reshape(-1) & (np.abs(sums - 1.0) > 1e-9)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        s, k = divmod(r, A)
        at = lines[indptr[r]:indptr[r + 1]]
        raise fail(path, int(at.min()), f"the probabilities of choice {k} of state {s} "
                   f"(lines {int(at.min())}-{int(at.max())}) sum to {sums[r]:.12g}, not 1 "
                   "within 1e-9 (PrivPlan needs exact rows: write more digits, or "
                   "fractions such as 1/3)", field="transitions")
    return t, vals


def _import_action_names(parts: ModelParts, ch: _Choices) -> ActionNames:
    """The file's action labels by compacted choice; unlabelled choices are named by
    their index (:func:`choice_name`)."""
    S, A, rank = parts.n_states, ch.A, ch.rank
    if not parts.action_labels:
        return ActionNames.shared([choice_name(k) for k in range(A)], S)
    vocab: dict[str, int] = {choice_name(k): k for k in range(A)}
    for word in dict.fromkeys(parts.action_labels.values()):  # in order of first appearance
        vocab.setdefault(word, len(vocab))
    codes = np.broadcast_to(np.arange(A, dtype=np.int32), (S, A)).copy()  # unlabelled
    ss, kk = _key_arrays(parts.action_labels, 2)
    codes[ss, rank[ss, kk]] = np.fromiter(map(vocab.__getitem__, parts.action_labels.values()),
                                          dtype=np.int32, count=len(parts.action_labels))
    return ActionNames(codes, list(vocab))


def _key_arrays(d: dict[Any, Any], width: int) -> tuple[np.ndarray, ...]:
    """The ``width`` parts of a dictionary's tuple keys as int64 arrays, in its order."""
    flat = np.fromiter(chain.from_iterable(d), dtype=np.int64, count=width * len(d))
    return tuple(flat.reshape(-1, width).T)


def _import_reward_structure(parts: ModelParts, ch: _Choices, t: Transitions, rname: str,
                             st: np.ndarray | None, chr_: dict[tuple[int, int], float] | None,
                             tr: dict[tuple[int, int, int], float] | TransitionRewards | None
                             ) -> RewardStructure:
    """One parsed reward structure on the compacted choices; a transition reward without
    its choice or transition is refused naming the structure."""
    S, A, rank, has = parts.n_states, ch.A, ch.rank, ch.has
    choice_arr = None
    if chr_:
        choice_arr = np.zeros((S, A))
        ss, kk = _key_arrays(chr_, 2)
        np.add.at(choice_arr, (ss, rank[ss, kk]),
                  np.fromiter(chr_.values(), dtype=np.float64, count=len(chr_)))
    trans_arr = None
    if tr:
        trans_arr = np.zeros(t.nnz)
        if isinstance(tr, TransitionRewards):
            ss, kk, jj, rr = tr.state, tr.choice, tr.target, tr.value
        else:
            ss, kk, jj = _key_arrays(tr, 3)
            rr = np.fromiter(tr.values(), dtype=np.float64, count=len(tr))
        no_choice = kk >= ch.A_file
        no_choice[~no_choice] = ~has[ss[~no_choice], kk[~no_choice]]
        # every entry's (row, next state) as one sorted key: rows ascend, columns within
        keys = t.row_of_entry() * S + t.indices
        want = (ss * A + rank[ss, np.minimum(kk, ch.A_file - 1)]) * S + jj
        pos = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
        missing = no_choice | (keys[pos] != want) if keys.size else np.ones(ss.size, bool)
        if missing.any():  # the first in the file's order, as it reads
            i = int(np.flatnonzero(missing)[0])
            s, k, j = int(ss[i]), int(kk[i]), int(jj[i])
            if no_choice[i]:
                raise fail(parts.path, None, f"reward structure {rname!r}: a transition "
                           f"reward for choice {k} of state {s}, which does not exist")
            raise fail(parts.path, None, f"reward structure {rname!r}: a transition "
                       f"reward for state {s}, choice {k} to state {j}, which is not a "
                       "transition")
        trans_arr[pos] = rr
    return RewardStructure(state=st, choice=choice_arr, transition=trans_arr)


def _import_rewards(structures: dict[str, RewardStructure], reward: str | None,
                    indptr: np.ndarray, vals: np.ndarray, ch: _Choices,
                    warnings: list[str]) -> tuple[str | None, np.ndarray]:
    """(structure used, r(s, a)) from ``--reward`` or the first structure; warnings
    appended in place."""
    S, A = ch.mask.shape
    usable = [k for k in structures if k != TERMINAL_REWARD]
    if reward is not None and reward not in structures:
        raise InputError(f"no reward structure {reward!r} (the files have "
                         f"{', '.join(map(repr, usable)) or 'none'})", field="--reward")
    used = reward if reward is not None else (usable[0] if usable else None)
    R = np.zeros((S, A))
    if used is not None:
        R, more = derived_rewards(structures[used], indptr, vals, S, A)
        warnings += more
        if len(usable) > 1:
            warnings.append(f"r(s, a) comes from the reward structure {used!r} (the files "
                            f"have {len(usable)}; choose one with --reward)")
    return used, np.where(ch.mask, R, 0.0)


def export_names(mdp: MDP) -> tuple[list[list[str | None]], list[str]]:
    """Per state, the label of each available choice (None: unlabelled), and warnings."""
    out: list[list[str | None]] = []
    renamed: set[str] = set()
    mask = mdp.mask
    for s in range(mdp.n_states):
        row: list[str | None] = []
        for k, a in enumerate(np.flatnonzero(mask[s]).tolist()):
            name = mdp.action_names.name(s, a)
            if unlabelled(name, k):
                row.append(None)
            else:
                ident = identifier(name)
                if ident != name:
                    renamed.add(name)
                row.append(ident)
        out.append(row)
    warnings = []
    if renamed:
        shown = ", ".join(sorted(map(repr, renamed))[:4])
        more = ", …" if len(renamed) > 4 else ""
        warnings.append(f"{len(renamed)} action name(s) are not identifiers and were written "
                        f"with '_' for other characters ({shown}{more})")
    return out, warnings


def export_rewards(mdp: MDP) -> dict[str, RewardStructure]:
    """The reward structures to write: the model's own (imported), else ``r`` from R (a
    transition reward equal to r(s, a) on every transition of the choice, which reads back
    to exactly r(s, a)) and :data:`TERMINAL_REWARD` from R_T when it is not zero."""
    ann = mdp.annotations
    if ann is not None and ann.rewards:
        return dict(ann.rewards)
    t = mdp.transitions
    out: dict[str, RewardStructure] = {}
    if (mdp.R != 0).any():
        out["r"] = RewardStructure(transition=np.repeat(mdp.R.reshape(-1), np.diff(t.indptr)))
    if (mdp.R_T != 0).any():
        out[TERMINAL_REWARD] = RewardStructure(state=np.array(mdp.R_T))
    return out


def export_labels(mdp: MDP) -> dict[str, np.ndarray]:
    """Labels to write: ``init`` (the initial state) first, then the model's own."""
    labels: dict[str, np.ndarray] = {"init": np.array([mdp.initial_state])}
    ann = mdp.annotations
    if ann is not None:
        for k, v in ann.labels.items():
            if k != "init":
                labels[k] = v
    return labels


#: Bytes read, decoded and split at a time by :func:`read_text_lines` (a progress call each).
TEXT_PIECE = 1 << 26


def reward_label_map(rewards: Mapping[str, RewardStructure]) -> list[str]:
    """Reward structure names in the order they are written (the R structure first)."""
    return list(rewards)


def read_text_lines(path: str, *, progress: Progress | None = None) -> list[str]:
    """The lines of a UTF-8 text input, read through the resource guard: regular files only
    (a FIFO or a device is refused before a byte is read) and its lines' memory (about 8x
    the file) checked against what the process may use first.

    Parameters
    ----------
    path : str
        The file.
    progress : Progress, optional
        Told the fraction of the file read (every :data:`TEXT_PIECE` bytes, each piece
        decoded and split at once); it may raise :class:`core.common.progress.Cancelled`,
        which stops the read (a gigabyte file is otherwise seconds without a cancel point).

    Returns
    -------
    list of str
        As ``text.splitlines()`` of the whole file: a piece ends after a ``\n`` byte, which
        is never inside a UTF-8 sequence and ends any line break, ``\r\n`` included.

    Raises
    ------
    InputError
        Naming the file: missing, not a regular file, too large, not UTF-8, unreadable.
    """
    from core.common.resources import check_memory, format_bytes, open_regular

    report = progress if progress is not None else no_progress
    lines: list[str] = []
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        try:
            check_memory(8.0 * size, "size", detail=f"reading a {format_bytes(size)} text file")
        except InputError as exc:
            raise exc.with_file(path) from None
        done, tail = 0, b""
        while True:
            try:
                piece = fh.read(TEXT_PIECE)
            except OSError as exc:
                raise InputError(f"cannot be read ({exc.strerror or exc})", file=path) from None
            if not piece:
                break
            done += len(piece)
            data = tail + piece
            cut = data.rfind(b"\n") + 1  # 0 when the piece holds no line end yet
            tail = data[cut:]
            lines += _decode_lines(data[:cut], path)
            report(min(1.0, done / max(size, 1)), "reading the file")
        lines += _decode_lines(tail, path)
    return lines


def _decode_lines(data: bytes, path: str) -> list[str]:
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise InputError("is not a text file (UTF-8)", file=path) from None
