"""Unit tests of core.logistics.obfuscation's building blocks.

The sensitivity claim (removing one node of degree d moves the 1K histogram by at most
2d + 1 in L1) is checked by brute force over every node of small random graphs; the EM
helpers by round trips; the rewiring by the invariants its docstring promises.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.common.errors import InputError
from core.logistics.examples import fig41
from core.logistics.obfuscation import (
    F3_REASON,
    F4_REASON,
    MAX_RELEASED_NODES,
    PUBLIC_LENGTH_SCALE,
    check_degree_bound,
    check_release_size,
    degree_histogram,
    deniability_size,
    em_fixed_point_epsilon,
    em_invert,
    em_softmax,
    histogram_release,
    histogram_sensitivity,
    node_dp_sensitivity,
    obfuscate_topology,
    rewire_to_histogram,
    topology_guarantee,
)


def bounded_graph(seed: int, n: int, dmax: int) -> nx.Graph:
    """A random graph on n nodes whose every degree is <= dmax."""
    rng = np.random.default_rng(seed)
    g = nx.empty_graph(n)
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    for k in rng.permutation(len(pairs)):
        u, v = pairs[k]
        if g.degree(u) < dmax and g.degree(v) < dmax and rng.random() < 0.5:
            g.add_edge(u, v)
    return g


# ------------------------------------------------------------------ histogram
def test_degree_histogram_brute_force_and_isolated_nodes():
    g = nx.Graph([(0, 1), (0, 2), (0, 3), (1, 2)])
    g.add_node(9)  # degree 0: not counted
    assert degree_histogram(g, 4).tolist() == [1, 2, 1, 0]
    assert degree_histogram(nx.Graph(), 3).tolist() == [0, 0, 0]


def test_degree_histogram_puts_larger_degrees_in_top_bin():
    h = degree_histogram(nx.star_graph(6), 3)
    assert h.tolist() == [6, 0, 1] and h.dtype == np.int64


@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(1, 5))
@settings(max_examples=30, deadline=None)
def test_histogram_counts_every_non_isolated_node_once(seed, n, dmax):
    g = bounded_graph(seed, n, dmax)
    h = degree_histogram(g, dmax)
    assert h.sum() == sum(1 for _, d in g.degree() if d > 0)
    for k in range(1, dmax + 1):
        assert h[k - 1] == sum(1 for _, d in g.degree() if d == k)


@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(1, 5))
@settings(max_examples=30, deadline=None)
def test_node_removal_moves_histogram_by_at_most_2d_plus_1(seed, n, dmax):
    """The L1 sensitivity 2·d_max + 1 (spec F2), by brute force over every node."""
    g = bounded_graph(seed, n, dmax)
    h = degree_histogram(g, dmax)
    for v in list(g.nodes):
        d = g.degree(v)
        g2 = g.copy()
        g2.remove_node(v)
        l1 = int(np.abs(degree_histogram(g2, dmax) - h).sum())
        assert l1 <= 2 * d + 1 <= node_dp_sensitivity(dmax)


def test_sensitivity_bound_is_attained():
    # a star's hub of degree d: removing it empties bin d and moves d leaves from bin 1 to
    # "not counted": |−1| + d = d + 1; a hub whose leaves have degree 2 reaches 2d + 1
    d = 3
    g = nx.star_graph(d)
    for leaf in range(1, d + 1):
        g.add_edge(leaf, 100 + leaf)
    h = degree_histogram(g, d)
    g.remove_node(0)
    assert int(np.abs(degree_histogram(g, d) - h).sum()) == 2 * d + 1


@pytest.mark.parametrize(("mode", "dmax", "ds", "want"), [
    ("thesis", 4, 1.0, 4.0), ("thesis", 4, 2.5, 10.0), ("node_dp_l1", 4, 1.0, 9.0),
    ("node_dp_l1", 1, 7.0, 3.0)])
def test_histogram_sensitivity(mode, dmax, ds, want):
    assert histogram_sensitivity(mode, dmax, ds) == want


def test_histogram_sensitivity_unknown_mode_names_field():
    with pytest.raises(InputError) as ei:
        histogram_sensitivity("l2", 4)
    assert ei.value.field == "laplace_sensitivity"


@given(st.floats(0.01, 10), st.integers(1, 12), st.floats(0.1, 5))
@settings(max_examples=30, deadline=None)
def test_deniability_size_is_the_ceiling(eps, dmax, ds):
    k = deniability_size(eps, dmax, ds)
    x = ds * dmax / eps
    assert k >= x - 1e-9 and k - 1 < x + 1e-9


def test_deniability_size_exact_quotient_is_not_bumped():
    assert deniability_size(0.5, 4) == 8  # 4/0.5 exactly; no float ceiling to 9
    assert deniability_size(0.1, 3) == 30


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_deniability_size_bad_epsilon(bad):
    with pytest.raises(InputError):
        deniability_size(bad, 4)


# ------------------------------------------------------------------ refusals
def test_check_release_size_boundary():
    dmax, sens = 4, 9.0
    eps_min = dmax * sens / MAX_RELEASED_NODES
    check_release_size(eps_min * 1.001, dmax=dmax, sensitivity=sens, bin_clip=None)
    with pytest.raises(InputError) as ei:
        check_release_size(eps_min * 0.99, dmax=dmax, sensitivity=sens, bin_clip=None)
    assert ei.value.field == "epsilon"
    # a public bin clip decides instead of the scale
    check_release_size(1e-6, dmax=dmax, sensitivity=sens, bin_clip=MAX_RELEASED_NODES // dmax)
    with pytest.raises(InputError):
        check_release_size(1.0, dmax=dmax, sensitivity=sens,
                           bin_clip=MAX_RELEASED_NODES // dmax + 1)


def test_check_degree_bound_names_field_node_and_owner():
    g = nx.star_graph(5)
    check_degree_bound(g, 5)
    with pytest.raises(InputError) as ei:
        check_degree_bound(g, 4, owner="ü")
    assert ei.value.field == "d_max"
    assert "node 0 has 5 routes in agent ü's area" in ei.value.problem
    check_degree_bound(nx.Graph(), 1)  # an empty map has nothing to refuse


def test_check_degree_bound_reports_the_highest_degree_node():
    g = nx.Graph([("x", i) for i in range(3)] + [("y", i) for i in range(10, 16)])
    with pytest.raises(InputError) as ei:
        check_degree_bound(g, 2)
    assert "node y has 6 routes" in ei.value.problem


# ------------------------------------------------------------------ histogram_release
def test_histogram_release_rounds_clips_and_keeps_shape():
    rng = np.random.default_rng(0)
    h = np.array([[3, 0, 1, 2]] * 500)
    noisy, target = histogram_release(h, epsilon=0.5, sensitivity=9.0, rng=rng, bin_clip=5)
    assert noisy.shape == target.shape == h.shape
    assert target.dtype == np.int64 and target.min() >= 0 and target.max() <= 5
    want = np.minimum(np.maximum(0, np.rint(noisy)), 5)
    np.testing.assert_array_equal(target, want)


def test_histogram_release_noise_scale_from_variance():
    n, b = 20000, 9.0 / 0.5
    noisy, _ = histogram_release(np.zeros(n), epsilon=0.5, sensitivity=9.0,
                                 rng=np.random.default_rng(11))
    var = 2 * b * b
    sd_var = math.sqrt((24 * b**4 - var**2) / n)
    assert abs(noisy.var() - var) < 6 * sd_var
    assert abs(noisy.mean()) < 6 * math.sqrt(var / n)


# ------------------------------------------------------------------ guarantee
@pytest.mark.parametrize(("mode", "dmax", "want"), [
    ("node_dp_l1", 4, 0.5), ("thesis", 4, 0.5 * 9 / 4), ("thesis", 1, 0.5 * 3)])
def test_topology_guarantee_pure_postprocessing(mode, dmax, want):
    eps, why = topology_guarantee(0.5, dmax=dmax, sensitivity_mode=mode,
                                  rewire="pure_postprocessing")
    assert eps == pytest.approx(want) and why == ""


def test_topology_guarantee_large_delta_s_never_goes_below_nominal():
    eps, _ = topology_guarantee(0.5, dmax=4, sensitivity_mode="thesis", delta_s=10.0,
                                rewire="pure_postprocessing")
    assert eps == 0.5  # max(1, 9/40) = 1


def test_topology_guarantee_reasons():
    e, why = topology_guarantee(1.0, dmax=4, sensitivity_mode="node_dp_l1", rewire="overlap",
                                dmax_public=False)
    assert math.isinf(e) and why == f"{F3_REASON}; {F4_REASON}"
    e, why = topology_guarantee(1.0, dmax=4, sensitivity_mode="node_dp_l1",
                                rewire="pure_postprocessing", dmax_public=False)
    assert math.isinf(e) and why == F3_REASON


# ------------------------------------------------------------------ EM helpers
@given(hnp.arrays(np.float64, st.integers(2, 6), elements=st.floats(-3, 3)),
       st.floats(0.05, 5.0), st.floats(0.5, 3.0))
@settings(max_examples=30, deadline=None)
def test_em_softmax_is_eq_4_2_and_invertible(u, eps, du):
    p = em_softmax(u, eps, du)
    w = np.exp(eps * (u - u.max()) / (2 * du))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-10)
    assert p.sum() == pytest.approx(1.0)
    # F5: the inversion recovers u up to an additive constant; exactly when Σu = 1
    rec = em_invert(p, eps, du)
    shift = u - rec
    np.testing.assert_allclose(shift, shift[0], atol=1e-6)
    v = u - u.mean() + 1.0 / u.size  # Σv = 1
    np.testing.assert_allclose(em_invert(em_softmax(v, eps, du), eps, du), v, atol=1e-7)


def test_em_invert_bad_epsilon():
    with pytest.raises(InputError):
        em_invert([0.5, 0.5], 0.0)


@given(st.floats(0.05, 0.95))
@settings(max_examples=30, deadline=None)
def test_em_fixed_point_two_entries_is_a_fixed_point(a):
    u = np.array([a, 1 - a])
    if abs(a - 0.5) < 1e-3:
        assert np.isnan(em_fixed_point_epsilon(u)).all()
        return
    eps = em_fixed_point_epsilon(u)
    assert eps[0] == pytest.approx(eps[1], rel=1e-9)
    # Remark 3: at that ε the softmax returns its input
    np.testing.assert_allclose(em_softmax(u, float(eps[0])), u, rtol=1e-8)


def test_em_fixed_point_three_entries_generally_disagree():
    eps = em_fixed_point_epsilon([0.5, 0.3, 0.2])
    assert np.isfinite(eps).all() and not np.allclose(eps, eps[0])
    # an entry equal to the mean has no ε
    assert np.isnan(em_fixed_point_epsilon([0.5, 1 / 3, 1 / 6])[1])


# ------------------------------------------------------------------ rewiring
def local_b():
    return fig41().local("b")


def test_rewire_unknown_mode_names_field():
    with pytest.raises(InputError) as ei:
        rewire_to_histogram(local_b(), [0, 4, 2, 1], owner="b",
                            rng=np.random.default_rng(0), rewire="magic")
    assert ei.value.field == "rewire"


@pytest.mark.parametrize("rewire", ["overlap", "pure_postprocessing"])
@pytest.mark.parametrize("target", [[0, 4, 2, 1], [3, 0, 0, 0], [5, 5, 2, 0], [0, 0, 0, 0]])
def test_rewire_is_connected_and_keeps_every_center(rewire, target):
    loc = local_b()
    g, relabel, nf, nfe, dropped, notes = rewire_to_histogram(
        loc, target, owner="b", rng=np.random.default_rng(4), rewire=rewire)
    centers = {v for v, d in loc.nodes(data=True) if d["kind"] == "center"}
    assert centers <= set(g.nodes)
    assert nx.is_connected(g)
    # non-center ids are opaque: none of the real base ids leaks
    real_bases = set(loc.nodes) - centers
    assert not (set(g.nodes) & real_bases)
    assert set(relabel) <= real_bases and set(relabel.values()) <= set(g.nodes)
    assert all(v.startswith("b") for v in set(g.nodes) - centers)
    if rewire == "pure_postprocessing":
        assert relabel == {} and set(dropped) == real_bases
        for *_, d in g.edges(data=True):
            assert 0.5 * PUBLIC_LENGTH_SCALE - 1 <= d["length"] <= 1.5 * PUBLIC_LENGTH_SCALE + 1


def test_pure_postprocessing_depends_only_on_target_and_centers():
    """The docstring's promise: two maps with the same centers, the same target and the
    same random stream give the same released graph."""
    loc = local_b()
    other = nx.Graph()
    for v, d in loc.nodes(data=True):
        if d["kind"] == "center":
            other.add_node(v, kind="center")
    other.add_node("zz1", kind="base")
    other.add_node("zz2", kind="base")
    cs = sorted(other.nodes)
    other.add_edge("zz1", cs[0], length=3.0)
    other.add_edge("zz1", "zz2", length=4.0)
    other.add_edge("zz2", cs[1], length=5.0)
    target = [2, 3, 1, 0]
    g1 = rewire_to_histogram(loc, target, owner="b", rng=np.random.default_rng(8),
                             rewire="pure_postprocessing")[0]
    g2 = rewire_to_histogram(other, target, owner="b", rng=np.random.default_rng(8),
                             rewire="pure_postprocessing")[0]
    assert list(g1.nodes) == list(g2.nodes)
    assert list(g1.edges(data=True)) == list(g2.edges(data=True))


def test_overlap_with_true_histogram_gives_back_the_true_map():
    loc = local_b()
    g, relabel, nf, nfe, dropped, _ = rewire_to_histogram(
        loc, degree_histogram(loc, 4), owner="b", rng=np.random.default_rng(1),
        rewire="overlap")
    assert nf == 0 and nfe == 0 and dropped == ()
    back = nx.relabel_nodes(g, {o: r for r, o in relabel.items()})
    assert sorted(map(sorted, back.edges())) == sorted(map(sorted, loc.edges()))
    for u, v, d in back.edges(data=True):
        assert d["length"] == loc.edges[u, v]["length"]


# ------------------------------------------------------------------ obfuscate_topology
def test_obfuscate_topology_release_view_hides_annotations():
    o = obfuscate_topology(local_b(), owner="b", epsilon=1.0, dmax=4,
                           rng=np.random.default_rng(2), noise_rng=np.random.default_rng(3))
    t = o.topology()
    assert all(set(d) == {"kind"} for _, d in t.nodes(data=True))
    assert all(d == {} for *_, d in t.edges(data=True))
    assert set(t.edges()) == set(o.graph.edges())
    assert o.scale == pytest.approx(9.0) and o.sensitivity == 9.0
    assert o.histogram == (0, 4, 2, 1)
    assert o.realised == tuple(degree_histogram(o.graph, 4).tolist())
    assert o.histogram_l1_deviation == sum(abs(a - b) for a, b in zip(o.realised, o.target))


def test_obfuscate_topology_refuses_degree_above_cap_before_any_noise():
    class Boom:
        def laplace(self, *a, **k):  # pragma: no cover - must not be reached
            raise AssertionError("noise drawn for a refused map")

    with pytest.raises(InputError) as ei:
        obfuscate_topology(nx.star_graph(5), owner="x", epsilon=1.0, dmax=4,
                           rng=np.random.default_rng(0), noise_rng=Boom())
    assert ei.value.field == "d_max"


def test_obfuscate_topology_refuses_tiny_epsilon():
    with pytest.raises(InputError) as ei:
        obfuscate_topology(local_b(), owner="b", epsilon=1e-4, dmax=4,
                           rng=np.random.default_rng(0), noise_rng=np.random.default_rng(0))
    assert ei.value.field == "epsilon"
