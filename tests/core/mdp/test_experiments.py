"""The Figure 2.1 sweep: reproducibility across workers, sandwich, trend in k, cancel, input."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from core.common.errors import InputError
from core.common.progress import Cancelled
from core.mdp.examples import example2, four_startups, random_mdp
from core.mdp.sweep import QUANTITIES, SweepResult, privacy_sweep

FORMATS_KEYS = ("k", "v_lower_mean", "v_lower_sd", "v_private_mean", "v_private_sd",
                "v_true_mean", "v_true_sd", "v_upper_mean", "v_upper_sd", "cost_bound_mean",
                "cost_bound_sd", "cost_empirical_mean", "cost_empirical_sd")


@pytest.fixture(scope="module")
def serial():
    return privacy_sweep(four_startups(), [10.0, 1000.0], runs=4, seed=99, workers=1)


def test_workers_do_not_change_results(serial, monkeypatch):
    from core.mdp import sweep

    monkeypatch.setattr(sweep, "SMALL_WORK", 0.0)  # a real pool, however small the model
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


# ------------------------------------------------------------------ the declared domain
def test_sweep_privatises_exactly_the_rows_the_accounting_describes():
    """Every run draws Dir_k around the rows of mechanism_rows with the sweep's eta and
    rule, and the accounting of each k is mdp_privacy with the same ones."""
    from core.mdp.accounting import mdp_privacy
    from core.mdp.privatize import mechanism_rows, privatize_mdp

    mdp = four_startups()
    r = privacy_sweep(mdp, [50.0], runs=1, seed=5, workers=1, eta=0.02, domain_rule="mix")
    assert (r.eta, r.domain_rule) == (0.02, "mix")
    want = mdp_privacy(mdp, 50.0, eta=0.02, domain_rule="mix")
    assert r.privacy[0].to_dict() == want.to_dict() and want.bounded
    # run 0 of k 0 uses SeedSequence(5, spawn_key=(0, 0)): the same draw around the
    # mixed rows gives the same private value
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(5, spawn_key=(0, 0))))
    private = privatize_mdp(mdp, 50.0, rng=rng, eta=0.02, domain_rule="mix").mdp
    prep = mechanism_rows(mdp, eta=0.02, domain_rule="mix")
    assert (prep.rows[prep.rows > 0] >= 0.02).all()
    from core.mdp.synthesis import synthesize

    assert r.v_private[0, 0] == pytest.approx(
        synthesize(private).values[0][mdp.initial_state], abs=1e-12)
    d = r.to_dict()
    assert d["eta"] == 0.02 and d["domain_rule"] == "mix"
    assert "(1 - n·eta)·b" in d["adjacency_text"]


def test_refuse_stops_the_sweep_before_any_run():
    seen = []
    with pytest.raises(InputError) as info:
        privacy_sweep(four_startups(), [50.0], runs=2, seed=1, workers=1, eta=0.05,
                      domain_rule="refuse", progress=lambda f, m="": seen.append(f))
    assert info.value.field == "eta" and "P(start, acquire_1)" in str(info.value)
    assert seen == []
    # the default rule mixes instead: the same sweep runs and is bounded
    r = privacy_sweep(four_startups(), [50.0], runs=1, seed=1, workers=1, eta=0.05)
    assert r.domain_rule == "mix" and r.privacy[0].bounded


def test_defaults_give_a_finite_guarantee_in_to_dict(serial):
    d = serial.to_dict()  # the defaults (eta auto, 'mix'): finite at k = 10 and 1000
    assert (d["eta"], d["domain_rule"]) == ("auto", "mix")
    assert all(e is not None and e > 0 for e in d["epsilon"]) and max(d["delta"]) <= 0.05
    assert d["epsilon"] == [p.epsilon for p in serial.privacy]


def test_unbounded_k_is_null_with_a_reason_in_to_dict():
    r = privacy_sweep(four_startups(), [3.0, 10.0], runs=1, seed=1, workers=1,
                      delta_method="union")
    d = r.to_dict()  # k = 3: k·eta = 3e-3, no γ reaches the target δ (union bound)
    assert d["epsilon"][0] is None and d["epsilon"][1] is not None
    assert len(d["epsilon_reason"]) == 2 and "too small" in d["epsilon_reason"][0]
    old = privacy_sweep(four_startups(), [10.0, 1000.0], runs=1, seed=1, workers=1, eta=1e-6,
                        delta_method="union")
    d = old.to_dict()  # eta = 1e-6: no finite guarantee at k = 10 or 1000
    assert d["epsilon"] == [None, None] and len(d["epsilon_reason"]) == 2
    assert all("too small" in x for x in d["epsilon_reason"])
    text = json.dumps(d, allow_nan=False)
    assert "Infinity" not in text and "NaN" not in text


# ------------------------------------------------------------------ centre shift (α inflation)
def _skewed_mdp():
    from core.mdp.model import MDP

    P = np.array([[[0.05, 0.90, 0.05], [0.10, 0.10, 0.80]],
                  [[0.05, 0.90, 0.05], [0.90, 0.05, 0.05]],
                  [[0.80, 0.10, 0.10], [0.05, 0.05, 0.90]]])
    R = np.array([[0.0, 0.1], [0.5, 0.0], [0.0, 0.2]])
    return MDP(P=P, R=R, R_T=np.array([0.0, 1.0, 0.0]), horizon=3)


def test_sweep_inflates_alpha_by_the_centre_shift_so_the_oracle_sandwich_holds(monkeypatch):
    """mix with eta = 0.02 on 3-outcome rows moves each centre by up to 2·eta = 0.04; at
    k = 10⁴ that is more than α. With the inflation V^π̄(true) lies in [v̲, v̄] at s₀ except
    with probability <= m·β (m = 6 rows; union bound over rows, see test_robust): we allow
    F/N <= m·β + 3·√(m·β(1 − m·β)/N). With the inflation switched off the sweep's oracle
    view falls outside in most runs (>= 0.5, far above m·β). Fixed seed."""
    import core.mdp.sweep as ex

    m = _skewed_mdp()
    N, beta = 120, 0.01
    kw = dict(runs=N, beta=beta, seed=3, workers=1, eta=0.02, domain_rule="mix")
    r = privacy_sweep(m, [1e4], **kw)
    assert r.alpha_shift == pytest.approx(0.04, rel=1e-12)
    d = r.to_dict()
    assert d["alpha_shift"] == r.alpha_shift and "alpha inflated" in d["alpha_shift_note"]
    assert d["alpha"] == r.alpha.tolist()  # α of Lemma 2.2 itself is reported unchanged
    assert d["alpha_effective"] == pytest.approx((r.alpha + 0.04).tolist(), rel=1e-12)
    q_max = int(m.mask.sum()) * beta
    tol = 3 * np.sqrt(q_max * (1 - q_max) / N)
    outside = (r.v_true < r.v_lower - 1e-12) | (r.v_true > r.v_upper + 1e-12)
    assert outside.mean() <= q_max + tol
    monkeypatch.setattr(ex, "centre_shift", lambda prep, shape: np.zeros(shape))
    off = privacy_sweep(m, [1e4], **kw)
    assert off.alpha_shift == 0.0 and np.array_equal(off.v_private, r.v_private)
    outside = (off.v_true < off.v_lower - 1e-12) | (off.v_true > off.v_upper + 1e-12)
    assert outside.mean() >= 0.5


def test_refuse_sweep_is_bit_identical_to_the_unshifted_computation():
    """domain_rule='refuse', zeros='support': no inflation; every run equals privatise →
    synthesise → robust_bounds with the scalar α of Lemma 2.2, bit for bit."""
    from core.mdp.privatize import privatize_mdp
    from core.mdp.robust import alpha_radius, robust_bounds
    from core.mdp.synthesis import evaluate_policy, synthesize

    mdp = four_startups()
    ks = [10.0, 1000.0]
    r = privacy_sweep(mdp, ks, runs=3, seed=99, workers=1, eta=0.005, domain_rule="refuse")
    d = r.to_dict()
    assert r.alpha_shift == 0.0 and d["alpha_shift_note"] == ""
    assert d["alpha_effective"] == d["alpha"] == r.alpha.tolist()
    s0 = mdp.initial_state
    for i, k in enumerate(ks):
        alpha = alpha_radius(k, 0.05, n=mdp.n_states)
        assert r.alpha[i] == alpha
        for run in range(3):
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
                99, spawn_key=(i, run))))
            private = privatize_mdp(mdp, k, rng=rng, eta=0.005, domain_rule="refuse").mdp
            plan = synthesize(private)
            vb = robust_bounds(private, plan.policy, alpha=alpha, beta=0.05)
            lo, hi = vb.v_lower, vb.v_upper
            want = (lo[0][s0], plan.values[0][s0], evaluate_policy(mdp, plan.policy)[0][s0],
                    hi[0][s0])
            got = (r.v_lower[i, run], r.v_private[i, run], r.v_true[i, run],
                   r.v_upper[i, run])
            assert got == want
