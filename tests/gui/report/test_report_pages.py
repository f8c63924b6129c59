"""The multi-run report as a reviewer gets it: built with CLI commands, printed to
PDF, pages counted (pdfinfo) and read (pdftotext).

The project is the built-in example plus the fig41 map, with what a first hour adds: a seeded
privacy sweep of each model (every default k), DP advising Experiment 1 twice (the thesis
variant, seeded — unbounded entries with long reasons — and the sound variant in release
mode), and two route plans (sound in release mode, thesis seeded). Before page breaks were
kept between lines, such a report ran to 47 pages, 28 of them ledger; the goal is at most 15
pages, the ledger on at most 2, every reason once.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from built_once import built_once

from core.cli.main import run_cli
from core.project.files import load_project, save_project
from gui.report.export import cli_report

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
KS = "10,20,50,100,200,500,1000,2000,5000,10000"

pytestmark = pytest.mark.skipif(
    not (shutil.which("pdfinfo") and shutil.which("pdftotext")),
    reason="poppler-utils is not installed: run `bash tools/ensure-debs.sh report`")


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli([str(a) for a in argv], out, err) == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture(scope="module")
def example_project(tmp_path_factory) -> Path:  # recorded once per session, not per worker
    folder = built_once(tmp_path_factory, "report-example",
                        lambda f: _record_example(f / "example.privplan.json"))
    return folder / "example.privplan.json"


def _record_example(path: Path) -> None:
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41

    p = load_project(BUILTIN)
    p.maps.append(MapEntry("map-1", fig41()))
    save_project(p, path)
    for mdp in ("four-startups", "example-2"):
        cli("sweep", path, "--mdp", mdp, "--k", KS, "--runs", "8", "--seed", "7", "--record",
            "--workers", "1", "--json")
    cli("advise", "--preset", "exp1", "--variant", "thesis", "--seed", "3", "--record", path,
        "--json", "--summary")
    cli("advise", "--preset", "exp1", "--record", path, "--json", "--summary")
    cli("plan", path, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5", "--record",
        "--json")
    cli("plan", path, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5", "--preset",
        "thesis", "--seed", "2", "--record", "--json")


def pdf_pages(path: Path) -> list[str]:
    info = subprocess.run(["pdfinfo", str(path)], check=True, capture_output=True,
                          text=True).stdout
    n = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    return [subprocess.run(["pdftotext", "-f", str(i), "-l", str(i), "-layout", str(path), "-"],
                           check=True, capture_output=True, text=True).stdout
            for i in range(1, n + 1)]


def test_the_issue_example_fits_15_pages_and_its_ledger_2(qapp, example_project, tmp_path):
    project = load_project(example_project)
    assert len(project.runs) == 6 and len(project.ledger) > 60
    assert sum(e.unbounded for e in project.ledger) >= 20  # the long reasons that filled pages
    out = tmp_path / "report.pdf"
    out_s, err = io.StringIO(), io.StringIO()
    assert cli_report(["report", str(example_project), "-o", str(out), "--json"], out_s,
                      err) == 0, err.getvalue()
    payload = json.loads(out_s.getvalue())
    pages = pdf_pages(out)
    assert payload["pages"] == len(pages) <= 15
    ledger_at = [i for i, t in enumerate(pages) if re.search(r"^\s*Privacy ledger\s*$", t, re.M)]
    assert ledger_at and len(pages) - ledger_at[-1] <= 2  # the ledger is the last section
    text = "\n".join(pages)
    # the first page: per dataset, spent under basic and the tight accountant; the runs'
    # randomness (seeded experiment or release)
    first = pages[0] + pages[1]
    assert "Privacy spent per protected dataset" in first and "spent, tight" in first
    assert "seeded experiment (seed 7)" in first and "release (secure noise)" in first
    # each unbounded reason is printed once in the ledger, not once per entry
    ledger_text = re.sub(r"\s+", " ", "\n".join(pages[ledger_at[-1]:]))
    why = "the advice was drawn from the teacher's raw policy"
    assert ledger_text.count(why) == 1
    # the route-planning section names its preset and ε per agent (no "–")
    plan = re.sub(r"[ \t]+", " ", text)
    assert re.search(r"preset sound", plan) and re.search(r"preset thesis", plan)
    assert re.search(r"ε per agent 0\.5", plan)


def test_the_full_ledger_is_an_optional_appendix(example_project, tmp_path):
    out = tmp_path / "full.html"
    sections = "overview,ledger,ledger-entries"
    payload = json.loads(cli("report", example_project, "-o", out, "--sections", sections,
                             "--json"))
    assert payload["sections"] == sections.split(",")
    html = out.read_text(encoding="utf-8")
    assert "Appendix: every ledger entry" in html and "<td>rel-1</td>" in html
    default = json.loads(cli("report", example_project, "-o", tmp_path / "d.html", "--json"))
    assert "ledger-entries" not in default["sections"]


def test_a_grid_map_prints_as_an_image(qapp):
    from core.report.model import GridImage, Report, Section
    from gui.report.export import figure_image, print_html

    grid = GridImage("g", "maps", (("true map", ("#####", "#S.G#", "#####")),
                                   ("recovered", ("#####", "#S#G#", "#####"))),
                     (("#", "#3b3b3b", "wall"), (".", "#f4f4f4", "free"),
                      ("S", "#2e7d32", "start"), ("G", "#c62828", "goal")))
    image = figure_image(grid)
    assert image.width() == 1800 and 100 < image.height() < 1800
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert {"#3b3b3b", "#2e7d32", "#c62828"} <= colours
    html = print_html(Report("r", {}, [Section("s", [grid], id="s")]))
    assert '<img src="fig:g"' in html and "#####" not in html
