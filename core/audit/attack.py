"""The black-box distinguishing attack of the audit (spec F3), on three disjoint splits.

Given N outputs of the mechanism on input a (the "negative" side) and N on input b:

* **split A** (first 20 % per side) fits a score: logistic regression on the feature
  vectors for continuous outputs (features ``ln z`` for Dirichlet — the privacy loss is
  linear in them — and the output itself for Laplace), or the empirical likelihood ratio
  (count_b + ½)/(count_a + ½) per outcome for discrete outputs;
* **split B** (next 30 %) chooses the rejection set S = {score >= t}: the threshold with
  the largest Clopper–Pearson ε_lb on B itself, at the stricter confidence 1 − c/50 (a
  guard against thin tails whose B counts were lucky);
* **split C** (last 50 %) is used once, at that single threshold: its counts give the
  reported FPR, FNR, their upper limits and ε_lb (:func:`core.audit.stats.epsilon_lb`).

Nothing chosen on A or B looks at C, so the Clopper–Pearson limits on C are honest. The
ROC for display is computed on C at many thresholds (it is descriptive only).

Examples
--------
>>> import numpy as np
>>> g = np.random.default_rng(0)
>>> r = run_attack(g.laplace(0, 1, (40000, 1)), g.laplace(1, 1, (40000, 1)),
...                delta=0.0, confidence=0.95)
>>> 0.8 < r.epsilon_lb < 1.0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.audit.stats import cp_upper, epsilon_lb, f3_epsilon, projected_epsilon_lb, thin_roc

__all__ = ["SPLITS", "AttackResult", "run_attack", "split_sizes"]

SPLITS = (0.2, 0.3, 0.5)
_MAX_THRESHOLDS = 4000


@dataclass(frozen=True)
class AttackResult:
    """What the attack found on the evaluation split C (per side ``n_eval`` samples)."""

    epsilon_lb: float
    epsilon_point: float          # F3 at the point estimates (no confidence correction)
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    n_eval: int
    n_fit: int
    n_select: int
    threshold: float
    kind: str                     # "continuous" or "discrete"
    features: str
    roc: tuple[tuple[float, float], ...]
    epsilon_lb_select: float      # the ε_lb on split B that chose the threshold


def split_sizes(n: int) -> tuple[int, int, int]:
    """(n_A, n_B, n_C) for ``n`` samples per side.

    Parameters
    ----------
    n : int
        Samples per side.

    Returns
    -------
    (int, int, int)
        Sizes of the fit, threshold and evaluation splits (20 / 30 / 50 %).
    """
    na = int(n * SPLITS[0])
    nb = int(n * SPLITS[1])
    return na, nb, n - na - nb


def _discrete_scores(ca: np.ndarray, cb: np.ndarray, na: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """log empirical likelihood ratio per outcome, fitted on split A, for every sample."""
    fit_a, fit_b = ca[:na], cb[:na]
    codes = np.unique(np.concatenate([ca, cb]))
    cnt_a = np.zeros(codes.size)
    cnt_b = np.zeros(codes.size)
    ia = np.searchsorted(codes, fit_a)
    ib = np.searchsorted(codes, fit_b)
    np.add.at(cnt_a, ia, 1.0)
    np.add.at(cnt_b, ib, 1.0)
    score = np.log(cnt_b + 0.5) - np.log(cnt_a + 0.5)
    return score[np.searchsorted(codes, ca)], score[np.searchsorted(codes, cb)]


def _continuous_scores(xa: np.ndarray, xb: np.ndarray, na: int
                       ) -> tuple[np.ndarray, np.ndarray, str]:
    if xa.shape[1] == 1:
        # one feature: the score is the feature itself, oriented on split A (logistic
        # regression on one feature is a monotone map of it, so this is the same test)
        sign = 1.0 if xb[:na, 0].mean() >= xa[:na, 0].mean() else -1.0
        return sign * xa[:, 0], sign * xb[:, 0], "output"
    from sklearn.linear_model import LogisticRegression

    fit = np.concatenate([xa[:na], xb[:na]])
    mu = fit.mean(axis=0)
    sd = fit.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    y = np.concatenate([np.zeros(na), np.ones(na)])
    model = LogisticRegression(C=1e3, max_iter=500)
    model.fit((fit - mu) / sd, y)
    w = model.coef_[0] / sd
    return xa @ w, xb @ w, "logistic regression"


def _thresholds(sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """Candidate thresholds: the distinct scores of split B (thinned, tails kept)."""
    u = np.unique(np.concatenate([sa, sb]))
    if u.size <= _MAX_THRESHOLDS:
        return u
    n = u.size
    # dense in both tails (where the best tests usually sit), uniform in between
    tail = np.unique(np.geomspace(1, n / 2, _MAX_THRESHOLDS // 4).astype(int))
    idx = np.unique(np.concatenate([tail - 1, n - tail,
                                    np.linspace(0, n - 1, _MAX_THRESHOLDS // 2).astype(int)]))
    result: np.ndarray = u[np.clip(idx, 0, n - 1)]
    return result


def _rates(sa: np.ndarray, sb: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FPR and TPR of S = {score >= t} for every threshold in ``t``."""
    a = np.sort(sa)
    b = np.sort(sb)
    fpr = (a.size - np.searchsorted(a, t, side="left")) / a.size
    tpr = (b.size - np.searchsorted(b, t, side="left")) / b.size
    return fpr, tpr


def run_attack(out_a: np.ndarray, out_b: np.ndarray, *, delta: float, confidence: float
               ) -> AttackResult:
    """Run the three-split attack on N outputs per side (see the module docstring).

    ``out_a``/``out_b``: int codes of shape (N,) (discrete) or float features (N, d).

    Parameters
    ----------
    out_a, out_b : numpy.ndarray
        The outputs of each side.
    delta : float
        δ of the ε lower bound.
    confidence : float
        Joint confidence of the Clopper–Pearson limits.

    Returns
    -------
    AttackResult
        The test, its counts on the evaluation split and ε_lb.
    """
    xa, xb = np.asarray(out_a), np.asarray(out_b)
    n = min(len(xa), len(xb))
    xa, xb = xa[:n], xb[:n]
    na, nb, nc = split_sizes(n)
    discrete = xa.ndim == 1 and np.issubdtype(xa.dtype, np.integer)
    if discrete:
        sa, sb = _discrete_scores(xa, xb, na)
        features = "empirical likelihood ratio per outcome"
    else:
        xa = xa.reshape(n, -1).astype(np.float64)
        xb = xb.reshape(n, -1).astype(np.float64)
        sa, sb, features = _continuous_scores(xa, xb, na)
    sel_a, sel_b = sa[na:na + nb], sb[na:na + nb]
    ev_a, ev_b = sa[na + nb:], sb[na + nb:]
    # choose the threshold on B by B's own Clopper-Pearson ε_lb at a stricter level
    # (1 − c/50: among thousands of thresholds, a thin tail whose B counts were lucky would
    # otherwise win and then fail on C), then evaluate on C once
    cand = np.concatenate([_thresholds(sel_a, sel_b), [np.inf]])
    f_b, t_b = _rates(sel_a, sel_b, cand)
    best, i = projected_epsilon_lb(f_b, t_b, nb, delta, 1.0 - (1.0 - confidence) / 50.0)
    t = float(cand[i])
    fp = int((ev_a >= t).sum())
    fn = int((ev_b < t).sum())
    level = 1.0 - (1.0 - confidence) / 2.0
    lb = float(epsilon_lb(fp, nc, fn, nc, delta, confidence))
    roc_t = _thresholds(ev_a, ev_b)
    f_c, t_c = _rates(ev_a, ev_b, roc_t)
    return AttackResult(
        epsilon_lb=lb, epsilon_point=float(f3_epsilon(fp / nc, fn / nc, delta)),
        fpr=fp / nc, fnr=fn / nc, fpr_upper=float(cp_upper(fp, nc, level)),
        fnr_upper=float(cp_upper(fn, nc, level)), n_eval=nc, n_fit=na, n_select=nb,
        threshold=t if math.isfinite(t) else math.inf, kind="discrete" if discrete else
        "continuous", features=features, roc=tuple(thin_roc(f_c, t_c)),
        epsilon_lb_select=best)
