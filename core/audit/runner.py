"""The generic audit runner: worst-pair search, attack, ε_lb, ε_tight, verdict.

A mechanism is audited through a module that implements
:class:`core.audit.target.AuditTarget` (its claim, neighbouring inputs, outputs as the
observer sees them, and, where known, exact distributions, an exact ε of a pair and the
optimal test's ROC; ``RELEASE_PATH`` says whether ``sample_outputs`` can sample through the
release code path: OpenDP for Laplace and the exponential mechanism, the OS CSPRNG for
Dirichlet).

Procedure of :func:`audit_module`:

1. the claim, from the mechanism's own accountant (never from the audit);
2. every candidate pair is ranked by the ε_lb a full-size evaluation would give:
   from the exact ROC or the exact output distributions where the module gives them,
   else from a pre-screen of a small N per side through the same attack (projected to
   the full evaluation size); ε_tight is computed for every pair where densities are
   known and the largest is reported (a proven lower bound of the true ε at δ_claimed);
3. the best-ranked pair is audited with N fresh samples per side (attack of
   :mod:`core.audit.attack`: fit on A, threshold on B, Clopper–Pearson on C);
4. verdict ``"violation"`` iff ε_lb > ε_claimed, or the exact ε_tight of a searched pair
   exceeds ε_claimed (a proof, not a statistic); an unbounded claim is never violated.

Modes: with a ``seed`` the whole audit is reproducible ("experiment"); without one the
randomness comes from a seed drawn from the OS CSPRNG, and modules with a release path
sample through it ("release").
"""

from __future__ import annotations

import importlib
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from core.audit.attack import AttackResult, run_attack, split_sizes
from core.audit.stats import discrete_epsilon_tight, discrete_roc, projected_epsilon_lb
from core.audit.target import AuditTarget
from core.common.errors import InputError
from core.common.progress import Cancelled
from core.common.resources import check_count

__all__ = ["AuditResult", "audit_module", "check_audit_args", "DEFAULT_CONFIDENCE",
           "MIN_SAMPLES"]

DEFAULT_CONFIDENCE = 0.95
MIN_SAMPLES = 200
#: Memory an audit keeps per sample and side (outputs, scores, the ROC's sort), measured
#: 80-140 bytes on the five mechanisms; with a margin.
AUDIT_BYTES_PER_SAMPLE = 200.0
_CHUNK = 20_000
_KEEP = 20  # candidate pairs kept in the result (best projected first)


@dataclass(frozen=True)
class AuditResult:
    """The outcome of one audit (see :meth:`to_dict` for the JSON contract)."""

    mechanism: str
    epsilon_claimed: float                  # math.inf if the claim is unbounded
    epsilon_claimed_reason: str | None      # why unbounded (None when finite)
    delta_claimed: float
    adjacency: str
    epsilon_lb: float
    confidence: float
    epsilon_tight: float | None             # None when the densities are unknown
    pair: Any                               # json-able description of the audited pair
    samples: int                            # per side
    verdict: str                            # "consistent" or "violation"
    roc: tuple[tuple[float, float], ...]
    parameters: dict[str, Any]
    mode: str                               # "experiment" or "release"
    elapsed_s: float
    notes: tuple[str, ...] = ()
    seed: int | None = None
    epsilon_tight_method: str | None = None
    epsilon_tight_reason: str | None = None
    tight_pair: Any = None                  # the pair with the largest ε_tight
    epsilon_tight_audited_pair: float | None = None
    attack: dict[str, Any] = field(default_factory=dict)
    candidates: tuple[dict[str, Any], ...] = ()   # the best-ranked pairs searched (<= 20)
    label: str = ""

    @property
    def unbounded(self) -> bool:
        return not math.isfinite(self.epsilon_claimed)

    def to_dict(self) -> dict[str, Any]:
        """Contract keys first (``docs/formats-and-cli.md`` §5), extras after.

        Serialise with :func:`core.common.jsonable.dumps`: an unbounded claim becomes
        ``"epsilon_claimed": null`` with ``"epsilon_claimed_reason"``.
        """
        d: dict[str, Any] = {
            "mechanism": self.mechanism,
            "epsilon_claimed": self.epsilon_claimed,
            "delta_claimed": self.delta_claimed,
            "epsilon_lb": self.epsilon_lb,
            "confidence": self.confidence,
            "epsilon_tight": self.epsilon_tight,
            "pair": self.pair,
            "samples": self.samples,
            "verdict": self.verdict,
        }
        if self.epsilon_claimed_reason is not None or self.unbounded:
            d["epsilon_claimed_reason"] = (self.epsilon_claimed_reason
                                           or "the mechanism claims no finite bound")
        if self.epsilon_tight is None:
            d["epsilon_tight_reason"] = (self.epsilon_tight_reason
                                         or "output densities unknown")
        d.update({
            "label": self.label,
            "adjacency": self.adjacency,
            "mode": self.mode,
            "seed": self.seed,
            "parameters": self.parameters,
            "epsilon_tight_method": self.epsilon_tight_method,
            "epsilon_tight_audited_pair": self.epsilon_tight_audited_pair,
            "tight_pair": self.tight_pair,
            "attack": self.attack,
            "roc": [list(p) for p in self.roc],
            "candidates": list(self.candidates),
            "elapsed_s": self.elapsed_s,
            "notes": list(self.notes),
        })
        return d


# --------------------------------------------------------------------------- helpers
class _Steps:
    """progress(fraction, message) plus the cancel() -> bool poll, in one checkpoint."""

    def __init__(self, progress: Callable[..., None] | None,
                 cancel: Callable[[], bool] | None) -> None:
        self.progress, self.cancel = progress, cancel

    def __call__(self, fraction: float, message: str = "") -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled()
        if self.progress is not None:
            self.progress(min(max(fraction, 0.0), 1.0), message)


def _claim(mod: AuditTarget, epsilon: Any, variant: Any
           ) -> tuple[float, float, str, str | None]:
    c = tuple(mod.claimed(epsilon, variant))
    eps, delta, adjacency = float(c[0]), float(c[1]), str(c[2])
    reason = str(c[3]) if len(c) > 3 and c[3] else None
    if math.isnan(eps) or eps < 0:
        raise ValueError(f"{mod.__name__}.claimed returned an invalid epsilon {c[0]!r}")
    if not math.isfinite(eps) and reason is None:
        reason = "the mechanism claims no finite epsilon for these parameters (see adjacency)"
    return eps, delta, adjacency, reason


def _sample(mod: AuditTarget, inp: Any, n: int, rng: np.random.Generator | None, epsilon: Any,
            variant: Any, steps: _Steps, f0: float, f1: float, what: str) -> np.ndarray:
    """n outputs in chunks (progress and cancel between chunks)."""
    parts, done = [], 0
    while done < n:
        m = min(_CHUNK, n - done)
        parts.append(np.asarray(mod.sample_outputs(inp, m, rng, epsilon, variant)))
        done += m
        steps(f0 + (f1 - f0) * done / n, f"{what}: {done}/{n}")
    out = np.concatenate(parts) if len(parts) > 1 else parts[0]
    if out.ndim == 1 and not np.issubdtype(out.dtype, np.integer):
        out = out.reshape(-1, 1)
    if out.shape[0] != n:
        raise ValueError(f"{mod.__name__}.sample_outputs returned {out.shape[0]} outputs, "
                         f"expected {n}")
    return out


def _exact_dist(mod: AuditTarget, inp: Any, epsilon: Any, variant: Any
                ) -> dict[Any, float] | None:
    return mod.exact_distribution(inp, epsilon, variant)


def _tight(mod: AuditTarget, a: Any, b: Any, delta: float, epsilon: Any, variant: Any
           ) -> tuple[float | None, str | None]:
    r = mod.tight_epsilon(a, b, delta, epsilon, variant)
    if r is not None:
        return float(r[0]), str(r[1])
    pa = _exact_dist(mod, a, epsilon, variant)
    pb = _exact_dist(mod, b, epsilon, variant) if pa is not None else None
    if pa is not None and pb is not None:
        return discrete_epsilon_tight(pa, pb, delta), "exact (discrete output distributions)"
    return None, None


def _exact_roc(mod: AuditTarget, a: Any, b: Any, epsilon: Any, variant: Any
               ) -> tuple[np.ndarray, np.ndarray] | None:
    r = mod.exact_roc(a, b, epsilon, variant)
    if r is not None:
        return np.asarray(r[0], float), np.asarray(r[1], float)
    pa = _exact_dist(mod, a, epsilon, variant)
    pb = _exact_dist(mod, b, epsilon, variant) if pa is not None else None
    if pa is not None and pb is not None:
        return discrete_roc(pa, pb)
    return None


def _screen_size(samples: int) -> int:
    return int(min(max(2000, samples // 10), 20_000))


# --------------------------------------------------------------------------- the runner
def check_audit_args(samples: Any, seed: Any, confidence: Any) -> tuple[int, float]:
    """The samples per side (at least :data:`MIN_SAMPLES`, and within memory) and the
    confidence (in [0.5, 1)); a seed must be a non-negative integer or None. Written once,
    for :class:`core.audit.records.AuditParameters` and :func:`audit_module` alike."""
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) \
            or int(samples) < MIN_SAMPLES:
        raise InputError(f"must be an integer >= {MIN_SAMPLES}, got {samples!r}",
                         field="samples")
    samples = int(samples)
    # the outputs of both sides are kept for the ROC (measured ~ 140 bytes per sample)
    check_count(samples, "samples", low=MIN_SAMPLES, bytes_each=AUDIT_BYTES_PER_SAMPLE,
                what="samples per side")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or int(seed) < 0):
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="seed")
    if not (isinstance(confidence, (int, float)) and 0.5 <= float(confidence) < 1.0):
        raise InputError(f"must lie in [0.5, 1), got {confidence!r}", field="confidence")
    return samples, float(confidence)


def _rank_pair(mod: AuditTarget, idx: int, pair: Any, n_pairs: int, n_eval: int,
               rng: np.random.Generator, epsilon: Any, variant: Any, steps: Any,
               delta_c: float, confidence: float, screen_n: int) -> dict[str, Any]:
    """Candidate pair ``idx``'s projected ε_lb at the full evaluation size (from its exact
    ROC, else from a pre-screen of ``screen_n`` samples per side) and its ε_tight."""
    desc, a, b = pair
    frac = 0.02 + 0.18 * idx / n_pairs
    steps(frac, f"pair search {idx + 1}/{n_pairs}")
    tight, tight_method = _tight(mod, a, b, delta_c, epsilon, variant)
    roc = _exact_roc(mod, a, b, epsilon, variant)
    if roc is not None:
        score, _ = projected_epsilon_lb(roc[0], roc[1], n_eval, delta_c, confidence)
        how = "exact ROC"
    else:
        xa = _sample(mod, a, screen_n, rng, epsilon, variant, steps, frac, frac,
                     "pre-screen")
        xb = _sample(mod, b, screen_n, rng, epsilon, variant, steps, frac, frac,
                     "pre-screen")
        r = run_attack(xa, xb, delta=delta_c, confidence=confidence)
        # the screen's test, projected to the full evaluation size (ranking only); its
        # rates are taken at their Clopper-Pearson limits so that a lucky small screen
        # does not outrank a pair whose optimal test is known exactly
        score, _ = projected_epsilon_lb(np.array([r.fpr_upper]),
                                        np.array([1 - r.fnr_upper]), n_eval, delta_c,
                                        confidence)
        how = f"pre-screen ({screen_n} per side)"
    return {"index": idx, "pair": desc, "projected_epsilon_lb": float(score),
            "ranked_by": how, "epsilon_tight": tight, "epsilon_tight_method": tight_method}


def _attack_summary(att: AttackResult, use_release: bool) -> dict[str, Any]:
    """What the result reports of the final attack."""
    return {"kind": att.kind, "features": att.features, "fpr": att.fpr, "fnr": att.fnr,
            "fpr_upper": att.fpr_upper, "fnr_upper": att.fnr_upper,
            "epsilon_point": att.epsilon_point, "threshold": att.threshold,
            "samples_fit": att.n_fit, "samples_select": att.n_select,
            "samples_evaluated": att.n_eval,
            "epsilon_lb_projected_on_select": att.epsilon_lb_select,
            "use_release_path": use_release}


def audit_module(mechanism: str, mod: AuditTarget | str, epsilon: Any, variant: Any, *,
                 samples: int | None, seed: int | None,
                 confidence: float = DEFAULT_CONFIDENCE,
                 progress: Callable[..., None] | None = None,
                 cancel: Callable[[], bool] | None = None,
                 parameters: dict[str, Any] | None = None) -> AuditResult:
    """Audit the mechanism of ``mod`` (a module or its import path); see the module doc.

    Parameters
    ----------
    mechanism : str
        The mechanism's name (reported).
    mod : AuditTarget or str
        The target module (:class:`~core.audit.target.AuditTarget`), or its import path.
    epsilon : Any
        The ε parameter audited.
    variant : Any
        The mechanism's public parameters.
    samples : int or None
        Samples per side of the final attack (default: the module's ``DEFAULT_SAMPLES``).
    seed : int or None
        A seed (experiment mode) or None (a seed from the OS, release path where available).
    confidence : float
        Joint confidence of the Clopper–Pearson limits.
    progress : callable, optional
        ``progress(fraction, text)``.
    cancel : callable, optional
        Returns True to stop (raises :class:`~core.common.progress.Cancelled`).
    parameters : dict, optional
        The public parameters to report (default: the module's ``parameters``).

    Returns
    -------
    AuditResult
        The claim, the pair, ε_lb with its confidence, ε_tight where known and the verdict.

    Raises
    ------
    InputError
        For fewer than :data:`MIN_SAMPLES` samples, a negative seed or a confidence
        outside [0.5, 1).
    """
    t0 = time.perf_counter()
    if isinstance(mod, str):
        mod = cast(AuditTarget, importlib.import_module(mod))
    steps = _Steps(progress, cancel)
    samples, confidence = check_audit_args(
        int(mod.DEFAULT_SAMPLES) if samples is None else samples, seed, confidence)
    mode = "experiment" if seed is not None else "release"
    rng = np.random.default_rng(int(seed) if seed is not None else secrets.randbits(128))
    notes: list[str] = []

    steps(0.0, "claim")
    eps_c, delta_c, adjacency, reason = _claim(mod, epsilon, variant)
    if not 0.0 <= delta_c < 1.0:
        raise ValueError(f"{mod.__name__}.claimed returned an invalid delta {delta_c!r}")
    pairs = list(mod.candidate_pairs(epsilon, variant))
    if not pairs:
        raise ValueError(f"{mod.__name__}.candidate_pairs returned no pairs")
    _, _, n_eval = split_sizes(samples)

    # ---- rank every candidate pair; ε_tight where the densities are known
    ranked = [_rank_pair(mod, idx, pair, len(pairs), n_eval, rng, epsilon, variant, steps,
                         delta_c, confidence, _screen_size(samples))
              for idx, pair in enumerate(pairs)]

    best = max(ranked, key=lambda r: (r["projected_epsilon_lb"],
                                      -1.0 if r["epsilon_tight"] is None else
                                      r["epsilon_tight"]))
    tights = [r for r in ranked if r["epsilon_tight"] is not None]
    top_tight = max(tights, key=lambda r: r["epsilon_tight"]) if tights else None
    desc, a, b = pairs[best["index"]]

    # ---- the audit proper: N fresh samples per side
    use_release = mode == "release" and bool(mod.RELEASE_PATH)
    srng = None if use_release else rng
    xa = _sample(mod, a, samples, srng, epsilon, variant, steps, 0.2, 0.55, "sampling side a")
    xb = _sample(mod, b, samples, srng, epsilon, variant, steps, 0.55, 0.9, "sampling side b")
    steps(0.92, "attack")
    att: AttackResult = run_attack(xa, xb, delta=delta_c, confidence=confidence)
    eps_lb = att.epsilon_lb
    # Two ways to refute a claim: statistically (ε_lb, at the stated confidence) or by an
    # exact computation (ε_tight of some neighbouring pair is a proven lower bound of the
    # true ε at δ_claimed; every ε_tight method is an exact or closed-form computation).
    tight_refutes = (top_tight is not None and math.isfinite(eps_c)
                     and top_tight["epsilon_tight"] > eps_c * (1 + 1e-9) + 1e-12)
    violation = math.isfinite(eps_c) and (eps_lb > eps_c or tight_refutes)
    if use_release:
        notes.append("outputs sampled through the release code path")
    if tight_refutes and top_tight is not None:
        notes.append(f"epsilon_tight = {top_tight['epsilon_tight']:.6g} exceeds the claimed "
                     f"epsilon {eps_c:.6g} at delta {delta_c:.3g}: the claim is false for "
                     "this pair (exact computation)")
    if not math.isfinite(eps_c):
        notes.append("unbounded claim: the verdict cannot be a violation; epsilon_lb shows "
                     "how much an observer can learn")
    if len(ranked) > 1:
        notes.append(f"{len(ranked)} candidate pairs searched; audited the one with the best "
                     f"projected epsilon_lb ({best['ranked_by']})")
    steps(1.0, "done")
    params = {**mod.parameters(epsilon, variant), **(parameters or {})}
    return AuditResult(
        mechanism=mechanism, epsilon_claimed=eps_c, epsilon_claimed_reason=reason,
        delta_claimed=delta_c, adjacency=adjacency, epsilon_lb=eps_lb, confidence=confidence,
        epsilon_tight=None if top_tight is None else top_tight["epsilon_tight"],
        pair=desc, samples=samples, verdict="violation" if violation else "consistent",
        roc=att.roc, parameters=params, mode=mode,
        elapsed_s=time.perf_counter() - t0, notes=tuple(notes),
        seed=int(seed) if seed is not None else None,
        epsilon_tight_method=None if top_tight is None else top_tight["epsilon_tight_method"],
        epsilon_tight_reason=None if top_tight is not None else
        "no output density or distribution is known for this mechanism",
        tight_pair=None if top_tight is None else top_tight["pair"],
        epsilon_tight_audited_pair=best["epsilon_tight"],
        attack=_attack_summary(att, use_release),
        candidates=tuple(sorted(ranked, key=lambda r: -r["projected_epsilon_lb"])[:_KEEP]),
        label=str(mod.LABEL))
