"""Side docks that show one page of a stack at a time and fit its width.

A plain :class:`QStackedWidget` asks for the largest minimum of *all* its pages, so one wide
form (say a workspace's Run parameters) widens every other page too, and in a dock whose
scroll area has no horizontal scroll bar the extra width is simply cut off: fields and the
Run/Cancel buttons end outside the visible area. :class:`PageSizedStack` asks only for its
current page's size, and :func:`fit_dock_width` widens the dock (never narrows it) until that
page's minimum fits beside the vertical scroll bar, so a laptop-sized window shows every field.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QStackedWidget, QStyle, QWidget

# a dock never takes more than this share of the window's width when it widens for a page
MAX_DOCK_SHARE = 0.4


class PageSizedStack(QStackedWidget):
    """A stacked widget whose size hints are those of its current page only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dock: QDockWidget | None = None
        self.currentChanged.connect(self._on_current_changed)

    def fit_in(self, dock: QDockWidget) -> None:
        """Widen ``dock`` (see :func:`fit_dock_width`) whenever the page changes or shows."""
        self._dock = dock

    def _on_current_changed(self, _index: int) -> None:
        self.updateGeometry()
        QTimer.singleShot(0, self.fit_dock)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt API)
        super().showEvent(event)
        QTimer.singleShot(0, self.fit_dock)

    def fit_dock(self) -> int:
        """Widen the dock for the current page now; the width asked for, or 0."""
        dock = self._dock
        window = dock.parentWidget() if dock is not None else None
        if dock is None or not isinstance(window, QMainWindow):
            return 0
        return fit_dock_width(window, dock, self.currentWidget())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        page = self.currentWidget()
        if page is None:
            return super().minimumSizeHint()
        return page.minimumSizeHint().expandedTo(page.minimumSize())


def minimum_width(page: QWidget) -> int:
    """The width below which ``page`` is cut: its layout's minimum or its fixed minimum."""
    return max(page.minimumSizeHint().width(), page.minimumWidth())


def fit_dock_width(window: QMainWindow, dock: QDockWidget, page: QWidget | None) -> int:
    """Widen ``dock`` so that ``page``'s minimum width fits with a vertical scroll bar.

    Returns the width asked for (0 when the dock is wide enough already, hidden or floating).
    The dock takes at most :data:`MAX_DOCK_SHARE` of the window; a page wider than that keeps
    its horizontal scroll bar (the dock's scroll area shows one as needed).
    """
    if page is None or not dock.isVisible() or dock.isFloating():
        return 0
    bar = dock.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
    frame = dock.width() - dock.widget().width() if dock.widget() is not None else 0
    need = minimum_width(page) + bar + max(frame, 0) + 2
    need = min(need, int(window.width() * MAX_DOCK_SHARE))
    if need <= dock.width():
        return 0
    window.resizeDocks([dock], [need], Qt.Orientation.Horizontal)
    return need


def placeholder(text: str, parent: QWidget | None = None) -> QLabel:
    """The grey, centred, wrapped text a dock shows when nothing fills it yet."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("QLabel { color: #666; padding: 16px; }")
    return label
