"""Audit target for the sanity check of spec B20: the Gaussian mechanism N(x, 1), |x − x′| <= μ.

Claim: the exact (tight) ε(δ) of the Gaussian mechanism (Balle & Wang 2018; spec Thm 5.1):
δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), inverted by bisection (in log space through
``log_ndtr``). At μ = 1, δ = 1e-4 that is 3.804436 (spec B10), and ε_lb must stay below it.
Not a PrivPlan release mechanism: it checks the audit itself.

Examples
--------
>>> round(claimed(None, GaussianVariant(mu=1.0, delta=1e-4))[0], 6)
3.804436
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_ndtr, ndtr

from core.audit.stats import bisect_epsilon
from core.audit.target import number
from core.common.errors import InputError
from core.common.validation import check_positive

__all__ = ["LABEL", "DEFAULT_SAMPLES", "GaussianVariant", "delta_of", "epsilon_of", "parameters",
           "claimed", "candidate_pairs", "sample_outputs", "exact_distribution", "tight_epsilon",
           "exact_roc",
           "RELEASE_PATH", "variant_from"]

LABEL = "Gaussian mechanism (audit sanity check)"
DEFAULT_SAMPLES = 200_000
RELEASE_PATH = False  # a sanity check of the audit itself: PrivPlan releases nothing through it


@dataclass(frozen=True)
class GaussianVariant:
    mu: float = 1.0
    delta: float = 1e-4

    def __post_init__(self) -> None:
        check_positive(self.mu, "mu")
        if not (isinstance(self.delta, (int, float)) and 0 < self.delta < 1):
            raise InputError(f"must lie in (0, 1), got {self.delta!r}", field="delta")


def delta_of(epsilon: float, mu: float) -> float:
    """Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the second term in log space.

    Parameters
    ----------
    epsilon : float
        ε.
    mu : float
        The distance of the pair over σ.

    Returns
    -------
    float
        δ(ε) of the Gaussian mechanism (Balle & Wang), >= 0.
    """
    a = float(ndtr(-epsilon / mu + mu / 2))
    b = math.exp(epsilon + float(log_ndtr(-epsilon / mu - mu / 2)))
    return max(0.0, a - b)


def epsilon_of(delta: float, mu: float) -> float:
    """The smallest ε with :func:`delta_of` (ε, μ) <= δ.

    Parameters
    ----------
    delta : float
        δ.
    mu : float
        The distance of the pair over σ.

    Returns
    -------
    float
    """
    return bisect_epsilon(lambda e: delta_of(e, mu), delta, hi=1.0, tol=1e-12)


def variant_from(params: Mapping[str, Any]) -> tuple[None, GaussianVariant]:
    """The :class:`GaussianVariant` from the audit's keyword parameters (no ε argument)."""
    return None, GaussianVariant(mu=number(params, "mu"), delta=number(params, "delta"))

def parameters(epsilon: Any, variant: GaussianVariant) -> dict[str, Any]:
    """The public parameters of the audited mechanism (reported with the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    dict
    """
    return {"mu": variant.mu, "sigma": 1.0, "delta": variant.delta}


def claimed(epsilon: Any, variant: GaussianVariant) -> tuple[float, float, str]:
    """

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    return (epsilon_of(variant.delta, variant.mu), variant.delta,
            f"inputs x, x' with |x - x'| <= mu = {variant.mu:g}, noise N(0, 1)")


def candidate_pairs(epsilon: Any, variant: GaussianVariant) -> list[tuple[Any, Any, Any]]:
    """Neighbouring inputs under the claimed adjacency, the worst known case among them.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    m = variant.mu
    return [({"a": 0.0, "b": m, "description": "inputs at distance mu"}, 0.0, m),
            ({"a": 0.0, "b": m / 2, "description": "inputs at distance mu/2"}, 0.0, m / 2)]


def sample_outputs(inp: Any, n: int, rng: np.random.Generator | None, epsilon: Any,
                   variant: GaussianVariant) -> np.ndarray:
    """

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
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    if rng is None:
        raise InputError("needs a numpy Generator (no release path)", field="rng")
    return (float(inp) + rng.standard_normal(n)).reshape(n, 1)


def exact_distribution(inp: Any, epsilon: Any, variant: GaussianVariant) -> None:
    """The exact law of :func:`sample_outputs`' codes, when it can be computed.

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    return None


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: GaussianVariant
                  ) -> tuple[float, str]:
    """The exact ε at δ of one pair (a proven lower bound of the mechanism's ε).

    Parameters
    ----------
    a, b : Any
        The pair's two inputs (as :func:`candidate_pairs` gives them).
    delta : float
        δ at which ε is computed.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    (float, str)
        ε_tight and the method used.
    """
    return epsilon_of(delta, abs(float(b) - float(a))), "closed form (Gaussian, Balle-Wang)"


def exact_roc(a: Any, b: Any, epsilon: Any, variant: GaussianVariant
              ) -> tuple[np.ndarray, np.ndarray]:
    """

    Parameters
    ----------
    a, b : Any
        The pair's two inputs (as :func:`candidate_pairs` gives them).
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : GaussianVariant
        The public parameters: μ and δ.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray) or None
        (FPR, TPR) of the optimal test, used only to rank pairs.
    """
    lo, hi = sorted((float(a), float(b)))
    t = np.linspace(lo - 8, hi + 8, 600)
    return ndtr(lo - t), ndtr(hi - t)
