"""The accounting by row class gives the numbers of the per-row accounting, bit for bit.

The reference below is the per-row algorithm: one guarantee per row (cached on (n, η,
radius)), ε the worst row (one-row) or the exact sum of every row's ε and the PLD of the
rows grouped (all-rows), the unbounded reason built row by row. The class-based code must
agree with it on random models, row by row.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mdp import accounting as acc
from core.mdp.accounting import mdp_privacy, supports_privacy
from core.mdp.privatize import row_etas
from core.privacy.pld import compose, dirichlet_rows_terms


def _reference(sizes, names, k, cs, b, delta, adjacency, eta, method):
    multi = sum(n >= 2 for n in sizes)
    row_delta = delta / max(1, multi) if adjacency == "all-rows" else delta
    etas = row_etas(eta, np.asarray(sizes, dtype=np.int64)).tolist()
    cache, rows = {}, []
    for n, name, c, e in zip(sizes, names, cs, etas):
        key = (n, float(e), b * c if n >= 2 else b)
        if key not in cache:
            cache[key] = acc._guarantee(k, key[1], n, key[2], row_delta, method)
        rows.append((n, name, c, cache[key]))
    eps = [g.epsilon for *_, g in rows]
    if not all(math.isfinite(x) for x in eps):
        return math.inf, None, rows
    if adjacency == "one-row":
        return max(eps), None, rows
    basic = math.fsum(eps)
    if method != "auto" or multi == 0:  # the threshold analyses: basic composition only
        return basic, None, rows
    groups: dict = {}
    for n, _, _, g in rows:
        if n >= 2 and g.result is not None:
            kk = (n, float(g.result.eta), float(g.b))
            groups[kk] = groups.get(kk, 0) + 1
    glist = [[n, e, r, cnt] for (n, e, r), cnt in sorted(groups.items())]
    pld = compose(dirichlet_rows_terms(k, glist, "all-rows", delta), delta)
    return (pld.epsilon if pld.bounded and pld.epsilon <= basic else basic), basic, rows


@pytest.mark.parametrize("seed", range(6))
def test_class_accounting_equals_the_per_row_accounting(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 60))
    sizes = rng.choice([1, 2, 3, 5, 40], size=m).tolist()
    cs = rng.choice([1.0, 0.9, 0.97], size=m).tolist()
    names = [(f"s{i}", f"a{i % 3}") for i in range(m)]
    k = float(rng.choice([5.0, 50.0, 400.0]))
    b = float(rng.choice([0.05, 0.1, 0.5]))
    adjacency = ("one-row", "all-rows")[seed % 2]
    method = ("auto", "union")[(seed // 2) % 2]
    eta = ("auto", 0.01)[seed % 3 == 0]
    got = supports_privacy(sizes, names, k, contraction=cs, b=b, delta_target=0.05,
                           adjacency=adjacency, eta=eta, delta_method=method)
    e_ref, basic_ref, rows = _reference(sizes, names, k, cs, b, 0.05, adjacency, eta, method)
    assert got.epsilon == e_ref  # the same float, not merely close
    if got.composition == "pld":
        assert got.epsilon_basic == basic_ref
    assert len(got.rows) == m
    for row, (n, (st, ac), c, g) in zip(got.rows, rows):
        assert (row.state, row.action, row.support, row.contraction) == (st, ac, n, c)
        assert row.epsilon == g.epsilon and row.delta == g.delta and row.reason == g.reason
    assert got.n_applicable == sum(g.bounded for *_, g in rows)


def test_the_unbounded_reason_names_the_rows_as_before():
    # n·η > 1: no row of 40 next states has a guarantee: the reason groups them per support size
    sizes = [3, 40, 40, 2, 40, 40, 40, 40]
    names = [(f"s{i}", "go") for i in range(len(sizes))]
    got = supports_privacy(sizes, names, 50.0, eta=0.05, b=0.1)
    assert not got.bounded
    out = [r for r in got.rows if not r.applicable]
    assert got.epsilon_reason == (
        "6 of 8 rows have no finite guarantee; 6 rows with 40 possible next states (s1/go, "
        "s2/go, s4/go, s5/go and 2 more): " + out[0].reason)
    assert got.n_not_applicable == len(got.not_applicable) == len(out)


def test_a_large_model_is_accounted_without_a_row_object():
    from core.mdp.examples import sparse_random_mdp

    m = sparse_random_mdp(20000, 4, 10, 5, seed=3)
    p = mdp_privacy(m, 100.0, adjacency="all-rows")
    assert "rows" not in p.__dict__  # the per-row view is not built
    assert len(p.classes.guarantees) == 1 and p.n_rows == 80000
    assert p.classes.counts.tolist() == [80000]
    one = p.classes.row(12345)
    assert one.epsilon == p.supports[0].epsilon and one.state == m.state_names[12345 // 4]


def test_an_accounting_pickles_with_its_per_row_view():
    """Results travel between processes (sweeps, studies): the row names' function too."""
    import pickle

    from core.mdp.examples import four_startups

    p = mdp_privacy(four_startups(), 50.0, adjacency="all-rows")
    q = pickle.loads(pickle.dumps(p))
    assert q.epsilon == p.epsilon and q.classes == p.classes
    assert [(r.state, r.action, r.epsilon) for r in q.rows] == [
        (r.state, r.action, r.epsilon) for r in p.rows]
    s = supports_privacy([2, 3], [("a", "x"), ("b", "y")], 10.0)
    assert pickle.loads(pickle.dumps(s)).rows[1].state == "b"
