"""Many seeds per configuration: mean and 95 % CI per epoch, advice, budgets, ε sweeps.

:func:`run_experiment` runs every arm (an :class:`~core.advising.presets.ExperimentArm`:
label + set-up) once per seed through a :class:`concurrent.futures.Executor`
(processes by default). Run r uses the integer seed ``seed + r`` — the *same* seeds for
every arm, so comparisons between arms are paired (common random numbers), and any run
can be replayed alone with ``advise --seed``. Each run owns its generator, so results are
bit-identical whatever the number of workers or the chunking (as in
:mod:`core.mdp.sweep`).

Confidence intervals are Student-t 95 % intervals over seeds: mean ± t₀.₉₇₅,ₙ₋₁ · sd/√n.

Examples
--------
>>> from core.advising.presets import experiment_arms
>>> arms = experiment_arms("exp2", epochs=40)
>>> r = run_experiment(arms, seeds=3, seed=0, workers=1, name="exp2")
>>> r.convergence.shape, r.labels
((3, 3, 40), ('no advice', 'traditional', 'dp'))
>>> bool((r.advice[0] == 0).all()), r.paired("dp", "no advice", horizon=40).n
(True, 3)
"""

from __future__ import annotations

import io
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.advising.accounting import DEFAULT_DELTA
from core.advising.framework import run_advising
from core.advising.model import AdvisingSetup
from core.advising.presets import EXP3_EPSILONS, ExperimentArm
from core.common.errors import InputError
from core.common.parallel import run_chunks
from core.common.progress import Progress, no_progress
from core.common.stats import t_half_width
from core.common.validation import fresh_seed

#: Why an ε total of an arm is unbounded (JSON ``null`` + this reason).
UNBOUNDED_SPENT = ("a teacher released raw data (raw Q-values, its raw policy or raw visit "
                   "counts) without noise: no finite epsilon")

__all__ = [
    "UNBOUNDED_SPENT",
    "ArmSummary",
    "PairedDiff",
    "ExperimentResult",
    "run_experiment",
    "epsilon_sweep",
    "ci95",
    "spearman",
]


def ci95(x: np.ndarray, axis: int = 0) -> tuple["np.ndarray | float", "np.ndarray | float"]:
    """(mean, half-width of the Student-t 95 % CI) along ``axis``; half-width 0 for n = 1.

    Parameters
    ----------
    x : numpy.ndarray
        Samples.
    axis : int
        The axis of the samples.

    Returns
    -------
    (float or numpy.ndarray, float or numpy.ndarray)

    Examples
    --------
    >>> m, h = ci95(np.array([1.0, 2.0, 3.0]))
    >>> float(m), round(float(h), 4)
    (2.0, 2.4841)
    """
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=axis)
    if x.shape[axis] < 2:
        return mean, np.zeros_like(mean)
    return mean, t_half_width(x, axis=axis)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties; 0 if either is constant).

    Parameters
    ----------
    x, y : sequence of float
        Paired values.

    Returns
    -------
    float

    Examples
    --------
    >>> round(spearman([0.1, 0.4, 1, 2], [0.70, 0.72, 0.71, 0.75]), 6)
    0.8
    """
    from scipy.stats import rankdata

    rx, ry = rankdata(x), rankdata(y)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass(frozen=True)
class ArmSummary:
    """Scalar summaries of one arm over seeds (means with 95 % CI half-widths)."""

    label: str
    strategy: str
    epsilon: float
    variant: str
    layout: str
    n_seeds: int
    auc200: float
    auc200_ci: float
    cr_final: float
    cr_final_ci: float
    epochs_to_90: float
    epochs_to_90_reached: int
    advice: float
    advice_ci: float
    releases: float
    unprotected: float
    epsilon_spent_max: float
    epsilon_spent_mean: float
    closed_epoch_median: float

    @property
    def unbounded(self) -> bool:
        """True when some teacher of some seed made a release with no finite ε."""
        return math.isinf(self.epsilon_spent_max)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                out[f"{k}_reason"] = _SUMMARY_REASONS.get(k, "undefined")
            else:
                out[k] = v
        return out


#: Why a scalar summary is null in JSON.
_SUMMARY_REASONS = {
    "epsilon_spent_max": UNBOUNDED_SPENT, "epsilon_spent_mean": UNBOUNDED_SPENT,
    "epochs_to_90": "no seed reached a convergence ratio of 90 %",
    "closed_epoch_median": "advice stayed possible until the end in every seed",
}


@dataclass(frozen=True)
class PairedDiff:
    """Seed-wise paired difference a − b of a per-run scalar (AUC over 1..horizon)."""

    a: str
    b: str
    horizon: int
    mean: float
    ci: float
    wins: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Per-arm, per-seed time series of an advising experiment.

    Arrays are (arms, seeds, epochs) unless stated: ``convergence``, ``advice`` (advice
    events per epoch), ``ask_budget`` / ``give_budget`` (mean remaining budget over
    agents), ``epsilon_time`` (mean cumulative true ε per agent, basic composition).
    ``epsilon_spent`` is (arms, seeds, max agents) final true ε per agent (NaN-padded;
    ``inf`` for a teacher with an unbounded release, see :data:`UNBOUNDED_SPENT`);
    ``releases``, ``unprotected``, ``closed_epoch`` are (arms, seeds);
    ``agent_releases`` / ``agent_unprotected`` are (arms, seeds, max agents) per-teacher
    counts of noisy and of unbounded releases (NaN-padded).
    """

    name: str
    labels: tuple[str, ...]
    setups: tuple[AdvisingSetup, ...]
    seeds: np.ndarray
    convergence: np.ndarray
    advice: np.ndarray
    ask_budget: np.ndarray
    give_budget: np.ndarray
    epsilon_time: np.ndarray
    epsilon_spent: np.ndarray
    releases: np.ndarray
    unprotected: np.ndarray
    closed_epoch: np.ndarray
    seed: int
    seed_drawn: bool = False
    workers: int = 1
    elapsed_s: float = 0.0
    agent_releases: np.ndarray | None = None
    agent_unprotected: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("seeds", "convergence", "advice", "ask_budget", "give_budget",
                     "epsilon_time", "epsilon_spent", "releases", "unprotected",
                     "closed_epoch", "agent_releases", "agent_unprotected"):
            if getattr(self, name) is None:
                continue
            arr = np.array(getattr(self, name), copy=True)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def epochs(self) -> int:
        return int(self.convergence.shape[2])

    @property
    def n_seeds(self) -> int:
        return int(self.seeds.size)

    def index(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise InputError(f"no arm {label!r} (arms: {', '.join(self.labels)})",
                             field="arm") from None

    def mean_ci(self, quantity: str = "convergence") -> tuple[np.ndarray, np.ndarray]:
        """(mean, 95 % CI half-width) per arm and epoch of a (arms, seeds, epochs) series."""
        if quantity not in ("convergence", "advice", "ask_budget", "give_budget",
                            "epsilon_time"):
            raise InputError(f"unknown series {quantity!r}", field="quantity")
        x = getattr(self, quantity).astype(np.float64)
        inf = np.isinf(x).any(axis=1)
        if not inf.any():
            mean, half = ci95(x, axis=1)  # arrays: x is (arms, seeds, epochs)
            return np.asarray(mean), np.asarray(half)
        m, h = ci95(np.where(np.isinf(x), 0.0, x), axis=1)  # unbounded: ∞ ± ∞
        return np.where(inf, np.inf, m), np.where(inf, np.inf, h)

    def auc(self, horizon: int = 200) -> np.ndarray:
        """(arms, seeds) mean convergence ratio over epochs 1..horizon."""
        result: np.ndarray = self.convergence[:, :, :max(1, horizon)].mean(axis=2)
        return result

    def epochs_to(self, level: float = 0.9) -> np.ndarray:
        """(arms, seeds) first epoch with CR ≥ level (NaN if never)."""
        hit = self.convergence >= level
        first: np.ndarray = hit.argmax(axis=2).astype(np.float64) + 1
        first[~hit.any(axis=2)] = np.nan
        return first

    def paired(self, a: str, b: str, *, horizon: int = 200) -> PairedDiff:
        """AUC_horizon(a) − AUC_horizon(b), seed by seed (the same seeds in both)."""
        auc = self.auc(horizon)
        d = auc[self.index(a)] - auc[self.index(b)]
        m, h = ci95(d)
        return PairedDiff(a=a, b=b, horizon=horizon, mean=float(m), ci=float(h),
                          wins=int((d > 0).sum()), n=int(d.size))

    def summaries(self) -> list[ArmSummary]:
        auc = self.auc(200)
        e90 = self.epochs_to(0.9)
        out = []
        for a, label in enumerate(self.labels):
            p = self.setups[a].params
            m_auc, h_auc = ci95(auc[a])
            m_fin, h_fin = ci95(self.convergence[a, :, -1])
            m_adv, h_adv = ci95(self.advice[a].sum(axis=1).astype(np.float64))
            reached = e90[a][np.isfinite(e90[a])]
            closed = self.closed_epoch[a][np.isfinite(self.closed_epoch[a])]
            spent = self.epsilon_spent[a]
            out.append(ArmSummary(
                label=label, strategy=p.strategy, epsilon=p.epsilon, variant=p.variant,
                layout=_layout_name(self.setups[a]), n_seeds=self.n_seeds,
                auc200=float(m_auc), auc200_ci=float(h_auc), cr_final=float(m_fin),
                cr_final_ci=float(h_fin),
                epochs_to_90=float(reached.mean()) if reached.size else math.nan,
                epochs_to_90_reached=int(reached.size), advice=float(m_adv),
                advice_ci=float(h_adv), releases=float(self.releases[a].mean()),
                unprotected=float(self.unprotected[a].mean()),
                epsilon_spent_max=float(np.nanmax(spent, axis=1).mean()),
                epsilon_spent_mean=float(np.nanmean(spent, axis=1).mean()),
                closed_epoch_median=float(np.median(closed)) if closed.size else math.nan))
        return out

    def to_dict(self, *, series: bool = True) -> dict[str, Any]:
        """The ``advise-bench --json`` object for this experiment."""
        arms = []
        means = {q: self.mean_ci(q) for q in ("convergence", "advice", "ask_budget",
                                              "give_budget", "epsilon_time")}
        for a, summary in enumerate(self.summaries()):
            d: dict[str, Any] = {"summary": summary.to_dict()}
            if series:
                for q, (m, h) in means.items():
                    for key, vals in ((f"{q}_mean", m[a]), (f"{q}_ci", h[a])):
                        d[key] = [float(v) if math.isfinite(v) else None for v in vals]
                        if not np.isfinite(vals).all():
                            d[f"{key}_reason"] = [None if math.isfinite(v) else
                                                  UNBOUNDED_SPENT for v in vals]
            arms.append(d)
        base = self.labels[0]
        comps = [self.paired(lab, base).to_dict() for lab in self.labels[1:]]
        return {"experiment": self.name, "labels": list(self.labels),
                "seeds": self.seeds.tolist(), "seed": self.seed,
                "seed_drawn_from_os": self.seed_drawn, "epochs": self.epochs,
                "mode": "experiment", "workers": self.workers, "arms": arms,
                "comparisons": comps, "elapsed_s": self.elapsed_s}

    def to_csv(self) -> str:
        """Per arm and epoch: mean and 95 % CI of CR, advice, budgets and ε (one header)."""
        buf = io.StringIO()
        cols = ["experiment", "arm", "strategy", "epsilon", "variant", "epoch", "seeds",
                "cr_mean", "cr_ci_low", "cr_ci_high", "advice_mean", "ask_budget_mean",
                "give_budget_mean", "epsilon_spent_mean"]
        buf.write(",".join(cols) + "\n")
        cm, ch = self.mean_ci("convergence")
        am, _ = self.mean_ci("advice")
        bm, _ = self.mean_ci("ask_budget")
        gm, _ = self.mean_ci("give_budget")
        em, _ = self.mean_ci("epsilon_time")
        for a, label in enumerate(self.labels):
            p = self.setups[a].params
            for e in range(self.epochs):
                buf.write(f"{self.name},{_csv(label)},{p.strategy},{p.epsilon:g},{p.variant},"
                          f"{e + 1},{self.n_seeds},{cm[a, e]:.6f},{cm[a, e] - ch[a, e]:.6f},"
                          f"{cm[a, e] + ch[a, e]:.6f},{am[a, e]:.4f},{bm[a, e]:.4f},"
                          f"{gm[a, e]:.4f},{em[a, e]:.6g}\n")
        return buf.getvalue()


def _csv(text: str) -> str:
    return f'"{text}"' if ("," in text or '"' in text) else text


def _layout_name(setup: AdvisingSetup) -> str:
    desc = setup.description
    return desc.split("[layout: ")[-1].rstrip("]") if "[layout: " in desc else setup.name


def _run_chunk(setup: AdvisingSetup, seeds: Sequence[int], delta: float) -> dict[str, np.ndarray]:
    """Runs of one arm for ``seeds``: the per-run series the experiment keeps."""
    E, n = setup.params.epochs, setup.n_agents
    m = len(seeds)
    out = {"conv": np.empty((m, E)), "adv": np.empty((m, E), dtype=np.int64),
           "ask": np.empty((m, E)), "give": np.empty((m, E)), "eps_t": np.empty((m, E)),
           "eps": np.empty((m, n)), "rel": np.empty(m), "unp": np.empty(m),
           "closed": np.empty(m), "a_rel": np.empty((m, n)), "a_unp": np.empty((m, n))}
    for r, sd in enumerate(seeds):
        res = run_advising(setup, rng=int(sd), delta=delta, detail=False)
        out["conv"][r] = res.convergence
        out["adv"][r] = res.advice_per_epoch
        out["ask"][r] = res.ask_budget.mean(axis=1)
        out["give"][r] = res.give_budget.mean(axis=1)
        out["eps_t"][r] = res.epsilon_over_time().mean(axis=1)
        out["eps"][r] = res.epsilon_spent
        out["rel"][r] = res.releases_per_epoch.sum()
        out["unp"][r] = res.unprotected_per_epoch.sum()
        out["a_rel"][r] = res.releases_per_epoch.sum(axis=0)
        out["a_unp"][r] = res.unprotected_per_epoch.sum(axis=0)
        out["closed"][r] = (math.nan if res.advising_closed_epoch is None
                            else res.advising_closed_epoch)
    return out


def run_experiment(arms: Sequence[ExperimentArm], *, seeds: "int | Sequence[int]" = 20,
                   seed: int | None = 0, workers: int | None = None,
                   executor: Executor | None = None, delta: float = DEFAULT_DELTA,
                   name: str = "custom", progress: Progress = no_progress) -> ExperimentResult:
    """Run every arm for every seed; return per-epoch series for means and CIs.

    Parameters
    ----------
    arms : sequence of ExperimentArm
        Labelled set-ups (e.g. :func:`core.advising.presets.experiment_arms`); all must
        have the same number of epochs.
    seeds : int or sequence of int
        Number of seeds (run r uses ``seed + r``) or the explicit seeds.
    seed : int or None
        First seed; drawn from the OS and recorded if None.
    workers : int, optional
        Processes (default: CPU count); 1 runs on the calling thread.
    executor : Executor, optional
        Use this executor instead (not shut down here).
    progress : callable
        ``progress(fraction, message)``; raise :class:`core.common.progress.Cancelled` to stop.
    """
    arms = list(arms)
    if not arms:
        raise InputError("needs at least one arm", field="arms")
    for a in arms:
        if not isinstance(a, ExperimentArm):
            raise InputError("every arm must be an ExperimentArm", field="arms")
    labels = [a.label for a in arms]
    if len(set(labels)) != len(labels):
        raise InputError("arm labels must be distinct", field="arms")
    epochs = {a.setup.params.epochs for a in arms}
    if len(epochs) != 1:
        raise InputError("all arms need the same number of epochs", field="epochs")
    E = epochs.pop()
    seed_drawn = seed is None
    base = fresh_seed() if seed is None else int(seed)
    if isinstance(seeds, bool):
        raise InputError(f"must be a number of seeds or a list of seeds, got {seeds!r}",
                         field="seeds")
    if isinstance(seeds, (int, np.integer)):
        if seeds < 1:
            raise InputError(f"must be >= 1, got {seeds!r}", field="seeds")
        seed_list = [base + r for r in range(int(seeds))]
    else:
        seed_list = [int(s) for s in seeds]
        if not seed_list or any(s < 0 for s in seed_list):
            raise InputError("needs at least one non-negative seed", field="seeds")
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if n_workers < 1:
        raise InputError(f"must be >= 1, got {workers!r}", field="workers")
    R, A = len(seed_list), len(arms)
    n_max = max(a.setup.n_agents for a in arms)
    from core.common.memory import check_memory

    # five (arms x seeds x epochs) curves and the per-agent ε, held until the end
    check_memory(8.0 * A * R * (5.0 * E + n_max), "seeds",
                 detail=f"{A} arms x {R:,} seeds x {E:,} epochs")
    inline = executor is None and n_workers == 1
    # A pool gets tasks of a few runs each (start-up and pickling stay small, and the
    # load still balances); in-process runs report after every run.
    chunk = 1 if inline else max(1, min(5, math.ceil(A * R / (4 * n_workers))))
    tasks = [(a, start, min(R, start + chunk)) for a in range(A) for start in range(0, R, chunk)]
    conv = np.empty((A, R, E))
    adv = np.empty((A, R, E), dtype=np.int64)
    ask = np.empty((A, R, E))
    give = np.empty((A, R, E))
    eps_t = np.empty((A, R, E))
    eps = np.full((A, R, n_max), np.nan)
    rel = np.empty((A, R))
    unp = np.empty((A, R))
    closed = np.empty((A, R))
    a_rel = np.full((A, R, n_max), np.nan)
    a_unp = np.full((A, R, n_max), np.nan)
    done = 0
    t0 = time.perf_counter()

    def record(task: tuple[int, int, int], out: dict[str, np.ndarray]) -> None:
        nonlocal done
        a, start, stop = task
        conv[a, start:stop] = out["conv"]
        adv[a, start:stop] = out["adv"]
        ask[a, start:stop] = out["ask"]
        give[a, start:stop] = out["give"]
        eps_t[a, start:stop] = out["eps_t"]
        eps[a, start:stop, :out["eps"].shape[1]] = out["eps"]
        rel[a, start:stop] = out["rel"]
        unp[a, start:stop] = out["unp"]
        closed[a, start:stop] = out["closed"]
        a_rel[a, start:stop, :out["a_rel"].shape[1]] = out["a_rel"]
        a_unp[a, start:stop, :out["a_unp"].shape[1]] = out["a_unp"]
        done += stop - start
        progress(done / (A * R), f"{labels[a]}: {done} of {A * R} runs")

    progress(0.0, "starting")
    run_chunks(_run_chunk, tasks, lambda t: (arms[t[0]].setup, seed_list[t[1]:t[2]], delta),
               record, inline=inline, executor=executor, workers=n_workers,
               poll=lambda: progress(done / (A * R), "running"),  # a cancel point
               describe=lambda t: f"arm {t[0] + 1} seeds {seed_list[t[1]]}-{seed_list[t[2] - 1]}")
    return ExperimentResult(
        name=name, labels=tuple(labels), setups=tuple(a.setup for a in arms),
        seeds=np.array(seed_list), convergence=conv, advice=adv, ask_budget=ask,
        give_budget=give, epsilon_time=eps_t, epsilon_spent=eps, releases=rel,
        unprotected=unp, closed_epoch=closed, seed=base, seed_drawn=seed_drawn,
        workers=1 if inline else n_workers, elapsed_s=time.perf_counter() - t0,
        agent_releases=a_rel, agent_unprotected=a_unp)


def epsilon_sweep(setup: AdvisingSetup, epsilons: Sequence[float] = EXP3_EPSILONS, *,
                  baseline: bool = True, **kwargs: Any) -> ExperimentResult:
    """DP advising on ``setup`` at each ε (plus the no-advice base); see :func:`run_experiment`.

    Parameters
    ----------
    setup : AdvisingSetup
        The set-up.
    epsilons : sequence of float
        ε of the DP arms.
    baseline : bool
        Add the no-advice arm first.
    **kwargs
        :func:`run_experiment`'s (seeds, seed, workers, progress, …).

    Returns
    -------
    ExperimentResult

    Examples
    --------
    >>> from core.advising.presets import preset
    >>> r = epsilon_sweep(preset("exp3", epochs=20), [0.5, 2.0], seeds=2, workers=1)
    >>> r.labels
    ('no advice', 'dp eps=0.5', 'dp eps=2')
    """
    from core.privacy.laplace import check_epsilon

    eps = [check_epsilon(e, "epsilons") for e in epsilons]
    if not eps:
        raise InputError("needs at least one value", field="epsilons")
    arms = [ExperimentArm("no advice", setup.with_params(strategy="none"))] if baseline else []
    arms += [ExperimentArm(f"dp eps={e:g}", setup.with_params(strategy="dp", epsilon=e))
             for e in eps]
    kwargs.setdefault("name", "epsilon sweep")
    return run_experiment(arms, **kwargs)
