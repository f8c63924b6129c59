"""The ``share`` subcommand: a teacher kickstarts students through the Dirichlet mechanism.

``share ENV [--teacher optimal|softmax:T] --k0 K --coef C --lambda L --beta B --budget E,D
[--eta H] [--delta D | --tau T] [--lb LB] [--students aware,unaware,none,nonprivate]
[--seeds N] [--iterations I] [--seed S] [--json]`` where ENV is an MDP file (or a project
with ``--mdp ID``) or ``gym:FrozenLake-v1[:8x8]``, ``gym:CliffWalking-v0``, ``gym:Taxi-v3``
(the optional ``gym`` extra; an id is resolved against the installed gymnasium — its newest
version of the family when the one asked for is retired — and ``env_note`` says so).
``--after-budget stop|random`` (what the teacher sends once its budget is spent: nothing,
or the paper's uniformly random policies), ``--reward-scale max|none`` (the students learn
on R/max|R| by default: κ is scaled to the reward range), ``--gradient exact|sampled`` and
``--episodes E`` (REINFORCE from E roll-outs per iteration: every student explores),
``--penalty-weight visits|occupancy`` (the teacher's penalty at a state weighed by the
student's discounted visits, like its policy gradient — the default — or by the normalised
occupancy, which makes κ count 1/(1 − γ) times less), ``--nonprivate-target teacher|mixed``
(what the non-private student imitates: the teacher's own policy — conventional kickstarting,
the default — or the η-mixed policy the private draws centre on).

``--json`` keys: ``k``, ``epsilon``, ``delta``, ``tau``, ``queries`` (per roll-out until the
stop), ``epsilon_total`` / ``delta_total`` (running, basic composition, over every noisy
student run), ``ledger_total`` (the same, with ``runs``), ``ledger_total_per_run``,
``spent_before`` (what the project had spent on the teacher's data), ``stopped_at`` (null:
never), ``curves`` (per student type: ``median``, ``lower``, ``upper`` per iteration, the
85th-percentile band over seeds), ``teacher_value``, ``cost_of_privacy`` (per student type),
``adjacency``, ``mode``, ``seed``, ``notes``, ``env_note`` (null unless the gymnasium id
was resolved to another version), ``after_budget``, ``reward_scale`` (the ρ the students
learn on R/ρ), ``gradient``, ``penalty_weight``, ``nonprivate_target``.

The budget ``--budget E,D`` is the teacher's: it covers every noisy student run of the
command (seeds × aware/unaware, each receiving its own draws) and, when ENV is a project,
what the project's ledger has already spent on that model (its releases).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import (
    Progress,
    add_over_budget_flag,
    add_scheduler_flag,
    emit,
    executor_for,
    flag_error,
    mode_line,
    record_checked,
)
from core.cli.grammar import add_record_option
from core.common.errors import InputError

__all__ = ["add_share_parser", "cmd_share", "share_parameters"]

FLAGS = {"k0": "--k0", "coef": "--coef", "eta": "--eta", "lb": "--lb", "tau": "--tau",
         "delta": "--delta", "bound": "--bound", "lambda": "--lambda", "beta": "--beta",
         "kappa": "--kappa", "lr": "--lr", "budget": "--budget", "iterations": "--iterations",
         "students": "--students", "seeds": "--seeds", "teacher": "--teacher", "env": "ENV",
         "m": "ENV", "model": "ENV", "draws": "--draws", "rollout": "--rollout",
         "steps": "--steps", "workers": "--workers", "after_budget": "--after-budget",
         "reward_scale": "--reward-scale", "gradient": "--gradient", "episodes": "--episodes",
         "penalty_weight": "--penalty-weight", "nonprivate_target": "--nonprivate-target"}


def _budget(text: str) -> tuple[float, float]:
    try:
        e, d = (float(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"must be E,D (two numbers), got {text!r}", field="--budget") from None
    return e, d


def _load_env(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """(the MDP, the project or None, the dataset name: ``mdp:<id>`` or ``gym:<ID>``)."""
    if args.env.startswith("gym:"):
        from core.sharing.gym_import import import_gym

        if args.record:
            raise InputError("--record writes the run into a project: give a *.privplan.json "
                             "(and --mdp ID)", field="--record")
        return import_gym(args.env), None, args.env
    from core.cli.common import project_item
    from core.mdp.files import load_mdp

    project, mdp_id = project_item(args.env, args.mdp_id, args.record, flag="--mdp",
                                   noun="model", ids_of=lambda p: [e.id for e in p.mdps])
    if project is not None and mdp_id:
        return project.mdp(mdp_id), project, f"mdp:{mdp_id}"
    return load_mdp(args.env), None, f"file:{args.env}"


def cmd_share(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``share`` (see the module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        The result, and progress.

    Returns
    -------
    int
        0; bad input raises :class:`~core.common.errors.InputError` (exit 2).
    """
    if getattr(args, "agent", "tabular") == "ppo":  # networks: the optional deep extra
        from core.cli.deep import cmd_share_ppo

        return cmd_share_ppo(args, out, err)
    from core.sharing.learning import sharing_release

    try:
        mdp, project, dataset = _load_env(args)
        params = share_parameters(args, dataset)
        run_id = params.teacher_run
        actions = _run_actions(project, run_id) if run_id is not None else None
        spent = (0.0, 0.0)
        if project is not None:  # the teacher's data may have been spent already
            from core.privacy.ledger import PrivacyLedger

            spent = PrivacyLedger.from_project(project).spent(dataset)
        with executor_for(args) as (executor, workers):
            res = sharing_release(params, Progress(err, "share"), mdp=mdp,
                                  teacher_actions=actions, workers=workers,
                                  executor=executor, spent=spent)
    except InputError as exc:
        raise flag_error(exc, FLAGS) from None
    setup = params.setup
    payload = res.to_dict()
    env_note = None
    if args.env.startswith("gym:"):
        from core.sharing.gym_import import parse_gym_id, resolve_gym_id

        env_note = resolve_gym_id(parse_gym_id(args.env)[0])[1]
    from core.sharing.learning import reward_scale

    payload.update(env=args.env, model=mdp.name, states=mdp.n_states,
                   actions=int(mdp.n_actions), teacher=args.teacher, env_note=env_note,
                   after_budget=setup.after_budget, gradient=setup.gradient,
                   penalty_weight=setup.penalty_weight,
                   nonprivate_target=setup.nonprivate_target,
                   reward_scale=reward_scale(mdp, setup.reward_scale))
    if args.record and project is not None:
        from core.project.recording import sharing_run_record

        record, entries = sharing_run_record(project, res, params)
        record, added = record_checked(args.env, project, record, entries, args, err)
        payload["recorded"] = {"project": args.env, "run": record.id,
                               "ledger_entries": len(added)}
    emit(args, payload, lambda: _share_text(args, mdp, res, dataset, env_note, payload), out)
    return 0


def share_parameters(args: argparse.Namespace, dataset: str) -> Any:
    """The :class:`~core.sharing.records.SharingParameters` of the ``share`` flags (an empty
    ``--students`` runs every type; a target δ per query of 1e-3 unless ``--tau`` is given).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    dataset : str
        The environment's dataset name (``mdp:<id>``, ``gym:<ID>`` or ``file:<path>``).

    Returns
    -------
    SharingParameters
        Validated; bad input raises :class:`~core.common.errors.InputError` on the core's
        field name.
    """
    from core.sharing.learning import STUDENTS, SharingSetup
    from core.sharing.records import SharingParameters, parse_teacher

    _, temperature, _ = parse_teacher(args.teacher)
    students = [s.strip() for s in args.students.split(",") if s.strip()]
    delta = None if args.tau is not None else (args.delta if args.delta is not None else 1e-3)
    setup = SharingSetup(k0=args.k0, coef=args.coef, eta=args.eta, lb=args.lb, tau=args.tau,
                         delta=delta, bound=args.bound, lam=args.lam, beta=args.beta,
                         kappa=args.kappa, lr=args.lr, budget=_budget(args.budget),
                         iterations=args.iterations, draws=args.draws,
                         rollout=args.rollout, steps=args.steps,
                         after_budget=args.after_budget, reward_scale=args.reward_scale,
                         gradient=args.gradient, episodes=args.episodes,
                         penalty_weight=args.penalty_weight,
                         nonprivate_target=args.nonprivate_target)
    return SharingParameters(env=dataset, setup=setup, students=tuple(students or STUDENTS),
                             seeds=args.seeds, seed=args.seed, teacher=args.teacher,
                             temperature=temperature)


def _run_actions(project: Any, run_id: str) -> list[int]:
    """The teacher of ``--teacher run:ID``: the actions of that run of the project."""
    from core.sharing.learning import run_policy

    if project is None:
        raise InputError("run:ID names a run of a project: give a *.privplan.json",
                         field="--teacher")
    runs = {r.id: r for r in project.runs}
    if run_id not in runs:
        raise InputError(f"no run {run_id!r} in the project", field="--teacher")
    return run_policy(runs[run_id])


def _share_text(args: argparse.Namespace, mdp: Any, res: Any, dataset: str,
                env_note: str | None, payload: dict[str, Any]) -> str:
    """The text report of a ``share`` run: the teacher's ledger and the final values."""
    led = res.ledger
    e, d = led.totals
    pe, pd = led.totals_per_run
    E, D = led.budget
    base = ("; plus the non-private baseline: unbounded (it reads the teacher's policy "
            "itself, outside every budget)" if "nonprivate" in res.curves else "")
    before = (f" after ({led.spent[0]:.4g}, {led.spent[1]:.3g}) already spent on "
              f"{dataset}" if any(led.spent) else "")
    lines = [f"{mdp.name or args.env}: {mdp.n_states} states; teacher {args.teacher} "
             f"(J = {res.teacher_value:.4g}); {args.seeds} seeds x {res.setup.iterations} "
             "iterations", *([f"note: {env_note}"] if env_note else []),
             mode_line(args.seed),
             f"teacher's total over all {led.runs} noisy student runs: ({e:.4g}, "
             f"{d:.3g}) under basic composition, within the budget ({E:g}, {D:g})"
             f"{before}{base}",
             f"adjacency: {led.adjacency}",
             f"ledger: {len([r for r in led.rows if not r.stopped])} roll-outs of "
             f"{led.queries_per_rollout} queries to each of {led.runs} noisy runs; one "
             f"run's share ({pe:.4g}, {pd:.3g}); "
             + (f"stopped before roll-out {led.stopped_at}"
                if led.stopped_at is not None else "never stopped")]
    lines.append(f"{'roll-out':>9} {'k':>10} {'eps/query':>10} {'delta/query':>12} "
                 f"{'tau':>10} {'eps (all)':>11} {'delta (all)':>12}")
    for r in led.rows[:12]:
        lines.append(f"{r.rollout:>9} {r.k:>10.4g} {r.epsilon:>10.4g} {r.delta:>12.3g} "
                     f"{'–' if r.tau is None else format(r.tau, '.3g'):>10} "
                     f"{r.epsilon_total:>11.4g} {r.delta_total:>12.3g}")
    if len(led.rows) > 12:
        lines.append(f"{'…':>9} ({len(led.rows) - 12} more roll-outs)")
    lines.append("final J (median over seeds, 85th-percentile band), cost of privacy "
                 "J(pi_T) - J(student):")
    for kind in res.curves:
        med, lo, hi = res.band(kind)
        lines.append(f"  {kind:<11} {med[-1]:.4g}  [{lo[-1]:.4g}, {hi[-1]:.4g}]   cost "
                     f"{res.cost_of_privacy(kind):+.4g}")
    lines += [f"note: {n}" for n in res.notes]
    if "recorded" in payload:
        r = payload["recorded"]
        lines.append(f"recorded in {r['project']} as {r['run']} with "
                     f"{r['ledger_entries']} ledger entries")
    return "\n".join(lines)


def add_share_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``share`` on the subparsers action ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the shared flags (``--json``).
    """
    sp = sub.add_parser("share", help="private policy sharing: a teacher kickstarts students "
                                      "through the Dirichlet mechanism ([KS])")
    sp.add_argument("env", metavar="ENV",
                    help="an MDP file, a project (with --mdp), or gym:FrozenLake-v1[:8x8], "
                         "gym:CliffWalking-v0, gym:Taxi-v3 (resolved against the installed "
                         "gymnasium: a retired version loads its newest successor)")
    sp.add_argument("--mdp", dest="mdp_id", default=None, help="model id in a project")
    sp.add_argument("--teacher", default="optimal",
                    help="optimal (default), softmax:T, or run:ID (the policy pi-bar of a "
                         "Synthesise & bound run of the project)")
    sp.add_argument("--k0", type=float, default=5.0, help="first roll-out's k (default 5)")
    sp.add_argument("--coef", type=float, default=0.3,
                    help="vanishing coefficient c in (0, 1]: k_j = k0*c^j (default 0.3)")
    sp.add_argument("--eta", type=float, default=0.05,
                    help="eta: shared policies lie in the simplex restricted to entries >= eta "
                         "(<= 1/m; the teacher is mixed as (1 - m*eta)*pi + eta)")
    sp.add_argument("--lb", type=float, default=0.05,
                    help="L*b: l2 radius of neighbouring shared policies (default 0.05)")
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--delta", type=float, default=None,
                   help="target delta per query (tau solved per roll-out; default 1e-3)")
    g.add_argument("--tau", type=float, default=None, help="a fixed threshold tau instead")
    sp.add_argument("--bound", choices=("profile", "paper", "tight"), default="profile",
                    help="the accountant of each query: profile (default) = the certified "
                         "exact privacy profile (needs --delta); paper = eq. 12; tight = eq. "
                         "12 with the halved first term")
    sp.add_argument("--lambda", dest="lam", type=float, default=0.5,
                    help="lambda >= 0: the aware student's ball radius factor (default 0.5)")
    sp.add_argument("--beta", type=float, default=0.05, help="beta in (0, 1) (default 0.05)")
    sp.add_argument("--kappa", type=float, default=1.0, help="penalty weight (default 1)")
    sp.add_argument("--lr", type=float, default=5.0, help="learning rate (default 5)")
    sp.add_argument("--budget", default="200,0.5",
                    help="the teacher's budget E,D over everything the command releases: "
                         "every noisy student run (seeds x aware/unaware), plus what a "
                         "project ENV has already spent on the model")
    sp.add_argument("--students", default="aware,unaware,none,nonprivate",
                    help="comma-separated: aware, unaware, none, nonprivate")
    sp.add_argument("--seeds", type=int, default=10, help="runs per student type")
    sp.add_argument("--workers", type=int, default=None,
                    help="processes for the student runs (default 1: in-process; the curves "
                         "are the same for any number)")
    add_scheduler_flag(sp)
    sp.add_argument("--iterations", type=int, default=300, help="roll-outs (default 300)")
    sp.add_argument("--rollout", choices=("exact", "sample"), default="exact",
                    help="exact (default): the teacher answers at every reachable state each "
                         "iteration; sample: only at the states a sampled roll-out visits")
    sp.add_argument("--steps", type=int, default=100,
                    help="length of a sampled roll-out (an infinite horizon; default 100)")
    sp.add_argument("--after-budget", choices=("stop", "random"), default="stop",
                    help="once the budget is spent the teacher sends nothing (stop, default) "
                         "or uniformly random policies (random: the paper's rule; (0, 0)-DP)")
    sp.add_argument("--reward-scale", choices=("max", "none"), default="max",
                    help="max (default): the students learn on R/max|R|, so kappa and --lr "
                         "weigh a value of one unit in every environment; none: raw rewards")
    sp.add_argument("--gradient", choices=("exact", "sampled"), default="exact",
                    help="exact (default): the exact policy gradient; sampled: REINFORCE "
                         "from --episodes roll-outs per iteration (every student explores)")
    sp.add_argument("--episodes", type=int, default=8,
                    help="roll-outs per iteration of --gradient sampled (default 8)")
    sp.add_argument("--penalty-weight", choices=("visits", "occupancy"), default="visits",
                    help="visits (default): the teacher's penalty at a state is weighed by the "
                         "student's discounted visits, like its policy gradient; occupancy: "
                         "by the normalised occupancy (kappa then counts 1/(1-gamma) times "
                         "less)")
    sp.add_argument("--nonprivate-target", choices=("teacher", "mixed"), default="teacher",
                    help="what the non-private student imitates: teacher (default): the "
                         "teacher's own policy (conventional kickstarting); mixed: the "
                         "eta-mixed policy the private draws centre on (the arms then differ "
                         "only in the noise)")
    sp.add_argument("--draws", type=int, default=50_000,
                    help="Monte Carlo draws of each roll-out's delta (default 50000)")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode")
    add_record_option(sp, "record the run in PROJECT, the project ENV (with --mdp ID; with "
                          "gym:ID and --agent ppo any project), as the window does: a run "
                          "record and one ledger entry per roll-out of the teacher",
                      reads="env")
    add_over_budget_flag(sp)
    from core.cli.deep import add_share_ppo_flags

    add_share_ppo_flags(sp)
    common(sp)
