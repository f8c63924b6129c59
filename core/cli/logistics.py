"""The ``plan`` and ``plan-bench`` subcommands (docs/formats-and-cli.md §5).

Size: the two planning commands, plan and plan-bench, share their flags, their domain handling
and their text output; each command's parser, checks and output stay together, as in the other
core.cli modules.

``plan MAP --origin NODE --goal-agent AG --epsilon E [--preset sound|thesis]
[--approach dp|noprivacy|bestfirst|greedy|simplified] [--solver dijkstra|rl] [--seed S]
[--goal NODE] [--budget C] [--domain logistics|air|rover|packet [--dynamics P]]`` plans one
task on a ``*.map.json`` file (``--domain`` defaults to the map's own; air and rover maps
add ``domain_details``, their public parameters, and ``domain_metrics``, the legs flown or
the sample's value: evaluator's view), or on a map of a project (``*.privplan.json``,
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

``plan-bench B1|B2|B3|B4|B5|all [--domain logistics|air|rover] [--worlds N] [--seed S]
[--workers W] [-o DIR] [--record PROJECT]`` runs the benchmarks of spec §8.3 (on the
domain's generated worlds) and writes ``DIR/B?.csv`` (mean and 95 % CI per point and
approach) and ``DIR/B?.json`` (configuration, rows, paired differences, trend checks).
``plan-bench --experiment fig49|fig410|fig411 [--worlds N] [--seed S] [--values …]
[--dynamics P] [--dynamics-per node|agent] [--connectivity network|area]
[--record PROJECT]`` runs a packet-routing study (:mod:`core.logistics.packet`) on the
shared study runner: a table of means with 95 % intervals and the thesis's claims as paired
tests (``DIR/fig4?.json`` and ``.md`` with ``-o``). Both build their parameters
(:class:`~core.logistics.bench_release.BenchParameters`,
:class:`~core.logistics.bench_release.PacketParameters`) and call the entry point the window
calls; ``--record`` writes the window's run record (kind ``plan-bench`` per benchmark,
``plan-packet``), with no ledger entries: nothing private is released.
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
    record_project,
)
from core.cli.grammar import add_alias, add_record_option
from core.common.errors import InputError
from core.common.jsonable import dumps, finite_or_none, jsonable, jsonable_dict
from core.logistics.records import EVALUATOR_KEYS, EVALUATOR_VIEW

__all__ = ["add_plan_parser", "cmd_plan", "add_plan_bench_parser", "cmd_plan_bench",
           "plan_payload", "rl_solver_line"]

_PLAN_FLAGS = {"origin": "--origin", "goal_agent": "--goal-agent", "goal": "--goal",
               "epsilon": "--epsilon", "seed": "--seed", "comm_budget": "--message-budget",
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
    add_record_option(sp, "record the run in PROJECT, the project MAP (with --map ID), as the "
                          "window does: a run record and every agent's ledger entries; the "
                          "file is saved atomically", reads="map")
    add_over_budget_flag(sp)
    sp.add_argument("--origin", required=True, help="base holding the package")
    sp.add_argument("--goal-agent", required=True, help="agent whose area is the destination")
    sp.add_argument("--goal", default=None,
                    help="destination base (known to the goal agent only); default: its "
                         "base nearest to where it receives the package")
    sp.add_argument("--epsilon", type=float, required=True, help="privacy budget per agent > 0")
    sp.add_argument("--preset", choices=("sound", "thesis"), default="sound",
                    help="sound (default) or thesis (faithful, with its flaws listed)")
    sp.add_argument("--approach", choices=("dp", "noprivacy", "bestfirst", "greedy",
                                           "simplified"), default="dp",
                    help="simplified: the centers plan on exact public crossing lengths "
                         "(thesis 4.5.4)")
    sp.add_argument("--solver", choices=("dijkstra", "rl"), default="dijkstra",
                    help="Step 3's high-level solver: Dijkstra, or the route-probability RL "
                         "of thesis 4.5.3 (its learning curve is reported)")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode (OpenDP noise)")
    sp.add_argument("--message-budget", dest="budget", type=_budget, default=None,
                    help="messages per agent C (default N_centers + 30; 'unlimited')")
    sp.add_argument("--domain", choices=("logistics", "packet", "air", "rover"), default=None,
                    help="default: the map's own domain (logistics, air or rover: thesis "
                         "4.7.2-4.7.3, their constraints checked on the map); packet: packet "
                         "routing on a logistics map (nodes leave and join before each step "
                         "and before forwarding; broken routes are re-planned)")
    sp.add_argument("--dynamics", type=float, default=None,
                    help="--domain packet: leave/join probability per node and tick "
                         "(default 0.1)")
    add_alias(sp, "--budget", "--message-budget", " in plan (--budget is a privacy budget E,D)")
    common(sp)


def rl_solver_line(curve: Any) -> str:
    """What the RL high-level solver learned, in words that stay true when it failed.

    The center graph's weights are the origin's estimates (with DP, computed from released
    maps, where an unlikely crossing is estimated enormously long), so its costs are not
    lengths anyone should read: the line compares the learned route with Dijkstra's on the
    same graph as a ratio, and says plainly when the learned route (the most likely arc from
    every center) does not reach the goal.

    Parameters
    ----------
    curve : LearningCurve
        The solver's curve (:mod:`core.logistics.center_rl`).

    Returns
    -------
    str

    Examples
    --------
    >>> from core.logistics.center_rl import LearningCurve
    >>> "does not reach the goal" in rl_solver_line(
    ...     LearningCurve((5.0, 3.0), (float("inf"), float("inf")), 3.0))
    True
    >>> rl_solver_line(LearningCurve((5.0, 3.0), (5.0, 3.0), 3.0)).endswith("from episode 2")
    True
    """
    head = f"RL high-level solver: {len(curve.episode_cost)} episodes; "
    learned = curve.greedy_cost[-1] if curve.greedy_cost else math.inf
    if not math.isfinite(learned):
        return (head + "its learned route (the most likely arc from every center) does not "
                "reach the goal, so the planner used the cheapest complete walk it sampled "
                "(loops removed)")
    at = curve.converged_at()
    if at:
        return head + f"its learned route is Dijkstra's route on the same center graph from " \
                      f"episode {at}"
    if curve.optimum > 0 and math.isfinite(curve.optimum):
        return head + (f"its learned route reaches the goal at {learned / curve.optimum:.3g} "
                       "times the cost of Dijkstra's route on the same center graph")
    return head + "its learned route reaches the goal but is not Dijkstra's route"


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
        The keys of docs/formats-and-cli.md §5 (``success``, ``route``, ``epsilon_spent``,
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
    return jsonable_dict(payload)


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


def _plan_dynamics(args: argparse.Namespace) -> Any:
    """The :class:`Dynamics` of ``plan --domain packet`` (None for a static map)."""
    from core.logistics.routing import Dynamics

    if args.domain != "packet":  # (resolved: never None here)
        if args.dynamics is not None:
            raise InputError("only applies with --domain packet", field="--dynamics")
        return None
    p = 0.1 if args.dynamics is None else args.dynamics
    if not 0.0 <= p <= 1.0:
        raise InputError(f"must lie in [0, 1], got {p:g}", field="--dynamics")
    return Dynamics(p, p, per="node", connectivity="network") if p > 0 else None


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
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release

    project, map_id = project_item(args.map, args.map_id, args.record, flag="--map",
                                   noun="map", ids_of=lambda p: [m.id for m in p.maps])
    if project is not None:
        entry = next(m for m in project.maps if m.id == map_id)
        world = entry.world
    else:
        world = load_map(args.map)
    args.domain = _resolve_domain(args.domain, world, args.map)
    try:
        params = PlanParameters(
            args.origin, args.goal_agent, args.goal, approach=args.approach, seed=args.seed,
            planner=PlannerParams.preset_params(args.preset, epsilon=args.epsilon,
                                                comm_budget=args.budget,
                                                high_level_solver=args.solver))
        task = params.task_on(world)  # a bad task is named before a bad --dynamics
        dynamics = _plan_dynamics(args)
        release = plan_release(params, world=world, dynamics=dynamics)
    except InputError as exc:
        raise _flag(exc, _PLAN_FLAGS) from None
    result, session = release.result, release.session
    payload = plan_payload(result, session)
    payload["domain"] = args.domain
    payload["domain_details"] = _domain_details(world)
    payload["domain_metrics"] = _domain_metrics(world, result)
    if payload["domain_metrics"] is not None:
        payload["evaluator_keys"] = list(payload["evaluator_keys"]) + ["domain_metrics"]
    payload["dynamics"] = dynamics.to_dict() if dynamics is not None else None
    payload["replans"] = result.restarts
    payload["solver"] = args.solver
    payload["learning_curve"] = (session.learning_curves[-1].to_dict()
                                 if session.learning_curves else None)
    recorded = ""
    if args.record and project is not None and map_id is not None:
        recorded, n_entries = _record_plan(args, project, map_id, entry.label, release,
                                           params, err)
        payload["recorded"] = {"project": args.map, "run": recorded,
                               "ledger_entries": n_entries}
    if args.json:
        out.write(dumps(payload) + "\n")
        return 0
    lines = [f"{world.name or args.map}: {task.origin} -> agent {task.goal_agent}"
             f"{' (' + task.goal + ')' if task.goal else ''}, approach {args.approach}"
             + (f", preset {params.planner.preset}, epsilon parameter {params.planner.epsilon:g}"
                if args.approach == "dp" else "")]
    if result.success:
        lines.append(f"delivered through the public centers {' -> '.join(result.centers)}, "
                     f"agents {' -> '.join(result.agents)}")
        lines.append("plan as the origin agent holds it (its own first leg, then the public "
                     "centers): " + " ".join(result.plan_view))
    else:
        lines.append(f"not delivered: {result.failure} [{result.status}]")
    lines += _domain_lines(world, payload["domain_details"])
    if dynamics is not None:
        lines.append(f"packet routing: nodes leave and join with probability "
                     f"{dynamics.p_leave:g} per node and tick (the network stays connected, "
                     f"areas may split); re-plans of a broken route: {result.restarts}")
    if session.learning_curves:
        lines.append(rl_solver_line(session.learning_curves[-1]))
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
    lines += _domain_metric_lines(world, payload["domain_metrics"])
    if recorded:
        lines.append(f"recorded in {args.map} as {recorded} (with {n_entries} ledger "
                     "entries)")
    out.write("\n".join(lines) + "\n")
    return 0


def _an(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _resolve_domain(domain: str | None, world: Any, path: str) -> str:
    """``plan --domain``: the map's own domain by default; packet needs a logistics map;
    air/rover/logistics must be the map's (InputError naming ``--domain`` otherwise)."""
    if domain is None:
        return str(world.domain)
    if domain == "packet":
        if world.domain != "logistics":
            raise InputError(f"packet routing runs on a logistics map; {path} is "
                             f"{_an(world.domain)} map", field="--domain")
        return domain
    if domain != world.domain:
        raise InputError(f"{path} is {_an(world.domain)} map, not {_an(domain)} map (a map "
                         "states its domain in graph.domain; omit --domain to use it)",
                         field="--domain")
    return domain


def _domain_details(world: Any) -> dict[str, Any] | None:
    """``domain_details`` of ``plan --json``: the profile's names, constraints and the map's
    public parameters (None for logistics maps)."""
    from core.logistics.domains import profile

    if world.domain == "logistics":
        return None
    prof = profile(world.domain)
    return {"title": prof.title, "params": dict(world.domain_params),
            "vocabulary": dict(prof.vocabulary.__dict__), "constraints": list(prof.constraints)}


def _domain_metrics(world: Any, result: Any) -> dict[str, Any] | None:
    """``domain_metrics``: the domain's figures of the executed route (evaluator's view)."""
    from core.logistics.domains import plan_metrics

    return None if world.domain == "logistics" else plan_metrics(world, result)


def _domain_lines(world: Any, details: dict[str, Any] | None) -> list[str]:
    if details is None:
        return []
    v, p = details["vocabulary"], details["params"]
    extra = (f"; fuel range {p['fuel_range']:g} km per flight leg" if "fuel_range" in p else
             f"; samples lose half their value every {p['half_life']:g} m driven"
             if "half_life" in p else "")
    return [f"domain: {details['title']} ({v['agents']}, private {v['bases']}, public "
            f"{v['centers']}, {v['items']}){extra}"]


def _domain_metric_lines(world: Any, m: dict[str, Any] | None) -> list[str]:
    if not m:
        return []
    if world.domain == "air":
        return [f"  {m['legs']:g} flight legs, longest {m['longest_leg']:g} km"
                if m["legs"] is not None else "  no legs flown"]
    return [f"  sample value on delivery {m['sample_value']:.3g}" + (
        f" after {m['handovers']:g} hand-overs" if m["handovers"] is not None else " (lost)")]


def _record_plan(args: argparse.Namespace, project: Any, map_id: str, label: str,
                 release: Any, params: Any, err: TextIO) -> tuple[str, int]:
    """Record the run in the project file (the window's record): (run id, ledger entries)."""
    from core.project.recording import plan_run_record

    record, entries = plan_run_record(project, release, params, map_id=map_id,
                                      map_label=label)
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
    sp.add_argument("benchmark", nargs="?", choices=("B1", "B2", "B3", "B4", "B5", "all"),
                    default=None, help="a benchmark of spec 8.3 (or --experiment)")
    sp.add_argument("--experiment", choices=("fig49", "fig410", "fig411"), default=None,
                    help="packet routing with dynamics (thesis Figs 4.9-4.11) on the study "
                         "runner: paired seeds, intervals and the thesis's claims tested; "
                         "--worlds is the number of seeds per point")
    sp.add_argument("--dynamics", type=float, default=0.1,
                    help="--experiment fig49/fig410: the packet-routing leave/join "
                         "probability (default 0.1)")
    sp.add_argument("--dynamics-per", choices=("node", "agent"), default="node",
                    help="--experiment: every node may leave (node, the thesis's wording) "
                         "or at most one per agent and tick (agent)")
    sp.add_argument("--solver", choices=("dijkstra", "rl"), default="dijkstra",
                    help="--experiment: Step 3's high-level solver (rl: thesis 4.5.3)")
    sp.add_argument("--connectivity", choices=("network", "area"), default="network",
                    help="--experiment: what churn keeps connected: the network (areas may "
                         "split; default) or every area")
    sp.add_argument("--domain", choices=("logistics", "air", "rover"), default="logistics",
                    help="B1, B2, B4, B5: draw the worlds from this domain's generator "
                         "(thesis 4.7.2-4.7.3; air and rover add their own metrics)")
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
    add_record_option(sp, "record the benchmark (each one of 'all') or the study in this "
                          "project (*.privplan.json) as the window does: a run record of "
                          "kind plan-bench or plan-packet, no ledger entries (nothing is "
                          "released); the file is saved atomically")
    common(sp)


def _check_bench_work(names: list[str], values: tuple[float, ...] | None,
                      approaches: tuple[str, ...] | None, args: argparse.Namespace) -> None:
    """Refuse benchmarks whose worlds x points x approaches pass the time limit, up front."""
    from core.cli.guard import PLAN_RUN_S, check_batch
    from core.logistics.experiments import benchmark_config

    for name in names:
        try:
            cfg = benchmark_config(name, values=values, approaches=approaches)
        except InputError:
            continue  # BenchParameters names the flag
        rounds = max(1, int(cfg.rounds))
        runs = float(args.worlds) * len(cfg.values) * len(cfg.approaches) * rounds
        check_batch(runs, PLAN_RUN_S, "--worlds", workers=args.workers,
                    what=f"{name} planning runs ({args.worlds:,} worlds x {len(cfg.values)} "
                         f"points x {len(cfg.approaches)} approaches)")


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
    from core.logistics.bench_release import BenchParameters, bench_release
    from core.logistics.experiments import BENCHMARKS

    if (args.benchmark is None) == (args.experiment is None):
        raise InputError("give a benchmark (B1-B5, all) or --experiment, not both or neither",
                         field="--experiment")
    if args.experiment is not None:
        if args.domain != "logistics":
            raise InputError("the packet-routing experiments run on logistics worlds",
                             field="--domain")
        return _cmd_packet_experiment(args, out, err)
    project = record_project(args.record)  # a bad project is refused before the run
    names = list(BENCHMARKS) if args.benchmark == "all" else [args.benchmark]
    if args.domain != "logistics" and args.benchmark == "all":
        names.remove("B3")  # the dynamic benchmark is packet routing
    values = _values_flag(args.values)
    approaches = _approaches_flag(args.approaches)
    if args.output and not os.path.isdir(args.output):
        raise InputError(f"folder {args.output!r} does not exist", field="--output")
    _check_bench_work(names, values, approaches, args)
    results, recorded = [], []
    with executor_for(args) as (executor, workers):
        for name in names:
            try:
                params = BenchParameters(name, values=values, approaches=approaches,
                                         worlds=args.worlds, seed=args.seed,
                                         workers=args.workers, domain=args.domain)
                res = bench_release(params, Progress(err, name), executor=executor,
                                    workers=workers)
            except InputError as exc:
                raise _flag(exc, {"worlds": "--worlds", "workers": "--workers",
                                  "values": "--values", "approaches": "--approaches",
                                  "seed": "--seed", "domain": "--domain"}) from None
            results.append(res)
            if args.output:
                atomic_write_text(os.path.join(args.output, f"{name}.csv"), res.to_csv())
                atomic_write_text(os.path.join(args.output, f"{name}.json"),
                                  dumps(res.to_dict(), indent=2) + "\n")
            if project is not None:
                recorded.append(_record_bench(args.record, project, res, params))
    if args.json:
        obj: dict[str, Any] = results[0].to_dict() if len(results) == 1 else {
            "benchmarks": [r.to_dict() for r in results]}
        if recorded:
            obj["recorded"] = _recorded(args.record, recorded)
        out.write(dumps(obj) + "\n")
        return 0
    for res in results:
        out.write(_benchmark_text(res, args.output))
    if recorded:
        out.write(f"recorded in {args.record} as {', '.join(recorded)}\n")
    return 0


def _record_bench(path: str, project: Any, res: Any, params: Any) -> str:
    """``--record``: one benchmark's run in the project file (the window's record)."""
    from core.project.recording import bench_run_record
    from core.project.store import record_and_save

    record, _ = record_and_save(path, project, bench_run_record(project, res, params))
    return str(record.id)


def _record_packet(path: str, project: Any, release: Any, params: Any) -> str:
    """``--record``: one packet-routing study's run in the project file."""
    from core.project.recording import packet_run_record
    from core.project.store import record_and_save

    record, _ = record_and_save(path, project, packet_run_record(project, release, params))
    return str(record.id)


def _recorded(path: str, runs: list[str]) -> dict[str, Any]:
    """The ``recorded`` key of ``plan-bench --record --json``: the project and the run (or,
    for ``all``, the runs); nothing is released, so no ledger entries."""
    which: dict[str, Any] = {"run": runs[0]} if len(runs) == 1 else {"runs": runs}
    return {"project": path, **which, "ledger_entries": 0}


def _values_flag(text: str | None) -> tuple[float, ...] | None:
    """``--values``: the swept values (None: the benchmark's own)."""
    if not text:
        return None
    try:
        return tuple(float(v) for v in text.replace(";", ",").split(",") if v.strip())
    except ValueError:
        raise InputError(f"not a list of numbers: {text!r}", field="--values") from None


def _approaches_flag(text: str | None) -> tuple[str, ...] | None:
    """``--approaches``: the approaches to run (None: all)."""
    return tuple(a.strip() for a in text.split(",") if a.strip()) if text else None


def _benchmark_text(res: Any, output: str | None) -> str:
    """The text summary of one benchmark: its privacy per approach, the table of metrics
    with confidence intervals, and its claims."""
    from core.logistics.experiments import DOMAIN_METRICS

    cfg = res.config
    lines = [f"{cfg.name} {cfg.title}: {res.worlds} worlds per point, seed {res.seed}, "
             f"{res.elapsed_s:.1f} s" + (f", domain {cfg.domain}" if cfg.domain !=
                                        "logistics" else "")]
    lines += [f"  privacy {ap}: {_benchmark_privacy(g)}" for ap, g in res.privacy().items()]
    metrics = ("success", "route_length", "stretch", "messages") + DOMAIN_METRICS.get(
        cfg.domain, ())
    lines.append(f"{cfg.parameter:>12} {'approach':>10}" + "".join(f"{m:>23}" for m in metrics))
    for row in res.rows():
        cells = []
        for m in metrics:
            v, lo, hi = row[m], row[f"{m}_ci_low"], row[f"{m}_ci_high"]
            cells.append(" " + ("n/a" if v is None else (
                f"{v:.3g} [{lo:.3g}, {hi:.3g}]" if lo is not None else f"{v:.3g}")).rjust(22))
        lines.append(f"{row[cfg.parameter]:>12g} {row['approach']:>10}" + "".join(cells))
    lines += [f"  [{'holds' if c['holds'] else 'DOES NOT HOLD'}] {c['claim']}: {c['observed']}"
              for c in res.checks]
    if output:
        lines.append(f"  wrote {os.path.join(output, cfg.name)}.csv and .json")
    return "".join(line + "\n" for line in lines)


def _benchmark_privacy(g: dict[str, Any]) -> str:
    """One approach's privacy guarantee in a benchmark, in words."""
    eps = g["epsilon"]
    if eps is None:
        return f"NO proven bound ({g['epsilon_reason']})"
    if isinstance(eps, list):
        return "epsilon <= the swept epsilon per agent (proven; node adjacency)"
    if eps == 0:
        return "nothing private is released (epsilon 0)"
    return f"epsilon <= {eps:.4g} per agent (proven; {g['adjacency'].split(':')[0]})"


def _cmd_packet_experiment(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``plan-bench --experiment fig49|fig410|fig411``: one packet-routing study."""
    from core.common.atomic import atomic_write_text
    from core.logistics.bench_release import PacketParameters, packet_release
    from core.logistics.packet import PACKET_METRICS
    from core.logistics.planner import PlannerParams, preset_guarantee
    from core.logistics.routing import Dynamics
    from core.study import claims_table, summary_table

    project = record_project(args.record)  # a bad project is refused before the run
    values = _values_flag(args.values)
    approaches = _approaches_flag(args.approaches)
    if args.output and not os.path.isdir(args.output):
        raise InputError(f"folder {args.output!r} does not exist", field="--output")
    try:
        params = PacketParameters(args.experiment, worlds=args.worlds, seed=args.seed,
                                  values=values, approaches=approaches,
                                  dynamics_per=args.dynamics_per,
                                  connectivity=args.connectivity, dynamics=args.dynamics,
                                  solver=args.solver, workers=args.workers)
    except InputError as exc:
        raise _flag(exc, {"worlds": "--worlds", "values": "--values", "dynamics": "--dynamics",
                          "approaches": "--approaches", "workers": "--workers",
                          "seed": "--seed", "solver": "--solver",
                          "dynamics_per": "--dynamics-per",
                          "connectivity": "--connectivity"}) from None
    with executor_for(args) as (executor, workers):
        release = packet_release(params, Progress(err, args.experiment), executor=executor,
                                 workers=workers)
    study, result, claims = release.study, release.result, release.claims
    privacy: dict[str, dict[str, Any]] = {}
    for arm in study.arms:
        ap = arm.name
        name = "dp" if ap.startswith("dp") else ap
        preset = "thesis" if ap == "dp-thesis" else "sound"
        g = preset_guarantee(PlannerParams.preset_params(preset), name, dynamics=Dynamics(
            args.dynamics, args.dynamics, per=args.dynamics_per,
            connectivity=args.connectivity))
        privacy[ap] = g.to_dict()
    payload = {"experiment": args.experiment, "study": result.to_json(),
               "claims": [c.to_json() for c in claims],
               "claims_hold": sum(c.holds for c in claims), "claims_total": len(claims),
               "privacy_under_dynamics": privacy,
               "mode": "seeded experiment (reproducible)" if args.seed is not None else
               "seeded experiment (master seed drawn from the OS and recorded)"}
    recorded = (_record_packet(args.record, project, release, params) if project is not None
                else "")
    if recorded:
        payload["recorded"] = _recorded(args.record, [recorded])
    metrics = list(PACKET_METRICS)
    text = (f"{study.name}\n\n" + summary_table(result, metrics, center="mean") + "\n\n"
            + claims_table(claims) + "\n")
    if args.output:
        saved = {k: v for k, v in payload.items() if k != "recorded"}
        atomic_write_text(os.path.join(args.output, f"{args.experiment}.json"),
                          dumps(jsonable(saved), indent=2) + "\n")
        atomic_write_text(os.path.join(args.output, f"{args.experiment}.md"), text)
    if args.json:
        out.write(dumps(jsonable(payload)) + "\n")
        return 0
    out.write(text)
    for ap, gd in privacy.items():
        eps = gd["epsilon"]
        out.write(f"privacy {ap} under these dynamics: " + (
            f"NO proven bound ({gd.get('epsilon_reason', '')})" if eps is None else
            f"epsilon <= {eps:.4g} per agent" if eps else "nothing private is released") + "\n")
    out.write(f"claims holding: {payload['claims_hold']} of {payload['claims_total']} "
              f"(Holm-adjusted, alpha 0.05); master seed {result.master_seed}\n")
    if recorded:
        out.write(f"recorded in {args.record} as {recorded}\n")
    return 0
