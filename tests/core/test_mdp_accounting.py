"""MDP-level Dirichlet accounting and the accuracy of the mechanism (spec §2.9, §3).

``core.privacy.mdp_accounting``: per-row (ε, δ), one-row / all-rows composition, rows
outside the guarantee; ``dirichlet_accuracy`` and ``core.robust.alpha_radius``, including
oracle 9 (Lemma 2.2 as published is not universal) and oracle 7 (moments).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core._validation import InputError
from core.examples import four_startups
from core.mdp import MDP
from core.privacy.dirichlet_accounting import dirichlet_privacy
from core.privacy.mdp_accounting import (
    ADJACENCY_TEXT,
    dirichlet_accuracy,
    mdp_privacy,
)
from core.robust import alpha_radius


# =============================================================================== MDP rows
def _expected_row(p: np.ndarray) -> tuple[int, float, float]:
    """|W|, eta, eta_bar of a row by hand: W = the support minus its last index,
    eta = the smallest entry in W, eta_bar = the last support entry."""
    support = np.flatnonzero(p > 0)
    return support.size - 1, float(p[support[:-1]].min()), float(p[support[-1]])


def test_four_startups_per_row_results() -> None:
    mdp = four_startups()
    r = mdp_privacy(mdp, 50, b=0.1, delta_target=0.05)
    assert r.adjacency == "one-row" and r.k == 50 and r.b == 0.1 and r.delta_target == 0.05
    assert len(r.rows) == 6 and r.n_applicable == 6 and r.not_applicable == ()
    seen = []
    for row in r.rows:
        s = mdp.state_names.index(row.state)
        a = mdp.action_names[s].index(row.action)
        seen.append((s, a))
        w, eta, eta_bar = _expected_row(mdp.P[s, a])
        assert (row.support, row.w) == (w + 1, w) == (3, 2)
        assert row.eta == pytest.approx(eta) and row.eta_bar == pytest.approx(eta_bar)
        assert row.applicable and row.reason == ""
        want = dirichlet_privacy(50, eta, eta_bar, w, 0.1, delta_target=0.05)
        assert row.result.epsilon == pytest.approx(want.epsilon, rel=1e-12)
        assert row.result.delta == pytest.approx(want.delta, rel=1e-12)
        assert row.result.delta <= 0.05 and row.result.delta_method == "exact"
        assert any("Lemma 1.2" in m for m in row.result.warnings)  # k eta = 0.5 < 1
    assert sorted(seen) == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (2, 0)]
    # the rows are not all alike: their epsilon depends on their eta_bar
    assert len({round(row.result.epsilon, 9) for row in r.rows}) > 1


def test_composition_one_row_is_the_max_and_all_rows_the_sum() -> None:
    mdp = four_startups()
    one = mdp_privacy(mdp, 50, b=0.1, delta_target=0.05, adjacency="one-row")
    every = mdp_privacy(mdp, 50, b=0.1, delta_target=0.05, adjacency="all-rows")
    eps = [row.result.epsilon for row in one.rows]
    dels = [row.result.delta for row in one.rows]
    assert one.epsilon == max(eps) and one.delta == max(dels)
    assert every.epsilon == pytest.approx(sum(eps), rel=1e-12)
    assert every.delta == pytest.approx(sum(dels), rel=1e-12)
    assert every.epsilon > one.epsilon and every.delta > one.delta
    assert every.delta == pytest.approx(6 * 0.05, rel=1e-9)
    # delta is capped at 1 under basic composition
    capped = mdp_privacy(mdp, 50, b=0.1, delta_target=0.5, adjacency="all-rows")
    assert sum(row.result.delta for row in capped.rows) > 1 and capped.delta == 1.0


def test_statement_names_the_adjacency() -> None:
    mdp = four_startups()
    one = mdp_privacy(mdp, 20, adjacency="one-row")
    every = mdp_privacy(mdp, 20, adjacency="all-rows")
    assert ADJACENCY_TEXT["one-row"] in one.statement
    assert "differ in one transition row" in one.statement and "parallel" in one.statement
    assert ADJACENCY_TEXT["all-rows"] in every.statement
    assert "every transition row may differ" in every.statement
    assert f"{one.epsilon:.4g}" in one.statement and "k = 20" in one.statement
    d = every.to_dict()
    assert d["adjacency"] == "all-rows" and d["statement"] == every.statement
    assert len(d["rows"]) == 6 and all(row["applicable"] for row in d["rows"])


def _small_mdp() -> MDP:
    """Four states, one action: a full row, a deterministic row, a two-state row and a
    row with a small entry in W."""
    P = np.array([[[0.3, 0.3, 0.2, 0.2]],
                  [[0.0, 1.0, 0.0, 0.0]],
                  [[0.5, 0.5, 0.0, 0.0]],
                  [[0.1, 0.2, 0.3, 0.4]]])
    return MDP(P=P, R=np.zeros((4, 1)), horizon=2, state_names=("a", "b", "c", "d"),
               action_names=(("go",),) * 4)


def test_rows_with_fewer_than_three_next_states_are_listed_not_applicable() -> None:
    r = mdp_privacy(_small_mdp(), 100, b=0.1, delta_target=0.05)
    by_state = {row.state: row for row in r.rows}
    assert r.n_applicable == 2
    assert by_state["a"].applicable and by_state["d"].applicable
    for name, support in (("b", 1), ("c", 2)):
        row = by_state[name]
        assert not row.applicable and row.result is None and row.support == support
        assert "fewer than 3" in row.reason and "|W| >= 2" in row.reason
    assert {row.state for row in r.not_applicable} == {"b", "c"}
    assert "2 of 4 rows have no guarantee" in r.statement
    # the composed guarantee covers the applicable rows only
    assert r.epsilon == max(by_state[s].result.epsilon for s in "ad")
    d = r.to_dict()["rows"]
    assert [row["applicable"] for row in d] == [True, False, False, True]
    assert d[1]["epsilon"] is None and d[1]["reason"]
    # |W| = 3 rows use the exact delta
    assert by_state["a"].result.delta_method == "exact" and by_state["a"].w == 3


def test_no_applicable_row_gives_no_guarantee() -> None:
    P = np.array([[[1.0, 0.0]], [[0.5, 0.5]]])
    r = mdp_privacy(MDP(P=P, R=np.zeros((2, 1))), 10)
    assert r.n_applicable == 0 and r.epsilon == math.inf and r.delta == 1.0


def test_fixed_eta_marks_rows_below_it_not_applicable() -> None:
    r = mdp_privacy(_small_mdp(), 100, b=0.1, delta_target=0.05, eta=0.15, eta_bar=0.15)
    by_state = {row.state: row for row in r.rows}
    a, d = by_state["a"], by_state["d"]
    assert a.applicable and (a.eta, a.eta_bar) == (0.15, 0.15)
    want = dirichlet_privacy(100, 0.15, 0.15, 3, 0.1, delta_target=0.05)
    assert a.result.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert a.result.delta == pytest.approx(want.delta, rel=1e-12)
    assert not d.applicable and "outside the domain" in d.reason  # its entry 0.1 < 0.15
    assert r.n_applicable == 1
    # the remainder below eta_bar is also outside the domain
    r2 = mdp_privacy(_small_mdp(), 100, eta=0.05, eta_bar=0.3)
    assert not {row.state: row for row in r2.rows}["a"].applicable  # remainder 0.2 < 0.3
    # eta and eta_bar come together
    with pytest.raises(InputError) as ei:
        mdp_privacy(_small_mdp(), 100, eta=0.1)
    assert ei.value.field == "eta"


def test_smoothing_makes_every_row_applicable() -> None:
    r = mdp_privacy(_small_mdp(), 100, b=0.1, delta_target=0.05, zeros="smoothing")
    assert r.n_applicable == 4 and r.not_applicable == ()
    assert all(row.support == 4 and row.w == 3 for row in r.rows)
    b_row = {row.state: row for row in r.rows}["b"]
    assert b_row.eta == pytest.approx(0.01 / 4)  # (1 - 0.01) * 0 + 0.01 / 4


@pytest.mark.parametrize("kwargs, field", [
    (dict(k=0), "k"), (dict(k=10, adjacency="some-rows"), "adjacency"),
    (dict(k=10, b=0.0), "b"), (dict(k=10, b=1.5), "b"), (dict(k=10, delta_target=1.0), "delta"),
])
def test_mdp_privacy_validation(kwargs, field) -> None:
    with pytest.raises(InputError) as ei:
        mdp_privacy(four_startups(), **kwargs)
    assert ei.value.field == field


def test_large_rows_use_the_union_bound() -> None:
    rng = np.random.default_rng(5)
    P = rng.uniform(0.5, 1.5, size=(20, 1, 20))
    P /= P.sum(axis=2, keepdims=True)
    r = mdp_privacy(MDP(P=P, R=np.zeros((20, 1))), 100, b=0.02, delta_target=0.05)
    assert r.n_applicable == 20
    assert all(row.w == 19 and row.result.delta_method == "union" for row in r.rows)
    assert r.delta <= 0.05


# =============================================================================== accuracy
def _binomial_ci(hits: int, n: int, z: float = 4.0) -> tuple[float, float]:
    """p_hat -+ z standard errors; the standard error sqrt(p(1-p)/n) is taken at p_hat."""
    p = hits / n
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return p - z * se, p + z * se


def _linf_exceed(k: float, n: int, alpha: float, draws: int, seed: int) -> tuple[int, int]:
    p = np.full(n, 1.0 / n)
    x = np.random.default_rng(seed).dirichlet(k * p, size=draws)
    return int((np.abs(x - p).max(axis=1) >= alpha).sum()), draws


def test_oracle9_lemma_2_2_fails_for_k_5() -> None:
    # n = 20 uniform, k = 5, beta = 0.05: P(||x - p||_inf >= alpha_paper) ~ 0.0544.
    # With N = 3e5 draws the standard error is sqrt(0.0544 * 0.9456 / 3e5) = 4.1e-4, so
    # the lower end of the 4-sigma interval (~0.0528) is ~7 standard errors above beta.
    beta, k, n = 0.05, 5.0, 20
    a = dirichlet_accuracy(k, n=n, beta=beta)
    assert a.alpha_paper == pytest.approx(math.sqrt(math.log(1 / beta) / (2 * (k + 1))))
    lo, hi = _binomial_ci(*_linf_exceed(k, n, a.alpha_paper, 300_000, seed=99))
    assert lo > beta  # the published bound is violated, significantly
    assert lo < 0.0544 < hi  # and the value is the spec's
    # the rigorous radius holds
    assert a.alpha_rigorous == pytest.approx(alpha_radius(k, beta, mode="rigorous", n=n))
    assert a.alpha_rigorous == pytest.approx(math.sqrt(math.log(2 * n / beta) / (2 * (k + 1))))
    _, hi_r = _binomial_ci(*_linf_exceed(k, n, a.alpha_rigorous, 300_000, seed=98))
    assert hi_r <= beta
    assert "can fail" in a.note


def test_oracle9_lemma_2_2_holds_for_k_20() -> None:
    # n = 20, k = 20 (k p_i = 1), beta = 0.05: P ~ 0.014; the upper end of the 4-sigma
    # interval (SE = sqrt(0.014 * 0.986 / 2e5) = 2.6e-4) is far below beta.
    beta, k, n = 0.05, 20.0, 20
    a = dirichlet_accuracy(k, n=n, beta=beta)
    _, hi = _binomial_ci(*_linf_exceed(k, n, a.alpha_paper, 200_000, seed=97))
    assert hi <= beta
    _, hi_r = _binomial_ci(*_linf_exceed(k, n, a.alpha_rigorous, 200_000, seed=96))
    assert hi_r <= beta
    assert a.alpha_rigorous > a.alpha_paper


def test_alpha_radius_hand_computable_and_validated() -> None:
    assert alpha_radius(24, math.exp(-2)) == pytest.approx(0.2, abs=1e-12)
    assert alpha_radius(24, math.exp(-2), mode="rigorous", n=1) == pytest.approx(
        math.sqrt((math.log(2) + 2) / 50))
    with pytest.raises(InputError):
        alpha_radius(24, 0.1, mode="rigorous")  # needs n


def test_oracle7_dirichlet_accuracy_variance_values() -> None:
    p = np.array([0.2, 0.3, 0.5])
    a = dirichlet_accuracy(10, n=3, p=p)
    assert a.variance == pytest.approx((0.014545, 0.019091, 0.022727), abs=1e-6)
    assert a.variance == pytest.approx(tuple(p * (1 - p) / 11), rel=1e-14)
    assert a.variance_bound == pytest.approx(1 / 44) and max(a.variance) <= a.variance_bound
    assert a.expected_sq_error == pytest.approx((1 - (p ** 2).sum()) / 11, rel=1e-14)
    assert a.k == 10 and a.n == 3 and a.beta == 0.05
    # without p only the p-free figures are given
    b = dirichlet_accuracy(10, n=3)
    assert b.variance is None and b.expected_sq_error is None
    assert b.variance_bound == a.variance_bound


def test_oracle7_moments_against_monte_carlo() -> None:
    # N = 2e5 draws of Dir(10 p). Every comparison uses 4 standard errors estimated from
    # the sample itself: the mean of x_i has SE sqrt(Var/N); the sample variance has SE
    # sqrt((m4 - s^4)/N) (m4 the fourth central moment); E||x-p||^2 has SE sd(||x-p||^2)/sqrt(N).
    n_draws = 200_000
    p = np.array([0.2, 0.3, 0.5])
    a = dirichlet_accuracy(10, n=3, p=p)
    x = np.random.default_rng(2024).dirichlet(10 * p, size=n_draws)
    assert (x >= 0).all() and np.allclose(x.sum(axis=1), 1.0, atol=1e-12)
    mean = x.mean(axis=0)
    dev = x - mean
    s2 = (dev ** 2).mean(axis=0)
    m4 = (dev ** 4).mean(axis=0)
    assert (np.abs(mean - p) < 4 * np.sqrt(s2 / n_draws)).all()
    assert (np.abs(s2 - np.array(a.variance)) < 4 * np.sqrt((m4 - s2 ** 2) / n_draws)).all()
    sq = ((x - p) ** 2).sum(axis=1)
    assert abs(sq.mean() - a.expected_sq_error) < 4 * sq.std() / math.sqrt(n_draws)
    # the worst-case variance bound 1/(4(k+1)) is attained at p_i = 1/2
    assert s2.max() <= a.variance_bound + 4 * np.sqrt((m4.max() - s2.max() ** 2) / n_draws)


@pytest.mark.parametrize("kwargs, field", [
    (dict(k=0, n=3), "k"), (dict(k=10, n=1), "n"), (dict(k=10, n=2.5), "n"),
    (dict(k=10, n=3, beta=1.0), "beta"), (dict(k=10, n=3, beta=0.0), "beta"),
])
def test_dirichlet_accuracy_validation(kwargs, field) -> None:
    with pytest.raises(InputError) as ei:
        dirichlet_accuracy(**kwargs)
    assert ei.value.field == field
