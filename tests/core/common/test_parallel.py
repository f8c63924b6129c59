"""core.common.parallel.run_chunks: the one executor loop of the experiments."""

from __future__ import annotations

import operator
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from core.common.parallel import run_chunks
from core.common.progress import Cancelled

TASKS = [(i, i + 1) for i in range(6)]


def test_inline_and_pool_give_the_same_results():
    inline, pooled = {}, {}
    run_chunks(operator.mul, TASKS, lambda t: t, inline.__setitem__, inline=True)
    run_chunks(operator.mul, TASKS, lambda t: t, pooled.__setitem__, inline=False, workers=2)
    assert inline == pooled == {t: t[0] * t[1] for t in TASKS}


def test_a_pool_passed_in_stays_open_and_ours_is_joined():
    with ThreadPoolExecutor(2) as ex:
        out = {}
        run_chunks(operator.add, TASKS, lambda t: t, out.__setitem__, inline=False,
                   executor=ex)
        assert ex.submit(operator.neg, 1).result() == -1  # still usable
    assert len(out) == len(TASKS)


def test_cancel_from_record_stops_pending_chunks():
    gate = threading.Event()
    started = []

    def slow(i):
        started.append(i)
        gate.wait(5)
        return i

    def record(task, result):
        gate.set()
        raise Cancelled()

    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(Cancelled):
            run_chunks(slow, list(range(20)), lambda t: (t,), record, inline=False,
                       executor=ex)
    assert len(started) < 20  # the queued chunks were cancelled, not run


def test_a_worker_error_propagates():
    def boom(i):
        raise ValueError(f"chunk {i}")

    with pytest.raises(ValueError, match="chunk"):
        run_chunks(boom, [1, 2], lambda t: (t,), lambda t, r: None, inline=False,
                   executor=ThreadPoolExecutor(1))


def test_poll_cancels_a_pool_without_waiting_for_a_running_chunk():
    """A chunk that would run 60 s: ``poll`` raising Cancelled stops the wait at once and
    ends the pool's processes (measured: the wait ends within 2 s of the cancel, which is
    POLL_S plus the shutdown; a spawned pool takes about a second to start)."""
    import time

    from core.common.parallel import POLL_S

    cancel_at: list[float] = []

    def poll():
        if not cancel_at:
            cancel_at.append(time.perf_counter() + 1.0)
        if time.perf_counter() >= cancel_at[0]:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_chunks(time.sleep, [60.0, 60.0], lambda t: (t,), lambda t, r: None,
                   inline=False, workers=2, poll=poll)
    late = time.perf_counter() - cancel_at[0]
    assert late < 2.0 and POLL_S < 1.0, late
