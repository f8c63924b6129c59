"""Audit target: one DP-advising query, exactly as the student observes it.

The mechanism (:func:`core.advising.framework.advice_query`, the function the engine
calls for every query): a student j at task s asks; a candidate teacher's view of its
Q(s,·) is released with Laplace(S/ε) noise (sound variant: always, S = S_strict; thesis:
S = 1 and identical action sets raw); the teacher advises if the squared distance to the
student's Q(s,·) exceeds d, and the action is drawn from π′ (sound: built from the noisy
Q alone; thesis: from the teacher's raw policy). The observer sees **whether advice
arrives and which action** — encoded as int codes: 0 = no advice, 1 + k = advice of the
student's k-th action. (The logged q̂ itself is covered by the Laplace bound; this audit
tests what the protocol hands the student.) One candidate teacher is audited: with
several, the others' views do not depend on this teacher, and the selection among them
is post-processing.

Claim (from the mechanism's own analysis, :mod:`core.advising.framework`): sound
variant ε per query for one teacher, δ = 0, under :data:`core.advising.accounting.
ADJACENCY` (one Q-table entry differs by at most S_strict; the teacher's policy and
visit counts may differ arbitrarily); thesis variant unbounded (raw policy, raw case-1
Q-values).

Candidate pairs (teacher inputs; the student and every parameter are public and shared):

* one-server sets (the "does advice arrive" channel, exact): Q(A) = q_lo vs q_hi with the
  student at q_lo, for the preset's d = 0.7 and smaller d (the event "no advice" is a
  ball of radius √d around the student; as d → 0 its probability ratio tends to e^ε,
  the worst case of this channel: ε_tight = 0.769, 0.943, 0.978 at ε = 1 and d = 0.7,
  0.05, 0.001);
* case 4 (teacher {A,B,C,D}, student {A,B,C,E}): one Q-record moved by S with the
  teacher's policy moved with it — the pair of the leak the audit once found (ratio
  4.07 > e at ε = 1 when π′ came from the raw policy) — and a pair differing in the policy only;
* case 1 (identical sets): one Q-record moved by S (raw in the thesis variant).

Examples
--------
>>> claimed(1.0, "sound")[:2], claimed(1.0, "thesis")[:2]
((1.0, 0.0), (inf, 0.0))
>>> pairs = candidate_pairs(1.0, "sound")
>>> d = exact_distribution(pairs[0][1], 1.0, "sound")
>>> round(math.log(d[0] / exact_distribution(pairs[0][2], 1.0, "sound")[0]), 3)
0.769
>>> x = sample_outputs(pairs[0][1], 1000, np.random.default_rng(0), 1.0, "sound")
>>> x.shape, sorted(set(x.tolist()))
((1000,), [0, 1])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.advising.accounting import ADJACENCY
from core.advising.framework import (
    UNBOUNDED_REASONS,
    advice_distribution,
    advice_query,
    noised_pairs,
    squared_distance,
    teacher_view,
)
from core.advising.model import VARIANTS, AdvisingParams, AdvisingSetup
from core.common.errors import InputError
from core.privacy.laplace import check_epsilon

__all__ = ["LABEL", "DEFAULT_SAMPLES", "AdviceInput", "claimed", "candidate_pairs",
           "sample_outputs", "exact_distribution", "parameters",
           "RELEASE_PATH", "variant_from", "tight_epsilon", "exact_roc"]

LABEL = "DP advising (one advice query as the student observes it)"
DEFAULT_SAMPLES = 200_000
RELEASE_PATH = False  # samples come from the seeded engine only
#: Table 3.5's distance threshold and the spec's ξ (the presets' values).
THRESHOLD = 0.7
#: Rewards 2 / 0 and Q₀ = 0: the public Q range is [0, 2], S_strict = 2.
Q_LO, Q_HI = 0.0, 2.0


@dataclass(frozen=True)
class AdviceInput:
    """One teacher input of one advice query (the student and the set-up are public).

    ``teacher_actions`` / ``student_actions`` are server names in each agent's order;
    ``teacher_q`` / ``teacher_pi`` the teacher's Q(s,·), π(s,·) in its order;
    ``student_q`` / ``student_pi`` the student's own; ``threshold`` is d.
    """

    teacher_actions: tuple[str, ...]
    student_actions: tuple[str, ...]
    teacher_q: tuple[float, ...]
    teacher_pi: tuple[float, ...]
    student_q: tuple[float, ...]
    student_pi: tuple[float, ...]
    threshold: float = THRESHOLD

    def describe(self) -> dict[str, Any]:
        return {"teacher_actions": list(self.teacher_actions),
                "student_actions": list(self.student_actions),
                "teacher_q": list(self.teacher_q), "teacher_pi": list(self.teacher_pi),
                "student_q": list(self.student_q), "student_pi": list(self.student_pi),
                "d": self.threshold}

    def setup(self, params: AdvisingParams) -> AdvisingSetup:
        """The two-agent set-up (teacher = agent 0, student = agent 1); rewards 2 / 0."""
        servers = sorted(set(self.teacher_actions) | set(self.student_actions))
        best = self.student_actions[0]
        return AdvisingSetup.from_labels(
            servers=servers, tasks=["s"],
            agents={"teacher": list(self.teacher_actions),
                    "student": list(self.student_actions)},
            rewards={"s": {best: Q_HI}}, params=params, name="audit")


def _params(epsilon: float, variant: str, inp: AdviceInput | None = None,
            **over: Any) -> AdvisingParams:
    if variant not in VARIANTS:
        raise InputError(f"must be one of {', '.join(VARIANTS)}, got {variant!r}",
                         field="variant")
    d = THRESHOLD if inp is None else inp.threshold
    return AdvisingParams.for_variant(variant, **{"strategy": "dp",
                                                  "epsilon": check_epsilon(epsilon),
                                                  "distance_threshold": d, "epochs": 1,
                                                  **over})


def variant_from(params: Mapping[str, Any]) -> tuple[float, str]:
    """ε and the variant name (``"sound"`` or ``"thesis"``) from the audit's parameters."""
    epsilon, variant = check_epsilon(params["epsilon"]), str(params["variant"])
    _params(epsilon, variant)  # checks the variant
    return epsilon, variant

def parameters(epsilon: float, variant: str) -> dict[str, Any]:
    """The public parameters of the audited mechanism (reported with the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : str
        The public parameters: ``"sound"`` or ``"thesis"``.

    Returns
    -------
    dict
    """
    p = _params(epsilon, variant)
    return {"epsilon": p.epsilon, "variant": variant, "d": p.distance_threshold, "xi": p.xi,
            "sensitivity": "strict (r_max - r_min = 2)" if p.sensitivity is None else
            p.sensitivity, "advice_prior": p.advice_prior,
            "noise_on_identical_sets": p.noise_on_identical_sets}


def claimed(epsilon: float, variant: str) -> tuple[float, float, str] | tuple[
        float, float, str, str]:
    """(epsilon_claimed — math.inf if unbounded, delta_claimed, adjacency text) of ONE advice
    release (for the unbounded thesis variant a 4th element says why).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : str
        The public parameters: ``"sound"`` or ``"thesis"``.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    p = _params(epsilon, variant)
    text = (f"{ADJACENCY}; one advice query of one candidate teacher, as the student "
            "observes it (whether advice arrives and which action)")
    if variant == "sound":
        # S_noise = S_strict in the sound variant: exactly ε (framework docstring proof).
        return p.epsilon, 0.0, text
    return (math.inf, 0.0, text,
            "thesis variant: " + UNBOUNDED_REASONS["raw_policy"] + "; and "
            + UNBOUNDED_REASONS["raw_q"])


def _inp(t_act: str, s_act: str, tq: list[float], tp: list[float], sq: list[float],
         sp: list[float], d: float = THRESHOLD) -> AdviceInput:
    return AdviceInput(tuple(t_act), tuple(s_act), tuple(map(float, tq)),
                       tuple(map(float, tp)), tuple(map(float, sq)), tuple(map(float, sp)), d)


#: A policy converged on the first action (Algorithm 4's floor Δ = 0.001 on the others).
_CONV_A = [0.997, 0.001, 0.001, 0.001]
_CONV_B = [0.001, 0.997, 0.001, 0.001]
_HALF_AB = [0.499, 0.499, 0.001, 0.001]
_UNIF = [0.25] * 4


def candidate_pairs(epsilon: float, variant: str) -> list[tuple[dict[str, Any], object, object]]:
    """Neighbouring teacher inputs (json-able description, input_a, input_b) to try;
    include the worst case you can derive.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : str
        The public parameters: ``"sound"`` or ``"thesis"``.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    _params(epsilon, variant)  # validates
    z4 = [0.0] * 4
    out: list[tuple[dict[str, Any], object, object]] = []
    for d, why in ((THRESHOLD, "the presets' d"), (0.05, "small d"), (0.001, "tiny d")):
        a = _inp("A", "A", [Q_LO], [1.0], [Q_LO], [1.0], d)
        b = _inp("A", "A", [Q_HI], [1.0], [Q_LO], [1.0], d)
        out.append(({"name": f"one server, Q(A) {Q_LO:g} vs {Q_HI:g}, d = {d:g} ({why})",
                     "channel": "whether advice arrives (exact distribution)",
                     "differs": f"Q(s, A): {Q_LO:g} -> {Q_HI:g}",
                     "a": a.describe(), "b": b.describe()}, a, b))
    a = _inp("ABCD", "ABCE", [2, 0, 0, 0], _CONV_A, z4, _UNIF)
    b = _inp("ABCD", "ABCE", z4, _UNIF, z4, _UNIF)
    out.append(({"name": "case 4, Q(A) 2 vs 0, the teacher's policy moved with it "
                 "(the leak pair)", "differs": "Q(s, A): 2 -> 0 and pi(s, .)",
                 "a": a.describe(), "b": b.describe()}, a, b))
    a = _inp("ABCD", "ABCE", [2, 0, 0, 0], _CONV_A, z4, _UNIF)
    b = _inp("ABCD", "ABCE", [2, 2, 0, 0], _HALF_AB, z4, _UNIF)
    out.append(({"name": "case 4, Q(B) 0 vs 2 with the policy moved to B",
                 "differs": "Q(s, B): 0 -> 2 and pi(s, .)",
                 "a": a.describe(), "b": b.describe()}, a, b))
    a = _inp("ABCD", "ABCE", [2, 0, 0, 0], _CONV_A, z4, _UNIF)
    b = _inp("ABCD", "ABCE", [2, 0, 0, 0], _CONV_B, z4, _UNIF)
    out.append(({"name": "case 4, identical Q, policy converged on A vs on B",
                 "differs": "pi(s, .) only", "a": a.describe(), "b": b.describe()}, a, b))
    a = _inp("ABCD", "ABCD", [2, 0, 0, 0], _CONV_A, z4, _UNIF)
    b = _inp("ABCD", "ABCD", z4, _UNIF, z4, _UNIF)
    out.append(({"name": "case 1 (identical sets), Q(A) 2 vs 0",
                 "differs": "Q(s, A): 2 -> 0 and pi(s, .)",
                 "a": a.describe(), "b": b.describe()}, a, b))
    return out


def _views(inp: AdviceInput, params: AdvisingParams
           ) -> tuple[AdvisingSetup, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    if not isinstance(inp, AdviceInput):
        raise InputError("must be an AdviceInput from candidate_pairs", field="input")
    setup = inp.setup(params)
    tq, tp = teacher_view(inp.teacher_q, inp.teacher_pi, setup.action_sets[0],
                          setup.action_sets[1], q0=params.q0)
    sq = np.asarray(inp.student_q, dtype=np.float64)
    sp = np.asarray(inp.student_pi, dtype=np.float64)
    noised = bool(noised_pairs(setup)[1, 0])
    return setup, tq, tp, sq, sp, noised


def _sample(inp: AdviceInput, n: int, rng: np.random.Generator, params: AdvisingParams
            ) -> np.ndarray:
    """n queries through :func:`core.advising.framework.advice_query` with ``params``."""
    setup, tq, tp, sq, sp, noised = _views(inp, params)
    k = tq.size
    draw = advice_query(np.broadcast_to(tq, (n, 1, k)), np.broadcast_to(tp, (n, 1, k)),
                        np.broadcast_to(sq, (n, k)), np.broadcast_to(sp, (n, k)),
                        np.array([noised]), params=params,
                        sensitivity=setup.noise_sensitivity, noise_rng=rng, rng=rng)
    return np.where(draw.advised, draw.action + 1, 0).astype(np.int64)


def sample_outputs(inp: object, n: int, rng: np.random.Generator | None, epsilon: float,
                   variant: str) -> np.ndarray:
    """n independent draws of EXACTLY what the student observes for one advice query
    (including 'no advice'), encoded as int codes, shape (n,).

    Parameters
    ----------
    inp : Any
        One input of a pair.
    n : int
        Draws.
    rng : numpy.random.Generator or None
        Seeded draws; None samples through the release path where the module has one.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : str
        The public parameters: ``"sound"`` or ``"thesis"``.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"must be an integer >= 1, got {n!r}", field="samples")
    if not isinstance(rng, np.random.Generator):
        raise InputError("needs a numpy Generator (seeded experiment path)", field="rng")
    if not isinstance(inp, AdviceInput):
        raise InputError("must be an AdviceInput from candidate_pairs", field="input")
    return _sample(inp, int(n), rng, _params(epsilon, variant, inp))


def exact_distribution(inp: object, epsilon: float, variant: str) -> dict[int, float] | None:
    """The exact output distribution when it can be computed (for epsilon_tight), else None.

    Exact cases: a raw (un-noised) view — the distance is deterministic, π′ is computed
    by the framework's own :func:`~core.advising.framework.advice_distribution` — and a
    one-server student with noise, where P(no advice) = P(|v + L − q_j| ≤ √d) is the
    Laplace CDF difference (π′ = [1]). Otherwise None (a k-dimensional integral).

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : str
        The public parameters: ``"sound"`` or ``"thesis"``.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    params = _params(epsilon, variant, inp if isinstance(inp, AdviceInput) else None)
    setup, tq, tp, sq, sp, noised = _views(inp, params)  # type: ignore[arg-type]
    k = tq.size
    out = {c: 0.0 for c in range(k + 1)}
    if not noised:
        if squared_distance(tq, sq) <= params.distance_threshold:
            out[0] = 1.0
            return out
        prior = (tp if params.advice_prior == "teacher" else
                 sp if params.advice_prior == "student" else np.full(k, 1.0 / k))
        pi = advice_distribution(prior, tq, xi=params.xi, subtract_rbar=params.subtract_rbar,
                                 center=params.norm_center, floor=params.norm_floor)
        for c in range(k):
            out[c + 1] = float(pi[c])
        return out
    if k != 1:
        return None
    b = setup.noise_sensitivity / params.epsilon
    r = math.sqrt(params.distance_threshold)
    shift = float(tq[0] - sq[0])

    def cdf(x: float) -> float:  # Laplace(0, b)
        return 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)

    p0 = cdf(r - shift) - cdf(-r - shift)
    out[0], out[1] = p0, 1.0 - p0
    return out


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: Any
                  ) -> tuple[float, str] | None:
    """No closed form for the pair (:meth:`core.audit.target.AuditTarget.tight_epsilon`):
    the runner uses the exact output distributions where there are any."""
    return None


def exact_roc(a: Any, b: Any, epsilon: Any, variant: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """No optimal-test ROC in closed form (:meth:`core.audit.target.AuditTarget.exact_roc`):
    the runner ranks the pairs from the exact distributions or a pre-screen."""
    return None
