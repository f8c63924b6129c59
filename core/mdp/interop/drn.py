"""Storm's explicit DRN format (``.drn``), in and out.

The format is that of Storm's ``DirectEncodingParser``::

    @type: MDP
    @value_type: double            (double-interval for interval models)
    @parameters
                                   (an empty line: no parameters)
    @reward_models
    time cost                      (reward model names, blank-separated)
    @nr_states
    3
    @nr_choices
    4
    @model
    state 0 [1, 0] init            (state rewards, one per reward model; labels)
    //(x=0)                        (a comment after a state: its name; Storm writes valuations)
    	action go [0, 2]             (action label or __NOLABEL__; action rewards)
    		1 : 0.5                    (target : probability, or [l, u] for an interval)
    		2 : 0.5

A ``DTMC`` is read as an MDP with one choice per state. Parametric, continuous-time and
partially observable models are refused. Every error names the file and the line.

Size: one file format both ways: the header guard, the bulk (whole-array) reader, the
line-by-line reader it falls back to for exact messages on irregular files, and the plain and
interval writers all share the format's grammar and its error texts; split apart, each half
would restate them.

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "m.drn")
>>> with open(p, "w") as fh:
...     _ = fh.write("@type: MDP\\n@parameters\\n\\n@reward_models\\n\\n@nr_states\\n2\\n"
...                  "@nr_choices\\n2\\n@model\\nstate 0 init\\n\\taction go\\n\\t\\t1 : 1\\n"
...                  "state 1 goal\\n\\taction stay\\n\\t\\t1 : 1\\n")
>>> r = read_drn(p, horizon=3)
>>> r.mdp.action_names[0], r.mdp.annotations.labels["goal"].tolist()
(('go',), [1])
"""

from __future__ import annotations

import math
import operator
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.atomic import atomic_write_text
from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.mdp.interop.common import (
    ImportResult,
    ModelParts,
    build_model,
    check_declared,
    export_labels,
    export_names,
    export_rewards,
    fail,
    number_text,
    number_texts,
    parse_probability,
    read_text_lines,
)
from core.mdp.model import MDP

__all__ = ["read_drn", "write_drn", "write_drn_interval", "NOLABEL"]

NOLABEL = "__NOLABEL__"
_LABEL_RE = re.compile(r'"([^"]+?)"(?=\s|$|")|([^\s"]+)')


def _rewards(path: str, line: int, text: str, n: int) -> tuple[list[float], str]:
    """Parse ``[r1, r2, …]`` at the start of ``text``: (values, the rest)."""
    end = text.find("]")
    if end < 0:
        raise fail(path, line, "']' missing after the rewards")
    try:
        vals = [float(x) for x in text[1:end].split(",")]
    except ValueError:
        raise fail(path, line, f"rewards {text[:end + 1]!r} are not numbers") from None
    if not all(map(math.isfinite, vals)):
        raise fail(path, line, "rewards must be finite")
    if n and len(vals) > n:
        raise fail(path, line, f"{len(vals)} rewards for {n} reward model(s)")
    return vals, text[end + 1:].strip()


class _Irregular(Exception):
    """The bulk reading of the transition lines met something it does not handle: the
    line-by-line reading runs instead (and names the line)."""


@dataclass
class _Body:
    """What the @model section holds."""

    src: "np.ndarray | list[int]"
    cho: "np.ndarray | list[int]"
    dst: "np.ndarray | list[int]"
    prob: "np.ndarray | list[float]"
    lno: "np.ndarray | list[int]"
    labels: dict[str, list[int]]
    state_rew: np.ndarray
    choice_rew: list[dict[tuple[int, int], float]]
    action_labels: dict[tuple[int, int], str]
    names: list[str | None]
    state: int
    choices: int


_STATE_RE = re.compile(r"^[ \t]*state[ \t]+([0-9]+)(?:[ \t]+(\[[^\]\n]*\]))?"
                       r"(?:[ \t]+([^\s!{\[][^\n]*?))?[ \t]*$", re.M)
#: Lines read between two progress reports (and chances to cancel).
CHUNK = 1 << 17
# (each match begins at the newline before its line: a literal the scan finds quickly)
_ACTION_RE = re.compile(r"\n[ \t]*action[ \t]+([^\s\[]\S*)(?:[ \t]+(\[[^\]\n]*\]))?[ \t]*(?=\n)")


def _model_lines(lines: list[str], model_at: int) -> tuple[np.ndarray, np.ndarray]:
    """(the lines of states, actions, comments; the other non-empty lines: transitions),
    told apart by the first bytes after each line's indentation (whole-array operations on
    the section's bytes, no loop over its lines). A line that only other whitespace leaves
    empty counts as a transition line here: the bulk reading then meets it and the
    line-by-line reading runs."""
    body = lines[model_at:]
    n = len(body)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    raw = np.frombuffer(("\n".join(body) + "\n" + "\0" * 8).encode("utf-8"), dtype=np.uint8)
    ends = np.flatnonzero(raw == 10)[:n]  # the newline ending each line
    at = np.zeros(n, dtype=np.int64)
    at[1:] = ends[:-1] + 1
    indented = np.flatnonzero((raw[at] == 9) | (raw[at] == 32))
    while indented.size:  # past the indentation (a newline is neither a tab nor a blank)
        at[indented] += 1
        c = raw[at[indented]]
        indented = indented[(c == 9) | (c == 32)]

    first = raw[at]
    maybe = np.flatnonzero((first == 115) | (first == 97) | (first == 47))  # s, a, /
    structural = np.zeros(n, dtype=bool)
    for word in (b"state ", b"action ", b"//"):
        hit = np.ones(maybe.size, dtype=bool)
        for i, ch in enumerate(word):
            hit &= raw[at[maybe] + i] == ch
        structural[maybe[hit]] = True
    blank = first == 10
    return (np.flatnonzero(structural) + model_at,
            np.flatnonzero(~structural & ~blank) + model_at)


def _kinds(lines: list[str], order: np.ndarray) -> np.ndarray:
    """(n,) the kind of each structural line: 0 state, 1 action, 2 comment."""
    first = [x.lstrip()[:2] for x in _pick(lines, order)]
    code = {"st": 0, "ac": 1, "//": 2}
    return np.fromiter(map(code.__getitem__, first), dtype=np.int8, count=len(first))


def _pick(lines: list[str], at: np.ndarray) -> list[str]:
    """``lines[i]`` for every i of ``at`` (one C call)."""
    if at.size == 0:
        return []
    got = operator.itemgetter(*at.tolist())(lines)
    return [got] if at.size == 1 else list(got)


def _bulk_transitions(path: str, lines: list[str], s_at: np.ndarray, a_at: np.ndarray,
                      t_at: np.ndarray, S: int, report: Progress
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(src, choice, dst, prob, line) of the transition lines ``t_at``, parsed in bulk
    (:data:`CHUNK` lines at a time, ``report`` between them): the owner of a line is the
    last action line before it, which must follow the last state line. Anything irregular
    raises :class:`_Irregular`."""
    a_state = np.searchsorted(s_at, a_at) - 1  # the state of each action line
    k_of = np.arange(a_at.size) - np.searchsorted(a_state, a_state)  # its index there
    owner = np.searchsorted(a_at, t_at) - 1
    last_state = np.searchsorted(s_at, t_at) - 1
    if (owner < 0).any() or (a_state[owner] != last_state).any() or (a_state < 0).any():
        raise _Irregular
    dst = np.empty(t_at.size, dtype=np.int64)
    prob = np.empty(t_at.size, dtype=np.float64)
    for lo in range(0, t_at.size, CHUNK):
        report(lo / max(t_at.size, 1), "reading the transitions")
        hi = min(lo + CHUNK, t_at.size)
        dst[lo:hi], prob[lo:hi] = _transition_numbers(_pick(lines, t_at[lo:hi]))
    if ((dst < 0) | (dst >= S)).any() or not np.isfinite(prob).all():
        raise _Irregular
    return a_state[owner], k_of[owner], dst, prob, t_at + 1


def _transition_numbers(chunk: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(targets, probabilities) of ``target : probability`` lines; anything else raises
    :class:`_Irregular`."""
    n = len(chunk)
    text = "\n".join(chunk)
    if text.count(":") != n:
        raise _Irregular
    parts = text.replace(":", " ").split()
    if len(parts) != 2 * n:
        raise _Irregular
    try:
        dst = np.fromiter(map(int, parts[0::2]), dtype=np.int64, count=n)
        try:
            prob = np.fromiter(map(float, parts[1::2]), dtype=np.float64, count=n)
        except ValueError:  # fractions a/b
            prob = np.fromiter(map(parse_probability, parts[1::2]), dtype=np.float64, count=n)
    except ValueError:
        raise _Irregular from None
    return dst, prob


class _BodyReader:
    """The @model section read line by line: one method per kind of line, in file order."""

    def __init__(self, path: str, S: int, nr: int) -> None:
        self.path, self.S, self.nr = path, S, nr
        self.src: list[int] = []
        self.cho: list[int] = []
        self.dst: list[int] = []
        self.prob: list[float] = []
        self.lno: list[int] = []
        self.labels: dict[str, list[int]] = {}
        self.state_rew = np.zeros((nr, S))
        self.choice_rew: list[dict[tuple[int, int], float]] = [{} for _ in range(nr)]
        self.action_labels: dict[tuple[int, int], str] = {}
        self.names: list[str | None] = [None] * S
        self.state = -1
        self.k = -1
        self.choices = 0
        self.last_was_state = False

    def line(self, ln: int, raw: str) -> None:
        text = raw.strip()
        if not text:
            return
        if text.startswith("//"):
            state = self.state
            if self.last_was_state and state >= 0 and self.names[state] is None:
                self.names[state] = text[2:]
            return
        self.last_was_state = False
        if text.startswith("state "):
            self.state_line(ln, text)
        elif text.startswith("action "):
            self.action_line(ln, text)
        else:
            self.transition_line(ln, text)

    def state_line(self, ln: int, text: str) -> None:
        path, S, state = self.path, self.S, self.state
        toks = text[6:].split(None, 1)
        try:
            sid = int(toks[0])
        except ValueError:
            raise fail(path, ln, f"state id {toks[0]!r} is not a number") from None
        if sid != state + 1:
            raise fail(path, ln, f"states must be numbered in order without gaps: "
                       f"expected {state + 1}, got {sid}")
        if sid >= S:
            raise fail(path, ln, f"more states than @nr_states = {S}")
        self.state, self.k = sid, -1
        state = sid
        rest = toks[1].strip() if len(toks) > 1 else ""
        if rest.startswith("!") or rest.startswith("{"):
            raise fail(path, ln, "exit rates and observations are not supported")
        if rest.startswith("["):
            vals, rest = _rewards(path, ln, rest, self.nr)
            for j, v in enumerate(vals):
                self.state_rew[j, state] = v
        for quoted, plain in _LABEL_RE.findall(rest):
            self.labels.setdefault(quoted or plain, []).append(state)
        self.last_was_state = True

    def action_line(self, ln: int, text: str) -> None:
        path, state = self.path, self.state
        if state < 0:
            raise fail(path, ln, "an action before the first state")
        self.k += 1
        self.choices += 1
        k = self.k
        toks = text[7:].split(None, 1)
        label = toks[0]
        rest = toks[1].strip() if len(toks) > 1 else ""
        if label.startswith("["):  # "action [r]" without a name
            raise fail(path, ln, "the action needs a name (or __NOLABEL__) before its "
                       "rewards")
        if label != NOLABEL:
            self.action_labels[(state, k)] = label
        if rest.startswith("["):
            vals, rest = _rewards(path, ln, rest, self.nr)
            if len(vals) < self.nr:  # one value per declared reward model
                raise fail(path, ln, f"{len(vals)} rewards for {self.nr} reward model(s)")
            for j, v in enumerate(vals):
                if v != 0:
                    self.choice_rew[j][(state, k)] = v
        if rest:
            raise fail(path, ln, f"unexpected {rest!r} after the action")

    def transition_line(self, ln: int, text: str) -> None:
        path, S = self.path, self.S
        if self.k < 0:
            raise fail(path, ln, "a transition before the first action of its state")
        head, sep, val = text.partition(":")
        if not sep:
            raise fail(path, ln, f"expected 'target : probability', got {text!r}")
        try:
            t = int(head.strip())
        except ValueError:
            raise fail(path, ln, f"target {head.strip()!r} is not a number") from None
        if not 0 <= t < S:
            raise fail(path, ln, f"target state {t} is outside [0, {S})")
        val = val.strip()
        if val.startswith("["):
            raise fail(path, ln, "an interval probability: this is an interval model; "
                       "import the point model")
        try:
            p = parse_probability(val)
        except ValueError:
            raise fail(path, ln, f"probability {val!r} is not a number") from None
        self.src.append(self.state)
        self.cho.append(self.k)
        self.dst.append(t)
        self.prob.append(p)
        self.lno.append(ln)


def _columns(found: list[tuple[str, ...]], n: int) -> list[list[str]]:
    """The ``n`` groups of regular-expression matches as ``n`` lists (C loops)."""
    return [list(map(operator.itemgetter(j), found)) for j in range(n)]


def _bulk_actions(lines: list[str], a_at: np.ndarray, s_at: np.ndarray, nr: int
                  ) -> tuple[dict[tuple[int, int], str], list[dict[tuple[int, int], float]]]:
    """(action labels, choice rewards) of the action lines ``a_at``, parsed as arrays; an
    action line that is not ``action NAME`` with no or exactly ``nr`` finite rewards
    raises :class:`_Irregular`."""
    a_state = np.searchsorted(s_at, a_at) - 1
    k_of = np.arange(a_at.size) - np.searchsorted(a_state, a_state)
    found = _ACTION_RE.findall("\n" + "\n".join(_pick(lines, a_at)) + "\n")
    if len(found) != a_at.size or (a_state < 0).any():
        raise _Irregular
    labels, texts = _columns(found, 2)
    keys = list(zip(a_state.tolist(), k_of.tolist()))
    named = dict(zip(keys, labels))
    if NOLABEL in named.values():
        named = {key: lab for key, lab in named.items() if lab != NOLABEL}
    vals = _reward_table(texts, nr, exact=True)
    choice_rew: list[dict[tuple[int, int], float]] = []
    for j in range(nr):
        nz = np.flatnonzero(vals[:, j])
        choice_rew.append(dict(zip([keys[i] for i in nz.tolist()], vals[nz, j].tolist())))
    return named, choice_rew


def _reward_table(texts: list[str], nr: int, *, exact: bool) -> np.ndarray:
    """(len(texts), nr) the rewards ``[r1, …]`` of each text ("" none: zeros); a text with
    more than ``nr`` values (or fewer, when ``exact``) or a value that is not a finite
    number raises :class:`_Irregular`."""
    out = np.zeros((len(texts), nr))
    given = np.flatnonzero(np.fromiter(map(bool, texts), dtype=bool, count=len(texts)))
    if not given.size:
        return out
    present = list(filter(None, texts))
    counts = np.fromiter(map(str.count, present, [","] * len(present)), dtype=np.int64,
                         count=len(present)) + 1
    if nr == 0 or (counts > nr).any() or (exact and (counts != nr).any()):
        raise _Irregular
    joined = ",".join(present)
    if joined.count("[") != len(present):  # (each text is one "[…]")
        raise _Irregular
    try:
        vals = np.fromiter(map(float, joined.replace("[", "").replace("]", "").split(",")),
                           dtype=np.float64)
    except ValueError:
        raise _Irregular from None
    if not np.isfinite(vals).all():
        raise _Irregular
    row = np.repeat(given, counts)
    ptr = np.concatenate([[0], np.cumsum(counts)[:-1]])
    out[row, np.arange(vals.size) - np.repeat(ptr, counts)] = vals
    return out


def _bulk_states(lines: list[str], order: np.ndarray, kinds: np.ndarray, S: int, nr: int
                 ) -> tuple[dict[str, list[int]], np.ndarray, list[str | None]]:
    """(labels, state rewards (nr, S), names) of the state lines and the comments right
    after them, parsed as arrays; states not numbered 0, 1, … S-1 in order, rewards that are
    not finite numbers, exit rates or observations raise :class:`_Irregular`."""
    found = _STATE_RE.findall("\n".join(_pick(lines, order[kinds == 0])))
    if len(found) != int((kinds == 0).sum()) or len(found) != S:
        raise _Irregular
    ids, rew, rest = _columns(found, 3)
    if ids != [str(i) for i in range(S)]:
        raise _Irregular
    state_rew = _reward_table(rew, nr, exact=False).T.copy()
    labels: dict[str, list[int]] = {}
    for s in np.flatnonzero(np.fromiter(map(bool, rest), dtype=bool, count=S)).tolist():
        for quoted, plain in _LABEL_RE.findall(rest[s]):
            labels.setdefault(quoted or plain, []).append(s)
    names: list[str | None] = [None] * S
    naming = np.flatnonzero((kinds == 2) & np.concatenate([[False], kinds[:-1] == 0]))
    if naming.size:
        owner = np.cumsum(kinds == 0)[naming - 1] - 1
        texts = [x.strip()[2:] for x in _pick(lines, order[naming])]
        if naming.size == S:
            names = list(texts)
        else:
            for s_, text in zip(owner.tolist(), texts):
                names[s_] = text
    return labels, state_rew, names


def _read_body(path: str, lines: list[str], model_at: int, S: int, nr: int,
               report: Progress = no_progress, *, bulk: bool) -> _Body:
    """The @model section: line by line (every check, in file order), or with ``bulk`` its
    state, action, comment and transition lines parsed as whole arrays (anything irregular
    raises :class:`_Irregular`, and the caller reads the section line by line)."""
    if not bulk:
        r = _BodyReader(path, S, nr)
        n = len(lines) - model_at
        for idx in range(model_at, len(lines)):
            if (idx - model_at) % CHUNK == 0:
                report((idx - model_at) / n, "reading the model line by line")
            r.line(idx + 1, lines[idx])
        return _Body(r.src, r.cho, r.dst, r.prob, r.lno, r.labels, r.state_rew,
                     r.choice_rew, r.action_labels, r.names, r.state, r.choices)
    report(0.0, "finding the states, actions and transitions")
    order, trans = _model_lines(lines, model_at)
    kinds = _kinds(lines, order)
    s_at, a_at = order[kinds == 0], order[kinds == 1]
    report(0.1, "reading the actions")
    action_labels, choice_rew = _bulk_actions(lines, a_at, s_at, nr)
    report(0.2, "reading the states")
    labels, state_rew, names = _bulk_states(lines, order, kinds, S, nr)
    src, cho, dst, prob, lno = _bulk_transitions(path, lines, s_at, a_at, trans, S,
                                                 sub_progress(report, 0.3, 1.0))
    return _Body(src, cho, dst, prob, lno, labels, state_rew, choice_rew,
                 action_labels, names, S - 1, int(a_at.size))


@dataclass
class _Header:
    """What a .drn declares before ``@model``."""

    kind: str
    value_type: str | None
    counts: dict[str, int]  # @nr_states, @nr_choices, @nr_transitions when declared
    reward_names: list[str]
    model_at: int  # the first line after @model


_COUNTS = ("@nr_states", "@nr_choices", "@nr_transitions")


def _read_header(path: str, lines: list[str]) -> _Header:
    """The header lines, up to ``@model`` (InputError naming the line of anything else)."""
    kind = value_type = None
    counts: dict[str, int] = {}
    reward_names: list[str] = []
    i = 0
    model_at = None
    while i < len(lines):
        text = lines[i].strip()
        ln = i + 1
        i += 1
        if not text or text.startswith("//"):
            continue
        if text.startswith("@type:"):
            kind = text[6:].strip()
        elif text.startswith("@value_type:"):
            value_type = text[12:].strip()
        elif text == "@parameters":
            params = lines[i].strip() if i < len(lines) else ""
            i += 1
            if params:
                raise fail(path, ln + 1, f"parametric models are not supported ({params!r})")
        elif text == "@placeholders":
            raise fail(path, ln, "placeholders are not supported")
        elif text == "@reward_models":
            reward_names = lines[i].split() if i < len(lines) else []
            i += 1
        elif text in _COUNTS:
            try:
                counts[text] = int(lines[i].strip())
            except (ValueError, IndexError):
                raise fail(path, ln + 1, f"{text} must be followed by a number") from None
            i += 1
        elif text == "@model":
            model_at = i
            break
        else:
            raise fail(path, ln, f"could not parse {text!r}")
    kind = _check_kind(path, kind, value_type)
    if model_at is None:
        raise fail(path, None, "no '@model' section")
    return _Header(kind, value_type, counts, reward_names, model_at)


def _check_kind(path: str, kind: str | None, value_type: str | None) -> str:
    """The model type, if PrivPlan imports it (a point MDP or DTMC)."""
    if kind is None:
        raise fail(path, None, "no '@type:' line")
    if kind not in ("MDP", "DTMC"):
        raise fail(path, None, f"model type {kind!r} is not supported (MDP or DTMC)")
    if value_type not in (None, "double", "rational"):
        raise fail(path, None, f"value type {value_type!r} is not supported: PrivPlan imports "
                   "point models (double)")
    return kind


def read_drn(path: str | os.PathLike[str], *, horizon: int | None = None,
             discount: float | None = None, reward: str | None = None,
             name: str | None = None, progress: Progress | None = None) -> ImportResult:
    """Import a Storm ``.drn`` model (module docstring).

    Parameters
    ----------
    path : path
        The file.
    horizon, discount, reward, name :
        See :func:`core.mdp.interop.prism.read_prism`.
    progress : Progress, optional
        Called with the fraction done (non-decreasing, in [0, 1]) and what is being done:
        between reading, parsing and building the model and every :data:`CHUNK` lines of
        transitions. It may raise :class:`core.common.progress.Cancelled` to stop the
        import (which propagates).

    Returns
    -------
    ImportResult

    Raises
    ------
    InputError
        Naming the file and the line.
    """
    path = str(path)
    report = progress if progress is not None else no_progress
    report(0.0, "reading the file")
    # regular files only, memory checked first; a cancel point every 64 MB
    lines = read_text_lines(path, progress=sub_progress(report, 0.0, 0.1))
    report(0.1, "reading the header")
    head = _read_header(path, lines)
    n_states, n_choices = head.counts.get("@nr_states"), head.counts.get("@nr_choices")
    n_transitions, reward_names, model_at = (head.counts.get("@nr_transitions"),
                                             head.reward_names, head.model_at)
    if not n_states or n_states < 1:
        raise fail(path, None, "@nr_states must be declared (>= 1) before @model")
    # the declared sizes are checked against the file and the memory before any array of
    # their size is made ("state 0\n" takes 8 bytes, "action a\n" 9, "0:1\n" 4)
    check_declared(path, None, file_bytes=os.path.getsize(path), sizes={
        "states": (n_states, 8, "@nr_states"), "choices": (n_choices, 9, "@nr_choices"),
        "transitions": (n_transitions, 4, "@nr_transitions")})
    S = n_states
    nr = len(reward_names)
    try:  # transitions in bulk; anything irregular is read line by line (exact messages)
        body = _read_body(path, lines, model_at, S, nr, sub_progress(report, 0.1, 0.4),
                          bulk=True)
    except (_Irregular, InputError):  # (its progress continues where the bulk one stopped)
        body = _read_body(path, lines, model_at, S, nr, sub_progress(report, 0.4, 0.7),
                          bulk=False)
    names, state, choices, prob = body.names, body.state, body.choices, body.prob
    state_rew, choice_rew = body.state_rew, body.choice_rew
    if state + 1 != S:
        raise fail(path, None, f"@nr_states declares {S} states, the model has {state + 1}")
    if n_transitions is not None and n_transitions != len(prob):
        raise fail(path, None, f"@nr_transitions declares {n_transitions} transitions, the "
                   f"model has {len(prob)}")
    if n_choices is not None and n_choices != choices:
        raise fail(path, None, f"@nr_choices declares {n_choices} choices, the model has "
                   f"{choices}")
    given = [n for n in names if n is not None]
    parts = ModelParts(
        n_states=S, src=np.asarray(body.src, dtype=np.int64),
        choice=np.asarray(body.cho, dtype=np.int64), dst=np.asarray(body.dst, dtype=np.int64),
        prob=np.asarray(prob, dtype=np.float64), line=np.asarray(body.lno, dtype=np.int64),
        path=path, action_labels=body.action_labels, labels=body.labels,
        state_names=[n if n is not None else f"s{i}" for i, n in enumerate(names)]
        if len(given) == S else None, kind=head.kind)
    parts.rewards = {rn: (state_rew[j] if state_rew[j].any() else None,
                          choice_rew[j] or None, None) for j, rn in enumerate(reward_names)}
    report(0.7, "building the model")
    result = build_model(parts, horizon=horizon, discount=discount, reward=reward,
                         name=name if name is not None else Path(path).name.split(".")[0],
                         files=[path])
    report(1.0, "model imported")
    return result


def _drn_text(mdp: MDP, entries: list[str], value_type: str) -> tuple[str, list[str]]:
    """The file's text; ``entries[e]`` is the line of CSR entry e ("\t\tt : value")."""
    t = mdp.transitions
    A = mdp.n_actions
    labels_of, warnings = export_names(mdp)
    rewards = export_rewards(mdp)
    rnames = list(rewards)
    # DRN has state and action rewards: transition rewards become action rewards (their
    # expectation; exact when they are the same for every next state of the choice)
    state_r = [rewards[n].state for n in rnames]
    action_r: list[np.ndarray | None] = []
    folded = False
    for n in rnames:
        rs = rewards[n]
        acc = None
        if rs.choice is not None:
            acc = np.array(rs.choice, dtype=np.float64)
        if rs.transition is not None:
            from core.mdp.annotations import RewardStructure, derived_rewards

            part, more = derived_rewards(RewardStructure(transition=rs.transition), t.indptr,
                                         t.data, mdp.n_states, A)
            folded = folded or bool(more)
            acc = part if acc is None else acc + part
        action_r.append(acc)
    if folded:
        warnings.append("DRN has no transition rewards: rewards that depend on the next state "
                        "were written as their expectation per action")
    labels = export_labels(mdp)
    per_state: dict[int, list[str]] = {}
    for lab, states in labels.items():
        for s in states.tolist():
            per_state.setdefault(int(s), []).append(lab)
    names = mdp.state_names
    write_names = not names.is_default("s")
    indptr = t.indptr.tolist()
    out = ["// Exported by PrivPlan", "// Original model type: MDP", "@type: MDP",
           f"@value_type: {value_type}", "@parameters", "", "@reward_models",
           " ".join(rnames), "@nr_states", str(mdp.n_states), "@nr_choices",
           str(int(mdp.mask.sum())), "@model"]

    def rew(vals: list[float]) -> str:
        return " [" + ", ".join(number_text(v) for v in vals) + "]" if rnames else ""

    for s in range(mdp.n_states):
        labs = "".join(f' "{lab}"' if any(c.isspace() for c in lab) else f" {lab}"
                       for lab in per_state.get(s, []))
        out.append(f"state {s}" + rew([float(x[s]) if x is not None else 0.0
                                       for x in state_r]) + labs)
        if write_names:
            out.append("//" + names[s])
        for k, a in enumerate(np.flatnonzero(mdp.mask[s]).tolist()):
            written = labels_of[s][k]
            out.append(f"\taction {written if written is not None else NOLABEL}" + rew(
                [float(x[s, a]) if x is not None else 0.0 for x in action_r]))
            r = s * A + a
            out += entries[indptr[r]:indptr[r + 1]]
    return "\n".join(out) + "\n", warnings


def write_drn(mdp: MDP, stem: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Write ``mdp`` as ``STEM.drn`` (atomically).

    Parameters
    ----------
    mdp : MDP
        The model.
    stem : path
        The file's path without ``.drn``.

    Returns
    -------
    (list of str, list of str)
        The file written and warnings.
    """
    path = str(stem) + ".drn"
    t = mdp.transitions
    text, warnings = _drn_text(mdp, list(map("\t\t{} : {}".format, t.indices.tolist(),
                                             number_texts(t.data))), "double")
    atomic_write_text(path, text)
    return [path], warnings


def write_drn_interval(mdp: MDP, stem: str | os.PathLike[str], lower: np.ndarray,
                       upper: np.ndarray) -> tuple[list[str], list[str]]:
    """Write ``mdp`` with interval ``[lower[e], upper[e]]`` transitions as ``STEM.drn``
    (``@value_type: double-interval``, Storm's interval MDP).

    Parameters
    ----------
    mdp : MDP
        The model.
    stem : path
        The file's path without ``.drn``.
    lower, upper : numpy.ndarray
        (nnz,) interval ends, in the order of the model's CSR entries.

    Returns
    -------
    (list of str, list of str)
        The file written and warnings.
    """
    path = str(stem) + ".drn"
    entries = list(map("\t\t{} : [{}, {}]".format, mdp.transitions.indices.tolist(),
                       number_texts(lower), number_texts(upper)))
    text, warnings = _drn_text(mdp, entries, "double-interval")
    atomic_write_text(path, text)
    return [path], warnings
