"""Large read-only arrays shared by the worker processes of one pool, not copied into each.

A sweep of a 2000-state model sends the model (P, 128 MB) and its pre-processed rows
(another 128 MB) to every worker. :class:`SharedArrays` pickles those objects with every
numpy array of at least :data:`MIN_BYTES` moved into a POSIX shared-memory block; a worker
that unpickles them maps the block read-only instead of holding its own copy. The blocks
belong to the parent: they are unlinked when the ``with`` block ends (and by Python's
resource tracker if the parent dies).

Where ``/dev/shm`` is too small for the arrays (a container's default 64 MB), nothing is
moved: the objects are pickled whole, as before, so a worker never touches memory that is
not there (a write past a full tmpfs would kill it with SIGBUS).

Examples
--------
>>> import numpy as np
>>> with SharedArrays(min_bytes=8) as sa:
...     payload = sa.dumps({"P": np.arange(4.0)})
...     back = load(payload)
...     (back["P"].tolist(), back["P"].flags.writeable, sa.shared_bytes)
([0.0, 1.0, 2.0, 3.0], False, 32)
"""

from __future__ import annotations

import io
import os
import pickle
from multiprocessing import shared_memory
from typing import Any

import numpy as np

__all__ = ["MIN_BYTES", "SharedArrays", "load", "shm_free_bytes"]

#: Arrays at least this large are shared; smaller ones are cheaper to copy.
MIN_BYTES = 1 << 20

# The blocks this (worker) process has mapped: kept open for the life of the process.
_ATTACHED: list[shared_memory.SharedMemory] = []


def shm_free_bytes() -> int:
    """Free bytes of ``/dev/shm`` (0 where there is none, e.g. not Linux)."""
    try:
        st = os.statvfs("/dev/shm")
    except (OSError, AttributeError):
        return 0
    return int(st.f_bavail) * int(st.f_frsize)


def _attach(name: str, shape: tuple[int, ...], dtype: "np.dtype[Any] | str") -> np.ndarray:
    block = shared_memory.SharedMemory(name=name)
    _ATTACHED.append(block)
    arr: np.ndarray = np.ndarray(shape, dtype=np.dtype(dtype), buffer=block.buf)
    arr.flags.writeable = False
    return arr


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, owner: "SharedArrays") -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._owner = owner

    def reducer_override(self, obj: Any) -> Any:
        if (isinstance(obj, np.ndarray) and obj.nbytes >= self._owner.min_bytes
                and not obj.dtype.hasobject and self._owner.enabled):
            name = self._owner.put(obj)
            # the dtype itself, not its .str: a structured dtype's string ("|V12") has lost
            # its fields
            return _attach, (name, tuple(obj.shape), obj.dtype)
        return NotImplemented


class SharedArrays:
    """Owner of the shared blocks of one pool (a context manager).

    Parameters
    ----------
    min_bytes : int
        Arrays at least this large are shared.
    """

    def __init__(self, *, min_bytes: int = MIN_BYTES) -> None:
        self.min_bytes = int(min_bytes)
        self.enabled = True
        self._blocks: list[shared_memory.SharedMemory] = []

    @property
    def shared_bytes(self) -> int:
        """Bytes placed in shared memory so far."""
        return sum(b.size for b in self._blocks)

    def put(self, arr: np.ndarray) -> str:
        """Copy ``arr`` into a new block; returns the block's name."""
        block = shared_memory.SharedMemory(create=True, size=max(1, arr.nbytes))
        self._blocks.append(block)
        view: np.ndarray = np.ndarray(arr.shape, dtype=arr.dtype, buffer=block.buf)
        view[...] = arr
        return block.name

    def dumps(self, obj: Any) -> bytes:
        """Pickle ``obj`` with its large arrays in shared memory (or whole, when
        ``/dev/shm`` cannot hold them with a margin of a quarter)."""
        need = _large_bytes(obj, self.min_bytes)
        self.enabled = need > 0 and shm_free_bytes() > 1.25 * need
        buf = io.BytesIO()
        _Pickler(buf, self).dump(obj)
        return buf.getvalue()

    def close(self) -> None:
        """Unmap and remove every block (workers that still map one keep their mapping)."""
        for block in self._blocks:
            try:
                block.close()
                block.unlink()
            except (FileNotFoundError, OSError):
                pass
        self._blocks.clear()

    def __enter__(self) -> "SharedArrays":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load(payload: bytes) -> Any:
    """Unpickle what :meth:`SharedArrays.dumps` made (in a worker process).

    Parameters
    ----------
    payload : bytes
        The pickle.

    Returns
    -------
    Any
        The objects, with their large arrays mapped read-only from shared memory.
    """
    return pickle.loads(payload)


def _large_bytes(obj: Any, min_bytes: int) -> int:
    """Bytes of the arrays ``obj`` would share (found by a dry pickling pass)."""
    total = 0

    class _Count(pickle.Pickler):
        def reducer_override(self, o: Any) -> Any:
            nonlocal total
            if isinstance(o, np.ndarray) and o.nbytes >= min_bytes and not o.dtype.hasobject:
                total += o.nbytes
                return _attach, ("", (), "f8")  # a placeholder: the bytes are not written
            return NotImplemented

    _Count(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return total
