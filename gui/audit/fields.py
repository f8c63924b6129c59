"""One public parameter of an audited mechanism as the Audit tab edits it: its label, its
editor (a spin box or combo, with a tick for an optional one) and the message line under it.

The tab keeps one :class:`MechanismField` per parameter of each mechanism (their specs are
:data:`gui.audit.texts.PARAMETERS`); the field reads and shows the value the core's
:class:`~core.audit.AuditParameters` takes (None: an optional parameter left unticked).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QSpinBox, QWidget

from gui.audit.texts import PARAMETERS, TOOLTIPS
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import SciSpinBox, show_field_error

__all__ = ["MechanismField"]


class MechanismField:
    """One parameter: its label, editor (spin box or combo, plus a tick for optional
    ones), and the message line under it."""

    def __init__(self, key: str, parent: QWidget) -> None:
        spec = PARAMETERS[key]
        self.key = key
        self.tooltip = TOOLTIPS[key]
        self.check: QCheckBox | None = None
        if spec.optional:
            self.check = QCheckBox(spec.label, parent)
            self.check.setToolTip(self.tooltip)
            self.label: QWidget = self.check
        else:
            self.label = QLabel(spec.label, parent)
            self.label.setToolTip(self.tooltip)
        if spec.choices:
            combo = QComboBox(parent)
            for value, text in spec.choices:
                combo.addItem(text, value)
            self.editor: QWidget = combo
        elif spec.integer:
            spin = QSpinBox(parent)
            spin.setRange(int(spec.minimum), int(spec.maximum))
            spin.setValue(int(spec.default))
            self.editor = spin
        else:
            self.editor = SciSpinBox(parent, minimum=spec.minimum, maximum=spec.maximum,
                                     value=spec.default, log_step=spec.log_step,
                                     step=0.01 if spec.maximum <= 1 else 0.1)
        self.editor.setToolTip(self.tooltip)
        self.editor.setMinimumWidth(96)
        if self.check is not None:
            self.check.toggled.connect(self.editor.setEnabled)
            self.editor.setEnabled(False)
        self.message = QLabel(parent)
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.message.hide()
        self.error = ""

    def value(self) -> Any:
        if self.check is not None and not self.check.isChecked():
            return None
        e = self.editor
        if isinstance(e, QComboBox):
            return e.currentData()
        if isinstance(e, QSpinBox):
            return int(e.value())
        return float(e.value())  # type: ignore[attr-defined]

    def set_value(self, value: Any) -> None:
        if self.check is not None:
            self.check.setChecked(value is not None)
            if value is None:
                return
        e = self.editor
        if isinstance(e, QComboBox):
            i = e.findData(value)
            if i < 0:
                raise ValueError(f"{self.key}: no choice {value!r}")
            e.setCurrentIndex(i)
        elif isinstance(e, QSpinBox):
            e.setValue(int(value))
        else:
            e.setValue(float(value))  # type: ignore[attr-defined]

    def show_error(self, text: str) -> None:
        self.error = text
        show_field_error(self.editor, text, self.tooltip, message=self.message)
