"""The main window fits the screen it opens on.

A window's size comes from the screen's *available* geometry (the desktop minus panels and
docks), never from a fixed number: at the first start the window takes its default size
(:data:`gui.shell.main_window.DEFAULT_SIZE`) where the screen has room for it and the whole
available area where it has not, centred; a restored geometry (saved on another, larger
screen, or before a monitor was unplugged) is shrunk and moved into the available area.
After the window is first shown its *frame* (title bar and borders, known only then) is
checked once more and the window moved and shrunk so that the frame lies inside the
available area. View ▸ Reset Layout puts the docks back where a first start puts them and
fits the window again.

Installed on every main window as a window extension (:func:`install_screen_fit`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QScreen

from gui.shell.tools import register_window_extension

__all__ = ["fitted_rect", "available_geometry", "fit_window", "fit_dialog", "reset_layout",
           "install_screen_fit", "GUESSED_FRAME"]

# Title bar and borders before the window manager has told us its own (left, top, right,
# bottom), generous enough for the common ones (Windows' 8 px resize borders and 31 px title,
# GNOME's 37 px title, KDE's and openbox's 20–30 px title with a handle at the bottom);
# corrected to the measured frame once the window manager has framed the window.
GUESSED_FRAME = QMargins(8, 38, 8, 8)
# Platforms that draw no frame around a window (a window there is exactly its client area).
_FRAMELESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")
# After the first show, how often (ms) and for how long the frame is checked again: a window
# manager frames a window some time after Qt has shown it (later on a busy machine).
_REFIT_EVERY_MS, _REFIT_FOR_MS = 250, 8000


def fitted_rect(available: QRect, wanted: QSize, frame: QMargins | None = None,
                at: QPoint | None = None) -> QRect:
    """The client rectangle of a window of ``wanted`` size whose frame (``frame`` margins
    around the client area) lies inside ``available``: shrunk to fit, kept at ``at`` (the
    frame's top-left) when that fits, centred otherwise.

    >>> from PySide6.QtCore import QRect, QSize, QMargins
    >>> fitted_rect(QRect(0, 0, 1366, 768), QSize(1500, 950), QMargins(0, 30, 0, 0))
    PySide6.QtCore.QRect(0, 30, 1366, 738)
    """
    frame = frame if frame is not None else QMargins()
    room_w = available.width() - frame.left() - frame.right()
    room_h = available.height() - frame.top() - frame.bottom()
    w = max(1, min(wanted.width(), room_w))
    h = max(1, min(wanted.height(), room_h))
    outer_w = w + frame.left() + frame.right()
    outer_h = h + frame.top() + frame.bottom()
    if at is None:
        x = available.x() + (available.width() - outer_w) // 2
        y = available.y() + (available.height() - outer_h) // 2
    else:
        x = min(max(at.x(), available.x()), available.x() + available.width() - outer_w)
        y = min(max(at.y(), available.y()), available.y() + available.height() - outer_h)
    return QRect(x + frame.left(), y + frame.top(), w, h)


def _screen_of(window: Any) -> QScreen | None:
    centre = window.geometry().center()
    screen = QGuiApplication.screenAt(centre) if window.isVisible() else None
    parent = window.parentWidget()
    if screen is None and parent is not None and parent.isVisible():
        screen = parent.screen()  # a dialog opens on its window's screen
    if screen is None:
        handle = window.windowHandle()
        screen = handle.screen() if handle is not None else None
    return screen or QGuiApplication.primaryScreen()


def available_geometry(window: Any) -> QRect | None:
    """The available geometry of the screen ``window`` is on (the primary one before it is
    shown); None without a screen."""
    screen = _screen_of(window)
    return screen.availableGeometry() if screen is not None else None


def _frame_margins(window: Any) -> QMargins:
    """The window's frame, measured once the window manager has framed it; the guess before
    that (an X11 window manager reparents a shown window some time after the show, and
    until then Qt reports no frame at all)."""
    if not window.isVisible():
        return GUESSED_FRAME
    frame, inner = window.frameGeometry(), window.geometry()
    measured = QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                        frame.right() - inner.right(), frame.bottom() - inner.bottom())
    if measured.isNull() and QGuiApplication.platformName() not in _FRAMELESS_PLATFORMS:
        return GUESSED_FRAME
    return measured


def fit_window(window: Any, wanted: QSize | None = None, *, keep_position: bool = True
               ) -> bool:
    """Shrink and move ``window`` so that its frame lies inside its screen's available
    geometry (``wanted``: the size to aim at, default the current one). Returns whether it
    changed. A maximised or full-screen window is left to the window manager."""
    if window.windowState() & (Qt.WindowState.WindowMaximized
                               | Qt.WindowState.WindowFullScreen):
        return False
    available = available_geometry(window)
    if available is None or available.isEmpty():
        return False
    frame = _frame_margins(window)
    size = wanted if wanted is not None else window.size()
    at = window.frameGeometry().topLeft() if keep_position else None
    rect = fitted_rect(available, size, frame, at)
    if rect == window.geometry():
        return False
    window.setGeometry(rect)
    return True


def fit_dialog(dialog: Any, wanted: QSize) -> QSize:
    """Resize a dialog to ``wanted`` or less, so that it fits the screen it opens on (its
    parent's); it stays where Qt puts it (centred over its parent). Returns the size."""
    available = available_geometry(dialog)
    size = wanted
    if available is not None and not available.isEmpty():
        size = fitted_rect(available, wanted, _frame_margins(dialog)).size()
    dialog.resize(size)
    return size


def reset_layout(window: Any) -> None:
    """View ▸ Reset Layout: the docks as a first start arranges them, the window at its
    default size fitted to its screen, centred."""
    from gui.shell.compact import DEFAULT_WIDTHS
    from gui.shell.main_window import DEFAULT_SIZE

    default = getattr(window, "_screen_fit_default_state", None)
    if default is not None:
        window.restoreState(default)
    for dock in (window.project_dock, window.inspector_dock, window.params_dock):
        dock.setFloating(False)
        dock.show()
    window.log_dock.hide()
    window.toolbar.show()
    if window.isMaximized() or window.isFullScreen():
        window.showNormal()
    fit_window(window, QSize(*DEFAULT_SIZE), keep_position=False)
    window.resizeDocks([window.project_dock, window.params_dock], list(DEFAULT_WIDTHS),
                       Qt.Orientation.Horizontal)
    window.resizeDocks([window.inspector_dock, window.params_dock], [330, 570],
                       Qt.Orientation.Vertical)
    for ws in list(window._workspaces.values()) + list(window._tools.values()):
        reset = getattr(ws, "reset_layout", None)
        if callable(reset):
            reset()


class _FitOnShow(QObject):
    """After the first show, fit the frame into the screen each time the window manager's
    frame becomes known or changes (polled for a few seconds: an X11 window manager frames
    the window after the show) — unless the window was given another geometry since it was
    placed (the user, a ``--size`` screenshot, a test): an explicit size is kept."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self._placed = QRect(window.geometry())
        self._done = False
        self._margins: QMargins | None = None  # the frame the last fit used
        self._polls = _REFIT_FOR_MS // _REFIT_EVERY_MS
        self._timer = QTimer(self)
        self._timer.setInterval(_REFIT_EVERY_MS)
        self._timer.timeout.connect(self._fit)
        self.first_start = False  # placed at the default size (no saved geometry)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        if event.type() == QEvent.Type.Show and not self._done:
            self._done = True
            QTimer.singleShot(0, self._fit)
            self._timer.start()
        return False

    def _fit(self) -> None:
        self._polls -= 1
        if self._polls <= 0:
            self._timer.stop()
        try:
            if self._window.geometry().size() != self._placed.size():
                self._timer.stop()  # sized by someone else since: kept
                return
            margins = _frame_margins(self._window)
            if margins == self._margins:
                return
            from gui.shell.main_window import DEFAULT_SIZE

            if self.first_start:  # the frame is known now: the default size again
                fit_window(self._window, QSize(*DEFAULT_SIZE), keep_position=False)
            else:
                fit_window(self._window)
            self._margins = margins
            self._placed = QRect(self._window.geometry())
        except RuntimeError:  # the window was deleted before the timer fired
            self._timer.stop()


def install_screen_fit(window: Any) -> QAction:
    """Size and place ``window`` for its screen (a saved geometry clamped into it), keep it
    there after the first show, and add View ▸ Reset Layout."""
    from gui.shell.main_window import DEFAULT_SIZE

    restored = (getattr(window, "_use_settings", False)
                and window._settings.window_state()[0] is not None)
    if restored:
        fit_window(window)
    else:
        fit_window(window, QSize(*DEFAULT_SIZE), keep_position=False)
    window._screen_fit = _FitOnShow(window)
    window._screen_fit.first_start = not restored
    window.installEventFilter(window._screen_fit)
    action = QAction("Reset &Layout", window)
    action.setObjectName("reset_layout_action")
    action.setStatusTip("Put the panels back where they start and fit the window to the screen")
    action.triggered.connect(lambda: reset_layout(window))
    window.view_menu.addAction(action)
    window.reset_layout_action = action
    return action


register_window_extension(install_screen_fit)
