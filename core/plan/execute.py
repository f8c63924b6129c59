"""Execute a plan: its releases recorded, in order, in a project's ledger against the plan.

Execution charges the dataset's ledger with one entry per planned release (its own (ε, δ) at
its δ, its public parameters, ``plan`` and ``release`` naming where it comes from,
:func:`plan_entries`) and adds one run record of kind ``"privacy-plan"`` (:data:`RUN_KIND`;
a logistics route plan is ``"plan"``) holding the plan and its evaluation, so the report can
set what was planned beside what was spent. Everything is checked before anything is written:

* the plan must be feasible (else the release that breaks the budget is named);
* every ``mdp`` release must name a model of the project, a model file or an example;
* a plan of the same name already executed in the project is refused — identical, it would
  spend twice; different, the release that deviates is named (edit the plan: give it a new
  name to plan a new study) (:func:`plan_problems`);
* the project's own budget for the dataset (if any) must hold, checked under the project's
  lock against the ledger as it is then.

**What is run.** An ``mdp`` release whose ``mdp`` names a model of the project is executed
(:func:`run_releases`): the model is privatised at the planned (k, η, b, δ, adjacency) in
release mode (the secure source) by :func:`core.mdp.private_policy.bounds_release`, the entry
point of ``bounds`` and the window's Synthesise & bound, and its π̄ and value bounds go into
the plan's run record (``summary.executed[NAME]``); its proven ε must equal the planned one,
else the execution is refused as a deviation. The other kinds (and an ``mdp`` release naming
an example or a file, which is not project data) record their planned cost: their mechanisms
run in their own commands.

The action itself — its parameters, its entry point and its writer (the merging writer,
:func:`core.project.store.record_and_save`: all of the run and its entries or, on any
refusal, none) — is :mod:`core.plan.release`; the run record is built by
:func:`core.project.recording.plan_execution_run_record`. :func:`record_plan_problems`
checks another command's ``--record`` against the plans executed on its datasets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.common.errors import InputError
from core.privacy.ledger import LedgerEntry

__all__ = ["plan_entries", "plan_problems", "MECHANISMS", "run_releases",
           "record_plan_problems", "RUN_KIND"]

#: The run kind of an executed privacy plan (a logistics route plan's runs are ``"plan"``).
RUN_KIND = "privacy-plan"

#: The ledger mechanism of each release kind.
MECHANISMS = {"laplace": "laplace", "gaussian": "gaussian", "dpsgd": "dp-sgd",
              "mdp": "dirichlet", "logistics": "logistics", "advising": "advising",
              "sharing": "policy-sharing"}


def plan_name(budget: Any) -> str:
    name: str = budget.plan.name or budget.plan.dataset
    return name


def plan_entries(budget: Any, *, run_id: str, mode: str = "release") -> list[LedgerEntry]:
    """One ledger entry per release of an evaluated, feasible plan.

    Parameters
    ----------
    budget : PlanBudget
        The evaluated plan (:func:`core.plan.budget.evaluate_plan`).
    run_id : str
        The run that records them.
    mode : str
        ``"release"`` (spent) or ``"experiment"``.

    Returns
    -------
    list of LedgerEntry
    """
    from core.plan.budget import adjacency_of

    name = plan_name(budget)
    out = []
    for rb in budget.releases:
        r = rb.release
        eps = rb.epsilon
        params = {k: v for k, v in r.params.items() if v is not None}
        params.update(plan=name, release=r.name, kind=r.kind)
        out.append(LedgerEntry(
            id="", dataset=budget.plan.dataset, mechanism=MECHANISMS[r.kind],
            epsilon=eps, delta=rb.delta, parameters=params, adjacency=adjacency_of(r),
            released=f"planned release {r.name!r} of plan {name!r}", mode=mode,
            source=run_id, reason="" if math.isfinite(eps) else "no finite epsilon"))
    return out


def plan_problems(ledger: Sequence[LedgerEntry], budget: Any) -> list[str]:
    """Why the plan may not be executed against ``ledger`` (empty when it may).

    Parameters
    ----------
    ledger : sequence of LedgerEntry
        The project's ledger as it is now.
    budget : PlanBudget
        The evaluated plan.

    Returns
    -------
    list of str
    """
    name = plan_name(budget)
    done = {e.parameters.get("release"): e for e in ledger
            if e.dataset == budget.plan.dataset and e.parameters.get("plan") == name}
    if not done:
        return []
    for rb in budget.releases:
        e = done.get(rb.release.name)
        want = {k: v for k, v in rb.release.params.items() if v is not None}
        got = {k: v for k, v in e.parameters.items()
               if k not in ("plan", "release", "kind", "executed")} if e is not None else None
        if e is not None and got != want:
            return [f"release {rb.release.name!r} deviates from plan {name!r} as executed "
                    f"({e.id}); edit the plan (a new name) to change it"]
    return [f"plan {name!r} was already executed in this project ({len(done)} release(s) "
            "recorded); executing it again would spend its budget twice"]


def run_releases(project: Any, budget: Any, *, progress: Any = None
                 ) -> dict[str, Any]:
    """Run what can be run: each ``mdp`` release on the project's own model (module docstring).

    Parameters
    ----------
    project : Project
        The project whose models the releases name.
    budget : PlanBudget
        The evaluated, feasible plan.
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    dict
        Release name -> :class:`core.mdp.private_policy.BoundsRelease`.

    Raises
    ------
    InputError
        A privatisation whose proven ε differs from the planned one (a deviation).
    """
    from core.common.progress import no_progress
    from core.mdp.private_policy import bounds_release
    from core.mdp.records import BoundsParameters

    progress = progress or no_progress
    out: dict[str, Any] = {}
    ids = {e.id for e in project.mdps}
    todo = [rb for rb in budget.releases
            if rb.release.kind == "mdp" and rb.release.params["mdp"] in ids]
    for i, rb in enumerate(todo):
        p, name = rb.release.params, rb.release.name
        progress(i / max(len(todo), 1), f"privatising {p['mdp']} for {name}")
        params = BoundsParameters(k=float(p["k"]), beta=float(p["beta"]), eta=p["eta"],
                                  b=float(p["b"]), delta_target=rb.delta,
                                  adjacency=p["adjacency"], domain_rule="mix", seeded=False,
                                  release=True)
        entry = project.entry(p["mdp"])
        rel = bounds_release(entry.mdp, params, digest_key=entry.model.digest_key())
        got = float(rel.privacy.epsilon)
        if not (math.isclose(got, rb.epsilon, rel_tol=1e-9, abs_tol=1e-12)
                or (math.isinf(got) and math.isinf(rb.epsilon))):
            raise InputError(f"the privatisation of {p['mdp']!r} proves epsilon {got:.6g}, "
                             f"not the planned {rb.epsilon:.6g}: it would deviate from the "
                             "plan; nothing was recorded", field=f"releases[{name}]")
        out[name] = rel
    progress(1.0, "releases run")
    return out


def record_plan_problems(ledger: Sequence[LedgerEntry], entries: Sequence[LedgerEntry]
                         ) -> list[str]:
    """Why ``entries`` (another command's ``--record``) deviate from an executed plan.

    A dataset whose ledger holds an executed plan's releases (``parameters.plan``) is spent
    as that plan says: a new release on it that is not one of the plan's is a deviation.
    Seeded experiments are not spent and pass.

    Parameters
    ----------
    ledger : sequence of LedgerEntry
        The project's ledger as it is now.
    entries : sequence of LedgerEntry
        The releases about to be recorded.

    Returns
    -------
    list of str
        One line per deviating dataset (empty when none).

    Examples
    --------
    >>> e = LedgerEntry(id="l1", dataset="s", mechanism="laplace", epsilon=0.5, delta=0.0,
    ...                 parameters={"plan": "p", "release": "a"})
    >>> new = LedgerEntry(id="", dataset="s", mechanism="laplace", epsilon=0.1, delta=0.0)
    >>> record_plan_problems([e], [new])[0][:40]
    "dataset 's' is spent by the executed pla"
    """
    plans: dict[str, set[str]] = {}
    for e in ledger:
        if e.parameters.get("plan"):
            plans.setdefault(e.dataset, set()).add(str(e.parameters["plan"]))
    out = []
    for ds in sorted({e.dataset for e in entries if e.mode == "release"} & set(plans)):
        if any(e.dataset == ds and e.mode == "release" and
               str(e.parameters.get("plan")) not in plans[ds] for e in entries):
            names = ", ".join(sorted(plans[ds]))
            out.append(f"dataset {ds!r} is spent by the executed plan(s) {names}: a release "
                       "outside the plan deviates from it (add it to a new plan, or record "
                       "with --over-budget)")
    return out
