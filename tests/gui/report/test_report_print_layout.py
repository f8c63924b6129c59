"""The printed report as a document: table cells wrap between words only, a figure's caption
sits right under it and on its page, every PDF figure's legend is clear of its data."""

from __future__ import annotations

from report_project import laid_out, mid_token_breaks, tables_wider_than

from core.report.model import Figure, Paragraph, Report, Section, Series, Table
from gui.report.export import figure_image
from gui.report.pages import atoms, page_tops


def _narrow_table_report() -> Report:
    from core.modelprivacy.records import TABLE_COLUMNS  # the widest table: 11 columns

    cols = tuple(TABLE_COLUMNS)
    row = ("no defense", "0.08633", "0.05468", "0.0434", "0.0434", "0.517", "—",
           "unbounded", "0.0122", "60263", "2.77e-05")
    return Report("r", {}, [Section("s", [Table(cols, (row, row))], id="s")])


def test_table_cells_never_break_a_word_or_a_number(qapp):
    doc, body_w, _ = laid_out(_narrow_table_report(), {})
    assert mid_token_breaks(doc) == []  # Qt's default wrap gave "unboun|ded", "0.0863|3"
    assert tables_wider_than(doc, body_w) == []


def _figure_report(filler: int, notes: int = 0) -> tuple[Report, Figure]:
    fig = Figure("f", "a figure", "x", "y", (Series("a", (0.0, 1.0, 2.0), (0.0, 1.0, 0.5)),),
                 caption="The caption that belongs to the figure above it.")
    blocks = [Paragraph(f"filler line {i}") for i in range(filler)] + [
        Paragraph(f"a smaller note {i}", "note") for i in range(notes)] + [
        fig, Paragraph("after")]
    return Report("r", {}, [Section("s", blocks, id="s")]), fig


def _spans(doc, caption):
    """(image line, caption line) spans in document coordinates."""
    from gui.report.pages import _block_lines

    layout = doc.documentLayout()
    block, image = doc.begin(), None
    while block.isValid():
        if block.text() == "\ufffc":
            image = _block_lines(layout, block)[0]
        elif block.text() == caption and image is not None:
            return image, _block_lines(layout, block)[0]
        block = block.next()
    raise AssertionError("figure or caption not found")


def test_a_caption_sits_right_under_its_figure(qapp):
    rep, fig = _figure_report(1)
    doc, _, _ = laid_out(rep, {"f": figure_image(fig)})
    (i_top, i_bottom), (c_top, _) = _spans(doc, fig.caption)
    # the body's line-height of 1.4 added 40 % of the image's height below it (an inch)
    assert 0 <= c_top - i_bottom < 0.05 * (i_bottom - i_top)


def test_a_caption_is_never_on_the_page_after_its_figure(qapp):
    image = None
    split_without_rule = 0
    # text lines and smaller notes have different heights: together they move the figure
    # down the page in steps finer than a caption's height
    for filler, notes in ((f, n) for f in range(24, 44) for n in range(3)):
        rep, fig = _figure_report(filler, notes)
        image = image or figure_image(fig)
        doc, _, body_h = laid_out(rep, {"f": image})
        end = doc.documentLayout().documentSize().height()
        (_, i_bottom), (c_top, _) = _spans(doc, fig.caption)

        def split(tops):
            return any(i_bottom - 1 <= t <= c_top + 1 for t in tops[1:])

        split_without_rule += split(page_tops(atoms(doc, body_h), body_h, end))
        assert not split(page_tops(atoms(doc, body_h, [fig.caption]), body_h, end)), \
            (filler, notes)
    assert split_without_rule  # some filler length did put the caption on the next page


def test_consecutive_figures_have_room_between_them(qapp):
    """One figure's title sat on the previous figure's x-axis label (no gap at all)."""
    from gui.report.export import FIGURE_GAP_PX, PDF_DPI
    from gui.report.pages import _block_lines

    figs = [Figure(f"f{i}", f"figure {i}", "x", "y",
                   (Series("a", (0.0, 1.0, 2.0), (0.0, 1.0, 0.5)),)) for i in range(3)]
    rep = Report("r", {}, [Section("s", [Paragraph("before"), *figs], id="s")])
    doc, _, _ = laid_out(rep, {f.id: figure_image(f) for f in figs})
    layout = doc.documentLayout()
    spans = []
    block = doc.begin()
    while block.isValid():
        if block.text().strip() == "\ufffc":
            spans.append(_block_lines(layout, block)[0])
        block = block.next()
    assert len(spans) == 3
    gap = FIGURE_GAP_PX * PDF_DPI / 96 * 0.9  # CSS pixels at the PDF's resolution
    for (_, bottom), (top, _) in zip(spans, spans[1:]):
        assert top - bottom >= gap
