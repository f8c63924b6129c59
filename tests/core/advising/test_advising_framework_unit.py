"""Unit tests of the pure building blocks of core.advising.framework and core.advising.model.

Each check is against an independent computation: Lemma 3.1's closed form for the
Q-update, a hand-written Algorithm 4, numpy's own ``Generator.choice`` for the sampling
helpers, and brute-force loops over the neighbour cases for ``max_releases`` and
``noised_pairs``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.advising.framework import (
    advice_distribution,
    advice_query,
    max_releases,
    noised_pairs,
    normalize_alg4,
    policy_step,
    q_update,
    sample_index,
    sample_rows,
    squared_distance,
    teacher_view,
)
from core.advising.model import (
    AdvisingParams,
    dataset_diff,
    neighbour_case,
    teacher_view_map,
)
from core.advising.presets import preset

_finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def alg4_ref(x, center=0.5, floor=0.001):
    """Algorithm 4 written out for one vector: lift the minimum to Δ, then normalise."""
    x = [float(v) for v in x]
    d = min(x)
    if d < floor:
        rho = (center - floor) / (center - d)
        x = [center - rho * (center - v) for v in x]
    s = sum(x)
    return [v / s for v in x]


# ------------------------------------------------------------------ normalize_alg4
@given(hnp.arrays(np.float64, st.integers(2, 6), elements=_finite))
@settings(max_examples=30, deadline=None)
def test_normalize_alg4_matches_reference_and_is_a_distribution(x):
    out = normalize_alg4(x)
    ref = alg4_ref(x)
    if not np.isfinite(ref).all() or sum(alg4_ref(x)) == 0:
        return
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-12)
    if x.min() < 0.001:
        assert out.sum() == pytest.approx(1.0)
        assert (out > 0).all()
        # the affine lift keeps the order of the entries
        assert (np.diff(out[np.argsort(x, kind="stable")]) >= -1e-15).all()


def test_normalize_alg4_lifts_minimum_to_floor_before_normalising():
    x = np.array([0.7, 0.4, -0.1, 0.0])
    rho = (0.5 - 0.01) / (0.5 - (-0.1))  # (c_o - Δ) / (c_o - min)
    lifted = 0.5 - rho * (0.5 - x)
    assert lifted.min() == pytest.approx(0.01)  # the minimum is lifted to Δ exactly
    out = normalize_alg4(x, floor=0.01)
    np.testing.assert_allclose(out, lifted / lifted.sum(), rtol=1e-12)
    assert out.argmin() == 2


def test_normalize_alg4_leaves_rows_above_floor_to_plain_normalisation():
    x = np.array([[0.2, 0.3, 0.5], [1.0, 2.0, 1.0]])
    np.testing.assert_allclose(normalize_alg4(x), x / x.sum(axis=1, keepdims=True))


def test_normalize_alg4_rows_equal_vectors():
    rows = np.array([[0.6, 0.2, 0.2, 0.2], [0.7, 0.4, -0.1, 0.0], [1.0, 1.0, 1.0, 1.0]])
    out = normalize_alg4(rows)
    for r, o in zip(rows, out):
        np.testing.assert_allclose(o, normalize_alg4(r), rtol=1e-15)
    np.testing.assert_allclose(out[2], [0.25] * 4)


def test_normalize_alg4_does_not_modify_input():
    x = np.array([0.5, -0.5])
    normalize_alg4(x)
    assert x.tolist() == [0.5, -0.5]


# ------------------------------------------------------------------ q_update / policy_step
@pytest.mark.parametrize(("alpha", "t", "r"), [(0.5, 1, 2.0), (0.5, 60, 2.0), (0.1, 10, 2.0),
                                               (0.3, 7, -1.5), (1.0, 3, 4.0)])
def test_q_update_lemma_3_1_closed_form(alpha, t, r):
    q = 0.0
    for _ in range(t):
        q = q_update(q, r, alpha=alpha)
    assert q == pytest.approx(r * (1 - (1 - alpha) ** t), rel=1e-12, abs=1e-15)


def test_q_update_with_discount():
    assert q_update(1.0, 2.0, alpha=0.5, gamma=0.9, next_max=3.0) == pytest.approx(
        0.5 * 1.0 + 0.5 * (2.0 + 0.9 * 3.0))
    # gamma = 0 ignores next_max entirely
    assert q_update(1.0, 2.0, alpha=0.5, next_max=1e9) == 1.5
    assert q_update(7.0, 0.0, alpha=0.0) == 7.0


def test_policy_step_against_hand_computation_and_copies():
    q = [0.0, 1.0, 0.0]
    pi = [0.2, 0.5, 0.3]
    qn, pn = policy_step(q, pi, 2, 3.0, alpha=0.5, xi=0.1)
    assert q == [0.0, 1.0, 0.0] and pi == [0.2, 0.5, 0.3]  # inputs untouched
    assert qn.tolist() == [0.0, 1.0, 1.5]
    rbar = 0.2 * 0 + 0.5 * 1.0 + 0.3 * 1.5
    want = alg4_ref([p + 0.1 * (v - rbar) for p, v in zip(pi, [0.0, 1.0, 1.5])])
    np.testing.assert_allclose(pn, want, rtol=1e-12)
    assert pn.sum() == pytest.approx(1.0)


def test_policy_step_moves_mass_toward_rewarded_action():
    pi = np.full(4, 0.25)
    q = np.zeros(4)
    for _ in range(40):
        q, pi = policy_step(q, pi, 1, 2.0)
    assert pi.argmax() == 1 and pi[1] > 0.9


# ------------------------------------------------------------------ views, distance, datasets
def view_map_ref(teacher, student):
    """Brute force: the same server, else (only when the teacher has exactly one extra)
    that extra; else None."""
    extra = [a for a in teacher if a not in student]
    out = []
    for a in student:
        if a in teacher:
            out.append(list(teacher).index(a))
        elif len(extra) == 1:
            out.append(list(teacher).index(extra[0]))
        else:
            out.append(None)
    return out


@given(st.lists(st.integers(0, 6), min_size=1, max_size=5, unique=True),
       st.lists(st.integers(0, 6), min_size=1, max_size=5, unique=True))
@settings(max_examples=30, deadline=None)
def test_teacher_view_map_and_case_against_brute_force(t, s):
    assert teacher_view_map(t, s) == view_map_ref(t, s)
    extra, missing = len(set(t) - set(s)), len(set(s) - set(t))
    want = {(0, 0): 1, (1, 0): 2, (0, 1): 3, (1, 1): 4}.get((extra, missing), 0)
    assert neighbour_case(t, s) == want
    only_t, only_s = dataset_diff(t, s)
    assert set(only_t) == set(t) - set(s) and set(only_s) == set(s) - set(t)


def test_teacher_view_reads_q0_and_zero_policy_where_teacher_lacks_action():
    q, p = teacher_view([2.0, 0.5], [0.6, 0.4], [0, 1], [1, 0, 5], q0=-3.0)
    assert q.tolist() == [0.5, 2.0, -3.0] and p.tolist() == [0.4, 0.6, 0.0]


def test_teacher_view_case_2_drops_the_teachers_extra():
    q, p = teacher_view([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4], [0, 1, 2, 3], [2, 0, 1])
    assert q.tolist() == [3.0, 1.0, 2.0] and p.tolist() == [0.3, 0.1, 0.2]


@given(hnp.arrays(np.float64, 4, elements=_finite), hnp.arrays(np.float64, 4, elements=_finite))
@settings(max_examples=30, deadline=None)
def test_squared_distance_is_the_sum_of_squares(x, y):
    d = squared_distance(x, y)
    assert d == pytest.approx(sum((a - b) ** 2 for a, b in zip(x, y)), rel=1e-12, abs=1e-12)
    assert d == squared_distance(y, x) and d >= 0
    assert squared_distance(x, x) == 0.0


def test_squared_distance_is_not_square_rooted():
    assert squared_distance([3.0, 0.0], [0.0, 4.0]) == 25.0


# ------------------------------------------------------------------ advice_distribution
def test_advice_distribution_uses_uniform_prior_when_prior_sums_to_zero():
    q = [1.0, 0.0, 0.0]
    a = advice_distribution([0.0, 0.0, 0.0], q)
    b = advice_distribution([1 / 3] * 3, q)
    np.testing.assert_allclose(a, b, rtol=1e-15)


def test_advice_distribution_without_step_is_the_normalised_prior():
    a = advice_distribution([2.0, 1.0, 1.0], [9.0, -4.0, 0.0], xi=0.0)
    np.testing.assert_allclose(a, [0.5, 0.25, 0.25], rtol=1e-12)


def test_advice_distribution_formula_by_hand():
    p, q = np.array([0.7, 0.1, 0.1, 0.1]), np.array([2.1, -0.2, 0.05, 0.7])
    rt = float(p @ q)
    np.testing.assert_allclose(advice_distribution(p, q, xi=0.1),
                               alg4_ref(p + 0.1 * (q - rt)), rtol=1e-12)
    np.testing.assert_allclose(advice_distribution(p, q, xi=0.1, subtract_rbar=False),
                               alg4_ref(p + 0.1 * q), rtol=1e-12)


def test_advice_distribution_rows_broadcast():
    p = np.array([[0.7, 0.1, 0.1, 0.1], [0.0, 0.0, 0.0, 0.0]])
    q = np.array([2.1, -0.2, 0.05, 0.7])
    out = advice_distribution(p, q)
    assert out.shape == (2, 4)
    np.testing.assert_allclose(out[0], advice_distribution(p[0], q))
    np.testing.assert_allclose(out[1], advice_distribution([0.25] * 4, q))


# ------------------------------------------------------------------ sampling
@given(hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(0, 1)),
       st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_sample_index_is_what_generator_choice_returns(w, seed):
    if w.sum() <= 0:
        return
    p = w / w.sum()
    want = int(np.random.default_rng(seed).choice(len(p), p=p))
    u = float(np.random.default_rng(seed).random())
    assert sample_index(p, u) == want
    assert int(sample_rows(p[None, :], np.array([u]))[0]) == want


def test_sample_never_picks_zero_probability_entries_at_the_edges():
    p = [0.0, 0.5, 0.0, 0.5, 0.0]
    assert sample_index(p, 0.0) == 1
    assert sample_index(p, 0.5) == 3
    assert sample_index(p, np.nextafter(1.0, 0.0)) == 3
    assert sample_rows(np.array([p, p]), np.array([0.0, 0.5])).tolist() == [1, 3]


def test_sample_rows_unnormalised_rows():
    p = np.array([[1.0, 3.0], [3.0, 1.0]])
    assert sample_rows(p, np.array([0.3, 0.3])).tolist() == [1, 0]


# ------------------------------------------------------------------ max_releases / noised_pairs
def brute_students(sets, strategy):
    n = len(sets)
    out = []
    for i in range(n):
        k = 0
        for j in range(n):
            if i == j:
                continue
            c = neighbour_case(sets[i], sets[j])
            if (strategy == "dp" and c > 0) or (strategy == "traditional" and c == 1):
                k += 1
        out.append(k)
    return out


@pytest.mark.parametrize("layout", ["mixed", "nested", "sunflower", "one-different", "same"])
@pytest.mark.parametrize("strategy", ["dp", "traditional", "none"])
def test_max_releases_is_epochs_times_brute_force_students(layout, strategy):
    s = preset("exp2", layout=layout, strategy=strategy, epochs=7)
    want = [7 * k for k in brute_students(s.action_sets, strategy)]
    assert max_releases(s) == want


def test_max_releases_cap_is_floor_of_budget_over_true_epsilon():
    s = preset("mixed", epochs=10, epsilon=0.3, max_epsilon_per_teacher=2.0)
    per = s.true_epsilon_per_release
    cap = int(np.floor(2.0 * (1 + 1e-12) / per))
    assert max_releases(s) == [min(90, cap)] * 10
    # exactly divisible budget: the tolerance keeps the last release
    s = preset("mixed", epochs=10, epsilon=0.5, max_epsilon_per_teacher=None)
    exact = s.true_epsilon_per_release * 3
    s = preset("mixed", epochs=10, epsilon=0.5, max_epsilon_per_teacher=exact)
    assert max_releases(s) == [3] * 10


@pytest.mark.parametrize("layout", ["mixed", "nested", "fig32"])
@pytest.mark.parametrize("variant", ["sound", "thesis"])
def test_noised_pairs_against_brute_force(layout, variant):
    s = preset(layout, variant=variant)
    got = noised_pairs(s)
    sets = s.action_sets
    n = len(sets)
    for j, i in itertools.product(range(n), range(n)):  # [student, teacher]
        c = 0 if i == j else neighbour_case(sets[i], sets[j])
        want = c > 0 and (c != 1 or variant == "sound")
        assert bool(got[j, i]) == want, (j, i, c)


def test_noised_pairs_empty_without_dp():
    for strategy in ("none", "traditional"):
        assert not noised_pairs(preset("mixed", strategy=strategy)).any()


# ------------------------------------------------------------------ advice_query
def _query(q_views, q_student, *, threshold=0.7, noised=None, prior="uniform", seed=1,
           p_views=None, strategy="dp", noise_zero=False, epsilon=1.0):
    prm = AdvisingParams.for_variant("sound", epsilon=epsilon, distance_threshold=threshold,
                                     advice_prior=prior, strategy=strategy,
                                     noise_zero=noise_zero)
    q_views = np.asarray(q_views, dtype=float)
    B, c, k = q_views.shape
    noised = np.zeros(c, bool) if noised is None else np.asarray(noised)
    return advice_query(q_views, p_views, np.asarray(q_student, float),
                        np.full((B, k), 1.0 / k), noised, params=prm, sensitivity=2.0,
                        noise_rng=np.random.default_rng(seed), rng=np.random.default_rng(seed))


def test_advice_query_picks_farthest_candidate_above_threshold():
    views = [[[1.0, 0, 0], [3.0, 0, 0], [0, 2.0, 0]]]
    d = _query(views, [[0.0, 0.0, 0.0]])
    assert d.teacher.tolist() == [1] and d.distance.tolist() == [9.0]
    assert d.advised.tolist() == [True] and 0 <= d.action[0] < 3
    np.testing.assert_allclose(d.pi_advice[0], advice_distribution([1 / 3] * 3, [3.0, 0, 0]))


def test_advice_query_threshold_is_strict_and_ties_go_to_first():
    views = [[[1.0, 0.0], [0.0, 1.0]]]
    d = _query(views, [[0.0, 0.0]], threshold=1.0)
    assert d.teacher.tolist() == [-1] and d.action.tolist() == [-1]
    assert np.isnan(d.pi_advice).all()
    d = _query(views, [[0.0, 0.0]], threshold=0.999)
    assert d.teacher.tolist() == [0]


def test_advice_query_noise_zero_draws_but_does_not_apply_noise():
    views = [[[2.0, 0.0, 0.0, 0.0]]]
    d = _query(views, [[0.0] * 4], noised=[True], noise_zero=True)
    assert d.q_hat[0, 0].tolist() == [2.0, 0.0, 0.0, 0.0]
    d2 = _query(views, [[0.0] * 4], noised=[True])
    assert not np.array_equal(d2.q_hat, d.q_hat)  # Laplace(2/1) noise moved the view


def test_advice_query_noise_scale_matches_laplace_variance():
    """B = 4000 rows of one noised candidate: the sample variance of the released
    Q-values must be 2·b² with b = S/ε = 2 (tolerance from the variance of the sample
    variance of a Laplace, Var(s²) ≈ (μ4 − σ⁴)/n with μ4 = 24 b⁴)."""
    B, b = 4000, 2.0
    views = np.zeros((B, 1, 2))
    d = _query(views, np.zeros((B, 2)), noised=[True], threshold=1e9, seed=5)
    x = d.q_hat[:, 0, :].ravel()
    n = x.size
    var = 2 * b * b
    sd_var = np.sqrt((24 * b**4 - var**2) / n)
    assert abs(x.var() - var) < 6 * sd_var
    assert abs(x.mean()) < 6 * np.sqrt(var / n)
    assert (d.teacher == -1).all()  # threshold 1e9: nobody advises


def test_advice_query_teacher_prior_under_traditional():
    views = [[[3.0, 0.0]]]
    pv = np.array([[[0.9, 0.1]]])
    d = _query(views, [[0.0, 0.0]], p_views=pv, strategy="traditional")
    np.testing.assert_allclose(d.pi_advice[0], advice_distribution([0.9, 0.1], [3.0, 0.0]))


def test_advice_query_student_prior():
    views = [[[3.0, 0.0]]]
    d = _query(views, [[0.0, 0.0]], prior="student")
    np.testing.assert_allclose(d.pi_advice[0], advice_distribution([0.5, 0.5], [3.0, 0.0]))


def test_advice_query_rows_are_independent():
    views = np.array([[[3.0, 0.0]], [[0.1, 0.0]]])
    d = _query(views, np.zeros((2, 2)))
    assert d.teacher.tolist() == [0, -1]
    assert d.distance.tolist() == pytest.approx([9.0, 0.01])
    assert not np.isnan(d.pi_advice[0]).any() and np.isnan(d.pi_advice[1]).all()
