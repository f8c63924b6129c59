"""core.common.parallel.run_chunks on a thread pool and inline: every chunk recorded once
with its own result, a chunk's error or a cancel stops the rest, a cluster's lost work
names the missing chunks, shared arguments go to a cluster once through ``scatter``."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from core.common.errors import RunFailure
from core.common.parallel import _lost_work, _missing_text, run_chunks
from core.common.progress import Cancelled


def _square(base: int, x: int) -> int:
    return base + x * x


@pytest.mark.parametrize("inline", [True, False])
def test_every_chunk_is_recorded_once_with_its_result(inline: bool) -> None:
    tasks = list(range(25))
    got: dict[int, int] = {}

    def record(t: int, r: int) -> None:
        assert t not in got
        got[t] = r

    with ThreadPoolExecutor(4) as ex:
        run_chunks(_square, tasks, lambda t: (t,), record, inline=inline,
                   executor=None if inline else ex, shared=(100,))
    assert got == {t: 100 + t * t for t in tasks}


def test_inline_runs_in_task_order() -> None:
    order: list[int] = []
    run_chunks(_square, [3, 1, 2], lambda t: (t,), lambda t, r: order.append(t), inline=True,
               shared=(0,))
    assert order == [3, 1, 2]


def test_no_tasks_is_nothing_to_do() -> None:
    with ThreadPoolExecutor(2) as ex:
        run_chunks(_square, [], lambda t: (t,), lambda t, r: pytest.fail("no task"),
                   inline=False, executor=ex, shared=(0,))


def test_a_chunks_error_propagates_and_a_pool_passed_in_stays_open() -> None:
    def fn(x: int) -> int:
        if x == 3:
            raise ValueError("chunk 3 failed")
        return x

    with ThreadPoolExecutor(2) as ex:
        with pytest.raises(ValueError, match="chunk 3 failed"):
            run_chunks(fn, list(range(6)), lambda t: (t,), lambda t, r: None, inline=False,
                       executor=ex)
        assert ex.submit(lambda: 7).result() == 7  # still usable


def test_record_raising_cancelled_stops_the_pending_chunks() -> None:
    started: list[int] = []
    gate = threading.Event()

    def fn(x: int) -> int:
        started.append(x)
        if x > 0:
            gate.wait(2.0)
        return x

    def record(t: int, r: int) -> None:
        raise Cancelled

    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(Cancelled):
            run_chunks(fn, list(range(10)), lambda t: (t,), record, inline=False, executor=ex)
        gate.set()
    assert len(started) < 10  # the queued chunks were cancelled, not run


def test_poll_is_called_while_waiting_and_may_cancel() -> None:
    calls: list[float] = []
    gate = threading.Event()

    def poll() -> None:
        calls.append(time.monotonic())
        if len(calls) >= 2:
            raise Cancelled

    def slow(x: int) -> int:
        gate.wait(10.0)  # runs until the test lets it go
        return x

    with ThreadPoolExecutor(1) as ex:
        with pytest.raises(Cancelled):
            run_chunks(slow, [1], lambda t: (t,), lambda t, r: None, inline=False, executor=ex,
                       poll=poll)
        assert not gate.is_set()  # cancelled while the chunk was still running
        gate.set()
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.15  # one POLL_S apart


class KilledWorker(Exception):  # noqa: N818 - dask's name, which run_chunks recognises
    pass


class _LosingCluster:
    """An executor that loses the work of some chunks and scatters shared data once."""

    def __init__(self, lose: set[int]) -> None:
        self.lose = lose
        self.scattered: list[tuple[Any, ...]] = []

    def scatter(self, shared: tuple[Any, ...]) -> list[Any]:
        self.scattered.append(shared)
        return [("remote", s) for s in shared]

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        if args[-1] in self.lose:
            fut.set_exception(KilledWorker("gone"))
        else:
            fut.set_result(fn(*args))
        return fut


def test_a_cluster_receives_shared_arguments_once_through_scatter() -> None:
    cluster = _LosingCluster(set())
    seen: list[Any] = []
    run_chunks(lambda lead, x: (lead, x), [1, 2, 3], lambda t: (t,),
               lambda t, r: seen.append(r), inline=False, executor=cluster,  # type: ignore
               shared=("P",))
    assert cluster.scattered == [("P",)]
    assert sorted(seen) == [(("remote", "P"), 1), (("remote", "P"), 2), (("remote", "P"), 3)]


def test_a_cluster_that_loses_work_names_what_is_missing() -> None:
    cluster = _LosingCluster({2})
    recorded: list[int] = []
    with pytest.raises(RunFailure) as info:
        run_chunks(lambda x: x, [0, 1, 2, 3], lambda t: (t,), lambda t, r: recorded.append(t),
                   inline=False, executor=cluster, describe=lambda t: f"k={t}")  # type: ignore
    msg = str(info.value)
    assert msg.startswith("a cluster worker died while running a chunk")
    assert "k=2" in msg and 2 not in recorded
    # every chunk not recorded is named, no recorded one is; the count agrees
    missing = [t for t in range(4) if t not in recorded]
    assert info.value.missing == len(missing)
    assert msg.endswith("missing: " + "; ".join(f"k={t}" for t in missing))
    assert f"{len(recorded)} of 4 chunks finished" in msg


@pytest.mark.parametrize("exc, words", [
    (KilledWorker("x"), "a cluster worker died"),
    (ConnectionError("x"), "connection to the dask scheduler was lost (ConnectionError)"),
    (TimeoutError("x"), "(TimeoutError)"),
    (type("CommClosedError", (Exception,), {})("x"), "(CommClosedError)"),
])
def test_lost_work_is_told_from_a_chunks_own_error(exc: BaseException, words: str) -> None:
    lost = _lost_work(exc)
    assert lost is not None and words in lost
    assert _lost_work(ValueError("a bug in the chunk")) is None


def test_missing_text_lists_at_most_six_chunks() -> None:
    tasks = list(range(10))
    text = _missing_text("it failed", tasks, tasks[2:], lambda t: f"#{t}")
    assert text == ("it failed: 2 of 10 chunks finished, missing: #2; #3; #4; #5; #6; #7; "
                    "and 2 more")
    assert _missing_text("x", [1], [1], str) == "x: 0 of 1 chunks finished, missing: 1"
