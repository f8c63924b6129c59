"""The differentially private advising framework (thesis Ch. 3, Algorithms 3–5).

Size: one algorithm: Algorithms 3–5 and the engine that runs them share the epoch state and the
release logs, and the building blocks are public here so that the audit runs the shipped code;
apart, one algorithm's invariants would sit in two files.

:func:`run_advising` runs the reference algorithm of spec §3.13 on an
:class:`~core.advising.model.AdvisingSetup` and returns a frozen
:class:`AdvisingResult`. The building blocks are public so that tests, the GUI and the
privacy audit (:mod:`core.audit.advising`) run the very code that ships:
:func:`normalize_alg4` (Algorithm 4), :func:`policy_step` (Algorithm 3),
:func:`teacher_view`, :func:`squared_distance` (Eq. 3.1), :func:`advice_distribution`
(Algorithm 5 lines 20–24) and :func:`advice_query` (one advice query, lines 17–24).

One epoch, for agents j = 0..n−1 in index order (teachers read an epoch-start snapshot,
budgets change at once):

1. If the strategy advises and b_ask(j) > 0, every neighbour i with b_give(i) > 0 is a
   candidate. Its view q̂ of Q_i(s) on j's actions gets Laplace(S/ε) noise when the sets
   differ (or always, in the sound variant); the candidate with the largest squared
   distance to Q_j(s) (first wins ties) advises if that distance exceeds d: j's action is
   sampled from π′ = Normalize(p̃ + ξ(q̂ − p̃·q̂)), where p̃ is the uniform policy
   (sound) or the teacher's policy (thesis). Advice costs 1 of b_ask(j) and 1 of
   b_give(i); the teacher's own tables are never touched.
2. Otherwise j samples its action from its own π_j(s).
3. Every agent applies Q(s,a) ← (1−α)Q(s,a) + α(r + γ max Q(s′,·)) and Algorithm 3.

Privacy of one advice query (sound variant, ``dp`` strategy)
-------------------------------------------------------------
*Observer.* The student j (and anyone who reads the advice log): it sees whether advice
arrives, when, from which teacher, the advised action, and the logged q̂, d_E² and π′ of
the advising teacher.

*Public.* The set-up (agents, action sets, rewards, every parameter: ε, S, d, ξ, the
Algorithm 4 constants, the budgets, the cap), the epoch and the student's task s, the
student's own tables (the observer holds them), and everything observed before (so
remaining budgets and the teachers' release counts are functions of earlier outputs).

*Private input of teacher i.* Its tables (Q_i, π_i, N_i).

*Adjacency.* Two teachers are neighbours when their Q-tables differ in **at most one
entry** Q(s′, a′), each value within the public range [q_lo, q_hi] of
:meth:`~core.advising.model.AdvisingSetup.q_range` (so by at most
S_strict = q_hi − q_lo = r_max − r_min = 2 with the thesis rewards, Q₀ = 0, γ = 0) — one
differing record, as in the thesis's Tables 3.1–3.4; their policies π and visit counts N
may differ **arbitrarily** (they come from the same private experience).

*Mechanism.* The candidate set C is a function of public data (neighbour structure,
budgets, cap). Each i ∈ C releases q̂_i = v_i + L_i, v_i = TEACHER_VIEW(Q_i(s,·)) ∈ ℝ^k,
L_i ~ Laplace(S_noise/ε)^k. The output is g(q̂_C, public, U): the argmax of
‖q̂_i − Q_j(s)‖², the threshold test, π′ from q̂_b and the uniform policy (or, with
``advice_prior="student"``, the student's own π_j(s)), and the action drawn with an
independent uniform U.

*Claim.* For each teacher i, one advice query is ε·S_strict/S_noise-DP (= ε in the sound
variant, where S_noise = S_strict), δ = 0. *Proof.* TEACHER_VIEW reads each teacher
entry at most once (the position map is injective; positions the teacher lacks read the
public Q₀), so neighbouring teachers give views with ‖v_i − v′_i‖₁ ≤ S_strict; the
Laplace mechanism of scale S_noise/ε on a query of L1-sensitivity S_strict is
ε·S_strict/S_noise-DP (Dwork & Roth 2014, Thm 3.6). The other candidates' q̂ do not
depend on teacher i's tables, and g reads no private datum of i besides q̂_i (neither
π_i nor N_i), so the output is a randomised post-processing of q̂_i (Prop. 2.1). A
teacher not in C contributes nothing (ε = 0 for that query). ∎ The bound covers the
whole logged q̂_i, not only the action. Under a **row** adjacency (all of Q_i(s,·) may
change) the same query is k·ε-DP (group privacy, k = the student's action count); a
teacher's queries compose over the run (:mod:`core.advising.accounting`: basic, advanced,
RDP), which holds if the neighbouring teachers' tables differ in that one entry at every
query. No bound here covers the teacher's underlying *experience* (one changed
experience moves later Q-values through learning).

*What has no finite ε* (recorded as unbounded ledger entries, ``math.inf`` with a
reason, and ``epsilon_spent`` becomes unbounded): a raw Q-view (identical sets in the
thesis variant, traditional advising, the ``noise_zero`` test flag); advice drawn from
the teacher's raw policy (``advice_prior="teacher"``: the thesis variant, traditional
advising) — π_i may differ arbitrarily between neighbours; and the ``direction_guard``,
which compares raw visit counts (every comparison, in every variant).

*Numerics.* Seeded runs draw numpy floating-point Laplace noise (reproducible; not for
real releases); release mode draws it from OpenDP (:mod:`core.privacy.laplace`).

RNG discipline (spec §3.13), with one ``numpy.random.Generator`` per run: per epoch,
``integers(0, n_tasks, size=n_agents)`` for the tasks, then per agent in index order the
Laplace draws of its candidates (in index order, ``len(A_j)`` each; the noise goes
through :func:`core.privacy.laplace.laplace_release` with that same Generator), then one
uniform double for the advised action or for its own action (exactly the one double that
``Generator.choice(n, p=...)`` consumes). The same seed therefore gives bit-identical
runs, identical set-ups on identical strategies consume identical streams, and a run
with no possible advice consumes no noise. (The tasks of epoch e+1 are drawn at the end
of epoch e — the same sequence — so that γ > 0 can bootstrap from the agent's next task.)

Release mode (``rng=None``): the Laplace noise comes from OpenDP; task allocation and
action sampling (the advised action included) draw from the OS's CSPRNG
(:class:`core.common.secure.SecureRandom`).

Examples
--------
>>> from core.advising.presets import preset
>>> res = run_advising(preset("table35", epochs=60), rng=1)
>>> res.convergence.shape, res.mode, res.advice_total > 0
((60,), 'experiment', True)
>>> bool(np.array_equal(res.convergence, run_advising(preset("table35", epochs=60),
...                                                    rng=1).convergence))
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.advising.accounting import ADJACENCY, DEFAULT_DELTA, AdvisingAccounting, account_advising
from core.advising.model import AdvisingSetup, teacher_view_map
from core.common.errors import InputError
from core.common.progress import Progress, no_progress
from core.common.secure import SecureRandom
from core.common.validation import RandomSource, as_random_source
from core.privacy.laplace import laplace_release
from core.privacy.ledger import PrivacyLedger

__all__ = [
    "normalize_alg4",
    "q_update",
    "policy_step",
    "teacher_view",
    "squared_distance",
    "advice_distribution",
    "sample_index",
    "sample_rows",
    "noised_pairs",
    "max_releases",
    "AdviceDraw",
    "advice_query",
    "RELEASE_KINDS",
    "UNBOUNDED_REASONS",
    "ADJACENCY",
    "AdviceLog",
    "ReleaseLog",
    "AdvisingResult",
    "run_advising",
    "SENSITIVITY_NOTE",
]

SENSITIVITY_NOTE = (
    "Sensitivity: the thesis fixes S = 1 because 'the maximum value of a percentage is 1', "
    "but the noise is added to Q-values, which range over [r_min, r_max] (Q0 = 0, rewards "
    "2/0): one differing Q-record moves one coordinate by up to r_max - r_min = 2. "
    "Laplace(1/epsilon) noise is therefore only 2*epsilon-DP per release. The sound "
    "default calibrates the noise to the strict S = r_max - r_min, so the stated epsilon "
    "holds; the thesis option keeps S = 1 and the ledger records the true 2*epsilon.")

#: What a teacher can release in one advice query, in the order of the log's ``kind`` codes.
RELEASE_KINDS = ("noisy_q", "raw_q", "raw_policy", "raw_visits")
#: Why each raw kind has no finite ε.
UNBOUNDED_REASONS = {
    "raw_q": "raw Q-values left without noise (identical action sets in the thesis "
             "variant, traditional advising, or the noise_zero test flag): whether and "
             "what advice arrives is a deterministic function of them",
    "raw_policy": "the advice was drawn from the teacher's raw policy (thesis advice "
                  "distribution / traditional advising): the policy may differ "
                  "arbitrarily between neighbouring teachers",
    "raw_visits": "the direction guard compared the teacher's raw visit count with the "
                  "student's: it decides who may advise",
}


# ---------------------------------------------------------------------------- steps
def normalize_alg4(p: "np.ndarray | Sequence[float]", *, center: float = 0.5,
                   floor: float = 0.001) -> np.ndarray:
    """Algorithm 4: lift the minimum to Δ by an affine map toward c_o, then sum-normalise.

    Works on one vector or on every row (last axis) of an array.

    Parameters
    ----------
    p : array_like
        A vector, or rows of vectors.
    center : float
        c_o of Algorithm 4.
    floor : float
        Δ, the smallest probability kept.

    Returns
    -------
    numpy.ndarray
        Probability vectors (each sums to 1, entries >= Δ/Σ).

    Examples
    --------
    >>> normalize_alg4([0.7, 0.4, -0.1, 0.0]).round(10).tolist()
    [0.5703281027, 0.3567760342, 0.0008559201, 0.0720399429]
    >>> normalize_alg4([0.6, 0.2, 0.2, 0.2]).round(10).tolist()
    [0.5, 0.1666666667, 0.1666666667, 0.1666666667]
    >>> normalize_alg4([[0.6, 0.2, 0.2, 0.2], [0.7, 0.4, -0.1, 0.0]])[1].round(4).tolist()
    [0.5703, 0.3568, 0.0009, 0.072]
    """
    x = np.array(p, dtype=np.float64)
    d = x.min(axis=-1, keepdims=True)
    low = d < floor
    if low.any():
        rho = (center - floor) / np.where(low, center - d, 1.0)
        x = np.where(low, center - rho * (center - x), x)
    result: np.ndarray = x / x.sum(axis=-1, keepdims=True)
    return result


def _normalize_rows(p: np.ndarray, mask: np.ndarray, center: float, floor: float) -> np.ndarray:
    """Algorithm 4 on every row of ``p`` over its ``mask``ed entries (others stay 0)."""
    d = np.where(mask, p, np.inf).min(axis=1)
    low = d < floor
    if low.any():
        rho = (center - floor) / (center - d[low])
        p[low] = np.where(mask[low], center - rho[:, None] * (center - p[low]), 0.0)
    p /= p.sum(axis=1)[:, None]
    return p


def q_update(q: float, reward: float, *, alpha: float, gamma: float = 0.0,
             next_max: float = 0.0) -> float:
    """Q(s,a) ← (1−α)Q(s,a) + α[r + γ max Q(s′,·)] (Lemma 3.1 closed form when γ = 0).

    Parameters
    ----------
    q : float
        Q(s, a).
    reward : float
        r.
    alpha : float
        The learning rate α.
    gamma : float
        The discount γ.
    next_max : float
        max Q(s′, ·).

    Returns
    -------
    float

    Examples
    --------
    >>> q = 0.0
    >>> for _ in range(10):
    ...     q = q_update(q, 2.0, alpha=0.1)
    >>> round(q, 10)
    1.3026431198
    """
    target = reward if gamma == 0.0 else reward + gamma * next_max
    return (1.0 - alpha) * q + alpha * target


def policy_step(q: "np.ndarray | Sequence[float]", pi: "np.ndarray | Sequence[float]",
                action: int, reward: float, *, alpha: float = 0.5, xi: float = 0.1,
                center: float = 0.5, floor: float = 0.001) -> tuple[np.ndarray, np.ndarray]:
    """One step of Algorithm 3 (γ = 0): update Q(s, action), then π(s); returns copies.

    Parameters
    ----------
    q, pi : array_like
        Q(s, ·) and π(s, ·).
    action : int
        The index taken.
    reward : float
        Its reward.
    alpha : float
        The learning rate.
    xi : float
        The policy step ξ.
    center : float
        c_o of Algorithm 4.
    floor : float
        Δ, the smallest probability kept.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The new Q(s, ·) and π(s, ·).

    Examples
    --------
    >>> q, pi = policy_step([0, 0, 0, 0], [0.25] * 4, 0, 2.0)
    >>> q.tolist(), pi.round(10).tolist()
    ([1.0, 0.0, 0.0, 0.0], [0.325, 0.225, 0.225, 0.225])
    """
    qn = np.array(q, dtype=np.float64)
    p = np.array(pi, dtype=np.float64)
    qn[action] = q_update(float(qn[action]), reward, alpha=alpha)
    rbar = float((p * qn).sum())
    return qn, normalize_alg4(p + xi * (qn - rbar), center=center, floor=floor)


def teacher_view(q_teacher: "np.ndarray | Sequence[float]",
                 pi_teacher: "np.ndarray | Sequence[float]", teacher_actions: Sequence[int],
                 student_actions: Sequence[int], *, q0: float = 0.0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """TEACHER_VIEW (spec §3.13): the teacher's (Q, π) at one task, on the student's actions.

    Parameters
    ----------
    q_teacher, pi_teacher : array_like
        The teacher's Q and π at the task, in its own action order.
    teacher_actions, student_actions : sequence of int
        The servers of each action set.
    q0 : float
        Q₀, read where the teacher lacks the student's action.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Q and π in the student's action order.

    Examples
    --------
    >>> q, p = teacher_view([2, 0, 0, 0.4], [0.7, 0.1, 0.1, 0.1], [0, 1, 2, 3], [0, 1, 2, 4])
    >>> q.tolist(), p.tolist()      # case 4: D is read in E's place
    ([2.0, 0.0, 0.0, 0.4], [0.7, 0.1, 0.1, 0.1])
    >>> teacher_view([2, 0, 0], [0.8, 0.1, 0.1], [0, 1, 2], [0, 1, 2, 4])[0].tolist()
    [2.0, 0.0, 0.0, 0.0]
    """
    qt = np.asarray(q_teacher, dtype=np.float64)
    pt = np.asarray(pi_teacher, dtype=np.float64)
    src = teacher_view_map(teacher_actions, student_actions)
    q = np.array([q0 if k is None else qt[k] for k in src], dtype=np.float64)
    p = np.array([0.0 if k is None else pt[k] for k in src], dtype=np.float64)
    return q, p


def squared_distance(x: "np.ndarray | Sequence[float]", y: "np.ndarray | Sequence[float]"
                     ) -> float:
    """Eq. 3.1: d_E²(x, y) = Σ (x_i − y_i)² — squared, no square root.

    Parameters
    ----------
    x, y : array_like
        Two vectors of one length.

    Returns
    -------
    float

    Examples
    --------
    >>> round(squared_distance([2.1, -0.2, 0.05, 0.7], [1.5, 0, 0, 0]), 10)
    0.8925
    """
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    return float((d * d).sum())


def advice_distribution(p_view: "np.ndarray | Sequence[float]",
                        q_view: "np.ndarray | Sequence[float]", *, xi: float = 0.1,
                        subtract_rbar: bool = True, center: float = 0.5,
                        floor: float = 0.001) -> np.ndarray:
    """π′ of Algorithm 5 lines 20–24 with the spec's fixes A3/A4 (one vector or rows).

    p̃ = p̂ / Σ p̂ (uniform if Σ p̂ = 0), r̃ = p̃·q̂ (0 with ``subtract_rbar=False``, the
    literal line 22), π′ = Normalize_Alg4(p̃ + ξ(q̂ − r̃)). p̂ is the prior the variant
    chooses (:func:`advice_query`); in the thesis it is the teacher's policy.

    Parameters
    ----------
    p_view : array_like
        The prior p̂ (one vector or rows).
    q_view : array_like
        The (noisy) Q-view q̂.
    xi : float
        The policy step ξ.
    subtract_rbar : bool
        Subtract r̃ (the fix) or not (the listing).
    center : float
        c_o of Algorithm 4.
    floor : float
        Δ, the smallest probability kept.

    Returns
    -------
    numpy.ndarray
        π′.

    Examples
    --------
    >>> q = [2.1, -0.2, 0.05, 0.7]
    >>> advice_distribution([0.7, 0.1, 0.1, 0.1], q).round(10).tolist()
    [0.8752703943, 0.001208201, 0.0275353755, 0.0959860292]
    >>> advice_distribution([0.7, 0.1, 0.1, 0.1], q, subtract_rbar=False).round(10).tolist()
    [0.7193675889, 0.0632411067, 0.0830039526, 0.1343873518]
    """
    p = np.asarray(p_view, dtype=np.float64)
    q = np.asarray(q_view, dtype=np.float64)
    p, q = np.broadcast_arrays(p, q)
    tot = p.sum(axis=-1, keepdims=True)
    pt = np.where(tot > 0, p / np.where(tot > 0, tot, 1.0), 1.0 / p.shape[-1])
    rt = (pt * q).sum(axis=-1, keepdims=True) if subtract_rbar else 0.0
    return normalize_alg4(pt + xi * (q - rt), center=center, floor=floor)


def sample_index(p: "np.ndarray | Sequence[float]", u: float) -> int:
    """The index ``Generator.choice(len(p), p=p)`` returns when its uniform draw is ``u``.

    Parameters
    ----------
    p : array_like
        Probabilities.
    u : float
        A uniform draw in [0, 1).

    Returns
    -------
    int

    Examples
    --------
    >>> sample_index([0.2, 0.5, 0.3], 0.1), sample_index([0.2, 0.5, 0.3], 0.6)
    (0, 1)
    """
    cdf = np.cumsum(np.asarray(p, dtype=np.float64))
    cdf /= cdf[-1]
    return int(cdf.searchsorted(u, side="right"))


def sample_rows(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`sample_index` on every row of ``p`` with the uniforms ``u`` (one per row).

    Parameters
    ----------
    p : numpy.ndarray
        Rows of probabilities.
    u : numpy.ndarray
        One uniform draw per row.

    Returns
    -------
    numpy.ndarray
        One index per row.

    Examples
    --------
    >>> sample_rows(np.array([[0.2, 0.5, 0.3], [0.2, 0.5, 0.3]]), np.array([0.1, 0.6])).tolist()
    [0, 1]
    """
    cdf = np.cumsum(np.asarray(p, dtype=np.float64), axis=-1)
    cdf /= cdf[..., -1:]
    result: np.ndarray = (cdf <= np.asarray(u, dtype=np.float64)[..., None]).sum(axis=-1)
    return result


def max_releases(setup: AdvisingSetup) -> list[int]:
    """Per teacher, the most noisy releases a run could make — public: epochs × the number
    of students that may ask it (each asks each candidate at most once per epoch), or what
    its cap ``max_epsilon_per_teacher`` allows.

    Parameters
    ----------
    setup : AdvisingSetup
        The set-up (agents, action sets, epochs, cap).

    Returns
    -------
    list of int
        One count per agent.

    Examples
    --------
    >>> from core.advising.presets import preset
    >>> max_releases(preset("mixed", epochs=10))[:2], max_releases(preset("mixed", epochs=10,
    ...     max_epsilon_per_teacher=5.0))[:2]
    ([90, 90], [5, 5])
    """
    p = setup.params
    students = setup.can_advise(p.strategy).sum(axis=1)  # [teacher]
    out = [int(p.epochs * k) for k in students]
    if p.max_epsilon_per_teacher is not None:
        per = setup.true_epsilon_per_release
        cap = int(math.floor(p.max_epsilon_per_teacher * (1 + 1e-12) / per))
        out = [min(k, cap) for k in out]
    return out


def noised_pairs(setup: AdvisingSetup) -> np.ndarray:
    """(n, n) bool at [student, teacher]: does that teacher's Q-view get Laplace noise?

    Only under ``dp``, between neighbours, and for identical sets (case 1) only with
    ``noise_on_identical_sets`` (the sound variant).

    Parameters
    ----------
    setup : AdvisingSetup
        The set-up.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from core.advising.presets import preset
    >>> int(noised_pairs(preset("mixed")).sum()), int(noised_pairs(preset("mixed",
    ...     variant="thesis")).sum())
    (90, 78)
    """
    p = setup.params
    if p.strategy != "dp":
        return np.zeros((setup.n_agents,) * 2, dtype=bool)
    cases = setup.neighbour_cases()
    allowed = setup.can_advise(p.strategy).T
    result: np.ndarray = allowed & ((cases.T != 1) | p.noise_on_identical_sets)
    return result


@dataclass(frozen=True, eq=False)
class AdviceDraw:
    """The outcome of B independent advice queries (:func:`advice_query`).

    ``teacher`` is the index of the advising candidate (−1: no advice), ``action`` the
    advised position in the student's action set (−1: no advice), ``distance`` the best
    candidate's d_E², ``q_hat`` (B, c, k) every candidate's (noisy) view and ``pi_advice``
    (B, k) the π′ the action was drawn from (NaN rows without advice).
    """

    teacher: np.ndarray
    action: np.ndarray
    distance: np.ndarray
    q_hat: np.ndarray
    pi_advice: np.ndarray

    @property
    def advised(self) -> np.ndarray:
        return self.action >= 0


def advice_query(q_views: np.ndarray, p_views: np.ndarray | None, q_student: np.ndarray,
                 p_student: np.ndarray, noised: np.ndarray, *, params: Any,
                 sensitivity: float, noise_rng: Any, rng: Any) -> AdviceDraw:
    """Algorithm 5 lines 17–24 for one student and its candidates, B times independently.

    Parameters
    ----------
    q_views, p_views : (B, c, k) arrays
        TEACHER_VIEW of each candidate's Q(s,·) and π(s,·) on the student's k actions
        (``p_views`` is read only with ``params.advice_prior == "teacher"`` or the
        ``traditional`` strategy, the non-private baseline).
    q_student, p_student : (B, k) arrays
        The student's own Q_j(s,·) and π_j(s,·).
    noised : (c,) bool
        Which candidates' views get Laplace(sensitivity/ε) noise.
    params : AdvisingParams
        ε, d, ξ, the Algorithm 4 constants, ``subtract_rbar``, ``advice_prior``,
        ``strategy``, ``noise_zero``.
    noise_rng, rng
        The noise source (:func:`core.privacy.laplace.laplace_release`'s ``rng``) and
        the generator of the advised action's uniform; the run uses one stream for both.

    The engine calls this with B = 1 for every advice query; the privacy audit
    (:mod:`core.audit.advising`) calls it with B = n to sample what the student observes.
    RNG order: the Laplace draws of the noised candidates (all B rows, C order), then one
    uniform per row that receives advice.

    Examples
    --------
    >>> from core.advising.model import AdvisingParams
    >>> prm = AdvisingParams.for_variant("sound", epsilon=1e9)
    >>> d = advice_query(np.array([[[2.0, 0, 0, 0]]]), None, np.zeros((1, 4)),
    ...                  np.full((1, 4), 0.25), np.array([True]), params=prm,
    ...                  sensitivity=2.0, noise_rng=np.random.default_rng(0),
    ...                  rng=np.random.default_rng(1))
    >>> d.teacher.tolist(), round(float(d.distance[0]), 6), d.advised.tolist()
    ([0], 4.0, [True])
    """
    q = np.array(q_views, dtype=np.float64)
    B, c, k = q.shape
    noised = np.asarray(noised, dtype=bool)
    if noised.any():
        idx = np.flatnonzero(noised)
        released = laplace_release(q[:, idx], epsilon=params.epsilon, sensitivity=sensitivity,
                                   rng=noise_rng)
        if not params.noise_zero:
            q[:, idx] = released
    qs = np.asarray(q_student, dtype=np.float64)
    diff = q - qs[:, None, :]
    dist = (diff * diff).sum(axis=2)
    best = dist.argmax(axis=1)  # strict >: the first of equal distances wins
    rows = np.arange(B)
    db = dist[rows, best]
    adv = db > params.distance_threshold
    teacher = np.where(adv, best, -1)
    action = np.full(B, -1, dtype=np.int64)
    pi = np.full((B, k), np.nan)
    if adv.any():
        if params.advice_prior == "teacher" or params.strategy == "traditional":
            prior = np.asarray(p_views, dtype=np.float64)[rows[adv], best[adv]]
        elif params.advice_prior == "student":
            prior = np.asarray(p_student, dtype=np.float64)[adv]
        else:
            prior = np.full((int(adv.sum()), k), 1.0 / k)
        pi[adv] = advice_distribution(prior, q[rows[adv], best[adv]], xi=params.xi,
                                      subtract_rbar=params.subtract_rbar,
                                      center=params.norm_center, floor=params.norm_floor)
        action[adv] = sample_rows(pi[adv], rng.random(int(adv.sum())))
    return AdviceDraw(teacher=teacher, action=action, distance=db, q_hat=q, pi_advice=pi)


# ---------------------------------------------------------------------------- logs
def _frozen(a: Any, dtype: Any) -> np.ndarray:
    arr = np.array(a, dtype=dtype, copy=True)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class AdviceLog:
    """Every successful advice: who advised whom, when, why and what was chosen.

    ``epoch`` is 1-based; ``action`` is a server index; ``q_hat`` and ``pi_advice`` are
    the (noisy) teacher view and π′ on the student's actions, NaN-padded to the widest set.
    """

    epoch: np.ndarray
    student: np.ndarray
    teacher: np.ndarray
    task: np.ndarray
    case: np.ndarray
    distance: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    q_hat: np.ndarray
    pi_advice: np.ndarray

    def __post_init__(self) -> None:
        for name, dt in (("epoch", np.int64), ("student", np.int64), ("teacher", np.int64),
                         ("task", np.int64), ("case", np.int64), ("distance", np.float64),
                         ("action", np.int64), ("reward", np.float64), ("q_hat", np.float64),
                         ("pi_advice", np.float64)):
            object.__setattr__(self, name, _frozen(getattr(self, name), dt))

    def __len__(self) -> int:
        return int(self.epoch.size)

    def rows(self, setup: AdvisingSetup) -> list[dict[str, Any]]:
        """One dict per advice with names instead of indices (the CLI/GUI log)."""
        out = []
        for e in range(len(self)):
            j = int(self.student[e])
            kj = len(setup.action_sets[j])
            out.append({
                "epoch": int(self.epoch[e]), "student": setup.agents[j],
                "teacher": setup.agents[int(self.teacher[e])],
                "task": setup.tasks[int(self.task[e])], "case": int(self.case[e]),
                "distance": float(self.distance[e]),
                "action": setup.servers[int(self.action[e])], "reward": float(self.reward[e]),
                "q_hat": self.q_hat[e, :kj].tolist(), "pi_advice": self.pi_advice[e, :kj].tolist(),
            })
        return out


@dataclass(frozen=True, eq=False)
class ReleaseLog:
    """Every release of a teacher's data to a student; epoch 1-based.

    ``kind`` indexes :data:`RELEASE_KINDS`: 0 a noisy Q-view (finite ε), 1 a raw Q-view,
    2 the teacher's raw policy (advice from it), 3 its raw visit count (direction guard);
    1–3 have no finite ε.
    """

    epoch: np.ndarray
    teacher: np.ndarray
    student: np.ndarray
    task: np.ndarray
    case: np.ndarray
    kind: np.ndarray

    def __post_init__(self) -> None:
        for name in ("epoch", "teacher", "student", "task", "case", "kind"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.int64))

    @property
    def noised(self) -> np.ndarray:
        """True for the noisy (finite-ε) Q-view releases."""
        result: np.ndarray = self.kind == 0
        return result

    def __len__(self) -> int:
        return int(self.epoch.size)


# ---------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class AdvisingResult:
    """Everything one advising run produced. Arrays are read-only; epochs are rows.

    Attributes
    ----------
    convergence : (E,) array
        Convergence ratio after each epoch: mean over agents and tasks of
        Σ_a π_j(s,a) R(s,a) / max_{a∈A_j} R(s,a) (spec §5.3 [R]).
    convergence_per_agent : (E, n) array
    advice_per_epoch : (E,) int array
    ask_budget, give_budget : (E, n) int arrays
        Remaining b_ask / b_give after each epoch.
    releases_per_epoch, unprotected_per_epoch : (E, n) int arrays
        Noisy (finite-ε) releases of each agent's Q-values as a teacher, and its
        unbounded releases (raw Q-values, raw policy, raw visit counts).
    tasks, actions : (E, n) int arrays
        Task and chosen server of each agent in each epoch; ``advised`` marks advice.
    events : AdviceLog
    releases : ReleaseLog or None
        Per-release log (``detail=True`` only).
    accounting : AdvisingAccounting
        Per-teacher totals under basic, advanced and RDP composition.
    notes : tuple of str
        What the reader must know (sensitivity, unprotected releases, randomness mode).
    """

    setup: AdvisingSetup
    mode: str
    seed: int | None
    convergence: np.ndarray
    convergence_per_agent: np.ndarray
    initial_convergence: float
    advice_per_epoch: np.ndarray
    ask_budget: np.ndarray
    give_budget: np.ndarray
    releases_per_epoch: np.ndarray
    unprotected_per_epoch: np.ndarray
    tasks: np.ndarray
    actions: np.ndarray
    advised: np.ndarray
    events: AdviceLog
    releases: ReleaseLog | None
    q_final: np.ndarray
    pi_final: np.ndarray
    visits: np.ndarray
    accounting: AdvisingAccounting
    advising_closed_epoch: int | None
    elapsed_s: float = 0.0
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("convergence", "convergence_per_agent", "q_final", "pi_final"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.float64))
        for name in ("advice_per_epoch", "ask_budget", "give_budget", "releases_per_epoch",
                     "unprotected_per_epoch", "tasks", "actions", "visits"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.int64))
        object.__setattr__(self, "advised", _frozen(self.advised, bool))

    # -------------------------------------------------------------- summaries
    @property
    def strategy(self) -> str:
        return self.setup.params.strategy

    @property
    def epochs(self) -> int:
        return int(self.convergence.size)

    @property
    def advice_total(self) -> int:
        return int(self.advice_per_epoch.sum())

    def auc(self, horizon: int = 200) -> float:
        """Mean convergence ratio over epochs 1..``horizon`` (AUC_T of spec §5.3)."""
        return float(self.convergence[:max(1, horizon)].mean())

    def cr_at(self, epoch: int) -> float:
        """Convergence ratio after ``epoch`` (1-based; 0 = before learning)."""
        return self.initial_convergence if epoch == 0 else float(self.convergence[epoch - 1])

    def epochs_to(self, level: float = 0.9) -> int | None:
        """First epoch with convergence ratio ≥ ``level`` (None if never)."""
        hit = np.flatnonzero(self.convergence >= level)
        return int(hit[0]) + 1 if hit.size else None

    @property
    def last_advice_epoch(self) -> int | None:
        hit = np.flatnonzero(self.advice_per_epoch)
        return int(hit[-1]) + 1 if hit.size else None

    @property
    def epsilon_spent(self) -> np.ndarray:
        """Per-agent cumulative true ε, basic composition (see :attr:`accounting`).

        ``inf`` for an agent that made an unbounded release (:attr:`epsilon_spent_reasons`
        says why); never 0 for an agent whose raw data left.
        """
        return self.accounting.totals("basic")

    @property
    def epsilon_spent_reasons(self) -> list[str | None]:
        """Per agent: why :attr:`epsilon_spent` is unbounded, or None."""
        return self.accounting.reasons()

    def epsilon_over_time(self) -> np.ndarray:
        """(E, n) cumulative true ε per agent (basic composition) after each epoch.

        ``inf`` from the epoch of an agent's first unbounded release on.
        """
        eps = np.cumsum(self.releases_per_epoch, axis=0) * self.accounting.epsilon_per_release
        return np.where(np.cumsum(self.unprotected_per_epoch, axis=0) > 0, np.inf, eps)

    def ledger(self, ledger: PrivacyLedger | None = None, *,
               dataset_prefix: str | None = None) -> PrivacyLedger:
        """Record every release in ``ledger`` (a new one by default), per teacher.

        A noisy Q-view: one entry each, mechanism ``laplace``, the release's true ε
        (ε·S_strict/S), the noise sensitivity, the strict sensitivity, the nominal ε and
        the scale. Raw releases (Q-values, the policy the advice was drawn from, visit
        counts compared by the direction guard): one entry per teacher and kind with
        ``count`` = how many, ``epsilon = math.inf`` and the reason (JSON ``null`` +
        ``epsilon_reason``). Dataset ``advising:<set-up>:<agent>``; the adjacency is
        :data:`~core.advising.accounting.ADJACENCY`.
        """
        if self.releases is None:
            raise InputError("this run kept no per-release log (run with detail=True)",
                             field="detail")
        led = ledger if ledger is not None else PrivacyLedger()
        s = self.setup
        prefix = dataset_prefix if dataset_prefix is not None else f"advising:{s.name}"
        acc = self.accounting
        scale = acc.noise_sensitivity / acc.epsilon
        mech = {1: "none (raw Q-values)", 2: "none (raw policy)", 3: "none (raw visit count)"}
        what = {1: "raw Q(s, .) views", 2: "advice drawn from the raw policy pi(s, .)",
                3: "raw visit counts compared by the direction guard"}
        rl = self.releases
        for k in np.flatnonzero(rl.kind == 0):
            i, j = int(rl.teacher[k]), int(rl.student[k])
            t, e = int(rl.task[k]), int(rl.epoch[k])
            led.record(dataset=f"{prefix}:{s.agents[i]}", mechanism="laplace",
                       epsilon=acc.epsilon_per_release,
                       parameters={"sensitivity": acc.noise_sensitivity,
                                   "strict_sensitivity": acc.strict_sensitivity,
                                   "nominal_epsilon": acc.epsilon, "scale": scale,
                                   "case": int(rl.case[k]), "epoch": e,
                                   "values": len(s.action_sets[j])},
                       adjacency=ADJACENCY,
                       released=f"noisy Q({s.tasks[t]}, .) of {s.agents[i]} to "
                                f"{s.agents[j]}, epoch {e}",
                       mode=self.mode, seed=self.seed, source="advising")
        # Raw releases: one entry per (teacher, kind) standing for all of them (``count``;
        # the totals weigh it exactly as that many entries), each unbounded with its reason.
        for i in range(s.n_agents):
            for kind in (1, 2, 3):
                sel = np.flatnonzero((rl.teacher == i) & (rl.kind == kind))
                if sel.size == 0:
                    continue
                studs = sorted({s.agents[int(j)] for j in rl.student[sel]})
                e0, e1 = int(rl.epoch[sel].min()), int(rl.epoch[sel].max())
                led.record(dataset=f"{prefix}:{s.agents[i]}", mechanism=mech[kind],
                           epsilon=math.inf, reason=UNBOUNDED_REASONS[RELEASE_KINDS[kind]],
                           parameters={"kind": RELEASE_KINDS[kind], "first_epoch": e0,
                                       "last_epoch": e1,
                                       "cases": sorted({int(c) for c in rl.case[sel]})},
                           adjacency=ADJACENCY, count=int(sel.size),
                           released=f"{what[kind]} of {s.agents[i]} to "
                                    f"{', '.join(studs)} ({sel.size} times, epochs {e0}-{e1})",
                           mode=self.mode, seed=self.seed, source="advising")
        return led

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        """The ``advise --json`` object."""
        s = self.setup
        acc = self.accounting
        out: dict[str, Any] = {
            "preset": s.name, "strategy": self.strategy, "variant": s.params.variant,
            "mode": self.mode, "seed": self.seed, "epochs": self.epochs,
            "agents": list(s.agents), "params": s.params.to_dict(),
            "noise_sensitivity": s.noise_sensitivity,
            "strict_sensitivity": s.strict_sensitivity,
            "convergence": self.convergence.tolist(),
            "initial_convergence": self.initial_convergence,
            "auc200": self.auc(200), "epochs_to_90": self.epochs_to(0.9),
            "advice_total": self.advice_total,
            "advice_per_epoch": self.advice_per_epoch.tolist(),
            "advising_closed_epoch": self.advising_closed_epoch,
            "last_advice_epoch": self.last_advice_epoch,
            "epsilon_spent": [x if math.isfinite(x) else None
                              for x in self.epsilon_spent.tolist()],
            "epsilon_spent_accountant": "basic composition, true epsilon per release",
            "epsilon_per_advice": (acc.epsilon_per_release if s.params.strategy == "dp"
                                   and acc.bounded else None),
            "adjacency": ADJACENCY,
            "epsilon_spent_nominal": acc.totals("nominal").tolist(),
            "epsilon_spent_nominal_note": "the thesis's own figure; not a bound",
            "releases": [a.releases for a in acc.agents],
            "unprotected_releases": [a.unprotected_releases for a in acc.agents],
            "unbounded_releases": [dict(a.unbounded) for a in acc.agents],
            "composition": acc.to_dict(),
            "ask_budget_final": self.ask_budget[-1].tolist(),
            "give_budget_final": self.give_budget[-1].tolist(),
            "notes": list(self.notes), "elapsed_s": self.elapsed_s,
        }
        if any(self.epsilon_spent_reasons):
            out["epsilon_spent_reason"] = self.epsilon_spent_reasons
        if out["epsilon_per_advice"] is None:
            out["epsilon_per_advice_reason"] = (
                "no advising strategy ran" if s.params.strategy == "none" else
                "raw data left: " + "; ".join(sorted({
                    UNBOUNDED_REASONS[k] for k in acc.unbounded_by_kind()}))
                if not acc.bounded else "traditional advising releases raw Q-values")
        if events:
            out["advice_events"] = self.events.rows(s)
        else:
            out["advice_events"] = self.advice_total
        return out


# ---------------------------------------------------------------------------- engine
class _Engine:
    """Mutable state of one run; :func:`run_advising` is the public entry point."""

    def __init__(self, setup: AdvisingSetup, src: RandomSource, detail: bool) -> None:
        p = setup.params
        self.setup, self.p, self.detail = setup, p, detail
        n, T = setup.n_agents, setup.n_tasks
        sizes = np.array([len(a) for a in setup.action_sets])
        K = int(sizes.max())
        self.n, self.T, self.K, self.sizes = n, T, K, sizes
        self.mask = np.arange(K)[None, :] < sizes[:, None]
        acts = np.full((n, K), -1, dtype=np.int64)
        for j, a in enumerate(setup.action_sets):
            acts[j, :len(a)] = a
        self.acts = acts
        r = setup.rewards
        self.R_view = np.where(self.mask[:, None, :], r[:, np.maximum(acts, 0)].transpose(1, 0, 2),
                               0.0)
        self.R_best = np.where(self.mask[:, None, :], self.R_view, -np.inf).max(axis=2)
        # Q and π carry one extra column: Q0 / probability 0 for actions a teacher lacks.
        self.Q = np.zeros((n, T, K + 1))
        self.Q[:, :, :K] = np.where(self.mask[:, None, :], p.q0, 0.0)
        self.Q[:, :, K] = p.q0
        self.Pi = np.zeros((n, T, K + 1))
        self.Pi[:, :, :K] = np.where(self.mask, 1.0 / sizes[:, None], 0.0)[:, None, :]
        self.N = np.zeros((n, T), dtype=np.int64)
        self.Qf = self.Q.reshape(n * T, K + 1)  # flat views (no copies)
        self.Pif = self.Pi.reshape(n * T, K + 1)
        self.Nf = self.N.reshape(n * T)
        self.Rf = self.R_view.reshape(n * T, K)
        self.b_ask = np.full(n, p.ask_budget, dtype=np.int64)
        self.b_give = np.full(n, p.give_budget, dtype=np.int64)
        # Who may advise whom: cases[i, j] for teacher i, student j.
        self.cases = setup.neighbour_cases()
        allowed = setup.can_advise(p.strategy)  # [i, j]
        self.allowed = allowed.T.copy()  # [student, teacher]
        self.nb_lists = [np.flatnonzero(self.allowed[j]) for j in range(n)]
        self.noised = noised_pairs(setup)  # [student, teacher]
        self.src = np.full((n, n, K), K, dtype=np.int64)  # [student, teacher, position]
        for j in range(n):
            for i in self.nb_lists[j]:
                m = teacher_view_map(setup.action_sets[i], setup.action_sets[j])
                self.src[j, i, :len(m)] = [K if k is None else k for k in m]
        self.S_noise = setup.noise_sensitivity
        self.eps = p.epsilon
        self.eps_true = setup.true_epsilon_per_release
        self.spent = np.zeros(n)
        self.cap = p.max_epsilon_per_teacher
        # Which (student, teacher) queries release nothing unbounded; under a cap only
        # those may happen (an unbounded release passes every cap).
        raw_prior = p.strategy == "traditional" or p.advice_prior == "teacher"
        self.bounded = (self.noised & (not p.noise_zero) & (not raw_prior)
                        & (not p.direction_guard))
        self.raw_prior = raw_prior
        self.kind_tot = np.zeros((n, len(RELEASE_KINDS)), dtype=np.int64)
        # Randomness.
        if src.mode == "release":
            # the OS's CSPRNG for the task draws and the advised and own actions (the advised
            # action is a release: it carries the noisy Q values); Laplace noise from OpenDP
            self.rng = SecureRandom()
            self.noise_rng: Any = None  # OpenDP
        else:
            self.rng = src.generator
            self.noise_rng = src.generator
        self.rows = np.arange(n)
        # Logs.
        self.ev: list[tuple[Any, ...]] = []
        self.rel: list[tuple[np.ndarray, ...]] = []

    # ------------------------------------------------------------------ helpers
    def cr_per_agent(self) -> np.ndarray:
        K = self.K
        result: np.ndarray = ((self.Pi[:, :, :K] * self.R_view).sum(axis=2)
                              / self.R_best).mean(axis=1)
        return result

    def any_eligible(self) -> bool:
        if self.p.strategy == "none":
            return False
        give_ok = self.b_give > 0
        ok = self.allowed[self.b_ask > 0] & give_ok[None, :]
        if self.cap is not None:
            give_ok &= self.spent + self.eps_true <= self.cap * (1 + 1e-12)
            ok = self.allowed[self.b_ask > 0] & self.bounded[self.b_ask > 0] & give_ok[None, :]
        return bool(ok.any())

    def sample_own(self, rows: np.ndarray, tasks: np.ndarray, u: np.ndarray) -> np.ndarray:
        cdf = np.cumsum(self.Pi[rows, tasks, :self.K], axis=1)
        cdf /= cdf[:, -1:]
        result: np.ndarray = (cdf <= u[:, None]).sum(axis=1)
        return result

    def learn(self, rows: np.ndarray, tasks: np.ndarray, k: np.ndarray,
              next_tasks: np.ndarray | None) -> None:
        """Q update and Algorithm 3 for agents ``rows`` at ``tasks`` after actions ``k``."""
        p, K = self.p, self.K
        idx = rows * self.T + tasks  # rows of the flat (n·T, ·) views
        r = self.Rf[idx, k]
        if p.gamma != 0.0 and next_tasks is not None:
            nxt = np.where(self.mask[rows], self.Qf[rows * self.T + next_tasks, :K],
                           -np.inf).max(axis=1)
            r = r + p.gamma * nxt
        q = self.Qf[idx]
        ar = np.arange(idx.size)
        q[ar, k] = (1.0 - p.alpha) * q[ar, k] + p.alpha * r
        self.Qf[idx, k] = q[ar, k]
        qv = q[:, :K]
        pi = self.Pif[idx, :K]
        rbar = (pi * qv).sum(axis=1)
        msk = self.mask if idx.size == self.n else self.mask[rows]
        new = np.where(msk, pi + p.xi * (qv - rbar[:, None]), 0.0)
        self.Pif[idx, :K] = _normalize_rows(new, msk, p.norm_center, p.norm_floor)
        self.Nf[idx] += 1

    # ------------------------------------------------------------------ one student
    def _raw(self, e: int, teachers: np.ndarray, j: int, s: int, kind: int,
             unp_row: np.ndarray) -> None:
        """Unbounded releases of ``teachers`` to student j (kind: RELEASE_KINDS index)."""
        unp_row[teachers] += 1
        self.kind_tot[teachers, kind] += 1
        self.spent[teachers] = np.inf
        if self.detail:
            self.rel.append((np.full(teachers.size, e + 1), teachers, np.full(teachers.size, j),
                             np.full(teachers.size, s), self.cases[teachers, j],
                             np.full(teachers.size, kind)))

    def advise(self, e: int, j: int, s: int, Qs: np.ndarray, Ps: np.ndarray, Ns: np.ndarray,
               rel_row: np.ndarray, unp_row: np.ndarray) -> int:
        """Algorithm 5 for student j at task s; returns the advised position or -1."""
        p = self.p
        cand = self.nb_lists[j]
        if cand.size == 0:
            return -1
        ok = self.b_give[cand] > 0
        if self.cap is not None:
            ok &= self.bounded[j, cand] & (self.spent[cand] + self.eps_true
                                           <= self.cap * (1 + 1e-12))
        cand = cand[ok]
        if cand.size == 0:
            return -1
        if p.direction_guard:  # raw visit counts decide who may advise: unbounded
            self._raw(e, cand, j, s, 3, unp_row)
            cand = cand[Ns[cand, s] > Ns[j, s]]
            if cand.size == 0:
                return -1
        kj = int(self.sizes[j])
        src = self.src[j, cand, :kj]
        noisy = self.noised[j, cand]
        draw = advice_query(Qs[cand[:, None], s, src][None],
                            Ps[cand[:, None], s, src][None] if self.raw_prior else None,
                            self.Q[j, s, :kj][None], self.Pi[j, s, :kj][None], noisy,
                            params=p, sensitivity=self.S_noise, noise_rng=self.noise_rng,
                            rng=self.rng)
        if noisy.any():
            idx = cand[noisy]
            if p.noise_zero:
                self._raw(e, idx, j, s, 1, unp_row)
            else:
                rel_row[idx] += 1
                self.kind_tot[idx, 0] += 1
                self.spent[idx] += self.eps_true
                if self.detail:
                    self.rel.append((np.full(idx.size, e + 1), idx, np.full(idx.size, j),
                                     np.full(idx.size, s), self.cases[idx, j],
                                     np.zeros(idx.size, dtype=np.int64)))
        if not noisy.all():
            self._raw(e, cand[~noisy], j, s, 1, unp_row)
        b = int(draw.teacher[0])
        if b < 0:
            return -1
        i = int(cand[b])
        k = int(draw.action[0])
        if self.raw_prior:  # π′ was drawn from the teacher's raw policy
            self._raw(e, cand[b:b + 1], j, s, 2, unp_row)
        self.b_ask[j] -= 1
        self.b_give[i] -= 1
        dist = float(draw.distance[0])
        if self.detail:
            self.ev.append((e + 1, j, i, s, int(self.cases[i, j]), dist,
                            int(self.acts[j, k]), float(self.R_view[j, s, k]),
                            draw.q_hat[0, b].copy(), draw.pi_advice[0].copy()))
        else:
            self.ev.append((e + 1, j, i, s, int(self.cases[i, j]), dist,
                            int(self.acts[j, k]), float(self.R_view[j, s, k]), None, None))
        return k

    # ------------------------------------------------------------------ run
    def run(self, progress: Progress,
            on_epoch: Callable[[int, float, int], None] | None) -> dict[str, Any]:
        p, n, T, E = self.p, self.n, self.T, self.p.epochs
        rng = self.rng
        from core.common.memory import check_memory

        # eight (epochs x agents) logs, plus the advice events when they are kept
        check_memory(8.0 * E * n * 9, "epochs", detail=f"{E:,} epochs x {n} agents")
        from core.common.resources import check_time

        # measured ~3e-4 s per agent and epoch; 1e-3 for a margin
        check_time(1e-3 * E * n, "epochs", detail=f"{E:,} epochs x {n} agents")
        conv_agent = np.empty((E, n))
        advice = np.zeros(E, dtype=np.int64)
        ask = np.empty((E, n), dtype=np.int64)
        give = np.empty((E, n), dtype=np.int64)
        rel = np.zeros((E, n), dtype=np.int64)
        unp = np.zeros((E, n), dtype=np.int64)
        tasks_log = np.empty((E, n), dtype=np.int64)
        act_log = np.empty((E, n), dtype=np.int64)
        adv_log = np.zeros((E, n), dtype=bool)
        closed: int | None = None if self.any_eligible() else 0
        initial = float(self.cr_per_agent().mean())
        rows = self.rows
        tasks = rng.integers(0, T, size=n)
        progress(0.0, "starting")
        for e in range(E):
            live_learned = False
            if self.any_eligible():
                k = np.full(n, -1, dtype=np.int64)
                u = np.empty(n)
                if p.snapshot_teachers:
                    Qs, Ps, Ns = self.Q.copy(), self.Pi.copy(), self.N.copy()
                else:
                    Qs, Ps, Ns = self.Q, self.Pi, self.N
                for j in range(n):
                    s = int(tasks[j])
                    kj = -1
                    if self.b_ask[j] > 0:
                        kj = self.advise(e, j, s, Qs, Ps, Ns, rel[e], unp[e])
                    if kj >= 0:
                        k[j] = kj
                        adv_log[e, j] = True
                    else:
                        u[j] = rng.random()
                    if not p.snapshot_teachers:  # live teachers: learn at once (γ = 0)
                        if kj < 0:
                            k[j] = self.sample_own(rows[j:j + 1], tasks[j:j + 1], u[j:j + 1])[0]
                        self.learn(rows[j:j + 1], tasks[j:j + 1], k[j:j + 1], None)
                        live_learned = True
                own = ~adv_log[e]
                if p.snapshot_teachers and own.any():
                    k[own] = self.sample_own(rows[own], tasks[own], u[own])
                advice[e] = int(adv_log[e].sum())
            else:
                u = rng.random(n)
                k = self.sample_own(rows, tasks, u)
            next_tasks = rng.integers(0, T, size=n)
            if not live_learned:
                self.learn(rows, tasks, k, next_tasks)
            tasks_log[e] = tasks
            act_log[e] = self.acts[rows, k]
            cr = self.cr_per_agent()
            conv_agent[e] = cr
            ask[e] = self.b_ask
            give[e] = self.b_give
            if closed is None and not self.any_eligible():
                closed = e + 1
            tasks = next_tasks
            if on_epoch is not None:
                on_epoch(e + 1, float(cr.mean()), int(advice[e]))
            progress((e + 1) / E, f"epoch {e + 1} of {E}")
        return {"conv_agent": conv_agent, "initial": initial, "advice": advice, "ask": ask,
                "give": give, "rel": rel, "unp": unp, "tasks": tasks_log, "actions": act_log,
                "advised": adv_log, "closed": closed}


def _build_logs(eng: _Engine) -> tuple[AdviceLog, ReleaseLog | None]:
    K = eng.K
    m = len(eng.ev)
    qh = np.full((m, K), np.nan)
    pa = np.full((m, K), np.nan)
    for r, ev in enumerate(eng.ev):
        if ev[8] is not None:
            qh[r, :ev[8].size] = ev[8]
            pa[r, :ev[9].size] = ev[9]
    cols: list[Any] = list(zip(*[ev[:8] for ev in eng.ev])) if m else [[]] * 8
    events = AdviceLog(epoch=cols[0], student=cols[1], teacher=cols[2], task=cols[3],
                       case=cols[4], distance=cols[5], action=cols[6], reward=cols[7],
                       q_hat=qh, pi_advice=pa)
    if not eng.detail:
        return events, None
    if eng.rel:
        parts = list(zip(*eng.rel))
        cat = [np.concatenate(x) for x in parts]  # time order: appended as released
    else:
        cat = [np.zeros(0, dtype=np.int64)] * 6
    return events, ReleaseLog(epoch=cat[0], teacher=cat[1], student=cat[2], task=cat[3],
                              case=cat[4], kind=cat[5])


def run_advising(setup: AdvisingSetup, *,
                 rng: "np.random.Generator | int | RandomSource | None" = None,
                 delta: float = DEFAULT_DELTA, detail: bool = True,
                 progress: Progress = no_progress,
                 on_epoch: Callable[[int, float, int], None] | None = None) -> AdvisingResult:
    """Run the advising framework on ``setup`` for ``setup.params.epochs`` epochs.

    Parameters
    ----------
    setup : AdvisingSetup
        Agents, action sets, rewards and parameters (strategy, ε, budgets, …).
    rng : int, numpy Generator or None
        An int seed or a Generator gives a reproducible *seeded experiment* (numpy noise,
        one stream, spec §3.13 discipline). ``None`` is *release mode*: OpenDP Laplace
        noise, OS-seeded sampling.
    delta : float
        δ of the advanced-composition and RDP totals in :attr:`AdvisingResult.accounting`.
    detail : bool
        Keep the per-release log and the noisy views of every advice (needed for
        :meth:`AdvisingResult.ledger`); experiments switch it off.
    progress : callable
        ``progress(fraction, message)`` once per epoch; raise
        :class:`core.common.progress.Cancelled` to stop.
    on_epoch : callable, optional
        ``on_epoch(epoch, convergence_ratio, advice_count)`` after each epoch (live plots).

    Returns
    -------
    AdvisingResult

    References
    ----------
    S. Shen, *Differential Privacy in Reinforcement Learning*, PhD thesis, UTS, 2022,
    Ch. 3 (Algorithms 3–5); Shen et al., ICA3PP 2019.

    Examples
    --------
    >>> from core.advising.presets import preset
    >>> r = run_advising(preset("exp2", strategy="dp", epochs=30), rng=0)
    >>> int(r.ask_budget[-1].sum()) + r.advice_total == 10 * 30
    True
    """
    if not isinstance(setup, AdvisingSetup):
        raise InputError("must be an AdvisingSetup", field="setup")
    src = as_random_source(rng)
    t0 = time.perf_counter()
    eng = _Engine(setup, src, detail)
    out = eng.run(progress, on_epoch)
    events, releases = _build_logs(eng)
    rel_tot = out["rel"].sum(axis=0)
    unp_tot = out["unp"].sum(axis=0)
    kinds = [{RELEASE_KINDS[c]: int(eng.kind_tot[a, c]) for c in range(1, len(RELEASE_KINDS))
              if eng.kind_tot[a, c]} for a in range(setup.n_agents)]
    acc = account_advising(setup.agents, rel_tot.tolist(), unp_tot.tolist(),
                           epsilon=setup.params.epsilon, noise_sensitivity=setup.noise_sensitivity,
                           strict_sensitivity=setup.strict_sensitivity, delta=delta,
                           unbounded=kinds, max_releases=max_releases(setup))
    notes = _notes(setup, src.mode, int(rel_tot.sum()), acc)
    K = eng.K
    return AdvisingResult(
        setup=setup, mode=src.mode, seed=src.seed, convergence=out["conv_agent"].mean(axis=1),
        convergence_per_agent=out["conv_agent"], initial_convergence=out["initial"],
        advice_per_epoch=out["advice"], ask_budget=out["ask"], give_budget=out["give"],
        releases_per_epoch=out["rel"], unprotected_per_epoch=out["unp"], tasks=out["tasks"],
        actions=out["actions"], advised=out["advised"], events=events, releases=releases,
        q_final=eng.Q[:, :, :K], pi_final=eng.Pi[:, :, :K], visits=eng.N, accounting=acc,
        advising_closed_epoch=out["closed"], elapsed_s=time.perf_counter() - t0,
        notes=notes)


def _notes(setup: AdvisingSetup, mode: str, noisy: int, acc: AdvisingAccounting
           ) -> tuple[str, ...]:
    p = setup.params
    notes = []
    if mode == "release":
        notes.append("release mode: Laplace noise from OpenDP; task allocation and action "
                     "sampling use an OS-seeded generator (not reproducible)")
    else:
        notes.append("seeded experiment: numpy noise, reproducible, not for real releases")
    if p.strategy == "dp" and abs(setup.noise_sensitivity - setup.strict_sensitivity) > 1e-12:
        notes.append(f"thesis sensitivity S = {setup.noise_sensitivity:g}: each release is "
                     f"{setup.true_epsilon_per_release:.4g}-DP, not {p.epsilon:g}-DP "
                     f"(strict S = {setup.strict_sensitivity:g}). " + SENSITIVITY_NOTE)
    kinds = acc.unbounded_by_kind()
    if kinds:
        raw = sum(kinds.values())
        why = "; ".join(f"{n} x {UNBOUNDED_REASONS[k]}" for k, n in kinds.items())
        if p.noise_zero:
            why += " (noise_zero test flag: noise drawn but not added)"
        notes.append(f"{raw} release(s) carry no DP protection, so epsilon spent is "
                     f"unbounded for the teachers that made them: {why}")
    if p.strategy == "dp" and noisy == 0 and not kinds:
        notes.append("no teacher released anything: epsilon spent is 0")
    return tuple(notes)
