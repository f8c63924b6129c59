"""The ``design`` subcommand: the (k, η) frontier for a target (ε, δ) and its recommendation."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import (
    add_over_budget_flag,
    emit,
    flag_error,
    mode_line,
    project_item,
    record_checked,
)
from core.cli.grammar import add_record_option
from core.common.errors import InputError

__all__ = ["cmd_design", "add_design_parser"]

_FLAGS = {"epsilon": "--epsilon", "delta": "--delta", "b": "--b", "adjacency": "--adjacency",
          "beta": "--beta", "selection": "--selection",
          "selection_epsilon": "--selection-epsilon", "proxy": "--proxy", "eta": "--eta"}


def cmd_design(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``design``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        0 on success; bad input raises :class:`InputError` (exit 2).
    """
    from core.cli.common import Progress
    from core.mdp.design import DesignParameters, design_release
    from core.mdp.files import load_mdp

    project, mdp_id = project_item(args.mdp, args.mdp_id, args.record, flag="--mdp",
                                   noun="model", ids_of=lambda p: [e.id for e in p.mdps])
    mdp = project.mdp(mdp_id) if project is not None and mdp_id else load_mdp(args.mdp)
    proxy = load_mdp(args.proxy) if args.proxy else None
    try:
        params = DesignParameters(
            epsilon=args.epsilon, delta=args.delta, b=args.b, adjacency=args.adjacency,
            beta=args.beta, selection=args.selection,
            selection_epsilon=args.selection_epsilon, seed=args.seed)
        res = design_release(mdp, params, Progress(err, "design"), proxy=proxy)
    except InputError as exc:
        raise flag_error(exc, _FLAGS) from None
    payload = res.to_dict()
    if args.record and project is not None and mdp_id is not None:
        from core.project.recording import design_run_record

        record, entries = design_run_record(project, mdp_id, res, params)
        record, stored = record_checked(args.mdp, project, record, entries, args, err)
        payload["recorded"] = {"project": args.mdp, "run": record.id,
                               "ledger_entries": len(stored)}

    def text() -> str:
        lines = [f"{mdp.name or args.mdp}: target (epsilon, delta) = ({res.epsilon_target:g}, "
                 f"{res.delta_target:g}), b = {res.b:g}, adjacency {res.adjacency}; cost of "
                 f"privacy bounded with beta = {res.beta:g} on the {res.proxy}",
                 f"{'eta':<34}{'k':>12}{'epsilon':>10}{'cost bound':>12}"]
        for p in res.frontier:
            mark = "  <- recommended" if p == res.recommended else ""
            lines.append(f"{str(p.eta):<34}{p.k:>12.5g}{p.epsilon:>10.4g}{p.cost_bound:>12.5g}"
                         f"{mark}")
        for eta, why in res.infeasible:
            lines.append(f"{eta:<34}  infeasible: {why}")
        if res.recommended is None:
            lines.append("no declared eta reaches the target: raise epsilon or delta, or "
                         "lower b")
        lines.append(f"selection: {res.selection} (selection epsilon "
                     f"{res.selection_epsilon:g})" + (
                         "" if res.selection == "public" else "; " + mode_line(res.seed)))
        lines += list(res.notes)
        if "recorded" in payload:
            lines.append(f"recorded in {args.mdp} as {payload['recorded']['run']}")
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def add_design_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``design`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds ``--json``.
    """
    sp = sub.add_parser(
        "design", help="the privacy designer: (k, eta) meeting a target (epsilon, delta) at "
                       "the least cost of privacy",
        description="For each declared eta of a public grid, the largest k whose proven "
                    "epsilon (exact profile) meets the target, and the robust cost-of-privacy "
                    "bound there; recommends the point with the least bound. By default only "
                    "public inputs are read (the supports and rewards, or --proxy), so the "
                    "choice costs no privacy.")
    sp.add_argument("mdp", metavar="MDP", help="*.mdp.json|npz, or a project with --mdp")
    sp.add_argument("--mdp", dest="mdp_id", default=None, help="the model's id in a project")
    sp.add_argument("--epsilon", type=float, required=True, help="target epsilon > 0")
    sp.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    sp.add_argument("--b", type=float, default=0.1, help="adjacency radius in (0, 1] "
                    "(default 0.1)")
    sp.add_argument("--adjacency", choices=("one-row", "all-rows"), default="one-row",
                    help="which MDPs are neighbours: one-row (default) = differ in one "
                         "transition row, all-rows = every row may differ")
    sp.add_argument("--beta", type=float, default=0.05,
                    help="beta of the cost-of-privacy bound (default 0.05)")
    sp.add_argument("--proxy", default=None, help="a public proxy model with the same "
                    "supports (default: every row uniform on its support)")
    sp.add_argument("--selection", choices=("public", "exponential"), default="public",
                    help="public (default): choose on public inputs only, free; exponential: "
                         "choose on the private model by the exponential mechanism, charged "
                         "--selection-epsilon")
    sp.add_argument("--selection-epsilon", type=float, default=None,
                    help="epsilon of the exponential selection")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment (exponential selection); omit for release mode")
    add_record_option(sp, "record the design in PROJECT, the project MDP (an exponential "
                          "selection's spend goes to the ledger; refused past a budget "
                          "unless --over-budget)", reads="mdp")
    add_over_budget_flag(sp)
    common(sp)
