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
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

__all__ = ["default_executor", "run_chunks"]

T = TypeVar("T")


def default_executor(workers: int) -> Executor:
    """A process pool of ``workers`` processes with the "spawn" start method.

    Parameters
    ----------
    workers : int
        Number of processes.

    Returns
    -------
    Executor
        The pool (the caller shuts it down).
    """
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def run_chunks(fn: Callable[..., Any], tasks: Sequence[T], args: Callable[[T], tuple[Any, ...]],
               record: Callable[[T, Any], None], *, inline: bool,
               executor: Executor | None = None, workers: int = 1) -> None:
    """Run ``fn(*args(task))`` for every task and ``record(task, result)`` as results arrive.

    Parameters
    ----------
    fn : callable
        The chunk function (a module-level function when it runs in a process pool).
    tasks : sequence
        The chunks, in submission order.
    args : callable
        ``args(task)`` gives the positional arguments of ``fn`` for one chunk.
    record : callable
        Called on the caller's thread with each chunk and its result (in completion order
        on a pool, in task order inline); it may raise to stop everything.
    inline : bool
        Run in this process, one chunk after the other (no pool).
    executor : Executor, optional
        A pool to use (left open); by default one of ``workers`` processes is made.
    workers : int
        Processes of the default pool.
    """
    if inline:
        for task in tasks:
            record(task, fn(*args(task)))
        return
    ex = executor if executor is not None else default_executor(workers)
    jobs: dict[Future[Any], T] = {}
    try:
        for task in tasks:
            jobs[ex.submit(fn, *args(task))] = task
        for fut in as_completed(jobs):
            record(jobs[fut], fut.result())
    except BaseException:  # Cancelled, KeyboardInterrupt or a worker's error: stop all
        for fut in jobs:
            fut.cancel()
        if executor is None:
            ex.shutdown(wait=False, cancel_futures=True)
        raise
    if executor is None:
        ex.shutdown(wait=True)  # every job is done: this only joins the workers
