"""The Private agents tab's widgets bound to the fields of the core's parameters.

A binding is a table of ``(field, widget)`` pairs: :func:`read_fields` reads each widget's
value the one way its kind is read (a spin box's ``value()``, a check box's state, a combo
box's item data), so building :class:`core.gridworld.release.DrlParameters` or
:class:`core.comarl.release.ComarlParameters` from the tab is one call, and the core's
checks (which name the field) are the only ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QSpinBox, QWidget

__all__ = ["widget_value", "read_fields"]


def widget_value(widget: QWidget) -> Any:
    """What ``widget`` holds: an int (QSpinBox), a float (other spin boxes), a bool (check
    box) or the current item's data (combo box)."""
    if isinstance(widget, QSpinBox):
        return int(widget.value())
    if isinstance(widget, QAbstractSpinBox):
        return float(widget.value())  # type: ignore[attr-defined]
    if isinstance(widget, QAbstractButton):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    raise TypeError(f"no value is read from a {type(widget).__name__}")


def read_fields(table: Iterable[tuple[str, QWidget]]) -> dict[str, Any]:
    """``{field: widget_value(widget)}`` of a binding table."""
    return {name: widget_value(w) for name, w in table}
