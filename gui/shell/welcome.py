"""The welcome page: what the centre of the window shows when no tab is open.

Instead of a bare "no workspace is open", it offers the next step: the recent projects
(File ▸ Open Recent's list), the shipped examples — the built-in project, the tour project of
the user guide, and the example maps registered in :mod:`gui.shell.tools` — and the user
guide itself (F1). The list of recent projects is read again each time the page is shown.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from gui.shell.help import open_guide
from gui.shell.resources import asset_path
from gui.shell.tools import EXAMPLES, TOOLS

__all__ = ["WelcomePage", "EXAMPLE_PROJECTS", "MAX_SHOWN"]

#: the shipped projects offered on the page: (file under assets/examples, title)
EXAMPLE_PROJECTS: tuple[tuple[str, str], ...] = (
    ("builtin.privplan.json", "Built-in example: four startups and Example 2"),
    ("tour.privplan.json", "Tour of the user guide: two MDPs and a logistics map"),
)
#: recent projects listed (the File menu keeps more)
MAX_SHOWN = 6


class WelcomePage(QWidget):
    """Recent projects, examples and the guide; ``window`` is the main window."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self.setObjectName("welcome_page")
        layout = QVBoxLayout(self)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        intro = QLabel("No workspace is open.\n\nDouble-click an MDP in the Project panel to "
                       "open its workspace, or start from one of these:", self)
        intro.setAlignment(Qt.AlignmentFlag.AlignCenter)
        intro.setStyleSheet("QLabel { color: #666; font-size: 11pt; }")
        layout.addWidget(intro)
        self._recent_title = self._heading("Recent projects", layout)
        self._recent_box = QVBoxLayout()
        layout.addLayout(self._recent_box)
        self._heading("Examples", layout)
        for name, title in EXAMPLE_PROJECTS:
            path = asset_path("examples", name)
            if path.is_file():
                self._link(title, str(path),
                           functools.partial(self._ask, "open_path", str(path)), layout)
        for spec in EXAMPLES.values():
            if spec.tool in TOOLS:
                self._link(spec.title, spec.tooltip,
                           functools.partial(self._ask, "open_example", spec.key), layout)
        self._heading("Help", layout)
        self._link("User guide (F1)", "Open the user guide in the browser",
                   functools.partial(open_guide, window), layout)
        self.recent_buttons: list[QPushButton] = []

    def _ask(self, method: str, *args: object) -> object:
        """Call the window's ``method`` (looked up when the link is clicked)."""
        return getattr(self._window, method)(*args)

    def _heading(self, text: str, layout: QVBoxLayout) -> QLabel:
        label = QLabel(f"<b>{text}</b>", self)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(label)
        return label

    def _link(self, text: str, tooltip: str, slot: Callable[[], object],
              layout: QVBoxLayout) -> QPushButton:
        button = QPushButton(text, self)
        button.setFlat(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setToolTip(tooltip)
        # clicked(bool) would pass `checked` on as an extra argument of the slot
        button.clicked.connect(lambda _checked=False: slot())
        layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
        return button

    def refresh(self) -> None:
        """Rebuild the list of recent projects from the settings."""
        for button in self.recent_buttons:
            self._recent_box.removeWidget(button)
            button.deleteLater()
        self.recent_buttons = []
        recent = [p for p in self._window.settings.recent_files if os.path.isfile(p)]
        for path in recent[:MAX_SHOWN]:
            self.recent_buttons.append(self._link(
                os.path.basename(path), path,
                functools.partial(self._ask, "open_recent", path), self._recent_box))
        self._recent_title.setVisible(bool(self.recent_buttons))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        self.refresh()
        super().showEvent(event)
