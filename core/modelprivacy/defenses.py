"""Defenses of the model privacy lab and their accounting (Qt-free).

**Gaussian post-training mechanism (GPM)** — the RNN paper's Alg. 1 (dissertation Alg. 2):
train θ once, draw θ̃ = θ + N(0, σ²I) once (σ a *standard deviation*; the algorithm's text
says "variance", spec §2.6), answer every query with θ̃. δ(ε) of the Gaussian mechanism is
Thm 5.1 (Dong, Roth, Su) with μ = S̄/σ. S̄ is *empirical*: the SensitivitySampler (Alg. 2/3)
trains n pairs of replace-one neighbouring data sets drawn from the data source and keeps the
largest ‖θ − θ′‖₂. Thm 5.3 (Hall et al.) turns that into **random DP**: with probability
≥ 1 − γ(n) over the data sets, (ε, δ)-DP holds; γ(n) from eq. 12 with Lambert W₋₁. This is
weaker than DP (the sampler never sees the worst pair); every result says so.

**One-parameter defense** — Shen's thesis ch. 6, Alg. 12 + eq. 6.2, with the spec's errata:

* A20: sub-range i is [lo_i, hi_i) between the midpoints of the sorted scores (0 and 1 at the
  ends); its m candidates are lo_i + j·ρ_i with ρ_i = (hi_i − lo_i)/m.
* A21: the printed utility 1/|y_i − c| is unbounded (Δu undefined). ``sound`` (default) uses
  u = −|y_i − c| with Δu = 1; ``thesis`` keeps 1/(|y_i − c| + 1e-6) with Δu = 1, labelled
  *not formally DP*.
* Thm 6.1: a released vector is (k·ε)-DP (k exponential-mechanism choices) for neighbouring
  *score vectors* with ‖ŷ − y‖₁ ≤ 1 and the same sub-ranges. That is a statement about the
  confidence vector, not about membership of a training record; b queries of the same x
  compose to b·k·ε (Thm 6.3 gives the thesis's query bound). The sub-range boundaries are
  computed from y itself and shape the output: they are not protected.
* A22: eq. 6.5 (z = y) is over-determined for k > 2; ε* comes from the (max, min) pair as in
  Thm 6.4's proof, the least-squares ε* over all log-ratios is shown beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
from scipy.special import lambertw

from core.common.errors import InputError
from core.common.validation import check_positive

if TYPE_CHECKING:
    from core.common.secure import SecureRandom

__all__ = ["gamma_n", "rho_n", "gaussian_delta", "gaussian_epsilon", "gaussian_mu",
           "gpm_sigma", "thm52_bound", "sensitivity_sampler", "SensitivityEstimate",
           "oneparam_candidates", "oneparam_release", "oneparam_epsilon_star",
           "oneparam_epsilon_star_lsq", "query_bound", "ONEPARAM_PRESETS"]

ONEPARAM_PRESETS = ("sound", "thesis")


# ---------------------------------------------------------------------------------------------
# GPM accounting
def rho_n(n: int) -> float:
    """ρ = exp(½·W₋₁(−1/(4n))), the minimiser of γ(ρ) (Thm 5.3, eq. 12).

    >>> round(rho_n(500), 7)
    0.0071093
    """
    if int(n) != n or n < 1:
        raise InputError(f"must be a whole number >= 1, got {n!r}", field="samples")
    return float(math.exp(0.5 * lambertw(-1.0 / (4.0 * n), k=-1).real))


def gamma_n(n: int) -> float:
    """γ(n) = ρ + √(ln(1/ρ)/(2n)): the probability that random DP fails (eq. 12).

    >>> round(gamma_n(500), 6)      # spec A4: "< 0.08"
    0.07744
    """
    rho = rho_n(n)
    return float(rho + math.sqrt(math.log(1.0 / rho) / (2.0 * n)))


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Thm 5.1: δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (second term in log space).

    >>> round(gaussian_delta(1.0, 1.0), 6)    # spec B9
    0.126937
    """
    from core.audit.gaussian import delta_of

    return delta_of(epsilon, mu)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """The smallest ε with δ(ε; μ) ≤ δ (B10).

    >>> round(gaussian_epsilon(1e-4, 1.0), 5)
    3.80444
    """
    from core.audit.gaussian import epsilon_of

    return epsilon_of(delta, mu)


def gaussian_mu(epsilon: float, delta: float) -> float:
    """The largest μ = S/σ with δ(ε; μ) ≤ δ (bisection; δ grows with μ)."""
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise InputError(f"must be a finite number > 0, got {epsilon!r}", field="epsilon")
    if not 0 < delta < 1:
        raise InputError(f"must lie in (0, 1), got {delta!r}", field="delta")
    lo, hi = 0.0, 1.0
    while gaussian_delta(epsilon, hi) <= delta:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(epsilon, mid) <= delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return lo


def gpm_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = S̄/μ for the target (ε, δ) (μ rounded down, so σ is on the safe side).

    >>> round(gpm_sigma(0.093682, 1.0, 1e-4), 6)     # spec B11, RL-RNN
    0.298443
    """
    if not (math.isfinite(sensitivity) and sensitivity >= 0):
        raise InputError(f"must be a finite number >= 0, got {sensitivity!r}",
                         field="sensitivity")
    return float(sensitivity / gaussian_mu(epsilon, delta))


def thm52_bound(eta: float, beta: float, T: int, m: int, C: float) -> float:
    """Thm 5.2's analytic sensitivity 2((1+ηβ)^T − 1)·C/((m−1)β): grows exponentially in T.

    >>> round(thm52_bound(0.01, 1.0, 100, 128, 10.0), 6)     # spec B13
    0.268475
    """
    return float(2.0 * ((1.0 + eta * beta) ** T - 1.0) * C / ((m - 1) * beta))


@dataclass(frozen=True)
class SensitivityEstimate:
    """The SensitivitySampler's result: S̄ = max of ``samples`` distances, and γ(n)."""

    value: float
    samples: int
    gamma: float
    distances: tuple[float, ...]


def sensitivity_sampler(train_fn: Callable[[np.ndarray], np.ndarray], pool_size: int,
                        n_records: int, samples: int, rng: np.random.Generator, *,
                        progress: Callable[[float, str], None] | None = None,
                        cancelled: Callable[[], bool] | None = None) -> SensitivityEstimate:
    """Alg. 2/3: ``samples`` replace-one pairs from the data source, S̄ = max ‖θ − θ′‖₂.

    Parameters
    ----------
    train_fn : callable
        Trains the deterministic learner (fixed seed and order) on the records with the given
        indices into the data source and returns θ.
    pool_size : int
        Size of the data source the pairs are drawn from.
    n_records : int
        N, the training-set size.
    samples : int
        n, the number of pairs.
    rng : numpy.random.Generator
        Draws the pairs.
    progress, cancelled : callable, optional
        Progress reporting and cancellation.

    Returns
    -------
    SensitivityEstimate
    """
    if int(samples) != samples or samples < 1:
        raise InputError(f"must be a whole number >= 1, got {samples!r}", field="samples")
    if pool_size < n_records + 1:
        raise InputError(f"the sampler needs N + 1 = {n_records + 1} records from the data "
                         f"source, it has {pool_size}", field="samples")
    from core.common.progress import Cancelled

    dist = []
    for i in range(int(samples)):
        if cancelled is not None and cancelled():
            raise Cancelled()
        d = rng.choice(pool_size, size=n_records + 1, replace=False)
        d1 = d[:n_records]
        d2 = np.concatenate([d[:n_records - 1], d[n_records:]])  # d_N replaced by d_{N+1}
        dist.append(float(np.linalg.norm(train_fn(d1) - train_fn(d2))))
        if progress is not None:
            progress((i + 1) / samples, f"sensitivity pair {i + 1}/{samples}")
    return SensitivityEstimate(max(dist), int(samples), gamma_n(int(samples)), tuple(dist))


# ---------------------------------------------------------------------------------------------
# One-parameter defense
def oneparam_candidates(y: np.ndarray, m: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Alg. 12's sub-ranges and candidates for the *sorted* positions of each row (A20).

    Parameters
    ----------
    y : numpy.ndarray
        (n, k) confidence vectors.
    m : int
        Granularity (candidates per sub-range).

    Returns
    -------
    order : numpy.ndarray
        (n, k) argsort of each row (ascending).
    lo : numpy.ndarray
        (n, k) sub-range starts, by sorted position.
    cand : numpy.ndarray
        (n, k, m) candidates lo_i + j·ρ_i, by sorted position.

    Examples
    --------
    >>> _, lo, c = oneparam_candidates(np.array([[0.2, 0.8]]))
    >>> c.round(3).tolist()
    [[[0.0, 0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8, 0.9]]]
    """
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    order = np.argsort(y, axis=1, kind="stable")
    ys = np.take_along_axis(y, order, axis=1)
    mids = 0.5 * (ys[:, 1:] + ys[:, :-1])
    n = y.shape[0]
    lo = np.concatenate([np.zeros((n, 1)), mids], axis=1)
    hi = np.concatenate([mids, np.ones((n, 1))], axis=1)
    rho = (hi - lo) / m
    cand = lo[:, :, None] + np.arange(m)[None, None, :] * rho[:, :, None]
    return order, lo, cand


@overload
def oneparam_release(y: np.ndarray, epsilon: float, rng: np.random.Generator | SecureRandom,
                     *, m: int = 5, preset: str = "sound",
                     return_selected: Literal[False] = False) -> np.ndarray: ...


@overload
def oneparam_release(y: np.ndarray, epsilon: float, rng: np.random.Generator | SecureRandom,
                     *, m: int = 5, preset: str = "sound",
                     return_selected: Literal[True]) -> tuple[np.ndarray, np.ndarray]: ...


def oneparam_release(y: np.ndarray, epsilon: float, rng: np.random.Generator | SecureRandom,
                     *, m: int = 5, preset: str = "sound", return_selected: bool = False
                     ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Alg. 12 (exponential mechanism per sorted score) then eq. 6.2 (z = softmax(ε·y′/2)).

    Parameters
    ----------
    y : numpy.ndarray
        (n, k) confidence vectors (rows summing to 1).
    epsilon : float
        The defense's one parameter ε > 0 (per choice; a vector costs k·ε, Thm 6.1).
    rng : numpy.random.Generator or SecureRandom
        Source of the uniforms (release mode: the OS CSPRNG).
    m : int
        Granularity.
    preset : {"sound", "thesis"}
        Utility −|y_i − c| with Δu = 1 (sound) or 1/(|y_i − c| + 1e-6) (thesis, not DP).
    return_selected : bool
        Also return y′ (the selected candidates, in the original positions).

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, numpy.ndarray)
        z (n, k), and y′ when asked.
    """
    epsilon = check_positive(epsilon, "epsilon")
    if preset not in ONEPARAM_PRESETS:
        raise InputError(f"must be one of {', '.join(ONEPARAM_PRESETS)}, got {preset!r}",
                         field="preset")
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    order, _lo, cand = oneparam_candidates(y, m)
    ys = np.take_along_axis(y, order, axis=1)
    dist = np.abs(cand - ys[:, :, None])
    u = -dist if preset == "sound" else 1.0 / (dist + 1e-6)
    logits = epsilon * u / 2.0  # Δu = 1
    logits -= logits.max(axis=2, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=2, keepdims=True)
    cdf = np.cumsum(p, axis=2)
    r = rng.random(cdf.shape[:2])
    j = np.minimum((cdf < r[:, :, None]).sum(axis=2), m - 1)
    sel_sorted = np.take_along_axis(cand, j[:, :, None], axis=2)[:, :, 0]
    sel = np.empty_like(sel_sorted)
    np.put_along_axis(sel, order, sel_sorted, axis=1)
    zl = epsilon * sel / 2.0
    zl -= zl.max(axis=1, keepdims=True)
    z = np.exp(zl)
    z /= z.sum(axis=1, keepdims=True)
    return (z, sel) if return_selected else z


def oneparam_epsilon_star(y: np.ndarray, y_sel: np.ndarray) -> float:
    """ε* with z = y on the (max, min) pair: 2(ln y_max − ln y_min)/(y′_max − y′_min) (A22).

    >>> round(oneparam_epsilon_star(np.array([0.2, 0.8]), np.array([0.4, 0.9])), 10)
    5.5451774445
    """
    y = np.asarray(y, dtype=np.float64)
    ys = np.asarray(y_sel, dtype=np.float64)
    i, j = int(np.argmax(y)), int(np.argmin(y))
    if ys[i] == ys[j] or y[j] <= 0:
        return math.inf
    return float(2.0 * (math.log(y[i]) - math.log(y[j])) / (ys[i] - ys[j]))


def oneparam_epsilon_star_lsq(y: np.ndarray, y_sel: np.ndarray) -> float:
    """The least-squares ε* over all log-ratios ln(y_i/y_j) = ε(y′_i − y′_j)/2 (A22)."""
    y = np.maximum(np.asarray(y, dtype=np.float64), 1e-300)
    ys = np.asarray(y_sel, dtype=np.float64)
    i, j = np.triu_indices(y.size, 1)
    a = (ys[i] - ys[j]) / 2.0
    b = np.log(y[i]) - np.log(y[j])
    den = float(a @ a)
    return math.inf if den == 0 else float(a @ b) / den


def query_bound(eps_total: float, k: int, epsilon: float) -> float:
    """Thm 6.3: b ≤ ε′(e^{ε′} − 1)/(k·ε·(e^{kε} − 1)) queries of the same x.

    >>> round(query_bound(5.0, 10, 0.1), 7)
    428.9551244
    """
    return float(eps_total * math.expm1(eps_total) / (k * epsilon * math.expm1(k * epsilon)))
