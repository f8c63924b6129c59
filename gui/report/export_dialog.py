"""File ▸ Export Report…: choose sections and format, preview, export with progress.

Left: the report's sections (checkable), the format (PDF or HTML) and the output file.
Right: a live preview — the same HTML the PDF is laid out from, with its figures drawn by
pyqtgraph at screen resolution. Export builds the report from the project as it is now;
figures are drawn on the GUI thread one per event-loop turn (the progress bar moves and
Cancel works), then the PDF is laid out and written one page per turn
(:func:`gui.report.export.pdf_steps`); HTML is written in a worker (:class:`TaskRunner`).

An output path that cannot be written is refused before anything runs, with the reason
next to the path. A project with unsaved changes is reported as such in the report's
metadata (the file's SHA-256 would not describe what is exported).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.common import InputError
from gui.shell.document import ProjectDocument
from gui.shell.screen_fit import fit_dialog
from gui.shell.style import ERROR_COLOUR
from gui.shell.workers import TaskRunner

__all__ = ["ExportDialog", "PreviewBrowser", "check_output_path"]

PREVIEW_DELAY_MS = 250


def check_output_path(path: str, fmt: str) -> str:
    """Empty if ``path`` can be written as a ``fmt`` report, else the reason (one line)."""
    if not path.strip():
        return "Choose a file to write."
    if not path.lower().endswith("." + fmt):
        return f"The file name must end in .{fmt} for a {fmt.upper()} report."
    p = Path(path)
    if p.is_dir():
        return f"{path} is a folder, not a file."
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        return f"The folder {folder} does not exist."
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        return f"Cannot write to {path}: permission denied."
    return ""


class PreviewBrowser(QTextBrowser):
    """A QTextBrowser that serves ``fig:<id>`` images from a dict."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: dict[str, QImage] = {}
        self.setOpenLinks(False)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:  # noqa: N802 (Qt override)
        url = QUrl(url) if isinstance(url, str) else url  # Qt passes a QUrl
        if url.scheme() == "fig" and url.path() in self.images:
            return self.images[url.path()]
        if url.toString().startswith("fig:") and url.toString()[4:] in self.images:
            return self.images[url.toString()[4:]]
        return super().loadResource(kind, url)


def _write_html_task(report: Any, path: str, *, progress: Any) -> None:
    from gui.report.export import write_html

    progress(0.5, "writing HTML")
    write_html(report, path)
    progress(1.0, "done")


class ExportDialog(QDialog):
    """Choose sections and format, preview, and export the project's report."""

    message_logged = Signal(str, str)  # level, text
    exported = Signal(str)  # the path written
    preview_updated = Signal()
    finished_export = Signal(bool)  # True: written; False: failed or cancelled

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._runner = TaskRunner(self)
        self._preview_images: dict[Any, QImage] = {}  # Figure -> image
        self._figure_queue: list[Any] = []
        self._images: dict[str, QImage] = {}
        self._pending_report: Any = None
        self._pending_path = ""
        self._cancelled = False
        self._busy = False
        self._steps: Any = None
        self.last_pages: int | None = None
        self.last_error = ""
        self.setObjectName("export_dialog")
        self.setWindowTitle("Export Report")
        self.setModal(False)

        left = self._build_choices(document)

        self.preview = PreviewBrowser(self)
        self.preview.setToolTip("Preview: the report as it will be laid out")
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(QLabel("<b>Preview</b>", self))
        rl.addWidget(self.preview, 1)
        splitter = QSplitter(self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        fit_dialog(self, QSize(1150, 760))  # no taller than a laptop's screen
        splitter.setSizes([330, 820])

        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.update_preview)
        self._runner.progress_changed.connect(self._on_runner_progress_changed)
        self._runner.succeeded.connect(self._on_runner_succeeded)
        self._runner.failed.connect(self._on_runner_failed)
        self._runner.cancelled.connect(self._on_runner_cancelled)
        document.history_changed.connect(self._on_undo_stack_index_changed)
        self._check_path()
        self.update_preview()

    def _build_choices(self, document: ProjectDocument) -> QWidget:
        """The left column: the sections to include, the format, the file, the progress and
        the export buttons."""
        self.sections = QListWidget(self)
        self.sections.setToolTip("The sections of the report; untick those to leave out.")
        from core.report import OPTIONAL_SECTIONS

        self._unticked: set[str] = set(OPTIONAL_SECTIONS)  # the full ledger: on request
        self._fill_sections()
        self.sections.itemChanged.connect(self._on_sections_item_changed)
        all_button = QPushButton("All", self)
        all_button.clicked.connect(lambda: self.set_sections(None))
        none_button = QPushButton("None", self)
        none_button.clicked.connect(lambda: self.set_sections([]))

        self.pdf_radio = QRadioButton("PDF (A4, plots at print resolution)", self)
        self.html_radio = QRadioButton("HTML (one self-contained file)", self)
        self.pdf_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.pdf_radio)
        group.addButton(self.html_radio)
        self.pdf_radio.toggled.connect(self._on_format_toggled)

        from gui.report.export import suggested_name

        folder = (str(Path(document.path).parent) if document.path else self._last_dir())
        self.path_edit = QLineEdit(str(Path(folder) / suggested_name(document.display_name)),
                                   self)
        self.path_edit.textChanged.connect(self._on_path_edit_text_changed)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._on_browse_clicked)
        self.path_error = QLabel(self)
        self.path_error.setWordWrap(True)
        self.path_error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; }}")
        self.path_error.hide()

        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.export_button = QPushButton("Export", self)
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton("Open", self)
        self.open_button.setToolTip("Open the exported file with the system viewer")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self._on_open_clicked)
        close_button = QPushButton("Close", self)
        close_button.clicked.connect(self.close)

        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("<b>Sections</b>", self))
        ll.addWidget(self.sections, 1)
        row = QHBoxLayout()
        row.addWidget(all_button)
        row.addWidget(none_button)
        row.addStretch(1)
        ll.addLayout(row)
        ll.addWidget(QLabel("<b>Format</b>", self))
        ll.addWidget(self.pdf_radio)
        ll.addWidget(self.html_radio)
        ll.addWidget(QLabel("<b>File</b>", self))
        prow = QHBoxLayout()
        prow.addWidget(self.path_edit, 1)
        prow.addWidget(browse)
        ll.addLayout(prow)
        ll.addWidget(self.path_error)
        ll.addWidget(self.progress)
        ll.addWidget(self.status)
        brow = QHBoxLayout()
        brow.addWidget(self.export_button)
        brow.addWidget(self.cancel_button)
        brow.addWidget(self.open_button)
        brow.addStretch(1)
        brow.addWidget(close_button)
        ll.addLayout(brow)
        return left

    # ------------------------------------------------------------------ state
    @property
    def fmt(self) -> str:
        return "pdf" if self.pdf_radio.isChecked() else "html"

    @property
    def is_busy(self) -> bool:
        return self._busy

    def selected_sections(self) -> list[str]:
        return [self.sections.item(i).data(Qt.ItemDataRole.UserRole)
                for i in range(self.sections.count())
                if self.sections.item(i).checkState() == Qt.CheckState.Checked]

    def set_sections(self, ids: list[str] | None) -> None:
        """Tick exactly ``ids`` (None: all)."""
        self.sections.blockSignals(True)
        for i in range(self.sections.count()):
            item = self.sections.item(i)
            on = ids is None or item.data(Qt.ItemDataRole.UserRole) in ids
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.sections.blockSignals(False)
        self._remember_unticked()
        self._preview_timer.start()

    def _fill_sections(self) -> None:
        """List the project's sections now (a section the user unticked stays unticked)."""
        from core.report import section_titles

        self.sections.blockSignals(True)
        self.sections.clear()
        for sid, title in section_titles(self._document.project):
            item = QListWidgetItem(title, self.sections)
            item.setData(Qt.ItemDataRole.UserRole, sid)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if sid in self._unticked
                               else Qt.CheckState.Checked)
        self.sections.blockSignals(False)

    def _remember_unticked(self) -> None:
        self._unticked = {self.sections.item(i).data(Qt.ItemDataRole.UserRole)
                          for i in range(self.sections.count())
                          if self.sections.item(i).checkState() != Qt.CheckState.Checked}

    def set_format(self, fmt: str) -> None:
        (self.pdf_radio if fmt == "pdf" else self.html_radio).setChecked(True)

    def set_path(self, path: str) -> None:
        self.path_edit.setText(path)

    def build_report(self) -> Any:
        """The report of the project as it is now, with the sections ticked."""
        from core.report import build_report

        doc = self._document
        saved = doc.path is not None and not doc.is_dirty
        report = build_report(doc.project, project_path=doc.path if saved else None,
                              include=self.selected_sections())
        if not saved:
            report.metadata["project file"] = (
                "unsaved changes: the report shows the project in memory, not "
                f"{Path(doc.path).name}" if doc.path else "not saved yet")
        return report

    # ------------------------------------------------------------------ preview
    def update_preview(self) -> None:
        from gui.report.export import PREVIEW_FIGURE_SIZE, figure_image, print_html

        report = self.build_report()
        images = {}
        for fig in report.figures():  # cached by content: a redone run may reuse an id
            if fig not in self._preview_images:
                self._preview_images[fig] = figure_image(fig, size=PREVIEW_FIGURE_SIZE)
            images[fig.id] = self._preview_images[fig]
        self.preview.images = images
        bar = self.preview.verticalScrollBar().value()
        self.preview.document().setDefaultStyleSheet("")
        self.preview.setHtml(print_html(report, image_width=600) if report.sections else
                             "<p style='color:#666'>No section is selected: tick at least "
                             "one on the left.</p>")
        self.preview.verticalScrollBar().setValue(bar)
        self.preview_updated.emit()

    # ------------------------------------------------------------------ export
    def export(self) -> bool:
        """Validate and start the export; False (with the reason shown) if it cannot start."""
        if self._busy:
            return False
        path = self.path_edit.text().strip()
        problem = check_output_path(path, self.fmt)
        if not problem and not self.selected_sections():
            problem = "Choose at least one section."
        if problem:
            self._fail(problem)
            return False
        try:
            report = self.build_report()
        except InputError as exc:
            self._fail(f"The report cannot be built: {exc}")
            return False
        self._busy, self._cancelled = True, False
        self.last_pages, self.last_error = None, ""
        self._pending_report, self._pending_path = report, path
        self._set_running(True)
        self.status.setText("Exporting…")
        if self.fmt == "pdf":
            self._images = {}
            self._figure_queue = list(report.figures())
            self._n_figures = len(self._figure_queue)
            QTimer.singleShot(0, self._render_next_figure)
        else:
            self._runner.start(_write_html_task, report, path)
        return True

    def cancel(self) -> None:
        if not self._busy:
            return
        self._cancelled = True
        self._figure_queue = []
        self._runner.cancel()
        self.status.setText("Cancelling…")

    def _render_next_figure(self) -> None:
        from gui.report.export import figure_image, pdf_steps

        if self._cancelled:
            self._finish(False, "Cancelled; nothing was written.")
            return
        if self._figure_queue:
            fig = self._figure_queue.pop(0)
            done = self._n_figures - len(self._figure_queue)
            self._images[fig.id] = figure_image(fig)
            self._set_progress(0.4 * done / max(1, self._n_figures),
                               f"figure {done} of {self._n_figures}")
            QTimer.singleShot(0, self._render_next_figure)
            return
        self._steps = pdf_steps(self._pending_report, self._images, self._pending_path)
        QTimer.singleShot(0, self._write_next_page)

    def _write_next_page(self) -> None:
        steps = self._steps
        if steps is None:
            return
        if self._cancelled:
            steps.close()
            self._steps = None
            self._finish(False, "Cancelled; nothing was written.")
            return
        try:
            fraction, message = next(steps)
        except StopIteration as stop:
            self._steps = None
            self._on_runner_succeeded(stop.value)
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user, never swallowed silently
            self._steps = None
            self._on_runner_failed(exc)
            return
        self._set_progress(0.4 + 0.6 * fraction, message)
        QTimer.singleShot(0, self._write_next_page)

    def _finish(self, ok: bool, message: str) -> None:
        self._busy = False
        self._set_running(False)
        self.status.setText(message)
        self.open_button.setEnabled(ok)
        self.finished_export.emit(ok)

    def _fail(self, message: str) -> None:
        self.last_error = message
        self.path_error.setText(message)
        self.path_error.show()
        self.status.setText(f"<span style='color:{ERROR_COLOUR}'>Not exported.</span>")

    def _set_running(self, running: bool) -> None:
        self.export_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setValue(0)
            self.path_error.hide()

    def _set_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(1000 * fraction)))
        self.status.setText(f"Exporting… {message}")

    def _check_path(self) -> None:
        problem = check_output_path(self.path_edit.text().strip(), self.fmt)
        self.path_error.setText(problem)
        self.path_error.setVisible(bool(problem))

    def _last_dir(self) -> str:
        try:
            from gui.shell.settings import Settings

            return Settings().last_dir or os.getcwd()
        except (ImportError, RuntimeError):
            return os.getcwd()

    # ------------------------------------------------------------------ slots
    def _on_sections_item_changed(self, item: QListWidgetItem) -> None:
        self._remember_unticked()
        self._preview_timer.start()

    def _on_undo_stack_index_changed(self, index: int = 0) -> None:
        """The project changed (a run, an entry, an edit): list its sections again."""
        if not self._busy:
            self._fill_sections()
            self._preview_timer.start()

    def _on_format_toggled(self, pdf: bool) -> None:
        path = self.path_edit.text().strip()
        for old, new in ((".html", ".pdf"), (".pdf", ".html")):
            if path.lower().endswith(old) and new == "." + self.fmt:
                self.path_edit.setText(path[: -len(old)] + new)
        self._check_path()

    def _on_path_edit_text_changed(self, text: str) -> None:
        self._check_path()

    def _on_browse_clicked(self) -> None:
        filt = "PDF (*.pdf)" if self.fmt == "pdf" else "HTML (*.html)"
        path, _ = QFileDialog.getSaveFileName(self, "Export report as", self.path_edit.text(),
                                              filt)
        if path:
            if not path.lower().endswith("." + self.fmt):
                path += "." + self.fmt
            self.path_edit.setText(path)

    def _on_open_clicked(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(self._pending_path))

    def _on_runner_progress_changed(self, fraction: float, message: str) -> None:
        self._set_progress(fraction, message)

    def _on_runner_succeeded(self, pages: object) -> None:
        path = self._pending_path
        self.last_pages = pages if isinstance(pages, int) else None
        what = f"{self.last_pages} pages" if self.last_pages else "HTML"
        self._finish(True, f"Wrote {path} ({what}).")
        self.message_logged.emit("INFO", f"report exported to {path} ({what})")
        self.exported.emit(path)

    def _on_runner_failed(self, exc: object) -> None:
        if isinstance(exc, OSError):
            text = f"Cannot write {self._pending_path}: {exc.strerror or exc}"
        elif isinstance(exc, InputError):
            text = str(exc)
        else:
            text = f"{type(exc).__name__}: {exc}"
        self._finish(False, "Not exported.")
        self._fail(text)
        self.message_logged.emit("ERROR", f"report export failed: {text}")

    def _on_runner_cancelled(self) -> None:
        self._finish(False, "Cancelled; nothing was written.")

    def closeEvent(self, event: Any) -> None:  # noqa: N802
        self.cancel()
        self._runner.shutdown()
        super().closeEvent(event)


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import run_preview

    def build() -> QWidget:
        from gui.shell.preview import example_document_with_ledger

        return ExportDialog(example_document_with_ledger())

    return run_preview(build, exec_=exec_, title="Export Report", size=(1150, 760))


if __name__ == "__main__":
    preview()
