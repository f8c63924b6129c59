"""private_policy: one privatisation, π̄ and per-state bounds, reproducible by seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.common.errors import InputError
from core.common.progress import Cancelled
from core.mdp.examples import four_startups, random_mdp
from core.mdp.private_policy import private_policy
from core.mdp.privatize import mechanism_rows, privatize_mdp
from core.mdp.robust import centre_shift, cost_of_privacy


def test_matches_privatise_then_bound():
    mdp = four_startups()
    r = private_policy(mdp, 50.0, beta=0.1, alpha_mode="rigorous", seed=3)
    private = privatize_mdp(mdp, 50.0, rng=3).mdp
    # the default rule 'mix' centred the noise on T(P): the bounds widen each row's radius
    # by the public shift bound (n − 1)·eta = 2e-3 (four startups: n = 3 everywhere)
    shift = centre_shift(mechanism_rows(mdp), mdp.P.shape[:2])
    b = cost_of_privacy(private, k=50.0, beta=0.1, alpha_mode="rigorous", centre_shift=shift)
    assert np.array_equal(r.policy, b.policy)
    assert np.array_equal(r.v_private, b.v_private[:3])
    assert np.array_equal(r.v_lower, b.v_lower[:3]) and np.array_equal(r.v_upper, b.v_upper[:3])
    assert r.cost_bound == b.cost_bound
    assert r.mode == "experiment" and r.seed == 3 and r.alpha == b.alpha
    assert r.alpha_shift == pytest.approx(2 * 1e-3, rel=1e-12)  # DEFAULT_ETA auto: 0.001
    assert r.alpha_shift == b.alpha_shift and "alpha inflated" in r.alpha_shift_note
    s = r.summary()
    assert s["alpha_shift"] == r.alpha_shift and s["alpha_shift_note"] == r.alpha_shift_note
    # without the inflation the interval would be narrower: the shift is really applied
    plain = cost_of_privacy(private, k=50.0, beta=0.1, alpha_mode="rigorous")
    assert (r.v_lower <= plain.v_lower[:3]).all() and (r.v_upper >= plain.v_upper[:3]).all()
    assert r.cost_bound > plain.cost_bound


def test_refuse_without_smoothing_is_bit_identical_to_the_unshifted_bounds():
    """domain_rule='refuse', zeros='support': nothing moves the centre, so the result is
    exactly privatise-then-bound with Lemma 2.2's α alone (no inflation, no note)."""
    for mdp, horizon_keep in ((four_startups(), 3), (random_mdp(6, 2, None, seed=2,
                                                                 discount=0.9), 0)):
        r = private_policy(mdp, 100.0, seed=1, eta=1e-6, domain_rule="refuse")
        private = privatize_mdp(mdp, 100.0, rng=1, eta=1e-6, domain_rule="refuse").mdp
        b = cost_of_privacy(private, k=100.0, beta=0.05)
        assert r.stages_kept == horizon_keep
        keep = slice(None) if horizon_keep == 0 else slice(0, horizon_keep)
        for got, want in ((r.v_lower, b.v_lower), (r.v_upper, b.v_upper),
                          (r.v_private, b.v_private)):
            assert np.array_equal(got, np.asarray(want)[keep])
        assert r.alpha == b.alpha and r.alpha_shift == 0.0 and r.alpha_shift_note == ""
        assert r.summary()["alpha_shift"] == 0.0


def test_same_seed_same_result_and_summary_is_json():
    a = private_policy(four_startups(), 20.0, seed=11).summary()
    b = private_policy(four_startups(), 20.0, seed=11).summary()
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert len(a["policy"]) == 3 and len(a["v_upper"]) == 3 and a["stages_kept"] == 3
    # every row of four startups has full support (no disclosure warning); the only warning
    # is the default domain rule's, which says the noise is centred on a mixed model
    assert len(a["warnings"]) == 1 and "domain rule 'mix'" in a["warnings"][0]
    assert "support" in a["warnings"][0] and "disclosed" not in a["warnings"][0]
    r = private_policy(four_startups(), 20.0, seed=11, eta=0.01, domain_rule="refuse")
    assert r.warnings == ()  # rows privatised as they are: nothing to warn about


def test_no_seed_draws_and_records_one():
    r = private_policy(four_startups(), 20.0)
    assert isinstance(r.seed, int) and r.mode == "experiment"


def test_large_models_keep_stage_zero_only():
    mdp = random_mdp(30, 2, 5, seed=1)
    r = private_policy(mdp, 100.0, seed=1, max_cells=100)
    assert r.stages_kept == 1 and r.policy.shape == (1, 30) and r.v_lower.shape == (1, 30)


def test_infinite_horizon():
    mdp = random_mdp(6, 2, None, seed=2, discount=0.9)
    r = private_policy(mdp, 100.0, seed=1)
    assert r.stages_kept == 0 and r.policy.shape == (6,) and r.v_private.shape == (6,)
    assert (r.v_lower <= r.v_private + 1e-9).all() and (r.v_private <= r.v_upper + 1e-9).all()


def test_bad_parameters_and_cancel():
    with pytest.raises(InputError, match="alpha"):
        private_policy(four_startups(), 10.0, alpha_mode="nope", seed=1)
    with pytest.raises(InputError):
        private_policy(four_startups(), -1.0, seed=1)

    def stop(fraction, message=""):
        raise Cancelled()

    with pytest.raises(Cancelled):
        private_policy(four_startups(), 10.0, seed=1, progress=stop)


def test_smoothing_shift_is_the_public_conservative_one():
    """zeros='smoothing': P̄ has full support everywhere, so whether a row had a zero is not
    visible; every row's radius is widened as if smoothed: κ = (1 − 0.01)(1 − 3·eta)."""
    eta = 1e-3
    r = private_policy(four_startups(), 50.0, seed=2, zeros="smoothing", eta=eta)
    assert r.alpha_shift == pytest.approx((1 - 0.99 * (1 - 3 * eta)) * (2 / 3), rel=1e-12)
    # no row of four startups has a zero: its own (non-public) bound would be (n − 1)·eta
    assert r.alpha_shift > 2 * eta
    refuse = private_policy(four_startups(), 50.0, seed=2, zeros="smoothing", eta=eta,
                            domain_rule="refuse")
    assert refuse.alpha_shift == pytest.approx(0.01 * (2 / 3), rel=1e-12)
