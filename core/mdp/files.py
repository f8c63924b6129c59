"""Read and write MDP interchange files: ``*.mdp.json`` (version 1) and ``*.mdp.npz``.

The shapes are fixed by ``docs/formats-and-cli.md`` §1–§2. Every problem raises
:class:`core.common.errors.InputError` naming the file, the field and what is wrong.

Examples
--------
>>> d = {"format": "privplan-mdp", "version": 1, "states": ["a", "b"],
...      "initial_state": "a", "horizon": 2, "discount": 1.0,
...      "transitions": {"a": {"go": {"b": 1.0}}, "b": {"stay": {"b": 1.0}}},
...      "terminal_rewards": {"b": 1.0}}
>>> m = mdp_from_dict(d)
>>> m.P[0, 0].tolist(), m.R_T.tolist()
([0.0, 1.0], [0.0, 1.0])
>>> mdp_to_dict(m)["transitions"]["a"]
{'go': {'b': 1.0}}
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from core.common.atomic import atomic_write_bytes, atomic_write_text
from core.common.errors import InputError
from core.common.jsonfile import loads_strict, read_json
from core.common.progress import Progress, no_progress, sub_progress
from core.mdp.annotations import Annotations, RewardStructure
from core.mdp.model import MDP
from core.mdp.names import ActionNames, Names
from core.mdp.sparse import Transitions, uses_dense

__all__ = ["MDP_FORMAT", "MDP_VERSION", "load_mdp", "save_mdp", "mdp_from_dict", "mdp_to_dict",
           "read_json", "read_release", "npz_headers", "npz_arrays"]

MDP_FORMAT = "privplan-mdp"
MDP_VERSION = 1
#: A JSON model's reading reports progress (and can be cancelled) every this many states.
PROGRESS_STATES = 1 << 16


def _number(x: Any, field: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise InputError(f"must be a number, got {x!r}", field=field)
    if not math.isfinite(x):
        raise InputError(f"must be finite, got {x!r}", field=field)
    return float(x)


def _mapping(x: Any, field: str) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise InputError(f"must be an object, got {type(x).__name__}", field=field)
    return x


def mdp_from_dict(d: Any, *, progress: Progress | None = None) -> MDP:
    """Build an :class:`MDP` from the ``*.mdp.json`` dictionary shape.

    Parameters
    ----------
    d : Any
        The parsed ``*.mdp.json`` object.
    progress : Progress, optional
        Called every :data:`PROGRESS_STATES` states read and before the model is checked
        (it may raise :class:`core.common.progress.Cancelled`, which propagates).

    Returns
    -------
    MDP
        Validated (rows sum to 1, rewards finite, names unique).

    Raises
    ------
    InputError
        Naming the field and the problem.
    """
    d = _mapping(d, "(top level)")
    _check_header(d)
    states = d.get("states")
    if not isinstance(states, list) or not states or not all(isinstance(s, str) for s in states):
        raise InputError("must be a non-empty list of state names", field="states")
    index = {s: i for i, s in enumerate(states)}
    if len(index) != len(states):
        dup = next(s for s in states if states.count(s) > 1)
        raise InputError(f"state {dup!r} is listed twice", field="states")
    trans = _mapping(d.get("transitions"), "transitions")
    actions = _action_lists(states, index, trans)
    S, A = len(states), max(len(a) for a in actions)
    report = progress if progress is not None else no_progress
    mask, anames, coo = _transition_entries(states, index, actions, trans, A, report)
    R = _json_rewards(d, index, actions, S, A)
    R_T = np.zeros(S)
    for s, r in _mapping(d.get("terminal_rewards", {}) or {}, "terminal_rewards").items():
        R_T[_state_index(index, s, "terminal_rewards")] = _number(r, f"terminal_rewards.{s}")
    horizon, discount = _json_horizon_discount(d)
    s0 = d.get("initial_state", states[0])
    s0_idx = s0 if isinstance(s0, int) and not isinstance(s0, bool) and 0 <= s0 < S \
        else _state_index(index, s0, "initial_state")
    layout = _json_layout(d.get("layout"), index)
    name = d.get("name", "")
    # (each next state appears once per row: JSON object keys are unique)
    sparse = Transitions.from_coo(S, A, *coo)
    # small models keep their dense arrays (and the checks on them)
    P: "Transitions | np.ndarray" = sparse.to_dense() if uses_dense(S, A) else sparse
    report(0.9, "checking the model")
    mdp = MDP(P=P, R=R, R_T=R_T, mask=mask, horizon=horizon, discount=discount,
              initial_state=s0_idx, state_names=tuple(states),
              action_names=tuple(tuple(r) for r in anames),
              name=str(name) if name is not None else "", layout=layout)
    ann = _annotations_from_json(d, mdp)
    return mdp if ann is None else mdp.replace(annotations=ann)


def _check_header(d: dict[str, Any]) -> None:
    """The ``format`` and ``version`` keys (both optional) name a file this PrivPlan reads."""
    fmt = d.get("format", MDP_FORMAT)
    if fmt != MDP_FORMAT:
        raise InputError(f"must be {MDP_FORMAT!r}, got {fmt!r}", field="format")
    ver = d.get("version", MDP_VERSION)
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        raise InputError(f"must be a positive integer, got {ver!r}", field="version")
    if ver > MDP_VERSION:
        raise InputError(f"file is version {ver}; this PrivPlan reads up to {MDP_VERSION}",
                         field="version")


def _state_index(index: dict[str, int], name: Any, field: str) -> int:
    """The index of the state called ``name`` (an unknown one is refused naming ``field``)."""
    if not isinstance(name, str) or name not in index:
        raise InputError(f"unknown state {name!r}", field=field)
    return index[name]


def _action_lists(states: list[str], index: dict[str, int], trans: dict[str, Any]
                  ) -> list[list[str]]:
    """The action names of every state in file order, after checking that the dense arrays
    fit and that every state of ``transitions`` is known and has an action."""
    n_actions = max((len(v) for v in trans.values() if isinstance(v, dict)), default=1)
    if uses_dense(len(states), n_actions):  # dense arrays: fit before building (sparse rows
        from core.common.resources import check_model_memory  # grow with the file's entries)

        check_model_memory(len(states), n_actions, "states")
    for s in trans:
        _state_index(index, s, "transitions")
    actions: list[list[str]] = []
    for s in states:
        acts = _mapping(trans.get(s, {}), f"transitions.{s}")
        if not acts:
            raise InputError(f"state {s!r} has no actions", field=f"transitions.{s}")
        actions.append(list(acts))
    return actions


def _transition_entries(states: list[str], index: dict[str, int], actions: list[list[str]],
                        trans: dict[str, Any], A: int, report: Progress
                        ) -> tuple[np.ndarray, list[list[str]],
                                   tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(mask, action names padded with "", COO (row, next state, probability) arrays) of
    the ``transitions`` object, every entry checked."""
    S = len(states)
    mask = np.zeros((S, A), dtype=bool)
    anames = [[""] * A for _ in range(S)]
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for i, s in enumerate(states):
        if i % PROGRESS_STATES == 0:
            report(0.9 * i / S, "reading the transitions")
        for j, a in enumerate(actions[i]):
            mask[i, j] = True
            anames[i][j] = a
            row = _mapping(trans[s][a], f"transitions.{s}.{a}")
            for t, p in row.items():
                rows.append(i * A + j)
                cols.append(_state_index(index, t, f"transitions.{s}.{a}"))
                vals.append(_number(p, f"transitions.{s}.{a}.{t}"))
    coo = (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64),
           np.array(vals, dtype=np.float64))
    return mask, anames, coo


def _json_rewards(d: dict[str, Any], index: dict[str, int], actions: list[list[str]],
                  S: int, A: int) -> np.ndarray:
    """The (S, A) rewards of the ``rewards`` object (state -> action -> reward)."""
    R = np.zeros((S, A))
    for s, acts in _mapping(d.get("rewards", {}) or {}, "rewards").items():
        i = _state_index(index, s, "rewards")
        for a, r in _mapping(acts, f"rewards.{s}").items():
            if a not in actions[i]:
                raise InputError(f"state {s!r} has no action {a!r}", field=f"rewards.{s}")
            R[i, actions[i].index(a)] = _number(r, f"rewards.{s}.{a}")
    return R


def _json_horizon_discount(d: dict[str, Any]) -> tuple[Any, float]:
    """(horizon as given, discount): the discount defaults to 1 for a finite horizon and
    is required for an infinite one."""
    horizon = d.get("horizon", None)
    if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, int)):
        raise InputError(f"must be an integer >= 1 or null, got {horizon!r}", field="horizon")
    raw_discount = d.get("discount", 1.0 if horizon is not None else None)
    if raw_discount is None:
        raise InputError("is required for an infinite horizon (0 < discount < 1)",
                         field="discount")
    return horizon, _number(raw_discount, "discount")


def _json_layout(layout: Any, index: dict[str, int]) -> Any:
    """The optional ``layout`` object (state -> [x, y]), checked; None when absent."""
    if layout is None:
        return None
    layout = _mapping(layout, "layout")
    for s, xy in layout.items():
        _state_index(index, s, "layout")
        if not isinstance(xy, list) or len(xy) != 2:
            raise InputError(f"must be [x, y], got {xy!r}", field=f"layout.{s}")
        _number(xy[0], f"layout.{s}")
        _number(xy[1], f"layout.{s}")
    return layout


def mdp_to_dict(mdp: MDP) -> dict[str, Any]:
    """The ``*.mdp.json`` dictionary of ``mdp`` (sparse rows, file order = index order).

    Parameters
    ----------
    mdp : MDP
        The model.

    Returns
    -------
    dict
        The ``privplan-mdp`` object (sparse transitions and rewards by name).
    """
    names = list(mdp.state_names)
    trans: dict[str, Any] = {}
    rewards: dict[str, Any] = {}
    tr = mdp.transitions
    indptr, indices, data = tr.indptr.tolist(), tr.indices.tolist(), tr.data.tolist()
    A = mdp.n_actions
    for s in range(mdp.n_states):
        acts: dict[str, Any] = {}
        for a in mdp.available_actions(s):
            an = mdp.action_names.name(s, a)
            r = s * A + a
            acts[an] = {names[t]: p for t, p in zip(indices[indptr[r]:indptr[r + 1]],
                                                    data[indptr[r]:indptr[r + 1]])}
            if mdp.R[s, a] != 0:
                rewards.setdefault(names[s], {})[an] = float(mdp.R[s, a])
        trans[names[s]] = acts
    out: dict[str, Any] = {
        "format": MDP_FORMAT, "version": MDP_VERSION, "name": mdp.name, "states": list(names),
        "initial_state": names[mdp.initial_state], "horizon": mdp.horizon,
        "discount": mdp.discount, "transitions": trans, "rewards": rewards,
        "terminal_rewards": {names[s]: float(mdp.R_T[s]) for s in np.flatnonzero(mdp.R_T)},
    }
    if mdp.layout:
        out["layout"] = {k: [v[0], v[1]] for k, v in mdp.layout.items()}
    if mdp.annotations is not None:
        out.update(_annotations_to_json(mdp, names))
    return out


def _annotations_to_json(mdp: MDP, names: list[str]) -> dict[str, Any]:
    """The optional keys ``labels``, ``reward_structures``, ``reward_used`` and
    ``state_variables`` (a model imported from PRISM or Storm)."""
    ann = mdp.annotations
    assert ann is not None
    out: dict[str, Any] = {"labels": {k: [names[i] for i in v.tolist()]
                                      for k, v in ann.labels.items()}}
    t = mdp.transitions
    A = mdp.n_actions
    structures: dict[str, Any] = {}
    for rname, rs in ann.rewards.items():
        d: dict[str, Any] = {}
        if rs.state is not None:
            d["state"] = {names[i]: float(rs.state[i]) for i in np.flatnonzero(rs.state)}
        if rs.choice is not None:
            ch: dict[str, Any] = {}
            for s, a in np.argwhere(rs.choice != 0):
                ch.setdefault(names[s], {})[mdp.action_names.name(s, a)] = float(
                    rs.choice[s, a])
            d["choice"] = ch
        if rs.transition is not None:
            tr: dict[str, Any] = {}
            for e in np.flatnonzero(rs.transition):
                r = int(np.searchsorted(t.indptr, e, side="right")) - 1
                s, a = divmod(r, A)
                tr.setdefault(names[s], {}).setdefault(mdp.action_names.name(s, a), {})[
                    names[int(t.indices[e])]] = float(rs.transition[e])
            d["transition"] = tr
        structures[rname] = d
    out["reward_structures"] = structures
    out["reward_used"] = ann.reward_used
    if ann.variables:
        out["state_variables"] = list(ann.variables)
    return out


def _annotations_from_json(d: dict[str, Any], mdp: MDP) -> Annotations | None:
    """The inverse of :func:`_annotations_to_json` (None when the keys are absent)."""
    if not any(k in d for k in ("labels", "reward_structures", "state_variables")):
        return None
    names = mdp.state_names
    labels: dict[str, Any] = {}
    for lab, states in _mapping(d.get("labels", {}) or {}, "labels").items():
        if not isinstance(states, list):
            raise InputError("must be a list of state names", field=f"labels.{lab}")
        try:
            labels[lab] = [names.index(s) for s in states]
        except ValueError:
            raise InputError("names an unknown state", field=f"labels.{lab}") from None
    rewards: dict[str, RewardStructure] = {}
    for rname, rd in _mapping(d.get("reward_structures", {}) or {},
                              "reward_structures").items():
        rd = _mapping(rd, f"reward_structures.{rname}")
        where = f"reward_structures.{rname}"
        try:
            state = _json_state_rewards(rd, where, mdp) if "state" in rd else None
            choice = _json_choice_rewards(rd, where, mdp) if "choice" in rd else None
            trans = _json_transition_rewards(rd, where, mdp) if "transition" in rd else None
        except ValueError:  # (an InputError inside too: the structure is named whole)
            raise InputError("names an unknown state or action", field=where) from None
        rewards[rname] = RewardStructure(state=state, choice=choice, transition=trans)
    used = d.get("reward_used")
    variables = d.get("state_variables", []) or []
    if not isinstance(variables, list):
        raise InputError("must be a list of names", field="state_variables")
    return Annotations(labels=labels, rewards=rewards,
                       reward_used=str(used) if used is not None else None,
                       variables=tuple(str(v) for v in variables))


def _json_state_rewards(rd: dict[str, Any], where: str, mdp: MDP) -> np.ndarray:
    """The (S,) state rewards of a reward structure's ``state`` object."""
    names = mdp.state_names
    state = np.zeros(mdp.n_states)
    for sname, r in _mapping(rd["state"], f"{where}.state").items():
        state[names.index(sname)] = _number(r, f"{where}.state.{sname}")
    return state


def _json_choice_rewards(rd: dict[str, Any], where: str, mdp: MDP) -> np.ndarray:
    """The (S, A) choice rewards of a reward structure's ``choice`` object."""
    names = mdp.state_names
    choice = np.zeros((mdp.n_states, mdp.n_actions))
    for sname, acts in _mapping(rd["choice"], f"{where}.choice").items():
        s = names.index(sname)
        for aname, r in _mapping(acts, f"{where}.choice.{sname}").items():
            choice[s, mdp.action_names[s].index(aname)] = _number(
                r, f"{where}.choice.{sname}.{aname}")
    return choice


def _json_transition_rewards(rd: dict[str, Any], where: str, mdp: MDP) -> np.ndarray:
    """The (nnz,) transition rewards of a reward structure's ``transition`` object (state
    -> action -> next state -> reward; only existing transitions)."""
    names = mdp.state_names
    t = mdp.transitions
    A = mdp.n_actions
    trans = np.zeros(t.nnz)
    for sname, acts in _mapping(rd["transition"], f"{where}.transition").items():
        s = names.index(sname)
        for aname, targets in _mapping(acts, f"{where}.transition.{sname}").items():
            a = mdp.action_names[s].index(aname)
            cols, _ = t.row(s, a)
            for tname, r in _mapping(targets, f"{where}.transition.{sname}.{aname}").items():
                j = int(np.searchsorted(cols, names.index(tname)))
                if j >= cols.size or cols[j] != names.index(tname):
                    raise InputError(f"{sname}/{aname} has no transition to "
                                     f"{tname!r}", field=f"{where}.transition")
                trans[int(t.indptr[s * A + a]) + j] = _number(
                    r, f"{where}.transition.{sname}.{aname}.{tname}")
    return trans


def _kind(path: str | os.PathLike[str]) -> str:
    name = str(path).lower()
    if name.endswith(".npz"):
        return "npz"
    if name.endswith(".json"):
        return "json"
    raise InputError("unknown MDP file type (expected *.mdp.json or *.mdp.npz)", file=str(path))


def load_mdp(path: str | os.PathLike[str], *, progress: Progress | None = None) -> MDP:
    """Read an ``*.mdp.json`` or ``*.mdp.npz`` file (errors name the file and field).

    Parameters
    ----------
    path : str or PathLike
        The file (``.npz`` by its name, JSON otherwise).
    progress : Progress, optional
        Called with the fraction done (non-decreasing, in [0, 1]) and what is being done:
        before each array of an NPZ or every :data:`PROGRESS_STATES` states of a JSON
        file, and between reading, checking and building. It may raise
        :class:`core.common.progress.Cancelled` to stop the load (which propagates; nothing
        is kept).

    Returns
    -------
    MDP
        The validated model.

    Raises
    ------
    InputError
        Naming the file and the field.
    """
    report = progress if progress is not None else no_progress
    try:
        report(0.0, "reading the file")
        if _kind(path) == "json":
            d = read_json(path)
            mdp = mdp_from_dict(d, progress=sub_progress(report, 0.3, 1.0))
        else:
            mdp = _load_npz(path, report)
        report(1.0, "model read")
        return mdp
    except InputError as exc:
        if exc.file:
            raise
        raise exc.with_file(str(path)) from None


def save_mdp(mdp: MDP, path: str | os.PathLike[str], *,
             release: dict[str, Any] | None = None) -> None:
    """Write ``mdp`` atomically, as JSON or NPZ by the file name.

    ``release`` (optional) is the metadata of a privatised model — its guarantee stated
    whole (see ``privatize``): a top-level ``"release"`` object in JSON, a 0-d string array
    ``release_json`` holding that object as JSON text in NPZ (an optional key, ignored by
    :func:`load_mdp`; read it with :func:`read_release`). Non-finite numbers become null
    with a ``…_reason`` (:func:`core.common.jsonable.jsonable`).

    Parameters
    ----------
    mdp : MDP
        The model.
    path : str or PathLike
        The file (``.npz`` by its name, JSON otherwise).
    release : dict, optional
        The metadata of a privatised model.
    """
    from core.common.jsonable import dumps, jsonable

    if _kind(path) == "json":
        d = mdp_to_dict(mdp)
        if release is not None:
            d["release"] = jsonable(release)
        atomic_write_text(path, json.dumps(d, indent=2, allow_nan=False) + "\n")
        return
    buf = io.BytesIO()
    arrays = npz_arrays(mdp)
    if release is not None:
        arrays["release_json"] = np.array(dumps(release), dtype=str)
    np.savez(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def _annotation_arrays(ann: Annotations) -> dict[str, Any]:
    """Labels as ``label_names``, ``label_ptr``, ``label_states`` (CSR); reward structures as
    ``reward_names`` and ``reward{i}_state|choice|transition``; ``reward_used``;
    ``state_variables``."""
    names = list(ann.labels)
    ptr = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum([ann.labels[n].size for n in names], out=ptr[1:])
    out: dict[str, Any] = {
        "label_names": np.array(names, dtype=str) if names else np.zeros(0, dtype="<U1"),
        "label_ptr": ptr,
        "label_states": np.concatenate([ann.labels[n] for n in names]) if names
        else np.zeros(0, dtype=np.int64)}
    rnames = list(ann.rewards)
    out["reward_names"] = np.array(rnames, dtype=str) if rnames else np.zeros(0, dtype="<U1")
    for i, rname in enumerate(rnames):
        rs = ann.rewards[rname]
        for part in ("state", "choice", "transition"):
            arr = getattr(rs, part)
            if arr is not None:
                out[f"reward{i}_{part}"] = arr
    if ann.reward_used is not None:
        out["reward_used"] = np.array(ann.reward_used, dtype=str)
    if ann.variables:
        out["state_variables"] = np.array(ann.variables, dtype=str)
    return out


def _annotations_from_arrays(data: dict[str, np.ndarray]) -> Annotations | None:
    if "label_names" not in data and "reward_names" not in data:
        return None
    labels: dict[str, np.ndarray] = {}
    if "label_names" in data:
        names = data["label_names"].astype(str).tolist()
        ptr = data.get("label_ptr")
        states = data.get("label_states")
        if ptr is None or states is None or ptr.shape != (len(names) + 1,) or ptr[0] != 0 \
                or ptr[-1] != states.size or (np.diff(ptr) < 0).any():
            raise InputError("must be the row starts of label_states, one per label + 1",
                             field="label_ptr")
        labels = {n: states[int(ptr[i]):int(ptr[i + 1])] for i, n in enumerate(names)}
    rewards: dict[str, RewardStructure] = {}
    for i, rname in enumerate(data.get("reward_names", np.zeros(0, dtype=str)).astype(
            str).tolist()):
        rewards[rname] = RewardStructure(**{
            part: data[f"reward{i}_{part}"].astype(np.float64)
            for part in ("state", "choice", "transition") if f"reward{i}_{part}" in data})
    used = str(data["reward_used"]) if "reward_used" in data else None
    variables = tuple(data["state_variables"].astype(str).tolist()) \
        if "state_variables" in data else ()
    return Annotations(labels=labels, rewards=rewards, reward_used=used, variables=variables)


def npz_arrays(mdp: MDP) -> dict[str, Any]:
    """The arrays of ``mdp``'s ``*.mdp.npz`` file.

    Small models (:func:`core.mdp.sparse.uses_dense`) are written in the dense variant
    (``P`` of shape (S, A, S), as always); larger ones in the sparse variant: ``P_indptr``
    (S·A + 1 row starts, row s·A + a), ``P_indices`` (next states, sorted per row) and
    ``P_data`` (probabilities), ``shape`` = (S, A), state names as UTF-8 bytes
    (``state_names_utf8``) with their ``state_names_offsets`` (absent when they are the
    default ``s0 …``), action names as ``action_names`` (A,) when every state has the same
    ones, else ``action_vocabulary`` and (S, A) ``action_codes`` into it.

    Parameters
    ----------
    mdp : MDP
        The model.

    Returns
    -------
    dict
        ``{name: array}`` for :func:`numpy.savez`.
    """
    arrays: dict[str, Any] = dict(
        R=mdp.R, R_T=mdp.R_T, mask=mdp.mask,
        horizon=np.int64(-1 if mdp.horizon is None else mdp.horizon),
        discount=np.float64(mdp.discount), initial_state=np.int64(mdp.initial_state))
    shared = mdp.action_names.shared_row()
    if mdp.annotations is not None:
        arrays.update(_annotation_arrays(mdp.annotations))
    if mdp.is_dense:
        arrays["P"] = mdp.P
        arrays["state_names"] = mdp.state_names.to_array()
        rows = mdp.action_names
        arrays["action_names"] = np.array(shared if shared is not None else list(rows),
                                          dtype=str)
        return arrays
    t = mdp.transitions
    arrays.update(P_indptr=t.indptr, P_indices=t.indices, P_data=t.data,
                  shape=np.array([mdp.n_states, mdp.n_actions], dtype=np.int64))
    names = mdp.state_names
    if not names.is_default("s"):
        encoded = [n.encode("utf-8") for n in names]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        arrays["state_names_utf8"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        arrays["state_names_offsets"] = offsets
    if shared is not None:
        arrays["action_names"] = np.array(shared, dtype=str)
    else:
        arrays["action_vocabulary"] = np.array(mdp.action_names.vocabulary, dtype=str)
        arrays["action_codes"] = mdp.action_names.codes
    return arrays


def read_release(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The ``release`` metadata a privatised MDP file carries (see :func:`save_mdp`), or
    None if it has none. Errors name the file.

    Parameters
    ----------
    path : str or PathLike
        An MDP file.

    Returns
    -------
    dict or None
        The ``release`` object.

    Raises
    ------
    InputError
        Naming the file when it cannot be read.
    """
    p = str(path)
    try:
        if _kind(path) == "json":
            data = read_json(path)
            rel = data.get("release") if isinstance(data, dict) else None
        else:
            from core.common.resources import load_npz

            found = load_npz(path, keys=("release_json",))
            if "release_json" not in found:
                return None
            text = str(found["release_json"])
            try:
                rel = loads_strict(text)
            except InputError:
                raise InputError("is not valid JSON", field="release_json") from None
    except InputError as exc:
        raise exc if exc.file else exc.with_file(p) from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"not a readable NPZ archive ({exc})", file=p) from None
    if rel is None:
        return None
    if not isinstance(rel, dict):
        raise InputError("must be an object", field="release", file=p)
    return rel


#: The arrays an MDP NPZ may hold, with the dtype kinds accepted for each.
_NPZ_KINDS = {"P": "fiu", "R": "fiu", "R_T": "fiu", "mask": "biu", "horizon": "iuf",
              "discount": "fiu", "initial_state": "iuf", "state_names": "U",
              "action_names": "U", "release_json": "U", "P_indptr": "iu", "P_indices": "iu",
              "P_data": "fiu", "shape": "iu", "state_names_utf8": "u",
              "state_names_offsets": "iu", "action_vocabulary": "U", "action_codes": "iu",
              "label_names": "U", "label_ptr": "iu", "label_states": "iu",
              "reward_names": "U", "reward_used": "U", "state_variables": "U"}


def npz_headers(path: str | os.PathLike[str]) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """The shape and dtype every array of an NPZ declares, read without loading any data.

    Parameters
    ----------
    path : str or PathLike
        The ``.npz`` file.

    Returns
    -------
    dict
        ``{name: (shape, dtype)}``.

    Raises
    ------
    InputError
        When the archive or a header is damaged, an array holds fewer bytes than its header
        declares (a truncated or forged file), or the arrays together need more memory than
        the machine allows (:func:`core.common.memory.check_memory`) — before any
        decompression.
    """
    from core.common.resources import MODEL_MEMORY_FACTOR, npz_inventory

    # the zip directory and every .npy header, nothing decompressed; the memory the model
    # will take (its arrays, their float64 copies, the validated MDP) checked up front
    inv = npz_inventory(path, factor=MODEL_MEMORY_FACTOR)
    return {k: (v.shape, v.dtype) for k, v in inv.items()}


def _npz_number(data: dict[str, np.ndarray], key: str) -> float:
    a = data[key]
    if a.size != 1 or a.ndim > 1:
        raise InputError(f"must be a single number, got an array of shape {a.shape}", field=key)
    x = a.reshape(()).item()
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise InputError(f"must be a finite number, got {x!r}", field=key)
    return float(x) if isinstance(x, float) else x


def _integer(data: dict[str, np.ndarray], key: str) -> int:
    x = _npz_number(data, key)
    if x != int(x):
        raise InputError(f"must be an integer, got {x!r}", field=key)
    return int(x)


def _npz_sparse_transitions(data: dict[str, Any]) -> tuple[Transitions, int, int]:
    """(CSR rows, S, A) of the ``shape``, ``P_indptr``, ``P_indices`` and ``P_data`` arrays
    (row starts, next-state ranges and their order checked)."""
    shape = data["shape"]
    if shape.shape != (2,):
        raise InputError(f"must be [S, A], got an array of shape {shape.shape}",
                         field="shape")
    S, A = (int(x) for x in shape)
    if S < 1 or A < 1:
        raise InputError(f"must be [S, A] with S, A >= 1, got [{S}, {A}]", field="shape")
    indptr, indices = data["P_indptr"], data["P_indices"]
    if indptr.shape != (S * A + 1,) or indptr[0] != 0 or not (indptr[1:] >= indptr[:-1]).all():
        raise InputError(f"must be {S * A + 1:,} non-decreasing row starts from 0",
                         field="P_indptr")
    if indices.size and (indices.min() < 0 or indices.max() >= S):
        raise InputError(f"next states must lie in [0, {S})", field="P_indices")
    if indices.size > 1:
        # each entry after the first of its row names a larger next state than the one
        # before it (in the file's own integer type: no widened copy)
        rising = indices[1:] > indices[:-1]
        starts = indptr[1:-1]
        rising[starts[(starts > 0) & (starts < indices.size)] - 1] = True
        if not rising.all():
            raise InputError("next states must be sorted and distinct within each row",
                             field="P_indices")
    return (Transitions(S, A, indptr.astype(np.int64, copy=False), indices,
                        data["P_data"].astype(np.float64, copy=False)), S, A)


def _npz_dense_transitions(data: dict[str, Any]) -> tuple[np.ndarray, int, int]:
    """(float64 P, S, A) of the dense ``P`` array."""
    P = data["P"]
    if P.ndim != 3:
        raise InputError(f"must have shape (S, A, S), got {P.shape}", field="P")
    S, A = P.shape[0], P.shape[1]
    if P.dtype.kind not in "fiu":
        raise InputError(f"must be numeric, got dtype {P.dtype}", field="P")
    return P.astype(np.float64), S, A


def _npz_action_names(data: dict[str, Any], S: int, A: int) -> ActionNames | None:
    """The action names of ``action_names`` ((A,) shared or (S, A)) or of
    ``action_codes`` + ``action_vocabulary``; None when neither is there."""
    an: Any = data.get("action_names")
    if an is not None:
        an = an.astype(str)
        if an.shape == (A,):
            return ActionNames.shared(an.tolist(), S)
        if an.shape == (S, A):
            return ActionNames.from_rows(an.tolist())
        raise InputError(f"must have shape ({A},) or ({S}, {A}), got {an.shape}",
                         field="action_names")
    if "action_codes" in data and "action_vocabulary" in data:
        codes, vocab = data["action_codes"], data["action_vocabulary"].astype(str)
        if codes.shape != (S, A) or vocab.ndim != 1 or (codes.size and (
                codes.min() < 0 or codes.max() >= len(vocab))):
            raise InputError(f"must be an ({S}, {A}) array of indices into "
                             "action_vocabulary", field="action_codes")
        return ActionNames(codes.astype(np.int32), vocab.tolist())
    return None


def _npz_state_names(data: dict[str, Any], S: int) -> Names | None:
    """The state names of ``state_names`` or of ``state_names_utf8`` + its offsets; None
    when neither is there."""
    sn: Any = data.get("state_names")
    if sn is not None:
        return Names(sn.astype(str).tolist())
    if "state_names_utf8" in data and "state_names_offsets" in data:
        blob, off = data["state_names_utf8"], data["state_names_offsets"]
        if off.shape != (S + 1,) or off[0] != 0 or off[-1] != blob.size or (
                np.diff(off) < 0).any():
            raise InputError(f"must be {S + 1:,} non-decreasing offsets into "
                             "state_names_utf8", field="state_names_offsets")
        raw = blob.tobytes()
        try:
            return Names(raw[a:b].decode("utf-8") for a, b in zip(off[:-1].tolist(),
                                                                  off[1:].tolist()))
        except UnicodeDecodeError:
            raise InputError("is not UTF-8 text", field="state_names_utf8") from None
    return None


def _load_npz(path: str | os.PathLike[str], report: Progress) -> MDP:
    from core.common.resources import MODEL_MEMORY_FACTOR, load_npz, open_regular

    with open_regular(path) as fh:  # a FIFO or a device is refused before any read
        if not zipfile.is_zipfile(fh):
            raise InputError("not an NPZ archive (expected a file written by numpy.savez)")
    headers = npz_headers(path)
    for key, (_shape, dtype) in headers.items():
        kinds = _NPZ_KINDS.get(key)
        if kinds is not None and dtype.kind not in kinds:
            raise InputError(f"has dtype {dtype}, which this field cannot hold", field=key)
    data: dict[str, Any] = load_npz(path, factor=MODEL_MEMORY_FACTOR,  # damaged: InputError
                                    progress=sub_progress(report, 0.0, 0.6))
    report(0.6, "checking the transitions")
    sparse = "P" not in data and "P_indptr" in data
    for key in (("P_indptr", "P_indices", "P_data", "shape") if sparse else ("P",)) + (
            "R", "horizon", "discount", "initial_state"):
        if key not in data:
            raise InputError("missing array", field=key)
    P, S, A = _npz_sparse_transitions(data) if sparse else _npz_dense_transitions(data)
    horizon = _integer(data, "horizon")
    an = _npz_action_names(data, S, A)
    sn = _npz_state_names(data, S)
    report(0.7, "checking the model")
    optional = {key: data[key].astype(dtype, copy=False) for key, dtype in (
        ("R_T", np.float64), ("mask", bool)) if key in data}
    return MDP(
        P=P, R=data["R"].astype(np.float64, copy=False), **optional,
        horizon=None if horizon == -1 else horizon,
        discount=float(_npz_number(data, "discount")),
        initial_state=_integer(data, "initial_state"),
        state_names=sn if sn is not None else (),
        action_names=an if an is not None else (), name=Path(path).name.split(".")[0],
        annotations=_annotations_from_arrays(data),
    )
