"""Unit tests of core.sharing.audit_target (the shared-policy mechanism as an audit target) and
core.sharing.mechanism.neighbour_pairs: parameter checks, the candidate neighbours' geometry,
the sampler's output and the pair's ε lower bound's symmetry.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution  # noqa: F401  (see below)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import digamma

from core.common.errors import InputError
from core.sharing import audit_target as at
from core.sharing.mechanism import neighbour_pairs, vertex

# pair_epsilon builds dp_accounting PLDs: importing it at collection keeps its ~1.4 s import
# out of any one test's duration


@settings(max_examples=30)
@given(st.integers(min_value=2, max_value=7).flatmap(
    lambda m: st.tuples(st.just(m), st.floats(min_value=1e-3, max_value=1.0 / m),
                        st.floats(min_value=1e-4, max_value=0.5))))
def test_neighbour_pairs_are_lb_apart_in_l2_and_stay_in_the_domain(args):
    m, eta, lb = args
    for p, q in neighbour_pairs(m, eta, lb):
        assert np.linalg.norm(p - q) == pytest.approx(lb, rel=1e-9)
        assert p.sum() == pytest.approx(1.0) and q.sum() == pytest.approx(1.0)
        assert p.min() >= eta - 1e-12 and q.min() >= eta - 1e-15
        # a move along e_i - e_j: exactly two entries change, by +-lb/sqrt(2)
        diff = q - p
        changed = np.flatnonzero(np.abs(diff) > 1e-15)
        assert changed.size == 2
        np.testing.assert_allclose(sorted(diff[changed]), [-lb / math.sqrt(2), lb / math.sqrt(2)])


def test_neighbour_pairs_start_from_the_vertex_and_the_uniform_point():
    pairs = neighbour_pairs(3, 0.1, 0.01)
    starts = {tuple(np.round(p, 12)) for p, _ in pairs}
    assert tuple(np.round(vertex(3, 0.1), 12)) in starts
    assert tuple(np.round(np.full(3, 1 / 3), 12)) in starts


def test_neighbour_pairs_at_the_uniform_eta_have_nowhere_to_move():
    # eta = 1/m: the restricted simplex is a single point
    assert neighbour_pairs(4, 0.25, 0.01) == []


def test_neighbour_pairs_with_zero_radius_are_empty_and_a_bad_radius_is_refused():
    assert neighbour_pairs(3, 0.1, 0.0) == []
    with pytest.raises(InputError) as err:
        neighbour_pairs(3, 0.1, -0.1)
    assert err.value.field == "lb"


# --- the variant -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, field", [
    ({"m": 1}, "m"), ({"eta": 0.6}, "eta"), ({"k": 0.0}, "k"), ({"lb": -1.0}, "lb"),
    ({"bound": "loose"}, "bound"), ({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta")])
def test_sharing_variant_refusals_name_the_field(kwargs, field):
    base = {"k": 5.0, "m": 3, "eta": 0.1, "lb": 0.01, "delta": 1e-5}
    with pytest.raises(InputError) as err:
        at.SharingVariant(**{**base, **kwargs})
    assert err.value.field == field


def test_variant_from_reads_the_keywords_and_parameters_reports_them():
    none, v = at.variant_from({"k": 5, "m": 3.0, "eta": 0.1, "lb": 0.02, "delta": 1e-5,
                               "bound": "paper"})
    assert none is None and v.m == 3 and isinstance(v.m, int) and v.bound == "paper"
    assert at.parameters(None, v) == {"k": 5.0, "m": 3, "eta": 0.1, "lb": 0.02,
                                      "delta_target": 1e-5, "bound": "paper"}
    assert at.exact_distribution(None, None, v) is None
    assert at.exact_roc(None, None, None, v) is None


def test_rows_split_a_move_into_gains_and_losses():
    bases = np.array([0.1, 0.1, 0.8])
    moves = np.array([0.05, -0.05, 0.0])
    p, q = at._rows(bases, moves, 0.1)
    np.testing.assert_allclose(p, [0.15, 0.1, 0.8])
    np.testing.assert_allclose(q, [0.1, 0.15, 0.8])


def test_sample_outputs_are_log_dirichlet_draws():
    v = at.SharingVariant(k=20.0, m=3, eta=0.1, lb=0.01, delta=1e-5)
    pi = np.array([0.2, 0.3, 0.5])
    x = at.sample_outputs(pi, 20_000, np.random.default_rng(0), None, v)
    assert x.shape == (20_000, 3) and (x < 0).all()
    np.testing.assert_allclose(np.exp(x).sum(axis=1), 1.0)
    # E[ln x_i] = psi(k pi_i) - psi(k) for x ~ Dir(k pi)
    want = digamma(20.0 * pi) - digamma(20.0)
    sd = x.std(axis=0) / math.sqrt(20_000)
    assert (np.abs(x.mean(axis=0) - want) < 5 * sd).all()


def test_pair_epsilon_is_zero_for_identical_policies_and_symmetric():
    a = np.array([0.2, 0.3, 0.5])
    assert at.pair_epsilon(a, a, 10.0, 1e-5) == 0.0
    b = np.array([0.25, 0.25, 0.5])
    e_ab = at.pair_epsilon(a, b, 10.0, 1e-5)
    assert e_ab > 0
    assert at.pair_epsilon(b, a, 10.0, 1e-5) == e_ab
