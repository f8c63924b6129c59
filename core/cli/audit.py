"""The ``audit`` subcommand (docs/formats-and-cli.md §5): an empirical privacy audit.

``audit MECHANISM …`` with MECHANISM one of

* ``laplace --epsilon E --sensitivity S``
* ``exponential --epsilon E [--sensitivity S] [--monotonic]``
* ``dirichlet --k K --eta E [--eta-bar EB] --w M --b B --delta D [--analysis W|support]``
* ``advising --epsilon E [--variant sound|thesis]``
* ``logistics --epsilon E [--preset sound|thesis]``
* ``sharing --k K --m M --eta E --lb R --delta D [--bound profile|paper|tight]``
* ``gaussian --mu M [--delta D]`` (sanity check of the audit itself, spec B20)

each with ``[--samples N] [--seed S] [--confidence C] [--json]``. ``--json`` keys:
``mechanism``, ``epsilon_claimed`` (null if unbounded, with ``epsilon_claimed_reason``),
``delta_claimed``, ``epsilon_lb``, ``confidence``, ``epsilon_tight`` (null when unknown,
with ``epsilon_tight_reason``), ``pair``, ``samples``, ``verdict`` (``consistent`` or
``violation``), plus ``adjacency``, ``mode``, ``seed``, ``parameters``, ``attack``, ``roc``,
``candidates``, ``elapsed_s``, ``notes``. Without ``--seed`` the audit runs in release mode
(OS-seeded; the release sampler where the mechanism has one) and says so. Exit 0 whatever
the verdict; bad input is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from core.cli.common import Progress, add_record_flag, record_project

if TYPE_CHECKING:
    from core.audit.records import AuditParameters

__all__ = ["add_audit_parser", "audit_parameters", "cmd_audit", "FLAGS"]

#: core field → command-line flag, for one-line errors naming what the user typed
FLAGS = {
    "epsilon": "--epsilon", "sensitivity": "--sensitivity", "k": "--k", "eta": "--eta",
    "eta_bar": "--eta-bar", "w": "--w", "b": "--b", "delta": "--delta",
    "delta_target": "--delta", "gamma": "--delta", "analysis": "--analysis",
    "delta_method": "--delta-method", "variant": "--variant", "preset": "--preset",
    "samples": "--samples", "seed": "--seed", "confidence": "--confidence", "mu": "--mu",
    "n": "--w", "m": "--m", "lb": "--lb", "bound": "--bound",
}


def add_audit_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``audit`` (with one sub-parser per mechanism) on ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("audit", help="empirical privacy audit of a mechanism (epsilon lower "
                        "bound from a distinguishing attack)",
                        description="Search neighbouring inputs for the worst case, attack "
                        "them with N samples per side and report a Clopper-Pearson lower "
                        "bound epsilon_lb next to the claimed epsilon (and the exact "
                        "epsilon_tight of the worst pair where densities are known).")
    mech = sp.add_subparsers(dest="mechanism", metavar="MECHANISM", parser_class=type(sp))
    mech.required = True

    def shared(p: argparse.ArgumentParser) -> None:
        p.add_argument("--samples", type=int, default=None,
                       help="N, outputs per side for the audited pair (default per "
                            "mechanism; split 20/30/50 %% into fit, threshold, evaluation)")
        p.add_argument("--seed", type=int, default=None,
                       help="seeded experiment mode; omit for release mode")
        p.add_argument("--confidence", type=float, default=0.95,
                       help="joint confidence of the Clopper-Pearson limits (default 0.95)")
        add_record_flag(p, "audit")
        common(p)

    p = mech.add_parser("laplace", help="Laplace mechanism (core/privacy/laplace.py)")
    p.add_argument("--epsilon", type=float, required=True, help="claimed epsilon > 0")
    p.add_argument("--sensitivity", type=float, required=True, help="L1 sensitivity > 0")
    shared(p)

    p = mech.add_parser("exponential", help="exponential mechanism (OpenDP noisy max)")
    p.add_argument("--epsilon", type=float, required=True, help="claimed epsilon > 0")
    p.add_argument("--sensitivity", type=float, default=1.0,
                   help="utility sensitivity > 0 (default 1)")
    p.add_argument("--monotonic", action="store_true", help="monotone utilities")
    shared(p)

    p = mech.add_parser("dirichlet", help="Dirichlet row mechanism and its accountant")
    p.add_argument("--k", type=float, required=True, help="concentration k > 0")
    p.add_argument("--eta", type=float, required=True, help="lower bound of entries in W")
    p.add_argument("--eta-bar", type=float, default=None,
                   help="lower bound of the mass outside W (default: --eta)")
    p.add_argument("--w", type=int, required=True,
                   help="|W| >= 2 (with --analysis support: the support size n)")
    p.add_argument("--b", type=float, required=True, help="adjacency radius in (0, 1]")
    p.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    p.add_argument("--analysis", choices=("W", "support"), default="W",
                   help="W: Theorem 1.6 as the dirichlet command (default); support: the "
                        "within-support analysis of MDP row releases")
    p.add_argument("--delta-method", choices=("auto", "profile", "exact", "union", "mc"),
                   default="auto",
                   help="the accountant whose claim is audited, as in the dirichlet command "
                        "(default auto: the exact privacy profile)")
    shared(p)

    p = mech.add_parser("sharing", help="the shared-policy mechanism (l2 adjacency, [KS])")
    p.add_argument("--k", type=float, required=True, help="concentration k > 0")
    p.add_argument("--m", type=int, required=True, help="actions (entries of the policy)")
    p.add_argument("--eta", type=float, required=True, help="least entry of a shared policy")
    p.add_argument("--lb", type=float, required=True, help="l2 radius of neighbours (L·b)")
    p.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    p.add_argument("--bound", choices=("profile", "paper", "tight"), default="profile",
                   help="the accountant whose claim is audited (default: the exact profile)")
    shared(p)

    p = mech.add_parser("advising", help="the advice as the student observes it")
    p.add_argument("--epsilon", type=float, required=True, help="epsilon > 0 per release")
    p.add_argument("--variant", choices=("sound", "thesis"), default="sound",
                   help="sound (default: every release noised) or thesis (as published, "
                        "with its raw releases)")
    shared(p)

    p = mech.add_parser("logistics", help="the logistics planning releases")
    p.add_argument("--epsilon", type=float, required=True, help="epsilon > 0")
    p.add_argument("--preset", choices=("sound", "thesis"), default="sound",
                   help="sound (default) or thesis (faithful, with its flaws)")
    shared(p)

    p = mech.add_parser("gaussian", help="Gaussian mechanism: sanity check of the audit")
    p.add_argument("--mu", type=float, default=1.0, help="|x - x'| / sigma (default 1)")
    p.add_argument("--delta", type=float, default=1e-4, help="delta (default 1e-4)")
    shared(p)


def audit_parameters(args: argparse.Namespace) -> AuditParameters:
    """The :class:`~core.audit.records.AuditParameters` of a parsed ``audit`` command line
    (what the window builds from its fields for the same inputs).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    AuditParameters
        Validated: a bad value raises :class:`~core.common.errors.InputError` naming the
        core field (:data:`FLAGS` maps it to its flag).
    """
    from core.audit.records import AuditParameters

    return AuditParameters(args.mechanism, _mechanism_params(args), samples=args.samples,
                           seed=args.seed, confidence=args.confidence)


def _mechanism_params(args: argparse.Namespace) -> dict[str, Any]:
    m = args.mechanism
    if m == "laplace":
        return {"epsilon": args.epsilon, "sensitivity": args.sensitivity}
    if m == "exponential":
        return {"epsilon": args.epsilon, "sensitivity": args.sensitivity,
                "monotonic": args.monotonic}
    if m == "dirichlet":
        return {"k": args.k, "eta": args.eta, "eta_bar": args.eta_bar, "w": args.w,
                "b": args.b, "delta": args.delta, "analysis": args.analysis,
                "delta_method": args.delta_method}
    if m == "sharing":
        return {"k": args.k, "m": args.m, "eta": args.eta, "lb": args.lb, "delta": args.delta,
                "bound": args.bound}
    if m == "advising":
        return {"epsilon": args.epsilon, "variant": args.variant}
    if m == "logistics":
        return {"epsilon": args.epsilon, "preset": args.preset}
    return {"mu": args.mu, "delta": args.delta}


def _g(x: float | None, digits: int = 4) -> str:
    if x is None:
        return "unknown"
    if not math.isfinite(x):
        return "unbounded"
    return f"{x:.{digits}g}"


def _pair_text(pair: Any) -> str:
    if not isinstance(pair, dict):
        return str(pair)
    label = pair.get("description") or pair.get("name")
    if "p" in pair and "q" in pair:
        return f"{pair['p']} vs {pair['q']}" + (f"  ({label})" if label else "")
    a, b = pair.get("a"), pair.get("b")
    if a is not None and b is not None and not isinstance(a, dict):
        return f"{a} vs {b}" + (f"  ({label})" if label else "")
    return str(label) if label else str(pair)


def text_report(res: Any) -> str:
    """The human-readable report of an :class:`~core.audit.AuditResult`."""
    a = res.attack
    lines = [f"audit {res.mechanism}: {res.label}",
             ("mode: seeded experiment (seed "
              f"{res.seed}) - reproducible" if res.mode == "experiment" else
              "mode: release (seeded from the OS secure random source, release samplers where "
              "the mechanism has them; not reproducible)"),
             f"adjacency: {res.adjacency}"]
    params = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                       for k, v in res.parameters.items()
                       if not isinstance(v, (list, dict)))
    if params:
        lines.append(f"public parameters: {params}")
    lines.append(f"audited pair: {_pair_text(res.pair)}")
    claimed = (f"epsilon = {_g(res.epsilon_claimed, 6)}, delta = {res.delta_claimed:.3g}"
               if not res.unbounded else
               f"unbounded ({res.epsilon_claimed_reason}), delta = {res.delta_claimed:.3g}")
    lines.append(f"claimed:   {claimed}")
    if res.epsilon_tight is not None:
        lines.append(f"tight:     epsilon = {_g(res.epsilon_tight, 6)} at delta "
                     f"{res.delta_claimed:.3g}, worst pair searched [{res.epsilon_tight_method}]")
        if res.tight_pair != res.pair:
            lines.append(f"           (that pair: {_pair_text(res.tight_pair)}; the audited "
                         f"pair's is {_g(res.epsilon_tight_audited_pair, 6)})")
    else:
        lines.append("tight:     unknown (output densities not available)")
    lines.append(f"audit:     epsilon_lb = {res.epsilon_lb:.4f} at {100 * res.confidence:g} % "
                 f"confidence (Clopper-Pearson), {res.samples} samples per side "
                 f"({a.get('samples_evaluated')} evaluated)")
    if a:
        lines.append(f"attack:    {a['features']}; FPR {a['fpr']:.4g} (<= {a['fpr_upper']:.4g}),"
                     f" FNR {a['fnr']:.4g} (<= {a['fnr_upper']:.4g}); point estimate "
                     f"{_g(a['epsilon_point'])}")
    if res.verdict == "violation":
        lines.append(f"verdict:   VIOLATION - epsilon_lb {res.epsilon_lb:.4f} > claimed "
                     f"{_g(res.epsilon_claimed, 6)}: the stated guarantee is false")
    else:
        lines.append("verdict:   consistent" + (
            " (unbounded claim: nothing to contradict)" if res.unbounded else
            f" (epsilon_lb <= claimed {_g(res.epsilon_claimed, 6)})"))
    lines.extend(f"note: {n}" for n in res.notes)
    lines.append(f"elapsed: {res.elapsed_s:.2f} s")
    return "\n".join(lines)


def cmd_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``audit``; returns the exit code (user errors raise InputError).

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
    from core.audit import audit_release
    from core.common.errors import InputError
    from core.common.jsonable import dumps

    project = record_project(args.record)  # a bad project is refused before the audit
    try:
        params = audit_parameters(args)
        res = audit_release(params, progress=Progress(err, f"audit {args.mechanism}"))
    except InputError as exc:
        if exc.file is None and exc.field in FLAGS:
            raise InputError(exc.problem, field=FLAGS[exc.field]) from None
        raise
    payload = res.to_dict()
    recorded = ""
    if project is not None:
        from core.project.recording import audit_run_record
        from core.project.store import record_and_save

        record = audit_run_record(project, res, params)
        record, _ = record_and_save(args.record, project, record)
        recorded = str(record.id)
        payload["recorded"] = {"project": args.record, "run": recorded, "ledger_entries": 0}
    if args.json:
        out.write(dumps(payload) + "\n")
    else:
        out.write(text_report(res) + "\n"
                  + (f"recorded in {args.record} as {recorded}\n" if recorded else ""))
    return 0
