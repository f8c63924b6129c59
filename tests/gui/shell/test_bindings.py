"""gui.shell.bindings: one table of (widget, field) bindings reads, shows and explains."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox

from gui.shell.bindings import (
    Binding,
    choose,
    combo_binding,
    read_bindings,
    set_tooltips,
    show_bindings,
    show_fields,
)


@dataclasses.dataclass(frozen=True)
class Params:
    mode: str = "a"
    budget: tuple[float, float] = (1.0, 0.5)


@pytest.fixture
def table(qtbot):
    combo = QComboBox()
    combo.addItem("A", "a")
    combo.addItem("B", "b")
    e, d = QDoubleSpinBox(), QDoubleSpinBox()
    for w in (combo, e, d):
        qtbot.addWidget(w)
    return (combo_binding("mode", combo, "the mode"),
            Binding("budget_e", e.value, e.setValue, e, "E", key="budget"),
            Binding("budget_d", d.value, d.setValue, d, "D", key="budget"))


def test_read_gives_each_field_and_a_shared_key_as_a_list(table):
    table[0].widget.setCurrentIndex(1)
    table[1].widget.setValue(3.0)
    table[2].widget.setValue(0.25)
    assert read_bindings(table) == {"mode": "b", "budget": [3.0, 0.25]}
    assert Params(**read_bindings(table)) == Params("b", [3.0, 0.25])


def test_show_fields_puts_an_object_or_a_mapping_back(table):
    show_fields(table, Params("b", (7.0, 0.75)))
    assert read_bindings(table) == {"mode": "b", "budget": [7.0, 0.75]}
    show_fields(table, {"mode": "a", "budget": [2.0, 0.5]})
    assert read_bindings(table) == {"mode": "a", "budget": [2.0, 0.5]}


def test_show_by_name_refuses_an_unknown_name_before_setting_anything(table):
    with pytest.raises(ValueError, match="'colour'"):
        show_bindings(table, {"budget_e": 9.0, "colour": "red"})
    assert table[1].widget.value() == 0.0
    show_bindings(table, {"budget_e": 9.0})
    assert table[1].widget.value() == 9.0 and table[2].widget.value() == 0.0
    with pytest.raises(ValueError, match="mode cannot be 'z'"):
        show_bindings(table, {"mode": "z"})
    with pytest.raises(ValueError, match="colour"):
        choose(table[0].widget, "z", "colour")


def test_tooltips_come_from_the_table(table):
    set_tooltips(table)
    assert [b.widget.toolTip() for b in table] == ["the mode", "E", "D"]
