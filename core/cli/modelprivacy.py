"""The ``mia`` subcommand: a membership-inference study of a trained model and its defense.

``--attack shadow`` (default) is the single-victim shadow-model study (Shokri et al., the
RNN paper's protocol; its JSON keys are ``core.modelprivacy.study.mia_json_keys``).
``--attack lira|loss|all`` run the population study of :mod:`core.modelprivacy.attacks`:
``--models M`` victims on random halves of a population, LiRA online and offline (``lira``),
the loss-threshold attack (``loss``) or every attack including the shadow-model one on the
same victims (``all``); keys ``core.modelprivacy.attacks.attack_json_keys``.
``--attack canary`` is the one-run canary audit of :mod:`core.modelprivacy.canary`
(``--canaries M``): ε_lb beside the accountant's ε. The README documents every key.
Every attack runs on the numpy victims (``--victim ffnn|rnn``) and on the JAX networks of the
optional ``deep`` extra (``--model mlp|cnn|gru|lstm``, through :mod:`core.cli.deep`) with the
same JSON keys.
"""

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

__all__ = ["cmd_mia", "add_mia_parser"]

_FLAGS = {"victim": "--victim", "model": "--model", "defense": "--defense", "epsilon": "--epsilon",
          "delta": "--delta", "shadows": "--shadows", "train_size": "--train-size",
          "epochs": "--epochs", "hidden": "--hidden", "batch": "--batch", "lr": "--lr",
          "clip": "--clip", "sensitivity_samples": "--sensitivity-samples",
          "granularity": "--granularity", "preset": "--preset", "data": "--data",
          "samples": "--sensitivity-samples", "seed": "--seed", "k": "--k", "b": "--b",
          "attack": "--attack", "models": "--models", "canaries": "--canaries",
          "compare": "--compare"}


def cmd_mia(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``mia``: the flags make one :class:`~core.modelprivacy.release.MiaParameters`,
    :func:`~core.modelprivacy.release.mia_release` runs it and
    :func:`~core.project.recording.mia_run_record` records the shadow study (``--record``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        0 on success; bad input raises :class:`~core.common.errors.InputError` (exit 2).
    """
    from core.modelprivacy.release import mia_release

    if getattr(args, "compare", None) is not None:
        return _cmd_mia_compare(args, out, err)
    shadow = args.attack == "shadow"
    if args.record and not shadow:
        raise InputError("--record keeps the shadow-model study (--attack shadow); the "
                         "population study and the canary audit train many models and "
                         "release none of them", field="--record")
    victim, networks, network_kind = _victim_flags(args)
    project = record_project(args.record)
    try:
        params = _mia_parameters(args, victim)
        res: Any = mia_release(params, Progress(err, "mia"), networks=networks,
                               network_kind=network_kind)
    except InputError as exc:
        raise flag_error(exc, _FLAGS) from None
    payload = res.to_json()
    if not shadow:
        text = _canary_text if args.attack == "canary" else _population_text
        emit(args, payload, lambda: text(res, payload["mode"]), out)
        return 0
    if project is not None:
        from core.project.recording import mia_run_record

        record, entries = mia_run_record(project, res, params)
        record, stored = record_checked(args.record, project, record, entries, args, err)
        payload["recorded"] = {"project": args.record, "run": record.id,
                               "ledger_entries": [e.id for e in stored]}
    emit(args, payload, lambda: _study_text(res, payload), out)
    return 0


def _mia_parameters(args: argparse.Namespace, victim: str) -> Any:
    """The :class:`~core.modelprivacy.release.MiaParameters` of the flags (``victim`` from
    :func:`_victim_flags`)."""
    from core.modelprivacy.release import MiaParameters

    return MiaParameters(
        data=args.data, attack=args.attack, victim=victim, defense=args.defense,
        epsilon=args.epsilon, delta=args.delta, shadows=args.shadows,
        train_size=args.train_size, hidden=args.hidden, epochs=args.epochs,
        batch=args.batch, lr=args.lr, clip=args.clip,
        sensitivity_samples=args.sensitivity_samples, preset=args.preset, k=args.k,
        b=args.b, models=args.models, canaries=args.canaries, seed=args.seed)


def _cmd_mia_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``mia --compare defenses|victims``: the flags make one
    :class:`~core.modelprivacy.release.MiaCompareParameters` (the study's flags, as for one
    study), :func:`~core.modelprivacy.release.mia_compare_release` runs every row and
    :func:`~core.project.recording.mia_compare_run_record` records them (``--record``), as
    the Model privacy tab's Compare defenses / Compare victims do."""
    from core.modelprivacy.records import TABLE_COLUMNS, table_cells, table_summary
    from core.modelprivacy.release import MiaCompareParameters, mia_compare_release

    victim, networks, _kind = _victim_flags(args)
    project = record_project(args.record)
    try:
        params = MiaCompareParameters(_mia_parameters(args, victim), args.compare)
        rows = mia_compare_release(params, Progress(err, "mia"), networks=networks)
    except InputError as exc:
        raise flag_error(exc, _FLAGS) from None
    payload = table_summary(rows)
    if project is not None:
        from core.project.recording import mia_compare_run_record

        record, entries = mia_compare_run_record(project, rows, params)
        record, stored = record_checked(args.record, project, record, entries, args, err)
        payload["recorded"] = {"project": args.record, "run": record.id,
                               "ledger_entries": [e.id for e in stored]}

    def text() -> str:
        cells = [TABLE_COLUMNS[:-2]] + [c[:-2] for c in table_cells(payload["rows"])]
        widths = [max(len(r[j]) for r in cells) for j in range(len(cells[0]))]
        lines = [f"membership inference, {args.compare} compared on {payload['data']} "
                 f"({len(rows)} studies on one split)"]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
        lines.append(mode_line(params.study.seed))
        if "recorded" in payload:
            r = payload["recorded"]
            lines.append(f"recorded in {r['project']} as {r['run']} with ledger entries "
                         + ", ".join(r["ledger_entries"]))
        return "\n".join(lines)

    emit(args, payload, text, out)
    return 0


def _victim_flags(args: argparse.Namespace) -> tuple[str, Any, Any]:
    """The victim (``--victim``, default ffnn, or the network of ``--model``) and, for a
    network, the factories of the ``deep`` extra (exit 2 naming the extra without JAX)."""
    if args.model is None:
        return args.victim or "ffnn", None, None
    if args.victim is not None:
        kinds = "ffnn, rnn or tabular" if args.attack == "shadow" else "ffnn or rnn"
        raise InputError(f"give --victim (numpy {kinds}) or --model (a network on JAX), "
                         "not both", field="--model")
    from core.cli.deep import mia_network_kind, mia_networks

    return args.model, mia_networks(), mia_network_kind


def _study_text(res: Any, payload: dict[str, Any]) -> str:
    """The text report of a shadow-model study."""
    from core.modelprivacy.metrics import tpr_at_fpr_items

    f = _opt
    lines = [f"membership inference: {res.victim} victim on {res.data}, defense "
             f"{res.defense}; {res.members} members / {res.members} non-members, "
             f"{res.shadows} shadow models",
             f"train accuracy {res.train_accuracy:.3f}   test accuracy "
             f"{res.test_accuracy:.3f}   generalisation gap {res.generalisation_gap:.3f}",
             f"attack accuracy {res.attack_accuracy:.3f} (chance 0.5)   AUC {res.auc:.3f}   "
             + "   ".join(f"TPR@FPR {k}: {v}" for k, v in tpr_at_fpr_items(payload)),
             f"epsilon_lb {res.epsilon_lb:.3f} (indicative)   entropy gap "
             f"{res.entropy_gap:.3f}   inversion error {res.inversion_error:.4f}"]
    if res.distortion is not None:
        lines.append(f"distortion (l2) {res.distortion:.3f}   attack accuracy, defense "
                     f"hidden: {res.extra['attack_accuracy_hidden']:.3f}")
    if res.epsilon is None:
        lines.append(f"epsilon: unbounded ({res.epsilon_reason})")
    else:
        lines.append(f"epsilon {res.epsilon:.4g}   delta {res.delta:g}   accuracy cap "
                     f"{f(res.accuracy_cap)}"
                     + ("" if res.accuracy_cap is not None else f" ({res.cap_reason})"))
    lines.append(f"guarantee: {res.guarantee}")
    lines.append(mode_line(res.seed))
    if "recorded" in payload:
        r = payload["recorded"]
        lines.append(f"recorded in {r['project']} as {r['run']} with ledger entries "
                     + ", ".join(r["ledger_entries"]))
    return "\n".join(lines + [f"note: {n}" for n in res.notes])


def _opt(x: Any, spec: str = ".3f") -> str:
    return "n/a" if x is None else format(x, spec)


def _canary_text(res: Any, mode: str) -> str:
    """The text report of a canary audit."""
    lines = [f"canary audit: {res.kind.get('name')} on {res.data}; {res.canaries} "
             f"canaries ({res.inserted} inserted), {res.members} members",
             f"epsilon_lb {res.epsilon_lb:.3f} (95 %, {res.correct} of {res.guesses} "
             f"guesses correct)   accountant's epsilon "
             f"{_opt(res.epsilon, '.4g') if res.epsilon is not None else 'unbounded'}",
             "mode: " + mode + f" (seed {res.seed})"]
    return "\n".join(lines + [f"note: {n}" for n in res.notes])


def _population_text(res: Any, mode: str) -> str:
    """The text report of a population study: each attack's AUC, accuracy and TPRs."""
    lines = [f"membership inference, population study: {res.kind.get('name')} on "
             f"{res.data}; {res.models} victims of {res.train_size} members / "
             f"{res.train_size} non-members each",
             f"train accuracy {res.train_accuracy.median:.3f}   test accuracy "
             f"{res.test_accuracy.median:.3f}   generalisation gap "
             f"{res.generalisation_gap.median:.3f} (medians over victims)"]
    for name, m in res.attacks.items():
        tprs = [f"TPR@{t['fpr_target']:g} {t['tpr']:.4f} [{t['tpr_lo']:.4f}, {t['tpr_hi']:.4f}]"
                if t["resolved"] else f"TPR@{t['fpr_target']:g} not resolved" for t in m.tpr]
        lines.append(f"{name:<13} AUC {m.auc.median:.3f} [{_opt(m.auc.median_lo)}, "
                     f"{_opt(m.auc.median_hi)}]   accuracy {m.accuracy.median:.3f}   "
                     + "   ".join(tprs))
    if res.privacy is not None:
        lines.append(f"epsilon {res.privacy[0]:.4g}   delta {res.privacy[1]:g}   "
                     f"accuracy cap {res.accuracy_cap:.3f}")
    else:
        lines.append("epsilon: unbounded (no DP defense)")
    lines.append(f"guarantee: {res.guarantee}")
    lines.append("mode: " + mode + f" (seed {res.seed})")
    return "\n".join(lines + [f"note: {n}" for n in res.notes])


def add_mia_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``mia`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds ``--json`` to a new subparser.
    """
    sp = sub.add_parser("mia", help="membership-inference study of a trained model, with "
                                    "DP-SGD, GPM or the one-parameter defense")
    sp.add_argument("--data", required=True,
                    help="digits | breast-cancer | wine | text (synthetic language "
                         "identification) | a CSV file (numeric features, the label last) | "
                         "mdp:FILE (next-state records from random trajectories)")
    sp.add_argument("--victim", choices=("ffnn", "rnn", "tabular"), default=None,
                    help="numpy victims (default ffnn): feed-forward network, Elman recurrent "
                         "network, or the MLE model of an MDP (tabular; needs mdp:FILE)")
    sp.add_argument("--model", choices=("mlp", "cnn", "gru", "lstm"), default=None,
                    help="a network victim on JAX (the optional 'deep' extra): MLP (2 hidden "
                         "layers), CNN on the record's 2-D view, GRU or LSTM over its steps; "
                         "every --attack runs on it")
    sp.add_argument("--defense", choices=("none", "dpsgd", "gpm", "oneparam", "dirichlet"),
                    default="none",
                    help="none; dpsgd (DP-SGD, dp-accounting RDP); gpm (Gaussian noise on the "
                         "trained parameters, empirical sensitivity: random DP); oneparam "
                         "(Shen's one-parameter defense of released confidence vectors); "
                         "dirichlet (tabular victim: Dirichlet privatisation of the MLE rows "
                         "before value iteration)")
    sp.add_argument("--epsilon", type=float, default=None,
                    help="dpsgd/gpm: the target epsilon; oneparam: the defense's parameter "
                         "(a vector of k classes costs k*epsilon). Default 1")
    sp.add_argument("--delta", type=float, default=None,
                    help="dpsgd/gpm: target delta (default 1e-5); dirichlet: delta per row "
                         "(default 0.05)")
    sp.add_argument("--attack", choices=("shadow", "lira", "loss", "all", "canary"),
                    default="shadow",
                    help="shadow (default): the single-victim shadow-model study; lira: LiRA "
                         "online and offline, loss: the loss-threshold attack, all: every "
                         "attack (and the shadow model) on the same victims — the population "
                         "study of --models victims; canary: the one-run canary audit "
                         "(epsilon_lb beside the accountant's epsilon)")
    sp.add_argument("--models", type=int, default=16,
                    help="lira/loss/all: victims, each on a random half of a population of "
                         "2 x --train-size records; the others are its reference models "
                         "(default 16; online LiRA needs 4)")
    sp.add_argument("--canaries", type=int, default=500,
                    help="canary: mislabelled records each inserted with probability 1/2 "
                         "(default 500)")
    sp.add_argument("--shadows", type=int, default=4, help="shadow models (default 4)")
    sp.add_argument("--train-size", type=int, default=None,
                    help="the victim's training records (default: an eighth of the data, "
                         "at most 500)")
    sp.add_argument("--epochs", type=int, default=60, help="training epochs without DP-SGD")
    sp.add_argument("--hidden", type=int, default=32, help="hidden units")
    sp.add_argument("--batch", type=int, default=32, help="batch size without DP-SGD")
    sp.add_argument("--lr", type=float, default=None, help="learning rate")
    sp.add_argument("--clip", type=float, default=1.0, help="DP-SGD clip norm C")
    sp.add_argument("--sensitivity-samples", type=int, default=500,
                    help="gpm: replace-one pairs of the SensitivitySampler; the default 500 is "
                         "the paper's n, gamma(500) = 0.077 (1000 trainings: minutes)")
    sp.add_argument("--k", type=float, default=50.0,
                    help="dirichlet: concentration k (larger: more accurate, less private)")
    sp.add_argument("--b", type=float, default=0.1,
                    help="dirichlet: L1 radius of neighbouring rows (default 0.1)")
    sp.add_argument("--preset", choices=("sound", "thesis"), default="sound",
                    help="oneparam utility: sound -|y - c| (default) or thesis 1/|y - c| "
                         "(unbounded: not formally DP)")
    sp.add_argument("--seed", type=int, default=None,
                    help="experiment seed (default: release mode, secure noise)")
    sp.add_argument("--compare", choices=("defenses", "victims"), default=None,
                    help="a comparison of shadow-model studies on one split and seed (the "
                         "Model privacy tab's Compare buttons): defenses: no defense and "
                         "each defense at several epsilon (give no --defense); victims: the "
                         "study's --defense for ffnn and rnn (and the --model network)")
    add_record_flag(sp, "study")
    common(sp)
