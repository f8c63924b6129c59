"""Where the printed report's pages break: between text lines, never inside one.

The PDF is printed page by page as strips of Qt's laid-out :class:`QTextDocument`. Qt
paginates the document itself, but a strip of a fixed height cut whatever sat across its
edge: a line that started a hair above the boundary showed the tops of its glyphs at the
foot of one page and the rest on the next. Here the laid-out document is read as a list of
*atoms* — vertical spans that must stay on one page: every text line, the lines of table
cells included (an inline figure is part of its line) — and each page ends where the next
atom begins, at most one page height below its top (:func:`page_tops`). Only an atom
taller than a page is cut (at the page height).

Table rows are not atoms: Qt itself continues a table on the next page under its repeated
header, moving the cells' lines one by one, so a row whose cells have different heights
can continue there (its lines whole). Moving such a row whole is not done.
"""

from __future__ import annotations

from typing import Any

__all__ = ["atoms", "merged", "page_tops", "straddling"]


def _block_lines(layout: Any, block: Any) -> list[tuple[float, float]]:
    """The vertical spans (document coordinates) of the lines of ``block``."""
    # Qt's blockBoundingRect is (the layout's position, its bounding size): the lines sit
    # at that top plus their own y (a line moved down a page by Qt has a large y)
    rect = layout.blockBoundingRect(block)
    text_layout = block.layout()
    base = rect.top()
    out = []
    for i in range(text_layout.lineCount()):
        line = text_layout.lineAt(i)
        top = base + line.y()
        out.append((top, top + line.height()))
    if not out and rect.height() > 0:  # an empty block still takes its room
        out.append(_block_span(layout, block))
    return out


def _block_span(layout: Any, block: Any) -> tuple[float, float]:
    """The vertical span (document coordinates) of what ``block`` draws."""
    top = layout.blockBoundingRect(block).top() + block.layout().boundingRect().top()
    return top, top + block.layout().boundingRect().height()


def atoms(doc: Any) -> list[tuple[float, float]]:
    """Every span of the laid-out ``doc`` that a page break must not cut: its text lines
    (inline images included; the lines of table cells too), in document coordinates."""
    layout = doc.documentLayout()
    spans: list[tuple[float, float]] = []
    block = doc.begin()
    while block.isValid():
        spans += _block_lines(layout, block)
        block = block.next()
    return spans


def merged(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping spans joined (lines side by side in table cells), sorted."""
    out: list[list[float]] = []
    for top, bottom in sorted(spans):
        if out and top < out[-1][1]:
            out[-1][1] = max(out[-1][1], bottom)
        else:
            out.append([top, bottom])
    return [(a, b) for a, b in out]


def straddling(spans: list[tuple[float, float]], y: float, tol: float = 1e-3
               ) -> list[tuple[float, float]]:
    """The spans a page break at ``y`` would cut."""
    return [(a, b) for a, b in spans if a < y - tol and b > y + tol]


def page_tops(spans: list[tuple[float, float]], page_height: float, end: float
              ) -> list[float]:
    """The document y at which each page starts: the first at 0, each next one at most a
    page height below, moved up to the top of an atom the edge would cut (unless that
    atom starts on the same page's top: taller than a page, it is cut).

    Parameters
    ----------
    spans : list of (float, float)
        The atoms (:func:`atoms`), in any order.
    page_height : float
        The height of the page's body.
    end : float
        The bottom of the document's content.

    Returns
    -------
    list of float
        Ascending page tops; the last page runs to ``end``.
    """
    if page_height <= 0:
        raise ValueError("page height must be > 0")
    spans = merged(spans)
    tops = [0.0]
    while tops[-1] + page_height < end - 1e-6:
        y = tops[-1] + page_height
        for a, b in spans:
            if a >= y:
                break
            if a < y < b and a > tops[-1] + 1e-6:
                y = a
                break
        tops.append(y)
    return tops

