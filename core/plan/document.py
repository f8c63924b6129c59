"""The plan document: a total (ε, δ) for one dataset and the releases planned against it.

A study releases the same sensitive data several times. The plan names the dataset, its total
budget and, in order, each planned release with its kind and public parameters
(``docs/formats-and-cli.md`` §6, ``docs/privacy-plan.md``). It is a standalone file
(``*.plan.json``, format ``privplan-plan``) and an optional ``plans`` list of a project.
Nothing in it is private: reading it costs no privacy.

Examples
--------
>>> p = plan_from_dict({"format": "privplan-plan", "version": 1,
...                     "budget": {"epsilon": 1.0, "delta": 1e-6},
...                     "releases": [{"name": "counts", "kind": "laplace", "epsilon": 0.5}]})
>>> p.dataset, p.releases[0].kind, p.releases[0].params["sensitivity"]
('study', 'laplace', 1.0)
>>> plan_from_dict(plan_to_dict(p)) == p
True
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from typing import Any

from core.common.errors import InputError

__all__ = ["PLAN_FORMAT", "PLAN_VERSION", "KINDS", "PlannedRelease", "Plan", "plan_from_dict",
           "plan_to_dict", "load_plan", "KNOBS", "project_plan"]

PLAN_FORMAT = "privplan-plan"
PLAN_VERSION = 1

#: Each kind's public parameters: name -> (default or None when required, type tag).
#: Type tags: "pos" a number > 0, "nonneg" a number >= 0, "int" an integer >= 1,
#: "prob" a number in (0, 1], "str" a string, "eta" a number or a string such as "0.3/n",
#: "curve" a list of [epsilon, accuracy] pairs.
_PARAMS: dict[str, dict[str, tuple[Any, str]]] = {
    "laplace": {"epsilon": (None, "pos"), "sensitivity": (1.0, "pos"),
                "tolerance": (None, "pos")},
    "gaussian": {"sigma": (None, "pos"), "epsilon": (None, "pos"), "sensitivity": (1.0, "pos"),
                 "tolerance": (None, "pos")},
    "dpsgd": {"sigma": (None, "pos"), "sample_rate": (None, "prob"), "steps": (None, "int"),
              "window": (None, "int"), "updates_per_entry": (1, "int"),
              "proxy_accuracy": (None, "curve"), "nonprivate_accuracy": (None, "prob")},
    "mdp": {"mdp": (None, "str"), "k": (None, "pos"), "epsilon": (None, "pos"),
            "eta": ("0.3/n", "eta"), "b": (0.1, "prob"), "adjacency": ("one-row", "str"),
            "beta": (0.05, "prob")},
    "logistics": {"map": (None, "str"), "epsilon": (None, "pos"), "preset": ("sound", "str"),
                  "centers": (10, "int")},
    "advising": {"preset": ("table35", "str"), "epsilon": (None, "pos")},
    "sharing": {"k0": (None, "pos"), "c": (None, "pos"), "rollouts": (None, "int"),
                "epsilon": (None, "pos"), "env": ("example:corridor", "str")},
}
KINDS = tuple(_PARAMS)
#: The parameter an allocation sets for each kind (the others stay as planned).
KNOBS = {"laplace": "epsilon", "gaussian": "sigma", "dpsgd": "sigma", "mdp": "k",
         "logistics": "epsilon", "advising": "epsilon", "sharing": "epsilon"}
# what each kind needs besides its fixed parameters: one of these must be given
_ONE_OF = {"gaussian": ("sigma", "epsilon"), "mdp": ("k", "epsilon")}
_COMMON = {"name", "kind", "delta", "weight", "fixed", "note"}


@dataclass(frozen=True)
class PlannedRelease:
    """One planned release: its name, kind, public parameters and allocation settings.

    ``delta`` is the δ it is stated at on its own (None: an even share of the budget's δ among
    the releases that need one); ``weight`` its weight in an allocation; ``fixed`` keeps its
    parameters out of an allocation.
    """

    name: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    delta: float | None = None
    weight: float = 1.0
    fixed: bool = False
    note: str = ""

    def __hash__(self) -> int:
        return hash((self.name, self.kind, repr(sorted(self.params.items())), self.delta))

    def with_params(self, **params: Any) -> "PlannedRelease":
        """The release with ``params`` changed (an allocation's choice)."""
        return replace(self, params={**self.params, **params})

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind}
        d.update({k: v for k, v in self.params.items() if v is not None})
        if self.delta is not None:
            d["delta"] = self.delta
        if self.weight != 1.0:
            d["weight"] = self.weight
        if self.fixed:
            d["fixed"] = True
        if self.note:
            d["note"] = self.note
        return d


@dataclass(frozen=True)
class Plan:
    """A study's plan: ``dataset``, its total (``epsilon``, ``delta``) and its releases."""

    epsilon: float
    delta: float
    releases: tuple[PlannedRelease, ...]
    dataset: str = "study"
    name: str = ""

    def release(self, name: str) -> PlannedRelease:
        for r in self.releases:
            if r.name == name:
                return r
        raise InputError(f"no release named {name!r}", field="releases")

    def with_releases(self, releases: "tuple[PlannedRelease, ...] | list[PlannedRelease]"
                      ) -> "Plan":
        return replace(self, releases=tuple(releases))


def _number(v: Any, tag: str, where: str) -> Any:
    if tag == "str":
        if not isinstance(v, str) or not v:
            raise InputError(f"must be a non-empty string, got {v!r}", field=where)
        return v
    if tag == "eta":
        if isinstance(v, str) and v:
            return v
        tag = "nonneg"
    if tag == "curve":
        return _curve(v, where)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"must be a finite number, got {v!r}", field=where)
    if tag == "int":
        if int(v) != v or v < 1:
            raise InputError(f"must be a whole number >= 1, got {v!r}", field=where)
        return int(v)
    # a positive quantity lies in [1e-12, 1e12]: outside it an accountant's arithmetic (a
    # sensitivity over a noise scale, a bisection over sigma) leaves double precision
    ok = {"pos": 1e-12 <= v <= 1e12, "nonneg": v >= 0, "prob": 0 < v <= 1}[tag]
    if not ok:
        want = {"pos": "in [1e-12, 1e12]", "nonneg": ">= 0", "prob": "in (0, 1]"}[tag]
        raise InputError(f"must be {want}, got {v!r}", field=where)
    return float(v)


def _curve(v: Any, where: str) -> list[list[float]]:
    if not isinstance(v, list) or len(v) < 2:
        raise InputError("must be a list of at least two [epsilon, accuracy] pairs",
                         field=where)
    out = []
    for i, p in enumerate(v):
        if not (isinstance(p, list) and len(p) == 2):
            raise InputError("must be an [epsilon, accuracy] pair", field=f"{where}[{i}]")
        e = _number(p[0], "pos", f"{where}[{i}][0]")
        a = _number(p[1], "prob", f"{where}[{i}][1]")
        out.append([e, a])
    out.sort()
    return out


def _release(d: Any, i: int, names: set[str]) -> PlannedRelease:
    where = f"releases[{i}]"
    if not isinstance(d, dict):
        raise InputError("each release must be an object", field=where)
    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("needs a non-empty string 'name'", field=f"{where}.name")
    if name in names:
        raise InputError(f"duplicate release name {name!r}", field=f"{where}.name")
    where = f"releases[{name}]"
    kind = d.get("kind")
    if not isinstance(kind, str) or kind not in _PARAMS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}",
                         field=f"{where}.kind")
    spec = _PARAMS[kind]
    unknown = sorted(set(d) - set(spec) - _COMMON)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)} for a {kind} release",
                         field=f"{where}.{unknown[0]}")
    params: dict[str, Any] = {}
    for key, (default, tag) in spec.items():
        v = d.get(key, default)
        params[key] = None if v is None else _number(v, tag, f"{where}.{key}")
    need = _ONE_OF.get(kind)
    if need and all(params[k] is None for k in need):
        raise InputError(f"needs {' or '.join(need)}", field=f"{where}.{need[0]}")
    if need and all(params[k] is not None for k in need):
        raise InputError(f"give {need[0]} or {need[1]}, not both", field=f"{where}.{need[1]}")
    for key, (default, _) in spec.items():
        if default is None and params[key] is None and key not in (need or ()) and \
                key not in ("tolerance", "window", "proxy_accuracy", "nonprivate_accuracy"):
            raise InputError(f"a {kind} release needs {key!r}", field=f"{where}.{key}")
    if kind == "mdp" and params["adjacency"] not in ("one-row", "all-rows"):
        raise InputError(f"must be one-row or all-rows, got {params['adjacency']!r}",
                         field=f"{where}.adjacency")
    _check_choice(kind, params, where)
    delta = d.get("delta")
    if delta is not None:
        delta = _number(delta, "nonneg", f"{where}.delta")
        if delta >= 1:
            raise InputError(f"must be in [0, 1), got {delta!r}", field=f"{where}.delta")
    weight = _number(d.get("weight", 1.0), "pos", f"{where}.weight")
    fixed = d.get("fixed", False)
    if not isinstance(fixed, bool):
        raise InputError(f"must be true or false, got {fixed!r}", field=f"{where}.fixed")
    return PlannedRelease(name, kind, params, delta, weight, fixed, str(d.get("note", "")))


def _check_choice(kind: str, params: dict[str, Any], where: str) -> None:
    """The simulated kinds' named presets and environments (their forecasts run them)."""
    if kind == "logistics" and params["preset"] not in ("sound", "thesis"):
        raise InputError(f"must be sound or thesis, got {params['preset']!r}",
                         field=f"{where}.preset")
    if kind == "advising":
        from core.advising.presets import PRESETS

        if params["preset"] not in PRESETS:
            raise InputError(f"must be one of {', '.join(PRESETS)}, got {params['preset']!r}",
                             field=f"{where}.preset")
    if kind == "sharing":
        env = params["env"]
        if not (env == "example:corridor" or env.startswith("gym:")):
            raise InputError(f"must be example:corridor or gym:ID (a public environment), "
                             f"got {env!r}", field=f"{where}.env")
    if kind == "logistics" and not 4 <= params["centers"] <= 50:
        raise InputError(f"must be in [4, 50] (the synthetic worlds of its forecast), got "
                         f"{params['centers']!r}", field=f"{where}.centers")


def plan_from_dict(d: Any) -> Plan:
    """Validate a plan document (errors name the field, e.g. ``releases[net].sigma``).

    Parameters
    ----------
    d : dict
        The parsed JSON.

    Returns
    -------
    Plan
    """
    if not isinstance(d, dict):
        raise InputError("a plan must be a JSON object", field="plan")
    if d.get("format") != PLAN_FORMAT:
        raise InputError(f"format must be {PLAN_FORMAT!r}, got {d.get('format')!r}",
                         field="format")
    if d.get("version") != PLAN_VERSION:
        raise InputError(f"version {d.get('version')!r} is not supported (this PrivPlan reads "
                         f"version {PLAN_VERSION})", field="version")
    b = d.get("budget")
    if not isinstance(b, dict):
        raise InputError("needs {\"epsilon\": E, \"delta\": D}", field="budget")
    eps = _number(b.get("epsilon"), "pos", "budget.epsilon")
    delta = _number(b.get("delta", 0.0), "nonneg", "budget.delta")
    if delta >= 1:
        raise InputError(f"must be in [0, 1), got {delta!r}", field="budget.delta")
    items = d.get("releases")
    if not isinstance(items, list) or not items:
        raise InputError("needs a non-empty list of releases", field="releases")
    names: set[str] = set()
    releases = []
    for i, r in enumerate(items):
        rel = _release(r, i, names)
        names.add(rel.name)
        releases.append(rel)
    dataset = d.get("dataset", "study")
    if not isinstance(dataset, str) or not dataset:
        raise InputError("must be a non-empty string", field="dataset")
    name = d.get("name", "")
    return Plan(eps, delta, tuple(releases), dataset, str(name))


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    """The plan's JSON (what :func:`plan_from_dict` reads).

    Parameters
    ----------
    plan : Plan
        The plan.

    Returns
    -------
    dict
    """
    d: dict[str, Any] = {"format": PLAN_FORMAT, "version": PLAN_VERSION}
    if plan.name:
        d["name"] = plan.name
    d["dataset"] = plan.dataset
    d["budget"] = {"epsilon": plan.epsilon, "delta": plan.delta}
    d["releases"] = [r.to_dict() for r in plan.releases]
    return d


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a ``*.plan.json`` file (errors name the file and the field).

    Parameters
    ----------
    path : str or PathLike
        The file.

    Returns
    -------
    Plan
    """
    from core.common.jsonfile import read_json

    try:
        return plan_from_dict(read_json(path))
    except InputError as exc:
        if exc.file:
            raise
        raise exc.with_file(os.fspath(path)) from None


def project_plan(project: Any, name: str) -> Plan:
    """The plan ``name`` of a project's ``plans`` section, validated.

    Parameters
    ----------
    project : Project
        The project.
    name : str
        The plan's name.

    Returns
    -------
    Plan

    Raises
    ------
    InputError
        No such plan (field ``plan``), or an invalid one (field ``plans[NAME].FIELD``).
    """
    doc = project.plan(name)
    try:
        return plan_from_dict(doc)
    except InputError as exc:
        raise InputError(exc.problem, field=f"plans[{name}].{exc.field}") from None
