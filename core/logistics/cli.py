"""The ``plan`` and ``plan-bench`` subcommands (formats-and-cli.md §5).

``plan MAP --origin NODE --goal-agent AG --epsilon E [--preset sound|thesis]
[--approach dp|noprivacy|bestfirst|greedy] [--seed S] [--goal NODE] [--budget C]``
plans one task on a ``*.map.json`` file. Without ``--seed`` the noise comes from OpenDP
(release mode) and the output says so. A task that cannot be planned is a result with its
reason (exit 0); bad input is one line on stderr and exit 2.

``plan-bench B1|B2|B3|B4|B5|all [--worlds N] [--seed S] [--workers W] [-o DIR]`` runs the
benchmarks of spec §8.3 and writes ``DIR/B?.csv`` (mean and 95 % CI per point and
approach) and ``DIR/B?.json`` (configuration, rows, paired differences, trend checks).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from typing import Any, TextIO

from core._validation import InputError

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
    """Register ``plan`` on the subparsers ``sub`` (``common`` adds ``--json``)."""
    sp = sub.add_parser("plan", help="one DP multi-agent planning task on a map")
    sp.add_argument("map", metavar="MAP", help="*.map.json")
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


def _finite(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {str(k): _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def plan_payload(result: Any, session: Any) -> dict[str, Any]:
    """The ``plan --json`` object for a result and its session."""
    p = session.params
    ledger = []
    for a in session.world.agents:
        for e in session.ledgers[a].entries:
            ledger.append({"agent": a, "mechanism": e.mechanism, "epsilon": e.epsilon,
                           "parameters": e.parameters, "adjacency": e.adjacency,
                           "released": e.released, "mode": e.mode, "seed": e.seed})
    disc = result.discovery
    payload = {
        "success": result.success, "route": list(result.route), "length": result.length,
        "messages": result.messages, "epsilon_spent": session.epsilon_spent(),
        "failure": result.failure, "status": result.status,
        "preset": p.preset if session.approach == "dp" else None,
        "approach": session.approach, "seed": session.seed, "mode": session.mode,
        "epsilon": p.epsilon, "centers": list(result.centers), "agents": list(result.agents),
        "segments": [list(s) for s in result.segments], "plan_view": list(result.plan_view),
        "message_kinds": dict(result.message_kinds),
        "messages_sent": {a: c.sent for a, c in session.comm.items()},
        "comm_budget": session.comm_budget,
        "comm_epsilon_bookkeeping": {a: c.epsilon_used for a, c in session.comm.items()},
        "epsilon_conservative": session.epsilon_conservative(),
        "estimated_length": result.estimated_length,
        "shortest_length": result.shortest_length, "stretch": result.stretch,
        "intermediate_agents": list(disc.candidates) if disc else [],
        "goal_level": disc.goal_level if disc else None,
        "ledger": ledger,
        "thesis_flaws": list(session.flaws()), "caveats": list(session.caveats()),
        "task": result.task.to_dict(), "elapsed_s": result.elapsed_s,
    }
    if session.approach != "dp":
        payload["epsilon_spent"] = {a: 0.0 for a in session.world.agents}
    return _finite(payload)


def _mode_line(session: Any) -> str:
    if session.mode == "release":
        return ("mode: release (Laplace noise from OpenDP; other choices from an OS-seeded "
                "generator)")
    return f"mode: seeded experiment (seed {session.seed}) - reproducible, not for real releases"


def cmd_plan(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``plan``: one task; exit 0 with the result (also when it fails), 2 on bad input."""
    from core.logistics.io import load_map
    from core.logistics.model import Task, validate_task
    from core.logistics.planner import PlannerParams, PlanningSession

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
    if args.json:
        out.write(json.dumps(payload, allow_nan=False) + "\n")
        return 0
    lines = [f"{world.name or args.map}: {task.origin} -> agent {task.goal_agent}"
             f"{' (' + task.goal + ')' if task.goal else ''}, approach {args.approach}"
             + (f", preset {params.preset}, epsilon {params.epsilon:g}"
                if args.approach == "dp" else "")]
    if result.success:
        lines.append(f"delivered: length {result.length:g} (true shortest "
                     f"{result.shortest_length:g}), centers {' -> '.join(result.centers)}, "
                     f"agents {' -> '.join(result.agents)}")
        lines.append("route: " + " ".join(result.route))
    else:
        lines.append(f"not delivered: {result.failure} [{result.status}]")
    lines.append(f"messages: {result.messages} ("
                 + ", ".join(f"{k} {v}" for k, v in result.message_kinds.items()) + ")")
    if args.approach == "dp":
        spent = {a: e for a, e in payload["epsilon_spent"].items() if e}
        lines.append("epsilon spent (privacy ledger, per agent): " + (", ".join(
            f"{a} {e:.4g}" for a, e in spent.items()) or "none"))
        for f in session.flaws():
            lines.append(f"  thesis flaw {f}")
        for c in session.caveats():
            lines.append(f"  caveat: {c}")
    lines.append(_mode_line(session))
    out.write("\n".join(lines) + "\n")
    return 0


def add_plan_bench_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``plan-bench`` on the subparsers ``sub``."""
    sp = sub.add_parser("plan-bench", help="logistics benchmarks B1-B5 (spec 8.3)")
    sp.add_argument("benchmark", choices=("B1", "B2", "B3", "B4", "B5", "all"))
    sp.add_argument("--worlds", type=int, default=50, help="worlds per point (default 50)")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (drawn from the OS and reported if omitted)")
    sp.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    sp.add_argument("--values", default=None, help="comma-separated swept values")
    sp.add_argument("--approaches", default=None,
                    help="comma-separated: dp, dp-thesis, noprivacy, bestfirst, greedy")
    sp.add_argument("-o", "--output", default=None,
                    help="folder for B?.csv and B?.json (not written if omitted)")
    common(sp)


def cmd_plan_bench(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``plan-bench``: run benchmarks, print a summary (or one JSON object)."""
    from core.cli import _Progress
    from core.io.atomic import atomic_write_text
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
    for name in names:
        try:
            res = run_benchmark(name, values=values, approaches=approaches, worlds=args.worlds,
                                seed=args.seed, workers=args.workers,
                                progress=_Progress(err, name))
        except InputError as exc:
            raise _flag(exc, {"worlds": "--worlds", "workers": "--workers",
                              "values": "--values", "approaches": "--approaches",
                              "seed": "--seed"}) from None
        results.append(res)
        if args.output:
            atomic_write_text(os.path.join(args.output, f"{name}.csv"), res.to_csv())
            atomic_write_text(os.path.join(args.output, f"{name}.json"),
                              json.dumps(res.to_dict(), indent=2, allow_nan=False) + "\n")
    if args.json:
        obj = results[0].to_dict() if len(results) == 1 else {
            "benchmarks": [r.to_dict() for r in results]}
        out.write(json.dumps(obj, allow_nan=False) + "\n")
        return 0
    for res in results:
        cfg = res.config
        out.write(f"{cfg.name} {cfg.title}: {res.worlds} worlds per point, seed {res.seed}, "
                  f"{res.elapsed_s:.1f} s\n")
        metrics = ("success", "route_length", "stretch", "messages")
        out.write(f"{cfg.parameter:>12} {'approach':>10}" + "".join(f"{m:>22}" for m in metrics)
                  + "\n")
        for row in res.rows():
            cells = []
            for m in metrics:
                v, lo, hi = row[m], row[f"{m}_ci_low"], row[f"{m}_ci_high"]
                cells.append("n/a".rjust(22) if v is None else (
                    f"{v:.3g} [{lo:.3g}, {hi:.3g}]" if lo is not None else f"{v:.3g}").rjust(22))
            out.write(f"{row[cfg.parameter]:>12g} {row['approach']:>10}" + "".join(cells) + "\n")
        for c in res.checks:
            out.write(f"  [{'holds' if c['holds'] else 'DOES NOT HOLD'}] {c['claim']}: "
                      f"{c['observed']}\n")
        if args.output:
            out.write(f"  wrote {os.path.join(args.output, cfg.name)}.csv and .json\n")
    return 0
