"""A table as wide as the text stays inside the text in the PDF: its right border is drawn
whole, as thick as its left one, left of the text's right edge (Qt draws a collapsed outer
border half outside the table's box, and the page's clip at the text edge cut it)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from core.report.model import KeyValues, Report, Section, Table
from gui.report.export import MARGINS_MM, PDF_DPI, write_pdf

pytestmark = pytest.mark.skipif(not shutil.which("pdftoppm"),
                                reason="poppler-utils is not installed: run "
                                       "`bash tools/ensure-debs.sh report`")


def _report() -> Report:
    from core.modelprivacy.records import TABLE_COLUMNS  # the widest table: 11 columns

    row = ("no defense", "0.08633", "0.05468", "0.0434", "0.0434", "0.517", "—",
           "unbounded", "0.0122", "60263", "2.77e-05")
    long_text = " ".join(["a long value that wraps over the whole width"] * 12)
    return Report("r", {}, [Section("s", [
        Table(tuple(TABLE_COLUMNS), (row,) * 3),
        KeyValues((("key", long_text), ("other", "short"))),
        Table(("column", "value"), (("x", long_text),)),
    ], id="s")])


def _page(path, tmp_path) -> np.ndarray:
    """Page 1 of ``path`` at the PDF's resolution, grey levels (0 black, 255 white)."""
    subprocess.run(["pdftoppm", "-r", str(PDF_DPI), "-f", "1", "-l", "1", "-gray", str(path),
                    str(tmp_path / "page")], check=True)
    data = next(tmp_path.glob("page*.pgm")).read_bytes()
    magic, size, maxval, pixels = data.split(b"\n", 3)
    assert magic == b"P5" and maxval == b"255"
    w, h = map(int, size.split())
    return np.frombuffer(pixels, dtype=np.uint8)[:w * h].reshape(h, w)


def _border_columns(page: np.ndarray) -> list[list[int]]:
    """Runs of pixel columns drawn (not white) over most of the tables' height: the tables'
    vertical borders, left to right."""
    body = page[:int(page.shape[0] - (MARGINS_MM[3] / 25.4 + 0.32) * PDF_DPI)]  # no footer
    rows = np.where((body < 235).sum(axis=1) > 0.5 * page.shape[1])[0]  # horizontal rules
    top, bottom = int(rows.min()), int(rows.max())
    drawn = (body[top:bottom] < 235).sum(axis=0) > 0.6 * (bottom - top)
    runs: list[list[int]] = []
    for x in np.where(drawn)[0]:
        if runs and x == runs[-1][-1] + 1:
            runs[-1].append(int(x))
        else:
            runs.append([int(x)])
    return runs


def test_full_width_tables_are_drawn_inside_the_text_with_their_right_border(qapp, tmp_path):
    out = tmp_path / "tables.pdf"
    write_pdf(_report(), {}, out)
    page = _page(out, tmp_path)
    text_left, text_right = _text_edges()
    runs = _border_columns(page)
    assert len(runs) >= 2, runs
    left, right = runs[0], runs[-1]
    # the right border ends at least a pixel (of ~3) clear of the page's clip at the text
    # edge; it ended within half a pixel of it, or past it for an 11-column table
    assert left[0] >= text_left - 1 and right[-1] + 1 <= text_right - 1, \
        (left, right, text_right)
    assert len(right) == len(left)  # whole, as thick as the left border
    assert right[0] > text_right - 0.02 * (text_right - text_left)  # the tables span the text


def _text_edges() -> tuple[float, float]:
    """The text's left and right edges on the page, in pixels, as write_pdf lays it out."""
    from PySide6.QtCore import QMarginsF
    from PySide6.QtGui import QPageLayout, QPageSize

    layout = QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                         QMarginsF(*MARGINS_MM), QPageLayout.Unit.Millimeter)
    paint = layout.paintRectPixels(PDF_DPI)
    left = MARGINS_MM[0] / 25.4 * PDF_DPI
    return left, left + paint.width()
