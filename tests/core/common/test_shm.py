"""a pool's workers map the model from shared memory instead of each copying it."""

from __future__ import annotations

import numpy as np

from core.common import shm
from core.common.parallel import run_chunks
from core.mdp.examples import random_mdp
from core.mdp.privatize import mechanism_rows


def _inspect(mdp, prep, i: int) -> tuple[bool, bool, bool, float]:
    """In a worker: is P a read-only view of memory it does not own, and its checksum."""
    P = mdp.P
    return (P.flags.owndata, P.flags.writeable, prep.rows.flags.owndata, float(P.sum()) + i)


def test_workers_map_the_model_read_only_from_shared_memory():
    mdp = random_mdp(260, 3, 2, seed=5)          # P is 1.6 MB: above MIN_BYTES
    prep = mechanism_rows(mdp, eta=1e-4)
    assert mdp.P.nbytes >= shm.MIN_BYTES
    got = []
    run_chunks(_inspect, [(0,), (1,)], lambda t: t, lambda t, r: got.append(r), inline=False,
               workers=2, shared=(mdp, prep))
    total = float(mdp.P.sum())  # 260 × 3 rows of probabilities
    for owns, writeable, rows_own, _ in got:
        assert not owns and not writeable and not rows_own
    assert sorted(c[3] - total for c in got) == [0.0, 1.0]  # the same model in both


def test_blocks_are_removed_and_a_full_dev_shm_falls_back_to_copies(monkeypatch):
    arr = np.arange(300_000, dtype=np.float64)   # 2.4 MB
    with shm.SharedArrays() as sa:
        payload = sa.dumps((arr,))
        assert sa.shared_bytes == arr.nbytes and len(payload) < 10_000
        names = [b.name for b in sa._blocks]
        (back,) = shm.load(payload)
        np.testing.assert_array_equal(back, arr)
        assert not back.flags.writeable
    import os

    for name in names:
        assert not os.path.exists(f"/dev/shm/{name}")   # unlinked when the block ends
    monkeypatch.setattr(shm, "shm_free_bytes", lambda: 1 << 20)  # a container's tiny tmpfs
    with shm.SharedArrays() as sa:
        payload = sa.dumps((arr,))
        assert sa.shared_bytes == 0 and len(payload) > arr.nbytes  # pickled whole
        (back,) = shm.load(payload)
        np.testing.assert_array_equal(back, arr)
