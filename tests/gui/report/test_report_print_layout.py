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


def _figure_report(filler: int) -> tuple[Report, Figure]:
    fig = Figure("f", "a figure", "x", "y", (Series("a", (0.0, 1.0, 2.0), (0.0, 1.0, 0.5)),),
                 caption="The caption that belongs to the figure above it.")
    blocks = [Paragraph(f"filler line {i}") for i in range(filler)] + [fig, Paragraph("after")]
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
    for filler in range(0, 60, 2):
        rep, fig = _figure_report(filler)
        image = image or figure_image(fig)
        doc, _, body_h = laid_out(rep, {"f": image})
        end = doc.documentLayout().documentSize().height()
        (_, i_bottom), (c_top, _) = _spans(doc, fig.caption)

        def split(tops):
            return any(i_bottom - 1 <= t <= c_top + 1 for t in tops[1:])

        split_without_rule += split(page_tops(atoms(doc, body_h), body_h, end))
        assert not split(page_tops(atoms(doc, body_h, [fig.caption]), body_h, end)), filler
    assert split_without_rule  # some filler length did put the caption on the next page
