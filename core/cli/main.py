"""The headless command line (``python app.py SUBCOMMAND …`` or ``privplan SUBCOMMAND …``).

Contract (``formats-and-cli.md`` §5): ``--json`` prints exactly one JSON object on stdout;
exit 0 on success, 2 on bad input with one line on stderr naming the file, field or flag;
randomised commands take ``--seed`` (experiment mode) and otherwise draw from a secure
source (release mode) and say so; progress goes to stderr only when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from core import __version__
from core.common.errors import InputError
from core.cli.advising import (
    add_advise_bench_parser,
    add_advise_parser,
    cmd_advise,
    cmd_advise_bench,
)
from core.cli.audit import add_audit_parser, cmd_audit
from core.cli.logistics import add_plan_bench_parser, add_plan_parser, cmd_plan, cmd_plan_bench
from core.cli.report import add_report_parser, cmd_report

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
    """Print ``payload`` as one strict JSON object (``--json``: every non-finite number is
    null with a ``…_reason``, :func:`core.common.jsonable.dumps`) or ``text()``."""
    if args.json:
        from core.common.jsonable import dumps

        out.write(dumps(payload) + "\n")
    else:
        out.write(text() + "\n")


def _mode_line(seed: int | None) -> str:
    return (f"mode: seeded experiment (seed {seed}) - reproducible, not for real releases"
            if seed is not None else "mode: release (noise from the OS secure random source)")


# ---------------------------------------------------------------------------- privacy flags
_PRIVACY_FLAGS = {"eta": "--eta", "domain_rule": "--domain-rule", "b": "--b",
                  "delta": "--delta", "adjacency": "--adjacency",
                  "delta_method": "--delta-method", "zeros": "--zeros", "k": "--k"}


def _add_privacy_flags(sp: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """--eta, --domain-rule, --b, --delta, --adjacency (the public mechanism parameters).

    ``defaults=False`` leaves them None (``bounds``: taken from the file's release block
    when it has one)."""
    from core.mdp.accounting import (
        DEFAULT_B,
        DEFAULT_DELTA,
        DEFAULT_DOMAIN_RULE,
        DEFAULT_ETA,
        PARAMETER_HELP,
    )

    def d(value: Any) -> Any:
        return value if defaults else None

    sp.add_argument("--eta", type=float, default=d(DEFAULT_ETA), metavar="H",
                    help=PARAMETER_HELP["eta"].replace("%", "%%"))
    sp.add_argument("--domain-rule", choices=("refuse", "mix"), default=d(DEFAULT_DOMAIN_RULE),
                    help=PARAMETER_HELP["domain_rule"])
    sp.add_argument("--b", type=float, default=d(DEFAULT_B),
                    help="adjacency radius " + PARAMETER_HELP["b"])
    sp.add_argument("--delta", type=float, default=d(DEFAULT_DELTA),
                    help=f"target delta per row, in (0, 1) (default {DEFAULT_DELTA:g})")
    sp.add_argument("--adjacency", choices=("one-row", "all-rows"), default=d("one-row"),
                    help="which MDPs are neighbours: one-row (default) = differ in one "
                         "transition row, all-rows = every row may differ")


def _privacy_text(priv: Any, *, whole: bool = True) -> list[str]:
    """The guarantee in words (``whole``: with the adjacency and the public parameters),
    then the (ε, δ) per support size."""
    lines = [priv.statement if whole else priv.headline]
    for g in priv.supports:
        if g.n >= 2:
            what = (f"({g.epsilon:.4g}, {g.delta:.3g})" if g.bounded else
                    f"no guarantee: {g.reason}")
            lines.append(f"  rows with {g.n} possible next states (radius {g.b:g}): {what}")
    return lines


# ---------------------------------------------------------------------------- privatize
def _cmd_privatize(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.mdp.files import load_mdp, save_mdp
    from core.mdp.privatize import mechanism_rows, privatize_mdp
    from core.mdp.accounting import mdp_privacy
    from core.common.timestamps import now_iso

    in_kind = "npz" if args.mdp.lower().endswith(".npz") else "json"
    out_kind = "npz" if args.output.lower().endswith(".npz") else (
        "json" if args.output.lower().endswith(".json") else None)
    if out_kind != in_kind:
        raise InputError(f"must be a *.mdp.{in_kind} file like the input", field="-o")
    mdp = load_mdp(args.mdp)
    try:
        prepared = mechanism_rows(mdp, eta=args.eta, domain_rule=args.domain_rule,
                                  zeros=args.zeros)
        privacy = mdp_privacy(mdp, args.k, b=args.b, delta_target=args.delta,
                              adjacency=args.adjacency, prepared=prepared)
        res = privatize_mdp(mdp, args.k, rng=args.seed, prepared=prepared)
    except InputError as exc:
        raise _flag_error(exc, {**_PRIVACY_FLAGS, "seed": "--seed"}) from None
    guarantee = privacy.guarantee()
    release = {**guarantee, "mode": res.mode, "seed": res.seed, "rows": res.rows,
               "source": os.path.basename(args.mdp), "created": now_iso(),
               "privplan": __version__}
    save_mdp(res.mdp, args.output, release=release)
    for w in res.warnings:
        err.write(f"warning: {w}\n")
    if not privacy.bounded:
        err.write(f"warning: this release has no finite (epsilon, delta) guarantee: "
                  f"{privacy.epsilon_reason}\n")
    payload = {"output": args.output, **release, "warnings": list(res.warnings)}

    def text() -> str:
        return "\n".join([f"wrote {args.output}: {res.rows} rows privatised with Dir(k·p), "
                          f"k = {res.k:g}", _mode_line(res.seed),
                          "guarantee (also in the file's release metadata):",
                          *("  " + line for line in _privacy_text(privacy))])

    _emit(args, payload, text, out)
    return 0


# ---------------------------------------------------------------------------- bounds
BOUNDS_PRIVACY_NOTE = (
    "privacy: the policy, V_private and the bounds are computed from MDP (the privatised "
    "model) alone, so they are post-processing of that release and carry its guarantee "
    "(Lemma 2.1), restated here at --k from its supports and the public parameters (from "
    "the file's release metadata when present, else --eta/--domain-rule/--b/--delta/"
    "--adjacency)")
def _cmd_bounds(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.mdp.files import load_mdp, read_release
    from core.mdp.accounting import (
        DEFAULT_B,
        DEFAULT_DELTA,
        DEFAULT_DOMAIN_RULE,
        DEFAULT_ETA,
        release_privacy,
    )
    from core.mdp.robust import cost_of_privacy, release_centre_shift

    mdp = load_mdp(args.mdp)
    release = read_release(args.mdp)
    rel = release or {}

    def pick(flag: Any, key: str, default: Any) -> Any:
        if flag is not None:
            return flag
        value = rel.get(key)
        return default if value is None else value

    params = {"eta": float(pick(args.eta, "eta", DEFAULT_ETA)),
              "domain_rule": str(pick(args.domain_rule, "domain_rule", DEFAULT_DOMAIN_RULE)),
              "b": float(pick(args.b, "b", DEFAULT_B)),
              "delta_target": float(pick(args.delta, "delta_target", DEFAULT_DELTA)),
              "adjacency": str(pick(args.adjacency, "adjacency", "one-row")),
              "zeros": str(rel.get("zeros", "support"))}
    if params["zeros"] == "smoothing":
        params["smoothing"] = float(rel.get("smoothing", 0.01))
    try:
        privacy = release_privacy(mdp, args.k, **params)
        # the noise was centred on the pre-processed rows: widen alpha by the public shift
        shift = release_centre_shift(mdp, eta=params["eta"], domain_rule=params["domain_rule"],
                                     zeros=params["zeros"],
                                     smoothing=params.get("smoothing", 0.0))
        res = cost_of_privacy(mdp, k=args.k, beta=args.beta, alpha_mode=args.alpha,
                              method=args.method, progress=_Progress(err, "bounds"),
                              centre_shift=shift)
    except InputError as exc:
        raise _flag_error(exc, {**_PRIVACY_FLAGS, "delta_target": "--delta",
                                "beta": "--beta", "alpha": "--alpha",
                                "method": "--method"}) from None
    if release is not None and release.get("k") is not None and float(release["k"]) != args.k:
        err.write(f"warning: --k {args.k:g} differs from k = {float(release['k']):g} in the "
                  "file's release metadata; the guarantee below is at --k\n")
    s0 = mdp.initial_state
    start = res.at_start
    payload = {
        "k": args.k, "beta": res.beta, "alpha": res.alpha, "alpha_mode": res.alpha_mode,
        "alpha_shift": res.alpha_shift, "alpha_shift_note": res.alpha_shift_note,
        "method": res.method, "horizon": mdp.horizon, "states": list(mdp.state_names),
        "initial_state": mdp.state_names[s0], "policy": res.policy.tolist(),
        "v_private": start(res.v_private).tolist(), "v_lower": start(res.v_lower).tolist(),
        "v_upper": start(res.v_upper).tolist(), "cost_bound": res.cost_bound,
        "status": res.status.message, "elapsed_s": res.elapsed_s,
        "epsilon": privacy.epsilon, "delta": privacy.delta, "adjacency": privacy.adjacency,
        "privacy": privacy.guarantee(), "privacy_note": BOUNDS_PRIVACY_NOTE,
        "release": release,
    }
    if not privacy.bounded:
        payload["epsilon_reason"] = privacy.epsilon_reason

    def text() -> str:
        lines = [f"{mdp.name or args.mdp}: k = {args.k:g}, beta = {res.beta:g}, "
                 f"alpha = {res.alpha:.6g} ({res.alpha_mode}), method = {res.method}",
                 *([res.alpha_shift_note] if res.alpha_shift > 0 else []),
                 f"{'state':<16}{'action':<16}{'v_lower':>12}{'V_private':>12}{'v_upper':>12}"]
        pol0 = res.policy[0] if res.policy.ndim == 2 else res.policy
        for s, name in enumerate(mdp.state_names):
            lines.append(f"{name:<16.16}{mdp.action_names[s][pol0[s]]:<16.16}"
                         f"{start(res.v_lower)[s]:>12.6g}{start(res.v_private)[s]:>12.6g}"
                         f"{start(res.v_upper)[s]:>12.6g}")
        lines.append(f"cost-of-privacy bound at {mdp.state_names[s0]!r}: {res.cost_bound:.6g}"
                     f"  ({res.elapsed_s * 1e3:.2f} ms)")
        lines.append(BOUNDS_PRIVACY_NOTE)
        lines += ["  " + line for line in _privacy_text(privacy)]
        return "\n".join(lines)

    _emit(args, payload, text, out)
    return 0


# ---------------------------------------------------------------------------- sweep
def _cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from core.mdp.sweep import privacy_sweep
    from core.mdp.files import load_mdp

    ks = _parse_k_list(args.k)
    mdp = load_mdp(args.mdp)
    seed_drawn = args.seed is None
    try:
        res = privacy_sweep(mdp, ks, runs=args.runs, beta=args.beta, alpha_mode=args.alpha,
                            seed=args.seed, zeros=args.zeros, b=args.b,
                            delta_target=args.delta, adjacency=args.adjacency,
                            eta=args.eta, domain_rule=args.domain_rule,
                            workers=args.workers, progress=_Progress(err, "sweep"))
    except InputError as exc:
        raise _flag_error(exc, {**_PRIVACY_FLAGS, "runs": "--runs", "beta": "--beta",
                                "alpha": "--alpha", "seed": "--seed",
                                "workers": "--workers"}) from None
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
        if res.privacy:
            first = res.privacy[0]
            lines.append("privacy of one privatised model per k (Dirichlet mechanism, "
                         f"within-support analysis); adjacency: {first.adjacency_text}; "
                         f"public parameters: {first.parameters_text}:")
            for p in res.privacy:
                lines += ["  " + line for line in _privacy_text(p, whole=False)]
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
    "audit": cmd_audit,
    "advise-bench": cmd_advise_bench,
    "report": cmd_report,
}


ZEROS_HELP = ("zero probabilities: 'support' (default) keeps them zero, so which transitions "
              "are possible is disclosed (the adjacency does not protect it); 'smoothing' "
              "mixes every row that has a zero with the uniform distribution on all states "
              "(weight 0.01): its support becomes all states, the model changes")


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
    sp.add_argument("--delta-method", choices=("auto", "exact", "union", "mc"), default="auto",
                    help="how delta is bounded. auto (default) = union: the union bound "
                         "|W|·I_gamma(k·eta, k(1-eta)), proven at every input; exact (|W| <= 3) "
                         "= the vertex reduction of [D] Lemma 1.2 (certified quadrature; the "
                         "lemma's printed proof has a gap: numerically supported, not proven; "
                         "reproduces Figure 1.1); mc = Monte Carlo estimate at the vertices "
                         "(also rests on Lemma 1.2)")
    common(sp)

    sp = sub.add_parser("privatize", help="Algorithm 1 step 1: Dirichlet-privatise every row")
    sp.add_argument("mdp", metavar="MDP", help="*.mdp.json or *.mdp.npz")
    sp.add_argument("--k", type=float, required=True, help="Dirichlet concentration k > 0")
    sp.add_argument("--seed", type=int, default=None,
                    help="seeded experiment mode; omit for release mode (secure noise)")
    sp.add_argument("--zeros", choices=("support", "smoothing"), default="support",
                    help=ZEROS_HELP)
    sp.add_argument("-o", "--output", required=True,
                    help="output MDP file (same kind); its release metadata states the "
                         "guarantee: a 'release' object (JSON) or a 'release_json' entry (NPZ)")
    _add_privacy_flags(sp)
    common(sp)

    sp = sub.add_parser("bounds", help="policy on the private model and cost-of-privacy bounds",
                        description="Treats MDP as the privatised model: everything computed "
                        "from it is post-processing of that release and carries its "
                        "guarantee, which is restated at --k (privacy flags default to the "
                        "file's release metadata, else to privatize's defaults).")
    sp.add_argument("mdp", metavar="MDP", help="the privatised model P̄ (*.mdp.json|npz)")
    sp.add_argument("--k", type=float, required=True, help="k that produced the model")
    sp.add_argument("--beta", type=float, required=True, help="beta in (0, 1)")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper")
    sp.add_argument("--method", choices=("greedy", "lp"), default="greedy")
    _add_privacy_flags(sp, defaults=False)
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
    sp.add_argument("--zeros", choices=("support", "smoothing"), default="support",
                    help=ZEROS_HELP)
    _add_privacy_flags(sp)
    common(sp)
    add_plan_parser(sub, common)
    add_plan_bench_parser(sub, common)
    add_advise_parser(sub, common)
    add_audit_parser(sub, common)
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
