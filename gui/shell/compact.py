"""Side docks that make room on a laptop screen.

The main window opens its Project dock 220 px and its Run-parameters dock 320 px wide. In a
1366-px window that leaves the workspace about 810 px, and the wider workspaces (the
calculator, the audit) scrolled sideways. While the window is narrower than
:data:`COMPACT_BELOW` and the user has no saved layout, the two docks take their minimum
widths (170 and 300 px); a wider window gives them back their default widths. Installed on
every main window as a window extension (:func:`install_compact_docks`).
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
        if watched is self._window and event.type() == QEvent.Type.Resize:
            compact = self._window.width() < COMPACT_BELOW
            if compact != self._compact:
                self._compact = compact
                widths = COMPACT_WIDTHS if compact else DEFAULT_WIDTHS
                self._window.resizeDocks([self._window.project_dock, self._window.params_dock],
                                         list(widths), Qt.Orientation.Horizontal)
        return False


def install_compact_docks(window: Any) -> _DockWidths | None:
    """Let ``window``'s side docks narrow in a narrow window (not when a saved layout was
    restored: the user's own dock widths win)."""
    if getattr(window, "_use_settings", False) and window._settings.window_state()[1] is not None:
        return None
    watcher = _DockWidths(window)
    window.installEventFilter(watcher)
    return watcher


register_window_extension(install_compact_docks)
