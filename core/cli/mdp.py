"""The MDP subcommands: ``privatize`` (Algorithm 1 step 1), ``bounds`` and ``sweep``.

Size: the three MDP commands (privatize, bounds, sweep) share the privacy flags, the policy
flags and the privacy text; one module keeps those shared pieces beside the commands that use
them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from core import __version__
from core.cli.common import (
    Progress,
    add_over_budget_flag,
    add_scheduler_flag,
    emit,
    executor_for,
    flag_error,
    mode_line,
    parse_k_list,
    project_item,
)
from core.cli.grammar import add_record_option
from core.common.errors import InputError, RunFailure

__all__ = ["cmd_privatize", "cmd_bounds", "cmd_sweep", "add_mdp_parsers", "BOUNDS_PRIVACY_NOTE",
           "ZEROS_HELP", "ALPHA_HELP"]

ALPHA_HELP = ("the rule for the radius alpha of the robust set: paper (default; Lemma 2.2 as "
              "published, which can fail) or rigorous (sub-Gaussian tails with a union bound "
              "over a row's entries)")

ZEROS_HELP = ("zero probabilities: 'support' (default) keeps them zero, so which transitions "
              "are possible is disclosed (the adjacency does not protect it); 'smoothing' "
              "mixes every row that has a zero with the uniform distribution on all states "
              "(weight 0.01): its support becomes all states, the model changes")


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

    sp.add_argument("--eta", type=_eta_arg, default=d(DEFAULT_ETA), metavar="H|auto",
                    help=PARAMETER_HELP["eta"].replace("%", "%%"))
    sp.add_argument("--domain-rule", choices=("refuse", "mix"), default=d(DEFAULT_DOMAIN_RULE),
                    help=PARAMETER_HELP["domain_rule"])
    sp.add_argument("--b", type=float, default=d(DEFAULT_B),
                    help="adjacency radius " + PARAMETER_HELP["b"])
    sp.add_argument("--delta", type=float, default=d(DEFAULT_DELTA),
                    help=f"target delta of the statement, in (0, 1) (default "
                         f"{DEFAULT_DELTA:g}; under all-rows adjacency the whole release's)")
    sp.add_argument("--adjacency", choices=("one-row", "all-rows"), default=d("one-row"),
                    help="which MDPs are neighbours: one-row (default) = differ in one "
                         "transition row, all-rows = every row may differ")
    sp.add_argument("--delta-method", choices=("auto", "profile", "union", "exact", "mc"),
                    default=d("auto"),
                    help="the per-row accountant: auto (default) = profile, the exact privacy "
                         "profile of the worst neighbouring pair (certified); union = Theorem "
                         "1.6's threshold analysis with the union bound (proven, looser); "
                         "exact / mc = the vertex reduction of [D] Lemma 1.2 (unproven "
                         "lemma), exact for up to 4 next states")


def _eta_arg(text: str) -> Any:
    """--eta: a number in (0, 1) or 'auto' (argparse turns a ValueError into exit 2)."""
    from core.mdp.privatize import parse_eta

    try:
        return parse_eta(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None


def _privacy_text(priv: Any, *, whole: bool = True) -> list[str]:
    """The guarantee in words (``whole``: with the adjacency and the public parameters),
    then the (ε, δ) per support size."""
    lines = [priv.statement if whole else priv.headline]
    for g in priv.supports:
        if g.n >= 2:
            what = (f"({g.epsilon:.4g}, {g.delta:.3g})" if g.bounded else
                    f"no guarantee: {g.reason}")
            eta = "" if g.result is None else f"eta = {g.result.eta:g}, "
            lines.append(f"  rows with {g.n} possible next states ({eta}radius {g.b:g}): "
                         f"{what}")
    return lines


# ---------------------------------------------------------------------------- privatize
def cmd_privatize(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``privatize``.

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
    from core.common.timestamps import now_iso
    from core.mdp.accounting import mdp_privacy
    from core.mdp.files import load_mdp, save_mdp
    from core.mdp.privatize import mechanism_rows, privatize_mdp

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
                              adjacency=args.adjacency, prepared=prepared,
                              delta_method=args.delta_method)
        res = privatize_mdp(mdp, args.k, rng=args.seed, prepared=prepared)
    except InputError as exc:
        raise flag_error(exc, {**_PRIVACY_FLAGS, "seed": "--seed"}) from None
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
                          f"k = {res.k:g}", mode_line(res.seed),
                          "guarantee (also in the file's release metadata):",
                          *("  " + line for line in _privacy_text(privacy))])

    emit(args, payload, text, out)
    return 0


# ---------------------------------------------------------------------------- bounds
BOUNDS_PRIVACY_NOTE = (
    "privacy: the policy, V_private and the bounds are computed from MDP (the privatised "
    "model) alone, so they are post-processing of that release and carry its guarantee "
    "(Lemma 2.1), restated here at --k from its supports and the public parameters (from "
    "the file's release metadata when present, else --eta/--domain-rule/--b/--delta/"
    "--adjacency)")
def cmd_bounds(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``bounds``.

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
    from core.mdp.accounting import (
        DEFAULT_B,
        DEFAULT_DELTA,
        DEFAULT_DOMAIN_RULE,
        DEFAULT_ETA,
        release_privacy,
    )
    from core.mdp.files import load_mdp, read_release
    from core.mdp.robust import cost_of_privacy, release_centre_shift

    project, mdp_id = project_item(args.mdp, args.mdp_id, args.record, flag="--mdp",
                                   noun="model", ids_of=lambda p: [e.id for e in p.mdps])
    if project is not None and mdp_id is not None:
        return _bounds_of_project(args, project, mdp_id, out, err)
    if args.synthesis != "induction":
        raise InputError("is for a project's model (bounds PROJECT --mdp ID); for a model file "
                         "write the LP's policy with 'synthesise --method lp -o POLICY.json' "
                         "and bound it with --policy", field="--synthesis")
    if args.seed is not None:
        raise InputError("a model file is the privatised model already: --seed is for a "
                         "project, whose model bounds privatises first", field="--seed")
    mdp = load_mdp(args.mdp)
    release = read_release(args.mdp)
    rel = release or {}

    def pick(flag: Any, key: str, default: Any) -> Any:
        if flag is not None:
            return flag
        value = rel.get(key)
        return default if value is None else value

    from core.mdp.privatize import parse_eta

    params: dict[str, Any] = {"eta": parse_eta(pick(args.eta, "eta", DEFAULT_ETA)),
              "domain_rule": str(pick(args.domain_rule, "domain_rule", DEFAULT_DOMAIN_RULE)),
              "b": float(pick(args.b, "b", DEFAULT_B)),
              "delta_target": float(pick(args.delta, "delta_target", DEFAULT_DELTA)),
              "adjacency": str(pick(args.adjacency, "adjacency", "one-row")),
              "zeros": str(rel.get("zeros", "support")),
              # a release made before the exact profile (no "accountant" recorded) was
              # stated with the union bound
              "delta_method": str(pick(args.delta_method, "delta_method",
                                       "auto" if release is None or "accountant" in rel
                                       else "union"))}
    if params["zeros"] == "smoothing":
        params["smoothing"] = float(rel.get("smoothing", 0.01))
    try:
        privacy = release_privacy(mdp, args.k, **params)
        # the noise was centred on the pre-processed rows: widen alpha by the public shift
        shift = release_centre_shift(mdp, eta=params["eta"], domain_rule=params["domain_rule"],
                                     zeros=params["zeros"],
                                     smoothing=params.get("smoothing", 0.0))
        table = _policy_file(args, mdp)
        res = cost_of_privacy(mdp, k=args.k, beta=args.beta, alpha_mode=args.alpha,
                              method=args.method, progress=Progress(err, "bounds"),
                              centre_shift=shift, policy_table=table,
                              temperature=args.softmax)
    except InputError as exc:
        raise flag_error(exc, {**_PRIVACY_FLAGS, **_POLICY_FLAGS, "delta_target": "--delta",
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
    source = _policy_payload(payload, res.policy_probs, res.policy, args)

    def text() -> str:
        lines = [f"{mdp.name or args.mdp}: k = {args.k:g}, beta = {res.beta:g}, "
                 f"alpha = {res.alpha:.6g} ({res.alpha_mode}), method = {res.method}",
                 *([res.alpha_shift_note] if res.alpha_shift > 0 else []),
                 *_policy_lines(source, res.policy_probs)]
        lines += _value_table(mdp, res.policy, res.policy_probs, start(res.v_lower),
                              start(res.v_private), start(res.v_upper))
        lines.append(f"cost-of-privacy bound at {mdp.state_names[s0]!r}: {res.cost_bound:.6g}"
                     f"  ({res.elapsed_s * 1e3:.2f} ms)")
        lines.append(BOUNDS_PRIVACY_NOTE)
        if args.policy is not None:
            lines.append(GIVEN_POLICY_NOTE)
        lines += ["  " + line for line in _privacy_text(privacy)]
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


GIVEN_POLICY_NOTE = (
    "the policy was given (--policy FILE), not synthesised: the bounds are a function of the "
    "privatised model and that file, so they carry the release's guarantee only if the file "
    "was made without the true data")
_POLICY_FLAGS = {"policy": "--policy", "temperature": "--softmax"}
#: The sweep's parameters (:class:`core.mdp.records.SweepParameters`) by the flag that sets each.
_SWEEP_FLAGS = {**_PRIVACY_FLAGS, **_POLICY_FLAGS, "delta_target": "--delta", "runs": "--runs",
                "beta": "--beta", "alpha": "--alpha", "seed": "--seed", "workers": "--workers"}


def _add_policy_flags(sp: argparse.ArgumentParser, what: str) -> None:
    """--policy FILE and --softmax TAU: which π̄ (default: the greedy optimum)."""
    group = sp.add_mutually_exclusive_group()
    group.add_argument("--policy", metavar="FILE", default=None,
                       help=f"{what} this stochastic policy instead of the greedy π̄: JSON "
                            '{"policy": π} with π(a|s) of shape (T, S, A) (finite horizon; '
                            "an (S, A) table is used at every stage) or (S, A), rows summing to "
                            "1, actions in the model's order (a one-hot table is a "
                            "deterministic policy)")
    group.add_argument("--softmax", type=float, metavar="TAU", default=None,
                       help=f"{what} the entropy-regularised (softmax) policy at temperature "
                            "TAU > 0, synthesised on the private model, instead of the greedy "
                            "one")


def _policy_file(args: argparse.Namespace, mdp: Any) -> Any:
    """The table of --policy FILE for ``mdp`` (None without the flag)."""
    if args.policy is None:
        return None
    from core.mdp.stochastic import load_policy

    return load_policy(args.policy, mdp)


def _policy_payload(payload: dict[str, Any], probs: Any, actions: Any,
                    args: argparse.Namespace) -> str:
    """Put a stochastic π̄ in ``payload`` (``policy`` becomes the table π(a|s), with
    ``policy_source``, ``stochastic`` and the ``most_likely`` actions); returns the source."""
    if probs is None:
        return "greedy"
    source = "softmax" if args.softmax is not None else "table"
    payload.update(policy=probs.tolist(), policy_source=source,
                   stochastic=bool(((probs > 0).sum(axis=-1) > 1).any()),
                   most_likely=actions.tolist())
    if args.softmax is not None:
        payload["temperature"] = args.softmax
    if args.policy is not None:
        payload["policy_file"] = args.policy
        payload["policy_note"] = GIVEN_POLICY_NOTE
    return source


def _policy_lines(source: str, probs: Any) -> list[str]:
    if probs is None:
        return []
    what = ("the softmax (entropy-regularised) policy of the private model" if source ==
            "softmax" else "the given policy")
    return [f"policy: {what}; 'action' is its most likely action (probability)"]


def _value_table(mdp: Any, policy: Any, probs: Any, lo: Any, mid: Any, hi: Any) -> list[str]:
    """The per-state table of the text output (stage 0)."""
    lines = [f"{'state':<16}{'action':<22}{'v_lower':>12}{'V_private':>12}{'v_upper':>12}"]
    pol0 = policy[0] if policy.ndim == 2 else policy
    p0 = None if probs is None else (probs[0] if probs.ndim == 3 else probs)
    for s, name in enumerate(mdp.state_names):
        act = mdp.action_names[s][pol0[s]]
        if p0 is not None:
            act = f"{act[:14]} ({p0[s, pol0[s]]:.3g})"
        lines.append(f"{name:<16.16}{act:<22.22}{lo[s]:>12.6g}{mid[s]:>12.6g}{hi[s]:>12.6g}")
    return lines


PROJECT_BOUNDS_NOTE = (
    "privacy: bounds privatised the project's model once at --k (Algorithm 1 step 1, "
    "the window's Synthesise & bound); the policy, V_private and the bounds are computed "
    "from that privatised model alone, so they carry its guarantee (Lemma 2.1)")


def _bounds_of_project(args: argparse.Namespace, project: Any, mdp_id: str, out: TextIO,
                       err: TextIO) -> int:
    """``bounds PROJECT --mdp ID``: the window's "Synthesise & bound" on the project's (true)
    model, through the same core entry point, recorded with ``--record``."""
    from core.mdp.private_policy import bounds_release
    from core.mdp.records import BoundsParameters, bounds_entries

    if args.method != "greedy":
        raise InputError("a project's model is bounded with the exact greedy (the LP "
                         "cross-check takes a privatised model file)", field="--method")
    flags = {k: v for k, v in (("eta", args.eta), ("domain_rule", args.domain_rule),
                               ("b", args.b), ("delta_target", args.delta),
                               ("adjacency", args.adjacency),
                               ("delta_method", args.delta_method)) if v is not None}
    entry = project.entry(mdp_id)
    try:
        params = BoundsParameters(k=args.k, beta=args.beta, alpha_mode=args.alpha,
                                  seeded=args.seed is not None, seed=args.seed,
                                  release=args.seed is None, temperature=args.softmax,
                                  policy_table=_policy_file(args, project.mdp(mdp_id)),
                                  synthesis=args.synthesis, **flags)
        rel = bounds_release(project.mdp(mdp_id), params, digest_key=entry.model.digest_key(),
                             progress=Progress(err, "bounds"))
    except InputError as exc:
        raise flag_error(exc, {**_PRIVACY_FLAGS, **_POLICY_FLAGS, "delta_target": "--delta",
                                "beta": "--beta", "alpha": "--alpha", "seed": "--seed",
                                "synthesis": "--synthesis"}
                         ) from None
    res, privacy = rel.result, rel.privacy
    mdp = project.mdp(mdp_id)
    recorded = ""
    if args.record:
        recorded = _record_bounds(args, project, mdp_id, rel, err)

    def start(a: Any) -> Any:
        return a[0] if a.ndim == 2 else a

    s0 = mdp.initial_state
    payload: dict[str, Any] = {
        "project": args.mdp, "mdp_id": mdp_id, "k": res.k, "beta": res.beta,
        "alpha": res.alpha, "alpha_mode": res.alpha_mode, "alpha_shift": res.alpha_shift,
        "alpha_shift_note": res.alpha_shift_note, "method": "greedy", "horizon": mdp.horizon,
        "states": list(mdp.state_names), "initial_state": mdp.state_names[s0],
        "stages_kept": res.stages_kept, "policy": res.policy.tolist(),
        "v_private": start(res.v_private).tolist(), "v_lower": start(res.v_lower).tolist(),
        "v_upper": start(res.v_upper).tolist(), "cost_bound": res.cost_bound,
        "status": res.status, "elapsed_s": res.elapsed_s, "mode": res.mode, "seed": res.seed,
        "epsilon": privacy.epsilon, "delta": privacy.delta, "adjacency": privacy.adjacency,
        "privacy": privacy.guarantee(), "privacy_note": PROJECT_BOUNDS_NOTE,
        "warnings": list(res.warnings)}
    if not privacy.bounded:
        payload["epsilon_reason"] = privacy.epsilon_reason
    source = _policy_payload(payload, res.policy_probs, res.policy, args)
    if res.synthesis == "lp":  # the greedy optimum by the LP, cross-checked by induction
        payload.update(policy_source="lp", synthesis="lp", synthesis_check=res.synthesis_check)
    if recorded:
        payload["recorded"] = {"project": args.mdp, "run": recorded,
                               "ledger_entries": len(bounds_entries(mdp_id, rel, source=""))}
    for w in res.warnings:
        err.write(f"warning: {w}\n")

    def text() -> str:
        lines = [f"{mdp.name or mdp_id} (project {args.mdp}): privatised once at k = "
                 f"{res.k:g}, beta = {res.beta:g}, alpha = {res.alpha:.6g} ({res.alpha_mode})",
                 mode_line(res.seed),
                 *([res.alpha_shift_note] if res.alpha_shift > 0 else []),
                 *_policy_lines(source, res.policy_probs)]
        if res.synthesis == "lp":
            lines.append(f"policy by the occupancy-measure LP (HiGHS); induction's values agree to "
                         f"{res.synthesis_check:.3g}")
        lines += _value_table(mdp, res.policy, res.policy_probs, start(res.v_lower),
                              start(res.v_private), start(res.v_upper))
        lines.append(f"cost-of-privacy bound at {mdp.state_names[s0]!r}: {res.cost_bound:.6g}"
                     f"  ({res.elapsed_s * 1e3:.2f} ms)")
        if recorded:
            lines.append(f"recorded in {args.mdp} as {recorded} (with its privatisation in "
                         "the ledger)")
        lines.append(PROJECT_BOUNDS_NOTE)
        if args.policy is not None:
            lines.append(GIVEN_POLICY_NOTE)
        lines += ["  " + line for line in _privacy_text(privacy)]
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def _record_bounds(args: argparse.Namespace, project: Any, mdp_id: str, release: Any,
                   err: Any) -> str:
    """Record a project's "Synthesise & bound" in its file (the window's record), merged
    with what the file holds now; returns the run id as stored. Refused past a budget
    unless --over-budget (a release is spent)."""
    from core.cli.common import record_checked
    from core.project.recording import bounds_run_record

    record, entries = bounds_run_record(project, mdp_id, release)
    record, _ = record_checked(args.mdp, project, record, entries, args, err)
    return str(record.id)


# ---------------------------------------------------------------------------- sweep
def _check_sweep_work(mdp: Any, ks: list[float], args: argparse.Namespace) -> None:
    """Refuse ``--runs`` x k values whose runs pass the time limit, before the first run: a
    run privatises the model and bounds it over its horizon (100 sweeps when infinite)."""
    from core.cli.guard import SWEEP_RUN_MIN_S, check_batch
    from core.common.resources import sweep_seconds

    S, A = mdp.n_states, mdp.n_actions
    sweeps = mdp.horizon if mdp.horizon is not None else 100
    each = max(SWEEP_RUN_MIN_S, 2.0 * sweep_seconds(sweeps, float(S) * A * S, "robust"))
    check_batch(float(args.runs) * len(ks), each, "--runs", workers=args.workers,
                what=f"privatise-and-bound runs ({args.runs:,} runs x {len(ks)} k)")


def cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``sweep``.

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
    from core.mdp.files import load_mdp
    from core.mdp.sweep import sweep_release

    ks = parse_k_list(args.k)
    project, mdp_id = _project_model(args)
    mdp = project.mdp(mdp_id) if project is not None and mdp_id else load_mdp(args.mdp)
    seed_drawn = args.seed is None
    _check_sweep_work(mdp, ks, args)
    try:
        table = _policy_file(args, mdp)
        with executor_for(args) as (executor, workers):
            params = _sweep_parameters(args, ks, workers)
            res = sweep_release(mdp, params, Progress(err, "sweep"), zeros=args.zeros,
                                executor=executor, policy_table=table)
    except InputError as exc:
        raise flag_error(exc, _SWEEP_FLAGS) from None
    except RunFailure:  # exit 3: core.cli.main writes the partial result with the error
        raise
    payload = res.to_dict()
    payload["seed_drawn_from_os"] = seed_drawn
    payload["initial_state"] = mdp.state_names[mdp.initial_state]
    recorded = ""
    if args.record and project is not None and mdp_id is not None:
        recorded = _record_sweep(args, project, mdp_id, params, res, err)
        payload["recorded"] = {"project": args.mdp, "run": recorded,
                               "ledger_entries": len(res.privacy)}

    def text() -> str:
        head = (f"{mdp.name or args.mdp}: {res.runs} runs per k, beta = {res.beta:g}, "
                f"alpha {res.alpha_mode}; seeded experiment (seed {res.seed}"
                f"{', drawn from the OS' if seed_drawn else ''})")
        if res.policy_source == "softmax":
            head += f"; π̄ = the softmax policy (τ = {res.temperature:g}) of each private model"
        elif res.policy_source == "table":
            head += f"; π̄ = the given policy {args.policy} in every run"
        cols = ("v_lower", "v_private", "v_true", "v_upper", "cost_bound", "cost_empirical")
        lines = [head, f"{'k':>10}" + "".join(f"{c:>16}" for c in cols)]
        for i, k in enumerate(res.k):
            lines.append(f"{k:>10g}" + "".join(
                f"{res.mean(c)[i]:>9.4f}±{res.sd(c)[i]:<6.3f}" for c in cols))
        lines.append("v_true and cost_empirical use the true model (oracle view); "
                     f"{res.elapsed_s:.2f} s")
        if recorded:
            lines.append(f"recorded in {args.mdp} as {recorded} (with {len(res.privacy)} "
                         "ledger entries, seeded experiments: listed, not spent)")
        if res.privacy:
            first = res.privacy[0]
            lines.append("privacy of one privatised model per k (Dirichlet mechanism, "
                         f"within-support analysis); adjacency: {first.adjacency_text}; "
                         f"public parameters: {first.parameters_text}:")
            for p in res.privacy:
                lines += ["  " + line for line in _privacy_text(p, whole=False)]
            c = res.composed
            if c is not None:
                def fmt(e: float) -> str:
                    return "unbounded" if e == float("inf") else f"{e:.4g}"

                lines.append(f"all {c.releases} privatisations composed at delta = "
                             f"{c.delta:g}: epsilon = {fmt(c.epsilon)} ({c.accountant}); basic "
                             f"composition: {fmt(c.epsilon_basic)}")
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def _project_model(args: argparse.Namespace) -> tuple[Any, str | None]:
    """(project, model id) when MDP names a project, else (None, None); checks the flags."""
    return project_item(args.mdp, args.mdp_id, args.record, flag="--mdp", noun="model",
                        ids_of=lambda p: [e.id for e in p.mdps])


def _sweep_parameters(args: argparse.Namespace, ks: Sequence[float], workers: int | None
                      ) -> Any:
    """The sweep's :class:`core.mdp.records.SweepParameters` from its flags (validated there:
    an invalid value raises :class:`InputError` naming the parameter, which
    :data:`_SWEEP_FLAGS` renames to its flag)."""
    from core.mdp.records import SweepParameters

    source = ("table" if args.policy is not None
              else "softmax" if args.softmax is not None else "greedy")
    return SweepParameters(
        ks=tuple(ks), runs=args.runs, beta=args.beta, alpha_mode=args.alpha,
        seeded=args.seed is not None, seed=args.seed,
        workers=workers if workers is not None else (os.cpu_count() or 1),
        b=args.b, delta_target=args.delta, adjacency=args.adjacency, eta=args.eta,
        domain_rule=args.domain_rule, delta_method=args.delta_method, policy_source=source,
        temperature=args.softmax,
        policy_file=os.path.basename(args.policy) if args.policy else None)


def _record_sweep(args: argparse.Namespace, project: Any, mdp_id: str, params: Any,
                  res: Any, err: Any) -> str:
    """Record the sweep in the project file (the window's record); returns the run id."""
    from core.cli.common import record_checked
    from core.mdp.records import sweep_entries
    from core.project.recording import sweep_run_record

    record = sweep_run_record(project, mdp_id, params, res)
    record, _ = record_checked(args.mdp, project, record,
                               sweep_entries(mdp_id, res, source=record.id), args, err)
    return str(record.id)


def add_mdp_parsers(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``privatize``, ``bounds`` and ``sweep`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds the flags every subcommand shares (``--json``) to a new subparser.
    """
    sp = sub.add_parser("privatize", help="Algorithm 1 step 1: Dirichlet-privatise every row",
                        aliases=["privatise"])
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
                        "file's release metadata, else to privatize's defaults). Given a "
                        "project (*.privplan.json) and --mdp ID, it privatises that (true) "
                        "model once at --k first, as the window's Synthesise & bound (F6) "
                        "does (--seed: seeded experiment; without: a release with the secure "
                        "source), and --record writes the run and its ledger entry into the "
                        "project.")
    sp.add_argument("mdp", metavar="MDP", help="the privatised model P̄ (*.mdp.json|npz), or a "
                    "project whose model --mdp names (privatised here first)")
    sp.add_argument("--mdp", dest="mdp_id", default=None,
                    help="with a project: the id of its model (default: its only model)")
    sp.add_argument("--seed", type=int, default=None,
                    help="with a project: seeded experiment mode; omit for a release")
    add_record_option(sp, "with a project: record the run in PROJECT, the project MDP, as "
                          "the window does (a run record and the privatisation's ledger "
                          "entry; refused past a budget unless --over-budget); saved "
                          "atomically", reads="mdp")
    add_over_budget_flag(sp)
    sp.add_argument("--k", type=float, required=True,
                    help="k that produced the model (with a project: k to privatise with)")
    sp.add_argument("--beta", type=float, default=0.05,
                    help="beta in (0, 1): the bounds hold with probability 1 - beta "
                         "(default 0.05)")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper", help=ALPHA_HELP)
    sp.add_argument("--method", choices=("greedy", "lp"), default="greedy",
                    help="the inner problem: greedy (exact closed form, default) or lp (the "
                         "papers' LP (P) per row, HiGHS: the cross-check)")
    _add_policy_flags(sp, "bound")
    sp.add_argument("--synthesis", choices=("induction", "lp"), default="induction",
                    help="with a project: synthesise the greedy π̄ on the private model by "
                         "induction (default) or the occupancy-measure LP (HiGHS), which runs "
                         "induction beside it and reports synthesis_check (the window's π̄ "
                         "row 'optimum by the LP')")
    _add_privacy_flags(sp, defaults=False)
    common(sp)

    sp = sub.add_parser("sweep", help="the Figure 2.1 experiment over a list of k")
    sp.add_argument("mdp", metavar="MDP", help="the true model (*.mdp.json|npz), or a project "
                    "(*.privplan.json) with --mdp naming one of its models")
    sp.add_argument("--mdp", dest="mdp_id", default=None,
                    help="the id of the model in the project MDP (default: its only model)")
    add_record_option(sp, "record the run in PROJECT, the project MDP, as the window does: a "
                          "run record and one ledger entry per k (seeded experiments: listed, "
                          "not spent); the project file is saved atomically", reads="mdp")
    add_over_budget_flag(sp)
    sp.add_argument("--k", required=True, help="comma-separated k values, e.g. 10,100,1000")
    sp.add_argument("--runs", type=int, default=50, help="privatisations per k (default 50)")
    sp.add_argument("--beta", type=float, default=0.05,
                    help="beta in (0, 1): the bounds hold with probability 1 - beta "
                         "(default 0.05)")
    sp.add_argument("--alpha", choices=("paper", "rigorous"), default="paper", help=ALPHA_HELP)
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (drawn from the OS and reported if omitted)")
    sp.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    add_scheduler_flag(sp)
    sp.add_argument("--zeros", choices=("support", "smoothing"), default="support",
                    help=ZEROS_HELP)
    _add_policy_flags(sp, "in every run, evaluate")
    _add_privacy_flags(sp)
    common(sp)
