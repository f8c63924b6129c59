"""What an advising run records: its summary, the words for its randomness, its ledger entries.

The GUI (:mod:`gui.advising`) and the reports use these; a run record keeps the summary
(at most :data:`STORED_POINTS` epochs of each curve) and the ledger gets one entry per
teacher for its noisy releases and one unbounded entry per kind of raw release.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from core.advising.accounting import ACCOUNTANTS, ADJACENCY, odometer_delta
from core.advising.experiments import UNBOUNDED_SPENT, ExperimentResult
from core.advising.framework import UNBOUNDED_REASONS, AdvisingResult, max_releases
from core.common.quantities import NON_NEGATIVE, QuantityRange
from core.privacy.composition import advanced_composition, rdp_composition
from core.privacy.ledger import LedgerEntry, PrivacyLedger

__all__ = ["STORED_POINTS", "CR_AT_EPOCHS", "rounded_json", "randomness_text", "single_summary",
           "experiment_summary", "advising_dataset", "raw_kinds", "single_ledger_entries",
           "experiment_ledger_entries", "RUN_TARGET", "single_params", "CONVERGENCE_RANGE",
           "CURVE_RANGES"]

#: RunRecord.target of advising runs (they run on ``Project.advising[0]``).
RUN_TARGET = "advising-1"
STORED_POINTS = 175
CR_AT_EPOCHS = (50, 100, 200)

#: The convergence ratio Σ_a π(s,a) R(s,a) / max_a R(s,a) is at most 1 (no policy beats the
#: best server); it has no lower limit, since a reward may be negative. AUC₂₀₀, its mean
#: over epochs, has the same range.
CONVERGENCE_RANGE = QuantityRange(high=1.0)
#: ExperimentResult.mean_ci's series -> what they can physically be: every band of them is
#: clipped to this (core.common.quantities.clip_band), on screen and in the report.
CURVE_RANGES: dict[str, QuantityRange] = {
    "convergence": CONVERGENCE_RANGE, "advice": NON_NEGATIVE, "ask_budget": NON_NEGATIVE,
    "give_budget": NON_NEGATIVE, "epsilon_time": NON_NEGATIVE}


def rounded_json(x: Any, digits: int = 6) -> Any:
    """Plain JSON values: numpy → Python, floats rounded, NaN/inf → None.

    Parameters
    ----------
    x : Any
        A value, list, dict or array.
    digits : int
        Significant digits kept by floats.

    Returns
    -------
    Any
    """
    if isinstance(x, dict):
        return {str(k): rounded_json(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded_json(v, digits) for v in x]
    if isinstance(x, np.ndarray):
        return rounded_json(x.tolist(), digits)
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        v = float(x)
        if not math.isfinite(v):
            return None
        return float(f"{v:.{digits}g}")
    return x


def randomness_text(mode: str, seed: int | None, *, seeds: Sequence[int] | None = None,
                    drawn: bool = False) -> str:
    """The words for a run's randomness, never ambiguous.

    Parameters
    ----------
    mode : str
        ``"experiment"`` or ``"release"``.
    seed : int or None
        The run's seed.
    seeds : sequence of int, optional
        An experiment's seeds.
    drawn : bool
        Whether the first seed was drawn from the OS.

    Returns
    -------
    str
    """
    if mode == "release":
        return ("release mode: Laplace noise from OpenDP, OS-seeded sampling "
                "(not reproducible)")
    if seeds is not None and len(seeds):
        lo, hi = int(min(seeds)), int(max(seeds))
        span = f"seed {lo}" if lo == hi else f"seeds {lo}–{hi}"
        how = "fresh OS seed, recorded" if drawn else "seeded experiment"
        return f"{how}: {span} ({len(seeds)} runs per arm; numpy noise, reproducible)"
    return f"seeded experiment (seed {seed}; numpy noise, reproducible)"


def _epoch_index(n: int, full: bool) -> np.ndarray:
    if full or n <= STORED_POINTS:
        return np.arange(n)
    idx = np.linspace(0, n - 1, STORED_POINTS).round().astype(int)
    extra = [e - 1 for e in CR_AT_EPOCHS if e <= n]
    return np.unique(np.concatenate([idx, extra]))


def single_summary(result: AdvisingResult, *, full: bool = False) -> dict[str, Any]:
    """The summary of one run (``full``: every epoch, for the view; else ≤ STORED_POINTS).

    Parameters
    ----------
    result : AdvisingResult
        The run.
    full : bool
        Keep every epoch.

    Returns
    -------
    dict
    """
    s = result.setup
    E = result.epochs
    idx = _epoch_index(E, full)
    acc = result.accounting
    n = s.n_agents
    teachers = np.bincount(result.events.teacher, minlength=n) if len(result.events) else (
        np.zeros(n, int))
    students = np.bincount(result.events.student, minlength=n) if len(result.events) else (
        np.zeros(n, int))
    return {
        "kind": "advise", "setup": s.name, "strategy": s.params.strategy,
        "variant": s.params.variant, "epsilon": s.params.epsilon,
        "randomness": randomness_text(result.mode, result.seed), "mode": result.mode,
        "seed": result.seed, "epochs": E, "agents": list(s.agents),
        "curve_epochs": (idx + 1).tolist(), "convergence": result.convergence[idx].tolist(),
        "initial_convergence": result.initial_convergence, "auc200": result.auc(200),
        "cr_final": float(result.convergence[-1]), "epochs_to_90": result.epochs_to(0.9),
        "advice_total": result.advice_total, "last_advice_epoch": result.last_advice_epoch,
        "advising_closed_epoch": result.advising_closed_epoch,
        "advice_given": teachers.tolist(), "advice_received": students.tolist(),
        "privacy": {
            "accountants": dict(ACCOUNTANTS), "delta": acc.delta, "mechanism": acc.mechanism,
            "epsilon_per_release": acc.epsilon_per_release, "nominal_epsilon": acc.epsilon,
            "noise_sensitivity": acc.noise_sensitivity,
            "strict_sensitivity": acc.strict_sensitivity,
            "releases": [a.releases for a in acc.agents],
            "unprotected": [a.unprotected_releases for a in acc.agents],
            "basic": [a.basic for a in acc.agents], "advanced": [a.advanced for a in acc.agents],
            "rdp": [a.rdp for a in acc.agents],
            "rdp_order": [a.rdp_order for a in acc.agents],
            "nominal_basic": [a.nominal_basic for a in acc.agents],
            "tightest": [a.tightest[0] for a in acc.agents],
            "unbounded": [dict(a.unbounded) for a in acc.agents],
            "basic_reason": acc.reasons(), "advanced_reason": acc.reasons(),
            "rdp_reason": acc.reasons(),
            "epsilon_per_advice": (acc.epsilon_per_release if s.params.strategy == "dp"
                                   and acc.bounded else None),
            "adjacency": ADJACENCY,
            "statement": acc.statement(),
        },
        "notes": list(result.notes), "elapsed_s": result.elapsed_s,
    }


def _worst_teacher(result: ExperimentResult, a: int, delta: float) -> dict[str, Any]:
    """Mean over seeds of the most-spent teacher's ε under each accountant, for arm ``a``.

    Unbounded (``inf``, with ``…_reason``) as soon as any teacher of any seed released raw
    data — never the finite part alone.
    """
    setup = result.setups[a]
    per = setup.true_epsilon_per_release
    spent = result.epsilon_spent[a]  # (seeds, agents) basic totals, NaN-padded, inf = raw
    if result.agent_releases is not None:
        releases = np.nan_to_num(result.agent_releases[a], nan=0.0).astype(int)
    else:
        releases = np.rint(np.where(np.isfinite(spent), spent, 0.0) / per).astype(int)
    worst = releases.max(axis=1)
    out: dict[str, Any] = {"worst_releases": float(worst.mean()), "epsilon_per_release": per}
    if np.isinf(spent).any():
        for k in ("worst_basic", "worst_advanced", "worst_rdp", "mean_basic"):
            out[k] = math.inf
            out[f"{k}_reason"] = UNBOUNDED_SPENT
        return out
    # the count is adaptive: δ split over every count the run could reach (as the engine)
    d_k = odometer_delta(delta, max(max_releases(setup), default=0))
    adv = np.array([advanced_composition([per] * int(k), delta=d_k) for k in worst])
    rdp = np.array([rdp_composition(int(k), per, delta=d_k)[0] for k in worst])
    out.update({"worst_basic": float((worst * per).mean()), "worst_advanced": float(adv.mean()),
                "worst_rdp": float(rdp.mean()),
                "mean_basic": float(np.nanmean(spent, axis=1).mean())})
    return out


def experiment_summary(result: ExperimentResult, *, full: bool = False, delta: float = 1e-5,
                       claims: Sequence[Any] = ()) -> dict[str, Any]:
    """The summary of an experiment: per arm the mean CR curve with its 95 % CI, the arm
    summaries (AUC₂₀₀, final CR, advice, ε), paired comparisons with the first arm, and the
    privacy of the most-spent teacher under each accountant; ``claims`` are stored as dicts.

    Parameters
    ----------
    result : ExperimentResult
        The experiment.
    full : bool
        Keep every epoch.
    delta : float
        δ of the advanced and RDP totals.
    claims : sequence
        Claim checks to store.

    Returns
    -------
    dict
    """
    E = result.epochs
    idx = _epoch_index(E, full)
    m, h = result.mean_ci("convergence")
    arms = []
    for a, summ in enumerate(result.summaries()):
        d = summ.to_dict()
        d["cr_mean"] = m[a, idx].tolist()
        d["cr_ci"] = h[a, idx].tolist()
        d["cr_at"] = {str(e): [float(m[a, e - 1]), float(h[a, e - 1])]
                      for e in CR_AT_EPOCHS if e <= E}
        d["privacy"] = _worst_teacher(result, a, delta)
        arms.append(d)
    comps = []
    if len(result.labels) > 1:
        comps = [result.paired(lab, result.labels[0], horizon=min(200, E)).to_dict()
                 for lab in result.labels[1:]]
    seeds = result.seeds.tolist()
    return {
        "kind": "advise-experiment", "experiment": result.name, "labels": list(result.labels),
        "randomness": randomness_text("experiment", result.seed, seeds=seeds,
                                      drawn=result.seed_drawn),
        "mode": "experiment", "seed": result.seed, "seeds": seeds, "epochs": E,
        "curve_epochs": (idx + 1).tolist(), "arms": arms, "comparisons": comps,
        "accountants": dict(ACCOUNTANTS), "delta": delta, "workers": result.workers,
        "claims": [c.to_dict() for c in claims], "elapsed_s": result.elapsed_s,
    }


# ---------------------------------------------------------------------------- ledger entries
def advising_dataset(setup_name: str, agent: str) -> str:
    """The protected dataset of a teacher: its Q-table (as ``AdvisingResult.ledger``).

    Parameters
    ----------
    setup_name : str
        The set-up's name.
    agent : str
        The teacher.

    Returns
    -------
    str
        ``"advising:<set-up>:<agent>"``.
    """
    return f"advising:{setup_name}:{agent}"


def _entry_params(setup: Any, strategy: str) -> dict[str, Any]:
    p = setup.params
    return {"sensitivity": setup.noise_sensitivity, "strict_sensitivity": setup.strict_sensitivity,
            "nominal_epsilon": p.epsilon, "scale": setup.noise_sensitivity / p.epsilon,
            "strategy": strategy, "variant": p.variant}


_RAW_WHAT = {"raw_q": "raw Q(s,·) views", "raw_policy": "advice drawn from the raw policy",
             "raw_visits": "raw visit counts (direction guard)"}


def _record_raw(led: PrivacyLedger, setup: Any, agent: str, kinds: dict[str, int], *,
                what: str, mode: str, seed: int | None, source: str) -> None:
    """One unbounded entry per kind of raw release (``count`` of them, ε = ∞ + reason)."""
    for kind, k in kinds.items():
        if k <= 0:
            continue
        led.record(dataset=advising_dataset(setup.name, agent),
                   mechanism=f"none ({kind.replace('_', ' ')})", epsilon=math.inf,
                   reason=UNBOUNDED_REASONS[kind],
                   parameters={**_entry_params(setup, setup.params.strategy), "kind": kind},
                   adjacency=ADJACENCY,
                   released=f"{_RAW_WHAT[kind]} of {agent} ({k} releases, {what})",
                   mode=mode, seed=seed, source=source, count=int(k))


def raw_kinds(setup: Any) -> list[str]:
    """The kinds of raw (unbounded) release a set-up's parameters can make.

    Parameters
    ----------
    setup : AdvisingSetup
        The set-up.

    Returns
    -------
    list of str
    """
    p = setup.params
    if p.strategy == "none":
        return []
    out = []
    if p.strategy == "traditional" or not p.noise_on_identical_sets or p.noise_zero:
        out.append("raw_q")
    if p.strategy == "traditional" or p.advice_prior == "teacher":
        out.append("raw_policy")
    if p.direction_guard:
        out.append("raw_visits")
    return out


def single_ledger_entries(result: AdvisingResult, *, source: str) -> list[LedgerEntry]:
    """Per teacher: one entry for its noisy releases (``count`` of the true ε), and one per
    kind of raw release (raw Q-values, advice from the raw policy, raw visit counts) with
    ε = ∞ and the reason — nothing that left is free.

    Parameters
    ----------
    result : AdvisingResult
        The run.
    source : str
        The run id.

    Returns
    -------
    list of LedgerEntry
    """
    s = result.setup
    acc = result.accounting
    led = PrivacyLedger()
    for a in acc.agents:
        if a.releases:
            led.record(dataset=advising_dataset(s.name, a.agent), mechanism="laplace",
                       epsilon=acc.epsilon_per_release,
                       parameters=_entry_params(s, s.params.strategy), adjacency=ADJACENCY,
                       released=f"noisy Q(s,·) of {a.agent} to students ({a.releases} "
                                f"releases, {source})", mode=result.mode, seed=result.seed,
                       source=source, count=int(a.releases))
        _record_raw(led, s, a.agent, a.unbounded, what=source, mode=result.mode,
                    seed=result.seed, source=source)
    return led.entries


def experiment_ledger_entries(result: ExperimentResult, *, source: str) -> list[LedgerEntry]:
    """Seeded experiments: per arm and teacher, the releases over all seeds (listed, not
    spent); raw releases as unbounded entries.

    Parameters
    ----------
    result : ExperimentResult
        The experiment.
    source : str
        The run id.

    Returns
    -------
    list of LedgerEntry
    """
    led = PrivacyLedger()
    for a, label in enumerate(result.labels):
        setup = result.setups[a]
        per = setup.true_epsilon_per_release
        spent = result.epsilon_spent[a]  # (seeds, agents)
        if result.agent_releases is not None and result.agent_unprotected is not None:
            releases = np.nan_to_num(result.agent_releases[a], nan=0.0).sum(axis=0)
            raw = np.nan_to_num(result.agent_unprotected[a], nan=0.0).sum(axis=0)
        else:
            releases = np.rint(np.where(np.isfinite(spent), spent, 0.0) / per).sum(axis=0)
            raw = np.isinf(spent).sum(axis=0)
        what = f"arm “{label}” of {result.name} over {result.n_seeds} seeded runs, {source}"
        for j, agent in enumerate(setup.agents):
            k = int(releases[j])
            if k:
                led.record(dataset=advising_dataset(setup.name, agent), mechanism="laplace",
                           epsilon=per, parameters=_entry_params(setup, setup.params.strategy),
                           adjacency=ADJACENCY,
                           released=f"noisy Q(s,·) of {agent}, arm “{label}” of {result.name} "
                                    f"({k} releases over {result.n_seeds} seeded runs, "
                                    f"{source})",
                           mode="experiment", seed=result.seed, source=source, count=k)
            if int(raw[j]):
                kinds = raw_kinds(setup)
                led.record(dataset=advising_dataset(setup.name, agent),
                           mechanism="none (raw releases)", epsilon=math.inf,
                           reason=f"{agent} released raw data {int(raw[j])} times without "
                                  "noise: " + "; ".join(UNBOUNDED_REASONS[x] for x in kinds),
                           parameters=_entry_params(setup, setup.params.strategy),
                           adjacency=ADJACENCY,
                           released=f"raw data of {agent} ({int(raw[j])} releases, {what})",
                           mode="experiment", seed=result.seed, source=source,
                           count=int(raw[j]))
    return led.entries


def single_params(result: AdvisingResult, *, delta: float, seeded: bool) -> dict[str, Any]:
    """The run parameters of one advising run (kind ``"advise"``), rounded for the file.

    Parameters
    ----------
    result : AdvisingResult
        The run (its set-up and parameters).
    delta : float
        δ of the advanced and RDP totals shown with it.
    seeded : bool
        True for a seeded experiment.

    Returns
    -------
    dict
        Set-up name and sizes, strategy, variant, ε, budgets, sensitivities, seed and every
        parameter.
    """
    s = result.setup
    p = s.params
    params: dict[str, Any] = rounded_json({
        "run": "single", "setup": s.name, "strategy": p.strategy, "variant": p.variant,
        "epsilon": p.epsilon, "epochs": p.epochs,
        "distance_threshold": p.distance_threshold, "ask_budget": p.ask_budget,
        "give_budget": p.give_budget, "noise_sensitivity": s.noise_sensitivity,
        "strict_sensitivity": s.strict_sensitivity, "delta": delta,
        "seeded": seeded, "seed": result.seed, "agents": s.n_agents,
        "servers": s.n_servers, "tasks": s.n_tasks, "params": p.to_dict()})
    return params
