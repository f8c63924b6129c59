"""``import`` (PRISM explicit files or a Storm ``.drn`` into a PrivPlan model) and ``export``
(a PrivPlan model as PRISM or DRN files, or the robust set of a private model as an
interval MDP in PRISM's or Storm's interval syntax)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import emit, flag_error
from core.cli.mdp import ALPHA_HELP, _eta_arg
from core.common.errors import InputError

__all__ = ["cmd_import", "cmd_export", "add_interop_parsers", "INTERVAL_NOTE", "DEFAULT_BETA"]

#: beta of the robust set when --beta is not given (as bounds and sweep)
DEFAULT_BETA = 0.05

INTERVAL_NOTE = (
    "the intervals are the hull of the robust set P̂_{alpha,beta} on each row's support "
    "(alpha plus the row's centre shift): the true model has the support of the private one "
    "and lies in the intervals whenever Lemma 2.2 puts each row's centre within alpha; "
    "a model checker's robust result over them is sound for the true model in that event "
    "(the hull is larger than P̂, so it may be more pessimistic than PrivPlan's bounds)")


def _model_kind(path: str, flag: str) -> str:
    low = path.lower()
    if low.endswith(".npz"):
        return "npz"
    if low.endswith(".json"):
        return "json"
    raise InputError("must be a *.mdp.json or *.mdp.npz file", field=flag)


def cmd_import(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``import``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (warnings).

    Returns
    -------
    int
        0 on success (bad input raises InputError: exit 2).
    """
    from core.mdp.files import save_mdp
    from core.mdp.interop import import_model

    _model_kind(args.output, "-o")
    if args.horizon is not None and args.horizon < 1:
        raise InputError(f"must be an integer >= 1, got {args.horizon}", field="--horizon")
    if args.discount is not None:
        hi_ok = args.discount <= 1.0 if args.horizon is not None else args.discount < 1.0
        if not (args.discount > 0.0 and hi_ok):
            raise InputError(f"must lie in (0, 1{']' if args.horizon is not None else ')'} "
                             f"{'' if args.horizon is not None else 'for an infinite horizon'}"
                             f", got {args.discount}".replace("  ", " "), field="--discount")
    try:
        res = import_model(list(args.files), horizon=args.horizon, discount=args.discount,
                           reward=args.reward, name=args.name)
    except InputError as exc:
        raise flag_error(exc, {"horizon": "--horizon", "discount": "--discount"}) from None
    mdp = res.mdp
    save_mdp(mdp, args.output)
    for w in res.warnings:
        err.write(f"warning: {w}\n")
    ann = mdp.annotations
    payload: dict[str, Any] = {
        "output": args.output, "files": list(res.files), "states": mdp.n_states,
        "choices": res.n_choices, "transitions": mdp.nnz, "horizon": mdp.horizon,
        "discount": mdp.discount, "initial_state": mdp.state_names[mdp.initial_state],
        "labels": sorted(ann.labels) if ann is not None else [],
        "reward_structures": list(ann.rewards) if ann is not None else [],
        "reward_used": ann.reward_used if ann is not None else None,
        "warnings": list(res.warnings)}

    def text() -> str:
        return "\n".join([
            f"wrote {args.output}: {mdp.n_states:,} states, {res.n_choices:,} choices, "
            f"{mdp.nnz:,} transitions",
            f"horizon {mdp.horizon if mdp.horizon is not None else 'infinite'}, discount "
            f"{mdp.discount:g}; r(s, a) from "
            + (repr(payload["reward_used"]) if payload["reward_used"] else "no reward "
               "structure (all zero)"),
            "labels: " + (", ".join(payload["labels"]) or "none")])

    emit(args, payload, text, out)
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``export``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (warnings).

    Returns
    -------
    int
        0 on success (bad input raises InputError: exit 2).
    """
    from core.mdp.files import load_mdp, read_release
    from core.mdp.interop import write_drn, write_drn_interval, write_prism, write_prism_interval

    _model_kind(args.model, "MODEL")
    stem = args.output
    for suffix in (".tra", ".drn", ".lab"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    folder = os.path.dirname(os.path.abspath(stem))
    if not os.path.isdir(folder):
        raise InputError(f"folder {folder!r} does not exist", field="-o")
    interval = args.format.endswith("-interval")
    if not interval and (args.k is not None or args.beta is not None):
        raise InputError(f"--k and --beta are for the interval formats, not {args.format}",
                         field="--k" if args.k is not None else "--beta")
    mdp = load_mdp(args.model)
    payload: dict[str, Any] = {"format": args.format, "model": args.model}
    if not interval:
        files, warnings = (write_prism if args.format == "prism" else write_drn)(mdp, stem)
    else:
        from core.mdp.accounting import DEFAULT_DOMAIN_RULE, DEFAULT_ETA
        from core.mdp.interop.interval import robust_intervals
        from core.mdp.privatize import parse_eta
        from core.mdp.robust import release_centre_shift

        if args.k is None:
            raise InputError("the robust set needs the private model's --k", field="--k")
        if args.beta is None:
            args.beta = DEFAULT_BETA
        release = read_release(args.model) or {}
        warnings = []
        if not release:
            warnings.append("MODEL has no release metadata: it is taken as the private model "
                            "P̄ at --k (the centre shift from --eta/--domain-rule)")
        elif release.get("k") is not None and float(release["k"]) != args.k:
            warnings.append(f"--k {args.k:g} differs from k = {float(release['k']):g} in the "
                            "file's release metadata")
        eta = parse_eta(args.eta if args.eta is not None else (release.get("eta")
                                                                or DEFAULT_ETA))
        rule = args.domain_rule if args.domain_rule is not None else str(
            release.get("domain_rule") or DEFAULT_DOMAIN_RULE)
        zeros = str(release.get("zeros", "support"))
        try:
            shift = release_centre_shift(mdp, eta=eta, domain_rule=rule, zeros=zeros,
                                         smoothing=float(release.get("smoothing") or 0.0))
            lo, hi, alpha, alpha_shift = robust_intervals(mdp, k=args.k, beta=args.beta,
                                                          alpha_mode=args.alpha,
                                                          centre_shift=shift)
        except InputError as exc:
            raise flag_error(exc, {"k": "--k", "beta": "--beta", "eta": "--eta",
                                   "alpha": "--alpha"}) from None
        write = write_prism_interval if args.format == "prism-interval" else write_drn_interval
        files, more = write(mdp, stem, lo, hi)
        warnings += more
        payload.update(k=args.k, beta=args.beta, alpha=alpha, alpha_mode=args.alpha,
                       alpha_shift=alpha_shift, eta=eta, domain_rule=rule,
                       interval_note=INTERVAL_NOTE)
    for w in warnings:
        err.write(f"warning: {w}\n")
    payload.update(files=files, warnings=list(warnings))

    def text() -> str:
        lines = [f"wrote {', '.join(files)}"]
        if interval:
            lines.append(f"intervals: alpha = {payload['alpha']:.6g} (+ up to "
                         f"{payload['alpha_shift']:.3g} centre shift), beta = {args.beta:g}")
            lines.append(INTERVAL_NOTE)
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def add_interop_parsers(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``import`` and ``export`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``).
    """
    sp = sub.add_parser("import", help="a PRISM (.tra .lab .sta .srew .trew) or Storm (.drn) "
                        "model into a PrivPlan model file",
                        description="Reads PRISM's explicit files (one .tra with optional "
                        ".lab, .sta and .srew/.trew files) or one Storm .drn file and writes a "
                        "PrivPlan model (sparse). Labels and every reward structure are kept in "
                        "the file; r(s, a) comes from one structure (--reward).")
    sp.add_argument("files", nargs="+", metavar="FILE", help="the model's files")
    sp.add_argument("-o", "--output", required=True, help="*.mdp.json or *.mdp.npz")
    sp.add_argument("--horizon", type=int, default=None,
                    help="finite horizon T (default: infinite horizon)")
    sp.add_argument("--discount", type=float, default=None,
                    help="discount (default 1 with --horizon, else 0.95)")
    sp.add_argument("--reward", default=None,
                    help="the reward structure r(s, a) comes from (default: the first)")
    sp.add_argument("--name", default=None, help="the model's name (default: the file stem)")
    common(sp)

    sp = sub.add_parser("export", help="a model as PRISM or DRN files, or the robust set of a "
                        "private model as an interval MDP",
                        description="Writes STEM.tra/.lab/.srew/.trew (prism) or STEM.drn "
                        "(drn); prism-interval and drn-interval write the robust set "
                        "P̂_{alpha,beta} of a private model (MODEL is P̄) as an interval MDP.")
    sp.add_argument("model", metavar="MODEL", help="*.mdp.json or *.mdp.npz")
    sp.add_argument("--format", required=True,
                    choices=("prism", "drn", "prism-interval", "drn-interval"),
                    help="prism (.tra .lab .trew) or drn (Storm); the -interval formats write "
                         "the robust set of a private model (needs --k)")
    sp.add_argument("-o", "--output", required=True, metavar="STEM",
                    help="path of the files without suffix")
    sp.add_argument("--k", type=float, default=None,
                    help="interval formats: the k that produced the private model")
    sp.add_argument("--beta", type=float, default=None,
                    help="interval formats: beta in (0, 1), the robust set holds with "
                         "probability 1 - beta (default 0.05)")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper", help=ALPHA_HELP)
    sp.add_argument("--eta", type=_eta_arg, default=None, metavar="H|auto",
                    help="interval formats: eta of the privatisation (default: the file's "
                         "release metadata)")
    sp.add_argument("--domain-rule", choices=("refuse", "mix"), default=None,
                    help="interval formats: its domain rule (default: the release metadata)")
    common(sp)
