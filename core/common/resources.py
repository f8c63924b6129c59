"""The one resource guard: what an input declares and a flag implies, checked before the work.

Size: the one resource guard by design (memory, time, regular files, NPZ archives): every loader
asks this module, so each limit is stated and enforced in one place.

Every loader and every command asks this module before it allocates or loops:

* **memory** — :func:`memory_budget` is what this process may really use now: the smallest
  of ``PRIVPLAN_MEMORY_MB``, half the physical memory, the memory the kernel reports
  available (``MemAvailable``), the cgroup's limit minus its usage (containers) and the
  address-space limit (``RLIMIT_AS``, ``ulimit -v``) minus the address space already mapped.
  :func:`check_memory` refuses an estimate above it (an :class:`InputError` naming the field,
  the estimate and the limit that binds);
* **time** — :func:`check_time` refuses work whose estimated duration (an iteration count
  derived from the inputs — value iteration at a discount near 1, a horizon, a grid size —
  times a measured cost per iteration) passes ``PRIVPLAN_TIME_LIMIT_S`` (default
  :data:`DEFAULT_TIME_LIMIT_S`), naming the estimate and the limit;
* **files** — :func:`open_regular` opens an input only if it is a regular file: a FIFO,
  ``/dev/zero``, ``/dev/urandom``, a socket or a folder is refused before a byte is read
  (a FIFO is opened non-blocking, so even its opening cannot hang); :func:`read_bytes`
  reads at most a stated number of bytes;
* **NPZ archives** — :func:`npz_inventory` reads the zip directory and every ``.npy`` header
  (shape, dtype) without decompressing any data, refuses forged headers (an array larger
  than its member), object arrays and archives whose arrays do not fit; :func:`load_npz`
  then loads them with every decoding failure (``zlib.error``, a bad CRC, a truncated
  member) turned into an :class:`InputError` naming the file.

A failure *during* the work that no estimate could foresee (the kernel refusing memory that
looked free, a full disk) is a :class:`ResourceFailure`: the command line exits 3 with one
line.

Examples
--------
>>> check_memory(8 * 1000, "P", detail="1,000 float64 values")
>>> try:
...     check_time(86400.0 * 30, "discount", detail="7.8e13 value-iteration sweeps")
... except InputError as exc:
...     print(exc.problem.split(";")[0])
7.8e13 value-iteration sweeps: about 30 days of computation
>>> format_duration(5400)
'1.5 h'
"""

from __future__ import annotations

import math
import os
import re
import resource
import stat
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError, RunFailure

if TYPE_CHECKING:
    from core.common.progress import Progress

__all__ = ["ResourceFailure", "DEFAULT_TIME_LIMIT_S", "MODEL_MEMORY_FACTOR", "memory_limits",
           "memory_budget",
           "check_memory", "format_bytes", "time_limit_s", "check_time", "format_duration",
           "open_regular", "read_bytes", "NpyInfo", "npz_inventory", "load_npz",
           "check_count", "check_model_memory", "SWEEP_COST", "sweep_seconds"]

#: Default limit of one estimated computation, in seconds (``PRIVPLAN_TIME_LIMIT_S``).
DEFAULT_TIME_LIMIT_S = 300.0
#: Memory a dense model takes per byte of its transition array P, from file to result: the
#: array read, its float64 copy, the validated model, the algorithms' work arrays (measured
#: 3.8x for ``bounds`` and ``sweep`` on 2,000 x 4 x 2,000 models).
MODEL_MEMORY_FACTOR = 5.0


class ResourceFailure(RunFailure):
    """The machine could not give what the work needed although the estimate fitted (memory
    refused, a disk full). The command line exits 3 with ``str(err)``, one line."""


# ----------------------------------------------------------------------------- memory
def _env_float(name: str) -> float | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) and x > 0 else None


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read(64).strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _stat_value(path: str, key: str) -> int:
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _cgroup_room() -> int | None:
    """The cgroup's memory limit minus what the group uses (reclaimable cache not counted)."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    best: int | None = None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        if controllers == "":  # cgroup v2
            roots = ["/sys/fs/cgroup" + rel.rstrip("/"), "/sys/fs/cgroup"]
            files = ("memory.max", "memory.current", "inactive_file")
        elif "memory" in controllers.split(","):  # cgroup v1
            roots = ["/sys/fs/cgroup/memory" + rel.rstrip("/"), "/sys/fs/cgroup/memory"]
            files = ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
        else:
            continue
        for root in dict.fromkeys(roots):
            limit = _read_int(os.path.join(root, files[0]))
            if limit is None or limit >= 2**60:  # no limit at this level
                continue
            used = _read_int(os.path.join(root, files[1])) or 0
            cache = _stat_value(os.path.join(root, "memory.stat"), files[2])
            room = max(0, limit - max(0, used - cache))
            best = room if best is None else min(best, room)
    return best


def _meminfo(key: str) -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _mapped_bytes() -> int:
    """The address space this process has mapped now (VmSize), 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            m = re.search(r"^VmSize:\s+(\d+) kB", fh.read(), re.M)
        return int(m.group(1)) * 1024 if m else 0
    except (OSError, ValueError):
        return 0


def memory_limits() -> dict[str, int]:
    """Every limit on this process's memory that is known here, in bytes.

    Returns
    -------
    dict
        Some of ``"PRIVPLAN_MEMORY_MB"``, ``"half the physical memory"``, ``"available
        memory"`` (MemAvailable), ``"cgroup limit"`` (limit − usage) and ``"address-space
        limit"`` (RLIMIT_AS − mapped); each value is what is left under that limit.
    """
    out: dict[str, int] = {}
    env = _env_float("PRIVPLAN_MEMORY_MB")
    if env is not None:
        out["PRIVPLAN_MEMORY_MB"] = max(1, int(env)) * 2**20
    try:
        out["half the physical memory"] = int(os.sysconf("SC_PHYS_PAGES")
                                              * os.sysconf("SC_PAGE_SIZE")) // 2
    except (ValueError, OSError, AttributeError):
        out["half the physical memory"] = 4 * 2**30
    avail = _meminfo("MemAvailable")
    if avail is not None:
        out["available memory"] = avail
    room = _cgroup_room()
    if room is not None:
        out["cgroup limit"] = room
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ValueError, OSError):
        soft = resource.RLIM_INFINITY
    if soft != resource.RLIM_INFINITY and soft > 0:
        out["address-space limit"] = max(0, int(soft) - _mapped_bytes())
    return out


def memory_budget() -> int:
    """The most memory one computation may ask for now, in bytes (the smallest limit).

    Returns
    -------
    int
        See :func:`memory_limits`.
    """
    return max(1, min(memory_limits().values()))


def format_bytes(n: float) -> str:
    """``n`` bytes in binary units ("1.5 GiB").

    Parameters
    ----------
    n : float
        A number of bytes.

    Returns
    -------
    str
        The size with one decimal.

    Examples
    --------
    >>> format_bytes(1536), format_bytes(3 * 2**30), format_bytes(float("nan"))
    ('1.5 KiB', '3.0 GiB', 'unknown')
    """
    if not math.isfinite(n):  # an estimate that could not be made (NaN) is not a size
        return "unknown"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"


def check_memory(nbytes: float, field: str, *, detail: str = "") -> None:
    """Raise InputError on ``field`` if ``nbytes`` exceeds :func:`memory_budget`.

    Parameters
    ----------
    nbytes : float
        The estimate (may exceed any integer type: pass a float for products of sizes).
    field : str
        The input that asked for it (``"P"``, ``"horizon"``, ``"--samples"``).
    detail : str
        What was asked for, e.g. ``"S x A x S = 8000 x 4 x 8000"``.
    """
    if not (nbytes >= 0):  # NaN: a size that cannot be estimated is refused as well
        nbytes = math.inf
    limits = memory_limits()
    which = min(limits, key=lambda k: limits[k])
    budget = max(1, limits[which])
    if nbytes > budget:
        what = detail or "this"
        need = (f"{format_bytes(nbytes)} of memory" if math.isfinite(nbytes)
                else "an unknown amount of memory (the estimate is not a number)")
        raise InputError(f"{what} needs {need}; this machine allows {format_bytes(budget)} "
                         f"({which})", field=field)


def check_model_memory(states: int, actions: int, field: str) -> None:
    """Refuse a dense model of ``states`` x ``actions`` x ``states`` whose arrays (times
    :data:`MODEL_MEMORY_FACTOR`) would not fit — from the counts a file declares, before any
    array is built.

    Parameters
    ----------
    states, actions : int
        S and the largest number of actions of a state.
    field : str
        The field that declares them (``"states"``).
    """
    S, A = float(states), float(max(actions, 1))
    check_memory(MODEL_MEMORY_FACTOR * 8.0 * S * A * S, field,
                 detail=f"a model of {states:,} states x {max(actions, 1):,} actions "
                        "(dense S x A x S arrays)")


def check_count(value: Any, field: str, *, low: int = 1, high: int | None = None,
                bytes_each: float = 0.0, what: str = "") -> int:
    """An integer count flag (``--samples``, ``--runs``, ``--size``): in ``[low, high]`` and,
    with ``bytes_each``, its memory within :func:`memory_budget`.

    Parameters
    ----------
    value : Any
        The value given.
    field : str
        The flag.
    low, high : int
        The documented range (``high`` None: memory alone bounds it).
    bytes_each : float
        Bytes the work keeps per unit of the count (0: not checked).
    what : str
        What one unit is, for the message ("samples per side").

    Returns
    -------
    int
        The count.

    Examples
    --------
    >>> check_count(10, "--runs", high=100)
    10
    >>> try:
    ...     check_count(0, "--runs")
    ... except InputError as exc:
    ...     print(exc)
    --runs: must be an integer >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"must be an integer, got {value!r}", field=field)
    n = int(value)
    if n < low or (high is not None and n > high):
        rng = f">= {low}" if high is None else f"in [{low}, {high:,}]"
        raise InputError(f"must be an integer {rng}, got {n}", field=field)
    if bytes_each > 0:
        check_memory(float(n) * bytes_each, field,
                     detail=f"{n:,} {what or field.lstrip('-')}")
    return n


# ----------------------------------------------------------------------------- time
def time_limit_s() -> float:
    """The longest estimated computation accepted, in seconds.

    Returns
    -------
    float
        ``PRIVPLAN_TIME_LIMIT_S`` if set (a positive number), else
        :data:`DEFAULT_TIME_LIMIT_S`.
    """
    env = _env_float("PRIVPLAN_TIME_LIMIT_S")
    return env if env is not None else DEFAULT_TIME_LIMIT_S


def format_duration(seconds: float) -> str:
    """A duration in the largest sensible unit ("90 s", "1.5 h", "3e+06 years").

    Parameters
    ----------
    seconds : float
        The duration.

    Returns
    -------
    str
    """
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400.0), ("h", 3600.0),
                       ("min", 60.0)):
        if seconds >= size * (1.5 if unit != "years" else 1.0):
            x = seconds / size
            return f"{x:.2g} {unit}" if x >= 1e4 else f"{x:.3g} {unit}"
    return f"{seconds:.3g} s"


#: Measured cost of one dynamic-programming sweep over a model (seconds): a fixed overhead
#: plus a cost per entry of P (S·A·S), for plain value iteration / backward induction
#: ("plain") and for the robust bounds' inner problem ("robust"); 2-5x the times measured on
#: a 2-core machine (a loaded one measured 3e-4 s per robust stage), so that a slower machine
#: is refused rather than kept busy.
SWEEP_COST = {"plain": (2e-5, 1e-9), "robust": (4e-4, 4e-9)}


def sweep_seconds(sweeps: float, entries: float, kind: str = "plain") -> float:
    """Estimated seconds of ``sweeps`` dynamic-programming sweeps over ``entries`` entries.

    Parameters
    ----------
    sweeps : float
        Iterations or stages.
    entries : float
        Entries of P each sweep reads (S·A·S for a dense model).
    kind : {"plain", "robust"}
        Which :data:`SWEEP_COST`.

    Returns
    -------
    float
    """
    overhead, per_entry = SWEEP_COST[kind]
    return float(sweeps) * (overhead + per_entry * float(entries))


def check_time(seconds: float, field: str, *, detail: str) -> None:
    """Refuse work whose estimated duration passes :func:`time_limit_s`.

    Parameters
    ----------
    seconds : float
        The estimate (iterations × measured seconds per iteration).
    field : str
        The input or flag that implies the work (``"discount"``, ``"horizon"``, ``"--size"``).
    detail : str
        What the work is, with its size ("7.8e13 value-iteration sweeps").

    Raises
    ------
    InputError
        One line naming the estimate and the limit.
    """
    if not (seconds >= 0):
        seconds = math.inf
    limit = time_limit_s()
    if seconds > limit:
        raise InputError(f"{detail}: about {format_duration(seconds)} of computation; the "
                         f"limit of one computation is {format_duration(limit)} "
                         "(PRIVPLAN_TIME_LIMIT_S)", field=field)


# ----------------------------------------------------------------------------- files
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> str | None:
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def open_regular(path: str | os.PathLike[str], *, field: str | None = None) -> IO[bytes]:
    """Open ``path`` for reading if (and only if) it is a regular file.

    The file is opened non-blocking (so opening a FIFO returns at once), checked with
    ``fstat`` on the open descriptor (no race with a rename), and switched back to blocking.

    Parameters
    ----------
    path : str or PathLike
        The input.
    field : str, optional
        The flag or field that named it.

    Returns
    -------
    binary file object

    Raises
    ------
    InputError
        Naming the file: missing, unreadable, a folder, a FIFO, a device or a socket.
    """
    p = os.fspath(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("file not found", field=field, file=str(p)) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", field=field, file=str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", field=field,
                         file=str(p)) from None
    try:
        kind = _not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, not a file: only regular files are read",
                             field=field, file=str(p))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], *, max_bytes: int, what: str = "file",
               field: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (checked before reading, and
    again while reading, in case the file grows).

    Parameters
    ----------
    path : str or PathLike
        The input.
    max_bytes : int
        The largest size accepted.
    what : str
        What kind of file, for the message ("JSON file", "CSV file").
    field : str, optional
        The flag or field that named it.

    Returns
    -------
    bytes
    """
    p = os.fspath(path)
    with open_regular(p, field=field) as fh:
        size = os.fstat(fh.fileno()).st_size
        too_big = InputError(f"is {format_bytes(max(size, max_bytes + 1))}; a {what} of at most "
                             f"{format_bytes(max_bytes)} is read", field=field, file=str(p))
        if size > max_bytes:
            raise too_big
        check_memory(float(size), field or "file", detail=f"reading {format_bytes(size)}")
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(f"cannot read file ({exc.strerror or exc})", field=field,
                             file=str(p)) from None
    if len(data) > max_bytes:
        raise too_big
    return data


# ----------------------------------------------------------------------------- NPZ
@dataclass(frozen=True)
class NpyInfo:
    """What one array of an NPZ declares in its header (nothing decompressed)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    nbytes: float  # declared size of the data (a float: products may be huge)
    stored: int  # the member's uncompressed size in the archive's directory

    def describe(self) -> str:
        dims = " x ".join(f"{x:,}" for x in self.shape) or "a scalar"
        return f"{dims} {self.dtype}"


def npz_inventory(path: str | os.PathLike[str], *, field: str = "arrays",
                  factor: float = 1.0) -> dict[str, NpyInfo]:
    """The shape and dtype every array of an NPZ declares, read without decompressing data.

    Parameters
    ----------
    path : str or PathLike
        The ``.npz`` file (a regular file: see :func:`open_regular`).
    field : str
        The field named when the arrays do not fit.
    factor : float
        How many copies of the arrays the work will hold (the estimate is
        ``factor × declared bytes``).

    Returns
    -------
    dict
        ``{name: NpyInfo}`` (names without ``.npy``).

    Raises
    ------
    InputError
        Not a zip archive, a damaged directory or header, an object array, an array declaring
        more bytes than its member holds (truncated or forged), or the arrays (× ``factor``)
        beyond :func:`memory_budget` — all before any data is decompressed.
    """
    # Imported here, not at start-up (tokenize alone costs a command 10 ms).
    import tokenize
    import zipfile
    import zlib

    p = os.fspath(path)
    out: dict[str, NpyInfo] = {}
    total = 0.0
    with open_regular(p) as raw:
        try:
            zf = zipfile.ZipFile(raw)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise InputError(f"not a readable NPZ archive ({exc})") from None
        with zf:
            infos = zf.infolist()
            if len(infos) > 64:
                raise InputError(f"holds {len(infos)} members; an MDP archive has at most 64")
            for info in infos:
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                try:
                    with zf.open(info) as fh:
                        version = np.lib.format.read_magic(fh)
                        if version == (1, 0):
                            shape, _fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                        else:
                            shape, _fortran, dtype = np.lib.format.read_array_header_2_0(fh)
                        header_len = fh.tell()
                except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError,
                        zlib.error, NotImplementedError, RuntimeError, SyntaxError,
                        tokenize.TokenError) as exc:  # numpy tokenizes the header's text
                    raise InputError(f"not a readable NPZ archive ({_short(exc)})",
                                     field=name) from None
                if dtype.hasobject:
                    raise InputError("holds Python objects; only numeric and text arrays are "
                                     "read", field=name)
                n = math.prod(float(x) for x in shape) if shape else 1.0
                nbytes = n * dtype.itemsize
                item = NpyInfo(tuple(int(x) for x in shape), dtype, nbytes, int(info.file_size))
                if info.file_size < header_len + nbytes:
                    raise InputError(f"declares {item.describe()} values "
                                     f"({format_bytes(nbytes)}) but holds "
                                     f"{format_bytes(info.file_size - header_len)}: the file "
                                     "is truncated or forged", field=name)
                total += nbytes
                out[name] = item
    if "P" in out:
        detail = f"P of {' x '.join(f'{x:,}' for x in out['P'].shape)}"
    else:
        detail = "the arrays"
    check_memory(total * factor, "P" if "P" in out else field, detail=detail)
    return out


#: An NPZ array larger than this is read in pieces of this size when a progress callback
#: is given, so a load can be cancelled between them.
_CHUNK_BYTES = 1 << 26
_READ_BYTES = 1 << 20


def _read_in_chunks(z: Any, name: str, report: Any) -> np.ndarray:
    """The array ``name`` of an open ``NpzFile``, read :data:`_CHUNK_BYTES` at a time with
    ``report(bytes read)`` after each piece (what ``z[name]`` returns, with the same errors
    for a short member: ValueError "EOF: …"; a bad CRC or deflate stream: zipfile's)."""
    with z.zip.open(name + ".npy") as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        count = math.prod(shape)
        arr = np.empty(count, dtype=dtype)
        view = arr.view(np.uint8).data if count else memoryview(bytearray())
        at = reported = 0
        step = min(_READ_BYTES, _CHUNK_BYTES)  # 1 MiB reads: a 64 MiB read page-faults a
        while at < view.nbytes:  # fresh buffer each time (a third slower at 10^6 states)
            got = fh.readinto(view[at:at + step])
            if not got:
                raise ValueError(f"EOF: reading array data, expected {view.nbytes} bytes got "
                                 f"{at}")
            at += got
            if at - reported >= _CHUNK_BYTES or at == view.nbytes:
                report(at)
                reported = at
        fh.read()  # to the member's end, where zipfile checks the CRC
    if fortran:
        return arr.reshape(shape[::-1]).transpose()
    return arr.reshape(shape)


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) < 160 else text[:157] + "..."


def load_npz(path: str | os.PathLike[str], *, field: str = "arrays", factor: float = 1.0,
             keys: tuple[str, ...] | None = None,
             progress: "Progress | None" = None) -> dict[str, np.ndarray]:
    """Every array of an NPZ (or only ``keys``), after :func:`npz_inventory` admitted them.

    Parameters
    ----------
    path : str or PathLike
        The ``.npz`` file.
    field : str
        The field named when the arrays do not fit.
    factor : float
        As in :func:`npz_inventory`.
    keys : tuple of str, optional
        Load only these arrays (others are left compressed).
    progress : core.common.progress.Progress, optional
        Called before each array with the share of the bytes read so far (it may raise
        :class:`core.common.progress.Cancelled`, which propagates).

    Returns
    -------
    dict
        ``{name: array}``, never with pickled objects.

    Raises
    ------
    InputError
        See :func:`npz_inventory`; also a damaged deflate stream, a bad CRC or a member that
        ends early, naming the array.
    ResourceFailure
        The kernel refused memory the estimate said was free.
    """
    import zipfile  # here, not at start-up, as in npz_inventory
    import zlib

    p = os.fspath(path)
    inv = npz_inventory(p, field=field, factor=factor)
    total = sum(item.nbytes for item in inv.values()) or 1.0
    done = 0.0
    out: dict[str, np.ndarray] = {}
    with open_regular(p) as raw:
        try:
            with np.load(raw, allow_pickle=False) as z:
                for name in z.files:
                    if keys is not None and name not in keys:
                        continue
                    size = inv[name].nbytes if name in inv else 0.0
                    if progress is not None:
                        progress(done / total, f"reading {name}")
                    try:
                        if progress is not None and size > _CHUNK_BYTES:
                            out[name] = _read_in_chunks(
                                z, name, lambda n, at=done, cb=progress, what=name: cb(
                                    (at + n) / total, f"reading {what}"))
                        else:
                            out[name] = z[name]
                        done += size
                    except MemoryError:
                        raise ResourceFailure(
                            f"{p}: {name}: out of memory while reading "
                            f"{format_bytes(inv[name].nbytes if name in inv else 0)}; "
                            "nothing was written") from None
                    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError,
                            zlib.error, RuntimeError) as exc:
                        raise InputError(f"not a readable NPZ archive ({_short(exc)}): the "
                                         "file is damaged", field=name) from None
        except InputError:  # a damaged member, named above (an InputError is a ValueError)
            raise
        except (OSError, ValueError, zipfile.BadZipFile, EOFError, zlib.error) as exc:
            raise InputError(f"not a readable NPZ archive ({_short(exc)})") from None
    return out
