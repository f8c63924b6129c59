"""More unit tests of the privacy designer's pieces (core.mdp.design): the public proxy,
the value range U (checked against every deterministic policy of small models), the
recommendation rule, and the errors naming their field."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.common.errors import InputError
from core.mdp.design import DesignPoint, DesignResult, design, public_proxy, value_range
from core.mdp.examples import four_startups
from core.mdp.model import MDP
from core.mdp.synthesis import evaluate_policy


def _model(seed: int, S: int, A: int, horizon: int | None, g: float,
           zeros: float = 0.5) -> MDP:
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(S, A, S))
    u = np.where(rng.uniform(size=u.shape) < zeros, 0.0, u)
    u[np.arange(S), :, np.arange(S)] += 0.3  # keep every row non-empty
    P = u / u.sum(axis=2, keepdims=True)
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), horizon=horizon,
               discount=g)


# ------------------------------------------------------------------------------ public proxy


def test_public_proxy_is_uniform_on_each_support_and_keeps_the_rest() -> None:
    m = _model(1, 5, 3, 4, 1.0)
    p = public_proxy(m)
    for s in range(5):
        for a in range(3):
            support = np.flatnonzero(m.P[s, a])
            assert np.flatnonzero(p.P[s, a]).tolist() == support.tolist()
            assert np.allclose(p.P[s, a, support], 1.0 / support.size, rtol=0, atol=1e-15)
    assert np.array_equal(p.R, m.R) and np.array_equal(p.R_T, m.R_T)
    assert np.array_equal(p.mask, m.mask)
    assert p.horizon == m.horizon and p.discount == m.discount
    assert p.initial_state == m.initial_state and p.state_names == m.state_names


def test_public_proxy_is_idempotent_and_names_itself() -> None:
    m = _model(2, 4, 2, None, 0.9).replace(name="ünï")
    p = public_proxy(m)
    assert p.name == "ünï (public proxy)"
    assert public_proxy(m.replace(name="")).name == "(public proxy)"
    pp = public_proxy(p)
    assert np.array_equal(pp.P, p.P)


def test_public_proxy_keeps_masked_rows_empty_and_one_entry_rows_certain() -> None:
    P = np.zeros((2, 2, 2))
    P[0, 0] = [0.3, 0.7]
    P[1, 0, 1] = 1.0
    mask = np.array([[True, False], [True, False]])
    p = public_proxy(MDP(P=P, R=np.zeros((2, 2)), R_T=np.zeros(2), mask=mask, horizon=1))
    assert p.P[0, 0].tolist() == [0.5, 0.5] and p.P[1, 0].tolist() == [0.0, 1.0]
    assert not p.P[:, 1].any()


# ------------------------------------------------------------------------------ value range


def test_value_range_hand_values() -> None:
    P = np.ones((2, 2, 2)) / 2
    R = np.array([[1.0, -2.0], [3.0, 0.0]])
    fin = MDP(P=P, R=R, R_T=np.array([10.0, 4.0]), horizon=3)
    assert value_range(fin) == 3 * 5.0 + 6.0
    inf = MDP(P=P, R=R, R_T=np.zeros(2), horizon=None, discount=0.75)
    assert value_range(inf) == 5.0 / 0.25
    # masked actions' rewards do not count
    mask = np.array([[True, False], [True, False]])
    Pm = P.copy()
    Pm[:, 1] = 0.0
    masked = MDP(P=Pm, R=R, R_T=np.zeros(2), mask=mask, horizon=2)
    assert value_range(masked) == 2 * 2.0
    zero = MDP(P=P, R=np.zeros((2, 2)), R_T=np.full(2, 7.0), horizon=5)
    assert value_range(zero) == 0.0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 3), A=st.integers(1, 2),
       horizon=st.sampled_from([None, 1, 2]))
def test_every_policy_value_lies_within_the_value_range(seed: int, S: int, A: int,
                                                        horizon: int | None) -> None:
    m = _model(seed, S, A, horizon, 0.7 if horizon is None else 1.0)
    U = value_range(m)
    values = []
    per_stage = [np.array(p) for p in itertools.product(range(A), repeat=S)]
    policies = per_stage if horizon is None else [
        np.stack(seq) for seq in itertools.product(per_stage, repeat=horizon)]
    for pol in policies:
        v = evaluate_policy(m, pol)
        values.append(v if horizon is None else v[0])
    allv = np.concatenate(values)
    assert allv.max() - allv.min() <= U * (1 + 1e-12) + 1e-12


# ------------------------------------------------------------------------------ design


@pytest.mark.parametrize("kwargs, field", [
    ({"epsilon": 0.0, "delta": 0.05}, "epsilon"), ({"epsilon": math.nan, "delta": 0.05},
                                                   "epsilon"),
    ({"epsilon": 1.0, "delta": 0.0}, "delta"), ({"epsilon": 1.0, "delta": 1.0}, "delta"),
    ({"epsilon": 1.0, "delta": "0.1"}, "delta"),
    ({"epsilon": 1.0, "delta": 0.05, "adjacency": "two-rows"}, "adjacency"),
    ({"epsilon": 1.0, "delta": 0.05, "beta": 1.5}, "beta"),
    ({"epsilon": 1.0, "delta": 0.05, "selection": "private"}, "selection"),
    ({"epsilon": 1.0, "delta": 0.05, "selection": "exponential"}, "selection_epsilon"),
    ({"epsilon": 1.0, "delta": 0.05, "selection": "exponential",
      "selection_epsilon": -1.0}, "selection_epsilon"),
])
def test_design_errors_name_their_field(kwargs: dict, field: str) -> None:
    with pytest.raises(InputError) as exc:
        design(four_startups(), **kwargs)
    assert exc.value.field == field


def test_a_proxy_with_other_supports_is_refused() -> None:
    m = four_startups()
    P = np.array(m.P)
    s, a = np.argwhere(m.mask)[0]
    P[s, a] = 0.0
    P[s, a, 0] = 1.0  # a different support than the model's row
    if np.array_equal(np.flatnonzero(P[s, a]), np.flatnonzero(m.P[s, a])):
        P[s, a] = 0.0
        P[s, a, -1] = 1.0
    other = m.replace(P=P)
    with pytest.raises(InputError) as exc:
        design(m, epsilon=1.0, delta=0.05, proxy=other)
    assert exc.value.field == "proxy"


def test_an_eta_whose_mix_reaches_one_is_reported_infeasible_with_its_reason() -> None:
    r = design(four_startups(), epsilon=1.0, delta=0.05, etas=[0.9])
    assert r.frontier == () and r.recommended is None
    ((eta, why),) = r.infeasible
    assert eta == "0.9" and why
    d = r.to_dict()
    assert d["recommended"] is None and "recommended_reason" in d
    assert d["infeasible"] == [{"eta": "0.9", "reason": why}]


def test_public_recommendation_is_the_least_bound_of_the_frontier() -> None:
    r = design(four_startups(), epsilon=2.0, delta=0.05, etas=["0.5/n", "0.7/n"])
    assert r.frontier, r.infeasible
    best = min(p.cost_bound for p in r.frontier)
    assert r.recommended is not None and r.recommended.cost_bound == best
    assert all(p.epsilon <= 2.0 and p.delta == 0.05 for p in r.frontier)
    assert all(p.cost_bound >= 0 for p in r.frontier)
    assert r.selection == "public" and r.selection_epsilon == 0.0 and r.seed is None
    d = r.to_dict()
    assert d["recommended"] == r.recommended.to_dict() and "recommended_reason" not in d
    assert [p["eta"] for p in d["frontier"]] == [p.eta for p in r.frontier]


def test_exponential_selection_is_reproducible_from_its_seed() -> None:
    kw = dict(epsilon=2.0, delta=0.05, etas=["0.35/n", "0.5/n", "0.7/n"],
              selection="exponential", selection_epsilon=1.0)
    a = design(four_startups(), rng=7, **kw)
    b = design(four_startups(), rng=7, **kw)
    assert a.recommended == b.recommended and a.recommended in a.frontier
    assert a.seed == 7 and a.selection_epsilon == 1.0
    assert any("exponential mechanism" in n for n in a.notes)


def test_result_dicts_hold_plain_values() -> None:
    p = DesignPoint(k=10.0, eta="0.1/n", epsilon=0.5, delta=0.01, cost_bound=1.25)
    assert p.to_dict() == {"k": 10.0, "eta": "0.1/n", "epsilon": 0.5, "delta": 0.01,
                           "cost_bound": 1.25}
    r = DesignResult(epsilon_target=1.0, delta_target=0.01, b=0.1, adjacency="one-row",
                     beta=0.05, frontier=(p,), recommended=p, selection="public",
                     selection_epsilon=0.0, proxy="x", notes=("n",))
    d = r.to_dict()
    assert d["frontier"] == [p.to_dict()] and d["notes"] == ["n"] and d["mode"] == "experiment"
