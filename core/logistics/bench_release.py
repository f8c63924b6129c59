"""The planning benchmark and the packet-routing study as user actions: parameters, one
entry point each.

``plan-bench B1|…|B5`` and the Logistics tab's Experiments page build a
:class:`BenchParameters` and call :func:`bench_release`; ``plan-bench --experiment
fig49|fig410|fig411`` and the Packet routing page build a :class:`PacketParameters` and
call :func:`packet_release`. Both record what they ran with
:func:`core.project.recording.bench_run_record` (kind ``plan-bench``) and
:func:`core.project.recording.packet_run_record` (kind ``plan-packet``). The two are two
actions, as the command spells them (a benchmark name, or ``--experiment``): their records
differ in kind, parameters and summary.

Each parameters object is checked once, when it is made, and every :class:`InputError`
names one of its fields: the benchmark's configuration by
:func:`core.logistics.experiments.benchmark_config`, the study's by
:func:`core.logistics.packet.packet_study` (its ``seeds`` is called ``worlds`` here, as the
record and the command call it), and here what those leave open (swept values that are
numbers the benchmark can run, at least one approach, the network size of a study).
Both are seeded experiments on generated worlds: nothing private is released, so neither
adds ledger entries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.common.errors import InputError
from core.common.jsonable import jsonable_dict
from core.common.progress import Cancelled, Progress, no_progress
from core.common.validation import (
    check_choice,
    check_int,
    check_record_params,
    check_seed,
)
from core.logistics.experiments import BenchConfig, BenchResult, benchmark_config

__all__ = ["BenchParameters", "bench_release", "PacketParameters", "PacketRelease",
           "packet_release", "BENCH_RECORD_KEYS", "PACKET_RECORD_KEYS"]

#: the keys of a ``plan-bench`` run record's ``params`` (``domain`` only off logistics)
BENCH_RECORD_KEYS = ("benchmark", "values", "approaches", "worlds", "seed", "workers",
                     "seeded", "domain")
#: the keys of a ``plan-packet`` run record's ``params`` (the seed is the record's own)
PACKET_RECORD_KEYS = ("experiment", "worlds", "values", "approaches", "dynamics_per",
                      "connectivity", "dynamics", "solver", "sizes", "workers", "seeded")

_SOLVERS = ("dijkstra", "rl")


def _floats(values: Any, name: str = "values") -> tuple[float, ...] | None:
    """None, or the swept values as finite floats (at least one)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InputError(f"must be a list of numbers, got {values!r}", field=name)
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"must be finite numbers, got {v!r}", field=name)
        out.append(float(v))
    if not out:
        raise InputError("needs at least one value", field=name)
    return tuple(out)


def _names(approaches: Any) -> tuple[str, ...] | None:
    """None, or the approaches as a tuple of at least one name."""
    if approaches is None:
        return None
    if isinstance(approaches, (str, bytes)) or not isinstance(approaches, Sequence):
        raise InputError(f"must be a list of approach names, got {approaches!r}",
                         field="approaches")
    if not approaches:
        raise InputError("needs at least one approach", field="approaches")
    return tuple(approaches)


def _check_swept(cfg: BenchConfig) -> None:
    """What the swept parameter can be: ε > 0, a network of N >= 2 whole centers."""
    if cfg.parameter == "epsilon" and any(v <= 0 for v in cfg.values):
        raise InputError(f"epsilon must be > 0 at every point, got {list(cfg.values)}",
                         field="values")
    if cfg.parameter == "n_centers" and any(v < 2 or v != int(v) for v in cfg.values):
        raise InputError(f"the network size N must be a whole number >= 2 at every point, "
                         f"got {list(cfg.values)}", field="values")


@dataclass(frozen=True)
class BenchParameters:
    """What one planning benchmark means (``plan-bench B1…B5``, the Experiments page's Run).

    ``benchmark`` is one of B1–B5; ``values`` and ``approaches`` replace the benchmark's own
    (None: the spec's); ``worlds`` per point; ``seed`` the experiment seed (None: drawn
    from the operating system and recorded); ``workers`` the processes (None: every CPU);
    ``domain`` the generator of the worlds (``logistics``, ``air`` or ``rover``).

    Examples
    --------
    >>> p = BenchParameters("B1", values=(0.5, 1.0), approaches=("dp",), worlds=2, seed=1)
    >>> BenchParameters.from_dict(p.to_dict()) == p, sorted(p.to_dict())[:3]
    (True, ['approaches', 'benchmark', 'seed'])
    >>> BenchParameters("B2", values=(1.5,))
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: values: the network size N must be a whole number >= 2 \
at every point, got [1.5]
    """

    benchmark: str
    values: tuple[float, ...] | None = None
    approaches: tuple[str, ...] | None = None
    worlds: int = 50
    seed: int | None = None
    workers: int | None = None
    domain: str = "logistics"

    def __post_init__(self) -> None:
        values = _floats(self.values)
        approaches = _names(self.approaches)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "approaches", approaches)
        _check_swept(self.config())  # the benchmark, approaches and domain by the config
        object.__setattr__(self, "worlds", check_int(self.worlds, "worlds"))
        object.__setattr__(self, "seed", check_seed(self.seed))
        if self.workers is not None:
            object.__setattr__(self, "workers", check_int(self.workers, "workers"))

    def config(self) -> BenchConfig:
        """The benchmark's configuration (:func:`~core.logistics.experiments.benchmark_config`
        with these values, approaches and domain)."""
        domain = {} if self.domain == "logistics" else {"domain": self.domain}
        return benchmark_config(self.benchmark, values=self.values,
                                approaches=self.approaches, **domain)

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON in the keys of a ``plan-bench`` run record's ``params``:
        ``benchmark``, ``values``, ``approaches``, ``worlds``, ``seed``, ``workers``,
        ``seeded``, and ``domain`` when the worlds are not logistics worlds."""
        d: dict[str, Any] = {
            "benchmark": self.benchmark,
            "values": None if self.values is None else list(self.values),
            "approaches": None if self.approaches is None else list(self.approaches),
            "worlds": self.worlds, "seed": self.seed, "workers": self.workers,
            "seeded": self.seed is not None}
        if self.domain != "logistics":
            d["domain"] = self.domain
        return jsonable_dict(d)

    @classmethod
    def from_dict(cls, data: Any) -> "BenchParameters":
        """The parameters of :meth:`to_dict` or of a ``plan-bench`` run record's ``params``
        (``benchmark`` required; ``seeded`` must agree with ``seed``)."""
        check_record_params(data, BENCH_RECORD_KEYS, "a benchmark's parameters",
                            required=("benchmark",))
        return cls(data["benchmark"], values=data.get("values"),
                   approaches=data.get("approaches"), worlds=data.get("worlds", 50),
                   seed=data.get("seed"), workers=data.get("workers"),
                   domain=data.get("domain", "logistics"))

    def record_params(self, result: BenchResult) -> dict[str, Any]:
        """What a run record keeps: :meth:`to_dict` with what the run used (the values and
        approaches of its configuration, its worlds and its seed, drawn or given)."""
        cfg = result.config
        ran = replace(self, values=tuple(cfg.values), approaches=tuple(cfg.approaches),
                      worlds=result.worlds, seed=result.seed)
        return ran.to_dict()


def _progress(progress: Progress | None, cancelled: Callable[[], bool] | None) -> Progress:
    """``progress`` that also raises :class:`Cancelled` once ``cancelled()`` says so."""
    prog = no_progress if progress is None else progress
    if cancelled is None:
        return prog

    def both(fraction: float, message: str = "") -> None:
        if cancelled():
            raise Cancelled()
        prog(fraction, message)

    return both


def bench_release(params: BenchParameters, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None, *, executor: Any = None,
                  workers: int | None = None) -> BenchResult:
    """Run the benchmark of ``params``: the one entry point of a planning benchmark.

    ``plan-bench B1…B5`` calls it and the Experiments page runs it in its worker; both
    record the result with :func:`core.project.recording.bench_run_record`.

    Parameters
    ----------
    params : BenchParameters
        What to run (validated when made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled at every progress report; True stops the run.
    executor : concurrent.futures.Executor, optional
        Where the worlds run (a cluster's; left open); default: a local pool.
    workers : int, optional
        Replaces ``params.workers`` (a cluster states its own thread count).

    Returns
    -------
    BenchResult

    Examples
    --------
    >>> p = BenchParameters("B1", values=(0.5,), approaches=("noprivacy",), worlds=1,
    ...                     seed=3, workers=1)
    >>> r = bench_release(p)
    >>> r.config.name, r.worlds, r.seed, list(r.config.values)
    ('B1', 1, 3, [0.5])
    """
    from core.logistics.experiments import run_benchmark

    return run_benchmark(params.config(), worlds=params.worlds, seed=params.seed,
                         workers=params.workers if workers is None else workers,
                         executor=executor, progress=_progress(progress, cancelled))


@dataclass(frozen=True)
class PacketParameters:
    """What one packet-routing study means (``plan-bench --experiment``, the Packet routing
    page's Run): Fig 4.9, 4.10 or 4.11 of the thesis.

    ``experiment`` names the figure; ``worlds`` the seeds per approach and point (>= 2);
    ``seed`` the master seed (None: drawn from the operating system and recorded);
    ``values`` the swept sizes, ε or dynamism (None: the thesis's); ``approaches`` the arms
    (None: the figure's); ``dynamics_per``, ``connectivity`` and ``dynamics`` the churn;
    ``solver`` Step 3's high-level solver; ``sizes`` the access points of fig410/fig411
    (None: the thesis's 10); ``workers`` the processes (None: every CPU).

    Examples
    --------
    >>> p = PacketParameters("fig411", worlds=2, seed=4, values=(0.2,), sizes=4)
    >>> PacketParameters.from_dict(p.to_dict()) == p
    True
    >>> PacketParameters("fig49", values=(4,), sizes=5)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: sizes: fig49 sweeps the network size itself
    """

    experiment: str
    worlds: int = 20
    seed: int | None = None
    values: tuple[float, ...] | None = None
    approaches: tuple[str, ...] | None = None
    dynamics_per: str = "node"
    connectivity: str = "network"
    dynamics: float = 0.1
    solver: str = "dijkstra"
    sizes: int | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _floats(self.values))
        object.__setattr__(self, "approaches", _names(self.approaches))
        if isinstance(self.dynamics, bool) or not isinstance(self.dynamics, (int, float)):
            raise InputError(f"must be a number in (0, 1], got {self.dynamics!r}",
                             field="dynamics")
        check_choice(self.solver, _SOLVERS, "solver")
        object.__setattr__(self, "seed", check_seed(self.seed))
        try:  # the study's own checks (its range of the dynamism, its values, …)
            self._build_study()
        except InputError as exc:
            if exc.field == "seeds":  # the study's name for the worlds per point
                raise InputError(exc.problem, field="worlds") from None
            raise
        if self.experiment == "fig49" and self.values is not None and any(
                v != int(v) for v in self.values):
            raise InputError(f"network sizes must be whole numbers >= 2, got "
                             f"{list(self.values)}", field="values")
        if self.sizes is not None:
            if self.experiment == "fig49":
                raise InputError("fig49 sweeps the network size itself", field="sizes")
            object.__setattr__(self, "sizes", check_int(self.sizes, "sizes", minimum=2))
        if self.workers is not None:
            object.__setattr__(self, "workers", check_int(self.workers, "workers"))
        object.__setattr__(self, "dynamics", float(self.dynamics))

    def _build_study(self) -> Any:
        from core.logistics.packet import packet_study

        return packet_study(self.experiment, n=self.worlds, master_seed=self.seed,
                            values=self.values, approaches=self.approaches,
                            per=self.dynamics_per, connectivity=self.connectivity,
                            dynamics=self.dynamics, solver=self.solver)

    def study(self) -> tuple[Any, list[Any]]:
        """The :class:`core.study.Study` and its claims
        (:func:`core.logistics.packet.packet_claims`), at ``sizes`` access points when given."""
        from core.logistics.packet import packet_claims

        study = self._build_study()
        wanted = packet_claims(study)
        if self.sizes is None:
            return study, wanted
        n = int(self.sizes)

        def sized(p: Mapping[str, Any]) -> dict[str, Any]:
            return {**dict(p), "n_centers": n}

        study = replace(study, points=tuple(sized(p) for p in study.points))
        wanted = [replace(c, point=sized(c.point),
                          b_point=None if c.b_point is None else sized(c.b_point))
                  for c in wanted]
        return study, wanted

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON: :meth:`record_params`' keys (``experiment``, ``worlds``, ``values``,
        ``approaches``, ``dynamics_per``, ``connectivity``, ``dynamics``, ``solver``,
        ``sizes``, ``workers``, ``seeded``) and the ``seed``, which a run record keeps as
        its own ``seed``. ``seeded`` is True: a study is always a seeded experiment (a
        master seed not given is drawn and recorded)."""
        return jsonable_dict({
            "experiment": self.experiment, "worlds": self.worlds,
            "values": None if self.values is None else list(self.values),
            "approaches": None if self.approaches is None else list(self.approaches),
            "dynamics_per": self.dynamics_per, "connectivity": self.connectivity,
            "dynamics": self.dynamics, "solver": self.solver, "sizes": self.sizes,
            "workers": self.workers, "seeded": True, "seed": self.seed})

    @classmethod
    def from_dict(cls, data: Any, seed: int | None = None) -> "PacketParameters":
        """The parameters of :meth:`to_dict` or of a ``plan-packet`` run record's
        ``params`` (``seed``: the record's own, when ``data`` has none)."""
        if isinstance(data, Mapping):
            if data.get("seeded", True) is not True:
                raise InputError(f"a study is a seeded experiment, got {data['seeded']!r}",
                                 field="seeded")
            data = {k: v for k, v in data.items() if k != "seeded"}
        check_record_params(data, PACKET_RECORD_KEYS + ("seed",), "a study's parameters",
                            required=("experiment",))
        return cls(data["experiment"], worlds=data.get("worlds", 20),
                   seed=data.get("seed", seed), values=data.get("values"),
                   approaches=data.get("approaches"),
                   dynamics_per=data.get("dynamics_per", "node"),
                   connectivity=data.get("connectivity", "network"),
                   dynamics=data.get("dynamics", 0.1), solver=data.get("solver", "dijkstra"),
                   sizes=data.get("sizes"), workers=data.get("workers"))

    def record_params(self, arms: Sequence[str] | None = None) -> dict[str, Any]:
        """What a ``plan-packet`` run record keeps as its parameters (the keys the window
        has always recorded): :meth:`to_dict` without the seed, with the approaches the
        study ran (``arms``; default: those asked)."""
        ran = self if arms is None else replace(self, approaches=tuple(arms))
        d = ran.to_dict()
        d.pop("seed")
        return d


@dataclass(frozen=True)
class PacketRelease:
    """The outcome of :func:`packet_release`: the study, its result on the study runner,
    the claims as tested, and the summary a run record keeps
    (:func:`core.logistics.packet_records.packet_summary`)."""

    study: Any
    result: Any
    claims: tuple[Any, ...]
    summary: dict[str, Any]


def packet_release(params: PacketParameters, progress: Progress | None = None,
                   cancelled: Callable[[], bool] | None = None, *, executor: Any = None,
                   workers: int | None = None) -> PacketRelease:
    """Run the packet-routing study of ``params``: the one entry point of a study.

    ``plan-bench --experiment`` calls it and the Packet routing page runs it in its worker;
    both record it with :func:`core.project.recording.packet_run_record`.

    Parameters
    ----------
    params : PacketParameters
        What to run (validated when made).
    progress : callable, optional
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    cancelled : callable, optional
        ``cancelled() -> bool``, polled at every progress report; True stops the run.
    executor : concurrent.futures.Executor, optional
        Where the seeds run (a cluster's; left open); default: a local pool.
    workers : int, optional
        Replaces ``params.workers`` (a cluster states its own thread count).

    Returns
    -------
    PacketRelease

    Examples
    --------
    >>> p = PacketParameters("fig411", worlds=2, seed=3, values=(0.2,),
    ...                      approaches=("bestfirst",), sizes=4, workers=1)
    >>> r = packet_release(p)
    >>> r.summary["experiment"], [row["x"] for row in r.summary["rows"]]
    ('fig411', [0.0, 0.2])
    """
    from core.logistics.packet_records import packet_summary
    from core.study import evaluate_claims, run_study

    study, wanted = params.study()
    result = run_study(study, progress=_progress(progress, cancelled), executor=executor,
                       workers=params.workers if workers is None else workers)
    claims = tuple(evaluate_claims(result, wanted))
    return PacketRelease(study, result, claims, packet_summary(params, result, claims))

