"""Audit target: the exponential mechanism of :func:`core.privacy.laplace.exponential_mechanism`.

Claim: choosing i with probability ∝ exp(ε·u_i/(2Δ)) is ε-DP (δ = 0) for utility vectors
u, u′ with max_i |u_i − u′_i| ≤ Δ; with ``monotonic`` (every utility moves the same way)
the factor is ε·u_i/Δ under the same claim.

Candidate pairs (two candidates, which is the worst case: with more candidates the
others aggregate). Non-monotone: u = (0, s) and u′ = (−Δ, s + Δ); monotone:
u = (0, s), u′ = (0, s + Δ). Either way P[0]/P′[0] = (1 + e^{x+ε})/(1 + e^x) with
x = s·ε/(2Δ) (resp. s·ε/Δ), which tends to e^ε as x grows while P[0] shrinks: the grid of
x trades ratio against how often outcome 0 is seen; the exact ROC picks the best.

The output is the chosen index (an int code). In release mode it is drawn through
OpenDP's Gumbel noisy-max (the release path), otherwise with seeded Gumbel noise.
ε_tight is exact from the two output distributions. ``noise_factor`` is a test knob
(the sampled ε is ε/noise_factor while the claim stays ε).

Examples
--------
>>> v = ExponentialVariant()
>>> claimed(1.0, v)[:2]
(1.0, 0.0)
>>> len(candidate_pairs(1.0, v)) > 3
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.audit.target import number
from core.common.errors import InputError
from core.common.validation import check_flag, check_sensitivity
from core.privacy.laplace import (
    check_epsilon,
    exponential_mechanism,
    exponential_probabilities,
    laplace_scale,
)

__all__ = ["LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "ExponentialVariant", "parameters",
           "claimed", "candidate_pairs", "sample_outputs", "exact_distribution",
           "variant_from", "tight_epsilon", "exact_roc"]

LABEL = "exponential mechanism"
DEFAULT_SAMPLES = 100_000
RELEASE_PATH = True
_X_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


@dataclass(frozen=True)
class ExponentialVariant:
    """Public parameters: the utility sensitivity Δ, monotone utilities, test knob."""

    sensitivity: float = 1.0
    monotonic: bool = False
    noise_factor: float = 1.0

    def __post_init__(self) -> None:
        laplace_scale(1.0, self.sensitivity)
        check_sensitivity(self.sensitivity)  # far from the float range's ends
        f = self.noise_factor
        if not (isinstance(f, (int, float)) and math.isfinite(f) and f > 0):
            raise InputError(f"must be a finite number > 0, got {f!r}", field="noise_factor")


def variant_from(params: Mapping[str, Any]) -> tuple[float, ExponentialVariant]:
    """ε and the :class:`ExponentialVariant` from the audit's keyword parameters."""
    return check_epsilon(params["epsilon"]), ExponentialVariant(
        sensitivity=number(params, "sensitivity"),
        monotonic=check_flag(params["monotonic"], "monotonic"),
        noise_factor=number(params, "noise_factor"))

def parameters(epsilon: float, variant: ExponentialVariant) -> dict[str, Any]:
    """The public parameters of the audited mechanism (reported with the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : ExponentialVariant
        The public parameters: utilities' sensitivity and form.

    Returns
    -------
    dict
    """
    d = {"epsilon": epsilon, "sensitivity": variant.sensitivity,
         "monotonic": variant.monotonic}
    if variant.noise_factor != 1.0:
        d["noise_factor"] = variant.noise_factor
    return d


def claimed(epsilon: float, variant: ExponentialVariant) -> tuple[float, float, str]:
    """

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : ExponentialVariant
        The public parameters: utilities' sensitivity and form.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    e = check_epsilon(epsilon)
    adj = f"utility vectors u, u' with max_i |u_i - u'_i| <= {variant.sensitivity:g}"
    if variant.monotonic:
        adj += " that all move in the same direction (monotone utilities)"
    return e, 0.0, adj


def candidate_pairs(epsilon: float, variant: ExponentialVariant
                    ) -> list[tuple[Any, Any, Any]]:
    """Neighbouring inputs under the claimed adjacency, the worst known case among them.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : ExponentialVariant
        The public parameters: utilities' sensitivity and form.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    d = variant.sensitivity
    per = epsilon / ((1.0 if variant.monotonic else 2.0) * d)  # utility → log-weight
    out = []
    for x in _X_GRID:
        s = x / per
        if variant.monotonic:
            a, b = (0.0, s), (0.0, s + d)
        else:
            a, b = (0.0, s), (-d, s + d)
        out.append(({"a": list(a), "b": list(b),
                     "description": f"two candidates, log-weight gap {x:g}"}, a, b))
    return out


def sample_outputs(inp: Any, n: int, rng: np.random.Generator | None, epsilon: float,
                   variant: ExponentialVariant) -> np.ndarray:
    """n chosen indices; ``rng=None``: one OpenDP noisy-max release per output.

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
    variant : ExponentialVariant
        The public parameters: utilities' sensitivity and form.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    u = np.asarray(inp, dtype=np.float64)
    eff = epsilon / variant.noise_factor
    if rng is None:
        return np.array([exponential_mechanism(u, epsilon=eff, sensitivity=variant.sensitivity,
                                               monotonic=variant.monotonic, rng=None)
                         for _ in range(n)], dtype=np.int64)
    # the experiment path of exponential_mechanism, vectorised: argmax(u/scale + Gumbel)
    scale = (1.0 if variant.monotonic else 2.0) * variant.sensitivity / eff
    g = rng.gumbel(size=(n, u.size))
    result: np.ndarray = np.argmax(u / scale + g, axis=1).astype(np.int64)
    return result


def exact_distribution(inp: Any, epsilon: float, variant: ExponentialVariant
                       ) -> dict[int, float]:
    """The exact law of :func:`sample_outputs`' codes, when it can be computed.

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : ExponentialVariant
        The public parameters: utilities' sensitivity and form.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    p = exponential_probabilities(np.asarray(inp, float), epsilon=epsilon / variant.noise_factor,
                                  sensitivity=variant.sensitivity, monotonic=variant.monotonic)
    return {i: float(x) for i, x in enumerate(p)}


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: Any
                  ) -> tuple[float, str] | None:
    """No closed form for the pair (:meth:`core.audit.target.AuditTarget.tight_epsilon`):
    the runner uses the exact output distributions where there are any."""
    return None


def exact_roc(a: Any, b: Any, epsilon: Any, variant: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """No optimal-test ROC in closed form (:meth:`core.audit.target.AuditTarget.exact_roc`):
    the runner ranks the pairs from the exact distributions or a pre-screen."""
    return None
