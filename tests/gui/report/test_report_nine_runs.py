"""A nine-analysis project across the capabilities (tests/gui/report_project.py) prints to at
most 15 pages (17 before word-boundary wrapping and the figure/caption gap fix), with no word
or number broken in a cell, no table wider than the page, and every figure's legend clear of
its data (the screen's rule, gui.shell.plots.place_legend)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess

import pytest
from built_once import built_once
from report_project import (
    build_nine_run_project,
    laid_out,
    mid_token_breaks,
    tables_wider_than,
)

from core.project.files import load_project
from core.report import build_report
from core.report.model import Figure
from gui.report.export import cli_report, figure_plot

pytestmark = [pytest.mark.slow,  # nine analyses made first (20 s): make test-slow (CI)
              pytest.mark.skipif(not shutil.which("pdfinfo"),
                                 reason="poppler-utils is not installed: run "
                                        "`bash tools/ensure-debs.sh report`")]


@pytest.fixture(scope="session")
def nine(tmp_path_factory):  # recorded once per session, not once per xdist worker
    folder = built_once(tmp_path_factory, "nine",
                        lambda f: build_nine_run_project(f / "nine.privplan.json"))
    return folder / "nine.privplan.json"


def test_nine_runs_across_capabilities_fit_15_pages(qapp, nine, tmp_path):
    project = load_project(nine)
    assert len(project.runs) == 9 and len({r.kind for r in project.runs}) == 9
    out = tmp_path / "nine.pdf"
    text, err = io.StringIO(), io.StringIO()
    assert cli_report(["report", str(nine), "-o", str(out), "--json"], text, err) == 0, \
        err.getvalue()
    info = subprocess.run(["pdfinfo", str(out)], check=True, capture_output=True,
                          text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert json.loads(text.getvalue())["pages"] == pages <= 15


def test_nine_runs_print_no_broken_word_and_no_covered_data(qapp, nine):
    report = build_report(load_project(nine))
    doc, body_w, _ = laid_out(report)
    assert mid_token_breaks(doc) == [] and tables_wider_than(doc, body_w) == []
    from gui.shell.plots import readability_problems

    figures = [f for f in report.figures() if isinstance(f, Figure)]
    assert len(figures) >= 9
    for fig in figures:
        widget = figure_plot(fig)
        try:
            assert readability_problems(widget) == [], fig.id
        finally:
            widget.deleteLater()
