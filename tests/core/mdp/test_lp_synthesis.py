"""The occupancy-measure LP (HiGHS) gives backward induction's / value iteration's values."""

from __future__ import annotations

import numpy as np
import pytest

import core.mdp.lp_synthesis as lp_mod
import core.mdp.sparse as sparse_mod
from core.common.errors import InputError
from core.mdp.examples import example2, four_startups
from core.mdp.lp_synthesis import lp_size, synthesize_lp
from core.mdp.model import MDP
from core.mdp.synthesis import evaluate_policy, synthesize


def random_model(rng: np.random.Generator, S: int, A: int, horizon: int | None,
                 discount: float, density: float = 1.0) -> MDP:
    P = rng.random((S, A, S)) * (rng.random((S, A, S)) < density)
    for s in range(S):
        for a in range(A):
            if P[s, a].sum() == 0:
                P[s, a, rng.integers(S)] = 1.0
    P /= P.sum(axis=2, keepdims=True)
    mask = rng.random((S, A)) < 0.7
    mask[np.arange(S), rng.integers(A, size=S)] = True
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), mask=mask,
               horizon=horizon, discount=discount, initial_state=int(rng.integers(S)))


@pytest.mark.parametrize("seed, S, A, horizon, discount", [
    (0, 4, 2, 1, 1.0), (1, 9, 3, 3, 1.0), (2, 15, 4, 10, 1.0), (3, 12, 3, 6, 0.8),
    (4, 10, 3, None, 0.5), (5, 14, 4, None, 0.9), (6, 8, 5, None, 0.99),
    (7, 30, 2, None, 0.95),
])
def test_lp_values_equal_induction(seed, S, A, horizon, discount) -> None:
    m = random_model(np.random.default_rng(seed), S, A, horizon, discount, density=0.6)
    lp, ind = synthesize_lp(m), synthesize(m)
    assert lp.values.shape == ind.values.shape and lp.policy.shape == ind.policy.shape
    assert np.abs(lp.values - ind.values).max() < 1e-9
    # the LP's policy is optimal: its own exact value is the optimum, and it is available
    assert np.abs(evaluate_policy(m, lp.policy) - ind.values).max() < 1e-9
    pol = lp.policy if lp.policy.ndim == 2 else lp.policy[None]
    assert m.mask[np.arange(S)[None, :], pol].all()


def test_sparse_models_build_the_lp_from_their_rows(monkeypatch) -> None:
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    for horizon, discount in ((4, 1.0), (None, 0.9)):
        m = random_model(np.random.default_rng(11), 40, 3, horizon, discount, density=0.1)
        assert not m.is_dense
        assert np.abs(synthesize_lp(m).values - synthesize(m).values).max() < 1e-9


def test_the_examples() -> None:
    for m in (four_startups(), example2()):
        assert np.abs(synthesize_lp(m).values - synthesize(m).values).max() < 1e-9


def test_ties_give_equal_values() -> None:
    """Two identical actions: the LP may pick either; the values are the same."""
    P = np.zeros((2, 2, 2))
    P[:, :, 1] = 1.0
    m = MDP(P=P, R=np.ones((2, 2)), R_T=np.zeros(2), horizon=3)
    lp = synthesize_lp(m)
    np.testing.assert_allclose(lp.values, synthesize(m).values, atol=1e-12)
    np.testing.assert_allclose(lp.values[0], [3.0, 3.0], atol=1e-12)


def test_too_large_an_lp_is_refused_naming_the_method(monkeypatch) -> None:
    m = example2()
    n_var, nnz = lp_size(m)
    assert n_var == 10 * 20 * 5 and nnz > n_var
    monkeypatch.setattr(lp_mod, "LP_MAX_NONZEROS", nnz - 1)
    with pytest.raises(InputError, match="induction") as exc:
        synthesize_lp(m)
    assert exc.value.field == "method"
