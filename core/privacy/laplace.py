"""Additive Laplace noise and the exponential mechanism, in both randomness modes.

* Release mode (``rng=None``): noise comes from OpenDP. Laplace noise uses
  ``make_laplace``; the exponential mechanism uses ``make_noisy_max`` with Gumbel noise
  (OpenDP's zero-concentrated-divergence variant), whose output distribution is exactly
  the exponential mechanism's, P[i] ∝ exp(u_i / scale), with scale = 2Δ/ε (or Δ/ε for
  monotone utilities). PrivPlan accounts it as ε-DP (McSherry & Talwar 2007).
* Seeded experiment mode (int seed or numpy Generator): numpy, reproducible, not for
  real releases.

Every function validates ε and the sensitivity eagerly and names the parameter.

Examples
--------
>>> import numpy as np
>>> x = laplace_release(np.zeros(3), epsilon=1.0, sensitivity=1.0, rng=0)
>>> x.shape
(3,)
>>> exponential_mechanism([0.0, 0.0, 100.0], epsilon=1.0, sensitivity=1.0, rng=1)
2
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.validation import RandomSource, as_random_source

__all__ = ["check_epsilon", "laplace_scale", "laplace_release", "exponential_mechanism",
           "exponential_probabilities", "MIN_EPSILON"]

#: Smallest ε accepted: the noise scale stays within 1e9 × the sensitivity.
MIN_EPSILON = 1e-9


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """``epsilon`` as a float, checked to be a finite number > 0.

    Parameters
    ----------
    epsilon : Any
        The value to check.
    name : str
        The field named in the error.

    Returns
    -------
    float
        ε.

    Raises
    ------
    InputError
        If ε is not a finite number >= :data:`MIN_EPSILON`.
    """
    if isinstance(epsilon, bool):  # float(True) is 1.0: a flag is not a privacy parameter
        raise InputError(f"must be a number > 0, got {epsilon!r}", field=name)
    try:
        e = float(epsilon)
    except (TypeError, ValueError):
        raise InputError(f"must be a number > 0, got {epsilon!r}", field=name) from None
    if not math.isfinite(e) or e <= 0:
        raise InputError(f"must be a finite number > 0, got {epsilon!r}", field=name)
    if e < MIN_EPSILON:
        raise InputError(f"must be at least {MIN_EPSILON:g}, got {e:g} (below it the noise "
                         "scale passes a billion times the sensitivity: the output carries "
                         "no information and numbers overflow)", field=name)
    return e


def _check_sensitivity(sensitivity: Any) -> float:
    try:
        s = float(sensitivity)
    except (TypeError, ValueError):
        raise InputError(f"must be a number > 0, got {sensitivity!r}",
                         field="sensitivity") from None
    if not math.isfinite(s) or s <= 0:
        raise InputError(f"must be a finite number > 0, got {sensitivity!r}",
                         field="sensitivity")
    return s


def laplace_scale(epsilon: float, sensitivity: float) -> float:
    """The Laplace scale b = Δ/ε: Laplace(b) noise on a query of L1 sensitivity Δ is ε-DP.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0, the L1 sensitivity of the query under the stated adjacency.

    Returns
    -------
    float
        b = Δ/ε.
    """
    return _check_sensitivity(sensitivity) / check_epsilon(epsilon)


@lru_cache(maxsize=64)
def _opendp_laplace(scale: float, vector: bool) -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    atom = dp.atom_domain(T=float, nan=False)
    if vector:
        return dp.m.make_laplace(dp.vector_domain(atom), dp.l1_distance(T=float), scale=scale)
    return dp.m.make_laplace(atom, dp.absolute_distance(T=float), scale=scale)


@lru_cache(maxsize=64)
def _opendp_gumbel_max(scale: float) -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                               dp.linf_distance(T=float, monotonic=False),
                               dp.zero_concentrated_divergence(), scale=scale)


def laplace_release(value: "np.ndarray | float", *, epsilon: float, sensitivity: float,
                    rng: "np.random.Generator | int | RandomSource | None" = None) -> np.ndarray:
    """``value`` plus Laplace(Δ/ε) noise on every entry (ε-DP for an L1-sensitivity-Δ query).

    Parameters
    ----------
    value : ndarray or float
        The true answer (finite).
    epsilon : float
        ε > 0 of the whole release (Δ is the L1 sensitivity of the whole vector).
    sensitivity : float
        Δ > 0.
    rng : Generator, int, RandomSource or None
        A seed or generator: seeded experiment (numpy noise); None: release mode (OpenDP).

    Returns
    -------
    ndarray
        The noisy answer, same shape as ``value``.
    """
    scale = laplace_scale(epsilon, sensitivity)
    x = np.asarray(value, dtype=np.float64)
    if not np.isfinite(x).all():
        raise InputError("values to release must be finite", field="value")
    src = as_random_source(rng)
    if src.mode == "release":
        if x.ndim == 0:
            return np.asarray(_opendp_laplace(scale, False)(float(x)))
        flat = _opendp_laplace(scale, True)(x.ravel().tolist())
        return np.asarray(flat, dtype=np.float64).reshape(x.shape)
    result: np.ndarray = x + src.generator.laplace(0.0, scale, size=x.shape)
    return result


def exponential_probabilities(utilities: "np.ndarray | list[float]", *, epsilon: float,
                              sensitivity: float, monotonic: bool = False) -> np.ndarray:
    """The exponential mechanism's output distribution: P[i] ∝ exp(ε·u_i / (2Δ)).

    Parameters
    ----------
    utilities : array-like
        u_i, one per candidate.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0, the utility's sensitivity.
    monotonic : bool
        Monotone utilities: exp(ε·u_i / Δ) instead.

    Returns
    -------
    ndarray
        The probabilities (sum 1).
    """
    u = np.asarray(utilities, dtype=np.float64)
    factor = check_epsilon(epsilon) / ((1.0 if monotonic else 2.0) * _check_sensitivity(
        sensitivity))
    z = factor * (u - u.max())
    p = np.exp(z)
    result: np.ndarray = p / p.sum()
    return result


def exponential_mechanism(utilities: "np.ndarray | list[float]", *, epsilon: float,
                          sensitivity: float, monotonic: bool = False,
                          rng: "np.random.Generator | int | RandomSource | None" = None) -> int:
    """The index chosen by the exponential mechanism (ε-DP for utility sensitivity Δ).

    Parameters
    ----------
    utilities : array-like
        u_i, one per candidate (finite, non-empty).
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0.
    monotonic : bool
        Monotone utilities (half the noise).
    rng : Generator, int, RandomSource or None
        A seed or generator: seeded experiment (Gumbel-max with numpy); None: release mode
        (OpenDP's noisy max).

    Returns
    -------
    int
        The chosen index.
    """
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.isfinite(u).all():
        raise InputError("must be a non-empty list of finite numbers", field="utilities")
    scale = (1.0 if monotonic else 2.0) * _check_sensitivity(sensitivity) / check_epsilon(epsilon)
    src = as_random_source(rng)
    if src.mode == "release":
        return int(_opendp_gumbel_max(scale)(u.tolist()))
    g = src.generator.gumbel(size=u.size) if hasattr(src.generator, "gumbel") else None
    if g is None:  # pragma: no cover - numpy generators have gumbel
        raise TypeError("the experiment generator must provide gumbel()")
    return int(np.argmax(u / scale + g))
