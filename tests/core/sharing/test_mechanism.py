"""Theorem 1 of [KS] (the teacher's Dirichlet mechanism): spec oracles B1–B8 and B16,
Monte Carlo δ against the closed forms, and an attack on the ε bound itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import gammaln

from core.common.errors import InputError
from core.privacy.composition import accuracy_cap
from core.sharing.mechanism import (
    alpha_lambda,
    delta_closed_form,
    delta_mc,
    gamma_split,
    gamma_split_limit,
    ignore_threshold,
    lemma1_tail_m2,
    radius_quantile,
    tau_for_delta,
    teacher_policy_in_domain,
    theorem1_epsilon,
    vertex,
)


def test_gamma_split_oracles_b1_b2():
    assert gamma_split(5, 6, 0.1) == pytest.approx(2.419646, rel=1e-5)
    for args, want in (((5, 6, 0.15), 0.191271), ((1, 3, 0.1), 1.701223),
                       ((10, 3, 0.2), 1.722127), ((5, 2, 0.25), 0.819178)):
        assert gamma_split(*args) == pytest.approx(want, rel=1e-5)


def test_epsilon_eq12_oracle_b3_and_the_tight_option():
    eps = theorem1_epsilon(5, 6, 0.1, 1e-3, 0.01)
    assert eps == pytest.approx(3.265670, rel=1e-5)
    assert eps >= 3.265669582  # the rounding allowance only ever adds
    tight = theorem1_epsilon(5, 6, 0.1, 1e-3, 0.01, bound="tight")
    linear = math.sqrt(6) * 0.01 * 5 * math.log(1e3)
    assert tight == pytest.approx(eps - linear / 2, abs=1e-9)


@pytest.mark.parametrize("m", [2, 3, 6])
def test_gamma_split_b4_zero_at_uniform_nonnegative_and_its_limit(m):
    for k in (0.05, 1.0, 7.3, 1e4):
        assert abs(gamma_split(k, m, 1.0 / m)) < 1e-9
        for eta in (0.01, 0.5 / m, 0.99 / m):
            assert gamma_split(k, m, eta) >= 0
    assert gamma_split_limit(6, 0.1) == pytest.approx(1.4555, abs=1e-4)
    assert gamma_split(0.05, 6, 0.1) == pytest.approx(1.4558, abs=1e-4)
    assert gamma_split(1e-6, m, 0.3 / m) == pytest.approx(gamma_split_limit(m, 0.3 / m),
                                                          abs=1e-4)


def test_closed_form_delta_b5_b6():
    for args, want in (((5, 2, 0.1, 0.01), 0.230125), ((5, 2, 0.25, 0.05), 0.104865),
                       ((20, 2, 0.1, 0.01), 0.015274)):
        assert delta_closed_form(*args) == pytest.approx(want, abs=5e-7)  # 6 decimals
    assert delta_closed_form(3, 3, 1 / 3, 0.05) == pytest.approx(0.277500, rel=1e-5)
    assert delta_closed_form(6, 6, 1 / 6, 0.01) == pytest.approx(0.266096, rel=1e-5)
    assert delta_closed_form(5, 6, 0.1, 0.01) is None  # no closed form: Monte Carlo


@pytest.mark.parametrize("args", [(5, 2, 0.1, 0.01), (5, 2, 0.25, 0.05), (20, 2, 0.1, 0.01),
                                  (3, 3, 1 / 3, 0.05), (6, 6, 1 / 6, 0.01)])
def test_monte_carlo_delta_agrees_with_the_closed_forms(args):
    """Fixed seed, 2·10⁵ draws: the estimate is within 4 standard errors of the exact δ
    (sd = √(δ(1−δ)/N)), and the 95 % upper bound is above it."""
    exact = delta_closed_form(*args)
    d = delta_mc(*args, draws=200_000, rng=12)
    se = math.sqrt(exact * (1 - exact) / d.draws)
    assert abs(d.estimate - exact) < 4 * se, (d, exact)
    assert d.upper >= exact and d.upper - d.estimate < 5 * se
    assert d.mode == "experiment" and d.seed == 12 and "Clopper" in d.text


def test_upper_bound_covers_the_truth_at_its_level():
    """Over 200 seeds of 2,000 draws the 95 % one-sided CP bound misses the exact δ in at
    most 5 % of runs (plus 3 binomial sd: 5 % + 3·√(0.05·0.95/200) ≈ 9.6 %)."""
    exact = delta_closed_form(5, 2, 0.25, 0.05)
    misses = sum(delta_mc(5, 2, 0.25, 0.05, draws=2000, rng=s).upper < exact for s in range(200))
    assert misses / 200 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)


def test_delta_goes_to_one_as_k_goes_to_zero_while_epsilon_stays_positive():
    """Spec §1.3: Theorem 1 does not get stronger as k shrinks (its δ tends to 1)."""
    deltas = [delta_mc(k, 6, 0.1, 1e-3, draws=20_000, rng=1).estimate for k in (50, 5, 0.5)]
    assert deltas[0] < deltas[1] < deltas[2] and deltas[2] > 0.99
    assert theorem1_epsilon(0.05, 6, 0.1, 1e-3, 0.05) > 1.45  # G's limit stays


def test_alpha_lambda_b7_and_the_ignore_threshold():
    assert alpha_lambda(5, 0.5, 0.05) == pytest.approx(0.249822, rel=1e-5)
    assert alpha_lambda(5, 1, 0.05) == pytest.approx(0.499644, rel=1e-5)
    k_star = ignore_threshold(0.5, 1e-8)
    assert alpha_lambda(max(k_star, 0), 0.5, 1e-8) >= math.sqrt(2) - 1e-12
    assert ignore_threshold(0.5, 0.05) < 0  # at λ = 0.5, β = 0.05 nothing is ignored


def test_lemma1_is_false_b8():
    r, tail = lemma1_tail_m2(100, 0.05)
    assert (r, tail) == (pytest.approx(0.121780, rel=1e-5), pytest.approx(0.083472, rel=1e-5))
    assert tail > 0.05
    r5, tail5 = lemma1_tail_m2(5, 0.05)
    assert (r5, tail5) == (pytest.approx(0.499644, rel=1e-5), pytest.approx(0.075889, rel=1e-5))
    # the Monte Carlo radius is the calibrated one: its tail is β (within sampling error)
    q = radius_quantile(100, np.array([0.5, 0.5]), 0.05, draws=100_000, rng=3)
    assert q > r
    x = np.random.default_rng(9).beta(50, 50, size=200_000)
    tail_q = float((np.sqrt(2) * np.abs(x - 0.5) >= q).mean())
    assert abs(tail_q - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 200_000) + 4 * math.sqrt(
        0.05 * 0.95 / 100_000)


def test_accuracy_cap_b16():
    assert accuracy_cap(2.90, 4.9e-4) == pytest.approx(0.947872, rel=1e-5)
    assert accuracy_cap(4.46, 0.05) == pytest.approx(0.989141, rel=1e-5)
    assert accuracy_cap(1, 0) == pytest.approx(0.731059, rel=1e-5)
    assert accuracy_cap(0, 0) == 0.5 and accuracy_cap(math.inf, 0) == 1.0


def _log_density(z: np.ndarray, k: float, p: np.ndarray) -> np.ndarray:
    a = k * p
    return float(gammaln(k)) + ((a - 1) * np.log(z)).sum(axis=1) - float(gammaln(a).sum())


@pytest.mark.parametrize("m,eta,k,lb", [(2, 0.1, 5.0, 0.05), (3, 0.05, 20.0, 0.02),
                                         (6, 0.1, 5.0, 0.05)])
def test_attack_the_epsilon_bound_on_the_good_set(m, eta, k, lb):
    """The privacy loss ln p_π(z) − ln p_π′(z) over z ∈ Δ_{m,τ} never exceeds ε of eq. 12,
    for the worst pairs we can find: a vertex of Δ_{m,η} against its neighbours moved by
    ``lb`` along e_i − e_j, and the uniform point; z drawn from both and from the corners
    of Δ_{m,τ} (where ln z_i is most extreme)."""
    tau = 1e-3
    eps = theorem1_epsilon(k, m, eta, tau, lb)
    v = vertex(m, eta)
    cands = [v, np.full(m, 1.0 / m)]
    pairs = []
    for p in cands:
        for i in range(m):
            for j in range(m):
                if i == j:
                    continue
                q = p.copy()
                step = lb / math.sqrt(2)
                q[i] += step
                q[j] -= step
                if q.min() >= eta - 1e-12:
                    pairs.append((p, q))
    assert pairs
    rng = np.random.default_rng(5)
    worst = -np.inf
    for p, q in pairs:
        z = np.concatenate([rng.dirichlet(k * p, 20_000), rng.dirichlet(k * q, 20_000)])
        corners = np.full((m, m), tau)
        corners[np.arange(m), np.arange(m)] = 1 - (m - 1) * tau
        z = np.concatenate([z, corners])
        z = z[z.min(axis=1) >= tau]
        loss = np.abs(_log_density(z, k, p) - _log_density(z, k, q))
        worst = max(worst, float(loss.max()))
    assert worst <= eps, (worst, eps)


def test_tau_for_a_target_delta_is_consistent_with_delta_mc():
    tau, d = tau_for_delta(5, 6, 0.1, 0.05, draws=50_000, rng=4)
    assert 0 < tau < 1 / 6 and d.upper <= 0.05
    again = delta_mc(5, 6, 0.1, tau, draws=50_000, rng=4)
    assert again.misses == d.misses  # the same draws: the same count below τ
    with pytest.raises(InputError, match="cannot show delta"):
        tau_for_delta(5, 6, 0.1, 1e-9, draws=1000, rng=4)


def test_teacher_policy_is_mapped_into_the_domain():
    pi = np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    out = teacher_policy_in_domain(pi, 0.1)
    assert np.allclose(out.sum(axis=1), 1) and out.min() >= 0.1 - 1e-15
    assert np.allclose(out[0], [0.8, 0.1, 0.1])


@pytest.mark.parametrize("call,field", [
    (lambda: theorem1_epsilon(5, 6, 0.2, 1e-3, 0.01), "eta"),        # η > 1/m
    (lambda: theorem1_epsilon(0, 6, 0.1, 1e-3, 0.01), "k"),          # k <= 0
    (lambda: theorem1_epsilon(5, 6, 0.1, 0.5, 0.01), "tau"),         # τ >= 1/m
    (lambda: theorem1_epsilon(5, 6, 0.1, 1e-3, -1), "lb"),
    (lambda: theorem1_epsilon(5, 1, 0.1, 1e-3, 0.01), "m"),
    (lambda: theorem1_epsilon(5, 6, 0.1, 1e-3, 0.01, bound="x"), "bound"),
    (lambda: alpha_lambda(5, -0.1, 0.05), "lambda"),                 # λ < 0
    (lambda: alpha_lambda(5, 0.5, 1.0), "beta"),                     # β ∉ (0, 1)
    (lambda: delta_mc(5, 6, 0.1, 1e-3, draws=10), "draws"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.field == field


def test_tiny_k_is_not_made_private_by_a_floored_sampler():
    """At k = 1e-4 the Dirichlet mass sits on the vertices: min_i x_i is astronomically small
    (far below the smallest double), so δ = P(min x < τ) ≈ 1 for every representable τ and
    no τ reaches a small target. A sampler that floors its draws at 1e-300 would report
    δ ≈ 0 at τ = 1e-300 — an optimistic guarantee; the log-space draws do not."""
    d = delta_mc(1e-4, 4, 0.1, 1e-300, draws=20_000, rng=1)
    assert d.estimate > 0.99
    with pytest.raises(InputError, match="no tau"):
        tau_for_delta(1e-4, 4, 0.1, 1e-3, draws=20_000, rng=1)
    # and at moderate k the log-space estimate still agrees with the closed form (m = 2)
    exact = delta_closed_form(0.5, 2, 0.2, 1e-3)
    est = delta_mc(0.5, 2, 0.2, 1e-3, draws=200_000, rng=2)
    assert abs(est.estimate - exact) < 4 * math.sqrt(exact * (1 - exact) / 200_000)


def test_privacy_curve_shows_delta_rising_as_k_falls_and_the_split():
    from core.sharing.mechanism import privacy_curve

    c = privacy_curve([0.1, 1, 10, 100], 6, 0.1, 1e-3, 0.05, draws=20_000, rng=3)
    assert np.allclose(c.epsilon, c.epsilon_linear + c.gamma_part)
    assert c.delta[0] > 0.99 and c.delta[-1] < c.delta[0]     # δ → 1 as k → 0
    assert np.all(c.delta_upper >= c.delta)
    assert np.all(np.diff(c.epsilon_linear) > 0)              # the L·b part grows with k


def test_radius_curve_exposes_lemma1():
    """The calibrated quantile lies above Lemma 1's radius where the lemma fails (spec
    §1.4: m = 3 violates at every k >= 5), Chebyshev bounds the quantile from above."""
    from core.sharing.mechanism import radius_curve

    r = radius_curve([5.0, 20.0, 100.0], 3, 0.1, 0.5, 0.05, draws=40_000, rng=1)
    assert np.all(r.quantile > r.lemma1)
    assert np.all(r.chebyshev >= r.quantile)
    assert np.allclose(r.alpha_lambda, 0.5 * r.lemma1) and "false" in r.warning


def test_f2_all_entries_l2_analysis_of_a_row():
    """Spec F2: eq. 12 with L = 1 and the row's n, δ by Monte Carlo at τ solved for the target;
    the CLI offers it as `dirichlet --adjacency l2-all` beside the two-entry ℓ1 analysis."""
    import io
    import json

    from core.cli.main import run_cli
    from core.sharing.mechanism import row_privacy_l2

    r = row_privacy_l2(50, 3, 0.1, math.sqrt(2) / 100, delta=0.05, draws=50_000, rng=1,
                       bound="paper")
    assert r.delta <= 0.05 and r.epsilon == theorem1_epsilon(50, 3, 0.1, r.tau, r.b)
    p = row_privacy_l2(50, 3, 0.1, math.sqrt(2) / 100, delta=0.05)  # the default: profile
    assert p.bound == "profile" and p.epsilon_lower <= p.epsilon < r.epsilon / 2
    assert "sqrt(2)/n_sa" in r.adjacency
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(["dirichlet", "--adjacency", "l2-all", "--k", "50", "--eta", "0.1", "--w",
                    "3", "--b", "0.01", "--delta", "0.05", "--draws", "20000", "--seed", "2",
                    "--bound", "paper", "--json"], out, err) == 0, err.getvalue()
    d = json.loads(out.getvalue())
    assert d["adjacency"] == "l2-all" and d["delta"] <= 0.05 and d["epsilon_approx"] is None
    assert d["epsilon_approx_reason"] and d["gamma"] == d["tau"]
    for args, flag in ((["--tau", "0.01"], "--tau"),
                       (["--adjacency", "l2-all", "--gamma", "0.01"], "--gamma"),
                       (["--adjacency", "l2-all", "--eta", "0.5", "--delta", "0.05"], "--eta")):
        base = ["dirichlet", "--k", "50", "--w", "3", "--b", "0.01"]
        if "--eta" not in args:
            base += ["--eta", "0.1"]
        err = io.StringIO()
        assert run_cli(base + args, io.StringIO(), err) == 2
        assert flag in err.getvalue() and err.getvalue().count("\n") == 1, err.getvalue()


def test_tight_epsilon_lies_below_eq12_b20():
    """Spec B20 sanity: the Monte Carlo ε_tight of the worst neighbouring pairs found is
    below Theorem 1's ε at the same δ (eq. 12 is an upper bound; here a loose one)."""
    from core.sharing.mechanism import neighbour_pairs, privacy_curve, tight_epsilon_curve

    assert len(neighbour_pairs(4, 0.1, 0.05)) >= 3
    ks = [2.0, 10.0, 50.0]
    pc = privacy_curve(ks, 4, 0.1, 1e-3, 0.05, draws=20_000, rng=1)
    tight = tight_epsilon_curve(ks, 4, 0.1, 0.05, pc.delta_upper, draws=4000, rng=2)
    ok = np.isfinite(tight)
    assert ok.any() and np.all(tight[ok] <= pc.epsilon[ok])
