"""PRISM's explicit model files: ``.tra``, ``.lab``, ``.sta``, ``.srew``, ``.trew``.

The formats are those of the PRISM manual's appendix "Explicit Model Files":

* ``.tra`` (MDP): a first line ``S C T`` (states, choices, transitions), then one line per
  transition ``s k t p [a]`` (source, choice index within the state, target, probability,
  optional action label). A DTMC's ``.tra`` (``S T``, lines ``s t p [a]``) is read as an MDP
  with one choice per state. Probabilities may be decimals or fractions ``a/b``.
* ``.lab``: ``0="init" 1="deadlock" 2="goal" …`` then ``s: i j …`` per labelled state.
* ``.sta``: ``(v1,…,vn)`` then ``s:(x1,…,xn)``; the valuations become the state names.
* ``.srew``: optional ``# Reward structure "r"`` / ``# State rewards`` header comments,
  ``S N``, then ``s r``. ``.trew``: ``# Reward structure "r"`` / ``# Transition rewards``,
  ``S C N``, then ``s k t r``.
* Interval models (``prism-interval``): a probability is ``[l,u]`` (no spaces: PRISM
  splits lines on blanks and reads ``[l,u]`` as an interval).

Every error names the file and the line. Deadlock states (no transitions) get a
self-loop, as PRISM's import does.

Size: the five explicit files of one model, in and out: the readers share the ``.tra`` layout
(state, choice, target), the bulk parser and its line-by-line fallback share the error texts,
and the writers mirror the readers; split by file, each part would restate the layout.

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "m.tra"), "w") as fh:
...     _ = fh.write("2 3 4\\n0 0 1 1 go\\n0 1 0 0.5\\n0 1 1 0.5\\n1 0 1 1\\n")
>>> r = read_prism([os.path.join(d, "m.tra")], horizon=2)
>>> r.mdp.n_states, r.mdp.action_names[0], r.mdp.P[0, 1].tolist()
(2, ('go', 'choice 1'), [0.5, 0.5])
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, overload

import numpy as np

from core.common.atomic import atomic_write_text
from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.mdp.interop.common import (
    ImportResult,
    ModelParts,
    TransitionRewards,
    build_model,
    check_declared,
    export_labels,
    export_names,
    export_rewards,
    fail,
    number_texts,
    parse_probability,
    read_text_lines,
)
from core.mdp.model import MDP

__all__ = ["read_prism", "write_prism", "write_prism_interval", "PRISM_SUFFIXES"]

PRISM_SUFFIXES = (".tra", ".lab", ".sta", ".srew", ".trew")

#: The largest int64: an index at or above it is refused (the bulk reading leaves it to the
#: line-by-line one, which names the line).
_INT_TOP = int(np.iinfo(np.int64).max)
_LABEL = re.compile(r'(\d+)="([^"]*)"')
_REWARD_NAME = re.compile(r'#\s*Reward structure:?\s*"([^"]*)"')


def _open(path: str, report: Progress = no_progress) -> list[str]:
    # regular files only, memory checked first; a cancel point every 64 MB
    return read_text_lines(path, progress=report)


class _Rows:
    """The data lines of a file: their numbers (from 1) and stripped texts, as two arrays
    rather than a tuple per line. Indexing gives ``(number, text)``, a slice gives rows,
    iterating gives the pairs in order."""

    __slots__ = ("numbers", "texts")

    def __init__(self, numbers: np.ndarray, texts: list[str]) -> None:
        self.numbers = numbers
        self.texts = texts

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, i: int) -> tuple[int, str]: ...

    @overload
    def __getitem__(self, i: slice) -> _Rows: ...

    def __getitem__(self, i: int | slice) -> tuple[int, str] | _Rows:
        if isinstance(i, slice):
            return _Rows(self.numbers[i], self.texts[i])
        return int(self.numbers[i]), self.texts[i]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return zip(self.numbers.tolist(), self.texts)


def _data_lines(lines: list[str]) -> _Rows:
    """The lines that are neither blank nor comments, with their numbers (the blank and
    comment lines found by one scan of the joined text, not a loop over the lines)."""
    texts = list(map(str.strip, lines))
    if not texts:
        return _Rows(np.zeros(0, dtype=np.int64), [])
    starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(np.fromiter(map(len, texts[:-1]), dtype=np.int64, count=len(texts) - 1) + 1,
              out=starts[1:])
    joined = "\n" + "\n".join(texts) + "\n"  # (a match is at the newline before its line)
    skip = np.fromiter((m.start() for m in _SKIPPED.finditer(joined)), dtype=np.int64)
    if skip.size == 0:
        return _Rows(np.arange(1, len(texts) + 1, dtype=np.int64), texts)
    keep = np.ones(len(texts), dtype=bool)
    keep[np.searchsorted(starts, skip)] = False
    at = np.flatnonzero(keep)
    return _Rows(at + 1, _pick(texts, at))


_SKIPPED = re.compile(r"\n(?=[#\n])")  # an empty line or a comment (lines are stripped)


def _pick(items: list[str], at: np.ndarray) -> list[str]:
    """``items[i]`` for every i of ``at`` (one C call)."""
    if at.size == 0:
        return []
    got = operator.itemgetter(*at.tolist())(items)
    return [got] if at.size == 1 else list(got)


def _int(path: str, line: int, text: str, what: str, upper: int | None = None) -> int:
    try:
        v = int(text)
    except ValueError:
        raise fail(path, line, f"{what} {text!r} is not an integer") from None
    if upper is None and v >= _INT_TOP:  # (an index the arrays cannot hold)
        raise fail(path, line, f"{what} {text} is too large")
    if v < 0 or (upper is not None and v >= upper):
        raise fail(path, line, f"{what} {v} is outside [0, {upper})" if upper is not None
                   else f"{what} {v} is negative")
    return v


def _header(path: str, rows: _Rows, sizes: Sequence[int], what: str
            ) -> tuple[int, list[int]]:
    if not rows:
        raise fail(path, None, f"is empty (expected the header line {what})")
    line, text = rows[0]
    toks = text.split()
    if len(toks) not in sizes:
        raise fail(path, line, f"the first line must be {what}, got {text!r}")
    return line, [_int(path, line, t, "count") for t in toks]


class _Irregular(Exception):
    """The bulk reading of a .tra met something it does not handle: the line-by-line
    reading runs instead (and names the line)."""


#: Lines of a .tra read between two progress reports (and chances to cancel).
CHUNK = 1 << 17


def _bulk_tra(rows: _Rows, n_fields: int, S: int, report: Progress,
              *, labels: bool = True, fractions: bool = True) -> tuple[Any, ...]:
    """(src, choice, dst, value, line, label keys, labels) of the lines ``s [k] t value
    [label]`` (``n_fields`` without the label; a label only with ``labels``, a fraction
    a/b only with ``fractions``), parsed as whole arrays :data:`CHUNK` lines at a time;
    anything the line-by-line reading would refuse or label differently raises
    :class:`_Irregular`."""
    m = len(rows)
    cols: list[list[np.ndarray]] = [[] for _ in range(4)]
    keys: list[np.ndarray] = []
    words: list[str] = []
    for lo in range(0, m, CHUNK):
        report(lo / max(m, 1), "reading the transitions")
        texts = rows.texts[lo:lo + CHUNK]
        pick, labelled, label_words = _chunk_columns(texts, n_fields, labels)
        ints, prob = _chunk_numbers(pick, n_fields, fractions)
        src, dst = ints[0], ints[-1]
        cho = ints[1] if n_fields == 4 else np.zeros(len(texts), dtype=np.int64)
        if (src >= S).any() or (dst >= S).any() or not np.isfinite(prob).all():
            raise _Irregular
        if label_words:
            at = np.flatnonzero(labelled)
            keys.append(np.stack([src[at], cho[at]]))
            words += label_words
        for j, arr in enumerate((src, cho, dst, prob)):
            cols[j].append(arr)
    line_no = rows.numbers
    out = [np.concatenate(c) if c else np.zeros(0) for c in cols]
    label_keys, label_words = _choice_labels(np.concatenate(keys, axis=1) if keys else
                                             np.zeros((2, 0), dtype=np.int64), words)
    return (out[0].astype(np.int64), out[1].astype(np.int64), out[2].astype(np.int64),
            out[3].astype(np.float64), line_no, label_keys, label_words)


def _uniform_tokens(texts: list[str], width: int) -> list[str] | None:
    """The tokens of ``texts`` when every line holds exactly ``width`` of them, else None:
    the lines are joined with a ``;`` token between them (after checking no line holds a
    ``;``), so one ``split`` finds every token and the separators' places prove the count
    of each line (the separator follows every ``width`` tokens, and nowhere else)."""
    joined = " ; ".join(texts)
    n = len(texts)
    if joined.count(";") != n - 1:
        return None
    toks = joined.split()
    if len(toks) != n * (width + 1) - 1 or toks[width::width + 1].count(";") != n - 1:
        return None
    return toks


def _chunk_columns(texts: list[str], n_fields: int, labels: bool
                   ) -> tuple[list[list[str]], np.ndarray, list[str]]:
    """The ``n_fields`` number columns of the lines ``texts``, which lines hold a label
    (``labels`` only) and the labels; a line with another count of tokens raises
    :class:`_Irregular`. Lines of one width (PRISM writes them so) are split once, with the
    width proven by :func:`_uniform_tokens`; others are counted on the text's bytes."""
    n = len(texts)
    for width in ((n_fields + 1, n_fields) if labels else (n_fields,)):
        toks = _uniform_tokens(texts, width)
        if toks is not None:
            step = width + 1
            pick = [toks[j::step] for j in range(n_fields)]
            if width == n_fields:
                return pick, np.zeros(n, dtype=bool), []
            return pick, np.ones(n, dtype=bool), toks[n_fields::step]
    text = "\n".join(texts)
    if not text.isascii():
        raise _Irregular
    raw = np.frombuffer(text.encode("ascii") + b"\n", dtype=np.uint8)
    blank = (raw == 32) | (raw == 9) | (raw == 10) | ((raw >= 11) & (raw <= 13)) | (
        (raw >= 28) & (raw <= 31))
    starts = np.flatnonzero(~blank & np.concatenate([[True], blank[:-1]]))
    per_line = np.bincount(np.searchsorted(np.flatnonzero(raw == 10), starts),
                           minlength=n)[:n]
    toks = text.split()
    ptr = np.concatenate([[0], np.cumsum(per_line)])
    labelled = per_line == n_fields + 1 if labels else np.zeros(n, dtype=bool)
    if not ((per_line == n_fields) | labelled).all():
        raise _Irregular
    pick = [_pick(toks, ptr[:-1] + j) for j in range(n_fields)]
    return pick, labelled, _pick(toks, ptr[:-1][labelled] + n_fields)


def _chunk_numbers(pick: list[list[str]], n_fields: int, fractions: bool
                   ) -> tuple[list[np.ndarray], np.ndarray]:
    """The integer columns (all but the last of ``pick``) and the value column as arrays.
    Integers must be ASCII digits only (what ``int`` reads without a sign, an underscore or
    another script's digits), so one ``np.fromstring`` pass reads them all exactly; values
    are read by ``float`` (or :func:`parse_probability` for fractions a/b, ``fractions``
    only). Anything else raises :class:`_Irregular`."""
    n = len(pick[0])
    digits = " ".join(chain.from_iterable(pick[:-1]))
    if not (digits.isascii() and digits.replace(" ", "").isdigit()):
        raise _Irregular  # (an empty chunk has no lines; the loop gives none)
    flat = np.fromstring(digits, dtype=np.int64, sep=" ")
    if flat.size != n * (n_fields - 1) or (flat == _INT_TOP).any():
        raise _Irregular
    ints = list(flat.reshape(n_fields - 1, n))
    try:
        try:
            prob = np.fromiter(map(float, pick[-1]), dtype=np.float64, count=n)
        except ValueError:
            if not fractions:
                raise
            prob = np.fromiter(map(parse_probability, pick[-1]), dtype=np.float64, count=n)
    except ValueError:
        raise _Irregular from None
    return ints, prob


def _choice_labels(keys: np.ndarray, words: list[str]
                   ) -> tuple[list[tuple[int, int]], list[str]]:
    """The (state, choice) keys and labels of the labelled lines, each choice once in the
    order it first appears; a choice with two labels raises :class:`_Irregular` (the
    line-by-line reading names the line)."""
    if not words:
        return [], []
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    codes = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
    key = keys[0] * (int(keys[1].max()) + 1) + keys[1]
    order = np.argsort(key, kind="stable")
    same = key[order][1:] == key[order][:-1]
    if (same & (codes[order][1:] != codes[order][:-1])).any():
        raise _Irregular
    first = np.sort(order[np.concatenate([[True], ~same])])
    return (list(zip(keys[0][first].tolist(), keys[1][first].tolist())),
            _pick(words, first))


def _read_tra(path: str, report: Progress = no_progress) -> ModelParts:
    lines = _open(path, sub_progress(report, 0.0, 0.1))
    rows = _data_lines(lines)
    hline, head = _header(path, rows, (2, 3), "'S C T' (MDP) or 'S T' (DTMC)")
    mdp = len(head) == 3
    S = head[0]
    if S < 1:
        raise fail(path, hline, "a model needs at least one state")
    # the header's sizes against the memory before arrays of their size (the states'
    # names, rewards and the model); the transitions' own arrays follow the file's lines,
    # whose count is checked against the header below
    check_declared(path, hline, file_bytes=os.path.getsize(path), sizes={
        "states": (S, 0, "the header"), "choices": (head[1] if mdp else None, 0, "the header"),
        "transitions": (head[-1], 0, "the header")}, separate_lines=False)
    n_fields = 4 if mdp else 3
    m = len(rows) - 1
    try:
        bulk: tuple[Any, ...] | None = _bulk_tra(rows[1:], n_fields, S,
                                                 sub_progress(report, 0.1, 1.0))
    except _Irregular:
        bulk = None
    if bulk is not None:
        src, cho, dst, prob, ln, keys, words = bulk
        return _tra_parts(path, hline, head, mdp, S, src, cho, dst, prob, ln,
                          dict(zip(keys, words)))
    src = np.empty(m, dtype=np.int64)
    cho = np.zeros(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    prob = np.empty(m)
    ln = np.empty(m, dtype=np.int64)
    action_labels: dict[tuple[int, int], str] = {}
    for i, (line, text) in enumerate(rows[1:]):
        toks = text.split()
        if toks[0] == "-":
            raise fail(path, line, "observation lines (POMDPs) are not supported")
        if len(toks) not in (n_fields, n_fields + 1):
            raise fail(path, line, f"expected 's {'k ' if mdp else ''}t p [action]', got "
                       f"{text!r}")
        s = _int(path, line, toks[0], "state", S)
        k = _int(path, line, toks[1], "choice") if mdp else 0
        t = _int(path, line, toks[n_fields - 2], "target state", S)
        p_text = toks[n_fields - 1]
        if p_text.startswith("["):
            raise fail(path, line, "an interval probability: this is an interval model; "
                       "import the point model (PrivPlan writes interval models, the robust "
                       "set of a private model, but analyses point models)")
        try:
            p = parse_probability(p_text)
        except ValueError:
            raise fail(path, line, f"probability {p_text!r} is not a number") from None
        src[i], cho[i], dst[i], prob[i], ln[i] = s, k, t, p, line
        if len(toks) == n_fields + 1:
            prev = action_labels.setdefault((s, k), toks[-1])
            if prev != toks[-1]:
                raise fail(path, line, f"choice {k} of state {s} is labelled {prev!r} on an "
                           f"earlier line and {toks[-1]!r} here")
    return _tra_parts(path, hline, head, mdp, S, src, cho, dst, prob, ln, action_labels)


def _tra_parts(path: str, hline: int, head: list[int], mdp: bool, S: int, src: np.ndarray,
               cho: np.ndarray, dst: np.ndarray, prob: np.ndarray, ln: np.ndarray,
               action_labels: dict[tuple[int, int], str]) -> ModelParts:
    """The parsed .tra after its counts are checked against the header."""
    m = src.size
    declared = head[-1]
    if declared != m:
        raise fail(path, hline, f"the header declares {declared:,} transitions, the file has "
                   f"{m:,}")
    if mdp and m:
        n_choices = np.unique(src * (int(cho.max()) + 1) + cho).size
        if n_choices != head[1]:
            raise fail(path, hline, f"the header declares {head[1]:,} choices, the file has "
                       f"{n_choices:,}")
    return ModelParts(n_states=S, src=src, choice=cho, dst=dst, prob=prob, line=ln, path=path,
                      action_labels=action_labels, labels={}, kind="MDP" if mdp else "DTMC")


def _read_lab(path: str, S: int) -> dict[str, list[int]]:
    rows = _data_lines(_open(path))
    if not rows:
        return {}
    line, text = rows[0]
    found = _LABEL.findall(text)
    if not found or _LABEL.sub("", text).strip():
        raise fail(path, line, f"the first line must list the labels as 0=\"init\" "
                   f"1=\"deadlock\" …, got {text!r}")
    names: dict[int, str] = {}
    for idx, name in found:
        names[int(idx)] = name
    out: dict[str, list[int]] = {n: [] for n in names.values()}
    for line, text in rows[1:]:
        head, sep, rest = text.partition(":")
        if not sep:
            raise fail(path, line, f"expected 's: i j …', got {text!r}")
        s = _int(path, line, head.strip(), "state", S)
        for tok in rest.split():
            i = _int(path, line, tok, "label index")
            if i not in names:
                raise fail(path, line, f"label index {i} is not declared on the first line")
            out[names[i]].append(s)
    return out


def _read_sta(path: str, S: int) -> tuple[list[str], tuple[str, ...]]:
    rows = _data_lines(_open(path))
    if not rows:
        raise fail(path, None, "is empty (expected '(v1,…,vn)' and one line per state)")
    line, text = rows[0]
    if not (text.startswith("(") and text.endswith(")")):
        raise fail(path, line, f"the first line must be '(v1,…,vn)', got {text!r}")
    variables = tuple(v.strip() for v in text[1:-1].split(","))
    names: list[str | None] = [None] * S
    for line, text in rows[1:]:
        head, sep, rest = text.partition(":")
        if not sep or not (rest.startswith("(") and rest.endswith(")")):
            raise fail(path, line, f"expected 's:(x1,…,xn)', got {text!r}")
        s = _int(path, line, head.strip(), "state", S)
        if names[s] is not None:
            raise fail(path, line, f"state {s} is listed twice")
        names[s] = rest
    missing = [i for i, n in enumerate(names) if n is None]
    if missing:
        raise fail(path, None, f"has no line for state {missing[0]} ({len(missing)} state(s) "
                   "missing)")
    return [str(n) for n in names], variables


def _reward_header(path: str, lines: list[str]) -> str | None:
    for text in lines:
        m = _REWARD_NAME.match(text.strip())
        if m:
            return m.group(1)
        if text.strip() and not text.lstrip().startswith("#"):
            break
    return None


def _read_srew(path: str, S: int) -> tuple[str | None, np.ndarray]:
    lines = _open(path)
    rows = _data_lines(lines)
    hline, head = _header(path, rows, (2,), "'S N' (states, non-zero rewards)")
    if head[0] != S:
        raise fail(path, hline, f"the header declares {head[0]:,} states, the model has {S:,}")
    out = np.zeros(S)
    for line, text in rows[1:]:
        toks = text.split()
        if len(toks) != 2:
            raise fail(path, line, f"expected 's r', got {text!r}")
        s = _int(path, line, toks[0], "state", S)
        try:
            out[s] = parse_probability(toks[1]) if "/" in toks[1] else float(toks[1])
        except ValueError:
            raise fail(path, line, f"reward {toks[1]!r} is not a number") from None
        if not np.isfinite(out[s]):
            raise fail(path, line, f"reward {toks[1]!r} is not finite")
    if len(rows) - 1 != head[1]:
        raise fail(path, hline, f"the header declares {head[1]:,} rewards, the file has "
                   f"{len(rows) - 1:,}")
    return _reward_header(path, lines), out


def _repeated(src: np.ndarray, cho: np.ndarray, dst: np.ndarray) -> bool:
    """Whether a (state, choice, target) appears twice (sorted, neighbours compared)."""
    order = np.lexsort((dst, cho, src))
    s, k, t = src[order], cho[order], dst[order]
    return bool(((s[1:] == s[:-1]) & (k[1:] == k[:-1]) & (t[1:] == t[:-1])).any())


def _read_trew(path: str, S: int, mdp: bool
               ) -> tuple[str | None, dict[tuple[int, int, int], float] | TransitionRewards]:
    lines = _open(path)
    rows = _data_lines(lines)
    hline, head = _header(path, rows, (3,) if mdp else (2,),
                          "'S C N'" if mdp else "'S N'")
    if head[0] != S:
        raise fail(path, hline, f"the header declares {head[0]:,} states, the model has {S:,}")
    n = 4 if mdp else 3
    try:  # in bulk; anything irregular is read line by line (exact messages)
        src, cho, dst, val, _, _, _ = _bulk_tra(rows[1:], n, S, no_progress, labels=False,
                                                fractions=False)
        if len(rows) - 1 == head[-1] and not _repeated(src, cho, dst):
            return _reward_header(path, lines), TransitionRewards(src, cho, dst, val)
    except _Irregular:
        pass
    out: dict[tuple[int, int, int], float] = {}
    for line, text in rows[1:]:
        toks = text.split()
        if len(toks) != n:
            raise fail(path, line, f"expected '{'s k t r' if mdp else 's t r'}', got {text!r}")
        s = _int(path, line, toks[0], "state", S)
        k = _int(path, line, toks[1], "choice") if mdp else 0
        t = _int(path, line, toks[n - 2], "target state", S)
        try:
            r = float(toks[-1])
        except ValueError:
            raise fail(path, line, f"reward {toks[-1]!r} is not a number") from None
        if not np.isfinite(r):
            raise fail(path, line, f"reward {toks[-1]!r} is not finite")
        if (s, k, t) in out:
            raise fail(path, line, f"the reward of state {s}, choice {k}, target {t} is "
                       "given twice")
        out[(s, k, t)] = r
    if len(rows) - 1 != head[-1]:
        raise fail(path, hline, f"the header declares {head[-1]:,} rewards, the file has "
                   f"{len(rows) - 1:,}")
    return _reward_header(path, lines), out


def read_prism(files: Sequence[str | os.PathLike[str]], *, horizon: int | None = None,
               discount: float | None = None, reward: str | None = None,
               name: str | None = None, progress: Progress | None = None) -> ImportResult:
    """Import a PRISM model from its explicit files (one ``.tra``, optional ``.lab``,
    ``.sta`` and any number of ``.srew``/``.trew``).

    Parameters
    ----------
    files : sequence of path
        The files, told apart by their suffix.
    horizon, discount :
        The PrivPlan model's horizon (finite) or discount (infinite horizon); see
        :func:`core.mdp.interop.common.horizon_and_discount`.
    reward : str, optional
        The reward structure r(s, a) comes from (default: the first).
    name : str, optional
        The model's name (default: the ``.tra`` file's stem).
    progress : Progress, optional
        Called with the fraction done (non-decreasing, in [0, 1]) and what is being done:
        every :data:`CHUNK` transition lines, between the files and before the model is
        built. It may raise :class:`core.common.progress.Cancelled` to stop the import
        (which propagates).

    Returns
    -------
    ImportResult
        The model (labels and every reward structure in its annotations) and warnings.

    Raises
    ------
    InputError
        Naming the file and the line.
    """
    paths = [str(f) for f in files]
    by: dict[str, list[str]] = {}
    for p in paths:
        suffix = Path(p).suffix.lower()
        if suffix not in PRISM_SUFFIXES:
            raise InputError(f"unknown PRISM file type {suffix!r} (expected "
                             f"{', '.join(PRISM_SUFFIXES)})", file=p)
        by.setdefault(suffix, []).append(p)
    for suffix in (".tra", ".lab", ".sta"):
        if len(by.get(suffix, [])) > 1:
            raise InputError(f"give one {suffix} file, not {len(by[suffix])}", file=by[suffix][1])
    if ".tra" not in by:
        raise InputError("a PRISM model needs its .tra file", field="FILE")
    tra = by[".tra"][0]
    report = progress if progress is not None else no_progress
    report(0.0, "reading the transitions")
    parts = _read_tra(tra, sub_progress(report, 0.0, 0.6))
    report(0.6, "reading labels, names and rewards")
    S = parts.n_states
    if ".lab" in by:
        parts.labels = _read_lab(by[".lab"][0], S)
    if ".sta" in by:
        parts.state_names, parts.variables = _read_sta(by[".sta"][0], S)
    rewards: dict[str, Any] = {}
    for p in by.get(".srew", []):
        rname, vec = _read_srew(p, S)
        key = rname or (Path(p).stem if len(by[".srew"]) > 1 else "r")
        _, ch, tr = rewards.get(key, (None, None, None))
        rewards[key] = (vec, ch, tr)
    for p in by.get(".trew", []):
        rname, trans = _read_trew(p, S, parts.kind == "MDP")
        key = rname or (Path(p).stem if len(by[".trew"]) > 1 else "r")
        st, ch, _ = rewards.get(key, (None, None, None))
        rewards[key] = (st, ch, trans)
    parts.rewards = rewards
    report(0.7, "building the model")
    result = build_model(parts, horizon=horizon, discount=discount, reward=reward,
                         name=name if name is not None else Path(tra).name.split(".")[0],
                         files=paths)
    report(1.0, "model imported")
    return result


# ------------------------------------------------------------------------------ writing
def _tra_lines(mdp: MDP, values: "list[str]") -> tuple[str, list[str]]:
    """The .tra text (header and lines) with ``values[e]`` the text of entry e."""
    t = mdp.transitions
    labels, warnings = export_names(mdp)
    s_of, k_of, row = _entry_choices(mdp)
    # the label written after each line of a choice (" label", or nothing if unlabelled)
    tails = np.full(t.n_rows, "", dtype=object)
    ss, aa = np.nonzero(mdp.mask)
    tails[ss * mdp.n_actions + aa] = [f" {lab}" if lab is not None else ""
                                      for lab in chain.from_iterable(labels)]
    out = [f"{mdp.n_states} {int(mdp.mask.sum())} {t.nnz}"]
    out += map("{} {} {} {}{}".format, s_of.tolist(), k_of.tolist(), t.indices.tolist(),
               values, tails[row].tolist())
    return "\n".join(out) + "\n", warnings


def _entry_choices(mdp: MDP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(state, choice index among the state's available actions, row s·A + a) of every
    CSR entry: the "s k" a .tra or .trew line starts with."""
    t = mdp.transitions
    row = t.row_of_entry()
    rank = (np.cumsum(mdp.mask, axis=1) - 1).reshape(-1)
    return row // mdp.n_actions, rank[row], row


def _lab_text(mdp: MDP) -> str:
    labels = export_labels(mdp)
    names = list(labels)
    head = " ".join(f'{i}="{n}"' for i, n in enumerate(names))
    per_state: dict[int, list[int]] = {}
    for i, n in enumerate(names):
        for s in labels[n].tolist():
            per_state.setdefault(int(s), []).append(i)
    lines = [head] + [f"{s}: {' '.join(map(str, sorted(ix)))}" for s, ix in sorted(
        per_state.items())]
    return "\n".join(lines) + "\n"


def _reward_files(mdp: MDP, stem: str) -> list[str]:
    rewards = export_rewards(mdp)
    written: list[str] = []
    t = mdp.transitions
    S = mdp.n_states
    used = mdp.annotations.reward_used if mdp.annotations is not None else None
    order = sorted(rewards, key=lambda k: (k != (used or "r"), list(rewards).index(k)))
    for i, rname in enumerate(order):
        rs = rewards[rname]
        base = stem if i == 0 else f"{stem}_{rname}"
        if rs.state is not None:
            nz = np.flatnonzero(rs.state)
            lines = [f'# Reward structure "{rname}"', "# State rewards", f"{S} {nz.size}"]
            lines += map("{} {}".format, nz.tolist(), number_texts(rs.state[nz]))
            atomic_write_text(base + ".srew", "\n".join(lines) + "\n")
            written.append(base + ".srew")
        if rs.choice is not None or rs.transition is not None:
            per = np.zeros(t.nnz)
            if rs.transition is not None:
                per += rs.transition
            if rs.choice is not None:
                per += np.repeat(rs.choice.reshape(-1), np.diff(t.indptr))
            s_of, k_of, _ = _entry_choices(mdp)
            nz = np.flatnonzero(per)
            body = list(map("{} {} {} {}".format, s_of[nz].tolist(), k_of[nz].tolist(),
                            t.indices[nz].tolist(), number_texts(per[nz])))
            lines = [f'# Reward structure "{rname}"', "# Transition rewards",
                     f"{S} {int(mdp.mask.sum())} {len(body)}"] + body
            atomic_write_text(base + ".trew", "\n".join(lines) + "\n")
            written.append(base + ".trew")
    return written


def _unwritten_names(mdp: MDP) -> list[str]:
    """A warning when the model's own state names have no place in the files: PRISM's
    explicit format names states only by number (a ``.sta`` holds variable values, written
    for a model that was imported with one; a label is a set of states, not a name)."""
    ann = mdp.annotations
    if mdp.state_names.is_default("s") or (ann is not None and ann.variables):
        return []
    shown = ", ".join(repr(n) for n in list(mdp.state_names)[:3])
    more = ", …" if mdp.n_states > 3 else ""
    return [f"the {mdp.n_states} state names ({shown}{more}) are not written: PRISM's explicit "
            "files number the states 0…S-1 in the model's order and have no place for names "
            "(export --format drn keeps them)"]


def _sta_text(mdp: MDP) -> str | None:
    ann = mdp.annotations
    if ann is None or not ann.variables:
        return None
    lines = ["(" + ",".join(ann.variables) + ")"]
    lines += [f"{s}:{n}" for s, n in enumerate(mdp.state_names)]
    return "\n".join(lines) + "\n"


def write_prism(mdp: MDP, stem: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Write ``mdp`` as PRISM explicit files ``STEM.tra``, ``STEM.lab``, rewards and (for a
    model imported with a ``.sta``) ``STEM.sta``; every file atomically.

    Parameters
    ----------
    mdp : MDP
        The model.
    stem : path
        The files' common path without suffix.

    Returns
    -------
    (list of str, list of str)
        The files written and warnings.
    """
    stem = str(stem)
    t = mdp.transitions
    text, warnings = _tra_lines(mdp, number_texts(t.data))
    warnings += _unwritten_names(mdp)
    atomic_write_text(stem + ".tra", text)
    files = [stem + ".tra"]
    atomic_write_text(stem + ".lab", _lab_text(mdp))
    files.append(stem + ".lab")
    sta = _sta_text(mdp)
    if sta is not None:
        atomic_write_text(stem + ".sta", sta)
        files.append(stem + ".sta")
    files += _reward_files(mdp, stem)
    return files, warnings


def write_prism_interval(mdp: MDP, stem: str | os.PathLike[str], lower: np.ndarray,
                         upper: np.ndarray) -> tuple[list[str], list[str]]:
    """Write ``mdp`` with the interval ``[lower[e], upper[e]]`` on each stored transition
    as a PRISM interval MDP (``.tra`` with ``[l,u]`` probabilities, ``.lab``, rewards).

    Parameters
    ----------
    mdp : MDP
        The model whose transitions get the intervals.
    stem : path
        The files' common path without suffix.
    lower, upper : numpy.ndarray
        (nnz,) interval ends, in the order of the model's CSR entries.

    Returns
    -------
    (list of str, list of str)
        The files written and warnings.
    """
    stem = str(stem)
    values = list(map("[{},{}]".format, number_texts(lower), number_texts(upper)))
    text, warnings = _tra_lines(mdp, values)
    warnings += _unwritten_names(mdp)
    atomic_write_text(stem + ".tra", text)
    files = [stem + ".tra"]
    atomic_write_text(stem + ".lab", _lab_text(mdp))
    files.append(stem + ".lab")
    sta = _sta_text(mdp)
    if sta is not None:
        atomic_write_text(stem + ".sta", sta)
        files.append(stem + ".sta")
    files += _reward_files(mdp, stem)
    return files, warnings
