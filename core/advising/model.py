"""Advising set-ups: who can use which server, what each server earns, and the knobs.

Size: one input contract: the set-up and its parameters are validated together (each field's
check, the two variants, the neighbour cases); most lines are those field-by-field checks.

An :class:`AdvisingSetup` is the input of one advising run (thesis Ch. 3, spec §3.13):
agents (users), servers (actions), tasks (states), each agent's ordered action set, the
reward table R[task, server] and the :class:`AdvisingParams`. Both are frozen and
validated eagerly; every :class:`~core.common.errors.InputError` names the field
(``action_sets``, ``rewards``, ``epsilon``, ``distance_threshold``, …).

Two *variants* of the parameters exist wherever the thesis is unsound (spec §9):

* ``"sound"`` (the default): the Laplace noise is calibrated to the **strict**
  sensitivity S = (largest − smallest possible Q-value) = r_max − r_min = 2 for the
  thesis rewards; case-1 releases (identical action sets) are noised too; and the advice
  distribution π′ is built from the noisy Q-values alone (``advice_prior="uniform"``:
  Alg. 5's formula started from the uniform policy), never from the teacher's policy.
  Every advice
  query under the ``dp`` strategy is then ε-DP for the teacher (the proof is in
  :mod:`core.advising.framework`).
* ``"thesis"`` (faithful): S = 1 ("the maximum value of a percentage is 1", §3.6.3),
  case-1 releases go out without noise and π′ is the teacher's own (raw) policy shifted
  by ξ·(noisy Q) (Alg. 5 lines 20–24). Laplace(1/ε) is only 2ε-DP on the Q-values (one
  differing Q-record moves one coordinate by up to r_max − r_min = 2), and the raw policy
  and the raw case-1 Q-values carry no finite ε at all: the ledger records those
  releases as unbounded.

Examples
--------
>>> s = AdvisingSetup.from_labels(servers=["A", "B", "C", "D", "E"], tasks=["t1"],
...     agents={"i": ["A", "B", "C", "D"], "j": ["A", "B", "C", "E"]},
...     rewards=[[2, 0, 0, 0, 0]])
>>> s.n_agents, s.strict_sensitivity, neighbour_case(s.action_sets[0], s.action_sets[1])
(2, 2.0, 4)
>>> s.params.variant
'sound'
>>> AdvisingSetup.from_dict(s.to_dict()).to_dict() == s.to_dict()
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from core.common.errors import InputError

__all__ = [
    "STRATEGIES",
    "VARIANTS",
    "VARIANT_KNOBS",
    "ADVICE_PRIORS",
    "CASE_NAMES",
    "AdvisingParams",
    "AdvisingSetup",
    "neighbour_case",
    "dataset_diff",
    "teacher_view_map",
    "SETUP_FORMAT",
    "SETUP_VERSION",
]

STRATEGIES = ("none", "traditional", "dp")
VARIANTS = ("sound", "thesis")
#: Where the advice distribution π′ starts from (see :class:`AdvisingParams`).
ADVICE_PRIORS = ("uniform", "student", "teacher")
#: The privacy-relevant knobs of each named variant.
VARIANT_KNOBS: dict[str, dict[str, Any]] = {
    "sound": {"sensitivity": None, "noise_on_identical_sets": True, "advice_prior": "uniform"},
    "thesis": {"sensitivity": 1.0, "noise_on_identical_sets": False, "advice_prior": "teacher"},
}
SETUP_FORMAT = "privplan-advising"
SETUP_VERSION = 1

#: Teacher-view cases of Algorithm 5 (spec §3.9), indexed by :func:`neighbour_case`.
CASE_NAMES = {
    0: "not neighbours (differ in more than one action each way)",
    1: "case 1: identical action sets",
    2: "case 2: teacher has one more action",
    3: "case 3: teacher has one fewer action",
    4: "case 4: same size, one action swapped",
}


def _num(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"must be a number, got {value!r}", field=name)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"must be a number, got {value!r}", field=name) from None
    if not math.isfinite(x):
        raise InputError(f"must be a finite number, got {value!r}", field=name)
    return x


#: Largest |reward|, ξ and |Q₀|: every product and square of them the framework computes
#: (ξ·Q, distances of noisy Q-views) stays far from overflow.
MAX_MAGNITUDE = 1e6


def _int(value: Any, name: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InputError(f"must be an integer >= {lo}, got {value!r}", field=name)
    if int(value) < lo:
        raise InputError(f"must be an integer >= {lo}, got {value!r}", field=name)
    if int(value) > _INT_MAX:  # budgets and counts live in int64 arrays
        raise InputError(f"must be at most {_INT_MAX:,}, got {value!r}", field=name)
    return int(value)


_INT_MAX = 2**53

#: The real knobs of :class:`AdvisingParams`, in the order they are converted to floats.
_REAL_KNOBS = ("alpha", "xi", "gamma", "q0", "norm_center", "norm_floor",
               "distance_threshold")
#: Their ranges, in the order they are checked: (field, test on the parameters, the
#: problem as a format string over the parameters ``p``). The distance threshold is only
#: compared, so it needs no upper bound.
_REAL_RANGES: tuple[tuple[str, Callable[["AdvisingParams"], bool], str], ...] = (
    ("alpha", lambda p: 0.0 < p.alpha <= 1.0, "must lie in (0, 1], got {p.alpha!r}"),
    ("xi", lambda p: 0 <= p.xi <= MAX_MAGNITUDE,
     f"must lie in [0, {MAX_MAGNITUDE:g}], got {{p.xi!r}}"),
    ("q0", lambda p: abs(p.q0) <= MAX_MAGNITUDE,
     f"must lie within ±{MAX_MAGNITUDE:g}, got {{p.q0!r}}"),
    ("gamma", lambda p: 0.0 <= p.gamma < 1.0, "must lie in [0, 1), got {p.gamma!r}"),
    ("norm_floor", lambda p: 0.0 < p.norm_floor < p.norm_center,
     "needs 0 < norm_floor < norm_center, got {p.norm_floor!r} and {p.norm_center!r}"),
    ("norm_center", lambda p: p.norm_center < 1.0, "must be < 1, got {p.norm_center!r}"),
    ("distance_threshold", lambda p: p.distance_threshold >= 0,
     "must be >= 0, got {p.distance_threshold!r}"),
)
#: The integer knobs and their least values.
_INT_KNOBS = (("ask_budget", 0), ("give_budget", 0), ("epochs", 1))
_BOOL_KNOBS = ("subtract_rbar", "noise_on_identical_sets", "direction_guard",
               "snapshot_teachers", "noise_zero")


@dataclass(frozen=True)
class AdvisingParams:
    """Every knob of the reference algorithm (spec §3.13); defaults are the sound variant.

    Parameters
    ----------
    strategy : {"dp", "traditional", "none"}
        ``dp``: advice between neighbours (action sets differing by at most one action each
        way), with Laplace noise on the teacher's Q-values when the sets differ.
        ``traditional``: advice only between identical action sets, no noise.
        ``none``: independent learners (the thesis's "traditional RL").
    epsilon : float
        Privacy parameter ε > 0 of each Laplace release (Table 3.5: 1; Exp. 3 sweeps it).
    sensitivity : float or None
        ``None`` (sound default): the strict sensitivity S = max Q − min Q of the set-up
        (= r_max − r_min = 2 with the thesis rewards). A number: that nominal S (the
        thesis uses 1); the accountant then reports the true ε = ε·S_strict/S.
    alpha, xi, gamma, q0 : float
        Q learning rate α (0.5), policy rate ξ (0.1), discount γ (0; the thesis sets
        Q(s′,·) = 0 — with γ > 0 the next state is the agent's next task), initial Q₀ (0).
        The initial policy is uniform.
    norm_center, norm_floor : float
        Algorithm 4's mapping centre c_o (0.5) and lower bound Δ (0.001).
    ask_budget, give_budget : int
        b_ask and b_give per agent (Table 3.5: 30 each); one advice costs 1 of each.
    distance_threshold : float
        d (0.7): advice needs the *squared* Euclidean distance d_E² > d.
    epochs : int
        Number of epochs (700).
    subtract_rbar : bool
        Advice distribution π′ = Normalize(p̃ + ξ(q̂ − r̃)) with r̃ = p̃·q̂ (True, matching
        Algorithm 3; spec A3), or the literal line 22 without r̃ (False).
    noise_on_identical_sets : bool
        Also noise case-1 releases under ``dp`` (True, sound). False is the thesis: raw
        Q-values go to students with identical action sets (unbounded ledger entries).
    advice_prior : {"uniform", "student", "teacher"}
        The policy p̃ that π′ = Normalize(p̃ + ξ(q̂ − p̃·q̂)) starts from under the ``dp``
        strategy. ``"uniform"`` (sound default): the uniform policy, so π′ is a function
        of the noisy q̂ alone; ``"student"``: the student's own π_j(s), which the student
        holds anyway (also post-processing); both keep the advice ε-DP for the teacher.
        ``"teacher"`` (thesis, Alg. 5 line 22): the teacher's raw π_i(s) — every advice
        then releases the teacher's policy without noise (unbounded). Traditional
        advising always uses the teacher's policy (it is the non-private baseline).
    direction_guard : bool
        Only teachers that visited the task more often than the student (spec A10). The
        guard compares raw visit counts, which no finite ε covers: every comparison is an
        unbounded ledger entry for the compared teacher, in every variant.
    snapshot_teachers : bool
        Teachers read an epoch-start snapshot (True; spec A8) or live state (needs γ = 0).
    noise_zero : bool
        Testing aid: draw the noise (same RNG consumption) but do not add it. The
        releases are then *not* private and are accounted as unprotected.
    max_epsilon_per_teacher : float or None
        Optional cap on a teacher's cumulative true ε (basic composition); a teacher
        whose next release would pass it stops being a candidate. An unbounded release
        passes every cap, so under a cap a teacher is never asked for one (no raw
        case-1 views, no direction guard, no advice from its raw policy).
    """

    strategy: str = "dp"
    epsilon: float = 1.0
    sensitivity: float | None = None
    alpha: float = 0.5
    xi: float = 0.1
    gamma: float = 0.0
    q0: float = 0.0
    norm_center: float = 0.5
    norm_floor: float = 0.001
    ask_budget: int = 30
    give_budget: int = 30
    distance_threshold: float = 0.7
    epochs: int = 700
    subtract_rbar: bool = True
    noise_on_identical_sets: bool = True
    advice_prior: str = "uniform"
    direction_guard: bool = False
    snapshot_teachers: bool = True
    noise_zero: bool = False
    max_epsilon_per_teacher: float | None = None

    def __post_init__(self) -> None:
        from core.privacy.laplace import check_epsilon

        for name, allowed in (("strategy", STRATEGIES), ("advice_prior", ADVICE_PRIORS)):
            if getattr(self, name) not in allowed:
                raise InputError(f"must be one of {', '.join(allowed)}, got "
                                 f"{getattr(self, name)!r}", field=name)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "epsilon"))
        if self.sensitivity is not None:
            s = _num(self.sensitivity, "sensitivity")
            if s <= 0:
                raise InputError(f"must be > 0 (or null for the strict sensitivity), got "
                                 f"{self.sensitivity!r}", field="sensitivity")
            object.__setattr__(self, "sensitivity", s)
        for name in _REAL_KNOBS:
            object.__setattr__(self, name, _num(getattr(self, name), name))
        for name, ok, problem in _REAL_RANGES:
            if not ok(self):
                raise InputError(problem.format(p=self), field=name)
        for name, lo in _INT_KNOBS:
            object.__setattr__(self, name, _int(getattr(self, name), name, lo))
        for name in _BOOL_KNOBS:
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InputError(f"must be true or false, got {getattr(self, name)!r}",
                                 field=name)
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not self.snapshot_teachers and self.gamma != 0.0:
            raise InputError("live (non-snapshot) teachers need gamma = 0: a student's next "
                             "task is drawn after the epoch", field="snapshot_teachers")
        if self.max_epsilon_per_teacher is not None:
            cap = _num(self.max_epsilon_per_teacher, "max_epsilon_per_teacher")
            if cap <= 0:
                raise InputError(f"must be > 0, got {cap!r}", field="max_epsilon_per_teacher")
            object.__setattr__(self, "max_epsilon_per_teacher", cap)

    @classmethod
    def for_variant(cls, variant: str = "sound", **overrides: Any) -> "AdvisingParams":
        """Parameters of a named variant (``"sound"`` or ``"thesis"``), then overrides.

        Examples
        --------
        >>> p = AdvisingParams.for_variant("thesis")
        >>> p.sensitivity, p.noise_on_identical_sets, p.advice_prior, p.variant
        (1.0, False, 'teacher', 'thesis')
        """
        if variant not in VARIANTS:
            raise InputError(f"must be one of {', '.join(VARIANTS)}, got {variant!r}",
                             field="variant")
        base: dict[str, Any] = dict(VARIANT_KNOBS[variant])
        base.update(overrides)
        return cls(**base)

    @property
    def variant(self) -> str:
        """``"sound"``, ``"thesis"`` or ``"custom"`` (for the privacy-relevant knobs)."""
        for name, knobs in VARIANT_KNOBS.items():
            if all(getattr(self, k) == v for k, v in knobs.items()):
                return name
        return "custom"

    def replace(self, **changes: Any) -> "AdvisingParams":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "AdvisingParams":
        if not isinstance(d, Mapping):
            raise InputError("must be an object of parameters", field="params")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise InputError(f"unknown parameter {unknown[0]!r}", field="params")
        d = dict(d)
        if "advice_prior" not in d and d.get("sensitivity") == 1.0 and d.get(
                "noise_on_identical_sets") is False:
            # A file from before advice_prior existed, holding the thesis variant: keep
            # its faithful advice distribution (older "sound" files get the sound one).
            d["advice_prior"] = "teacher"
        return cls(**d)


def neighbour_case(teacher: Sequence[int], student: Sequence[int]) -> int:
    """Which case of Algorithm 5 a (teacher, student) pair is; 0 = not neighbours.

    Neighbours differ by at most one action in each direction (spec §3.13).

    Parameters
    ----------
    teacher, student : sequence of int
        The two action sets (server indices).

    Returns
    -------
    int
        1–4, or 0.

    Examples
    --------
    >>> neighbour_case([0, 1, 2, 3], [0, 1, 2, 3]), neighbour_case([0, 1, 2, 3, 4], [0, 1, 2, 3])
    (1, 2)
    >>> neighbour_case([0, 1, 2], [0, 1, 2, 4]), neighbour_case([0, 1, 2, 3], [0, 1, 2, 4])
    (3, 4)
    >>> neighbour_case([0, 1, 2, 3], [0, 1, 4, 5])
    0
    """
    a_i, a_j = set(teacher), set(student)
    extra, missing = len(a_i - a_j), len(a_j - a_i)
    if extra == 0 and missing == 0:
        return 1
    if extra > 1 or missing > 1:
        return 0
    if extra == 1 and missing == 0:
        return 2
    if extra == 0 and missing == 1:
        return 3
    return 4


def dataset_diff(teacher: Sequence[Any], student: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The records (actions) only the teacher has, and those only the student has.

    Parameters
    ----------
    teacher, student : sequence
        The two action sets.

    Returns
    -------
    (list, list)

    Examples
    --------
    >>> dataset_diff(["A", "B", "C", "D"], ["A", "B", "C", "E"])
    (['D'], ['E'])
    """
    a_j = set(student)
    a_i = set(teacher)
    return [a for a in teacher if a not in a_j], [a for a in student if a not in a_i]


def teacher_view_map(teacher: Sequence[int], student: Sequence[int]) -> list[int | None]:
    """TEACHER_VIEW (spec §3.13): for each student position, the teacher position it reads.

    ``None`` means the teacher lacks the action (case 3): the view holds Q₀ and π = 0.
    In case 4 the student's extra action reads the teacher's extra action (the swap); in
    case 2 the teacher's extra action is not copied.

    Parameters
    ----------
    teacher, student : sequence of int
        The two action sets.

    Returns
    -------
    list of int or None

    Examples
    --------
    >>> teacher_view_map([0, 1, 2, 3], [0, 1, 2, 4])   # D is read where the student has E
    [0, 1, 2, 3]
    >>> teacher_view_map([0, 1, 2], [0, 1, 2, 4])
    [0, 1, 2, None]
    """
    pos = {a: k for k, a in enumerate(teacher)}
    only_teacher = [a for a in teacher if a not in set(student)]
    out: list[int | None] = []
    for a in student:
        if a in pos:
            out.append(pos[a])
        elif len(only_teacher) == 1:
            out.append(pos[only_teacher[0]])
        else:
            out.append(None)
    return out


def _labels(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InputError("must be a list of names", field=name)
    out = tuple(str(v) for v in value)
    if not out:
        raise InputError("needs at least one entry", field=name)
    seen: set[str] = set()
    for v in out:
        if not v.strip():
            raise InputError("names must not be empty", field=name)
        if v in seen:
            raise InputError(f"duplicate name {v!r}", field=name)
        seen.add(v)
    return out


@dataclass(frozen=True, eq=False)
class AdvisingSetup:
    """Agents, servers, tasks, action sets, rewards and parameters of one advising run.

    ``action_sets[j]`` lists server indices in agent j's order (that order is the index
    order of its Q and π arrays); ``rewards`` is (n_tasks, n_servers), read-only.
    Validation: every agent has a non-empty set of distinct, known servers; rewards are
    finite numbers; for every agent and task the best available reward is > 0 (the
    convergence ratio divides by it).
    """

    servers: tuple[str, ...]
    tasks: tuple[str, ...]
    agents: tuple[str, ...]
    action_sets: tuple[tuple[int, ...], ...]
    rewards: np.ndarray
    params: AdvisingParams = field(default_factory=AdvisingParams)
    name: str = "custom"
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "servers", _labels(self.servers, "servers"))
        object.__setattr__(self, "tasks", _labels(self.tasks, "tasks"))
        object.__setattr__(self, "agents", _labels(self.agents, "agents"))
        if not isinstance(self.params, AdvisingParams):
            raise InputError("must be AdvisingParams", field="params")
        n_s = len(self.servers)
        sets = []
        if len(self.action_sets) != len(self.agents):
            raise InputError(f"has {len(self.action_sets)} entries for {len(self.agents)} "
                             "agents", field="action_sets")
        for j, acts in enumerate(self.action_sets):
            where = f"action_sets[{self.agents[j]}]"
            if isinstance(acts, (str, bytes)) or not isinstance(acts, Sequence):
                raise InputError("must be a list of servers", field=where)
            if len(acts) == 0:
                raise InputError("is empty: every agent needs at least one server",
                                 field=where)
            ids = []
            for a in acts:
                if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not (
                        0 <= int(a) < n_s):
                    raise InputError(f"unknown server {a!r}", field=where)
                ids.append(int(a))
            if len(set(ids)) != len(ids):
                raise InputError("lists a server twice", field=where)
            sets.append(tuple(ids))
        object.__setattr__(self, "action_sets", tuple(sets))
        try:
            r = np.array(self.rewards, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("must be a table of numbers", field="rewards") from None
        if r.shape != (len(self.tasks), n_s):
            raise InputError(f"must be {len(self.tasks)} tasks x {n_s} servers, got shape "
                             f"{r.shape}", field="rewards")
        if not np.isfinite(r).all():
            t, s = map(int, np.argwhere(~np.isfinite(r))[0])
            raise InputError("must be finite", field=f"rewards[{self.tasks[t]}][{self.servers[s]}]")
        r.setflags(write=False)
        object.__setattr__(self, "rewards", r)
        for j, acts in enumerate(sets):
            best = r[:, list(acts)].max(axis=1)
            if (best <= 0).any():
                t = int(np.argmax(best <= 0))
                raise InputError(
                    f"agent {self.agents[j]!r} has no server with reward > 0 for task "
                    f"{self.tasks[t]!r} (the convergence ratio divides by the best "
                    "available reward)", field="rewards")
        if self.params.sensitivity is None and self.strict_sensitivity <= 0:
            raise InputError("every reward equals Q0: nothing to learn and no sensitivity",
                             field="rewards")

    # ------------------------------------------------------------------ derived
    @property
    def n_agents(self) -> int:
        return len(self.agents)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def n_servers(self) -> int:
        return len(self.servers)

    def q_range(self) -> tuple[float, float]:
        """Bounds every Q-value stays within: Q₀ and the rewards, scaled by 1/(1−γ)."""
        p = self.params
        used = sorted({a for acts in self.action_sets for a in acts})
        r = self.rewards[:, used]
        rmin, rmax = float(r.min()), float(r.max())
        scale = 1.0 / (1.0 - p.gamma)
        lo = min(p.q0, rmin * scale if rmin < 0 else rmin)
        hi = max(p.q0, rmax * scale if rmax > 0 else rmax)
        return lo, hi

    @property
    def strict_sensitivity(self) -> float:
        """S_strict = max Q − min Q: one differing Q-record moves one coordinate this far.

        With the thesis rewards (2 / 0), Q₀ = 0 and γ = 0 this is r_max − r_min = 2.
        """
        lo, hi = self.q_range()
        return hi - lo

    @property
    def noise_sensitivity(self) -> float:
        """The S the Laplace noise is calibrated to: nominal if given, else strict."""
        s = self.params.sensitivity
        return self.strict_sensitivity if s is None else float(s)

    @property
    def true_epsilon_per_release(self) -> float:
        """ε that one release really satisfies: ε·S_strict / S_noise."""
        return self.params.epsilon * self.strict_sensitivity / self.noise_sensitivity

    def neighbour_cases(self) -> np.ndarray:
        """(n, n) matrix: case of (teacher i, student j) at [i, j]; 0 on the diagonal."""
        n = self.n_agents
        out = np.zeros((n, n), dtype=np.int8)
        for i in range(n):
            for j in range(n):
                if i != j:
                    out[i, j] = neighbour_case(self.action_sets[i], self.action_sets[j])
        return out

    def can_advise(self, strategy: str | None = None) -> np.ndarray:
        """(n, n) bool: may teacher i advise student j under ``strategy``?"""
        strategy = strategy or self.params.strategy
        cases = self.neighbour_cases()
        if strategy == "none":
            return np.zeros_like(cases, dtype=bool)
        if strategy == "traditional":
            result: np.ndarray = cases == 1
            return result
        return cases > 0

    def replace(self, **changes: Any) -> "AdvisingSetup":
        """A copy with fields changed; ``params=`` may also be a dict of param changes."""
        p = changes.get("params")
        if isinstance(p, Mapping):
            changes["params"] = self.params.replace(**p)
        return replace(self, **changes)

    def with_params(self, **changes: Any) -> "AdvisingSetup":
        """A copy with some parameters changed, e.g. ``setup.with_params(epsilon=0.1)``."""
        return replace(self, params=self.params.replace(**changes))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_labels(cls, *, servers: Sequence[str], tasks: Sequence[str],
                    agents: Mapping[str, Sequence[str]], rewards: Any,
                    params: AdvisingParams | None = None, name: str = "custom",
                    description: str = "") -> "AdvisingSetup":
        """Build from server names: ``agents`` maps agent name → its servers, in order.

        ``rewards`` is a (tasks × servers) table (nested lists) or a mapping
        task → {server: reward} where missing entries are 0.
        """
        servers_t = _labels(servers, "servers")
        tasks_t = _labels(tasks, "tasks")
        index = {s: k for k, s in enumerate(servers_t)}
        if not isinstance(agents, Mapping) or not agents:
            raise InputError("needs at least one agent", field="agents")
        sets = []
        for name_j, acts in agents.items():
            where = f"action_sets[{name_j}]"
            if isinstance(acts, (str, bytes)) or not isinstance(acts, Sequence):
                raise InputError("must be a list of servers", field=where)
            ids = []
            for a in acts:
                if str(a) not in index:
                    raise InputError(f"unknown server {a!r}", field=where)
                ids.append(index[str(a)])
            sets.append(tuple(ids))
        table = _reward_table(rewards, tasks_t, servers_t)
        return cls(servers=servers_t, tasks=tasks_t, agents=tuple(str(a) for a in agents),
                   action_sets=tuple(sets), rewards=table,
                   params=params if params is not None else AdvisingParams(), name=name,
                   description=description)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AdvisingSetup):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = object.__hash__  # identity: the rewards array makes content hashing costly

    def to_dict(self) -> dict[str, Any]:
        """The set-up file / project entry (``privplan-advising``, version 1)."""
        return {
            "format": SETUP_FORMAT, "version": SETUP_VERSION, "name": self.name,
            "description": self.description, "servers": list(self.servers),
            "tasks": list(self.tasks),
            "agents": [{"name": a, "servers": [self.servers[k] for k in acts]}
                       for a, acts in zip(self.agents, self.action_sets)],
            "rewards": self.rewards.tolist(), "params": self.params.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "AdvisingSetup":
        """Parse a set-up dict (as written by :meth:`to_dict`); errors name the field."""
        if not isinstance(d, Mapping):
            raise InputError("must be a JSON object", field="setup")
        fmt = d.get("format", SETUP_FORMAT)
        if fmt != SETUP_FORMAT:
            raise InputError(f"must be {SETUP_FORMAT!r}, got {fmt!r}", field="format")
        version = d.get("version", SETUP_VERSION)
        if version != SETUP_VERSION:
            raise InputError(f"unsupported version {version!r} (this PrivPlan reads "
                             f"{SETUP_VERSION})", field="version")
        for key in ("servers", "tasks", "agents", "rewards"):
            if key not in d:
                raise InputError("is missing", field=key)
        agents = d["agents"]
        mapping: dict[str, Sequence[str]] = {}
        if isinstance(agents, Mapping):
            mapping = dict(agents)
        elif isinstance(agents, Sequence) and not isinstance(agents, (str, bytes)):
            for k, a in enumerate(agents):
                if not isinstance(a, Mapping) or "name" not in a or "servers" not in a:
                    raise InputError("each agent needs a name and a list of servers",
                                     field=f"agents[{k}]")
                if str(a["name"]) in mapping:
                    raise InputError(f"duplicate name {a['name']!r}", field="agents")
                mapping[str(a["name"])] = a["servers"]
        else:
            raise InputError("must be a list of {name, servers} objects", field="agents")
        params = AdvisingParams.from_dict(d.get("params", {}))
        return cls.from_labels(servers=d["servers"], tasks=d["tasks"], agents=mapping,
                               rewards=d["rewards"], params=params,
                               name=str(d.get("name", "custom")),
                               description=str(d.get("description", "")))


def _reward_table(rewards: Any, tasks: tuple[str, ...], servers: tuple[str, ...]) -> np.ndarray:
    table = np.zeros((len(tasks), len(servers)))
    if isinstance(rewards, Mapping):
        t_index = {t: k for k, t in enumerate(tasks)}
        s_index = {s: k for k, s in enumerate(servers)}
        for t, row in rewards.items():
            if str(t) not in t_index:
                raise InputError(f"unknown task {t!r}", field="rewards")
            if not isinstance(row, Mapping):
                raise InputError("must map servers to rewards", field=f"rewards[{t}]")
            for s, v in row.items():
                if str(s) not in s_index:
                    raise InputError(f"unknown server {s!r}", field=f"rewards[{t}]")
                table[t_index[str(t)], s_index[str(s)]] = _num(v, f"rewards[{t}][{s}]")
        _check_reward_range(table)
        return table
    if isinstance(rewards, (str, bytes)) or not isinstance(rewards, (Sequence, np.ndarray)):
        raise InputError("must be a table of numbers or a task -> {server: reward} map",
                         field="rewards")
    if len(rewards) != len(tasks):
        raise InputError(f"has {len(rewards)} rows for {len(tasks)} tasks", field="rewards")
    for t, row in enumerate(rewards):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)) or len(
                row) != len(servers):
            raise InputError(f"must have {len(servers)} numbers (one per server)",
                             field=f"rewards[{tasks[t]}]")
        for s, v in enumerate(row):
            table[t, s] = _num(v, f"rewards[{tasks[t]}][{servers[s]}]")
    _check_reward_range(table)
    return table


def _check_reward_range(table: np.ndarray) -> None:
    """Rewards within ±MAX_MAGNITUDE: Q-values, their noise, distances and the policy step
    (ξ·Q) stay finite in floating point."""
    big = np.abs(table) > MAX_MAGNITUDE
    if big.any():
        t, s = np.argwhere(big)[0]
        raise InputError(f"must lie within ±{MAX_MAGNITUDE:g}, got {float(table[t, s]):g}",
                         field=f"rewards[{t}][{s}]")
