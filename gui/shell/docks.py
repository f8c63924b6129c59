"""Small pieces of the main window's side docks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["placeholder"]


def placeholder(text: str, parent: QWidget | None = None) -> QLabel:
    """The grey, centred, wrapped text a dock shows when nothing fills it yet."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setStyleSheet("QLabel { color: #666; padding: 16px; }")
    return label
