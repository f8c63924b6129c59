"""More unit tests of the interval-MDP export of the robust set (core.mdp.interop.interval):
the hull formula of the module docstring, its errors, and the interval value bounds against
an LP over each row's intervals (HiGHS), against exact evaluation when the intervals are
points, and between the compiled kernel and the numpy fallback; plus the sparse robust bounds
against the dense ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.mdp.sparse as sparse_mod
from core.common.errors import InputError
from core.common.results import Status
from core.mdp import robust_kernels
from core.mdp.interop.interval import interval_value_bounds, robust_intervals
from core.mdp.model import MDP
from core.mdp.robust import alpha_radius, robust_bounds
from core.mdp.synthesis import evaluate_policy, synthesize


def _model(seed: int, S: int, A: int, horizon: int | None, g: float,
           zeros: float = 0.4) -> MDP:
    rng = np.random.default_rng(seed)
    u = rng.uniform(size=(S, A, S))
    u = np.where(rng.uniform(size=u.shape) < zeros, 0.0, u)
    u[np.arange(S), :, np.arange(S)] += 0.2
    P = u / u.sum(axis=2, keepdims=True)
    return MDP(P=P, R=rng.normal(size=(S, A)), R_T=rng.normal(size=S), horizon=horizon,
               discount=g)


def _row_lp(low: np.ndarray, up: np.ndarray, v: np.ndarray, sense: str) -> float:
    from scipy.optimize import linprog

    sign = 1.0 if sense == "min" else -1.0
    res = linprog(sign * v, A_eq=np.ones((1, v.size)), b_eq=[1.0],
                  bounds=list(zip(low, up)), method="highs")
    assert res.status == 0
    return float(sign * res.fun)


# ------------------------------------------------------------------------------ the hull


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 5), k=st.floats(1.0, 1e4),
       beta=st.floats(0.01, 0.5), shift=st.floats(0.0, 0.3))
def test_hull_ends_follow_the_docstring_formula(seed: int, S: int, k: float, beta: float,
                                               shift: float) -> None:
    m = _model(seed, S, 2, None, 0.9)
    lo, hi, alpha, top = robust_intervals(m, k=k, beta=beta, centre_shift=shift)
    assert alpha == pytest.approx(alpha_radius(k, beta))
    assert top == shift
    t = m.transitions
    a2 = alpha + shift
    p = t.data
    want_lo = (1 - beta) * np.maximum(p - a2, 0.0)
    want_hi = np.minimum(beta + (1 - beta) * np.minimum(p + a2, 1.0), 1.0)
    single = np.repeat(np.diff(t.indptr) == 1, np.diff(t.indptr))
    want_lo[single] = 1.0
    want_hi[single] = 1.0
    assert np.abs(lo - want_lo).max() < 1e-12 and np.abs(hi - want_hi).max() < 1e-12
    assert (lo <= p + 1e-15).all() and (p <= hi + 1e-15).all()
    # every row's intervals admit a distribution: Σ l <= 1 <= Σ u
    rows = t.row_of_entry()
    assert (np.bincount(rows, lo) <= 1 + 1e-12).all()
    assert (np.bincount(rows, hi, minlength=t.n_rows)[np.diff(t.indptr) > 0] >= 1 - 1e-12).all()


def test_a_scalar_shift_equals_the_same_shift_per_row() -> None:
    m = _model(3, 4, 3, 2, 1.0)
    a = robust_intervals(m, k=50.0, beta=0.05, centre_shift=0.02)
    b = robust_intervals(m, k=50.0, beta=0.05, centre_shift=np.full((4, 3), 0.02))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    none = robust_intervals(m, k=50.0, beta=0.05)
    assert none[3] == 0.0 and (none[1] <= a[1]).all() and (none[0] >= a[0]).all()


def test_rigorous_radius_gives_wider_intervals() -> None:
    m = _model(4, 5, 2, None, 0.9)
    lo_p, hi_p, a_p, _ = robust_intervals(m, k=100.0, beta=0.05)
    lo_r, hi_r, a_r, _ = robust_intervals(m, k=100.0, beta=0.05, alpha_mode="rigorous")
    assert a_r == pytest.approx(alpha_radius(100.0, 0.05, mode="rigorous", n=5)) and a_r > a_p
    assert (lo_r <= lo_p).all() and (hi_r >= hi_p).all()


@pytest.mark.parametrize("shift", [np.zeros((2, 2)), -0.1, np.full((4, 2), np.nan),
                                   np.full((4, 2), -1e-9)])
def test_bad_centre_shifts_name_their_field(shift: object) -> None:
    m = _model(1, 4, 2, None, 0.9)
    with pytest.raises(InputError) as exc:
        robust_intervals(m, k=10.0, beta=0.05, centre_shift=shift)
    assert exc.value.field == "centre_shift"


def test_bad_beta_and_k_name_their_field() -> None:
    m = _model(1, 3, 2, None, 0.9)
    with pytest.raises(InputError) as exc:
        robust_intervals(m, k=10.0, beta=0.0)
    assert exc.value.field == "beta"
    with pytest.raises(InputError) as exc:
        robust_intervals(m, k=-1.0, beta=0.05)
    assert exc.value.field == "k"


# ------------------------------------------------------------------------ interval values


def test_one_stage_interval_bounds_equal_a_row_lp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(robust_kernels, "AVAILABLE", False)  # (the kernel: compared below)
    m = _model(6, 4, 2, 1, 0.5)
    lo, hi, _, _ = robust_intervals(m, k=30.0, beta=0.1)
    pol = np.array([[1, 0, 1, 0]])
    b = interval_value_bounds(m, lo, hi, pol)
    t = m.transitions
    for s in range(4):
        r = s * 2 + pol[0, s]
        sl = slice(t.indptr[r], t.indptr[r + 1])
        v = m.R_T[t.indices[sl]]
        want_lo = m.R[s, pol[0, s]] + 0.5 * _row_lp(lo[sl], hi[sl], v, "min")
        want_hi = m.R[s, pol[0, s]] + 0.5 * _row_lp(lo[sl], hi[sl], v, "max")
        assert b.v_lower[0, s] == pytest.approx(want_lo, abs=1e-9)
        assert b.v_upper[0, s] == pytest.approx(want_hi, abs=1e-9)
    assert np.array_equal(b.v_lower[1], m.R_T) and b.n_iter == 1


@pytest.mark.parametrize("horizon, g", [(4, 1.0), (None, 0.8)])
def test_point_intervals_give_the_exact_value(horizon: int | None, g: float) -> None:
    m = _model(7, 5, 2, horizon, g)
    pol = synthesize(m).policy
    p = m.transitions.data
    b = interval_value_bounds(m, p, p, pol)
    v = evaluate_policy(m, pol)
    assert np.abs(b.v_lower - v).max() < 1e-8 and np.abs(b.v_upper - v).max() < 1e-8
    assert b.status is Status.SUCCESS


@pytest.mark.parametrize("horizon, g", [(3, 1.0), (None, 0.9)])
def test_kernel_and_numpy_fallback_agree(horizon: int | None, g: float,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    m = _model(8, 6, 3, horizon, g)
    lo, hi, _, _ = robust_intervals(m, k=20.0, beta=0.05)
    pol = synthesize(m).policy
    a = interval_value_bounds(m, lo, hi, pol)
    monkeypatch.setattr(robust_kernels, "AVAILABLE", False)
    b = interval_value_bounds(m, lo, hi, pol)
    assert np.abs(a.v_lower - b.v_lower).max() < 1e-10
    assert np.abs(a.v_upper - b.v_upper).max() < 1e-10
    assert (a.v_lower <= evaluate_policy(m, pol) + 1e-9).all()
    assert (evaluate_policy(m, pol) <= a.v_upper + 1e-9).all()


def test_wider_intervals_give_wider_bounds() -> None:
    m = _model(9, 5, 2, None, 0.85)
    pol = synthesize(m).policy
    narrow = interval_value_bounds(m, *robust_intervals(m, k=1000.0, beta=0.05)[:2], pol)
    wide = interval_value_bounds(m, *robust_intervals(m, k=10.0, beta=0.05)[:2], pol)
    assert (wide.v_lower <= narrow.v_lower + 1e-9).all()
    assert (wide.v_upper >= narrow.v_upper - 1e-9).all()


def test_interval_value_errors_name_their_field() -> None:
    m = _model(1, 3, 2, 2, 1.0)
    p = m.transitions.data
    with pytest.raises(InputError) as exc:
        interval_value_bounds(m, p[:-1], p, np.zeros((2, 3), dtype=int))
    assert exc.value.field == "lower"
    with pytest.raises(InputError) as exc:
        interval_value_bounds(m, p, p, np.zeros(3, dtype=int))
    assert exc.value.field == "policy"
    inf = m.replace(horizon=None, discount=0.9)
    with pytest.raises(InputError) as exc:
        interval_value_bounds(inf, p, p, np.zeros((2, 3), dtype=int))
    assert exc.value.field == "policy"


def test_max_iter_is_reported() -> None:
    m = _model(2, 4, 2, None, 0.99)
    p = m.transitions.data
    b = interval_value_bounds(m, p, p, np.zeros(4, dtype=int), max_iter=3)
    assert b.status is Status.MAX_ITER and b.n_iter == 3


# --------------------------------------------------------------------- sparse robust bounds


@pytest.mark.parametrize("horizon, g", [(3, 1.0), (None, 0.85)])
@pytest.mark.parametrize("kernels", [True, False])
def test_sparse_robust_bounds_equal_the_dense_ones(horizon: int | None, g: float,
                                                   kernels: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    dense = _model(11, 30, 2, horizon, g, zeros=0.9)
    pol = synthesize(dense).policy
    want = robust_bounds(dense, pol, alpha=0.08, beta=0.05)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    monkeypatch.setattr(robust_kernels, "AVAILABLE", kernels and robust_kernels.AVAILABLE)
    sparse = MDP(P=dense.P, R=dense.R, R_T=dense.R_T, horizon=horizon, discount=g)
    assert not sparse.is_dense
    got = robust_bounds(sparse, pol, alpha=0.08, beta=0.05)
    scale = 1 + np.abs(want.v_upper).max()
    assert np.abs(got.v_lower - want.v_lower).max() < 1e-9 * scale
    assert np.abs(got.v_upper - want.v_upper).max() < 1e-9 * scale
