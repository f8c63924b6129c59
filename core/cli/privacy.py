"""The ``dirichlet`` subcommand: (ε, δ) of the Dirichlet mechanism (the calculator)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import emit, flag_error
from core.common.errors import InputError

__all__ = ["cmd_dirichlet", "add_dirichlet_parser", "cmd_accountant", "add_accountant_parser"]


def cmd_dirichlet(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dirichlet``.

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
    from core.privacy.dirichlet_accounting import dirichlet_privacy

    if args.adjacency == "l2-all":
        return _l2_all(args, out)
    if args.tau is not None:
        raise InputError("--tau belongs to --adjacency l2-all; the two-entry analysis takes "
                         "--gamma or --delta", field="--tau")
    try:
        res = dirichlet_privacy(args.k, args.eta, args.eta if args.eta_bar is None
                                else args.eta_bar, args.w, args.b, gamma=args.gamma,
                                delta_target=args.delta, delta_method=args.delta_method)
    except InputError as exc:
        raise flag_error(exc, {"k": "--k", "eta": "--eta", "eta_bar": "--eta-bar",
                                "w": "--w", "b": "--b", "gamma": "--gamma",
                                "delta": "--delta", "delta_method": "--delta-method"}) from None
    for w in res.warnings:
        err.write(f"warning: {w}\n")

    def text() -> str:
        head = (f"Dirichlet mechanism, k = {res.k:g}, eta = {res.eta:g}, "
                f"eta_bar = {res.eta_bar:g}, |W| = {res.w}, b = {res.b:g}")
        if res.gamma is None:  # the exact privacy profile
            pair = res.worst_pair or (0.0, 0.0, 0.0)
            return "\n".join([
                head, f"epsilon = {res.epsilon:.6g}   (the true epsilon lies in "
                      f"[{res.epsilon_lower:.6g}, {res.epsilon:.6g}])",
                f"delta   = {res.delta:.6g}   [{res.delta_label}]",
                f"worst neighbouring pair: Beta({pair[0] + pair[2]:.4g}, {pair[1]:.4g}) vs "
                f"Beta({pair[0]:.4g}, {pair[1] + pair[2]:.4g}) (k·q_i, k·p_j, k·moved = "
                f"{pair[0]:.4g}, {pair[1]:.4g}, {pair[2]:.4g})"])
        approx = ("n/a" if res.epsilon_approx is None else f"{res.epsilon_approx:.6g}")
        lines = [head,
                 f"epsilon = {res.epsilon:.6g}   (Lemma 1.7 approximation: {approx})",
                 f"delta   = {res.delta:.6g}   [{res.delta_label}]",
                 f"gamma   = {res.gamma:.6g}" + ("" if res.delta_target is None else
                                               f"   (largest gamma with delta <= "
                                               f"{res.delta_target:g})")]
        return "\n".join(lines)

    emit(args, res.to_dict(), text, out)
    return 0


def _l2_all(args: argparse.Namespace, out: TextIO) -> int:
    """``--adjacency l2-all``: the [KS] all-entries ℓ2 analysis of one row (spec F2)."""
    from core.sharing.mechanism import row_privacy_l2

    if args.gamma is not None:
        raise InputError("with --adjacency l2-all give --delta (a target) or --tau",
                         field="--gamma")
    try:
        res = row_privacy_l2(args.k, args.w, args.eta, args.b, delta=args.delta, tau=args.tau,
                             bound=args.bound, draws=args.draws,
                             rng=args.seed if args.seed is not None else 0)
    except InputError as exc:
        raise flag_error(exc, {"k": "--k", "eta": "--eta", "m": "--w", "lb": "--b",
                                "tau": "--tau", "delta": "--delta", "draws": "--draws",
                                "bound": "--bound"}) from None

    def text() -> str:
        if res.bound == "profile":
            return "\n".join([
                f"Dirichlet row mechanism, all-entries l2 adjacency: k = {res.k:g}, n = "
                f"{res.n}, eta = {res.eta:g}, b (l2) = {res.b:g}",
                f"epsilon = {res.epsilon:.6g}   (exact privacy profile, certified; the worst "
                f"case lies in [{res.epsilon_lower:.6g}, {res.epsilon:.6g}])",
                f"delta   = {res.delta:.6g}", f"adjacency: {res.adjacency}"])
        return "\n".join([
            f"Dirichlet row mechanism, all-entries l2 adjacency ([KS] Theorem 1, L = 1): k = "
            f"{res.k:g}, n = {res.n}, eta = {res.eta:g}, b (l2) = {res.b:g}",
            f"epsilon = {res.epsilon:.6g}   (eq. 12, {res.bound})",
            f"delta   = {res.delta:.6g}   (95 % Monte Carlo upper bound; estimate "
            f"{res.delta_estimate:.4g}, {res.draws:,} draws)",
            f"tau     = {res.tau:.6g}", f"adjacency: {res.adjacency}"])

    emit(args, res.to_dict(), text, out)
    return 0


def add_dirichlet_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``dirichlet`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
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
    grp.add_argument("--tau", type=float, help="with --adjacency l2-all: a fixed threshold tau")
    sp.add_argument("--delta-method", choices=("auto", "profile", "exact", "union", "mc"),
                    default="auto",
                    help="the accountant. auto (default) = profile with --delta, union with "
                         "--gamma; profile = the exact privacy profile (hockey-stick divergence "
                         "of the worst neighbouring pair, certified; no gamma); union = "
                         "Theorem 1.6 with the union bound "
                         "|W|·I_gamma(k·eta, k(1-eta)), proven at every input; exact (|W| <= 3) "
                         "= the vertex reduction of [D] Lemma 1.2 (certified quadrature; the "
                         "lemma's printed proof has a gap: numerically supported, not proven; "
                         "reproduces Figure 1.1); mc = Monte Carlo estimate at the vertices "
                         "(also rests on Lemma 1.2)")
    sp.add_argument("--adjacency", choices=("l1-two", "l2-all"), default="l1-two",
                    help="l1-two (default): neighbours move at most b/2 between two entries of "
                         "W ([D] Ch. 1); l2-all: neighbours differ by at most b in l2 in any "
                         "entries ([KS] Theorem 1 with L = 1; --w is the row's n; delta by "
                         "Monte Carlo)")
    sp.add_argument("--bound", choices=("profile", "paper", "tight"), default="profile",
                    help="with l2-all: profile (default) = the certified exact privacy "
                         "profile of the worst neighbouring pair (needs --delta); paper = "
                         "eq. 12 as printed; tight = eq. 12 with its first term halved")
    sp.add_argument("--draws", type=int, default=200_000,
                    help="with l2-all: Monte Carlo draws (default 200000)")
    sp.add_argument("--seed", type=int, default=None,
                    help="with l2-all: seed of the Monte Carlo draws (default 0)")
    common(sp)


def cmd_accountant(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``accountant dpsgd``: (ε, δ) of DP-SGD from ``dp-accounting``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error.

    Returns
    -------
    int
        0 on success; bad input raises :class:`~core.common.errors.InputError` (exit 2).
    """
    from core.privacy.dpsgd import dpsgd_epsilon

    if args.accountant_kind != "dpsgd":  # pragma: no cover - argparse restricts the choice
        raise InputError("only 'dpsgd' is known", field="accountant")
    try:
        res = dpsgd_epsilon(args.sigma, args.sample_rate, args.steps, args.delta,
                            window=args.window, updates_per_entry=args.updates_per_entry,
                            method=args.method)
    except InputError as exc:
        raise flag_error(exc, {"sigma": "--sigma", "sample_rate": "--sample-rate",
                                "steps": "--steps", "delta": "--delta", "window": "--window",
                                "updates_per_entry": "--updates-per-entry",
                                "method": "--method"}) from None

    def text() -> str:
        eps = ("unbounded (" + str(res.reason) + ")" if res.epsilon is None
               else f"{res.epsilon:.6g}")
        order = "" if res.order is None else f"   (RDP order {res.order:g})"
        lines = [f"DP-SGD, Poisson-subsampled Gaussian: sigma = {res.sigma:g}, "
                 f"q = {res.sample_rate:g}, {res.steps_counted} of {res.steps} steps composed",
                 f"epsilon = {eps}{order}", f"delta   = {res.delta:.6g}",
                 f"method: {res.method} (dp-accounting)", f"adjacency: {res.adjacency}"]
        th = res.thesis_reading
        if th is not None:
            t_eps = "unbounded" if th["epsilon"] is None else f"{th['epsilon']:.6g}"
            lines.append(f"thesis reading: epsilon = {t_eps} ({th['label']})")
        return "\n".join(lines + [f"note: {n}" for n in res.notes])

    emit(args, res.to_json(), text, out)
    return 0


def add_accountant_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``accountant dpsgd`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds ``--json`` to a new subparser.
    """
    sp = sub.add_parser("accountant", help="privacy accountants (dpsgd: DP-SGD on dp-accounting)")
    kinds = sp.add_subparsers(dest="accountant_kind", required=True, parser_class=type(sp))
    dp = kinds.add_parser("dpsgd", help="(epsilon, delta) of DP-SGD: Poisson-subsampled "
                                        "Gaussian steps, RDP or PLD from dp-accounting")
    dp.add_argument("--sigma", type=float, required=True,
                    help="noise multiplier: noise standard deviation / clip norm (0 = no DP)")
    dp.add_argument("--sample-rate", type=float, required=True,
                    help="Poisson sampling rate q in (0, 1] (batch size / data size)")
    dp.add_argument("--steps", type=int, required=True, help="training steps T")
    dp.add_argument("--window", type=int, default=None,
                    help="replay-buffer size B: compose only min(T, B) steps (Theorem 4.2 of "
                         "the dissertation, ch. 4); the unit becomes one buffer entry and, "
                         "the buffer having a fixed size, neighbouring runs differ by "
                         "replacing it: accounted under replace-one (PLD), with the "
                         "dissertation's add/remove-one figure shown as the thesis reading")
    dp.add_argument("--updates-per-entry", type=int, default=1,
                    help="with --window: DP steps per new buffer entry (default 1)")
    dp.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    dp.add_argument("--method", choices=("rdp", "pld"), default=None,
                    help="rdp (default without --window, as the sources use it) or pld "
                         "(usually tighter; the only one with --window: dp-accounting's RDP "
                         "has no replace-one analysis of Poisson sampling)")
    common(dp)
