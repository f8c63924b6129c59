"""A canary audit of the trained model: an empirical lower bound ε_lb on its privacy loss,
shown beside the accountant's ε (Steinke, Nasr & Jagielski, "Privacy Auditing with One (1)
Training Run", NeurIPS 2023).

One run: m canaries — records from outside the training set with a wrong label drawn at
random, so that a model that memorises them shows it — are each inserted into the training
set independently with probability ½. One model is trained; the auditor scores every canary
by its loss, guesses "in" for the k lowest losses and "out" for the k highest (abstaining on
the rest), and counts the correct guesses v of r = 2k.

If the training algorithm is (ε, δ)-DP for adding or removing one record, then
P[v or more correct] ≤ β + 2m·δ·α, where β = P[Binomial(r, e^ε/(1 + e^ε)) ≥ v] and
α = max_{1≤i≤v} P[v − i ≤ Binomial(r, q) < v]/i (the paper's bound with δ). ε_lb is the
largest ε this rejects at level 0.05; the guess counts k form a small grid fixed in advance
and the level is split over it (Bonferroni), so picking the best k does not inflate ε_lb.
A correct DP-SGD has ε_lb ≤ ε (up to the 5 % the test allows): a larger ε_lb flags a bug.

DP-SGD's schedule is fixed from the public expected size (members + m/2): the actual size
varies with the canaries drawn, and q, T and the normaliser must not (see
:class:`core.modelprivacy.models.DpSgd`).

Examples
--------
>>> round(snj_epsilon_lb(1000, 100, 100, 0.0), 3)  # all correct: q^100 = 0.05, ln(q/(1-q))
3.493
>>> snj_epsilon_lb(1000, 100, 50, 0.0)             # chance: nothing
0.0
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as sps

from core.common.errors import InputError
from core.common.progress import Cancelled, Progress, no_progress
from core.modelprivacy.data import Dataset
from core.modelprivacy.victim import VictimKind, losses

__all__ = ["snj_p_value", "snj_epsilon_lb", "CanaryAudit", "canary_audit", "GUESS_FRACTIONS"]

#: k as fractions of m: the grid of guess counts (each side), fixed before the audit.
GUESS_FRACTIONS = (0.02, 0.05, 0.1, 0.25)


def snj_p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """P[≥ v correct of r guesses] under (ε, δ)-DP (upper bound; module docstring).

    Parameters
    ----------
    m : int
        Canaries (each in with probability ½).
    r : int
        Guesses made (0 ≤ r ≤ m).
    v : int
        Correct guesses (0 ≤ v ≤ r).
    eps, delta : float
        The null hypothesis (ε ≥ 0, 0 ≤ δ ≤ 1).

    Returns
    -------
    float
        The p-value, at most 1.
    """
    if not (0 <= v <= r <= m) or eps < 0 or not 0 <= delta <= 1:
        raise ValueError(f"need 0 <= v <= r <= m, eps >= 0, delta in [0, 1]; got m={m}, "
                         f"r={r}, v={v}, eps={eps}, delta={delta}")
    q = 1.0 / (1.0 + math.exp(-eps))
    beta = float(sps.binom.sf(v - 1, r, q))
    alpha = 0.0
    if delta > 0 and v > 0:
        i = np.arange(1, v + 1)
        # P[v − i ≤ B < v] = cdf(v − 1) − cdf(v − i − 1)
        mass = sps.binom.cdf(v - 1, r, q) - sps.binom.cdf(v - i - 1, r, q)
        alpha = float(np.max(mass / i))
    return min(1.0, beta + alpha * delta * 2 * m)


def snj_epsilon_lb(m: int, r: int, v: int, delta: float, level: float = 0.05) -> float:
    """The largest ε that :func:`snj_p_value` rejects at ``level`` (0 if none does).

    Parameters
    ----------
    m, r, v : int
        Canaries, guesses, correct guesses.
    delta : float
        δ of the null hypotheses.
    level : float
        Significance level (e.g. 0.05 / number of guess counts tried).

    Returns
    -------
    float
        ε_lb ≥ 0 (bisection to 1e-6).
    """
    if snj_p_value(m, r, v, 0.0, delta) >= level:
        return 0.0
    lo, hi = 0.0, 1.0
    while snj_p_value(m, r, v, hi, delta) < level:
        lo, hi = hi, 2 * hi
        if hi > 100:
            return lo
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if snj_p_value(m, r, v, mid, delta) < level:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class CanaryAudit:
    """One audit: the canaries, the guesses, ε_lb and the accountant's ε."""

    data: str
    kind: dict[str, Any]
    canaries: int
    inserted: int
    members: int
    epsilon_lb: float
    best_k: int
    correct: int
    guesses: int
    per_k: tuple[dict[str, Any], ...]
    epsilon: float | None
    delta: float
    level: float
    seed: int
    seeded: bool
    elapsed_s: float
    auc: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"protocol": "canary audit (one run)", "data": self.data, "kind": self.kind,
                "canaries": self.canaries, "inserted": self.inserted, "members": self.members,
                "epsilon_lb": self.epsilon_lb, "epsilon": self.epsilon,
                **({} if self.epsilon is not None else
                   {"epsilon_reason": "no DP defense: the accountant gives no bound"}),
                "delta": self.delta, "level": self.level, "best_k": self.best_k,
                "correct": self.correct, "guesses": self.guesses, "per_k": list(self.per_k),
                "canary_auc": self.auc, "seed": self.seed,
                "mode": "experiment" if self.seeded else "unseeded (a fresh seed, recorded)",
                "elapsed_s": self.elapsed_s, "notes": list(self.notes)}


def canary_audit(kind: VictimKind, data: Dataset, *, train_size: int, canaries: int = 500,
                 seed: int | None = None, delta: float | None = None, level: float = 0.05,
                 fractions: Sequence[float] = GUESS_FRACTIONS,
                 progress: Progress = no_progress,
                 cancelled: Callable[[], bool] | None = None) -> CanaryAudit:
    """Run one canary audit (module docstring).

    Parameters
    ----------
    kind : VictimKind
        The training algorithm audited (a DP-SGD kind should use the public size
        ``train_size + canaries // 2`` for its schedule).
    data : Dataset
        The records: members and canaries are disjoint draws from it.
    train_size : int
        Real training records.
    canaries : int
        m.
    seed : int, optional
        Experiment seed (None: a fresh one, recorded).
    delta : float, optional
        δ of the audit (default: the kind's δ, else 0).
    level : float
        Overall significance level (split over the k grid).
    fractions : sequence of float
        The k grid as fractions of m.
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    CanaryAudit
    """
    from sklearn.metrics import roc_auc_score

    from core.common.validation import fresh_seed

    t0 = time.perf_counter()
    m, n = int(canaries), int(train_size)
    if m < 10:
        raise InputError(f"must be at least 10, got {canaries!r}", field="canaries")
    if n + m > data.n:
        raise InputError(f"{n} members and {m} canaries need {n + m} records; the data set "
                         f"has {data.n}", field="canaries")
    if data.classes < 2:
        raise InputError("canaries need a second class to mislabel into", field="data")
    base = int(seed) if seed is not None else fresh_seed()
    rng = np.random.default_rng(base)
    perm = rng.permutation(data.n)
    members, cans = perm[:n], perm[n:n + m]
    # a wrong label for every canary, uniformly among the other classes
    shift = rng.integers(1, data.classes, size=m)
    y_can = (data.y[cans] + shift) % data.classes
    inside = rng.random(m) < 0.5
    X = np.vstack([data.X[members], data.X[cans[inside]]])
    y = np.concatenate([data.y[members], y_can[inside]])
    if cancelled is not None and cancelled():
        raise Cancelled()
    progress(0.05, f"training on {n} records and {int(inside.sum())} canaries")
    model = kind.train(X, y, seed=int(rng.integers(2**31)))
    progress(0.9, "scoring the canaries")
    score = -losses(model, data.X[cans], y_can)      # low loss: guessed "in"
    order = np.argsort(-score, kind="stable")
    privacy = getattr(kind, "privacy", None)
    dlt = float(delta if delta is not None else (privacy[1] if privacy else 0.0))
    ks = sorted({max(1, min(m // 2, int(round(f * m)))) for f in fractions})
    lvl = level / len(ks)
    rows = []
    best = (0.0, ks[0], 0)
    for k in ks:
        v = int(inside[order[:k]].sum() + (~inside[order[-k:]]).sum())
        e = snj_epsilon_lb(m, 2 * k, v, dlt, lvl)
        rows.append({"k": k, "guesses": 2 * k, "correct": v, "epsilon_lb": e})
        if e > best[0] or (e == best[0] and v > best[2] and best[0] == 0):
            best = (e, k, v)
    auc = float(roc_auc_score(inside.astype(int), score)) if 0 < inside.sum() < m else 0.5
    notes = [f"{m} canaries (records outside the training set with a random wrong label), "
             "each inserted with probability 1/2; one training run; guesses from the loss",
             f"guess counts k = {ks} per side fixed in advance; each tested at "
             f"{level:g}/{len(ks)} (Bonferroni), so epsilon_lb holds at level {level:g}",
             "a correct DP implementation has epsilon_lb <= epsilon (the accountant's): "
             "one-run audits are loose, so a small epsilon_lb does not mean a small leak"]
    progress(1.0, "done")
    return CanaryAudit(
        data=data.name, kind=(kind.describe() if hasattr(kind, "describe")
                              else {"name": kind.name}),
        canaries=m, inserted=int(inside.sum()), members=n, epsilon_lb=float(best[0]),
        best_k=int(best[1]), correct=int(best[2]), guesses=2 * int(best[1]),
        per_k=tuple(rows), epsilon=privacy[0] if privacy else None, delta=dlt, level=level,
        seed=base, seeded=seed is not None, elapsed_s=time.perf_counter() - t0, auc=auc,
        notes=tuple(notes))
