"""The report's section for an audit run (kind "audit", summary = AuditResult.to_dict())."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math

import pytest

from core.common.jsonable import jsonable
from core.project.model import Project, RunRecord
from core.report.html import build_report, svg_plot, to_html

NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def laplace_result():
    from core.audit import run_audit

    # 4000 per side: fast (< 1 s); the section's layout, not the audit's power, is tested
    return run_audit("laplace", samples=4000, seed=2, epsilon=1.0, sensitivity=1.0)


def _project(*results) -> Project:
    p = Project(name="audits")
    for i, r in enumerate(results, 1):
        p.runs.append(RunRecord(id=f"run-{i}", kind="audit", target=r.mechanism,
                                params={"params": dict(r.parameters), "samples": r.samples},
                                summary=jsonable(r.to_dict()), mode=r.mode, seed=r.seed,
                                created="2026-01-01T00:00:00+00:00"))
    return p


def _block(sec, title):
    return next(b for b in sec.blocks if getattr(b, "title", "") == title)


def test_audit_section_shows_the_three_epsilons_the_pair_and_the_roc(laplace_result):
    r = laplace_result
    rep = build_report(_project(r), now=NOW)
    sec = next(s for s in rep.sections if s.id == "run-run-1")
    assert sec.title == "Privacy audit: Laplace mechanism (run-1)"
    bars = _block(sec, "ε_lb ≤ ε_tight ≤ ε_claimed")
    (row,) = bars.rows
    assert row[0].startswith(f"{r.epsilon_lb:.4g} at 95 %") and row[1].startswith("1 ")
    assert row[2] == "1" and row[4] == "consistent"
    kv = dict(_block(sec, "Worst pair and attack").items)
    assert kv["worst pair"] == r.pair["description"]
    (fig,) = [b for b in sec.blocks if getattr(b, "id", "") == "run-1-roc"]
    names = [s.name for s in fig.series]
    assert names[0] == "attack ROC" and names[1].startswith("limit if (1, 0)-DP")
    # the claim's limit at ε = 1, δ = 0 passes through (0.5·(1 − e^{-1})…): spot-check one
    limit = fig.series[1]
    i = limit.x.index(0.1)
    assert limit.y[i] == pytest.approx(min(math.e * 0.1, 1 - 0.9 / math.e))
    assert "<svg" in svg_plot(fig)
    assert not any(p.kind == "warning" for p in sec.blocks if hasattr(p, "kind"))


def test_a_violation_is_a_warning_and_an_unbounded_claim_says_why(laplace_result):
    bad = dataclasses.replace(laplace_result, epsilon_lb=2.5, verdict="violation")
    raw = dataclasses.replace(laplace_result, epsilon_claimed=math.inf,
                              epsilon_claimed_reason="raw Q-values released")
    rep = build_report(_project(bad, raw), now=NOW)
    s1 = next(s for s in rep.sections if s.id == "run-run-1")
    warn = [b for b in s1.blocks if getattr(b, "kind", "") == "warning"]
    assert len(warn) == 1 and "VIOLATION" in warn[0].text and "2.5" in warn[0].text
    s2 = next(s for s in rep.sections if s.id == "run-run-2")
    row = _block(s2, "ε_lb ≤ ε_tight ≤ ε_claimed").rows[0]
    table = _block(s2, "ε_lb ≤ ε_tight ≤ ε_claimed")
    assert row[2] == "unbounded [1]" and "[1] raw Q-values released." in table.note
    fig = next(b for b in s2.blocks if getattr(b, "id", "") == "run-2-roc")
    assert [s.name for s in fig.series] == ["attack ROC", "chance (ε = 0)"]  # no limit
    html = to_html(rep)
    assert "Infinity" not in html and "∞" not in html and "VIOLATION" in html
