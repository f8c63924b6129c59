"""core.study.seeds: replicate seeds are fixed by the master seed, distinct, 32-bit and stable
when a study grows; the auxiliary streams are disjoint from them."""

from __future__ import annotations

import numpy as np
import pytest

from core.study.seeds import auxiliary_rng, derive_seeds, draw_master_seed, replicate_seed


def test_replicate_seed_is_the_first_word_of_its_seed_sequence() -> None:
    for master, i in ((0, 0), (7, 3), (2**40, 12)):
        ss = np.random.SeedSequence(master, spawn_key=(i,))
        assert replicate_seed(master, i) == int(ss.generate_state(1, dtype=np.uint32)[0])


def test_derived_seeds_are_distinct_32_bit_and_prefix_stable() -> None:
    seeds = derive_seeds(11, 500)
    assert len(seeds) == len(set(seeds)) == 500
    assert all(0 <= s < 2**32 for s in seeds)
    assert derive_seeds(11, 20) == seeds[:20]  # a study extended keeps its first runs
    assert derive_seeds(12, 20) != seeds[:20]
    assert seeds[:5] == tuple(replicate_seed(11, i) for i in range(5))


def test_derived_seeds_skip_a_repeated_seed() -> None:
    # 2**33 replicates would be needed to meet a repeat by chance; stand one in by patching
    import core.study.seeds as mod

    real = mod.replicate_seed
    fake = {0: 5, 1: 5, 2: 9}
    try:
        mod.replicate_seed = lambda master, i: fake.get(i, real(master, i))  # type: ignore
        assert derive_seeds(1, 3)[:2] == (5, 9)
    finally:
        mod.replicate_seed = real


@pytest.mark.parametrize("master,n", [(-1, 3), (0, 0), (5, -2)])
def test_derive_seeds_refuses_bad_arguments(master: int, n: int) -> None:
    with pytest.raises(ValueError):
        derive_seeds(master, n)


def test_master_seeds_are_63_bit_and_fresh() -> None:
    seeds = {draw_master_seed() for _ in range(20)}
    assert len(seeds) == 20 and all(0 <= s < 2**63 for s in seeds)


def test_auxiliary_streams_are_fixed_and_separate() -> None:
    a = auxiliary_rng(7, 1, 2).random(4)
    assert np.array_equal(a, auxiliary_rng(7, 1, 2).random(4))
    assert not np.array_equal(a, auxiliary_rng(7, 1, 3).random(4))
    assert not np.array_equal(a, auxiliary_rng(8, 1, 2).random(4))
    # not the replicate stream of any small index
    replicate = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(1,))).random(4)
    assert not np.array_equal(auxiliary_rng(7, 1).random(4), replicate)
