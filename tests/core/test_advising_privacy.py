"""Privacy of DP advising: the noise has the stated scale, the ledger and the accountants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import core.advising.framework as fw
from core.advising.accounting import (
    account_advising,
    advanced_composition,
    basic_composition,
    laplace_rdp,
    rdp_composition,
)
from core.advising.framework import SENSITIVITY_NOTE, run_advising
from core.advising.presets import preset
from core.privacy.ledger import PrivacyLedger


class Spy:
    """Wraps the engine's laplace_release: records every call's noise and parameters."""

    def __init__(self) -> None:
        self.noise: list[np.ndarray] = []
        self.params: set[tuple[float, float]] = set()
        self.calls = 0

    def __call__(self, value, *, epsilon, sensitivity, rng=None):
        out = fw_laplace(value, epsilon=epsilon, sensitivity=sensitivity, rng=rng)
        self.noise.append((out - np.asarray(value)).ravel())
        self.params.add((epsilon, sensitivity))
        self.calls += 1
        return out


fw_laplace = fw.laplace_release


# Every candidate of every student is noised on every epoch when d is unreachable
# (no advice, budgets never spent): 10 students x 9 candidates x 4 values per epoch.
NO_ADVICE = 1e12


@pytest.mark.parametrize("variant,scale", [("sound", 2.0 / 0.5), ("thesis", 1.0 / 0.5)])
def test_engine_noise_has_the_stated_laplace_scale(monkeypatch, variant, scale):
    """KS test and mean |x| of the noise actually added in a run, against Laplace(S/ε).

    Tolerance: |x| of Laplace(b) is Exponential(b), mean b and sd b, so the mean of n
    draws has relative standard error 1/√n; with n ≥ 9e4, 2 % is ≥ 6 standard errors.
    The KS p-value threshold 0.01 is the spec's; the run is seeded, so it is deterministic.
    """
    spy = Spy()
    monkeypatch.setattr(fw, "laplace_release", spy)
    s = preset("exp2", strategy="dp", variant=variant, epsilon=0.5,
               distance_threshold=NO_ADVICE, epochs=310)
    r = run_advising(s, rng=12345)
    x = np.concatenate(spy.noise)
    assert spy.params == {(0.5, s.noise_sensitivity)}
    assert x.size == r.releases_per_epoch.sum() * 4 > 90_000
    assert stats.kstest(x, stats.laplace(scale=scale).cdf).pvalue > 0.01
    assert abs(np.abs(x).mean() / scale - 1) < 0.02
    # Variance 2b²: the sample variance of n Laplace draws has relative sd √(5/n) ≈ 0.7 %.
    assert abs(x.var() / (2 * scale ** 2) - 1) < 0.05
    assert abs(x.mean()) < 6 * math.sqrt(2) * scale / math.sqrt(x.size)


def test_release_mode_noise_comes_from_opendp_with_the_stated_scale(monkeypatch):
    """Release mode cannot be seeded; the bounds are ≥ 6 standard errors wide.

    n ≈ 1.4e4 draws: mean |x| has relative sd 1/√n ≈ 0.85 % (bound 6 %, ~7 sd); the
    sample variance has relative sd √(5/n) ≈ 1.9 % (bound 15 %, ~8 sd). False alarm
    probability below 1e-9.
    """
    spy = Spy()
    monkeypatch.setattr(fw, "laplace_release", spy)
    s = preset("exp2", strategy="dp", epsilon=2.0, distance_threshold=NO_ADVICE, epochs=40)
    r = run_advising(s, rng=None)
    assert r.mode == "release"
    x = np.concatenate(spy.noise)
    b = s.noise_sensitivity / 2.0
    assert x.size > 12_000
    assert abs(np.abs(x).mean() / b - 1) < 0.06
    assert abs(x.var() / (2 * b * b) - 1) < 0.15


# ------------------------------------------------------------------ ledger
@pytest.mark.parametrize("variant", ["sound", "thesis"])
def test_every_noisy_release_goes_in_the_teachers_ledger(variant):
    s = preset("exp2", strategy="dp", variant=variant, epsilon=0.7)
    r = run_advising(s, rng=3)
    led = PrivacyLedger()
    led.set_budget("advising:exp2:u1", 1e6)
    out = r.ledger(led)
    assert out is led
    n_noisy = int(r.releases.noised.sum())
    assert len(led.entries) == n_noisy == r.releases_per_epoch.sum()
    true_eps = 0.7 * s.strict_sensitivity / s.noise_sensitivity
    assert true_eps == pytest.approx(0.7 if variant == "sound" else 1.4)
    e = led.entries[0]
    assert e.mechanism == "laplace" and e.epsilon == pytest.approx(true_eps)
    assert e.parameters["sensitivity"] == s.noise_sensitivity
    assert e.parameters["strict_sensitivity"] == 2.0 and e.parameters["nominal_epsilon"] == 0.7
    assert e.mode == "experiment" and e.seed == 3
    for j, name in enumerate(s.agents):
        total, delta = led.total(f"advising:exp2:{name}")
        assert total == pytest.approx(r.epsilon_spent[j]) and delta == 0.0
        assert total == pytest.approx(r.accounting.agents[j].releases * true_eps)
    # Raw case-1 releases (thesis) are not ε-DP: counted, flagged, never ledger entries.
    raw = int(r.unprotected_per_epoch.sum())
    assert raw == int((~r.releases.noised).sum())
    assert (raw > 0) == (variant == "thesis")
    if variant == "thesis":
        assert any("no DP protection" in n for n in r.notes)
        assert any(SENSITIVITY_NOTE[:40] in n for n in r.notes)


def test_epsilon_over_time_and_json_totals():
    r = run_advising(preset("exp2", strategy="dp", variant="thesis"), rng=0)
    t = r.epsilon_over_time()
    assert t.shape == (700, 10) and (np.diff(t, axis=0) >= 0).all()
    assert t[-1] == pytest.approx(r.epsilon_spent)
    d = r.to_dict()
    assert d["epsilon_spent"] == pytest.approx((2 * np.array(d["epsilon_spent_nominal"])).tolist())
    comp = d["composition"]
    assert set(comp["accountants"]) == {"basic", "advanced", "rdp"}
    assert all(rd <= b + 1e-9 and a <= b + 1e-9 for rd, a, b in
               zip(comp["rdp"], comp["advanced"], comp["basic"]))


# ------------------------------------------------------------------ accountants
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("order", [1.5, 2.0, 5.0, 20.0])
def test_laplace_rdp_matches_numerical_renyi_divergence(eps, order):
    """D_α(Lap(0, b) ‖ Lap(1, b)) with b = 1/ε, by quadrature, against Mironov's closed form."""
    b = 1.0 / eps

    def integrand(x: float) -> float:
        logp = -abs(x) / b
        logq = -abs(x - 1.0) / b
        return math.exp(order * logp + (1 - order) * logq) / (2 * b)

    val, _ = integrate.quad(integrand, -60 * b, 60 * b, points=[0.0, 1.0], limit=200)
    assert laplace_rdp(order, eps) == pytest.approx(math.log(val) / (order - 1), rel=1e-7)


def test_rdp_limits_and_composition():
    # α → 1: KL divergence ε + e^{−ε} − 1; α → ∞: ε.
    assert laplace_rdp(1 + 1e-7, 1.0) == pytest.approx(1 + math.exp(-1) - 1, rel=1e-5)
    assert laplace_rdp(1e7, 1.0) == pytest.approx(1.0, rel=1e-5)
    prev = 0.0
    for k in (1, 10, 100, 1000):
        e, _ = rdp_composition(k, 0.1, delta=1e-5)
        assert prev <= e <= k * 0.1 + 1e-12
        prev = e
    small, _ = rdp_composition(1000, 0.05, delta=1e-6)
    assert small < advanced_composition([0.05] * 1000, delta=1e-6) < 1000 * 0.05


def test_advanced_composition_formula():
    k, e, d = 200, 0.05, 1e-6
    expected = e * math.sqrt(2 * k * math.log(1 / d)) + k * e * math.expm1(e)
    assert advanced_composition([e] * k, delta=d) == pytest.approx(expected)
    assert advanced_composition([3.0] * 5, delta=d) == basic_composition([3.0] * 5) == 15.0
    assert advanced_composition([1e12], delta=d) == 1e12  # no overflow warning


def test_account_advising_states_strict_and_nominal():
    acc = account_advising(["a", "b"], [100, 0], [0, 5], epsilon=1.0, noise_sensitivity=1.0,
                           strict_sensitivity=2.0, delta=1e-5)
    assert acc.epsilon_per_release == 2.0
    assert acc.totals("basic").tolist() == [200.0, 0.0]
    assert acc.totals("nominal").tolist() == [100.0, 0.0]
    assert acc.agents[0].tightest[0] in ("rdp", "basic") and acc.agents[0].protected
    assert not acc.agents[1].protected and acc.unprotected == 5
    text = acc.statement()
    assert "2-DP" in text and "claims 1" in text and "no DP protection" in text
