"""Recording a run in a project, the same way from the window and from the command line.

Size: one record function per user action (eleven) and the two comparison tables, short and
alike; kept in one module because the one-entry-point check
(``tests/core/common/test_actions_pattern.py``) finds every action's record here, and a run
record built anywhere else fails it.

A run is one :class:`core.project.model.RunRecord` plus the privacy-ledger entries of what it
privatised or released; :func:`record_run` appends both, the entries with fresh project
ids (``rel-N``). The GUI does the same through its undoable
:class:`gui.shell.commands.AddRunCommand`; the command line through ``--record``.

Examples
--------
>>> from core.mdp.examples import four_startups
>>> from core.mdp.records import SweepParameters
>>> from core.mdp.sweep import privacy_sweep
>>> from core.project.model import Project
>>> p = Project(); mdp_id = p.add_mdp(four_startups(), "startups")
>>> res = privacy_sweep(four_startups(), [10.0, 100.0], runs=2, seed=1, workers=1)
>>> params = SweepParameters(ks=(10.0, 100.0), runs=2, beta=0.05, alpha_mode="paper",
...                          seeded=True, seed=1, workers=1)
>>> rec, entries = record_sweep_run(p, mdp_id, params, res)
>>> rec.kind, rec.target, [e.id for e in entries], len(p.ledger)
('sweep', 'startups', ['rel-1', 'rel-2'], 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.advising.records import (
    RUN_TARGET as ADVISING_TARGET,
)
from core.advising.records import (
    rounded_json,
    single_ledger_entries,
    single_params,
    single_summary,
)
from core.advising.release import AdviseParameters
from core.audit.records import RUN_KIND as AUDIT_KIND
from core.audit.records import AuditParameters, audit_params, audit_summary
from core.logistics.records import PLAN_KIND, plan_ledger_entries, plan_params, plan_summary
from core.mdp.records import (
    SweepParameters,
    bounds_entries,
    bounds_summary,
    sweep_entries,
    sweep_summary,
)
from core.modelprivacy.records import RUN_KIND as MIA_KIND
from core.modelprivacy.records import TABLE_KIND as MIA_TABLE_KIND
from core.modelprivacy.records import (
    mia_entries,
    mia_params,
    mia_summary,
    table_entries,
    table_summary,
)
from core.privacy.ledger import LedgerEntry, PrivacyLedger
from core.project.model import Project, RunRecord
from core.sharing.records import RUN_KIND as SHARING_KIND
from core.sharing.records import SharingParameters, sharing_entries, sharing_summary

__all__ = ["record_run", "sweep_run_record", "record_sweep_run", "bounds_run_record",
           "audit_run_record", "design_run_record",
           "plan_run_record", "advise_run_record", "sharing_run_record",
           "mia_run_record", "mia_compare_run_record", "drl_run_record", "comarl_run_record",
           "drl_table_run_record", "advise_bench_run_record", "plan_execution_run_record",
           "bench_run_record", "packet_run_record"]


def record_run(project: Project, record: RunRecord, entries: Sequence[LedgerEntry] = ()
               ) -> list[LedgerEntry]:
    """Append ``record`` and its ledger ``entries`` (with fresh project ids) to ``project``.

    Parameters
    ----------
    project : Project
        The project (changed in place).
    record : RunRecord
        The run; its id must be new (:meth:`Project.new_run_id`).
    entries : sequence of LedgerEntry
        What the run privatised or released (unbounded ones included).

    Returns
    -------
    list of LedgerEntry
        The entries as stored, with their project ids.
    """
    led = PrivacyLedger.from_project(project)
    stored = led.extend(list(entries))
    project.runs.append(record)
    project.ledger.extend(stored)
    return stored


def sweep_run_record(project: Project, mdp_id: str, params: SweepParameters, result: Any
                     ) -> RunRecord:
    """The run record of a privacy sweep (kind ``"sweep"``) on the project's MDP ``mdp_id``.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    mdp_id : str
        The MDP it ran on.
    params : SweepParameters
        What was asked.
    result : SweepResult
        What came out.

    Returns
    -------
    RunRecord
        Not yet added to the project.
    """
    return RunRecord(id=project.new_run_id(), kind="sweep", target=mdp_id,
                     params=params.to_dict(), summary=sweep_summary(result),
                     mode=result.mode, seed=result.seed)


def record_sweep_run(project: Project, mdp_id: str, params: SweepParameters, result: Any
                     ) -> tuple[RunRecord, list[LedgerEntry]]:
    """Record a sweep and its privatisations (one experiment entry per k) in ``project``.

    Parameters
    ----------
    project : Project
        The project (changed in place).
    mdp_id : str
        The MDP it ran on.
    params : SweepParameters
        What was asked.
    result : SweepResult
        What came out.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        The record and the stored ledger entries.
    """
    record = sweep_run_record(project, mdp_id, params, result)
    entries = sweep_entries(mdp_id, result, source=record.id)
    return record, record_run(project, record, entries)


def bounds_run_record(project: Project, mdp_id: str, release: Any
                      ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a "Synthesise & bound" (kind ``"bounds"``) and its ledger entry.

    The record keeps the parameters (with the model's digest and the seed actually used),
    π̄ and its values per state (:func:`core.mdp.records.bounds_summary`, with the ids of
    the states and of π̄'s actions) and the privatisation's whole guarantee; the entry is
    that privatisation (:func:`core.mdp.records.bounds_entries`). The window and
    ``bounds PROJECT --mdp ID --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    mdp_id : str
        The MDP it ran on.
    release : BoundsRelease
        :func:`core.mdp.private_policy.bounds_release`.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Neither added yet: pass both to :func:`record_run` (or the GUI's AddRunCommand).
    """
    from core.common.jsonable import jsonable

    if release.digest is None or not release.state_ids:
        raise ValueError("a recorded bounds run needs the model's digest and ids: make the "
                         "release with bounds_release(..., digest_key=model.digest_key())")
    result = release.result
    params = dict(release.params.record_params(), model_digest=release.digest)
    if params.get("seed") is None:
        params["seed"] = result.seed  # the fresh OS seed, recorded (None for a release)
    summary = bounds_summary(result, list(release.state_ids),
                             [list(a) for a in release.action_ids])
    summary["privacy"] = jsonable(release.privacy.guarantee())  # stated whole
    record = RunRecord(id=project.new_run_id(), kind="bounds", target=mdp_id, params=params,
                       summary=summary, mode=result.mode, seed=result.seed)
    return record, bounds_entries(mdp_id, release, source=record.id)


def audit_run_record(project: Project, result: Any, params: AuditParameters) -> RunRecord:
    """The run record of an audit (kind ``"audit"``, target the mechanism).

    An audit is an experiment on inputs it builds itself: it releases nothing about the
    project's data, so it has no ledger entries. The window and ``audit … --record`` both
    record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : AuditResult
        The audit (:func:`core.audit.run.audit_release` of ``params``).
    params : AuditParameters
        What was asked (its :meth:`~core.audit.records.AuditParameters.record_params`
        are the record's parameters).

    Returns
    -------
    RunRecord
        Not yet added to the project.
    """
    if params.mechanism != result.mechanism:
        raise ValueError(f"a {result.mechanism} audit recorded with {params.mechanism} "
                         "parameters")
    return RunRecord(id=project.new_run_id(), kind=AUDIT_KIND, target=result.mechanism,
                     params=audit_params(result, params), summary=audit_summary(result),
                     mode=result.mode, seed=result.seed)


def plan_run_record(project: Project, result: Any, params: Any, *, map_id: str,
                    map_label: str) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of one planning task (kind ``"plan"``) and its ledger entries.

    The window and ``plan … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : PlanRelease
        :func:`core.logistics.release.plan_release` of ``params``: the outcome and the
        session that planned (its agents' ledgers become project entries, dataset
        ``agent:<name>``).
    params : PlanParameters
        What was asked (:func:`core.logistics.records.plan_params` are the record's
        parameters).
    map_id : str
        The project's id of the map planned on (the run's target).
    map_label : str
        The map's name for lists.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Neither added yet: pass both to :func:`record_run` (or the GUI's AddRunCommand).
    """
    session = result.session
    if (params.approach, params.planner, params.seed) != (
            session.approach, session.params, session.seed):
        raise ValueError("a planning run recorded with parameters other than its own")
    rid = project.new_run_id()
    entries = plan_ledger_entries(session, source=rid)
    summary = plan_summary(result.result, session, map_label=map_label,
                           ledger_entries=len(entries))
    record = RunRecord(id=rid, kind=PLAN_KIND, target=map_id,
                       params=plan_params(params, session, map_id=map_id),
                       summary=summary, mode=session.mode, seed=session.seed)
    return record, entries


def advise_run_record(project: Project, result: Any, params: AdviseParameters
                      ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of one advising run (kind ``"advise"``) and its ledger entries.

    The window's single run and ``advise … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : AdvisingResult
        The run (:func:`core.advising.release.advise_release` of ``params``).
    params : AdviseParameters
        What was asked: its δ (of the advanced and RDP totals) and whether it was seeded
        are recorded with the set-up's parameters.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Neither added yet: pass both to :func:`record_run` (or the GUI's AddRunCommand).
        One entry per teacher (its noisy releases) and one unbounded entry per teacher and
        kind of raw release.
    """
    if params.seeded != (result.mode == "experiment"):
        raise ValueError(f"a {result.mode}-mode advising run recorded with "
                         f"{'seeded' if params.seeded else 'release-mode'} parameters")
    record = RunRecord(id=project.new_run_id(), kind="advise", target=ADVISING_TARGET,
                       params=single_params(result, delta=params.delta, seeded=params.seeded),
                       summary=rounded_json(single_summary(result)), mode=result.mode,
                       seed=result.seed)
    return record, single_ledger_entries(result, source=record.id)


def sharing_run_record(project: Project, result: Any, params: SharingParameters, *,
                       extra: Mapping[str, Any] | None = None
                       ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a policy-sharing run (kind ``"sharing"``, target its environment)
    and the ledger entries of the teacher's demonstrations.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : StudentCurves
        The run (:func:`core.sharing.learning.sharing_release`).
    params : SharingParameters
        What was run; the record keeps :meth:`SharingParameters.to_dict`.
    extra : mapping, optional
        Parameters a variant adds (``share --agent ppo``: the network's; a key already in
        the record takes the variant's value in its place).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added to the project (:func:`record_run` adds both).
    """
    rid = project.new_run_id()
    kept = params.to_dict()
    kept.update(extra or {})
    env = params.env
    target = env[4:] if env.startswith("mdp:") else env
    record = RunRecord(id=rid, kind=SHARING_KIND, target=target, params=kept,
                       summary=sharing_summary(result),
                       mode="experiment" if result.seed is not None else "release",
                       seed=result.seed)
    return record, sharing_entries(env, result, source=rid)


def design_run_record(project: Project, mdp_id: str, result: Any, params: Any
                      ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a design (kind ``"design"``, target the model) and, for an
    exponential selection, the ledger entry of its spend. The Design dialog's Record and
    ``design … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    mdp_id : str
        The model's id in the project.
    result : DesignResult
        :func:`core.mdp.design.design_release` of ``params``.
    params : DesignParameters
        What was asked; the record's ``params`` is its :meth:`to_dict`.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added to the project (:func:`record_run` adds both).
    """
    from core.common.jsonable import jsonable
    from core.mdp.accounting import mdp_dataset

    if (params.selection, params.epsilon) != (result.selection, result.epsilon_target):
        raise ValueError(f"a {result.selection} design for epsilon {result.epsilon_target:g} "
                         f"recorded with {params.selection} parameters for epsilon "
                         f"{params.epsilon:g}")
    rid = project.new_run_id()
    entries = []
    if result.selection == "exponential":
        entries.append(LedgerEntry(
            id="", dataset=mdp_dataset(mdp_id), mechanism="exponential",
            epsilon=float(result.selection_epsilon), delta=0.0,
            released=f"the designer's choice of (k, eta) among {len(result.frontier)} "
                     "frontier points",
            adjacency="any two models (utility -cost bound, sensitivity its value range)",
            mode=result.mode, seed=result.seed, source=rid,
            parameters={"selection": "exponential", "candidates": len(result.frontier)}))
    record = RunRecord(id=rid, kind="design", target=mdp_id, params=params.to_dict(),
                       summary=jsonable(result.to_dict()), mode=result.mode, seed=result.seed)
    return record, entries


def mia_run_record(project: Project, result: Any, params: Any
                   ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a membership-inference study (kind ``"mia"``, target its data) and
    the ledger entries of what the victim released. The window and ``mia … --record`` both
    record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : MiaResult
        The study (:func:`core.modelprivacy.release.mia_release` of ``params``).
    params : MiaParameters
        What was asked: the shadow-model study (the population study and the canary audit
        release nothing and are not recorded). The record keeps the study's parameters with
        their defaults filled in (:func:`core.modelprivacy.records.mia_params`).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added to the project (:func:`record_run` adds both).
    """
    if params.attack != "shadow":
        raise ValueError(f"mia --attack {params.attack} trains many models and releases none: "
                         "only the shadow-model study is recorded")
    if (params.victim, params.defense, params.seed) != (result.victim, result.defense,
                                                        result.seed):
        raise ValueError(f"a {result.victim}/{result.defense} study (seed {result.seed}) "
                         f"recorded with {params.victim}/{params.defense} parameters (seed "
                         f"{params.seed})")
    rid = project.new_run_id()
    record = RunRecord(id=rid, kind=MIA_KIND, target=result.data, params=mia_params(result),
                       summary=mia_summary(result),
                       mode="experiment" if result.seed is not None else "release",
                       seed=result.seed)
    return record, mia_entries(result, source=rid)


def _drl_entries(result: Any, grid_id: str, source: str) -> list[LedgerEntry]:
    """What a trained navigation agent releases about its map (see :func:`drl_run_record`)."""
    from core.gridworld.dpdrl import OBSERVATION_REASON

    s = result.setup
    common: dict[str, Any] = dict(
        dataset=f"grid:{grid_id}", mode="experiment" if result.seed is not None else "release",
        seed=result.seed, source=source, epsilon=math.inf)
    if s.defense == "dpdrl":
        return [LedgerEntry(id="", mechanism="dpdrl-obfuscation",
                            released="obfuscated observations (one bit flipped per step)",
                            adjacency="the map's cells (observations one bit apart)",
                            reason=OBSERVATION_REASON, count=max(result.obfuscated_steps, 1),
                            parameters={"epsilon_per_step": result.epsilon_per_step,
                                        "preset": s.preset}, **common)]
    return [LedgerEntry(id="", mechanism="policy", released="a policy trained on the "
                        "raw observations", adjacency="none",
                        reason="the agent learns on the true observations of the map",
                        **common)]


def drl_run_record(project: Project, result: Any, params: Any, grid_id: str
                   ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a DP-DRL training (kind ``"drl"``, target its grid) and the ledger
    entry of what the trained agent releases about the map.

    Without the defense the policy is trained on the raw observations (unbounded); with it,
    every obfuscated observation is a release whose map-level ε is unbounded (the obfuscated
    observation equals the true one but one bit); ``count`` is the number of those steps.

    Parameters
    ----------
    project : Project
        Where it will be recorded.
    result : DrlRun
        :func:`core.gridworld.release.drl_release`: the training and the attack, if run.
    params : DrlParameters
        What was run; ``params`` keeps :meth:`DrlParameters.to_dict` but ``population`` and
        ``generations``, after the map's ``grid``.
    grid_id : str
        The grid's id (``example``/``random`` for maps outside the project).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
    """
    attack = result.attack
    result = result.train
    rid = project.new_run_id()
    summary = result.to_json()
    summary["truth"] = result.grid.to_rows()
    summary["rewards"] = [float(v) for v in result.rewards]
    summary["oracle_keys"] = ["truth"]
    if attack is not None:
        summary.update(grr=attack.grr, nrr=attack.nrr, baseline_nrr=attack.baseline_nrr,
                       recovered=attack.recovered.to_rows(),
                       attack_history=[float(v) for v in attack.history])
        summary["oracle_keys"] += ["grr", "nrr"]
    summary["oracle_view"] = ("the true map, and the attack's recovery rates scored against "
                              "it: the experimenter's oracle view")
    asked = params.to_dict()
    kept = {"grid": grid_id, **{k: asked[k] for k in _DRL_RECORD_KEYS}}
    mode = "experiment" if result.seed is not None else "release"
    entries = _drl_entries(result, grid_id, rid)
    return RunRecord(id=rid, kind="drl", target=grid_id, params=kept, summary=summary,
                     mode=mode, seed=result.seed), entries


#: what a ``drl`` run record's ``params`` keeps of :meth:`DrlParameters.to_dict` (after
#: ``grid``), in this order
_DRL_RECORD_KEYS = ("defense", "preset", "epsilon", "episodes", "max_steps", "attack",
                    "seeded", "seed", "agent")

#: what a ``comarl`` run record's ``params`` keeps of :meth:`ComarlParameters.to_dict` (the
#: DP ones None without DP), in this order
_COMARL_RECORD_KEYS = ("agents", "episodes", "dp", "sigma", "window", "sample_rate",
                       "seeded", "seed", "agent")


def comarl_run_record(project: Project, result: Any, params: Any
                      ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a PE-VDN training (kind ``"comarl"``) and its ledger entries: per
    agent's data, the Q-tables ((ε, δ) of DP-SGD on all N tables with the replay window, or
    unbounded), and the secure sums every agent saw (revealed exactly: unbounded).

    Parameters
    ----------
    project : Project
        Where it will be recorded.
    result : ComarlRun
        :func:`core.comarl.release.comarl_release`: PE-VDN and, if trained, plain VDN (its
        curve and return join the summary as ``central_returns``, ``central_team_return``).
    params : ComarlParameters
        What was run (``params`` keeps part of :meth:`ComarlParameters.to_dict`).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
    """
    rid = project.new_run_id()
    central = result.central
    result = result.pe
    s = result.setup
    mode = "experiment" if result.seed is not None else "release"
    summary = result.to_json()
    if central is not None:
        summary.update(central_returns=[float(v) for v in central.returns],
                       central_team_return=central.team_return)
    asked = params.to_dict()
    kept = {k: (asked[k] if s.dp or k not in ("sigma", "window", "sample_rate") else None)
            for k in _COMARL_RECORD_KEYS}
    nets = kept["agent"] == "net"
    what = "networks" if nets else "tables"
    common: dict[str, Any] = dict(mode=mode, seed=result.seed, source=rid)
    entries = []
    for i in range(result.team.agents):
        ds = f"comarl:agent-{i}"
        if s.dp and result.epsilon is not None:
            entries.append(LedgerEntry(
                id="", dataset=ds, mechanism=f"dpsgd-{what}", epsilon=float(result.epsilon),
                delta=float(result.delta or 0.0),
                released=f"all {result.team.agents} Q-{what} (each moves with this agent's "
                         "transitions through the coupling term)",
                adjacency="replace-one: one transition (one entry of the fixed-size replay "
                          "buffer) replaced by another, within Theorem 4.2's window; an "
                          "episode is up to max_steps transitions (group privacy: summary "
                          "'episode')",
                parameters={"sigma": s.sigma, "window": s.window,
                            "sample_rate": s.sample_rate, "relation": "replace-one",
                            "unit": "transition"}, **common))
        else:
            entries.append(LedgerEntry(
                id="", dataset=ds, mechanism="q-network" if nets else "q-table",
                epsilon=math.inf, released=f"the agent's Q-{what[:-1]} (no DP)",
                adjacency="none",
                reason="trained on the raw transitions", **common))
        entries.append(LedgerEntry(
            id="", dataset=ds, mechanism="secure-sum", epsilon=math.inf,
            released="the team sums of the agents' messages",
            adjacency="none", reason="secure summation reveals Σ m exactly (N = 2: the "
            "partner's message); no DP noise covers it", count=max(result.updates, 1),
            **common))
    return RunRecord(id=rid, kind="comarl", target="team", params=kept, summary=summary,
                     mode=mode, seed=result.seed), entries


def mia_compare_run_record(project: Project, result: Sequence[Any], params: Any
                           ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a comparison of membership-inference studies (kind
    ``"mia-table"``, target its data) and every row's ledger entries (each row trained and
    queried its own victim). The window's Compare defenses / Compare victims and
    ``mia --compare … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : sequence of TableRow
        The rows (:func:`core.modelprivacy.release.mia_compare_release` of ``params``).
    params : MiaCompareParameters
        What was compared. The record keeps the first row's study's parameters with their
        defaults filled in (:func:`core.modelprivacy.records.mia_params`; comparing
        defenses: ``defense`` ``"table"``, ``epsilon`` None), then ``compare`` and ``rows``
        (``[victim, defense, ε, k]`` each): the keys of
        :meth:`~core.modelprivacy.release.MiaCompareParameters.to_dict` before the study's
        others.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added to the project (:func:`record_run` adds both).
    """
    rows = list(result)
    done = [[r.result.victim, r.defense, r.epsilon, r.k] for r in rows]
    if not rows or done != [list(r) for r in params.plan()] \
            or rows[0].result.seed != params.study.seed:
        raise ValueError(f"the rows {done} (seed {rows[0].result.seed if rows else None}) "
                         f"are not those of the comparison asked, {params.plan()} (seed "
                         f"{params.study.seed})")
    rid = project.new_run_id()
    first = rows[0].result
    kept = dict(mia_params(first))
    kept.update(compare=params.compare, rows=done)
    if params.compare == "defenses":
        kept.update(defense="table", epsilon=None)
    record = RunRecord(id=rid, kind=MIA_TABLE_KIND, target=first.data, params=kept,
                       summary=table_summary(rows),
                       mode="experiment" if first.seed is not None else "release",
                       seed=first.seed)
    return record, table_entries(rows, source=rid)


def drl_table_run_record(project: Project, result: Sequence[Any], params: Any
                         ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of a DP-DRL comparison (kind ``"drl-table"``, Tables 5.1/5.3's shape,
    target the map) and every row's ledger entries (each row trained its own agent on the
    map). The window's Compare ε and ``drl --table … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : sequence of SweepRow
        The rows (:func:`core.gridworld.release.drl_table_release` of ``params``).
    params : DrlTableParameters
        What was compared; the record keeps ``grid``, ``episodes``, ``rows`` (the labels),
        ``seeded`` and ``seed``: the first keys of
        :meth:`~core.gridworld.release.DrlTableParameters.to_dict`.

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Not yet added to the project (:func:`record_run` adds both).
    """
    rows = list(result)
    labels = [r.label for r in rows]
    if not rows or labels != params.rows() or rows[0].train.seed != params.training.seed:
        raise ValueError(f"the rows {labels} are not those of the comparison asked, "
                         f"{params.rows()} (seed {params.training.seed})")
    grid_id = params.grid
    rid = project.new_run_id()
    first = rows[0].train
    entries: list[LedgerEntry] = []
    for r in rows:
        entries.extend(_drl_entries(r.train, grid_id, rid))
    summary = {"rows": [r.to_json() for r in rows], "truth": first.grid.to_rows()}
    mode = "experiment" if first.seed is not None else "release"
    kept = {"grid": grid_id, "episodes": first.setup.episodes, "rows": labels,
            "seeded": first.seed is not None, "seed": first.seed}
    return RunRecord(id=rid, kind="drl-table", target=grid_id, params=kept,
                     summary=summary, mode=mode, seed=first.seed), entries


def advise_bench_run_record(project: Project, result: Any, params: Any, *,
                            claims: Sequence[Any] = ()) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of an advising experiment over many seeds (kind
    ``"advise-experiment"``) and its ledger entries.

    The DP Advising tab's experiments and ``advise-bench … --record`` both record through
    here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : ExperimentResult
        The experiment (:func:`core.advising.bench.advise_bench_release` of ``params``).
    params : AdviseBenchParameters
        What was asked: the record's ``params`` are its
        :meth:`~core.advising.bench.AdviseBenchParameters.to_dict`, with what the run made in
        place of what was asked where they differ (the seed drawn and the seeds that ran, the
        workers that ran them, each arm's layout).
    claims : sequence of ClaimCheck
        The thesis claims checked on this experiment (stored in the summary).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Neither added yet: pass both to :func:`record_run` (or the GUI's AddRunCommand).
        Per arm and teacher, its noisy releases over all seeds and one unbounded entry per
        kind of raw release, listed as seeded experiments (never spent).
    """
    from core.advising.records import experiment_ledger_entries, experiment_summary

    if params.seeded == result.seed_drawn or (params.seeded and result.seed != params.seed):
        raise ValueError(f"an experiment from seed {result.seed} (drawn: {result.seed_drawn}) "
                         f"recorded with the parameters of seed {params.seed}")
    kept = params.to_dict()
    kept.update({
        "epochs": result.epochs, "seed": result.seed, "seeds": result.seeds.tolist(),
        "seed_drawn": result.seed_drawn, "workers": result.workers,
        "arms": [{**a, "layout": s.layout} for a, s in zip(kept["arms"], result.summaries())]})
    record = RunRecord(id=project.new_run_id(), kind="advise-experiment",
                       target=ADVISING_TARGET, params=rounded_json(kept),
                       summary=rounded_json(experiment_summary(result, delta=params.delta,
                                                               claims=claims)),
                       mode="experiment", seed=result.seed)
    return record, experiment_ledger_entries(result, source=record.id)


def _executed_summary(release: Any) -> dict[str, Any]:
    """What a plan's run record keeps of one privatisation it ran: π̄ and its bounds
    (:func:`core.mdp.records.bounds_summary`), the whole guarantee, the parameters with the
    model's digest, and the mode."""
    from core.common.jsonable import jsonable

    s = bounds_summary(release.result, list(release.state_ids),
                       [list(a) for a in release.action_ids])
    s["privacy"] = jsonable(release.privacy.guarantee())
    s["params"] = jsonable(dict(release.params.record_params(), model_digest=release.digest))
    s["mode"] = release.result.mode
    return dict(s)


def plan_execution_run_record(project: Project, result: Any, params: Any
                              ) -> tuple[RunRecord, list[LedgerEntry]]:
    """The run record of an executed privacy plan (kind ``"privacy-plan"``, target the
    dataset) and its ledger entries, one per planned release.

    The record keeps the plan as executed (allocated, if it was) and its name as its
    parameters, the plan's evaluation as its summary and, under ``summary.executed``, each
    privatisation that ran. ``budget PLAN --execute PROJECT`` and the Privacy plan tab's
    Execute both record through here, then append with
    :func:`core.plan.release.save_plan_execution` (the merging writer).

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : PlanExecution
        :func:`core.plan.release.plan_execution_release` of ``params``.
    params : PlanExecutionParameters
        What was executed (its ``name`` is the ledger's ``parameters.plan``).

    Returns
    -------
    (RunRecord, list of LedgerEntry)
        Neither added yet.
    """
    budget = result.budget
    if (budget.plan.name or budget.plan.dataset) != params.name or \
            budget.plan.dataset != params.plan.dataset:
        raise ValueError("a plan's execution recorded with the parameters of another plan")
    run_id = project.new_run_id()
    entries = result.ledger_entries(run_id)
    summary = budget.to_dict()
    if result.executed:
        summary["executed"] = {n: _executed_summary(r) for n, r in result.executed.items()}
    record = RunRecord(id=run_id, kind=result.kind, target=budget.plan.dataset,
                       params={"plan": summary.pop("plan"), "name": params.name},
                       summary=summary, mode="release", seed=None)
    return record, entries


def bench_run_record(project: Project, result: Any, params: Any) -> RunRecord:
    """The run record of a planning benchmark (kind ``"plan-bench"``, target
    ``"logistics"``).

    A benchmark is a seeded experiment on worlds it generates: it releases nothing about
    the project's data, so it has no ledger entries. The Experiments page and
    ``plan-bench … --record`` both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : BenchResult
        The benchmark (:func:`core.logistics.bench_release.bench_release` of ``params``).
    params : BenchParameters
        What was asked (:meth:`~core.logistics.bench_release.BenchParameters.record_params`
        are the record's parameters: the values, approaches and seed the run used).

    Returns
    -------
    RunRecord
        Not yet added to the project.
    """
    from core.logistics.records import bench_summary

    if params.benchmark != result.config.name:
        raise ValueError(f"benchmark {result.config.name} recorded with the parameters of "
                         f"{params.benchmark}")
    return RunRecord(id=project.new_run_id(), kind="plan-bench", target="logistics",
                     params=params.record_params(result), summary=bench_summary(result),
                     mode="experiment", seed=result.seed)


def packet_run_record(project: Project, result: Any, params: Any) -> RunRecord:
    """The run record of a packet-routing study (kind ``"plan-packet"``, target
    ``"logistics"``).

    A study is a seeded experiment on worlds it generates: nothing is released, so it has
    no ledger entries. The Packet routing page and ``plan-bench --experiment … --record``
    both record through here.

    Parameters
    ----------
    project : Project
        Where it will be recorded (for a fresh run id).
    result : PacketRelease
        The study (:func:`core.logistics.bench_release.packet_release` of ``params``).
    params : PacketParameters
        What was asked (the record's parameters are
        :meth:`~core.logistics.bench_release.PacketParameters.record_params`; the master
        seed, given or drawn, is the record's ``seed``).

    Returns
    -------
    RunRecord
        Not yet added to the project.
    """
    from core.logistics.packet_records import PACKET_KIND

    summary = result.summary
    if params.experiment != summary["experiment"]:
        raise ValueError(f"study {summary['experiment']} recorded with the parameters of "
                         f"{params.experiment}")
    return RunRecord(id=project.new_run_id(), kind=PACKET_KIND, target="logistics",
                     params=params.record_params(summary["approaches"]), summary=summary,
                     mode="experiment", seed=summary["master_seed"])
