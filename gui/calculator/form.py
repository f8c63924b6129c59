"""The Privacy Calculator's parameter fields and how a refused or doubtful value is shown.

:class:`CalculatorForm` takes the :class:`gui.calculator.views.FormHooks` of what it asks of
the panel (:class:`gui.calculator.panel.PrivacyCalculatorPanel`) and builds the parameters
box: one :class:`~gui.calculator.parts.ParameterRow` per parameter (spin box, slider and the
red or amber message beside it), the target-δ / γ mode and the δ method. Its changes go to
the hooks; the panel asks it to show what the core's validation, and a result, said.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QLabel,
    QRadioButton,
)

from core.common import InputError
from core.privacy import CalculatorInputs, CalculatorResult
from gui.calculator.drawing import warning_texts
from gui.calculator.parts import (
    FIELDS,
    LEFT_COLUMN,
    LEMMA_NOTE,
    METHODS,
    PARAMETERS,
    RIGHT_COLUMN,
    TOOLTIPS,
    WARNING_COLOUR,
    ParameterRow,
)
from gui.calculator.views import FormHooks
from gui.shell.style import ERROR_COLOUR, INVALID_STYLE, pretty_message

__all__ = ["CalculatorForm"]


class CalculatorForm:
    """The parameters box of the calculator (see the module docstring)."""

    def __init__(self, hooks: FormHooks) -> None:
        self._hooks = hooks
        self.last_w = int(PARAMETERS["w"].default)

    def build(self) -> None:
        box = QGroupBox("Parameters", self._hooks.parent)
        grid = QGridLayout(box)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        self.rows: dict[str, ParameterRow] = {}
        self.mode_group = QButtonGroup(self._hooks.parent)
        self.delta_radio = QRadioButton("target δ", box)
        self.gamma_radio = QRadioButton("γ", box)
        self.delta_radio.setChecked(True)
        self.mode_group.addButton(self.delta_radio)
        self.mode_group.addButton(self.gamma_radio)
        self.method_combo = QComboBox(box)
        for key, text in METHODS:
            self.method_combo.addItem(text, key)
        self.method_combo.setToolTip(TOOLTIPS["delta_method"])
        self.method_message = QLabel(box)
        self.method_message.setTextFormat(Qt.TextFormat.PlainText)
        self.method_message.setWordWrap(True)
        self.method_message.hide()
        for col, keys in enumerate((LEFT_COLUMN, RIGHT_COLUMN)):
            c0 = col * 4
            for i, key in enumerate(keys):
                r = 2 * i
                if key == "delta_method":
                    label = QLabel("δ method", box)
                    label.setToolTip(TOOLTIPS[key])
                    grid.addWidget(label, r, c0)
                    grid.addWidget(self.method_combo, r, c0 + 1, 1, 2)
                    grid.addWidget(self.method_message, r + 1, c0, 1, 3)
                    continue
                label_widget: QLabel | QRadioButton
                if key == "delta":
                    label_widget = self.delta_radio
                elif key == "gamma":
                    label_widget = self.gamma_radio
                else:
                    label_widget = QLabel(PARAMETERS[key].label, box)
                row = ParameterRow(key, box, label_widget)
                self.rows[key] = row
                grid.addWidget(label_widget, r, c0)
                grid.addWidget(row.spin, r, c0 + 1)
                grid.addWidget(row.slider, r, c0 + 2)
                grid.addWidget(row.message, r + 1, c0, 1, 3)
        self.delta_radio.setToolTip("Solve for the best γ given a target δ (the corrected "
                                    "problem (1.23)). " + TOOLTIPS["delta"])
        self.gamma_radio.setToolTip("Fix γ and compute the δ it gives. " + TOOLTIPS["gamma"])
        spacer = QFrame(box)
        spacer.setFixedWidth(10)
        grid.addWidget(spacer, 0, 3)
        grid.setColumnStretch(2, 1)
        grid.setColumnStretch(6, 1)
        self.parameters_box = box

        h = self._hooks
        for row in self.rows.values():
            row.spin.valueChanged.connect(h.changed)
            row.slider.sliderReleased.connect(h.slider_released)
        self.method_combo.currentIndexChanged.connect(h.changed)
        self.delta_radio.toggled.connect(h.mode_toggled)
        h.mode_toggled(True)

    def inputs(self) -> CalculatorInputs:
        """The core's parameters object as the widgets hold it, bound through
        :data:`~gui.calculator.parts.FIELDS` (not validated here: the core's
        :meth:`CalculatorInputs.check` does that)."""
        values: dict[str, Any] = {
            FIELDS[key]: int(row.value()) if PARAMETERS[key].integer else row.value()
            for key, row in self.rows.items()}
        # the mode gives one of the target δ and γ; the other is None
        values["gamma" if self.delta_radio.isChecked() else "delta_target"] = None
        values["delta_method"] = str(self.method_combo.currentData())
        return CalculatorInputs(**values)

    def error_text(self, exc: InputError) -> str:
        field = exc.field or ""
        label = PARAMETERS[field].label if field in PARAMETERS else pretty_message(field)
        return f"{label}: {pretty_message(exc.problem)}" if label else pretty_message(str(exc))

    def show_validation(self, exc: InputError | None,
                         warnings: tuple[tuple[str, str], ...]) -> None:
        field = exc.field if exc is not None else None
        error = self.error_text(exc) if exc is not None else ""
        if field == "gamma" and self.delta_radio.isChecked():
            field = "delta"
        for key, row in self.rows.items():
            if key == field:
                row.show_message(error=error)
            else:
                row.show_message(**warning_texts(self._hooks.inputs(), key, warnings))
        if field == "delta_method":
            self.method_combo.setStyleSheet(INVALID_STYLE)
            self.method_message.setText(f"✖ {error}")
            self.method_message.setStyleSheet(f"color: {ERROR_COLOUR};")
            self.method_message.show()
            self.method_combo.setToolTip(f"{error}\n\n"
                                         f"{TOOLTIPS['delta_method']}")
        else:
            self.method_combo.setStyleSheet("")
            self.method_combo.setToolTip(TOOLTIPS["delta_method"])
            lemma = [t for f, t in warnings if f == "delta_method"]
            self.method_message.setText(LEMMA_NOTE if lemma else "")
            self.method_message.setToolTip(pretty_message(lemma[0]) if lemma else "")
            self.method_message.setStyleSheet(f"color: {WARNING_COLOUR};")
            self.method_message.setVisible(bool(lemma))
        if exc is not None and field not in self.rows and field != "delta_method":
            self._hooks.status(f"<span style='color:{ERROR_COLOUR}'>{html.escape(error)}</span>")

    def show_result_warnings(self, r: CalculatorResult) -> None:
        """The warnings of result ``r`` beside the fields without an error (unless the
        fields moved on since: their own validation warnings stay)."""
        if self._hooks.inputs() != r.inputs:
            return
        for key, row in self.rows.items():
            if not row.error:
                row.show_message(**warning_texts(self._hooks.inputs(), key, r.warnings))

    def field_error(self, key: str) -> str:
        """The error shown beside parameter ``key`` ('' if none)."""
        if key == "delta_method":
            text = self._method_text()
            return text if text.startswith("✖") else ""
        return self.rows[key].error

    def field_warning(self, key: str) -> str:
        """The warning shown beside parameter ``key`` ('' if none)."""
        if key == "delta_method":
            text = self._method_text()
            return text if text.startswith("⚠") else ""
        return self.rows[key].warning

    def _method_text(self) -> str:
        """The message under the δ method ('' while hidden)."""
        shown = self.method_message.isVisibleTo(self._hooks.parent)
        return self.method_message.text() if shown else ""

    def follow_w(self) -> None:
        """n follows |W| + 1 (the smallest n) unless the user chose a larger n."""
        w = int(self.rows["w"].value())
        n_row = self.rows["n"]
        if w != self.last_w and (int(n_row.value()) == self.last_w + 1
                                  or int(n_row.value()) < w + 1):
            was = n_row.spin.blockSignals(True)
            n_row.set_value(w + 1)
            n_row.spin.blockSignals(was)
            n_row.slider._sync_from_spin()
        self.last_w = w
