"""The Figure 2.1 sweep: reproducibility across workers, sandwich, trend in k, cancel, input."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from core._validation import InputError
from core.examples import example2, four_startups, random_mdp
from core.experiments import QUANTITIES, SweepResult, privacy_sweep
from core.progress import Cancelled

FORMATS_KEYS = ("k", "v_lower_mean", "v_lower_sd", "v_private_mean", "v_private_sd",
                "v_true_mean", "v_true_sd", "v_upper_mean", "v_upper_sd", "cost_bound_mean",
                "cost_bound_sd", "cost_empirical_mean", "cost_empirical_sd")


@pytest.fixture(scope="module")
def serial():
    return privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=99, workers=1)


def test_workers_do_not_change_results(serial):
    pooled = privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=99, workers=2)
    for name in ("k", "alpha", *QUANTITIES):
        assert np.array_equal(getattr(serial, name), getattr(pooled, name)), name


def test_caller_executor_gives_the_same_results(serial):
    with ThreadPoolExecutor(max_workers=3) as ex:
        threaded = privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=99, executor=ex)
        assert not ex._shutdown  # the caller's executor is left running
    for name in QUANTITIES:
        assert np.array_equal(getattr(serial, name), getattr(threaded, name)), name


def test_seed_controls_the_draws(serial):
    again = privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=99, workers=1)
    other = privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=100, workers=1)
    assert np.array_equal(serial.v_private, again.v_private)
    assert not np.array_equal(serial.v_private, other.v_private)
    # runs are independent draws: no two runs of one k coincide
    assert len(np.unique(serial.v_private[0])) == 4
    # a longer sweep starts with the same runs (per-run seeds, not a shared stream)
    longer = privacy_sweep(four_startups(), [10.0, 1000.0, 5.0], runs=6, seed=99, workers=1)
    assert np.array_equal(longer.v_private[:2, :4], serial.v_private)


def test_shapes_and_sandwich(serial):
    r = serial
    assert r.k.tolist() == [10.0, 1000.0] and r.runs == 4 and r.seed == 99
    assert r.mode == "experiment" and r.zeros == "support" and r.beta == 0.05
    for name in QUANTITIES:
        assert r.series(name).shape == (2, 4)
    assert (r.v_lower <= r.v_private + 1e-12).all() and (r.v_private <= r.v_upper + 1e-12).all()
    np.testing.assert_allclose(r.cost_bound, r.v_upper - r.v_lower)
    np.testing.assert_allclose(r.cost_empirical, np.abs(r.v_private - r.v_true))
    np.testing.assert_allclose(r.alpha, np.sqrt(np.log(1 / 0.05) / (2 * (r.k + 1))))


def test_sandwich_infinite_horizon():
    m = random_mdp(6, 3, None, seed=4, discount=0.9)
    r = privacy_sweep(m, [5.0, 500.0], runs=3, seed=1, workers=1, alpha_mode="rigorous", beta=0.2)
    assert (r.v_lower <= r.v_private + 1e-9).all() and (r.v_private <= r.v_upper + 1e-9).all()
    assert r.alpha_mode == "rigorous"


def test_cost_bound_mean_decreases_in_k_on_example2():
    """Spec §10 test 8. Spec §6.5 reports mean gaps 5.23, 4.09, 2.03, 0.88 at k = 10, 10², 10³,
    10⁴ for a model of this shape: the steps dwarf the run-to-run sd, so 6 runs suffice."""
    r = privacy_sweep(example2(), [10.0, 100.0, 1000.0, 10000.0], runs=6, seed=3, workers=1)
    mean = r.mean("cost_bound")
    assert (np.diff(mean) < 0).all(), mean
    # ... and the bound never reaches 0: the β-term leaves a floor (spec §6.5, consequence)
    assert mean[-1] > 0.1
    assert (r.v_lower <= r.v_private + 1e-12).all() and (r.v_private <= r.v_upper + 1e-12).all()
    # the empirical cost |V̄ − V| shrinks as well (oracle view)
    assert r.mean("cost_empirical")[-1] < r.mean("cost_empirical")[0]


def test_to_dict_keys_align_with_k(serial):
    d = serial.to_dict()
    for key in FORMATS_KEYS:
        assert isinstance(d[key], list) and len(d[key]) == 2, key
        assert all(isinstance(x, float) for x in d[key]), key
    assert d["k"] == [10.0, 1000.0] and d["seed"] == 99 and d["runs"] == 4
    assert d["v_lower_mean"] == serial.v_lower.mean(axis=1).tolist()
    assert d["cost_bound_sd"] == serial.cost_bound.std(axis=1, ddof=1).tolist()
    json.dumps(d, allow_nan=False)  # plain JSON numbers only


def test_single_run_has_zero_sd():
    r = privacy_sweep(four_startups(), [50.0], runs=1, seed=1, workers=1)
    assert r.sd("v_lower").tolist() == [0.0]
    json.dumps(r.to_dict(), allow_nan=False)


def test_seed_is_drawn_and_recorded_when_missing():
    r = privacy_sweep(four_startups(), [50.0], runs=2, workers=1)
    assert isinstance(r.seed, int) and r.seed >= 0
    again = privacy_sweep(four_startups(), [50.0], runs=2, workers=1, seed=r.seed)
    assert np.array_equal(r.v_private, again.v_private)


def test_progress_reaches_one():
    seen = []
    privacy_sweep(four_startups(), [10.0, 100.0], runs=3, seed=1, workers=1,
                  progress=lambda f, m="": seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions) and all(0 <= f <= 1 for f in fractions)


@pytest.mark.parametrize("workers", [1, 2])
def test_cancel_propagates(workers):
    calls = []

    def progress(fraction, message=""):
        calls.append(fraction)
        if len(calls) > 1:
            raise Cancelled

    with pytest.raises(Cancelled):
        privacy_sweep(four_startups(), [10.0, 100.0], runs=4, seed=1, workers=workers,
                      progress=progress)
    assert len(calls) == 2


@pytest.mark.parametrize("kwargs, field", [
    ({"ks": [10.0, 0.0]}, "k"),
    ({"ks": [-1.0]}, "k"),
    ({"ks": [float("nan")]}, "k"),
    ({"ks": []}, "k"),
    ({"runs": 0}, "runs"),
    ({"runs": 2.5}, "runs"),
    ({"runs": True}, "runs"),
    ({"beta": 1.0}, "beta"),
    ({"beta": 0.0}, "beta"),
    ({"alpha_mode": "wide"}, "alpha"),
    ({"workers": 0}, "workers"),
])
def test_bad_inputs_name_the_field(kwargs, field):
    args = {"ks": [10.0], "runs": 2, "seed": 1, "workers": 1, **kwargs}
    ks = args.pop("ks")
    with pytest.raises(InputError) as info:
        privacy_sweep(four_startups(), ks, **args)
    assert info.value.field == field and "\n" not in str(info.value)


def test_result_is_frozen_and_read_only(serial):
    assert isinstance(serial, SweepResult)
    with pytest.raises(ValueError):
        serial.v_lower[0, 0] = 1.0
    with pytest.raises(AttributeError):
        serial.runs = 3
