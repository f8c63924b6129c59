"""core.audit.exponential: the audit target's candidate pairs are neighbours under the claimed
adjacency, their exact output laws respect the claimed ε (and approach it), and the sampled
outputs follow the exact law."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.audit.exponential import (
    ExponentialVariant,
    candidate_pairs,
    claimed,
    exact_distribution,
    exact_roc,
    parameters,
    sample_outputs,
    tight_epsilon,
    variant_from,
)
from core.common.errors import InputError

VARIANTS = [ExponentialVariant(), ExponentialVariant(sensitivity=2.5),
            ExponentialVariant(monotonic=True), ExponentialVariant(0.5, monotonic=True)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_candidate_pairs_are_neighbours(variant: ExponentialVariant, eps: float) -> None:
    pairs = candidate_pairs(eps, variant)
    assert len(pairs) >= 4
    for desc, a, b in pairs:
        diff = np.subtract(b, a)
        assert np.max(np.abs(diff)) <= variant.sensitivity * (1 + 1e-12)
        if variant.monotonic:  # every utility moves the same way
            assert np.all(diff >= 0) or np.all(diff <= 0)
        assert desc["a"] == list(a) and desc["b"] == list(b)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_exact_laws_respect_the_claim_and_approach_it(variant: ExponentialVariant,
                                                      eps: float) -> None:
    worst = 0.0
    for _, a, b in candidate_pairs(eps, variant):
        pa, pb = exact_distribution(a, eps, variant), exact_distribution(b, eps, variant)
        assert sum(pa.values()) == pytest.approx(1.0) and set(pa) == {0, 1}
        loss = max(abs(math.log(pa[i] / pb[i])) for i in pa)
        assert loss <= eps * (1 + 1e-9)
        worst = max(worst, loss)
    assert worst > 0.9 * eps  # the grid reaches close to the claimed ε


def test_the_first_pair_has_the_closed_form_ratio() -> None:
    eps, v = 1.0, ExponentialVariant()
    _, a, b = candidate_pairs(eps, v)[0]  # log-weight gap x = 0
    pa, pb = exact_distribution(a, eps, v), exact_distribution(b, eps, v)
    assert pa[0] / pb[0] == pytest.approx((1 + math.exp(eps)) / 2)


@pytest.mark.parametrize("variant", [ExponentialVariant(), ExponentialVariant(monotonic=True)])
def test_sampled_outputs_follow_the_exact_law(variant: ExponentialVariant) -> None:
    eps, n = 1.0, 40_000
    _, a, _ = candidate_pairs(eps, variant)[2]
    codes = sample_outputs(a, n, np.random.default_rng(9), eps, variant)
    assert codes.dtype == np.int64 and codes.shape == (n,) and set(codes.tolist()) <= {0, 1}
    p0 = exact_distribution(a, eps, variant)[0]
    sd = math.sqrt(p0 * (1 - p0) / n)
    assert abs(np.mean(codes == 0) - p0) < 4 * sd


def test_noise_factor_weakens_the_sampled_mechanism_only() -> None:
    strong, weak = ExponentialVariant(), ExponentialVariant(noise_factor=4.0)
    _, a, b = candidate_pairs(2.0, strong)[-1]
    loss = [abs(math.log(exact_distribution(a, 2.0, v)[0] / exact_distribution(b, 2.0, v)[0]))
            for v in (strong, weak)]
    assert loss[1] < loss[0] / 2
    assert claimed(2.0, weak)[:2] == claimed(2.0, strong)[:2] == (2.0, 0.0)
    assert parameters(2.0, weak)["noise_factor"] == 4.0
    assert "noise_factor" not in parameters(2.0, strong)


def test_release_path_draws_valid_codes() -> None:
    codes = sample_outputs((0.0, 1.0), 20, None, 1.0, ExponentialVariant())
    assert codes.shape == (20,) and set(codes.tolist()) <= {0, 1}


def test_claim_text_and_variant_from_parameters() -> None:
    eps, v = variant_from({"epsilon": 0.5, "sensitivity": 2, "monotonic": True,
                           "noise_factor": 1})
    assert eps == 0.5 and v == ExponentialVariant(2.0, True, 1.0)
    e, d, adj = claimed(0.5, v)
    assert (e, d) == (0.5, 0.0) and "<= 2" in adj and "same direction" in adj
    assert "same direction" not in claimed(0.5, ExponentialVariant())[2]
    assert tight_epsilon(None, None, 0.0, 1.0, v) is None
    assert exact_roc(None, None, 1.0, v) is None


@pytest.mark.parametrize("kwargs,field", [({"noise_factor": 0.0}, "noise_factor"),
                                          ({"noise_factor": math.inf}, "noise_factor"),
                                          ({"sensitivity": 1e-200}, "sensitivity")])
def test_variant_refuses_bad_parameters(kwargs: dict, field: str) -> None:
    with pytest.raises(InputError) as info:
        ExponentialVariant(**kwargs)
    assert info.value.field == field
