"""Reports as HTML, and the report's public names in one place.

A :class:`~core.report.model.Report` (:mod:`core.report.model`) is built from a project by
:func:`~core.report.build.build_report`; each kind of analysis contributes through one small
function registered with :func:`~core.report.model.reporter`, one module per capability in
:mod:`core.report.sections` (the ``sweep`` reporter in :mod:`core.report.sections.mdp` is the
model to copy). :func:`to_html` writes a self-contained page: the stylesheet is inlined and
figures are drawn as inline SVG (:mod:`core.report.svg`), so the HTML needs no Qt and no
network. The GUI turns the same model into PDF.

Reports are reproducible: apart from the ``generated`` time stamp, a report of the same
project and inputs is byte-identical.

Sections, by id: ``overview`` (what was analysed and the privacy spent, when there is
anything to say), ``models``, one ``run-<id>`` per analysis run with a reporter
(``sweep``, ``advise``, ``plan``, ``audit``), ``no-analyses`` (when there is none) and
``ledger``. An ε without a finite bound (``math.inf``, or ``null`` in a stored summary)
reads "unbounded" with its reason everywhere — never ∞, 0 or a dropped row.

Examples
--------
>>> from core.project.model import Project
>>> r = build_report(Project(name="empty"))
>>> "no analyses" in to_html(r)
True
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from pathlib import Path

from core.report.build import (
    OPTIONAL_SECTIONS,
    build_report,
    file_sha256,
    oracle_keys,
    section_titles,
)
from core.report.model import (
    REPORTERS,
    UNBOUNDED_TEXT,
    Figure,
    GridImage,
    KeyValues,
    Paragraph,
    Report,
    Section,
    Series,
    Table,
    reporter,
)
from core.report.sections.ledger import ledger_totals, unbounded_reasons
from core.report.svg import svg_block, svg_plot

__all__ = ["default_css", "Paragraph", "KeyValues", "Table", "Series", "Figure", "Section",
           "GridImage", "Report", "reporter", "REPORTERS", "build_report", "to_html",
           "file_sha256", "svg_plot", "section_titles", "ledger_totals", "unbounded_reasons",
           "UNBOUNDED_TEXT", "oracle_keys", "OPTIONAL_SECTIONS"]


#: tables of this many columns or more are set smaller (class ``wide``)
WIDE_TABLE_COLUMNS = 9


def default_css() -> str:
    """The report's style sheet (``assets/report.css``; "" if missing): HTML and PDF use it."""
    path = Path(__file__).resolve().parents[2] / "assets" / "report.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def to_html(report: Report, *, css: str | None = None,
            figure_html: Callable[[Figure | GridImage], str] | None = None,
            break_before: Sequence[str] = ()) -> str:
    """A self-contained HTML page (inline CSS and SVG figures).

    ``figure_html(fig)`` replaces the inline SVG of each figure (and grid map) (the GUI puts an
    ``<img>`` of a pyqtgraph rendering there for PDF). Sections whose id is in
    ``break_before`` start a new page when printed (their heading has class
    ``page-break``).

    Parameters
    ----------
    report : Report
        The report (:func:`build_report`).
    css : str, optional
        The style sheet (:func:`default_css` if None).
    figure_html : callable, optional
        Renders one figure as HTML (:func:`svg_plot` if None).
    break_before : sequence of str
        Section ids that start a printed page.

    Returns
    -------
    str
        The page.
    """
    e = html.escape
    draw = figure_html or svg_block
    css = default_css() if css is None else css
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(report.title)}</title><style>{css}</style></head><body>",
             f"<h1>{e(report.title)}</h1>", '<table class="meta">']
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in report.metadata.items()]
    parts.append("</table>")
    if len(report.sections) > 1:
        parts.append('<nav><p class="contents">Contents: ' + " · ".join(
            f'{i}. <a href="#{e(s.id)}">{e(s.title)}</a>'
            for i, s in enumerate(report.sections, 1)) + "</p></nav>")
    for s in report.sections:
        cls = ' class="page-break"' if s.id in break_before else ""
        parts.append(f'<section id="{e(s.id)}"><h2{cls}>{e(s.title)}</h2>')
        for b in s.blocks:
            if isinstance(b, Paragraph):
                parts.append(f'<p class="{e(b.kind)}">{e(b.text)}</p>')
            elif isinstance(b, KeyValues):
                if b.title:
                    parts.append(f"<h3>{e(b.title)}</h3>")
                parts.append('<table class="kv">' + "".join(
                    f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in b.items) + "</table>")
            elif isinstance(b, Table):
                if b.title:
                    parts.append(f"<h3>{e(b.title)}</h3>")
                wid = (tuple(f' width="{w}%"' for w in b.widths)
                       if len(b.widths) == len(b.columns) else ("",) * len(b.columns))
                # many columns: a smaller font, so that each column can be as wide as its
                # longest word (cells never break inside a word) and the table fits the page
                cls = "wide" if len(b.columns) >= WIDE_TABLE_COLUMNS else "data"
                parts.append(f'<table class="{cls}"><thead><tr>' + "".join(
                    f"<th{w}>{e(c)}</th>" for c, w in zip(b.columns, wid))
                    + "</tr></thead><tbody>" + "".join(
                    "<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in b.rows)
                    + "</tbody></table>")
                if b.note:
                    parts.append(f'<p class="note">{e(b.note)}</p>')
            elif isinstance(b, (Figure, GridImage)):
                parts.append(f'<figure id="{e(b.id)}"><div>{draw(b)}</div>')
                if b.caption:  # a block of its own (Qt's rich text runs inline text on)
                    parts.append(f'<p class="caption">{e(b.caption)}</p>')
                parts.append("</figure>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
