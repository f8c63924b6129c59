"""core.mdp.accounting: the designer's class-level ε (``profile_epsilon``) is the ε of the
rows themselves (``supports_privacy``), as its docstring promises, for one-row and all-rows
adjacency; composing privatisations obeys its own edges (none, unbounded, basic beside the
PLD); the public inputs are refused naming their field."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution  # noqa: F401 - slow import, at collection

from core.common.errors import InputError
from core.mdp.accounting import compose_privatisations, profile_epsilon, supports_privacy

_CASES = [
    # (support sizes, counts, contractions)
    ([2, 3], [4, 2], [0.99, 0.97]),
    ([1, 2, 5], [3, 3, 1], [1.0, 0.998, 0.995]),
]


def _rows(sizes: list[int], counts: list[int], cs: list[float]
          ) -> tuple[np.ndarray, np.ndarray, list[tuple[str, str]]]:
    support = np.repeat(sizes, counts)
    contraction = np.repeat(cs, counts)
    names = [(f"s{i}", "a0") for i in range(support.size)]
    return support, contraction, names


# the exact profile under all-rows adjacency composes privacy-loss distributions (a second
# each): one such case; the others use the per-row union bound, which composes by addition
_SETTINGS = [("one-row", "auto"), ("all-rows", "union")]


@pytest.mark.parametrize("adjacency, method", _SETTINGS)
@pytest.mark.parametrize("sizes, counts, cs", _CASES)
@pytest.mark.parametrize("k", [500.0])
def test_profile_epsilon_is_the_rows_own_epsilon(sizes: list[int], counts: list[int],
                                                 cs: list[float], adjacency: str,
                                                 method: str, k: float) -> None:
    _same_epsilon(sizes, counts, cs, adjacency, method, k)


def test_profile_epsilon_is_the_rows_own_epsilon_with_the_pld() -> None:
    _same_epsilon([2], [2], [1.0], "all-rows", "auto", 2000.0)


def _same_epsilon(sizes: list[int], counts: list[int], cs: list[float], adjacency: str,
                  method: str, k: float) -> None:
    support, contraction, names = _rows(sizes, counts, cs)
    rows = supports_privacy(support, names, k, contraction=contraction, b=0.1,
                            delta_target=0.05, adjacency=adjacency, eta=0.01,
                            delta_method=method)
    cls = profile_epsilon(sizes, counts, k, contraction=cs, b=0.1, delta_target=0.05,
                          adjacency=adjacency, eta=0.01, delta_method=method)
    if math.isinf(rows.epsilon):
        assert math.isinf(cls)
    else:
        assert cls == rows.epsilon  # the same calls, the same float


def test_profile_epsilon_of_no_rows_and_of_single_state_rows() -> None:
    assert profile_epsilon([2, 3], [0, 0], 100.0, contraction=[1.0, 1.0], b=0.1,
                           delta_target=0.05, adjacency="one-row", eta=0.01) == 0.0
    assert profile_epsilon([1], [7], 100.0, contraction=[1.0], b=0.1, delta_target=0.05,
                           adjacency="all-rows", eta=0.01) == 0.0


def test_profile_epsilon_grows_with_k_and_with_the_row_count_under_all_rows() -> None:
    kw = dict(contraction=[1.0], b=0.1, delta_target=0.05, eta=0.01)
    by_k = [profile_epsilon([3], [2], k, adjacency="one-row", **kw) for k in (100, 1000, 1e4)]
    assert all(a < b for a, b in zip(by_k, by_k[1:]))
    by_rows = [profile_epsilon([3], [c], 1000.0, adjacency="all-rows", delta_method="union",
                               **kw) for c in (1, 4, 16)]
    assert all(a < b for a, b in zip(by_rows, by_rows[1:]))
    one = profile_epsilon([3], [16], 1000.0, adjacency="one-row", **kw)
    assert one <= by_rows[-1]


@pytest.mark.parametrize("kw, field", [
    ({"k": 0.0}, "k"), ({"adjacency": "some"}, "adjacency"), ({"b": 0.0}, "b"),
    ({"b": 1.5}, "b"), ({"b": True}, "b"), ({"delta_target": 1.0}, "delta"),
    ({"delta_method": "guess"}, "delta_method"), ({"eta": 2.0}, "eta"),
])
def test_profile_epsilon_refuses_naming_the_field(kw: dict, field: str) -> None:
    args = dict(k=100.0, contraction=[1.0], b=0.1, delta_target=0.05, adjacency="one-row",
                eta=0.01)
    args.update(kw)
    k = args.pop("k")
    with pytest.raises(InputError) as info:
        profile_epsilon([2], [1], k, **args)
    assert info.value.field == field


def test_supports_privacy_refuses_bad_rules() -> None:
    with pytest.raises(InputError) as info:
        supports_privacy([2], [("s", "a")], 10.0, domain_rule="clip")
    assert info.value.field == "domain_rule"
    with pytest.raises(InputError) as info:
        supports_privacy([2], [("s", "a")], 10.0, zeros="drop")
    assert info.value.field == "zeros"


def test_supports_privacy_of_no_rows_is_free() -> None:
    p = supports_privacy([], [], 10.0)
    assert p.epsilon == 0.0 and p.delta == 0.0


def test_compose_privatisations_edges() -> None:
    rows = supports_privacy([3, 3], [("s0", "a"), ("s1", "a")], 500.0, eta=0.01)
    none = compose_privatisations([(rows, 0)], 1e-3)
    assert (none.epsilon, none.epsilon_basic, none.releases) == (0.0, 0.0, 0)
    three = compose_privatisations([(rows, 3)], 1e-3)
    assert three.releases == 3 and three.delta == 1e-3
    assert three.epsilon <= three.epsilon_basic
    assert three.epsilon > rows.epsilon * 0.5  # three releases cost more than half of one
    d = three.to_dict()
    assert d["releases"] == 3 and "epsilon_reason" not in d
    unbounded = supports_privacy([3], [("s", "a")], 1.0, eta=1e-3, delta_method="union")
    assert math.isinf(unbounded.epsilon)
    bad = compose_privatisations([(rows, 1), (unbounded, 1)], 1e-3)
    assert math.isinf(bad.epsilon) and bad.to_dict()["epsilon"] is None
    assert bad.to_dict()["epsilon_reason"]


def test_compose_privatisations_with_threshold_analyses_is_basic() -> None:
    rows = supports_privacy([3], [("s", "a")], 500.0, eta=0.01, delta_method="union")
    assert rows.profile_spec() is None
    out = compose_privatisations([(rows, 4)], 1e-3)
    assert out.epsilon == out.epsilon_basic == pytest.approx(4 * rows.epsilon)
    assert out.delta == pytest.approx(min(1.0, 4 * rows.delta))
    assert out.accountant.startswith("basic composition")
