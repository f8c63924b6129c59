"""Side docks that make room on a laptop screen.

The main window opens its Project dock 220 px and its Run-parameters dock 320 px wide. In a
1366-px window that leaves the workspace about 810 px, and the wider workspaces (the
calculator, the audit) scrolled sideways. While the window is narrower than
:data:`COMPACT_BELOW` and the user has no saved layout, the two docks take their minimum
widths (170 and 300 px); a wider window gives them back their default widths. The
Run-parameters dock is never narrower than the page it shows (:class:`_ParamsWidth`) and
steps aside on a tool tab that has no run parameters (:class:`_EmptyParams`).
Installed on every main window as a window extension (:func:`install_compact_docks`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt

from gui.shell.tools import register_window_extension

__all__ = ["COMPACT_BELOW", "COMPACT_WIDTHS", "DEFAULT_WIDTHS", "install_compact_docks"]

COMPACT_BELOW = 1500
COMPACT_WIDTHS = (170, 300)  # the docks' minimum widths (gui.shell.main_window)
DEFAULT_WIDTHS = (220, 320)


class _DockWidths(QObject):
    """Watches the window's width and sets the side docks' widths when it crosses
    :data:`COMPACT_BELOW` (only then: a dock the user dragged keeps its width)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self._compact: bool | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        window: Any = self._window
        if event.type() == QEvent.Type.Resize:  # (installed on the window only)
            compact = window.width() < COMPACT_BELOW
            if compact != self._compact:
                self._compact = compact
                widths = COMPACT_WIDTHS if compact else DEFAULT_WIDTHS
                window.resizeDocks([window.project_dock, window.params_dock], list(widths),
                                   Qt.Orientation.Horizontal)
        return False


class _ParamsWidth(QObject):
    """The Run-parameters dock is as wide as the page it shows needs (at least
    :data:`COMPACT_WIDTHS`): its stack measures the current page only (a hidden page's
    width — the MDP analysis form's 412 px — no longer widens every tool's page, which the
    dock, without a horizontal scroll bar, then cut at the right)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        window.params_stack.currentChanged.connect(self.follow)
        self.follow()

    def follow(self, *args: object) -> None:
        from PySide6.QtWidgets import QSizePolicy

        stack = self._window.params_stack
        current = stack.currentWidget()
        for i in range(stack.count()):
            page = stack.widget(i)
            policy = page.sizePolicy()
            policy.setHorizontalPolicy(QSizePolicy.Policy.Preferred if page is current
                                       else QSizePolicy.Policy.Ignored)
            page.setSizePolicy(policy)
        stack.updateGeometry()
        if current is None:
            return
        scroll = stack.parentWidget().parentWidget()  # viewport, then the scroll area
        bar = scroll.verticalScrollBar().sizeHint().width() if scroll is not None else 16
        need = current.minimumSizeHint().width() + bar + 12
        dock = self._window.params_dock
        target = max(COMPACT_WIDTHS[1], need)
        set_before = getattr(self, "_set", None)
        dock.setMinimumWidth(target)
        # give back what a wider page took (unless the user has widened the dock since)
        if set_before is not None and target < dock.width() <= set_before + 2:
            self._window.resizeDocks([dock], [target], Qt.Orientation.Horizontal)
        self._set = max(target, dock.width()) if set_before is None else target


class _EmptyParams(QObject):
    """A tool tab without run parameters (the ledger, …) would leave the Run-parameters dock
    showing "Open an MDP workspace …": the dock steps aside on such a tab, giving the
    workspace its width, and comes back (as the user left it) on a tab with parameters."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self._hidden = False  # hidden by us (not by the user)
        self._was_visible = True
        window.tabs.currentChanged.connect(self.follow)  # after the window's own slot

    def follow(self, *args: object) -> None:
        w = self._window
        empty = (w.current_tool() is not None
                 and w.params_stack.currentWidget() is w.params_placeholder)
        if empty and not self._hidden:
            self._hidden, self._was_visible = True, w.params_dock.isVisible()
            w.params_dock.hide()
        elif not empty and self._hidden:
            self._hidden = False
            if self._was_visible:
                w.params_dock.show()


def install_compact_docks(window: Any) -> _DockWidths | None:
    """Let ``window``'s side docks narrow in a narrow window (not when a saved layout was
    restored: the user's own dock widths win), and its Run-parameters dock follow the width
    of the page it shows."""
    window._params_width = _ParamsWidth(window)
    window._empty_params = _EmptyParams(window)
    if getattr(window, "_use_settings", False) and window._settings.window_state()[1] is not None:
        return None
    watcher = _DockWidths(window)
    window.installEventFilter(watcher)
    return watcher


register_window_extension(install_compact_docks)
