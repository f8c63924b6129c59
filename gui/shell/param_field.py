"""A field bound to one parameter of a typed parameters object, with its validation message.

The core's parameters are frozen dataclasses that check themselves when built
(:class:`core.advising.model.AdvisingParams`, :class:`core.logistics.planner.PlannerParams`,
…): a bad value raises :class:`core.common.errors.InputError` naming the field. A
:class:`ParamField` is a line edit bound to one of those parameters by name. It shows the
value the parameters object holds (so a panel does not restate the core's defaults), checks
what is typed by building the object again with the new value (so it says exactly what the
core would say, as you type), shows the reason under the field in red, and emits
:attr:`ParamField.committed` with the parsed value when a valid value is entered (Enter or
leaving the field)::

    field = ParamField("epsilon", lambda: PlannerParams.preset_params(preset), parent,
                       label="ε", tooltip="privacy parameter")
    field.show_value(PlannerParams.preset_params(preset))   # the core's default
    value = field.checked_value()   # the parsed value, or InputError(field="epsilon")

This is the one-line binding of Orange's ``gui.spin(box, self, "n_neighbors", …)``, with the
validation kept in the core.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from core.common import InputError
from gui.shell.style import ERROR_COLOUR
from gui.shell.widgets import show_field_error

__all__ = ["FieldWithError", "ParamField", "parse_number", "format_value"]


def parse_number(text: Any) -> float:
    """A typed number ("2", "0.5", "1e-3", "1,5"); ValueError naming the text otherwise.

    >>> parse_number(" 1,5 "), parse_number("2e-3")
    (1.5, 0.002)
    """
    if isinstance(text, bool):
        raise ValueError(f"must be a number, got {text!r}")
    if isinstance(text, (int, float)):
        return float(text)
    t = str(text).strip().replace(",", ".")
    try:
        return float(t)
    except ValueError:
        raise ValueError(f"must be a number, got {str(text)!r}") from None


def format_value(value: Any) -> str:
    """How a parameter's value is written in its field (``0.5``, ``1e-05``, ``700``)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


class FieldWithError(QWidget):
    """A line edit with an inline error message under it (the field turns red)."""

    def __init__(self, name: str, parent: QWidget | None = None, *, tooltip: str = "") -> None:
        super().__init__(parent)
        self.name = name
        self._tooltip = tooltip
        self.edit = QLineEdit(self)
        self.edit.setToolTip(tooltip)
        self.edit.setObjectName(f"field_{name}")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOUR}; font-size: 8pt; }}")
        self.error.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.edit)
        lay.addWidget(self.error)

    def setToolTip(self, tip: str) -> None:  # noqa: N802 (Qt's name)
        """The field's help: on its line edit, and kept below a reason when a value is
        refused (so a binding table can give it, :func:`gui.shell.bindings.set_tooltips`)."""
        self._tooltip = tip
        self.edit.setToolTip(tip)

    @property
    def has_error(self) -> bool:
        return not self.error.isHidden()

    def set_error(self, message: str) -> None:
        """Turn the field red with ``Not applied: message`` under it."""
        show_field_error(self.edit, f"Not applied: {message}", self._tooltip,
                         message=self.error, prefix="", selector="QLineEdit")

    def clear_error(self) -> None:
        show_field_error(self.edit, "", self._tooltip, message=self.error)


class ParamField(FieldWithError):
    """A line edit bound to the parameter ``name`` of the objects ``base()`` returns.

    Parameters
    ----------
    name : str
        The dataclass field of the parameters object.
    base : callable
        Returns the current parameters object (a frozen dataclass that validates itself);
        a typed value is checked by ``dataclasses.replace(base(), name=value)``.
    parent : QWidget, optional
    label : str, optional
        How the parameter is named in messages (``"ε"``); ``name`` by default.
    tooltip : str
        The field's help (kept below a reason when the value is refused).
    integer : bool, optional
        Parse whole numbers as ``int``; by default when the current value is an ``int``.
    """

    committed = Signal(str, object)  # name, the parsed valid value (Enter or leaving the field)
    refused = Signal(str, str)  # name, why (Enter or leaving the field with a refused value)

    def __init__(self, name: str, base: Callable[[], Any], parent: QWidget | None = None, *,
                 label: str | None = None, tooltip: str = "",
                 integer: bool | None = None) -> None:
        super().__init__(name, parent, tooltip=tooltip)
        self.label = label or name
        self._base = base
        current = getattr(base(), name)
        self._integer = (isinstance(current, int) and not isinstance(current, bool)
                         if integer is None else integer)
        self.edit.textEdited.connect(self._on_text_edited)
        self.edit.editingFinished.connect(self._on_editing_finished)
        self.show_value(base())

    # ------------------------------------------------------------------ value
    def show_value(self, params: Any) -> None:
        """Show the value ``params`` holds for this parameter (clears any error)."""
        self.edit.setText(format_value(getattr(params, self.name)))
        self.clear_error()

    def value(self) -> Any:
        """The typed value, parsed (ValueError if it is not a number)."""
        x = parse_number(self.edit.text())
        return int(x) if self._integer and x.is_integer() else x

    def checked_value(self) -> Any:
        """The typed value if the parameters object accepts it; InputError (naming this
        field, with the reason shown under it) otherwise."""
        try:
            value = self.value()
        except ValueError as exc:
            self.set_error(f"{self.label} {exc}")
            raise InputError(f"{self.label} {exc}", field=self.name) from None
        try:
            dataclasses.replace(self._base(), **{self.name: value})
        except InputError as exc:
            msg = f"{self.label} {exc.problem}"
            self.set_error(msg)
            raise InputError(msg, field=exc.field or self.name) from None
        self.clear_error()
        return value

    def problem(self) -> str | None:
        """Why the typed value is refused ("ε must be a number, got 'x'"), or None."""
        try:
            value = self.value()
        except ValueError as exc:
            return f"{self.label} {exc}"
        try:
            dataclasses.replace(self._base(), **{self.name: value})
        except InputError as exc:
            return f"{self.label} {exc.problem}"
        return None

    # ------------------------------------------------------------------ slots
    def _on_text_edited(self, _text: str) -> None:
        # checked as you type: the reason at once; the value is applied on Enter / leaving
        err = self.problem()
        if err:
            self.set_error(err)
        else:
            self.clear_error()

    def _on_editing_finished(self) -> None:
        err = self.problem()
        if err:
            self.set_error(err)
            self.refused.emit(self.name, err)
        else:
            self.committed.emit(self.name, self.value())
