"""MDP-level Dirichlet accounting and the accuracy of the mechanism (spec §2.9, §3).

``core.mdp.accounting``: per-row (ε, δ) from public parameters and the support
size only, one-row / all-rows composition, rows without a guarantee,
the declared domain and its rules; ``dirichlet_accuracy`` and ``core.mdp.robust.alpha_radius``,
including oracle 9 (Lemma 2.2 as published is not universal) and oracle 7 (moments).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import betainc, gammaln

from core.common.errors import InputError
from core.common.jsonable import dumps
from core.mdp.accounting import (
    ADJACENCY_TEXT,
    DEFAULT_DOMAIN_RULE,
    DEFAULT_ETA,
    dirichlet_accuracy,
    mdp_privacy,
    release_privacy,
)
from core.mdp.examples import example2, four_startups
from core.mdp.model import MDP
from core.mdp.privatize import mechanism_rows, privatize_mdp
from core.mdp.robust import alpha_radius
from core.privacy.dirichlet import dirichlet_rows
from core.privacy.dirichlet_accounting import support_privacy


def _mdp(*rows: list[float], names: tuple[str, ...] | None = None) -> MDP:
    """One action per state; state i's row is rows[i] (padded with zeros)."""
    n = max(len(rows), max(len(r) for r in rows))
    P = np.zeros((n, 1, n))
    for i, r in enumerate(rows):
        P[i, 0, :len(r)] = r
    for i in range(len(rows), n):
        P[i, 0, i] = 1.0
    return MDP(P=P, R=np.zeros((n, 1)), horizon=2,
               state_names=names or tuple(f"s{i}" for i in range(n)),
               action_names=(("go",),) * n)


# =============================================================================== MDP rows
def test_four_startups_rows_share_one_public_guarantee() -> None:
    # 'refuse': the rows are used as they are (all >= 0.01), so the radius is b itself
    mdp = four_startups()
    r = mdp_privacy(mdp, 50, eta=0.01, b=0.1, delta_target=0.05, domain_rule="refuse")
    assert r.adjacency == "one-row" and r.k == 50 and r.b == 0.1 and r.delta_target == 0.05
    assert (r.eta, r.domain_rule) == (0.01, "refuse")
    assert len(r.rows) == 6 and r.n_applicable == 6 and r.not_applicable == ()
    want = support_privacy(50, 0.01, 3, 0.1, delta_target=0.05)
    assert [g.n for g in r.supports] == [3]
    for row in r.rows:
        assert row.support == 3 and row.contraction == 1.0 and row.applicable
        assert row.epsilon == pytest.approx(want.epsilon, rel=1e-12)
        assert row.delta == pytest.approx(want.delta, rel=1e-12) and row.delta <= 0.05
    assert {(row.state, row.action) for row in r.rows} == {
        ("start", a) for a in ("acquire_1", "acquire_2", "acquire_3", "acquire_4")} | {
        ("success", "stay"), ("failure", "stay")}
    assert (r.epsilon, r.delta) == (r.rows[0].epsilon, r.rows[0].delta)
    # the default rule 'mix': the same single guarantee for every row, at radius (1 − 3η)·b
    m = mdp_privacy(mdp, 50, eta=0.01, b=0.1, delta_target=0.05)
    assert m.domain_rule == DEFAULT_DOMAIN_RULE == "mix"
    want = support_privacy(50, 0.01, 3, 0.97 * 0.1, delta_target=0.05)
    assert [g.n for g in m.supports] == [3] and m.n_applicable == 6
    for row in m.rows:
        assert row.contraction == pytest.approx(0.97, rel=1e-12)
        assert row.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert m.epsilon < r.epsilon  # the contraction can only help


def test_composition_one_row_is_the_max_and_all_rows_the_sum() -> None:
    mdp = _mdp([0.3, 0.3, 0.4], [0.5, 0.5], [0.2, 0.2, 0.3, 0.3], [0.0, 1.0])
    one = mdp_privacy(mdp, 50, eta=0.1, b=0.1, delta_target=0.05, adjacency="one-row")
    every = mdp_privacy(mdp, 50, eta=0.1, b=0.1, delta_target=0.05, adjacency="all-rows")
    eps = [row.epsilon for row in one.rows]
    assert sorted({row.support for row in one.rows}) == [1, 2, 3, 4]
    assert one.epsilon == max(eps) and one.delta == 0.05
    # all rows: the PLD of the three rows with a guarantee, read at the release's δ̂ = 0.05;
    # basic composition beside it splits δ̂ over them (each row at 0.05/3)
    assert every.composition == "pld" and every.delta == 0.05
    per_row = [support_privacy(50, 0.1, n, (1 - n * 0.1) * 0.1, delta_target=0.05 / 3).epsilon
               for n in (3, 2, 4)]  # radius (1 − n·η)·b after the default rule 'mix'

    assert every.epsilon_basic == pytest.approx(sum(per_row), rel=1e-9)
    assert one.epsilon < every.epsilon < every.epsilon_basic
    # the threshold analyses keep basic composition: Σ ε_r at δ̂/R per row, Σδ = δ̂
    union = mdp_privacy(mdp, 50, eta=0.1, b=0.1, delta_target=0.05, adjacency="all-rows",
                        delta_method="union")
    assert union.composition == "basic" and union.epsilon_basic is None
    assert union.epsilon == pytest.approx(sum(r.epsilon for r in union.rows), rel=1e-12)
    assert union.delta == 0.05 and all(r.delta <= 0.05 / 3 for r in union.rows)


def test_statement_states_the_guarantee_whole() -> None:
    mdp = four_startups()
    one = mdp_privacy(mdp, 20, eta=0.01, adjacency="one-row")
    every = mdp_privacy(mdp, 20, eta=0.01, adjacency="all-rows")
    assert ADJACENCY_TEXT["one-row"] in one.statement
    assert "differ in one transition row" in one.statement and "parallel" in one.statement
    assert "between two next states of its support" in one.statement
    assert "NOT protected" in one.statement  # the supports are disclosed
    assert ADJACENCY_TEXT["all-rows"] in every.statement
    assert f"({one.epsilon:.4g}, {one.delta:.3g})-DP" in one.statement
    assert "k = 20" in one.statement and "eta = 0.01" in one.statement
    assert "b = 0.1" in one.statement and "domain rule 'mix'" in one.statement  # default
    assert "(1 - n·eta)·b" in one.statement  # the mixed radius is stated
    refuse = mdp_privacy(mdp, 20, eta=0.01, domain_rule="refuse")
    assert "domain rule 'refuse'" in refuse.statement and ">= eta" in refuse.statement
    g = one.guarantee()
    for key in ("epsilon", "delta", "adjacency", "adjacency_text", "k", "eta", "b",
                "delta_target", "domain_rule", "zeros", "statement"):
        assert key in g, key
    d = every.to_dict()
    assert d["adjacency"] == "all-rows" and d["statement"] == every.statement
    assert len(d["rows"]) == 6 and all(row["applicable"] for row in d["rows"])


# ----------------------------------------------------------------- item 2: adjacency
def _log_ratio_sup(p: np.ndarray, q: np.ndarray, k: float, gamma: float) -> float:
    """sup over Ω₁ = {x : x_i >= γ for all i} of |log f_p(x) − log f_q(x)|, exactly, for
    a pair move (p and q differ in two entries only).

    The log-ratio is Σ k(p_i − q_i) log x_i + const with one positive coefficient (entry
    i) and one negative (entry j): increasing in x_i and decreasing in x_j, so on Ω₁ its
    supremum puts γ on every coordinate but i (a vertex of Ω₁), and its infimum every
    coordinate but j. (With two positive coefficients the supremum is interior: hence the
    assertion.)
    """
    const = float(np.sum(gammaln(k * q)) - np.sum(gammaln(k * p)))
    coef = k * (p - q)
    assert (coef > 0).sum() <= 1 and (coef < 0).sum() <= 1, "not a pair move"
    best = -math.inf
    for sign in (1.0, -1.0):
        for top in range(p.size):
            x = np.full(p.size, gamma)
            x[top] = 1.0 - (p.size - 1) * gamma
            best = max(best, sign * (float(coef @ np.log(x)) + const))
    return best


def test_item2_mass_moved_into_the_last_entry_is_covered() -> None:
    # row (0.49, 0.49, 0.02) was stated (1.256, 0.05)-DP at k = 10 while
    # its neighbour (0.49, 0.44, 0.07) — mass moved into the last entry — needs δ ≈ 0.29.
    k, eta = 10.0, 0.02
    # 'refuse': p and q themselves are the centres of the noise (the pair)
    p, q = np.array([0.49, 0.49, 0.02]), np.array([0.49, 0.44, 0.07])
    a = mdp_privacy(_mdp(p.tolist()), k, eta=eta, b=0.1, delta_target=0.05, delta_method="union",
                    domain_rule="refuse")
    b = mdp_privacy(_mdp(q.tolist()), k, eta=eta, b=0.1, delta_target=0.05, delta_method="union",
                    domain_rule="refuse")
    gamma = a.rows[0].result.gamma
    # ε covers the exact worst log-density ratio of the pair on Ω₁, both ways
    worst = _log_ratio_sup(p, q, k, gamma)
    assert worst > 1.256  # the old statement did not cover this pair
    assert worst <= a.rows[0].epsilon
    # δ covers P[x ∉ Ω₁] at both inputs (union bound: an upper bound of the true value)
    for r in (p, q):
        fail = float(sum(betainc(k * ri, k * (1 - ri), gamma) for ri in r))
        assert fail <= a.rows[0].delta <= 0.05
    assert (a.epsilon, a.delta) == (b.epsilon, b.delta)


def test_item2_every_pair_of_entries_is_covered_on_random_rows() -> None:
    # Random rows in the domain, random neighbours moving up to b/2 between two random
    # entries (the last one included): the exact worst log-ratio on Ω₁ never exceeds ε.
    # 'refuse': the rows drawn in the domain are the centres of the noise
    rng = np.random.default_rng(11)
    k, eta, b = 30.0, 0.05, 0.1
    for n in (2, 3, 4):
        r = mdp_privacy(_mdp([1.0 / n] * n), k, eta=eta, b=b, delta_target=0.05,
                        delta_method="union", domain_rule="refuse")
        eps, gamma = r.rows[0].epsilon, r.rows[0].result.gamma
        for _ in range(200):
            p = eta + rng.dirichlet(np.ones(n)) * (1 - n * eta)
            i, j = rng.choice(n, size=2, replace=False)
            t = min(rng.uniform(0, b / 2), p[j] - eta)
            q = p.copy()
            q[i] += t
            q[j] -= t
            assert _log_ratio_sup(p, q, k, gamma) <= eps + 1e-9


def _one_row(p: np.ndarray) -> MDP:
    return MDP(P=np.asarray(p, dtype=float)[None, None, :].repeat(p.size, axis=0),
               R=np.zeros((p.size, 1)), horizon=1)


def _pair(p: np.ndarray, i: int, j: int, t: float) -> np.ndarray:
    q = p.copy()
    q[i] += t
    q[j] -= t
    return q


def _centre(p: np.ndarray, eta: float, domain_rule: str = "mix") -> np.ndarray:
    """The row the noise is centred on (through the code's own pre-processing)."""
    return mechanism_rows(_one_row(p), eta=eta, domain_rule=domain_rule).rows[0]


def _fail_upper(c: np.ndarray, k: float, gamma: float) -> float:
    """P[x ∉ Ω₁] = P[∪_i {x_i < γ}] under Dir(k·c), n <= 4, independent of the accountant,
    by inclusion–exclusion S1 − S2 + S3 (S4 = 0 since 4γ < 1; S3 = 0 for n = 3 since
    3γ < 1). S1 = Σ I_γ(k c_i, k(1 − c_i)); S2 = Σ_{i<j} P[x_i < γ, x_j < γ] by 1-D
    quadrature (x_i ~ Beta(a_i, a₀ − a_i) and, given x_i = u, x_j/(1 − u) ~ Beta(a_j,
    a₀ − a_i − a_j)); S3 the same with a 2-D quadrature over (x_i, x_j). The quadratures
    are accurate to ~1e-12 here (all k·c_i > 1: bounded integrands); callers allow 1e-9."""
    from itertools import combinations

    from scipy.integrate import dblquad, quad
    from scipy.stats import beta

    n, a = c.size, k * c
    assert n <= 4 and n * gamma < 1
    s1 = float(sum(betainc(ai, k - ai, gamma) for ai in a))
    if n == 2:
        return s1  # {x_1 < γ} and {x_2 < γ} are disjoint: S1 is exact
    s2 = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s2 += quad(lambda u: beta.pdf(u, a[i], k - a[i])
                       * betainc(a[j], k - a[i] - a[j], gamma / (1 - u)),
                       0.0, gamma, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
    s3 = 0.0
    if n == 4:
        for i, j, m in combinations(range(n), 3):
            rest = k - a[i] - a[j]
            logc = gammaln(k) - gammaln(a[i]) - gammaln(a[j]) - gammaln(rest)

            def f(v: float, u: float) -> float:  # joint density of (x_i, x_j) × P[x_m < γ | …]
                w = 1 - u - v
                return math.exp(logc + (a[i] - 1) * math.log(u) + (a[j] - 1) * math.log(v)
                                + (rest - 1) * math.log(w)) * betainc(a[m], rest - a[m],
                                                                       gamma / w)
            s3 += dblquad(f, 0.0, gamma, 0.0, gamma, epsabs=1e-15, epsrel=1e-10)[0]
    return s1 - s2 + s3


def test_item2_mix_covers_every_input_and_every_pair_of_entries() -> None:
    # The default rule 'mix' makes no assumption on the input: rows with entries far below
    # eta (1e-9) and their neighbours (up to b/2 moved between ANY two support entries,
    # into or out of the last one included). The noise is centred on the mixed rows, so
    # the exact worst log-ratio on Ω₁ of the two CENTRES must stay below the stated ε, and
    # P[x ∉ Ω₁] at each centre below δ (computed independently, _fail_upper: at the
    # extreme input the centre is the domain's vertex, where δ is tight).
    rng = np.random.default_rng(12)
    k, eta, b = 30.0, 0.05, 0.1
    for n in (2, 3, 4):
        r = mdp_privacy(_one_row(np.full(n, 1.0 / n)), k, eta=eta, b=b, delta_target=0.05,
                        delta_method="union")
        assert r.domain_rule == "mix" and r.bounded
        eps, delta, gamma = r.rows[0].epsilon, r.rows[0].delta, r.rows[0].result.gamma
        starts = [np.r_[np.full(n - 1, 1e-9), 1 - (n - 1) * 1e-9]]  # far outside the domain
        starts += [rng.dirichlet(np.full(n, 0.3)) for _ in range(150)]
        worst = 0.0
        for idx, p in enumerate(starts):
            i, j = rng.choice(n, size=2, replace=False)
            q = _pair(p, i, j, min(rng.uniform(0, b / 2), p[j] / 2))  # same support
            cp, cq = _centre(p, eta), _centre(q, eta)
            assert (cp >= eta).all() and np.abs(cp - cq).sum() <= (1 - n * eta) * b + 1e-15
            worst = max(worst, _log_ratio_sup(cp, cq, k, gamma))
            for c in (cp, cq) if idx < 10 else ():  # the vertex first; quadrature is slow
                assert _fail_upper(c, k, gamma) <= delta + 1e-9
        assert worst <= eps + 1e-9
        assert worst > 0.5 * eps  # the check has teeth: the worst pair comes close to ε


# ----------------------------------------------------------------- the defaults
def _builtin_models() -> list[MDP]:
    from pathlib import Path

    from core.project.files import load_project

    path = Path(__file__).resolve().parents[3] / "assets" / "examples" / "builtin.privplan.json"
    project = load_project(path)  # what `make run` opens
    return [four_startups(), example2()] + [e.mdp for e in project.mdps]


@pytest.mark.parametrize("k", [10.0, 100.0, 1000.0, 10000.0])
def test_defaults_give_the_builtin_examples_a_finite_sound_statement(k) -> None:
    """With the defaults (eta 'auto' = min(1e-3, 1/(2n)) per row, 'mix', b 0.1, target δ
    0.05, one-row, the exact profile) every built-in example gets a finite (ε, δ) with
    δ = 0.05 at k = 10 … 10⁴ — and the statement holds on the example's own neighbour
    pairs: for the centres of every row and of a neighbour (b/2 moved between two support
    entries) the exact hockey-stick divergence at the row's ε, computed by the audit's
    independent code (core.audit.dirichlet.delta_tight_exact), is below δ."""
    from core.audit.dirichlet import delta_tight_exact

    assert (DEFAULT_ETA, DEFAULT_DOMAIN_RULE) == ("auto", "mix")
    rng = np.random.default_rng(int(k))
    models = _builtin_models()
    assert len(models) == 4
    for mdp in models:
        r = mdp_privacy(mdp, k)
        assert (r.eta, r.domain_rule, r.b, r.delta_target, r.adjacency) == (
            "auto", "mix", 0.1, 0.05, "one-row")
        assert r.bounded and math.isfinite(r.epsilon) and r.epsilon > 0, r.epsilon_reason
        assert r.delta == 0.05 and r.n_applicable == len(r.rows)
        assert all(row.result is None or row.result.delta_method == "profile"
                   for row in r.rows)
        assert "Infinity" not in dumps(r.to_dict()) and r.to_dict()["epsilon"] == r.epsilon
        prep = mechanism_rows(mdp)
        for row, p, (s, a) in zip(r.rows, mdp.P[mdp.mask], prep.index):
            n = row.support
            if n < 2:
                continue
            pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
            support = np.flatnonzero(p > 0)
            for pi in rng.choice(len(pairs), size=min(len(pairs), 4), replace=False):
                i, j = support[pairs[pi][0]], support[pairs[pi][1]]
                q = _pair(p, i, j, min(0.05, p[j] / 2))
                cp = prep.rows[(prep.index == (s, a)).all(axis=1)][0][support]
                cq = _centre(q[support], row.result.eta)
                for x, y in ((cp, cq), (cq, cp)):
                    assert delta_tight_exact(x, y, k, row.epsilon) <= 0.05 * (1 + 1e-9)


def test_the_profile_is_finite_where_the_union_bound_proves_nothing() -> None:
    # below k·eta ≈ 6e-3 no γ reaches the target under the union bound (unbounded, with
    # the reason); the exact profile still gives a finite, tight number
    for mdp in _builtin_models()[:2]:
        u = mdp_privacy(mdp, 3.0, delta_method="union")
        assert not u.bounded and u.to_dict()["epsilon"] is None and "too small" in \
            u.epsilon_reason
        r = mdp_privacy(mdp, 3.0)
        assert r.bounded and r.epsilon > 0 and r.delta == 0.05


# ----------------------------------------------------------------- item 3: data-free
def test_item3_the_statement_is_identical_for_neighbouring_mdps() -> None:
    p = [[0.3, 0.3, 0.4], [0.6, 0.4], [0.0, 1.0]]
    q = [[0.3, 0.25, 0.45], [0.6, 0.4], [0.0, 1.0]]  # one row, 0.05 moved into the last entry
    for adjacency in ("one-row", "all-rows"):
        a = mdp_privacy(_mdp(*p), 40, eta=0.1, adjacency=adjacency)
        b = mdp_privacy(_mdp(*q), 40, eta=0.1, adjacency=adjacency)
        assert a.statement == b.statement and a.to_dict() == b.to_dict()


def test_item3_no_probability_enters_the_numbers() -> None:
    # Same supports, different probabilities: the same accounting, row by row.
    rng = np.random.default_rng(3)
    base = example2()
    P = rng.uniform(0.5, 1.5, size=base.P.shape)
    P /= P.sum(axis=2, keepdims=True)
    other = base.replace(P=P)
    a = mdp_privacy(base, 10000, delta_target=0.05)
    b = mdp_privacy(other, 10000, delta_target=0.05)
    assert a.to_dict() == b.to_dict() and a.eta == DEFAULT_ETA


# ----------------------------------------------------------------- item 4: headline
def test_item4_two_outcome_rows_have_a_finite_guarantee() -> None:
    r = mdp_privacy(_mdp([0.5, 0.5], [0.2, 0.8]), 20, eta=0.1, b=0.1, delta_target=0.05,
                    domain_rule="refuse")
    want = support_privacy(20, 0.1, 2, 0.1, delta_target=0.05)
    assert r.n_applicable == 2 and r.bounded
    assert r.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert r.delta == pytest.approx(want.delta, rel=1e-12)


def test_item4_one_outcome_rows_are_zero_and_a_deterministic_mdp_is_0_0() -> None:
    r = mdp_privacy(_mdp([1.0, 0.0], [0.0, 1.0]), 10)
    assert [(row.support, row.epsilon, row.delta) for row in r.rows] == [(1, 0.0, 0.0)] * 2
    assert (r.epsilon, r.delta) == (0.0, 0.0) and r.bounded
    one_state = MDP(P=np.ones((1, 1, 1)), R=np.ones((1, 1)), horizon=3)
    assert (mdp_privacy(one_state, 10).epsilon, mdp_privacy(one_state, 10).delta) == (0, 0)


@pytest.mark.parametrize("adjacency", ["one-row", "all-rows"])
def test_item4_a_row_without_a_guarantee_makes_the_headline_unbounded(adjacency) -> None:
    # ten next states at eta = 0.1: the domain is the single point 1/10 and no mass can
    # move (n·eta + b/2 > 1), so support_privacy proves nothing for that row ('refuse':
    # 'mix' refuses n·eta >= 1 outright, see test_mix_needs_n_eta_below_one)
    mdp = _mdp([0.3, 0.3, 0.4], [0.1] * 10, names=tuple("abcdefghij"))
    # (the exact profile proves (0, δ) there: the domain is a single point, see
    # test_a_single_point_domain_releases_nothing; the union analysis is the named option)
    r = mdp_privacy(mdp, 50, eta=0.1, adjacency=adjacency, domain_rule="refuse",
                    delta_method="union")
    by_state = {row.state: row for row in r.rows}
    assert by_state["a"].applicable and not by_state["b"].applicable
    assert by_state["b"].epsilon == math.inf and by_state["b"].reason
    assert r.epsilon == math.inf and not r.bounded
    assert "b/go" in r.epsilon_reason and "10 possible next states" in r.epsilon_reason
    assert by_state["b"].reason in r.epsilon_reason
    assert "no finite (ε, δ) guarantee" in r.statement
    d = r.to_dict()
    assert d["epsilon"] is None and d["epsilon_reason"] == r.epsilon_reason
    row_b = next(row for row in d["rows"] if row["state"] == "b")
    assert row_b["epsilon"] is None and row_b["epsilon_reason"] == by_state["b"].reason
    assert "Infinity" not in dumps(d) and "NaN" not in dumps(d)


def test_a_single_point_domain_releases_nothing() -> None:
    mdp = _mdp([0.3, 0.3, 0.4], [0.1] * 10, names=tuple("abcdefghij"))
    r = mdp_privacy(mdp, 50, eta=0.1, domain_rule="refuse")
    by_state = {row.state: row for row in r.rows}
    assert by_state["b"].applicable and by_state["b"].epsilon == 0.0
    assert r.epsilon == by_state["a"].epsilon > 0


@pytest.mark.parametrize("domain_rule", ["mix", "refuse"])
def test_item4_small_k_is_unbounded_with_the_reason(domain_rule) -> None:
    r = mdp_privacy(four_startups(), 10, eta=1e-6, domain_rule=domain_rule,  # k·eta = 1e-5
                    delta_method="union")
    assert r.epsilon == math.inf and r.n_applicable == 0
    assert "6 of 6 rows" in r.epsilon_reason and "too small" in r.epsilon_reason
    # a small enough k is still honestly unbounded under the union bound
    r = mdp_privacy(four_startups(), 1, delta_method="union")  # k·eta = 1e-3
    assert r.epsilon == math.inf and "6 of 6 rows" in r.epsilon_reason


# ----------------------------------------------------------------- the declared domain
def test_refuse_names_the_row_the_entry_and_the_fix() -> None:
    mdp = _mdp([0.5, 0.5], [0.02, 0.49, 0.49], names=("x", "y", "z"))
    with pytest.raises(InputError) as ei:
        mdp_privacy(mdp, 50, eta=0.05, domain_rule="refuse")
    msg = str(ei.value)
    assert ei.value.field == "eta"
    assert "P(y, go)" in msg and "'x'" in msg and "0.02" in msg and "eta = 0.05" in msg
    assert "mix" in msg and "smaller eta" in msg
    with pytest.raises(InputError):  # the mechanism applies the same rule
        privatize_mdp(mdp, 50, rng=1, eta=0.05, domain_rule="refuse")
    with pytest.raises(InputError):
        mechanism_rows(mdp, eta=0.05, domain_rule="refuse")
    # the default rule mixes the row into the domain instead of refusing it
    assert mdp_privacy(mdp, 50, eta=0.05).domain_rule == "mix"
    assert privatize_mdp(mdp, 50, rng=1, eta=0.05).domain_rule == "mix"


def test_mix_covers_every_input_at_the_shrunk_radius() -> None:
    mdp = _mdp([0.999, 0.001], [0.02, 0.49, 0.49], [0.0, 0.0, 1.0])
    eta, b, k = 0.05, 0.1, 50
    r = mdp_privacy(mdp, k, eta=eta, b=b, domain_rule="mix")
    assert r.bounded and r.domain_rule == "mix"
    for row in r.rows:
        n = row.support
        if n == 1:
            assert (row.epsilon, row.delta) == (0.0, 0.0)
            continue
        assert row.contraction == pytest.approx(1 - n * eta)
        want = support_privacy(k, eta, n, (1 - n * eta) * b, delta_target=0.05)
        assert row.epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert "(1 - n·eta)·b" in r.adjacency_text
    # the centres are mixed: every support entry >= eta, zeros stay zero
    prep = mechanism_rows(mdp, eta=eta, domain_rule="mix")
    support = mdp.P[mdp.mask] > 0
    assert (prep.rows[support] >= eta).all() and (prep.rows[~support] == 0).all()
    assert np.allclose(prep.rows[1], 0.85 * np.array([0.02, 0.49, 0.49]) + 0.05)
    # and the privatisation draws around exactly those centres
    out = privatize_mdp(mdp, k, rng=5, eta=eta, domain_rule="mix")
    assert np.array_equal(out.mdp.P[mdp.mask], dirichlet_rows(prep.rows, k, 5))
    assert (out.eta, out.domain_rule) == (eta, "mix")


def test_mix_needs_n_eta_below_one() -> None:
    with pytest.raises(InputError) as ei:
        mdp_privacy(_mdp([0.5, 0.5], [0.2, 0.3, 0.5]), 10, eta=0.34, domain_rule="mix")
    assert ei.value.field == "eta" and "n·eta" in str(ei.value)


def test_smoothing_fills_zeros_and_shrinks_the_radius() -> None:
    mdp = _mdp([0.3, 0.3, 0.2, 0.2], [0.0, 1.0], [0.5, 0.5])
    # 'refuse': the only contraction is smoothing's (smoothed entries are 0.01/4 >= eta)
    r = mdp_privacy(mdp, 100, eta=0.001, b=0.1, delta_target=0.05, zeros="smoothing",
                    smoothing=0.01, domain_rule="refuse")
    assert all(row.support == 4 for row in r.rows) and r.bounded
    by_state = {row.state: row for row in r.rows}
    assert not by_state["s0"].smoothed and by_state["s1"].smoothed
    assert by_state["s1"].contraction == pytest.approx(0.99)
    assert by_state["s0"].contraction == 1.0
    want = support_privacy(100, 0.001, 4, 0.099, delta_target=0.05)
    assert by_state["s1"].epsilon == pytest.approx(want.epsilon, rel=1e-12)
    assert r.zeros == "smoothing" and "smoothed" in r.parameters_text
    # the default 'mix' after smoothing: the two contractions multiply, (1−λ)(1 − n·η)
    m = mdp_privacy(mdp, 100, eta=0.001, b=0.1, delta_target=0.05, zeros="smoothing",
                    smoothing=0.01)
    by_state = {row.state: row for row in m.rows}
    assert by_state["s1"].contraction == pytest.approx(0.99 * (1 - 4 * 0.001), rel=1e-12)
    assert by_state["s0"].contraction == pytest.approx(1 - 4 * 0.001, rel=1e-12)
    want = support_privacy(100, 0.001, 4, 0.1 * 0.99 * 0.996, delta_target=0.05)
    assert by_state["s1"].epsilon == pytest.approx(want.epsilon, rel=1e-12)


def test_release_privacy_restates_the_guarantee_from_the_release() -> None:
    mdp = _mdp([0.3, 0.3, 0.4], [0.5, 0.5], [0.0, 1.0])
    for rule in ("refuse", "mix"):
        truth = mdp_privacy(mdp, 40, eta=0.1, domain_rule=rule)
        private = privatize_mdp(mdp, 40, rng=2, eta=0.1, domain_rule=rule).mdp
        again = release_privacy(private, 40, eta=0.1, domain_rule=rule)
        assert (again.epsilon, again.delta) == (truth.epsilon, truth.delta)


@pytest.mark.parametrize("kwargs, field", [
    (dict(k=0), "k"), (dict(k=10, adjacency="some-rows"), "adjacency"),
    (dict(k=10, b=0.0), "b"), (dict(k=10, b=1.5), "b"), (dict(k=10, delta_target=1.0), "delta"),
    (dict(k=10, eta=0.0), "eta"), (dict(k=10, eta=1.0), "eta"),
    (dict(k=10, domain_rule="clip"), "domain_rule"), (dict(k=10, zeros="drop"), "zeros"),
    (dict(k=10, delta_method="guess"), "delta_method"),
])
def test_mdp_privacy_validation(kwargs, field) -> None:
    with pytest.raises(InputError) as ei:
        mdp_privacy(four_startups(), **kwargs)
    assert ei.value.field == field


def test_large_rows_use_the_profile_and_the_union_bound_by_name() -> None:
    rng = np.random.default_rng(5)
    P = rng.uniform(0.5, 1.5, size=(20, 1, 20))
    P /= P.sum(axis=2, keepdims=True)
    mdp = MDP(P=P, R=np.zeros((20, 1)))
    r = mdp_privacy(mdp, 100, eta=0.01, b=0.02, delta_target=0.05)
    assert r.n_applicable == 20 and [g.n for g in r.supports] == [20]
    assert all(row.result.delta_method == "profile" for row in r.rows)
    u = mdp_privacy(mdp, 100, eta=0.01, b=0.02, delta_target=0.05, delta_method="union")
    assert all(row.result.delta_method == "union" for row in u.rows)
    assert r.delta <= 0.05 and u.delta <= 0.05 and r.epsilon < u.epsilon


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
