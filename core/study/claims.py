"""Claims: the verdicts a README table states, each with its n, interval, test and p.

A :class:`Claim` says what a study should show ("aware > unaware on the final value at
budget B"); :func:`evaluate_claims` tests every claim of a family on a
:class:`core.study.runner.StudyResult` (Holm-adjusted by default, so the family's error
rate is at most α), and :func:`verdict_stability` re-runs the study under other master
seeds to show that no verdict flips.

Examples
--------
>>> from core.study.runner import Arm, Study, run_study
>>> from core.study.toy import shifted_normal
>>> study = Study("toy", (Arm("high", shifted_normal, {"shift": 1.0}),
...                       Arm("low", shifted_normal, {"shift": 0.0})), n=20, master_seed=1)
>>> [r.holds for r in evaluate_claims(run_study(study),
...                                   [Claim("high beats low", "x", "high", "low", ">")])]
[True]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.common.progress import Progress, no_progress, sub_progress
from core.study.runner import Study, StudyResult, point_label, run_study
from core.study.stats import TESTS, Comparison, Equivalence, holm

__all__ = ["Claim", "ClaimResult", "evaluate_claims", "verdict_stability", "Stability"]

_EXPECT = (">", "<", "=")


@dataclass(frozen=True)
class Claim:
    """A verdict a study should support.

    Parameters
    ----------
    text : str
        The claim as a table prints it.
    metric : str
        The metric compared.
    a, b : str
        The arms: the claim is about ``a − b`` (paired by seed).
    expect : {">", "<", "="}
        ``a`` larger, smaller, or equivalent within ±``margin`` (TOST).
    point, b_point : int or mapping
        Where ``a`` and ``b`` are read (``b_point`` defaults to ``point``).
    margin : float
        The equivalence margin of an "=" claim (required there).
    test : str, optional
        The paired test (default: the study's).
    alpha : float
        The significance level (default 0.05).
    b_metric : str, optional
        Read ``b`` on this metric instead (two metrics of the same runs, e.g. two attacks
        on the same victims: ``a`` may equal ``b``; still paired by seed).
    """

    text: str
    metric: str
    a: str
    b: str
    expect: str = ">"
    point: "int | Mapping[str, Any]" = 0
    b_point: "int | Mapping[str, Any] | None" = None
    margin: float = math.nan
    test: str | None = None
    alpha: float = 0.05
    b_metric: str | None = None

    def __post_init__(self) -> None:
        if self.expect not in _EXPECT:
            raise ValueError(f"expect must be one of {_EXPECT}, got {self.expect!r}")
        if self.expect == "=" and not self.margin > 0:
            raise ValueError(f"claim {self.text!r}: an '=' claim needs a margin > 0")
        if self.test is not None and self.test not in TESTS:
            raise ValueError(f"test must be one of {sorted(TESTS)}, got {self.test!r}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}")


@dataclass(frozen=True)
class ClaimResult:
    """A claim tested on one study result."""

    claim: Claim
    comparison: "Comparison | Equivalence"
    p: float
    p_adjusted: float
    verdict: str
    holds: bool
    master_seed: int
    point_text: str

    @property
    def n(self) -> int:
        return self.comparison.n

    @property
    def test_text(self) -> str:
        c = self.comparison
        if isinstance(c, Equivalence):
            return f"TOST ({'paired t' if c.test == 't' else 'Wilcoxon'}, ±{c.margin:g})"
        return TESTS[c.test]

    def estimate(self) -> tuple[float, float, float, str]:
        """``(estimate, lo, hi, what)`` of the paired difference ``a − b``."""
        c = self.comparison
        if isinstance(c, Equivalence) or c.test == "t":
            return c.diff_mean, c.diff_mean_lo, c.diff_mean_hi, "mean difference"
        return c.diff_median, c.diff_median_lo, c.diff_median_hi, "median difference"

    def to_json(self) -> dict[str, Any]:
        est, lo, hi, what = self.estimate()
        return {"claim": self.claim.text, "metric": self.claim.metric, "a": self.claim.a,
                "b": self.claim.b, "b_metric": self.claim.b_metric or self.claim.metric,
                "expect": self.claim.expect, "point": self.point_text,
                "n": self.n, "estimate": est, "interval": [lo, hi], "estimate_kind": what,
                "level": self.comparison.level, "test": self.test_text,
                "p": self.p, "p_adjusted": self.p_adjusted, "alpha": self.claim.alpha,
                "verdict": self.verdict, "holds": self.holds,
                "master_seed": self.master_seed,
                "comparison": self.comparison.to_json()}


def _one(result: StudyResult, c: Claim) -> "Comparison | Equivalence":
    if c.expect == "=":
        return result.equivalence(c.metric, c.a, c.b, c.margin, c.point, b_point=c.b_point,
                                  test=c.test if c.test in ("t", "wilcoxon") else "t")
    return result.compare(c.metric, c.a, c.b, c.point, test=c.test, b_point=c.b_point,
                          b_metric=c.b_metric)


def evaluate_claims(result: StudyResult, claims: Sequence[Claim], *,
                    adjust: str = "holm") -> tuple[ClaimResult, ...]:
    """Test every claim on ``result``.

    Parameters
    ----------
    result : StudyResult
        The study's values.
    claims : sequence of Claim
        The family of claims.
    adjust : {"holm", "none"}
        Holm's adjustment over the family (default) or each claim at its own α.

    Returns
    -------
    tuple of ClaimResult
        ``holds`` is True when the (adjusted) p is below the claim's α and the direction
        is the expected one (for "=": the equivalence test rejects non-equivalence).
    """
    if adjust not in ("holm", "none"):
        raise ValueError(f"adjust must be 'holm' or 'none', got {adjust!r}")
    comps = [_one(result, c) for c in claims]
    raw = [c.p for c in comps]
    adj = holm(raw) if adjust == "holm" else raw
    out = []
    for c, comp, p, pa in zip(claims, comps, raw, adj):
        pa = float(pa)
        if isinstance(comp, Equivalence):
            holds = pa < c.alpha
            verdict = (f"{c.a} = {c.b} within ±{c.margin:g}" if holds
                       else "equivalence not shown")
        else:
            comp = Comparison(**{**comp.__dict__, "p_adjusted": pa})
            verdict = comp.named_verdict(c.alpha)
            holds = comp.verdict(c.alpha) == f"a {c.expect} b"
        pt = point_label(result.points[result.point_index(c.point)])
        if c.b_point is not None:
            pt += " vs " + point_label(result.points[result.point_index(c.b_point)])
        out.append(ClaimResult(c, comp, float(p), pa, verdict, bool(holds),
                               result.master_seed, pt))
    return tuple(out)


@dataclass(frozen=True)
class Stability:
    """The claims under several master seeds: ``runs[i]`` is the evaluation under
    ``master_seeds[i]``; ``stable`` says that no claim's ``holds`` differs between them."""

    master_seeds: tuple[int, ...]
    runs: tuple[tuple[ClaimResult, ...], ...]
    results: tuple[StudyResult, ...]

    @property
    def stable(self) -> bool:
        first = [r.holds for r in self.runs[0]]
        return all([r.holds for r in run] == first for run in self.runs[1:])

    def to_json(self) -> dict[str, Any]:
        return {"master_seeds": list(self.master_seeds), "stable": self.stable,
                "runs": [[r.to_json() for r in run] for run in self.runs]}


def verdict_stability(study: Study, claims: Sequence[Claim], master_seeds: Sequence[int], *,
                      adjust: str = "holm", progress: Progress = no_progress,
                      **run_kwargs: Any) -> Stability:
    """Run ``study`` under each master seed and evaluate ``claims`` on each result.

    Parameters
    ----------
    study : Study
        The study (its own master seed is replaced).
    claims : sequence of Claim
        The family.
    master_seeds : sequence of int
        At least one; two or more show whether a verdict flips.
    adjust : str
        As in :func:`evaluate_claims`.
    progress : Progress
        Over all the runs.
    **run_kwargs
        Passed to :func:`core.study.runner.run_study` (``executor``, ``workers``, …).

    Returns
    -------
    Stability
    """
    seeds = tuple(int(s) for s in master_seeds)
    if not seeds:
        raise ValueError("give at least one master seed")
    runs, results = [], []
    for i, ms in enumerate(seeds):
        res = run_study(study.with_seed(ms),
                        progress=sub_progress(progress, i / len(seeds), (i + 1) / len(seeds)),
                        **run_kwargs)
        results.append(res)
        runs.append(evaluate_claims(res, claims, adjust=adjust))
    return Stability(seeds, tuple(runs), tuple(results))
