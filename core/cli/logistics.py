"""The ``plan`` and ``plan-bench`` subcommands (formats-and-cli.md §5).

``plan MAP --origin NODE --goal-agent AG --epsilon E [--preset sound|thesis]
[--approach dp|noprivacy|bestfirst|greedy] [--seed S] [--goal NODE] [--budget C]``
plans one task on a ``*.map.json`` file, or on a map of a project (``*.privplan.json``,
``--map ID`` naming it; ``--record`` writes the run and its agents' ledger entries into the
project as the window does). Without ``--seed`` the noise comes from OpenDP (release mode)
and the output says so. A task that cannot be planned is a result with its
reason (exit 0); bad input is one line on stderr and exit 2.

The text output keeps the **evaluator's view** apart: the executed route (the intermediate
agents' real bases) and its exact length are computed by the experimenter on the true maps,
are never exchanged by the planner's agents and are outside the privacy statement, so they
are printed last under that label. ``--json`` lists those keys in ``evaluator_keys``.

The headline privacy figure of both outputs is what the run *proves*: ``epsilon_spent`` per
agent (``null`` with ``epsilon_spent_reason[agent]`` where an agent's release proves no
finite ε) and ``guarantee`` (the largest per-agent ε, δ, the adjacency, the scope and the
public parameters). The thesis's nominal figures are ``epsilon_nominal``, labelled as such.

``plan-bench B1|B2|B3|B4|B5|all [--worlds N] [--seed S] [--workers W] [-o DIR]`` runs the
benchmarks of spec §8.3 and writes ``DIR/B?.csv`` (mean and 95 % CI per point and
approach) and ``DIR/B?.json`` (configuration, rows, paired differences, trend checks).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import (
    Progress,
    add_over_budget_flag,
    add_scheduler_flag,
    executor_for,
    project_item,
    record_checked,
)
from core.common.errors import InputError
from core.common.jsonable import dumps, finite_or_none, jsonable
from core.logistics.records import EVALUATOR_KEYS, EVALUATOR_VIEW

__all__ = ["add_plan_parser", "cmd_plan", "add_plan_bench_parser", "cmd_plan_bench",
           "plan_payload"]

_PLAN_FLAGS = {"origin": "--origin", "goal_agent": "--goal-agent", "goal": "--goal",
               "epsilon": "--epsilon", "seed": "--seed", "comm_budget": "--budget",
               "preset": "--preset", "approach": "--approach"}


def _flag(exc: InputError, flags: dict[str, str]) -> InputError:
    if exc.file is None and exc.field in flags:
        return InputError(exc.problem, field=flags[exc.field])
    return exc


def _budget(text: str) -> float:
    if text.lower() in ("unlimited", "inf", "infinite"):
        return math.inf
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 or 'unlimited', got {text!r}"
                                         ) from None
    if not v >= 0 or math.isinf(v) and v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return v


def add_plan_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``plan`` on the subparsers ``sub`` (``common`` adds ``--json``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("plan", help="one DP multi-agent planning task on a map")
    sp.add_argument("map", metavar="MAP", help="*.map.json, or a project (*.privplan.json) "
                    "with --map naming one of its maps")
    sp.add_argument("--map", dest="map_id", default=None,
                    help="the id of the map in the project MAP (default: its only map)")
    sp.add_argument("--record", action="store_true",
                    help="record the run in the project MAP, as the window does: a run record "
                         "and every agent's ledger entries; the file is saved atomically")
    add_over_budget_flag(sp)
    sp.add_argument("--origin", required=True, help="base holding the package")
    sp.add_argument("--goal-agent", required=True, help="agent whose area is the destination")
    sp.add_argument("--goal", default=None,
                    help="destination base (known to the goal agent only); default: its "
                         "base nearest to where it receives the package")
    sp.add_argument("--epsilon", type=float, required=True, help="privacy budget per agent > 0")
    sp.add_argument("--preset", choices=("sound", "thesis"), default="sound",
                    help="sound (default) or thesis (faithful, with its flaws listed)")
    sp.add_argument("--approach", choices=("dp", "noprivacy", "bestfirst", "greedy"),
                    default="dp")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode (OpenDP noise)")
    sp.add_argument("--budget", type=_budget, default=None,
                    help="messages per agent C (default N_centers + 30; 'unlimited')")
    common(sp)


def _eps_dict(values: dict[str, float]) -> dict[str, float | None]:
    return {a: finite_or_none(v) for a, v in values.items()}


def plan_payload(result: Any, session: Any) -> dict[str, Any]:
    """The ``plan --json`` object for a result and its session (JSON-able, no inf/nan).

    Parameters
    ----------
    result : PlanResult
        The outcome of the task.
    session : PlanningSession
        The session that planned it (ledgers, guarantee, messages).

    Returns
    -------
    dict
        The keys of formats-and-cli.md §5 (``success``, ``route``, ``epsilon_spent``,
        ``guarantee``, ``ledger``, …); unbounded values are null with a ``…_reason``.
    """
    p = session.params
    ledger = []
    for a in session.world.agents:
        for e in session.ledgers[a].entries:
            d = e.to_dict()
            item = {"agent": a, "mechanism": e.mechanism, "epsilon": d["epsilon"],
                    "parameters": e.parameters, "adjacency": e.adjacency,
                    "released": e.released, "mode": e.mode, "seed": e.seed,
                    "count": e.count}
            if e.unbounded:
                item["epsilon_reason"] = e.reason
            ledger.append(item)
    disc = result.discovery
    spent = session.epsilon_spent()
    reasons = session.epsilon_reasons()
    g = session.guarantee()
    payload = {
        "success": result.success, "route": list(result.route), "length": result.length,
        "messages": result.messages, "epsilon_spent": _eps_dict(spent),
        "failure": result.failure, "status": result.status,
        "guarantee": g.to_dict(),
        "preset": p.preset if session.approach == "dp" else None,
        "approach": session.approach, "seed": session.seed, "mode": session.mode,
        "epsilon": p.epsilon,
        "d_max": (session.d_max if p.dmax_mode == "public_cap"
                  else "local (each map's own maximum degree)"),
        "epsilon_nominal": _eps_dict(session.epsilon_nominal()),
        "centers": list(result.centers), "agents": list(result.agents),
        "segments": [list(s) for s in result.segments], "plan_view": list(result.plan_view),
        "message_kinds": dict(result.message_kinds),
        "messages_sent": {a: c.sent for a, c in session.comm.items()},
        "comm_budget": session.comm_budget,
        "comm_epsilon_bookkeeping": {a: c.epsilon_used for a, c in session.comm.items()},
        "estimated_length": result.estimated_length,
        "shortest_length": result.shortest_length, "stretch": result.stretch,
        "intermediate_agents": list(disc.candidates) if disc else [],
        "goal_level": disc.goal_level if disc else None,
        "ledger": ledger,
        "thesis_flaws": list(session.flaws()), "caveats": list(session.caveats()),
        "task": result.task.to_dict(), "elapsed_s": result.elapsed_s,
        "evaluator_keys": list(EVALUATOR_KEYS), "evaluator_view": EVALUATOR_VIEW,
    }
    if reasons:
        payload["epsilon_spent_reason"] = dict(reasons)
    if math.isinf(session.comm_budget):
        payload["comm_budget"] = None
        payload["comm_budget_reason"] = "unlimited"
    return jsonable(payload)


def _mode_line(session: Any) -> str:
    if session.mode == "release":
        return ("mode: release (Laplace noise from OpenDP; other choices from an OS-seeded "
                "generator)")
    return f"mode: seeded experiment (seed {session.seed}) - reproducible, not for real releases"


def _privacy_line(session: Any) -> str:
    """The headline: the ε the run proves per agent (or why none), never a nominal figure."""
    g = session.guarantee()
    spent = session.epsilon_spent()
    who = [a for a in session.world.agents if session.ledgers[a].entries]
    if not who:
        return "privacy: nothing private was released (epsilon 0)"
    if not g.bounded:
        return (f"privacy: NO proven bound - epsilon unbounded for {', '.join(who)} "
                f"({g.reason})")
    per = ", ".join(f"{a} {spent[a]:.4g}" for a in who)
    return (f"privacy: epsilon <= {g.epsilon:.4g} per agent, delta 0 ({per}); "
            f"{g.adjacency}")


def cmd_plan(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``plan``: one task; exit 0 with the result (also when it fails), 2 on bad input.

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
    from core.logistics.io import load_map
    from core.logistics.model import Task, validate_task
    from core.logistics.planner import PlannerParams, PlanningSession

    project, map_id = project_item(args.map, args.map_id, args.record, flag="--map",
                                   noun="map", ids_of=lambda p: [m.id for m in p.maps])
    if project is not None:
        entry = next(m for m in project.maps if m.id == map_id)
        world = entry.world
    else:
        world = load_map(args.map)
    try:
        params = PlannerParams.preset_params(args.preset, epsilon=args.epsilon,
                                             comm_budget=args.budget)
        task = validate_task(world, Task(args.origin, args.goal_agent, args.goal))
        session = PlanningSession(world, approach=args.approach, params=params, rng=args.seed)
        result = session.plan(task)
    except InputError as exc:
        raise _flag(exc, _PLAN_FLAGS) from None
    payload = plan_payload(result, session)
    recorded = ""
    if args.record and project is not None and map_id is not None:
        recorded, n_entries = _record_plan(args, project, map_id, entry.label, result,
                                           session, err)
        payload["recorded"] = {"project": args.map, "run": recorded,
                               "ledger_entries": n_entries}
    if args.json:
        out.write(dumps(payload) + "\n")
        return 0
    lines = [f"{world.name or args.map}: {task.origin} -> agent {task.goal_agent}"
             f"{' (' + task.goal + ')' if task.goal else ''}, approach {args.approach}"
             + (f", preset {params.preset}, epsilon parameter {params.epsilon:g}"
                if args.approach == "dp" else "")]
    if result.success:
        lines.append(f"delivered through the public centers {' -> '.join(result.centers)}, "
                     f"agents {' -> '.join(result.agents)}")
        lines.append("plan as the origin agent holds it (its own first leg, then the public "
                     "centers): " + " ".join(result.plan_view))
    else:
        lines.append(f"not delivered: {result.failure} [{result.status}]")
    lines.append(f"messages: {result.messages} ("
                 + ", ".join(f"{k} {v}" for k, v in result.message_kinds.items()) + ")")
    lines.append(_privacy_line(session))
    if args.approach == "dp":
        nominal = {a: e for a, e in session.epsilon_nominal().items() if e}
        if nominal and session.params.preset == "thesis":
            lines.append("  nominal epsilon by the thesis's own accounting (NOT a guarantee): "
                         + ", ".join(f"{a} {e:.4g}" for a, e in nominal.items()))
        for f in session.flaws():
            lines.append(f"  thesis flaw {f}")
        for c in session.caveats():
            lines.append(f"  caveat: {c}")
    lines.append(_mode_line(session))
    if result.success:
        stretch = "" if result.stretch is None else f", stretch {result.stretch:.4g}"
        lines += [EVALUATOR_VIEW + ":", "  route: " + " ".join(result.route),
                  f"  length {result.length:g} (true shortest {result.shortest_length:g})"
                  f"{stretch}"]
    if recorded:
        lines.append(f"recorded in {args.map} as {recorded} (with {n_entries} ledger "
                     "entries)")
    out.write("\n".join(lines) + "\n")
    return 0


def _record_plan(args: argparse.Namespace, project: Any, map_id: str, label: str,
                 result: Any, session: Any, err: TextIO) -> tuple[str, int]:
    """Record the run in the project file (the window's record): (run id, ledger entries)."""
    from core.project.recording import plan_run_record

    record, entries = plan_run_record(project, result, session, map_id=map_id,
                                      map_label=label, seeded=args.seed is not None)
    record, stored = record_checked(args.map, project, record, entries, args, err)
    return str(record.id), len(stored)


def add_plan_bench_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``plan-bench`` on the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("plan-bench", help="logistics benchmarks B1-B5 (spec 8.3)")
    sp.add_argument("benchmark", choices=("B1", "B2", "B3", "B4", "B5", "all"))
    sp.add_argument("--worlds", type=int, default=50, help="worlds per point (default 50)")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (drawn from the OS and reported if omitted)")
    sp.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    add_scheduler_flag(sp)
    sp.add_argument("--values", default=None, help="comma-separated swept values")
    sp.add_argument("--approaches", default=None,
                    help="comma-separated: dp, dp-thesis, noprivacy, bestfirst, greedy")
    sp.add_argument("-o", "--output", default=None,
                    help="folder for B?.csv and B?.json (not written if omitted)")
    common(sp)


def cmd_plan_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``plan-bench``: run benchmarks, print a summary (or one JSON object).

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
    from core.common.atomic import atomic_write_text
    from core.logistics.experiments import BENCHMARKS, run_benchmark

    names = list(BENCHMARKS) if args.benchmark == "all" else [args.benchmark]
    values = None
    if args.values:
        try:
            values = [float(v) for v in args.values.replace(";", ",").split(",") if v.strip()]
        except ValueError:
            raise InputError(f"not a list of numbers: {args.values!r}", field="--values") from None
    approaches = None
    if args.approaches:
        approaches = [a.strip() for a in args.approaches.split(",") if a.strip()]
    if args.output and not os.path.isdir(args.output):
        raise InputError(f"folder {args.output!r} does not exist", field="--output")
    results = []
    with executor_for(args) as (executor, workers):
        for name in names:
            try:
                res = run_benchmark(name, values=values, approaches=approaches,
                                    worlds=args.worlds, seed=args.seed, workers=workers,
                                    executor=executor, progress=Progress(err, name))
            except InputError as exc:
                raise _flag(exc, {"worlds": "--worlds", "workers": "--workers",
                                  "values": "--values", "approaches": "--approaches",
                                  "seed": "--seed"}) from None
            results.append(res)
            if args.output:
                atomic_write_text(os.path.join(args.output, f"{name}.csv"), res.to_csv())
                atomic_write_text(os.path.join(args.output, f"{name}.json"),
                                  dumps(res.to_dict(), indent=2) + "\n")
    if args.json:
        obj = results[0].to_dict() if len(results) == 1 else {
            "benchmarks": [r.to_dict() for r in results]}
        out.write(dumps(obj) + "\n")
        return 0
    for res in results:
        cfg = res.config
        out.write(f"{cfg.name} {cfg.title}: {res.worlds} worlds per point, seed {res.seed}, "
                  f"{res.elapsed_s:.1f} s\n")
        for ap, g in res.privacy().items():
            eps = g["epsilon"]
            if eps is None:
                text = f"NO proven bound ({g['epsilon_reason']})"
            elif isinstance(eps, list):
                text = "epsilon <= the swept epsilon per agent (proven; node adjacency)"
            elif eps == 0:
                text = "nothing private is released (epsilon 0)"
            else:
                text = f"epsilon <= {eps:.4g} per agent (proven; {g['adjacency'].split(':')[0]})"
            out.write(f"  privacy {ap}: {text}\n")
        metrics = ("success", "route_length", "stretch", "messages")
        out.write(f"{cfg.parameter:>12} {'approach':>10}" + "".join(f"{m:>23}" for m in metrics)
                  + "\n")
        for row in res.rows():
            cells = []
            for m in metrics:
                v, lo, hi = row[m], row[f"{m}_ci_low"], row[f"{m}_ci_high"]
                cells.append(" " + ("n/a" if v is None else (
                    f"{v:.3g} [{lo:.3g}, {hi:.3g}]" if lo is not None else f"{v:.3g}")).rjust(22))
            out.write(f"{row[cfg.parameter]:>12g} {row['approach']:>10}" + "".join(cells) + "\n")
        for c in res.checks:
            out.write(f"  [{'holds' if c['holds'] else 'DOES NOT HOLD'}] {c['claim']}: "
                      f"{c['observed']}\n")
        if args.output:
            out.write(f"  wrote {os.path.join(args.output, cfg.name)}.csv and .json\n")
    return 0
