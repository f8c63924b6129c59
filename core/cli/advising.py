"""The ``advise`` and ``advise-bench`` subcommands (docs/formats-and-cli.md §5).

``advise [--preset NAME | --setup FILE] [--strategy none|traditional|dp] --epsilon E
--epochs N [--seed S]`` runs one advising experiment. Without ``--seed`` it runs in
release mode (OpenDP Laplace noise) and says so. ``--json`` keys: ``convergence`` (per
epoch), ``advice_events`` (one object per advice), ``epsilon_spent`` (per agent, true ε
under basic composition; ``null`` where raw data left, with ``epsilon_spent_reason``),
``epsilon_per_advice`` (the proven ε of one advice query, ``null`` + reason when there is
none), ``adjacency``, plus ``strategy``, ``preset``, ``variant``, ``seed``, ``mode``,
``epochs``, ``composition`` (basic / advanced / RDP totals, each named) and more. JSON
goes through :func:`core.common.jsonable.dumps` (never ``Infinity`` or ``NaN``).

``advise-bench`` runs Experiments 1–3 over many seeds and prints (or writes as CSV and
JSON) the mean and 95 % CI per epoch, the arm summaries, the paired comparisons and the
thesis-claims table.

Both are registered in :mod:`core.cli.main`; errors are one line and exit 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import (
    Progress,
    add_record_flag,
    add_scheduler_flag,
    emit,
    executor_for,
    mode_line,
    record_checked,
    record_project,
)
from core.cli.grammar import add_alias

__all__ = ["add_advise_parser", "cmd_advise", "add_advise_bench_parser", "cmd_advise_bench",
           "FLAGS"]

#: Core field → command-line flag, for one-line errors that name what the user typed.
FLAGS = {
    "epsilon": "--epsilon", "epochs": "--epochs", "strategy": "--strategy",
    "distance_threshold": "--d", "ask_budget": "--ask-budget", "give_budget": "--give-budget",
    "alpha": "--q-lr", "xi": "--xi", "gamma": "--discount", "q0": "--q0",
    "sensitivity": "--sensitivity", "preset": "--preset", "variant": "--variant",
    "seed": "--seed", "delta": "--delta", "max_epsilon_per_teacher": "--max-epsilon-per-teacher",
    "seeds": "--seeds", "workers": "--workers", "epsilons": "--epsilons",
    "experiment": "--experiment", "norm_floor": "--norm-floor", "norm_center": "--norm-center",
    "layout": "--layout",
}


def _eps_text(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else "unbounded"


def _sensitivity(text: str) -> float | str:
    if text.strip().lower() == "strict":
        return "strict"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number or 'strict', got {text!r}") from None


def _common_params(sp: argparse.ArgumentParser) -> None:
    from core.advising.model import STRATEGIES, VARIANTS

    sp.add_argument("--strategy", choices=STRATEGIES, default=None,
                    help="advising strategy (default: dp)")
    sp.add_argument("--variant", choices=VARIANTS, default=None,
                    help="sound (default: strict sensitivity, every DP release noised, "
                         "advice drawn from the noisy Q-values alone: epsilon per advice "
                         "query) or thesis (S = 1, identical sets share raw Q-values, advice "
                         "drawn from the teacher's raw policy: unbounded)")
    sp.add_argument("--epsilon", type=float, default=None, help="epsilon > 0 per release")
    sp.add_argument("--epochs", type=int, default=None, help="epochs (default 700)")
    sp.add_argument("--d", "--distance-threshold", dest="d", type=float, default=None,
                    help="squared-distance threshold d >= 0 (default 0.7)")
    sp.add_argument("--advice-budget", dest="budget", type=int, default=None,
                    help="b_ask = b_give = C pieces of advice for every agent (default 30)")
    sp.add_argument("--ask-budget", type=int, default=None, help="b_ask per agent")
    sp.add_argument("--give-budget", type=int, default=None, help="b_give per agent")
    sp.add_argument("--q-lr", dest="alpha", type=float, default=None,
                    help="Q learning rate alpha (default 0.5)")
    sp.add_argument("--xi", type=float, default=None, help="policy learning rate (default 0.1)")
    sp.add_argument("--discount", dest="gamma", type=float, default=None,
                    help="discount factor gamma of the Q-learning (default 0)")
    sp.add_argument("--sensitivity", type=_sensitivity, default=None,
                    help="noise sensitivity S: a number (thesis: 1) or 'strict' "
                         "(r_max - r_min)")
    sp.add_argument("--direction-guard", action="store_true", default=None,
                    help="only teachers that met the task more often than the student "
                         "(compares raw visit counts: epsilon spent becomes unbounded)")
    sp.add_argument("--literal-advice", action="store_true", default=None,
                    help="advice distribution without the r-bar term (Alg. 5 line 22 as "
                         "printed)")
    sp.add_argument("--delta", type=float, default=None,
                    help="delta of the advanced-composition and RDP totals (default 1e-5)")
    add_alias(sp, "--budget", "--advice-budget", " in advise (--budget is a privacy budget E,D)")
    add_alias(sp, "--alpha", "--q-lr", " in advise (--alpha is the bound's rule paper|rigorous)")
    add_alias(sp, "--gamma", "--discount", " in advise (--gamma is the Dirichlet threshold)")


#: The flags that set the run's :class:`~core.advising.model.AdvisingParams`: (argparse
#: dest, flag, the parameters it sets, the value given to them), in the order they apply (a
#: later row wins: ``--ask-budget`` over ``--advice-budget``). A flag left out leaves the
#: preset's or the file's value.
_PARAM_FLAGS: tuple[tuple[str, str, tuple[str, ...], Callable[[Any], Any]], ...] = (
    ("epsilon", "--epsilon", ("epsilon",), lambda v: v),
    ("epochs", "--epochs", ("epochs",), lambda v: v),
    ("d", "--d", ("distance_threshold",), lambda v: v),
    ("alpha", "--q-lr", ("alpha",), lambda v: v),
    ("xi", "--xi", ("xi",), lambda v: v),
    ("gamma", "--discount", ("gamma",), lambda v: v),
    ("budget", "--advice-budget", ("ask_budget", "give_budget"), lambda v: v),
    ("ask_budget", "--ask-budget", ("ask_budget",), lambda v: v),
    ("give_budget", "--give-budget", ("give_budget",), lambda v: v),
    ("sensitivity", "--sensitivity", ("sensitivity",),
     lambda v: None if v == "strict" else v),
    ("direction_guard", "--direction-guard", ("direction_guard",), lambda v: True),
    ("literal_advice", "--literal-advice", ("subtract_rbar",), lambda v: False),
    ("max_epsilon_per_teacher", "--max-epsilon-per-teacher", ("max_epsilon_per_teacher",),
     lambda v: v),
)


def _overrides(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """The parameters the flags set, and the flag each came from (for one-line errors)."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for dest, flag, names, value in _PARAM_FLAGS:
        v = getattr(args, dest, None)
        if v is not None:
            for name in names:
                out[name] = value(v)
                given[name] = flag
    return out, given


def _flag(exc: Exception, extra: dict[str, str] | None = None) -> Exception:
    from core.common.errors import InputError

    flags = {**FLAGS, **(extra or {})}
    if isinstance(exc, InputError) and exc.file is None and exc.field in flags:
        return InputError(exc.problem, field=flags[exc.field])
    return exc


def _load_setup(path: str) -> Any:
    from core.advising.model import AdvisingSetup
    from core.common.errors import InputError
    from core.common.jsonfile import read_json

    data = read_json(path)
    if isinstance(data, dict) and data.get("format") == "privplan-project":
        from core.project.files import load_project

        setups = load_project(path).advising  # migrated and validated
        if not setups:
            raise InputError("the project holds no advising set-up", field="advising",
                             file=path)
        return setups[0]
    try:
        return AdvisingSetup.from_dict(data)
    except InputError as exc:
        raise exc.with_file(path) from None


# ---------------------------------------------------------------------------- advise
def add_advise_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``advise`` on the subparsers action ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    from core.advising.presets import PRESETS

    sp = sub.add_parser("advise", help="DP advising experiment (thesis Ch. 3)")
    src = sp.add_mutually_exclusive_group()
    src.add_argument("--preset", choices=PRESETS, default=None,
                     help="built-in set-up (default table35)")
    src.add_argument("--setup", metavar="FILE", default=None,
                     help="advising set-up JSON (privplan-advising) or a project file")
    _common_params(sp)
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode (OpenDP noise)")
    sp.add_argument("--max-epsilon-per-teacher", type=float, default=None,
                    help="stop a teacher once its cumulative true epsilon would pass this")
    sp.add_argument("--summary", action="store_true",
                    help="with --json: advice_events as a count instead of the full log")
    add_record_flag(sp, "run")
    common(sp)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def cmd_advise(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``advise``; returns the exit code (user errors raise InputError).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        The exit code: 0 on success. Bad input raises
        :class:`~core.common.errors.InputError`, which :func:`core.cli.main.run_cli` prints as
        one line and turns into exit 2.
    """
    from core.advising.accounting import DEFAULT_DELTA
    from core.advising.release import AdviseParameters, advise_release
    from core.common.errors import InputError

    project = record_project(args.record)  # a bad project is refused before the run
    over, given = _overrides(args)
    try:
        params = AdviseParameters(_advise_setup(args, over), seed=args.seed,
                                  delta=DEFAULT_DELTA if args.delta is None else args.delta)
        res = advise_release(params, Progress(err, "advise"))
    except InputError as exc:
        raise _flag(exc, given) from None
    payload = res.to_dict(events=not args.summary)
    if project is not None:
        from core.project.recording import advise_run_record

        record, entries = advise_run_record(project, res, params)
        record, stored = record_checked(args.record, project, record, entries, args, err)
        payload["recorded"] = {"project": args.record, "run": str(record.id),
                               "ledger_entries": len(stored)}
    emit(args, payload, lambda: _advise_text(args, res, payload), out)
    return 0


def _advise_setup(args: argparse.Namespace, over: dict[str, Any]) -> Any:
    """The set-up to run: ``--setup``'s file or a preset, with the flags' parameters
    ``over``."""
    from core.advising.model import AdvisingParams
    from core.advising.presets import preset

    if args.setup is None:
        return preset(args.preset or "table35", variant=args.variant or "sound",
                      strategy=args.strategy, **over)
    setup = _load_setup(args.setup)
    if args.variant is not None:
        v = AdvisingParams.for_variant(args.variant)
        over = {"sensitivity": v.sensitivity, "advice_prior": v.advice_prior,
                "noise_on_identical_sets": v.noise_on_identical_sets, **over}
    if args.strategy is not None:
        over = {**over, "strategy": args.strategy}
    return setup.with_params(**over) if over else setup


def _advise_text(args: argparse.Namespace, res: Any, payload: dict[str, Any]) -> str:
    """The text report of an ``advise`` run."""
    s, p = res.setup, res.setup.params
    lines = [f"advise: {s.name}" + (f" - {s.description}" if s.description else ""),
             f"strategy {p.strategy}, variant {p.variant}, epsilon {p.epsilon:g}, "
             f"d {p.distance_threshold:g}, budgets {p.ask_budget}/{p.give_budget}, "
             f"{res.epochs} epochs",
             mode_line(res.seed) if res.mode == "experiment" else
             "mode: release (Laplace noise from OpenDP; not reproducible)"]
    marks = [t for t in (1, 25, 50, 100, 200, 300, 400, 700) if t <= res.epochs]
    if res.epochs not in marks:
        marks.append(res.epochs)
    lines.append("convergence ratio: " + ", ".join(f"epoch {t} {_pct(res.cr_at(t))}"
                                                  for t in marks))
    e90 = res.epochs_to(0.9)
    lines.append(f"AUC{min(200, res.epochs)} {res.auc(200):.4f}; 90 % reached "
                 + (f"at epoch {e90}" if e90 else "never"))
    closed = res.advising_closed_epoch
    lines.append(f"advice: {res.advice_total} events"
                 + (f", last at epoch {res.last_advice_epoch}" if res.advice_total else "")
                 + ("" if p.strategy == "none" else
                    f"; no advice possible after epoch {closed}" if closed else
                    "; advice still possible at the end"))
    lines += _advise_privacy_lines(p.strategy, res.accounting)
    for note in res.notes:
        lines.append(f"note: {note}")
    lines.append(f"{res.elapsed_s:.3f} s")
    if "recorded" in payload:
        lines.append(f"recorded in {args.record} as {payload['recorded']['run']} (with "
                     f"{payload['recorded']['ledger_entries']} ledger entries)")
    return "\n".join(lines)


def _advise_privacy_lines(strategy: str, acc: Any) -> list[str]:
    """What the teachers released under ``strategy``: raw releases for traditional advising,
    the per-teacher table of ε bounds for DP advising, nothing without advice."""
    from core.advising.accounting import ADJACENCY

    if strategy == "traditional":
        raw = [a.unprotected_releases for a in acc.agents]
        return [("privacy: traditional advising shares raw Q-values and policies (no "
                 f"DP protection): {sum(raw)} releases; epsilon spent unbounded for "
                 + ", ".join(f"{a.agent} ({a.unprotected_releases})"
                             for a in acc.agents if a.unprotected_releases))
                if sum(raw) else "privacy: traditional advising shares raw Q-values "
                "(no DP protection); no teacher released anything"]
    if strategy != "dp":
        return []
    per = ("unbounded (raw data left, see below)" if not acc.bounded else
           f"{acc.epsilon_per_release:.4g}")
    lines = [f"privacy: epsilon per advice query (per candidate teacher, delta 0) "
             f"{per}; adjacency: {ADJACENCY}",
             f"privacy per teacher (true epsilon per noisy release "
             f"{acc.epsilon_per_release:.4g}; delta {acc.delta:g} for "
             f"advanced/RDP; 'thesis' is the thesis's nominal figure, not a "
             f"bound):",
             f"  {'agent':<8}{'noisy':>7}{'raw':>6}{'basic':>11}{'advanced':>11}"
             f"{'RDP':>11}{'thesis':>10}"]
    for a in acc.agents:
        lines.append(f"  {a.agent:<8.8}{a.releases:>7}{a.unprotected_releases:>6}"
                     f"{_eps_text(a.basic):>11}{_eps_text(a.advanced):>11}"
                     f"{_eps_text(a.rdp):>11}{a.nominal_basic:>10.4g}")
    lines += [f"  unbounded: {a.reason}" for a in acc.agents if a.reason]
    return lines


# ---------------------------------------------------------------------------- advise-bench
def add_advise_bench_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]
                            ) -> None:
    """Register ``advise-bench`` on the subparsers action ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("advise-bench",
                        help="Experiments 1-3 of thesis Ch. 3 over many seeds (CSV + JSON)")
    sp.add_argument("--experiment", default="all",
                    help="exp1, exp2, exp3 or all (comma-separated list allowed)")
    sp.add_argument("--seeds", type=int, default=20, help="seeds per arm (default 20)")
    sp.add_argument("--seed", type=int, default=None,
                    help="first seed (run r uses seed + r; drawn from the OS if omitted)")
    sp.add_argument("--variant", default="sound",
                    help="sound (default), thesis, or both")
    sp.add_argument("--epsilons", default="0.1,0.4,0.7,1,2",
                    help="epsilon values of Experiment 3")
    sp.add_argument("--layout", default=None,
                    help="who has which servers: for exp1 the DP arm's layout, sunflower "
                         "(default) or one-different (the thesis's own: every agent one "
                         "different action, {A,B,C,D}, {A,B,C,E}, {A,B,D,E}, ...; the other "
                         "arms keep identical sets with the same rewards); for exp2 and exp3 "
                         "every arm's layout (default mixed; nested gives cases 2 and 3, "
                         "agents with 3, 4 and 5 servers)")
    sp.add_argument("--epochs", type=int, default=None, help="epochs (default 700)")
    sp.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    add_scheduler_flag(sp)
    sp.add_argument("--csv", metavar="FILE", default=None,
                    help="write per-epoch means and 95%% CIs of every arm to FILE")
    sp.add_argument("--delta", type=float, default=None,
                    help="delta of the advanced-composition and RDP totals (default 1e-5)")
    add_record_flag(sp, "experiment (one --experiment and one --variant)")
    common(sp)


def _parse_list(text: str, flag: str) -> list[float]:
    from core.common.errors import InputError

    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    if not parts:
        raise InputError("needs at least one value", field=flag)
    out = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise InputError(f"{p!r} is not a number", field=flag) from None
        if not math.isfinite(v) or v <= 0:
            raise InputError(f"every value must be a finite number > 0, got {p}", field=flag)
        out.append(v)
    return out


def cmd_advise_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``advise-bench``; returns the exit code (user errors raise InputError).

    Each experiment and variant named is one :class:`core.advising.bench.AdviseBenchParameters`
    run through :func:`core.advising.bench.advise_bench_release`, the entry point of the
    window's experiments too; ``--record`` records the one experiment it allows as the window
    does (:func:`core.project.recording.advise_bench_run_record`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        The exit code: 0 on success. Bad input raises
        :class:`~core.common.errors.InputError`, which :func:`core.cli.main.run_cli` prints as
        one line and turns into exit 2.
    """
    from core.advising.bench import advise_bench_release
    from core.advising.claims import check_claims
    from core.common.errors import InputError
    from core.common.progress import sub_progress

    project = record_project(args.record)  # a bad project is refused before the run
    names, variants, epsilons = _bench_choices(args)
    jobs = [(v, n) for v in variants for n in names]
    if project is not None and len(jobs) > 1:
        raise InputError("records one experiment, as the window does: name one with "
                         "--experiment exp1|exp2|exp3 and one --variant (sound or thesis)",
                         field="--record")
    seed_drawn = args.seed is None
    progress = Progress(err, "advise-bench")
    results: dict[str, dict[str, Any]] = {v: {} for v in variants}
    total = 0.0
    try:
        # every experiment's parameters (its arms and layout checked) before anything runs
        bench = _bench_parameters(args, jobs, epsilons)
        _check_bench_size([p.arms() for p in bench], args)
        with executor_for(args) as (executor, workers):
            for k, ((v, n), params) in enumerate(zip(jobs, bench)):
                r = advise_bench_release(params, sub_progress(progress, k / len(jobs),
                                                              (k + 1) / len(jobs)),
                                         executor=executor, workers=workers)
                results[v][n] = r
                total += r.elapsed_s
    except InputError as exc:
        raise _flag(exc) from None
    seed = results[variants[0]][names[0]].seed
    checked = {v: check_claims(results[v]) for v in variants}
    claims = {v: [c.to_dict() for c in checked[v]] for v in variants}
    if args.csv:
        _write_bench_csv(args.csv, results, variants, names)
    payload = {"experiments": {v: {n: results[v][n].to_dict() for n in names} for v in variants},
               "claims": claims, "variants": variants, "layout": args.layout,
               "seeds": args.seeds, "seed": seed,
               "seed_drawn_from_os": seed_drawn, "mode": "experiment",
               "csv": args.csv, "elapsed_s": total}
    if project is not None:
        (v, n), = jobs
        payload["recorded"] = _record_bench(args, project, results[v][n], bench[0],
                                            [c for c in checked[v] if c.claim.experiment == n],
                                            err)

    def text() -> str:
        lines = [f"advise-bench: {', '.join(names)}; {args.seeds} seeds from {seed}"
                 f"{' (drawn from the OS)' if seed_drawn else ''}; variant(s) "
                 f"{', '.join(variants)}; seeded experiment mode"
                 + (f"; layout {args.layout}" if args.layout else "")]
        for v in variants:
            for n in names:
                lines += _experiment_lines(results[v][n], n, v)
            lines += _claim_lines(claims[v], v)
        if args.csv:
            lines.append(f"\nwrote {args.csv}")
        lines.append(f"total {total:.1f} s")
        if "recorded" in payload:
            lines.append(f"recorded in {args.record} as {payload['recorded']['run']} (with "
                         f"{payload['recorded']['ledger_entries']} ledger entries)")
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def _bench_parameters(args: argparse.Namespace, jobs: list[tuple[str, str]],
                      epsilons: list[float]) -> list[Any]:
    """One :class:`~core.advising.bench.AdviseBenchParameters` per (variant, experiment):
    the experiment's preset with the variant's parameters and ``--epochs``, and one first
    seed for all (drawn here from the OS when ``--seed`` is left out and several run; a
    single experiment draws its own, and records that it was drawn)."""
    from core.advising.accounting import DEFAULT_DELTA
    from core.advising.bench import AdviseBenchParameters
    from core.advising.presets import preset
    from core.common.validation import fresh_seed

    seed = args.seed if args.seed is not None or len(jobs) == 1 else fresh_seed()
    over = {} if args.epochs is None else {"epochs": args.epochs}
    return [AdviseBenchParameters(n, preset(n, variant=v, **over), seed=seed,
                                  seeds=args.seeds, workers=args.workers,
                                  epsilons=tuple(epsilons) if n == "exp3" else (),
                                  delta=DEFAULT_DELTA if args.delta is None else args.delta,
                                  layout=args.layout)
            for v, n in jobs]


def _record_bench(args: argparse.Namespace, project: Any, result: Any, params: Any,
                  claims: list[Any], err: TextIO) -> dict[str, Any]:
    """``--record``: the experiment recorded as the window records it; what the JSON says."""
    from core.project.recording import advise_bench_run_record

    record, entries = advise_bench_run_record(project, result, params, claims=claims)
    record, stored = record_checked(args.record, project, record, entries, args, err)
    return {"project": args.record, "run": str(record.id), "ledger_entries": len(stored)}


def _bench_choices(args: argparse.Namespace) -> tuple[list[str], list[str], list[float]]:
    """The experiments, variants and Experiment 3 epsilons the flags name (and the seeds
    checked)."""
    from core.advising.presets import EXPERIMENTS
    from core.common.errors import InputError

    names = (list(EXPERIMENTS) if args.experiment.strip() == "all" else
             [x.strip() for x in args.experiment.split(",") if x.strip()])
    if not names:
        raise InputError(f"names no experiment (exp1, exp2, exp3 or all), got "
                         f"{args.experiment!r}", field="--experiment")
    for n in names:
        if n not in EXPERIMENTS:
            raise InputError(f"must be exp1, exp2, exp3 or all, got {n!r}",
                             field="--experiment")
    variants = ["thesis", "sound"] if args.variant == "both" else [args.variant]
    if any(v not in ("sound", "thesis") for v in variants):
        raise InputError(f"must be sound, thesis or both, got {args.variant!r}",
                         field="--variant")
    epsilons = _parse_list(args.epsilons, "--epsilons")
    if args.seeds < 1:
        raise InputError(f"must be >= 1, got {args.seeds}", field="--seeds")
    if args.seed is not None and args.seed < 0:
        raise InputError(f"must be a non-negative integer, got {args.seed}", field="--seed")
    return names, variants, epsilons


def _check_bench_size(all_arms: list[Any], args: argparse.Namespace) -> None:
    """Refuse, before anything runs, a bench whose curves would not fit in memory or whose
    agent-epochs would pass the time limit."""
    from core.cli.guard import ADVISE_STEP_S, check_batch
    from core.common.memory import check_memory

    for arms in all_arms:  # run_experiment's memory check, for every job before any
        E = max(a.setup.params.epochs for a in arms)
        n_max = max(len(a.setup.agents) for a in arms)
        check_memory(8.0 * len(arms) * args.seeds * (5.0 * E + n_max), "seeds",
                     detail=f"{len(arms)} arms x {args.seeds:,} seeds x {E:,} epochs")
    steps = float(args.seeds) * sum(float(a.setup.params.epochs) * len(a.setup.agents)
                                    for arms in all_arms for a in arms)
    check_batch(steps, ADVISE_STEP_S, "--seeds", workers=args.workers,
                what=f"agent-epochs ({args.seeds:,} seeds x the arms' epochs x agents)")


def _write_bench_csv(path: str, results: dict[str, dict[str, Any]], variants: list[str],
                     names: list[str]) -> None:
    """Every experiment's per-epoch CSV in one file, under the first one's header."""
    from core.common.atomic import atomic_write_text

    parts: list[str] = []
    for v in variants:
        for n in names:
            csv = results[v][n].to_csv()
            parts.append(csv if not parts else csv.split("\n", 1)[1])
    atomic_write_text(path, "".join(parts))


def _experiment_lines(r: Any, n: str, v: str) -> list[str]:
    """The text table of experiment ``n`` under variant ``v``: each arm's summary and its
    paired difference to the first arm."""
    lines = [f"\n{n} [{v}] - {r.n_seeds} seeds x {len(r.labels)} arms, "
             f"{r.epochs} epochs, {r.elapsed_s:.1f} s on {r.workers} worker(s)",
             f"  {'arm':<13}{'AUC200':>16}{'CR(final)':>11}{'to 90%':>8}"
             f"{'advice':>8}{'closed':>8}{'eps max':>10}"]
    for s in r.summaries():
        e90 = "-" if not math.isfinite(s.epochs_to_90) else f"{s.epochs_to_90:.0f}"
        closed = ("-" if not math.isfinite(s.closed_epoch_median) else
                  f"{s.closed_epoch_median:.0f}")
        lines.append(f"  {s.label:<13.13}{s.auc200:>9.4f}±{s.auc200_ci:<6.4f}"
                     f"{100 * s.cr_final:>10.2f}%{e90:>8}{s.advice:>8.1f}"
                     f"{closed:>8}{_eps_text(s.epsilon_spent_max):>10}")
    if any(x.unbounded for x in r.summaries()):
        lines.append("  (eps max 'unbounded': a teacher released raw data - raw "
                     "Q-values, its raw policy or raw visit counts)")
    for lab in r.labels[1:]:
        d = r.paired(lab, r.labels[0])
        lines.append(f"  {lab} - {r.labels[0]}: {100 * d.mean:+.2f} pp "
                     f"± {100 * d.ci:.2f} (AUC200, {d.wins}/{d.n} seeds)")
    return lines


def _claim_lines(claims: list[dict[str, Any]], v: str) -> list[str]:
    """The thesis claims checked under variant ``v`` (those not run left out)."""
    ran = [c for c in claims if c["verdict"] != "not run"]
    lines = [f"\nthesis claims [{v}] (reported, not asserted):"] if ran else []
    for c in ran:
        lines.append(f"  [{c['verdict']}] {c['quote'][:70]}"
                     f"{'...' if len(c['quote']) > 70 else ''}")
        lines.append(f"      thesis: {c['thesis']}; ours: {c['ours']}")
    return lines
