"""Report export: the pure :class:`core.report.html.Report` as self-contained HTML, or as PDF.

* HTML is :func:`core.report.html.to_html` (inline stylesheet from ``assets/report.css`` and
  inline SVG figures), written atomically by :func:`write_html`.
* PDF is Qt's: every :class:`core.report.html.Figure` is drawn with pyqtgraph and exported
  at print resolution (:func:`figure_image`, 1800 px wide ≈ 270 dpi across the text
  width), the report's HTML (with ``assets/report-print.css`` added) is laid out by a
  :class:`QTextDocument` at the A4 text width and cut into pages between lines and table
  rows, never inside one, right after a heading nor between a figure and its caption
  (:mod:`gui.report.pages`; lines wrap at word boundaries, never inside a number), and every
  page gets a footer with the title and "page i of n" (:func:`write_pdf`).

Everything here runs on the GUI thread (pyqtgraph and Qt's text layout need an event
loop); :func:`pdf_steps` yields after the layout and after each page, so the export
dialog drives it from a timer and stays responsive, with progress and Cancel.

``install_export_action(window)`` adds File ▸ Export Report… (Ctrl+E) to a main window;
``install_cli_pdf()`` lets the headless ``report … -o OUT.pdf`` command use this module.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from core.common import CYCLE, Progress, cycle_colour, no_progress
from gui.report.pages import atoms, forced_breaks, lay_out_unpaged, page_tops
from gui.shell.tools import register_window_extension

if TYPE_CHECKING:
    from PySide6.QtGui import QAction, QImage

    from core.report import Figure, GridImage, Report

__all__ = ["FIGURE_SIZE", "PALETTE", "figure_image", "render_figures", "print_html",
           "page_breaks", "pdf_steps", "write_pdf", "text_document", "render_pdf",
           "write_html", "export_report", "install_export_action", "install_cli_pdf",
           "cli_report", "suggested_name"]

FIGURE_SIZE = (1800, 760)  # pixels of each figure in the PDF
PREVIEW_FIGURE_SIZE = (1000, 422)
FIGURE_WIDTH = 0.86  # of the text width: a figure and its table share a page more often
FIGURE_GAP_PX = 9.0  # CSS pixels (about 7 pt) between two figures in a row
PALETTE = CYCLE  # kept for callers of this module; the colours live in core.common.palette
PDF_DPI = 300
MARGINS_MM = (18.0, 15.0, 18.0, 12.0)  # left, top, right, bottom (the footer sits inside)


def _font_pixels(size: int, scale: float) -> str:
    return f"{int(round(size * scale))}px"


# --------------------------------------------------------------------------- figures
def figure_image(fig: "Figure | GridImage", *, size: tuple[int, int] = FIGURE_SIZE) -> "QImage":
    """Draw ``fig`` with pyqtgraph and return it as an image of ``size`` pixels.

    Fonts and lines are scaled with the width, so the figure reads like a 760-pixel-wide
    plot on screen at every size; the legend goes where the workspaces put theirs
    (:func:`gui.shell.plots.place_legend`: a corner that covers no data, else beside or under
    the axes). Needs a QApplication and the GUI thread.
    """
    from pyqtgraph.exporters import ImageExporter
    from PySide6.QtWidgets import QApplication

    from core.report import GridImage

    if isinstance(fig, GridImage):
        return grid_image(fig, width=size[0])
    w, h = size
    widget = figure_plot(fig, size=size)
    try:
        QApplication.processEvents()  # let the plot's layout settle before exporting
        exporter = ImageExporter(widget.getPlotItem())
        exporter.parameters()["width"] = w
        exporter.parameters()["height"] = h
        image = exporter.export(toBytes=True)
    finally:
        widget.deleteLater()
    return image


def figure_plot(fig: "Figure", *, size: tuple[int, int] = FIGURE_SIZE) -> Any:
    """The pyqtgraph ``PlotWidget`` of ``fig`` at ``size`` (what :func:`figure_image`
    exports): the data range is the data's, each series in its palette colour, the legend
    where it covers no data."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFont

    w, h = size
    s = w / 760.0
    widget = pg.PlotWidget(background="w")
    widget.resize(w, h)
    item = widget.getPlotItem()
    # the plot item fills the image; the *data* range stays automatic (setting the view
    # range to the pixel size drew a 0..1800 x 0..900 frame around a 0..1 curve)
    item.setGeometry(QRectF(0, 0, w, h))
    tick_font = QFont("DejaVu Sans")
    tick_font.setPixelSize(int(round(12 * s)))
    item.setTitle(fig.title, size=_font_pixels(14, s), bold=True, color="k")
    for side, text in (("bottom", fig.x_label), ("left", fig.y_label)):
        axis = item.getAxis(side)
        axis.setTickFont(tick_font)
        axis.enableAutoSIPrefix(False)
        axis.setPen(pg.mkPen("k", width=max(1.0, s)))
        axis.setTextPen("k")
        axis.setStyle(tickLength=int(6 * s), tickTextOffset=int(4 * s))
        axis.setLabel(text, **{"font-size": _font_pixels(13, s), "color": "#000"})
    # room for the tick labels and the axis title side by side (no overlap)
    item.getAxis("left").setWidth(int(78 * s))
    item.getAxis("bottom").setHeight(int(46 * s))
    item.setLogMode(x=fig.log_x, y=fig.log_y)
    if fig.log_x:
        xs = [x for ser in fig.series for x in ser.x if x > 0 and math.isfinite(x)]
        if xs:
            lo = math.floor(math.log10(min(xs)))
            hi = math.ceil(math.log10(max(xs)))
            item.getAxis("bottom").setTicks(
                [[(float(e), f"{10.0 ** e:g}") for e in range(lo, hi + 1)], []])
    item.getViewBox().setDefaultPadding(0.04)
    item.showGrid(x=True, y=True, alpha=0.18)
    if len(fig.series) > 1 or (fig.series and fig.series[0].name):
        item.addLegend(offset=(-int(10 * s), int(10 * s)),
                       labelTextSize=_font_pixels(11, s), labelTextColor="k",
                       brush=pg.mkBrush(255, 255, 255, 230), pen=pg.mkPen("#999"))
    for i, ser in enumerate(fig.series):
        colour = ser.colour or cycle_colour(i)
        style = Qt.PenStyle.DashLine if ser.dashed else Qt.PenStyle.SolidLine
        x = np.asarray(ser.x, dtype=float)
        y = np.asarray(ser.y, dtype=float)
        ok = np.isfinite(x) & np.isfinite(y) & ((x > 0) if fig.log_x else True) & (
            (y > 0) if fig.log_y else True)
        if ser.segments:  # a map's routes: separate segments, small node dots
            keep = ok.reshape(-1, 2).all(axis=1).repeat(2) if ok.size % 2 == 0 else ok
            item.plot(x[keep], y[keep], connect="pairs",
                      pen=pg.mkPen(colour, width=1.2 * s, style=style), symbol="o",
                      symbolSize=int(4 * s), symbolBrush=colour, symbolPen=None,
                      name=ser.name)
            continue
        if ser.markers:  # a map's locations: large markers with a white rim, no line
            marker = (15 if ser.symbol == "d" else 11) * s  # pyqtgraph's diamond is small
            item.plot(x[ok], y[ok], pen=None, symbol=ser.symbol, symbolSize=int(marker),
                      symbolBrush=colour, symbolPen=pg.mkPen("w", width=max(1.0, s)),
                      name=ser.name)
            continue
        item.plot(x[ok], y[ok], pen=pg.mkPen(colour, width=2 * s, style=style),
                  symbol="o", symbolSize=int(6 * s), symbolBrush=colour, symbolPen=None,
                  name=ser.name)
        if ser.low is not None and ser.high is not None and not fig.log_y and ok.any():
            # the band's ends as the Series keeps them: clipped to the quantity's range
            top = np.nan_to_num(np.asarray(ser.high, dtype=float)[ok] - y[ok])
            bottom = np.nan_to_num(y[ok] - np.asarray(ser.low, dtype=float)[ok])
            bx = np.log10(x[ok]) if fig.log_x else x[ok]
            item.addItem(pg.ErrorBarItem(x=bx, y=y[ok], top=np.maximum(top, 0.0),
                                         bottom=np.maximum(bottom, 0.0),
                                         beam=0.015 * (np.ptp(bx) or 1.0),
                                         pen=pg.mkPen(colour, width=max(1.0, s))))
    if not fig.series:
        text = pg.TextItem("no data", color="#666", anchor=(0.5, 0.5))
        item.addItem(text)
    item.enableAutoRange()
    item.autoRange()
    legend = item.legend
    if legend is not None:  # the screen's rule: a free corner, else beside or under the axes
        from PySide6.QtWidgets import QApplication

        from gui.shell.plots import place_legend

        QApplication.processEvents()  # the legend and the axes get their sizes first
        place_legend(widget, legend)
        QApplication.processEvents()  # a legend moved beside the axes narrows them
    return widget


def grid_image(grid: Any, *, width: int = FIGURE_SIZE[0]) -> "QImage":
    """Grid maps (:class:`core.report.model.GridImage`) painted as coloured cells, side by
    side with their labels and a legend underneath, ``width`` pixels wide."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

    panels = [(label, rows) for label, rows in grid.panels if rows]
    cols = sum(max(len(r) for r in rows) for _, rows in panels) or 1
    n_rows = max((len(rows) for _, rows in panels), default=1)
    gap_cells = 2.0
    cell = min(width / (cols + gap_cells * max(0, len(panels) - 1)), width / 40 * 1.6)
    s = width / 760.0
    head, foot = 26 * s, 34 * s
    height = int(head + n_rows * cell + foot)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    colours = {c: col for c, col, _ in grid.legend}
    p = QPainter(image)
    try:
        font = QFont("DejaVu Sans")
        font.setPixelSize(int(round(12 * s)))
        p.setFont(font)
        p.setPen(QPen(QColor("#cccccc"), max(1.0, 0.5 * s)))
        x0 = 0.0
        for label, rows in panels:
            w = max(len(r) for r in rows)
            p.setPen(QColor("black"))
            p.drawText(QRectF(x0, 0, w * cell, head), int(Qt.AlignmentFlag.AlignCenter), label)
            p.setPen(QPen(QColor("#cccccc"), max(1.0, 0.5 * s)))
            for i, row in enumerate(rows):
                for j, ch in enumerate(row):
                    p.setBrush(QColor(colours.get(ch, "#ffffff")))
                    p.drawRect(QRectF(x0 + j * cell, head + i * cell, cell, cell))
            x0 += (w + gap_cells) * cell
        x, y = 0.0, head + n_rows * cell + 10 * s
        for _ch, col, meaning in grid.legend:
            p.setPen(QColor("#999999"))
            p.setBrush(QColor(col))
            p.drawRect(QRectF(x, y, 14 * s, 14 * s))
            p.setPen(QColor("black"))
            p.drawText(QRectF(x + 18 * s, y - 2 * s, 200 * s, 18 * s),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), meaning)
            x += (30 + 8 * len(meaning)) * s
    finally:
        p.end()
    return image


def render_figures(report: "Report", *, size: tuple[int, int] = FIGURE_SIZE,
                   progress: Progress = no_progress) -> dict[str, "QImage"]:
    """Every figure of ``report`` as an image, by figure id (GUI thread)."""
    figs = report.figures()
    out = {}
    for i, fig in enumerate(figs):
        progress(i / max(1, len(figs)), f"figure {i + 1} of {len(figs)}: {fig.title}")
        out[fig.id] = figure_image(fig, size=size)
    progress(1.0, "figures done")
    return out


# --------------------------------------------------------------------------- HTML
def page_breaks(report: "Report") -> list[str]:
    """Sections that start a new page in print: the first analysis (after the summary and
    the models), the ledger and its appendix. Analyses follow each other on the page — a
    page per analysis left most pages half empty."""
    runs = [s.id for s in report.sections if s.id.startswith("run-")]
    ids = {s.id for s in report.sections}
    first = runs[:1] if ids - set(runs) - {"ledger", "ledger-entries"} else []
    return first + [i for i in ("ledger", "ledger-entries") if i in ids and (runs or
                                                                          i != "ledger")]


def _print_css() -> str:
    from core.report import default_css
    from gui.shell.resources import asset_path

    extra = asset_path("report-print.css")
    return default_css() + "\n" + (extra.read_text(encoding="utf-8") if extra.is_file()
                                    else "")


def print_html(report: "Report", *, image_width: int = 640) -> str:
    """The report's HTML for Qt: figures as ``<img src="fig:ID">`` (see :func:`write_pdf`)."""
    import html

    from core.report import GridImage, to_html

    def img(fig: "Figure | GridImage") -> str:
        scale = 0.7 if isinstance(fig, GridImage) else FIGURE_WIDTH
        return (f'<img src="fig:{html.escape(fig.id)}" width="{int(image_width * scale)}" '
                f'alt="{html.escape(fig.title)}">')

    return to_html(report, css=_print_css(), figure_html=img,
                   break_before=page_breaks(report))


def text_document(report: "Report", images: dict[str, "QImage"], *,
                  image_width: int = 640, moved: Sequence[int] = (), parent: Any = None
                  ) -> Any:
    """A QTextDocument of the report with its figure images as resources.

    ``moved``: ordinals of h2/h3 headings that start a new page (see :func:`write_pdf`).
    """
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QTextDocument, QTextOption

    doc = QTextDocument(parent)
    # lines wrap at word boundaries only: Qt's default also broke inside a word or a number
    # when a table column was narrow ("unboun|ded", "0.0863|3"); a column is now as wide as
    # its longest word
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    for fid, image in images.items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"fig:{fid}"), image)
    doc.setHtml(_break_headings(print_html(report, image_width=image_width), moved))
    _space_figures(doc)
    return doc


def _space_figures(doc: Any) -> None:
    """Room between two figures in a row: one's title sat on the other's x-axis label.

    Qt's HTML import drops a margin set on the figure's ``<div>`` (inside ``<figure>``, a
    tag it does not know), so the margin goes on the image's block here.
    """
    from PySide6.QtGui import QTextBlockFormat, QTextCursor

    block, after_figure = doc.begin(), False
    while block.isValid():
        figure = block.text().strip() == "\ufffc"  # a block that holds one image
        if figure and after_figure:  # (after text or a table, their margin is room enough)
            fmt = QTextBlockFormat()
            fmt.setTopMargin(max(block.blockFormat().topMargin(), FIGURE_GAP_PX))
            QTextCursor(block).mergeBlockFormat(fmt)
        after_figure = figure
        block = block.next()


# --------------------------------------------------------------------------- PDF
_HEADING = re.compile(r"<h([23])( class=\"[^\"]*\")?>")


def _break_headings(html_text: str, ordinals: Sequence[int]) -> str:
    """Give the h2/h3 headings number ``ordinals`` (in document order) a page break."""
    wanted = set(ordinals)
    counter = iter(range(1 << 30))

    def sub(m: re.Match[str]) -> str:
        return (f'<h{m.group(1)} class="page-break" style="page-break-before: always">'
                if next(counter) in wanted else m.group(0))

    return _HEADING.sub(sub, html_text)


def pdf_steps(report: "Report", images: dict[str, "QImage"], path: str | os.PathLike[str],
              *, resolution: int = PDF_DPI) -> Generator[tuple[float, str], None, int]:
    """Write the PDF step by step: yields ``(fraction, message)``, returns the page count.

    Layout first, then one page per step, so a GUI can drive it from a timer (progress,
    cancel by closing the generator). Qt's text layout uses timers, so this runs on a
    thread with an event loop — the GUI thread. The file is written next to ``path``
    first and renamed: a failed or cancelled export leaves no half-written PDF. Raises
    ``OSError`` when ``path`` cannot be written.
    """
    from PySide6.QtCore import QMarginsF, QPointF, QRectF, Qt
    from PySide6.QtGui import (
        QAbstractTextDocumentLayout,
        QColor,
        QFont,
        QPageLayout,
        QPageSize,
        QPainter,
        QPdfWriter,
        QPen,
    )

    from core import __version__

    path = str(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(2, "folder does not exist", folder)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a folder", path)
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(13, "permission denied", path)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    yield 0.0, "laying out"
    writer = QPdfWriter(tmp)
    doc = None
    painter = QPainter()
    try:
        writer.setResolution(resolution)
        writer.setTitle(report.title)
        writer.setCreator(f"PrivPlan {__version__}")
        left, top, right, bottom = MARGINS_MM
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4),
                                         QPageLayout.Orientation.Portrait,
                                         QMarginsF(left, top, right, bottom),
                                         QPageLayout.Unit.Millimeter))
        paint = writer.pageLayout().paintRectPixels(resolution)
        footer = 0.32 * resolution  # inches -> device pixels
        body_w, body_h = float(paint.width()), float(paint.height()) - footer
        # the text width in CSS pixels (96 per inch), minus a hair for rounding
        image_width = int(body_w / resolution * 96) - 2

        doc = text_document(report, images, image_width=image_width)
        doc.documentLayout().setPaintDevice(writer)  # fonts and images at 300 dpi
        end = lay_out_unpaged(doc, body_w)  # one long page: the breaks are ours
        layout = doc.documentLayout()
        # pages break between lines and table rows, never inside one, after a heading nor
        # between a figure and its caption
        captions = [f.caption for f in report.figures() if f.caption]
        tops = page_tops(atoms(doc, body_h, captions), body_h, end, forced_breaks(doc))
        pages = len(tops)
        if not painter.begin(writer):
            raise PermissionError(13, "cannot write the PDF", path)
        small = QFont("DejaVu Sans")
        small.setPointSizeF(7.5)
        for i in range(pages):
            yield 0.1 + 0.9 * i / pages, f"page {i + 1} of {pages}"
            if i:
                writer.newPage()
            painter.save()
            bottom = tops[i + 1] if i + 1 < pages else tops[i] + body_h
            clip = QRectF(0, tops[i], body_w, bottom - tops[i])
            painter.translate(0, -tops[i])
            painter.setClipRect(clip)
            ctx = QAbstractTextDocumentLayout.PaintContext()
            # what starts at the page's foot (ends at its head) belongs to the next (last)
            # page: not drawn here at all (Qt's PDF engine let a clipped figure show a few
            # rows above the clip)
            ctx.clip = clip.adjusted(0, 1, 0, -1)
            layout.draw(painter, ctx)
            painter.restore()
            painter.setPen(QPen(QColor("#bbbbbb"), resolution / 150))
            y = body_h + footer * 0.35
            painter.drawLine(QPointF(0, y), QPointF(body_w, y))
            painter.setFont(small)
            painter.setPen(QColor("#555555"))
            text_rect = QRectF(0, y + resolution * 0.03, body_w, footer * 0.6)
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                             report.title)
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop,
                             f"page {i + 1} of {pages}")
        painter.end()
    except BaseException:  # includes GeneratorExit (cancel): remove the partial file
        if painter.isActive():
            painter.end()
        del doc, writer  # closes the file
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    del doc, writer  # flushes and closes the file
    os.replace(tmp, path)
    yield 1.0, f"{pages} pages"
    return pages


def write_pdf(report: "Report", images: dict[str, "QImage"], path: str | os.PathLike[str],
              *, progress: Progress = no_progress, resolution: int = PDF_DPI) -> int:
    """Lay ``report`` out on A4 and write it to ``path`` (see :func:`pdf_steps`); pages."""
    steps = pdf_steps(report, images, path, resolution=resolution)
    while True:
        try:
            fraction, message = next(steps)
        except StopIteration as stop:
            return int(stop.value)
        try:
            progress(fraction, message)
        except BaseException:
            steps.close()
            raise


def render_pdf(report: "Report", path: str | os.PathLike[str], *,
               progress: Progress = no_progress) -> int:
    """Figures (pyqtgraph) then :func:`write_pdf`, all on the calling (GUI) thread."""
    from core.common import sub_progress

    images = render_figures(report, progress=sub_progress(progress, 0.0, 0.4))
    return write_pdf(report, images, path, progress=sub_progress(progress, 0.4, 1.0))


def write_html(report: "Report", path: str | os.PathLike[str]) -> None:
    """The self-contained HTML (inline CSS and SVG), written atomically."""
    from core.common import atomic_write_text
    from core.report import to_html

    atomic_write_text(path, to_html(report))


def export_report(report: "Report", path: str | os.PathLike[str], *,
                  progress: Progress = no_progress) -> int | None:
    """Write ``report`` as PDF or HTML, by the extension of ``path`` (pages for PDF)."""
    if str(path).lower().endswith(".pdf"):
        return render_pdf(report, path, progress=progress)
    write_html(report, path)
    progress(1.0, "done")
    return None


def suggested_name(project_name: str, fmt: str = "pdf") -> str:
    stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in project_name).strip()
    return f"{stem.replace(' ', '-') or 'project'}-report.{fmt}"


# --------------------------------------------------------------------------- main window
def install_export_action(window: Any) -> "QAction":
    """Add File ▸ Export Report… (Ctrl+E) to ``window`` (a
    :class:`gui.shell.main_window.MainWindow`)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QAction, QKeySequence

    action = QAction("Export Re&port…", window)
    action.setObjectName("export_report_action")
    action.setShortcut(QKeySequence("Ctrl+E"))
    tip = "Export a report of the project as PDF or HTML (Ctrl+E)"
    action.setStatusTip(tip)
    action.setToolTip(tip)

    def open_dialog() -> None:
        from gui.report.export_dialog import ExportDialog

        dialog = ExportDialog(window.document, window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if hasattr(window, "log_panel"):
            dialog.message_logged.connect(window.log_panel.log)
        window.export_dialog = dialog
        dialog.show()

    action.triggered.connect(open_dialog)
    file_menu = next((a.menu() for a in window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    if file_menu is not None:
        quit_action = getattr(window, "quit_action", None)
        actions = file_menu.actions()
        before = None
        if quit_action in actions:  # last of the group above Quit (after Export MDP…)
            i = actions.index(quit_action)
            before = actions[i - 1] if i > 0 and actions[i - 1].isSeparator() else quit_action
        if before is not None:
            file_menu.insertAction(before, action)
        else:
            file_menu.addAction(action)
    else:
        window.addAction(action)
    window.export_report_action = action
    return action


register_window_extension(install_export_action)  # the shell installs it on every window


# --------------------------------------------------------------------------- command line
def _ensure_qt_app() -> Any:
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
            or sys.platform in ("win32", "darwin")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setOrganizationName("PrivPlan")
        app.setApplicationName("PrivPlan")
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    return app


def _cli_render(report: "Report", path: str, *, progress: Progress = no_progress) -> int:
    _ensure_qt_app()
    return render_pdf(report, path, progress=progress)


def install_cli_pdf() -> None:
    """Let ``core.cli.report`` write PDF through Qt (``app.py`` calls this for ``report``)."""
    import core.cli.report

    core.cli.report.PDF_RENDERER = _cli_render


def cli_report(argv: Sequence[str], out: Any = None, err: Any = None) -> int:
    """``report PROJECT -o OUT.(pdf|html) …`` with PDF support (see core.cli.report)."""
    from core.cli.main import run_cli

    install_cli_pdf()
    return run_cli(list(argv), out, err)


def _main(argv: Sequence[str] | None = None) -> int:  # python -m gui.report.export PROJECT OUT
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m gui.report.export PROJECT OUT.(pdf|html)", file=sys.stderr)
        return 2
    return cli_report(["report", args[0], "-o", args[1]])


if __name__ == "__main__":
    sys.exit(_main())
