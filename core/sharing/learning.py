"""Kickstarting on a tabular model: exact policy gradient for the student, the teacher's
per-roll-out privacy schedule and ledger, and the learning curves of spec F1.

Size: one experiment: the student's exact policy gradient, the teacher's schedule and ledger and
the learning curves share the set-up and the softmax policy.

The student's policy is π_θ(·|s) = softmax(θ_s) over the state's available actions. Its
objective J(θ) = ρ₀ᵀV^{π_θ} is evaluated *exactly* (a linear solve, or backward induction
with a stationary policy for a finite horizon), with the softmax policy gradient

    ∇_{θ_s} J = w(s)·π_s ⊙ (Q(s,·) − V(s)),   w(s) = Σ_t γ^t ρ_t(s)

(the discounted visits; spec F1 writes it with d = (1−γ)w, the same thing). A teacher
demonstration π^t_s (one Dirichlet draw per state and iteration) adds the penalty of eq. 16,
φ = ‖π_s − π^t_s‖₂ when it exceeds α_λ, with gradient π_s ⊙ (u − π_sᵀu), u = (π_s − π^t_s)/‖·‖,
weighted by the normalised occupancy d(s) = w(s)/Σw and κ. The student ascends J − κ·E_d[φ].

Student types (spec F1): ``none`` (no teacher), ``nonprivate`` (the teacher's policy itself,
λ = 0), ``aware`` (Dirichlet noise, λ > 0: demonstrations inside the ball α_λ(k) are not
penalised), ``unaware`` (Dirichlet noise, λ = 0). One iteration is one roll-out j: the teacher
answers one query per state the student can reach (a state with at least two actions), at
k_j = k₀·c^j, and stops (k = 0: no demonstration) before the next roll-out would exceed the
budget (E, D) under basic composition (:func:`sharing_ledger`).

The budget is the teacher's: a property of its data, not of one student. Every noisy student
run (aware and unaware, every seed) receives its own draws of the teacher's policy, so one
roll-out costs ``runs × queries × (ε_j, δ_j)``, and what the project already spent on the
teacher's data (``spent``: its releases, basic composition) counts too. The totals are over
all runs of the command; the non-private baseline reads the teacher's policy itself and is
unbounded (outside every budget, recorded as such).

Seeded runs draw each student's noise from ``SeedSequence(seed, spawn_key=(type, run))``, so a
curve does not depend on how many workers ran, nor on which other students ran once the
teacher's schedule is fixed (the schedule depends on how many noisy runs share the budget).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError
from core.common.progress import Progress, no_progress, sub_progress
from core.common.quantities import REAL
from core.common.validation import as_random_source
from core.mdp.model import MDP
from core.mdp.synthesis import synthesize
from core.privacy.composition import advanced_epsilon, check_delta
from core.privacy.dirichlet import dirichlet_rows
from core.sharing.mechanism import (
    ACCOUNTANTS,
    MC_LEVEL,
    alpha_lambda,
    check_sharing,
    delta_mc,
    ignore_threshold,
    tau_for_delta,
    teacher_policy_in_domain,
    theorem1_epsilon,
)
from core.sharing.rollouts import random_policies, sampled_gradient

if TYPE_CHECKING:
    from core.sharing.records import SharingParameters

__all__ = ["STUDENTS", "CURVE_RANGE", "SharingSetup", "LedgerRow", "SharingLedger",
           "evaluate_softmax",
           "softmax_policy", "teacher_policy", "reachable_states", "sharing_ledger",
           "run_student", "StudentCurves", "run_sharing", "SharingStudy", "sharing_study",
           "mechanism_curves", "shared_samples", "mdp_side_bound", "actions_policy",
           "run_policy", "live_privacy", "live_radius", "curve_ks", "curve_tau", "AFTER_BUDGET",
           "reward_scale", "PENALTY_WEIGHTS", "NONPRIVATE_TARGETS", "horizon_weight",
           "policy_value", "sharing_release", "sharing_study_of",
           "check_sharing_model"]

#: What a learning curve's value J(π) at s₀ (or a mean return) can physically be: an MDP's
#: rewards may have either sign, so no limit; its band (percentiles over seeds) is still
#: drawn through core.common.quantities.clip_band, as every band is.
CURVE_RANGE = REAL

STUDENTS = ("none", "nonprivate", "aware", "unaware")
#: What the teacher sends once its budget is spent (see :class:`SharingSetup`).
AFTER_BUDGET = ("stop", "random")
#: How the teacher's penalty is weighed per state (see :class:`SharingSetup`).
PENALTY_WEIGHTS = ("visits", "occupancy")
#: What the non-private student imitates (see :class:`SharingSetup`).
NONPRIVATE_TARGETS = ("teacher", "mixed")


def horizon_weight(mdp: MDP) -> float:
    """H = Σ_{t<T} γ^t: the total discounted visits of one episode of length T (1/(1 − γ)
    for an infinite horizon) — what the exact occupancy d is normalised by.

    A function of the model's public discount and horizon only (no reward, no policy).

    Parameters
    ----------
    mdp : MDP
        The environment.

    Returns
    -------
    float

    Examples
    --------
    >>> from core.mdp.examples import corridor
    >>> round(horizon_weight(corridor(12)), 9)  # γ = 0.95, an infinite horizon
    20.0
    """
    g = float(mdp.discount)
    if mdp.horizon is None:
        return 1.0 / (1.0 - g)
    T = int(mdp.horizon)
    return float(T) if g == 1.0 else (1.0 - g ** T) / (1.0 - g)


def reward_scale(mdp: MDP, how: str = "max") -> float:
    """ρ: the student learns on R/ρ (``"max"``: ρ = the largest |reward| of an available
    action or a terminal reward; ``"none"`` or an all-zero model: 1).

    Parameters
    ----------
    mdp : MDP
        The environment.
    how : {"max", "none"}
        The rule.

    Returns
    -------
    float

    Examples
    --------
    >>> from core.mdp.examples import corridor
    >>> reward_scale(corridor(12)), reward_scale(corridor(12), "none")
    (0.8, 1.0)
    """
    if how == "none":
        return 1.0
    r = np.abs(np.where(mdp.mask, mdp.R, 0.0)).max(initial=0.0)
    r = max(float(r), float(np.abs(mdp.R_T).max(initial=0.0)))
    return r if r > 0 else 1.0


@dataclass(frozen=True)
class SharingSetup:
    """The public parameters of one policy-sharing experiment (defaults: the paper's
    k₀ = 5, λ = 0.5; a coefficient c = 0.3 of Fig. 2c)."""

    k0: float = 5.0
    coef: float = 0.3
    eta: float = 0.05
    lb: float = 0.05
    tau: float | None = None
    delta: float | None = 1e-3       # a target δ per query (τ solved per k), or give tau
    bound: str = "profile"           # the certified exact profile, or eq. 12 (paper/tight)
    lam: float = 0.5
    beta: float = 0.05
    kappa: float = 1.0
    lr: float = 5.0
    budget: tuple[float, float] = (200.0, 0.5)
    iterations: int = 300
    draws: int = 50_000              # Monte Carlo draws of each roll-out's δ
    rollout: str = "exact"           # or "sample": the teacher answers only visited states
    steps: int = 100                 # length of a sampled roll-out (finite horizon: T)
    #: after the budget: "stop" (no demonstration, PrivPlan's rule) or "random" (the
    #: paper's: uniformly random policies, data-independent, (0, 0)-DP)
    after_budget: str = "stop"
    #: "max": the student learns on R / max|R| (κ and the learning rate weigh a value of the
    #: same unit in every environment: κ is scaled to the reward range); "none": raw rewards
    reward_scale: str = "max"
    #: "exact": the exact policy gradient; "sampled": REINFORCE from ``episodes`` roll-outs
    #: per iteration (exploration noise for every student; the teacher answers the states
    #: those roll-outs visit)
    gradient: str = "exact"
    episodes: int = 8
    #: "visits" (default): the penalty at a state is weighed by the student's discounted
    #: visits Σ_t γ^t 1[s_t = s] — the same weights as its policy gradient, as kickstarting
    #: sums its auxiliary loss over the same time steps as the RL loss; "occupancy": by the
    #: normalised occupancy d (Σ d = 1), which shrinks κ against the RL gradient by the
    #: effective horizon H = 1/(1 − γ) (100 at γ = 0.99) — the teacher barely counts on long
    #: episodes (CliffWalking, Taxi)
    penalty_weight: str = "visits"
    #: what the non-private student imitates: "teacher" (default) — the teacher's own policy
    #: π_T, conventional kickstarting as in the paper's non-private experiment (and the PPO
    #: students); "mixed" — the η-mixed π̃_T the private teacher's Dirichlet draws centre on,
    #: so the non-private and private arms differ only in the noise (π̃_T is a poor policy
    #: at η = 0.1, and the student is held near it)
    nonprivate_target: str = "teacher"

    def check(self) -> None:
        """Refuse what Theorem 1 or the learner cannot take, naming the field."""
        _check_fields(self, _SCHEDULE_RULES)
        if (self.tau is None) == (self.delta is None):
            raise InputError("give exactly one of tau and delta (a target per query)",
                             field="tau")
        if self.delta is not None:
            check_delta(self.delta)
        _check_fields(self, _ACCOUNTANT_RULES)
        if self.bound == "profile" and self.tau is not None:
            raise InputError("the exact profile needs a target delta per query; a fixed tau "
                             "belongs to eq. 12 (bound paper or tight)", field="tau")
        alpha_lambda(self.k0, self.lam, self.beta)  # λ >= 0, β ∈ (0, 1)
        _check_fields(self, _LEARNER_RULES)


#: A rule on one field of :class:`SharingSetup`: (field, test of its value, what it must be).
_Rule = tuple[str, Callable[[Any], bool], str]


def _integer_in(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: (isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                      and lo <= int(v) <= hi)


def _budget_ok(budget: Any) -> bool:
    e, d = budget
    return bool(not isinstance(e, bool) and not isinstance(d, bool) and e >= 0 and 0 <= d < 1)


def _check_fields(setup: Any, rules: Sequence[_Rule]) -> None:
    """Refuse the first field of ``setup`` that breaks its rule, naming it."""
    for name, ok, problem in rules:
        value = getattr(setup, name)
        try:
            good = ok(value)
        except (TypeError, ValueError):  # not even a number (a hand-edited record)
            good = False
        if not good:
            raise InputError(f"{problem}, got {value!r}", field=name)


#: The rules of :meth:`SharingSetup.check`, in the order it checks them: the schedule
#: k_j = k₀·c^j, the accountant, then the learner.
_SCHEDULE_RULES: tuple[_Rule, ...] = (
    ("k0", lambda v: math.isfinite(v) and v > 0, "must be > 0"),
    ("coef", lambda v: 0 < v <= 1, "must lie in (0, 1]"),
)
_ACCOUNTANT_RULES: tuple[_Rule, ...] = (
    ("bound", lambda v: v in ACCOUNTANTS, f"must be one of {ACCOUNTANTS}"),
)
_LEARNER_RULES: tuple[_Rule, ...] = (
    ("kappa", lambda v: math.isfinite(v) and v >= 0, "must be finite and >= 0"),
    ("lr", lambda v: math.isfinite(v) and v >= 0, "must be finite and >= 0"),
    ("budget", _budget_ok, "must be (E >= 0, 0 <= D < 1)"),
    ("iterations", _integer_in(1, 100_000), "must be an integer in [1, 100000]"),
    ("rollout", lambda v: v in ("exact", "sample"), "must be exact or sample"),
    ("steps", _integer_in(1, 1_000_000), "must be an integer in [1, 1000000]"),
    ("after_budget", lambda v: v in AFTER_BUDGET,
     f"must be one of {', '.join(AFTER_BUDGET)}"),
    ("reward_scale", lambda v: v in ("max", "none"), "must be max or none"),
    ("gradient", lambda v: v in ("exact", "sampled"), "must be exact or sampled"),
    ("episodes", _integer_in(2, 10_000), "must be an integer in [2, 10000]"),
    ("penalty_weight", lambda v: v in PENALTY_WEIGHTS,
     f"must be one of {', '.join(PENALTY_WEIGHTS)}"),
    ("nonprivate_target", lambda v: v in NONPRIVATE_TARGETS,
     f"must be one of {', '.join(NONPRIVATE_TARGETS)}"),
)


def _query_profile(k: float, m: int, eta: float, lb: float, delta: float) -> float:
    """ε of one query by the certified exact profile (:mod:`core.sharing.profile`), with a
    box budget that keeps a ledger of dozens of roll-outs fast (a valid, slightly looser
    bound; memoised, so seeds and students sharing a schedule pay once)."""
    return _profile_cached(float(k), int(m), float(eta), float(lb), float(delta))


@lru_cache(maxsize=512)
def _profile_cached(k: float, m: int, eta: float, lb: float, delta: float) -> float:
    from core.sharing.profile import l2_profile

    return l2_profile(k, m, eta, lb, delta=delta, budget=150).epsilon


def curve_ks(k0: float) -> np.ndarray:
    """The k grid of the mechanism's panels: 15 points from k₀/1000 to 10·k₀ (log-spaced)."""
    return np.logspace(math.log10(k0) - 3, math.log10(k0) + 1, 15)


def curve_tau(tau: float, m: int) -> float:
    """τ clamped into (0, 1/m), where Theorem 1 is defined, for the panels."""
    return min(max(float(tau), 1e-300), (1.0 / m) * (1 - 1e-9))


# ------------------------------------------------------------------------- exact learning
def softmax_policy(theta: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """softmax(θ_s) over each state's available actions (0 elsewhere).

    Parameters
    ----------
    theta : numpy.ndarray
        (S, A) preferences.
    mask : numpy.ndarray
        (S, A) available actions.

    Returns
    -------
    numpy.ndarray
    """
    z = np.where(mask, theta, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    result: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return result


def evaluate_softmax(mdp: MDP, pi: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """J(π), the policy gradient with respect to softmax preferences, and the normalised
    occupancy d, for a stationary stochastic policy ``pi`` (S, A).

    Parameters
    ----------
    mdp : MDP
        The model (finite horizon: the stationary policy is used at every stage).
    pi : numpy.ndarray
        (S, A) action probabilities.

    Returns
    -------
    (float, numpy.ndarray, numpy.ndarray)
        J at the initial state, ∇_θ J (S, A), and d (S,).
    """
    P, R, g = mdp.P, mdp.R, mdp.discount
    S = mdp.n_states
    s0 = mdp.initial_state
    Ppi = np.einsum("sa,sat->st", pi, P)
    rpi = (pi * R).sum(axis=1)
    if mdp.horizon is None:
        M = np.eye(S) - g * Ppi
        V = np.linalg.solve(M, rpi)
        Q = R + g * (P @ V)
        e0 = np.zeros(S)
        e0[s0] = 1.0
        w = np.linalg.solve(M.T, e0)  # Σ_t γ^t ρ_t
        grad = w[:, None] * pi * (Q - V[:, None])
        J = float(V[s0])
    else:
        T = mdp.horizon
        Vs = np.empty((T + 1, S))
        Vs[T] = mdp.R_T
        Qs = np.empty((T, S, R.shape[1]))
        for t in range(T - 1, -1, -1):
            Qs[t] = R + g * (P @ Vs[t + 1])
            Vs[t] = (pi * Qs[t]).sum(axis=1)
        rho = np.zeros(S)
        rho[s0] = 1.0
        grad = np.zeros_like(pi)
        w = np.zeros(S)
        for t in range(T):
            weight = (g ** t) * rho
            w += weight
            grad += weight[:, None] * pi * (Qs[t] - Vs[t][:, None])
            rho = rho @ Ppi
        J = float(Vs[0, s0])
    d = w / w.sum()
    return J, np.where(mdp.mask, grad, 0.0), d


def policy_value(mdp: MDP, pi: np.ndarray) -> float:
    """J(π) at the initial state alone: one linear solve (or the backward recursion), the
    value part of :func:`evaluate_softmax` without the gradient's second solve (a sampled-
    gradient student only needs its value measured).

    Parameters
    ----------
    mdp : MDP
        The model.
    pi : numpy.ndarray
        (S, A) action probabilities.

    Returns
    -------
    float
    """
    P, R, g = mdp.P, mdp.R, mdp.discount
    rpi = (pi * R).sum(axis=1)
    Ppi = np.einsum("sa,sat->st", pi, P)
    if mdp.horizon is None:
        V = np.linalg.solve(np.eye(mdp.n_states) - g * Ppi, rpi)
    else:
        V = np.asarray(mdp.R_T, dtype=float)
        for _ in range(int(mdp.horizon)):
            V = rpi + g * (Ppi @ V)
    return float(V[mdp.initial_state])


def teacher_policy(mdp: MDP, kind: str = "optimal", temperature: float = 1.0) -> np.ndarray:
    """The teacher's stationary policy (S, A): ``optimal`` (the synthesised policy; for a
    finite horizon its first stage), or ``softmax`` of the optimal Q with a temperature.

    Parameters
    ----------
    mdp : MDP
        The model.
    kind : {"optimal", "softmax"}
        Which teacher.
    temperature : float
        T > 0 of the softmax teacher.

    Returns
    -------
    numpy.ndarray
    """
    plan = synthesize(mdp)
    S, A = mdp.P.shape[:2]
    if kind == "optimal":
        act = plan.policy[0] if mdp.horizon is not None else plan.policy
        pi = np.zeros((S, A))
        pi[np.arange(S), act] = 1.0
        return pi
    if kind != "softmax":
        raise InputError(f"must be optimal or softmax:T, got {kind!r}", field="teacher")
    if not (math.isfinite(temperature) and temperature > 0):
        raise InputError(f"must be > 0, got {temperature!r}", field="teacher")
    v_next = plan.values[1] if mdp.horizon is not None else plan.values
    Q = mdp.R + mdp.discount * (mdp.P @ v_next)
    return softmax_policy(Q / temperature, mdp.mask)


def actions_policy(mdp: MDP, actions: Sequence[int]) -> np.ndarray:
    """A deterministic teacher from one action index per state (e.g. π̄ of a bounds run).

    Parameters
    ----------
    mdp : MDP
        The model.
    actions : sequence of int
        One available action per state.

    Returns
    -------
    numpy.ndarray
        (S, A) one-hot rows.
    """
    act = np.asarray(actions)
    S = mdp.n_states
    if act.shape != (S,) or not np.issubdtype(act.dtype, np.integer):
        raise InputError(f"needs one action index per state ({S}), got shape {act.shape}",
                         field="teacher")
    if ((act < 0) | (act >= mdp.n_actions)).any() or not mdp.mask[np.arange(S), act].all():
        raise InputError("names an action a state does not have (was the model edited?)",
                         field="teacher")
    pi = np.zeros(mdp.P.shape[:2])
    pi[np.arange(S), act] = 1.0
    return pi


def run_policy(record: Any) -> list[int]:
    """The stationary policy a bounds run recorded (its first stage for a finite horizon).

    Parameters
    ----------
    record : RunRecord
        A run of kind ``"bounds"``.

    Returns
    -------
    list of int
    """
    if getattr(record, "kind", None) == "bounds" and "policy_probs" in record.summary:
        raise InputError(f"run {getattr(record, 'id', record)!r} holds a stochastic policy "
                         "(softmax or a given table); the teacher needs a deterministic one",
                         field="teacher")
    if getattr(record, "kind", None) != "bounds" or "policy" not in record.summary:
        raise InputError(f"run {getattr(record, 'id', record)!r} is not a Synthesise & bound "
                         "run with a policy", field="teacher")
    pol = record.summary["policy"]
    row = pol[0] if pol and isinstance(pol[0], list) else pol
    return [int(a) for a in row]


def reachable_states(mdp: MDP) -> np.ndarray:
    """States a full-support policy can reach from the initial state (bool (S,))."""
    adj = (mdp.P * mdp.mask[:, :, None]).sum(axis=1) > 0
    seen = np.zeros(mdp.n_states, dtype=bool)
    seen[mdp.initial_state] = True
    frontier = [mdp.initial_state]
    while frontier:
        nxt = np.flatnonzero(adj[frontier].any(axis=0) & ~seen)
        seen[nxt] = True
        frontier = nxt.tolist()
    return seen


# ------------------------------------------------------------------------- privacy ledger
@dataclass(frozen=True)
class LedgerRow:
    """One roll-out j of the teacher: its k, per-query (ε, δ), queries and running totals."""

    rollout: int
    k: float
    epsilon: float
    delta: float
    tau: float | None  # None with the exact profile (it has no threshold)
    queries: int
    epsilon_total: float
    delta_total: float
    epsilon_advanced: float
    stopped: bool


@dataclass(frozen=True)
class SharingLedger:
    """The teacher's schedule: rows until the stop, and the stop point (None: never)."""

    rows: tuple[LedgerRow, ...]
    stopped_at: int | None
    budget: tuple[float, float]
    queries_per_rollout: int
    ms: tuple[int, ...]
    mode: str
    seed: int | None
    draws: int
    stop_reason: str = ""
    runs: int = 1                                 # noisy student runs the budget covers
    spent: tuple[float, float] = (0.0, 0.0)       # already spent on the teacher's data
    adjacency: str = ("two observations X, X' with ||X - X'||_2 <= b; the teacher is "
                      "L-Lipschitz, so shared policies differ by at most L*b in l2 "
                      "(Theorem 1 of [KS]); the teacher's observations are protected")

    def k_at(self, j: int) -> float:
        """k of roll-out j (0 once the teacher has stopped)."""
        if self.stopped_at is not None and j >= self.stopped_at:
            return 0.0
        return self.rows[j].k if j < len(self.rows) else 0.0

    @property
    def totals(self) -> tuple[float, float]:
        """What the command releases: every noisy run's demonstrations (basic composition)."""
        live = [r for r in self.rows if not r.stopped]
        return (live[-1].epsilon_total, live[-1].delta_total) if live else (0.0, 0.0)

    @property
    def totals_per_run(self) -> tuple[float, float]:
        """One student run's share of :attr:`totals`."""
        e, d = self.totals
        return (e / self.runs, d / self.runs) if self.runs else (0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        e, d = self.totals
        pe, pd = self.totals_per_run
        live = [r for r in self.rows if not r.stopped]
        return {"k": [r.k for r in live], "epsilon": [r.epsilon for r in live],
                "delta": [r.delta for r in live], "tau": [r.tau for r in live],
                "queries": [r.queries for r in live],
                "epsilon_total": [r.epsilon_total for r in live],
                "delta_total": [r.delta_total for r in live],
                "epsilon_advanced": [r.epsilon_advanced for r in live],
                "ledger_total": {"epsilon": e, "delta": d, "composition": "basic",
                                 "runs": self.runs,
                                 "per": f"all {self.runs} noisy student runs of the command "
                                        "(the teacher's budget)"},
                "ledger_total_per_run": {"epsilon": pe, "delta": pd, "composition": "basic"},
                "spent_before": {"epsilon": self.spent[0], "delta": self.spent[1]},
                "stopped_at": self.stopped_at, "stop_reason": self.stop_reason,
                "budget": list(self.budget),
                "queries_per_rollout": self.queries_per_rollout,
                "adjacency": self.adjacency, "mode": self.mode, "seed": self.seed,
                "draws": self.draws}


def sharing_ledger(setup: SharingSetup, ms: Sequence[int], queries: int, *,
                   runs: int = 1, spent: tuple[float, float] = (0.0, 0.0),
                   rng: "np.random.Generator | int | None" = 0,
                   progress: Progress = no_progress) -> SharingLedger:
    """The teacher's per-roll-out (ε_j, δ_j) and the basic-composition ledger with its stop.

    k_j = k₀·c^j. Per query: ε_j of eq. 12 and δ_j (the Monte Carlo upper bound at τ, or
    the target δ with τ_j solved for it), the worst over the action-set sizes ``ms``. Totals
    over all ``runs`` noisy student runs: E_j = Σ R·Q·ε, D_j = Σ R·Q·δ; the teacher stops
    (k = 0, no demonstration: (0, 0)) before a roll-out that would take ``spent`` + the totals
    past the budget. ``epsilon_advanced`` is the advanced-composition total of the same
    releases with slack δ' = D/2 (an extra, labelled; the ledger itself uses basic).

    Parameters
    ----------
    setup : SharingSetup
        The parameters.
    ms : sequence of int
        The action-set sizes of the states that are queried.
    queries : int
        Queries per roll-out (the reachable states with two or more actions).
    runs : int
        Noisy student runs that each receive every roll-out's demonstrations (0: none).
    spent : (float, float)
        What the teacher's data has already spent (the project's releases on it).
    rng : int, Generator or None
        Seed of the Monte Carlo δ (None: the OS's CSPRNG).
    progress : callable
        Called per roll-out.

    Returns
    -------
    SharingLedger
    """
    setup.check()
    ms = tuple(sorted(set(int(m) for m in ms if m >= 2)))
    for m in ms:
        check_sharing(m, setup.eta, tau=setup.tau)
    if isinstance(runs, bool) or int(runs) != runs or runs < 0:
        raise InputError(f"must be a whole number >= 0, got {runs!r}", field="runs")
    s_e, s_d = (float(v) for v in spent)
    if not (s_e >= 0 and 0 <= s_d):  # an unbounded spend (inf) is allowed: nothing fits
        raise InputError(f"must be (epsilon >= 0, delta >= 0), got {spent!r}", field="spent")
    E, D = setup.budget
    runs = int(runs)
    per = runs * queries   # releases of one roll-out
    rows: list[LedgerRow] = []
    eps_list: list[float] = []
    counts: list[int] = []
    cum_e = cum_d = 0.0
    stopped_at = None
    stop_reason = ""
    seed = rng if isinstance(rng, int) else None
    src: Any = rng
    for j in range(int(setup.iterations)):
        k = setup.k0 * setup.coef ** j
        if not ms or queries == 0:
            break
        eps = delta = 0.0
        tau: float | None = setup.tau if setup.tau is not None else 1.0
        if k > 0 and k * setup.eta > 1e-300 and setup.bound == "profile":
            assert setup.delta is not None  # (check: the profile needs a target δ)
            eps = max(_query_profile(k, m, setup.eta, setup.lb, setup.delta) for m in ms)
            delta, tau = float(setup.delta), None
        elif k > 0 and k * setup.eta > 1e-300:
            try:
                for m in ms:
                    if setup.tau is not None:
                        t = setup.tau
                        d = delta_mc(k, m, setup.eta, t, draws=setup.draws, rng=src).upper
                    else:
                        assert setup.delta is not None  # (check: exactly one of tau, delta)
                        t, est = tau_for_delta(k, m, setup.eta, setup.delta,
                                               draws=setup.draws, rng=src)
                        d = est.upper
                    eps = max(eps, theorem1_epsilon(k, m, setup.eta, t, setup.lb,
                                                    bound=setup.bound))
                    delta = max(delta, d)
                    tau = min(tau if tau is not None else t, t)
            except InputError as exc:  # no τ reaches the target at this k: the teacher stops
                stopped_at = j
                stop_reason = exc.problem
                break
        # with no noisy run the roll-out releases nothing (0 · ∞ is 0 here, not NaN)
        add_e, add_d = (per * eps, per * delta) if per else (0.0, 0.0)
        if s_e + cum_e + add_e > E or s_d + cum_d + add_d > D:
            stopped_at = j
            before = (f" after ({s_e:.4g}, {s_d:.3g}) already spent on the teacher's data"
                      if s_e or s_d else "")
            stop_reason = (f"roll-out {j} would add ({add_e:.4g}, {add_d:.3g}) "
                           f"({queries} queries x {runs} noisy runs) to ({cum_e:.4g}, "
                           f"{cum_d:.3g}){before}, past the budget ({E:g}, {D:g})")
            break
        cum_e += add_e
        cum_d += add_d
        if per:
            eps_list.append(eps)
            counts.append(per)
        adv = (min(advanced_epsilon(eps_list, counts, delta_slack=D / 2), cum_e) if D > 0
               else math.inf)
        rows.append(LedgerRow(j, k, eps, delta, tau, queries, cum_e, cum_d, adv, False))
        progress((j + 1) / setup.iterations, f"roll-out {j}: k = {k:.3g}")
    return SharingLedger(rows=tuple(rows), stopped_at=stopped_at, stop_reason=stop_reason,
                         budget=(E, D),
                         queries_per_rollout=int(queries), ms=ms,
                         mode="experiment" if rng is not None else "release", seed=seed,
                         draws=int(setup.draws), runs=runs, spent=(s_e, s_d))


# ------------------------------------------------------------------------- students
def _student_chunk(mdp: MDP, teacher: np.ndarray, plain: np.ndarray, setup: SharingSetup,
                   ledger: "SharingLedger", kind: str, start: int, stop: int,
                   seed: int | None) -> np.ndarray:
    """Runs ``start..stop-1`` of one student type (a task of :func:`run_sharing`)."""
    rows = []
    for r in range(start, stop):
        # keyed by the student type itself: a curve does not depend on which others ran
        key = (STUDENTS.index(kind), r)
        gen = (np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
               if seed is not None else None)
        rows.append(run_student(mdp, kind, teacher, setup, ledger, gen, plain=plain))
    return np.array(rows)


def _visited(mdp: MDP, pi: np.ndarray, steps: int, gen: Any) -> np.ndarray:
    """The states one roll-out of ``pi`` from the initial state visits (bool (S,))."""
    T = mdp.horizon if mdp.horizon is not None else steps
    seen = np.zeros(mdp.n_states, dtype=bool)
    s = mdp.initial_state
    u = gen.random(2 * int(T))
    for t in range(int(T)):
        seen[s] = True
        a = min(int(np.searchsorted(np.cumsum(pi[s]), u[2 * t], side="right")), pi.shape[1] - 1)
        nxt = np.cumsum(mdp.P[s, a])
        s = min(int(np.searchsorted(nxt, u[2 * t + 1], side="right")), mdp.n_states - 1)
    return seen


def run_student(mdp: MDP, kind: str, teacher: np.ndarray, setup: SharingSetup,
                ledger: SharingLedger | None, rng: np.random.Generator | None, *,
                plain: np.ndarray | None = None) -> np.ndarray:
    """One student's learning curve: J after 0, 1, …, I iterations (I + 1 values).

    Parameters
    ----------
    mdp : MDP
        The environment.
    kind : str
        One of :data:`STUDENTS`.
    teacher : numpy.ndarray
        The teacher's policy mapped into Δ_{m,η} (S, A).
    setup : SharingSetup
        λ, β, κ, learning rate, iterations.
    ledger : SharingLedger or None
        The teacher's schedule (``aware`` / ``unaware``).
    rng : numpy.random.Generator or None
        The Dirichlet noise (None: release mode, the OS's CSPRNG).
    plain : numpy.ndarray or None
        The teacher's own policy π_T (S, A): what the non-private student imitates under
        ``setup.nonprivate_target == "teacher"`` (required then).

    Returns
    -------
    numpy.ndarray
    """
    if kind not in STUDENTS:
        raise InputError(f"must be among {', '.join(STUDENTS)}, got {kind!r}", field="students")
    if kind == "nonprivate" and setup.nonprivate_target == "teacher":
        if plain is None:
            raise ValueError("the non-private student imitates the teacher's own policy: "
                             "pass plain=pi_T (or nonprivate_target='mixed')")
        teacher = plain  # conventional kickstarting: no Dirichlet domain to stay in
    n_iter = int(setup.iterations)
    theta = np.zeros(mdp.P.shape[:2])
    mask = mdp.mask
    share = mask.sum(axis=1) >= 2
    sampler = rng if rng is not None else as_random_source(None).generator
    curve = np.empty(n_iter + 1)
    lam = 0.0 if kind in ("nonprivate", "unaware") else setup.lam
    sampled = setup.gradient == "sampled"
    randomised = setup.after_budget == "random" and kind in ("aware", "unaware")
    visits = setup.penalty_weight == "visits"
    H = horizon_weight(mdp)
    for j in range(n_iter + 1):
        pi = softmax_policy(theta, mask)
        if sampled:  # J is the measurement; the learner estimates its own gradient
            curve[j] = policy_value(mdp, pi)
        else:
            curve[j], grad, d = evaluate_softmax(mdp, pi)
        if j == n_iter:
            break
        asked = share
        if sampled:  # the student's own roll-outs: its gradient and the states it visits
            grad, w = sampled_gradient(mdp, pi, setup.episodes, setup.steps, sampler)
            d = w if visits else w / w.sum()
            asked = share & (w > 0)
        else:
            # exact: d is the normalised occupancy; H·d = the discounted visits Σ_t γ^t ρ_t
            d = H * d if visits else d
            if setup.rollout == "sample":  # the teacher sees only the states a roll-out visits
                asked = share & _visited(mdp, pi, setup.steps, sampler)
        step = grad
        k = math.inf if kind == "nonprivate" else (ledger.k_at(j) if ledger else 0.0)
        after = randomised and k == 0  # the paper's rule: random policies after the budget
        if kind != "none" and (k > 0 or after) and setup.kappa > 0 and asked.any():
            if math.isinf(k):
                pit = teacher
            elif after:
                pit = teacher.copy()
                pit[asked] = random_policies(mask[asked], sampler)
            else:
                pit = teacher.copy()
                pit[asked] = dirichlet_rows(teacher[asked], k, rng)
            # the non-private teacher (k = ∞) and λ = 0: every demonstration is penalised
            alpha = 0.0 if math.isinf(k) or not lam else alpha_lambda(k, lam, setup.beta)
            diff = pi - pit
            norm = np.linalg.norm(diff, axis=1)
            active = asked & (norm > alpha) & (norm > 0)
            if active.any():
                u = np.zeros_like(diff)
                u[active] = diff[active] / norm[active, None]
                gphi = pi * (u - (pi * u).sum(axis=1, keepdims=True))
                step = step - setup.kappa * (d * active)[:, None] * gphi
        theta = theta + setup.lr * np.where(mask, step, 0.0)
    return curve


@dataclass(frozen=True, eq=False)
class StudentCurves:
    """Learning curves per student type: (seeds, I + 1) arrays, with the median and the
    85th-percentile band the paper plots (the 7.5th and 92.5th percentiles)."""

    curves: dict[str, np.ndarray]
    teacher_value: float
    ledger: SharingLedger
    seed: int | None
    setup: SharingSetup
    queries_per_rollout: int
    elapsed_s: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    m: int = 2  # the environment's largest action set
    teacher: np.ndarray | None = None  # the demonstrated policy π̃_T (η-mixed), (S, A)

    @property
    def curve_tau(self) -> float:
        """The τ of the mechanism's panels: the fixed one, or the first roll-out's."""
        s = self.setup
        taus = [r.tau for r in self.ledger.rows if not r.stopped and r.tau is not None]
        if s.tau is not None or taus:
            return curve_tau(s.tau if s.tau is not None else taus[0], self.m)
        if s.delta is None:
            return curve_tau(1e-3, self.m)
        # the exact profile has no τ: eq. 12's panel uses the τ that meets δ̂ at k₀ (a δ̂
        # too small for the panel's 10,000 draws — many queries per roll-out, as with a
        # network teacher — gets the τ of δ̂ = 1e-3 instead; the panel only, no statement)
        try:
            t, _ = tau_for_delta(s.k0, self.m, s.eta, s.delta, draws=10_000, rng=0)
        except InputError:
            t, _ = tau_for_delta(s.k0, self.m, s.eta, 1e-3, draws=10_000, rng=0)
        return curve_tau(t, self.m)

    def band(self, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(median, lower, upper) over seeds per iteration."""
        c = self.curves[kind]
        return (np.median(c, axis=0), np.percentile(c, 7.5, axis=0),
                np.percentile(c, 92.5, axis=0))

    def cost_of_privacy(self, kind: str = "aware") -> float:
        """J(π_T) − J(student) at the last iteration (median over seeds)."""
        return float(self.teacher_value - np.median(self.curves[kind][:, -1]))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.ledger.to_dict())
        out["curves"] = {}
        for kind in self.curves:
            med, lo, hi = self.band(kind)
            out["curves"][kind] = {"median": med.tolist(), "lower": lo.tolist(),
                                   "upper": hi.tolist(), "band": "85th percentile "
                                   "(7.5th to 92.5th) over seeds"}
        e, d = self.ledger.totals
        # every noisy student run received its own draws of the same teacher's data: the
        # ledger's totals are over all of them (kept under the old key too)
        out["ledger_total_all_runs"] = {"epsilon": e, "delta": min(1.0, d),
                                        "runs": self.ledger.runs, "composition": "basic"}
        if "nonprivate" in self.curves:
            out["nonprivate_baseline"] = {
                "epsilon": None, "runs": int(self.curves["nonprivate"].shape[0]),
                "epsilon_reason": "the non-private baseline student reads the teacher's "
                                  "policy itself: unbounded, outside every budget"}
        out["teacher_value"] = self.teacher_value
        out["cost_of_privacy"] = {k: self.cost_of_privacy(k) for k in self.curves}
        out["seeds"] = int(next(iter(self.curves.values())).shape[0]) if self.curves else 0
        out["iterations"] = int(self.setup.iterations)
        out["ignore_threshold"] = ignore_threshold(self.setup.lam, self.setup.beta)
        out["notes"] = list(self.notes)
        out["elapsed_s"] = self.elapsed_s
        return out


def _check_student_work(mdp: MDP, evaluations: int) -> None:
    """Refuse student runs whose policy evaluations (one per iteration, seed and student:
    backward induction over the horizon, or two linear solves) would pass the time limit."""
    from core.common.resources import check_time, sweep_seconds

    S, A = mdp.P.shape[0], mdp.P.shape[1]
    if mdp.horizon is not None:
        each = sweep_seconds(2 * mdp.horizon, float(S) * A * S)
    else:
        each = sweep_seconds(2, float(S) * A * S) + 2e-9 * float(S) ** 3
    check_time(evaluations * each, "iterations",
               detail=f"{evaluations:,} policy evaluations of the students (iterations x seeds "
                      "x students)")


def check_sharing_model(mdp: MDP, setup: SharingSetup) -> int:
    """Refuse a model the set-up cannot share a policy on (every state with one action; η
    above 1/m for its largest action set m), naming the field; m.

    Parameters
    ----------
    mdp : MDP
        The environment.
    setup : SharingSetup
        The set-up (its η).

    Returns
    -------
    int
        m, the largest action set.
    """
    m_max = int(mdp.mask.sum(axis=1).max())
    if m_max < 2:
        raise InputError("every state has a single action: there is no policy to share",
                         field="model")
    check_sharing(m_max, setup.eta)
    return m_max


def run_sharing(mdp: MDP, setup: SharingSetup, *, students: Sequence[str] = STUDENTS,
                seeds: int = 10, seed: int | None = None, teacher: str = "optimal",
                temperature: float = 1.0, teacher_actions: Sequence[int] | None = None,
                workers: int | None = None, executor: Any = None,
                spent: tuple[float, float] = (0.0, 0.0),
                progress: Progress = no_progress) -> StudentCurves:
    """The whole experiment: the teacher's ledger once, then every student type over seeds.

    Parameters
    ----------
    mdp : MDP
        The environment (the teacher's observations are its states).
    setup : SharingSetup
        The parameters.
    students : sequence of str
        Which of :data:`STUDENTS`.
    seeds : int
        Runs per student type.
    seed : int, optional
        Experiment seed; None: release mode (noise and Monte Carlo from the OS's CSPRNG).
    teacher, temperature :
        :func:`teacher_policy`.
    teacher_actions : sequence of int, optional
        A deterministic teacher instead (the policy of an earlier run).
    workers : int, optional
        Processes (default 1: this thread). Every student run seeds its own generator from
        ``SeedSequence(seed, spawn_key=(type, run))``: the curves do not depend on it.
    executor : Executor, optional
        A pool or a dask cluster (:mod:`core.common.cluster`) instead.
    spent : (float, float)
        What the project has already spent on the teacher's data: the budget (E, D) covers
        it and every noisy run of this command (:func:`sharing_ledger`).
    progress : callable
        ``progress(fraction, message)`` (may cancel).

    Returns
    -------
    StudentCurves
    """
    import time

    t0 = time.perf_counter()
    setup.check()
    students = _check_students(students, seeds)
    counts = mdp.mask.sum(axis=1)
    m_max = check_sharing_model(mdp, setup)
    _check_student_work(mdp, len(students) * int(seeds) * (int(setup.iterations) + 1))
    pi_T, teacher_in = _teacher_policies(mdp, setup, teacher, temperature, teacher_actions)
    queried = reachable_states(mdp) & (counts >= 2)

    def ledger_progress(fraction: float, message: str = "") -> None:
        progress(0.2 * fraction, message)

    noisy = int(seeds) * sum(1 for k in students if k in ("aware", "unaware"))
    ledger = sharing_ledger(setup, counts[queried].tolist(), int(queried.sum()), runs=noisy,
                            spent=spent, rng=seed if seed is not None else None,
                            progress=ledger_progress)
    teacher_value = evaluate_softmax(mdp, pi_T)[0]  # J(π_T), the teacher as it is
    rho = reward_scale(mdp, setup.reward_scale)
    curves = _run_students(mdp, setup, students, int(seeds), seed, rho,
                           (teacher_in, pi_T, ledger), workers, executor,
                           progress)
    return StudentCurves(curves=curves, teacher_value=float(teacher_value), ledger=ledger,
                         seed=seed, setup=setup, queries_per_rollout=int(queried.sum()),
                         elapsed_s=time.perf_counter() - t0,
                         notes=tuple(_sharing_notes(mdp, setup, rho, ledger)), m=m_max,
                         teacher=teacher_in)


def sharing_release(params: SharingParameters, progress: Progress | None = None,
                    cancelled: Callable[[], bool] | None = None, *, mdp: MDP,
                    teacher_actions: Sequence[int] | None = None,
                    spent: tuple[float, float] = (0.0, 0.0), workers: int | None = None,
                    executor: Any = None) -> StudentCurves:
    """Run the policy-sharing experiment of ``params`` on ``mdp``: the one entry point.

    ``share ENV …`` calls it and the Policy sharing tab runs it in its worker; both record
    its result with :func:`core.project.recording.sharing_run_record`.

    Parameters
    ----------
    params : SharingParameters
        What to run (validated when it was made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled with the progress; True stops the run by raising
        :class:`core.common.progress.Cancelled`.
    mdp : MDP
        The environment (the teacher's observations are its states).
    teacher_actions : sequence of int, optional
        The policy of a ``run:ID`` teacher (one action per state; required for one).
    spent : (float, float)
        What the project has already spent on the teacher's data.
    workers, executor :
        As in :func:`run_sharing` (the curves do not depend on them).

    Returns
    -------
    StudentCurves

    Examples
    --------
    >>> from core.mdp.examples import four_startups
    >>> from core.sharing.records import SharingParameters
    >>> p = SharingParameters("mdp:startups", SharingSetup(iterations=3, draws=20_000),
    ...                       students=("aware", "none"), seeds=2, seed=1)
    >>> list(sharing_release(p, mdp=four_startups()).curves)
    ['aware', 'none']
    """
    from core.common.progress import Cancelled

    kind = params.teacher_kind
    if kind == "ppo":
        raise InputError("a PPO teacher trains on a gymnasium environment "
                         "(core.deep.kickstart.run_ppo_sharing)", field="teacher")
    if kind == "run" and teacher_actions is None:
        raise InputError(f"{params.teacher!r} needs that run's policy", field="teacher")
    report = progress if progress is not None else no_progress

    def checked(fraction: float, message: str = "") -> None:
        if cancelled is not None and cancelled():
            raise Cancelled()
        report(fraction, message)

    return run_sharing(mdp, params.setup, students=params.students, seeds=params.seeds,
                       seed=params.seed, teacher="optimal" if kind == "run" else kind,
                       temperature=params.temperature, teacher_actions=teacher_actions,
                       workers=workers, executor=executor, spent=spent,
                       progress=checked if cancelled is not None else report)


def _check_students(students: Sequence[str], seeds: int) -> list[str]:
    """The student types to run (each once, in the given order); ``seeds`` in range."""
    students = list(dict.fromkeys(students))
    for name in students:
        if name not in STUDENTS:
            raise InputError(f"must be among {', '.join(STUDENTS)}, got {name!r}",
                             field="students")
    if (isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer))
            or not 1 <= int(seeds) <= 10_000):
        raise InputError(f"must be an integer in [1, 10000], got {seeds!r}", field="seeds")
    return students


def _teacher_policies(mdp: MDP, setup: SharingSetup, teacher: str, temperature: float,
                      teacher_actions: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's policy π_T and the η-mixed π̃_T its demonstrations centre on."""
    if teacher_actions is not None:  # the policy of an earlier run (one action per state)
        pi_T = actions_policy(mdp, teacher_actions)
    else:
        pi_T = teacher_policy(mdp, teacher, temperature if teacher == "softmax" else 1.0)
    teacher_in = pi_T.copy()
    for s in range(mdp.n_states):  # η-mixing on each state's own action set
        avail = mdp.mask[s]
        if avail.sum() >= 2:
            teacher_in[s, avail] = teacher_policy_in_domain(pi_T[s, avail], setup.eta)
    return pi_T, teacher_in


def _run_students(mdp: MDP, setup: SharingSetup, students: list[str], n_seeds: int,
                  seed: int | None, rho: float,
                  teacher: tuple[np.ndarray, np.ndarray, SharingLedger],
                  workers: int | None, executor: Any, progress: Progress
                  ) -> dict[str, np.ndarray]:
    """Every student type's ``n_seeds`` learning curves (rows), in chunks of seeds run
    here, on ``workers`` processes or on ``executor``. ``teacher`` is (π̃_T, π_T, ledger);
    the students learn on R/``rho`` and their curves are in the environment's units.
    ``progress`` runs from 0.2 (the teacher's ledger is done) to 1."""
    out = {kind: np.empty((n_seeds, int(setup.iterations) + 1)) for kind in students}
    total = len(students) * n_seeds
    done = 0
    n_workers = workers if workers is not None else 1
    if n_workers < 1:
        raise InputError(f"must be >= 1, got {workers!r}", field="workers")
    inline = executor is None and n_workers == 1
    chunk = 1 if inline else max(1, math.ceil(n_seeds / max(1, 2 * n_workers)))
    tasks = [(kind, start, min(n_seeds, start + chunk)) for kind in students
             for start in range(0, n_seeds, chunk)]
    # the student learns on R/ρ (κ and lr weigh a value of one unit in every environment);
    # its curve is reported in the environment's own units
    learn_mdp = mdp if rho == 1.0 else mdp.replace(R=mdp.R / rho, R_T=mdp.R_T / rho)

    def record(task: tuple[str, int, int], rows: np.ndarray) -> None:
        nonlocal done
        kind, start, stop = task
        out[kind][start:stop] = rows * rho
        done += stop - start
        progress(0.2 + 0.8 * done / total, f"{kind}: {done} of {total} runs")

    from core.common.parallel import run_chunks

    # the model, the teacher, the setup and the ledger go to each worker once
    run_chunks(_student_chunk, tasks, lambda t: (t[0], t[1], t[2], seed), record,
               inline=inline, executor=executor, workers=n_workers,
               poll=lambda: progress(0.2 + 0.8 * done / total, "running"),  # a cancel point
               shared=(learn_mdp, teacher[0], teacher[1], setup, teacher[2]),
               describe=lambda t: f"{t[0]} seeds {t[1] + 1}-{t[2]}")
    return out


def _sharing_notes(mdp: MDP, setup: SharingSetup, rho: float, ledger: SharingLedger
                   ) -> list[str]:
    """What a reader of the curves needs to know about how they were made."""
    notes = ["The teacher's policy is mixed into the restricted simplex, (1 - m*eta)*pi + eta "
             "(spec F1), so every demonstration is in Theorem 1's domain; J(pi_T) is the "
             "teacher's own (unmixed) value.",
             "The non-private student imitates " + (
                 "the teacher's own policy pi_T (conventional kickstarting)."
                 if setup.nonprivate_target == "teacher" else
                 "the eta-mixed policy the Dirichlet draws centre on (nonprivate_target "
                 "mixed: the arms differ only in the noise)."),
             "Lemma 1 of the paper is false as stated; alpha_lambda is used as the loss radius "
             "only (spec §1.4).",
             "Theorem 1's delta tends to 1 as k -> 0: a fixed tau blows the delta budget; "
             "with a target delta per query, tau is solved per roll-out (spec §1.6).",
             *(["Sampled roll-outs: the teacher answers only the states each roll-out "
                 "visits; the ledger counts every reachable state per roll-out (an upper "
                 "bound on the queries, so its totals and stop are conservative)."]
               if setup.rollout == "sample" else []),
             f"Each roll-out's delta is a {MC_LEVEL:.0%} one-sided Clopper-Pearson upper bound "
             f"from {setup.draws:,} Monte Carlo draws of eq. 6 (drawn in log space): a "
             "statistical bound, not a proof; epsilon of eq. 12 is exact."]
    if rho != 1.0:
        notes.append(f"Rewards scaled for learning: the students learn on R/{rho:.4g} (the "
                     "largest |reward|), so kappa and the learning rate weigh a value of one "
                     "unit in every environment; curves are in the environment's units.")
    notes.append("The penalty is weighed by each state's discounted visits, like the policy "
                 "gradient (kickstarting sums both losses over the same time steps)."
                 if setup.penalty_weight == "visits" else
                 f"The penalty is weighed by the normalised occupancy (sum 1): kappa counts "
                 f"{horizon_weight(mdp):.4g} times less against the policy gradient than "
                 "with --penalty-weight visits.")
    if setup.gradient == "sampled":
        notes.append(f"Sampled gradients: every student estimates its policy gradient from "
                     f"{setup.episodes} roll-outs per iteration (REINFORCE, leave-one-out "
                     "baseline), so every curve has exploration noise; the teacher answers "
                     "the states those roll-outs visit; J is evaluated exactly.")
    if ledger.stopped_at is not None:
        after = ("the teacher sends uniformly random policies (the paper's rule; "
                 "data-independent, (0, 0)-DP)" if setup.after_budget == "random"
                 else "no demonstration is sent ((0, 0)-DP)")
        notes.append(f"The teacher stopped before roll-out {ledger.stopped_at}: "
                     f"{ledger.stop_reason}; afterwards {after}.")
    return notes


@dataclass(frozen=True, eq=False)
class SharingStudy:
    """What the Policy sharing workspace shows: the students and the teacher's ledger, and
    the mechanism's ε/δ(k) and radius curves around k₀ (at the τ the ledger used)."""

    result: StudentCurves
    privacy: Any   # core.sharing.mechanism.PrivacyCurve
    radius: Any    # core.sharing.mechanism.RadiusCurve
    m: int
    tau: float
    model_name: str
    tight: Any = None  # ε_tight estimate per k of the privacy curve (NaN: not computed)
    ternary: Any = None  # m = 3: shared policies at one state (:func:`shared_samples`)
    robust: Any = None  # the MDP side's robust cost bound at k₀ (:func:`mdp_side_bound`)


def sharing_study(mdp: MDP, setup: SharingSetup, *, students: Sequence[str] = STUDENTS,
                  seeds: int = 10, seed: int | None = None, teacher: str = "optimal",
                  temperature: float = 1.0, teacher_actions: Sequence[int] | None = None,
                  spent: tuple[float, float] = (0.0, 0.0),
                  progress: Progress = no_progress) -> SharingStudy:
    """:func:`run_sharing` plus the curves of the mechanism's panels (one worker task).

    Parameters
    ----------
    mdp, setup, students, seeds, seed, teacher, temperature, spent, progress :
        As in :func:`run_sharing`.

    Returns
    -------
    SharingStudy
    """
    res = run_sharing(mdp, setup, students=students, seeds=seeds, seed=seed, teacher=teacher,
                      temperature=temperature, teacher_actions=teacher_actions, spent=spent,
                      progress=sub_progress(progress, 0.0, 0.85))
    return sharing_study_of(mdp, res, progress)


def sharing_study_of(mdp: MDP, res: StudentCurves, progress: Progress = no_progress
                     ) -> SharingStudy:
    """The mechanism's panels around a finished run: ε/δ(k), the radii, the tight ε, the
    shared policies (m = 3) and the MDP side's cost bound at k₀ (progress 0.9 to 1).

    Parameters
    ----------
    mdp : MDP
        The environment ``res`` ran on.
    res : StudentCurves
        The run (:func:`sharing_release`).
    progress : callable
        ``progress(fraction, message)``.

    Returns
    -------
    SharingStudy
    """
    from core.sharing.mechanism import privacy_curve, radius_curve, tight_epsilon_curve

    setup, seed = res.setup, res.seed
    m, tau = res.m, res.curve_tau
    ks = curve_ks(setup.k0)
    src = seed
    progress(0.9, "epsilon and delta against k")
    priv = privacy_curve(ks, m, setup.eta, tau, setup.lb, bound=setup.bound, draws=10_000,
                         rng=src)
    progress(0.93, "the concentration radius against k")
    rad = radius_curve(ks, m, setup.eta, setup.lam, setup.beta, draws=5_000, rng=src)
    progress(0.96, "the tight epsilon of the worst neighbouring pairs")
    tight = tight_epsilon_curve(ks, m, setup.eta, setup.lb, priv.delta_upper, rng=src)
    ternary = shared_samples(mdp, res, seed=seed) if m == 3 else None
    progress(0.98, "the MDP side's cost bound at k0")
    robust = mdp_side_bound(mdp, setup.k0, beta=setup.beta, seed=seed)
    progress(1.0, "done")
    return SharingStudy(result=res, privacy=priv, radius=rad, m=m, tau=float(tau),
                        model_name=mdp.name, tight=tight, ternary=ternary, robust=robust)


def mdp_side_bound(mdp: MDP, k: float, *, beta: float = 0.05,
                   seed: int | None = None) -> dict[str, Any]:
    """The MDP side's robust cost bound at the same k, to put beside the sharing cost: the
    transitions themselves privatised with Dir_k (Algorithm 1), π̄ synthesised on them and
    v̄ − v̲ at s₀ (Theorem 1 of the CDC paper; :func:`core.mdp.private_policy.private_policy`).

    Parameters
    ----------
    mdp : MDP
        The environment.
    k : float
        The concentration (the teacher's k₀).
    beta : float
        β of the robust set.
    seed : int or None
        The privatisation's seed.

    Returns
    -------
    dict
        ``k``, ``cost_bound`` (None with ``reason`` where the MDP side refuses this model).
    """
    from core.mdp.private_policy import private_policy

    try:
        pp = private_policy(mdp, k, beta=beta, seed=seed)
    except InputError as exc:
        return {"k": float(k), "cost_bound": None, "reason": str(exc)}
    return {"k": float(k), "cost_bound": float(pp.cost_bound),
            "what": "privatising the transitions themselves at this k: the computable bound "
                    "v_upper - v_lower at s0 on the cost of privacy of the synthesised policy"}


def shared_samples(mdp: MDP, res: StudentCurves, *, n: int = 200,
                   seed: int | None = None) -> dict[str, Any] | None:
    """What the student receives at one state with three actions (the ternary scatter):
    the teacher's policy there (η-mixed) and ``n`` Dirichlet draws of it at k₀ and at the
    last k the teacher used; None when no reachable state has three actions.

    Parameters
    ----------
    mdp : MDP
        The environment.
    res : StudentCurves
        The run (its setup and ledger).
    n : int
        Draws per k.
    seed : int or None
        Seed (None: the OS's CSPRNG).

    Returns
    -------
    dict or None
        ``state``, ``actions`` (names), ``teacher`` (3,), ``k`` (two values) and
        ``points`` (two (n, 3) arrays).
    """
    counts = mdp.mask.sum(axis=1)
    reach = reachable_states(mdp)
    order = [mdp.initial_state] + [s for s in range(mdp.n_states) if s != mdp.initial_state]
    state = next((s for s in order if reach[s] and counts[s] == 3), None)
    if state is None:
        return None
    avail = np.flatnonzero(mdp.mask[state])
    # the teacher this run demonstrated (optimal, softmax or an earlier run's π̄), η-mixed
    pi = (res.teacher[state, avail] if res.teacher is not None
          else teacher_policy_in_domain(teacher_policy(mdp)[state, avail], res.setup.eta))
    live = [r.k for r in res.ledger.rows if not r.stopped]
    ks = [res.setup.k0, live[-1] if live else res.setup.k0]
    gen = (np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(99,))))
           if seed is not None else None)
    points = [dirichlet_rows(np.tile(pi, (n, 1)), float(k), gen) for k in ks]
    return {"state": mdp.state_names[state],
            "actions": [mdp.action_names[state][a] for a in avail], "teacher": pi,
            "k": ks, "points": points}


def mechanism_curves(k0: float, m: int, eta: float, lb: float, lam: float, beta: float,
                     bound: str, tau: float, seed: int | None, *,
                     progress: Progress = no_progress) -> tuple[Any, Any, Any]:
    """The ε/δ(k) and radius curves around k₀ alone (to show a recorded run again).

    Parameters
    ----------
    k0, m, eta, lb, lam, beta, bound, tau :
        The run's public parameters and the τ its curve used.
    seed : int or None
        The run's seed.
    progress : callable
        Unused (the task runner passes one).

    Returns
    -------
    (PrivacyCurve, RadiusCurve, numpy.ndarray)
        The curves and the ε_tight estimates.
    """
    from core.sharing.mechanism import privacy_curve, radius_curve, tight_epsilon_curve

    ks = curve_ks(k0)
    priv = privacy_curve(ks, m, eta, curve_tau(tau, m), lb, bound=bound, draws=10_000, rng=seed)
    return (priv, radius_curve(ks, m, eta, lam, beta, draws=5_000, rng=seed),
            tight_epsilon_curve(ks, m, eta, lb, priv.delta_upper, rng=seed))



def live_privacy(k0: float, m: int, eta: float, lb: float, bound: str, tau: float | None,
                 delta: float | None, seed: int | None = 0, *,
                 progress: Progress = no_progress) -> tuple[Any, float]:
    """The ε/δ(k) curve for parameters as they are typed (the live panel, well under 0.1 s):
    τ is the fixed one, or solved at k₀ for the target δ (10,000 draws).

    Parameters
    ----------
    k0, m, eta, lb, bound :
        The public parameters.
    tau, delta : float or None
        A fixed τ, or a target δ per query.
    seed : int or None
        Seed of the Monte Carlo draws.
    progress : callable
        Unused (the task runner passes one).

    Returns
    -------
    (PrivacyCurve, float)
        The curve and the τ it uses.
    """
    from core.sharing.mechanism import privacy_curve

    if tau is None:
        if delta is None:
            raise InputError("give a target delta or a fixed tau", field="delta")
        tau, _ = tau_for_delta(k0, m, eta, delta, draws=10_000, rng=seed)
    return (privacy_curve(curve_ks(k0), m, eta, tau, lb, bound=bound, draws=6_000, rng=seed),
            float(tau))


def live_radius(k0: float, m: int, eta: float, lam: float, beta: float, seed: int | None = 0,
                *, progress: Progress = no_progress) -> Any:
    """The radius curve for parameters as they are typed (the live panel).

    Parameters
    ----------
    k0, m, eta, lam, beta :
        The public parameters.
    seed : int or None
        Seed of the Monte Carlo draws.
    progress : callable
        Unused.

    Returns
    -------
    RadiusCurve
    """
    from core.sharing.mechanism import radius_curve

    return radius_curve(curve_ks(k0), m, eta, lam, beta, draws=3_000, rng=seed)
