"""Privacy accounting for DP advising: per-teacher composition of Laplace releases.

Every candidate evaluation of a teacher i for a student j at task s releases i's noisy
Q-vector Q̃_i(s) (spec §2.4 [R]): one Laplace release, ε-DP with respect to one
differing Q-record when the noise is calibrated to the strict sensitivity. The thesis
does no composition accounting; this module gives three totals per teacher, each named:

``basic``
    Basic sequential composition: Σ ε_i (pure ε-DP, δ = 0). Always valid.
``advanced``
    Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20),
    in its heterogeneous form ε' = √(2 ln(1/δ) Σ ε_i²) + Σ ε_i(e^{ε_i} − 1), for
    (ε', δ)-DP; reported as min(ε', Σ ε_i).
``rdp``
    A Rényi-DP accountant (Mironov 2017): the Laplace mechanism of true ε has, at order
    α > 1, RDP ε(α) = 1/(α−1) · log[ α/(2α−1) e^{(α−1)ε} + (α−1)/(2α−1) e^{−αε} ]
    (Prop. 6); RDP composes additively, and k releases give (k·ε(α) + log(1/δ)/(α−1), δ)-DP
    (Prop. 3), minimised over a grid of orders; reported as min(·, Σ ε_i).

The *true* ε of a release is ε·S_strict/S_noise: with the thesis's S = 1 and rewards
2/0 (S_strict = 2), Laplace(1/ε) noise is only 2ε-DP per release. The nominal figure
(ε as the thesis states it) is shown next to it, never alone, and is *not* a bound.
The adjacency is :data:`ADJACENCY` (one Q-table entry).

The number of releases is not fixed in advance: a teacher is a candidate while budgets
last, and budgets move with the advice given — a function of the published transcript.
``basic`` is a bound on the privacy loss of the transcript that happened (pure ε-DP: every
release's loss is at most its ε, so the realised total bounds the loss pointwise).
``advanced`` and ``rdp`` hold for a *fixed* count; to cover a count chosen adaptively
they are evaluated at δ/(k_max + 1), a union bound over every count k ≤ k_max the run could
have reached (k_max: :func:`odometer_delta`), so each still holds with probability ≥ 1 − δ
for the realised count.

Some releases have no finite ε (*unbounded*): raw Q-values (identical action sets in
the thesis variant, traditional advising), advice drawn from the teacher's raw policy,
and the direction guard's raw visit counts (:data:`core.advising.framework.
UNBOUNDED_REASONS`). A teacher with any of them has every total ``math.inf`` (JSON
``null`` with a ``…_reason``), never 0 and never the finite part alone.

The composition theorems themselves are :mod:`core.privacy.composition`.

Examples
--------
>>> from core.privacy.composition import basic_composition
>>> round(basic_composition([0.5] * 4), 10)
2.0
>>> round(advanced_composition([0.1] * 100, delta=1e-5), 4)
5.8502
>>> eps, order = rdp_composition(100, 0.1, delta=1e-5)
>>> round(eps, 3) < round(advanced_composition([0.1] * 100, delta=1e-5), 3)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.jsonable import finite_or_none
from core.privacy.composition import (
    advanced_composition,
    check_delta,
    rdp_composition,
)

__all__ = [
    "ACCOUNTANTS",
    "ADJACENCY",
    "AgentPrivacy",
    "AdvisingAccounting",
    "account_advising",
    "odometer_delta",
    "unbounded_reason",
    "DEFAULT_DELTA",
]

ACCOUNTANTS = {
    "basic": "basic sequential composition (sum of epsilons; pure epsilon-DP)",
    "advanced": "advanced composition (Dwork, Rothblum & Vadhan 2010), (epsilon, delta)-DP",
    "rdp": "Renyi-DP accountant for the Laplace mechanism (Mironov 2017), (epsilon, delta)-DP",
}
DEFAULT_DELTA = 1e-5

#: The adjacency every finite ε of DP advising is stated for (proof:
#: :mod:`core.advising.framework`).
ADJACENCY = ("neighbouring teachers differ in at most one Q-table entry Q(s, a), each value "
             "within the public Q range [q_lo, q_hi] (so by at most S_strict = q_hi - q_lo); "
             "their policies and visit counts may differ arbitrarily")

#: Short names of the unbounded release kinds (for one-line reasons).
_KIND_TEXT = {"raw_q": "raw Q-values", "raw_policy": "its raw policy (advice drawn from it)",
              "raw_visits": "its raw visit counts (direction guard)"}


def unbounded_reason(agent: str, kinds: Mapping[str, int]) -> str:
    """One line: why ``agent``'s total is unbounded ("" if it is not).

    Parameters
    ----------
    agent : str
        The teacher.
    kinds : Mapping
        ``{kind: count}`` of its raw releases.

    Returns
    -------
    str

    Examples
    --------
    >>> unbounded_reason("u1", {"raw_q": 3, "raw_policy": 0})
    'u1 released raw Q-values 3 times without noise: no finite epsilon'
    """
    parts = [f"{_KIND_TEXT.get(k, k)} {n} time{'s' if n != 1 else ''}"
             for k, n in kinds.items() if n > 0]
    if not parts:
        return ""
    return f"{agent} released {'; '.join(parts)} without noise: no finite epsilon"


@dataclass(frozen=True)
class AgentPrivacy:
    """What one agent (as a teacher) has released, and what it cost under each accountant.

    ``basic``, ``advanced`` and ``rdp`` are ``math.inf`` when the agent made any unbounded
    release (``unprotected_releases > 0``; ``unbounded`` counts them by kind and
    :attr:`reason` says why). ``nominal_basic`` is the thesis's own figure (nominal ε per
    noisy release, raw releases uncounted): it is **not** a bound.
    """

    agent: str
    releases: int
    unprotected_releases: int
    epsilon_per_release: float
    nominal_epsilon_per_release: float
    basic: float
    advanced: float
    rdp: float
    rdp_order: float
    nominal_basic: float
    unbounded: dict[str, int] = field(default_factory=dict)
    max_releases: int | None = None

    @property
    def protected(self) -> bool:
        """False if the agent made an unbounded release (no finite ε covers it)."""
        return self.unprotected_releases == 0

    @property
    def reason(self) -> str:
        """Why the totals are unbounded; "" when they are finite."""
        if self.protected:
            return ""
        return unbounded_reason(self.agent, self.unbounded or {"raw_q":
                                                               self.unprotected_releases})

    @property
    def tightest(self) -> tuple[str, float]:
        """(accountant name, ε) of the smallest total (δ-free basic wins ties)."""
        cands = [("basic", self.basic), ("rdp", self.rdp), ("advanced", self.advanced)]
        return min(cands, key=lambda c: c[1])

    def to_dict(self) -> dict[str, Any]:
        why = self.reason or None
        out: dict[str, Any] = {
            "agent": self.agent, "releases": self.releases,
            "unprotected_releases": self.unprotected_releases,
            "unbounded_releases": dict(self.unbounded),
            "epsilon_per_release": self.epsilon_per_release,
            "nominal_epsilon_per_release": self.nominal_epsilon_per_release,
            "basic": finite_or_none(self.basic), "advanced": finite_or_none(self.advanced),
            "rdp": finite_or_none(self.rdp),
            "rdp_order": None if math.isinf(self.rdp_order) else self.rdp_order,
            "nominal_basic": self.nominal_basic, "protected": self.protected,
            "tightest": self.tightest[0], "max_releases": self.max_releases}
        if why:
            for k in ("basic", "advanced", "rdp"):
                out[f"{k}_reason"] = why
        return out


@dataclass(frozen=True)
class AdvisingAccounting:
    """Per-teacher privacy totals of one advising run, with every assumption stated."""

    agents: tuple[AgentPrivacy, ...]
    epsilon: float
    noise_sensitivity: float
    strict_sensitivity: float
    delta: float
    mechanism: str = "laplace"

    @property
    def epsilon_per_release(self) -> float:
        return self.epsilon * self.strict_sensitivity / self.noise_sensitivity

    def totals(self, accountant: str = "basic") -> np.ndarray:
        """Per-agent cumulative true ε under ``accountant`` (basic, advanced, rdp, nominal).

        ``inf`` for an agent with an unbounded release (except ``nominal``, the thesis's
        figure, which is not a bound).
        """
        key = "nominal_basic" if accountant == "nominal" else accountant
        if key not in ("basic", "advanced", "rdp", "nominal_basic"):
            raise InputError(f"must be basic, advanced, rdp or nominal, got {accountant!r}",
                             field="accountant")
        return np.array([getattr(a, key) for a in self.agents], dtype=np.float64)

    def reasons(self) -> list[str | None]:
        """Per agent: why its totals are unbounded, or None (aligned with :meth:`totals`)."""
        return [a.reason or None for a in self.agents]

    @property
    def unprotected(self) -> int:
        return sum(a.unprotected_releases for a in self.agents)

    @property
    def bounded(self) -> bool:
        """True when every agent's total is finite."""
        return self.unprotected == 0

    def unbounded_by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for a in self.agents:
            for k, n in a.unbounded.items():
                out[k] = out.get(k, 0) + int(n)
        return {k: n for k, n in out.items() if n}

    def statement(self) -> str:
        """One paragraph: what the numbers mean."""
        per = self.epsilon_per_release
        lines = [f"Each noisy release of a teacher's Q(s,.) is Laplace with scale "
                 f"S/epsilon = {self.noise_sensitivity:g}/{self.epsilon:g}; it is "
                 f"{per:.4g}-DP (delta = 0) when {ADJACENCY} (strict sensitivity "
                 f"{self.strict_sensitivity:g})"]
        if abs(self.noise_sensitivity - self.strict_sensitivity) > 1e-12:
            lines.append(f" (the thesis's nominal S = {self.noise_sensitivity:g} claims "
                         f"{self.epsilon:g}, which is not a bound)")
        lines.append(". Totals per teacher: basic composition (delta = 0; bounds the privacy "
                     "loss of the run that happened), advanced composition and a Renyi-DP "
                     f"accountant (delta = {self.delta:g}, split over every release count "
                     "the run could have reached, as that count depends on the advice "
                     "given).")
        kinds = self.unbounded_by_kind()
        if kinds:
            what = "; ".join(f"{n} {_KIND_TEXT.get(k, k).replace('its ', '')}"
                             for k, n in kinds.items())
            lines.append(f" Unbounded: {what} left without noise, so the teachers that "
                         "released them have no finite epsilon (reported as unbounded).")
        return "".join(lines)

    def to_dict(self) -> dict[str, Any]:
        reasons = self.reasons()
        out: dict[str, Any] = {
            "mechanism": self.mechanism, "epsilon": self.epsilon,
            "noise_sensitivity": self.noise_sensitivity,
            "strict_sensitivity": self.strict_sensitivity,
            "epsilon_per_release": self.epsilon_per_release, "delta": self.delta,
            "accountants": dict(ACCOUNTANTS),
            "nominal_note": "nominal_basic is the thesis's own figure (nominal epsilon per "
                            "noisy release, raw releases uncounted); it is not a bound",
            "nominal_basic": self.totals("nominal").tolist(),
            "unprotected_releases": [a.unprotected_releases for a in self.agents],
            "unbounded_releases": [dict(a.unbounded) for a in self.agents],
            "releases": [a.releases for a in self.agents],
            "statement": self.statement()}
        for k in ("basic", "advanced", "rdp"):
            out[k] = [finite_or_none(x) for x in self.totals(k).tolist()]
            if any(reasons):
                out[f"{k}_reason"] = reasons
        return out


def odometer_delta(delta: float, max_releases: int | None) -> float:
    """δ for one fixed count when the count is adaptive: δ/(k_max + 1) (union bound).

    Parameters
    ----------
    delta : float
        The total δ.
    max_releases : int or None
        k_max, the largest possible count (None: the count is fixed).

    Returns
    -------
    float

    Examples
    --------
    >>> odometer_delta(0.01, None), odometer_delta(0.01, 4)
    (0.01, 0.002)
    """
    return delta if max_releases is None else delta / (int(max_releases) + 1)


def account_advising(agents: Sequence[str], releases: Sequence[int],
                     unprotected: Sequence[int], *, epsilon: float, noise_sensitivity: float,
                     strict_sensitivity: float, delta: float = DEFAULT_DELTA,
                     unbounded: Sequence[Mapping[str, int]] | None = None,
                     max_releases: Sequence[int] | None = None) -> AdvisingAccounting:
    """Compose each agent's ``releases`` Laplace releases under the three accountants.

    ``unprotected`` counts each agent's unbounded releases (``unbounded``: the same by
    kind, see :data:`core.advising.framework.RELEASE_KINDS`); any makes its totals ∞.
    ``max_releases``: each agent's largest possible count (public; the engine passes
    epochs × students that may ask it, or what its cap allows); advanced and RDP then use
    :func:`odometer_delta`. Without it the count is taken as fixed in advance.

    Parameters
    ----------
    agents : sequence of str
        The teachers.
    releases : sequence of int
        Noisy releases per teacher.
    unprotected : sequence of int
        Raw releases per teacher.
    epsilon : float
        ε of one release as configured.
    noise_sensitivity : float
        The sensitivity the noise was scaled for.
    strict_sensitivity : float
        The sensitivity the adjacency allows (the true ε per release is
        ε·strict/noise when larger).
    delta : float
        δ of the advanced and RDP totals.
    unbounded : sequence of Mapping, optional
        Raw releases by kind, per teacher.
    max_releases : sequence of int, optional
        k_max per teacher.

    Returns
    -------
    AdvisingAccounting

    Examples
    --------
    >>> acc = account_advising(["a", "b"], [10, 0], [0, 3], epsilon=1.0,
    ...                        noise_sensitivity=1.0, strict_sensitivity=2.0)
    >>> acc.epsilon_per_release, acc.totals("basic").tolist(), acc.totals("nominal").tolist()
    (2.0, [20.0, inf], [10.0, 0.0])
    >>> acc.agents[1].protected, acc.reasons()[1]
    (False, 'b released raw Q-values 3 times without noise: no finite epsilon')
    """
    delta = check_delta(delta)
    per = epsilon * strict_sensitivity / noise_sensitivity
    kinds = list(unbounded) if unbounded is not None else [None] * len(agents)
    caps = list(max_releases) if max_releases is not None else [None] * len(agents)
    rows = []
    if len({len(agents), len(releases), len(unprotected), len(kinds), len(caps)}) != 1:
        # a teacher without its counts would silently drop out of the totals
        raise ValueError("agents, releases, unprotected (and unbounded, max_releases) must "
                         "have one entry per teacher")
    for name, k, u, kd, km in zip(agents, releases, unprotected, kinds, caps):
        k, u = int(k), int(u)
        by_kind = {str(a): int(b) for a, b in (kd or {}).items() if int(b)}
        if u and not by_kind:
            by_kind = {"raw_q": u}
        if u:
            basic = adv = rdp = math.inf
            order = math.inf
        else:
            d_k = odometer_delta(delta, km)
            rdp, order = rdp_composition(k, per, delta=d_k)
            basic = k * per
            adv = advanced_composition([per] * k, delta=d_k)
        rows.append(AgentPrivacy(agent=str(name), releases=k, unprotected_releases=u,
                                 epsilon_per_release=per, nominal_epsilon_per_release=epsilon,
                                 basic=basic, advanced=adv, rdp=rdp, rdp_order=order,
                                 nominal_basic=k * epsilon, unbounded=by_kind,
                                 max_releases=None if km is None else int(km)))
    return AdvisingAccounting(agents=tuple(rows), epsilon=float(epsilon),
                              noise_sensitivity=float(noise_sensitivity),
                              strict_sensitivity=float(strict_sensitivity), delta=delta)
