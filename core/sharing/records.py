"""What a policy-sharing run records in a project: its parameters, a compact summary and the
privacy-ledger entries of every demonstration the teacher released (Qt-free; the window and
``share --record`` use the same functions).

The protected dataset is the teacher's observations of the environment: ``mdp:<id>`` for a
project model, ``gym:<ID>`` for an imported one. Each live roll-out j of the teacher's ledger
becomes one entry with ε_j and δ_j *per query* and ``count`` = queries × the noisy student
runs (every aware or unaware student of every seed received its own Dirichlet draws of the
teacher's policy). The non-private baseline student reads the teacher's policy itself: one
unbounded entry (ε = ∞ with the reason). Seeded experiments are listed, not spent (ledger
convention).

Examples
--------
>>> from core.mdp.examples import four_startups
>>> from core.sharing.learning import SharingSetup, run_sharing
>>> res = run_sharing(four_startups(), SharingSetup(iterations=3, draws=20_000), seeds=2,
...                   seed=1)
>>> entries = sharing_entries("mdp:startups", res, source="run-1")
>>> noisy = [e for e in entries if e.mechanism == MECHANISM]
>>> len(noisy) == len([r for r in res.ledger.rows if not r.stopped]), noisy[0].count
(True, 4)
>>> [e.reason[:30] for e in entries if e.unbounded]   # the non-private baseline
["the teacher's policy is shared"]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.validation import check_record_params, check_seed
from core.privacy.ledger import LedgerEntry, PrivacyLedger
from core.sharing.learning import STUDENTS, SharingSetup, StudentCurves, _check_students

__all__ = ["RUN_KIND", "MECHANISM", "TEACHERS", "SharingParameters", "parse_teacher",
           "sharing_setup_of", "sharing_params", "sharing_summary", "sharing_entries",
           "mdp_side_entries"]

RUN_KIND = "sharing"
MECHANISM = "dirichlet-policy"
_MAX_POINTS = 101


#: the keys of :meth:`SharingParameters.to_dict` (a run record's ``params``), in their order
_RECORD_KEYS = ("env", "teacher", "temperature", "k0", "coef", "eta", "lb", "tau", "delta",
                "bound", "lambda", "beta", "kappa", "lr", "budget", "iterations", "draws",
                "rollout", "steps", "after_budget", "reward_scale", "gradient", "episodes",
                "penalty_weight", "nonprivate_target", "students", "seeds", "seeded", "seed")
#: a record key → the :class:`SharingSetup` field it keeps (the others keep their names)
_SETUP_NAMES = {"lambda": "lam"}
_SETUP_KEYS = ("k0", "coef", "eta", "lb", "tau", "delta", "bound", "lambda", "beta", "kappa",
               "lr", "budget", "iterations", "draws", "rollout", "steps", "after_budget",
               "reward_scale", "gradient", "episodes", "penalty_weight", "nonprivate_target")
#: what the teacher is: its policy synthesised on the model, the softmax of its Q-values at
#: a temperature (written ``softmax`` or ``softmax:T``), the policy π̄ of a Synthesise & bound
#: run of the project (``run:ID``), or a PPO network (``share --agent ppo``)
TEACHERS = ("optimal", "softmax", "run", "ppo")


def parse_teacher(text: Any) -> tuple[str, float, str | None]:
    """The teacher's kind, its softmax temperature (1 unless ``softmax:T`` gives one) and the
    run id of ``run:ID`` (None otherwise), from ``optimal``, ``softmax``, ``softmax:T``,
    ``run:ID`` or ``ppo``.

    Parameters
    ----------
    text : str
        The teacher as written (``share --teacher``, the window's teacher list).

    Returns
    -------
    (str, float, str or None)

    Examples
    --------
    >>> parse_teacher("softmax:0.5"), parse_teacher("run:run-3")
    (('softmax', 0.5, None), ('run', 1.0, 'run-3'))
    """
    if not isinstance(text, str):
        raise InputError(f"must be optimal, softmax:T or run:ID, got {text!r}",
                         field="teacher")
    if text.startswith("run:") and len(text) > 4:
        return "run", 1.0, text[4:]
    if text.startswith("softmax"):
        _, _, t = text.partition(":")
        try:
            return "softmax", float(t) if t else 1.0, None
        except ValueError:
            raise InputError(f"must be optimal or softmax:T, got {text!r}",
                             field="teacher") from None
    if text not in ("optimal", "ppo"):
        raise InputError(f"must be optimal, softmax:T or run:ID, got {text!r}",
                         field="teacher")
    return text, 1.0, None


@dataclass(frozen=True)
class SharingParameters:
    """What one policy-sharing run means (``share ENV …``, the Policy sharing tab's Run): the
    environment's name, the mechanism, students and budget (a :class:`SharingSetup`), the
    student types, the runs per type, the seed and the teacher.

    Validated once, here (the set-up by :meth:`SharingSetup.check`, the students and seeds
    as :func:`core.sharing.learning.run_sharing` takes them); every :class:`InputError` names
    its field. ``env`` is the protected dataset: ``mdp:<id>``, ``gym:<ID>`` or ``file:<path>``.
    ``teacher`` is kept as written (``optimal``, ``softmax``, ``softmax:T``, ``run:ID`` or
    ``ppo``, :func:`parse_teacher`); ``temperature`` is the softmax teacher's (kept, unused,
    for the others). What needs the model itself (η ≤ 1/m, two actions somewhere) is checked
    when it runs. :func:`core.sharing.learning.sharing_release` runs it;
    :meth:`to_dict` is what the run record keeps (:func:`core.project.recording.
    sharing_run_record`) and :meth:`from_dict` reads it back.

    Examples
    --------
    >>> p = SharingParameters("mdp:m1", SharingSetup(iterations=3), students=("aware",),
    ...                       seeds=2, seed=1)
    >>> SharingParameters.from_dict(p.to_dict()) == p, p.to_dict()["lambda"]
    (True, 0.5)
    >>> SharingParameters("mdp:m1", seeds=0)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: seeds: must be an integer in [1, 10000], got 0
    """

    env: str
    setup: SharingSetup = field(default_factory=SharingSetup)
    students: tuple[str, ...] = STUDENTS
    seeds: int = 10
    seed: int | None = None
    teacher: str = "optimal"
    temperature: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.env, str) or not self.env.startswith(("mdp:", "gym:", "file:")):
            raise InputError(f"must be mdp:ID, gym:ID or file:PATH, got {self.env!r}",
                             field="env")
        kind, written, _ = parse_teacher(self.teacher)
        temperature = self.temperature
        if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
                or not math.isfinite(temperature)):
            raise InputError(f"must be a finite number, got {temperature!r}",
                             field="temperature")
        if kind == "softmax" and ":" in self.teacher and written != temperature:
            raise InputError(f"{self.teacher!r} gives T = {written:g}, the temperature "
                             f"{temperature:g}", field="temperature")
        if kind == "softmax" and not temperature > 0:
            raise InputError(f"must be > 0, got {temperature!r}", field="teacher")
        if not isinstance(self.setup, SharingSetup):
            raise InputError(f"must be a SharingSetup, got {type(self.setup).__name__}",
                             field="setup")
        self.setup.check()
        if isinstance(self.students, str) or not isinstance(self.students, (tuple, list)):
            raise InputError(f"must be a list of student types, got {self.students!r}",
                             field="students")
        students = _check_students(self.students, self.seeds)
        if not students:
            raise InputError("choose at least one student type", field="students")
        object.__setattr__(self, "students", tuple(students))
        object.__setattr__(self, "seeds", int(self.seeds))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "temperature", float(temperature))

    @property
    def teacher_kind(self) -> str:
        """``optimal``, ``softmax``, ``run`` or ``ppo`` (:data:`TEACHERS`)."""
        return parse_teacher(self.teacher)[0]

    @property
    def teacher_run(self) -> str | None:
        """The run id of a ``run:ID`` teacher (None for the others)."""
        return parse_teacher(self.teacher)[2]

    def to_dict(self) -> dict[str, Any]:
        """The run record's ``params`` (JSON), in the keys and order of :data:`_RECORD_KEYS`:
        ``env``, ``teacher``, ``temperature``, the set-up's fields (λ as ``lambda``, the
        budget as a list), ``students``, ``seeds``, ``seeded`` and ``seed``."""
        s = self.setup
        setup = {key: getattr(s, _SETUP_NAMES.get(key, key)) for key in _SETUP_KEYS}
        setup["budget"] = list(s.budget)
        for key in ("iterations", "draws", "steps", "episodes"):
            setup[key] = int(setup[key])
        return {"env": self.env, "teacher": self.teacher, "temperature": self.temperature,
                **setup, "students": list(self.students), "seeds": int(self.seeds),
                "seeded": self.seed is not None, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Any) -> "SharingParameters":
        """The parameters of :meth:`to_dict` or of a ``sharing`` run record's ``params``
        (a key an older record lacks takes its default).

        Parameters
        ----------
        data : mapping
            ``env`` and any of the other keys of :meth:`to_dict`; ``seeded`` must agree
            with ``seed``.

        Returns
        -------
        SharingParameters
        """
        check_record_params(data, _RECORD_KEYS, "a policy-sharing run's parameters")
        seed = data.get("seed")
        students = data.get("students", STUDENTS)
        env: Any = data.get("env")  # checked by __post_init__
        return cls(env=env, setup=sharing_setup_of(data),
                   students=tuple(students) if isinstance(students, list) else students,
                   seeds=data.get("seeds", 10), seed=seed,
                   teacher=data.get("teacher", "optimal"),
                   temperature=data.get("temperature", 1.0))


def sharing_setup_of(data: Mapping[str, Any]) -> SharingSetup:
    """The :class:`SharingSetup` of a run record's ``params`` keys (``lambda``, ``budget`` as
    [E, D], …; a key not given keeps its default), not yet checked
    (:meth:`SharingSetup.check`; :class:`SharingParameters` checks it).

    Parameters
    ----------
    data : mapping
        Keys of :meth:`SharingParameters.to_dict` (others are ignored).

    Returns
    -------
    SharingSetup
    """
    values = {_SETUP_NAMES.get(k, k): data[k] for k in _SETUP_KEYS if k in data}
    if "budget" in values:
        budget = values["budget"]
        if isinstance(budget, (str, bytes)) or not isinstance(budget, Sequence) \
                or len(budget) != 2:
            raise InputError(f"must be [E, D], got {budget!r}", field="budget")
        values["budget"] = tuple(budget)
    return SharingSetup(**values)


def sharing_params(setup: SharingSetup, *, env: str, students: list[str], seeds: int,
                   seed: int | None, teacher: str, temperature: float) -> dict[str, Any]:
    """The run's parameters as the record keeps them (JSON):
    :meth:`SharingParameters.to_dict` of these values (validated).

    Parameters
    ----------
    setup : SharingSetup
        The mechanism, students and budget.
    env : str
        The environment (``mdp:<id>``, ``gym:<ID>`` or ``file:<path>``).
    students : list of str
        The student types.
    seeds : int
        Runs per type.
    seed : int or None
        The experiment's seed (None: release mode).
    teacher : str
        ``optimal``, ``softmax[:T]``, ``run:ID`` or ``ppo``.
    temperature : float
        The softmax teacher's temperature.

    Returns
    -------
    dict
    """
    return SharingParameters(env=env, setup=setup, students=tuple(students), seeds=seeds,
                             seed=seed, teacher=teacher, temperature=temperature).to_dict()


def _thin(x: np.ndarray) -> list[float]:
    """At most about a hundred points of a curve (the first and the last kept)."""
    n = x.size
    if n <= _MAX_POINTS:
        return [float(v) for v in x]
    idx = np.unique(np.linspace(0, n - 1, _MAX_POINTS).round().astype(int))
    return [float(v) for v in x[idx]]


def sharing_summary(result: StudentCurves) -> dict[str, Any]:
    """A compact, JSON-safe summary: the ledger (live roll-outs), its totals and stop, the
    final J per student type with its band, the cost of privacy and the notes; curves
    thinned to about a hundred points each (with their iteration numbers).

    Parameters
    ----------
    result : StudentCurves
        The run.

    Returns
    -------
    dict
    """
    d = result.to_dict()
    keys = ("k", "epsilon", "delta", "tau", "queries", "epsilon_total", "delta_total",
            "epsilon_advanced", "ledger_total", "ledger_total_per_run", "spent_before",
            "stopped_at", "stop_reason", "budget",
            "queries_per_rollout", "adjacency", "mode", "seed", "draws", "teacher_value",
            "cost_of_privacy", "seeds", "iterations", "ignore_threshold", "notes", "elapsed_s")
    out = {k: d[k] for k in keys}
    # what showing the run again needs: the same m and τ as the run's panels
    out["m"] = result.m
    out["curve_tau"] = result.curve_tau
    iters = np.arange(result.setup.iterations + 1, dtype=float)
    out["iteration"] = _thin(iters)
    out["curves"] = {}
    out["final"] = {}
    # the oracle mark: J is evaluated exactly on the true MDP, by the experimenter
    out["oracle_keys"] = ["teacher_value", "curves", "final", "cost_of_privacy"]
    out["oracle_view"] = ("the students' and the teacher's J are evaluated exactly on the true "
                          "MDP: the experimenter's oracle view, not something the teacher "
                          "releases")
    for kind in result.curves:
        med, lo, hi = result.band(kind)
        out["curves"][kind] = {"median": _thin(med), "lower": _thin(lo), "upper": _thin(hi)}
        out["final"][kind] = {"median": float(med[-1]), "lower": float(lo[-1]),
                              "upper": float(hi[-1])}
    return out


def sharing_entries(dataset: str, result: StudentCurves, *, source: str,
                    time: str | None = None) -> list[LedgerEntry]:
    """One ledger entry per live roll-out of the teacher (see the module docstring).

    Parameters
    ----------
    dataset : str
        The protected dataset (``mdp:<id>`` or ``gym:<ID>``).
    result : StudentCurves
        The run.
    source : str
        The run id.
    time : str, optional
        The entries' timestamp (default: now).

    Returns
    -------
    list of LedgerEntry
        With ids local to a fresh ledger (the project gives them its own).
    """
    led = PrivacyLedger()
    noisy = sum(result.curves[k].shape[0] for k in result.curves if k in ("aware", "unaware"))
    mode = "experiment" if result.seed is not None else "release"
    s = result.setup
    extra0: dict[str, Any] = {} if time is None else {"time": time}
    if "nonprivate" in result.curves:  # the baseline reads the teacher's policy itself
        runs = int(result.curves["nonprivate"].shape[0])
        led.record(dataset=dataset, mechanism="policy (no noise)", epsilon=math.inf,
                   delta=0.0, parameters={"runs": runs, "iterations": int(s.iterations),
                                          "queries": result.queries_per_rollout},
                   adjacency=result.ledger.adjacency,
                   released=("the non-private baseline: the teacher's policy itself at every "
                             "queried state, each iteration of each of its runs"),
                   mode=mode, seed=result.seed, source=source,
                   count=result.queries_per_rollout * int(s.iterations) * runs,
                   reason="the teacher's policy is shared without noise (the non-private "
                          "baseline student): no differential privacy", **extra0)
    for r in result.ledger.rows:
        if r.stopped or noisy == 0:
            continue
        params = {"k": r.k, "rollout": r.rollout, "eta": s.eta, "lb": s.lb, "tau": r.tau,
                  "bound": s.bound, "m": list(result.ledger.ms), "draws": result.ledger.draws,
                  "queries": r.queries, "noisy_runs": noisy}
        extra: dict[str, Any] = {} if time is None else {"time": time}
        led.record(dataset=dataset, mechanism=MECHANISM, epsilon=r.epsilon, delta=r.delta,
                   parameters=params, adjacency=result.ledger.adjacency,
                   released=(f"roll-out {r.rollout}: one Dirichlet draw (k = {r.k:.4g}) of the "
                             f"teacher's policy at each of {r.queries} observed states, for "
                             f"each of {noisy} student runs (δ per query: a 95 % Monte Carlo "
                             "bound)"),
                   mode=mode, seed=result.seed, source=source, count=r.queries * noisy,
                   **extra)
    return led.entries


def mdp_side_entries(mdp: Any, mdp_id: str, k: float, *, seed: int | None, source: str,
                     time: str | None = None) -> list[LedgerEntry]:
    """The ledger entry of the MDP-side comparison (:func:`core.sharing.learning.
    mdp_side_bound`): the environment's transitions privatised once with Dir_k.

    Parameters
    ----------
    mdp : MDP
        The environment.
    mdp_id : str
        Its id (the dataset is ``mdp:<id>``).
    k : float
        The concentration.
    seed : int or None
        The privatisation's seed (None: release mode).
    source : str
        The run id.
    time : str, optional
        The timestamp.

    Returns
    -------
    list of LedgerEntry
    """
    from core.mdp.accounting import mdp_privacy, record_privatization

    led = PrivacyLedger()
    record_privatization(led, mdp_id=mdp_id, privacy=mdp_privacy(mdp, k), k=float(k),
                         mode="experiment" if seed is not None else "release", seed=seed,
                         source=source, released="the robust cost bound of the transitions "
                         "privatised at the teacher's k0 (a comparison beside policy sharing)",
                         time=time)
    return led.entries
