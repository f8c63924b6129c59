"""The robust-bounds kernels' two paths: the plain-Python loops (small models, no numba
loaded) and their numba compilation (large models) give the same bits (``==``), on random
rows and through whole bounds, and a small model's bounds do not load numba."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.mdp.sparse as sparse_mod
from core.mdp import robust_kernels
from core.mdp.examples import example2, four_startups, sparse_random_mdp
from core.mdp.model import MDP
from core.mdp.robust import _cost_bounds_many, robust_bounds
from core.mdp.robust_sparse import _width
from core.mdp.synthesis import synthesize

ROOT = Path(__file__).resolve().parents[3]

needs_numba = pytest.mark.skipif(not robust_kernels.AVAILABLE,
                                 reason="numba is not installed (or PRIVPLAN_NO_NUMBA)")


def _both(fn: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``fn()`` with the plain loops, then with the compiled ones."""
    monkeypatch.setattr(robust_kernels, "COMPILE_FROM", 2**62)
    plain = fn()
    monkeypatch.setattr(robust_kernels, "COMPILE_FROM", 0)
    compiled = fn()
    return plain, compiled


def _same(a: Any, b: Any) -> None:
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape
        assert np.array_equal(x, y), f"differ by up to {np.abs(x - y).max():.3g}"


def _values(rng: np.random.Generator, S: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    if ties:  # few distinct values: the order's ties and the flags' shortcut
        return (rng.integers(0, 3, size=S) * 0.5, rng.integers(0, 3, size=S) * 0.25)
    return rng.normal(size=S) * 10.0 ** rng.integers(-3, 4), rng.normal(size=S)


rows = st.fixed_dictionaries({
    "S": st.integers(1, 60), "A": st.integers(1, 4), "succ": st.integers(1, 12),
    "seed": st.integers(0, 2**31 - 1), "per_state": st.booleans(), "ties": st.booleans(),
    "alpha": st.floats(1e-4, 1.5), "beta": st.sampled_from([0.0, 0.05, 0.3])})


@needs_numba
@settings(max_examples=60, deadline=None)
@given(case=rows)
def test_phat_extremes_plain_and_compiled_give_the_same_bits(case: dict[str, Any]) -> None:
    S, A = case["S"], case["A"]
    m = sparse_random_mdp(S, A, min(case["succ"], S), 3, seed=case["seed"])
    rng = np.random.default_rng(case["seed"])
    t = m.transitions
    a = rng.integers(0, A, size=S)
    v_lo, v_hi = _values(rng, S, case["ties"])
    alpha = (rng.uniform(1e-4, case["alpha"], size=S) if case["per_state"]
             else case["alpha"])
    width = _width(float(np.min(alpha)), S)
    with pytest.MonkeyPatch.context() as mp:
        plain, compiled = _both(lambda: robust_kernels.phat_extremes(
            t.indptr, t.indices, t.data, A, a, v_lo, v_hi, alpha=alpha, beta=case["beta"],
            width=width), mp)
    _same(plain, compiled)


@needs_numba
@settings(max_examples=40, deadline=None)
@given(case=rows, J=st.integers(1, 6))
def test_phat_extremes_many_plain_and_compiled_give_the_same_bits(case: dict[str, Any],
                                                                 J: int) -> None:
    S, A = case["S"], case["A"]
    m = sparse_random_mdp(S, A, min(case["succ"], S), 3, seed=case["seed"])
    rng = np.random.default_rng(case["seed"])
    t = m.transitions
    a = rng.integers(0, A, size=S)
    v_lo = np.stack([_values(rng, S, case["ties"])[0] for _ in range(J)])
    v_hi = v_lo + rng.uniform(0, 1, size=(J, S))
    alpha = rng.uniform(1e-4, case["alpha"], size=(J, S))
    widths = [_width(float(np.min(alpha[j])), S) for j in range(J)]

    def run() -> tuple[np.ndarray, np.ndarray]:
        lo, hi = np.empty((J, S)), np.empty((J, S))
        robust_kernels.phat_extremes_many(t.indptr, t.indices, t.data, A, a, v_lo, v_hi,
                                          alpha=alpha, beta=case["beta"], widths=widths,
                                          out_lo=lo, out_hi=hi)
        return lo, hi

    with pytest.MonkeyPatch.context() as mp:
        plain, compiled = _both(run, mp)
    _same(plain, compiled)


@needs_numba
@settings(max_examples=40, deadline=None)
@given(case=rows)
def test_interval_extremes_plain_and_compiled_give_the_same_bits(case: dict[str, Any]) -> None:
    S, A = case["S"], case["A"]
    m = sparse_random_mdp(S, A, min(case["succ"], S), 3, seed=case["seed"])
    rng = np.random.default_rng(case["seed"])
    t = m.transitions
    lower = np.maximum(t.data - rng.uniform(0, case["alpha"] / 4, size=t.data.size), 0.0)
    upper = np.minimum(t.data + rng.uniform(0, case["alpha"] / 4, size=t.data.size), 1.0)
    a = rng.integers(0, A, size=S)
    v_lo, v_hi = _values(rng, S, case["ties"])
    with pytest.MonkeyPatch.context() as mp:
        plain, compiled = _both(lambda: robust_kernels.interval_extremes(
            t.indptr, t.indices, lower, upper, A, a, v_lo, v_hi), mp)
    _same(plain, compiled)


def _as_sparse(m: MDP, monkeypatch: pytest.MonkeyPatch) -> MDP:
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_ENTRIES", 0)
    monkeypatch.setattr(sparse_mod, "DENSE_MAX_FULL", 0)
    sparse = MDP(P=m.P, R=m.R, R_T=m.R_T, mask=m.mask, horizon=m.horizon,
                 discount=m.discount, initial_state=m.initial_state)
    assert not sparse.is_dense
    return sparse


@needs_numba
@pytest.mark.parametrize("model", [four_startups, example2], ids=["four_startups", "example2"])
def test_bounds_of_the_examples_are_the_same_bits_either_way(
        model: Callable[[], MDP], monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole robust bounds (every stage) and the design's fused bounds of several radii,
    on the examples held as CSR rows: the plain loops give the compiled loops' values."""
    m = _as_sparse(model(), monkeypatch)
    plan = synthesize(m)
    for alpha in (0.01, 0.08, 0.6):
        plain, compiled = _both(lambda: robust_bounds(m, plan.policy, alpha=alpha,
                                                      beta=0.05), monkeypatch)
        _same((plain.v_lower, plain.v_upper), (compiled.v_lower, compiled.v_upper))
    ks = [20.0, 100.0, 500.0]
    plain, compiled = _both(lambda: _cost_bounds_many(
        m, plan, ks=ks, beta=0.05, alpha_mode="paper", centre_shifts=[None] * 3),
        monkeypatch)
    assert plain == compiled


def test_the_plain_loops_run_below_compile_from(monkeypatch: pytest.MonkeyPatch) -> None:
    m = sparse_random_mdp(30, 2, 4, 3, seed=3)
    assert m.nnz < robust_kernels.COMPILE_FROM
    assert robust_kernels._loops(m.nnz) is vars(robust_kernels)
    monkeypatch.setattr(robust_kernels, "AVAILABLE", False)
    assert robust_kernels._loops(10**9) is vars(robust_kernels)


def test_bounds_of_a_small_sparse_model_do_not_load_numba() -> None:
    """A command on a small model pays neither numba's import nor its kernels' loading."""
    code = ("import sys\n"
            "import core.mdp.sparse as s\n"
            "s.DENSE_MAX_ENTRIES = s.DENSE_MAX_FULL = 0\n"
            "from core.mdp.examples import four_startups\n"
            "from core.mdp.model import MDP\n"
            "from core.mdp.robust import cost_of_privacy\n"
            "m = four_startups()\n"
            "m = MDP(P=m.P, R=m.R, R_T=m.R_T, mask=m.mask, horizon=m.horizon,\n"
            "        discount=m.discount)\n"
            "assert not m.is_dense\n"
            "print(cost_of_privacy(m, k=100.0).cost_bound)\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(ROOT),
                                                     "PATH": "/usr/bin:/bin"})
    bound, loaded = out.stdout.split()
    assert float(bound) > 0.0
    assert loaded == "False"
