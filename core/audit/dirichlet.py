"""Audit target: the Dirichlet row mechanism (:func:`core.privacy.dirichlet.dirichlet_rows`).

Claim: the accountant's (ε, δ) for public (k, η, η̄, |W|, b) and a target δ̂ —
``analysis="W"``: Theorem 1.6 (:func:`~core.privacy.dirichlet_accounting.dirichlet_privacy`),
neighbours differ in two entries of W by at most b in L1, the remainder (entries outside
W, lumped into one output coordinate, which loses nothing: the split of the remainder is
independent of the rest and identical for both inputs) is fixed, W-entries >= η and the
remainder >= η̄; ``analysis="support"``: the within-support analysis
(:func:`~core.privacy.dirichlet_accounting.support_privacy`), n = |W| support entries,
every entry >= η, any two entries may move.

Pair search. Every neighbouring pair moves mass d <= b/2 between two coordinates i, j,
keeping c = p_i + p_j. For such a pair the privacy loss
L = ln p_a(z) − ln p_b(z) = −k·d·logit(u) + C with u = z_i/(z_i + z_j) and
C = Σ lnΓ(kq) − Σ lnΓ(kp) over {i, j}, and u ~ Beta(kp_i, kp_j) under a and
Beta(kq_i, kq_j) under b, independently of everything else (Dirichlet aggregation and
neutrality). So L is monotone in u, the hockey-stick profile

    δ(ε) = max{ P_a[L > ε] − e^ε P_b[L > ε],  P_b[−L > ε] − e^ε P_a[−L > ε] }

is exact via the regularised incomplete beta (``betainc``, tails computed directly, no
1 − x cancellation), ε_tight(δ) follows by bisection, and the optimal test is a threshold on
u (its exact ROC ranks the pairs). This holds for every |W|, not only |W| = 2. The grid:
c from its smallest value with room for a full move (2η + b/2) to its largest
(1 − η̄ − (|W|−2)η, resp. 1 − (n−2)η), p_i across [η, c − η − d], q_i = p_i + d with
d = min(b/2, c − 2η). :func:`delta_tight_mc` is the Monte Carlo version (full log-density
ratio on sampled z), used to cross-check.

Attack features: ln z of every output coordinate (L is linear in them), logistic
regression. In release mode outputs come from the OS CSPRNG sampler, as in a release.

Examples
--------
>>> v = DirichletVariant(k=10.0, eta=0.15, eta_bar=0.15, w=2, b=0.1, delta=0.05)
>>> eps, delta, _ = claimed(None, v)
>>> eps > 0 and 0 < delta <= 0.05
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from core.audit.stats import bisect_epsilon, mc_delta, mc_epsilon_tight
from core.audit.target import number
from core.common.errors import InputError
from core.common.special import betainc, betaincinv, expit, gammaln
from core.common.validation import check_int
from core.privacy import dirichlet_accounting as acc
from core.privacy.composition import check_delta
from core.privacy.dirichlet import dirichlet_rows

__all__ = ["LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "ANALYSES", "DirichletVariant",
           "parameters", "claimed", "candidate_pairs", "sample_outputs", "exact_distribution",
           "delta_tight_exact", "epsilon_tight_exact", "privacy_loss", "delta_tight_mc",
           "epsilon_tight_mc", "tight_epsilon", "exact_roc",
           "variant_from"]

LABEL = "Dirichlet row mechanism"
DEFAULT_SAMPLES = 200_000
RELEASE_PATH = True
ANALYSES = ("W", "support")
_C_STEPS = 6
_P_STEPS = 12


@dataclass(frozen=True)
class DirichletVariant:
    """Public parameters of the Dirichlet mechanism and its claim."""

    k: float
    eta: float
    eta_bar: float | None
    w: int
    b: float
    delta: float
    analysis: str = "W"
    delta_method: str = "auto"

    def __post_init__(self) -> None:
        if self.analysis not in ANALYSES:
            raise InputError(f"must be one of {', '.join(ANALYSES)}, got {self.analysis!r}",
                             field="analysis")
        if self.analysis == "support" and not hasattr(acc, "support_privacy"):
            raise InputError("the within-support analysis is not available in this version",
                             field="analysis")

    @property
    def eta_bar_value(self) -> float:
        return self.eta if self.eta_bar is None else self.eta_bar

    @property
    def n(self) -> int:
        """Output coordinates: W plus the lumped remainder, or the support."""
        return int(self.w) + 1 if self.analysis == "W" else int(self.w)


@lru_cache(maxsize=32)
def _privacy(v: DirichletVariant) -> Any:
    if v.analysis == "support":
        return acc.support_privacy(v.k, v.eta, v.w, v.b, delta_target=v.delta,
                                   delta_method=v.delta_method)
    return acc.dirichlet_privacy(v.k, v.eta, v.eta_bar_value, v.w, v.b, delta_target=v.delta,
                                 delta_method=v.delta_method)


def variant_from(params: Mapping[str, Any]) -> tuple[None, DirichletVariant]:
    """The :class:`DirichletVariant` from the audit's keyword parameters (no ε argument)."""
    w = params["w"]
    if isinstance(w, bool) or not isinstance(w, int):
        try:
            w = int(w) if float(w) == int(w) else w
        except (TypeError, ValueError):
            pass
    eta_bar = None if params["eta_bar"] is None else number(params, "eta_bar")
    v = DirichletVariant(
        k=number(params, "k"), eta=number(params, "eta"), eta_bar=eta_bar, w=w,
        b=number(params, "b"), delta=number(params, "delta"), analysis=str(params["analysis"]),
        delta_method=str(params["delta_method"]))
    # the accountant's own checks, before any work (the support analysis checks its
    # domain when it states the claim)
    if v.analysis == "W":
        acc.validate_parameters(v.k, v.eta, v.eta_bar_value, v.w, v.b)
    else:
        check_int(v.w, "w", minimum=2)
    check_delta(v.delta)
    acc.resolve_delta_method(v.delta_method, fixed_gamma=False)
    return None, v

def parameters(epsilon: Any, variant: DirichletVariant) -> dict[str, Any]:
    """The public parameters of the audited mechanism (reported with the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    dict
    """
    r = _privacy(variant)
    return {"k": variant.k, "eta": variant.eta, "eta_bar": variant.eta_bar_value,
            "w": variant.w, "b": variant.b, "delta_target": variant.delta,
            "analysis": variant.analysis, "gamma": r.gamma, "delta_method": r.delta_method,
            "accountant_warnings": list(r.warnings)}


def claimed(epsilon: Any, variant: DirichletVariant) -> tuple[float, float, str]:
    """

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    r = _privacy(variant)
    v = variant
    if v.analysis == "support":
        adj = (f"rows p, q on the same support of n = {v.w} entries, every entry >= eta = "
               f"{v.eta:g}, differing in any two entries by at most b = {v.b:g} in L1")
    else:
        adj = (f"rows p, q with the |W| = {v.w} entries of W >= eta = {v.eta:g} and the rest "
               f"summing to >= eta_bar = {v.eta_bar_value:g}, differing in two entries of W by "
               f"at most b = {v.b:g} in L1 (the rest fixed; Theorem 1.6)")
    return float(r.epsilon), float(r.delta), adj


# --------------------------------------------------------------------------- pairs
def _row(v: DirichletVariant, c: float, pi: float) -> np.ndarray:
    """A full row with coordinates (i, j) = (0, 1) holding (pi, c − pi)."""
    n, eta = v.n, v.eta
    p = np.full(n, eta)
    p[0], p[1] = pi, c - pi
    if v.analysis == "W":
        p[v.w] = 1.0 - c - (v.w - 2) * eta        # the remainder
    elif n > 2:
        p[n - 1] = 1.0 - c - (n - 3) * eta
    return p


def _c_range(v: DirichletVariant) -> tuple[float, float]:
    eta = v.eta
    if v.analysis == "W":
        c_max = 1.0 - v.eta_bar_value - (v.w - 2) * eta
    else:
        c_max = 1.0 - (v.n - 2) * eta
    return min(2 * eta + v.b / 2, c_max), c_max


def candidate_pairs(epsilon: Any, variant: DirichletVariant) -> list[tuple[Any, Any, Any]]:
    """Neighbouring inputs under the claimed adjacency, the worst known case among them.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    v = variant
    _privacy(v)  # validates the parameters first (one-line errors naming the field)
    c_lo, c_hi = _c_range(v)
    if c_hi - 2 * v.eta <= 1e-12:
        raise InputError("the domain leaves no room to move mass between two entries",
                         field="eta")
    cs = np.unique(np.linspace(c_lo, c_hi, _C_STEPS)) if v.n > 2 else np.array([c_hi])
    out = []
    for c in cs:
        d = min(v.b / 2, c - 2 * v.eta)
        if d <= 1e-12:
            continue
        for pi in np.unique(np.linspace(v.eta, c - v.eta - d, _P_STEPS)):
            p = _row(v, float(c), float(pi))
            q = _row(v, float(c), float(pi + d))
            desc = {"p": [round(x, 12) for x in p.tolist()],
                    "q": [round(x, 12) for x in q.tolist()],
                    "coordinates": [0, 1], "moved": round(float(d), 12),
                    "description": f"move {d:g} into entry 0 from entry 1 (p_0 + p_1 = {c:.4g})"}
            out.append((desc, p, q))
    if not out:  # every move is below 1e-12: no pair of inputs differs measurably
        raise InputError(f"b = {v.b:g} moves less than 2e-12 of mass: no neighbouring pair "
                         "of rows differs measurably (audit b >= 2e-12)", field="b")
    return out


def sample_outputs(inp: Any, n: int, rng: np.random.Generator | None, epsilon: Any,
                   variant: DirichletVariant) -> np.ndarray:
    """ln z for n draws z ~ Dir(k·p) (shape (n, len(p))); ``rng=None``: release sampler.

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
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    p = np.asarray(inp, dtype=np.float64)
    z = dirichlet_rows(np.tile(p, (n, 1)), variant.k, rng)
    result: np.ndarray = np.log(z)
    return result


def exact_distribution(inp: Any, epsilon: Any, variant: DirichletVariant) -> None:
    """The exact law of :func:`sample_outputs`' codes, when it can be computed.

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    return None  # continuous output


# --------------------------------------------------------------------------- exact profile
def _two(p: np.ndarray, q: np.ndarray) -> tuple[int, int]:
    diff = np.flatnonzero(np.abs(np.asarray(p) - np.asarray(q)) > 0)
    if diff.size != 2:
        raise ValueError("the exact profile needs a pair differing in exactly two entries")
    i, j = int(diff[0]), int(diff[1])
    return (i, j) if q[i] > p[i] else (j, i)


def delta_tight_exact(p: np.ndarray, q: np.ndarray, k: float, epsilon: float) -> float:
    """δ(ε) of the pair (a = p, b = q) exactly (pairs differing in two entries).

    Parameters
    ----------
    p, q : numpy.ndarray
        Neighbouring rows.
    k : float
        The concentration.
    epsilon : float
        ε.

    Returns
    -------
    float
    """
    p, q = np.asarray(p, float), np.asarray(q, float)
    i, j = _two(p, q)                      # q_i > p_i: mass moves into i
    d = q[i] - p[i]
    ap, bp, aq, bq = k * p[i], k * p[j], k * q[i], k * q[j]
    c0 = gammaln(aq) + gammaln(bq) - gammaln(ap) - gammaln(bp)
    kd = k * d
    e = math.exp(epsilon) if epsilon < 700 else math.inf
    # L = −kd·logit(u) + c0;  L > ε  ⇔  logit(u) < (c0 − ε)/kd
    y1 = (c0 - epsilon) / kd
    pa1 = betainc(ap, bp, expit(y1))
    pb1 = betainc(aq, bq, expit(y1))
    # −L > ε  ⇔  logit(u) > (c0 + ε)/kd; upper tails by symmetry I_{1−x}(b, a)
    y2 = (c0 + epsilon) / kd
    pb2 = betainc(bq, aq, expit(-y2))
    pa2 = betainc(bp, ap, expit(-y2))
    with np.errstate(invalid="ignore"):
        d1 = pa1 - e * pb1 if pb1 > 0 else pa1
        d2 = pb2 - e * pa2 if pa2 > 0 else pb2
    return float(max(d1, d2, 0.0))


def epsilon_tight_exact(p: np.ndarray, q: np.ndarray, k: float, delta: float) -> float:
    """ε_tight(δ) of a two-entry pair, by bisection on the exact δ(ε).

    Parameters
    ----------
    p, q : numpy.ndarray
        Neighbouring rows differing in two entries.
    k : float
        The concentration.
    delta : float
        δ.

    Returns
    -------
    float
    """
    return bisect_epsilon(lambda e: delta_tight_exact(p, q, k, e), delta, hi=1.0,
                          tol=1e-10, max_hi=1e5)


def privacy_loss(z_log: np.ndarray, p: np.ndarray, q: np.ndarray, k: float) -> np.ndarray:
    """L = ln p_a(z) − ln p_b(z) from the full densities, for rows of ln z.

    Parameters
    ----------
    z_log : numpy.ndarray
        Rows of ln z (draws of the mechanism's output).
    p, q : numpy.ndarray
        The pair.
    k : float
        The concentration.

    Returns
    -------
    numpy.ndarray
        One loss per row.
    """
    p, q = np.asarray(p, float), np.asarray(q, float)
    const = gammaln(k * q).sum() - gammaln(k * p).sum()
    result: np.ndarray = z_log @ (k * (p - q)) + const
    return result


def delta_tight_mc(p: np.ndarray, q: np.ndarray, k: float, epsilon: float, n: int,
                   rng: np.random.Generator) -> tuple[float, float]:
    """Monte Carlo δ(ε) (and its standard error) from n draws per side, any pair.

    Parameters
    ----------
    p, q : numpy.ndarray
        The pair.
    k : float
        The concentration.
    epsilon : float
        ε.
    n : int
        Draws per side.
    rng : numpy.random.Generator
        The draws' randomness.

    Returns
    -------
    (float, float)
        δ(ε) and its standard error.
    """
    la = privacy_loss(np.log(dirichlet_rows(np.tile(p, (n, 1)), k, rng)), p, q, k)
    lb = privacy_loss(np.log(dirichlet_rows(np.tile(q, (n, 1)), k, rng)), p, q, k)
    return mc_delta(la, lb, epsilon)


def epsilon_tight_mc(p: np.ndarray, q: np.ndarray, k: float, delta: float, n: int,
                     rng: np.random.Generator) -> float:
    """Monte Carlo ε_tight(δ) from n draws per side (spec F3), any pair.

    Parameters
    ----------
    p, q : numpy.ndarray
        The pair.
    k : float
        The concentration.
    delta : float
        δ.
    n : int
        Draws per side.
    rng : numpy.random.Generator
        The draws' randomness.

    Returns
    -------
    float
    """
    la = privacy_loss(np.log(dirichlet_rows(np.tile(p, (n, 1)), k, rng)), p, q, k)
    lb = privacy_loss(np.log(dirichlet_rows(np.tile(q, (n, 1)), k, rng)), p, q, k)
    return mc_epsilon_tight(la, lb, delta)


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: DirichletVariant
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
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    (float, str)
        ε_tight and the method used.
    """
    return (epsilon_tight_exact(a, b, variant.k, delta),
            "exact (incomplete beta; the privacy loss is monotone in z_i/(z_i+z_j))")


def exact_roc(a: Any, b: Any, epsilon: Any, variant: DirichletVariant
              ) -> tuple[np.ndarray, np.ndarray]:
    """ROC of the optimal test {u >= t}, u = z_i/(z_i + z_j) (a = p negative, b = q).

    Parameters
    ----------
    a, b : Any
        The pair's two inputs (as :func:`candidate_pairs` gives them).
    epsilon : float
        The claimed ε parameter of the mechanism.
    variant : DirichletVariant
        The public parameters: k, η, η̄, |W| and b.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray) or None
        (FPR, TPR) of the optimal test, used only to rank pairs.
    """
    p, q = np.asarray(a, float), np.asarray(b, float)
    i, j = _two(p, q)
    k = variant.k
    ap, bp, aq, bq = k * p[i], k * p[j], k * q[i], k * q[j]
    lv = np.geomspace(1e-12, 0.5, 120)
    levels = np.concatenate([lv, 1 - lv])
    t = np.unique(np.concatenate([betaincinv(ap, bp, levels), betaincinv(aq, bq, levels)]))
    t = t[(t > 0) & (t < 1)]
    # P[u >= t] = I_{1−t}(b, a)
    return betainc(bp, ap, 1 - t), betainc(bq, aq, 1 - t)
