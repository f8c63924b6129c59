"""Benchmarks B1–B5 of spec §8.3 (the Fig 4.7–4.11 analogues), run in workers.

Size: the five benchmarks share one runner (worlds, seeds, workers, common random numbers); each
benchmark's checks are short functions beside the runner whose columns they read.

Every point of a sweep runs ``worlds`` generated worlds (spec §6.4; 50 by default) with
one round of packages each, for every approach, on the same world, tasks and random
streams (common random numbers). World w of point i draws from
``SeedSequence(seed, spawn_key=(i, w))`` — or ``(w,)`` when the sweep does not change the
world (B1, B3, B5: paired comparisons across the swept value) — so results are
bit-identical whatever the number of workers or the chunking, as in
:mod:`core.mdp.sweep`.

Metrics per world and approach: ``success`` (delivered / packages), ``route_length``
(mean true length of the delivered ones), ``stretch`` (length / true shortest),
``messages`` (per attempted plan), ``messages_success`` (per delivered plan) and
``plan_ms``. Summaries give the mean over worlds and a 95 % t-interval.

**Route lengths are compared on paired tasks.** ``route_length`` averages each approach
over *its own* deliveries, and approaches deliver very different task sets (an approach
that fails on long tasks looks short). Comparisons therefore use ``paired_length`` and
``paired_length_ref``: the mean length of this approach and of the reference approach
(``dp`` if run, else the first) over the tasks *both* delivered in that world
(``paired_tasks`` of them); delivery rates are reported separately (``success``).
:meth:`BenchResult.relative_to_dp` and the B2 checks use the paired figures.

Every result states what each approach proves (:meth:`BenchResult.privacy`: the per-agent
ε of :func:`core.logistics.planner.preset_guarantee`, null with a reason where none).

Approach labels: ``dp`` (sound preset), ``dp-thesis`` (thesis preset), ``noprivacy``,
``bestfirst``, ``greedy``, ``simplified`` (§4.5.4: exact public crossings, Dijkstra, one
message per center on the path).

Examples
--------
>>> r = run_benchmark("B2", values=[4, 6], worlds=2, seed=1, workers=1)
>>> r.metric("success").shape
(2, 5, 2)
"""

from __future__ import annotations

import csv
import io
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.common.errors import InputError
from core.common.parallel import run_chunks
from core.common.progress import Progress, no_progress
from core.common.stats import t_half_width
from core.common.validation import fresh_seed
from core.logistics.domains import domain_tasks, generate_domain_world, plan_metrics
from core.logistics.examples import generate_tasks, generate_world
from core.logistics.model import DEFAULT_DEGREE_CAP
from core.logistics.planner import PlannerParams, PlanningSession, preset_guarantee
from core.logistics.routing import Dynamics

__all__ = ["BENCHMARKS", "METRICS", "APPROACH_LABELS", "BenchConfig", "BenchResult",
           "benchmark_config", "run_benchmark"]

METRICS = ("success", "route_length", "stretch", "messages", "messages_success", "plan_ms",
           "paired_tasks", "paired_length", "paired_length_ref")
APPROACH_LABELS = ("dp", "dp-thesis", "noprivacy", "bestfirst", "greedy", "simplified")
BENCHMARKS = ("B1", "B2", "B3", "B4", "B5")
FOUR = ("dp", "noprivacy", "bestfirst", "greedy")
#: the four approaches and the simplified approach of §4.5.4
FIVE = FOUR + ("simplified",)
#: per-world figures a domain adds (core.logistics.domains.plan_metrics)
DOMAIN_METRICS = {"air": ("legs", "longest_leg"), "rover": ("sample_value",)}
#: the domains a benchmark world can be drawn from
BENCH_DOMAINS = ("logistics", "air", "rover")


@dataclass(frozen=True)
class BenchConfig:
    """One benchmark: what is swept and everything held fixed."""

    name: str
    title: str
    parameter: str
    values: tuple[float, ...]
    approaches: tuple[str, ...]
    n_centers: int = 10
    epsilon: float = 0.5
    p_package: float = 0.2
    dynamics: float = 0.0
    comm_budget: float | None = None  # None: N + 30
    rounds: int = 1
    paired: bool = True
    figure: str = ""
    domain: str = "logistics"
    domain_params: tuple[tuple[str, float], ...] = ()  # e.g. (("fuel_range", 300.0),)

    @property
    def metrics(self) -> tuple[str, ...]:
        """:data:`METRICS` and the domain's own (air: legs, longest leg; rover: value)."""
        return METRICS + DOMAIN_METRICS.get(self.domain, ())

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["values"] = list(self.values)
        d["approaches"] = list(self.approaches)
        d["domain_params"] = dict(self.domain_params)
        if d["comm_budget"] is not None and math.isinf(d["comm_budget"]):
            d["comm_budget"] = "unlimited"
        return d


def benchmark_config(name: str, *, values: Sequence[float] | None = None,
                     approaches: Sequence[str] | None = None, **overrides: Any) -> BenchConfig:
    """The default configuration of B1–B5 (spec §8.3), with optional overrides.

    Parameters
    ----------
    name : str
        ``"B1"`` … ``"B5"``.
    values : sequence of float, optional
        The swept values (default: the spec's).
    approaches : sequence of str, optional
        The approaches compared (default: the spec's).
    **overrides
        Any other :class:`BenchConfig` field.

    Returns
    -------
    BenchConfig

    Raises
    ------
    InputError
        For an unknown benchmark or approach, or an empty list of values.
    """
    defaults = {
        "B1": BenchConfig("B1", "epsilon sweep (Fig 4.8 / 4.10 analogue)", "epsilon",
                          (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), ("dp", "dp-thesis", "noprivacy"),
                          figure="4.8"),
        "B2": BenchConfig("B2", "size sweep (Fig 4.7 / 4.9 analogue)", "n_centers",
                          (10, 20, 30, 40, 50), FIVE, paired=False, figure="4.7"),
        "B3": BenchConfig("B3", "dynamism sweep, packet routing (Fig 4.11 analogue)",
                          "dynamics", (0.05, 0.10, 0.15, 0.20), FIVE, figure="4.11"),
        "B4": BenchConfig("B4", "communication budget (spec 4.6.4)", "budget_factor",
                          (0.5, 0.75, 1.0, 1.5, 2.0), ("dp", "noprivacy"), n_centers=30),
        "B5": BenchConfig("B5", "route memo over time (Remark 4 / Cor 4.2)", "round",
                          (1, 2, 3, 4, 5), ("dp", "noprivacy"), comm_budget=math.inf,
                          rounds=5),
    }
    if name not in defaults:
        raise InputError(f"must be one of {', '.join(BENCHMARKS)}, got {name!r}",
                         field="benchmark")
    cfg = defaults[name]
    kw: dict[str, Any] = dict(cfg.__dict__)
    if values is not None:
        vals = tuple(float(v) for v in values)
        if not vals:
            raise InputError("needs at least one value", field="values")
        kw["values"] = vals
    if approaches is not None:
        aps = tuple(approaches)
        for a in aps:
            if a not in APPROACH_LABELS:
                raise InputError(f"unknown approach {a!r} (one of {', '.join(APPROACH_LABELS)})",
                                 field="approaches")
        kw["approaches"] = aps
    for k, v in overrides.items():
        if k not in kw:
            raise InputError(f"unknown benchmark setting {k!r}", field=k)
        kw[k] = v
    if kw["domain"] not in BENCH_DOMAINS:
        raise InputError(f"must be one of {', '.join(BENCH_DOMAINS)} (packet routing: B3 or "
                         f"--experiment fig49/fig410/fig411), got {kw['domain']!r}",
                         field="domain")
    if kw["domain_params"]:
        from core.logistics.domains import profile

        kw["domain_params"] = tuple(sorted(dict(kw["domain_params"]).items()))
        for k, _v in kw["domain_params"]:
            if k not in (profile(kw["domain"]).params or {}):
                raise InputError(f"the {kw['domain']} domain has no parameter {k!r}",
                                 field="domain_params")
    if kw["domain"] != "logistics" and (kw["parameter"] == "dynamics" or kw["dynamics"]):
        raise InputError(f"the {kw['domain']} domain is static; nodes leaving and joining "
                         "(B3) is packet routing on logistics maps", field="domain")
    return BenchConfig(**kw)


@dataclass(frozen=True, eq=False)
class BenchResult:
    """Per point, approach and world metrics: ``data[metric]`` is (values, approaches, worlds)."""

    config: BenchConfig
    worlds: int
    seed: int
    data: dict[str, np.ndarray]
    elapsed_s: float = 0.0
    mode: str = "experiment"
    checks: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for k, v in self.data.items():
            arr = np.array(v, dtype=np.float64, copy=True)
            arr.setflags(write=False)
            self.data[k] = arr

    def metric(self, name: str) -> np.ndarray:
        return self.data[name]

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics of this result (:attr:`BenchConfig.metrics`)."""
        return self.config.metrics

    def mean(self, name: str) -> np.ndarray:
        """Mean over worlds (ignoring worlds without a delivered package), (values, approaches)."""
        x = self.data[name]
        n = np.sum(np.isfinite(x), axis=2)
        s = np.where(np.isfinite(x), x, 0.0).sum(axis=2)
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)

    def ci(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """95 % t-interval of the mean over worlds (nan with fewer than 2 finite worlds)."""
        x = self.data[name]
        lo = np.full(x.shape[:2], np.nan)
        hi = np.full(x.shape[:2], np.nan)
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                v = x[i, j][np.isfinite(x[i, j])]
                if v.size >= 2:
                    half = t_half_width(v)
                    lo[i, j], hi[i, j] = v.mean() - half, v.mean() + half
        return lo, hi

    def rows(self) -> list[dict[str, Any]]:
        """One row per (value, approach): mean and CI of every metric."""
        out = []
        cis = {m: self.ci(m) for m in self.metrics}
        means = {m: self.mean(m) for m in self.metrics}
        for i, v in enumerate(self.config.values):
            for j, a in enumerate(self.config.approaches):
                row: dict[str, Any] = {"benchmark": self.config.name,
                                       self.config.parameter: v, "approach": a}
                for m in self.metrics:
                    row[m] = _num(means[m][i, j])
                    row[f"{m}_ci_low"] = _num(cis[m][0][i, j])
                    row[f"{m}_ci_high"] = _num(cis[m][1][i, j])
                out.append(row)
        return out

    def paired_route(self, i: int, j: int) -> dict[str, Any]:
        """Approach ``j`` vs the reference on the tasks both delivered, at value index ``i``.

        ``length``/``length_ref``: mean over worlds of the per-world means on the paired
        tasks; ``dp_advantage_percent``: the mean over worlds of 100·(length −
        length_ref)/length per world (> 0: the reference is shorter), with its 95 %
        t-interval.
        """
        a = self.data["paired_length"][i, j]
        b = self.data["paired_length_ref"][i, j]
        n = self.data["paired_tasks"][i, j]
        ok = np.isfinite(a) & np.isfinite(b) & (a > 0)
        out: dict[str, Any] = {"paired_tasks": int(np.nansum(n)), "worlds": int(ok.sum()),
                               "length": None, "length_ref": None,
                               "dp_advantage_percent": None, "ci_low": None, "ci_high": None}
        if not ok.any():
            return out
        la, lb = float(a[ok].mean()), float(b[ok].mean())
        d = 100.0 * (a[ok] - b[ok]) / a[ok]
        out.update(length=la, length_ref=lb, dp_advantage_percent=float(d.mean()))
        if d.size >= 2:
            half = t_half_width(d)
            out.update(ci_low=float(d.mean() - half), ci_high=float(d.mean() + half))
        return out

    @property
    def reference(self) -> str:
        """The approach paired lengths are compared with: ``dp`` if run, else the first."""
        aps = self.config.approaches
        return "dp" if "dp" in aps else aps[0]

    def relative_to_dp(self) -> list[dict[str, Any]]:
        """% differences of every approach against ``dp`` (as the thesis reports).

        Route length on *paired tasks* (tasks both delivered: :meth:`paired_route`);
        messages per attempted plan and success (percentage points) over all tasks, which
        every approach is given.
        """
        if "dp" not in self.config.approaches:
            return []
        k = self.config.approaches.index("dp")
        out = []
        extra = ("sample_value",) if self.config.domain == "rover" else ()
        for m in ("route_length", "messages", "success") + extra:
            mean = self.mean(m)
            for i, v in enumerate(self.config.values):
                for j, a in enumerate(self.config.approaches):
                    if j == k:
                        continue
                    row: dict[str, Any] = {self.config.parameter: v, "approach": a,
                                           "metric": m}
                    if m == "route_length":
                        pr = self.paired_route(i, j)
                        row.update(paired=True, dp_advantage_percent=_num(
                            pr["dp_advantage_percent"]), ci_low=pr["ci_low"],
                            ci_high=pr["ci_high"], paired_tasks=pr["paired_tasks"],
                            length=pr["length"], length_dp=pr["length_ref"],
                            unpaired_dp_advantage_percent=_num(
                                100.0 * (mean[i, j] - mean[i, k]) / mean[i, j]
                                if mean[i, j] else math.nan))
                    else:
                        base, dp = mean[i, j], mean[i, k]
                        if m == "success":  # percentage points
                            diff = 100.0 * (dp - base)
                        elif m == "sample_value":  # how much more value DP keeps, in %
                            diff = 100.0 * (dp - base) / base if base else math.nan
                        else:  # how much fewer DP sends, in % of the other approach
                            diff = 100.0 * (base - dp) / base if base else math.nan
                        row["dp_advantage_percent"] = _num(diff)
                    out.append(row)
        return out

    def privacy(self) -> dict[str, dict[str, Any]]:
        """Per approach: what it proves per agent (``epsilon`` null + reason if nothing;
        a list aligned with the swept values when ε is swept)."""
        cfg = self.config
        out: dict[str, dict[str, Any]] = {}
        for ap in cfg.approaches:
            eps_values = list(cfg.values) if cfg.parameter == "epsilon" else [cfg.epsilon]
            dyn_p = cfg.values[0] if cfg.parameter == "dynamics" else cfg.dynamics
            dyn = Dynamics(dyn_p, dyn_p) if dyn_p > 0 else None
            gs = [_guarantee(ap, e, dyn) for e in eps_values]
            d = gs[0].to_dict()
            if cfg.parameter == "epsilon" and d["epsilon"] is not None:
                d["epsilon"] = [g.epsilon for g in gs]
            out[ap] = d
        return out

    def to_csv(self) -> str:
        rows = self.rows()
        buf = io.StringIO()
        wr = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        wr.writeheader()
        for r in rows:
            wr.writerow({k: ("" if v is None else v) for k, v in r.items()})
        return buf.getvalue()

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.config.name, "title": self.config.title,
                "domain": self.config.domain,
                "thesis_figure": self.config.figure, "config": self.config.to_dict(),
                "worlds": self.worlds, "seed": self.seed, "mode": self.mode,
                "privacy": self.privacy(), "paired_reference": self.reference,
                "rows": self.rows(), "relative_to_dp": self.relative_to_dp(),
                "checks": list(self.checks), "elapsed_s": self.elapsed_s,
                "per_world": {m: [[[_num(x) for x in row] for row in pt]
                                  for pt in self.data[m]] for m in self.metrics}}


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _guarantee(approach: str, epsilon: float, dynamics: Dynamics | None = None) -> Any:
    preset = "thesis" if approach == "dp-thesis" else "sound"
    name = "dp" if approach.startswith("dp") else approach
    return preset_guarantee(PlannerParams.preset_params(preset, epsilon=epsilon), name,
                            DEFAULT_DEGREE_CAP, dynamics=dynamics)


def _session(world: Any, approach: str, cfg: BenchConfig, value: float, seed_seq: Any,
             budget: float | None) -> PlanningSession:
    preset = "thesis" if approach == "dp-thesis" else "sound"
    eps = value if cfg.parameter == "epsilon" else cfg.epsilon
    params = PlannerParams.preset_params(preset, epsilon=eps, comm_budget=budget)
    dyn_p = value if cfg.parameter == "dynamics" else cfg.dynamics
    dyn = Dynamics(dyn_p, dyn_p) if dyn_p > 0 else None
    name = "dp" if approach.startswith("dp") else approach
    rng = np.random.Generator(np.random.PCG64(seed_seq))
    return PlanningSession(world, approach=name, params=params, rng=rng, dynamics=dyn)


def world_and_tasks(cfg: BenchConfig, n_centers: int, s_world: Any, s_tasks: Any
                    ) -> tuple[Any, tuple[Any, ...]]:
    """The world of ``cfg.domain`` with ``n_centers`` centers and its round of tasks, drawn
    from the seed sequences ``s_world`` and ``s_tasks``."""
    if cfg.domain == "logistics":
        world = generate_world(n_centers, seed=np.random.Generator(np.random.PCG64(s_world)))
        tasks = generate_tasks(world, p_package=cfg.p_package,
                               rng=np.random.Generator(np.random.PCG64(s_tasks)))
    else:
        world = generate_domain_world(cfg.domain, n_centers, seed=np.random.Generator(
            np.random.PCG64(s_world)), params=dict(cfg.domain_params))
        tasks = domain_tasks(world, p_package=cfg.p_package,
                             rng=np.random.Generator(np.random.PCG64(s_tasks)))
    return world, tuple(tasks)


def approach_rounds(cfg: BenchConfig, world: Any, tasks: Sequence[Any], approach: str,
                    value: float, s_run: Any, budget: float | None
                    ) -> tuple[np.ndarray, list[list[float | None]]]:
    """One approach on one world for ``cfg.rounds`` rounds of ``tasks``: the metric rows
    (rounds, metrics; the paired columns left NaN) and, per round, every task's true route
    length (None: not delivered), for pairing tasks across approaches."""
    metrics = cfg.metrics
    out = np.full((cfg.rounds, len(metrics)), np.nan)
    lengths: list[list[float | None]] = []
    sess = _session(world, approach, cfg, value,
                    np.random.SeedSequence(s_run.entropy, spawn_key=(7,)), budget)
    for r in range(cfg.rounds):
        res = sess.run(tasks)
        lengths.append([x.length if x.success else None for x in res])
        if not res:
            continue
        ok = [x for x in res if x.success]
        out[r, 0] = len(ok) / len(res)
        if ok:
            out[r, 1] = float(np.mean([x.length for x in ok]))
            st = [x.stretch for x in ok if x.stretch is not None]
            out[r, 2] = float(np.mean(st)) if st else np.nan
            out[r, 4] = float(np.mean([x.messages for x in ok]))
        out[r, 3] = float(np.mean([x.messages for x in res]))
        out[r, 5] = 1000.0 * float(np.mean([x.elapsed_s for x in res]))
        if len(metrics) > len(METRICS):
            _domain_columns(out[r], world, res)
    return out, lengths


def paired_lengths(lengths: Sequence[float | None], ref: Sequence[float | None]
                   ) -> tuple[int, float, float]:
    """``(tasks, mean length, mean reference length)`` over the tasks both delivered (the
    same task list; NaN means when there is none)."""
    both = [(x, y) for x, y in zip(lengths, ref) if x is not None and y is not None]
    if not both:
        return 0, math.nan, math.nan
    return (len(both), float(np.mean([x for x, _ in both])),
            float(np.mean([y for _, y in both])))


def _run_world(cfg: BenchConfig, value_index: int, world_index: int, seed: int) -> np.ndarray:
    """All approaches on one world: (approaches, metrics) or, for B5, (rounds, approaches,
    metrics)."""
    value = cfg.values[value_index]
    key = (value_index, world_index) if not cfg.paired else (world_index,)
    root = np.random.SeedSequence(seed, spawn_key=key)
    s_world, s_tasks, s_run = root.spawn(3)
    n = int(value) if cfg.parameter == "n_centers" else cfg.n_centers
    world, tasks = world_and_tasks(cfg, n, s_world, s_tasks)
    budget = cfg.comm_budget
    if cfg.parameter == "budget_factor":
        budget = float(max(0, round(value * world.total_capacity)))
    out = np.full((cfg.rounds, len(cfg.approaches), len(cfg.metrics)), np.nan)
    ref = cfg.approaches.index("dp") if "dp" in cfg.approaches else 0
    lengths: dict[int, list[list[float | None]]] = {}
    for j, ap in enumerate(cfg.approaches):
        out[:, j], lengths[j] = approach_rounds(cfg, world, tasks, ap, value, s_run, budget)
    # paired tasks: delivered by this approach and by the reference (same task list)
    for r in range(cfg.rounds):
        for j in range(len(cfg.approaches)):
            out[r, j, 6:9] = paired_lengths(lengths[j][r], lengths[ref][r])
    return out if cfg.parameter == "round" else out[0]


def _domain_columns(row: np.ndarray, world: Any, res: Sequence[Any]) -> None:
    """Fill the domain's columns of one (approach, round) row from its results."""
    per = [plan_metrics(world, x) for x in res]
    k = len(METRICS)
    if world.domain == "air":
        legs = [p["legs"] for p in per if p["legs"] is not None]
        longest = [p["longest_leg"] for p in per if p["longest_leg"] is not None]
        row[k] = float(np.mean(legs)) if legs else np.nan
        row[k + 1] = float(max(longest)) if longest else np.nan
    elif world.domain == "rover":
        row[k] = float(np.mean([p["sample_value"] for p in per]))


def _run_chunk(cfg: BenchConfig, value_index: int, start: int, stop: int, seed: int
               ) -> list[np.ndarray]:
    return [_run_world(cfg, value_index, w, seed) for w in range(start, stop)]


def run_benchmark(name: str | BenchConfig, *, values: Sequence[float] | None = None,
                  approaches: Sequence[str] | None = None, worlds: int = 50,
                  seed: int | None = None, workers: int | None = None,
                  executor: Executor | None = None, progress: Progress = no_progress,
                  **overrides: Any) -> BenchResult:
    """Run benchmark ``name`` (B1–B5) and return per-world metrics and trend checks.

    Parameters
    ----------
    name : {"B1", "B2", "B3", "B4", "B5"} or BenchConfig
    values, approaches : optional overrides of the swept values and the approaches.
    worlds : int
        Worlds per point (spec: 50).
    seed : int, optional
        Experiment seed (drawn from the OS and recorded if omitted).
    workers : int, optional
        Processes (default: CPU count); ``1`` runs on the calling thread.
    executor : Executor, optional
        Use this executor instead (not shut down here).
    progress : callable
        ``progress(fraction, message)``; raise :class:`core.common.progress.Cancelled` to stop.
    """
    cfg = name if isinstance(name, BenchConfig) else benchmark_config(
        name, values=values, approaches=approaches, **overrides)
    if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
        raise InputError(f"must be an integer >= 1, got {worlds!r}", field="worlds")
    seed = fresh_seed() if seed is None else int(seed)
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if n_workers < 1:
        raise InputError(f"must be >= 1, got {workers!r}", field="workers")
    if cfg.parameter == "round":
        cfg = BenchConfig(**{**cfg.__dict__, "values": tuple(float(r + 1) for r in range(
            cfg.rounds)) if values is None else cfg.values})
        points = [0]
    else:
        points = list(range(len(cfg.values)))
    inline = executor is None and n_workers == 1
    chunk = 1 if inline else max(1, math.ceil(worlds / max(1, 2 * n_workers)))
    tasks = [(i, s, min(worlds, s + chunk)) for i in points for s in range(0, worlds, chunk)]
    shape = (len(cfg.values), len(cfg.approaches), worlds, len(cfg.metrics))
    values_arr = np.full(shape, np.nan)
    total = len(points) * worlds
    done = 0
    t0 = time.perf_counter()

    def record(task: tuple[int, int, int], result: list[np.ndarray]) -> None:
        nonlocal done
        i, start, stop = task
        for w, arr in zip(range(start, stop), result):
            if cfg.parameter == "round":
                values_arr[:, :, w, :] = arr[: len(cfg.values)]
            else:
                values_arr[i, :, w, :] = arr
        done += stop - start
        progress(done / total, f"{cfg.name}: {done} of {total} worlds")

    progress(0.0, f"{cfg.name}: starting")
    run_chunks(_run_chunk, tasks, lambda t: (cfg, t[0], t[1], t[2], seed), record,
               inline=inline, executor=executor, workers=n_workers,
               poll=lambda: progress(done / total, f"{cfg.name}: running"),  # cancel point
               describe=lambda t: (f"{cfg.parameter} = {cfg.values[t[0]]:g} " if cfg.parameter
                                   != "round" else "") + f"worlds {t[1] + 1}-{t[2]}")
    data = {m: values_arr[..., k] for k, m in enumerate(cfg.metrics)}
    res = BenchResult(config=cfg, worlds=int(worlds), seed=seed, data=data,
                      elapsed_s=time.perf_counter() - t0)
    return BenchResult(config=cfg, worlds=res.worlds, seed=seed, data=dict(res.data),
                       elapsed_s=res.elapsed_s, checks=tuple(_checks(res)))


# ---------------------------------------------------------------------------- trend checks
def _spearman(x: "Sequence[float] | np.ndarray", y: "Sequence[float] | np.ndarray") -> float:
    from scipy.stats import spearmanr

    xs, ys = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    if ok.sum() < 3 or np.ptp(ys[ok]) == 0:
        return 0.0
    return float(spearmanr(xs[ok], ys[ok]).statistic)


def _slope_ci(res: BenchResult, metric: str, j: int) -> tuple[float, float, float]:
    """OLS slope of the per-world metric on the swept value, with a 95 % t-interval."""
    from scipy.stats import t as student_t

    x = np.repeat(np.asarray(res.config.values, float), res.worlds)
    y = res.data[metric][:, j, :].reshape(-1)
    ok = np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3 or np.ptp(x) == 0:
        return (math.nan, math.nan, math.nan)
    xm = x - x.mean()
    b = float((xm * (y - y.mean())).sum() / (xm ** 2).sum())
    resid = y - y.mean() - b * xm
    se = math.sqrt(float((resid ** 2).sum()) / (x.size - 2) / float((xm ** 2).sum()))
    h = float(student_t.ppf(0.975, x.size - 2)) * se
    return b, b - h, b + h


def _check(claim: str, holds: bool, observed: str, robust: bool) -> dict[str, Any]:
    return {"claim": claim, "holds": bool(holds), "observed": observed,
            "robust_expectation": robust}


def _domain_checks(res: BenchResult, mean: dict[str, np.ndarray], fmt: Any
                   ) -> list[dict[str, Any]]:
    """The domain's own expectations: air legs within the fuel range; rover sample value
    rising with epsilon (B1), falling with the map size (B2), DP keeping more than the
    baselines (B2)."""
    from core.logistics.domains import DEFAULT_FUEL_RANGE

    cfg, aps, vals = res.config, res.config.approaches, list(res.config.values)
    out: list[dict[str, Any]] = []
    if cfg.domain == "air":
        rng = dict(cfg.domain_params).get("fuel_range", DEFAULT_FUEL_RANGE)
        worst = float(np.nanmax(res.data["longest_leg"])) if np.isfinite(
            res.data["longest_leg"]).any() else 0.0
        out.append(_check(f"no flight leg of any delivered plan exceeds the fuel range "
                          f"({rng:g} km)", worst <= rng,
                          f"longest leg flown {worst:g} km", True))
    if cfg.domain != "rover":
        return out
    for j, a in enumerate(aps):
        rho = _spearman(vals, mean["sample_value"][:, j])
        if cfg.name == "B1" and a.startswith("dp"):
            b, lo, hi = _slope_ci(res, "sample_value", j)
            out.append(_check(f"{a}: sample value rises with epsilon (Spearman sign and slope "
                              "CI excluding 0)", rho > 0 and bool(lo > 0),
                              f"means {fmt(mean['sample_value'][:, j])}; Spearman {rho:+.2f}; "
                              f"slope {b:.3g} [{lo:.3g}, {hi:.3g}]", False))
        elif cfg.name == "B2":
            out.append(_check(f"{a}: sample value falls with map size", rho < -0.5,
                              f"means {fmt(mean['sample_value'][:, j])}; Spearman {rho:+.2f}",
                              True))
    if cfg.name == "B2" and "dp" in aps:
        k = aps.index("dp")
        for j, a in enumerate(aps):
            if a in ("bestfirst", "greedy"):
                d = mean["sample_value"][:, k] - mean["sample_value"][:, j]
                out.append(_check(f"DP-based keeps more sample value than {a}",
                                  bool(np.nanmean(d) > 0),
                                  f"dp {fmt(mean['sample_value'][:, k])} vs {a} "
                                  f"{fmt(mean['sample_value'][:, j])}", False))
    return out


def _fmt(arr: np.ndarray) -> str:
    """A row of means for a check's ``observed`` text (3 significant digits, nan kept)."""
    return "[" + ", ".join("nan" if not np.isfinite(v) else f"{v:.3g}" for v in arr) + "]"


def _checks_b1(res: BenchResult, mean: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """B1: each DP approach's success rises, stretch and messages fall with ε."""
    vals = list(res.config.values)
    out: list[dict[str, Any]] = []
    for j, a in enumerate(res.config.approaches):
        if not a.startswith("dp"):
            continue
        for m, sign, robust in (("success", 1, False), ("stretch", -1, False),
                                ("messages", -1, False)):
            rho = _spearman(vals, mean[m][:, j])
            b, lo, hi = _slope_ci(res, m, j)
            sig = bool(np.isfinite(lo)) and (lo > 0 if sign > 0 else hi < 0)
            out.append(_check(f"{a}: {m} {'rises' if sign > 0 else 'falls'} with epsilon "
                              "(Spearman sign and slope CI excluding 0)",
                              rho * sign > 0 and sig,
                              f"means {_fmt(mean[m][:, j])}; Spearman {rho:+.2f}; slope "
                              f"{b:.3g} [{lo:.3g}, {hi:.3g}]", robust))
    return out


def _checks_b2_vs_dp(mean: dict[str, np.ndarray], k: int, j: int, a: str
                     ) -> list[dict[str, Any]]:
    """B2: the thesis's claims that DP-based (column ``k``) beats baseline ``a`` (``j``)."""
    l_a, l_dp = mean["paired_length"][:, j], mean["paired_length_ref"][:, j]
    out = [_check(f"DP-based beats {a} on route length (thesis claim; "
                  "paired tasks: both delivered)",
                  bool(np.nanmean(l_a - l_dp) > 0),
                  f"paired length dp {_fmt(l_dp)} vs {a} {_fmt(l_a)}; "
                  f"delivered dp {_fmt(mean['success'][:, k])} vs {a} "
                  f"{_fmt(mean['success'][:, j])}", False)]
    for m, better in (("messages", -1), ("success", 1)):
        d = (mean[m][:, k] - mean[m][:, j]) * better
        out.append(_check(f"DP-based beats {a} on {m} (thesis claim)",
                          bool(np.nanmean(d) > 0),
                          f"dp {_fmt(mean[m][:, k])} vs {a} {_fmt(mean[m][:, j])}",
                          False))
    return out


def _checks_b2(res: BenchResult, mean: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """B2: route length and messages grow, success falls with map size; No-privacy is
    no longer than DP-based; DP-based against the search baselines."""
    vals = list(res.config.values)
    aps = res.config.approaches
    out: list[dict[str, Any]] = []
    for j, a in enumerate(aps):
        for m, sign in (("route_length", 1), ("messages", 1), ("success", -1)):
            rho = _spearman(vals, mean[m][:, j])
            out.append(_check(f"{a}: {m} {'grows' if sign > 0 else 'falls'} with map size",
                              rho * sign > 0.5, f"means {_fmt(mean[m][:, j])}; Spearman "
                              f"{rho:+.2f}", True))
    if "dp" in aps and "noprivacy" in aps:
        n = aps.index("noprivacy")
        l_np, l_dp = mean["paired_length"][:, n], mean["paired_length_ref"][:, n]
        out.append(_check("No-privacy routes are no longer than DP-based (paired tasks: "
                          "both delivered)", bool(np.all(l_np <= l_dp + 1e-9)),
                          f"paired length noprivacy {_fmt(l_np)} vs dp {_fmt(l_dp)}", True))
    if "dp" in aps:
        k = aps.index("dp")
        for j, a in enumerate(aps):
            if a in ("bestfirst", "greedy"):
                out.extend(_checks_b2_vs_dp(mean, k, j, a))
    return out


def _checks_b3(res: BenchResult, mean: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """B3: approaches that re-plan locally stay roughly flat in dynamism; the others'
    success falls and their messages rise."""
    vals = list(res.config.values)
    out: list[dict[str, Any]] = []
    for j, a in enumerate(res.config.approaches):
        b, lo, hi = _slope_ci(res, "success", j)
        if a in ("dp", "noprivacy", "simplified"):  # re-plan locally
            flat = (np.isfinite(lo) and lo <= 0 <= hi) or (
                np.nanmax(mean["success"][:, j]) - np.nanmin(mean["success"][:, j]) < 0.02)
            out.append(_check(f"{a}: success roughly flat in dynamism", bool(flat),
                              f"means {_fmt(mean['success'][:, j])}; slope {b:.3g} "
                              f"[{lo:.3g}, {hi:.3g}]", True))
        else:
            out.append(_check(f"{a}: success falls with dynamism", bool(hi < 0),
                              f"means {_fmt(mean['success'][:, j])}; slope {b:.3g} "
                              f"[{lo:.3g}, {hi:.3g}]", False))
            rho = _spearman(vals, mean["messages"][:, j])
            out.append(_check(f"{a}: messages rise with dynamism", rho > 0,
                              f"means {_fmt(mean['messages'][:, j])}; Spearman {rho:+.2f}",
                              False))
    return out


def _checks_b4(res: BenchResult, mean: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """B4: success rises with the budget and saturates near C = Σ lc."""
    vals = list(res.config.values)
    out: list[dict[str, Any]] = []
    for j, a in enumerate(res.config.approaches):
        s = mean["success"][:, j]
        rho = _spearman(vals, s)
        at1 = [i for i, v in enumerate(vals) if v >= 1.0]
        sat = bool(at1) and bool(np.nanmax(s) - s[at1[0]] < 0.05)
        out.append(_check(f"{a}: success rises with the budget and saturates near "
                          "C = sum lc", rho > 0 and sat,
                          f"means {_fmt(s)}; Spearman {rho:+.2f}", True))
    return out


def _checks_b5(res: BenchResult, mean: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """B5: messages per plan do not rise after round 1 (the route memo)."""
    cfg = res.config
    out: list[dict[str, Any]] = []
    for j, a in enumerate(cfg.approaches):
        mm = mean["messages"][:, j]
        # after round 1 every plan explores w.p. p_explore, so later rounds are equal in
        # expectation: "non-increasing" fails only on a significant rise after round 1
        sub = BenchResult(config=BenchConfig(**{**cfg.__dict__, "values": cfg.values[1:]}),
                          worlds=res.worlds, seed=res.seed,
                          data={m: res.data[m][1:] for m in METRICS})
        b, lo, hi = _slope_ci(sub, "messages", j)
        ok = bool(np.all(mm[1:] < mm[0])) and not (np.isfinite(lo) and lo > 0)
        out.append(_check(f"{a}: messages per plan non-increasing by round (later rounds "
                          "below round 1, no significant rise after it)", ok,
                          f"means {_fmt(mm)}; slope over rounds 2+ {b:.3g} "
                          f"[{lo:.3g}, {hi:.3g}]", True))
    return out


#: benchmark -> its trend checks (B1 and B2 add the domain's own, :func:`_domain_checks`)
_CHECKS: dict[str, Callable[[BenchResult, dict[str, np.ndarray]], list[dict[str, Any]]]] = {
    "B1": _checks_b1, "B2": _checks_b2, "B3": _checks_b3, "B4": _checks_b4, "B5": _checks_b5}


def _checks(res: BenchResult) -> list[dict[str, Any]]:
    """The benchmark's trend checks on its per-point means."""
    name = res.config.name
    mean = {m: res.mean(m) for m in res.metrics}
    out: list[dict[str, Any]] = list(_CHECKS[name](res, mean)) if name in _CHECKS else []
    if name in ("B1", "B2"):
        out.extend(_domain_checks(res, mean, _fmt))
    return out
