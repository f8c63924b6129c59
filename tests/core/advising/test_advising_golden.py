"""Golden numbers of spec §10.1 (items 1–6) and the Tables 3.1–3.4 worked example (§4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.advising.framework import (
    advice_distribution,
    normalize_alg4,
    policy_step,
    q_update,
    squared_distance,
    teacher_view,
)
from core.advising.model import dataset_diff, neighbour_case, teacher_view_map
from core.advising.presets import worked_example

TOL = 1e-9
A, B, C, D, E, F = range(6)


# ------------------------------------------------------------------ 1. Lemma 3.1
@pytest.mark.parametrize("alpha,q0,r,t,expected", [
    (0.1, 0.0, 2.0, 1, 0.2), (0.1, 0.0, 2.0, 10, 1.3026431198), (0.1, 0.0, 2.0, 50, 1.9896924496),
    (0.5, 0.5, 2.0, 3, 1.8125)])
def test_lemma_3_1_closed_form(alpha, q0, r, t, expected):
    q = q0
    for _ in range(t):
        q = q_update(q, r, alpha=alpha)
    assert q == pytest.approx(expected, abs=TOL)
    assert (q0 - r) * (1 - alpha) ** t + r == pytest.approx(expected, abs=TOL)


@given(st.floats(0.01, 0.99), st.floats(-5, 5), st.floats(-5, 5), st.integers(0, 80))
def test_lemma_3_1_iteration_matches_closed_form(alpha, q0, r, t):
    q = q0
    for _ in range(t):
        q = q_update(q, r, alpha=alpha)
    assert q == pytest.approx((q0 - r) * (1 - alpha) ** t + r, abs=1e-9)


# ------------------------------------------------------------------ 2. Algorithm 4
@pytest.mark.parametrize("p,expected", [
    ([0.7, 0.4, -0.1, 0.0], [0.5703281027, 0.3567760342, 0.0008559201, 0.0720399429]),
    ([0.5, 0.3, 0.2, 0.0], [0.4990019960, 0.2998003992, 0.2001996008, 0.0009980040]),
    ([1.2, -0.05, -0.05, -0.1], [0.9262482168, 0.0364479315, 0.0364479315, 0.0008559201]),
    ([0.6, 0.2, 0.2, 0.2], [0.5, 0.1666666667, 0.1666666667, 0.1666666667]),
    ([0.325, 0.225, 0.225, 0.225], [0.325, 0.225, 0.225, 0.225]),
])
def test_normalization_golden(p, expected):
    assert normalize_alg4(p) == pytest.approx(expected, abs=TOL)


def test_normalization_rho_of_first_row():
    # ρ = (c_o − Δ)/(c_o − d) with d = −0.1: the minimum maps exactly to Δ before the division.
    rho = (0.5 - 0.001) / (0.5 + 0.1)
    assert rho == pytest.approx(0.8316666667, abs=TOL)
    lifted = 0.5 - rho * (0.5 - np.array([0.7, 0.4, -0.1, 0.0]))
    assert lifted.min() == pytest.approx(0.001, abs=1e-15)
    assert (0.5 - 0.001) / (0.5 - 0.0) == pytest.approx(0.998)


@given(st.lists(st.floats(-2, 2, allow_nan=False), min_size=2, max_size=8))
def test_normalization_properties(p):
    out = normalize_alg4(p)
    assert out.sum() == pytest.approx(1.0, abs=1e-12)
    assert (out > 0).all()
    x = np.asarray(p)
    order = np.argsort(x, kind="stable")
    assert (np.diff(out[order]) >= -1e-12).all()  # p_a <= p_b implies out_a <= out_b


@given(st.lists(st.floats(0.001, 1.0), min_size=2, max_size=8))
def test_normalization_identity_on_distributions(w):
    p = np.asarray(w) / np.sum(w)
    if p.min() >= 0.001:
        assert normalize_alg4(p) == pytest.approx(p, abs=1e-12)


# ------------------------------------------------------------------ 3. Algorithm 3
def test_algorithm_3_step_sequence():
    q, pi = np.zeros(4), np.full(4, 0.25)
    q, pi = policy_step(q, pi, 0, 2.0, alpha=0.5, xi=0.1)
    assert q.tolist() == [1, 0, 0, 0]
    assert pi == pytest.approx([0.325, 0.225, 0.225, 0.225], abs=TOL)
    assert float(np.dot(np.full(4, 0.25), q)) == pytest.approx(0.25)
    rbar2 = float(np.dot(pi, [1.5, 0, 0, 0]))
    q, pi = policy_step(q, pi, 0, 2.0, alpha=0.5, xi=0.1)
    assert q.tolist() == [1.5, 0, 0, 0] and rbar2 == pytest.approx(0.4875, abs=TOL)
    assert pi == pytest.approx([0.4463350785] + [0.1845549738] * 3, abs=TOL)
    rbar3 = float(np.dot(pi, q))
    q, pi = policy_step(q, pi, 1, 0.0, alpha=0.5, xi=0.1)
    assert q.tolist() == [1.5, 0, 0, 0]
    assert rbar3 == pytest.approx(0.6695026178, abs=TOL)
    assert pi == pytest.approx([0.6000741840] + [0.1333086053] * 3, abs=TOL)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.0, 2.0])), max_size=60),
       st.floats(0.05, 1.0), st.floats(0.0, 1.0))
def test_algorithm_3_keeps_valid_distributions(steps, alpha, xi):
    q, pi = np.zeros(4), np.full(4, 0.25)
    for a, r in steps:
        q, pi = policy_step(q, pi, a, r, alpha=alpha, xi=xi)
        assert pi.sum() == pytest.approx(1.0, abs=1e-12) and (pi > 0).all()
        assert (q >= 0).all() and (q <= 2.0 + 1e-12).all()


# ------------------------------------------------------------------ 4. distance cases
L = np.array([0.1, -0.2, 0.05, 0.3])
STUDENT = [A, B, C, E]
Q_J = np.array([1.5, 0, 0, 0])


@pytest.mark.parametrize("teacher,q_teacher,case,expected,advice", [
    ([A, B, C, E], [2, 0, 0, 0], 1, 0.25, False),          # identical sets: no noise
    ([A, B, C, D, E], [2, 0, 0, 0.3, 0], 2, 0.4925, False),  # teacher has one more
    ([A, B, C], [2, 0, 0], 3, 0.4925, False),                # missing E reads Q0 = 0
    ([A, B, C, D], [2, 0, 0, 0.4], 4, 0.8925, True),         # D read in E's place
])
def test_distance_cases(teacher, q_teacher, case, expected, advice):
    assert neighbour_case(teacher, STUDENT) == case
    view, _ = teacher_view(q_teacher, np.full(len(teacher), 1 / len(teacher)), teacher,
                           STUDENT)
    noisy = view if case == 1 else view + L
    d2 = squared_distance(noisy, Q_J)
    assert d2 == pytest.approx(expected, abs=TOL)
    assert (d2 > 0.7) is advice


def test_case_4_advice_distribution():
    view, _ = teacher_view([2, 0, 0, 0.4], [0.7, 0.1, 0.1, 0.1], [A, B, C, D], STUDENT)
    q = view + L
    p = np.array([0.7, 0.1, 0.1, 0.1])
    assert float(p @ q) == pytest.approx(1.525, abs=TOL)
    assert advice_distribution(p, q, xi=0.1) == pytest.approx(
        [0.8752703943, 0.0012082010, 0.0275353755, 0.0959860292], abs=TOL)
    assert advice_distribution(p, q, xi=0.1, subtract_rbar=False) == pytest.approx(
        [0.7193675889, 0.0632411067, 0.0830039526, 0.1343873518], abs=TOL)


def test_advice_distribution_renormalises_a_partial_view():
    # Case 2: the teacher's extra action is not copied, so p̂ sums to < 1 and is rescaled.
    _, p = teacher_view([2, 0, 0, 0.3, 0], [0.6, 0.1, 0.1, 0.1, 0.1], [A, B, C, D, E], STUDENT)
    assert p.sum() == pytest.approx(0.9)
    out = advice_distribution(p, [2, 0, 0, 0], xi=0.0)
    assert out == pytest.approx(p / p.sum())
    assert advice_distribution([0, 0, 0, 0], [0, 0, 0, 0]) == pytest.approx([0.25] * 4)


# ------------------------------------------------------------------ 5. neighbour relation
def test_neighbour_relation():
    assert neighbour_case([A, B, C, D], [A, B, C, E]) == 4
    assert neighbour_case([A, B, C, D], [A, B, C, D, E]) == 3  # teacher has one fewer
    assert neighbour_case([A, B, C, D, E], [A, B, C, D]) == 2  # teacher has one more
    assert neighbour_case([A, B, C, D], [A, B, E, F]) == 0
    # Fig. 3.2: a = {A,B,C,D}, c = {B,C,D,E}: DP advising yes (case 4), traditional no.
    assert neighbour_case([A, B, C, D], [B, C, D, E]) == 4
    assert teacher_view_map([A, B, C, D], [B, C, D, E]) == [1, 2, 3, 0]


# ------------------------------------------------------------------ 6. Tables 3.1–3.4
def test_tables_3_1_to_3_4_worked_example():
    w = worked_example()
    assert w.teacher_actions == ("A", "B", "C", "D") and w.student_actions == ("A", "B", "C", "E")
    # Converged tables: |Q − r| <= 2 * 0.5**60 (here exactly r in floating point).
    for q, acts in ((w.q_teacher, w.teacher_actions), (w.q_student, w.student_actions)):
        for v, a in zip(q, acts):
            assert abs(v - w.rewards[a]) <= 2 * 0.5 ** 60
    assert w.q_teacher == (2.0, 0.0, 0.0, 0.0) and w.q_student == (2.0, 0.0, 0.0, 0.0)
    # Exactly one differing record: D (teacher) vs E (student).
    assert (w.teacher_only, w.student_only) == (("D",), ("E",))
    assert dataset_diff(w.teacher_actions, w.student_actions) == (["D"], ["E"])
    assert w.case == 4 and "swapped" in w.case_name
    # TEACHER_VIEW maps D onto E's position; no knowledge gap, so no advice.
    assert w.q_view == (2.0, 0.0, 0.0, 0.0)
    assert w.distance == 0.0 and w.advice is False
    # The tables: 3.1/3.2 are Q-values, 3.3/3.4 their converged values r(s, a).
    assert [row[0] for row in w.tables["3.1"]] == ["A", "B", "C", "D"]
    assert [row[0] for row in w.tables["3.4"]] == ["A", "B", "C", "E"]
    assert w.tables["3.3"][0] == ("A", "r(s, A)", 2.0)
    # Partial convergence after t forced selections: 2(1 − (1 − α)^t).
    for t in range(1, 12):
        q = 0.0
        for _ in range(t):
            q = q_update(q, 2.0, alpha=0.5)
        assert w.partial(t) == pytest.approx(q, abs=1e-15)
