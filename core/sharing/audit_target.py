"""Audit target: the shared-policy mechanism ([KS] Theorem 1's setting, spec F1/F3).

It lives with the capability it audits (the audit layer sits below ``core.sharing``) and is
found by :data:`core.audit.MECHANISMS` through its module path.

A teacher's policy π ∈ Δ_{m,η} is released as x ~ Dir(k·π); neighbours differ by at most
``lb`` = L·b in ℓ2, in any of their entries. Claim: the mechanism's own accountant
(:func:`core.sharing.mechanism.row_privacy_l2`: the certified exact profile by default, or
eq. 12). Pairs searched: two-entry moves at the vertex and at the uniform policy (as the
sharing workspace's tight curve always did) and the multi-entry moves the certified search
finds worst (several entries gain, one loses — an ℓ2 ball reaches further that way), on
feasible rows of the domain. ε_tight is exact up to a pessimistic/optimistic
discretisation: the pair is a product of one-dimensional Gamma pairs
(:mod:`core.sharing.profile`), read here from *below* (a proven lower bound of the pair's ε).

Examples
--------
>>> v = SharingVariant(k=5.0, m=3, eta=0.1, lb=0.05, delta=1e-3)
>>> eps, delta, _ = claimed(None, v)
>>> eps > 0 and delta == 1e-3
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from core.audit.target import number
from core.common.errors import InputError
from core.common.validation import check_int
from core.privacy.dirichlet import dirichlet_rows

__all__ = ["LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "SharingVariant", "parameters",
           "claimed", "candidate_pairs", "sample_outputs", "exact_distribution",
           "tight_epsilon", "pair_epsilon",
           "variant_from", "exact_roc"]

LABEL = "Shared-policy mechanism (ℓ2 adjacency)"
DEFAULT_SAMPLES = 100_000
RELEASE_PATH = True


@dataclass(frozen=True)
class SharingVariant:
    """Public parameters of one shared policy and its claim."""

    k: float
    m: int
    eta: float
    lb: float
    delta: float
    bound: str = "profile"

    def __post_init__(self) -> None:
        from core.sharing.mechanism import ACCOUNTANTS, check_sharing

        check_sharing(int(self.m), float(self.eta), k=float(self.k), lb=float(self.lb))
        if self.bound not in ACCOUNTANTS:
            raise InputError(f"must be one of {', '.join(ACCOUNTANTS)}, got {self.bound!r}",
                             field="bound")
        if not 0 < self.delta < 1:
            raise InputError(f"must lie in (0, 1), got {self.delta!r}", field="delta")


@lru_cache(maxsize=16)
def _claim(v: SharingVariant) -> Any:
    from core.sharing.mechanism import row_privacy_l2

    return row_privacy_l2(v.k, v.m, v.eta, v.lb, delta=v.delta, bound=v.bound, rng=0)


def variant_from(params: Mapping[str, Any]) -> tuple[None, SharingVariant]:
    """The :class:`SharingVariant` from the audit's keyword parameters (no ε argument)."""
    m = params["m"]
    try:
        m = int(m) if float(m) == int(float(m)) else m
    except (TypeError, ValueError):
        pass
    return None, SharingVariant(
        k=number(params, "k"), m=check_int(m, "m"), eta=number(params, "eta"),
        lb=number(params, "lb"), delta=number(params, "delta"), bound=str(params["bound"]))

def parameters(epsilon: Any, variant: SharingVariant) -> dict[str, Any]:
    """The public parameters reported with the audit.

    Parameters
    ----------
    epsilon : Any
        Unused (the claim comes from the accountant).
    variant : SharingVariant
        k, m, η, L·b, δ and the accountant.

    Returns
    -------
    dict
    """
    return {"k": variant.k, "m": variant.m, "eta": variant.eta, "lb": variant.lb,
            "delta_target": variant.delta, "bound": variant.bound}


def claimed(epsilon: Any, variant: SharingVariant) -> tuple[float, float, str]:
    """(ε claimed, δ claimed, adjacency) from the mechanism's own accountant.

    Parameters
    ----------
    epsilon : Any
        Unused.
    variant : SharingVariant
        The public parameters.

    Returns
    -------
    tuple
    """
    r = _claim(variant)
    return float(r.epsilon), float(r.delta), r.adjacency


def _rows(bases: np.ndarray, moves: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
    p = bases + np.maximum(moves, 0.0)
    q = bases + np.maximum(-moves, 0.0)
    return p, q


def candidate_pairs(epsilon: Any, variant: SharingVariant) -> list[tuple[Any, Any, Any]]:
    """Neighbouring policies: two-entry moves and the worst multi-entry moves found.

    Parameters
    ----------
    epsilon : Any
        Unused.
    variant : SharingVariant
        The public parameters.

    Returns
    -------
    list of (dict, numpy.ndarray, numpy.ndarray)
    """
    from core.sharing.mechanism import neighbour_pairs
    from core.sharing.profile import l2_profile

    v = variant
    m, eta, r = int(v.m), float(v.eta), float(v.lb)
    out = []
    for p, q in neighbour_pairs(m, eta, r):
        out.append(({"p": p.round(12).tolist(), "q": q.round(12).tolist(),
                     "description": "two-entry move"}, p, q))
    prof = l2_profile(v.k, m, eta, r, delta=v.delta, budget=60)
    found = np.array(prof.worst_moves)
    if found.size:
        moves = np.zeros(m)
        moves[:found.size] = found
        free = 1.0 - m * eta - float(np.maximum(moves, 0.0).sum())
        for j in range(m):  # the excess mass on each entry in turn (both directions)
            bases = np.full(m, eta)
            bases[j] += free
            p, q = _rows(bases, moves, eta)
            if min(p.min(), q.min()) < eta - 1e-12:
                continue
            for a, b in ((p, q), (q, p)):
                out.append(({"p": a.round(12).tolist(), "q": b.round(12).tolist(),
                             "description": f"{int((found > 0).sum())} entries gain, "
                                            f"{int((found < 0).sum())} lose (excess on entry "
                                            f"{j})"}, a, b))
    return out


def sample_outputs(inp: Any, n: int, rng: np.random.Generator | None, epsilon: Any,
                   variant: SharingVariant) -> np.ndarray:
    """ln x for n draws x ~ Dir(k·π) (``rng=None``: the release sampler).

    Parameters
    ----------
    inp : numpy.ndarray
        The policy π.
    n : int
        Draws.
    rng : numpy.random.Generator or None
        Seeded draws or the release path.
    epsilon : Any
        Unused.
    variant : SharingVariant
        The public parameters.

    Returns
    -------
    numpy.ndarray
        (n, m) features.
    """
    p = np.asarray(inp, dtype=np.float64)
    result: np.ndarray = np.log(dirichlet_rows(np.tile(p, (n, 1)), variant.k, rng))
    return result


def exact_distribution(inp: Any, epsilon: Any, variant: SharingVariant) -> None:
    """Continuous outputs: no finite distribution.

    Parameters
    ----------
    inp, epsilon, variant :
        As in the interface.
    """
    return None


def pair_epsilon(a: np.ndarray, b: np.ndarray, k: float, delta: float) -> float:
    """A proven lower bound of ε(δ) of the pair (both directions): a product of Gamma pairs.

    Parameters
    ----------
    a, b : numpy.ndarray
        Neighbouring policies.
    k : float
        Concentration.
    delta : float
        δ.

    Returns
    -------
    float
    """
    from core.sharing.profile import product_epsilon

    a, b = np.asarray(a, float), np.asarray(b, float)
    best = 0.0
    for x, y in ((a, b), (b, a)):
        diff = x - y
        moving = np.abs(diff) > 1e-15
        if not moving.any():
            continue
        moves = [(float(abs(d)), bool(d > 0)) for d in diff[moving]]
        bases = np.minimum(x, y)[moving].tolist()
        best = max(best, product_epsilon(moves, k, 0.0, delta, bases=bases,
                                         pessimistic=False))
    return best


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: SharingVariant
                  ) -> tuple[float, str]:
    """The pair's ε at δ from below (exact up to discretisation).

    Parameters
    ----------
    a, b : Any
        The pair.
    delta : float
        δ.
    epsilon : Any
        Unused.
    variant : SharingVariant
        The public parameters.

    Returns
    -------
    (float, str)
    """
    return (pair_epsilon(a, b, variant.k, delta),
            "exact product of Gamma pairs, optimistic discretisation (a lower bound)")


def exact_roc(a: Any, b: Any, epsilon: Any, variant: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """No optimal-test ROC in closed form (:meth:`core.audit.target.AuditTarget.exact_roc`):
    the runner ranks the pairs from the exact distributions or a pre-screen."""
    return None


if TYPE_CHECKING:  # mypy checks this module against the audit's protocol
    import core.sharing.audit_target as _this
    from core.audit.target import AuditTarget

    _checked: AuditTarget = _this
