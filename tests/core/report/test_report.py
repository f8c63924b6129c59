"""The pure report model and its HTML (no Qt)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from core.mdp.sweep import privacy_sweep
from core.privacy.ledger import PrivacyLedger
from core.project.files import load_project
from core.project.model import Project, RunRecord
from core.report.html import Figure, Series, build_report, svg_plot, to_html

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def project_with_a_sweep(seed: int = 5) -> Project:
    p = load_project(BUILTIN)
    r = privacy_sweep(p.mdps[0].mdp, [10, 1000], runs=4, seed=seed, workers=1)
    d = r.to_dict()
    d.pop("privacy_rows")
    d.pop("elapsed_s")
    p.runs.append(RunRecord(id="run-1", kind="sweep", target=p.mdps[0].id, params={"runs": 4},
                            summary=d, mode="experiment", seed=seed, created="2026-01-01"))
    led = PrivacyLedger()
    led.record(dataset="mdp:four-startups", mechanism="dirichlet", epsilon=21.7, delta=0.05,
               released="privatised rows", time="2026-01-01T00:00:00+00:00")
    led.record(dataset="mdp:four-startups", mechanism="dirichlet", epsilon=1.5, delta=0.01,
               released="privatised rows", time="2026-01-01T00:00:00+00:00")
    p.ledger = led.entries
    return p


def test_empty_project_says_there_is_nothing_yet():
    html = to_html(build_report(Project(name="nothing"), now=NOW))
    assert "no analyses yet" in html and "No releases are recorded" in html


def test_report_has_every_section_and_figure():
    rep = build_report(project_with_a_sweep(), project_path=BUILTIN, now=NOW)
    ids = [s.id for s in rep.sections]
    assert ids == ["overview", "models", "run-run-1", "ledger"]
    assert len(rep.figures()) == 2
    assert rep.metadata["seeds"] == "5" and len(rep.metadata["project SHA-256"]) == 64
    html = to_html(rep)
    assert html.count("<svg") == 2 and "oracle view" in html


def test_ledger_totals_equal_the_sum_of_entries():
    rep = build_report(project_with_a_sweep(), now=NOW)
    ledger = next(s for s in rep.sections if s.id == "ledger")
    totals = next(b for b in ledger.blocks
                  if getattr(b, "title", "") == "Totals per protected dataset")
    assert totals.columns[3] == "basic (ε, δ)"
    row = next(r for r in totals.rows if r[0] == "mdp:four-startups")
    assert row[1] == "releases (spent)" and row[2] == "2" and row[3] == "(23.2, 0.06)"
    assert row[5] == "not applicable"  # zCDP needs pure-DP releases; Dirichlet is (ε, δ)


def test_a_seeded_report_is_byte_stable_apart_from_its_date():
    a = to_html(build_report(project_with_a_sweep(), now=NOW))
    b = to_html(build_report(project_with_a_sweep(), now=NOW + dt.timedelta(days=3)))
    strip = re.compile(r"<tr><th>generated</th><td>[^<]*</td></tr>")
    assert a != b and strip.sub("", a) == strip.sub("", b)


def test_include_selects_sections():
    rep = build_report(project_with_a_sweep(), include=["ledger"], now=NOW)
    assert [s.id for s in rep.sections] == ["ledger"]


def test_svg_plot_handles_log_axes_and_empty_data():
    fig = Figure("f", "t", "x", "y", (Series("s", (1.0, 10.0, 100.0), (1.0, 0.1, 0.01),
                                             (0.1, 0.01, 0.001)),), log_x=True, log_y=True)
    svg = svg_plot(fig)
    assert svg.startswith("<svg") and svg.count("<circle") == 3 and "polyline" in svg
    assert "no data" in svg_plot(Figure("g", "t", "x", "y", ()))
