"""Sparse MDPs: CSR storage, files, privatisation, synthesis and bounds against the dense
paths, the exact per-row bounds against the LP, and the memory of a 10⁶-state model."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

import core.mdp.sparse as sparse_mod
from core.common.errors import InputError
from core.mdp import robust_kernels
from core.mdp.examples import example2, four_startups, sparse_random_mdp
from core.mdp.files import load_mdp, save_mdp
from core.mdp.model import MDP, check_transitions
from core.mdp.names import ActionNames, Names
from core.mdp.privatize import mechanism_rows, privatize_mdp
from core.mdp.robust import centre_shift, cost_of_privacy, inner_lp, robust_bounds
from core.mdp.robust_sparse import csr_extremes, interval_extremes, policy_extremes
from core.mdp.sparse import Transitions, segment_sum
from core.mdp.synthesis import evaluate_policy, synthesize
from core.privacy.dirichlet_sparse import dirichlet_csr


def _random_model(seed: int, *, sparse: bool) -> MDP:
    rng = np.random.default_rng(seed)
    S, A = int(rng.integers(2, 30)), int(rng.integers(1, 4))
    P = rng.uniform(size=(S, A, S))
    P[P < rng.uniform(0.0, 0.9)] = 0.0
    P[:, :, 0] += 1e-3
    P /= P.sum(axis=2, keepdims=True)
    mask = rng.uniform(size=(S, A)) < 0.8
    mask[:, 0] = True
    P = np.where(mask[:, :, None], P, 0.0)
    horizon = None if seed % 3 == 0 else int(rng.integers(1, 6))
    kw = dict(R=rng.uniform(size=(S, A)), R_T=rng.uniform(size=S), mask=mask,
              horizon=horizon, discount=0.9 if horizon is None else 1.0)
    return MDP(transitions=Transitions.from_dense(P), **kw) if sparse else MDP(P=P, **kw)


@pytest.fixture
def all_sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model takes the sparse code paths, whatever its size."""
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_FULL", 0)


def test_csr_matches_dense_and_is_read_only() -> None:
    m = example2()
    t = m.transitions
    assert m.is_dense and t.nnz == np.count_nonzero(m.P)
    assert np.array_equal(t.to_dense(), m.P)
    assert np.allclose(t.row_sums(), m.P.sum(axis=2), rtol=0, atol=1e-15)
    with pytest.raises(ValueError):
        t.data[0] = 0.5
    v = np.arange(m.n_states, dtype=float)
    assert np.allclose(t.dot(v), m.P @ v, rtol=0, atol=1e-12)


def test_segment_sum_handles_empty_rows_at_both_ends() -> None:
    ptr = np.array([0, 0, 2, 2, 3, 3, 3])
    out = segment_sum(np.array([1.0, 2.0, 4.0]), ptr)
    assert out.tolist() == [0.0, 3.0, 0.0, 4.0, 0.0, 0.0]


@pytest.mark.parametrize("seed", range(24))
def test_sparse_paths_equal_the_dense_ones(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    dense = _random_model(seed, sparse=False)
    assert dense.is_dense
    plan = synthesize(dense)
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0, 0.6) if seed % 2 else rng.uniform(0, 0.6, size=dense.mask.shape)
    beta = float(rng.uniform(0.01, 0.5))
    ref = robust_bounds(dense, plan.policy, alpha=alpha, beta=beta)
    ev = evaluate_policy(dense, plan.policy)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_FULL", 0)
    sp = _random_model(seed, sparse=True)
    assert not sp.is_dense and sp.transitions.equal(dense.transitions)
    sp_plan = synthesize(sp)
    assert np.array_equal(sp_plan.policy, plan.policy)
    assert np.abs(sp_plan.values - plan.values).max() <= 1e-9
    assert np.abs(evaluate_policy(sp, plan.policy) - ev).max() <= 1e-9
    got = robust_bounds(sp, plan.policy, alpha=alpha, beta=beta)
    assert np.abs(got.v_lower - ref.v_lower).max() <= 1e-9
    assert np.abs(got.v_upper - ref.v_upper).max() <= 1e-9


@pytest.mark.parametrize("seed", range(30))
def test_per_row_extremes_equal_the_papers_lp(seed: int) -> None:
    """The O(entries) knapsack (numpy and compiled) against the LP (P) over all S states."""
    rng = np.random.default_rng(100 + seed)
    S = int(rng.integers(2, 25))
    rows = []
    for _ in range(int(rng.integers(1, 6))):
        r = rng.uniform(size=S) * (rng.uniform(size=S) < rng.uniform(0.1, 1.0))
        r[rng.integers(S)] += 0.1
        rows.append(r / r.sum())
    from scipy.sparse import csr_array

    csr = csr_array(np.array(rows))
    v_lo, v_hi = rng.normal(size=S), rng.normal(size=S)
    alpha, beta = float(rng.uniform(0.0, 0.8)), float(rng.uniform(0.01, 0.6))
    lo, hi = csr_extremes(csr.indptr.astype(np.int64), csr.indices, csr.data, v_lo, v_hi,
                          alpha=alpha, beta=beta)
    for i, row in enumerate(rows):
        assert lo[i] == pytest.approx(inner_lp(row, v_lo, alpha=alpha, beta=beta), abs=1e-8)
        assert hi[i] == pytest.approx(inner_lp(row, v_hi, alpha=alpha, beta=beta,
                                               sense="max"), abs=1e-8)


@pytest.mark.parametrize("seed", range(12))
def test_compiled_and_numpy_bounds_agree(seed: int) -> None:
    m = sparse_random_mdp(400, 3, int(1 + seed % 7), 3, seed=seed)
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, size=400)
    v_lo, v_hi = rng.normal(size=400), rng.normal(size=400)
    alpha = float(rng.uniform(0.001, 0.5)) if seed % 2 else rng.uniform(0.001, 0.5, size=400)
    t = m.transitions
    ref = policy_extremes(t.indptr, t.indices, t.data, 3, a, v_lo, v_hi, alpha=alpha,
                          beta=0.05)
    if not robust_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    from core.mdp.robust_sparse import _width

    width = _width(float(np.min(alpha)), 400)
    got = robust_kernels.phat_extremes(t.indptr, t.indices, t.data, 3, a, v_lo, v_hi,
                                       alpha=alpha, beta=0.05, width=width)
    assert np.abs(got[0] - ref[0]).max() <= 1e-10 and np.abs(got[1] - ref[1]).max() <= 1e-10


@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_reads_the_flags_of_every_state_that_has_them(seed: int,
                                                                 monkeypatch) -> None:  # noqa: ANN001
    """The kernel skips a state's flags when its values lie beyond the first positions'
    (a faster test on values it has read): with ties (few distinct values) and values far
    apart, its results are bit for bit those of reading every state's flags."""
    if not robust_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    S = 500
    m = sparse_random_mdp(S, 3, 6, 3, seed=seed)
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, size=S)
    p_lo, p_hi = rng.integers(0, 2 + seed, size=(2, S)).astype(float)  # ties: 2 + seed values
    v_lo, v_hi = (p_lo * 0.5, p_hi) if seed % 2 else (rng.normal(size=S), -p_hi)
    t = m.transitions
    args = (t.indptr, t.indices, t.data, 3, a, v_lo, v_hi)
    loops = robust_kernels._loops
    for compile_from in (0, 2**62):  # the compiled loops, then the plain ones
        monkeypatch.setattr(robust_kernels, "COMPILE_FROM", compile_from)
        monkeypatch.setattr(robust_kernels, "_loops", loops)
        got = robust_kernels.phat_extremes(*args, alpha=0.07, beta=0.05, width=17)
        kernel = loops(t.data.size)["_phat"]

        def every_flag(*xs, kernel=kernel):  # noqa: ANN001, ANN002, ANN202
            xs = list(xs)
            xs[-4] = xs[-3] = np.inf  # t_lo, t_hi: every state's flags are read
            return kernel(*xs)

        monkeypatch.setattr(robust_kernels, "_loops",
                            lambda n, k=every_flag: {**loops(n), "_phat": k})
        want = robust_kernels.phat_extremes(*args, alpha=0.07, beta=0.05, width=17)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("seed", range(20))
def test_interval_extremes_equal_the_lp(seed: int) -> None:
    from scipy.optimize import linprog

    rng = np.random.default_rng(7 + seed)
    S = int(rng.integers(2, 12))
    n = int(rng.integers(1, S + 1))
    cols = np.sort(rng.choice(S, size=n, replace=False))
    centre = rng.uniform(size=n)
    centre /= centre.sum()
    lower = np.maximum(centre - rng.uniform(0, 0.3, size=n), 0)
    upper = np.minimum(centre + rng.uniform(0, 0.3, size=n), 1)
    v = rng.normal(size=S)
    ptr = np.array([0, n])
    lo, hi = interval_extremes(ptr, cols, lower, upper, v, v)
    bounds = list(zip(lower, upper))
    ref_lo = linprog(v[cols], A_eq=np.ones((1, n)), b_eq=[1.0], bounds=bounds, method="highs")
    ref_hi = linprog(-v[cols], A_eq=np.ones((1, n)), b_eq=[1.0], bounds=bounds, method="highs")
    assert lo[0] == pytest.approx(ref_lo.fun, abs=1e-9)
    assert hi[0] == pytest.approx(-ref_hi.fun, abs=1e-9)
    if robust_kernels.AVAILABLE:
        # the same row as row 0 of a model with S states (the other rows empty)
        indptr = np.full(S + 1, n, dtype=np.int64)
        indptr[0] = 0
        klo, khi = robust_kernels.interval_extremes(indptr, cols.astype(np.int32), lower,
                                                    upper, 1, np.zeros(S, dtype=np.int64), v,
                                                    v)
        assert klo[0] == pytest.approx(lo[0], abs=1e-12)
        assert khi[0] == pytest.approx(hi[0], abs=1e-12)


def test_sparse_npz_round_trip_keeps_everything(tmp_path) -> None:  # noqa: ANN001
    m = sparse_random_mdp(3000, 3, 4, 4, seed=5)
    names = Names(f"state-{i}" for i in range(3000))
    rows = [("left", "right", "stay") if i % 2 else ("up", "down", "stay") for i in range(3000)]
    m = m.replace(state_names=names, action_names=ActionNames.from_rows(rows), name="big")
    assert not m.is_dense
    path = tmp_path / "big.mdp.npz"
    save_mdp(m, path)
    with np.load(path) as z:
        assert "P" not in z.files and "P_indptr" in z.files and "action_codes" in z.files
    back = load_mdp(path)
    assert back == m.replace(name="big")
    assert back.state_names[2999] == "state-2999" and back.action_names[1] == rows[1]


def test_sparse_json_round_trip(tmp_path) -> None:  # noqa: ANN001
    m = sparse_random_mdp(600, 2, 3, None, seed=9)
    path = tmp_path / "m.mdp.json"
    save_mdp(m, path)
    assert load_mdp(path) == m.replace(name=m.name)


def test_npz_sparse_refuses_damaged_arrays(tmp_path) -> None:  # noqa: ANN001
    m = sparse_random_mdp(600, 2, 3, 2, seed=1)
    from core.mdp.files import npz_arrays

    arrays = npz_arrays(m)
    bad = dict(arrays)
    bad["P_indices"] = arrays["P_indices"].copy()
    bad["P_indices"][5] = 600
    np.savez(tmp_path / "bad.mdp.npz", **bad)
    with pytest.raises(InputError, match="P_indices.*0, 600"):
        load_mdp(tmp_path / "bad.mdp.npz")
    bad = dict(arrays)
    bad["P_indices"] = arrays["P_indices"].copy()
    bad["P_indices"][0], bad["P_indices"][1] = arrays["P_indices"][1], arrays["P_indices"][0]
    np.savez(tmp_path / "unsorted.mdp.npz", **bad)
    with pytest.raises(InputError, match="sorted"):
        load_mdp(tmp_path / "unsorted.mdp.npz")


def test_sparse_validation_names_the_row() -> None:
    t = Transitions.from_coo(3, 1, np.array([0, 0, 1, 2]), np.array([0, 1, 1, 2]),
                             np.array([0.5, 0.4, 1.0, 1.0]))
    with pytest.raises(InputError, match=r"state 's0', action 'a0': probabilities sum to 0\.9"):
        MDP(transitions=t, R=np.zeros((3, 1)))
    t = Transitions.from_coo(3, 1, np.array([0, 0, 1, 2]), np.array([0, 1, 1, 2]),
                             np.array([1.5, -0.5, 1.0, 1.0]))
    with pytest.raises(InputError, match="next state 's1' is -0.5"):
        MDP(transitions=t, R=np.zeros((3, 1)))


def test_half_full_models_keep_the_dense_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 300-state model with full rows is dense-path (as before sparse models), a sparse
    one of the same shape is not: the choice follows shape and density only."""
    from core.mdp.examples import random_mdp

    full = random_mdp(300, 4, 2, seed=1)
    assert full.is_dense and full.__dict__["_dense"] is not None
    thin = sparse_random_mdp(300, 4, 3, 2, seed=1)
    assert not thin.is_dense
    again = MDP(transitions=full.transitions, R=full.R, R_T=full.R_T, horizon=2)
    assert again.is_dense  # given as CSR, same path


def test_a_large_models_dense_view_is_refused_with_its_size(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("PRIVPLAN_MEMORY_MB", "64")
    m = sparse_random_mdp(20_000, 2, 3, 2, seed=1)
    with pytest.raises(InputError, match="20,000 x 2 x 20,000"):
        _ = m.P


def test_dirichlet_csr_is_the_dirichlet_distribution() -> None:
    """Mean and variance of every entry over many draws match Dir(k·p)."""
    p = np.array([0.5, 0.3, 0.2, 0.9, 0.1, 1.0, 0.004, 0.996])
    ptr = np.array([0, 3, 5, 6, 8])
    k, n = 40.0, 4000
    rng = np.random.default_rng(11)
    draws = np.array([dirichlet_csr(ptr, p, k, rng) for _ in range(n)])
    var = p * (1 - p) / (k + 1)
    # the sample mean's standard error is sqrt(var / n): 5 of them, entry by entry
    assert (np.abs(draws.mean(axis=0) - p) <= 5 * np.sqrt(var / n) + 1e-12).all()
    # the variance: within 15 % (the sample variance's relative sd is about sqrt(2/n) ~ 2 %)
    ok = var > 0
    assert (np.abs(draws.var(axis=0)[ok] / var[ok] - 1) < 0.15).all()
    assert (draws > 0).all() and np.allclose(segment_sum(draws[0], ptr), 1.0)
    assert np.array_equal(dirichlet_csr(ptr, p, k, 3), dirichlet_csr(ptr, p, k, 3))


def test_dirichlet_csr_small_concentrations_stay_normal() -> None:
    p = np.array([1e-6, 1 - 1e-6, 0.5, 0.5])
    out = dirichlet_csr(np.array([0, 2, 4]), p, 0.01, 2)
    assert np.isfinite(out).all() and (out >= 1e-300).all()
    assert np.allclose(segment_sum(out, np.array([0, 2, 4])), 1.0)


@pytest.mark.parametrize("k", [0.5, 3.0, 100.0])
def test_dirichlet_csr_compiled_shapes_draw_the_numpy_versions_bits(k: float,
                                                                    monkeypatch) -> None:  # noqa: ANN001
    """The compiled pass that makes the gamma shapes gives the draws of the numpy passes,
    bit for bit, with and without the rows' pre-processing (few or many shapes below 1)."""
    from core.privacy import dirichlet_kernels

    rng = np.random.default_rng(5)
    lens = rng.integers(1, 30, size=400)
    ptr = np.concatenate([[0], np.cumsum(lens)])
    p = np.concatenate([rng.dirichlet(np.ones(n)) for n in lens])
    runs = [(None, 1), ((0.8, 0.004), 2)]
    monkeypatch.setattr(dirichlet_kernels, "COMPILE_FROM", 0)
    got = [dirichlet_csr(ptr, p, k, seed, affine=aff) for aff, seed in runs]
    monkeypatch.setattr(dirichlet_kernels, "AVAILABLE", False)
    want = [dirichlet_csr(ptr, p, k, seed, affine=aff) for aff, seed in runs]
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    assert np.array_equal(want[1], dirichlet_csr(ptr, p * 0.8 + 0.004, k, 2))


def test_sparse_privatisation_keeps_the_support_and_the_statement(all_sparse: None) -> None:
    m = sparse_random_mdp(300, 2, 5, 3, seed=2)
    prep = mechanism_rows(m, eta=0.01, domain_rule="mix")
    priv = privatize_mdp(m, 50.0, rng=4, prepared=prep)
    t, pt = m.transitions, priv.mdp.transitions
    assert np.array_equal(t.indptr, pt.indptr) and np.array_equal(t.indices, pt.indices)
    assert (pt.data > 0).all() and np.allclose(pt.row_sums(), 1.0)
    assert priv.mode == "experiment" and priv.seed == 4
    # the rows are those the model's constructor accepts (privatize_mdp skips that check)
    check_transitions(pt, m.mask, m.state_names, m.action_names)
    assert prep.centres is None  # the centres were made a block at a time by the noise
    # the noise is centred on the mixed rows: (1 - nη)p + η
    assert np.allclose(prep.rows.data, t.data * (1 - 5 * 0.01) + 0.01)
    again = privatize_mdp(m, 50.0, rng=4, prepared=prep)  # now from the made centres
    assert prep.centres is not None
    assert np.array_equal(again.mdp.transitions.data, pt.data)
    with pytest.raises(InputError, match="below the declared eta"):
        mechanism_rows(m, eta=0.05, domain_rule="refuse")


def test_small_dense_models_keep_their_seeded_privatisation() -> None:
    """A dense (small) model draws exactly as before: the dense sampler, row by row."""
    from core.privacy.dirichlet import dirichlet_rows

    m = four_startups()
    prep = mechanism_rows(m)
    got = privatize_mdp(m, 100.0, rng=7, prepared=prep).mdp.P
    want = dirichlet_rows(prep.rows, 100.0, 7)
    assert np.array_equal(got[m.mask], want)


def test_a_million_state_model_runs_in_memory_proportional_to_its_transitions() -> None:
    """10⁶ states × 4 actions × 5 successors, T = 5: privatise, synthesise and bound with a
    peak (tracemalloc, every numpy allocation) of at most 3× the CSR arrays."""
    S, A, n, T = 1_000_000, 4, 5, 5
    m = sparse_random_mdp(S, A, n, T, seed=1)
    csr = m.transitions.nbytes
    assert m.nnz == S * A * n and not m.is_dense
    prep = mechanism_rows(m, domain_rule="mix")  # once per model (a sweep shares it)
    shift = centre_shift(prep, (S, A))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        private = privatize_mdp(m, 100.0, rng=1, prepared=prep).mdp
        plan = synthesize(private)
        res = cost_of_privacy(private, k=100.0, beta=0.05, plan=plan, centre_shift=shift)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 3 * csr, f"peak {peak / 2**20:.0f} MB > 3 x CSR {csr / 2**20:.0f} MB"
    assert math.isfinite(res.cost_bound) and res.cost_bound >= 0
    assert (res.v_lower[0] <= res.v_private[0] + 1e-9).all()
    assert (res.v_private[0] <= res.v_upper[0] + 1e-9).all()
