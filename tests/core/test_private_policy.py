"""private_policy: one privatisation, π̄ and per-state bounds, reproducible by seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core._validation import InputError
from core.examples import four_startups, random_mdp
from core.privacy.dirichlet import privatize_mdp
from core.private_policy import private_policy
from core.progress import Cancelled
from core.robust import cost_of_privacy


def test_matches_privatise_then_bound():
    mdp = four_startups()
    r = private_policy(mdp, 50.0, beta=0.1, alpha_mode="rigorous", seed=3)
    private = privatize_mdp(mdp, 50.0, rng=3).mdp
    b = cost_of_privacy(private, k=50.0, beta=0.1, alpha_mode="rigorous")
    assert np.array_equal(r.policy, b.policy)
    assert np.allclose(r.v_private, b.v_private[:3]) and np.allclose(r.v_lower, b.v_lower[:3])
    assert r.cost_bound == pytest.approx(b.cost_bound)
    assert r.mode == "experiment" and r.seed == 3 and r.alpha == pytest.approx(b.alpha)


def test_same_seed_same_result_and_summary_is_json():
    a = private_policy(four_startups(), 20.0, seed=11).summary()
    b = private_policy(four_startups(), 20.0, seed=11).summary()
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert len(a["policy"]) == 3 and len(a["v_upper"]) == 3 and a["stages_kept"] == 3
    assert a["warnings"] == []  # every row of four startups has full support


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
