"""A project with nine analyses across the capabilities, as a first afternoon leaves it.

Eight are recorded through the command line (each as the window records it): a privacy sweep,
a design and a bounds run on the four-startups MDP, a route plan on the fig41 map, DP advising
Experiment 1, a Laplace audit, policy sharing on the four-startups MDP and a membership
inference study; the ninth, a DP-DRL agent on the 12×11 example grid, is recorded with the
workspace's own record function (``drl`` has no ``--record``). Small sizes keep it quick.
"""

from __future__ import annotations

import io
from pathlib import Path

from core.cli.main import run_cli
from core.project.files import load_project, save_project

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "assets" / "examples" / "builtin.privplan.json"
KS = "10,20,50,100,200,500,1000,2000,5000,10000"


def cli(*argv: object) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli([str(a) for a in argv], out, err) == 0, err.getvalue()
    return out.getvalue()


def build_nine_run_project(path: Path) -> Path:
    """Write the project to ``path`` and record its nine analyses; returns ``path``."""
    from core.gridworld.maps import example_12x11
    from core.gridworld.release import DrlParameters, drl_release
    from core.logistics.document import MapEntry
    from core.logistics.examples import fig41
    from core.project.recording import drl_run_record, record_run

    p = load_project(BUILTIN)
    p.maps.append(MapEntry("map-1", fig41()))
    save_project(p, path)
    cli("sweep", path, "--mdp", "four-startups", "--k", KS, "--runs", "8", "--seed", "7",
        "--record", "--workers", "1", "--json")
    cli("design", path, "--mdp", "four-startups", "--epsilon", "1", "--delta", "0.05",
        "--record", "--json")
    cli("bounds", path, "--mdp", "four-startups", "--k", "100", "--beta", "0.05", "--seed",
        "3", "--record", "--json")
    cli("plan", path, "--origin", "a2", "--goal-agent", "f", "--epsilon", "0.5", "--record",
        "--json")
    cli("advise", "--preset", "exp1", "--seed", "3", "--record", path, "--json", "--summary")
    cli("audit", "laplace", "--epsilon", "1", "--sensitivity", "1", "--samples", "20000",
        "--seed", "4", "--record", path, "--json")
    cli("share", path, "--mdp", "four-startups", "--seeds", "2", "--seed", "5",
        "--record", "--json")
    cli("mia", "--data", "digits", "--train-size", "60", "--shadows", "2", "--epochs", "5",
        "--seed", "1", "--record", path, "--json")
    p = load_project(path)
    params = DrlParameters(defense="dpdrl", preset="strict", epsilon=1.0, episodes=300, seed=6)
    record, entries = drl_run_record(p, drl_release(params, grid=example_12x11()), params,
                                     "example")
    record_run(p, record, entries)
    save_project(p, path)
    return path


def laid_out(report, images=None):
    """The report's QTextDocument laid out as :func:`gui.report.export.pdf_steps` lays it
    out (A4, 300 dpi, one long page), with the body's width and height."""
    from PySide6.QtCore import QMarginsF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter

    from gui.report.export import MARGINS_MM, PDF_DPI, render_figures, text_document
    from gui.report.pages import lay_out_unpaged

    writer = QPdfWriter(str(Path(__import__("tempfile").mkdtemp()) / "x.pdf"))
    writer.setResolution(PDF_DPI)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4),
                                     QPageLayout.Orientation.Portrait, QMarginsF(*MARGINS_MM),
                                     QPageLayout.Unit.Millimeter))
    paint = writer.pageLayout().paintRectPixels(PDF_DPI)
    body_w, body_h = float(paint.width()), float(paint.height()) - 0.32 * PDF_DPI
    images = render_figures(report) if images is None else images
    doc = text_document(report, images, image_width=int(body_w / PDF_DPI * 96) - 2)
    doc.documentLayout().setPaintDevice(writer)
    lay_out_unpaged(doc, body_w)
    doc._keep = writer  # the layout's paint device lives as long as the document
    return doc, body_w, body_h


def mid_token_breaks(doc) -> list[str]:
    """Line breaks of ``doc`` inside a word or a number ("unboun|ded", "0.0863|3")."""
    bad = []
    block = doc.begin()
    while block.isValid():
        text, layout = block.text(), block.layout()
        for i in range(1, layout.lineCount()):
            k = layout.lineAt(i).textStart()
            if 0 < k < len(text) and all(c.isalnum() or c == "." for c in text[k - 1:k + 1]):
                bad.append(f"{text[max(0, k - 8):k]}|{text[k:k + 8]}")
        block = block.next()
    return bad


def tables_wider_than(doc, width: float) -> list[str]:
    from gui.report.pages import _tables

    layout = doc.documentLayout()
    return [t.cellAt(0, 0).firstCursorPosition().block().text()
            for t in _tables(doc.rootFrame()) if layout.frameBoundingRect(t).width() > width + 2]

