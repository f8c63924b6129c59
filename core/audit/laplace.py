"""Audit target: the Laplace mechanism of :func:`core.privacy.laplace.laplace_release`.

Claim: Laplace(Δ/ε) noise on a query of L1 sensitivity Δ is ε-DP (δ = 0) for inputs
(query answers) x, x′ with ‖x − x′‖₁ ≤ Δ. Candidate pairs: scalar answers 0 and Δ (the
worst case), 0 and Δ/2, and a two-dimensional answer moved by Δ/2 in each coordinate.

Samples are the released values themselves (the observer sees the noisy answer). In
release mode they come from the release path (OpenDP's Laplace sampler), otherwise from
the seeded experiment path of the same function.

ε_tight is closed form: the privacy loss of a pair at L1 distance d is
(|x − b| − |x − a|)/s ∈ [−d/s, d/s], so the pair is (d/s, 0)-DP and no better; for a
scalar pair δ(ε) = 1 − exp((ε − d/s)/2) for ε < d/s (hockey-stick divergence of two
Laplace laws). The optimal test of a scalar pair is a threshold on the output, whose
exact ROC ranks the pairs.

``noise_factor`` is a *test knob*: the sampled scale is noise_factor·Δ/ε while the claim
stays ε (noise_factor < 1 is a deliberately broken mechanism the audit must catch).

Examples
--------
>>> v = LaplaceVariant(sensitivity=1.0)
>>> claimed(1.0, v)[:2]
(1.0, 0.0)
>>> tight_epsilon(0.0, 1.0, 0.0, 1.0, v)
(1.0, 'closed form (Laplace privacy loss)')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.audit.target import number
from core.common.errors import InputError
from core.common.validation import check_sensitivity
from core.privacy.laplace import check_epsilon, laplace_release, laplace_scale

__all__ = ["LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "LaplaceVariant", "parameters", "claimed",
           "candidate_pairs", "sample_outputs", "exact_distribution", "tight_epsilon", "exact_roc",
           "variant_from"]

LABEL = "Laplace mechanism"
DEFAULT_SAMPLES = 200_000
RELEASE_PATH = True


@dataclass(frozen=True)
class LaplaceVariant:
    """Public parameters: the query's L1 sensitivity Δ (and the test-only noise factor)."""

    sensitivity: float = 1.0
    noise_factor: float = 1.0

    def __post_init__(self) -> None:
        laplace_scale(1.0, self.sensitivity)  # validates Δ (field "sensitivity")
        check_sensitivity(self.sensitivity)  # far from the float range's ends
        f = self.noise_factor
        if not (isinstance(f, (int, float)) and math.isfinite(f) and f > 0):
            raise InputError(f"must be a finite number > 0, got {f!r}", field="noise_factor")


def variant_from(params: Mapping[str, Any]) -> tuple[float, LaplaceVariant]:
    """ε and the :class:`LaplaceVariant` from the audit's keyword parameters."""
    return check_epsilon(params["epsilon"]), LaplaceVariant(
        sensitivity=number(params, "sensitivity"), noise_factor=number(params, "noise_factor"))


def _scale(epsilon: float, v: LaplaceVariant) -> float:
    return v.noise_factor * laplace_scale(epsilon, v.sensitivity)


def parameters(epsilon: float, variant: LaplaceVariant) -> dict[str, Any]:
    """The public parameters of the audited mechanism (reported with the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    dict
    """
    d = {"epsilon": epsilon, "sensitivity": variant.sensitivity,
         "scale": _scale(epsilon, variant)}
    if variant.noise_factor != 1.0:
        d["noise_factor"] = variant.noise_factor
    return d


def claimed(epsilon: float, variant: LaplaceVariant) -> tuple[float, float, str]:
    """

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    e = check_epsilon(epsilon)
    return (e, 0.0, f"query answers x, x' with ||x - x'||_1 <= {variant.sensitivity:g} "
                    f"(L1 sensitivity); Laplace scale sensitivity/epsilon = "
                    f"{laplace_scale(e, variant.sensitivity):g}")


def candidate_pairs(epsilon: float, variant: LaplaceVariant) -> list[tuple[Any, Any, Any]]:
    """Neighbouring inputs under the claimed adjacency, the worst known case among them.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    d = variant.sensitivity
    return [
        ({"a": 0.0, "b": d, "description": "scalar answers at distance sensitivity"},
         0.0, d),
        ({"a": 0.0, "b": d / 2, "description": "scalar answers at distance sensitivity/2"},
         0.0, d / 2),
        ({"a": [0.0, 0.0], "b": [d / 2, d / 2],
          "description": "2-d answers, L1 distance sensitivity split over both entries"},
         (0.0, 0.0), (d / 2, d / 2)),
    ]


def sample_outputs(inp: Any, n: int, rng: np.random.Generator | None, epsilon: float,
                   variant: LaplaceVariant) -> np.ndarray:
    """n released values of ``inp`` (shape (n, d)); ``rng=None``: OpenDP release path.

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
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    x = np.atleast_1d(np.asarray(inp, dtype=np.float64))
    eff = epsilon / variant.noise_factor  # the ε whose scale Δ/ε is actually sampled
    out = laplace_release(np.tile(x, (n, 1)), epsilon=eff, sensitivity=variant.sensitivity,
                          rng=rng)
    return np.asarray(out, dtype=np.float64).reshape(n, x.size)


def exact_distribution(inp: Any, epsilon: float, variant: LaplaceVariant) -> None:
    """The exact law of :func:`sample_outputs`' codes, when it can be computed.

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    return None  # continuous output


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: float, variant: LaplaceVariant
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
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    (float, str)
        ε_tight and the method used.
    """
    mu = float(np.abs(np.atleast_1d(np.asarray(a, float)) -
                      np.atleast_1d(np.asarray(b, float))).sum()) / _scale(epsilon, variant)
    if np.ndim(a) == 0 and delta > 0:
        # δ(ε) = 1 − exp((ε − μ)/2) on [0, μ]  ⇒  ε(δ) = max(0, μ + 2 ln(1 − δ))
        return max(0.0, mu + 2.0 * math.log1p(-delta)), "closed form (Laplace privacy loss)"
    return mu, "closed form (Laplace privacy loss)"


def exact_roc(a: Any, b: Any, epsilon: float, variant: LaplaceVariant
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """ROC of the threshold test {x >= t} (a < b scalars); None for vector pairs.

    Parameters
    ----------
    a, b : Any
        The pair's two inputs (as :func:`candidate_pairs` gives them).
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : LaplaceVariant
        The public parameters: sensitivity and dimension.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray) or None
        (FPR, TPR) of the optimal test, used only to rank pairs.
    """
    if np.ndim(a) != 0 or np.ndim(b) != 0:
        return None
    lo, hi = sorted((float(a), float(b)))
    s = _scale(epsilon, variant)
    t = np.concatenate([lo + s * np.linspace(-15, 0, 200), np.linspace(lo, hi, 50),
                        hi + s * np.linspace(0, 15, 200)])

    def sf(x: np.ndarray, m: float) -> np.ndarray:
        z = (x - m) / s
        return np.where(z >= 0, 0.5 * np.exp(-np.abs(z)), 1 - 0.5 * np.exp(-np.abs(z)))

    return sf(t, lo), sf(t, hi)
