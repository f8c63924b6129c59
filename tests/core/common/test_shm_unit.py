"""core.common.shm: large arrays cross to workers through shared memory, unchanged.

Every kind of array a model holds (C and Fortran order, strided views, big-endian, bool,
integer, structured, zero-dimensional) must come back equal and read-only when shared, and
writeable copies when small; object arrays are never shared; a full ``/dev/shm`` falls back
to plain pickling; closing the owner removes its blocks.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from multiprocessing import shared_memory

import numpy as np
import pytest

from core.common import shm
from core.common.shm import SharedArrays, load, shm_free_bytes

pytestmark = pytest.mark.skipif(shm_free_bytes() < 1 << 22,
                                reason="needs a few MB of /dev/shm")


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(20, 30))
    return {
        "c": base,
        "f": np.asfortranarray(base),
        "strided": base[::2, ::3],
        "big_endian": base.astype(">f8"),
        "bool": base > 0,
        "int": rng.integers(-5, 5, size=(7, 11)).astype(np.int32),
        "structured": np.array([(1, 2.5), (3, -1.0)] * 20, dtype=[("a", "<i4"), ("b", "<f8")]),
        "scalar": np.array(3.25),
    }


def test_every_kind_of_array_comes_back_equal_and_read_only() -> None:
    src = _arrays()
    with SharedArrays(min_bytes=1) as sa:
        back = load(sa.dumps(src))
        assert sa.shared_bytes >= sum(a.nbytes for a in src.values())
        for k, a in src.items():
            b = back[k]
            assert b.dtype == a.dtype and b.shape == a.shape, k
            assert np.array_equal(b, a), k
            assert not b.flags.writeable, k
            with pytest.raises(ValueError):
                b[(0,) * b.ndim] = b[(0,) * b.ndim]


def test_small_arrays_and_object_arrays_are_copied() -> None:
    obj = {"small": np.arange(3.0), "objects": np.array([{"a": 1}, None], dtype=object),
           "big": np.zeros(1000)}
    with SharedArrays(min_bytes=4096) as sa:
        back = load(sa.dumps(obj))
        assert sa.shared_bytes == 8000
        assert back["small"].flags.writeable and back["objects"][0] == {"a": 1}
        assert not back["big"].flags.writeable


@dataclass
class _Model:
    P: np.ndarray
    names: tuple[str, ...]


def test_nested_objects_keep_their_structure() -> None:
    m = _Model(np.full((50, 50), 0.02), ("a", "b"))
    with SharedArrays(min_bytes=1024) as sa:
        back = load(sa.dumps([m, {"again": m.P}]))
        assert back[0].names == ("a", "b") and np.array_equal(back[0].P, m.P)
        assert np.array_equal(back[1]["again"], m.P)


def test_nothing_to_share_pickles_as_usual() -> None:
    obj = {"x": 1, "y": [np.arange(2)]}
    with SharedArrays(min_bytes=1 << 20) as sa:
        payload = sa.dumps(obj)
        assert sa.shared_bytes == 0 and not sa.enabled
        back = pickle.loads(payload)
        assert back["x"] == 1 and back["y"][0].tolist() == [0, 1]


def test_a_full_dev_shm_falls_back_to_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    big = np.ones(10_000)
    monkeypatch.setattr(shm, "shm_free_bytes", lambda: int(1.2 * big.nbytes))
    with SharedArrays(min_bytes=1) as sa:
        back = load(sa.dumps({"big": big}))
        assert sa.shared_bytes == 0 and not sa.enabled
        assert back["big"].flags.writeable and np.array_equal(back["big"], big)
    monkeypatch.setattr(shm, "shm_free_bytes", lambda: int(1.3 * big.nbytes))
    with SharedArrays(min_bytes=1) as sa:
        sa.dumps({"big": big})
        assert sa.shared_bytes == big.nbytes  # a quarter's margin is enough


def test_close_removes_the_blocks_but_mapped_arrays_stay_readable() -> None:
    sa = SharedArrays(min_bytes=1)
    back = load(sa.dumps({"a": np.arange(100.0)}))
    names = [b.name for b in sa._blocks]
    assert len(names) == 1
    sa.close()
    assert sa.shared_bytes == 0
    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=names[0])
    assert back["a"][99] == 99.0  # the mapping outlives the name
    sa.close()  # twice: nothing left to remove


def test_shared_memory_holds_a_copy_not_a_view() -> None:
    src = np.arange(64.0)
    with SharedArrays(min_bytes=1) as sa:
        back = load(sa.dumps(src))
        src[0] = -1.0
        assert back[0] == 0.0
