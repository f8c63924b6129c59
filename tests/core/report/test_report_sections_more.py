"""Two report sections, checked against independent facts: the audit figure's "limit if
(ε, δ)-DP holds" is the Kairouz–Oh–Viswanath region (an honest Laplace mechanism's exact ROC
stays under it, one with half the noise crosses it), and the privacy-plan section sets each
planned release beside the ledger entry that spent it (as planned, differs, not recorded)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.audit import laplace as lap
from core.plan.budget import evaluate_plan
from core.plan.document import plan_from_dict
from core.plan.execute import RUN_KIND, plan_entries
from core.privacy.ledger import LedgerEntry
from core.project.model import Project, RunRecord
from core.report.model import Figure, Paragraph, Table
from core.report.sections.audit import _audit_section, _claim_boundary
from core.report.sections.plan import _plan_section


# ------------------------------------------------------------------ the audit's DP limit
@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (1.0, 1e-3), (2.0, 0.05)])
def test_the_claim_boundary_is_the_two_dp_inequalities(eps: float, delta: float) -> None:
    xs, ys = _claim_boundary(eps, delta)
    assert xs[0] == 0.0 and xs[-1] == 1.0 and len(xs) == 101
    for x, y in zip(xs, ys):
        # (ε, δ)-DP: TPR <= e^ε FPR + δ and 1 − FPR >= e^−ε ... written as FNR >= …
        assert y <= math.exp(eps) * x + delta + 1e-12
        assert (1 - y) >= math.exp(-eps) * (1 - delta - x) - 1e-12
        assert 0.0 <= y <= 1.0
    assert ys[0] == pytest.approx(delta)
    assert ys == tuple(sorted(ys))


def test_an_honest_laplace_roc_stays_under_the_limit_and_a_broken_one_crosses() -> None:
    xs, ys = _claim_boundary(1.0, 0.0)
    honest = lap.exact_roc(0.0, 1.0, 1.0, lap.LaplaceVariant())
    fpr, tpr = honest  # type: ignore[misc]
    assert np.all(tpr <= np.interp(fpr, xs, ys) + 2e-3)  # the limit is drawn on 101 points
    broken = lap.exact_roc(0.0, 1.0, 1.0, lap.LaplaceVariant(noise_factor=0.5))
    fpr_b, tpr_b = broken  # type: ignore[misc]
    assert np.any(tpr_b > np.interp(fpr_b, xs, ys) + 0.05)


def test_a_huge_claim_does_not_overflow_the_limit() -> None:
    xs, ys = _claim_boundary(5000.0, 0.0)
    assert all(math.isfinite(y) for y in ys) and ys[-1] == 1.0


def _audit_run(**summary: object) -> RunRecord:
    s: dict = {"mechanism": "laplace", "label": "Laplace mechanism", "epsilon_claimed": 1.0,
               "delta_claimed": 0.0, "epsilon_lb": 0.8, "confidence": 0.95,
               "epsilon_tight": 1.0, "epsilon_tight_method": "closed form",
               "pair": {"a": 0.0, "b": 1.0, "description": "scalar"}, "samples": 2000,
               "verdict": "consistent", "roc": [[0.0, 0.0], [0.2, 0.5], [1.0, 1.0]],
               "parameters": {"epsilon": 1.0, "sensitivity": 1.0}, "attack": {},
               "notes": ["a note"]}
    s.update(summary)
    return RunRecord("run-1", "audit", "laplace", {}, s, "experiment", 3,
                     "2026-01-01T00:00:00+00:00")


def test_the_audit_section_states_the_three_epsilons_and_the_figure() -> None:
    sec = _audit_section(Project(), _audit_run())
    table = next(b for b in sec.blocks if isinstance(b, Table))
    assert table.rows[0] == ("0.8 at 95 %", "1 (closed form)", "1", "0", "consistent")
    fig = next(b for b in sec.blocks if isinstance(b, Figure))
    names = [s.name for s in fig.series]
    assert names == ["attack ROC", "limit if (1, 0)-DP holds", "chance (ε = 0)"]
    assert any(isinstance(b, Paragraph) and b.text == "a note" for b in sec.blocks)
    assert not any(isinstance(b, Paragraph) and b.kind == "warning" for b in sec.blocks)


def test_an_unbounded_audited_claim_has_no_limit_curve_and_says_why() -> None:
    sec = _audit_section(Project(), _audit_run(epsilon_claimed=None,
                                               epsilon_claimed_reason="raw values",
                                               epsilon_tight=None))
    table = next(b for b in sec.blocks if isinstance(b, Table))
    assert table.rows[0][2] == "unbounded (raw values)"
    assert table.rows[0][1].startswith("unknown (output densities unknown")
    fig = next(b for b in sec.blocks if isinstance(b, Figure))
    assert [s.name for s in fig.series] == ["attack ROC", "chance (ε = 0)"]
    assert any(isinstance(b, Paragraph) and "No finite ε is claimed (raw values)" in b.text
               for b in sec.blocks)


# ------------------------------------------------------------------ plan vs spent
def _plan_project(spent: dict[str, float | None]) -> tuple[Project, RunRecord]:
    plan = plan_from_dict({"format": "privplan-plan", "version": 1, "name": "p1",
                           "dataset": "patients", "budget": {"epsilon": 1.0, "delta": 0.0},
                           "releases": [{"name": "a", "kind": "laplace", "epsilon": 0.25},
                                        {"name": "b", "kind": "laplace", "epsilon": 0.5}]})
    budget = evaluate_plan(plan)
    project = Project()
    for i, e in enumerate(plan_entries(budget, run_id="run-1")):
        name = e.parameters["release"]
        if name in spent and spent[name] is not None:
            project.ledger.append(LedgerEntry(**{**e.__dict__, "id": f"rel-{i + 1}",
                                                 "epsilon": spent[name]}))
    run = RunRecord("run-1", RUN_KIND, "patients", {"name": "p1"}, budget.to_dict(),
                    "release", None, "2026-01-01T00:00:00+00:00")
    return project, run


def test_a_plan_spent_as_planned_has_no_warning() -> None:
    project, run = _plan_project({"a": 0.25, "b": 0.5})
    sec = _plan_section(project, run)
    table = next(b for b in sec.blocks if isinstance(b, Table))
    assert [r[4] for r in table.rows] == ["as planned", "as planned"]
    assert table.rows[0][3] == "rel-1: (0.25, 0)"
    assert not any(isinstance(b, Paragraph) and b.kind == "warning" for b in sec.blocks)
    assert sec.title == "Privacy plan p1 — plan vs spent" and sec.id == "run-run-1"


def test_a_missing_or_different_spend_is_flagged() -> None:
    project, run = _plan_project({"a": 0.3, "b": None})
    sec = _plan_section(project, run)
    table = next(b for b in sec.blocks if isinstance(b, Table))
    assert [r[4] for r in table.rows] == ["differs", "not recorded"]
    assert table.rows[1][3] == "—"
    assert any(isinstance(b, Paragraph) and b.kind == "warning" for b in sec.blocks)
