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
    rep = build_report(project_with_a_sweep(), now=NOW, include=["ledger-entries"])
    ledger = next(s for s in rep.sections if s.id == "ledger-entries")
    totals = next(b for b in ledger.blocks
                  if getattr(b, "title", "") == "Totals per protected dataset")
    assert totals.columns[3] == "basic (ε, δ)"
    row = next(r for r in totals.rows if r[0] == "mdp:four-startups")
    assert row[1] == "releases (spent)" and row[2] == "2" and row[3] == "(23.2, 0.06)"
    assert totals.columns[4] == "tight, PLD (ε, δ)"
    pld = float(row[4].strip("()").split(",")[0])
    # entries known only by (ε, δ): their canonical pairs compose to no more than basic
    assert pld <= 23.2 + 1e-3
    assert row[6] == "not applicable"  # zCDP needs pure-DP releases; Dirichlet is (ε, δ)


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


def test_plan_runs_get_their_map_with_the_route():
    """Issue: the route page had no map figure."""
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.logistics.planner import PlannerParams
    from core.logistics.release import PlanParameters, plan_release
    from core.project.recording import plan_run_record, record_run

    p = Project(name="routes")
    p.maps.append(MapEntry("map-1", fig41()))
    params = PlanParameters("a2", "f", planner=PlannerParams.preset_params(epsilon=1.0),
                            seed=3)
    release = plan_release(params, world=p.maps[0].world)
    result = release.result
    rec, entries = plan_run_record(p, release, params, map_id="map-1",
                                   map_label=p.maps[0].label)
    record_run(p, rec, entries)
    rep = build_report(p)
    fig = next(f for f in rep.figures() if f.id == f"{rec.id}-route")
    routes, route = fig.series[:2]
    assert routes.segments and len(routes.x) == 2 * p.maps[0].world.graph.number_of_edges()
    assert len(route.x) == len(result.route) and not route.segments
    svg = to_html(rep)
    assert svg.count("<line") > p.maps[0].world.graph.number_of_edges()


def test_plan_bench_runs_have_a_layout_with_a_figure_per_metric():
    """Issue: plan-bench runs had "no report layout yet"."""
    from core.common.palette import APPROACH_COLOURS
    from core.logistics.experiments import run_benchmark
    from core.logistics.records import BENCH_METRICS, bench_summary

    res = run_benchmark("B1", values=[0.5, 2.0], approaches=["dp", "noprivacy"], worlds=2,
                        seed=1, workers=1)
    p = Project(name="bench")
    p.runs.append(RunRecord(id="run-1", kind="plan-bench", target="B1", params={},
                            summary=bench_summary(res), mode="experiment", seed=1))
    rep = build_report(p)
    (sec,) = [s for s in rep.sections if s.id == "run-run-1"]
    text = " ".join(getattr(b, "text", "") for b in sec.blocks)
    assert "no report layout" not in text
    figs = [b for b in sec.blocks if isinstance(b, Figure)]
    assert [f.id for f in figs] == [f"run-1-{k}" for k, _, _ in BENCH_METRICS]
    for f in figs:
        assert [s.colour for s in f.series] == [APPROACH_COLOURS["dp"],
                                                APPROACH_COLOURS["noprivacy"]]
        assert all(s.x == (0.5, 2.0) for s in f.series)


def test_ledger_tables_have_no_all_zero_rows_and_each_release_text_once():
    """Issue: all-zero rows in "Privacy spent", and a ledger whose narrow columns broke words
    and ran to many pages (the long "released" text repeated on every entry)."""
    from core.report.html import Table, ledger_totals

    led = PrivacyLedger()
    for _ in range(5):
        led.record(dataset="agent:x", mechanism="laplace", epsilon=0.5, mode="experiment",
                   seed=1, released="the same long description of what left " * 3)
    led.record(dataset="agent:y", mechanism="laplace", epsilon=0.25, released="other")
    table, _ = ledger_totals(led)
    assert [(r[0], r[1]) for r in table.rows] == [
        ("agent:x", "seeded experiments (not spent)"), ("agent:y", "releases (spent)")]
    p = Project(name="ledger")
    p.ledger = led.entries
    rep = build_report(p, include=["overview", "ledger-entries"])
    (sec,) = [s for s in rep.sections if s.id == "ledger-entries"]
    tables = {b.title: b for b in sec.blocks if isinstance(b, Table)}
    entries, what = tables["Entries"], tables["What was released"]
    assert [r[8] for r in entries.rows] == ["R1"] * 5 + ["R2"]
    assert [r[0] for r in what.rows] == ["R1", "R2"]
    assert to_html(rep).count("the same long description") == 3  # once, in one cell
    overview = [s for s in rep.sections if s.id == "overview"]
    if overview:
        (spent,) = [b for b in overview[0].blocks if isinstance(b, Table)
                    and b.title == "Privacy spent per protected dataset"]
        rows = {r[0]: r for r in spent.rows}  # seeded uses are counted apart, not spent
        assert rows["agent:x"][1:3] == ("0", "nothing released") and rows["agent:x"][5] == "5"


def test_every_section_module_is_discovered_from_the_registry():
    from core.report.sections import SECTION_MODULES, load_sections

    reporters = load_sections()
    assert {"sweep", "design", "bounds", "advise", "advise-experiment", "plan", "plan-bench",
            "mia", "mia-table", "drl", "drl-table", "comarl", "sharing",
            "audit"} <= set(reporters)
    # every reporter lives in a registered module
    assert {fn.__module__ for fn in reporters.values()} <= set(SECTION_MODULES.values())
