"""The ``synthesise`` subcommand: a policy of an MDP file by induction, the LP, or softmax.

``synthesise MDP --method induction|lp|softmax [--temperature TAU] [-o POLICY.json]
[--check]`` prints the policy and its values per state at stage 0 (Algorithm 1's synthesis
step, on whatever model MDP is: on a privatised model it is post-processing of that release).

* ``induction`` (default): backward induction (finite horizon) or value iteration polished
  by policy iteration (infinite), :func:`core.mdp.synthesis.synthesize`; lowest action index
  on ties.
* ``lp``: the occupancy-measure LP solved by HiGHS (:mod:`core.mdp.lp_synthesis`); values
  are its dual solution. ``--check`` also runs induction and reports the largest difference
  of the values (``check``).
* ``softmax``: the entropy-regularised policy at ``--temperature`` (stochastic);
  ``values`` are its expected rewards and ``soft_values`` the regularised ones.

``--json`` keys: ``method``, ``policy`` (action indices per stage for a deterministic
method, as ``bounds`` prints them; the table π(a|s) for softmax), ``stochastic``,
``values`` (stage 0, every state, in file order), ``value_at_initial``, ``states``,
``initial_state``, ``horizon``, ``status``, ``n_iter``, ``elapsed_s``, ``release`` (the
file's release metadata or null), ``privacy_note``; ``output`` with ``-o`` (a policy file
``{"policy": π}`` that ``bounds --policy`` reads; one-hot for a deterministic method);
``check`` with ``--check``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any, TextIO, cast

from core.cli.common import Progress, emit
from core.common.errors import InputError

__all__ = ["add_synthesise_parser", "cmd_synthesise", "SYNTHESIS_METHODS"]

SYNTHESIS_METHODS = ("induction", "lp", "softmax")

PRIVACY_NOTE = ("privacy: the policy and values are computed from MDP alone; for a privatised "
                "model they are post-processing of its release and carry its guarantee, for "
                "a true model they disclose it")


def add_synthesise_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``synthesise`` on the subparsers action ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("synthesise", aliases=["synthesize"],
                        help="an optimal (or softmax) policy of an MDP: "
                        "induction, the occupancy-measure LP, or entropy-regularised",
                        description="Algorithm 1's synthesis step on MDP as given. 'lp' is the "
                        "occupancy-measure linear program (HiGHS), a cross-check of "
                        "'induction'; 'softmax' the entropy-regularised (stochastic) policy.")
    sp.add_argument("mdp", metavar="MDP", help="*.mdp.json or *.mdp.npz")
    sp.add_argument("--method", choices=SYNTHESIS_METHODS, default="induction",
                    help="induction (default), lp or softmax")
    sp.add_argument("--temperature", type=float, default=None, metavar="TAU",
                    help="softmax: the temperature TAU > 0 (the entropy's weight)")
    sp.add_argument("-o", "--output", default=None, metavar="POLICY.json",
                    help='write the policy as {"policy": π(a|s)} (the file bounds --policy '
                         "reads); one-hot for a deterministic method")
    sp.add_argument("--check", action="store_true",
                    help="also run the other exact method (lp <-> induction) and report the "
                         "largest difference of the values")
    common(sp)


def cmd_synthesise(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``synthesise``.

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
        :class:`~core.common.errors.InputError` (exit 2).
    """
    from core.mdp.files import load_mdp, read_release

    _check_synthesis_flags(args)
    mdp = load_mdp(args.mdp)
    release = read_release(args.mdp)
    progress = Progress(err, "synthesise")
    t0 = time.perf_counter()
    res, soft = _solve(mdp, args, progress)
    elapsed = time.perf_counter() - t0
    payload, table, values = _synthesis_payload(args, mdp, res, soft, elapsed, release)
    if args.check:
        payload["check"] = _cross_check(mdp, args.method, res, values)
    if args.output is not None:
        from core.common.atomic import atomic_write_text

        atomic_write_text(args.output, json.dumps({"policy": table.tolist()}) + "\n")
        payload["output"] = args.output
    emit(args, payload, lambda: _synthesis_text(args, mdp, payload, res, soft, table, values),
         out)
    return 0


def _check_synthesis_flags(args: argparse.Namespace) -> None:
    """--temperature belongs to --method softmax (and is needed there), --check to the exact
    methods, -o to a *.json file."""
    if args.method == "softmax":
        if args.temperature is None:
            raise InputError("--method softmax needs --temperature TAU (> 0)",
                             field="--temperature")
        if args.check:
            raise InputError("checks the exact methods against each other (induction, lp); "
                             "softmax has no second method", field="--check")
    elif args.temperature is not None:
        raise InputError(f"is the temperature of --method softmax, not of {args.method}",
                         field="--temperature")
    if args.output is not None and not args.output.lower().endswith(".json"):
        raise InputError("must name a *.json policy file", field="-o")


def _solve(mdp: Any, args: argparse.Namespace, progress: Any) -> tuple[Any, Any]:
    """(the exact result, None) of induction or the LP, or (None, the softmax result)."""
    from core.mdp.lp_synthesis import synthesize_lp
    from core.mdp.stochastic import softmax_policy
    from core.mdp.synthesis import synthesize

    try:
        if args.method == "lp":
            return synthesize_lp(mdp, progress=progress), None
        if args.method == "softmax":
            return None, softmax_policy(mdp, cast(float, args.temperature), progress=progress)
        return synthesize(mdp), None
    except InputError as exc:
        if exc.field in ("method", "temperature"):
            raise InputError(exc.problem, field=f"--{exc.field}") from None
        raise


def _stage0(mdp: Any, a: Any) -> Any:
    """Stage 0 of a finite-horizon array, the array itself otherwise."""
    return a[0] if mdp.horizon is not None else a


def _synthesis_payload(args: argparse.Namespace, mdp: Any, res: Any, soft: Any,
                       elapsed: float, release: Any) -> tuple[dict[str, Any], Any, Any]:
    """The JSON result, the policy table (one-hot for an exact method) and the values at
    stage 0."""
    from core.mdp.stochastic import one_hot

    s0 = mdp.initial_state
    if soft is not None:
        table = soft.policy
        policy: Any = table.tolist()
        values = _stage0(mdp, soft.values)
        status, n_iter = soft.status, soft.n_iter
        stochastic = bool(((table > 0).sum(axis=-1) > 1).any())
    else:
        table = one_hot(res.policy, mdp.n_actions)
        policy = res.policy.tolist()
        values = _stage0(mdp, res.values)
        status, n_iter = res.status, res.n_iter
        stochastic = False
    payload: dict[str, Any] = {
        "mdp": args.mdp, "method": args.method, "horizon": mdp.horizon,
        "states": list(mdp.state_names), "initial_state": mdp.state_names[s0],
        "policy": policy, "stochastic": stochastic, "values": values.tolist(),
        "value_at_initial": float(values[s0]), "status": status.message, "n_iter": n_iter,
        "elapsed_s": elapsed, "release": release, "privacy_note": PRIVACY_NOTE}
    if soft is not None:
        payload.update(temperature=soft.temperature,
                       soft_values=_stage0(mdp, soft.soft_values).tolist())
    return payload, table, values


def _cross_check(mdp: Any, method: str, res: Any, values: Any) -> dict[str, Any]:
    """``--check``: the other exact method's largest value difference and policy."""
    import numpy as np

    from core.mdp.lp_synthesis import synthesize_lp
    from core.mdp.synthesis import synthesize

    other = synthesize(mdp) if method == "lp" else synthesize_lp(mdp)
    diff = float(np.max(np.abs(_stage0(mdp, other.values) - values), initial=0.0))
    return {"method": "induction" if method == "lp" else "lp", "max_abs_diff": diff,
            "same_policy": bool(np.array_equal(other.policy, res.policy))}


def _synthesis_text(args: argparse.Namespace, mdp: Any, payload: dict[str, Any], res: Any,
                    soft: Any, table: Any, values: Any) -> str:
    """The text report: the method, each state's stage-0 action and value, the check."""
    import numpy as np

    if soft is not None:
        what = f"softmax (entropy-regularised, temperature {soft.temperature:g})"
    elif args.method == "lp":
        what = "occupancy-measure LP (HiGHS)"
    else:
        what = ("backward induction" if mdp.horizon is not None else
                "value iteration + policy iteration")
    lines = [f"{mdp.name or args.mdp}: {what}; {payload['status']}, "
             f"{payload['n_iter']} iterations, {payload['elapsed_s'] * 1e3:.2f} ms",
             f"{'state':<16}{'action (stage 0)':<24}{'value':>14}"]
    for s, name in enumerate(mdp.state_names):
        if soft is not None:
            p0 = _stage0(mdp, table)[s]
            a = int(np.argmax(p0))
            act = f"{mdp.action_names[s][a]} ({p0[a]:.3g})"
        else:
            a = int(_stage0(mdp, res.policy)[s])
            act = mdp.action_names[s][a]
        lines.append(f"{name:<16.16}{act:<24.24}{values[s]:>14.8g}")
    if "check" in payload:
        c = payload["check"]
        lines.append(f"check against {c['method']}: largest value difference "
                     f"{c['max_abs_diff']:.3g}; same policy: {c['same_policy']}")
    if args.output:
        lines.append(f"wrote {args.output}")
    lines.append(PRIVACY_NOTE)
    return "\n".join(lines)
