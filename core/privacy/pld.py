"""Tight composition: privacy-loss distributions with Google's dp-accounting.

Basic composition adds ε's; the privacy-loss distribution (PLD) of a composition is the
convolution of the mechanisms' PLDs, and its hockey-stick curve is the composition's exact
privacy profile (up to the discretisation, which dp-accounting makes pessimistic: every
loss is rounded *up* to the grid, so δ(ε) is over-, never under-stated).

Each mechanism enters as a :class:`PldTerm` run ``count`` times:

* ``"dirichlet"``: the envelope of dominating Beta pairs of :mod:`core.privacy.dirichlet_profile`
  (one privatisation under one-row adjacency: the worst row's pairs; under all-rows
  adjacency one term per group of rows), turned into a pessimistic connect-the-dots PLD;
* ``"laplace"``: dp-accounting's own Laplace PLD (scale, sensitivity);
* ``"eps-delta"``: any (ε, δ)-DP mechanism, through the PLD of the canonical pair that
  dominates every (ε, δ)-DP mechanism (``from_privacy_parameters``) — always valid;
* ``"identity"``: releases nothing (ε = 0).

A term without a finite ε (``eps-delta`` with ε = ∞) makes the composition unbounded.

Numerical error. dp-accounting convolves with FFTs (relative error ~1e-16 of the largest
mass per bin) and truncates tails of mass < 1e-15 *pessimistically* (into the ∞ mass). To
account for the FFT rounding, ε is read off at δ̂ − s with the slack
s = 1e-12·(1 + Σ counts), stated in the result.

Composition is *non-adaptive* here (the mechanisms and their parameters are fixed in
advance, as for a sweep or a recorded ledger); budgets are still enforced with basic
composition, which also holds under adaptive choices.

Examples
--------
>>> t = eps_delta_term(0.1, 0.0, count=100)
>>> c = compose([t], 1e-6)
>>> round(c.epsilon, 2) < 10.0   # basic composition gives 10
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.common.errors import InputError
from core.privacy.dirichlet_profile import BetaPair, RowProfile, support_profile

__all__ = ["PldTerm", "PldComposition", "compose", "eps_delta_term", "laplace_term",
           "dirichlet_term", "dirichlet_rows_terms", "PLD_LABEL", "profile_spec_terms"]

PLD_LABEL = ("privacy-loss distributions composed with dp-accounting (pessimistic "
             "connect-the-dots discretisation of each release's exact profile, or of the "
             "canonical (eps, delta) pair where only (eps, delta) is known)")
_MIN_H = 1e-4
_POINTS = 4096
_MAX_LOSS = 500.0


@dataclass(frozen=True)
class PldTerm:
    """One mechanism of a composition, run ``count`` times (module docstring)."""

    kind: str
    params: tuple[Any, ...]
    count: int = 1
    label: str = ""

    @property
    def bounded(self) -> bool:
        return not (self.kind == "eps-delta" and math.isinf(self.params[0]))

    def loss_range(self) -> float:
        """Roughly where the loss lives: the grid is sized from it."""
        if self.kind == "eps-delta":
            return max(float(self.params[0]), 1e-3)
        if self.kind == "laplace":
            scale, sens = self.params
            return max(30.0 * float(sens) / float(scale), 1e-3)
        if self.kind == "dirichlet":
            return _dirichlet_range(self.params)
        return 1e-3

    def pld(self, h: float) -> Any:
        from dp_accounting.pld import common as dp_common
        from dp_accounting.pld import privacy_loss_distribution as pldm

        if self.kind == "identity":
            return pldm.identity(value_discretization_interval=h)
        if self.kind == "eps-delta":
            eps, delta = self.params
            if eps == 0 and delta == 0:
                return pldm.identity(value_discretization_interval=h)
            return pldm.from_privacy_parameters(
                dp_common.DifferentialPrivacyParameters(float(eps), float(delta)),
                value_discretization_interval=h)
        if self.kind == "laplace":
            scale, sens = self.params
            return pldm.from_laplace_mechanism(float(scale), sensitivity=float(sens),
                                               value_discretization_interval=h)
        if self.kind == "dirichlet":
            return _dirichlet_pld(self.params, h)
        raise InputError(f"unknown privacy-loss term {self.kind!r}", field="profile")


def _envelope(params: tuple[Any, ...]) -> RowProfile:
    pairs = tuple(BetaPair(*p) for p in params)
    w = pairs[0]
    return RowProfile(k=0.0, eta=0.0, n=0, radius=0.0, pairs=pairs, witness=w, exact=False)


@lru_cache(maxsize=256)
def _dirichlet_range(params: tuple[Any, ...]) -> float:
    return _envelope(params).loss_range()


@lru_cache(maxsize=256)
def _dirichlet_pld(params: tuple[Any, ...], h: float) -> Any:
    return _envelope(params).pld(h, points=_POINTS)


def eps_delta_term(epsilon: float, delta: float, count: int = 1, label: str = "") -> PldTerm:
    """A mechanism known only by its (ε, δ) (ε may be ``math.inf``: unbounded).

    Parameters
    ----------
    epsilon, delta : float
        Its guarantee.
    count : int
        How many times it runs.
    label : str
        What it is (shown in explanations).

    Returns
    -------
    PldTerm
    """
    return PldTerm("eps-delta", (float(epsilon), float(delta)), int(count), label)


def laplace_term(scale: float, sensitivity: float, count: int = 1, label: str = "") -> PldTerm:
    """The Laplace mechanism with noise ``scale`` on a query of ``sensitivity``.

    Parameters
    ----------
    scale, sensitivity : float
        Noise scale and L1 sensitivity.
    count : int
        How many times it runs.
    label : str
        What it is.

    Returns
    -------
    PldTerm
    """
    return PldTerm("laplace", (float(scale), float(sensitivity)), int(count), label)


def dirichlet_term(pairs: Sequence[BetaPair], count: int = 1, label: str = "") -> PldTerm:
    """A Dirichlet privatisation whose neighbouring pairs are all dominated by ``pairs``.

    Parameters
    ----------
    pairs : sequence of BetaPair
        Dominating pairs (their envelope is the mechanism's certified profile).
    count : int
        How many times it runs.
    label : str
        What it is.

    Returns
    -------
    PldTerm
    """
    ps = tuple(sorted({(p.x, p.y, p.d) for p in pairs}))
    if not ps or all(p[2] <= 0 for p in ps):
        return PldTerm("identity", (), int(count), label)
    return PldTerm("dirichlet", ps, int(count), label)


def dirichlet_rows_terms(k: float, groups: Sequence[Sequence[float]], adjacency: str,
                         delta: float, count: int = 1) -> list[PldTerm]:
    """The terms of ``count`` privatisations of a model whose rows form ``groups``.

    Parameters
    ----------
    k : float
        The concentration.
    groups : sequence of (n, eta, radius, rows)
        Rows grouped by support size n, their η and their radius after pre-processing.
        n <= 1 rows release nothing.
    adjacency : str
        ``"one-row"`` (one term: the envelope over every group, a neighbour changes one row)
        or ``"all-rows"`` (one term per group, ``rows × count`` times).
    delta : float
        The δ̂ at which two-outcome rows' dominating cells are refined.
    count : int
        Privatisations.

    Returns
    -------
    list of PldTerm
    """
    profiles = [(support_profile(k, eta, int(n), radius), int(rows))
                for n, eta, radius, rows in groups if int(n) >= 2 and int(rows) > 0]
    if not profiles:
        return [PldTerm("identity", (), count)]
    if adjacency == "one-row":
        pairs = [p for prof, _ in profiles for p in prof.envelope_pairs(delta)]
        return [dirichlet_term(pairs, count, f"Dir(k = {k:g}), one row")]
    return [dirichlet_term(prof.envelope_pairs(delta), rows * count,
                           f"Dir(k = {k:g}), rows with {prof.n} next states")
            for prof, rows in profiles]


def profile_spec_terms(spec: Any, count: int, epsilon: float, delta: float) -> list[PldTerm]:
    """The terms of a ledger entry's recorded ``profile`` (its parameters), else (ε, δ).

    Parameters
    ----------
    spec : dict or None
        ``{"kind": "dirichlet", "k", "adjacency", "delta", "groups": [[n, eta, radius,
        rows], ...]}`` or ``{"kind": "laplace", "scale", "sensitivity"}``.
    count : int
        The entry's count.
    epsilon, delta : float
        The entry's own statement (the fallback).

    Returns
    -------
    list of PldTerm
    """
    try:
        if isinstance(spec, dict) and spec.get("kind") == "dirichlet":
            return dirichlet_rows_terms(float(spec["k"]), spec["groups"],
                                        str(spec.get("adjacency", "one-row")),
                                        float(spec.get("delta", delta or 0.05)), count)
        if isinstance(spec, dict) and spec.get("kind") == "laplace":
            return [laplace_term(float(spec["scale"]), float(spec["sensitivity"]), count)]
    except (KeyError, TypeError, ValueError, InputError):
        pass  # a malformed spec falls back to the entry's own (ε, δ), which is always valid
    return [eps_delta_term(epsilon, delta, count)]


@dataclass(frozen=True)
class PldComposition:
    """ε at δ of a composition (``math.inf`` when a term is unbounded)."""

    epsilon: float
    delta: float
    discretization: float
    slack: float
    terms: int
    reason: str = ""
    label: str = PLD_LABEL
    applicable: bool = True  # False: the PLD could not be formed (losses beyond its range)

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.epsilon)


def compose(terms: Sequence[PldTerm], delta: float, *,
            discretization: float | None = None) -> PldComposition:
    """ε at ``delta`` of all ``terms`` composed (each its ``count`` times).

    Parameters
    ----------
    terms : sequence of PldTerm
        The mechanisms.
    delta : float
        δ̂ in (0, 1).
    discretization : float, optional
        The loss grid h (default: from the terms' ranges, at least 1e-4).

    Returns
    -------
    PldComposition
    """
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
    ts = [t for t in terms if t.count > 0]
    n = sum(t.count for t in ts)
    slack = 1e-12 * (1 + n)
    if any(not t.bounded for t in ts):
        bad = [t.label or t.kind for t in ts if not t.bounded]
        return PldComposition(math.inf, float(delta), 0.0, slack, n,
                              reason=f"{len(bad)} release(s) without a finite epsilon")
    ts = [t for t in ts if t.kind != "identity"]
    if not ts:
        return PldComposition(0.0, float(delta), 0.0, slack, n)
    if max(t.loss_range() for t in ts) > _MAX_LOSS:
        return PldComposition(math.inf, float(delta), 0.0, slack, n,
                              reason=f"a release's privacy loss exceeds {_MAX_LOSS:g}, beyond "
                                     "the range where its distribution can be formed in "
                                     "floating point; basic composition applies",
                              applicable=False)
    h = discretization or max(_MIN_H, max(t.loss_range() for t in ts) / _POINTS)
    total = None
    for t in ts:
        p = t.pld(h)
        p = p.self_compose(t.count) if t.count > 1 else p
        total = p if total is None else total.compose(p)
    assert total is not None
    target = float(delta) - slack
    if target <= 0:
        raise InputError(f"delta = {delta:g} is below the composition's numerical slack "
                         f"{slack:.1e}", field="delta")
    eps = float(total.get_epsilon_for_delta(target))
    return PldComposition(max(eps, 0.0), float(delta), h, slack, n)
