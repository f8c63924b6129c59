"""Where the printed report's pages break: between text lines and table rows, never
inside one, never right after a heading, and never between a figure and its caption.

The PDF is printed page by page as strips of one laid-out :class:`QTextDocument`. Left to
paginate, Qt moved the lines of a table cell one by one past its page boundary, so a row
whose cells had different heights went on over the next page (under a repeated header),
and a strip of a fixed height could show the tops of a line that began a hair above its
edge. Here the document is laid out as one long page (:func:`lay_out_unpaged`) and read as
a list of *atoms* — vertical spans that must stay on one page: every text line (an inline
figure is part of its line), every table row (cells, padding and border), and every h2/h3
heading together with the room below it that its section needs to start on the same page,
and every figure together with its caption (:func:`atoms`). Each page ends where the next
atom begins, at most one page height below its top, or at a block that asks for a page
break before it (``page-break-before``)
(:func:`page_tops`). Only an atom taller than a page is cut (at the page height).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

__all__ = ["atoms", "forced_breaks", "lay_out_unpaged", "merged", "page_tops", "straddling",
           "HEADING_ROOM"]


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


def _table_rows(doc: Any, table: Any) -> list[tuple[float, float]]:
    """The vertical spans of the rows of ``table``, from the blocks of their cells,
    widened by the cells' padding and the border."""
    layout = doc.documentLayout()
    fmt = table.format()
    pad = float(fmt.cellPadding()) + float(fmt.border()) + float(fmt.cellSpacing())
    rows = []
    for r in range(table.rows()):
        tops, bottoms = [], []
        for c in range(table.columns()):
            cell = table.cellAt(r, c)
            if not cell.isValid():
                continue
            tops.append(_block_span(layout, cell.firstCursorPosition().block())[0])
            bottoms.append(_block_span(layout, cell.lastCursorPosition().block())[1])
        if tops:
            rows.append((min(tops) - pad, max(bottoms) + pad))
    return rows


def _tables(frame: Any) -> list[Any]:
    """The tables in ``frame`` and its sub-frames, in document order."""
    from PySide6.QtGui import QTextTable

    out = []
    for child in frame.childFrames():
        if isinstance(child, QTextTable):
            out.append(child)
        out += _tables(child)
    return out


_IMAGE = "\ufffc"  # the object replacement character an inline image is in the text

#: Room a heading keeps below its top on its page (a fraction of the page height), by level.
HEADING_ROOM = {2: 0.22, 3: 0.14}


def _words(text: str) -> str:
    return " ".join(text.split())


def atoms(doc: Any, page_height: float | None = None,
          captions: Collection[str] = ()) -> list[tuple[float, float]]:
    """Every span of the laid-out ``doc`` that a page break must not cut, in document
    coordinates: its text lines (inline images included), its table rows, — given the
    ``page_height`` — each h2/h3 heading with the room below it of :data:`HEADING_ROOM`
    (so that a heading never ends a page), and each figure with its caption: a block that
    holds only an image, with the block after it when that block's text is one of
    ``captions`` (so a caption never starts the page after its figure)."""
    layout = doc.documentLayout()
    wanted = {_words(c) for c in captions if c.strip()}
    spans: list[tuple[float, float]] = []
    block = doc.begin()
    while block.isValid():
        lines = _block_lines(layout, block)
        spans += lines
        level = block.blockFormat().headingLevel()
        if page_height and level in HEADING_ROOM and lines:
            top = lines[0][0]
            spans.append((top, top + HEADING_ROOM[level] * page_height))
        after = block.next()
        if (lines and wanted and block.text() == _IMAGE and after.isValid()
                and _words(after.text()) in wanted):
            below = _block_lines(layout, after)
            if below:
                spans.append((lines[0][0], below[-1][1]))
        block = after
    for table in _tables(doc.rootFrame()):
        spans += _table_rows(doc, table)
    return spans


def forced_breaks(doc: Any) -> list[float]:
    """The tops of the blocks that ask for a page break before them."""
    from PySide6.QtGui import QTextFormat

    layout = doc.documentLayout()
    out = []
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore:
            out.append(_block_span(layout, block)[0])
        block = block.next()
    return out


def lay_out_unpaged(doc: Any, width: float) -> float:
    """Lay ``doc`` out as one page ``width`` wide (no pagination by Qt); its content's
    bottom."""
    doc.setDocumentMargin(0)
    doc.setTextWidth(width)
    layout = doc.documentLayout()
    return float(layout.documentSize().height())


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


def page_tops(spans: list[tuple[float, float]], page_height: float, end: float,
              forced: list[float] | None = None) -> list[float]:
    """The document y at which each page starts: the first at 0, each next one at most a
    page height below — at a forced break if one comes first, else moved up to the top of
    an atom the edge would cut (unless that atom starts at the same page's top: taller
    than a page, it is cut).

    Parameters
    ----------
    spans : list of (float, float)
        The atoms (:func:`atoms`), in any order.
    page_height : float
        The height of the page's body.
    end : float
        The bottom of the document's content.
    forced : list of float, optional
        Where a page must start (:func:`forced_breaks`).

    Returns
    -------
    list of float
        Ascending page tops; the last page runs to ``end``.
    """
    if page_height <= 0:
        raise ValueError("page height must be > 0")
    spans = merged(spans)
    must = sorted(f for f in (forced or []) if 1e-6 < f < end - 1e-6)
    tops = [0.0]
    while True:
        top = tops[-1]
        nxt = next((f for f in must if f > top + 1e-6), None)
        if nxt is not None and nxt <= top + page_height:
            tops.append(nxt)
            continue
        if top + page_height >= end - 1e-6:
            return tops
        y = top + page_height
        for a, b in spans:
            if a >= y:
                break
            if a < y < b and a > top + 1e-6:
                y = a
                break
        tops.append(y)
