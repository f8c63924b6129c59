"""The ``drl`` and ``comarl`` subcommands: private learning agents."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import (
    Progress,
    add_record_flag,
    emit,
    flag_error,
    mode_line,
    record_checked,
    record_project,
)
from core.common.errors import InputError

__all__ = ["cmd_drl", "add_drl_parser", "cmd_comarl", "add_comarl_parser", "drl_parameters",
           "comarl_parameters", "DRL_FLAGS", "COMARL_FLAGS", "record_drl", "record_comarl",
           "recorded_lines"]


def grid_id(args: argparse.Namespace) -> str:
    """The map's name in a ``drl`` record: ``example``, ``random`` or the map file's name
    (without ``.grid.json``); its ledger entries are charged to ``grid:<name>``."""
    if getattr(args, "random", None) is not None:
        return "random"
    if args.map == "example":
        return "example"
    from pathlib import Path

    name = Path(args.map).name
    return name[: -len(".grid.json")] if name.endswith(".grid.json") else Path(name).stem


def _record(args: argparse.Namespace, project: Any, made: Any, payload: dict[str, Any],
            err: TextIO) -> None:
    record, entries = made
    record, stored = record_checked(args.record, project, record, entries, args, err)
    payload["recorded"] = {"project": args.record, "run": record.id,
                           "ledger_entries": [e.id for e in stored]}


def record_drl(args: argparse.Namespace, project: Any, run: Any, params: Any,
               payload: dict[str, Any], err: TextIO) -> None:
    """``drl --record PROJECT``: the training recorded as the Agents tab records it
    (:func:`core.project.recording.drl_run_record`); nothing without ``--record``."""
    if project is None:
        return
    from core.project.recording import drl_run_record

    _record(args, project, drl_run_record(project, run, params, grid_id(args)), payload, err)


def record_comarl(args: argparse.Namespace, project: Any, run: Any, params: Any,
                  payload: dict[str, Any], err: TextIO) -> None:
    """``comarl --record PROJECT``: the team's training recorded as the Agents tab records it
    (:func:`core.project.recording.comarl_run_record`); nothing without ``--record``."""
    if project is None:
        return
    from core.project.recording import comarl_run_record

    _record(args, project, comarl_run_record(project, run, params), payload, err)


def recorded_lines(payload: dict[str, Any]) -> list[str]:
    """The text output's line saying where the run was recorded (none if it was not)."""
    r = payload.get("recorded")
    if not r:
        return []
    return [f"recorded in {r['project']} as {r['run']} with ledger entries "
            f"{', '.join(r['ledger_entries']) or '(none)'}"]


def _parse_size(text: str) -> tuple[int, int]:
    try:
        parts = [int(v) for v in text.lower().split("x")]
    except ValueError:
        raise InputError(f"{text!r} is not a size like 9 or 12x11", field="--random") from None
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2:
        raise InputError(f"{text!r} is not a size like 9 or 12x11", field="--random")
    return parts[0], parts[1]


#: the ``drl`` flags of DrlParameters' fields (and of the map's)
DRL_FLAGS = {"epsilon": "--epsilon", "preset": "--preset", "defense": "--defense",
             "episodes": "--episodes", "max_steps": "--max-steps",
             "population": "--population", "generations": "--generations"}

#: the ``comarl`` flags of ComarlParameters' fields
COMARL_FLAGS = {"agents": "--agents", "sigma": "--sigma", "window": "--window",
                "sample_rate": "--sample-rate", "episodes": "--episodes", "size": "--size",
                "delta": "--delta", "algorithm": "--algorithm", "lr": "--lr"}


def drl_parameters(args: argparse.Namespace) -> Any:
    """The :class:`core.gridworld.release.DrlParameters` of a ``drl`` command line (bad input:
    InputError naming the flag)."""
    from core.gridworld.release import DrlParameters

    try:
        return DrlParameters(defense=args.defense, preset=args.preset, epsilon=args.epsilon,
                             episodes=args.episodes, max_steps=args.max_steps,
                             agent=getattr(args, "agent", "tabular"), attack=args.attack,
                             population=args.population, generations=args.generations,
                             seed=args.seed)
    except InputError as exc:
        raise flag_error(exc, DRL_FLAGS) from None


def comarl_parameters(args: argparse.Namespace) -> Any:
    """The :class:`core.comarl.release.ComarlParameters` of a ``comarl`` command line (bad
    input: InputError naming the flag)."""
    from core.comarl.release import ComarlParameters

    try:
        return ComarlParameters(agents=args.agents, size=args.size, episodes=args.episodes,
                                algorithm=args.algorithm, lr=args.lr, dp=args.dp,
                                sigma=args.sigma, window=args.window,
                                sample_rate=args.sample_rate, delta=args.delta,
                                agent=getattr(args, "agent", "tabular"), seed=args.seed)
    except InputError as exc:
        raise flag_error(exc, COMARL_FLAGS) from None


def cmd_drl(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``drl``: train a navigation agent (optionally with DP-DRL) and attack its map.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output and standard error.

    Returns
    -------
    int
        0 on success; bad input raises InputError (exit 2).
    """
    import numpy as np

    from core.gridworld.maps import check_map, example_12x11, load_grid, random_map
    from core.gridworld.release import drl_release

    if (args.map is None) == (args.random is None):
        raise InputError("give a map file (or 'example') or --random SIZE, not both",
                         field="MAP")
    project = record_project(args.record)  # one that cannot be recorded in: refused before work
    seed = args.seed
    if args.random is not None:
        rows, cols = _parse_size(args.random)
        try:
            grid = random_map(rows, cols, np.random.default_rng(0 if seed is None else seed))
        except InputError as exc:
            raise flag_error(exc, {"size": "--random"}) from None
    elif args.map == "example":
        grid = example_12x11()
    else:
        grid = load_grid(args.map)
    if getattr(args, "table", False):
        return _cmd_drl_table(args, grid, project, out, err)
    if getattr(args, "agent", "tabular") == "dqn":  # a network: the optional deep extra
        from core.cli.deep import cmd_drl_dqn

        return cmd_drl_dqn(args, grid, out, err, project=project)
    try:
        check_map(grid)
    except InputError as exc:
        raise flag_error(exc, {"map": "MAP"}) from None
    params = drl_parameters(args)
    run = drl_release(params, Progress(err, "drl"), grid=grid)
    res = run.train
    payload: dict[str, Any] = run.to_json()
    record_drl(args, project, run, params, payload, err)

    def text() -> str:
        lines = [f"{grid.name or 'map'} {grid.shape[0]}x{grid.shape[1]}, defense "
                 f"{res.setup.defense}" + (f" ({res.setup.preset})" if res.setup.defense ==
                                           "dpdrl" else ""),
                 f"final stage (last 10 % of {payload['episodes']} episodes): reward "
                 f"{payload['reward_final']:.3f}, steps {payload['steps_final']:.1f}, success "
                 f"{payload['success_final']:.2f}",
                 ("converged" if payload["converged"] else "DID NOT CONVERGE")
                 + f": {payload['convergence']['eval_success']:.0%} of "
                 f"{payload['convergence']['eval_episodes']} greedy evaluation episodes reached "
                 f"the goal within {payload['convergence']['step_limit']} steps (2 x the "
                 f"shortest path)"]
        if res.setup.defense == "dpdrl":
            eps = payload["epsilon_per_step"]
            lines.append("epsilon per step (which bit is flipped): "
                         + (f"{eps:g}" if eps is not None else
                            f"data-dependent (mean {payload['epsilon_mean_used']:.3g}; "
                            "thesis preset, not a valid parameter)")
                         + f", {payload['obfuscated_steps']} obfuscated steps")
            if payload.get("choice_p_max_mean") is not None:
                lines.append("the choice's largest probability averaged "
                             f"{payload['choice_p_max_mean']:.3f} over those steps (uniform: "
                             "0.125)")
        lines.append(f"epsilon total for the map: unbounded ({payload['epsilon_total_reason']})")
        if args.attack:
            lines.append(f"map recovery: GRR {payload['grr']:.3f}, NRR {payload['nrr']:.3f} "
                         f"(a random valid map: NRR {payload['baseline_nrr']:.3f})")
            lines += ["truth" + " " * (grid.shape[1] - 3) + "   recovered"]
            lines += [f"{a}   {b}" for a, b in zip(payload["truth"], payload["recovered"])]
        lines.append(mode_line(seed))
        return "\n".join(lines + recorded_lines(payload) + [f"note: {n}" for n in res.notes])

    emit(args, payload, text, out)
    return 0


def _cmd_drl_table(args: argparse.Namespace, grid: Any, project: Any, out: TextIO,
                   err: TextIO) -> int:
    """``drl MAP --table``: the flags make one
    :class:`~core.gridworld.release.DrlTableParameters` (the training's flags, as for one
    run), :func:`~core.gridworld.release.drl_table_release` trains and attacks every row and
    :func:`~core.project.recording.drl_table_run_record` records them (``--record``), as the
    Private agents tab's Compare ε does."""
    from core.gridworld.maps import check_map
    from core.gridworld.release import DrlTableParameters, drl_table_release

    if getattr(args, "agent", "tabular") != "tabular":
        raise InputError("--table trains Q-tables (--agent tabular)", field="--agent")
    try:
        check_map(grid)
    except InputError as exc:
        raise flag_error(exc, {"map": "MAP"}) from None
    try:
        params = DrlTableParameters(drl_parameters(args), grid=grid_id(args))
    except InputError as exc:
        raise flag_error(exc, DRL_FLAGS) from None
    rows = drl_table_release(params, Progress(err, "drl"), grid=grid)
    seed = params.training.seed
    payload: dict[str, Any] = {"rows": [r.to_json() for r in rows],
                               "truth": grid.to_rows(), "mode": "experiment", "seed": seed}
    if project is not None:
        from core.project.recording import drl_table_run_record

        _record(args, project, drl_table_run_record(project, rows, params), payload, err)

    def text() -> str:
        lines = [f"{grid.name or 'map'} {grid.shape[0]}x{grid.shape[1]}: "
                 f"{params.training.episodes} episodes per row, each attacked by the GA "
                 f"({params.training.generations} generations)",
                 f"{'row':<20}{'reward':>9}{'success':>9}{'converged':>11}{'GRR':>7}"
                 f"{'NRR':>7}"]
        lines += [f"{r['label']:<20}{r['reward_final']:>9.3f}{r['success_final']:>9.2f}"
                  f"{'yes' if r['converged'] else 'no':>11}{r['grr']:>7.3f}{r['nrr']:>7.3f}"
                  for r in payload["rows"]]
        lines.append(mode_line(seed))
        return "\n".join(lines + recorded_lines(payload))

    emit(args, payload, text, out)
    return 0


def add_drl_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``drl`` to the subparsers ``sub``."""
    sp = sub.add_parser("drl", help="DP-DRL: a grid-navigation agent, optional observation "
                                    "obfuscation, and the map-recovery attack")
    sp.add_argument("map", nargs="?", default=None, metavar="MAP",
                    help="a *.grid.json map, or 'example' (the 12x11 stand-in, A19)")
    sp.add_argument("--random", default=None, metavar="SIZE",
                    help="a random map under the constraints, e.g. 9 or 12x11")
    sp.add_argument("--defense", choices=("none", "dpdrl"), default="none",
                    help="none (default) or dpdrl: the agent's observations are obfuscated "
                         "by a DP bit choice")
    sp.add_argument("--epsilon", type=float, default=None,
                    help="strict preset: epsilon of each bit choice (default 1)")
    sp.add_argument("--preset", choices=("strict", "thesis"), default="strict",
                    help="strict (fixed epsilon, S = N - 1) or thesis (data-dependent epsilon "
                         "and S: faithful, not a valid DP parameter)")
    sp.add_argument("--attack", action="store_true", help="run the GA map-recovery attack")
    sp.add_argument("--agent", choices=("tabular", "dqn"), default="tabular",
                    help="tabular Q-learning (default) or a DQN on JAX (the optional 'deep' "
                         "extra)")
    sp.add_argument("--episodes", type=int, default=1500,
                    help="training episodes (default 1500)")
    sp.add_argument("--max-steps", type=int, default=200,
                    help="most steps of an episode (default 200)")
    sp.add_argument("--population", type=int, default=100, help="GA population")
    sp.add_argument("--generations", type=int, default=200, help="GA generations")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (default: release mode)")
    sp.add_argument("--table", action="store_true",
                    help="compare epsilon (Tables 5.1/5.3, the Private agents tab's Compare "
                         "epsilon): no defense, each fixed epsilon and the dynamic epsilon, "
                         "each trained with --episodes/--max-steps and attacked with "
                         "--generations; always seeded (without --seed: seed 0)")
    add_record_flag(sp, "run")
    common(sp)


def cmd_comarl(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``comarl``: tabular PE-VDN with secure summation, optional DP on the tables.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output and standard error.

    Returns
    -------
    int
        0 on success; bad input raises InputError (exit 2).
    """
    if getattr(args, "agent", "tabular") == "net":  # networks: the optional deep extra
        from core.cli.deep import cmd_comarl_net

        return cmd_comarl_net(args, out, err)
    from core.comarl.release import comarl_release

    project = record_project(args.record)  # refused before any work if it cannot be used
    params = comarl_parameters(args)
    run = comarl_release(params, Progress(err, "comarl"))
    res, central, team = run.pe, run.central, run.team
    assert central is not None  # the tables' run trains the reference
    payload = run.to_json()
    record_comarl(args, project, run, params, payload, err)

    def text() -> str:
        lines = [f"{'PE-VDN' if args.algorithm == 'vdn' else 'IQL (independent learners)'}, "
                 f"{team.agents} agents on a {args.size}x{args.size} map, "
                 f"{payload['updates']} updates",
                 f"team return (last 10 %): {payload['team_return']:.3f} (without secure "
                 f"summation {central.team_return:.3f})",
                 f"max |A_PE - A_central| = {payload['pe_vs_central_max_diff']:.2e} (bound "
                 f"{payload['pe_vs_central_bound']:.0e})",
                 f"time {res.seconds:.2f} s vs central {central.seconds:.2f} s "
                 f"(overhead x{payload['overhead']:.2f})"]
        if payload["epsilon"] is None:
            lines.append(f"epsilon: unbounded ({payload['epsilon_reason']})")
        else:
            lines.append(f"epsilon {payload['epsilon']:.4g}, delta {payload['delta']:.3g} "
                         "per transition, replace-one (DP-SGD on the tables, replay window "
                         "of a fixed-size buffer, dp-accounting PLD)")
        if payload.get("episode") is not None:
            ep = payload["episode"]
            lines.append(f"episode (up to {ep['group']} transitions, group privacy): "
                         + (f"unbounded ({ep['epsilon_reason']})" if ep["epsilon"] is None
                            else f"epsilon {ep['epsilon']:.4g}, delta {ep['delta']:.3g}"))
        th = payload.get("thesis_reading")
        if th is not None and th.get("epsilon") is not None:
            lines.append(f"thesis reading (add/remove-one, RDP; not a guarantee): epsilon "
                         f"{th['epsilon']:.4g}")
        lines += [f"agent {r['agent']} learns {r['learns']}" for r in payload["leakage"]]
        lines.append(mode_line(args.seed))
        return "\n".join(lines + recorded_lines(payload) + [f"note: {n}" for n in res.notes])

    emit(args, payload, text, out)
    return 0


def add_comarl_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``comarl`` to the subparsers ``sub``."""
    sp = sub.add_parser("comarl", help="privacy-engineered cooperative MARL: tabular PE-VDN "
                                       "with secure summation, optional DP-SGD on the tables")
    sp.add_argument("--agents", type=int, default=3, help="agents N >= 2 (default 3)")
    sp.add_argument("--size", type=int, default=7, help="map size (default 7x7)")
    sp.add_argument("--episodes", type=int, default=400, help="training episodes (default 400)")
    sp.add_argument("--algorithm", choices=("vdn", "iql"), default="vdn",
                    help="vdn (default: the coupled update, secure summation) or iql "
                         "(independent Q-learners on the team reward: the baseline)")
    sp.add_argument("--lr", type=float, default=0.2,
                    help="learning rate (VDN: each of the N tables takes lr/N of the TD "
                         "error; every entry is kept in the range of the task's returns)")
    sp.add_argument("--dp", action="store_true", help="DP-SGD on the Q-tables (or networks)")
    sp.add_argument("--agent", choices=("tabular", "net"), default="tabular",
                    help="tabular Q-tables (default) or one network per agent on JAX (the "
                         "optional 'deep' extra)")
    sp.add_argument("--sigma", type=float, default=1.0, help="with --dp: noise multiplier")
    sp.add_argument("--window", type=int, default=1024,
                    help="with --dp: replay window B (Theorem 4.2)")
    sp.add_argument("--sample-rate", type=float, default=1 / 32,
                    help="with --dp: Poisson rate q over the window")
    sp.add_argument("--delta", type=float, default=None,
                    help="with --dp: delta (default B^-1.1)")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (default: release mode)")
    add_record_flag(sp, "run")
    common(sp)
