"""``budget PLAN.json|PROJECT --plan NAME [--allocate …] [--estimate] [--execute PROJECT]``.

Budget a whole study before the first release (``docs/privacy-plan.md``): the plan's composed
(ε, δ) by privacy-loss distributions beside basic composition, each release's own (ε, δ) and
forecast, what is left, and feasibility — exit 2 naming the release that breaks the budget,
before anything runs. ``--allocate`` sets the releases' parameters first (public: it reads
no private data). ``--execute PROJECT`` records the plan's releases in the project's ledger
against the plan, through the merging writer; nothing is recorded if any check fails.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from typing import Any, TextIO

from core.cli.common import Progress, emit
from core.common.errors import InputError

__all__ = ["cmd_budget", "add_budget_parser"]


def _text(res: Any, payload: dict[str, Any]) -> str:
    def f(x: float) -> str:
        return f"{x:.4g}" if math.isfinite(x) else "unbounded"

    p = res.plan
    lines = [f"plan {p.name or '(unnamed)'} on dataset {p.dataset}: budget (epsilon, delta) = "
             f"({p.epsilon:g}, {p.delta:g})"]
    if res.allocation:
        lines.append(f"allocated by {res.allocation} (public: reads no private data)")
    lines.append(f"{'release':<16}{'kind':<10}{'epsilon':>10}{'delta':>11}  forecast")
    for rb in res.releases:
        fc = rb.forecast
        what = (f"{fc.metric} = {fc.value:.4g}" if fc.value is not None else
                f"none ({fc.reason})")
        lines.append(f"{rb.release.name:<16}{rb.release.kind:<10}{f(rb.epsilon):>10}"
                     f"{rb.delta:>11.3g}  {what}")
    lines.append(f"composed (PLD): ({f(res.composed_epsilon)}, {res.composed_delta:g}); basic: "
                 f"({f(res.basic_epsilon)}, {res.basic_delta:.3g}); left: epsilon "
                 f"{f(res.remaining_epsilon)}")
    lines.append("feasible" if res.feasible else
                 f"INFEASIBLE: {res.reason} (release {res.breaking!r})")
    lines += list(res.notes)
    if "executed" in payload:
        ex = payload["executed"]
        lines.append(f"executed: {ex['ledger_entries']} release(s) recorded in "
                     f"{ex['project']} as {ex['run']}")
    return "\n".join(lines)


def cmd_budget(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``budget``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    out, err : TextIO
        Standard output (the result) and standard error (progress).

    Returns
    -------
    int
        0 on success; bad input or an infeasible plan raises :class:`InputError` (exit 2).
    """
    from core.plan import (
        PlanExecutionParameters,
        load_plan,
        plan_budget,
        project_plan,
        resolve_models,
    )

    source = None
    if args.plan_name:
        source = _project(args.plan, "plan")
        plan = project_plan(source, args.plan_name)
    else:
        plan = load_plan(args.plan)
    if not plan.name:
        from dataclasses import replace

        base = os.path.basename(args.plan)
        plan = replace(plan, name=base.split(".plan.json")[0].split(".json")[0])
    params = PlanExecutionParameters(plan, allocate=args.allocate, estimates=args.estimate,
                                     over_budget=args.over_budget)
    project = _project(args.execute) if args.execute else None
    models = resolve_models(plan, project=project or source,
                            base_dir=os.path.dirname(os.path.abspath(args.plan)))
    progress = Progress(err, "budget")
    if args.execute:
        return _execute(args, params, project, models, progress, out)
    res = plan_budget(params, models, progress=progress)
    payload = res.to_dict()
    if not res.feasible:
        from core.plan import InfeasiblePlan

        refusal = InfeasiblePlan(res)
        if not args.json:  # --json: one JSON object, the evaluation beside the error
            emit(args, payload, lambda: _text(res, payload), out)
        raise refusal
    emit(args, payload, lambda: _text(res, payload), out)
    return 0


def _execute(args: argparse.Namespace, params: Any, project: Any, models: Any,
             progress: Progress, out: TextIO) -> int:
    """``--execute PROJECT``: the plan executed (:func:`core.plan.plan_execution_release`),
    its run recorded (:func:`core.project.recording.plan_execution_run_record`) and appended
    to the project file (:func:`core.plan.save_plan_execution`)."""
    from core.plan import InfeasiblePlan, plan_execution_release, save_plan_execution
    from core.project.recording import plan_execution_run_record

    try:
        result = plan_execution_release(params, progress, project=project, models=models)
    except InfeasiblePlan as exc:
        if not args.json:  # --json: one JSON object, the evaluation beside the error
            shown, partial = exc.budget, exc.partial or {}
            emit(args, partial, lambda: _text(shown, partial), out)
        raise
    record, entries = plan_execution_run_record(project, result, params)
    record, stored = save_plan_execution(args.execute, project, params, result, record,
                                         entries)
    res = result.budget
    payload = res.to_dict()
    payload["executed"] = {"project": args.execute, "run": record.id,
                           "ledger_entries": len(stored),
                           "entries": [e.id for e in stored],
                           "run_releases": sorted(record.summary.get("executed", {}))}
    emit(args, payload, lambda: _text(res, payload), out)
    return 0


def _project(path: str, field: str = "--execute") -> Any:
    from core.project.files import load_project

    try:
        return load_project(path)
    except InputError as exc:
        raise InputError(exc.problem, field=field, file=exc.file or path) from None


def add_budget_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``budget`` to the subparsers ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``privplan`` parser.
    common : callable
        Adds ``--json``.
    """
    sp = sub.add_parser(
        "budget", help="a privacy plan: budget a whole study before the first release",
        description="Compose a plan's releases (privacy-loss distributions beside basic "
                    "composition), forecast each from public inputs, and say whether the "
                    "plan fits its budget (exit 2 naming the release that breaks it). "
                    "--allocate sets the releases' parameters (public, free); --execute "
                    "records the releases in a project's ledger against the plan.")
    sp.add_argument("plan", metavar="PLAN",
                    help="*.plan.json (docs/formats-and-cli.md §6), or a project with --plan")
    sp.add_argument("--plan", dest="plan_name", metavar="NAME", default=None,
                    help="read the plan NAME from the project PLAN's plans section")
    sp.add_argument("--allocate", choices=("weights", "optimise"), default=None,
                    help="weights: split the budget by the releases' weights; optimise: "
                         "maximise the weighted forecast utility")
    sp.add_argument("--estimate", action="store_true",
                    help="also forecast the logistics, advising and sharing releases by small "
                         "seeded simulations on public stand-ins (a second or more each)")
    sp.add_argument("--execute", metavar="PROJECT", default=None,
                    help="record the plan's releases in this project's ledger")
    sp.add_argument("--over-budget", action="store_true",
                    help="with --execute: record even past the project's own budget for the "
                         "dataset")
    common(sp)
