"""Running experiments on a dask.distributed cluster (the optional ``cluster`` extra).

Every long experiment (MDP sweeps, the logistics benchmarks B1–B5, advising experiments)
runs its chunks through :func:`core.common.parallel.run_chunks`, which takes any
:class:`concurrent.futures.Executor`. :func:`cluster_executor` connects to a dask scheduler
and gives such an executor; the model is scattered to every worker once
(:meth:`ClusterExecutor.scatter`). Without a scheduler the embedded default stays the
local process pool; the frozen (PyInstaller) app always uses it.

Results do not depend on the backend: every chunk seeds its own generator from the
experiment seed and its position (``SeedSequence(seed, spawn_key=...)``) and the caller
puts each result at its index, so a cluster of any size gives the numbers of the process
pool bit for bit (tested against a real ``LocalCluster``).

The scheduler address comes from ``--scheduler tcp://HOST:PORT`` or, when the flag is
absent, the environment variable ``DASK_SCHEDULER_ADDRESS`` (:func:`scheduler_address`).

Examples
--------
>>> scheduler_address(None, environ={})  # no flag, no variable: the local process pool
>>> scheduler_address(None, environ={"DASK_SCHEDULER_ADDRESS": "tcp://10.0.0.5:8786"})
'tcp://10.0.0.5:8786'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from typing import Any

from core.common.errors import InputError

__all__ = ["SCHEDULER_ENV", "CONNECT_TIMEOUT_S", "ClusterExecutor", "cluster_executor",
           "scheduler_address", "check_address", "cluster_available", "run_on_scheduler",
           "check_scheduler"]

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
#: How long connecting to a scheduler may take before the run is refused (seconds).
CONNECT_TIMEOUT_S = 10.0

_ADDRESS = re.compile(r"^(tcp|tls|inproc|ws|wss)://[^\s/]+(:\d{1,5})?/?$")


def cluster_available() -> bool:
    """Whether dask.distributed is installed (the ``cluster`` extra)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def scheduler_address(flag: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The scheduler to use: ``flag`` if given, else ``$DASK_SCHEDULER_ADDRESS``, else None.

    Parameters
    ----------
    flag : str or None
        The ``--scheduler`` value.
    environ : mapping, optional
        The environment (default ``os.environ``).

    Returns
    -------
    str or None
        The address, or None for the local process pool.
    """
    env = os.environ if environ is None else environ
    value = flag if flag else env.get(SCHEDULER_ENV, "")
    return value.strip() or None


def check_address(address: str, field: str = "scheduler") -> str:
    """``address`` if it looks like a scheduler address (``tcp://HOST:PORT``), else InputError.

    Parameters
    ----------
    address : str
        The address.
    field : str
        The field named in the error.

    Returns
    -------
    str
        The address, stripped.

    Examples
    --------
    >>> check_address(" tcp://127.0.0.1:8786 ")
    'tcp://127.0.0.1:8786'
    >>> check_address("localhost")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: scheduler: 'localhost' is not a scheduler address ...
    """
    a = str(address).strip()
    if not _ADDRESS.match(a):
        raise InputError(f"{a!r} is not a scheduler address (expected tcp://HOST:PORT, e.g. "
                         "tcp://10.0.0.5:8786)", field=field)
    return a


class ClusterExecutor(Executor):
    """A :class:`concurrent.futures.Executor` over a dask ``Client``.

    ``submit`` runs a task on the cluster (not pure: seeded tasks are never deduplicated);
    :meth:`scatter` sends large read-only objects to every worker once and returns
    handles that ``submit`` accepts in their place.
    """

    def __init__(self, client: Any):
        self.client = client
        self._inner = client.get_executor(pure=False)

    @property
    def address(self) -> str:
        return str(self.client.scheduler.address)

    @property
    def n_workers(self) -> int:
        """Worker threads of the cluster right now (at least 1)."""
        info = self.client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = self._inner.submit(fn, *args, **kwargs)
        return future

    def scatter(self, objects: tuple[Any, ...]) -> list[Any]:
        """Send ``objects`` to every worker once; returns futures to pass to ``submit``."""
        return list(self.client.scatter(list(objects), broadcast=True, hash=False))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._inner.shutdown(wait=wait)


@contextmanager
def cluster_executor(address: str, *, timeout: float = CONNECT_TIMEOUT_S,
                     field: str = "scheduler") -> Iterator[ClusterExecutor]:
    """Connect to the dask scheduler at ``address`` for the duration of a ``with`` block.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``.
    timeout : float
        Seconds to wait for the connection.
    field : str
        The field named in errors (the CLI passes ``--scheduler``).

    Yields
    ------
    ClusterExecutor

    Raises
    ------
    InputError
        dask.distributed is not installed, the address is malformed, or no scheduler
        answers there within ``timeout`` (one line, naming the address).
    """
    address = check_address(address, field)
    try:
        from distributed import Client
    except ImportError:
        raise InputError("running on a cluster needs dask.distributed: install the optional "
                         "extra with  pip install 'privplan[cluster]'", field=field) from None
    try:
        client = Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"no dask scheduler answered at {address} within {timeout:g} s "
                         f"({type(exc).__name__}); is it running, and is the port open?",
                         field=field) from None
    try:
        yield ClusterExecutor(client)
    finally:
        client.close()


def run_on_scheduler(fn: Callable[..., Any], address: str, /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, executor=…, workers=…, **kwargs)`` on the cluster at ``address``.

    The GUI wraps its long runs with it when Settings ▸ Computing names a scheduler; the
    connection is made in the worker thread (the window stays responsive) and closed
    afterwards.

    Parameters
    ----------
    fn : callable
        An experiment taking ``executor`` and ``workers`` (``privacy_sweep``,
        ``run_benchmark``, ``run_experiment``).
    address : str
        ``tcp://HOST:PORT``.
    *args, **kwargs
        Passed on to ``fn`` (``workers`` is replaced by the cluster's thread count).

    Returns
    -------
    Any
        What ``fn`` returns.
    """
    with cluster_executor(address) as ex:
        kwargs["executor"] = ex
        kwargs["workers"] = ex.n_workers
        return fn(*args, **kwargs)


def check_scheduler(address: str, *, timeout: float = 5.0, progress: Any = None) -> str:
    """Connect to ``address`` and describe the cluster in one line (Settings' "Test").

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``.
    timeout : float
        Seconds to wait.
    progress : callable, optional
        Ignored (the GUI's task runner passes one).

    Returns
    -------
    str
        For example ``"tcp://10.0.0.5:8786: 4 workers, 8 threads"``.
    """
    with cluster_executor(address, timeout=timeout) as ex:
        info = ex.client.scheduler_info()
        workers = info.get("workers", {})
        return f"{ex.address}: {len(workers)} workers, {ex.n_workers} threads"
