"""The headless command line (``python app.py SUBCOMMAND …`` or ``privplan SUBCOMMAND …``).

Contract (``formats-and-cli.md`` §5): ``--json`` prints exactly one JSON object on stdout;
exit 0 on success, 2 on bad input with one line on stderr naming the file, field or flag;
randomised commands take ``--seed`` (experiment mode) and otherwise draw from a secure
source (release mode) and say so; progress goes to stderr only when it is a terminal.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from core import __version__
from core._validation import InputError
from core.advising.cli import (
    add_advise_bench_parser,
    add_advise_parser,
    cmd_advise,
    cmd_advise_bench,
)
from core.logistics.cli import add_plan_bench_parser, add_plan_parser, cmd_plan, cmd_plan_bench
from core.report_cli import add_report_parser, cmd_report

__all__ = ["SUBCOMMANDS", "run_cli", "main"]

PROG = "privplan"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def _parse_k_list(text: str) -> list[float]:
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    if not parts:
        raise InputError("needs at least one value, e.g. --k 10,100,1000", field="--k")
    out = []
    for p in parts:
        try:
            k = float(p)
        except ValueError:
            raise InputError(f"{p!r} is not a number", field="--k") from None
        if not math.isfinite(k) or k <= 0:
            raise InputError(f"every k must be a finite number > 0, got {p}", field="--k")
        out.append(k)
    return out


def _flag_error(exc: InputError, flags: dict[str, str]) -> InputError:
    """Rename a core field ('k', 'beta', …) to the flag the user typed."""
    if exc.file is None and exc.field in flags:
        return InputError(exc.problem, field=flags[exc.field])
    return exc


class _Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream, self.label = stream, label
        self.enabled = stream.isatty()
        self.last = -1

    def __call__(self, fraction: float, message: str = "") -> None:
        if not self.enabled:
            return
        pct = int(100 * fraction)
        if pct == self.last:
            return
        self.last = pct
        bar = "#" * (pct // 4) + "-" * (25 - pct // 4)
        self.stream.write(f"\r{self.label} [{bar}] {pct:3d}% {message[:40]:<40}")
        if fraction >= 1.0:
            self.stream.write("\n")
        self.stream.flush()


def _emit(args: argparse.Namespace, payload: dict[str, Any], text: Callable[[], str],
          out: TextIO) -> None:
    if args.json:
        out.write(json.dumps(payload, allow_nan=False) + "\n")
    else:
        out.write(text() + "\n")


def _mode_line(seed: int | None) -> str:
    return (f"mode: seeded experiment (seed {seed}) - reproducible, not for real releases"
            if seed is not None else "mode: release (noise from the OS secure random source)")


# ---------------------------------------------------------------------------- privatize
def _cmd_privatize(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.io.atomic import atomic_write_text
    from core.io.mdp_files import load_mdp, mdp_to_dict, save_mdp
    from core.privacy.dirichlet import privatize_mdp
    from core.project import now_iso

    in_kind = "npz" if args.mdp.lower().endswith(".npz") else "json"
    out_kind = "npz" if args.output.lower().endswith(".npz") else (
        "json" if args.output.lower().endswith(".json") else None)
    if out_kind != in_kind:
        raise InputError(f"must be a *.mdp.{in_kind} file like the input", field="-o")
    mdp = load_mdp(args.mdp)
    try:
        res = privatize_mdp(mdp, args.k, rng=args.seed, zeros=args.zeros)
    except InputError as exc:
        raise _flag_error(exc, {"k": "--k", "seed": "--seed", "zeros": "--zeros"}) from None
    release = {"mechanism": "dirichlet", "k": res.k, "mode": res.mode, "seed": res.seed,
               "zeros": res.zeros, "rows": res.rows, "source": os.path.basename(args.mdp),
               "created": now_iso(), "privplan": __version__}
    if out_kind == "json":
        d = mdp_to_dict(res.mdp)
        d["release"] = release
        atomic_write_text(args.output, json.dumps(d, indent=2, allow_nan=False) + "\n")
    else:
        save_mdp(res.mdp, args.output)
    for w in res.warnings:
        err.write(f"warning: {w}\n")
    payload = {"output": args.output, "rows": res.rows, "k": res.k, "seed": res.seed,
               "mode": res.mode, "zeros": res.zeros, "warnings": list(res.warnings)}
    _emit(args, payload, lambda: (f"wrote {args.output}: {res.rows} rows privatised with "
                                  f"Dir(k·p), k = {res.k:g}\n{_mode_line(res.seed)}"), out)
    return 0


# ---------------------------------------------------------------------------- bounds
def _cmd_bounds(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.io.mdp_files import load_mdp
    from core.robust import cost_of_privacy

    mdp = load_mdp(args.mdp)
    try:
        res = cost_of_privacy(mdp, k=args.k, beta=args.beta, alpha_mode=args.alpha,
                              method=args.method, progress=_Progress(err, "bounds"))
    except InputError as exc:
        raise _flag_error(exc, {"k": "--k", "beta": "--beta", "alpha": "--alpha",
                                "method": "--method"}) from None
    s0 = mdp.initial_state
    start = res.at_start
    payload = {
        "k": args.k, "beta": res.beta, "alpha": res.alpha, "alpha_mode": res.alpha_mode,
        "method": res.method, "horizon": mdp.horizon, "states": list(mdp.state_names),
        "initial_state": mdp.state_names[s0], "policy": res.policy.tolist(),
        "v_private": start(res.v_private).tolist(), "v_lower": start(res.v_lower).tolist(),
        "v_upper": start(res.v_upper).tolist(), "cost_bound": res.cost_bound,
        "status": res.status.message, "elapsed_s": res.elapsed_s,
    }

    def text() -> str:
        lines = [f"{mdp.name or args.mdp}: k = {args.k:g}, beta = {res.beta:g}, "
                 f"alpha = {res.alpha:.6g} ({res.alpha_mode}), method = {res.method}",
                 f"{'state':<16}{'action':<16}{'v_lower':>12}{'V_private':>12}{'v_upper':>12}"]
        pol0 = res.policy[0] if res.policy.ndim == 2 else res.policy
        for s, name in enumerate(mdp.state_names):
            lines.append(f"{name:<16.16}{mdp.action_names[s][pol0[s]]:<16.16}"
                         f"{start(res.v_lower)[s]:>12.6g}{start(res.v_private)[s]:>12.6g}"
                         f"{start(res.v_upper)[s]:>12.6g}")
        lines.append(f"cost-of-privacy bound at {mdp.state_names[s0]!r}: {res.cost_bound:.6g}"
                     f"  ({res.elapsed_s * 1e3:.2f} ms)")
        return "\n".join(lines)

    _emit(args, payload, text, out)
    return 0


# ---------------------------------------------------------------------------- sweep
def _cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.experiments import privacy_sweep
    from core.io.mdp_files import load_mdp

    ks = _parse_k_list(args.k)
    mdp = load_mdp(args.mdp)
    seed_drawn = args.seed is None
    try:
        res = privacy_sweep(mdp, ks, runs=args.runs, beta=args.beta, alpha_mode=args.alpha,
                            seed=args.seed, zeros=args.zeros, b=args.b,
                            delta_target=args.delta, adjacency=args.adjacency,
                            workers=args.workers, progress=_Progress(err, "sweep"))
    except InputError as exc:
        raise _flag_error(exc, {"k": "--k", "runs": "--runs", "beta": "--beta", "b": "--b",
                                "delta": "--delta", "adjacency": "--adjacency",
                                "alpha": "--alpha", "seed": "--seed", "workers": "--workers",
                                "zeros": "--zeros"}) from None
    payload = res.to_dict()
    payload["seed_drawn_from_os"] = seed_drawn
    payload["initial_state"] = mdp.state_names[mdp.initial_state]

    def text() -> str:
        head = (f"{mdp.name or args.mdp}: {res.runs} runs per k, beta = {res.beta:g}, "
                f"alpha {res.alpha_mode}; seeded experiment (seed {res.seed}"
                f"{', drawn from the OS' if seed_drawn else ''})")
        cols = ("v_lower", "v_private", "v_true", "v_upper", "cost_bound", "cost_empirical")
        lines = [head, f"{'k':>10}" + "".join(f"{c:>16}" for c in cols)]
        for i, k in enumerate(res.k):
            lines.append(f"{k:>10g}" + "".join(
                f"{res.mean(c)[i]:>9.4f}±{res.sd(c)[i]:<6.3f}" for c in cols))
        lines.append("v_true and cost_empirical use the true model (oracle view); "
                     f"{res.elapsed_s:.2f} s")
        lines.append("privacy of each release (Dirichlet mechanism, Theorem 1.6):")
        for p in res.privacy:
            lines.append("  " + p.statement)
            for r in p.not_applicable[:3]:
                lines.append(f"    no guarantee for {r.state}/{r.action}: {r.reason}")
            if len(p.not_applicable) > 3:
                lines.append(f"    ... and {len(p.not_applicable) - 3} more rows (see --json)")
        return "\n".join(lines)

    _emit(args, payload, text, out)
    return 0


# ---------------------------------------------------------------------------- dirichlet
def _cmd_dirichlet(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.privacy.dirichlet_accounting import dirichlet_privacy

    try:
        res = dirichlet_privacy(args.k, args.eta, args.eta if args.eta_bar is None
                                else args.eta_bar, args.w, args.b, gamma=args.gamma,
                                delta_target=args.delta, delta_method=args.delta_method)
    except InputError as exc:
        raise _flag_error(exc, {"k": "--k", "eta": "--eta", "eta_bar": "--eta-bar",
                                "w": "--w", "b": "--b", "gamma": "--gamma",
                                "delta": "--delta", "delta_method": "--delta-method"}) from None
    for w in res.warnings:
        err.write(f"warning: {w}\n")

    def text() -> str:
        approx = ("n/a" if res.epsilon_approx is None else f"{res.epsilon_approx:.6g}")
        lines = [f"Dirichlet mechanism, k = {res.k:g}, eta = {res.eta:g}, "
                 f"eta_bar = {res.eta_bar:g}, |W| = {res.w}, b = {res.b:g}",
                 f"epsilon = {res.epsilon:.6g}   (Lemma 1.7 approximation: {approx})",
                 f"delta   = {res.delta:.6g}   [{res.delta_label}]",
                 f"gamma   = {res.gamma:.6g}" + ("" if res.delta_target is None else
                                               f"   (largest gamma with delta <= "
                                               f"{res.delta_target:g})")]
        return "\n".join(lines)

    _emit(args, res.to_dict(), text, out)
    return 0


SUBCOMMANDS: dict[str, Callable[[argparse.Namespace, TextIO, TextIO], int]] = {
    "dirichlet": _cmd_dirichlet,
    "privatize": _cmd_privatize,
    "bounds": _cmd_bounds,
    "sweep": _cmd_sweep,
    "plan": cmd_plan,
    "plan-bench": cmd_plan_bench,
    "advise": cmd_advise,
    "advise-bench": cmd_advise_bench,
    "report": cmd_report,
}


def _build_parser() -> _Parser:
    p = _Parser(prog=PROG, description="PrivPlan headless commands. Without a subcommand, "
                "`python app.py [FILE]` opens the window.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    sp = sub.add_parser("dirichlet", help="(epsilon, delta) of the Dirichlet mechanism")
    sp.add_argument("--k", type=float, required=True, help="concentration k > 0")
    sp.add_argument("--eta", type=float, required=True, help="lower bound of entries in W")
    sp.add_argument("--eta-bar", type=float, default=None,
                    help="lower bound of the mass outside W (default: --eta)")
    sp.add_argument("--w", type=int, required=True, help="|W| >= 2")
    sp.add_argument("--b", type=float, required=True, help="adjacency radius in (0, 1]")
    grp = sp.add_mutually_exclusive_group(required=True)
    grp.add_argument("--gamma", type=float, help="Omega_1 threshold in (0, 1/|W|)")
    grp.add_argument("--delta", type=float, help="target delta: uses the best gamma")
    sp.add_argument("--delta-method", choices=("auto", "exact", "union", "mc"), default="auto")
    common(sp)

    sp = sub.add_parser("privatize", help="Algorithm 1 step 1: Dirichlet-privatise every row")
    sp.add_argument("mdp", metavar="MDP", help="*.mdp.json or *.mdp.npz")
    sp.add_argument("--k", type=float, required=True, help="Dirichlet concentration k > 0")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode (secure noise)")
    sp.add_argument("--zeros", choices=("support", "smoothing"), default="support",
                    help="zero probabilities: keep them (support disclosed) or smooth")
    sp.add_argument("-o", "--output", required=True, help="output MDP file (same kind)")
    common(sp)

    sp = sub.add_parser("bounds", help="policy on the private model and cost-of-privacy bounds")
    sp.add_argument("mdp", metavar="MDP", help="the privatised model P̄ (*.mdp.json|npz)")
    sp.add_argument("--k", type=float, required=True, help="k that produced the model")
    sp.add_argument("--beta", type=float, required=True, help="beta in (0, 1)")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper")
    sp.add_argument("--method", choices=("greedy", "lp"), default="greedy")
    common(sp)

    sp = sub.add_parser("sweep", help="the Figure 2.1 experiment over a list of k")
    sp.add_argument("mdp", metavar="MDP", help="the true model (*.mdp.json|npz)")
    sp.add_argument("--k", required=True, help="comma-separated k values, e.g. 10,100,1000")
    sp.add_argument("--runs", type=int, default=50, help="privatisations per k (default 50)")
    sp.add_argument("--beta", type=float, default=0.05, help="beta in (0, 1), default 0.05")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (drawn from the OS and reported if omitted)")
    sp.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    sp.add_argument("--zeros", choices=("support", "smoothing"), default="support")
    sp.add_argument("--b", type=float, default=0.1,
                    help="adjacency radius of one row, in (0, 1] (default 0.1)")
    sp.add_argument("--delta", type=float, default=0.05,
                    help="target delta per row, in (0, 1) (default 0.05)")
    sp.add_argument("--adjacency", choices=("one-row", "all-rows"), default="one-row",
                    help="which MDPs are neighbours (default: differ in one row)")
    common(sp)
    add_plan_parser(sub, common)
    add_plan_bench_parser(sub, common)
    add_advise_parser(sub, common)
    add_advise_bench_parser(sub, common)
    add_report_parser(sub, common)
    return p


def run_cli(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one subcommand; returns the exit code (never raises for user errors)."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = _build_parser()
    try:
        args = parser.parse_args(list(argv))
    except _UsageError as exc:
        err.write(f"{exc}\n")
        return 2
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return 0
    try:
        return SUBCOMMANDS[args.command](args, out, err)
    except InputError as exc:
        err.write(f"{PROG} {args.command}: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"{PROG} {args.command}: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one line, no traceback
        if os.environ.get("PRIVPLAN_DEBUG"):
            raise
        err.write(f"{PROG} {args.command}: internal error: {type(exc).__name__}: {exc} "
                  "(set PRIVPLAN_DEBUG=1 for a traceback)\n")
        return 1


def main() -> None:
    sys.exit(run_cli(sys.argv[1:]))
