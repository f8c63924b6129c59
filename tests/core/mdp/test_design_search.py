"""The designer's search over k asks each probe only "ε <= target?" and computes ε once, at
the k it keeps: the same probes, the same answers and so the same design as comparing every
probe's full ε (the search before; kept here as the reference)."""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.mdp.accounting import profile_epsilon, profile_epsilon_at_most
from core.mdp.design import _K_RTOL, K_RANGE, _Profile, design
from core.mdp.examples import example2, four_startups, random_mdp, sparse_random_mdp
from core.privacy.dirichlet_profile import _pair_eps_cached

design_module = importlib.import_module("core.mdp.design")  # the package's facade names the
# function design, so the module is taken from the import system


def _largest_k_full(profile: _Profile, eta: "float | str", target: float, *, b: float,
                    delta: float, adjacency: str) -> tuple[float, float] | None:
    """The search as it was: every probe's full ε compared with the target."""
    lo_k, hi_k = K_RANGE

    def eps(k: float) -> float:
        return profile.epsilon(k, eta, b=b, delta=delta, adjacency=adjacency)

    e_lo = eps(lo_k)
    if not e_lo <= target:
        return None
    e_hi = eps(hi_k)
    if e_hi <= target:
        return hi_k, e_hi
    best = (lo_k, e_lo)
    a, z = math.log(lo_k), math.log(hi_k)
    while z - a > _K_RTOL:
        mid = 0.5 * (a + z)
        e = eps(math.exp(mid))
        if e <= target:
            a, best = mid, (math.exp(mid), e)
        else:
            z = mid
    return best


MODELS = {"four_startups": four_startups, "example2": example2,
          **{f"random{s}": (lambda s=s: random_mdp(3 + s, 2, 4, seed=s)) for s in (0, 2)},
          "sparse0": lambda: sparse_random_mdp(8, 2, 3, 5, seed=0)}
TARGETS = [(1.0, 1e-3, 0.1, "one-row"), (0.3, 1e-5, 0.1, "one-row"),
           (5.0, 0.05, 0.5, "one-row"), (50.0, 1e-3, 1.0, "one-row")]


@pytest.mark.parametrize("name", [n if n == "four_startups" else
                                  pytest.param(n, marks=pytest.mark.slow)  # make test-slow
                                  for n in sorted(MODELS)])
def test_the_design_is_the_full_searchs_byte_for_byte(name: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Each model and target: the JSON of the design equals, byte for byte, the one the
    search comparing every probe's full ε gives (four_startups, Example 2, random models,
    both adjacencies, a feasible and an infeasible end of the k range)."""
    m = MODELS[name]()
    more = [(2.0, 1e-3, 0.1, "all-rows")] if name == "random0" else []
    for eps, delta, b, adjacency in TARGETS + more:
        kw: dict[str, Any] = {"epsilon": eps, "delta": delta, "b": b, "adjacency": adjacency}
        _pair_eps_cached.cache_clear()
        fast = json.dumps(design(m, **kw).to_dict())
        with monkeypatch.context() as patch:
            patch.setattr(design_module, "_largest_k", _largest_k_full)
            _pair_eps_cached.cache_clear()
            full = json.dumps(design(m, **kw).to_dict())
        assert fast == full, (name, kw)
    assert json.loads(fast)["frontier"] or name != "four_startups"


def test_four_startups_design_at_epsilon_1() -> None:
    """The recommendation the command prints on four_startups at (1, 1e-3): pinned, so a
    change of the search that moves k or ε shows."""
    d = design(four_startups(), epsilon=1.0, delta=1e-3)
    assert d.recommended is not None
    assert (d.recommended.k, d.recommended.eta) == (76.35060803383351, "0.7/n")
    assert d.recommended.epsilon == 0.9983604680746794
    assert [p.eta for p in d.frontier] == ["0.5/n", "0.7/n"]


_CLASS = st.tuples(st.integers(1, 6), st.integers(0, 4), st.floats(0.05, 1.0))


@settings(max_examples=80, deadline=None)
@given(classes=st.lists(_CLASS, min_size=1, max_size=3, unique_by=lambda c: c[0]),
       log_k=st.floats(-3, 7), eta=st.sampled_from(design_module.DESIGN_ETAS),
       delta=st.sampled_from([1e-6, 1e-3, 0.05]), b=st.sampled_from([0.01, 0.1, 1.0]),
       adjacency=st.sampled_from(["one-row", "one-row", "one-row", "all-rows"]),
       where=st.sampled_from(["at", "below", "above", "far"]), factor=st.floats(0.1, 10.0))
def test_at_most_answers_as_the_full_epsilon(classes: list[tuple[int, int, float]],
                                             log_k: float, eta: "float | str", delta: float,
                                             b: float, adjacency: str, where: str,
                                             factor: float) -> None:
    """profile_epsilon_at_most(…, bound) == (profile_epsilon(…) <= bound) on random class
    profiles (one-outcome rows, two-outcome rows searched by branch and bound, rows the
    accountant refuses), with the bound at ε itself, one ulp either side, or anywhere."""
    support = [n for n, _, _ in classes]
    counts = [c for _, c, _ in classes]
    contraction = [c for _, _, c in classes]
    kw: dict[str, Any] = {"contraction": contraction, "b": b, "delta_target": delta,
                          "adjacency": adjacency, "eta": eta}
    e = profile_epsilon(support, counts, 10.0 ** log_k, **kw)
    ref = e if math.isfinite(e) else 1.0
    bound = {"at": ref, "below": math.nextafter(ref, -math.inf),
             "above": math.nextafter(ref, math.inf), "far": ref * factor}[where]
    got = profile_epsilon_at_most(support, counts, 10.0 ** log_k, bound=bound, **kw)
    assert got == (e <= bound)


def test_at_most_stops_early() -> None:
    """The point of the decision: far from the bound it needs fewer δ evaluations than
    the full ε (counted on the accountant's pair_delta)."""
    from core.privacy import dirichlet_profile as dp

    calls = {"n": 0}
    real = dp.pair_delta

    def counting(*args: Any, **kw: Any) -> np.ndarray:
        calls["n"] += 1
        return real(*args, **kw)

    pair = dp.BetaPair(5.0, 5.0, 2.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dp, "pair_delta", counting)
        assert dp.pair_epsilon_at_most(pair, 1e-3, 0.5) is False
        decide = calls["n"]
        calls["n"] = 0
        _pair_eps_cached.cache_clear()
        assert dp.pair_epsilon(pair, 1e-3) > 0.5
        full = calls["n"]
    assert decide < full / 4
