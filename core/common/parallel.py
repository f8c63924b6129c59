"""The one chunked executor loop of the experiments (sweep, logistics benchmark, advising).

Every experiment splits its runs into chunks (tasks), runs ``fn(*args)`` per chunk either
inline or on a process pool, and folds each result into its arrays on the caller's thread
as it arrives (the fold reports progress, which may raise
:class:`core.common.progress.Cancelled`). :func:`run_chunks` does that once:

* on any exception (cancelled, interrupted, or a worker's error) every pending chunk is
  cancelled and a pool it created is shut down without waiting, then the exception
  propagates;
* after success a pool it created is joined (every job is done, so this only waits for
  the worker processes to exit); a pool passed in stays open for the caller.

Pools use the "spawn" start method, which keeps children free of the parent's threads
(the GUI runs experiments from a worker thread).

Examples
--------
>>> seen = []
>>> run_chunks(pow, [(2, 3), (3, 2)], lambda t: t, lambda t, r: seen.append((t, r)),
...            inline=True)
>>> seen
[((2, 3), 8), ((3, 2), 9)]
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from core.common.errors import RunFailure
from core.common.shm import SharedArrays
from core.common.shm import load as load_shared

__all__ = ["default_executor", "run_chunks", "POLL_S"]

POLL_S = 0.2  # seconds between two ``poll`` calls while waiting for a pool

T = TypeVar("T")

# The large read-only arguments of one run_chunks call, installed once in each worker
# process of the pool it makes (see ``shared`` in run_chunks).
_SHARED: tuple[Any, ...] = ()


def _install_shared(payload: bytes) -> None:
    global _SHARED
    _SHARED = load_shared(payload)


def _call_shared(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*_SHARED, *args)


def default_executor(workers: int, shared: bytes = b"") -> Executor:
    """A process pool of ``workers`` processes with the "spawn" start method.

    Parameters
    ----------
    workers : int
        Number of processes.
    shared : bytes
        :meth:`core.common.shm.SharedArrays.dumps` of the objects each process receives
        once, when it starts (:func:`run_chunks`).

    Returns
    -------
    Executor
        The pool (the caller shuts it down).
    """
    ctx = multiprocessing.get_context("spawn")
    if not shared:
        return ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                               initializer=_install_shared,
                               initargs=(shared,))


def run_chunks(fn: Callable[..., Any], tasks: Sequence[T], args: Callable[[T], tuple[Any, ...]],
               record: Callable[[T, Any], None], *, inline: bool,
               executor: Executor | None = None, workers: int = 1,
               shared: tuple[Any, ...] = (), describe: Callable[[T], str] = repr,
               poll: Callable[[], None] | None = None) -> None:
    """Run ``fn(*shared, *args(task))`` for every task and ``record(task, result)`` as results
    arrive.

    Parameters
    ----------
    fn : callable
        The chunk function (a module-level function when it runs in a process pool).
    tasks : sequence
        The chunks, in submission order.
    args : callable
        ``args(task)`` gives the positional arguments of ``fn`` for one chunk (after
        ``shared``).
    record : callable
        Called on the caller's thread with each chunk and its result (in completion order
        on a pool, in task order inline); it may raise to stop everything.
    inline : bool
        Run in this process, one chunk after the other (no pool).
    executor : Executor, optional
        A pool to use (left open); by default one of ``workers`` processes is made. An
        executor with a ``scatter`` method (:class:`core.common.cluster.ClusterExecutor`)
        receives ``shared`` once per worker through it.
    workers : int
        Processes of the default pool.
    shared : tuple
        Large read-only leading arguments of every chunk (a model's P): the default pool
        sends them to each process once, when it starts, with their large arrays in shared
        memory (mapped by every worker, not copied); a cluster receives them once per
        worker; they are never pickled with every chunk.
    describe : callable
        ``describe(task)``: how a chunk is named when it is missing from a failed run.
    poll : callable, optional
        Called on the caller's thread every :data:`POLL_S` seconds while it waits for a
        pool; it may raise (:class:`core.common.progress.Cancelled`) to stop everything
        without waiting for a running chunk: the default pool's processes are then ended.

    Raises
    ------
    RunFailure
        A worker process died, twice (the default pool is restarted once for the chunks
        it had not finished), or the cluster lost the work; the message names the chunks
        that are missing. The chunks already recorded stay recorded.
    """
    if inline:
        for task in tasks:
            record(task, fn(*shared, *args(task)))
        return
    if executor is not None:
        _run_on(executor, fn, tasks, args, record, shared, describe, own=False, poll=poll)
        return
    pending = list(tasks)
    done: set[int] = set()  # ids of the recorded chunks, over both attempts

    def fold(task: T, result: Any) -> None:
        record(task, result)
        done.add(id(task))

    # the shared objects' large arrays go to shared memory: every worker maps the same
    # pages instead of unpickling its own copy (core.common.shm)
    with SharedArrays() as arrays:
        payload = arrays.dumps(shared) if shared else b""
        for attempt in (1, 2):
            # never more processes than chunks or CPUs: each one starts an interpreter
            # (seconds), so --workers 1000 on two chunks spent minutes starting idle ones
            n = max(1, min(int(workers), len(pending), os.cpu_count() or 1))
            ex = default_executor(n, payload)
            try:
                _run_on(ex, fn, pending, args, fold, (), describe, own=True,
                        via_shared=bool(shared), poll=poll)
                return
            except BrokenProcessPool as exc:
                pending = [t for t in pending if id(t) not in done]
                if attempt == 2:
                    raise RunFailure(_missing_text("a worker process died twice", tasks,
                                                   pending, describe),
                                     missing=len(pending)) from exc


def _run_on(ex: Executor, fn: Callable[..., Any], tasks: Sequence[T],
            args: Callable[[T], tuple[Any, ...]], record: Callable[[T, Any], None],
            shared: tuple[Any, ...], describe: Callable[[T], str], *, own: bool,
            via_shared: bool = False, poll: Callable[[], None] | None = None) -> None:
    """Submit every task to ``ex`` and fold the results; ``own``: shut ``ex`` down."""
    lead: tuple[Any, ...] = shared
    scatter = getattr(ex, "scatter", None)
    if shared and scatter is not None:
        lead = tuple(scatter(shared))  # once per cluster worker
    jobs: dict[Future[Any], T] = {}
    recorded: set[int] = set()
    try:
        for task in tasks:
            if via_shared:
                jobs[ex.submit(_call_shared, fn, *args(task))] = task
            else:
                jobs[ex.submit(fn, *lead, *args(task))] = task
        for fut in _completed(jobs, poll):
            try:
                result = fut.result()
            except BrokenProcessPool:
                raise
            except Exception as exc:  # a cluster that lost the work: name what is missing
                lost = _lost_work(exc)
                if lost is None:
                    raise
                missing = [t for t in tasks if id(t) not in recorded]
                raise RunFailure(_missing_text(lost, tasks, missing, describe),
                                 missing=len(missing)) from exc
            record(jobs[fut], result)
            recorded.add(id(jobs[fut]))
    except BaseException:  # Cancelled, KeyboardInterrupt or a worker's error: stop all
        for fut in jobs:
            fut.cancel()
        if own:
            ex.shutdown(wait=False, cancel_futures=True)
            _end_processes(ex)  # a running chunk would go on for as long as it takes
        raise
    if own:
        ex.shutdown(wait=True)  # every job is done: this only joins the workers


def _completed(jobs: dict[Future[Any], Any], poll: Callable[[], None] | None
               ) -> Any:
    """The futures of ``jobs`` as they complete (like ``as_completed``), calling ``poll``
    every :data:`POLL_S` seconds while none does."""
    pending = set(jobs)
    while pending:
        if poll is not None:
            poll()
        done, pending = wait(pending, timeout=POLL_S if poll is not None else None,
                             return_when=FIRST_COMPLETED)
        yield from done


def _end_processes(ex: Executor) -> None:
    """End the worker processes of a process pool that was shut down without waiting."""
    processes = getattr(ex, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()


def _lost_work(exc: BaseException) -> str | None:
    """Why a cluster lost a chunk, or None when ``exc`` is the chunk's own error."""
    name = type(exc).__name__
    if name == "KilledWorker":
        return "a cluster worker died while running a chunk (dask gave up after its retries)"
    if name in ("CommClosedError", "CancelledError", "FutureCancelledError") or isinstance(
            exc, (ConnectionError, TimeoutError)):
        return f"the connection to the dask scheduler was lost ({name})"
    return None


def _missing_text(what: str, tasks: Sequence[T], missing: Sequence[T],
                  describe: Callable[[T], str]) -> str:
    names = [describe(t) for t in missing]
    shown = "; ".join(names[:6]) + (f"; and {len(names) - 6} more" if len(names) > 6 else "")
    return (f"{what}: {len(tasks) - len(missing)} of {len(tasks)} chunks finished, missing: "
            f"{shown}")
