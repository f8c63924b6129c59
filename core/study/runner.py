"""The study runner: n seeded replicates of every arm at every grid point, paired.

A *study* compares *arms* — module-level callables ``arm(seed: int, **params) ->
Mapping[str, float]`` — over ``n`` replicates at one or more grid *points* (keyword
parameters shared by every arm, e.g. ``{"epsilon": 0.1}``). Replicate ``i`` runs every arm
at every point with the same seed (:func:`core.study.seeds.derive_seeds` of the master
seed): a paired design, in which the compared arms see the same environment, exploration,
data draw and noise stream, so their difference is measured per replicate. An arm must use
its seed for **all** of its randomness (exploration and initialisation as well as mechanism
noise), or the spread the study reports is not the spread a re-run would see.

The runs go through the one executor seam, :func:`core.common.parallel.run_chunks` — inline,
a local process pool, or a dask cluster (:class:`core.common.cluster.ClusterExecutor`) —
with progress and cancel (``progress`` may raise :class:`core.common.progress.Cancelled`).
Each run's value is stored at its replicate index, so every backend gives the same numbers.

Examples
--------
>>> from core.study.toy import shifted_normal
>>> study = Study("toy", (Arm("high", shifted_normal, {"shift": 1.0}),
...                       Arm("low", shifted_normal, {"shift": 0.0})), n=20, master_seed=3)
>>> res = run_study(study)
>>> res.compare("x", "high", "low").verdict()
'a > b'
>>> res.summary("x", "low").n
20
"""

from __future__ import annotations

import math
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from core.common.jsonable import jsonable, jsonable_dict
from core.common.parallel import run_chunks
from core.common.progress import Progress, no_progress
from core.study.seeds import auxiliary_rng, derive_seeds, draw_master_seed
from core.study.stats import (
    TESTS,
    Comparison,
    Equivalence,
    Summary,
    equivalence_test,
    paired_test,
    summarize,
)

__all__ = ["Arm", "Study", "StudyResult", "run_study", "point_label", "arm_reference"]


def _frozen(m: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(m or {}))


def arm_reference(fn: Callable[..., Any]) -> str:
    """``"module:qualname"`` of an arm function (how a result names it)."""
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


@dataclass(frozen=True)
class Arm:
    """One compared condition: ``fn(seed, **params, **point)`` returns its metrics.

    Parameters
    ----------
    name : str
        Unique within the study (tables and comparisons use it).
    fn : callable
        A module-level function (so that a process pool or a cluster can pickle it) taking
        the replicate seed and keyword parameters and returning a mapping of metric name to
        float (NaN for a value the run could not produce, e.g. a run that did not converge;
        booleans are read as 0/1).
    params : mapping
        The arm's own keyword parameters.
    """

    name: str
    fn: Callable[..., Mapping[str, float]]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"an arm needs a non-empty name, got {self.name!r}")
        if not callable(self.fn):
            raise TypeError(f"arm {self.name!r}: fn must be callable, got {self.fn!r}")
        object.__setattr__(self, "params", _frozen(self.params))


def point_label(point: Mapping[str, Any]) -> str:
    """A grid point as text: ``"epsilon=0.1, map=8x8"`` (``"all"`` for the empty point).

    Examples
    --------
    >>> point_label({"epsilon": 0.1, "map": "8x8"}), point_label({})
    ('epsilon=0.1, map=8x8', 'all')
    """
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "all"


@dataclass(frozen=True)
class Study:
    """What to run: arms × points × n replicates from one master seed.

    Parameters
    ----------
    name : str
        What the study is (recorded).
    arms : sequence of Arm
        The compared arms (distinct names).
    n : int
        Replicates per arm and point (default 20).
    master_seed : int or None
        The seed every replicate seed derives from. None: drawn from the operating system
        when the study runs (recorded in the result, which says so).
    points : sequence of mapping
        Grid points: keyword parameters given to every arm (an arm's own ``params`` may not
        repeat one of their keys). Default: one empty point.
    level : float
        Confidence level of every interval (default 0.95).
    test : str
        The default paired test of :meth:`StudyResult.compare` (see
        :data:`core.study.stats.TESTS`).
    bootstrap : int
        0: medians get the distribution-free order-statistic interval; > 0: a percentile
        bootstrap with this many resamples (seeded from the master seed).
    """

    name: str
    arms: Sequence[Arm]
    n: int = 20
    master_seed: int | None = None
    points: Sequence[Mapping[str, Any]] = ({},)
    level: float = 0.95
    test: str = "wilcoxon"
    bootstrap: int = 0

    def __post_init__(self) -> None:
        arms = tuple(self.arms)
        if not arms:
            raise ValueError("a study needs at least one arm")
        names = [a.name for a in arms]
        if len(set(names)) != len(names):
            raise ValueError(f"arm names must be distinct, got {names}")
        if int(self.n) < 1:
            raise ValueError(f"n must be >= 1, got {self.n!r}")
        if self.master_seed is not None and int(self.master_seed) < 0:
            raise ValueError(f"master_seed must be >= 0, got {self.master_seed!r}")
        if not 0.0 < float(self.level) < 1.0:
            raise ValueError(f"level must be in (0, 1), got {self.level!r}")
        if self.test not in TESTS:
            raise ValueError(f"test must be one of {sorted(TESTS)}, got {self.test!r}")
        points = tuple(_frozen(p) for p in self.points)
        if not points:
            raise ValueError("a study needs at least one point (use ({},) for none)")
        for a in arms:
            for p in points:
                clash = set(a.params) & set(p)
                if clash:
                    raise ValueError(f"arm {a.name!r} and point {point_label(p)!r} both set "
                                     f"{sorted(clash)}")
        object.__setattr__(self, "arms", arms)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "n", int(self.n))

    def with_seed(self, master_seed: int | None) -> "Study":
        """The same study under another master seed (a re-run for verdict stability)."""
        return Study(self.name, self.arms, self.n, master_seed, self.points, self.level,
                     self.test, self.bootstrap)


def _run_chunk(fn: Callable[..., Mapping[str, float]], params: Mapping[str, Any],
               seeds: Sequence[int]) -> list[dict[str, float]]:
    """Run one arm at one point for a run of seeds (a process-pool or cluster task)."""
    out = []
    for s in seeds:
        res = fn(int(s), **params)
        if not isinstance(res, Mapping):
            raise TypeError(f"{arm_reference(fn)} returned {type(res).__name__}, "
                            "not a mapping of metric name to float")
        out.append({str(k): float(v) for k, v in res.items()})
    return out


@dataclass(frozen=True, eq=False)
class StudyResult:
    """The values of every run, the seeds that made them, and their statistics.

    ``values[p][arm][metric]`` is a read-only array of the ``n`` replicate values (replicate
    i ran with ``seeds[i]``). A metric an arm did not report is absent for that arm.
    """

    name: str
    master_seed: int
    seed_source: str
    seeds: tuple[int, ...]
    arms: tuple[str, ...]
    arm_functions: tuple[str, ...]
    arm_params: tuple[Mapping[str, Any], ...]
    points: tuple[Mapping[str, Any], ...]
    values: tuple[Mapping[str, Mapping[str, np.ndarray]], ...]
    level: float = 0.95
    test: str = "wilcoxon"
    bootstrap: int = 0
    elapsed_s: float = math.nan

    @property
    def n(self) -> int:
        return len(self.seeds)

    @property
    def metrics(self) -> tuple[str, ...]:
        """Every metric any arm reported, in first-seen order."""
        seen: dict[str, None] = {}
        for per_point in self.values:
            for per_arm in per_point.values():
                for m in per_arm:
                    seen.setdefault(m, None)
        return tuple(seen)

    def point_index(self, point: "int | Mapping[str, Any]") -> int:
        if isinstance(point, int):
            if not 0 <= point < len(self.points):
                raise KeyError(f"point {point} out of range 0..{len(self.points) - 1}")
            return point
        want = dict(point)
        for i, p in enumerate(self.points):
            if dict(p) == want:
                return i
        raise KeyError(f"no point {point_label(want)!r} in study {self.name!r}")

    def column(self, metric: str, arm: str, point: "int | Mapping[str, Any]" = 0
               ) -> np.ndarray:
        """The ``n`` replicate values of ``metric`` for ``arm`` at ``point``.

        Raises
        ------
        KeyError
            Unknown arm, metric or point (the message names it).
        """
        p = self.point_index(point)
        if arm not in self.values[p]:
            raise KeyError(f"no arm {arm!r} in study {self.name!r} (arms: {self.arms})")
        per = self.values[p][arm]
        if metric not in per:
            raise KeyError(f"arm {arm!r} did not report {metric!r} (it has {sorted(per)})")
        return per[metric]

    def summary(self, metric: str, arm: str, point: "int | Mapping[str, Any]" = 0
                ) -> Summary:
        """:func:`core.study.stats.summarize` of one column (bootstrap seeded by the master
        seed and the column's position, so it is reproducible)."""
        p = self.point_index(point)
        rng = None
        if self.bootstrap > 0:
            rng = auxiliary_rng(self.master_seed, p, self.arms.index(arm),
                                self.metrics.index(metric))
        return summarize(self.column(metric, arm, p), self.level, bootstrap=self.bootstrap,
                         rng=rng)

    def compare(self, metric: str, a: str, b: str, point: "int | Mapping[str, Any]" = 0,
                *, test: str | None = None, b_point: "int | Mapping[str, Any] | None" = None,
                b_metric: str | None = None) -> Comparison:
        """Paired test of ``a − b`` on ``metric`` (same seeds), at ``point`` (or ``a`` at
        ``point`` against ``b`` at ``b_point``: two grid points, still paired by seed).

        Parameters
        ----------
        metric, a, b : str
            The metric and the two arms (``a`` may equal ``b`` across two points).
        point, b_point : int or mapping
            Where ``a`` (and, unless ``b_point`` is given, ``b``) is read.
        test : str, optional
            Overrides the study's test.
        b_metric : str, optional
            Read ``b`` on this metric (``a − b`` across two metrics of the same runs).

        Returns
        -------
        Comparison
        """
        bp = point if b_point is None else b_point
        if b_point is None:
            names = (a, b)
        else:
            names = (f"{a}@{point_label(self.points[self.point_index(point)])}",
                     f"{b}@{point_label(self.points[self.point_index(bp)])}")
        if b_metric is not None:
            names = (f"{names[0]}:{metric}", f"{names[1]}:{b_metric}")
        bm = metric if b_metric is None else b_metric
        return paired_test(self.column(metric, a, point), self.column(bm, b, bp),
                           test=test or self.test, level=self.level, metric=metric,
                           names=names)

    def equivalence(self, metric: str, a: str, b: str, margin: float,
                    point: "int | Mapping[str, Any]" = 0, *,
                    b_point: "int | Mapping[str, Any] | None" = None,
                    test: str = "t") -> Equivalence:
        """TOST that ``a − b`` lies within ±``margin`` (see
        :func:`core.study.stats.equivalence_test`)."""
        bp = point if b_point is None else b_point
        return equivalence_test(self.column(metric, a, point), self.column(metric, b, bp),
                                margin, test=test, metric=metric, names=(a, b))

    def to_json(self) -> dict[str, Any]:
        """Everything needed to re-draw the tables and re-run the study: strict-JSON-able
        through :func:`core.common.jsonable.jsonable` (NaN → null with a reason)."""
        def param(v: Any) -> Any:
            try:
                j = jsonable(v)
                import json
                json.dumps(j, allow_nan=False)
                return j
            except (TypeError, ValueError):
                return repr(v)

        return jsonable_dict({
            "name": self.name,
            "master_seed": self.master_seed,
            "seed_source": self.seed_source,
            "n": self.n,
            "seeds": list(self.seeds),
            "level": self.level,
            "test": self.test,
            "test_text": TESTS[self.test],
            "bootstrap": self.bootstrap,
            "elapsed_s": self.elapsed_s,
            "arms": [{"name": a, "function": f, "params": {k: param(v) for k, v in ps.items()}}
                     for a, f, ps in zip(self.arms, self.arm_functions, self.arm_params)],
            "points": [{k: param(v) for k, v in p.items()} for p in self.points],
            "values": [{arm: {m: v.tolist() for m, v in per.items()}
                        for arm, per in pv.items()} for pv in self.values],
        })

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StudyResult":
        """A result written by :meth:`to_json` (``null`` values come back as NaN).

        Raises
        ------
        ValueError
            A key is missing or a column's length is not ``n``.
        """
        try:
            seeds = tuple(int(s) for s in data["seeds"])
            values = []
            for pv in data["values"]:
                per_point = {}
                for arm, per in pv.items():
                    cols = {}
                    for m, v in per.items():
                        if isinstance(v, list) and not m.endswith("_reason"):
                            a = np.array([math.nan if x is None else float(x) for x in v])
                            if a.size != len(seeds):
                                raise ValueError(f"{arm}/{m}: {a.size} values, "
                                                 f"{len(seeds)} seeds")
                            a.flags.writeable = False
                            cols[m] = a
                    per_point[arm] = MappingProxyType(cols)
                values.append(MappingProxyType(per_point))
            arms = data["arms"]
            return cls(name=str(data["name"]), master_seed=int(data["master_seed"]),
                       seed_source=str(data["seed_source"]), seeds=seeds,
                       arms=tuple(str(a["name"]) for a in arms),
                       arm_functions=tuple(str(a["function"]) for a in arms),
                       arm_params=tuple(_frozen(a.get("params")) for a in arms),
                       points=tuple(_frozen(p) for p in data["points"]),
                       values=tuple(values), level=float(data.get("level", 0.95)),
                       test=str(data.get("test", "wilcoxon")),
                       bootstrap=int(data.get("bootstrap", 0)),
                       elapsed_s=float(data.get("elapsed_s") or math.nan))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a study result: {exc}") from None


def _chunking(n: int, cells: int, inline: bool, workers: int) -> int:
    if inline:
        return 1
    per_cell = max(1, math.ceil(4 * workers / max(1, cells)))
    return max(1, math.ceil(n / per_cell))


def run_study(study: Study, *, progress: Progress = no_progress,
              executor: Executor | None = None, workers: int | None = None,
              inline: bool | None = None, chunk_size: int | None = None) -> StudyResult:
    """Run every arm at every point on every replicate seed.

    Parameters
    ----------
    study : Study
        What to run.
    progress : Progress
        ``progress(fraction, message)`` after each chunk; it may raise
        :class:`core.common.progress.Cancelled` to stop (pending chunks are cancelled).
    executor : Executor, optional
        A process pool or :class:`core.common.cluster.ClusterExecutor` (left open).
    workers : int, optional
        Processes of the default pool (default 1: inline).
    inline : bool, optional
        Force in-process runs (default: inline when there is one worker and no executor).
    chunk_size : int, optional
        Seeds per task (default: about four tasks per worker).

    Returns
    -------
    StudyResult

    Raises
    ------
    TypeError
        An arm's function cannot be pickled for a pool (a lambda or a local function), or
        an arm returned something other than a mapping.
    ValueError
        An arm returned different metric names on different seeds.
    core.common.errors.RunFailure
        A worker died twice or the cluster lost the work.
    """
    t0 = time.perf_counter()
    n_workers = 1 if workers is None else int(workers)
    if n_workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    run_inline = (executor is None and n_workers == 1) if inline is None else bool(inline)
    if not run_inline:
        for a in study.arms:
            try:
                pickle.dumps(a.fn)
            except (pickle.PicklingError, AttributeError, TypeError) as exc:
                raise TypeError(f"arm {a.name!r}: {arm_reference(a.fn)} cannot run in a pool "
                                f"(define it at module level): {exc}") from None
    given = study.master_seed is not None
    master = int(study.master_seed) if study.master_seed is not None else draw_master_seed()
    seeds = derive_seeds(master, study.n)
    n = study.n
    cells = len(study.points) * len(study.arms)
    size = chunk_size or _chunking(n, cells, run_inline, n_workers)
    tasks = [(p, a, start, min(n, start + size)) for p in range(len(study.points))
             for a in range(len(study.arms)) for start in range(0, n, size)]
    raw: dict[tuple[int, int], list[dict[str, float] | None]] = {
        (p, a): [None] * n for p in range(len(study.points)) for a in range(len(study.arms))}
    total = n * cells
    done = 0

    def args(t: tuple[int, int, int, int]) -> tuple[Any, ...]:
        p, a, start, stop = t
        arm = study.arms[a]
        return (arm.fn, {**arm.params, **study.points[p]}, seeds[start:stop])

    def record(t: tuple[int, int, int, int], rows: list[dict[str, float]]) -> None:
        nonlocal done
        p, a, start, stop = t
        raw[(p, a)][start:stop] = rows
        done += stop - start
        progress(done / total, f"{study.name}: {done} of {total} runs "
                               f"({study.arms[a].name} at {point_label(study.points[p])})")

    progress(0.0, f"{study.name}: {total} runs")
    run_chunks(_run_chunk, tasks, args, record, inline=run_inline, executor=executor,
               workers=n_workers,
               describe=lambda t: (f"{study.arms[t[1]].name} at "
                                   f"{point_label(study.points[t[0]])}, replicates "
                                   f"{t[2] + 1}-{t[3]}"))
    values = []
    for p in range(len(study.points)):
        per_point: dict[str, Mapping[str, np.ndarray]] = {}
        for ai, arm in enumerate(study.arms):
            rows = raw[(p, ai)]
            keys = list(rows[0] or {})
            cols: dict[str, np.ndarray] = {}
            for i, row in enumerate(rows):
                if row is None or list(row) != keys and set(row) != set(keys):
                    raise ValueError(f"arm {arm.name!r} returned metrics "
                                     f"{sorted(row or {})} on seed {seeds[i]} but "
                                     f"{sorted(keys)} on seed {seeds[0]}")
            for k in keys:
                col = np.array([r[k] for r in rows if r is not None], dtype=np.float64)
                col.flags.writeable = False
                cols[k] = col
            per_point[arm.name] = MappingProxyType(cols)
        values.append(MappingProxyType(per_point))
    return StudyResult(name=study.name, master_seed=master,
                       seed_source="given" if given else "drawn from the operating system",
                       seeds=seeds, arms=tuple(a.name for a in study.arms),
                       arm_functions=tuple(arm_reference(a.fn) for a in study.arms),
                       arm_params=tuple(a.params for a in study.arms),
                       points=tuple(study.points),
                       values=tuple(values), level=study.level, test=study.test,
                       bootstrap=study.bootstrap, elapsed_s=time.perf_counter() - t0)
