"""The network variants of ``share``, ``drl`` and ``comarl`` (the optional ``deep`` extra).

``share gym:ID --agent ppo``: a PPO teacher and kickstarted PPO students on a gymnasium
environment (CartPole-v1, Acrobot-v1; MinAtar where installed); the JSON keeps the tabular
keys (``k``, ``epsilon``, ``delta``, ``ledger_total``, ``stopped_at``, ``curves``,
``teacher_value``, ``cost_of_privacy``, …) and adds ``teacher_return``, ``lipschitz``,
``b``, ``lb``, ``guarantee``, ``solved_at`` and ``speedup_vs_teacher``.

``drl MAP --agent dqn``: a DQN on the grid world, DP-DRL's obfuscation and the map-recovery
attack; the tabular keys plus ``agent``.

``comarl --agent net``: PE-VDN with per-agent networks, secure summation and DP-SGD under
the replay-window accountant; the tabular keys plus ``agent``.

JAX is imported only here, inside the commands, after :func:`core.deep.require` has checked
for it (exit 2 naming the extra when it is missing).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from core.cli.common import Progress, emit, flag_error, mode_line
from core.cli.grammar import add_old_option
from core.common.errors import InputError

__all__ = ["add_share_ppo_flags", "cmd_share_ppo", "cmd_drl_dqn", "cmd_comarl_net",
           "mia_networks", "mia_network_kind"]

_SHARE_FLAGS = {"k0": "--k0", "coef": "--coef", "eta": "--eta", "delta": "--delta",
                "tau": "--tau", "bound": "--bound", "lambda": "--lambda", "beta": "--beta",
                "kappa": "--kappa", "budget": "--budget", "iterations": "--iterations",
                "students": "--students", "seeds": "--seeds", "env": "ENV", "b": "--b",
                "lipschitz": "--lipschitz", "after_budget": "--after-budget",
                "hidden": "--iterations", "envs": "--ppo-envs", "steps": "--ppo-steps",
                "lr": "--ppo-lr", "minibatches": "--ppo-steps"}


def mia_networks() -> Any:
    """The network victims' factory of ``mia --model`` (exit 2 naming the extra without JAX).

    Returns
    -------
    callable
        :func:`core.deep.victims.network_victim`.
    """
    from core.deep import require

    require("--model")
    from core.deep.victims import network_victim

    return network_victim


def mia_network_kind(model: str, data: Any, **params: Any) -> Any:
    """The victim kind of ``mia --attack lira|loss|all|canary --model M``: a
    :class:`core.deep.victims.NetworkVictimKind` (exit 2 naming the extra without JAX).

    Parameters
    ----------
    model : str
        mlp, cnn, gru or lstm.
    data : Dataset
        The data set.
    **params
        Its parameters (hidden, epochs, batch, lr, defense, epsilon, delta, n_train, clip).

    Returns
    -------
    NetworkVictimKind
    """
    from core.deep import require

    require("--model")
    from core.deep.victims import NetworkVictimKind

    return NetworkVictimKind(model, data, **params)


def add_share_ppo_flags(sp: argparse.ArgumentParser) -> None:
    """The flags of ``share --agent ppo`` (added to the ``share`` parser).

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The ``share`` parser.
    """
    g = sp.add_argument_group("networks (--agent ppo; the optional 'deep' extra)")
    g.add_argument("--agent", choices=("tabular", "ppo"), default="tabular",
                   help="tabular (default): exact policy gradient on an MDP; ppo: a PPO "
                        "teacher (64x64) and PPO students (32x32) on gym:CartPole-v1, "
                        "gym:Acrobot-v1 (MinAtar where installed)")
    g.add_argument("--b", type=float, default=0.01,
                   help="ppo: l2 radius b of neighbouring observations (L*b is computed from "
                        "the teacher network's Lipschitz constant L)")
    g.add_argument("--lipschitz", choices=("bound", "estimate"), default="bound",
                   help="ppo: L as a proven spectral-norm bound (default) or a Jacobian "
                        "estimate over roll-outs (labelled: the epsilon is then an estimate)")
    g.add_argument("--teacher-iterations", type=int, default=600,
                   help="ppo: the teacher's most roll-outs (it stops once solved)")
    g.add_argument("--after-budget-ppo", dest="after_budget_ppo", choices=("stop", "random"),
                   default="stop",
                   help="ppo: after the budget the teacher sends nothing (stop) or random "
                        "policies (the paper's protocol)")
    g.add_argument("--ppo-envs", type=int, default=4, help="ppo: parallel environments")
    g.add_argument("--ppo-steps", type=int, default=128,
                   help="ppo: steps per environment and roll-out")
    g.add_argument("--ppo-lr", type=float, default=1e-3, help="ppo: Adam's rate")
    add_old_option(g, "--project", default=None, metavar="PROJECT")  # now --record PROJECT
    g.add_argument("--unsafe-gym-module", action="store_true",
                   help="UNSAFE: let ENV be gym:MODULE:ENV_ID — imports (runs) the Python "
                        "module MODULE so that it registers ENV_ID; only for code you trust. "
                        "Without it only ids already registered in gymnasium are accepted")


def _ppo_env_id(args: argparse.Namespace) -> str:
    """The registered gymnasium id of ``share gym:ID --agent ppo``; nothing is imported
    unless ``--unsafe-gym-module`` asks for a ``gym:MODULE:ENV_ID``'s module."""
    body = args.env[4:]
    if ":" in body and args.unsafe_gym_module:
        import importlib

        module, _, body = body.partition(":")
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise InputError(f"module {module!r} could not be imported ({exc})",
                             field="ENV") from None
    elif ":" in body:
        raise InputError(f"{args.env!r}: --agent ppo takes a registered gymnasium id such as "
                         "gym:CartPole-v1 (a :VARIANT is for the tabular share; a "
                         "gym:MODULE:ENV_ID imports code and needs --unsafe-gym-module)",
                         field="ENV")
    from core.deep.ppo import registered_id  # JAX: only once the id's form is accepted

    try:
        return registered_id(body)
    except InputError as exc:
        raise InputError(exc.problem, field="ENV") from None


def _require_ppo() -> None:
    """One line naming the ``deep`` extra when JAX or gymnasium is missing (exit 2)."""
    from core.deep import INSTALL_HINT, DeepUnavailable, require

    require("--agent")
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        raise DeepUnavailable("--agent ppo needs gymnasium (not installed), part of the "
                              f"optional 'deep' extra: {INSTALL_HINT}",
                              field="--agent") from None


def cmd_share_ppo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``share gym:ID --agent ppo`` (module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``share`` command line.
    out, err : TextIO
        The result; progress.

    Returns
    -------
    int
        0; bad input raises :class:`~core.common.errors.InputError` (exit 2).
    """
    _require_ppo()
    if not args.env.startswith("gym:"):
        raise InputError("--agent ppo trains on a gymnasium environment: give gym:CartPole-v1 "
                         "or gym:Acrobot-v1", field="ENV")
    env_id = _ppo_env_id(args)
    project = None
    if args.record:
        from core.cli.common import record_project

        if not args.project:
            raise InputError("--record with --agent ppo needs --project PROJECT (the "
                             "environment is not in a project)", field="--record")
        project = record_project(args.project)
    from core.cli.sharing import _budget
    from core.deep.kickstart import run_ppo_sharing
    from core.deep.ppo import PpoConfig
    from core.sharing.learning import SharingSetup
    from core.sharing.records import SharingParameters

    students = [s.strip() for s in args.students.split(",") if s.strip()]
    delta = None if args.tau is not None else (args.delta if args.delta is not None else 1e-3)
    try:
        setup = SharingSetup(k0=args.k0, coef=args.coef, eta=args.eta, lb=0.0, tau=args.tau,
                             delta=delta, bound=args.bound, lam=args.lam, beta=args.beta,
                             kappa=args.kappa, budget=_budget(args.budget),
                             iterations=args.iterations, draws=args.draws)
        cfg = PpoConfig(envs=args.ppo_envs, steps=args.ppo_steps, lr=args.ppo_lr)
        spent = (0.0, 0.0)
        dataset = f"gym:{env_id}"
        if project is not None:
            from core.privacy.ledger import PrivacyLedger

            spent = PrivacyLedger.from_project(project).spent(dataset)
        res = run_ppo_sharing(env_id, setup, b=args.b, students=students, seeds=args.seeds,
                              seed=args.seed, lipschitz=args.lipschitz,
                              teacher_iterations=args.teacher_iterations, cfg=cfg,
                              after_budget=args.after_budget_ppo, spent=spent,
                              progress=Progress(err, "share"))
        # what was asked, as the tabular share and the window keep it (the run has checked
        # its students and seeds with the network's own rules first)
        params = SharingParameters(env=dataset, setup=setup, students=tuple(students),
                                   seeds=args.seeds, seed=args.seed, teacher="ppo")
    except InputError as exc:
        raise flag_error(exc, _SHARE_FLAGS) from None
    payload = res.to_dict()
    if project is not None:
        from core.cli.common import record_checked
        from core.deep.records import ppo_sharing_record

        record, entries = ppo_sharing_record(project, res, params)
        record, added = record_checked(args.project, project, record, entries, args, err)
        payload["recorded"] = {"project": args.project, "run": record.id,
                               "ledger_entries": len(added)}

    def text() -> str:
        led = res.result.ledger
        e, d = led.totals
        L = res.lipschitz
        lines = [f"{env_id}: PPO teacher return {res.teacher_return:.4g} (solved "
                 + (f"after {res.teacher_solved_at} steps" if res.teacher_solved_at
                    else "not reached") + f"); {args.seeds} seeds x {setup.iterations} roll-outs "
                 f"of {res.steps_per_rollout} steps", mode_line(args.seed),
                 f"Lipschitz constant L = {L.value:.4g} "
                 f"({'proven bound' if L.proven else 'ESTIMATE, not a proof'}); "
                 f"b = {res.b:g}, L*b = {res.result.setup.lb:.4g}",
                 f"teacher's total over all {led.runs} noisy student runs: ({e:.4g}, {d:.3g}) "
                 f"within the budget {tuple(led.budget)}; "
                 + (f"stopped before roll-out {led.stopped_at}" if led.stopped_at is not None
                    else "never stopped"),
                 f"guarantee: {res.guarantee}",
                 "final mean return (median over seeds, 85th-percentile band); steps to solve "
                 "(median):"]
        for kind in res.result.curves:
            med, lo, hi = res.result.band(kind)
            sol = payload["solved_at_median"].get(kind)
            lines.append(f"  {kind:<11} {med[-1]:.4g}  [{lo[-1]:.4g}, {hi[-1]:.4g}]   solved "
                         + ("never" if sol is None else f"at {sol:.0f} steps"))
        lines += [f"note: {n}" for n in payload["notes"]]
        if "recorded" in payload:
            r = payload["recorded"]
            lines.append(f"recorded in {r['project']} as {r['run']} with "
                         f"{r['ledger_entries']} ledger entries")
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def cmd_drl_dqn(args: argparse.Namespace, grid: Any, out: TextIO, err: TextIO, *,
                project: Any = None) -> int:
    """Run ``drl MAP --agent dqn``: a DQN navigation agent, optional DP-DRL obfuscation, and
    the map-recovery attack (the tabular command's keys plus ``agent``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``drl`` command line.
    grid : GridMap
        The map (already loaded by the ``drl`` command).
    out, err : TextIO
        The result; progress.
    project : Project, optional
        ``--record``'s project (read by the ``drl`` command before any work).

    Returns
    -------
    int
        0; bad input raises InputError (exit 2).
    """
    from core.deep import require

    require("--agent")
    from core.cli.agents import drl_parameters, record_drl, recorded_lines
    from core.deep.dqn import train_dqn
    from core.gridworld.maps import check_map
    from core.gridworld.release import drl_release

    seed = args.seed
    check_map(grid)
    params = drl_parameters(args)
    run = drl_release(params, Progress(err, "drl"), grid=grid, trainer=train_dqn)
    res = run.train
    payload: dict[str, Any] = run.to_json()
    payload["agent"] = "dqn"
    record_drl(args, project, run, params, payload, err)

    def text() -> str:
        lines = [f"DQN on {grid.name or 'map'} {grid.shape[0]}x{grid.shape[1]}, defense "
                 f"{res.setup.defense}",
                 f"final stage (last 10 % of {payload['episodes']} episodes): reward "
                 f"{payload['reward_final']:.3f}, steps {payload['steps_final']:.1f}, success "
                 f"{payload['success_final']:.2f}",
                 f"epsilon total for the map: unbounded ({payload['epsilon_total_reason']})"]
        if args.attack:
            lines.append(f"map recovery: GRR {payload['grr']:.3f}, NRR {payload['nrr']:.3f} "
                         f"(a random valid map: NRR {payload['baseline_nrr']:.3f})")
            lines += [f"{a}   {b}" for a, b in zip(payload["truth"], payload["recovered"])]
        lines.append(mode_line(seed))
        return "\n".join(lines + recorded_lines(payload) + [f"note: {n}" for n in res.notes])

    emit(args, payload, text, out)
    return 0


def cmd_comarl_net(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``comarl --agent net``: PE-VDN with per-agent networks (module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``comarl`` command line.
    out, err : TextIO
        The result; progress.

    Returns
    -------
    int
        0; bad input raises InputError (exit 2).
    """
    from core.deep import require

    require("--agent")
    from core.cli.agents import comarl_parameters, record_comarl, recorded_lines
    from core.cli.common import record_project
    from core.comarl.release import comarl_release
    from core.deep.vdn import train_vdn_net

    project = record_project(args.record)  # refused before any work if it cannot be used
    params = comarl_parameters(args)
    run = comarl_release(params, Progress(err, "comarl"), trainer=train_vdn_net,
                         reference=False)
    res, team = run.pe, run.team
    payload = run.to_json()
    payload["agent"] = "net"
    record_comarl(args, project, run, params, payload, err)

    def text() -> str:
        lines = [f"PE-VDN with networks, {team.agents} agents on a {args.size}x{args.size} "
                 f"map, {payload['updates']} updates",
                 f"team return (last 10 %): {payload['team_return']:.3f}",
                 f"max |A_PE - A_central| = {payload['pe_vs_central_max_diff']:.2e} (bound "
                 f"{payload['pe_vs_central_bound']:.0e})"]
        if payload["epsilon"] is None:
            lines.append(f"epsilon: unbounded ({payload['epsilon_reason']})")
        else:
            lines.append(f"epsilon {payload['epsilon']:.4g}, delta {payload['delta']:.3g} per "
                         "transition, replace-one (DP-SGD on the agents' networks, replay "
                         "window of a fixed-size buffer, dp-accounting PLD)")
        lines.append(mode_line(args.seed))
        return "\n".join(lines + recorded_lines(payload) + [f"note: {n}" for n in res.notes])

    emit(args, payload, text, out)
    return 0
