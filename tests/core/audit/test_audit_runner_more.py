"""core.audit.runner on the Gaussian target (exact ROC, no release path, scalar pairs: fast):
the arguments are refused naming their field, a seeded audit is reproducible, an honest claim
is consistent and a false one is refuted by the exact computation, progress and cancel work,
and the result's dictionary keeps the contract's keys first with reasons for what is absent."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import scipy.stats  # noqa: F401  (imported at collection: ~1.5 s no single test should carry)

from core.audit import gaussian as gauss
from core.audit.runner import (
    DEFAULT_CONFIDENCE,
    MIN_SAMPLES,
    AuditResult,
    audit_module,
    check_audit_args,
)
from core.common.errors import InputError
from core.common.progress import Cancelled

V = gauss.GaussianVariant(mu=1.0, delta=1e-4)
N = 2000


@pytest.mark.parametrize("samples,seed,conf,field", [
    (MIN_SAMPLES - 1, 1, 0.95, "samples"),
    (True, 1, 0.95, "samples"),
    (1000.0, 1, 0.95, "samples"),
    ("1000", 1, 0.95, "samples"),
    (1000, -1, 0.95, "seed"),
    (1000, True, 0.95, "seed"),
    (1000, 1.5, 0.95, "seed"),
    (1000, 1, 0.4, "confidence"),
    (1000, 1, 1.0, "confidence"),
    (1000, 1, "0.9", "confidence"),
    (10 ** 15, 1, 0.95, "samples"),
])
def test_bad_audit_arguments_name_their_field(samples: Any, seed: Any, conf: Any,
                                              field: str) -> None:
    with pytest.raises(InputError) as info:
        check_audit_args(samples, seed, conf)
    assert info.value.field == field


def test_good_audit_arguments_are_normalised() -> None:
    assert check_audit_args(np.int64(MIN_SAMPLES), None, 0.5) == (MIN_SAMPLES, 0.5)
    assert check_audit_args(1000, np.int32(3), 0.99) == (1000, 0.99)


def test_a_seeded_audit_is_reproducible_and_consistent_with_an_honest_claim() -> None:
    a = audit_module("gaussian", gauss, None, V, samples=N, seed=11)
    b = audit_module("gaussian", "core.audit.gaussian", None, V, samples=N, seed=11)
    assert a.epsilon_lb == b.epsilon_lb and a.pair == b.pair and a.roc == b.roc
    assert a.mode == "experiment" and a.seed == 11
    assert a.verdict == "consistent" and a.epsilon_lb <= a.epsilon_claimed
    # the worst pair's exact ε is the claim itself (the claim is tight for this target)
    assert a.epsilon_tight == pytest.approx(a.epsilon_claimed)
    assert a.epsilon_tight_method == "closed form (Gaussian, Balle-Wang)"
    assert a.samples == N and a.confidence == DEFAULT_CONFIDENCE
    assert a.label == gauss.LABEL and a.parameters == {"mu": 1.0, "sigma": 1.0,
                                                       "delta": 1e-4}
    assert len(a.candidates) == 2
    proj = [c["projected_epsilon_lb"] for c in a.candidates]
    assert proj == sorted(proj, reverse=True)
    assert a.attack["samples_evaluated"] == N // 2 and a.attack["use_release_path"] is False


class _Understated:
    """The Gaussian target claiming half the ε it has: the exact computation refutes it."""

    __name__ = "understated"
    LABEL = "understated Gaussian"
    DEFAULT_SAMPLES = 1000
    RELEASE_PATH = False

    def __getattr__(self, name: str) -> Any:
        return getattr(gauss, name)

    @staticmethod
    def claimed(epsilon: Any, variant: Any) -> tuple[float, float, str]:
        eps, delta, adj = gauss.claimed(epsilon, variant)
        return eps / 2, delta, adj


def test_a_claim_below_the_exact_epsilon_is_a_violation_by_computation() -> None:
    r = audit_module("understated", _Understated(), None, V, samples=N, seed=2)  # type: ignore[arg-type]
    assert r.verdict == "violation"
    assert any("exact computation" in n for n in r.notes)
    assert r.epsilon_tight > r.epsilon_claimed  # type: ignore[operator]


def test_release_mode_without_a_release_path_still_audits() -> None:
    r = audit_module("gaussian", gauss, None, V, samples=N, seed=None)
    assert r.mode == "release" and r.seed is None
    assert not any("release code path" in n for n in r.notes)
    assert r.verdict == "consistent"


def test_progress_is_monotone_and_cancel_stops() -> None:
    seen: list[float] = []
    audit_module("gaussian", gauss, None, V, samples=N, seed=1,
                 progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert seen == sorted(seen) and all(0.0 <= f <= 1.0 for f in seen)
    calls = {"n": 0}

    def cancel() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    with pytest.raises(Cancelled):
        audit_module("gaussian", gauss, None, V, samples=N, seed=1, cancel=cancel)


def test_extra_parameters_are_reported_beside_the_modules() -> None:
    r = audit_module("gaussian", gauss, None, V, samples=N, seed=1,
                     parameters={"note": "ü", "mu": 2.0})
    assert r.parameters["note"] == "ü" and r.parameters["mu"] == 2.0


def _result(**over: Any) -> AuditResult:
    base: dict[str, Any] = dict(
        mechanism="m", epsilon_claimed=1.0, epsilon_claimed_reason=None, delta_claimed=0.0,
        adjacency="adj", epsilon_lb=0.5, confidence=0.95, epsilon_tight=None, pair={"a": 0},
        samples=1000, verdict="consistent", roc=((0.0, 0.0), (1.0, 1.0)), parameters={},
        mode="experiment", elapsed_s=0.1)
    base.update(over)
    return AuditResult(**base)


def test_the_dict_keeps_the_contract_keys_first() -> None:
    d = _result().to_dict()
    assert list(d)[:9] == ["mechanism", "epsilon_claimed", "delta_claimed", "epsilon_lb",
                           "confidence", "epsilon_tight", "pair", "samples", "verdict"]
    assert d["epsilon_tight_reason"] == "output densities unknown"
    assert "epsilon_claimed_reason" not in d
    assert d["roc"] == [[0.0, 0.0], [1.0, 1.0]]


def test_an_unbounded_claim_says_why_and_serialises_as_null() -> None:
    from core.common.jsonable import dumps

    r = _result(epsilon_claimed=math.inf, epsilon_tight=0.7,
                epsilon_tight_reason="ignored when there is a value")
    assert r.unbounded
    d = r.to_dict()
    assert d["epsilon_claimed_reason"] == "the mechanism claims no finite bound"
    assert "epsilon_tight_reason" not in d
    doc = json.loads(dumps(d))
    assert doc["epsilon_claimed"] is None
    given = _result(epsilon_claimed=math.inf, epsilon_claimed_reason="raw values").to_dict()
    assert given["epsilon_claimed_reason"] == "raw values"


def test_an_audit_of_a_target_with_a_bad_claim_or_no_pairs_is_a_programming_error() -> None:
    bad_delta = SimpleNamespace(**{k: getattr(gauss, k) for k in (
        "LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "variant_from", "parameters",
        "candidate_pairs", "sample_outputs", "exact_distribution", "tight_epsilon",
        "exact_roc")}, __name__="bad", claimed=lambda e, v: (1.0, 1.5, "adj"))
    with pytest.raises(ValueError, match="invalid delta"):
        audit_module("bad", bad_delta, None, V, samples=N, seed=1)  # type: ignore[arg-type]
    no_pairs = SimpleNamespace(**{**bad_delta.__dict__, "claimed": gauss.claimed,
                                  "candidate_pairs": lambda e, v: []})
    with pytest.raises(ValueError, match="no pairs"):
        audit_module("none", no_pairs, None, V, samples=N, seed=1)  # type: ignore[arg-type]
