"""runs that store true-model ("oracle") values carry a mark, and the report
says which results are oracle views.

An oracle value is computed by the experimenter from the true, private data (π̄ evaluated on
the true MDP, a policy's value on the true model, the executed route on the true maps): no
user of the private output could compute it, and it is not a release. The run record lists
those keys in ``summary["oracle_keys"]`` with ``summary["oracle_view"]`` saying what they
are; the report prints them in the run's section and lists the runs in the overview.
"""

from __future__ import annotations

from core.mdp.examples import four_startups
from core.project.model import Project
from core.report.html import Paragraph, build_report, to_html


def _oracle_paragraphs(project: Project, run_id: str) -> list[str]:
    rep = build_report(project)
    sec = next(s for s in rep.sections if s.id == f"run-{run_id}")
    return [b.text for b in sec.blocks if isinstance(b, Paragraph)
            and b.text.startswith("Oracle view")]


def test_sweep_marks_v_true_and_the_report_says_so():
    from core.mdp.records import SweepParameters
    from core.mdp.sweep import privacy_sweep
    from core.project.recording import record_sweep_run

    p = Project()
    mid = p.add_mdp(four_startups(), "startups")
    res = privacy_sweep(four_startups(), [10.0], runs=2, seed=1, workers=1)
    params = SweepParameters(ks=(10.0,), runs=2, beta=0.05, alpha_mode="paper", seeded=True,
                             seed=1, workers=1)
    rec, _ = record_sweep_run(p, mid, params, res)
    keys = rec.summary["oracle_keys"]
    assert {"v_true_mean", "v_true_sd", "cost_empirical_mean", "cost_empirical_sd"} <= set(keys)
    assert all(k in rec.summary for k in keys)
    assert "true" in rec.summary["oracle_view"]
    (text,) = _oracle_paragraphs(p, rec.id)
    assert "v_true_mean" in text and "not a release" in text
    overview = next(s for s in build_report(p).sections if s.id == "overview")
    assert any(isinstance(b, Paragraph) and rec.id in b.text and "oracle" in b.text.lower()
               for b in overview.blocks)
    assert "Oracle view" in to_html(build_report(p))


def test_sharing_marks_the_students_values_on_the_true_mdp():
    from core.project.recording import record_run, sharing_run_record
    from core.sharing.learning import SharingSetup, sharing_release
    from core.sharing.records import SharingParameters

    p = Project()
    p.add_mdp(four_startups(), "startups")
    setup = SharingSetup(k0=20, coef=0.9, eta=0.1, delta=0.01, budget=(1e6, 0.9),
                         iterations=3, draws=2000)
    params = SharingParameters("mdp:startups", setup, seeds=2, seed=1)
    res = sharing_release(params, mdp=four_startups())
    rec, entries = sharing_run_record(p, res, params)
    record_run(p, rec, entries)
    assert {"teacher_value", "curves", "final", "cost_of_privacy"} <= set(
        rec.summary["oracle_keys"])
    (text,) = _oracle_paragraphs(p, rec.id)
    assert "teacher_value" in text


def test_plan_marks_the_evaluators_view():
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release
    from core.project.recording import plan_run_record, record_run

    p = Project()
    p.maps.append(MapEntry("map-1", fig41()))
    params = PlanParameters("a1", "f", planner=PlannerParams.preset_params(epsilon=1.0),
                            seed=1)
    rec, entries = plan_run_record(p, plan_release(params, world=fig41()), params,
                                   map_id="map-1", map_label="fig41")
    record_run(p, rec, entries)
    assert {"route", "length", "shortest_length"} <= set(rec.summary["oracle_keys"])
    (text,) = _oracle_paragraphs(p, rec.id)
    assert "route" in text


def test_mia_tabular_marks_the_policy_value_on_the_true_mdp():
    from core.modelprivacy.data import mdp_dataset
    from core.modelprivacy.release import MiaParameters, mia_release
    from core.project.recording import mia_run_record

    d = mdp_dataset(four_startups(), seed=0, trajectories=100)
    params = MiaParameters("mdp:four_startups", victim="tabular", defense="none", shadows=1,
                           seed=1)
    res = mia_release(params, data=d)
    rec, _ = mia_run_record(Project(), res, params)
    assert {"policy_value", "optimal_value"} <= set(rec.summary["oracle_keys"])


def test_a_run_without_oracle_values_has_no_mark():
    from core.audit import AuditParameters, audit_release
    from core.project.recording import audit_run_record, record_run

    p = Project()
    params = AuditParameters("laplace", {"epsilon": 1.0, "sensitivity": 1.0}, samples=2000,
                             seed=1)
    rec = audit_run_record(p, audit_release(params), params)
    record_run(p, rec)
    assert "oracle_keys" not in rec.summary
    assert _oracle_paragraphs(p, rec.id) == []
