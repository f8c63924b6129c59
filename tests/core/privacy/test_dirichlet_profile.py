"""The exact privacy profile of the Dirichlet mechanism (core.privacy.dirichlet_profile).

What is checked, and against what:

* the Beta-pair formula against Monte Carlo on the *full* Dirichlet (the privacy loss from
  the whole density ratio, not through the Beta reduction), with a tolerance of 5 standard
  errors of the estimator;
* the worst-pair theorem: random neighbouring pairs anywhere in the declared domain never
  exceed the profile (exact hockey-stick of each pair, by the audit's independent code);
  the two lemmas it rests on (post-processing in the shapes, stochastic order in the move)
  on random grids;
* the certified bracket is narrow, the n = 2 branch and bound converges to a feasible pair;
* the edges: tiny δ, k → 0, tiny shapes (mass within 1e-300 of a vertex), a single-point
  domain, huge k;
* composition: PLDs against basic composition and against Monte Carlo of two rows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.audit.dirichlet import delta_tight_exact, privacy_loss
from core.common.errors import InputError
from core.privacy.dirichlet import dirichlet_rows
from core.privacy.dirichlet_profile import (
    BetaPair,
    pair_delta,
    pair_delta_lower,
    pair_epsilon,
    support_profile,
    upper_tail,
    w_profile,
)
from core.privacy.pld import compose, dirichlet_term, eps_delta_term


def _mc_hockey(p: np.ndarray, q: np.ndarray, k: float, eps: float, n: int, seed: int
               ) -> tuple[float, float]:
    """δ(ε) = E_p[(1 − e^{ε − L})_+] from full Dirichlet draws, and its standard error."""
    rng = np.random.default_rng(seed)
    z = np.log(dirichlet_rows(np.tile(p, (n, 1)), k, rng))
    loss = privacy_loss(z, p, q, k)
    v = np.maximum(0.0, -np.expm1(eps - loss))
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n))


def _pair_rows(pair: BetaPair, k: float, rest: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows (p, q) of three entries realising ``pair`` with ``rest`` in the third entry."""
    x, y, d = pair.x / k, pair.y / k, pair.d / k
    p = np.array([x + d, y, rest])
    q = np.array([x, y + d, rest])
    return p / p.sum(), q / q.sum()


# ------------------------------------------------------------------ the formula vs MC
@pytest.mark.parametrize("k, eta, b", [(10.0, 0.02, 0.1), (50.0, 0.05, 0.2), (5.0, 0.1, 0.3),
                                       (200.0, 0.01, 0.05)])
def test_pair_formula_matches_monte_carlo_on_the_full_dirichlet(k, eta, b) -> None:
    prof = support_profile(k, eta, 3, b)
    w = prof.witness
    p = np.array([eta + w.d / k, eta, 1 - 2 * eta - w.d / k])
    q = np.array([eta, eta + w.d / k, 1 - 2 * eta - w.d / k])
    for eps in (0.0, 0.5 * prof.epsilon(0.05), prof.epsilon(0.05)):
        mc, se = _mc_hockey(p, q, k, eps, 200_000, seed=int(k * 1000 + eps * 10))
        hi = float(pair_delta(prof.pairs[0], eps)[0])
        lo = float(pair_delta_lower(w, eps)[0])
        assert lo <= hi <= lo + 1e-9
        assert abs(mc - hi) <= 5 * se + 1e-9, (eps, mc, se, hi)


def test_issue_example_is_tight_and_matches_monte_carlo() -> None:
    # k = 10, eta = 0.02, b = 0.1, mixed (moved mass (1 - n·eta)·b/2): the app stated
    # 13.9; the exact profile states the worst pair's own epsilon
    k, eta, n, b = 10.0, 0.02, 3, 0.1
    prof = support_profile(k, eta, n, (1 - n * eta) * b)
    lo, eps, w = prof.epsilon_bracket(0.05)
    assert eps == pytest.approx(5.9166, abs=1e-4) and eps - lo < 1e-6
    assert prof.exact and (w.x, w.y) == (k * eta, k * eta)
    p, q = _pair_rows(w, k, 1 - 2 * eta - w.d / k)
    mc, se = _mc_hockey(p, q, k, eps, 400_000, seed=5)
    assert abs(mc - 0.05) <= 5 * se  # the worst pair needs exactly this epsilon


# ------------------------------------------------------------------ the worst pair
@pytest.mark.parametrize("k, eta, n, radius", [(10.0, 0.02, 3, 0.094), (30.0, 0.05, 4, 0.1),
                                               (100.0, 0.01, 6, 0.05), (3.0, 0.1, 5, 0.2),
                                               (1000.0, 0.001, 3, 0.1)])
def test_no_neighbouring_pair_in_the_domain_beats_the_profile(k, eta, n, radius) -> None:
    prof = support_profile(k, eta, n, radius)
    eps_grid = np.array([0.0, 0.3, 1.0, 3.0]) * max(1.0, prof.epsilon(0.05))
    envelope = prof.delta(eps_grid)
    rng = np.random.default_rng(int(k) * 7 + n)
    worst = np.zeros_like(eps_grid)
    for _ in range(300):
        p = eta + rng.dirichlet(np.full(n, rng.choice([0.2, 1.0, 5.0]))) * (1 - n * eta)
        i, j = rng.choice(n, size=2, replace=False)
        t = min(rng.uniform(0, radius / 2), p[i] - eta)
        if t <= 0:
            continue
        q = p.copy()
        q[i] -= t
        q[j] += t
        for m, e in enumerate(eps_grid):
            d = max(delta_tight_exact(p, q, k, float(e)), delta_tight_exact(q, p, k, float(e)))
            worst[m] = max(worst[m], d)
    assert np.all(worst <= envelope * (1 + 1e-9) + 1e-12), (worst, envelope)
    # the check has teeth: the corner pair itself reaches the envelope
    w = prof.witness
    p = np.full(n, eta)
    p[0] += w.d / k
    p[-1] = 1 - p[:-1].sum()
    q = p.copy()
    q[0] -= w.d / k
    q[1] += w.d / k
    if n > 2:
        for m, e in enumerate(eps_grid):
            assert delta_tight_exact(p, q, k, float(e)) == pytest.approx(envelope[m],
                                                                          rel=1e-6, abs=1e-12)


def test_the_two_lemmas_on_random_pairs() -> None:
    """Smaller shapes are worse (post-processing) and a larger move is worse (stochastic
    order), at every ε."""
    rng = np.random.default_rng(3)
    eps = np.linspace(-1.0, 6.0, 15)
    for _ in range(60):
        x, y, d = np.exp(rng.uniform(np.log(0.01), np.log(50.0), 3))
        e = float(np.exp(rng.uniform(np.log(0.01), np.log(20.0))))
        base = pair_delta_lower(BetaPair(x, y, d), eps)
        assert np.all(pair_delta(BetaPair(x + e, y, d), eps) <= pair_delta(BetaPair(x, y, d), eps)
                      + 1e-12)
        assert np.all(pair_delta_lower(BetaPair(x, y + e, d), eps) <= base + 1e-9)
        assert np.all(pair_delta_lower(BetaPair(x, y, d * 0.5), eps) <= base + 1e-9)


def test_two_outcome_rows_are_certified_by_branch_and_bound() -> None:
    for k, eta, radius in ((10.0, 0.02, 0.1), (100.0, 0.1, 0.1), (1000.0, 0.001, 0.1)):
        prof = support_profile(k, eta, 2, radius)
        lo, eps, w = prof.epsilon_bracket(0.05)
        assert not prof.exact and eps >= lo and eps - lo <= 1e-5 * eps + 1e-9
        # the witness is a feasible pair on the line p_i + p_j = 1
        assert w.x + w.y + w.d == pytest.approx(k, rel=1e-12)
        assert min(w.x, w.y) >= k * eta * (1 - 1e-12)
        # and random pairs on the line stay below the certified epsilon
        rng = np.random.default_rng(int(k))
        d = k * radius / 2
        for x in rng.uniform(k * eta, k - d - k * eta, 40):
            assert pair_epsilon(BetaPair(x, k - d - x, d), 0.05, upper=False) <= eps * (1 + 1e-9)


def test_theorem_1_6_domain_is_exact_and_far_below_the_union_bound() -> None:
    from core.privacy.dirichlet_accounting import dirichlet_privacy

    for cfg in ((6.7, 0.15, 0.15, 3, 0.1), (5.1, 0.2, 0.2, 3, 0.1), (20.0, 0.05, 0.1, 4, 0.1)):
        prof = w_profile(*cfg)
        union = dirichlet_privacy(*cfg, delta_target=0.05, delta_method="union")
        assert prof.exact and prof.epsilon(0.05) < union.epsilon
    # Figure 1.1 right: the domain is a single point, so neighbours are identical
    assert w_profile(4.1, 0.25, 0.25, 3, 0.1).epsilon(0.05) == 0.0


# ------------------------------------------------------------------ the edges
def test_tiny_shapes_keep_their_mass_near_the_vertices() -> None:
    # Beta(1e-5, 1e-5) puts half its mass within 1e-300 of each end: the tails must see it
    assert float(upper_tail(1e-5, 1e-5, np.array([2000.0]))[0]) == pytest.approx(0.5, abs=0.01)
    assert float(upper_tail(1e-5, 1e-5, np.array([-2000.0]))[0]) == pytest.approx(0.5, abs=0.01)
    pair = BetaPair(1e-5, 1e-5, 5e-4)  # k = 0.01: the output is almost a vertex
    rng = np.random.default_rng(0)
    a = rng.beta(pair.x + pair.d, pair.y, 400_000)
    b = rng.beta(pair.x, pair.y + pair.d, 400_000)
    # at ε = 1 the set {t > 1/2} alone shows δ >= P(t > ½) − e·Q(t > ½)
    seen = (a > 0.5).mean() - math.e * (b > 0.5).mean()
    assert float(pair_delta(pair, 1.0)[0]) >= seen - 0.01
    assert math.isfinite(pair_epsilon(pair, 0.05))


@pytest.mark.parametrize("delta", [1e-8, 1e-15, 1e-100, 1e-290])
def test_tiny_targets_are_met_or_refused(delta) -> None:
    prof = support_profile(50.0, 0.05, 3, 0.1)
    eps = prof.epsilon(delta)
    assert math.isfinite(eps) and eps > prof.epsilon(0.05)
    assert float(prof.delta(eps)[0]) <= delta


def test_targets_below_the_floating_point_range_are_refused() -> None:
    with pytest.raises(InputError) as e:
        support_profile(50.0, 0.05, 3, 0.1).epsilon(1e-305)
    assert e.value.field == "delta"


def test_epsilon_grows_with_k_and_the_radius() -> None:
    e_k = [support_profile(k, 0.05, 3, 0.1).epsilon(0.05) for k in (5.0, 20.0, 100.0, 1e3)]
    assert all(np.diff(e_k) > 0)
    e_b = [support_profile(50.0, 0.05, 3, r).epsilon(0.05) for r in (0.01, 0.05, 0.2)]
    assert all(np.diff(e_b) > 0)
    assert support_profile(1e5, 0.05, 3, 0.1).epsilon(0.05) > e_k[-1]  # huge k still works


def test_the_number_depends_on_public_parameters_only() -> None:
    from core.mdp.accounting import mdp_privacy
    from core.mdp.model import MDP

    def model(row):
        return MDP(P=np.array([[row], [row], [row]]), R=np.zeros((3, 1)), horizon=2)

    a = mdp_privacy(model([0.2, 0.3, 0.5]), 20.0, eta=0.05)
    b = mdp_privacy(model([0.1, 0.1, 0.8]), 20.0, eta=0.05)
    assert a.to_dict() == b.to_dict()


# ------------------------------------------------------------------ composition
def test_pld_of_one_release_is_its_profile() -> None:
    prof = support_profile(10.0, 0.02, 3, 0.094)
    c = compose([dirichlet_term(prof.pairs)], 0.05)
    assert prof.epsilon(0.05) <= c.epsilon <= prof.epsilon(0.05) * 1.001 + 5e-3


def test_pld_composition_of_two_rows_against_monte_carlo() -> None:
    """Two independent rows, each its worst pair: the composed loss is L₁ + L₂; δ at the
    PLD's ε by Monte Carlo stays below the target, and the PLD beats basic composition."""
    k, eta, n, radius = 10.0, 0.02, 3, 0.094
    prof = support_profile(k, eta, n, radius)
    c = compose([dirichlet_term(prof.pairs, count=2)], 0.05)
    basic = 2 * prof.epsilon(0.025)
    assert c.epsilon < basic
    w = prof.witness
    p, q = _pair_rows(w, k, 1 - 2 * eta - w.d / k)
    rng = np.random.default_rng(11)
    m = 300_000
    loss = sum(privacy_loss(np.log(dirichlet_rows(np.tile(p, (m, 1)), k, rng)), p, q, k)
               for _ in range(2))
    v = np.maximum(0.0, -np.expm1(c.epsilon - loss))
    mc, se = float(v.mean()), float(v.std(ddof=1) / math.sqrt(m))
    assert mc <= 0.05 + 5 * se
    assert mc >= 0.05 - 0.01  # and it is not loose: the composed ε is nearly tight


def test_eps_delta_terms_compose_below_basic_and_infinity_is_unbounded() -> None:
    c = compose([eps_delta_term(0.5, 1e-6, count=20)], 1e-4)
    assert 0 < c.epsilon < 10.0
    u = compose([eps_delta_term(math.inf, 0.0), eps_delta_term(1.0, 0.0)], 1e-4)
    assert not u.bounded and u.reason


@settings(max_examples=300, deadline=None)
@given(log_a=st.floats(-6, 5), log_b=st.floats(-6, 5),
       z=st.one_of(st.floats(-2000, 2000),
                   st.sampled_from([-700.0, 700.0, 0.0, -0.0, 5e-324, -5e-324, 699.9999999999999,
                                    -700.0000000000001, math.inf, -math.inf])))
def test_one_threshold_upper_tail_gives_the_masked_paths_bits(log_a: float, log_b: float,
                                                                z: float) -> None:
    """The ε searches' one-threshold path of upper_tail (a branch on z instead of four
    masks) gives the bits of the masked path that arrays of thresholds take, at the range
    ends ±700 and 0 too."""
    a, b = 10.0 ** log_a, 10.0 ** log_b
    got = upper_tail(a, b, np.array([z]))
    assert got.shape == (1,)
    for others in ([z], [-1.0, 1000.0, -1000.0]):  # (one range or all four in the array)
        want = upper_tail(a, b, np.array([z, *others]))[0]
        assert got[0] == want and np.signbit(got[0]) == np.signbit(want)


@settings(max_examples=200, deadline=None)
@given(log_x=st.floats(-4, 4), log_y=st.floats(-4, 4), log_d=st.floats(-4, 2),
       delta=st.sampled_from([1e-12, 1e-6, 1e-3, 0.05, 0.5]),
       where=st.sampled_from(["at", "below", "above", "far"]), factor=st.floats(0.01, 100.0))
def test_epsilon_at_most_answers_as_the_full_bisection(log_x: float, log_y: float,
                                                       log_d: float, delta: float, where: str,
                                                       factor: float) -> None:
    """pair_epsilon_at_most(pair, δ, bound) == (pair_epsilon(pair, δ) <= bound): the
    bisection stopped once its side of the bound is known gives the full one's answer, with
    the bound at ε itself, one ulp either side, or anywhere (and at ε = ∞ or 0)."""
    from core.privacy.dirichlet_profile import pair_epsilon_at_most

    pair = BetaPair(10.0 ** log_x, 10.0 ** log_y, 10.0 ** log_d)
    e = pair_epsilon(pair, delta)
    ref = e if math.isfinite(e) and e > 0 else 1.0
    bound = {"at": ref, "below": math.nextafter(ref, -math.inf),
             "above": math.nextafter(ref, math.inf), "far": ref * factor}[where]
    assert pair_epsilon_at_most(pair, delta, bound) == (e <= bound)
    assert pair_epsilon_at_most(pair, delta, e) is True


_EDGE = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 700.0, -700.0,
         699.9999999999999, math.inf, -math.inf, 1e-300, 1.0, 1.0 - 1e-16]
#: tail probabilities as upper_tail gives them (clipped to [0, 1]: -0.0 and NaN pass)
_TAILS = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1.0, 1.0 - 1e-16, math.nan]


def _bits(x: float) -> int:
    return int(np.array([x], dtype=np.float64).view(np.int64)[0])


@settings(max_examples=400, deadline=None)
@given(tp=st.one_of(st.floats(0.0, 1.0), st.sampled_from(_TAILS)),
       tq=st.one_of(st.floats(0.0, 1.0), st.sampled_from(_TAILS)),
       eps=st.one_of(st.floats(-1000.0, 1000.0), st.sampled_from(_EDGE + [math.nan])),
       upper=st.booleans())
def test_one_value_hockey_gives_the_array_paths_bits(tp: float, tq: float, eps: float,
                                                     upper: bool) -> None:
    """The ε searches' one-value path of _hockey (floats and branches instead of masks and
    clips) gives the bits of the array path, signed zeros and NaN included, at ±700, ±0,
    ±inf and subnormals as well as random values."""
    from core.privacy.dirichlet_profile import _hockey

    got = _hockey(np.array([tp]), np.array([tq]), np.array([eps]), upper)
    assert got.shape == (1,) and got.dtype == np.float64
    # the same value beside another takes the array path (masks, np.clip, np.maximum)
    # (where Q(S) = 0 it also adds ε = ±∞ to log 0, whose NaN np.where then drops)
    with np.errstate(invalid="ignore"):
        want = _hockey(np.array([tp, 0.5]), np.array([tq, 0.25]), np.array([eps, 1.0]),
                       upper)
    assert _bits(float(got[0])) == _bits(float(want[0]))
