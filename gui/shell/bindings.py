"""A form's widgets bound to the fields of a core parameters object, in one table.

A form that edits a frozen, self-checking parameters object (the core's ``…Parameters``)
lists each field it edits once, as a :class:`Binding`: the field, how its widget is read,
how a value is shown in it, the widget and its help. The same table builds the object
(:func:`read_bindings`: the core checks the values and names a refused field), shows one
(:func:`show_fields`, or :func:`show_bindings` for a few values by name) and gives each
widget its tooltip (:func:`set_tooltips`) — no hand-written read of N widgets beside a
hand-written write-back. It is the table form of :class:`gui.shell.param_field.ParamField`
for widgets that are not line edits (spin boxes, combos, check boxes)::

    table = (Binding("delta", delta_spin.value, delta_spin.setValue, delta_spin, "δ"),
             combo_binding("adjacency", adjacency_combo, "neighbours"))
    params = DesignParameters(epsilon=1.0, **read_bindings(table))   # InputError(field=…)
    show_fields(table, params)                                         # back into the widgets
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QComboBox, QWidget

__all__ = ["Binding", "choose", "combo_binding", "read_bindings", "set_tooltips",
           "show_bindings", "show_fields"]


@dataclass(frozen=True)
class Binding:
    """One widget bound to one field of a parameters object.

    Parameters
    ----------
    name : str
        How the form names the value (``show_bindings(…, name=value)``).
    read : callable
        ``read() -> value`` as the parameters object takes it (None where that means
        something, e.g. release mode for a seed).
    show : callable
        ``show(value)`` puts a value of the field into the widget.
    widget : QWidget, optional
        The widget (its tooltip is ``tooltip``).
    tooltip : str
        The widget's help.
    key : str
        The parameters' field when it is not ``name``; bindings sharing a key make a list
        of their values, in table order (a budget [E, D] typed in two boxes).
    """

    name: str
    read: Callable[[], Any]
    show: Callable[[Any], object]
    widget: QWidget | None = None
    tooltip: str = ""
    key: str = ""

    @property
    def field(self) -> str:
        """The parameters object's field (or record key) this widget edits."""
        return self.key or self.name


def choose(combo: QComboBox, value: Any, what: str) -> None:
    """Select the item of ``combo`` whose data is ``value``; ValueError naming ``what``."""
    index = combo.findData(value)
    if index < 0:
        raise ValueError(f"{what} cannot be {value!r}")
    combo.setCurrentIndex(index)


def combo_binding(name: str, combo: QComboBox, tooltip: str = "", *, key: str = "",
                  convert: Callable[[Any], Any] = str) -> Binding:
    """A combo whose items' data are the field's values (an unknown value: ValueError)."""
    return Binding(name, lambda: convert(combo.currentData()),
                   lambda v: choose(combo, v, name), combo, tooltip, key)


def _shared_keys(bindings: Iterable[Binding]) -> set[str]:
    seen: set[str] = set()
    shared: set[str] = set()
    for b in bindings:
        (shared if b.field in seen else seen).add(b.field)
    return shared


def read_bindings(bindings: Iterable[Binding]) -> dict[str, Any]:
    """``{field: value}`` read from every widget of the table, in its order (a field that
    several bindings share: the list of their values)."""
    table = tuple(bindings)
    shared = _shared_keys(table)
    out: dict[str, Any] = {}
    for b in table:
        if b.field in shared:
            out.setdefault(b.field, []).append(b.read())
        else:
            out[b.field] = b.read()
    return out


def show_bindings(bindings: Iterable[Binding], values: Mapping[str, Any]) -> None:
    """Show ``values`` by binding name, in the table's order. An unknown name raises
    ValueError and sets nothing; a value a widget cannot show raises ValueError and leaves
    the later ones unset."""
    table = tuple(bindings)
    unknown = sorted(set(values) - {b.name for b in table})
    if unknown:
        raise ValueError(f"unknown parameter {', '.join(map(repr, unknown))}")
    for b in table:
        if b.name in values:
            b.show(values[b.name])


def show_fields(bindings: Iterable[Binding], params: Any) -> None:
    """Show a parameters object (its attributes) or a mapping of its fields (a record's
    ``params``) in every widget of the table; a field several bindings share is a sequence
    whose items go to them in table order."""
    table = tuple(bindings)
    shared = _shared_keys(table)
    position: dict[str, int] = {}
    for b in table:
        value = params[b.field] if isinstance(params, Mapping) else getattr(params, b.field)
        if b.field in shared:
            i = position.get(b.field, 0)
            position[b.field] = i + 1
            value = value[i]
        b.show(value)


def set_tooltips(bindings: Iterable[Binding]) -> None:
    """Give each bound widget its help."""
    for b in bindings:
        if b.widget is not None and b.tooltip:
            b.widget.setToolTip(b.tooltip)
