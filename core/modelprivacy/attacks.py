"""Membership inference at today's standard: LiRA (online and offline), the loss-threshold
attack and the shadow-model attack on the same victims, several victims per study.

Protocol (Carlini et al., "Membership Inference Attacks From First Principles", 2022, as
its evaluation runs it):

1. A population of N = 2·n records is drawn from the data set (the study's seed).
2. M models of the victim's kind (:class:`core.modelprivacy.victim.VictimKind`: same
   algorithm, hyperparameters and defense) are trained, model j on a random half of the
   population (n records; ``member[j, i]`` says whether record i is in it).
3. **Every model is a victim in turn**; the other M − 1 are the attacker's reference
   (shadow) models. A victim's members and non-members are balanced (n each), and pooling
   the M victims gives M·n non-members — enough to resolve a TPR at a low FPR that one
   victim never could.
4. Scores (higher: more likely a member):

   * ``lira-online``: φ = ln(p_y/(1 − p_y)) of the victim on the record, against Gaussians
     fitted to φ on the reference models that trained on the record (IN) and those that
     did not (OUT): ln N(φ; μ_in, σ_in) − ln N(φ; μ_out, σ_out). The variances are global
     (one σ_in, one σ_out over all records: Carlini et al.'s choice below 64 reference
     models). A record no reference model trained on (or every one did) borrows the mean
     IN − OUT shift of the others.
   * ``lira-offline``: the same without IN models (the attacker never trains on the
     target): (φ − μ_out)/σ_out, one-sided.
   * ``loss``: −ℓ(x, y), the victim's cross-entropy (Yeom et al.).
   * ``shadow``: Shokri et al.'s attack model (:mod:`core.modelprivacy.study`'s features
     and MLP), trained on the reference models' outputs, two-fold (the even-numbered models
     train the attack for the odd-numbered victims and vice versa).

5. Metrics per attack: AUC per victim (median and its distribution-free interval over the
   M victims), balanced accuracy at a threshold calibrated on the *other* victims' scores,
   the pooled ROC, and TPR at each target FPR α **only where the non-members resolve it**
   (α·M·n ≥ 1: at least one false positive is allowed), with Clopper–Pearson intervals of
   the TPR and of the FPR actually reached, beside the DP bound TPR ≤ e^ε·FPR + δ when the
   victims are DP. The pooled trials share M models, so the intervals treat them as
   independent: they are indicative, not certified.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> member = rng.random((6, 40)) < 0.5
>>> phi = rng.normal(size=(6, 40)) + 2.0 * member      # members score higher
>>> s = lira_scores(phi, member, online=True)
>>> float(np.mean(s[member]) > np.mean(s[~member]))
1.0
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
from core.modelprivacy.metrics import unresolved_tpr_reason
from core.modelprivacy.victim import VictimKind, confidences, logit_confidence, losses
from core.study.stats import Summary, clopper_pearson, summarize

__all__ = ["ATTACKS", "DEFAULT_FPRS", "lira_scores", "loss_scores", "shadow_scores",
           "tpr_at_fpr", "AttackMetrics", "evaluate_attack", "PopulationModels",
           "train_population", "AttackStudy", "attack_study", "attack_json_keys"]

ATTACKS = ("lira-online", "lira-offline", "loss", "shadow")
DEFAULT_FPRS = (0.001, 0.01, 0.1)


# ------------------------------------------------------------------------------ scores
def _loo_means(phi: np.ndarray, member: np.ndarray, v: int) -> tuple[np.ndarray, np.ndarray,
                                                                       np.ndarray, np.ndarray]:
    """Per-record IN/OUT means over the models other than ``v`` and their counts."""
    keep = np.arange(phi.shape[0]) != v
    p, m = phi[keep], member[keep]
    n_in = m.sum(axis=0)
    n_out = (~m).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu_in = np.where(n_in > 0, (p * m).sum(axis=0) / np.maximum(n_in, 1), np.nan)
        mu_out = np.where(n_out > 0, (p * ~m).sum(axis=0) / np.maximum(n_out, 1), np.nan)
    return mu_in, mu_out, n_in, n_out


def lira_scores(phi: np.ndarray, member: np.ndarray, *, online: bool = True) -> np.ndarray:
    """LiRA scores of every model as the victim, leave-one-out (module docstring).

    Parameters
    ----------
    phi : numpy.ndarray
        (M, N) logit-scaled confidences of model j on record i.
    member : numpy.ndarray
        (M, N) bool: record i in model j's training set.
    online : bool
        Use IN models (online) or only OUT models (offline).

    Returns
    -------
    numpy.ndarray
        (M, N) scores; higher means "member".
    """
    phi = np.asarray(phi, dtype=np.float64)
    member = np.asarray(member, dtype=bool)
    M = phi.shape[0]
    if M < 3:
        raise InputError(f"LiRA needs at least 3 models (2 references per victim), got {M}",
                         field="models")
    out = np.empty_like(phi)
    for v in range(M):
        mu_in, mu_out, c_in, c_out = _loo_means(phi, member, v)
        keep = np.arange(M) != v
        p, m = phi[keep], member[keep]
        shift = np.nanmean(mu_in - mu_out) if np.any(np.isfinite(mu_in - mu_out)) else 0.0
        mu_out = np.where(np.isfinite(mu_out), mu_out, mu_in - shift)
        mu_in = np.where(np.isfinite(mu_in), mu_in, mu_out + shift)
        r_out = (p - mu_out[None, :])[~m]
        sd_out = float(np.sqrt(np.mean(r_out ** 2))) if r_out.size else 1.0
        sd_out = max(sd_out, 1e-6)
        if not online:
            out[v] = (phi[v] - mu_out) / sd_out
            continue
        r_in = (p - mu_in[None, :])[m]
        sd_in = max(float(np.sqrt(np.mean(r_in ** 2))) if r_in.size else sd_out, 1e-6)
        out[v] = (sps.norm.logpdf(phi[v], mu_in, sd_in)
                  - sps.norm.logpdf(phi[v], mu_out, sd_out))
    return out


def loss_scores(loss: np.ndarray) -> np.ndarray:
    """The loss-threshold attack's scores: −ℓ (a member has a lower loss)."""
    return -np.asarray(loss, dtype=np.float64)


def shadow_scores(conf: np.ndarray, y: np.ndarray, member: np.ndarray, seed: int) -> np.ndarray:
    """Shokri et al.'s attack model, two-fold over the models (module docstring).

    Parameters
    ----------
    conf : numpy.ndarray
        (M, N, classes) confidence vectors of model j on record i.
    y : numpy.ndarray
        (N,) labels.
    member : numpy.ndarray
        (M, N) membership.
    seed : int
        The attack MLP's seed.

    Returns
    -------
    numpy.ndarray
        (M, N) member probabilities from the attack model.
    """
    from core.modelprivacy.study import _AttackModel, _features

    M = conf.shape[0]
    if M < 2:
        raise InputError(f"the shadow attack needs at least 2 models, got {M}",
                         field="models")
    feats = np.stack([_features(conf[j], y) for j in range(M)])  # (M, N, f)
    out = np.empty(member.shape)
    folds = [np.arange(0, M, 2), np.arange(1, M, 2)]
    for train_f, test_f in (folds, folds[::-1]):
        if test_f.size == 0:
            continue
        clf = _AttackModel(int(seed)).fit(feats[train_f].reshape(-1, feats.shape[2]),
                                          member[train_f].ravel().astype(int))
        for j in test_f:
            out[j] = clf.predict_proba(feats[j])[:, 1]
    return out


# ------------------------------------------------------------------------------ metrics
def tpr_at_fpr(s_in: np.ndarray, s_out: np.ndarray, alpha: float, *,
               privacy: tuple[float, float] | None = None, level: float = 0.95
               ) -> dict[str, Any]:
    """TPR at FPR ≤ ``alpha`` from pooled scores, or why it is not resolved.

    The threshold lets at most k = ⌊α·n_out⌋ non-members through (strictly above the
    (k+1)-th largest non-member score); k = 0 (α·n_out < 1) is not resolved
    (:func:`core.modelprivacy.metrics.unresolved_tpr_reason`).

    Parameters
    ----------
    s_in, s_out : numpy.ndarray
        Member and non-member scores.
    alpha : float
        Target FPR.
    privacy : (float, float), optional
        (ε, δ) of the victims: adds the DP bound e^ε·FPR + δ at the FPR's upper limit.
    level : float
        Level of the Clopper–Pearson intervals.

    Returns
    -------
    dict
        ``fpr_target``, ``resolved``; when resolved ``tpr``, ``tpr_lo``, ``tpr_hi``,
        ``fpr``, ``fpr_lo``, ``fpr_hi``, ``members``, ``nonmembers`` and (with ``privacy``)
        ``dp_bound`` and ``exceeds_dp_bound`` (the TPR's lower limit above the bound: a
        bug or a broken guarantee); else ``tpr`` None and ``tpr_reason``.
    """
    s_in = np.asarray(s_in, dtype=np.float64)
    s_out = np.asarray(s_out, dtype=np.float64)
    n_in, n_out = s_in.size, s_out.size
    out: dict[str, Any] = {"fpr_target": float(alpha), "members": n_in, "nonmembers": n_out}
    reason = unresolved_tpr_reason(alpha, n_out)
    if reason is not None:
        out.update(resolved=False, tpr=None, tpr_reason=reason)
        return out
    k = int(math.floor(alpha * n_out + 1e-9))
    thr = np.sort(s_out)[::-1][k]          # the (k+1)-th largest
    tp = int((s_in > thr).sum())
    fp = int((s_out > thr).sum())
    tlo, thi = clopper_pearson(tp, n_in, level)
    flo, fhi = clopper_pearson(fp, n_out, level)
    out.update(resolved=True, tpr=tp / n_in, tpr_lo=tlo, tpr_hi=thi, fpr=fp / n_out,
               fpr_lo=flo, fpr_hi=fhi, true_positives=tp, false_positives=fp)
    if privacy is not None:
        eps, dlt = privacy
        bound = min(1.0, math.exp(eps) * fhi + dlt)
        out.update(dp_bound=bound, exceeds_dp_bound=bool(tlo > bound))
    return out


def _best_threshold(s_in: np.ndarray, s_out: np.ndarray) -> float:
    """The threshold (predict member when score > t) of the best balanced accuracy."""
    cand = np.unique(np.concatenate([s_in, s_out]))
    if cand.size == 0:
        return 0.0
    si, so = np.sort(s_in), np.sort(s_out)
    # members above t: n_in − #(s_in ≤ t); non-members at or below t: #(s_out ≤ t)
    tpr = 1.0 - np.searchsorted(si, cand, side="right") / max(si.size, 1)
    tnr = np.searchsorted(so, cand, side="right") / max(so.size, 1)
    acc = 0.5 * (tpr + tnr)
    i = int(np.argmax(acc))
    # predicting nobody a member (t above everything) is also a candidate
    if 0.5 >= acc[i]:
        return float(cand[-1])
    return float(cand[i])


@dataclass(frozen=True)
class AttackMetrics:
    """One attack over all victims of a study."""

    attack: str
    auc: Summary
    accuracy: Summary
    auc_per_victim: tuple[float, ...]
    accuracy_per_victim: tuple[float, ...]
    auc_pooled: float
    tpr: tuple[dict[str, Any], ...]
    epsilon_lb: float
    roc: list[tuple[float, float]]
    members: int
    nonmembers: int

    def to_json(self) -> dict[str, Any]:
        return {"attack": self.attack, "victims": len(self.auc_per_victim),
                "auc": self.auc.median, "auc_lo": self.auc.median_lo,
                "auc_hi": self.auc.median_hi, "auc_per_victim": list(self.auc_per_victim),
                "auc_pooled": self.auc_pooled,
                "accuracy": self.accuracy.median, "accuracy_lo": self.accuracy.median_lo,
                "accuracy_hi": self.accuracy.median_hi,
                "accuracy_per_victim": list(self.accuracy_per_victim),
                "tpr_at_fpr": list(self.tpr), "epsilon_lb": self.epsilon_lb,
                "members": self.members, "nonmembers": self.nonmembers,
                "roc": [list(p) for p in self.roc]}


def evaluate_attack(name: str, scores: np.ndarray, member: np.ndarray, *,
                    fprs: Sequence[float] = DEFAULT_FPRS,
                    privacy: tuple[float, float] | None = None) -> AttackMetrics:
    """The metrics of one attack's (M, N) scores against the (M, N) membership.

    Parameters
    ----------
    name : str
        The attack.
    scores, member : numpy.ndarray
        Scores (higher: member) and truth, model j as the victim in row j.
    fprs : sequence of float
        Target FPRs for the TPR.
    privacy : (float, float), optional
        The victims' (ε, δ).

    Returns
    -------
    AttackMetrics
    """
    from sklearn.metrics import roc_auc_score, roc_curve

    from core.audit.stats import epsilon_lb, thin_roc

    M = scores.shape[0]
    aucs, accs = [], []
    fp_tot = fn_tot = 0
    for v in range(M):
        m = member[v]
        aucs.append(float(roc_auc_score(m.astype(int), scores[v])))
        others = np.arange(M) != v
        t = _best_threshold(scores[others][member[others]], scores[others][~member[others]])
        pred = scores[v] > t
        tp, tn = int((pred & m).sum()), int((~pred & ~m).sum())
        accs.append(0.5 * (tp / max(m.sum(), 1) + tn / max((~m).sum(), 1)))
        fp_tot += int((pred & ~m).sum())
        fn_tot += int((~pred & m).sum())
    s_in, s_out = scores[member], scores[~member]
    y = np.r_[np.ones(s_in.size), np.zeros(s_out.size)]
    s = np.r_[s_in, s_out]
    fpr, tpr, _ = roc_curve(y, s)
    dlt = privacy[1] if privacy is not None else 0.0
    eps_lb = float(epsilon_lb(fp_tot, s_out.size, fn_tot, s_in.size, dlt, 0.95))
    return AttackMetrics(
        attack=name, auc=summarize(np.array(aucs)), accuracy=summarize(np.array(accs)),
        auc_per_victim=tuple(aucs), accuracy_per_victim=tuple(accs),
        auc_pooled=float(roc_auc_score(y, s)),
        tpr=tuple(tpr_at_fpr(s_in, s_out, a, privacy=privacy) for a in fprs),
        epsilon_lb=eps_lb, roc=thin_roc(fpr, tpr), members=int(s_in.size),
        nonmembers=int(s_out.size))


# ------------------------------------------------------------------------------ the study
@dataclass(frozen=True, eq=False)
class PopulationModels:
    """M models on random halves of a population, and what they say about every record."""

    population: np.ndarray      # (N,) indices into the data set
    member: np.ndarray          # (M, N) bool
    phi: np.ndarray             # (M, N) logit-scaled confidence on the true label
    loss: np.ndarray            # (M, N) cross-entropy
    conf: np.ndarray            # (M, N, classes)
    train_accuracy: np.ndarray  # (M,)
    test_accuracy: np.ndarray   # (M,) on the population records the model did not see
    train_s: float


def train_population(kind: VictimKind, data: Dataset, *, train_size: int, models: int,
                     seed: int, progress: Progress = no_progress,
                     cancelled: Callable[[], bool] | None = None) -> PopulationModels:
    """Step 1–2 of the protocol: the population, the halves and the M trained models.

    Parameters
    ----------
    kind : VictimKind
        Trains one model (any family implementing the protocol).
    data : Dataset
        The records.
    train_size : int
        n: every model trains on n of the 2n population records.
    models : int
        M.
    seed : int
        Draws the population, the halves and every model's own seed.
    progress, cancelled : callable
        Progress (per model) and cancellation.

    Returns
    -------
    PopulationModels
    """
    n = int(train_size)
    M = int(models)
    if M < 2:
        raise InputError(f"must be at least 2, got {models!r}", field="models")
    if n < 10:
        raise InputError(f"must be at least 10, got {train_size!r}", field="train_size")
    if 2 * n > data.n:
        raise InputError(f"a population of 2 x {n} records needs {2 * n}; the data set has "
                         f"{data.n}", field="train_size")
    ss = np.random.SeedSequence(int(seed))
    s_pop, s_models = ss.spawn(2)
    rng = np.random.default_rng(s_pop)
    pop = rng.permutation(data.n)[:2 * n]
    X, y = data.X[pop], data.y[pop]
    N = pop.size
    member = np.zeros((M, N), dtype=bool)
    for j in range(M):
        member[j, rng.permutation(N)[:n]] = True
    model_seeds = [int(c.generate_state(1)[0]) for c in s_models.spawn(M)]
    phi = np.empty((M, N))
    loss = np.empty((M, N))
    conf = np.empty((M, N, data.classes))
    tr_acc, te_acc = np.empty(M), np.empty(M)
    t0 = time.perf_counter()
    for j in range(M):
        if cancelled is not None and cancelled():
            raise Cancelled()
        v = kind.train(X[member[j]], y[member[j]], seed=model_seeds[j])
        conf[j] = confidences(v, X)
        phi[j] = logit_confidence(v, X, y)
        loss[j] = losses(v, X, y)
        hit = conf[j].argmax(axis=1) == y
        tr_acc[j], te_acc[j] = hit[member[j]].mean(), hit[~member[j]].mean()
        progress((j + 1) / M, f"model {j + 1}/{M} ({kind.name})")
    return PopulationModels(pop, member, phi, loss, conf, tr_acc, te_acc,
                            time.perf_counter() - t0)


@dataclass(frozen=True, eq=False)
class AttackStudy:
    """The attacks on M victims of one kind (JSON: :meth:`to_json`)."""

    data: str
    kind: dict[str, Any]
    train_size: int
    models: int
    seed: int
    seeded: bool
    attacks: dict[str, AttackMetrics]
    train_accuracy: Summary
    test_accuracy: Summary
    generalisation_gap: Summary
    privacy: tuple[float, float] | None
    guarantee: str
    accuracy_cap: float | None
    elapsed_s: float
    train_s: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """The ``mia --attack lira|loss|all --json`` object (see the README)."""
        def summ(s: Summary) -> dict[str, float]:
            return {"median": s.median, "lo": s.median_lo, "hi": s.median_hi, "n": s.n}

        return {
            "protocol": "population", "data": self.data, "victim": self.kind.get("victim"),
            "defense": self.kind.get("defense"), "kind": self.kind,
            "train_size": self.train_size, "models": self.models, "victims": self.models,
            "train_accuracy": summ(self.train_accuracy),
            "test_accuracy": summ(self.test_accuracy),
            "generalisation_gap": summ(self.generalisation_gap),
            "attacks": {k: v.to_json() for k, v in self.attacks.items()},
            "epsilon": self.privacy[0] if self.privacy else None,
            "delta": self.privacy[1] if self.privacy else None,
            **({} if self.privacy else {"epsilon_reason": "no DP defense"}),
            "guarantee": self.guarantee, "accuracy_cap": self.accuracy_cap,
            **({} if self.accuracy_cap is not None else
               {"accuracy_cap_reason": "no DP defense"}),
            "mode": "experiment" if self.seeded else "unseeded (a fresh seed, recorded)",
            "seed": self.seed, "elapsed_s": self.elapsed_s, "train_s": self.train_s,
            "notes": list(self.notes)}


def attack_json_keys() -> tuple[str, ...]:
    """Top-level keys of :meth:`AttackStudy.to_json` (the README documents them)."""
    return ("protocol", "data", "victim", "defense", "kind", "train_size", "models",
            "victims", "train_accuracy", "test_accuracy", "generalisation_gap", "attacks",
            "epsilon", "delta", "guarantee", "accuracy_cap", "mode", "seed", "elapsed_s",
            "train_s", "notes")


def attack_study(kind: VictimKind, data: Dataset, *, train_size: int, models: int = 16,
                 attacks: Sequence[str] = ATTACKS, seed: int | None = None,
                 fprs: Sequence[float] = DEFAULT_FPRS, progress: Progress = no_progress,
                 cancelled: Callable[[], bool] | None = None) -> AttackStudy:
    """Train M victims on random halves of a population and run the attacks on each.

    Parameters
    ----------
    kind : VictimKind
        The victims' family, training algorithm and defense.
    data : Dataset
        The records.
    train_size : int
        Records per victim (the population has twice as many).
    models : int
        M (each a victim, the others its reference models); online LiRA needs M ≥ 4.
    attacks : sequence of str
        Any of :data:`ATTACKS`.
    seed : int, optional
        Experiment seed (None: a fresh seed from the OS, recorded in the result).
    fprs : sequence of float
        Target FPRs for the TPR column.
    progress, cancelled : callable
        Progress and cancellation.

    Returns
    -------
    AttackStudy
    """
    from core.common.validation import fresh_seed
    from core.privacy.composition import accuracy_cap

    t0 = time.perf_counter()
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown or not attacks:
        raise InputError(f"must be among {', '.join(ATTACKS)}, got {list(attacks)}",
                         field="attack")
    if "lira-online" in attacks and models < 4:
        raise InputError(f"online LiRA needs at least 4 models (IN and OUT references for "
                         f"each record), got {models}", field="models")
    base = int(seed) if seed is not None else fresh_seed()
    pm = train_population(kind, data, train_size=train_size, models=models, seed=base,
                          progress=lambda f, m="": progress(0.9 * f, m), cancelled=cancelled)
    privacy = getattr(kind, "privacy", None)
    out: dict[str, AttackMetrics] = {}
    for a in attacks:
        if cancelled is not None and cancelled():
            raise Cancelled()
        progress(0.9 + 0.1 * len(out) / len(attacks), f"attack {a}")
        if a == "lira-online":
            sc = lira_scores(pm.phi, pm.member, online=True)
        elif a == "lira-offline":
            sc = lira_scores(pm.phi, pm.member, online=False)
        elif a == "loss":
            sc = loss_scores(pm.loss)
        else:
            sc = shadow_scores(pm.conf, data.y[pm.population], pm.member, base)
        out[a] = evaluate_attack(a, sc, pm.member, fprs=fprs, privacy=privacy)
    notes = [f"{models} models, each trained on a random half ({train_size} records) of a "
             f"population of {2 * train_size}; every model is a victim in turn and the others "
             "are its reference models (leave-one-out): the attacker knows the algorithm, "
             "the hyperparameters, the defense and the population",
             "TPR at a target FPR is given only where the pooled non-members allow one false "
             "positive; intervals are Clopper-Pearson over pooled trials that share the "
             "models (indicative)",
             "accuracy: balanced, at the threshold that is best on the other victims' scores",
             "LiRA with global variances (fewer than 64 reference models)"]
    if privacy is not None:
        notes.append("dp_bound: TPR <= e^epsilon * FPR + delta at the FPR's upper limit; "
                     "exceeds_dp_bound flags a TPR whose lower limit is above it")
    gap = pm.train_accuracy - pm.test_accuracy
    progress(1.0, "done")
    return AttackStudy(
        data=data.name, kind=(kind.describe() if hasattr(kind, "describe")
                              else {"name": kind.name}),
        train_size=int(train_size), models=int(models), seed=base, seeded=seed is not None,
        attacks=out, train_accuracy=summarize(pm.train_accuracy),
        test_accuracy=summarize(pm.test_accuracy), generalisation_gap=summarize(gap),
        privacy=privacy, guarantee=str(getattr(kind, "guarantee", "not stated")),
        accuracy_cap=(accuracy_cap(*privacy) if privacy is not None else None),
        elapsed_s=time.perf_counter() - t0, train_s=pm.train_s, notes=tuple(notes))
