"""The Log dock: time-stamped messages, warnings and errors, copyable.

:class:`LogPanel` also forwards Python ``logging`` records of the ``core`` and ``gui``
loggers (e.g. "ignoring unknown project key") through a queued signal, so records
logged from worker threads arrive on the UI thread.
"""

from __future__ import annotations

import datetime as _dt
import html
import logging

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

__all__ = ["LogPanel", "LEVEL_COLOURS"]

LEVEL_COLOURS = {"INFO": "#222222", "WARNING": "#B35C00", "ERROR": "#C00000"}
_FORWARDED_LOGGERS = ("core", "gui")


class _Bridge(QObject):
    record_emitted = Signal(str, str)


class _QtLogHandler(logging.Handler):
    def __init__(self, bridge: _Bridge) -> None:
        super().__init__(level=logging.INFO)
        self._bridge = bridge

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._bridge.record_emitted.emit(record.levelname, self.format(record))
        except RuntimeError:  # the panel is gone (C++ object deleted)
            pass


class LogPanel(QWidget):
    """A read-only, selectable log with a Clear button."""

    message_logged = Signal(str, str)  # level, text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = QPlainTextEdit(self)
        self._text.setReadOnly(True)
        self._text.setMaximumBlockCount(5000)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self._text.setFont(font)
        self._text.setPlaceholderText("Warnings, errors and finished runs appear here, "
                                      "with time stamps.")
        clear = QPushButton("Clear", self)
        clear.clicked.connect(self._text.clear)
        bar = QHBoxLayout()
        bar.addStretch(1)
        bar.addWidget(clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._text)
        layout.addLayout(bar)
        self._bridge = _Bridge(self)
        self._bridge.record_emitted.connect(self._on_bridge_record_emitted,
                                            Qt.ConnectionType.QueuedConnection)
        self._handler: _QtLogHandler | None = None
        self._lines: list[tuple[str, str]] = []

    # ------------------------------------------------------------------ API
    def info(self, message: str) -> None:
        self.log("INFO", message)

    def warning(self, message: str) -> None:
        self.log("WARNING", message)

    def error(self, message: str) -> None:
        self.log("ERROR", message)

    def log(self, level: str, message: str) -> None:
        stamp = _dt.datetime.now().strftime("%H:%M:%S")
        level = level.upper()
        self._lines.append((level, message))
        colour = LEVEL_COLOURS.get(level, LEVEL_COLOURS["INFO"])
        self._text.appendHtml(
            f'<span style="color:#777">{stamp}</span> '
            f'<span style="color:{colour}"><b>{html.escape(level.lower())}</b>: '
            f'{html.escape(message)}</span>')
        self.message_logged.emit(level, message)

    def messages(self) -> list[tuple[str, str]]:
        """Every (level, text) logged since the panel was created (for tests and reports)."""
        return list(self._lines)

    def plain_text(self) -> str:
        return self._text.toPlainText()

    def install_logging_handler(self) -> None:
        """Forward ``core``/``gui`` logging records here (undo: :meth:`remove_logging_handler`)."""
        if self._handler is not None:
            return
        self._handler = _QtLogHandler(self._bridge)
        self._handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        for name in _FORWARDED_LOGGERS:
            logging.getLogger(name).addHandler(self._handler)

    def remove_logging_handler(self) -> None:
        if self._handler is None:
            return
        for name in _FORWARDED_LOGGERS:
            logging.getLogger(name).removeHandler(self._handler)
        self._handler = None

    # ------------------------------------------------------------------ slots
    def _on_bridge_record_emitted(self, level: str, text: str) -> None:
        self.log(level if level in LEVEL_COLOURS else "INFO", text)


def preview(exec_: bool = True) -> QWidget:
    from gui.shell.preview import run_preview

    def build() -> QWidget:
        panel = LogPanel()
        panel.info("run-1 added: sweep on four-startups (seeded experiment, seed 7)")
        panel.warning("ignoring unknown project key 'colour'")
        panel.error("cannot open file: malformed JSON at line 3, column 1")
        return panel

    return run_preview(build, exec_=exec_, title="Log")


if __name__ == "__main__":
    preview()
