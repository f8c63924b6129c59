"""The main window's tab widget: every page scrolls instead of growing the window.

A workspace whose form and plots need more room than a 1366×768 laptop gives used to raise
the main window's minimum size (after running Model privacy and Private agents it became
1470×769 and the window widened itself to 1638 px). :class:`ScrollTabWidget`
puts each page in a frameless :class:`QScrollArea`: the page fills the tab when there is
room and scrolls when there is not, so no page sets the window's minimum.

The pages stay the workspace widgets for every caller: :meth:`widget`,
:meth:`currentWidget`, :meth:`indexOf` and :meth:`setCurrentWidget` speak of the page, not of
its scroll area (:meth:`scroll_area` gives that).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QWidget

__all__ = ["ScrollTabWidget", "PageScroll"]


class PageScroll(QScrollArea):
    """A frameless scroll area around one tab page (its minimum size does not propagate)."""

    def __init__(self, page: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(page)
        self.setObjectName(f"scroll_{page.objectName() or 'page'}")

    def page(self) -> QWidget | None:
        return self.widget()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(200, 150)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        inner = self.widget()
        return inner.sizeHint() if inner is not None else super().sizeHint()


class ScrollTabWidget(QTabWidget):
    """A QTabWidget whose pages scroll (see the module docstring)."""

    def addTab(self, page: QWidget, *args: object) -> int:  # noqa: N802 (Qt API)
        return super().addTab(PageScroll(page, self), *args)  # type: ignore[call-overload]

    def insertTab(self, index: int, page: QWidget, *args: object) -> int:  # noqa: N802
        return super().insertTab(index, PageScroll(page, self), *args)  # type: ignore[call-overload]

    def scroll_area(self, index: int) -> PageScroll | None:
        w = super().widget(index)
        return w if isinstance(w, PageScroll) else None

    def widget(self, index: int) -> QWidget | None:
        w = super().widget(index)
        return w.page() if isinstance(w, PageScroll) else w

    def currentWidget(self) -> QWidget | None:  # type: ignore[override]  # noqa: N802
        return self.widget(self.currentIndex())

    def indexOf(self, page: QWidget | None) -> int:  # noqa: N802
        for i in range(self.count()):
            if self.widget(i) is page:
                return i
        return super().indexOf(page) if page is not None else -1

    def setCurrentWidget(self, page: QWidget) -> None:  # noqa: N802
        i = self.indexOf(page)
        if i >= 0:
            self.setCurrentIndex(i)

    def removeTab(self, index: int) -> None:  # noqa: N802 (Qt API)
        scroll = self.scroll_area(index)
        super().removeTab(index)
        if scroll is not None:  # the page belongs to its owner, not to the scroll area
            page = scroll.takeWidget()
            if page is not None:
                page.setParent(self)
                page.hide()
            scroll.deleteLater()
