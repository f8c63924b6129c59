"""The empirical privacy audit (core.audit): formula oracles, soundness, power, tight profiles.

Statistical tests use fixed seeds. Soundness: a Clopper–Pearson ε_lb exceeds a true claim
with probability <= 1 − confidence = 5 % by construction, so a fixed seed that passes
keeps passing, and a failure at a fixed seed means ε_lb > ε_claimed — a violation to
investigate, never a flaky test. Tolerances of Monte Carlo comparisons are derived from
the estimator's standard error (stated at each use).
"""

from __future__ import annotations

import math
import time
import types

import numpy as np
import pytest
from scipy.stats import beta as beta_dist

from core.audit import MECHANISMS, available, run_audit
from core.audit import dirichlet as adir
from core.audit import gaussian as agauss
from core.audit.runner import audit_module
from core.audit.stats import (
    cp_upper,
    discrete_delta,
    discrete_epsilon_tight,
    epsilon_lb,
    f3_epsilon,
    mc_delta,
)
from core.common.errors import InputError
from core.common.jsonable import dumps
from core.common.progress import Cancelled

FAST = 30_000  # samples per side at fast settings
CONTRACT = ("mechanism", "epsilon_claimed", "delta_claimed", "epsilon_lb", "confidence",
            "epsilon_tight", "pair", "samples", "verdict")


# --------------------------------------------------------------------------- formula
def test_f3_formula_matches_b17():
    # spec B17: FPR 0.1, FNR 0.2, δ = 0 → max(ln 8, ln 4.5) = ln 8 = 2.079442
    assert f3_epsilon(0.1, 0.2, 0.0) == pytest.approx(2.079442, abs=1e-6)
    assert f3_epsilon(0.1, 0.2, 0.0) == pytest.approx(math.log(8), rel=1e-12)
    # the other direction wins when FNR is the small rate
    assert f3_epsilon(0.2, 0.1, 0.0) == pytest.approx(math.log(8), rel=1e-12)
    # δ enters both numerators; a useless test gives 0, not a negative bound
    assert f3_epsilon(0.1, 0.2, 0.05) == pytest.approx(math.log(0.75 / 0.1), rel=1e-12)
    assert f3_epsilon(0.5, 0.5, 0.0) == 0.0


def test_clopper_pearson_limits():
    assert float(cp_upper(0, 100, 0.95)) == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-12)
    assert float(cp_upper(7, 100, 0.975)) == pytest.approx(beta_dist.ppf(0.975, 8, 93))
    assert float(cp_upper(100, 100, 0.975)) == 1.0
    # at confidence c each limit is at 1 − (1 − c)/2
    lb = float(epsilon_lb(10, 1000, 200, 1000, 0.0, 0.95))
    assert lb == pytest.approx(f3_epsilon(beta_dist.ppf(0.975, 11, 990),
                                          beta_dist.ppf(0.975, 201, 800), 0.0))


def test_discrete_tight_profile():
    p, q = {0: 0.75, 1: 0.25}, {0: 0.25, 1: 0.75}  # randomised response, ε = ln 3
    assert discrete_epsilon_tight(p, q, 0.0) == pytest.approx(math.log(3), abs=1e-9)
    # δ(ε) = Σ max(0, P − e^ε Q): at ε = 0 the total variation 0.5
    assert discrete_delta(p, q, 0.0) == pytest.approx(0.5)
    assert discrete_epsilon_tight(p, q, 0.5) == 0.0
    # support mismatch: unbounded unless δ covers the unmatched mass
    assert discrete_epsilon_tight({0: 0.9, 1: 0.1}, {0: 1.0}, 0.05) == math.inf
    assert discrete_epsilon_tight({0: 0.9, 1: 0.1}, {0: 1.0}, 0.1) < math.inf


# --------------------------------------------------------------------------- soundness
SOUND = [
    ("laplace", {"epsilon": 1.0, "sensitivity": 1.0}),
    ("laplace", {"epsilon": 0.3, "sensitivity": 2.0}),
    ("exponential", {"epsilon": 1.0}),
    ("exponential", {"epsilon": 2.0, "monotonic": True}),
    ("dirichlet", {"k": 10.0, "eta": 0.15, "w": 2, "b": 0.1, "delta": 0.05}),
    ("dirichlet", {"k": 6.7, "eta": 0.15, "w": 3, "b": 0.1, "delta": 0.05}),
    ("dirichlet", {"k": 10.0, "eta": 0.02, "w": 3, "b": 0.1, "delta": 0.05,
                   "analysis": "support"}),
    ("gaussian", {"mu": 1.0, "delta": 1e-4}),
]


@pytest.mark.parametrize(("mech", "params"), SOUND)
def test_audit_never_exceeds_a_true_claim(mech, params):
    r = run_audit(mech, samples=FAST, seed=11, **params)
    assert r.verdict == "consistent", f"{mech}: epsilon_lb {r.epsilon_lb} > {r.epsilon_claimed}"
    assert r.epsilon_lb <= r.epsilon_claimed
    if r.epsilon_tight is not None:  # the exact ε of the worst pair found
        assert r.epsilon_tight <= r.epsilon_claimed * (1 + 1e-9)
    assert r.epsilon_lb > 0  # the attack finds something at these settings


def test_gaussian_sanity_b20():
    # spec B10/B20: the tight ε at μ = 1, δ = 1e-4 is 3.804436; the audit stays below it
    assert agauss.epsilon_of(1e-4, 1.0) == pytest.approx(3.804436, abs=1e-6)
    assert agauss.delta_of(1.0, 1.0) == pytest.approx(0.126937, abs=1e-6)   # B9
    r = run_audit("gaussian", samples=FAST, seed=5, mu=1.0, delta=1e-4)
    assert r.epsilon_tight == pytest.approx(3.804436, abs=1e-6)
    assert r.epsilon_lb <= 3.8044


# --------------------------------------------------------------------------- power
def test_audit_catches_a_broken_laplace():
    # half the noise scale while claiming ε = 1: the true ε of the pair (0, Δ) is 2
    r = run_audit("laplace", samples=FAST, seed=3, epsilon=1.0, sensitivity=1.0,
                  noise_factor=0.5)
    assert r.verdict == "violation"
    assert r.epsilon_lb > 1.0
    assert r.epsilon_tight == pytest.approx(2.0)
    assert r.to_dict()["verdict"] == "violation"


def test_audit_catches_a_broken_exponential():
    r = run_audit("exponential", samples=FAST, seed=3, epsilon=1.0, noise_factor=0.5)
    assert r.verdict == "violation" and r.epsilon_lb > 1.0


def test_laplace_power_requirement():
    # at ε = 1, ε_lb >= 0.5 within a minute on 2 cores (default N)
    t0 = time.perf_counter()
    r = run_audit("laplace", seed=2024, epsilon=1.0, sensitivity=1.0)
    assert time.perf_counter() - t0 < 60
    assert r.samples == 200_000
    assert 0.5 <= r.epsilon_lb <= 1.0
    assert r.pair["b"] == 1.0  # the worst pair (0, Δ) was chosen


def test_release_mode_uses_the_release_path():
    r = run_audit("laplace", samples=3000, seed=None, epsilon=1.0, sensitivity=1.0)
    assert r.mode == "release" and r.seed is None
    assert r.attack["use_release_path"] is True
    assert r.verdict == "consistent"


# --------------------------------------------------------------------------- Dirichlet
@pytest.mark.parametrize("w", [2, 3])
def test_dirichlet_lb_below_tight_below_theorem(w):
    # spec B20: ε_lb <= ε_tight <= ε_Thm (Theorem 1.6 with the corrections)
    r = run_audit("dirichlet", samples=FAST, seed=7, k=10.0, eta=0.15, w=w, b=0.1,
                  delta=0.05)
    assert r.epsilon_lb <= r.epsilon_tight <= r.epsilon_claimed
    assert r.epsilon_tight_audited_pair is not None
    assert r.epsilon_lb <= r.epsilon_tight_audited_pair
    assert r.attack["features"] == "logistic regression"


def _pair(w: int):
    v = adir.DirichletVariant(k=10.0, eta=0.15, eta_bar=0.15, w=w, b=0.1, delta=0.05)
    pairs = adir.candidate_pairs(None, v)
    tights = [adir.epsilon_tight_exact(a, b, v.k, 0.05) for _, a, b in pairs]
    _, a, b = pairs[int(np.argmax(tights))]
    return v, a, b, max(tights)


@pytest.mark.parametrize("w", [2, 3])
def test_dirichlet_exact_profile_agrees_with_monte_carlo(w):
    v, a, b, eps_t = _pair(w)
    rng = np.random.default_rng(99)
    n = 100_000
    for eps in (0.0, 0.5 * eps_t, eps_t):
        exact = adir.delta_tight_exact(a, b, v.k, eps)
        mc, se = adir.delta_tight_mc(a, b, v.k, eps, n, rng)
        # 5 standard errors of the MC estimate (se from the two binomial means)
        assert abs(mc - exact) <= 5 * se + 1e-12, (eps, exact, mc, se)
    # at ε_tight the exact δ is the target, and the MC ε_tight lands close to it: the MC
    # δ has se ≈ 1e-3 here and |dδ/dε| ≈ 0.1–0.2, so ±0.1 in ε is > 5 se
    assert adir.delta_tight_exact(a, b, v.k, eps_t) == pytest.approx(0.05, abs=1e-8)
    assert adir.epsilon_tight_mc(a, b, v.k, 0.05, n, rng) == pytest.approx(eps_t, abs=0.1)


def test_dirichlet_pairs_are_neighbours_in_the_domain():
    v = adir.DirichletVariant(k=10.0, eta=0.1, eta_bar=0.2, w=3, b=0.1, delta=0.05)
    for _, p, q in adir.candidate_pairs(None, v):
        for x in (p, q):
            assert x.sum() == pytest.approx(1.0)
            assert (x[:3] >= 0.1 - 1e-12).all() and x[3] >= 0.2 - 1e-12
        assert np.abs(p - q).sum() <= 0.1 + 1e-12
        assert (p != q).sum() == 2 and p[3] == q[3]  # the remainder is fixed


def test_laplace_closed_form_tight_profile():
    # δ(ε) = 1 − exp((ε − μ)/2): MC of the privacy loss, 5 standard errors
    from core.audit import laplace as alap

    rng = np.random.default_rng(4)
    xa, xb = rng.laplace(0, 1, 200_000), rng.laplace(1, 1, 200_000)

    def loss(x):
        return np.abs(x - 1) - np.abs(x)

    v = alap.LaplaceVariant()
    for d in (0.05, 0.2):
        eps, _ = alap.tight_epsilon(0.0, 1.0, d, 1.0, v)
        mc, se = mc_delta(loss(xa), loss(xb), eps)
        assert abs(mc - d) <= 5 * se


# --------------------------------------------------------------------------- runner
def _rr_module(true_eps: float, claim: float):
    """Randomised response on one bit with true ε, claiming ``claim``."""
    p = math.exp(true_eps) / (1 + math.exp(true_eps))

    def sample(inp, n, rng, epsilon, variant):
        keep = rng.random(n) < p
        return np.where(keep, inp, 1 - inp).astype(np.int64)

    return types.SimpleNamespace(
        __name__="fake_rr", LABEL="randomised response", DEFAULT_SAMPLES=FAST,
        RELEASE_PATH=False, variant_from=lambda params: (params["epsilon"], "x"),
        parameters=lambda e, v: {"epsilon": e},
        claimed=lambda e, v: (claim, 0.0, "one bit flipped", "raw bit" if claim == math.inf
                              else None),
        candidate_pairs=lambda e, v: [({"a": 0, "b": 1}, 0, 1)],
        sample_outputs=sample,
        exact_distribution=lambda inp, e, v: {inp: p, 1 - inp: 1 - p},
        tight_epsilon=lambda a, b, d, e, v: None, exact_roc=lambda a, b, e, v: None)


def test_runner_on_a_discrete_module():
    r = audit_module("rr", _rr_module(1.0, 0.5), 1.0, "x", samples=FAST, seed=1)
    assert r.verdict == "violation" and 0.5 < r.epsilon_lb <= 1.0
    assert r.epsilon_tight == pytest.approx(1.0, abs=1e-9)
    assert r.attack["kind"] == "discrete"
    ok = audit_module("rr", _rr_module(1.0, 1.0), 1.0, "x", samples=FAST, seed=1)
    assert ok.verdict == "consistent"


def test_unbounded_claim_is_never_a_violation_and_serialises_as_null():
    r = audit_module("rr", _rr_module(3.0, math.inf), 1.0, "x", samples=FAST, seed=1)
    assert r.verdict == "consistent" and r.epsilon_lb > 2.0
    d = r.to_dict()
    s = dumps(d)
    assert '"epsilon_claimed": null' in s and d["epsilon_claimed_reason"] == "raw bit"
    assert "Infinity" not in s and "NaN" not in s


def test_contract_keys_and_json():
    r = run_audit("laplace", samples=2000, seed=1, epsilon=1.0, sensitivity=1.0)
    d = r.to_dict()
    assert list(d)[:len(CONTRACT)] == list(CONTRACT)
    assert d["verdict"] in ("consistent", "violation")
    assert all(0 <= f <= 1 and 0 <= t <= 1 for f, t in d["roc"])
    assert d["roc"][0] == [0.0, 0.0] and d["roc"][-1] == [1.0, 1.0]
    dumps(d)  # strict JSON
    assert r.mode == "experiment" and r.seed == 1 and r.elapsed_s > 0


def test_epsilon_tight_null_with_reason_when_unknown():
    mod = _rr_module(1.0, 2.0)
    mod.exact_distribution = lambda inp, e, v: None  # densities unknown
    d = audit_module("rr", mod, 1.0, "x", samples=2000, seed=1).to_dict()
    assert d["epsilon_tight"] is None and d["epsilon_tight_reason"]
    assert "pre-screen" in d["candidates"][0]["ranked_by"]


def test_seeded_audits_are_reproducible():
    a = run_audit("dirichlet", samples=3000, seed=9, k=10.0, eta=0.15, w=2, b=0.1,
                  delta=0.05)
    b = run_audit("dirichlet", samples=3000, seed=9, k=10.0, eta=0.15, w=2, b=0.1,
                  delta=0.05)
    assert a.epsilon_lb == b.epsilon_lb and a.pair == b.pair and a.roc == b.roc


def test_progress_and_cancel():
    seen = []
    run_audit("laplace", samples=2000, seed=1, epsilon=1.0, sensitivity=1.0,
              progress=lambda f, m="": seen.append(f))
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert seen == sorted(seen)
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        run_audit("laplace", samples=50_000, seed=1, epsilon=1.0, sensitivity=1.0,
                  cancel=cancel)

    def stop(f, m=""):
        if f > 0.3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_audit("laplace", samples=50_000, seed=1, epsilon=1.0, sensitivity=1.0,
                  progress=stop)


@pytest.mark.parametrize(("mech", "params", "field"), [
    ("nope", {}, "mechanism"),
    ("laplace", {"sensitivity": 1.0}, "epsilon"),
    ("laplace", {"epsilon": -1.0}, "epsilon"),
    ("laplace", {"epsilon": 1.0, "sensitivity": 0.0}, "sensitivity"),
    ("laplace", {"epsilon": 1.0, "bogus": 1}, "bogus"),
    ("dirichlet", {"k": 10.0, "eta": -0.1, "w": 2, "b": 0.1, "delta": 0.05}, "eta"),
    ("dirichlet", {"k": 10.0, "eta": 0.4, "w": 2, "b": 0.1, "delta": 0.05}, "eta"),
    ("dirichlet", {"k": 10.0, "eta": 0.1, "w": 2, "b": 0.1, "delta": 1.5}, "delta"),
    ("dirichlet", {"k": 10.0, "eta": 0.1, "w": 2, "b": 0.1, "delta": 0.05,
                   "analysis": "x"}, "analysis"),
])
def test_bad_input_names_the_field(mech, params, field):
    with pytest.raises(InputError) as err:
        run_audit(mech, samples=1000, seed=1, **params)
    assert err.value.field == field


def test_bad_samples_and_seed():
    with pytest.raises(InputError) as err:
        run_audit("laplace", samples=10, seed=1, epsilon=1.0)
    assert err.value.field == "samples"
    with pytest.raises(InputError) as err:
        run_audit("laplace", samples=1000, seed=-1, epsilon=1.0)
    assert err.value.field == "seed"


# --------------------------------------------------------------------------- advising / logistics
@pytest.mark.parametrize("mech", ["advising", "logistics"])
@pytest.mark.parametrize("variant", ["sound", "thesis"])
def test_other_mechanisms(mech, variant):
    assert available(mech), f"{MECHANISMS[mech][0]} must import"
    key = "variant" if mech == "advising" else "preset"
    r = run_audit(mech, samples=4000, seed=13, epsilon=1.0, **{key: variant})
    if variant == "sound":
        assert r.verdict == "consistent", f"{mech}: epsilon_lb {r.epsilon_lb} > claimed"
    if r.unbounded:
        assert r.verdict == "consistent" and r.to_dict()["epsilon_claimed_reason"]
    dumps(r.to_dict())


def test_exact_tight_epsilon_above_the_claim_is_a_violation():
    """A slightly broken Laplace (true ε = 1/0.9 ≈ 1.11, claimed 1) may escape the statistical
    attack at a small N, but the exact ε_tight of the worst pair proves the claim false."""
    r = run_audit("laplace", samples=2_000, seed=5, epsilon=1.0, sensitivity=1.0,
                  noise_factor=0.9)
    assert r.epsilon_tight == pytest.approx(1 / 0.9, rel=1e-6)
    assert r.verdict == "violation"
