"""The certified accountant of the shared-policy mechanism (core.sharing.profile)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.privacy.dirichlet import dirichlet_rows
from core.sharing.audit_target import pair_epsilon
from core.sharing.mechanism import tau_for_delta, theorem1_epsilon
from core.sharing.profile import l2_profile, product_epsilon


def _mc_delta(p: np.ndarray, q: np.ndarray, k: float, eps: float, n: int, seed: int
              ) -> tuple[float, float]:
    """δ(ε) = E_p[(1 − e^{ε − L})_+] with L the full Dirichlet log-density ratio."""
    from scipy.special import gammaln

    rng = np.random.default_rng(seed)
    z = np.log(dirichlet_rows(np.tile(p, (n, 1)), k, rng))
    loss = z @ (k * (p - q)) + float(gammaln(k * q).sum() - gammaln(k * p).sum())
    v = np.maximum(0.0, -np.expm1(eps - loss))
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n))


@pytest.mark.parametrize("p, q, k", [
    ([0.05, 0.806698729811, 0.05, 0.093301270189],
     [0.06443375673, 0.821132486541, 0.06443375673, 0.05], 5.0),
    ([0.2, 0.3, 0.5], [0.25, 0.25, 0.5], 20.0),
    ([0.1, 0.1, 0.1, 0.7], [0.13, 0.12, 0.1, 0.65], 50.0)])
def test_the_product_of_gamma_pairs_is_the_dirichlet_pair(p, q, k) -> None:
    """Step 1 of the module: H(Dir(kπ) ‖ Dir(kπ′)) is the product's, checked against Monte
    Carlo on the full Dirichlet density ratio, from above and from below."""
    p, q = np.array(p), np.array(q)
    diff = p - q
    moves = [(abs(d), d > 0) for d in diff if abs(d) > 0]
    bases = [min(a, b) for a, b in zip(p, q) if abs(a - b) > 0]
    for delta in (0.05, 1e-3):
        hi = product_epsilon(moves, k, 0.0, delta, bases=bases)
        lo = product_epsilon(moves, k, 0.0, delta, bases=bases, pessimistic=False)
        assert lo <= hi <= lo + 0.05 + 0.02 * lo
        mc_hi, se_hi = _mc_delta(p, q, k, hi, 400_000, seed=1)
        mc_lo, se_lo = _mc_delta(p, q, k, lo, 400_000, seed=2)
        assert mc_hi <= delta + 5 * se_hi + 1e-6
        assert mc_lo >= delta - 5 * se_lo - 1e-6


@pytest.mark.parametrize("k, m, eta, lb, delta", [(5.0, 4, 0.05, 0.05, 1e-3),
                                                   (20.0, 3, 0.1, 0.1, 0.05),
                                                   (2.0, 5, 0.08, 0.05, 1e-3)])
def test_no_neighbouring_policy_pair_beats_the_certified_epsilon(k, m, eta, lb, delta) -> None:
    prof = l2_profile(k, m, eta, lb, delta=delta)
    assert prof.epsilon_lower <= prof.epsilon <= 1.6 * prof.epsilon_lower
    rng = np.random.default_rng(int(k * 10) + m)
    worst = 0.0
    for _ in range(60):
        p = eta + rng.dirichlet(np.full(m, rng.choice([0.3, 1.0, 4.0]))) * (1 - m * eta)
        v = rng.normal(size=m)
        v -= v.mean()
        v *= lb / np.linalg.norm(v) * rng.uniform(0.5, 1.0)
        q = p + v
        if q.min() < eta:
            continue
        worst = max(worst, pair_epsilon(p, q, k, delta))
    assert 0 < worst <= prof.epsilon


def test_the_profile_is_far_below_eq_12_at_the_issue_parameters() -> None:
    # the issue: eq. 12 states about 23 per query where the worst pair needs far less
    k, m, eta, lb, delta = 5.0, 4, 0.05, 0.05, 1e-3
    tau, _ = tau_for_delta(k, m, eta, delta, draws=50_000, rng=0)
    eq12 = theorem1_epsilon(k, m, eta, tau, lb)
    prof = l2_profile(k, m, eta, lb, delta=delta)
    assert eq12 > 20 and prof.epsilon < eq12 / 4
    assert prof.epsilon <= 1.5 * prof.epsilon_lower


def test_degenerate_radius_and_domain() -> None:
    assert l2_profile(5.0, 4, 0.05, 0.0, delta=1e-3).epsilon == 0.0
    assert l2_profile(5.0, 4, 0.25, 0.05, delta=1e-3).epsilon == 0.0  # a single point


def test_the_audit_target_finds_pairs_near_the_claim() -> None:
    from core.audit import run_audit

    r = run_audit("sharing", samples=20_000, seed=3, k=5.0, m=4, eta=0.05, lb=0.05,
                  delta=1e-3)
    assert r.verdict == "consistent" and r.epsilon_lb <= r.epsilon_tight <= r.epsilon_claimed
    assert r.epsilon_claimed <= 1.5 * r.epsilon_tight  # within 1.5x
