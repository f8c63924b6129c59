"""The Figure 2.1 experiment: value functions and cost of privacy against k.

For each k and each of N runs: privatise the model with Dir_k (Algorithm 1 step 1),
synthesise π̄ on the private model, compute V̄^π̄, the robust bounds v̲ and v̄, and
V^π̄ — π̄ evaluated on the *true* model (the "oracle view": the algorithm itself never
sees it; it is shown to validate the bound). All values are taken at the initial state.

The robust set is built with radius α + shift(s, a) per row, where shift is the public
bound of how far the pre-processing (domain rule ``mix``, ``zeros="smoothing"``) moved the
centre of the noise away from the true row (:func:`core.mdp.robust.centre_shift`): the oracle
comparison is against the *true* model, which Lemma 2.2 alone does not put within α of P̄.
``alpha`` in the result is Lemma 2.2's radius; ``alpha_shift`` the largest inflation.

Runs go through a :class:`concurrent.futures.Executor` (processes by default). Run r of
the i-th k draws from ``SeedSequence(seed, spawn_key=(i, r))``, so results are
bit-identical for a seed whatever the number of workers or the chunking.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> r = privacy_sweep(four_startups(), [10, 1000], runs=3, seed=1, workers=1)
>>> r.v_lower.shape, bool((r.v_lower <= r.v_private + 1e-12).all())
((2, 3), True)
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from core.common.errors import InputError, RunFailure
from core.common.jsonable import jsonable_dict
from core.common.parallel import run_chunks
from core.common.progress import Progress, no_progress, sub_progress
from core.common.quantities import NON_NEGATIVE, REAL, QuantityRange
from core.common.validation import (
    check_beta,
    check_choice,
    check_int,
    check_k,
    check_seed,
    fresh_seed,
)
from core.mdp.accounting import ComposedPrivacy, MdpPrivacy, compose_privatisations, mdp_privacy
from core.mdp.model import MDP
from core.mdp.privatize import (
    DEFAULT_DOMAIN_RULE,
    DEFAULT_ETA,
    MechanismRows,
    mechanism_rows,
    privatize_mdp,
)
from core.mdp.robust import (
    ALPHA_MODES,
    alpha_radius,
    alpha_shift_note,
    centre_shift,
    robust_bounds,
    robust_bounds_stochastic,
)
from core.mdp.stochastic import (
    check_policy_table,
    check_temperature,
    evaluate_stochastic,
    softmax_policy,
)
from core.mdp.synthesis import evaluate_policy, synthesize

if TYPE_CHECKING:
    from core.mdp.records import SweepParameters

__all__ = ["SweepResult", "privacy_sweep", "sweep_release", "DEFAULT_K", "QUANTITIES", "SMALL_WORK",
           "partial_summary", "QUANTITY_RANGES"]

DEFAULT_K = (10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0)
QUANTITIES = ("v_lower", "v_private", "v_true", "v_upper")
_LARGE_ROWS = 10_000  # state–action rows from which the accounting shows its progress
_ACCOUNTING_SHARE = 0.2  # of a large model's progress bar, for its accounting
#: A summary's quantity -> what it can physically be: a value at s₀ has no limit (rewards
#: of either sign); the costs of privacy, v̄ − v̲ and |V̄ − V|, are never negative. A
#: mean ± sd bar is clipped to this (core.common.quantities.clip_band).
QUANTITY_RANGES: dict[str, QuantityRange] = {
    **{q: REAL for q in QUANTITIES}, "cost_bound": NON_NEGATIVE,
    "cost_empirical": NON_NEGATIVE}


@dataclass(frozen=True, eq=False)
class SweepResult:
    """Per-k, per-run values at the initial state; arrays are (K, runs)."""

    k: np.ndarray
    alpha: np.ndarray
    v_lower: np.ndarray
    v_private: np.ndarray
    v_true: np.ndarray
    v_upper: np.ndarray
    runs: int
    beta: float
    alpha_mode: str
    zeros: str
    seed: int
    elapsed_s: float = 0.0
    mode: str = "experiment"
    privacy: tuple[MdpPrivacy, ...] = ()
    eta: "float | str" = DEFAULT_ETA
    domain_rule: str = DEFAULT_DOMAIN_RULE
    alpha_shift: float = 0.0  # largest per-row inflation of α (centre shift); 0: none
    backend: str = "in-process"  # where the runs ran (results do not depend on it)
    policy_source: str = "greedy"  # π̄: "greedy", "softmax" (at temperature) or "table"
    temperature: float | None = None

    @property
    def alpha_shift_note(self) -> str:
        """Why α was inflated ("" when it was not)."""
        return alpha_shift_note(self.alpha_shift)

    def __post_init__(self) -> None:
        for name in ("k", "alpha", *QUANTITIES):
            arr = np.array(getattr(self, name), dtype=np.float64, copy=True)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def cost_bound(self) -> np.ndarray:
        """v̄(s₀) − v̲(s₀) per run: the computable bound."""
        result: np.ndarray = self.v_upper - self.v_lower
        return result

    @property
    def cost_empirical(self) -> np.ndarray:
        """|V̄^π̄(s₀) − V^π̄(s₀)| per run (needs the true model: oracle view)."""
        result: np.ndarray = np.abs(self.v_private - self.v_true)
        return result

    @cached_property
    def composed(self) -> ComposedPrivacy | None:
        """Every privatisation of the sweep (runs per k) composed, at the target δ̂: PLD
        (exact profile) beside basic composition. Seeded experiments release nothing; this
        is what the same privatisations would cost as releases."""
        if not self.privacy:
            return None
        return compose_privatisations([(p, self.runs) for p in self.privacy],
                                      self.privacy[0].delta_target)

    def series(self, name: str) -> np.ndarray:
        result: np.ndarray = getattr(self, name)
        return result

    def mean(self, name: str) -> np.ndarray:
        result: np.ndarray = self.series(name).mean(axis=1)
        return result

    def sd(self, name: str) -> np.ndarray:
        """Sample standard deviation over runs (0 when there is a single run)."""
        x = self.series(name)
        return x.std(axis=1, ddof=1) if x.shape[1] > 1 else np.zeros(x.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """The ``sweep --json`` object: every list aligned with ``k``.

        Strict JSON (:func:`core.common.jsonable.jsonable`): an unbounded ε is ``None``
        with its reason at the same index of ``epsilon_reason``; never inf or NaN.
        """
        out: dict[str, Any] = {"k": self.k.tolist(), "runs": self.runs, "beta": self.beta,
                               "alpha_mode": self.alpha_mode, "alpha": self.alpha.tolist(),
                               "zeros": self.zeros, "seed": self.seed, "mode": self.mode,
                               "eta": self.eta, "domain_rule": self.domain_rule,
                               "alpha_shift": self.alpha_shift,
                               # the largest radius any row's robust set used, per k
                               "alpha_effective": (self.alpha + self.alpha_shift).tolist(),
                               "alpha_shift_note": self.alpha_shift_note}
        for name in (*QUANTITIES, "cost_bound", "cost_empirical"):
            out[f"{name}_mean"] = self.mean(name).tolist()
            out[f"{name}_sd"] = self.sd(name).tolist()
        if self.privacy:
            first = self.privacy[0]
            out.update(b=first.b, delta_target=first.delta_target, adjacency=first.adjacency,
                       adjacency_text=first.adjacency_text,
                       delta_method=first.delta_method, accountant=first.accountant,
                       epsilon=[p.epsilon for p in self.privacy],
                       delta=[p.delta for p in self.privacy],
                       privacy_statement=[p.statement for p in self.privacy],
                       privacy_supports=[[g.to_dict() for g in p.supports]
                                         for p in self.privacy],
                       privacy_rows=[p.to_dict()["rows"] for p in self.privacy])
            if not all(p.bounded for p in self.privacy):
                out["epsilon_reason"] = [None if p.bounded else p.epsilon_reason
                                         for p in self.privacy]
            if self.composed is not None:
                out["composed"] = self.composed.to_dict()
        out["elapsed_s"] = self.elapsed_s
        out["backend"] = self.backend
        if self.policy_source != "greedy":  # (a greedy sweep prints what it always did)
            out["policy_source"] = self.policy_source
            if self.temperature is not None:
                out["temperature"] = self.temperature
        return jsonable_dict(out)


#: Below this much work (entries of P × stages × runs × k values) a sweep runs in-process:
#: Example 2's default sweep (10 k × 50 runs on 20 × 5 × 20, T = 10: 1e7) takes 2.0 s
#: in-process and 2.8 s on two worker processes (measured on a 2-core machine).
SMALL_WORK = 2e7


def partial_summary(ks: Sequence[float], values: np.ndarray, finished: np.ndarray, *,
                    seed: int, runs: int, missing: str) -> dict[str, Any]:
    """What a sweep that failed midway still has: per k, the runs that finished and the
    means over them (``None`` where none finished, with the reason), and what is missing.

    Parameters
    ----------
    ks : sequence of float
        The k values.
    values : numpy.ndarray
        (K, runs, 4) values at s0 (v_lower, v_private, v_true, v_upper).
    finished : numpy.ndarray
        (K, runs) bool: which runs finished.
    seed, runs : int
        The experiment's seed and runs per k.
    missing : str
        The failure's one line (names the missing chunks).

    Returns
    -------
    dict
        Strict JSON (``complete`` is False).
    """
    out: dict[str, Any] = {"complete": False, "missing": missing, "k": [float(k) for k in ks],
                           "runs": runs, "seed": seed,
                           "runs_finished": [int(n) for n in finished.sum(axis=1)]}
    for j, name in enumerate(QUANTITIES):
        means: list[float | None] = []
        for i in range(len(ks)):
            done = values[i, finished[i], j]
            means.append(float(done.mean()) if done.size else None)
        out[f"{name}_mean"] = means
        if any(m is None for m in means):
            out[f"{name}_mean_reason"] = ["no run of this k finished" if m is None else None
                                          for m in means]
    return jsonable_dict(out)


def _small_work() -> float:
    """:data:`SMALL_WORK`, or ``$PRIVPLAN_SMALL_WORK`` when set (0 forces a pool: the
    packaging smoke test uses it to check that a frozen app starts its worker processes)."""
    text = os.environ.get("PRIVPLAN_SMALL_WORK", "").strip()
    if not text:
        return SMALL_WORK
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"must be a number, got {text!r}", field="PRIVPLAN_SMALL_WORK") from None
    return value


def _run_chunk(mdp: MDP, prepared: MechanismRows, table: np.ndarray | None, k: float,
               alpha: "float | np.ndarray", beta: float, seed: int, k_index: int, start: int,
               stop: int, temperature: float | None = None,
               check: Progress = no_progress) -> np.ndarray:
    """Runs ``start..stop-1`` for one k; returns (stop-start, 4) values at s0.

    ``check(0, message)`` is called between the steps of a run and inside its synthesis
    and bounds (an in-process sweep's cancel points; its fraction is ignored).

    ``alpha`` is the radius of every row, or (S, A) radii α + centre shift. π̄ is the
    greedy policy of each private model, its softmax policy at ``temperature``, or the
    given stochastic ``table`` (the same for every run).
    """
    out = np.empty((stop - start, 4))
    s0 = mdp.initial_state
    for j, r in enumerate(range(start, stop)):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed,
                                                                         spawn_key=(k_index, r))))
        check(0.0, f"run {r + 1}: privatising")
        private = privatize_mdp(mdp, k, rng=rng, prepared=prepared).mdp
        if table is None and temperature is None:
            plan = synthesize(private, progress=check)
            vb = robust_bounds(private, plan.policy, alpha=alpha, beta=beta, progress=check)
            check(0.0, f"run {r + 1}: evaluating π̄ on the true model")
            v_private = plan.values
            v_true = evaluate_policy(mdp, plan.policy)
        else:
            if temperature is not None:
                soft = softmax_policy(private, temperature)
                pi, v_private = soft.policy, soft.values
            else:
                assert table is not None
                pi, v_private = table, evaluate_stochastic(private, table)
            check(0.0, f"run {r + 1}: bounds")
            vb = robust_bounds_stochastic(private, pi, alpha=alpha, beta=beta)
            check(0.0, f"run {r + 1}: evaluating π̄ on the true model")
            v_true = evaluate_stochastic(mdp, pi)
        lo, hi = vb.v_lower, vb.v_upper
        if mdp.is_finite:  # a finite horizon's values are per stage: its first row
            lo, v_private, v_true, hi = lo[0], v_private[0], v_true[0], hi[0]
        out[j] = (lo[s0], v_private[s0], v_true[s0], hi[s0])
    return out


def _run_plan(mdp: MDP, n_ks: int, runs: int, executor: Any, n_workers: int
              ) -> tuple[bool, list[tuple[int, int, int]]]:
    """Whether the runs go in-process, and their chunks (k index, first run, end).

    In-process runs report (and can be cancelled) after every run; a pool gets about
    eight chunks per worker and k: progress moves often, start-up and pickling stay small.
    Small work runs in-process whatever ``workers`` says: starting a pool costs about a
    second, more than Example 2's whole sweep gains from it (results are the same).
    """
    inline = executor is None and (n_workers == 1 or
                                   _sweep_work(mdp, runs * n_ks) < _small_work())
    chunk = 1 if inline else max(1, math.ceil(runs / max(1, 8 * n_workers)))
    return inline, [(i, start, min(runs, start + chunk)) for i in range(n_ks)
                    for start in range(0, runs, chunk)]


def _sweep_work(mdp: MDP, n_runs: int) -> float:
    """Entries of P the sweep's ``n_runs`` runs visit: per stage all S·A·S of a small
    (dense) model, the stored ones of a sparse one (its runs touch nothing else)."""
    S, A = mdp.n_states, mdp.n_actions
    entries = float(S) * A * S if mdp.is_dense else float(max(mdp.nnz, S * A))
    return entries * max(1, mdp.horizon or 1) * n_runs


def _privacy_per_k(mdp: MDP, ks: list[float], pre: float, progress: Progress,
                   **accounting: Any) -> tuple[MdpPrivacy, ...]:
    """The model's privacy at each k; with ``pre`` > 0 the accounting reports on that
    first share of ``progress``."""
    return tuple(mdp_privacy(mdp, k, **accounting,
                             progress=sub_progress(progress, pre * i / len(ks),
                                                   pre * (i + 1) / len(ks))
                             if pre else no_progress)
                 for i, k in enumerate(ks))


def _backend(inline: bool, executor: Any, n_workers: int) -> str:
    """Where the runs ran, in words."""
    if inline:
        return "in-process"
    if executor is not None:
        where = getattr(executor, "address", None)
        return (f"dask cluster at {where} ({n_workers} threads)" if where
                else f"caller's executor ({n_workers} workers)")
    return f"{n_workers} local worker processes"


def sweep_release(mdp: MDP, params: "SweepParameters", progress: Progress = no_progress, *,
                  executor: Executor | None = None, workers: int | None = None,
                  zeros: str = "support", policy_table: np.ndarray | None = None
                  ) -> "SweepResult":
    """Run the privacy sweep of ``params`` on ``mdp``: the one entry point of a sweep.

    The window's Run (F5) starts it in its worker and ``sweep`` calls it; both record its
    result with :func:`core.project.recording.sweep_run_record`. What the run means is all
    in ``params`` (validated when it was made); the arguments beside it are how it runs.

    Parameters
    ----------
    mdp : MDP
        The true model.
    params : SweepParameters
        The ks, runs, β, α mode, seed, accounting and π̄ of the sweep.
    progress : callable
        ``progress(fraction, message)``; may raise :class:`core.common.progress.Cancelled`.
    executor : concurrent.futures.Executor, optional
        Where the chunks run (a cluster's); default: the local pool.
    workers : int, optional
        Replaces ``params.workers`` (a cluster states its own thread count).
    zeros : str
        ``"support"`` or ``"full"``: which zero entries the privatisation may fill.
    policy_table : ndarray, optional
        π̄ given as a table (``params.policy_source == "table"``).

    Returns
    -------
    SweepResult

    Examples
    --------
    >>> from core.mdp.examples import four_startups
    >>> from core.mdp.records import SweepParameters
    >>> p = SweepParameters(ks=(100,), runs=2, beta=0.05, alpha_mode="paper", seeded=True,
    ...                     seed=1, workers=1)
    >>> r = sweep_release(four_startups(), p)
    >>> r.k.tolist(), r.runs, r.seed
    ([100.0], 2, 1)
    """
    kwargs = params.sweep_kwargs()
    if workers is not None:
        kwargs["workers"] = workers
    return privacy_sweep(mdp, list(params.ks), **kwargs, zeros=zeros, executor=executor,
                         progress=progress, policy_table=policy_table)


def privacy_sweep(mdp: MDP, ks: Sequence[float] = DEFAULT_K, *, runs: int = 50,
                  beta: float = 0.05, alpha_mode: str = "paper", seed: int | None = None,
                  zeros: str = "support", b: float = 0.1, delta_target: float = 0.05,
                  adjacency: str = "one-row", eta: "float | str" = DEFAULT_ETA,
                  delta_method: str = "auto",
                  domain_rule: str = DEFAULT_DOMAIN_RULE, workers: int | None = None,
                  executor: Executor | None = None, progress: Progress = no_progress,
                  temperature: float | None = None, policy_table: np.ndarray | None = None
                  ) -> SweepResult:
    """Run the Figure 2.1 experiment on ``mdp`` (the *true* model).

    Parameters
    ----------
    ks : sequence of float
        Concentrations k (> 0, need not be integers).
    runs : int
        Privatisations per k (the papers use 50).
    beta, alpha_mode : see :func:`core.mdp.robust.cost_of_privacy`. Each row's radius is α
        plus its centre shift (module docstring).
    seed : int, optional
        Experiment seed; drawn from the OS and recorded if omitted.
    zeros : {"support", "smoothing"}
        Zero probabilities (:mod:`core.privacy.dirichlet`).
    b, delta_target, adjacency :
        The (ε, δ) accounting of every k (:func:`core.mdp.accounting.mdp_privacy`).
    eta, domain_rule :
        The declared domain and its rule (``"mix"``, the default, or ``"refuse"``; the
        defaults are :data:`core.mdp.privatize.DEFAULT_ETA` and
        :data:`core.mdp.privatize.DEFAULT_DOMAIN_RULE`): every run privatises
        the rows exactly as the accounting describes them
        (:func:`core.mdp.privatize.mechanism_rows`, computed once). With ``refuse`` a
        row outside the domain stops the sweep before any run, naming the row.
    workers : int, optional
        Processes (default: CPU count). ``1`` runs on the calling thread.
    executor : Executor, optional
        Use this executor instead (not shut down here).
    progress : callable
        ``progress(fraction, message)``; raise :class:`core.common.progress.Cancelled` to stop.
    temperature : float, optional
        π̄ is the entropy-regularised softmax policy of each private model at this τ
        (:func:`core.mdp.stochastic.softmax_policy`) instead of its greedy policy.
    policy_table : numpy.ndarray, optional
        π̄ is this given stochastic policy π(a|s) in every run (not synthesised): the sweep
        then shows the cost of privacy of that policy.
    """
    ks = [check_k(k, "k") for k in ks]
    if temperature is not None and policy_table is not None:
        raise InputError("give a policy table or a temperature, not both", field="policy")
    if temperature is not None:
        temperature = check_temperature(temperature)
    table = None if policy_table is None else check_policy_table(mdp, policy_table)
    if not ks:
        raise InputError("needs at least one value", field="k")
    runs = check_int(runs, "runs")
    beta = check_beta(beta)
    check_choice(alpha_mode, ALPHA_MODES, "alpha")
    seed = check_seed(seed)
    seed = fresh_seed() if seed is None else seed
    alphas = [alpha_radius(k, beta, mode=alpha_mode, n=mdp.n_states) for k in ks]
    prepared = mechanism_rows(mdp, eta=eta, domain_rule=domain_rule, zeros=zeros)
    # the noise is centred on the pre-processed rows T(P): widen each row's radius by the
    # public bound of ‖T(P) − P‖_∞ so that the bounds are about the true model
    shift = centre_shift(prepared, (mdp.n_states, mdp.n_actions))
    shifted = bool((shift > 0).any())
    radii: list[float | np.ndarray] = [a + shift if shifted else a for a in alphas]
    # a large model's per-row accounting takes a while: it gets the first part of the
    # progress bar and its cancel points (a small model's is instant: none)
    pre = _ACCOUNTING_SHARE if mdp.n_states * mdp.n_actions >= _LARGE_ROWS else 0.0
    privacy = _privacy_per_k(mdp, ks, pre, progress, b=b, delta_target=delta_target,
                             adjacency=adjacency, prepared=prepared,
                             delta_method=delta_method)
    n_workers = check_int(workers, "workers") if workers is not None else (os.cpu_count() or 1)
    inline, tasks = _run_plan(mdp, len(ks), runs, executor, n_workers)
    t0 = time.perf_counter()
    values = np.empty((len(ks), runs, 4))
    done = 0

    finished = np.zeros((len(ks), runs), dtype=bool)

    def record(task: tuple[int, int, int], result: np.ndarray) -> None:
        nonlocal done
        i, start, stop = task
        values[i, start:stop] = result
        finished[i, start:stop] = True
        done += stop - start
        progress(pre + (1 - pre) * done / (len(ks) * runs),
                 f"k = {ks[i]:g}: {done} of {len(ks) * runs} runs")

    def check(fraction: float = 0.0, message: str = "") -> None:
        """A cancel point inside a run or while waiting for the pool: the progress so far."""
        progress(pre + (1 - pre) * done / (len(ks) * runs), message or "running")

    progress(pre, "starting" if inline else f"starting {n_workers} worker processes")
    # the model and its pre-processed rows go to each worker once (``shared``), not with
    # every chunk: a 2000-state model is 128 MB
    try:
        run_chunks(functools.partial(_run_chunk, check=check) if inline else _run_chunk,
                   tasks,
                   lambda t: (ks[t[0]], radii[t[0]], beta, seed, t[0], t[1], t[2],
                              temperature),
                   record, inline=inline, executor=executor, workers=n_workers,
                   shared=(mdp, prepared, table),
                   describe=lambda t: f"k = {ks[t[0]]:g} runs {t[1] + 1}-{t[2]}",
                   poll=check)
    except RunFailure as exc:  # keep what finished, with what is missing named
        exc.partial = partial_summary(ks, values, finished, seed=seed, runs=int(runs),
                                      missing=str(exc))
        raise
    backend = _backend(inline, executor, n_workers)
    return SweepResult(k=np.array(ks), alpha=np.array(alphas), v_lower=values[..., 0],
                       v_private=values[..., 1], v_true=values[..., 2], v_upper=values[..., 3],
                       runs=int(runs), beta=beta, alpha_mode=alpha_mode, zeros=zeros, seed=seed,
                       elapsed_s=time.perf_counter() - t0, privacy=privacy, eta=prepared.eta,
                       domain_rule=prepared.domain_rule,
                       alpha_shift=float(shift.max()) if shifted else 0.0, backend=backend,
                       policy_source=("softmax" if temperature is not None else "greedy"
                                      if table is None else "table"),
                       temperature=temperature)
