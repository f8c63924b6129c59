"""the PDF's pages break between text lines, never inside one
(:mod:`gui.report.pages`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from core.cli.main import run_cli
from gui.report.pages import merged, page_tops, straddling

BUILTIN = Path(__file__).resolve().parents[3] / "assets" / "examples" / "builtin.privplan.json"


def cli(*argv: object) -> None:
    err = io.StringIO()
    assert run_cli([str(a) for a in argv], io.StringIO(), err) == 0, err.getvalue()


def test_a_page_ends_above_the_line_its_edge_would_cut():
    # lines of 10 on a 25-high page, the third a hair above the edge (as Qt placed some)
    lines = [(0.0, 10.0), (10.0, 20.0), (24.9, 34.9), (34.9, 44.9), (44.9, 54.9)]
    tops = page_tops(lines, 25.0, 54.9)
    assert tops == [0.0, 24.9, 44.9]
    assert all(not straddling(lines, t) for t in tops)
    # the fixed strips (every 25) cut the third line: what the splitter replaced
    assert straddling(lines, 25.0) == [(24.9, 34.9)]


def test_side_by_side_lines_join_and_a_line_taller_than_a_page_is_cut():
    assert merged([(0, 10), (5, 12), (20, 30)]) == [(0, 12), (20, 30)]
    assert page_tops([(0.0, 70.0)], 25.0, 70.0) == [0.0, 25.0, 50.0]
    with pytest.raises(ValueError):
        page_tops([], 0.0, 1.0)


def test_a_long_report_breaks_only_between_lines(qapp, monkeypatch, tmp_path):
    """A real report (every ledger entry: long tables that continue over pages) printed to
    PDF: no line and no table row of it lies across a page edge, no heading ends a page, and
    each section that asks for a new page gets one."""
    import gui.report.export as export
    from core.project.files import load_project, save_project

    path = tmp_path / "p.privplan.json"
    save_project(load_project(BUILTIN), path)
    cli("sweep", path, "--mdp", "example-2", "--k", "10,100,1000", "--runs", "4", "--seed",
        "7", "--record", "--workers", "1", "--json")
    cli("advise", "--preset", "exp1", "--variant", "thesis", "--seed", "3", "--record", path,
        "--json", "--summary")
    seen = {}
    real = export.page_tops

    def spy(spans, height, end, forced=None):
        seen.update(spans=spans, height=height, end=end, forced=forced)
        seen["tops"] = real(spans, height, end, forced)
        return seen["tops"]

    monkeypatch.setattr(export, "page_tops", spy)
    out = io.StringIO()
    assert export.cli_report(["report", str(path), "-o", str(tmp_path / "r.pdf"), "--sections",
                              "overview,models,ledger,ledger-entries", "--json"], out,
                             io.StringIO()) == 0
    tops, spans = seen["tops"], merged(seen["spans"])
    assert len(tops) >= 4 and len(spans) > 100
    for top in tops:
        assert not straddling(spans, top), top
    # each page is at most a page high and the pages cover the document
    assert all(0 < b - a <= seen["height"] + 1e-6 for a, b in zip(tops, tops[1:]))
    assert tops[-1] + seen["height"] >= seen["end"]
    assert seen["forced"] and set(seen["forced"]) <= set(tops)
    # the spans include whole table rows (taller than one line) and headings with room
    heights = sorted(b - a for a, b in seen["spans"])
    assert heights[-1] > 3 * heights[len(heights) // 2]


def test_forced_breaks_and_rows_and_headings():
    # a row of two lines (a span 0..30) and a heading at 40 that wants 20 below it
    spans = [(0.0, 10.0), (10.0, 20.0), (0.0, 30.0), (40.0, 45.0), (40.0, 60.0),
             (60.0, 70.0), (80.0, 90.0)]
    assert page_tops(spans, 50.0, 90.0) == [0.0, 40.0]  # the heading goes with its room
    assert page_tops(spans, 50.0, 90.0, forced=[60.0]) == [0.0, 40.0, 60.0]
    # a row taller than a page is cut at the page height; the others move whole
    assert page_tops(spans, 25.0, 90.0) == [0.0, 25.0, 40.0, 60.0, 80.0]
